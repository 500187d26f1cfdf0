//! Type resolution: GLSL type specifiers to [`Ty`], with array dimensions (sizes are constant
//! integral expressions) and struct declarations.

use super::{Lower, R};
use crate::front::glsl::parse::EXTENSION_TYPE_NAMES;
use crate::front::glsl::types::{Sc, StructDef, Ty};
use crate::ir::image::ImageDim;
use glsl_lang::ast;
use std::rc::Rc;

/// The most parts (struct, array, member and leaf nodes) a declared type may have. The
/// lowerer walks types recursively, so structs of arrays of structs nested a few levels with a
/// few members each would cost it time exponential in the nesting; real shaders' types have
/// tens of parts.
pub const MAX_TYPE_NODES: u64 = 4096;

/// Whether `t` has at most `*budget` parts, counting down; stops as soon as it is spent, so
/// the check itself costs at most [`MAX_TYPE_NODES`] steps.
fn within_nodes(t: &Ty, budget: &mut u64) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match t {
        Ty::Array(elem, _) => within_nodes(elem, budget),
        Ty::Struct(sd) => sd.fields.iter().all(|(_, f)| within_nodes(f, budget)),
        _ => true,
    }
}

impl<'a> Lower<'a> {
    pub(super) fn resolve_ts(&mut self, ts: &ast::TypeSpecifier) -> R<Ty> {
        use ast::TypeSpecifierNonArrayData as T;
        let base = match &*ts.ty {
            T::Void => Ty::Void,
            T::Bool => Ty::V(Sc::Bool, 1),
            T::Int => Ty::V(Sc::Int, 1),
            T::UInt => Ty::V(Sc::Uint, 1),
            T::Float => Ty::V(Sc::Float, 1),
            T::Double => Ty::V(Sc::Double, 1),
            T::Vec2 => Ty::V(Sc::Float, 2),
            T::Vec3 => Ty::V(Sc::Float, 3),
            T::Vec4 => Ty::V(Sc::Float, 4),
            T::DVec2 => Ty::V(Sc::Double, 2),
            T::DVec3 => Ty::V(Sc::Double, 3),
            T::DVec4 => Ty::V(Sc::Double, 4),
            T::BVec2 => Ty::V(Sc::Bool, 2),
            T::BVec3 => Ty::V(Sc::Bool, 3),
            T::BVec4 => Ty::V(Sc::Bool, 4),
            T::IVec2 => Ty::V(Sc::Int, 2),
            T::IVec3 => Ty::V(Sc::Int, 3),
            T::IVec4 => Ty::V(Sc::Int, 4),
            T::UVec2 => Ty::V(Sc::Uint, 2),
            T::UVec3 => Ty::V(Sc::Uint, 3),
            T::UVec4 => Ty::V(Sc::Uint, 4),
            T::AtomicUInt => Ty::AtomicUint,
            T::Mat2 | T::Mat22 => Ty::Mat(Sc::Float, 2, 2),
            T::Mat3 | T::Mat33 => Ty::Mat(Sc::Float, 3, 3),
            T::Mat4 | T::Mat44 => Ty::Mat(Sc::Float, 4, 4),
            T::Mat23 => Ty::Mat(Sc::Float, 2, 3),
            T::Mat24 => Ty::Mat(Sc::Float, 2, 4),
            T::Mat32 => Ty::Mat(Sc::Float, 3, 2),
            T::Mat34 => Ty::Mat(Sc::Float, 3, 4),
            T::Mat42 => Ty::Mat(Sc::Float, 4, 2),
            T::Mat43 => Ty::Mat(Sc::Float, 4, 3),
            T::DMat2 | T::DMat22 => Ty::Mat(Sc::Double, 2, 2),
            T::DMat3 | T::DMat33 => Ty::Mat(Sc::Double, 3, 3),
            T::DMat4 | T::DMat44 => Ty::Mat(Sc::Double, 4, 4),
            T::DMat23 => Ty::Mat(Sc::Double, 2, 3),
            T::DMat24 => Ty::Mat(Sc::Double, 2, 4),
            T::DMat32 => Ty::Mat(Sc::Double, 3, 2),
            T::DMat34 => Ty::Mat(Sc::Double, 3, 4),
            T::DMat42 => Ty::Mat(Sc::Double, 4, 2),
            T::DMat43 => Ty::Mat(Sc::Double, 4, 3),
            T::Struct(s) => self.declare_struct(s)?,
            T::TypeName(n) => match self.structs.get(n.as_str()) {
                Some(sd) => Ty::Struct(sd.clone()),
                None => self.extension_type(n.as_str())?,
            },
            T::Image1D => self.image_type(ImageDim::D1, Sc::Float)?,
            T::Image2D => self.image_type(ImageDim::D2, Sc::Float)?,
            T::Image3D => self.image_type(ImageDim::D3, Sc::Float)?,
            T::Image2DArray => self.image_type(ImageDim::D2Array, Sc::Float)?,
            T::IImage1D => self.image_type(ImageDim::D1, Sc::Int)?,
            T::IImage2D => self.image_type(ImageDim::D2, Sc::Int)?,
            T::IImage3D => self.image_type(ImageDim::D3, Sc::Int)?,
            T::IImage2DArray => self.image_type(ImageDim::D2Array, Sc::Int)?,
            T::UImage1D => self.image_type(ImageDim::D1, Sc::Uint)?,
            T::UImage2D => self.image_type(ImageDim::D2, Sc::Uint)?,
            T::UImage3D => self.image_type(ImageDim::D3, Sc::Uint)?,
            T::UImage2DArray => self.image_type(ImageDim::D2Array, Sc::Uint)?,
            T::ImageBuffer => self.image_type(ImageDim::Buffer, Sc::Float)?,
            T::IImageBuffer => self.image_type(ImageDim::Buffer, Sc::Int)?,
            T::UImageBuffer => self.image_type(ImageDim::Buffer, Sc::Uint)?,
            other @ (T::ImageCube
            | T::Image2DRect
            | T::Image1DArray
            | T::Image2DMs
            | T::Image2DMsArray
            | T::ImageCubeArray
            | T::IImageCube
            | T::IImage2DRect
            | T::IImage1DArray
            | T::IImage2DMs
            | T::IImage2DMsArray
            | T::IImageCubeArray
            | T::UImageCube
            | T::UImage2DRect
            | T::UImage1DArray
            | T::UImage2DMs
            | T::UImage2DMsArray
            | T::UImageCubeArray) => {
                return self.unsup(format!(
                    "image type {other:?} (the plan has 1D, 2D, 3D, 2D array and buffer images)"
                ));
            }
            T::Sampler1D => self.sampler_type(ImageDim::D1, Sc::Float)?,
            T::Sampler2D => self.sampler_type(ImageDim::D2, Sc::Float)?,
            T::Sampler3D => self.sampler_type(ImageDim::D3, Sc::Float)?,
            T::Sampler2DArray => self.sampler_type(ImageDim::D2Array, Sc::Float)?,
            T::ISampler1D => self.sampler_type(ImageDim::D1, Sc::Int)?,
            T::ISampler2D => self.sampler_type(ImageDim::D2, Sc::Int)?,
            T::ISampler3D => self.sampler_type(ImageDim::D3, Sc::Int)?,
            T::ISampler2DArray => self.sampler_type(ImageDim::D2Array, Sc::Int)?,
            T::USampler1D => self.sampler_type(ImageDim::D1, Sc::Uint)?,
            T::USampler2D => self.sampler_type(ImageDim::D2, Sc::Uint)?,
            T::USampler3D => self.sampler_type(ImageDim::D3, Sc::Uint)?,
            T::USampler2DArray => self.sampler_type(ImageDim::D2Array, Sc::Uint)?,
            other => {
                let name = format!("{other:?}");
                return self.unsup(format!(
                    "type {name} (the plan's textures are 1D, 2D, 3D and 2D array: no cube, rectangle, buffer, multisample, 1D array or shadow samplers)"
                ));
            }
        };
        self.apply_arrays(base, ts.array_specifier.as_ref(), None)
    }

