//! Image variables (ARB_shader_image_load_store's GLSL section; GLSL 4.60 §4.1.7.2, §4.4.6.2,
//! §4.10): which versions have the image types, image uniforms with their unit, format
//! qualifier and memory qualifiers and the compile errors on them, and the image an image
//! function's first argument names (a uniform, or an element of a uniform array).
//!
//! An image uniform is a default-block uniform holding its image unit (an int: glUniform1i
//! sets it, GL 4.6 §7.6.1), starting at its `binding`, so an image access reads its unit
//! from [`Space::DefaultUniform`] when it runs.

use super::quals::Quals;
use super::{Lower, Sym, R};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::image::{Format, ImageDim, ImageVar};
use crate::ir::{
    BinOp, CmpOp, Dst, Kind, MemTy, ScalarTy, Space, Src, Ty as ITy, UniformScalar, UniformSlot,
    UniformTy,
};
use glsl_lang::ast::{self, ExprData};

/// An image uniform: what its variable declares, its initial unit (element k of an array
/// starts on binding + k, GLSL §4.4.6 "binding") and where its units are in the
/// default-uniform space (4 bytes per element).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ImageSym {
    pub var: ImageVar,
    pub binding: u32,
    pub offset: u32,
    /// The array length, for an array of images.
    pub len: Option<u32>,
    pub readonly: bool,
    pub writeonly: bool,
    /// A sampler (its unit is a texture unit, `var.format` None): for texelFetch, not the
    /// image functions.
    pub sampler: bool,
}

/// The format qualifiers OpenGL ES 3.1 has (ESSL 3.10 §4.4.7); the others are desktop only.
const ES_FORMATS: [Format; 13] = [
    Format::Rgba32f,
    Format::Rgba16f,
    Format::R32f,
    Format::Rgba8,
    Format::Rgba8Snorm,
    Format::Rgba32i,
    Format::Rgba16i,
    Format::Rgba8i,
    Format::R32i,
    Format::Rgba32ui,
    Format::Rgba16ui,
    Format::Rgba8ui,
    Format::R32ui,
];

fn kind_of(sc: Sc) -> Kind {
    match sc {
        Sc::Int => Kind::S,
        Sc::Uint => Kind::U,
        _ => Kind::F,
    }
}

/// The target and component type an image type name names (`uimage2DArray`), for the
/// targets images in a plan have.
pub(super) fn image_type_name(name: &str) -> Option<(ImageDim, Sc)> {
    let (sc, rest) = match name.as_bytes().first() {
        Some(b'i') if name.starts_with("iimage") => (Sc::Int, &name[6..]),
        Some(b'u') => (Sc::Uint, name.strip_prefix("uimage")?),
        _ => (Sc::Float, name.strip_prefix("image")?),
    };
    let dim = match rest {
        "1D" => ImageDim::D1,
        "2D" => ImageDim::D2,
        "3D" => ImageDim::D3,
        "2DArray" => ImageDim::D2Array,
        "Buffer" => ImageDim::Buffer,
        _ => return None,
    };
    Some((dim, sc))
}

impl<'a> Lower<'a> {
    /// The image type `dim`/`sc`, where the version or an extension has images (GLSL 4.20,
    /// GL_ARB_shader_image_load_store, ESSL 3.10; 1D images are desktop only; ESSL has buffer
    /// images from 3.20: GL_OES/EXT_texture_buffer, which add them to 3.10, are not modelled).
    pub(super) fn image_type(&mut self, dim: ImageDim, sc: Sc) -> R<Ty> {
        let ty = Ty::Image(dim, sc);
        let p = self.shaders[self.cur].parsed;
        let version = p.version.unwrap_or(110);
        let has = if p.es {
            match dim {
                ImageDim::D1 => false,
                ImageDim::Buffer => version >= 320,
                _ => version >= 310,
            }
        } else {
            version >= 420 || self.has_ext("GL_ARB_shader_image_load_store")
        };
        if !has && p.es && dim == ImageDim::Buffer {
            return self.err(format!(
                "'{ty}' : undeclared type (buffer images need #version 320 es)"
            ));
        }
        if !has {
            return self.err(format!(
                "'{ty}' : undeclared type (images need #version 420, #extension GL_ARB_shader_image_load_store or #version 310 es)"
            ));
        }
        Ok(ty)
    }

