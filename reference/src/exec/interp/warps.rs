//! Resolving the operations invocations wait at together: subgroup operations (per
//! subgroup) and NV shuffles (per warp), once no invocation of the group can run on
//! ([`GroupExec::run_group`]'s scheduling model, in the parent module's documentation).

#![allow(clippy::needless_range_loop)]

use super::*;
use crate::ir::SubgroupOp;

impl GroupExec {
    /// Resolves every pending subgroup operation: per subgroup, the invocations waiting at the
    /// lowest such pc are its active invocations (`exec::subgroup` computes what each gets).
    pub(super) fn resolve_subgroups(&mut self, env: &Env, gid: [u32; 3], nregs: usize) {
        let n = self.invs.len();
        let prog = env.prog;
        let size = env.subgroup_size.max(1) as usize;
        for s0 in (0..n).step_by(size) {
            let s1 = (s0 + size).min(n);
            let Some(pc) = (s0..s1)
                .filter_map(|i| match self.invs[i].status {
                    Status::Shfl(p)
                        if matches!(prog.code.get(p as usize), Some(Inst::Subgroup { .. })) =>
                    {
                        Some(p)
                    }
                    _ => None,
                })
                .min()
            else {
                continue;
            };
            let Some(Inst::Subgroup {
                op, ty, dst, a, b, ..
            }) = prog.code.get(pc as usize).cloned()
            else {
                continue;
            };
            let active: Vec<usize> = (s0..s1)
                .filter(|&l| self.invs[l].status == Status::Shfl(pc))
                .collect();
            let members: Vec<Member> = active
                .iter()
                .map(|&l| {
                    let regs = &self.regs[l * nregs..(l + 1) * nregs];
                    Member {
                        id: (l - s0) as u32,
                        a: rd(regs, a),
                        b: rd(regs, b),
                    }
                })
                .collect();
            let line = line_of(prog, pc);
            let outs = subgroup::results_with(env.bug, op, ty, size as u32, &members);
            // Where each result comes from, for the poison shadow: an inactive source is an
            // undefined value flagged where it is used (`shuffle-inactive-lane`), not where
            // the operation runs (a scan step's first invocation discards it); an undefined
            // operand stays undefined in every result that reads it.
            let a_origins: Vec<Lanes> = active
                .iter()
                .map(|&l| self.origins(l, l * nregs, nregs, a))
                .collect();
            let any_tainted = active.iter().any(|&l| self.invs[l].tainted);
            for (k, (&l, out)) in active.iter().zip(outs).enumerate() {
                let mut origins = if any_tainted || out.bad_source.is_some() {
                    let source = out
                        .source
                        .and_then(|id| active.iter().position(|&m| m - s0 == id as usize));
                    self.subgroup_origins(op, k, &out, source, &a_origins, l, nregs, b, pc)
                } else {
                    [Origin::NONE; 4]
                };
                for c in 0..4 {
                    if out.undefined & (1 << c) != 0 {
                        origins[c] = origins[c].or(Origin::new(Cause::Undefined, pc));
                    }
                }
                if let Some(d) = dst {
                    let regs = &mut self.regs[l * nregs..(l + 1) * nregs];
                    wr(regs, &d, 4, out.value);
                    if origins.iter().any(|o| o.is_some()) {
                        self.taint(l, nregs);
                    }
                    if self.invs[l].tainted {
                        let sh = &mut self.shadow[l * nregs..(l + 1) * nregs];
                        poison::write(sh, &d, 4, origins);
                    }
                }
                if env.trace_target == Some((gid, l)) && self.trace.len() < TRACE_LINES {
                    self.trace.push(format!(
                        "line {line} pc {pc}: subgroup operation resolved with {} active invocation(s) -> {:x?}",
                        members.len(),
                        out.value
                    ));
                }
                let inv = &mut self.invs[l];
                inv.pc = pc + 1;
                inv.status = Status::Run;
            }
        }
    }

