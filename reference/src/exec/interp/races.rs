//! What the group executor tells the race detectors (`exec::race`) about stores and atomics:
//! the bytes a store replaces, the writes other work groups will read, and the observation
//! of a write that changes what another invocation read.

use super::*;

impl GroupExec {
    /// Records for [`CrossGroup`] a write of `size` bytes at `off` of the storage buffer at
    /// `binding` (one the program loads from); `done`: the old value of an atomic already
    /// performed (the buffer's bytes before the dispatch are taken with it put back).
    pub(super) fn cross_write(
        &mut self,
        env: &Env,
        binding: u32,
        off: u64,
        size: u32,
        done: Option<u64>,
    ) {
        if !self.cross.is_enabled() || !self.race.loaded(Memory::Storage(binding)) {
            return;
        }
        let Some(g) = find(&env.storage, binding) else {
            return;
        };
        if done.is_some_and(|old| g.read(off, size) == Some(old)) {
            return;
        }
        self.cross.write(binding, off, size, || {
            let mut bytes = g.to_bytes();
            if let Some(old) = done {
                let (s, n) = (off as usize, size.min(8) as usize);
                if let Some(dst) = bytes.get_mut(s..s + n) {
                    dst.copy_from_slice(&old.to_le_bytes()[..n]);
                }
            }
            bytes
        });
    }

    /// Observes (`data-race`) invocation `i`'s `what` (a store, an atomic) at `off` of `space`,
    /// which changed bytes invocation `reader` read since the group's writes to them began,
    /// unordered: the read could have returned the new value (`race`).
    pub(super) fn write_after_read(
        &mut self,
        gid: [u32; 3],
        i: usize,
        line: u32,
        what: &str,
        space: Space,
        off: u64,
        reader: u32,
    ) {
        self.flags.add(
            FlagKind::DataRace,
            format!("group {gid:?} invocation {i}, line {line}: {what} to {space:?} (offset {off}) changes memory invocation {reader} read since the last barrier, unordered by any barrier, atomic or subgroup operation (ARB_compute_shader, GLSL section 4.3.7: their order is not defined; the read could have returned this value; the lockstep schedule is run too)"),
        );
    }

    /// The memory and the value of `size` bytes at `off` of (resolved) `space` where the race
    /// detector keeps writes (`RaceShadow::tracks`); None elsewhere.
    pub(super) fn race_current(
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
        if !self.race.tracks(mem) {
            return None;
        }
        let v = match mem {
            Memory::Shared => self.shared.read(off, size).map(|(v, _)| v),
            Memory::Storage(b) => find(&env.storage, b).and_then(|g| g.read(off, size)),
        };
        v.map(|v| (mem, v))
    }
}
