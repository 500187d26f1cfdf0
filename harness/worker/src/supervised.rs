//! The parent's side every backend shares: a worker process started on demand with the
//! backend's command line and environment, probed once where the backend describes itself
//! (a GL context, a Vulkan device), asked one plan at a time under a wall-clock limit, and
//! replaced after a crash or a timeout. A backend says only what differs ([`Protocol`]); the
//! GL runner, the Vulkan runner and the reference interpreter's workers are each one.

use crate::process::Process;
use conform_plan::{Outcome, RawResult, Refusal};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::ffi::OsString;
use std::fmt::Debug;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How long a fresh worker may take to answer its probe (create a context, open a device).
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// How a worker is started beyond what its protocol says: environment to add (a Mesa
/// install's), and a program to start it through: a root of another Debian suite's own
/// dynamic loader, so the worker runs on that root's C library and LLVM without a chroot
/// (conform's binary, linked on an older glibc, runs unchanged on a newer one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    pub env: Vec<(OsString, OsString)>,
    /// `ROOT/lib64/ld-linux-x86-64.so.2`: started as `LOADER EXE ARGS...`.
    pub loader: Option<PathBuf>,
}

/// What one kind of worker speaks: its command line, its environment, its messages.
pub trait Protocol {
    type Request: Serialize;
    type Response: DeserializeOwned + Debug;
    /// What a probe describes (a driver's strings and limits).
    type Info: Clone;

    /// The arguments after the executable (`worker --driver llvmpipe`).
    fn args(&self) -> Vec<OsString>;
    /// Variables the worker is started with: name, value, and whether one the user set
    /// already wins (a cache switch does; the driver a backend names does not).
    fn environment(&self) -> Vec<(OsString, OsString, bool)> {
        Vec::new()
    }
    /// Whether the worker gets a private directory: its `XDG_RUNTIME_DIR` (drivers, when
    /// none is set) and `CONFORM_WORKER_DIR`.
    fn private_runtime_dir(&self) -> bool {
        false
    }
    /// The request a fresh worker answers first, describing itself; `None`: no probe (the
    /// first plan is the first request).
    fn probe(&self) -> Option<Self::Request> {
        None
    }
    /// What the probe gave: the description, or why the worker cannot run plans (it is
    /// kept and answers each plan with that reason). Err gives back an answer that is not a
    /// probe's.
    fn probe_answer(
        response: Self::Response,
    ) -> Result<Result<Self::Info, String>, Self::Response> {
        Err(response)
    }
    /// A plan's answer. Err gives back an answer that is not a plan's (formatted only then:
    /// an outcome may hold hundreds of MiB of buffers).
    fn run_answer(response: Self::Response) -> Result<Result<Outcome, Refusal>, Self::Response>;
    /// What the worker does when it starts, for messages (`creating its context`).
    fn starting(&self) -> &'static str {
        "starting"
    }
}

/// One worker of protocol `P`, restarted transparently after a crash or a timeout.
pub struct Supervised<P: Protocol> {
    protocol: P,
    exe: PathBuf,
    launch: Launch,
    runtime_dir: Option<PathBuf>,
    process: Process,
    info: Option<P::Info>,
    unavailable: Option<String>,
}

impl<P: Protocol> Supervised<P> {
    /// A worker that runs `exe` with `protocol`'s arguments; `label` names it in messages.
    pub fn new(exe: impl Into<PathBuf>, protocol: P, label: impl Into<String>) -> Self {
        Supervised {
            protocol,
            exe: exe.into(),
            launch: Launch::default(),
            runtime_dir: None,
            process: Process::new(label),
            info: None,
            unavailable: None,
        }
    }

    pub fn protocol(&self) -> &P {
        &self.protocol
    }

