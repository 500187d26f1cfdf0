//! Built-in functions and variables: the call dispatch (barriers, atomic counter
//! increment/decrement/read, the §8.15 noise functions and GL_ARB_shader_clock here; the other counter functions of
//! §8.10 in `counter`; the others in a submodule per section of GLSL 4.60 chapter 8: `common`,
//! `trig` (angle, trigonometry, exponential), `pack`, `geometric`, `matrix`, `integer`,
//! `relational`, `atomic`, `image` (§8.12), `shuffle` (NV), `subgroup`, `derivative` (§8.14.1 in
//! compute shaders, GL_NV_compute_shader_derivatives); overload resolution over gen types in
//! `gentype`), the built-in variables (`var`), and the names user functions may not redefine.

mod atomic;
mod common;
mod counter;
mod derivative;
mod gentype;
mod geometric;
mod image;
mod integer;
mod matrix;
mod pack;
mod relational;
mod shuffle;
mod subgroup;
mod texture;
mod trig;
mod var;

use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{AtomicOp, BinOp, Builtin, Dst, Inst, MemTy, ScalarTy, Scope, Src, Ty as ITy};
use glsl_lang::ast;

impl<'a> Lower<'a> {
    /// The compile error for a built-in called with arguments it has no overload for:
    /// `no matching overloaded function found: 'name(args)'`.
    fn no_overload<T>(&self, name: &str, args: impl std::fmt::Display) -> R<T> {
        self.err(format!(
            "no matching overloaded function found: '{name}({args})'"
        ))
    }

    pub(super) fn builtin_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let void = |s: &mut Self| {
            Value::V(V {
                src: Src::new(s.konst([0; 4])),
                ty: Ty::Void,
                k: None,
            })
        };
        match name {
            "barrier" => {
                self.want_args(name, args, 0)?;
                self.emit(Inst::ControlBarrier);
                Ok(void(self))
            }
            "memoryBarrier"
            | "memoryBarrierBuffer"
            | "memoryBarrierImage"
            | "memoryBarrierAtomicCounter" => {
                if name == "memoryBarrier" && !self.has_memory_barrier() {
                    // ARB_compute_shader adds the four typed barriers; memoryBarrier() itself
                    // is GLSL 4.20's (ESSL 3.10's) and ARB_shader_image_load_store's
                    // (ARB_compute_shader, issue 13).
                    return self.err(
                        "'memoryBarrier' : no matching overloaded function found (requires #version 420, #version 310 es or #extension GL_ARB_shader_image_load_store)",
                    );
                }
                self.want_args(name, args, 0)?;
                self.emit(Inst::MemoryBarrier {
                    scope: Scope::Device,
                });
                Ok(void(self))
            }
            "memoryBarrierShared" | "groupMemoryBarrier" => {
                self.want_args(name, args, 0)?;
                self.emit(Inst::MemoryBarrier {
                    scope: Scope::Group,
                });
                Ok(void(self))
            }
            "atomicAdd" | "atomicMin" | "atomicMax" | "atomicAnd" | "atomicOr" | "atomicXor"
            | "atomicExchange" | "atomicCompSwap" => self.atomic(name, args),
            "atomicCounterIncrement" | "atomicCounterDecrement" | "atomicCounter" => {
                self.want_args(name, args, 1)?;
                let (space, addr) = self.counter_place(name, &args[0])?;
                let a = self.addr_src(addr);
                let t = self.tmp();
                match name {
                    "atomicCounter" => {
                        let mty = MemTy::new(ScalarTy::U32, 1);
                        self.b.load(space, mty, Dst::masked(t, 1), a);
                    }
                    _ => {
                        let inc = name == "atomicCounterIncrement";
                        let k = self.konst([if inc { 1 } else { 0xffff_ffff }, 0, 0, 0]);
                        self.emit(Inst::Atomic {
                            space,
                            op: AtomicOp::Add,
                            ty: ScalarTy::U32,
                            dst: Some(Dst::masked(t, 1)),
                            addr: a,
                            a: Src::new(k),
                            b: Src::new(k),
                        });
                        if !inc {
                            // atomicCounterDecrement returns the decremented value.
                            let (u32t, tx) = (ITy::new(ScalarTy::U32, 1), Dst::masked(t, 1));
                            self.b.bin(BinOp::Add, u32t, tx, Src::new(t), Src::new(k));
                        }
                    }
                }
                Ok(Value::V(V {
                    src: Src::new(t),
                    ty: Ty::UINT,
                    k: None,
                }))
            }
            "shuffleNV" | "shuffleUpNV" | "shuffleDownNV" | "shuffleXorNV" => {
                self.shuffle(name, args)
            }
            "noise1" | "noise2" | "noise3" | "noise4" => {
                // §8.15: deprecated; outside SPIR-V they return 0.0 in every component.
                let vs = self.args_rv(args)?;
                self.gen_call(name, &vs, gentype::F, &[&[gentype::P::Gen]])?;
                let n = if name == "noise1" {
                    1
                } else {
                    name.as_bytes()[5] - b'0'
                };
                Ok(Value::V(self.k_float(&Ty::V(Sc::Float, n), 0.0)))
            }
            "clockARB" | "clock2x32ARB" => self.clock(name, args),
            n if counter::is_counter_op(n) => self.counter_call(name, args),
            n if image::is_image_fn(n) => self.image_call(name, args),
            n if texture::is_texture_fn(n) => self.texture_call(name, args),
            n if subgroup::is_subgroup_fn(n) => self.subgroup_call(name, args),
            n if derivative::is_derivative_fn(n) => self.derivative_call(name, args),
            n if common::is_common(n) => self.common_call(name, args),
            n if trig::is_trig(n) => self.trig_call(name, args),
            n if geometric::is_geometric(n) => self.geometric_call(name, args),
            n if integer::is_integer(n) => self.integer_call(name, args),
            n if relational::is_relational(n) => self.relational_call(name, args),
            n if pack::is_pack(n) => self.pack_call(name, args),
            "ballotThreadNV" | "activeThreadsNV" | "quadSwizzle0NV" | "quadSwizzle1NV"
            | "quadSwizzle2NV" | "quadSwizzle3NV" | "quadSwizzleXNV" | "quadSwizzleYNV" => {
                self.unsup(format!("'{name}' (NV_shader_thread_group functions)"))
            }
            n if matrix::is_matrix_fn(n) => self.matrix_call(name, args),
            _ => self.err(format!("'{name}' : no matching overloaded function found")),
        }
    }
}

