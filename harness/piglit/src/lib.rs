//! conform and piglit, both ways: piglit's tests as conform cases (`conform import piglit
//! PATHS... --out DIR`, and a piglit build's profiles for `conform piglit-runner run`), and
//! conform's cases as piglit tests (`conform export piglit`).
//!
//! Each suite has a submodule; [`piglit`] converts piglit's `.shader_test` compute tests, and
//! `piglit::export` writes a case as one (the importer reads it back: the round-trip test).
//! [`yaml`] writes the case text: imported cases carry a comment naming the source line of
//! every step, which serde cannot emit.
//!
//! `conform-piglit` never depends on: a backend, the runner, the gate or the CLI. It writes
//! cases and checks each with the loader (`conform-case`).

pub mod piglit;
pub mod yaml;
