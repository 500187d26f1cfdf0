//! Checking a case's `steps`: each step's action (`dispatch`, `dispatch_indirect`, `barrier`,
//! `query`, `program_query`, `api`) lowered to a [`Step`], and its modifiers (`error`,
//! `equals`, `at_least`, `at_most`) to a [`StepCheck`].

use super::model::{STEP_ACTIONS, STEP_MODIFIERS};
use super::{show, Checker, QueryBound, StepCheck};
use crate::diag::did_you_mean;
use conform_plan::{
    ApiAction, ApiArgsError, ApiCall, BarrierBit, BufferInit, GlError, ProgramPname, QueryPname,
    Step,
};
use serde_yaml_ng::Value;

impl Checker<'_> {
    pub(super) fn steps(
        &mut self,
        raw: Option<&[Value]>,
        buffers: &[BufferInit],
    ) -> (Vec<Step>, Vec<StepCheck>) {
        let Some(raw) = raw else {
            return (
                vec![Step::Dispatch { groups: [1, 1, 1] }],
                vec![StepCheck {
                    error: GlError::NoError,
                    bound: None,
                }],
            );
        };
        let mut steps = Vec::new();
        let mut checks = Vec::new();
        for (i, v) in raw.iter().enumerate() {
            let node = format!("steps[{i}]");
            if let Some((s, c)) = self.step(&node, v, buffers) {
                steps.push(s);
                checks.push(c);
            }
        }
        (steps, checks)
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
        let hint = did_you_mean(name, known)
            .map(|m| format!("did you mean `{m}`?"))
            .unwrap_or_else(|| "the pnames are listed in harness/plan/src/pname.rs".into());
        self.err_at(at, format!("unknown {kind} pname `{name}`"), Some(hint));
        None
    }

    fn step(&mut self, node: &str, v: &Value, buffers: &[BufferInit]) -> Option<(Step, StepCheck)> {
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
        let step = match kind.as_str() {
            "dispatch" => Step::Dispatch {
                groups: self.groups(&at, val)?,
            },
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

    fn groups(&mut self, node: &str, v: &Value) -> Option<[u32; 3]> {
        let items = match v {
            Value::Sequence(s) if (1..=3).contains(&s.len()) => s,
            _ => {
                self.err_at(
                    node,
                    "dispatch takes [x], [x, y] or [x, y, z] group counts",
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
                        format!(
                            "group count {} is not a 32-bit unsigned integer",
                            show(item)
                        ),
                        None,
                    );
                    return None;
                }
            }
        }
        Some(g)
    }
}