    /// The sampler type `dim`/`sc`, where the version has it (GLSL 1.30 for integer and
    /// array samplers; OpenGL ES has no 1D ones).
    pub(super) fn sampler_type(&mut self, dim: ImageDim, sc: Sc) -> R<Ty> {
        let ty = Ty::Sampler(dim, sc);
        let p = self.shaders[self.cur].parsed;
        let version = p.version.unwrap_or(110);
        let newer = sc != Sc::Float || dim == ImageDim::D2Array;
        if (p.es && dim == ImageDim::D1) || (!p.es && newer && version < 130) {
            return self.err(format!("'{ty}' : undeclared type"));
        }
        Ok(ty)
    }

    /// The compile error for memory qualifiers on a variable that is neither an image nor in a
    /// buffer block (GLSL 4.60 §4.10: "Memory qualifiers are only supported in the declarations
    /// of image variables, buffer variables, and shader storage blocks").
    pub(super) fn memory_qualifiers_on(&self, name: &str, ty: &Ty, q: &Quals) -> R<()> {
        let memory = q.readonly || q.writeonly || q.coherent_volatile_restrict;
        if memory && !ty.is_image() && !q.buffer {
            return self.err(format!(
                "'{name}' : memory qualifiers (coherent, volatile, restrict, readonly, writeonly) apply only to images and buffer variables"
            ));
        }
        Ok(())
    }

    /// Declares the image uniform (or array of image uniforms) `name` of type `ty`.
    pub(super) fn image_uniform(&mut self, name: &str, ty: &Ty, q: &Quals) -> R<()> {
        let (elem, len) = match ty {
            Ty::Array(e, Some(n)) => (&**e, Some(*n)),
            t => (t, None),
        };
        let (dim, sc) = match elem {
            Ty::Image(dim, sc) => (dim, sc),
            Ty::Sampler(dim, sc) => return self.sampler_uniform(name, ty, *dim, *sc, len, q),
            _ => return self.unsup(format!("'{name}' : arrays of arrays of images")),
        };
        let formats: Vec<(Format, usize)> = q
            .layout
            .iter()
            .filter_map(|(n, _, off)| Format::parse(n).map(|f| (f, *off)))
            .collect();
        if formats.len() > 1 {
            self.off = formats[1].1;
            return self.err(format!(
                "'{name}' : only one format layout qualifier may be specified"
            ));
        }
        let format = formats.first().map(|f| f.0);
        let es = self.shaders[self.cur].parsed.es;
        if let Some(f) = format {
            if f.kind() != kind_of(*sc) {
                let what = match sc {
                    Sc::Int => "signed integer",
                    Sc::Uint => "unsigned integer",
                    _ => "floating point",
                };
                return self.err(format!("'{}' : does not apply to {what} images", f.name()));
            }
            if es && !ES_FORMATS.contains(&f) {
                return self.err(format!(
                    "'{}' : format layout qualifier not in OpenGL ES",
                    f.name()
                ));
            }
        }
        // "Uniforms not qualified with writeonly must have a format layout qualifier."
        if format.is_none() && !q.writeonly {
            return self.err(format!(
                "'{name}' : image variables not declared 'writeonly' need a format layout qualifier"
            ));
        }
        // ESSL 3.10 §4.7.4: image types have no default precision, so an image declaration
        // needs a precision qualifier or an earlier `precision ... imageXX;` statement.
        if es && !q.precision && !self.default_precision_before(ty) {
            return self.err(format!(
                "'{name}' : type {elem} requires a precision qualifier (no default precision for image types in OpenGL ES)"
            ));
        }
        // ESSL 3.10 §4.10: "Except for image variables qualified with the format qualifiers
        // r32f, r32i, and r32ui, image variables must specify either memory qualifier
        // readonly or the memory qualifier writeonly."
        let r32 = matches!(format, Some(Format::R32f | Format::R32i | Format::R32ui));
        if es && !r32 && !q.readonly && !q.writeonly {
            return self.err(format!(
                "'{name}' : an image without an r32 format must be readonly or writeonly in OpenGL ES"
            ));
        }
        let var = ImageVar {
            dim: *dim,
            kind: kind_of(*sc),
            format,
        };
        let sym = ImageSym {
            var,
            binding: q.binding.unwrap_or(0),
            offset: 0,
            len,
            readonly: q.readonly,
            writeonly: q.writeonly,
            sampler: false,
        };
        self.unit_uniform(name, sym, q)
    }

