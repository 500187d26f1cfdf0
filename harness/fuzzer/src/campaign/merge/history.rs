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

/// Reads the previous night's `merged.json` (bounded; errors name the file).
pub fn load(path: &Path) -> Result<Previous, String> {
    let text = read_bounded(path, MAX_PREVIOUS_BYTES)
        .map_err(|e| format!("--history {}: {e}", path.display()))?;
    serde_json::from_slice(&text).map_err(|e| {
        format!(
            "--history {}: not a merged.json of `conform fuzz merge`: {e}",
            path.display()
        )
    })
}

/// Gives tonight's findings their history and lists the earlier ones tonight did not see.
pub fn apply(merged: &mut Merged, previous: Option<&Previous>, night: &str) {
    merged.night = Some(night.to_string());
    // Every finding an earlier night knew, with its history, by signature.
    let mut before: BTreeMap<&str, Absent> = BTreeMap::new();
    if let Some(p) = previous {
        let their_night = p.night.as_deref().unwrap_or(night);
        for a in &p.absent {
            before.insert(&a.signature, a.clone());
        }
        for f in &p.findings {
            let history = f.history.clone().unwrap_or_else(|| History {
                first_seen: their_night.to_string(),
                last_seen: their_night.to_string(),
                nights: 1,
            });
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
        f.history = Some(match before.remove(f.signature.as_str()) {
            // Merged twice on one night: counted once.
            Some(b) if b.history.last_seen == night => b.history,
            Some(b) => History {
                first_seen: b.history.first_seen,
                last_seen: night.to_string(),
                nights: b.history.nights.saturating_add(1),
            },
            None => History {
                first_seen: night.to_string(),
                last_seen: night.to_string(),
                nights: 1,
            },
        });
    }
    merged.absent = before.into_values().collect();
}
