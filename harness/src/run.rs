//! Running cases on backends and judging the outcomes.
//!
//! A backend is anything that turns an [`ExecPlan`] into a [`RawResult`]: the reference
//! interpreter (worker processes for `conform run`, see `reference.rs`), or a GL driver worker
//! process. `judge` turns a raw result into a
//! status with a message a person can act on; `Runner` drives many cases over several
//! backends with `--jobs` workers each, writing every result to the journal as it arrives.

use crate::case::model::{RawBlockLayout, Requires};
use crate::case::{Case, Check};
use crate::compare::{check_memory, check_steps, Memory, Mismatch};
use crate::record::{RunRecord, RunState};
pub use crate::reference::{ReferenceBackend, ReferenceExecutor};
use crate::results::{CaseResult, Journal, Status};
use conform_plan::{ExecPlan, Outcome, RawResult, Refusal};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

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

/// The verdict on one case on one backend.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub status: Status,
    pub message: String,
    pub details: Vec<String>,
    pub allowed: bool,
    pub log: String,
    pub differing: BTreeMap<String, Vec<u64>>,
}

impl Verdict {
    fn new(status: Status, message: impl Into<String>) -> Self {
        Verdict {
            status,
            message: message.into(),
            details: vec![],
            allowed: false,
            log: String::new(),
            differing: BTreeMap::new(),
        }
    }
}

