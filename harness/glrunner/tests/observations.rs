//! Observations of Mesa behaviour reported in docs/DRIVERS.md. Ignored by default (they print
//! facts rather than check conform); run with
//! `cargo test -p conform-glrunner --test observations -- --ignored --nocapture`.

use conform_glrunner::{Driver, RawResult, Worker};
use conform_plan::bytes::{from_u32s, read_u32s};
use conform_plan::{
    ApiAction, BufferInit, BufferKind, ConditionalRenderMode, ElemType, ExecPlan, Language,
    ProgramSource, Scalar, Stage, Step,
};
use std::time::Duration;

const EXE: &str = env!("CARGO_BIN_EXE_conform-glrunner-test-worker");

fn plan(language: Language, text: &str, words: Vec<u32>, data: &[u32], groups: u32) -> ExecPlan {
    ExecPlan {
        case: "observation".into(),
        programs: vec![ProgramSource {
            language,
            stage: Stage::Compute,
            text: text.into(),
            words,
            origin: "observation".into(),
            first_line: 1,
            entry: "main".into(),
            specialization: vec![],
        }],
        buffers: vec![BufferInit {
            name: "b".into(),
            kind: BufferKind::Storage,
            binding: 0,
            elem: ElemType::scalar(Scalar::U32),
            bytes: from_u32s(data),
        }],
        uniforms: vec![],
        steps: vec![Step::Dispatch {
            groups: [groups, 1, 1],
        }],
        timeout_ms: 5000,
        skip_steps_if_built: false,
    }
}

fn show(driver: Driver, what: &str, r: &RawResult) {
    match r {
        RawResult::Done(Ok(o)) => eprintln!(
            "{driver}: {what}: build {:?}, errors {:?}, words {:?}, log {:?}",
            o.build.failed_at,
            o.steps.iter().map(|s| s.error).collect::<Vec<_>>(),
            read_u32s(o.buffers.first().map(|b| b.as_slice()).unwrap_or(&[])),
            o.build.log
        ),
        other => eprintln!("{driver}: {what}: {other:?}"),
    }
}

#[test]
#[ignore]
fn mesa_loops_and_float_atomics() {
    let counted = "#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint n; uint count; };
void main() { uint c = 0u; for (uint i = 0u; i < n; i++) { c++; } count = c; }
";
    let endless = "#version 430
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint stop; uint count; };
void main() { while (stop == 0u) { count++; } }
";
    let fadd = read_u32s(include_bytes!("data/atomic_fadd.spv"));
    for driver in [Driver::Llvmpipe, Driver::Softpipe, Driver::Zink] {
        let mut w = Worker::with_exe(EXE, driver);
        let info = match w.probe() {
            Ok(i) => i,
            Err(e) => {
                eprintln!("{driver}: absent: {e}");
                continue;
            }
        };
        eprintln!(
            "{driver}: {} | {} | spirv extensions {:?}",
            info.renderer, info.version, info.spirv_extensions
        );
        let (counted, endless) = if driver == Driver::Softpipe {
            let fix = |s: &str| {
                s.replace(
                    "#version 430",
                    "#version 330\n#extension GL_ARB_compute_shader : require\n\
                     #extension GL_ARB_shader_storage_buffer_object : require",
                )
            };
            (fix(counted), fix(endless))
        } else {
            (counted.to_string(), endless.to_string())
        };
        for n in [65535u32, 65536, 100_000] {
            let r = w.run(
                &plan(Language::Glsl, &counted, vec![], &[n, 0], 1),
                Duration::from_secs(20),
            );
            show(driver, &format!("loop of {n}"), &r);
        }
        let r = w.run(
            &plan(Language::Glsl, &endless, vec![], &[0, 0], 1),
            Duration::from_secs(5),
        );
        show(driver, "endless loop (5 s limit)", &r);
        let mut p = plan(Language::Glsl, &counted, vec![], &[3, 0], 1);
        p.steps.insert(
            0,
            Step::Api(ApiAction::BeginConditionalRenderFalse {
                mode: Some(ConditionalRenderMode::Wait),
            }),
        );
        let r = w.run(&p, Duration::from_secs(20));
        show(driver, "loop of 3 inside a false conditional render", &r);
        if info.extensions.contains("GL_ARB_gl_spirv") {
            let r = w.run(
                &plan(Language::Spirv, "", fadd.clone(), &[0], 2),
                Duration::from_secs(20),
            );
            show(
                driver,
                "OpAtomicFAddEXT x16 of 0.5 (expect 8.0 = 0x41000000)",
                &r,
            );
        }
    }
}
