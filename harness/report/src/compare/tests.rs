//! Tests of `conform compare`: the classification, the comparisons and exit code, reading run
//! directories and the bad inputs, and the renderings. The Markdown is golden, in
//! harness/tests/data/compare/*.md; rewrite the goldens with `BLESS=1 cargo test -p
//! conform-gate compare` (or `CONFORM_BLESS=1`, as the importer's) and read the diff.

use super::*;
use conform_judge::identity::BackendIdentity;
use conform_judge::record::RunState;
use conform_judge::results::Journal;
use conform_judge::testing::result;
use Status::{Crash, Fail, Flagged, Invalid, Pass, Skip, Timeout};

/// A result with its own message.
fn said(case: &str, backend: &str, status: Status, message: &str) -> CaseResult {
    let mut r = result(case, backend, status);
    r.message = message.into();
    r
}

/// A run record started at `started`, with `identities`.
fn record(backends: &[&str], started: &str, identities: &[(&str, BackendIdentity)]) -> RunRecord {
    let mut r = RunRecord::start(
        0,
        0,
        backends.iter().map(|b| b.to_string()).collect(),
        BTreeMap::new(),
        None,
    );
    r.started = started.into();
    r.identities = identities
        .iter()
        .map(|(n, id)| (n.to_string(), id.clone()))
        .collect();
    r
}

fn run(dir: &str, results: Vec<CaseResult>) -> Run {
    Run::from_parts(Path::new(dir), None, results)
}

fn llvmpipe(mesa: &str) -> BackendIdentity {
    BackendIdentity::driver(
        "Mesa",
        "llvmpipe (LLVM 15.0.6, 256 bits)",
        &format!("4.5 (Core Profile) Mesa {mesa}"),
    )
}

fn reference() -> BackendIdentity {
    BackendIdentity {
        vendor: "conform".into(),
        renderer: "reference interpreter".into(),
        version: "conform 0.1.0".into(),
        ..BackendIdentity::default()
    }
}

/// The rendering equals the golden file `name` (rewritten under BLESS=1).
fn golden(name: &str, got: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/compare");
    conform_judge::testing::golden(&dir, name, got);
}

#[test]
fn each_kind_of_step_is_classified() {
    let cases = [
        (Some(Pass), Some(Fail), Kind::Regression),
        (Some(Pass), Some(Crash), Kind::Regression),
        (Some(Pass), Some(Timeout), Kind::Regression),
        (Some(Pass), Some(Invalid), Kind::Regression),
        (Some(Fail), Some(Pass), Kind::Fix),
        (Some(Crash), Some(Pass), Kind::Fix),
        (Some(Timeout), Some(Pass), Kind::Fix),
        (Some(Invalid), Some(Pass), Kind::Fix),
        (Some(Fail), Some(Crash), Kind::Change),
        (Some(Pass), Some(Skip), Kind::Change),
        (Some(Skip), Some(Pass), Kind::Change),
        (Some(Skip), Some(Fail), Kind::Change),
        (Some(Pass), Some(Flagged), Kind::Change),
        (Some(Flagged), Some(Pass), Kind::Change),
        (None, Some(Fail), Kind::New),
        (None, Some(Pass), Kind::New),
        (Some(Pass), None, Kind::Missing),
        (Some(Crash), None, Kind::Missing),
    ];
    for (before, after, want) in cases {
        assert_eq!(
            classify(before, after),
            Some(want),
            "{before:?} → {after:?}"
        );
    }
    for s in Status::ALL {
        assert_eq!(classify(Some(s), Some(s)), Some(Kind::Unchanged), "{s:?}");
    }
    assert_eq!(classify(None, None), None);
}