fn tail(text: &str, lines: usize) -> Vec<String> {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// Adds the mismatches to the verdict's details; a summary that is already the verdict's
/// message is not repeated as a detail (its own detail lines follow the headline).
fn add_mismatches(v: &mut Verdict, case: &Case, ms: &[Mismatch]) {
    for m in ms {
        if m.summary != v.message {
            v.details.push(m.summary.clone());
        }
        v.details.extend(m.details.iter().map(|d| format!("  {d}")));
        if let Some(b) = m.buffer {
            v.differing
                .entry(case.plan.buffers[b].name.clone())
                .or_default()
                .extend(&m.elements);
        }
    }
}

/// Judges a backend's raw result against the case.
pub fn judge(
    case: &Case,
    raw: &RawResult,
    is_reference: bool,
    golden: Option<&Outcome>,
) -> Verdict {
    judge_within(case, raw, is_reference, golden, case.plan.timeout_ms)
}

/// [`judge`] for a run whose time limit per case was `timeout_ms` (`--timeout`).
pub fn judge_within(
    case: &Case,
    raw: &RawResult,
    is_reference: bool,
    golden: Option<&Outcome>,
    timeout_ms: u64,
) -> Verdict {
    let undefined = case.undefined.is_some();
    let outcome = match raw {
        RawResult::Crash {
            signal,
            code,
            stderr_tail,
        } => {
            let mut how = match (signal, code) {
                (Some(s), _) => format!("worker killed by signal {s}"),
                (None, Some(c)) => format!("worker exited with code {c}"),
                (None, None) => "backend crashed".to_string(),
            };
            // The GL worker's crash handler names what it was doing (glrunner's breadcrumb).
            if let Some(at) = stderr_tail
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("conform worker: crashed in "))
            {
                how.push_str(&format!(" in {at}"));
            }
            let mut v = Verdict::new(Status::Crash, how);
            v.details = tail(stderr_tail, 20);
            return v;
        }
        RawResult::Timeout { stderr_tail } => {
            let mut v = Verdict::new(
                Status::Timeout,
                format!("no result within {timeout_ms} ms; the worker was killed and restarted"),
            );
            v.details = tail(stderr_tail, 20);
            if undefined {
                v.allowed = true;
                v.message
                    .push_str(" (allowed: the case exercises undefined behaviour, which may hang)");
            }
            return v;
        }
        RawResult::Done(Err(Refusal::Unsupported(what))) => {
            return Verdict::new(Status::Skip, format!("unsupported: {what}"));
        }
        RawResult::Done(Err(Refusal::Timeout(msg))) => {
            let mut v = Verdict::new(Status::Timeout, msg.clone());
            v.allowed = undefined;
            return v;
        }
        RawResult::Done(Err(Refusal::Internal(msg))) => {
            return Verdict::new(Status::Crash, format!("internal error in conform: {msg}"));
        }
        RawResult::Done(Ok(o)) => o,
    };
    let mut v = Verdict::new(Status::Pass, "");
    v.log = outcome.build.log.chars().take(4000).collect();
    for f in &outcome.flags {
        v.details.push(format!("flag {}: {}", f.kind, f.message));
    }
    for n in &outcome.notes {
        v.details.push(format!("note: {n}"));
    }

    // Build.
    match (&case.fails, outcome.build.failed_at) {
        // ARB_gl_spirv: "The OpenGL API expects the SPIR-V module to have already been
        // validated ... An invalid SPIR-V module is allowed to result in undefined behavior."
        // A driver that accepts an invalid module is therefore conformant; the validation rules
        // bind the reference (SPIRV-Tools and the front end), and the driver is only held to
        // not crashing or hanging.
        (Some(f), None) if f.at == conform_plan::BuildStage::Validate && !is_reference => {
            v.message = "the driver accepted an invalid SPIR-V module, which ARB_gl_spirv allows (undefined behaviour); validation is checked on the reference".into();
            return v;
        }
        (Some(f), None) => {
            v.status = Status::Fail;
            v.message = format!("expected a {} failure, but the program built", f.at.name());
            return v;
        }
        (Some(f), Some(stage)) => {
            if stage != f.at {
                v.status = Status::Fail;
                v.message = format!(
                    "expected a {} failure, got a {} failure",
                    f.at.name(),
                    stage.name()
                );
                v.details.extend(tail(&outcome.build.log, 10));
                return v;
            }
            if let Some(re) = &f.log {
                if !re.is_match(&outcome.build.log) {
                    if is_reference {
                        v.status = Status::Fail;
                        v.message =
                            format!("the {} log does not match /{}/", stage.name(), re.as_str());
                        v.details.extend(tail(&outcome.build.log, 10));
                        return v;
                    }
                    v.details.push(format!("note: the driver's log does not match /{}/ (drivers word logs their own way)", re.as_str()));
                }
            }
            return v;
        }
        (None, Some(stage)) => {
            v.status = Status::Fail;
            v.message = format!(
                "the program failed to {}",
                match stage {
                    conform_plan::BuildStage::Load => "load",
                    conform_plan::BuildStage::Compile => "compile",
                    conform_plan::BuildStage::Link => "link",
                    conform_plan::BuildStage::Validate => "validate",
                }
            );
            v.details.extend(tail(&outcome.build.log, 12));
            return v;
        }
        (None, None) => {}
    }

    // Steps.
    let (step_mismatches, not_applicable) = check_steps(case, outcome);
    if !not_applicable.is_empty() {
        v.status = Status::Skip;
        v.message = format!("backend cannot execute {}", not_applicable.join(", "));
        return v;
    }
    if outcome.steps.len() < case.plan.steps.len() {
        v.status = Status::Fail;
        v.message = format!(
            "backend ran {} of {} steps",
            outcome.steps.len(),
            case.plan.steps.len()
        );
        return v;
    }

    // Memory, under every schedule the backend reports.
    let reference_memory = if is_reference {
        Some(Memory::of(outcome))
    } else {
        golden.map(Memory::of)
    };
    let needs_golden = case
        .expect
        .iter()
        .any(|x| matches!(x.check, Check::Reference));
    if needs_golden && reference_memory.is_none() {
        v.status = Status::Skip;
        v.message = "the case compares with the reference, which produced no output for it".into();
        return v;
    }
    let memory = check_memory(case, Memory::of(outcome), reference_memory);
    let mut failures: Vec<Mismatch> = step_mismatches;
    failures.extend(memory.iter().cloned());
    if !failures.is_empty() {
        v.status = Status::Fail;
        v.message = failures[0].summary.clone();
        add_mismatches(&mut v, case, &failures);
        return v;
    }
    for s in &outcome.other_schedules {
        let ms = check_memory(case, Memory::of_schedule(s), reference_memory);
        if !ms.is_empty() {
            v.status = Status::Fail;
            v.message = format!(
                "schedule-dependent: the checked memory differs under the `{}` schedule; use one_of or permutation_of where the order is unspecified",
                s.name
            );
            add_mismatches(&mut v, case, &ms);
            return v;
        }
    }

    // Undefined behaviour.
    let ub: Vec<_> = outcome
        .flags
        .iter()
        .filter(|f| !f.kind.is_observation())
        .collect();
    match (undefined, is_reference, ub.is_empty()) {
        (true, true, false) => {
            v.status = Status::Flagged;
            v.message = format!("undefined behaviour detected as declared: {}", ub[0].kind);
        }
        (true, true, true) => {
            v.status = Status::Fail;
            v.message = format!(
                "the case declares undefined behaviour ({}) but the reference flagged none",
                case.undefined.as_deref().unwrap_or("")
            );
        }
        (false, true, false) => {
            v.status = Status::Fail;
            v.message = format!(
                "the reference detected undefined behaviour ({}: {}); fix the program or mark the case `undefined:`",
                ub[0].kind, ub[0].message
            );
        }
        (true, false, _) => {
            v.message =
                "ran to completion (the result is undefined; only crashes and hangs are wrong)"
                    .into();
        }
        _ => {}
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_plan::BuildOutcome;
    use std::path::Path;

    fn validate_case() -> Case {
        let text = "spec: [X]\nprogram: {language: spirv-asm, source: \"OpCapability Shader\"}\nfails: {at: validate}\n";
        crate::case::parse(Path::new("t.yaml"), text, None).unwrap()
    }

    #[test]
    fn invalid_spirv_accepted_by_a_driver_is_not_a_failure() {
        let case = validate_case();
        let built = RawResult::Done(Ok(Outcome::default()));
        assert_eq!(judge(&case, &built, false, None).status, Status::Pass);
        assert_eq!(
            judge(&case, &built, true, None).status,
            Status::Fail,
            "the reference must reject it"
        );
        let rejected = RawResult::Done(Ok(Outcome {
            build: BuildOutcome {
                failed_at: Some(conform_plan::BuildStage::Validate),
                log: "error".into(),
            },
            ..Default::default()
        }));
        assert_eq!(judge(&case, &rejected, true, None).status, Status::Pass);
    }

    const SNAPSHOT_CASE: &str = r##"
spec: [X]
program: {language: glsl, source: "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}"}
buffers:
  - {name: out, binding: 0, data: [0]}
steps:
  - dispatch: [1]
  - expect:
      - {buffer: out, values: [1]}
  - dispatch: [1]
expect:
  - {buffer: out, compare: {op: ">", values: [1]}}
"##;

    fn outcome(snapshot: u32, last: u32) -> Outcome {
        let ok = conform_plan::StepOutcome {
            error: Some(conform_plan::GlError::NoError),
            values: vec![],
            applicable: true,
        };
        Outcome {
            steps: vec![ok; 3],
            buffers: vec![last.to_le_bytes().to_vec()],
            snapshots: vec![vec![snapshot.to_le_bytes().to_vec()]],
            ..Default::default()
        }
    }

    #[test]
    fn expect_steps_are_judged_on_their_snapshot() {
        let case = crate::case::parse(Path::new("t.yaml"), SNAPSHOT_CASE, None).unwrap();
        let judged = |o: Outcome| judge(&case, &RawResult::Done(Ok(o)), false, None);
        assert_eq!(judged(outcome(1, 2)).status, Status::Pass);
        let v = judged(outcome(2, 2));
        assert_eq!(v.status, Status::Fail);
        assert!(v.message.contains("after step 2"), "{}", v.message);
        let v = judged(outcome(1, 1));
        assert_eq!(v.status, Status::Fail);
        assert!(
            v.message.contains("fail `observed > expected`"),
            "{}",
            v.message
        );
        let mut o = outcome(1, 2);
        o.snapshots.clear();
        let v = judged(o);
        assert_eq!(
            v.status,
            Status::Fail,
            "a backend that skipped the snapshot"
        );
        assert!(
            v.message.contains("no memory for the expect step"),
            "{}",
            v.message
        );
    }

    #[test]
    fn a_snapshot_that_depends_on_the_schedule_fails() {
        let case = crate::case::parse(Path::new("t.yaml"), SNAPSHOT_CASE, None).unwrap();
        let mut o = outcome(1, 2);
        o.other_schedules.push(conform_plan::ScheduleOutcome {
            name: "reversed".into(),
            buffers: o.buffers.clone(),
            snapshots: vec![vec![3u32.to_le_bytes().to_vec()]],
        });
        let v = judge(&case, &RawResult::Done(Ok(o)), true, None);
        assert_eq!(v.status, Status::Fail);
        assert!(v.message.starts_with("schedule-dependent"), "{}", v.message);
    }

    /// The reference, behind a "worker" that is found dead and replaced before every job.
    struct Restarting;

    impl Executor for Restarting {
        fn missing(&self, _job: &Job) -> Option<String> {
            None
        }

        fn run(&mut self, job: &Job) -> RawResult {
            ReferenceExecutor::run_job(job)
        }

        fn take_events(&mut self) -> Vec<String> {
            vec!["the worker exited between plans".into()]
        }
    }

    impl BackendFactory for Restarting {
        fn name(&self) -> String {
            "restarting".into()
        }

        fn make(&self) -> Result<Box<dyn Executor>, String> {
            Ok(Box::new(Restarting))
        }
    }

    #[test]
    fn events_between_jobs_are_noted_on_the_next_result() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = RunConfig {
            out_dir: dir.path().to_path_buf(),
            ..RunConfig::default()
        };
        let out = run_all(&[validate_case()], &[], &[&Restarting], &cfg).unwrap();
        assert_eq!(out.results[0].status, Status::Pass);
        assert_eq!(
            out.results[0].details[0],
            "note: the worker exited between plans"
        );
    }
}

