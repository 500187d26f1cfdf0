//! Memory: storage buffers shared by all work groups (atomic words, so groups can run in
//! parallel without data races in the interpreter), per-group shared memory with a shadow of
//! written bytes, and read-only parameter spaces.

use super::planted::LastAtomics;
use crate::ir::{AtomicOp, Kind, ScalarTy};
use crate::PlantedBug;
use std::sync::atomic::{AtomicU64, Ordering};

/// A storage buffer: bytes kept in 64-bit atomic words. Every write is a compare-and-swap on
/// the words it touches, so concurrent writers of different bytes never lose each other's
/// bytes, and every atomic operation on a naturally aligned 32/64-bit value is atomic.
pub struct GlobalBuf {
    words: Vec<AtomicU64>,
    len: usize,
    last_atomics: LastAtomics,
}

impl GlobalBuf {
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let n = bytes.len().div_ceil(8);
        let mut words = Vec::with_capacity(n);
        for i in 0..n {
            let mut w = [0u8; 8];
            let end = ((i + 1) * 8).min(bytes.len());
            w[..end - i * 8].copy_from_slice(&bytes[i * 8..end]);
            words.push(AtomicU64::new(u64::from_le_bytes(w)));
        }
        GlobalBuf {
            words,
            len: bytes.len(),
            last_atomics: LastAtomics::default(),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.words.len() * 8);
        for w in &self.words {
            out.extend_from_slice(&w.load(Ordering::SeqCst).to_le_bytes());
        }
        out.truncate(self.len);
        out
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn in_bounds(&self, off: u64, size: u64) -> bool {
        off.checked_add(size).is_some_and(|e| e <= self.len as u64)
    }

    /// Reads `size` (<= 8) bytes at `off` as a little-endian value. None when out of bounds.
    pub fn read(&self, off: u64, size: u32) -> Option<u64> {
        if !self.in_bounds(off, u64::from(size)) {
            return None;
        }
        let off = off as usize;
        let wi = off / 8;
        let bo = off % 8;
        let size = size as usize;
        if bo + size <= 8 {
            let w = self.words[wi].load(Ordering::SeqCst);
            let v = w >> (bo * 8);
            return Some(if size == 8 {
                v
            } else {
                v & ((1u64 << (size * 8)) - 1)
            });
        }
        let mut v = 0u64;
        for i in 0..size {
            let b = off + i;
            let w = self.words[b / 8].load(Ordering::SeqCst);
            v |= ((w >> ((b % 8) * 8)) & 0xff) << (i * 8);
        }
        Some(v)
    }

    /// Writes the low `size` (<= 8) bytes of `v` at `off`. False when out of bounds.
    pub fn write(&self, off: u64, size: u32, v: u64) -> bool {
        if !self.in_bounds(off, u64::from(size)) {
            return false;
        }
        let off = off as usize;
        let size = size as usize;
        let mut i = 0;
        while i < size {
            let b = off + i;
            let wi = b / 8;
            let bo = b % 8;
            let n = (8 - bo).min(size - i);
            let mask = if n == 8 {
                u64::MAX
            } else {
                ((1u64 << (n * 8)) - 1) << (bo * 8)
            };
            let bits = ((v >> (i * 8)) << (bo * 8)) & mask;
            let _ = self.words[wi].fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
                Some((w & !mask) | bits)
            });
            i += n;
        }
        true
    }

    /// The atomic operation `op` at `off`: [`GlobalBuf::rmw`] with `f(operation run, old)`
    /// (the operation run is `op` unless a planted bug says otherwise: [`LastAtomics`]).
    pub fn atomic(
        &self,
        off: u64,
        size: u32,
        op: AtomicOp,
        bug: Option<PlantedBug>,
        f: impl Fn(AtomicOp, u64) -> Option<u64>,
    ) -> Option<u64> {
        let run = self.last_atomics.op(bug, off, op);
        self.rmw(off, size, |old| f(run, old))
    }

    /// Atomic read-modify-write of a `size`-byte (4 or 8) value at `off`: `f(old)` gives the
    /// value to store (None: no store). Returns the old value, or None when out of bounds. An
    /// offset that is not a multiple of `size` is performed non-atomically (undefined in the
    /// specs; flagged by the caller).
    pub fn rmw(&self, off: u64, size: u32, f: impl Fn(u64) -> Option<u64>) -> Option<u64> {
        if !self.in_bounds(off, u64::from(size)) {
            return None;
        }
        let o = off as usize;
        if size == 0 || !o.is_multiple_of(size as usize) || size > 8 {
            let old = self.read(off, size)?;
            if let Some(new) = f(old) {
                self.write(off, size, new);
            }
            return Some(old);
        }
        let wi = o / 8;
        let bo = o % 8;
        let mask = if size == 8 {
            u64::MAX
        } else {
            ((1u64 << (size * 8)) - 1) << (bo * 8)
        };
        let mut old_val = 0;
        let _ = self.words[wi].fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
            let old = (w & mask) >> (bo * 8);
            old_val = old;
            f(old).map(|new| (w & !mask) | ((new << (bo * 8)) & mask))
        });
        Some(old_val)
    }
}

