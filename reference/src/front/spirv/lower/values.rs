//! How SPIR-V ids become IR values: reading operands (values, registers, pointers, their types,
//! constant and literal operands), recording results, and register values shaped like a type
//! or like another value (fresh registers for phis, results and returns; the zero value of
//! OpConstantNull and OpUndef; copies).

use super::{Fcx, Lowerer, Ptr, Val, R};
use crate::front::spirv::module::{id_at, Type};
use crate::ir::{Dst, Kind, Reg, ScalarTy, Src};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::Word;

impl<'a, 'm> Lowerer<'a, 'm> {
    /// Fresh registers shaped like a value of type `id` (for phis, results, returns).
    pub(super) fn alloc_val(&mut self, id: Word, depth: u32) -> Option<Val> {
        self.val_of_type(id, depth, |s| s.b.reg())
    }

    /// The zero value of a type (OpConstantNull, OpUndef).
    pub(super) fn zero_val(&mut self, id: Word, depth: u32) -> Option<Val> {
        self.val_of_type(id, depth, |s| s.b.interned_constant([0; 4]))
    }

    /// A value of type `id` that is 0 and marked undefined (`UndefinedRule::UninitializedValue`)
    /// in every scalar: what a Function variable without an initializer holds until written
    /// (SPIR-V leaves it undefined), so a load of it is flagged where its value is used.
    pub(super) fn undefined_val(&mut self, id: Word) -> Option<Val> {
        let u = self.b.reg();
        let (zero, all) = (
            self.b.interned_constant([0; 4]),
            self.b.interned_constant([1; 4]),
        );
        self.b.mov(Dst::lanes(u, 4), Src::new(zero));
        self.b
            .mark_undefined(4, u, all, crate::ir::UndefinedRule::UninitializedValue);
        self.undef_fill = u;
        self.val_of_type(id, 0, |s| s.undef_fill)
    }

