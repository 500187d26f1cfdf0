//! The angle, trigonometry and exponential functions of GLSL 4.60 §8.1 and §8.2. The
//! transcendental ones are the host's `f32`/`f64` functions (GLSL leaves the precision of the
//! trigonometric ones undefined and bounds the exponential ones in ULP, §4.7.1: cases compare
//! with tolerances); radians and degrees are one multiplication by the rounded constant, as
//! their definitions (π/180 · degrees) are written. Where the spec leaves a result undefined
//! (asin/acos of |x| > 1, atan(0, 0), acosh of x < 1, atanh of |x| >= 1, pow of x < 0 or of
//! 0 to y <= 0, log/log2 of x <= 0, sqrt of x < 0, inversesqrt of x <= 0), the host's value is
//! computed and the lanes are marked undefined (`MarkUndefined`), flagged where used.

use super::gentype::{F, FD, P};
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::ir::{BinOp, CmpOp, UnOp, UndefinedRule};
use glsl_lang::ast;

/// The names this module lowers.
pub(super) fn is_trig(name: &str) -> bool {
    matches!(
        name,
        "radians"
            | "degrees"
            | "sin"
            | "cos"
            | "tan"
            | "asin"
            | "acos"
            | "atan"
            | "sinh"
            | "cosh"
            | "tanh"
            | "asinh"
            | "acosh"
            | "atanh"
            | "pow"
            | "exp"
            | "log"
            | "exp2"
            | "log2"
            | "sqrt"
            | "inversesqrt"
    )
}

impl<'a> Lower<'a> {
    pub(super) fn trig_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        use P::*;
        let vs = self.args_rv(args)?;
        // sqrt and inversesqrt also take doubles; the others floats only (genFType).
        let families = if matches!(name, "sqrt" | "inversesqrt") {
            FD
        } else {
            F
        };
        if matches!(name, "pow" | "atan") && vs.len() == 2 {
            let (_, _, v) = self.gen_call(name, &vs, F, &[&[Gen, Gen]])?;
            let op = if name == "pow" {
                BinOp::Pow
            } else {
                BinOp::Atan2
            };
            let r = self.bin(op, v[0].clone(), v[1].clone());
            let rule = if name == "pow" {
                UndefinedRule::PowDomain
            } else {
                UndefinedRule::Atan2Origin
            };
            return Ok(Value::V(self.float_domain(r, rule, &v[0], Some(&v[1]))));
        }
        let (_, _, v) = self.gen_call(name, &vs, families, &[&[Gen]])?;
        let x = v[0].clone();
        let op = match name {
            "radians" | "degrees" => {
                let k = if name == "radians" {
                    std::f64::consts::PI / 180.0
                } else {
                    180.0 / std::f64::consts::PI
                };
                let k = self.k_float(&x.ty, k);
                return Ok(Value::V(self.bin(BinOp::Mul, k, x)));
            }
            "sin" => UnOp::Sin,
            "cos" => UnOp::Cos,
            "tan" => UnOp::Tan,
            "asin" => UnOp::Asin,
            "acos" => UnOp::Acos,
            "atan" => UnOp::Atan,
            "sinh" => UnOp::Sinh,
            "cosh" => UnOp::Cosh,
            "tanh" => UnOp::Tanh,
            "asinh" => UnOp::Asinh,
            "acosh" => UnOp::Acosh,
            "atanh" => UnOp::Atanh,
            "exp" => UnOp::Exp,
            "log" => UnOp::Log,
            "exp2" => UnOp::Exp2,
            "log2" => UnOp::Log2,
            "sqrt" => UnOp::Sqrt,
            "inversesqrt" => UnOp::Rsq,
            _ => return self.no_overload(name, &x.ty),
        };
        let rule = match op {
            UnOp::Asin | UnOp::Acos => UndefinedRule::AsinAcosDomain,
            UnOp::Acosh => UndefinedRule::AcoshDomain,
            UnOp::Atanh => UndefinedRule::AtanhDomain,
            UnOp::Log | UnOp::Log2 => UndefinedRule::LogDomain,
            UnOp::Sqrt => UndefinedRule::SqrtDomain,
            UnOp::Rsq => UndefinedRule::InverseSqrtDomain,
            _ => return Ok(Value::V(self.un(op, x))),
        };
        let r = self.un(op, x.clone());
        Ok(Value::V(self.float_domain(r, rule, &x, None)))
    }

    /// `r`, the result of the function of `rule` on `x` (and `y`), with the lanes where the
    /// spec leaves it undefined marked (the condition folds for constant operands, so a
    /// constant expression where the result is defined stays a constant).
    fn float_domain(&mut self, r: V, rule: UndefinedRule, x: &V, y: Option<&V>) -> V {
        use CmpOp::*;
        let c = |s: &mut Self, op: CmpOp, a: &V, k: f64| {
            let k = s.k_float(&a.ty, k);
            s.cmp(op, a.clone(), k)
        };
        let y = y.unwrap_or(x);
        let cond = match rule {
            UndefinedRule::PowDomain => {
                let neg = c(self, Lt, x, 0.0);
                let zero = c(self, Eq, x, 0.0);
                let y_le = c(self, Le, y, 0.0);
                let both = self.bool_op(BinOp::And, zero, y_le);
                self.bool_op(BinOp::Or, neg, both)
            }
            UndefinedRule::Atan2Origin => {
                let a = c(self, Eq, x, 0.0);
                let b = c(self, Eq, y, 0.0);
                self.bool_op(BinOp::And, a, b)
            }
            UndefinedRule::AsinAcosDomain => {
                let hi = c(self, Gt, x, 1.0);
                let lo = c(self, Lt, x, -1.0);
                self.bool_op(BinOp::Or, hi, lo)
            }
            UndefinedRule::AtanhDomain => {
                let hi = c(self, Ge, x, 1.0);
                let lo = c(self, Le, x, -1.0);
                self.bool_op(BinOp::Or, hi, lo)
            }
            UndefinedRule::AcoshDomain => c(self, Lt, x, 1.0),
            UndefinedRule::SqrtDomain => c(self, Lt, x, 0.0),
            _ => c(self, Le, x, 0.0),
        };
        self.mark_undefined(r, cond, rule)
    }
}
