//! `report.html`: one self-contained page per run (inline CSS and a few lines of inline JS; no
//! network, no external assets). First a matrix of extensions (a case's top folder) by
//! backend with counts per class, then every result that is not a plain pass or skip: the
//! message, the repro command, the program source, the steps, the checked buffers' expected
//! and actual elements side by side in the declared type, and a heat map of which elements
//! differ.

use conform_gate::gate::{Class, Gated};
use conform_judge::results::{BufferDump, CaseResult, Evidence};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

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
/// there), then markup escaped. Every string a page takes from a result goes through here.
pub fn escape(s: &str) -> String {
    let s = conform_io::escape::text(s);
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// The page frame both HTML pages share (`report.html`, `conform compare --format html`).
pub(crate) const BASE_CSS: &str = r#"
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

fn pill(c: Class, n: usize) -> String {
    format!(
        "<span class=\"pill c-{}\" title=\"{}\">{n} {}</span>",
        c.name(),
        c.name(),
        c.name()
    )
}

pub fn render(gated: &Gated, run_name: &str) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>conform {}</title>\n<style>{BASE_CSS}{CSS}</style>\n</head>\n<body>\n",
        escape(run_name)
    );
    let verdict = match gated.exit_code() {
        conform_gate::gate::EXIT_REGRESSION => "blocked: regressions found",
        conform_gate::gate::EXIT_INCOMPLETE => "not passed: the run is incomplete",
        conform_gate::gate::EXIT_INVALID => "invalid cases",
        _ => "passed",
    };
    let _ = write!(
        o,
        "<header><h1>conform report: {}</h1><div class=\"verdict\" id=\"verdict\">{verdict} &mdash; ",
        escape(run_name)
    );
    for c in Class::ALL {
        let n = gated.count(c);
        if n > 0 {
            o.push_str(&pill(c, n));
        }
    }
    o.push_str("</div>");
    if !gated.gaps.is_empty() {
        o.push_str("<ul class=\"gaps\">");
        for g in &gated.gaps {
            let _ = write!(o, "<li>{}</li>", escape(g));
        }
        o.push_str("</ul>");
    }
    o.push_str("</header>\n<main>\n");
    drivers(&mut o, gated);
    matrix(&mut o, gated);
    failures(&mut o, gated);
    let _ = write!(o, "</main>\n<script>{JS}</script>\n</body>\n</html>\n");
    o
}

/// Which build each backend was: renderer, version, install, and the driver libraries the
/// worker loaded (folded).
fn drivers(o: &mut String, gated: &Gated) {
    if gated.identities.is_empty() {
        return;
    }
    o.push_str("<section id=\"drivers\"><h2>Backends</h2>\n<table class=\"drivers\"><thead><tr><th>backend</th><th>renderer</th><th>version</th><th>install</th><th>libraries</th></tr></thead>\n<tbody>\n");
    for (name, id) in &gated.identities {
        let _ = write!(
            o,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>",
            escape(name),
            escape(&id.renderer),
            escape(&id.version),
            id.install.as_deref().map_or("system".into(), escape)
        );
        if !id.libraries.is_empty() {
            let _ = write!(
                o,
                "<details><summary>{} loaded</summary><code>{}</code></details>",
                id.libraries.len(),
                id.libraries
                    .iter()
                    .map(|l| escape(l))
                    .collect::<Vec<_>>()
                    .join("<br>")
            );
        }
        o.push_str("</td></tr>\n");
    }
    o.push_str("</tbody></table></section>\n");
}

