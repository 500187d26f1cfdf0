//! Data races: a read of memory that another invocation of the group wrote since the last
//! barrier, with nothing between them that could order the two ([`RaceShadow`]); and a read of
//! a storage byte another work group of the dispatch changed ([`CrossGroup`]).
//!
//! "Order of execution with regards to reads and writes to the same shared variables by
//! different invocations of a shader is not defined" without barrier() (ARB_compute_shader,
//! GLSL section 4.3.7), and stores "may not be visible to other
//! invocations in the order they were performed" (ARB_shader_image_load_store, section
//! 2.14.X): such a read may return the value from before the write or after it, so the value
//! depends on an order the specs leave open. The schedules (`interp`) run each invocation until it blocks, so a read never
//! sees a write interleaved *within* another invocation's run (write 1, read, write 2: every
//! schedule reads 2 or the old value, a lock-step machine reads 1); comparing schedules' final
//! memory cannot catch that. This detector does: the value read is marked undefined
//! (`Cause::DataRace`) and flagged `data-race` where it is used, like every other undefined
//! value (`poison`).
//!
//! The reading is deliberately narrow, so that a defined program is never flagged:
//! - barrier() (BAR, OpControlBarrier) orders every access of the group, shared and buffer
//!   memory alike (GLSL asks for memoryBarrierBuffer() too for buffers; not required here);
//! - an invocation's own writes are visible to it;
//! - writes that all stored the value the byte held before, or one value the reader also
//!   stored, cannot change what it reads;
//! - atomics and subgroup exchanges (shuffles, subgroup operations and barriers, derivatives)
//!   count as synchronisation in both directions, memory barriers or not: a read is not
//!   flagged when the writer did such an operation after its write and the reader did one at
//!   or after that (the "last one to arrive" pattern: write, atomic counter, and the invocation
//!   that sees the count complete reads what the others wrote).
//!
//! The read is an observation, not undefined behaviour: it returns one of the values written
//! (or the one before), so `data-race` tells the case author that memory depends on the order,
//! and `crate::run_ir` then runs the `lockstep` schedule too, whose memory the case must allow.
//!
//! A read before a racing write is seen two ways: a schedule that puts the write first (the
//! reversed one does for every pair) sees the read after it, and flags are merged; and a write
//! that changes a byte another invocation read after the group's first write to it is
//! observed where it is made (each invocation reads right after its own write, as in
//! `atomicAdd(c, 1); x = c;`, which no schedule reorders). A read of a byte nobody wrote since
//! the barrier, followed by another invocation's write in every schedule run, is not seen.
//!
//! Between work groups nothing orders accesses but atomics, so [`CrossGroup`] (on where groups
//! run one after another: programs that read and write one storage buffer) observes a read of
//! a storage byte another group of the dispatch changed, unless the reader did an atomic
//! before it (the "last group to arrive" pattern; which group the atomic heard from is not
//! followed). The reversed group order puts every pair of groups the other way round. Image
//! texels are tracked like buffer bytes ([`Memory::Image`]), within the group only; atomic
//! counters are not tracked (docs/REFERENCE.md).

use crate::ir::{Inst, Program, Space};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::hash_map::Entry;

/// The writes of one byte since the last barrier.
#[derive(Clone, Copy, Debug)]
struct Written {
    /// The value before the first of them.
    before: u8,
    /// The value the first of them stored.
    value: u8,
    /// Every write stored `value`.
    same: bool,
    first: u32,
    last: u32,
    /// The synchronisation count when the last one was made.
    seq: u32,
    /// The last invocation that read the byte after one of these writes ([`NO_READER`]:
    /// none since the last write), and the synchronisation count then.
    reader: u32,
    read_seq: u32,
}

const NO_READER: u32 = u32::MAX;

/// The most bytes one group's detector keeps between two barriers. Each costs about 40 bytes
/// of map (more while it grows), and a legitimate case (1024 invocations filling a 64 MiB
/// buffer the program also loads from) would otherwise exhaust the reference worker's memory
/// and lose its verdict. Past it the detector stops until the next barrier, which orders
/// everything before it, so tracking resumes there soundly; the run says so
/// (`race-untracked`) instead of dying. 2^20 bytes keep the map under ~90 MiB at its peak.
pub const MAX_TRACKED_BYTES: usize = 1 << 20;

