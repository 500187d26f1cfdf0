//! Tests of the whole importer: conversions of small tests, the golden files under
//! harness/tests/data/import (every command and every skip reason), and mangled input.
//!
//! The goldens are rewritten with `CONFORM_BLESS=1` (or `BLESS=1`, as the loader's are).

use super::*;
use quickcheck::{quickcheck, TestResult};
use std::path::{Path, PathBuf};

fn names() -> Names {
    Names {
        base: "piglit/t".into(),
        label: "t.shader_test".into(),
    }
}

/// The YAML of each run that converted, and the skip of each that did not.
fn runs(text: &str) -> Vec<Result<String, Skip>> {
    match convert_text(text, &names()) {
        FileOutcome::Test(runs) => runs
            .into_iter()
            .map(|(run, yaml)| run.result.map(|_| yaml.unwrap_or_default()))
            .collect(),
        other => panic!("not a test: {other:?}"),
    }
}

fn yaml(text: &str) -> String {
    match runs(text).remove(0) {
        Ok(y) => y,
        Err(s) => panic!("skipped: {}", s.describe()),
    }
}

fn skip(text: &str) -> String {
    match runs(text).remove(0) {
        Ok(y) => panic!("converted:\n{y}"),
        Err(s) => s.kind,
    }
}

/// Asserts that the YAML holds each of `wants`.
fn assert_has(yaml: &str, wants: &[&str]) {
    for want in wants {
        assert!(yaml.contains(want), "missing:\n{want}\nin:\n{yaml}");
    }
}

const HEAD: &str = "[require]\nGL >= 4.3\nGLSL >= 4.30\n[compute shader]\n#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}\n[test]\n";

fn with_test(lines: &str) -> String {
    format!("{HEAD}{lines}")
}

#[test]
fn compute_is_wrapped_in_all_barriers() {
    let y = yaml(&with_test("compute 3 2 1\n"));
    assert_has(&y, &["steps:\n  # t.shader_test:9: compute 3 2 1\n  - barrier: [all]\n  - dispatch: [3, 2, 1]\n  - barrier: [all]\n"]);
}

#[test]
fn buffers_are_declared_zeroed_and_probes_placed() {
    let y = yaml(&with_test(
        "ssbo 1 6\nssbo 0 8\nprobe ssbo uint 0 4 == 0\ncompute 1 1 1\nprobe ssbo int 0 0 < 0\n",
    ));
    assert_has(
        &y,
        &[
            "  - {name: ssbo1, binding: 1, type: u8, size: 6}\n",
            "  - {name: ssbo0, binding: 0, size: 8}\n",
            "  - expect:\n      # t.shader_test:11: probe ssbo uint 0 4 == 0\n      - {buffer: ssbo0, at: 1, type: u32, values: [0]}\n",
            "expect:\n  # t.shader_test:13: probe ssbo int 0 0 < 0\n  - {buffer: ssbo0, at: 0, type: i32, compare: {op: \"<\", values: [0]}}\n",
        ],
    );
}

#[test]
fn a_buffer_made_again_with_its_size_is_zeroed_in_place() {
    let y = yaml(&with_test(
        "ssbo 0 8\natomic counter buffer 2 1\ncompute 1 1 1\nssbo 0 8\natomic counter buffer 2 1\ncompute 1 1 1\n",
    ));
    assert_has(
        &y,
        &[
            "  - {name: ssbo0, binding: 0, size: 8}\n",
            "  # t.shader_test:12: ssbo 0 8\n  - write: {buffer: ssbo0, offset: 0, type: u8, data: {fill: 0, count: 8}}\n",
            "  # t.shader_test:13: atomic counter buffer 2 1\n  - write: {buffer: atomic2, offset: 0, type: u8, data: {fill: 0, count: 4}}\n",
        ],
    );
    assert_eq!(
        skip(&with_test("ssbo 0 8\ncompute 1 1 1\nssbo 0 16\n")),
        "a buffer created again with another size"
    );
    assert_eq!(
        skip(&with_test("atomic counters 1\natomic counters 2\n")),
        "a buffer created again with another size"
    );
    assert_eq!(
        skip(&with_test("compute 1 1 1\nssbo 0 8\n")),
        "a buffer created after a dispatch"
    );
}

#[test]
fn not_equal_means_not_equal() {
    let y = yaml(&with_test(
        "ssbo 0 4\ncompute 1 1 1\nprobe ssbo uint 0 0 != 5\n",
    ));
    assert_has(&y, &["compare: {op: \"!=\", values: [5]}"]);
}

#[test]
fn float_equality_is_within_dbl_epsilon() {
    let y = yaml(&with_test(
        "ssbo 0 16\ncompute 1 1 1\nprobe ssbo float 0 0 == 0.1\nprobe ssbo double 0 8 >= -2\n",
    ));
    assert_has(
        &y,
        &["type: f32, values: [0.1], tolerance: {abs: 2.2204460492503128e-16}"],
    );
    assert_has(&y, &["type: f64, compare: {op: \">=\", values: [-2.0]}"]);
    let below = steps::float_equal_tolerance();
    assert!(below < f64::EPSILON && f64::from_bits(below.to_bits() + 1) == f64::EPSILON);
}

