//! The conditions under which the specifications leave a result undefined, as IR a front end
//! emits next to the operation ([`Inst::MarkUndefined`]): the domains of the float functions
//! (GLSL 4.60 sections 8.1 and 8.2, GLSL.std.450, NV_gpu_program4's LG2 and RSQ), clamp's
//! bounds, ldexp's range, frexp's specials and the bitfield ranges. The GLSL front end writes
//! its own with constant folding (`front/glsl/lower/builtin/{trig,common,integer}.rs`,
//! `front/glsl/lower/ops.rs`); the SPIR-V and NV assembly front ends use these.

use super::{BinOp, Builder, CmpOp, Dst, Inst, Reg, ScalarTy, Src, Ty, UnOp, UndefinedRule};

impl Builder {
    /// A register holding the float `x` of `s` (16, 32 or 64 bits) in every lane; `x` is zero
    /// or a normal number exactly representable as a half (the bounds the rules compare with:
    /// 0, 1, -1).
    pub fn float_constant(&mut self, s: ScalarTy, x: f64) -> Reg {
        let bits = match s.bits {
            16 => {
                // The half's fields from the single's: the same sign, exponent rebiased from
                // 127 to 15, the top 10 bits of the mantissa (exact for the values above).
                let f = (x as f32).to_bits();
                let sign = (f >> 16) & 0x8000;
                let exp = (f >> 23) & 0xff;
                let half = if exp == 0 {
                    sign
                } else {
                    sign | ((exp - 127 + 15) << 10) | ((f >> 13) & 0x3ff)
                };
                u64::from(half)
            }
            32 => u64::from((x as f32).to_bits()),
            _ => x.to_bits(),
        };
        self.interned_constant([bits; 4])
    }

    /// Marks the first `lanes` lanes of `d` where `cond` is true as undefined by `why`.
    pub fn mark_undefined(&mut self, lanes: u8, d: Reg, cond: Reg, why: UndefinedRule) -> u32 {
        self.push(Inst::MarkUndefined {
            lanes,
            dst: Dst::lanes(d, lanes),
            cond: Src::new(cond),
            why,
        })
    }

    /// `a op k` for the float constant `k`, as bool lanes.
    fn cmp_float(&mut self, op: CmpOp, ty: Ty, a: Src, k: f64) -> Reg {
        let kr = self.float_constant(ty.scalar, k);
        self.cmp_fresh(op, ty, a, Src::new(kr))
    }

    fn bool_bin(&mut self, op: BinOp, lanes: u8, p: Reg, q: Reg) -> Reg {
        let bt = Ty::new(ScalarTy::BOOL, lanes);
        self.bin_fresh(op, bt, Src::new(p), Src::new(q))
    }

    /// The lanes (bool) where the float function of `rule` is undefined for `x` (and `y`, the
    /// second operand of pow and atan2: atan2 takes `y` first, so `x` is its `y`; the rule is
    /// symmetric). `None` for a rule that is not a float domain.
    pub fn float_domain(&mut self, rule: UndefinedRule, ty: Ty, x: Src, y: Src) -> Option<Reg> {
        use CmpOp::*;
        let n = ty.lanes;
        Some(match rule {
            UndefinedRule::PowDomain => {
                let neg = self.cmp_float(Lt, ty, x, 0.0);
                let zero = self.cmp_float(Eq, ty, x, 0.0);
                let y_le = self.cmp_float(Le, ty, y, 0.0);
                let both = self.bool_bin(BinOp::And, n, zero, y_le);
                self.bool_bin(BinOp::Or, n, neg, both)
            }
            UndefinedRule::LogDomain | UndefinedRule::InverseSqrtDomain => {
                self.cmp_float(Le, ty, x, 0.0)
            }
            UndefinedRule::SqrtDomain => self.cmp_float(Lt, ty, x, 0.0),
            UndefinedRule::AsinAcosDomain => {
                let hi = self.cmp_float(Gt, ty, x, 1.0);
                let lo = self.cmp_float(Lt, ty, x, -1.0);
                self.bool_bin(BinOp::Or, n, hi, lo)
            }
            UndefinedRule::Atan2Origin => {
                let a = self.cmp_float(Eq, ty, x, 0.0);
                let b = self.cmp_float(Eq, ty, y, 0.0);
                self.bool_bin(BinOp::And, n, a, b)
            }
            UndefinedRule::AcoshDomain => self.cmp_float(Lt, ty, x, 1.0),
            UndefinedRule::AtanhDomain => {
                let hi = self.cmp_float(Ge, ty, x, 1.0);
                let lo = self.cmp_float(Le, ty, x, -1.0);
                self.bool_bin(BinOp::Or, n, hi, lo)
            }
            UndefinedRule::NvScsRange => {
                let hi = self.cmp_float(Gt, ty, x, std::f64::consts::PI);
                let lo = self.cmp_float(Lt, ty, x, -std::f64::consts::PI);
                self.bool_bin(BinOp::Or, n, hi, lo)
            }
            _ => return None,
        })
    }

