//! Types as the lowering sees them: scalar and vector types as IR scalar types and lane counts,
//! and the byte layout of memory objects. Buffers use their Offset / ArrayStride / MatrixStride
//! decorations, Workgroup / Private / Function objects a natural layout (scalars aligned to
//! their size).

use super::{align_up, Lowerer, Ptr, R};
use crate::front::spirv::module::Type;
use crate::ir::{Kind, ScalarTy};
use rspirv::dr::Instruction;
use rspirv::spirv::{Decoration, Op, Word};

impl<'a, 'm> Lowerer<'a, 'm> {
    pub(super) fn ty(&self, id: Word) -> Type {
        self.info.ty(id).cloned().unwrap_or(Type::Other(Op::Nop))
    }

    /// Scalar type and lane count of a scalar or vector type; integers as unsigned.
    pub(super) fn scalar_lanes(&self, id: Word) -> Option<(ScalarTy, u8)> {
        let s = |t: &Type| match t {
            Type::Bool => Some(ScalarTy::BOOL),
            Type::Int { bits, signed } => Some(ScalarTy::new(
                if *signed { Kind::S } else { Kind::U },
                *bits,
            )),
            Type::Float { bits } => Some(ScalarTy::new(Kind::F, *bits)),
            _ => None,
        };
        match self.info.ty(id)? {
            Type::Vector { elem, n } if (1..=4).contains(n) => Some((s(self.info.ty(*elem)?)?, *n)),
            t => Some((s(t)?, 1)),
        }
    }

    /// `(size, align)` in bytes of a type laid out in memory.
    pub(super) fn size_align(&self, id: Word, depth: u32) -> Option<(u64, u64)> {
        if depth > 64 {
            return None;
        }
        Some(match self.info.ty(id)? {
            Type::Bool => (4, 4),
            Type::Int { bits, .. } | Type::Float { bits } => {
                let s = u64::from(*bits) / 8;
                (s, s.max(1))
            }
            Type::Vector { elem, n } => {
                let (s, a) = self.size_align(*elem, depth + 1)?;
                (s * u64::from(*n), a)
            }
            Type::Array { elem, len } => {
                let (_, a) = self.size_align(*elem, depth + 1)?;
                let stride = self.array_stride(id, depth)?;
                (stride.checked_mul(*len)?, a)
            }
            Type::RtArray { elem } => {
                let (_, a) = self.size_align(*elem, depth + 1)?;
                (0, a)
            }
            Type::Matrix { col, n } => {
                let (s, a) = self.size_align(*col, depth + 1)?;
                (align_up(s, a) * u64::from(*n), a)
            }
            Type::Struct { members } => {
                let mut end = 0u64;
                let mut al = 1u64;
                for (i, m) in members.iter().enumerate() {
                    let (s, a) = self.size_align(*m, depth + 1)?;
                    al = al.max(a);
                    let off = self.member_offset(id, i as u32, depth)?;
                    end = end.max(off.checked_add(s)?);
                }
                (align_up(end, al), al)
            }
            _ => return None,
        })
    }

    pub(super) fn array_stride(&self, id: Word, depth: u32) -> Option<u64> {
        if let Some(s) = self.info.deco_lit(id, Decoration::ArrayStride) {
            return Some(u64::from(s));
        }
        let elem = match self.info.ty(id)? {
            Type::Array { elem, .. } | Type::RtArray { elem } => *elem,
            Type::Vector { elem, .. } => return self.size_align(*elem, depth + 1).map(|x| x.0),
            _ => return None,
        };
        let (s, a) = self.size_align(elem, depth + 1)?;
        Some(align_up(s, a))
    }

    pub(super) fn member_offset(&self, id: Word, m: u32, depth: u32) -> Option<u64> {
        if let Some(o) = self.info.member_deco_lit(id, m, Decoration::Offset) {
            return Some(u64::from(o));
        }
        let Type::Struct { members } = self.info.ty(id)? else {
            return None;
        };
        let mut off = 0u64;
        for (i, mt) in members.iter().enumerate() {
            let (s, a) = self.size_align(*mt, depth + 1)?;
            off = align_up(off, a);
            if i as u32 == m {
                return Some(off);
            }
            off = off.checked_add(s)?;
        }
        None
    }

    /// Column stride of the matrix `p` points to.
    pub(super) fn mat_stride(&self, p: &Ptr, col: Word) -> u64 {
        p.mstride.unwrap_or_else(|| {
            self.size_align(col, 0)
                .map(|(s, a)| align_up(s, a))
                .unwrap_or(16)
        })
    }

    /// MatrixStride of struct member `m` (row-major matrices are refused).
    pub(super) fn member_mstride(&self, inst: &Instruction, st: Word, m: u32) -> R<Option<u64>> {
        if self
            .info
            .member_decos
            .get(&(st, m))
            .is_some_and(|d| d.iter().any(|x| x.deco == Decoration::RowMajor))
        {
            return self.err(inst, "RowMajor matrices are not supported by the reference");
        }
        Ok(self
            .info
            .member_deco_lit(st, m, Decoration::MatrixStride)
            .map(u64::from))
    }
}
