//! The runner's NV path against the fake driver: plans made from corpus NV cases (the program
//! text read from the case file; buffers and steps written out as the loader lowers them),
//! and the GL calls the specifications prescribe for them; and the nvidia backend's device
//! choice on fake EGL device descriptions.

use super::*;
use crate::context::nvidia_rank_of;
use crate::exec::run_plan;
use conform_plan::bytes::from_u32s;
use conform_plan::{
    ApiAction, BufferInit, BufferKind, BuildStage, ElemType, ExecPlan, GlError, Language,
    ProgramPname, ProgramSource, QueryPname, Refusal, Scalar, Stage, Step,
};
use std::path::PathBuf;

/// The NV assembly program of corpus case `case` (`nv_compute_program5/dispatch-plain`),
/// exactly as the case file gives it.
fn corpus_program(case: &str) -> ProgramSource {
    let origin = format!("cases/{case}.yaml");
    let path = format!("{}/../../{origin}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(doc["program"]["language"].as_str(), Some("nvasm"), "{path}");
    let source = doc["program"]["source"]
        .as_str()
        .unwrap_or_else(|| panic!("{path}: no program.source"));
    let first_line = text
        .lines()
        .position(|l| l.trim_start().starts_with("source:"))
        .map_or(1, |i| i as u32 + 2);
    ProgramSource {
        language: Language::Nvasm,
        stage: Stage::Compute,
        text: source.to_string(),
        words: Vec::new(),
        origin,
        first_line,
        entry: String::new(),
        specialization: Vec::new(),
    }
}

fn buffer(name: &str, kind: BufferKind, binding: u32, scalar: Scalar, words: &[u32]) -> BufferInit {
    BufferInit {
        name: name.into(),
        kind,
        binding,
        elem: ElemType::scalar(scalar),
        bytes: from_u32s(words),
    }
}

/// A storage buffer of `count` words of 0xDEADBEEF, as the corpus's `fill` gives it.
fn out(count: usize) -> BufferInit {
    buffer(
        "out",
        BufferKind::Storage,
        0,
        Scalar::U32,
        &vec![0xDEAD_BEEF; count],
    )
}

fn plan(case: &str, buffers: Vec<BufferInit>, steps: Vec<Step>) -> ExecPlan {
    ExecPlan {
        case: case.into(),
        programs: vec![corpus_program(case)],
        buffers,
        uniforms: Vec::new(),
        steps,
        timeout_ms: 10_000,
        skip_steps_if_built: false,
    }
}

fn dispatch(x: u32, y: u32, z: u32) -> Step {
    Step::Dispatch { groups: [x, y, z] }
}

fn run(
    context: FakeContext,
    plan: &ExecPlan,
) -> (Result<conform_plan::Outcome, Refusal>, Vec<String>) {
    let (gl, caps) = probed(context);
    let result = run_plan(&gl, &caps, plan);
    (result, take_calls())
}

/// Asserts that `expected` occur in `calls` in this order (other calls may come between).
fn assert_in_order(calls: &[String], expected: &[String]) {
    let mut from = 0;
    for e in expected {
        match calls[from..].iter().position(|c| c == e) {
            Some(i) => from += i + 1,
            None => panic!(
                "`{e}` not found after call {from}.\nexpected in order:\n  {}\ncalls:\n  {}",
                expected.join("\n  "),
                calls.join("\n  ")
            ),
        }
    }
}

fn called(calls: &[String], prefix: &str) -> bool {
    calls.iter().any(|c| c.starts_with(prefix))
}

#[test]
fn the_probe_reads_nv_program_limits_with_get_program_iv_arb() {
    let gl = install(FakeContext::default());
    let info = crate::caps::probe(&gl, Driver::Nvidia, ContextApi::Gl);
    let calls = take_calls();
    for ext in NV_EXTENSIONS {
        assert!(
            info.has_extension(ext),
            "{ext} not in {:?}",
            info.extensions
        );
    }
    assert_eq!(info.gl_version, (4, 6));
    assert_eq!(info.profile, "compatibility");
    // NV_parameter_buffer_object, New Tokens: MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV and
    // _SIZE_NV are pnames of GetProgramivARB (the fake, like the spec, refuses them elsewhere).
    assert_eq!(
        info.limits.get("MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV"),
        Some(&vec![PARAMETER_BUFFER_BINDINGS as i64]),
        "{calls:#?}"
    );
    assert_eq!(
        info.limits.get("MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV"),
        Some(&vec![16384])
    );
    assert_in_order(
        &calls,
        &[
            "GetProgramivARB(COMPUTE_PROGRAM_NV, MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV)".into(),
            "GetProgramivARB(COMPUTE_PROGRAM_NV, MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV)".into(),
        ],
    );
    assert!(
        !called(&calls, "GetInteger64v(MAX_PROGRAM_PARAMETER"),
        "{calls:#?}"
    );
    assert!(info.limits.contains_key("MAX_PROGRAM_LOCAL_PARAMETERS_ARB"));
}

#[test]
fn every_program_is_loaded_on_compute_program_nv_with_the_case_text() {
    for case in [
        "nv_compute_program5/dispatch-plain",
        "nv_compute_program5/atoms-add-f32",
        "nv_compute_program5/lds-sts-64bit",
        "nv_shader_thread_shuffle/asm-shfidx-width32",
        "nv_shader_thread_shuffle/asm-shfup-width8",
    ] {
        let plan = plan(case, vec![out(64)], vec![dispatch(1, 1, 1)]);
        let text = &plan.programs[0].text;
        let (result, calls) = run(FakeContext::default(), &plan);
        let outcome = result.unwrap_or_else(|r| panic!("{case}: {r:?}"));
        assert_eq!(outcome.build.failed_at, None, "{case}");
        // NV_compute_program5: COMPUTE_PROGRAM_NV is the target of BindProgramARB and
        // ProgramStringARB; ARB_vertex_program: the text goes to the program bound to it, in
        // PROGRAM_FORMAT_ASCII_ARB, with its length in bytes.
        assert_in_order(
            &calls,
            &[
                "GenProgramsARB(1)".into(),
                "BindProgramARB(COMPUTE_PROGRAM_NV, 1)".into(),
                format!(
                    "ProgramStringARB(COMPUTE_PROGRAM_NV, PROGRAM_FORMAT_ASCII_ARB, {})",
                    text.len()
                ),
                "Enable(COMPUTE_PROGRAM_NV)".into(),
                "DispatchCompute(1, 1, 1)".into(),
            ],
        );
        assert_eq!(program_texts(), vec![text.clone()], "{case}");
    }
}

#[test]
fn dispatch_plain_makes_exactly_these_calls() {
    let case = "nv_compute_program5/dispatch-plain";
    let plan = plan(case, vec![out(64)], vec![dispatch(4, 1, 1)]);
    let (result, calls) = run(FakeContext::default(), &plan);
    let outcome = result.expect("runs");
    let len = plan.programs[0].text.len();
    let expected: Vec<String> = [
        // Build: load, then read the error position and string (ARB_vertex_program 2.14.1).
        "GenProgramsARB(1)".to_string(),
        "BindProgramARB(COMPUTE_PROGRAM_NV, 1)".into(),
        format!("ProgramStringARB(COMPUTE_PROGRAM_NV, PROGRAM_FORMAT_ASCII_ARB, {len})"),
        "GetIntegerv(PROGRAM_ERROR_POSITION_ARB)".into(),
        "GetString(PROGRAM_ERROR_STRING_ARB)".into(),
        "Enable(COMPUTE_PROGRAM_NV)".into(),
        // Use: the program bound and COMPUTE_PROGRAM_NV enabled for the dispatch.
        "BindProgramARB(COMPUTE_PROGRAM_NV, 1)".into(),
        "Enable(COMPUTE_PROGRAM_NV)".into(),
        // The storage buffer: program.storage[0] is SHADER_STORAGE_BUFFER binding 0
        // (NV_shader_storage_buffer_object).
        "GenBuffers(1)".into(),
        "BindBuffer(COPY_WRITE_BUFFER, 2)".into(),
        "BufferData(COPY_WRITE_BUFFER, 256, DYNAMIC_COPY)".into(),
        "BindBuffer(COPY_WRITE_BUFFER, 0)".into(),
        "BindBufferBase(SHADER_STORAGE_BUFFER, 0, 2)".into(),
        "DispatchCompute(4, 1, 1)".into(),
        // Readback after a BUFFER_UPDATE barrier.
        format!("MemoryBarrier({:#x})", gl::BUFFER_UPDATE_BARRIER_BIT),
        "Finish()".into(),
        "BindBuffer(COPY_READ_BUFFER, 2)".into(),
        "GetBufferSubData(COPY_READ_BUFFER, 0, 256)".into(),
        "BindBuffer(COPY_READ_BUFFER, 0)".into(),
        // Cleanup leaves the context as it found it.
        "UseProgram(0)".into(),
        "Disable(COMPUTE_PROGRAM_NV)".into(),
        "BindProgramARB(COMPUTE_PROGRAM_NV, 0)".into(),
        "DeleteProgramsARB([1])".into(),
        "BindBufferBase(SHADER_STORAGE_BUFFER, 0, 0)".into(),
        "BindBuffer(DISPATCH_INDIRECT_BUFFER, 0)".into(),
        "DeleteBuffers([2])".into(),
    ]
    .into();
    assert_eq!(calls, expected);
    assert_eq!(outcome.build.failed_at, None);
    assert_eq!(outcome.steps.len(), 1);
    assert_eq!(outcome.steps[0].error, Some(GlError::NoError));
    // The fake runs nothing: what is read back is what was uploaded.
    assert_eq!(outcome.buffers, vec![plan.buffers[0].bytes.clone()]);
}

#[test]
fn program_parameters_use_the_call_of_their_target_and_type() {
    let case = "nv_compute_program5/api-program-target-calls";
    // As the case: local parameter 0 = (11, 22, 33, 44) as u32, env 1 set by an api step.
    let plan_of = |kind: BufferKind, scalar: Scalar| {
        plan(
            case,
            vec![out(4), buffer("loc", kind, 0, scalar, &[11, 22, 33, 44])],
            vec![
                Step::ProgramQuery {
                    pname: ProgramPname::ProgramFormatArb,
                },
                Step::ProgramQuery {
                    pname: ProgramPname::ProgramBindingArb,
                },
                Step::Api(ApiAction::ProgramEnvI4 {
                    index: 1,
                    values: [100, 200, 300, 400],
                }),
                dispatch(1, 1, 1),
            ],
        )
    };
    // The fake records the 32-bit words passed, whatever their type: the float forms pass
    // the buffer's bits too.
    let words = "[11, 22, 33, 44]";
    // NV_gpu_program4 (2.X.2 program parameters): the I4i/I4ui forms for integer data;
    // ARB_vertex_program's 4f forms for floats. Read back with the matching Get call.
    for (kind, scalar, set, get) in [
        (
            BufferKind::ProgramLocal,
            Scalar::U32,
            "ProgramLocalParameterI4uivNV",
            "GetProgramLocalParameterIuivNV",
        ),
        (
            BufferKind::ProgramLocal,
            Scalar::I32,
            "ProgramLocalParameterI4ivNV",
            "GetProgramLocalParameterIivNV",
        ),
        (
            BufferKind::ProgramLocal,
            Scalar::F32,
            "ProgramLocalParameter4fvARB",
            "GetProgramLocalParameterfvARB",
        ),
        (
            BufferKind::ProgramEnv,
            Scalar::U32,
            "ProgramEnvParameterI4uivNV",
            "GetProgramEnvParameterIuivNV",
        ),
        (
            BufferKind::ProgramEnv,
            Scalar::I32,
            "ProgramEnvParameterI4ivNV",
            "GetProgramEnvParameterIivNV",
        ),
        (
            BufferKind::ProgramEnv,
            Scalar::F32,
            "ProgramEnvParameter4fvARB",
            "GetProgramEnvParameterfvARB",
        ),
    ] {
        let plan = plan_of(kind, scalar);
        let (result, calls) = run(FakeContext::default(), &plan);
        let outcome = result.unwrap_or_else(|r| panic!("{kind:?} {scalar:?}: {r:?}"));
        let mut expected = vec![
            "BindProgramARB(COMPUTE_PROGRAM_NV, 1)".to_string(),
            format!("{set}(COMPUTE_PROGRAM_NV, 0, {words})"),
            "GetProgramivARB(COMPUTE_PROGRAM_NV, PROGRAM_FORMAT_ARB)".into(),
            "GetProgramivARB(COMPUTE_PROGRAM_NV, PROGRAM_BINDING_ARB)".into(),
            "ProgramEnvParameterI4iNV(COMPUTE_PROGRAM_NV, 1, [100, 200, 300, 400])".into(),
            "DispatchCompute(1, 1, 1)".into(),
            format!("{get}(COMPUTE_PROGRAM_NV, 0)"),
            "DeleteProgramsARB([1])".into(),
        ];
        // Env parameters outlive the program: the runner resets each one it set.
        if kind == BufferKind::ProgramEnv {
            expected.push("ProgramEnvParameterI4uivNV(COMPUTE_PROGRAM_NV, 0, [0, 0, 0, 0])".into());
        }
        expected.push("ProgramEnvParameterI4uivNV(COMPUTE_PROGRAM_NV, 1, [0, 0, 0, 0])".into());
        assert_in_order(&calls, &expected);
        // The parameters are not GL buffers: nothing is bound for them.
        assert_eq!(
            calls.iter().filter(|c| c.starts_with("GenBuffers")).count(),
            1
        );
        assert_eq!(
            outcome.steps[0].values,
            vec![gl::PROGRAM_FORMAT_ASCII_ARB as i64]
        );
        assert_eq!(outcome.steps[1].values, vec![1]);
        assert_eq!(outcome.buffers[1], plan.buffers[1].bytes, "{set}");
    }
}

#[test]
fn parameter_buffers_bind_to_the_compute_parameter_buffer_target() {
    let case = "nv_compute_program5/api-parameter-buffer-read";
    let params: Vec<u32> = vec![1, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400];
    let query = |index| Step::Query {
        pname: QueryPname::ComputeProgramParameterBufferNv,
        index,
    };
    let plan = plan(
        case,
        vec![
            out(8),
            buffer(
                "params",
                BufferKind::ParameterBuffer,
                2,
                Scalar::U32,
                &params,
            ),
        ],
        vec![
            query(Some(2)),
            query(Some(3)),
            query(None),
            dispatch(1, 1, 1),
            Step::MemoryBarrier {
                bits: vec![conform_plan::BarrierBit::BufferUpdate],
            },
        ],
    );
    let (result, calls) = run(FakeContext::default(), &plan);
    let outcome = result.expect("runs");
    // NV_compute_program5, New Tokens: COMPUTE_PROGRAM_PARAMETER_BUFFER_NV is the target of
    // BindBuffer*; NV_parameter_buffer_object: program.buffer[2] reads binding 2.
    assert_in_order(
        &calls,
        &[
            "BindBufferBase(SHADER_STORAGE_BUFFER, 0, 2)".into(),
            "BufferData(COPY_WRITE_BUFFER, 48, DYNAMIC_COPY)".into(),
            "BindBufferBase(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 2, 3)".into(),
            "GetInteger64i_v(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 2)".into(),
            "GetInteger64i_v(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 3)".into(),
            "GetInteger64v(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV)".into(),
            "DispatchCompute(1, 1, 1)".into(),
            "BindBufferBase(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 2, 0)".into(),
        ],
    );
    let values: Vec<Vec<i64>> = outcome.steps.iter().map(|s| s.values.clone()).collect();
    assert_eq!(values[..3], [vec![3], vec![0], vec![3]]);
}

#[test]
fn a_parameter_buffer_binding_at_the_maximum_is_refused_by_index() {
    let case = "nv_compute_program5/api-parameter-buffer-bind-above-max";
    let plan = plan(
        case,
        vec![
            out(4),
            buffer(
                "params",
                BufferKind::ParameterBuffer,
                0,
                Scalar::U32,
                &[4, 3, 2, 1],
            ),
        ],
        vec![
            Step::ProgramQuery {
                pname: ProgramPname::MaxProgramParameterBufferBindingsNv,
            },
            Step::ProgramQuery {
                pname: ProgramPname::MaxProgramParameterBufferSizeNv,
            },
            Step::Api(ApiAction::BindParameterBufferAboveMaxNv { buffer: 1 }),
            dispatch(1, 1, 1),
        ],
    );
    let (result, calls) = run(FakeContext::default(), &plan);
    let outcome = result.expect("runs");
    let n = PARAMETER_BUFFER_BINDINGS;
    assert_in_order(
        &calls,
        &[
            "BindBufferBase(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 0, 3)".into(),
            "GetProgramivARB(COMPUTE_PROGRAM_NV, MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV)".into(),
            "GetProgramivARB(COMPUTE_PROGRAM_NV, MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV)".into(),
            "GetProgramivARB(COMPUTE_PROGRAM_NV, MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV)".into(),
            format!("BindBufferBase(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, {n}, 3)"),
            "DispatchCompute(1, 1, 1)".into(),
        ],
    );
    assert_eq!(outcome.steps[0].values, vec![n as i64]);
    // The error is the bind's (NV_parameter_buffer_object: INVALID_VALUE for index >= max).
    assert_eq!(outcome.steps[2].error, Some(GlError::InvalidValue));
    assert_eq!(outcome.steps[2].values, vec![n as i64]);
}

#[test]
fn an_indirect_dispatch_binds_its_buffer_only_for_the_dispatch() {
    let case = "nv_compute_program5/api-dispatch-indirect-assembly";
    let plan = plan(
        case,
        vec![
            out(13),
            buffer("args", BufferKind::Indirect, 0, Scalar::U32, &[7, 3, 2, 1]),
        ],
        vec![Step::DispatchIndirect {
            buffer: Some(1),
            offset: 4,
        }],
    );
    let (result, calls) = run(FakeContext::default(), &plan);
    result.expect("runs");
    assert_in_order(
        &calls,
        &[
            "BufferData(COPY_WRITE_BUFFER, 16, DYNAMIC_COPY)".into(),
            "BindBuffer(DISPATCH_INDIRECT_BUFFER, 3)".into(),
            "DispatchComputeIndirect(4)".into(),
            "BindBuffer(DISPATCH_INDIRECT_BUFFER, 0)".into(),
        ],
    );
    // An indirect buffer is bound by the step alone, never to an indexed target.
    assert!(!called(&calls, "BindBufferBase(DISPATCH_INDIRECT_BUFFER"));
    assert!(!calls
        .iter()
        .any(|c| c.starts_with("BindBufferBase") && c.ends_with(", 3)")));
}

#[test]
fn a_load_failure_reads_the_error_position_and_string_and_runs_nothing() {
    let case = "nv_compute_program5/group-size-missing";
    let mut plan = plan(case, Vec::new(), Vec::new());
    plan.skip_steps_if_built = true;
    let text = plan.programs[0].text.clone();
    let position = text.find("MOV").expect("the case has a MOV") as GLint;
    let context = FakeContext {
        reject_program: Some((position, "fake: no GROUP_SIZE declaration")),
        ..FakeContext::default()
    };
    let (result, calls) = run(context, &plan);
    let outcome = result.expect("a load failure is an outcome");
    // ARB_vertex_program 2.14.1: INVALID_OPERATION, PROGRAM_ERROR_POSITION_ARB and
    // PROGRAM_ERROR_STRING_ARB say where and why.
    assert_in_order(
        &calls,
        &[
            format!(
                "ProgramStringARB(COMPUTE_PROGRAM_NV, PROGRAM_FORMAT_ASCII_ARB, {})",
                text.len()
            ),
            "GetError() = INVALID_OPERATION".into(),
            "GetIntegerv(PROGRAM_ERROR_POSITION_ARB)".into(),
            "GetString(PROGRAM_ERROR_STRING_ARB)".into(),
            "DeleteProgramsARB([1])".into(),
        ],
    );
    assert!(!called(&calls, "Enable(COMPUTE_PROGRAM_NV)"), "{calls:#?}");
    assert!(!called(&calls, "DispatchCompute"), "{calls:#?}");
    assert_eq!(outcome.build.failed_at, Some(BuildStage::Load));
    let line = plan.programs[0].first_line + 2; // MOV is the program's third line
    assert!(
        outcome
            .build
            .log
            .contains("fake: no GROUP_SIZE declaration"),
        "{}",
        outcome.build.log
    );
    assert!(
        outcome.build.log.ends_with(&format!(
            "ProgramStringARB: InvalidOperation, error position {position} (cases/{case}.yaml:{line})"
        )),
        "{}",
        outcome.build.log
    );
    assert!(outcome.steps.is_empty());
}

#[test]
fn a_program_that_loads_where_a_failure_is_expected_runs_no_steps() {
    let case = "nv_compute_program5/group-size-missing";
    let mut plan = plan(case, vec![out(1)], vec![dispatch(1, 1, 1)]);
    plan.skip_steps_if_built = true;
    let (result, calls) = run(FakeContext::default(), &plan);
    let outcome = result.expect("runs");
    assert_eq!(outcome.build.failed_at, None);
    assert!(!called(&calls, "DispatchCompute"), "{calls:#?}");
    assert!(outcome.steps.is_empty());
    assert!(outcome
        .notes
        .iter()
        .any(|n| n.contains("steps were not run")));
}

#[test]
fn without_nv_compute_program5_in_the_extension_string_nothing_nv_is_called() {
    // Every entry point loads (the fake hands out all of them, as Mesa hands out stubs), but
    // the extension string decides.
    let context = FakeContext {
        extensions: NV_EXTENSIONS
            .into_iter()
            .filter(|e| *e != "GL_NV_compute_program5")
            .collect(),
        ..FakeContext::default()
    };
    let gl = install(context.clone());
    assert!(gl.ProgramStringARB.is_loaded() && gl.GenProgramsARB.is_loaded());
    let case = "nv_compute_program5/dispatch-plain";
    let plan = plan(case, vec![out(64)], vec![dispatch(4, 1, 1)]);
    let (result, calls) = run(context, &plan);
    assert_eq!(
        result,
        Err(Refusal::Unsupported("GL_NV_compute_program5".into()))
    );
    for nv in [
        "GenProgramsARB",
        "BindProgramARB",
        "ProgramStringARB",
        "DispatchCompute",
    ] {
        assert!(!called(&calls, nv), "{nv} called: {calls:#?}");
    }
    // The probe asks nothing of COMPUTE_PROGRAM_NV either.
    let gl = install(FakeContext {
        extensions: vec!["GL_NV_gpu_program5"],
        ..FakeContext::default()
    });
    let info = crate::caps::probe(&gl, Driver::Nvidia, ContextApi::Gl);
    assert!(!called(&take_calls(), "GetProgramivARB"));
    assert!(!info.limits.keys().any(|k| k.ends_with("_ARB")));
}

#[test]
fn storage_buffers_need_the_arb_binding_point_even_for_nv_programs() {
    // NV_compute_program5 needs GL 4.0 and ARB_compute_shader, not storage buffers; a context
    // without ARB_shader_storage_buffer_object has no SHADER_STORAGE_BUFFER to bind
    // (NV_shader_storage_buffer_object requires the ARB extension).
    let context = FakeContext {
        version: (4, 2),
        extensions: vec![
            "GL_ARB_compute_shader",
            "GL_NV_compute_program5",
            "GL_NV_gpu_program5",
        ],
        ..FakeContext::default()
    };
    let plan = plan(
        "nv_compute_program5/dispatch-plain",
        vec![out(64)],
        vec![dispatch(4, 1, 1)],
    );
    let (result, calls) = run(context, &plan);
    assert_eq!(
        result,
        Err(Refusal::Unsupported(
            "GL_ARB_shader_storage_buffer_object".into()
        ))
    );
    assert!(!called(&calls, "ProgramStringARB"), "{calls:#?}");
    assert!(!called(&calls, "BindBufferBase"), "{calls:#?}");
}

/// A `kernel_driver` that must not be asked: the EGL strings decide.
fn unasked() -> Option<PathBuf> {
    panic!("the sysfs link was read although the EGL strings decide")
}

#[test]
fn nvidia_devices_are_ranked_by_what_egl_and_the_kernel_say() {
    // The nvidia backend's device choice (context.rs) on fake EGL device descriptions.
    // NVIDIA's EGL library: its vendor string or its own device extensions.
    let nv_exts = ["EGL_EXT_device_drm", "EGL_NV_device_cuda"];
    assert_eq!(nvidia_rank_of(Some("NVIDIA"), &nv_exts, unasked), 2);
    assert_eq!(nvidia_rank_of(Some("NVIDIA Corporation"), &[], unasked), 2);
    assert_eq!(nvidia_rank_of(None, &nv_exts, unasked), 2);
    // Mesa's software device, with no DRM node.
    let sw = ["EGL_MESA_device_software"];
    assert_eq!(nvidia_rank_of(Some("Mesa Project"), &sw, || None), 0);
    // Mesa listing a DRM node whose kernel driver is nvidia (it cannot drive it), or
    // nouveau's.
    let drm = ["EGL_EXT_device_drm"];
    let driver =
        |name: &'static str| move || Some(PathBuf::from(format!("../../bus/pci/drivers/{name}")));
    assert_eq!(nvidia_rank_of(Some("Mesa"), &drm, driver("nvidia")), 1);
    assert_eq!(nvidia_rank_of(None, &drm, driver("nvidia-drm")), 1);
    assert_eq!(nvidia_rank_of(Some("Mesa"), &drm, driver("nouveau")), 0);
    assert_eq!(nvidia_rank_of(Some("Mesa"), &drm, || None), 0);
}

#[test]
fn the_enable_token_steps_toggle_compute_program_nv() {
    use ApiAction::{DisableComputeProgramNv, EnableComputeProgramNv, IsEnabledComputeProgramNv};
    let case = "nv_compute_program5/api-enable-token-state";
    let state = || Step::Query {
        pname: QueryPname::ComputeProgramNv,
        index: None,
    };
    let plan = plan(
        case,
        vec![buffer("out", BufferKind::Storage, 0, Scalar::U32, &[0; 8])],
        vec![
            Step::Api(IsEnabledComputeProgramNv),
            state(),
            Step::Api(DisableComputeProgramNv),
            Step::Api(IsEnabledComputeProgramNv),
            state(),
            Step::Api(EnableComputeProgramNv),
            Step::Api(IsEnabledComputeProgramNv),
            state(),
            dispatch(2, 1, 1),
        ],
    );
    let (result, calls) = run(FakeContext::default(), &plan);
    let outcome = result.expect("runs");
    // NV_compute_program5, New Tokens: COMPUTE_PROGRAM_NV is a cap of Enable, Disable and
    // IsEnabled and a pname of GetIntegerv.
    assert_in_order(
        &calls,
        &[
            "IsEnabled(COMPUTE_PROGRAM_NV)".into(),
            "GetInteger64v(COMPUTE_PROGRAM_NV)".into(),
            "Disable(COMPUTE_PROGRAM_NV)".into(),
            "IsEnabled(COMPUTE_PROGRAM_NV)".into(),
            "GetInteger64v(COMPUTE_PROGRAM_NV)".into(),
            "Enable(COMPUTE_PROGRAM_NV)".into(),
            "IsEnabled(COMPUTE_PROGRAM_NV)".into(),
            "GetInteger64v(COMPUTE_PROGRAM_NV)".into(),
            "DispatchCompute(2, 1, 1)".into(),
        ],
    );
    let values: Vec<Vec<i64>> = outcome.steps.iter().map(|s| s.values.clone()).collect();
    let on_off_on: Vec<Vec<i64>> = [1, 1, 0, 0, 1, 1].iter().map(|&v| vec![v]).collect();
    let read: Vec<Vec<i64>> = [0, 1, 3, 4, 6, 7]
        .iter()
        .map(|&i| values[i].clone())
        .collect();
    assert_eq!(read, on_off_on);
    assert_eq!(outcome.steps[8].error, Some(GlError::NoError));
}

#[test]
fn a_dispatch_error_is_the_dispatch_steps_own() {
    let case = "nv_compute_program5/api-enable-token-disabled-dispatch";
    let plan = plan(
        case,
        vec![buffer("out", BufferKind::Storage, 0, Scalar::U32, &[0; 8])],
        vec![
            Step::Api(ApiAction::UseNoProgram),
            Step::Api(ApiAction::DisableComputeProgramNv),
            dispatch(2, 1, 1),
            Step::Api(ApiAction::EnableComputeProgramNv),
            dispatch(2, 1, 1),
        ],
    );
    let (result, calls) = run(FakeContext::default(), &plan);
    let outcome = result.expect("runs");
    assert_in_order(
        &calls,
        &[
            "UseProgram(0)".into(),
            "Disable(COMPUTE_PROGRAM_NV)".into(),
            "DispatchCompute(2, 1, 1)".into(),
            "GetError() = INVALID_OPERATION".into(),
            "Enable(COMPUTE_PROGRAM_NV)".into(),
            "DispatchCompute(2, 1, 1)".into(),
        ],
    );
    let errors: Vec<Option<GlError>> = outcome.steps.iter().map(|s| s.error).collect();
    let ok = Some(GlError::NoError);
    assert_eq!(errors, [ok, ok, Some(GlError::InvalidOperation), ok, ok]);
}

#[test]
fn program_buffer_parameters_write_the_bound_parameter_buffer() {
    let case = "nv_compute_program5/api-parameter-buffer-update";
    let update = |binding, word, values: &[u32]| {
        Step::Api(ApiAction::ProgramBufferParametersIuivNv {
            binding,
            word,
            values: values.to_vec(),
        })
    };
    let params: Vec<u32> = (1..=12).collect();
    let plan = plan(
        case,
        vec![
            out(4),
            buffer(
                "params",
                BufferKind::ParameterBuffer,
                2,
                Scalar::U32,
                &params,
            ),
        ],
        vec![
            update(5, 0, &[1]),
            update(2, 10, &[1, 2, 3]),
            update(2, 4, &[7, 8, 9, 10]),
            dispatch(1, 1, 1),
        ],
    );
    let (result, calls) = run(FakeContext::default(), &plan);
    let outcome = result.expect("runs");
    // NV_parameter_buffer_object: the target is the program's parameter buffer target, the
    // binding and word index as given, count = the number of values.
    assert_in_order(
        &calls,
        &[
            "BindBufferBase(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 2, 3)".into(),
            "ProgramBufferParametersIuivNV(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 5, 0, 1, [1])"
                .into(),
            "ProgramBufferParametersIuivNV(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 2, 10, 3, [1, 2, 3])"
                .into(),
            "ProgramBufferParametersIuivNV(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 2, 4, 4, [7, 8, 9, 10])"
                .into(),
            "DispatchCompute(1, 1, 1)".into(),
        ],
    );
    let errors: Vec<Option<GlError>> = outcome.steps.iter().map(|s| s.error).collect();
    let ok = Some(GlError::NoError);
    assert_eq!(
        errors,
        [
            Some(GlError::InvalidOperation),
            Some(GlError::InvalidValue),
            ok,
            ok
        ]
    );
    // The words landed where the step said (the fake writes them as BufferSubData would).
    let mut updated = params.clone();
    updated[4..8].copy_from_slice(&[7, 8, 9, 10]);
    assert_eq!(outcome.buffers[1], from_u32s(&updated));
}
