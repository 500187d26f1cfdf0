//! Hostile input, round four (issue 45): symlinks on the paths a user names (a case file on
//! the command line, the files of `conform compare`'s runs), special or oversized files in
//! `conform import piglit`, output lost to a full disk, names with `#`, threads the system
//! refuses, and a transform campaign over a case that exhausts the reference. (`conform fuzz merge`'s symlinked findings are tested beside it:
//! `campaign::merge::tests::symlinked_finding_directories_and_files_are_noted_not_followed`.)
//!
//! Each test here failed before the change it checks. The symlinks and FIFOs are made at test
//! time in a temporary directory.

use super::{conform, mkfifo, symlink, EXE, GLSL, SECRET};
use std::path::{Path, PathBuf};

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file under `dir` (not following symlinks) that holds `what`.
fn files_holding(dir: &Path, what: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in entries {
        let p = e.unwrap().path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_dir() {
            found.extend(files_holding(&p, what));
        } else if m.is_file() && String::from_utf8_lossy(&std::fs::read(&p).unwrap()).contains(what)
        {
            found.push(p);
        }
    }
    found
}

/// `tmp/cases` (with the tests' clause catalogue) holding `x/ok.yaml`, `x/link.yaml` (a symlink
/// to a secret outside, a YAML string the loader would quote) and `x/out` (a symlink to the
/// directory outside that holds it).
fn symlinked_cases(tmp: &Path) -> PathBuf {
    let cases = tmp.join("cases");
    std::fs::create_dir_all(cases.join("x")).unwrap();
    std::fs::copy("tests/data/clauses.yaml", cases.join("clauses.yaml")).unwrap();
    std::fs::write(
        cases.join("x/ok.yaml"),
        format!("spec: [T-EXEC]\n{GLSL}expect: [{{buffer: out, values: [1]}}]\n"),
    )
    .unwrap();
    let outside = tmp.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.yaml"), format!("{SECRET}\n")).unwrap();
    symlink("../../outside/secret.yaml", cases.join("x/link.yaml"));
    symlink("../../outside", cases.join("x/out"));
    cases
}

/// A case file named on the command line is checked as it is when its directory is walked:
/// a symlink out of the root, or a path through a directory symlink, is refused unread, and
/// the secret is in no output, no journal and no report.
#[test]
fn round4_a_named_case_file_symlinked_out_of_its_root_is_refused_unread() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = symlinked_cases(tmp.path());
    // Walking the directory refuses it (as before).
    let v = conform(&["validate", s(&cases)], here());
    assert!(v.text().contains("outside the case root"), "{}", v.text());
    for named in [cases.join("x/link.yaml"), cases.join("x/out/secret.yaml")] {
        let v = conform(&["validate", s(&named)], here());
        let t = v.text();
        assert_eq!(v.code, Some(2), "{t}");
        assert!(t.contains("outside the case root"), "{t}");
        assert!(!t.contains(SECRET), "{t}");
        let out = tmp.path().join(format!(
            "run-{}",
            named.file_name().unwrap().to_str().unwrap()
        ));
        let r = conform(
            &[
                "run",
                s(&cases.join("x/ok.yaml")),
                s(&named),
                "--backend",
                "reference",
                "--out",
                s(&out),
            ],
            here(),
        );
        let t = r.text();
        assert!(!t.contains(SECRET), "{t}");
        assert!(out.join("report.html").is_file(), "{t}");
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        assert!(html.contains("outside the case root"), "{t}");
        assert_eq!(files_holding(&out, SECRET), Vec::<PathBuf>::new());
    }
    // With --allow-outside-root it is read, as a walked one is.
    let v = conform(
        &[
            "validate",
            "--allow-outside-root",
            s(&cases.join("x/link.yaml")),
        ],
        here(),
    );
    assert!(v.text().contains(SECRET), "{}", v.text());
}

