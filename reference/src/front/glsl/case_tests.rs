//! Acceptance run of YAML cases through the GLSL front end (a minimal loader for the subset
//! of case format v1 GLSL cases use). The directory comes from `CONFORM_GLSL_CASES`; without
//! it the test does nothing. Run: `CONFORM_GLSL_CASES=/path/to/cases cargo test -p
//! conform-reference glsl_cases -- --nocapture`.

use crate::Options;
use conform_plan::{
    ApiAction, BufferInit, BufferKind, ElemType, ExecPlan, Language, Outcome, ProgramPname,
    ProgramSource, QueryPname, Refusal, Scalar, Stage, Step, UniformInit,
};
use serde_yaml_ng::Value;
use std::path::Path;

fn num_bits(v: &Value, s: Scalar) -> Result<u64, String> {
    let mask = if s.size() == 8 {
        u64::MAX
    } else {
        (1u64 << (s.size() * 8)) - 1
    };
    if let Some(t) = v.as_str() {
        if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            return u64::from_str_radix(&h.replace('_', ""), 16)
                .map(|x| x & mask)
                .map_err(|e| e.to_string());
        }
        let f: f64 = match t {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            "-0.0" => -0.0,
            o => o.parse().map_err(|_| format!("bad value {o}"))?,
        };
        return Ok(float_bits(f, s));
    }
    if s.is_float() {
        let f = v.as_f64().ok_or("bad float")?;
        return Ok(float_bits(f, s));
    }
    if let Some(i) = v.as_i64() {
        return Ok((i as u64) & mask);
    }
    if let Some(u) = v.as_u64() {
        return Ok(u & mask);
    }
    Err(format!("bad value {v:?}"))
}

fn float_bits(f: f64, s: Scalar) -> u64 {
    match s {
        Scalar::F32 => u64::from((f as f32).to_bits()),
        Scalar::F64 => f.to_bits(),
        _ => f as i64 as u64,
    }
}

fn data(v: &Value, e: ElemType) -> Result<Vec<u64>, String> {
    let lanes = e.lanes as usize;
    if let Some(seq) = v.as_sequence() {
        return seq.iter().map(|x| num_bits(x, e.scalar)).collect();
    }
    let count = v.get("count").and_then(|c| c.as_u64()).unwrap_or(1) as usize;
    if let Some(f) = v.get("fill") {
        let b = num_bits(f, e.scalar)?;
        return Ok(vec![b; count * lanes]);
    }
    if let Some(s) = v.get("series") {
        let start = s.get("start").ok_or("series start")?;
        let step = s.get("step").ok_or("series step")?;
        let mut out = Vec::new();
        if e.scalar.is_float() {
            let (a, d) = (start.as_f64().unwrap_or(0.0), step.as_f64().unwrap_or(0.0));
            for i in 0..count * lanes {
                out.push(float_bits(a + d * i as f64, e.scalar));
            }
        } else {
            let a = num_bits(start, e.scalar)?;
            let d = num_bits(step, e.scalar)?;
            let mask = if e.scalar.size() == 8 {
                u64::MAX
            } else {
                (1u64 << (e.scalar.size() * 8)) - 1
            };
            for i in 0..count * lanes {
                out.push(a.wrapping_add(d.wrapping_mul(i as u64)) & mask);
            }
        }
        return Ok(out);
    }
    Err(format!("unsupported data form {v:?}"))
}

fn to_bytes(vals: &[u64], s: Scalar) -> Vec<u8> {
    vals.iter()
        .flat_map(|v| v.to_le_bytes()[..s.size()].to_vec())
        .collect()
}

fn elem(v: Option<&Value>, default: ElemType) -> Result<ElemType, String> {
    match v.and_then(|t| t.as_str()) {
        Some(t) => ElemType::parse(t).ok_or(format!("bad type {t}")),
        None => Ok(default),
    }
}

