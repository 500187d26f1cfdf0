//! End-to-end tests: real worker processes on the Mesa drivers this machine offers.
//!
//! Every test that needs a driver skips (with a printed reason) when the driver's worker
//! cannot create a context, so machines without EGL pass.

use conform_glrunner::{ContextApi, Driver, RawResult, Worker};
use conform_plan::bytes::{from_u32s, read_u32s};
use conform_plan::{
    ApiAction, BarrierBit, BufferInit, BufferKind, BuildStage, ElemType, ExecPlan, GlError,
    ImageDesc, ImageDim, ImageFormat, Language, Outcome, ProgramPname, ProgramSource, QueryPname,
    Refusal, Scalar, Stage, Step, UniformInit,
};
use std::time::Duration;

const EXE: &str = env!("CARGO_BIN_EXE_conform-glrunner-test-worker");
const LIMIT: Duration = Duration::from_secs(60);

fn worker(driver: Driver) -> Option<Worker> {
    let mut w = Worker::with_exe(EXE, driver);
    match w.probe() {
        Ok(info) => {
            eprintln!("{driver}: {} / {}", info.renderer, info.version);
            Some(w)
        }
        Err(reason) => {
            eprintln!("SKIP: {driver} unavailable: {reason}");
            None
        }
    }
}

fn program(language: Language, text: &str) -> ProgramSource {
    ProgramSource {
        language,
        stage: Stage::Compute,
        text: text.to_string(),
        words: Vec::new(),
        origin: "test".into(),
        first_line: 1,
        entry: "main".into(),
        specialization: Vec::new(),
    }
}

fn glsl(text: &str) -> ProgramSource {
    program(Language::Glsl, text)
}

fn buffer(kind: BufferKind, binding: u32, words: &[u32]) -> BufferInit {
    BufferInit {
        name: format!("b{binding}"),
        kind,
        binding,
        elem: ElemType::scalar(Scalar::U32),
        bytes: from_u32s(words),
    }
}

fn ssbo(binding: u32, words: &[u32]) -> BufferInit {
    buffer(BufferKind::Storage, binding, words)
}

fn plan(programs: Vec<ProgramSource>, buffers: Vec<BufferInit>, steps: Vec<Step>) -> ExecPlan {
    ExecPlan {
        case: "test".into(),
        programs,
        buffers,
        uniforms: Vec::new(),
        steps,
        timeout_ms: 10_000,
        skip_steps_if_built: false,
    }
}

fn dispatch(x: u32) -> Step {
    Step::Dispatch { groups: [x, 1, 1] }
}

fn api(call: &str, args: &[i64]) -> Step {
    Step::Api(ApiAction::parse(call, args).unwrap())
}

fn done(r: RawResult) -> Outcome {
    match r {
        RawResult::Done(Ok(o)) => o,
        other => panic!("expected an outcome, got {other:?}"),
    }
}

fn errors(o: &Outcome) -> Vec<Option<GlError>> {
    o.steps.iter().map(|s| s.error).collect()
}

const WRITE_ID_430: &str = "#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 3u + 1u; }
";

fn write_id_plan(version: &str) -> ExecPlan {
    let src = WRITE_ID_430.replace("#version 430", version);
    plan(
        vec![glsl(&src)],
        vec![ssbo(0, &[0xFFFF_FFFF; 8])],
        vec![dispatch(2)],
    )
}

fn check_write_id(o: &Outcome) {
    assert_eq!(o.build.failed_at, None, "log: {}", o.build.log);
    assert_eq!(errors(o), vec![Some(GlError::NoError)]);
    let want: Vec<u32> = (0..8).map(|i| i * 3 + 1).collect();
    assert_eq!(read_u32s(&o.buffers[0]), want);
}

#[test]
fn glsl_plan_runs_on_llvmpipe() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let o = done(w.run(&write_id_plan("#version 430"), LIMIT));
    check_write_id(&o);
    // The same context serves the next plan, with nothing left over from the first.
    let o = done(w.run_with_plan_limit(&write_id_plan("#version 430")));
    check_write_id(&o);
    assert_eq!(w.starts(), 1);
    assert_eq!(w.info().map(|i| i.driver), Some(Driver::Llvmpipe));
    let pid = w.pid().unwrap();
    w.shutdown();
    assert_eq!(w.pid(), None);
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
}