    /// Adds an environment variable for the workers started from now on (a Mesa install's).
    pub fn env(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> &mut Self {
        self.launch.env.push((key.into(), value.into()));
        self
    }

    /// Starts the workers from now on as `launch` says (its environment added, through its
    /// loader when it has one).
    pub fn launch(&mut self, launch: &Launch) -> &mut Self {
        self.launch.env.extend(launch.env.iter().cloned());
        if launch.loader.is_some() {
            self.launch.loader.clone_from(&launch.loader);
        }
        self
    }

    /// See [`Process::cancel_on`].
    pub fn cancel_on(&mut self, flag: Arc<AtomicBool>) -> &mut Self {
        self.process.cancel_on(flag);
        self
    }

    /// How many worker processes were started so far (1 + restarts).
    pub fn starts(&self) -> u32 {
        self.process.starts()
    }

    /// See [`Process::take_events`].
    pub fn take_events(&mut self) -> Vec<String> {
        self.process.take_events()
    }

    /// The process id of the running worker, if one is running.
    pub fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    /// The last few KiB the current (or last) worker wrote on stderr.
    pub fn stderr_tail(&self) -> String {
        self.process.stderr_tail()
    }

    /// The description from the current worker's probe.
    pub fn info(&self) -> Option<&P::Info> {
        self.info.as_ref()
    }

    fn spawn(&mut self) -> std::io::Result<()> {
        let mut cmd = match &self.launch.loader {
            Some(loader) => {
                let mut c = Command::new(loader);
                c.arg(&self.exe);
                c
            }
            None => Command::new(&self.exe),
        };
        cmd.args(self.protocol.args());
        for (key, value, overridable) in self.protocol.environment() {
            if !overridable || std::env::var_os(&key).is_none() {
                cmd.env(key, value);
            }
        }
        // A private directory per worker, kept across its restarts and removed when this is
        // dropped: the worker's `XDG_RUNTIME_DIR` where the caller has none, and
        // `CONFORM_WORKER_DIR` for what the worker must leave nowhere else (virgl's vtest
        // socket): removed here, it does not outlive a worker that crashed.
        if self.protocol.private_runtime_dir() {
            if self.runtime_dir.is_none() {
                self.runtime_dir = crate::private_runtime_dir().ok();
            }
            if let Some(dir) = &self.runtime_dir {
                if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
                    cmd.env("XDG_RUNTIME_DIR", dir);
                }
                cmd.env("CONFORM_WORKER_DIR", dir);
            }
        }
        for (k, v) in &self.launch.env {
            cmd.env(k, v);
        }
        self.process.spawn(cmd)
    }

    /// Starts a worker if none runs and probes it. Err is the result a plan gets when no
    /// worker could start or its probe failed.
    fn ensure_started(&mut self) -> Result<(), Box<RawResult>> {
        // A worker that died between plans (after answering) is replaced: its death belongs
        // to no plan, so it is an event (`take_events`) rather than a crash.
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
        let Some(probe) = self.protocol.probe() else {
            return Ok(());
        };
        match self
            .process
            .request::<_, P::Response>(&probe, STARTUP_TIMEOUT)
        {
            Ok(response) => match P::probe_answer(response) {
                Ok(Ok(info)) => {
                    self.info = Some(info);
                    self.unavailable = None;
                    Ok(())
                }
                Ok(Err(reason)) => {
                    // Kept: it answers every plan with Unsupported(reason). The driver's
                    // own message says most.
                    self.info = None;
                    self.unavailable = Some(self.process.driver_said(reason));
                    Ok(())
                }
                Err(other) => {
                    self.process.kill();
                    Err(Box::new(RawResult::Done(Err(Refusal::Internal(format!(
                        "worker answered a probe with {other:?}"
                    ))))))
                }
            },
            Err(f) => Err(Box::new(self.process.failure_result(f))),
        }
    }

    /// Describes the backend (starting the worker if needed), or says why it cannot run.
    pub fn probe(&mut self) -> Result<P::Info, String> {
        match self.ensure_started().map_err(|b| *b) {
            Ok(()) => match (&self.info, &self.unavailable) {
                (Some(info), _) => Ok(info.clone()),
                (None, Some(reason)) => Err(reason.clone()),
                (None, None) => Err("worker gave no description".to_string()),
            },
            Err(RawResult::Done(Err(Refusal::Unsupported(r) | Refusal::Internal(r)))) => Err(r),
            Err(RawResult::Done(Err(r))) => Err(format!("{r:?}")),
            Err(RawResult::Crash {
                signal,
                code,
                stderr_tail,
            }) => Err(format!(
                "worker crashed while {} (signal {signal:?}, code {code:?}): {}",
                self.protocol.starting(),
                stderr_tail.trim()
            )),
            Err(RawResult::Timeout { .. }) => Err(format!(
                "worker was not done {} within {STARTUP_TIMEOUT:?}",
                self.protocol.starting()
            )),
            Err(RawResult::Done(Ok(_))) => Err("unexpected outcome from a probe".into()),
        }
    }

    /// Sends one plan's request with a wall-clock limit. On a crash or a timeout the worker
    /// is killed; the next call starts a fresh one.
    pub fn run(&mut self, request: &P::Request, timeout: Duration) -> RawResult {
        if let Err(r) = self.ensure_started() {
            return *r;
        }
        match self.process.request::<_, P::Response>(request, timeout) {
            Ok(response) => match P::run_answer(response) {
                Ok(r) => RawResult::Done(r),
                Err(other) => {
                    self.process.kill();
                    RawResult::Done(Err(Refusal::Internal(format!(
                        "worker answered a plan with {other:?}"
                    ))))
                }
            },
            Err(f) => self.process.failure_result(f),
        }
    }

    /// Stops the worker: closes its stdin (it exits at end of input), gives it a moment to
    /// exit, then kills it.
    pub fn shutdown(&mut self) {
        self.process.shutdown();
    }
}

impl<P: Protocol> Drop for Supervised<P> {
    fn drop(&mut self) {
        // Its stdin closed first, so a worker ends by itself and cleans up what it started
        // (virgl's vtest server); killed after half a second if it does not.
        self.process.shutdown();
        if let Some(dir) = self.runtime_dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
