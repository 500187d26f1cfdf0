//! The float sub-grammar's syntax: [`FExpr`], its leaves, operators, rounding modes and target
//! types, with the bounds that keep every value exact and the simpler forms the reducer tries.
//! Its evaluation is the model's (`FExpr::eval` and `f_to_i` in `crate::oracles::model::value`).
//!
//! Exact float arithmetic in the integer grammar: [`Expr::FToI`] converts a float expression
//! ([`FExpr`]) back to an integer with a rounding mode, a target type and an optional
//! saturation (NV_gpu_program5 `CVT`, NV_gpu_program4 `FLR/CEIL/TRUNC/ROUND` with an integer
//! data type, GLSL `floor/ceil/trunc/roundEven` then `int()`/`uint()`, SPIR-V GLSL.std.450
//! rounding then `OpConvertFToS`/`OpConvertFToU`).
//!
//! The model stays exact because every float value the program computes is exactly
//! representable in f32, whatever order a compiler evaluates sums and products in: a leaf is
//! `float(bitfieldExtract(x, 0, bits)) * 2^scale`, and [`FExpr::bounds`] tracks, for every
//! node, a grid (`2^lo` divides the value) and a magnitude (`|value| < 2^hi`) that also bound
//! every partial sum and product of a reassociated tree (GLSL 4.60 section 4.7.1 lets
//! compilers reorder and contract operations that are not `precise`). A node with
//! `hi - lo <= 24` fits f32's significand, so `+`, `-`, `*`, `fma` and the clamp of
//! saturation give the mathematical result in every language, rounding mode and
//! contraction (`fma` as a separate multiply and add is exact too). `hi <= 30` keeps every
//! conversion to a 32-bit integer in range, where GLSL and SPIR-V define it.

use super::Expr;
use serde::{Deserialize, Serialize};

/// A float expression (f32 in every language), exact by [`FExpr::exact`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FExpr {
    /// An integer leaf, converted and scaled exactly.
    Int(FLeaf),
    Bin(FOp, Box<FExpr>, Box<FExpr>),
    /// `a * b + c` (GLSL `fma`, NV `MAD.F`, GLSL.std.450 `Fma`).
    Fma(Box<FExpr>, Box<FExpr>, Box<FExpr>),
    /// Clamped to `[0, 1]` (NV `.SAT` on the instruction that computes it, GLSL
    /// `clamp(x, 0.0, 1.0)`, GLSL.std.450 `FClamp`).
    Sat(Box<FExpr>),
}

/// `float(bitfieldExtract(value, 0, bits)) * 2^scale` (signed or unsigned extract,
/// `1 <= bits <= 24`): an integer small enough to convert exactly, scaled exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FLeaf {
    pub value: Box<Expr>,
    pub bits: u8,
    pub signed: bool,
    pub scale: i8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FOp {
    Add,
    Sub,
    Mul,
}

impl FOp {
    pub const ALL: [FOp; 3] = [FOp::Add, FOp::Sub, FOp::Mul];

    pub fn name(self) -> &'static str {
        match self {
            FOp::Add => "fadd",
            FOp::Sub => "fsub",
            FOp::Mul => "fmul",
        }
    }
}

/// How a float becomes an integer (NV_gpu_program5 CVT's rounding modifiers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Round {
    /// Towards zero (`TRUNC`, GLSL `int()` alone, `OpConvertFToS` alone).
    Trunc,
    /// Towards negative infinity (`FLR`, `floor`).
    Floor,
    /// Towards positive infinity (`CEIL`, `ceil`).
    Ceil,
    /// To nearest, ties to even (`ROUND`: NV_gpu_program5 CVT; GLSL `roundEven`; GLSL's
    /// `round` leaves ties to the implementation, so it is not used).
    Even,
}

impl Round {
    pub const ALL: [Round; 4] = [Round::Trunc, Round::Floor, Round::Ceil, Round::Even];

    pub fn name(self) -> &'static str {
        match self {
            Round::Trunc => "trunc",
            Round::Floor => "floor",
            Round::Ceil => "ceil",
            Round::Even => "roundeven",
        }
    }

    pub fn apply(self, x: f64) -> f64 {
        match self {
            Round::Trunc => x.trunc(),
            Round::Floor => x.floor(),
            Round::Ceil => x.ceil(),
            Round::Even => x.round_ties_even(),
        }
    }
}

