//! A readable listing of a [`Program`] (for `--explain` output and test failures).

use super::{Inst, Program};
use std::fmt;

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "; group_size {:?}, shared {} bytes, private {} bytes, {} registers, entry pc {}",
            self.group_size,
            self.shared_size,
            self.private_size,
            self.reg_init.len(),
            self.entry_pc
        )?;
        let mut depth = 0usize;
        for (pc, inst) in self.code.iter().enumerate() {
            if matches!(inst, Inst::Else { .. } | Inst::EndIf | Inst::EndLoop { .. }) {
                depth = depth.saturating_sub(1);
            }
            let line = self.locs.get(pc).map(|l| l.line).unwrap_or(0);
            writeln!(f, "{pc:5} (line {line:3}) {}{inst:?}", "  ".repeat(depth))?;
            if matches!(
                inst,
                Inst::If { .. } | Inst::Else { .. } | Inst::Loop { .. }
            ) {
                depth += 1;
            }
        }
        Ok(())
    }
}
