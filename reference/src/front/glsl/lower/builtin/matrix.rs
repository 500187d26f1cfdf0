//! The matrix functions of GLSL 4.60 §8.6: matrixCompMult, outerProduct, transpose,
//! determinant, inverse, for float and double matrices.
//!
//! matrixCompMult, outerProduct and transpose are defined component by component and are
//! exact (one rounded product per component, or none). §4.7.1 leaves the precision of
//! determinant and inverse undefined; the reference computes them exactly as written here:
//! determinant by cofactor expansion down the first column, minors recursively, products
//! rounded and summed in row order; inverse as the adjugate divided component-wise by the
//! determinant (each a correctly rounded division).

use crate::front::glsl::lower::place::Place;
use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, CmpOp, UnOp};
use glsl_lang::ast;

/// The names this module lowers.
pub(super) fn is_matrix_fn(name: &str) -> bool {
    matches!(
        name,
        "matrixCompMult" | "outerProduct" | "transpose" | "determinant" | "inverse"
    )
}

/// A matrix as scalars: `e[column][row]`.
type Elems = Vec<Vec<V>>;

impl<'a> Lower<'a> {
    pub(super) fn matrix_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.expr(a)?);
        }
        let sig = || {
            vals.iter()
                .map(|v| match v {
                    Value::V(v) => v.ty.to_string(),
                    Value::Agg(p) => p.ty().to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        match (name, vals.as_slice()) {
            ("matrixCompMult", [Value::Agg(x), Value::Agg(y)]) => {
                let (Ty::Mat(sx, cx, rx), Ty::Mat(sy, cy, ry)) = (x.ty().clone(), y.ty().clone())
                else {
                    return self.no_overload(name, sig());
                };
                if (cx, rx) != (cy, ry) {
                    return self.no_overload(name, sig());
                }
                // A float matrix converts implicitly to the double one (§4.1.10).
                let sc = if sx == Sc::Double || sy == Sc::Double {
                    Sc::Double
                } else {
                    Sc::Float
                };
                let (x, y) = (self.mat_in(x, sc)?, self.mat_in(y, sc)?);
                let (a, b) = (self.mat_cols(&x)?, self.mat_cols(&y)?);
                let cols: Vec<V> = a
                    .into_iter()
                    .zip(b)
                    .map(|(p, q)| self.bin(BinOp::Mul, p, q))
                    .collect();
                self.mat_of_cols(&Ty::Mat(sc, cx, rx), &cols)
            }
            ("outerProduct", [Value::V(c), Value::V(r)]) => {
                let (Ty::V(s1, n1), Ty::V(s2, n2)) = (c.ty.clone(), r.ty.clone()) else {
                    return self.no_overload(name, sig());
                };
                if n1 < 2 || n2 < 2 || s1 == Sc::Bool || s2 == Sc::Bool {
                    return self.no_overload(name, sig());
                }
                // The float overload unless an argument converts only to double (§6.1).
                let float_ok = |s: Sc| matches!(s, Sc::Float | Sc::Int | Sc::Uint);
                let sc = if float_ok(s1) && float_ok(s2) {
                    Sc::Float
                } else {
                    Sc::Double
                };
                let c = self.implicit(c.clone(), &Ty::V(sc, n1))?;
                let r = self.implicit(r.clone(), &Ty::V(sc, n2))?;
                // c * r with c a column and r a row: column j is c * r[j]; n2 columns of n1.
                let mut cols = Vec::with_capacity(usize::from(n2));
                for j in 0..usize::from(n2) {
                    let rj = Self::lane(&r, j);
                    let rj = self.splat(rj, n1);
                    cols.push(self.bin(BinOp::Mul, c.clone(), rj));
                }
                self.mat_of_cols(&Ty::Mat(sc, n2, n1), &cols)
            }
            ("transpose", [Value::Agg(m)]) => {
                let Ty::Mat(sc, c, r) = m.ty().clone() else {
                    return self.no_overload(name, sig());
                };
                let e = self.mat_elems(m)?;
                // Column j of the result is row j of m.
                let cols: Vec<V> = (0..usize::from(r))
                    .map(|j| {
                        let row: Vec<V> = e.iter().map(|col| col[j].clone()).collect();
                        self.vec_of(sc, &row)
                    })
                    .collect();
                self.mat_of_cols(&Ty::Mat(sc, r, c), &cols)
            }
            ("determinant" | "inverse", [Value::Agg(m)]) => {
                let Ty::Mat(sc, c, r) = m.ty().clone() else {
                    return self.no_overload(name, sig());
                };
                if c != r {
                    return self.no_overload(name, sig());
                }
                let e = self.mat_elems(m)?;
                let det = self.det(&e);
                if name == "determinant" {
                    return Ok(Value::V(det));
                }
                // inverse = adjugate / det: element (column i, row j) is the cofactor of
                // m's element (column j, row i), over det. Undefined for a singular m (§8.6),
                // flagged where det is 0 (the condition folds for a constant matrix).
                let zero = self.k_float(&det.ty, 0.0);
                let singular = self.cmp(CmpOp::Eq, det.clone(), zero);
                let n = e.len();
                let mut cols = Vec::with_capacity(n);
                for i in 0..n {
                    let mut col = Vec::with_capacity(n);
                    for j in 0..n {
                        let minor = minor_of(&e, j, i);
                        let mut cof = self.det(&minor);
                        if (i + j) % 2 == 1 {
                            cof = self.un(UnOp::Neg, cof);
                        }
                        let q = self.bin(BinOp::Div, cof, det.clone());
                        col.push(self.mark_undefined(
                            q,
                            singular.clone(),
                            crate::ir::UndefinedRule::SingularInverse,
                        ));
                    }
                    cols.push(self.vec_of(sc, &col));
                }
                self.mat_of_cols(&Ty::Mat(sc, c, c), &cols)
            }
            _ => self.no_overload(name, sig()),
        }
    }

    /// The matrix at `p` as the scalar type `sc` (float converted to double, column by column).
    fn mat_in(&mut self, p: &Place, sc: Sc) -> R<Place> {
        match p.ty() {
            Ty::Mat(s, ..) if *s != sc => match self.convert_mat(p, sc)? {
                Value::Agg(q) => Ok(q),
                Value::V(_) => self.err("internal: a converted matrix is not an aggregate"),
            },
            _ => Ok(p.clone()),
        }
    }

    /// The components of the matrix at `p`, `e[column][row]`.
    fn mat_elems(&mut self, p: &Place) -> R<Elems> {
        let cols = self.mat_cols(p)?;
        Ok(cols
            .iter()
            .map(|c| {
                (0..usize::from(c.ty.lanes()))
                    .map(|j| Self::lane(c, j))
                    .collect()
            })
            .collect())
    }

    /// The determinant of the square matrix `e` (1x1 to 4x4): cofactor expansion down
    /// column 0, `sum_j (-1)^j e[0][j] det(minor(0, j))`, terms added in row order.
    fn det(&mut self, e: &Elems) -> V {
        if e.len() == 1 {
            return e[0][0].clone();
        }
        if e.len() == 2 {
            // e00 e11 - e10 e01
            let a = self.bin(BinOp::Mul, e[0][0].clone(), e[1][1].clone());
            let b = self.bin(BinOp::Mul, e[1][0].clone(), e[0][1].clone());
            return self.bin(BinOp::Sub, a, b);
        }
        let mut acc: Option<V> = None;
        for j in 0..e.len() {
            let m = minor_of(e, 0, j);
            let d = self.det(&m);
            let t = self.bin(BinOp::Mul, e[0][j].clone(), d);
            acc = Some(match acc {
                None => t,
                Some(a) if j % 2 == 1 => self.bin(BinOp::Sub, a, t),
                Some(a) => self.bin(BinOp::Add, a, t),
            });
        }
        acc.unwrap_or_else(|| e[0][0].clone())
    }
}

/// `e` without column `col` and row `row`.
fn minor_of(e: &Elems, col: usize, row: usize) -> Elems {
    e.iter()
        .enumerate()
        .filter(|(c, _)| *c != col)
        .map(|(_, column)| {
            column
                .iter()
                .enumerate()
                .filter(|(r, _)| *r != row)
                .map(|(_, v)| v.clone())
                .collect()
        })
        .collect()
}
