//! `conform fuzz merge DIR... --out MERGED`: one list from the campaign directories of a farm
//! (one campaign per CI job, each with its own seed).
//!
//! A campaign directory is a campaign's `--out` (`summary.md`, `<signature>/case.yaml`...) with
//! its state (`state.json`) in it or in its `corpus/` (`conform fuzz`'s default layout). Every
//! input is read and checked before anything is written: a missing directory, one that is not
//! a campaign's, a `state.json` that is damaged ([`State::load`]) or holds what no campaign
//! writes (a signature that is not a directory name, a key that is not `<backend>-<language>-
//! <feature>-<aspect>`, more than [`MAX_FINDINGS`] findings) is an error naming the file, and
//! nothing is merged.
//!
//! Findings are the same when they have the same signature, or when one is *attributed* to the
//! other as a campaign attributes a hit ([`attributes`]: same key, and every operator the one
//! lists is among the other's): the finding with the fewest operators stands for the others,
//! which are listed under it. Attribution is applied within the findings a `--known` line
//! covers ([`known_line`], checked first, as in a campaign) and within the new ones, never
//! across. Each merged finding keeps the smallest reduced case of all its nodes and
//! signatures: the fewest bytes of program text (the loaded case's programs), ties by
//! signature, then by directory name; it is copied to `MERGED/<signature>/`.
//!
//! With a history ([`merge_nights`], `--history`), each finding also carries the nights it was
//! seen on and the earlier nights' findings not seen tonight are listed ([`history`]).
//!
//! A campaign whose `summary.md` is not the rendering of its `state.json` ([`render_summary`])
//! did not end its last session (a killed node, or one still running): it is merged with what
//! its state holds, and the summary says so.

use super::{render_summary, Finding, State};
use crate::ast::Lang;
use crate::reduction::signature::{attributes, known_line};
use crate::Divergence;
use conform_gate::gate::Baseline;
use conform_io::input::{read_bounded_nofollow, ReadError, MAX_FILE_BYTES};
use conform_judge::results::Status;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub mod history;
mod render;
pub use render::render;

/// The most findings one campaign's state may hold (a campaign makes a few hundred): more is
/// not a campaign's, and would make the attribution (quadratic in the findings of a key) slow.
pub const MAX_FINDINGS: usize = 5_000;

/// The most distinct signatures a merge takes, over every input.
pub const MAX_MERGED_FINDINGS: usize = 10_000;

/// The longest signature (`signature.rs` cuts them at this length: each names a directory).
const MAX_SIGNATURE: usize = 120;

/// The largest `summary.md` read back to tell a finished campaign from an unfinished one.
const MAX_SUMMARY_BYTES: u64 = 16 << 20;

/// The files of a finding's directory copied with its case (each at most [`MAX_FILE_BYTES`]).
const CASE_FILES: [&str; 4] = [
    "case.yaml",
    "original.yaml",
    "program.json",
    "divergence.md",
];

/// What [`State::load`] adds to its errors for `conform fuzz`; a merge resumes nothing.
const RESUME_HINT: &str = "; start a new --corpus, or repair the file";

/// The merged list, as `merged.json` holds it.
#[derive(Clone, Debug, Serialize)]
pub struct Merged {
    /// Lines of the `--known` file, when one was given.
    pub known_lines: Option<usize>,
    /// The campaign directories, in the order given.
    pub nodes: Vec<Node>,
    /// The new findings, then the known ones, each by signature.
    pub findings: Vec<MergedFinding>,
    /// Hits the campaigns counted as known themselves (their own `--known`), by name.
    pub known_hits: Vec<KnownHits>,
    /// The night this merge stands for (`--night`, by default its date), when it keeps a
    /// history ([`history`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub night: Option<String>,
    /// Findings of earlier nights that tonight's campaigns did not see ("not seen since").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<history::Absent>,
    /// Findings of earlier nights not seen tonight that `conform fuzz recheck` found fixed:
    /// closed, and not carried to the next night.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<history::Fixed>,
}

