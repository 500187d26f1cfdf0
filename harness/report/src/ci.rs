//! The CI side of the command line: `conform run`'s gating, retry, skip and shard options,
//! what a run does at its end (classify, write the reports, pick the exit code), and the
//! `conform merge` and `conform report` commands. docs/CI.md is the user's guide.
//!
//! Completeness is part of the verdict: the run record (`record.rs`) and the journal give the
//! gaps of a run (killed, interrupted, partial, empty, an absent backend, an incomplete shard
//! set), and a run with gaps never passes (`gate::EXIT_INCOMPLETE`).

use conform_case::corpus::InvalidCase;
use conform_case::{default_name, Case};
use conform_gate::gate::{Gate, GateFile, GateSpec, Gated, Patterns, EXIT_INCOMPLETE, EXIT_PASSED};
use conform_io::escape::line;
use conform_judge::policy::{ExpectedFailure, SkippedBy};
use conform_judge::record::{self, RunRecord, RunState};
use conform_judge::results::{CaseResult, Journal};
use conform_judge::shard::Shard;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The gating options of `run`, `merge` and `report`, as the command line gives them
/// (the CLI's `GateArgs` documents each for the user).
#[derive(Debug, Default, Clone)]
pub struct GateOptions {
    /// Known failures (`--baseline`, any number of files).
    pub baseline: Vec<PathBuf>,
    /// Known flaky cases (`--flakes`, any number of files).
    pub flakes: Vec<PathBuf>,
    /// Also fail on unexpected improvements (`--strict`).
    pub strict: bool,
    /// Where to write a baseline of this run's failures (`--write-baseline`).
    pub write_baseline: Option<PathBuf>,
    /// Its form (`--baseline-format`).
    pub baseline_format: conform_gate::gate::BaselineFormat,
    /// How results.csv and written baselines name tests (`--test-names`); a run's
    /// gating.json keeps it for `report` and `merge`.
    pub test_names: Option<conform_gate::gate::TestNames>,
}

fn print_diags(diags: &[conform_io::diag::Diagnostic]) {
    for d in diags {
        eprintln!("{d}");
    }
}

impl GateOptions {
    /// The gating inputs: the files named, else `fallback` (a run's gating.json).
    fn spec(&self, fallback: Option<GateSpec>) -> Result<GateSpec, u8> {
        let read = |paths: &[PathBuf]| -> Result<Vec<GateFile>, u8> {
            paths
                .iter()
                .map(|p| {
                    GateFile::read(p).map_err(|d| {
                        print_diags(&d);
                        2
                    })
                })
                .collect()
        };
        if self.baseline.is_empty() && self.flakes.is_empty() {
            if let Some(mut s) = fallback {
                s.strict |= self.strict;
                if let Some(n) = self.test_names {
                    s.test_names = n;
                }
                return Ok(s);
            }
        }
        Ok(GateSpec {
            baseline: read(&self.baseline)?,
            flakes: read(&self.flakes)?,
            strict: self.strict,
            test_names: self.test_names.unwrap_or_default(),
        })
    }
}

/// What `conform run` needs before it starts: the gate, the skips, the shard.
pub struct Prepared {
    pub spec: GateSpec,
    pub gate: Gate,
    pub skips: Patterns,
    pub shard: Option<Shard>,
    pub write_baseline: Option<PathBuf>,
    pub baseline_format: conform_gate::gate::BaselineFormat,
}

impl Prepared {
    /// Reads and checks the gating files and the `--skips` list; on a problem prints
    /// `file:line: message` for each and returns the exit code (2).
    pub fn read(
        gate_options: &GateOptions,
        skips: &[PathBuf],
        shard: Option<Shard>,
    ) -> Result<Prepared, u8> {
        let spec = gate_options.spec(None)?;
        let gate = Gate::from_spec(&spec).map_err(|d| {
            print_diags(&d);
            2u8
        })?;
        let mut patterns = Patterns::default();
        for p in skips {
            let text = conform_io::input::read_text(p).map_err(|d| {
                print_diags(&[d]);
                2u8
            })?;
            let diags = patterns.add(p, &text);
            if !diags.is_empty() {
                print_diags(&diags);
                return Err(2);
            }
        }
        let skips = patterns;
        Ok(Prepared {
            spec,
            gate,
            skips,
            shard,
            write_baseline: gate_options.write_baseline.clone(),
            baseline_format: gate_options.baseline_format,
        })
    }
}

