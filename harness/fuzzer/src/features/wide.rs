//! 64-bit integers in the integer grammar: [`Expr::Wide`] extends both 32-bit operands to 64
//! bits (sign- or zero-extended), applies one 64-bit operation and takes the low or the high
//! 32 bits of the result back. Operands may themselves be wide expressions, so 64-bit trees
//! nest through their halves.
//!
//! Languages: GLSL with `GL_ARB_gpu_shader_int64` (`uint64_t`, `int64_t`, the `min`/`max`
//! overloads, `unpackUint2x32`), NV_gpu_program5's 64-bit integer operations (`.U64`/`.S64`
//! on a `LONG TEMP`, loaded with `PK64` and read back with `UP64`, which the spec defines on
//! little-endian word order: x is the low word), SPIR-V's `OpTypeInt 64 0` with `Capability
//! Int64` (`OpSConvert`/`OpUConvert`, the 64-bit forms of the integer opcodes).
//!
//! Every operation is defined on every operand the tree can produce, as for 32 bits
//! ([`crate::oracles::model::div_operands`]): shift counts are the 32-bit operand's low 6 bits
//! (GL_ARB_gpu_shader_int64 and GLSL 4.60 section 5.9, NV_gpu_program4 SHL/SHR and SPIR-V
//! `OpShiftLeftLogical` leave counts of 64 or more undefined); a division or remainder by 0
//! divides by 1 instead (GLSL section 5.9, NV_gpu_program4 DIV/MOD, SPIR-V `OpUDiv`/`OpSDiv`);
//! a signed remainder's dividend loses bit 63 and a divisor below 1 becomes 1 (GLSL `%` and
//! NV `MOD` leave negative operands undefined). `i64::MIN / -1` (SPIR-V `OpSDiv`'s overflow)
//! cannot arise: no 32-bit value extends to `i64::MIN`. Comparisons give 0 or 1 as a 64-bit
//! value (NV set-on instructions give all ones, masked with 1 there).
//!
//! The node type and the operators with a 64-bit form are the tree's ([`crate::ast::wide`]);
//! this module holds the semantics, generation, reduction and emission.

use crate::ast::wide::{ops, Wide};
use crate::ast::{BinOp, Expr};
use arbitrary::{Result, Unstructured};

fn is_shift(op: BinOp) -> bool {
    matches!(op, BinOp::Shl | BinOp::ShrU | BinOp::ShrS)
}

fn is_division(op: BinOp) -> bool {
    matches!(op, BinOp::DivU | BinOp::RemU | BinOp::DivS | BinOp::RemS)
}

/// Operators whose 64-bit form reads its operands as signed.
fn reads_signed(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::ShrS
            | BinOp::MinS
            | BinOp::MaxS
            | BinOp::DivS
            | BinOp::RemS
            | BinOp::LtS
            | BinOp::LeS
            | BinOp::GtS
            | BinOp::GeS
    )
}

/// `v` extended to 64 bits.
pub fn extend(v: u32, signed: bool) -> u64 {
    if signed {
        i64::from(v as i32) as u64
    } else {
        u64::from(v)
    }
}

/// The 64-bit operands a division or remainder works on: `(x, y)` wherever the specs define
/// the result; a divisor of 0 becomes 1; for `RemS` the dividend loses bit 63 and a divisor
/// below 1 becomes 1 (the 64-bit form of [`crate::oracles::model::div_operands`]).
pub fn div_operands(op: BinOp, x: u64, y: u64) -> (u64, u64) {
    match op {
        BinOp::RemS => (x & i64::MAX as u64, if (y as i64) < 1 { 1 } else { y }),
        _ if y == 0 => (x, 1),
        _ => (x, y),
    }
}