    /// The lanes (bool) where any of `xs` is a NaN (`x != x`).
    pub fn any_nan(&mut self, ty: Ty, xs: &[Src]) -> Reg {
        let mut acc: Option<Reg> = None;
        for &x in xs {
            let nan = self.cmp_fresh(CmpOp::Ne, ty, x, x);
            acc = Some(match acc {
                None => nan,
                Some(a) => self.bool_bin(BinOp::Or, ty.lanes, a, nan),
            });
        }
        acc.expect("at least one operand")
    }

    /// The lanes (bool) where clamp(x, lo, hi) is undefined: `lo > hi`, compared as `ty`.
    pub fn clamp_bounds(&mut self, ty: Ty, lo: Src, hi: Src) -> Reg {
        self.cmp_fresh(CmpOp::Gt, ty, lo, hi)
    }

    /// The lanes (bool) where ldexp(x, e) = `r` is undefined: a finite `x` whose product is
    /// an infinity ("too large to be represented"), or `e` above +128 (32-bit floats) or +1024
    /// (64-bit; no bound is written for halves). `e` is signed 32-bit.
    pub fn ldexp_range(&mut self, ty: Ty, x: Src, e: Src, r: Src) -> Reg {
        let n = ty.lanes;
        let r_inf = self.un_fresh(UnOp::IsInf, ty, r);
        let x_inf = self.un_fresh(UnOp::IsInf, ty, x);
        let bt = Ty::new(ScalarTy::BOOL, n);
        let x_fin = self.un_fresh(UnOp::Not, bt, Src::new(x_inf));
        let over = self.bool_bin(BinOp::And, n, r_inf, x_fin);
        let bound = match ty.scalar.bits {
            32 => 128u64,
            64 => 1024,
            _ => return over,
        };
        let k = self.interned_constant([bound; 4]);
        let big = self.cmp_fresh(CmpOp::Gt, Ty::new(ScalarTy::S32, n), e, Src::new(k));
        self.bool_bin(BinOp::Or, n, over, big)
    }

    /// The lanes (bool) where frexp of `x` is undefined: an infinity or NaN.
    pub fn frexp_special(&mut self, ty: Ty, x: Src) -> Reg {
        let inf = self.un_fresh(UnOp::IsInf, ty, x);
        let nan = self.un_fresh(UnOp::IsNan, ty, x);
        self.bool_bin(BinOp::Or, ty.lanes, inf, nan)
    }

    /// The lanes (bool) where a bitfield extract or insert on `width`-bit lanes is undefined:
    /// `offset` or `count` negative (read as signed 32-bit: as unsigned, they are then above
    /// `width`) or `offset + count > width`; with `nv`, also `offset == width`
    /// (NV_gpu_program5 BFE/BFI: "the starting offset is greater than or equal to the total
    /// number of bits").
    pub fn bitfield_range(
        &mut self,
        lanes: u8,
        width: u8,
        offset: Src,
        count: Src,
        nv: bool,
    ) -> Reg {
        let u = Ty::new(ScalarTy::U32, lanes);
        let w = self.interned_constant([u64::from(width); 4]);
        let off_op = if nv { CmpOp::Ge } else { CmpOp::Gt };
        let off_big = self.cmp_fresh(off_op, u, offset, Src::new(w));
        let cnt_big = self.cmp_fresh(CmpOp::Gt, u, count, Src::new(w));
        // Both at most `width` (<= 64) here, so the sum does not wrap.
        let sum = self.bin_fresh(BinOp::Add, u, offset, count);
        let sum_big = self.cmp_fresh(CmpOp::Gt, u, Src::new(sum), Src::new(w));
        let either = self.bool_bin(BinOp::Or, lanes, off_big, cnt_big);
        self.bool_bin(BinOp::Or, lanes, either, sum_big)
    }

