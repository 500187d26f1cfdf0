//! Unit tests: small shaders lowered and run through `crate::run` with hand-built plans.

use crate::Options;
use conform_plan::bytes::{from_u32s, read_u32s};
use conform_plan::{
    BufferInit, BufferKind, BuildStage, ElemType, ExecPlan, FlagKind, Language, Outcome,
    ProgramSource, Refusal, Scalar, Stage, Step, UniformInit,
};

pub fn prog(stage: Stage, text: &str) -> ProgramSource {
    ProgramSource::from_text(Language::Glsl, stage, text, "test")
}

pub fn buf(binding: u32, kind: BufferKind, words: &[u32]) -> BufferInit {
    BufferInit {
        name: format!("b{binding}"),
        kind,
        binding,
        elem: ElemType::scalar(Scalar::U32),
        bytes: from_u32s(words),
    }
}

pub fn plan_of(
    programs: Vec<ProgramSource>,
    buffers: Vec<BufferInit>,
    groups: [u32; 3],
) -> ExecPlan {
    ExecPlan {
        case: "unit".into(),
        programs,
        buffers,
        uniforms: vec![],
        steps: vec![Step::Dispatch { groups }],
        timeout_ms: 1000,
        skip_steps_if_built: false,
    }
}

pub fn run_plan(plan: &ExecPlan) -> Result<Outcome, Refusal> {
    crate::run(plan, &Options::default())
}

/// Runs `src` with storage buffers of u32 words at bindings 0.. and returns them.
pub fn run_words(src: &str, bufs: &[&[u32]], groups: [u32; 3]) -> Vec<Vec<u32>> {
    let buffers = bufs
        .iter()
        .enumerate()
        .map(|(i, w)| buf(i as u32, BufferKind::Storage, w))
        .collect();
    let plan = plan_of(vec![prog(Stage::Compute, src)], buffers, groups);
    let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
    assert_eq!(out.build.failed_at, None, "build failed: {}", out.build.log);
    out.buffers.iter().map(|b| read_u32s(b)).collect()
}