/// The race detector of one work group (reset for each group and at each barrier). Only
/// bytes written since the barrier are kept, so it costs nothing where nothing is written,
/// and a lookup per byte read where something is.
#[derive(Default)]
pub struct RaceShadow {
    /// Bytes written since the last barrier, by `key`.
    written: FxHashMap<u64, Written>,
    /// (key, invocation) for writers of a byte that were neither its first nor its last
    /// (whether a reader stored the value too; rare, so kept apart).
    middle: FxHashSet<(u64, u32)>,
    /// Each invocation's synchronisation operations since the last barrier (increasing).
    syncs: Vec<Vec<u32>>,
    seq: u32,
    enabled: bool,
    /// The memories the program loads from (plain loads: atomics are not checked), the only
    /// ones whose writes are kept.
    loads_shared: bool,
    loads_storage: Vec<std::ops::Range<u32>>,
    loads_images: bool,
    /// The program stores to images or updates them atomically.
    writes_images: bool,
    /// Over [`MAX_TRACKED_BYTES`] since the last barrier: nothing kept until the next one.
    paused: bool,
    /// The detector paused since [`RaceShadow::take_paused`] was last asked.
    paused_now: bool,
}

/// The memory a byte is in: shared memory, the storage buffer at a binding, or the texels of
/// the image on an image unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    Shared,
    Storage(u32),
    Image(u32),
}

fn key(mem: Memory, off: u64) -> u64 {
    let tag = match mem {
        Memory::Shared => 0,
        Memory::Storage(b) => u64::from(b & 0x7f_ffff) + 1,
        Memory::Image(u) => 0x80_0000 | u64::from(u & 0x7f_ffff),
    };
    (tag << 40) | (off & 0xff_ffff_ffff)
}

impl RaceShadow {
    /// A detector for `prog`, which keeps writes only to the memories it loads from.
    pub fn new(prog: &Program) -> Self {
        let mut r = RaceShadow::default();
        for inst in &prog.code {
            if let Inst::Image(im) = inst {
                use crate::ir::ImageOp;
                r.loads_images |= im.op == ImageOp::Load;
                r.writes_images |= matches!(im.op, ImageOp::Store | ImageOp::Atomic(_));
            }
            if let Inst::Load { space, .. } = inst {
                match space {
                    Space::Shared => r.loads_shared = true,
                    s => {
                        let b = s.storage_bindings();
                        if !b.is_empty() && !r.loads_storage.contains(&b) {
                            r.loads_storage.push(b);
                        }
                    }
                }
            }
        }
        r
    }

    /// Whether the program loads from `mem` (plain loads).
    pub fn loaded(&self, mem: Memory) -> bool {
        match mem {
            Memory::Shared => self.loads_shared,
            Memory::Storage(b) => self.loads_storage.iter().any(|r| r.contains(&b)),
            Memory::Image(_) => self.loads_images,
        }
    }

    /// Starts a group of `n` invocations; `enabled` is false where no race on shared or
    /// storage memory can happen (nothing both written and read); images are judged here.
    pub fn reset(&mut self, n: usize, enabled: bool) {
        let buffers = enabled && (self.loads_shared || !self.loads_storage.is_empty());
        self.enabled = n > 1 && (buffers || (self.loads_images && self.writes_images));
        self.written.clear();
        self.middle.clear();
        self.syncs.iter_mut().for_each(Vec::clear);
        self.syncs.resize(n, Vec::new());
        self.seq = 0;
        self.paused = false;
        self.paused_now = false;
    }

    /// Whether writes to `mem` are kept (the detector is on and the program loads from it).
    pub fn tracks(&self, mem: Memory) -> bool {
        self.enabled && !self.paused && self.loaded(mem)
    }

    /// Every invocation passed a barrier: what came before is ordered before what follows.
    pub fn barrier(&mut self) {
        if self.enabled {
            self.written.clear();
            self.middle.clear();
            self.syncs.iter_mut().for_each(Vec::clear);
            self.paused = false;
        }
    }

