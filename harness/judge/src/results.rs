//! Results of a run: per-case statuses, the journal (`results.jsonl`, one line per finished
//! case, flushed as it goes so an interrupted run keeps what it measured), the failure
//! rendering printed at the end of a run (the end-of-run table is `deqp::table`). The JUnit
//! XML for CI is in `report/junit.rs`.
//!
//! The journal is written one `write` per line (the line and its newline built first) on an
//! `O_APPEND` file, so lines from concurrent writers never interleave inside a line, and a
//! writer holds an advisory lock on it for its whole life, so a second run refuses an output
//! directory in use instead of sharing it. A reader skips what does not parse, a torn last
//! line (a run killed mid-write, even inside a UTF-8 character) included, and says so.

use conform_io::escape::line;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The journal's file name in a run's output directory.
pub const JOURNAL: &str = "results.jsonl";
/// The longest journal line read back (a result's evidence is bounded far below this).
pub const MAX_LINE_BYTES: usize = 64 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    /// The backend lacks a requirement (named in the message).
    Skip,
    Crash,
    Timeout,
    /// The case itself is wrong (it did not load, or its build failed on the reference).
    Invalid,
    /// Undefined behaviour the case declares was detected (the expected outcome of an
    /// `undefined:` case on the reference).
    Flagged,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::Pass,
        Status::Fail,
        Status::Skip,
        Status::Crash,
        Status::Timeout,
        Status::Invalid,
        Status::Flagged,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::Invalid => "invalid",
            Status::Flagged => "flagged",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    pub case: String,
    pub path: String,
    pub backend: String,
    pub status: Status,
    /// One line: why it failed / was skipped; empty on a plain pass.
    pub message: String,
    /// Further lines: differing elements, flags, notes, the tail of stderr.
    #[serde(default)]
    pub details: Vec<String>,
    #[serde(default)]
    pub spec: Vec<String>,
    pub duration_ms: u64,
    /// A command that reruns just this case on this backend.
    pub repro: String,
    /// Whether a failure here is allowed by the case (a hang on an `undefined:` case).
    #[serde(default)]
    pub allowed: bool,
    /// Build log, truncated.
    #[serde(default)]
    pub log: String,
    /// Element indices that differ, per buffer name (for heat maps).
    #[serde(default)]
    pub differing: BTreeMap<String, Vec<u64>>,
    /// Earlier attempts when `--retry` reran a failure (oldest first); the fields above are
    /// the last attempt's. Empty when the case ran once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
    /// What a person needs to understand a failure without the case file at hand: program
    /// source, steps and memory (expected and actual, typed). Only on failing results, bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// Which build produced the result, in one line
    /// ([`crate::identity::BackendIdentity::summary`]); the run record has the whole
    /// identity. Empty for the loader's results and journals from before identities.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub driver: String,
}

/// One earlier run of a case that `--retry` ran again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub status: Status,
    pub message: String,
    pub duration_ms: u64,
}

/// The failure evidence stored with a failing result (see `crate::evidence`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub programs: Vec<ProgramDump>,
    /// Uniforms set before the steps: `name (type) = values`.
    #[serde(default)]
    pub uniforms: Vec<String>,
    /// One line per step, as `conform show` prints them.
    pub steps: Vec<String>,
    pub memory: Vec<BufferDump>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramDump {
    pub language: String,
    pub origin: String,
    /// Line of the first source line in `origin`.
    pub first_line: u32,
    pub text: String,
    /// Set when `text` was cut to the size bound.
    #[serde(default)]
    pub truncated: bool,
}

/// One buffer of a failing case, element by element in the buffer's declared type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BufferDump {
    pub name: String,
    /// Declared element type (`u32`, `f32x4`).
    pub elem: String,
    /// Index of the first element shown (a window when the buffer is large).
    #[serde(default)]
    pub first: u64,
    /// Per element shown: the expected value, or `None` where nothing is checked.
    pub expected: Vec<Option<String>>,
    pub actual: Vec<String>,
    /// Elements in the whole buffer; at most `evidence::MAX_DUMP_ELEMS` are shown.
    pub total: u64,
    /// Indices (in the buffer) of the shown elements that differ.
    #[serde(default)]
    pub differs: Vec<u64>,
    /// How each checked range is compared (exact, within a tolerance, one of...).
    #[serde(default)]
    pub check: String,
}

impl CaseResult {
    /// Whether this result makes the run fail.
    pub fn is_failure(&self) -> bool {
        !self.allowed && matches!(self.status, Status::Fail | Status::Crash | Status::Timeout)
    }

