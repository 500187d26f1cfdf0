//! Variables and memory: global variables by storage class (buffers, atomic counters, Workgroup
//! and Private memory, the compute built-ins as inputs), Function variables (which live in the
//! IR's private memory, like Private ones), the byte address of a pointer, access chains, and
//! loads and stores of whole values (composites one scalar or vector at a time).

use super::{align_up, Base, Fcx, Lowerer, Ptr, Val, MAX_PRIVATE_BYTES, R};
use crate::front::spirv::module::{id_at, lit_at, Type};
use crate::ir::{
    BinOp, Builtin, CmpOp, Dst, Inst, Kind, MaskKind, MemTy, ScalarTy, Space, Src, Ty,
    BLOCK_ARRAY_SHIFT,
};
use crate::LIMITS;
use conform_plan::BuildStage;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

/// The parts of a composite in memory, as loads, stores and access chains reach them.
enum Parts {
    /// Array, runtime-array or vector elements, or matrix columns, `stride` bytes apart.
    Strided { elem: Word, stride: u64 },
    /// Struct members (their types), at their Offset or natural offsets.
    Members(Vec<Word>),
}

/// An offset past all of every memory space (as GLSL's `OOB_ADDR`): where an out-of-bounds
/// index sends an access chain, so that the executor flags the access (`out-of-bounds`).
const OOB_OFFSET: u64 = 0xFFFF_FF00;

