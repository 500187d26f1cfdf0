//! Unit tests: `#extension` handling, versions (ESSL 3.10 included), type names extensions
//! add, layout identifiers, `gl_WorkGroupSize`'s place, and
//! ARB_compute_variable_group_size's compile rules.

use super::tests::{buf, build_fail, plan_of, prog, run_plan, run_words};
use conform_plan::bytes::read_u32s;
use conform_plan::{BufferKind, BuildStage, Refusal, Stage};

/// Runs `src` (one group) with an atomic counter buffer at binding 0 and a storage buffer at
/// binding 1, returning both.
fn run_counter(src: &str) -> (Vec<u32>, Vec<u32>) {
    let plan = plan_of(
        vec![prog(Stage::Compute, src)],
        vec![
            buf(0, BufferKind::AtomicCounter, &[0]),
            buf(1, BufferKind::Storage, &[0; 4]),
        ],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    (read_u32s(&out.buffers[0]), read_u32s(&out.buffers[1]))
}

fn refusal(src: &str) -> String {
    let plan = plan_of(
        vec![prog(Stage::Compute, src)],
        vec![buf(0, BufferKind::Storage, &[0; 4])],
        [1, 1, 1],
    );
    match run_plan(&plan) {
        Err(Refusal::Unsupported(m)) => m,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn compile_error(src: &str) -> String {
    let (stage, log) = build_fail(vec![prog(Stage::Compute, src)]);
    assert_eq!(stage, BuildStage::Compile, "{log}");
    log
}

#[test]
fn the_glsl_front_end_takes_the_reference_extensions_with_a_glsl_part() {
    assert!(super::parse::supported("GL_NV_shader_thread_shuffle"));
    assert!(!super::parse::supported("GL_NV_compute_program5"));
    assert!(!super::parse::supported("GL_CONFORM_no_such_extension"));
}

#[test]
fn atomic_uint_below_420_with_the_extension() {
    let src = "#version 140\n#extension GL_ARB_compute_shader : require\n#extension GL_ARB_shader_atomic_counters : require\nlayout(local_size_x = 4) in;\nlayout(binding = 0) uniform atomic_uint c;\nvoid main() { atomicCounterIncrement(c); }\n";
    assert_eq!(run_counter(src).0, vec![4]);
    // Without the extension the type does not exist below 4.20.
    let log =
        compile_error(&src.replace("#extension GL_ARB_shader_atomic_counters : require\n", ""));
    assert!(
        log.contains("atomic_uint") && log.contains("GL_ARB_shader_atomic_counters"),
        "{log}"
    );
}

#[test]
fn unknown_extension_enable_or_warn_only_warns() {
    for b in ["enable", "warn", "disable"] {
        let src = format!("#version 430\n#extension GL_FOO_not_an_extension : {b}\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B {{ uint v[]; }};\nvoid main() {{ v[0] = 7u; }}\n");
        let out = run_words(&src, &[&[0]], [1, 1, 1]);
        assert_eq!(out[0], vec![7], "{b}");
    }
}

#[test]
fn unknown_extension_require_is_a_refusal_naming_it() {
    let m = refusal("#version 430\n#extension GL_FOO_not_an_extension : require\nlayout(local_size_x = 1) in;\nvoid main() {}\n");
    assert!(
        m.contains("GL_FOO_not_an_extension") && m.contains("line 2"),
        "{m}"
    );
}

#[test]
fn extension_all_require_is_an_error() {
    let log = compile_error(
        "#version 430\n#extension all : require\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
    );
    assert!(log.contains("all"), "{log}");
}

#[test]
fn essl_310_compute_shader_with_precision_and_atomic_counter() {
    let src = "#version 310 es\nprecision highp float;\nprecision mediump int;\nlayout(local_size_x = 4) in;\nlayout(binding = 0) uniform atomic_uint c;\nlayout(std430, binding = 1) buffer B { highp uint v[]; };\nvoid main() { mediump float f = 2.5; v[gl_LocalInvocationIndex] = uint(f * 2.0) + atomicCounterIncrement(c) * 0u; }\n";
    let (c, v) = run_counter(src);
    assert_eq!(c, vec![4]);
    assert_eq!(v, vec![5, 5, 5, 5]);
    let log = compile_error("#version 300 es\nlayout(local_size_x = 1) in;\nvoid main() {}\n");
    assert!(log.contains("310 es"), "{log}");
}

#[test]
fn essl_has_no_double() {
    let (stage, _) = build_fail(vec![prog(
        Stage::Compute,
        "#version 310 es\nlayout(local_size_x = 1) in;\nvoid main() { double d = 1.0; }\n",
    )]);
    assert_eq!(stage, BuildStage::Compile);
}

#[test]
fn extension_directives_apply_from_where_they_stand() {
    let body = "layout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = shuffleNV(5u, 0u, 32u); }\n";
    let before = format!("#version 430\nlayout(local_size_x = 1) in;\n{body}#extension GL_NV_shader_thread_shuffle : enable\n");
    let log = compile_error(&before);
    assert!(log.contains("shuffleNV"), "{log}");
    let after = format!("#version 430\n#extension GL_NV_shader_thread_shuffle : enable\nlayout(local_size_x = 1) in;\n{body}");
    assert_eq!(run_words(&after, &[&[0]], [1, 1, 1])[0], vec![5]);
    let disabled = format!("#version 430\n#extension GL_NV_shader_thread_shuffle : enable\n#extension GL_NV_shader_thread_shuffle : disable\nlayout(local_size_x = 1) in;\n{body}");
    compile_error(&disabled);
    let all_warn =
        format!("#version 430\n#extension all : warn\nlayout(local_size_x = 1) in;\n{body}");
    assert_eq!(run_words(&all_warn, &[&[0]], [1, 1, 1])[0], vec![5]);
}

#[test]
fn unknown_and_vulkan_only_layout_identifiers_are_errors() {
    for (decl, what) in [
        (
            "layout(bogus = 3, std430, binding = 0) buffer B { uint v[]; };",
            "bogus",
        ),
        (
            "layout(std430, set = 1, binding = 0) buffer B { uint v[]; };",
            "set",
        ),
        (
            "layout(push_constant) uniform P { uint k; };",
            "push_constant",
        ),
        (
            "layout(std430, binding = 0) buffer B { layout(std140) uint v[]; };",
            "std140",
        ),
        ("layout(binding = 2) uniform float u;", "binding"),
        ("layout(location = 1) shared uint s;", "location"),
        ("layout(bogus) buffer;", "bogus"),
    ] {
        let src = format!("#version 430\nlayout(local_size_x = 1) in;\n{decl}\nvoid main() {{}}\n");
        let log = compile_error(&src);
        assert!(
            log.contains(what) && log.contains("line 3"),
            "{decl}: {log}"
        );
    }
}

#[test]
fn layout_identifiers_are_not_case_sensitive() {
    let src = "#version 430\nlayout(LOCAL_SIZE_X = 2) in;\nlayout(STD430, Binding = 0) buffer B { uint v[]; };\nvoid main() { v[gl_LocalInvocationIndex] = gl_WorkGroupSize.x; }\n";
    assert_eq!(run_words(src, &[&[0, 0]], [1, 1, 1])[0], vec![2, 2]);
}

#[test]
fn work_group_size_only_after_the_local_size_declaration() {
    let src = "#version 430\nconst uvec3 s = gl_WorkGroupSize;\nlayout(local_size_x = 2) in;\nvoid main() {}\n";
    let log = compile_error(src);
    assert!(
        log.contains("gl_WorkGroupSize") && log.contains("line 2"),
        "{log}"
    );
    let fine = "#version 430\nlayout(local_size_x = 2) in;\nconst uvec3 s = gl_WorkGroupSize;\nlayout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = s.x; }\n";
    assert_eq!(run_words(fine, &[&[0]], [1, 1, 1])[0], vec![2]);
}

#[test]
fn shared_blocks_follow_the_assumed_layout_or_are_refused() {
    let src = "#version 430\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer B { float a[2]; float b; };\nvoid main() { a[1] = 2.0; b = 3.0; }\n";
    let plan = plan_of(
        vec![prog(Stage::Compute, src)],
        vec![buf(0, BufferKind::Storage, &[0; 9])],
        [1, 1, 1],
    );
    assert!(matches!(run_plan(&plan), Err(Refusal::Unsupported(m)) if m.contains("shared_layout")));
    let words = |layout| {
        let opts = crate::Options {
            shared_layout: Some(layout),
            ..crate::Options::default()
        };
        let out = crate::run(&plan, &opts).unwrap();
        read_u32s(&out.buffers[0])
    };
    let (two, three) = (2f32.to_bits(), 3f32.to_bits());
    assert_eq!(
        words(crate::BlockLayout::Std430),
        vec![0, two, three, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(
        words(crate::BlockLayout::Std140),
        vec![0, 0, 0, 0, two, 0, 0, 0, three]
    );
}

#[test]
fn local_size_needs_the_compute_extension_where_it_stands() {
    let body = "layout(local_size_x = 1) in;\n#extension GL_ARB_shader_storage_buffer_object : enable\nlayout(std430, binding = 0) buffer O { uint o; };\nvoid main() { o = 5u; }\n";
    let before = format!("#version 420\n{body}#extension GL_ARB_compute_shader : enable\n");
    let log = compile_error(&before);
    assert!(
        log.contains("line 2") && log.contains("local_size_x"),
        "{log}"
    );
    let after = format!("#version 420\n#extension GL_ARB_compute_shader : enable\n{body}");
    assert_eq!(run_words(&after, &[&[0]], [1, 1, 1])[0], [5]);
}

#[test]
fn shader_clock_grows_and_needs_its_extensions() {
    // Two reads around a loop: the later is larger, in both forms.
    let src = "#version 430\n#extension GL_ARB_gpu_shader_int64 : require\n#extension GL_ARB_shader_clock : require\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O { uint o[2]; };\nvoid main() {\n uint64_t a = clockARB(); uvec2 c = clock2x32ARB();\n for (int k = 0; k < 4; k++) o[0] += 1u;\n uint64_t b = clockARB();\n o[0] = b > a ? 1u : 0u;\n o[1] = packUint2x32(c) > a && packUint2x32(c) < b ? 1u : 0u;\n}\n";
    assert_eq!(run_words(src, &[&[0, 0]], [1, 1, 1])[0], [1, 1]);
    let no_int64 = "#version 430\n#extension GL_ARB_shader_clock : require\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O { uint o; };\nvoid main() { o = uint(clockARB()); }\n";
    assert!(compile_error(no_int64).contains("clockARB"));
}

/// ARB_compute_variable_group_size's compile rules: the qualifier needs the extension, takes
/// no value and excludes a fixed size; gl_LocalGroupSizeARB is the fixed size in a shader
/// of fixed size; gl_WorkGroupSize is refused in a shader of variable size.
#[test]
fn variable_group_size_compile_rules() {
    let head = "#version 430\n#extension GL_ARB_compute_variable_group_size : require\n";
    let body = "layout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = gl_LocalGroupSizeARB.x; }\n";
    let ok = format!("{head}layout(local_size_variable) in;\n{body}");
    let log = compile_error(&ok.replace(head, "#version 430\n"));
    assert!(log.contains("GL_ARB_compute_variable_group_size"), "{log}");
    let log = compile_error(&ok.replace("local_size_variable", "local_size_variable = 2"));
    assert!(log.contains("no value"), "{log}");
    let log = compile_error(&ok.replace(") in;", ", local_size_x = 2) in;"));
    assert!(log.contains("both a variable"), "{log}");
    // In a shader of fixed size, gl_LocalGroupSizeARB is that size.
    let fixed = format!("{head}layout(local_size_x = 2, local_size_y = 3) in;\n{body}").replace(
        "v[0] = gl_LocalGroupSizeARB.x;",
        "v[0] = gl_LocalGroupSizeARB.x * 10u + gl_LocalGroupSizeARB.y;",
    );
    assert_eq!(run_words(&fixed, &[&[0]], [1, 1, 1])[0], vec![23]);
    let log = compile_error(&ok.replace("gl_LocalGroupSizeARB", "gl_WorkGroupSize"));
    assert!(log.contains("variable local size"), "{log}");
}

/// GL_AMD_shader_trinary_minmax: min3/max3/mid3 over every order of three distinct values and
/// with ties, signed and unsigned; the functions are declared only where the extension is
/// enabled.
#[test]
fn trinary_min_max_mid_in_every_order() {
    let head = "#version 430\n#extension GL_AMD_shader_trinary_minmax : require\nlayout(local_size_x = 1) in;\n";
    let src = format!("{head}layout(std430, binding = 0) buffer B {{ int v[]; }};\nlayout(std430, binding = 1) buffer U {{ uint u[]; }};\nvoid main() {{\n for (int k = 0; k < 8; k++) {{\n  int a = v[3 * k], b = v[3 * k + 1], c = v[3 * k + 2];\n  v[24 + 3 * k] = min3(a, b, c); v[25 + 3 * k] = max3(a, b, c); v[26 + 3 * k] = mid3(a, b, c);\n  uint x = uint(a), y = uint(b), z = uint(c);\n  u[3 * k] = min3(x, y, z); u[3 * k + 1] = max3(x, y, z); u[3 * k + 2] = mid3(x, y, z);\n }}\n}}\n");
    let triples: [[i32; 3]; 8] = [
        [-1, 0, 5],
        [-1, 5, 0],
        [0, -1, 5],
        [0, 5, -1],
        [5, -1, 0],
        [5, 0, -1],
        [2, 2, -3],
        [4, 4, 4],
    ];
    let mut v: Vec<u32> = triples.iter().flatten().map(|&x| x as u32).collect();
    v.resize(48, 0);
    let out = run_words(&src, &[&v, &[0; 24]], [1, 1, 1]);
    for (k, t) in triples.iter().enumerate() {
        let mut s = *t;
        s.sort();
        let got: Vec<i32> = out[0][24 + 3 * k..27 + 3 * k]
            .iter()
            .map(|&w| w as i32)
            .collect();
        assert_eq!(got, [s[0], s[2], s[1]], "int {t:?}");
        let mut us = t.map(|x| x as u32);
        us.sort();
        assert_eq!(
            out[1][3 * k..3 * k + 3],
            [us[0], us[2], us[1]],
            "uint {t:?}"
        );
    }
    let without = "#version 430\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { int v[]; };\nvoid main() { v[0] = mid3(v[1], v[2], v[3]); }\n";
    assert!(compile_error(without).contains("GL_AMD_shader_trinary_minmax"));
}

/// memoryBarrier() is GLSL 4.20's, ESSL 3.10's and GL_ARB_shader_image_load_store's; the typed
/// barriers come with ARB_compute_shader (its Issue 13).
#[test]
fn memory_barrier_needs_glsl_420_or_image_load_store() {
    let body = "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = 1u; memoryBarrierBuffer(); BARRIER; v[1] = 2u; }\n";
    let ext = "#extension GL_ARB_compute_shader : require\n#extension GL_ARB_shader_storage_buffer_object : require\n";
    let old = format!(
        "#version 330\n{ext}{}",
        body.replace("BARRIER", "memoryBarrier()")
    );
    assert!(compile_error(&old).contains("memoryBarrier"));
    let typed = format!(
        "#version 330\n{ext}{}",
        body.replace("BARRIER", "groupMemoryBarrier()")
    );
    assert_eq!(run_words(&typed, &[&[0, 0]], [1, 1, 1])[0], [1, 2]);
    for head in [
        format!("#version 330\n{ext}#extension GL_ARB_shader_image_load_store : require\n"),
        "#version 420\n#extension GL_ARB_compute_shader : require\n#extension GL_ARB_shader_storage_buffer_object : require\n".to_string(),
        "#version 310 es\n".to_string(),
    ] {
        let src = format!("{head}{}", body.replace("BARRIER", "memoryBarrier()"));
        assert_eq!(run_words(&src, &[&[0, 0]], [1, 1, 1])[0], [1, 2], "{head}");
    }
}

/// glGetProgramiv(COMPUTE_WORK_GROUP_SIZE): the declared local size, zeros for a variable
/// group size (ARB_compute_variable_group_size, Issue 8), INVALID_OPERATION for a program
/// without a compute shader (ARB_compute_shader, Section 5.5).
#[test]
fn work_group_size_query_answers_the_declared_size() {
    use conform_plan::{GlError, ProgramPname, Step};
    let query = |stage: Stage, src: &str| {
        let mut plan = plan_of(
            vec![prog(stage, src)],
            vec![buf(0, BufferKind::Storage, &[0; 4])],
            [1, 1, 1],
        );
        plan.steps = vec![Step::ProgramQuery {
            pname: ProgramPname::ComputeWorkGroupSize,
        }];
        let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
        (out.steps[0].error, out.steps[0].values.clone())
    };
    let body = "layout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[0] = 1u; }\n";
    let fixed = format!("#version 430\nlayout(local_size_x = 8, local_size_z = 2) in;\n{body}");
    assert_eq!(
        query(Stage::Compute, &fixed),
        (Some(GlError::NoError), vec![8, 1, 2])
    );
    let variable = format!("#version 430\n#extension GL_ARB_compute_variable_group_size : require\nlayout(local_size_variable) in;\n{body}");
    assert_eq!(
        query(Stage::Compute, &variable),
        (Some(GlError::NoError), vec![0, 0, 0])
    );
    let vertex = "#version 430\nvoid main() { gl_Position = vec4(0.0); }\n";
    assert_eq!(
        query(Stage::Vertex, vertex).0,
        Some(GlError::InvalidOperation)
    );
    // LINK_STATUS of a program whose steps run is TRUE, compute or not.
    let mut plan = plan_of(vec![prog(Stage::Vertex, vertex)], vec![], [1, 1, 1]);
    plan.steps = vec![Step::ProgramQuery {
        pname: ProgramPname::LinkStatus,
    }];
    let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
    assert_eq!(out.steps[0].values, [1]);
}

/// The API forms of the dispatches (`api: {call: dispatch_group_size}` and `api: {call:
/// dispatch}`) run as their step forms do, with the same errors; a program without a compute
/// shader makes them INVALID_OPERATION, as the step forms.
#[test]
fn api_dispatches_run_as_their_step_forms() {
    use conform_plan::{ApiAction, GlError, Step};
    let src = "#version 430\n#extension GL_ARB_compute_variable_group_size : require\nlayout(local_size_variable) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[gl_GlobalInvocationID.x] = gl_LocalGroupSizeARB.x * 10u + gl_WorkGroupID.x; }\n";
    let run = |steps: Vec<Step>| {
        let mut plan = plan_of(
            vec![prog(Stage::Compute, src)],
            vec![buf(0, BufferKind::Storage, &[7; 6])],
            [1, 1, 1],
        );
        plan.steps = steps;
        let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
        let errors: Vec<_> = out.steps.iter().map(|s| (s.applicable, s.error)).collect();
        (errors, read_u32s(&out.buffers[0]))
    };
    let step = run(vec![Step::DispatchGroupSize {
        groups: [2, 1, 1],
        size: [3, 1, 1],
    }]);
    let api = run(vec![Step::Api(ApiAction::DispatchGroupSize {
        groups: [2, 1, 1],
        size: [3, 1, 1],
    })]);
    assert_eq!(step, api);
    assert_eq!(api.1, [30, 30, 30, 31, 31, 31]);
    assert_eq!(api.0, [(true, Some(GlError::NoError))]);
    // A variable-size program dispatched without a size: INVALID_OPERATION either way.
    let step = run(vec![Step::Dispatch { groups: [1, 1, 1] }]);
    let api = run(vec![Step::Api(ApiAction::Dispatch { groups: [1, 1, 1] })]);
    assert_eq!(step, api);
    assert_eq!(api.0, [(true, Some(GlError::InvalidOperation))]);
    // Other API actions are not modelled: not applicable.
    let other = run(vec![Step::Api(ApiAction::UseNoProgram)]);
    assert_eq!(other.0, [(false, None)]);
}

/// A valid program written for GL_AMD_gpu_shader_half_float's GLSL part (float16_t, the `hf`
/// suffix), which the reference lists for SPIR-V only, is refused naming the extension, not
/// failed as a compile error; a syntax error in a program that needs no such extension is
/// still one.
#[test]
fn a_program_for_an_unmodelled_glsl_extension_is_refused_by_name() {
    let half = "#version 450\n#extension GL_AMD_gpu_shader_half_float : require\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { float v; };\nvoid main() { float16_t h = float16_t(1.5); v = float(h * 2.0hf); }\n";
    for src in [half.to_string(), half.replace(": require", ": enable")] {
        let plan = plan_of(
            vec![prog(Stage::Compute, &src)],
            vec![buf(0, BufferKind::Storage, &[0])],
            [1, 1, 1],
        );
        match run_plan(&plan) {
            Err(Refusal::Unsupported(m)) => {
                assert!(m.contains("GL_AMD_gpu_shader_half_float"), "{m}")
            }
            other => panic!("expected a refusal naming the extension, got {other:?}"),
        }
    }
    let (stage, log) = build_fail(vec![prog(
        Stage::Compute,
        "#version 450\n#extension GL_ARB_gpu_shader5 : enable\nlayout(local_size_x = 1) in;\nvoid main() { float16_t h; }\n",
    )]);
    assert_eq!(stage, BuildStage::Compile, "{log}");
}

/// GLSL 1.40 has uniform blocks but not instance names (GLSL 1.50 adds them): a block with an
/// instance name fails to compile there, as on Mesa; without one, or in 1.50, it builds.
#[test]
fn a_block_instance_name_needs_glsl_150() {
    let src = |version: &str, instance: &str| {
        format!(
            "#version {version}\n#extension GL_ARB_compute_shader : require\n#extension GL_ARB_shader_storage_buffer_object : require\nlayout(local_size_x = 1) in;\nlayout(std430) buffer B {{ uint v; }}{instance};\nvoid main() {{ {}v = 1u; }}\n",
            if instance.is_empty() { "" } else { "b." }
        )
    };
    let (stage, log) = build_fail(vec![prog(Stage::Compute, &src("140", " b"))]);
    assert_eq!(stage, BuildStage::Compile, "{log}");
    assert!(log.contains("instance name"), "{log}");
    assert_eq!(run_words(&src("140", ""), &[&[0]], [1, 1, 1])[0], [1]);
    assert_eq!(run_words(&src("150", " b"), &[&[0]], [1, 1, 1])[0], [1]);
}
