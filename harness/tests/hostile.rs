//! Hostile input and interrupted runs, end to end through the `conform` binary (issue 14).
//!
//! `tests/data/hostile/` holds one case per hostile input that can be committed; what cannot
//! (FIFOs, symlinks to /dev/zero and /dev/urandom, symlink loops, an 8 GiB sparse file, a file
//! named with a line break, a 100k-deep document, files outside the case root) is made here
//! in a temporary directory. Every input must end in a diagnostic or a result within a bound,
//! with no abort, no panic, and nothing read from outside its case root. Then runs are
//! killed, interrupted, left empty, given an absent backend or merged from an incomplete
//! shard set, and none of them may exit 0. docs/RELIABILITY.md records the figures.

#[path = "hostile/round3.rs"]
mod round3;
#[path = "hostile/round4.rs"]
mod round4;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_conform");
/// Written outside the case root (and in a .git directory inside it): no report may hold it.
const SECRET: &str = "CONFORM-SECRET-2f1e9c";

/// What a finished `conform` command did.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
    /// Peak resident memory of the conform process itself (VmHWM, polled), in KiB.
    peak_kib: u64,
}

impl Ran {
    fn text(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn spawn(args: &[&str], cwd: &Path) -> Child {
    Command::new(EXE)
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("conform starts")
}

/// Waits for `child` (at most `limit`, then kills it and fails), draining its output and
/// polling its peak memory.
fn finish(mut child: Child, limit: Duration) -> Ran {
    let start = Instant::now();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let mut peak = 0;
    let status = loop {
        if let Some(k) = vm_hwm_kib(child.id()) {
            peak = peak.max(k);
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("conform ran past {limit:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    use std::os::unix::process::ExitStatusExt;
    assert!(
        status.signal().is_none(),
        "conform died of signal {:?}",
        status.signal()
    );
    Ran {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
        took: start.elapsed(),
        peak_kib: peak,
    }
}

fn conform(args: &[&str], cwd: &Path) -> Ran {
    finish(spawn(args, cwd), Duration::from_secs(60))
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: c is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

const GLSL: &str = "program:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    layout(std430, binding = 0) buffer Out { uint v[]; };\n    void main() { v[0] = 1u; }\nbuffers: [{name: out, binding: 0, data: [0]}]\n";

fn with_file(path: &str) -> String {
    format!(
        "spec: [T-EXEC]\nprogram: {{language: glsl, file: \"{path}\"}}\nbuffers: [{{name: out, binding: 0, data: [0]}}]\n"
    )
}

/// `tmp/cases/hostile`: the committed hostile cases plus the ones only a test can make; the
/// secret lies outside it. Returns the root and the number of case files in it.
fn hostile_root(tmp: &Path) -> (PathBuf, usize) {
    let cases = tmp.join("cases");
    let root = cases.join("hostile");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::copy("tests/data/clauses.yaml", cases.join("clauses.yaml")).unwrap();
    let mut n = 0;
    for e in std::fs::read_dir("tests/data/hostile").unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, root.join(p.file_name().unwrap())).unwrap();
        n += 1;
    }
    std::fs::write(tmp.join("secret.txt"), format!("{SECRET}\n")).unwrap();
    let w = |name: &str, text: String| std::fs::write(root.join(name), text).unwrap();
    // Not regular files, as cases and as program files.
    mkfifo(&root.join("fifo.yaml"));
    symlink("/dev/zero", root.join("dev-zero.yaml"));
    symlink("/dev/urandom", root.join("rand.comp"));
    mkfifo(&root.join("pipe.comp"));
    w("program-urandom.yaml", with_file("rand.comp"));
    w("program-fifo.yaml", with_file("pipe.comp"));
    // 8 GiB, sparse.
    let huge = std::fs::File::create(root.join("huge.yaml")).unwrap();
    huge.set_len(8 << 30).unwrap();
    // Outside the root through symlinks, and a .git directory inside it.
    symlink("../../secret.txt", root.join("secret.comp"));
    w("program-symlink-out.yaml", with_file("secret.comp"));
    symlink("../../secret.txt", root.join("case-symlink-out.yaml"));
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), format!("token = {SECRET}\n")).unwrap();
    w("program-git-config.yaml", with_file(".git/config"));
    // Two symlink loops.
    std::fs::create_dir_all(root.join("loop-a")).unwrap();
    symlink("..", root.join("loop-a/back"));
    std::fs::create_dir_all(root.join("loop-b/deeper")).unwrap();
    symlink("../..", root.join("loop-b/deeper/up"));
    w(
        "loop-b/deeper/inside-loop.yaml",
        format!("spec: [T-EXEC]\n{GLSL}"),
    );
    // A 100k-deep document, and a case name with a line break and a quick action.
    w(
        "yaml-deep.yaml",
        format!(
            "spec: [T-EXEC]\nbuffers: {}0{}\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        ),
    );
    // (A directory named `nl\n`: a file name cannot hold the `/`.)
    std::fs::create_dir_all(root.join("nl\n")).unwrap();
    w("nl\n/merge @all.yaml", "spec: [\n".into());
    n += 11;
    (root, n)
}

#[test]
fn hostile_inputs_end_in_a_diagnostic_or_a_result_and_read_nothing_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, files) = hostile_root(tmp.path());
    let root_s = root.to_str().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));

    let v = conform(&["validate", root_s], here);
    let t = v.text();
    assert_eq!(v.code, Some(2), "{t}");
    assert!(
        v.took < Duration::from_secs(20),
        "validate took {:?}",
        v.took
    );
    assert!(
        !t.contains("panicked") && !t.contains('\x1b') && !t.contains(SECRET),
        "{t}"
    );
    // Each file once (the loops list nothing twice), each loop reported once.
    assert!(
        t.contains(&format!("7 valid, {} invalid", files - 7)),
        "{t}"
    );
    assert_eq!(t.matches("symlink loop").count(), 2, "{t}");
    for (file, says) in [
        ("fifo.yaml", "is a FIFO (named pipe), not a regular file"),
        (
            "dev-zero.yaml",
            "resolves to /dev/zero, outside the case root",
        ),
        (
            "huge.yaml",
            "file is 8589934592 bytes, above the 4194304 byte limit",
        ),
        (
            "program-urandom.yaml:2:",
            "resolves to /dev/urandom (through a symlink)",
        ),
        ("program-fifo.yaml:2:", "is a FIFO"),
        (
            "program-symlink-out.yaml:2:",
            "(through a symlink), outside the case root",
        ),
        ("case-symlink-out.yaml", "outside the case root"),
        ("program-git-config.yaml:2:", "is inside a .git directory"),
        (
            "yaml-deep.yaml:2:",
            "nests more than 32 lists and maps deep",
        ),
        (
            "nl\\n/merge @all.yaml:2:1:",
            "did not find expected node content",
        ),
        ("yaml-bom.yaml:1:1:", "byte order mark"),
        ("yaml-billion-laughs.yaml:8:", "aliases expanded"),
        (
            "range-at-overflow.yaml:11:",
            "elements 18446744073709551615..18446744073709551616",
        ),
        (
            "work-dispatch-65535x65535.yaml:11:",
            "above its limit of 1048576",
        ),
        ("work-step-budget-max.yaml:10:", "step_budget must be 1..="),
        ("work-schedules-max.yaml:10:", "schedules must be 1..=16"),
        (
            "size-random-f64x4-8gib.yaml:10:",
            "this data is 8589934592 bytes",
        ),
        (
            "size-twelve-8gib-buffers.yaml:11:",
            "this data is 8589934592 bytes",
        ),
        (
            "size-expectation-8gib.yaml:11:",
            "this data is 8589934592 bytes",
        ),
        (
            "size-permutation-huge.yaml:11:",
            "this data is 4294967296 bytes",
        ),
        ("size-buffer-size-8gib.yaml:10:", "size 8589934592 is above"),
        (
            "size-reference-memory.yaml:10:",
            "the reference would keep 570425344 bytes",
        ),
        (
            "file-dotdot-passwd.yaml:3:",
            "leads out of its directory tree",
        ),
        ("file-absolute-passwd.yaml:3:", "is an absolute path"),
        ("file-git-config.yaml:3:", "leads out of its directory tree"),
        (
            "name-control-characters.yaml:2:",
            "case name `x\\x1b[2J\\x1b[H\\rREGRESSION",
        ),
    ] {
        let line = t
            .lines()
            .find(|l| l.contains(&format!("hostile/{file}")))
            .unwrap_or_else(|| panic!("no diagnostic for {file}:\n{t}"));
        assert!(line.contains(says), "{file}: {line}");
    }

    // Unconfined, the reader itself refuses devices (and reads what the user allowed).
    let v = conform(&["validate", "--allow-outside-root", root_s], here);
    let t = v.text();
    assert_eq!(v.code, Some(2), "{t}");
    for file in ["dev-zero.yaml", "program-urandom.yaml:2:"] {
        let line = t
            .lines()
            .find(|l| l.contains(&format!("hostile/{file}")))
            .unwrap_or_else(|| panic!("no diagnostic for {file}:\n{t}"));
        assert!(
            line.contains("is a character device, not a regular file"),
            "{line}"
        );
    }

    // Gating files that are not regular files are refused before anything runs.
    for flag in ["--baseline", "--flakes", "--skips"] {
        let r = conform(
            &["run", root_s, "--backend", "reference", flag, "/dev/zero"],
            here,
        );
        assert_eq!(r.code, Some(2), "{flag}: {}", r.text());
        assert!(
            r.text().contains("/dev/zero: is a character device"),
            "{}",
            r.text()
        );
    }
    let fifo = root.join("pipe.comp");
    let r = conform(&["run", root_s, "--baseline", fifo.to_str().unwrap()], here);
    assert_eq!(r.code, Some(2), "{}", r.text());

    // The run: every case ends in a result; the hostile ones cost themselves only.
    let out = tmp.path().join("out");
    let r = conform(
        &[
            "run",
            root_s,
            "--backend",
            "reference",
            "--timeout",
            "1s",
            "--out",
            out.to_str().unwrap(),
        ],
        here,
    );
    let t = r.text();
    assert_eq!(r.code, Some(1), "{t}");
    assert!(r.took < Duration::from_secs(30), "run took {:?}", r.took);
    assert!(
        !t.contains("panicked") && !t.contains('\x1b') && !t.contains(SECRET),
        "{t}"
    );
    assert!(
        r.peak_kib < 256 << 10,
        "the harness peaked at {} KiB",
        r.peak_kib
    );
    let journal = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let results: Vec<serde_json::Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let status = |case: &str| {
        let case = format!("hostile/{case}");
        results
            .iter()
            .find(|r| r["case"] == case.as_str() && r["backend"] == "reference")
            .map(|r| r["status"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("no result for {case}"))
    };
    assert_eq!(status("ok-pass"), "pass");
    assert_eq!(status("loop-b/deeper/inside-loop"), "pass");
    assert_eq!(status("work-loop-200k"), "timeout");
    // The 1 GB of private memory aborts the worker, or zeroing it outlasts the limit.
    assert!(
        ["crash", "timeout"].contains(&status("work-private-memory-oom").as_str()),
        "{journal}"
    );
    assert_eq!(status("glsl-define-chain"), "fail");
    assert_eq!(status("glsl-nested-structs"), "fail");
    assert!(journal.contains("macro expansion too large"));
    assert!(journal.contains("struct S10 is too large"));
    let invalid = results.iter().filter(|r| r["status"] == "invalid").count();
    assert_eq!(invalid, files - 7, "{journal}");
    // Nothing from outside the root, in any file the run wrote.
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        assert!(!text.contains(SECRET), "{} holds the secret", p.display());
        assert!(
            !text.contains("root:x:0:0"),
            "{} holds /etc/passwd",
            p.display()
        );
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        !html.contains("<script>alert(1)"),
        "raw script in report.html"
    );
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for line in md.lines() {
        let l = line.trim_start();
        assert!(!l.starts_with('/') && !l.starts_with('@'), "{line:?}\n{md}");
    }
    assert!(
        md.contains("`` hostile/md `x` <script>alert(1)</script> @all |"),
        "{md}"
    );
}