    /// Declares the sampler uniform (or array of them) `name` of type `ty` (GLSL 4.60 §4.1.7.1:
    /// it holds a texture unit, set by `binding` or glUniform1i).
    fn sampler_uniform(
        &mut self,
        name: &str,
        ty: &Ty,
        dim: ImageDim,
        sc: Sc,
        len: Option<u32>,
        q: &Quals,
    ) -> R<()> {
        if let Some((f, _, off)) = q.layout.iter().find(|(n, _, _)| Format::parse(n).is_some()) {
            self.off = *off;
            return self.err(format!(
                "'{f}' : format layout qualifiers apply to images only"
            ));
        }
        // ESSL 3.10 §4.7.4: compute shaders predeclare `precision lowp sampler2D` (and
        // samplerCube) only; other sampler types need a precision.
        let es = self.shaders[self.cur].parsed.es;
        let predeclared = dim == ImageDim::D2 && sc == Sc::Float;
        if es && !q.precision && !predeclared && !self.default_precision_before(ty) {
            return self.err(format!(
                "'{name}' : type {ty} requires a precision qualifier (no default precision for it in OpenGL ES)"
            ));
        }
        let sym = ImageSym {
            var: ImageVar {
                dim,
                kind: kind_of(sc),
                format: None,
            },
            binding: q.binding.unwrap_or(0),
            offset: 0,
            len,
            readonly: false,
            writeonly: false,
            sampler: true,
        };
        self.unit_uniform(name, sym, q)
    }

    /// Declares an image or sampler uniform: its unit (initially `binding`, element k of an
    /// array `binding + k`) in the default-uniform space.
    fn unit_uniform(&mut self, name: &str, mut sym: ImageSym, q: &Quals) -> R<()> {
        let (var, len, binding) = (sym.var, sym.len, sym.binding);
        // The same uniform declared by another shader of the program is one uniform.
        if let Some(Sym::Image(prev)) = self.scopes[0].get(name) {
            let same = prev.var == var
                && prev.len == len
                && prev.binding == binding
                && prev.sampler == sym.sampler;
            if same && self.global_owner.get(name) != Some(&self.cur) {
                return Ok(());
            }
        }
        let offset = self.uniform_top.div_ceil(4).saturating_mul(4);
        self.uniform_top = offset.saturating_add(4 * len.unwrap_or(1));
        self.uniform_slots.push(UniformSlot {
            name: name.to_string(),
            location: q.location_value(),
            ty: UniformTy {
                scalar: UniformScalar::ImageUnit { binding },
                columns: 1,
                rows: 1,
            },
            array: len,
            offset,
            stride: 4,
            column_stride: 0,
        });
        sym.offset = offset;
        self.declare(name, Sym::Image(sym))
    }

    /// Whether a global `precision` statement for the image type of `ty` (an image or array of
    /// them) stands before the current declaration in the current shader.
    fn default_precision_before(&self, ty: &Ty) -> bool {
        let mut elem = ty;
        while let Ty::Array(e, _) = elem {
            elem = e;
        }
        let want = elem.to_string().to_ascii_lowercase();
        self.shaders[self.cur].parsed.tu.0.iter().any(|ed| {
            let ast::ExternalDeclarationData::Declaration(d) = &**ed else {
                return false;
            };
            let ast::DeclarationData::Precision(_, ts) = &**d else {
                return false;
            };
            let named = match &*ts.ty {
                ast::TypeSpecifierNonArrayData::TypeName(n) => n.as_str().to_ascii_lowercase(),
                other => format!("{other:?}").to_ascii_lowercase(),
            };
            let before = super::span_off(&ed.span).is_some_and(|o| o < self.off);
            named == want && before
        })
    }

