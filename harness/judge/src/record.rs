//! The run record (`run.json`): what a run set out to do, and whether it finished.
//!
//! A journal alone cannot tell a finished run from one killed after 11 of 1104 results, a
//! `--filter` that matched nothing, or a requested driver that was absent: each of those once
//! gated green. So a run writes `run.json` before its first result (state `running`, the
//! number of results it will write: valid cases x backends + invalid cases, the backends
//! that could not run, its shard) and rewrites it at its end (`complete`, or `interrupted`
//! after SIGINT/SIGTERM). `conform report` and `conform merge` turn the record and the
//! journal into [`gaps`]: any gap means the run did not pass, whatever its results say
//! (exit code 3, docs/CI.md). The record is replaced atomically (write, then rename), so a
//! reader sees the old record or the new one, never half of one.

use crate::identity::BackendIdentity;
use crate::shard::Shard;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file name of the record in a run's output directory.
pub const FILE: &str = "run.json";
/// The valid cases a run selected, one name per line (deqp-runner's caselist): with the
/// record's backends, what tells a result that never came (`Missing`) from one never asked for.
pub const CASELIST: &str = "caselist.txt";
/// The largest record read back (it lists backends and reasons, a few KiB).
const MAX_BYTES: u64 = 4 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunState {
    /// Started; not ended (yet, or ever: killed).
    Running,
    /// Every selected case ran on every backend.
    Complete,
    /// Stopped by SIGINT, SIGTERM or SIGHUP; the journal holds what finished before.
    Interrupted,
    /// A merge of runs with gaps (listed in `gaps`).
    Incomplete,
    /// Stopped on purpose after `--max-fails` failures: the cases not run are missing.
    MaxFails,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub state: RunState,
    /// Results the run writes when it completes (valid cases x backends + invalid cases).
    pub expected: u64,
    /// Valid cases selected (after `--filter` and `--shard`).
    pub cases: u64,
    /// Backends the run was asked for, absent ones included.
    pub backends: Vec<String>,
    /// Backends asked for that could not run, with the reason (their cases are skips).
    #[serde(default)]
    pub absent: BTreeMap<String, String>,
    /// `--shard I/N`.
    #[serde(default)]
    pub shard: Option<String>,
    /// RFC 3339 times.
    pub started: String,
    #[serde(default)]
    pub ended: Option<String>,
    /// A merge's inputs, and the gaps found in them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<String>,
    /// Which build each backend was (`identity`), by backend name: absent backends and
    /// records from before identities have none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub identities: BTreeMap<String, BackendIdentity>,
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl RunRecord {
    /// The record of a run starting now.
    pub fn start(
        cases: usize,
        invalid: usize,
        backends: Vec<String>,
        absent: BTreeMap<String, String>,
        shard: Option<Shard>,
    ) -> RunRecord {
        RunRecord {
            state: RunState::Running,
            expected: (cases as u64) * (backends.len() as u64) + invalid as u64,
            cases: cases as u64,
            backends,
            absent,
            shard: shard.map(|s| s.to_string()),
            started: now(),
            ended: None,
            merged_from: vec![],
            gaps: vec![],
            identities: BTreeMap::new(),
        }
    }

    /// Marks the record ended in `state`.
    pub fn end(&mut self, state: RunState) {
        self.state = state;
        self.ended = Some(now());
    }

    /// Writes the record into `dir` atomically.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let tmp = dir.join(format!(".{FILE}.tmp"));
        std::fs::write(&tmp, text + "\n")?;
        std::fs::rename(&tmp, dir.join(FILE))
    }

    /// The record in `dir`: `Ok(None)` when there is none.
    pub fn read(dir: &Path) -> Result<Option<RunRecord>, String> {
        conform_io::input::read_json_if_present(&dir.join(FILE), MAX_BYTES)
    }
}

/// Writes the caselist of a run starting in `dir` (names hold no line break: the loader
/// refuses control characters in names).
pub fn write_caselist<'a>(dir: &Path, names: impl Iterator<Item = &'a str>) -> std::io::Result<()> {
    let mut text = String::new();
    for n in names {
        text.push_str(n);
        text.push('\n');
    }
    std::fs::write(dir.join(CASELIST), text)
}

