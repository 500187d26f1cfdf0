//! The reference interpreter: the oracle every driver is judged against.
//!
//! Entry point: [`run`] takes a lowered case ([`conform_plan::ExecPlan`]) and returns the
//! memory and step results it must produce ([`conform_plan::Outcome`]). [`check`] parses and
//! checks one program without running it.
//!
//! Layout: [`ir`] is the executable form all front ends lower into; [`front`] holds the front
//! ends (SPIR-V today); [`exec`] runs IR programs over dispatches.

pub mod exec;
pub mod front;
pub mod ir;

use conform_plan::{
    BuildOutcome, BuildStage, ExecPlan, Language, Outcome, ProgramSource, Refusal, Stage, Timings,
};
use exec::interp::Schedule;
use exec::shuffle::Reading;
use exec::RunCfg;
pub use front::spirv::assemble_spirv;
use front::FrontError;
use std::fmt;
use std::time::Instant;

/// Bugs the fuzzer's self-test can plant in the reference to check that it notices them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlantedBug {
    /// IWRAP wraps one step late: stores 0 only when old > op.
    IwrapOffByOne,
    /// The assembly shuffle range test is off by one beyond the strict reading (in range when
    /// `source < maxThreadId - 1`; SHFUP `source > maxThreadId + 1`), under both readings, so
    /// the output matches neither allowed reading at `source == maxThreadId - 1`.
    ShuffleClampOffByOne,
}

/// Knobs for one reference run.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many interleavings to run (in order, reversed, then seeded random). At least 1 is
    /// always run.
    pub schedules: u32,
    /// Instructions per invocation before the run is refused as a timeout.
    pub step_budget: u64,
    /// Test-only: a deliberate bug for the fuzzer's self-test. None by default.
    pub planted_bug: Option<PlantedBug>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            schedules: 3,
            step_budget: 10_000_000,
            planted_bug: None,
        }
    }
}

/// A problem found in a program by [`check`]; `line` is relative to the program text (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// Implementation limits the reference models (ARB_compute_shader / NV_compute_program5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_work_group_count: [u32; 3],
    pub max_work_group_size: [u32; 3],
    pub max_work_group_invocations: u32,
    pub max_shared_memory_size: u32,
    pub warp_size: u32,
    pub max_call_depth: u32,
    pub max_loop_depth: u32,
}

/// The limits of the reference.
pub const LIMITS: Limits = Limits {
    max_work_group_count: [65535, 65535, 65535],
    max_work_group_size: [1024, 1024, 64],
    max_work_group_invocations: 1024,
    max_shared_memory_size: 49152,
    warp_size: 32,
    max_call_depth: 32,
    max_loop_depth: 64,
};

/// Runs a plan on the reference interpreter.
///
/// Builds every program (an NV assembly load failure is an `Outcome` with
/// `build.failed_at = Some(Load)`, no steps and the initial buffers), then runs the steps under
/// `opts.schedules` interleavings and, for programs with assembly shuffles, under both readings
/// of the shuffle range test. The returned memory is the in-order schedule's under the
/// inclusive (PTX) reading; differences between runs become flags and notes.
pub fn run(plan: &ExecPlan, opts: &Options) -> Result<Outcome, Refusal> {
    if !plan.programs.is_empty()
        && plan
            .programs
            .iter()
            .all(|p| p.language == conform_plan::Language::Glsl)
    {
        return front::glsl::run(plan, opts);
    }
    if !plan.programs.is_empty() && plan.programs.iter().all(front::spirv::handles) {
        return front::spirv::run(plan, opts);
    }
    let t0 = Instant::now();
    let src = single_program(plan)?;
    let (prog, warnings) = match front::nvasm::compile_with_warnings(&src.text) {
        Ok(p) => p,
        Err(FrontError::Invalid(diags)) => {
            let log = diags
                .iter()
                .map(|d| format!("line {}: {}", d.line, d.message))
                .collect::<Vec<_>>()
                .join("\n");
            return Ok(Outcome {
                build: BuildOutcome {
                    failed_at: Some(BuildStage::Load),
                    log,
                },
                buffers: plan.buffers.iter().map(|b| b.bytes.clone()).collect(),
                timings_us: Timings {
                    build: micros(t0),
                    ..Timings::default()
                },
                ..Outcome::default()
            });
        }
        Err(FrontError::Unsupported(d)) => {
            return Err(Refusal::Unsupported(format!(
                "{}: line {}: {}",
                plan.case, d.line, d.message
            )))
        }
        Err(FrontError::Internal(m)) => {
            return Err(Refusal::Internal(format!(
                "{}: invalid IR from the NV front end: {m}",
                plan.case
            )))
        }
    };
    let build_us = micros(t0);
    let mut out = run_ir(&prog, plan, opts)?;
    out.timings_us.build = build_us;
    if !warnings.is_empty() {
        let msg = warnings
            .iter()
            .map(|d| format!("line {}: {}", d.line, d.message))
            .collect::<Vec<_>>()
            .join("; ");
        match out.flags.iter_mut().find(|f| f.kind == "undefined-value") {
            Some(f) => f.message = format!("{msg}; {}", f.message),
            None => out.flags.push(conform_plan::Flag {
                kind: "undefined-value".into(),
                message: msg,
            }),
        }
        out.flags.sort_by(|a, b| a.kind.cmp(&b.kind));
    }
    Ok(out)
}

