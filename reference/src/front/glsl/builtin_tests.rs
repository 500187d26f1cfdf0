//! Unit tests: the built-in functions of GLSL 4.60 chapter 8 (common, angle and
//! trigonometry, exponential, pack, geometric, integer, relational, noise, the atomic counter
//! functions of 4.60), each against values derived from its definition in the spec.

use super::tests::{build_fail, prog, run_words};
use conform_plan::{BuildStage, Stage};

/// Runs `exprs` (expressions of GLSL type `ty`, 32 bits) and returns their bits.
fn words(ty: &str, decls: &str, exprs: &[&str]) -> Vec<u32> {
    let body: String = exprs
        .iter()
        .enumerate()
        .map(|(i, e)| format!("    o[{i}] = {e};\n"))
        .collect();
    let src = format!("#version 450\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B {{ {ty} o[]; }};\n{decls}\nvoid main() {{\n{body}}}\n");
    run_words(&src, &[&vec![0; exprs.len()]], [1, 1, 1])[0].clone()
}

fn floats(decls: &str, exprs: &[&str]) -> Vec<f32> {
    words("float", decls, exprs)
        .into_iter()
        .map(f32::from_bits)
        .collect()
}

fn uints(decls: &str, exprs: &[&str]) -> Vec<u32> {
    words("uint", decls, exprs)
}

fn close(got: &[f32], want: &[f32], tol: f32) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "[{i}] got {g}, want {w}"
        );
    }
}

#[test]
fn common_functions_are_their_definitions() {
    let v = floats(
        "",
        &[
            "abs(-2.5)",
            "sign(-3.0)",
            "floor(-1.5)",
            "trunc(-1.5)",
            "round(2.5)",
            "roundEven(3.5)",
            "ceil(1.25)",
            "fract(-1.25)",
            "mod(-1.0, 3.0)",
            "min(2.0, 1)",
            "max(vec2(1.0, 5.0), 3.0).y",
            "clamp(7.0, 0.0, 2.0)",
            "mix(2.0, 6.0, 0.25)",
            "mix(2.0, 6.0, true)",
            "step(1.0, 0.5)",
            "smoothstep(0.0, 2.0, 1.0)",
            "smoothstep(0.0, 4.0, 1.0)",
            "fma(2.0, 3.0, 1.0)",
            "ldexp(0.75, 3)",
            "intBitsToFloat(0x3f800000)",
        ],
    );
    // mod(-1, 3) = -1 - 3 * floor(-1/3) = 2; smoothstep at t = 1/4: t^2 (3 - 2t) = 0.15625.
    assert_eq!(
        v,
        vec![
            2.5, -1.0, -2.0, -1.0, 2.0, 4.0, 2.0, 0.75, 2.0, 1.0, 5.0, 2.0, 3.0, 6.0, 0.0, 0.5,
            0.15625, 7.0, 6.0, 1.0
        ]
    );
}

#[test]
fn modf_and_frexp_split_through_their_out_arguments() {
    let v = floats(
        "float ip; int e; vec2 ip2;",
        &[
            "modf(-3.75, ip)",
            "ip",
            "frexp(12.0, e)",
            "float(e)",
            "frexp(-0.1875, e)",
            "float(e)",
            "modf(vec2(1.5, -2.0), ip2).y",
            "ip2.y",
        ],
    );
    // modf keeps the sign of x in both parts: -2.0 gives -0.0 and -2.0.
    assert_eq!(&v[..6], &[-0.75, -3.0, 0.75, 4.0, -0.75, -2.0]);
    assert!(v[6] == 0.0 && v[6].is_sign_negative(), "{}", v[6]);
    assert_eq!(v[7], -2.0);
}

#[test]
fn trigonometry_and_exponentials_within_tolerance() {
    let v = floats(
        "",
        &[
            "radians(180.0)",
            "degrees(3.14159265)",
            "sin(0.5)",
            "cos(0.5)",
            "tan(0.5)",
            "asin(0.5)",
            "acos(0.5)",
            "atan(1.0)",
            "atan(1.0, -1.0)",
            "sinh(1.0)",
            "cosh(1.0)",
            "tanh(1.0)",
            "asinh(1.0)",
            "acosh(2.0)",
            "atanh(0.5)",
            "pow(2.0, 10.0)",
            "exp(1.0)",
            "log(2.0)",
            "exp2(3.0)",
            "log2(8.0)",
            "sqrt(2.0)",
            "inversesqrt(4.0)",
        ],
    );
    let want = [
        std::f32::consts::PI,
        180.0,
        0.5f32.sin(),
        0.5f32.cos(),
        0.5f32.tan(),
        std::f32::consts::FRAC_PI_6,
        std::f32::consts::FRAC_PI_3,
        std::f32::consts::FRAC_PI_4,
        3.0 * std::f32::consts::FRAC_PI_4,
        1.175_201_2,
        1.543_080_6,
        0.761_594_2,
        0.881_373_6,
        1.316_958,
        0.549_306_1,
        1024.0,
        std::f32::consts::E,
        std::f32::consts::LN_2,
        8.0,
        3.0,
        std::f32::consts::SQRT_2,
        0.5,
    ];
    close(&v, &want, 1e-6);
}

