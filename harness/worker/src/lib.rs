//! `conform-worker`: worker processes, whatever runs in them.
//!
//! Every driver backend (GL drivers in `conform-glrunner`, Vulkan drivers in
//! `conform-vkrunner`) and the reference run plans in child processes, so a crash or a hang
//! costs one plan, never the run. What that takes does not depend on the backend, and lives
//! here once:
//!
//! - the parent's side, [`Supervised`]: a worker started on demand with a backend's
//!   [`Protocol`] (its command line, environment and probe), asked one plan at a time,
//!   replaced after a crash or a timeout, over [`Process`], which starts the child with its protocol on stdin/stdout, sends
//!   one JSON request line and waits for one JSON answer line under a wall-clock limit, reads
//!   stderr into a ring whose tail crash and timeout reports carry, kills a child that overran
//!   or was cancelled, tells a crash (with its signal or exit code) from a protocol error, and
//!   notices a child that died between requests;
//! - the child's side ([`child`]): the protocol moved off fd 1 so a driver printing on stdout
//!   cannot corrupt it, a watchdog that ends the child with its parent, interrupts left to the
//!   parent, a private `XDG_RUNTIME_DIR`, and the request loop ([`serve`]);
//! - [`breadcrumb`]: what the child was doing when a signal killed it, written by the signal
//!   handler into the stderr the parent keeps.
//!
//! The request and answer types are the backend's own; see docs/DRIVERS.md.

pub mod breadcrumb;
pub mod child;
mod process;
mod supervised;

pub use child::{ignore_interrupts, private_runtime_dir, protocol_output, serve, watch_parent};
pub use process::{Failure, Process, MAX_RESPONSE_BYTES};
pub use supervised::{Launch, Protocol, Supervised, STARTUP_TIMEOUT};
