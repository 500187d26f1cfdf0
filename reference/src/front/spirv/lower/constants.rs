//! Constants and specialization constants: OpConstant*, OpConstantComposite / Null, OpUndef and
//! the spec constants (OpSpecConstant / True / False / Composite with their SpecId overrides,
//! OpSpecConstantOp folded while lowering), each held in an interned constant register; and the
//! lengths of array types, which name constants.

use super::{Lowerer, Val, R};
use crate::front::spirv::module::{id_at, Type};
use crate::ir::{BinOp, CmpOp, Kind, ScalarTy};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, Word};

impl<'a, 'm> Lowerer<'a, 'm> {
    fn spec_default(&self, inst: &Instruction) -> Option<u32> {
        let id = inst.result_id?;
        let sid = self.info.deco_lit(id, Decoration::SpecId)?;
        self.spec.get(&sid).copied()
    }

    pub(super) fn lower_constants(&mut self) -> R<()> {
        let module = self.info.module;
        for inst in &module.types_global_values {
            let op = inst.class.opcode;
            if op == Op::TypeArray {
                let id = inst.result_id.unwrap_or(0);
                let len_id = id_at(inst, 1).unwrap_or(0);
                let Some(len) = self.consts.get(&len_id).and_then(|v| v.first().copied()) else {
                    return self.err(inst, "array length is not a known constant");
                };
                if let Some(Type::Array { len: l, .. }) = self.info.types.get_mut(&id) {
                    *l = len;
                }
                continue;
            }
            let (Some(id), Some(rt)) = (inst.result_id, inst.result_type) else {
                continue;
            };
            let vals: Option<Vec<u64>> = match op {
                Op::Constant | Op::SpecConstant => {
                    let mask = self.scalar_lanes(rt).map(|(s, _)| s.mask()).unwrap_or(0);
                    let lit = match inst.operands.first() {
                        Some(Operand::LiteralBit32(v)) => u64::from(*v),
                        Some(Operand::LiteralBit64(v)) => *v,
                        _ => return self.err(inst, "constant without a literal value"),
                    };
                    let v = match (op, self.spec_default(inst)) {
                        (Op::SpecConstant, Some(o)) => u64::from(o),
                        _ => lit,
                    };
                    Some(vec![v & mask])
                }
                Op::ConstantTrue | Op::ConstantFalse => {
                    Some(vec![u64::from(op == Op::ConstantTrue)])
                }
                Op::SpecConstantTrue | Op::SpecConstantFalse => {
                    let d = op == Op::SpecConstantTrue;
                    Some(vec![u64::from(match self.spec_default(inst) {
                        Some(o) => o != 0,
                        None => d,
                    })])
                }
                Op::ConstantComposite | Op::SpecConstantComposite => {
                    if matches!(self.ty(rt), Type::Vector { .. }) {
                        let mut v = Vec::new();
                        for o in &inst.operands {
                            let Some(c) = o.id_ref_any() else { continue };
                            match self.consts.get(&c) {
                                Some(x) => v.extend_from_slice(x),
                                None => return self.err(inst, "composite of unknown constants"),
                            }
                        }
                        Some(v)
                    } else {
                        let mut parts = Vec::new();
                        for o in &inst.operands {
                            let Some(c) = o.id_ref_any() else { continue };
                            match self.globals.get(&c) {
                                Some(x) => parts.push(x.clone()),
                                None => return self.err(inst, "composite of unknown constants"),
                            }
                        }
                        self.globals.insert(id, Val::C(parts));
                        None
                    }
                }
                Op::ConstantNull => match self.scalar_lanes(rt) {
                    Some((_, n)) => Some(vec![0; n as usize]),
                    None => {
                        let Some(z) = self.zero_val(rt, 0) else {
                            return self.err(inst, "OpConstantNull of an unsupported type");
                        };
                        self.globals.insert(id, z);
                        None
                    }
                },
                Op::SpecConstantOp => Some(vec![self.fold_spec_op(inst, rt)?]),
                Op::Undef => match self.scalar_lanes(rt) {
                    // A register of its own, not a constant: 0, marked undefined when the
                    // program starts (`emit_code`), so every use of it is flagged.
                    Some((_, n)) => {
                        let r = self.b.constant([0; 4]);
                        self.undefs.push((r, n));
                        self.globals.insert(id, Val::R(r));
                        None
                    }
                    // A composite: every scalar, vector and column a register of its own,
                    // marked likewise.
                    None => {
                        let undef = |s: &mut Self| {
                            let r = s.b.constant([0; 4]);
                            s.undefs.push((r, 4));
                            r
                        };
                        if let Some(v) = self.val_of_type(rt, 0, undef) {
                            self.globals.insert(id, v);
                        }
                        None
                    }
                },
                _ => None,
            };
            if let Some(v) = vals {
                if v.len() > 4 {
                    return self.err(inst, "vector constant with more than 4 components");
                }
                let mut w = [0u64; 4];
                w[..v.len()].copy_from_slice(&v);
                let r = self.b.interned_constant(w);
                self.consts.insert(id, v);
                self.globals.insert(id, Val::R(r));
            }
        }
        Ok(())
    }

