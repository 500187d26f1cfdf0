//! Shader writes a later dispatch may not see: storage-buffer bytes an earlier dispatch of the
//! case changed with no `glMemoryBarrier(SHADER_STORAGE_BARRIER_BIT)` since.
//!
//! GL does not order a shader's stores before later commands: "buffer object and texture
//! stores performed by shaders are not automatically synchronized with other GL operations
//! using the same memory" (ARB_shader_image_load_store, "Shader Memory Access
//! Synchronization"); only after SHADER_STORAGE_BARRIER_BIT (or ALL_BARRIER_BITS) do "memory
//! accesses using shader buffer variables issued after the barrier [...] reflect data written
//! by shaders prior to the barrier" (ARB_shader_storage_buffer_object). Without the barrier a
//! later dispatch's load may return the value from before the write: the reference returns
//! the new value (its memory is sequentially consistent) and marks it undefined
//! (`poison::Cause::Unseen`), flagged `undefined-value` where the value is used, like every
//! other undefined value.
//!
//! Per storage buffer, one bit per byte: `unseen`, bytes earlier dispatches changed since the
//! last barrier (read-only while a dispatch runs); `written`, bytes this dispatch stored or
//! updated with an atomic (a load of those reads this dispatch's write: ordered within the
//! invocation, or a race between invocations that `race` judges); `changed`, those whose
//! value the write changed (a store of the value already there leaves nothing to see late).
//! After the dispatch `changed` joins `unseen`. API writes (glBufferSubData,
//! glClearBufferData) replace the bytes they write: GL synchronises them with later commands
//! itself. Not tracked: plans with fewer than two dispatches (nothing to see late: the final
//! read-back follows the harness's own BUFFER_UPDATE barrier), atomic counters and images
//! (their own barrier bits), and the atomics of the later dispatch, which read the memory
//! itself (docs/REFERENCE.md, "Undefined results").

use conform_plan::{ApiAction, BarrierBit, BufferKind, ExecPlan, Step};
use std::sync::atomic::{AtomicU64, Ordering};

/// One bit per byte of a buffer; set and read through `&self` (groups of a dispatch may run
/// on several threads).
#[derive(Debug)]
pub struct Bits(Vec<AtomicU64>);

