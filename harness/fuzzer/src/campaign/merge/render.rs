//! The merged list as `summary.md`: what is new, what is known, where each was seen, and what
//! each campaign ran. Everything taken from the inputs is escaped (`conform_io::escape`).

use super::{Merged, MergedFinding, Node};
use conform_io::escape::{md_cell_code, md_text};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The longest message shown (its first line); `merged.json` holds it whole.
const MAX_MESSAGE: usize = 160;

/// `summary.md` of a merge.
pub fn render(m: &Merged) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# Fuzz campaigns merged\n");
    let programs = m
        .nodes
        .iter()
        .fold(0u64, |n, c| n.saturating_add(c.programs));
    let divergences = m
        .nodes
        .iter()
        .fold(0u64, |n, c| n.saturating_add(c.divergences));
    let seconds: f64 = m.nodes.iter().map(|c| c.seconds).sum();
    let mut seeds: Vec<u64> = m.nodes.iter().map(|c| c.seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    let seeds: Vec<String> = seeds.iter().map(u64::to_string).collect();
    let new = m.new_findings();
    let known = m.findings.len() - new;
    let against = match m.known_lines {
        Some(1) => "--known: 1 line".into(),
        Some(n) => format!("--known: {n} lines"),
        None => "no --known: every finding is new".into(),
    };
    let _ = writeln!(
        o,
        "{} campaign{} (seed{} {}): {programs} programs run in {} of campaign time, {divergences} divergences; {} findings: **{new} new**, {known} known ({against}).\n",
        m.nodes.len(),
        if m.nodes.len() == 1 { "" } else { "s" },
        if seeds.len() == 1 { "" } else { "s" },
        seeds.join(", "),
        clock(seconds),
        m.findings.len(),
    );
    let _ = writeln!(
        o,
        "Each finding's smallest reduced case is in `<signature>/` beside this file; `merged.json` holds the list.\n"
    );
    let mut notes = Vec::new();
    for n in m.nodes.iter() {
        if let Some(why) = &n.unfinished {
            notes.push(format!(
                "{} did not end its last session ({}): a killed node, or one still running; merged with what its state holds.",
                md_cell_code(&n.dir),
                md_text(why)
            ));
        }
    }
    let mut same: BTreeMap<(u64, &str, &str), Vec<&Node>> = BTreeMap::new();
    for n in &m.nodes {
        same.entry((n.seed, &n.lang, mode(n))).or_default().push(n);
    }
    for ((seed, lang, mode), nodes) in same.into_iter().filter(|(_, v)| v.len() > 1) {
        let dirs: Vec<String> = nodes.iter().map(|n| md_cell_code(&n.dir)).collect();
        notes.push(format!(
            "{} ran the same programs (seed {seed}, languages {}, mode {mode}): on the same backends, their findings are the same ones.",
            dirs.join(", "),
            md_text(lang)
        ));
    }
    for n in notes {
        let _ = writeln!(o, "- {n}");
    }
    let (new, known): (Vec<&MergedFinding>, Vec<&MergedFinding>) =
        m.findings.iter().partition(|f| f.known.is_none());
    let _ = writeln!(o, "\n## New findings\n");
    if new.is_empty() {
        let _ = writeln!(o, "None.");
    } else {
        findings_table(&mut o, &new, false);
    }
    if !known.is_empty() {
        let _ = writeln!(o, "\n## Known findings (--known)\n");
        findings_table(&mut o, &known, true);
    }
    if !m.known_hits.is_empty() {
        let _ = writeln!(
            o,
            "\n## Hits the campaigns counted as known (their own --known)\n"
        );
        let _ = writeln!(o, "| known divergence | hits | seen on |");
        let _ = writeln!(o, "|---|---|---|");
        for k in &m.known_hits {
            let seen: Vec<String> = k
                .seen
                .iter()
                .map(|(dir, n)| format!("{}: {n}", md_cell_code(dir)))
                .collect();
            let _ = writeln!(
                o,
                "| {} | {} | {} |",
                md_cell_code(&k.name),
                k.hits,
                seen.join("; ")
            );
        }
    }
    history(&mut o, m);
    campaigns(&mut o, &m.nodes);
    o
}

/// Each finding's nights, and the findings of earlier nights not seen tonight (a merge with
/// `--history` or `--night`).
fn history(o: &mut String, m: &Merged) {
    let Some(night) = &m.night else {
        return;
    };
    let _ = writeln!(o, "\n## History (tonight: {})\n", md_cell_code(night));
    let _ = writeln!(o, "| finding | backend | first seen | last seen | nights |");
    let _ = writeln!(o, "|---|---|---|---|---|");
    for k in &m.known_hits {
        if let Some(h) = &k.history {
            let (backend, name) = k.name.split_once(',').unwrap_or(("", &k.name));
            let _ = writeln!(
                o,
                "| {} (known) | {} | {} | {} | {} |",
                md_cell_code(name),
                md_cell_code(backend),
                md_cell_code(&h.first_seen),
                md_cell_code(&h.last_seen),
                h.nights
            );
        }
    }
    for f in &m.findings {
        if let Some(h) = &f.history {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} |",
                md_cell_code(&f.signature),
                md_cell_code(&f.backend),
                md_cell_code(&h.first_seen),
                md_cell_code(&h.last_seen),
                h.nights
            );
        }
    }
    if !m.fixed.is_empty() {
        let _ = writeln!(o, "\n### Fixed (`conform fuzz recheck`), closed\n");
        let _ = writeln!(
            o,
            "| finding | backend | first seen | last seen | fixed on |"
        );
        let _ = writeln!(o, "|---|---|---|---|---|");
        for f in &m.fixed {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} ({}) |",
                md_cell_code(&f.signature),
                md_cell_code(&f.backend),
                md_cell_code(&f.history.first_seen),
                md_cell_code(&f.history.last_seen),
                md_cell_code(&f.fixed_on.backend),
                md_cell_code(&f.fixed_on.identity)
            );
        }
    }
    let _ = writeln!(o, "\n### Not seen tonight\n");
    if m.absent.is_empty() {
        let _ = writeln!(o, "None.");
        return;
    }
    let _ = writeln!(
        o,
        "| finding | backend | first seen | not seen since | nights |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|");
    for a in &m.absent {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} |",
            md_cell_code(&a.signature),
            md_cell_code(&a.backend),
            md_cell_code(&a.history.first_seen),
            md_cell_code(&a.history.last_seen),
            a.history.nights
        );
    }
}