    fn fold_spec_op(&self, inst: &Instruction, rt: Word) -> R<u64> {
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = inst.operands.first() else {
            return self.err(inst, "OpSpecConstantOp without an opcode");
        };
        let Some((rs, 1)) = self.scalar_lanes(rt) else {
            return self.err(
                inst,
                "OpSpecConstantOp on a non-scalar type is not supported",
            );
        };
        let arg = |i: usize| -> R<(u64, ScalarTy)> {
            let id = id_at(inst, i).unwrap_or(0);
            let v = self.consts.get(&id).and_then(|v| v.first().copied());
            let t = self
                .info
                .type_of
                .get(&id)
                .and_then(|t| self.scalar_lanes(*t));
            match (v, t) {
                (Some(v), Some((t, 1))) => Ok((v, t)),
                _ => self.err(
                    inst,
                    "OpSpecConstantOp operand is not a known scalar constant",
                ),
            }
        };
        use crate::exec::values as ev;
        let u = |s: ScalarTy| ScalarTy::new(Kind::U, s.bits);
        let sg = |s: ScalarTy| ScalarTy::new(Kind::S, s.bits);
        let bin = |b: BinOp, signed: bool| -> R<u64> {
            let (a, t) = arg(1)?;
            let (c, _) = arg(2)?;
            let ty = if signed { sg(t) } else { u(t) };
            // A result the specifications leave undefined is flagged where it is used at run
            // time; a constant has no use to flag, so the reference refuses to fold it.
            if let Some(why) = undefined_fold(b, ty, a, c) {
                return self.err(
                    inst,
                    format!("OpSpecConstantOp folds {why}: the reference does not choose an undefined constant"),
                );
            }
            Ok(ev::binop(b, ty, a, c))
        };
        let cmp = |c: CmpOp, signed: bool| -> R<u64> {
            let (a, t) = arg(1)?;
            let (x, _) = arg(2)?;
            Ok(u64::from(ev::cmp(
                c,
                if signed { sg(t) } else { u(t) },
                a,
                x,
            )))
        };
        Ok(match op {
            Op::IAdd => bin(BinOp::Add, false)?,
            Op::ISub => bin(BinOp::Sub, false)?,
            Op::IMul => bin(BinOp::Mul, false)?,
            Op::UDiv => bin(BinOp::Div, false)?,
            Op::SDiv => bin(BinOp::Div, true)?,
            Op::UMod => bin(BinOp::Rem, false)?,
            Op::SRem => bin(BinOp::Rem, true)?,
            Op::SMod => bin(BinOp::Mod, true)?,
            Op::ShiftLeftLogical => bin(BinOp::Shl, false)?,
            Op::ShiftRightLogical => bin(BinOp::Shr, false)?,
            Op::ShiftRightArithmetic => bin(BinOp::Shr, true)?,
            Op::BitwiseAnd | Op::LogicalAnd => bin(BinOp::And, false)?,
            Op::BitwiseOr | Op::LogicalOr => bin(BinOp::Or, false)?,
            Op::BitwiseXor => bin(BinOp::Xor, false)?,
            Op::IEqual | Op::LogicalEqual => cmp(CmpOp::Eq, false)?,
            Op::INotEqual | Op::LogicalNotEqual => cmp(CmpOp::Ne, false)?,
            Op::ULessThan => cmp(CmpOp::Lt, false)?,
            Op::SLessThan => cmp(CmpOp::Lt, true)?,
            Op::UGreaterThan => cmp(CmpOp::Gt, false)?,
            Op::SGreaterThan => cmp(CmpOp::Gt, true)?,
            Op::ULessThanEqual => cmp(CmpOp::Le, false)?,
            Op::SLessThanEqual => cmp(CmpOp::Le, true)?,
            Op::UGreaterThanEqual => cmp(CmpOp::Ge, false)?,
            Op::SGreaterThanEqual => cmp(CmpOp::Ge, true)?,
            Op::Not => {
                let (a, t) = arg(1)?;
                !a & t.mask()
            }
            Op::LogicalNot => u64::from(arg(1)?.0 == 0),
            Op::SNegate => {
                let (a, t) = arg(1)?;
                a.wrapping_neg() & t.mask()
            }
            Op::Select => {
                let (c, _) = arg(1)?;
                if c != 0 {
                    arg(2)?.0
                } else {
                    arg(3)?.0
                }
            }
            Op::UConvert => ev::convert(u(arg(1)?.1), u(rs), arg(1)?.0),
            Op::SConvert => ev::convert(sg(arg(1)?.1), sg(rs), arg(1)?.0),
            other => {
                return self.err(
                    inst,
                    format!("OpSpecConstantOp with Op{other:?} is not supported by the reference"),
                )
            }
        } & rs.mask())
    }
}