#[test]
fn gles_plans_run_in_the_es_context_between_desktop_ones() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let es = match w.info().map(|i| i.gles.clone()) {
        Some(Ok(es)) => es,
        other => {
            eprintln!("SKIP: llvmpipe gave no ES context: {other:?}");
            return;
        }
    };
    assert_eq!(es.api, ContextApi::Gles);
    assert!(es.gl_version >= (3, 1), "{es:?}");
    assert!(es.version.starts_with("OpenGL ES"), "{}", es.version);
    assert!(es.glsl >= 310, "{}", es.glsl_version);
    // ESSL in the ES context, desktop GLSL in the desktop one, back and forth in one worker
    // (the switch releases one context before making the other current).
    let es_plan = write_id_plan("#version 310 es");
    check_write_id(&done(w.run_in(ContextApi::Gles, &es_plan, LIMIT)));
    check_write_id(&done(w.run(&write_id_plan("#version 430"), LIMIT)));
    check_write_id(&done(w.run_in(ContextApi::Gles, &es_plan, LIMIT)));
    // The ES context is one: desktop GLSL does not compile there. (The reverse proves
    // nothing: GL_ARB_ES3_1_compatibility lets a desktop context take `#version 310 es`.)
    let o = done(w.run_in(ContextApi::Gles, &write_id_plan("#version 430"), LIMIT));
    assert_eq!(o.build.failed_at, Some(BuildStage::Compile));
    // A clear step in ES (glBufferSubData of zeros) and a read back by mapping.
    let p = plan(
        vec![glsl(
            &WRITE_ID_430.replace("#version 430", "#version 310 es"),
        )],
        vec![ssbo(0, &[0xFFFF_FFFF; 8])],
        vec![dispatch(2), Step::ClearBuffer { buffer: 0 }, Step::Snapshot],
    );
    let o = done(w.run_in(ContextApi::Gles, &p, LIMIT));
    assert_eq!(errors(&o), vec![Some(GlError::NoError); 3]);
    assert_eq!(read_u32s(&o.snapshots[0][0]), vec![0; 8]);
    assert_eq!(w.starts(), 1);
}

#[test]
fn images_are_made_bound_and_read_back() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let src = "#version 430
layout(local_size_x = 3, local_size_y = 2) in;
layout(r32ui, binding = 5) uniform uimage2D img;
void main() {
  ivec2 p = ivec2(gl_LocalInvocationID.xy);
  imageStore(img, p, imageLoad(img, p) * 2u + uvec4(p.y));
}
";
    let image = BufferInit {
        name: "img".into(),
        kind: BufferKind::Image(ImageDesc {
            dim: ImageDim::D2,
            format: ImageFormat::R32ui,
            size: [3, 2, 1],
            range: None,
        }),
        binding: 5,
        elem: ElemType::scalar(Scalar::U32),
        bytes: from_u32s(&[1, 2, 3, 4, 5, 6]),
    };
    let p = plan(
        vec![glsl(src)],
        vec![image],
        vec![dispatch(1), Step::Snapshot],
    );
    let o = done(w.run(&p, LIMIT));
    assert_eq!(o.build.failed_at, None, "log: {}", o.build.log);
    // Texel (x, y) is element x + 3y: 2v + y.
    let want = vec![2, 4, 6, 9, 11, 13];
    assert_eq!(read_u32s(&o.snapshots[0][0]), want);
    assert_eq!(read_u32s(&o.buffers[0]), want);
    // Cleanup left the worker usable: a second plan gets its own texture with its own texels.
    assert_eq!(read_u32s(&done(w.run(&p, LIMIT)).buffers[0]), want);
    // In OpenGL ES (no glGetTexImage) the texels come back through a framebuffer.
    let es = |f: ImageFormat, texels: Vec<u8>, src: &str| {
        let image = BufferInit {
            name: "img".into(),
            kind: BufferKind::Image(ImageDesc {
                dim: ImageDim::D2,
                format: f,
                size: [3, 2, 1],
                range: None,
            }),
            binding: 5,
            elem: f.texel(),
            bytes: texels,
        };
        plan(
            vec![glsl(src)],
            vec![image],
            vec![dispatch(1), Step::Snapshot],
        )
    };
    let es_src = src
        .replace("#version 430", "#version 310 es")
        .replace("uimage2D img", "highp uimage2D img");
    let o = done(w.run_in(
        ContextApi::Gles,
        &es(ImageFormat::R32ui, from_u32s(&[1, 2, 3, 4, 5, 6]), &es_src),
        LIMIT,
    ));
    assert_eq!(o.build.failed_at, None, "log: {}", o.build.log);
    assert_eq!(read_u32s(&o.buffers[0]), want);
    // Narrower and float formats are narrowed back to their stored representation.
    // (ESSL: an rgba16f image is readonly or writeonly.)
    let halves_src = "#version 310 es
