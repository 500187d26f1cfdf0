//! The differential view of a multi-backend run: per case, the reference and every driver
//! side by side, flagging where backends disagree with each other as well as with the
//! expectation.
//!
//! Two backends "agree on memory" when their final buffers are equal on every range the case
//! checks deterministically (exact, tolerance, reference), equal as multisets on
//! `permutation_of` ranges, and match the same alternative of each `one_of` (for ambiguous
//! clauses the alternative *is* the reading a driver follows, so the report names it).
//!
//! Case names and buffer names come from case files: both renderings escape them
//! (`conform_io::escape`).

use conform_case::{Case, Check};
use conform_io::escape::{line, md_cell_code, md_code, md_text};
use conform_judge::checks::{differing, failing_comparison, forbidden_tuples, permutation_diff};
use conform_judge::results::{CaseResult, Status};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// One case across backends.
#[derive(Debug, Clone)]
pub struct CaseRow {
    pub case: String,
    pub statuses: BTreeMap<String, Status>,
    /// Pairs of backends whose memory differs, with where.
    pub memory_disagreements: Vec<String>,
    /// For each `one_of` expectation (by line): backend → index of the matched alternative.
    pub readings: Vec<(usize, BTreeMap<String, Option<usize>>)>,
}

impl CaseRow {
    /// Statuses of the backends that actually ran the case (not skipped).
    fn ran(&self) -> impl Iterator<Item = (&String, &Status)> {
        self.statuses.iter().filter(|(_, s)| **s != Status::Skip)
    }

    pub fn status_disagreement(&self) -> bool {
        let set: BTreeSet<Status> = self.ran().map(|(_, s)| *s).collect();
        set.len() > 1
    }

    pub fn reading_disagreement(&self) -> bool {
        self.readings.iter().any(|(_, m)| {
            let set: BTreeSet<Option<usize>> = m.values().copied().collect();
            set.len() > 1
        })
    }

    pub fn disagrees(&self) -> bool {
        self.status_disagreement()
            || !self.memory_disagreements.is_empty()
            || self.reading_disagreement()
    }
}

#[derive(Debug, Clone)]
pub struct Differential {
    pub backends: Vec<String>,
    pub rows: Vec<CaseRow>,
    /// Which build each backend was (the run record's), named above the table.
    pub identities: BTreeMap<String, conform_judge::identity::BackendIdentity>,
}

