//! The parent's side of a Vulkan worker: `conform worker --vulkan NAME`, with the isolation
//! every worker has ([`conform_worker::Process`]).

use crate::{VkDriver, VkInfo, VkRequest, VkResponse};
use conform_plan::{ExecPlan, RawResult, Refusal};
use conform_worker::Process;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How long a fresh worker may take to open its device and answer the probe.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

/// One Vulkan driver's worker process, restarted after a crash or a timeout.
pub struct VkWorker {
    driver: VkDriver,
    exe: PathBuf,
    env: Vec<(OsString, OsString)>,
    process: Process,
    info: Option<VkInfo>,
    unavailable: Option<String>,
}

impl VkWorker {
    /// A worker that runs `exe worker --vulkan NAME`.
    pub fn with_exe(exe: impl Into<PathBuf>, driver: VkDriver) -> VkWorker {
        VkWorker {
            driver,
            exe: exe.into(),
            env: Vec::new(),
            process: Process::new(driver.name()),
            info: None,
            unavailable: None,
        }
    }

    /// Adds an environment variable for the worker processes started from now on (a Mesa
    /// install's `VK_DRIVER_FILES`, ...).
    pub fn env(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> &mut Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// See [`conform_worker::Process::cancel_on`].
    pub fn cancel_on(&mut self, flag: Arc<AtomicBool>) {
        self.process.cancel_on(flag);
    }

    pub fn take_events(&mut self) -> Vec<String> {
        self.process.take_events()
    }

    /// How many worker processes were started so far.
    pub fn starts(&self) -> u32 {
        self.process.starts()
    }

    fn ensure_started(&mut self) -> Result<(), Box<RawResult>> {
        self.process.reap_if_exited();
        if self.process.is_live() {
            return Ok(());
        }
        let mut cmd = Command::new(&self.exe);
        cmd.args(["worker", "--vulkan", self.driver.short()]);
        // As for GL workers: repeatable runs, nothing compiled is cached across runs.
        if std::env::var_os("MESA_SHADER_CACHE_DISABLE").is_none() {
            cmd.env("MESA_SHADER_CACHE_DISABLE", "true");
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if let Err(e) = self.process.spawn(cmd) {
            return Err(Box::new(RawResult::Done(Err(Refusal::Internal(format!(
                "cannot start worker `{}`: {e}",
                self.exe.display()
            ))))));
        }
        match self.process.request(&VkRequest::Probe, STARTUP_TIMEOUT) {
            Ok(VkResponse::Probe(Ok(info))) => {
                self.info = Some(info);
                self.unavailable = None;
                Ok(())
            }
            Ok(VkResponse::Probe(Err(reason))) => {
                self.info = None;
                self.unavailable = Some(self.process.driver_said(reason));
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

    /// Describes the device (starting the worker if needed), or says why there is none.
    pub fn probe(&mut self) -> Result<VkInfo, String> {
        match self.ensure_started().map_err(|b| *b) {
            Ok(()) => match (&self.info, &self.unavailable) {
                (Some(info), _) => Ok(info.clone()),
                (None, Some(reason)) => Err(reason.clone()),
                (None, None) => Err("worker gave no description".into()),
            },
            Err(RawResult::Done(Err(Refusal::Unsupported(r) | Refusal::Internal(r)))) => Err(r),
            Err(RawResult::Crash {
                signal,
                code,
                stderr_tail,
            }) => Err(format!(
                "worker crashed while opening its device (signal {signal:?}, code {code:?}): {}",
                stderr_tail.trim()
            )),
            Err(RawResult::Timeout { .. }) => Err(format!(
                "worker did not open its device within {STARTUP_TIMEOUT:?}"
            )),
            Err(other) => Err(format!("unexpected answer to a probe: {other:?}")),
        }
    }

    /// Runs one plan with a wall-clock limit; a crash or a timeout kills the worker and the
    /// next plan starts a fresh one.
    pub fn run(&mut self, plan: &ExecPlan, timeout: Duration) -> RawResult {
        if let Err(r) = self.ensure_started() {
            return *r;
        }
        match self.process.request(&VkRequest::Run(plan.clone()), timeout) {
            Ok(VkResponse::Run(r)) => RawResult::Done(r),
            Ok(other) => {
                self.process.kill();
                RawResult::Done(Err(Refusal::Internal(format!(
                    "worker answered a plan with {other:?}"
                ))))
            }
            Err(f) => self.process.failure_result(f),
        }
    }
}

/// Probes `drivers`, each in its own worker of `exe` (in parallel) with `env` added.
pub fn probe_vulkan(
    exe: &Path,
    drivers: &[VkDriver],
    env: &[(OsString, OsString)],
) -> Vec<(VkDriver, Result<VkInfo, String>)> {
    let handles: Vec<_> = drivers
        .iter()
        .map(|&d| {
            let exe = exe.to_path_buf();
            let env = env.to_vec();
            std::thread::spawn(move || {
                let mut w = VkWorker::with_exe(exe, d);
                for (k, v) in env {
                    w.env(k, v);
                }
                w.probe()
            })
        })
        .collect();
    drivers
        .iter()
        .zip(handles)
        .map(|(&d, h)| {
            let r = h
                .join()
                .unwrap_or_else(|_| Err("probe thread panicked".into()));
            (d, r)
        })
        .collect()
}
