//! virglrenderer's vtest server for the `virgl` backend (worker side).
//!
//! Mesa's virgl driver, with `GALLIUM_DRIVER=virpipe`, sends its commands (TGSI shaders
//! included) over a Unix socket to a vtest server, which runs them through virglrenderer on a
//! host GL driver: the path of a QEMU or crosvm guest, without a virtual machine. Each `virgl`
//! worker starts a server of its own before its EGL display exists:
//!
//! - on a private socket: Mesa before 23 connects to `/tmp/.virgl_test` whatever
//!   `VTEST_SOCKET_NAME` says, so the worker gives itself a `/tmp` of its own first (a mount
//!   namespace in which `/tmp` is an overlay of the real one, its new files in a tmpfs:
//!   [`private_tmp`]) and the server listens at that path there, which nothing outside the
//!   worker sees; `VTEST_SOCKET_NAME` names it too, for the Mesas that read it. The socket
//!   goes with the namespace, so none is left behind, whatever ends the worker;
//! - with its own host driver: Mesa's llvmpipe on the EGL surfaceless platform, or the software
//!   driver `CONFORM_VIRGL_HOST` names; the host's libraries show in the worker's identity
//!   ([`VtestServer::libraries`]);
//! - as a child that the kernel kills when the worker dies (`PR_SET_PDEATHSIG`), so no server
//!   outlives its worker, whatever ends it, in a process group of its own that the worker
//!   kills whole when it is done or the server died (the process the server forks for the
//!   worker's connection is in it; after a crash of the worker itself, that one ends when it
//!   next reads its closed connection, once the command it runs is done);
//! - watched: when the server exits while the worker still runs (a crash of virglrenderer or
//!   of the host driver, or a kill), the worker says so on stderr (`conform worker: lost:
//!   ...`, which the judge puts in the case's message) and exits with [`SERVER_DIED_EXIT`]:
//!   the case running through it is reported as a crash with that line,
//!   and the next case gets a fresh worker and a fresh server.
//!
//! The server is `virgl_test_server` on `PATH` (Debian's `virgl-server`, which `.ci/deps`
//! installs), or the program `CONFORM_VTEST_SERVER` names.

use std::io::Write as _;
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The worker's exit status when its vtest server died under it.
pub const SERVER_DIED_EXIT: i32 = 75;
/// What a Mesa install's worker environment sets ([`crate::install::MesaInstall`]), cleared
/// for a server that runs on the system's libraries.
const INSTALL_ENVIRONMENT: [&str; 8] = [
    "CONFORM_MESA_INSTALL",
    "LD_LIBRARY_PATH",
    "LIBGL_DRIVERS_PATH",
    "__EGL_VENDOR_LIBRARY_FILENAMES",
    "GBM_BACKENDS_PATH",
    "VK_DRIVER_FILES",
    "VK_ICD_FILENAMES",
    "GALLIUM_DRIVER",
];
/// Where the guest connects (Mesa's default), inside the worker's own `/tmp`.
const SOCKET: &str = "/tmp/.virgl_test";
/// How long a server may take to listen.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A running vtest server, stopped (and its socket removed) when dropped.
pub struct VtestServer {
    pid: u32,
    socket: PathBuf,
    /// The directory the worker made for the socket (removed with it); `None` when the parent
    /// owns it.
    own_dir: Option<PathBuf>,
    /// `own_dir`'s parent, opened before /tmp was overlaid (to remove `own_dir` at the end).
    own_dir_parent: Option<std::fs::File>,
    stopping: Arc<AtomicBool>,
    watcher: Option<std::thread::JoinHandle<()>>,
    server: PathBuf,
}

/// The server program: `CONFORM_VTEST_SERVER`, or `virgl_test_server` found on `PATH`.
pub fn server_program() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("CONFORM_VTEST_SERVER").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("virgl_test_server"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "virgl needs virglrenderer's vtest server, `virgl_test_server`, on PATH (Debian: \
             the virgl-server package, which `bash .ci/deps` installs; or name it with \
             CONFORM_VTEST_SERVER)"
                .to_string()
        })
}

