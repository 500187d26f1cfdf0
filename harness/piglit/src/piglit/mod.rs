//! `conform import piglit`: piglit's `.shader_test` compute tests as conform cases.
//!
//! The pipeline, one pure step per module:
//! - [`scan`]: the C library's number parsing and glibc `sscanf`, which shader_runner reads
//!   every line with;
//! - [`parse`] (with [`command`]): a file's text → a typed [`ShaderTest`] (sections,
//!   requirements, `[test]` commands), or `file:line` errors for a malformed file;
//! - [`convert`]: a test → one [`Case`] per run (GLSL / SPIR-V), or the reason it cannot be
//!   expressed; with [`program`] (sections → programs), [`steps`] (the `[test]` walk) and
//!   [`textures`] (textures, image units, framebuffers, pixel probes);
//! - [`emit`]: a case → YAML text;
//! - [`summary`]: per-test statuses and totals;
//! - [`files`]: finding files and naming cases.
//!
//! [`convert_text`] chains the pure steps for one file; [`convert_paths`] runs them over
//! files and directories and writes the cases and `import-summary.json`. docs/IMPORT.md
//! has the command mapping and what is skipped and why.

pub mod case;
pub mod command;
pub mod convert;
pub mod emit;
pub mod export;
pub mod files;
pub mod outcome;
pub mod parse;
pub mod profile;
pub mod program;
pub mod sampled;
pub mod scan;
pub mod steps;
pub mod summary;
pub mod textures;

#[cfg(test)]
mod tests;

pub use case::Case;
pub use outcome::{Mode, Names, Run, Skip};
pub use parse::{ParseError, ShaderTest};
pub use summary::{Status, Summary, TestReport};

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What one file's text gave.
#[derive(Clone, Debug, PartialEq)]
pub enum FileOutcome {
    /// No compute shader section: not a test the importer handles.
    NotCompute,
    /// shader_runner would fail the file while reading it.
    Malformed(Vec<ParseError>),
    /// A compute test: its runs, each a case (with its YAML) or a skip.
    Test(Vec<(Run, Option<String>)>),
}

/// Which runs of a test become cases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Runs {
    /// Every run shader_runner can make of it: GLSL and SPIR-V for `SPIRV YES` (`--1`, `--2`).
    #[default]
    All,
    /// The run shader_runner makes without `-glsl`, as piglit-runner runs it: the SPIR-V one
    /// of a `SPIRV YES` test (still named `--2`), so a run covers exactly what piglit-runner
    /// would.
    AsShaderRunner,
}

/// Converts one file's text (pure: no file system).
pub fn convert_text(text: &str, names: &Names) -> FileOutcome {
    convert_text_with(text, names, Runs::All)
}

/// [`convert_text`], keeping `runs`.
pub fn convert_text_with(text: &str, names: &Names, runs: Runs) -> FileOutcome {
    if !parse::mentions_compute_section(text) {
        return FileOutcome::NotCompute;
    }
    let test = match parse::parse(text) {
        Ok(t) => t,
        Err(errors) => return FileOutcome::Malformed(errors),
    };
    if !test.is_compute() {
        return FileOutcome::NotCompute;
    }
    FileOutcome::Test(
        convert::convert(&test, names)
            .into_iter()
            .filter(|run| {
                runs == Runs::All
                    || test.spirv_mode() != Some(parse::SpirvMode::Yes)
                    || run.mode == Mode::Spirv
            })
            .map(|run| {
                let yaml = run.result.as_ref().ok().map(|c| emit::render(&c.case));
                (run, yaml)
            })
            .collect(),
    )
}

/// The skip class of a case the importer made but conform's loader would refuse.
pub const REFUSED: &str = "refused by the case loader";

