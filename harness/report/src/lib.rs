//! `conform-report`: what leaves a run for people and for CI, made from its gated results
//! (`conform_gate::gate::Gated`), so every file agrees.
//!
//! Owns: the end of a run, shard merging and `conform report` ([`ci`]: classify with the
//! gate, write everything, the exit code); the reports ([`write_all`]: `junit.xml` for all
//! backends, `junit-<backend>.xml`, `summary.md` for a merge-request comment, `report.html`
//! for people; [`deqp`]: results.csv and failures.csv rows of a gated run); the side-by-side
//! view of a multi-backend run ([`differential`]); `conform compare`, what changed between runs
//! ([`compare`]); the upstream bug report of one case ([`bugreport`]); and where a case's
//! result changed across Mesa builds ([`bisect`]).
//!
//! Never depends on: a backend (the reference interpreter, the GL runner, `conform-run`): it
//! reads results, so it builds and is tested without any driver or interpreter.

pub mod bisect;
pub mod bugreport;
pub mod ci;
pub mod compare;
pub mod deqp;
pub mod differential;
pub mod html;
pub mod junit;
pub mod markdown;

use conform_gate::gate::Gated;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A backend name as it may appear in a file name.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes every report into `dir`; returns the files written.
pub fn write_all(dir: &Path, gated: &Gated, run_name: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let mut put = |name: String, text: String| -> std::io::Result<()> {
        let path = dir.join(name);
        std::fs::write(&path, text)?;
        written.push(path);
        Ok(())
    };
    put("junit.xml".into(), junit::junit(gated, run_name, None))?;
    let backends: BTreeSet<&str> = gated.results.iter().map(|r| r.backend.as_str()).collect();
    for b in backends {
        put(
            format!("junit-{}.xml", file_safe(b)),
            junit::junit(gated, run_name, Some(b)),
        )?;
    }
    put("summary.md".into(), markdown::summary(gated, run_name))?;
    put("report.html".into(), html::render(gated, run_name))?;
    Ok(written)
}
