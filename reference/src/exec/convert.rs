//! Conversions with an explicit rounding direction and integer overflow rule
//! ([`crate::ir::Inst::ConvertRounded`], the semantics of NV_gpu_program5's CVT).
//!
//! CVT converts "to an infinite-precision value of the destination data type, and then" to the
//! result type: a float → integer conversion picks one of the two nearest integers by the
//! rounding modifier; a float result not exactly representable is rounded to one of its two
//! neighbours by the same modifier (for integer and float sources alike); an integer result
//! outside the destination is clamped with SAT and keeps its low bits without. Only NaN and
//! the infinities converted to an integer are undefined. Every source value is exact in an
//! `f64` (floats of 16, 32 and 64 bits) or an `i128` (integers up to 64 bits), so each result
//! is computed from the exact value with one rounding.

use super::values::{bits_f32, bits_f64, f16_to_f32, f32_of, f64_of, f64_to_f16, sext};
use crate::ir::{Kind, Rounding, ScalarTy};
use std::cmp::Ordering;

/// A source value, exactly.
#[derive(Clone, Copy, Debug)]
enum Exact {
    Float(f64),
    Int(i128),
}

fn decode(t: ScalarTy, v: u64) -> Exact {
    match (t.kind, t.bits) {
        (Kind::F, 16) => Exact::Float(f64::from(f16_to_f32(v as u16))),
        (Kind::F, 32) => Exact::Float(f64::from(f32_of(v))),
        (Kind::F, _) => Exact::Float(f64_of(v)),
        (Kind::S, bits) => Exact::Int(i128::from(sext(v, bits))),
        _ => Exact::Int(i128::from(v & t.mask())),
    }
}

/// The float of `bits` bits (16, 32, 64) nearest to `x` (ties to even), as its bit pattern.
fn nearest_float(x: Exact, bits: u8) -> u64 {
    match (x, bits) {
        (Exact::Float(f), 16) => u64::from(f64_to_f16(f)),
        (Exact::Float(f), 32) => bits_f32(f as f32),
        (Exact::Float(f), _) => bits_f64(f),
        // |i| <= 2^53 is exact in an f64; beyond, the half is infinite either way.
        (Exact::Int(i), 16) => u64::from(f64_to_f16(i as f64)),
        (Exact::Int(i), 32) => bits_f32(i as f32),
        (Exact::Int(i), _) => bits_f64(i as f64),
    }
}

fn float_value(bits: u8, v: u64) -> f64 {
    match bits {
        16 => f64::from(f16_to_f32(v as u16)),
        32 => f64::from(f32_of(v)),
        _ => f64_of(v),
    }
}

