//! The front-end contract seen from outside: `run`, `check` and `trace` behave the same for
//! every language (a built program runs, a build failure is an outcome with the stage and the
//! log, something the reference does not model is a refusal), and `trace` explains GLSL and
//! SPIR-V programs as it does NV assembly.

mod common;

use common::*;
use conform_plan::*;
use conform_reference::front::{self, BuildFailure};

fn glsl(text: &str) -> ProgramSource {
    ProgramSource {
        language: Language::Glsl,
        ..nv(text)
    }
}

fn glsl_plan(text: &str) -> ExecPlan {
    ExecPlan {
        programs: vec![glsl(text)],
        ..plan("", vec![storage(0, &[0; 4])], vec![dispatch(1, 1, 1)])
    }
}

const GLSL_STORE: &str = "#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer B { uint v[]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    v[i] = i * 10u + 1u;
}
";

#[test]
fn trace_explains_a_glsl_invocation() {
    let p = glsl_plan(GLSL_STORE);
    let lines = conform_reference::trace(&p, &Default::default(), [0, 0, 0], 2).unwrap();
    let text = lines.join("\n");
    assert!(!lines.is_empty(), "no trace for a GLSL program");
    // Line 6 of the shader stores 2 * 10 + 1 = 21 (0x15) for invocation 2.
    assert!(text.contains("line 6"), "{text}");
    assert!(text.contains("Store"), "{text}");
    assert!(text.contains("0x15"), "{text}");
    // The run agrees with the trace.
    assert_eq!(words(&run(&p), 0), vec![1, 11, 21, 31]);
}

#[test]
fn trace_of_a_program_that_fails_to_build_gives_its_diagnostics() {
    let p =
        glsl_plan("#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undeclared = 1; }\n");
    let lines = conform_reference::trace(&p, &Default::default(), [0, 0, 0], 0).unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("compile failure: line 3: "),
        "{lines:?}"
    );
    let nv_bad = plan("!!NVcp5.0\nBOGUS;\nEND\n", vec![], vec![dispatch(1, 1, 1)]);
    let lines = conform_reference::trace(&nv_bad, &Default::default(), [0, 0, 0], 0).unwrap();
    assert!(lines[0].starts_with("load failure: line "), "{lines:?}");
}

#[test]
fn build_failures_are_outcomes_with_the_stage_and_the_initial_buffers() {
    let p = ExecPlan {
        buffers: vec![storage(0, &[7, 8, 9, 10])],
        ..glsl_plan("#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undeclared = 1; }\n")
    };
    let o = conform_reference::run(&p, &Default::default()).unwrap();
    assert_eq!(o.build.failed_at, Some(BuildStage::Compile));
    assert!(o.build.log.contains("line 3"), "{}", o.build.log);
    assert!(o.steps.is_empty());
    assert_eq!(words(&o, 0), vec![7, 8, 9, 10]);

    let o = conform_reference::run(
        &plan("!!NVcp5.0\nBOGUS;\nEND\n", vec![storage(0, &[5])], vec![]),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(o.build.failed_at, Some(BuildStage::Load));
    assert_eq!(words(&o, 0), vec![5]);
}

#[test]
fn unsupported_constructs_are_refusals_naming_the_case_and_line() {
    let p = glsl_plan(
        "#version 430\nlayout(local_size_x = 1) in;\nlayout(binding = 0) uniform samplerCube s;\nvoid main() {}\n",
    );
    match conform_reference::run(&p, &Default::default()) {
        Err(Refusal::Unsupported(m)) => {
            assert!(m.starts_with("test: line 3: unsupported: "), "{m}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    match front::build(
        &p.programs,
        Some(&p),
        &conform_reference::Options::default(),
    ) {
        Err(BuildFailure::Unsupported { at, .. }) => assert_eq!(at.line, 3),
        other => panic!("expected Unsupported, got {other:?}"),
    }
    let d = conform_reference::check(&p.programs[0]).unwrap_err();
    assert!(
        d[0].message.starts_with("not modeled by the reference: "),
        "{d:?}"
    );
}

#[test]
fn plans_mixing_languages_are_refused_by_name() {
    let mut p = glsl_plan(GLSL_STORE);
    p.programs.push(nv("!!NVcp5.0\nGROUP_SIZE 1;\nEND\n"));
    match conform_reference::run(&p, &Default::default()) {
        Err(Refusal::Unsupported(m)) => assert!(m.contains("mixes glsl and nvasm"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let empty = ExecPlan {
        programs: vec![],
        ..glsl_plan(GLSL_STORE)
    };
    assert!(matches!(
        conform_reference::run(&empty, &Default::default()),
        Err(Refusal::Unsupported(_))
    ));
}

#[test]
fn a_program_without_a_compute_shader_builds_and_its_dispatches_fail() {
    let mut p = glsl_plan("#version 430\nvoid main() { gl_Position = vec4(0.0); }\n");
    p.programs[0].stage = Stage::Vertex;
    let o = conform_reference::run(&p, &Default::default()).unwrap();
    assert_eq!(o.build.failed_at, None);
    assert_eq!(o.steps[0].error, Some(GlError::InvalidOperation));
    assert!(conform_reference::check(&p.programs[0]).is_ok());
}

#[test]
fn check_leaves_link_rules_to_the_whole_program() {
    // No local size: a link error (ARB_compute_shader), which one shader alone cannot decide.
    let p = glsl("#version 430\nvoid main() {}\n");
    assert_eq!(conform_reference::check(&p), Ok(()));
    let o = conform_reference::run(
        &ExecPlan {
            programs: vec![p],
            ..glsl_plan(GLSL_STORE)
        },
        &Default::default(),
    )
    .unwrap();
    assert_eq!(o.build.failed_at, Some(BuildStage::Link));
}
