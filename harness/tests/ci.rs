//! End-to-end CI behaviour on a fake backend (no GL needed): gating with a baseline, retries
//! telling flakes from regressions, shards merging into exactly the unsharded results, and the
//! `conform merge` / `conform report` commands with their exit codes.

use conform_case::corpus::InvalidCase;
use conform_case::{self as case, Case};
use conform_gate::gate::{Baseline, Class, Gate};
use conform_judge::results::{CaseResult, Status};
use conform_judge::shard::Shard;
use conform_plan::{Outcome, RawResult, Refusal, StepOutcome};
use conform_report::ci;
use conform_run::backend::{BackendFactory, Executor, Job};
use conform_run::run::{self, RunConfig};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

/// A backend that "runs" a case by returning its initial buffers unchanged, so a case passes
/// exactly when it expects its buffer untouched. Names choose other behaviours: `crash`,
/// `hang`, `skip`, and `flaky` (fails on its first run in a backend's lifetime, then passes).
struct Fake {
    ran_flaky: Arc<Mutex<HashSet<String>>>,
}

impl Fake {
    fn new() -> Fake {
        Fake {
            ran_flaky: Arc::new(Mutex::new(HashSet::new())),
        }
    }
}

struct FakeExec {
    ran_flaky: Arc<Mutex<HashSet<String>>>,
}

impl Executor for FakeExec {
    fn missing(&self, _job: &Job) -> Option<String> {
        None
    }

    fn run(&mut self, job: &Job) -> RawResult {
        let (name, plan) = (&job.plan.case, job.plan);
        if name.contains("crash") {
            return RawResult::Crash {
                signal: Some(11),
                code: None,
                stderr_tail: "segfault in the fake driver".into(),
            };
        }
        if name.contains("hang") {
            return RawResult::Timeout {
                stderr_tail: String::new(),
            };
        }
        if name.contains("skip") {
            return RawResult::Done(Err(Refusal::Unsupported("fake extension".into())));
        }
        let mut buffers: Vec<Vec<u8>> = plan.buffers.iter().map(|b| b.bytes.clone()).collect();
        if name.contains("flaky") && self.ran_flaky.lock().unwrap().insert(name.clone()) {
            buffers[0][0] ^= 0xFF;
        }
        RawResult::Done(Ok(Outcome {
            steps: vec![
                StepOutcome {
                    error: None,
                    values: vec![],
                    applicable: true,
                };
                plan.steps.len()
            ],
            buffers,
            ..Outcome::default()
        }))
    }
}

impl BackendFactory for Fake {
    fn name(&self) -> String {
        "fake".into()
    }

    fn make(&self) -> Result<Box<dyn Executor>, String> {
        Ok(Box::new(FakeExec {
            ran_flaky: Arc::clone(&self.ran_flaky),
        }))
    }
}

fn case_text(data: u32, expect: u32) -> String {
    format!(
        "spec: [T-1]\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    void main() {{}}\nbuffers:\n  - {{name: out, binding: 0, type: u32, data: [{data}, 7]}}\nsteps:\n  - dispatch: [1, 1, 1]\nexpect:\n  - {{buffer: out, values: [{expect}, 7]}}\n"
    )
}

/// A corpus of 40 cases over two extensions: passes, failures, crashes, hangs, skips, a
/// flaky case, and one invalid file.
fn corpus(root: &Path) -> PathBuf {
    let cases = root.join("cases");
    for ext in ["ext_a", "ext_b"] {
        std::fs::create_dir_all(cases.join(ext)).unwrap();
    }
    for i in 0..36u32 {
        let ext = if i % 2 == 0 { "ext_a" } else { "ext_b" };
        let (name, text) = match i % 6 {
            0 | 1 => (format!("pass-{i:02}"), case_text(i, i)),
            2 => (format!("fail-{i:02}"), case_text(i, i + 1)),
            3 => (format!("crash-{i:02}"), case_text(i, i)),
            4 => (format!("hang-{i:02}"), case_text(i, i)),
            _ => (format!("skip-{i:02}"), case_text(i, i)),
        };
        std::fs::write(cases.join(ext).join(format!("{name}.yaml")), text).unwrap();
    }
    std::fs::write(cases.join("ext_a/flaky-1.yaml"), case_text(3, 3)).unwrap();
    std::fs::write(cases.join("ext_b/flaky-2.yaml"), case_text(4, 4)).unwrap();
    std::fs::write(cases.join("ext_b/pass-big.yaml"), case_text(9, 9)).unwrap();
    std::fs::write(cases.join("ext_b/broken.yaml"), "spec: [\n").unwrap();
    cases
}