#[test]
fn a_failure_with_another_message_is_unchanged_but_changes_show_both_messages() {
    let a = run(
        "a",
        vec![
            said("x/f", "llvmpipe", Fail, "expected 1, got 2"),
            said("x/c", "llvmpipe", Fail, "expected 1, got 2"),
        ],
    );
    let b = run(
        "b",
        vec![
            said("x/f", "llvmpipe", Fail, "expected 1, got 3"),
            said("x/c", "llvmpipe", Crash, "signal 11\nbacktrace follows"),
        ],
    );
    let cmp = Comparison::new(vec![a, b]).unwrap();
    let d = cmp.overall();
    assert_eq!(d.unchanged, 1);
    assert_eq!(d.rows.len(), 1);
    assert_eq!(d.rows[0].kind, Kind::Change);
    assert_eq!(
        d.rows[0].messages(),
        vec![
            (Some("before"), "expected 1, got 2".to_string()),
            (Some("after"), "signal 11".to_string()),
        ]
    );
    assert_eq!(cmp.exit_code(), 0);
}

#[test]
fn messages_are_one_line_and_cut() {
    let long = "y".repeat(MAX_MESSAGE + 40);
    let row = Row {
        case: "c".into(),
        backend: "b".into(),
        kind: Kind::Regression,
        before: Some(Seen {
            status: Pass,
            message: String::new(),
        }),
        after: Some(Seen {
            status: Fail,
            message: format!("{long}\nsecond line"),
        }),
    };
    let m = row.messages();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].0, None);
    assert_eq!(m[0].1.chars().count(), MAX_MESSAGE + 1);
    assert!(m[0].1.ends_with('…') && !m[0].1.contains("second"));
}

#[test]
fn a_regression_in_the_middle_fixed_by_the_last_run_exits_0() {
    let runs = vec![
        run("1", vec![result("x/a", "llvmpipe", Pass)]),
        run("2", vec![result("x/a", "llvmpipe", Fail)]),
        run("3", vec![result("x/a", "llvmpipe", Pass)]),
    ];
    let cmp = Comparison::new(runs).unwrap();
    assert_eq!(cmp.diffs.len(), 3, "1→2, 2→3, 1→3");
    assert_eq!(cmp.diffs[0].count(Kind::Regression), 1);
    assert_eq!(cmp.diffs[1].count(Kind::Fix), 1);
    assert_eq!((cmp.overall().before, cmp.overall().after), (0, 2));
    assert_eq!(cmp.overall().unchanged, 1);
    assert!(cmp.overall().rows.is_empty());
    assert_eq!(cmp.title(cmp.overall()), "run 1 → run 3 (first → last)");
    assert_eq!(cmp.exit_code(), 0);
}

#[test]
fn a_regression_the_last_run_keeps_exits_1() {
    let runs = vec![
        run("1", vec![result("x/a", "llvmpipe", Pass)]),
        run("2", vec![result("x/a", "llvmpipe", Pass)]),
        run("3", vec![result("x/a", "llvmpipe", Timeout)]),
    ];
    let cmp = Comparison::new(runs).unwrap();
    assert_eq!(cmp.overall().count(Kind::Regression), 1);
    assert_eq!(cmp.exit_code(), 1);
}

#[test]
fn a_run_compared_with_itself_is_all_unchanged() {
    let results = vec![
        result("x/a", "llvmpipe", Pass),
        result("x/b", "llvmpipe", Fail),
        result("x/a", "reference", Pass),
        result("x/c", "reference", Skip),
    ];
    let r = run("same", results);
    let cmp = Comparison::new(vec![r.clone(), r]).unwrap();
    assert_eq!(cmp.diffs.len(), 1);
    assert!(cmp.overall().rows.is_empty());
    assert_eq!(cmp.overall().unchanged, 4);
    assert_eq!(cmp.exit_code(), 0);
    let md = markdown::render(&cmp);
    assert!(md.contains("no regressions from run 1 to run 2"), "{md}");
    assert!(md.contains("No status changed (4 unchanged)."), "{md}");
}

#[test]
fn one_new_failure_exits_1_and_is_listed() {
    let before = vec![
        result("x/a", "llvmpipe", Pass),
        result("x/b", "llvmpipe", Pass),
    ];
    let mut after = before.clone();
    after[1] = said(
        "x/b",
        "llvmpipe",
        Fail,
        "buffer out: 3 of 64 elements differ",
    );
    let cmp = Comparison::new(vec![run("a", before), run("b", after)]).unwrap();
    assert_eq!(cmp.exit_code(), 1);
    let rows: Vec<&Row> = cmp.overall().rows_of(Kind::Regression).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].case.as_str(), rows[0].backend.as_str()),
        ("x/b", "llvmpipe")
    );
    let md = markdown::render(&cmp);
    assert!(
        md.contains("❌ 1 regression(s) from run 1 to run 2"),
        "{md}"
    );
    assert!(
        md.contains("| `x/b` | `llvmpipe` | pass | fail | buffer out: 3 of 64 elements differ |"),
        "{md}"
    );
}

