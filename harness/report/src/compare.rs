//! `conform compare RUN_DIR RUN_DIR...`: what changed between runs, in the manner of piglit's
//! `summary`.
//!
//! Owns: reading run directories for a comparison (each run's journal through
//! [`crate::ci::read_journal`], its record for the start time and the drivers' identities),
//! the `--backends A,B` view of one run (backend A's results as the run before, B's as the
//! run after), the classification of each (case, backend) between two runs ([`Kind`]:
//! regression, fix, change, new, missing, unchanged), the comparisons made (each run against
//! the next, and the first against the last) and the exit code (1 when the last run has a
//! regression against the first). The renderings are the children: [`markdown`] and [`html`].
//!
//! Only statuses are compared: a failure whose message changed is unchanged. The messages are
//! shown beside the statuses that did change.

pub mod html;
pub mod markdown;

use conform_judge::record::RunRecord;
use conform_judge::results::{CaseResult, Status};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one run says about one (case, backend).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub status: Status,
    /// The result's one-line message (empty on a plain pass).
    pub message: String,
}

/// One run as a comparison sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// `run 1`, `run 2`, ... in the order the runs were given (not `#1`: GitLab links that
    /// to an issue).
    pub label: String,
    /// The run directory.
    pub dir: PathBuf,
    /// When the run started (run.json's `started`); `None` without a record.
    pub started: Option<String>,
    /// Every backend the run has results for or asked for: its identity's one-line summary
    /// when the record has one, why it was absent when it was, else `None`.
    pub backends: BTreeMap<String, Option<String>>,
    /// The results by (case, backend).
    pub results: BTreeMap<(String, String), Seen>,
}

impl Run {
    /// A run of `dir` from its record (when it has one) and its results.
    pub fn from_parts(dir: &Path, record: Option<&RunRecord>, results: Vec<CaseResult>) -> Run {
        let mut backends: BTreeMap<String, Option<String>> = BTreeMap::new();
        if let Some(r) = record {
            for b in &r.backends {
                backends.insert(b.clone(), None);
            }
            for (b, why) in &r.absent {
                backends.insert(b.clone(), Some(format!("absent: {why}")));
            }
            for (b, id) in &r.identities {
                backends.insert(b.clone(), Some(id.summary()));
            }
        }
        let mut seen = BTreeMap::new();
        for r in results {
            backends.entry(r.backend.clone()).or_insert(None);
            seen.insert(
                (r.case, r.backend),
                Seen {
                    status: r.status,
                    message: r.message,
                },
            );
        }
        Run {
            label: String::new(),
            dir: dir.to_path_buf(),
            started: record.map(|r| r.started.clone()),
            backends,
            results: seen,
        }
    }

    /// Whether the run has at least one result of `backend`.
    fn has_backend(&self, backend: &str) -> bool {
        self.results.keys().any(|(_, b)| b == backend)
    }

    /// This run reduced to `backend`'s results, filed under `as_name`.
    fn only(&self, backend: &str, as_name: &str) -> Run {
        let results = self
            .results
            .iter()
            .filter(|((_, b), _)| b == backend)
            .map(|((c, _), s)| ((c.clone(), as_name.to_string()), s.clone()))
            .collect();
        let identity = self.backends.get(backend).cloned().flatten();
        Run {
            label: String::new(),
            dir: self.dir.clone(),
            started: self.started.clone(),
            backends: BTreeMap::from([(backend.to_string(), identity)]),
            results,
        }
    }
}

/// Reads the run in `dir` (a run's or a merge's output directory): its journal, the latest
/// result of each (case, backend), and its record when it has one.
pub fn read_run(dir: &Path) -> Result<Run, String> {
    if !dir.exists() {
        return Err(format!("{}: no such directory", dir.display()));
    }
    if !dir.is_dir() {
        return Err(format!(
            "{}: not a directory (give a run's output directory)",
            dir.display()
        ));
    }
    let journal = dir.join(conform_judge::results::JOURNAL);
    // A run writes its journal and record as plain files: a symlink there (to a secret, or to
    // a device) is refused before anything is read through it, so no error can quote it.
    for file in [&journal, &dir.join(conform_judge::record::FILE)] {
        if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!(
                "{}: is a symbolic link; a run writes none, so it is not read",
                file.display()
            ));
        }
    }
    if std::fs::symlink_metadata(&journal).is_err() {
        return Err(format!(
            "{}: no {} here: not the output directory of a run or a merge",
            dir.display(),
            conform_judge::results::JOURNAL
        ));
    }
    let record = RunRecord::read(dir)?;
    let results = crate::ci::read_journal(dir)?;
    Ok(Run::from_parts(dir, record.as_ref(), results))
}

