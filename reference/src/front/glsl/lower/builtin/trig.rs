//! The angle, trigonometry and exponential functions of GLSL 4.60 §8.1 and §8.2. The
//! transcendental ones are the host's `f32`/`f64` functions (GLSL leaves the precision of the
//! trigonometric ones undefined and bounds the exponential ones in ULP, §4.7.1: cases compare
//! with tolerances); radians and degrees are one multiplication by the rounded constant, as
//! their definitions (π/180 · degrees) are written.

use super::gentype::{F, FD, P};
use crate::front::glsl::lower::{Lower, Value, R};
use crate::ir::{BinOp, UnOp};
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
            return Ok(Value::V(self.bin(op, v[0].clone(), v[1].clone())));
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
        Ok(Value::V(self.un(op, x)))
    }
}
