//! The model's shared vocabulary: what a block's buffer must hold ([`BufferModel`], [`Want`],
//! [`Elem`], [`SENTINEL`]) and the semantics every block model builds on: integer expressions
//! ([`eval`] over an [`Env`], [`bin`], [`extract`], [`div_operands`], the float conversions of
//! [`f_to_i`]) and one atomic update ([`atomic_step`]).
//!
//! Below the feature models (`crate::features::vector`, `crate::features::narrow`, `crate::features::atomic_mix`) and the
//! dispatch over every block ([`super::block_model`]) that uses them.

use crate::ast::{AtomicOp, BinOp, Expr, FExpr, FOp, IntTy, Round, UnOp, VARS};

/// The marker left in slots an invocation was not meant to write.
pub const SENTINEL: u32 = 0xDEAD_BEEF;

/// Element type of a block's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    U32,
    I32,
    F32,
}

impl Elem {
    pub fn name(self) -> &'static str {
        match self {
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::F32 => "f32",
        }
    }
}

/// What must hold in a range of a block's buffer (values are 32-bit patterns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Want {
    Values { at: usize, values: Vec<u32> },
    Permutation { at: usize, values: Vec<u32> },
    OneOf { at: usize, alts: Vec<Vec<u32>> },
}

/// A block's buffer: its element type, initial contents and expectations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferModel {
    pub elem: Elem,
    pub init: Vec<u32>,
    pub want: Vec<Want>,
}

/// Per-invocation values an expression can read.
#[derive(Clone, Debug, Default)]
pub struct Env {
    pub lid: u32,
    pub gid: u32,
    pub wg: u32,
    pub ticket: u32,
    /// `gl_LocalInvocationID` and `gl_WorkGroupID`.
    pub local_id: [u32; 3],
    pub group_id: [u32; 3],
    pub vars: [u32; VARS],
    /// Indices of the enclosing loops, outermost first.
    pub loops: Vec<u32>,
}

pub fn eval(e: &Expr, env: &Env) -> u32 {
    match e {
        Expr::Const(c) => *c,
        Expr::Lid => env.lid,
        Expr::Gid => env.gid,
        Expr::Wg => env.wg,
        Expr::LocalId(d) => env.local_id.get(usize::from(*d)).copied().unwrap_or(0),
        Expr::GroupId(d) => env.group_id.get(usize::from(*d)).copied().unwrap_or(0),
        Expr::Ticket => env.ticket,
        Expr::Var(v) => env.vars[usize::from(*v) % VARS],
        // A dangling loop index reads 0; the generator and the reducer never make one, and
        // the emitters give it the same meaning.
        Expr::LoopIdx(d) => env.loops.get(usize::from(*d)).copied().unwrap_or(0),
        Expr::Un(op, a) => {
            let a = eval(a, env);
            match op {
                UnOp::Not => !a,
                UnOp::Neg => a.wrapping_neg(),
                UnOp::BitCount => a.count_ones(),
                UnOp::BitReverse => a.reverse_bits(),
                UnOp::FindLsb if a == 0 => u32::MAX,
                UnOp::FindLsb => a.trailing_zeros(),
                UnOp::FindMsb if a == 0 => u32::MAX,
                UnOp::FindMsb => 31 - a.leading_zeros(),
                // The highest bit that differs from the sign bit: of the complement for a
                // negative value (NV_gpu_program5 BTFM.S, GLSL 4.60 section 8.8).
                UnOp::FindMsbS if (a as i32) < 0 => find_msb(!a),
                UnOp::FindMsbS => find_msb(a),
                UnOp::AbsS => (a as i32).max(i32::MIN + 1).unsigned_abs(),
                UnOp::SignS => (a as i32).signum() as u32,
                UnOp::LNot => u32::from(a == 0),
            }
        }
        Expr::Extract {
            value,
            offset,
            bits,
            signed,
        } => extract(
            eval(value, env),
            u32::from(*offset),
            u32::from(*bits),
            *signed,
        ),
        Expr::Insert {
            base,
            insert,
            offset,
            bits,
        } => {
            let (base, insert) = (eval(base, env), eval(insert, env));
            let mask = low_bits(u32::from(*bits)) << offset;
            ((insert << offset) & mask) | (base & !mask)
        }
        Expr::Bin(op, a, b) => bin(*op, eval(a, env), eval(b, env)),
        Expr::FToI {
            value,
            round,
            to,
            sat,
        } => f_to_i(value, *round, *to, *sat, env),
        Expr::Wide(w) => crate::features::wide::eval(w, eval(&w.a, env), eval(&w.b, env)),
        Expr::Clamp {
            value,
            lo,
            hi,
            signed,
        } => {
            let v = eval(value, env);
            if *signed {
                (v as i32).clamp(*lo as i32, *hi as i32) as u32
            } else {
                v.clamp(*lo, *hi)
            }
        }
        Expr::Select(c, a, b) => {
            if eval(c, env) != 0 {
                eval(a, env)
            } else {
                eval(b, env)
            }
        }
    }
}

