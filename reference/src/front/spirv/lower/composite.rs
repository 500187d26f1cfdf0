//! Composites and matrices: OpCompositeConstruct / Extract / Insert on vectors (one register)
//! and on lists of values, and the matrix operations (matrix × scalar / vector / matrix, vector
//! × matrix, transpose, outer product) on matrices held as lists of column registers.

use super::{Fcx, Lowerer, Val, R};
use crate::front::spirv::module::{id_at, Type};
use crate::ir::{BinOp, Dst, Reg, ScalarTy, Src, Ty};
use rspirv::dr::Instruction;
use rspirv::spirv::{Op, Word};

impl<'a, 'm> Lowerer<'a, 'm> {
    /// Columns of a matrix value.
    pub(super) fn columns(&self, inst: &Instruction, v: &Val) -> R<Vec<Reg>> {
        match v {
            Val::C(cols) => cols
                .iter()
                .map(|c| match c {
                    Val::R(r) => Ok(*r),
                    _ => self.err(inst, "matrix column is not a vector"),
                })
                .collect(),
            _ => self.err(inst, "operand is not a matrix"),
        }
    }

    /// `a * b` of `ty` into a fresh register.
    pub(super) fn mul(&mut self, ty: Ty, a: Src, b: Src) -> Reg {
        let d = self.b.reg();
        self.b.bin(BinOp::Mul, ty, Dst::new(d), a, b);
        d
    }

    /// `a · b` of `ty` (products rounded, then summed left to right) into lane x of a fresh
    /// register.
    pub(super) fn dot_product(&mut self, ty: Ty, a: Src, b: Src) -> Reg {
        let t = self.mul(ty, a, b);
        self.fold_lanes(BinOp::Add, ty.scalar, t, ty.lanes)
    }

    /// `v.x op v.y op ...` over the first `lanes` lanes of `v` (of scalar type `s`), left to
    /// right, into lane x of a fresh register.
    pub(super) fn fold_lanes(&mut self, op: BinOp, s: ScalarTy, v: Reg, lanes: u8) -> Reg {
        let d = self.b.reg();
        self.b.mov(Dst::new(d), Src::splat(v, 0));
        for k in 1..lanes {
            self.b.bin(
                op,
                Ty::new(s, 1),
                Dst::new(d),
                Src::new(d),
                Src::splat(v, k),
            );
        }
        d
    }

    /// Σ_j cols[j] * v[j] (rows lanes), multiplications then additions in column order.
    fn mat_vec(&mut self, ty: Ty, cols: &[Reg], v: Reg) -> Reg {
        let mut acc = self.mul(ty, Src::new(cols[0]), Src::splat(v, 0));
        for (j, c) in cols.iter().enumerate().skip(1) {
            let t = self.mul(ty, Src::new(*c), Src::splat(v, j as u8));
            let d = self.b.reg();
            self.b
                .bin(BinOp::Add, ty, Dst::new(d), Src::new(acc), Src::new(t));
            acc = d;
        }
        acc
    }