    /// Whether the detector stopped (over [`MAX_TRACKED_BYTES`]) since this was last asked:
    /// the caller raises `race-untracked` once, where the write that crossed the limit ran.
    pub fn take_paused(&mut self) -> bool {
        std::mem::take(&mut self.paused_now)
    }

    /// Stops keeping writes until the next barrier, and gives their memory back.
    fn pause(&mut self) {
        self.paused = true;
        self.paused_now = true;
        self.written = FxHashMap::default();
        self.middle = FxHashSet::default();
    }

    /// Invocations `who` took part in one synchronising operation (an atomic: one invocation;
    /// a round of subgroup exchanges: every invocation that waited at one).
    pub fn sync(&mut self, who: impl IntoIterator<Item = usize>) {
        if !self.enabled {
            return;
        }
        self.seq += 1;
        for i in who {
            if let Some(s) = self.syncs.get_mut(i) {
                s.push(self.seq);
            }
        }
    }

    /// Invocation `inv` stores the low `size` bytes of `new` at `off`, where `old` was. Some
    /// reader when the store changes a byte another invocation read since this group's
    /// writes to it began and no synchronisation orders the read before the store: the read
    /// could have returned the new value (an invocation that writes, then reads its own
    /// write, as `atomicAdd(c, 1); x = c;`, is seen only here).
    pub fn write(
        &mut self,
        mem: Memory,
        off: u64,
        size: u32,
        old: u64,
        new: u64,
        inv: usize,
    ) -> Option<u32> {
        if !self.tracks(mem) {
            return None;
        }
        let inv = inv as u32;
        let mut raced = None;
        for k in 0..u64::from(size.min(8)) {
            let (b_old, b_new) = ((old >> (k * 8)) as u8, (new >> (k * 8)) as u8);
            let key = key(mem, off + k);
            let full = self.written.len() >= MAX_TRACKED_BYTES;
            match self.written.entry(key) {
                Entry::Occupied(mut e) => {
                    let w = e.get_mut();
                    if w.reader != NO_READER && w.reader != inv && b_new != b_old {
                        let (reader, read_seq) = (w.reader as usize, w.read_seq);
                        if raced.is_none() && !ordered(&self.syncs, reader, read_seq, inv as usize)
                        {
                            raced = Some(reader as u32);
                        }
                        w.reader = NO_READER;
                    }
                    if w.last != inv && w.last != w.first {
                        self.middle.insert((key, w.last));
                    }
                    w.same &= w.value == b_new;
                    w.last = inv;
                    w.seq = self.seq;
                }
                Entry::Vacant(_) if full => {
                    self.pause();
                    return raced;
                }
                Entry::Vacant(e) => {
                    e.insert(Written {
                        before: b_old,
                        value: b_new,
                        same: true,
                        first: inv,
                        last: inv,
                        seq: self.seq,
                        reader: NO_READER,
                        read_seq: 0,
                    });
                }
            }
        }
        raced
    }

    /// Whether invocation `inv`'s read of `size` bytes at `off` races with a write (and
    /// remembers the read of bytes written since the barrier, for [`RaceShadow::write`]).
    pub fn read_races(&mut self, mem: Memory, off: u64, size: u32, inv: usize) -> bool {
        if !self.enabled || self.paused || self.written.is_empty() {
            return false;
        }
        let inv32 = inv as u32;
        let mut races = false;
        for k in 0..u64::from(size.min(8)) {
            let key = key(mem, off + k);
            let Some(w) = self.written.get_mut(&key) else {
                continue;
            };
            w.reader = inv32;
            w.read_seq = self.seq;
            let w = *w;
            if races || w.last == inv32 {
                continue;
            }
            // One value written: the reader reads it or, unless it stored it too, the old one.
            if w.same
                && (w.value == w.before || w.first == inv32 || self.middle.contains(&(key, inv32)))
            {
                continue;
            }
            races = !ordered(&self.syncs, w.last as usize, w.seq, inv);
        }
        races
    }
}