layout(local_size_x = 3, local_size_y = 2) in;
layout(rgba16f, binding = 5) uniform writeonly highp image2D img;
void main() {
  ivec2 p = ivec2(gl_LocalInvocationID.xy);
  imageStore(img, p, vec4(float(p.x), float(p.y) * 0.25, -0.5, 65504.0));
}
";
    let o = done(w.run_in(
        ContextApi::Gles,
        &es(ImageFormat::Rgba16f, vec![0; 48], halves_src),
        LIMIT,
    ));
    assert_eq!(o.build.failed_at, None, "log: {}", o.build.log);
    let got: Vec<f32> = o.buffers[0]
        .chunks_exact(2)
        .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
        .collect();
    let want: Vec<f32> = (0..6)
        .flat_map(|t| [(t % 3) as f32, (t / 3) as f32 * 0.25, -0.5, 65504.0])
        .collect();
    assert_eq!(got, want);
}

#[test]
fn glsl_plan_runs_on_softpipe() {
    let Some(mut w) = worker(Driver::Softpipe) else {
        return;
    };
    let src = "#version 330
#extension GL_ARB_compute_shader : require
#extension GL_ARB_shader_storage_buffer_object : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 3u + 1u; }
";
    let p = plan(
        vec![glsl(src)],
        vec![ssbo(0, &[0xFFFF_FFFF; 8])],
        vec![dispatch(2)],
    );
    check_write_id(&done(w.run(&p, LIMIT)));
}

#[test]
fn glsl_and_spirv_plans_run_on_zink() {
    let Some(mut w) = worker(Driver::Zink) else {
        return;
    };
    check_write_id(&done(w.run(&write_id_plan("#version 430"), LIMIT)));
    let mut p = program(Language::Spirv, "");
    p.words = read_u32s(include_bytes!("data/write_id.spv"));
    p.specialization = vec![(0, 100)];
    let o = done(w.run(
        &plan(vec![p], vec![ssbo(0, &[0; 8])], vec![dispatch(2)]),
        LIMIT,
    ));
    assert_eq!(o.build.failed_at, None, "log: {}", o.build.log);
    assert_eq!(
        read_u32s(&o.buffers[0]),
        (0..8).map(|i| i + 100).collect::<Vec<u32>>()
    );
}

#[test]
fn spirv_plan_runs_on_llvmpipe() {
    // llvmpipe 22.3 lists GL_ARB_gl_spirv in its 4.5 core context.
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let mut p = program(Language::Spirv, "");
    p.words = read_u32s(include_bytes!("data/write_id.spv"));
    p.specialization = vec![(0, 7)];
    let o = done(w.run(
        &plan(vec![p.clone()], vec![ssbo(0, &[0; 8])], vec![dispatch(2)]),
        LIMIT,
    ));
    assert_eq!(o.build.failed_at, None, "log: {}", o.build.log);
    assert_eq!(
        read_u32s(&o.buffers[0]),
        (0..8).map(|i| i + 7).collect::<Vec<u32>>()
    );
    // A module cut short is refused by ShaderBinary or SpecializeShader: stage `validate`.
    p.words.truncate(20);
    let o = done(w.run(&plan(vec![p], vec![], vec![dispatch(1)]), LIMIT));
    assert_eq!(
        o.build.failed_at,
        Some(BuildStage::Validate),
        "{}",
        o.build.log
    );
}