fn load(cases: &Path) -> (Vec<Case>, Vec<InvalidCase>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for f in case::discover(&[cases.to_path_buf()]).unwrap().files {
        match case::load(&f, None) {
            Ok(c) => ok.push(c),
            Err(d) => bad.push(InvalidCase {
                path: f,
                diagnostics: d.iter().map(ToString::to_string).collect(),
            }),
        }
    }
    (ok, bad)
}

fn config(out: &Path, retries: u32) -> RunConfig {
    RunConfig {
        jobs: 3,
        out_dir: out.to_path_buf(),
        retries,
        ..RunConfig::default()
    }
}

/// Results without what legitimately differs between runs (timings), in a canonical order.
fn canonical(mut rs: Vec<CaseResult>) -> Vec<CaseResult> {
    for r in &mut rs {
        r.duration_ms = 0;
        for a in &mut r.attempts {
            a.duration_ms = 0;
        }
    }
    rs.sort_by(|a, b| (&a.backend, &a.case).cmp(&(&b.backend, &b.case)));
    rs
}

#[test]
fn shards_merged_equal_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let cases_dir = corpus(tmp.path());
    let (cases, invalid) = load(&cases_dir);
    assert_eq!(cases.len(), 39);
    assert_eq!(invalid.len(), 1);

    let whole_dir = tmp.path().join("whole");
    let fake = Fake::new();
    run::run_all(
        &cases,
        &invalid,
        &[&fake as &dyn BackendFactory],
        &config(&whole_dir, 1),
    )
    .unwrap();
    let whole = ci::read_journal(&whole_dir).unwrap();
    assert_eq!(whole.len(), 40);

    let mut dirs = Vec::new();
    let mut sizes = Vec::new();
    for i in 1..=3 {
        let shard = Shard { index: i, count: 3 };
        let prepared = ci::Prepared {
            spec: Default::default(),
            gate: Gate::default(),
            skips: Default::default(),
            shard: Some(shard),
            write_baseline: None,
            baseline_format: Default::default(),
        };
        let (mine, mine_invalid) = prepared.shard(cases.clone(), invalid.clone());
        sizes.push(mine.len() + mine_invalid.len());
        let dir = tmp.path().join(format!("shard-{i}"));
        let fake = Fake::new();
        let cfg = RunConfig {
            shard: Some(shard),
            ..config(&dir, 1)
        };
        run::run_all(&mine, &mine_invalid, &[&fake as &dyn BackendFactory], &cfg).unwrap();
        dirs.push(dir);
    }
    assert_eq!(sizes.iter().sum::<usize>(), 40);
    assert!(sizes.iter().all(|&n| (13..=14).contains(&n)), "{sizes:?}");
    let (merged, runs) = ci::merge_results(&dirs).unwrap();
    assert_eq!(
        conform_judge::record::merge_gaps(&runs),
        Vec::<String>::new()
    );
    // Two shards of three are an incomplete set.
    let (_, two) = ci::merge_results(&dirs[..2]).unwrap();
    assert_eq!(
        conform_judge::record::merge_gaps(&two),
        ["incomplete shard set: missing shard(s) 3/3"]
    );
    let (merged, whole) = (canonical(merged), canonical(whole));
    assert_eq!(merged.len(), whole.len());
    for (m, w) in merged.iter().zip(&whole) {
        assert_eq!(m, w);
    }
    // Every kind of result is in there, so the equality means something.
    let statuses: HashSet<Status> = whole.iter().map(|r| r.status).collect();
    for s in [
        Status::Pass,
        Status::Fail,
        Status::Crash,
        Status::Timeout,
        Status::Skip,
        Status::Invalid,
    ] {
        assert!(statuses.contains(&s), "{s:?}");
    }
    // A shard merged twice is an overlap, not a silent double count.
    let err = ci::merge_results(&[dirs[0].clone(), dirs[0].clone()]).unwrap_err();
    assert!(err.contains("appear in more than one directory"), "{err}");
}

