//! Importing other suites' tests as conform cases (`conform import SUITE PATHS... --out DIR`).
//!
//! [`yaml`] writes the case text: imported cases carry a comment naming the source line of
//! every step, which serde cannot emit.

pub mod yaml;
