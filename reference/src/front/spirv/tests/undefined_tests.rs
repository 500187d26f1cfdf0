//! Unit tests: the results GLSL.std.450 and the SPIR-V bit-field instructions leave undefined
//! are flagged where they are stored, and the same instructions on operands they define are not
//! (reference/undefined.yaml, docs/REFERENCE.md "Undefined results").

use super::{buf, module, plan, src, u32s};
use crate::{run, Options};
use conform_plan::{FlagKind, Scalar};

const EXTRA_TYPES: &str = "%pfn_i = OpTypePointer Function %int\n\
    %u3 = OpConstant %uint 3\n%fzero = OpConstant %float 0\n\
    %v2f = OpTypeVector %float 2\n%m2f = OpTypeMatrix %v2f 2\n";

/// Runs `expr` (an instruction computing `%ru`, a uint, from `%a %b %c` (the words 0..2 of
/// the buffer), `%x %y %z` (the same as floats) and `%ai %bi` (as ints); `%ev` is a Function
/// int variable) and stores `%ru` to word 3: the stored word and the undefined-value flag.
fn eval(expr: &str, input: [u32; 3]) -> (u32, Option<String>) {
    let body = format!(
        "%ev = OpVariable %pfn_i Function\n\
         %pa = OpAccessChain %pu %bu %u0 %u0\n%pb = OpAccessChain %pu %bu %u0 %u1\n\
         %pc = OpAccessChain %pu %bu %u0 %u2\n\
         %a = OpLoad %uint %pa\n%b = OpLoad %uint %pb\n%c = OpLoad %uint %pc\n\
         %x = OpBitcast %float %a\n%y = OpBitcast %float %b\n%z = OpBitcast %float %c\n\
         %ai = OpBitcast %int %a\n%bi = OpBitcast %int %b\n\
         {expr}\n\
         %po = OpAccessChain %pu %bu %u0 %u3\nOpStore %po %ru\nOpReturn"
    );
    let text = module(1, "", EXTRA_TYPES, &body);
    let words = [input[0], input[1], input[2], 0xCCCC_CCCC];
    let p = plan(
        src(&text),
        vec![buf(
            "u",
            0,
            Scalar::U32,
            conform_plan::bytes::from_u32s(&words),
        )],
        1,
    );
    let out = run(&p, &Options::default()).unwrap();
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    let flag = out
        .flags
        .iter()
        .find(|f| f.kind == FlagKind::UndefinedValue)
        .map(|f| f.message.clone());
    (u32s(&out.buffers[0])[3], flag)
}

/// (instruction, an input the spec leaves undefined, the rule the flag names, an input it
/// defines, the word it stores)
type Row = (&'static str, [u32; 3], &'static str, [u32; 3], u32);

