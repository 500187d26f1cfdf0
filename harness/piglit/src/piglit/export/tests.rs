//! The round trip: every case of the corpus that exports gives, imported back, a case with
//! the same plan and the same checks of every element it states; and the share of the GLSL
//! and SPIR-V corpora that exports.

use super::*;
use crate::piglit::{convert_text, FileOutcome, Names};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A buffer as the test knows it: atomic counters or storage, and its binding.
type BufferKey = (bool, u32);

/// What a case does, normalised so that an exported-then-imported case compares equal to
/// its original: the initial buffers, the sequence of uniform loads, writes and dispatches,
/// and the check of every stated scalar keyed by buffer, byte offset and how many events ran
/// before it was read.
#[derive(Debug, PartialEq)]
struct Shape {
    programs: Vec<(Language, String)>,
    buffers: BTreeMap<BufferKey, Vec<u8>>,
    events: Vec<String>,
    checks: BTreeMap<(BufferKey, usize, usize), std::collections::BTreeSet<String>>,
    extensions: std::collections::BTreeSet<String>,
    link_error: bool,
}

fn key(case: &Case, i: usize) -> BufferKey {
    let b = &case.plan.buffers[i];
    (matches!(b.kind, BufferKind::AtomicCounter), b.binding)
}

/// Differences that are not differences: shader_runner puts `glMemoryBarrier(GL_ALL_BARRIER_BITS)`
/// around every dispatch, which orders at least as much as any barrier of the case, so
/// barriers are left out of the comparison; and writes before anything else runs are the
/// buffers' initial contents (the importer writes a zeroed buffer, the case initialises it).
fn shape(case: &Case) -> Shape {
    let plan = &case.plan;
    let mut buffers: BTreeMap<BufferKey, Vec<u8>> = (0..plan.buffers.len())
        .map(|i| (key(case, i), plan.buffers[i].bytes.clone()))
        .collect();
    let mut started = false;
    let mut events = Vec::new();
    for u in &plan.uniforms {
        events.push(format!(
            "uniform {:?} {:?}",
            UniformTarget::Name(u.name.clone()),
            u.bytes
        ));
    }
    // Events run before each snapshot index, and before the end.
    let mut before_snapshot = Vec::new();
    for s in &plan.steps {
        match s {
            Step::Snapshot => before_snapshot.push(events.len()),
            Step::Uniform(set) => {
                events.push(format!("uniform {:?} {:?}", set.target, set.bytes));
            }
            Step::MemoryBarrier { .. } => {}
            Step::WriteBuffer {
                buffer,
                offset,
                bytes,
            } if !started && events.is_empty() => {
                let b = buffers
                    .get_mut(&key(case, *buffer))
                    .expect("a case's buffer");
                let at = *offset as usize;
                b[at..at + bytes.len()].copy_from_slice(bytes);
            }
            Step::WriteBuffer {
                buffer,
                offset,
                bytes,
            } => {
                // Word by word: the export writes words, the importer may merge them.
                for (k, w) in bytes.chunks(4).enumerate() {
                    events.push(format!(
                        "write {:?} {} {w:?}",
                        key(case, *buffer),
                        *offset as usize + 4 * k
                    ));
                }
            }
            other => {
                started = true;
                events.push(format!("{other:?}"))
            }
        }
    }
    let end = events.len();
    let mut checks: BTreeMap<_, std::collections::BTreeSet<String>> = BTreeMap::new();
    for e in &case.expect {
        let when = e.at_snapshot.map_or(end, |s| before_snapshot[s.index]);
        let (op, bytes, tol) = match &e.check {
            Check::Exact(b) => ("exact".to_string(), b, None),
            Check::Compare(op, b) => (op.symbol().to_string(), b, None),
            // Exported as its interval: `>=` the lowest and `<=` the highest accepted value.
            Check::Within(b, t) if matches!(e.elem.scalar, Scalar::F32 | Scalar::F64) => {
                ("within".to_string(), b, Some(*t))
            }
            _ => continue,
        };
        let size = e.elem.scalar.size();
        if size < 4 {
            continue;
        }
        let start = e.at as usize * e.elem.size();
        for (k, c) in bytes.chunks_exact(size).enumerate() {
            let float = matches!(e.elem.scalar, Scalar::F32 | Scalar::F64);
            let nan = float
                && if size == 4 {
                    f32::from_le_bytes(c.try_into().unwrap()).is_nan()
                } else {
                    f64::from_le_bytes(c.try_into().unwrap()).is_nan()
                };
            if nan && (op == "exact" || op == "within") {
                continue; // any NaN: left out by the export (no shader_runner probe tests it)
            }
            let at = (key(case, e.buffer), start + k * size, when);
            if let Some(t) = tol {
                let (lo, hi) = conform_judge::checks::tolerance_bounds(c, e.elem.scalar, t)
                    .expect("a float that is not a NaN");
                let entry = checks.entry(at).or_default();
                entry.insert(format!(">= float {lo:?}"));
                entry.insert(format!("<= float {hi:?}"));
                continue;
            }
            let value = if op == "exact" {
                format!("{c:?}")
            } else if float {
                let v = if size == 4 {
                    f32::from_le_bytes(c.try_into().unwrap()) as f64
                } else {
                    f64::from_le_bytes(c.try_into().unwrap())
                };
                format!("float {v:?}")
            } else {
                format!("{:?} {c:?}", e.elem.scalar)
            };
            checks
                .entry(at)
                .or_default()
                .insert(format!("{op} {value}"));
        }
    }
    // A case that expects its link to fail runs no step (`skip_steps_if_built`).
    if case.fails.is_some() {
        events.clear();
        checks.clear();
    }
    Shape {
        programs: plan
            .programs
            .iter()
            .map(|p| (p.language, normalise_source(&p.text)))
            .collect(),
        buffers,
        events,
        checks,
        extensions: case.requires.extensions.iter().cloned().collect(),
        link_error: case.fails.is_some(),
    }
}