#[test]
fn retries_baseline_and_exit_codes_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let cases_dir = corpus(tmp.path());
    let (cases, _) = load(&cases_dir);
    let out = tmp.path().join("run");
    let fake = Fake::new();
    let mut cfg = config(&out, 2);
    // A failure the baseline lists with its status is not retried; one listed with another
    // status is.
    let baseline = Baseline::parse(
        Path::new("b.txt"),
        "fake,ext_a/fail-08,fail\nfake,ext_a/fail-14,crash\n",
    )
    .unwrap();
    cfg.expected_failure = Box::new(move |b, c, s| baseline.known(b, c, s));
    let results = run::run_all(&cases, &[], &[&fake as &dyn BackendFactory], &cfg)
        .unwrap()
        .results;
    let attempts = |n: &str| results.iter().find(|r| r.case == n).unwrap().attempts.len();
    assert_eq!(attempts("ext_a/fail-08"), 0);
    assert_eq!(attempts("ext_a/fail-14"), 2);
    let by_name = |n: &str| results.iter().find(|r| r.case == n).unwrap();
    // The flaky case failed once, then passed: one attempt recorded, final pass.
    let flaky = by_name("ext_a/flaky-1");
    assert_eq!(flaky.status, Status::Pass);
    assert_eq!(flaky.attempts.len(), 1);
    assert_eq!(flaky.attempts[0].status, Status::Fail);
    // A real failure failed all three attempts and carries its evidence.
    let fail = by_name("ext_a/fail-02");
    assert_eq!(fail.attempts.len(), 2);
    let ev = fail.evidence.as_ref().unwrap();
    assert_eq!(ev.memory[0].expected[0].as_deref(), Some("3"));
    assert_eq!(ev.memory[0].actual[0], "2");
    assert_eq!(ev.memory[0].differs, [0]);
    assert!(by_name("ext_a/pass-00").evidence.is_none());
    // The journal holds the attempts too.
    let journal = ci::read_journal(&out).unwrap();
    assert_eq!(
        journal
            .iter()
            .find(|r| r.case == "ext_a/flaky-1")
            .unwrap()
            .attempts
            .len(),
        1
    );

    let gated = Gate::default().apply(results.clone());
    assert_eq!(gated.exit_code(), 1);
    let flaky_class = gated
        .iter()
        .find(|(r, _, _)| r.case == "ext_a/flaky-1")
        .unwrap()
        .1;
    assert_eq!(flaky_class, Class::Flake);

    // Every failure listed in a baseline: exit 0. Remove one entry: exit 1 naming it.
    let baseline_text = gated.baseline_text("test", conform_gate::gate::BaselineFormat::Deqp);
    let gate = Gate {
        baseline: Baseline::parse(Path::new("b.txt"), &baseline_text).unwrap(),
        ..Gate::default()
    };
    assert_eq!(gate.apply(results.clone()).exit_code(), 0);
    let planted: String = baseline_text
        .lines()
        .filter(|l| !l.contains("ext_b/crash-09"))
        .map(|l| format!("{l}\n"))
        .collect();
    let gate = Gate {
        baseline: Baseline::parse(Path::new("b.txt"), &planted).unwrap(),
        ..Gate::default()
    };
    let gated = gate.apply(results);
    assert_eq!(gated.exit_code(), 1);
    let blocking: Vec<&str> = gated
        .blocking()
        .iter()
        .map(|(r, _, _)| r.case.as_str())
        .collect();
    assert_eq!(blocking, ["ext_b/crash-09"]);
}

#[test]
fn skips_file_keeps_cases_from_running() {
    let tmp = tempfile::tempdir().unwrap();
    let cases_dir = corpus(tmp.path());
    let (cases, _) = load(&cases_dir);
    let skips_path = tmp.path().join("skips.txt");
    std::fs::write(
        &skips_path,
        "# hangs the fake driver
fake,ext_a/hang-.*
other,.*
",
    )
    .unwrap();
    let mut cfg = config(&tmp.path().join("run"), 0);
    let skips = conform_gate::gate::Patterns::load(&skips_path).unwrap();
    cfg.skipped_by = Box::new(move |b, c| skips.find(b, c).map(|e| e.origin.clone()));
    let fake = Fake::new();
    let results = run::run_all(&cases, &[], &[&fake as &dyn BackendFactory], &cfg)
        .unwrap()
        .results;
    let hangs: Vec<&CaseResult> = results
        .iter()
        .filter(|r| r.case.contains("/hang-"))
        .collect();
    assert_eq!(hangs.len(), 6);
    for r in hangs {
        assert_eq!(r.status, Status::Skip, "{}", r.case);
        assert_eq!(r.message, format!("skipped by {}:2", skips_path.display()));
    }
    // Only the named backend's entries apply: nothing else was skipped by the file.
    assert!(results
        .iter()
        .filter(|r| r.message.starts_with("skipped by"))
        .all(|r| r.case.contains("/hang-")));
    assert!(results.iter().any(|r| r.status == Status::Crash));
}