/// One campaign directory's counts.
#[derive(Clone, Debug, Serialize)]
pub struct Node {
    /// The directory as given.
    pub dir: String,
    /// Its `state.json`.
    pub state: String,
    pub seed: u64,
    pub lang: String,
    pub mode: crate::generators::Mode,
    /// The first iteration not yet finished.
    pub iterations: u64,
    pub programs: u64,
    pub seconds: f64,
    /// Divergences (hits of every finding) and distinct findings.
    pub divergences: u64,
    pub distinct: usize,
    pub known_hits: u64,
    /// Programs each backend did not run (it lacks what they need).
    pub unsupported: BTreeMap<String, u64>,
    pub generator_errors: u64,
    pub first_generator_error: Option<String>,
    /// Why the campaign did not end its last session; none when it did.
    pub unfinished: Option<String>,
}

/// One finding of the merge: a signature and the signatures of other nodes attributed to it.
#[derive(Clone, Debug, Serialize)]
pub struct MergedFinding {
    pub signature: String,
    pub backend: String,
    pub key: String,
    /// The `--known` line's case name that covers it (`fuzz/glsl-...`); none for a new one.
    pub known: Option<String>,
    /// Hits on every node, under every signature attributed to it.
    pub hits: u64,
    /// The message of its first sighting.
    pub message: String,
    /// The smallest reduced case, copied to `MERGED/<signature>/`.
    pub case: Option<ChosenCase>,
    /// Where it was seen: one entry per node and signature.
    pub seen: Vec<Seen>,
    /// Reduced cases that could not be read or copied, and why.
    pub notes: Vec<String>,
    /// First and last night seen, and on how many nights ([`history`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<history::History>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ChosenCase {
    /// Relative to the merged directory: `<signature>/case.yaml`.
    pub path: String,
    /// The measure: bytes of program text in the reduced case.
    pub program_bytes: usize,
    /// Where it came from: a directory and the signature it had there.
    pub dir: String,
    pub signature: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Seen {
    pub dir: String,
    pub seed: u64,
    /// The signature on that node (another than the finding's when attributed to it).
    pub signature: String,
    pub hits: u64,
    pub first_iteration: u64,
    /// The size the campaign gave its reduced case (instructions or statements).
    pub instructions: usize,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct KnownHits {
    /// `<backend>,fuzz/<...>`, as a campaign's state counts it.
    pub name: String,
    pub hits: u64,
    /// `(directory, hits)` per node that counted some.
    pub seen: Vec<(String, u64)>,
    /// First and last night seen, and on how many nights ([`history`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<history::History>,
}

impl Merged {
    /// Findings no `--known` line covers (without `--known`, every finding).
    pub fn new_findings(&self) -> usize {
        self.findings.iter().filter(|f| f.known.is_none()).count()
    }

    /// 1 when some finding is new, 0 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.new_findings() > 0)
    }
}

/// Merges the campaign directories `dirs` into `out` (which must not exist or be empty):
/// `out/summary.md`, `out/merged.json` and `out/<signature>/` per finding. Errors name the
/// input or the file that is wrong; nothing is written then.
pub fn merge(dirs: &[PathBuf], out: &Path, known: Option<&Baseline>) -> Result<Merged, String> {
    merge_nights(dirs, out, known, None)
}

/// [`merge`] of one night in a history: `night` labels tonight, `previous` is the previous
/// night's `merged.json` (none on a first night). Tonight's findings carry their history and
/// the earlier ones not seen tonight are listed as absent, in `merged.json` and `summary.md`.
pub fn merge_nights(
    dirs: &[PathBuf],
    out: &Path,
    known: Option<&Baseline>,
    nights: Option<(&str, Option<&history::Previous>)>,
) -> Result<Merged, String> {
    check_out(out)?;
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    let mut canonical: BTreeMap<PathBuf, String> = BTreeMap::new();
    for dir in dirs {
        match read_input(dir) {
            Ok(input) => {
                let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
                match canonical.get(&real) {
                    Some(first) => errors.push(format!(
                        "{}: the same directory as {first}: each campaign is merged once",
                        dir.display()
                    )),
                    None => {
                        canonical.insert(real, dir.display().to_string());
                        inputs.push(input);
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if dirs.is_empty() {
        errors.push("no campaign directory to merge".into());
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let (mut merged, copies) = combine(&inputs, known)?;
    if let Some((night, previous)) = nights {
        history::apply(&mut merged, previous, night);
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for (finding, from) in merged.findings.iter_mut().zip(copies) {
        if let Some(from) = from {
            copy_case(&from, &out.join(&finding.signature), &mut finding.notes)?;
        }
    }
    let write = |name: &str, text: String| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write("summary.md", render(&merged))?;
    let json = serde_json::to_string_pretty(&merged).map_err(|e| e.to_string())?;
    write("merged.json", json + "\n")?;
    Ok(merged)
}

/// `out` must be new or an empty directory: a merge never mixes with other files.
fn check_out(out: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("--out {}: {e}", out.display())),
        Ok(m) if !m.is_dir() => Err(format!(
            "--out {}: exists and is not a directory; merge into a new directory",
            out.display()
        )),
        Ok(_) => {
            let mut entries =
                std::fs::read_dir(out).map_err(|e| format!("--out {}: {e}", out.display()))?;
            if entries.next().is_some() {
                return Err(format!(
                    "--out {}: exists and is not empty; merge into a new directory",
                    out.display()
                ));
            }
            Ok(())
        }
    }
}

/// One campaign directory, read and checked.
struct Input {
    label: String,
    /// Where its reduced cases are (`<dir>/<signature>/`).
    dir: PathBuf,
    state_path: PathBuf,
    state: State,
    unfinished: Option<String>,
}

fn read_input(dir: &Path) -> Result<Input, String> {
    let label = dir.display().to_string();
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("{label}: no such directory"))
        }
        Err(e) => return Err(format!("{label}: {e}")),
        Ok(m) if !m.is_dir() => {
            return Err(format!(
                "{label}: not a directory (give a campaign's --out directory)"
            ))
        }
        Ok(_) => {}
    }
    // What a campaign wrote is plain files and directories: a symlink in it (an artifact from
    // an untrusted job) is refused before anything is read through it.
    for inside in [
        dir.join("corpus"),
        dir.join("state.json"),
        dir.join("corpus").join("state.json"),
    ] {
        not_a_symlink(&inside)?;
    }
    let load = |at: &Path| {
        State::load(at).map_err(|e| e.strip_suffix(RESUME_HINT).unwrap_or(&e).to_string())
    };
    let (state_path, state) = match (load(dir)?, load(&dir.join("corpus"))?) {
        (Some(_), Some(_)) => {
            return Err(format!(
                "{label}: holds two campaign states, state.json and corpus/state.json: merge one campaign per directory"
            ))
        }
        (Some(s), None) => (dir.join("state.json"), s),
        (None, Some(s)) => (dir.join("corpus").join("state.json"), s),
        (None, None) => {
            let why = if dir.join("merged.json").exists() {
                "it is the output of a merge; merge the campaign directories themselves"
            } else if dir.join("results.jsonl").exists() || dir.join("run.json").exists() {
                "it holds a conform run's results (`conform merge` merges runs)"
            } else {
                "no state.json in it or in its corpus/ (a campaign run with --out DIR and --corpus DIR/corpus, or DIR)"
            };
            return Err(format!("{label}: not a fuzz campaign's directory: {why}"));
        }
    };
    check_findings(&state).map_err(|e| format!("{}: {e}", state_path.display()))?;
    Ok(Input {
        label,
        unfinished: unfinished(dir, &state),
        dir: dir.to_path_buf(),
        state_path,
        state,
    })
}

/// An error naming `path` when it is a symlink (a campaign writes none); none when it is not
/// there or is something else (the reader checks what it reads).
fn not_a_symlink(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{}: is a symbolic link; a campaign writes none, so it is not followed",
            path.display()
        )),
        _ => Ok(()),
    }
}