impl Prepared {
    /// The run's [`SkippedBy`]: what the `--skips` list names.
    pub fn skipped_by(&self) -> Box<SkippedBy> {
        let skips = self.skips.clone();
        Box::new(move |backend, case| skips.find(backend, case).map(|e| e.origin.clone()))
    }

    /// The run's [`ExpectedFailure`]: what the baseline lists (not retried, not printed).
    pub fn expected_failure(&self) -> Box<ExpectedFailure> {
        let baseline = self.gate.baseline.clone();
        Box::new(move |backend, case, status| baseline.known(backend, case, status))
    }

    /// This shard's cases and invalid cases (all of them without `--shard`).
    pub fn shard(
        &self,
        cases: Vec<Case>,
        invalid: Vec<InvalidCase>,
    ) -> (Vec<Case>, Vec<InvalidCase>) {
        let Some(shard) = self.shard else {
            return (cases, invalid);
        };
        let invalid_names: Vec<String> = invalid.iter().map(|b| default_name(&b.path)).collect();
        let mine = shard.select(
            cases
                .iter()
                .map(|c| c.name.as_str())
                .chain(invalid_names.iter().map(String::as_str)),
        );
        eprintln!("shard {shard}: {} of the cases", mine.len());
        let cases = cases
            .into_iter()
            .filter(|c| mine.contains(&c.name))
            .collect();
        let invalid = invalid
            .into_iter()
            .filter(|b| mine.contains(&default_name(&b.path)))
            .collect();
        (cases, invalid)
    }
}

/// How a run, merge or report ends: the gating inputs and what else to do.
pub struct Ending<'a> {
    pub spec: &'a GateSpec,
    pub gate: &'a Gate,
    pub write_baseline: Option<&'a Path>,
    /// The form of that baseline.
    pub baseline_format: conform_gate::gate::BaselineFormat,
    /// Why the run is incomplete (`record::gaps`); empty when it is complete.
    pub gaps: Vec<String>,
    /// `--no-gate`: results do not decide the exit code (gaps still do).
    pub no_gate: bool,
    /// What the run set out to run, when known: the pairs without a result are `Missing`
    /// in results.csv.
    pub planned: Option<record::Planned>,
    /// Baselines shipped with the cases (`cases/baselines/*.txt`): a run given none whose
    /// regressions one of them lists, for a driver version the run has, says so.
    pub shipped_baselines: Vec<PathBuf>,
}

