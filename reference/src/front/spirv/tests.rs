//! Tests of the SPIR-V front end: the SPVFADD cases (copied from branch `cases-spirv` into
//! `testdata/cases/`, loaded with a small reader of the case format subset they use), and
//! hand-written modules for the rest of the subset.

use super::{assemble_spirv, validate};
use crate::{check, run, Options};
use conform_plan::{
    BufferInit, BufferKind, BuildStage, ElemType, ExecPlan, FlagKind, Language, ProgramSource,
    QueryPname, Scalar, Step,
};
use serde_yaml_ng::Value;
use std::path::Path;

fn src(text: &str) -> ProgramSource {
    ProgramSource::from_text(
        Language::SpirvAsm,
        conform_plan::Stage::Compute,
        text,
        "test",
    )
}

fn enc(s: Scalar, v: &Value) -> Vec<u8> {
    let f = match v {
        Value::Number(n) => n.as_f64().unwrap_or(0.0),
        Value::String(t) if t.starts_with("0x") => {
            let bits = u64::from_str_radix(&t[2..], 16).unwrap_or(0);
            return bits.to_le_bytes()[..s.size()].to_vec();
        }
        Value::String(t) => t.parse().unwrap_or(0.0),
        _ => 0.0,
    };
    match s {
        Scalar::F32 => (f as f32).to_le_bytes().to_vec(),
        Scalar::F64 => f.to_le_bytes().to_vec(),
        Scalar::I32 => (f as i32).to_le_bytes().to_vec(),
        Scalar::U64 | Scalar::I64 => (f as i64).to_le_bytes().to_vec(),
        _ => (f as i64 as u32).to_le_bytes().to_vec(),
    }
}

/// Elements of a data form (list, fill, series), as encoded bytes per element.
fn data(s: Scalar, d: &Value) -> Vec<Vec<u8>> {
    match d {
        Value::Sequence(items) => items.iter().map(|v| enc(s, v)).collect(),
        Value::Mapping(m) => {
            let count = m.get("count").and_then(Value::as_u64).unwrap_or(1) as usize;
            if let Some(f) = m.get("fill") {
                return vec![enc(s, f); count];
            }
            if let Some(Value::Mapping(ser)) = m.get("series") {
                let start = ser.get("start").and_then(Value::as_f64).unwrap_or(0.0);
                let step = ser.get("step").and_then(Value::as_f64).unwrap_or(1.0);
                return (0..count)
                    .map(|i| enc(s, &Value::from(start + step * i as f64)))
                    .collect();
            }
            panic!("unsupported data form {d:?}");
        }
        _ => panic!("unsupported data {d:?}"),
    }
}

/// Loads a case file (the subset of case format v1 the SPVFADD cases use) and checks it on the
/// reference. Returns a description of what was checked.
fn run_case(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let doc: Value = serde_yaml_ng::from_str(&text).unwrap();
    let name = doc["name"].as_str().unwrap().to_string();
    let prog = &doc["program"];
    assert_eq!(prog["language"].as_str(), Some("spirv-asm"), "{name}");
    let source = prog["source"].as_str().unwrap();
    let mut program = src(source);
    program.origin = path.display().to_string();
    let mut buffers = Vec::new();
    let mut types = Vec::new();
    if let Some(bs) = doc["buffers"].as_sequence() {
        for b in bs {
            let s = ElemType::parse(b["type"].as_str().unwrap_or("u32")).unwrap();
            let bytes: Vec<u8> = data(s.scalar, &b["data"]).concat();
            buffers.push(BufferInit {
                name: b["name"].as_str().unwrap().to_string(),
                kind: BufferKind::Storage,
                binding: b["binding"].as_u64().unwrap() as u32,
                elem: s,
                bytes,
            });
            types.push(s.scalar);
        }
    }
    let mut steps = Vec::new();
    if let Some(ss) = doc["steps"].as_sequence() {
        for s in ss {
            if let Some(d) = s.get("dispatch").and_then(Value::as_sequence) {
                let g: Vec<u32> = d.iter().map(|x| x.as_u64().unwrap() as u32).collect();
                steps.push(Step::Dispatch {
                    groups: [g[0], g[1], g[2]],
                });
            } else if s.get("barrier").is_some() {
                steps.push(Step::MemoryBarrier { bits: vec![] });
            } else if let Some(q) = s.get("query") {
                steps.push(Step::Query {
                    pname: QueryPname::from_name(q["pname"].as_str().unwrap()).unwrap(),
                    index: None,
                });
            }
        }
    } else {
        steps.push(Step::Dispatch { groups: [1, 1, 1] });
    }
    let fails = doc.get("fails").cloned();
    let plan = ExecPlan {
        case: name.clone(),
        programs: vec![program.clone()],
        buffers,
        uniforms: vec![],
        steps,
        timeout_ms: 5000,
        skip_steps_if_built: fails.is_some(),
    };
    let out = run(&plan, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    if let Some(f) = fails {
        assert_eq!(f["at"].as_str(), Some("validate"), "{name}");
        assert_eq!(
            out.build.failed_at,
            Some(BuildStage::Validate),
            "{name} must fail validation"
        );
        // `(?i)A|B|C`: one alternative occurs, case-insensitively.
        let re = f["log"].as_str().unwrap_or("");
        let log = out.build.log.to_lowercase();
        let alts: Vec<String> = re
            .trim_start_matches("(?i)")
            .split('|')
            .map(str::to_lowercase)
            .collect();
        assert!(
            alts.iter().any(|a| log.contains(a.as_str())),
            "{name}: log does not match {re}:\n{}",
            out.build.log
        );
        assert!(check(&program).is_err());
        // The front end's own rule must have fired too (the clause id is in the log).
        let spec: Vec<&str> = doc["spec"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            spec.iter().any(|c| out.build.log.contains(c)),
            "{name}: log names none of {spec:?}:\n{}",
            out.build.log
        );
        return format!("{name}: rejected at validate\n{}", out.build.log);
    }
    assert_eq!(
        out.build.failed_at, None,
        "{name} must build:\n{}",
        out.build.log
    );
    assert!(check(&program).is_ok());
    for e in doc["expect"].as_sequence().unwrap() {
        let bname = e["buffer"].as_str().unwrap();
        let bi = plan.buffers.iter().position(|b| b.name == bname).unwrap();
        let s = types[bi];
        let at = e.get("at").and_then(Value::as_u64).unwrap_or(0) as usize * s.size();
        let bytes = &out.buffers[bi];
        if let Some(v) = e.get("values") {
            let want: Vec<u8> = data(s, v).concat();
            assert_eq!(
                &bytes[at..at + want.len()],
                want.as_slice(),
                "{name}: buffer {bname} values"
            );
        } else if let Some(v) = e.get("permutation_of") {
            let mut want = data(s, v);
            let mut got: Vec<Vec<u8>> = bytes[at..at + want.len() * s.size()]
                .chunks(s.size())
                .map(<[u8]>::to_vec)
                .collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{name}: buffer {bname} permutation");
        } else {
            panic!("{name}: unsupported expectation {e:?}");
        }
    }
    format!("{name}: ran, expectations hold")
}

#[test]
fn spvfadd_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/front/spirv/testdata/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 17);
    for p in paths {
        let what = run_case(&p);
        println!("{what}");
    }
}

