//! Helpers shared by the integration tests: build small plans and read results.
#![allow(dead_code)]

use conform_plan::*;

pub fn nv(text: &str) -> ProgramSource {
    ProgramSource::from_text(Language::Nvasm, Stage::Compute, text, "test")
}

pub fn buf(name: &str, binding: u32, kind: BufferKind, words: &[u32]) -> BufferInit {
    BufferInit {
        name: name.into(),
        kind,
        binding,
        elem: ElemType::scalar(Scalar::U32),
        bytes: bytes::from_u32s(words),
    }
}

pub fn storage(binding: u32, words: &[u32]) -> BufferInit {
    buf(&format!("b{binding}"), binding, BufferKind::Storage, words)
}

pub fn plan(text: &str, buffers: Vec<BufferInit>, steps: Vec<Step>) -> ExecPlan {
    ExecPlan {
        case: "test".into(),
        programs: vec![nv(text)],
        buffers,
        uniforms: vec![],
        steps,
        timeout_ms: 5000,
        skip_steps_if_built: false,
    }
}

/// A GLSL compute program of `size` invocations: `header` (extensions, declarations) after
/// `#version 430` and the group size, storage buffer 0 as `uint v[]` (holding `init`), and
/// `body` in main after `uint i = gl_LocalInvocationIndex;`; one dispatch of one group.
pub fn glsl_plan(header: &str, body: &str, size: u32, init: &[u32]) -> ExecPlan {
    let text = format!(
        "#version 430\n{header}layout(local_size_x = {size}) in;\n\
         layout(std430, binding = 0) buffer B {{ uint v[]; }};\n\
         void main() {{\n    uint i = gl_LocalInvocationIndex;\n{body}\n}}\n"
    );
    ExecPlan {
        programs: vec![ProgramSource {
            language: Language::Glsl,
            ..nv(&text)
        }],
        ..plan("", vec![storage(0, init)], vec![dispatch(1, 1, 1)])
    }
}

pub fn dispatch(x: u32, y: u32, z: u32) -> Step {
    Step::Dispatch { groups: [x, y, z] }
}

pub fn run(p: &ExecPlan) -> Outcome {
    let o = conform_reference::run(p, &conform_reference::Options::default()).expect("run refused");
    assert_eq!(o.build.failed_at, None, "build failed: {}", o.build.log);
    o
}

pub fn words(o: &Outcome, k: usize) -> Vec<u32> {
    bytes::read_u32s(&o.buffers[k])
}

pub fn has_flag(o: &Outcome, kind: FlagKind) -> bool {
    o.flags.iter().any(|f| f.kind == kind)
}

/// The load log of a program that must fail to load.
pub fn load_error(text: &str) -> String {
    let p = plan(text, vec![], vec![dispatch(1, 1, 1)]);
    let o =
        conform_reference::run(&p, &conform_reference::Options::default()).expect("run refused");
    assert_eq!(
        o.build.failed_at,
        Some(BuildStage::Load),
        "program loaded but should not:\n{text}"
    );
    assert!(o.steps.is_empty());
    o.build.log
}