    /// The case's extension: its top folder (`nv_compute_program5/x` → `nv_compute_program5`).
    pub fn extension(&self) -> &str {
        self.case.split_once('/').map_or("(top level)", |(e, _)| e)
    }
}

/// Appends results to `results.jsonl` as they arrive, holding the file's lock.
pub struct Journal {
    file: File,
    pub path: PathBuf,
}

/// What [`Journal::read`] skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Lines that do not parse as a result (or are longer than [`MAX_LINE_BYTES`]).
    pub bad: usize,
    /// Whether the last of them is the file's last line, cut short (no newline).
    pub torn_last: bool,
}

/// Whether `dir` holds an earlier run's results (a journal with results, or a run record):
/// each run gets its own directory, and conform never adds to one.
pub fn holds_a_run(dir: &Path) -> bool {
    // `run.json` is `record::FILE` (record.rs reads this module, not the reverse).
    std::fs::metadata(dir.join(JOURNAL)).is_ok_and(|m| m.len() > 0) || dir.join("run.json").exists()
}

impl Journal {
    /// Opens (creating it if needed) the journal in `dir` for appending, and locks it: a
    /// directory another run is writing to is refused, and so is one an earlier run or merge
    /// wrote to (a journal with results, or a run record): its reports and `conform report`
    /// would mix the two runs, so each run gets its own directory.
    pub fn create(dir: &Path) -> std::io::Result<Journal> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(JOURNAL);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => {
                // Checked under the lock: a run that held it has finished (or was killed).
                if holds_a_run(dir) {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::AlreadyExists,
                        format!(
                            "{} already holds the results of an earlier run; conform never adds to them: choose a new --out (or remove the directory)",
                            dir.display()
                        ),
                    ));
                }
                Ok(Journal { file, path })
            }
            Err(std::fs::TryLockError::WouldBlock) => Err(std::io::Error::new(
                std::io::ErrorKind::ResourceBusy,
                format!(
                    "another conform process is writing to {} (its journal is locked); give each run its own --out",
                    dir.display()
                ),
            )),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Appends one result: the whole line, newline included, in one write.
    pub fn append(&mut self, r: &CaseResult) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(r).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)
    }

    /// Reads a journal back (for merging and for reports): every line that parses, and what
    /// was skipped. Only regular files are read; lines are bounded.
    pub fn read(path: &Path) -> Result<(Vec<CaseResult>, Skipped), conform_io::input::ReadError> {
        use conform_io::input::{read_line_bounded, Line};
        let (f, _) = conform_io::input::open_regular(path)?;
        let mut reader = std::io::BufReader::new(f);
        let mut out = Vec::new();
        let mut skipped = Skipped::default();
        while let Some((line, ended)) = read_line_bounded(&mut reader, MAX_LINE_BYTES)? {
            let parsed = match &line {
                Line::Text(t) if t.iter().all(u8::is_ascii_whitespace) => continue,
                Line::Text(t) => serde_json::from_slice::<CaseResult>(t).ok(),
                Line::TooLong => None,
            };
            match parsed {
                Some(r) => out.push(r),
                None => {
                    skipped.bad += 1;
                    skipped.torn_last = !ended;
                }
            }
        }
        Ok((out, skipped))
    }
}

