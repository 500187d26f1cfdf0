//! GLSL.std.450 instructions that split a float or pack several into an integer, lowered with
//! bit operations on the float's encoding (exact, no rounding choice but the packing's
//! `round`): Modf / ModfStruct, Frexp / FrexpStruct, and the normalized packing
//! PackSnorm4x8 / PackUnorm4x8 / PackSnorm2x16 / PackUnorm2x16 and their unpacking.

use super::super::{Fcx, Lowerer, Val, R};
use crate::ir::{BinOp, CmpOp, Dst, Kind, Reg, ScalarTy, Src, Ty, UnOp};
use rspirv::dr::Instruction;

/// The field widths of an IEEE float of `bits` bits: (mantissa bits, exponent bits).
fn fields(bits: u8) -> (u32, u32) {
    match bits {
        16 => (10, 5),
        32 => (23, 8),
        _ => (52, 11),
    }
}

impl<'a, 'm> Lowerer<'a, 'm> {
    /// Lowers Modf (35), ModfStruct (36), Frexp (51), FrexpStruct (52) and the normalized
    /// packing (54-57, 60, 61, 63, 64); `None` when `num` is none of them.
    pub(super) fn glsl_split(
        &mut self,
        fcx: &mut Fcx,
        inst: &Instruction,
        num: u32,
    ) -> Option<R<()>> {
        Some(match num {
            35 | 36 | 51 | 52 => self.split_float(fcx, inst, num),
            54 => self.pack_norm(fcx, inst, true, 8),
            55 => self.pack_norm(fcx, inst, false, 8),
            56 => self.pack_norm(fcx, inst, true, 16),
            57 => self.pack_norm(fcx, inst, false, 16),
            60 => self.unpack_norm(fcx, inst, true, 16),
            61 => self.unpack_norm(fcx, inst, false, 16),
            63 => self.unpack_norm(fcx, inst, true, 8),
            64 => self.unpack_norm(fcx, inst, false, 8),
            _ => return None,
        })
    }

    /// An interned constant of `v` in every lane.
    fn k(&mut self, v: u64) -> Src {
        Src::new(self.b.interned_constant([v; 4]))
    }

    /// `x` with the sign bit of `sign` (both floats of `ty`), through their bits.
    fn copy_sign(&mut self, ty: Ty, x: Src, sign: Src) -> Reg {
        let u = Ty::new(Self::with_kind(ty.scalar, Kind::U), ty.lanes);
        let bit = 1u64 << (ty.scalar.bits - 1);
        let (magnitude_mask, sign_mask) = (self.k(ty.scalar.mask() & !bit), self.k(bit));
        let magnitude = self.b.bin_fresh(BinOp::And, u, x, magnitude_mask);
        let s = self.b.bin_fresh(BinOp::And, u, sign, sign_mask);
        self.b
            .bin_fresh(BinOp::Or, u, Src::new(magnitude), Src::new(s))
    }

    /// Modf / Frexp write their second part through the pointer operand; the Struct forms
    /// return both parts.
    fn split_float(&mut self, fcx: &mut Fcx, inst: &Instruction, num: u32) -> R<()> {
        let (x, ty) = self.ext_arg(fcx, inst, 0)?;
        let (first, second) = if num <= 36 {
            self.modf_parts(x, ty)
        } else {
            // GLSL.std.450 Frexp, as GLSL 4.60 section 8.3: the results (both parts) are
            // undefined for an infinity or NaN.
            let (m, e) = self.frexp_parts(x, ty);
            let bad = self.b.frexp_special(ty, Src::new(x));
            let why = crate::ir::UndefinedRule::FrexpSpecial;
            self.b.mark_undefined(ty.lanes, m, bad, why);
            self.b.mark_undefined(ty.lanes, e, bad, why);
            (m, e)
        };
        if num == 35 || num == 51 {
            let p = self.ptr_operand(fcx, inst, 3)?;
            self.store(inst, &p, &Val::R(second), 0)?;
            self.set(fcx, inst, Val::R(first));
        } else {
            self.set(fcx, inst, Val::C(vec![Val::R(first), Val::R(second)]));
        }
        Ok(())
    }

