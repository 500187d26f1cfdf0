//! The vector relational functions of GLSL 4.60 §8.7 (with GL_ARB_gpu_shader_int64's 64-bit
//! integer vectors): lessThan, lessThanEqual, greaterThan, greaterThanEqual, equal, notEqual
//! (vectors only), any, all and not (bool vectors only).

use super::gentype::{NUMERIC, P};
use crate::front::glsl::lower::{Lower, Value, R};
use crate::front::glsl::types::Sc;
use crate::ir::{CmpOp, UnOp};
use glsl_lang::ast;

/// The names this module lowers.
pub(super) fn is_relational(name: &str) -> bool {
    matches!(
        name,
        "lessThan"
            | "lessThanEqual"
            | "greaterThan"
            | "greaterThanEqual"
            | "equal"
            | "notEqual"
            | "any"
            | "all"
            | "not"
    )
}

impl<'a> Lower<'a> {
    pub(super) fn relational_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let vs = self.args_rv(args)?;
        let vector = |s: &Self, n: u8| -> R<()> {
            if n < 2 {
                let tys: Vec<String> = vs.iter().map(|v| v.ty.to_string()).collect();
                return s.no_overload(name, tys.join(", "));
            }
            Ok(())
        };
        if matches!(name, "any" | "all" | "not") {
            let (_, n, v) = self.gen_call(name, &vs, &[Sc::Bool], &[&[P::Gen]])?;
            vector(self, n)?;
            return Ok(Value::V(match name {
                "any" => self.reduce(v[0].clone(), false),
                "all" => self.reduce(v[0].clone(), true),
                _ => self.un(UnOp::Not, v[0].clone()),
            }));
        }
        let op = match name {
            "lessThan" => CmpOp::Lt,
            "lessThanEqual" => CmpOp::Le,
            "greaterThan" => CmpOp::Gt,
            "greaterThanEqual" => CmpOp::Ge,
            "equal" => CmpOp::Eq,
            _ => CmpOp::Ne,
        };
        let with_bool: Vec<Sc> = NUMERIC.iter().copied().chain([Sc::Bool]).collect();
        let families: &[Sc] = if matches!(op, CmpOp::Eq | CmpOp::Ne) {
            &with_bool
        } else {
            NUMERIC
        };
        let (_, n, v) = self.gen_call(name, &vs, families, &[&[P::Gen, P::Gen]])?;
        vector(self, n)?;
        Ok(Value::V(self.cmp(op, v[0].clone(), v[1].clone())))
    }
}