/// The full 64-bit result of `op` on the 32-bit operands `a` and `b` (GL_ARB_gpu_shader_int64
/// "Modify Section 5.9": the operators wrap to 64 bits; NV_gpu_program5: "integer overflows
/// result in the truncation of the most significant bits"; SPIR-V's integer opcodes are
/// modulo 2^64).
pub fn eval64(op: BinOp, a: u32, b: u32, signed: bool) -> u64 {
    let (x, y) = (extend(a, signed), extend(b, signed));
    let (sx, sy) = (x as i64, y as i64);
    let count = b & 63;
    match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::Shl => x << count,
        BinOp::ShrU => x >> count,
        BinOp::ShrS => (sx >> count) as u64,
        BinOp::MinU => x.min(y),
        BinOp::MaxU => x.max(y),
        BinOp::MinS => sx.min(sy) as u64,
        BinOp::MaxS => sx.max(sy) as u64,
        BinOp::DivU | BinOp::RemU | BinOp::DivS | BinOp::RemS => {
            let (x, y) = div_operands(op, x, y);
            match op {
                BinOp::DivU => x / y,
                BinOp::RemU => x % y,
                // Truncating towards zero (Rust's i64 `/` and `%`, as GLSL, NV DIV.S64 and
                // OpSDiv/OpSRem); no operand pair here overflows.
                BinOp::DivS => (x as i64).wrapping_div(y as i64) as u64,
                _ => (x as i64).wrapping_rem(y as i64) as u64,
            }
        }
        BinOp::LtU => u64::from(x < y),
        BinOp::LtS => u64::from(sx < sy),
        BinOp::Eq => u64::from(x == y),
        BinOp::Ne => u64::from(x != y),
        BinOp::LeU => u64::from(x <= y),
        BinOp::LeS => u64::from(sx <= sy),
        BinOp::GtU => u64::from(x > y),
        BinOp::GtS => u64::from(sx > sy),
        BinOp::GeU => u64::from(x >= y),
        BinOp::GeS => u64::from(sx >= sy),
        // No 64-bit form (Program::check refuses them); the low product keeps the model total.
        _ => x.wrapping_mul(y),
    }
}

/// The model of [`Expr::Wide`] on its operands' values.
pub fn eval(w: &Wide, a: u32, b: u32) -> u32 {
    let r = eval64(w.op, a, b, w.signed);
    if w.high {
        (r >> 32) as u32
    } else {
        r as u32
    }
}

/// Operand constants the generator leans on: the ends of both 32-bit ranges (where sign and
/// zero extension differ), 0, 1, and shift counts around 32 and 63.
const EDGES: [u32; 10] = [
    0,
    1,
    0xFFFF_FFFF,
    0x8000_0000,
    0x7FFF_FFFF,
    31,
    32,
    33,
    63,
    0xFFFF_FFFE,
];

/// A wide expression whose operands `operand` draws (an edge constant one time in four).
pub fn arbitrary(
    u: &mut Unstructured,
    operand: &mut dyn FnMut(&mut Unstructured) -> Result<Expr>,
) -> Result<Expr> {
    let op = *u.choose(&ops())?;
    let mut side = |u: &mut Unstructured| -> Result<Box<Expr>> {
        Ok(Box::new(if u.ratio(1, 4)? {
            Expr::Const(*u.choose(&EDGES)?)
        } else {
            operand(u)?
        }))
    };
    let (a, b) = (side(u)?, side(u)?);
    Ok(Expr::Wide(Wide {
        op,
        a,
        b,
        signed: u.arbitrary()?,
        high: u.arbitrary()?,
    }))
}

/// Simpler forms for the reducer, each one way only (no cycles): `add` (then `xor`) in place
/// of a later operator, zero extension, the low half. Operands shrink as children.
pub fn shrink(w: &Wide) -> Vec<Wide> {
    let rank = |op: BinOp| BinOp::ALL.iter().position(|&o| o == op);
    let mut out = Vec::new();
    for simpler in [BinOp::Add, BinOp::Xor] {
        if rank(simpler) < rank(w.op) {
            out.push(Wide {
                op: simpler,
                ..w.clone()
            });
        }
    }
    if w.signed {
        out.push(Wide {
            signed: false,
            ..w.clone()
        });
    }
    if w.high {
        out.push(Wide {
            high: false,
            ..w.clone()
        });
    }
    out
}

