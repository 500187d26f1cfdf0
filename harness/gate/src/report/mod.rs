//! The reports written at the end of a run, a merge, or `conform report`: `junit.xml` (all
//! backends), `junit-<backend>.xml` (one per backend), `summary.md` (for a merge-request
//! comment) and `report.html` (self-contained, for people). All are made from the same
//! [`Gated`] results, so they always agree.

pub mod bugreport;
pub mod deqp;
pub mod html;
pub mod junit;
pub mod markdown;

use crate::gate::Gated;
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