/// The caselist in `dir`: `Ok(None)` when there is none (a run from before caselists).
pub fn read_caselist(dir: &Path) -> Result<Option<Vec<String>>, String> {
    let path = dir.join(CASELIST);
    if !path.exists() {
        return Ok(None);
    }
    let text = conform_io::input::read_text(&path).map_err(|d| d.to_string())?;
    Ok(Some(
        text.lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect(),
    ))
}

/// The most `Missing` rows listed for one run: a million, 100 backends of 10,000 cases.
pub const MAX_MISSING_ROWS: usize = 1 << 20;

/// What a run set out to run: the selected cases on each of the backends.
#[derive(Clone, Debug, Default)]
pub struct Planned {
    pub cases: Vec<String>,
    pub backends: Vec<String>,
}

impl Planned {
    /// The plan of the run in `dir` (its caselist and record), when both are there.
    pub fn of_dir(dir: &Path, record: Option<&RunRecord>) -> Result<Option<Planned>, String> {
        let (Some(cases), Some(r)) = (read_caselist(dir)?, record) else {
            return Ok(None);
        };
        Ok(Some(Planned {
            cases,
            backends: r.backends.clone(),
        }))
    }

    /// The `(backend, case)` pairs planned that have no result: cases an interrupted or
    /// killed run never ran, deqp-runner's `Missing`; at most [`MAX_MISSING_ROWS`] of them.
    /// (The backends and the cases come from files, each bounded; their product is not, and a
    /// hand-made record could plan 10^11 pairs. The run is incomplete either way: its gaps
    /// say so.)
    pub fn missing(&self, results: &[crate::results::CaseResult]) -> Vec<(String, String)> {
        let have: std::collections::HashSet<(&str, &str)> = results
            .iter()
            .map(|r| (r.backend.as_str(), r.case.as_str()))
            .collect();
        self.backends
            .iter()
            .flat_map(|b| self.cases.iter().map(move |c| (b, c)))
            .filter(|(b, c)| !have.contains(&(b.as_str(), c.as_str())))
            .take(MAX_MISSING_ROWS)
            .map(|(b, c)| (b.clone(), c.clone()))
            .collect()
    }
}

/// Whether another process holds `dir`'s journal open for writing (a run still going).
pub fn journal_in_use(dir: &Path) -> bool {
    let Ok(f) = std::fs::File::open(dir.join(crate::results::JOURNAL)) else {
        return false;
    };
    matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
}

/// Why the run in `dir` (with `record`, and `results` distinct results in its journal) did not
/// pass whatever its results say; empty when it is complete.
pub fn gaps(dir: &Path, record: Option<&RunRecord>, results: usize) -> Vec<String> {
    let Some(r) = record else {
        return vec![format!(
            "no run record ({}): cannot tell whether the run finished",
            dir.join(FILE).display()
        )];
    };
    let mut gaps = r.gaps.clone();
    match r.state {
        RunState::Running if journal_in_use(dir) => gaps.push("the run is still going".into()),
        RunState::Running => gaps.push("the run was killed: it never recorded its end".into()),
        RunState::Interrupted => gaps.push("the run was interrupted by a signal".into()),
        RunState::MaxFails => gaps.push(
            "the run stopped after --max-fails failures; the cases it did not start are missing"
                .into(),
        ),
        RunState::Complete | RunState::Incomplete => {}
    }
    if (results as u64) < r.expected {
        gaps.push(format!(
            "the journal holds {results} of the {} results the run set out to write",
            r.expected
        ));
    }
    // A shard may be empty (fewer cases than shards); the merge checks the whole set.
    if r.cases == 0 && r.shard.is_none() && r.merged_from.is_empty() {
        gaps.push(
            "nothing was selected: no valid case matched (check --filter and the paths)".into(),
        );
    }
    for (backend, why) in &r.absent {
        gaps.push(format!(
            "backend {backend} was asked for but could not run: {why}"
        ));
    }
    gaps
}

/// Missing shards named in a gap; the rest are counted.
const MAX_MISSING_SHARDS_NAMED: usize = 20;