/// How the float `r` (not NaN) compares with the exact value `x`. A float nearest to an
/// integer is itself an integer (or infinite), so the integer comparison is exact.
fn compare(r: f64, x: Exact) -> Ordering {
    match x {
        Exact::Float(f) => r.partial_cmp(&f).unwrap_or(Ordering::Equal),
        Exact::Int(_) if r.is_infinite() => {
            if r > 0.0 {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        Exact::Int(i) => (r as i128).cmp(&i),
    }
}

/// The neighbour of the float bit pattern `v` (of `bits` bits, not NaN) toward +infinity
/// (`up`) or -infinity.
fn step(v: u64, bits: u8, up: bool) -> u64 {
    let sign = 1u64 << (bits - 1);
    let magnitude = v & (sign - 1);
    let negative = v & sign != 0;
    if magnitude == 0 {
        // ±0: the smallest subnormal of the direction's sign
        return if up { 1 } else { sign | 1 };
    }
    // Away from zero increments the magnitude, toward zero decrements it.
    if up != negative {
        v + 1
    } else {
        v - 1
    }
}

fn to_float(x: Exact, bits: u8, round: Rounding) -> u64 {
    if let Exact::Float(f) = x {
        if f.is_nan() {
            return nearest_float(x, bits);
        }
    }
    let r = nearest_float(x, bits);
    let order = compare(float_value(bits, r), x);
    let up = match (round, order) {
        (_, Ordering::Equal) | (Rounding::NearestEven, _) => return r,
        (Rounding::Up, Ordering::Less) => true,
        (Rounding::Down, Ordering::Greater) => false,
        // toward zero: step back only when the nearest one is farther from zero
        (Rounding::TowardZero, Ordering::Greater) if float_value(bits, r) > 0.0 => false,
        (Rounding::TowardZero, Ordering::Less) if float_value(bits, r) < 0.0 => true,
        _ => return r,
    };
    step(r, bits, up)
}

/// An exact integer in `to` (S or U): clamped with `sat`, else its low `to.bits` bits.
fn to_int(i: i128, to: ScalarTy, sat: bool) -> u64 {
    if sat {
        let (lo, hi) = if to.kind == Kind::S {
            let h = 1i128 << (to.bits - 1);
            (-h, h - 1)
        } else {
            (0, (1i128 << to.bits) - 1)
        };
        (i.clamp(lo, hi) as u64) & to.mask()
    } else {
        (i as u64) & to.mask()
    }
}

/// Converts `v` from `from` to `to` (kinds F, S, U) rounding by `round`, clamping integer
/// results with `sat`; returns the bits and whether the result is defined (false only for
/// NaN or an infinity converted to an integer, whose value is then 0).
pub fn convert_rounded(
    from: ScalarTy,
    to: ScalarTy,
    round: Rounding,
    sat: bool,
    v: u64,
) -> (u64, bool) {
    let x = decode(from, v);
    if to.kind == Kind::F {
        return (to_float(x, to.bits, round), true);
    }
    let i = match x {
        Exact::Int(i) => i,
        Exact::Float(f) if !f.is_finite() => return (0, false),
        Exact::Float(f) => {
            let r = match round {
                Rounding::NearestEven => f.round_ties_even(),
                Rounding::Up => f.ceil(),
                Rounding::Down => f.floor(),
                Rounding::TowardZero => f.trunc(),
            };
            if r.abs() < 2f64.powi(100) {
                r as i128
            } else if sat {
                // beyond every integer type: the clamp's bound
                if r > 0.0 {
                    i128::MAX
                } else {
                    i128::MIN
                }
            } else {
                // a multiple of 2^100: no low bits
                0
            }
        }
    };
    (to_int(i, to, sat), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    const F: ScalarTy = ScalarTy::F32;
    const S8: ScalarTy = ScalarTy {
        kind: Kind::S,
        bits: 8,
    };
    const U8: ScalarTy = ScalarTy {
        kind: Kind::U,
        bits: 8,
    };
    const U16: ScalarTy = ScalarTy {
        kind: Kind::U,
        bits: 16,
    };

    fn f(x: f32) -> u64 {
        bits_f32(x)
    }

    #[test]
    fn float_to_int_rounds_then_wraps_or_clamps() {
        let s32 = ScalarTy::S32;
        let n = Rounding::NearestEven;
        assert_eq!(convert_rounded(F, s32, n, false, f(2.5)), (2, true));
        assert_eq!(
            convert_rounded(F, s32, n, false, f(-2.5)),
            (0xffff_fffe, true)
        );
        assert_eq!(
            convert_rounded(F, s32, Rounding::Up, false, f(2.1)),
            (3, true)
        );
        assert_eq!(
            convert_rounded(F, s32, Rounding::Down, false, f(-2.1)),
            ((-3i32) as u32 as u64, true)
        );
        assert_eq!(
            convert_rounded(F, s32, Rounding::TowardZero, false, f(-2.9)),
            ((-2i32) as u32 as u64, true)
        );
        // 3e9 = 3000000000: without SAT its low 32 bits, with SAT INT_MAX
        assert_eq!(
            convert_rounded(F, s32, n, false, f(3e9)),
            (3_000_000_000, true)
        );
        assert_eq!(
            convert_rounded(F, s32, n, true, f(3e9)),
            (0x7fff_ffff, true)
        );
        assert_eq!(
            convert_rounded(F, s32, n, true, f(-3e9)),
            (0x8000_0000, true)
        );
        assert_eq!(convert_rounded(F, S8, n, true, f(200.0)), (0x7f, true));
        assert_eq!(convert_rounded(F, S8, n, false, f(200.0)), (200, true));
        assert_eq!(convert_rounded(F, U8, n, true, f(-5.0)), (0, true));
        assert_eq!(convert_rounded(F, U16, n, true, f(70000.0)), (0xffff, true));
        // 2^40 has no low 32 bits; 1e30 neither
        assert_eq!(
            convert_rounded(F, s32, n, false, f(1099511627776.0)),
            (0, true)
        );
        assert_eq!(convert_rounded(F, s32, n, false, f(1e30)), (0, true));
        assert!(!convert_rounded(F, s32, n, true, f(f32::NAN)).1);
        assert!(!convert_rounded(F, s32, n, true, f(f32::INFINITY)).1);
    }

    #[test]
    fn int_to_int_wraps_or_clamps() {
        let (s32, u32t) = (ScalarTy::S32, ScalarTy::U32);
        let n = Rounding::NearestEven;
        assert_eq!(
            convert_rounded(s32, s32, n, true, 0x8000_0000),
            (0x8000_0000, true)
        );
        assert_eq!(convert_rounded(s32, u32t, n, true, 0xffff_ffff), (0, true));
        assert_eq!(
            convert_rounded(u32t, s32, n, true, 0xffff_ffff),
            (0x7fff_ffff, true)
        );
        assert_eq!(convert_rounded(s32, S8, n, true, 300), (0x7f, true));
        assert_eq!(
            convert_rounded(s32, S8, n, true, (-300i32) as u32 as u64),
            (0x80, true)
        );
        assert_eq!(convert_rounded(s32, S8, n, false, 300), (300 & 0xff, true));
        assert_eq!(convert_rounded(s32, U8, n, true, 300), (0xff, true));
    }

    #[test]
    fn int_to_float_rounds_by_the_modifier() {
        // 2^24 + 1 lies between 2^24 and 2^24 + 2
        let v = (1u64 << 24) + 1;
        let s32 = ScalarTy::S32;
        let r = |round| f32_of(convert_rounded(s32, F, round, false, v).0);
        assert_eq!(r(Rounding::NearestEven), 16_777_216.0);
        assert_eq!(r(Rounding::Up), 16_777_218.0);
        assert_eq!(r(Rounding::Down), 16_777_216.0);
        assert_eq!(r(Rounding::TowardZero), 16_777_216.0);
        let neg = (-(1i64 << 24) - 1) as u64 & 0xffff_ffff;
        let r = |round| f32_of(convert_rounded(s32, F, round, false, neg).0);
        assert_eq!(r(Rounding::Up), -16_777_216.0);
        assert_eq!(r(Rounding::Down), -16_777_218.0);
        assert_eq!(r(Rounding::TowardZero), -16_777_216.0);
        // 2^24 + 3: nearest even picks 2^24 + 4
        assert_eq!(
            f32_of(convert_rounded(s32, F, Rounding::NearestEven, false, v + 2).0),
            16_777_220.0
        );
    }

    #[test]
    fn float_to_float_rounds_by_the_modifier() {
        let third = bits_f64(1.0 / 3.0);
        let r = |round| f32_of(convert_rounded(ScalarTy::F64, F, round, false, third).0);
        let near = (1.0f64 / 3.0) as f32;
        assert!(f64::from(r(Rounding::Up)) > 1.0 / 3.0);
        assert!(f64::from(r(Rounding::Down)) < 1.0 / 3.0);
        assert_eq!(r(Rounding::NearestEven), near);
        // beyond f32::MAX: up gives infinity, toward zero the largest finite
        let big = bits_f64(1e39);
        assert_eq!(
            f32_of(convert_rounded(ScalarTy::F64, F, Rounding::Up, false, big).0),
            f32::INFINITY
        );
        assert_eq!(
            f32_of(convert_rounded(ScalarTy::F64, F, Rounding::TowardZero, false, big).0),
            f32::MAX
        );
        // tiny positive: up gives the smallest subnormal, down zero
        let tiny = bits_f64(1e-50);
        assert_eq!(
            convert_rounded(ScalarTy::F64, F, Rounding::Up, false, tiny).0,
            1
        );
        assert_eq!(
            convert_rounded(ScalarTy::F64, F, Rounding::Down, false, tiny).0,
            0
        );
        // f32 -> f16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10
        let x = f(1.0 + 1.0 / 2048.0);
        assert_eq!(
            convert_rounded(F, ScalarTy::F16, Rounding::Up, false, x).0,
            0x3c01
        );
        assert_eq!(
            convert_rounded(F, ScalarTy::F16, Rounding::NearestEven, false, x).0,
            0x3c00
        );
    }

    quickcheck! {
        /// Every directed result brackets the exact value: down <= x <= up, the two equal or
        /// adjacent.
        fn directed_results_bracket_the_value(v: i64) -> bool {
            let s64 = ScalarTy::S64;
            let up = convert_rounded(s64, F, Rounding::Up, false, v as u64).0;
            let down = convert_rounded(s64, F, Rounding::Down, false, v as u64).0;
            let (u, d) = (f64::from(f32_of(up)), f64::from(f32_of(down)));
            let x = i128::from(v);
            (d as i128) <= x && x <= (u as i128) && (up == down || step(down, 32, true) == up)
        }
    }
}