    /// The image an image function's argument `e` names, and a source holding its unit.
    pub(super) fn image_arg(&mut self, fname: &str, e: &ast::Expr) -> R<(ImageSym, Src)> {
        let (id, index) = match &**e {
            ExprData::Variable(id) => (id, None),
            ExprData::Bracket(base, ix) => match &***base {
                ExprData::Variable(id) => (id, Some(ix)),
                _ => return self.err(format!("'{fname}' : the first argument must be an image")),
            },
            _ => return self.err(format!("'{fname}' : the first argument must be an image")),
        };
        let Some(Sym::Image(sym)) = self.lookup(id.as_str()) else {
            return self.err(format!(
                "'{fname}' : no matching overloaded function found ('{}' is not an image)",
                id.as_str()
            ));
        };
        let u1 = ITy::new(ScalarTy::U32, 1);
        let unit_at = |s: &mut Self, addr: Src| {
            let t = s.tmp();
            let ty = MemTy::new(ScalarTy::U32, 1);
            s.b.load(Space::DefaultUniform, ty, Dst::masked(t, 1), addr);
            Src::new(t)
        };
        let unit = match (index, sym.len) {
            (None, None) => {
                let addr = self.konst([u64::from(sym.offset), 0, 0, 0]);
                unit_at(self, Src::new(addr))
            }
            (Some(ix), Some(len)) => {
                let i = self.rv(ix)?;
                if !matches!(i.ty, Ty::V(Sc::Int | Sc::Uint, 1)) {
                    return self.err("array index must be an integer scalar");
                }
                if let Some(k) = i.k {
                    if k[0] as u32 >= len {
                        return self.err(format!(
                            "'{}' : array index {} out of range",
                            id.as_str(),
                            k[0] as u32 as i32
                        ));
                    }
                }
                // Element i's unit is at offset + 4i; an index out of range at run time reads
                // element 0's and then names a unit past every image (an invalid access: the
                // spec leaves it undefined).
                let len_k = self.konst([u64::from(len), 0, 0, 0]);
                let inside = self.b.cmp_fresh(CmpOp::Lt, u1, i.src, Src::new(len_k));
                let zero = self.konst([0; 4]);
                let safe = self.tmp();
                let one = Dst::masked(safe, 1);
                self.b
                    .select(1, one, Src::new(inside), i.src, Src::new(zero));
                let (four, base) = (
                    self.konst([4; 4]),
                    self.konst([u64::from(sym.offset), 0, 0, 0]),
                );
                let addr = self.tmp();
                let one = Dst::masked(addr, 1);
                self.b
                    .bin(BinOp::Mul, u1, one, Src::new(safe), Src::new(four));
                self.b
                    .bin(BinOp::Add, u1, one, Src::new(addr), Src::new(base));
                let t = unit_at(self, Src::new(addr));
                let none = self.konst([u64::from(u32::MAX), 0, 0, 0]);
                let u = self.tmp();
                self.b
                    .select(1, Dst::masked(u, 1), Src::new(inside), t, Src::new(none));
                // ARB_shader_image_load_store section 3.9.X: such an index makes "the results
                // of the operation ... undefined": the unit is marked, so the operation is
                // flagged where it runs.
                let outside = self.b.cmp_fresh(CmpOp::Ge, u1, i.src, Src::new(len_k));
                self.b
                    .mark_undefined(1, u, outside, crate::ir::UndefinedRule::ImageArrayIndex);
                Src::new(u)
            }
            (None, Some(_)) => {
                return self.err(format!(
                    "'{fname}' : '{}' is an array of images: index it",
                    id.as_str()
                ))
            }
            (Some(_), None) => {
                return self.err(format!("'{}' : not an array", id.as_str()));
            }
        };
        Ok((sym, unit))
    }
}
