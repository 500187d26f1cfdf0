//! Structural validation of a [`Program`]: the invariants of the module docs.

use super::{Inst, Program};

impl Program {
    /// Checks the structural invariants the executor relies on. Returns a message naming the
    /// first broken one.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.code.len() as u32;
        if self.locs.len() != self.code.len() {
            return Err("locs and code differ in length".into());
        }
        if self.entry_pc > n {
            return Err(format!("entry pc {} past the end ({n})", self.entry_pc));
        }
        let [x, y, z] = self.group_size;
        let total = u64::from(x) * u64::from(y) * u64::from(z);
        if total == 0 || total > u64::from(crate::LIMITS.max_work_group_invocations) {
            return Err(format!(
                "group size {:?} is empty or above the invocation limit",
                self.group_size
            ));
        }
        if self.shared_size > crate::LIMITS.max_shared_memory_size * 16 {
            return Err(format!(
                "shared size {} is unreasonably large",
                self.shared_size
            ));
        }
        if self.private_size > MAX_PRIVATE_SIZE {
            return Err(format!(
                "private size {} above {MAX_PRIVATE_SIZE} bytes",
                self.private_size
            ));
        }
        let regs = self.reg_init.len() as u32;
        let bad_pc = |pc: u32, at: usize| -> Result<(), String> {
            if pc >= n {
                Err(format!("pc {at}: target {pc} past the end"))
            } else {
                Ok(())
            }
        };
        // Structure: a stack of open constructs.
        #[derive(Clone, Copy, PartialEq)]
        enum Open {
            If(usize),
            Else(usize),
            Loop(usize),
        }
        let mut stack: Vec<Open> = Vec::new();
        for (pc, inst) in self.code.iter().enumerate() {
            if let Some(t) = types_of(inst).into_iter().find(|t| !scalar_ok(*t)) {
                return Err(format!("pc {pc}: invalid scalar type {t:?}"));
            }
            if let Some(l) = lanes_of(inst).filter(|l| !(1..=4).contains(l)) {
                return Err(format!("pc {pc}: invalid lane count {l}"));
            }
            for r in regs_of(inst) {
                if r >= regs {
                    return Err(format!(
                        "pc {pc}: register r{r} past the register file ({regs})"
                    ));
                }
            }
            match inst {
                Inst::MarkPrivateUndefined { off, size }
                    if u64::from(*off) + u64::from(*size) > u64::from(self.private_size) =>
                {
                    return Err(format!(
                        "pc {pc}: private bytes {off}..+{size} past the private size {}",
                        self.private_size
                    ));
                }
                Inst::If { else_pc, .. } => {
                    bad_pc(*else_pc, pc)?;
                    stack.push(Open::If(pc));
                }
                Inst::Else { end_pc } => {
                    bad_pc(*end_pc, pc)?;
                    match stack.pop() {
                        Some(Open::If(ip)) => {
                            if let Inst::If { else_pc, .. } = self.code[ip] {
                                if else_pc as usize != pc + 1 {
                                    return Err(format!(
                                        "pc {ip}: If's else_pc is not after its Else"
                                    ));
                                }
                            }
                            stack.push(Open::Else(pc));
                        }
                        _ => return Err(format!("pc {pc}: Else without If")),
                    }
                }
                Inst::EndIf => match stack.pop() {
                    Some(Open::If(ip)) => {
                        if let Inst::If { else_pc, .. } = self.code[ip] {
                            if else_pc as usize != pc {
                                return Err(format!("pc {ip}: If's else_pc is not its EndIf"));
                            }
                        }
                    }
                    Some(Open::Else(ep)) => {
                        if let Inst::Else { end_pc } = self.code[ep] {
                            if end_pc as usize != pc {
                                return Err(format!("pc {ep}: Else's end_pc is not its EndIf"));
                            }
                        }
                    }
                    _ => return Err(format!("pc {pc}: EndIf without If")),
                },
                Inst::Loop { end_pc, .. } => {
                    bad_pc(*end_pc, pc)?;
                    stack.push(Open::Loop(pc));
                }
                Inst::EndLoop { begin_pc } => match stack.pop() {
                    Some(Open::Loop(lp)) => {
                        if *begin_pc as usize != lp {
                            return Err(format!("pc {pc}: EndLoop's begin_pc is not its Loop"));
                        }
                        if let Inst::Loop { end_pc, .. } = self.code[lp] {
                            if end_pc as usize != pc {
                                return Err(format!("pc {lp}: Loop's end_pc is not its EndLoop"));
                            }
                        }
                    }
                    _ => return Err(format!("pc {pc}: EndLoop without Loop")),
                },
                Inst::Break | Inst::Continue
                    if !stack.iter().any(|o| matches!(o, Open::Loop(_))) =>
                {
                    return Err(format!("pc {pc}: Break/Continue outside a loop"));
                }
                Inst::Call { target_pc } => bad_pc(*target_pc, pc)?,
                Inst::Image(im) => image_ok(im).map_err(|e| format!("pc {pc}: {e}"))?,
                Inst::Return | Inst::Exit => {}
                _ => {}
            }
        }
        if !stack.is_empty() {
            return Err("unterminated If or Loop at the end of the code".into());
        }
        Ok(())
    }
}

