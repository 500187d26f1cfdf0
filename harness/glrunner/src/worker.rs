//! The parent side: worker processes with crash and hang isolation.
//!
//! A worker runs one [`Role`]: a GL driver (`conform worker --driver NAME`), or the reference
//! interpreter (`conform worker --reference`, whose loop lives in the harness, which links the
//! interpreter). Both speak the same protocol and get the same treatment: a per-plan
//! wall-clock limit, crash and timeout results, a fresh process after either, a bounded answer.

use crate::{ContextApi, Driver, DriverInfo, EglDevice, Request, Response};
use conform_plan::{ExecPlan, RawResult, ReferenceKnobs, Refusal};
use conform_worker::Process;
pub use conform_worker::MAX_RESPONSE_BYTES;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// How long a fresh worker may take to create its context and answer the first probe.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

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

/// One worker process (a driver's or the reference's), restarted transparently after a crash
/// or a timeout. The process plumbing (isolation, limits, stderr) is
/// [`conform_worker::Process`]; this adds the GL protocol, the driver's environment and its
/// probe.
pub struct Worker {
    role: Role,
    exe: PathBuf,
    extra_env: Vec<(OsString, OsString)>,
    runtime_dir: Option<PathBuf>,
    process: Process,
    info: Option<DriverInfo>,
    unavailable: Option<String>,
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
            process: Process::new(role.to_string()),
            info: None,
            unavailable: None,
        }
    }

    /// Stops waiting for an answer as soon as `flag` is raised: the worker is killed and the
    /// plan answered with `Refusal::Internal("cancelled")`, which the caller is expected to
    /// drop (a run interrupted by a signal keeps only what finished).
    pub fn cancel_on(&mut self, flag: Arc<AtomicBool>) -> &mut Self {
        self.process.cancel_on(flag);
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
        self.process.starts()
    }

    /// Things that happened outside any plan (a worker that died between plans and was
    /// replaced), oldest first; drained by the call.
    pub fn take_events(&mut self) -> Vec<String> {
        self.process.take_events()
    }

    /// The process id of the running worker, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    /// The last few KiB the current (or last) worker process wrote on stderr.
    pub fn stderr_tail(&self) -> String {
        self.process.stderr_tail()
    }

    fn spawn(&mut self) -> std::io::Result<()> {
        let mut cmd = Command::new(&self.exe);
        cmd.arg("worker");
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
                self.runtime_dir = conform_worker::private_runtime_dir().ok();
            }
            if let Some(dir) = &self.runtime_dir {
                cmd.env("XDG_RUNTIME_DIR", dir);
            }
        }
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        self.process.spawn(cmd)
    }

    /// Starts a worker if none runs and probes it. Err is the reason when no worker could
    /// start or its first answer failed.
    fn ensure_started(&mut self) -> Result<(), Box<RawResult>> {
        // A worker that died between plans (after answering) is replaced: its death belongs to
        // no plan, so it is an event (`take_events`) rather than a crash.
        self.process.reap_if_exited();
        if self.process.is_live() {
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
        match self.process.request(&Request::Probe, STARTUP_TIMEOUT) {
            Ok(Response::Probe(Ok(info))) => {
                self.info = Some(info);
                self.unavailable = None;
                Ok(())
            }
            Ok(Response::Probe(Err(reason))) => {
                // Keep the worker: it answers every plan with Unsupported(reason).
                self.info = None;
                // The driver's own message says most.
                let reason = self.process.driver_said(reason);
                self.unavailable = Some(reason);
                Ok(())
            }
            Ok(other) => {
                self.process.kill();
                Err(Box::new(RawResult::Done(Err(Refusal::Internal(format!(
                    "worker answered a probe with {other:?}"
                ))))))
            }
            Err(f) => Err(Box::new(self.process.failure_result(f))),
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
        match self.process.request(req, timeout) {
            Ok(Response::Run(r)) => RawResult::Done(r),
            Ok(other) => {
                self.process.kill();
                RawResult::Done(Err(Refusal::Internal(format!(
                    "worker answered a plan with {other:?}"
                ))))
            }
            Err(f) => self.process.failure_result(f),
        }
    }

    /// Stops the worker: closes its stdin (the worker exits at end of input), gives it a
    /// moment to exit, then kills it.
    pub fn shutdown(&mut self) {
        self.process.shutdown();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.process.kill();
        if let Some(dir) = self.runtime_dir.take() {
            let _ = std::fs::remove_dir_all(dir);
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