/// The integer type a conversion produces, widened back to 32 bits (sign- or zero-extended)
/// as NV_gpu_program5's CVT does for a 32-bit register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IntTy {
    S32,
    U32,
    S16,
    U16,
    S8,
    U8,
}

impl IntTy {
    pub const ALL: [IntTy; 6] = [
        IntTy::S32,
        IntTy::U32,
        IntTy::S16,
        IntTy::U16,
        IntTy::S8,
        IntTy::U8,
    ];

    pub fn signed(self) -> bool {
        matches!(self, IntTy::S32 | IntTy::S16 | IntTy::S8)
    }

    pub fn bits(self) -> u32 {
        match self {
            IntTy::S32 | IntTy::U32 => 32,
            IntTy::S16 | IntTy::U16 => 16,
            IntTy::S8 | IntTy::U8 => 8,
        }
    }

    /// The NV assembly storage modifier (`S8`, `U32`, ...).
    pub fn nv(self) -> &'static str {
        match self {
            IntTy::S32 => "S32",
            IntTy::U32 => "U32",
            IntTy::S16 => "S16",
            IntTy::U16 => "U16",
            IntTy::S8 => "S8",
            IntTy::U8 => "U8",
        }
    }

    /// The range of the type, as i64.
    pub fn range(self) -> (i64, i64) {
        let b = self.bits();
        if self.signed() {
            (-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1)
        } else {
            (0, (1i64 << b) - 1)
        }
    }

    /// The integer `r` in this type (clamped with `sat`, else its low bits: NV_gpu_program5
    /// CVT, "Integer values are clamped ... if SAT ... drop the most significant bits if
    /// not"), extended back to 32 bits.
    pub fn convert(self, r: i64, sat: bool) -> u32 {
        let (lo, hi) = self.range();
        let v = if sat { r.clamp(lo, hi) } else { r };
        let b = self.bits();
        let low = (v as u64) & ((1u64 << b) - 1);
        if self.signed() && b < 64 && low >> (b - 1) & 1 == 1 {
            (low | !((1u64 << b) - 1)) as u32
        } else {
            low as u32
        }
    }
}

/// Grid and magnitude of a float expression: every value (and every partial result of a
/// reassociated evaluation) is a multiple of `2^lo` below `2^hi` in magnitude.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lo: i32,
    pub hi: i32,
}

/// Significand bits of f32 (with the implicit one).
const F32_BITS: i32 = 24;

impl FExpr {
    /// The bounds of this expression and whether every node of it is exact in f32 and in the
    /// range where conversions to 32-bit integers are defined.
    pub fn bounds(&self) -> (Bounds, bool) {
        let fits = |b: Bounds| b.hi - b.lo <= F32_BITS && b.hi <= 30 && b.lo >= -100;
        match self {
            FExpr::Int(l) => {
                let s = i32::from(l.scale);
                let b = Bounds {
                    lo: s,
                    hi: i32::from(l.bits) + s,
                };
                (b, (1..=24).contains(&l.bits) && fits(b))
            }
            FExpr::Bin(op, a, b) => {
                let ((x, ox), (y, oy)) = (a.bounds(), b.bounds());
                let r = combine(*op, x, y);
                (r, ox && oy && fits(r))
            }
            FExpr::Fma(a, b, c) => {
                let ((x, ox), (y, oy), (z, oz)) = (a.bounds(), b.bounds(), c.bounds());
                let p = combine(FOp::Mul, x, y);
                let r = combine(FOp::Add, p, z);
                (r, ox && oy && oz && fits(p) && fits(r))
            }
            FExpr::Sat(a) => {
                let (x, ok) = a.bounds();
                let r = Bounds {
                    lo: x.lo.min(0),
                    hi: x.hi.min(1),
                };
                (r, ok && fits(r))
            }
        }
    }

    pub fn exact(&self) -> bool {
        self.bounds().1
    }

    /// The integer expressions at the leaves, in order.
    pub fn int_leaves(&self) -> Vec<&Expr> {
        match self {
            FExpr::Int(l) => vec![&l.value],
            FExpr::Bin(_, a, b) => [a.int_leaves(), b.int_leaves()].concat(),
            FExpr::Fma(a, b, c) => [a.int_leaves(), b.int_leaves(), c.int_leaves()].concat(),
            FExpr::Sat(a) => a.int_leaves(),
        }
    }

