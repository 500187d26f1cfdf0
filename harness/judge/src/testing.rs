//! Test helpers for crates that work on results (the gate, reports, progress): a plain
//! [`CaseResult`] to build test data from. Compiled for this crate's tests and, in other
//! crates, only through the `testing` feature their dev-dependency turns on.

use crate::results::{CaseResult, Status};
use std::collections::BTreeMap;

/// A result of `case` on `backend` with `status`, a message for a failure, nothing else.
pub fn result(case: &str, backend: &str, status: Status) -> CaseResult {
    CaseResult {
        case: case.into(),
        path: format!("cases/{case}.yaml"),
        backend: backend.into(),
        status,
        message: if status == Status::Pass {
            String::new()
        } else {
            format!("{} happened", status.name())
        },
        details: vec![],
        spec: vec![],
        duration_ms: 1,
        repro: format!("conform run cases/{case}.yaml --backend {backend}"),
        allowed: false,
        log: String::new(),
        differing: BTreeMap::new(),
        attempts: vec![],
        evidence: None,
        driver: String::new(),
    }
}

/// Asserts that `got` equals the golden file `dir/name`, writing it first when BLESS (or
/// CONFORM_BLESS) is set: renderings a person reads (reports, summaries) are checked against
/// files in the repository.
pub fn golden(dir: &std::path::Path, name: &str, got: &str) {
    let path = dir.join(name);
    let bless = std::env::var_os("BLESS").is_some() || std::env::var_os("CONFORM_BLESS").is_some();
    if bless {
        std::fs::create_dir_all(path.parent().expect("a file in a directory"))
            .expect("golden directory writable");
        std::fs::write(&path, got).expect("golden file writable");
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "{} differs; rerun with BLESS=1 if intended\n--- got:\n{got}",
        path.display()
    );
}