/// Why the integer `a b c` (operands as `t`) is undefined, if it is: a division or remainder
/// by zero, a signed one of the minimum by -1, an OpSRem/OpSMod with a negative operand
/// (ARB_gl_spirv A.spv.6), a shift by the width or more.
fn undefined_fold(b: BinOp, t: ScalarTy, a: u64, c: u64) -> Option<&'static str> {
    let signed = t.kind == Kind::S;
    let negative = |x: u64| signed && (x >> (t.bits - 1)) & 1 == 1;
    let min = 1u64 << (t.bits - 1);
    match b {
        BinOp::Div | BinOp::Rem | BinOp::Mod if c & t.mask() == 0 => {
            Some("a division or remainder by zero")
        }
        BinOp::Div | BinOp::Rem | BinOp::Mod
            if signed && a & t.mask() == min && c & t.mask() == t.mask() =>
        {
            Some("a signed division of the minimum integer by -1")
        }
        BinOp::Rem | BinOp::Mod if negative(a) || negative(c) => {
            Some("an OpSRem or OpSMod with a negative operand")
        }
        BinOp::Shl | BinOp::Shr if c & t.mask() >= u64::from(t.bits) => {
            Some("a shift by the bit width or more")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folds a constant cannot hold: each undefined integer operation is named, its
    /// defined neighbours fold.
    #[test]
    fn undefined_folds_are_named_and_defined_ones_are_not() {
        let (s32, u32t) = (ScalarTy::new(Kind::S, 32), ScalarTy::new(Kind::U, 32));
        let neg = |x: i32| u64::from(x as u32);
        assert!(undefined_fold(BinOp::Div, s32, 7, 0).is_some());
        assert!(undefined_fold(BinOp::Rem, u32t, 7, 0).is_some());
        assert!(undefined_fold(BinOp::Div, s32, 0x8000_0000, neg(-1)).is_some());
        assert!(undefined_fold(BinOp::Mod, s32, neg(-7), 2).is_some());
        assert!(undefined_fold(BinOp::Rem, s32, 7, neg(-2)).is_some());
        assert!(undefined_fold(BinOp::Shl, u32t, 1, 32).is_some());
        assert_eq!(undefined_fold(BinOp::Div, s32, neg(-7), 2), None);
        assert_eq!(undefined_fold(BinOp::Mod, s32, 7, 2), None);
        // OpUMod reads its operands as unsigned: no sign to be negative.
        assert_eq!(undefined_fold(BinOp::Rem, u32t, neg(-7), 2), None);
        assert_eq!(undefined_fold(BinOp::Shl, u32t, 1, 31), None);
    }
}