    /// [`FExpr::int_leaves`], to rewrite in place.
    pub fn int_leaves_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            FExpr::Int(l) => vec![&mut l.value],
            FExpr::Bin(_, a, b) => {
                let mut v = a.int_leaves_mut();
                v.extend(b.int_leaves_mut());
                v
            }
            FExpr::Fma(a, b, c) => {
                let mut v = a.int_leaves_mut();
                v.extend(b.int_leaves_mut());
                v.extend(c.int_leaves_mut());
                v
            }
            FExpr::Sat(a) => a.int_leaves_mut(),
        }
    }

    /// The direct float sub-expressions.
    pub fn children(&self) -> Vec<&FExpr> {
        match self {
            FExpr::Int(_) => vec![],
            FExpr::Bin(_, a, b) => vec![a, b],
            FExpr::Fma(a, b, c) => vec![a, b, c],
            FExpr::Sat(a) => vec![a],
        }
    }

    fn children_mut(&mut self) -> Vec<&mut FExpr> {
        match self {
            FExpr::Int(_) => vec![],
            FExpr::Bin(_, a, b) => vec![a, b],
            FExpr::Fma(a, b, c) => vec![a, b, c],
            FExpr::Sat(a) => vec![a],
        }
    }

    /// The float operator names used, for signatures.
    pub fn ops(&self, out: &mut Vec<&'static str>) {
        match self {
            FExpr::Int(_) => out.push("i2f"),
            FExpr::Bin(op, ..) => out.push(op.name()),
            FExpr::Fma(..) => out.push("fma"),
            FExpr::Sat(_) => out.push("fsat"),
        }
        self.children().into_iter().for_each(|c| c.ops(out));
    }

    /// Simpler float expressions for the reducer: the canonical leaf or a child in place of
    /// an operator, `fadd` in
    /// place of another operator, an unscaled or narrower leaf, then one child shrunk. Integer
    /// leaves are shrunk by the integer reducer (`Expr::children`).
    pub fn shrink(&self) -> Vec<FExpr> {
        let mut out = Vec::new();
        if !matches!(self, FExpr::Int(_)) {
            // The canonical float, -2.5: a fraction, negative, a tie. Only in place of an
            // operator (fewer nodes), so reduction cannot cycle.
            out.push(FExpr::Int(FLeaf {
                value: Box::new(Expr::Const(0xFFFF_FFFB)),
                bits: 8,
                signed: true,
                scale: -1,
            }));
        }
        out.extend(self.children().into_iter().cloned());
        match self {
            FExpr::Bin(op, a, b) if *op != FOp::Add => {
                out.push(FExpr::Bin(FOp::Add, a.clone(), b.clone()))
            }
            FExpr::Fma(a, b, c) => {
                out.push(FExpr::Bin(FOp::Mul, a.clone(), b.clone()));
                out.push(FExpr::Bin(FOp::Add, a.clone(), c.clone()));
            }
            FExpr::Int(l) => {
                let with = |edit: &dyn Fn(&mut FLeaf)| {
                    let mut x = l.clone();
                    edit(&mut x);
                    FExpr::Int(x)
                };
                if l.scale != 0 {
                    out.push(with(&|x| x.scale = 0));
                }
                if l.signed {
                    out.push(with(&|x| x.signed = false));
                }
                for b in [1, 4, 8] {
                    if b < l.bits {
                        out.push(with(&|x| x.bits = b));
                    }
                }
            }
            _ => {}
        }
        for (i, child) in self.children().into_iter().enumerate() {
            for smaller in child.shrink() {
                let mut x = self.clone();
                *x.children_mut()[i] = smaller;
                out.push(x);
            }
        }
        out
    }
}