impl<'a, 'm> Lowerer<'a, 'm> {
    pub(super) fn lower_globals(
        &mut self,
        private_inits: &mut Vec<(Ptr, Word, Option<Word>)>,
    ) -> R<()> {
        let module = self.info.module;
        for inst in &module.types_global_values {
            if inst.class.opcode != Op::Variable {
                continue;
            }
            let Some((id, pointee)) = self.variable(inst)? else {
                continue;
            };
            let Some(Operand::StorageClass(sc)) = inst.operands.first() else {
                return self.err(inst, "OpVariable without a storage class");
            };
            let binding = self.info.deco_lit(id, Decoration::Binding).unwrap_or(0);
            let ptr = |base: Base, off: u64| Ptr {
                base,
                off,
                dynoff: None,
                ty: pointee,
                mstride: None,
            };
            let v = match sc {
                StorageClass::Input => {
                    let bi = self.info.decos.get(&id).and_then(|d| {
                        d.iter()
                            .find(|x| x.deco == Decoration::BuiltIn)
                            .and_then(|x| match x.args.first() {
                                Some(Operand::BuiltIn(b)) => Some(*b),
                                _ => None,
                            })
                    });
                    let which = match bi {
                        Some(BuiltIn::GlobalInvocationId) => Builtin::GlobalId,
                        Some(BuiltIn::LocalInvocationId) => Builtin::LocalId,
                        Some(BuiltIn::WorkgroupId) => Builtin::GroupId,
                        Some(BuiltIn::NumWorkgroups) => Builtin::GroupCount,
                        Some(BuiltIn::LocalInvocationIndex) => Builtin::LocalIndex,
                        Some(BuiltIn::WorkgroupSize) => Builtin::GroupSize,
                        // KHR_shader_subgroup's additions to Table C.1.
                        Some(BuiltIn::SubgroupSize) => Builtin::SubgroupSize,
                        Some(BuiltIn::SubgroupLocalInvocationId) => Builtin::SubgroupInvocationId,
                        Some(BuiltIn::NumSubgroups) => Builtin::NumSubgroups,
                        Some(BuiltIn::SubgroupId) => Builtin::SubgroupId,
                        Some(BuiltIn::SubgroupEqMask) => Builtin::SubgroupMask(MaskKind::Eq),
                        Some(BuiltIn::SubgroupGeMask) => Builtin::SubgroupMask(MaskKind::Ge),
                        Some(BuiltIn::SubgroupGtMask) => Builtin::SubgroupMask(MaskKind::Gt),
                        Some(BuiltIn::SubgroupLeMask) => Builtin::SubgroupMask(MaskKind::Le),
                        Some(BuiltIn::SubgroupLtMask) => Builtin::SubgroupMask(MaskKind::Lt),
                        Some(other) => {
                            return self.err(
                                inst,
                                format!("built-in {other:?} is not supported by the reference"),
                            )
                        }
                        None => {
                            return self.err(
                                inst,
                                "Input variables other than compute built-ins are not supported",
                            )
                        }
                    };
                    if matches!(which, Builtin::SubgroupMask(_))
                        && self.scalar_lanes(pointee).map(|(s, n)| (s.bits, n)) != Some((32, 4))
                    {
                        // A 64-bit mask (SPV_KHR_shader_ballot's spelling) is not modeled.
                        return self.err(
                            inst,
                            format!("built-in {bi:?} of a type other than a vector of four 32-bit integers is not supported by the reference"),
                        );
                    }
                    ptr(Base::Builtin(which), 0)
                }
                StorageClass::Uniform | StorageClass::StorageBuffer => {
                    let (block_ty, array_len) = match self.ty(pointee) {
                        Type::Array { elem, len } if (1..0xFF).contains(&len) => {
                            (elem, Some(len as u32))
                        }
                        Type::Array { elem, .. } | Type::RtArray { elem } => {
                            return self.err(
                                inst,
                                format!(
                                    "arrays of blocks of 255 or more elements or of run-time size are not supported by the reference (element %{elem})"
                                ),
                            )
                        }
                        _ => (pointee, None),
                    };
                    let storage = *sc == StorageClass::StorageBuffer
                        || self.info.has_deco(block_ty, Decoration::BufferBlock);
                    if !storage {
                        self.active.uniform_block = true;
                    }
                    let space = match (array_len, storage) {
                        // Element k is the block at binding + k, chosen by the address's high
                        // bits (`Space::BlockArray`; access chains index it with that stride).
                        (Some(len), _) => Space::BlockArray {
                            uniform: !storage,
                            first: binding,
                            len,
                        },
                        (None, true) => Space::Storage(binding),
                        (None, false) => Space::Uniform(binding),
                    };
                    ptr(Base::Mem(space), 0)
                }
                StorageClass::AtomicCounter => {
                    self.counter_uniforms(id, pointee);
                    let off = self.info.deco_lit(id, Decoration::Offset).unwrap_or(0);
                    ptr(Base::Mem(Space::AtomicCounter(binding)), u64::from(off))
                }
                StorageClass::Workgroup => {
                    let Some((size, al)) = self.size_align(pointee, 0) else {
                        return self.err(inst, "Workgroup variable of an unsupported type");
                    };
                    let off = align_up(self.shared_size, al.max(4));
                    self.shared_size = off.saturating_add(size);
                    if self.shared_size > u64::from(LIMITS.max_shared_memory_size) {
                        return self.rejected(
                            BuildStage::Link,
                            inst,
                            format!(
                                "Workgroup variables need {} bytes, more than MAX_COMPUTE_SHARED_MEMORY_SIZE ({})",
                                self.shared_size, LIMITS.max_shared_memory_size
                            ),
                        );
                    }
                    ptr(Base::Mem(Space::Shared), off)
                }
                StorageClass::UniformConstant if self.info.is_opaque(pointee) => {
                    // Storage images are modeled (`image`). Other images and samplers:
                    // declarations are fine; an instruction that uses one is refused
                    // (`Lowerer::operand`).
                    if let Ok(Some(img)) = self.image_variable(id, pointee) {
                        self.images.insert(id, img);
                    } else {
                        self.opaque.insert(id);
                    }
                    continue;
                }
                StorageClass::UniformConstant => self.default_uniform(inst, id, pointee)?,
                StorageClass::Private => {
                    let p = self.alloc_private(inst, pointee)?;
                    // Without an initializer: 0 marked undefined when the program starts.
                    private_inits.push((p.clone(), pointee, id_at(inst, 1)));
                    p
                }
                other => {
                    return self.err(
                        inst,
                        format!(
                        "variables in storage class {other:?} are not supported by the reference"
                    ),
                    )
                }
            };
            self.globals.insert(id, Val::P(v));
        }
        Ok(())
    }

    /// The result id and pointee type of an OpVariable (None when it has no result).
    pub(super) fn variable(&self, inst: &Instruction) -> R<Option<(Word, Word)>> {
        let (Some(id), Some(pt)) = (inst.result_id, inst.result_type) else {
            return Ok(None);
        };
        let Type::Pointer { pointee, .. } = self.ty(pt) else {
            return self.err(inst, "OpVariable whose type is not a pointer");
        };
        Ok(Some((id, pointee)))
    }