/// A finding's directory `<dir>/<signature>`, if it is a directory and not a symlink to one:
/// why not, naming it, otherwise (`Ok(false)`: not there).
fn finding_dir(case_dir: &Path) -> Result<bool, String> {
    match std::fs::symlink_metadata(case_dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("{}: {e}", case_dir.display())),
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{} is a symbolic link, not a finding's directory; not followed",
            case_dir.display()
        )),
        Ok(m) if !m.is_dir() => Err(format!(
            "{} is not a finding's directory",
            case_dir.display()
        )),
        Ok(_) => Ok(true),
    }
}

/// What a merge needs of a state beyond what [`State::load`] checks: signatures that name a
/// directory, keys that name a divergence, and a bounded number of findings.
fn check_findings(s: &State) -> Result<(), String> {
    if s.signatures.len() > MAX_FINDINGS {
        return Err(format!(
            "`signatures` holds {} findings, above {MAX_FINDINGS}, more than a campaign makes",
            s.signatures.len()
        ));
    }
    for (sig, f) in &s.signatures {
        let safe = sig
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if sig.is_empty() || sig.len() > MAX_SIGNATURE || !safe || sig.starts_with('-') {
            return Err(format!(
                "the signature {} is not one a campaign writes (at most {MAX_SIGNATURE} of a-z, 0-9 and -)",
                conform_io::escape::line(&cut(sig, 200))
            ));
        }
        if divergence_of(f).is_none() {
            return Err(format!(
                "the key {} of signature {sig} is not <backend>-<language>-<feature>-<aspect> with backend {}",
                conform_io::escape::line(&cut(&f.key, 200)),
                conform_io::escape::line(&cut(&f.backend, 200))
            ));
        }
    }
    Ok(())
}

