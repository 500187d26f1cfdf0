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
         layout(std430, binding = 0) buffer InBits {{ float f[4]; }};\n\
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
    // A lane past the first of a vector.
    (
        "ivec2 a = ivec2(5, i[0]); o[0] = uint((a % 3).y);",
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
    // Section 4.1.3: "Division resulting in overflow will result in an undefined value."
    (
        "o[0] = uint(i[0] / i[1]);",
        [0x8000_0000, u32::MAX, 0, 0],
        "division that overflows",
    ),
    // Sections 8.1 and 8.2: the domains of the angle and exponential functions.
    (POW, [(-1i32) as u32, 2, 0, 0], "pow(x, y) with x < 0"),
    (POW, [0, 0, 0, 0], "pow(x, y) with x < 0"),
    (POW, [0, (-1i32) as u32, 0, 0], "pow(x, y) with x < 0"),
    (
        "o[0] = floatBitsToUint(log(float(i[0])));",
        [0, 0, 0, 0],
        "logarithm of x <= 0",
    ),
    (
        "o[0] = floatBitsToUint(log2(float(i[0])));",
        [(-2i32) as u32, 0, 0, 0],
        "logarithm of x <= 0",
    ),
    (
        "o[0] = floatBitsToUint(sqrt(float(i[0])));",
        [(-4i32) as u32, 0, 0, 0],
        "sqrt of x < 0",
    ),
    (
        "o[0] = floatBitsToUint(inversesqrt(float(i[0])));",
        [0, 0, 0, 0],
        "inverse square root of x <= 0",
    ),
    (
        "o[0] = floatBitsToUint(asin(float(i[0])));",
        [2, 0, 0, 0],
        "asin or acos of |x| > 1",
    ),
    (
        "vec2 v = acos(vec2(0.5, float(i[0]))); o[0] = floatBitsToUint(v.y);",
        [(-2i32) as u32, 0, 0, 0],
        "asin or acos of |x| > 1",
    ),
    (
        "o[0] = floatBitsToUint(atan(float(i[0]), float(i[1])));",
        [0, 0, 0, 0],
        "atan(y, x) with x and y both 0",
    ),
    (
        "o[0] = floatBitsToUint(acosh(float(i[0])));",
        [0, 0, 0, 0],
        "acosh of x < 1",
    ),
    (
        "o[0] = floatBitsToUint(atanh(float(i[0])));",
        [(-1i32) as u32, 0, 0, 0],
        "atanh of |x| >= 1",
    ),
    // Section 8.3: clamp with minVal > maxVal (every type), ldexp out of range, frexp of an
    // infinity or NaN (both parts).
    (
        "o[0] = uint(clamp(i[2], i[0], i[1]));",
        [3, 1, 2, 0],
        "clamp with minVal > maxVal",
    ),
    (
        "o[0] = clamp(uint(i[2]), uint(i[0]), uint(i[1]));",
        [3, 1, 2, 0],
        "clamp with minVal > maxVal",
    ),
    (
        "o[0] = floatBitsToUint(clamp(vec2(float(i[2])), float(i[0]), float(i[1])).y);",
        [1, 0, 2, 0],
        "clamp with minVal > maxVal",
    ),
    // Section 8.6: the inverse of a singular matrix (columns (1, 2) and (2, 4)).
    (
        "mat2 m = mat2(float(i[0]), float(i[1]), float(i[1]), float(i[2])); o[0] = floatBitsToUint(inverse(m)[1][0]);",
        [1, 2, 4, 0],
        "the inverse of a singular matrix",
    ),
    // Section 8.3: float min, max and clamp with a NaN operand (a NaN the buffer holds, read
    // through the float view of the same words: intBitsToFloat of it is unspecified itself).
    (
        "o[0] = floatBitsToUint(min(f[0], 1.0));",
        [0x7FC0_0000, 0, 0, 0],
        "min, max or clamp with a NaN operand",
    ),
    (
        "o[0] = floatBitsToUint(max(vec2(1.0), f[0]).y);",
        [0x7FC0_0000, 0, 0, 0],
        "min, max or clamp with a NaN operand",
    ),
    (
        "o[0] = floatBitsToUint(clamp(0.5, f[0], 1.0));",
        [0x7FC0_0000, 0, 0, 0],
        "min, max or clamp with a NaN operand",
    ),
    (
        "o[0] = floatBitsToUint(ldexp(1.0, i[0]));",
        [129, 0, 0, 0],
        "ldexp whose result is too large",
    ),
    (
        "o[0] = floatBitsToUint(ldexp(float(i[1]) * 1e38, i[0]));",
        [2, 3, 0, 0],
        "ldexp whose result is too large",
    ),
    (
        "int e; o[0] = floatBitsToUint(frexp(f[0], e));",
        [0x7f80_0000, 0, 0, 0],
        "frexp of an infinity or NaN",
    ),
    (
        "int e; float m = frexp(f[0], e); o[0] = uint(e);",
        [0x7fc0_0000, 0, 0, 0],
        "frexp of an infinity or NaN",
    ),
    // Section 8.3: intBitsToFloat of a NaN's encoding; 8.4: packDouble2x32 of an infinity's
    // or a NaN's.
    (
        "o[0] = floatBitsToUint(intBitsToFloat(i[0]));",
        [0x7FC0_0000, 0, 0, 0],
        "the bits of a NaN",
    ),
    (
        "o[0] = floatBitsToUint(uintBitsToFloat(uvec2(i[1], i[0])).y);",
        [0xFFC0_0001, 1, 0, 0],
        "the bits of a NaN",
    ),
    (
        "o[0] = floatBitsToUint(float(packDouble2x32(uvec2(0u, uint(i[0])))));",
        [0xFFF0_0000, 0, 0, 0],
        "the bits of a NaN, or of an infinity",
    ),
    (
        "o[0] = uint(isnan(packDouble2x32(uvec2(0u, uint(i[0])))));",
        [0x7FF8_0000, 0, 0, 0],
        "the bits of a NaN",
    ),
    // Section 4.7.1: a float operation whose result is a NaN (made, or carried from one).
    (
        "o[0] = floatBitsToUint(f[0] + 1.0);",
        [0x7FC0_0000, 0, 0, 0],
        "whose result is a NaN",
    ),
    (
        "float z = float(i[1]); o[0] = floatBitsToUint(z / z);",
        [0, 0, 0, 0],
        "whose result is a NaN",
    ),
    // Sections 8.3 and 8.4: round of a half, and a norm pack of a NaN or of a scaled half.
    (
        "o[0] = floatBitsToUint(round(float(i[0]) + 0.5));",
        [2, 0, 0, 0],
        "rounding of a half",
    ),
    (
        "o[0] = packUnorm2x16(vec2(f[0], 0.25));",
        [0x7FC0_0000, 0, 0, 0],
        "norm pack of a NaN",
    ),
    (
        "o[0] = packUnorm4x8(vec4(float(i[0]) / 510.0));",
        [1, 0, 0, 0],
        "norm pack of a NaN",
    ),
    // Sections 4.3 and 6.1.1: a local, a vector's lane, an out parameter read before written.
    (
        "int u; o[0] = uint(u + i[0]);",
        [1, 0, 0, 0],
        "read before it was written",
    ),
    (
        "ivec2 v; v.x = i[0]; o[0] = uint(v.y);",
        [1, 0, 0, 0],
        "read before it was written",
    ),
    // Arrays and structs in private memory (since 2026-11-29): an element never written, a
    // member never written, an out parameter's element, a loop's fresh declaration.
    (
        "int a[4]; a[0] = i[0]; o[0] = uint(a[i[1]]);",
        [1, 2, 0, 0],
        "read before it was written",
    ),
    (
        "struct S { int x; int y; }; S s; s.x = i[0]; o[0] = uint(s.y);",
        [1, 0, 0, 0],
        "read before it was written",
    ),
    (
        "int acc = 0; for (int k = 0; k < 2; k++) { int a[2]; if (k == 0) a[1] = i[0]; acc += a[1]; } o[0] = uint(acc);",
        [5, 0, 0, 0],
        "read before it was written",
    ),
    // Section 8.8: bitfieldExtract/bitfieldInsert with a negative offset or count, or past
    // 32 bits.
    (BFE, [30, 4, 0xffff, 0], "bitfield extract or insert"),
    (
        BFE,
        [(-1i32) as u32, 4, 0xffff, 0],
        "bitfield extract or insert",
    ),
    (
        BFE,
        [0, (-1i32) as u32, 0xffff, 0],
        "bitfield extract or insert",
    ),
    (
        "o[0] = uint(bitfieldInsert(i[2], 7, i[0], i[1]));",
        [16, 17, 0, 0],
        "bitfield extract or insert",
    ),
];