    pub(super) fn matrix_op(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let op = inst.class.opcode;
        // The float type and row count come from a column (or the vector operand).
        let col_ty = |s: &Self, id: Option<Word>| -> Option<(ScalarTy, u8)> {
            let t = id.and_then(|i| s.info.type_of.get(&i).copied())?;
            match s.ty(t) {
                Type::Matrix { col, .. } => s.scalar_lanes(col),
                _ => s.scalar_lanes(t),
            }
        };
        let Some((f, rows)) = col_ty(self, id_at(inst, 0)) else {
            return self.err(inst, "matrix operand of an unsupported type");
        };
        let ty = Ty::new(f, rows);
        let a = self.operand(fcx, inst, 0)?;
        let b = self.operand(fcx, inst, 1).ok();
        let out = match (op, b) {
            (Op::MatrixTimesScalar, Some(Val::R(k))) => {
                let cols = self.columns(inst, &a)?;
                Val::C(
                    cols.iter()
                        .map(|c| Val::R(self.mul(ty, Src::new(*c), Src::splat(k, 0))))
                        .collect(),
                )
            }
            (Op::MatrixTimesVector, Some(Val::R(v))) => {
                let cols = self.columns(inst, &a)?;
                if cols.is_empty() {
                    return self.err(inst, "matrix without columns");
                }
                Val::R(self.mat_vec(ty, &cols, v))
            }
            (Op::VectorTimesMatrix, Some(m)) => {
                let Val::R(v) = a else {
                    return self.err(inst, "operand is not a vector");
                };
                let cols = self.columns(inst, &m)?;
                let d = self.b.reg();
                for (j, c) in cols.iter().enumerate().take(4) {
                    let t = self.mul(ty, Src::new(v), Src::new(*c));
                    let sum = self.fold_lanes(BinOp::Add, f, t, rows);
                    self.b.mov(Dst::masked(d, 1 << j), Src::splat(sum, 0));
                }
                Val::R(d)
            }
            (Op::MatrixTimesMatrix, Some(m)) => {
                let left = self.columns(inst, &a)?;
                let right = self.columns(inst, &m)?;
                if left.is_empty() {
                    return self.err(inst, "matrix without columns");
                }
                Val::C(
                    right
                        .iter()
                        .map(|c| Val::R(self.mat_vec(ty, &left, *c)))
                        .collect(),
                )
            }
            (Op::OuterProduct, Some(Val::R(r))) => {
                let Val::R(c) = a else {
                    return self.err(inst, "operand is not a vector");
                };
                let (_, n) = self.operand_ty(inst, 1)?;
                Val::C(
                    (0..n)
                        .map(|j| Val::R(self.mul(ty, Src::new(c), Src::splat(r, j))))
                        .collect(),
                )
            }
            (Op::Transpose, _) => {
                let cols = self.columns(inst, &a)?;
                let Some(Type::Matrix { n: rn, .. }) = inst.result_type.map(|t| self.ty(t)) else {
                    return self.err(inst, "OpTranspose result is not a matrix");
                };
                let mut out = Vec::new();
                for i in 0..rn.min(4) {
                    let d = self.b.reg();
                    for (j, c) in cols.iter().enumerate().take(4) {
                        self.b.mov(Dst::masked(d, 1 << j), Src::splat(*c, i));
                    }
                    out.push(Val::R(d));
                }
                Val::C(out)
            }
            _ => return self.err(inst, "matrix operands of unexpected kinds"),
        };
        self.set(fcx, inst, out);
        Ok(())
    }

    fn lane_src(&self, v: &Val, lane: u8) -> Option<Src> {
        match v {
            Val::R(r) => Some(Src::splat(*r, lane)),
            _ => None,
        }
    }

    pub(super) fn composite_construct(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let rt = inst.result_type.unwrap_or(0);
        let mut parts = Vec::new();
        for i in 0..inst.operands.len() {
            parts.push((self.operand(fcx, inst, i)?, i));
        }
        if let Type::Vector { n, .. } = self.ty(rt) {
            if n > 4 {
                return self.err(inst, "vectors of more than 4 components are not supported");
            }
            let d = self.result_reg(fcx, inst);
            let mut lane = 0u8;
            for (v, i) in parts {
                let (_, l) = self.operand_ty(inst, i)?;
                for c in 0..l {
                    if lane >= n {
                        break;
                    }
                    let Some(src) = self.lane_src(&v, c) else {
                        return self.err(inst, "vector component is not a scalar or vector");
                    };
                    self.b.mov(Dst::masked(d, 1 << lane), src);
                    lane += 1;
                }
            }
        } else {
            self.set(fcx, inst, Val::C(parts.into_iter().map(|x| x.0).collect()));
        }
        Ok(())
    }

    pub(super) fn extract(&mut self, inst: &Instruction, v: &Val, idx: &[u32]) -> R<Val> {
        let mut cur = v.clone();
        for &i in idx {
            cur = match cur {
                Val::C(parts) => match parts.get(i as usize) {
                    Some(p) => p.clone(),
                    None => return self.err(inst, "composite index out of range"),
                },
                Val::R(r) if i < 4 => {
                    let d = self.b.reg();
                    self.b.mov(Dst::new(d), Src::splat(r, i as u8));
                    Val::R(d)
                }
                _ => return self.err(inst, "composite index out of range"),
            };
        }
        Ok(cur)
    }

    pub(super) fn insert(
        &mut self,
        inst: &Instruction,
        obj: &Val,
        comp: &Val,
        idx: &[u32],
    ) -> R<Val> {
        let Some((&first, rest)) = idx.split_first() else {
            return Ok(obj.clone());
        };
        match comp {
            Val::C(parts) => {
                let mut parts = parts.clone();
                let Some(slot) = parts.get(first as usize).cloned() else {
                    return self.err(inst, "composite index out of range");
                };
                parts[first as usize] = self.insert(inst, obj, &slot, rest)?;
                Ok(Val::C(parts))
            }
            Val::R(r) if first < 4 && rest.is_empty() => {
                let Val::R(o) = obj else {
                    return self.err(inst, "inserted object is not a scalar");
                };
                let d = self.b.reg();
                self.b.mov(Dst::new(d), Src::new(*r));
                self.b.mov(Dst::masked(d, 1 << first), Src::splat(*o, 0));
                Ok(Val::R(d))
            }
            _ => self.err(inst, "composite index out of range"),
        }
    }
}