/// GLSL helpers for the 64-bit divisions, defined only where the spec defines the operation
/// (they replace exactly what [`div_operands`] replaces).
pub const GLSL_HELPERS: [(&str, &str); 4] = [
    (
        "fz_wdivu(",
        "uint64_t fz_wdivu(uint64_t a, uint64_t b) { return a / (b == 0UL ? 1UL : b); }",
    ),
    (
        "fz_wremu(",
        "uint64_t fz_wremu(uint64_t a, uint64_t b) { return a % (b == 0UL ? 1UL : b); }",
    ),
    (
        "fz_wdivs(",
        "uint64_t fz_wdivs(uint64_t a, uint64_t b) { return uint64_t(int64_t(a) / (b == 0UL ? 1L : int64_t(b))); }",
    ),
    (
        "fz_wrems(",
        "uint64_t fz_wrems(uint64_t a, uint64_t b) { return uint64_t(int64_t(a & 0x7FFFFFFFFFFFFFFFUL) % (int64_t(b) < 1L ? 1L : int64_t(b))); }",
    ),
];

/// The GLSL `uint` of `w` on the operand texts `a` and `b` (both `uint`).
pub fn glsl(w: &Wide, a: &str, b: &str) -> String {
    let ext = |v: &str| {
        if w.signed {
            format!("uint64_t(int64_t(int({v})))")
        } else {
            format!("uint64_t({v})")
        }
    };
    let (x, y) = (ext(a), ext(b));
    let s = |v: &str| format!("int64_t({v})");
    let r = match w.op {
        BinOp::Add => format!("({x} + {y})"),
        BinOp::Sub => format!("({x} - {y})"),
        BinOp::Mul => format!("({x} * {y})"),
        BinOp::And => format!("({x} & {y})"),
        BinOp::Or => format!("({x} | {y})"),
        BinOp::Xor => format!("({x} ^ {y})"),
        BinOp::Shl => format!("({x} << ({b} & 63u))"),
        BinOp::ShrU => format!("({x} >> ({b} & 63u))"),
        BinOp::ShrS => format!("uint64_t({} >> ({b} & 63u))", s(&x)),
        BinOp::MinU => format!("min({x}, {y})"),
        BinOp::MaxU => format!("max({x}, {y})"),
        BinOp::MinS => format!("uint64_t(min({}, {}))", s(&x), s(&y)),
        BinOp::MaxS => format!("uint64_t(max({}, {}))", s(&x), s(&y)),
        BinOp::DivU => format!("fz_wdivu({x}, {y})"),
        BinOp::RemU => format!("fz_wremu({x}, {y})"),
        BinOp::DivS => format!("fz_wdivs({x}, {y})"),
        BinOp::RemS => format!("fz_wrems({x}, {y})"),
        BinOp::LtU => format!("({x} < {y} ? 1UL : 0UL)"),
        BinOp::LtS => format!("({} < {} ? 1UL : 0UL)", s(&x), s(&y)),
        BinOp::Eq => format!("({x} == {y} ? 1UL : 0UL)"),
        BinOp::Ne => format!("({x} != {y} ? 1UL : 0UL)"),
        BinOp::LeU => format!("({x} <= {y} ? 1UL : 0UL)"),
        BinOp::LeS => format!("({} <= {} ? 1UL : 0UL)", s(&x), s(&y)),
        BinOp::GtU => format!("({x} > {y} ? 1UL : 0UL)"),
        BinOp::GtS => format!("({} > {} ? 1UL : 0UL)", s(&x), s(&y)),
        BinOp::GeU => format!("({x} >= {y} ? 1UL : 0UL)"),
        BinOp::GeS => format!("({} >= {} ? 1UL : 0UL)", s(&x), s(&y)),
        _ => unreachable!("Program::check keeps operators without a 64-bit form out"),
    };
    if w.high {
        format!("unpackUint2x32({r}).y")
    } else {
        format!("uint({r})")
    }
}

/// Where NV assembly instructions go: the emitter's instruction list and scratch components.
pub trait AsmSink {
    fn inst(&mut self, s: &str);
    /// A fresh scratch component and its letter (for condition-code tests).
    fn fresh(&mut self) -> (String, char);
}

/// The `LONG TEMP` holding the two 64-bit operands (x, y) and the 32-bit `TEMP` the four words
/// travel through; declared by the emitter when the program has a wide expression.
pub const NV_LONG: &str = "w64";
pub const NV_WORDS: &str = "wv";