#[test]
fn nv_assembly_is_unsupported_on_llvmpipe() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let p = plan(
        vec![program(Language::Nvasm, "!!NVcp5.0\nGROUP_SIZE 1;\nEND\n")],
        vec![],
        vec![dispatch(1)],
    );
    assert_eq!(
        w.run(&p, LIMIT),
        RawResult::Done(Err(Refusal::Unsupported("GL_NV_compute_program5".into())))
    );
}

/// After a crash or a hang: the next plan runs (or, on a machine without EGL, is refused by a
/// fresh worker that still answers).
fn next_plan_runs(w: &mut Worker, has_driver: bool) {
    let r = w.run(&write_id_plan("#version 430"), LIMIT);
    if has_driver {
        check_write_id(&done(r));
    } else {
        assert!(
            matches!(r, RawResult::Done(Err(Refusal::Unsupported(_)))),
            "{r:?}"
        );
    }
}

// The crash and hang triggers work without a GL context, so these two run everywhere (in
// builds with the test-triggers feature, which has them).
#[cfg(feature = "test-triggers")]
#[test]
fn crash_costs_one_plan() {
    let mut w = Worker::with_exe(EXE, Driver::Llvmpipe);
    let has_driver = w.probe().is_ok();
    let crash = plan(
        vec![glsl(WRITE_ID_430)],
        vec![ssbo(0, &[0; 8])],
        vec![api("conform_test_abort", &[])],
    );
    match w.run(&crash, LIMIT) {
        RawResult::Crash {
            signal,
            stderr_tail,
            ..
        } => {
            assert_eq!(signal, Some(6), "SIGABRT");
            assert!(stderr_tail.contains("conform_test_abort"), "{stderr_tail}");
        }
        other => panic!("expected a crash, got {other:?}"),
    }
    next_plan_runs(&mut w, has_driver);
    assert_eq!(w.starts(), 2);
}

#[test]
fn a_worker_dying_between_plans_is_an_event() {
    let mut w = Worker::with_exe(EXE, Driver::Llvmpipe);
    let has_driver = w.probe().is_ok();
    let pid = w.pid().expect("worker runs after a probe");
    // SAFETY: kill(2) and waitid(2) on our own child process; WNOWAIT waits until it can be
    // reaped (every thread gone) and leaves the reaping to the worker.
    unsafe {
        assert_eq!(libc::kill(pid as i32, libc::SIGKILL), 0);
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOWAIT;
        assert_eq!(libc::waitid(libc::P_PID, pid, &mut info, flags), 0);
    }
    assert!(
        w.take_events().is_empty(),
        "nothing noticed before the next plan"
    );
    next_plan_runs(&mut w, has_driver);
    let events = w.take_events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        events[0].contains("llvmpipe worker exited between plans (signal: 9"),
        "{events:?}"
    );
    assert!(w.take_events().is_empty(), "drained");
    assert_eq!(w.starts(), 2);
}

