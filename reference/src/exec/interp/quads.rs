//! Resolving derivatives (NV_compute_shader_derivatives, `Inst::Derivative`) once no
//! invocation of the group can run on: per group of four (`exec::derivative::position`), the
//! members waiting at the lowest derivative pc execute it together; the others count as not
//! executing it (non-uniform control flow: the results are marked undefined).

use super::*;
use crate::exec::derivative;
use std::collections::BTreeMap;

impl GroupExec {
    pub(super) fn resolve_derivatives(&mut self, env: &Env, gid: [u32; 3], nregs: usize) {
        let prog = env.prog;
        let mut groups: BTreeMap<u64, Vec<(usize, usize, u32)>> = BTreeMap::new();
        for (l, inv) in self.invs.iter().enumerate() {
            let Status::Shfl(pc) = inv.status else {
                continue;
            };
            let Some(Inst::Derivative { group, .. }) = prog.code.get(pc as usize) else {
                continue;
            };
            let (key, place) = derivative::position(*group, inv.local_id, l as u32);
            groups.entry(key).or_default().push((l, place, pc));
        }
        for members in groups.values() {
            let Some(pc) = members.iter().map(|m| m.2).min() else {
                continue;
            };
            let Some(Inst::Derivative {
                axis,
                kind,
                lanes,
                dst,
                a,
                ..
            }) = prog.code.get(pc as usize).cloned()
            else {
                continue;
            };
            let active: Vec<(usize, usize)> = members
                .iter()
                .filter(|m| m.2 == pc)
                .map(|m| (m.0, m.1))
                .collect();
            let mut f: [Option<[u64; 4]>; 4] = [None; 4];
            // The operands' own undefined lanes reach every member's result.
            let mut from = [Origin::NONE; 4];
            for &(l, place) in &active {
                let regs = &self.regs[l * nregs..(l + 1) * nregs];
                f[place] = Some(rd(regs, a));
                let o = self.origins(l, l * nregs, nregs, a);
                for (x, y) in from.iter_mut().zip(o) {
                    *x = x.or(y);
                }
            }
            let outs = derivative::results(axis, kind, lanes, &f);
            let line = line_of(prog, pc);
            for &(l, place) in &active {
                let Some(out) = outs[place] else { continue };
                let mut origins = from;
                for (k, o) in origins.iter_mut().enumerate() {
                    if out.undefined & (1 << k) != 0 {
                        *o = Origin::new(Cause::Undefined, pc);
                    }
                }
                let regs = &mut self.regs[l * nregs..(l + 1) * nregs];
                wr(regs, &dst, lanes, out.value);
                if origins.iter().any(|o| o.is_some()) {
                    self.taint(l, nregs);
                }
                if self.invs[l].tainted {
                    let sh = &mut self.shadow[l * nregs..(l + 1) * nregs];
                    poison::write(sh, &dst, lanes, origins);
                }
                if env.trace_target == Some((gid, l)) && self.trace.len() < TRACE_LINES {
                    self.trace.push(format!(
                        "line {line} pc {pc}: derivative resolved with {} of the 4 invocations of its group -> {:x?}",
                        active.len(),
                        out.value
                    ));
                }
                let inv = &mut self.invs[l];
                inv.pc = pc + 1;
                inv.status = Status::Run;
            }
        }
    }
}