/// Shared memory of one work group: bytes plus a shadow bitmap of bytes ever written.
pub struct SharedMem {
    pub bytes: Vec<u8>,
    written: Vec<u64>,
    last_atomics: LastAtomics,
}

/// The poison pattern shared memory starts with: the 32-bit word 0xDEADBEEF repeated.
pub const POISON: [u8; 4] = [0xEF, 0xBE, 0xAD, 0xDE];

impl SharedMem {
    pub fn new(size: u32) -> Self {
        let size = size as usize;
        let bytes = (0..size).map(|i| POISON[i % 4]).collect();
        SharedMem {
            bytes,
            written: vec![0; size.div_ceil(64)],
            last_atomics: LastAtomics::default(),
        }
    }

    pub fn reset(&mut self) {
        for (i, b) in self.bytes.iter_mut().enumerate() {
            *b = POISON[i % 4];
        }
        self.written.iter_mut().for_each(|w| *w = 0);
        self.last_atomics.clear();
    }

    /// The operation an atomic `op` at `off` runs: `op` unless a planted bug says otherwise
    /// ([`LastAtomics`]).
    pub fn atomic_op(&self, bug: Option<PlantedBug>, off: u64, op: AtomicOp) -> AtomicOp {
        self.last_atomics.op(bug, off, op)
    }

    fn range(&self, off: u64, size: u32) -> Option<usize> {
        let end = off.checked_add(u64::from(size))?;
        if end <= self.bytes.len() as u64 {
            Some(off as usize)
        } else {
            None
        }
    }

    /// Reads; returns (value, all bytes were written before). None when out of bounds.
    pub fn read(&self, off: u64, size: u32) -> Option<(u64, bool)> {
        let o = self.range(off, size)?;
        let mut v = 0u64;
        let mut init = true;
        for i in 0..size as usize {
            v |= u64::from(self.bytes[o + i]) << (i * 8);
            let b = o + i;
            init &= (self.written[b / 64] >> (b % 64)) & 1 == 1;
        }
        Some((v, init))
    }

    pub fn write(&mut self, off: u64, size: u32, v: u64) -> bool {
        let Some(o) = self.range(off, size) else {
            return false;
        };
        for i in 0..size as usize {
            self.bytes[o + i] = (v >> (i * 8)) as u8;
            let b = o + i;
            self.written[b / 64] |= 1 << (b % 64);
        }
        true
    }
}

/// The new value an atomic operation stores given the old one (None: no store). `a`, `b` are
/// the operands (b only for CmpXchg). Values are bit patterns of type `t`.
/// `a < b` for the float atomic min (`max` false) and max (`max` true) of
/// GL_INTEL_shader_atomic_float_minmax ("Modify Section 8.11"). For atomicMin "If one of these
/// is an IEEE signaling NaN [...], it is always considered smaller. If one of these is an IEEE
/// quiet NaN [...], it is always considered larger"; for atomicMax the other way round: a
/// signaling NaN "is always considered larger", a quiet NaN "smaller". So both store a
/// signaling NaN and ignore a quiet one (the extension's issue 3: fmin(qNaN, x) = fmax(qNaN,
/// x) = x, fmin(sNaN, x) = fmax(sNaN, x) = sNaN). Two NaNs of the same kind compare undefined
/// and two zeros of different sign compare equal: the reference reads both as "not less", so
/// atomicMin keeps the old value and atomicMax stores the data (two different NaNs of one
/// kind are flagged where stored: [`float_atomic_undefined`]). Other values compare as
/// numbers.
fn float_atomic_less(t: ScalarTy, a: u64, b: u64, max: bool) -> bool {
    let (man_bits, exp_mask) = match t.bits {
        64 => (52, 0x7ff),
        16 => (10, 0x1f),
        _ => (23, 0xff),
    };
    // In atomicMin's order 0: signaling NaN, 1: a number (infinities included), 2: quiet
    // NaN; atomicMax's swaps the two NaNs.
    let (signaling, quiet) = if max { (2, 0) } else { (0, 2) };
    let class = |v: u64| {
        let exp = (v >> man_bits) & exp_mask;
        let man = v & ((1u64 << man_bits) - 1);
        match (exp == exp_mask, man) {
            (true, m) if m != 0 && m >> (man_bits - 1) == 0 => signaling,
            (true, 0) | (false, _) => 1,
            (true, _) => quiet,
        }
    };
    match (class(a), class(b)) {
        (1, 1) => super::values::cmp(crate::ir::CmpOp::Lt, t, a, b),
        (ca, cb) => ca < cb,
    }
}

