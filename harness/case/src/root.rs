//! Confinement: which files a case may read.
//!
//! A case from an untrusted merge request must not read the runner's files (`/etc/passwd`,
//! `.git/config` with its CI token, `~/.ssh`): a program file that fails to build has its text
//! copied into the journal and the reports, which are CI artifacts. So a case reads program
//! files only inside its *case root*, after resolving symlinks:
//!
//! - for a directory given on the command line, that directory;
//! - for a case file given on the command line, the nearest directory above it holding
//!   `clauses.yaml`, or else the file's own directory.
//!
//! (Not the nearest `clauses.yaml` above a given directory: a merge request could add one higher
//! up, e.g. at the top of the checkout, and widen its own root.) A file is checked twice:
//! lexically first (`../` and absolute paths that leave the root are refused without touching
//! the file system, so a case learns nothing about files outside), then after resolving
//! symlinks. Nothing under a `.git` directory is read, even inside the root. The case file
//! itself must resolve inside the root too. `--allow-outside-root` lifts all of this.

use std::path::{Component, Path, PathBuf};

/// Where the cases loaded from one command-line path may read files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseRoot {
    /// The root, absolute and with symlinks resolved; `None`: anywhere (`--allow-outside-root`).
    dir: Option<PathBuf>,
}

/// The hint for every confinement diagnostic.
pub const HINT: &str =
    "files a case reads must be inside its case root; run with --allow-outside-root to lift this";

impl CaseRoot {
    /// No confinement (`--allow-outside-root`).
    pub fn anywhere() -> CaseRoot {
        CaseRoot { dir: None }
    }

    /// The root of the cases found under `given` (a directory or a case file named on the
    /// command line). Falls back to the current directory when `given` cannot be resolved (the
    /// loader reports the missing file itself).
    pub fn of(given: &Path) -> CaseRoot {
        let resolved = std::fs::canonicalize(given).ok();
        let dir = match resolved {
            Some(p) if p.is_dir() => p,
            Some(p) => {
                let parent = p.parent().map(Path::to_path_buf).unwrap_or_default();
                parent
                    .ancestors()
                    .find(|d| d.join("clauses.yaml").is_file())
                    .map(Path::to_path_buf)
                    .unwrap_or(parent)
            }
            None => std::env::current_dir().unwrap_or_default(),
        };
        CaseRoot { dir: Some(dir) }
    }

    /// The root for a case file loaded on its own (tests, the fuzzer): its own directory.
    pub fn of_case_file(case: &Path) -> CaseRoot {
        let dir = case.parent().filter(|p| !p.as_os_str().is_empty());
        CaseRoot::of(dir.unwrap_or(Path::new(".")))
    }

    /// The root directory, `None` when unconfined.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Checks that the case file `case` resolves inside the root.
    pub fn check_case_file(&self, case: &Path) -> Result<(), String> {
        let Some(root) = &self.dir else {
            return Ok(());
        };
        // A file that does not resolve is reported by the reader.
        let Ok(real) = std::fs::canonicalize(case) else {
            return Ok(());
        };
        if !real.starts_with(root) {
            return Err(format!(
                "the case file resolves to {}, outside the case root {} (a symlink?); it was not read",
                real.display(),
                root.display()
            ));
        }
        Ok(())
    }

    /// The file `file` (as written in the case `case`) to read, or why it may not be read.
    pub fn resolve(&self, case: &Path, file: &str) -> Result<PathBuf, String> {
        let written = case.parent().unwrap_or(Path::new("")).join(file);
        let Some(root) = &self.dir else {
            return Ok(written);
        };
        let outside = |what: &str| {
            format!(
                "program file `{file}` {what}, outside the case root {}; it was not read",
                root.display()
            )
        };
        // Lexically: from the case's resolved directory, without touching the file.
        let case_dir = std::fs::canonicalize(case)
            .ok()
            .and_then(|c| c.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| root.clone());
        let lexical = normalize(&case_dir.join(file));
        if !lexical.starts_with(root) {
            return Err(outside(if Path::new(file).is_absolute() {
                "is an absolute path"
            } else {
                "leads out of its directory tree"
            }));
        }
        let real = match std::fs::canonicalize(&lexical) {
            Ok(r) => r,
            // Missing: the reader says so. Not `written`: the OS would resolve a symlink before
            // a `..` that the lexical check applied.
            Err(_) => return Ok(lexical),
        };
        if !real.starts_with(root) {
            return Err(outside(&format!(
                "resolves to {} (through a symlink)",
                real.display()
            )));
        }
        if real
            .strip_prefix(root)
            .is_ok_and(|rel| rel.components().any(|c| c.as_os_str() == ".git"))
        {
            return Err(format!(
                "program file `{file}` is inside a .git directory; it was not read"
            ));
        }
        Ok(real)
    }
}

/// `path` with `.` and `..` components applied, without resolving symlinks.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_outside_the_root_are_refused_before_and_after_resolving_symlinks() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("cases");
        std::fs::create_dir_all(root.join("ext/.git")).unwrap();
        std::fs::write(tmp.path().join("secret.txt"), "s3cret").unwrap();
        std::fs::write(root.join("ext/prog.comp"), "void main(){}").unwrap();
        std::fs::write(root.join("ext/.git/config"), "token").unwrap();
        std::os::unix::fs::symlink("../../secret.txt", root.join("ext/link.comp")).unwrap();
        let case = root.join("ext/a.yaml");
        std::fs::write(&case, "spec: [X]").unwrap();
        let r = CaseRoot::of(&root);
        assert_eq!(
            r.resolve(&case, "prog.comp").unwrap(),
            std::fs::canonicalize(root.join("ext/prog.comp")).unwrap()
        );
        let e = r.resolve(&case, "../../secret.txt").unwrap_err();
        assert!(e.contains("leads out of its directory tree"), "{e}");
        let e = r.resolve(&case, "/etc/passwd").unwrap_err();
        assert!(e.contains("is an absolute path"), "{e}");
        let e = r.resolve(&case, "link.comp").unwrap_err();
        assert!(e.contains("through a symlink"), "{e}");
        let e = r.resolve(&case, ".git/config").unwrap_err();
        assert!(e.contains(".git directory"), "{e}");
        // Missing files inside the root are left to the reader.
        assert_eq!(
            r.resolve(&case, "missing.comp").unwrap(),
            std::fs::canonicalize(&root)
                .unwrap()
                .join("ext/missing.comp")
        );
        assert!(CaseRoot::anywhere().resolve(&case, "/etc/passwd").is_ok());
    }

    #[test]
    fn a_case_file_symlinked_out_of_the_root_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("cases");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(tmp.path().join("outside.yaml"), "x").unwrap();
        std::os::unix::fs::symlink("../outside.yaml", root.join("in.yaml")).unwrap();
        let r = CaseRoot::of(&root);
        let e = r.check_case_file(&root.join("in.yaml")).unwrap_err();
        assert!(e.contains("outside the case root"), "{e}");
        // A file named on the command line: its root is the nearest clauses.yaml above it.
        std::fs::create_dir_all(root.join("ext")).unwrap();
        std::fs::write(root.join("clauses.yaml"), "").unwrap();
        std::fs::write(root.join("ext/b.yaml"), "").unwrap();
        assert_eq!(
            CaseRoot::of(&root.join("ext/b.yaml")).dir(),
            Some(std::fs::canonicalize(&root).unwrap().as_path())
        );
    }
}
