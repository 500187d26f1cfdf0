//! `conform compare --format html`: the Markdown's content as one self-contained page (inline
//! CSS, no script, no network), in the look of `report.html`: a `maud` template in its page
//! frame, every string from the runs through its [`Text`](crate::html::Text) filter.

use super::{Comparison, Diff, Kind, Row, Seen};
use crate::html::{heading_row, page, Text};
use maud::{html, Markup};

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
    let d = cmp.overall();
    let label = |i: usize| cmp.runs.get(i).map_or("", |r| r.label.as_str());
    let (first, last) = (label(d.before), label(d.after));
    let regressions = d.count(Kind::Regression);
    let verdict = if regressions > 0 {
        format!("{regressions} regression(s) from {first} to {last}")
    } else {
        format!("no regressions from {first} to {last}")
    };
    page(
        &format!("conform compare: {verdict}"),
        CSS,
        html! {
            header { h1 { "conform compare" } div.verdict { (Text(&verdict)) } } "\n"
            main {
                "\n"
                (runs(cmp))
                (counts(cmp))
                @for d in &cmp.diffs { (details(&cmp.title(d), d)) }
            } "\n"
        },
    )
}

/// The runs compared: label, directory, start, and each backend with its build.
fn runs(cmp: &Comparison) -> Markup {
    html! {
        h2 { "Runs" } "\n"
        table.runs {
            thead { (heading_row(&["run", "directory", "started", "backends"])) } "\n"
            tbody {
                "\n"
                @for r in &cmp.runs {
                    tr {
                        th { (Text(&r.label)) }
                        td { code { (Text(&r.dir.display().to_string())) } }
                        td { (Text(r.started.as_deref().unwrap_or("unknown"))) }
                        td {
                            @for (k, (name, about)) in r.backends.iter().enumerate() {
                                @if k > 0 { br; }
                                code { (Text(name)) }
                                @if let Some(a) = about { ": " (Text(a)) }
                            }
                        }
                    } "\n"
                }
            }
        } "\n"
    }
}

/// A row per diff with its count of each kind, regressions marked hot.
fn counts(cmp: &Comparison) -> Markup {
    html! {
        h2 { "Counts" } "\n"
        table.counts {
            thead { tr { th { "runs" } @for k in Kind::ALL { th { (k.plural()) } } } } "\n"
            tbody {
                "\n"
                @for d in &cmp.diffs {
                    tr {
                        th { (Text(&cmp.title(d))) }
                        @for k in Kind::ALL {
                            @let n = d.count(k);
                            td.n.hot[n > 0 && k == Kind::Regression] { (n) }
                        }
                    } "\n"
                }
            }
        } "\n"
    }
}

/// One diff, titled `title`: the backends only one run has, then a table per kind of change.
fn details(title: &str, d: &Diff) -> Markup {
    html! {
        section {
            "\n"
            h2 { (Text(title)) } "\n"
            @for l in d.unshared_backends() { p { (Text(&l)) "." } "\n" }
            @if d.rows.is_empty() {
                p { "No status changed (" (d.unchanged) " unchanged)." } "\n"
            } @else {
                @for k in Kind::ALL {
                    @let n = d.count(k);
                    @if k != Kind::Unchanged && n > 0 {
                        h3 class={ "k-" (k.name()) } { (k.heading()) ": " (n) } "\n"
                        table.rows {
                            thead {
                                (heading_row(&["case", "backend", "before", "after", "message"]))
                            } "\n"
                            tbody {
                                "\n"
                                @for r in d.rows_of(k) { (row(r)) }
                            }
                        } "\n"
                    }
                }
            }
        } "\n"
    }
}

/// A status as one run saw it, coloured; `—` where the run has no result.
fn status(s: &Option<Seen>) -> Markup {
    html! {
        @match s {
            Some(Seen { status, .. }) => span class={ "s-" (status.name()) } { (status.name()) },
            None => "—",
        }
    }
}

/// One changed (case, backend): its status before and after, and the messages.
fn row(r: &Row) -> Markup {
    html! {
        tr {
            td { code { (Text(&r.case)) } }
            td { code { (Text(&r.backend)) } }
            td { (status(&r.before)) }
            td { (status(&r.after)) }
            td {
                @for (k, (label, m)) in r.messages().into_iter().enumerate() {
                    @if k > 0 { br; }
                    @if let Some(l) = label { span.label { (l) ":" } " " }
                    (Text(&m))
                }
            }
        } "\n"
    }
}
