//! `summary.md`: short enough for a merge-request comment. Counts per backend and class, then
//! the regressions with their repro commands, then flakes and unexpected improvements, each list
//! capped. Everything taken from results (names, messages, commands) is escaped
//! (`conform_io::escape`): the note is posted where a line could be a quick action.

use conform_gate::gate::{Class, Gated};
use conform_io::escape::{md_cell_code, md_code, md_text};
use conform_judge::identity::BackendIdentity;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Most regressions listed; the rest are counted.
pub const MAX_REGRESSIONS: usize = 25;
/// Most flakes and unexpected improvements listed, each.
pub const MAX_OTHERS: usize = 10;
/// Messages are cut to this many characters.
const MAX_MESSAGE: usize = 160;

fn cut(s: &str) -> String {
    first_line_cut(s, MAX_MESSAGE)
}

/// The first line of a message, cut to `max` characters (with `…` when cut): how the reports
/// (and `conform compare`) show a message in one table cell.
pub(crate) fn first_line_cut(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Which build each backend was, as a Markdown table (`summary.md`, `differential.md`);
/// nothing when the run has no identities.
pub fn drivers(identities: &BTreeMap<String, BackendIdentity>) -> String {
    if identities.is_empty() {
        return String::new();
    }
    let mut o = String::from("| backend | renderer | version | install |\n|---|---|---|---|\n");
    for (name, id) in identities {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} |",
            md_text(name),
            md_text(&id.renderer),
            md_text(&id.version),
            id.install
                .as_deref()
                .map_or("system".to_string(), md_cell_code)
        );
    }
    o.push('\n');
    o
}