/// At most `max` characters of `s`.
fn cut(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// Why the campaign in `dir` did not end its last session: a campaign writes `summary.md`
/// from its final state when a session ends, so a summary that is not the rendering of the
/// state (or none) means the state went on without it.
fn unfinished(dir: &Path, state: &State) -> Option<String> {
    match read_bounded_nofollow(&dir.join("summary.md"), MAX_SUMMARY_BYTES) {
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            Some("it has no summary.md".into())
        }
        Err(e) => Some(format!("its summary.md {e}")),
        Ok(bytes) if bytes == render_summary(state).as_bytes() => None,
        Ok(_) => Some("its summary.md is older than its state.json".into()),
    }
}

/// The divergence a finding stands for, from its key (`<backend>-<lang>-<feature>-<aspect>`);
/// the status is left at `fail` (see [`statuses`]).
fn divergence_of(f: &Finding) -> Option<Divergence> {
    let rest = f.key.strip_prefix(f.backend.as_str())?.strip_prefix('-')?;
    let (lang, rest) = rest.split_once('-')?;
    let lang = Lang::ALL.into_iter().find(|l| l.name() == lang)?;
    let (feature, aspect) = rest.rsplit_once('-')?;
    if feature.is_empty() || aspect.is_empty() {
        return None;
    }
    let d = Divergence {
        backend: f.backend.clone(),
        lang,
        feature: feature.into(),
        aspect: aspect.into(),
        block: None,
        status: Status::Fail,
        message: f.message.clone(),
        details: vec![],
    };
    (d.key() == f.key).then_some(d)
}

/// The statuses a divergence of `aspect` can have (`observe` in lib.rs): a known line must
/// cover each of them unless the finding's `divergence.md` says which it had.
fn statuses(aspect: &str) -> &'static [Status] {
    match aspect {
        "crash" => &[Status::Crash],
        "timeout" => &[Status::Timeout],
        "memory" | "undefined" | "steps" => &[Status::Fail],
        "build" => &[Status::Invalid, Status::Fail],
        "unflagged" => &[Status::Flagged, Status::Fail],
        _ => &Status::ALL,
    }
}