#[test]
fn fewer_than_two_runs_are_refused() {
    assert!(Comparison::new(vec![run("a", vec![])])
        .unwrap_err()
        .contains("two run directories or more"));
}

/// Writes a run directory: a journal of `results` and, when given, a record.
fn write_run(dir: &Path, results: &[CaseResult], record: Option<&RunRecord>) {
    let mut j = Journal::create(dir).unwrap();
    for r in results {
        j.append(r).unwrap();
    }
    if let Some(r) = record {
        r.write(dir).unwrap();
    }
}

#[test]
fn run_directories_are_read_with_their_record() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tonight");
    let mut rec = record(
        &["llvmpipe", "zink"],
        "2026-11-21T02:00:00Z",
        &[("llvmpipe", llvmpipe("25.0.7-2~bpo12+1"))],
    );
    rec.absent.insert("zink".into(), "no Vulkan device".into());
    rec.end(RunState::Complete);
    write_run(
        &dir,
        &[
            result("x/a", "llvmpipe", Fail),
            result("x/a", "llvmpipe", Pass),
        ],
        Some(&rec),
    );
    let r = read_run(&dir).unwrap();
    assert_eq!(r.started.as_deref(), Some("2026-11-21T02:00:00Z"));
    assert_eq!(
        r.backends["llvmpipe"].as_deref(),
        Some("llvmpipe (LLVM 15.0.6, 256 bits), Mesa 25.0.7-2~bpo12+1")
    );
    assert_eq!(
        r.backends["zink"].as_deref(),
        Some("absent: no Vulkan device")
    );
    // The latest line of a (case, backend) counts, as in `conform report`.
    assert_eq!(r.results.len(), 1);
    assert_eq!(r.results[&("x/a".into(), "llvmpipe".into())].status, Pass);

    // Without a record: no start, backends from the results.
    let bare = tmp.path().join("bare");
    write_run(&bare, &[result("x/a", "softpipe", Pass)], None);
    let r = read_run(&bare).unwrap();
    assert_eq!(r.started, None);
    assert_eq!(r.backends.keys().collect::<Vec<_>>(), vec!["softpipe"]);
}

#[test]
fn bad_inputs_are_errors_naming_the_file_or_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    write_run(
        &good,
        &[
            result("x/a", "llvmpipe", Pass),
            result("x/a", "llvmpipe@mesa-25", Fail),
        ],
        None,
    );
    let missing = tmp.path().join("no-such-run");
    let err = read_run(&missing).unwrap_err();
    assert!(err.contains("no-such-run: no such directory"), "{err}");

    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = read_run(&empty).unwrap_err();
    assert!(err.contains("empty: no results.jsonl here"), "{err}");

    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    assert!(read_run(&file).unwrap_err().contains("not a directory"));

    let broken = tmp.path().join("broken");
    write_run(&broken, &[result("x/a", "llvmpipe", Pass)], None);
    std::fs::write(broken.join("run.json"), "{ not json").unwrap();
    let err = read_run(&broken).unwrap_err();
    assert!(err.contains("run.json"), "{err}");

    let req = |dirs: Vec<PathBuf>, backends: Option<&[&str]>| Request {
        dirs,
        backends: backends.map(|b| b.iter().map(|s| s.to_string()).collect()),
        ..Request::default()
    };
    let err = load(&req(vec![good.clone()], None)).unwrap_err();
    assert!(err.contains("two run directories or more (got 1)"), "{err}");
    let err = load(&req(vec![good.clone(), missing.clone()], None)).unwrap_err();
    assert!(err.contains("no-such-run"), "{err}");
    let err = load(&req(
        vec![good.clone(), good.clone()],
        Some(&["llvmpipe", "llvmpipe@mesa-25"]),
    ))
    .unwrap_err();
    assert!(err.contains("one run directory (got 2"), "{err}");
    let err = load(&req(vec![good.clone()], Some(&["llvmpipe"]))).unwrap_err();
    assert!(err.contains("exactly two backend names"), "{err}");
    let err = load(&req(vec![good.clone()], Some(&["a", "b", "c"]))).unwrap_err();
    assert!(err.contains("got 3: a,b,c"), "{err}");
    let err = load(&req(vec![good.clone()], Some(&["llvmpipe", "zink"]))).unwrap_err();
    assert!(err.contains("good: no results of backend `zink`"), "{err}");
    assert!(err.contains("it has: llvmpipe, llvmpipe@mesa-25"), "{err}");

    let cmp = load(&req(vec![good], Some(&["llvmpipe", "llvmpipe@mesa-25"]))).unwrap();
    assert_eq!(cmp.exit_code(), 1);
}

