//! The reference interpreter: the oracle every driver is judged against.
//!
//! Entry point: [`run`] takes a lowered case ([`conform_plan::ExecPlan`]) and returns the
//! memory and step results it must produce ([`conform_plan::Outcome`]).

use conform_plan::{ExecPlan, Outcome, Refusal};

/// Knobs for one reference run.
#[derive(Clone, Debug)]
pub struct Options {
    pub schedules: u32,
    pub step_budget: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            schedules: 3,
            step_budget: 10_000_000,
        }
    }
}

/// Runs a plan on the reference interpreter.
pub fn run(plan: &ExecPlan, _opts: &Options) -> Result<Outcome, Refusal> {
    let langs: Vec<_> = plan.programs.iter().map(|p| p.language.name()).collect();
    Err(Refusal::Unsupported(format!(
        "the reference has no front end yet for {}",
        langs.join(", ")
    )))
}
