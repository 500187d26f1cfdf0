//! Memory-model litmus tests (`conform litmus`): the classic shapes over shared memory and
//! storage buffers, with and without fences, in GLSL, NV assembly and SPIR-V, each run as many
//! instances per dispatch and many dispatches, with a histogram of the outcomes observed and
//! every outcome the specs forbid reported as a divergence with its case.
//!
//! - [`shape`]: the tests (shape, scope, fence, language) and what each fence means;
//! - [`model`]: the allowed outcome set of each test, derived from the spec text;
//! - [`glsl`], [`nvasm`], [`spirv`]: the program of a test;
//! - [`case`]: a test's dispatches as an ordinary YAML case with an `outcomes` expectation;
//! - [`campaign`]: running tests on backends, histograms, divergences.
//!
//! docs/FUZZING.md ("Memory-model litmus tests") is the user's guide and lists, per test,
//! what the specs forbid and why.

pub mod campaign;
pub mod case;
pub mod command;
pub mod glsl;
pub mod layout;
pub mod model;
pub mod nvasm;
pub mod shape;
pub mod spirv;
