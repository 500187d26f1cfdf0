//! End-to-end tests of the `conform` binary: exit codes, diagnostics, the journal and JUnit
//! files, and crash/hang isolation on real Mesa drivers (skipped, with a message, on a
//! machine without them; only in `self-test` builds, which have the crash and hang triggers).

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::{conform, text};

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
        t.contains("REGRESSION (crash) b-crash [llvmpipe]: worker killed by signal 6 in step 1: api action conform_test_abort"),
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
    assert!(t.contains("errors:             11"), "{t}");
    let written = out.path().join("piglit/commands/ssbo-probes.yaml").exists();
    assert!(written, "{t}");
    let summary = std::fs::read_to_string(out.path().join("import-summary.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(json["totals"]["errors"], 11, "{summary}");
    assert!(
        json["totals"]["converted"].as_u64().unwrap() > 0,
        "{summary}"
    );
}

/// Runs conform with its stdout a pipe whose reader is already gone: every write fails with
/// EPIPE, as under `conform ... | head -1` once head has exited.
fn conform_into_closed_pipe(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("conform runs");
    drop(child.stdout.take());
    child.wait_with_output().expect("conform ends")
}

#[test]
fn a_closed_pipe_ends_listing_commands_quietly() {
    for args in [
        &["list", "../cases"][..],
        &["golden", "../cases"],
        &["coverage", "../cases"],
        &["show", "tests/data/deqp/pass.yaml"],
    ] {
        let o = conform_into_closed_pipe(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| {
            // The duration varies: keep name and status.
            let mut f: Vec<&str> = l.split(',').collect();
            f.truncate(2);
            f.join(",")
        })
        .collect()
}

/// A CI job run the deqp-runner way: the first run writes results.csv and failures.csv; its
/// failures.csv, as the next run's --baseline, turns the failure into an expected one; a
/// hand-written deqp-runner baseline (`name,Fail`, any capitalisation) does the same; and
/// `conform junit` reads the results.csv back.
#[test]
fn a_deqp_runner_baseline_round_trips() {
    let tmp = tempfile::tempdir().unwrap();
    let first = tmp.path().join("first");
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "run",
            "tests/data/deqp",
            "--backend",
            "reference",
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        conform(&args)
    };
    let o = run(&first, &[]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert_eq!(
        lines_of(&first.join("results.csv")),
        ["reference/pass,Pass", "reference/wrong,Fail"]
    );
    assert_eq!(
        lines_of(&first.join("failures.csv")),
        ["reference/wrong,Fail"]
    );
    // The one end-of-run table counts what results.csv holds; the failure is printed once
    // in full (its headline not repeated as a detail).
    assert!(
        t.contains("reference       1    1     0       0    0     0          0            0                     0       0     2"),
        "{t}"
    );
    assert_eq!(
        t.matches("[3] expected 99 (0x63), actual 13").count(),
        1,
        "{t}"
    );
    assert_eq!(t.matches("1 of 4 elements differ").count(), 2, "{t}");
    assert!(t.contains("reference [2/2] FAIL     wrong ("), "{t}");
    assert_eq!(
        t.matches("REGRESSION (fail) wrong [reference]").count(),
        1,
        "{t}"
    );

    let second = tmp.path().join("second");
    let failures = first.join("failures.csv");
    let o = run(&second, &["--baseline", failures.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        lines_of(&second.join("results.csv")),
        ["reference/pass,Pass", "reference/wrong,ExpectedFail"]
    );
    assert_eq!(
        std::fs::read_to_string(second.join("failures.csv")).unwrap(),
        ""
    );

    let baseline = tmp.path().join("fails.txt");
    std::fs::write(&baseline, "# Mesa CI style\nwrong,FAIL\n").unwrap();
    let flakes = tmp.path().join("flakes.txt");
    std::fs::write(&flakes, "# bare regexes\nnever-matches\n").unwrap();
    let third = tmp.path().join("third");
    let o = run(
        &third,
        &[
            "--baseline",
            baseline.to_str().unwrap(),
            "--flakes",
            flakes.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let o = conform(&["junit", second.join("results.csv").to_str().unwrap()]);
    let xml = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        xml.contains(
            "<testsuite name=\"reference\" tests=\"2\" skipped=\"1\" errors=\"0\" failures=\"0\""
        ),
        "{xml}"
    );

    // A merge read by nobody still gates, quietly.
    let merged = tmp.path().join("merged");
    let o = conform_into_closed_pipe(&[
        "merge",
        second.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        lines_of(&merged.join("results.csv")),
        ["reference/pass,Pass", "reference/wrong,ExpectedFail"]
    );
}

/// `--format json` prints one JSON document a script can read, with what the text shows.
#[test]
fn data_commands_print_json_for_scripts() {
    let json = |args: &[&str]| -> serde_json::Value {
        let o = conform(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    };
    let list = json(&["list", "tests/data/deqp", "--format", "json"]);
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["pass", "wrong"]);
    assert_eq!(list[0]["spec"][0], "T-EXEC");
    let cov = json(&["coverage", "tests/data/deqp", "--format", "json"]);
    assert_eq!(cov["cases_by_clause"]["T-EXEC"][1], "wrong", "{cov}");
    let show = json(&["show", "wrong", "tests/data/deqp", "--format", "json"]);
    assert_eq!(show["plan"]["buffers"][0]["name"], "out", "{show}");
    assert!(show["text"].as_str().unwrap().contains("expect"), "{show}");
}

/// `conform drivers` lists every EGL device with the drivers reachable on it; a hardware
/// driver named on a machine without its device makes the run incomplete (exit 3), named.
/// (On this project's machines there is only Mesa's software device; a GPU machine lists its
/// render nodes too, which no test here can check.)
#[test]
fn drivers_lists_egl_devices_and_an_absent_hardware_driver_is_a_gap() {
    let o = conform(&["drivers", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Every Vulkan driver is listed, present or not, under its backend name.
    let vulkan: Vec<&str> = v["vulkan"]
        .as_array()
        .expect("a vulkan list")
        .iter()
        .filter_map(|d| d["backend"].as_str())
        .collect();
    assert_eq!(
        vulkan,
        ["vk:lavapipe", "vk:radv", "vk:anv", "vk:nvidia"],
        "{v}"
    );
    let Some(devices) = v["devices"].as_array() else {
        eprintln!("skipping: no EGL devices here ({})", v["devices"]);
        return;
    };
    if let Some(sw) = devices.iter().find(|d| d["software"] == true) {
        let t = text(&conform(&["drivers"]));
        assert!(t.starts_with("EGL devices:\n"), "{t}");
        assert!(
            t.contains(&format!(
                "  {}: Mesa's software device\n    drivers: llvmpipe, softpipe, zink\n",
                sw["index"]
            )),
            "{t}"
        );
    }
    let has_amd = devices
        .iter()
        .any(|d| d["kernel_driver"] == "amdgpu" || d["kernel_driver"] == "radeon");
    if has_amd {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = conform(&[
        "run",
        "tests/data/deqp/pass.yaml",
        "--backend",
        "radeonsi",
        "--out",
        tmp.path().join("hw").to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(3), "{t}");
    assert!(
        t.contains("INCOMPLETE: backend radeonsi was asked for but could not run: no EGL device for radeonsi"),
        "{t}"
    );
}

/// `conform debug` runs one case in its own process (for gdb, rr, valgrind) and exits 1 on a
/// failure, on the reference and, where the machine has it, on llvmpipe.
#[test]
fn debug_runs_one_case_in_process() {
    let o = conform(&[
        "debug",
        "wrong",
        "tests/data/deqp",
        "--backend",
        "reference",
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL wrong [reference]: buffer `out`"), "{t}");
    assert!(t.contains("[3] expected 99 (0x63), actual 13"), "{t}");
    let drivers = text(&conform(&["drivers"]));
    if !drivers.contains("\nllvmpipe: llvmpipe") {
        eprintln!("skipping the llvmpipe half: no llvmpipe here");
        return;
    }
    let o = conform(&["debug", "pass", "tests/data/deqp", "--backend", "llvmpipe"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("running pass on llvmpipe in this process (pid "),
        "{t}"
    );
    assert!(t.contains("PASS pass [llvmpipe]\n"), "{t}");
}

/// Shell completions and man pages come from the same clap definition as the CLI.
#[test]
fn completions_and_man_pages_are_generated_from_the_cli() {
    for shell in ["bash", "zsh", "fish"] {
        let o = conform(&["completions", shell]);
        let t = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", text(&o));
        assert!(t.contains("write-baseline"), "{shell}: {t}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = conform(&["man", "--out", tmp.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let run = std::fs::read_to_string(tmp.path().join("conform-run.1")).unwrap();
    assert!(run.contains(".TH conform-run 1"), "{run}");
    assert!(run.contains("heartbeat"), "{run}");
    // The SYNOPSIS is what a person types: `conform run`, not the page's name.
    let synopsis = run.split(".SH SYNOPSIS\n").nth(1).unwrap_or_default();
    assert!(synopsis.starts_with("\\fBconform run\\fR "), "{run}");
    assert!(synopsis.contains("allow\\-outside\\-root"), "{run}");
    // --allow-outside-root only where cases are loaded.
    for page in ["conform-drivers.1", "conform-man.1", "conform-merge.1"] {
        let text = std::fs::read_to_string(tmp.path().join(page)).unwrap();
        assert!(!text.contains("outside\\-root"), "{page}: {text}");
    }
    assert!(tmp.path().join("conform.1").exists());
    assert!(
        !tmp.path().join("conform-worker.1").exists(),
        "hidden commands get no page"
    );
}

#[test]
fn litmus_prints_a_histogram_per_test_and_refuses_unknown_fences() {
    let out = std::env::temp_dir().join(format!("conform-cli-litmus-{}", std::process::id()));
    let o = conform(&[
        "litmus",
        "--backend",
        "reference",
        "--lang",
        "nvasm",
        "--shape",
        "mp,sb",
        "--scope",
        "workgroup",
        "--fence",
        "membar-cta-bar",
        "--instances",
        "4",
        "--iterations",
        "1",
        "--dispatches",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    // A memory-ordering control barrier leaves one outcome per shape (docs/FUZZING.md).
    let table = std::fs::read_to_string(out.join("histograms.md")).unwrap();
    assert_eq!(
        table,
        "| test | backend | instances | outcomes (count) |\n|---|---|---|---|\n\
         | mp-workgroup-membar-cta-bar-nvasm | reference | 8 | (0,1,1,1) 8 |\n\
         | sb-workgroup-membar-cta-bar-nvasm | reference | 8 | (1,1,1,1) 8 |\n"
    );
    assert!(t.contains(&table), "{t}");
    let o = conform(&["litmus", "--backend", "reference", "--fence", "mfence"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains("--fence mfence: the fences are nofence, memorybarrier"),
        "{t}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// `--renderer-check`/`--version-check` that do not match stop the run before any case, exit
/// 2, and leave no results behind; an absent driver fails them too.
#[test]
fn a_version_or_renderer_check_that_does_not_match_runs_nothing_and_exits_2() {
    let out = tempfile::tempdir().unwrap();
    for (flag, backend) in [
        ("--version-check", "llvmpipe"),
        ("--renderer-check", "llvmpipe"),
        // Absent on every machine (no such render node): the check cannot hold either.
        ("--version-check", "egl:renderD4000"),
    ] {
        let dir = out.path().join(flag.trim_start_matches('-'));
        let o = conform(&[
            "run",
            "tests/data/deqp/pass.yaml",
            "--backend",
            &format!("reference,{backend}"),
            flag,
            "^no driver is called this$",
            "--out",
            dir.to_str().unwrap(),
        ]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{t}");
        assert!(t.contains("nothing was run"), "{t}");
        assert!(t.contains(backend), "{t}");
        assert!(!dir.join("results.jsonl").exists(), "{t}");
    }
}

/// A matching check runs; every result and report says which build produced it.
#[test]
fn results_and_reports_name_the_driver_build() {
    if !have_driver("llvmpipe") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("run");
    let o = conform(&[
        "run",
        "tests/data/deqp/pass.yaml",
        "--backend",
        "reference,llvmpipe",
        "--renderer-check",
        "llvmpipe",
        "--version-check",
        "Mesa",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let llvmpipe = &record["identities"]["llvmpipe"];
    let version = llvmpipe["version"].as_str().unwrap();
    assert!(version.contains("Mesa"), "{record}");
    let mesa = llvmpipe["mesa_version"].as_str().unwrap();
    assert!(version.contains(mesa), "{record}");
    assert!(
        llvmpipe["libraries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("libEGL_mesa")),
        "{record}"
    );
    assert_eq!(
        record["identities"]["reference"]["renderer"],
        "reference interpreter"
    );
    for line in journal(&dir) {
        let driver = line["driver"].as_str().unwrap_or("");
        match line["backend"].as_str().unwrap() {
            "llvmpipe" => assert!(
                driver.starts_with("llvmpipe") && driver.contains(mesa),
                "{line}"
            ),
            "reference" => assert!(driver.starts_with("reference interpreter"), "{line}"),
            other => panic!("unexpected backend {other}"),
        }
    }
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("| llvmpipe | llvmpipe"), "{summary}");
    assert!(summary.contains(version), "{summary}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<section id=\"drivers\">"), "{html}");
    assert!(html.contains(mesa), "{html}");
    let junit = std::fs::read_to_string(dir.join("junit-llvmpipe.xml")).unwrap();
    assert!(junit.contains("name=\"driver.mesa_version\""), "{junit}");
    let diff = std::fs::read_to_string(dir.join("differential.md")).unwrap();
    assert!(diff.contains(version), "{diff}");
}

/// A backend's install prefix that holds no Mesa is an error before anything runs.
#[test]
fn a_driver_at_a_prefix_without_mesa_is_refused() {
    let empty = tempfile::tempdir().unwrap();
    let o = conform(&[
        "run",
        "tests/data/deqp/pass.yaml",
        "--backend",
        &format!("llvmpipe@{}", empty.path().display()),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("no libEGL_mesa.so.0"), "{t}");
    let o = conform(&[
        "run",
        "tests/data/deqp/pass.yaml",
        "--backend",
        "nvidia@/opt/x",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("only Mesa's drivers"), "{}", text(&o));
}

/// `--allow-outside-root` belongs to the commands that load cases, not to every command.
#[test]
fn allow_outside_root_is_an_option_of_the_commands_that_load_cases() {
    let o = conform(&["drivers", "--allow-outside-root"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = conform(&["validate", "tests/data/deqp", "--allow-outside-root"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = conform(&["show", "pass", "tests/data/deqp", "--allow-outside-root"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Outside a checkout, `show NAME` says that the default `cases` is not there and what to
/// give instead; a bare file name or a typo gets the case names it may mean.
#[test]
fn show_says_where_it_looked_and_suggests_case_names() {
    let elsewhere = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(["show", "atoms-iwrap-edges"])
        .current_dir(elsewhere.path())
        .output()
        .expect("conform runs");
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("error: no directory `cases` in "), "{t}");
    assert!(
        t.contains("(`conform show atoms-iwrap-edges path/to/cases`)"),
        "{t}"
    );
    assert!(!t.contains("no such file"), "{t}");
    for name in ["atoms-iwrap-edges", "nv_compute_program5/atoms-iwrap-egdes"] {
        let o = conform(&["show", name, "../cases"]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{t}");
        assert!(
            t.contains(&format!("error: no case named `{name}` under ../cases\n")),
            "{t}"
        );
        assert!(
            t.contains("hint: did you mean `nv_compute_program5/atoms-iwrap-edges`?"),
            "{t}"
        );
    }
}

/// A misspelt backend names the backend it may mean.
#[test]
fn a_backend_typo_gets_a_suggestion() {
    let o = conform(&["run", "tests/data/mixed", "--backend", "reference,llvmpip"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("unknown backend `llvmpip`"), "{t}");
    assert!(t.contains("did you mean `llvmpipe`?"), "{t}");
}

/// One's own cases (no clauses.yaml above them) run without a warning on every command;
/// `validate`, whose job is checking, says once that clause ids are not checked.
#[test]
fn the_missing_catalogue_is_mentioned_by_validate_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mine.yaml"),
        "spec: [MINE-1]\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    \
         layout(local_size_x = 1) in;\n    void main() {}\n",
    )
    .unwrap();
    let d = dir.path().to_str().unwrap();
    for args in [vec!["list", d], vec!["show", "mine", d], vec!["golden", d]] {
        let o = conform(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
        assert!(!text(&o).contains("clauses.yaml"), "{args:?}: {}", text(&o));
    }
    let o = conform(&["validate", d]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert_eq!(t.matches("no clauses.yaml found above").count(), 1, "{t}");
}