#[cfg(feature = "test-triggers")]
#[test]
fn hang_costs_one_plan() {
    let mut w = Worker::with_exe(EXE, Driver::Llvmpipe);
    let has_driver = w.probe().is_ok();
    let hang = plan(
        vec![glsl(WRITE_ID_430)],
        vec![ssbo(0, &[0; 8])],
        vec![api("conform_test_hang", &[])],
    );
    let pid = w.pid().expect("worker runs after a probe");
    match w.run(&hang, Duration::from_secs(2)) {
        RawResult::Timeout { stderr_tail } => {
            assert!(stderr_tail.contains("conform_test_hang"), "{stderr_tail}")
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    // The hung process is gone (killed and reaped).
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    next_plan_runs(&mut w, has_driver);
    assert_eq!(w.starts(), 2);
}

#[test]
fn build_failures_report_stage_and_log() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let bad = plan(
        vec![glsl(
            "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { nope = 1; }\n",
        )],
        vec![ssbo(0, &[7])],
        vec![dispatch(1)],
    );
    let o = done(w.run(&bad, LIMIT));
    assert_eq!(o.build.failed_at, Some(BuildStage::Compile));
    assert!(o.build.log.contains("nope"), "{}", o.build.log);
    assert!(o.steps.is_empty());
    assert_eq!(read_u32s(&o.buffers[0]), vec![7]);
    // A compute shader without a local size compiles but does not link.
    let unlinkable = plan(
        vec![glsl("#version 430\nvoid main() {}\n")],
        vec![],
        vec![dispatch(1)],
    );
    let o = done(w.run(&unlinkable, LIMIT));
    assert_eq!(o.build.failed_at, Some(BuildStage::Link), "{}", o.build.log);
}

#[test]
fn api_actions_on_llvmpipe() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let p = plan(
        vec![glsl(WRITE_ID_430)],
        vec![
            ssbo(0, &[0; 8]),
            buffer(BufferKind::Indirect, 0, &[1, 1, 1, 2, 1, 1]),
        ],
        vec![
            Step::Query {
                pname: QueryPname::MaxComputeWorkGroupCount,
                index: Some(0),
            },
            api("dispatch_above_max_count", &[0]),
            Step::ProgramQuery {
                pname: ProgramPname::ComputeWorkGroupSize,
            },
            api("query_work_group_size_unlinked", &[]),
            api("bind_indirect_none", &[]),
            api("dispatch_indirect_raw", &[0]),
            Step::DispatchIndirect {
                buffer: Some(1),
                offset: 2,
            },
            Step::DispatchIndirect {
                buffer: Some(1),
                offset: 12,
            },
            Step::MemoryBarrier {
                bits: vec![BarrierBit::ShaderStorage],
            },
            api("use_no_program", &[]),
            dispatch(1),
            api("use_program", &[]),
            api("resource_referenced_by_compute", &[3, 0]),
            api("make_separable", &[]),
            api("bind_pipeline_compute", &[]),
            Step::Query {
                pname: QueryPname::CurrentProgram,
                index: None,
            },
            api("resource_referenced_by_compute", &[3, 0]),
        ],
    );
    let o = done(w.run(&p, LIMIT));
    assert_eq!(o.build.failed_at, None);
    use GlError::*;
    assert_eq!(
        errors(&o),
        [
            NoError,
            InvalidValue,
            NoError,
            InvalidOperation,
            NoError,
            InvalidOperation,
            InvalidValue,
            NoError,
            NoError,
            NoError,
            InvalidOperation,
            NoError,
            NoError,
            NoError,
            NoError,
            NoError,
            NoError,
        ]
        .iter()
        .map(|e| Some(*e))
        .collect::<Vec<_>>(),
        "{o:#?}"
    );
    assert!(o.steps[0].values[0] >= 65535);
    // Mesa explains its errors through KHR_debug; they end up in the notes, under the step's
    // number as people count (the second step raised INVALID_VALUE).
    assert!(
        o.notes
            .iter()
            .any(|n| n.starts_with("step 2: driver message (error")),
        "{:?}",
        o.notes
    );
    eprintln!("notes: {:#?}", o.notes);
    assert_eq!(o.steps[1].values, vec![o.steps[0].values[0] + 1]);
    assert_eq!(o.steps[2].values, vec![4, 1, 1]);
    assert_eq!(o.steps[13].values, vec![1], "relinked as separable");
    assert_eq!(
        o.steps[15].values,
        vec![0],
        "no program current with a pipeline"
    );
    assert_eq!(o.steps[16].values.len(), 1);
    // Only the indirect dispatch at offset 12 (2 groups) ran.
    assert_eq!(
        read_u32s(&o.buffers[0]),
        (0..8).map(|i| i * 3 + 1).collect::<Vec<u32>>()
    );
    assert_eq!(read_u32s(&o.buffers[1]), vec![1, 1, 1, 2, 1, 1]);
}

