//! The parent side of GL driver workers (`conform worker --driver NAME`): the GL protocol, the
//! driver's environment and its probe, over the supervision every worker shares
//! ([`conform_worker::Supervised`]: a per-plan wall-clock limit, crash and timeout results, a
//! fresh process after either, a bounded answer).

use crate::{ContextApi, Driver, DriverInfo, EglDevice, Request, Response};
use conform_plan::{ExecPlan, Outcome, RawResult, Refusal};
use conform_worker::{Launch, Protocol, Supervised};
pub use conform_worker::{MAX_RESPONSE_BYTES, STARTUP_TIMEOUT};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// What a GL driver worker speaks.
pub struct GlProtocol {
    pub driver: Driver,
}

impl Protocol for GlProtocol {
    type Request = Request;
    type Response = Response;
    type Info = DriverInfo;

    fn args(&self) -> Vec<OsString> {
        vec![
            "worker".into(),
            "--driver".into(),
            self.driver.name().into(),
        ]
    }

    fn environment(&self) -> Vec<(OsString, OsString, bool)> {
        self.driver
            .environment()
            .into_iter()
            .map(|(k, v, overridable)| (k.into(), v.into(), overridable))
            .collect()
    }

    fn private_runtime_dir(&self) -> bool {
        true
    }

    fn probe(&self) -> Option<Request> {
        Some(Request::Probe)
    }

    fn probe_answer(response: Response) -> Result<Result<DriverInfo, String>, Response> {
        match response {
            Response::Probe(r) => Ok(r),
            other => Err(other),
        }
    }

    fn run_answer(response: Response) -> Result<Result<Outcome, Refusal>, Response> {
        match response {
            Response::Run(r) => Ok(r),
            other => Err(other),
        }
    }

    fn starting(&self) -> &'static str {
        "creating its context"
    }
}

/// One GL driver's worker process, restarted transparently after a crash or a timeout.
pub struct Worker {
    inner: Supervised<GlProtocol>,
}

impl Worker {
    /// A worker for `driver` that runs `current_exe() worker --driver NAME`.
    pub fn new(driver: Driver) -> std::io::Result<Worker> {
        Ok(Worker::with_exe(std::env::current_exe()?, driver))
    }

    /// A worker that runs `exe worker --driver NAME` (for tests and other front ends).
    pub fn with_exe(exe: impl Into<PathBuf>, driver: Driver) -> Worker {
        Worker {
            inner: Supervised::new(exe, GlProtocol { driver }, driver.to_string()),
        }
    }

    /// Stops waiting for an answer as soon as `flag` is raised: the worker is killed and the
    /// plan answered with `Refusal::Internal("cancelled")`, which the caller is expected to
    /// drop (a run interrupted by a signal keeps only what finished).
    pub fn cancel_on(&mut self, flag: Arc<AtomicBool>) -> &mut Self {
        self.inner.cancel_on(flag);
        self
    }

    /// Adds an environment variable for the worker processes started from now on.
    pub fn env(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> &mut Self {
        self.inner.env(key, value);
        self
    }

    /// Starts the worker processes from now on as `launch` says (a Mesa install's
    /// environment, a root's own dynamic loader).
    pub fn launch(&mut self, launch: &Launch) -> &mut Self {
        self.inner.launch(launch);
        self
    }

    pub fn driver(&self) -> Driver {
        self.inner.protocol().driver
    }

    /// How many worker processes were started so far (1 + restarts).
    pub fn starts(&self) -> u32 {
        self.inner.starts()
    }

    /// Things that happened outside any plan (a worker that died between plans and was
    /// replaced), oldest first; drained by the call.
    pub fn take_events(&mut self) -> Vec<String> {
        self.inner.take_events()
    }

    /// The process id of the running worker, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.inner.pid()
    }

    /// The last few KiB the current (or last) worker process wrote on stderr.
    pub fn stderr_tail(&self) -> String {
        self.inner.stderr_tail()
    }

    /// Describes the driver (starting the worker if needed).
    pub fn probe(&mut self) -> Result<DriverInfo, String> {
        self.inner.probe()
    }

    /// The description from the current worker's probe (None before the first start, or when
    /// the driver gave no context).
    pub fn info(&self) -> Option<&DriverInfo> {
        self.inner.info()
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
        self.inner.run(&request, timeout)
    }

    /// Stops the worker: closes its stdin (the worker exits at end of input), gives it a
    /// moment to exit, then kills it.
    pub fn shutdown(&mut self) {
        self.inner.shutdown();
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
    probe_with_env(exe, drivers, &Launch::default())
}

/// Probes `drivers`, each in its own worker (in parallel) started as `launch` says (a Mesa
/// install's, [`crate::install::MesaInstall::launch`]).
pub fn probe_with_env(
    exe: &Path,
    drivers: Vec<Driver>,
    launch: &Launch,
) -> Vec<(Driver, Result<DriverInfo, String>)> {
    let handles: Vec<_> = drivers
        .iter()
        .copied()
        .map(|d| {
            let exe = exe.to_path_buf();
            let launch = launch.clone();
            std::thread::spawn(move || {
                let mut w = Worker::with_exe(exe, d);
                w.launch(&launch);
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