    /// modf: (x - trunc(x), trunc(x)), both with the sign of x ("Both the result and the
    /// output parameter will have the same sign as x"); an infinity splits into (±0, ±inf).
    fn modf_parts(&mut self, x: Reg, ty: Ty) -> (Reg, Reg) {
        let whole = self.b.un_fresh(UnOp::Trunc, ty, Src::new(x));
        let diff = self
            .b
            .bin_fresh(BinOp::Sub, ty, Src::new(x), Src::new(whole));
        let inf = self.b.un_fresh(UnOp::IsInf, ty, Src::new(x));
        let zero = self.k(0);
        let frac = self.select_fresh(ty.lanes, Src::new(inf), zero, Src::new(diff));
        let frac = self.copy_sign(ty, Src::new(frac), Src::new(x));
        let whole = self.copy_sign(ty, Src::new(whole), Src::new(x));
        (frac, whole)
    }

    /// frexp: x = significand * 2^exponent with |significand| in [0.5, 1), from the encoding;
    /// a subnormal is first scaled into the normal range by 2^(mantissa bits + 2) (exact). Zero
    /// gives (x, 0). The exponent is a 32-bit signed integer. (For an infinity or NaN the
    /// results are undefined: these give the encoding's fields as they are.)
    fn frexp_parts(&mut self, x: Reg, ty: Ty) -> (Reg, Reg) {
        let s = ty.scalar;
        let (m, e) = fields(s.bits);
        let u = Ty::new(Self::with_kind(s, Kind::U), ty.lanes);
        let i = Ty::new(Self::with_kind(s, Kind::S), ty.lanes);
        let exp_mask = (1u64 << e) - 1;
        let bias = (1u64 << (e - 1)) - 1;
        let shift = self.k(u64::from(m));
        let field_mask = self.k(exp_mask);
        let field_of = |me: &mut Self, v: Src| {
            let sh = me.b.bin_fresh(BinOp::Shr, u, v, shift);
            me.b.bin_fresh(BinOp::And, u, Src::new(sh), field_mask)
        };
        let field = field_of(self, Src::new(x));
        let zero = self.k(0);
        let subnormal = self.b.cmp_fresh(CmpOp::Eq, u, Src::new(field), zero);
        let scale_exp = i32::try_from(m + 2).unwrap_or(0);
        let scale = self.float_const(s, 2f64.powi(scale_exp));
        let scaled = self
            .b
            .bin_fresh(BinOp::Mul, ty, Src::new(x), Src::new(scale));
        let y = self.select_fresh(ty.lanes, Src::new(subnormal), Src::new(scaled), Src::new(x));
        let field = field_of(self, Src::new(y));
        // exponent = field - (bias - 1) - (scale_exp if subnormal)
        let off = self.k(bias - 1);
        let unbiased = self.b.bin_fresh(BinOp::Sub, i, Src::new(field), off);
        let (k_scale, k0) = (self.k(u64::from(m + 2)), self.k(0));
        let adjust = self.select_fresh(ty.lanes, Src::new(subnormal), k_scale, k0);
        let exponent = self
            .b
            .bin_fresh(BinOp::Sub, i, Src::new(unbiased), Src::new(adjust));
        // significand: y's sign and mantissa with the exponent field of 0.5 (bias - 1)
        let keep = self.k(s.mask() & !(exp_mask << m));
        let kept = self.b.bin_fresh(BinOp::And, u, Src::new(y), keep);
        let half = self.k((bias - 1) << m);
        let significand = self.b.bin_fresh(BinOp::Or, u, Src::new(kept), half);
        // zero: (x, 0)
        let is_zero = self.b.cmp_fresh(CmpOp::Eq, ty, Src::new(x), zero);
        let significand = self.select_fresh(
            ty.lanes,
            Src::new(is_zero),
            Src::new(x),
            Src::new(significand),
        );
        let exponent = self.select_fresh(ty.lanes, Src::new(is_zero), zero, Src::new(exponent));
        let exponent = if s.bits == 32 {
            exponent
        } else {
            self.convert_fresh(i.scalar, ScalarTy::S32, ty.lanes, exponent)
        };
        (significand, exponent)
    }

