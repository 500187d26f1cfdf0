//! A bug list that lives across nights (`conform fuzz merge --history PREVIOUS`): each finding
//! of tonight's merge with the night it was first seen, the last night it was seen (tonight)
//! and on how many nights, and each finding of earlier nights that tonight did not see, "not
//! seen since" its last night, as syzbot's and FuzzManager's lists keep them.
//!
//! A finding is the same from night to night when its signature is (signatures name the
//! driver, the language, the feature and the operators: `crate::reduction::signature`). The
//! history is read from the previous night's `merged.json` (its `findings` and `absent`), so a
//! chain of merges, each given the one before, carries it for ever; a `merged.json` without
//! history (written before `--history` existed, or a first night) starts every finding at the
//! night it names, or at tonight.

use super::Merged;
use conform_io::input::read_bounded;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The largest previous `merged.json` read (a merge holds at most 10,000 findings).
const MAX_PREVIOUS_BYTES: u64 = 64 << 20;

/// The longest night label (`2026-12-07`, or a CI pipeline's id).
const MAX_NIGHT: usize = 64;

/// A finding's life across nights.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub first_seen: String,
    pub last_seen: String,
    /// Nights it was seen on, tonight included.
    pub nights: u32,
}

impl History {
    /// A first sighting, on `night`.
    fn first(night: &str) -> History {
        History {
            first_seen: night.to_string(),
            last_seen: night.to_string(),
            nights: 1,
        }
    }

    /// Seen again on `night` after `before` (none: a first sighting); a second merge on the
    /// same night does not count the night twice.
    fn seen(before: Option<&History>, night: &str) -> History {
        match before {
            Some(h) if h.last_seen == night => h.clone(),
            Some(h) => History {
                first_seen: h.first_seen.clone(),
                last_seen: night.to_string(),
                nights: h.nights.saturating_add(1),
            },
            None => History::first(night),
        }
    }
}

/// A finding of an earlier night that tonight's campaigns did not see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Absent {
    pub signature: String,
    pub backend: String,
    pub key: String,
    #[serde(default)]
    pub known: Option<String>,
    /// Its history; `last_seen` is the night it was last seen ("not seen since").
    pub history: History,
}

/// What the previous night's `merged.json` says, as far as history goes.
#[derive(Debug, Deserialize)]
pub struct Previous {
    #[serde(default)]
    night: Option<String>,
    findings: Vec<PreviousFinding>,
    #[serde(default)]
    absent: Vec<Absent>,
    /// The hits the campaigns counted as known themselves, with their history.
    #[serde(default)]
    known_hits: Vec<PreviousKnown>,
    /// What `conform fuzz recheck` found fixed (its `recheck.json` beside `merged.json`).
    #[serde(skip)]
    fixed: BTreeMap<String, RecheckResult>,
}

/// A finding closed: an earlier night's, not seen tonight, that a recheck found fixed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fixed {
    pub signature: String,
    pub backend: String,
    pub history: History,
    /// The build it passed on, with its identity.
    pub fixed_on: RecheckResult,
}

#[derive(Debug, Deserialize)]
struct PreviousKnown {
    name: String,
    #[serde(default)]
    history: Option<History>,
}

#[derive(Debug, Deserialize)]
struct PreviousFinding {
    signature: String,
    backend: String,
    key: String,
    #[serde(default)]
    known: Option<String>,
    #[serde(default)]
    history: Option<History>,
}

/// Tonight's label: `night`, or today's date (UTC) when none is given. Refused when empty,
/// longer than [`MAX_NIGHT`] bytes or holding a control character (it goes into reports).
pub fn night_label(night: Option<&str>) -> Result<String, String> {
    let label = match night {
        Some(n) => n.to_string(),
        None => humantime::format_rfc3339_seconds(std::time::SystemTime::now())
            .to_string()
            .chars()
            .take(10)
            .collect(),
    };
    if label.is_empty() || label.len() > MAX_NIGHT || label.chars().any(char::is_control) {
        return Err(format!(
            "--night {label:?}: a night is 1 to {MAX_NIGHT} bytes without control characters"
        ));
    }
    Ok(label)
}

/// Reads the previous night's `merged.json` (bounded; errors name the file), with the
/// `recheck.json` of `conform fuzz recheck` beside it when there is one.
pub fn load(path: &Path) -> Result<Previous, String> {
    let text = read_bounded(path, MAX_PREVIOUS_BYTES)
        .map_err(|e| format!("--history {}: {e}", path.display()))?;
    let mut previous: Previous = serde_json::from_slice(&text).map_err(|e| {
        format!(
            "--history {}: not a merged.json of `conform fuzz merge`: {e}",
            path.display()
        )
    })?;
    let recheck = path.with_file_name("recheck.json");
    if recheck.exists() {
        let text = read_bounded(&recheck, MAX_PREVIOUS_BYTES)
            .map_err(|e| format!("{}: {e}", recheck.display()))?;
        let r: Recheck = serde_json::from_slice(&text).map_err(|e| {
            format!(
                "{}: not a recheck.json of `conform fuzz recheck`: {e}",
                recheck.display()
            )
        })?;
        for x in r.rechecked {
            if let Some(f) = x.fixed_on {
                previous.fixed.insert(x.signature, f);
            }
        }
    }
    Ok(previous)
}