/// The table of `findings`, with the known line's column when `known`, and the notes of each
/// below it.
fn findings_table(o: &mut String, findings: &[&MergedFinding], known: bool) {
    let (head, rule) = if known {
        ("| finding | known as ", "|---|---")
    } else {
        ("| finding ", "|---")
    };
    let _ = writeln!(
        o,
        "{head}| backend | hits | smallest reduced case | seen on | message |"
    );
    let _ = writeln!(o, "{rule}|---|---|---|---|---|");
    for f in findings {
        let known_as = match (&f.known, known) {
            (Some(k), true) => format!(" {} |", md_cell_code(&format!("{},{k}", f.backend))),
            _ => String::new(),
        };
        let case = match &f.case {
            Some(c) => {
                let from = if c.signature == f.signature {
                    String::new()
                } else {
                    format!(" as {}", md_cell_code(&c.signature))
                };
                format!(
                    "[`{}`]({}): {} bytes of program, from {}{from}",
                    c.path,
                    c.path,
                    c.program_bytes,
                    md_cell_code(&c.dir)
                )
            }
            None => "none readable".into(),
        };
        let seen: Vec<String> = f
            .seen
            .iter()
            .map(|s| {
                let sig = if s.signature == f.signature {
                    String::new()
                } else {
                    format!(" as {}", md_cell_code(&s.signature))
                };
                format!(
                    "{} (seed {}): {}{sig}, first at iteration {}",
                    md_cell_code(&s.dir),
                    s.seed,
                    s.hits,
                    s.first_iteration
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "| {} |{known_as} {} | {} | {case} | {} | {} |",
            md_cell_code(&f.signature),
            md_text(&f.backend),
            f.hits,
            seen.join("; "),
            md_text(&first_line(&f.message))
        );
    }
    let notes: Vec<String> = findings
        .iter()
        .flat_map(|f| {
            f.notes
                .iter()
                .map(|n| format!("- {}: {}", md_cell_code(&f.signature), md_text(n)))
        })
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(o);
        for n in notes {
            let _ = writeln!(o, "{n}");
        }
    }
}

/// The table of campaigns, and what each did not run.
fn campaigns(o: &mut String, nodes: &[Node]) {
    let _ = writeln!(o, "\n## Campaigns\n");
    let _ = writeln!(
        o,
        "| directory | seed | languages | mode | iterations | programs | time | divergences | distinct | known hits | ended |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|");
    for n in nodes {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | 0..{} | {} | {} | {} | {} | {} | {} |",
            md_cell_code(&n.dir),
            n.seed,
            md_text(&n.lang),
            mode(n),
            n.iterations,
            n.programs,
            clock(n.seconds),
            n.divergences,
            n.distinct,
            n.known_hits,
            if n.unfinished.is_some() {
                "**no**"
            } else {
                "yes"
            }
        );
    }
    let mut lines = Vec::new();
    for n in nodes {
        for (backend, count) in &n.unsupported {
            lines.push(format!(
                "- {}: {} did not run {count} programs (it lacks what they need)",
                md_cell_code(&n.dir),
                md_text(backend)
            ));
        }
        if n.generator_errors > 0 {
            lines.push(format!(
                "- {}: {} generated cases were rejected by the loader (fuzzer bugs): {}",
                md_cell_code(&n.dir),
                n.generator_errors,
                md_text(&first_line(
                    n.first_generator_error.as_deref().unwrap_or("")
                ))
            ));
        }
    }
    if !lines.is_empty() {
        let _ = writeln!(o);
        for l in lines {
            let _ = writeln!(o, "{l}");
        }
    }
}

fn mode(n: &Node) -> &'static str {
    match n.mode {
        crate::generators::Mode::Default => "default",
        crate::generators::Mode::LoopCaps => "loop-caps",
    }
}

/// The first line of `s`, cut at [`MAX_MESSAGE`] characters.
fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > MAX_MESSAGE {
        let mut cut: String = line.chars().take(MAX_MESSAGE).collect();
        cut.push('…');
        cut
    } else {
        line.to_string()
    }
}

/// `seconds` as `1h 2m 5s`, `1m 30s` or `12s`.
fn clock(seconds: f64) -> String {
    // A sum of checked durations: finite and not negative, and far below u64's range.
    let whole = if seconds.is_finite() && seconds > 0.0 {
        seconds.round() as u64
    } else {
        0
    };
    match (whole / 3600, whole / 60 % 60, whole % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s}s"),
        (h, m, s) => format!("{h}h {m}m {s}s"),
    }
}
