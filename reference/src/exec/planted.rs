//! The bugs the fuzzer's self-test plants in the executor ([`PlantedBug`]), one function
//! per place, so that the executor's own code reads as the semantics it implements. Each
//! returns the correct behaviour unless its bug is planted. (Two bugs live in front ends
//! instead, where an operation lowers to instructions every other block reaches:
//! `SadSignedReadsUnsigned` in the NV assembly lowering of SAD, `ClampSignedAsUnsigned` in the
//! GLSL lowering of clamp.)

use super::values;
use crate::ir::{
    cc, AtomicOp, BinOp, CmpOp, Inst, Kind, MemTy, Program, Rounding, ScalarTy, Src, UnOp,
};
use crate::PlantedBug;
use std::collections::HashMap;
use std::sync::Mutex;

/// The unary operation actually run: `FloorTruncates` runs a float floor as a truncation.
pub fn unop(bug: Option<PlantedBug>, op: UnOp, ty: ScalarTy) -> UnOp {
    match op {
        UnOp::Floor if bug == Some(PlantedBug::FloorTruncates) && ty.kind == Kind::F => UnOp::Trunc,
        _ => op,
    }
}

/// The value of a unary operation on one lane: `PackNormUnclamped` packs a float to
/// normalized fixed point without clamping it first (the part out of range wraps into the
/// field's bits); `LogicalNotBitwise` complements a boolean's bits; `FindMsbSignedAsUnsigned`
/// finds a signed value's highest bit as for an unsigned one. Everything else is
/// [`values::unop`].
pub fn unop_value(bug: Option<PlantedBug>, op: UnOp, ty: ScalarTy, a: u64) -> u64 {
    match op {
        UnOp::PackNorm { signed, bits } if bug == Some(PlantedBug::PackNormUnclamped) => {
            let scale = if signed {
                ((1u32 << (bits - 1)) - 1) as f32
            } else {
                ((1u32 << bits) - 1) as f32
            };
            let x = f32::from_bits(a as u32);
            if x.is_nan() {
                return 0;
            }
            ((x * scale).round_ties_even() as i64 as u64) & ((1u64 << bits) - 1)
        }
        UnOp::Not if bug == Some(PlantedBug::LogicalNotBitwise) && ty.kind == Kind::B => {
            !a & ty.mask()
        }
        UnOp::FindMsb if bug == Some(PlantedBug::FindMsbSignedAsUnsigned) && ty.kind == Kind::S => {
            values::unop(op, ScalarTy::new(Kind::U, ty.bits), a)
        }
        _ => values::unop(op, ty, a),
    }
}

/// A comparison of one lane: `UnsignedLeSigned` compares unsigned 32-bit `<=` and `>=` on the
/// signed readings. Everything else is [`values::cmp`].
pub fn cmp(bug: Option<PlantedBug>, op: CmpOp, ty: ScalarTy, a: u64, b: u64) -> bool {
    let le_ge = matches!(op, CmpOp::Le | CmpOp::Ge);
    match bug {
        Some(PlantedBug::UnsignedLeSigned) if le_ge && ty.kind == Kind::U && ty.bits == 32 => {
            values::cmp(op, ScalarTy::new(Kind::S, 32), a, b)
        }
        _ => values::cmp(op, ty, a, b),
    }
}

/// The condition-code flags of an integer add or subtract: `SubtractCarryIsBorrow` sets a
/// subtract's CF on a borrow.
pub fn cc_add_flags(bug: Option<PlantedBug>, flags: u64, sub: bool) -> u64 {
    if bug == Some(PlantedBug::SubtractCarryIsBorrow) && sub {
        flags ^ cc::CF
    } else {
        flags
    }
}

/// The second operand a binary operation actually reads: `WideShiftCountMod32` takes a
/// 64-bit integer shift's count modulo 32.
pub fn shift_count(bug: Option<PlantedBug>, op: BinOp, ty: ScalarTy, b: u64) -> u64 {
    let shift = matches!(op, BinOp::Shl | BinOp::Shr);
    if bug == Some(PlantedBug::WideShiftCountMod32) && shift && ty.bits == 64 && ty.kind != Kind::F
    {
        b & 31
    } else {
        b
    }
}

/// The rounding actually used by a rounded conversion (`FloorTruncates` again).
pub fn rounding(bug: Option<PlantedBug>, r: Rounding) -> Rounding {
    match r {
        Rounding::Down if bug == Some(PlantedBug::FloorTruncates) => Rounding::TowardZero,
        r => r,
    }
}

/// Where a return to `ret` goes: `ReturnSkipsOne` skips the caller's next instruction
/// unless it ends the program.
pub fn return_to(bug: Option<PlantedBug>, prog: &Program, ret: u32) -> u32 {
    let ends = matches!(prog.code.get(ret as usize), Some(Inst::Exit));
    if bug == Some(PlantedBug::ReturnSkipsOne) && !ends {
        ret + 1
    } else {
        ret
    }
}

