//! Memory instructions: loads, stores, atomics and image operations, with what goes with
//! them: bounds and alignment checks, undefined-value origins (`poison`), races between
//! invocations (`race`) and the flags of accesses the specs leave undefined.

use super::*;

// Each takes the whole instruction and matches its kind again (a compare the branch
// predictor keeps): `run_inv`'s match names the four, so their fields need no second type.

impl GroupExec {
    /// A load: each lane from memory, with its origin.
    #[inline]
    pub(super) fn load(&mut self, env: &Env, at: At, inst: &Inst) {
        let Inst::Load {
            space,
            ty,
            dst,
            addr,
        } = inst
        else {
            return;
        };
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &mut self.regs[base..base + nregs];
        let a = rdx(regs, *addr) & 0xffff_ffff;
        let sz = ty.scalar.bytes();
        let line = line_of(prog, pc);
        self.check_use(prog, gid, i, base, line, *addr, "the address of a load");
        self.check_block_index(gid, i, pc, line, *space, a);
        let mut v = [0u64; 4];
        let mut origins = [Origin::NONE; 4];
        for l in 0..ty.lanes.min(4) as usize {
            let (raw, o) = self.mem_load(
                env,
                gid,
                i,
                *space,
                a + (l as u64) * u64::from(sz),
                sz,
                pc,
                line,
            );
            v[l] = widen(crate::exec::planted::load_ty(env.bug, *ty), raw);
            origins[l] = o;
        }
        if misaligned(prog, *space, a, sz, ty.lanes) {
            origins = [Origin::new(Cause::Undefined, pc); 4];
        }
        let regs = &mut self.regs[base..base + nregs];
        wr(regs, dst, ty.lanes, v);
        if origins.iter().any(|o| o.is_some()) {
            self.taint(i, nregs);
        }
        if self.invs[i].tainted {
            let sh = &mut self.shadow[base..base + nregs];
            poison::write(sh, dst, ty.lanes, origins);
        }
    }

    /// A store: each lane to memory, with its origin.
    #[inline]
    pub(super) fn store(&mut self, env: &Env, at: At, inst: &Inst) {
        let Inst::Store {
            space,
            ty,
            addr,
            val,
        } = inst
        else {
            return;
        };
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &mut self.regs[base..base + nregs];
        let a = rdx(regs, *addr) & 0xffff_ffff;
        let v = rd(regs, *val);
        let sz = ty.scalar.bytes();
        let line = line_of(prog, pc);
        self.check_use(prog, gid, i, base, line, *addr, "the address of a store");
        self.check_block_index(gid, i, pc, line, *space, a);
        let origins = self.origins(i, base, nregs, *val);
        if misaligned(prog, *space, a, sz, ty.lanes) {
            self.flags.add(FlagKind::UndefinedValue, format!("group {gid:?} invocation {i}, line {line}: a store of {} bytes at offset {a}, not a multiple of its size (NV_gpu_program5 section 2.X.4.5: its effects are undefined; performed)", u64::from(sz) * u64::from(ty.lanes)));
        }
        for l in 0..ty.lanes.min(4) as usize {
            self.mem_store(
                env,
                gid,
                i,
                *space,
                a + (l as u64) * u64::from(sz),
                sz,
                narrow(*ty, v[l]),
                origins[l],
                line,
            );
        }
    }