#[test]
fn command_writes_the_output_file_and_returns_the_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    write_run(&a, &[result("x/a", "llvmpipe", Fail)], None);
    write_run(&b, &[result("x/a", "llvmpipe", Pass)], None);
    let out = tmp.path().join("diff.html");
    let req = Request {
        dirs: vec![a.clone(), b.clone()],
        backends: None,
        format: "html".parse().unwrap(),
        output: Some(out.clone()),
    };
    assert_eq!(command(&req), Ok(0));
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(
        page.contains("Fixes (fail, crash, timeout, invalid → pass): 1"),
        "{page}"
    );
    let req = Request {
        dirs: vec![b, a],
        output: Some(tmp.path().join("no-such-dir/diff.md")),
        ..req
    };
    let err = command(&req).unwrap_err();
    assert!(
        err.contains("cannot write") && err.contains("no-such-dir"),
        "{err}"
    );
    assert_eq!("md".parse::<Format>(), Ok(Format::Markdown));
    assert!("pdf"
        .parse::<Format>()
        .unwrap_err()
        .contains("markdown or html"));
}

/// The runs of the two-run golden: every kind, the drivers' builds, hostile text.
fn two_nightlies() -> Vec<Run> {
    let last = record(
        &["llvmpipe", "reference"],
        "2026-11-20T02:00:00Z",
        &[
            ("llvmpipe", llvmpipe("25.0.7-2~bpo12+1")),
            ("reference", reference()),
        ],
    );
    let tonight = record(
        &["llvmpipe", "reference"],
        "2026-11-21T02:00:00Z",
        &[
            ("llvmpipe", llvmpipe("25.1.0-devel (git-1a2b3c4d5e)")),
            ("reference", reference()),
        ],
    );
    let before = vec![
        result("arb_compute_shader/atomics", "llvmpipe", Pass),
        result("arb_compute_shader/atomics", "reference", Pass),
        result("arb_compute_shader/barrier", "llvmpipe", Pass),
        said(
            "arb_compute_shader/shared-32k",
            "llvmpipe",
            Timeout,
            "no result within 10s",
        ),
        said(
            "nv_shader_thread_shuffle/shfl-idx",
            "llvmpipe",
            Fail,
            "buffer out: 4 of 64 elements differ (first: [3] expected 7, got 0)",
        ),
        said(
            "nv_shader_thread_shuffle/shfl-up",
            "llvmpipe",
            Fail,
            "buffer out: [0] expected 1, got 2",
        ),
        said(
            "arb_gl_spirv/spec-constants",
            "llvmpipe",
            Skip,
            "requires GL_ARB_gl_spirv",
        ),
        result("arb_compute_shader/removed", "llvmpipe", Pass),
        said("x/hostile|name`@all", "llvmpipe", Pass, ""),
    ];
    let after = vec![
        result("arb_compute_shader/atomics", "llvmpipe", Pass),
        result("arb_compute_shader/atomics", "reference", Pass),
        said(
            "arb_compute_shader/barrier",
            "llvmpipe",
            Crash,
            "worker died: signal 11 (SIGSEGV)\nstderr: lp_bld_arit.c:123: assertion failed",
        ),
        result("arb_compute_shader/shared-32k", "llvmpipe", Pass),
        said(
            "nv_shader_thread_shuffle/shfl-idx",
            "llvmpipe",
            Crash,
            "worker died: signal 6 (SIGABRT)",
        ),
        said(
            "nv_shader_thread_shuffle/shfl-up",
            "llvmpipe",
            Fail,
            "buffer out: [0] expected 1, got 3",
        ),
        result("arb_gl_spirv/spec-constants", "llvmpipe", Pass),
        said(
            "arb_compute_shader/added",
            "llvmpipe",
            Fail,
            "buffer out: [1] expected 5, got 4",
        ),
        said(
            "x/hostile|name`@all",
            "llvmpipe",
            Fail,
            "<script>alert(1)</script> | @all /merge",
        ),
    ];
    vec![
        Run::from_parts(Path::new("reports/last-night"), Some(&last), before),
        Run::from_parts(Path::new("reports/tonight"), Some(&tonight), after),
    ]
}