/// The command that starts the server, and the program's path for messages.
///
/// For a guest from a Debian root of `.ci/deps mesa-debian` (`virgl@ROOT`, the worker's
/// `CONFORM_MESA_INSTALL` naming the root's library directory) that has its own
/// `virgl_test_server` (virgl-server installed there), the root's server runs through the
/// root's dynamic loader on the root's libraries, with the root's Mesa as its host: the whole
/// stack of that suite. Otherwise the system's server (or `CONFORM_VTEST_SERVER`) runs on the
/// system's libraries and Mesa: the install's library path is cleared for it.
fn server_command() -> Result<(Command, PathBuf), String> {
    let install = std::env::var_os("CONFORM_MESA_INSTALL").map(PathBuf::from);
    let root = install
        .as_deref()
        .and_then(|libdir| libdir.parent()?.parent()?.parent())
        .filter(|_| std::env::var_os("CONFORM_VTEST_SERVER").is_none());
    let rooted = root.and_then(|r| {
        let server = r.join("usr/bin/virgl_test_server");
        let loader = r.join("lib64/ld-linux-x86-64.so.2");
        (server.is_file() && loader.is_file()).then(|| (r.to_path_buf(), server, loader))
    });
    let (mut cmd, shown) = match rooted {
        Some((r, server, loader)) => {
            let libs = format!(
                "{}:{}",
                r.join("usr/lib/x86_64-linux-gnu").display(),
                r.join("lib/x86_64-linux-gnu").display()
            );
            let mut cmd = Command::new(loader);
            cmd.arg("--library-path").arg(libs).arg(&server);
            for key in INSTALL_ENVIRONMENT {
                cmd.env_remove(key);
            }
            cmd.env("LIBGL_DRIVERS_PATH", r.join("usr/lib/x86_64-linux-gnu/dri"));
            cmd.env(
                "__EGL_VENDOR_LIBRARY_FILENAMES",
                r.join("usr/share/glvnd/egl_vendor.d/50_mesa.json"),
            );
            (cmd, server)
        }
        None => {
            let server = server_program()?;
            let mut cmd = Command::new(&server);
            if install.is_some() {
                for key in INSTALL_ENVIRONMENT {
                    cmd.env_remove(key);
                }
            }
            (cmd, server)
        }
    };
    cmd.env_remove("VTEST_SOCKET_NAME");
    Ok((cmd, shown))
}

