//! Checking a case's expectations (`expect:` and the `expect` steps): which memory each
//! reads and the check it makes (`values`, `one_of`, `permutation_of`, `compare`,
//! `outcomes`, `undefined`, `reference`), lowered to an [`Expectation`].

use super::model::{RawExpect, RawOutcomes};
use super::{limits, values, Check, Checker, CompareOp, Expectation, Tolerance};
use conform_plan::{BufferInit, ElemType};
use serde_yaml_ng::Value;

impl Checker<'_> {
    pub(super) fn expectations(
        &mut self,
        raw: &[RawExpect],
        buffers: &[BufferInit],
    ) -> Vec<Expectation> {
        let mut out = Vec::new();
        let mut implicit = Vec::new();
        let mut used = std::mem::take(&mut self.expect_bytes);
        for (i, e) in raw.iter().enumerate() {
            let node = format!("expect[{i}]");
            if let Some(x) = self.expectation(&node, e, buffers, &mut used) {
                if e.at.is_none() && e.count.is_none() {
                    implicit.push((node, out.len()));
                }
                out.push(x);
            }
        }
        self.expect_bytes = used;
        // With one rejected, what it would have covered is unknown: no guess at the rest.
        if out.len() == raw.len() {
            self.unchecked_tails(&implicit, &out, buffers);
        }
        out
    }

    /// A list of values with neither `at` nor `count` is meant for the whole buffer: when it
    /// is shorter, the elements after it must be checked (or marked `undefined`) by another
    /// expectation of the same point (`group`: the top-level `expect`, or one `expect` step),
    /// or the case would pass whatever a backend leaves there. `implicit`: the node and the
    /// index in `group` of each expectation written without `at` and `count`.
    pub(super) fn unchecked_tails(
        &mut self,
        implicit: &[(String, usize)],
        group: &[Expectation],
        buffers: &[BufferInit],
    ) {
        for (node, k) in implicit {
            let x = &group[*k];
            let Some(form) = list_form(&x.check) else {
                continue;
            };
            let b = &buffers[x.buffer];
            let end = x.byte_range().end;
            let mut ranges: Vec<std::ops::Range<usize>> = group
                .iter()
                .filter(|o| o.buffer == x.buffer)
                .map(Expectation::byte_range)
                .collect();
            ranges.sort_by_key(|r| r.start);
            // The first gap after this expectation's range, if any.
            let mut covered = end;
            let mut gap_end = b.bytes.len();
            for r in ranges {
                if r.start <= covered {
                    covered = covered.max(r.end);
                } else {
                    gap_end = r.start;
                    break;
                }
            }
            if covered >= b.bytes.len() {
                continue;
            }
            let size = x.elem.size();
            let (n, holds) = (x.count, b.bytes.len() / size);
            self.err_key(
                &format!("{node}.{form}"),
                format!(
                    "`{form}:` has {n} elements but buffer `{}` holds {holds} ({} elements); elements {}..{} are checked by no expectation",
                    b.name,
                    x.elem,
                    covered / size,
                    gap_end.div_ceil(size),
                ),
                Some(format!(
                    "list all {holds}, or give the range you mean: `count: {n}` checks elements 0..{n} only (`at:` moves the start; `undefined: true` with `at` and `count` marks elements the spec leaves undefined)"
                )),
            );
        }
    }

    pub(super) fn expectation(
        &mut self,
        node: &str,
        e: &RawExpect,
        buffers: &[BufferInit],
        used: &mut u64,
    ) -> Option<Expectation> {
        let at = e.at.unwrap_or(0);
        let buffer = self.buffer_ref(&format!("{node}.buffer"), &e.buffer, buffers)?;
        let b = &buffers[buffer];
        let elem = match &e.elem {
            Some(t) => self.elem(&format!("{node}.type"), t)?,
            None => b.elem,
        };
        let forms: Vec<&str> = [
            ("values", e.values.is_some()),
            ("one_of", e.one_of.is_some()),
            ("permutation_of", e.permutation_of.is_some()),
            ("compare", e.compare.is_some()),
            ("outcomes", e.outcomes.is_some()),
            ("undefined", e.undefined == Some(true)),
            ("reference", e.reference == Some(true)),
        ]
        .into_iter()
        .filter(|(_, present)| *present)
        .map(|(k, _)| k)
        .collect();
        if forms.len() != 1 {
            self.err_at(
                node,
                if forms.is_empty() {
                    "expectation needs one of values, one_of, permutation_of, compare, outcomes, undefined: true, reference: true".to_string()
                } else {
                    format!("expectation has more than one check: {}", forms.join(", "))
                },
                None,
            );
            return None;
        }
        if e.tolerance.is_some() && forms[0] != "values" {
            self.err_key(
                &format!("{node}.tolerance"),
                "tolerance applies to `values` only",
                None,
            );
            return None;
        }
        let encode = |cx: &mut Self, at: &str, v: &Value, used: &mut u64| -> Option<Vec<u8>> {
            let left = limits::left(limits::MAX_EXPECT_BYTES, *used);
            match values::encode_data(v, elem, left) {
                Ok(b) => {
                    *used += b.len() as u64;
                    Some(b)
                }
                Err(err) => {
                    cx.value_err(at, err);
                    None
                }
            }
        };
        let (check, len) = match forms[0] {
            "values" => {
                let bytes = encode(self, &format!("{node}.values"), e.values.as_ref()?, used)?;
                let len = bytes.len();
                match e.tolerance {
                    None => (Check::Exact(bytes), Some(len)),
                    Some(t) => {
                        if !elem.scalar.is_float() {
                            self.err_key(
                                &format!("{node}.tolerance"),
                                format!("tolerance needs a float type, not {elem}"),
                                None,
                            );
                            return None;
                        }
                        let tol = match (t.ulp, t.abs, t.rel) {
                            (Some(u), None, None) => Tolerance::Ulp(u),
                            (None, Some(a), None) if a >= 0.0 => Tolerance::Abs(a),
                            (None, None, Some(r)) if r >= 0.0 => Tolerance::Rel(r),
                            _ => {
                                self.err_at(
                                    &format!("{node}.tolerance"),
                                    "tolerance is one of {ulp: N}, {abs: X}, {rel: X} with X >= 0",
                                    None,
                                );
                                return None;
                            }
                        };
                        (Check::Within(bytes, tol), Some(len))
                    }
                }
            }
            "one_of" => {
                let alts = e.one_of.as_ref()?;
                if alts.len() < 2 {
                    self.err_key(
                        &format!("{node}.one_of"),
                        "one_of needs at least two alternatives",
                        Some("use `values` for a single one".into()),
                    );
                    return None;
                }
                let mut list = Vec::new();
                for (j, a) in alts.iter().enumerate() {
                    list.push(encode(self, &format!("{node}.one_of[{j}]"), a, used)?);
                }
                let len = list[0].len();
                if let Some(j) = list.iter().position(|l| l.len() != len) {
                    self.err_at(
                        &format!("{node}.one_of[{j}]"),
                        format!(
                            "alternative {j} has {} elements, alternative 0 has {}",
                            list[j].len() / elem.size(),
                            len / elem.size()
                        ),
                        None,
                    );
                    return None;
                }
                (Check::OneOf(list), Some(len))
            }
            "permutation_of" => {
                let bytes = encode(
                    self,
                    &format!("{node}.permutation_of"),
                    e.permutation_of.as_ref()?,
                    used,
                )?;
                let len = bytes.len();
                (Check::Permutation(bytes), Some(len))
            }
            "compare" => {
                let c = e.compare.as_ref()?;
                let Some(op) = CompareOp::parse(&c.op) else {
                    let ops: Vec<&str> = CompareOp::ALL.iter().map(|o| o.symbol()).collect();
                    self.err_at(
                        &format!("{node}.compare.op"),
                        format!("unknown comparison `{}`", c.op),
                        Some(format!(
                            "the operators are {} (observed OP expected; quote them in YAML: op: \"<\")",
                            ops.join(" ")
                        )),
                    );
                    return None;
                };
                let bytes = encode(self, &format!("{node}.compare.values"), &c.values, used)?;
                let len = bytes.len();
                (Check::Compare(op, bytes), Some(len))
            }
            "outcomes" => {
                let o = e.outcomes.as_ref()?;
                let (check, len) = self.outcome_set(node, o, elem, e.count, used)?;
                (check, len)
            }
            "undefined" => (Check::Undefined, None),
            _ => (Check::Reference, None),
        };
        if let (Check::Outcomes { width, .. }, None) = (&check, e.count) {
            // Without `count`: the rest of the buffer, which must hold whole tuples.
            let total = (b.bytes.len() / elem.size()) as u64;
            let rest = total.saturating_sub(at);
            if !rest.is_multiple_of(*width as u64) {
                self.err_at(
                    node,
                    format!("the {rest} elements from {} to the end of buffer `{}` are not whole tuples of {width}", at, b.name),
                    Some("give `count`, a multiple of `outcomes.width`".into()),
                );
                return None;
            }
        }
        let count = match (e.count, len) {
            (Some(c), Some(l)) if c.checked_mul(elem.size() as u64) != Some(l as u64) => {
                self.err_key(
                    &format!("{node}.count"),
                    format!("count is {c} but {} values are given", l / elem.size()),
                    None,
                );
                return None;
            }
            (_, Some(l)) => (l / elem.size()) as u64,
            (Some(c), None) => c,
            (None, None) => {
                if matches!(check, Check::Undefined) {
                    self.err_at(node, "an undefined range needs `count`", None);
                    return None;
                }
                // `reference: true` without count: the rest of the buffer.
                let total = (b.bytes.len() / elem.size()) as u64;
                total.saturating_sub(at)
            }
        };
        // Overflow-checked: `at` and `count` are any u64 a case writes.
        let end = at
            .checked_add(count)
            .and_then(|n| n.checked_mul(elem.size() as u64));
        if end.is_none_or(|end| end > b.bytes.len() as u64) || count == 0 {
            let cap = b.bytes.len() / elem.size();
            self.err_at(
                node,
                if count == 0 {
                    "expectation checks no elements".to_string()
                } else {
                    format!(
                        "expectation covers {elem} elements {}..{} but buffer `{}` holds {} bytes ({cap} elements of {elem})",
                        at,
                        u128::from(at) + u128::from(count),
                        b.name,
                        b.bytes.len()
                    )
                },
                Some("grow the buffer's data or `size`, or check fewer elements".into()),
            );
            return None;
        }
        Some(Expectation {
            line: self.index.node(node).line,
            at_snapshot: None,
            buffer,
            elem,
            at,
            count,
            check,
        })
    }
}

