//! Structured control flow. A selection is `If`/`Else`/`EndIf`; a switch a chain of them. A
//! loop with header H, merge M and continue target C is
//! ```text
//! Loop                       ; outer: one iteration per SPIR-V iteration
//!   brk = 0
//!   Loop                     ; inner: runs once; `Break` here is SPIR-V `continue`
//!     H and the body         ; branch to M: brk = 1; Break     branch to C: Break
//!     Break
//!   EndLoop
//!   If brk: Break EndIf
//!   continue construct       ; branch back to H: end of the region; to M: Break
//! EndLoop
//! ```
//! so the continue construct comes after the body in code order and sees its values. A switch
//! is a chain of `If`s inside a run-once `Loop`, so a branch to its merge from any depth is a
//! `Break`; a jump further out (a loop break or continue from inside a case) sets the switch's
//! flag, breaks, and breaks again after the switch.
//!
//! This module emits the blocks of a function copy region by region, with the phi moves of
//! every edge, and the terminators (branches, switches, returns, kills).

use super::{diag, Fcx, LowerError, Lowerer, Val, MAX_BLOCK_EMISSIONS, MAX_NESTING, R};
use crate::front::spirv::module::id_at;
use crate::ir::{BinOp, CmpOp, Dst, Inst, Kind, Loc, Reg, ScalarTy, Src, Ty};
use rspirv::dr::{Block, Instruction, Operand};
use rspirv::spirv::{Op, Word};

#[derive(Clone, Debug)]
pub(super) enum Frame {
    Sel {
        merge: Word,
    },
    /// A switch, lowered inside a run-once loop so that a branch to its merge from anywhere in
    /// it is an IR `Break`; `pend` is set when a jump goes further out than the switch.
    Switch {
        merge: Word,
        pend: Reg,
    },
    /// Inside a loop's header/body.
    Body {
        merge: Word,
        cont: Word,
        brk: Reg,
    },
    /// Inside a loop's continue construct.
    Cont {
        header: Word,
        merge: Word,
    },
}

enum Exit {
    /// The end of the current region (fall through).
    Stop,
    /// An IR `Break`, after setting the propagation flags of the switch wrappers it crosses
    /// (`pends`) and, for a SPIR-V loop break from a body, the loop's `brk` flag. A SPIR-V
    /// `continue` from a body is a break of the body's inner loop; a switch break is a break
    /// of the switch's wrapper loop.
    Jump {
        pends: Vec<Reg>,
        brk: Option<Reg>,
    },
    Normal,
}

