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