    /// A value of type `id` whose scalars, vectors and matrix columns are registers from `reg`;
    /// None for a type no value is lowered to, or past the expansion limits.
    pub(super) fn val_of_type(
        &mut self,
        id: Word,
        depth: u32,
        reg: fn(&mut Self) -> Reg,
    ) -> Option<Val> {
        if depth > 64 || self.too_big() {
            return None;
        }
        Some(match self.info.ty(id)?.clone() {
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => {
                Val::R(reg(self))
            }
            Type::Array { elem, len } if len <= 4096 => Val::C(
                (0..len)
                    .map(|_| self.val_of_type(elem, depth + 1, reg))
                    .collect::<Option<_>>()?,
            ),
            Type::Matrix { n, .. } => Val::C((0..n).map(|_| Val::R(reg(self))).collect()),
            Type::Struct { members } => Val::C(
                members
                    .into_iter()
                    .map(|m| self.val_of_type(m, depth + 1, reg))
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    pub(super) fn copy_into(&mut self, dst: &Val, src: &Val) -> bool {
        match (dst, src) {
            (Val::R(d), Val::R(s)) => {
                self.b.mov(Dst::new(*d), Src::new(*s));
                true
            }
            (Val::C(d), Val::C(s)) if d.len() == s.len() => {
                d.iter().zip(s).all(|(d, s)| self.copy_into(d, s))
            }
            _ => false,
        }
    }

    pub(super) fn value(&self, fcx: &Fcx, id: Word) -> Option<Val> {
        fcx.vals.get(&id).or_else(|| self.globals.get(&id)).cloned()
    }

    pub(super) fn shape_like(&mut self, v: &Val) -> Option<Val> {
        Some(match v {
            Val::R(_) => Val::R(self.b.reg()),
            Val::C(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out.push(self.shape_like(p)?);
                }
                Val::C(out)
            }
            Val::P(_) => return None,
        })
    }

    pub(super) fn operand(&self, fcx: &Fcx, inst: &Instruction, i: usize) -> R<Val> {
        let Some(id) = id_at(inst, i) else {
            return self.err(inst, format!("operand {i} is not an id"));
        };
        match self.value(fcx, id) {
            Some(v) => Ok(v),
            None if self.opaque.contains(&id) => self.err(
                inst,
                format!(
                    "Op{:?} on an image or sampler (%{id}) is not supported: the reference models storage images (Sampled 2) of Dim 1D, 2D, 3D and arrayed 2D, not sampled or multisample images or samplers",
                    inst.class.opcode
                ),
            ),
            None => self.err(
                inst,
                format!("operand %{id} is not defined before use (or is of an unsupported kind)"),
            ),
        }
    }

    pub(super) fn reg_operand(&self, fcx: &Fcx, inst: &Instruction, i: usize) -> R<Reg> {
        match self.operand(fcx, inst, i)? {
            Val::R(r) => Ok(r),
            _ => self.err(inst, format!("operand {i} must be a scalar or vector")),
        }
    }

    pub(super) fn ptr_operand(&self, fcx: &Fcx, inst: &Instruction, i: usize) -> R<Ptr> {
        match self.operand(fcx, inst, i)? {
            Val::P(p) => Ok(p),
            _ => self.err(inst, format!("operand {i} must be a pointer")),
        }
    }

    /// Scalar type and lanes of the type of operand `i` (a value id).
    pub(super) fn operand_ty(&self, inst: &Instruction, i: usize) -> R<(ScalarTy, u8)> {
        let t = id_at(inst, i).and_then(|id| self.info.type_of.get(&id).copied());
        match t.and_then(|t| self.scalar_lanes(t)) {
            Some(x) => Ok(x),
            None => self.err(inst, format!("operand {i} is not a scalar or vector")),
        }
    }

    /// Operand `i`, an integer index of any width, as a u32 register (converted when it is not
    /// 32-bit).
    pub(super) fn index_operand(&mut self, fcx: &Fcx, inst: &Instruction, i: usize) -> R<Reg> {
        let (is, _) = self.operand_ty(inst, i)?;
        let r = self.reg_operand(fcx, inst, i)?;
        if is.bits == 32 {
            return Ok(r);
        }
        let t = self.b.reg();
        self.b.convert(
            Self::with_kind(is, Kind::U),
            ScalarTy::U32,
            1,
            Dst::new(t),
            Src::new(r),
        );
        Ok(t)
    }

    pub(super) fn result_ty(&self, inst: &Instruction) -> R<(ScalarTy, u8)> {
        match inst.result_type.and_then(|t| self.scalar_lanes(t)) {
            Some(x) => Ok(x),
            None => self.err(inst, "result type is not a scalar or vector"),
        }
    }

    pub(super) fn set(&mut self, fcx: &mut Fcx, inst: &Instruction, v: Val) {
        if let Some(id) = inst.result_id {
            fcx.vals.insert(id, v);
        }
    }

    /// A fresh register recorded as the result of `inst` (whose instruction writes it next).
    pub(super) fn result_reg(&mut self, fcx: &mut Fcx, inst: &Instruction) -> Reg {
        let d = self.b.reg();
        self.set(fcx, inst, Val::R(d));
        d
    }

    pub(super) fn with_kind(s: ScalarTy, k: Kind) -> ScalarTy {
        ScalarTy::new(k, s.bits)
    }

    pub(super) fn const_of(&self, inst: &Instruction, i: usize) -> R<u64> {
        let id = id_at(inst, i).unwrap_or(0);
        match self.consts.get(&id).and_then(|v| v.first()) {
            Some(v) => Ok(*v),
            None => self.err(inst, format!("operand {i} must be a constant")),
        }
    }

    pub(super) fn lits_from(inst: &Instruction, from: usize) -> Vec<u32> {
        inst.operands[from.min(inst.operands.len())..]
            .iter()
            .filter_map(|o| match o {
                Operand::LiteralBit32(v) => Some(*v),
                _ => None,
            })
            .collect()
    }
}
