//! The common functions of GLSL 4.60 §8.3 (with the 64-bit integer forms of
//! GL_ARB_gpu_shader_int64): abs, sign, floor, trunc, round, roundEven, ceil, fract, mod,
//! modf, min, max, clamp, mix, step, smoothstep, isnan, isinf, the bit casts, fma, frexp and
//! ldexp, and GL_AMD_shader_trinary_minmax's min3, max3 and mid3. Each is lowered to the
//! operations its definition in the spec is written with.

use super::gentype::{FD, NUMERIC, P, SIGNED};
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, CmpOp, Dst, Inst, Ty as ITy, UnOp};
use glsl_lang::ast;

/// min3/max3/mid3's families: genType, genIType and genUType (no double or 64-bit forms), in
/// the order §6.1's implicit conversions prefer them.
const TRINARY: &[Sc] = &[Sc::Int, Sc::Uint, Sc::Float];

/// The names this module lowers.
pub(super) fn is_common(name: &str) -> bool {
    matches!(
        name,
        "abs"
            | "sign"
            | "floor"
            | "trunc"
            | "round"
            | "roundEven"
            | "ceil"
            | "fract"
            | "mod"
            | "modf"
            | "min"
            | "max"
            | "min3"
            | "max3"
            | "mid3"
            | "clamp"
            | "mix"
            | "step"
            | "smoothstep"
            | "isnan"
            | "isinf"
            | "floatBitsToInt"
            | "floatBitsToUint"
            | "intBitsToFloat"
            | "uintBitsToFloat"
            | "doubleBitsToInt64"
            | "doubleBitsToUint64"
            | "int64BitsToDouble"
            | "uint64BitsToDouble"
            | "fma"
            | "frexp"
            | "ldexp"
    )
}

impl<'a> Lower<'a> {
    /// `r`, a float min, max or clamp of `ops`, with the lanes where an operand is a NaN
    /// marked undefined (GLSL 4.60 section 8.3: "Which operand is the result is undefined if
    /// one of the operands is a NaN"); integer operands leave `r` as it is. `x != x` folds for
    /// constants, so a constant expression without a NaN stays a constant.
    fn nan_operands_undefined(&mut self, r: V, ops: &[V]) -> V {
        if !matches!(r.ty.sc(), Some(Sc::Float | Sc::Double)) {
            return r;
        }
        let n = r.ty.lanes();
        let mut bad: Option<V> = None;
        for x in ops {
            let nan = self.cmp(CmpOp::Ne, x.clone(), x.clone());
            let nan = self.splat(nan, n);
            bad = Some(match bad {
                None => nan,
                Some(b) => self.bool_op(BinOp::Or, b, nan),
            });
        }
        match bad {
            Some(b) => self.mark_undefined(r, b, crate::ir::UndefinedRule::MinMaxNan),
            None => r,
        }
    }
    /// `r`, a float made from integer bits, with the lanes the specification leaves
    /// unspecified marked undefined. GLSL 4.60 section 8.3, intBitsToFloat: "If a NaN is
    /// passed in, it will not signal, and the resulting value is unspecified. If an Inf is
    /// passed in, the resulting value is the corresponding Inf." ESSL 3.20 section 8.3: "If an
    /// Inf or NaN is passed in, ... the resulting floating-point value is unspecified."
    /// packDouble2x32 (GLSL 4.60 section 8.4): "If an IEEE 754 Inf or NaN is created, ... the
    /// resulting floating-point value is unspecified." `infinities` says whether the rule
    /// takes infinities too. Both tests fold for constants.
    pub(in crate::front::glsl::lower) fn special_bits_undefined(
        &mut self,
        r: V,
        infinities: bool,
    ) -> V {
        let n = r.ty.lanes();
        let mut bad = self.cmp(CmpOp::Ne, r.clone(), r.clone());
        if infinities {
            let inf = self.un(UnOp::IsInf, r.clone());
            let inf = V {
                ty: Ty::V(Sc::Bool, n),
                ..inf
            };
            bad = self.bool_op(BinOp::Or, bad, inf);
        }
        self.mark_undefined(r, bad, crate::ir::UndefinedRule::BitsToFloatSpecial)
    }

    /// A constant of `ty` (a float or double scalar/vector) holding `x` in every lane.
    pub(in crate::front::glsl::lower) fn k_float(&mut self, ty: &Ty, x: f64) -> V {
        let sc = ty.sc().unwrap_or(Sc::Float);
        let bits = if sc == Sc::Double {
            x.to_bits()
        } else {
            u64::from((x as f32).to_bits())
        };
        self.kv(ty.clone(), [bits; 4])
    }

