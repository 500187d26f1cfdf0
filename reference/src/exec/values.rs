//! Per-lane value semantics: every IR operation on one component slot (see `ir` docs for the
//! representation). Every undefined case gets one documented value (docs/REFERENCE.md).

use crate::ir::{BinOp, CcTest, CmpOp, Kind, ScalarTy, Src, UnOp};

/// The lanes a source reads, through its swizzle.
#[inline]
pub fn rd(regs: &[[u64; 4]], s: Src) -> [u64; 4] {
    let r = regs[s.reg.0 as usize];
    [
        r[(s.swz[0] & 3) as usize],
        r[(s.swz[1] & 3) as usize],
        r[(s.swz[2] & 3) as usize],
        r[(s.swz[3] & 3) as usize],
    ]
}

/// Sign-extends the low `bits` of `v` to i64.
#[inline]
pub fn sext(v: u64, bits: u8) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let sh = 64 - u32::from(bits);
        ((v << sh) as i64) >> sh
    }
}

#[inline]
pub fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}
#[inline]
pub fn f64_of(v: u64) -> f64 {
    f64::from_bits(v)
}
#[inline]
pub fn bits_f32(f: f32) -> u64 {
    u64::from(f.to_bits())
}
#[inline]
pub fn bits_f64(f: f64) -> u64 {
    f.to_bits()
}

/// IEEE half → single (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // subnormal: value = man * 2^-24
            let f = man as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -f } else { f };
        }
    } else if exp == 31 {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// Single → half, round to nearest even; overflow to infinity; NaN stays NaN (quiet).
pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 255 {
        return sign
            | 0x7c00
            | if man != 0 {
                0x200 | (man >> 13) as u16
            } else {
                0
            };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let mut h = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        if rem > half || (rem == half && (h & 1) == 1) {
            h += 1;
        }
        return sign | h as u16;
    }
    let mut h = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && (h & 1) == 1) {
        h += 1;
    }
    sign | h as u16
}

/// Double → half, round to nearest even, in one rounding (no detour through single).
pub fn f64_to_f16(f: f64) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 48) & 0x8000) as u16;
    let exp = ((x >> 52) & 0x7ff) as i64;
    let man = x & ((1u64 << 52) - 1);
    if exp == 0x7ff {
        return sign
            | 0x7c00
            | if man != 0 {
                0x200 | (man >> 42) as u16
            } else {
                0
            };
    }
    let e = exp - 1023 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    // value = 1.man * 2^(exp-1023); build the significand with the hidden bit
    let (m, shift) = if e <= 0 {
        if e < -11 {
            return sign;
        }
        (man | (1u64 << 52), (42 + 1 - e) as u32)
    } else {
        (man, 42u32)
    };
    let mut h = m >> shift;
    let rem = m & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && (h & 1) == 1) {
        h += 1;
    }
    if e <= 0 {
        sign | h as u16
    } else {
        // a carry out of the mantissa moves into the exponent, up to infinity
        sign | ((((e as u64) << 10) + h) as u16)
    }
}

/// A lane value read as f64 (any float width).
#[inline]
fn fget(v: u64, bits: u8) -> f64 {
    match bits {
        16 => f64::from(f16_to_f32(v as u16)),
        32 => f64::from(f32_of(v)),
        _ => f64_of(v),
    }
}

#[inline]
fn fput(f: f64, bits: u8) -> u64 {
    match bits {
        16 => u64::from(f64_to_f16(f)),
        32 => bits_f32(f as f32),
        _ => bits_f64(f),
    }
}

/// Applies a 32-bit float op exactly in f32 (not via f64, so rounding is single).
macro_rules! fop {
    ($bits:expr, $v:expr, |$x:ident| $body:expr) => {{
        match $bits {
            32 => {
                let $x = f32_of($v);
                bits_f32($body)
            }
            64 => {
                let $x = f64_of($v);
                bits_f64($body)
            }
            _ => {
                let $x = f16_to_f32($v as u16);
                u64::from(f32_to_f16($body))
            }
        }
    }};
}