impl<'a, 'm> Lowerer<'a, 'm> {
    fn block(&self, fcx: &Fcx, label: Word) -> Option<&'m Block> {
        let f = &self.funcs[fcx.func];
        f.index.get(&label).map(|i| f.blocks[*i])
    }

    /// The block `label` of the current function, which must exist and have a terminator.
    fn block_at(&self, fcx: &Fcx, label: Word) -> R<&'m Block> {
        let Some(blk) = self.block(fcx, label) else {
            return Err(LowerError::Unsupported(diag(
                1,
                format!("branch to %{label}, which is not a block of the function"),
            )));
        };
        if blk.instructions.is_empty() {
            return Err(LowerError::Unsupported(diag(
                1,
                format!("block %{label} has no terminator"),
            )));
        }
        Ok(blk)
    }

    fn phi_moves(&mut self, fcx: &Fcx, from: Word, to: Word) -> R<()> {
        let Some(blk) = self.block(fcx, to) else {
            return Ok(());
        };
        let mut pairs = Vec::new();
        for inst in &blk.instructions {
            if inst.class.opcode != Op::Phi {
                continue;
            }
            let Some(dst) = inst.result_id.and_then(|i| fcx.phis.get(&i)).cloned() else {
                continue;
            };
            let mut src = None;
            for k in (0..inst.operands.len()).step_by(2) {
                if id_at(inst, k + 1) == Some(from) {
                    src = id_at(inst, k);
                }
            }
            let Some(src) = src else {
                return self.err(inst, "OpPhi has no value for a predecessor");
            };
            let Some(sv) = self.value(fcx, src) else {
                return self.err(
                    inst,
                    format!("OpPhi value %{src} is not defined before use"),
                );
            };
            pairs.push((inst, dst, sv));
        }
        // Parallel copy: through fresh temporaries.
        let mut temps = Vec::new();
        for (inst, dst, sv) in &pairs {
            let Some(t) = self.shape_like(dst) else {
                return self.err(inst, "OpPhi of an unsupported type");
            };
            if !self.copy_into(&t, sv) {
                return self.err(inst, "OpPhi value does not match its type");
            }
            temps.push(t);
        }
        for ((_, dst, _), t) in pairs.iter().zip(&temps) {
            self.copy_into(dst, t);
        }
        Ok(())
    }

    fn classify(&self, target: Word, stop: Option<Word>, stack: &[Frame]) -> Exit {
        if Some(target) == stop {
            return Exit::Stop;
        }
        let mut pends = Vec::new();
        for f in stack.iter().rev() {
            match f {
                Frame::Body { merge, cont, brk } => {
                    if target == *merge {
                        return Exit::Jump {
                            pends,
                            brk: Some(*brk),
                        };
                    }
                    if target == *cont {
                        return Exit::Jump { pends, brk: None };
                    }
                    return Exit::Normal;
                }
                Frame::Cont { merge, header } => {
                    if target == *merge {
                        return Exit::Jump { pends, brk: None };
                    }
                    if target == *header && pends.is_empty() {
                        return Exit::Stop;
                    }
                    return Exit::Normal;
                }
                Frame::Switch { merge, pend } => {
                    if target == *merge {
                        return Exit::Jump { pends, brk: None };
                    }
                    pends.push(*pend);
                }
                Frame::Sel { .. } => {}
            }
        }
        Exit::Normal
    }

    fn is_enclosing_merge(&self, target: Word, stack: &[Frame]) -> bool {
        stack.iter().any(|f| match f {
            Frame::Sel { merge } => *merge == target,
            _ => false,
        })
    }

    /// Emits an exit (not Normal). Returns false for Normal.
    fn emit_exit(&mut self, e: &Exit) -> bool {
        match e {
            Exit::Stop => {}
            Exit::Jump { pends, brk } => {
                let one = self.cu32(1);
                for r in pends.iter().chain(brk) {
                    self.used_pends.insert(*r);
                    self.b.mov(Dst::new(*r), Src::new(one));
                }
                self.b.push(Inst::Break);
            }
            Exit::Normal => return false,
        }
        true
    }

    /// Goes on at `target` after a construct: emits the exit that takes (None), or returns
    /// `target` as the block to continue with in this region.
    fn go_on(&mut self, target: Word, stop: Option<Word>, stack: &[Frame]) -> Option<Word> {
        let e = self.classify(target, stop, stack);
        if self.emit_exit(&e) {
            None
        } else {
            Some(target)
        }
    }

    /// The edge `from → target` of a branch at `at`: its phi moves, then the exit it takes
    /// (None) or `target` as the block to continue with in this region.
    fn edge(
        &mut self,
        fcx: &Fcx,
        from: Word,
        target: Word,
        stop: Option<Word>,
        stack: &[Frame],
        at: &Instruction,
    ) -> R<Option<Word>> {
        self.phi_moves(fcx, from, target)?;
        let Some(target) = self.go_on(target, stop, stack) else {
            return Ok(None);
        };
        if self.is_enclosing_merge(target, stack) {
            return self.unsupported(
                at,
                ": a branch out of a nested selection to an enclosing merge block",
            );
        }
        Ok(Some(target))
    }

    /// The code of one arm: the edge `from → target`, then the target's region up to `stop`.
    fn arm(
        &mut self,
        fcx: &mut Fcx,
        from: Word,
        target: Word,
        stop: Option<Word>,
        stack: &[Frame],
        at: &Instruction,
    ) -> R<()> {
        match self.edge(fcx, from, target, stop, stack, at)? {
            Some(target) => self.region(fcx, target, stop, stack, false),
            None => Ok(()),
        }
    }

    fn bool_src(&mut self, fcx: &Fcx, inst: &Instruction, id: Option<Word>) -> R<Src> {
        match id.and_then(|i| self.value(fcx, i)) {
            Some(Val::R(r)) => Ok(Src::splat(r, 0)),
            _ => self.err(inst, "condition is not a defined scalar value"),
        }
    }

    /// Emits blocks from `start` until `stop` is reached (or the region ends in jumps).
    pub(super) fn region(
        &mut self,
        fcx: &mut Fcx,
        start: Word,
        stop: Option<Word>,
        stack: &[Frame],
        first: bool,
    ) -> R<()> {
        fcx.nest += 1;
        if fcx.nest > MAX_NESTING {
            return Err(LowerError::Unsupported(diag(
                1,
                format!("control flow nests more than {MAX_NESTING} constructs deep"),
            )));
        }
        let r = self.region_inner(fcx, start, stop, stack, first);
        fcx.nest -= 1;
        r
    }

    fn region_inner(
        &mut self,
        fcx: &mut Fcx,
        start: Word,
        stop: Option<Word>,
        stack: &[Frame],
        mut first: bool,
    ) -> R<()> {
        let mut cur = start;
        loop {
            if !first && Some(cur) == stop {
                return Ok(());
            }
            first = false;
            fcx.emitted += 1;
            if fcx.emitted > MAX_BLOCK_EMISSIONS || self.too_big() {
                return Err(LowerError::Unsupported(diag(
                    1,
                    "structured control flow expands to too much code for the reference".into(),
                )));
            }
            let blk = self.block_at(fcx, cur)?;
            let n = blk.instructions.len();
            let merge_inst = if n >= 2 {
                Some(&blk.instructions[n - 2])
            } else {
                None
            };
            let loop_merge = merge_inst.filter(|m| m.class.opcode == Op::LoopMerge);
            if let Some(lm) = loop_merge {
                let (Some(merge), Some(cont)) = (id_at(lm, 0), id_at(lm, 1)) else {
                    return self.err(lm, "malformed OpLoopMerge");
                };
                self.emit_loop(fcx, cur, merge, cont, stack)?;
                // Continue after the loop with its merge block.
                match self.go_on(merge, stop, stack) {
                    Some(next) => cur = next,
                    None => return Ok(()),
                }
                continue;
            }
            match self.straight(fcx, cur, stop, stack)? {
                Some(next) => cur = next,
                None => return Ok(()),
            }
        }
    }

    /// A fresh flag register, cleared here (a loop's break flag, a switch's propagation flag).
    fn cleared_flag(&mut self) -> Reg {
        let flag = self.b.reg();
        let zero = self.cu32(0);
        self.b.mov(Dst::new(flag), Src::new(zero));
        flag
    }

    /// The loop whose header is `header`.
    fn emit_loop(
        &mut self,
        fcx: &mut Fcx,
        header: Word,
        merge: Word,
        cont: Word,
        stack: &[Frame],
    ) -> R<()> {
        let outer = self.b.open_loop(None);
        let brk = self.cleared_flag();
        let inner = self.b.open_loop(None);
        let mut body_stack = stack.to_vec();
        body_stack.push(Frame::Body { merge, cont, brk });
        // The header block itself, then the body, up to the continue target.
        if let Some(next) = self.straight(fcx, header, Some(cont), &body_stack)? {
            self.region(fcx, next, Some(cont), &body_stack, false)?;
        }
        self.b.push(Inst::Break);
        self.b.close_loop(inner);
        self.b.guarded(Src::splat(brk, 0), Inst::Break);
        if cont != header {
            let mut cont_stack = stack.to_vec();
            cont_stack.push(Frame::Cont { header, merge });
            self.region(fcx, cont, Some(header), &cont_stack, false)?;
        }
        self.b.close_loop(outer);
        Ok(())
    }

    /// Code emitted next comes from the line of `inst`.
    fn locate(&mut self, inst: &Instruction) {
        self.b.cur_loc = Loc {
            line: self.info.line(inst),
            column: 1,
        };
    }

    /// Emits one block (its instructions and terminator, with nested selections). Returns the
    /// next block to continue with in this region, or None when the region has ended.
    fn straight(
        &mut self,
        fcx: &mut Fcx,
        cur: Word,
        stop: Option<Word>,
        stack: &[Frame],
    ) -> R<Option<Word>> {
        let blk = self.block_at(fcx, cur)?;
        let n = blk.instructions.len();
        let mut sel_merge = None;
        for inst in &blk.instructions[..n - 1] {
            self.locate(inst);
            match inst.class.opcode {
                Op::SelectionMerge => sel_merge = id_at(inst, 0),
                Op::LoopMerge | Op::Phi | Op::Variable | Op::Line | Op::NoLine | Op::Nop => {}
                _ => self.inst(fcx, inst)?,
            }
        }
        let term = &blk.instructions[n - 1];
        self.locate(term);
        match term.class.opcode {
            Op::Branch => {
                let Some(t) = id_at(term, 0) else {
                    return self.err(term, "malformed OpBranch");
                };
                self.edge(fcx, cur, t, stop, stack, term)
            }
            Op::BranchConditional => {
                let (Some(t), Some(f)) = (id_at(term, 1), id_at(term, 2)) else {
                    return self.err(term, "malformed OpBranchConditional");
                };
                let cond = self.bool_src(fcx, term, id_at(term, 0))?;
                if let Some(m) = sel_merge {
                    let mut st = stack.to_vec();
                    st.push(Frame::Sel { merge: m });
                    let if_pc = self.b.open_if(cond);
                    self.arm(fcx, cur, t, Some(m), &st, term)?;
                    let else_pc = self.b.open_else(if_pc);
                    self.arm(fcx, cur, f, Some(m), &st, term)?;
                    self.b.close_if(if_pc, Some(else_pc));
                    return Ok(self.go_on(m, stop, stack));
                }
                let et = self.classify(t, stop, stack);
                let ef = self.classify(f, stop, stack);
                match (matches!(et, Exit::Normal), matches!(ef, Exit::Normal)) {
                    (true, true) => self.unsupported(
                        term,
                        " here: OpBranchConditional to two blocks without OpSelectionMerge",
                    ),
                    (false, true) | (true, false) => {
                        // One side leaves the region (the If's then or else arm), the other
                        // goes on after the EndIf.
                        let leaves_on_true = !matches!(et, Exit::Normal);
                        let (out, exit, stay) = if leaves_on_true {
                            (t, &et, f)
                        } else {
                            (f, &ef, t)
                        };
                        let if_pc = self.b.open_if(cond);
                        let else_pc = (!leaves_on_true).then(|| self.b.open_else(if_pc));
                        self.phi_moves(fcx, cur, out)?;
                        self.emit_exit(exit);
                        self.b.close_if(if_pc, else_pc);
                        self.phi_moves(fcx, cur, stay)?;
                        Ok(Some(stay))
                    }
                    (false, false) => {
                        let if_pc = self.b.open_if(cond);
                        self.phi_moves(fcx, cur, t)?;
                        self.emit_exit(&et);
                        let else_pc = self.b.open_else(if_pc);
                        self.phi_moves(fcx, cur, f)?;
                        self.emit_exit(&ef);
                        self.b.close_if(if_pc, Some(else_pc));
                        Ok(None)
                    }
                }
            }
            Op::Switch => {
                let Some(m) = sel_merge else {
                    return self.unsupported(term, " without OpSelectionMerge");
                };
                let Some(Val::R(sel)) = id_at(term, 0).and_then(|i| self.value(fcx, i)) else {
                    return self.err(term, "OpSwitch selector is not a defined scalar");
                };
                let sel_ty = id_at(term, 0)
                    .and_then(|i| self.info.type_of.get(&i).copied())
                    .and_then(|t| self.scalar_lanes(t))
                    .map(|(s, _)| ScalarTy::new(Kind::U, s.bits))
                    .unwrap_or(ScalarTy::U32);
                let Some(default) = id_at(term, 1) else {
                    return self.err(term, "malformed OpSwitch");
                };
                // Distinct targets in order, with their literals.
                let mut targets: Vec<(Word, Vec<u64>)> = Vec::new();
                let mut k = 2;
                while k + 1 < term.operands.len() {
                    let lit = match &term.operands[k] {
                        Operand::LiteralBit32(v) => u64::from(*v),
                        Operand::LiteralBit64(v) => *v,
                        _ => return self.err(term, "malformed OpSwitch literal"),
                    };
                    let Some(t) = id_at(term, k + 1) else {
                        return self.err(term, "malformed OpSwitch target");
                    };
                    if t != default {
                        match targets.iter_mut().find(|x| x.0 == t) {
                            Some(x) => x.1.push(lit),
                            None => targets.push((t, vec![lit])),
                        }
                    }
                    k += 2;
                }
                let pend = self.cleared_flag();
                let wrapper = self.b.open_loop(None);
                let mut st = stack.to_vec();
                st.push(Frame::Switch { merge: m, pend });
                let mut opened = Vec::new();
                for (t, lits) in &targets {
                    let c = self.b.reg();
                    for (i, l) in lits.iter().enumerate() {
                        let lr = self.b.interned_constant([*l & sel_ty.mask(), 0, 0, 0]);
                        let dst = if i == 0 { c } else { self.b.reg() };
                        self.b.cmp(
                            CmpOp::Eq,
                            Ty::new(sel_ty, 1),
                            Dst::new(dst),
                            Src::splat(sel, 0),
                            Src::new(lr),
                        );
                        if i > 0 {
                            self.b.bin(
                                BinOp::Or,
                                Ty::new(ScalarTy::BOOL, 1),
                                Dst::new(c),
                                Src::new(c),
                                Src::new(dst),
                            );
                        }
                    }
                    let if_pc = self.b.open_if(Src::splat(c, 0));
                    self.arm(fcx, cur, *t, Some(m), &st, term)?;
                    let else_pc = self.b.open_else(if_pc);
                    opened.push((if_pc, else_pc));
                }
                self.arm(fcx, cur, default, Some(m), &st, term)?;
                for (if_pc, else_pc) in opened.into_iter().rev() {
                    self.b.close_if(if_pc, Some(else_pc));
                }
                self.b.push(Inst::Break);
                self.b.close_loop(wrapper);
                if self.used_pends.contains(&pend) {
                    // A jump past the switch: go on breaking outwards.
                    self.b.guarded(Src::splat(pend, 0), Inst::Break);
                }
                Ok(self.go_on(m, stop, stack))
            }
            Op::Return => {
                self.b.push(Inst::Return);
                Ok(None)
            }
            Op::ReturnValue => {
                let v = id_at(term, 0).and_then(|i| self.value(fcx, i));
                match (&fcx.ret.clone(), v) {
                    (Some(dst), Some(src)) => {
                        if !self.copy_into(dst, &src) {
                            return self.err(term, "returned value does not match the return type");
                        }
                    }
                    (None, _) => {}
                    (Some(_), None) => return self.err(term, "returned value is not defined"),
                }
                self.b.push(Inst::Return);
                Ok(None)
            }
            Op::Kill | Op::TerminateInvocation | Op::Unreachable => {
                self.b.push(Inst::Exit);
                Ok(None)
            }
            _ => self.unsupported(term, " as a block terminator"),
        }
    }
}