    /// The origins of the result `out` of active invocation `k` (lane `l`) of a subgroup
    /// operation, from the origins of the members' `a` operands (`a_origins`, in member
    /// order; `source`, the place of the member a shuffle read) and of its own `b` (the
    /// shuffle index or delta).
    #[allow(clippy::too_many_arguments)]
    fn subgroup_origins(
        &self,
        op: SubgroupOp,
        k: usize,
        out: &subgroup::Outcome,
        source: Option<usize>,
        a_origins: &[Lanes],
        l: usize,
        nregs: usize,
        b: Src,
        pc: u32,
    ) -> Lanes {
        let any = |os: &[Lanes]| {
            let mut r = [Origin::NONE; 4];
            for o in os {
                for c in 0..4 {
                    r[c] = r[c].or(o[c]);
                }
            }
            r
        };
        // The first lane of each member's operand: what a vote or ballot reads.
        let predicate = |os: &[Lanes]| [os.iter().fold(Origin::NONE, |r, o| r.or(o[0])); 4];
        let shuffled = |from: Lanes| {
            let ctl = self.origins(l, l * nregs, nregs, b)[0];
            from.map(|o| ctl.or(o))
        };
        match op {
            SubgroupOp::Barrier | SubgroupOp::Elect => [Origin::NONE; 4],
            SubgroupOp::All | SubgroupOp::Any | SubgroupOp::Ballot => predicate(a_origins),
            SubgroupOp::AllEqual | SubgroupOp::Reduce(_) => any(a_origins),
            SubgroupOp::InclusiveScan(_) => any(&a_origins[..=k]),
            SubgroupOp::ExclusiveScan(_) => any(&a_origins[..k]),
            SubgroupOp::Shuffle
            | SubgroupOp::ShuffleXor
            | SubgroupOp::ShuffleUp
            | SubgroupOp::ShuffleDown
            | SubgroupOp::BroadcastFirst => match (out.bad_source, source) {
                (None, Some(s)) => shuffled(a_origins[s]),
                _ => shuffled([Origin::new(Cause::InactiveLane, pc); 4]),
            },
        }
    }

