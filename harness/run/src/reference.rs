//! The reference interpreter as a backend, in process or in worker processes.
//!
//! A case can ask the reference for anything its limits allow and still loop forever, recurse
//! or allocate until the machine gives out: the interpreter cannot know a program ends. So
//! `conform run` runs it like a driver, in worker processes (`conform worker --reference`, one
//! per `--jobs` thread, supervised by `conform_worker::Supervised` as every driver is): the
//! case's wall-clock limit (`timeout_ms`, `--timeout`) applies, a hang is a `timeout`, an
//! abort or an allocation above the worker's memory limit ([`WORKER_MEMORY_BYTES`]) a
//! `crash`, and the next case gets a fresh process. Nothing else in the run is lost.
//!
//! The in-process form ([`ReferenceExecutor`]) stays for what runs trusted programs or needs
//! the interpreter's internals: `conform golden` and `trace`-style tools, the fuzzer's own
//! generated programs (with planted bugs in self-test builds), and unit tests.

use crate::backend::{BackendFactory, Executor, Job};
use conform_plan::{ExecPlan, Outcome, RawResult, ReferenceRequest, Refusal};
use conform_worker::{Protocol, Supervised};
use std::ffi::OsString;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The data segment limit (`RLIMIT_DATA`) of a reference worker process: the loader's limits
/// keep a case's buffers under 256 MiB in all schedules together; what a program allocates
/// beyond that (private arrays in every invocation) ends the worker, and costs only its case.
pub const WORKER_MEMORY_BYTES: u64 = 1 << 30;

/// The reference interpreter as a backend.
#[derive(Clone, Debug)]
pub enum ReferenceBackend {
    /// In the harness's own process (tests, tools that run trusted programs).
    InProcess,
    /// In worker processes of `exe` (`exe worker --reference`), one per executor.
    Workers { exe: PathBuf },
}

impl ReferenceBackend {
    /// Worker processes of the running `conform` executable.
    pub fn workers() -> Result<ReferenceBackend, String> {
        Ok(ReferenceBackend::Workers {
            exe: crate::backend::current_exe()?,
        })
    }
}

pub struct ReferenceExecutor;

