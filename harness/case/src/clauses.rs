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
}

#[derive(Debug, Clone)]
pub struct Catalogue {
    pub path: PathBuf,
    /// Extension → clauses, in file order.
    pub extensions: Vec<(String, Vec<Clause>)>,
    ids: BTreeSet<String>,
}

impl Catalogue {
    pub fn load(path: &Path) -> Result<Catalogue, Diagnostic> {
        let text = conform_io::input::read_text(path)?;
        let raw: indexmap_like::OrderedMap = serde_yaml_ng::from_str(&text).map_err(|e| {
            let (l, c) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            Diagnostic::new(path, l, c, format!("clause catalogue: {e}"))
        })?;
        let mut ids = BTreeSet::new();
        for (_, clauses) in &raw.0 {
            for c in clauses {
                if !ids.insert(c.id.clone()) {
                    return Err(Diagnostic::whole_file(
                        path,
                        format!("clause id `{}` appears twice", c.id),
                    ));
                }
            }
        }
        Ok(Catalogue {
            path: path.to_path_buf(),
            extensions: raw.0,
            ids,
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
    fn duplicate_ids_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clauses.yaml");
        std::fs::write(
            &path,
            "E:\n  - {id: X, kind: exec, text: a}\n  - {id: X, kind: exec, text: b}\n",
        )
        .unwrap();
        let e = Catalogue::load(&path).unwrap_err();
        assert!(e.message.contains("appears twice"));
    }
}