/// The status `divergence.md` gives the reduced program (the line after `## The reduced
/// program on <backend>`), if it is one of `allowed`.
fn status_in_report(case_dir: &Path, allowed: &[Status]) -> Option<Status> {
    finding_dir(case_dir).ok().filter(|&there| there)?;
    let bytes = read_bounded_nofollow(&case_dir.join("divergence.md"), MAX_FILE_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.lines();
    lines.find(|l| l.starts_with("## The reduced program on "))?;
    let line = lines.find(|l| !l.trim().is_empty())?;
    let word = line.split(':').next()?.trim();
    allowed.iter().copied().find(|s| s.name() == word)
}

/// The operators signature `sig` of key `key` lists (none for the key alone); none when it is
/// not `<key>[-with-<op>-...]` (a signature cut at its length limit, or not this key's).
fn ops_of<'a>(sig: &'a str, key: &str) -> Option<BTreeSet<&'a str>> {
    if attributes(sig, key, &BTreeSet::new()) {
        return Some(BTreeSet::new());
    }
    // The last `-with-` whose operators make the signature attributable is the split: an
    // earlier one would take words of the key for operators.
    sig.rmatch_indices("-with-").find_map(|(i, w)| {
        let ops: BTreeSet<&str> = sig[i + w.len()..].split('-').collect();
        attributes(sig, key, &ops).then_some(ops)
    })
}

/// One signature over every node that has it.
struct Group<'a> {
    sig: &'a str,
    key: &'a str,
    /// `(input index, finding)`, in input order.
    members: Vec<(usize, &'a Finding)>,
    known: Option<String>,
}

/// The merged list (without writing anything) and, per finding, the directory its case is
/// copied from.
fn combine(
    inputs: &[Input],
    known: Option<&Baseline>,
) -> Result<(Merged, Vec<Option<PathBuf>>), String> {
    let mut by_sig: BTreeMap<&str, Group> = BTreeMap::new();
    for (n, input) in inputs.iter().enumerate() {
        for (sig, f) in &input.state.signatures {
            by_sig
                .entry(sig)
                .or_insert_with(|| Group {
                    sig,
                    key: &f.key,
                    members: Vec::new(),
                    known: None,
                })
                .members
                .push((n, f));
        }
    }
    if by_sig.len() > MAX_MERGED_FINDINGS {
        return Err(format!(
            "the campaigns hold {} distinct signatures, above {MAX_MERGED_FINDINGS}: merge fewer at a time",
            by_sig.len()
        ));
    }
    for g in by_sig.values_mut() {
        g.known = known.and_then(|b| known_of(b, g, inputs));
    }
    // Attribution within each (key, known line): the roots are the signatures no other one
    // attributes; every other goes to the root with the fewest operators that attributes it.
    let mut classes: BTreeMap<(&str, Option<&str>), Vec<&Group>> = BTreeMap::new();
    for g in by_sig.values() {
        classes
            .entry((g.key, g.known.as_deref()))
            .or_default()
            .push(g);
    }
    let mut findings: Vec<(MergedFinding, Option<PathBuf>)> = Vec::new();
    for ((key, _), groups) in classes {
        let ops: Vec<Option<BTreeSet<&str>>> = groups.iter().map(|g| ops_of(g.sig, key)).collect();
        // `attributes` holds exactly when r's operators are among g's: the set test first
        // keeps the pairs cheap.
        let attributed_by = |r: usize, g: usize| {
            r != g
                && match (&ops[r], &ops[g]) {
                    (Some(a), Some(b)) => {
                        a.len() < b.len() && a.is_subset(b) && attributes(groups[r].sig, key, b)
                    }
                    _ => false,
                }
        };
        let roots: Vec<usize> = (0..groups.len())
            .filter(|&g| !(0..groups.len()).any(|r| attributed_by(r, g)))
            .collect();
        let mut members: BTreeMap<usize, Vec<usize>> =
            roots.iter().map(|&r| (r, vec![r])).collect();
        for g in (0..groups.len()).filter(|g| !roots.contains(g)) {
            // The attributor with the fewest operators is a root (attribution is inclusion
            // of operator sets): every signature lands under one.
            let root = roots
                .iter()
                .copied()
                .filter(|&r| attributed_by(r, g))
                .min_by_key(|&r| (ops[r].as_ref().map_or(usize::MAX, BTreeSet::len), r));
            if let Some(r) = root {
                members.entry(r).or_default().push(g);
            }
        }
        for (root, of) in members {
            let parts: Vec<&Group> = of.iter().map(|&g| groups[g]).collect();
            findings.push(merged_finding(groups[root], &parts, inputs));
        }
    }
    // New findings first, each part by signature.
    findings.sort_by(|(x, _), (y, _)| {
        (x.known.is_some(), &x.signature).cmp(&(y.known.is_some(), &y.signature))
    });
    let (findings, copies) = findings.into_iter().unzip();
    let merged = Merged {
        known_lines: known.map(Baseline::len),
        nodes: inputs.iter().map(node_of).collect(),
        findings,
        known_hits: known_hits(inputs),
        night: None,
        absent: Vec::new(),
        fixed: Vec::new(),
    };
    Ok((merged, copies))
}

