//! The image functions of GLSL 4.60 §8.12 (ARB_shader_image_load_store "Image Functions",
//! ARB_shader_image_size): imageLoad, imageStore, imageSize and the imageAtomic* functions,
//! with their compile errors: a `writeonly` image passed to a function that reads,
//! a `readonly` one to a function that writes, atomics only on r32i / r32ui images (r32f for
//! exchange from GLSL 4.50 / ESSL, and for add with GL_EXT_shader_atomic_float).

use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::image::{Format, ImageInst, ImageOp};
use crate::ir::{AtomicOp, Dst, Inst, Kind, Src};
use glsl_lang::ast;

/// The names this module lowers.
pub(super) fn is_image_fn(name: &str) -> bool {
    matches!(name, "imageLoad" | "imageStore" | "imageSize") || image_atomic(name).is_some()
}

fn image_atomic(name: &str) -> Option<AtomicOp> {
    Some(match name {
        "imageAtomicAdd" => AtomicOp::Add,
        "imageAtomicMin" => AtomicOp::Min,
        "imageAtomicMax" => AtomicOp::Max,
        "imageAtomicAnd" => AtomicOp::And,
        "imageAtomicOr" => AtomicOp::Or,
        "imageAtomicXor" => AtomicOp::Xor,
        "imageAtomicExchange" => AtomicOp::Exch,
        "imageAtomicCompSwap" => AtomicOp::CmpXchg,
        _ => return None,
    })
}

fn sc_of(kind: Kind) -> Sc {
    match kind {
        Kind::S => Sc::Int,
        Kind::U => Sc::Uint,
        _ => Sc::Float,
    }
}

impl<'a> Lower<'a> {
    pub(super) fn image_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let op = match name {
            "imageLoad" => ImageOp::Load,
            "imageStore" => ImageOp::Store,
            "imageSize" => ImageOp::Size,
            n => match image_atomic(n) {
                Some(a) => ImageOp::Atomic(a),
                None => return self.no_overload(name, "..."),
            },
        };
        if args.is_empty() {
            return self.no_overload(name, "");
        }
        let (sym, unit) = self.image_arg(name, &args[0])?;
        if sym.sampler {
            return self.err(format!(
                "'{name}' : no matching overloaded function found (the first argument is a sampler, not an image)"
            ));
        }
        let var = sym.var;
        let sc = sc_of(var.kind);
        let p = self.shaders[self.cur].parsed;
        let version = p.version.unwrap_or(110);
        let reads = matches!(op, ImageOp::Load | ImageOp::Atomic(_));
        let writes = matches!(op, ImageOp::Store | ImageOp::Atomic(_));
        if reads && sym.writeonly {
            return self.err(format!(
                "'{name}' : argument cannot drop memory qualifier when passed to formal parameter (the image is writeonly)"
            ));
        }
        if writes && sym.readonly {
            return self.err(format!(
                "'{name}' : argument cannot drop memory qualifier when passed to formal parameter (the image is readonly)"
            ));
        }
        if reads && var.format.is_none() {
            return self.err(format!(
                "'{name}' : the image needs a format layout qualifier to be read"
            ));
        }
        let n_data = match op {
            ImageOp::Size => {
                let has = if p.es {
                    version >= 310
                } else {
                    version >= 430 || self.has_ext("GL_ARB_shader_image_size")
                };
                if !has {
                    return self.err(
                        "'imageSize' : no matching overloaded function found (requires #version 430 or #extension GL_ARB_shader_image_size)",
                    );
                }
                self.want_args(name, args, 1)?;
                0
            }
            ImageOp::Load | ImageOp::Fetch => 0,
            ImageOp::Store => 1,
            ImageOp::Atomic(a) => {
                self.image_atomic_allowed(name, a, var.format)?;
                if a == AtomicOp::CmpXchg {
                    2
                } else {
                    1
                }
            }
        };
        let coord = if op == ImageOp::Size {
            Src::new(self.konst([0; 4]))
        } else {
            self.want_args(name, args, 2 + n_data)?;
            let n = var.dim.coordinates() as u8;
            let c = self.rv(&args[1])?;
            if c.ty != Ty::V(Sc::Int, n) {
                let want = Ty::V(Sc::Int, n);
                return self.err(format!(
                    "no matching overloaded function found: '{name}' takes {want} coordinates, got {}",
                    c.ty
                ));
            }
            c.src
        };
        let data_ty = match op {
            ImageOp::Store => Ty::V(sc, 4),
            _ => Ty::V(sc, 1),
        };
        let mut data = Vec::with_capacity(n_data);
        for a in args.get(2..2 + n_data).unwrap_or(&[]) {
            let v = self.rv(a)?;
            data.push(self.implicit(v, &data_ty)?.src);
        }
        let (a, b) = match data.as_slice() {
            [] => (coord, coord),
            [d] => (*d, *d),
            [c, d] => (*c, *d),
            _ => return self.err("internal: image function arguments"),
        };
        let result_ty = match op {
            ImageOp::Store => Ty::Void,
            ImageOp::Load | ImageOp::Fetch => Ty::V(sc, 4),
            ImageOp::Size => match var.dim.coordinates() {
                1 => Ty::INT,
                n => Ty::V(Sc::Int, n as u8),
            },
            ImageOp::Atomic(_) => Ty::V(sc, 1),
        };
        let t = self.tmp();
        let dst = (op != ImageOp::Store).then(|| Dst::new(t));
        self.emit(Inst::Image(ImageInst {
            op,
            var,
            dst,
            unit,
            coord,
            a,
            b,
        }));
        let src = match op {
            ImageOp::Store => Src::new(self.konst([0; 4])),
            _ => Src::new(t),
        };
        Ok(Value::V(V {
            src,
            ty: result_ty,
            k: None,
        }))
    }

    /// Whether `imageAtomic*` (`op`) is declared for an image of `format`, where the version
    /// and extensions have it.
    fn image_atomic_allowed(&self, name: &str, op: AtomicOp, format: Option<Format>) -> R<()> {
        let p = self.shaders[self.cur].parsed;
        let version = p.version.unwrap_or(110);
        if p.es && version < 320 && !self.has_ext("GL_OES_shader_image_atomic") {
            return self.err(format!(
                "'{name}' : required extension not requested: GL_OES_shader_image_atomic"
            ));
        }
        match format {
            Some(Format::R32i | Format::R32ui) => Ok(()),
            Some(Format::R32f) if op == AtomicOp::Exch && (p.es || version >= 450) => Ok(()),
            Some(Format::R32f)
                if (op == AtomicOp::Add || op == AtomicOp::Exch)
                    && self.has_ext("GL_EXT_shader_atomic_float") =>
            {
                Ok(())
            }
            _ => self.err(format!(
                "'{name}' : only supported on image with format r32i or r32ui"
            )),
        }
    }
}
