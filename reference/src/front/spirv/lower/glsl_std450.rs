//! The GLSL.std.450 extended instruction set (OpExtInst): rounding, abs, sign, fract, sin / cos,
//! pow, exp2 / log2, sqrt, inversesqrt, min / max / clamp, mix, fma, ldexp, findLSB / MSB,
//! half and double packing here; the formula instructions (radians, step, smoothstep,
//! length, cross, reflect, ...) in `geometric`, determinant and inverse in `matrix`, modf,
//! frexp and the normalized packing in `split`.

mod geometric;
mod matrix;
mod split;

use super::{Fcx, Lowerer, Val, R};
use crate::front::spirv::module::lit_at;
use crate::ir::{BinOp, Dst, Inst, Kind, Reg, ScalarTy, Src, Ty, UnOp, UndefinedRule};
use rspirv::dr::Instruction;

impl<'a, 'm> Lowerer<'a, 'm> {
    pub(super) fn glsl_ext(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let Some(num) = lit_at(inst, 1) else {
            return self.err(inst, "malformed OpExtInst");
        };
        match num {
            33 => {
                let d = self.determinant(fcx, inst)?;
                self.set(fcx, inst, Val::R(d));
                return Ok(());
            }
            34 => {
                let v = self.matrix_inverse(fcx, inst)?;
                self.set(fcx, inst, v);
                return Ok(());
            }
            _ => {}
        }
        if let Some(r) = self.glsl_split(fcx, inst, num) {
            return r;
        }
        if let Some(r) = self.glsl_formula(fcx, inst, num) {
            let d = r?;
            self.set(fcx, inst, Val::R(d));
            return Ok(());
        }
        let (rs, lanes) = self.result_ty(inst)?;
        let ty = Ty::new(rs, lanes);
        let d = self.result_reg(fcx, inst);
        let arg = |s: &Self, k: usize| s.reg_operand(fcx, inst, 2 + k);
        let un = |s: &mut Self, op: UnOp, kind: Kind| -> R<()> {
            let a = arg(s, 0)?;
            s.b.un(
                op,
                Ty::new(Self::with_kind(rs, kind), lanes),
                Dst::new(d),
                Src::new(a),
            );
            Ok(())
        };
        let bin = |s: &mut Self, op: BinOp, kind: Kind| -> R<()> {
            let (a, b) = (arg(s, 0)?, arg(s, 1)?);
            s.b.bin(
                op,
                Ty::new(Self::with_kind(rs, kind), lanes),
                Dst::new(d),
                Src::new(a),
                Src::new(b),
            );
            Ok(())
        };
        match num {
            // Round: "0.5 rounds in a direction chosen by the implementation": to even, the
            // halves marked undefined (either neighbour is right).
            1 => {
                un(self, UnOp::RoundEven, Kind::F)?;
                let x = arg(self, 0)?;
                let tie = self.b.half_fraction(ty, Src::new(x));
                self.b
                    .mark_undefined(lanes, d, tie, UndefinedRule::RoundHalf);
            }
            2 => un(self, UnOp::RoundEven, Kind::F)?,
            3 => un(self, UnOp::Trunc, Kind::F)?,
            4 => un(self, UnOp::Abs, Kind::F)?,
            5 => un(self, UnOp::Abs, Kind::S)?,
            6 => un(self, UnOp::Sign, Kind::F)?,
            7 => un(self, UnOp::Sign, Kind::S)?,
            8 => un(self, UnOp::Floor, Kind::F)?,
            9 => un(self, UnOp::Ceil, Kind::F)?,
            10 => un(self, UnOp::Fract, Kind::F)?,
            13 => un(self, UnOp::Sin, Kind::F)?,
            14 => un(self, UnOp::Cos, Kind::F)?,
            15 => un(self, UnOp::Tan, Kind::F)?,
            16 => un(self, UnOp::Asin, Kind::F)?,
            17 => un(self, UnOp::Acos, Kind::F)?,
            18 => un(self, UnOp::Atan, Kind::F)?,
            19 => un(self, UnOp::Sinh, Kind::F)?,
            20 => un(self, UnOp::Cosh, Kind::F)?,
            21 => un(self, UnOp::Tanh, Kind::F)?,
            22 => un(self, UnOp::Asinh, Kind::F)?,
            23 => un(self, UnOp::Acosh, Kind::F)?,
            24 => un(self, UnOp::Atanh, Kind::F)?,
            // Atan2(y, x): the IR's Atan2 takes y first as well.
            25 => bin(self, BinOp::Atan2, Kind::F)?,
            26 => bin(self, BinOp::Pow, Kind::F)?,
            27 => un(self, UnOp::Exp, Kind::F)?,
            28 => un(self, UnOp::Log, Kind::F)?,
            29 => un(self, UnOp::Exp2, Kind::F)?,
            30 => un(self, UnOp::Log2, Kind::F)?,
            31 => un(self, UnOp::Sqrt, Kind::F)?,
            32 => un(self, UnOp::Rsq, Kind::F)?,
            // FMin, FMax: "If either operand is a NaN, the result is undefined" (NMin, NMax:
            // the other operand, as the IR's Min and Max give).
            37 | 40 => {
                let op = if num == 37 { BinOp::Min } else { BinOp::Max };
                bin(self, op, Kind::F)?;
                let t = Ty::new(Self::with_kind(rs, Kind::F), lanes);
                let (x, y) = (arg(self, 0)?, arg(self, 1)?);
                let bad = self.b.any_nan(t, &[Src::new(x), Src::new(y)]);
                self.b
                    .mark_undefined(lanes, d, bad, UndefinedRule::MinMaxNan);
            }
            79 => bin(self, BinOp::Min, Kind::F)?,
            38 => bin(self, BinOp::Min, Kind::U)?,
            39 => bin(self, BinOp::Min, Kind::S)?,
            80 => bin(self, BinOp::Max, Kind::F)?,
            41 => bin(self, BinOp::Max, Kind::U)?,
            42 => bin(self, BinOp::Max, Kind::S)?,
            43 | 44 | 45 | 81 => {
                let k = match num {
                    44 => Kind::U,
                    45 => Kind::S,
                    _ => Kind::F,
                };
                let t = Ty::new(Self::with_kind(rs, k), lanes);
                let (x, lo, hi) = (arg(self, 0)?, arg(self, 1)?, arg(self, 2)?);
                let m = self.b.reg();
                self.b
                    .bin(BinOp::Max, t, Dst::new(m), Src::new(x), Src::new(lo));
                self.b
                    .bin(BinOp::Min, t, Dst::new(d), Src::new(m), Src::new(hi));
                // FClamp, UClamp, SClamp, NClamp: "Result is undefined if minVal > maxVal."
                let bad = self.b.clamp_bounds(t, Src::new(lo), Src::new(hi));
                self.b
                    .mark_undefined(lanes, d, bad, UndefinedRule::ClampBounds);
                if num == 43 {
                    // FClamp is FMin(FMax(x, minVal), maxVal): undefined with a NaN operand.
                    let nan = self
                        .b
                        .any_nan(t, &[Src::new(x), Src::new(lo), Src::new(hi)]);
                    self.b
                        .mark_undefined(lanes, d, nan, UndefinedRule::MinMaxNan);
                }
            }
            46 => {
                // mix(x, y, a) = x + (y - x) * a
                let (x, y, a) = (arg(self, 0)?, arg(self, 1)?, arg(self, 2)?);
                let t = self.b.reg();
                self.b
                    .bin(BinOp::Sub, ty, Dst::new(t), Src::new(y), Src::new(x));
                self.b.push(Inst::Mad {
                    ty,
                    dst: Dst::new(d),
                    a: Src::new(t),
                    b: Src::new(a),
                    c: Src::new(x),
                });
            }
            50 => {
                let (a, b, c) = (arg(self, 0)?, arg(self, 1)?, arg(self, 2)?);
                self.b.push(Inst::Mad {
                    ty,
                    dst: Dst::new(d),
                    a: Src::new(a),
                    b: Src::new(b),
                    c: Src::new(c),
                });
            }
            58 => {
                // PackHalf2x16: v.x to the low 16 bits, v.y to the high 16, each rounded to
                // half once (to nearest even).
                let v = arg(self, 0)?;
                let h = self.convert_fresh(ScalarTy::F32, ScalarTy::F16, 2, v);
                let sixteen = self.cu32(16);
                let u = Ty::new(ScalarTy::U32, 1);
                let hi = self
                    .b
                    .bin_fresh(BinOp::Shl, u, Src::splat(h, 1), Src::new(sixteen));
                self.b
                    .bin(BinOp::Or, u, Dst::new(d), Src::splat(h, 0), Src::new(hi));
            }
            62 => {
                // UnpackHalf2x16: the low 16 bits to x, the high 16 to y (exact).
                let p = arg(self, 0)?;
                let sixteen = self.cu32(16);
                let u = Ty::new(ScalarTy::U32, 1);
                let halves = self.b.reg();
                let mask = self.cu32(0xffff);
                self.b.bin(
                    BinOp::And,
                    u,
                    Dst::masked(halves, 1),
                    Src::new(p),
                    Src::new(mask),
                );
                self.b.bin(
                    BinOp::Shr,
                    Ty::new(ScalarTy::U32, 2),
                    Dst::masked(halves, 2),
                    Src::splat(p, 0),
                    Src::splat(sixteen, 0),
                );
                self.b.convert(
                    ScalarTy::F16,
                    ScalarTy::F32,
                    2,
                    Dst::new(d),
                    Src::new(halves),
                );
            }
            // PackDouble2x32 / UnpackDouble2x32: the bits as they are, low word first.
            59 => {
                let v = arg(self, 0)?;
                self.b.push(Inst::Pack64 {
                    dst: Dst::masked(d, 1),
                    a: Src::swizzled(v, [0, 1, 0, 1]),
                });
            }
            65 => {
                let v = arg(self, 0)?;
                self.b.push(Inst::Unpack64 {
                    dst: Dst::masked(d, 3),
                    a: Src::new(v),
                });
            }
            53 => {
                let x = arg(self, 0)?;
                let e = self.ldexp_exponent(fcx, inst)?;
                self.b
                    .bin(BinOp::Ldexp, ty, Dst::new(d), Src::new(x), Src::new(e));
                // Ldexp: undefined if the product is too large for the type or exp is above
                // +128 (single) or +1024 (double).
                let bad = self
                    .b
                    .ldexp_range(ty, Src::new(x), Src::new(e), Src::new(d));
                self.b
                    .mark_undefined(lanes, d, bad, UndefinedRule::LdexpRange);
            }
            73 => un(self, UnOp::FindLsb, Kind::U)?,
            74 => un(self, UnOp::FindMsb, Kind::S)?,
            75 => un(self, UnOp::FindMsb, Kind::U)?,
            _ => {
                return self.err(
                    inst,
                    format!("GLSL.std.450 instruction {num} is not supported by the reference"),
                )
            }
        }
        // The domains GLSL.std.450 leaves undefined, as GLSL 4.60 chapter 8 does: "Result is
        // undefined if abs x > 1" (Asin, Acos), "if x < 1" (Acosh), "if abs x >= 1" (Atanh),
        // "if x and y are both 0" (Atan2), "if x < 0 ... if x = 0 and y <= 0" (Pow), "if x
        // <= 0" (Log, Log2, InverseSqrt), "if x < 0" (Sqrt).
        let rule = match num {
            16 | 17 => UndefinedRule::AsinAcosDomain,
            23 => UndefinedRule::AcoshDomain,
            24 => UndefinedRule::AtanhDomain,
            25 => UndefinedRule::Atan2Origin,
            26 => UndefinedRule::PowDomain,
            28 | 30 => UndefinedRule::LogDomain,
            31 => UndefinedRule::SqrtDomain,
            32 => UndefinedRule::InverseSqrtDomain,
            _ => return Ok(()),
        };
        let x = arg(self, 0)?;
        let y = if matches!(num, 25 | 26) {
            arg(self, 1)?
        } else {
            x
        };
        let ft = Ty::new(Self::with_kind(rs, Kind::F), lanes);
        if let Some(bad) = self.b.float_domain(rule, ft, Src::new(x), Src::new(y)) {
            self.b.mark_undefined(lanes, d, bad, rule);
        }
        Ok(())
    }

