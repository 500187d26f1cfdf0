//! The geometric functions of GLSL 4.60 §8.5, each lowered to the equation the spec defines
//! it with (products rounded, then summed left to right; no fused multiply-add):
//! length, distance, dot, cross, normalize, faceforward, reflect, refract.

use super::gentype::{FD, P};
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, CmpOp, Dst, Src, UnOp};
use glsl_lang::ast;

/// The names this module lowers.
pub(super) fn is_geometric(name: &str) -> bool {
    matches!(
        name,
        "length"
            | "distance"
            | "dot"
            | "cross"
            | "normalize"
            | "faceforward"
            | "reflect"
            | "refract"
    )
}

impl<'a> Lower<'a> {
    /// x0 * y0 + x1 * y1 + ...
    pub(in crate::front::glsl::lower) fn dot_of(&mut self, x: V, y: V) -> V {
        let p = self.bin(BinOp::Mul, x, y);
        let sc = p.ty.sc().unwrap_or(Sc::Float);
        self.fold_lanes(&p, BinOp::Add, Ty::V(sc, 1))
    }

    pub(super) fn geometric_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        use P::*;
        let vs = self.args_rv(args)?;
        Ok(Value::V(match name {
            "length" | "normalize" => {
                let (_, n, v) = self.gen_call(name, &vs, FD, &[&[Gen]])?;
                let x = v[0].clone();
                let len = {
                    let d = self.dot_of(x.clone(), x.clone());
                    self.un(UnOp::Sqrt, d)
                };
                if name == "length" {
                    len
                } else {
                    // x / length(x)
                    let l = self.splat(len, n);
                    self.bin(BinOp::Div, x, l)
                }
            }
            "distance" => {
                let (_, _, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen]])?;
                let d = self.bin(BinOp::Sub, v[0].clone(), v[1].clone());
                let dd = self.dot_of(d.clone(), d);
                self.un(UnOp::Sqrt, dd)
            }
            "dot" => {
                let (_, _, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen]])?;
                self.dot_of(v[0].clone(), v[1].clone())
            }
            "cross" => {
                let (_, n, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen]])?;
                if n != 3 {
                    return self.no_overload(name, format_args!("{}, {}", v[0].ty, v[1].ty));
                }
                // (x1 y2 - y1 x2, x2 y0 - y2 x0, x0 y1 - y0 x1)
                let sw = |v: &V, p: [usize; 3]| V {
                    src: Src::swizzled(
                        v.src.reg,
                        [v.src.swz[p[0]], v.src.swz[p[1]], v.src.swz[p[2]], 0],
                    ),
                    ty: v.ty.clone(),
                    k: v.k.map(|k| [k[p[0]], k[p[1]], k[p[2]], 0]),
                };
                let (x, y) = (&v[0], &v[1]);
                let ab = self.bin(BinOp::Mul, sw(x, [1, 2, 0]), sw(y, [2, 0, 1]));
                let cd = self.bin(BinOp::Mul, sw(y, [1, 2, 0]), sw(x, [2, 0, 1]));
                self.bin(BinOp::Sub, ab, cd)
            }
            "faceforward" => {
                // dot(Nref, I) < 0 ? N : -N
                let (_, n, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen, Gen]])?;
                let d = self.dot_of(v[2].clone(), v[1].clone());
                let z = self.k_float(&d.ty, 0.0);
                let lt = self.cmp(CmpOp::Lt, d, z);
                let neg = self.un(UnOp::Neg, v[0].clone());
                let t = self.fresh(v[0].ty.clone());
                let cond = Src::splat(lt.src.reg, lt.src.swz[0]);
                self.b
                    .select(n, Dst::lanes(t.src.reg, n), cond, v[0].src, neg.src);
                t
            }
            "reflect" => {
                // I - 2 * dot(N, I) * N
                let (_, n, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen]])?;
                let (i, nn) = (v[0].clone(), v[1].clone());
                let d = self.dot_of(nn.clone(), i.clone());
                let two = self.k_float(&d.ty, 2.0);
                let k = self.bin(BinOp::Mul, two, d);
                let k = self.splat(k, n);
                let kn = self.bin(BinOp::Mul, k, nn);
                self.bin(BinOp::Sub, i, kn)
            }
            _ => {
                // refract(I, N, eta): k = 1 - eta * eta * (1 - dot(N, I) * dot(N, I));
                // k < 0 ? 0 : eta * I - (eta * dot(N, I) + sqrt(k)) * N
                let (_, n, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen, Scalar]])?;
                let (i, nn, eta) = (v[0].clone(), v[1].clone(), v[2].clone());
                let eta1 = V {
                    src: Src::splat(eta.src.reg, eta.src.swz[0]),
                    ty: Ty::V(eta.ty.sc().unwrap_or(Sc::Float), 1),
                    k: eta.k,
                };
                let d = self.dot_of(nn.clone(), i.clone());
                let one = self.k_float(&d.ty, 1.0);
                let dd = self.bin(BinOp::Mul, d.clone(), d.clone());
                let omd = self.bin(BinOp::Sub, one.clone(), dd);
                let ee = self.bin(BinOp::Mul, eta1.clone(), eta1.clone());
                let eeo = self.bin(BinOp::Mul, ee, omd);
                let k = self.bin(BinOp::Sub, one, eeo);
                let ei = self.bin(BinOp::Mul, eta.clone(), i);
                let ed = self.bin(BinOp::Mul, eta1, d);
                let sk = self.un(UnOp::Sqrt, k.clone());
                let f = self.bin(BinOp::Add, ed, sk);
                let f = self.splat(f, n);
                let fn_ = self.bin(BinOp::Mul, f, nn);
                let r = self.bin(BinOp::Sub, ei, fn_);
                let z = self.k_float(&k.ty, 0.0);
                let neg = self.cmp(CmpOp::Lt, k, z);
                let zero = self.k_float(&r.ty, 0.0);
                let t = self.fresh(r.ty.clone());
                let cond = Src::splat(neg.src.reg, neg.src.swz[0]);
                self.b
                    .select(n, Dst::lanes(t.src.reg, n), cond, zero.src, r.src);
                t
            }
        }))
    }
}