/// `conform compare` refuses a run whose `run.json` or journal is a symlink, and its errors
/// about a run.json that is not a run record name the file and position, never its content.
#[test]
fn round4_compare_never_quotes_a_run_file_that_is_not_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (r1, r2) = (tmp.path().join("r1"), tmp.path().join("r2"));
    for r in [&r1, &r2] {
        std::fs::create_dir_all(r).unwrap();
        std::fs::write(r.join("results.jsonl"), "").unwrap();
    }
    let secret = tmp.path().join("secret.json");
    std::fs::write(&secret, format!("\"{SECRET}\"\n")).unwrap();
    let compare = || conform(&["compare", s(&r1), s(&r2)], here());
    // A symlinked run.json, then a symlinked journal: refused by name, not read.
    symlink(&secret, r1.join("run.json"));
    let c = compare();
    let t = c.text();
    assert_eq!(c.code, Some(2), "{t}");
    assert!(t.contains("run.json: is a symbolic link"), "{t}");
    assert!(!t.contains(SECRET), "{t}");
    std::fs::remove_file(r1.join("run.json")).unwrap();
    std::fs::remove_file(r1.join("results.jsonl")).unwrap();
    symlink(&secret, r1.join("results.jsonl"));
    let c = compare();
    let t = c.text();
    assert_eq!(c.code, Some(2), "{t}");
    assert!(t.contains("results.jsonl: is a symbolic link"), "{t}");
    std::fs::remove_file(r1.join("results.jsonl")).unwrap();
    std::fs::write(r1.join("results.jsonl"), "").unwrap();
    // A regular run.json holding something else: the file, line and column, no content.
    for text in [
        format!("\"{SECRET}\""),
        format!("{{\"{SECRET}\": 1}}"),
        format!("{{\"started\": [\"{SECRET}\"]}}"),
    ] {
        std::fs::write(r1.join("run.json"), &text).unwrap();
        let c = compare();
        let t = c.text();
        assert_eq!(c.code, Some(2), "{t}");
        assert!(t.contains("run.json:1:"), "{t}");
        assert!(!t.contains(SECRET), "{text}: {t}");
    }
}

const PIGLIT_TEST: &str = "[require]\nGL >= 4.3\nGLSL >= 4.30\n[compute shader]\n#version 430\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = 1u; }\n[test]\nssbo 0 4\ncompute 1 1 1\nprobe ssbo uint 0 0 == 1\n";

/// `conform import piglit` given a FIFO named like a test ends (it blocked for ever), and a
/// test whose case the loader would refuse (its name) is reported as not converted, with
/// the loader's reason, and not written; what it did write, `validate` accepts.
#[test]
fn round4_import_piglit_skips_a_fifo_and_writes_no_case_conform_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    mkfifo(&input.join("fifo.shader_test"));
    std::fs::write(input.join("ok.shader_test"), PIGLIT_TEST).unwrap();
    std::fs::write(input.join("a,b.shader_test"), PIGLIT_TEST).unwrap();
    let out = tmp.path().join("out");
    let i = conform(&["import", "piglit", s(&input), "--out", s(&out)], here());
    let t = i.text();
    assert!(t.contains("is a FIFO (named pipe)"), "{t}");
    assert!(t.contains("refused by the case loader"), "{t}");
    assert!(t.contains("converted fully:     1"), "{t}");
    let summary = std::fs::read_to_string(out.join("import-summary.json")).unwrap();
    assert!(summary.contains("contains a comma"), "{summary}");
    assert!(!out.join("piglit/a,b.yaml").exists());
    let v = conform(&["validate", s(&out)], here());
    assert_eq!(v.code, Some(0), "{}", v.text());
    assert!(v.text().contains("1 valid, 0 invalid"), "{}", v.text());
}

