//! Failure evidence: what the HTML report shows for a failing result, stored in the journal
//! so a report can be rebuilt without the case files: program source, steps, and each
//! checked buffer's expected and actual elements in the declared type. Bounded in size.

use crate::checks::{differing, failing_comparison, Memory};
use crate::results::{BufferDump, Evidence, ProgramDump};
use conform_case::show::{describe_step, when};
use conform_case::values::format_elem;
use conform_case::{Case, Check, Expectation, Snapshot};
use conform_plan::{ElemType, Outcome};

/// Most elements shown per buffer (a window around the first difference beyond that).
pub const MAX_DUMP_ELEMS: usize = 256;
/// Most buffers shown per result.
pub const MAX_DUMPS: usize = 8;
/// Most characters of program source kept per program.
pub const MAX_PROGRAM_CHARS: usize = 32 * 1024;

/// The evidence for a failing result. `outcome` is the backend's (None after a crash or a
/// timeout), `golden` the reference's, for `reference: true` expectations.
pub fn collect(case: &Case, outcome: Option<&Outcome>, golden: Option<&Outcome>) -> Evidence {
    let programs = case
        .plan
        .programs
        .iter()
        .map(|p| {
            let (text, truncated) = if p.text.is_empty() && !p.words.is_empty() {
                (format!("({} SPIR-V words)", p.words.len()), false)
            } else if p.text.chars().count() > MAX_PROGRAM_CHARS {
                (p.text.chars().take(MAX_PROGRAM_CHARS).collect(), true)
            } else {
                (p.text.clone(), false)
            };
            ProgramDump {
                language: p.language.name().to_string(),
                origin: p.origin.clone(),
                first_line: p.first_line,
                text,
                truncated,
            }
        })
        .collect();
    let steps = case
        .plan
        .steps
        .iter()
        .zip(&case.step_checks)
        .map(|(s, c)| match s {
            // An expect step checks memory, not a GL error.
            conform_plan::Step::Snapshot => describe_step(s),
            _ => format!("{}, expect {}", describe_step(s), c.error),
        })
        .collect();
    let uniforms = case
        .plan
        .uniforms
        .iter()
        .map(|u| {
            let size = u.elem.size().max(1);
            let values: Vec<String> = u
                .bytes
                .chunks(size)
                .take(64)
                .map(|e| format_elem(e, u.elem))
                .collect();
            let more = if u.bytes.len() / size > 64 {
                ", ..."
            } else {
                ""
            };
            format!("{} ({}) = {}{more}", u.name, u.elem, values.join(", "))
        })
        .collect();
    let memory = match outcome {
        Some(o) if o.build.failed_at.is_none() => {
            dumps(case, Memory::of(o), golden.map(Memory::of))
        }
        _ => vec![],
    };
    Evidence {
        programs,
        uniforms,
        steps,
        memory,
    }
}

/// Per checked buffer and point (each `expect` step in step order, then after the last
/// step): the whole buffer in the expectations' type when they share one, else one dump per
/// expectation.
fn dumps(case: &Case, actual: Memory, golden: Option<Memory>) -> Vec<BufferDump> {
    let mut points: Vec<Option<Snapshot>> = case.expect.iter().map(|x| x.at_snapshot).collect();
    // Snapshots by their index, the final memory (None) last.
    points.sort_by_key(|p| p.map_or(usize::MAX, |s| s.index));
    points.dedup();
    let mut out = Vec::new();
    for point in points {
        for (bi, b) in case.plan.buffers.iter().enumerate() {
            let xs: Vec<&Expectation> = case
                .expect
                .iter()
                .filter(|x| x.buffer == bi && x.at_snapshot == point)
                .collect();
            let Some(first) = xs.first() else { continue };
            let Some(bytes) = actual.for_expectation(first).and_then(|m| m.get(bi)) else {
                continue;
            };
            let gold = golden
                .and_then(|g| g.for_expectation(first))
                .and_then(|m| m.get(bi))
                .map(Vec::as_slice);
            let at = when(first);
            if xs.iter().all(|x| x.elem == first.elem) {
                out.push(dump(
                    &format!("{}{at}", b.name),
                    first.elem,
                    bytes,
                    &xs,
                    gold,
                ));
            } else {
                for x in xs {
                    let name = format!("{} ({} {}..{}{at})", b.name, x.elem, x.at, x.at + x.count);
                    out.push(dump(&name, x.elem, bytes, &[x], gold));
                }
            }
            if out.len() >= MAX_DUMPS {
                out.truncate(MAX_DUMPS);
                return out;
            }
        }
    }
    out
}

