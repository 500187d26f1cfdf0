//! [`Builder`]: how a front end emits IR. Fresh registers and constants (plain or interned);
//! code with its source locations; one helper per common instruction shape, with an explicit
//! destination or into a fresh register; and structured control flow (`If`/`Else`/`EndIf`,
//! `Loop`/`EndLoop`) whose helpers fill in the pcs the instructions name, so that a front end
//! keeps the invariants of the module docs of [`crate::ir`] by construction.
//!
//! Every helper appends exactly the instruction(s) it names, in the order given, at
//! `cur_loc`: lowering through the helpers emits the same code as pushing the instructions.

use super::{BinOp, CmpOp, Dst, Inst, Loc, MemTy, Reg, ScalarTy, Space, Src, Ty, UnOp};
use std::collections::HashMap;

/// A helper for front ends: allocates registers and constants and appends code.
#[derive(Debug, Default)]
pub struct Builder {
    pub code: Vec<Inst>,
    pub locs: Vec<Loc>,
    pub reg_init: Vec<[u64; 4]>,
    pub cur_loc: Loc,
    /// The registers of [`Builder::interned_constant`], by value.
    interned: HashMap<[u64; 4], Reg>,
}

impl Builder {
    pub fn new() -> Self {
        Self::default()
    }
    /// A fresh register (initially 0).
    pub fn reg(&mut self) -> Reg {
        self.reg_init.push([0; 4]);
        Reg((self.reg_init.len() - 1) as u32)
    }
    /// A register preloaded with `value`.
    pub fn constant(&mut self, value: [u64; 4]) -> Reg {
        self.reg_init.push(value);
        Reg((self.reg_init.len() - 1) as u32)
    }
    /// The pc the next instruction gets.
    pub fn pc(&self) -> u32 {
        self.code.len() as u32
    }
    /// Appends `inst` at `cur_loc`; returns its pc.
    pub fn push(&mut self, inst: Inst) -> u32 {
        self.code.push(inst);
        self.locs.push(self.cur_loc);
        self.pc() - 1
    }

    /// A register preloaded with `value`, shared by every `interned_constant` call with the
    /// same value: constant registers are never written, so one per value is enough. The first
    /// call for a value allocates its register, later calls return it.
    pub fn interned_constant(&mut self, value: [u64; 4]) -> Reg {
        if let Some(r) = self.interned.get(&value) {
            return *r;
        }
        let r = self.constant(value);
        self.interned.insert(value, r);
        r
    }

    // ----- one instruction each (they return the instruction's pc) -----

    /// `dst = a`: [`Inst::Mov`], a bit copy of the lanes `dst` writes.
    pub fn mov(&mut self, dst: Dst, a: Src) -> u32 {
        self.push(Inst::Mov { dst, a })
    }

    /// `dst = op a` per lane of type `ty`: [`Inst::Un`].
    pub fn un(&mut self, op: UnOp, ty: Ty, dst: Dst, a: Src) -> u32 {
        self.push(Inst::Un { op, ty, dst, a })
    }

    /// `dst = a op b` per lane of type `ty`: [`Inst::Bin`].
    pub fn bin(&mut self, op: BinOp, ty: Ty, dst: Dst, a: Src, b: Src) -> u32 {
        self.push(Inst::Bin { op, ty, dst, a, b })
    }

    /// `dst = a op b` compared as `ty`, bool lanes: [`Inst::Cmp`].
    pub fn cmp(&mut self, op: CmpOp, ty: Ty, dst: Dst, a: Src, b: Src) -> u32 {
        self.push(Inst::Cmp { op, ty, dst, a, b })
    }

    /// `dst = cond ? a : b` over `lanes` lanes: [`Inst::Select`].
    pub fn select(&mut self, lanes: u8, dst: Dst, cond: Src, a: Src, b: Src) -> u32 {
        self.push(Inst::Select {
            lanes,
            dst,
            cond,
            a,
            b,
        })
    }

    /// `dst` = each of `lanes` lanes of `a` converted `from` → `to`: [`Inst::Convert`].
    pub fn convert(&mut self, from: ScalarTy, to: ScalarTy, lanes: u8, dst: Dst, a: Src) -> u32 {
        self.push(Inst::Convert {
            from,
            to,
            lanes,
            dst,
            a,
        })
    }

    /// `dst` = the value at `addr` of `space`, read as `ty`: [`Inst::Load`].
    pub fn load(&mut self, space: Space, ty: MemTy, dst: Dst, addr: Src) -> u32 {
        self.push(Inst::Load {
            space,
            ty,
            dst,
            addr,
        })
    }

    /// Writes `val` at `addr` of `space` as `ty`: [`Inst::Store`].
    pub fn store(&mut self, space: Space, ty: MemTy, addr: Src, val: Src) -> u32 {
        self.push(Inst::Store {
            space,
            ty,
            addr,
            val,
        })
    }

    // ----- into a fresh register (its lanes 0..n written; they return the register) -----

    /// Copies the first `lanes` lanes of `a` into a fresh register.
    pub fn mov_fresh(&mut self, lanes: u8, a: Src) -> Reg {
        let r = self.reg();
        self.mov(Dst::lanes(r, lanes), a);
        r
    }

    /// `op a` (per lane of `ty`) into a fresh register.
    pub fn un_fresh(&mut self, op: UnOp, ty: Ty, a: Src) -> Reg {
        let r = self.reg();
        self.un(op, ty, Dst::lanes(r, ty.lanes), a);
        r
    }

