//! Checking the steps that change state between dispatches: `uniform` (glProgramUniform*),
//! `write` (glBufferSubData), `clear` (glClearBufferData) and the variable-size dispatch
//! `dispatch_group_size` (glDispatchComputeGroupSizeARB), each lowered to its [`Step`].

use super::{limits, show, values, Checker};
use conform_io::diag::did_you_mean;
use conform_plan::{
    BufferInit, BufferKind, ElemType, Language, ProgramSource, Step, UniformSet, UniformTarget,
    UniformType, UNIFORM_SCALARS,
};
use serde_yaml_ng::{Mapping, Value};

impl Checker<'_> {
    /// The map of a `kind` step whose keys must be among `keys`, or an error at `at`.
    fn step_map<'v>(
        &mut self,
        at: &str,
        kind: &str,
        v: &'v Value,
        keys: &[&str],
        shape: &str,
    ) -> Option<&'v Mapping> {
        let Value::Mapping(m) = v else {
            self.err_at(at, format!("{kind} is {shape}"), None);
            return None;
        };
        for k in m.keys() {
            let k = k.as_str().unwrap_or("?");
            if !keys.contains(&k) {
                let hint = match did_you_mean(k, keys.iter().copied()) {
                    Some(m) => format!("did you mean `{m}`?"),
                    None => format!("{kind} is {shape}"),
                };
                self.err_key(
                    &format!("{at}.{k}"),
                    format!("unknown key `{k}` in {kind}"),
                    Some(hint),
                );
                return None;
            }
        }
        Some(m)
    }

    /// `uniform: {name: N | location: L, type: T, value: V}`.
    pub(super) fn uniform_step(
        &mut self,
        at: &str,
        v: &Value,
        programs: &[ProgramSource],
    ) -> Option<Step> {
        let shape = "{name: NAME or location: L, type: T, value: V}";
        let m = self.step_map(
            at,
            "uniform",
            v,
            &["name", "location", "type", "value"],
            shape,
        )?;
        let language = programs.first().map(|p| p.language);
        if language == Some(Language::Nvasm) {
            self.err_at(
                at,
                "uniform steps set GLSL or SPIR-V uniforms; NV assembly programs have none",
                Some("NV assembly parameters are `program_local`/`program_env` buffers".into()),
            );
            return None;
        }
        let target = match (m.get("name"), m.get("location")) {
            (Some(_), Some(_)) => {
                self.err_key(
                    &format!("{at}.location"),
                    "a uniform step names its uniform by `name` or by `location`, not both",
                    None,
                );
                return None;
            }
            (None, None) => {
                self.err_at(at, "a uniform step needs `name` or `location`", None);
                return None;
            }
            (Some(n), None) => {
                let name = match n {
                    Value::String(s) if !s.is_empty() && !s.contains(char::is_whitespace) => s,
                    other => {
                        self.err_at(
                            &format!("{at}.name"),
                            format!("uniform name {} is not a GLSL name", show(other)),
                            Some("as glGetUniformLocation takes it: u, a[2], s.f".into()),
                        );
                        return None;
                    }
                };
                if matches!(language, Some(Language::Spirv | Language::SpirvAsm)) {
                    self.err_key(
                        &format!("{at}.name"),
                        "SPIR-V uniforms are set by `location`: whether GL knows their names is implementation-dependent (ARB_gl_spirv, section 7.3.1)",
                        Some("decorate the variable with Location and write `location: L`".into()),
                    );
                    return None;
                }
                UniformTarget::Name(name.clone())
            }
            (None, Some(l)) => match l.as_i64().and_then(|l| i32::try_from(l).ok()) {
                Some(l) => UniformTarget::Location(l),
                None => {
                    self.err_at(
                        &format!("{at}.location"),
                        format!("location {} is not a 32-bit integer", show(l)),
                        None,
                    );
                    return None;
                }
            },
        };
        let Some(text) = m.get("type") else {
            self.err_at(at, "a uniform step needs `type`", None);
            return None;
        };
        let ty = self.uniform_type(&format!("{at}.type"), text)?;
        let Some(value) = m.get("value") else {
            self.err_at(at, "a uniform step needs `value`", None);
            return None;
        };
        let bytes = self.uniform_values(&format!("{at}.value"), value, ty)?;
        Some(Step::Uniform(UniformSet { target, ty, bytes }))
    }

    /// A uniform step's `type`: one some glUniform* command takes.
    fn uniform_type(&mut self, at: &str, v: &Value) -> Option<UniformType> {
        let text = v.as_str().unwrap_or("");
        let Some(ty) = UniformType::parse(text) else {
            self.err_at(
                at,
                format!("unknown uniform type {}", show(v)),
                Some("u32 i32 f32 f64 u64 i64, vectors like f32x4, matrices f32mat4 or f64mat2x3 (columns x rows)".into()),
            );
            return None;
        };
        if !UNIFORM_SCALARS.contains(&ty.scalar()) {
            self.err_at(
                at,
                format!("no glUniform* command takes {} values", ty.scalar().name()),
                Some("uniforms are set as f32, f64, i32, u32, i64 or u64".into()),
            );
            return None;
        }
        Some(ty)
    }

    /// A uniform step's `value`: one value or a list, a whole number of `ty` values.
    fn uniform_values(&mut self, at: &str, v: &Value, ty: UniformType) -> Option<Vec<u8>> {
        let list = match v {
            Value::Sequence(_) => v.clone(),
            other => Value::Sequence(vec![other.clone()]),
        };
        let n = match &list {
            Value::Sequence(items) => items.len(),
            _ => 0,
        };
        let per = ty.components();
        if n == 0 || n % per != 0 {
            let what = match ty {
                UniformType::Elem(e) if e.lanes == 1 => "one value each".to_string(),
                UniformType::Elem(e) => format!("{} components each", e.lanes),
                UniformType::Matrix { columns, rows, .. } => {
                    format!("{columns} columns x {rows} rows each, column-major")
                }
            };
            self.err_at(
                at,
                format!("{n} values do not make whole {ty} values ({per} values: {what})"),
                None,
            );
            return None;
        }
        match values::encode_data(
            &list,
            ElemType::scalar(ty.scalar()),
            limits::MAX_BUFFER_BYTES,
        ) {
            Ok(b) => Some(b),
            Err(e) => {
                let at = if matches!(v, Value::Sequence(_)) {
                    at.to_string()
                } else {
                    // A single value was wrapped in a list: its errors are the value's own.
                    e.at.strip_prefix("[0]")
                        .map_or(at.to_string(), |rest| format!("{at}{rest}"))
                };
                self.err_at(&at, e.message, e.hint);
                None
            }
        }
    }

    /// The buffer a `write` or `clear` names, which must be a GL buffer object.
    fn buffer_object(
        &mut self,
        at: &str,
        kind: &str,
        m: &Mapping,
        buffers: &[BufferInit],
    ) -> Option<usize> {
        let Some(b) = m.get("buffer") else {
            self.err_at(at, format!("{kind} needs `buffer`"), None);
            return None;
        };
        let index = self.buffer_ref(&format!("{at}.buffer"), b, buffers)?;
        let what = match buffers[index].kind {
            BufferKind::ProgramLocal | BufferKind::ProgramEnv => "holds NV program parameters",
            BufferKind::Image(_) => "is an image",
            BufferKind::Texture(_) => "is a sampled texture",
            _ => return Some(index),
        };
        self.err_at(
            &format!("{at}.buffer"),
            format!(
                "`{}` {what}, not a buffer object: {kind} does not apply",
                buffers[index].name
            ),
            None,
        );
        None
    }

    /// `write: {buffer: NAME, offset: BYTES, type: T, data: DATA}`; it must fit in the buffer
    /// unless `refused` (the step expects INVALID_VALUE, GL 4.6 section 6.2).
    pub(super) fn write_step(
        &mut self,
        at: &str,
        v: &Value,
        buffers: &[BufferInit],
        refused: bool,
    ) -> Option<Step> {
        let shape = "{buffer: NAME, offset: BYTES, type: T, data: DATA}";
        let m = self.step_map(at, "write", v, &["buffer", "offset", "type", "data"], shape)?;
        let buffer = self.buffer_object(at, "write", m, buffers)?;
        let b = &buffers[buffer];
        let offset = match m.get("offset") {
            None => 0,
            Some(o) => match o.as_u64() {
                Some(o) => o,
                None => {
                    self.err_at(
                        &format!("{at}.offset"),
                        format!("offset {} is not a byte count (an integer >= 0)", show(o)),
                        None,
                    );
                    return None;
                }
            },
        };
        let elem = match m.get("type") {
            None => b.elem,
            Some(t) => {
                let text = t.as_str().unwrap_or("").to_string();
                self.elem(&format!("{at}.type"), &text)?
            }
        };
        let Some(data) = m.get("data") else {
            self.err_at(at, "write needs `data`", None);
            return None;
        };
        let bytes = match values::encode_data(data, elem, limits::MAX_BUFFER_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.value_err(&format!("{at}.data"), e);
                return None;
            }
        };
        if bytes.is_empty() {
            self.err_at(&format!("{at}.data"), "write has no data", None);
            return None;
        }
        let end = offset.saturating_add(bytes.len() as u64);
        if end > b.bytes.len() as u64 && !refused {
            self.err_at(
                at,
                format!(
                    "write covers bytes {offset}..{end} but buffer `{}` holds {} bytes",
                    b.name,
                    b.bytes.len()
                ),
                Some("glBufferSubData cannot grow a buffer: give the buffer a larger `size`, or write `error: INVALID_VALUE` to see it refused".into()),
            );
            return None;
        }
        Some(Step::WriteBuffer {
            buffer,
            offset,
            bytes,
        })
    }

    /// `clear: {buffer: NAME}`.
    pub(super) fn clear_step(
        &mut self,
        at: &str,
        v: &Value,
        buffers: &[BufferInit],
    ) -> Option<Step> {
        let m = self.step_map(at, "clear", v, &["buffer"], "{buffer: NAME}")?;
        let buffer = self.buffer_object(at, "clear", m, buffers)?;
        Some(Step::ClearBuffer { buffer })
    }

    /// `dispatch_group_size: {groups: [x, y, z], size: [x, y, z]}`.
    pub(super) fn dispatch_group_size_step(&mut self, at: &str, v: &Value) -> Option<Step> {
        let shape = "{groups: [x, y, z], size: [x, y, z]}";
        let m = self.step_map(at, "dispatch_group_size", v, &["groups", "size"], shape)?;
        let (Some(g), Some(s)) = (m.get("groups"), m.get("size")) else {
            self.err_at(
                at,
                "dispatch_group_size needs `groups` (group counts) and `size` (the work group size)",
                None,
            );
            return None;
        };
        let groups = self.groups(&format!("{at}.groups"), g, "groups", "group count")?;
        let size = self.groups(&format!("{at}.size"), s, "size", "work group size")?;
        Some(Step::DispatchGroupSize { groups, size })
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse, Check, CompareOp, Snapshot};
    use conform_plan::{Scalar, Step, UniformTarget, UniformType};
    use std::path::Path;

    const CASE: &str = r#"
