//! Front ends: source text → [`crate::ir::Program`].

pub mod glsl;
pub mod nvasm;
pub mod spirv;

use crate::Diagnostic;

/// Why a front end did not produce a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrontError {
    /// The program breaks a rule of its language: a load/compile failure, with diagnostics.
    Invalid(Vec<Diagnostic>),
    /// The program uses something the reference does not model (a skip, not a failure).
    Unsupported(Diagnostic),
    /// The front end produced IR that breaks the IR's invariants (a bug in the reference).
    Internal(String),
}
