//! End-to-end tests of the `conform` binary: exit codes, diagnostics, the journal and JUnit
//! files, and crash/hang isolation on real Mesa drivers (skipped, with a message, on a
//! machine without them; only in `self-test` builds, which have the crash and hang triggers).

use std::path::Path;
use std::process::{Command, Output};

fn conform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("conform runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn journal(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .expect("journal written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("journal lines are JSON"))
        .collect()
}

#[test]
fn validate_reports_each_broken_file_and_exits_2() {
    let o = conform(&["validate", "tests/data/mixed"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("1 valid, 3 invalid"), "{t}");
    assert!(
        t.contains("tests/data/mixed/bad-key.yaml:3:1: unknown field `expectt`"),
        "{t}"
    );
    assert!(t.contains("hint: did you mean `expect`?"), "{t}");
    assert!(
        t.contains("tests/data/mixed/bad-clause.yaml:1:8: unknown clause id `T-EXECC`"),
        "{t}"
    );
    assert!(
        t.contains("tests/data/mixed/binary.yaml:1:15: file contains a NUL byte"),
        "{t}"
    );
    assert!(!t.contains("panicked"), "{t}");
}

#[test]
fn validate_of_the_corpus_is_clean() {
    let o = conform(&["validate", "../cases"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        conform(&["run", "tests/data/mixed", "--backend", "nonsense"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(conform(&["run", "no/such/dir"]).status.code(), Some(2));
    assert_eq!(conform(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn run_writes_journal_and_junit_and_keeps_invalid_cases_apart() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("run");
    let o = conform(&[
        "run",
        "tests/data/mixed",
        "--backend",
        "reference",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let t = text(&o);
    // Invalid cases make the run exit 2 once nothing failed; they are in the journal too.
    assert_eq!(o.status.code(), Some(2), "{t}");
    let lines = journal(&dir);
    let invalid = lines.iter().filter(|l| l["status"] == "invalid").count();
    assert_eq!(invalid, 3, "{lines:?}");
    assert!(lines
        .iter()
        .any(|l| l["case"] == "good" && l["backend"] == "reference"));
    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    assert!(junit.contains("<testsuite name=\"reference\""), "{junit}");
}

#[cfg(feature = "self-test")]
fn have_driver(name: &str) -> bool {
    let o = conform(&["drivers"]);
    let t = text(&o);
    let ok = t
        .lines()
        .any(|l| l.starts_with(&format!("{name}: ")) && !l.contains("absent"));
    if !ok {
        eprintln!(
            "skipping: no {name} driver on this machine ({})",
            t.lines().next().unwrap_or("")
        );
    }
    ok
}

#[cfg(feature = "self-test")]
fn status_of<'a>(lines: &'a [serde_json::Value], case: &str, backend: &str) -> &'a str {
    lines
        .iter()
        .find(|l| l["case"] == case && l["backend"] == backend)
        .and_then(|l| l["status"].as_str())
        .unwrap_or("missing")
}

/// A crashing case and a hanging case each cost exactly that case: the cases before and after
/// them still pass, on the same run, and the run finishes.
#[cfg(feature = "self-test")]
#[test]
fn crash_and_hang_cost_one_case_each() {
    if !have_driver("llvmpipe") || !have_driver("softpipe") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let dir: std::path::PathBuf = out.path().join("run");
    let o = conform(&[
        "run",
        "tests/data/isolation",
        "--backend",
        "llvmpipe,softpipe",
        "--jobs",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "the crash is a failure: {t}");
    let lines = journal(&dir);
    for backend in ["llvmpipe", "softpipe"] {
        assert_eq!(status_of(&lines, "a-pass-before", backend), "pass", "{t}");
        assert_eq!(status_of(&lines, "b-crash", backend), "crash", "{t}");
        assert_eq!(status_of(&lines, "d-pass-after", backend), "pass", "{t}");
    }
    // softpipe runs the endless loop forever: killed at the case's timeout, allowed because
    // the case declares undefined behaviour. llvmpipe stops such loops by itself.
    assert_eq!(
        status_of(&lines, "c-endless-loop", "softpipe"),
        "timeout",
        "{t}"
    );
    let hang = lines
        .iter()
        .find(|l| l["case"] == "c-endless-loop" && l["backend"] == "softpipe")
        .unwrap();
    assert_eq!(hang["allowed"], true);
    assert!(
        t.contains("CRASH b-crash [llvmpipe]: worker killed by signal 6"),
        "{t}"
    );
}

/// `conform import piglit` on a directory with broken files reports each with its line,
/// converts the rest, and exits 2.
#[test]
fn import_piglit_reports_broken_files_and_converts_the_rest() {
    let out = tempfile::tempdir().unwrap();
    let o = conform(&[
        "import",
        "piglit",
        "tests/data/import/piglit",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains("tests/data/import/piglit/broken/bad-version.shader_test:"),
        "{t}"
    );
    assert!(t.contains("errors:              9"), "{t}");
    let written = out.path().join("piglit/commands/ssbo-probes.yaml").exists();
    assert!(written, "{t}");
    let summary = std::fs::read_to_string(out.path().join("import-summary.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(json["totals"]["errors"], 9, "{summary}");
    assert!(
        json["totals"]["converted"].as_u64().unwrap() > 0,
        "{summary}"
    );
}