/// The end of a run, merge or report: classify, write gating.json and the reports, print the
/// class table, what blocks and what is missing, write a baseline if asked; returns the exit
/// code.
pub fn finish(dir: &Path, mut results: Vec<CaseResult>, end: Ending) -> u8 {
    let run_name = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    // Reports in one order whatever order the results arrived in (a run and the merge of its
    // shards write the same files).
    results.sort_by(|a, b| (&a.backend, &a.case).cmp(&(&b.backend, &b.case)));
    let missing = end
        .planned
        .as_ref()
        .map(|p| p.missing(&results))
        .unwrap_or_default();
    let mut gated = end.gate.apply(results);
    gated.gaps = end.gaps;
    // The record was written by the run or merge before it ends here (a `report` reads the
    // run's own); one that cannot be read is a gap already.
    gated.identities = RunRecord::read(dir)
        .ok()
        .flatten()
        .map(|r| r.identities)
        .unwrap_or_default();
    let rows = crate::deqp::rows(&gated, &missing);
    let mut ok = true;
    match serde_json::to_string_pretty(end.spec) {
        Ok(json) => {
            if let Err(e) = std::fs::write(dir.join("gating.json"), json) {
                eprintln!(
                    "warning: cannot write {}: {e}",
                    dir.join("gating.json").display()
                );
            }
        }
        Err(e) => eprintln!("warning: cannot serialize the gating: {e}"),
    }
    let written = crate::write_all(dir, &gated, &run_name).and_then(|mut files| {
        files.extend(conform_gate::deqp::write(dir, &rows)?);
        Ok(files)
    });
    match written {
        Ok(files) => {
            let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            conform_io::outln!("reports: {}", names.join(", "));
        }
        Err(e) => {
            eprintln!("error: cannot write reports to {}: {e}", dir.display());
            ok = false;
        }
    }
    conform_io::outln!("\n{}", conform_gate::deqp::table(&rows));
    // Each blocking result in full, once (the run itself printed one line per failure).
    for (r, class, why) in gated.blocking() {
        let label = format!("{} ({})", class.name().to_uppercase(), r.status.name());
        conform_io::out!("{}", conform_judge::results::render_failure(r, &label, why));
    }
    if let Some(path) = end.write_baseline {
        let text = gated.baseline_text(&dir.display().to_string(), end.baseline_format);
        match std::fs::write(path, text) {
            Ok(()) => conform_io::outln!("baseline written: {}", path.display()),
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                ok = false;
            }
        }
    }
    let code = match gated.exit_code() {
        _ if end.no_gate && gated.gaps.is_empty() => EXIT_PASSED,
        _ if end.no_gate => EXIT_INCOMPLETE,
        code => code,
    };
    let code = if !ok && code == 0 { 2 } else { code };
    print_verdict(&gated, code);
    let backends: std::collections::BTreeSet<&str> =
        gated.results.iter().map(|r| r.backend.as_str()).collect();
    let backends: Vec<&str> = backends.into_iter().collect();
    for warning in end.gate.baseline.stale_install_names(&backends) {
        eprintln!("warning: {}", conform_io::escape::line(&warning));
    }
    if end.spec.baseline.is_empty() {
        for note in shipped_baseline_notes(&gated, &end.shipped_baselines) {
            conform_io::outln!("{note}");
        }
    }
    code
}

/// For a run given no baseline: each shipped baseline for a Mesa version the run has (its
/// file name ends in that version: `mesa-22.3.6.txt`) that lists some of the run's
/// regressions, with how many and the option that applies it. A first run on stock Debian
/// then reads as what it is, known Mesa bugs, not the user's regressions.
pub fn shipped_baseline_notes(gated: &Gated, files: &[PathBuf]) -> Vec<String> {
    use conform_gate::gate::{Baseline, Class};
    let regressions: Vec<&CaseResult> = gated
        .iter()
        .filter(|(_, c, _)| *c == Class::Regression)
        .map(|(r, _, _)| r)
        .collect();
    if regressions.is_empty() {
        return vec![];
    }
    let versions: Vec<&str> = gated
        .identities
        .values()
        .filter_map(|i| i.mesa_version.as_deref())
        .collect();
    let mut notes = vec![];
    for file in files {
        let Some(stem) = file.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let Some(version) = stem.rsplit('-').next().filter(|v| {
            versions.iter().any(|m| {
                m.strip_prefix(*v)
                    .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
            })
        }) else {
            continue;
        };
        let Ok(text) = conform_io::input::read_text(file) else {
            continue;
        };
        let Ok(baseline) = Baseline::parse(file, &text) else {
            continue;
        };
        let known = regressions
            .iter()
            .filter(|r| baseline.expects(&r.backend, &r.case, r.status))
            .count();
        if known > 0 {
            notes.push(format!(
                "note: {known} of the {} regression(s) are known bugs of Mesa {version} listed in {} (analysed in docs/TRIAGE.md), not regressions of yours: run again with `--baseline {}` to gate on new failures only",
                regressions.len(),
                file.display(),
                file.display()
            ));
        }
    }
    notes
}