    pub(super) fn alloc_private(&mut self, inst: &Instruction, ty: Word) -> R<Ptr> {
        let Some((size, al)) = self.size_align(ty, 0) else {
            return self.err(inst, "variable of an unsupported type");
        };
        let off = align_up(self.private_size, al.max(4));
        self.private_size = off.saturating_add(size);
        if self.private_size > MAX_PRIVATE_BYTES {
            return self.err(
                inst,
                format!(
                    "Private/Function variables need more than the reference's {MAX_PRIVATE_BYTES} bytes per invocation"
                ),
            );
        }
        Ok(Ptr {
            base: Base::Mem(Space::Private),
            off,
            dynoff: None,
            ty,
            mstride: None,
        })
    }

    pub(super) fn addr(&mut self, p: &Ptr) -> Src {
        match p.dynoff {
            None => Src::new(self.cu32(p.off)),
            Some(d) if p.off == 0 => Src::new(d),
            Some(d) => {
                let c = self.cu32(p.off);
                let r = self.b.reg();
                self.b.bin(
                    BinOp::Add,
                    Ty::new(ScalarTy::U32, 1),
                    Dst::new(r),
                    Src::new(d),
                    Src::new(c),
                );
                Src::new(r)
            }
        }
    }

    /// Stops a load or store that nests too deep or expands to too much code.
    fn expansion_limits(&self, inst: &Instruction, depth: u32) -> R<()> {
        if depth > 64 {
            return self.err(inst, "type nesting too deep");
        }
        if self.too_big() {
            return self.err(
                inst,
                "the program expands to too much code for the reference",
            );
        }
        Ok(())
    }

    /// Stops a load or store (`what`: loading, storing) of a value of type `ty`.
    fn unsupported_value<T>(&self, inst: &Instruction, what: &str, ty: Word) -> R<T> {
        self.err(
            inst,
            format!(
                "{what} a value of type {} is not supported",
                self.info.ty_name(ty)
            ),
        )
    }

    /// How a scalar or vector of `s` lies in memory (bools as 32-bit words).
    fn mem_ty(s: ScalarTy, lanes: u8) -> MemTy {
        MemTy {
            scalar: if s.kind == Kind::B { ScalarTy::U32 } else { s },
            lanes,
            widen: false,
        }
    }

    /// The parts of the composite `t` that `p` points to: elements or columns with their
    /// stride, or members. A scalar has none (only an access chain asks).
    fn parts(&self, inst: &Instruction, p: &Ptr, t: Type) -> R<Parts> {
        Ok(match t {
            Type::Struct { members } => Parts::Members(members),
            Type::Matrix { col, .. } => Parts::Strided {
                elem: col,
                stride: self.mat_stride(p, col),
            },
            Type::Array { elem, .. }
                if matches!(p.base, Base::Mem(Space::BlockArray { .. }))
                    && p.off == 0
                    && p.dynoff.is_none()
                    && self.is_block(elem) =>
            {
                Parts::Strided {
                    elem,
                    stride: 1 << BLOCK_ARRAY_SHIFT,
                }
            }
            Type::Array { elem, .. } | Type::RtArray { elem } | Type::Vector { elem, .. } => {
                let Some(stride) = self.array_stride(p.ty, 0) else {
                    return self.err(inst, "array without a layout");
                };
                Parts::Strided { elem, stride }
            }
            _ => return self.err(inst, "access chain indexes into a scalar"),
        })
    }

    /// Pointer to part `i` (element, column or member) of the composite `p` points to.
    fn part(&self, inst: &Instruction, p: &Ptr, parts: &Parts, i: u64) -> R<Ptr> {
        match parts {
            Parts::Strided { elem, stride } => Ok(Ptr {
                off: p.off + i * stride,
                ty: *elem,
                ..p.clone()
            }),
            Parts::Members(members) => {
                let m = i as u32;
                let Some(o) = self.member_offset(p.ty, m, 0) else {
                    return self.err(inst, "struct without a layout");
                };
                Ok(Ptr {
                    off: p.off.saturating_add(o),
                    ty: members[m as usize],
                    mstride: self.member_mstride(inst, p.ty, m)?,
                    ..p.clone()
                })
            }
        }
    }