macro_rules! fop2 {
    ($bits:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {{
        match $bits {
            32 => {
                let ($x, $y) = (f32_of($a), f32_of($b));
                bits_f32($body)
            }
            64 => {
                let ($x, $y) = (f64_of($a), f64_of($b));
                bits_f64($body)
            }
            _ => {
                let ($x, $y) = (f16_to_f32($a as u16), f16_to_f32($b as u16));
                u64::from(f32_to_f16($body))
            }
        }
    }};
}

pub fn unop(op: UnOp, t: ScalarTy, a: u64) -> u64 {
    let m = t.mask();
    let bits = t.bits;
    match t.kind {
        Kind::F => match op {
            UnOp::Neg => fop!(bits, a, |x| -x),
            UnOp::Abs => fop!(bits, a, |x| x.abs()),
            UnOp::Not => !a & m,
            UnOp::Floor => fop!(bits, a, |x| x.floor()),
            UnOp::Ceil => fop!(bits, a, |x| x.ceil()),
            UnOp::Trunc => fop!(bits, a, |x| x.trunc()),
            UnOp::RoundEven => fop!(bits, a, |x| x.round_ties_even()),
            UnOp::Fract => fop!(bits, a, |x| x - x.floor()),
            UnOp::Sqrt => fop!(bits, a, |x| x.sqrt()),
            UnOp::Rsq => fop!(bits, a, |x| 1.0 / x.sqrt()),
            UnOp::Rcp => fop!(bits, a, |x| 1.0 / x),
            UnOp::Exp2 => fop!(bits, a, |x| x.exp2()),
            UnOp::Log2 => fop!(bits, a, |x| x.log2()),
            UnOp::Sin => fop!(bits, a, |x| x.sin()),
            UnOp::Cos => fop!(bits, a, |x| x.cos()),
            UnOp::Sign => fop!(bits, a, |x| if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }),
            UnOp::IsNan => u64::from(fget(a, bits).is_nan()),
            UnOp::IsInf => u64::from(fget(a, bits).is_infinite()),
            UnOp::Tan => fop!(bits, a, |x| x.tan()),
            UnOp::Asin => fop!(bits, a, |x| x.asin()),
            UnOp::Acos => fop!(bits, a, |x| x.acos()),
            UnOp::Atan => fop!(bits, a, |x| x.atan()),
            UnOp::Sinh => fop!(bits, a, |x| x.sinh()),
            UnOp::Cosh => fop!(bits, a, |x| x.cosh()),
            UnOp::Tanh => fop!(bits, a, |x| x.tanh()),
            UnOp::Asinh => fop!(bits, a, |x| x.asinh()),
            UnOp::Acosh => fop!(bits, a, |x| x.acosh()),
            UnOp::Atanh => fop!(bits, a, |x| x.atanh()),
            UnOp::Exp => fop!(bits, a, |x| x.exp()),
            UnOp::Log => fop!(bits, a, |x| x.ln()),
            UnOp::ModfFrac => fop!(bits, a, |x| if x.is_infinite() {
                x.signum() * 0.0
            } else {
                (x - x.trunc()).copysign(x)
            }),
            UnOp::FrexpMant => fput(frexp(fget(a, bits)).0, bits),
            UnOp::FrexpExp => u64::from(frexp(fget(a, bits)).1 as u32),
            UnOp::PackNorm { signed, bits: nb } => pack_norm(fget(a, bits), signed, nb),
            UnOp::UnpackNorm { .. } => a & m,
            UnOp::BitCount | UnOp::BitReverse | UnOp::FindMsb | UnOp::FindLsb => {
                unop(op, ScalarTy::new(Kind::U, bits), a)
            }
        },
        Kind::B => match op {
            UnOp::Not => u64::from(a == 0),
            _ => a,
        },
        Kind::U | Kind::S => {
            let signed = t.kind == Kind::S;
            match op {
                UnOp::Neg => a.wrapping_neg() & m,
                UnOp::Abs => {
                    if signed {
                        (sext(a, bits).wrapping_abs() as u64) & m
                    } else {
                        a & m
                    }
                }
                UnOp::Not => !a & m,
                UnOp::Sign => {
                    if signed {
                        (sext(a, bits).signum() as u64) & m
                    } else {
                        u64::from(a & m != 0)
                    }
                }
                UnOp::BitCount => u64::from((a & m).count_ones()),
                UnOp::BitReverse => ((a & m).reverse_bits() >> (64 - u32::from(bits))) & m,
                UnOp::FindMsb => {
                    let v = if signed && sext(a, bits) < 0 {
                        !a & m
                    } else {
                        a & m
                    };
                    if v == 0 {
                        0xffff_ffff
                    } else {
                        u64::from(63 - v.leading_zeros())
                    }
                }
                UnOp::FindLsb => {
                    let v = a & m;
                    if v == 0 {
                        0xffff_ffff
                    } else {
                        u64::from(v.trailing_zeros())
                    }
                }
                UnOp::IsNan | UnOp::IsInf => 0,
                UnOp::UnpackNorm { signed, bits: nb } => bits_f32(unpack_norm(a, signed, nb)),
                // Float-only ops on integers: identity (front ends do not emit them).
                _ => a & m,
            }
        }
    }
}

