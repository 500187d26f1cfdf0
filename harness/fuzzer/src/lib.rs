//! The grammar-aware differential fuzzer, in rooms a newcomer finds by name (as in
//! wasmtime's fuzzing crate):
//!
//! - [`ast`]: the tree a program is, with each feature's node types in a child module;
//! - [`generators`]: programs from bytes (on `arbitrary`, so libFuzzer inputs and seeded
//!   campaigns share them), and the rules every program keeps ([`generators::rules`]);
//! - [`features`]: the feature families beyond the core blocks (64-bit, vector, narrow,
//!   mixed atomics), each with its semantics, generation, shrinks and spellings;
//! - [`oracles`]: what a run is compared against, the fuzzer's own [`oracles::model`] of the
//!   semantics (from the specs, not the reference), and the one engine seam ([`Target`],
//!   [`observe`]) that turns a disagreement into a [`Divergence`];
//! - [`emitters`]: GLSL, NV assembly and SPIR-V text, and the YAML case around a program;
//! - [`reduction`]: shrinking a diverging program while the divergence stays the same, and the
//!   signatures that deduplicate divergences ([`reduction::signature`]);
//! - [`campaign`]: seeded campaigns that resume from a corpus, and `fuzz merge` of a farm's;
//! - [`transform`]: existing cases rewritten by result-keeping transformations, judged by
//!   their own expectations;
//! - [`litmus`]: the memory-model litmus tests (`conform litmus`);
//! - [`targets`]: the bodies of the libFuzzer targets in `fuzz/`.
//!
//! The generative files are layered, each naming only files below it: `ast` at the bottom;
//! `features::wide`; `oracles::model::value` and `emitters::spell`; the other features;
//! `oracles::model`; the emitters; `generators::rules` (`Program::check`, which consults the
//! model and the SPIR-V emitter); and above them the generators, the reduction, the case
//! writer, the campaigns and the targets (harness/tests/tidy.rs finds circles).
//!
//! Never depends on: the CLI or the importer. It runs backends through `conform-run` and
//! judges them with `conform-judge` like any case. docs/FUZZING.md is the user's guide.

pub mod ast;
pub mod campaign;
pub mod emitters;
pub mod features;
pub mod generators;
pub mod litmus;
pub mod oracles;
pub mod reduction;
pub mod targets;
pub mod transform;

pub use oracles::{
    glsl_profile_for, input_bytes, load_case, load_case_in, observe, Divergence, ReferenceTarget,
    Target, FORCED_SPIRV_EXTENSION,
};
