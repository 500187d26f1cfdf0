//! Running cases on backends: `run_all` drives many cases over several backends with `--jobs`
//! workers each (the reference first: its outcomes are the golden output of `reference: true`
//! expectations), judges each result (`conform_judge`) and writes it to the journal as it
//! arrives.

use crate::backend::{BackendFactory, Executor, Job};
pub use crate::reference::{ReferenceBackend, ReferenceExecutor};
use conform_case::corpus::InvalidCase;
use conform_case::{Case, Check};
use conform_judge::policy::{no_expected_failures, no_skips, ExpectedFailure, Known, SkippedBy};
use conform_judge::record::{RunRecord, RunState};
use conform_judge::results::{CaseResult, Journal, Status};
use conform_judge::{judge_within, Verdict};
use conform_plan::{ExecPlan, Outcome, RawResult};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

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
    pub shard: Option<conform_judge::shard::Shard>,
    /// `--max-fails N`: stop (as an interrupt does) once more than N results have failed,
    /// crashed or timed out that the baseline does not expect (deqp-runner's option: a
    /// driver that fails everything ends the job early instead of running for hours).
    pub max_fails: Option<usize>,
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
            max_fails: None,
        }
    }
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
    record.identities = backends
        .iter()
        .filter_map(|b| b.identity().map(|id| (b.name(), id)))
        .collect();
    record.write(&cfg.out_dir)?;
    conform_judge::record::write_caselist(&cfg.out_dir, cases.iter().map(|c| c.name.as_str()))?;
    let mut results = Vec::new();
    for bad in invalid {
        let r = CaseResult {
            case: conform_case::default_name(&bad.path),
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
            driver: String::new(),
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
    let over_max = cfg
        .max_fails
        .is_some_and(|n| unexpected_failures(&results, cfg) > n);
    record.end(if over_max {
        RunState::MaxFails
    } else if cfg.interrupt.load(Ordering::Relaxed) {
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
    let work = || {
        let Ok(mut exec) = reference.make() else {
            return;
        };
        exec.cancel_on(Arc::clone(&cfg.interrupt));
        while let Some(&i) = todo.get(next.fetch_add(1, Ordering::SeqCst)) {
            if cfg.interrupt.load(Ordering::Relaxed) {
                return;
            }
            let plan = with_timeout(&cases[i].plan, cfg.timeout_ms);
            if let RawResult::Done(Ok(mut o)) = exec.run(&Job::with_plan(&cases[i], &plan)) {
                o.other_schedules.clear();
                if let Ok(mut c) = computed.lock() {
                    c.push((i, o));
                }
            }
        }
    };
    std::thread::scope(|scope| {
        if spawn_jobs(scope, jobs, |_| &work) == 0 {
            work();
        }
    });
    for (i, o) in computed.into_inner().unwrap_or_default() {
        golden[i] = Some(o);
    }
}

/// Starts up to `jobs` scoped threads running `make(k)`'s closures; returns how many started.
/// A thread the system refuses (a memory or process limit) means fewer jobs, said once on
/// stderr, never a panic: `std::thread::scope`'s `spawn` panics there. The caller works
/// alone when none started.
pub fn spawn_jobs<'scope, F>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    jobs: usize,
    mut make: impl FnMut(usize) -> F,
) -> usize
where
    F: FnOnce() + Send + 'scope,
{
    for k in 0..jobs {
        if let Err(e) = std::thread::Builder::new().spawn_scoped(scope, make(k)) {
            eprintln!("conform: cannot start a thread ({e}): {k} of {jobs} started");
            return k;
        }
    }
    jobs
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

/// Whether a result counts towards `--max-fails`: a failure, crash or timeout the baseline
/// does not expect (deqp-runner's `include_in_max_fails`).
fn counts_against_max(r: &CaseResult, cfg: &RunConfig) -> bool {
    matches!(r.status, Status::Fail | Status::Crash | Status::Timeout)
        && (cfg.expected_failure)(&r.backend, &r.case, r.status) != Known::Expected
}

fn unexpected_failures(results: &[CaseResult], cfg: &RunConfig) -> usize {
    results
        .iter()
        .filter(|r| counts_against_max(r, cfg))
        .count()
}

fn run_backend(
    cases: &[Case],
    backend: &dyn BackendFactory,
    golden: &[Option<Outcome>],
    cfg: &RunConfig,
    journal: &mut Journal,
    results: &mut Vec<CaseResult>,
) -> std::io::Result<Vec<(usize, Outcome)>> {
    // Across backends: the count goes on from the results of the backends before.
    let failed = AtomicUsize::new(unexpected_failures(results, cfg));
    let running = Mutex::new(std::collections::BTreeSet::new());
    let pass = Pass {
        name: backend.name(),
        is_reference: backend.is_reference(),
        golden,
        cfg,
        running: &running,
        failed: &failed,
    };
    // Every result says which build produced it; a repro names an install by its prefix.
    let driver = backend.identity().map(|i| i.summary()).unwrap_or_default();
    let argument = backend.argument();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, CaseResult, Option<Outcome>)>();
    let mut progress = crate::progress::Progress::new(cfg.progress, &pass.name, cases.len());
    let mut outcomes = Vec::new();
    let jobs = cfg.jobs.max(1).min(cases.len().max(1));
    std::thread::scope(|scope| -> std::io::Result<()> {
        let (pass, next) = (&pass, &next);
        let spawned = spawn_jobs(scope, jobs, |_| {
            let tx = tx.clone();
            move || pass.work(cases, backend, next, tx)
        });
        if spawned == 0 {
            // No thread could start: this thread works the cases, then journals them.
            pass.work(cases, backend, next, tx.clone());
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
            let mut r = r;
            r.driver.clone_from(&driver);
            if argument != pass.name {
                r.repro = format!("conform run {} --backend {argument}", r.path);
            }
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
    /// Unexpected failures so far, for `--max-fails`.
    failed: &'a AtomicUsize,
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
            // The failure that goes over `--max-fails` is a result; then the run stops as an
            // interrupt stops it (jobs under way are cut short, none starts).
            if let Some(n) = self.cfg.max_fails {
                if counts_against_max(&r, self.cfg)
                    && self.failed.fetch_add(1, Ordering::SeqCst) + 1 > n
                {
                    if !self.cfg.interrupt.swap(true, Ordering::SeqCst) {
                        eprintln!(
                            "\nstopping: more than {n} unexpected failures (--max-fails); the cases not started are missing"
                        );
                    }
                    let _ = tx.send((i, r, o));
                    return;
                }
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
                if failing && known != Known::Expected && attempts.len() < cfg.retries as usize {
                    attempts.push(conform_judge::results::Attempt {
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
            r.evidence = Some(conform_judge::evidence::collect(
                case,
                outcome.as_ref(),
                golden,
            ));
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
        driver: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A SPIR-V case whose program must fail validation.
    fn validate_case() -> Case {
        let text = "spec: [X]\nprogram: {language: spirv-asm, source: \"OpCapability Shader\"}\nfails: {at: validate}\n";
        conform_case::parse(Path::new("t.yaml"), text, None).unwrap()
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
