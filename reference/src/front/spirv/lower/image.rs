//! Storage images (OpTypeImage with Sampled 2, in UniformConstant variables): OpLoad of an image
//! variable, OpImageRead, OpImageWrite, OpImageQuerySize, and OpImageTexelPointer with the
//! atomics on the pointer it gives, lowered to `Inst::Image` (the executor's side:
//! `exec::image`). The image unit is the variable's Binding (ARB_gl_spirv: a UniformConstant
//! image's unit comes from its Binding decoration). Sampled images, samplers, multisample and
//! cube images, and images passed to functions are refused by name.

use super::{Fcx, Lowerer, Val, R};
use crate::ir::image::{Format, ImageDim, ImageInst, ImageOp, ImageVar};
use crate::ir::{AtomicOp, Dst, Inst, Kind, ScalarTy, Src};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Decoration, Op, Word};

/// A storage image: what its type declares and the unit its variable is bound to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ImageRef {
    pub var: ImageVar,
    pub unit: u32,
}

/// The IR format of a SPIR-V Image Format (None: Unknown, an image used without a format).
fn format_of(f: spirv::ImageFormat) -> Option<Format> {
    use spirv::ImageFormat as S;
    let name = match f {
        S::Unknown => return None,
        S::Rgba32f => "rgba32f",
        S::Rgba16f => "rgba16f",
        S::Rg32f => "rg32f",
        S::Rg16f => "rg16f",
        S::R11fG11fB10f => "r11f_g11f_b10f",
        S::R32f => "r32f",
        S::R16f => "r16f",
        S::Rgba32ui => "rgba32ui",
        S::Rgba16ui => "rgba16ui",
        S::Rgb10a2ui => "rgb10_a2ui",
        S::Rgba8ui => "rgba8ui",
        S::Rg32ui => "rg32ui",
        S::Rg16ui => "rg16ui",
        S::Rg8ui => "rg8ui",
        S::R32ui => "r32ui",
        S::R16ui => "r16ui",
        S::R8ui => "r8ui",
        S::Rgba32i => "rgba32i",
        S::Rgba16i => "rgba16i",
        S::Rgba8i => "rgba8i",
        S::Rg32i => "rg32i",
        S::Rg16i => "rg16i",
        S::Rg8i => "rg8i",
        S::R32i => "r32i",
        S::R16i => "r16i",
        S::R8i => "r8i",
        S::Rgba16 => "rgba16",
        S::Rgb10A2 => "rgb10_a2",
        S::Rgba8 => "rgba8",
        S::Rg16 => "rg16",
        S::Rg8 => "rg8",
        S::R16 => "r16",
        S::R8 => "r8",
        S::Rgba16Snorm => "rgba16_snorm",
        S::Rgba8Snorm => "rgba8_snorm",
        S::Rg16Snorm => "rg16_snorm",
        S::Rg8Snorm => "rg8_snorm",
        S::R16Snorm => "r16_snorm",
        S::R8Snorm => "r8_snorm",
        _ => return None,
    };
    Format::parse(name)
}

impl<'a, 'm> Lowerer<'a, 'm> {
    /// The storage image a UniformConstant variable `id` of type `pointee` is: Ok(None) when
    /// the type is not an image, Err(why) for an image the reference does not model.
    pub(super) fn image_variable(
        &self,
        id: Word,
        pointee: Word,
    ) -> Result<Option<ImageRef>, String> {
        let Some(t) = self
            .info
            .module
            .types_global_values
            .iter()
            .find(|t| t.result_id == Some(pointee))
        else {
            return Ok(None);
        };
        if t.class.opcode != Op::TypeImage {
            return Ok(None);
        }
        let lit = |i: usize| match t.operands.get(i) {
            Some(Operand::LiteralBit32(v)) => Some(*v),
            _ => None,
        };
        let dim = match t.operands.get(1) {
            Some(Operand::Dim(d)) => *d,
            _ => return Err("an image type without a Dim".into()),
        };
        let (arrayed, ms, sampled) = (lit(3), lit(4), lit(5));
        let dim = match (dim, arrayed) {
            (spirv::Dim::Dim1D, Some(0)) => ImageDim::D1,
            (spirv::Dim::Dim2D, Some(0)) => ImageDim::D2,
            (spirv::Dim::Dim3D, Some(0)) => ImageDim::D3,
            (spirv::Dim::Dim2D, Some(1)) => ImageDim::D2Array,
            (spirv::Dim::DimBuffer, Some(0)) => ImageDim::Buffer,
            (d, a) => {
                return Err(format!(
                    "images of Dim {d:?}{} (the plan has 1D, 2D, 3D, 2D array and buffer images)",
                    if a == Some(1) { " arrayed" } else { "" }
                ))
            }
        };
        if ms != Some(0) || sampled != Some(2) {
            return Err("sampled or multisample images (the reference models storage images: Sampled 2, MS 0)".into());
        }
        let kind = match t.operands.first().and_then(|o| match o {
            Operand::IdRef(s) => self.scalar_lanes(*s),
            _ => None,
        }) {
            Some((s, 1)) if s.bits == 32 => s.kind,
            _ => return Err("an image whose Sampled Type is not a 32-bit scalar".into()),
        };
        let format = match t.operands.get(6) {
            Some(Operand::ImageFormat(f)) => format_of(*f),
            _ => None,
        };
        if format.is_some_and(|f| f.kind() != kind) {
            return Err("an image whose format does not match its Sampled Type".into());
        }
        let unit = self.info.deco_lit(id, Decoration::Binding).unwrap_or(0);
        Ok(Some(ImageRef {
            var: ImageVar { dim, kind, format },
            unit,
        }))
    }

