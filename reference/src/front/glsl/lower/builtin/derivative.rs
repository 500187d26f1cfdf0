//! The derivative functions of GLSL 4.60 §8.14.1 in compute shaders
//! (GL_NV_compute_shader_derivatives): `dFdx`, `dFdy`, `fwidth` and their `Fine`/`Coarse`
//! forms, on genFType. With a derivative group (`layout(derivative_group_quadsNV) in;` or
//! `..._linearNV`) they lower to `Inst::Derivative` (fwidth to `abs(dFdx(p)) + abs(dFdy(p))`
//! of the same kind, as §8.14.1 defines it); without, "derivatives evaluated for compute
//! shaders will return zero" (the argument is still evaluated).

use super::gentype::{F, P};
use crate::front::glsl::lower::{Lower, Value, R, V};

use crate::ir::{BinOp, DerivAxis, DerivKind, Dst, Inst, Src, UnOp};
use glsl_lang::ast;

/// The extension that makes the derivative functions available in compute shaders.
const DERIVATIVES: &str = "GL_NV_compute_shader_derivatives";

/// The names this module lowers.
pub(super) fn is_derivative_fn(name: &str) -> bool {
    matches!(
        name,
        "dFdx"
            | "dFdy"
            | "dFdxFine"
            | "dFdyFine"
            | "dFdxCoarse"
            | "dFdyCoarse"
            | "fwidth"
            | "fwidthFine"
            | "fwidthCoarse"
    )
}

impl<'a> Lower<'a> {
    pub(super) fn derivative_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        if !self.has_ext(DERIVATIVES) {
            return self.err(format!(
                "'{name}' : no matching overloaded function found (derivatives are available in compute shaders only with #extension {DERIVATIVES})"
            ));
        }
        let vs = self.args_rv(args)?;
        let (_, _, v) = self.gen_call(name, &vs, F, &[&[P::Gen]])?;
        let p = v[0].clone();
        let kind = if name.ends_with("Fine") {
            DerivKind::Fine
        } else if name.ends_with("Coarse") {
            DerivKind::Coarse
        } else {
            DerivKind::Either
        };
        if name.starts_with("fwidth") {
            let dx = self.derivative(p.clone(), DerivAxis::X, kind);
            let dy = self.derivative(p, DerivAxis::Y, kind);
            let ax = self.un(UnOp::Abs, dx);
            let ay = self.un(UnOp::Abs, dy);
            return Ok(Value::V(self.bin(BinOp::Add, ax, ay)));
        }
        let axis = if name.starts_with("dFdx") {
            DerivAxis::X
        } else {
            DerivAxis::Y
        };
        Ok(Value::V(self.derivative(p, axis, kind)))
    }

    /// The derivative of `p` (float or vecN) along `axis` over the program's derivative group,
    /// or 0 without one.
    fn derivative(&mut self, p: V, axis: DerivAxis, kind: DerivKind) -> V {
        let ty = p.ty.clone();
        let Some(group) = self.derivative_group else {
            return self.k_float(&ty, 0.0);
        };
        let n = ty.lanes();
        let t = self.tmp();
        self.emit(Inst::Derivative {
            group,
            axis,
            kind,
            lanes: n,
            dst: Dst::lanes(t, n),
            a: p.src,
        });
        V {
            src: Src::new(t),
            ty,
            k: None,
        }
    }
}