/// Quick cases a-00.. (ahead of a case that hangs until the time limit, `m-hang`) and z-00..
/// after it, in `tmp/kcases`.
fn kill_corpus(tmp: &Path, quick: usize) -> PathBuf {
    let dir = tmp.join("kcases");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("tests/data/clauses.yaml", dir.join("clauses.yaml")).unwrap();
    for i in 0..quick {
        let case = format!("spec: [T-EXEC]\n{GLSL}expect: [{{buffer: out, values: [1]}}]\n");
        std::fs::write(dir.join(format!("a-{i:02}.yaml")), &case).unwrap();
        std::fs::write(dir.join(format!("z-{i:02}.yaml")), &case).unwrap();
    }
    let hang = "spec: [T-EXEC]\nreference: {schedules: 1, step_budget: 17179869184}\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    layout(std430, binding = 0) buffer Out { uint v[]; };\n    void main() { for (;;) { v[0] += 1u; } }\nbuffers: [{name: out, binding: 0, data: [0]}]\nexpect: [{buffer: out, count: 1, undefined: true}]\nundefined: endless loop\n";
    std::fs::write(dir.join("m-hang.yaml"), hang).unwrap();
    dir
}

/// The results in a journal that parse (what `report` must count).
fn journal_results(dir: &Path) -> usize {
    let Ok(bytes) = std::fs::read(dir.join("results.jsonl")) else {
        return 0;
    };
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| serde_json::from_slice::<serde_json::Value>(l).is_ok())
        .count()
}

fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn run_args<'a>(cases: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        cases,
        "--backend",
        "reference",
        "-j",
        "1",
        "--timeout",
        "4s",
        "--out",
        out,
    ]
}

#[test]
fn a_run_killed_at_random_points_reports_incomplete_with_exactly_what_finished() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = kill_corpus(tmp.path(), 12);
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    // SplitMix64 from fixed seeds: the kill points are random but the same every run.
    for seed in [1u64, 2, 3] {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let delay = Duration::from_millis(20 + (z ^ (z >> 31)) % 1200);
        let out = tmp.path().join(format!("killed-{seed}"));
        let mut child = spawn(
            &run_args(cases.to_str().unwrap(), out.to_str().unwrap()),
            here,
        );
        wait_for("run.json", Duration::from_secs(30), || {
            out.join("run.json").exists()
        });
        std::thread::sleep(delay);
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its kill"
        );
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let finished = journal_results(&out);
        let r = conform(&["report", out.to_str().unwrap()], here);
        let t = r.text();
        assert_eq!(r.code, Some(3), "seed {seed}: {t}");
        assert!(
            t.contains(&format!("{finished} of 25 result(s) recorded (incomplete)")),
            "seed {seed}, {finished} finished: {t}"
        );
        assert!(t.contains("the run was killed"), "{t}");
        let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
        assert!(summary.contains("incomplete"), "{summary}");
    }
}

