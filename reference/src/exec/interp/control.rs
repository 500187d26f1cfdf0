//! Control flow: branches, loops, calls and returns, the end of an invocation, and the
//! instructions at which an invocation waits for others (barriers, shuffles, subgroup
//! operations, derivatives). Each says where the invocation goes on ([`Flow`]).

use super::*;

impl GroupExec {
    /// Executes control instruction `inst` for the invocation at `at` and says where it goes
    /// on ([`GroupExec::run_inv`] sends only control instructions here; any other goes on at
    /// the next pc).
    #[inline]
    pub(super) fn control(&mut self, env: &Env, at: At, inst: &Inst) -> Flow {
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &self.regs[base..base + nregs];
        let mut next = pc + 1;
        match inst {
            Inst::ControlBarrier => {
                self.invs[i].status = Status::Bar(pc);
                return Flow::Yield(next);
            }
            Inst::MemoryBarrier { .. } => {}
            Inst::ShuffleAsm { .. }
            | Inst::ShuffleGlsl { .. }
            | Inst::Subgroup { .. }
            | Inst::Derivative { .. } => {
                self.invs[i].status = Status::Shfl(pc);
                return Flow::Yield(pc);
            }
            Inst::If { cond, else_pc } => {
                if rdx(regs, *cond) == 0 {
                    next = *else_pc;
                }
                let line = line_of(prog, pc);
                self.check_use(prog, gid, i, base, line, *cond, "a branch condition");
            }
            Inst::Else { end_pc } => next = *end_pc,
            Inst::EndIf => {}
            Inst::Loop { count, end_pc } => {
                let remaining = match count {
                    Some(c) => sext(rdx(regs, *c), 32),
                    None => -1,
                };
                if let Some(c) = count {
                    let line = line_of(prog, pc);
                    self.check_use(prog, gid, i, base, line, *c, "a loop count");
                }
                if count.is_some() && remaining <= 0 {
                    next = end_pc + 1;
                } else if self.invs[i].loops.len() >= LIMITS.max_loop_depth as usize * 64 {
                    self.flags.add(
                        FlagKind::LoopStackOverflow,
                        format!(
                            "group {gid:?} invocation {i}: loop nesting too deep; invocation ended"
                        ),
                    );
                    self.invs[i].status = Status::Done;
                    return Flow::Yield(pc);
                } else {
                    self.invs[i].loops.push(LoopFrame {
                        begin: pc,
                        end: *end_pc,
                        remaining,
                    });
                }
            }
            Inst::EndLoop { .. } => {
                let inv = &mut self.invs[i];
                if let Some(f) = inv.loops.last_mut() {
                    if f.remaining > 0 {
                        f.remaining -= 1;
                    }
                    if f.remaining == 0 {
                        inv.loops.pop();
                    } else {
                        next = f.begin + 1;
                    }
                }
            }
            Inst::Break | Inst::Continue => {
                let inv = &mut self.invs[i];
                let floor = inv.calls.last().map(|c| c.1).unwrap_or(0);
                if inv.loops.len() > floor {
                    let f = inv.loops.last().copied();
                    if let Some(f) = f {
                        let breaks = matches!(inst, Inst::Break)
                            || env.bug == Some(PlantedBug::ContinueBreaks);
                        if breaks {
                            inv.loops.pop();
                            next = f.end + 1;
                        } else {
                            next = f.end;
                        }
                    }
                } else {
                    inv.status = Status::Done;
                    return Flow::Yield(pc);
                }
            }
            Inst::Call { target_pc } => {
                let inv = &mut self.invs[i];
                if inv.calls.len() >= LIMITS.max_call_depth as usize {
                    self.flags.add(
                        FlagKind::CallStackOverflow,
                        format!(
                            "group {gid:?} invocation {i}: call depth above {}; invocation ended",
                            LIMITS.max_call_depth
                        ),
                    );
                    inv.status = Status::Done;
                    return Flow::Yield(pc);
                }
                inv.calls.push((next, inv.loops.len()));
                next = *target_pc;
            }
            Inst::Return => {
                let inv = &mut self.invs[i];
                match inv.calls.pop() {
                    Some((ret, depth)) => {
                        inv.loops.truncate(depth);
                        next = crate::exec::planted::return_to(env.bug, prog, ret);
                    }
                    None => {
                        inv.status = Status::Done;
                        return Flow::Yield(pc);
                    }
                }
            }
            Inst::Exit => {
                self.invs[i].status = Status::Done;
                return Flow::Yield(pc);
            }
            _ => {}
        }
        Flow::Goto(next)
    }
}
