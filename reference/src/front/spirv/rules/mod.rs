//! Validation rules the front end checks itself on top of spirv-val, so a rejected module
//! names the rule (clause id) it breaks: the OpenGL execution environment's rules that
//! spirv-val does not check ([`gl_env`]) and the SPV_EXT_shader_atomic_float_add rules
//! ([`float_add`]).

pub mod float_add;
pub mod gl_env;

use super::module::Info;
use crate::Diagnostic;

pub use float_add::EXTENSION;

/// Checks every rule; one diagnostic per broken rule and instruction.
pub fn check(info: &Info) -> Vec<Diagnostic> {
    let mut out = gl_env::check(info);
    out.extend(float_add::check(info));
    out
}