/// The gaps of a set of runs to merge, with the directory they come from, and the shards that
/// are missing or given twice (when the runs are shards of one run).
pub fn merge_gaps(runs: &[(PathBuf, Option<RunRecord>, usize)]) -> Vec<String> {
    let mut out = Vec::new();
    for (dir, record, results) in runs {
        for g in gaps(dir, record.as_ref(), *results) {
            out.push(format!("{}: {g}", dir.display()));
        }
    }
    let records: Vec<&RunRecord> = runs.iter().filter_map(|(_, r, _)| r.as_ref()).collect();
    if records.len() == runs.len() && records.iter().all(|r| r.cases == 0) {
        out.push("nothing was selected in any of the runs".into());
    }
    // A shard a record names but `--shard` would not accept (a count above MAX_SHARDS): never
    // counted to, said as it is.
    for (dir, r, _) in runs {
        if let Some(s) = r.as_ref().and_then(|r| r.shard.as_deref()) {
            if s.parse::<Shard>().is_err() {
                out.push(format!(
                    "{}: its run record names shard `{}`, not I/N with 1 <= I <= N <= {}",
                    dir.display(),
                    conform_io::escape::line(s),
                    crate::shard::MAX_SHARDS
                ));
            }
        }
    }
    let shards: Vec<(&PathBuf, Option<Shard>)> = runs
        .iter()
        .filter_map(|(d, r, _)| r.as_ref().map(|r| (d, r.shard.as_deref())))
        .map(|(d, s)| (d, s.and_then(|s| s.parse::<Shard>().ok())))
        .collect();
    if shards.iter().all(|(_, s)| s.is_none()) {
        return out;
    }
    let counts: std::collections::BTreeSet<usize> = shards
        .iter()
        .filter_map(|(_, s)| s.map(|s| s.count))
        .collect();
    if counts.len() > 1 || shards.iter().any(|(_, s)| s.is_none()) {
        out.push("the runs are not shards of one run (different or missing --shard N)".into());
        return out;
    }
    let n = counts.into_iter().next().unwrap_or(0);
    let mut seen: BTreeMap<usize, &PathBuf> = BTreeMap::new();
    for (dir, s) in &shards {
        let Some(s) = s else { continue };
        if let Some(other) = seen.insert(s.index, dir) {
            out.push(format!(
                "shard {s} is given twice ({} and {})",
                other.display(),
                dir.display()
            ));
        }
    }
    // n <= MAX_SHARDS (a parsed Shard); the line names the first few.
    let absent = (1..=n).filter(|i| !seen.contains_key(i));
    let count = absent.clone().count();
    if count > 0 {
        let mut names: Vec<String> = absent
            .take(MAX_MISSING_SHARDS_NAMED)
            .map(|i| format!("{i}/{n}"))
            .collect();
        if count > MAX_MISSING_SHARDS_NAMED {
            names.push(format!("and {} more", count - MAX_MISSING_SHARDS_NAMED));
        }
        out.push(format!(
            "incomplete shard set: missing shard(s) {}",
            names.join(", ")
        ));
    }
    out
}