/// The end-of-run verdict; `code` is the exit code the process ends with.
fn print_verdict(gated: &Gated, code: u8) {
    use conform_gate::gate::Class;
    for g in &gated.gaps {
        conform_io::outln!("INCOMPLETE: {}", line(g));
    }
    if !gated.gaps.is_empty() {
        // The exit code is the run's, never a second opinion: regressions outrank gaps.
        conform_io::outln!(
            "not passed: the run is incomplete ({} gap(s) above; exit code {code})",
            gated.gaps.len()
        );
    }
    let blocking = gated.blocking().len();
    if blocking > 0 {
        conform_io::outln!(
            "{blocking} blocking result(s) ({} regression(s), {} unexpected improvement(s) under --strict); each is listed above with the command that reruns it",
            gated.count(Class::Regression),
            if gated.strict { gated.count(Class::UnexpectedImprovement) } else { 0 },
        );
    } else {
        conform_io::outln!(
            "no regressions ({} expected failure(s), {} flake(s), {} known flake(s), {} unexpected improvement(s))",
            gated.count(Class::ExpectedFail),
            gated.count(Class::Flake),
            gated.count(Class::KnownFlake),
            gated.count(Class::UnexpectedImprovement)
        );
    }
}

/// Reads a journal, keeping the last line for each backend and case (a journal appended to
/// twice, e.g. a rerun into the same directory, counts its latest result). Lines that do not
/// parse, a torn last line included, are skipped with a warning.
pub fn read_journal(dir: &Path) -> Result<Vec<CaseResult>, String> {
    let path = dir.join(conform_judge::results::JOURNAL);
    let (all, skipped) = Journal::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if skipped.bad > 0 {
        let torn = if skipped.torn_last {
            ", the last of them cut short (a run killed while writing it)"
        } else {
            ""
        };
        eprintln!(
            "warning: {}: {} line(s) that do not parse were skipped{torn}",
            path.display(),
            skipped.bad
        );
    }
    let mut at: HashMap<(String, String), usize> = HashMap::new();
    let mut out: Vec<CaseResult> = Vec::new();
    for r in all {
        match at.get(&(r.backend.clone(), r.case.clone())) {
            Some(&i) => out[i] = r,
            None => {
                at.insert((r.backend.clone(), r.case.clone()), out.len());
                out.push(r);
            }
        }
    }
    Ok(out)
}

/// The largest gating.json read back (it holds the baseline and flakes files' texts).
const MAX_GATING_BYTES: u64 = 3 * conform_io::input::MAX_FILE_BYTES;

fn read_spec(dir: &Path) -> Result<Option<GateSpec>, String> {
    conform_io::input::read_json_if_present(&dir.join("gating.json"), MAX_GATING_BYTES)
}

/// The journal's results and the run record of `dir`; a directory with a record but no
/// journal yet (a run killed before its first result) has no results.
fn read_run(dir: &Path) -> Result<(Vec<CaseResult>, Option<RunRecord>), String> {
    let record = RunRecord::read(dir)?;
    let journal = dir.join(conform_judge::results::JOURNAL);
    let results = if record.is_some() && !journal.exists() {
        Vec::new()
    } else {
        read_journal(dir)?
    };
    Ok((results, record))
}

/// The shard runs [`merge_results`] combined: directory, run record, distinct results.
pub type MergedRuns = Vec<(PathBuf, Option<RunRecord>, usize)>;

/// Combines shard journals: every result once, sorted by backend and case, and each
/// directory's record. A case that two directories both ran on the same backend is an error
/// (overlapping shards).
pub fn merge_results(dirs: &[PathBuf]) -> Result<(Vec<CaseResult>, MergedRuns), String> {
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut out = Vec::new();
    let mut overlaps = Vec::new();
    let mut runs = Vec::new();
    for (d, dir) in dirs.iter().enumerate() {
        let (results, record) = read_run(dir)?;
        runs.push((dir.clone(), record, results.len()));
        for r in results {
            let key = (r.backend.clone(), r.case.clone());
            if let Some(&other) = seen.get(&key) {
                overlaps.push(format!(
                    "{} on {} is in both {} and {}",
                    line(&r.case),
                    line(&r.backend),
                    line(&dirs[other].display().to_string()),
                    line(&dir.display().to_string())
                ));
                continue;
            }
            seen.insert(key, d);
            out.push(r);
        }
    }
    if !overlaps.is_empty() {
        let n = overlaps.len();
        overlaps.truncate(5);
        return Err(format!(
            "{n} result(s) appear in more than one directory (were the shards run with the same --shard N and case list?):\n  {}",
            overlaps.join("\n  ")
        ));
    }
    out.sort_by(|a, b| (&a.backend, &a.case).cmp(&(&b.backend, &b.case)));
    Ok((out, runs))
}