/// The rule that leaves a float atomic add's stored value undefined (what a flag names).
pub const FLOAT_ATOMIC_ADD_NAN: &str = "a float atomic add whose result is a NaN (GLSL 4.60 section 4.7.1, ARB_gl_spirv A.spv.5: NaNs need not be generated, and an operation on a NaN need not return one; the reference stores the host's NaN)";

/// The rule that leaves a float atomicMin's or atomicMax's stored value undefined.
pub const FLOAT_ATOMIC_MIN_MAX_NANS: &str = "a float atomicMin or atomicMax of two different NaNs of the same kind (GL_INTEL_shader_atomic_float_minmax: \"If both are IEEE quiet NaNs or both are IEEE signaling NaNs, the result of the comparison is undefined\"; the reference keeps atomicMin's old value and stores atomicMax's data)";

/// Why the value a float atomic `op` stores is undefined, if it is (the rule's text), given
/// the old value, the operand `a` and what it stored (None: no store). A float add whose
/// result is a NaN, made (inf + -inf) or carried from an operand (NaN + 1, 5 + NaN), where
/// the program's language leaves NaN results undefined (`nan_undefined`: GLSL and SPIR-V, not
/// NV assembly, which computes by IEEE rules). A float min or max of two NaNs of the same kind
/// whose bits differ (the comparison is undefined, so either may be stored; two equal NaNs
/// store the same bits either way). Exchange and compare-exchange move a value without
/// making one, and min and max of a NaN and a number follow the extension's order
/// ([`float_atomic_less`]): defined.
pub fn float_atomic_undefined(
    op: AtomicOp,
    t: ScalarTy,
    old: u64,
    a: u64,
    stored: Option<u64>,
    nan_undefined: bool,
) -> Option<&'static str> {
    if t.kind != Kind::F {
        return None;
    }
    let m = t.mask();
    let nan = |v: u64| super::values::unop(crate::ir::UnOp::IsNan, t, v & m) != 0;
    match op {
        AtomicOp::Add if nan_undefined && stored.is_some_and(nan) => Some(FLOAT_ATOMIC_ADD_NAN),
        AtomicOp::Min | AtomicOp::Max if nan(old) && nan(a) && (old ^ a) & m != 0 => {
            // The most significant bit of the mantissa tells a quiet NaN from a signaling one.
            let quiet = 1u64
                << match t.bits {
                    64 => 51,
                    16 => 9,
                    _ => 22,
                };
            ((old ^ a) & quiet == 0).then_some(FLOAT_ATOMIC_MIN_MAX_NANS)
        }
        _ => None,
    }
}