/// A new output directory `<reports>/<kind>-YYYYMMDDTHHMMSSZ` (`run`, `merge`): the default
/// `--out` of the commands that write one.
pub fn default_out_dir(reports: &Path, kind: &str) -> PathBuf {
    let stamp = humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .replace([':', '-'], "");
    let mut dir = reports.join(format!("{kind}-{stamp}"));
    let mut n = 1;
    while dir.exists() {
        n += 1;
        dir = reports.join(format!("{kind}-{stamp}-{n}"));
    }
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(shard: Option<&str>) -> RunRecord {
        let mut r = RunRecord::start(2, 1, vec!["reference".into()], BTreeMap::new(), None);
        r.shard = shard.map(String::from);
        r.end(RunState::Complete);
        r
    }

    #[test]
    fn a_complete_run_has_no_gaps_and_every_kind_of_gap_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let r = complete(None);
        assert_eq!(r.expected, 3);
        r.write(dir.path()).unwrap();
        let back = RunRecord::read(dir.path()).unwrap().unwrap();
        assert_eq!(back, r);
        assert!(gaps(dir.path(), Some(&back), 3).is_empty());
        assert_eq!(
            gaps(dir.path(), Some(&back), 2),
            ["the journal holds 2 of the 3 results the run set out to write"]
        );
        assert!(gaps(dir.path(), None, 3)[0].starts_with("no run record"));
        let mut killed = r.clone();
        killed.state = RunState::Running;
        assert!(gaps(dir.path(), Some(&killed), 3)[0].contains("killed"));
        let mut empty = RunRecord::start(0, 0, vec!["reference".into()], BTreeMap::new(), None);
        empty.end(RunState::Complete);
        assert!(gaps(dir.path(), Some(&empty), 0)[0].starts_with("nothing was selected"));
        let absent: BTreeMap<String, String> =
            [("nvidia".to_string(), "no device".to_string())].into();
        let mut a = RunRecord::start(1, 0, vec!["nvidia".into()], absent, None);
        a.end(RunState::Complete);
        assert_eq!(
            gaps(dir.path(), Some(&a), 1),
            ["backend nvidia was asked for but could not run: no device"]
        );
    }

    /// An interrupted run's caselist tells the pairs that never ran (deqp-runner's Missing)
    /// from the ones it never asked for.
    #[test]
    fn cases_planned_without_a_result_are_missing() {
        let dir = tempfile::tempdir().unwrap();
        write_caselist(dir.path(), ["x/a", "x/b"].into_iter()).unwrap();
        let mut r = RunRecord::start(
            2,
            0,
            vec!["reference".into(), "llvmpipe".into()],
            BTreeMap::new(),
            None,
        );
        r.end(RunState::Interrupted);
        let planned = Planned::of_dir(dir.path(), Some(&r)).unwrap().unwrap();
        let done = [
            crate::testing::result("x/a", "reference", crate::results::Status::Pass),
            crate::testing::result("x/b", "reference", crate::results::Status::Fail),
            crate::testing::result("x/a", "llvmpipe", crate::results::Status::Pass),
            crate::testing::result("x/z", "llvmpipe", crate::results::Status::Pass),
        ];
        assert_eq!(
            planned.missing(&done),
            [("llvmpipe".to_string(), "x/b".to_string())]
        );
        assert!(Planned::of_dir(dir.path(), None).unwrap().is_none());
    }

    #[test]
    fn shard_sets_must_be_whole() {
        let run = |d: &str, s: &str| (PathBuf::from(d), Some(complete(Some(s))), 3);
        assert!(merge_gaps(&[run("a", "1/2"), run("b", "2/2")]).is_empty());
        assert_eq!(
            merge_gaps(&[run("a", "1/3"), run("b", "3/3")]),
            ["incomplete shard set: missing shard(s) 2/3"]
        );
        assert_eq!(
            merge_gaps(&[run("a", "1/2"), run("b", "1/2")]),
            [
                "shard 1/2 is given twice (a and b)",
                "incomplete shard set: missing shard(s) 2/2"
            ]
        );
        let no_record = (PathBuf::from("c"), None, 3);
        let g = merge_gaps(&[run("a", "1/2"), run("b", "2/2"), no_record]);
        assert!(g[0].starts_with("c: no run record"), "{g:?}");
        // An empty shard is fine; an empty set of shards is not.
        let mut empty = complete(Some("2/2"));
        empty.cases = 0;
        empty.expected = 0;
        let e = (PathBuf::from("b"), Some(empty.clone()), 0);
        assert!(merge_gaps(&[run("a", "1/2"), e.clone()]).is_empty());
        let mut empty1 = empty;
        empty1.shard = Some("1/2".into());
        assert_eq!(
            merge_gaps(&[(PathBuf::from("a"), Some(empty1), 0), e]),
            ["nothing was selected in any of the runs"]
        );
        // Shard counts read back: one no --shard accepts is a gap, never counted to; a long
        // list of missing shards names the first 20.
        let g = merge_gaps(&[run("a", "1/18446744073709551615")]);
        assert_eq!(
            g,
            ["a: its run record names shard `1/18446744073709551615`, not I/N with 1 <= I <= N <= 10000"]
        );
        // A plan of 10^10 pairs lists a million, at once.
        let names = |p: &str| (0..100_000).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
        let plan = Planned {
            cases: names("c"),
            backends: names("b"),
        };
        let t = std::time::Instant::now();
        assert_eq!(plan.missing(&[]).len(), MAX_MISSING_ROWS);
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
        let g = merge_gaps(&[run("a", "1/10000")]);
        assert!(g[0].ends_with("20/10000, 21/10000, and 9979 more"), "{g:?}");
    }
}