/// A case that did not load, kept so the run can report it and go on.
#[derive(Debug, Clone)]
pub struct InvalidCase {
    pub path: PathBuf,
    pub diagnostics: Vec<String>,
}

pub struct RunConfig {
    pub jobs: usize,
    pub out_dir: PathBuf,
    pub force: bool,
    pub timeout_ms: Option<u64>,
    /// What each backend's pass prints as it goes (`progress`).
    pub progress: crate::progress::Mode,
    /// `--retry`: extra attempts for a result that fails, crashes or times out.
    pub retries: u32,
    /// `--skips`: cases not run on a backend (reported as skips).
    pub skipped_by: Box<SkippedBy>,
    /// Failures the CI layer already expects (`--baseline`): not retried, and not printed
    /// while the run goes (they are in the reports).
    pub expected_failure: Box<ExpectedFailure>,
    /// Where the reference runs when drivers need its output (`reference: true`
    /// expectations) and it is not one of the run's backends.
    pub reference: ReferenceBackend,
    /// Raised by SIGINT/SIGTERM: no new case starts, jobs under way are stopped, and what they
    /// return is dropped, so the journal holds exactly the results that finished.
    pub interrupt: Arc<AtomicBool>,
    /// `--shard`, for the run record.
    pub shard: Option<crate::shard::Shard>,
}