#[test]
fn writes_uniforms_queries_and_barriers() {
    let y = yaml(&with_test(
        "ssbo 0 16\nssbo 0 subdata float 4 0.5\natomic counters 1\natomic counter 0 0 3\nuniform mat2x3 m 1 2 3 4 5 6\nuniform int 2 -1\nverify program_query GL_ACTIVE_UNIFORMS 2\nmemory barrier GL_COMMAND_BARRIER_BIT\n",
    ));
    assert_has(
        &y,
        &[
            "  - write: {buffer: ssbo0, offset: 4, type: f32, data: [0.5]}\n",
            "  - write: {buffer: atomic0, offset: 0, type: u32, data: [3]}\n",
            "  - uniform: {name: m, type: f32mat2x3, value: [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}\n",
            "  - uniform: {location: 2, type: i32, value: -1}\n",
            "  - program_query: {pname: ACTIVE_UNIFORMS}\n    equals: 2\n",
            "  - barrier: [command]\n",
            "  - {name: atomic0, binding: 0, kind: atomic_counter, size: 4}\n",
        ],
    );
}

#[test]
fn link_outcomes() {
    let y = yaml(&with_test("link success\n"));
    assert!(y.ends_with("steps: []\n# t.shader_test:9: link success  (conform checks that every case's program builds)\n"), "{y}");
    let y = yaml(&with_test("link error\n"));
    assert_has(
        &y,
        &["# t.shader_test:9: link error\nfails: {at: link}\nsteps: []\n"],
    );
    assert_eq!(
        skip(&with_test("link error\ncompute 1 1 1\n")),
        "link error with commands that run"
    );
}

#[test]
fn version_is_prepended_from_the_requirement() {
    let es = "[require]\nGL ES >= 3.1\nGLSL ES >= 3.10\n[compute shader]\nlayout(local_size_x = 1) in;\nvoid main() {}\n[test]\ncompute 1 1 1\n";
    let y = yaml(es);
    assert_has(
        &y,
        &[
            "requires:\n  gles: \"3.1\"\n",
            "  source: |\n    #version 310 es\n    layout",
        ],
    );
    let desktop = es.replace("GL ES >= 3.1\nGLSL ES >= 3.10", "GL >= 4.3\nGLSL >= 4.50");
    assert!(yaml(&desktop).contains("    #version 450\n    layout"));
}

#[test]
fn spirv_yes_gives_two_runs() {
    let text = "[require]\nSPIRV YES\nGLSL >= 4.50\n[compute shader spirv]\n# note\n  OpCapability Shader\n[compute shader specializations]\nfloat 1 2.0\n[compute shader]\n#version 450\nvoid main() {}\n[test]\nlink success\n";
    let r = runs(text);
    assert_eq!(r.len(), 2);
    let glsl = r[0].as_ref().unwrap();
    let spirv = r[1].as_ref().unwrap();
    assert!(glsl.contains("name: piglit/t--1\n") && glsl.contains("language: glsl"));
    assert!(spirv.contains("name: piglit/t--2\n") && spirv.contains("language: spirv-asm"));
    assert!(
        spirv.contains("    ; note\n      OpCapability Shader\n"),
        "{spirv}"
    );
    assert!(
        spirv.contains("  specialization: {1: 1073741824}\n"),
        "{spirv}"
    );
}

