//! Human-readable views of a case (`conform show`) and of an outcome (`conform golden`),
//! with memory printed in the declared element types.

use super::values::format_elem;
use super::{Case, Check, Expectation, QueryBound, Tolerance};
use conform_plan::{ElemType, Outcome};
use std::fmt::Write;

/// Prints elements `first..` of `bytes` as `[i] value` lines, eliding long runs of equal ones.
pub fn typed_lines(bytes: &[u8], elem: ElemType, first: u64, indent: &str) -> String {
    let mut out = String::new();
    let elems: Vec<&[u8]> = bytes.chunks(elem.size()).collect();
    let mut i = 0;
    while i < elems.len() {
        let mut j = i + 1;
        while j < elems.len() && elems[j] == elems[i] {
            j += 1;
        }
        let v = format_elem(elems[i], elem);
        if j - i > 2 {
            let _ = writeln!(
                out,
                "{indent}[{}..{}] {v}",
                first + i as u64,
                first + j as u64
            );
            i = j;
        } else {
            let _ = writeln!(out, "{indent}[{}] {v}", first + i as u64);
            i += 1;
        }
    }
    out
}

pub fn render(case: &Case) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "case: {}\nfile: {}", case.name, case.path.display());
    if !case.description.is_empty() {
        let _ = writeln!(o, "description: {}", case.description.trim());
    }
    let _ = writeln!(o, "spec: {}", case.spec.join(", "));
    let r = &case.requires;
    let mut req = Vec::new();
    if let Some(gl) = &r.gl {
        req.push(format!("GL {gl}"));
    }
    if let Some(gles) = &r.gles {
        req.push(format!("OpenGL ES {gles}"));
    }
    if let Some(glsl) = r.glsl {
        req.push(format!("GLSL {glsl}"));
    }
    req.extend(r.extensions.iter().cloned());
    req.extend(r.spirv_extensions.iter().cloned());
    req.extend(r.limits.iter().map(|(k, v)| format!("{k} >= {v}")));
    if !req.is_empty() {
        let _ = writeln!(o, "requires: {}", req.join(", "));
    }
    if let Some(u) = &case.undefined {
        let _ = writeln!(o, "undefined behaviour: {u}");
    }
    for p in &case.plan.programs {
        let _ = writeln!(
            o,
            "\nprogram ({}, {:?}) from {}:",
            p.language.name(),
            p.stage,
            p.origin
        );
        for (i, line) in p.text.lines().enumerate() {
            let _ = writeln!(o, "  {:>4} | {line}", p.first_line as usize + i);
        }
        if !p.words.is_empty() {
            let _ = writeln!(o, "  ({} SPIR-V words)", p.words.len());
        }
    }
    if !case.plan.buffers.is_empty() {
        let _ = writeln!(o, "\nbuffers:");
        for b in &case.plan.buffers {
            let _ = writeln!(
                o,
                "  {} ({:?} binding {}, {}, {} bytes):",
                b.name,
                b.kind,
                b.binding,
                b.elem,
                b.bytes.len()
            );
            o.push_str(&typed_lines(&b.bytes, b.elem, 0, "    "));
        }
    }
    let _ = writeln!(o, "\nsteps:");
    for (s, c) in case.plan.steps.iter().zip(&case.step_checks) {
        let mut line = format!("  {}", describe_step(s));
        if *s != conform_plan::Step::Snapshot {
            let _ = write!(line, ", expect {}", c.error);
        }
        match &c.bound {
            Some(QueryBound::Equals(v)) => {
                let _ = write!(line, ", value == {v:?}");
            }
            Some(QueryBound::AtLeast(v)) => {
                let _ = write!(line, ", value >= {v}");
            }
            Some(QueryBound::AtMost(v)) => {
                let _ = write!(line, ", value <= {v}");
            }
            None => {}
        }
        let _ = writeln!(o, "{line}");
    }
    if let Some(f) = &case.fails {
        let _ = writeln!(
            o,
            "\nexpected: {} failure{}",
            f.at.name(),
            f.log
                .as_ref()
                .map(|r| format!(" with a log matching /{}/", r.as_str()))
                .unwrap_or_default()
        );
    }
    if !case.expect.is_empty() {
        let _ = writeln!(o, "\nexpected memory:");
    }
    for x in &case.expect {
        let b = &case.plan.buffers[x.buffer];
        let head = format!(
            "  {} {} elements {}..{} (line {}{})",
            b.name,
            x.elem,
            x.at,
            x.at + x.count,
            x.line,
            when(x)
        );
        match &x.check {
            Check::Exact(v) => {
                let _ = writeln!(o, "{head}, exactly:");
                o.push_str(&typed_lines(v, x.elem, x.at, "    "));
            }
            Check::Within(v, t) => {
                let tol = match t {
                    Tolerance::Ulp(n) => format!("{n} ulp"),
                    Tolerance::Abs(a) => format!("abs {a}"),
                    Tolerance::Rel(r) => format!("rel {r}"),
                };
                let _ = writeln!(o, "{head}, within {tol}:");
                o.push_str(&typed_lines(v, x.elem, x.at, "    "));
            }
            Check::OneOf(alts) => {
                let _ = writeln!(o, "{head}, one of {} alternatives:", alts.len());
                for (i, a) in alts.iter().enumerate() {
                    let _ = writeln!(o, "    alternative {i}:");
                    o.push_str(&typed_lines(a, x.elem, x.at, "      "));
                }
            }
            Check::Permutation(v) => {
                let _ = writeln!(o, "{head}, a permutation of:");
                o.push_str(&typed_lines(v, x.elem, x.at, "    "));
            }
            Check::Compare(op, v) => {
                let _ = writeln!(o, "{head}, observed {} these:", op.symbol());
                o.push_str(&typed_lines(v, x.elem, x.at, "    "));
            }
            Check::Outcomes { width, allowed } => {
                let _ = writeln!(
                    o,
                    "{head}, in tuples of {width}, each one of {} allowed outcomes:",
                    allowed.len()
                );
                for a in allowed {
                    let _ = writeln!(o, "    {}", crate::show::format_tuple(a, x.elem));
                }
            }
            Check::Undefined => {
                let _ = writeln!(o, "{head}: undefined, not checked");
            }
            Check::Reference => {
                let _ = writeln!(o, "{head}: equal to the reference interpreter's output");
            }
        }
    }
    o
}

