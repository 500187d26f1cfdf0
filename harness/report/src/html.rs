//! `report.html`: one self-contained page per run (inline CSS and a few lines of inline JS; no
//! network, no external assets). First a matrix of extensions (a case's top folder) by
//! backend with counts per class, then every result that is not a plain pass or skip: the
//! message, the repro command, the program source, the steps, the checked buffers' expected
//! and actual elements side by side in the declared type, and a heat map of which elements
//! differ.
//!
//! The pages (this one and `conform compare --format html`, `compare/html.rs`) are `maud`
//! templates: HTML checked when conform compiles, no template files read at run time, and
//! every splice escaped by default. conform's own escaping rules are the [`Text`] filter:
//! every string a page takes from a result, a name, a message, a log or a driver goes
//! through it, so control and bidi characters are shown as visible escapes, which maud's
//! escaping alone does not do. The `"\n"` literals in the templates keep a row, an article
//! or a section per line of the output, so two pages diff and grep line by line.

use conform_gate::gate::{Class, Gated};
use conform_judge::results::{BufferDump, CaseResult, Evidence};
use maud::{html, Markup, PreEscaped, Render, DOCTYPE};
use std::collections::{BTreeMap, BTreeSet};

/// Most results shown in full; further ones are listed in one table.
pub const MAX_DETAILED: usize = 200;
/// Buffers up to this many elements are tabulated in full; larger ones around differences.
const FULL_TABLE: usize = 16;
/// Rows of context around each differing element in a large buffer's table.
const CONTEXT: u64 = 2;
/// Most buffer elements drawn on one page (heat map cells plus table rows), so a run with
/// thousands of failures still gives a page a browser opens quickly.
pub const PAGE_ELEMENT_BUDGET: usize = 100_000;

/// `s` as HTML text or an attribute value: control characters but line feeds and tabs, bidi
/// controls, line and paragraph separators and what XML forbids shown as visible escapes
/// (`conform_io::escape::text`: a bidi override must not make the page show what is not
/// there), then markup escaped. Every string a page takes from a result goes through here
/// (in a template, as [`Text`]).
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    escape_into(s, &mut o);
    o
}

/// [`escape`], appended to `o`.
fn escape_into(s: &str, o: &mut String) {
    for c in conform_io::escape::text(s).chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
}

/// A string spliced into a page through conform's escaping ([`escape`]): `(Text(&r.case))`.
///
/// The rule of both HTML pages: every string that is not a literal of ours (a result's
/// case, backend, message, log, evidence; a run's name or directory; a driver's identity;
/// anything a file or a driver gave) is spliced as `(Text(..))`, never as a bare `(s)`.
/// maud escapes a bare splice too, but only `& < > "`: a U+202E in a case name would reach
/// the page raw and make it show what is not there. Numbers and fixed names of ours (a
/// class, a status, a kind) may be spliced as they are. The tests
/// `every_string_field_goes_through_the_text_filter` (here and in `compare/tests.rs`) put a
/// bidi override in every field and fail when one splice bypasses the filter.
pub(crate) struct Text<'a>(pub &'a str);

impl Render for Text<'_> {
    fn render_to(&self, buffer: &mut String) {
        escape_into(self.0, buffer);
    }
}

/// The page frame both HTML pages share: doctype, head with `title` (through [`Text`]),
/// [`BASE_CSS`] then `css` inline, and `body`.
pub(crate) fn page(title: &str, css: &str, body: Markup) -> String {
    let page = html! {
        (DOCTYPE) "\n"
        html lang="en" {
            "\n"
            head {
                "\n"
                meta charset="utf-8"; "\n"
                meta name="viewport" content="width=device-width, initial-scale=1"; "\n"
                title { (Text(title)) } "\n"
                style { (PreEscaped(BASE_CSS)) (PreEscaped(css)) } "\n"
            } "\n"
            body { "\n" (body) } "\n"
        } "\n"
    };
    page.into_string()
}