impl VtestServer {
    /// Starts a server on a private socket and waits until it accepts a connection; sets
    /// `VTEST_SOCKET_NAME` for the Mesa this process loads afterwards.
    pub fn start() -> Result<VtestServer, String> {
        let (mut cmd, server) = server_command()?;
        let (dir, own_dir) = match std::env::var_os("CONFORM_WORKER_DIR").filter(|d| !d.is_empty())
        {
            Some(d) => (PathBuf::from(d), None),
            None => {
                let d = conform_worker::private_runtime_dir()
                    .map_err(|e| format!("cannot make a directory for the vtest socket: {e}"))?;
                (d.clone(), Some(d))
            }
        };
        let own_dir_parent = match (&own_dir, dir.parent()) {
            (Some(_), Some(parent)) => std::fs::File::open(parent).ok(),
            _ => None,
        };
        private_tmp(&dir).map_err(|e| {
            format!(
                "virgl needs a /tmp of its own for its vtest socket (Mesa before 23 connects to \
                 {SOCKET} whatever VTEST_SOCKET_NAME says), made in a mount namespace: {e} \
                 (as a user other than root this needs unprivileged user namespaces)"
            )
        })?;
        let socket = PathBuf::from(SOCKET);
        // A socket of the real /tmp (a server someone else runs) shows through the overlay:
        // removed here, in this namespace only.
        let _ = std::fs::remove_file(&socket);
        let host = std::env::var("CONFORM_VIRGL_HOST").unwrap_or_else(|_| "llvmpipe".into());
        cmd.arg("--use-egl-surfaceless")
            .arg(format!("--socket-path={}", socket.display()))
            .env("GALLIUM_DRIVER", &host)
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .env_remove("VTEST_SOCKET_NAME")
            .stdin(Stdio::null())
            // Its messages join the worker's stderr (what a crash report shows); fd 1 of a
            // worker is the protocol's, never the server's.
            .stdout(Stdio::from(
                std::io::stderr()
                    .as_fd()
                    .try_clone_to_owned()
                    .map_err(|e| format!("cannot pass stderr to the vtest server: {e}"))?,
            ))
            .stderr(Stdio::inherit());
        let parent = std::process::id();
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The worker died between fork and prctl: nobody would kill this server.
                if libc::getppid() as u32 != parent {
                    libc::_exit(1);
                }
                // A process group of its own, which the processes it forks per client join:
                // one kill ends them all.
                if libc::setpgid(0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", server.display()))?;
        let pid = child.id();
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                if let Some(d) = &own_dir {
                    let _ = std::fs::remove_dir_all(d);
                }
                return Err(format!(
                    "{} exited before it listened ({status}); its messages are above",
                    server.display()
                ));
            }
            // Listening once the socket exists (the server binds and listens in one go). Not
            // probed by connecting: the server serves its first client alone and stops when
            // that one goes, so a probe connection would be the only one it ever serves.
            if std::fs::symlink_metadata(&socket)
                .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()))
            {
                break;
            }
            if started.elapsed() > START_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                if let Some(d) = &own_dir {
                    let _ = std::fs::remove_dir_all(d);
                }
                return Err(format!(
                    "{} did not listen on {} within {START_TIMEOUT:?}",
                    server.display(),
                    socket.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        std::env::set_var("VTEST_SOCKET_NAME", &socket);
        let stopping = Arc::new(AtomicBool::new(false));
        let watching = stopping.clone();
        let name = server.display().to_string();
        let watcher = std::thread::spawn(move || {
            let status = child.wait();
            if watching.load(Ordering::SeqCst) {
                return;
            }
            let status = match status {
                Ok(s) => s.to_string(),
                Err(e) => format!("not known: {e}"),
            };
            let _ = writeln!(
                std::io::stderr(),
                "conform worker: lost: virgl's vtest server ({name}, pid {pid}) exited \
                 ({status}) while the case ran through it"
            );
            // The process it forked for this worker's connection may still be running the
            // last command: it goes too.
            // SAFETY: a plain kill of the server's own process group.
            unsafe {
                libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
            }
            // At once, without exit handlers: the main thread may be inside the driver, whose
            // handlers would wait for it, and its answer must not come.
            // SAFETY: ends the process; nothing runs after it.
            unsafe { libc::_exit(SERVER_DIED_EXIT) }
        });
        Ok(VtestServer {
            pid,
            socket,
            own_dir,
            own_dir_parent,
            stopping,
            watcher: Some(watcher),
            server,
        })
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// What the server runs on: the program, then virglrenderer and the host driver's
    /// libraries as the server mapped them (`/proc/PID/maps`), marked as the host's.
    pub fn libraries(&self) -> Vec<String> {
        let mut out = vec![format!("vtest server: {}", self.server.display())];
        let maps = std::fs::read_to_string(format!("/proc/{}/maps", self.pid)).unwrap_or_default();
        let mut seen = Vec::new();
        for line in maps.lines() {
            let Some(path) = line.split_whitespace().nth(5) else {
                continue;
            };
            let file = Path::new(path)
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or("");
            if (file.starts_with("libvirglrenderer") || crate::loaded::is_driver_library(file))
                && !seen.iter().any(|s: &String| s == path)
            {
                seen.push(path.to_string());
            }
        }
        out.extend(seen.into_iter().map(|p| format!("vtest server: {p}")));
        out
    }
}

impl Drop for VtestServer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // SAFETY: a plain kill of our own child's process group (the server and what it
        // forked); the watcher has not reaped the server yet, so the group still exists.
        unsafe {
            libc::kill(-(self.pid as libc::pid_t), libc::SIGKILL);
        }
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
        let _ = std::fs::remove_file(&self.socket);
        if let (Some(d), Some(parent)) = (self.own_dir.take(), self.own_dir_parent.take()) {
            // The directory is under the overlaid /tmp, with the tmpfs of `private_tmp`
            // mounted on it: reached through a descriptor of its parent opened before the
            // overlay, unmounted there, then removed.
            use std::os::fd::AsRawFd;
            let name = d.file_name().map(|n| n.to_os_string()).unwrap_or_default();
            let real = Path::new(&format!("/proc/self/fd/{}", parent.as_raw_fd())).join(name);
            if let Ok(c) = std::ffi::CString::new(real.as_os_str().as_encoded_bytes()) {
                // SAFETY: plain umount and rmdir of the directory this process made.
                unsafe {
                    libc::umount2(c.as_ptr(), libc::MNT_DETACH);
                    libc::rmdir(c.as_ptr());
                }
            }
        }
    }
}

