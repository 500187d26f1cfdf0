//! Unit tests: GL_NV_compute_shader_derivatives (the layout qualifiers
//! `derivative_group_quadsNV` / `derivative_group_linearNV`, their compile and link rules, and
//! dFdx/dFdy/fwidth with their Fine and Coarse forms in compute shaders).

use super::tests::{buf, build_fail, plan_of, prog, run_plan};
use conform_plan::bytes::read_u32s;
use conform_plan::{BufferKind, BuildStage, FlagKind, Outcome, Stage};

const HEAD: &str = "#version 450\n#extension GL_NV_compute_shader_derivatives : require\n";

/// Runs `main_body` in one group of `size` with `layout` (e.g. `layout(derivative_group_quadsNV) in;`)
/// over `In { float v[]; }` at binding 0 (the invocation's value is `v[gl_LocalInvocationIndex]`)
/// and `Out { uint o[]; }` at binding 1 (4 words per invocation).
fn run(layout: &str, size: [u32; 3], inputs: &[f32], main_body: &str) -> (Vec<u32>, Outcome) {
    let n = (size[0] * size[1] * size[2]) as usize;
    let src = format!(
        "{HEAD}layout(local_size_x = {}, local_size_y = {}, local_size_z = {}) in;\n{layout}\n\
         layout(std430, binding = 0) buffer In {{ float v[]; }};\n\
         layout(std430, binding = 1) buffer Out {{ uint o[]; }};\n\
         void main() {{\n uint i = gl_LocalInvocationIndex;\n float p = v[i];\n{main_body}\n}}\n",
        size[0], size[1], size[2]
    );
    let words: Vec<u32> = inputs.iter().map(|x| x.to_bits()).collect();
    let plan = plan_of(
        vec![prog(Stage::Compute, &src)],
        vec![
            buf(0, BufferKind::Storage, &words),
            buf(1, BufferKind::Storage, &vec![0; 4 * n]),
        ],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    (read_u32s(&out.buffers[1]), out)
}

fn floats(words: &[u32]) -> Vec<f32> {
    words.iter().map(|w| f32::from_bits(*w)).collect()
}

fn undefined(out: &Outcome) -> bool {
    out.flags.iter().any(|f| f.kind == FlagKind::UndefinedValue)
}

const STORE_XY: &str =
    " o[4u * i] = floatBitsToUint(dFdxFine(p));\n o[4u * i + 1u] = floatBitsToUint(dFdyFine(p));";

#[test]
fn quads_take_fine_derivatives_over_2x2_blocks_of_local_ids() {
    // 4x2: the groups are ids (0..1, 0..1) = indices {0, 1, 4, 5} and (2..3, 0..1) = {2, 3, 6, 7}.
    let v: Vec<f32> = (0..8).map(|i| ((i * i) as f32) + 0.5).collect();
    let (o, out) = run(
        "layout(derivative_group_quadsNV) in;",
        [4, 2, 1],
        &v,
        STORE_XY,
    );
    let o = floats(&o);
    for i in 0..8usize {
        let (x, y) = (i % 4, i / 4);
        let at = |m: usize, n: usize| v[(x & !1) + m + 4 * ((y & !1) + n)];
        let (m, n) = (x & 1, y & 1);
        assert_eq!(o[4 * i], at(1, n) - at(0, n), "dFdxFine at {i}");
        assert_eq!(o[4 * i + 1], at(m, 1) - at(m, 0), "dFdyFine at {i}");
    }
    assert!(out.flags.is_empty(), "{:?}", out.flags);
}

#[test]
fn linear_takes_fine_derivatives_over_four_consecutive_indices() {
    // 8x1: the groups are indices 4x+{0,1,2,3}, (m, n) = (i & 1, (i >> 1) & 1).
    let v: Vec<f32> = (0..8).map(|i| ((i * i * i) as f32) - 3.0).collect();
    let (o, out) = run(
        "layout(derivative_group_linearNV) in;",
        [8, 1, 1],
        &v,
        STORE_XY,
    );
    let o = floats(&o);
    for i in 0..8usize {
        let base = i & !3;
        let at = |m: usize, n: usize| v[base + 2 * n + m];
        let (m, n) = (i & 1, (i >> 1) & 1);
        assert_eq!(o[4 * i], at(1, n) - at(0, n), "dFdxFine at {i}");
        assert_eq!(o[4 * i + 1], at(m, 1) - at(m, 0), "dFdyFine at {i}");
    }
    assert!(out.flags.is_empty(), "{:?}", out.flags);
}

#[test]
fn quads_keep_z_layers_apart() {
    // 2x2x2: one group per z; F = 100 z + 10 y + x gives dFdx 1, dFdy 10 everywhere.
    let v: Vec<f32> = (0..8)
        .map(|i| (100 * (i / 4) + 10 * ((i / 2) % 2) + i % 2) as f32)
        .collect();
    let (o, _) = run(
        "layout(derivative_group_quadsNV) in;",
        [2, 2, 2],
        &v,
        STORE_XY,
    );
    let o = floats(&o);
    for i in 0..8 {
        assert_eq!((o[4 * i], o[4 * i + 1]), (1.0, 10.0), "at {i}");
    }
}

#[test]
fn coarse_and_default_derivatives_are_defined_when_the_rows_agree() {
    // F = 3 x + 5 y over 4x2: every row differs by 3 and every column by 5.
    let v: Vec<f32> = (0..8).map(|i| (3 * (i % 4) + 5 * (i / 4)) as f32).collect();
    let body = " o[4u * i] = floatBitsToUint(dFdxCoarse(p));\n o[4u * i + 1u] = floatBitsToUint(dFdyCoarse(p));\n\
                o[4u * i + 2u] = floatBitsToUint(dFdx(p) + dFdy(p));\n o[4u * i + 3u] = floatBitsToUint(fwidthCoarse(-p) + fwidth(p));";
    let (o, out) = run("layout(derivative_group_quadsNV) in;", [4, 2, 1], &v, body);
    let o = floats(&o);
    for i in 0..8 {
        assert_eq!(&o[4 * i..4 * i + 4], &[3.0, 5.0, 8.0, 16.0], "at {i}");
    }
    assert!(out.flags.is_empty(), "{:?}", out.flags);
}

#[test]
fn coarse_derivatives_that_depend_on_the_chosen_row_are_flagged() {
    // Indices 0, 1, 2, 3 = (0,0), (1,0), (0,1), (1,1): rows differ by 1 and 9.
    let v = [0.0, 1.0, 10.0, 19.0];
    for f in ["dFdxCoarse", "dFdx", "fwidth", "fwidthCoarse"] {
        let body = format!(" o[4u * i] = floatBitsToUint({f}(p));");
        let (o, out) = run(
            "layout(derivative_group_linearNV) in;",
            [4, 1, 1],
            &v,
            &body,
        );
        assert!(undefined(&out), "{f}: {:?}", out.flags);
        if f == "dFdxCoarse" {
            // The reference's documented value: row 0.
            assert!(floats(&o).iter().step_by(4).all(|&x| x == 1.0), "{o:?}");
        }
    }
    // The fine forms are defined; a coarse value never stored is not a use.
    let body = " float c = dFdxCoarse(p); o[4u * i] = floatBitsToUint(dFdxFine(p));";
    let (o, out) = run("layout(derivative_group_linearNV) in;", [4, 1, 1], &v, body);
    assert_eq!(floats(&o)[0], 1.0);
    assert_eq!(floats(&o)[8], 9.0);
    assert!(out.flags.is_empty(), "{:?}", out.flags);
}

#[test]
fn vectors_take_derivatives_per_component() {
    let v: Vec<f32> = (0..4).map(|i| (i * 2) as f32).collect();
    let body = " vec2 d = dFdxFine(vec2(p, p * p));\n o[4u * i] = floatBitsToUint(d.x);\n o[4u * i + 1u] = floatBitsToUint(d.y);";
    let (o, _) = run("layout(derivative_group_linearNV) in;", [4, 1, 1], &v, body);
    let o = floats(&o);
    // F = (0, 2, 4, 6) and F^2 = (0, 4, 16, 36): rows (0, 2) and (4, 6).
    assert_eq!((o[0], o[1]), (2.0, 4.0));
    assert_eq!((o[12], o[13]), (2.0, 20.0));
}

#[test]
fn without_a_derivative_group_derivatives_are_zero() {
    let v: Vec<f32> = (0..6).map(|i| (i * 7) as f32).collect();
    let body = " o[4u * i] = floatBitsToUint(dFdx(p) + dFdyFine(p) + fwidthCoarse(p));\n o[4u * i + 1u] = floatBitsToUint(dFdxCoarse(p));";
    let (o, out) = run("", [3, 2, 1], &v, body);
    assert!(o.iter().all(|&w| w == 0), "{o:?}");
    assert!(out.flags.is_empty());
}

#[test]
fn a_derivative_in_non_uniform_control_flow_is_flagged() {
    let v: Vec<f32> = (0..8).map(|i| i as f32).collect();
    let body = " if (i != 5u) { o[4u * i] = floatBitsToUint(dFdxFine(p)); }";
    let (o, out) = run("layout(derivative_group_quadsNV) in;", [4, 2, 1], &v, body);
    assert!(undefined(&out), "{:?}", out.flags);
    // The group without invocation 5 (indices 2, 3, 6, 7) is complete and gets its values.
    assert_eq!(floats(&o)[4 * 2], 1.0);
    // The same derivative taken by every invocation and stored by some is defined.
    let body = " float d = dFdxFine(p); if (i != 5u) { o[4u * i] = floatBitsToUint(d); }";
    let (_, out) = run("layout(derivative_group_quadsNV) in;", [4, 2, 1], &v, body);
    assert!(out.flags.is_empty(), "{:?}", out.flags);
}

fn compile_fail(src: &str) -> (BuildStage, String) {
    build_fail(vec![prog(Stage::Compute, src)])
}

#[test]
fn local_sizes_the_arrangements_forbid_fail_to_compile() {
    for (layout, size, ok) in [
        ("quadsNV", "local_size_x = 3, local_size_y = 2", false),
        ("quadsNV", "local_size_x = 4, local_size_y = 3", false),
        ("quadsNV", "local_size_x = 4", false),
        (
            "quadsNV",
            "local_size_x = 2, local_size_y = 2, local_size_z = 3",
            true,
        ),
        ("linearNV", "local_size_x = 3, local_size_y = 3", false),
        (
            "linearNV",
            "local_size_x = 2, local_size_y = 3, local_size_z = 2",
            true,
        ),
        ("linearNV", "local_size_x = 12", true),
    ] {
        let src = format!(
            "{HEAD}layout({size}) in;\nlayout(derivative_group_{layout}) in;\nvoid main() {{}}\n"
        );
        if ok {
            let plan = plan_of(
                vec![prog(Stage::Compute, &src)],
                vec![buf(0, BufferKind::Storage, &[0])],
                [1, 1, 1],
            );
            let out = run_plan(&plan).unwrap();
            assert_eq!(out.build.failed_at, None, "{size}: {}", out.build.log);
        } else {
            let (stage, log) = compile_fail(&src);
            assert_eq!(stage, BuildStage::Compile, "{size}");
            assert!(log.contains(&format!("derivative_group_{layout}")), "{log}");
        }
    }
}

#[test]
fn both_arrangements_and_missing_extensions_fail_to_compile() {
    let (stage, log) = compile_fail(&format!(
        "{HEAD}layout(local_size_x = 4) in;\nlayout(derivative_group_quadsNV) in;\nlayout(derivative_group_linearNV) in;\nvoid main() {{}}\n"
    ));
    assert_eq!(stage, BuildStage::Compile);
    assert!(log.contains("both"), "{log}");
    let (stage, log) = compile_fail(
        "#version 450\nlayout(local_size_x = 4) in;\nlayout(derivative_group_linearNV) in;\nvoid main() {}\n",
    );
    assert_eq!(stage, BuildStage::Compile);
    assert!(log.contains("GL_NV_compute_shader_derivatives"), "{log}");
    let (stage, log) = compile_fail(
        "#version 450\nlayout(local_size_x = 4) in;\nlayout(std430, binding = 0) buffer B { float f[]; };\nvoid main() { f[0] = dFdx(f[1]); }\n",
    );
    assert_eq!(stage, BuildStage::Compile);
    assert!(log.contains("dFdx"), "{log}");
    let (stage, _) = compile_fail(&format!(
        "{HEAD}layout(local_size_x = 4, derivative_group_linearNV = 1) in;\nvoid main() {{}}\n"
    ));
    assert_eq!(stage, BuildStage::Compile);
}

#[test]
fn the_rules_apply_at_link_across_shaders() {
    let size = |s: &str| prog(Stage::Compute, &format!("#version 450\nlayout({s}) in;\n"));
    let with = |g: &str| {
        prog(
            Stage::Compute,
            &format!("{HEAD}layout(derivative_group_{g}) in;\nvoid main() {{}}\n"),
        )
    };
    for (s, g) in [
        ("local_size_x = 9, local_size_y = 4", "quadsNV"),
        ("local_size_x = 2, local_size_y = 7", "quadsNV"),
        ("local_size_x = 5, local_size_y = 7", "linearNV"),
    ] {
        let (stage, log) = build_fail(vec![size(s), with(g)]);
        assert_eq!(stage, BuildStage::Link, "{s} {g}");
        assert!(log.contains(g), "{log}");
    }
    let both = prog(
        Stage::Compute,
        &format!("{HEAD}layout(local_size_x = 4, local_size_y = 2) in;\nlayout(derivative_group_quadsNV) in;\n"),
    );
    let (stage, log) = build_fail(vec![both, with("linearNV")]);
    assert_eq!(stage, BuildStage::Link);
    assert!(log.contains("both"), "{log}");
}

#[test]
fn the_arrangement_of_another_shader_applies_to_the_program() {
    // The size and the arrangement in one shader, main and its derivative in another.
    let a = prog(
        Stage::Compute,
        "#version 450\n#extension GL_NV_compute_shader_derivatives : enable\nlayout(local_size_x = 4) in;\nlayout(derivative_group_linearNV) in;\n",
    );
    let b = prog(
        Stage::Compute,
        &format!("{HEAD}layout(std430, binding = 0) buffer B {{ float f[]; }};\nvoid main() {{ uint i = gl_LocalInvocationIndex; f[i] = dFdyFine(float(i * i)); }}\n"),
    );
    let plan = plan_of(
        vec![a, b],
        vec![buf(0, BufferKind::Storage, &[0; 4])],
        [1, 1, 1],
    );
    let out = run_plan(&plan).unwrap();
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    // F = (0, 1, 4, 9): columns (0, 4) and (1, 9).
    assert_eq!(
        floats(&read_u32s(&out.buffers[0])),
        vec![4.0, 8.0, 4.0, 8.0]
    );
}

#[test]
fn derivatives_in_uniform_loops_functions_and_after_barriers_are_defined() {
    // F = 2 x + 3 y (4x2, quads), taken in a function, three times in a loop, after a barrier:
    // the sum of the three fine x derivatives is 6, of the y ones 9.
    let v: Vec<f32> = (0..8).map(|i| (2 * (i % 4) + 3 * (i / 4)) as f32).collect();
    let body = " barrier();\n vec2 s = vec2(0.0);\n for (int k = 0; k < 3; k++) { s += d(p); }\n\
                o[4u * i] = floatBitsToUint(s.x);\n o[4u * i + 1u] = floatBitsToUint(s.y);";
    let layout = "layout(derivative_group_quadsNV) in;\nvec2 d(float q) { return vec2(dFdxFine(q), dFdyFine(q)); }";
    let (o, out) = run(layout, [4, 2, 1], &v, body);
    let o = floats(&o);
    for i in 0..8 {
        assert_eq!((o[4 * i], o[4 * i + 1]), (6.0, 9.0), "at {i}");
    }
    assert!(out.flags.is_empty(), "{:?}", out.flags);
}