/// The rules of an image access: a numeric component type, a result where the operation
/// has one, and atomics only where ARB_shader_image_load_store (and EXT_shader_atomic_float
/// for float add) define them: one 32-bit component of the variable's type.
fn image_ok(im: &super::ImageInst) -> Result<(), String> {
    use super::image::Format;
    use super::{AtomicOp, ImageOp, Kind};
    let var = im.var;
    if var.kind == Kind::B {
        return Err("image variable of boolean components".into());
    }
    if let Some(f) = var.format {
        if f.kind() != var.kind {
            return Err(format!(
                "format {} on an image of {:?} components",
                f.name(),
                var.kind
            ));
        }
    }
    if im.dst.is_none() && im.op != ImageOp::Store {
        return Err(format!("image {:?} without a destination", im.op));
    }
    if let ImageOp::Atomic(op) = im.op {
        let ok_format = matches!(
            var.format,
            Some(Format::R32ui | Format::R32i | Format::R32f)
        );
        let ok_op = match var.kind {
            Kind::F => matches!(op, AtomicOp::Exch | AtomicOp::Add),
            _ => !matches!(op, AtomicOp::IWrap | AtomicOp::DWrap),
        };
        if !ok_format || !ok_op {
            return Err(format!(
                "image atomic {op:?} on {:?} {:?}",
                var.kind, var.format
            ));
        }
    }
    Ok(())
}

/// The most private memory one invocation may have.
pub const MAX_PRIVATE_SIZE: u32 = 1 << 20;

fn scalar_ok(t: super::ScalarTy) -> bool {
    use super::Kind;
    match t.kind {
        Kind::B => t.bits == 32,
        Kind::F => matches!(t.bits, 16 | 32 | 64),
        Kind::U | Kind::S => matches!(t.bits, 8 | 16 | 32 | 64),
    }
}

/// Scalar types an instruction names.
fn types_of(inst: &Inst) -> Vec<super::ScalarTy> {
    use Inst::*;
    match inst {
        Un { ty, .. }
        | Bin { ty, .. }
        | Mad { ty, .. }
        | Cmp { ty, .. }
        | SetCc { ty, .. }
        | SetCcAdd { ty, .. } => {
            vec![ty.scalar]
        }
        BitfieldExtract { ty, .. } | BitfieldInsert { ty, .. } => vec![ty.scalar],
        Convert { from, to, .. } | ConvertRounded { from, to, .. } => vec![*from, *to],
        Load { ty, .. } | Store { ty, .. } => vec![ty.scalar],
        Atomic { ty, .. } => vec![*ty],
        Subgroup { ty, .. } => vec![ty.scalar],
        _ => vec![],
    }
}

/// The lane count an instruction names, if any.
fn lanes_of(inst: &Inst) -> Option<u8> {
    use Inst::*;
    match inst {
        Un { ty, .. }
        | Bin { ty, .. }
        | Mad { ty, .. }
        | Cmp { ty, .. }
        | SetCc { ty, .. }
        | SetCcAdd { ty, .. } => Some(ty.lanes),
        BitfieldExtract { ty, .. } | BitfieldInsert { ty, .. } => Some(ty.lanes),
        Select { lanes, .. }
        | MarkUndefined { lanes, .. }
        | Convert { lanes, .. }
        | ConvertRounded { lanes, .. }
        | ShuffleGlsl { lanes, .. }
        | Derivative { lanes, .. } => Some(*lanes),
        Load { ty, .. } | Store { ty, .. } => Some(ty.lanes),
        Subgroup { ty, .. } => Some(ty.lanes),
        _ => None,
    }
}