/// The `--known` case name covering every sighting of signature group `g`: each node's
/// `divergence.md` says the status it had, else every status of its aspect must be covered.
fn known_of(b: &Baseline, g: &Group, inputs: &[Input]) -> Option<String> {
    let (_, first) = g.members.first()?;
    let mut d = divergence_of(first)?;
    let allowed = statuses(&d.aspect);
    let mut seen = BTreeSet::new();
    for (n, _) in &g.members {
        match status_in_report(&inputs[*n].dir.join(g.sig), allowed) {
            Some(s) => {
                seen.insert(s);
            }
            None => seen.extend(allowed.iter().copied()),
        }
    }
    let ops = ops_of(g.sig, g.key).unwrap_or_else(|| {
        // Not splittable: every word after the key's own is a candidate operator, so a known
        // line naming operators covers it only if the signature names them all.
        g.sig.split('-').collect()
    });
    let mut line = None;
    for s in seen {
        d.status = s;
        let l = known_line(b, &d, &ops)?;
        line.get_or_insert(l);
    }
    line
}

/// One merged finding of root group `root` and the groups attributed to it (`parts`, the
/// root first); the case directory its smallest case is copied from.
fn merged_finding(
    root: &Group,
    parts: &[&Group],
    inputs: &[Input],
) -> (MergedFinding, Option<PathBuf>) {
    let mut seen = Vec::new();
    let mut notes = Vec::new();
    // (program bytes, signature, directory, case directory)
    let mut best: Option<(usize, &str, &str, PathBuf)> = None;
    let mut hits = 0u64;
    for g in parts {
        for &(n, f) in &g.members {
            let input = &inputs[n];
            hits = hits.saturating_add(f.count);
            seen.push(Seen {
                dir: input.label.clone(),
                seed: input.state.seed,
                signature: g.sig.to_string(),
                hits: f.count,
                first_iteration: f.first_iteration,
                instructions: f.instructions,
            });
            let case_dir = input.dir.join(g.sig);
            match program_bytes(&case_dir) {
                Ok(bytes) => {
                    let candidate = (bytes, g.sig, input.label.as_str(), case_dir);
                    let smaller = best
                        .as_ref()
                        .is_none_or(|b| (candidate.0, candidate.1, candidate.2) < (b.0, b.1, b.2));
                    if smaller {
                        best = Some(candidate);
                    }
                }
                Err(why) => notes.push(format!("{}: {why}", input.label)),
            }
        }
    }
    // By directory, the finding's own signature first.
    seen.sort_by_key(|s| (s.dir.clone(), s.signature != root.sig, s.signature.clone()));
    let first = root.members.first().map(|(_, f)| *f);
    let finding = MergedFinding {
        signature: root.sig.to_string(),
        backend: first.map(|f| f.backend.clone()).unwrap_or_default(),
        key: root.key.to_string(),
        known: root.known.clone(),
        hits,
        message: first.map(|f| f.message.clone()).unwrap_or_default(),
        case: best.as_ref().map(|(bytes, sig, dir, _)| ChosenCase {
            path: format!("{}/case.yaml", root.sig),
            program_bytes: *bytes,
            dir: dir.to_string(),
            signature: sig.to_string(),
        }),
        seen,
        notes,
        history: None,
    };
    (finding, best.map(|b| b.3))
}