impl Default for RunConfig {
    /// One job, the reference in process, nothing expected, skipped or interrupted.
    fn default() -> Self {
        RunConfig {
            jobs: 1,
            out_dir: PathBuf::new(),
            force: false,
            timeout_ms: None,
            progress: crate::progress::Mode::Quiet,
            retries: 0,
            skipped_by: no_skips(),
            expected_failure: no_expected_failures(),
            reference: ReferenceBackend::InProcess,
            interrupt: Default::default(),
            shard: None,
        }
    }
}

/// Whether a failing result is one the CI layer expects: `(backend, case, status)`. Injected
/// so that running cases does not depend on how CI gates them (`ci::Prepared` builds it from
/// the baseline).
pub type ExpectedFailure = dyn Fn(&str, &str, Status) -> bool + Sync;

/// Which `--skips` entry, if any, names `(backend, case)`: the entry's origin (`file:line`),
/// for the skip message. Injected like [`ExpectedFailure`] (`ci::Prepared` builds it).
pub type SkippedBy = dyn Fn(&str, &str) -> Option<String> + Sync;

/// A [`SkippedBy`] that skips nothing.
pub fn no_skips() -> Box<SkippedBy> {
    Box::new(|_, _| None)
}

/// An [`ExpectedFailure`] that expects nothing (every failure is retried and printed).
pub fn no_expected_failures() -> Box<ExpectedFailure> {
    Box::new(|_, _, _| false)
}