#[test]
fn atomic_counters_uniforms_and_ubos_on_llvmpipe() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let src = "#version 430
layout(local_size_x = 16) in;
layout(binding = 0) uniform atomic_uint counter;
layout(std140, binding = 1) uniform U { uint base; };
uniform uint scale;
layout(std430, binding = 2) buffer Out { uint v[]; };
void main() { uint i = atomicCounterIncrement(counter); v[i] = base + scale * i; }
";
    let mut p = plan(
        vec![glsl(src)],
        vec![
            buffer(BufferKind::AtomicCounter, 0, &[0]),
            buffer(BufferKind::Uniform, 1, &[1000, 0, 0, 0]),
            ssbo(2, &[0; 16]),
        ],
        vec![
            dispatch(1),
            api("atomic_counter_buffer_referenced_by_compute", &[0]),
            api("uniform_block_referenced_by_compute", &[0]),
            api("resource_referenced_by_compute", &[1, 0]),
            api("resource_referenced_by_compute", &[3, 0]),
            api("resource_referenced_by_compute", &[2, 0]),
            api("resource_referenced_by_compute", &[4, 0]),
        ],
    );
    p.uniforms.push(UniformInit {
        name: "scale".into(),
        elem: ElemType::scalar(Scalar::U32),
        bytes: from_u32s(&[2]),
    });
    let o = done(w.run(&p, LIMIT));
    assert_eq!(o.build.failed_at, None, "{}", o.build.log);
    assert_eq!(read_u32s(&o.buffers[0]), vec![16]);
    assert_eq!(
        read_u32s(&o.buffers[2]),
        (0..16).map(|i| 1000 + 2 * i).collect::<Vec<u32>>()
    );
    assert_eq!(o.steps[1].values, vec![1]);
    assert_eq!(o.steps[2].values, vec![1]);
    // Through GetProgramResourceiv: the uniform block and the atomic counter buffer are
    // referenced by the compute shader. (llvmpipe 22.3 answers 0 for the shader storage block
    // and its buffer variable; that is the driver's answer, reported as is.)
    assert_eq!(o.steps[3].values, vec![1]);
    assert_eq!(o.steps[6].values, vec![1]);
    assert!(o.steps[4..6].iter().all(|s| s.values.len() == 1));
}

#[test]
fn probe_lists_llvmpipe_with_limits() {
    let all = conform_glrunner::probe_drivers(std::path::Path::new(EXE));
    for (d, r) in &all {
        match r {
            Ok(info) => eprintln!(
                "{d}: {} {:?} {}",
                info.renderer, info.gl_version, info.profile
            ),
            Err(e) => eprintln!("{d}: absent: {e}"),
        }
    }
    let Some((_, Ok(info))) = all.iter().find(|(d, _)| *d == Driver::Llvmpipe) else {
        eprintln!("SKIP: llvmpipe unavailable");
        return;
    };
    assert_eq!(info.driver, Driver::Llvmpipe);
    assert!(info.has_extension("GL_ARB_compute_shader"));
    assert_eq!(info.limits["MAX_COMPUTE_WORK_GROUP_COUNT"].len(), 3);
    assert!(info.limits["MAX_COMPUTE_SHARED_MEMORY_SIZE"][0] >= 32768);
    assert!(info.glsl >= 430);
    let nvidia = all.iter().find(|(d, _)| *d == Driver::Nvidia).unwrap();
    if nvidia.1.is_err() {
        assert!(
            !conform_glrunner::available_drivers(std::path::Path::new(EXE))
                .iter()
                .any(|i| i.driver == Driver::Nvidia)
        );
    }
}