    /// An atomic: read, operate and write one word, returning the old value.
    #[inline]
    pub(super) fn atomic(&mut self, env: &Env, at: At, inst: &Inst) {
        let Inst::Atomic {
            space,
            op,
            ty,
            dst,
            addr,
            a,
            b,
        } = inst
        else {
            return;
        };
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &mut self.regs[base..base + nregs];
        let off = rdx(regs, *addr) & 0xffff_ffff;
        let (av, bv) = (rdx(regs, *a), rdx(regs, *b));
        let size = ty.bytes();
        let line = line_of(prog, pc);
        let (op, ty, bug) = (*op, *ty, env.bug);
        self.check_use(prog, gid, i, base, line, *addr, "the address of an atomic");
        self.check_block_index(gid, i, pc, line, *space, off);
        self.check_use(prog, gid, i, base, line, *a, "an operand of an atomic");
        if op == AtomicOp::CmpXchg {
            self.check_use(prog, gid, i, base, line, *b, "an operand of an atomic");
        }
        if !off.is_multiple_of(u64::from(size.max(1))) {
            self.flags.add(FlagKind::MisalignedAtomic, format!("group {gid:?} invocation {i}, line {line}: atomic at offset {off} not aligned to {size} bytes (performed non-atomically)"));
        }
        let f = |op, old: u64| atomic_new(op, ty, old, av, bv, bug);
        let mut old_origin = Origin::NONE;
        // An element of an array of blocks: its block (out of range: unresolved,
        // so out of bounds below).
        let (space, off) = match space.resolve(off) {
            Some((s, o)) if matches!(space, Space::BlockArray { .. } | Space::CounterAddress) => {
                (s, o)
            }
            _ => (*space, off),
        };
        // An atomic synchronises (`race`) before its write, which it does not order.
        if matches!(space, Space::Shared | Space::Storage(_)) {
            self.race.sync([i]);
        }
        if matches!(space, Space::Storage(_)) {
            self.cross.atomic(i);
        }
        let old = match space {
            Space::Shared => match self.shared.read(off, size) {
                Some((old, init)) => {
                    // The old value of a never-written word is undefined. An
                    // exchange stores its operand whatever that was, so the word
                    // becomes defined; any other atomic's outcome depends on it (a
                    // compare-exchange's even on whether it stores), so the word
                    // stays undefined.
                    old_origin = self.shared_poison.get(off, size);
                    if !init {
                        old_origin = old_origin.or(Origin::new(Cause::UninitShared, pc));
                    }
                    if let Some(new) = f(self.shared.atomic_op(bug, off, op), old) {
                        self.shared.write(off, size, new);
                    }
                    let now = if op == AtomicOp::Exch {
                        Origin::NONE
                    } else {
                        old_origin
                    };
                    self.shared_poison.set(off, size, now);
                    Some(old)
                }
                None => None,
            },
            Space::Storage(bn) => {
                find(&env.storage, bn).and_then(|g| g.atomic(off, size, op, bug, f))
            }
            Space::AtomicCounter(bn) => {
                find(&env.counters, bn).and_then(|g| g.atomic(off, size, op, bug, f))
            }
            _ => None,
        };
        if let (Some(old), Some((mem, now))) = (old, self.race_before_write(env, space, off, size))
        {
            if now != old {
                let at = (gid, i, line, "an atomic");
                self.race_write(env, at, mem, off, size, old, now);
            }
        }
        let old = match old {
            Some(o) => o,
            None => {
                self.flags.add(FlagKind::OutOfBounds, format!("group {gid:?} invocation {i}, line {line}: atomic at offset {off} of {space:?} out of bounds or unbound: no effect, returns 0"));
                0
            }
        };
        if let Some(d) = dst {
            let regs = &mut self.regs[base..base + nregs];
            wr(regs, d, 1, [old, 0, 0, 0]);
            if old_origin.is_some() {
                self.taint(i, nregs);
            }
            if self.invs[i].tainted {
                let sh = &mut self.shadow[base..base + nregs];
                poison::write(sh, d, 1, [old_origin; 4]);
            }
        }
    }

    /// An image operation (or a texel fetch).
    #[inline]
    pub(super) fn image(&mut self, env: &Env, at: At, inst: &Inst) {
        let Inst::Image(im) = inst else {
            return;
        };
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &mut self.regs[base..base + nregs];
        let line = line_of(prog, pc);
        let (unit, coord) = (rdx(regs, im.unit), rd(regs, im.coord));
        let (a, b) = (rd(regs, im.a), rd(regs, im.b));
        if matches!(im.op, ImageOp::Atomic(_)) {
            self.race.sync([i]);
        }
        let done = run_image(env, im, unit, coord, a, b);
        let racy = done.texel.is_some_and(|t| {
            let at = (gid, i, line, "an image write");
            self.race_image(at, unit, im.op, t)
        });
        let reads_data = !matches!(im.op, ImageOp::Load | ImageOp::Size);
        let uses = [(im.unit, "unit"), (im.coord, "coordinates"), (im.a, "data")];
        for (s, what) in uses.into_iter().take(if reads_data { 3 } else { 2 }) {
            let use_ = format!("the {what} of an image access");
            self.check_use(prog, gid, i, base, line, s, &use_);
        }
        // A mismatched load or fetch gives an undefined value, flagged where it is
        // used; a mismatched store or atomic writes undefined values: flagged here.
        let value = !reads_data || im.op == ImageOp::Fetch;
        let undefined_result = value && done.undefined.is_some();
        if let Some(why) = done.undefined.filter(|_| !undefined_result) {
            let msg = format!("group {gid:?} invocation {i}, line {line}: {why}");
            self.flags.add(FlagKind::UndefinedValue, msg);
        }
        if let (Some(d), Some(v)) = (im.dst, done.value) {
            wr(&mut self.regs[base..base + nregs], &d, 4, v);
            if undefined_result {
                self.make_undefined(i, base, nregs, &d, d.mask, pc);
            } else if racy {
                self.taint(i, nregs);
                let sh = &mut self.shadow[base..base + nregs];
                poison::write(sh, &d, 4, [Origin::new(Cause::DataRace, pc); 4]);
            } else if self.invs[i].tainted {
                let sh = &mut self.shadow[base..base + nregs];
                poison::write(sh, &d, 4, [Origin::NONE; 4]);
            }
        }
    }
}
