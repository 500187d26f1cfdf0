//! NV assembly front end: `!!NVcp5.0` compute programs (NV_compute_program5 on the
//! NV_gpu_program4/5 grammar, with NV_shader_storage_buffer_object, NV_parameter_buffer_object,
//! NV_shader_thread_shuffle, NV_shader_atomic_float and NV_shader_atomic_int64).
//!
//! One pass: [`lexer`] splits the text into tokens, [`lower`] parses statements, checks every
//! load-failure rule and emits IR as it goes; rules that need the whole program (GROUP_SIZE
//! present, shared offsets against SHARED_MEMORY, labels) are checked at the end. Every
//! message names the rule and the spec section it comes from.

pub mod lexer;
pub mod lower;

pub use lower::{compile, compile_with_warnings};
