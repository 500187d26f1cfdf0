//! Default uniforms: non-opaque UniformConstant variables (ARB_gl_spirv, "Mapping of Storage
//! Classes": a `uniform` variable outside a block is UniformConstant). Each lives in
//! [`Space::DefaultUniform`] at a natural (scalar-aligned) offset and is described to the
//! executor by [`UniformSlot`]s, one per basic-type uniform GL enumerates (GL 4.6 §7.3.1.1), so
//! the plan's `uniform` steps can set it. SPIR-V uniforms have no names in GL (ARB_gl_spirv
//! issue 23: they are set by location), so a slot is found by its `Location` decoration: an
//! array of basic types takes one location per element and a structure's or outer array's
//! inner-most members take consecutive locations, as GLSL §4.4.3 gives them. The slot names
//! (`%12`, `%12[1].f`) exist only for messages.

use super::{align_up, Lowerer, Ptr, R};
use crate::front::active::counter_entries;
use crate::front::spirv::module::{id_at, Type};
use crate::ir::{Space, UniformScalar, UniformSlot, UniformTy};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Word};

/// The reference's limit on the default-uniform space (bytes).
const MAX_UNIFORM_BYTES: u64 = 1 << 20;

impl<'a, 'm> Lowerer<'a, 'm> {
    /// Places the default uniform `id` of type `pointee` and records its slots.
    pub(super) fn default_uniform(
        &mut self,
        inst: &Instruction,
        id: Word,
        pointee: Word,
    ) -> R<Ptr> {
        let Some((size, al)) = self.size_align(pointee, 0) else {
            return self.err(inst, "default uniform of an unsupported type");
        };
        let off = align_up(self.uniform_top, al.max(4));
        let end = off.saturating_add(size);
        if end > MAX_UNIFORM_BYTES {
            return self.err(
                inst,
                format!("default uniforms of more than the reference's {MAX_UNIFORM_BYTES} bytes"),
            );
        }
        let mut next = self.info.deco_lit(id, Decoration::Location);
        let mut slots = Vec::new();
        self.uniform_slots(
            inst,
            &format!("%{id}"),
            pointee,
            off,
            &mut next,
            &mut slots,
            0,
        )?;
        if let Some(init) = id_at(inst, 1) {
            // ARB_gl_spirv: "Uniforms support constant initializers".
            let bytes = self.initial_bytes(inst, pointee, init)?;
            let at = off as usize;
            if self.uniform_init.len() < at + bytes.len() {
                self.uniform_init.resize(at + bytes.len(), 0);
            }
            self.uniform_init[at..at + bytes.len()].copy_from_slice(&bytes);
        }
        self.uniform_top = end;
        self.active.declare(id, slots.len() as u32);
        self.uniform_slots.extend(slots);
        Ok(Ptr {
            base: super::Base::Mem(Space::DefaultUniform),
            off,
            dynoff: None,
            ty: pointee,
            mstride: None,
        })
    }

    /// Records the atomic counter variable `id` of type `pointee` for ACTIVE_UNIFORMS: GL
    /// enumerates a counter or an array of counters as one uniform, and an array of arrays as
    /// one per inner-most array (GL 4.6 §7.3.1.1).
    pub(super) fn counter_uniforms(&mut self, id: Word, pointee: Word) {
        let mut t = pointee;
        let mut dims = Vec::new();
        while let Some(Type::Array { elem, len }) = self.info.ty(t) {
            if dims.len() > 64 {
                break;
            }
            dims.push(*len);
            t = *elem;
        }
        self.active.declare(id, counter_entries(&dims));
    }

    /// Notes the uniform variables `inst` references (for ACTIVE_UNIFORMS).
    pub(super) fn note_uniform_references(&mut self, inst: &Instruction) {
        for op in &inst.operands {
            if let Operand::IdRef(id) = op {
                self.active.reference(id);
            }
        }
    }

    /// The bytes of the constant `init` as a default uniform of scalar or vector type `ty`
    /// stores them (booleans as a 32-bit 0 or 1).
    fn initial_bytes(&self, inst: &Instruction, ty: Word, init: Word) -> R<Vec<u8>> {
        let (Some((t, _)), Some(lanes)) = (self.uniform_basic(ty), self.consts.get(&init)) else {
            return self.err(inst, "a default uniform initializer that is not a scalar or vector constant is not supported by the reference");
        };
        if t.columns != 1 || lanes.len() != usize::from(t.rows) {
            return self.err(inst, "a default uniform initializer that is not a scalar or vector constant is not supported by the reference");
        }
        let size = t.scalar.size() as usize;
        Ok(lanes
            .iter()
            .flat_map(|v| v.to_le_bytes().into_iter().take(size))
            .collect())
    }

