//! `conform-run`: running cases on backends.
//!
//! Owns: what a backend is to the runner ([`backend`]: `Job`, `Executor`, `BackendFactory`),
//! the reference as a backend in worker processes or in process ([`reference`]), GL drivers as
//! backends (requirement checks become skips: [`drivers`]), Vulkan drivers as backends
//! ([`vulkan`]), the parallel runner that writes
//! every result to the journal as it arrives ([`run`]), what a run prints as it goes
//! ([`progress`]) and `conform bench` ([`bench`]).
//!
//! Never depends on: the gate and reports (CI decisions are injected through
//! `conform_judge::policy`), the fuzzer, the importer, the CLI.

pub mod backend;
pub mod bench;
pub mod drivers;
pub mod install;
pub mod progress;
pub mod reference;
pub mod run;
pub mod vulkan;