impl Checker<'_> {
    /// `outcomes: {width, allowed}`: the allowed tuples, each `width` elements of `elem`.
    /// The expectation's length is left to `count` (or the rest of the buffer), which must be
    /// a multiple of `width`.
    fn outcome_set(
        &mut self,
        node: &str,
        o: &RawOutcomes,
        elem: ElemType,
        count: Option<u64>,
        used: &mut u64,
    ) -> Option<(Check, Option<usize>)> {
        if o.width == 0 || o.width > MAX_OUTCOME_WIDTH {
            self.err_key(
                &format!("{node}.outcomes.width"),
                format!(
                    "width is {}: a tuple has 1 to {MAX_OUTCOME_WIDTH} elements",
                    o.width
                ),
                None,
            );
            return None;
        }
        let width = o.width as usize;
        if o.allowed.is_empty() {
            self.err_key(
                &format!("{node}.outcomes.allowed"),
                "no allowed outcome: every run would fail",
                Some("list at least one tuple".into()),
            );
            return None;
        }
        let mut allowed: Vec<Vec<u8>> = Vec::new();
        for (j, a) in o.allowed.iter().enumerate() {
            let at = format!("{node}.outcomes.allowed[{j}]");
            let left = limits::left(limits::MAX_EXPECT_BYTES, *used);
            let bytes = match values::encode_data(a, elem, left) {
                Ok(b) => b,
                Err(err) => {
                    self.value_err(&at, err);
                    return None;
                }
            };
            *used += bytes.len() as u64;
            if bytes.len() != width * elem.size() {
                self.err_at(
                    &at,
                    format!(
                        "outcome {j} has {} elements, the width is {width}",
                        bytes.len() / elem.size()
                    ),
                    None,
                );
                return None;
            }
            if allowed.contains(&bytes) {
                self.err_at(&at, format!("outcome {j} is listed twice"), None);
                return None;
            }
            allowed.push(bytes);
        }
        if let Some(c) = count {
            if !c.is_multiple_of(o.width) {
                self.err_key(
                    &format!("{node}.count"),
                    format!("count {c} is not a multiple of the outcome width {width}"),
                    None,
                );
                return None;
            }
        }
        Some((Check::Outcomes { width, allowed }, None))
    }
}

/// The key of a check whose length comes from its list of values (`compare` names its own
/// `values`), or None for the checks whose range is given otherwise.
fn list_form(check: &Check) -> Option<&'static str> {
    match check {
        Check::Exact(_) | Check::Within(..) => Some("values"),
        Check::OneOf(_) => Some("one_of"),
        Check::Permutation(_) => Some("permutation_of"),
        Check::Compare(..) => Some("compare"),
        Check::Outcomes { .. } | Check::Undefined | Check::Reference => None,
    }
}

/// Most elements in one outcome tuple (litmus tests have a handful).
pub const MAX_OUTCOME_WIDTH: u64 = 64;
