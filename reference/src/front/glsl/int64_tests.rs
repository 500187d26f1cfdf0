//! Unit tests: 64-bit integers (GL_ARB_gpu_shader_int64), their atomics
//! (GL_NV_shader_atomic_int64), and the float atomics of GL_INTEL_shader_atomic_float_minmax.

use super::tests::{build_fail, prog, run_words};
use conform_plan::{BuildStage, Stage};

const HDR: &str = "#version 430\n#extension GL_ARB_gpu_shader_int64 : require\n#extension GL_NV_shader_atomic_int64 : require\nlayout(local_size_x = 4) in;\n";

/// Runs `body` after the int64 header with one storage buffer of `words` u32 words.
fn run64(body: &str, words: usize) -> Vec<u64> {
    let out = run_words(&format!("{HDR}{body}"), &[&vec![0; words]], [1, 1, 1]);
    out[0]
        .chunks(2)
        .map(|c| u64::from(c[0]) | u64::from(c[1]) << 32)
        .collect()
}

fn compile_error(body: &str) -> String {
    let (stage, log) = build_fail(vec![prog(Stage::Compute, &format!("{HDR}{body}"))]);
    assert_eq!(stage, BuildStage::Compile, "{log}");
    log
}

#[test]
fn literals_arithmetic_and_conversions() {
    let v = run64(
        "layout(std430, binding = 0) buffer B { int64_t s[4]; uint64_t u[4]; };\n\
         void main() { if (gl_LocalInvocationIndex != 0u) return;\n\
         s[0] = 0x7FFFFFFFFFFFFFFFL + 1L; s[1] = -1099511627776L >> 8; s[2] = int64_t(-7) * 3;\n\
         s[3] = int64_t(0xFFFFFFFFFFFFFFFFUL);\n\
         u[0] = 0x8000000000000000UL >> 63; u[1] = uint64_t(5u) - 7UL; u[2] = 100000000000UL / 7UL;\n\
         u[3] = uint64_t(int64_t(-2)) + 3u; }\n",
        16,
    );
    assert_eq!(
        v,
        vec![
            1 << 63,
            (-(1i64 << 32)) as u64,
            -21i64 as u64,
            u64::MAX,
            1,
            u64::MAX - 1,
            14285714285,
            1
        ]
    );
}

#[test]
fn atomics_on_buffer_and_shared_int64() {
    let v = run64(
        "layout(std430, binding = 0) buffer B { int64_t sum; int64_t mx; uint64_t orv; int64_t sh_out; };\n\
         shared int64_t sh;\n\
         void main() { uint i = gl_LocalInvocationIndex; if (i == 0u) sh = 0L; barrier();\n\
         atomicAdd(sum, int64_t(i) << 33); atomicMax(mx, -int64_t(i)); atomicOr(orv, 1UL << (60u + i));\n\
         atomicAdd(sh, 1L << 40); barrier(); if (i == 0u) sh_out = sh; }\n",
        8,
    );
    assert_eq!(v, vec![6 << 33, 0, 0xF << 60, 4 << 40]);
}

#[test]
fn uint64_add_exchange_compswap_are_not_provided() {
    for f in [
        "atomicAdd(v, 1UL)",
        "atomicExchange(v, 1UL)",
        "atomicCompSwap(v, 1UL, 2UL)",
    ] {
        let log = compile_error(&format!(
            "layout(std430, binding = 0) buffer B {{ uint64_t v; }};\nvoid main() {{ {f}; }}\n"
        ));
        assert!(log.contains("int64_t only"), "{f}: {log}");
    }
}

#[test]
fn the_types_and_literals_need_the_extension() {
    let src = "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { int64_t x = 1; }\n";
    let (stage, log) = build_fail(vec![prog(Stage::Compute, src)]);
    assert_eq!(stage, BuildStage::Compile);
    assert!(log.contains("GL_ARB_gpu_shader_int64"), "{log}");
    let src = "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { int x = int(5L); }\n";
    let (_, log) = build_fail(vec![prog(Stage::Compute, src)]);
    assert!(log.contains("GL_ARB_gpu_shader_int64"), "{log}");
}

#[test]
fn float_atomic_min_max_compswap_need_the_intel_extension() {
    let body = "layout(std430, binding = 0) buffer B { float f; uint u; };\nvoid main() { atomicMax(f, 2.5); u = floatBitsToUint(atomicCompSwap(f, 2.5, 4.0)); }\n";
    let with = format!("#version 430\n#extension GL_INTEL_shader_atomic_float_minmax : require\nlayout(local_size_x = 1) in;\n{body}");
    let out = run_words(&with, &[&[0, 0]], [1, 1, 1]);
    assert_eq!(out[0], vec![4f32.to_bits(), 2.5f32.to_bits()]);
    let without = format!("#version 430\nlayout(local_size_x = 1) in;\n{body}");
    let (stage, log) = build_fail(vec![prog(Stage::Compute, &without)]);
    assert_eq!(stage, BuildStage::Compile);
    assert!(log.contains("GL_INTEL_shader_atomic_float_minmax"), "{log}");
}
