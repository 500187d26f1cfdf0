//! The texture lookup functions of GLSL 4.60 §8.9 on samplers: texelFetch (§8.9.2), which
//! reads one texel unfiltered, is lowered; the filtered lookups (`texture`, `textureLod`,
//! `textureGrad`, the projective, offset and gather forms, implicit level of detail) and the
//! queries are refused by name: the reference does not filter, so it never guesses what a
//! filter gives.

use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::image::{ImageInst, ImageOp};
use crate::ir::{Dst, Inst, Kind};
use glsl_lang::ast;

/// The lookups refused by name (GLSL 4.60 §8.9.1 to §8.9.4, and the pre-1.30 names).
const REFUSED: [&str; 27] = [
    "texture",
    "textureProj",
    "textureLod",
    "textureOffset",
    "texelFetchOffset",
    "textureProjOffset",
    "textureLodOffset",
    "textureProjLod",
    "textureProjLodOffset",
    "textureGrad",
    "textureGradOffset",
    "textureProjGrad",
    "textureProjGradOffset",
    "textureGather",
    "textureGatherOffset",
    "textureGatherOffsets",
    "textureSize",
    "textureQueryLod",
    "textureQueryLevels",
    "textureSamples",
    "texture1D",
    "texture2D",
    "texture3D",
    "texture2DLod",
    "texture2DProj",
    "texture1DLod",
    "texture3DLod",
];

/// The names this module lowers or refuses.
pub(super) fn is_texture_fn(name: &str) -> bool {
    name == "texelFetch" || REFUSED.contains(&name)
}

impl<'a> Lower<'a> {
    pub(super) fn texture_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        if name != "texelFetch" {
            return self.unsup(format!(
                "'{name}' (filtered texture lookups and texture queries are not implemented: only texelFetch)"
            ));
        }
        self.want_args(name, args, 3)?;
        let (sym, unit) = self.image_arg(name, &args[0])?;
        if !sym.sampler {
            return self.err(format!(
                "'{name}' : no matching overloaded function found (the first argument is an image, not a sampler)"
            ));
        }
        let var = sym.var;
        let n = var.dim.coordinates() as u8;
        let c = self.rv(&args[1])?;
        let want = Ty::V(Sc::Int, n);
        if c.ty != want {
            return self.err(format!(
                "no matching overloaded function found: '{name}' takes {want} coordinates, got {}",
                c.ty
            ));
        }
        let lod = self.rv(&args[2])?;
        if lod.ty != Ty::INT {
            return self.err(format!(
                "no matching overloaded function found: '{name}' takes an int level of detail, got {}",
                lod.ty
            ));
        }
        let sc = match var.kind {
            Kind::S => Sc::Int,
            Kind::U => Sc::Uint,
            _ => Sc::Float,
        };
        let t = self.tmp();
        self.emit(Inst::Image(ImageInst {
            op: ImageOp::Fetch,
            var,
            dst: Some(Dst::new(t)),
            unit,
            coord: c.src,
            a: lod.src,
            b: lod.src,
        }));
        Ok(Value::V(V {
            src: crate::ir::Src::new(t),
            ty: Ty::V(sc, 4),
            k: None,
        }))
    }
}
