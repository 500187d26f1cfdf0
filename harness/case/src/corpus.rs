//! Loading the cases a command names: every case file under the paths, each read inside its
//! case root, checked against the clause catalogue found above the first path, with names
//! unique across the set. The CLI's `validate`, `list`, `run`, `golden` and `bench` all start
//! here.

use crate::clauses::Catalogue;
use crate::root::CaseRoot;
use crate::Case;
use conform_io::escape;
use regex::Regex;
use std::path::{Path, PathBuf};

/// A case that did not load, kept so the run can report it and go on.
#[derive(Debug, Clone)]
pub struct InvalidCase {
    pub path: PathBuf,
    pub diagnostics: Vec<String>,
}

/// Cases loaded from paths: the valid ones and the diagnostics of the others.
pub struct Loaded {
    pub cases: Vec<Case>,
    pub invalid: Vec<InvalidCase>,
    pub catalogue: Option<Catalogue>,
    /// What the user should know but that stops nothing (a link followed twice, no catalogue).
    pub warnings: Vec<String>,
}

/// The case root of `file`, found under one of the command line's `paths`.
fn root_for(file: &Path, paths: &[PathBuf], roots: &[CaseRoot]) -> CaseRoot {
    paths
        .iter()
        .zip(roots)
        .filter(|(p, _)| file.starts_with(p))
        .max_by_key(|(p, _)| p.as_os_str().len())
        .map_or_else(|| CaseRoot::of(file), |(_, r)| r.clone())
}

/// Loads every case under `paths`: discovery, each file in its case root (anywhere, with
/// `anywhere`: `--allow-outside-root`), the clause catalogue found above the first path, and
/// names used twice (the second is invalid). Keeps the valid cases whose name matches the
/// `filter` regex, if any. Problems with the paths themselves are `Err`; problems with a case
/// are in `invalid`, and the run goes on with the others.
pub fn load(paths: &[PathBuf], filter: Option<&str>, anywhere: bool) -> Result<Loaded, String> {
    let filter = filter
        .map(|f| Regex::new(f).map_err(|e| format!("--filter: {e}")))
        .transpose()?;
    let found = crate::discover(paths)?;
    let mut warnings = found.warnings.clone();
    let catalogue = match paths.first().and_then(|p| Catalogue::find(p)) {
        Some(path) => Some(Catalogue::load(&path).map_err(|d| d.to_string())?),
        None => {
            warnings.push(format!(
                "warning: no clauses.yaml found above {}; clause ids are not checked",
                paths
                    .first()
                    .map_or(".".into(), |p| escape::line(&p.display().to_string())
                        .into_owned())
            ));
            None
        }
    };
    let roots: Vec<CaseRoot> = paths
        .iter()
        .map(|p| {
            if anywhere {
                CaseRoot::anywhere()
            } else {
                CaseRoot::of(p)
            }
        })
        .collect();
    let mut cases: Vec<Case> = Vec::new();
    let mut names: std::collections::HashMap<String, usize> = Default::default();
    let mut invalid = Vec::new();
    for f in found.files {
        let root = root_for(&f, paths, &roots);
        match crate::load_in(&f, catalogue.as_ref(), &root) {
            Ok(c) => {
                if let Some(&other) = names.get(&c.name) {
                    let other: &Case = &cases[other];
                    invalid.push(InvalidCase {
                        path: f.clone(),
                        diagnostics: vec![format!(
                            "{}: case name `{}` is also used by {}",
                            escape::line(&f.display().to_string()),
                            escape::line(&c.name),
                            escape::line(&other.path.display().to_string())
                        )],
                    });
                } else {
                    names.insert(c.name.clone(), cases.len());
                    cases.push(c);
                }
            }
            Err(diags) => invalid.push(InvalidCase {
                path: f.clone(),
                diagnostics: diags.iter().map(ToString::to_string).collect(),
            }),
        }
    }
    if let Some(re) = filter {
        cases.retain(|c| re.is_match(&c.name));
    }
    Ok(Loaded {
        cases,
        invalid,
        catalogue,
        warnings,
    })
}