/// Whether `first`, after an access at synchronisation count `seq`, synchronised with `then`
/// before now (`syncs`: each invocation's synchronisation counts): it took part in a
/// synchronising operation after the access, and `then` in that one or a later one.
fn ordered(syncs: &[Vec<u32>], first: usize, seq: u32, then: usize) -> bool {
    let Some(&r) = syncs.get(then).and_then(|s| s.last()) else {
        return false;
    };
    let w = syncs.get(first).map(Vec::as_slice).unwrap_or(&[]);
    let after = w.partition_point(|&s| s <= seq);
    w.get(after).is_some_and(|&s| s <= r)
}

/// Storage bytes work groups of one dispatch changed, for reads by later groups (groups run
/// one after another). Per tracked buffer, which group last wrote each byte and the bytes when
/// the dispatch began: a read of a byte another group wrote, now different from what it was,
/// races unless the reading invocation did an atomic before it.
#[derive(Default)]
pub struct CrossGroup {
    enabled: bool,
    /// (binding, group + 1 that last wrote each byte (0: none), the bytes before the dispatch)
    bufs: Vec<(u32, Vec<u32>, Vec<u8>)>,
    group: u32,
    /// Invocations of the current group that did an atomic.
    atomics: Vec<bool>,
    /// Bindings over [`CROSS_GROUP_MAX_BYTES`] written in this dispatch (not tracked).
    untracked: Vec<u32>,
}

/// Buffers larger than this are not tracked across groups (the shadow costs five bytes a
/// byte: 80 MiB at this size, where a 64 MiB buffer cost 320 MiB and, with the schedules'
/// copies of memory, exhausted the reference worker). A buffer left out is said
/// (`race-untracked`), not silently skipped.
pub const CROSS_GROUP_MAX_BYTES: usize = 16 << 20;

