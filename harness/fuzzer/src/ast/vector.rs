//! The syntax of vector blocks: [`VectorBlock`] and its statements and expressions, the
//! operators they admit and the rules they keep ([`check`]). Semantics, generation, reduction
//! and emission are `crate::features::vector`'s (whose documentation describes the block).

use super::BinOp;
use serde::{Deserialize, Serialize};

/// Vector variables of a block.
pub const VVARS: u8 = 2;
const MAX_STMTS: usize = 16;

/// The operators every language applies component-wise to `uvec4` (GLSL 4.60 §5.9: the
/// arithmetic, bitwise and shift operators on vectors; `min`/`max` §8.3), to a 4-component
/// register (NV_gpu_program4's vector integer instructions), and to `%v4uint` (SPIR-V
/// OpIAdd ..., GLSL.std.450 UMin ...).
/// These are the first 13 of `BinOp::ALL`: add, sub, mul, and, or, xor, shl, shru, shrs,
/// minu, maxu, mins, maxs.
pub const VECTOR_OPS: &[BinOp] = BinOp::ALL.split_at(13).0;

/// The swizzle that reads every component in place.
pub(crate) const IDENTITY: [u8; 4] = [0, 1, 2, 3];

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorBlock {
    pub seed: u32,
    pub stmts: Vec<VStmt>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VStmt {
    /// `u<dst>.<mask> = value`; `mask` bit `i` is component `i` (1 to 15).
    Assign { dst: u8, mask: u8, value: VExpr },
    /// `s = value`.
    Scalar(SExpr),
}

/// A `uvec4` value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VExpr {
    /// Variable `u<v>` read through a swizzle: lane `i` reads component `swz[i]`.
    Var(u8, [u8; 4]),
    /// A scalar in every lane.
    Splat(SExpr),
    Bin(BinOp, Box<VExpr>, Box<VExpr>),
}

/// A `uint` value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SExpr {
    Const(u32),
    /// The block's scalar `s`.
    S,
    /// Component `c` of `u<v>`.
    Comp(u8, u8),
    Bin(BinOp, Box<SExpr>, Box<SExpr>),
}

/// The rules a vector block keeps ([`super::Program::check`]).
pub fn check(v: &VectorBlock) -> Result<(), String> {
    fn s_ok(e: &SExpr) -> bool {
        match e {
            SExpr::Const(_) | SExpr::S => true,
            SExpr::Comp(v, c) => *v < VVARS && *c < 4,
            SExpr::Bin(op, a, b) => VECTOR_OPS.contains(op) && s_ok(a) && s_ok(b),
        }
    }
    fn v_ok(e: &VExpr) -> bool {
        match e {
            VExpr::Var(v, swz) => *v < VVARS && swz.iter().all(|&c| c < 4),
            VExpr::Splat(s) => s_ok(s),
            VExpr::Bin(op, a, b) => VECTOR_OPS.contains(op) && v_ok(a) && v_ok(b),
        }
    }
    if v.stmts.len() > MAX_STMTS {
        return Err(format!("{} vector statements", v.stmts.len()));
    }
    let ok = v.stmts.iter().all(|s| match s {
        VStmt::Assign { dst, mask, value } => {
            *dst < VVARS && (1..=15).contains(mask) && v_ok(value)
        }
        VStmt::Scalar(e) => s_ok(e),
    });
    ok.then_some(()).ok_or_else(|| {
        "a vector statement names a variable, component, mask or operator it cannot".into()
    })
}

impl VectorBlock {
    /// The features a reduced block kept, for signatures: operator names, `swizzle` (a
    /// non-identity swizzle), `mask` (a partial write mask), `extract`, `splat`.
    pub fn ops(&self, out: &mut Vec<&'static str>) {
        fn s_ops(e: &SExpr, out: &mut Vec<&'static str>) {
            match e {
                SExpr::Comp(..) => out.push("extract"),
                SExpr::Bin(op, a, b) => {
                    out.push(op.name());
                    s_ops(a, out);
                    s_ops(b, out);
                }
                _ => {}
            }
        }
        fn v_ops(e: &VExpr, out: &mut Vec<&'static str>) {
            match e {
                VExpr::Var(_, swz) if *swz != IDENTITY => out.push("swizzle"),
                VExpr::Var(..) => {}
                VExpr::Splat(s) => {
                    out.push("splat");
                    s_ops(s, out);
                }
                VExpr::Bin(op, a, b) => {
                    out.push(op.name());
                    v_ops(a, out);
                    v_ops(b, out);
                }
            }
        }
        for s in &self.stmts {
            match s {
                VStmt::Assign { mask, value, .. } => {
                    if *mask != 15 {
                        out.push("mask");
                    }
                    v_ops(value, out);
                }
                VStmt::Scalar(e) => s_ops(e, out),
            }
        }
    }
}