#[test]
fn geometric_functions_are_their_equations() {
    let v = floats(
        "",
        &[
            "length(vec2(3.0, 4.0))",
            "distance(vec3(1.0, 2.0, 3.0), vec3(1.0, 5.0, 7.0))",
            "dot(vec3(1.0, 2.0, 3.0), vec3(4.0, -5.0, 6.0))",
            "cross(vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0)).z",
            "cross(vec3(1.0, 2.0, 3.0), vec3(4.0, 5.0, 6.0)).x",
            "normalize(vec2(3.0, 4.0)).y",
            "faceforward(vec2(1.0, 0.0), vec2(1.0, 0.0), vec2(1.0, 0.0)).x",
            "reflect(vec2(1.0, -1.0), vec2(0.0, 1.0)).y",
            "refract(vec2(0.0, -1.0), vec2(0.0, 1.0), 0.5).y",
            "refract(vec2(0.8, -0.6), vec2(0.0, 1.0), 2.0).x",
        ],
    );
    // cross((1,2,3),(4,5,6)).x = 2*6 - 3*5 = -3; faceforward: dot(Nref, I) = 1 >= 0 gives -N;
    // refract at 2.0 with sin 0.8: k = 1 - 4 * (1 - 0.36) < 0, so 0.
    assert_eq!(
        v,
        vec![5.0, 5.0, 12.0, 1.0, -3.0, 0.8, -1.0, 1.0, -1.0, 0.0]
    );
}

#[test]
fn pack_and_unpack() {
    let v = uints(
        "",
        &[
            "packUnorm2x16(vec2(1.0, 0.5))",
            "packSnorm2x16(vec2(-1.0, 2.0))",
            "packUnorm4x8(vec4(0.0, 1.0, 0.2, 0.5))",
            "packSnorm4x8(vec4(-0.5, 0.5, -2.0, 0.0))",
            "packHalf2x16(vec2(1.0, -2.0))",
            "floatBitsToUint(unpackHalf2x16(0xC0003C00u).y)",
            "floatBitsToUint(unpackUnorm4x8(0x0000FF80u).y)",
            "floatBitsToUint(unpackSnorm2x16(0x80010000u).y)",
            "unpackDouble2x32(packDouble2x32(uvec2(0x11223344u, 0x55667788u))).y",
        ],
    );
    // 0.5 * 65535 = 32767.5 rounds to even 32768; -0.5 * 127 = -63.5 -> -64 (0xC0); 0.2 * 255
    // = 51; 0.5 * 255 = 127.5 -> 128; -2 clamps to -1 -> -127 (0x81); unpackSnorm 0x8001 =
    // -32767 -> -1.0.
    assert_eq!(
        v,
        vec![
            0x8000_FFFF,
            0x7FFF_8001,
            0x8033_FF00,
            0x0081_40C0,
            0xC000_3C00,
            (-2.0f32).to_bits(),
            1.0f32.to_bits(),
            (-1.0f32).to_bits(),
            0x5566_7788,
        ]
    );
}

#[test]
fn integer_and_relational_functions() {
    let v = uints(
        "uint c; uint hi; uint lo;",
        &[
            "uaddCarry(0xFFFFFFFFu, 2u, c)",
            "c",
            "usubBorrow(1u, 2u, c)",
            "c",
            "uint(bitfieldExtract(-8, 1, 3))",
            "bitfieldInsert(0u, 7u, 4, 2)",
            "bitfieldReverse(1u)",
            "uint(bitCount(0xF0F0u))",
            "uint(findLSB(8u))",
            "uint(findMSB(-1))",
            "uint(any(lessThan(ivec2(1, 5), ivec2(2, 2))))",
            "uint(all(equal(uvec3(1u), uvec3(1u))))",
            "uint(not(bvec2(true, false)).y)",
        ],
    );
    // bitfieldExtract(-8 = ...11111000, offset 1, 3 bits) = 100b sign-extended = -4;
    // findMSB(-1) is -1 (no bit differs from the sign).
    assert_eq!(
        v,
        vec![
            1,
            1,
            0xFFFF_FFFF,
            1,
            -4i32 as u32,
            0x30,
            0x8000_0000,
            8,
            3,
            u32::MAX,
            1,
            1,
            1
        ]
    );
}