#[test]
fn drawing_state_is_left_out_and_reported() {
    // A clear of the window framebuffer: no probe reads it.
    let text = with_test("clear color 1 0 0 1\nclear\ncompute 1 1 1\n");
    match convert_text(&text, &names()) {
        FileOutcome::Test(r) => {
            let c = r[0].0.result.as_ref().unwrap();
            assert_eq!(c.left_out.len(), 1);
            let report = TestReport::from_runs("t".into(), &[r[0].0.clone()]);
            assert_eq!(report.status, Status::Partly);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn skip_reasons_name_the_line() {
    let text = with_test("compute 1 1 1\nfrobnicate 3\n");
    match runs(&text).remove(0) {
        Err(s) => assert_eq!(s.describe(), "unknown command: 'frobnicate 3' (line 10)"),
        Ok(y) => panic!("{y}"),
    }
    assert_eq!(skip(&with_test("texture rgbw 1D 0\n")), command::DRAW);
}

#[test]
fn other_files_are_not_compute_tests() {
    assert_eq!(
        convert_text("[require]\n[fragment shader]\n", &names()),
        FileOutcome::NotCompute
    );
    assert!(matches!(
        convert_text("[compute shader]\n", &names()),
        FileOutcome::Malformed(_)
    ));
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/import")
}

/// Every file under `dir`, relative, sorted.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The import of tests/data/import/piglit equals tests/data/import/expected (cases and
/// summary, the input path written as $INPUT).
#[test]
fn golden_import() {
    let input = data_dir().join("piglit");
    let expected = data_dir().join("expected");
    let out = tempfile::tempdir().unwrap();
    let summary = convert_paths(std::slice::from_ref(&input), out.path()).unwrap();
    let json_path = out.path().join(SUMMARY_FILE);
    let json = std::fs::read_to_string(&json_path).unwrap();
    std::fs::write(
        &json_path,
        json.replace(&input.display().to_string(), "$INPUT"),
    )
    .unwrap();
    let bless = std::env::var_os("CONFORM_BLESS").is_some() || std::env::var_os("BLESS").is_some();
    if bless {
        let _ = std::fs::remove_dir_all(&expected);
        for rel in tree(out.path()) {
            let to = expected.join(&rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(out.path().join(&rel), to).unwrap();
        }
    }
    assert_eq!(
        tree(out.path()),
        tree(&expected),
        "files differ; CONFORM_BLESS=1 rewrites"
    );
    for rel in tree(&expected) {
        let got = std::fs::read_to_string(out.path().join(&rel)).unwrap();
        let want = std::fs::read_to_string(expected.join(&rel)).unwrap();
        assert!(
            got == want,
            "{} differs; CONFORM_BLESS=1 rewrites",
            rel.display()
        );
    }
    // The broken files are reported one by one and the rest still converted.
    let t = summary.totals();
    assert!(
        t.errors >= 9 && t.converted >= 13 && t.skipped >= 60,
        "{t:?}"
    );
    assert_eq!(t.not_compute, 1);
    for test in summary.tests.iter().filter(|t| t.status == Status::Error) {
        assert!(test.path.contains("/broken/"), "{}", test.path);
        assert!(
            test.details.iter().all(|d| d.contains(".shader_test")),
            "{:?}",
            test.details
        );
    }
}

/// What the case loader says about the cases under `dir` (nothing, when they all load).
fn loader_complaints(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for f in conform_case::discover(&[dir.to_path_buf()]).unwrap().files {
        if let Err(diags) = conform_case::load(&f, None) {
            out.extend(diags.into_iter().map(|d| d.to_string()));
        }
    }
    out
}

/// Every golden case loads, v2 keys (notes/format-v2.md) included.
#[test]
fn golden_cases_load() {
    let complaints = loader_complaints(&data_dir().join("expected"));
    assert!(complaints.is_empty(), "{complaints:#?}");
}

/// Text built from a valid test with lines dropped, duplicated, swapped or cut, and bytes
/// changed: conversion never panics and what it writes reads back as YAML.
fn mangle(seed: Vec<(u8, u8, char)>) -> String {
    let base = std::fs::read_to_string(data_dir().join("piglit/commands/ssbo-probes.shader_test"))
        .unwrap_or_default();
    let mut lines: Vec<String> = base.lines().map(String::from).collect();
    for (op, at, c) in seed {
        if lines.is_empty() {
            break;
        }
        let i = at as usize % lines.len();
        match op % 6 {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                let j = (i + 1) % lines.len();
                lines.swap(i, j);
            }
            3 => {
                let cut = lines[i].len() / 2;
                let cut = (0..=cut)
                    .rev()
                    .find(|&k| lines[i].is_char_boundary(k))
                    .unwrap_or(0);
                lines[i].truncate(cut);
            }
            4 => lines[i].push(c),
            _ => lines[i].insert(0, c),
        }
    }
    lines.join("\n")
}

quickcheck! {
    fn mangled_tests_never_panic(seed: Vec<(u8, u8, char)>) -> TestResult {
        let text = mangle(seed);
        if let FileOutcome::Test(runs) = convert_text(&text, &names()) {
            for (_, yaml) in runs {
                if let Some(y) = yaml {
                    if serde_yaml_ng::from_str::<serde_yaml_ng::Value>(&y).is_err() {
                        return TestResult::error(format!("bad YAML:\n{y}"));
                    }
                }
            }
        }
        TestResult::passed()
    }

    fn arbitrary_text_never_panics(text: String) -> bool {
        let _ = convert_text(&format!("[compute shader]\n{text}"), &names());
        let _ = convert_text(&format!("{HEAD}{text}"), &names());
        true
    }
}

/// Imports a piglit checkout named by CONFORM_PIGLIT_SPEC into CONFORM_PIGLIT_OUT, prints
/// the summary (the figures of docs/IMPORT.md) and checks that every case it wrote loads:
/// `cargo test -p conform --lib import::piglit::tests::piglit_tree -- --ignored --nocapture`.
#[test]
#[ignore]
fn piglit_tree() {
    let spec = std::env::var("CONFORM_PIGLIT_SPEC").unwrap_or("/work/piglit/tests/spec".into());
    let out = std::env::var("CONFORM_PIGLIT_OUT").unwrap_or("/tmp/piglit-import".into());
    let summary = convert_paths(&[PathBuf::from(spec)], Path::new(&out)).unwrap();
    print!("{summary}");
    let complaints = loader_complaints(Path::new(&out));
    assert!(complaints.is_empty(), "{complaints:#?}");
}