#[test]
fn merge_and_report_commands_gate_and_write_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let cases_dir = corpus(tmp.path());
    let (cases, _) = load(&cases_dir);
    let mut dirs = Vec::new();
    for i in 1..=2 {
        let prepared = ci::Prepared {
            spec: Default::default(),
            gate: Gate::default(),
            skips: Default::default(),
            shard: Some(Shard { index: i, count: 2 }),
            write_baseline: None,
            baseline_format: Default::default(),
        };
        let (mine, _) = prepared.shard(cases.clone(), vec![]);
        let dir = tmp.path().join(format!("s{i}"));
        let fake = Fake::new();
        run::run_all(
            &mine,
            &[],
            &[&fake as &dyn BackendFactory],
            &config(&dir, 0),
        )
        .unwrap();
        dirs.push(dir);
    }
    let exe = env!("CARGO_BIN_EXE_conform");
    let baseline = tmp.path().join("baseline.txt");
    // Without a baseline every failure is a regression: exit 1, and the run writes a
    // baseline from its failures.
    let out = Command::new(exe)
        .arg("merge")
        .args(&dirs)
        .arg("--out")
        .arg(tmp.path().join("m1"))
        .arg("--write-baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("REGRESSION (fail) ext_a/fail-02 [fake]: "),
        "{stdout}"
    );
    for f in [
        "results.jsonl",
        "junit.xml",
        "junit-fake.xml",
        "summary.md",
        "report.html",
        "gating.json",
    ] {
        assert!(tmp.path().join("m1").join(f).is_file(), "{f}");
    }
    // With that baseline: exit 0.
    let out = Command::new(exe)
        .arg("merge")
        .args(&dirs)
        .arg("--out")
        .arg(tmp.path().join("m2"))
        .arg("--baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Drop one line from the baseline: exit 1, naming exactly that case.
    let text = std::fs::read_to_string(&baseline).unwrap();
    let planted: String = text
        .lines()
        .filter(|l| !l.contains("ext_a/hang-"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&baseline, planted).unwrap();
    let out = Command::new(exe)
        .arg("report")
        .arg(tmp.path().join("m2"))
        .arg("--baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let named: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("REGRESSION "))
        .collect();
    assert_eq!(named.len(), 6, "{stdout}");
    assert!(named.iter().all(|l| l.contains("ext_a/hang-")), "{named:?}");
    let summary = std::fs::read_to_string(tmp.path().join("m2/summary.md")).unwrap();
    assert!(summary.contains("#### Regressions: 6"), "{summary}");
    // `report` without flags reuses the run's own gating.json (the full baseline of m2).
    let out = Command::new(exe)
        .arg("report")
        .arg(tmp.path().join("m2"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "gating.json was rewritten by the last report"
    );
    // A malformed baseline is reported at file:line and exits 2.
    std::fs::write(&baseline, "fake,x/y\n").unwrap();
    let out = Command::new(exe)
        .arg("report")
        .arg(tmp.path().join("m2"))
        .arg("--baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:1: unknown status `x/y`", baseline.display()))
            && stderr.contains("`backend,case,status`"),
        "{stderr}"
    );
}

const NVASM_CASE: &str = r#"spec: [T-1]
program:
  language: nvasm
  source: |
    !!NVcp5.0
    OPTION NV_shader_storage_buffer;
    GROUP_SIZE 4 2;
    STORAGE out[] = { program.storage[0] };
    TEMP r, a;
    MAD.U a.x, invocation.globalid.y, 8, invocation.globalid.x;
    MUL.U a.x, a.x, 4;
    MAD.U r.x, invocation.globalid.y, 1000, invocation.globalid.x;
    STB.U32 r.x, out[a.x];
    END
buffers:
  - {name: out, binding: 0, type: u32, data: {fill: 0xDEADBEEF, count: 16}}
steps:
  - dispatch: [2, 1, 1]
expect:
  - {buffer: out, at: 0, values: {series: {start: 0, step: 1}, count: 8}}
  - {buffer: out, at: 8, values: {series: {start: START, step: 1}, count: 8}}
"#;

/// `conform run` on the reference interpreter, through the binary: a planted regression
/// exits 1 and is named; listed in a baseline it exits 0.
#[test]
fn run_on_the_reference_gates_a_planted_regression() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cases/e2e");
    std::fs::create_dir_all(&dir).unwrap();
    // The tree's own catalogue, as a user's case tree has: without it the loader would look for
    // one further up (Catalogue::find), and a stray clauses.yaml above TMPDIR would be used.
    std::fs::write(
        tmp.path().join("cases/clauses.yaml"),
        "TEST_extension:\n  - {id: T-1, kind: exec, text: \"a clause for test cases\"}\n",
    )
    .unwrap();
    std::fs::write(dir.join("right.yaml"), NVASM_CASE.replace("START", "1000")).unwrap();
    std::fs::write(dir.join("wrong.yaml"), NVASM_CASE.replace("START", "1001")).unwrap();
    let exe = env!("CARGO_BIN_EXE_conform");
    let run = |out: &str, extra: &[&str]| {
        Command::new(exe)
            .arg("run")
            .arg(tmp.path().join("cases"))
            .args(["--backend", "reference", "--retry", "1", "--out"])
            .arg(tmp.path().join(out))
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run("r1", &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let named: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("REGRESSION "))
        .collect();
    assert_eq!(named.len(), 1, "{stdout}");
    assert!(
        named[0].starts_with("REGRESSION (fail) e2e/wrong [reference]: buffer `out`"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(tmp.path().join("r1/report.html")).unwrap();
    assert!(
        html.contains(
            "<span class=\"bad\" title=\"[8] expected 1001 (0x3E9), actual 1000 (0x3E8)\">"
        ),
        "{html}"
    );
    let baseline = tmp.path().join("baseline.txt");
    std::fs::write(&baseline, "# planted\nreference,e2e/wrong,fail\n").unwrap();
    let out = run("r2", &["--baseline", baseline.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let summary = std::fs::read_to_string(tmp.path().join("r2/summary.md")).unwrap();
    assert!(
        summary.contains("| reference | 0 | 0 | 0 | 0 | 1 | 1 | 0 | 0 |"),
        "{summary}"
    );
}

/// `--max-fails N` stops the run once more than N unexpected failures are in: what was not
/// started is missing, the record says why, and expected failures do not count.
#[test]
fn max_fails_stops_the_run_and_leaves_it_incomplete() {
    let tmp = tempfile::tempdir().unwrap();
    let cases_dir = corpus(tmp.path());
    let (cases, _) = load(&cases_dir);
    let out = tmp.path().join("run");
    let fake = Fake::new();
    let cfg = RunConfig {
        jobs: 1,
        max_fails: Some(2),
        ..config(&out, 0)
    };
    let output = run::run_all(&cases, &[], &[&fake as &dyn BackendFactory], &cfg).unwrap();
    let failing = |rs: &[CaseResult]| {
        rs.iter()
            .filter(|r| matches!(r.status, Status::Fail | Status::Crash | Status::Timeout))
            .count()
    };
    // One job: the third unexpected failure is the last result.
    assert_eq!(failing(&output.results), 3, "{:?}", output.results);
    assert!(output.results.len() < cases.len());
    assert_eq!(
        output.record.state,
        conform_judge::record::RunState::MaxFails
    );
    let gaps = conform_judge::record::gaps(&out, Some(&output.record), output.results.len());
    assert!(gaps.iter().any(|g| g.contains("--max-fails")), "{gaps:?}");

    // The same run with every failure expected goes to the end.
    let out = tmp.path().join("expected");
    let cfg = RunConfig {
        jobs: 1,
        max_fails: Some(0),
        expected_failure: Box::new(|_, _, _| conform_judge::policy::Known::Expected),
        ..config(&out, 0)
    };
    let output = run::run_all(&cases, &[], &[&fake as &dyn BackendFactory], &cfg).unwrap();
    assert_eq!(output.results.len(), cases.len());
    assert_eq!(
        output.record.state,
        conform_judge::record::RunState::Complete
    );
}