    /// `a op b` (per lane of `ty`) into a fresh register.
    pub fn bin_fresh(&mut self, op: BinOp, ty: Ty, a: Src, b: Src) -> Reg {
        let r = self.reg();
        self.bin(op, ty, Dst::lanes(r, ty.lanes), a, b);
        r
    }

    /// `a op b` (compared as `ty`) into a fresh register of bool lanes.
    pub fn cmp_fresh(&mut self, op: CmpOp, ty: Ty, a: Src, b: Src) -> Reg {
        let r = self.reg();
        self.cmp(op, ty, Dst::lanes(r, ty.lanes), a, b);
        r
    }

    // ----- structured control flow (see the invariants in the module docs) -----

    /// Opens `If { cond }`; returns its pc for [`Builder::open_else`] and
    /// [`Builder::close_if`], which fill in its `else_pc`.
    pub fn open_if(&mut self, cond: Src) -> u32 {
        self.push(Inst::If { cond, else_pc: 0 })
    }

    /// Emits the `Else` of the `If` at `if_pc` and points the `If` just after it; returns the
    /// `Else`'s pc for [`Builder::close_if`].
    pub fn open_else(&mut self, if_pc: u32) -> u32 {
        let pc = self.push(Inst::Else { end_pc: 0 });
        if let Some(Inst::If { else_pc, .. }) = self.code.get_mut(if_pc as usize) {
            *else_pc = pc + 1;
        }
        pc
    }

    /// Emits the `EndIf` of the `If` at `if_pc` and points the `Else` at `else_pc` at it (or,
    /// without an `Else`, the `If`); returns the `EndIf`'s pc.
    pub fn close_if(&mut self, if_pc: u32, else_pc: Option<u32>) -> u32 {
        let end = self.push(Inst::EndIf);
        match else_pc {
            Some(e) => {
                if let Some(Inst::Else { end_pc }) = self.code.get_mut(e as usize) {
                    *end_pc = end;
                }
            }
            None => {
                if let Some(Inst::If { else_pc, .. }) = self.code.get_mut(if_pc as usize) {
                    *else_pc = end;
                }
            }
        }
        end
    }

    /// `if (cond) inst`: `If`, `inst`, `EndIf`; returns the pc of `inst` (a conditional
    /// `Break`, `Continue`, `Call` or `Return`).
    pub fn guarded(&mut self, cond: Src, inst: Inst) -> u32 {
        let if_pc = self.open_if(cond);
        let at = self.push(inst);
        self.close_if(if_pc, None);
        at
    }

    /// Opens `Loop { count }` (`None`: until a `Break`); returns its pc for
    /// [`Builder::close_loop`].
    pub fn open_loop(&mut self, count: Option<Src>) -> u32 {
        self.push(Inst::Loop { count, end_pc: 0 })
    }

    /// Emits the `EndLoop` of the `Loop` at `loop_pc` and points the `Loop` at it; returns the
    /// `EndLoop`'s pc.
    pub fn close_loop(&mut self, loop_pc: u32) -> u32 {
        let end = self.push(Inst::EndLoop { begin_pc: loop_pc });
        if let Some(Inst::Loop { end_pc, .. }) = self.code.get_mut(loop_pc as usize) {
            *end_pc = end;
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Program;

    #[test]
    fn control_flow_helpers_fill_in_the_pcs() {
        let mut b = Builder::new();
        let c = b.interned_constant([1, 0, 0, 0]);
        let lp = b.open_loop(None); // 0
        let i = b.open_if(Src::new(c)); // 1
        let e = b.open_else(i); // 2
        let at = b.guarded(Src::new(c), Inst::Break); // 3..=5, the Break at 4
        let end = b.close_if(i, Some(e)); // 6
        let lend = b.close_loop(lp); // 7
        assert_eq!((at, end, lend), (4, 6, 7));
        assert_eq!(
            b.code[0],
            Inst::Loop {
                count: None,
                end_pc: 7
            }
        );
        assert_eq!(
            b.code[1],
            Inst::If {
                cond: Src::new(c),
                else_pc: 3
            }
        );
        assert_eq!(b.code[2], Inst::Else { end_pc: 6 });
        assert_eq!(
            b.code[3],
            Inst::If {
                cond: Src::new(c),
                else_pc: 5
            }
        );
        assert_eq!(b.code[7], Inst::EndLoop { begin_pc: 0 });
        b.push(Inst::Return);
        Program::from_builder(b, [1, 1, 1])
            .validate()
            .expect("valid");
    }

    #[test]
    fn interned_constants_share_a_register_and_fresh_results_write_their_lanes() {
        let mut b = Builder::new();
        let k = b.interned_constant([7, 0, 0, 0]);
        assert_eq!(b.interned_constant([7, 0, 0, 0]), k);
        assert_ne!(b.constant([7, 0, 0, 0]), k);
        let ty = Ty::new(ScalarTy::U32, 3);
        let r = b.bin_fresh(BinOp::Add, ty, Src::new(k), Src::new(k));
        assert_eq!(
            b.code[0],
            Inst::Bin {
                op: BinOp::Add,
                ty,
                dst: Dst::masked(r, 0b111),
                a: Src::new(k),
                b: Src::new(k),
            }
        );
        assert_eq!(Dst::lanes(r, 4), Dst::new(r));
    }
}
