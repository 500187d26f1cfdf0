//! `conform compare`'s Markdown: the verdict, the runs (directory, start, each backend's
//! build), the counts of each comparison, then per comparison the regressions, fixes,
//! changes, new and missing results as `case | backend | before | after | message` tables.
//! Everything taken from runs (names, directories, messages) is escaped
//! (`conform_io::escape`), as in `summary.md`.

use super::{Comparison, Diff, Kind, Row, Run};
use conform_io::escape::{md_cell_code, md_text};
use std::fmt::Write;

/// The comparison as Markdown.
pub fn render(cmp: &Comparison) -> String {
    let mut o = String::new();
    let d = cmp.overall();
    let (first, last) = (&cmp.runs[d.before].label, &cmp.runs[d.after].label);
    let regressions = d.count(Kind::Regression);
    let verdict = if regressions > 0 {
        format!("❌ {regressions} regression(s) from {first} to {last}")
    } else {
        format!("✅ no regressions from {first} to {last}")
    };
    let _ = writeln!(o, "## conform compare: {verdict}\n");
    runs(&mut o, &cmp.runs);
    counts(&mut o, cmp);
    for d in &cmp.diffs {
        details(&mut o, &cmp.title(d), d);
    }
    o
}

fn runs(o: &mut String, runs: &[Run]) {
    o.push_str("| run | directory | started | backends |\n|---|---|---|---|\n");
    for r in runs {
        let backends: Vec<String> = r
            .backends
            .iter()
            .map(|(name, about)| match about {
                Some(a) => format!("{}: {}", md_cell_code(name), md_text(a)),
                None => md_cell_code(name),
            })
            .collect();
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} |",
            r.label,
            md_cell_code(&r.dir.display().to_string()),
            r.started.as_deref().map_or("unknown".into(), md_text),
            backends.join("<br>")
        );
    }
    o.push('\n');
}

fn counts(o: &mut String, cmp: &Comparison) {
    o.push_str("| runs |");
    for k in Kind::ALL {
        let _ = write!(o, " {} |", k.plural());
    }
    o.push_str("\n|---|");
    for _ in Kind::ALL {
        o.push_str("--:|");
    }
    o.push('\n');
    for d in &cmp.diffs {
        let _ = write!(o, "| {} |", cmp.title(d));
        for k in Kind::ALL {
            match d.count(k) {
                n if n > 0 && k == Kind::Regression => {
                    let _ = write!(o, " **{n}** |");
                }
                n => {
                    let _ = write!(o, " {n} |");
                }
            }
        }
        o.push('\n');
    }
}

fn details(o: &mut String, title: &str, d: &Diff) {
    let _ = writeln!(o, "\n### {title}");
    for l in d.unshared_backends() {
        let _ = writeln!(o, "\n{}.", md_text(&l));
    }
    if d.rows.is_empty() {
        let _ = writeln!(o, "\nNo status changed ({} unchanged).", d.unchanged);
        return;
    }
    for k in Kind::ALL {
        let n = d.count(k);
        if k == Kind::Unchanged || n == 0 {
            continue;
        }
        let _ = writeln!(
            o,
            "\n#### {}: {n}\n\n| case | backend | before | after | message |\n|---|---|---|---|---|",
            k.heading()
        );
        for r in d.rows_of(k) {
            row(o, r);
        }
    }
}

fn row(o: &mut String, r: &Row) {
    let status = |s: &Option<super::Seen>| s.as_ref().map_or("—", |s| s.status.name());
    let messages: Vec<String> = r
        .messages()
        .into_iter()
        .map(|(label, m)| match label {
            Some(l) => format!("{l}: {}", md_text(&m)),
            None => md_text(&m),
        })
        .collect();
    let _ = writeln!(
        o,
        "| {} | {} | {} | {} | {} |",
        md_cell_code(&r.case),
        md_cell_code(&r.backend),
        status(&r.before),
        status(&r.after),
        messages.join("<br>")
    );
}