// ------------------------------------------------------------------ hand-written modules

const HEADER: &str = r#"
OpCapability Shader
OpCapability AtomicFloat32AddEXT
OpCapability AtomicFloat64AddEXT
OpCapability Float64
OpExtension "SPV_EXT_shader_atomic_float_add"
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid %lidx %wgid
"#;

const DECOS: &str = r#"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %lidx BuiltIn LocalInvocationIndex
OpDecorate %wgid BuiltIn WorkgroupId
OpDecorate %arr_u ArrayStride 4
OpDecorate %arr_f ArrayStride 4
OpDecorate %arr_d ArrayStride 8
OpMemberDecorate %BufU 0 Offset 0
OpMemberDecorate %BufF 0 Offset 0
OpMemberDecorate %BufD 0 Offset 0
OpDecorate %BufU BufferBlock
OpDecorate %BufF BufferBlock
OpDecorate %BufD BufferBlock
OpDecorate %bu DescriptorSet 0
OpDecorate %bu Binding 0
OpDecorate %bf DescriptorSet 0
OpDecorate %bf Binding 1
OpDecorate %bd DescriptorSet 0
OpDecorate %bd Binding 2
"#;

const TYPES: &str = r#"
%void = OpTypeVoid
%fn_void = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%double = OpTypeFloat 64
%v3uint = OpTypeVector %uint 3
%ptr_in_v3 = OpTypePointer Input %v3uint
%ptr_in_u = OpTypePointer Input %uint
%gid = OpVariable %ptr_in_v3 Input
%wgid = OpVariable %ptr_in_v3 Input
%lidx = OpVariable %ptr_in_u Input
%arr_u = OpTypeRuntimeArray %uint
%arr_f = OpTypeRuntimeArray %float
%arr_d = OpTypeRuntimeArray %double
%BufU = OpTypeStruct %arr_u
%BufF = OpTypeStruct %arr_f
%BufD = OpTypeStruct %arr_d
%ptr_BufU = OpTypePointer Uniform %BufU
%ptr_BufF = OpTypePointer Uniform %BufF
%ptr_BufD = OpTypePointer Uniform %BufD
%bu = OpVariable %ptr_BufU Uniform
%bf = OpVariable %ptr_BufF Uniform
%bd = OpVariable %ptr_BufD Uniform
%pu = OpTypePointer Uniform %uint
%pf = OpTypePointer Uniform %float
%pd = OpTypePointer Uniform %double
%pfn_u = OpTypePointer Function %uint
%pwg_f = OpTypePointer Workgroup %float
%pwg_u = OpTypePointer Workgroup %uint
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%u10 = OpConstant %uint 10
%acqrel_wg = OpConstant %uint 264
%f1 = OpConstant %float 1
%fhalf = OpConstant %float 0.5
%d1 = OpConstant %double 1
"#;

