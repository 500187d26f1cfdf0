//! Unit tests: results GLSL leaves undefined are flagged where they are used, never silently
//! chosen (reference/undefined.yaml, docs/REFERENCE.md "Undefined results"), and the same
//! operations on operands the spec defines are not.

use super::tests::{plan_of, prog, run_plan};
use conform_plan::bytes::{from_u32s, read_u32s};
use conform_plan::{BufferInit, BufferKind, ElemType, FlagKind, Outcome, Scalar, Stage};

fn run(body: &str, input: &[u32]) -> Outcome {
    let src = format!(
        "#version 430\nlayout(local_size_x = 1) in;\n\
         layout(std430, binding = 0) buffer In {{ int i[4]; }};\n\
         layout(std430, binding = 1) buffer Out {{ uint o[4]; }};\n\
         void main() {{\n{body}\n}}\n"
    );
    let buffers = vec![
        BufferInit {
            name: "in".into(),
            kind: BufferKind::Storage,
            binding: 0,
            elem: ElemType::scalar(Scalar::I32),
            bytes: from_u32s(input),
        },
        BufferInit {
            name: "out".into(),
            kind: BufferKind::Storage,
            binding: 1,
            elem: ElemType::scalar(Scalar::U32),
            bytes: vec![0; 16],
        },
    ];
    let plan = plan_of(vec![prog(Stage::Compute, &src)], buffers, [1, 1, 1]);
    let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    out
}

fn undefined_flag(out: &Outcome) -> Option<String> {
    out.flags
        .iter()
        .find(|f| f.kind == FlagKind::UndefinedValue)
        .map(|f| f.message.clone())
}

/// (program body, input words, the rule the flag names)
const FLAGGED: &[(&str, [u32; 4], &str)] = &[
    // GLSL 4.60 section 5.9: % with a negative operand.
    (
        "o[0] = uint(i[0] % i[1]);",
        [(-7i32) as u32, 2, 0, 0],
        "GLSL % with a negative operand",
    ),
    (
        "o[0] = uint(i[0] % i[1]);",
        [7, (-2i32) as u32, 0, 0],
        "GLSL % with a negative operand",
    ),
    (
        "ivec2 a = ivec2(i[0], 5); o[0] = uint((a % 3).x);",
        [(-1i32) as u32, 0, 0, 0],
        "GLSL % with a negative operand",
    ),
    // Section 8.3: smoothstep with edge0 >= edge1.
    (
        "o[0] = floatBitsToUint(smoothstep(float(i[0]), float(i[1]), 0.5));",
        [1, 0, 0, 0],
        "smoothstep with edge0 >= edge1",
    ),
    (
        "o[0] = floatBitsToUint(smoothstep(float(i[0]), float(i[1]), 0.5));",
        [2, 2, 0, 0],
        "smoothstep with edge0 >= edge1",
    ),
    // Section 5.4.1: a negative float to an unsigned integer, in (-1, 0) too.
    (
        "o[0] = uint(float(i[0]) * 0.5);",
        [(-1i32) as u32, 0, 0, 0],
        "negative float to an unsigned integer",
    ),
    (
        "o[0] = uint(-0.25);",
        [0, 0, 0, 0],
        "negative float to an unsigned integer",
    ),
];

#[test]
fn undefined_results_are_flagged_where_stored() {
    for (body, input, rule) in FLAGGED {
        let out = run(body, input);
        let flag = undefined_flag(&out)
            .unwrap_or_else(|| panic!("`{body}` on {input:?} is not flagged: {:?}", out.flags));
        assert!(flag.contains(rule), "`{body}`: {flag}");
    }
}

#[test]
fn the_same_operations_on_defined_operands_are_not_flagged() {
    let defined: &[(&str, [u32; 4], u32)] = &[
        ("o[0] = uint(i[0] % i[1]);", [7, 2, 0, 0], 1),
        ("o[0] = uint(i[0] % i[1]);", [0, 3, 0, 0], 0),
        (
            "o[0] = floatBitsToUint(smoothstep(float(i[0]), float(i[1]), 0.5));",
            [0, 1, 0, 0],
            0.5f32.to_bits(),
        ),
        ("o[0] = uint(float(i[0]) * 0.5);", [5, 0, 0, 0], 2),
        ("o[0] = uint(-0.0);", [0, 0, 0, 0], 0),
        // Computed and discarded: defined (the flag is raised at a use).
        (
            "int r = i[0] % i[1]; o[0] = 9u;",
            [(-7i32) as u32, 2, 0, 0],
            9,
        ),
    ];
    for (body, input, want) in defined {
        let out = run(body, input);
        assert_eq!(undefined_flag(&out), None, "`{body}` on {input:?}");
        assert_eq!(read_u32s(&out.buffers[1])[0], *want, "`{body}`");
    }
}