    /// The scalar of a basic uniform type (bool, 32/64-bit int and float), if it is one.
    fn uniform_scalar(&self, ty: Word) -> Option<UniformScalar> {
        Some(match self.info.ty(ty)? {
            Type::Bool => UniformScalar::Bool,
            Type::Float { bits: 32 } => UniformScalar::F32,
            Type::Float { bits: 64 } => UniformScalar::F64,
            Type::Int { bits: 32, signed } => {
                if *signed {
                    UniformScalar::I32
                } else {
                    UniformScalar::U32
                }
            }
            Type::Int { bits: 64, signed } => {
                if *signed {
                    UniformScalar::I64
                } else {
                    UniformScalar::U64
                }
            }
            _ => return None,
        })
    }

    /// `(type, column stride)` of a scalar, vector or matrix type.
    fn uniform_basic(&self, ty: Word) -> Option<(UniformTy, u32)> {
        let vector = |t: Word| -> Option<(UniformScalar, u8)> {
            match self.info.ty(t)? {
                Type::Vector { elem, n } => Some((self.uniform_scalar(*elem)?, *n)),
                _ => Some((self.uniform_scalar(t)?, 1)),
            }
        };
        match self.info.ty(ty)? {
            Type::Matrix { col, n } => {
                let (scalar, rows) = vector(*col)?;
                let (s, a) = self.size_align(*col, 1)?;
                let stride = u32::try_from(align_up(s, a)).ok()?;
                Some((
                    UniformTy {
                        scalar,
                        columns: *n,
                        rows,
                    },
                    stride,
                ))
            }
            _ => {
                let (scalar, rows) = vector(ty)?;
                Some((
                    UniformTy {
                        scalar,
                        columns: 1,
                        rows,
                    },
                    0,
                ))
            }
        }
    }

    /// The slots of a uniform named `name` of type `ty` at byte `off`, with the locations GLSL
    /// §4.4.3 gives them from `next`.
    #[allow(clippy::too_many_arguments)]
    fn uniform_slots(
        &self,
        inst: &Instruction,
        name: &str,
        ty: Word,
        off: u64,
        next: &mut Option<u32>,
        out: &mut Vec<UniformSlot>,
        depth: u32,
    ) -> R<()> {
        let mut take = |n: u64| {
            let at = *next;
            *next = next.map(|l| l.saturating_add(u32::try_from(n).unwrap_or(u32::MAX)));
            at
        };
        let off32 = |o: u64| u32::try_from(o).unwrap_or(u32::MAX);
        if depth > 64 || out.len() > 4096 {
            return self.err(
                inst,
                "default uniform with too many parts for the reference",
            );
        }
        if let Some((t, column_stride)) = self.uniform_basic(ty) {
            let (size, _) = self.size_align(ty, 0).unwrap_or((0, 0));
            out.push(UniformSlot {
                name: name.to_string(),
                location: take(1),
                ty: t,
                array: None,
                offset: off32(off),
                stride: off32(size),
                column_stride,
            });
            return Ok(());
        }
        match self.info.ty(ty).cloned() {
            Some(Type::Array { elem, len }) => {
                let Some(stride) = self.array_stride(ty, 0) else {
                    return self.err(inst, "default uniform array of an unsupported type");
                };
                if let Some((t, column_stride)) = self.uniform_basic(elem) {
                    out.push(UniformSlot {
                        name: name.to_string(),
                        location: take(len),
                        ty: t,
                        array: Some(u32::try_from(len).unwrap_or(u32::MAX)),
                        offset: off32(off),
                        stride: off32(stride),
                        column_stride,
                    });
                    return Ok(());
                }
                for i in 0..len {
                    let at = off.saturating_add(i.saturating_mul(stride));
                    let n = format!("{name}[{i}]");
                    self.uniform_slots(inst, &n, elem, at, next, out, depth + 1)?;
                }
                Ok(())
            }
            Some(Type::Struct { members }) => {
                for (m, mty) in members.iter().enumerate() {
                    let Some(o) = self.member_offset(ty, m as u32, 0) else {
                        return self.err(inst, "default uniform structure of an unsupported type");
                    };
                    let n = format!("{name}.{m}");
                    let at = off.saturating_add(o);
                    self.uniform_slots(inst, &n, *mty, at, next, out, depth + 1)?;
                }
                Ok(())
            }
            _ => self.err(
                inst,
                format!(
                    "default uniform of type {} (the reference models bool, 32- and 64-bit scalars, vectors, matrices, and arrays and structures of them)",
                    self.info.ty_name(ty)
                ),
            ),
        }
    }
}

#[cfg(test)]
#[path = "uniforms_tests.rs"]
mod tests;