pub fn render_outcome(case: &Case, outcome: &Outcome) -> String {
    let mut o = String::new();
    if let Some(stage) = outcome.build.failed_at {
        let _ = writeln!(o, "  {} failed:", stage.name());
        for l in outcome.build.log.lines() {
            let _ = writeln!(o, "    {l}");
        }
        return o;
    }
    let snapshot_steps = case
        .plan
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| **s == conform_plan::Step::Snapshot);
    for ((i, _), buffers) in snapshot_steps.zip(&outcome.snapshots) {
        let _ = writeln!(o, "  after step {}:", i + 1);
        for (b, bytes) in case.plan.buffers.iter().zip(buffers) {
            let _ = writeln!(o, "    {} ({}):", b.name, b.elem);
            o.push_str(&typed_lines(bytes, b.elem, 0, "      "));
        }
    }
    // With snapshots, the final buffers go under a heading of their own.
    let indent = if outcome.snapshots.is_empty() {
        ""
    } else {
        let _ = writeln!(o, "  after the last step:");
        "  "
    };
    for (b, bytes) in case.plan.buffers.iter().zip(&outcome.buffers) {
        let _ = writeln!(o, "{indent}  {} ({}):", b.name, b.elem);
        o.push_str(&typed_lines(bytes, b.elem, 0, &format!("{indent}    ")));
    }
    for f in &outcome.flags {
        let _ = writeln!(o, "  flag {}: {}", f.kind, f.message);
    }
    for n in &outcome.notes {
        let _ = writeln!(o, "  note: {n}");
    }
    o
}

/// A tuple as `(a, b, ...)` in its element type.
pub fn format_tuple(bytes: &[u8], elem: ElemType) -> String {
    let parts: Vec<String> = bytes
        .chunks(elem.size())
        .map(|c| format_elem(c, elem))
        .collect();
    format!("({})", parts.join(", "))
}

/// Where an expectation reads, for messages: "after step K" for an `expect` step.
pub fn when(x: &Expectation) -> String {
    match x.at_snapshot {
        Some(s) => format!(", after step {}", s.step + 1),
        None => String::new(),
    }
}

pub fn describe_step(step: &conform_plan::Step) -> String {
    use conform_plan::Step;
    match step {
        Step::Dispatch { groups } => format!("dispatch {groups:?}"),
        Step::DispatchIndirect { buffer, offset } => match buffer {
            Some(b) => format!("dispatch_indirect buffer #{b} offset {offset}"),
            None => format!("dispatch_indirect with no buffer, offset {offset}"),
        },
        Step::MemoryBarrier { bits } => format!("barrier {bits:?}"),
        Step::Query { pname, index } => match index {
            Some(i) => format!("query {pname}[{i}]"),
            None => format!("query {pname}"),
        },
        Step::ProgramQuery { pname } => format!("program_query {pname}"),
        Step::Api(action) => format!("api {} {:?}", action.call(), action.args()),
        Step::DispatchGroupSize { groups, size } => {
            format!("dispatch_group_size {groups:?} of size {size:?}")
        }
        Step::Uniform(set) => {
            let values: Vec<String> = set
                .bytes
                .chunks(set.ty.scalar().size())
                .take(16)
                .map(|c| format_elem(c, ElemType::scalar(set.ty.scalar())))
                .collect();
            let more = if set.bytes.len() / set.ty.scalar().size().max(1) > 16 {
                ", ..."
            } else {
                ""
            };
            format!(
                "uniform {} ({}) = [{}{more}]",
                set.target,
                set.ty,
                values.join(", ")
            )
        }
        Step::WriteBuffer {
            buffer,
            offset,
            bytes,
        } => format!(
            "write buffer #{buffer} bytes {offset}..{}",
            *offset + bytes.len() as u64
        ),
        Step::ClearBuffer { buffer } => format!("clear buffer #{buffer}"),
        Step::Snapshot => "expect: memory is read here and checked".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// `conform show` and `conform golden` of a case using every step and check of format v2,
    /// pinned in testdata/show/v2.golden. Regenerate with `BLESS=1 cargo test`.
    #[test]
    fn show_and_outcome_of_v2_steps_golden() {
        let path = Path::new("testdata/show/v2.yaml");
        let case = crate::load(path, None).unwrap();
        let outcome = Outcome {
            buffers: vec![conform_plan::bytes::from_u32s(&[0, 3])],
            snapshots: vec![vec![conform_plan::bytes::from_u32s(&[1, 7])]],
            ..Outcome::default()
        };
        let out = format!(
            "{}\n--- golden:\n{}",
            render(&case),
            render_outcome(&case, &outcome)
        );
        let golden = Path::new("testdata/show/v2.golden");
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(golden, &out).unwrap();
        }
        let want = std::fs::read_to_string(golden).unwrap_or_default();
        assert_eq!(out, want, "output changed; rerun with BLESS=1 if intended");
    }
}
