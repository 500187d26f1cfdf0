//! The atomic counter functions of GLSL 4.60 §8.10 beyond increment/decrement/read:
//! atomicCounterAdd, -Subtract, -Min, -Max, -And, -Or, -Xor, -Exchange and -CompSwap (core
//! in 4.60), and the same functions with an `ARB` suffix that GL_ARB_shader_atomic_counter_ops
//! declares where it is enabled. Each returns the counter's value before the operation;
//! Subtract adds the two's complement of `data` (wrapping, as the counter is a uint).
//! Also `atomic_uint` function parameters (GLSL 4.60 §4.1.7: opaque `in` parameters): the
//! argument passes the counter's address ([`Space::CounterAddress`]).

use crate::front::glsl::lower::global::is_counter_type;
use crate::front::glsl::lower::place::{Addr, Place};
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Rule, Sc, Ty};
use crate::ir::{
    AtomicOp, BinOp, Dst, Inst, ScalarTy, Space, Src, Ty as ITy, UnOp, BLOCK_ARRAY_SHIFT,
};
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
                space: space @ (Space::AtomicCounter(_) | Space::CounterAddress),
                addr,
                ty: Ty::AtomicUint,
                ..
            } => Ok((space, addr)),
            _ => self.err(format!("'{name}' needs an atomic_uint argument")),
        }
    }

    /// What an `atomic_uint` (or array of them) argument passes: the counter's address, its
    /// buffer binding above [`BLOCK_ARRAY_SHIFT`] and its byte offset below, as a uint.
    pub(in crate::front::glsl::lower) fn counter_argument(&mut self, p: &Place) -> R<Value> {
        let (binding, addr) = match p {
            Place::Mem {
                space: Space::AtomicCounter(b),
                addr,
                ty,
                ..
            } if is_counter_type(ty) => (*b, *addr),
            Place::Mem {
                space: Space::CounterAddress,
                addr,
                ty,
                ..
            } if is_counter_type(ty) => (0, *addr),
            _ => {
                return self.err(format!(
                    "an argument of type {} where an atomic counter is expected",
                    p.ty()
                ))
            }
        };
        if binding > 0xFF || addr.off >> BLOCK_ARRAY_SHIFT != 0 {
            return self.unsup("an atomic counter argument at binding 256 or above");
        }
        let base = (binding << BLOCK_ARRAY_SHIFT) | addr.off;
        let k = self.k_u32(base);
        let Some(d) = addr.dynr else {
            return Ok(Value::V(k));
        };
        let u = ITy::new(ScalarTy::U32, 1);
        let r = self.b.bin_fresh(BinOp::Add, u, k.src, Src::new(d));
        Ok(Value::V(V {
            src: Src::new(r),
            ty: Ty::scalar(Sc::Uint),
            k: None,
        }))
    }

    /// The place an `atomic_uint` parameter of type `ty` names inside its function: the
    /// caller's counter, at the address the parameter slot holds.
    pub(in crate::front::glsl::lower) fn counter_parameter(
        &mut self,
        slot: &Place,
        ty: &Ty,
    ) -> R<Place> {
        let Value::V(v) = self.load(slot)? else {
            return self.err("internal: a counter parameter slot is not a scalar");
        };
        let v = self.snap(v);
        Ok(Place::Mem {
            space: Space::CounterAddress,
            addr: Addr {
                dynr: Some(v.src.reg),
                off: 0,
            },
            ty: ty.clone(),
            rule: Rule::STD430,
            swz: None,
            vstride: 0,
            ro: true,
        })
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
