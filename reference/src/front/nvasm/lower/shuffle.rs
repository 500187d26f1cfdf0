//! NV assembly thread shuffles (NV_shader_thread_shuffle): SHFIDX, SHFUP, SHFDOWN, SHFXOR.

use super::modifiers::Mods;
use super::operands::component;
use super::{diag, Cx, Res, R_SHFL};
use crate::ir::{Inst, ScalarTy, ShflMode};

impl Cx {
    pub(super) fn shuffle(&mut self, op: &'static str, m: &Mods, l: u32, c: u32) -> Res<()> {
        if !self.opt_shuffle {
            return Err(diag(
                l,
                c,
                format!("{op} requires \"OPTION NV_shader_thread_shuffle;\" {R_SHFL}"),
            ));
        }
        let t = self.op_type(op, m)?;
        if t.bits != 32 {
            return Err(diag(l, c, format!("{op} exchanges 32-bit values; 64-bit data types are not allowed (NV_shader_thread_shuffle, \"{op}\")")));
        }
        let mode = match op {
            "SHFIDX" => ShflMode::Idx,
            "SHFUP" => ShflMode::Up,
            "SHFDOWN" => ShflMode::Down,
            _ => ShflMode::Xor,
        };
        let r = self.result_defined_in(op, 0x3, || format!("{op} result written to .z/.w: the instruction returns a 2-component vector (NV_shader_thread_shuffle); the reference writes 0 there"))?;
        let d = self.target(&r, m);
        self.comma(op)?;
        let v = self.src(t, op)?;
        self.comma(op)?;
        let [idx, mask] = self.sources(ScalarTy::U32, op)?;
        let true_bits = Self::true_false(t).0[0];
        self.b.push(Inst::ShuffleAsm {
            mode,
            true_bits,
            dst: d,
            val: component(v, 0),
            index: component(idx, 0),
            mask: component(mask, 0),
        });
        self.finish_alu(t, &r, m, d)
    }
}
