//! Matrices (GLSL 4.60 §4.1.6, §5.4.2, §5.9, §5.10): a matrix value is an aggregate in memory
//! (private memory for temporaries, column-major std430), read column by column into
//! registers for arithmetic. Here: the columns of a matrix and a matrix from columns,
//! constructors (every form of §5.4.2), the operators (component-wise +, -, /, scalar
//! operands, and the linear-algebra products matrix × matrix, matrix × vector,
//! vector × matrix: products rounded, then summed in index order, no fused multiply-add), and
//! conversions between float and double matrices.

use super::place::Place;
use super::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, Dst, UnOp};
use glsl_lang::ast;

impl<'a> Lower<'a> {
    /// The columns of a matrix in memory, each loaded into a register.
    pub(super) fn mat_cols(&mut self, p: &Place) -> R<Vec<V>> {
        let Ty::Mat(_, cols, _) = p.ty().clone() else {
            return self.err(format!("expected a matrix, found {}", p.ty()));
        };
        let mut out = Vec::with_capacity(usize::from(cols));
        for c in 0..u32::from(cols) {
            let k = self.k_u32(c);
            let col = self.index_place(p.clone(), &k)?;
            out.push(self.load_v(&col)?);
        }
        Ok(out)
    }

    /// A matrix of type `ty` (a fresh private temporary) holding `cols`.
    pub(super) fn mat_of_cols(&mut self, ty: &Ty, cols: &[V]) -> R<Value> {
        let t = self.alloc_private(ty)?;
        for (c, v) in cols.iter().enumerate() {
            let k = self.k_u32(c as u32);
            let col = self.index_place(t.clone(), &k)?;
            self.store(&col, Value::V(v.clone()))?;
        }
        Ok(Value::Agg(t))
    }

    /// Lane `i` of `v` as a scalar value.
    pub(super) fn lane(v: &V, i: usize) -> V {
        V {
            src: Self::lane_src(v, i),
            ty: Ty::V(v.ty.sc().unwrap_or(Sc::Float), 1),
            k: v.k.map(|k| [k[i.min(3)]; 4]),
        }
    }

    /// A vector of `sc` made of the scalars `parts`.
    pub(super) fn vec_of(&mut self, sc: Sc, parts: &[V]) -> V {
        let n = parts.len() as u8;
        if let Some(ks) = parts
            .iter()
            .map(|p| p.k.map(|k| k[0]))
            .collect::<Option<Vec<_>>>()
        {
            return self.k_lanes(Ty::V(sc, n), |i| ks[i]);
        }
        let t = self.fresh(Ty::V(sc, n));
        for (i, p) in parts.iter().enumerate() {
            // Lane 0 of each part (a scalar's register lane need not be lane i).
            self.b
                .mov(Dst::masked(t.src.reg, 1 << i), Self::lane_src(p, 0));
        }
        t
    }

    /// A matrix converted to the scalar type `to` (float ↔ double), column by column.
    pub(super) fn convert_mat(&mut self, p: &Place, to: Sc) -> R<Value> {
        let Ty::Mat(_, c, r) = p.ty().clone() else {
            return self.err("internal: not a matrix");
        };
        let cols = self.mat_cols(p)?;
        let mut conv = Vec::with_capacity(cols.len());
        for v in cols {
            conv.push(self.convert(v, to)?);
        }
        self.mat_of_cols(&Ty::Mat(to, c, r), &conv)
    }