    pub(super) fn load(&mut self, inst: &Instruction, p: &Ptr, depth: u32) -> R<Val> {
        self.expansion_limits(inst, depth)?;
        if let Base::Builtin(which) = p.base {
            let r = self.b.reg();
            self.b.push(Inst::Builtin {
                dst: Dst::new(r),
                which,
            });
            let Some((_, lanes)) = self.scalar_lanes(p.ty) else {
                return self.err(inst, "built-in of an unsupported type");
            };
            if p.off == 0 && p.dynoff.is_none() {
                return Ok(Val::R(r));
            }
            if lanes != 1 {
                return self.err(
                    inst,
                    "pointer into a built-in at an offset must be to a scalar",
                );
            }
            let out = self.b.reg();
            let a = self.addr(p);
            let idx = self.b.reg();
            let two = self.cu32(2);
            self.b.bin(
                BinOp::Shr,
                Ty::new(ScalarTy::U32, 1),
                Dst::new(idx),
                a,
                Src::new(two),
            );
            self.b.push(Inst::ExtractDyn {
                dst: Dst::new(out),
                vec: Src::new(r),
                idx: Src::new(idx),
            });
            return Ok(Val::R(out));
        }
        let Base::Mem(space) = p.base else {
            return self.err(inst, "bad pointer");
        };
        if let Some((s, lanes)) = self.scalar_lanes(p.ty) {
            let dst = self.b.reg();
            let addr = self.addr(p);
            self.b
                .load(space, Self::mem_ty(s, lanes), Dst::new(dst), addr);
            return Ok(Val::R(dst));
        }
        let t = self.ty(p.ty);
        let count = match &t {
            Type::Array { len, .. } if *len <= 4096 => *len,
            Type::Matrix { n, .. } => u64::from(*n),
            Type::Struct { members } => members.len() as u64,
            _ => return self.unsupported_value(inst, "loading", p.ty),
        };
        let parts = self.parts(inst, p, t)?;
        let mut v = Vec::new();
        for i in 0..count {
            let q = self.part(inst, p, &parts, i)?;
            v.push(self.load(inst, &q, depth + 1)?);
        }
        Ok(Val::C(v))
    }

    pub(super) fn store(&mut self, inst: &Instruction, p: &Ptr, v: &Val, depth: u32) -> R<()> {
        self.expansion_limits(inst, depth)?;
        let Base::Mem(space) = p.base else {
            return self.err(inst, "store to a built-in input");
        };
        if let (Some((s, lanes)), Val::R(r)) = (self.scalar_lanes(p.ty), v) {
            let addr = self.addr(p);
            self.b
                .store(space, Self::mem_ty(s, lanes), addr, Src::new(*r));
            return Ok(());
        }
        let t = self.ty(p.ty);
        let values = match (&t, v) {
            (Type::Array { .. } | Type::Matrix { .. }, Val::C(values)) => values,
            (Type::Struct { members }, Val::C(values)) if values.len() == members.len() => values,
            _ => return self.unsupported_value(inst, "storing", p.ty),
        };
        let parts = self.parts(inst, p, t)?;
        for (i, value) in values.iter().enumerate() {
            let q = self.part(inst, p, &parts, i as u64)?;
            self.store(inst, &q, value, depth + 1)?;
        }
        Ok(())
    }

    /// OpArrayLength: the number of elements of the runtime array that ends the block
    /// `Structure` points to. The plan binds whole buffers before the first step, so the length
    /// is the build-time constant max((buffer size - array offset) / stride, 0), as GLSL's
    /// length() of the same array (ARB_shader_storage_buffer_object).
    pub(super) fn array_length(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let p = self.ptr_operand(fcx, inst, 0)?;
        let m = lit_at(inst, 1).unwrap_or(u32::MAX);
        let Base::Mem(Space::Storage(binding)) = p.base else {
            return self.err(
                inst,
                "OpArrayLength of a structure outside a storage buffer",
            );
        };
        let array = match self.ty(p.ty) {
            Type::Struct { members } => members.get(m as usize).copied(),
            _ => None,
        };
        let (Some(array), None) = (array, p.dynoff) else {
            return self.err(
                inst,
                "OpArrayLength needs a pointer to a block ending in a runtime array",
            );
        };
        let (Some(member_off), Some(stride)) =
            (self.member_offset(p.ty, m, 0), self.array_stride(array, 0))
        else {
            return self.err(inst, "runtime array without a layout");
        };
        let Some(size) = self
            .facts
            .storage_sizes
            .as_ref()
            .and_then(|s| s.get(&binding).copied())
        else {
            return self.err(
                inst,
                format!(
                    "OpArrayLength of the buffer at binding {binding}, which the plan does not bind"
                ),
            );
        };
        let n = size.saturating_sub(p.off.saturating_add(member_off)) / stride.max(1);
        let n = self.cu32(n.min(u64::from(u32::MAX)));
        let d = self.result_reg(fcx, inst);
        self.b.mov(Dst::new(d), Src::new(n));
        Ok(())
    }

    /// Whether `ty` is a block (a struct decorated Block or BufferBlock).
    fn is_block(&self, ty: Word) -> bool {
        self.info.has_deco(ty, Decoration::Block) || self.info.has_deco(ty, Decoration::BufferBlock)
    }