/// The built-in function names user functions may not redefine.
pub fn is_builtin_fn(name: &str) -> bool {
    matches!(
        name,
        "barrier"
            | "memoryBarrier"
            | "memoryBarrierShared"
            | "memoryBarrierBuffer"
            | "memoryBarrierImage"
            | "memoryBarrierAtomicCounter"
            | "groupMemoryBarrier"
            | "atomicAdd"
            | "atomicMin"
            | "atomicMax"
            | "atomicAnd"
            | "atomicOr"
            | "atomicXor"
            | "atomicExchange"
            | "atomicCompSwap"
            | "atomicCounterIncrement"
            | "atomicCounterDecrement"
            | "atomicCounter"
    ) || image::is_image_fn(name)
        || texture::is_texture_fn(name)
}

impl<'a> Lower<'a> {
    /// Whether `memoryBarrier()` is declared here: GLSL 4.20, ESSL 3.10, or
    /// GL_ARB_shader_image_load_store enabled.
    fn has_memory_barrier(&self) -> bool {
        let p = self.shaders[self.cur].parsed;
        let version = p.version.unwrap_or(110);
        (if p.es { version >= 310 } else { version >= 420 })
            || self.has_ext("GL_ARB_shader_image_load_store")
    }

    /// GL_ARB_shader_clock: `clock2x32ARB()` is the time as uvec2(low, high) and `clockARB()`
    /// as a uint64_t (declared only where GL_ARB_gpu_shader_int64 is enabled too, as the
    /// extension's interaction with it says); the time is `Builtin::Clock`.
    fn clock(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let wide = name == "clockARB";
        let available = self.has_ext("GL_ARB_shader_clock")
            && (!wide || self.has_ext("GL_ARB_gpu_shader_int64"));
        if !available {
            let needs = if wide {
                "GL_ARB_shader_clock and GL_ARB_gpu_shader_int64"
            } else {
                "GL_ARB_shader_clock"
            };
            return self.err(format!(
                "'{name}' : no matching overloaded function found (requires #extension {needs})"
            ));
        }
        self.want_args(name, args, 0)?;
        let t = self.subgroup_builtin(Builtin::Clock, Ty::V(Sc::Uint64, 1));
        if wide {
            return Ok(Value::V(t));
        }
        let k32 = self.k_scalar(Sc::Uint64, 32);
        let high = self.bin(BinOp::Shr, t.clone(), k32);
        let lo = self.convert(t, Sc::Uint)?;
        let hi = self.convert(high, Sc::Uint)?;
        Ok(Value::V(self.vec_of(Sc::Uint, &[lo, hi])))
    }
}