/// What happened to one (case, backend) from one run to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// pass → fail, crash, timeout or invalid.
    Regression,
    /// fail, crash, timeout or invalid → pass.
    Fix,
    /// Any other change of status (fail → crash, pass → skip, skip → pass, ...).
    Change,
    /// No result in the earlier run.
    New,
    /// A result in the earlier run, none in the later.
    Missing,
    /// The same status (whatever the messages).
    Unchanged,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Regression,
        Kind::Fix,
        Kind::Change,
        Kind::New,
        Kind::Missing,
        Kind::Unchanged,
    ];

    /// The kind as a plural heading word (`regressions`).
    pub fn plural(self) -> &'static str {
        match self {
            Kind::Regression => "regressions",
            Kind::Fix => "fixes",
            Kind::Change => "changes",
            Kind::New => "new",
            Kind::Missing => "missing",
            Kind::Unchanged => "unchanged",
        }
    }

    /// The heading of the kind's table in a rendering.
    pub fn heading(self) -> &'static str {
        match self {
            Kind::Regression => "Regressions (pass → fail, crash, timeout, invalid)",
            Kind::Fix => "Fixes (fail, crash, timeout, invalid → pass)",
            Kind::Change => "Other changes",
            Kind::New => "New (no result before)",
            Kind::Missing => "Missing (no result after)",
            Kind::Unchanged => "Unchanged",
        }
    }

    /// The kind as a CSS class or a file word (`regression`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Regression => "regression",
            Kind::Fix => "fix",
            Kind::Change => "change",
            Kind::New => "new",
            Kind::Missing => "missing",
            Kind::Unchanged => "unchanged",
        }
    }
}

/// A status that means the case does not work on the backend.
fn broken(s: Status) -> bool {
    matches!(
        s,
        Status::Fail | Status::Crash | Status::Timeout | Status::Invalid
    )
}

/// The kind of the step from `before` to `after`; `None` when neither run has a result.
pub fn classify(before: Option<Status>, after: Option<Status>) -> Option<Kind> {
    Some(match (before, after) {
        (None, None) => return None,
        (None, Some(_)) => Kind::New,
        (Some(_), None) => Kind::Missing,
        (Some(b), Some(a)) if b == a => Kind::Unchanged,
        (Some(Status::Pass), Some(a)) if broken(a) => Kind::Regression,
        (Some(b), Some(Status::Pass)) if broken(b) => Kind::Fix,
        _ => Kind::Change,
    })
}

/// One (case, backend) whose status differs between two runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub case: String,
    pub backend: String,
    pub kind: Kind,
    pub before: Option<Seen>,
    pub after: Option<Seen>,
}

/// Messages are cut to this many characters in the tables.
pub const MAX_MESSAGE: usize = 160;

impl Row {
    /// The messages to show beside the statuses, each on one line and cut: none when both
    /// are empty, one unlabelled when only one side has a message or both say the same,
    /// else both, labelled `before` and `after`.
    pub fn messages(&self) -> Vec<(Option<&'static str>, String)> {
        let of = |s: &Option<Seen>| {
            s.as_ref()
                .map(|s| crate::markdown::first_line_cut(&s.message, MAX_MESSAGE))
                .unwrap_or_default()
        };
        let (b, a) = (of(&self.before), of(&self.after));
        match (b.is_empty(), a.is_empty()) {
            (true, true) => vec![],
            (false, true) => vec![(None, b)],
            (true, false) => vec![(None, a)],
            (false, false) if a == b => vec![(None, a)],
            (false, false) => vec![(Some("before"), b), (Some("after"), a)],
        }
    }
}

/// One run against another.
#[derive(Clone, Debug, PartialEq)]
pub struct Diff {
    /// The runs compared, as indices into [`Comparison::runs`].
    pub before: usize,
    pub after: usize,
    /// Every (case, backend) that is not unchanged, by case then backend.
    pub rows: Vec<Row>,
    /// How many are unchanged.
    pub unchanged: usize,
    /// Backends that ran in only one of the two runs, with their result counts: not
    /// compared case by case (every result would be "new" or "missing"), named once.
    pub only_before: BTreeMap<String, usize>,
    pub only_after: BTreeMap<String, usize>,
}