    /// The lanes (bool) where the float `x` is a whole number and a half (x - trunc(x) is
    /// +-0.5): where GLSL's round and GLSL.std.450 Round leave the direction to the
    /// implementation.
    pub fn half_fraction(&mut self, ty: Ty, x: Src) -> Reg {
        let t = self.un_fresh(UnOp::Trunc, ty, x);
        let d = self.bin_fresh(BinOp::Sub, ty, x, Src::new(t));
        let a = self.un_fresh(UnOp::Abs, ty, Src::new(d));
        self.cmp_float(CmpOp::Eq, ty, Src::new(a), 0.5)
    }

    /// clamp(`v`, `lo`, 1) * `scale` (as `ty`): a norm pack's value before its round.
    pub fn norm_scaled(&mut self, ty: Ty, v: Src, lo: f64, scale: f64) -> Reg {
        let (lo, one, scale) = (
            self.float_constant(ty.scalar, lo),
            self.float_constant(ty.scalar, 1.0),
            self.float_constant(ty.scalar, scale),
        );
        let c = self.bin_fresh(BinOp::Max, ty, v, Src::new(lo));
        let c = self.bin_fresh(BinOp::Min, ty, Src::new(c), Src::new(one));
        self.bin_fresh(BinOp::Mul, ty, Src::new(c), Src::new(scale))
    }

    /// One bool lane: whether a norm pack (GLSL pack{U,S}norm*, GLSL.std.450 Pack{U,S}norm*)
    /// of the `ty` components `v`, `scaled` by [`Builder::norm_scaled`], is undefined: a
    /// component is a NaN (the clamp it is written with is undefined for one) or its scaled
    /// value is a whole number and a half (the round it is written with picks the direction).
    pub fn pack_norm_undefined(&mut self, ty: Ty, v: Src, scaled: Src) -> Reg {
        let nan = self.any_nan(ty, &[v]);
        let half = self.half_fraction(ty, scaled);
        let bad = self.bool_bin(BinOp::Or, ty.lanes, nan, half);
        let bt = Ty::new(ScalarTy::BOOL, 1);
        let mut acc = self.mov_fresh(1, Src::splat(bad, 0));
        for lane in 1..ty.lanes {
            acc = self.bin_fresh(BinOp::Or, bt, Src::new(acc), Src::splat(bad, lane));
        }
        acc
    }

    /// The lanes (bool) where `a` or `b` (as `ty`, signed) is negative.
    pub fn either_negative(&mut self, ty: Ty, a: Src, b: Src) -> Reg {
        let zero = self.interned_constant([0; 4]);
        let a_neg = self.cmp_fresh(CmpOp::Lt, ty, a, Src::new(zero));
        let b_neg = self.cmp_fresh(CmpOp::Lt, ty, b, Src::new(zero));
        self.bool_bin(BinOp::Or, ty.lanes, a_neg, b_neg)
    }

    /// The lanes (bool) where a signed division of `a` by `b` (as `ty`, signed) overflows: the
    /// minimum integer by -1.
    pub fn signed_division_overflow(&mut self, ty: Ty, a: Src, b: Src) -> Reg {
        let min = 1u64 << (ty.scalar.bits - 1);
        let kmin = self.interned_constant([min; 4]);
        let kneg1 = self.interned_constant([ty.scalar.mask(); 4]);
        let is_min = self.cmp_fresh(CmpOp::Eq, ty, a, Src::new(kmin));
        let is_neg1 = self.cmp_fresh(CmpOp::Eq, ty, b, Src::new(kneg1));
        self.bool_bin(BinOp::And, ty.lanes, is_min, is_neg1)
    }
}

/// The lower bound and the scale of a norm pack of `bits`-bit fields: (-1, 2^(bits-1) - 1)
/// signed, (0, 2^bits - 1) unsigned (GLSL 4.60 section 8.4).
pub fn norm_range(signed: bool, bits: u32) -> (f64, f64) {
    if signed {
        (-1.0, f64::from((1u32 << (bits - 1)) - 1))
    } else {
        (0.0, f64::from((1u32 << bits) - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_constants_are_exact() {
        let mut b = Builder::new();
        for (x, h) in [
            (0.0, 0u64),
            (-0.0, 0x8000),
            (1.0, 0x3c00),
            (-1.0, 0xbc00),
            (2.0, 0x4000),
        ] {
            let r = b.float_constant(ScalarTy::F16, x);
            assert_eq!(b.reg_init[r.0 as usize][0], h, "{x}");
        }
    }
}