    /// A type name an extension adds (the parser knows them from the start, see
    /// `parse::EXTENSION_TYPE_NAMES`): available where its extension is enabled, and
    /// `atomic_uint` also from ESSL 3.10 on (GLSL 4.20 and later lex it as a keyword).
    fn extension_type(&mut self, name: &str) -> R<Ty> {
        let Some((_, ext)) = EXTENSION_TYPE_NAMES.iter().find(|t| t.0 == name) else {
            // glsl-lang's ESSL lexer reads the image type names as identifiers.
            if let Some((dim, sc)) = super::image::image_type_name(name) {
                return self.image_type(dim, sc);
            }
            if ["image", "iimage", "uimage"].iter().any(|p| {
                name.strip_prefix(p)
                    .is_some_and(|r| r.starts_with(['1', '2', '3', 'B', 'C']))
            }) {
                return self.unsup(format!(
                    "image type {name} (the plan has 1D, 2D, 3D and 2D array images)"
                ));
            }
            return self.err(format!("unknown type '{name}'"));
        };
        let parsed = self.shaders[self.cur].parsed;
        let core = name == "atomic_uint" && parsed.es && parsed.version.unwrap_or(100) >= 310;
        if !core && !self.has_ext(ext) {
            return self.err(format!(
                "'{name}' : undeclared type (requires #extension {ext} : enable)"
            ));
        }
        let (sc, n) = match name {
            "atomic_uint" => return Ok(Ty::AtomicUint),
            "int64_t" => (Sc::Int64, 1),
            "uint64_t" => (Sc::Uint64, 1),
            v => {
                let sc = if v.starts_with('i') {
                    Sc::Int64
                } else {
                    Sc::Uint64
                };
                (sc, v.as_bytes()[v.len() - 1] - b'0')
            }
        };
        Ok(Ty::V(sc, n))
    }