/// Gives this process (and the children it starts afterwards) a `/tmp` of its own: a new
/// mount namespace (with a user namespace mapping only our own ids, when not root) in which
/// `/tmp` is an overlay of the real `/tmp` whose new files go to a tmpfs mounted on `scratch`.
/// What the worker reads in `/tmp` (a Mesa install's loader files) is still there; what it
/// creates there is its own and disappears with it. Must run before the process has threads
/// (a user namespace requires it; a mount namespace belongs to the thread that made it).
pub fn private_tmp(scratch: &Path) -> Result<(), String> {
    use std::ffi::CString;
    let c = |p: &str| CString::new(p).map_err(|e| e.to_string());
    let os_err = |what: &str| format!("{what}: {}", std::io::Error::last_os_error());
    // SAFETY: plain system calls on paths and buffers that live across each call.
    unsafe {
        let (uid, gid) = (libc::geteuid(), libc::getegid());
        let flags = if uid == 0 {
            libc::CLONE_NEWNS
        } else {
            libc::CLONE_NEWUSER | libc::CLONE_NEWNS
        };
        if libc::unshare(flags) != 0 {
            return Err(os_err("unshare"));
        }
        if uid != 0 {
            let write = |file: &str, text: String| {
                std::fs::write(file, text).map_err(|e| format!("{file}: {e}"))
            };
            write("/proc/self/setgroups", "deny".into())?;
            write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
            write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
        }
        let root = c("/")?;
        if libc::mount(
            std::ptr::null(),
            root.as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return Err(os_err("making the mounts private"));
        }
        let scratch_c =
            CString::new(scratch.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        let tmpfs = c("tmpfs")?;
        let mode = c("mode=0700")?;
        if libc::mount(
            tmpfs.as_ptr(),
            scratch_c.as_ptr(),
            tmpfs.as_ptr(),
            0,
            mode.as_ptr().cast(),
        ) != 0
        {
            return Err(os_err("mounting a tmpfs for /tmp's overlay"));
        }
        let (upper, work) = (scratch.join("upper"), scratch.join("work"));
        for d in [&upper, &work] {
            std::fs::create_dir(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        let options = c(&format!(
            "lowerdir=/tmp,upperdir={},workdir={}",
            upper.display(),
            work.display()
        ))?;
        let (overlay, tmp) = (c("overlay")?, c("/tmp")?);
        if libc::mount(
            overlay.as_ptr(),
            tmp.as_ptr(),
            overlay.as_ptr(),
            0,
            options.as_ptr().cast(),
        ) != 0
        {
            return Err(os_err("mounting the overlay on /tmp"));
        }
    }
    Ok(())
}
