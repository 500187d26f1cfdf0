//! Hostile input, round four (issue 45): symlinks on the paths a user names (a case file on
//! the command line, the files of `conform compare`'s runs) and special or oversized files in
//! `conform import piglit`. (`conform fuzz merge`'s symlinked findings are tested beside it:
//! `campaign::merge::tests::symlinked_finding_directories_and_files_are_noted_not_followed`.)
//!
//! Each test here failed before the change it checks. The symlinks and FIFOs are made at test
//! time in a temporary directory.

use super::{conform, mkfifo, symlink, GLSL, SECRET};
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
