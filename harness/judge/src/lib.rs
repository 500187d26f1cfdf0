//! `conform-judge`: from what a backend did to a recorded verdict.
//!
//! Owns: every check of a case's expectations ([`checks`]), [`judge`] (a backend's
//! `RawResult` against a case: a status and a message a person can act on), the statuses and
//! the journal (`results.jsonl`, [`results`]), the evidence kept with a failure
//! ([`evidence`]), the run record and caselist and the gaps that make a run incomplete
//! ([`record`]), `--shard I/N` ([`shard`]), and what the CI layer tells a run ([`policy`]).
//!
//! Never depends on: a backend (the reference interpreter, the GL runner) or the gate. A
//! verdict is made from a case and a plan-level `RawResult`, whoever produced it, so the gate
//! and the reports build on this crate without building any backend.

pub mod checks;
pub mod evidence;
pub mod identity;
pub mod policy;
pub mod record;
pub mod results;
pub mod shard;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod verdict;

pub use verdict::{built_unexpectedly, judge, judge_within, Verdict};