    /// Pack{S,U}norm: each component c becomes round(clamp(c, -1 or 0, 1) * (2^(bits-1) - 1 or
    /// 2^bits - 1)) ("round" picks the even neighbour on a tie), and component i lands in bits
    /// [i * bits, (i + 1) * bits) of the result.
    fn pack_norm(&mut self, fcx: &mut Fcx, inst: &Instruction, signed: bool, bits: u32) -> R<()> {
        let (v, _) = self.ext_arg(fcx, inst, 0)?;
        let n = (32 / bits) as u8;
        let f = Ty::new(ScalarTy::F32, n);
        let (lo, scale) = crate::ir::norm_range(signed, bits);
        let scaled = self.b.norm_scaled(f, Src::new(v), lo, scale);
        let c = self.b.un_fresh(UnOp::RoundEven, f, Src::new(scaled));
        let to = if signed { ScalarTy::S32 } else { ScalarTy::U32 };
        let ints = self.convert_fresh(ScalarTy::F32, to, n, c);
        let u = Ty::new(ScalarTy::U32, 1);
        let field = self.k((1u64 << bits) - 1);
        let mut acc: Option<Reg> = None;
        for lane in 0..n {
            let part = self
                .b
                .bin_fresh(BinOp::And, u, Src::splat(ints, lane), field);
            let at = self.k(u64::from(bits) * u64::from(lane));
            let part = self.b.bin_fresh(BinOp::Shl, u, Src::new(part), at);
            acc = Some(match acc {
                None => part,
                Some(a) => self.b.bin_fresh(BinOp::Or, u, Src::new(a), Src::new(part)),
            });
        }
        let d = acc.unwrap_or_else(|| self.b.reg());
        let bad = self.b.pack_norm_undefined(f, Src::new(v), Src::new(scaled));
        self.b
            .mark_undefined(1, d, bad, crate::ir::UndefinedRule::PackNormRounding);
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    /// Unpack{S,U}norm: component i is the field at bits [i * bits, (i + 1) * bits) (signed
    /// or not) divided by 2^(bits-1) - 1 or 2^bits - 1, the signed quotient clamped to
    /// [-1, 1].
    fn unpack_norm(&mut self, fcx: &mut Fcx, inst: &Instruction, signed: bool, bits: u32) -> R<()> {
        let (p, _) = self.ext_arg(fcx, inst, 0)?;
        let n = (32 / bits) as u8;
        let it = if signed { ScalarTy::S32 } else { ScalarTy::U32 };
        let fields = self.b.reg();
        let width = self.k(u64::from(bits));
        let b = u64::from(bits);
        let offsets = Src::new(self.b.interned_constant([0, b, 2 * b, 3 * b]));
        self.b.push(crate::ir::Inst::BitfieldExtract {
            ty: Ty::new(it, n),
            dst: Dst::new(fields),
            a: Src::splat(p, 0),
            offset: offsets,
            width,
        });
        let f = Ty::new(ScalarTy::F32, n);
        let floats = self.convert_fresh(it, ScalarTy::F32, n, fields);
        let scale = if signed {
            (1u32 << (bits - 1)) - 1
        } else {
            (1u32 << bits) - 1
        };
        let scale = self.float_const(ScalarTy::F32, f64::from(scale));
        let q = self
            .b
            .bin_fresh(BinOp::Div, f, Src::new(floats), Src::new(scale));
        let d = if signed {
            let (lo, hi) = (
                self.float_const(ScalarTy::F32, -1.0),
                self.float_const(ScalarTy::F32, 1.0),
            );
            let c = self.b.bin_fresh(BinOp::Max, f, Src::new(q), Src::new(lo));
            self.b.bin_fresh(BinOp::Min, f, Src::new(c), Src::new(hi))
        } else {
            q
        };
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }
}
