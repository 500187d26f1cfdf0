//! End-to-end tests of `conform compare` on run directories written here (no GL needed): the
//! exit codes (1 on a regression of the last run against the first, 0 otherwise, 2 on bad
//! input with the directory named), `--backends`, `--format html` and `--output`. The
//! Markdown itself is golden in the gate's tests (`conform_report::compare`).

use serde_json::json;
use std::path::Path;

mod common;
use common::{conform, text};

/// Writes a run directory as `conform run` leaves it: a journal of (case, backend, status,
/// message) and a run record.
fn write_run(dir: &Path, started: &str, results: &[(&str, &str, &str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut journal = String::new();
    let mut backends: Vec<&str> = results.iter().map(|r| r.1).collect();
    backends.sort_unstable();
    backends.dedup();
    for (case, backend, status, message) in results {
        let line = json!({
            "case": case, "path": format!("cases/{case}.yaml"), "backend": backend,
            "status": status, "message": message, "duration_ms": 3,
            "repro": format!("conform run cases/{case}.yaml --backend {backend}"),
        });
        journal.push_str(&format!("{line}\n"));
    }
    std::fs::write(dir.join("results.jsonl"), journal).unwrap();
    let record = json!({
        "state": "complete", "expected": results.len(), "cases": results.len(),
        "backends": backends, "started": started, "ended": started,
        "identities": {"llvmpipe": {
            "vendor": "Mesa", "renderer": "llvmpipe (LLVM 15.0.6, 256 bits)",
            "version": "4.5 (Core Profile) Mesa 25.0.7-2~bpo12+1",
            "mesa_version": "25.0.7-2~bpo12+1"
        }}
    });
    std::fs::write(dir.join("run.json"), record.to_string()).unwrap();
}

#[test]
fn compare_lists_a_regression_and_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let (last, tonight) = (tmp.path().join("last-night"), tmp.path().join("tonight"));
    write_run(
        &last,
        "2026-11-20T02:00:00Z",
        &[
            ("x/a", "llvmpipe", "pass", ""),
            ("x/b", "llvmpipe", "fail", "expected 1, got 2"),
        ],
    );
    write_run(
        &tonight,
        "2026-11-21T02:00:00Z",
        &[
            ("x/a", "llvmpipe", "crash", "worker died: signal 11"),
            ("x/b", "llvmpipe", "fail", "expected 1, got 3"),
        ],
    );
    let (l, t) = (last.to_str().unwrap(), tonight.to_str().unwrap());
    let o = conform(&["compare", l, t]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("❌ 1 regression(s) from run 1 to run 2"),
        "{out}"
    );
    assert!(
        out.contains("| `x/a` | `llvmpipe` | pass | crash | worker died: signal 11 |"),
        "{out}"
    );
    assert!(out.contains("2026-11-20T02:00:00Z"), "{out}");
    assert!(out.contains("Mesa 25.0.7-2\\~bpo12+1"), "{out}");
    assert!(
        !out.contains("`x/b`"),
        "a new message alone is no change: {out}"
    );

    // The other way round x/a is a fix: exit 0. A run against itself: nothing changed.
    let o = conform(&["compare", t, l]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = conform(&["compare", l, l]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("No status changed (2 unchanged)."));

    // HTML to a file: stdout says where and what.
    let page = tmp.path().join("diff.html");
    let o = conform(&[
        "compare",
        l,
        t,
        "--format",
        "html",
        "--output",
        page.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("run 1 → run 2: regressions: 1, fixes: 0"),
        "{}",
        text(&o)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("<code>x/a</code>"), "{html}");
}

#[test]
fn compare_of_two_backends_in_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("bisect");
    write_run(
        &run,
        "2026-11-21T02:00:00Z",
        &[
            ("x/a", "llvmpipe", "fail", "expected 1, got 2"),
            ("x/a", "llvmpipe@mesa-25", "pass", ""),
        ],
    );
    let r = run.to_str().unwrap();
    let o = conform(&["compare", r, "--backends", "llvmpipe,llvmpipe@mesa-25"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("| `x/a` | `llvmpipe → llvmpipe@mesa-25` | fail | pass | expected 1, got 2 |"),
        "{out}"
    );
    let o = conform(&["compare", r, "--backends", "llvmpipe@mesa-25,llvmpipe"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn compare_refuses_bad_input_with_exit_2_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    write_run(
        &run,
        "2026-11-21T02:00:00Z",
        &[("x/a", "llvmpipe", "pass", "")],
    );
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let r = run.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &[r, "/no/such/run"],
            "error: /no/such/run: no such directory",
        ),
        (
            &[r, empty.to_str().unwrap()],
            "empty: no results.jsonl here",
        ),
        (&[r], "compare needs two run directories or more (got 1)"),
        (&[r, "--backends", "llvmpipe"], "exactly two backend names"),
        (
            &[r, "--backends", "llvmpipe,zink"],
            "no results of backend `zink`",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["compare"];
        all.extend_from_slice(args);
        let o = conform(&all);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}");
        assert!(out.contains(want), "{args:?}: {out}");
    }
    std::fs::write(run.join("run.json"), "{").unwrap();
    let o = conform(&["compare", r, r]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("run.json"), "{}", text(&o));
}