impl CrossGroup {
    /// Tracks the dispatch about to run (its groups run one after another).
    pub fn enable(&mut self) {
        self.enabled = true;
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Starts work group `linear` (its index in the dispatch) of `n` invocations.
    pub fn start_group(&mut self, linear: u64, n: usize) {
        self.group = u32::try_from(linear).unwrap_or(u32::MAX - 1);
        self.atomics.clear();
        self.atomics.resize(n, false);
    }

    pub fn atomic(&mut self, inv: usize) {
        if let Some(a) = self.atomics.get_mut(inv) {
            *a = true;
        }
    }

    /// The current group's write of `size` bytes at `off` of the buffer at `binding`, which
    /// holds `len` bytes; `bytes` gives the buffer's bytes before this write, the first time
    /// it is written. True the first time a buffer over [`CROSS_GROUP_MAX_BYTES`] is written
    /// (it is not tracked: the caller says so).
    pub fn write(
        &mut self,
        binding: u32,
        off: u64,
        size: u32,
        len: usize,
        bytes: impl FnOnce() -> Vec<u8>,
    ) -> bool {
        if !self.enabled {
            return false;
        }
        let k = match self.bufs.iter().position(|b| b.0 == binding) {
            Some(k) => k,
            None if len > CROSS_GROUP_MAX_BYTES => {
                if self.untracked.contains(&binding) {
                    return false;
                }
                self.untracked.push(binding);
                return true;
            }
            None => {
                let before = bytes();
                self.bufs.push((binding, vec![0; before.len()], before));
                self.bufs.len() - 1
            }
        };
        let writers = &mut self.bufs[k].1;
        let start = off as usize;
        let end = start.saturating_add(size as usize).min(writers.len());
        if let Some(w) = writers.get_mut(start..end) {
            w.fill(self.group + 1);
        }
        false
    }

    /// Whether invocation `inv` of the current group reads `value` (`size` bytes at `off` of
    /// the buffer at `binding`) where another group changed it.
    pub fn read_races(&self, binding: u32, off: u64, size: u32, value: u64, inv: usize) -> bool {
        if !self.enabled || self.atomics.get(inv).copied().unwrap_or(false) {
            return false;
        }
        let Some((_, writers, before)) = self.bufs.iter().find(|b| b.0 == binding) else {
            return false;
        };
        (0..size.min(8) as usize).any(|k| {
            let b = off as usize + k;
            let w = writers.get(b).copied().unwrap_or(0);
            w != 0 && w != self.group + 1 && before.get(b) != Some(&((value >> (k * 8)) as u8))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Memory = Memory::Shared;

    fn shadow(n: usize) -> RaceShadow {
        let mut r = RaceShadow {
            loads_shared: true,
            loads_storage: vec![0..4, 4..8],
            ..RaceShadow::default()
        };
        r.reset(n, true);
        r
    }

    #[test]
    fn a_read_of_another_invocations_write_races() {
        let mut r = shadow(2);
        r.write(S, 0, 4, 0, 0x0707_0707, 0);
        assert!(r.read_races(S, 0, 4, 1));
        assert!(r.read_races(S, 2, 1, 1), "per byte");
        assert!(!r.read_races(S, 4, 4, 1), "other bytes");
        assert!(!r.read_races(Memory::Storage(0), 0, 4, 1), "other memory");
        assert!(!r.read_races(S, 0, 4, 0), "own write");
    }

    #[test]
    fn a_barrier_orders_everything_before_it() {
        let mut r = shadow(2);
        r.write(S, 0, 4, 0, 7, 0);
        r.barrier();
        assert!(!r.read_races(S, 0, 4, 1));
    }

    #[test]
    fn writes_that_cannot_change_the_value_read_do_not_race() {
        let mut r = shadow(3);
        // The value the memory held already.
        r.write(S, 0, 4, 5, 5, 0);
        assert!(!r.read_races(S, 0, 4, 1));
        // A value the reader stored too.
        r.write(S, 8, 4, 0, 1, 1);
        r.write(S, 8, 4, 1, 1, 0);
        assert!(!r.read_races(S, 8, 4, 1));
        assert!(r.read_races(S, 8, 4, 2), "the third stored nothing: 0 or 1");
        // A reader that stored it between others' stores.
        r.write(S, 24, 4, 0, 1, 0);
        r.write(S, 24, 4, 1, 1, 1);
        r.write(S, 24, 4, 1, 1, 2);
        assert!(!r.read_races(S, 24, 4, 1));
        assert!(r.read_races(S, 24, 4, 3));
        // Two different values.
        r.write(S, 16, 4, 0, 1, 0);
        r.write(S, 16, 4, 1, 2, 2);
        r.write(S, 16, 4, 2, 1, 0);
        assert!(r.read_races(S, 16, 4, 1));
    }

    #[test]
    fn atomics_order_a_write_before_a_later_read() {
        let mut r = shadow(2);
        r.write(S, 0, 4, 0, 7, 0);
        // The reader's atomic alone orders nothing.
        r.sync([1]);
        assert!(r.read_races(S, 0, 4, 1));
        // The writer's after the write, then the reader's.
        r.sync([0]);
        assert!(r.read_races(S, 0, 4, 1));
        r.sync([1]);
        assert!(!r.read_races(S, 0, 4, 1));
        // A write after the writer's last synchronisation races again.
        r.write(S, 0, 4, 7, 8, 0);
        assert!(r.read_races(S, 0, 4, 1));
        // One exchange both took part in orders it.
        r.sync([0, 1]);
        assert!(!r.read_races(S, 0, 4, 1));
    }

    #[test]
    fn an_atomic_read_back_after_another_invocations_atomic_races() {
        // atomicAdd(c, 1) by 0, then by 1, then 0 reads c: 1 or 2.
        let mut r = shadow(2);
        r.sync([0]);
        r.write(S, 0, 4, 0, 1, 0);
        r.sync([1]);
        r.write(S, 0, 4, 1, 2, 1);
        assert!(r.read_races(S, 0, 4, 0));
        assert!(!r.read_races(S, 0, 4, 1));
    }

    #[test]
    fn a_write_changing_what_another_invocation_read_races() {
        // atomicAdd(c, 1); x = c; in two invocations, one after the other.
        let mut r = shadow(2);
        r.sync([0]);
        assert_eq!(r.write(S, 0, 4, 0, 1, 0), None);
        assert!(!r.read_races(S, 0, 4, 0), "its own write");
        r.sync([1]);
        assert_eq!(r.write(S, 0, 4, 1, 2, 1), Some(0), "0 could have read 2");
        assert_eq!(r.write(S, 0, 4, 2, 3, 1), None, "reported once per read");
        // A store of the value already there changes nothing read.
        assert!(!r.read_races(S, 0, 4, 1));
        assert_eq!(r.write(S, 0, 4, 3, 3, 0), None);
        // Ordered: the reader synchronises after its read, the writer after that.
        let mut r = shadow(2);
        r.write(S, 8, 4, 0, 1, 0);
        assert!(!r.read_races(S, 8, 4, 0));
        r.sync([0]);
        r.sync([1]);
        assert_eq!(r.write(S, 8, 4, 1, 2, 1), None);
    }

    #[test]
    fn a_read_of_a_byte_another_group_changed_races() {
        let mut c = CrossGroup::default();
        c.enable();
        c.start_group(0, 2);
        c.write(0, 4, 4, 16, || vec![0; 16]);
        assert!(!c.read_races(0, 4, 4, 7, 0), "its own group");
        c.start_group(1, 2);
        assert!(c.read_races(0, 4, 4, 7, 0), "group 0 wrote 7");
        assert!(!c.read_races(0, 6, 1, 0, 0), "a byte back to what it was");
        assert!(!c.read_races(0, 0, 4, 0, 0), "bytes nobody wrote");
        assert!(!c.read_races(1, 4, 4, 7, 0), "another buffer");
        c.atomic(1);
        assert!(
            !c.read_races(0, 4, 4, 7, 1),
            "after an atomic (it may have synchronised)"
        );
        // Not enabled (groups in parallel: nothing written and read across them).
        let mut c = CrossGroup::default();
        c.start_group(0, 1);
        c.write(0, 0, 4, 4, || vec![0; 4]);
        c.start_group(1, 1);
        assert!(!c.read_races(0, 0, 4, 7, 0));
    }

    #[test]
    fn disabled_sees_nothing() {
        let mut r = shadow(2);
        r.reset(2, false);
        r.write(S, 0, 4, 0, 7, 0);
        assert!(!r.read_races(S, 0, 4, 1));
        r.reset(1, true);
        r.write(S, 0, 4, 0, 7, 0);
        assert!(!r.read_races(S, 0, 4, 0));
        // A memory the program never loads from keeps no writes.
        let mut r = shadow(2);
        r.write(Memory::Storage(9), 0, 4, 0, 7, 0);
        assert!(r.written.is_empty());
    }

    /// Issue 45: 1024 invocations writing a 64 MiB buffer they load from grew the map past
    /// the worker's memory. Past the limit the detector pauses (its memory given back) until
    /// the next barrier, says so once, and sees no race meanwhile.
    #[test]
    fn the_detector_pauses_past_its_limit_until_the_next_barrier() {
        let mut r = shadow(2);
        for k in 0..MAX_TRACKED_BYTES as u64 / 8 {
            r.write(S, k * 8, 8, 0, u64::MAX, 0);
        }
        assert!(!r.take_paused());
        assert_eq!(r.written.len(), MAX_TRACKED_BYTES);
        r.write(S, MAX_TRACKED_BYTES as u64, 4, 0, 7, 0);
        assert!(r.take_paused(), "the write past the limit pauses it");
        assert!(!r.take_paused(), "said once");
        assert_eq!(r.written.capacity(), 0, "its memory given back");
        assert!(!r.tracks(S));
        assert!(!r.read_races(S, 0, 4, 1), "paused: nothing kept");
        r.barrier();
        assert!(
            r.tracks(S),
            "a barrier orders what came before: tracking resumes"
        );
        r.write(S, 0, 4, 0, 7, 0);
        assert!(r.read_races(S, 0, 4, 1));
    }

    /// A buffer over the cross-group limit is not copied (nor its shadow made) and is said
    /// once per dispatch.
    #[test]
    fn a_buffer_over_the_cross_group_limit_is_left_out_and_said_once() {
        let mut c = CrossGroup::default();
        c.enable();
        c.start_group(0, 1);
        let big = CROSS_GROUP_MAX_BYTES + 1;
        assert!(c.write(0, 0, 4, big, || unreachable!("not copied")));
        assert!(!c.write(0, 4, 4, big, || unreachable!("not copied")));
        c.start_group(1, 1);
        assert!(!c.read_races(0, 0, 4, 7, 0));
    }
}