    /// The exponent operand of Ldexp as the signed 32-bit lanes the IR's `Ldexp` reads.
    /// GLSL.std.450 reads `exp` as signed whatever its width: 8- and 16-bit exponents are
    /// sign-extended; 64-bit ones are clamped to the 32-bit range first (every exponent beyond
    /// ±1100 gives the same result, an infinity or a zero, in every float width; past +128 /
    /// +1024 / +16 the value is undefined anyway).
    fn ldexp_exponent(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Reg> {
        let (es, lanes) = self.operand_ty(inst, 3)?;
        let e = self.reg_operand(fcx, inst, 3)?;
        let signed = Self::with_kind(es, Kind::S);
        match es.bits {
            32 => Ok(e),
            64 => {
                let ty = Ty::new(signed, lanes);
                let lo = self.b.interned_constant([(i64::from(i32::MIN) as u64); 4]);
                let hi = self.b.interned_constant([i32::MAX as u64; 4]);
                let t = self.b.bin_fresh(BinOp::Max, ty, Src::new(e), Src::new(lo));
                let t = self.b.bin_fresh(BinOp::Min, ty, Src::new(t), Src::new(hi));
                Ok(self.convert_fresh(signed, ScalarTy::S32, lanes, t))
            }
            _ => Ok(self.convert_fresh(signed, ScalarTy::S32, lanes, e)),
        }
    }

    /// `a` converted from `from` to `to` into a fresh register.
    pub(super) fn convert_fresh(&mut self, from: ScalarTy, to: ScalarTy, lanes: u8, a: Reg) -> Reg {
        let d = self.b.reg();
        self.b.convert(from, to, lanes, Dst::new(d), Src::new(a));
        d
    }
}
