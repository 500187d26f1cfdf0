//! What the CI layer decides and the runner is told: which failures are expected (not retried,
//! not printed while the run goes), and which cases `--skips` names.
//! Injected as values, so running cases never reads the gate's files.

use crate::results::Status;

/// What the baseline says of a failing result: `(backend, case, status)`. Injected so that
/// running cases does not depend on how CI gates them (`ci::Prepared` builds it from the
/// baseline).
pub type ExpectedFailure = dyn Fn(&str, &str, Status) -> Known + Sync;

/// What the baseline knows of a failing result, in the words results.csv uses for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Not listed, or listed failing otherwise and worse: a regression.
    No,
    /// Listed failing this way (`ExpectedFail`): not retried, not highlighted.
    Expected,
    /// Listed as a crash or a hang, and now a wrong value (`UnexpectedImprovement(Fail)`):
    /// better than known, not a regression.
    Improved,
}

/// Which `--skips` entry, if any, names `(backend, case)`: the entry's origin (`file:line`),
/// for the skip message. Injected like [`ExpectedFailure`] (`ci::Prepared` builds it).
pub type SkippedBy = dyn Fn(&str, &str) -> Option<String> + Sync;

/// A [`SkippedBy`] that skips nothing.
pub fn no_skips() -> Box<SkippedBy> {
    Box::new(|_, _| None)
}

/// An [`ExpectedFailure`] that expects nothing (every failure is retried and printed).
pub fn no_expected_failures() -> Box<ExpectedFailure> {
    Box::new(|_, _, _| Known::No)
}