    /// Resolves every pending shuffle: per warp, the lanes waiting at the lowest shuffle pc
    /// exchange values together.
    pub(super) fn resolve_shuffles(&mut self, env: &Env, gid: [u32; 3], nregs: usize) {
        let n = self.invs.len();
        let prog = env.prog;
        let nv_shuffle = |pc: u32| {
            matches!(
                prog.code.get(pc as usize),
                Some(Inst::ShuffleAsm { .. } | Inst::ShuffleGlsl { .. })
            )
        };
        for w0 in (0..n).step_by(32) {
            let w1 = (w0 + 32).min(n);
            let Some(pc) = (w0..w1)
                .filter_map(|i| match self.invs[i].status {
                    Status::Shfl(p) if nv_shuffle(p) => Some(p),
                    _ => None,
                })
                .min()
            else {
                continue;
            };
            let active =
                |s: &Self, l: usize| s.invs.get(l).is_some_and(|v| v.status == Status::Shfl(pc));
            let participants: Vec<usize> = (w0..w1).filter(|&l| active(self, l)).collect();
            let live = (w0..w1)
                .filter(|&l| self.invs[l].status != Status::Done)
                .count();
            let line = line_of(prog, pc);
            if participants.len() != live {
                self.flags.add(
                    FlagKind::DivergentShuffle,
                    format!("group {gid:?} warp {}: {} of {live} live lanes reached the shuffle at line {line}; the others count as inactive", w0 / 32, participants.len()),
                );
            }
            let inst = prog.code[pc as usize].clone();
            let bugged_partial = env.bug == Some(PlantedBug::PartialWarpShuffleOwn) && w1 - w0 < 32;
            // Per participant: lane, value, write mask, (valid register, valid, its origin),
            // and the origins of the value's lanes.
            let mut results: Vec<(usize, [u64; 4], u8, Option<(Dst, u64, Origin)>, Lanes)> =
                Vec::new();
            for &l in &participants {
                let regs = &self.regs[l * nregs..(l + 1) * nregs];
                let tid = (l - w0) as u32;
                match &inst {
                    Inst::ShuffleAsm {
                        mode,
                        true_bits,
                        dst,
                        val,
                        index,
                        mask,
                    } => {
                        let own = rdx(regs, *val) & 0xffff_ffff;
                        let idx = (rdx(regs, *index) & 0xffff_ffff) as u32;
                        let m = (rdx(regs, *mask) & 0xffff_ffff) as u32;
                        let (src, ok) = asm_source(*mode, tid, idx, m, env.reading, env.bug);
                        // The predicate depends on index and mask; the value also on the lane
                        // it comes from (undefined when that lane is inactive).
                        let ctl = self.origins(l, l * nregs, nregs, *index)[0].or(self.origins(
                            l,
                            l * nregs,
                            nregs,
                            *mask,
                        )[0]);
                        let mut value = own;
                        let mut from = self.origins(l, l * nregs, nregs, *val)[0];
                        // "If the source thread id reference to an inactive thread, the returned
                        // result will be undefined": the whole result, predicate included.
                        let mut inactive = Origin::NONE;
                        if ok {
                            let sl = w0 + src as usize;
                            if active(self, sl) && bugged_partial {
                                // the planted bug: the own value, unflagged
                            } else if active(self, sl) {
                                let sregs = &self.regs[sl * nregs..(sl + 1) * nregs];
                                value = rdx(sregs, *val) & 0xffff_ffff;
                                from = self.origins(sl, sl * nregs, nregs, *val)[0];
                            } else {
                                inactive = Origin::new(Cause::InactiveLane, pc);
                                from = inactive;
                            }
                        }
                        let pred = if ok { *true_bits } else { 0 };
                        let o = [ctl.or(inactive), ctl.or(from), Origin::NONE, Origin::NONE];
                        results.push((l, [pred, value, 0, 0], dst.mask, None, o));
                    }
                    Inst::ShuffleGlsl {
                        mode,
                        lanes,
                        dst,
                        valid,
                        val,
                        index,
                        width,
                    } => {
                        let own = rd(regs, *val);
                        let idx = (rdx(regs, *index) & 0xffff_ffff) as u32;
                        let wd = (rdx(regs, *width) & 0xffff_ffff) as u32;
                        let ctl = self.origins(l, l * nregs, nregs, *index)[0].or(self.origins(
                            l,
                            l * nregs,
                            nregs,
                            *width,
                        )[0]);
                        let own_o = self.origins(l, l * nregs, nregs, *val);
                        let (value, ok, from, valid_o) = match glsl_source(*mode, tid, idx, wd) {
                            None => {
                                // "will return an undefined value"
                                let u = Origin::new(Cause::Undefined, pc);
                                (own, false, [u; 4], u)
                            }
                            Some((src, true))
                                if bugged_partial && active(self, w0 + src as usize) =>
                            {
                                (own, true, own_o, Origin::NONE)
                            }
                            Some((src, true)) => {
                                let sl = w0 + src as usize;
                                if active(self, sl) {
                                    let sregs = &self.regs[sl * nregs..(sl + 1) * nregs];
                                    let so = self.origins(sl, sl * nregs, nregs, *val);
                                    (rd(sregs, *val), true, so, Origin::NONE)
                                } else {
                                    let u = Origin::new(Cause::InactiveLane, pc);
                                    (own, true, [u; 4], Origin::NONE)
                                }
                            }
                            Some((_, false)) => (own, false, own_o, Origin::NONE),
                        };
                        let lm = ((1u16 << (*lanes).min(4)) - 1) as u8;
                        let o = from.map(|f| ctl.or(f));
                        results.push((
                            l,
                            value,
                            dst.mask & lm,
                            valid.map(|v| (v, u64::from(ok), ctl.or(valid_o))),
                            o,
                        ));
                    }
                    _ => {}
                }
            }
            let dst = match &inst {
                Inst::ShuffleAsm { dst, .. } | Inst::ShuffleGlsl { dst, .. } => *dst,
                _ => continue,
            };
            for (l, v, mask, valid, origins) in results {
                let r = &mut self.regs[l * nregs + dst.reg.0 as usize];
                for c in 0..4 {
                    if mask & (1 << c) != 0 {
                        r[c] = v[c];
                    }
                }
                if let Some((vd, ok, _)) = valid {
                    let r = &mut self.regs[l * nregs + vd.reg.0 as usize];
                    if vd.mask & 1 != 0 {
                        r[0] = ok;
                    }
                }
                let valid_o = valid.map(|v| v.2).unwrap_or(Origin::NONE);
                if origins.iter().any(|o| o.is_some()) || valid_o.is_some() {
                    self.taint(l, nregs);
                }
                if self.invs[l].tainted {
                    let sh = &mut self.shadow[l * nregs..(l + 1) * nregs];
                    poison::write(sh, &Dst::masked(dst.reg, mask), 4, origins);
                    if let Some((vd, _, o)) = valid {
                        poison::write(sh, &vd, 1, [o; 4]);
                    }
                }
                if env.trace_target == Some((gid, l)) && self.trace.len() < TRACE_LINES {
                    let r = self.regs[l * nregs + dst.reg.0 as usize];
                    self.trace.push(format!(
                        "line {line} pc {pc}: shuffle resolved (reading {:?}) -> r{} = [{:#x}, {:#x}, {:#x}, {:#x}]",
                        env.reading, dst.reg.0, r[0], r[1], r[2], r[3]
                    ));
                }
                let inv = &mut self.invs[l];
                inv.pc = pc + 1;
                inv.status = Status::Run;
            }
        }
    }
}