/// Program text as a compiler sees it: without `;`/`//` comment-only lines (the header and
/// `#` conversions change them), trailing whitespace and blank lines.
fn normalise_source(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.trim_start().starts_with(';'))
        .collect::<Vec<_>>()
        .join("\n")
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases")
}

fn load_dir(dir: &Path) -> Vec<Case> {
    let catalogue = conform_case::clauses::Catalogue::load(&corpus_dir().join("clauses.yaml")).ok();
    conform_case::discover(&[dir.to_path_buf()])
        .expect("corpus readable")
        .files
        .iter()
        .filter_map(|f| conform_case::load(f, catalogue.as_ref()).ok())
        .collect()
}

/// Exports `case`, imports the file back, and returns the imported case.
fn round_trip(case: &Case) -> Result<Option<Case>, String> {
    let exported = match export(case, &[]) {
        Ok(e) => e,
        Err(_) => return Ok(None),
    };
    let names = Names {
        base: format!("piglit/{}", case.name),
        label: exported.file.clone(),
    };
    let runs = match convert_text(&exported.text, &names) {
        FileOutcome::Test(runs) => runs,
        other => {
            return Err(format!(
                "{}: the importer read {other:?}\n{}",
                case.name, exported.text
            ))
        }
    };
    let [(run, Some(yaml))] = runs.as_slice() else {
        return Err(format!(
            "{}: imported as {} run(s): {:?}\n{}",
            case.name,
            runs.len(),
            runs.iter()
                .map(|(r, _)| r.result.as_ref().err())
                .collect::<Vec<_>>(),
            exported.text
        ));
    };
    let path = PathBuf::from(format!("/nonexistent/cases/{}.yaml", run.name));
    conform_case::parse(&path, yaml, None)
        .map(Some)
        .map_err(|d| {
            format!(
                "{}: the imported case does not load: {d:?}\n{yaml}",
                case.name
            )
        })
}