impl Bits {
    pub fn new(len: usize) -> Bits {
        Bits((0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    fn bytes(off: u64, size: u32) -> std::ops::Range<u64> {
        off..off.saturating_add(u64::from(size))
    }

    fn word(&self, b: u64) -> Option<&AtomicU64> {
        self.0.get(usize::try_from(b / 64).ok()?)
    }

    /// Sets the bits of the bytes of `size` bytes at `off` that `mask` selects (bit k: byte
    /// k; bytes past the end are ignored).
    pub fn set(&self, off: u64, size: u32, mask: u64) {
        for (k, b) in Self::bytes(off, size).enumerate() {
            if mask >> k & 1 != 0 {
                if let Some(w) = self.word(b) {
                    w.fetch_or(1 << (b % 64), Ordering::Relaxed);
                }
            }
        }
    }

    /// Clears the bits of `size` bytes at `off`.
    pub fn clear_range(&self, off: u64, size: u64) {
        let end = off.saturating_add(size).min(self.0.len() as u64 * 64);
        for b in off..end {
            if let Some(w) = self.word(b) {
                w.fetch_and(!(1 << (b % 64)), Ordering::Relaxed);
            }
        }
    }

    pub fn get(&self, b: u64) -> bool {
        self.word(b)
            .is_some_and(|w| w.load(Ordering::Relaxed) >> (b % 64) & 1 != 0)
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        for w in &mut self.0 {
            *w.get_mut() = 0;
        }
    }

    /// Sets every bit `other` has; whether any bit is set now.
    fn or_from(&mut self, other: &Bits) -> bool {
        let mut any = false;
        for (w, o) in self.0.iter_mut().zip(&other.0) {
            *w.get_mut() |= o.load(Ordering::Relaxed);
            any |= *w.get_mut() != 0;
        }
        any
    }
}

/// One storage buffer's bytes (see the module's documentation).
#[derive(Debug)]
pub struct Tracked {
    unseen: Bits,
    /// Whether `unseen` has a bit set (most dispatches read nothing unseen).
    any_unseen: bool,
    written: Bits,
    changed: Bits,
}

impl Tracked {
    fn new(len: usize) -> Tracked {
        Tracked {
            unseen: Bits::new(len),
            any_unseen: false,
            written: Bits::new(len),
            changed: Bits::new(len),
        }
    }

    /// Whether a load of `size` bytes at `off` may return a value from before an earlier
    /// dispatch's write: one of its bytes changed by an earlier dispatch, unseen, and not
    /// written since by this one.
    #[inline]
    pub fn load_unseen(&self, off: u64, size: u32) -> bool {
        self.any_unseen
            && Bits::bytes(off, size).any(|b| self.unseen.get(b) && !self.written.get(b))
    }

    /// Records a store or an atomic of this dispatch: `size` bytes at `off` held `old` and
    /// now hold `new` (little-endian).
    #[inline]
    pub fn wrote(&self, off: u64, size: u32, old: u64, new: u64) {
        self.written.set(off, size, u64::MAX);
        let diff = old ^ new;
        let mask =
            (0..size.min(8)).fold(0u64, |m, k| m | u64::from(diff >> (8 * k) & 0xff != 0) << k);
        if mask != 0 {
            self.changed.set(off, size, mask);
        }
    }
}

/// The storage buffers of one run whose writes a later dispatch may not see.
#[derive(Debug, Default)]
pub struct Visibility {
    /// Per buffer of the plan: Some for storage buffers, when the plan has two dispatches or
    /// more.
    bufs: Vec<Option<Tracked>>,
}

fn is_dispatch(s: &Step) -> bool {
    matches!(
        s,
        Step::Dispatch { .. }
            | Step::DispatchIndirect { .. }
            | Step::DispatchGroupSize { .. }
            | Step::Api(ApiAction::Dispatch { .. } | ApiAction::DispatchGroupSize { .. })
    )
}

impl Visibility {
    /// Tracking for `plan`'s storage buffers, or none (no cost) when it has fewer than two
    /// dispatch steps.
    pub fn new(plan: &ExecPlan) -> Visibility {
        if plan.steps.iter().filter(|s| is_dispatch(s)).count() < 2 {
            return Visibility::default();
        }
        let bufs = plan
            .buffers
            .iter()
            .map(|b| (b.kind == BufferKind::Storage).then(|| Tracked::new(b.bytes.len())))
            .collect();
        Visibility { bufs }
    }

    /// The tracked state of plan buffer `index`.
    pub fn get(&self, index: usize) -> Option<&Tracked> {
        self.bufs.get(index).and_then(Option::as_ref)
    }

    /// A glMemoryBarrier step: SHADER_STORAGE_BARRIER_BIT or ALL_BARRIER_BITS makes every
    /// earlier write visible.
    pub fn barrier(&mut self, bits: &[BarrierBit]) {
        if !bits
            .iter()
            .any(|b| matches!(b, BarrierBit::ShaderStorage | BarrierBit::All))
        {
            return;
        }
        for t in self.bufs.iter_mut().flatten() {
            if t.any_unseen {
                t.unseen.clear();
                t.any_unseen = false;
            }
        }
    }

    /// After a dispatch: what it changed becomes unseen until the next barrier.
    pub fn dispatched(&mut self) {
        for t in self.bufs.iter_mut().flatten() {
            t.any_unseen = t.unseen.or_from(&t.changed);
            t.written.clear();
            t.changed.clear();
        }
    }

    /// An API write of `size` bytes at `offset` of plan buffer `index` (glBufferSubData,
    /// glClearBufferData): those bytes hold the API's value for later commands.
    pub fn api_write(&mut self, index: usize, offset: u64, size: u64) {
        if let Some(Some(t)) = self.bufs.get_mut(index) {
            if t.any_unseen {
                t.unseen.clear_range(offset, size);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The rule on plans: a second dispatch's load of a byte the first changed is flagged
    //! `undefined-value` where it is used, unless a SHADER_STORAGE (or ALL) barrier step
    //! came between, the byte was written again by the API, or the second dispatch wrote it
    //! first.

    use super::*;
    use crate::exec::testing::{self, undefined};
    use conform_plan::bytes::from_u32s;
    use conform_plan::{BufferInit, ElemType, Language, Outcome, Scalar};

    /// `b.w[1] = b.w[0]` when `b.w[2]` is 1, `b.w[0] = 7` when it is 0 (the uniform-free
    /// way to make two dispatches of one program do different things: a write step sets w[2]).
    const COPY: &str = "#version 430\nlayout(local_size_x = 1) in;\n\
        layout(std430, binding = 0) buffer B { uint w[4]; } b;\n\
        void main() {\n\
            if (b.w[2] == 0u) { b.w[0] = 7u; }\n\
            else if (b.w[2] == 1u) { b.w[1] = b.w[0]; }\n\
            else { b.w[0] = 9u; b.w[1] = b.w[0]; }\n\
        }\n";

    fn run(steps: Vec<Step>) -> (Outcome, Vec<u32>) {
        let buffer = BufferInit {
            name: "b".into(),
            kind: BufferKind::Storage,
            binding: 0,
            elem: ElemType::scalar(Scalar::U32),
            bytes: from_u32s(&[0, 0, 0, 0]),
        };
        testing::run(&testing::plan(Language::Glsl, COPY, vec![buffer], steps))
    }

    const D: Step = Step::Dispatch { groups: [1, 1, 1] };

    fn set_mode(mode: u32) -> Step {
        Step::WriteBuffer {
            buffer: 0,
            offset: 8,
            bytes: from_u32s(&[mode]),
        }
    }

    fn barrier(bits: Vec<BarrierBit>) -> Step {
        Step::MemoryBarrier { bits }
    }

    #[test]
    fn a_load_of_an_unbarriered_write_is_flagged_where_used() {
        let (o, w) = run(vec![D, set_mode(1), D]);
        assert_eq!(w[1], 7, "the reference reads the newest value");
        let m = undefined(&o).expect("flagged");
        assert!(m.contains("a store to Storage(0) (offset 4)"), "{m}");
        assert!(m.contains("SHADER_STORAGE_BARRIER_BIT"), "{m}");
    }

    #[test]
    fn a_storage_or_all_barrier_makes_the_write_visible() {
        for bits in [vec![BarrierBit::ShaderStorage], vec![BarrierBit::All]] {
            let (o, w) = run(vec![D, barrier(bits), set_mode(1), D]);
            assert_eq!(w[1], 7);
            assert_eq!(undefined(&o), None, "{:?}", o.flags);
        }
        // Other bits do not order shader storage accesses.
        let bits = vec![BarrierBit::BufferUpdate, BarrierBit::Command];
        let (o, _) = run(vec![D, barrier(bits), set_mode(1), D]);
        assert!(undefined(&o).is_some(), "{:?}", o.flags);
    }

    #[test]
    fn an_api_write_or_the_dispatchs_own_write_first_is_seen() {
        // glBufferSubData over the written word: the later dispatch reads the API's value.
        let api = Step::WriteBuffer {
            buffer: 0,
            offset: 0,
            bytes: from_u32s(&[5, 0, 1]),
        };
        let (o, w) = run(vec![D, api, D]);
        assert_eq!(w[1], 5);
        assert_eq!(undefined(&o), None, "{:?}", o.flags);
        // Mode 2 stores w[0] before it loads it: its own write.
        let (o, w) = run(vec![D, set_mode(2), D]);
        assert_eq!(w[1], 9);
        assert_eq!(undefined(&o), None, "{:?}", o.flags);
    }

    #[test]
    fn a_write_of_the_value_already_there_leaves_nothing_unseen() {
        // w[0] = 7 twice, then the copy: only the first dispatch changed w[0], and the
        // barrier after it made that visible.
        let (o, w) = run(vec![
            D,
            barrier(vec![BarrierBit::ShaderStorage]),
            D,
            set_mode(1),
            D,
        ]);
        assert_eq!(w[1], 7);
        assert_eq!(undefined(&o), None, "{:?}", o.flags);
    }

    #[test]
    fn unseen_bytes_are_kept_per_byte() {
        let t = Tracked::new(16);
        t.wrote(4, 4, 0x0000_0000, 0x0000_ff00);
        assert!(t.changed.get(5) && !t.changed.get(4) && !t.changed.get(6));
        let mut v = Visibility {
            bufs: vec![Some(t), None],
        };
        v.dispatched();
        let t = v.get(0).expect("tracked");
        assert!(t.load_unseen(4, 4) && t.load_unseen(5, 1) && !t.load_unseen(6, 2));
        assert!(!t.load_unseen(0, 4) && !t.load_unseen(100, 4));
        assert!(v.get(1).is_none());
        v.api_write(0, 5, 1);
        assert!(!v.get(0).expect("tracked").load_unseen(4, 4));
    }
}
