//! The reference interpreter as a backend, in process or in worker processes.
//!
//! A case can ask the reference for anything its limits allow and still loop forever, recurse
//! or allocate until the machine gives out: the interpreter cannot know a program ends. So
//! `conform run` runs it like a driver, in worker processes (`conform worker --reference`, one
//! per `--jobs` thread, through the same `conform_glrunner::Worker` as the drivers): the
//! case's wall-clock limit (`timeout_ms`, `--timeout`) applies, a hang is a `timeout`, an
//! abort or an allocation above the worker's memory limit ([`WORKER_MEMORY_BYTES`]) a
//! `crash`, and the next case gets a fresh process. Nothing else in the run is lost.
//!
//! The in-process form ([`ReferenceExecutor`]) stays for what runs trusted programs or needs
//! the interpreter's internals: `conform golden` and `trace`-style tools, the fuzzer's own
//! generated programs (with planted bugs in self-test builds), and unit tests.

use crate::backend::{BackendFactory, Executor, Job};
use conform_glrunner::{Request, Response, Worker};
use conform_plan::{ExecPlan, RawResult, ReferenceKnobs, Refusal, SharedLayout};
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

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

/// One reference worker process, restarted after a crash or a timeout.
struct WorkerExecutor {
    worker: Worker,
}

impl Executor for WorkerExecutor {
    fn missing(&self, job: &Job) -> Option<String> {
        reference_missing(job).or_else(|| missing_extension(job))
    }

    fn run(&mut self, job: &Job) -> RawResult {
        let knobs = ReferenceKnobs {
            schedules: job.reference.schedules,
            step_budget: job.reference.step_budget,
            shared_layout: job.reference.shared_layout.map(|l| match l {
                conform_reference::BlockLayout::Std140 => SharedLayout::Std140,
                conform_reference::BlockLayout::Std430 => SharedLayout::Std430,
            }),
            // Sent only when the case chose it: the worker then keeps it (no other size).
            subgroup_size: (!job.reference.vary_subgroup_size)
                .then_some(job.reference.subgroup_size),
        };
        self.worker.run_reference(job.plan, knobs)
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
                worker: Worker::reference(exe.clone()),
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

/// The answer to one request of a reference worker.
fn answer(line: &str) -> Response {
    match serde_json::from_str::<Request>(line) {
        Ok(Request::RunReference(plan, knobs)) => {
            let mut opts = conform_reference::Options::new(knobs.schedules, knobs.step_budget);
            opts.shared_layout = knobs.shared_layout.map(|l| match l {
                SharedLayout::Std140 => conform_reference::BlockLayout::Std140,
                SharedLayout::Std430 => conform_reference::BlockLayout::Std430,
            });
            if let Some(s) = knobs.subgroup_size {
                opts.subgroup_size = s;
                opts.vary_subgroup_size = false;
            }
            Response::Run(match ReferenceExecutor::run_with(&plan, &opts) {
                RawResult::Done(r) => r,
                RawResult::Crash { stderr_tail, .. } => Err(Refusal::Internal(stderr_tail)),
                RawResult::Timeout { stderr_tail } => Err(Refusal::Timeout(stderr_tail)),
            })
        }
        Ok(other) => Response::Run(Err(Refusal::Internal(format!(
            "the reference worker runs RunReference requests only, not {other:?}"
        )))),
        Err(e) => Response::Run(Err(Refusal::Internal(format!(
            "the reference worker could not parse the request: {e}"
        )))),
    }
}

/// Entry point of `conform worker --reference`: answers [`Request::RunReference`] lines from
/// stdin with [`Response::Run`] lines until stdin closes. Returns the process exit code.
pub fn worker_main() -> i32 {
    conform_glrunner::watch_parent();
    conform_glrunner::ignore_interrupts();
    limit_memory(WORKER_MEMORY_BYTES);
    let mut out = BufWriter::new(conform_glrunner::protocol_output());
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else {
            return 1;
        };
        if line.trim().is_empty() {
            continue;
        }
        let text = match serde_json::to_string(&answer(&line)) {
            Ok(t) => t,
            Err(e) => format!(
                "{{\"Run\":{{\"Err\":{{\"Internal\":{}}}}}}}",
                serde_json::Value::String(format!("cannot encode the answer: {e}"))
            ),
        };
        if writeln!(out, "{text}").and_then(|_| out.flush()).is_err() {
            return 1;
        }
    }
    0
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
    fn a_worker_answers_with_the_in_process_outcome_and_refuses_other_requests() {
        let case = conform_case::parse(
            std::path::Path::new("t.yaml"),
            "spec: [X]\nprogram: {language: glsl, source: \"#version 430\\nlayout(local_size_x = 1) in;\\nlayout(std430, binding = 0) buffer B { uint x[]; };\\nvoid main() { x[0] = 7u; }\"}\nbuffers: [{name: out, binding: 0, data: [0]}]\n",
            None,
        )
        .unwrap();
        let knobs = ReferenceKnobs {
            schedules: 2,
            step_budget: 1000,
            shared_layout: None,
            subgroup_size: None,
        };
        let line = serde_json::to_string(&Request::RunReference(case.plan.clone(), knobs)).unwrap();
        let Response::Run(Ok(o)) = answer(&line) else {
            panic!("no outcome");
        };
        assert_eq!(o.buffers, [vec![7, 0, 0, 0]]);
        let probe = serde_json::to_string(&Request::Probe).unwrap();
        assert!(matches!(
            answer(&probe),
            Response::Run(Err(Refusal::Internal(_)))
        ));
        assert!(matches!(
            answer("{not json"),
            Response::Run(Err(Refusal::Internal(_)))
        ));
    }
}
