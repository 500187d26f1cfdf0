//! The worker's side: what every worker process does before it answers its first request,
//! whatever its backend.

use std::fs::File;
use std::io::Write;
use std::os::fd::FromRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

static DIR_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Creates a fresh private directory (mode 0700) for `XDG_RUNTIME_DIR`.
pub fn private_runtime_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let n = DIR_COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("conform-xdg-{}-{n}-{nanos}", std::process::id()));
    std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
    Ok(dir)
}

/// Moves the protocol off fd 1: returns a writer on a duplicate of the original stdout and
/// points fd 1 at stderr, so whatever a driver prints on stdout cannot corrupt the protocol.
pub fn protocol_output() -> Box<dyn Write> {
    // SAFETY: plain fd duplication on the process's own standard descriptors.
    unsafe {
        let fd = libc::dup(1);
        if fd >= 0 && libc::dup2(2, 1) >= 0 {
            return Box::new(File::from_raw_fd(fd));
        }
    }
    Box::new(std::io::stdout())
}

/// Leaves SIGINT, SIGTERM and SIGHUP to the parent: a worker has a process group of its own
/// (so that killing it kills what its driver started), which a terminal's Ctrl-C does not
/// reach, but a signal sent to it by hand would, and a worker that died of it would be
/// reported as a crash of its plan while the parent is still writing its reports. The parent kills its workers itself, and [`watch_parent`] ends
/// them when the parent is gone.
pub fn ignore_interrupts() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: setting a signal's disposition to SIG_IGN has no preconditions.
        unsafe {
            libc::signal(sig, libc::SIG_IGN);
        }
    }
}

/// Exits when the parent process goes away, even while the main thread is stuck in a driver:
/// a watchdog thread compares the parent pid every 500 ms. (PR_SET_PDEATHSIG would fire when
/// the *thread* that spawned the worker exits, which the harness's thread pools do freely.)
pub fn watch_parent() {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    let spawned = std::thread::Builder::new()
        .name("parent-watch".into())
        .spawn(move || loop {
            std::thread::sleep(std::time::Duration::from_millis(500));
            // SAFETY: as above; _exit skips atexit handlers, which a hung driver could block.
            unsafe {
                if libc::getppid() != parent {
                    libc::_exit(70);
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("conform worker: no parent watchdog: {e}");
    }
}

/// The worker's loop, whatever its backend: one JSON request per line of stdin, one JSON
/// response per line of `out`, until stdin ends (exit code 0) or stdin or `out` fails (1: the
/// parent went away). `answer` makes the response to a request; `internal` wraps a message of
/// the loop's own (a line that is not a request, a response that cannot be encoded) as a
/// response.
pub fn serve<Req, Resp>(
    label: &str,
    out: &mut impl Write,
    mut answer: impl FnMut(Req) -> Resp,
    internal: impl Fn(String) -> Resp,
) -> i32
where
    Req: serde::de::DeserializeOwned,
    Resp: serde::Serialize,
{
    use std::io::BufRead;
    for line in std::io::stdin().lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("conform worker ({label}): reading stdin: {e}");
                return 1;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let response = match serde_json::from_str::<Req>(&line) {
            Err(e) => internal(format!("worker could not parse the request: {e}")),
            Ok(request) => answer(request),
        };
        let text = match serde_json::to_string(&response) {
            Ok(t) => t,
            Err(e) => {
                match serde_json::to_string(&internal(format!(
                    "worker could not encode its response: {e}"
                ))) {
                    Ok(t) => t,
                    Err(_) => return 1,
                }
            }
        };
        if writeln!(out, "{text}").and_then(|_| out.flush()).is_err() {
            return 1;
        }
    }
    0
}
