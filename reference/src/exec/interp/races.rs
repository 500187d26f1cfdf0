//! What the group executor tells the race detectors (`exec::race`) about stores and atomics:
//! the bytes a write replaces, for reads within the group and by later work groups, and the
//! observation of a write that changes what another invocation read.

use super::*;

/// Where a write happens: group, invocation, source line, and what it is ("a store").
type WriteAt<'a> = ([u32; 3], usize, u32, &'a str);

impl GroupExec {
    /// The memory of (resolved) `space` and the value of `size` bytes at `off` there, where a
    /// race detector keeps writes (shared or storage memory the program loads from); None
    /// elsewhere. Read before a store, after an atomic.
    pub(super) fn race_before_write(
        &self,
        env: &Env,
        space: Space,
        off: u64,
        size: u32,
    ) -> Option<(Memory, u64)> {
        let mem = match space {
            Space::Shared => Memory::Shared,
            Space::Storage(b) => Memory::Storage(b),
            _ => return None,
        };
        let across =
            matches!(mem, Memory::Storage(_)) && self.cross.is_enabled() && self.race.loaded(mem);
        if !self.race.tracks(mem) && !across {
            return None;
        }
        let v = match mem {
            Memory::Shared => self.shared.read(off, size).map(|(v, _)| v),
            Memory::Storage(b) => find(&env.storage, b).and_then(|g| g.read(off, size)),
            Memory::Image(_) => None,
        };
        v.map(|v| (mem, v))
    }

    /// Tells the race detectors that the write `at` changes `size` bytes at `off` of `mem`
    /// from `old` to `new`: a write that changes bytes another invocation of the group read,
    /// unordered, is observed here (`data-race`: the read could have returned the new value),
    /// and a storage write is kept for the work groups after this one ([`CrossGroup`]).
    pub(super) fn race_write(
        &mut self,
        env: &Env,
        at: WriteAt,
        mem: Memory,
        off: u64,
        size: u32,
        old: u64,
        new: u64,
    ) {
        if let Some(reader) = self.race.write(mem, off, size, old, new, at.1) {
            self.observe_write_after_read(at, mem, off, reader);
        }
        self.observe_pause(at);
        let Memory::Storage(b) = mem else {
            return;
        };
        if !self.race.loaded(mem) {
            return;
        }
        let Some(g) = find(&env.storage, b) else {
            return;
        };
        // The buffer's bytes before the dispatch, the first time it is written: what it holds
        // with this write's bytes put back (an atomic has already written them).
        let left_out = self.cross.write(b, off, size, g.len(), || {
            let mut bytes = g.to_bytes();
            let (s, n) = (off as usize, size.min(8) as usize);
            if let Some(dst) = bytes.get_mut(s..s + n) {
                dst.copy_from_slice(&old.to_le_bytes()[..n]);
            }
            bytes
        });
        if left_out {
            let (gid, i, line, what) = at;
            self.flags.add(
                FlagKind::RaceUntracked,
                format!("group {gid:?} invocation {i}, line {line}: {what} to Storage({b}), a buffer of {} bytes: buffers over {} bytes are not tracked between work groups (the race detector's cost), so reads of bytes other work groups changed are not checked", g.len(), super::super::race::CROSS_GROUP_MAX_BYTES),
            );
        }
    }

    /// Raises `race-untracked` where the write `at` took the group's detector over its
    /// limit ([`super::super::race::MAX_TRACKED_BYTES`]).
    fn observe_pause(&mut self, at: WriteAt) {
        if self.race.take_paused() {
            let (gid, i, line, what) = at;
            self.flags.add(
                FlagKind::RaceUntracked,
                format!("group {gid:?} invocation {i}, line {line}: {what} takes the bytes written since the last barrier over {}: the race detector stops until the next barrier (the reads until then are not checked for data races)", super::super::race::MAX_TRACKED_BYTES),
            );
        }
    }

    /// Tells the race detector about an image access (`texel`: its bytes of the image on
    /// `unit`, before and after): a load that races with a write is true (its value is marked
    /// where the caller writes it), a store or an atomic that changes what another invocation
    /// read is observed here, as for buffers.
    pub(super) fn race_image(
        &mut self,
        at: WriteAt,
        unit: u64,
        op: crate::ir::ImageOp,
        texel: super::super::image::TexelAccess,
    ) -> bool {
        let mem = Memory::Image(unit as u32);
        if !self.race.tracks(mem) {
            return false;
        }
        let i = at.1;
        let mut racy = false;
        let mut k = 0;
        while k < texel.bytes {
            let n = (texel.bytes - k).min(8);
            let off = texel.off + u64::from(k);
            let part = |raw: u128| (raw >> (k * 8)) as u64;
            if op == crate::ir::ImageOp::Load {
                racy |= self.race.read_races(mem, off, n, i);
            } else if part(texel.before) != part(texel.after) || op == crate::ir::ImageOp::Store {
                if let Some(reader) =
                    self.race
                        .write(mem, off, n, part(texel.before), part(texel.after), i)
                {
                    self.observe_write_after_read(at, mem, off, reader);
                }
                self.observe_pause(at);
            }
            k += n;
        }
        racy
    }

    /// Observes (`data-race`) the write `at` at `off` of `mem`, which changes bytes invocation
    /// `reader` read since the group's writes to them began, unordered.
    fn observe_write_after_read(&mut self, at: WriteAt, mem: Memory, off: u64, reader: u32) {
        let (gid, i, line, what) = at;
        self.flags.add(
            FlagKind::DataRace,
            format!("group {gid:?} invocation {i}, line {line}: {what} to {mem:?} (offset {off}) changes memory invocation {reader} read since the last barrier, unordered by any barrier, atomic or subgroup operation (ARB_compute_shader, GLSL section 4.3.7: their order is not defined; the read could have returned this value; the lockstep schedule is run too)"),
        );
    }
}