fn stage_of(v: Option<&Value>) -> Stage {
    match v.and_then(|s| s.as_str()) {
        Some("vertex") => Stage::Vertex,
        Some("fragment") => Stage::Fragment,
        Some("geometry") => Stage::Geometry,
        Some("tesscontrol") => Stage::TessControl,
        Some("tessevaluation") => Stage::TessEvaluation,
        _ => Stage::Compute,
    }
}

/// Returns Ok(None) when the case is not a GLSL-only case.
fn load(path: &Path) -> Result<Option<(ExecPlan, Value)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let doc: Value = serde_yaml_ng::from_str(&text).map_err(|e| e.to_string())?;
    let progs: Vec<Value> = match (doc.get("program"), doc.get("programs")) {
        (Some(p), _) => vec![p.clone()],
        (None, Some(ps)) => ps.as_sequence().cloned().unwrap_or_default(),
        _ => return Ok(None),
    };
    let mut programs = Vec::new();
    for p in &progs {
        if p.get("language").and_then(|l| l.as_str()) != Some("glsl") {
            return Ok(None);
        }
        let src = p
            .get("source")
            .and_then(|s| s.as_str())
            .ok_or("no source")?;
        // Line of the source in the file: first line of the block after `source: |`.
        let first_line = text
            .find(src.lines().next().unwrap_or(""))
            .map(|o| text[..o].lines().count() as u32 + 1)
            .unwrap_or(1);
        programs.push(ProgramSource {
            language: Language::Glsl,
            stage: stage_of(p.get("stage")),
            text: src.to_string(),
            words: vec![],
            origin: path.display().to_string(),
            first_line,
            entry: "main".into(),
            specialization: vec![],
        });
    }
    let mut buffers = Vec::new();
    for b in doc
        .get("buffers")
        .and_then(|b| b.as_sequence())
        .cloned()
        .unwrap_or_default()
    {
        let binding = b.get("binding").and_then(|x| x.as_u64()).ok_or("binding")? as u32;
        let e = elem(b.get("type"), ElemType::scalar(Scalar::U32))?;
        let kind = match b.get("kind").and_then(|k| k.as_str()).unwrap_or("storage") {
            "storage" => BufferKind::Storage,
            "atomic_counter" => BufferKind::AtomicCounter,
            "uniform" => BufferKind::Uniform,
            "indirect" => BufferKind::Indirect,
            k => return Err(format!("buffer kind {k}")),
        };
        let vals = match b.get("data") {
            Some(d) => data(d, e)?,
            None => vec![0; e.lanes as usize],
        };
        let mut bytes = to_bytes(&vals, e.scalar);
        if let Some(sz) = b.get("size").and_then(|s| s.as_u64()) {
            bytes.resize(sz as usize, 0);
        }
        buffers.push(BufferInit {
            name: b
                .get("name")
                .and_then(|n| n.as_str())
                .map(String::from)
                .unwrap_or(format!("b{binding}")),
            kind,
            binding,
            elem: e,
            bytes,
        });
    }
    let mut uniforms = Vec::new();
    for u in doc
        .get("uniforms")
        .and_then(|b| b.as_sequence())
        .cloned()
        .unwrap_or_default()
    {
        let e = elem(u.get("type"), ElemType::scalar(Scalar::U32))?;
        let v = u.get("value").cloned().unwrap_or(Value::Null);
        let vals = match &v {
            Value::Sequence(_) => data(&v, e)?,
            o => vec![num_bits(o, e.scalar)?],
        };
        uniforms.push(UniformInit {
            name: u.get("name").and_then(|n| n.as_str()).unwrap_or("").into(),
            elem: e,
            bytes: to_bytes(&vals, e.scalar),
        });
    }
    let mut steps = Vec::new();
    match doc.get("steps").and_then(|s| s.as_sequence()) {
        None => steps.push(Step::Dispatch { groups: [1, 1, 1] }),
        Some(ss) => {
            for s in ss {
                if let Some(d) = s.get("dispatch") {
                    let g: Vec<u32> = d
                        .as_sequence()
                        .ok_or("dispatch")?
                        .iter()
                        .map(|x| x.as_u64().unwrap_or(0) as u32)
                        .collect();
                    steps.push(Step::Dispatch {
                        groups: [g[0], g[1], g[2]],
                    });
                } else if let Some(d) = s.get("dispatch_indirect") {
                    let name = d.get("buffer").and_then(|b| b.as_str()).unwrap_or("none");
                    let buffer = buffers.iter().position(|b| b.name == name);
                    let offset = d.get("offset").and_then(|o| o.as_i64()).unwrap_or(0);
                    steps.push(Step::DispatchIndirect { buffer, offset });
                } else if s.get("barrier").is_some() {
                    steps.push(Step::MemoryBarrier { bits: vec![] });
                } else if let Some(q) = s.get("query") {
                    let pname = q.get("pname").and_then(|p| p.as_str()).unwrap_or("");
                    steps.push(Step::Query {
                        pname: QueryPname::from_name(pname).ok_or(format!("step {s:?}"))?,
                        index: q.get("index").and_then(|i| i.as_u64()).map(|i| i as u32),
                    });
                } else if let Some(q) = s.get("program_query") {
                    let pname = q.get("pname").and_then(|p| p.as_str()).unwrap_or("");
                    steps.push(Step::ProgramQuery {
                        pname: ProgramPname::from_name(pname).ok_or(format!("step {s:?}"))?,
                    });
                } else if let Some(a) = s.get("api") {
                    let call = a.get("call").and_then(|p| p.as_str()).unwrap_or("");
                    let args: Vec<i64> = (a.get("args").and_then(|v| v.as_sequence()))
                        .map_or(vec![], |v| v.iter().filter_map(|x| x.as_i64()).collect());
                    let action = ApiAction::parse(call, &args).map_err(|e| e.to_string())?;
                    steps.push(Step::Api(action));
                } else {
                    return Err(format!("step {s:?}"));
                }
            }
        }
    }
    let plan = ExecPlan {
        case: path.display().to_string(),
        programs,
        buffers,
        uniforms,
        steps,
        timeout_ms: 5000,
        skip_steps_if_built: doc.get("fails").is_some(),
    };
    Ok(Some((plan, doc)))
}