    pub(super) fn common_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        use P::*;
        // The functions with out parameters read their arguments themselves.
        match name {
            "modf" | "frexp" => return self.split_float(name, args),
            _ => {}
        }
        let vs = self.args_rv(args)?;
        let un = |s: &mut Self, families, op| -> R<Value> {
            let (_, _, v) = s.gen_call(name, &vs, families, &[&[Gen]])?;
            Ok(Value::V(s.un(op, v[0].clone())))
        };
        match name {
            "abs" => un(self, SIGNED, UnOp::Abs),
            "sign" => un(self, SIGNED, UnOp::Sign),
            "floor" => un(self, FD, UnOp::Floor),
            "ceil" => un(self, FD, UnOp::Ceil),
            "trunc" => un(self, FD, UnOp::Trunc),
            "roundEven" => un(self, FD, UnOp::RoundEven),
            // GLSL 4.60 section 8.3: "The fraction 0.5 will round in a direction chosen by the
            // implementation": the reference rounds half to even and marks the halves
            // undefined (either neighbour is right). Constant halves fold to the flag's test.
            "round" => {
                let (_, _, v) = self.gen_call(name, &vs, FD, &[&[Gen]])?;
                let x = v[0].clone();
                let r = self.un(UnOp::RoundEven, x.clone());
                let t = self.un(UnOp::Trunc, x.clone());
                let frac = self.bin(BinOp::Sub, x.clone(), t);
                let a = self.un(UnOp::Abs, frac);
                let half = self.k_float(&x.ty, 0.5);
                let tie = self.cmp(CmpOp::Eq, a, half);
                Ok(Value::V(self.mark_undefined(
                    r,
                    tie,
                    crate::ir::UndefinedRule::RoundHalf,
                )))
            }
            "fract" => un(self, FD, UnOp::Fract),
            "isnan" | "isinf" => {
                let (_, n, v) = self.gen_call(name, &vs, FD, &[&[Gen]])?;
                let op = if name == "isnan" {
                    UnOp::IsNan
                } else {
                    UnOp::IsInf
                };
                let r = self.un(op, v[0].clone());
                Ok(Value::V(V {
                    ty: Ty::V(Sc::Bool, n),
                    ..r
                }))
            }
            "mod" => {
                // x - y * floor(x / y), in one operation of the executor.
                let (_, _, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen], &[Gen, Scalar]])?;
                Ok(Value::V(self.bin(BinOp::Mod, v[0].clone(), v[1].clone())))
            }
            "min" | "max" => {
                let (_, _, v) =
                    self.gen_call(name, &vs, NUMERIC, &[&[Gen, Gen], &[Gen, Scalar]])?;
                let op = if name == "min" {
                    BinOp::Min
                } else {
                    BinOp::Max
                };
                let r = self.bin(op, v[0].clone(), v[1].clone());
                Ok(Value::V(self.nan_operands_undefined(r, &v)))
            }
            "min3" | "max3" | "mid3" => {
                // GL_AMD_shader_trinary_minmax (§8.3 additions): the per-component minimum,
                // maximum and median of x, y and z, for genType, genIType and genUType.
                if !self.has_ext("GL_AMD_shader_trinary_minmax") {
                    return self.err(format!(
                        "'{name}' : no matching overloaded function found (requires #extension GL_AMD_shader_trinary_minmax)"
                    ));
                }
                let (_, _, v) = self.gen_call(name, &vs, TRINARY, &[&[Gen, Gen, Gen]])?;
                let (x, y, z) = (v[0].clone(), v[1].clone(), v[2].clone());
                Ok(Value::V(match name {
                    "min3" => {
                        let m = self.bin(BinOp::Min, y, z);
                        self.bin(BinOp::Min, x, m)
                    }
                    "max3" => {
                        let m = self.bin(BinOp::Max, y, z);
                        self.bin(BinOp::Max, x, m)
                    }
                    _ => {
                        // The median: max(min(x, y), min(max(x, y), z)).
                        let lo = self.bin(BinOp::Min, x.clone(), y.clone());
                        let hi = self.bin(BinOp::Max, x, y);
                        let m = self.bin(BinOp::Min, hi, z);
                        self.bin(BinOp::Max, lo, m)
                    }
                }))
            }
            "clamp" => {
                // min(max(x, minVal), maxVal)
                let (_, _, v) = self.gen_call(
                    name,
                    &vs,
                    NUMERIC,
                    &[&[Gen, Gen, Gen], &[Gen, Scalar, Scalar]],
                )?;
                // The fuzzer's self-test can plant a data-type bug here: clamp of ints
                // ordering them as uints.
                let planted = self.plan.bug == Some(crate::PlantedBug::ClampSignedAsUnsigned);
                let as_uint = |x: &V| match x.ty {
                    Ty::V(Sc::Int, n) if planted => V {
                        ty: Ty::V(Sc::Uint, n),
                        ..x.clone()
                    },
                    _ => x.clone(),
                };
                let m = self.bin(BinOp::Max, as_uint(&v[0]), as_uint(&v[1]));
                let r = self.bin(BinOp::Min, m, as_uint(&v[2]));
                let r = V {
                    ty: v[0].ty.clone(),
                    ..r
                };
                // GLSL 4.60 section 8.3: "Results are undefined if minVal > maxVal."
                let bad = self.cmp(CmpOp::Gt, v[1].clone(), v[2].clone());
                let r = self.mark_undefined(r, bad, crate::ir::UndefinedRule::ClampBounds);
                Ok(Value::V(self.nan_operands_undefined(r, &v)))
            }
            "mix" => self.mix(&vs),
            "step" => {
                // x < edge ? 0.0 : 1.0
                let (sc, _, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen], &[Scalar, Gen]])?;
                let lt = self.cmp(CmpOp::Lt, v[1].clone(), v[0].clone());
                let r = self.convert(lt, sc)?;
                let one = self.k_float(&r.ty, 1.0);
                Ok(Value::V(self.bin(BinOp::Sub, one, r)))
            }
            "smoothstep" => {
                // t = clamp((x - edge0) / (edge1 - edge0), 0, 1); t * t * (3 - 2 * t)
                let (_, _, v) =
                    self.gen_call(name, &vs, FD, &[&[Gen, Gen, Gen], &[Scalar, Scalar, Gen]])?;
                let ty = v[2].ty.clone();
                // GLSL 4.60 section 8.3: "Results are undefined if edge0 >= edge1."
                let bad = self.cmp(CmpOp::Ge, v[0].clone(), v[1].clone());
                let num = self.bin(BinOp::Sub, v[2].clone(), v[0].clone());
                let den = self.bin(BinOp::Sub, v[1].clone(), v[0].clone());
                let q = self.bin(BinOp::Div, num, den);
                let (zero, one) = (self.k_float(&ty, 0.0), self.k_float(&ty, 1.0));
                let lo = self.bin(BinOp::Max, q, zero);
                let t = self.bin(BinOp::Min, lo, one);
                let (two, three) = (self.k_float(&ty, 2.0), self.k_float(&ty, 3.0));
                let tt = self.bin(BinOp::Mul, t.clone(), t.clone());
                let two_t = self.bin(BinOp::Mul, two, t);
                let rest = self.bin(BinOp::Sub, three, two_t);
                let r = self.bin(BinOp::Mul, tt, rest);
                Ok(Value::V(self.mark_undefined(
                    r,
                    bad,
                    crate::ir::UndefinedRule::SmoothstepEdges,
                )))
            }
            "floatBitsToInt" | "floatBitsToUint" | "intBitsToFloat" | "uintBitsToFloat"
            | "doubleBitsToInt64" | "doubleBitsToUint64" | "int64BitsToDouble"
            | "uint64BitsToDouble" => {
                let (from, to) = match name {
                    "floatBitsToInt" => (Sc::Float, Sc::Int),
                    "floatBitsToUint" => (Sc::Float, Sc::Uint),
                    "intBitsToFloat" => (Sc::Int, Sc::Float),
                    "uintBitsToFloat" => (Sc::Uint, Sc::Float),
                    "doubleBitsToInt64" => (Sc::Double, Sc::Int64),
                    "doubleBitsToUint64" => (Sc::Double, Sc::Uint64),
                    "int64BitsToDouble" => (Sc::Int64, Sc::Double),
                    _ => (Sc::Uint64, Sc::Double),
                };
                let (_, n, v) = self.gen_call(name, &vs, &[from], &[&[Gen]])?;
                // The same bits, read as the other type.
                let r = V {
                    ty: Ty::V(to, n),
                    ..v[0].clone()
                };
                if !matches!(to, Sc::Float | Sc::Double) {
                    return Ok(Value::V(r));
                }
                // int64BitsToDouble and uint64BitsToDouble (GL_ARB_gpu_shader_int64) are read
                // as GLSL's intBitsToFloat: a NaN unspecified, an infinity kept.
                let es = self.shaders[self.cur].parsed.es;
                Ok(Value::V(self.special_bits_undefined(r, es)))
            }
            "fma" => {
                let (sc, n, v) = self.gen_call(name, &vs, FD, &[&[Gen, Gen, Gen]])?;
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
            _ => {
                // ldexp(genFType x, genIType exp): x * 2^exp.
                let (_, _, v) = self.gen_call(name, &vs, FD, &[&[Gen, Same(Sc::Int)]])?;
                let e = V {
                    ty: v[0].ty.clone(),
                    ..v[1].clone()
                };
                let r = self.bin(BinOp::Ldexp, v[0].clone(), e);
                // GLSL 4.60 section 8.3: "If this product is too large to be represented in
                // the floating-point type, the result is undefined. If exp is greater than
                // +128 (single-precision) or +1024 (double-precision), the value returned is
                // undefined."
                let r_inf = self.un(UnOp::IsInf, r.clone());
                let x_inf = self.un(UnOp::IsInf, v[0].clone());
                let n = r.ty.lanes();
                let (r_inf, x_inf) = (
                    V {
                        ty: Ty::V(Sc::Bool, n),
                        ..r_inf
                    },
                    V {
                        ty: Ty::V(Sc::Bool, n),
                        ..x_inf
                    },
                );
                let x_fin = self.un(UnOp::Not, x_inf);
                let over = self.bool_op(BinOp::And, r_inf, x_fin);
                let bound = if r.ty.sc() == Some(Sc::Double) {
                    1024
                } else {
                    128
                };
                let k = self.k_lanes(v[1].ty.clone(), |_| bound);
                let big = self.cmp(CmpOp::Gt, v[1].clone(), k);
                let bad = self.bool_op(BinOp::Or, over, big);
                Ok(Value::V(self.mark_undefined(
                    r,
                    bad,
                    crate::ir::UndefinedRule::LdexpRange,
                )))
            }
        }
    }

    /// mix(x, y, a): x * (1 - a) + y * a for floats (a a gen or a scalar); with a bool
    /// selector, y where a is true and x elsewhere, for every type.
    fn mix(&mut self, vs: &[V]) -> R<Value> {
        use P::*;
        if vs.get(2).and_then(|a| a.ty.sc()) == Some(Sc::Bool) {
            let all = [
                Sc::Float,
                Sc::Double,
                Sc::Int,
                Sc::Uint,
                Sc::Bool,
                Sc::Int64,
                Sc::Uint64,
            ];
            let (_, n, v) = self.gen_call("mix", vs, &all, &[&[Gen, Gen, Same(Sc::Bool)]])?;
            let t = self.fresh(v[0].ty.clone());
            let dst = Dst::lanes(t.src.reg, n);
            self.b.select(n, dst, v[2].src, v[1].src, v[0].src);
            return Ok(Value::V(t));
        }
        let (_, _, v) = self.gen_call("mix", vs, FD, &[&[Gen, Gen, Gen], &[Gen, Gen, Scalar]])?;
        let one = self.k_float(&v[0].ty, 1.0);
        let oma = self.bin(BinOp::Sub, one, v[2].clone());
        let l = self.bin(BinOp::Mul, v[0].clone(), oma);
        let r = self.bin(BinOp::Mul, v[1].clone(), v[2].clone());
        Ok(Value::V(self.bin(BinOp::Add, l, r)))
    }

    /// modf(x, out i) and frexp(x, out exp): the part returned and the part stored through
    /// the out argument.
    fn split_float(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        self.want_args(name, args, 2)?;
        let x = self.rv(&args[0])?;
        let out = self.place_of(&args[1])?;
        let (_, n, v) = self.gen_call(name, &[x], FD, &[&[P::Gen]])?;
        let x = v[0].clone();
        let (ret_op, out_op, out_ty) = if name == "modf" {
            (UnOp::ModfFrac, UnOp::Trunc, x.ty.clone())
        } else {
            (UnOp::FrexpMant, UnOp::FrexpExp, Ty::V(Sc::Int, n))
        };
        if out.ro() || *out.ty() != out_ty {
            return self.err(format!(
                "'{name}': the second argument must be a writable l-value of type {out_ty}"
            ));
        }
        let part = self.un(out_op, x.clone());
        let ret = self.un(ret_op, x.clone());
        if name == "modf" {
            self.store(&out, Value::V(V { ty: out_ty, ..part }))?;
            return Ok(Value::V(ret));
        }
        // GLSL 4.60 section 8.3: "For a floating-point value that is an infinity or is not a
        // number, the results are undefined": both the significand and the exponent.
        let bt = Ty::V(Sc::Bool, n);
        let inf = self.un(UnOp::IsInf, x.clone());
        let nan = self.un(UnOp::IsNan, x);
        let bad = self.bool_op(
            BinOp::Or,
            V {
                ty: bt.clone(),
                ..inf
            },
            V { ty: bt, ..nan },
        );
        let why = crate::ir::UndefinedRule::FrexpSpecial;
        let part = self.mark_undefined(V { ty: out_ty, ..part }, bad.clone(), why);
        self.store(&out, Value::V(part))?;
        Ok(Value::V(self.mark_undefined(ret, bad, why)))
    }
}