    /// The image operand `i` of `inst` names (a loaded image, or for OpImageTexelPointer the
    /// image variable).
    fn image_operand(&self, inst: &Instruction, i: usize) -> R<ImageRef> {
        match super::id_at(inst, i).and_then(|id| self.images.get(&id)) {
            Some(r) => Ok(*r),
            None => self.err(
                inst,
                format!("operand {i} is not a storage image the reference models"),
            ),
        }
    }

    /// Lowers `inst` when it is an image instruction; false when it is not one.
    pub(super) fn image_inst(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<bool> {
        let op = inst.class.opcode;
        match op {
            Op::Load if super::id_at(inst, 0).is_some_and(|p| self.images.contains_key(&p)) => {
                let img = self.image_operand(inst, 0)?;
                if let Some(r) = inst.result_id {
                    self.images.insert(r, img);
                }
            }
            Op::ImageRead | Op::ImageWrite | Op::ImageQuerySize | Op::ImageTexelPointer
                if !super::id_at(inst, 0).is_some_and(|i| self.images.contains_key(&i)) =>
            {
                // Not a storage image the reference models: refused as any other instruction.
                return Ok(false);
            }
            Op::ImageRead | Op::ImageWrite | Op::ImageQuerySize => {
                let img = self.image_operand(inst, 0)?;
                if inst.operands.len() > if op == Op::ImageWrite { 3 } else { 2 } {
                    return self.err(
                        inst,
                        "image operands (Lod, Sample, SignExtend, ...) on an image access",
                    );
                }
                let (iop, coord, data) = match op {
                    Op::ImageRead => (ImageOp::Load, Some(self.reg_operand(fcx, inst, 1)?), None),
                    Op::ImageWrite => (
                        ImageOp::Store,
                        Some(self.reg_operand(fcx, inst, 1)?),
                        Some(self.reg_operand(fcx, inst, 2)?),
                    ),
                    _ => (ImageOp::Size, None, None),
                };
                if img.var.format.is_none() && iop == ImageOp::Load {
                    return self.err(
                        inst,
                        "OpImageRead of an image of Unknown format (StorageImageReadWithoutFormat)",
                    );
                }
                let dst = (iop != ImageOp::Store).then(|| self.b.reg());
                let zero = self.b.interned_constant([0; 4]);
                let unit = self.cu32(u64::from(img.unit));
                let coord = coord.unwrap_or(zero);
                let data = data.unwrap_or(coord);
                self.b.push(Inst::Image(ImageInst {
                    op: iop,
                    var: img.var,
                    dst: dst.map(Dst::new),
                    unit: Src::new(unit),
                    coord: Src::new(coord),
                    a: Src::new(data),
                    b: Src::new(data),
                }));
                if let Some(d) = dst {
                    self.set(fcx, inst, Val::R(d));
                }
            }
            Op::ImageTexelPointer => {
                let img = self.image_operand(inst, 0)?;
                let coord = self.reg_operand(fcx, inst, 1)?;
                if let Some(r) = inst.result_id {
                    self.texel_ptrs.insert(r, (img, coord));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Lowers an atomic whose pointer is a texel pointer (OpImageTexelPointer); false when the
    /// pointer is not one.
    pub(super) fn image_atomic(
        &mut self,
        fcx: &mut Fcx,
        inst: &Instruction,
        op: AtomicOp,
        kind: Option<Kind>,
    ) -> R<bool> {
        let Some((img, coord)) =
            super::id_at(inst, 0).and_then(|p| self.texel_ptrs.get(&p).copied())
        else {
            return Ok(false);
        };
        let opc = inst.class.opcode;
        let atomic_format = matches!(
            img.var.format,
            Some(Format::R32ui | Format::R32i | Format::R32f)
        );
        let float_ok = img.var.kind != Kind::F || matches!(op, AtomicOp::Exch | AtomicOp::Add);
        // SMin/SMax compare signed, UMin/UMax unsigned: the image's own signedness must agree.
        let signedness_ok =
            !matches!(op, AtomicOp::Min | AtomicOp::Max) || kind.is_none_or(|k| k == img.var.kind);
        if !atomic_format
            || !float_ok
            || !signedness_ok
            || matches!(op, AtomicOp::IWrap | AtomicOp::DWrap)
        {
            return self.err(inst, format!("Op{opc:?} on a texel of an image of format {:?} (image atomics need R32ui, R32i or R32f)", img.var.format));
        }
        let ty = ScalarTy::new(img.var.kind, 32);
        let (a, b) = self.atomic_operands(fcx, inst, ty)?;
        // The old value is a scalar: only .x is written (an OpAtomicStore's is not used).
        let dst = self.b.reg();
        let unit = self.cu32(u64::from(img.unit));
        self.b.push(Inst::Image(ImageInst {
            op: ImageOp::Atomic(op),
            var: img.var,
            dst: Some(Dst::masked(dst, 1)),
            unit: Src::new(unit),
            coord: Src::new(coord),
            a: Src::new(a),
            b: Src::new(b),
        }));
        if opc != Op::AtomicStore {
            self.set(fcx, inst, Val::R(dst));
        }
        Ok(true)
    }
}