pub fn repro(case: &Case, backend: &str) -> String {
    format!("conform run {} --backend {backend}", case.path.display())
}

/// Runs `cases` on each backend in turn, reference first; returns every result. The journal
/// and the run record (`run.json`: started, then complete or interrupted) go to
/// `cfg.out_dir`, which no other run may be writing to.
pub fn run_all(
    cases: &[Case],
    invalid: &[InvalidCase],
    backends: &[&dyn BackendFactory],
    cfg: &RunConfig,
) -> std::io::Result<RunOutput> {
    let mut journal = Journal::create(&cfg.out_dir)?;
    let absent = backends
        .iter()
        .filter_map(|b| b.absent().map(|why| (b.name(), why)))
        .collect();
    let names = backends.iter().map(|b| b.name()).collect();
    let mut record = RunRecord::start(cases.len(), invalid.len(), names, absent, cfg.shard);
    record.write(&cfg.out_dir)?;
    crate::record::write_caselist(&cfg.out_dir, cases.iter().map(|c| c.name.as_str()))?;
    let mut results = Vec::new();
    for bad in invalid {
        let r = CaseResult {
            case: crate::case::default_name(&bad.path),
            path: bad.path.display().to_string(),
            backend: "loader".into(),
            status: Status::Invalid,
            message: bad.diagnostics.first().cloned().unwrap_or_default(),
            details: bad.diagnostics.iter().skip(1).cloned().collect(),
            spec: vec![],
            duration_ms: 0,
            repro: format!("conform validate {}", bad.path.display()),
            allowed: false,
            log: String::new(),
            differing: BTreeMap::new(),
            attempts: vec![],
            evidence: None,
        };
        journal.append(&r)?;
        results.push(r);
    }
    // Golden outputs for `reference: true` expectations, filled by the reference pass or
    // computed on demand before the drivers run (buffers only: what judging a driver reads).
    let mut golden: Vec<Option<Outcome>> = vec![None; cases.len()];
    let mut ordered: Vec<&&dyn BackendFactory> = backends.iter().collect();
    ordered.sort_by_key(|b| !b.is_reference());
    // Final buffers per backend, for the differential view of a run on several backends.
    let differential = backends.len() > 1;
    let mut memory: Vec<BTreeMap<String, Vec<Vec<u8>>>> = vec![BTreeMap::new(); cases.len()];
    for backend in ordered {
        if cfg.interrupt.load(Ordering::Relaxed) {
            break;
        }
        if !backend.is_reference() {
            fill_golden(cases, &mut golden, &cfg.reference, cfg);
        }
        let outcomes = run_backend(cases, *backend, &golden, cfg, &mut journal, &mut results)?;
        for (i, mut o) in outcomes {
            if differential && o.build.failed_at.is_none() {
                memory[i].insert(backend.name(), o.buffers.clone());
            }
            if backend.is_reference() {
                o.other_schedules.clear();
                golden[i] = Some(o);
            }
        }
    }
    record.end(if cfg.interrupt.load(Ordering::Relaxed) {
        RunState::Interrupted
    } else {
        RunState::Complete
    });
    record.write(&cfg.out_dir)?;
    Ok(RunOutput {
        results,
        memory,
        record,
    })
}

/// Everything a run produced: the results (also in the journal) and, per case, the final
/// buffers of every backend that built the program, for the differential view.
pub struct RunOutput {
    pub results: Vec<CaseResult>,
    /// Indexed like the run's cases: backend name → final buffers (multi-backend runs only).
    pub memory: Vec<BTreeMap<String, Vec<Vec<u8>>>>,
    /// The run record as written at the end.
    pub record: RunRecord,
}

