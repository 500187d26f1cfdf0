//! `conform-gate`: what a run's results mean for CI, and the reports.
//!
//! Owns: baselines, flakes and skips files and the classes (regression, expected failure,
//! flake, ...) that decide the exit code ([`gate`]), deqp-runner's conventions
//! (`results.csv`, `failures.csv`, `name,Status` baselines: [`deqp`]), the end of a run, shard
//! merging and `conform report` ([`ci`]), `report.html`, `summary.md` and JUnit ([`report`]),
//! and the side-by-side view of a multi-backend run ([`differential`]).
//!
//! Never depends on: a backend (the reference interpreter, the GL runner, `conform-run`): it
//! reads results, so it builds and is tested without any driver or interpreter.

pub mod ci;
pub mod compare;
pub mod deqp;
pub mod differential;
pub mod gate;
pub mod report;
