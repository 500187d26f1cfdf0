//! GLSL.std.450 Determinant and MatrixInverse, by cofactor expansion (their precision is
//! undefined: ARB_gl_spirv A.spv.6). A matrix is a list of column registers; element (column
//! c, row r) is lane r of column c.

use super::super::{Fcx, Lowerer, Val, R};
use crate::front::spirv::module::Type;
use crate::ir::{BinOp, CmpOp, Dst, Reg, ScalarTy, Src, Ty, UnOp, UndefinedRule};
use rspirv::dr::Instruction;

impl<'a, 'm> Lowerer<'a, 'm> {
    /// The square matrix operand of Determinant / MatrixInverse: its columns and scalar type.
    fn square_matrix(&self, fcx: &Fcx, inst: &Instruction) -> R<(Vec<Reg>, ScalarTy)> {
        let v = self.operand(fcx, inst, 2)?;
        let cols = self.columns(inst, &v)?;
        let ty = crate::front::spirv::module::id_at(inst, 2)
            .and_then(|id| self.info.type_of.get(&id).copied())
            .map(|t| self.ty(t));
        let Some(Type::Matrix { col, n }) = ty else {
            return self.err(inst, "the operand is not a matrix");
        };
        let Some((s, rows)) = self.scalar_lanes(col) else {
            return self.err(inst, "matrix of an unsupported type");
        };
        if rows != n || cols.len() != usize::from(n) || !(2..=4).contains(&n) {
            return self.err(inst, "the operand is not a square matrix of 2 to 4 columns");
        }
        Ok((cols, s))
    }

    /// The determinant of the submatrix of `cols` on `rows` × `which` (column indices), by
    /// expansion along its first column, into lane x of a fresh register.
    fn minor_det(&mut self, s: ScalarTy, cols: &[Reg], rows: &[u8], which: &[usize]) -> Reg {
        let one = Ty::new(s, 1);
        let at = |c: usize, r: u8| Src::splat(cols[c], r);
        if rows.len() == 1 {
            return self.b.mov_fresh(1, at(which[0], rows[0]));
        }
        if rows.len() == 2 {
            let ad = self.mul(one, at(which[0], rows[0]), at(which[1], rows[1]));
            let bc = self.mul(one, at(which[1], rows[0]), at(which[0], rows[1]));
            return self
                .b
                .bin_fresh(BinOp::Sub, one, Src::new(ad), Src::new(bc));
        }
        let mut acc: Option<Reg> = None;
        for (k, &r) in rows.iter().enumerate() {
            let rest: Vec<u8> = rows.iter().copied().filter(|&x| x != r).collect();
            let sub = self.minor_det(s, cols, &rest, &which[1..]);
            let term = self.mul(one, at(which[0], r), Src::new(sub));
            acc = Some(match acc {
                None => term,
                Some(a) => {
                    let op = if k % 2 == 0 { BinOp::Add } else { BinOp::Sub };
                    self.b.bin_fresh(op, one, Src::new(a), Src::new(term))
                }
            });
        }
        acc.unwrap_or_else(|| self.b.reg())
    }

    /// Determinant: a scalar.
    pub(super) fn determinant(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Reg> {
        let (cols, s) = self.square_matrix(fcx, inst)?;
        let n = cols.len();
        let rows: Vec<u8> = (0..n as u8).collect();
        let which: Vec<usize> = (0..n).collect();
        Ok(self.minor_det(s, &cols, &rows, &which))
    }

    /// MatrixInverse: element (row r, column c) of the inverse is the cofactor of element (row
    /// c, column r) divided by the determinant (undefined for a singular matrix).
    pub(super) fn matrix_inverse(&mut self, fcx: &Fcx, inst: &Instruction) -> R<Val> {
        let (cols, s) = self.square_matrix(fcx, inst)?;
        let n = cols.len();
        let one = Ty::new(s, 1);
        let all_rows: Vec<u8> = (0..n as u8).collect();
        let all_cols: Vec<usize> = (0..n).collect();
        let det = self.minor_det(s, &cols, &all_rows, &all_cols);
        let mut out = Vec::with_capacity(n);
        for c in 0..n {
            let col = self.b.reg();
            for r in 0..n {
                // Cofactor of element (row c, column r): delete row c and column r.
                let rows: Vec<u8> = all_rows.iter().copied().filter(|&x| x != c as u8).collect();
                let which: Vec<usize> = all_cols.iter().copied().filter(|&x| x != r).collect();
                let minor = self.minor_det(s, &cols, &rows, &which);
                let cof = if (r + c) % 2 == 0 {
                    minor
                } else {
                    self.b.un_fresh(UnOp::Neg, one, Src::new(minor))
                };
                self.b.bin(
                    BinOp::Div,
                    Ty::new(s, n as u8),
                    Dst::masked(col, 1 << r),
                    Src::splat(cof, 0),
                    Src::splat(det, 0),
                );
            }
            // "Results are undefined if m is singular": flagged where det is 0.
            let zero = self.b.float_constant(s, 0.0);
            let singular = self
                .b
                .cmp_fresh(CmpOp::Eq, one, Src::splat(det, 0), Src::new(zero));
            let singular = self.b.mov_fresh(n as u8, Src::splat(singular, 0));
            self.b
                .mark_undefined(n as u8, col, singular, UndefinedRule::SingularInverse);
            out.push(Val::R(col));
        }
        Ok(Val::C(out))
    }
}