/// The type a load widens from: `NarrowLoadZeroExtends` reads a signed 8- or 16-bit type as
/// its unsigned twin.
pub fn load_ty(bug: Option<PlantedBug>, mt: MemTy) -> MemTy {
    let narrow_signed = mt.scalar.kind == Kind::S && mt.scalar.bits < 32;
    if bug == Some(PlantedBug::NarrowLoadZeroExtends) && narrow_signed {
        MemTy {
            scalar: ScalarTy::new(Kind::U, mt.scalar.bits),
            ..mt
        }
    } else {
        mt
    }
}

/// The source a move actually reads: `SwizzleWReadsZ` reads component z where lane y or z
/// of a swizzle that is not a broadcast names w (front ends replicate scalars with
/// broadcasts, which other areas reach).
pub fn mov_source(bug: Option<PlantedBug>, a: Src) -> Src {
    let mut a = a;
    let broadcast = a.swz.iter().all(|&c| c == a.swz[0]);
    if bug == Some(PlantedBug::SwizzleWReadsZ) && !broadcast {
        for l in 1..=2 {
            if a.swz[l] & 3 == 3 {
                a.swz[l] = 2;
            }
        }
    }
    a
}

/// The source id a subgroup shuffle or broadcast reads: `SubgroupShuffleSourceDropsBit4`
/// clears its bit 4.
pub fn subgroup_source(bug: Option<PlantedBug>, src: i64) -> i64 {
    if bug == Some(PlantedBug::SubgroupShuffleSourceDropsBit4) {
        src & !16
    } else {
        src
    }
}

/// The value a subgroup scan starts from: `SubgroupScanIdentityZero` starts from 0.
pub fn subgroup_scan_identity(bug: Option<PlantedBug>, identity: u64) -> u64 {
    if bug == Some(PlantedBug::SubgroupScanIdentityZero) {
        0
    } else {
        identity
    }
}

/// The built program a planted bug changes before it runs: `UnpackSnormRuntimeUnsigned`
/// makes unsigned every signed bitfield extract of several lanes (written to more than one
/// lane) from one lane of a register the program computes (not preloaded: a constant, which
/// compilers fold, is left alone). The SPIR-V front end's UnpackSnorm2x16/4x8 is that
/// extract; NV assembly's `BFE.S` writes one lane where the generator uses it, and the GLSL
/// and SPIR-V bitfield extracts of vectors read each lane of their own.
pub fn program(bug: Option<PlantedBug>, prog: &mut Program) {
    if bug != Some(PlantedBug::UnpackSnormRuntimeUnsigned) {
        return;
    }
    let init = &prog.reg_init;
    for inst in prog.code.iter_mut() {
        if let Inst::BitfieldExtract { ty, dst, a, .. } = inst {
            let broadcast = a.swz.iter().all(|&c| c == a.swz[0]);
            let preloaded = init
                .get(a.reg.0 as usize)
                .is_some_and(|v| v.iter().any(|&x| x != 0));
            if ty.scalar.kind == Kind::S
                && ty.lanes > 1
                && (dst.mask & 0xF).count_ones() > 1
                && broadcast
                && !preloaded
            {
                ty.scalar = ScalarTy::new(Kind::U, ty.scalar.bits);
            }
        }
    }
}

/// The last atomic operation on each word of one memory (a storage buffer, a group's shared
/// memory), by byte offset: `OrAfterAndActsAsXor` needs it. Only written while that bug is
/// planted (otherwise it stays empty and costs nothing).
#[derive(Default)]
pub struct LastAtomics(Mutex<HashMap<u64, AtomicOp>>);

impl LastAtomics {
    /// The operation an atomic `op` at `off` runs, recording `op` as the word's last:
    /// `OrAfterAndActsAsXor` runs an OR on a word whose previous atomic was an AND as a XOR.
    pub fn op(&self, bug: Option<PlantedBug>, off: u64, op: AtomicOp) -> AtomicOp {
        if bug != Some(PlantedBug::OrAfterAndActsAsXor) {
            return op;
        }
        let mut last = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let after_and = last.insert(off, op) == Some(AtomicOp::And);
        if op == AtomicOp::Or && after_and {
            AtomicOp::Xor
        } else {
            op
        }
    }

    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn or_after_and_runs_as_xor_per_word_only_when_planted() {
        let bug = Some(PlantedBug::OrAfterAndActsAsXor);
        let last = LastAtomics::default();
        assert_eq!(last.op(None, 0, AtomicOp::And), AtomicOp::And);
        assert_eq!(last.op(None, 0, AtomicOp::Or), AtomicOp::Or);
        assert_eq!(last.op(bug, 0, AtomicOp::And), AtomicOp::And);
        // Another word's AND does not count.
        assert_eq!(last.op(bug, 4, AtomicOp::Or), AtomicOp::Or);
        assert_eq!(last.op(bug, 0, AtomicOp::Or), AtomicOp::Xor);
        assert_eq!(last.op(bug, 0, AtomicOp::Or), AtomicOp::Or);
        last.op(bug, 0, AtomicOp::And);
        last.clear();
        assert_eq!(last.op(bug, 0, AtomicOp::Or), AtomicOp::Or);
    }
}
