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
        let text = match fs::read(&input.path) {
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
        for (run, yaml) in runs {
            if let Some(yaml) = yaml {
                let file = out.join(format!("{}.yaml", run.name));
                if let Some(dir) = file.parent() {
                    fs::create_dir_all(dir)?;
                }
                fs::write(&file, yaml)?;
                claimed.insert(run.name.clone(), shown.clone());
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
