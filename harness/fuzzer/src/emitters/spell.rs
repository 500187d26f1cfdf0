//! Spellings shared by the emitters and the features' emission code: NV assembly mnemonics of
//! the integer operators, GLSL's component-wise operators, component letters and float
//! literals. Below every emitter and feature (it names nothing but the tree's operators), so
//! that none of them reaches into another for a spelling.

use crate::ast::BinOp;

/// The NV_gpu_program4/5 instruction of a binary operator on 32-bit integers (`.S` where it
/// reads its operands as signed); comparisons give all ones for TRUE (callers mask with 1).
pub(crate) fn mnemonic(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "ADD.U",
        BinOp::Sub => "SUB.U",
        BinOp::Mul => "MUL.U",
        BinOp::And => "AND.U",
        BinOp::Or => "OR.U",
        BinOp::Xor => "XOR.U",
        BinOp::Shl => "SHL.U",
        BinOp::ShrU => "SHR.U",
        BinOp::ShrS => "SHR.S",
        BinOp::MinU => "MIN.U",
        BinOp::MaxU => "MAX.U",
        BinOp::MinS => "MIN.S",
        BinOp::MaxS => "MAX.S",
        BinOp::DivU => "DIV.U",
        BinOp::RemU => "MOD.U",
        BinOp::DivS => "DIV.S",
        BinOp::RemS => "MOD.S",
        BinOp::MulHiU => "MUL.U.HI",
        BinOp::MulHiS => "MUL.S.HI",
        BinOp::LtU => "SLT.U",
        BinOp::LtS => "SLT.S",
        BinOp::Eq => "SEQ.U",
        BinOp::Ne => "SNE.U",
        BinOp::LeU => "SLE.U",
        BinOp::LeS => "SLE.S",
        BinOp::GtU => "SGT.U",
        BinOp::GtS => "SGT.S",
        BinOp::GeU => "SGE.U",
        BinOp::GeS => "SGE.S",
        // On the operands' `SNE.U ..., 0` (NV assembly has no booleans).
        BinOp::LAnd => "AND.U",
        BinOp::LOr => "OR.U",
        BinOp::LXor => "XOR.U",
        // With `.CC`: the carry is CF, the borrow NCF.
        BinOp::Carry => "ADD.U",
        BinOp::Borrow => "SUB.U",
        BinOp::AbsDiffU => "SAD.U",
        BinOp::AbsDiffS => "SAD.S",
        BinOp::Mul24U => "MUL.U24",
        BinOp::Mul24S => "MUL.S24",
        BinOp::SRem | BinOp::SMod => {
            unreachable!("Program::check keeps OpSRem and OpSMod in SPIR-V")
        }
    }
}

/// A component-wise operator on `uvec4` (`vec`) or `uint` operands: vector blocks and the
/// scalar GLSL emitter spell these operators with it.
pub(crate) fn glsl_bin(op: BinOp, a: &str, b: &str, vec: bool) -> String {
    let (u, i) = if vec {
        ("uvec4", "ivec4")
    } else {
        ("uint", "int")
    };
    match op {
        BinOp::Add => format!("({a} + {b})"),
        BinOp::Sub => format!("({a} - {b})"),
        BinOp::Mul => format!("({a} * {b})"),
        BinOp::And => format!("({a} & {b})"),
        BinOp::Or => format!("({a} | {b})"),
        BinOp::Xor => format!("({a} ^ {b})"),
        // Counts masked to 0-31, as the model takes them (GLSL 4.60 §5.9 leaves larger
        // ones undefined).
        BinOp::Shl => format!("({a} << ({b} & 31u))"),
        BinOp::ShrU => format!("({a} >> ({b} & 31u))"),
        BinOp::ShrS => format!("{u}({i}({a}) >> ({b} & 31u))"),
        BinOp::MinU => format!("min({a}, {b})"),
        BinOp::MaxU => format!("max({a}, {b})"),
        BinOp::MinS => format!("{u}(min({i}({a}), {i}({b})))"),
        BinOp::MaxS => format!("{u}(max({i}({a}), {i}({b})))"),
        other => unreachable!("{} is not a vector operator (check)", other.name()),
    }
}

/// The name of vector component `d` (0, 1, 2).
pub fn xyz(d: u8) -> char {
    ['x', 'y', 'z'][usize::from(d % 3)]
}

/// An f32 written in decimal with a point (`1.25`, `-16.0`, `1000000000.0`): exactly the
/// value for the small quarters and the sentinel the fuzzer uses, in every language and YAML.
pub fn float_text(bits: u32) -> String {
    let s = f32::from_bits(bits).to_string();
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// A float literal for `2^e` (exact in decimal).
pub fn power_of_two(e: i8) -> String {
    float_text(2f32.powi(i32::from(e)).to_bits())
}