    /// The matrix constructors of §5.4.2: from one scalar (the diagonal, zeros elsewhere), from
    /// one matrix (its upper-left part, the identity elsewhere), or from scalars and vectors
    /// consumed in column-major order (all components needed, no argument left unused).
    pub(super) fn construct_matrix(&mut self, ty: &Ty, args: &[ast::Expr]) -> R<Value> {
        let Ty::Mat(sc, cols, rows) = ty.clone() else {
            return self.err("internal: not a matrix type");
        };
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.expr(a)?);
        }
        let zero = self.k_float(&Ty::V(sc, 1), 0.0);
        let one = self.k_float(&Ty::V(sc, 1), 1.0);
        let (c, r) = (usize::from(cols), usize::from(rows));
        // element(col, row) → scalar
        let elems: Vec<Vec<V>> = match vals.as_slice() {
            [] => return self.err(format!("constructor {ty} needs arguments")),
            [Value::V(s)] if s.ty.lanes() == 1 => {
                let s = self.convert(s.clone(), sc)?;
                (0..c)
                    .map(|i| {
                        (0..r)
                            .map(|j| if i == j { s.clone() } else { zero.clone() })
                            .collect()
                    })
                    .collect()
            }
            [Value::Agg(p)] if matches!(p.ty(), Ty::Mat(..)) => {
                let Ty::Mat(_, _, sc_rows) = p.ty().clone() else {
                    return self.err("internal: not a matrix");
                };
                let src = self.mat_cols(p)?;
                let mut out = Vec::with_capacity(c);
                for i in 0..c {
                    let mut col = Vec::with_capacity(r);
                    for j in 0..r {
                        let from = src.get(i).filter(|_| j < usize::from(sc_rows));
                        col.push(if let Some(from) = from {
                            let e = Self::lane(from, j);
                            self.convert(e, sc)?
                        } else if i == j {
                            one.clone()
                        } else {
                            zero.clone()
                        });
                    }
                    out.push(col);
                }
                out
            }
            _ => {
                let mut comps: Vec<V> = Vec::with_capacity(c * r);
                for (k, v) in vals.iter().enumerate() {
                    let Value::V(v) = v else {
                        return self.err(format!(
                            "constructor {ty}: a matrix argument must be the only argument"
                        ));
                    };
                    if comps.len() >= c * r {
                        return self.err(format!(
                            "too many arguments to constructor {ty} (argument {} is not used)",
                            k + 1
                        ));
                    }
                    let v = self.convert(v.clone(), sc)?;
                    for l in 0..usize::from(v.ty.lanes()) {
                        comps.push(Self::lane(&v, l));
                    }
                }
                if comps.len() < c * r {
                    return self.err(format!("not enough data for constructor {ty}"));
                }
                (0..c).map(|i| comps[i * r..(i + 1) * r].to_vec()).collect()
            }
        };
        let cols: Vec<V> = elems.iter().map(|col| self.vec_of(sc, col)).collect();
        self.mat_of_cols(ty, &cols)
    }

    /// A binary arithmetic operator with a matrix operand (§5.9): `+ - /` component-wise
    /// (matrix with matrix of the same size, or with a scalar on either side), `*` with a
    /// scalar component-wise, and `*` between matrices and vectors as linear algebra.
    pub(super) fn mat_arith(&mut self, op: &ast::BinaryOpData, x: Value, y: Value) -> R<Value> {
        use ast::BinaryOpData as B;
        let bop = match op {
            B::Add => BinOp::Add,
            B::Sub => BinOp::Sub,
            B::Mult => BinOp::Mul,
            B::Div => BinOp::Div,
            _ => return self.err("this operator is not defined on matrices"),
        };
        // Both sides in the wider float type.
        let sc_of = |v: &Value| match v {
            Value::V(v) => v.ty.sc(),
            Value::Agg(p) => match p.ty() {
                Ty::Mat(s, ..) => Some(*s),
                _ => None,
            },
        };
        let (Some(sx), Some(sy)) = (sc_of(&x), sc_of(&y)) else {
            return self.err("matrix arithmetic needs matrix, vector or scalar operands");
        };
        let sc = if sx == Sc::Double || sy == Sc::Double {
            Sc::Double
        } else {
            Sc::Float
        };
        let x = self.float_operand(x, sc)?;
        let y = self.float_operand(y, sc)?;
        match (x, y) {
            (Value::Agg(a), Value::Agg(b)) => {
                let (ta, tb) = (a.ty().clone(), b.ty().clone());
                let (Ty::Mat(_, ca, ra), Ty::Mat(_, cb, rb)) = (&ta, &tb) else {
                    return self.err(format!("cannot apply the operator to {ta} and {tb}"));
                };
                let (ac, bc) = (self.mat_cols(&a)?, self.mat_cols(&b)?);
                if bop == BinOp::Mul {
                    // (ca x ra) * (cb x rb): ca == rb; column j = sum_k A.col(k) * B[j][k].
                    if ca != rb {
                        return self.err(format!("cannot multiply {ta} by {tb}"));
                    }
                    let cols: Vec<V> = bc.iter().map(|bcol| self.mat_vec(&ac, bcol)).collect();
                    return self.mat_of_cols(&Ty::Mat(sc, *cb, *ra), &cols);
                }
                if ta != tb {
                    return self.err(format!("matrix sizes differ: {ta} and {tb}"));
                }
                let cols: Vec<V> = ac
                    .into_iter()
                    .zip(bc)
                    .map(|(p, q)| self.bin(bop, p, q))
                    .collect();
                self.mat_of_cols(&ta, &cols)
            }
            (Value::Agg(a), Value::V(v)) if v.ty.lanes() == 1 => self.mat_scalar(bop, &a, v, true),
            (Value::V(v), Value::Agg(a)) if v.ty.lanes() == 1 => self.mat_scalar(bop, &a, v, false),
            (Value::Agg(a), Value::V(v)) if bop == BinOp::Mul => {
                // matrix * column vector: sum_k col_k * v[k]
                let ta = a.ty().clone();
                let Ty::Mat(_, c, _) = ta else {
                    return self.err(format!("cannot multiply {ta} by {}", v.ty));
                };
                if v.ty.lanes() != c {
                    return self.err(format!("cannot multiply {ta} by {}", v.ty));
                }
                let cols = self.mat_cols(&a)?;
                Ok(Value::V(self.mat_vec(&cols, &v)))
            }
            (Value::V(v), Value::Agg(a)) if bop == BinOp::Mul => {
                // row vector * matrix: component j = dot(v, col_j)
                let ta = a.ty().clone();
                let Ty::Mat(_, _, r) = ta else {
                    return self.err(format!("cannot multiply {} by {ta}", v.ty));
                };
                if v.ty.lanes() != r {
                    return self.err(format!("cannot multiply {} by {ta}", v.ty));
                }
                let cols = self.mat_cols(&a)?;
                let parts: Vec<V> = cols
                    .into_iter()
                    .map(|c| self.dot_of(v.clone(), c))
                    .collect();
                Ok(Value::V(self.vec_of(sc, &parts)))
            }
            _ => self.err("these operand types do not combine with a matrix"),
        }
    }

    /// `m op s` (`matrix_left`) or `s op m`, component-wise with the scalar `s`.
    fn mat_scalar(&mut self, bop: BinOp, m: &Place, s: V, matrix_left: bool) -> R<Value> {
        let ty = m.ty().clone();
        let Ty::Mat(_, _, r) = ty else {
            return self.err(format!("cannot apply the operator to {ty}"));
        };
        let s = self.splat(s, r);
        self.mat_map(m, |me, c| {
            if matrix_left {
                me.bin(bop, c, s.clone())
            } else {
                me.bin(bop, s.clone(), c)
            }
        })
    }

    /// sum_k cols[k] * v[k], products rounded and summed in order.
    pub(super) fn mat_vec(&mut self, cols: &[V], v: &V) -> V {
        let mut acc: Option<V> = None;
        for (k, col) in cols.iter().enumerate() {
            let s = Self::lane(v, k);
            let s = self.splat(s, col.ty.lanes());
            let p = self.bin(BinOp::Mul, col.clone(), s);
            acc = Some(match acc {
                None => p,
                Some(a) => self.bin(BinOp::Add, a, p),
            });
        }
        acc.unwrap_or_else(|| v.clone())
    }

    /// An operand of matrix arithmetic in the float type `sc`: matrices converted column by
    /// column, scalars and vectors converted implicitly.
    fn float_operand(&mut self, v: Value, sc: Sc) -> R<Value> {
        match v {
            Value::V(v) => {
                let Some(from) = v.ty.sc() else {
                    return self.err("matrix arithmetic needs numbers");
                };
                if from == Sc::Bool {
                    return self.err(format!("cannot combine {} with a matrix", v.ty));
                }
                Ok(Value::V(
                    self.implicit(v.clone(), &Ty::V(sc, v.ty.lanes()))?,
                ))
            }
            Value::Agg(p) => match p.ty() {
                Ty::Mat(s, ..) if *s == sc => Ok(Value::Agg(p)),
                Ty::Mat(..) => self.convert_mat(&p, sc),
                t => self.err(format!("cannot combine {t} with a matrix")),
            },
        }
    }

    /// The matrix whose columns are `f` of the columns of the matrix at `p` (negation,
    /// ++/--, scalar operands).
    pub(super) fn mat_map(&mut self, p: &Place, f: impl Fn(&mut Self, V) -> V) -> R<Value> {
        let ty = p.ty().clone();
        let cols = self.mat_cols(p)?;
        let out: Vec<V> = cols.into_iter().map(|c| f(self, c)).collect();
        self.mat_of_cols(&ty, &out)
    }

    /// -m
    pub(super) fn mat_neg(&mut self, p: &Place) -> R<Value> {
        self.mat_map(p, |s, c| s.un(UnOp::Neg, c))
    }

    /// Component-wise equality of two matrices of one type (a scalar bool).
    pub(super) fn mat_eq(&mut self, p: &Place, q: &Place) -> R<V> {
        let (a, b) = (self.mat_cols(p)?, self.mat_cols(q)?);
        let mut acc = self.k_scalar(Sc::Bool, 1);
        for (x, y) in a.into_iter().zip(b) {
            let c = self.cmp(crate::ir::CmpOp::Eq, x, y);
            let e = self.reduce(c, true);
            acc = self.bool_op(BinOp::And, acc, e);
        }
        Ok(acc)
    }
}
