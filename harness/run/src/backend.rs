//! What a backend is to the runner: an [`Executor`] (one per worker thread) turns a [`Job`]
//! (a plan and the knobs that shape its run, never the case's expectations) into a
//! [`RawResult`]; a [`BackendFactory`] makes executors for one backend.

use conform_case::model::{RawBlockLayout, Requires};
use conform_case::Case;
use conform_plan::{ExecPlan, RawResult};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What a backend gets to run one case: the plan and the knobs that shape the run. The case's
/// expectations are not part of it, so no backend can look at them.
#[derive(Clone, Debug)]
pub struct Job<'a> {
    /// The plan, with the run's `--timeout` applied to `timeout_ms`.
    pub plan: &'a ExecPlan,
    /// What the case requires of a driver ([`Executor::missing`] checks it).
    pub requires: &'a Requires,
    /// The reference interpreter's knobs for the case (schedules, step budget).
    pub reference: conform_reference::Options,
}

impl<'a> Job<'a> {
    /// The job for `case` as written.
    pub fn of(case: &'a Case) -> Self {
        Job::with_plan(case, &case.plan)
    }

    /// The job for `case` with `plan` in place of its own (the run's settings applied).
    pub fn with_plan(case: &'a Case, plan: &'a ExecPlan) -> Self {
        let mut reference = conform_reference::Options::default();
        if let Some(s) = case.reference.schedules {
            reference.schedules = s;
        }
        if let Some(b) = case.reference.step_budget {
            reference.step_budget = b;
        }
        if let Some(s) = case.reference.subgroup_size {
            reference.subgroup_size = s;
        }
        reference.shared_layout = case.reference.shared_layout.map(|l| match l {
            RawBlockLayout::Std140 => conform_reference::BlockLayout::Std140,
            RawBlockLayout::Std430 => conform_reference::BlockLayout::Std430,
        });
        Job {
            plan,
            requires: &case.requires,
            reference,
        }
    }
}

/// One backend instance, owned by one worker thread.
pub trait Executor: Send {
    /// Requirement of the job this backend lacks, if any (a skip, unless `--force`).
    fn missing(&self, job: &Job) -> Option<String>;
    fn run(&mut self, job: &Job) -> RawResult;
    /// What happened outside any job since the last call (a driver worker that died between
    /// plans and was replaced), oldest first. The runner notes it on the next result.
    fn take_events(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// Stops a job under way as soon as `flag` is raised (a worker process is killed); the
    /// runner drops what such a job returns. Executors that cannot be stopped ignore it.
    fn cancel_on(&mut self, _flag: Arc<AtomicBool>) {}
}

/// Makes executors for one backend (one per worker thread).
pub trait BackendFactory: Sync {
    fn name(&self) -> String;
    fn is_reference(&self) -> bool {
        false
    }
    /// Why this backend, asked for, cannot run at all (an absent driver): its cases are
    /// skipped, and the run is incomplete (`record`).
    fn absent(&self) -> Option<String> {
        None
    }
    fn make(&self) -> Result<Box<dyn Executor>, String>;
}

pub fn current_exe() -> Result<PathBuf, String> {
    std::env::current_exe()
        .map_err(|e| format!("cannot find the conform executable to start driver workers: {e}"))
}