fn check_case(plan: &ExecPlan, doc: &Value, out: &Outcome) -> Result<(), String> {
    if let Some(f) = doc.get("fails") {
        let at = f.get("at").and_then(|a| a.as_str()).unwrap_or("");
        let got = out.build.failed_at.map(|s| s.name()).unwrap_or("none");
        if got != at {
            return Err(format!(
                "expected failure at {at}, got {got}: {}",
                out.build.log
            ));
        }
        if let Some(re) = f.get("log").and_then(|l| l.as_str()) {
            let re = regex::Regex::new(re).map_err(|e| e.to_string())?;
            if !re.is_match(&out.build.log) {
                return Err(format!("log {:?} does not match /{re}/", out.build.log));
            }
        }
        return Ok(());
    }
    if out.build.failed_at.is_some() {
        return Err(format!("build failed: {}", out.build.log));
    }
    if let Some(u) = doc.get("undefined").and_then(|u| u.as_str()) {
        if out.flags.is_empty() {
            return Err(format!("undefined case ({u}) but nothing flagged"));
        }
    }
    for e in doc
        .get("expect")
        .and_then(|e| e.as_sequence())
        .cloned()
        .unwrap_or_default()
    {
        let name = e
            .get("buffer")
            .and_then(|b| b.as_str())
            .ok_or("expect buffer")?;
        let bi = plan
            .buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or("unknown buffer")?;
        let et = elem(e.get("type"), plan.buffers[bi].elem)?;
        let at = e.get("at").and_then(|a| a.as_u64()).unwrap_or(0) as usize;
        let sz = et.size();
        let bytes = &out.buffers[bi];
        let read = |n: usize| -> Vec<u64> {
            let start = at * sz;
            let mut v = Vec::new();
            for i in 0..n * et.lanes as usize {
                let o = start + i * et.scalar.size();
                let mut x = 0u64;
                for k in 0..et.scalar.size() {
                    x |= u64::from(bytes.get(o + k).copied().unwrap_or(0)) << (8 * k);
                }
                v.push(x);
            }
            v
        };
        let eqv = |a: u64, b: u64| -> bool {
            a == b
                || (et.scalar == Scalar::F32
                    && f32::from_bits(a as u32).is_nan()
                    && f32::from_bits(b as u32).is_nan())
        };
        let close = |a: u64, b: u64| -> bool {
            if eqv(a, b) {
                return true;
            }
            let Some(t) = e.get("tolerance") else {
                return false;
            };
            let (x, y) = if et.scalar == Scalar::F64 {
                (f64::from_bits(a), f64::from_bits(b))
            } else {
                (
                    f64::from(f32::from_bits(a as u32)),
                    f64::from(f32::from_bits(b as u32)),
                )
            };
            if let Some(ab) = t.get("abs").and_then(|v| v.as_f64()) {
                return (x - y).abs() <= ab;
            }
            if let Some(r) = t.get("rel").and_then(|v| v.as_f64()) {
                return (x - y).abs() <= r * y.abs();
            }
            if let Some(u) = t.get("ulp").and_then(|v| v.as_u64()) {
                return (a as i64 - b as i64).unsigned_abs() <= u;
            }
            false
        };
        if let Some(v) = e.get("values") {
            let want = data(v, et)?;
            let got = read(want.len() / et.lanes as usize);
            if !want.iter().zip(&got).all(|(a, b)| close(*b, *a)) {
                return Err(format!(
                    "buffer {name} at {at}: want {want:x?}, got {got:x?}"
                ));
            }
        } else if let Some(v) = e.get("permutation_of") {
            let mut want = data(v, et)?;
            let mut got = read(want.len() / et.lanes as usize);
            want.sort();
            got.sort();
            if want != got {
                return Err(format!(
                    "buffer {name}: not a permutation: want {want:?}, got {got:?}"
                ));
            }
        } else if let Some(alts) = e.get("one_of").and_then(|v| v.as_sequence()) {
            let mut ok = false;
            for a in alts {
                let want = data(a, et)?;
                let got = read(want.len() / et.lanes as usize);
                ok |= want.iter().zip(&got).all(|(a, b)| eqv(*b, *a));
            }
            if !ok {
                return Err(format!("buffer {name}: none of one_of matches"));
            }
        }
    }
    Ok(())
}