/// Integer division semantics (documented): by zero, unsigned → all ones, signed → -1 when
/// the dividend is >= 0 and 1 otherwise; signed MIN / -1 → MIN.
pub fn int_div(signed: bool, bits: u8, a: u64, b: u64) -> u64 {
    let m = ScalarTy::new(Kind::U, bits).mask();
    if signed {
        let (x, y) = (sext(a, bits), sext(b, bits));
        if y == 0 {
            return (if x >= 0 { -1i64 } else { 1 }) as u64 & m;
        }
        (x.wrapping_div(y) as u64) & m
    } else {
        let (x, y) = (a & m, b & m);
        x.checked_div(y).unwrap_or(m)
    }
}

/// The planted bug `SignedDivisionRoundsDown`: signed division rounding towards negative
/// infinity (by zero and `MIN / -1` as [`int_div`]).
pub fn floor_div_planted(t: ScalarTy, a: u64, b: u64) -> u64 {
    let (x, y) = (sext(a, t.bits), sext(b, t.bits));
    if y == 0 || (y == -1 && x == i64::MIN >> (64 - u32::from(t.bits))) {
        return int_div(true, t.bits, a, b);
    }
    let q = x / y;
    let inexact_negative = x % y != 0 && ((x < 0) != (y < 0));
    (q - i64::from(inexact_negative)) as u64 & t.mask()
}

