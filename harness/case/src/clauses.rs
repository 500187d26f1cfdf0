//! The clause catalogue (`cases/clauses.yaml`) and spec coverage.
//!
//! The catalogue lists every testable clause of the mission's extensions with an id; a case
//! names the clauses it exercises in `spec:`. Coverage is the share of catalogue ids named by
//! at least one valid case, per extension.

use conform_io::diag::Diagnostic;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clause {
    pub id: String,
    pub kind: String,
    pub text: String,
    #[serde(default, rename = "where")]
    pub location: Option<String>,
    #[serde(default)]
    pub ambiguity: bool,
    /// The specification's own words for the clause (`text` is conform's summary), each with
    /// where it is from: the spec's name, revision and section. What an upstream report
    /// quotes (`conform bugreport`).
    #[serde(default)]
    pub quote: Vec<Quote>,
}

/// Sentences of a specification, word for word, and where they are from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quote {
    /// The spec's name, revision and section (`ARB_compute_shader, Revision 28, ...`).
    pub from: String,
    /// The sentences, verbatim (only line breaks and runs of spaces normalised).
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Catalogue {
    pub path: PathBuf,
    /// Extension → clauses, in file order.
    pub extensions: Vec<(String, Vec<Clause>)>,
    ids: BTreeSet<String>,
}

impl Catalogue {
    /// Reads the catalogue at `path` as a case file is read (see [`Catalogue::load_in`]),
    /// confined to the directory that holds it.
    pub fn load(path: &Path) -> Result<Catalogue, Diagnostic> {
        Catalogue::load_in(path, true)
    }

    /// Reads the catalogue at `path` with the rules of a case file, since it is as untrusted
    /// (it comes with the cases, and is found by walking up from them): unless `confined` is
    /// false (`--allow-outside-root`), it must resolve inside the directory that holds it (as
    /// a case root holds its cases: not through a symlink that leaves it, not in a `.git`
    /// directory); a regular file, at most `MAX_FILE_BYTES`, UTF-8; a YAML document within the
    /// case limits, read alike by both parsers (`yaml.rs`). Errors name the file and the
    /// position, never what the file holds: a catalogue that is not one may be any file.
    pub fn load_in(path: &Path, confined: bool) -> Result<Catalogue, Diagnostic> {
        if confined {
            confine(path)
                .map_err(|msg| Diagnostic::whole_file(path, msg).with_hint(crate::root::HINT))?;
        }
        let text = conform_io::input::read_text(path)?;
        crate::yaml::check(&text, crate::limits::YAML_BUDGET).map_err(|e| {
            Diagnostic::new(
                path,
                e.pos.line,
                e.pos.column,
                format!("clause catalogue: {}", e.message),
            )
        })?;
        let raw: indexmap_like::OrderedMap = serde_yaml_ng::from_str(&text).map_err(|e| {
            let (l, c) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            Diagnostic::new(
                path,
                l,
                c,
                format!("clause catalogue: {}", without_content(&e.to_string())),
            )
        })?;
        let mut ids = BTreeMap::new();
        let index = crate::pos::PosIndex::build(&text);
        for (ext, clauses) in &raw.0 {
            for (i, c) in clauses.iter().enumerate() {
                let at = index.node(&format!("{ext}[{i}].id"));
                if let Some(first) = ids.insert(c.id.clone(), at) {
                    return Err(Diagnostic::new(
                        path,
                        at.line,
                        at.column,
                        format!(
                            "clause catalogue: this clause id is also the id at line {}",
                            first.line
                        ),
                    ));
                }
            }
        }
        Ok(Catalogue {
            path: path.to_path_buf(),
            extensions: raw.0,
            ids: ids.into_keys().collect(),
        })
    }

    /// The catalogue for cases under `start`: `clauses.yaml` in the nearest ancestor directory.
    pub fn find(start: &Path) -> Option<PathBuf> {
        let start = std::fs::canonicalize(start).ok()?;
        let mut dir = if start.is_dir() {
            Some(start.as_path())
        } else {
            start.parent()
        };
        while let Some(d) = dir {
            let candidate = d.join("clauses.yaml");
            if candidate.is_file() {
                return Some(candidate);
            }
            let nested = d.join("cases").join("clauses.yaml");
            if nested.is_file() {
                return Some(nested);
            }
            dir = d.parent();
        }
        None
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.ids.iter().map(String::as_str)
    }