fn matrix(o: &mut String, gated: &Gated) {
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
    o.push_str("<section id=\"matrix\"><h2>Extensions by backend</h2>\n<table class=\"matrix\"><thead><tr><th>extension</th>");
    for b in &backends {
        let _ = write!(o, "<th>{}</th>", escape(b));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for (ext, row) in &cells {
        let _ = write!(o, "<tr><th>{}</th>", escape(ext));
        for b in &backends {
            o.push_str("<td>");
            if let Some(counts) = row.get(b) {
                for c in Class::ALL {
                    if let Some(&n) = counts.get(&c) {
                        o.push_str(&pill(c, n));
                    }
                }
            }
            o.push_str("</td>");
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody></table>\n<p class=\"legend\">");
    for (c, text) in [
        (Class::Regression, "fails, not in the baseline (blocks)"),
        (
            Class::UnexpectedImprovement,
            "did better than the baseline: passed, skipped, or failed where a crash was listed",
        ),
        (Class::Flake, "failed, passed on a retry"),
        (Class::KnownFlake, "in the flakes list"),
        (Class::ExpectedFail, "fails as the baseline says"),
    ] {
        let _ = write!(o, "<span>{} {text}</span>", pill(c, 0).replace(">0 ", ">"));
    }
    o.push_str("</p></section>\n");
}

fn failures(o: &mut String, gated: &Gated) {
    let mut shown: Vec<(&CaseResult, Class, &str)> = gated
        .iter()
        .filter(|(_, c, _)| !matches!(c, Class::Pass | Class::Skip))
        .collect();
    shown.sort_by(|a, b| {
        (rank(a.1), &a.0.backend, &a.0.case).cmp(&(rank(b.1), &b.0.backend, &b.0.case))
    });
    let _ = writeln!(
        o,
        "<section id=\"failures\"><h2>Results to look at ({})</h2>",
        shown.len()
    );
    if shown.is_empty() {
        o.push_str("<p>Nothing failed.</p></section>\n");
        return;
    }
    let present: BTreeSet<Class> = shown.iter().map(|s| s.1).collect();
    o.push_str("<p class=\"filters\">Show: ");
    for c in &present {
        let _ = write!(
            o,
            "<label><input type=\"checkbox\" value=\"{}\" checked> {}</label>",
            c.name(),
            pill(*c, shown.iter().filter(|s| s.1 == *c).count())
        );
    }
    o.push_str("</p>\n");
    let mut budget = PAGE_ELEMENT_BUDGET;
    for (i, (r, class, why)) in shown.iter().enumerate() {
        if i == MAX_DETAILED {
            let _ = write!(
                o,
                "<h3>{} more, listed without details</h3>\n<table><tr><th>class</th><th>case</th><th>backend</th><th>message</th><th>repro</th></tr>\n",
                shown.len() - MAX_DETAILED
            );
        }
        if i >= MAX_DETAILED {
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                class.name(),
                escape(&r.case),
                escape(&r.backend),
                escape(&r.message),
                escape(&r.repro)
            );
            continue;
        }
        article(o, i, r, *class, why, &mut budget);
    }
    if shown.len() > MAX_DETAILED {
        o.push_str("</table>\n");
    }
    o.push_str("</section>\n");
}

fn article(o: &mut String, i: usize, r: &CaseResult, class: Class, why: &str, budget: &mut usize) {
    let _ = write!(
        o,
        "<article class=\"{c}\" data-class=\"{c}\" id=\"r{i}\">\n<h3>{} {} <small>on {}</small></h3>\n",
        pill(class, 1).replace(">1 ", ">"),
        escape(&r.case),
        escape(&r.backend),
        c = class.name()
    );
    if r.message.is_empty() {
        let _ = writeln!(o, "<p class=\"msg\">{}</p>", r.status.name());
    } else {
        let _ = writeln!(
            o,
            "<p class=\"msg\">{}: {}</p>",
            r.status.name(),
            escape(&r.message)
        );
    }
    if !why.is_empty() {
        let _ = writeln!(o, "<p class=\"why\">{}</p>", escape(why));
    }
    if !r.spec.is_empty() {
        let _ = writeln!(
            o,
            "<p class=\"why\">spec: {}</p>",
            escape(&r.spec.join(", "))
        );
    }
    let _ = writeln!(
        o,
        "<div class=\"repro\"><code>{}</code><button type=\"button\" data-copy>copy</button></div>",
        escape(&r.repro)
    );
    if !r.attempts.is_empty() {
        o.push_str("<p class=\"why\">attempts: ");
        for (k, a) in r.attempts.iter().enumerate() {
            let _ = write!(
                o,
                "{}. {} ({} ms) {}; ",
                k + 1,
                a.status.name(),
                a.duration_ms,
                escape(&a.message)
            );
        }
        let _ = writeln!(
            o,
            "{}. {} ({} ms)</p>",
            r.attempts.len() + 1,
            r.status.name(),
            r.duration_ms
        );
    }
    if let Some(ev) = &r.evidence {
        memory(o, ev, budget);
    }
    if !r.details.is_empty() {
        let _ = writeln!(
            o,
            "<details><summary>Details ({} line{})</summary><pre>{}</pre></details>",
            r.details.len(),
            if r.details.len() == 1 { "" } else { "s" },
            escape(&r.details.join("\n"))
        );
    }
    if let Some(ev) = &r.evidence {
        for p in &ev.programs {
            let _ = write!(
                o,
                "<details open><summary>Program ({}, {}){}</summary><pre class=\"src\">",
                escape(&p.language),
                escape(&p.origin),
                if p.truncated { ", truncated" } else { "" }
            );
            for (k, line) in p.text.lines().enumerate() {
                let _ = writeln!(
                    o,
                    "<span class=\"ln\">{:>4} </span>{}",
                    p.first_line as usize + k,
                    escape(line)
                );
            }
            o.push_str("</pre></details>\n");
        }
        if !ev.uniforms.is_empty() {
            o.push_str("<details open><summary>Uniforms</summary><ul class=\"steps\">");
            for u in &ev.uniforms {
                let _ = write!(o, "<li><code>{}</code></li>", escape(u));
            }
            o.push_str("</ul></details>\n");
        }
        if !ev.steps.is_empty() {
            o.push_str("<details open><summary>Steps</summary><ol class=\"steps\">");
            for s in &ev.steps {
                let _ = write!(o, "<li>{}</li>", escape(s));
            }
            o.push_str("</ol></details>\n");
        }
    }
    if !r.log.is_empty() {
        // On a failure the log (a compile error, most often) is what a reader came for:
        // shown open, not behind a click.
        let _ = writeln!(
            o,
            "<details{}><summary>Build log</summary><pre>{}</pre></details>",
            if r.is_failure() { " open" } else { "" },
            escape(&r.log)
        );
    }
    o.push_str("</article>\n");
}

fn memory(o: &mut String, ev: &Evidence, budget: &mut usize) {
    for d in &ev.memory {
        // A heat map cell and at most a table row per element.
        let cost = 2 * d.actual.len();
        if cost > *budget {
            let _ = writeln!(
                o,
                "<p class=\"why\">buffer <code>{}</code>: not drawn, this page already shows {PAGE_ELEMENT_BUDGET} elements; its values are in results.jsonl (<code>evidence</code>)</p>",
                escape(&d.name)
            );
            continue;
        }
        *budget -= cost;
        buffer(o, d);
    }
}

fn buffer(o: &mut String, d: &BufferDump) {
    let bad: BTreeSet<u64> = d.differs.iter().copied().collect();
    let n = d.actual.len() as u64;
    let _ = write!(
        o,
        "<div class=\"buf\"><h4>buffer <code>{}</code> ({}, {} element{}{})</h4><div class=\"check\">{} &mdash; {} differ{}</div>\n<div class=\"heat\" title=\"green: as expected, red: differs, grey: not checked\">",
        escape(&d.name),
        escape(&d.elem),
        d.total,
        if d.total == 1 { "" } else { "s" },
        if n < d.total {
            format!(", showing {}..{}", d.first, d.first + n)
        } else {
            String::new()
        },
        escape(&d.check),
        bad.len(),
        if bad.len() == 1 { "s" } else { "" }
    );
    for k in 0..n {
        let idx = d.first + k;
        let exp = d.expected.get(k as usize).and_then(|e| e.as_deref());
        let act = d.actual.get(k as usize).map_or("", String::as_str);
        let (cls, title) = match exp {
            None => ("un", format!("[{idx}] {act} (not checked)")),
            Some(e) if bad.contains(&idx) => ("bad", format!("[{idx}] expected {e}, actual {act}")),
            Some(e) => ("ok", format!("[{idx}] {e}")),
        };
        let _ = write!(
            o,
            "<span class=\"{cls}\" title=\"{}\"></span>",
            escape(&title)
        );
    }
    o.push_str("</div>\n<table class=\"side\"><thead><tr><th>index</th><th>expected</th><th>actual</th></tr></thead><tbody>\n");
    // Rows: all of a small buffer; around the differences in a large one.
    let wanted = |k: u64| {
        n as usize <= FULL_TABLE
            || bad
                .range(d.first + k.saturating_sub(CONTEXT)..=d.first + k + CONTEXT)
                .next()
                .is_some()
    };
    let mut gap = 0u64;
    for k in 0..n {
        if !wanted(k) {
            gap += 1;
            continue;
        }
        if gap > 0 {
            let _ = writeln!(
                o,
                "<tr class=\"gap\"><td colspan=\"3\">{gap} element{} as expected or unchecked</td></tr>",
                if gap == 1 { "" } else { "s" }
            );
            gap = 0;
        }
        let idx = d.first + k;
        let exp = d.expected.get(k as usize).and_then(|e| e.as_deref());
        let act = d.actual.get(k as usize).map_or("", String::as_str);
        let row = if bad.contains(&idx) {
            " class=\"bad\""
        } else {
            ""
        };
        let exp_cell = match exp {
            Some(e) => format!("<td>{}</td>", escape(e)),
            None => "<td class=\"un\">not checked</td>".into(),
        };
        let _ = writeln!(
            o,
            "<tr{row}><td>{idx}</td>{exp_cell}<td class=\"act\">{}</td></tr>",
            escape(act)
        );
    }
    if gap > 0 {
        let _ = writeln!(
            o,
            "<tr class=\"gap\"><td colspan=\"3\">{gap} element{} as expected or unchecked</td></tr>",
            if gap == 1 { "" } else { "s" }
        );
    }
    o.push_str("</tbody></table></div>\n");
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
        let raw = html
            .chars()
            .find(|c| conform_io::escape::is_hostile(*c) && *c != '\n' && *c != '\t');
        assert_eq!(raw, None, "{html}");
        assert!(html.contains("x/a\\u{202e}txt.exe"), "{html}");
        assert!(html.contains("line 1\n\tline\\u{fffe} 2"), "{html}");
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
        let mut o = String::new();
        buffer(&mut o, &d);
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
