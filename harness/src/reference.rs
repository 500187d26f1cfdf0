//! The reference interpreter as a backend.

use crate::run::{BackendFactory, Executor, Job};
use conform_plan::{ExecPlan, RawResult};

/// The reference interpreter as a backend.
pub struct ReferenceBackend;

pub struct ReferenceExecutor;

impl ReferenceExecutor {
    /// Runs the reference with the job's knobs (see [`ReferenceExecutor::run_with`]).
    pub fn run_job(job: &Job) -> RawResult {
        Self::run_with(job.plan, &job.reference)
    }

    /// Runs the reference, turning a panic (a bug in conform) into a crash result so one bad
    /// case never takes the run down.
    pub fn run_with(plan: &ExecPlan, opts: &conform_reference::Options) -> RawResult {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            conform_reference::run(plan, opts)
        })) {
            Ok(r) => RawResult::Done(r),
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panic".into());
                RawResult::Crash {
                    signal: None,
                    code: None,
                    stderr_tail: format!(
                        "reference interpreter panicked (a bug in conform): {msg}"
                    ),
                }
            }
        }
    }
}

impl Executor for ReferenceExecutor {
    fn missing(&self, _job: &Job) -> Option<String> {
        None
    }

    fn run(&mut self, job: &Job) -> RawResult {
        Self::run_job(job)
    }
}

impl BackendFactory for ReferenceBackend {
    fn name(&self) -> String {
        "reference".into()
    }

    fn is_reference(&self) -> bool {
        true
    }

    fn make(&self) -> Result<Box<dyn Executor>, String> {
        Ok(Box::new(ReferenceExecutor))
    }
}