const POW: &str = "o[0] = floatBitsToUint(pow(float(i[0]), float(i[1])));";
const BFE: &str = "o[0] = bitfieldExtract(uint(i[2]), i[0], i[1]);";

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
        (
            "mat2 m = mat2(float(i[0]), float(i[1]), float(i[1]), float(i[2])); o[0] = floatBitsToUint(inverse(m)[1][1]);",
            [2, 0, 4, 0],
            0.25f32.to_bits(),
        ),
        (
            "o[0] = floatBitsToUint(min(float(i[0]), 1.0) + max(float(i[1]), 1.0) + clamp(2.0, float(i[2]), 1.0));",
            [2, 0, 0, 0],
            3.0f32.to_bits(),
        ),
        ("o[0] = uint(i[0] % i[1]);", [0, 3, 0, 0], 0),
        // round of a non-half; a norm pack whose scaled values are whole.
        (
            "o[0] = floatBitsToUint(round(float(i[0]) + 0.25));",
            [2, 0, 0, 0],
            2.0f32.to_bits(),
        ),
        (
            "o[0] = packUnorm4x8(vec4(float(i[0]) / 255.0));",
            [1, 0, 0, 0],
            0x0101_0101,
        ),
        // A NaN read from memory and tested is no operation's result; x / 0 is an infinity.
        ("o[0] = uint(isnan(f[0]));", [0x7FC0_0000, 0, 0, 0], 1),
        (
            "o[0] = floatBitsToUint(1.0 / float(i[1]));",
            [0, 0, 0, 0],
            f32::INFINITY.to_bits(),
        ),
        // A lane written before it is read; a read whose value cannot change the result
        // (the reference tries other values there and finds the same memory).
        ("ivec2 v; v.x = i[0]; o[0] = uint(v.x);", [4, 0, 0, 0], 4),
        (
            "int a[4]; a[i[1]] = i[0]; o[0] = uint(a[i[1]]);",
            [4, 2, 0, 0],
            4,
        ),
        (
            "struct S { int x; ivec2 y; }; S s; s.y.y = i[0]; s.x = 1; o[0] = uint(s.y.y + s.x);",
            [4, 0, 0, 0],
            5,
        ),
        ("int u; o[0] = uint(u * 0 + i[0]);", [6, 0, 0, 0], 6),
        // Finite encodings keep their bits (a subnormal "might be flushed to 0": not stored);
        // an infinity's bits give the infinity in desktop GLSL.
        (
            "o[0] = floatBitsToUint(uintBitsToFloat(uint(i[0])));",
            [0xFF80_0000, 0, 0, 0],
            0xFF80_0000,
        ),
        (
            "o[0] = uint(isinf(intBitsToFloat(i[0])));",
            [0x7F80_0000, 0, 0, 0],
            1,
        ),
        (
            "o[0] = floatBitsToUint(intBitsToFloat(i[0]));",
            [0xC2F6_E979, 0, 0, 0],
            0xC2F6_E979,
        ),
        (
            "o[0] = uint(isnan(f[0])) + 2u * uint(isinf(f[1]));",
            [0x7FC0_0000, 0xFF80_0000, 0, 0],
            3,
        ),
        (
            "o[0] = floatBitsToUint(smoothstep(float(i[0]), float(i[1]), 0.5));",
            [0, 1, 0, 0],
            0.5f32.to_bits(),
        ),
        ("o[0] = uint(float(i[0]) * 0.5);", [5, 0, 0, 0], 2),
        ("o[0] = uint(-0.0);", [0, 0, 0, 0], 0),
        (
            "o[0] = uint(i[0] / i[1]);",
            [0x8000_0000, 2, 0, 0],
            (-0x4000_0000i32) as u32,
        ),
        (POW, [2, 3, 0, 0], 8.0f32.to_bits()),
        (POW, [0, 2, 0, 0], 0),
        (
            "o[0] = floatBitsToUint(sqrt(float(i[0])));",
            [4, 0, 0, 0],
            2.0f32.to_bits(),
        ),
        (
            "o[0] = floatBitsToUint(sqrt(-0.0 * float(i[0])));",
            [1, 0, 0, 0],
            (-0.0f32).to_bits(),
        ),
        (
            "o[0] = floatBitsToUint(log2(float(i[0])));",
            [8, 0, 0, 0],
            3.0f32.to_bits(),
        ),
        (
            "o[0] = floatBitsToUint(asin(float(i[0])));",
            [1, 0, 0, 0],
            std::f32::consts::FRAC_PI_2.to_bits(),
        ),
        (
            "o[0] = floatBitsToUint(atan(float(i[0]), float(i[1])));",
            [0, 1, 0, 0],
            0,
        ),
        ("o[0] = uint(clamp(i[2], i[0], i[1]));", [1, 1, 5, 0], 1),
        (
            "o[0] = floatBitsToUint(ldexp(1.0, i[0]));",
            [3, 0, 0, 0],
            8.0f32.to_bits(),
        ),
        (
            "o[0] = floatBitsToUint(ldexp(float(i[1]), i[0]));",
            [128, 0, 0, 0],
            0,
        ),
        (
            "int e; float m = frexp(float(i[0]), e); o[0] = uint(e);",
            [8, 0, 0, 0],
            4,
        ),
        (BFE, [28, 4, 0xffff, 0], 0),
        (BFE, [32, 0, 0xffff, 0], 0),
        (BFE, [0, 32, 0xffff, 0], 0xffff),
        // A constant expression in the domain stays a constant.
        (
            "const float k = pow(2.0, 2.0); float a[int(k)]; o[0] = uint(a.length());",
            [0, 0, 0, 0],
            4,
        ),
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