/// A float GLSL.std.450 instruction on `%x` (and `%y`, `%z`), stored as its bits.
/// (An instruction sequence that defines `%ru` itself is taken as it is.)
fn float_op(inst: &str) -> String {
    if inst.contains("%ru = ") {
        return inst.to_string();
    }
    format!("%r = OpExtInst %float %glsl {inst}\n%ru = OpBitcast %uint %r")
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn glsl_std450_domains_are_flagged_where_stored() {
    let rows: &[Row] = &[
        (
            "Pow %x %y",
            [f(-2.0), f(2.0), 0],
            "pow(x, y)",
            [f(2.0), f(3.0), 0],
            f(8.0),
        ),
        ("Pow %x %y", [0, f(0.0), 0], "pow(x, y)", [0, f(2.0), 0], 0),
        (
            "Log %x",
            [0, 0, 0],
            "logarithm of x <= 0",
            [f(1.0), 0, 0],
            0,
        ),
        (
            "Log2 %x",
            [f(-1.0), 0, 0],
            "logarithm of x <= 0",
            [f(8.0), 0, 0],
            f(3.0),
        ),
        (
            "Sqrt %x",
            [f(-1.0), 0, 0],
            "sqrt of x < 0",
            [f(4.0), 0, 0],
            f(2.0),
        ),
        (
            "InverseSqrt %x",
            [f(-0.0), 0, 0],
            "inverse square root",
            [f(4.0), 0, 0],
            f(0.5),
        ),
        ("Asin %x", [f(1.5), 0, 0], "asin or acos", [f(0.0), 0, 0], 0),
        (
            "Acos %x",
            [f(-1.5), 0, 0],
            "asin or acos",
            [f(1.0), 0, 0],
            0,
        ),
        (
            "Atan2 %x %y",
            [0, f(-0.0), 0],
            "atan(y, x)",
            [0, f(1.0), 0],
            0,
        ),
        (
            "Acosh %x",
            [f(0.5), 0, 0],
            "acosh of x < 1",
            [f(1.0), 0, 0],
            0,
        ),
        (
            "Atanh %x",
            [f(1.0), 0, 0],
            "atanh of |x| >= 1",
            [f(0.0), 0, 0],
            0,
        ),
        (
            "FClamp %fzero %x %y",
            [f(2.0), f(1.0), 0],
            "clamp with minVal > maxVal",
            [f(1.0), f(2.0), 0],
            f(1.0),
        ),
        (
            "%c0 = OpCompositeConstruct %v2f %x %y\n%c1 = OpCompositeConstruct %v2f %y %z\n\
             %m = OpCompositeConstruct %m2f %c0 %c1\n%inv = OpExtInst %m2f %glsl MatrixInverse %m\n\
             %r = OpCompositeExtract %float %inv 1 1\n%ru = OpBitcast %uint %r",
            [f(1.0), f(2.0), f(4.0)],
            "the inverse of a singular matrix",
            [f(2.0), f(0.0), f(4.0)],
            f(0.25),
        ),
        (
            "FMin %x %y",
            [0x7FC0_0000, f(1.0), 0],
            "min, max or clamp with a NaN operand",
            [f(2.0), f(1.0), 0],
            f(1.0),
        ),
        (
            "FMax %y %x",
            [0x7FC0_0000, f(1.0), 0],
            "min, max or clamp with a NaN operand",
            [f(-2.0), f(1.0), 0],
            f(1.0),
        ),
        (
            "FClamp %x %fzero %y",
            [0x7FC0_0000, f(1.0), 0],
            "min, max or clamp with a NaN operand",
            [f(2.0), f(1.0), 0],
            f(1.0),
        ),
        (
            "NClamp %fzero %x %y",
            [f(2.0), f(1.0), 0],
            "clamp with minVal > maxVal",
            [f(1.0), f(1.0), 0],
            f(1.0),
        ),
        (
            "SmoothStep %x %y %z",
            [f(1.0), f(0.0), f(0.5)],
            "smoothstep with edge0 >= edge1",
            [f(0.0), f(1.0), f(0.5)],
            f(0.5),
        ),
        (
            "Ldexp %x %bi",
            [f(1.0), 129, 0],
            "ldexp",
            [f(1.0), 3, 0],
            f(8.0),
        ),
        (
            "Ldexp %x %bi",
            [f(3.0e38), 1, 0],
            "ldexp",
            [f(0.0), 128, 0],
            0,
        ),
        (
            "Frexp %x %ev",
            [0x7f80_0000, 0, 0],
            "frexp of an infinity or NaN",
            [f(8.0), 0, 0],
            f(0.5),
        ),
    ];
    for (inst, bad, rule, good, want) in rows {
        let e = float_op(inst);
        let (_, flag) = eval(&e, *bad);
        let flag = flag.unwrap_or_else(|| panic!("{inst} on {bad:?} is not flagged"));
        assert!(flag.contains(rule), "{inst}: {flag}");
        let (w, flag) = eval(&e, *good);
        assert_eq!(flag, None, "{inst} on {good:?}");
        assert_eq!(w, *want, "{inst} on {good:?}");
    }
}

#[test]
fn integer_clamps_frexp_exponents_and_bit_fields_are_flagged_out_of_range() {
    let rows: &[Row] = &[
        (
            "%ru = OpExtInst %uint %glsl UClamp %u1 %a %b",
            [5, 3, 0],
            "clamp with minVal > maxVal",
            [0, 3, 0],
            1,
        ),
        (
            "%r = OpExtInst %int %glsl SClamp %ai %ai %bi\n%ru = OpBitcast %uint %r",
            [1, (-1i32) as u32, 0],
            "clamp with minVal > maxVal",
            [(-1i32) as u32, 1, 0],
            (-1i32) as u32,
        ),
        (
            "%m = OpExtInst %float %glsl Frexp %x %ev\n%e = OpLoad %int %ev\n%ru = OpBitcast %uint %e",
            [0x7fc0_0000, 0, 0],
            "frexp of an infinity or NaN",
            [f(8.0), 0, 0],
            4,
        ),
        (
            "%ru = OpBitFieldUExtract %uint %a %b %c",
            [0xffff, 30, 4],
            "bitfield extract or insert",
            [0xffff, 28, 4],
            0,
        ),
        (
            "%ru = OpBitFieldUExtract %uint %a %b %c",
            [0xffff, 33, 0],
            "bitfield extract or insert",
            [0xffff, 32, 0],
            0,
        ),
        (
            "%ru = OpBitFieldInsert %uint %a %a %b %c",
            [0, 0, 33],
            "bitfield extract or insert",
            [0, 0, 32],
            0,
        ),
        (
            "%r = OpBitFieldSExtract %int %ai %b %c\n%ru = OpBitcast %uint %r",
            [0xf0, 4, 29],
            "bitfield extract or insert",
            [0xf0, 4, 4],
            u32::MAX,
        ),
    ];
    for (e, bad, rule, good, want) in rows {
        let (_, flag) = eval(e, *bad);
        let flag = flag.unwrap_or_else(|| panic!("{e} on {bad:?} is not flagged"));
        assert!(flag.contains(rule), "{e}: {flag}");
        let (w, flag) = eval(e, *good);
        assert_eq!(flag, None, "{e} on {good:?}");
        assert_eq!(w, *want, "{e} on {good:?}");
    }
}

#[test]
fn a_composite_opundef_at_module_scope_is_flagged_where_used() {
    // A struct and an array OpUndef declared among the constants (module scope): every
    // member is 0 marked undefined (SPIR-V OpUndef), flagged where a member is stored.
    let types = "%s2 = OpTypeStruct %uint %uint\n%us = OpUndef %s2\n\
                 %a2 = OpTypeArray %uint %u2\n%ua = OpUndef %a2\n";
    for (extract, flagged) in [
        ("%e = OpCompositeExtract %uint %us 1", true),
        ("%e = OpCompositeExtract %uint %ua 0", true),
        // The member overwritten first is defined.
        (
            "%w = OpCompositeInsert %s2 %u3 %us 1\n%e = OpCompositeExtract %uint %w 1",
            false,
        ),
    ] {
        let body =
            format!("{extract}\n%po = OpAccessChain %pu %bu %u0 %u0\nOpStore %po %e\nOpReturn");
        let text = module(1, "", &format!("%u3 = OpConstant %uint 3\n{types}"), &body);
        let p = plan(src(&text), vec![buf("u", 0, Scalar::U32, vec![0; 4])], 1);
        let out = run(&p, &Options::default()).unwrap();
        assert_eq!(out.build.failed_at, None, "{}", out.build.log);
        let flag = out
            .flags
            .iter()
            .find(|f| f.kind == FlagKind::UndefinedValue);
        assert_eq!(flag.is_some(), flagged, "{extract}: {:?}", out.flags);
        if flagged {
            assert!(flag.unwrap().message.contains("OpUndef"), "{flag:?}");
        }
    }
}