/// The index of the highest one bit, all ones for 0.
fn find_msb(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        31 - a.leading_zeros()
    }
}

/// The low `bits` bits set (`bits` up to 32).
fn low_bits(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    }
}

/// NV_gpu_program5 `BitfieldExtract` / GLSL `bitfieldExtract`, for `offset < 32` and
/// `offset + bits <= 32`: 0 when `bits` is 0.
pub fn extract(value: u32, offset: u32, bits: u32, signed: bool) -> u32 {
    if bits == 0 {
        return 0;
    }
    let shifted = value << (32 - (bits + offset));
    if signed {
        ((shifted as i32) >> (32 - bits)) as u32
    } else {
        shifted >> (32 - bits)
    }
}

pub fn bin(op: BinOp, a: u32, b: u32) -> u32 {
    let (sa, sb) = (a as i32, b as i32);
    match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << (b & 31),
        BinOp::ShrU => a >> (b & 31),
        BinOp::ShrS => (sa >> (b & 31)) as u32,
        BinOp::MinU => a.min(b),
        BinOp::MaxU => a.max(b),
        BinOp::MinS => sa.min(sb) as u32,
        BinOp::MaxS => sa.max(sb) as u32,
        BinOp::DivU | BinOp::RemU | BinOp::DivS | BinOp::RemS | BinOp::SRem | BinOp::SMod => {
            let (a, b) = div_operands(op, a, b);
            let (sa, sb) = (a as i32, b as i32);
            match op {
                BinOp::DivU => a / b,
                BinOp::RemU => a % b,
                // Rust's `/` and `%` on i32 truncate towards zero, as C, GLSL and NV assembly
                // do; div_operands keeps MIN / -1 out.
                BinOp::DivS => (sa / sb) as u32,
                // RemS, OpSRem and OpSMod on the non-negative operands div_operands leaves:
                // the remainder.
                _ => (sa % sb) as u32,
            }
        }
        BinOp::MulHiU => ((u64::from(a) * u64::from(b)) >> 32) as u32,
        BinOp::MulHiS => ((i64::from(sa) * i64::from(sb)) >> 32) as u32,
        BinOp::LtU => u32::from(a < b),
        BinOp::LtS => u32::from(sa < sb),
        BinOp::Eq => u32::from(a == b),
        BinOp::Ne => u32::from(a != b),
        BinOp::LeU => u32::from(a <= b),
        BinOp::LeS => u32::from(sa <= sb),
        BinOp::GtU => u32::from(a > b),
        BinOp::GtS => u32::from(sa > sb),
        BinOp::GeU => u32::from(a >= b),
        BinOp::GeS => u32::from(sa >= sb),
        BinOp::LAnd => u32::from(a != 0 && b != 0),
        BinOp::LOr => u32::from(a != 0 || b != 0),
        BinOp::LXor => u32::from((a != 0) != (b != 0)),
        BinOp::Carry => u32::from(a.checked_add(b).is_none()),
        BinOp::Borrow => u32::from(a < b),
        BinOp::AbsDiffU => a.abs_diff(b),
        BinOp::AbsDiffS => (i64::from(sa) - i64::from(sb)).unsigned_abs() as u32,
        BinOp::Mul24U => (a & 0xFF_FFFF).wrapping_mul(b & 0xFF_FFFF),
        // Sign-extended from bit 23.
        BinOp::Mul24S => (((a << 8) as i32) >> 8).wrapping_mul(((b << 8) as i32) >> 8) as u32,
    }
}

