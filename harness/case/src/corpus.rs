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
    /// What the user should know but that stops nothing (a symlink loop, a tree too deep).
    /// A missing catalogue is not one of them: see [`no_catalogue_warning`].
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
    let warnings = found.warnings.clone();
    let catalogue = match paths.first().and_then(|p| Catalogue::find(p)) {
        Some(path) => Some(Catalogue::load_in(&path, !anywhere).map_err(|d| d.to_string())?),
        None => None,
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

/// The warning for a set of cases without a clause catalogue (no clauses.yaml above the first
/// path, so `spec:` ids are not checked). Only `conform validate` prints it, once per run:
/// checking cases is that command's job, and an unchecked id is something a user can act on
/// there. A directory of one's own cases usually has no catalogue, and `run`, `list`, `show`,
/// `golden` and `bench` would otherwise repeat the warning on every command without it
/// changing anything they do (`coverage`, which needs the catalogue, says so as an error).
pub fn no_catalogue_warning(paths: &[PathBuf]) -> String {
    format!(
        "warning: no clauses.yaml found above {}; clause ids in `spec:` are not checked",
        paths
            .first()
            .map_or(".".into(), |p| escape::line(&p.display().to_string())
                .into_owned())
    )
}

/// The last component of a case name (`atoms-iwrap-edges` of `nv_compute_program5/...`).
fn last(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// Most names a "did you mean" offers.
const MAX_SUGGESTIONS: usize = 5;

/// For `conform COMMAND NAME` (`show`, `debug`), which looks the case up under `roots`: a root
/// that does not exist, as an error that says where it was looked for and what to give
/// instead. `cases`, the default, exists only in a conform checkout.
pub fn missing_root(command: &str, name: &str, roots: &[PathBuf]) -> Option<String> {
    let missing = roots.iter().find(|r| !r.exists())?;
    let here = std::env::current_dir().map_or_else(|_| ".".into(), |d| d.display().to_string());
    Some(format!(
        "no directory `{}` in {here} to look for the case `{name}` in\n  hint: name the \
         directory that holds it (`conform {command} {name} path/to/cases`) or give the case \
         file's path; the default, `cases`, is the corpus of a conform checkout",
        missing.display()
    ))
}

/// Why no case under `roots` is named `name`, with the names `name` may have meant: the
/// cases whose name ends with it (a bare file name like `atoms-iwrap-edges`, or with `.yaml`),
/// else the closest names (a typo), compared whole and by their last component.
pub fn no_such_case<'a>(
    name: &str,
    roots: &[PathBuf],
    names: impl IntoIterator<Item = &'a str>,
) -> String {
    let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    let mut msg = format!("no case named `{name}` under {}", roots.join(", "));
    let similar = similar_names(name, names);
    if !similar.is_empty() {
        let quoted: Vec<String> = similar.iter().map(|n| format!("`{n}`")).collect();
        msg.push_str(&format!("\n  hint: did you mean {}?", quoted.join(" or ")));
    }
    msg
}

/// The case names among `names` that `name` may have meant (see [`no_such_case`]), at most
/// [`MAX_SUGGESTIONS`], sorted.
pub fn similar_names<'a>(name: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let names: Vec<&str> = names.into_iter().collect();
    let bare = name
        .strip_suffix(".yaml")
        .or_else(|| name.strip_suffix(".yml"))
        .unwrap_or(name)
        .trim_start_matches("./");
    let mut found: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| {
            *n == bare
                || n.strip_suffix(bare).is_some_and(|head| head.ends_with('/'))
                || bare
                    .strip_suffix(*n)
                    .is_some_and(|head| head.ends_with('/'))
        })
        .collect();
    if found.is_empty() {
        let whole = conform_io::diag::did_you_mean(bare, names.iter().copied());
        let by_last = conform_io::diag::did_you_mean(last(bare), names.iter().map(|n| last(n)));
        found.extend(whole);
        found.extend(
            by_last
                .into_iter()
                .flat_map(|l| names.iter().copied().filter(move |n| last(n) == l)),
        );
    }
    found.sort_unstable();
    found.dedup();
    found.truncate(MAX_SUGGESTIONS);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 4] = [
        "nv_compute_program5/atoms-iwrap-edges",
        "nv_compute_program5/atoms-iwrap-wraps",
        "arb_compute_shader/glsl-shared-atomics",
        "piglit/arb_compute_shader/execution/shared-atomics",
    ];

    #[test]
    fn a_bare_file_name_finds_its_case() {
        assert_eq!(
            similar_names("atoms-iwrap-edges", NAMES),
            ["nv_compute_program5/atoms-iwrap-edges"]
        );
        assert_eq!(
            similar_names("atoms-iwrap-edges.yaml", NAMES),
            ["nv_compute_program5/atoms-iwrap-edges"]
        );
        // A path from another checkout ends with the name.
        assert_eq!(
            similar_names("cases/nv_compute_program5/atoms-iwrap-edges.yaml", NAMES),
            ["nv_compute_program5/atoms-iwrap-edges"]
        );
        assert_eq!(
            similar_names("execution/shared-atomics", NAMES),
            ["piglit/arb_compute_shader/execution/shared-atomics"]
        );
    }

    #[test]
    fn a_typo_gets_the_closest_names() {
        assert_eq!(
            similar_names("nv_compute_program5/atoms-iwrap-edge", NAMES),
            ["nv_compute_program5/atoms-iwrap-edges"]
        );
        assert_eq!(
            similar_names("atoms-iwrap-egdes", NAMES),
            ["nv_compute_program5/atoms-iwrap-edges"]
        );
        assert!(similar_names("frobnicate", NAMES).is_empty());
        assert!(similar_names("", NAMES).is_empty());
    }

    #[test]
    fn no_such_case_names_the_roots_and_the_suggestion() {
        let roots = [PathBuf::from("cases")];
        assert_eq!(
            no_such_case("atoms-iwrap-edges", &roots, NAMES),
            "no case named `atoms-iwrap-edges` under cases\n  hint: did you mean \
             `nv_compute_program5/atoms-iwrap-edges`?"
        );
        assert_eq!(
            no_such_case("frobnicate", &roots, NAMES),
            "no case named `frobnicate` under cases"
        );
    }

    #[test]
    fn a_root_that_does_not_exist_is_named_with_what_to_give_instead() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("cases");
        let msg = missing_root("show", "x", &[dir.path().to_path_buf(), gone.clone()]).unwrap();
        assert!(
            msg.starts_with(&format!("no directory `{}` in ", gone.display())),
            "{msg}"
        );
        assert!(msg.contains("(`conform show x path/to/cases`)"), "{msg}");
        assert_eq!(missing_root("show", "x", &[dir.path().to_path_buf()]), None);
    }

    #[test]
    fn the_catalogue_warning_is_left_to_validate() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("c.yaml"),
            "spec: [MINE-1]\nprogram: {language: glsl, source: \"#version 430\\nlayout(local_size_x = 1) in;\\nvoid main() {}\"}\n",
        )
        .unwrap();
        let paths = [dir.path().to_path_buf()];
        let loaded = load(&paths, None, false).unwrap();
        assert!(loaded.catalogue.is_none());
        assert_eq!(loaded.cases.len(), 1, "{:?}", loaded.invalid);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert!(no_catalogue_warning(&paths).contains("no clauses.yaml found above"));
    }

    #[test]
    fn a_named_case_file_symlinked_out_of_its_root_is_refused_unread_like_a_walked_one() {
        let tmp = tempfile::tempdir().unwrap();
        let cases = tmp.path().join("cases");
        std::fs::create_dir_all(cases.join("x")).unwrap();
        std::fs::create_dir_all(tmp.path().join("outside")).unwrap();
        std::fs::write(tmp.path().join("outside/secret.yaml"), "S3CRET-VALUE").unwrap();
        std::fs::write(cases.join("clauses.yaml"), "").unwrap();
        std::os::unix::fs::symlink("../../outside/secret.yaml", cases.join("x/link.yaml")).unwrap();
        std::os::unix::fs::symlink("../../outside", cases.join("x/out")).unwrap();
        let walked = load(std::slice::from_ref(&cases), None, false).unwrap();
        for named in [cases.join("x/link.yaml"), cases.join("x/out/secret.yaml")] {
            let loaded = load(std::slice::from_ref(&named), None, false).unwrap();
            assert!(loaded.cases.is_empty());
            let d = &loaded.invalid[0].diagnostics;
            assert!(d[0].contains("outside the case root"), "{d:?}");
            assert!(!d.concat().contains("S3CRET"), "{d:?}");
        }
        let d = &walked.invalid[0].diagnostics;
        assert!(d[0].contains("outside the case root"), "{d:?}");
        // With --allow-outside-root it is read, as a walked one is.
        let loaded = load(&[cases.join("x/link.yaml")], None, true).unwrap();
        assert!(loaded.invalid[0].diagnostics.concat().contains("S3CRET"));
    }
}
