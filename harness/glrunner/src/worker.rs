//! The parent side: worker processes with crash and hang isolation.
//!
//! A worker runs one [`Role`]: a GL driver (`conform worker --driver NAME`), or the reference
//! interpreter (`conform worker --reference`, whose loop lives in the harness, which links the
//! interpreter). Both speak the same protocol and get the same treatment: a per-plan
//! wall-clock limit, crash and timeout results, a fresh process after either, a bounded answer.

use crate::{ContextApi, Driver, DriverInfo, EglDevice, Request, Response};
use conform_plan::{ExecPlan, RawResult, ReferenceKnobs, Refusal};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a fresh worker may take to create its context and answer the first probe.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// How much of the worker's stderr is kept.
const STDERR_KEEP: usize = 64 * 1024;
/// How much of it a crash or timeout report carries.
const STDERR_TAIL: usize = 8 * 1024;
/// The longest response line read from a worker. A reference answer holds at most 256 MiB of
/// buffers (the loader's limits), base64 makes that 342 MiB; anything longer is a broken
/// worker, and reading it whole would make the harness's memory depend on the input.
pub const MAX_RESPONSE_BYTES: usize = 384 << 20;
/// How often a wait for an answer looks at the cancel flag ([`Worker::cancel_on`]).
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// What a worker process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A GL driver, with one context for the worker's life.
    Driver(Driver),
    /// The reference interpreter (no context, no probe).
    Reference,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Role::Driver(d) => write!(f, "{d}"),
            Role::Reference => f.write_str("reference"),
        }
    }
}

/// A protocol failure below the level of responses.
enum Failure {
    Crash(ExitStatus),
    Timeout,
    /// The cancel flag was raised while waiting; the worker was killed.
    Cancelled,
    Protocol(String),
}

type Ring = Arc<Mutex<VecDeque<u8>>>;

struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Answer lines; `Err` for one above [`MAX_RESPONSE_BYTES`]; `None` at end of output.
    lines: Receiver<Option<Result<String, ()>>>,
    stderr_done: Receiver<()>,
}

/// One worker process (a driver's or the reference's), restarted transparently after a crash
/// or a timeout.
pub struct Worker {
    role: Role,
    exe: PathBuf,
    extra_env: Vec<(OsString, OsString)>,
    runtime_dir: Option<PathBuf>,
    live: Option<Live>,
    info: Option<DriverInfo>,
    unavailable: Option<String>,
    stderr: Ring,
    starts: u32,
    events: Vec<String>,
    cancel: Option<Arc<AtomicBool>>,
}