spec: [T-EXEC, "external:piglit"]
program:
  language: glsl
  source: |
    #version 430
    layout(local_size_x = 1) in;
    void main() {}
buffers:
  - {name: out, binding: 0, type: u32, data: [0, 0, 0, 0]}
steps:
  - uniform: {name: "a[2]", type: f32mat2x3, value: [1, 2, 3, 4, 5, 6]}
  - uniform: {location: 7, type: i32, value: -3}
  - write: {buffer: out, offset: 4, type: u8, data: [1, 2]}
  - dispatch: [1]
  - expect:
      - {buffer: out, at: 1, values: [0x0201]}
      - {buffer: out, count: 1, compare: {op: "<", values: [1]}}
  - clear: {buffer: out}
  - dispatch_group_size: {groups: [2], size: [8, 2]}
  - expect:
      - {buffer: out, count: 1, values: [0]}
expect:
  - {buffer: out, at: 3, compare: {op: "!=", values: [5]}}
"#;

    #[test]
    fn state_steps_and_expect_steps_lower_to_the_plan() {
        let cat =
            crate::clauses::Catalogue::load(&Path::new("testdata").join("clauses.yaml")).unwrap();
        let case = parse(Path::new("cases/x/v2.yaml"), CASE, Some(&cat)).unwrap();
        let steps = &case.plan.steps;
        let Step::Uniform(u) = &steps[0] else {
            panic!("{:?}", steps[0])
        };
        assert_eq!(u.target, UniformTarget::Name("a[2]".into()));
        assert_eq!(
            u.ty,
            UniformType::Matrix {
                scalar: Scalar::F32,
                columns: 2,
                rows: 3
            }
        );
        assert_eq!(u.count(), 1);
        assert_eq!(&u.bytes[4..8], &2f32.to_le_bytes());
        let Step::Uniform(u) = &steps[1] else {
            panic!("{:?}", steps[1])
        };
        assert_eq!(u.target, UniformTarget::Location(7));
        assert_eq!(u.bytes, (-3i32).to_le_bytes());
        assert_eq!(
            steps[2],
            Step::WriteBuffer {
                buffer: 0,
                offset: 4,
                bytes: vec![1, 2]
            }
        );
        assert_eq!(steps[4], Step::Snapshot);
        assert_eq!(steps[5], Step::ClearBuffer { buffer: 0 });
        assert_eq!(
            steps[6],
            Step::DispatchGroupSize {
                groups: [2, 1, 1],
                size: [8, 2, 1]
            }
        );
        assert_eq!(steps[7], Step::Snapshot);
        assert_eq!(case.step_checks.len(), steps.len());
        let at: Vec<Option<Snapshot>> = case.expect.iter().map(|x| x.at_snapshot).collect();
        assert_eq!(
            at,
            vec![
                None,
                Some(Snapshot { index: 0, step: 4 }),
                Some(Snapshot { index: 0, step: 4 }),
                Some(Snapshot { index: 1, step: 7 }),
            ]
        );
        assert_eq!(
            case.expect[0].check,
            Check::Compare(CompareOp::Ne, 5u32.to_le_bytes().to_vec())
        );
        assert_eq!(
            case.expect[2].line, 18,
            "expectations in steps keep their lines"
        );
    }
}