impl Diff {
    /// `before` against `after` (their indices `at`).
    pub fn of(before: &Run, after: &Run, at: (usize, usize)) -> Diff {
        let backends = |r: &Run| -> std::collections::BTreeSet<String> {
            r.results.keys().map(|(_, b)| b.clone()).collect()
        };
        let (in_before, in_after) = (backends(before), backends(after));
        let mut keys: Vec<&(String, String)> =
            before.results.keys().chain(after.results.keys()).collect();
        keys.sort();
        keys.dedup();
        let mut rows = Vec::new();
        let mut unchanged = 0;
        let mut only_before = BTreeMap::new();
        let mut only_after = BTreeMap::new();
        for key in keys {
            if !in_after.contains(&key.1) {
                *only_before.entry(key.1.clone()).or_default() += 1;
                continue;
            }
            if !in_before.contains(&key.1) {
                *only_after.entry(key.1.clone()).or_default() += 1;
                continue;
            }
            let b = before.results.get(key);
            let a = after.results.get(key);
            match classify(b.map(|s| s.status), a.map(|s| s.status)) {
                Some(Kind::Unchanged) => unchanged += 1,
                Some(kind) => rows.push(Row {
                    case: key.0.clone(),
                    backend: key.1.clone(),
                    kind,
                    before: b.cloned(),
                    after: a.cloned(),
                }),
                None => {}
            }
        }
        Diff {
            before: at.0,
            after: at.1,
            rows,
            unchanged,
            only_before,
            only_after,
        }
    }

    pub fn count(&self, kind: Kind) -> usize {
        if kind == Kind::Unchanged {
            return self.unchanged;
        }
        self.rows.iter().filter(|r| r.kind == kind).count()
    }

    /// `backends only in run 2, not compared: zink (554 results)`: one line per side that
    /// has backends the other run lacks.
    pub fn unshared_backends(&self) -> Vec<String> {
        let line = |at: usize, m: &BTreeMap<String, usize>| {
            let names: Vec<String> = m
                .iter()
                .map(|(b, n)| format!("{b} ({n} result{})", if *n == 1 { "" } else { "s" }))
                .collect();
            format!(
                "backends only in run {}, not compared: {}",
                at + 1,
                names.join(", ")
            )
        };
        let mut out = vec![];
        if !self.only_before.is_empty() {
            out.push(line(self.before, &self.only_before));
        }
        if !self.only_after.is_empty() {
            out.push(line(self.after, &self.only_after));
        }
        out
    }

    /// The rows of `kind`, by case then backend.
    pub fn rows_of(&self, kind: Kind) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(move |r| r.kind == kind)
    }
}

/// Runs and what changed between them.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub runs: Vec<Run>,
    /// Each run against the next; then, with more than two runs, the first against the last.
    pub diffs: Vec<Diff>,
}

impl Comparison {
    /// Compares `runs` in the order given (two at least); labels them `run 1`, `run 2`, ...
    pub fn new(mut runs: Vec<Run>) -> Result<Comparison, String> {
        if runs.len() < 2 {
            return Err(format!(
                "compare needs two run directories or more (got {}), or one with --backends BEFORE,AFTER",
                runs.len()
            ));
        }
        for (i, r) in runs.iter_mut().enumerate() {
            r.label = format!("run {}", i + 1);
        }
        let mut diffs: Vec<Diff> = runs
            .windows(2)
            .enumerate()
            .map(|(i, w)| Diff::of(&w[0], &w[1], (i, i + 1)))
            .collect();
        let last = runs.len() - 1;
        if last > 1 {
            diffs.push(Diff::of(&runs[0], &runs[last], (0, last)));
        }
        Ok(Comparison { runs, diffs })
    }

    /// The first run against the last.
    pub fn overall(&self) -> &Diff {
        // `new` makes at least one diff, and the last one is first → last.
        &self.diffs[self.diffs.len() - 1]
    }