fn dump(
    name: &str,
    elem: ElemType,
    bytes: &[u8],
    xs: &[&Expectation],
    golden: Option<&[u8]>,
) -> BufferDump {
    let size = elem.size();
    let total = bytes.len() / size;
    let mut expected: Vec<Option<String>> = vec![None; total];
    let mut differs: Vec<u64> = Vec::new();
    let mut checks = Vec::new();
    for x in xs {
        let range = x.byte_range();
        let Some(act) = bytes.get(range.clone()) else {
            checks.push(format!(
                "elements {}..{}: past the buffer's end",
                x.at,
                x.at + x.count
            ));
            continue;
        };
        let (want, tol, what): (Option<&[u8]>, _, String) = match &x.check {
            Check::Exact(v) => (Some(v), None, "exact".into()),
            Check::Within(v, t) => (Some(v), Some(*t), format!("within {t:?}").to_lowercase()),
            Check::OneOf(alts) => {
                // Show the alternative closest to what the backend produced.
                let best = alts
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, a)| differing(a, act, x.elem, None).len())
                    .map(|(i, _)| i)
                    .unwrap_or(0);
                (
                    alts.get(best).map(Vec::as_slice),
                    None,
                    format!("one of {} alternatives (closest: {best})", alts.len()),
                )
            }
            Check::Permutation(v) => (
                Some(v),
                None,
                "a permutation of the values shown (positions are not checked)".into(),
            ),
            Check::Compare(op, v) => (
                Some(v),
                None,
                format!("observed {} the value shown", op.symbol()),
            ),
            Check::Outcomes { width, allowed } => (
                None,
                None,
                format!(
                    "tuples of {width}, each one of {} allowed outcomes",
                    allowed.len()
                ),
            ),
            Check::Reference => (
                golden.and_then(|g| g.get(range.clone())),
                None,
                "equal to the reference interpreter".into(),
            ),
            Check::Undefined => (None, None, "undefined, not checked".into()),
        };
        checks.push(format!("elements {}..{}: {what}", x.at, x.at + x.count));
        if let Check::Outcomes { width, allowed } = &x.check {
            for i in crate::checks::forbidden_tuples(act, x.elem, *width, allowed) {
                differs.extend((0..*width).map(|k| x.at + (i * width + k) as u64));
            }
        }
        let Some(want) = want else { continue };
        for (k, e) in want.chunks(size).enumerate() {
            if let Some(slot) = expected.get_mut(x.at as usize + k) {
                *slot = Some(match &x.check {
                    Check::Compare(op, _) => format!("{} {}", op.symbol(), format_elem(e, elem)),
                    _ => format_elem(e, elem),
                });
            }
        }
        match &x.check {
            Check::Permutation(_) => {}
            Check::Compare(op, _) => differs.extend(
                failing_comparison(act, want, x.elem, *op)
                    .iter()
                    .map(|i| x.at + i),
            ),
            _ => differs.extend(differing(want, act, x.elem, tol).iter().map(|i| x.at + i)),
        }
    }
    differs.sort_unstable();
    differs.dedup();
    // The window shown: everything if small, else MAX_DUMP_ELEMS from just before the first
    // difference.
    let start = if total <= MAX_DUMP_ELEMS {
        0
    } else {
        let d = differs.first().copied().unwrap_or(0) as usize;
        (d.saturating_sub(16) / 16 * 16).min(total - MAX_DUMP_ELEMS)
    };
    let end = (start + MAX_DUMP_ELEMS).min(total);
    BufferDump {
        name: name.to_string(),
        elem: elem.to_string(),
        first: start as u64,
        expected: expected[start..end].to_vec(),
        actual: bytes[start * size..end * size]
            .chunks(size)
            .map(|e| format_elem(e, elem))
            .collect(),
        total: total as u64,
        differs: differs
            .into_iter()
            .filter(|&i| (start as u64..end as u64).contains(&i))
            .collect(),
        check: checks.join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const CASE: &str = r#"
spec: [X-1]
program:
  language: glsl
  source: |
    #version 430
    layout(local_size_x = 1) in;
    void main() {}
buffers:
  - {name: out, binding: 0, type: u32, data: [0, 0, 0, 0, 0, 0]}
uniforms:
  - {name: rounds, type: i32, value: -5}
steps:
  - dispatch: [1, 1, 1]
expect:
  - {buffer: out, at: 1, values: [1, 2, 3]}
"#;

    #[test]
    fn dumps_expected_and_actual_typed_with_unchecked_as_none() {
        let case = conform_case::parse(Path::new("cases/t/c.yaml"), CASE, None).unwrap();
        let o = Outcome {
            buffers: vec![conform_plan::bytes::from_u32s(&[9, 1, 7, 3, 0, 0])],
            ..Outcome::default()
        };
        let ev = collect(&case, Some(&o), None);
        assert_eq!(ev.programs.len(), 1);
        assert!(ev.programs[0].text.contains("void main()"));
        assert_eq!(ev.steps.len(), 1);
        assert_eq!(ev.uniforms, ["rounds (i32) = -5"]);
        let m = &ev.memory[0];
        assert_eq!(m.name, "out");
        assert_eq!(m.elem, "u32");
        assert_eq!(
            m.expected,
            [
                None,
                Some("1".into()),
                Some("2".into()),
                Some("3".into()),
                None,
                None
            ]
        );
        assert_eq!(m.actual, ["9", "1", "7", "3", "0", "0"]);
        assert_eq!(m.differs, [2]);
        assert_eq!(m.total, 6);
        // A crash has no memory, but the program and steps are still there.
        let ev = collect(&case, None, None);
        assert!(ev.memory.is_empty());
        assert_eq!(ev.programs.len(), 1);
    }

    #[test]
    fn expect_steps_dump_their_snapshot_before_the_final_memory() {
        let text = r##"
spec: [X-1]
program: {language: glsl, source: "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}"}
buffers:
  - {name: out, binding: 0, type: u32, data: [0, 0]}
steps:
  - dispatch: [1]
  - expect:
      - {buffer: out, values: [1, 2]}
  - dispatch: [1]
expect:
  - {buffer: out, at: 1, compare: {op: "<", values: [3]}}
"##;
        let case = conform_case::parse(Path::new("cases/t/c.yaml"), text, None).unwrap();
        let o = Outcome {
            buffers: vec![conform_plan::bytes::from_u32s(&[5, 4])],
            snapshots: vec![vec![conform_plan::bytes::from_u32s(&[1, 9])]],
            ..Outcome::default()
        };
        let ev = collect(&case, Some(&o), None);
        let names: Vec<&str> = ev.memory.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["out, after step 2", "out"]);
        assert_eq!(ev.memory[0].actual, ["1", "9"]);
        assert_eq!(ev.memory[0].differs, [1]);
        assert_eq!(ev.memory[1].expected, [None, Some("< 3".into())]);
        assert_eq!(ev.memory[1].differs, [1], "4 < 3 fails");
        assert_eq!(ev.steps[1], "expect: memory is read here and checked");
    }
}
