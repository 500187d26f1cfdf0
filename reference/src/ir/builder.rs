//! [`Builder`]: how a front end emits IR (fresh registers, constants, code with locations).

use super::{Inst, Loc, Reg};

/// A helper for front ends: allocates registers and constants and appends code.
#[derive(Debug, Default)]
pub struct Builder {
    pub code: Vec<Inst>,
    pub locs: Vec<Loc>,
    pub reg_init: Vec<[u64; 4]>,
    pub cur_loc: Loc,
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
    pub fn pc(&self) -> u32 {
        self.code.len() as u32
    }
    pub fn push(&mut self, inst: Inst) -> u32 {
        self.code.push(inst);
        self.locs.push(self.cur_loc);
        self.pc() - 1
    }
}
