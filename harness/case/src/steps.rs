//! Checking a case's `steps`: each step's action lowered to a [`Step`] (`dispatch`,
//! `dispatch_indirect`, `barrier`, `query`, `program_query`, `api` here; the state-changing
//! ones in `state_steps.rs`; `expect` steps to a [`Step::Snapshot`] with their expectations),
//! and its modifiers (`error`, `equals`, `at_least`, `at_most`) to a [`StepCheck`].

use super::model::{RawExpect, STEP_ACTIONS, STEP_MODIFIERS};
use super::{show, Checker, Expectation, QueryBound, Snapshot, StepCheck};
use conform_io::diag::did_you_mean;
use conform_plan::{
    ApiAction, ApiArgsError, ApiCall, BarrierBit, BufferInit, GlError, ProgramPname, ProgramSource,
    QueryPname, Step,
};
use serde_yaml_ng::Value;

/// What the steps of a case lower to: the plan's steps, one check per step, and the
/// expectations of its `expect` steps.
pub(super) type CheckedSteps = (Vec<Step>, Vec<StepCheck>, Vec<Expectation>);

impl Checker<'_> {
    pub(super) fn steps(
        &mut self,
        raw: Option<&[Value]>,
        buffers: &[BufferInit],
        programs: &[ProgramSource],
    ) -> CheckedSteps {
        let Some(raw) = raw else {
            return (
                vec![Step::Dispatch { groups: [1, 1, 1] }],
                vec![StepCheck {
                    error: GlError::NoError,
                    bound: None,
                }],
                vec![],
            );
        };
        let mut steps = Vec::new();
        let mut checks = Vec::new();
        let mut expect = Vec::new();
        for (i, v) in raw.iter().enumerate() {
            let node = format!("steps[{i}]");
            let snapshot = Snapshot {
                index: steps.iter().filter(|s| **s == Step::Snapshot).count(),
                step: i,
            };
            let cx = StepCx {
                buffers,
                programs,
                snapshot,
            };
            if let Some((s, c)) = self.step(&node, v, &cx, &mut expect) {
                steps.push(s);
                checks.push(c);
            }
        }
        (steps, checks, expect)
    }

    /// An `expect` step: its expectations (read at `snapshot`) go to `out`.
    fn expect_step(
        &mut self,
        at: &str,
        v: &Value,
        cx: &StepCx,
        out: &mut Vec<Expectation>,
    ) -> Option<Step> {
        let Value::Sequence(items) = v else {
            self.err_at(
                at,
                "an expect step is a list of expectations, like the top-level `expect`",
                None,
            );
            return None;
        };
        if items.is_empty() {
            self.err_at(at, "an expect step needs at least one expectation", None);
            return None;
        }
        let mut ok = true;
        let first = out.len();
        let mut implicit = Vec::new();
        for (j, item) in items.iter().enumerate() {
            let node = format!("{at}[{j}]");
            let raw = match serde_yaml_ng::from_value::<RawExpect>(item.clone()) {
                Ok(r) => r,
                Err(e) => {
                    self.nested_serde_err(&node, &e);
                    ok = false;
                    continue;
                }
            };
            let mut used = std::mem::take(&mut self.expect_bytes);
            let checked = self.expectation(&node, &raw, cx.buffers, &mut used);
            self.expect_bytes = used;
            match checked {
                Some(mut x) => {
                    if raw.at.is_none() && raw.count.is_none() {
                        implicit.push((node, out.len() - first));
                    }
                    x.at_snapshot = Some(cx.snapshot);
                    out.push(x);
                }
                None => ok = false,
            }
        }
        if ok {
            let errors = self.diags.len();
            self.unchecked_tails(&implicit, &out[first..], cx.buffers);
            ok = self.diags.len() == errors;
        }
        ok.then_some(Step::Snapshot)
    }

    /// The pname `name` of a `kind` step, or an error at `at` with the nearest known name.
    fn pname<P>(
        &mut self,
        at: &str,
        kind: &str,
        name: &str,
        parse: fn(&str) -> Option<P>,
        known: impl Iterator<Item = &'static str>,
    ) -> Option<P> {
        if let Some(p) = parse(name) {
            return Some(p);
        }
        // A pname of the other step kind: say so rather than suggest a lookalike.
        let (other, other_parses) = if kind == "query" {
            ("program_query", ProgramPname::from_name(name).is_some())
        } else {
            ("query", QueryPname::from_name(name).is_some())
        };
        if other_parses {
            let hint = format!("`{name}` is a `{other}` pname");
            self.err_at(at, format!("unknown {kind} pname `{name}`"), Some(hint));
            return None;
        }
        let hint = did_you_mean(name, known)
            .map(|m| format!("did you mean `{m}`?"))
            .unwrap_or_else(|| "the pnames are listed in harness/plan/src/pname.rs".into());
        self.err_at(at, format!("unknown {kind} pname `{name}`"), Some(hint));
        None
    }

    fn step(
        &mut self,
        node: &str,
        v: &Value,
        cx: &StepCx,
        expect: &mut Vec<Expectation>,
    ) -> Option<(Step, StepCheck)> {
        let buffers = cx.buffers;
        let Value::Mapping(map) = v else {
            self.err_at(node, "a step is a map like `dispatch: [1, 1, 1]`", None);
            return None;
        };
        let mut action: Option<(String, &Value)> = None;
        for (k, val) in map {
            let key = k.as_str().unwrap_or("?").to_string();
            if STEP_ACTIONS.contains(&key.as_str()) {
                if let Some((first, _)) = &action {
                    self.err_key(
                        &format!("{node}.{key}"),
                        format!("a step has one action; this one has `{first}` and `{key}`"),
                        Some("split them into two steps".into()),
                    );
                    return None;
                }
                action = Some((key, val));
            } else if !STEP_MODIFIERS.contains(&key.as_str()) {
                let all: Vec<&str> = STEP_ACTIONS.iter().chain(STEP_MODIFIERS).copied().collect();
                let hint = match did_you_mean(&key, all.iter().copied()) {
                    Some(m) => format!("did you mean `{m}`?"),
                    None => format!("step keys are: {}", all.join(", ")),
                };
                self.err_key(
                    &format!("{node}.{key}"),
                    format!("unknown step key `{key}`"),
                    Some(hint),
                );
                return None;
            }
        }
        let Some((kind, val)) = action else {
            self.err_at(
                node,
                "step has no action",
                Some(format!("one of: {}", STEP_ACTIONS.join(", "))),
            );
            return None;
        };
        let at = format!("{node}.{kind}");
        if kind == "expect" {
            if let Some(m) = STEP_MODIFIERS.iter().find(|m| map.contains_key(**m)) {
                self.err_key(
                    &format!("{node}.{m}"),
                    format!("an expect step checks memory; `{m}` does not apply to it"),
                    None,
                );
                return None;
            }
        }
        let step = match kind.as_str() {
            "dispatch" => Step::Dispatch {
                groups: self.groups(&at, val, "dispatch", "group count")?,
            },
            "dispatch_group_size" => self.dispatch_group_size_step(&at, val)?,
            "uniform" => self.uniform_step(&at, val, cx.programs)?,
            "write" => {
                // A write past the end is a broken case, unless the step is there to see
                // glBufferSubData refuse it.
                let refused = map
                    .get("error")
                    .and_then(Value::as_str)
                    .is_some_and(|e| e.trim_start_matches("GL_") == "INVALID_VALUE");
                self.write_step(&at, val, buffers, refused)?
            }
            "clear" => self.clear_step(&at, val, buffers)?,
            "expect" => self.expect_step(&at, val, cx, expect)?,
            "dispatch_indirect" => {
                let Value::Mapping(m) = val else {
                    self.err_at(
                        &at,
                        "dispatch_indirect is {buffer: NAME, offset: BYTES}",
                        None,
                    );
                    return None;
                };
                for k in m.keys() {
                    let k = k.as_str().unwrap_or("?");
                    if k != "buffer" && k != "offset" {
                        self.err_key(
                            &format!("{at}.{k}"),
                            format!("unknown key `{k}` in dispatch_indirect"),
                            Some("keys are buffer, offset".into()),
                        );
                        return None;
                    }
                }
                let buffer = match m.get("buffer") {
                    Some(Value::String(s)) if s == "none" => None,
                    Some(b) => {
                        // Any buffer may hold dispatch arguments (a shader may have written
                        // them into a storage buffer); the step binds it to
                        // DISPATCH_INDIRECT_BUFFER for the dispatch.
                        let idx = self.buffer_ref(&format!("{at}.buffer"), b, buffers)?;
                        Some(idx)
                    }
                    None => {
                        self.err_at(
                            &at,
                            "dispatch_indirect needs `buffer` (a name, or none)",
                            None,
                        );
                        return None;
                    }
                };
                let offset = match m.get("offset") {
                    None => 0,
                    Some(o) => match o.as_i64() {
                        Some(o) => o,
                        None => {
                            self.err_at(
                                &format!("{at}.offset"),
                                "offset must be an integer (bytes)",
                                None,
                            );
                            return None;
                        }
                    },
                };
                Step::DispatchIndirect { buffer, offset }
            }
            "barrier" => {
                let list = match val {
                    Value::Sequence(s) => s.clone(),
                    other => vec![other.clone()],
                };
                let mut bits = Vec::new();
                for (j, b) in list.iter().enumerate() {
                    match serde_yaml_ng::from_value::<BarrierBit>(b.clone()) {
                        Ok(bit) => bits.push(bit),
                        Err(_) => {
                            self.err_at(
                                &format!("{at}[{j}]"),
                                format!("unknown barrier bit {}", show(b)),
                                Some("bits are shader_storage, atomic_counter, uniform, command, buffer_update, shader_image_access, all".into()),
                            );
                            return None;
                        }
                    }
                }
                Step::MemoryBarrier { bits }
            }
            "query" | "program_query" => {
                let Value::Mapping(m) = val else {
                    self.err_at(
                        &at,
                        format!(
                            "{kind} is {{pname: NAME{}}}",
                            if kind == "query" { ", index: I" } else { "" }
                        ),
                        None,
                    );
                    return None;
                };
                let Some(pname) = m.get("pname").and_then(Value::as_str) else {
                    self.err_at(&at, format!("{kind} needs `pname`"), None);
                    return None;
                };
                let pname = pname.strip_prefix("GL_").unwrap_or(pname).to_string();
                for k in m.keys() {
                    let k = k.as_str().unwrap_or("?");
                    let ok = k == "pname" || (k == "index" && kind == "query");
                    if !ok {
                        self.err_key(
                            &format!("{at}.{k}"),
                            format!("unknown key `{k}` in {kind}"),
                            None,
                        );
                        return None;
                    }
                }
                let at_pname = format!("{at}.pname");
                if kind == "query" {
                    let known = QueryPname::names();
                    let pname =
                        self.pname(&at_pname, &kind, &pname, QueryPname::from_name, known)?;
                    let index = match m.get("index") {
                        None => None,
                        Some(i) => match i.as_u64().and_then(|i| u32::try_from(i).ok()) {
                            Some(i) => Some(i),
                            None => {
                                self.err_at(
                                    &format!("{at}.index"),
                                    "index must be a small non-negative integer",
                                    None,
                                );
                                return None;
                            }
                        },
                    };
                    Step::Query { pname, index }
                } else {
                    let known = ProgramPname::names();
                    let pname =
                        self.pname(&at_pname, &kind, &pname, ProgramPname::from_name, known)?;
                    Step::ProgramQuery { pname }
                }
            }
            _ => {
                let Value::Mapping(m) = val else {
                    self.err_at(&at, "api is {call: NAME, args: [..]}", None);
                    return None;
                };
                let Some(call) = m.get("call").and_then(Value::as_str) else {
                    self.err_at(&at, "api needs `call`", None);
                    return None;
                };
                if ApiCall::from_name(call).is_none() {
                    let hint = did_you_mean(call, ApiCall::names())
                        .map(|m| format!("did you mean `{m}`?"))
                        .unwrap_or_else(|| "the api actions are listed in docs/DRIVERS.md".into());
                    self.err_at(
                        &format!("{at}.call"),
                        format!("unknown api action `{call}`"),
                        Some(hint),
                    );
                    return None;
                }
                let mut args = Vec::new();
                if let Some(a) = m.get("args") {
                    let Value::Sequence(items) = a else {
                        self.err_at(&format!("{at}.args"), "args is a list of integers", None);
                        return None;
                    };
                    for (j, item) in items.iter().enumerate() {
                        match item.as_i64() {
                            Some(x) => args.push(x),
                            None => {
                                self.err_at(&format!("{at}.args[{j}]"), "args are integers", None);
                                return None;
                            }
                        }
                    }
                }
                match ApiAction::parse(call, &args) {
                    Ok(action) => Step::Api(action),
                    Err(e) => {
                        let node = match &e {
                            ApiArgsError::Value { index, .. } => format!("{at}.args[{index}]"),
                            _ if m.contains_key("args") => format!("{at}.args"),
                            _ => at.clone(),
                        };
                        self.err_at(&node, e.to_string(), None);
                        return None;
                    }
                }
            }
        };
        let error = match map.get("error") {
            None => GlError::NoError,
            Some(e) => {
                let text = e
                    .as_str()
                    .unwrap_or("")
                    .trim_start_matches("GL_")
                    .to_string();
                match serde_yaml_ng::from_value::<GlError>(Value::String(text.clone())) {
                    Ok(g) => g,
                    Err(_) => {
                        self.err_at(
                            &format!("{node}.error"),
                            format!("unknown GL error {}", show(e)),
                            Some("errors are NO_ERROR, INVALID_ENUM, INVALID_VALUE, INVALID_OPERATION, OUT_OF_MEMORY".into()),
                        );
                        return None;
                    }
                }
            }
        };
        let mut bound = None;
        for key in ["equals", "at_least", "at_most"] {
            let Some(b) = map.get(key) else { continue };
            if !matches!(
                step,
                Step::Query { .. } | Step::ProgramQuery { .. } | Step::Api { .. }
            ) {
                self.err_key(
                    &format!("{node}.{key}"),
                    format!("`{key}` applies to query, program_query and api steps only"),
                    None,
                );
                return None;
            }
            if bound.is_some() {
                self.err_key(
                    &format!("{node}.{key}"),
                    "a query step takes one of equals, at_least, at_most",
                    None,
                );
                return None;
            }
            let int = |v: &Value| -> Option<i64> {
                v.as_i64().or_else(|| {
                    let t = v.as_str()?;
                    let h = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
                    i64::from_str_radix(h, 16).ok()
                })
            };
            let ints: Option<Vec<i64>> = match b {
                Value::Sequence(s) => s.iter().map(int).collect(),
                other => int(other).map(|x| vec![x]),
            };
            let Some(ints) = ints.filter(|v| !v.is_empty()) else {
                self.err_at(
                    &format!("{node}.{key}"),
                    format!(
                        "`{key}` takes an integer{}",
                        if key == "equals" {
                            " or a list of integers"
                        } else {
                            ""
                        }
                    ),
                    None,
                );
                return None;
            };
            bound = Some(match key {
                "equals" => QueryBound::Equals(ints),
                _ if ints.len() != 1 => {
                    self.err_at(
                        &format!("{node}.{key}"),
                        format!("`{key}` takes one integer"),
                        None,
                    );
                    return None;
                }
                "at_least" => QueryBound::AtLeast(ints[0]),
                _ => QueryBound::AtMost(ints[0]),
            });
        }
        Some((step, StepCheck { error, bound }))
    }

    /// `[x]`, `[x, y]` or `[x, y, z]` of 32-bit unsigned integers (missing ones are 1): the
    /// group counts (or sizes) of `what`, each a `unit`.
    pub(super) fn groups(
        &mut self,
        node: &str,
        v: &Value,
        what: &str,
        unit: &str,
    ) -> Option<[u32; 3]> {
        let items = match v {
            Value::Sequence(s) if (1..=3).contains(&s.len()) => s,
            _ => {
                self.err_at(
                    node,
                    format!("{what} takes [x], [x, y] or [x, y, z] {unit}s"),
                    None,
                );
                return None;
            }
        };
        let mut g = [1u32; 3];
        for (i, item) in items.iter().enumerate() {
            match item.as_u64().and_then(|x| u32::try_from(x).ok()) {
                Some(x) => g[i] = x,
                None => {
                    self.err_at(
                        &format!("{node}[{i}]"),
                        format!("{unit} {} is not a 32-bit unsigned integer", show(item)),
                        None,
                    );
                    return None;
                }
            }
        }
        Some(g)
    }
}

/// What checking one step needs to know about the rest of the case.
struct StepCx<'a> {
    buffers: &'a [BufferInit],
    programs: &'a [ProgramSource],
    /// The snapshot an `expect` step at this position would be.
    snapshot: Snapshot,
}
