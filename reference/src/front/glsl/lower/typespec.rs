//! Type resolution: GLSL type specifiers to [`Ty`], with array dimensions (sizes are constant
//! integral expressions) and struct declarations.

use super::{Lower, R};
use crate::front::glsl::types::{Sc, StructDef, Ty};
use glsl_lang::ast;
use std::rc::Rc;

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
            T::Struct(s) => self.declare_struct(s)?,
            T::TypeName(n) => match self.structs.get(n.as_str()) {
                Some(sd) => Ty::Struct(sd.clone()),
                None => return self.err(format!("unknown type '{}'", n.as_str())),
            },
            other => {
                let name = format!("{other:?}");
                if name.contains("Mat") {
                    return self.unsup(format!("matrix type {name}"));
                }
                return self.unsup(format!("type {name} (samplers, images, textures)"));
            }
        };
        self.apply_arrays(base, ts.array_specifier.as_ref(), None)
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
        Ok(t)
    }

    fn declare_struct(&mut self, s: &ast::StructSpecifier) -> R<Ty> {
        let mut fields = Vec::new();
        for f in &s.fields {
            let ft = self.resolve_ts(&f.ty)?;
            for id in &f.identifiers {
                let t = self.apply_arrays(ft.clone(), None, id.array_spec.as_ref())?;
                if t.has_runtime_array() || t == Ty::AtomicUint || t == Ty::Void {
                    return self.err(format!("invalid struct member type {t}"));
                }
                fields.push((id.ident.as_str().to_string(), t));
            }
        }
        let name = s
            .name
            .as_ref()
            .map(|n| n.as_str().to_string())
            .unwrap_or_else(|| "<anonymous struct>".into());
        let sd = Rc::new(StructDef {
            name: name.clone(),
            fields,
        });
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
