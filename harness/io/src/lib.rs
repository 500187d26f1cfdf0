//! `conform-io`: how conform touches untrusted text, at the bottom of every other crate.
//!
//! Owns: reading the files a user or a case names (regular files only, bounded: [`input`]),
//! diagnostics located at `file:line:column` ([`diag`]), escaping what consoles and Markdown
//! embed ([`escape`]), and stdout that ends quietly on a closed pipe ([`console`], with the
//! [`out!`] and [`outln!`] macros).
//!
//! Never depends on: any other crate of conform. Everything here is a few functions over `std`
//! and `libc`; nothing knows what a case, a result or a backend is.

pub mod console;
pub mod diag;
pub mod escape;
pub mod input;