    pub(super) fn access_chain(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let mut p = self.ptr_operand(fcx, inst, 0)?;
        for i in 1..inst.operands.len() {
            let Some(idx_id) = id_at(inst, i) else {
                return self.err(inst, "access chain index is not an id");
            };
            let cidx = self.consts.get(&idx_id).and_then(|v| v.first().copied());
            // The element count of an array, vector or matrix (none for a runtime array and
            // an array of blocks, which the executor and the block code bound): SPIR-V
            // OpAccessChain, "it is invalid for the index to be out of bounds" (undefined
            // behaviour) is flagged by sending such an index past all memory.
            let bound = match self.ty(p.ty) {
                Type::Array { len, .. }
                    if !matches!(p.base, Base::Mem(Space::BlockArray { .. })) =>
                {
                    Some(len)
                }
                Type::Vector { n, .. } | Type::Matrix { n, .. } => Some(u64::from(n)),
                _ => None,
            };
            let parts = self.parts(inst, &p, self.ty(p.ty))?;
            match parts {
                Parts::Members(ref members) => {
                    let Some(m) = cidx.filter(|m| (*m as usize) < members.len()) else {
                        return self.err(inst, "struct index must be an in-range constant");
                    };
                    p = self.part(inst, &p, &parts, m)?;
                }
                Parts::Strided { elem, stride } => {
                    let (is, _) = self.operand_ty(inst, i)?;
                    match cidx {
                        Some(c) => {
                            let c = if is.kind == Kind::S {
                                crate::exec::values::sext(c, is.bits) as u64
                            } else {
                                c
                            };
                            let c = match p.base {
                                // An element past an array of blocks: one that names none.
                                Base::Mem(Space::BlockArray { len, .. })
                                    if stride == 1 << BLOCK_ARRAY_SHIFT && c >= u64::from(len) =>
                                {
                                    0xFF
                                }
                                _ => c,
                            };
                            if bound.is_some_and(|n| c >= n) {
                                p.off = OOB_OFFSET;
                            } else {
                                p.off = p.off.wrapping_add(c.wrapping_mul(stride)) & 0xffff_ffff;
                            }
                        }
                        None => {
                            let mut idx = self.index_operand(fcx, inst, i)?;
                            if let (Base::Mem(Space::BlockArray { len, .. }), true) =
                                (p.base, stride == 1 << BLOCK_ARRAY_SHIFT)
                            {
                                // An element index past the array is undefined: redirect it to
                                // 255 (never an element), so the executor flags the access.
                                let n = self.cu32(u64::from(len));
                                let out = self.cu32(0xFF);
                                let ok = self.b.cmp_fresh(
                                    CmpOp::Lt,
                                    Ty::new(ScalarTy::U32, 1),
                                    Src::splat(idx, 0),
                                    Src::new(n),
                                );
                                let sel = self.b.reg();
                                self.b.select(
                                    1,
                                    Dst::new(sel),
                                    Src::new(ok),
                                    Src::splat(idx, 0),
                                    Src::new(out),
                                );
                                idx = sel;
                            }
                            let sr = self.cu32(stride);
                            let t = self.b.reg();
                            self.b.bin(
                                BinOp::Mul,
                                Ty::new(ScalarTy::U32, 1),
                                Dst::new(t),
                                Src::splat(idx, 0),
                                Src::new(sr),
                            );
                            if let Some(n) = bound {
                                // Unsigned: a negative index is out of bounds too.
                                let nk = self.cu32(n);
                                let ok = self.b.cmp_fresh(
                                    CmpOp::Lt,
                                    Ty::new(ScalarTy::U32, 1),
                                    Src::splat(idx, 0),
                                    Src::new(nk),
                                );
                                let out = self.cu32(OOB_OFFSET);
                                self.b.select(
                                    1,
                                    Dst::masked(t, 1),
                                    Src::new(ok),
                                    Src::new(t),
                                    Src::new(out),
                                );
                            }
                            if let Some(d) = p.dynoff {
                                self.b.bin(
                                    BinOp::Add,
                                    Ty::new(ScalarTy::U32, 1),
                                    Dst::new(t),
                                    Src::new(t),
                                    Src::new(d),
                                );
                            }
                            p.dynoff = Some(t);
                        }
                    }
                    p.ty = elem;
                }
            }
        }
        self.set(fcx, inst, Val::P(p));
        Ok(())
    }
}
