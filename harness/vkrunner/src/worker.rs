//! The parent's side of a Vulkan worker: `conform worker --vulkan NAME`, with the supervision
//! every worker has ([`conform_worker::Supervised`]).

use crate::{VkDriver, VkInfo, VkRequest, VkResponse};
use conform_plan::{ExecPlan, Outcome, RawResult, Refusal};
pub use conform_worker::STARTUP_TIMEOUT;
use conform_worker::{Launch, Protocol, Supervised};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// What a Vulkan driver worker speaks.
pub struct VkProtocol {
    pub driver: VkDriver,
}

impl Protocol for VkProtocol {
    type Request = VkRequest;
    type Response = VkResponse;
    type Info = VkInfo;

    fn args(&self) -> Vec<OsString> {
        vec![
            "worker".into(),
            "--vulkan".into(),
            self.driver.short().into(),
        ]
    }

    fn environment(&self) -> Vec<(OsString, OsString, bool)> {
        // As for GL workers: repeatable runs, nothing compiled is cached across runs.
        vec![("MESA_SHADER_CACHE_DISABLE".into(), "true".into(), true)]
    }

    fn probe(&self) -> Option<VkRequest> {
        Some(VkRequest::Probe)
    }

    fn probe_answer(response: VkResponse) -> Result<Result<VkInfo, String>, VkResponse> {
        match response {
            VkResponse::Probe(r) => Ok(r),
            other => Err(other),
        }
    }

    fn run_answer(response: VkResponse) -> Result<Result<Outcome, Refusal>, VkResponse> {
        match response {
            VkResponse::Run(r) => Ok(r),
            other => Err(other),
        }
    }

    fn starting(&self) -> &'static str {
        "opening its device"
    }
}

/// One Vulkan driver's worker process, restarted after a crash or a timeout.
pub struct VkWorker {
    inner: Supervised<VkProtocol>,
}

impl VkWorker {
    /// A worker that runs `exe worker --vulkan NAME`.
    pub fn with_exe(exe: impl Into<PathBuf>, driver: VkDriver) -> VkWorker {
        VkWorker {
            inner: Supervised::new(exe, VkProtocol { driver }, driver.name()),
        }
    }

    /// Adds an environment variable for the worker processes started from now on (a Mesa
    /// install's `VK_DRIVER_FILES`, ...).
    pub fn env(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> &mut Self {
        self.inner.env(key, value);
        self
    }

    /// Starts the worker processes from now on as `launch` says (a Mesa install's).
    pub fn launch(&mut self, launch: &Launch) -> &mut Self {
        self.inner.launch(launch);
        self
    }

    /// See [`conform_worker::Process::cancel_on`].
    pub fn cancel_on(&mut self, flag: Arc<AtomicBool>) {
        self.inner.cancel_on(flag);
    }

    pub fn take_events(&mut self) -> Vec<String> {
        self.inner.take_events()
    }

    /// How many worker processes were started so far.
    pub fn starts(&self) -> u32 {
        self.inner.starts()
    }

    /// Describes the device (starting the worker if needed), or says why there is none.
    pub fn probe(&mut self) -> Result<VkInfo, String> {
        self.inner.probe()
    }

    /// Runs one plan with a wall-clock limit; a crash or a timeout kills the worker and the
    /// next plan starts a fresh one.
    pub fn run(&mut self, plan: &ExecPlan, timeout: Duration) -> RawResult {
        self.inner.run(&VkRequest::Run(plan.clone()), timeout)
    }
}

/// Probes `drivers`, each in its own worker of `exe` (in parallel) started as `launch` says.
pub fn probe_vulkan(
    exe: &Path,
    drivers: &[VkDriver],
    launch: &Launch,
) -> Vec<(VkDriver, Result<VkInfo, String>)> {
    let handles: Vec<_> = drivers
        .iter()
        .map(|&d| {
            let exe = exe.to_path_buf();
            let launch = launch.clone();
            std::thread::spawn(move || {
                let mut w = VkWorker::with_exe(exe, d);
                w.launch(&launch);
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