#[test]
fn sigterm_finishes_the_reports_and_a_second_run_cannot_share_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = kill_corpus(tmp.path(), 6);
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tmp.path().join("run");
    let (cases_s, out_s) = (cases.to_str().unwrap(), out.to_str().unwrap());
    let child = spawn(&run_args(cases_s, out_s), here);
    // The quick a-* cases are done: the hang runs.
    wait_for("the quick cases", Duration::from_secs(30), || {
        journal_results(&out) == 6
    });
    let second = conform(&run_args(cases_s, out_s), here);
    assert_eq!(second.code, Some(2), "{}", second.text());
    assert!(second
        .text()
        .contains("another conform process is writing to"));
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let r = finish(child, Duration::from_secs(10));
    let t = r.text();
    assert_eq!(r.code, Some(3), "{t}");
    assert!(
        t.contains("INCOMPLETE: the run was interrupted by a signal"),
        "{t}"
    );
    for f in ["junit.xml", "summary.md", "report.html", "run.json"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        journal_results(&out),
        6,
        "the hang, cut short, is not a result"
    );
    let record = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(record.contains("\"state\": \"interrupted\""), "{record}");
    // deqp-runner's Missing: every planned result that never came, in results.csv and
    // failures.csv, from the run and again from `report`.
    let missing = |file: &str| {
        std::fs::read_to_string(out.join(file))
            .unwrap()
            .lines()
            // results.csv has `name,Missing,0.000`, failures.csv `name,Missing`.
            .filter(|l| l.split(',').nth(1) == Some("Missing"))
            .count()
    };
    assert_eq!((missing("results.csv"), missing("failures.csv")), (7, 7));
    let rep = conform(&["report", out_s], here);
    assert_eq!(rep.code, Some(3), "{}", rep.text());
    assert!(rep
        .text()
        .contains("6 of 13 result(s) recorded (incomplete)"));
    assert_eq!((missing("results.csv"), missing("failures.csv")), (7, 7));
}