/// The operands a division or remainder `op` actually works on: `(a, b)` themselves wherever
/// the specs define the result, and only where they do not, a defined replacement: a divisor
/// of 0 (every division and remainder: GLSL 4.60 section 5.9, NV_gpu_program4 DIV and MOD)
/// or -1 under a dividend of `i32::MIN` (`DivS`: the quotient overflows; SPIR-V `OpSDiv`
/// calls it undefined) becomes 1; for the signed remainders, a negative dividend loses its
/// sign bit and a divisor below 1 becomes 1 (GLSL `%`, NV `MOD`, and in OpenGL SPIR-V's
/// `OpSRem` and `OpSMod`, ARB_gl_spirv A.spv.6, leave negative operands undefined).
pub fn div_operands(op: BinOp, a: u32, b: u32) -> (u32, u32) {
    match op {
        BinOp::DivS if b == 0 || (a == 0x8000_0000 && b == u32::MAX) => (a, 1),
        BinOp::RemS | BinOp::SRem | BinOp::SMod => {
            (a & 0x7FFF_FFFF, if (b as i32) < 1 { 1 } else { b })
        }
        _ if b == 0 => (a, 1),
        _ => (a, b),
    }
}

/// One atomic update of `old` (NV_gpu_program5 ATOM table; GLSL atomic* where they exist):
/// the value stored. IWRAP stores `(old >= op) ? 0 : old + 1`; DWRAP stores
/// `(old == 0 || old > op) ? op : old - 1` (unsigned comparisons); CSWAP stores `op` only when
/// `old == compare`.
pub fn atomic_step(op: AtomicOp, signed: bool, old: u32, operand: u32, compare: u32) -> u32 {
    let (so, sv) = (old as i32, operand as i32);
    match op {
        AtomicOp::Add => old.wrapping_add(operand),
        AtomicOp::Min if signed => so.min(sv) as u32,
        AtomicOp::Max if signed => so.max(sv) as u32,
        AtomicOp::Min => old.min(operand),
        AtomicOp::Max => old.max(operand),
        AtomicOp::And => old & operand,
        AtomicOp::Or => old | operand,
        AtomicOp::Xor => old ^ operand,
        AtomicOp::Exch => operand,
        AtomicOp::CSwap => {
            if old == compare {
                operand
            } else {
                old
            }
        }
        AtomicOp::IWrap => {
            if old >= operand {
                0
            } else {
                old + 1
            }
        }
        AtomicOp::DWrap => {
            if old == 0 || old > operand {
                operand
            } else {
                old - 1
            }
        }
    }
}

impl FExpr {
    /// The value, computed exactly (f64 holds every value [`FExpr::exact`] admits without
    /// rounding).
    pub fn eval(&self, env: &Env) -> f64 {
        match self {
            FExpr::Int(l) => {
                let v = extract(eval(&l.value, env), 0, u32::from(l.bits), l.signed);
                let i = if l.signed {
                    f64::from(v as i32)
                } else {
                    f64::from(v)
                };
                i * 2f64.powi(i32::from(l.scale))
            }
            FExpr::Bin(op, a, b) => {
                let (a, b) = (a.eval(env), b.eval(env));
                match op {
                    FOp::Add => a + b,
                    FOp::Sub => a - b,
                    FOp::Mul => a * b,
                }
            }
            FExpr::Fma(a, b, c) => a.eval(env) * b.eval(env) + c.eval(env),
            FExpr::Sat(a) => a.eval(env).clamp(0.0, 1.0),
        }
    }
}

/// The model of [`Expr::FToI`].
pub fn f_to_i(value: &FExpr, round: Round, to: IntTy, sat: bool, env: &Env) -> u32 {
    let r = round.apply(value.eval(env));
    to.convert(r as i64, sat)
}