/// A failure shown to a person: `label` (what it is: `REGRESSION (fail)`), case, message,
/// `why` (the gate's reason, if any), the first details, and the repro line. The details read
/// top-down: what differs (mismatches with their elements, the build log) first, then the
/// backend's and the runner's notes (`note: `, `flag `), wherever they were added. Every field
/// is escaped for the console (`conform_io::escape::line`): names and messages come from case
/// files.
pub fn render_failure(r: &CaseResult, label: &str, why: &str) -> String {
    let why = if why.is_empty() {
        String::new()
    } else {
        format!(" ({why})")
    };
    let mut out = format!(
        "{} {} [{}]: {}{}\n",
        conform_io::console::paint_failure(label),
        line(&r.case),
        line(&r.backend),
        line(&r.message),
        line(&why)
    );
    let is_note = |d: &&String| d.starts_with("note: ") || d.starts_with("flag ");
    let (notes, diff): (Vec<&String>, Vec<&String>) = r.details.iter().partition(is_note);
    for d in diff.into_iter().chain(notes).take(12) {
        out.push_str(&format!("    {}\n", line(d)));
    }
    if r.details.len() > 12 {
        out.push_str(&format!(
            "    ... {} more lines in the journal\n",
            r.details.len() - 12
        ));
    }
    out.push_str(&format!("    rerun: {}\n", line(&r.repro)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample(case: &str, backend: &str, status: Status) -> CaseResult {
        CaseResult {
            case: case.into(),
            path: format!("cases/{case}.yaml"),
            backend: backend.into(),
            status,
            message: if status == Status::Pass {
                String::new()
            } else {
                "went wrong".into()
            },
            details: vec!["[0] expected 1, actual 2".into()],
            spec: vec!["X-1".into()],
            duration_ms: 3,
            repro: format!("conform run cases/{case}.yaml --backend {backend}"),
            allowed: false,
            log: String::new(),
            differing: BTreeMap::new(),
            attempts: vec![],
            evidence: None,
            driver: String::new(),
        }
    }

    #[test]
    fn journal_round_trips_and_survives_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path()).unwrap();
        j.append(&sample("a", "reference", Status::Pass)).unwrap();
        j.append(&sample("b", "reference", Status::Fail)).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&j.path)
            .unwrap()
            .write_all(b"{\"case\": \"torn")
            .unwrap();
        let (back, skipped) = Journal::read(&j.path).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(
            skipped,
            Skipped {
                bad: 1,
                torn_last: true
            }
        );
        assert_eq!(back[1].status, Status::Fail);
    }

    #[test]
    fn a_line_torn_inside_a_utf8_character_is_skipped_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(dir.path()).unwrap();
        let mut r = sample("ü/ü", "reference", Status::Pass);
        j.append(&r).unwrap();
        r.case = "ü/second".into();
        let line = serde_json::to_vec(&r).unwrap();
        let cut = line.iter().position(|&b| b == 0xC3).unwrap() + 1;
        std::fs::OpenOptions::new()
            .append(true)
            .open(&j.path)
            .unwrap()
            .write_all(&line[..cut])
            .unwrap();
        let (back, skipped) = Journal::read(&j.path).unwrap();
        assert_eq!(back.len(), 1);
        assert!(skipped.torn_last);
    }

    #[test]
    fn a_second_writer_is_refused_while_the_first_holds_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let first = Journal::create(dir.path()).unwrap();
        let e = Journal::create(dir.path()).err().unwrap();
        assert!(e.to_string().contains("another conform process"), "{e}");
        drop(first);
        // Nothing was written: the directory is free.
        let mut again = Journal::create(dir.path()).unwrap();
        again
            .append(&sample("a", "reference", Status::Pass))
            .unwrap();
        drop(again);
        // Once it holds a result, or a run record, no later run adds to it.
        let e = Journal::create(dir.path()).err().unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert!(e.to_string().contains("choose a new --out"), "{e}");
        let other = tempfile::tempdir().unwrap();
        std::fs::write(other.path().join("run.json"), "{}").unwrap();
        assert!(Journal::create(other.path()).is_err());
    }

    /// The notes a backend or the runner adds (before the mismatches or after) never split a
    /// mismatch from its elements: they come after the diff.
    #[test]
    fn failure_rendering_keeps_the_diff_together_and_the_notes_after_it() {
        let mut r = sample("x/b", "reference", Status::Fail);
        r.message = "buffer `out` (u32 elements 0..2, line 22): 2 of 2 elements differ".into();
        r.details = [
            "note: worker restarted",
            "  [0] expected 1, actual 3",
            "  [1] expected 4, actual 3",
            "note: ran 3 schedule(s)",
            "buffer `out` (u32 elements 0..2, line 18, after step 4): 1 of 2 elements differ",
            "  [0] expected 1, actual 3",
            "flag uninitialized-shared-read: at line 3",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            render_failure(&r, "FAIL", ""),
            "FAIL x/b [reference]: buffer `out` (u32 elements 0..2, line 22): 2 of 2 elements differ\n\
             \x20     [0] expected 1, actual 3\n\
             \x20     [1] expected 4, actual 3\n\
             \x20   buffer `out` (u32 elements 0..2, line 18, after step 4): 1 of 2 elements differ\n\
             \x20     [0] expected 1, actual 3\n\
             \x20   note: worker restarted\n\
             \x20   note: ran 3 schedule(s)\n\
             \x20   flag uninitialized-shared-read: at line 3\n\
             \x20   rerun: conform run cases/x/b.yaml --backend reference\n"
        );
    }

    #[test]
    fn failure_rendering_names_the_repro() {
        let r = sample("x/b", "llvmpipe", Status::Fail);
        assert_eq!(
            render_failure(&r, "REGRESSION (fail)", "failed all 2 attempts"),
            "REGRESSION (fail) x/b [llvmpipe]: went wrong (failed all 2 attempts)\n    [0] expected 1, actual 2\n    rerun: conform run cases/x/b.yaml --backend llvmpipe\n"
        );
    }
}
