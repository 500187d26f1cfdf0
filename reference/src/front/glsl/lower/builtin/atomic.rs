//! The atomic memory functions (`atomicAdd`, ..., `atomicCompSwap`) on scalar buffer and shared
//! variables, with the float/double forms of the atomic-float extensions and the 64-bit forms of
//! GL_NV_shader_atomic_int64.

use crate::front::glsl::lower::place::{Addr, Place};
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{AtomicOp, Dst, Inst, Space, Src};
use glsl_lang::ast;

impl<'a> Lower<'a> {
    pub(super) fn atomic(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let n = if name == "atomicCompSwap" { 3 } else { 2 };
        self.want_args(name, args, n)?;
        let p = self.place_of(&args[0])?;
        let (space, addr, sc) = match &p {
            Place::Mem {
                space:
                    space @ (Space::Storage(_)
                    | Space::Shared
                    | Space::BlockArray { uniform: false, .. }),
                addr,
                ty: Ty::V(sc, 1),
                swz,
                vstride,
                ro,
                ..
            } => {
                if *ro {
                    return self.err(format!("'{name}': the mem argument is read-only"));
                }
                // A component of a vector: its lanes are `vstride` apart in a column of a
                // row-major matrix, adjacent otherwise.
                let step = if *vstride != 0 { *vstride } else { sc.bytes() };
                let off = match swz {
                    Some(s) => addr.off.wrapping_add(u32::from(s[0]).wrapping_mul(step)),
                    None => addr.off,
                };
                (
                    *space,
                    Addr {
                        dynr: addr.dynr,
                        off,
                    },
                    *sc,
                )
            }
            _ => {
                return self.err(format!(
                "'{name}': the mem argument must be a scalar buffer or shared variable (found {})",
                p.ty()
            ))
            }
        };
        let op = match name {
            "atomicAdd" => AtomicOp::Add,
            "atomicMin" => AtomicOp::Min,
            "atomicMax" => AtomicOp::Max,
            "atomicAnd" => AtomicOp::And,
            "atomicOr" => AtomicOp::Or,
            "atomicXor" => AtomicOp::Xor,
            "atomicExchange" => AtomicOp::Exch,
            _ => AtomicOp::CmpXchg,
        };
        // Float and double atomics: add and exchange only, with an atomic-float extension.
        // 64-bit integers, with GL_NV_shader_atomic_int64, whose GLSL section lists min, max,
        // and, or and xor for int64_t and uint64_t, but add, exchange and compare-swap for
        // int64_t only (as Mesa implements it).
        if matches!(sc, Sc::Int64 | Sc::Uint64) {
            let t = sc.name();
            let listed = sc == Sc::Int64
                || !matches!(name, "atomicAdd" | "atomicExchange" | "atomicCompSwap");
            if !self.has_ext("GL_NV_shader_atomic_int64") || !listed {
                let hint = if listed {
                    " (64-bit integer atomics need #extension GL_NV_shader_atomic_int64)"
                } else {
                    " (GL_NV_shader_atomic_int64 has it for int64_t only)"
                };
                return self.err(format!(
                    "no matching overloaded function found: '{name}({t}, {t})'{hint}"
                ));
            }
        }
        // Float and double atomics come with extensions: add and exchange with
        // GL_NV_shader_atomic_float / GL_EXT_shader_atomic_float (double: the EXT one only);
        // min, max, exchange and compare-swap on float with GL_INTEL_shader_atomic_float_minmax.
        let add_ext = match sc {
            Sc::Float => {
                self.has_ext("GL_NV_shader_atomic_float")
                    || self.has_ext("GL_EXT_shader_atomic_float")
            }
            _ => self.has_ext("GL_EXT_shader_atomic_float"),
        };
        let minmax_ext = sc == Sc::Float && self.has_ext("GL_INTEL_shader_atomic_float_minmax");
        let float_ok = match op {
            AtomicOp::Add => add_ext,
            AtomicOp::Exch => add_ext || minmax_ext,
            AtomicOp::Min | AtomicOp::Max | AtomicOp::CmpXchg => minmax_ext,
            _ => false,
        };
        match sc {
            Sc::Float | Sc::Double if !float_ok => {
                let t = sc.name();
                return self.err(format!(
                    "no matching overloaded function found: '{name}({t}, {t})' ({t} atomics need #extension GL_NV_shader_atomic_float or GL_EXT_shader_atomic_float (add, exchange) or GL_INTEL_shader_atomic_float_minmax (float min, max, exchange, compare-swap))"
                ));
            }
            Sc::Bool => {
                return self.err(format!(
                    "no matching overloaded function found: '{name}' on {}",
                    p.ty()
                ))
            }
            _ => {}
        }
        let mut ops = Vec::new();
        for a in &args[1..] {
            let v = self.rv(a)?;
            ops.push(self.implicit(v, &Ty::V(sc, 1))?);
        }
        let a_src = ops[0].src;
        let b_src = ops.get(1).map(|v| v.src).unwrap_or(a_src);
        self.at(&args[0].span);
        let asrc = self.addr_src(addr);
        let t = self.tmp();
        self.emit(Inst::Atomic {
            space,
            op,
            ty: sc.ir(),
            dst: Some(Dst::masked(t, 1)),
            addr: asrc,
            a: a_src,
            b: b_src,
        });
        Ok(Value::V(V {
            src: Src::new(t),
            ty: Ty::V(sc, 1),
            k: None,
        }))
    }
}