/// Why conform would refuse the case `yaml` written to `file`, checked by the loader's own
/// rules before it is written: a file name it loads ([`conform_case::is_case_file`]), the
/// checks of reading a case file ([`conform_io::input::text_of`]: its size, among others) and
/// the whole of loading it ([`conform_case::parse`]: the YAML checks, the name rules, the
/// limits). `None` when it loads. The first diagnostics, each already cut to a bounded length.
pub fn loader_refuses(file: &Path, yaml: &str) -> Option<String> {
    if !conform_case::is_case_file(file) {
        return Some(format!(
            "{}: conform does not load a file of this name as a case",
            conform_io::escape::line(&file.display().to_string())
        ));
    }
    let text = match conform_io::input::text_of(file, yaml.as_bytes().to_vec()) {
        Ok(t) => t,
        Err(d) => return Some(d.to_string()),
    };
    let diags = conform_case::parse(file, &text, None).err()?;
    let shown: Vec<String> = diags.iter().take(3).map(ToString::to_string).collect();
    let more = diags.len().saturating_sub(shown.len());
    let mut why = shown.join("; ");
    if more > 0 {
        why.push_str(&format!("; and {more} more"));
    }
    Some(why)
}

/// Name of the JSON summary written into the output directory.
pub const SUMMARY_FILE: &str = "import-summary.json";

/// Imports every `.shader_test` under `paths` (files or directories) into `out`: one
/// `out/<case name>.yaml` per case and `out/import-summary.json`. Problems with single
/// files are reported in the summary and the others go on; Err only when `out` itself
/// cannot be written.
pub fn convert_paths(paths: &[PathBuf], out: &Path) -> io::Result<Summary> {
    convert_paths_with(paths, out, Runs::All)
}

/// [`convert_paths`], keeping `runs` of each test.
pub fn convert_paths_with(paths: &[PathBuf], out: &Path, keep: Runs) -> io::Result<Summary> {
    fs::create_dir_all(out)?;
    let (inputs, unreadable) = files::discover(paths);
    let mut summary = Summary {
        unreadable: unreadable
            .iter()
            .map(|(p, why)| format!("{}: {why}", p.display()))
            .collect(),
        ..Summary::default()
    };
    // Case name → the file that claimed it.
    let mut claimed: BTreeMap<String, String> = BTreeMap::new();
    for input in &inputs {
        summary.files += 1;
        let shown = input.path.display().to_string();
        // Bounded, regular files only, opened without blocking (a FIFO named like a test).
        let read = conform_io::input::read_bounded(&input.path, conform_io::input::MAX_FILE_BYTES);
        let text = match read {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
                    if parse::mentions_compute_section(&lossy) {
                        summary.tests.push(TestReport::error(
                            shown.clone(),
                            "unreadable file",
                            vec![format!("{shown}: not UTF-8 text")],
                        ));
                    } else {
                        summary.not_compute += 1;
                    }
                    continue;
                }
            },
            Err(e) => {
                summary.tests.push(TestReport::error(
                    shown.clone(),
                    "unreadable file",
                    vec![format!("{shown}: {e}")],
                ));
                continue;
            }
        };
        let names = files::names(input);
        let runs = match convert_text_with(&text, &names, keep) {
            FileOutcome::NotCompute => {
                summary.not_compute += 1;
                continue;
            }
            FileOutcome::Malformed(errors) => {
                let details = errors
                    .iter()
                    .map(|e| {
                        conform_io::diag::Diagnostic::new(&input.path, e.line, 0, e.message.clone())
                            .to_string()
                    })
                    .collect();
                summary
                    .tests
                    .push(TestReport::error(shown, "malformed file", details));
                continue;
            }
            FileOutcome::Test(runs) => runs,
        };
        if let Some(other) = runs.iter().find_map(|(r, _)| claimed.get(&r.name)) {
            summary.tests.push(TestReport::error(
                shown.clone(),
                "case name taken",
                vec![format!("{shown}: its case name is already used by {other}")],
            ));
            continue;
        }
        let mut written_runs = Vec::new();
        for (mut run, yaml) in runs {
            if let Some(yaml) = yaml {
                let file = out.join(format!("{}.yaml", run.name));
                match loader_refuses(&file, &yaml) {
                    // Not written: conform would refuse it, so it is not converted.
                    Some(why) => run.result = Err(Skip::new(REFUSED, why, None)),
                    None => {
                        if let Some(dir) = file.parent() {
                            fs::create_dir_all(dir)?;
                        }
                        fs::write(&file, yaml.as_bytes())?;
                        claimed.insert(run.name.clone(), shown.clone());
                    }
                }
            }
            written_runs.push(run);
        }
        summary
            .tests
            .push(TestReport::from_runs(shown, &written_runs));
    }
    fs::write(out.join(SUMMARY_FILE), summary.to_json())?;
    Ok(summary)
}