pub fn atomic_new(
    op: AtomicOp,
    t: ScalarTy,
    old: u64,
    a: u64,
    b: u64,
    bug: Option<PlantedBug>,
) -> Option<u64> {
    use super::values::sext;
    let m = t.mask();
    let (old, a, b) = (old & m, a & m, b & m);
    Some(match op {
        AtomicOp::Add => {
            if t.kind == Kind::F && bug == Some(PlantedBug::FloatAtomicAddDropsFraction) {
                let whole = super::values::unop(crate::ir::UnOp::Trunc, t, a);
                super::values::binop(crate::ir::BinOp::Add, t, old, whole)
            } else if t.kind == Kind::F {
                super::values::binop(crate::ir::BinOp::Add, t, old, a)
            } else {
                old.wrapping_add(a) & m
            }
        }
        AtomicOp::Min | AtomicOp::Max => {
            let less = if t.kind == Kind::F {
                float_atomic_less(t, a, old, op == AtomicOp::Max)
            } else if t.kind == Kind::S {
                sext(a, t.bits) < sext(old, t.bits)
            } else {
                a < old
            };
            if (op == AtomicOp::Min) == less {
                a
            } else {
                old
            }
        }
        AtomicOp::And => old & a,
        AtomicOp::Or => old | a,
        AtomicOp::Xor => old ^ a,
        AtomicOp::Exch => a,
        AtomicOp::CmpXchg => {
            // Floats compare as floats (GL_INTEL_shader_atomic_float_minmax, issue 3:
            // "atomicCompSwap performs the comparison as the floating-point equality operator
            // (==). That is, if either 'mem' or 'compare' is NaN, the comparison result is
            // always false."): a NaN never matches, -0.0 matches +0.0.
            let equal = if t.kind == Kind::F {
                super::values::cmp(crate::ir::CmpOp::Eq, t, old, a)
            } else {
                old == a
            };
            if equal {
                b
            } else {
                return None;
            }
        }
        AtomicOp::IWrap => {
            let wraps = if bug == Some(PlantedBug::IwrapOffByOne) {
                old > a
            } else {
                old >= a
            };
            if wraps {
                0
            } else {
                old.wrapping_add(1) & m
            }
        }
        AtomicOp::DWrap => {
            if old == 0 || old > a {
                a
            } else {
                old - 1
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    fn model(op: AtomicOp, signed: bool, old: u32, a: u32, b: u32) -> Option<u32> {
        Some(match op {
            AtomicOp::Add => old.wrapping_add(a),
            AtomicOp::Min => {
                if signed {
                    (old as i32).min(a as i32) as u32
                } else {
                    old.min(a)
                }
            }
            AtomicOp::Max => {
                if signed {
                    (old as i32).max(a as i32) as u32
                } else {
                    old.max(a)
                }
            }
            AtomicOp::And => old & a,
            AtomicOp::Or => old | a,
            AtomicOp::Xor => old ^ a,
            AtomicOp::Exch => a,
            AtomicOp::CmpXchg => return (old == a).then_some(b),
            AtomicOp::IWrap => {
                if old >= a {
                    0
                } else {
                    old + 1
                }
            }
            AtomicOp::DWrap => {
                if old == 0 || old > a {
                    a
                } else {
                    old - 1
                }
            }
        })
    }

    #[test]
    fn float_atomic_min_max_order_nans_as_intel_says() {
        let (snan, qnan, one) = (0x7f80_0001u64, 0x7fc0_0000u64, u64::from(1f32.to_bits()));
        let f = |op, old, a| atomic_new(op, ScalarTy::F32, old, a, 0, None).unwrap();
        // atomicMin: a signaling NaN is smaller than everything, a quiet NaN larger;
        // atomicMax: a signaling NaN is larger, a quiet NaN smaller. Either way the signaling
        // NaN is stored and the quiet one ignored (issue 3 of the extension).
        assert_eq!(f(AtomicOp::Min, one, snan), snan);
        assert_eq!(f(AtomicOp::Min, snan, one), snan);
        assert_eq!(f(AtomicOp::Max, one, snan), snan);
        assert_eq!(f(AtomicOp::Max, snan, one), snan);
        assert_eq!(f(AtomicOp::Min, one, qnan), one);
        assert_eq!(f(AtomicOp::Min, qnan, one), one);
        assert_eq!(f(AtomicOp::Max, one, qnan), one);
        assert_eq!(f(AtomicOp::Max, qnan, one), one);
        assert_eq!(f(AtomicOp::Min, qnan, snan), snan);
        assert_eq!(f(AtomicOp::Max, qnan, snan), snan);
        assert_eq!(f(AtomicOp::Min, snan, qnan), snan);
        assert_eq!(f(AtomicOp::Max, snan, qnan), snan);
        // Infinities are numbers.
        let inf = u64::from(f32::INFINITY.to_bits());
        assert_eq!(f(AtomicOp::Max, one, inf), inf);
        assert_eq!(f(AtomicOp::Max, inf, qnan), inf);
        assert_eq!(f(AtomicOp::Min, inf, qnan), inf);
        // Zeros compare equal: min keeps the old value, max stores the data.
        let nz = u64::from((-0f32).to_bits());
        assert_eq!(f(AtomicOp::Min, 0, nz), 0);
        assert_eq!(f(AtomicOp::Max, 0, nz), nz);
    }

    /// The stored values float atomics leave undefined: an add whose result is a NaN (made
    /// or carried) where the language says so, a min or max of two different NaNs of one kind.
    #[test]
    fn float_atomic_nans_that_the_specs_leave_undefined() {
        let bits = |x: f32| u64::from(x.to_bits());
        let (nan, inf, one) = (bits(f32::NAN), bits(f32::INFINITY), bits(1.0));
        let und = |op, old, a, nan_undefined| {
            let stored = atomic_new(op, ScalarTy::F32, old, a, 0, None);
            float_atomic_undefined(op, ScalarTy::F32, old, a, stored, nan_undefined)
        };
        let add = AtomicOp::Add;
        assert_eq!(und(add, nan, one, true), Some(FLOAT_ATOMIC_ADD_NAN));
        assert_eq!(
            und(add, inf, bits(f32::NEG_INFINITY), true),
            Some(FLOAT_ATOMIC_ADD_NAN)
        );
        assert_eq!(und(add, bits(5.0), nan, true), Some(FLOAT_ATOMIC_ADD_NAN));
        assert_eq!(und(add, inf, one, true), None, "inf + 1 is inf");
        assert_eq!(und(add, one, one, true), None);
        // NV assembly computes by IEEE rules.
        assert_eq!(und(add, nan, one, false), None);
        // Doubles too.
        let d = |x: f64| x.to_bits();
        let stored = atomic_new(
            add,
            ScalarTy::F64,
            d(f64::INFINITY),
            d(f64::NEG_INFINITY),
            0,
            None,
        );
        assert_eq!(
            float_atomic_undefined(
                add,
                ScalarTy::F64,
                d(f64::INFINITY),
                d(f64::NEG_INFINITY),
                stored,
                true
            ),
            Some(FLOAT_ATOMIC_ADD_NAN)
        );
        // Integers never.
        assert_eq!(
            float_atomic_undefined(add, ScalarTy::U32, 0x7fc0_0000, 1, Some(0x7fc0_0001), true),
            None
        );
        // Min and max: two different NaNs of one kind, whatever nan_undefined says.
        let (q1, q2, s1, s2) = (
            0x7fc0_0000u64,
            0xffc0_0001u64,
            0x7f80_0001u64,
            0x7f80_0002u64,
        );
        for op in [AtomicOp::Min, AtomicOp::Max] {
            assert_eq!(und(op, q1, q2, false), Some(FLOAT_ATOMIC_MIN_MAX_NANS));
            assert_eq!(und(op, s1, s2, true), Some(FLOAT_ATOMIC_MIN_MAX_NANS));
            assert_eq!(und(op, q1, q1, true), None, "the same bits either way");
            assert_eq!(
                und(op, q1, s1, true),
                None,
                "the signaling NaN, as the extension orders"
            );
            assert_eq!(und(op, one, q1, true), None);
            assert_eq!(und(op, s1, one, true), None);
        }
        // A float compare-exchange compares as floats: a NaN never matches (nothing stored),
        // -0.0 matches +0.0.
        let cas = |old, cmp| atomic_new(AtomicOp::CmpXchg, ScalarTy::F32, old, cmp, one, None);
        assert_eq!(cas(nan, nan), None);
        assert_eq!(cas(0, bits(-0.0)), Some(one));
        assert_eq!(cas(bits(2.0), bits(2.0)), Some(one));
        // Exchange and compare-exchange move values.
        assert_eq!(und(AtomicOp::Exch, one, nan, true), None);
        assert_eq!(und(AtomicOp::CmpXchg, nan, nan, true), None);
    }

    const OPS: [AtomicOp; 10] = [
        AtomicOp::Add,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exch,
        AtomicOp::CmpXchg,
        AtomicOp::IWrap,
        AtomicOp::DWrap,
    ];

    quickcheck! {
        fn atomics_match_the_formulas(old: u32, a: u32, b: u32, small: bool) -> bool {
            // small values make IWRAP/DWRAP/CSWAP boundaries likely
            let (old, a) = if small { (old % 8, a % 8) } else { (old, a) };
            OPS.iter().all(|&op| {
                let u = atomic_new(op, ScalarTy::U32, u64::from(old), u64::from(a), u64::from(b), None);
                let s = atomic_new(op, ScalarTy::S32, u64::from(old), u64::from(a), u64::from(b), None);
                u == model(op, false, old, a, b).map(u64::from)
                    && (matches!(op, AtomicOp::IWrap | AtomicOp::DWrap)
                        || s == model(op, true, old, a, b).map(u64::from))
            })
        }

        fn atomics_64_bit_add_wraps(old: u64, a: u64) -> bool {
            atomic_new(AtomicOp::Add, ScalarTy::U64, old, a, 0, None) == Some(old.wrapping_add(a))
                && atomic_new(AtomicOp::Min, ScalarTy::S64, old, a, 0, None)
                    == Some((old as i64).min(a as i64) as u64)
        }

        fn float_atomic_min_max_of_numbers_are_fmin_fmax(old: f32, a: f32) -> bool {
            let f = |op| atomic_new(op, ScalarTy::F32, u64::from(old.to_bits()), u64::from(a.to_bits()), 0, None)
                .map(|v| f32::from_bits(v as u32));
            old.is_nan() || a.is_nan() || (old == a) || (f(AtomicOp::Min) == Some(old.min(a)) && f(AtomicOp::Max) == Some(old.max(a)))
        }

        fn global_buf_bytes_round_trip(data: Vec<u8>, off: u8, v: u32) -> bool {
            let g = GlobalBuf::from_bytes(&data);
            let o = u64::from(off);
            let wrote = g.write(o, 4, u64::from(v));
            let mut model = data.clone();
            if wrote {
                model[off as usize..off as usize + 4].copy_from_slice(&v.to_le_bytes());
            }
            wrote == (o + 4 <= data.len() as u64) && g.to_bytes() == model
        }
    }

    #[test]
    fn iwrap_dwrap_documented_edges() {
        // IWRAP with op 0 always stores 0; DWRAP with old > op stores op
        for old in [0u64, 1, 5, u64::from(u32::MAX)] {
            assert_eq!(
                atomic_new(AtomicOp::IWrap, ScalarTy::U32, old, 0, 0, None),
                Some(0)
            );
        }
        assert_eq!(
            atomic_new(AtomicOp::DWrap, ScalarTy::U32, 9, 4, 0, None),
            Some(4)
        );
        assert_eq!(
            atomic_new(AtomicOp::DWrap, ScalarTy::U32, 0, 4, 0, None),
            Some(4)
        );
        assert_eq!(
            atomic_new(AtomicOp::DWrap, ScalarTy::U32, 3, 4, 0, None),
            Some(2)
        );
        assert_eq!(
            atomic_new(AtomicOp::IWrap, ScalarTy::U32, 3, 3, 0, None),
            Some(0)
        );
        assert_eq!(
            atomic_new(
                AtomicOp::IWrap,
                ScalarTy::U32,
                3,
                3,
                0,
                Some(PlantedBug::IwrapOffByOne)
            ),
            Some(4)
        );
    }

    #[test]
    fn storage_atomics_are_atomic_across_threads() {
        let g = GlobalBuf::from_bytes(&[0; 16]);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..10_000 {
                        g.rmw(4, 4, |old| {
                            atomic_new(AtomicOp::Add, ScalarTy::U32, old, 1, 0, None)
                        });
                        g.write(0, 1, 0xAB);
                    }
                });
            }
        });
        let b = g.to_bytes();
        assert_eq!(u32::from_le_bytes([b[4], b[5], b[6], b[7]]), 40_000);
        assert_eq!(b[0], 0xAB);
    }

    #[test]
    fn shared_memory_poison_and_shadow() {
        let mut s = SharedMem::new(8);
        assert_eq!(s.read(0, 4), Some((0xDEAD_BEEF, false)));
        assert!(s.write(2, 2, 0x1234));
        assert_eq!(s.read(2, 2), Some((0x1234, true)));
        assert_eq!(s.read(0, 4).map(|r| r.1), Some(false));
        assert_eq!(s.read(6, 4), None);
        assert_eq!(s.read(u64::MAX, 4), None);
    }
}