/// Runs an already-built IR program over the steps of `plan` (what [`run`] does after the
/// front end; front ends for other languages hand their [`ir::Program`] here). The program
/// must satisfy [`ir::Program::validate`]; `plan.programs` is not looked at.
pub fn run_ir(prog: &ir::Program, plan: &ExecPlan, opts: &Options) -> Result<Outcome, Refusal> {
    prog.validate()
        .map_err(|m| Refusal::Internal(format!("invalid IR: {m}")))?;
    let t1 = Instant::now();
    let n = opts.schedules.max(1);
    let cfg = |i: u32, reading| RunCfg {
        schedule: Schedule::nth(i),
        reading,
        bug: opts.planted_bug,
        budget: opts.step_budget,
        trace: None,
    };
    let canon = exec::run_plan(prog, plan, cfg(0, Reading::Inclusive))?;
    let mut flags = canon.flags;
    let mut notes = Vec::new();
    let mut names = vec![Schedule::nth(0).name()];
    let mut sched_diffs: Option<(String, Vec<String>)> = None;
    // The harness checks every schedule's memory against the case, so a case whose checked
    // memory depends on the interleaving is reported with the differing elements.
    let mut other_schedules = Vec::new();
    for i in 1..n {
        let other = exec::run_plan(prog, plan, cfg(i, Reading::Inclusive))?;
        names.push(Schedule::nth(i).name());
        let d = diff(plan, &canon.buffers, &other.buffers, 8);
        if !d.is_empty() {
            if sched_diffs.is_none() {
                sched_diffs = Some((Schedule::nth(i).name(), d));
            }
            other_schedules.push(conform_plan::ScheduleOutcome {
                name: Schedule::nth(i).name(),
                buffers: other.buffers,
            });
        }
        flags.merge(other.flags);
    }
    notes.push(format!(
        "ran {n} schedule(s): {}; work groups {}",
        names.join(", "),
        if prog.uses.storage_atomics {
            "one after another (the program has storage atomics)"
        } else {
            "in parallel"
        }
    ));
    if let Some((name, d)) = sched_diffs {
        flags.add(
            "schedule-dependent",
            format!(
                "final memory differs between the in-order and the {name} schedule (in-order kept): {}",
                d.join("; ")
            ),
        );
    }
    if prog.uses.shuffle_asm {
        let strict = exec::run_plan(prog, plan, cfg(0, Reading::Strict))?;
        let d = diff(plan, &canon.buffers, &strict.buffers, 16);
        if d.is_empty() {
            notes.push(format!(
                "shuffle range test: the {} and the {} readings produce the same memory",
                Reading::Inclusive.name(),
                Reading::Strict.name()
            ));
        } else {
            let msg = format!(
                "shuffle range test (SHFL-ASM-RANGE-BOUNDARY, SHFL-ASM-UP-BOUND): memory returned follows the {}; the {} differs at: {} (values: inclusive vs strict)",
                Reading::Inclusive.name(),
                Reading::Strict.name(),
                d.join("; ")
            );
            notes.push(msg.clone());
            flags.add("ambiguous-reading", msg);
        }
        flags.merge(strict.flags);
    }
    Ok(Outcome {
        build: BuildOutcome::default(),
        steps: canon.steps,
        buffers: canon.buffers,
        flags: flags.into_flags(),
        notes,
        timings_us: Timings {
            build: 0,
            dispatch: micros(t1),
            readback: 0,
        },
        other_schedules,
    })
}