#[test]
fn more_api_actions_on_llvmpipe() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let info = w.probe().expect("probed above");
    let mut steps = vec![
        api("begin_conditional_render_false", &[0]),
        dispatch(1),
        api("end_conditional_render", &[]),
        api("validate_program", &[]),
        api("memory_barrier_raw", &[0xFFFF_FFFF]),
        api("memory_barrier_raw", &[0]),
        api("query_work_group_size_link_failed", &[]),
        api("dispatch", &[0, 0, 0]),
        api("finish", &[]),
        api("use_trivial_glsl_compute", &[]),
        dispatch(2),
        Step::Query {
            pname: QueryPname::CurrentProgram,
            index: None,
        },
    ];
    let variable = info.has_extension("GL_ARB_compute_variable_group_size");
    if variable {
        // The program has a fixed local size: INVALID_OPERATION.
        steps.push(api("dispatch_group_size", &[1, 1, 1, 4, 1, 1]));
    }
    let p = plan(vec![glsl(WRITE_ID_430)], vec![ssbo(0, &[0; 8])], steps);
    let o = done(w.run(&p, LIMIT));
    use GlError::*;
    let mut want = vec![
        NoError,
        NoError,
        NoError,
        NoError,
        NoError,
        NoError,
        InvalidOperation,
        NoError,
        NoError,
        NoError,
        NoError,
        NoError,
    ];
    if variable {
        want.push(InvalidOperation);
    }
    assert_eq!(
        errors(&o),
        want.into_iter().map(Some).collect::<Vec<_>>(),
        "{o:#?}"
    );
    assert_eq!(o.steps[3].values, vec![1], "VALIDATE_STATUS");
    assert_eq!(o.steps[9].values, vec![1], "trivial program linked");
    assert_ne!(o.steps[11].values, vec![0], "trivial program current");
    eprintln!(
        "dispatch inside a false conditional render wrote {:?}",
        read_u32s(&o.buffers[0])
    );
}

#[test]
fn softpipe_endless_loop_times_out_and_the_worker_recovers() {
    let Some(mut w) = worker(Driver::Softpipe) else {
        return;
    };
    let endless = "#version 330
#extension GL_ARB_compute_shader : require
#extension GL_ARB_shader_storage_buffer_object : require
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint stop; uint count; };
void main() { while (stop == 0u) { count++; } }
";
    let p = plan(
        vec![glsl(endless)],
        vec![ssbo(0, &[0, 0])],
        vec![dispatch(1)],
    );
    match w.run(&p, Duration::from_secs(3)) {
        RawResult::Timeout { .. } => {}
        other => panic!("softpipe was expected to hang on an endless loop: {other:?}"),
    }
    let src = "#version 330
#extension GL_ARB_compute_shader : require
#extension GL_ARB_shader_storage_buffer_object : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 3u + 1u; }
";
    let p = plan(
        vec![glsl(src)],
        vec![ssbo(0, &[0xFFFF_FFFF; 8])],
        vec![dispatch(2)],
    );
    check_write_id(&done(w.run(&p, LIMIT)));
    assert_eq!(w.starts(), 2);
}

#[test]
fn workers_can_move_between_threads() {
    fn is_send<T: Send>() {}
    is_send::<Worker>();
    is_send::<RawResult>();
}