/// Builds a program and returns the failing stage and log.
pub fn build_fail(programs: Vec<ProgramSource>) -> (BuildStage, String) {
    let plan = plan_of(
        programs,
        vec![buf(0, BufferKind::Storage, &[0; 4])],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
    match out.build.failed_at {
        Some(s) => (s, out.build.log),
        None => panic!("expected a build failure"),
    }
}

fn compile_fail(src: &str) -> String {
    let (st, log) = build_fail(vec![prog(Stage::Compute, src)]);
    assert_eq!(st, BuildStage::Compile, "log: {log}");
    log
}

fn unsupported(src: &str) -> String {
    let plan = plan_of(vec![prog(Stage::Compute, src)], vec![], [1, 1, 1]);
    match run_plan(&plan) {
        Err(Refusal::Unsupported(m)) => m,
        other => panic!("expected unsupported, got {other:?}"),
    }
}

const HDR: &str = "#version 430\nlayout(local_size_x = 4) in;\nlayout(std430, binding = 0) buffer Out { uint v[]; };\n";

fn hdr(body: &str) -> String {
    format!("{HDR}{body}")
}

#[test]
fn store_invocation_index() {
    let out = run_words(
        &hdr("void main() { v[gl_LocalInvocationIndex] = gl_LocalInvocationIndex * 3u + 1u; }"),
        &[&[0; 8]],
        [2, 1, 1],
    );
    assert_eq!(out[0], vec![1, 4, 7, 10, 0, 0, 0, 0]);
}

#[test]
fn global_ids_and_builtins() {
    let src = "#version 430\nlayout(local_size_x = 2, local_size_y = 2) in;\n\
        layout(std430, binding = 0) buffer Out { uvec4 o[]; };\n\
        void main() { uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 4u;\n\
        o[i] = uvec4(gl_WorkGroupID.xy, gl_NumWorkGroups.x, gl_WorkGroupSize.x * 10u + gl_LocalInvocationIndex); }";
    let out = run_words(src, &[&[0; 32]], [2, 2, 1]);
    let o = &out[0];
    // invocation (x=3, y=1): group (1,0), local (1,1): index 3
    let i = 3 + 4;
    assert_eq!(&o[i * 4..i * 4 + 4], &[1, 0, 2, 23]);
}

#[test]
fn control_flow_loops_switch() {
    let src = hdr(
        "uint f(uint n) { uint s = 0u; for (uint i = 0u; i < n; ++i) { if (i == 2u) continue; if (i == 6u) break; s += i; } return s; }\n\
         uint g(int k) { uint r = 0u; switch (k) { case 0: r = 10u; case 1: r += 1u; break; case 2: { r = 20u; break; } default: r = 99u; } return r; }\n\
         void main() { uint id = gl_LocalInvocationIndex;\n\
           uint w = 0u; int j = 0; while (true) { j++; if (j > 5) break; if ((j & 1) == 0) continue; w += uint(j); }\n\
           uint d = 0u; do { d += 2u; } while (d < 7u);\n\
           v[id] = f(id * 3u) + 1000u * g(int(id)) + 100000u * w + 10000000u * d; }",
    );
    let out = run_words(&src, &[&[0; 4]], [1, 1, 1]);
    // f(0)=0 f(3)=0+1=1 f(6)=0+1+3+4+5=13 f(9)=13 (break at 6)
    // g(0)=11 g(1)=1 g(2)=20 g(3)=99 ; w = 1+3+5 = 9 ; d = 8
    let base = 9 * 100000 + 8 * 10000000;
    assert_eq!(
        out[0],
        vec![
            base + 11000,
            base + 1 + 1000,
            base + 13 + 20000,
            base + 13 + 99000
        ]
    );
}

#[test]
fn inout_params_structs_arrays() {
    let src = hdr(
        "struct P { uint a; uint b[3]; };\n\
         void bump(inout uint x, out uint y) { x += 5u; y = x * 2u; }\n\
         P make(uint k) { P p; p.a = k; for (int i = 0; i < 3; i++) p.b[i] = k + uint(i); return p; }\n\
         const uint K = 3u;\n uint table[K] = uint[](7u, 8u, 9u);\n\
         void main() { uint id = gl_LocalInvocationIndex; uint x = id; uint y; bump(x, y);\n\
           P p = make(id); P q = p; q.b[1] = 100u;\n\
           v[id] = x + 10u * y + 1000u * p.b[1] + 100000u * q.b[1] + table[id % 3u]; }",
    );
    let out = run_words(&src, &[&[0; 4]], [1, 1, 1]);
    let e = |id: u32| {
        let x = id + 5;
        x + 10 * (2 * x) + 1000 * (id + 1) + 100000 * 100 + [7, 8, 9][(id % 3) as usize]
    };
    assert_eq!(out[0], vec![e(0), e(1), e(2), e(3)]);
}

#[test]
fn shared_barrier_and_atomics() {
    let src = "#version 430\nlayout(local_size_x = 8) in;\n\
        layout(std430, binding = 0) buffer Out { int s; uint m; uint v[]; };\n\
        shared uint t[8]; shared uint cnt;\n\
        void main() { uint i = gl_LocalInvocationIndex; if (i == 0u) cnt = 0u; t[i] = i * i; barrier();\n\
          v[i] = t[7u - i]; atomicAdd(cnt, 1u); atomicMax(s, -int(i)); atomicMin(m, i + 3u); barrier();\n\
          if (i == 0u) v[8] = cnt; }";
    let mut init = vec![0u32; 11];
    init[0] = (-100i32) as u32;
    init[1] = 1000;
    let out = run_words(src, &[&init], [1, 1, 1]);
    assert_eq!(&out[0][2..10], &[49, 36, 25, 16, 9, 4, 1, 0]);
    assert_eq!(out[0][10], 8);
    assert_eq!(out[0][0], 0);
    assert_eq!(out[0][1], 3);
}

#[test]
fn compswap_exchange_float_atomics() {
    let src = "#version 430\n#extension GL_NV_shader_atomic_float : require\nlayout(local_size_x = 4) in;\n\
        layout(std430, binding = 0) buffer Out { uint c; uint e; float f; uint r[4]; };\n\
        void main() { uint i = gl_LocalInvocationIndex; r[i] = atomicCompSwap(c, i, i + 1u); atomicExchange(e, 7u); atomicAdd(f, 0.5); }";
    let out = run_words(src, &[&[0; 7]], [1, 1, 1]);
    assert_eq!(out[0][0], 4);
    assert_eq!(out[0][1], 7);
    assert_eq!(f32::from_bits(out[0][2]), 2.0);
    assert_eq!(&out[0][3..7], &[0, 1, 2, 3]);
}

#[test]
fn float_atomic_needs_extension() {
    let log = compile_fail(&hdr(
        "layout(std430, binding = 1) buffer F { float f; };\nvoid main() { atomicAdd(f, 1.0); }",
    ));
    assert!(log.contains("GL_NV_shader_atomic_float"), "{log}");
    assert!(log.starts_with("line 5:"), "{log}");
}

#[test]
fn vectors_swizzles_conversions_builtins() {
    let src = hdr(
        "void main() { uint id = gl_LocalInvocationIndex; vec4 a = vec4(1.5, -2.0, 3.25, float(id));\n\
         ivec2 b = ivec2(a.xy); a.zw = a.wz; uvec3 c = uvec3(7u); c[id % 3u] = 1u;\n\
         bvec2 bb = lessThan(vec2(b), vec2(0.0)); float fl = floor(-1.5) + fract(2.25) + abs(-3.0);\n\
         uint bits = floatBitsToUint(1.0); int ext = bitfieldExtract(int(0xF0), 4, 4);\n\
         v[id] = uint(b.x) + uint(-b.y) * 10u + uint(a.z) * 100u + c.x * 1000u + (any(bb) ? 10000u : 0u)\n\
           + (all(bb) ? 20000u : 0u) + uint(fl + 100.0) * 100000u + (bits == 0x3f800000u ? 0u : 1u) + uint(ext + 1) * 0u\n\
           + uint(findMSB(256u)) * 0u + bitCount(0xFFu) * 0u + uint(min(3, max(-1, int(id))) == int(id)) * 0u; }",
    );
    let out = run_words(&src, &[&[0; 4]], [1, 1, 1]);
    // fl = -2 + 0.25 + 3 = 1.25 -> 101
    for id in 0..4u32 {
        let cx = if id % 3 == 0 { 1 } else { 7 };
        let e = 1 + 20 + id * 100 + cx * 1000 + 10000 + 101 * 100000;
        assert_eq!(out[0][id as usize], e, "id {id}");
    }
}

#[test]
fn short_circuit_and_ternary_side_effects() {
    let src = hdr(
        "uint n = 0u;\nbool bump() { n++; return true; }\n\
         void main() { uint id = gl_LocalInvocationIndex; bool x = (id > 1u) && bump(); bool y = (id > 1u) || bump();\n\
         uint t = id == 0u ? (n += 10u) : (n += 100u); v[id] = n + (x ? 1000u : 0u) + (y ? 2000u : 0u) + t * 0u; }",
    );
    let out = run_words(&src, &[&[0; 4]], [1, 1, 1]);
    assert_eq!(out[0], vec![11 + 2000, 101 + 2000, 101 + 3000, 101 + 3000]);
}

#[test]
fn uniforms_and_uniform_blocks_and_counters() {
    let src = "#version 430\nlayout(local_size_x = 4) in;\n\
        layout(std430, binding = 0) buffer Out { uint v[]; };\n\
        layout(std140, binding = 1) uniform U { uint scale; vec3 pad; uint arr[2]; };\n\
        layout(binding = 0, offset = 4) uniform atomic_uint ctr;\n\
        uniform uint base; uniform int offs[2];\n\
        void main() { uint id = gl_LocalInvocationIndex; uint old = atomicCounterIncrement(ctr);\n\
          v[id] = base + scale * id + arr[1] + uint(offs[1]) + old * 0u; }";
    let mut plan = plan_of(
        vec![prog(Stage::Compute, src)],
        vec![
            buf(0, BufferKind::Storage, &[0; 4]),
            // std140: scale @0, pad @16, arr[0] @32, arr[1] @48
            buf(
                1,
                BufferKind::Uniform,
                &[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 0, 0, 0],
            ),
            buf(0, BufferKind::AtomicCounter, &[0, 10]),
        ],
        [1, 1, 1],
    );
    plan.uniforms = vec![
        UniformInit {
            name: "base".into(),
            elem: ElemType::scalar(Scalar::U32),
            bytes: from_u32s(&[1000]),
        },
        UniformInit {
            name: "offs".into(),
            elem: ElemType::scalar(Scalar::I32),
            bytes: from_u32s(&[1, 7]),
        },
    ];
    let out = run_plan(&plan).unwrap();
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    assert_eq!(read_u32s(&out.buffers[0]), vec![1057, 1060, 1063, 1066]);
    assert_eq!(read_u32s(&out.buffers[2]), vec![0, 14]);
}

#[test]
fn shuffle_all_modes_and_valid() {
    let src = "#version 430\n#extension GL_NV_shader_thread_shuffle : require\nlayout(local_size_x = 32) in;\n\
        layout(std430, binding = 0) buffer Out { uint v[]; };\n\
        void main() { uint l = gl_LocalInvocationIndex; bool ok;\n\
          uvec2 d = uvec2(100u + l, 200u + l);\n\
          uvec2 r = shuffleDownNV(d, 3u, 8u, ok); v[l] = r.y; v[32u + l] = ok ? 1u : 0u;\n\
          v[64u + l] = uint(shuffleUpNV(int(l), 1u, 32u)); v[96u + l] = shuffleXorNV(l, 1u, 2u) + (shuffleNV(l > 3u, 4u, 8u) ? 1000u : 0u); }";
    let out = run_words(src, &[&[0; 128]], [1, 1, 1]);
    for l in 0..32u32 {
        let rel = l % 8;
        let down_ok = rel + 3 < 8;
        assert_eq!(
            out[0][l as usize],
            if down_ok { 200 + l + 3 } else { 200 + l }
        );
        assert_eq!(out[0][32 + l as usize], u32::from(down_ok));
        assert_eq!(out[0][64 + l as usize], l.saturating_sub(1));
        let src4 = (l & !7) + 4;
        assert_eq!(
            out[0][96 + l as usize],
            (l ^ 1) + if src4 > 3 { 1000 } else { 0 }
        );
    }
}

#[test]
fn shuffle_needs_extension_and_macro_defined() {
    let log = compile_fail(&hdr("void main() { v[0] = shuffleNV(1u, 0u, 32u); }"));
    assert!(log.contains("GL_NV_shader_thread_shuffle"), "{log}");
    let out = run_words(
        &hdr("void main() {\n#if GL_NV_shader_thread_shuffle == 1\n v[0] = 1u;\n#endif\n}"),
        &[&[0; 1]],
        [1, 1, 1],
    );
    assert_eq!(out[0][0], 1);
}

#[test]
fn compile_rules() {
    let too_big = compile_fail("#version 430\nlayout(local_size_x = 2048) in;\nvoid main() {}");
    assert!(too_big.contains("exceeds the maximum"), "{too_big}");
    let z = compile_fail("#version 430\nlayout(local_size_z = 65) in;\nvoid main() {}");
    assert!(z.contains("local_size_z"), "{z}");
    let conflict = compile_fail(
        "#version 430\nlayout(local_size_x = 8) in;\nlayout(local_size_x = 16) in;\nvoid main() {}",
    );
    assert!(
        conflict.starts_with("line 3:") && conflict.contains("conflicting"),
        "{conflict}"
    );
    let loc =
        compile_fail("#version 430\nlayout(local_size_x = 1, location = 0) in;\nvoid main() {}");
    assert!(loc.contains("location"), "{loc}");
    let inp =
        compile_fail("#version 430\nlayout(local_size_x = 1) in;\nin uint x;\nvoid main() {}");
    assert!(
        inp.contains("in/out") && inp.starts_with("line 3:"),
        "{inp}"
    );
    let outp =
        compile_fail("#version 430\nlayout(local_size_x = 1) in;\nout vec4 c;\nvoid main() {}");
    assert!(outp.contains("output"), "{outp}");
    let redecl =
        compile_fail("#version 430\nlayout(local_size_x = 1) in;\nin uvec3 gl_LocalInvocationID;\nvoid main() {}");
    assert!(redecl.contains("gl_LocalInvocationID"), "{redecl}");
    let sh = compile_fail(
        "#version 430\nlayout(local_size_x = 1) in;\nshared uint s = 0u;\nvoid main() {}",
    );
    assert!(
        sh.contains("shared variables cannot have initializers"),
        "{sh}"
    );
    let at = compile_fail(&hdr(
        "void main() { uint x = 0u; v[0] = atomicAdd(x, 1u); }",
    ));
    assert!(at.contains("buffer or shared"), "{at}");
    let ty = compile_fail(&hdr("void main() { v[0] = vec2(1.0); }"));
    assert!(ty.contains("cannot convert"), "{ty}");
    let parse = compile_fail(&hdr("void main() { v[0] = ; }"));
    assert!(parse.starts_with("line 4:"), "{parse}");
}

#[test]
fn non_compute_stage_rules() {
    let (st, log) = build_fail(vec![prog(
        Stage::Vertex,
        "#version 430\nshared uint s;\nvoid main() { gl_Position = vec4(0.0); }",
    )]);
    assert_eq!(st, BuildStage::Compile);
    assert!(log.contains("'shared'"), "{log}");
    let (st, log) = build_fail(vec![prog(
        Stage::Fragment,
        "#version 430\nvoid main() {\n memoryBarrierShared(); }",
    )]);
    assert_eq!(st, BuildStage::Compile);
    assert!(
        log.starts_with("line 3:") && log.contains("memoryBarrierShared"),
        "{log}"
    );
    // A graphics-only program links; it has no compute executable, so dispatch fails.
    let plan = plan_of(
        vec![prog(Stage::Vertex, "#version 430\nvoid main() { }")],
        vec![buf(0, BufferKind::Storage, &[5])],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap();
    assert_eq!(out.build.failed_at, None);
    assert!(
        out.build.log.contains("not a compute shader"),
        "{}",
        out.build.log
    );
    assert_eq!(
        out.steps[0].error,
        Some(conform_plan::GlError::InvalidOperation)
    );
    assert_eq!(read_u32s(&out.buffers[0]), vec![5]);
    assert!(crate::check(&plan.programs[0]).is_ok());
    let (st, log) = build_fail(vec![
        prog(
            Stage::Compute,
            "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { }",
        ),
        prog(Stage::Vertex, "#version 430\nvoid main() { }"),
    ]);
    assert_eq!(st, BuildStage::Link);
    assert!(log.contains("other stages"), "{log}");
}

#[test]
fn link_rules() {
    let a = "#version 430\nlayout(local_size_x = 8) in;\nvoid store_one(uint i);\nvoid main() { store_one(gl_LocalInvocationIndex); }";
    let b16 = "#version 430\nlayout(local_size_x = 16) in;\nlayout(std430, binding = 0) buffer Out { uint v[]; };\nvoid store_one(uint i) { v[i] = 1u; }";
    let b_none = "#version 430\nlayout(std430, binding = 0) buffer Out { uint v[]; };\nvoid store_one(uint i) { v[i] = i + 1u; }";
    let (st, log) = build_fail(vec![prog(Stage::Compute, a), prog(Stage::Compute, b16)]);
    assert_eq!(st, BuildStage::Link);
    assert!(log.contains("differ"), "{log}");
    let (st, log) = build_fail(vec![
        prog(Stage::Compute, b_none),
        prog(
            Stage::Compute,
            "#version 430\nvoid store_one(uint i);\nvoid main() { store_one(0u); }",
        ),
    ]);
    assert_eq!(st, BuildStage::Link);
    assert!(log.contains("no local size"), "{log}");
    let (st, log) = build_fail(vec![prog(Stage::Compute, a)]);
    assert_eq!(st, BuildStage::Link);
    assert!(log.contains("not defined"), "{log}");
    // Two shaders, one with the local size, linked: the function from the other runs.
    let plan = plan_of(
        vec![prog(Stage::Compute, a), prog(Stage::Compute, b_none)],
        vec![buf(0, BufferKind::Storage, &[0; 8])],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap();
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    assert_eq!(read_u32s(&out.buffers[0]), (1..=8).collect::<Vec<_>>());
}

#[test]
fn refusals_name_construct_and_line() {
    let m = unsupported(
        "#version 430\nlayout(local_size_x = 1) in;\nuniform uint u[2] = uint[2](1u, 2u);\nvoid main() {\n uint x = u[0]; }",
    );
    assert!(m.contains("line 3") && m.contains("initializer"), "{m}");
    let m = unsupported(
        "#version 430\n#extension GL_NV_shader_thread_group : enable\nlayout(local_size_x = 1) in;\nvoid main() { uint x = ballotThreadNV(true); }",
    );
    assert!(m.contains("'ballotThreadNV'"), "{m}");
}

#[test]
fn matrix_uniforms_are_slots_with_std430_column_strides() {
    let p = prog(
        Stage::Compute,
        "#version 430\nlayout(local_size_x = 1) in;\nuniform mat3 m;\nlayout(location = 4) uniform dmat2x3 d[2];\n\
         layout(std430, binding = 0) buffer B { float o; };\nvoid main() { o = m[2][1] + float(d[1][0][2]); }",
    );
    let prog = crate::front::build(&[p], None, &Options::default())
        .unwrap()
        .program;
    let got: Vec<_> = prog
        .uniforms
        .iter()
        .map(|u| {
            (
                u.name.as_str(),
                u.location,
                u.ty.columns,
                u.ty.rows,
                u.array,
                u.offset,
                u.stride,
                u.column_stride,
            )
        })
        .collect();
    // mat3: three vec3 columns 16 bytes apart (std430 vec3 alignment), 48 bytes; dmat2x3[2]
    // at 64 (32-byte alignment of dvec3), two columns 32 bytes apart, elements 64 apart.
    assert_eq!(
        got,
        vec![
            ("m", None, 3, 3, None, 0, 48, 16),
            ("d", Some(4), 2, 3, Some(2), 64, 64, 32),
        ]
    );
}

#[test]
fn out_of_range_dynamic_index_is_flagged() {
    let src = hdr("void main() { uint a[2] = uint[](1u, 2u); uint i = gl_LocalInvocationIndex; v[i] = a[i]; }");
    let plan = plan_of(
        vec![prog(Stage::Compute, &src)],
        vec![buf(0, BufferKind::Storage, &[9; 4])],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap();
    assert_eq!(read_u32s(&out.buffers[0]), vec![1, 2, 0, 0]);
    assert!(out.flags.iter().any(|f| f.kind == FlagKind::OutOfBounds));
}

#[test]
fn runtime_array_length_from_plan() {
    let out = run_words(
        &hdr("void main() { v[0] = uint(v.length()); }"),
        &[&[0; 6]],
        [1, 1, 1],
    );
    assert_eq!(out[0][0], 6);
}

#[test]
fn never_panics_on_garbage() {
    for src in [
        "",
        "#version 430\n",
        "#version 430\nvoid main() { main(); }",
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { int a[3]; a[5] = 1; }",
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { break; }",
        "#version 430\nlayout(local_size_x = 1) in;\nstruct S { int a; }; void main() { S s; s.b = 1; }",
        "#version 430\n#extension GL_FOO_bar : require\nvoid main() {}",
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { uint x = 1u; x.yy = uvec2(1u); }",
        "#version 430\nlayout(local_size_x = 1) in;\nint f(int a) { return f(a); } void main() { f(1); }",
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { switch (1) { case 1: case 1: break; } }",
    ] {
        let plan = plan_of(vec![prog(Stage::Compute, src)], vec![], [1, 1, 1]);
        let _ = run_plan(&plan);
        let _ = crate::check(&plan.programs[0]);
    }
}

#[test]
fn globals_shared_across_shaders_of_a_program() {
    let a = "#version 430\nlayout(local_size_x = 4) in;\nlayout(std430, binding = 0) buffer Out { uint v[]; };\n\
        shared uint s[4];\nuint g = 5u;\nvoid fill(uint i);\nvoid main() { uint i = gl_LocalInvocationIndex; fill(i); barrier(); v[i] = s[3u - i] + g; }";
    let b = "#version 430\nlayout(std430, binding = 0) buffer Out { uint v[]; };\nshared uint s[4];\nuint g = 5u;\n\
        void fill(uint i) { s[i] = i * 10u; g = 7u; }";
    let plan = plan_of(
        vec![prog(Stage::Compute, a), prog(Stage::Compute, b)],
        vec![buf(0, BufferKind::Storage, &[0; 4])],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap();
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    assert_eq!(read_u32s(&out.buffers[0]), vec![37, 27, 17, 7]);
    let c =
        "#version 430\nlayout(std430, binding = 0) buffer Out { int v[]; };\nvoid fill(uint i) { }";
    let (st, log) = build_fail(vec![prog(Stage::Compute, a), prog(Stage::Compute, c)]);
    assert_eq!(st, BuildStage::Link);
    assert!(log.contains("declared differently"), "{log}");
    let (st, log) = build_fail(vec![
        prog(Stage::Compute, a),
        prog(Stage::Compute, b),
        prog(Stage::Compute, b),
    ]);
    assert_eq!(st, BuildStage::Link, "{log}");
}

const CORPUS: &[&str] = &[
    "#version 430\n#extension GL_NV_shader_thread_shuffle : require\nlayout(local_size_x = 32) in;\nlayout(std430, binding = 0) buffer O { uint o[]; };\nstruct S { uint a; vec2 b[2]; };\nshared S sh[4];\nuint f(inout uint x, out bool y) { x += 1u; y = x > 2u; return x * 2u; }\nvoid main() { uint l = gl_LocalInvocationIndex; bool ok; uint r = shuffleXorNV(l, 3u, 8u, ok);\n for (int i = 0; i < 3; i++) { if (i == 1) continue; switch (i) { case 0: r += 1u; break; default: r ^= 2u; } }\n sh[l % 4u].a = r; barrier(); bool y; o[l] = f(r, y) + sh[3u - l % 4u].a + (y ? 1u : 0u) + uint(sh[0].b[1].y); atomicAdd(o[0], 1u); }",
    "#version 430\nlayout(local_size_x = 8, local_size_y = 2) in;\nlayout(std140, binding = 1) uniform U { uvec4 k; float f[3]; };\nlayout(std430, binding = 0) buffer O { ivec2 o[]; };\nconst int N = 3;\nint g[N] = int[](1, 2, 3);\nvoid main() { ivec2 v = ivec2(gl_LocalInvocationID.xy); v.yx = v.xy * N - g[v.x % 3]; do { v.x--; } while (v.x > 0 && v.y < 5 || false);\n o[gl_LocalInvocationIndex] = v + ivec2(k.xy) + ivec2(f[1]); }",
];

#[test]
fn mutated_sources_never_panic() {
    use quickcheck::{QuickCheck, TestResult};
    fn prop(which: u8, cuts: Vec<(u16, u16, u8)>) -> TestResult {
        let mut s: Vec<u8> = CORPUS[which as usize % CORPUS.len()].as_bytes().to_vec();
        for (a, b, op) in cuts.iter().take(4) {
            if s.is_empty() {
                break;
            }
            let i = *a as usize % s.len();
            let j = (i + (*b as usize % 12)).min(s.len());
            match op % 3 {
                0 => {
                    s.drain(i..j);
                }
                1 => {
                    let chunk: Vec<u8> = s[i..j].to_vec();
                    let k = (*b as usize) % s.len();
                    s.splice(k..k, chunk);
                }
                _ => {
                    let toks = [
                        &b"1"[..],
                        b"(",
                        b")",
                        b"{",
                        b"}",
                        b";",
                        b"[",
                        b"]",
                        b".x",
                        b"-",
                        b"uint",
                        b"return",
                        b"break",
                    ];
                    let t = toks[*op as usize % toks.len()];
                    s.splice(i..i, t.iter().copied());
                }
            }
        }
        let text = String::from_utf8_lossy(&s).to_string();
        let plan = plan_of(
            vec![prog(Stage::Compute, &text)],
            vec![buf(0, BufferKind::Storage, &[0; 64])],
            [1, 1, 1],
        );
        let opts = Options::new(1, 20_000);
        let _ = crate::run(&plan, &opts);
        let _ = crate::check(&plan.programs[0]);
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(
            std::env::var("GLSL_MUT_TESTS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(200),
        )
        .quickcheck(prop as fn(u8, Vec<(u16, u16, u8)>) -> TestResult);
}

#[test]
fn corpus_programs_build_and_run() {
    for src in CORPUS {
        let mut plan = plan_of(
            vec![prog(Stage::Compute, src)],
            vec![buf(0, BufferKind::Storage, &[0; 64])],
            [1, 1, 1],
        );
        plan.buffers.push(buf(
            1,
            BufferKind::Uniform,
            &[1, 2, 3, 4, 0, 0, 0, 0, 0x4040_0000, 0, 0, 0],
        ));
        let out = run_plan(&plan).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    }
}

#[test]
fn check_reports_relative_lines() {
    let p = prog(
        Stage::Compute,
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {\n  undeclared = 1;\n}",
    );
    let d = crate::check(&p).unwrap_err();
    assert_eq!(d[0].line, 4);
    assert!(d[0].message.contains("undeclared"));
    let mut p2 = p.clone();
    p2.first_line = 10;
    let plan = plan_of(vec![p2], vec![], [1, 1, 1]);
    let out = run_plan(&plan).unwrap();
    assert!(out.build.log.starts_with("line 13:"), "{}", out.build.log);
    assert!(crate::check(&prog(
        Stage::Compute,
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}"
    ))
    .is_ok());
}

#[test]
fn doubles_and_std430_layout() {
    let src = "#version 430\nlayout(local_size_x = 1) in;\nstruct T { vec3 a; float b; uvec2 c; };\n\
        layout(std430, binding = 0) buffer O { uint head; T t[2]; double d; };\n\
        void main() { t[1].a = vec3(1.0, 2.0, 3.0); t[1].b = 4.0; t[1].c = uvec2(5u, 6u); head = 7u;\n\
        double x = 1.5lf; d = x * 2.0lf + double(t[1].b); }";
    // std430: head @0, T align 16 size 32 (a@0 b@12 c@16) -> t @16, t[1] @48, d @80.
    let out = run_words(src, &[&[0; 22]], [1, 1, 1]);
    let o = &out[0];
    assert_eq!(o[0], 7);
    assert_eq!(
        &o[12..18],
        &[
            1.0f32.to_bits(),
            2.0f32.to_bits(),
            3.0f32.to_bits(),
            4.0f32.to_bits(),
            5,
            6
        ]
    );
    let d = f64::from_bits(u64::from(o[20]) | (u64::from(o[21]) << 32));
    assert_eq!(d, 7.0);
}

#[test]
fn truncated_input_is_a_parse_error() {
    let log =
        compile_fail("#version 430\nlayout(local_size_x = 1) in;\nvoid main() {\n  int x = 1;\n");
    assert!(
        log.contains("never closed") && log.starts_with("line 3:"),
        "{log}"
    );
    let log = compile_fail("#version 430\nlayout(local_size_x = 1) in;\nint x =");
    assert!(log.contains("end of input"), "{log}");
}

#[test]
fn unpaired_conditional_directives_are_parse_errors() {
    // An unterminated #ifdef made glsl-lang's preprocessor panic (found by the glsl_front
    // fuzz target); it is reported at the directive instead.
    let log = compile_fail(
        "#version 430\nlayout(local_size_x = 1) in;\n#ifdef X\nvoid main() {}\n#else\nvoid main() {}\n",
    );
    assert!(
        log.starts_with("line 3:") && log.contains("no matching #endif"),
        "{log}"
    );
    let log = compile_fail("#version 430\nlayout(local_size_x = 1) in;\n#endif\nvoid main() {}\n");
    assert!(
        log.starts_with("line 3:") && log.contains("#endif without #if"),
        "{log}"
    );
    // Directives in block comments do not count.
    let out = run_words(
        &hdr("/* #ifdef X\n */ void main() { v[0] = 1u; }"),
        &[&[0; 4]],
        [1, 1, 1],
    );
    assert_eq!(out[0][0], 1);
}

#[test]
fn ternary_converts_to_the_common_type() {
    let out = run_words(
        &hdr("void main() { uint i = gl_LocalInvocationIndex; float f = (i > 1u) ? 1 : 2.5; uint u = (i == 0u) ? 3 : 4u; v[i] = uint(f * 10.0) + 100u * u; }"),
        &[&[0; 4]],
        [1, 1, 1],
    );
    assert_eq!(out[0], vec![25 + 300, 25 + 400, 10 + 400, 10 + 400]);
}

#[test]
fn more_float_builtins() {
    let out = run_words(
        &hdr("void main() { uint i = gl_LocalInvocationIndex; vec2 p = vec2(3.0, 4.0);\n\
          v[i] = uint(length(p)) + 10u * uint(distance(p, vec2(0.0))) + 100u * uint(round(2.5))\n\
          + 1000u * uint(fma(2.0, 3.0, 1.0)) + 10000u * uint(ldexp(1.0, 3)) + (isnan(0.0 / 0.0) ? 100000u : 0u)\n\
          + uint(exp(0.0)) * 1000000u + uint(normalize(p).y * 10.0) * 10000000u; }"),
        &[&[0; 4]],
        [1, 1, 1],
    );
    assert_eq!(
        out[0][0],
        5 + 50 + 200 + 7000 + 80000 + 100000 + 1000000 + 80000000
    );
}

#[test]
fn compute_needs_430_or_the_extension() {
    let log = compile_fail("#version 420\nlayout(local_size_x = 1) in;\nvoid main() {}");
    assert!(log.contains("#version 430"), "{log}");
    let out = run_words(
        "#version 420\n#extension GL_ARB_compute_shader : require\n#extension GL_ARB_shader_storage_buffer_object : require\n\
         layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O { uint v[]; };\nvoid main() { v[0] = 9u; }",
        &[&[0]],
        [1, 1, 1],
    );
    assert_eq!(out[0], vec![9]);
}

#[test]
fn atomic_counter_arrays_and_decrement() {
    let src = "#version 430\nlayout(local_size_x = 4) in;\nlayout(std430, binding = 0) buffer O { uint v[]; };\n\
        layout(binding = 1) uniform atomic_uint c[2];\n\
        void main() { uint i = gl_LocalInvocationIndex; uint a = atomicCounterDecrement(c[1]); atomicCounterIncrement(c[0]); v[i] = a; }";
    let plan = plan_of(
        vec![prog(Stage::Compute, src)],
        vec![
            buf(0, BufferKind::Storage, &[0; 4]),
            buf(1, BufferKind::AtomicCounter, &[0, 10]),
        ],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap();
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    assert_eq!(read_u32s(&out.buffers[1]), vec![4, 6]);
    let mut got = read_u32s(&out.buffers[0]);
    got.sort();
    assert_eq!(got, vec![6, 7, 8, 9]);
}

#[test]
fn initializer_lists() {
    let out = run_words(
        &hdr("struct S { uint a; uvec2 b; };\nconst uint t[3] = { 1u, 2u, 3u };\n\
          void main() { uint i = gl_LocalInvocationIndex; S s = { 10u, { 20u, 30u } }; uint u[] = { 4u, 5u };\n\
          v[i] = t[i % 3u] + s.a + s.b.y + u[1]; }"),
        &[&[0; 4]],
        [1, 1, 1],
    );
    assert_eq!(out[0], vec![46, 47, 48, 46]);
}

#[test]
fn barrier_in_tess_control_and_local_size_outside_compute() {
    let plan = plan_of(
        vec![prog(
            Stage::TessControl,
            "#version 430\nlayout(vertices = 3) out;\nvoid main() { barrier(); }",
        )],
        vec![],
        [1, 1, 1],
    );
    assert_eq!(run_plan(&plan).unwrap().build.failed_at, None);
    let (st, log) = build_fail(vec![prog(
        Stage::Vertex,
        "#version 430\nlayout(local_size_x = 4) in;\nvoid main() { }",
    )]);
    assert_eq!(st, BuildStage::Compile, "{log}");
    assert!(log.contains("only allowed in compute shaders"), "{log}");
}

/// Every compile and link rule of ARB_compute_shader with its exact log.
#[test]
fn rule_messages_golden() {
    let c = |s: &str| prog(Stage::Compute, s);
    let cases: Vec<(Vec<ProgramSource>, BuildStage, &str)> = vec![
        (
            vec![c("#version 430\nlayout(local_size_x = 1025) in;\nvoid main() {}")],
            BuildStage::Compile,
            "line 2: error: 'local_size_x' : local size 1025 exceeds the maximum work group size 1024 (gl_MaxComputeWorkGroupSize)\n",
        ),
        (
            vec![c("#version 430\nlayout(local_size_x = 8) in;\nlayout(local_size_x = 4) in;\nvoid main() {}")],
            BuildStage::Compile,
            "line 3: error: 'local_size_x' : conflicting local size declarations in one shader (8 and 4)\n",
        ),
        (
            vec![
                c("#version 430\nlayout(local_size_x = 8) in;\nvoid main() {}"),
                c("#version 430\nlayout(local_size_x = 4) in;\nvoid f() {}"),
            ],
            BuildStage::Link,
            "line 1: error: local sizes [8, 1, 1] and [4, 1, 1] declared by the compute shaders of the program differ\n",
        ),
        (
            vec![c("#version 430\nvoid main() {}")],
            BuildStage::Link,
            "line 1: error: no local size declared in any compute shader of the program (layout(local_size_x = ...) in;)\n",
        ),
        (
            vec![c("#version 430\nlayout(local_size_x = 64, local_size_y = 32) in;\nvoid main() {}")],
            BuildStage::Compile,
            "line 2: error: local size [64, 32, 1] has 2048 invocations, above gl_MaxComputeWorkGroupInvocations / MAX_COMPUTE_WORK_GROUP_INVOCATIONS (1024): the work group is too large\n",
        ),
        (
            vec![c("#version 430\nlayout(local_size_x = 1) in;\nin uint x;\nvoid main() {}")],
            BuildStage::Compile,
            "line 3: error: user-defined input and output variables (in/out) are not allowed in compute shaders\n",
        ),
        (
            vec![c("#version 430\nlayout(local_size_x = 1) in;\nout Blk { uint x; };\nvoid main() {}")],
            BuildStage::Compile,
            "line 3: error: input and output blocks are not allowed in compute shaders\n",
        ),
        (
            vec![c("#version 430\nlayout(local_size_x = 1, location = 2) in;\nvoid main() {}")],
            BuildStage::Compile,
            "line 2: error: 'location' : layout qualifier not allowed on compute shader inputs (only local_size_x/y/z)\n",
        ),
        (
            vec![c("#version 430\nlayout(local_size_x = 1) in;\nshared uint s = 1u;\nvoid main() {}")],
            BuildStage::Compile,
            "line 3: error: 's' : shared variables cannot have initializers\n",
        ),
        (
            vec![prog(Stage::Fragment, "#version 430\nshared uint s;\nvoid main() {}")],
            BuildStage::Compile,
            "line 2: error: 'shared' : storage qualifier only allowed in compute shaders\n",
        ),
        (
            vec![prog(Stage::Vertex, "#version 430\nvoid main() {\n  groupMemoryBarrier();\n}")],
            BuildStage::Compile,
            "line 3: error: 'groupMemoryBarrier' : no matching overloaded function found (available in compute shaders only)\n",
        ),
        (
            vec![
                c("#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}"),
                prog(Stage::Fragment, "#version 430\nvoid main() {}"),
            ],
            BuildStage::Link,
            "line 1: error: a compute shader cannot be linked with shaders of other stages (Fragment)\n",
        ),
        (
            vec![c("#version 430\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O { uint v[]; };\nvoid main() { v[0] = shuffleNV(1u, 0u, 32u); }")],
            BuildStage::Compile,
            "line 4: error: 'shuffleNV' : no matching overloaded function found (requires #extension GL_NV_shader_thread_shuffle : enable)\n",
        ),
    ];
    for (progs, stage, log) in cases {
        let (st, got) = build_fail(progs);
        assert_eq!((st, got.as_str()), (stage, log));
    }
}

#[test]
fn errors_in_uncalled_functions_fail_the_compile() {
    let log = compile_fail("#version 430\nlayout(local_size_x = 1) in;\nvoid unused() { uint x = vec2(1.0); }\nvoid main() {}");
    assert!(
        log.starts_with("line 3:") && log.contains("cannot convert"),
        "{log}"
    );
}

#[test]
fn deep_expressions_do_not_overflow_the_stack() {
    let chain = vec!["1u"; 20000].join(" + ");
    let out = run_words(
        &hdr(&format!("void main() {{ v[0] = {chain}; }}")),
        &[&[0]],
        [1, 1, 1],
    );
    assert_eq!(out[0][0], 20000);
    let deep = format!("{}1u{}", "(".repeat(3000), ")".repeat(3000));
    let m = unsupported(&format!(
        "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {{ uint x = {deep}; }}"
    ));
    assert!(m.contains("nested"), "{m}");
}

#[test]
fn ext_float_and_double_atomics() {
    let src = "#version 430\n#extension GL_EXT_shader_atomic_float : require\nlayout(local_size_x = 4) in;\n\
        layout(std430, binding = 0) buffer O { double d; float f; float g; };\n\
        shared float s;\n\
        void main() { if (gl_LocalInvocationIndex == 0u) s = 0.0; barrier(); atomicAdd(s, 0.25); atomicAdd(d, 1.5lf); atomicExchange(f, 2.0); barrier();\n\
        if (gl_LocalInvocationIndex == 0u) g = s; }";
    let out = run_words(src, &[&[0; 4]], [1, 1, 1]);
    let d = f64::from_bits(u64::from(out[0][0]) | (u64::from(out[0][1]) << 32));
    assert_eq!(d, 6.0);
    assert_eq!(f32::from_bits(out[0][2]), 2.0);
    assert_eq!(f32::from_bits(out[0][3]), 1.0);
    let log = compile_fail("#version 430\n#extension GL_NV_shader_atomic_float : require\nlayout(local_size_x = 1) in;\n\
        layout(std430, binding = 0) buffer O { double d; };\nvoid main() { atomicAdd(d, 1.0lf); }");
    assert!(log.contains("GL_EXT_shader_atomic_float"), "{log}");
}

#[test]
fn extended_integer_builtins() {
    let out = run_words(
        &hdr("void main() { uint c; uint s = uaddCarry(0xFFFFFFF0u, 0x20u, c); uint b; uint d = usubBorrow(1u, 2u, b);\n\
          uint hi, lo; umulExtended(0x80000000u, 6u, hi, lo); int ih, il; imulExtended(-2, 3, ih, il);\n\
          v[0] = s; v[1] = c; v[2] = d; v[3] = b; v[4] = hi; v[5] = lo; v[6] = uint(ih); v[7] = uint(il); }"),
        &[&[0; 8]],
        [1, 1, 1],
    );
    assert_eq!(
        out[0],
        vec![0x10, 1, 0xFFFF_FFFF, 1, 3, 0, 0xFFFF_FFFF, (-6i32) as u32]
    );
}

#[test]
fn block_layout_defaults_and_shared_layout() {
    // Default std140 for buffers: uint a[] has stride 16.
    let out = run_words(
        "#version 430\nlayout(local_size_x = 1) in;\nlayout(std140) buffer;\nlayout(binding = 0) buffer O { uint a[]; };\nvoid main() { a[1] = 5u; }",
        &[&[0; 8]],
        [1, 1, 1],
    );
    assert_eq!(out[0], vec![0, 0, 0, 0, 5, 0, 0, 0]);
    // No layout at all: accepted when std140 and std430 agree ...
    let out = run_words(
        "#version 430\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer O { uint n; uvec4 q[]; };\nvoid main() { n = 1u; q[0].y = 2u; }",
        &[&[0; 8]],
        [1, 1, 1],
    );
    assert_eq!(out[0], vec![1, 0, 0, 0, 0, 2, 0, 0]);
    // ... refused when they differ.
    let m = unsupported("#version 430\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer O { uint a[]; };\nvoid main() { a[1] = 5u; }");
    assert!(m.contains("implementation-dependent"), "{m}");
}

#[test]
fn non_literal_layout_values_are_refused() {
    let m = unsupported("#version 430\nlayout(local_size_x = 1) in;\nconst int B = 1;\nlayout(std430, binding = B) buffer O { uint a[]; };\nvoid main() { a[0] = 1u; }");
    assert!(m.contains("'binding'") && m.contains("line 4"), "{m}");
}

#[test]
fn aggregate_equality() {
    let out = run_words(
        &hdr("struct S { uint a; uint b[2]; };\nvoid main() { uint i = gl_LocalInvocationIndex; S x = S(1u, uint[](2u, i)); S y = S(1u, uint[](2u, 3u));\n\
          uint p[2] = uint[](i, 1u); v[i] = (x == y ? 1u : 0u) + (x != y ? 10u : 0u) + (p == uint[](2u, 1u) ? 100u : 0u); }"),
        &[&[0; 4]],
        [1, 1, 1],
    );
    assert_eq!(out[0], vec![10, 10, 110, 1]);
}

#[test]
fn readonly_block_members_are_read_only_one_by_one() {
    let decl = "#version 430\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { readonly uint a; uint b; } inst;\n";
    let ok = format!("{decl}void main() {{ inst.b = inst.a + 1u; }}\n");
    assert_eq!(run_words(&ok, &[&[41, 0]], [1, 1, 1])[0], [41, 42]);
    let bad = format!("{decl}void main() {{ inst.a = inst.b; }}\n");
    let (stage, log) = build_fail(vec![prog(Stage::Compute, &bad)]);
    assert_eq!(stage, BuildStage::Compile, "{log}");
}

#[test]
fn arrays_of_blocks_take_consecutive_bindings() {
    let decl = "#version 430\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v; } b[2];\n";
    let ok = format!("{decl}void main() {{ b[1].v = b[0].v + uint(b.length()); }}\n");
    assert_eq!(run_words(&ok, &[&[40], &[0]], [1, 1, 1])[1], [42]);
    // A local variable of the same name hides the array of blocks.
    let shadow = format!("{decl}void main() {{ uint b[2] = uint[2](1u, 2u); b[0].v = b[1]; }}\n");
    let (stage, _) = build_fail(vec![prog(Stage::Compute, &shadow)]);
    assert_eq!(stage, BuildStage::Compile);
    let out_of_range = format!("{decl}void main() {{ b[2].v = 1u; }}\n");
    let (stage, log) = build_fail(vec![prog(Stage::Compute, &out_of_range)]);
    assert!(
        stage == BuildStage::Compile && log.contains("out of range"),
        "{log}"
    );
    // A run-time index every invocation shares (a loop counter) picks the element.
    let dynamic =
        format!("{decl}void main() {{ for (uint k = 0u; k < 2u; k++) b[k].v += k + 1u; }}\n");
    assert_eq!(
        run_words(&dynamic, &[&[40], &[0]], [1, 1, 1]),
        [vec![41], vec![2]]
    );
    // One that differs between the invocations of a group is undefined: flagged.
    let src = dynamic.replace("local_size_x = 1", "local_size_x = 2");
    let varying = src.replace(
        "for (uint k = 0u; k < 2u; k++) b[k].v += k + 1u;",
        "b[gl_LocalInvocationIndex].v = 1u;",
    );
    let plan = plan_of(
        vec![prog(Stage::Compute, &varying)],
        vec![
            buf(0, BufferKind::Storage, &[0]),
            buf(1, BufferKind::Storage, &[0]),
        ],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap();
    assert!(
        out.flags
            .iter()
            .any(|f| f.kind == FlagKind::NonUniformBlockIndex),
        "{:?}",
        out.flags
    );
    // The length of a runtime array in an element chosen at run time is refused by name.
    let rt = "#version 430\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v; uint r[]; } b[2];\n\
        void main() { uint k = b[0].v; b[1].v = uint(b[k].r.length()); }\n";
    assert!(unsupported(rt).contains("length()"), "{}", unsupported(rt));
}

/// ACTIVE_UNIFORMS of a one-shader program, as the front end counts it.
fn active_uniforms(src: &str) -> Option<u32> {
    let p = prog(Stage::Compute, src);
    crate::front::build(&[p], None, &Options::default())
        .unwrap()
        .program
        .active_uniforms
}

#[test]
fn active_uniforms_enumerate_as_gl_does() {
    let head = "#version 450\nlayout(local_size_x = 1) in;\n\
        layout(binding = 0) uniform atomic_uint c;\n\
        layout(binding = 1) uniform atomic_uint aa[2][3];\n\
        struct S { int i; vec2 v; };\n\
        uniform S s[2];\nuniform uint u[4];\nuniform mat3 m;\n\
        layout(std430, binding = 0) buffer B { uint o; };\n";
    // c: 1; aa: one per inner-most array, 2; s: 2 x 2 members; u: 1; m: 1.
    let all = format!(
        "{head}void main() {{ o = atomicCounterIncrement(c) + atomicCounter(aa[1][2]) \
         + uint(s[1].i) + u[3] + uint(m[0][0]); }}"
    );
    assert_eq!(active_uniforms(&all), Some(9));
    // A uniform referenced only by a function main never calls: the reference cannot tell.
    let unused = format!(
        "{head}uint f() {{ return u[0]; }}\nvoid main() {{ o = atomicCounterIncrement(c) \
         + atomicCounter(aa[1][2]) + uint(s[1].i) + uint(m[0][0]); }}"
    );
    assert_eq!(active_uniforms(&unused), None);
    // A local shadowing a uniform is not a reference to it.
    let shadowed = "#version 450\nlayout(local_size_x = 1) in;\nuniform uint u;\n\
        layout(std430, binding = 0) buffer B { uint o; };\n\
        void main() { uint u = 3u; o = u; }";
    assert_eq!(active_uniforms(shadowed), None);
    let block = "#version 450\nlayout(local_size_x = 1) in;\n\
        layout(std140, binding = 0) uniform U { uint x; };\n\
        layout(std430, binding = 0) buffer B { uint o; };\nvoid main() { o = x; }";
    assert_eq!(active_uniforms(block), None);
}

#[test]
fn atomic_counter_parameters_act_on_the_callers_counter() {
    let src = "#version 450\nlayout(local_size_x = 2) in;\n\
        layout(binding = 0, offset = 4) uniform atomic_uint a;\n\
        layout(binding = 1) uniform atomic_uint b[2];\n\
        void add(atomic_uint c, uint n) { for (uint k = 0u; k < n; k++) atomicCounterIncrement(c); }\n\
        void pass(atomic_uint c) { add(c, 3u); }\n\
        void main() { add(a, 2u); pass(b[1]); }";
    let plan = plan_of(
        vec![prog(Stage::Compute, src)],
        vec![
            buf(0, BufferKind::AtomicCounter, &[7, 1]),
            buf(1, BufferKind::AtomicCounter, &[0, 0]),
        ],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap();
    assert_eq!(read_u32s(&out.buffers[0]), [7, 5]);
    assert_eq!(read_u32s(&out.buffers[1]), [0, 6]);
    let out_param = "#version 450\nlayout(local_size_x = 1) in;\n\
        layout(binding = 0) uniform atomic_uint a;\n\
        void f(out atomic_uint c) { }\nvoid main() { f(a); }";
    let (stage, log) = build_fail(vec![prog(Stage::Compute, out_param)]);
    assert!(
        stage == BuildStage::Compile && log.contains("in parameter"),
        "{log}"
    );
}

#[test]
fn uniform_initializers_are_the_initial_values() {
    let src = "#version 430\nlayout(local_size_x = 1) in;\nuniform uint a = 3u;\nuniform ivec2 b = ivec2(-1, 5);\n\
        uniform float c = 2;\nuniform bool d = true;\nuniform uint e;\n\
        layout(std430, binding = 0) buffer B { uint o[5]; };\n\
        void main() { o[0] = a; o[1] = uint(b.x); o[2] = uint(b.y); o[3] = uint(c) + (d ? 10u : 0u); o[4] = e; }";
    assert_eq!(
        run_words(src, &[&[9; 5]], [1, 1, 1])[0],
        [3, u32::MAX, 5, 12, 0]
    );
    // A uniform step replaces the initial value.
    let mut plan = plan_of(
        vec![prog(Stage::Compute, src)],
        vec![buf(0, BufferKind::Storage, &[9; 5])],
        [1, 1, 1],
    );
    plan.steps.insert(
        0,
        Step::Uniform(conform_plan::UniformSet {
            target: conform_plan::UniformTarget::Name("a".into()),
            ty: conform_plan::UniformType::Elem(ElemType::scalar(Scalar::U32)),
            bytes: from_u32s(&[7]),
        }),
    );
    assert_eq!(read_u32s(&run_plan(&plan).unwrap().buffers[0])[0], 7);
}