    /// Applies array dimensions: identifier dimensions are outermost, then the type's.
    pub(super) fn apply_arrays(
        &mut self,
        base: Ty,
        ty_dims: Option<&ast::ArraySpecifier>,
        id_dims: Option<&ast::ArraySpecifier>,
    ) -> R<Ty> {
        let mut dims = Vec::new();
        for spec in [id_dims, ty_dims].into_iter().flatten() {
            for d in &spec.dimensions {
                dims.push(match &**d {
                    ast::ArraySpecifierDimensionData::Unsized => None,
                    ast::ArraySpecifierDimensionData::ExplicitlySized(e) => {
                        let v = self.const_u32(e, "array size")?;
                        if v == 0 {
                            return self.err("array size must be greater than zero");
                        }
                        Some(v)
                    }
                });
            }
        }
        let mut t = base;
        for d in dims.into_iter().rev() {
            t = Ty::Array(Box::new(t), d);
        }
        let mut budget = MAX_TYPE_NODES;
        if !within_nodes(&t, &mut budget) {
            return self.err(format!(
                "type {t} is too large: more than {MAX_TYPE_NODES} nested structs, arrays and members"
            ));
        }
        Ok(t)
    }

    fn declare_struct(&mut self, s: &ast::StructSpecifier) -> R<Ty> {
        let mut fields = Vec::new();
        for f in &s.fields {
            let ft = self.resolve_ts(&f.ty)?;
            for id in &f.identifiers {
                let t = self.apply_arrays(ft.clone(), None, id.array_spec.as_ref())?;
                if t.has_runtime_array()
                    || t == Ty::AtomicUint
                    || t == Ty::Void
                    || t.is_unit_opaque()
                {
                    return self.err(format!("invalid struct member type {t}"));
                }
                fields.push((id.ident.as_str().to_string(), t));
            }
        }
        let mut budget = MAX_TYPE_NODES - 1;
        if !fields.iter().all(|(_, t)| within_nodes(t, &mut budget)) {
            return self.err(format!(
                "struct {} is too large: more than {MAX_TYPE_NODES} nested structs, arrays and members",
                s.name.as_ref().map_or("<anonymous>", |n| n.as_str())
            ));
        }
        let name = s
            .name
            .as_ref()
            .map(|n| n.as_str().to_string())
            .unwrap_or_else(|| "<anonymous struct>".into());
        let sd = Rc::new(StructDef::new(name.clone(), fields));
        if s.name.is_some() {
            self.structs.insert(name, sd.clone());
        }
        Ok(Ty::Struct(sd))
    }

    fn const_u32(&mut self, e: &ast::Expr, what: &str) -> R<u32> {
        let v = self.rv(e)?;
        match (&v.ty, v.k) {
            (Ty::V(Sc::Int, 1), Some(k)) => {
                let x = k[0] as u32 as i32;
                if x < 0 {
                    return self.err(format!("{what} must not be negative"));
                }
                Ok(x as u32)
            }
            (Ty::V(Sc::Uint, 1), Some(k)) => Ok(k[0] as u32),
            _ => self.err(format!("{what} must be a constant integral expression")),
        }
    }

    pub(super) fn resolve_fst(&mut self, t: &ast::FullySpecifiedType) -> R<Ty> {
        self.resolve_ts(&t.ty)
    }
}

#[cfg(test)]
mod tests {
    use crate::front::glsl::build;
    use crate::front::glsl::tests::prog;
    use crate::front::BuildFailure;
    use conform_plan::Stage;

    /// Structs S0..S{levels-1}, each holding three of the one before, and `main`'s body.
    fn nested(levels: usize, body: &str) -> String {
        let mut src = String::from(
            "#version 430\nlayout(local_size_x = 1) in;\nstruct S0 { uint a; uint b[2]; };\n",
        );
        for i in 1..levels {
            src.push_str(&format!("struct S{i} {{ S{0} a[2]; S{0} b; }};\n", i - 1));
        }
        src + &format!("void main() {{ {body} }}\n")
    }

    #[test]
    fn types_nested_past_the_limit_fail_to_compile_quickly() {
        let src = nested(20, "S19 v;");
        let t = std::time::Instant::now();
        let Err(BuildFailure::Failed { log, .. }) = build(
            &[prog(Stage::Compute, &src)],
            None,
            &crate::Options::default(),
        ) else {
            panic!("S19 compiled");
        };
        assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
        assert!(log.contains("struct S10 is too large"), "{log}");
        let small = nested(4, "S3 v; v.b.b.b.a = 1u;");
        assert!(
            build(
                &[prog(Stage::Compute, &small)],
                None,
                &crate::Options::default()
            )
            .is_ok(),
            "{small}"
        );
    }
}