fn micros(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// The one compute program of a plan the reference can run.
fn single_program(plan: &ExecPlan) -> Result<&ProgramSource, Refusal> {
    for p in &plan.programs {
        if p.language != Language::Nvasm && !front::spirv::handles(p) {
            return Err(Refusal::Unsupported(format!(
                "the reference has no {} front end yet",
                p.language.name()
            )));
        }
    }
    match plan.programs.as_slice() {
        [p] if p.stage == Stage::Compute => Ok(p),
        [_] => Err(Refusal::Unsupported(
            "the reference runs compute programs only".into(),
        )),
        [] => Err(Refusal::Unsupported("the plan has no program".into())),
        _ => Err(Refusal::Unsupported(
            "several NV assembly programs in one plan are not supported".into(),
        )),
    }
}

/// The first differing elements of two sets of final buffers, as "name[i] (byte o): a vs b".
fn diff(plan: &ExecPlan, a: &[Vec<u8>], b: &[Vec<u8>], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut total = 0usize;
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let (name, size) = plan
            .buffers
            .get(k)
            .map(|b| (b.name.as_str(), b.elem.size().max(1)))
            .unwrap_or(("?", 4));
        let n = x.len().max(y.len());
        let mut off = 0;
        while off < n {
            let end = (off + size).min(n);
            let ex = x.get(off..end.min(x.len())).unwrap_or(&[]);
            let ey = y.get(off..end.min(y.len())).unwrap_or(&[]);
            if ex != ey {
                total += 1;
                if out.len() < max {
                    let hex = |s: &[u8]| {
                        let mut h = String::from("0x");
                        for byte in s.iter().rev() {
                            h.push_str(&format!("{byte:02x}"));
                        }
                        h
                    };
                    out.push(format!(
                        "{name}[{}] (byte offset {off}): {} vs {}",
                        off / size,
                        hex(ex),
                        hex(ey)
                    ));
                }
            }
            off += size;
        }
    }
    if total > out.len() {
        out.push(format!("{} more differing elements", total - out.len()));
    }
    out
}

/// Explains one invocation: runs `plan` once (in-order schedule, inclusive shuffle reading)
/// and returns every instruction invocation `local_index` of work group `group` executed, in
/// every dispatch, with its source line and the value it wrote (at most
/// `exec::interp::TRACE_LINES` lines).
pub fn trace(
    plan: &ExecPlan,
    opts: &Options,
    group: [u32; 3],
    local_index: u32,
) -> Result<Vec<String>, Refusal> {
    let src = single_program(plan)?;
    if front::spirv::handles(src) {
        let prog = match front::spirv::compile(src) {
            Ok(p) => p,
            Err(d) => {
                return Ok(d
                    .iter()
                    .map(|d| format!("validation failure: line {}: {}", d.line, d.message))
                    .collect())
            }
        };
        let cfg = RunCfg {
            schedule: Schedule::InOrder,
            reading: Reading::Inclusive,
            bug: opts.planted_bug,
            budget: opts.step_budget,
            trace: Some((group, local_index as usize)),
        };
        return Ok(exec::run_plan(&prog, plan, cfg)?.trace);
    }
    let prog = match front::nvasm::compile(&src.text) {
        Ok(p) => p,
        Err(FrontError::Invalid(d)) => {
            return Ok(d
                .iter()
                .map(|d| format!("load failure: line {}: {}", d.line, d.message))
                .collect())
        }
        Err(FrontError::Unsupported(d)) => {
            return Err(Refusal::Unsupported(format!(
                "line {}: {}",
                d.line, d.message
            )))
        }
        Err(FrontError::Internal(m)) => return Err(Refusal::Internal(m)),
    };
    let cfg = RunCfg {
        schedule: Schedule::InOrder,
        reading: Reading::Inclusive,
        bug: opts.planted_bug,
        budget: opts.step_budget,
        trace: Some((group, local_index as usize)),
    };
    Ok(exec::run_plan(&prog, plan, cfg)?.trace)
}

/// Parses and checks one program (no execution): the load-failure rules of its language.
pub fn check(program: &ProgramSource) -> Result<(), Vec<Diagnostic>> {
    if program.language == Language::Glsl {
        return front::glsl::check(program);
    }
    if front::spirv::handles(program) {
        return front::spirv::check(program);
    }
    if program.language != Language::Nvasm {
        return Err(vec![Diagnostic {
            line: 1,
            column: 1,
            message: format!(
                "the reference has no {} front end yet",
                program.language.name()
            ),
        }]);
    }
    match front::nvasm::compile(&program.text) {
        Ok(_) => Ok(()),
        Err(FrontError::Invalid(d)) => Err(d),
        Err(FrontError::Unsupported(d)) => Err(vec![Diagnostic {
            message: format!("not modeled by the reference: {}", d.message),
            ..d
        }]),
        Err(FrontError::Internal(m)) => Err(vec![Diagnostic {
            line: 1,
            column: 1,
            message: format!("internal error in the reference: {m}"),
        }]),
    }
}