    /// 1 when the last run has a regression against the first, else 0.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.overall().count(Kind::Regression) > 0)
    }

    /// How a diff is named: `run 1 → run 2`, and `(first → last)` after the overall one of three
    /// runs or more.
    pub fn title(&self, d: &Diff) -> String {
        let t = format!(
            "{} → {}",
            self.runs[d.before].label, self.runs[d.after].label
        );
        if self.runs.len() > 2 && d.before == 0 && d.after == self.runs.len() - 1 {
            format!("{t} (first → last)")
        } else {
            t
        }
    }

    /// The counts of the first run against the last, in one line (no markup).
    pub fn verdict(&self) -> String {
        let d = self.overall();
        let counts: Vec<String> = Kind::ALL
            .iter()
            .map(|k| format!("{}: {}", k.plural(), d.count(*k)))
            .collect();
        format!(
            "{} → {}: {}",
            self.runs[d.before].label,
            self.runs[d.after].label,
            counts.join(", ")
        )
    }
}

/// The two runs `--backends BEFORE,AFTER` makes of one run: BEFORE's results, then AFTER's,
/// both filed under the backend `BEFORE → AFTER`.
pub fn split_backends(run: &Run, names: &[String]) -> Result<Vec<Run>, String> {
    let [before, after] = names else {
        return Err(format!(
            "--backends takes exactly two backend names, BEFORE,AFTER (got {}: {})",
            names.len(),
            names.join(",")
        ));
    };
    let (before, after) = (&result_name(before), &result_name(after));
    for name in [before, after] {
        if !run.has_backend(name) {
            let have: std::collections::BTreeSet<&str> =
                run.results.keys().map(|(_, b)| b.as_str()).collect();
            return Err(format!(
                "{}: no results of backend `{name}` (it has: {})",
                run.dir.display(),
                if have.is_empty() {
                    "none".to_string()
                } else {
                    have.into_iter().collect::<Vec<_>>().join(", ")
                }
            ));
        }
    }
    let pair = format!("{before} → {after}");
    Ok(vec![run.only(before, &pair), run.only(after, &pair)])
}

/// The name results carry for a backend as `--backend` spells it: a Mesa install given by
/// its prefix (`llvmpipe@~/mesa-25`) is named by the prefix's last component
/// (`llvmpipe@mesa-25`), so either spelling selects it.
fn result_name(name: &str) -> String {
    match name.split_once('@') {
        Some((driver, prefix)) if prefix.contains('/') => {
            let label = prefix
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(prefix);
            format!("{driver}@{label}")
        }
        _ => name.to_string(),
    }
}

/// The renderings of a comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Markdown,
    Html,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "markdown" | "md" => Ok(Format::Markdown),
            "html" => Ok(Format::Html),
            _ => Err(format!("unknown format `{s}`: markdown or html")),
        }
    }
}

/// What `conform compare` was asked.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The run directories, oldest first.
    pub dirs: Vec<PathBuf>,
    /// `--backends BEFORE,AFTER` (then exactly one directory).
    pub backends: Option<Vec<String>>,
    pub format: Format,
    /// `--output FILE`; standard output without.
    pub output: Option<PathBuf>,
}

/// Reads the runs a request names and compares them.
pub fn load(req: &Request) -> Result<Comparison, String> {
    let runs = match &req.backends {
        Some(names) => {
            let [dir] = req.dirs.as_slice() else {
                return Err(format!(
                    "--backends compares two backends of one run directory (got {} directories)",
                    req.dirs.len()
                ));
            };
            split_backends(&read_run(dir)?, names)?
        }
        None => {
            if req.dirs.len() < 2 {
                return Err(format!(
                    "compare needs two run directories or more (got {}), or one with --backends BEFORE,AFTER",
                    req.dirs.len()
                ));
            }
            req.dirs
                .iter()
                .map(|d| read_run(d))
                .collect::<Result<_, _>>()?
        }
    };
    Comparison::new(runs)
}

/// `conform compare`: the comparison rendered to standard output or `--output`; the exit
/// code (1 when the last run regressed against the first), or the error of bad input.
pub fn command(req: &Request) -> Result<u8, String> {
    let cmp = load(req)?;
    let text = match req.format {
        Format::Markdown => markdown::render(&cmp),
        Format::Html => html::render(&cmp),
    };
    match &req.output {
        Some(path) => {
            std::fs::write(path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            conform_io::outln!(
                "{}: {}",
                path.display(),
                conform_io::escape::line(&cmp.verdict())
            );
        }
        None => conform_io::out!("{text}"),
    }
    Ok(cmp.exit_code())
}

#[cfg(test)]
mod tests;