#[test]
fn two_runs_markdown_golden() {
    let cmp = Comparison::new(two_nightlies()).unwrap();
    assert_eq!(cmp.exit_code(), 1);
    golden("two-runs.md", &markdown::render(&cmp));
}

#[test]
fn three_runs_markdown_golden() {
    let runs = vec![
        run(
            "reports/mon",
            vec![
                result("x/a", "llvmpipe", Pass),
                result("x/b", "llvmpipe", Pass),
                said("x/c", "llvmpipe", Fail, "expected 1, got 0"),
            ],
        ),
        run(
            "reports/tue",
            vec![
                said("x/a", "llvmpipe", Fail, "expected 2, got 0"),
                result("x/b", "llvmpipe", Pass),
                said("x/c", "llvmpipe", Fail, "expected 1, got 0"),
            ],
        ),
        run(
            "reports/wed",
            vec![
                result("x/a", "llvmpipe", Pass),
                result("x/b", "llvmpipe", Pass),
                said("x/c", "llvmpipe", Fail, "expected 1, got 0"),
            ],
        ),
    ];
    let cmp = Comparison::new(runs).unwrap();
    assert_eq!(cmp.exit_code(), 0);
    golden("three-runs.md", &markdown::render(&cmp));
}

#[test]
fn two_backends_of_one_run_markdown_golden() {
    let rec = record(
        &["llvmpipe", "llvmpipe@mesa-25"],
        "2026-11-21T02:00:00Z",
        &[
            ("llvmpipe", llvmpipe("22.3.6")),
            ("llvmpipe@mesa-25", llvmpipe("25.0.7")),
        ],
    );
    let one = Run::from_parts(
        Path::new("reports/mesa-bisect"),
        Some(&rec),
        vec![
            result("x/a", "llvmpipe", Pass),
            said("x/b", "llvmpipe", Fail, "expected 3, got 2"),
            result("x/c", "llvmpipe", Pass),
            result("x/a", "llvmpipe@mesa-25", Pass),
            result("x/b", "llvmpipe@mesa-25", Pass),
            said("x/c", "llvmpipe@mesa-25", Crash, "worker died: signal 11"),
        ],
    );
    let runs = split_backends(&one, &["llvmpipe".into(), "llvmpipe@mesa-25".into()]).unwrap();
    assert_eq!(
        runs[0].backends.keys().collect::<Vec<_>>(),
        vec!["llvmpipe"]
    );
    // The install may be named as `--backend` takes it, by its prefix.
    let by_prefix =
        split_backends(&one, &["llvmpipe".into(), "llvmpipe@~/mesa-25/".into()]).unwrap();
    assert_eq!(by_prefix, runs);
    let cmp = Comparison::new(runs).unwrap();
    assert_eq!(cmp.exit_code(), 1);
    golden("two-backends.md", &markdown::render(&cmp));
}

