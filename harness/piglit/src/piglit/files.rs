//! Finding `.shader_test` files under the paths given, and naming their cases.
//!
//! Directories are walked recursively in sorted order, following symbolic links but never
//! into a directory already visited (no loops, no file read twice). A case is named
//! `piglit/<path under tests/spec without the extension>`, or relative to the given root
//! when the path has no `tests/spec/`.

use super::outcome::Names;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// A file to import.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The path as found (the root given, joined with the path below it).
    pub path: PathBuf,
    /// Its path relative to the root given (`/`-separated; the file name for a file root).
    pub rel: String,
}

/// The files under `roots`, and the roots that could not be read (path, why).
pub fn discover(roots: &[PathBuf]) -> (Vec<Input>, Vec<(PathBuf, String)>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut seen_dirs = BTreeSet::new();
    let mut seen_files = BTreeSet::new();
    for root in roots {
        match fs::metadata(root) {
            Err(e) => problems.push((root.clone(), e.to_string())),
            Ok(m) if m.is_dir() => walk(
                root,
                root,
                &mut seen_dirs,
                &mut seen_files,
                &mut found,
                &mut problems,
            ),
            Ok(_) => {
                let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.clone());
                if seen_files.insert(canonical) {
                    let rel = root
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    found.push(Input {
                        path: root.clone(),
                        rel,
                    });
                }
            }
        }
    }
    (found, problems)
}

fn walk(
    root: &Path,
    dir: &Path,
    seen_dirs: &mut BTreeSet<PathBuf>,
    seen_files: &mut BTreeSet<PathBuf>,
    found: &mut Vec<Input>,
    problems: &mut Vec<(PathBuf, String)>,
) {
    let canonical = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !seen_dirs.insert(canonical) {
        return;
    }
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            problems.push((dir.to_path_buf(), e.to_string()));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        // fs::metadata follows links; a dangling one is skipped.
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            walk(root, &path, seen_dirs, seen_files, found, problems);
        } else if path.extension().is_some_and(|e| e == "shader_test") {
            let canonical = fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if !seen_files.insert(canonical) {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            found.push(Input { path, rel });
        }
    }
}

/// The path with `.`/`..` resolved lexically and empty parts dropped.
fn normalize(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts
}

/// The case name base and comment label of an input.
pub fn names(input: &Input) -> Names {
    let full = input
        .path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    let (rel, label_prefix) = match full.rfind("tests/spec/") {
        Some(i) => (full[i + "tests/spec/".len()..].to_string(), "tests/spec/"),
        None => (input.rel.clone(), ""),
    };
    let mut parts = normalize(&rel);
    if parts.is_empty() {
        parts = normalize(&input.rel);
    }
    let label = format!("{label_prefix}{}", parts.join("/"));
    let mut stem_parts: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
    if let Some(last) = stem_parts.last_mut() {
        if let Some(dot) = last.rfind('.').filter(|&d| d > 0) {
            last.truncate(dot);
        }
    }
    Names {
        base: format!("piglit/{}", stem_parts.join("/")),
        label,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(path: &str, rel: &str) -> Input {
        Input {
            path: PathBuf::from(path),
            rel: rel.into(),
        }
    }

    #[test]
    fn names_come_from_tests_spec_or_the_root() {
        let n = names(&input(
            "/x/piglit/tests/spec/arb_compute_shader/execution/a.shader_test",
            "arb_compute_shader/execution/a.shader_test",
        ));
        assert_eq!(n.base, "piglit/arb_compute_shader/execution/a");
        assert_eq!(
            n.label,
            "tests/spec/arb_compute_shader/execution/a.shader_test"
        );
        let n = names(&input("mine/sub/b.shader_test", "sub/b.shader_test"));
        assert_eq!(n.base, "piglit/sub/b");
        assert_eq!(n.label, "sub/b.shader_test");
        let n = names(&input("/a/tests/spec/../c.shader_test", "c.shader_test"));
        assert_eq!(n.base, "piglit/c");
        let n = names(&input("/a/tests/spec/..", "x.shader_test"));
        assert_eq!(n.base, "piglit/x");
    }

    #[test]
    fn walks_sorted_without_loops() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("b/c")).unwrap();
        fs::write(root.join("b/c/z.shader_test"), "").unwrap();
        fs::write(root.join("a.shader_test"), "").unwrap();
        fs::write(root.join("b/skip.txt"), "").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root, root.join("b/loop")).unwrap();
        let (found, problems) = discover(&[root.to_path_buf(), root.join("missing")]);
        let rels: Vec<&str> = found.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(rels, ["a.shader_test", "b/c/z.shader_test"]);
        assert_eq!(problems.len(), 1);
    }
}
