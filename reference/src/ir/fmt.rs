//! Readable listings: `Display` for [`Inst`] (compact, for traces) and [`Program`].

use super::{Dst, Inst, Kind, MemTy, Program, ScalarTy, Src, Ty};
use std::fmt;

const C: [char; 4] = ['x', 'y', 'z', 'w'];

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.reg.0)?;
        if self.swz != [0, 1, 2, 3] {
            f.write_str(".")?;
            if self.swz.iter().all(|c| *c == self.swz[0]) {
                write!(f, "{}", C[(self.swz[0] & 3) as usize])?;
            } else {
                for c in self.swz {
                    write!(f, "{}", C[(c & 3) as usize])?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for Dst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.reg.0)?;
        if self.mask != 0xF {
            f.write_str(".")?;
            for (i, c) in C.iter().enumerate() {
                if self.mask & (1 << i) != 0 {
                    write!(f, "{c}")?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for ScalarTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = match self.kind {
            Kind::U => "u",
            Kind::S => "s",
            Kind::F => "f",
            Kind::B => "bool",
        };
        if self.kind == Kind::B {
            f.write_str(k)
        } else {
            write!(f, "{k}{}", self.bits)
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lanes == 1 {
            write!(f, "{}", self.scalar)
        } else {
            write!(f, "{}x{}", self.scalar, self.lanes)
        }
    }
}

impl fmt::Display for MemTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Ty::new(self.scalar, self.lanes))
    }
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Inst::*;
        match self {
            Mov { dst, a } => write!(f, "{dst} = {a}"),
            Un { op, ty, dst, a } => write!(f, "{dst} = {op:?}.{ty} {a}"),
            Bin { op, ty, dst, a, b } => write!(f, "{dst} = {op:?}.{ty} {a}, {b}"),
            Mad { ty, dst, a, b, c } => write!(f, "{dst} = Mad.{ty} {a}, {b}, {c}"),
            Cmp { op, ty, dst, a, b } => write!(f, "{dst} = Cmp{op:?}.{ty} {a}, {b}"),
            Select {
                dst, cond, a, b, ..
            } => write!(f, "{dst} = {cond} ? {a} : {b}"),
            Convert {
                from, to, dst, a, ..
            } => write!(f, "{dst} = Convert.{from}->{to} {a}"),
            ConvertRounded {
                from,
                to,
                round,
                sat,
                dst,
                a,
                ..
            } => {
                let sat = if *sat { ".sat" } else { "" };
                write!(f, "{dst} = Convert.{from}->{to}.{round:?}{sat} {a}")
            }
            BitfieldExtract {
                ty,
                dst,
                a,
                offset,
                width,
                ..
            } => {
                write!(f, "{dst} = Bfe.{ty} {a}, offset {offset}, width {width}")
            }
            BitfieldInsert {
                ty,
                dst,
                base,
                insert,
                offset,
                width,
                ..
            } => {
                write!(
                    f,
                    "{dst} = Bfi.{ty} {base}, {insert}, offset {offset}, width {width}"
                )
            }
            Pack64 { dst, a } => write!(f, "{dst} = Pack64 {a}"),
            Unpack64 { dst, a } => write!(f, "{dst} = Unpack64 {a}"),
            ExtractDyn { dst, vec, idx } => write!(f, "{dst} = {vec}[{idx}]"),
            InsertDyn { dst, vec, val, idx } => write!(f, "{dst} = {vec} with [{idx}] = {val}"),
            Builtin { dst, which } => write!(f, "{dst} = {which:?}"),
            MarkUndefined {
                lanes,
                dst,
                cond,
                why,
            } => write!(f, "MarkUndefined.{lanes} {dst} where {cond} ({why:?})"),
            MarkPrivateUndefined { off, size } => {
                write!(f, "MarkPrivateUndefined private[{off}..+{size}]")
            }
            SetCc { ty, dst, a } => write!(f, "{dst} = CcFlags.{ty} {a}"),
            SetCcAdd { ty, sub, dst, a, b } => {
                write!(
                    f,
                    "{dst} = CcFlags.{ty} {a} {} {b}",
                    if *sub { "-" } else { "+" }
                )
            }
            TestCc { test, dst, cc } => write!(f, "{dst} = Test{test:?} {cc}"),
            Load {
                space,
                ty,
                dst,
                addr,
            } => write!(f, "{dst} = Load.{ty} {space:?}[{addr}]"),
            Store {
                space,
                ty,
                addr,
                val,
            } => write!(f, "Store.{ty} {space:?}[{addr}] = {val}"),
            Atomic {
                space,
                op,
                ty,
                dst,
                addr,
                a,
                b,
            } => {
                if let Some(d) = dst {
                    write!(f, "{d} = ")?;
                }
                write!(f, "Atomic{op:?}.{ty} {space:?}[{addr}], {a}")?;
                if matches!(op, super::AtomicOp::CmpXchg) {
                    write!(f, ", {b}")?;
                }
                Ok(())
            }
            Image(im) => {
                if let Some(d) = im.dst {
                    write!(f, "{d} = ")?;
                }
                let format = im.var.format.map_or("-", |x| x.name());
                write!(
                    f,
                    "Image{:?}.{}.{:?}.{format} unit[{}] ({})",
                    im.op,
                    im.var.dim.name(),
                    im.var.kind,
                    im.unit,
                    im.coord
                )?;
                match im.op {
                    super::ImageOp::Store | super::ImageOp::Atomic(_) => write!(f, ", {}", im.a)?,
                    _ => {}
                }
                if im.op == super::ImageOp::Atomic(super::AtomicOp::CmpXchg) {
                    write!(f, ", {}", im.b)?;
                }
                Ok(())
            }
            ControlBarrier => f.write_str("Barrier"),
            MemoryBarrier { scope } => write!(f, "MemoryBarrier.{scope:?}"),
            ShuffleAsm {
                mode,
                dst,
                val,
                index,
                mask,
                ..
            } => {
                write!(
                    f,
                    "{dst} = Shuffle{mode:?} {val}, index {index}, mask {mask}"
                )
            }
            ShuffleGlsl {
                mode,
                dst,
                valid,
                val,
                index,
                width,
                ..
            } => {
                write!(f, "{dst} = shuffle{mode:?}NV({val}, {index}, {width}")?;
                if let Some(v) = valid {
                    write!(f, ", valid -> {v}")?;
                }
                f.write_str(")")
            }
            Derivative {
                group,
                axis,
                kind,
                lanes,
                dst,
                a,
            } => write!(
                f,
                "{dst} = Derivative{kind:?}.{axis:?}.{group:?}.f32x{lanes} {a}"
            ),
            Subgroup { op, ty, dst, a, b } => {
                if let Some(d) = dst {
                    write!(f, "{d} = ")?;
                }
                write!(f, "Subgroup{op:?}.{ty} {a}, {b}")
            }
            If { cond, else_pc } => write!(f, "If {cond} else -> {else_pc}"),
            Else { end_pc } => write!(f, "Else -> {end_pc}"),
            EndIf => f.write_str("EndIf"),
            Loop {
                count: Some(c),
                end_pc,
            } => write!(f, "Loop {c} times, end {end_pc}"),
            Loop {
                count: None,
                end_pc,
            } => write!(f, "Loop, end {end_pc}"),
            EndLoop { begin_pc } => write!(f, "EndLoop -> {begin_pc}"),
            Break => f.write_str("Break"),
            Continue => f.write_str("Continue"),
            Call { target_pc } => write!(f, "Call {target_pc}"),
            Return => f.write_str("Return"),
            Exit => f.write_str("Exit"),
        }
    }
}

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
            writeln!(f, "{pc:5} (line {line:3}) {}{inst}", "  ".repeat(depth))?;
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