#[test]
fn overloads_follow_the_gen_types() {
    for (call, why) in [
        ("sin(1.0lf)", "sin has no double form"),
        ("cross(vec2(1.0), vec2(2.0))", "cross is vec3 only"),
        (
            "lessThan(1.0, 2.0)",
            "the relational functions take vectors",
        ),
        (
            "step(vec2(1.0), 1.0)",
            "step takes (genType, genType) or (float, genType)",
        ),
        ("packUnorm2x16(vec3(1.0))", "packUnorm2x16 takes a vec2"),
    ] {
        let src =
            format!("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {{ {call}; }}\n");
        let (stage, log) = build_fail(vec![prog(Stage::Compute, &src)]);
        assert_eq!(stage, BuildStage::Compile, "{why}: {log}");
    }
}

#[test]
fn noise_functions_return_zero() {
    // GLSL 4.60 §8.15: without SPIR-V, noise1..4 return 0.0 in every component.
    let v = floats(
        "",
        &[
            "noise1(vec3(0.5, 1.0, 2.0)) + 1.0",
            "noise2(3.0).y + 2.0",
            "noise3(vec2(1.0)).z + 3.0",
            "noise4(vec4(7.0)).w + 4.0",
        ],
    );
    assert_eq!(v, vec![1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn atomic_counter_ops_return_the_old_value() {
    use super::tests::{buf, plan_of, run_plan};
    use conform_plan::bytes::read_u32s;
    use conform_plan::BufferKind;
    let src = |version: &str, suffix: &str| {
        format!(
            "#version {version}\nlayout(local_size_x = 1) in;\nlayout(binding = 0, offset = 0) uniform atomic_uint a;\nlayout(binding = 0, offset = 4) uniform atomic_uint b;\nlayout(binding = 0, offset = 8) uniform atomic_uint c;\nlayout(std430, binding = 1) buffer O {{ uint o[3]; }};\nvoid main() {{ o[0] = atomicCounterSubtract{suffix}(a, 3u); o[1] = atomicCounterCompSwap{suffix}(b, 5u, 9u); o[2] = atomicCounterXor{suffix}(c, 6u); }}\n"
        )
    };
    let with_ext = format!(
        "#version 450\n#extension GL_ARB_shader_atomic_counter_ops : require\n{}",
        src("450", "ARB")
            .split_once('\n')
            .map(|x| x.1)
            .unwrap_or_default()
    );
    for text in [src("460", ""), with_ext] {
        let plan = plan_of(
            vec![prog(Stage::Compute, &text)],
            vec![
                buf(0, BufferKind::AtomicCounter, &[1, 5, 3]),
                buf(1, BufferKind::Storage, &[0; 3]),
            ],
            [1, 1, 1],
        );
        let out = run_plan(&plan).expect("runs");
        assert_eq!(out.build.failed_at, None, "{}", out.build.log);
        // 1 - 3 wraps; 5 == 5 swaps in 9; 3 ^ 6 = 5.
        assert_eq!(read_u32s(&out.buffers[0]), [0xffff_fffe, 9, 5]);
        assert_eq!(read_u32s(&out.buffers[1]), [1, 5, 3]);
    }
    // Unsuffixed before 4.60, suffixed without the extension: no such function.
    for text in [src("450", ""), src("450", "ARB")] {
        let (stage, log) = build_fail(vec![prog(Stage::Compute, &text)]);
        assert_eq!(stage, BuildStage::Compile, "{log}");
        assert!(log.contains("no matching overloaded function"), "{log}");
    }
}

#[test]
fn atomic_counter_arrays_of_arrays_are_consecutive() {
    use super::tests::{buf, plan_of, run_plan};
    use conform_plan::bytes::read_u32s;
    use conform_plan::BufferKind;
    // a[i][j] at offset 4 + 4 * (2i + j); a[2][1] is the last word.
    let src = "#version 430\nlayout(local_size_x = 1) in;\nlayout(binding = 0, offset = 4) uniform atomic_uint a[3][2];\nvoid main() { atomicCounterIncrement(a[2][1]); atomicCounterIncrement(a[1][0]); }\n";
    let plan = plan_of(
        vec![prog(Stage::Compute, src)],
        vec![buf(0, BufferKind::AtomicCounter, &[0; 7])],
        [1, 1, 1],
    );
    let out = run_plan(&plan).expect("runs");
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    assert_eq!(read_u32s(&out.buffers[0]), [0, 0, 0, 1, 0, 0, 1]);
}
