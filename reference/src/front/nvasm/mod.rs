//! NV assembly front end: `!!NVcp5.0` compute programs (NV_compute_program5 on the
//! NV_gpu_program4/5 grammar, with NV_shader_storage_buffer_object, NV_parameter_buffer_object,
//! NV_shader_thread_shuffle, NV_shader_atomic_float and NV_shader_atomic_int64).
//!
//! One pass: [`lexer`] splits the text into tokens, [`lower`] parses statements, checks every
//! load-failure rule and emits IR as it goes; rules that need the whole program (GROUP_SIZE
//! present, shared offsets against SHARED_MEMORY, labels) are checked at the end. Every
//! message names the rule and the spec section it comes from. [`build`] is the front end's
//! side of the contract in [`crate::front`].

pub mod lexer;
pub mod lower;

use super::{BuildFailure, Built};
use crate::Diagnostic;
use conform_plan::{BuildStage, ProgramSource};

/// Why the NV lowerer did not produce a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrontError {
    /// The program breaks a rule of its language: a load failure, with diagnostics.
    Invalid(Vec<Diagnostic>),
    /// The program uses something the reference does not model (a skip, not a failure).
    Unsupported(Diagnostic),
    /// The front end produced IR that breaks the IR's invariants (a bug in the reference).
    Internal(String),
}

/// Loads the one NV assembly compute program of a plan (ProgramStringARB): a load failure
/// is [`BuildFailure::Failed`] at [`BuildStage::Load`] with one log line per problem
/// (`line 4: ...`, the line relative to the program text).
pub fn build(
    programs: &[ProgramSource],
    bug: Option<crate::PlantedBug>,
) -> Result<Built, BuildFailure> {
    let src = super::single_compute(
        programs,
        "several NV assembly programs in one plan are not supported",
    )?;
    match lower::compile_planted(&src.text, bug) {
        Ok((program, undefined)) => Ok(Built {
            program,
            log: String::new(),
            undefined,
            notes: Vec::new(),
        }),
        Err(FrontError::Invalid(diagnostics)) => Err(BuildFailure::Failed {
            stage: BuildStage::Load,
            log: diagnostics
                .iter()
                .map(|d| format!("line {}: {}", d.line, d.message))
                .collect::<Vec<_>>()
                .join("\n"),
            diagnostics,
        }),
        Err(FrontError::Unsupported(d)) => Err(BuildFailure::Unsupported {
            reason: format!("line {}: {}", d.line, d.message),
            at: d,
        }),
        Err(FrontError::Internal(m)) => Err(BuildFailure::Internal(format!(
            "invalid IR from the NV front end: {m}"
        ))),
    }
}