    pub fn clause(&self, id: &str) -> Option<&Clause> {
        self.extensions
            .iter()
            .flat_map(|(_, cs)| cs)
            .find(|c| c.id == id)
    }
}

/// Why the catalogue at `path` may not be read, if it may not: it resolves outside the
/// directory that holds it, or inside a `.git` directory.
fn confine(path: &Path) -> Result<(), String> {
    // A file that does not resolve is reported by the reader.
    let Ok(real) = std::fs::canonicalize(path) else {
        return Ok(());
    };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let Ok(root) = std::fs::canonicalize(dir.unwrap_or(Path::new("."))) else {
        return Ok(());
    };
    if !real.starts_with(&root) {
        return Err(format!(
            "the clause catalogue resolves to {}, outside its directory {} (a symlink?); it was not read",
            real.display(),
            root.display()
        ));
    }
    if real.components().any(|c| c.as_os_str() == ".git") {
        return Err("the clause catalogue is inside a .git directory; it was not read".into());
    }
    Ok(())
}

/// A serde_yaml_ng error message without what the file holds. Its own messages (libyaml's
/// syntax errors, limits) quote nothing; serde's name the path of keys to the value and quote
/// the value (`EXT: invalid type: string "...", expected a sequence`), and those come from a
/// file that may be anything: only what our types expect is kept.
fn without_content(msg: &str) -> String {
    let msg = msg.find(" at line ").map_or(msg, |cut| &msg[..cut]);
    // What the types expected: after the last ", expected " (a quoted value cannot fake it: the
    // last one is serde's).
    let expected = msg
        .rfind(", expected ")
        .map(|i| &msg[i + 2..])
        .filter(|e| !e.contains('"'));
    for (phrase, what) in [
        ("invalid type: ", "a value of the wrong type"),
        ("invalid value: ", "a value out of range"),
        ("invalid length ", "a list of the wrong length"),
        ("unknown field ", "an unknown key"),
        ("unknown variant ", "an unknown name"),
        ("missing field ", "a clause without a required key"),
        ("duplicate field ", "a key given twice"),
    ] {
        if msg.contains(phrase) {
            return match expected {
                Some(e) => format!("{what} ({e})"),
                None => what.to_string(),
            };
        }
    }
    if msg.contains(['"', '`']) || msg.contains(": ") {
        return "not a map from extension names to lists of clauses".into();
    }
    msg.to_string()
}

/// Serde helper keeping the extensions in file order.
mod indexmap_like {
    use super::Clause;
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde::Deserialize;
    use std::fmt;

    pub struct OrderedMap(pub Vec<(String, Vec<Clause>)>);

    impl<'de> Deserialize<'de> for OrderedMap {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = OrderedMap;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a map from extension name to a list of clauses")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<OrderedMap, A::Error> {
                    let mut out = Vec::new();
                    while let Some((k, v)) = m.next_entry::<String, Vec<Clause>>()? {
                        out.push((k, v));
                    }
                    Ok(OrderedMap(out))
                }
            }
            d.deserialize_map(V)
        }
    }
}

/// Coverage of the catalogue by a set of cases (their `spec:` lists).
#[derive(Debug)]
pub struct Coverage {
    /// Extension → (covered ids, uncovered ids).
    pub per_extension: Vec<(String, Vec<String>, Vec<String>)>,
    /// Clause id → names of the cases naming it.
    pub cases_by_clause: BTreeMap<String, Vec<String>>,
}