#[test]
fn every_exported_case_imports_back_with_the_same_plan_and_checks() {
    let cases = load_dir(&corpus_dir());
    assert!(cases.len() > 400, "the corpus loads ({})", cases.len());
    let mut exported = 0;
    let mut problems = Vec::new();
    for case in &cases {
        match round_trip(case) {
            Ok(None) => {}
            Ok(Some(back)) => {
                exported += 1;
                let (a, b) = (shape(case), shape(&back));
                if a != b {
                    problems.push(format!(
                        "{}:\n  original {a:?}\n  imported {b:?}",
                        case.name
                    ));
                }
            }
            Err(e) => problems.push(e),
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {exported} exported cases do not round-trip:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(exported > 120, "only {exported} cases exported");
}

/// The GLSL compute and the SPIR-V corpora export as far as shader_runner can state them
/// (docs/EXPORT.md has the figures and why the rest cannot be: API and error cases, queries,
/// compile and validation failures, indirect dispatches, several programs); every refusal has
/// a name. The floors are the shares measured on 2026-11-29 (57 of 117, 16 of 35: the
/// cases about undefined results, refused, came after).
#[test]
fn the_glsl_and_spirv_corpus_exports_as_far_as_shader_runner_reaches() {
    for (dir, floor) in [("arb_compute_shader", 0.48), ("arb_gl_spirv", 0.45)] {
        let cases = load_dir(&corpus_dir().join(dir));
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        let mut ok = 0;
        for c in &cases {
            match export_piglit(c, &[]) {
                Ok(_) => ok += 1,
                Err(r) => {
                    assert!(!r.0.is_empty());
                    *reasons.entry(r.0).or_default() += 1;
                }
            }
        }
        let share = ok as f64 / cases.len() as f64;
        eprintln!(
            "{dir}: {ok} of {} export; refusals: {reasons:#?}",
            cases.len()
        );
        assert!(
            share >= floor,
            "{dir}: {ok} of {} export ({:.0}%); refusals: {reasons:#?}",
            cases.len(),
            share * 100.0
        );
    }
}

#[test]
fn nv_assembly_and_multisets_are_refused_by_name() {
    let cases = load_dir(&corpus_dir().join("nv_compute_program5"));
    let c = cases.first().expect("NV cases");
    assert_eq!(
        export(c, &[]).unwrap_err().0,
        "an NV assembly program (piglit runs GLSL and SPIR-V)"
    );
    let perm = load_dir(&corpus_dir())
        .into_iter()
        .find(|c| {
            c.plan.programs.len() == 1
                && c.plan.programs[0].language == Language::Glsl
                && c.expect
                    .iter()
                    .any(|e| matches!(e.check, Check::Permutation(_)))
        })
        .expect("a GLSL case with a multiset");
    assert!(export(&perm, &[]).is_err());
}

/// An exact float is probed by its bits (shader_runner's float `==` has a tolerance and
/// takes -0.0 for 0.0); the header names the clauses with their text.
#[test]
fn exact_floats_are_probed_by_their_bits_and_the_header_cites_the_clauses() {
    let text = "spec: [T-1]\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    layout(std430, binding = 0) buffer B { float f[2]; };\n    void main() { f[0] = -0.0; f[1] = 1.5; }\nbuffers:\n  - {name: b, binding: 0, type: f32, data: [1.0, 2.0]}\nsteps:\n  - dispatch: [1, 1, 1]\nexpect:\n  - {buffer: b, values: [-0.0, 1.5]}\n";
    let case = conform_case::parse(Path::new("/x/cases/t/neg-zero.yaml"), text, None).unwrap();
    let clauses = [CitedClause {
        id: "T-1".into(),
        text: "GLSL 4.60 section 4.1.4: floats are IEEE 754 binary32.".into(),
        quotes: Vec::new(),
    }];
    let e = export(&case, &clauses).unwrap();
    assert_eq!(e.file, "t/neg-zero.shader_test");
    assert!(
        e.text.starts_with("# conform case t/neg-zero\n"),
        "{}",
        e.text
    );
    assert!(
        e.text.contains("# T-1:\n#   GLSL 4.60 section 4.1.4"),
        "{}",
        e.text
    );
    assert!(e.text.contains("[require]\nGLSL >= 4.30\n"), "{}", e.text);
    assert!(
        e.text.contains(
            "ssbo 0 8\nssbo 0 subdata int 0 1065353216\nssbo 0 subdata int 4 1073741824\n"
        ),
        "{}",
        e.text
    );
    assert!(e.text.contains("compute 1 1 1\n# -0.0\nprobe ssbo uint 0 0 == 0x80000000\n# 1.5\nprobe ssbo uint 0 4 == 0x3fc00000\n"), "{}", e.text);
}

/// A compile failure becomes a glslparsertest file: the config piglit's all.py reads, the
/// header citing the clauses, the shader as written.
#[test]
fn a_compile_failure_exports_as_a_glslparsertest_file() {
    let case = load_dir(&corpus_dir().join("arb_compute_shader"))
        .into_iter()
        .find(|c| c.name == "arb_compute_shader/glsl-shared-initializer")
        .expect("the case");
    assert!(export(&case, &[]).is_err(), "shader_runner cannot state it");
    let e = export_glslparser(&case, &cite(None, &case.spec)).unwrap();
    assert_eq!(e.file, "arb_compute_shader/glsl-shared-initializer.comp");
    assert!(
        e.text
            .starts_with("/* [config]\n * expect_result: fail\n * glsl_version: 4.30\n"),
        "{}",
        e.text
    );
    assert!(e.text.contains(" * [end config]\n"), "{}", e.text);
    assert_eq!(e.command("x.comp"), "glslparsertest x.comp fail 4.30");
    let body = e.text.split(" */\n").nth(1).unwrap();
    assert!(body.starts_with("#version 430"), "{body}");
    // Not a compile failure: refused.
    let runs = load_dir(&corpus_dir().join("glsl"))
        .into_iter()
        .find(|c| c.fails.is_none())
        .unwrap();
    assert!(export_glslparser(&runs, &[]).is_err());
}

/// An ESSL compile failure in an ES context is a glslparsertest file with an `es` version
/// (all.py then runs it on GLES, or on desktop GL with GL_ARB_ES3_1_compatibility), without
/// the desktop-only GL_ARB_compute_shader requirement.
#[test]
fn an_essl_compile_failure_exports_with_an_es_version() {
    let case = load_dir(&corpus_dir().join("opengl_es_3_1"))
        .into_iter()
        .find(|c| c.name == "opengl_es_3_1/shared-no-initializer")
        .expect("the case");
    let e = export_glslparser(&case, &[]).unwrap();
    assert!(
        e.text.starts_with(
            "/* [config]\n * expect_result: fail\n * glsl_version: 3.10 es\n * [end config]\n"
        ),
        "{}",
        e.text
    );
    assert_eq!(e.command("x.comp"), "glslparsertest x.comp fail 3.10");
    // ESSL in a desktop context is the desktop glslparsertest's ES form; desktop GLSL in an
    // ES context is refused.
    let mut desktop = case.clone();
    desktop.requires.gles = None;
    assert_eq!(export_glslparser(&desktop, &[]).unwrap().text, e.text);
    let mut glsl = case.clone();
    glsl.plan.programs[0].text = glsl.plan.programs[0].text.replace("310 es", "430");
    assert!(export_glslparser(&glsl, &[]).is_err());
}

/// An expected NaN is any NaN: shader_runner has no probe for it, so it is left out (and
/// said), never probed by one NaN's bits; a case with nothing left to probe is refused.
#[test]
fn nans_are_left_out_and_a_test_without_probes_is_refused() {
    let cases = load_dir(&corpus_dir().join("intel_shader_atomic_float_minmax"));
    let nan = cases
        .iter()
        .find(|c| c.name.ends_with("glsl-atomic-min-max-float-nan"))
        .expect("the NaN case");
    let e = export(nan, &[]).unwrap();
    assert!(
        e.left_out.iter().any(|l| l.contains("NaN")),
        "{:?}",
        e.left_out
    );
    assert!(!e.text.contains("0x7fc00000"), "{}", e.text);
    let mut unpack = load_dir(&corpus_dir().join("arb_gl_spirv"))
        .into_iter()
        .find(|c| c.name.ends_with("glsl450-unpack-constant-operands"))
        .expect("the unpack case");
    for e in &mut unpack.expect {
        e.check = Check::Undefined;
    }
    assert_eq!(
        export(&unpack, &[]).unwrap_err().0,
        "no check piglit can state (every one is left out)"
    );
}

/// A float check within a tolerance is the judge's interval, as two ordered probes whose
/// bounds read back as the same floats: 3 ulp around 1.0 and -1.0, 3 denormal steps around
/// 0.0.
#[test]
fn a_tolerance_exports_as_the_judges_interval() {
    let unpack = load_dir(&corpus_dir().join("arb_gl_spirv"))
        .into_iter()
        .find(|c| c.name.ends_with("glsl450-unpack-constant-operands"))
        .expect("the unpack case");
    let e = export(&unpack, &[]).unwrap();
    assert!(e.left_out.is_empty(), "{:?}", e.left_out);
    for probes in [
        "# 1.0 within 3 ulp\nprobe ssbo float 0 0 >= 0.9999998\nprobe ssbo float 0 0 <= 1.0000004\n",
        "probe ssbo float 0 4 >= -1.0000004\nprobe ssbo float 0 4 <= -0.9999998\n",
        "probe ssbo float 0 8 >= -4e-45\nprobe ssbo float 0 8 <= 4e-45\n",
    ] {
        assert!(e.text.contains(probes), "{probes}\n{}", e.text);
    }
    for (text, bits) in [
        ("0.9999998", 0x3F7F_FFFD),
        ("1.0000004", 0x3F80_0003),
        ("4e-45", 3),
    ] {
        assert_eq!(text.parse::<f32>().unwrap().to_bits(), bits);
    }
}

/// An expected infinity is a value like any other: probed by its bits (only a NaN, which is
/// any NaN, is left out).
#[test]
fn an_infinity_is_probed_by_its_bits() {
    let case = load_dir(&corpus_dir().join("glsl"))
        .into_iter()
        .find(|c| c.name == "glsl/float-divide-by-constant-zero")
        .expect("the case");
    let e = export(&case, &[]).unwrap();
    assert!(e.left_out.is_empty(), "{:?}", e.left_out);
    assert!(
        e.text.contains(
            "# inf\nprobe ssbo uint 1 0 == 0x7f800000\n# -inf\nprobe ssbo uint 1 4 == 0xff800000\n"
        ),
        "{}",
        e.text
    );
}

/// Every line of `text` as any reader of a shader_test may split it: shader_runner and
/// conform's importer at `\n`, piglit's Python framework at `\r` too, other tools at the
/// Unicode separators.
fn reader_lines(text: &str) -> Vec<&str> {
    text.split([
        '\n', '\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}',
    ])
    .collect()
}

/// The section headers of a shader_test: every line whose first character after white space
/// is `[` (shader_runner looks at the first character; a reader that trims first would find
/// these too).
fn section_headers(text: &str) -> Vec<&str> {
    reader_lines(text)
        .into_iter()
        .filter(|l| l.trim_start().starts_with('['))
        .collect()
}

/// The lines of each section that are not comments: config lines and commands.
fn section_lines(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = vec![("(before)".into(), Vec::new())];
    for l in reader_lines(text) {
        let t = l.trim();
        if t.starts_with('[') {
            out.push((t.to_string(), Vec::new()));
        } else if !t.is_empty() && !t.starts_with('#') {
            out.last_mut().expect("a section").1.push(t.to_string());
        }
    }
    out
}

const HOSTILE_BASE: &str = "spec: [T-1]\ndescription: Writes 5.\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    layout(std430, binding = 0) buffer B { uint u[1]; };\n    uniform uint k;\n    void main() { u[0] = k; }\nuniforms:\n  - {name: k, type: u32, value: 5}\nbuffers:\n  - {name: b, binding: 0, type: u32, data: [0]}\nsteps:\n  - dispatch: [1, 1, 1]\nexpect:\n  - {buffer: b, values: [5]}\n";

fn hostile_base() -> Case {
    conform_case::parse(Path::new("/x/cases/t/hostile.yaml"), HOSTILE_BASE, None).unwrap()
}

/// Text that tries, at every line break some reader knows, to add sections and config lines:
/// a second `[require]` with an extension no driver has (piglit's framework would skip the
/// test), a `[test]` whose probe always passes, a passthrough vertex shader.
const INJECTION: &str = "ok\n[test]\nprobe ssbo uint 0 0 == 0\r[require]\rGL_ARB_no_such_extension\r\n[vertex shader passthrough]\u{2028}[test]\u{b}probe ssbo uint 0 0 == 1\u{c}[compute shader]\u{85}  [require]\u{2029}\tGL_X\u{1b}[2J";

/// A case whose text tries to add a section or a config line to its exported test exports to
/// a test whose sections and checks are exactly those of the case: its description, the text
/// of its clauses and what the export leaves out (the link log pattern) become comment lines,
/// and the file reads back through conform's importer as the same case.
#[test]
fn a_case_whose_text_tries_to_add_a_section_or_a_config_line_exports_exactly_its_own() {
    let plain = hostile_base();
    let clean = export(&plain, &[]).unwrap();
    let mut case = hostile_base();
    case.description = INJECTION.into();
    let clauses = [CitedClause {
        id: "T-1".into(),
        text: INJECTION.into(),
        quotes: Vec::new(),
    }];
    let e = export(&case, &clauses).unwrap();
    assert_eq!(
        section_headers(&e.text),
        ["[require]", "[compute shader]", "[test]"],
        "{}",
        e.text
    );
    assert_eq!(
        section_lines(&e.text),
        section_lines(&clean.text),
        "{}",
        e.text
    );
    assert!(
        !e.text
            .contains(['\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}', '\u{1b}']),
        "{:?}",
        e.text
    );
    // The text is still there, as comments.
    assert!(e.text.contains("\n# [require]\n"), "{}", e.text);
    assert!(e.text.contains("\n#   ok [test] probe"), "{}", e.text);
    assert!(e.text.contains("GL_X\\x1b[2J"), "{}", e.text);
    // Read back, it is the case.
    let back = round_trip(&case).unwrap().expect("exported");
    assert_eq!(shape(&case), shape(&back));

    // A link failure's log pattern is left out and said in the header: as comment lines.
    let text = "spec: [T-1]\ndescription: Fails to link.\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    void f();\n    void main() { f(); }\nfails: {at: link, log: 'f'}\n";
    let mut link = conform_case::parse(Path::new("/x/cases/t/link.yaml"), text, None).unwrap();
    link.fails.as_mut().unwrap().log = Some(regex::Regex::new(&regex::escape(INJECTION)).unwrap());
    let e = export(&link, &[]).unwrap();
    assert_eq!(
        section_headers(&e.text),
        ["[require]", "[compute shader]", "[test]"],
        "{}",
        e.text
    );
    assert_eq!(
        section_lines(&e.text).last().unwrap(),
        &("[test]".to_string(), vec!["link error".to_string()]),
        "{}",
        e.text
    );
}

/// Names that stand as a word of a config line or a command (a uniform's, an extension's, a
/// limit's, a version, a clause id, the case's own) are refused when they hold anything else
/// than such a name: the refusal names the case and the field and shows the value escaped.
#[test]
fn names_that_would_be_other_words_or_lines_are_refused_by_name() {
    let bad = "x\n[test]\nprobe ssbo uint 0 0 == 5";
    type Edit = fn(&mut Case, &mut Vec<CitedClause>, &str);
    let edits: [(&str, Edit); 8] = [
        ("uniform name", |c, _, v| {
            c.plan.uniforms[0].name = format!("k{v}")
        }),
        ("uniform name", |c, _, _| {
            c.plan.uniforms[0].name = "k 7".into()
        }),
        ("extension", |c, _, v| {
            c.requires.extensions.push(format!("GL_ARB_a{v}"))
        }),
        ("extension", |c, _, _| {
            c.requires.extensions.push("GLSL >= 9.90".into())
        }),
        ("limit", |c, _, v| {
            c.requires.limits.insert(format!("MAX_X{v}"), 1);
        }),
        ("GL version", |c, _, v| {
            c.requires.gl = Some(format!("4.3{v}"))
        }),
        ("clause id", |_, cl, v| {
            cl.push(CitedClause {
                id: format!("T-1{v}"),
                text: String::new(),
                quotes: Vec::new(),
            })
        }),
        ("case name", |c, _, v| c.name = format!("t/a{v}")),
    ];
    for (what, edit) in edits {
        let mut case = hostile_base();
        let mut clauses = Vec::new();
        edit(&mut case, &mut clauses, bad);
        let r = export(&case, &clauses).expect_err(what);
        assert!(r.0.starts_with("case `t/"), "{what}: {r}");
        assert!(r.0.contains(&format!("the {what} `")), "{what}: {r}");
        assert!(!r.0.contains('\n'), "{what}: {r}");
        // The fallback to a glslparsertest file refuses too (not a compile failure).
        assert!(export_piglit(&case, &clauses).is_err(), "{what}");
    }
    // A case name that would leave the output directory.
    let mut case = hostile_base();
    case.name = "../../etc/x".into();
    assert!(export(&case, &[]).unwrap_err().0.contains("relative path"));
    // A uniform set by a step, too.
    let mut case = hostile_base();
    let set = case.plan.uniforms.remove(0);
    case.plan.steps.insert(
        0,
        Step::Uniform(conform_plan::UniformSet {
            target: UniformTarget::Name(format!("k{bad}")),
            ty: UniformType::Elem(set.elem),
            bytes: set.bytes,
        }),
    );
    assert!(export(&case, &[]).unwrap_err().0.contains("uniform name"));
}

/// A program line that shader_runner would read as a section header (in a GLSL comment, a
/// SPIR-V `OpString` broken over lines) and a NUL (where piglit's readers stop) are refused,
/// naming the case and the line.
#[test]
fn program_lines_that_would_start_a_section_are_refused() {
    for (text, line) in [
        ("/*\n[test]\nprobe ssbo uint 0 0 == 5\n*/\n", "line 2"),
        ("/*\r[require]\rGL_ARB_no_such_extension */\n", "line 2"),
        ("/*\n   [vertex shader passthrough]\n*/\n", "line 2"),
    ] {
        let mut case = hostile_base();
        case.plan.programs[0].text = format!("{text}{}", case.plan.programs[0].text);
        let r = export(&case, &[]).unwrap_err();
        assert!(
            r.0.starts_with("case `t/hostile`: program ")
                && r.0.contains(line)
                && r.0.contains("section header"),
            "{r}"
        );
    }
    let mut case = hostile_base();
    case.plan.programs[0].text.push_str("// \0[test]\n");
    assert!(export(&case, &[]).unwrap_err().0.contains("NUL"));
    // SPIR-V assembly: a string broken over lines.
    let spirv = load_dir(&corpus_dir().join("arb_gl_spirv"))
        .into_iter()
        .find(|c| export(c, &[]).is_ok())
        .expect("a SPIR-V case that exports");
    let mut case = spirv.clone();
    case.plan.programs[0].text = case.plan.programs[0].text.replacen(
        '\n',
        "\nOpString \"x\n[test]\nprobe ssbo uint 0 0 == 0\"\n",
        1,
    );
    assert!(export(&case, &[])
        .unwrap_err()
        .0
        .contains("which shader_runner reads as a section header"));
}

/// A glslparsertest file's header comment holds one expectation block, piglit's own: case
/// text that would end the comment (`*/`) or open a second block (`[config]`, `[end
/// config]`) is refused; text that tries a line break is comment lines.
#[test]
fn a_glslparsertest_header_cannot_be_ended_or_given_a_second_expectation() {
    let case = load_dir(&corpus_dir().join("arb_compute_shader"))
        .into_iter()
        .find(|c| c.name == "arb_compute_shader/glsl-shared-initializer")
        .expect("the case");
    for text in [
        "done */ void main() {}",
        "x\n[config]\n * expect_result: pass\n[end config]",
        "[end config]",
    ] {
        let mut c = case.clone();
        c.description = text.into();
        let r = export_glslparser(&c, &[]).unwrap_err();
        assert!(
            r.0.starts_with("case `arb_compute_shader/glsl-shared-initializer`: `"),
            "{r}"
        );
        assert!(export_piglit(&c, &[]).is_err());
    }
    let mut c = case.clone();
    c.plan.programs[0]
        .text
        .push_str("// [config]\n// expect_result: pass\n");
    assert!(export_glslparser(&c, &[])
        .unwrap_err()
        .0
        .contains("program"));
    let mut c = case.clone();
    c.requires
        .extensions
        .push("GL_X\n * expect_result: pass".into());
    assert!(export_glslparser(&c, &[])
        .unwrap_err()
        .0
        .contains("extension"));
    // Line breaks of any kind: the header stays one comment with one config block.
    let mut c = case.clone();
    c.description = "a\r * expect_result: pass\u{2028}b\u{b}c".into();
    let e = export_glslparser(&c, &[]).unwrap();
    let lines = reader_lines(&e.text);
    let config: Vec<&str> = lines
        .iter()
        .copied()
        .skip_while(|l| !l.contains("[config]"))
        .take_while(|l| !l.contains("[end config]"))
        .collect();
    assert_eq!(
        config,
        [
            "/* [config]",
            " * expect_result: fail",
            " * glsl_version: 4.30"
        ],
        "{}",
        e.text
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("*/")).count(),
        1,
        "{}",
        e.text
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("expect_result")).count(),
        2,
        "{}",
        e.text
    );
}

/// A limit shader_runner does not know by name (all but six) is required through `INT`:
/// written bare, shader_runner took `GL_MAX_COMPUTE_SHARED_MEMORY_SIZE >= 32768` for an
/// extension and skipped the test. The importer reads both forms back.
#[test]
fn limits_are_required_the_way_shader_runner_reads_them() {
    let mut case = hostile_base();
    case.requires
        .limits
        .insert("MAX_COMPUTE_SHARED_MEMORY_SIZE".into(), 32768);
    case.requires
        .limits
        .insert("GL_MAX_VERTEX_ATTRIBS".into(), 8);
    let text = export_piglit(&case, &[]).unwrap().text;
    let require: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "[require]")
        .take_while(|l| !l.starts_with("[compute"))
        .collect();
    assert!(
        require.contains(&"INT GL_MAX_COMPUTE_SHARED_MEMORY_SIZE >= 32768"),
        "{text}"
    );
    assert!(require.contains(&"GL_MAX_VERTEX_ATTRIBS >= 8"), "{text}");
}