pub fn binop(op: BinOp, t: ScalarTy, a: u64, b: u64) -> u64 {
    let m = t.mask();
    let bits = t.bits;
    match t.kind {
        Kind::F => match op {
            BinOp::Add => fop2!(bits, a, b, |x, y| x + y),
            BinOp::Sub => fop2!(bits, a, b, |x, y| x - y),
            BinOp::Mul => fop2!(bits, a, b, |x, y| x * y),
            BinOp::Div => fop2!(bits, a, b, |x, y| x / y),
            BinOp::Rem => fop2!(bits, a, b, |x, y| x % y),
            BinOp::Mod => fop2!(bits, a, b, |x, y| x - y * (x / y).floor()),
            BinOp::Min => fop2!(bits, a, b, |x, y| x.min(y)),
            BinOp::Max => fop2!(bits, a, b, |x, y| x.max(y)),
            BinOp::Pow => fop2!(bits, a, b, |x, y| x.powf(y)),
            BinOp::Atan2 => fop2!(bits, a, b, |y, x| y.atan2(x)),
            BinOp::Ldexp => ldexp(bits, a, b),
            BinOp::And => a & b & m,
            BinOp::Or => (a | b) & m,
            BinOp::Xor => (a ^ b) & m,
            BinOp::MulHi | BinOp::Shl | BinOp::Shr => a & m,
        },
        Kind::B => match op {
            BinOp::And | BinOp::Min | BinOp::Mul => u64::from(a != 0 && b != 0),
            BinOp::Or | BinOp::Max | BinOp::Add => u64::from(a != 0 || b != 0),
            BinOp::Xor | BinOp::Sub => u64::from((a != 0) != (b != 0)),
            _ => a,
        },
        Kind::U | Kind::S => {
            let signed = t.kind == Kind::S;
            let sh = (b & 0xff) as u32 % u32::from(bits);
            match op {
                BinOp::Add => a.wrapping_add(b) & m,
                BinOp::Sub => a.wrapping_sub(b) & m,
                BinOp::Mul => a.wrapping_mul(b) & m,
                BinOp::MulHi => {
                    if signed {
                        let p = i128::from(sext(a, bits)) * i128::from(sext(b, bits));
                        ((p >> bits) as u64) & m
                    } else {
                        let p = u128::from(a & m) * u128::from(b & m);
                        ((p >> bits) as u64) & m
                    }
                }
                BinOp::Div => int_div(signed, bits, a, b),
                BinOp::Rem | BinOp::Mod => {
                    if signed {
                        let (x, y) = (sext(a, bits), sext(b, bits));
                        if y == 0 {
                            return a & m;
                        }
                        let r = x.wrapping_rem(y);
                        let r = if op == BinOp::Mod && r != 0 && ((r < 0) != (y < 0)) {
                            r + y
                        } else {
                            r
                        };
                        (r as u64) & m
                    } else {
                        let (x, y) = (a & m, b & m);
                        if y == 0 {
                            x
                        } else {
                            x % y
                        }
                    }
                }
                BinOp::Min => {
                    if signed {
                        if sext(a, bits) <= sext(b, bits) {
                            a & m
                        } else {
                            b & m
                        }
                    } else {
                        (a & m).min(b & m)
                    }
                }
                BinOp::Max => {
                    if signed {
                        if sext(a, bits) >= sext(b, bits) {
                            a & m
                        } else {
                            b & m
                        }
                    } else {
                        (a & m).max(b & m)
                    }
                }
                BinOp::And => a & b & m,
                BinOp::Or => (a | b) & m,
                BinOp::Xor => (a ^ b) & m,
                BinOp::Shl => (a << sh) & m,
                BinOp::Shr => {
                    if signed {
                        ((sext(a, bits) >> sh) as u64) & m
                    } else {
                        (a & m) >> sh
                    }
                }
                BinOp::Pow | BinOp::Ldexp | BinOp::Atan2 => a & m,
            }
        }
    }
}

