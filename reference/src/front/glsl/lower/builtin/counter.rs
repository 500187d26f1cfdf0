//! The atomic counter functions of GLSL 4.60 §8.10 beyond increment/decrement/read:
//! atomicCounterAdd, -Subtract, -Min, -Max, -And, -Or, -Xor, -Exchange and -CompSwap (core
//! in 4.60), and the same functions with an `ARB` suffix that GL_ARB_shader_atomic_counter_ops
//! declares where it is enabled. Each returns the counter's value before the operation;
//! Subtract adds the two's complement of `data` (wrapping, as the counter is a uint).

use crate::front::glsl::lower::place::{Addr, Place};
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::Ty;
use crate::ir::{AtomicOp, Dst, Inst, ScalarTy, Space, Src, Ty as ITy, UnOp};
use glsl_lang::ast;

/// The names this module lowers.
pub(super) fn is_counter_op(name: &str) -> bool {
    counter_op(name).is_some()
}

fn counter_op(name: &str) -> Option<AtomicOp> {
    let name = name.strip_suffix("ARB").unwrap_or(name);
    Some(match name {
        "atomicCounterAdd" | "atomicCounterSubtract" => AtomicOp::Add,
        "atomicCounterMin" => AtomicOp::Min,
        "atomicCounterMax" => AtomicOp::Max,
        "atomicCounterAnd" => AtomicOp::And,
        "atomicCounterOr" => AtomicOp::Or,
        "atomicCounterXor" => AtomicOp::Xor,
        "atomicCounterExchange" => AtomicOp::Exch,
        "atomicCounterCompSwap" => AtomicOp::CmpXchg,
        _ => return None,
    })
}

impl<'a> Lower<'a> {
    /// The counter an atomic counter function's first argument names: its space and address.
    pub(super) fn counter_place(&mut self, name: &str, arg: &ast::Expr) -> R<(Space, Addr)> {
        match self.place_of(arg)? {
            Place::Mem {
                space: space @ Space::AtomicCounter(_),
                addr,
                ty: Ty::AtomicUint,
                ..
            } => Ok((space, addr)),
            _ => self.err(format!("'{name}' needs an atomic_uint argument")),
        }
    }

    pub(super) fn counter_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let Some(op) = counter_op(name) else {
            return self.no_overload(name, "...");
        };
        let available = if name.ends_with("ARB") {
            self.has_ext("GL_ARB_shader_atomic_counter_ops")
        } else {
            let p = self.shaders[self.cur].parsed;
            !p.es && p.version.unwrap_or(110) >= 460
        };
        if !available {
            let needs = if name.ends_with("ARB") {
                "#extension GL_ARB_shader_atomic_counter_ops"
            } else {
                "#version 460"
            };
            return self.err(format!(
                "'{name}' : no matching overloaded function found (requires {needs})"
            ));
        }
        let n = if op == AtomicOp::CmpXchg { 3 } else { 2 };
        self.want_args(name, args, n)?;
        let (space, addr) = self.counter_place(name, &args[0])?;
        let mut data = Vec::with_capacity(n - 1);
        for a in &args[1..] {
            let v = self.rv(a)?;
            data.push(self.implicit(v, &Ty::UINT)?);
        }
        let u32x1 = ITy::new(ScalarTy::U32, 1);
        if name.starts_with("atomicCounterSubtract") {
            let neg = self.tmp();
            self.b
                .un(UnOp::Neg, u32x1, Dst::masked(neg, 1), data[0].src);
            data[0] = V {
                src: Src::new(neg),
                ty: Ty::UINT,
                k: None,
            };
        }
        // CmpXchg compares with `a` and stores `b`: (compare, data).
        let (a, b) = match data.as_slice() {
            [d] => (d.src, d.src),
            [c, d] => (c.src, d.src),
            _ => return self.err("internal: atomic counter arguments"),
        };
        let t = self.tmp();
        let at = self.addr_src(addr);
        self.emit(Inst::Atomic {
            space,
            op,
            ty: ScalarTy::U32,
            dst: Some(Dst::masked(t, 1)),
            addr: at,
            a,
            b,
        });
        Ok(Value::V(V {
            src: Src::new(t),
            ty: Ty::UINT,
            k: None,
        }))
    }
}