impl ReferenceExecutor {
    /// Runs the reference with the job's knobs (see [`ReferenceExecutor::run_with`]).
    pub fn run_job(job: &Job) -> RawResult {
        Self::run_with(
            job.plan,
            &conform_reference::Options::from_knobs(&job.reference),
        )
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

/// The first extension the case requires that the reference does not implement
/// (`conform_reference::EXTENSIONS`), as a driver without it would skip the case.
fn missing_extension(job: &Job) -> Option<String> {
    job.requires
        .extensions
        .iter()
        .find(|e| !conform_reference::EXTENSIONS.contains(&e.as_str()))
        .map(|e| format!("{e} (the reference does not implement it)"))
}

/// Why the reference cannot run `job`: a case for an OpenGL ES context while the GLSL front
/// end does not accept ES shaders. Whether it does is asked of the front end itself (once per
/// process, with the smallest ESSL 3.10 compute shader), so ES cases start running on the
/// reference as soon as its front end takes `#version 310 es`. (Images of every dimensionality
/// and format the plan has are modeled; a front end refuses the image types it lacks by name.)
pub fn reference_missing(job: &Job) -> Option<String> {
    static ESSL: OnceLock<Option<String>> = OnceLock::new();
    job.requires.gles.as_ref()?;
    ESSL.get_or_init(|| {
        let probe = conform_plan::ProgramSource {
            language: conform_plan::Language::Glsl,
            stage: conform_plan::Stage::Compute,
            text: "#version 310 es\nlayout(local_size_x = 1) in;\nvoid main() {}\n".into(),
            words: Vec::new(),
            origin: "ESSL probe".into(),
            first_line: 1,
            entry: "main".into(),
            specialization: Vec::new(),
        };
        conform_reference::check(&probe).err().map(|d| {
            let why = d.first().map(|d| d.message.as_str()).unwrap_or_default();
            format!("OpenGL ES shaders: the reference's GLSL front end refuses `#version 310 es` ({why})")
        })
    })
    .clone()
}

impl Executor for ReferenceExecutor {
    fn missing(&self, job: &Job) -> Option<String> {
        reference_missing(job).or_else(|| missing_extension(job))
    }

    fn run(&mut self, job: &Job) -> RawResult {
        Self::run_job(job)
    }
}

/// What a reference worker speaks: a [`ReferenceRequest`] answered with the plan's result.
/// No probe: there is no context to create, the first plan is the first request.
struct ReferenceProtocol;

impl Protocol for ReferenceProtocol {
    type Request = ReferenceRequest;
    type Response = Result<Outcome, Refusal>;
    type Info = ();

    fn args(&self) -> Vec<OsString> {
        vec!["worker".into(), "--reference".into()]
    }

    fn environment(&self) -> Vec<(OsString, OsString, bool)> {
        // A crash report carries the tail of stderr: the allocator's or the panic's own
        // line, not a backtrace that would push it out.
        vec![("RUST_BACKTRACE".into(), "0".into(), false)]
    }

    fn run_answer(response: Self::Response) -> Result<Result<Outcome, Refusal>, Self::Response> {
        Ok(response)
    }
}

/// One reference worker process, restarted after a crash or a timeout.
struct WorkerExecutor {
    worker: Supervised<ReferenceProtocol>,
}

impl Executor for WorkerExecutor {
    fn missing(&self, job: &Job) -> Option<String> {
        reference_missing(job).or_else(|| missing_extension(job))
    }

    fn run(&mut self, job: &Job) -> RawResult {
        let request = ReferenceRequest {
            plan: job.plan.clone(),
            knobs: job.reference,
        };
        self.worker
            .run(&request, Duration::from_millis(job.plan.timeout_ms))
    }

    fn take_events(&mut self) -> Vec<String> {
        self.worker.take_events()
    }

    fn cancel_on(&mut self, flag: Arc<AtomicBool>) {
        self.worker.cancel_on(flag);
    }
}

impl BackendFactory for ReferenceBackend {
    fn name(&self) -> String {
        "reference".into()
    }

    fn is_reference(&self) -> bool {
        true
    }

    fn identity(&self) -> Option<conform_judge::identity::BackendIdentity> {
        Some(conform_judge::identity::BackendIdentity::reference())
    }

    fn make(&self) -> Result<Box<dyn Executor>, String> {
        Ok(match self {
            ReferenceBackend::InProcess => Box::new(ReferenceExecutor),
            ReferenceBackend::Workers { exe } => Box::new(WorkerExecutor {
                worker: Supervised::new(exe.clone(), ReferenceProtocol, "reference"),
            }),
        })
    }
}

/// Caps this process's data segment at `bytes` (`RLIMIT_DATA`: heap and private mappings), so
/// a runaway allocation fails (and the allocator aborts) instead of exhausting the machine.
fn limit_memory(bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct we pass; it has no other preconditions.
    if unsafe { libc::setrlimit(libc::RLIMIT_DATA, &limit) } != 0 {
        eprintln!(
            "conform worker (reference): cannot limit memory: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// The answer to one request of a reference worker: the plan run in this process with the
/// request's knobs, a panic or a refusal as the plan's refusal.
fn answer(request: ReferenceRequest) -> Result<Outcome, Refusal> {
    let opts = conform_reference::Options::from_knobs(&request.knobs);
    match ReferenceExecutor::run_with(&request.plan, &opts) {
        RawResult::Done(r) => r,
        RawResult::Crash { stderr_tail, .. } => Err(Refusal::Internal(stderr_tail)),
        RawResult::Timeout { stderr_tail } => Err(Refusal::Timeout(stderr_tail)),
    }
}

/// Entry point of `conform worker --reference`: answers [`ReferenceRequest`] lines from stdin
/// until stdin closes, through the loop every worker shares (`conform_worker::serve`).
/// Returns the process exit code.
pub fn worker_main() -> i32 {
    conform_worker::watch_parent();
    conform_worker::ignore_interrupts();
    limit_memory(WORKER_MEMORY_BYTES);
    let mut out = BufWriter::new(conform_worker::protocol_output());
    conform_worker::serve("reference", &mut out, answer, |m| Err(Refusal::Internal(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_skips_a_case_requiring_an_extension_it_does_not_implement() {
        let case = |ext: &str| {
            let text = format!("spec: [X]\nrequires: {{extensions: [GL_ARB_compute_shader, {ext}]}}\nprogram: {{language: glsl, source: \"#version 430\\nlayout(local_size_x = 1) in;\\nvoid main() {{}}\"}}\nsteps: []\n");
            conform_case::parse(std::path::Path::new("t.yaml"), &text, None).unwrap()
        };
        let c = case("GL_ARB_sparse_texture2");
        assert_eq!(
            ReferenceExecutor.missing(&Job::of(&c)).as_deref(),
            Some("GL_ARB_sparse_texture2 (the reference does not implement it)")
        );
        let c = case("GL_NV_shader_thread_shuffle");
        assert_eq!(ReferenceExecutor.missing(&Job::of(&c)), None);
    }

    #[test]
    fn the_loaders_copy_of_the_reference_defaults_and_limits_agree() {
        use conform_case::limits;
        let default = conform_reference::Options::default();
        assert_eq!(default.schedules, limits::DEFAULT_SCHEDULES);
        assert_eq!(default.step_budget, limits::DEFAULT_STEP_BUDGET);
        assert_eq!(
            conform_reference::LIMITS.max_work_group_count,
            [limits::REFERENCE_MAX_GROUP_COUNT; 3]
        );
    }

    #[test]
    fn es_cases_run_only_when_the_front_end_takes_essl() {
        let parse =
            |text: &str| conform_case::parse(std::path::Path::new("t.yaml"), text, None).unwrap();
        let source = "\"#version 310 es\\nlayout(local_size_x = 1) in;\\nlayout(std430, binding = 0) buffer B { uint x[]; };\\nvoid main() { x[0] = 7u; }\"";
        let es = parse(&format!("spec: [X]\nrequires: {{gles: \"3.1\"}}\nprogram: {{language: glsl, source: {source}}}\nbuffers: [{{name: out, binding: 0, data: [0]}}]\n"));
        let desktop = parse("spec: [X]\nprogram: {language: glsl, source: \"#version 430\\nlayout(local_size_x = 1) in;\\nvoid main() {}\"}\n");
        assert_eq!(reference_missing(&Job::of(&desktop)), None);
        match reference_missing(&Job::of(&es)) {
            // The front end of this build refuses ESSL: the skip says so and why.
            Some(why) => assert!(why.contains("#version 310 es"), "{why}"),
            // It takes ESSL: the case runs and computes.
            None => match ReferenceExecutor::run_job(&Job::of(&es)) {
                RawResult::Done(Ok(o)) => assert_eq!(o.buffers, [vec![7, 0, 0, 0]]),
                other => panic!("{other:?}"),
            },
        }
    }

    #[test]
    fn a_worker_answers_with_the_in_process_outcome_under_the_case_s_knobs() {
        let case = conform_case::parse(
            std::path::Path::new("t.yaml"),
            "spec: [X]\nprogram: {language: glsl, source: \"#version 430\\nlayout(local_size_x = 1) in;\\nlayout(std430, binding = 0) buffer B { uint x[]; };\\nvoid main() { x[0] = 7u; }\"}\nbuffers: [{name: out, binding: 0, data: [0]}]\n",
            None,
        )
        .unwrap();
        let request = |knobs| ReferenceRequest {
            plan: case.plan.clone(),
            knobs,
        };
        let Ok(o) = answer(request(conform_plan::ReferenceKnobs::default())) else {
            panic!("no outcome");
        };
        assert_eq!(o.buffers, [vec![7, 0, 0, 0]]);
        // The knobs reach the interpreter: a budget of one instruction is a timeout.
        let tiny = conform_plan::ReferenceKnobs {
            step_budget: Some(1),
            ..Default::default()
        };
        assert!(matches!(answer(request(tiny)), Err(Refusal::Timeout(_))));
    }

    /// A job carries what the case chose and nothing else; the reference's options follow.
    #[test]
    fn the_case_s_knobs_become_the_interpreter_s_options_in_one_place() {
        let case = conform_case::parse(
            std::path::Path::new("t.yaml"),
            "spec: [X]\nprogram: {language: glsl, source: x}\nreference: {schedules: 1, shared_layout: std140, subgroup_size: 8}\n",
            None,
        )
        .unwrap();
        let job = Job::of(&case);
        assert_eq!(job.reference.step_budget, None);
        let o = conform_reference::Options::from_knobs(&job.reference);
        let d = conform_reference::Options::default();
        assert_eq!(
            (
                o.schedules,
                o.step_budget,
                o.shared_layout,
                o.subgroup_size,
                o.vary_subgroup_size
            ),
            (
                1,
                d.step_budget,
                Some(conform_plan::BlockLayout::Std140),
                8,
                false
            )
        );
    }
}