fn combine(op: FOp, x: Bounds, y: Bounds) -> Bounds {
    match op {
        FOp::Add | FOp::Sub => Bounds {
            lo: x.lo.min(y.lo),
            hi: x.hi.max(y.hi) + 1,
        },
        // Any product of a subset of the factors stays within these (factors below 1 or on
        // a coarse grid are counted as 1: a reassociated product may leave them out).
        FOp::Mul => Bounds {
            lo: x.lo.min(0) + y.lo.min(0),
            hi: x.hi.max(0) + y.hi.max(0),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracles::model::value::{f_to_i, Env};
    use quickcheck::quickcheck;

    fn int(v: u32, bits: u8, signed: bool, scale: i8) -> FExpr {
        FExpr::Int(FLeaf {
            value: Box::new(Expr::Const(v)),
            bits,
            signed,
            scale,
        })
    }

    #[test]
    fn conversions_follow_cvt() {
        // NV_gpu_program5 CVT: SAT clamps, otherwise the high bits drop.
        assert_eq!(IntTy::U8.convert(300, false), 44);
        assert_eq!(IntTy::U8.convert(300, true), 255);
        assert_eq!(IntTy::U8.convert(-5, false), 251);
        assert_eq!(IntTy::U8.convert(-5, true), 0);
        assert_eq!(IntTy::S8.convert(200, false), (-56i32) as u32);
        assert_eq!(IntTy::S8.convert(200, true), 127);
        assert_eq!(IntTy::S16.convert(-40000, true), (-32768i32) as u32);
        assert_eq!(IntTy::U32.convert(-1, false), u32::MAX);
        assert_eq!(IntTy::U32.convert(-1, true), 0);
        assert_eq!(IntTy::S32.convert(-7, false), (-7i32) as u32);
        let env = Env::default();
        // -2.5 in every rounding mode.
        let x = int(0xFFFF_FFFB, 8, true, -1);
        let r = |round| f_to_i(&x, round, IntTy::S32, false, &env) as i32;
        assert_eq!(
            [
                r(Round::Trunc),
                r(Round::Floor),
                r(Round::Ceil),
                r(Round::Even)
            ],
            [-2, -3, -2, -2]
        );
    }

    #[test]
    fn bounds_reject_what_f32_cannot_hold() {
        assert!(int(7, 24, false, 0).exact());
        assert!(!int(7, 25, false, 0).exact());
        // 2^-8 and 2^16 apart: 2^16 + 2^-8 needs 25 bits.
        let sum = |a, b| FExpr::Bin(FOp::Add, Box::new(a), Box::new(b));
        assert!(!sum(int(1, 16, false, 0), int(1, 1, false, -8)).exact());
        assert!(sum(int(1, 8, false, 0), int(1, 8, false, -8)).exact());
        let prod = FExpr::Bin(
            FOp::Mul,
            Box::new(int(1, 16, true, 0)),
            Box::new(int(1, 16, true, 0)),
        );
        assert!(!prod.exact());
    }

    quickcheck! {
        /// What the bounds admit is exact in f32: evaluating in f32 in the program's order
        /// gives the exact (f64) value.
        fn admitted_trees_are_exact_in_f32(a: u32, b: u32, c: u32, bits: (u8, u8, u8), scale: (i8, i8, i8), shape: u8) -> bool {
            let leaf = |v, b: u8, s: i8| int(v, 1 + b % 24, v & 1 == 1, s % 9);
            let (x, y, z) = (leaf(a, bits.0, scale.0), leaf(b, bits.1, scale.1), leaf(c, bits.2, scale.2));
            let e = match shape % 4 {
                0 => FExpr::Bin(FOp::Add, Box::new(x), Box::new(y)),
                1 => FExpr::Bin(FOp::Mul, Box::new(x), Box::new(y)),
                2 => FExpr::Fma(Box::new(x), Box::new(y), Box::new(z)),
                _ => FExpr::Sat(Box::new(FExpr::Bin(FOp::Sub, Box::new(x), Box::new(y)))),
            };
            if !e.exact() {
                return true;
            }
            fn f32_eval(e: &FExpr, env: &Env) -> f32 {
                match e {
                    FExpr::Int(_) => e.eval(env) as f32,
                    FExpr::Bin(FOp::Add, a, b) => f32_eval(a, env) + f32_eval(b, env),
                    FExpr::Bin(FOp::Sub, a, b) => f32_eval(a, env) - f32_eval(b, env),
                    FExpr::Bin(FOp::Mul, a, b) => f32_eval(a, env) * f32_eval(b, env),
                    FExpr::Fma(a, b, c) => f32_eval(a, env) * f32_eval(b, env) + f32_eval(c, env),
                    FExpr::Sat(a) => f32_eval(a, env).clamp(0.0, 1.0),
                }
            }
            let env = Env::default();
            f64::from(f32_eval(&e, &env)) == e.eval(&env)
        }
    }
}
