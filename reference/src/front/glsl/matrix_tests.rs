//! Unit tests: matrices (GLSL 4.60 §4.1.6, §5.4.2, §5.6, §5.9-5.10, §8.6) and their block
//! layouts (OpenGL 4.6 §7.6.2.2), against values worked out by hand from those sections.

use super::tests::{build_fail, prog, run_words};
use super::types::{align, size, stride, Rule, Sc, Ty};
use conform_plan::{BuildStage, Stage};

/// Runs `body` with `float o[]` at binding 0 (n words, filled with 99.0) and returns the floats.
fn floats(decls: &str, body: &str, n: usize) -> Vec<f32> {
    let src = format!(
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O {{ float o[]; }};\n{decls}\nvoid main() {{\n{body}\n}}\n"
    );
    run_words(&src, &[&vec![99f32.to_bits(); n]], [1, 1, 1])[0]
        .iter()
        .map(|w| f32::from_bits(*w))
        .collect()
}

fn fails(body: &str) -> String {
    let src = format!(
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O {{ float o[]; }};\nvoid main() {{\n{body}\n}}\n"
    );
    let (stage, log) = build_fail(vec![prog(Stage::Compute, &src)]);
    assert_eq!(stage, BuildStage::Compile, "{log}");
    log
}

#[test]
fn layouts_follow_the_array_rules() {
    let m = |c, r| Ty::Mat(Sc::Float, c, r);
    let row = |r: Rule| Rule {
        row_major: true,
        ..r
    };
    // (type, rule, align, size): rules 5-8 of §7.6.2.2, std140 rounding vectors' array
    // alignment up to 16.
    let cases = [
        (m(2, 2), Rule::STD430, 8, 16),
        (m(2, 2), Rule::STD140, 16, 32),
        (m(3, 3), Rule::STD430, 16, 48),
        (m(2, 3), Rule::STD430, 16, 32),
        (m(3, 2), Rule::STD430, 8, 24),
        (m(3, 2), row(Rule::STD430), 16, 32),
        (m(2, 3), row(Rule::STD430), 8, 24),
        (m(2, 3), row(Rule::STD140), 16, 48),
        (m(4, 4), Rule::STD140, 16, 64),
        (Ty::Mat(Sc::Double, 3, 3), Rule::STD430, 32, 96),
        (Ty::Mat(Sc::Double, 2, 2), Rule::STD140, 16, 32),
    ];
    for (t, r, a, s) in cases {
        assert_eq!((align(&t, r), size(&t, r)), (a, s), "{t} {r:?}");
    }
    // An array of matrices: the stride of one matrix (rule 6).
    assert_eq!(stride(&m(2, 3), Rule::STD430), 32);
    assert_eq!(stride(&m(3, 2), Rule::STD140), 48);
}

#[test]
fn constructors_fill_in_column_major_order() {
    let v = floats(
        "",
        "mat3 c = mat3(vec2(1.0, 2.0), 3.0, vec4(4.0, 5.0, 6.0, 7.0), vec2(8.0, 9.0));
         o[0] = c[0][2]; o[1] = c[1][0]; o[2] = c[2][1];
         mat3 g = mat3(mat2(1.0, 2.0, 3.0, 4.0));
         o[3] = g[1][1]; o[4] = g[2][2]; o[5] = g[2][0];
         mat2 f = mat2(mat3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0));
         o[6] = f[1][0];
         vec4 w = vec4(mat2(1.0, 2.0, 3.0, 4.0));
         o[7] = w.z;
         mat2 d = mat2(2);
         o[8] = d[0][0]; o[9] = d[0][1];
         vec2 x = vec2(mat2x3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0));
         o[10] = x.y;",
        11,
    );
    assert_eq!(v, [3., 4., 8., 4., 1., 0., 4., 3., 2., 0., 2.]);
}

#[test]
fn products_are_linear_algebra() {
    let v = floats(
        "",
        "mat2 A = mat2(1.0, 2.0, 3.0, 4.0), B = mat2(5.0, 6.0, 7.0, 8.0);
         mat2 P = A * B;
         o[0] = P[0][0]; o[1] = P[0][1]; o[2] = P[1][0]; o[3] = P[1][1];
         vec2 u = A * vec2(1.0, 2.0), w = vec2(1.0, 2.0) * A;
         o[4] = u.x; o[5] = u.y; o[6] = w.x; o[7] = w.y;
         mat3 MN = mat2x3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0) * mat3x2(1.0, 0.0, 0.0, 1.0, 1.0, 1.0);
         o[8] = MN[2][0]; o[9] = MN[2][2];
         mat2 S = 1 + A;
         o[10] = S[1][1];
         A *= B;
         o[11] = A[1][0];
         mat2x3 T = mat2x3(1.0);
         T++;
         o[12] = T[1][2];",
        13,
    );
    assert_eq!(
        v,
        [23., 34., 31., 46., 7., 10., 5., 11., 5., 9., 5., 31., 1.]
    );
}