/// Cases conform itself would refuse (issue 45, round four; a FIFO named like a test is in
/// harness/tests/hostile/round4.rs).
#[cfg(test)]
mod refused {
    use super::*;

    const HEAD: &str = "[require]\nGL >= 4.3\nGLSL >= 4.30\n[compute shader]\n#version 430\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\n";
    const MAIN: &str = "void main() { v[0] = 1u; }\n[test]\n";
    const PROBE: &str = "compute 1 1 1\nprobe ssbo uint 0 0 == 1\n";

    fn test_text(source: &str, ssbo: &str) -> String {
        format!("{HEAD}{source}{MAIN}{ssbo}\n{PROBE}")
    }

    fn report<'a>(s: &'a Summary, file: &str) -> &'a TestReport {
        s.tests
            .iter()
            .find(|t| t.path.ends_with(file))
            .unwrap_or_else(|| panic!("no report of {file} in {s:#?}"))
    }

    #[test]
    fn cases_the_loader_refuses_are_reported_not_converted_and_not_written() {
        let tmp = tempfile::tempdir().unwrap();
        let input = tmp.path().join("in");
        fs::create_dir_all(&input).unwrap();
        let ok = test_text("", "ssbo 0 4");
        // A name the loader refuses (a comma), a file name it does not load, a buffer over its
        // limits, and a case over its file size (1.2M comment lines, each indented in YAML).
        fs::write(input.join("a,b.shader_test"), &ok).unwrap();
        fs::write(input.join("clauses.shader_test"), &ok).unwrap();
        fs::write(
            input.join("big-buffer.shader_test"),
            test_text("", "ssbo 0 134217728"),
        )
        .unwrap();
        fs::write(
            input.join("long.shader_test"),
            test_text(&"//\n".repeat(1_200_000), "ssbo 0 4"),
        )
        .unwrap();
        fs::write(input.join("ok.shader_test"), &ok).unwrap();
        let out = tmp.path().join("out");
        let s = convert_paths(&[input], &out).unwrap();
        for (file, says) in [
            ("a,b.shader_test", "contains a comma"),
            (
                "clauses.shader_test",
                "conform does not load a file of this name as a case",
            ),
            ("big-buffer.shader_test", "above the 67108864 bytes"),
            ("long.shader_test", "above the 4194304 byte limit"),
        ] {
            let r = report(&s, file);
            assert_eq!(r.status, Status::Skipped, "{r:?}");
            assert_eq!(r.reason.as_deref(), Some(REFUSED), "{r:?}");
            assert!(r.details[0].contains(says), "{file}: {r:?}");
            assert!(r.cases.is_empty(), "{r:?}");
        }
        assert_eq!(s.totals().converted, 1, "{s:#?}");
        // Only the case that loads was written, and it loads.
        let written = conform_case::discover(std::slice::from_ref(&out))
            .unwrap()
            .files;
        assert_eq!(written, [out.join("piglit/ok.yaml")]);
        assert!(!out.join("piglit/clauses.yaml").exists());
        conform_case::load(&written[0], None).unwrap();
    }
}
