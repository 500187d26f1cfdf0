//! `conform compare --format html`: the Markdown's content as one self-contained page (inline
//! CSS, no script, no network), in the look of `report.html`, escaped with its
//! [`escape`](crate::html::escape).

use super::{Comparison, Diff, Kind, Row, Seen};
use crate::html::{escape, BASE_CSS};
use std::fmt::Write;

const CSS: &str = r#"
:root{--reg:#c62828;--fix:#2e7d32;--change:#ef6c00;--new:#1565c0;--missing:#546e7a}
h3{font-size:15px;margin:16px 0 4px;border-left:6px solid #999;padding-left:8px}
th{background:#eceff1}
td.n{text-align:right}
td.n.hot{color:var(--reg);font-weight:700}
code{font:12px ui-monospace,Menlo,Consolas,monospace}
.s-pass{color:var(--fix)}.s-fail,.s-crash,.s-timeout,.s-invalid{color:var(--reg);font-weight:600}
.s-skip{color:#757575}.s-flagged{color:#6a1b9a}
h3.k-regression{border-left-color:var(--reg)}h3.k-fix{border-left-color:var(--fix)}
h3.k-change{border-left-color:var(--change)}h3.k-new{border-left-color:var(--new)}
h3.k-missing{border-left-color:var(--missing)}
.label{color:#555;font-style:italic}
"#;

/// The comparison as an HTML page.
pub fn render(cmp: &Comparison) -> String {
    let mut o = String::new();
    let d = cmp.overall();
    let (first, last) = (&cmp.runs[d.before].label, &cmp.runs[d.after].label);
    let regressions = d.count(Kind::Regression);
    let verdict = if regressions > 0 {
        format!("{regressions} regression(s) from {first} to {last}")
    } else {
        format!("no regressions from {first} to {last}")
    };
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>conform compare: {}</title>\n<style>{BASE_CSS}{CSS}</style>\n</head>\n<body>\n<header><h1>conform compare</h1><div class=\"verdict\">{}</div></header>\n<main>\n",
        escape(&verdict),
        escape(&verdict)
    );
    runs(&mut o, cmp);
    counts(&mut o, cmp);
    for d in &cmp.diffs {
        details(&mut o, &cmp.title(d), d);
    }
    o.push_str("</main>\n</body>\n</html>\n");
    o
}

fn runs(o: &mut String, cmp: &Comparison) {
    o.push_str("<h2>Runs</h2>\n<table class=\"runs\"><thead><tr><th>run</th><th>directory</th><th>started</th><th>backends</th></tr></thead>\n<tbody>\n");
    for r in &cmp.runs {
        let backends: Vec<String> = r
            .backends
            .iter()
            .map(|(name, about)| match about {
                Some(a) => format!("<code>{}</code>: {}", escape(name), escape(a)),
                None => format!("<code>{}</code>", escape(name)),
            })
            .collect();
        let _ = writeln!(
            o,
            "<tr><th>{}</th><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            escape(&r.label),
            escape(&r.dir.display().to_string()),
            escape(r.started.as_deref().unwrap_or("unknown")),
            backends.join("<br>")
        );
    }
    o.push_str("</tbody></table>\n");
}

fn counts(o: &mut String, cmp: &Comparison) {
    o.push_str("<h2>Counts</h2>\n<table class=\"counts\"><thead><tr><th>runs</th>");
    for k in Kind::ALL {
        let _ = write!(o, "<th>{}</th>", k.plural());
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for d in &cmp.diffs {
        let _ = write!(o, "<tr><th>{}</th>", escape(&cmp.title(d)));
        for k in Kind::ALL {
            let n = d.count(k);
            let hot = if n > 0 && k == Kind::Regression {
                " hot"
            } else {
                ""
            };
            let _ = write!(o, "<td class=\"n{hot}\">{n}</td>");
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody></table>\n");
}

fn details(o: &mut String, title: &str, d: &Diff) {
    let _ = writeln!(o, "<section>\n<h2>{}</h2>", escape(title));
    for l in d.unshared_backends() {
        let _ = writeln!(o, "<p>{}.</p>", escape(&l));
    }
    if d.rows.is_empty() {
        let _ = writeln!(
            o,
            "<p>No status changed ({} unchanged).</p>\n</section>",
            d.unchanged
        );
        return;
    }
    for k in Kind::ALL {
        let n = d.count(k);
        if k == Kind::Unchanged || n == 0 {
            continue;
        }
        let _ = writeln!(
            o,
            "<h3 class=\"k-{}\">{}: {n}</h3>\n<table class=\"rows\"><thead><tr><th>case</th><th>backend</th><th>before</th><th>after</th><th>message</th></tr></thead>\n<tbody>",
            k.name(),
            escape(k.heading())
        );
        for r in d.rows_of(k) {
            row(o, r);
        }
        o.push_str("</tbody></table>\n");
    }
    o.push_str("</section>\n");
}

fn status(s: &Option<Seen>) -> String {
    match s {
        Some(Seen { status, .. }) => format!(
            "<span class=\"s-{}\">{}</span>",
            status.name(),
            status.name()
        ),
        None => "—".to_string(),
    }
}

fn row(o: &mut String, r: &Row) {
    let messages: Vec<String> = r
        .messages()
        .into_iter()
        .map(|(label, m)| match label {
            Some(l) => format!("<span class=\"label\">{l}:</span> {}", escape(&m)),
            None => escape(&m),
        })
        .collect();
    let _ = writeln!(
        o,
        "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
        escape(&r.case),
        escape(&r.backend),
        status(&r.before),
        status(&r.after),
        messages.join("<br>")
    );
}