/// Runs the reference (`--jobs` executors of `reference`) on the cases whose golden output a
/// driver needs and nobody computed yet.
fn fill_golden(
    cases: &[Case],
    golden: &mut [Option<Outcome>],
    reference: &dyn BackendFactory,
    cfg: &RunConfig,
) {
    let todo: Vec<usize> = (0..cases.len())
        .filter(|&i| {
            golden[i].is_none()
                && cases[i]
                    .expect
                    .iter()
                    .any(|x| matches!(x.check, Check::Reference))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let computed = Mutex::new(Vec::new());
    let jobs = cfg.jobs.max(1).min(todo.len());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let Ok(mut exec) = reference.make() else {
                    return;
                };
                exec.cancel_on(Arc::clone(&cfg.interrupt));
                while let Some(&i) = todo.get(next.fetch_add(1, Ordering::SeqCst)) {
                    if cfg.interrupt.load(Ordering::Relaxed) {
                        return;
                    }
                    let plan = with_timeout(&cases[i].plan, cfg.timeout_ms);
                    if let RawResult::Done(Ok(mut o)) = exec.run(&Job::with_plan(&cases[i], &plan))
                    {
                        o.other_schedules.clear();
                        if let Ok(mut c) = computed.lock() {
                            c.push((i, o));
                        }
                    }
                }
            });
        }
    });
    for (i, o) in computed.into_inner().unwrap_or_default() {
        golden[i] = Some(o);
    }
}

/// `plan` with the run's `--timeout` in place of its own limit, when one is given.
fn with_timeout(plan: &ExecPlan, timeout_ms: Option<u64>) -> Cow<'_, ExecPlan> {
    match timeout_ms {
        Some(t) => {
            let mut p = plan.clone();
            p.timeout_ms = t;
            Cow::Owned(p)
        }
        None => Cow::Borrowed(plan),
    }
}

fn run_backend(
    cases: &[Case],
    backend: &dyn BackendFactory,
    golden: &[Option<Outcome>],
    cfg: &RunConfig,
    journal: &mut Journal,
    results: &mut Vec<CaseResult>,
) -> std::io::Result<Vec<(usize, Outcome)>> {
    let running = Mutex::new(std::collections::BTreeSet::new());
    let pass = Pass {
        name: backend.name(),
        is_reference: backend.is_reference(),
        golden,
        cfg,
        running: &running,
    };
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, CaseResult, Option<Outcome>)>();
    let mut progress = crate::progress::Progress::new(cfg.progress, &pass.name, cases.len());
    let mut outcomes = Vec::new();
    let jobs = cfg.jobs.max(1).min(cases.len().max(1));
    std::thread::scope(|scope| -> std::io::Result<()> {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (pass, next) = (&pass, &next);
            scope.spawn(move || pass.work(cases, backend, next, tx));
        }
        drop(tx);
        let running_names = || -> Vec<String> {
            running
                .lock()
                .map(|r| r.iter().map(|&i| cases[i].name.clone()).collect())
                .unwrap_or_default()
        };
        loop {
            let (i, r, o) = match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(got) => got,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    progress.tick(running_names);
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            journal.append(&r)?;
            progress.finished(&r, (cfg.expected_failure)(&r.backend, &r.case, r.status));
            // Results from other workers must not hide one that hangs.
            progress.tick(running_names);
            if let Some(o) = o {
                outcomes.push((i, o));
            }
            results.push(r);
        }
        Ok(())
    })?;
    progress.finish();
    Ok(outcomes)
}

/// What every case of one backend's pass over the cases shares.
struct Pass<'a> {
    name: String,
    is_reference: bool,
    /// The reference's outcomes, indexed like the cases.
    golden: &'a [Option<Outcome>],
    cfg: &'a RunConfig,
    /// The cases under way, for the heartbeat.
    running: &'a Mutex<std::collections::BTreeSet<usize>>,
}

