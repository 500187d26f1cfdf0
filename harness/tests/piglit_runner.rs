//! `conform piglit-runner run` as Mesa's piglit-runner.sh calls it: a piglit folder with a
//! profile, several skips files after one flag, results named as piglit-runner names them,
//! and a failures.csv line appended to the fails file matched on the next run. The driver
//! is the reference (`--backend`), so the test needs no GPU or Mesa.

use std::path::{Path, PathBuf};
use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_conform");

fn data(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import/piglit")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A piglit folder: four shader tests under tests/spec/ext/execution (one of them wrong:
/// its probe expects 43 where the program stores 42), and a `quick_shader` profile that
/// lists them with a C test.
fn piglit_folder(root: &Path) -> PathBuf {
    let folder = root.join("piglit");
    let dir = folder.join("tests/spec/ext/execution");
    std::fs::create_dir_all(&dir).unwrap();
    let probes = data("commands/ssbo-probes.shader_test");
    let wrong = probes.replacen("probe ssbo int 0 4 == 42", "probe ssbo int 0 4 == 43", 1);
    assert_ne!(wrong, probes);
    let files = [
        ("probes", probes),
        ("wrong", wrong),
        ("spirv-yes", data("commands/spirv-yes.shader_test")),
        ("fragment-only", data("other/fragment-only.shader_test")),
    ];
    let mut xml = String::from("<?xml version='1.0' encoding='utf-8'?>\n<PiglitTestList count=\"5\" name=\"quick_shader\">");
    for (name, text) in &files {
        std::fs::write(dir.join(format!("{name}.shader_test")), text).unwrap();
        xml.push_str(&format!(
            "<Test type=\"shader\" name=\"spec@ext@execution@{name}\"><option name=\"command\" value=\"['shader_runner', 'tests/spec/ext/execution/{name}.shader_test']\" /><option name=\"run_concurrent\" value=\"True\" /></Test>"
        ));
    }
    xml.push_str("<Test type=\"gl\" name=\"spec@!opengl 3.0@some-c-test\"><option name=\"command\" value=\"['some-c-test']\" /></Test></PiglitTestList>\n");
    std::fs::write(folder.join("tests/quick_shader.xml"), xml).unwrap();
    folder
}

fn run(exe: &Path, args: &[&str], out: &Path) -> (i32, String) {
    let o = Command::new(exe)
        .args(args)
        .env_remove("GALLIUM_DRIVER")
        .env_remove("MESA_LOADER_DRIVER_OVERRIDE")
        .output()
        .unwrap();
    let results = std::fs::read_to_string(out.join("results.csv")).unwrap_or_else(|_| {
        panic!(
            "no results.csv\n{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code().unwrap_or(-1), results)
}

#[test]
fn mesa_s_piglit_runner_call_runs_and_its_failures_go_back_into_the_fails_file() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = piglit_folder(tmp.path());
    let skips_a = tmp.path().join("all-skips.txt");
    let skips_b = tmp.path().join("llvmpipe-skips.txt");
    let flakes = tmp.path().join("llvmpipe-flakes.txt");
    std::fs::write(
        &skips_a,
        "# nothing of ours\nspec@!opengl 1.1@windowoverlap\n",
    )
    .unwrap();
    std::fs::write(&skips_b, "spec@arb_compute_shader@local-id-explosion\n").unwrap();
    std::fs::write(&flakes, "").unwrap();
    let out = tmp.path().join("results");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let mut args: Vec<String> = [
        "piglit-runner",
        "run",
        "--piglit-folder",
        &s(&folder),
        "--output",
        &s(&out),
        "--jobs",
        "1",
        "--skips",
        &s(&skips_a),
        &s(&skips_b),
        &s(&skips_b),
        "--flakes",
        &s(&flakes),
        "--profile",
        "quick_shader",
        "--process-isolation",
        "--backend",
        "reference",
        "-v",
        "-v",
    ]
    .map(String::from)
    .to_vec();
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, results) = run(Path::new(EXE), &argv, &out);
    // piglit-runner's names; the SPIR-V run of the SPIRV YES test only (shader_runner's
    // default), no GLSL copy; nothing for the fragment test or the C test.
    let names: Vec<(&str, &str)> = results
        .lines()
        .map(|l| {
            let mut f = l.split(',');
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    assert_eq!(
        names,
        [
            ("spec@ext@execution@probes", "Pass"),
            ("spec@ext@execution@spirv-yes", "Pass"),
            ("spec@ext@execution@wrong", "Fail"),
        ],
        "{results}"
    );
    assert_eq!(code, 1, "a regression");
    let failures = std::fs::read_to_string(out.join("failures.csv")).unwrap();
    assert_eq!(failures, "spec@ext@execution@wrong,Fail\n");

    // The failures.csv line appended to a fails file (Mesa's form) is matched next time,
    // through a link named piglit-runner, as Mesa's script calls it.
    let fails = tmp.path().join("llvmpipe-fails.txt");
    std::fs::write(&fails, format!("# known\nspec@a@b,Crash\n{failures}")).unwrap();
    let link = tmp.path().join("piglit-runner");
    std::os::unix::fs::symlink(EXE, &link).unwrap();
    args.remove(0);
    // An output directory that holds a run is refused (nothing of it replaced).
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = Command::new(&link).args(&argv).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already holds the results"));
    assert!(out.join("imported/import-summary.json").exists());
    let out = tmp.path().join("results-2");
    let at = args.iter().position(|a| a == "--output").unwrap();
    args[at + 1] = s(&out);
    args.extend(["--baseline".to_string(), s(&fails)]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, results) = run(&link, &argv, &out);
    assert!(
        results.contains("spec@ext@execution@wrong,ExpectedFail,"),
        "{results}"
    );
    assert_eq!(code, 0, "{results}");
    assert_eq!(
        std::fs::read_to_string(out.join("failures.csv")).unwrap(),
        ""
    );
}

#[test]
fn piglit_runner_s_own_refusals() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = piglit_folder(tmp.path());
    let out = tmp.path().join("o");
    let call = |extra: &[&str]| {
        let mut c = Command::new(EXE);
        c.args(["piglit-runner", "run", "--output"])
            .arg(&out)
            .arg("--piglit-folder")
            .arg(&folder)
            .args(extra)
            .env_remove("GALLIUM_DRIVER")
            .env_remove("MESA_LOADER_DRIVER_OVERRIDE");
        let o = c.output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, err) = call(&["--profile", "quick_shader"]);
    assert_eq!(code, 2);
    assert!(err.contains("set GALLIUM_DRIVER"), "{err}");
    let (code, err) = call(&["--profile", "quick_gl", "--backend", "reference"]);
    assert_eq!(code, 2);
    assert!(err.contains("profile quick_gl not found"), "{err}");
    let (code, err) = call(&[
        "--profile",
        "quick_shader",
        "--backend",
        "reference",
        "--fraction",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--fraction must be >= 1"), "{err}");
}
