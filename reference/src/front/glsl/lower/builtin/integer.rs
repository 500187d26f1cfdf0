//! The integer functions of GLSL 4.60 §8.8: uaddCarry, usubBorrow, umulExtended,
//! imulExtended, bitfieldExtract, bitfieldInsert, bitfieldReverse, bitCount, findLSB, findMSB.

use super::gentype::P;
use crate::front::glsl::lower::place::Place;
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, CmpOp, Dst, Inst, Src, Ty as ITy, UnOp};
use glsl_lang::ast;

const IU: &[Sc] = &[Sc::Int, Sc::Uint];

/// The names this module lowers.
pub(super) fn is_integer(name: &str) -> bool {
    matches!(
        name,
        "uaddCarry"
            | "usubBorrow"
            | "umulExtended"
            | "imulExtended"
            | "bitfieldExtract"
            | "bitfieldInsert"
            | "bitfieldReverse"
            | "bitCount"
            | "findLSB"
            | "findMSB"
    )
}

impl<'a> Lower<'a> {
    pub(super) fn integer_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        use P::*;
        if matches!(
            name,
            "uaddCarry" | "usubBorrow" | "umulExtended" | "imulExtended"
        ) {
            return self.carry_call(name, args);
        }
        let vs = self.args_rv(args)?;
        match name {
            "bitCount" | "findLSB" | "findMSB" | "bitfieldReverse" => {
                let (sc, n, v) = self.gen_call(name, &vs, IU, &[&[Gen]])?;
                let op = match name {
                    "bitCount" => UnOp::BitCount,
                    "findLSB" => UnOp::FindLsb,
                    "findMSB" => UnOp::FindMsb,
                    _ => UnOp::BitReverse,
                };
                let r = self.un(op, v[0].clone());
                // bitCount, findLSB and findMSB return genIType whatever the argument.
                let rsc = if name == "bitfieldReverse" {
                    sc
                } else {
                    Sc::Int
                };
                Ok(Value::V(V {
                    ty: Ty::V(rsc, n),
                    ..r
                }))
            }
            _ => {
                let ins = name == "bitfieldInsert";
                let sig: &[P] = if ins {
                    &[Gen, Gen, Same(Sc::Int), Same(Sc::Int)]
                } else {
                    &[Gen, Same(Sc::Int), Same(Sc::Int)]
                };
                // offset and bits are scalar ints: match with them as scalars of the gen's
                // size by splatting first.
                let k = if ins { 2 } else { 1 };
                let mut args = vs.clone();
                let n = args[0].ty.lanes();
                for a in args.iter_mut().skip(k) {
                    if a.ty != Ty::INT && a.ty != Ty::UINT {
                        return self.no_overload(name, &a.ty);
                    }
                    let i = self.convert(a.clone(), Sc::Int)?;
                    *a = self.splat(i, n);
                }
                let (sc, n, v) = self.gen_call(name, &args, IU, &[sig])?;
                let t = self.fresh(v[0].ty.clone());
                let ty = ITy::new(sc.ir(), n);
                let dst = Dst::lanes(t.src.reg, n);
                // GLSL 4.60 section 8.8: "The result will be undefined if offset or bits is
                // negative, or if the sum of offset and bits is greater than the number of
                // bits used to store the operand." As unsigned, a negative offset or count is
                // above the width, and two values at most the width sum without wrapping.
                let (off, cnt) = (v[k].clone(), v[k + 1].clone());
                let bad = self.bitfield_range(off, cnt, sc.ir().bits);
                if ins {
                    self.emit(Inst::BitfieldInsert {
                        ty,
                        dst,
                        base: v[0].src,
                        insert: v[1].src,
                        offset: v[2].src,
                        width: v[3].src,
                    });
                } else {
                    self.emit(Inst::BitfieldExtract {
                        ty,
                        dst,
                        a: v[0].src,
                        offset: v[1].src,
                        width: v[2].src,
                    });
                }
                Ok(Value::V(self.mark_undefined(
                    t,
                    bad,
                    crate::ir::UndefinedRule::BitfieldRange,
                )))
            }
        }
    }

    /// The lanes (bool) where a bitfield of `cnt` bits at `off` (ints) is past `width` bits
    /// or negative.
    fn bitfield_range(&mut self, off: V, cnt: V, width: u8) -> V {
        let n = off.ty.lanes();
        let u = |v: V| V {
            ty: Ty::V(Sc::Uint, n),
            ..v
        };
        let (off, cnt) = (u(off), u(cnt));
        let w = self.k_lanes(Ty::V(Sc::Uint, n), |_| u64::from(width));
        let off_big = self.cmp(CmpOp::Gt, off.clone(), w.clone());
        let cnt_big = self.cmp(CmpOp::Gt, cnt.clone(), w.clone());
        let sum = self.bin(BinOp::Add, off, cnt);
        let sum_big = self.cmp(CmpOp::Gt, sum, w);
        let either = self.bool_op(BinOp::Or, off_big, cnt_big);
        self.bool_op(BinOp::Or, either, sum_big)
    }

    /// uaddCarry/usubBorrow (the carry or borrow through an out argument) and
    /// umulExtended/imulExtended (both halves through out arguments).
    fn carry_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let extended = name.ends_with("Extended");
        self.want_args(name, args, if extended { 4 } else { 3 })?;
        let want_sc = if name == "imulExtended" {
            Sc::Int
        } else {
            Sc::Uint
        };
        let a = self.rv(&args[0])?;
        let b = self.rv(&args[1])?;
        let Some((_, _, v)) = self.gen_match(&[a, b], &[want_sc], &[P::Gen, P::Gen])? else {
            return self.no_overload(name, "...");
        };
        let (a, b) = (v[0].clone(), v[1].clone());
        let outs: Vec<Place> = args[2..]
            .iter()
            .map(|e| self.place_of(e))
            .collect::<R<Vec<_>>>()?;
        if outs.iter().any(|p| p.ro() || *p.ty() != a.ty) {
            return self.err(format!(
                "'{name}': out arguments must be writable l-values of type {}",
                a.ty
            ));
        }
        let ty = a.ty.clone();
        let n = ty.lanes();
        if !extended {
            let add = name == "uaddCarry";
            let r = self.bin(
                if add { BinOp::Add } else { BinOp::Sub },
                a.clone(),
                b.clone(),
            );
            // carry: the sum wrapped below a; borrow: a < b.
            let c = if add {
                self.cmp(CmpOp::Lt, r.clone(), a)
            } else {
                self.cmp(CmpOp::Lt, a, b)
            };
            let c = self.convert(c, Sc::Uint)?;
            self.store(&outs[0], Value::V(c))?;
            return Ok(Value::V(r));
        }
        let hi = self.fresh(ty.clone());
        let (ity, dst) = (ITy::new(want_sc.ir(), n), Dst::lanes(hi.src.reg, n));
        self.b.bin(BinOp::MulHi, ity, dst, a.src, b.src);
        let lo = self.bin(BinOp::Mul, a, b);
        self.store(&outs[0], Value::V(hi))?;
        self.store(&outs[1], Value::V(lo))?;
        Ok(Value::V(V {
            src: Src::new(self.konst([0; 4])),
            ty: Ty::Void,
            k: None,
        }))
    }
}