#[test]
fn matrix_functions_are_their_definitions() {
    let v = floats(
        "",
        "mat2 A = mat2(1.0, 2.0, 3.0, 4.0);
         mat2 C = matrixCompMult(A, A);
         o[0] = C[1][1];
         mat3x2 P = outerProduct(vec2(1.0, 2.0), vec3(3.0, 4.0, 5.0));
         o[1] = P[2][1];
         mat3x2 T = transpose(mat2x3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0));
         o[2] = T[2][0]; o[3] = T[0][1];
         o[4] = determinant(A);
         o[5] = determinant(mat3(2.0));
         o[6] = determinant(mat4(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
                                 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0));
         mat2 I = inverse(A);
         o[7] = I[0][0]; o[8] = I[1][0];
         mat4 J = inverse(mat4(2.0));
         o[9] = J[3][3];
         mat4 K = inverse(mat4(1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0,
                               0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0));
         o[10] = K[3][0];",
        11,
    );
    // P = c * r: element (column 2, row 1) = c[1] * r[2] = 10. transpose: T[2] is row 2 of
    // the mat2x3, (3, 6). A swap of two rows has determinant -1. The inverse of the
    // upper bidiagonal matrix with ones has (-1)^(i+j) above the diagonal: K[3][0] = -1.
    assert_eq!(v, [16., 10., 3., 4., -2., 8., -1., -2., 1.5, 0.5, -1.]);
}

#[test]
fn row_major_columns_are_strided() {
    let src = "#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer O { float o[]; };
layout(std430, row_major, binding = 1) buffer R { mat2x3 m; };
void main() {
    m = mat2x3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
    m[1].z = 60.0;
    m[0][1] = 20.0;
    vec3 c = m[1];
    o[0] = c.x; o[1] = c.y; o[2] = c.z;
    o[3] = m[0].y;
}
";
    let out = run_words(src, &[&[0; 4], &[0; 6]], [1, 1, 1]);
    let f = |w: &[u32]| w.iter().map(|x| f32::from_bits(*x)).collect::<Vec<_>>();
    assert_eq!(f(&out[0]), [4., 5., 60., 20.]);
    // Three rows of two: (1, 4), (20, 5), (3, 60).
    assert_eq!(f(&out[1]), [1., 4., 20., 5., 3., 60.]);
}

#[test]
fn malformed_matrix_expressions_do_not_compile() {
    for (body, want) in [
        (
            "mat3 m = mat2(1.0) * mat3(1.0);",
            "cannot multiply mat2 by mat3",
        ),
        ("mat2 m = mat2(1.0) + mat3(1.0);", "sizes differ"),
        (
            "vec3 v = vec3(1.0) * mat2(1.0);",
            "cannot multiply vec3 by mat2",
        ),
        (
            "mat2 m = mat2(mat2(1.0), 1.0);",
            "must be the only argument",
        ),
        (
            "mat2 m = mat2(1.0, 2.0, 3.0, 4.0, 5.0);",
            "too many arguments",
        ),
        ("mat2 m = mat2(1.0, 2.0, 3.0);", "not enough data"),
        (
            "float d = determinant(mat2x3(1.0));",
            "no matching overloaded function",
        ),
        (
            "mat2 m = inverse(mat3x2(1.0));",
            "no matching overloaded function",
        ),
        ("mat2 m = mat2(1.0); m += vec2(1.0);", "do not combine"),
        ("mat2 m = mat2(1.0) % mat2(1.0);", "not defined on matrices"),
    ] {
        let log = fails(body);
        assert!(log.contains(want), "{body}: {log}");
    }
}

#[test]
fn initializer_lists_give_one_column_per_item() {
    let v = floats(
        "",
        "mat2 m = { vec2(1.0, 2.0), { 3.0, 4.0 } };
         o[0] = m[0][1]; o[1] = m[1][0];",
        2,
    );
    assert_eq!(v, [2., 3.]);
    let log = fails("mat2 m = { vec2(1.0), vec2(2.0), vec2(3.0) };");
    assert!(log.contains("3 items for mat2"), "{log}");
}