pub fn summary(gated: &Gated, run_name: &str) -> String {
    let mut o = String::new();
    let n = |c| gated.count(c);
    let verdict = match gated.exit_code() {
        conform_gate::gate::EXIT_REGRESSION => "❌ blocked",
        conform_gate::gate::EXIT_INCOMPLETE => "⛔ incomplete (not passed)",
        conform_gate::gate::EXIT_INVALID => "⚠️ invalid cases",
        _ => "✅ passed",
    };
    let _ = writeln!(
        o,
        "### conform {}: {verdict}\n\n{} regression(s), {} unexpected improvement(s), {} flake(s), {} known flake(s), {} expected failure(s), {} pass(es), {} skip(s), {} invalid\n",
        md_text(run_name),
        n(Class::Regression),
        n(Class::UnexpectedImprovement),
        n(Class::Flake),
        n(Class::KnownFlake),
        n(Class::ExpectedFail),
        n(Class::Pass),
        n(Class::Skip),
        n(Class::Invalid),
    );
    o.push_str(&drivers(&gated.identities));
    if !gated.gaps.is_empty() {
        o.push_str("**Not passed: the run is incomplete.**\n\n");
        for g in &gated.gaps {
            let _ = writeln!(o, "- {}", md_code(g));
        }
        o.push('\n');
    }
    o.push_str("| backend |");
    for c in Class::ALL {
        let _ = write!(o, " {} |", c.name());
    }
    o.push_str("\n|---|");
    for _ in Class::ALL {
        o.push_str("--:|");
    }
    o.push('\n');
    for (backend, counts) in gated.tally() {
        let _ = write!(o, "| {} |", md_text(&backend));
        for c in Class::ALL {
            match counts.get(&c) {
                Some(k) if c.blocks(gated.strict) => {
                    let _ = write!(o, " **{k}** |");
                }
                Some(k) => {
                    let _ = write!(o, " {k} |");
                }
                None => o.push_str(" 0 |"),
            }
        }
        o.push('\n');
    }
    let sections: [(Class, &str, usize); 4] = [
        (Class::Regression, "Regressions", MAX_REGRESSIONS),
        (Class::Invalid, "Invalid cases", MAX_OTHERS),
        (
            Class::UnexpectedImprovement,
            "Unexpected improvements (update the baseline)",
            MAX_OTHERS,
        ),
        (
            Class::Flake,
            "Flakes (failed, then passed on a retry)",
            MAX_OTHERS,
        ),
    ];
    for (class, title, cap) in sections {
        let items: Vec<_> = gated.iter().filter(|(_, c, _)| *c == class).collect();
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(o, "\n#### {title}: {}\n", items.len());
        for (r, _, why) in items.iter().take(cap) {
            let mut line = format!("- {} on **{}**", md_code(&r.case), md_text(&r.backend));
            if class != Class::UnexpectedImprovement && class != Class::Flake {
                let _ = write!(
                    line,
                    ": {} — {}",
                    r.status.name(),
                    md_code(&cut(&r.message))
                );
            }
            if !why.is_empty() {
                let _ = write!(line, " ({})", md_text(&cut(why)));
            }
            let _ = writeln!(o, "{line}");
            if class == Class::Regression || class == Class::Invalid {
                let _ = writeln!(o, "  {}", md_code(&r.repro));
            }
        }
        if items.len() > cap {
            let _ = writeln!(
                o,
                "- … and {} more (see report.html or results.jsonl)",
                items.len() - cap
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_gate::gate::{Baseline, Gate};
    use conform_judge::results::Status;
    use conform_judge::testing::result;
    use std::path::Path;

    #[test]
    fn lists_regressions_with_repro_and_caps_them() {
        let gate = Gate {
            baseline: Baseline::parse(Path::new("b.txt"), "llvmpipe,x/known,fail\n").unwrap(),
            ..Gate::default()
        };
        let mut results = vec![result("x/known", "llvmpipe", Status::Fail)];
        for i in 0..30 {
            results.push(result(&format!("x/r{i:02}"), "zink", Status::Fail));
        }
        let md = summary(&gate.apply(results), "run-1");
        assert!(md.starts_with("### conform run-1: ❌ blocked\n\n30 regression(s), 0 unexpected improvement(s), 0 flake(s), 0 known flake(s), 1 expected failure(s)"), "{md}");
        assert!(
            md.contains("| llvmpipe | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 0 |\n"),
            "{md}"
        );
        assert!(md.contains("| zink | **30** | 0 |"), "{md}");
        assert!(md.contains("#### Regressions: 30\n\n- `x/r00` on **zink**: fail — `fail happened`\n  `conform run cases/x/r00.yaml --backend zink`\n"), "{md}");
        assert!(md.contains("- `x/r24` on **zink**"));
        assert!(!md.contains("x/r25"), "{md}");
        assert!(md.contains("- … and 5 more"));
        assert!(md.len() < 6000, "{}", md.len());
        let clean = summary(
            &Gate::default().apply(vec![result("x/a", "zink", Status::Pass)]),
            "r",
        );
        assert!(clean.starts_with("### conform r: ✅ passed"), "{clean}");
        assert!(!clean.contains("####"));
    }

    #[test]
    fn hostile_names_messages_and_backends_cannot_act_or_mention() {
        let mut r = result("x/a\n/merge\n@all `evil`", "zink\n/approve", Status::Fail);
        r.message = "boom\r/close @here <img src=x onerror=alert(1)>".into();
        r.repro = "conform run\n/unapprove".into();
        let md = summary(&Gate::default().apply(vec![r]), "run\n/merge");
        for line in md.lines() {
            let t = line.trim_start();
            assert!(
                !t.starts_with('/') && !t.starts_with('@'),
                "{line:?} in\n{md}"
            );
        }
        assert!(
            !md.contains("@all") || md.contains("`` x/a\\n/merge\\n@all `evil` ``"),
            "{md}"
        );
        assert!(
            !md.contains("@here") || md.contains("`boom\\r/close @here"),
            "{md}"
        );
        // HTML only inside the code span, where it is text.
        assert_eq!(md.matches("<img").count(), 1, "{md}");
        assert!(
            md.contains("`boom\\r/close @here <img src=x onerror=alert(1)>`"),
            "{md}"
        );
    }
}