/// The measure of the reduced case in the finding directory `case_dir`: the bytes of its
/// programs' text, as the loader reads the case (bounded, checked: a file that is not a case
/// is no candidate). A directory or `case.yaml` that is a symlink, or a `case.yaml` that is
/// not a regular file, is not read: the error names it and says what it is, never what it
/// holds.
fn program_bytes(case_dir: &Path) -> Result<usize, String> {
    let case = case_dir.join("case.yaml");
    if !finding_dir(case_dir)? {
        return Err(format!("no reduced case ({} is missing)", case.display()));
    }
    match std::fs::symlink_metadata(&case) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("no reduced case ({} is missing)", case.display()))
        }
        Err(e) => return Err(format!("{}: {e}", case.display())),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(format!(
                "{} is a symbolic link, not a reduced case; not followed",
                case.display()
            ))
        }
        Ok(_) => {}
    }
    let case = case.as_path();
    let loaded = conform_case::load(case, None).map_err(|d| match d.first() {
        Some(d) => format!("its reduced case does not load: {d}"),
        None => "its reduced case does not load".into(),
    })?;
    Ok(loaded.plan.programs.iter().map(|p| p.text.len()).sum())
}

/// Copies the files of the finding directory `from` to `to` (each bounded; one that is not
/// there is left out, one that cannot be read is a note).
fn copy_case(from: &Path, to: &Path, notes: &mut Vec<String>) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    if let Err(why) = finding_dir(from) {
        notes.push(format!("nothing copied: {why}"));
        return Ok(());
    }
    for name in CASE_FILES {
        let src = from.join(name);
        match read_bounded_nofollow(&src, MAX_FILE_BYTES) {
            Ok(bytes) => {
                let dst = to.join(name);
                std::fs::write(&dst, bytes).map_err(|e| format!("{}: {e}", dst.display()))?;
            }
            Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => notes.push(format!("{} not copied: {e}", src.display())),
        }
    }
    Ok(())
}

fn node_of(input: &Input) -> Node {
    let s = &input.state;
    Node {
        dir: input.label.clone(),
        state: input.state_path.display().to_string(),
        seed: s.seed,
        lang: s
            .lang
            .as_ref()
            .map_or_else(|| "all".into(), super::LangChoice::name),
        mode: s.mode,
        iterations: s.next,
        programs: s.execs,
        seconds: s.seconds,
        divergences: s
            .signatures
            .values()
            .fold(0u64, |n, f| n.saturating_add(f.count)),
        distinct: s.signatures.len(),
        known_hits: s.known.values().fold(0u64, |n, k| n.saturating_add(*k)),
        unsupported: s.unsupported.clone(),
        generator_errors: s.generator_error_count,
        first_generator_error: s.generator_errors.first().cloned(),
        unfinished: input.unfinished.clone(),
    }
}

/// The hits each campaign counted as known itself, merged by name.
fn known_hits(inputs: &[Input]) -> Vec<KnownHits> {
    let mut by_name: BTreeMap<&str, KnownHits> = BTreeMap::new();
    for input in inputs {
        for (name, n) in &input.state.known {
            let k = by_name.entry(name).or_insert_with(|| KnownHits {
                name: name.clone(),
                hits: 0,
                seen: Vec::new(),
                history: None,
            });
            k.hits = k.hits.saturating_add(*n);
            k.seen.push((input.label.clone(), *n));
        }
    }
    by_name.into_values().collect()
}

#[cfg(test)]
mod tests;
