//! GLSL.std.450 instructions defined by formulas over the basic operations, lowered as the
//! formula the specification gives (each step one IEEE operation, as the GLSL front end lowers
//! the same built-ins): Radians, Degrees, Step, SmoothStep, Length, Distance, Cross, Normalize,
//! FaceForward, Reflect, Refract.

use super::super::{Fcx, Lowerer, R};
use crate::ir::{BinOp, CmpOp, Dst, Reg, ScalarTy, Src, Ty, UnOp, UndefinedRule};
use rspirv::dr::Instruction;

impl<'a, 'm> Lowerer<'a, 'm> {
    /// An interned register holding `v` in every lane, rounded once to the float type `s`.
    pub(in super::super) fn float_const(&mut self, s: ScalarTy, v: f64) -> Reg {
        let bits = match s.bits {
            16 => u64::from(crate::exec::values::f64_to_f16(v)),
            32 => u64::from((v as f32).to_bits()),
            _ => v.to_bits(),
        };
        self.b.interned_constant([bits; 4])
    }

    /// `op` of `ty` on two sources into a fresh register.
    fn bin2(&mut self, op: BinOp, ty: Ty, a: Src, b: Src) -> Reg {
        self.b.bin_fresh(op, ty, a, b)
    }

    /// `cond ? a : b` over `lanes` lanes into a fresh register.
    pub(in super::super) fn select_fresh(&mut self, lanes: u8, cond: Src, a: Src, b: Src) -> Reg {
        let d = self.b.reg();
        self.b.select(lanes, Dst::new(d), cond, a, b);
        d
    }

    /// Lowers the geometric and common formula instructions; `None` when `num` is not one.
    pub(super) fn glsl_formula(
        &mut self,
        fcx: &Fcx,
        inst: &Instruction,
        num: u32,
    ) -> Option<R<Reg>> {
        Some(match num {
            11 | 12 => self.radians_degrees(fcx, inst, num == 11),
            48 => self.step(fcx, inst),
            49 => self.smooth_step(fcx, inst),
            66 | 67 | 69 => self.length_family(fcx, inst, num),
            68 => self.cross(fcx, inst),
            70 => self.face_forward(fcx, inst),
            71 => self.reflect(fcx, inst),
            72 => self.refract(fcx, inst),
            _ => return None,
        })
    }

    /// Operand `k` of an OpExtInst (after the set and the number) and its type.
    pub(super) fn ext_arg(&self, fcx: &Fcx, inst: &Instruction, k: usize) -> R<(Reg, Ty)> {
        let r = self.reg_operand(fcx, inst, 2 + k)?;
        let (s, lanes) = self.operand_ty(inst, 2 + k)?;
        Ok((r, Ty::new(s, lanes)))
    }

    /// degrees * π / 180, radians * 180 / π: one multiplication by the constant rounded to the
    /// type.
    fn radians_degrees(&mut self, fcx: &Fcx, inst: &Instruction, radians: bool) -> R<Reg> {
        let (x, ty) = self.ext_arg(fcx, inst, 0)?;
        let k = if radians {
            std::f64::consts::PI / 180.0
        } else {
            180.0 / std::f64::consts::PI
        };
        let k = self.float_const(ty.scalar, k);
        Ok(self.bin2(BinOp::Mul, ty, Src::new(x), Src::new(k)))
    }