#[test]
fn a_missing_worker_executable_is_an_internal_refusal() {
    let mut w = Worker::with_exe("/nonexistent/conform", Driver::Llvmpipe);
    assert!(w.probe().is_err());
    match w.run(&write_id_plan("#version 430"), LIMIT) {
        RawResult::Done(Err(Refusal::Internal(msg))) => {
            assert!(msg.contains("cannot start worker"), "{msg}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn garbage_on_the_protocol_is_reported_and_the_worker_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("conform-fake-worker-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("fake");
    // Answers the probe, then garbage to the plan, then hangs.
    std::fs::write(
        &exe,
        "#!/bin/sh\nread l\necho '{\"Probe\":{\"Err\":\"fake driver\"}}'\nread l\necho garbage\nexec sleep 60\n",
    )
    .unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut w = Worker::with_exe(&exe, Driver::Llvmpipe);
    assert_eq!(w.probe(), Err("fake driver".to_string()));
    match w.run(&write_id_plan("#version 430"), LIMIT) {
        RawResult::Done(Err(Refusal::Internal(msg))) => {
            assert!(msg.contains("unreadable worker response"), "{msg}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(w.pid(), None, "the confused worker was killed");
    let _ = w.run(&write_id_plan("#version 430"), LIMIT);
    assert_eq!(w.starts(), 2);
    let _ = std::fs::remove_dir_all(dir);
}

fn set_uniform(target: conform_plan::UniformTarget, ty: &str, words: &[u32]) -> Step {
    Step::Uniform(conform_plan::UniformSet {
        target,
        ty: conform_plan::UniformType::parse(ty).unwrap(),
        bytes: from_u32s(words),
    })
}

fn by_name(name: &str) -> conform_plan::UniformTarget {
    conform_plan::UniformTarget::Name(name.into())
}

#[test]
fn state_steps_between_dispatches_on_llvmpipe() {
    let Some(mut w) = worker(Driver::Llvmpipe) else {
        return;
    };
    let src = "#version 430
layout(local_size_x = 1) in;
uniform uint k;
layout(location = 3) uniform uint arr[2];
layout(std430, binding = 0) buffer Out { uint v[]; };
void main() { v[0] += k + arr[1]; }
";
    let snapshot = Step::Snapshot;
    let p = plan(
        vec![glsl(src)],
        vec![ssbo(0, &[0, 0])],
        vec![
            set_uniform(by_name("k"), "u32", &[5]),
            set_uniform(conform_plan::UniformTarget::Location(4), "u32", &[10]),
            dispatch(1),
            Step::MemoryBarrier {
                bits: vec![BarrierBit::All],
            },
            snapshot.clone(),
            Step::WriteBuffer {
                buffer: 0,
                offset: 0,
                bytes: from_u32s(&[100]),
            },
            set_uniform(by_name("k"), "u32", &[1]),
            dispatch(1),
            Step::MemoryBarrier {
                bits: vec![BarrierBit::All],
            },
            snapshot.clone(),
            Step::ClearBuffer { buffer: 0 },
            snapshot,
            set_uniform(by_name("k"), "i32", &[1]),
            set_uniform(by_name("no_such_uniform"), "u32", &[1]),
            Step::WriteBuffer {
                buffer: 0,
                offset: 4,
                bytes: from_u32s(&[1, 2]),
            },
        ],
    );
    let o = done(w.run(&p, LIMIT));
    assert_eq!(o.build.failed_at, None, "log: {}", o.build.log);
    let snaps: Vec<Vec<u32>> = o.snapshots.iter().map(|s| read_u32s(&s[0])).collect();
    assert_eq!(snaps, vec![vec![15, 0], vec![111, 0], vec![0, 0]]);
    let e = errors(&o);
    assert!(
        e[..12].iter().all(|e| *e == Some(GlError::NoError)),
        "{e:?}"
    );
    assert_eq!(
        e[12],
        Some(GlError::InvalidOperation),
        "glUniform1i on a uint"
    );
    assert_eq!(e[13], Some(GlError::NoError), "location -1 is ignored");
    assert!(
        o.notes.iter().any(|n| n.contains("no_such_uniform")),
        "{:?}",
        o.notes
    );
    assert_eq!(
        e[14],
        Some(GlError::InvalidValue),
        "glBufferSubData past the end"
    );
    assert_eq!(read_u32s(&o.buffers[0]), vec![0, 0]);
}

#[test]
fn dispatch_group_size_where_the_driver_has_it() {
    for driver in [Driver::Llvmpipe, Driver::Softpipe, Driver::Zink] {
        let Some(mut w) = worker(driver) else {
            continue;
        };
        if !w
            .info()
            .is_some_and(|i| i.has_extension("GL_ARB_compute_variable_group_size"))
        {
            eprintln!("SKIP: {driver} lacks GL_ARB_compute_variable_group_size");
            continue;
        }
        let src = "#version 430
#extension GL_ARB_compute_variable_group_size : require
layout(local_size_variable) in;
layout(std430, binding = 0) buffer Out { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] = gl_LocalGroupSizeARB.x; }
";
        let p = plan(
            vec![glsl(src)],
            vec![ssbo(0, &[0; 8])],
            vec![
                Step::DispatchGroupSize {
                    groups: [2, 1, 1],
                    size: [3, 1, 1],
                },
                dispatch(1),
            ],
        );
        let o = done(w.run(&p, LIMIT));
        assert_eq!(o.build.failed_at, None, "{driver} log: {}", o.build.log);
        assert_eq!(
            errors(&o),
            vec![Some(GlError::NoError), Some(GlError::InvalidOperation)],
            "{driver}: glDispatchCompute on a variable size is INVALID_OPERATION"
        );
        assert_eq!(
            read_u32s(&o.buffers[0]),
            vec![3, 3, 3, 3, 3, 3, 0, 0],
            "{driver}"
        );
    }
}