impl Coverage {
    pub fn compute<'a>(
        cat: &Catalogue,
        cases: impl IntoIterator<Item = (&'a str, &'a [String])>,
    ) -> Coverage {
        let mut cases_by_clause: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (name, spec) in cases {
            for id in spec {
                cases_by_clause
                    .entry(id.clone())
                    .or_default()
                    .push(name.to_string());
            }
        }
        let per_extension = cat
            .extensions
            .iter()
            .map(|(ext, clauses)| {
                let (covered, uncovered): (Vec<_>, Vec<_>) = clauses
                    .iter()
                    .map(|c| c.id.clone())
                    .partition(|id| cases_by_clause.contains_key(id));
                (ext.clone(), covered, uncovered)
            })
            .collect();
        Coverage {
            per_extension,
            cases_by_clause,
        }
    }

    pub fn totals(&self) -> (usize, usize) {
        self.per_extension
            .iter()
            .fold((0, 0), |(c, t), (_, cov, unc)| {
                (c + cov.len(), t + cov.len() + unc.len())
            })
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        for (ext, cov, unc) in &self.per_extension {
            let total = cov.len() + unc.len();
            out.push_str(&format!(
                "{ext:<36} {:>3}/{:<3} {:>5.1}%\n",
                cov.len(),
                total,
                percent(cov.len(), total)
            ));
        }
        let (c, t) = self.totals();
        out.push_str(&format!(
            "{:<36} {c:>3}/{t:<3} {:>5.1}%\n",
            "total",
            percent(c, t)
        ));
        let uncovered: Vec<&String> = self.per_extension.iter().flat_map(|(_, _, u)| u).collect();
        if !uncovered.is_empty() {
            out.push_str(&format!("\nuncovered ({}):\n", uncovered.len()));
            for id in uncovered {
                out.push_str(&format!("  {id}\n"));
            }
        }
        out
    }
}

fn percent(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        a as f64 * 100.0 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_counts_per_extension() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clauses.yaml");
        std::fs::write(
            &path,
            "EXT_a:\n  - {id: A-1, kind: exec, text: one}\n  - {id: A-2, kind: exec, text: two}\nEXT_b:\n  - {id: B-1, kind: api, text: three}\n",
        )
        .unwrap();
        let cat = Catalogue::load(&path).unwrap();
        assert!(cat.contains("A-2"));
        let spec = vec!["A-1".to_string(), "B-1".to_string()];
        let cov = Coverage::compute(&cat, [("c1", spec.as_slice())]);
        assert_eq!(cov.totals(), (2, 3));
        let text = cov.render();
        assert!(text.contains("EXT_a"));
        assert!(text.contains("uncovered (1):\n  A-2"));
    }

    #[test]
    fn errors_name_the_position_never_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clauses.yaml");
        for (text, at, says) in [
            ("E:\n  - {id: X, kind: exec, text: a}\nF: \"s3cret\"\n", 3, "a value of the wrong type (expected a sequence)"),
            ("s3cret\n", 1, "a value of the wrong type"),
            ("E:\n  - {id: X, kind: exec, s3cret: a}\n", 2, "an unknown key (expected one of"),
            ("E:\n  - {id: X, kind: exec}\n", 2, "a clause without a required key"),
            ("E: [\n  s3cret\n", 2, "a value of the wrong type (expected struct Clause)"),
            ("E: [\n  {id: s3cret, kind: exec, text: a}\n", 3, "did not find expected"),
            ("E:\n  - {id: s3cret, kind: exec, text: a}\n  - {id: s3cret, kind: exec, text: b}\n", 3, "also the id at line 2"),
        ] {
            std::fs::write(&path, text).unwrap();
            let e = Catalogue::load(&path).unwrap_err();
            let shown = e.to_string();
            assert!(!shown.contains("s3cret"), "{shown}");
            assert_eq!(e.line, at, "{shown}");
            assert!(shown.contains(says), "{shown}");
        }
    }

    #[test]
    fn a_catalogue_is_read_inside_its_directory_only() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("cases")).unwrap();
        std::fs::write(tmp.path().join("secret.txt"), "s3cret: [x]\n").unwrap();
        let link = tmp.path().join("cases/clauses.yaml");
        std::os::unix::fs::symlink("../secret.txt", &link).unwrap();
        let e = Catalogue::load(&link).unwrap_err().to_string();
        assert!(
            e.contains("outside its directory") && !e.contains("s3cret"),
            "{e}"
        );
        // Unconfined (--allow-outside-root), it is read, and still never quoted.
        let e = Catalogue::load_in(&link, false).unwrap_err().to_string();
        assert!(e.contains("wrong type") && !e.contains("s3cret"), "{e}");
    }

    #[test]
    fn duplicate_ids_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clauses.yaml");
        std::fs::write(
            &path,
            "E:\n  - {id: X, kind: exec, text: a}\n  - {id: X, kind: exec, text: b}\n",
        )
        .unwrap();
        let e = Catalogue::load(&path).unwrap_err();
        assert!(e.message.contains("also the id at line 2"), "{e}");
        assert_eq!(e.line, 3);
    }
}
