//! The common math, bit and relational built-in functions, and the refusal (`unsupported`) of
//! those the reference does not model.

use crate::front::glsl::lower::ops::conv_bits;
use crate::front::glsl::lower::place::Place;
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, CmpOp, Dst, Inst, Src, Ty as ITy, UnOp};
use glsl_lang::ast;

impl<'a> Lower<'a> {
    pub(super) fn math_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let un_f = |s: &mut Self, op: UnOp| -> R<Value> {
            let v = s.float_args(name, args, 1)?;
            Ok(Value::V(s.un(op, v[0].clone())))
        };
        match name {
            "abs" | "sign" => {
                self.want_args(name, args, 1)?;
                let v = self.rv(&args[0])?;
                match v.ty.sc() {
                    Some(Sc::Int | Sc::Float | Sc::Double) => Ok(Value::V(
                        self.un(if name == "abs" { UnOp::Abs } else { UnOp::Sign }, v),
                    )),
                    _ => self.no_overload(name, &v.ty),
                }
            }
            "floor" => un_f(self, UnOp::Floor),
            "ceil" => un_f(self, UnOp::Ceil),
            "trunc" => un_f(self, UnOp::Trunc),
            "roundEven" => un_f(self, UnOp::RoundEven),
            "fract" => un_f(self, UnOp::Fract),
            "sqrt" => un_f(self, UnOp::Sqrt),
            "inversesqrt" => un_f(self, UnOp::Rsq),
            "exp2" => un_f(self, UnOp::Exp2),
            "log2" => un_f(self, UnOp::Log2),
            "sin" => un_f(self, UnOp::Sin),
            "cos" => un_f(self, UnOp::Cos),
            "pow" => {
                let v = self.float_args(name, args, 2)?;
                let v = self.same_args(name, v)?;
                Ok(Value::V(self.bin(BinOp::Pow, v[0].clone(), v[1].clone())))
            }
            "mod" => {
                let v = self.float_args(name, args, 2)?;
                let v = self.same_args(name, v)?;
                Ok(Value::V(self.bin(BinOp::Mod, v[0].clone(), v[1].clone())))
            }
            "min" | "max" | "clamp" => {
                let n = if name == "clamp" { 3 } else { 2 };
                self.want_args(name, args, n)?;
                let vs = self.args_rv(args)?;
                let vs = self.same_args(name, vs)?;
                if vs[0].ty.sc() == Some(Sc::Bool) {
                    return self.no_overload(name, "bool...");
                }
                Ok(Value::V(match name {
                    "min" => self.bin(BinOp::Min, vs[0].clone(), vs[1].clone()),
                    "max" => self.bin(BinOp::Max, vs[0].clone(), vs[1].clone()),
                    _ => {
                        let m = self.bin(BinOp::Max, vs[0].clone(), vs[1].clone());
                        self.bin(BinOp::Min, m, vs[2].clone())
                    }
                }))
            }
            "mix" => {
                self.want_args(name, args, 3)?;
                let vs = self.args_rv(args)?;
                if vs[2].ty.sc() == Some(Sc::Bool) {
                    let xy = self.same_args(name, vs[..2].to_vec())?;
                    let n = xy[0].ty.lanes();
                    if vs[2].ty.lanes() != n {
                        return self.err("mix: selector size does not match");
                    }
                    let t = self.fresh(xy[0].ty.clone());
                    let dst = Dst::lanes(t.src.reg, n);
                    self.b.select(n, dst, vs[2].src, xy[1].src, xy[0].src);
                    return Ok(Value::V(t));
                }
                let mut fv = Vec::new();
                for v in vs {
                    fv.push(match v.ty.sc() {
                        Some(Sc::Float | Sc::Double) => v,
                        _ => self.convert(v, Sc::Float)?,
                    });
                }
                let vs = self.same_args(name, fv)?;
                // x * (1 - a) + y * a
                let sc = vs[0].ty.sc().unwrap_or(Sc::Float);
                let one = conv_bits(Sc::Int, sc, 1);
                let onek = self.kv(vs[0].ty.clone(), [one; 4]);
                let oma = self.bin(BinOp::Sub, onek, vs[2].clone());
                let l = self.bin(BinOp::Mul, vs[0].clone(), oma);
                let r = self.bin(BinOp::Mul, vs[1].clone(), vs[2].clone());
                Ok(Value::V(self.bin(BinOp::Add, l, r)))
            }
            "step" => {
                let v = self.float_args(name, args, 2)?;
                let v = self.same_args(name, v)?;
                let c = self.cmp(CmpOp::Lt, v[1].clone(), v[0].clone());
                let sc = v[0].ty.sc().unwrap_or(Sc::Float);
                let r = self.convert(c, sc)?;
                // step = x < edge ? 0 : 1
                let onek = self.kv(r.ty.clone(), [conv_bits(Sc::Int, sc, 1); 4]);
                Ok(Value::V(self.bin(BinOp::Sub, onek, r)))
            }
            "dot" => {
                let v = self.float_args(name, args, 2)?;
                let v = self.same_args(name, v)?;
                let p = self.bin(BinOp::Mul, v[0].clone(), v[1].clone());
                let sc = p.ty.sc().unwrap_or(Sc::Float);
                Ok(Value::V(self.fold_lanes(&p, BinOp::Add, Ty::V(sc, 1))))
            }
            // GLSL leaves the direction of .5 to the implementation: the reference rounds
            // half to even (one of the allowed results).
            "round" => un_f(self, UnOp::RoundEven),
            "isnan" | "isinf" => {
                let v = self.float_args(name, args, 1)?;
                let v = v[0].clone();
                let n = v.ty.lanes();
                let r = self.un(
                    if name == "isnan" {
                        UnOp::IsNan
                    } else {
                        UnOp::IsInf
                    },
                    v,
                );
                Ok(Value::V(V {
                    ty: Ty::V(Sc::Bool, n),
                    ..r
                }))
            }
            "exp" | "log" => {
                // exp(x) = exp2(x * log2(e)), log(x) = log2(x) * ln(2): within GLSL's precision.
                let v = self.float_args(name, args, 1)?;
                let v = v[0].clone();
                let sc = v.ty.sc().unwrap_or(Sc::Float);
                let c = if name == "exp" {
                    std::f64::consts::LOG2_E
                } else {
                    std::f64::consts::LN_2
                };
                let cb = if sc == Sc::Double {
                    c.to_bits()
                } else {
                    u64::from((c as f32).to_bits())
                };
                let k = self.kv(v.ty.clone(), [cb; 4]);
                Ok(Value::V(if name == "exp" {
                    let m = self.bin(BinOp::Mul, v, k);
                    self.un(UnOp::Exp2, m)
                } else {
                    let l = self.un(UnOp::Log2, v);
                    self.bin(BinOp::Mul, l, k)
                }))
            }
            "fma" => {
                let v = self.float_args(name, args, 3)?;
                let v = self.same_args(name, v)?;
                let Ty::V(sc, n) = v[0].ty else {
                    return self.err("fma needs floats");
                };
                let t = self.fresh(v[0].ty.clone());
                self.emit(Inst::Mad {
                    ty: ITy::new(sc.ir(), n),
                    dst: Dst::lanes(t.src.reg, n),
                    a: v[0].src,
                    b: v[1].src,
                    c: v[2].src,
                });
                Ok(Value::V(t))
            }
            "ldexp" => {
                self.want_args(name, args, 2)?;
                let x = self.rv(&args[0])?;
                let e = self.rv(&args[1])?;
                let (Some(Sc::Float | Sc::Double), Some(Sc::Int)) = (x.ty.sc(), e.ty.sc()) else {
                    return self.err("no matching overloaded function found: 'ldexp'");
                };
                if x.ty.lanes() != e.ty.lanes() {
                    return self.err("ldexp: operand sizes do not match");
                }
                let e = V {
                    ty: x.ty.clone(),
                    ..e
                };
                Ok(Value::V(self.bin(BinOp::Ldexp, x, e)))
            }
            "length" | "distance" | "normalize" => {
                let n = if name == "distance" { 2 } else { 1 };
                let v = self.float_args(name, args, n)?;
                let v = self.same_args(name, v)?;
                let d = if name == "distance" {
                    self.bin(BinOp::Sub, v[0].clone(), v[1].clone())
                } else {
                    v[0].clone()
                };
                let sq = self.bin(BinOp::Mul, d.clone(), d.clone());
                let sc = sq.ty.sc().unwrap_or(Sc::Float);
                let acc = self.fold_lanes(&sq, BinOp::Add, Ty::V(sc, 1));
                if name == "normalize" {
                    let r = self.un(UnOp::Rsq, acc);
                    let r = self.splat(r, d.ty.lanes());
                    return Ok(Value::V(self.bin(BinOp::Mul, d, r)));
                }
                Ok(Value::V(self.un(UnOp::Sqrt, acc)))
            }
            "uaddCarry" | "usubBorrow" | "umulExtended" | "imulExtended" => {
                self.want_args(name, args, if name.ends_with("Extended") { 4 } else { 3 })?;
                let want_sc = if name == "imulExtended" {
                    Sc::Int
                } else {
                    Sc::Uint
                };
                let a = self.rv(&args[0])?;
                let b = self.rv(&args[1])?;
                if a.ty.sc() != Some(want_sc) || a.ty != b.ty {
                    return self.no_overload(name, format_args!("{}, {}", a.ty, b.ty));
                }
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
                match name {
                    "uaddCarry" | "usubBorrow" => {
                        let add = name == "uaddCarry";
                        let r = self.bin(
                            if add { BinOp::Add } else { BinOp::Sub },
                            a.clone(),
                            b.clone(),
                        );
                        // carry: sum < a; borrow: a < b.
                        let c = if add {
                            self.cmp(CmpOp::Lt, r.clone(), a)
                        } else {
                            self.cmp(CmpOp::Lt, a, b)
                        };
                        let c = self.convert(c, Sc::Uint)?;
                        self.store(&outs[0], Value::V(c))?;
                        Ok(Value::V(r))
                    }
                    _ => {
                        let hi = self.fresh(ty.clone());
                        let (ty, dst) = (ITy::new(want_sc.ir(), n), Dst::lanes(hi.src.reg, n));
                        self.b.bin(BinOp::MulHi, ty, dst, a.src, b.src);
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
            }
            "floatBitsToInt" | "floatBitsToUint" | "intBitsToFloat" | "uintBitsToFloat" => {
                self.want_args(name, args, 1)?;
                let v = self.rv(&args[0])?;
                let (from, to) = match name {
                    "floatBitsToInt" => (Sc::Float, Sc::Int),
                    "floatBitsToUint" => (Sc::Float, Sc::Uint),
                    "intBitsToFloat" => (Sc::Int, Sc::Float),
                    _ => (Sc::Uint, Sc::Float),
                };
                if v.ty.sc() != Some(from) {
                    return self.no_overload(name, &v.ty);
                }
                let n = v.ty.lanes();
                Ok(Value::V(V {
                    ty: Ty::V(to, n),
                    ..v
                }))
            }
            "bitCount" | "findLSB" | "findMSB" | "bitfieldReverse" => {
                self.want_args(name, args, 1)?;
                let v = self.rv(&args[0])?;
                let Some(sc @ (Sc::Int | Sc::Uint)) = v.ty.sc() else {
                    return self.no_overload(name, &v.ty);
                };
                let n = v.ty.lanes();
                let op = match name {
                    "bitCount" => UnOp::BitCount,
                    "findLSB" => UnOp::FindLsb,
                    "findMSB" => UnOp::FindMsb,
                    _ => UnOp::BitReverse,
                };
                let r = self.un(op, v);
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
            "bitfieldExtract" | "bitfieldInsert" => {
                let ins = name == "bitfieldInsert";
                self.want_args(name, args, if ins { 4 } else { 3 })?;
                let vs = self.args_rv(args)?;
                let base = vs[0].clone();
                let Some(sc @ (Sc::Int | Sc::Uint)) = base.ty.sc() else {
                    return self.no_overload(name, &base.ty);
                };
                let n = base.ty.lanes();
                let insv = if ins {
                    Some(self.implicit(vs[1].clone(), &base.ty)?)
                } else {
                    None
                };
                let k = if ins { 2 } else { 1 };
                let mut ow = Vec::new();
                for v in &vs[k..k + 2] {
                    if v.ty != Ty::INT && v.ty != Ty::UINT {
                        return self.err(format!("'{name}': offset and bits must be scalar int"));
                    }
                    ow.push(self.splat(v.clone(), n));
                }
                let t = self.fresh(base.ty.clone());
                let ty = ITy::new(sc.ir(), n);
                match insv {
                    Some(iv) => self.emit(Inst::BitfieldInsert {
                        ty,
                        dst: Dst::lanes(t.src.reg, n),
                        base: base.src,
                        insert: iv.src,
                        offset: ow[0].src,
                        width: ow[1].src,
                    }),
                    None => self.emit(Inst::BitfieldExtract {
                        ty,
                        dst: Dst::lanes(t.src.reg, n),
                        a: base.src,
                        offset: ow[0].src,
                        width: ow[1].src,
                    }),
                };
                Ok(Value::V(t))
            }
            "lessThan" | "lessThanEqual" | "greaterThan" | "greaterThanEqual" | "equal"
            | "notEqual" => {
                self.want_args(name, args, 2)?;
                let vs = self.args_rv(args)?;
                if vs[0].ty != vs[1].ty || vs[0].ty.lanes() < 2 {
                    return self.err(format!("no matching overloaded function found: '{name}'"));
                }
                let op = match name {
                    "lessThan" => CmpOp::Lt,
                    "lessThanEqual" => CmpOp::Le,
                    "greaterThan" => CmpOp::Gt,
                    "greaterThanEqual" => CmpOp::Ge,
                    "equal" => CmpOp::Eq,
                    _ => CmpOp::Ne,
                };
                if vs[0].ty.sc() == Some(Sc::Bool) && !matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    return self.no_overload(name, "bvec");
                }
                Ok(Value::V(self.cmp(op, vs[0].clone(), vs[1].clone())))
            }
            "any" | "all" | "not" => {
                self.want_args(name, args, 1)?;
                let v = self.rv(&args[0])?;
                if v.ty.sc() != Some(Sc::Bool) || v.ty.lanes() < 2 {
                    return self.no_overload(name, &v.ty);
                }
                Ok(Value::V(match name {
                    "any" => self.reduce(v, false),
                    "all" => self.reduce(v, true),
                    _ => self.un(UnOp::Not, v),
                }))
            }
            "ballotThreadNV" | "activeThreadsNV" | "quadSwizzle0NV" | "quadSwizzle1NV"
            | "quadSwizzle2NV" | "quadSwizzle3NV" | "quadSwizzleXNV" | "quadSwizzleYNV" => {
                self.unsup(format!("'{name}' (NV_shader_thread_group functions)"))
            }
            "tan" | "asin" | "acos" | "atan" | "sinh" | "cosh" | "tanh" | "cross"
            | "smoothstep" | "frexp" | "modf" | "packUnorm2x16" | "packSnorm2x16"
            | "packUnorm4x8" | "packSnorm4x8" | "unpackUnorm2x16" | "unpackSnorm2x16"
            | "unpackUnorm4x8" | "unpackSnorm4x8" | "packHalf2x16" | "unpackHalf2x16"
            | "packDouble2x32" | "unpackDouble2x32" | "radians" | "degrees" | "faceforward"
            | "reflect" | "refract" | "determinant" | "inverse" | "transpose" | "outerProduct"
            | "matrixCompMult" => self.unsup(format!("built-in function '{name}'")),
            _ => self.err(format!("'{name}' : no matching overloaded function found")),
        }
    }
}