#[test]
fn glsl_cases() {
    let Ok(dir) = std::env::var("CONFORM_GLSL_CASES") else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut pass, mut failn, mut skip) = (0, 0, 0);
    for f in &files {
        let (plan, doc) = match load(f) {
            Ok(Some(x)) => x,
            Ok(None) => continue,
            Err(e) => {
                println!("LOADERR {}: {e}", f.display());
                failn += 1;
                continue;
            }
        };
        let mut opts = Options::default();
        if let Some(s) = doc
            .get("reference")
            .and_then(|r| r.get("schedules"))
            .and_then(|s| s.as_u64())
        {
            opts.schedules = s as u32;
        }
        match crate::run(&plan, &opts) {
            Err(Refusal::Unsupported(m)) => {
                println!("SKIP {}: {m}", f.display());
                skip += 1;
            }
            Err(e) => {
                println!("FAIL {}: refused {e:?}", f.display());
                failn += 1;
            }
            Ok(out) => match check_case(&plan, &doc, &out) {
                Ok(()) => {
                    pass += 1;
                    println!(
                        "PASS {} {:?}",
                        f.display(),
                        out.flags.iter().map(|f| &f.kind).collect::<Vec<_>>()
                    );
                }
                Err(m) => {
                    println!("FAIL {}: {m}", f.display());
                    failn += 1;
                }
            },
        }
    }
    println!("glsl cases: {pass} passed, {failn} failed, {skip} skipped");
    assert_eq!(failn, 0);
}
