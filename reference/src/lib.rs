//! The reference interpreter: the oracle every driver is judged against.
//!
//! Entry point: [`run`] takes a lowered case ([`conform_plan::ExecPlan`]) and returns the
//! memory and step results it must produce ([`conform_plan::Outcome`]). [`check`] parses and
//! checks one program without running it.
//!
//! Layout: [`ir`] is the executable form all front ends lower into; [`front`] holds the front
//! ends (NV assembly today); [`exec`] runs IR programs over dispatches.

pub mod exec;
pub mod front;
pub mod ir;

use conform_plan::{ExecPlan, Outcome, ProgramSource, Refusal};
use std::fmt;

/// Bugs the fuzzer's self-test can plant in the reference to check that it notices them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlantedBug {
    /// IWRAP wraps one step late: stores 0 only when old > op.
    IwrapOffByOne,
    /// Shuffle range test uses maxThreadId - 1 as the bound.
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
pub fn run(plan: &ExecPlan, _opts: &Options) -> Result<Outcome, Refusal> {
    if !plan.programs.is_empty()
        && plan
            .programs
            .iter()
            .all(|p| p.language == conform_plan::Language::Glsl)
    {
        return front::glsl::run(plan, _opts);
    }
    let langs: Vec<_> = plan.programs.iter().map(|p| p.language.name()).collect();
    Err(Refusal::Unsupported(format!(
        "the reference has no front end yet for {}",
        langs.join(", ")
    )))
}

/// Parses and checks one program (no execution).
pub fn check(program: &ProgramSource) -> Result<(), Vec<Diagnostic>> {
    if program.language == conform_plan::Language::Glsl {
        return front::glsl::check(program);
    }
    Err(vec![Diagnostic {
        line: 1,
        column: 1,
        message: format!(
            "the reference has no front end yet for {}",
            program.language.name()
        ),
    }])
}