/// The styles both HTML pages share (`report.html`, `conform compare --format html`).
const BASE_CSS: &str = r#"
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#263238;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px}
header .verdict{font-size:16px;margin-top:4px}
main{padding:8px 24px 40px}
h2{font-size:17px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:24px}
table{border-collapse:collapse;background:#fff}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
"#;

const CSS: &str = r#"
:root{--reg:#c62828;--up:#6a1b9a;--flake:#ef6c00;--kflake:#f9a825;--xfail:#546e7a;--pass:#2e7d32;--skip:#9e9e9e;--inv:#ad1457}
.matrix th{background:#eceff1}
.pill{display:inline-block;border-radius:9px;padding:0 7px;margin:1px 2px;color:#fff;font-size:12px;white-space:nowrap}
.c-regression{background:var(--reg)}.c-unexpected-improvement{background:var(--up)}.c-flake{background:var(--flake)}
.c-known-flake{background:var(--kflake);color:#222}.c-expected-fail{background:var(--xfail)}.c-pass{background:var(--pass)}
.c-skip{background:var(--skip)}.c-invalid{background:var(--inv)}
.filters label{margin-right:12px;white-space:nowrap}
article{background:#fff;border:1px solid #ddd;border-left:6px solid #999;border-radius:4px;margin:14px 0;padding:10px 14px}
article.regression{border-left-color:var(--reg)}article.flake{border-left-color:var(--flake)}
article.known-flake{border-left-color:var(--kflake)}article.expected-fail{border-left-color:var(--xfail)}
article.unexpected-improvement{border-left-color:var(--up)}article.invalid{border-left-color:var(--inv)}
article h3{margin:0 0 4px;font-size:15px}
.msg{font-weight:600;margin:4px 0}
.why{color:#555;margin:2px 0}
.repro{background:#263238;color:#e0f2f1;padding:6px 10px;border-radius:4px;font:13px ui-monospace,Menlo,Consolas,monospace;display:flex;gap:10px;align-items:center}
.repro code{flex:1;overflow-x:auto;white-space:pre}
.repro button{font-size:12px}
pre{background:#f5f5f5;padding:8px;overflow-x:auto;margin:4px 0;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
pre .ln{color:#999;user-select:none}
summary{cursor:pointer;font-weight:600;margin:6px 0}
.buf{margin:8px 0 14px}
.buf h4{margin:6px 0 2px;font-size:14px}
.buf .check{color:#555;font-size:12px}
.heat{display:flex;flex-wrap:wrap;gap:1px;max-width:820px;margin:6px 0}
.heat span{width:10px;height:10px;display:block}
.heat .ok{background:#81c784}.heat .bad{background:#e53935}.heat .un{background:#e0e0e0}
.side td,.side th{font:12px ui-monospace,Menlo,Consolas,monospace;padding:1px 8px}
.side tr.bad td{background:#ffebee}.side tr.bad td.act{color:#b71c1c;font-weight:700}
.side tr.gap td{color:#888;font-style:italic;background:#fafafa}
.side td.un{color:#999}
.legend span{margin-right:10px}
"#;

const JS: &str = r#"
(function(){
  var boxes=document.querySelectorAll('.filters input');
  function apply(){
    var on={};
    for(var i=0;i<boxes.length;i++){on[boxes[i].value]=boxes[i].checked;}
    var arts=document.querySelectorAll('article[data-class]');
    for(var j=0;j<arts.length;j++){arts[j].style.display=on[arts[j].getAttribute('data-class')]===false?'none':'';}
  }
  for(var i=0;i<boxes.length;i++){boxes[i].addEventListener('change',apply);}
  var buttons=document.querySelectorAll('button[data-copy]');
  for(var k=0;k<buttons.length;k++){
    buttons[k].addEventListener('click',function(ev){
      var code=ev.target.parentNode.querySelector('code');
      var range=document.createRange();range.selectNodeContents(code);
      var sel=window.getSelection();sel.removeAllRanges();sel.addRange(range);
      try{document.execCommand('copy');ev.target.textContent='copied';}catch(e){ev.target.textContent='selected';}
    });
  }
})();
"#;

/// The order results are shown in: what blocks first.
fn rank(c: Class) -> usize {
    match c {
        Class::Regression => 0,
        Class::Invalid => 1,
        Class::UnexpectedImprovement => 2,
        Class::KnownFlake => 3,
        Class::Flake => 4,
        Class::ExpectedFail => 5,
        Class::Pass => 6,
        Class::Skip => 7,
    }
}

/// A class's coloured pill: `3 regression` with a count, `regression` without.
fn pill(c: Class, count: Option<usize>) -> Markup {
    html! {
        span class={ "pill c-" (c.name()) } title=(c.name()) {
            @if let Some(n) = count { (n) " " }
            (c.name())
        }
    }
}

/// A table's heading row: a `th` per fixed column name.
pub(crate) fn heading_row(names: &[&'static str]) -> Markup {
    html! { tr { @for n in names { th { (n) } } } }
}

/// `"s"` unless `n` is 1: `element` or `elements`.
fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `report.html` of a gated run named `run_name`.
pub fn render(gated: &Gated, run_name: &str) -> String {
    page(
        &format!("conform {run_name}"),
        CSS,
        html! {
            (header(gated, run_name)) "\n"
            main {
                "\n"
                (drivers(gated))
                (matrix(gated))
                (failures(gated))
            } "\n"
            script { (PreEscaped(JS)) } "\n"
        },
    )
}

/// The header: the run's name, the verdict with a pill per class present, and why the run is
/// incomplete.
fn header(gated: &Gated, run_name: &str) -> Markup {
    let verdict = match gated.exit_code() {
        conform_gate::gate::EXIT_REGRESSION => "blocked: regressions found",
        conform_gate::gate::EXIT_INCOMPLETE => "not passed: the run is incomplete",
        conform_gate::gate::EXIT_INVALID => "invalid cases",
        _ => "passed",
    };
    html! {
        header {
            h1 { "conform report: " (Text(run_name)) }
            div.verdict #verdict {
                (verdict) " — "
                @for c in Class::ALL {
                    @let n = gated.count(c);
                    @if n > 0 { (pill(c, Some(n))) }
                }
            }
            @if !gated.gaps.is_empty() {
                ul.gaps {
                    @for g in &gated.gaps { li { (Text(g)) } }
                }
            }
        }
    }
}

/// Which build each backend was: renderer, version, install, and the driver libraries the
/// worker loaded (folded). Nothing for a run without identities.
fn drivers(gated: &Gated) -> Markup {
    if gated.identities.is_empty() {
        return html! {};
    }
    html! {
        section #drivers {
            h2 { "Backends" } "\n"
            table.drivers {
                thead {
                    (heading_row(&["backend", "renderer", "version", "install", "libraries"]))
                } "\n"
                tbody {
                    "\n"
                    @for (name, id) in &gated.identities {
                        tr {
                            th { (Text(name)) }
                            td { (Text(&id.renderer)) }
                            td { (Text(&id.version)) }
                            td { (Text(id.install.as_deref().unwrap_or("system"))) }
                            td {
                                @if !id.libraries.is_empty() {
                                    details {
                                        summary { (id.libraries.len()) " loaded" }
                                        code {
                                            @for (k, l) in id.libraries.iter().enumerate() {
                                                @if k > 0 { br; }
                                                (Text(l))
                                            }
                                        }
                                    }
                                }
                            }
                        } "\n"
                    }
                }
            }
        } "\n"
    }
}

/// The matrix of extensions (rows) by backend (columns), a pill per class in each cell, and
/// the legend of the classes.
fn matrix(gated: &Gated) -> Markup {
    let backends: BTreeSet<&str> = gated.results.iter().map(|r| r.backend.as_str()).collect();
    let mut cells: BTreeMap<&str, BTreeMap<&str, BTreeMap<Class, usize>>> = BTreeMap::new();
    for (r, c, _) in gated.iter() {
        *cells
            .entry(r.extension())
            .or_default()
            .entry(r.backend.as_str())
            .or_default()
            .entry(c)
            .or_default() += 1;
    }
    let legend = [
        (Class::Regression, "fails, not in the baseline (blocks)"),
        (
            Class::UnexpectedImprovement,
            "did better than the baseline: passed, skipped, or failed where a crash was listed",
        ),
        (Class::Flake, "failed, passed on a retry"),
        (Class::KnownFlake, "in the flakes list"),
        (Class::ExpectedFail, "fails as the baseline says"),
    ];
    html! {
        section #matrix {
            h2 { "Extensions by backend" } "\n"
            table.matrix {
                thead {
                    tr {
                        th { "extension" }
                        @for b in &backends { th { (Text(b)) } }
                    }
                } "\n"
                tbody {
                    "\n"
                    @for (ext, row) in &cells {
                        tr {
                            th { (Text(ext)) }
                            @for b in &backends {
                                td {
                                    @if let Some(counts) = row.get(b) {
                                        @for c in Class::ALL {
                                            @if let Some(&n) = counts.get(&c) { (pill(c, Some(n))) }
                                        }
                                    }
                                }
                            }
                        } "\n"
                    }
                }
            } "\n"
            p.legend {
                @for (c, text) in legend { span { (pill(c, None)) " " (text) } }
            }
        } "\n"
    }
}

/// Every result that is not a plain pass or skip, what blocks first: a filter per class,
/// the first [`MAX_DETAILED`] in full ([`article`]), the rest in one table.
fn failures(gated: &Gated) -> Markup {
    let mut shown: Vec<(&CaseResult, Class, &str)> = gated
        .iter()
        .filter(|(_, c, _)| !matches!(c, Class::Pass | Class::Skip))
        .collect();
    shown.sort_by(|a, b| {
        (rank(a.1), &a.0.backend, &a.0.case).cmp(&(rank(b.1), &b.0.backend, &b.0.case))
    });
    let mut present: BTreeMap<Class, usize> = BTreeMap::new();
    for (_, c, _) in &shown {
        *present.entry(*c).or_default() += 1;
    }
    let mut budget = PAGE_ELEMENT_BUDGET;
    html! {
        section #failures {
            h2 { "Results to look at (" (shown.len()) ")" } "\n"
            @if shown.is_empty() {
                p { "Nothing failed." }
            } @else {
                p.filters {
                    "Show: "
                    @for (c, n) in &present {
                        label {
                            input type="checkbox" value=(c.name()) checked;
                            " " (pill(*c, Some(*n)))
                        }
                    }
                } "\n"
                @for (i, (r, class, why)) in shown.iter().enumerate().take(MAX_DETAILED) {
                    (article(i, r, *class, why, &mut budget))
                }
                @if shown.len() > MAX_DETAILED {
                    h3 { (shown.len() - MAX_DETAILED) " more, listed without details" } "\n"
                    table {
                        (heading_row(&["class", "case", "backend", "message", "repro"])) "\n"
                        @for (r, class, _) in shown.iter().skip(MAX_DETAILED) {
                            tr {
                                td { (class.name()) }
                                td { (Text(&r.case)) }
                                td { (Text(&r.backend)) }
                                td { (Text(&r.message)) }
                                td { code { (Text(&r.repro)) } }
                            } "\n"
                        }
                    } "\n"
                }
            }
        } "\n"
    }
}

/// One result in full: class, case and backend, message, why it has its class, spec
/// clauses, repro command, attempts, buffers (within `budget`), details, programs,
/// uniforms, steps and build log.
fn article(i: usize, r: &CaseResult, class: Class, why: &str, budget: &mut usize) -> Markup {
    html! {
        article class=(class.name()) data-class=(class.name()) id={ "r" (i) } {
            "\n"
            h3 {
                (pill(class, None)) " " (Text(&r.case)) " "
                small { "on " (Text(&r.backend)) }
            } "\n"
            p.msg {
                (r.status.name())
                @if !r.message.is_empty() { ": " (Text(&r.message)) }
            } "\n"
            @if !why.is_empty() { p.why { (Text(why)) } "\n" }
            @if !r.spec.is_empty() {
                p.why {
                    "spec: "
                    @for (k, s) in r.spec.iter().enumerate() {
                        @if k > 0 { ", " }
                        (Text(s))
                    }
                } "\n"
            }
            div.repro { code { (Text(&r.repro)) } button type="button" data-copy { "copy" } } "\n"
            @if !r.attempts.is_empty() {
                p.why {
                    "attempts: "
                    @for (k, a) in r.attempts.iter().enumerate() {
                        (k + 1) ". " (a.status.name()) " (" (a.duration_ms) " ms) "
                        (Text(&a.message)) "; "
                    }
                    (r.attempts.len() + 1) ". " (r.status.name()) " (" (r.duration_ms) " ms)"
                } "\n"
            }
            @if let Some(ev) = &r.evidence { (memory(ev, budget)) }
            @if !r.details.is_empty() {
                details {
                    summary {
                        "Details (" (r.details.len()) " line" (plural(r.details.len() as u64)) ")"
                    }
                    pre {
                        @for (k, l) in r.details.iter().enumerate() {
                            @if k > 0 { "\n" }
                            (Text(l))
                        }
                    }
                } "\n"
            }
            @if let Some(ev) = &r.evidence { (programs_and_steps(ev)) }
            @if !r.log.is_empty() {
                // On a failure the log (a compile error, most often) is what a reader came
                // for: shown open, not behind a click.
                details open[r.is_failure()] { summary { "Build log" } pre { (Text(&r.log)) } } "\n"
            }
        } "\n"
    }
}

/// A result's programs with line numbers, its uniforms and its steps, each open.
fn programs_and_steps(ev: &Evidence) -> Markup {
    html! {
        @for p in &ev.programs {
            details open {
                summary {
                    "Program (" (Text(&p.language)) ", " (Text(&p.origin)) ")"
                    @if p.truncated { ", truncated" }
                }
                pre.src {
                    @for (k, line) in p.text.lines().enumerate() {
                        span.ln { (format!("{:>4} ", (p.first_line as usize).saturating_add(k))) }
                        (Text(line)) "\n"
                    }
                }
            } "\n"
        }
        @if !ev.uniforms.is_empty() {
            details open {
                summary { "Uniforms" }
                ul.steps { @for u in &ev.uniforms { li { code { (Text(u)) } } } }
            } "\n"
        }
        @if !ev.steps.is_empty() {
            details open {
                summary { "Steps" }
                ol.steps { @for s in &ev.steps { li { (Text(s)) } } }
            } "\n"
        }
    }
}

/// A result's checked buffers ([`buffer`]) while the page's element budget lasts; a line
/// saying where the values are for each one past it.
fn memory(ev: &Evidence, budget: &mut usize) -> Markup {
    // A heat map cell and at most a table row per element.
    let drawn: Vec<bool> = ev
        .memory
        .iter()
        .map(|d| {
            let cost = 2 * d.actual.len();
            let fits = cost <= *budget;
            if fits {
                *budget -= cost;
            }
            fits
        })
        .collect();
    html! {
        @for (d, drawn) in ev.memory.iter().zip(drawn) {
            @if drawn {
                (buffer(d))
            } @else {
                p.why {
                    "buffer " code { (Text(&d.name)) } ": not drawn, this page already shows "
                    (PAGE_ELEMENT_BUDGET) " elements; its values are in results.jsonl ("
                    code { "evidence" } ")"
                } "\n"
            }
        }
    }
}

/// A line of a buffer's side-by-side table.
enum Line {
    /// The element at this offset from the dump's first.
    Element(u64),
    /// This many elements left out, as expected or unchecked.
    Gap(u64),
}

/// The lines of a buffer's table: every element of a small buffer; in a large one, those
/// within [`CONTEXT`] of a difference, and a gap line for each run left out between.
fn lines(d: &BufferDump, bad: &BTreeSet<u64>) -> Vec<Line> {
    let n = d.actual.len() as u64;
    let wanted = |k: u64| {
        n as usize <= FULL_TABLE
            || bad
                .range(
                    d.first.saturating_add(k.saturating_sub(CONTEXT))
                        ..=d.first.saturating_add(k).saturating_add(CONTEXT),
                )
                .next()
                .is_some()
    };
    let mut out = Vec::new();
    let mut gap = 0u64;
    for k in 0..n {
        if !wanted(k) {
            gap += 1;
            continue;
        }
        if gap > 0 {
            out.push(Line::Gap(gap));
            gap = 0;
        }
        out.push(Line::Element(k));
    }
    if gap > 0 {
        out.push(Line::Gap(gap));
    }
    out
}

/// One checked buffer: name, type, size and check; a heat map of which elements differ;
/// expected and actual elements side by side ([`lines`]).
fn buffer(d: &BufferDump) -> Markup {
    let bad: BTreeSet<u64> = d.differs.iter().copied().collect();
    let n = d.actual.len() as u64;
    // The element `k` after the first: its index, expected value (`None`: not checked) and
    // actual value.
    let element = |k: u64| {
        let exp = d.expected.get(k as usize).and_then(|e| e.as_deref());
        let act = d.actual.get(k as usize).map_or("", String::as_str);
        (d.first.saturating_add(k), exp, act)
    };
    html! {
        div.buf {
            h4 {
                "buffer " code { (Text(&d.name)) }
                " (" (Text(&d.elem)) ", " (d.total) " element" (plural(d.total))
                @if n < d.total { ", showing " (d.first) ".." (d.first.saturating_add(n)) }
                ")"
            }
            div.check {
                (Text(&d.check)) " — " (bad.len()) " differ"
                @if bad.len() == 1 { "s" }
            } "\n"
            div.heat title="green: as expected, red: differs, grey: not checked" {
                @for k in 0..n {
                    @let (idx, exp, act) = element(k);
                    @match exp {
                        None => span.un title=(Text(&format!("[{idx}] {act} (not checked)"))) {},
                        Some(e) if bad.contains(&idx) => {
                            span.bad title=(Text(&format!("[{idx}] expected {e}, actual {act}"))) {}
                        }
                        Some(e) => span.ok title=(Text(&format!("[{idx}] {e}"))) {},
                    }
                }
            } "\n"
            table.side {
                thead { (heading_row(&["index", "expected", "actual"])) }
                tbody {
                    "\n"
                    @for line in lines(d, &bad) {
                        @match line {
                            Line::Gap(gap) => {
                                tr.gap {
                                    td colspan="3" {
                                        (gap) " element" (plural(gap)) " as expected or unchecked"
                                    }
                                } "\n"
                            }
                            Line::Element(k) => {
                                @let (idx, exp, act) = element(k);
                                tr class=[bad.contains(&idx).then_some("bad")] {
                                    td { (idx) }
                                    @match exp {
                                        Some(e) => td { (Text(e)) },
                                        None => td.un { "not checked" },
                                    }
                                    td.act { (Text(act)) }
                                } "\n"
                            }
                        }
                    }
                }
            }
        } "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_gate::gate::{Baseline, Gate};
    use conform_judge::results::{BufferDump, Evidence, ProgramDump, Status};
    use conform_judge::testing::result;
    use std::path::Path;

    fn failing() -> CaseResult {
        let mut r = result("nv_compute_program5/atoms-<x>", "llvmpipe", Status::Fail);
        r.evidence = Some(Evidence {
            programs: vec![ProgramDump {
                language: "nvasm".into(),
                origin: "cases/a.yaml".into(),
                first_line: 7,
                text: "!!NVcp5.0\nMOV.U R0, 1 < 2;\nEND\n".into(),
                truncated: false,
            }],
            uniforms: vec!["rounds (u32) = 3".into()],
            steps: vec!["dispatch 1x1x1, expect NO_ERROR".into()],
            memory: vec![BufferDump {
                name: "out".into(),
                elem: "u32".into(),
                first: 0,
                expected: vec![None, Some("1".into()), Some("2".into())],
                actual: vec!["0".into(), "1".into(), "7".into()],
                total: 3,
                differs: vec![2],
                check: "elements 1..3: exact".into(),
            }],
        });
        r
    }

    /// A bidi override or a control character from a name, a message, a log or a driver
    /// string is shown as an escape: the page never shows what is not there.
    #[test]
    fn control_and_bidi_characters_are_shown_not_embedded() {
        let mut r = result("x/a\u{202e}txt.exe", "b\u{1}", Status::Fail);
        r.message = "m\u{2066}\x1b[2J\r".into();
        r.log = "line 1\n\tline\u{fffe} 2".into();
        let mut gated = Gate::default().apply(vec![r]);
        gated.identities.insert(
            "b\u{1}".into(),
            conform_judge::identity::BackendIdentity {
                renderer: "R\u{202d}".into(),
                ..Default::default()
            },
        );
        let html = render(&gated, "run\u{202e}");
        assert_eq!(raw_hostile(&html), None, "{html}");
        assert!(html.contains("x/a\\u{202e}txt.exe"), "{html}");
        assert!(html.contains("line 1\n\tline\\u{fffe} 2"), "{html}");
    }

    /// The first character the page holds raw that conform's escaping would have shown as
    /// an escape (line feeds and tabs are text).
    fn raw_hostile(html: &str) -> Option<char> {
        html.chars()
            .find(|c| conform_io::escape::is_hostile(*c) && *c != '\n' && *c != '\t')
    }

    /// Every string field a page shows holds a bidi override here, and each is on the page as
    /// `\u{202e}`: a template splicing a string past the [`Text`] filter fails this test.
    #[test]
    fn every_string_field_goes_through_the_text_filter() {
        let h = |s: &str| format!("{s}\u{202e}");
        let mut r = result(&h("ext/case"), &h("backend"), Status::Fail);
        r.message = h("message");
        r.spec = vec![h("spec-a"), h("spec-b")];
        r.repro = h("repro");
        r.attempts = vec![conform_judge::results::Attempt {
            status: Status::Fail,
            message: h("attempt"),
            duration_ms: 1,
        }];
        r.details = vec![h("detail-a"), h("detail-b")];
        r.log = h("log");
        let small = BufferDump {
            name: h("small"),
            elem: h("elem"),
            first: 0,
            expected: vec![None, Some(h("exp-ok")), Some(h("exp-bad"))],
            actual: vec![h("act-un"), h("act-ok"), h("act-bad")],
            total: 3,
            differs: vec![2],
            check: h("check"),
        };
        // Past the page's budget: only its name is shown.
        let huge = BufferDump {
            name: h("huge"),
            elem: "u32".into(),
            first: 0,
            expected: vec![],
            actual: vec![String::new(); PAGE_ELEMENT_BUDGET],
            total: PAGE_ELEMENT_BUDGET as u64,
            differs: vec![],
            check: String::new(),
        };
        r.evidence = Some(Evidence {
            programs: vec![ProgramDump {
                language: h("language"),
                origin: h("origin"),
                first_line: 1,
                text: format!("{}\n{}", h("text-a"), h("text-b")),
                truncated: true,
            }],
            uniforms: vec![h("uniform")],
            steps: vec![h("step")],
            memory: vec![small, huge],
        });
        // Past MAX_DETAILED: listed in the table without details.
        let mut results = vec![r];
        for i in 0..MAX_DETAILED {
            let mut t = result(&h(&format!("listed/c{i:03}")), &h("backend"), Status::Fail);
            t.message = h("listed-message");
            t.repro = h("listed-repro");
            results.push(t);
        }
        let mut gated = Gate::default().apply(results);
        gated.classes[0].1 = h("why");
        gated.gaps = vec![h("gap")];
        gated.identities.insert(
            h("backend"),
            conform_judge::identity::BackendIdentity {
                renderer: h("renderer"),
                version: h("version"),
                install: Some(h("install")),
                libraries: vec![h("library-a"), h("library-b")],
                ..Default::default()
            },
        );
        let html = render(&gated, &h("run"));
        assert_eq!(raw_hostile(&html), None, "{html}");
        for field in [
            "run",
            "gap",
            "backend",
            "renderer",
            "version",
            "install",
            "library-a",
            "library-b",
            "ext/case",
            "message",
            "why",
            "spec-a",
            "spec-b",
            "repro",
            "attempt",
            "small",
            "elem",
            "check",
            "exp-ok",
            "exp-bad",
            "act-un",
            "act-ok",
            "act-bad",
            "huge",
            "detail-a",
            "detail-b",
            "language",
            "origin",
            "text-a",
            "text-b",
            "uniform",
            "step",
            "log",
            "listed/c199",
            "listed-message",
            "listed-repro",
        ] {
            assert!(html.contains(&format!("{field}\\u{{202e}}")), "{field}");
        }
        assert!(html.contains("more, listed without details"));
        assert!(html.contains("not drawn, this page already shows"));
    }

    /// A failure's build log (a compile error) is open on the page, not behind a click.
    #[test]
    fn a_failure_s_build_log_is_shown_open() {
        let mut fail = result("x/compile", "llvmpipe", Status::Fail);
        fail.log = "0:3(9): error: syntax error".into();
        let html = render(&Gate::default().apply(vec![fail]), "run");
        assert!(
            html.contains("<details open><summary>Build log</summary><pre>0:3(9): error"),
            "{html}"
        );
    }

    #[test]
    fn page_has_matrix_failure_memory_and_no_external_assets() {
        let gate = Gate {
            baseline: Baseline::parse(Path::new("b.txt"), "zink,arb_compute_shader/k,fail\n")
                .unwrap(),
            ..Gate::default()
        };
        let gated = gate.apply(vec![
            failing(),
            result("nv_compute_program5/ok", "llvmpipe", Status::Pass),
            result("arb_compute_shader/k", "zink", Status::Fail),
            result("arb_compute_shader/k", "llvmpipe", Status::Skip),
        ]);
        let html = render(&gated, "run-<1>");
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>conform run-&lt;1&gt;</title>"));
        // No network: nothing is loaded from anywhere.
        for bad in ["http://", "https://", "src=", "<link", "@import", "url("] {
            assert!(!html.contains(bad), "{bad}");
        }
        // The matrix: one row per extension, one column per backend, counts per class.
        let matrix = &html[html.find("<table class=\"matrix\">").unwrap()..];
        let matrix = &matrix[..matrix.find("</table>").unwrap()];
        assert!(
            matrix.contains("<th>llvmpipe</th><th>zink</th>"),
            "{matrix}"
        );
        assert!(matrix.contains("<tr><th>arb_compute_shader</th><td><span class=\"pill c-skip\" title=\"skip\">1 skip</span></td><td><span class=\"pill c-expected-fail\" title=\"expected-fail\">1 expected-fail</span></td></tr>"), "{matrix}");
        assert!(matrix.contains("<tr><th>nv_compute_program5</th><td><span class=\"pill c-regression\" title=\"regression\">1 regression</span><span class=\"pill c-pass\" title=\"pass\">1 pass</span></td><td></td></tr>"), "{matrix}");
        // The regression comes first, escaped, with its repro, program, steps and memory.
        let first = html.find("<article").unwrap();
        let art = &html[first..html[first..].find("</article>").unwrap() + first];
        assert!(art.contains("data-class=\"regression\""));
        assert!(art.contains("atoms-&lt;x&gt;"));
        assert!(art.contains("<code>conform run cases/nv_compute_program5/atoms-&lt;x&gt;.yaml --backend llvmpipe</code>"));
        assert!(
            art.contains("<span class=\"ln\">   8 </span>MOV.U R0, 1 &lt; 2;"),
            "{art}"
        );
        assert!(art.contains("<li>dispatch 1x1x1, expect NO_ERROR</li>"));
        assert!(art.contains("<li><code>rounds (u32) = 3</code></li>"));
        assert!(art.contains("<span class=\"un\" title=\"[0] 0 (not checked)\"></span><span class=\"ok\" title=\"[1] 1\"></span><span class=\"bad\" title=\"[2] expected 2, actual 7\"></span>"), "{art}");
        assert!(art.contains("<tr class=\"bad\"><td>2</td><td>2</td><td class=\"act\">7</td></tr>"));
        assert!(art.contains("<td class=\"un\">not checked</td>"));
        // The expected failure follows; the skip and the pass are not detailed.
        assert_eq!(html.matches("<article").count(), 2);
        // Balanced tags, as a browser-free structure check.
        for tag in [
            "article", "table", "section", "details", "pre", "div", "tr", "td",
        ] {
            let open = html.matches(&format!("<{tag}>")).count()
                + html.matches(&format!("<{tag} ")).count();
            let close = html.matches(&format!("</{tag}>")).count();
            assert_eq!(open, close, "<{tag}>");
        }
    }

    #[test]
    fn many_failures_stay_within_the_page_budget() {
        let mut results = Vec::new();
        for i in 0..150 {
            let mut r = failing();
            r.case = format!("x/c{i:03}");
            let ev = r.evidence.as_mut().unwrap();
            ev.memory[0].actual = vec!["0".into(); 1024];
            ev.memory[0].expected = vec![Some("1".into()); 1024];
            ev.memory[0].differs = (0..1024).collect();
            results.push(r);
        }
        let html = render(&Gate::default().apply(results), "big");
        let cells = html.matches("<span class=\"bad\"").count();
        assert!(cells <= PAGE_ELEMENT_BUDGET / 2, "{cells}");
        assert!(cells >= PAGE_ELEMENT_BUDGET / 2 - 1024, "{cells}");
        assert!(html.contains("not drawn, this page already shows"));
        assert_eq!(html.matches("<article").count(), 150);
    }

    #[test]
    fn large_buffers_tabulate_around_the_differences() {
        let n = 300;
        let d = BufferDump {
            name: "big".into(),
            elem: "i32".into(),
            first: 0,
            expected: (0..n).map(|i| Some(i.to_string())).collect(),
            actual: (0..n)
                .map(|i| if i == 100 { "-1".into() } else { i.to_string() })
                .collect(),
            total: n,
            differs: vec![100],
            check: "exact".into(),
        };
        let o = buffer(&d).into_string();
        assert_eq!(o.matches("<span class=\"ok\"").count(), 299);
        assert!(o.contains("<tr class=\"gap\"><td colspan=\"3\">98 elements as expected or unchecked</td></tr>"), "{o}");
        assert!(o.contains("<tr><td>98</td>"));
        assert!(!o.contains("<tr><td>97</td>"));
        assert!(
            o.contains("<tr class=\"bad\"><td>100</td><td>100</td><td class=\"act\">-1</td></tr>")
        );
        assert!(o.contains("197 elements as expected"), "{o}");
    }
}