/// Registers an instruction names (for range checks).
pub fn regs_of(inst: &Inst) -> Vec<u32> {
    use Inst::*;
    let mut v = Vec::with_capacity(4);
    let mut s = |r: super::Reg| v.push(r.0);
    match inst {
        Mov { dst, a }
        | Un { dst, a, .. }
        | Convert { dst, a, .. }
        | ConvertRounded { dst, a, .. }
        | Pack64 { dst, a }
        | Unpack64 { dst, a } => {
            s(dst.reg);
            s(a.reg)
        }
        Bin { dst, a, b, .. } | Cmp { dst, a, b, .. } => {
            s(dst.reg);
            s(a.reg);
            s(b.reg)
        }
        Mad { dst, a, b, c, .. } => {
            s(dst.reg);
            s(a.reg);
            s(b.reg);
            s(c.reg)
        }
        Select {
            dst, cond, a, b, ..
        } => {
            s(dst.reg);
            s(cond.reg);
            s(a.reg);
            s(b.reg)
        }
        BitfieldExtract {
            dst,
            a,
            offset,
            width,
            ..
        } => {
            s(dst.reg);
            s(a.reg);
            s(offset.reg);
            s(width.reg)
        }
        BitfieldInsert {
            dst,
            base,
            insert,
            offset,
            width,
            ..
        } => {
            s(dst.reg);
            s(base.reg);
            s(insert.reg);
            s(offset.reg);
            s(width.reg)
        }
        ExtractDyn { dst, vec, idx } => {
            s(dst.reg);
            s(vec.reg);
            s(idx.reg)
        }
        InsertDyn { dst, vec, val, idx } => {
            s(dst.reg);
            s(vec.reg);
            s(val.reg);
            s(idx.reg)
        }
        Builtin { dst, .. } => s(dst.reg),
        MarkUndefined { dst, cond, .. } => {
            s(dst.reg);
            s(cond.reg)
        }
        SetCc { dst, a, .. } => {
            s(dst.reg);
            s(a.reg)
        }
        SetCcAdd { dst, a, b, .. } => {
            s(dst.reg);
            s(a.reg);
            s(b.reg)
        }
        TestCc { dst, cc, .. } => {
            s(dst.reg);
            s(cc.reg)
        }
        Load { dst, addr, .. } => {
            s(dst.reg);
            s(addr.reg)
        }
        Store { addr, val, .. } => {
            s(addr.reg);
            s(val.reg)
        }
        Atomic {
            dst, addr, a, b, ..
        } => {
            if let Some(d) = dst {
                s(d.reg)
            }
            s(addr.reg);
            s(a.reg);
            s(b.reg)
        }
        ShuffleAsm {
            dst,
            val,
            index,
            mask,
            ..
        } => {
            s(dst.reg);
            s(val.reg);
            s(index.reg);
            s(mask.reg)
        }
        ShuffleGlsl {
            dst,
            valid,
            val,
            index,
            width,
            ..
        } => {
            s(dst.reg);
            if let Some(d) = valid {
                s(d.reg)
            }
            s(val.reg);
            s(index.reg);
            s(width.reg)
        }
        Subgroup { dst, a, b, .. } => {
            if let Some(d) = dst {
                s(d.reg)
            }
            s(a.reg);
            s(b.reg)
        }
        Derivative { dst, a, .. } => {
            s(dst.reg);
            s(a.reg)
        }
        Image(im) => {
            if let Some(d) = im.dst {
                s(d.reg)
            }
            s(im.unit.reg);
            s(im.coord.reg);
            s(im.a.reg);
            s(im.b.reg)
        }
        If { cond, .. } => s(cond.reg),
        Loop { count: Some(c), .. } => s(c.reg),
        _ => {}
    }
    v
}
