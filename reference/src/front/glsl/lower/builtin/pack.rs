//! The pack and unpack functions of GLSL 4.60 §8.4 and GL_ARB_gpu_shader_int64: the
//! normalized ones (each component converted by its formula, `UnOp::PackNorm` /
//! `UnOp::UnpackNorm`, then packed first component lowest), the half-float ones (one rounding
//! to half per component) and the 64-bit ones (bits kept).

use super::gentype::P;
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, Dst, Inst, ScalarTy, Src, UnOp};
use glsl_lang::ast;

/// The names this module lowers.
pub(super) fn is_pack(name: &str) -> bool {
    matches!(
        name,
        "packUnorm2x16"
            | "packSnorm2x16"
            | "packUnorm4x8"
            | "packSnorm4x8"
            | "unpackUnorm2x16"
            | "unpackSnorm2x16"
            | "unpackUnorm4x8"
            | "unpackSnorm4x8"
            | "packHalf2x16"
            | "unpackHalf2x16"
            | "packDouble2x32"
            | "unpackDouble2x32"
            | "packInt2x32"
            | "packUint2x32"
            | "unpackInt2x32"
            | "unpackUint2x32"
    )
}

impl<'a> Lower<'a> {
    pub(super) fn pack_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let vs = self.args_rv(args)?;
        let one = |s: &mut Self, sc: Sc, n: u8| -> R<V> {
            match s.gen_match(&vs, &[sc], &[P::Gen])? {
                Some((_, m, v)) if m == n => Ok(v[0].clone()),
                _ => {
                    let tys: Vec<String> = vs.iter().map(|v| v.ty.to_string()).collect();
                    s.no_overload(name, tys.join(", "))
                }
            }
        };
        // (component count, bits per component, signed) of the normalized forms.
        let norm = match name {
            "packUnorm2x16" | "unpackUnorm2x16" => Some((2u8, 16u8, false)),
            "packSnorm2x16" | "unpackSnorm2x16" => Some((2, 16, true)),
            "packUnorm4x8" | "unpackUnorm4x8" => Some((4, 8, false)),
            "packSnorm4x8" | "unpackSnorm4x8" => Some((4, 8, true)),
            "packHalf2x16" | "unpackHalf2x16" => Some((2, 16, false)),
            _ => None,
        };
        if let Some((n, bits, signed)) = norm {
            let half = name.contains("Half");
            if name.starts_with("pack") {
                let v = one(self, Sc::Float, n)?;
                let fields = if half {
                    let t = self.fresh(Ty::V(Sc::Uint, n));
                    self.b.convert(
                        ScalarTy::F32,
                        ScalarTy::F16,
                        n,
                        Dst::lanes(t.src.reg, n),
                        v.src,
                    );
                    t
                } else {
                    let f = self.un(UnOp::PackNorm { signed, bits }, v.clone());
                    V {
                        ty: Ty::V(Sc::Uint, n),
                        ..f
                    }
                };
                let packed = self.pack_fields(&fields, n, bits);
                if half {
                    return Ok(Value::V(packed));
                }
                // GLSL 4.60 section 8.4 writes the norm packs with clamp and round: a NaN
                // component (clamp) or a half after scaling (round) is the implementation's.
                let (lo, scale) = crate::ir::norm_range(signed, u32::from(bits));
                let ft = crate::ir::Ty::new(ScalarTy::F32, n);
                let scaled = self.b.norm_scaled(ft, v.src, lo, scale);
                let bad = self.b.pack_norm_undefined(ft, v.src, Src::new(scaled));
                let bad = V {
                    src: Src::new(bad),
                    ty: Ty::V(Sc::Bool, 1),
                    k: None,
                };
                return Ok(Value::V(self.mark_undefined(
                    packed,
                    bad,
                    crate::ir::UndefinedRule::PackNormRounding,
                )));
            }
            let p = one(self, Sc::Uint, 1)?;
            let fields = self.unpack_fields(p, n, bits);
            let r = if half {
                let t = self.fresh(Ty::V(Sc::Float, n));
                self.b.convert(
                    ScalarTy::F16,
                    ScalarTy::F32,
                    n,
                    Dst::lanes(t.src.reg, n),
                    fields.src,
                );
                t
            } else {
                let f = self.un(UnOp::UnpackNorm { signed, bits }, fields);
                V {
                    ty: Ty::V(Sc::Float, n),
                    ..f
                }
            };
            return Ok(Value::V(r));
        }
        // The 64-bit ones: two 32-bit halves, the first the low one.
        let (from, to, packing) = match name {
            "packDouble2x32" => (Ty::V(Sc::Uint, 2), Ty::V(Sc::Double, 1), true),
            "unpackDouble2x32" => (Ty::V(Sc::Double, 1), Ty::V(Sc::Uint, 2), false),
            "packInt2x32" => (Ty::V(Sc::Int, 2), Ty::V(Sc::Int64, 1), true),
            "packUint2x32" => (Ty::V(Sc::Uint, 2), Ty::V(Sc::Uint64, 1), true),
            "unpackInt2x32" => (Ty::V(Sc::Int64, 1), Ty::V(Sc::Int, 2), false),
            _ => (Ty::V(Sc::Uint64, 1), Ty::V(Sc::Uint, 2), false),
        };
        let Ty::V(fsc, fl) = from else {
            return self.no_overload(name, "...");
        };
        let v = one(self, fsc, fl)?;
        let t = self.fresh(to.clone());
        if packing {
            self.emit(Inst::Pack64 {
                dst: Dst::masked(t.src.reg, 1),
                a: v.src,
            });
            if name == "packDouble2x32" {
                return Ok(Value::V(self.special_bits_undefined(t, true)));
            }
        } else {
            self.emit(Inst::Unpack64 {
                dst: Dst::masked(t.src.reg, 3),
                a: v.src,
            });
        }
        Ok(Value::V(t))
    }

    /// fields.x | fields.y << bits | ... (the first component in the low bits).
    fn pack_fields(&mut self, fields: &V, n: u8, bits: u8) -> V {
        let mut acc: Option<V> = None;
        for i in 0..n {
            let lane = V {
                src: crate::ir::Src::splat(fields.src.reg, fields.src.swz[usize::from(i)]),
                ty: Ty::UINT,
                k: fields.k.map(|k| [k[usize::from(i)]; 4]),
            };
            let sh = self.k_u32(u32::from(i) * u32::from(bits));
            let shifted = self.bin(BinOp::Shl, lane, sh);
            acc = Some(match acc {
                None => shifted,
                Some(a) => self.bin(BinOp::Or, a, shifted),
            });
        }
        acc.unwrap_or_else(|| self.k_u32(0))
    }

    /// n lanes of `p >> (i * bits)`, masked to `bits` bits.
    fn unpack_fields(&mut self, p: V, n: u8, bits: u8) -> V {
        let ty = Ty::V(Sc::Uint, n);
        let shifts = self.k_lanes(ty.clone(), |i| (i as u64) * u64::from(bits));
        let mask = self.k_lanes(ty, |_| (1u64 << bits) - 1);
        let ps = self.splat(p, n);
        let shifted = self.bin(BinOp::Shr, ps, shifts);
        self.bin(BinOp::And, shifted, mask)
    }
}
