//! `conform import piglit`: piglit's `.shader_test` compute tests as conform cases.
//!
//! The pipeline, one pure step per module:
//! - [`scan`]: the C library's number parsing and glibc `sscanf`, which shader_runner reads
//!   every line with;
//! - [`parse`] (with [`command`]): a file's text → a typed [`ShaderTest`] (sections,
//!   requirements, `[test]` commands), or `file:line` errors for a malformed file.

pub mod command;
pub mod parse;
pub mod scan;

pub use parse::{ParseError, ShaderTest};