/// `bash -c SCRIPT` with `$CONFORM` set to the binary under test: for limits (`ulimit`) a
/// test cannot set on itself.
fn shell(script: &str, cwd: &Path) -> std::process::Output {
    std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("CONFORM", EXE)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// `tmp/cases` (with the tests' clause catalogue) holding a passing case under each name.
fn passing_cases(tmp: &Path, names: &[&str]) -> PathBuf {
    let dir = tmp.join("cases");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("tests/data/clauses.yaml", dir.join("clauses.yaml")).unwrap();
    let case = format!("spec: [T-EXEC]\n{GLSL}expect: [{{buffer: out, values: [1]}}]\n");
    for name in names {
        std::fs::write(dir.join(name), &case).unwrap();
    }
    dir
}

/// `junit`, `compare` and `bugreport` print their product on stdout; a full disk there was
/// ignored like a closed pipe and the command exited 0 with nothing written.
#[test]
fn round4_output_lost_to_a_full_disk_fails_the_command() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("r.csv"), "reference/a,Pass,0.1\n").unwrap();
    let o = shell("\"$CONFORM\" junit r.csv > /dev/full", tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot write standard output: No space left"),
        "{err}"
    );
    // A reader that goes away is not an error: `| head` stays quiet and exits as the work
    // decided.
    let o = shell(
        "\"$CONFORM\" junit r.csv | head -c 1 > /dev/null; echo ${PIPESTATUS[0]}",
        tmp.path(),
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "0");
    // A duration no run has (1e300 s) is an error naming the line, not a panic.
    std::fs::write(tmp.path().join("r.csv"), "reference/a,Pass,1e300\n").unwrap();
    let o = shell("\"$CONFORM\" junit r.csv", tmp.path());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("r.csv:1: `1e300` is not a duration"), "{err}");
}

/// A `#` inside a case name made results.csv unreadable by conform's own `junit` and
/// `--baseline` (they end a line's content at a `#`): the loader refuses it, as a comma.
#[test]
fn round4_a_hash_in_a_case_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = passing_cases(tmp.path(), &["a#b.yaml"]);
    let o = conform(&["validate", s(&dir)], here());
    assert_eq!(o.code, Some(2), "{}", o.text());
    assert!(o.text().contains("a double quote or a `#`"), "{}", o.text());
}

/// Threads of 1 GiB (RUST_MIN_STACK) under a 2.5 GB address-space limit: the first start,
/// later ones are refused. `std::thread::scope`'s spawn panicked there; now the run goes on
/// with the threads it has, and the refused worker-pipe threads cost their cases.
#[test]
fn round4_a_thread_the_system_refuses_costs_jobs_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    passing_cases(tmp.path(), &["a.yaml", "b.yaml"]);
    let o = shell(
        "ulimit -v 2500000; RUST_MIN_STACK=1073741824 exec \"$CONFORM\" run cases \
         --backend reference --jobs 4 --out out",
        tmp.path(),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(o.status.code(), Some(101), "{err}");
    assert!(err.contains("cannot start a thread"), "{err}");
    // Every case has a result (its worker could not start: a crash naming why).
    let csv = std::fs::read_to_string(tmp.path().join("out/results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
}

/// `fuzz --mode transform` ran the reference in its own process: a case that allocates past
/// the reference worker's limit (1 MB of private memory in 8x1024 invocations) aborted the
/// whole campaign. Now the reference runs in workers as in `run`: that case does not pass
/// there, and the campaign goes on with the other.
#[test]
fn round4_a_transform_campaign_outlives_a_case_that_exhausts_the_reference() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = passing_cases(tmp.path(), &["ok.yaml"]);
    let oom = std::fs::read_to_string("tests/data/hostile/work-private-memory-oom.yaml").unwrap();
    std::fs::write(
        dir.join("oom.yaml"),
        format!("{oom}expect: [{{buffer: out, values: [1]}}]\n"),
    )
    .unwrap();
    let o = shell(
        "ulimit -v 4000000; exec \"$CONFORM\" fuzz --mode transform cases --backend reference \
         --iterations 6 --out out",
        tmp.path(),
    );
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let summary = std::fs::read_to_string(tmp.path().join("out/summary.md")).unwrap();
    assert!(summary.contains("- reference: 1"), "{summary}");
    assert!(summary.contains("from 2 cases"), "{summary}");
}