impl Pass<'_> {
    /// One worker thread: makes its executor, then takes the next case until none is left,
    /// sending each result as it is made.
    fn work(
        &self,
        cases: &[Case],
        backend: &dyn BackendFactory,
        next: &AtomicUsize,
        tx: mpsc::Sender<(usize, CaseResult, Option<Outcome>)>,
    ) {
        let cases_left = || {
            std::iter::from_fn(|| {
                let i = next.fetch_add(1, Ordering::SeqCst);
                cases.get(i).map(|case| (i, case))
            })
        };
        let mut exec = match backend.make() {
            Ok(mut e) => {
                e.cancel_on(Arc::clone(&self.cfg.interrupt));
                e
            }
            Err(why) => {
                // Report every remaining case as skipped with the reason.
                for (i, case) in cases_left() {
                    let why = format!("backend unavailable: {why}");
                    let r = result_of(case, &self.name, Verdict::new(Status::Skip, why), 0);
                    if tx.send((i, r, None)).is_err() {
                        return;
                    }
                }
                return;
            }
        };
        for (i, case) in cases_left() {
            if self.cfg.interrupt.load(Ordering::Relaxed) {
                return;
            }
            if let Ok(mut r) = self.running.lock() {
                r.insert(i);
            }
            let (r, o) = self.run_case(exec.as_mut(), case, self.golden[i].as_ref());
            if let Ok(mut r) = self.running.lock() {
                r.remove(&i);
            }
            // A job the interrupt cut short did not finish: it is not a result.
            if self.cfg.interrupt.load(Ordering::Relaxed) {
                return;
            }
            if tx.send((i, r, o)).is_err() {
                return;
            }
        }
    }

    /// Runs one case on `exec` (again after a failure, as `--retry` allows) and makes its
    /// result; the outcome comes along when the backend produced one.
    fn run_case(
        &self,
        exec: &mut dyn Executor,
        case: &Case,
        golden: Option<&Outcome>,
    ) -> (CaseResult, Option<Outcome>) {
        let cfg = self.cfg;
        let mut start = Instant::now();
        let plan = with_timeout(&case.plan, cfg.timeout_ms);
        let job = Job::with_plan(case, &plan);
        let mut attempts = Vec::new();
        let mut events = Vec::new();
        let skip = (cfg.skipped_by)(&self.name, &case.name);
        let (mut verdict, outcome) = match exec.missing(&job) {
            _ if skip.is_some() => {
                let by = skip.unwrap_or_default();
                (Verdict::new(Status::Skip, format!("skipped by {by}")), None)
            }
            Some(what) if !cfg.force => {
                let v = Verdict::new(Status::Skip, format!("unsupported: {what}"));
                (v, None)
            }
            missing => loop {
                let raw = exec.run(&job);
                events.extend(exec.take_events());
                let mut v =
                    judge_within(case, &raw, self.is_reference, golden, job.plan.timeout_ms);
                if let Some(what) = &missing {
                    v.details.insert(
                        0,
                        format!(
                            "note: run with --force although the driver does not advertise {what}"
                        ),
                    );
                }
                let o = match raw {
                    RawResult::Done(Ok(o)) => Some(o),
                    _ => None,
                };
                // --retry: run a failure again on the same executor (a driver worker that
                // crashed or hung has been replaced by then).
                let failing = !v.allowed
                    && matches!(v.status, Status::Fail | Status::Crash | Status::Timeout);
                let known = (cfg.expected_failure)(&self.name, &case.name, v.status);
                if failing && !known && attempts.len() < cfg.retries as usize {
                    attempts.push(crate::results::Attempt {
                        status: v.status,
                        message: v.message,
                        duration_ms: start.elapsed().as_millis() as u64,
                    });
                    start = Instant::now();
                    continue;
                }
                break (v, o);
            },
        };
        let ms = start.elapsed().as_millis() as u64;
        let notes = events.into_iter().map(|e| format!("note: {e}"));
        verdict.details.splice(0..0, notes);
        let mut r = result_of(case, &self.name, verdict, ms);
        r.attempts = attempts;
        if r.is_failure() {
            r.evidence = Some(crate::evidence::collect(case, outcome.as_ref(), golden));
        }
        (r, outcome)
    }
}

fn result_of(case: &Case, backend: &str, v: Verdict, ms: u64) -> CaseResult {
    CaseResult {
        case: case.name.clone(),
        path: case.path.display().to_string(),
        backend: backend.to_string(),
        status: v.status,
        message: v.message,
        details: v.details,
        spec: case.spec.clone(),
        duration_ms: ms,
        repro: repro(case, backend),
        allowed: v.allowed,
        log: v.log,
        differing: v.differing,
        attempts: vec![],
        evidence: None,
    }
}

/// A new output directory `<reports>/<kind>-YYYYMMDDTHHMMSSZ` (`run`, `merge`): the default
/// `--out` of the commands that write one.
pub fn default_out_dir(reports: &Path, kind: &str) -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace([':', '-'], "");
    let mut dir = reports.join(format!("{kind}-{stamp}"));
    let mut n = 1;
    while dir.exists() {
        n += 1;
        dir = reports.join(format!("{kind}-{stamp}-{n}"));
    }
    dir
}
