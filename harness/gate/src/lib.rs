//! `conform-gate`: what a run's results mean for CI.
//!
//! Owns: baselines, flakes and skips files and the classes (regression, expected failure,
//! flake, ...) that decide the exit code ([`gate`]), and deqp-runner's conventions
//! (`results.csv`, `failures.csv`, `name,Status` baselines, the status words: [`deqp`]). The
//! files a run writes from them are `conform-report`'s.
//!
//! Never depends on: a backend (the reference interpreter, the GL runner, `conform-run`) or
//! the reports: it classifies results, so it builds and is tested without any driver.

pub mod deqp;
pub mod gate;