/// The record of a merge of `runs`: complete when none of them has a gap, with the gaps
/// otherwise (so `conform report` on the merge says the same).
fn merged_record(runs: &MergedRuns, gaps: &[String]) -> RunRecord {
    let records: Vec<&RunRecord> = runs.iter().filter_map(|(_, r, _)| r.as_ref()).collect();
    let mut backends: Vec<String> = records.iter().flat_map(|r| r.backends.clone()).collect();
    backends.sort();
    backends.dedup();
    let mut m = RunRecord::start(0, 0, backends, BTreeMap::new(), None);
    // Numbers read from the runs' files: added without overflow (a record claiming 2^64
    // results is a gap, not a panic).
    m.expected = records
        .iter()
        .fold(0u64, |n, r| n.saturating_add(r.expected));
    m.cases = records.iter().fold(0u64, |n, r| n.saturating_add(r.cases));
    m.merged_from = runs
        .iter()
        .map(|(d, _, _)| d.display().to_string())
        .collect();
    m.gaps = gaps.to_vec();
    for r in &records {
        for (name, id) in &r.identities {
            m.identities
                .entry(name.clone())
                .or_insert_with(|| id.clone());
        }
    }
    m.end(if gaps.is_empty() {
        RunState::Complete
    } else {
        RunState::Incomplete
    });
    m
}

/// `conform merge`: the shard runs in `dirs` as one run in `out` (default
/// `reports/merge-<timestamp>`), gated; returns the exit code.
pub fn merge(dirs: &[PathBuf], out: Option<PathBuf>, options: &GateOptions) -> u8 {
    let out = out
        .unwrap_or_else(|| conform_judge::record::default_out_dir(Path::new("reports"), "merge"));
    let (results, runs) = match merge_results(dirs) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    // The shards' gating, when they all agree and no files are given.
    let mut fallback = None;
    for dir in dirs {
        match read_spec(dir) {
            Ok(Some(s)) => match &fallback {
                None => fallback = Some(s),
                Some(f) if *f != s => {
                    eprintln!(
                        "warning: {} was gated differently from {}; using the first one's (pass --baseline/--flakes to choose)",
                        dir.display(),
                        dirs[0].display()
                    );
                }
                Some(_) => {}
            },
            Ok(None) => {}
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    }
    let (spec, gate) = match gate_of(options, fallback) {
        Ok(g) => g,
        Err(code) => return code,
    };
    if out.join("results.jsonl").exists() {
        eprintln!(
            "error: {} already holds a results.jsonl; merge into a new directory",
            out.display()
        );
        return 2;
    }
    let mut journal = match Journal::create(&out) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: cannot write to {}: {e}", out.display());
            return 2;
        }
    };
    for r in &results {
        if let Err(e) = journal.append(r) {
            eprintln!("error: cannot write {}: {e}", journal.path.display());
            return 2;
        }
    }
    let mut gaps = record::merge_gaps(&runs);
    gaps.extend(identity_gaps(&runs));
    let planned = merged_plan(&runs);
    if let Some(p) = &planned {
        if let Err(e) = record::write_caselist(&out, p.cases.iter().map(String::as_str)) {
            eprintln!("error: cannot write to {}: {e}", out.display());
            return 2;
        }
    }
    if let Err(e) = merged_record(&runs, &gaps).write(&out) {
        eprintln!(
            "error: cannot write {}: {e}",
            out.join(record::FILE).display()
        );
        return 2;
    }
    conform_io::outln!(
        "merged {} result(s) from {} directories into {}",
        results.len(),
        dirs.len(),
        journal.path.display()
    );
    finish_gated(&out, results, (&spec, &gate), options, (gaps, planned))
}

/// Backends that ran different builds in the shard runs: one run is one build per backend,
/// so shards that ran another Mesa under the same name are not one run's results.
fn identity_gaps(runs: &MergedRuns) -> Vec<String> {
    let mut first: BTreeMap<&str, (&Path, String)> = BTreeMap::new();
    let mut gaps = Vec::new();
    for (dir, r, _) in runs {
        for (name, id) in r.iter().flat_map(|r| &r.identities) {
            let summary = id.summary();
            match first.get(name.as_str()) {
                None => {
                    first.insert(name, (dir, summary));
                }
                Some((d, s)) if *s != summary => gaps.push(format!(
                    "backend {name} ran different builds: {s} in {}, {summary} in {}",
                    d.display(),
                    dir.display()
                )),
                Some(_) => {}
            }
        }
    }
    gaps
}