#[test]
fn html_page_is_self_contained_and_escaped() {
    let cmp = Comparison::new(two_nightlies()).unwrap();
    let page = html::render(&cmp);
    assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    assert!(!page.contains("<script"), "no script, escaped messages");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    assert!(!page.contains("http://") && !page.contains("https://") && !page.contains(" src="));
    assert!(
        page.contains(
            "<h3 class=\"k-regression\">Regressions (pass → fail, crash, timeout, invalid): 2</h3>"
        ),
        "{page}"
    );
    assert!(page.contains("llvmpipe (LLVM 15.0.6, 256 bits), Mesa 25.1.0-devel (git-1a2b3c4d5e)"));
    assert!(page.contains("<td class=\"n hot\">2</td>"), "{page}");
    // Every kind with rows has its table; the unchanged are only counted.
    for k in [
        Kind::Regression,
        Kind::Fix,
        Kind::Change,
        Kind::New,
        Kind::Missing,
    ] {
        assert!(page.contains(&format!("class=\"k-{}\"", k.name())), "{k:?}");
    }
    assert!(!page.contains("k-unchanged"));
}

/// Every string field the page shows (a run's directory and start, backend names and builds,
/// cases, messages before and after, the backends one run lacks) holds a bidi override, and
/// each is on the page as `\u{202e}`: a template splicing a string past conform's escaping
/// (`crate::html::Text`) fails this test.
#[test]
fn every_string_field_goes_through_the_text_filter() {
    let h = |s: &str| format!("{s}\u{202e}");
    let backend = h("backend");
    let id = BackendIdentity {
        renderer: h("renderer"),
        version: h("version"),
        ..BackendIdentity::default()
    };
    let first = record(&[&backend], &h("started"), &[(&backend, id)]);
    let before = vec![
        said(&h("x/regressed"), &backend, Pass, ""),
        said(&h("x/changed"), &backend, Fail, &h("message-before")),
        result(&h("x/only"), &h("only-before"), Pass),
    ];
    let after = vec![
        said(&h("x/regressed"), &backend, Fail, &h("message-after")),
        said(&h("x/changed"), &backend, Crash, &h("message-crash")),
        said(&h("x/new"), &backend, Fail, &h("message-new")),
    ];
    let runs = vec![
        Run::from_parts(Path::new(&h("reports/first")), Some(&first), before),
        run(&h("reports/second"), after),
    ];
    let page = html::render(&Comparison::new(runs).unwrap());
    let raw = page
        .chars()
        .find(|c| conform_io::escape::is_hostile(*c) && *c != '\n' && *c != '\t');
    assert_eq!(raw, None, "{page}");
    for field in [
        "reports/first",
        "reports/second",
        "started",
        "backend",
        "renderer",
        "version",
        "x/regressed",
        "x/changed",
        "x/new",
        "message-before",
        "message-after",
        "message-crash",
        "message-new",
        "only-before",
    ] {
        assert!(
            page.contains(&format!("{field}\\u{{202e}}")),
            "{field}: {page}"
        );
    }
}

/// Runs with different backend sets: only what changed on the backends both ran is listed;
/// a backend one run lacks is named once with its count, not as one "new" row per case.
#[test]
fn backends_only_one_run_has_are_named_once_not_listed_case_by_case() {
    let runs = vec![
        run(
            "1",
            vec![
                result("x/a", "llvmpipe", Pass),
                result("x/b", "llvmpipe", Pass),
                result("x/a", "softpipe", Fail),
            ],
        ),
        run(
            "2",
            vec![
                result("x/a", "llvmpipe", Pass),
                result("x/b", "llvmpipe", Fail),
                result("x/c", "llvmpipe", Pass),
                result("x/a", "zink", Pass),
                result("x/b", "zink", Pass),
            ],
        ),
    ];
    let cmp = Comparison::new(runs).unwrap();
    let d = cmp.overall();
    let kinds: Vec<(&str, Kind)> = d.rows.iter().map(|r| (r.case.as_str(), r.kind)).collect();
    assert_eq!(kinds, [("x/b", Kind::Regression), ("x/c", Kind::New)]);
    assert_eq!(
        d.unshared_backends(),
        [
            "backends only in run 1, not compared: softpipe (1 result)",
            "backends only in run 2, not compared: zink (2 results)"
        ]
    );
    let md = markdown::render(&cmp);
    assert!(md.contains("zink (2 results)"), "{md}");
    assert!(!md.contains("| `x/a` | `zink`"), "{md}");
}
