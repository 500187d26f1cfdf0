//! Architecture invariants that a test can hold (ARCHITECTURE.md, "Invariants"): which crate
//! and module may depend on which, and the size limit of source files. They are checked on the
//! source text, as rust-analyzer's tidy tests do, so breaking one fails `cargo test` with the
//! file and line to look at.

use std::path::{Path, PathBuf};

/// The workspace root (this crate is `harness/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

/// Every `.rs` file under `dir` (relative to the root), sorted.
fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out.sort();
    out
}

/// `file:line: text` for every line of `files` containing `needle`, outside comments.
fn mentions(files: &[PathBuf], needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if code.contains(needle) {
                hits.push(format!("{}:{}: {}", f.display(), i + 1, code));
            }
        }
    }
    hits
}

/// The `[dependencies]` / `[dev-dependencies]` / `[build-dependencies]` names of a manifest.
fn dependencies(manifest: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(manifest)).expect("manifest");
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t.ends_with("dependencies]");
            continue;
        }
        if in_deps && !t.is_empty() && !t.starts_with('#') {
            if let Some((name, _)) = t.split_once('=') {
                deps.push(name.trim().trim_end_matches(".workspace").to_string());
            }
        }
    }
    deps
}

#[test]
fn crates_depend_only_downwards() {
    let ours = [
        "conform",
        "conform-plan",
        "conform-reference",
        "conform-glrunner",
    ];
    let plan = dependencies("harness/plan/Cargo.toml");
    assert!(
        plan.iter().all(|d| !ours.contains(&d.as_str())),
        "conform-plan depends on nothing of ours: {plan:?}"
    );
    for (manifest, forbidden) in [
        ("reference/Cargo.toml", ["conform", "conform-glrunner"]),
        (
            "harness/glrunner/Cargo.toml",
            ["conform", "conform-reference"],
        ),
    ] {
        let deps = dependencies(manifest);
        for f in forbidden {
            assert!(
                !deps.iter().any(|d| d == f),
                "{manifest} must not depend on {f}: {deps:?}"
            );
        }
    }
}

#[test]
fn the_loader_knows_plans_not_backends() {
    let loader = rust_files("harness/src/case");
    let glrunner = mentions(&loader, "conform_glrunner");
    assert!(
        glrunner.is_empty(),
        "the loader checks cases against conform-plan, never the GL runner:\n{}",
        glrunner.join("\n")
    );
    let reference: Vec<String> = mentions(&loader, "conform_reference")
        .into_iter()
        .filter(|l| !l.contains("conform_reference::assemble_spirv"))
        .collect();
    assert!(
        reference.is_empty(),
        "the loader uses only the reference's SPIR-V assembler:\n{}",
        reference.join("\n")
    );
}

#[test]
fn backends_never_see_expectations_and_the_runner_never_reads_the_gate() {
    let run = vec![root().join("harness/src/run.rs")];
    for needle in ["gate::", "Baseline"] {
        let hits = mentions(&run, needle);
        assert!(
            hits.is_empty(),
            "run.rs gets CI decisions injected:\n{}",
            hits.join("\n")
        );
    }
    let hits: Vec<String> = mentions(&run, "fn run(&mut self")
        .into_iter()
        .chain(mentions(&run, "fn missing(&self"))
        .filter(|l| !l.contains("Job"))
        .collect();
    assert!(
        hits.is_empty(),
        "Executor methods take a Job, never the Case:\n{}",
        hits.join("\n")
    );
}

#[test]
fn in_the_reference_only_lib_rs_runs_programs() {
    let is_test = |p: &PathBuf| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.ends_with("tests.rs")
    };
    let front: Vec<PathBuf> = rust_files("reference/src/front")
        .into_iter()
        .filter(|p| !is_test(p))
        .collect();
    for needle in ["crate::run(", "run_ir(", "exec::run_plan", "crate::trace("] {
        let hits = mentions(&front, needle);
        assert!(
            hits.is_empty(),
            "front ends build, lib.rs runs:\n{}",
            hits.join("\n")
        );
    }
    for (dir, needles) in [
        ("reference/src/ir", &["crate::front", "crate::exec"][..]),
        ("reference/src/exec", &["crate::front"][..]),
    ] {
        for needle in needles {
            let hits = mentions(&rust_files(dir), needle);
            assert!(
                hits.is_empty(),
                "{dir} must not use {needle}:\n{}",
                hits.join("\n")
            );
        }
    }
}

#[test]
fn no_source_file_over_1500_lines() {
    let mut long = Vec::new();
    for dir in ["harness", "reference", "fuzz"] {
        for f in rust_files(dir) {
            let n = std::fs::read_to_string(&f)
                .unwrap_or_default()
                .lines()
                .count();
            if n > 1500 {
                long.push(format!("{}: {n} lines", f.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "split these by concern:\n{}",
        long.join("\n")
    );
}