/// Emits `w` on the operand components `a` and `b`; the component holding the result.
pub fn nvasm(s: &mut dyn AsmSink, w: &Wide, a: &str, b: &str) -> String {
    let (l, v) = (NV_LONG, NV_WORDS);
    // The words of the two operands: (x, y) the first, (z, w) the second, low word first.
    s.inst(&format!("MOV.U {v}.x, {a}"));
    let high_word = |s: &mut dyn AsmSink, lo: char, hi: char| {
        if w.signed {
            s.inst(&format!("SHR.S {v}.{hi}, {v}.{lo}, 31"));
        } else {
            s.inst(&format!("MOV.U {v}.{hi}, 0"));
        }
    };
    high_word(s, 'x', 'y');
    if w.op == BinOp::RemS && w.signed {
        s.inst(&format!("AND.U {v}.y, {v}.y, 2147483647"));
    }
    if is_shift(w.op) {
        s.inst(&format!("AND.U {v}.z, {b}, 63"));
        s.inst(&format!("MOV.U {v}.w, 0"));
    } else {
        s.inst(&format!("MOV.U {v}.z, {b}"));
        if is_division(w.op) {
            // The 64-bit divisor is 0 (below 1 for a signed remainder) exactly when its
            // 32-bit source is: replaced before the extension.
            let (t, c) = s.fresh();
            if w.op == BinOp::RemS && w.signed {
                s.inst(&format!("SLT.S.CC {t}, {v}.z, 1"));
            } else {
                s.inst(&format!("SEQ.U.CC {t}, {v}.z, 0"));
            }
            s.inst(&format!("MOV.U {v}.z (NE.{c}), 1"));
        }
        high_word(s, 'z', 'w');
    }
    s.inst(&format!("PK64.U {l}, {v}"));
    let ty = if reads_signed(w.op) { "S64" } else { "U64" };
    let mnemonic = match w.op {
        BinOp::Add => "ADD",
        BinOp::Sub => "SUB",
        BinOp::Mul => "MUL",
        BinOp::And => "AND",
        BinOp::Or => "OR",
        BinOp::Xor => "XOR",
        BinOp::Shl => "SHL",
        BinOp::ShrU | BinOp::ShrS => "SHR",
        BinOp::MinU | BinOp::MinS => "MIN",
        BinOp::MaxU | BinOp::MaxS => "MAX",
        BinOp::DivU | BinOp::DivS => "DIV",
        BinOp::RemU | BinOp::RemS => "MOD",
        BinOp::LtU | BinOp::LtS => "SLT",
        BinOp::Eq => "SEQ",
        BinOp::Ne => "SNE",
        BinOp::LeU | BinOp::LeS => "SLE",
        BinOp::GtU | BinOp::GtS => "SGT",
        BinOp::GeU | BinOp::GeS => "SGE",
        _ => unreachable!("Program::check keeps operators without a 64-bit form out"),
    };
    s.inst(&format!("{mnemonic}.{ty} {l}.x, {l}.x, {l}.y"));
    if w.op.is_comparison() {
        // Integer set-on instructions give all ones for TRUE.
        s.inst(&format!("AND.U64 {l}.x, {l}.x, 1"));
    }
    s.inst(&format!("UP64.U {v}, {l}"));
    let (t, _) = s.fresh();
    let half = if w.high { 'y' } else { 'x' };
    s.inst(&format!("MOV.U {t}, {v}.{half}"));
    t
}

/// Where SPIR-V instructions go: the emitter's value numbering and `%uint` constants.
pub trait SpvSink {
    /// A fresh id holding `rhs`.
    fn val(&mut self, rhs: &str) -> String;
    /// The `%uint` constant `v`.
    fn cu(&mut self, v: u32) -> String;
}

/// The capability, type and constants a module with wide expressions declares.
pub const SPIRV_CAPABILITY: &str = "OpCapability Int64\n";
pub const SPIRV_DECLS: &str = "%ulong = OpTypeInt 64 0\n\
    %v2uint_w = OpTypeVector %uint 2\n\
    %cl0 = OpConstant %ulong 0\n\
    %cl1 = OpConstant %ulong 1\n\
    %clmax = OpConstant %ulong 9223372036854775807\n";