/// GLSL `frexp`: (significand in [0.5, 1) with x's sign, exponent) with x = m * 2^e; (0, 0)
/// for zero. For infinities and NaN (undefined in GLSL) x itself and 0.
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let b = x.to_bits();
    let exp = ((b >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale into the normal range first (exact).
        let (m, e) = frexp(x * 2f64.powi(64));
        return (m, e - 64);
    }
    let m = f64::from_bits((b & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

/// GLSL `pack{U,S}norm` for one component: round(clamp(x, lo, 1) * scale) in single precision
/// (the spec's formula; ties to even), as `bits`-bit two's complement. NaN packs as 0.
fn pack_norm(x: f64, signed: bool, bits: u8) -> u64 {
    let (lo, scale) = if signed {
        (-1.0f32, ((1u32 << (bits - 1)) - 1) as f32)
    } else {
        (0.0f32, ((1u32 << bits) - 1) as f32)
    };
    let x = x as f32;
    if x.is_nan() {
        return 0;
    }
    let v = (x.clamp(lo, 1.0) * scale).round_ties_even() as i64;
    (v as u64) & ((1u64 << bits) - 1)
}

/// GLSL `unpack{U,S}norm` for one component: the low `bits` bits of `a` as f / scale (signed:
/// clamped to [-1, 1]), in single precision.
fn unpack_norm(a: u64, signed: bool, bits: u8) -> f32 {
    let field = a & ((1u64 << bits) - 1);
    if signed {
        let scale = ((1u32 << (bits - 1)) - 1) as f32;
        (sext(field, bits) as f32 / scale).clamp(-1.0, 1.0)
    } else {
        field as f32 / ((1u32 << bits) - 1) as f32
    }
}

/// `a * 2^e` for a float of `bits` and the signed 32-bit exponent `e`, rounded once: the f64
/// scaling is exact for 16- and 32-bit inputs wherever their result is not 0 or infinite, and
/// scalbn rounds f64 results correctly (also into the subnormal range).
fn ldexp(bits: u8, a: u64, e: u64) -> u64 {
    fput(libm::scalbn(fget(a, bits), sext(e, 32) as i32), bits)
}

pub fn mad(t: ScalarTy, a: u64, b: u64, c: u64) -> u64 {
    match t.kind {
        Kind::F => match t.bits {
            32 => bits_f32(f32_of(a).mul_add(f32_of(b), f32_of(c))),
            64 => bits_f64(f64_of(a).mul_add(f64_of(b), f64_of(c))),
            _ => {
                let h = |v: u64| f64::from(f16_to_f32(v as u16));
                u64::from(f64_to_f16(h(a).mul_add(h(b), h(c))))
            }
        },
        _ => a.wrapping_mul(b).wrapping_add(c) & t.mask(),
    }
}

pub fn cmp(op: CmpOp, t: ScalarTy, a: u64, b: u64) -> bool {
    match t.kind {
        Kind::F => {
            let (x, y) = (fget(a, t.bits), fget(b, t.bits));
            match op {
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
                CmpOp::Lt => x < y,
                CmpOp::Le => x <= y,
                CmpOp::Gt => x > y,
                CmpOp::Ge => x >= y,
            }
        }
        Kind::S => {
            let (x, y) = (sext(a, t.bits), sext(b, t.bits));
            cmp_ord(op, x.cmp(&y))
        }
        Kind::U | Kind::B => {
            let m = t.mask();
            cmp_ord(op, (a & m).cmp(&(b & m)))
        }
    }
}

fn cmp_ord(op: CmpOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
    }
}

/// Conversion between scalar types (see `Inst::Convert`).
pub fn convert(from: ScalarTy, to: ScalarTy, v: u64) -> u64 {
    let tm = to.mask();
    match (from.kind, to.kind) {
        (Kind::F, Kind::F) => {
            if from.bits == to.bits {
                v & tm
            } else if to.bits == 32 && from.bits == 64 {
                bits_f32(f64_of(v) as f32)
            } else if to.bits == 16 && from.bits == 64 {
                u64::from(f64_to_f16(f64_of(v)))
            } else {
                fput(fget(v, from.bits), to.bits)
            }
        }
        (Kind::F, Kind::S) => {
            let x = fget(v, from.bits);
            let r: i64 = match to.bits {
                8 => x as i8 as i64,
                16 => x as i16 as i64,
                32 => x as i32 as i64,
                _ => x as i64,
            };
            (r as u64) & tm
        }
        (Kind::F, Kind::U) => {
            let x = fget(v, from.bits);
            let r: u64 = match to.bits {
                8 => x as u8 as u64,
                16 => x as u16 as u64,
                32 => x as u32 as u64,
                _ => x as u64,
            };
            r & tm
        }
        (Kind::S, Kind::F) => {
            let x = sext(v, from.bits);
            match to.bits {
                32 => bits_f32(x as f32),
                64 => bits_f64(x as f64),
                _ => u64::from(f32_to_f16(x as f32)),
            }
        }
        (Kind::U, Kind::F) => {
            let x = v & from.mask();
            match to.bits {
                32 => bits_f32(x as f32),
                64 => bits_f64(x as f64),
                _ => u64::from(f32_to_f16(x as f32)),
            }
        }
        (Kind::B, Kind::F) => fput(if v != 0 { 1.0 } else { 0.0 }, to.bits),
        (_, Kind::B) => u64::from(v & from.mask() != 0),
        (Kind::S, _) => (sext(v, from.bits) as u64) & tm,
        (Kind::U | Kind::B, _) => v & from.mask() & tm,
    }
}

/// Condition-code flags of a value (see `ir::cc`).
pub fn cc_flags(t: ScalarTy, v: u64) -> u64 {
    use crate::ir::cc::*;
    match t.kind {
        Kind::F => {
            let x = fget(v, t.bits);
            let mut f = 0;
            if x.is_nan() || x < 0.0 {
                f |= SF;
            }
            if x.is_nan() || x == 0.0 {
                f |= ZF;
            }
            f
        }
        _ => {
            let msb = if t.bits >= 64 {
                v >> 63
            } else {
                (v >> (t.bits - 1)) & 1
            };
            let mut f = if msb == 1 { SF } else { 0 };
            if v & t.mask() == 0 {
                f |= ZF;
            }
            f
        }
    }
}

/// The written lanes (a bit per lane) in which an integer binary operation hits a case whose
/// result is undefined: division or remainder by zero, or a shift count outside `0..bits`.
pub fn undefined_lanes(op: BinOp, t: ScalarTy, b: &[u64; 4], lanes: u8, mask: u8) -> u8 {
    let mut out = 0;
    for l in (0..lanes.min(4) as usize).filter(|l| mask & (1 << l) != 0) {
        let undefined = match op {
            BinOp::Div | BinOp::Rem | BinOp::Mod => b[l] & t.mask() == 0,
            BinOp::Shl | BinOp::Shr => b[l] & 0xffff_ffff >= u64::from(t.bits),
            _ => false,
        };
        if undefined {
            out |= 1 << l;
        }
    }
    out
}

/// Whether a conversion is defined for `v`: float to integer needs a finite value in range.
pub fn convert_defined(from: ScalarTy, to: ScalarTy, v: u64) -> bool {
    if from.kind != Kind::F || !matches!(to.kind, Kind::S | Kind::U) {
        return true;
    }
    let x = fget(v, from.bits).trunc();
    if !x.is_finite() {
        return false;
    }
    let (lo, hi) = if to.kind == Kind::S {
        let h = 2f64.powi(i32::from(to.bits) - 1);
        (-h, h)
    } else {
        (0.0, 2f64.powi(i32::from(to.bits)))
    };
    x >= lo && x < hi
}

/// Condition-code flags of the integer `a + b` (or `a - b`), with overflow and carry.
pub fn cc_flags_add(t: ScalarTy, a: u64, b: u64, sub: bool) -> u64 {
    use crate::ir::cc::*;
    let m = t.mask();
    let (a, b) = (a & m, b & m);
    let r = if sub {
        a.wrapping_sub(b)
    } else {
        a.wrapping_add(b)
    } & m;
    let mut f = cc_flags(ScalarTy::new(Kind::U, t.bits), r);
    let (sa, sb) = (i128::from(sext(a, t.bits)), i128::from(sext(b, t.bits)));
    let exact = if sub { sa - sb } else { sa + sb };
    let lim = 1i128 << (t.bits - 1);
    if exact < -lim || exact >= lim {
        f |= OF;
    }
    let carry = if sub {
        a >= b
    } else {
        u128::from(a) + u128::from(b) > u128::from(m)
    };
    if carry {
        f |= CF;
    }
    f
}

/// Evaluates a condition-code test on one component's flags (Table X.16).
pub fn cc_test(test: CcTest, f: u64) -> bool {
    use crate::ir::cc::*;
    let sf = f & SF != 0;
    let zf = f & ZF != 0;
    let of = f & OF != 0;
    let cf = f & CF != 0;
    match test {
        CcTest::Eq => !sf && zf,
        CcTest::Ne => sf || !zf,
        CcTest::Lt => (sf && !zf) ^ of,
        CcTest::Le => sf ^ (zf || of),
        CcTest::Gt => (!sf ^ of) && !zf,
        CcTest::Ge => !(sf ^ of),
        CcTest::Tr => true,
        CcTest::Fl => false,
        CcTest::Nan => sf && zf,
        CcTest::Leg => !sf || !zf,
        CcTest::Sf => sf,
        CcTest::Nsf => !sf,
        CcTest::Cf => cf,
        CcTest::Ncf => !cf,
        CcTest::Of => of,
        CcTest::Nof => !of,
        CcTest::Ab => cf && !zf,
        CcTest::Ble => !cf || zf,
    }
}

/// Bitfield extract of `width` bits at `offset`; out-of-range offset/width (offset + width >
/// bits) are clamped: width = min(width, bits - offset); offset >= bits gives 0.
pub fn bfe(t: ScalarTy, a: u64, offset: u64, width: u64) -> u64 {
    let bits = u64::from(t.bits);
    let m = t.mask();
    if offset >= bits || width == 0 {
        return 0;
    }
    let w = width.min(bits - offset);
    let field = (a & m) >> offset;
    let fm = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let v = field & fm;
    if t.kind == Kind::S {
        (sext(v, w as u8) as u64) & m
    } else {
        v
    }
}

pub fn bfi(t: ScalarTy, base: u64, ins: u64, offset: u64, width: u64) -> u64 {
    let bits = u64::from(t.bits);
    let m = t.mask();
    if offset >= bits || width == 0 {
        return base & m;
    }
    let w = width.min(bits - offset);
    let fm = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    ((base & !(fm << offset)) | ((ins & fm) << offset)) & m
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    quickcheck! {
        fn f64_to_f16_matches_the_single_path_when_exact(x: f32) -> bool {
            // an f32 widened to f64 is exact, so both conversions round the same value once
            let a = f64_to_f16(f64::from(x));
            let b = f32_to_f16(x);
            a == b || (f16_to_f32(a).is_nan() && f16_to_f32(b).is_nan())
        }
    }

    quickcheck! {
        fn ldexp_f32_is_the_exact_product_rounded_once(x: f32, e: i16) -> bool {
            let e = i32::from(e % 400);
            let r = binop(BinOp::Ldexp, ScalarTy::F32, bits_f32(x), u64::from(e as u32));
            let want = (f64::from(x) * 2f64.powi(e)) as f32;
            r == bits_f32(want) || (x.is_nan() && f32_of(r).is_nan())
        }
    }

    #[test]
    fn ldexp_edges() {
        let f64_ldexp = |x: f64, e: i32| {
            f64_of(binop(
                BinOp::Ldexp,
                ScalarTy::F64,
                bits_f64(x),
                u64::from(e as u32),
            ))
        };
        // a subnormal scaled far up, a large value scaled far down: no overflow on the way
        assert_eq!(f64_ldexp(f64::from_bits(1), 1100), 2f64.powi(26));
        assert_eq!(f64_ldexp(2f64.powi(1023), -1100), 2f64.powi(-77));
        // zero and infinity stay what they are for any exponent (no 0 * inf)
        assert_eq!(f64_ldexp(0.0, 5000).to_bits(), 0);
        assert_eq!(f64_ldexp(-0.0, i32::MAX).to_bits(), (-0.0f64).to_bits());
        assert_eq!(f64_ldexp(f64::INFINITY, i32::MIN), f64::INFINITY);
        // the exponent is the lane's low 32 bits read as signed
        assert_eq!(f64_ldexp(3.0, -1), 1.5);
        let f16 = |x: u16, e: i32| {
            binop(
                BinOp::Ldexp,
                ScalarTy::F16,
                u64::from(x),
                u64::from(e as u32),
            )
        };
        assert_eq!(
            f16(0x3c00, -24),
            0x0001,
            "2^-24 is the smallest half subnormal"
        );
        assert_eq!(f16(0x3c00, 16), 0x7c00, "2^16 overflows a half");
    }

    #[test]
    fn f64_to_f16_rounds_once() {
        // just above the midpoint between 1.0 and the next half (1 + 2^-10): 1 + 2^-11 + 2^-40.
        // Through f32 this would become exactly the midpoint and round to even (1.0).
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f64_to_f16(x), 0x3c01);
        assert_eq!(f64_to_f16(65520.0), 0x7c00);
        assert_eq!(f64_to_f16(65519.99), 0x7bff);
        assert_eq!(f64_to_f16(2f64.powi(-24)), 0x0001);
        assert_eq!(
            f64_to_f16(2f64.powi(-25)),
            0x0000,
            "tie to even at the smallest subnormal"
        );
        assert_eq!(f64_to_f16(2f64.powi(-25) * 1.5), 0x0001);
        assert_eq!(f64_to_f16(-0.0), 0x8000);
    }

    #[test]
    fn f16_round_trips_exactly() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert!(f16_to_f32(f32_to_f16(f)).is_nan());
            } else {
                assert_eq!(f32_to_f16(f), h, "{h:#x} -> {f}");
            }
        }
        assert_eq!(f32_to_f16(65520.0), 0x7c00, "rounds to infinity");
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00, "tie to even");
    }

    quickcheck! {
        fn int_ops_match_rust(a: u32, b: u32) -> bool {
            let t = ScalarTy::U32;
            let s = ScalarTy::S32;
            let (x, y) = (u64::from(a), u64::from(b));
            binop(BinOp::Add, t, x, y) == u64::from(a.wrapping_add(b))
                && binop(BinOp::Mul, s, x, y) == u64::from((a as i32).wrapping_mul(b as i32) as u32)
                && binop(BinOp::Shr, s, x, y) == u64::from(((a as i32) >> (b % 32)) as u32)
                && binop(BinOp::Min, s, x, y) == u64::from((a as i32).min(b as i32) as u32)
                && (b == 0 || binop(BinOp::Div, t, x, y) == u64::from(a / b))
                && (b == 0 || binop(BinOp::Rem, s, x, y) == u64::from((a as i32).wrapping_rem(b as i32) as u32))
        }

        fn float_add_is_single_rounding(a: f32, b: f32) -> bool {
            let r = binop(BinOp::Add, ScalarTy::F32, bits_f32(a), bits_f32(b));
            let e = a + b;
            r == bits_f32(e) || (e.is_nan() && f32_of(r).is_nan())
        }

        fn convert_f32_to_s32_saturates(x: f32) -> bool {
            convert(ScalarTy::F32, ScalarTy::S32, bits_f32(x)) == u64::from((x as i32) as u32)
        }

        fn bfe_bfi_inverse(base: u32, ins: u32, off: u8, w: u8) -> bool {
            let (off, w) = (u64::from(off % 32), u64::from(w % 33));
            let t = ScalarTy::U32;
            let r = bfi(t, u64::from(base), u64::from(ins), off, w);
            let wid = w.min(32 - off);
            let m = if wid == 64 { u64::MAX } else { (1u64 << wid) - 1 };
            bfe(t, r, off, w) == u64::from(ins) & m
        }
    }

    quickcheck! {
        fn frexp_splits_exactly(x: f64) -> bool {
            let (m, e) = frexp(x);
            // Scale back in two halves: 2^e alone overflows for the largest exponents.
            let back = m * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
            !x.is_finite() || x == 0.0 || ((0.5..1.0).contains(&m.abs()) && back == x)
        }

        fn unorm16_round_trips(v: u16) -> bool {
            let f = unpack_norm(u64::from(v), false, 16);
            pack_norm(f64::from(f), false, 16) == u64::from(v)
        }
    }

    #[test]
    fn pack_norm_clamps_and_rounds_ties_to_even() {
        assert_eq!(pack_norm(2.0, false, 8), 255);
        assert_eq!(pack_norm(-2.0, true, 8), 0x81);
        assert_eq!(pack_norm(0.5, false, 16), 32768, "32767.5 rounds to even");
        assert_eq!(pack_norm(f64::NAN, true, 16), 0);
        assert_eq!(unpack_norm(0x8000, true, 16), -1.0, "-32768 / 32767 clamps");
    }

    #[test]
    fn condition_code_table() {
        let t = ScalarTy::F32;
        let nan = cc_flags(t, bits_f32(f32::NAN));
        assert!(!cc_test(CcTest::Eq, nan) && cc_test(CcTest::Ne, nan) && cc_test(CcTest::Nan, nan));
        assert!(
            !cc_test(CcTest::Lt, nan)
                && !cc_test(CcTest::Gt, nan)
                && !cc_test(CcTest::Ge, nan)
                && !cc_test(CcTest::Le, nan)
        );
        let neg = cc_flags(t, bits_f32(-1.0));
        assert!(cc_test(CcTest::Lt, neg) && cc_test(CcTest::Le, neg) && !cc_test(CcTest::Ge, neg));
        let zero = cc_flags(ScalarTy::S32, 0);
        assert!(
            cc_test(CcTest::Eq, zero)
                && cc_test(CcTest::Ge, zero)
                && cc_test(CcTest::Le, zero)
                && !cc_test(CcTest::Gt, zero)
        );
        // unsigned values with the MSB set test as negative (SF is the MSB)
        assert!(cc_test(CcTest::Lt, cc_flags(ScalarTy::U32, 0x8000_0000)));
    }
}
