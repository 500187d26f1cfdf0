//! The scanner and each transformation on small programs; that they keep results is checked
//! on the whole corpus in `transform::tests`.

use super::*;

const PROGRAM: &str = "#version 430
#extension GL_ARB_gpu_shader_int64 : enable
layout(local_size_x = 2) in;
layout(std430, binding = 0) buffer B { uint v[4]; };
uint twice(uint x) { return x * 2u; }
void main() {
    uint i = gl_LocalInvocationIndex; // the lane
    /* a comment { with a brace */
    if (i == 0u) { v[0] = twice(3u); } else v[1] = 5u;
    for (int k = 0; k < 2; k++) { v[2] += uint(k); }
    do { v[3] = 1u; } while (false);
    switch (i) { case 1u: v[1] += 1u; break; default: break; }
    float f = 1.5 * 2.0, g = .5;
    v[3] += uint(f + g);
}
";

fn body() -> &'static str {
    &PROGRAM[main_body(PROGRAM).unwrap()]
}

#[test]
fn the_scanner_finds_mains_top_level_statements() {
    let b = body();
    let s: Vec<&str> = statements(b).unwrap().into_iter().map(|r| &b[r]).collect();
    assert_eq!(
        s,
        [
            "uint i = gl_LocalInvocationIndex;",
            "if (i == 0u) { v[0] = twice(3u); } else v[1] = 5u;",
            "for (int k = 0; k < 2; k++) { v[2] += uint(k); }",
            "do { v[3] = 1u; } while (false);",
            "switch (i) { case 1u: v[1] += 1u; break; default: break; }",
            "float f = 1.5 * 2.0, g = .5;",
            "v[3] += uint(f + g);",
        ]
    );
    assert!(is_declaration(s[0]) && is_declaration(s[5]));
    assert!(!is_declaration(s[1]) && !is_declaration(s[6]));
    // A directive inside main is not read.
    assert!(statements("#if 1\n x = 1;\n#endif\n").is_none());
}

#[test]
fn literals_are_typed_and_64_bit_and_half_ones_left_alone() {
    let l = literals("a = 5 + 0x1Fu + 2.5 + .5f + 1e3 + 3lf + 7ul + 1.0hf + vec4(1u).x;");
    let got: Vec<(&str, Literal)> = l
        .iter()
        .map(|x| {
            (
                &"a = 5 + 0x1Fu + 2.5 + .5f + 1e3 + 3lf + 7ul + 1.0hf + vec4(1u).x;"
                    [x.range.clone()],
                x.kind,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("5", Literal::Int),
            ("0x1Fu", Literal::Uint),
            ("2.5", Literal::Float),
            (".5f", Literal::Float),
            ("1e3", Literal::Float),
            ("3lf", Literal::Double),
            ("1u", Literal::Uint),
        ]
    );
}

#[test]
fn each_transformation_rewrites_one_place() {
    let base = format!(
        "{}{}\n{}",
        &PROGRAM[..declaration_point(PROGRAM)],
        opaque_block(1),
        &PROGRAM[declaration_point(PROGRAM)..]
    );
    assert!(base.contains(
        "#extension GL_ARB_gpu_shader_int64 : enable\nlayout(std430, binding = 1) buffer ConformOpaque"
    ));
    // Every seed finds a place for every kind here, and each kind leaves its mark.
    for seed in 0..16 {
        let dead = apply(&base, Kind::DeadCode, seed, 0).unwrap();
        assert!(dead.contains("if (conform_zero != 0u) {"), "{dead}");
        let lit = apply(&base, Kind::OpaqueLiteral, seed, 0).unwrap();
        assert!(
            ["int(conform_zero))", "+ conform_zero)", "* conform_onef)"]
                .iter()
                .any(|m| lit.contains(m)),
            "{lit}"
        );
        let lp = apply(&base, Kind::OneIterationLoop, seed, 3).unwrap();
        assert!(
            lp.contains("for (int conform_l3 = 0; conform_l3 < int(conform_one); conform_l3++) {"),
            "{lp}"
        );
        // The statements that use only globals: the do-while (v) and ... the loop declares k
        // itself; `i`, `f` and `g` are main's.
        let out = apply(&base, Kind::Outline, seed, 2).unwrap();
        assert!(out.contains("void conform_f2() {"), "{out}");
        assert!(out.contains("conform_f2();"), "{out}");
    }
    // Outlining never moves a statement that reads one of main's variables.
    for seed in 0..32 {
        let out = apply(&base, Kind::Outline, seed, 0).unwrap();
        let f = &out[out.find("void conform_f0()").unwrap()..out.find("void main").unwrap()];
        assert!(
            !f.contains("v[3] += uint(f + g)") && !f.contains("if (i == 0u)"),
            "{f}"
        );
    }
    // A literal in a declaration's array size or a case label stays constant.
    let t = "void main() { uint a[3] = uint[3](1u, 2u, 3u); switch (a[0]) { case 2u: break; } }";
    for seed in 0..16 {
        let l = apply(t, Kind::OpaqueLiteral, seed, 0).unwrap();
        assert!(l.contains("uint a[3]") && l.contains("case 2u:"), "{l}");
    }
    // So does one in the arguments of a built-in that needs constants (a broadcast's id):
    // khr_shader_subgroup/ballot's `subgroupBroadcast(id * 2u + 1u, 0u)` failed to compile
    // with its 0u made opaque (a transform campaign of 2026-11-29).
    let t = "void main() { uint x = subgroupBroadcast(id * 2u + 1u, 0u); uint y = x + 4u; }";
    for seed in 0..16 {
        let l = apply(t, Kind::OpaqueLiteral, seed, 0).unwrap();
        assert!(l.contains("subgroupBroadcast(id * 2u + 1u, 0u)"), "{l}");
        assert!(l.contains("(4u + conform_zero)"), "{l}");
    }
}
