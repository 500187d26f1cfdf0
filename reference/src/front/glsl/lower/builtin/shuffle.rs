//! The GL_NV_shader_thread_shuffle functions (`shuffleNV`, `shuffleUpNV`, `shuffleDownNV`,
//! `shuffleXorNV`), with the optional `threadIdValid` out argument.

use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{Dst, Inst, ShflMode, Src};
use glsl_lang::ast;

impl<'a> Lower<'a> {
    pub(super) fn shuffle(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        if !self.has_ext("GL_NV_shader_thread_shuffle") {
            return self.err(format!(
                "'{name}' : no matching overloaded function found (requires #extension GL_NV_shader_thread_shuffle : enable)"
            ));
        }
        if args.len() != 3 && args.len() != 4 {
            return self.err(format!(
                "no matching overloaded function found: '{name}' takes 3 or 4 arguments"
            ));
        }
        let mode = match name {
            "shuffleNV" => ShflMode::Idx,
            "shuffleUpNV" => ShflMode::Up,
            "shuffleDownNV" => ShflMode::Down,
            _ => ShflMode::Xor,
        };
        let data = self.rv(&args[0])?;
        let Ty::V(sc, n) = data.ty else {
            return self.err("shuffle data must be a scalar or vector");
        };
        if sc == Sc::Double {
            return self.no_overload(name, "double...");
        }
        let idx = self.rv(&args[1])?;
        let idx = self.implicit(idx, &Ty::UINT)?;
        let width = self.rv(&args[2])?;
        let width = self.implicit(width, &Ty::UINT)?;
        let valid_place = match args.get(3) {
            Some(a) => {
                let p = self.place_of(a)?;
                if p.ro() || *p.ty() != Ty::BOOL {
                    return self.err(format!(
                        "'{name}': threadIdValid must be a writable bool l-value"
                    ));
                }
                Some(p)
            }
            None => None,
        };
        let data = self.snap_reg(data);
        let t = self.tmp();
        let vr = valid_place.as_ref().map(|_| self.tmp());
        self.at(&args[0].span);
        self.emit(Inst::ShuffleGlsl {
            mode,
            lanes: n,
            dst: Dst::lanes(t, n),
            valid: vr.map(|r| Dst::masked(r, 1)),
            val: data.src,
            index: idx.src,
            width: width.src,
        });
        if let (Some(p), Some(r)) = (valid_place, vr) {
            self.store(
                &p,
                Value::V(V {
                    src: Src::new(r),
                    ty: Ty::BOOL,
                    k: None,
                }),
            )?;
        }
        Ok(Value::V(V {
            src: Src::new(t),
            ty: Ty::V(sc, n),
            k: None,
        }))
    }
}