/// The GLSPV rule ids a module breaks, in order (the GL environment's rules, `rules/gl_env.rs`).
pub(super) fn broken(text: &str) -> Vec<String> {
    let words = assemble_spirv(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    match validate(&words, Some(text)) {
        Ok(()) => vec![],
        Err(d) => d
            .iter()
            .filter_map(|d| d.message.split(':').next())
            .filter(|r| r.starts_with("GLSPV-"))
            .map(String::from)
            .collect(),
    }
}

/// A module with the common header/types, `extra` globals and a `main` body.
fn module(local_size: u32, extra_decos: &str, extra_types: &str, body: &str) -> String {
    format!(
        "{HEADER}OpExecutionMode %main LocalSize {local_size} 1 1\n{DECOS}{extra_decos}{TYPES}{extra_types}\
         %main = OpFunction %void None %fn_void\n%entry = OpLabel\n{body}\nOpFunctionEnd\n"
    )
}

fn buf(name: &str, binding: u32, s: Scalar, bytes: Vec<u8>) -> BufferInit {
    BufferInit {
        name: name.into(),
        kind: BufferKind::Storage,
        binding,
        elem: ElemType::scalar(s),
        bytes,
    }
}

fn plan(p: ProgramSource, buffers: Vec<BufferInit>, groups: u32) -> ExecPlan {
    ExecPlan {
        case: "t".into(),
        programs: vec![p],
        buffers,
        uniforms: vec![],
        steps: vec![Step::Dispatch {
            groups: [groups, 1, 1],
        }],
        timeout_ms: 1000,
        skip_steps_if_built: false,
    }
}

fn run_ok(p: &ExecPlan) -> Vec<Vec<u8>> {
    let out = run(p, &Options::default()).unwrap();
    assert!(
        out.flags
            .iter()
            .all(|f| f.kind == FlagKind::ScheduleDependent),
        "unexpected flags: {:?}",
        out.flags
    );
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    out.buffers
}

fn u32s(b: &[u8]) -> Vec<u32> {
    conform_plan::bytes::read_u32s(b)
}

fn f32s(b: &[u8]) -> Vec<f32> {
    u32s(b).into_iter().map(f32::from_bits).collect()
}

fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn assemble_reports_line_and_column() {
    let err = crate::assemble_spirv("OpCapability Shader\n%x = OpBogus %y\n").unwrap_err();
    assert_eq!(err[0].line, 2, "{:?}", err);
    assert!(err[0].message.contains("assembly failed"), "{:?}", err);
    let ok = crate::assemble_spirv(&module(1, "", "", "OpReturn")).unwrap();
    assert_eq!(ok[0], 0x0723_0203);
    assert_eq!(ok[1], 0x0001_0000, "SPIR-V 1.0 header for OpenGL 4.5");
}

#[test]
fn binary_words_run_like_text() {
    let text = module(
        4,
        "",
        "",
        "%g = OpLoad %v3uint %gid\n%i = OpCompositeExtract %uint %g 0\n\
         %p = OpAccessChain %pu %bu %u0 %i\n%v = OpIMul %uint %i %u10\nOpStore %p %v\nOpReturn",
    );
    let mut p = src(&text);
    p.words = crate::assemble_spirv(&text).unwrap();
    p.text.clear();
    p.language = Language::Spirv;
    let out = run_ok(&plan(p, vec![buf("u", 0, Scalar::U32, vec![0; 16])], 1));
    assert_eq!(u32s(&out[0]), vec![0, 10, 20, 30]);
}

/// f32 adds of 0.5 from 256 invocations (4 groups) to one StorageBuffer word, Device scope.
#[test]
fn f32_storage_contention_device_scope() {
    let text = module(
        64,
        "",
        "",
        "%g = OpLoad %v3uint %gid\n%i = OpCompositeExtract %uint %g 0\n\
         %p = OpAccessChain %pf %bf %u0 %u0\n\
         %o = OpAtomicFAddEXT %float %p %u1 %u0 %fhalf\n\
         %q = OpAccessChain %pf %bf %u0 %i\n%q1 = OpAccessChain %pd %bd %u0 %i\n\
         %od = OpFConvert %double %o\nOpStore %q1 %od\nOpReturn",
    );
    let mut fb = 3.0f32.to_le_bytes().to_vec();
    fb.resize(4 * 4, 0);
    let out = run_ok(&plan(
        src(&text),
        vec![
            buf("u", 0, Scalar::U32, vec![0; 4]),
            buf("f", 1, Scalar::F32, fb),
            buf("d", 2, Scalar::F64, vec![0; 8 * 256]),
        ],
        4,
    ));
    assert_eq!(f32s(&out[1])[0], 3.0 + 256.0 * 0.5);
    let mut olds = f64s(&out[2]);
    olds.sort_by(f64::total_cmp);
    let want: Vec<f64> = (0..256).map(|k| 3.0 + 0.5 * k as f64).collect();
    assert_eq!(olds, want, "originals are a permutation of the prefix sums");
}

/// f32 and f64 adds in Workgroup memory, Workgroup scope, with barriers.
#[test]
fn workgroup_f32_f64_contention() {
    let text = module(
        128,
        "",
        "%pwg_d = OpTypePointer Workgroup %double\n%sf = OpVariable %pwg_f Workgroup\n%sd = OpVariable %pwg_d Workgroup\n\
         %fq = OpConstant %float 0.25\n%dq = OpConstant %double 0.125\n%f0 = OpConstant %float 0\n%d0 = OpConstant %double 0\n",
        "%l = OpLoad %uint %lidx\n%first = OpIEqual %bool %l %u0\n%w = OpLoad %v3uint %wgid\n%g = OpCompositeExtract %uint %w 0\n\
         OpSelectionMerge %m1 None\nOpBranchConditional %first %init %m1\n\
         %init = OpLabel\nOpStore %sf %f0\nOpStore %sd %d0\nOpBranch %m1\n\
         %m1 = OpLabel\nOpControlBarrier %u2 %u2 %acqrel_wg\n\
         %of = OpAtomicFAddEXT %float %sf %u2 %u0 %fq\n%od = OpAtomicFAddEXT %double %sd %u2 %u0 %dq\n\
         %gg = OpLoad %v3uint %gid\n%i = OpCompositeExtract %uint %gg 0\n\
         %q = OpAccessChain %pf %bf %u0 %i\nOpStore %q %of\n%qd = OpAccessChain %pd %bd %u0 %i\nOpStore %qd %od\n\
         OpMemoryBarrier %u1 %acqrel_wg\nOpControlBarrier %u2 %u2 %acqrel_wg\n\
         OpSelectionMerge %m2 None\nOpBranchConditional %first %fin %m2\n\
         %fin = OpLabel\n%tf = OpLoad %float %sf\n%td = OpLoad %double %sd\n%tu = OpConvertFToU %uint %tf\n\
         %tdu = OpConvertFToU %uint %td\n%s = OpIAdd %uint %tu %tdu\n%p = OpAccessChain %pu %bu %u0 %g\nOpStore %p %s\nOpBranch %m2\n\
         %m2 = OpLabel\nOpReturn",
    );
    let out = run_ok(&plan(
        src(&text),
        vec![
            buf("u", 0, Scalar::U32, vec![0; 8]),
            buf("f", 1, Scalar::F32, vec![0; 4 * 256]),
            buf("d", 2, Scalar::F64, vec![0; 8 * 256]),
        ],
        2,
    ));
    // 128 * 0.25 = 32, 128 * 0.125 = 16.
    assert_eq!(u32s(&out[0]), vec![48, 48]);
    for g in 0..2 {
        let mut of = f32s(&out[1])[g * 128..(g + 1) * 128].to_vec();
        of.sort_by(f32::total_cmp);
        assert_eq!(of, (0..128).map(|k| k as f32 * 0.25).collect::<Vec<_>>());
        let mut od = f64s(&out[2])[g * 128..(g + 1) * 128].to_vec();
        od.sort_by(f64::total_cmp);
        assert_eq!(od, (0..128).map(|k| k as f64 * 0.125).collect::<Vec<_>>());
    }
}

/// A structured loop with phis, a continue construct, a break, a function call with a
/// pointer argument, a switch, and integer atomics.
#[test]
fn loop_call_switch_atomics() {
    let text = module(
        8,
        "",
        "%fn_add = OpTypeFunction %uint %pfn_u %uint\n%u3 = OpConstant %uint 3\n%u100 = OpConstant %uint 100\n%u5 = OpConstant %uint 5\n%u8 = OpConstant %uint 8\n%u9 = OpConstant %uint 9\n",
        "%acc = OpVariable %pfn_u Function\n\
         %g = OpLoad %v3uint %gid\n%i = OpCompositeExtract %uint %g 0\nOpStore %acc %u0\nOpBranch %hdr\n\
         %hdr = OpLabel\n%k = OpPhi %uint %u0 %entry %kn %cont\n\
         OpLoopMerge %exit %cont None\nOpBranch %body\n\
         %body = OpLabel\n%done = OpUGreaterThanEqual %bool %k %i\nOpSelectionMerge %bm None\nOpBranchConditional %done %exit %bm\n\
         %bm = OpLabel\n%r = OpFunctionCall %uint %addto %acc %k\nOpBranch %cont\n\
         %cont = OpLabel\n%kn = OpIAdd %uint %k %u1\n%big = OpUGreaterThan %bool %kn %u100\nOpBranchConditional %big %exit %hdr\n\
         %exit = OpLabel\n%sum = OpLoad %uint %acc\n\
         %c = OpAccessChain %pu %bu %u0 %u8\n%mx = OpAccessChain %pu %bu %u0 %u9\n\
         OpSelectionMerge %sm None\nOpSwitch %i %sdef 0 %s0 3 %s3 5 %s3\n\
         %s0 = OpLabel\nOpBranch %sm\n\
         %s3 = OpLabel\n%x = OpAtomicIAdd %uint %c %u1 %u0 %u1\nOpBranch %sm\n\
         %sdef = OpLabel\n%y = OpAtomicUMax %uint %mx %u1 %u0 %i\nOpBranch %sm\n\
         %sm = OpLabel\n%p = OpAccessChain %pu %bu %u0 %i\nOpStore %p %sum\nOpReturn\nOpFunctionEnd\n\
         %addto = OpFunction %uint None %fn_add\n%ptr = OpFunctionParameter %pfn_u\n%v = OpFunctionParameter %uint\n\
         %fe = OpLabel\n%old = OpLoad %uint %ptr\n%nw = OpIAdd %uint %old %v\nOpStore %ptr %nw\nOpReturnValue %nw",
    );
    let out = run_ok(&plan(
        src(&text),
        vec![buf("u", 0, Scalar::U32, vec![0; 40])],
        1,
    ));
    let u = u32s(&out[0]);
    // sum_{k<i} k
    let want: Vec<u32> = (0..8u32).map(|i| (0..i).sum()).collect();
    assert_eq!(&u[..8], want.as_slice());
    assert_eq!(u[8], 2, "i = 3 and i = 5 take the shared case");
    assert_eq!(u[9], 7, "max of the default-case ids");
}

/// Spec constants: defaults and overrides (a LocalSize via WorkgroupSize, a value, a bool).
#[test]
fn spec_constants() {
    let text = format!(
        "{HEADER}OpExecutionMode %main LocalSize 1 1 1\n{DECOS}\
         OpDecorate %sc_x SpecId 0\nOpDecorate %sc_add SpecId 1\nOpDecorate %sc_flag SpecId 2\nOpDecorate %wgs BuiltIn WorkgroupSize\n\
         {TYPES}%sc_x = OpSpecConstant %uint 4\n%sc_add = OpSpecConstant %uint 7\n%sc_flag = OpSpecConstantFalse %bool\n\
         %wgs = OpSpecConstantComposite %v3uint %sc_x %u1 %u1\n%twice = OpSpecConstantOp %uint IAdd %sc_add %sc_add\n\
         %main = OpFunction %void None %fn_void\n%entry = OpLabel\n\
         %g = OpLoad %v3uint %gid\n%i = OpCompositeExtract %uint %g 0\n%v0 = OpIAdd %uint %i %twice\n\
         %v = OpSelect %uint %sc_flag %u0 %v0\n%p = OpAccessChain %pu %bu %u0 %i\nOpStore %p %v\nOpReturn\nOpFunctionEnd\n"
    );
    let out = run_ok(&plan(
        src(&text),
        vec![buf("u", 0, Scalar::U32, vec![0; 32])],
        1,
    ));
    assert_eq!(u32s(&out[0]), vec![14, 15, 16, 17, 0, 0, 0, 0]);
    let mut p = src(&text);
    p.specialization = vec![(0, 8), (1, 1)];
    let out = run_ok(&plan(
        p.clone(),
        vec![buf("u", 0, Scalar::U32, vec![0; 32])],
        1,
    ));
    assert_eq!(u32s(&out[0]), (2..10).collect::<Vec<u32>>());
    p.specialization.push((2, 1));
    let out = run_ok(&plan(p, vec![buf("u", 0, Scalar::U32, vec![1; 32])], 1));
    assert_eq!(u32s(&out[0]), vec![0; 8]);
}

/// Each SPVFADD rule, on modules of its own: the front end names the clause and spirv-val's
/// message and code are in the log too.
#[test]
fn spvfadd_rules_named() {
    let body_f =
        "%p = OpAccessChain %pf %bf %u0 %u0\n%o = OpAtomicFAddEXT %float %p %u1 %u0 %f1\nOpReturn";
    let body_d =
        "%p = OpAccessChain %pd %bd %u0 %u0\n%o = OpAtomicFAddEXT %double %p %u1 %u0 %d1\nOpReturn";
    let cases: Vec<(String, &str)> = vec![
        (
            module(1, "", "", body_f).replace("OpCapability AtomicFloat32AddEXT\n", ""),
            "SPVFADD-CAPABILITY-32",
        ),
        (
            module(1, "", "", body_d).replace("OpCapability AtomicFloat64AddEXT\n", ""),
            "SPVFADD-CAPABILITY-64",
        ),
        (
            module(1, "", "", body_f)
                .replace("OpExtension \"SPV_EXT_shader_atomic_float_add\"\n", ""),
            "SPVFADD-EXTENSION-DECLARED",
        ),
        (
            module(
                1,
                "",
                "%v2f = OpTypeVector %float 2\n%pv2 = OpTypePointer Workgroup %v2f\n%wv = OpVariable %pv2 Workgroup\n%c2 = OpConstantComposite %v2f %f1 %f1\n",
                "%o = OpAtomicFAddEXT %v2f %wv %u2 %u0 %c2\nOpReturn",
            ),
            "SPVFADD-SCALAR-ONLY",
        ),
        (
            module(
                1,
                "",
                "",
                "%p = OpAccessChain %pu %bu %u0 %u0\n%o = OpAtomicFAddEXT %float %p %u1 %u0 %f1\nOpReturn",
            ),
            "SPVFADD-TYPES-MATCH",
        ),
        (
            module(1, "", "", "%p = OpAccessChain %pf %bf %u0 %u0\n%o = OpAtomicFAddEXT %float %p %u1 %u0 %d1\nOpReturn"),
            "SPVFADD-TYPES-MATCH",
        ),
        (
            module(
                1,
                "",
                "%half = OpTypeFloat 16\n%ph = OpTypePointer Workgroup %half\n%wh = OpVariable %ph Workgroup\n%h1 = OpConstant %half 1\n",
                "%o = OpAtomicFAddEXT %half %wh %u2 %u0 %h1\nOpReturn",
            )
            .replace("OpCapability Float64\n", "OpCapability Float64\nOpCapability Float16\n"),
            "SPVFADD-WIDTHS",
        ),
    ];
    for (text, rule) in cases {
        let err = check(&src(&text)).unwrap_err();
        let all: String = err.iter().map(|d| d.message.clone() + "\n").collect();
        assert!(all.contains(rule), "{rule} not named:\n{all}");
        assert!(
            all.contains("spirv-val (SPV_ERROR_"),
            "{rule}: no spirv-val code:\n{all}"
        );
        let out = run(&plan(src(&text), vec![], 1), &Options::default()).unwrap();
        assert_eq!(out.build.failed_at, Some(BuildStage::Validate));
        assert!(out.build.log.contains(rule));
        assert!(out.steps.is_empty());
    }
}

#[test]
fn unsupported_instruction_names_opcode_and_line() {
    let text = module(
        1,
        "",
        "",
        "%p = OpAccessChain %pf %bf %u0 %u0\n%x = OpLoad %float %p\n%y = OpDPdx %float %x\nOpReturn",
    );
    // OpDPdx needs a fragment model; spirv-val rejects it, which is a validation error too.
    let err = check(&src(&text)).unwrap_err();
    assert!(!err.is_empty());
    // A valid instruction the reference does not model: OpQuantizeToF16.
    let text2 = module(
        1,
        "",
        "",
        "%p = OpAccessChain %pf %bf %u0 %u0\n%x = OpLoad %float %p\n%y = OpQuantizeToF16 %float %x\nOpStore %p %y\nOpReturn",
    );
    let err2 = check(&src(&text2)).unwrap_err();
    assert!(
        err2[0].message.contains("QuantizeToF16") && err2[0].message.contains("line"),
        "{err2:?}"
    );
    assert!(err2[0].line > 1);
    // run(): a valid module outside the subset is a refusal naming the instruction.
    match run(&plan(src(&text2), vec![], 1), &Options::default()) {
        Err(conform_plan::Refusal::Unsupported(m)) => assert!(m.contains("QuantizeToF16"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn group_size_above_limits_is_a_link_failure() {
    let text = module(2048, "", "", "OpReturn");
    let out = run(&plan(src(&text), vec![], 1), &Options::default()).unwrap();
    assert_eq!(
        out.build.failed_at,
        Some(BuildStage::Link),
        "{}",
        out.build.log
    );
    assert!(out.build.log.contains("MAX_COMPUTE_WORK_GROUP_SIZE"));
}

#[test]
fn malformed_input_is_an_error() {
    for words in [
        vec![],
        vec![0x0723_0203],
        vec![0x0723_0203, 0x0001_0000, 0, 10, 0, 0xffff_ffff],
        vec![1, 2, 3, 4, 5, 6, 7],
    ] {
        let mut p = src("");
        p.language = Language::Spirv;
        p.words = words;
        assert!(check(&p).is_err());
    }
    assert!(check(&src("")).is_err());
    assert!(check(&src("garbage %%% \"")).is_err());
}

/// A module glslang generated from GLSL (`testdata/glslang/mixed.comp`, compiled with
/// `glslangValidator -G --target-env opengl`): for/while loops with break and continue, a
/// switch with fallthrough and a break out of a nested if, an inout struct parameter, shared
/// arrays, barriers, and float atomics on shared and buffer memory (f32 and f64).
#[test]
fn glslang_mixed_module() {
    check_mixed(include_str!("testdata/glslang/mixed.spvasm"));
}

/// The same module after `spirv-opt -O` (inlined, SSA form with OpPhi).
#[test]
fn glslang_mixed_module_optimized() {
    check_mixed(include_str!("testdata/glslang/mixed.opt.spvasm"));
}

fn check_mixed(text: &str) {
    let mut fb = vec![0u8; 16 + 8];
    fb[..4].copy_from_slice(&1.5f32.to_le_bytes());
    fb[8..16].copy_from_slice(&0.75f64.to_le_bytes());
    let out = run_ok(&plan(
        src(text),
        vec![
            buf("o", 0, Scalar::U32, vec![0; 4 * 128]),
            buf("f", 1, Scalar::F32, fb),
        ],
        2,
    ));
    let o = u32s(&out[0]);
    for (i, got) in o.iter().enumerate() {
        let i = i as u32;
        let tri: u32 = (0..i.min(41)).filter(|k| *k != 5).sum();
        let w = i.div_ceil(7);
        let sw = match i % 4 {
            0 => 10,
            1 if i > 32 => 20,
            1 => 21,
            _ => 30,
        };
        let want = tri + 1000 * w + 100_000 * sw + 3 * 10_000_000;
        assert_eq!(*got, want, "o[{i}]");
    }
    let f = &out[1];
    assert_eq!(f32::from_le_bytes(f[0..4].try_into().unwrap()), 1.5 + 64.0);
    assert_eq!(
        f64::from_le_bytes(f[8..16].try_into().unwrap()),
        0.75 + 32.0
    );
    assert_eq!(f32s(&f[16..24]), vec![2016.0, 2016.0]);
}

/// Mutated binaries (word replacements, bit flips, truncations, swaps) never panic: each is
/// rejected, refused, or runs within a small step budget.
#[test]
fn mutated_modules_never_panic() {
    let mut seeds: Vec<Vec<u32>> = vec![
        crate::assemble_spirv(include_str!("testdata/glslang/mixed.spvasm")).unwrap(),
        crate::assemble_spirv(include_str!("testdata/glslang/ops.spvasm")).unwrap(),
        crate::assemble_spirv(include_str!("testdata/glslang/matrix.spvasm")).unwrap(),
        crate::assemble_spirv(include_str!("testdata/glslang/mixed.opt.spvasm")).unwrap(),
        crate::assemble_spirv(&module(
            4,
            "",
            "",
            "%g = OpLoad %v3uint %gid\n%i = OpCompositeExtract %uint %g 0\n\
             %p = OpAccessChain %pf %bf %u0 %i\n%o = OpAtomicFAddEXT %float %p %u1 %u0 %f1\nOpReturn",
        ))
        .unwrap(),
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/front/spirv/testdata/cases");
    for name in [
        "f64-workgroup-contention.yaml",
        "validate-vector-result.yaml",
    ] {
        let doc: Value =
            serde_yaml_ng::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap();
        seeds.push(crate::assemble_spirv(doc["program"]["source"].as_str().unwrap()).unwrap());
    }
    let mut state = 0x5EED_u64;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let opts = Options::new(1, 20_000);
    let (mut ran, mut rejected) = (0, 0);
    let rounds: usize = std::env::var("SPV_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    for round in 0..rounds {
        let mut w = seeds[round % seeds.len()].clone();
        for _ in 0..1 + next() % 3 {
            let n = w.len() as u64;
            let k = 5 + (next() % (n - 5)) as usize;
            match next() % 5 {
                0 => w[k] = next() as u32 % 64,
                1 => w[k] ^= 1 << (next() % 32),
                2 => w[k] = w[k].wrapping_add(1),
                3 => {
                    let j = 5 + (next() % (n - 5)) as usize;
                    w.swap(k, j);
                }
                _ => w.truncate(k.max(6)),
            }
        }
        let mut p = src("");
        p.language = Language::Spirv;
        p.words = w;
        if check(&p).is_ok() {
            ran += 1;
            let pl = plan(
                p,
                vec![
                    buf("a", 0, Scalar::U32, vec![0; 1024]),
                    buf("b", 1, Scalar::F32, vec![0; 1024]),
                    buf("c", 2, Scalar::F64, vec![0; 1024]),
                ],
                1,
            );
            let _ = run(&pl, &opts);
        } else {
            rejected += 1;
        }
    }
    println!("mutated modules: {ran} built and ran, {rejected} rejected");
    assert!(rejected > 0);
}

/// A second glslang module (`testdata/glslang/ops.comp`): the integer atomic family on a
/// buffer and shared memory, a std140 uniform block, a Private variable with an initializer,
/// a do-while loop in a function, nested loops with break/continue, vector and bit operations.
#[test]
fn glslang_ops_module() {
    check_ops(include_str!("testdata/glslang/ops.spvasm"));
}

/// The same module after `spirv-opt -O`.
#[test]
fn glslang_ops_module_optimized() {
    check_ops(include_str!("testdata/glslang/ops.opt.spvasm"));
}

fn check_ops(text: &str) {
    let mut cnt = vec![0u32; 9];
    cnt[3] = u32::MAX;
    cnt[8] = 100;
    let mut params = conform_plan::bytes::from_u32s(&[3, 1000, 0, 0]);
    params.extend_from_slice(&0.5f32.to_le_bytes());
    params.resize(32, 0);
    let mut uniform = buf("params", 2, Scalar::U32, params);
    uniform.kind = BufferKind::Uniform;
    let out = run_ok(&plan(
        src(text),
        vec![
            buf("o", 0, Scalar::U32, vec![0; 4 * 8 * 32]),
            buf("cnt", 1, Scalar::U32, conform_plan::bytes::from_u32s(&cnt)),
            uniform,
        ],
        1,
    ));
    let o = u32s(&out[0]);
    let collatz = |mut n: u32| {
        let mut steps = 0;
        loop {
            n = if n & 1 == 0 { n / 2 } else { 3 * n + 1 };
            steps += 1;
            if n == 1 || steps >= 1000 {
                return steps;
            }
        }
    };
    let mut nest = 0;
    for a in 0..4u32 {
        for b in 0..4u32 {
            if b == a {
                continue;
            }
            if a + b > 5 {
                break;
            }
            nest += a * 10 + b;
        }
    }
    for i in 0..32u32 {
        let r = &o[i as usize * 8..i as usize * 8 + 8];
        let bits = ((i * 0x1234) >> 4 & 0xff)
            + (31 - (i + 1).leading_zeros()) * 1000
            + i.count_ones() * 100_000;
        let want = [
            collatz(i + 1),
            nest,
            i * (i + 2) + i + 1,
            2 * i,
            bits,
            7 + i,
            u32::from(i < 3),
            32 + 1000,
        ];
        assert_eq!(r, want, "invocation {i}");
    }
    let c = u32s(&out[1]);
    assert_eq!(c[0], 32 * 3, "atomicAdd");
    assert_eq!(c[1] as i32, -10, "atomicMin");
    assert_eq!(c[2] as i32, 93, "atomicMax");
    assert_eq!(c[3], 0, "atomicAnd");
    assert_eq!(c[4], 0xffff, "atomicOr");
    assert_eq!(c[5], 0, "atomicXor");
    assert_eq!(c[6], 5, "atomicExchange");
    assert!((1..=32).contains(&c[7]), "atomicCompSwap chain: {}", c[7]);
    assert_eq!(c[8], 68, "atomicAdd of -1");
}

/// OpAtomicFAddEXT through the StorageBuffer storage class (SPV_KHR_storage_buffer_storage_class
/// with Block), f32 and f64, Device scope.
#[test]
fn storage_buffer_class_f32_f64() {
    let text = r#"
OpCapability Shader
OpCapability Float64
OpCapability AtomicFloat32AddEXT
OpCapability AtomicFloat64AddEXT
OpExtension "SPV_KHR_storage_buffer_storage_class"
OpExtension "SPV_EXT_shader_atomic_float_add"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 100 1 1
OpMemberDecorate %B 0 Offset 0
OpMemberDecorate %B 1 Offset 8
OpDecorate %B Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 3
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%double = OpTypeFloat 64
%B = OpTypeStruct %float %double
%pB = OpTypePointer StorageBuffer %B
%buf = OpVariable %pB StorageBuffer
%pf = OpTypePointer StorageBuffer %float
%pd = OpTypePointer StorageBuffer %double
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%fq = OpConstant %float 0.25
%dq = OpConstant %double 0.125
%main = OpFunction %void None %fn
%e = OpLabel
%p = OpAccessChain %pf %buf %u0
%q = OpAccessChain %pd %buf %u1
%a = OpAtomicFAddEXT %float %p %u1 %u0 %fq
%b = OpAtomicFAddEXT %double %q %u1 %u0 %dq
OpReturn
OpFunctionEnd
"#;
    let mut bytes = 10.0f32.to_le_bytes().to_vec();
    bytes.extend_from_slice(&[0; 4]);
    bytes.extend_from_slice(&(-20.0f64).to_le_bytes());
    let out = run_ok(&plan(src(text), vec![buf("b", 3, Scalar::F32, bytes)], 3));
    let b = &out[0];
    assert_eq!(
        f32::from_le_bytes(b[0..4].try_into().unwrap()),
        10.0 + 300.0 * 0.25
    );
    assert_eq!(
        f64::from_le_bytes(b[8..16].try_into().unwrap()),
        -20.0 + 300.0 * 0.125
    );
}

/// With words assembled by the harness and the text kept, diagnostics still name text lines
/// (shifted by `first_line` in the build log).
#[test]
fn words_with_text_keep_line_numbers() {
    let text = module(
        1,
        "",
        "",
        "%p = OpAccessChain %pf %bf %u0 %u0\n%o = OpAtomicFAddEXT %float %p %u1 %u0 %f1\nOpReturn",
    )
    .replace("OpCapability AtomicFloat32AddEXT\n", "");
    let line = text
        .lines()
        .position(|l| l.contains("OpAtomicFAddEXT"))
        .unwrap() as u32
        + 1;
    let mut p = src(&text);
    p.words = crate::assemble_spirv(&text).unwrap();
    p.first_line = 10;
    let err = check(&p).unwrap_err();
    assert_eq!(err[0].line, line, "{err:?}");
    let out = run(&plan(p, vec![], 1), &Options::default()).unwrap();
    assert!(
        out.build.log.contains(&format!(
            "test:{}:1: error: SPVFADD-CAPABILITY-32",
            line + 9
        )),
        "{}",
        out.build.log
    );
}

/// glSpecializeShader failures: an entry point that does not exist, an unknown SpecId.
#[test]
fn specialization_failures_fail_validation() {
    let text = module(1, "", "", "OpReturn");
    let mut p = src(&text);
    p.entry = "nope".into();
    let out = run(&plan(p, vec![], 1), &Options::default()).unwrap();
    assert_eq!(out.build.failed_at, Some(BuildStage::Validate));
    assert!(
        out.build.log.contains("no entry point named \"nope\""),
        "{}",
        out.build.log
    );
    let mut p = src(&text);
    p.specialization = vec![(42, 1)];
    let out = run(&plan(p, vec![], 1), &Options::default()).unwrap();
    assert_eq!(out.build.failed_at, Some(BuildStage::Validate));
    assert!(
        out.build.log.contains("specialization constant 42"),
        "{}",
        out.build.log
    );
}

/// A valid instruction outside the subset is refused with its opcode and text line.
#[test]
fn unsupported_opcode_is_refused_with_position() {
    let text = module(
        1,
        "OpDecorate %img Binding 0\n",
        "%timg = OpTypeImage %float Cube 0 0 0 2 Rgba32f\n%pimg = OpTypePointer UniformConstant %timg\n\
         %img = OpVariable %pimg UniformConstant\n%v3int = OpTypeVector %int 3\n\
         %v4f = OpTypeVector %float 4\n%i0 = OpConstant %int 0\n%c0 = OpConstantComposite %v3int %i0 %i0 %i0\n",
        "%i = OpLoad %timg %img\n%s = OpImageRead %v4f %i %c0\nOpReturn",
    );
    let line = text
        .lines()
        .position(|l| l.contains("OpImageRead"))
        .unwrap()
        + 1;
    let err = check(&src(&text)).unwrap_err();
    assert!(
        err[0].message.contains("not supported")
            && err[0].message.contains(&format!("line {line}")),
        "{err:?}"
    );
    assert_eq!(err[0].line as usize, line);
    match run(&plan(src(&text), vec![], 1), &Options::default()) {
        Err(conform_plan::Refusal::Unsupported(m)) => {
            assert!(m.contains("OpImageRead is not supported"), "{m}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// `trace` explains one invocation of a SPIR-V program with its text lines.
#[test]
fn trace_names_spirv_lines() {
    let text = module(
        2,
        "",
        "",
        "%g = OpLoad %v3uint %gid\n%i = OpCompositeExtract %uint %g 0\n\
         %p = OpAccessChain %pu %bu %u0 %i\n%v = OpIAdd %uint %i %u10\nOpStore %p %v\nOpReturn",
    );
    let lines = crate::trace(
        &plan(src(&text), vec![buf("u", 0, Scalar::U32, vec![0; 8])], 1),
        &Options::default(),
        [0, 0, 0],
        1,
    )
    .unwrap();
    assert!(!lines.is_empty());
    let iadd = text.lines().position(|l| l.contains("OpIAdd")).unwrap() + 1;
    assert!(
        lines.iter().any(|l| l.contains(&format!("line {iadd}"))),
        "{lines:#?}"
    );
}

/// With SPV_EXT_shader_atomic_float16_add (AtomicFloat16AddEXT) a 16-bit add is not a
/// SPVFADD-WIDTHS violation; it runs when spirv-val accepts it for OpenGL.
#[test]
fn f16_add_with_float16_extension_is_not_a_width_violation() {
    let text = module(
        4,
        "",
        "%half = OpTypeFloat 16\n%ph = OpTypePointer Workgroup %half\n%wh = OpVariable %ph Workgroup\n%h1 = OpConstant %half 1\n%h0 = OpConstant %half 0\n",
        "%l = OpLoad %uint %lidx\n%first = OpIEqual %bool %l %u0\nOpSelectionMerge %m None\nOpBranchConditional %first %init %m\n\
         %init = OpLabel\nOpStore %wh %h0\nOpBranch %m\n%m = OpLabel\nOpControlBarrier %u2 %u2 %acqrel_wg\n\
         %o = OpAtomicFAddEXT %half %wh %u2 %u0 %h1\nOpControlBarrier %u2 %u2 %acqrel_wg\n\
         %t = OpLoad %half %wh\n%tf = OpFConvert %float %t\n%p = OpAccessChain %pf %bf %u0 %l\nOpStore %p %tf\nOpReturn",
    )
    .replace(
        "OpCapability Float64\n",
        "OpCapability Float64\nOpCapability Float16\nOpCapability AtomicFloat16AddEXT\nOpExtension \"SPV_EXT_shader_atomic_float16_add\"\n",
    );
    match check(&src(&text)) {
        Ok(()) => {
            let out = run_ok(&plan(
                src(&text),
                vec![buf("f", 1, Scalar::F32, vec![0; 16])],
                1,
            ));
            assert_eq!(f32s(&out[0]), vec![4.0; 4]);
        }
        Err(e) => {
            let all: String = e.iter().map(|d| d.message.clone()).collect();
            println!("rejected: {all}");
            assert!(!all.contains("SPVFADD-WIDTHS"), "{all}");
        }
    }
}

/// Matrices (`testdata/glslang/matrix.comp`): std430 / std140 members with MatrixStride,
/// matrix × vector, vector × matrix, matrix × matrix, transpose, outer product, matrix ×
/// scalar, whole-matrix loads and stores.
#[test]
fn glslang_matrix_module() {
    let text = include_str!("testdata/glslang/matrix.spvasm");
    let mut m = vec![0f32; 64];
    for (j, col) in [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
        .iter()
        .enumerate()
    {
        m[j * 4..j * 4 + 3].copy_from_slice(col);
    }
    m[12..16].copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
    m[16..20].copy_from_slice(&[5.0, 6.0, 7.0, 8.0]);
    let mut u = vec![0f32; 16];
    u[0..4].copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
    u[4..8].copy_from_slice(&[10.0, 20.0, 30.0, 40.0]);
    u[12..16].copy_from_slice(&[100.0, 200.0, 300.0, 400.0]);
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut ub = buf("u", 1, Scalar::F32, bytes(&u));
    ub.kind = BufferKind::Uniform;
    let out = run_ok(&plan(
        src(text),
        vec![buf("m", 0, Scalar::F32, bytes(&m)), ub],
        1,
    ));
    let r = f32s(&out[0]);
    let outv = |k: usize| &r[20 + 4 * k..24 + 4 * k];
    assert_eq!(outv(0), [18.0, 21.0, 24.0, 0.0], "a * v");
    assert_eq!(outv(1), [8.0, 17.0, 26.0, 0.0], "v * a");
    assert_eq!(outv(2), [78.0, 93.0, 108.0, 0.0], "(a * transpose(a))[1]");
    assert_eq!(outv(3), [10.0, 12.0, 14.0, 16.0], "(b * 2)[1]");
    assert_eq!(outv(4), [0.0, 3.0, 6.0, 0.0], "outerProduct[2]");
    assert_eq!(outv(5), [131.0, 262.0, 393.0, 524.0], "u * vec4");
    assert_eq!(outv(6), [7.0, 8.0, 9.0, 4.0], "a[2], b[0].w");
    assert_eq!(
        &r[52..64],
        [3.0, 6.0, 9.0, 0.0, 12.0, 15.0, 18.0, 0.0, 21.0, 24.0, 27.0, 0.0],
        "stored = a * 3 (column stride 16)"
    );
}

/// OpAtomicLoad / OpAtomicStore of floats and integers in StorageBuffer-backed and Workgroup
/// memory.
#[test]
fn atomic_load_store() {
    let text = module(
        2,
        "",
        "%sw = OpVariable %pwg_u Workgroup\n%f7 = OpConstant %float 7.5\n",
        "%l = OpLoad %uint %lidx\n%first = OpIEqual %bool %l %u0\nOpSelectionMerge %m None\nOpBranchConditional %first %w %m\n\
         %w = OpLabel\nOpAtomicStore %sw %u2 %u0 %u10\n%pf0 = OpAccessChain %pf %bf %u0 %u0\nOpAtomicStore %pf0 %u1 %u0 %f7\nOpBranch %m\n\
         %m = OpLabel\nOpControlBarrier %u2 %u2 %acqrel_wg\n\
         %a = OpAtomicLoad %uint %sw %u2 %u0\n%pf1 = OpAccessChain %pf %bf %u0 %u0\n%b = OpAtomicLoad %float %pf1 %u1 %u0\n\
         %bv = OpConvertFToU %uint %b\n%s = OpIAdd %uint %a %bv\n%p = OpAccessChain %pu %bu %u0 %l\nOpStore %p %s\nOpReturn",
    );
    let out = run_ok(&plan(
        src(&text),
        vec![
            buf("u", 0, Scalar::U32, vec![0; 8]),
            buf("f", 1, Scalar::F32, vec![0; 4]),
        ],
        1,
    ));
    assert_eq!(u32s(&out[0]), vec![17, 17]);
    assert_eq!(f32s(&out[1]), vec![7.5]);
}

/// Frexp on subnormals (which a case cannot feed a driver: inputs may be flushed) is scaled
/// into the normal range first; Modf of an infinity is (+0, +inf).
#[test]
fn frexp_of_subnormals_and_modf_of_infinity() {
    let types = "%sfi = OpTypeStruct %float %int\n%sff = OpTypeStruct %float %float\n\
                 %sdi = OpTypeStruct %double %int\n%u3 = OpConstant %uint 3\n\
                 %u4 = OpConstant %uint 4\n%u5 = OpConstant %uint 5\n%u6 = OpConstant %uint 6\n";
    let mut body = String::new();
    for k in 0..3 {
        body += &format!("%p{k} = OpAccessChain %pf %bf %u0 %u{k}\n%x{k} = OpLoad %float %p{k}\n");
    }
    body += "%pd0 = OpAccessChain %pd %bd %u0 %u0\n%y0 = OpLoad %double %pd0\n\
             %r0 = OpExtInst %sfi %glsl FrexpStruct %x0\n%r1 = OpExtInst %sfi %glsl FrexpStruct %x1\n\
             %r2 = OpExtInst %sff %glsl ModfStruct %x2\n%r3 = OpExtInst %sdi %glsl FrexpStruct %y0\n";
    let outs = [
        ("r0", 0, "float"),
        ("r0", 1, "int"),
        ("r1", 0, "float"),
        ("r1", 1, "int"),
        ("r2", 0, "float"),
        ("r2", 1, "float"),
        ("r3", 1, "int"),
    ];
    for (k, (r, m, t)) in outs.iter().enumerate() {
        body += &format!(
            "%o{k} = OpCompositeExtract %{t} %{r} {m}\n%ob{k} = OpBitcast %uint %o{k}\n\
             %q{k} = OpAccessChain %pu %bu %u0 %u{k}\nOpStore %q{k} %ob{k}\n"
        );
    }
    body += "%dm = OpCompositeExtract %double %r3 0\n%qd = OpAccessChain %pd %bd %u0 %u1\n\
             OpStore %qd %dm\nOpReturn";
    let text = module(1, "", types, &body);
    let floats: Vec<u8> = [0x0000_0200u32, 0x8000_0003, 0x7f80_0000]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let doubles: Vec<u8> = [1u64, 0].iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = plan(
        src(&text),
        vec![
            buf("u", 0, Scalar::U32, vec![0; 28]),
            buf("f", 1, Scalar::F32, floats),
            buf("d", 2, Scalar::F64, doubles),
        ],
        1,
    );
    let out = run_ok(&p);
    let w = u32s(&out[0]);
    // 2^-140 = 0.5 * 2^-139; -3 * 2^-149 = -0.75 * 2^-147; modf(+inf) = (+0, +inf)
    assert_eq!(
        w,
        vec![
            0.5f32.to_bits(),
            (-139i32) as u32,
            (-0.75f32).to_bits(),
            (-147i32) as u32,
            0,
            f32::INFINITY.to_bits(),
            (-1073i32) as u32
        ]
    );
    // 2^-1074 = 0.5 * 2^-1073
    assert_eq!(f64s(&out[2])[1], 0.5);
}

#[test]
fn arrays_of_blocks_by_element_and_their_undefined_indices() {
    // %ba: BufU[2] at bindings 3 and 4; each invocation stores 7 into element `idx` of it.
    let decos = "OpDecorate %ba DescriptorSet 0\nOpDecorate %ba Binding 3\n";
    let types = "%arr_bu = OpTypeArray %BufU %u2\n%ptr_ba = OpTypePointer Uniform %arr_bu\n\
                 %ba = OpVariable %ptr_ba Uniform\n%u7 = OpConstant %uint 7\n";
    let run_idx = |idx: &str| {
        let body = format!(
            "%i = OpLoad %uint %lidx\n{idx}\n%p = OpAccessChain %pu %ba %k %u0 %i\n\
             OpStore %p %u7\nOpReturn"
        );
        let buffers = vec![
            buf("b3", 3, Scalar::U32, vec![0; 8]),
            buf("b4", 4, Scalar::U32, vec![0; 8]),
        ];
        run(
            &plan(src(&module(2, decos, types, &body)), buffers, 1),
            &Options::default(),
        )
        .unwrap()
    };
    // A constant and a uniform run-time index pick binding 4.
    for idx in [
        "%k = OpCopyObject %uint %u1",
        "%z = OpIMul %uint %i %u0\n%k = OpIAdd %uint %z %u1",
    ] {
        let out = run_idx(idx);
        assert!(out.flags.is_empty(), "{:?}", out.flags);
        assert_eq!(u32s(&out.buffers[0]), [0, 0]);
        assert_eq!(u32s(&out.buffers[1]), [7, 7]);
    }
    // An index that differs between the invocations, and one past the array.
    let out = run_idx("%k = OpCopyObject %uint %i");
    assert!(out
        .flags
        .iter()
        .any(|f| f.kind == FlagKind::NonUniformBlockIndex));
    let out = run_idx("%k = OpIAdd %uint %u2 %u0");
    assert!(out.flags.iter().any(|f| f.kind == FlagKind::OutOfBounds));
    assert_eq!(
        (u32s(&out.buffers[0]), u32s(&out.buffers[1])),
        (vec![0, 0], vec![0, 0])
    );
}

mod image_tests;
mod subgroup_tests;
mod undefined_tests;

/// SPIR-V leaves OpSDiv, OpSRem and OpSMod of the minimum integer by -1 undefined, and
/// OpenGL's environment OpSRem and OpSMod with any negative operand: the reference flags the
/// result where it is stored; the same instructions on other operands are not flagged.
#[test]
fn signed_division_of_the_minimum_by_minus_one_is_flagged() {
    for op in ["OpSDiv", "OpSRem", "OpSMod"] {
        let text = module(
            1,
            "",
            "%pu_i = OpTypePointer Uniform %uint\n",
            &format!(
                "%pa = OpAccessChain %pu %bu %u0 %u0\n%pb = OpAccessChain %pu %bu %u0 %u1\n\
                 %a = OpLoad %uint %pa\n%b = OpLoad %uint %pb\n\
                 %ai = OpBitcast %int %a\n%bi = OpBitcast %int %b\n\
                 %r = {op} %int %ai %bi\n%ru = OpBitcast %uint %r\n\
                 %po = OpAccessChain %pu %bu %u0 %u2\nOpStore %po %ru\nOpReturn"
            ),
        );
        let flagged = |a: u32, b: u32| {
            let p = plan(
                src(&text),
                vec![buf(
                    "u",
                    0,
                    Scalar::U32,
                    conform_plan::bytes::from_u32s(&[a, b, 0]),
                )],
                1,
            );
            let out = run(&p, &Options::default()).unwrap();
            assert_eq!(out.build.failed_at, None, "{}", out.build.log);
            out.flags
                .iter()
                .find(|f| f.kind == FlagKind::UndefinedValue)
                .map(|f| f.message.clone())
        };
        let f =
            flagged(0x8000_0000, u32::MAX).unwrap_or_else(|| panic!("{op} MIN / -1 not flagged"));
        if op == "OpSDiv" {
            assert!(f.contains("minimum integer by -1"), "{op}: {f}");
            assert_eq!(flagged(0x8000_0000, 2), None, "{op} MIN / 2");
            assert_eq!(flagged(7, u32::MAX), None, "{op} 7 / -1");
            continue;
        }
        // ARB_gl_spirv A.spv.6: "For the OpSRem and OpSMod instructions, if either operand
        // is negative the result is undefined."
        for (a, b) in [(-7i32, 2i32), (7, -2), (-7, -2), (i32::MIN, 2)] {
            let f = flagged(a as u32, b as u32)
                .unwrap_or_else(|| panic!("{op} {a}, {b}: a negative operand, not flagged"));
            assert!(
                f.contains("OpSRem or OpSMod with a negative operand"),
                "{op}: {f}"
            );
        }
        assert_eq!(flagged(7, 2), None, "{op} 7, 2");
        assert_eq!(flagged(0, 5), None, "{op} 0, 5");
    }
}
