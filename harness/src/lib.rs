//! conform's harness: case loading, backends, comparison, results and reports.
//!
//! The `conform` binary (`main.rs`) is a thin CLI over these modules; the fuzz targets use the
//! loader directly. See ARCHITECTURE.md at the repository root for how a case flows through.

pub mod bench;
pub mod case;
pub mod ci;
pub mod clauses;
pub mod compare;
pub mod console;
pub mod deqp;
pub mod diag;
pub mod differential;
pub mod drivers;
pub mod evidence;
pub mod fuzz;
pub mod gate;
pub mod import;
pub mod input;
pub mod litmus;
pub mod progress;
pub mod record;
pub mod reference;
pub mod report;
pub mod results;
pub mod run;
pub mod shard;