/// `w` on the `%uint` ids `a` and `b`, as a `%uint` id.
pub fn spirv(s: &mut dyn SpvSink, w: &Wide, a: &str, b: &str) -> String {
    let convert = if w.signed { "OpSConvert" } else { "OpUConvert" };
    let x = s.val(&format!("{convert} %ulong {a}"));
    let y = s.val(&format!("{convert} %ulong {b}"));
    let bin = |s: &mut dyn SpvSink, name: &str, x: &str, y: &str| {
        s.val(&format!("{name} %ulong {x} {y}"))
    };
    let compare = |s: &mut dyn SpvSink, name: &str| {
        let c = s.val(&format!("{name} %bool {x} {y}"));
        s.val(&format!("OpSelect %ulong {c} %cl1 %cl0"))
    };
    let r = match w.op {
        BinOp::Add => bin(s, "OpIAdd", &x, &y),
        BinOp::Sub => bin(s, "OpISub", &x, &y),
        BinOp::Mul => bin(s, "OpIMul", &x, &y),
        BinOp::And => bin(s, "OpBitwiseAnd", &x, &y),
        BinOp::Or => bin(s, "OpBitwiseOr", &x, &y),
        BinOp::Xor => bin(s, "OpBitwiseXor", &x, &y),
        BinOp::Shl | BinOp::ShrU | BinOp::ShrS => {
            // A 32-bit count on a 64-bit base: SPIR-V lets their widths differ.
            let c63 = s.cu(63);
            let c = s.val(&format!("OpBitwiseAnd %uint {b} {c63}"));
            let name = match w.op {
                BinOp::Shl => "OpShiftLeftLogical",
                BinOp::ShrU => "OpShiftRightLogical",
                _ => "OpShiftRightArithmetic",
            };
            bin(s, name, &x, &c)
        }
        BinOp::MinU => s.val(&format!("OpExtInst %ulong %glsl UMin {x} {y}")),
        BinOp::MaxU => s.val(&format!("OpExtInst %ulong %glsl UMax {x} {y}")),
        BinOp::MinS => s.val(&format!("OpExtInst %ulong %glsl SMin {x} {y}")),
        BinOp::MaxS => s.val(&format!("OpExtInst %ulong %glsl SMax {x} {y}")),
        BinOp::DivU | BinOp::RemU | BinOp::DivS => {
            let z = s.val(&format!("OpIEqual %bool {y} %cl0"));
            let d = s.val(&format!("OpSelect %ulong {z} %cl1 {y}"));
            let name = match w.op {
                BinOp::DivU => "OpUDiv",
                BinOp::RemU => "OpUMod",
                _ => "OpSDiv",
            };
            bin(s, name, &x, &d)
        }
        BinOp::RemS => {
            let n = bin(s, "OpBitwiseAnd", &x, "%clmax");
            let z = s.val(&format!("OpSLessThan %bool {y} %cl1"));
            let d = s.val(&format!("OpSelect %ulong {z} %cl1 {y}"));
            bin(s, "OpSRem", &n, &d)
        }
        BinOp::LtU => compare(s, "OpULessThan"),
        BinOp::LtS => compare(s, "OpSLessThan"),
        BinOp::Eq => compare(s, "OpIEqual"),
        BinOp::Ne => compare(s, "OpINotEqual"),
        BinOp::LeU => compare(s, "OpULessThanEqual"),
        BinOp::LeS => compare(s, "OpSLessThanEqual"),
        BinOp::GtU => compare(s, "OpUGreaterThan"),
        BinOp::GtS => compare(s, "OpSGreaterThan"),
        BinOp::GeU => compare(s, "OpUGreaterThanEqual"),
        BinOp::GeS => compare(s, "OpSGreaterThanEqual"),
        _ => unreachable!("Program::check keeps operators without a 64-bit form out"),
    };
    if w.high {
        // The high word as the second component of the bit pattern (no 64-bit shift).
        let words = s.val(&format!("OpBitcast %v2uint_w {r}"));
        s.val(&format!("OpCompositeExtract %uint {words} 1"))
    } else {
        s.val(&format!("OpUConvert %uint {r}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Block, ComputeBlock, Lang, Program, Stmt};
    use crate::{load_case, observe, ReferenceTarget, Target};
    use quickcheck::quickcheck;

    fn wide(op: BinOp, signed: bool, high: bool) -> Wide {
        Wide {
            op,
            a: Box::new(Expr::Var(0)),
            b: Box::new(Expr::Var(1)),
            signed,
            high,
        }
    }

    /// `(op, a, b, signed, low word, high word)`, derived by hand.
    const TABLE: [(BinOp, u32, u32, bool, u32, u32); 16] = [
        // 0xFFFFFFFF + 1 carries into the high word; sign-extended it is -1 + 1.
        (BinOp::Add, 0xFFFF_FFFF, 1, false, 0, 1),
        (BinOp::Add, 0xFFFF_FFFF, 1, true, 0, 0),
        (BinOp::Sub, 0, 1, false, 0xFFFF_FFFF, 0xFFFF_FFFF),
        // 2^31 * 2 = 2^32; -2^31 * 2 = -2^32.
        (BinOp::Mul, 0x8000_0000, 2, false, 0, 1),
        (BinOp::Mul, 0x8000_0000, 2, true, 0, 0xFFFF_FFFF),
        // 1 << 40 = 2^40; a count of 104 is 40 modulo 64.
        (BinOp::Shl, 1, 40, false, 0, 0x100),
        (BinOp::Shl, 1, 104, false, 0, 0x100),
        // 0xFFFFFFFF_80000000 >> 36 logically: 0x0FFFFFFF; arithmetically: -1.
        (BinOp::ShrU, 0x8000_0000, 36, true, 0x0FFF_FFFF, 0),
        (BinOp::ShrS, 0x8000_0000, 36, true, 0xFFFF_FFFF, 0xFFFF_FFFF),
        // -7 / 2 truncates to -3; 0xFFFFFFF9 / 0 divides by 1.
        (BinOp::DivS, 0xFFFF_FFF9, 2, true, 0xFFFF_FFFD, 0xFFFF_FFFF),
        (BinOp::DivU, 0xFFFF_FFF9, 0, false, 0xFFFF_FFF9, 0),
        // -7 loses bit 63: 0x7FFFFFFF_FFFFFFF9 % 2 = 1.
        (BinOp::RemS, 0xFFFF_FFF9, 2, true, 1, 0),
        (BinOp::MinS, 0xFFFF_FFFF, 1, true, 0xFFFF_FFFF, 0xFFFF_FFFF),
        (BinOp::MinU, 0xFFFF_FFFF, 1, false, 1, 0),
        (BinOp::LtS, 0xFFFF_FFFF, 1, true, 1, 0),
        (BinOp::LtU, 0xFFFF_FFFF, 1, true, 0, 0),
    ];

    #[test]
    fn the_model_follows_the_hand_derived_table() {
        for (op, a, b, signed, lo, hi) in TABLE {
            let got = [false, true].map(|high| eval(&wide(op, signed, high), a, b));
            assert_eq!(got, [lo, hi], "{op:?} {a:#x} {b:#x} signed {signed}");
        }
    }

    quickcheck! {
        /// The low word of a wrapping 64-bit add, subtract, multiply or bit operation is the
        /// 32-bit result; the high word of an extended product is `umulExtended`'s or
        /// `imulExtended`'s.
        fn halves_agree_with_the_32_bit_operators(a: u32, b: u32, signed: bool) -> bool {
            let same = [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::And, BinOp::Or, BinOp::Xor]
                .iter()
                .all(|&op| eval(&wide(op, signed, false), a, b) == crate::oracles::model::bin(op, a, b));
            let hi = if signed { BinOp::MulHiS } else { BinOp::MulHiU };
            same && eval(&wide(BinOp::Mul, signed, true), a, b) == crate::oracles::model::bin(hi, a, b)
        }
    }

    /// A program computing every row of the table (both halves) on variables, so that no
    /// front end sees constants to fold.
    fn table_program(lang: Lang, rows: &[(BinOp, u32, u32, bool, u32, u32)]) -> Program {
        let mut stmts = Vec::new();
        for &(op, a, b, signed, ..) in rows {
            for high in [false, true] {
                stmts.push(Stmt::Assign(0, Expr::Const(a)));
                stmts.push(Stmt::Assign(1, Expr::Const(b)));
                // v3 chains every result (FNV-style), so each row is checked.
                let chained = Expr::bin(BinOp::Mul, Expr::Var(3), Expr::Const(0x0100_0193));
                let w = Expr::Wide(wide(op, signed, high));
                stmts.push(Stmt::Assign(3, Expr::bin(BinOp::Add, chained, w)));
            }
        }
        Program {
            lang,
            local_size: 2,
            groups: 1,
            blocks: vec![Block::Compute(ComputeBlock { seed: 1, stmts })],
            shape: None,
        }
    }

    fn reference(exec: ReferenceTarget) -> Target {
        Target {
            name: "reference".into(),
            is_reference: true,
            exec: Box::new(exec),
        }
    }

    #[test]
    fn every_operator_runs_on_the_reference_in_every_language() {
        let mut target = reference(ReferenceTarget::default());
        let rows: Vec<_> = ops()
            .into_iter()
            .flat_map(|op| {
                [
                    (op, 0xFFFF_FFF9, 0x21, true, 0, 0),
                    (op, 0x8000_0000, 0, false, 0, 0),
                ]
            })
            .chain(TABLE)
            .collect();
        for lang in Lang::ALL {
            let p = table_program(lang, &rows);
            p.check().unwrap();
            let (case, text) = load_case(&p, "wide-table", "every 64-bit operator").unwrap();
            let d = observe(&p, &case, &mut target).expect("the reference runs it");
            assert!(d.is_empty(), "{lang:?}: {d:#?}\n{}", text.yaml);
        }
    }

    #[test]
    fn emitters_spell_64_bit_operations() {
        let p = |lang| table_program(lang, &TABLE[5..6]);
        let glsl = crate::emitters::glsl::emit(&p(Lang::Glsl)).text;
        assert!(
            glsl.contains("#extension GL_ARB_gpu_shader_int64 : require"),
            "{glsl}"
        );
        assert!(
            glsl.contains("uint((uint64_t(v0) << (v1 & 63u)))"),
            "{glsl}"
        );
        assert!(
            glsl.contains("unpackUint2x32((uint64_t(v0) << (v1 & 63u))).y"),
            "{glsl}"
        );
        let nv = crate::emitters::nvasm::emit(&p(Lang::Nvasm)).text;
        assert!(nv.contains("LONG TEMP w64;"), "{nv}");
        assert!(
            nv.contains("PK64.U w64, wv;\nSHL.U64 w64.x, w64.x, w64.y;\nUP64.U wv, w64;"),
            "{nv}"
        );
        let spv = crate::emitters::spirv::emit(&p(Lang::Spirv)).text;
        assert!(spv.contains("OpCapability Int64"), "{spv}");
        assert!(spv.contains("OpShiftLeftLogical %ulong"), "{spv}");
        // Programs without wide expressions say nothing of 64 bits.
        let plain = Program {
            blocks: vec![Block::Compute(ComputeBlock {
                seed: 1,
                stmts: vec![Stmt::Assign(0, Expr::Lid)],
            })],
            ..p(Lang::Glsl)
        };
        assert!(!crate::emitters::glsl::emit(&plain).text.contains("int64"));
    }

    /// The planted 64-bit shift bug shows in every language on a count of 40.
    #[cfg(feature = "self-test")]
    #[test]
    fn a_shift_count_taken_modulo_32_diverges() {
        let mut target = reference(ReferenceTarget {
            planted_bug: Some(conform_reference::PlantedBug::WideShiftCountMod32),
        });
        for lang in Lang::ALL {
            let p = table_program(lang, &TABLE[5..6]);
            let (case, _) = load_case(&p, "wide-shift", "1 << 40").unwrap();
            let d = observe(&p, &case, &mut target).expect("the reference runs it");
            assert!(!d.is_empty(), "{lang:?}");
        }
    }
}