    /// Step(edge, x): 0.0 if x < edge, otherwise 1.0.
    fn step(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Reg> {
        let (edge, ty) = self.ext_arg(fcx, inst, 0)?;
        let (x, _) = self.ext_arg(fcx, inst, 1)?;
        let lt = self.b.cmp_fresh(CmpOp::Lt, ty, Src::new(x), Src::new(edge));
        let zero = self.float_const(ty.scalar, 0.0);
        let one = self.float_const(ty.scalar, 1.0);
        let d = self.select_fresh(ty.lanes, Src::new(lt), Src::new(zero), Src::new(one));
        Ok(d)
    }

    /// SmoothStep(edge0, edge1, x): t * t * (3 - 2 * t), t = clamp((x - edge0) / (edge1 -
    /// edge0), 0, 1).
    fn smooth_step(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Reg> {
        let (e0, ty) = self.ext_arg(fcx, inst, 0)?;
        let (e1, _) = self.ext_arg(fcx, inst, 1)?;
        let (x, _) = self.ext_arg(fcx, inst, 2)?;
        let num = self.bin2(BinOp::Sub, ty, Src::new(x), Src::new(e0));
        let den = self.bin2(BinOp::Sub, ty, Src::new(e1), Src::new(e0));
        let q = self.bin2(BinOp::Div, ty, Src::new(num), Src::new(den));
        let (zero, one) = (
            self.float_const(ty.scalar, 0.0),
            self.float_const(ty.scalar, 1.0),
        );
        let lo = self.bin2(BinOp::Max, ty, Src::new(q), Src::new(zero));
        let t = self.bin2(BinOp::Min, ty, Src::new(lo), Src::new(one));
        let (two, three) = (
            self.float_const(ty.scalar, 2.0),
            self.float_const(ty.scalar, 3.0),
        );
        let tt = self.bin2(BinOp::Mul, ty, Src::new(t), Src::new(t));
        let two_t = self.bin2(BinOp::Mul, ty, Src::new(two), Src::new(t));
        let rest = self.bin2(BinOp::Sub, ty, Src::new(three), Src::new(two_t));
        let r = self.bin2(BinOp::Mul, ty, Src::new(tt), Src::new(rest));
        // GLSL.std.450 SmoothStep: "Result is undefined if edge0 >= edge1."
        let bad = self.b.cmp_fresh(CmpOp::Ge, ty, Src::new(e0), Src::new(e1));
        self.b
            .mark_undefined(ty.lanes, r, bad, UndefinedRule::SmoothstepEdges);
        Ok(r)
    }

    /// Length(x) = sqrt(dot(x, x)), Distance(p0, p1) = length(p0 - p1), Normalize(x) =
    /// x / length(x).
    fn length_family(&mut self, fcx: &Fcx, inst: &Instruction, num: u32) -> R<Reg> {
        let (x, ty) = self.ext_arg(fcx, inst, 0)?;
        let v = if num == 67 {
            let (y, _) = self.ext_arg(fcx, inst, 1)?;
            self.bin2(BinOp::Sub, ty, Src::new(x), Src::new(y))
        } else {
            x
        };
        let dd = self.dot_product(ty, Src::new(v), Src::new(v));
        let one = Ty::new(ty.scalar, 1);
        let len = self.b.un_fresh(UnOp::Sqrt, one, Src::new(dd));
        if num != 69 {
            return Ok(len);
        }
        Ok(self.bin2(BinOp::Div, ty, Src::new(x), Src::splat(len, 0)))
    }

    /// Cross(x, y) = (x1 y2 - y1 x2, x2 y0 - y2 x0, x0 y1 - y0 x1).
    fn cross(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Reg> {
        let (x, ty) = self.ext_arg(fcx, inst, 0)?;
        let (y, _) = self.ext_arg(fcx, inst, 1)?;
        let ty = Ty::new(ty.scalar, 3);
        let yzx = |r: Reg| Src::swizzled(r, [1, 2, 0, 3]);
        let zxy = |r: Reg| Src::swizzled(r, [2, 0, 1, 3]);
        let ab = self.bin2(BinOp::Mul, ty, yzx(x), zxy(y));
        let cd = self.bin2(BinOp::Mul, ty, yzx(y), zxy(x));
        Ok(self.bin2(BinOp::Sub, ty, Src::new(ab), Src::new(cd)))
    }

    /// FaceForward(N, I, Nref): N if dot(Nref, I) < 0, otherwise -N.
    fn face_forward(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Reg> {
        let (n, ty) = self.ext_arg(fcx, inst, 0)?;
        let (i, _) = self.ext_arg(fcx, inst, 1)?;
        let (nref, _) = self.ext_arg(fcx, inst, 2)?;
        let d = self.dot_product(ty, Src::new(nref), Src::new(i));
        let zero = self.float_const(ty.scalar, 0.0);
        let one = Ty::new(ty.scalar, 1);
        let lt = self
            .b
            .cmp_fresh(CmpOp::Lt, one, Src::new(d), Src::new(zero));
        let neg = self.b.un_fresh(UnOp::Neg, ty, Src::new(n));
        let r = self.select_fresh(ty.lanes, Src::splat(lt, 0), Src::new(n), Src::new(neg));
        Ok(r)
    }

    /// Reflect(I, N) = I - 2 * dot(N, I) * N.
    fn reflect(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Reg> {
        let (i, ty) = self.ext_arg(fcx, inst, 0)?;
        let (n, _) = self.ext_arg(fcx, inst, 1)?;
        let d = self.dot_product(ty, Src::new(n), Src::new(i));
        let two = self.float_const(ty.scalar, 2.0);
        let one = Ty::new(ty.scalar, 1);
        let k = self.bin2(BinOp::Mul, one, Src::new(two), Src::new(d));
        let kn = self.bin2(BinOp::Mul, ty, Src::splat(k, 0), Src::new(n));
        Ok(self.bin2(BinOp::Sub, ty, Src::new(i), Src::new(kn)))
    }

    /// Refract(I, N, eta): k = 1 - eta * eta * (1 - dot(N, I) * dot(N, I)); 0 if k < 0,
    /// otherwise eta * I - (eta * dot(N, I) + sqrt(k)) * N.
    fn refract(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Reg> {
        let (i, ty) = self.ext_arg(fcx, inst, 0)?;
        let (n, _) = self.ext_arg(fcx, inst, 1)?;
        let (eta, _) = self.ext_arg(fcx, inst, 2)?;
        let one_ty = Ty::new(ty.scalar, 1);
        let e = Src::splat(eta, 0);
        let d = self.dot_product(ty, Src::new(n), Src::new(i));
        let one = self.float_const(ty.scalar, 1.0);
        let dd = self.bin2(BinOp::Mul, one_ty, Src::new(d), Src::new(d));
        let omd = self.bin2(BinOp::Sub, one_ty, Src::new(one), Src::new(dd));
        let ee = self.bin2(BinOp::Mul, one_ty, e, e);
        let eeo = self.bin2(BinOp::Mul, one_ty, Src::new(ee), Src::new(omd));
        let k = self.bin2(BinOp::Sub, one_ty, Src::new(one), Src::new(eeo));
        let ei = self.bin2(BinOp::Mul, ty, e, Src::new(i));
        let ed = self.bin2(BinOp::Mul, one_ty, e, Src::new(d));
        let sk = self.b.un_fresh(UnOp::Sqrt, one_ty, Src::new(k));
        let f = self.bin2(BinOp::Add, one_ty, Src::new(ed), Src::new(sk));
        let fnn = self.bin2(BinOp::Mul, ty, Src::splat(f, 0), Src::new(n));
        let r = self.bin2(BinOp::Sub, ty, Src::new(ei), Src::new(fnn));
        let zero = self.float_const(ty.scalar, 0.0);
        let neg = self
            .b
            .cmp_fresh(CmpOp::Lt, one_ty, Src::new(k), Src::new(zero));
        let out = self.select_fresh(ty.lanes, Src::splat(neg, 0), Src::new(zero), Src::new(r));
        Ok(out)
    }
}
