//! Checking a case's expectations (`expect:` and the `expect` steps): which memory each
//! reads and the check it makes (`values`, `one_of`, `permutation_of`, `compare`,
//! `undefined`, `reference`), lowered to an [`Expectation`].

use super::model::RawExpect;
use super::{limits, values, Check, Checker, CompareOp, Expectation, Tolerance};
use conform_plan::BufferInit;
use serde_yaml_ng::Value;

impl Checker<'_> {
    pub(super) fn expectations(
        &mut self,
        raw: &[RawExpect],
        buffers: &[BufferInit],
    ) -> Vec<Expectation> {
        let mut out = Vec::new();
        let mut used = std::mem::take(&mut self.expect_bytes);
        for (i, e) in raw.iter().enumerate() {
            let node = format!("expect[{i}]");
            if let Some(x) = self.expectation(&node, e, buffers, &mut used) {
                out.push(x);
            }
        }
        self.expect_bytes = used;
        out
    }

    pub(super) fn expectation(
        &mut self,
        node: &str,
        e: &RawExpect,
        buffers: &[BufferInit],
        used: &mut u64,
    ) -> Option<Expectation> {
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
                    "expectation needs one of values, one_of, permutation_of, compare, undefined: true, reference: true".to_string()
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
            "undefined" => (Check::Undefined, None),
            _ => (Check::Reference, None),
        };
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
                total.saturating_sub(e.at)
            }
        };
        // Overflow-checked: `at` and `count` are any u64 a case writes.
        let end =
            e.at.checked_add(count)
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
                        e.at,
                        u128::from(e.at) + u128::from(count),
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
            at: e.at,
            count,
            check,
        })
    }
}