static DIR_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Creates a fresh private directory (mode 0700) for `XDG_RUNTIME_DIR`.
pub(crate) fn private_runtime_dir() -> std::io::Result<PathBuf> {
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

fn tail(ring: &Ring) -> String {
    let guard = match ring.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    let skip = guard.len().saturating_sub(STDERR_TAIL);
    let bytes: Vec<u8> = guard.iter().skip(skip).copied().collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Worker {
    /// A worker for `driver` that runs `current_exe() worker --driver NAME`.
    pub fn new(driver: Driver) -> std::io::Result<Worker> {
        Ok(Worker::with_exe(std::env::current_exe()?, driver))
    }

    /// A worker that runs `exe worker --driver NAME` (for tests and other front ends).
    pub fn with_exe(exe: impl Into<PathBuf>, driver: Driver) -> Worker {
        Worker::with_role(exe, Role::Driver(driver))
    }

    /// A worker that runs `exe worker --reference`: the reference interpreter in its own
    /// process, answering [`Request::RunReference`].
    pub fn reference(exe: impl Into<PathBuf>) -> Worker {
        Worker::with_role(exe, Role::Reference)
    }

    fn with_role(exe: impl Into<PathBuf>, role: Role) -> Worker {
        Worker {
            role,
            exe: exe.into(),
            extra_env: Vec::new(),
            runtime_dir: None,
            live: None,
            info: None,
            unavailable: None,
            stderr: Arc::new(Mutex::new(VecDeque::new())),
            starts: 0,
            events: Vec::new(),
            cancel: None,
        }
    }

    /// Stops waiting for an answer as soon as `flag` is raised: the worker is killed and the
    /// plan answered with `Refusal::Internal("cancelled")`, which the caller is expected to
    /// drop (a run interrupted by a signal keeps only what finished).
    pub fn cancel_on(&mut self, flag: Arc<AtomicBool>) -> &mut Self {
        self.cancel = Some(flag);
        self
    }

    /// Adds an environment variable for the worker processes started from now on.
    pub fn env(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> &mut Self {
        self.extra_env.push((key.into(), value.into()));
        self
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// How many worker processes were started so far (1 + restarts).
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// Things that happened outside any plan (a worker that died between plans and was
    /// replaced), oldest first; drained by the call.
    pub fn take_events(&mut self) -> Vec<String> {
        std::mem::take(&mut self.events)
    }

    /// The process id of the running worker, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.live.as_ref().map(|l| l.child.id())
    }

    /// The last few KiB the current (or last) worker process wrote on stderr.
    pub fn stderr_tail(&self) -> String {
        tail(&self.stderr)
    }

    fn spawn(&mut self) -> std::io::Result<()> {
        let mut cmd = Command::new(&self.exe);
        cmd.arg("worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let driver = match self.role {
            Role::Driver(d) => Some(d),
            Role::Reference => None,
        };
        match driver {
            Some(d) => cmd.arg("--driver").arg(d.name()),
            // A crash report carries the tail of stderr: the allocator's or the panic's own
            // line, not a backtrace that would push it out.
            None => cmd.arg("--reference").env("RUST_BACKTRACE", "0"),
        };
        for (key, value, overridable) in driver.map(Driver::environment).unwrap_or_default() {
            if !overridable || std::env::var_os(key).is_none() {
                cmd.env(key, value);
            }
        }
        if driver.is_some() && std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            if self.runtime_dir.is_none() {
                self.runtime_dir = private_runtime_dir().ok();
            }
            if let Some(dir) = &self.runtime_dir {
                cmd.env("XDG_RUNTIME_DIR", dir);
            }
        }
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("worker pipes missing"));
        };
        if let Ok(mut g) = self.stderr.lock() {
            g.clear();
        }
        let (line_tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                // One byte over the limit tells a line that is too long from one that fits.
                let limit = MAX_RESPONSE_BYTES as u64 + 1;
                match (&mut reader).take(limit).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => {
                        let _ = line_tx.send(None);
                        return;
                    }
                    Ok(n) if n as u64 == limit && !line.ends_with(b"\n") => {
                        let _ = line_tx.send(Some(Err(())));
                        return;
                    }
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line).into_owned();
                        if line_tx.send(Some(Ok(text))).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let ring = Arc::clone(&self.stderr);
        let (done_tx, stderr_done) = mpsc::channel();
        std::thread::spawn(move || {
            let mut stderr = stderr;
            let mut buf = [0u8; 4096];
            loop {
                match stderr.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut g = match ring.lock() {
                            Ok(g) => g,
                            Err(p) => p.into_inner(),
                        };
                        g.extend(&buf[..n]);
                        let excess = g.len().saturating_sub(STDERR_KEEP);
                        g.drain(..excess);
                    }
                }
            }
            let _ = done_tx.send(());
        });
        self.starts += 1;
        self.live = Some(Live {
            child,
            stdin: Some(stdin),
            lines,
            stderr_done,
        });
        Ok(())
    }

    /// Kills the worker (if any) and waits for it; returns its exit status.
    fn kill(&mut self) -> Option<ExitStatus> {
        let mut live = self.live.take()?;
        let _ = live.child.kill();
        let status = live.child.wait().ok();
        let _ = live.stderr_done.recv_timeout(Duration::from_secs(1));
        status
    }

    /// After the worker's stdout closed: its exit status (killing it if it lingers).
    fn reap(&mut self) -> Option<ExitStatus> {
        let live = self.live.as_mut()?;
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match live.child.try_wait() {
                Ok(Some(status)) => {
                    let _ = live.stderr_done.recv_timeout(Duration::from_secs(1));
                    self.live = None;
                    return Some(status);
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => return self.kill(),
            }
        }
    }

    fn request(&mut self, req: &Request, timeout: Duration) -> Result<Response, Failure> {
        let text = serde_json::to_string(req)
            .map_err(|e| Failure::Protocol(format!("cannot encode the request: {e}")))?;
        let live = self
            .live
            .as_mut()
            .ok_or_else(|| Failure::Protocol("no worker running".into()))?;
        let sent = match live.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{text}").and_then(|_| stdin.flush()),
            None => Err(std::io::Error::other("worker stdin closed")),
        };
        if sent.is_err() {
            // The worker is gone; its status tells how.
            return Err(match self.reap() {
                Some(status) => Failure::Crash(status),
                None => Failure::Protocol("worker vanished".into()),
            });
        }
        let got = wait_for_line(&live.lines, timeout, self.cancel.as_deref());
        match got {
            Ok(Some(Err(()))) => {
                self.kill();
                Err(Failure::Protocol(format!(
                    "the {} worker answered with more than {MAX_RESPONSE_BYTES} bytes",
                    self.role
                )))
            }
            Err(Waited::Cancelled) => {
                self.kill();
                Err(Failure::Cancelled)
            }
            Ok(Some(Ok(line))) => match serde_json::from_str::<Response>(&line) {
                Ok(r) => Ok(r),
                // A line cut short by a dying worker is a crash, not a protocol error.
                Err(_) if !line.ends_with('\n') => Err(match self.reap() {
                    Some(status) => Failure::Crash(status),
                    None => Failure::Protocol("worker vanished".into()),
                }),
                Err(e) => {
                    self.kill();
                    Err(Failure::Protocol(format!(
                        "unreadable worker response ({e}): {}",
                        line.chars().take(200).collect::<String>()
                    )))
                }
            },
            Ok(None) | Err(Waited::Disconnected) => Err(match self.reap() {
                Some(status) => Failure::Crash(status),
                None => Failure::Protocol("worker vanished".into()),
            }),
            Err(Waited::Timeout) => {
                self.kill();
                Err(Failure::Timeout)
            }
        }
    }

    fn failure_result(&self, f: Failure) -> RawResult {
        let stderr_tail = self.stderr_tail();
        match f {
            Failure::Crash(status) => RawResult::Crash {
                signal: status.signal(),
                code: status.code(),
                stderr_tail,
            },
            Failure::Timeout => RawResult::Timeout { stderr_tail },
            Failure::Cancelled => RawResult::Done(Err(Refusal::Internal("cancelled".into()))),
            Failure::Protocol(msg) => RawResult::Done(Err(Refusal::Internal(msg))),
        }
    }

    /// Starts a worker if none runs and probes it. Err is the reason when no worker could
    /// start or its first answer failed.
    fn ensure_started(&mut self) -> Result<(), Box<RawResult>> {
        // A worker that died between plans (after answering) is replaced: its death belongs to
        // no plan, so it is an event (`take_events`) rather than a crash.
        let exited = self
            .live
            .as_mut()
            .is_some_and(|l| !matches!(l.child.try_wait(), Ok(None)));
        if exited {
            let status = self
                .kill()
                .map_or_else(|| "status unknown".to_string(), |s| s.to_string());
            self.events.push(format!(
                "the {} worker exited between plans ({status}); a fresh one was started",
                self.role
            ));
        }
        if self.live.is_some() {
            return Ok(());
        }
        if let Err(e) = self.spawn() {
            return Err(Box::new(RawResult::Done(Err(Refusal::Internal(format!(
                "cannot start worker `{}`: {e}",
                self.exe.display()
            ))))));
        }
        if self.role == Role::Reference {
            // No context to create: the first plan is the first request.
            return Ok(());
        }
        match self.request(&Request::Probe, STARTUP_TIMEOUT) {
            Ok(Response::Probe(Ok(info))) => {
                self.info = Some(info);
                self.unavailable = None;
                Ok(())
            }
            Ok(Response::Probe(Err(reason))) => {
                // Keep the worker: it answers every plan with Unsupported(reason).
                self.info = None;
                // Give the stderr thread a moment: the driver's own message says most.
                std::thread::sleep(Duration::from_millis(50));
                let said = self.stderr_tail();
                let driver_lines: Vec<&str> = said
                    .lines()
                    .filter(|l| !l.starts_with("conform worker") && !l.trim().is_empty())
                    .collect();
                let reason = if driver_lines.is_empty() {
                    reason
                } else {
                    let from = driver_lines.len().saturating_sub(3);
                    format!(
                        "{reason} (driver said: {})",
                        driver_lines[from..].join(" | ")
                    )
                };
                self.unavailable = Some(reason);
                Ok(())
            }
            Ok(other) => {
                self.kill();
                Err(Box::new(RawResult::Done(Err(Refusal::Internal(format!(
                    "worker answered a probe with {other:?}"
                ))))))
            }
            Err(f) => Err(Box::new(self.failure_result(f))),
        }
    }

    /// Describes the driver (starting the worker if needed).
    pub fn probe(&mut self) -> Result<DriverInfo, String> {
        match self.ensure_started().map_err(|b| *b) {
            Ok(()) => match (&self.info, &self.unavailable) {
                (Some(info), _) => Ok(info.clone()),
                (None, Some(reason)) => Err(reason.clone()),
                (None, None) => Err("worker gave no description".to_string()),
            },
            Err(RawResult::Done(Err(Refusal::Unsupported(r)))) => Err(r),
            Err(RawResult::Done(Err(r))) => Err(format!("{r:?}")),
            Err(RawResult::Crash {
                signal,
                code,
                stderr_tail,
            }) => Err(format!(
                "worker crashed while creating its context (signal {signal:?}, code {code:?}): {}",
                stderr_tail.trim()
            )),
            Err(RawResult::Timeout { .. }) => Err(format!(
                "worker did not create its context within {STARTUP_TIMEOUT:?}"
            )),
            Err(RawResult::Done(Ok(_))) => Err("unexpected outcome from a probe".into()),
        }
    }

    /// The description from the current worker's probe (None before the first start, or when
    /// the driver gave no context).
    pub fn info(&self) -> Option<&DriverInfo> {
        self.info.as_ref()
    }

    /// [`Worker::run`] with the plan's own limit (`ExecPlan::timeout_ms`).
    pub fn run_with_plan_limit(&mut self, plan: &ExecPlan) -> RawResult {
        self.run(plan, Duration::from_millis(plan.timeout_ms))
    }

    /// Runs one plan with a wall-clock limit in the desktop context. On a crash or a
    /// timeout the worker is killed; the next call starts a fresh one.
    pub fn run(&mut self, plan: &ExecPlan, timeout: Duration) -> RawResult {
        self.run_in(ContextApi::Gl, plan, timeout)
    }

    /// [`Worker::run`] in the worker's context of `api` (OpenGL ES for a case with
    /// `requires.gles`).
    pub fn run_in(&mut self, api: ContextApi, plan: &ExecPlan, timeout: Duration) -> RawResult {
        let request = match api {
            ContextApi::Gl => Request::Run(plan.clone()),
            ContextApi::Gles => Request::RunGles(plan.clone()),
        };
        self.answer(&request, timeout)
    }

    /// Runs one plan on a reference worker ([`Worker::reference`]) with the plan's own limit,
    /// like [`Worker::run`].
    pub fn run_reference(&mut self, plan: &ExecPlan, knobs: ReferenceKnobs) -> RawResult {
        let timeout = Duration::from_millis(plan.timeout_ms);
        self.answer(&Request::RunReference(plan.clone(), knobs), timeout)
    }

    fn answer(&mut self, req: &Request, timeout: Duration) -> RawResult {
        if let Err(r) = self.ensure_started() {
            return *r;
        }
        match self.request(req, timeout) {
            Ok(Response::Run(r)) => RawResult::Done(r),
            Ok(other) => {
                self.kill();
                RawResult::Done(Err(Refusal::Internal(format!(
                    "worker answered a plan with {other:?}"
                ))))
            }
            Err(f) => self.failure_result(f),
        }
    }

    /// Stops the worker: closes its stdin (the worker exits at end of input), gives it a
    /// moment to exit, then kills it.
    pub fn shutdown(&mut self) {
        if let Some(live) = self.live.as_mut() {
            drop(live.stdin.take());
            let deadline = Instant::now() + Duration::from_millis(500);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = live.child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        self.kill();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
        if let Some(dir) = self.runtime_dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Why [`wait_for_line`] returned without a line.
enum Waited {
    Timeout,
    Disconnected,
    Cancelled,
}

/// The next line from a worker's reader thread, waiting at most `timeout` and looking at
/// `cancel` every [`CANCEL_POLL`].
fn wait_for_line<T>(
    lines: &Receiver<T>,
    timeout: Duration,
    cancel: Option<&AtomicBool>,
) -> Result<T, Waited> {
    let deadline = Instant::now() + timeout;
    loop {
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Waited::Cancelled);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let slice = if cancel.is_some() {
            left.min(CANCEL_POLL)
        } else {
            left
        };
        match lines.recv_timeout(slice) {
            Ok(t) => return Ok(t),
            Err(RecvTimeoutError::Disconnected) => return Err(Waited::Disconnected),
            Err(RecvTimeoutError::Timeout) if left <= slice => return Err(Waited::Timeout),
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Every EGL device, as a worker process of `exe` lists them (`worker --list-devices`): EGL
/// is loaded in a child, never in the harness, like for every driver.
pub fn list_devices(exe: &Path) -> Result<Vec<EglDevice>, String> {
    let child = Command::new(exe)
        .args(["worker", "--list-devices"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(STARTUP_TIMEOUT) {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Err(format!("listing EGL devices failed: {e}")),
        Err(_) => {
            // SAFETY: signalling our own child, which has not been reaped (its waiter is
            // still blocked).
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
            return Err(format!("listing EGL devices took over {STARTUP_TIMEOUT:?}"));
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    match serde_json::from_str::<Result<Vec<EglDevice>, String>>(text.trim()) {
        Ok(r) => r,
        Err(_) => Err(format!(
            "listing EGL devices failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// The drivers to probe: the software ones and NVIDIA always, and the Mesa hardware driver of
/// every EGL device that has one.
fn candidates(devices: &[EglDevice]) -> Vec<Driver> {
    let mut out: Vec<Driver> = Driver::ALL.to_vec();
    for d in devices.iter().flat_map(EglDevice::drivers) {
        if matches!(d, Driver::Mesa(_)) && !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// Probes every driver in its own worker (in parallel): the driver's description, or why no
/// context could be made for it. Hardware drivers are probed where an EGL device offers them.
pub fn probe_drivers(exe: &Path) -> Vec<(Driver, Result<DriverInfo, String>)> {
    probe_these(exe, candidates(&list_devices(exe).unwrap_or_default()))
}

/// Probes `drivers`, each in its own worker (in parallel).
pub fn probe_these(exe: &Path, drivers: Vec<Driver>) -> Vec<(Driver, Result<DriverInfo, String>)> {
    probe_with_env(exe, drivers, &[])
}

/// Probes `drivers`, each in its own worker (in parallel) started with `env` added to its
/// environment (a Mesa install's, [`crate::install::MesaInstall::environment`]).
pub fn probe_with_env(
    exe: &Path,
    drivers: Vec<Driver>,
    env: &[(OsString, OsString)],
) -> Vec<(Driver, Result<DriverInfo, String>)> {
    let handles: Vec<_> = drivers
        .iter()
        .copied()
        .map(|d| {
            let exe = exe.to_path_buf();
            let env = env.to_vec();
            std::thread::spawn(move || {
                let mut w = Worker::with_exe(exe, d);
                for (k, v) in env {
                    w.env(k, v);
                }
                w.probe()
            })
        })
        .collect();
    drivers
        .into_iter()
        .zip(handles)
        .map(|(d, h)| {
            let r = h
                .join()
                .unwrap_or_else(|_| Err("probe thread panicked".into()));
            (d, r)
        })
        .collect()
}

/// The drivers that can create a context on this machine.
pub fn available_drivers(exe: &Path) -> Vec<DriverInfo> {
    probe_drivers(exe)
        .into_iter()
        .filter_map(|(_, r)| r.ok())
        .collect()
}