/// Where two backends' final buffers differ on the ranges the case checks, if they do.
fn memory_difference(case: &Case, a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<String> {
    for x in &case.expect {
        if x.at_snapshot.is_some() {
            // The view holds final memory only; `expect` steps are judged per backend.
            continue;
        }
        let range = x.byte_range();
        let (Some(ma), Some(mb)) = (
            a.get(x.buffer).and_then(|m| m.get(range.clone())),
            b.get(x.buffer).and_then(|m| m.get(range.clone())),
        ) else {
            continue;
        };
        let name = &case.plan.buffers[x.buffer].name;
        match &x.check {
            Check::Exact(_) | Check::Reference | Check::OneOf(_) => {
                if let Some(&i) = differing(ma, mb, x.elem, None).first() {
                    return Some(format!("{name}[{}]", x.at + i));
                }
            }
            Check::Within(_, tol) => {
                if let Some(&i) = differing(ma, mb, x.elem, Some(*tol)).first() {
                    return Some(format!("{name}[{}]", x.at + i));
                }
            }
            Check::Permutation(_) => {
                let (missing, extra) = permutation_diff(ma, mb, x.elem);
                if !missing.is_empty() || !extra.is_empty() {
                    return Some(format!(
                        "{name}[{}..{}] as a multiset",
                        x.at,
                        x.at + x.count
                    ));
                }
            }
            Check::Compare(op, expected) => {
                // Values may differ where the comparison allows it (timers, counters): only
                // a different verdict on an element is a disagreement.
                let fa = failing_comparison(ma, expected, x.elem, *op);
                let fb = failing_comparison(mb, expected, x.elem, *op);
                if let Some(&i) = fa
                    .iter()
                    .chain(&fb)
                    .find(|i| fa.contains(i) != fb.contains(i))
                {
                    return Some(format!("{name}[{}]", x.at + i));
                }
            }
            Check::Outcomes { width, allowed } => {
                // Litmus outcomes differ from run to run: only a different verdict on an
                // instance is a disagreement.
                let fa = forbidden_tuples(ma, x.elem, *width, allowed);
                let fb = forbidden_tuples(mb, x.elem, *width, allowed);
                if let Some(&i) = fa
                    .iter()
                    .chain(&fb)
                    .find(|i| fa.contains(i) != fb.contains(i))
                {
                    return Some(format!("{name}[{}..] instance {i}", x.at));
                }
            }
            Check::Undefined => {}
        }
    }
    None
}

impl Differential {
    pub fn compute(
        cases: &[Case],
        results: &[CaseResult],
        memory: &[BTreeMap<String, Vec<Vec<u8>>>],
    ) -> Differential {
        let mut backends: Vec<String> = results
            .iter()
            .map(|r| r.backend.clone())
            .filter(|b| b != "loader")
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        // The reference first, then drivers by name.
        backends.sort_by_key(|b| (b != "reference", b.clone()));
        let mut by_case: BTreeMap<&str, BTreeMap<String, Status>> = BTreeMap::new();
        for r in results {
            by_case
                .entry(r.case.as_str())
                .or_default()
                .insert(r.backend.clone(), r.status);
        }
        let rows = cases
            .iter()
            .enumerate()
            .map(|(i, case)| {
                let statuses = by_case.get(case.name.as_str()).cloned().unwrap_or_default();
                // Memory is compared only between backends whose run counts: a backend that
                // skipped the case (a step it cannot execute, no golden output) may still have
                // left buffers behind, and they say nothing about it.
                let mut mem = memory.get(i).cloned().unwrap_or_default();
                mem.retain(|b, _| statuses.get(b).is_none_or(|s| *s != Status::Skip));
                let names: Vec<&String> = mem.keys().collect();
                let mut memory_disagreements = Vec::new();
                for (j, a) in names.iter().enumerate() {
                    for b in &names[j + 1..] {
                        if let Some(at) = memory_difference(case, &mem[*a], &mem[*b]) {
                            memory_disagreements.push(format!("{a} ≠ {b} at {at}"));
                        }
                    }
                }
                let readings = case
                    .expect
                    .iter()
                    .filter_map(|x| match &x.check {
                        Check::OneOf(alts) => {
                            let per: BTreeMap<String, Option<usize>> = mem
                                .iter()
                                .map(|(backend, bufs)| {
                                    let got =
                                        bufs.get(x.buffer).and_then(|m| m.get(x.byte_range()));
                                    let which = got.and_then(|g| {
                                        alts.iter().position(|alt| {
                                            differing(alt, g, x.elem, None).is_empty()
                                        })
                                    });
                                    (backend.clone(), which)
                                })
                                .collect();
                            Some((x.line, per))
                        }
                        _ => None,
                    })
                    .collect();
                CaseRow {
                    case: case.name.clone(),
                    statuses,
                    memory_disagreements,
                    readings,
                }
            })
            .collect();
        Differential {
            backends,
            rows,
            identities: BTreeMap::new(),
        }
    }

    fn status_cells(&self, row: &CaseRow) -> Vec<String> {
        self.backends
            .iter()
            .map(|b| {
                row.statuses
                    .get(b)
                    .map_or("-".to_string(), |s| s.name().to_string())
            })
            .collect()
    }

    fn reading_text(row: &CaseRow) -> Vec<String> {
        row.readings
            .iter()
            .map(|(line, per)| {
                let parts: Vec<String> = per
                    .iter()
                    .map(|(b, w)| match w {
                        Some(i) => format!("{b}: alternative {i}"),
                        None => format!("{b}: none"),
                    })
                    .collect();
                format!("one_of at line {line}: {}", parts.join(", "))
            })
            .collect()
    }

    /// The disagreements only, for the end of a run.
    pub fn render_terminal(&self) -> String {
        let bad: Vec<&CaseRow> = self.rows.iter().filter(|r| r.disagrees()).collect();
        if bad.is_empty() {
            return format!("backends agree on all {} case(s)\n", self.rows.len());
        }
        let mut o = format!(
            "backends disagree on {} of {} case(s):\n",
            bad.len(),
            self.rows.len()
        );
        for r in bad {
            let cells: Vec<String> = self
                .backends
                .iter()
                .zip(self.status_cells(r))
                .map(|(b, s)| format!("{b}={s}"))
                .collect();
            let _ = writeln!(o, "  {} {}", line(&r.case), line(&cells.join(" ")));
            for m in &r.memory_disagreements {
                let _ = writeln!(o, "      memory: {}", line(m));
            }
            if r.reading_disagreement() {
                for t in Self::reading_text(r) {
                    let _ = writeln!(o, "      {}", line(&t));
                }
            }
        }
        o
    }

    /// The full side-by-side table, disagreements first.
    pub fn render_markdown(&self) -> String {
        let mut o = String::from("# Differential report\n\n");
        let bad: Vec<&CaseRow> = self.rows.iter().filter(|r| r.disagrees()).collect();
        let _ = writeln!(
            o,
            "{} cases on {} backends; backends disagree on {}.\n",
            self.rows.len(),
            self.backends.len(),
            bad.len()
        );
        o.push_str(&crate::markdown::drivers(&self.identities));
        let backends: Vec<String> = self.backends.iter().map(|b| md_text(b)).collect();
        let header = format!(
            "| case | {} | disagreement |\n|---|{}---|\n",
            backends.join(" | "),
            "---|".repeat(self.backends.len())
        );
        if !bad.is_empty() {
            o.push_str("## Disagreements\n\n");
            o.push_str(&header);
            for r in &bad {
                let mut why = Vec::new();
                if r.status_disagreement() {
                    why.push("status".to_string());
                }
                why.extend(r.memory_disagreements.iter().map(|m| format!("memory {m}")));
                if r.reading_disagreement() {
                    why.extend(Self::reading_text(r));
                }
                let _ = writeln!(
                    o,
                    "| {} | {} | {} |",
                    md_cell_code(&r.case),
                    self.status_cells(r).join(" | "),
                    md_text(&why.join("; "))
                );
            }
            o.push('\n');
        }
        let ambiguous: Vec<&CaseRow> = self
            .rows
            .iter()
            .filter(|r| !r.readings.is_empty())
            .collect();
        if !ambiguous.is_empty() {
            o.push_str("## Readings of ambiguous clauses (which `one_of` alternative each backend produced)\n\n");
            for r in ambiguous {
                for t in Self::reading_text(r) {
                    let _ = writeln!(o, "- {}: {}", md_code(&r.case), md_text(&t));
                }
            }
            o.push('\n');
        }
        o.push_str("## All cases\n\n");
        o.push_str(&header);
        for r in &self.rows {
            let _ = writeln!(
                o,
                "| {} | {} | {} |",
                md_cell_code(&r.case),
                self.status_cells(r).join(" | "),
                if r.disagrees() { "yes" } else { "" }
            );
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn case() -> Case {
        let text = "spec: [X]\nprogram: {language: glsl, source: x}\nbuffers:\n  - {name: out, binding: 0, data: [0, 0, 0, 0]}\nexpect:\n  - {buffer: out, values: [1]}\n  - {buffer: out, at: 1, permutation_of: [1, 2]}\n  - {buffer: out, at: 3, one_of: [[7], [8]]}\n";
        conform_case::parse(Path::new("cases/t/c.yaml"), text, None).unwrap()
    }

    fn result(backend: &str, status: Status) -> CaseResult {
        CaseResult {
            case: "t/c".into(),
            path: String::new(),
            backend: backend.into(),
            status,
            message: String::new(),
            details: vec![],
            spec: vec![],
            duration_ms: 0,
            repro: String::new(),
            allowed: false,
            log: String::new(),
            differing: BTreeMap::new(),
            attempts: vec![],
            evidence: None,
            driver: String::new(),
        }
    }

    fn mem(words: &[u32]) -> Vec<Vec<u8>> {
        vec![conform_plan::bytes::from_u32s(words)]
    }

    #[test]
    fn permutations_agree_readings_and_values_are_compared() {
        let c = case();
        let results = vec![
            result("reference", Status::Pass),
            result("a", Status::Pass),
            result("b", Status::Fail),
        ];
        let mut m = BTreeMap::new();
        m.insert("reference".to_string(), mem(&[1, 1, 2, 7]));
        m.insert("a".to_string(), mem(&[1, 2, 1, 7]));
        m.insert("b".to_string(), mem(&[5, 1, 2, 8]));
        let d = Differential::compute(std::slice::from_ref(&c), &results, &[m]);
        let row = &d.rows[0];
        assert_eq!(d.backends, ["reference", "a", "b"]);
        assert!(row.status_disagreement());
        assert_eq!(
            row.memory_disagreements,
            ["a ≠ b at out[0]", "b ≠ reference at out[0]"]
        );
        assert!(row.reading_disagreement());
        let text = d.render_terminal();
        assert!(text.contains("t/c reference=pass a=pass b=fail"), "{text}");
        assert!(
            text.contains(
                "one_of at line 8: a: alternative 0, b: alternative 1, reference: alternative 0"
            ),
            "{text}"
        );
        let md = d.render_markdown();
        assert!(md.contains("| `t/c` | pass | pass | fail | yes |"), "{md}");
    }

    #[test]
    fn agreeing_backends_are_quiet() {
        let c = case();
        let results = vec![
            result("reference", Status::Pass),
            result("a", Status::Pass),
            result("b", Status::Skip),
        ];
        let mut m = BTreeMap::new();
        m.insert("reference".to_string(), mem(&[1, 1, 2, 7]));
        m.insert("a".to_string(), mem(&[1, 2, 1, 7]));
        let d = Differential::compute(std::slice::from_ref(&c), &results, &[m]);
        assert!(!d.rows[0].disagrees());
        assert_eq!(d.render_terminal(), "backends agree on all 1 case(s)\n");
    }

    /// A backend that skipped a case may have left buffers behind (it skips on a step it
    /// cannot execute after running others); they are no disagreement, its skip is no
    /// disagreement either, and the drivers that ran still get compared.
    #[test]
    fn a_skipping_backend_is_no_memory_disagreement() {
        let c = case();
        let results = vec![
            result("reference", Status::Skip),
            result("a", Status::Pass),
            result("b", Status::Pass),
        ];
        let mut m = BTreeMap::new();
        m.insert("reference".to_string(), mem(&[0, 0, 0, 0]));
        m.insert("a".to_string(), mem(&[1, 1, 2, 7]));
        m.insert("b".to_string(), mem(&[1, 2, 1, 7]));
        let d = Differential::compute(std::slice::from_ref(&c), &results, &[m.clone()]);
        assert!(d.rows[0].memory_disagreements.is_empty());
        assert!(!d.rows[0].disagrees(), "{:?}", d.rows[0]);
        m.insert("b".to_string(), mem(&[9, 2, 1, 7]));
        let d = Differential::compute(std::slice::from_ref(&c), &results, &[m]);
        assert_eq!(d.rows[0].memory_disagreements, ["a ≠ b at out[0]"]);
        assert!(d.render_terminal().starts_with(
            "backends disagree on 1 of 1 case(s):\n  t/c reference=skip a=pass b=pass\n"
        ));
    }

    #[test]
    fn hostile_case_names_are_escaped_in_both_renderings() {
        let mut c = case();
        c.name = "x\n/merge\n@all <script>alert(1)</script>|`\x1b[2J".into();
        let mut results = vec![result("reference", Status::Pass), result("a", Status::Fail)];
        for r in &mut results {
            r.case = c.name.clone();
        }
        let d = Differential::compute(std::slice::from_ref(&c), &results, &[BTreeMap::new()]);
        let md = d.render_markdown();
        for l in md.lines() {
            assert!(!l.starts_with('/') && !l.starts_with('@'), "{l}");
        }
        // Inside a code span, `<script>` is text; the `|` is escaped for the table.
        assert!(
            md.contains("| `` x\\n/merge\\n@all <script>alert(1)</script>\\|`\\x1b[2J `` |"),
            "{md}"
        );
        assert!(!md.contains('\x1b'), "{md}");
        let text = d.render_terminal();
        assert!(
            !text.contains('\x1b') && !text.contains("\n/merge"),
            "{text}"
        );
    }

    /// Litmus outcomes differ from run to run: backends disagree only where one of them has a
    /// forbidden outcome and the other not.
    #[test]
    fn outcome_sets_compare_verdicts_not_values() {
        let text = "spec: [X]\nprogram: {language: glsl, source: x}\nbuffers:\n  - {name: out, binding: 0, data: [0, 0, 0, 0]}\nexpect:\n  - {buffer: out, outcomes: {width: 2, allowed: [[0, 0], [0, 1], [1, 1]]}}\n";
        let c = conform_case::parse(Path::new("cases/t/mp.yaml"), text, None).unwrap();
        assert_eq!(
            memory_difference(&c, &mem(&[0, 0, 1, 1]), &mem(&[0, 1, 0, 0])),
            None
        );
        assert_eq!(
            memory_difference(&c, &mem(&[0, 0, 1, 1]), &mem(&[0, 0, 1, 0])),
            Some("out[0..] instance 1".into())
        );
    }
}