#[test]
fn empty_absent_partial_and_incomplete_shard_runs_are_not_passed() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("q");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::copy("tests/data/clauses.yaml", cases.join("clauses.yaml")).unwrap();
    for i in 0..6 {
        std::fs::write(
            cases.join(format!("q-{i}.yaml")),
            format!("spec: [T-EXEC]\n{GLSL}expect: [{{buffer: out, values: [1]}}]\n"),
        )
        .unwrap();
    }
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let c = cases.to_str().unwrap();
    let dir = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    let code = |args: &[&str]| conform(args, here);

    let r = code(&[
        "run",
        c,
        "--backend",
        "reference",
        "--filter",
        "matches-nothing",
        "--out",
        &dir("empty"),
    ]);
    assert_eq!(r.code, Some(3), "{}", r.text());
    assert!(r.text().contains("nothing was selected"));

    let drivers = code(&["drivers"]).text();
    if drivers.contains("nvidia: absent") {
        let r = code(&["run", c, "--backend", "nvidia", "--out", &dir("absent")]);
        assert_eq!(r.code, Some(3), "{}", r.text());
        assert!(r
            .text()
            .contains("backend nvidia was asked for but could not run"));
    }

    for i in 1..=2 {
        let s = format!("{i}/2");
        let r = code(&[
            "run",
            c,
            "--backend",
            "reference",
            "--shard",
            &s,
            "--no-gate",
            "--out",
            &dir(&format!("s{i}")),
        ]);
        assert_eq!(r.code, Some(0), "{}", r.text());
    }
    let r = code(&["merge", &dir("s1"), "--out", &dir("m1")]);
    assert_eq!(r.code, Some(3), "{}", r.text());
    assert!(r
        .text()
        .contains("incomplete shard set: missing shard(s) 2/2"));
    let r = code(&["merge", &dir("s1"), &dir("s2"), "--out", &dir("m2")]);
    assert_eq!(r.code, Some(0), "{}", r.text());
    assert_eq!(code(&["report", &dir("m2")]).code, Some(0));

    // A shard journal cut short, its last line torn inside a UTF-8 character.
    let journal = tmp.path().join("s2/results.jsonl");
    let text = std::fs::read(&journal).unwrap();
    let first = text.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut cut = text[..first].to_vec();
    cut.extend_from_slice(b"{\"case\":\"\xC3");
    std::fs::write(&journal, cut).unwrap();
    let r = code(&["merge", &dir("s1"), &dir("s2"), "--out", &dir("m3")]);
    let t = r.text();
    assert_eq!(r.code, Some(3), "{t}");
    assert!(t.contains("the last of them cut short"), "{t}");
    assert!(t.contains("results the run set out to write"), "{t}");

    // A journal without its run record.
    std::fs::remove_file(tmp.path().join("s1/run.json")).unwrap();
    let r = code(&["report", &dir("s1")]);
    assert_eq!(r.code, Some(3), "{}", r.text());
    assert!(r.text().contains("no run record"));
}