/// Gives tonight's findings their history and lists the earlier ones tonight did not see.
pub fn apply(merged: &mut Merged, previous: Option<&Previous>, night: &str) {
    merged.night = Some(night.to_string());
    // Every finding an earlier night knew, with its history, by signature.
    let mut before: BTreeMap<&str, Absent> = BTreeMap::new();
    let no_fixes = BTreeMap::new();
    let fixed = previous.map_or(&no_fixes, |p| &p.fixed);
    if let Some(p) = previous {
        let their_night = p.night.as_deref().unwrap_or(night);
        for a in &p.absent {
            before.insert(&a.signature, a.clone());
        }
        for f in &p.findings {
            let history = f
                .history
                .clone()
                .unwrap_or_else(|| History::first(their_night));
            before.insert(
                &f.signature,
                Absent {
                    signature: f.signature.clone(),
                    backend: f.backend.clone(),
                    key: f.key.clone(),
                    known: f.known.clone(),
                    history,
                },
            );
        }
    }
    for f in &mut merged.findings {
        let b = before.remove(f.signature.as_str());
        f.history = Some(History::seen(b.as_ref().map(|b| &b.history), night));
    }
    // The known divergences the campaigns counted (a known bug is never reduced, so never a
    // finding): their nights too, by name.
    let mut known_before: BTreeMap<&str, &History> = BTreeMap::new();
    if let Some(p) = previous {
        for k in &p.known_hits {
            if let Some(h) = &k.history {
                known_before.insert(&k.name, h);
            }
        }
    }
    for k in &mut merged.known_hits {
        k.history = Some(History::seen(
            known_before.get(k.name.as_str()).copied(),
            night,
        ));
    }
    // Not seen tonight: closed when a recheck found it fixed, else "not seen since".
    for (sig, a) in before {
        match fixed.get(sig) {
            Some(on) => merged.fixed.push(Fixed {
                signature: a.signature,
                backend: a.backend,
                history: a.history,
                fixed_on: on.clone(),
            }),
            None => merged.absent.push(a),
        }
    }
}

/// The findings of a merged list (`MERGED/merged.json`): signature and backend, the
/// signature checked to be a directory name of the list.
pub fn findings_of(merged: &Path) -> Result<Vec<(String, String)>, String> {
    let path = merged.join("merged.json");
    let previous = load(&path)?;
    let mut out = Vec::new();
    for f in previous.findings {
        if f.signature.is_empty()
            || f.signature.contains(['/', '\\'])
            || f.signature.starts_with('.')
        {
            return Err(format!(
                "{}: {:?} is not a finding's signature",
                path.display(),
                f.signature
            ));
        }
        out.push((f.signature, f.backend));
    }
    Ok(out)
}

/// `conform fuzz recheck`'s result, as `recheck.json` holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Recheck {
    pub rechecked: Vec<Rechecked>,
}

/// One finding rechecked.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rechecked {
    pub signature: String,
    pub backend: String,
    /// Its reduced case on each build named.
    pub results: Vec<RecheckResult>,
    /// The first build of its own driver where it passes, if any.
    pub fixed_on: Option<RecheckResult>,
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecheckResult {
    pub backend: String,
    pub status: String,
    /// The build's identity (renderer, Mesa version).
    pub identity: String,
}

impl Recheck {
    /// `recheck.md`: one row per finding, its results and whether it is fixed.
    pub fn render(&self) -> String {
        use conform_io::escape::md_cell_code;
        let mut o = String::from("# Findings rechecked\n\n| finding | found on | results | fixed on |\n|---|---|---|---|\n");
        for r in &self.rechecked {
            let results: Vec<String> = r
                .results
                .iter()
                .map(|x| format!("{}: {}", md_cell_code(&x.backend), md_cell_code(&x.status)))
                .collect();
            let fixed = match &r.fixed_on {
                Some(f) => format!(
                    "{} ({})",
                    md_cell_code(&f.backend),
                    md_cell_code(&f.identity)
                ),
                None => match &r.note {
                    Some(n) => format!("not rechecked: {}", md_cell_code(n)),
                    None => "still failing".into(),
                },
            };
            o.push_str(&format!(
                "| {} | {} | {} | {fixed} |\n",
                md_cell_code(&r.signature),
                md_cell_code(&r.backend),
                results.join("; ")
            ));
        }
        o
    }
}