/// What a set of shard runs set out to run together: the union of their caselists on the
/// union of their backends; `None` when a run has no caselist (older runs).
fn merged_plan(runs: &MergedRuns) -> Option<record::Planned> {
    let mut cases = std::collections::BTreeSet::new();
    let mut backends = std::collections::BTreeSet::new();
    for (dir, r, _) in runs {
        let p = record::Planned::of_dir(dir, r.as_ref()).ok().flatten()?;
        cases.extend(p.cases);
        backends.extend(p.backends);
    }
    Some(record::Planned {
        cases: cases.into_iter().collect(),
        backends: backends.into_iter().collect(),
    })
}

/// [`finish`] for `merge` and `report`: gated by their own options, never `--no-gate`.
fn finish_gated(
    dir: &Path,
    results: Vec<CaseResult>,
    (spec, gate): (&GateSpec, &Gate),
    options: &GateOptions,
    (gaps, planned): (Vec<String>, Option<record::Planned>),
) -> u8 {
    let end = Ending {
        spec,
        gate,
        write_baseline: options.write_baseline.as_deref(),
        baseline_format: options.baseline_format,
        gaps,
        no_gate: false,
        planned,
        shipped_baselines: vec![],
    };
    finish(dir, results, end)
}

/// `conform report`: the run in `dir` gated again and its reports rewritten; returns the exit
/// code.
pub fn report(dir: &Path, options: &GateOptions) -> u8 {
    let (results, record) = match read_run(dir) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let fallback = match read_spec(dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let (spec, gate) = match gate_of(options, fallback) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let gaps = record::gaps(dir, record.as_ref(), results.len());
    let planned = match record::Planned::of_dir(dir, record.as_ref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if let Some(r) = &record {
        conform_io::outln!(
            "{}: {} of {} result(s) recorded{}",
            dir.display(),
            results.len(),
            r.expected,
            if gaps.is_empty() { "" } else { " (incomplete)" }
        );
    }
    finish_gated(dir, results, (&spec, &gate), options, (gaps, planned))
}

fn gate_of(args: &GateOptions, fallback: Option<GateSpec>) -> Result<(GateSpec, Gate), u8> {
    let spec = args.spec(fallback)?;
    let gate = Gate::from_spec(&spec).map_err(|d| {
        print_diags(&d);
        2u8
    })?;
    Ok((spec, gate))
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_judge::identity::BackendIdentity;
    use conform_judge::results::Status;
    use conform_judge::testing::result;

    /// A run given no baseline whose failures a shipped baseline of its Mesa version lists
    /// says so, with the option that applies it; a baseline of another version says nothing.
    #[test]
    fn a_first_run_names_the_shipped_baseline_of_its_mesa() {
        let dir = tempfile::tempdir().unwrap();
        let ours = dir.path().join("mesa-22.3.6.txt");
        let other = dir.path().join("mesa-22.3.7.txt");
        let line = "llvmpipe,x/known,fail\n";
        std::fs::write(&ours, line).unwrap();
        std::fs::write(&other, line).unwrap();
        let mut gated = Gate::default().apply(vec![
            result("x/known", "llvmpipe", Status::Fail),
            result("x/new", "llvmpipe", Status::Fail),
        ]);
        let files = [other.clone(), ours.clone()];
        assert!(
            shipped_baseline_notes(&gated, &files).is_empty(),
            "no identity, no version"
        );
        gated.identities.insert(
            "llvmpipe".into(),
            BackendIdentity {
                mesa_version: Some("22.3.6-1+deb12u2".into()),
                ..BackendIdentity::default()
            },
        );
        let notes = shipped_baseline_notes(&gated, &files);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("note: 1 of the 2 regression(s) are known bugs of Mesa 22.3.6")
                && notes[0].contains(&format!("--baseline {}", ours.display())),
            "{}",
            notes[0]
        );
    }
}
