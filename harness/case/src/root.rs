//! Confinement: which files a case may read.
//!
//! A case from an untrusted merge request must not read the runner's files (`/etc/passwd`,
//! `.git/config` with its CI token, `~/.ssh`): a program file that fails to build has its text
//! copied into the journal and the reports, which are CI artifacts. So a case reads program
//! files only inside its *case root*, after resolving symlinks:
//!
//! - for a directory given on the command line, that directory;
//! - for a case file given on the command line, the nearest directory above it holding
//!   `clauses.yaml`, or else the directory it is named in, both found from the path as given
//!   (never from where the file resolves: a symlink must not choose its own root), so the file
//!   is checked as it would be when found by walking that directory.
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
    ///
    /// A directory is resolved (symlinks followed: the user named it). A file is not: its root
    /// is found from the path as named, lexically (the nearest directory above it holding
    /// `clauses.yaml`, or else the directory it is named in), and only that directory is
    /// resolved. So a file named on the command line is checked as it is when found by walking
    /// that directory: a symlink to a file elsewhere, or a path through a directory symlink
    /// below the root, resolves outside and is refused, where resolving the file first would
    /// have made the file's target choose its own root.
    pub fn of(given: &Path) -> CaseRoot {
        let here = || std::env::current_dir().unwrap_or_default();
        if given.is_dir() {
            return CaseRoot {
                dir: Some(std::fs::canonicalize(given).unwrap_or_else(|_| here())),
            };
        }
        let named = if given.is_absolute() {
            normalize(given)
        } else {
            normalize(&here().join(given))
        };
        let parent = named.parent().map(Path::to_path_buf).unwrap_or_else(here);
        let dir = parent
            .ancestors()
            .find(|d| d.join("clauses.yaml").is_file())
            .unwrap_or(&parent);
        CaseRoot {
            dir: Some(std::fs::canonicalize(dir).unwrap_or_else(|_| here())),
        }
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

    /// Checks that the case file `case` resolves inside the root and not inside a `.git`
    /// directory there: the check of a file found by walking a directory and of a file named
    /// on the command line alike (the reader then refuses anything but a regular file).
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
        if in_git_dir(root, &real) {
            return Err(format!(
                "the case file resolves to {}, inside a .git directory; it was not read",
                real.display()
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
        if in_git_dir(root, &real) {
            return Err(format!(
                "program file `{file}` is inside a .git directory; it was not read"
            ));
        }
        Ok(real)
    }
}

/// Whether `real` (inside `root`) lies in a `.git` directory below the root.
fn in_git_dir(root: &Path, real: &Path) -> bool {
    real.strip_prefix(root)
        .is_ok_and(|rel| rel.components().any(|c| c.as_os_str() == ".git"))
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

    #[test]
    fn a_named_case_file_gets_the_root_of_the_directory_it_is_named_in_not_of_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("cases");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(root.join("x")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.yaml"), "s3cret").unwrap();
        std::os::unix::fs::symlink("../../outside/secret.yaml", root.join("x/link.yaml")).unwrap();
        std::os::unix::fs::symlink("../../outside", root.join("x/linkdir")).unwrap();
        // No catalogue: the directory the file is named in, as walking it would have it.
        let link = root.join("x/link.yaml");
        let r = CaseRoot::of(&link);
        assert_eq!(
            r.dir(),
            Some(std::fs::canonicalize(root.join("x")).unwrap().as_path())
        );
        let e = r.check_case_file(&link).unwrap_err();
        assert!(e.contains("outside the case root"), "{e}");
        // With a catalogue above: its directory, so a path through a directory symlink below
        // it resolves outside too.
        std::fs::write(root.join("clauses.yaml"), "").unwrap();
        let through = root.join("x/linkdir/secret.yaml");
        let r = CaseRoot::of(&through);
        assert_eq!(
            r.dir(),
            Some(std::fs::canonicalize(&root).unwrap().as_path())
        );
        let e = r.check_case_file(&through).unwrap_err();
        assert!(e.contains("outside the case root"), "{e}");
        let e = CaseRoot::of(&link).check_case_file(&link).unwrap_err();
        assert!(e.contains("outside the case root"), "{e}");
    }

    #[test]
    fn a_case_file_in_a_git_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("cases");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/c.yaml"), "x").unwrap();
        std::os::unix::fs::symlink(".git/c.yaml", root.join("in.yaml")).unwrap();
        let r = CaseRoot::of(&root);
        for f in [root.join(".git/c.yaml"), root.join("in.yaml")] {
            let e = r.check_case_file(&f).unwrap_err();
            assert!(e.contains("inside a .git directory"), "{e}");
        }
    }
}
