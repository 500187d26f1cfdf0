//! Expressions: literals, variables (constants folded), indexing, fields and swizzles, unary
//! and binary operators (short-circuit `&&`/`||`, aggregate `==`), `?:`, assignments and
//! `++`/`--`. Every read of a variable copies it into a fresh register, so that side effects
//! later in an expression cannot change an operand already evaluated.

use super::ops::{conv_bits, implicit_ok};
use super::place::{parse_swizzle, Place};
use super::{Fail, Lower, Sym, Value, R, V};
use crate::front::glsl::literals::IntLiteral;
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, CmpOp, Dst, Src, UnOp};
use glsl_lang::ast::{self, ExprData};

impl<'a> Lower<'a> {
    pub(super) fn rv(&mut self, e: &ast::Expr) -> R<V> {
        match self.expr(e)? {
            Value::V(v) => Ok(v),
            Value::Agg(p) => self.err(format!(
                "expected a scalar or vector expression, found {}",
                p.ty()
            )),
        }
    }

    pub(super) fn bool_rv(&mut self, e: &ast::Expr) -> R<V> {
        let v = self.rv(e)?;
        if v.ty != Ty::BOOL {
            return self.err(format!("condition must be a scalar bool, found {}", v.ty));
        }
        Ok(v)
    }

    pub(super) fn expr(&mut self, e: &ast::Expr) -> R<Value> {
        self.at(&e.span);
        match &**e {
            ExprData::IntConst(_) if self.int_literal().is_some() => {
                let Some(lit) = self.int_literal() else {
                    return self.err("internal: integer literal vanished");
                };
                if !lit.wide {
                    // An int with its sign bit set: the bits unmodified (GLSL 4.60 4.1.3).
                    return Ok(Value::V(self.k_scalar(Sc::Int, lit.bits)));
                }
                if !self.has_ext("GL_ARB_gpu_shader_int64") {
                    return self.err("64-bit integer literals (suffix l, L, ul, UL) need #extension GL_ARB_gpu_shader_int64");
                }
                let sc = if lit.unsigned { Sc::Uint64 } else { Sc::Int64 };
                Ok(Value::V(self.k_scalar(sc, lit.bits)))
            }
            ExprData::IntConst(i) => Ok(Value::V(self.k_scalar(Sc::Int, u64::from(*i as u32)))),
            ExprData::UIntConst(u) => Ok(Value::V(self.k_scalar(Sc::Uint, u64::from(*u)))),
            ExprData::BoolConst(b) => Ok(Value::V(self.k_scalar(Sc::Bool, u64::from(*b)))),
            ExprData::FloatConst(f) => {
                Ok(Value::V(self.k_scalar(Sc::Float, u64::from(f.to_bits()))))
            }
            ExprData::DoubleConst(d) => Ok(Value::V(self.k_scalar(Sc::Double, d.to_bits()))),
            ExprData::Variable(id) => {
                if let Some(Sym::Const(v)) = self.lookup(id.as_str()) {
                    return Ok(Value::V(v));
                }
                if self.lookup(id.as_str()).is_none() {
                    return Ok(Value::V(self.builtin_var(id.as_str())?));
                }
                let p = self.place_of(e)?;
                self.load(&p)
            }
            ExprData::Bracket(..) | ExprData::Dot(..) => {
                // Constant folding of swizzles / indices of constants.
                if let ExprData::Dot(base, f) = &**e {
                    if let Ok(Value::V(bv)) = self.peek_const(base) {
                        if let (Some(k), Ty::V(sc, n)) = (bv.k, &bv.ty) {
                            let comps = parse_swizzle(f.as_str(), *n).ok_or_else(|| {
                                Fail::Compile(
                                    self.diag(format!("invalid swizzle '.{}'", f.as_str())),
                                )
                            })?;
                            let ty = Ty::V(*sc, comps.len() as u8);
                            return Ok(Value::V(self.k_lanes(ty, |i| k[comps[i] as usize])));
                        }
                    }
                }
                let p = self.place_of(e)?;
                self.load(&p)
            }
            ExprData::Unary(op, a) => self.unary(op, a),
            ExprData::Binary(op, a, b) => self.binary(op, a, b),
            ExprData::Ternary(c, a, b) => self.ternary(c, a, b),
            ExprData::Assignment(l, op, r) => self.assign(l, op, r),
            ExprData::PostInc(a) => self.incdec(a, true, true),
            ExprData::PostDec(a) => self.incdec(a, false, true),
            ExprData::Comma(a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
            ExprData::FunCall(f, args) => self.call(f, args),
        }
    }

    /// The integer literal the lexer could not read at the current offset, if the source had
    /// one there (see `front::glsl::literals`).
    fn int_literal(&self) -> Option<IntLiteral> {
        let sh = self.shaders.get(self.cur)?;
        sh.parsed.int_literals.get(&self.off).copied()
    }

    /// Evaluates an expression when it is a constant-foldable variable or literal (no code).
    fn peek_const(&mut self, e: &ast::Expr) -> R<Value> {
        match &**e {
            ExprData::Variable(id) => match self.lookup(id.as_str()) {
                Some(Sym::Const(v)) => Ok(Value::V(v)),
                None if id.as_str().starts_with("gl_Max") || id.as_str() == "gl_WorkGroupSize" => {
                    Ok(Value::V(self.builtin_var(id.as_str())?))
                }
                _ => self.err("not constant"),
            },
            _ => self.err("not constant"),
        }
    }

    fn unary(&mut self, op: &ast::UnaryOp, a: &ast::Expr) -> R<Value> {
        use ast::UnaryOpData as U;
        match &**op {
            U::Inc => self.incdec(a, true, false),
            U::Dec => self.incdec(a, false, false),
            U::Add | U::Minus => {
                let minus = matches!(&**op, U::Minus);
                let v = match self.expr(a)? {
                    Value::Agg(p) if matches!(p.ty(), Ty::Mat(..)) => {
                        return if minus {
                            self.mat_neg(&p)
                        } else {
                            Ok(Value::Agg(p))
                        };
                    }
                    v => self.scalar_or_vector(v)?,
                };
                match v.ty.sc() {
                    Some(s) if s.is_num() && minus => Ok(Value::V(self.un(UnOp::Neg, v))),
                    Some(s) if s.is_num() => Ok(Value::V(v)),
                    _ => self.err(format!(
                        "unary + and - need a numeric operand, found {}",
                        v.ty
                    )),
                }
            }
            U::Not => {
                let v = self.rv(a)?;
                if v.ty != Ty::BOOL {
                    return self.err(format!("! needs a scalar bool, found {}", v.ty));
                }
                Ok(Value::V(self.un(UnOp::Not, v)))
            }
            U::Complement => {
                let v = self.rv(a)?;
                match v.ty.sc() {
                    Some(s) if s.is_int() => Ok(Value::V(self.un(UnOp::Not, v))),
                    _ => self.err(format!("~ needs an integer operand, found {}", v.ty)),
                }
            }
        }
    }

    fn binary(&mut self, op: &ast::BinaryOp, a: &ast::Expr, b: &ast::Expr) -> R<Value> {
        use ast::BinaryOpData as B;
        match &**op {
            B::And | B::Or => {
                let x = self.bool_rv(a)?;
                if let Some(k) = x.k {
                    let short = (k[0] != 0) == matches!(&**op, B::Or);
                    if short {
                        return Ok(Value::V(x));
                    }
                    return Ok(Value::V(self.bool_rv(b)?));
                }
                let r = self.b.mov_fresh(1, x.src);
                let cond = if matches!(&**op, B::And) {
                    Src::new(r)
                } else {
                    let n = self.un(
                        UnOp::Not,
                        V {
                            src: Src::new(r),
                            ty: Ty::BOOL,
                            k: None,
                        },
                    );
                    n.src
                };
                let ifpc = self.b.open_if(cond);
                let y = self.bool_rv(b)?;
                self.b.mov(Dst::masked(r, 1), y.src);
                self.b.close_if(ifpc, None);
                Ok(Value::V(V {
                    src: Src::new(r),
                    ty: Ty::BOOL,
                    k: None,
                }))
            }
            B::Xor => {
                let x = self.bool_rv(a)?;
                let y = self.bool_rv(b)?;
                Ok(Value::V(self.cmp(CmpOp::Ne, x, y)))
            }
            B::Equal | B::NonEqual => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                let eq = matches!(&**op, B::Equal);
                let (x, y) = match (x, y) {
                    (Value::V(x), Value::V(y)) => (x, y),
                    (Value::Agg(p), Value::Agg(q)) => {
                        if p.ty() != q.ty() {
                            return self.err(format!("cannot compare {} with {}", p.ty(), q.ty()));
                        }
                        let r = self.agg_eq(&p, &q)?;
                        return Ok(Value::V(if eq { r } else { self.un(UnOp::Not, r) }));
                    }
                    _ => return self.err("cannot compare an aggregate with a scalar or vector"),
                };
                let (x, y) = self.unify(x, y)?;
                if x.ty.lanes() != y.ty.lanes() {
                    return self.err("operand sizes do not match");
                }
                let eq = matches!(&**op, B::Equal);
                let c = self.cmp(if eq { CmpOp::Eq } else { CmpOp::Ne }, x, y);
                Ok(Value::V(self.reduce(c, eq)))
            }
            B::Lt | B::Gt | B::Lte | B::Gte => {
                let x = self.rv(a)?;
                let y = self.rv(b)?;
                let (x, y) = self.unify(x, y)?;
                if x.ty.lanes() != 1 || x.ty == Ty::BOOL {
                    return self.err(format!(
                        "relational operators need scalar numbers, found {} (use lessThan & co.)",
                        x.ty
                    ));
                }
                let c = match &**op {
                    B::Lt => CmpOp::Lt,
                    B::Gt => CmpOp::Gt,
                    B::Lte => CmpOp::Le,
                    _ => CmpOp::Ge,
                };
                Ok(Value::V(self.cmp(c, x, y)))
            }
            B::LShift | B::RShift => {
                let x = self.rv(a)?;
                let y = self.rv(b)?;
                Ok(Value::V(self.shift(op, x, y)?))
            }
            o => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                if is_matrix(&x) || is_matrix(&y) {
                    return self.mat_arith(o, x, y);
                }
                let (x, y) = (self.scalar_or_vector(x)?, self.scalar_or_vector(y)?);
                Ok(Value::V(self.arith(o, x, y)?))
            }
        }
    }

    /// A scalar or vector value, or the compile error for an aggregate where one is needed.
    pub(super) fn scalar_or_vector(&self, v: Value) -> R<V> {
        match v {
            Value::V(v) => Ok(v),
            Value::Agg(p) => self.err(format!(
                "expected a scalar or vector expression, found {}",
                p.ty()
            )),
        }
    }

    /// Element-wise equality of two aggregates of the same type (a scalar bool).
    fn agg_eq(&mut self, p: &Place, q: &Place) -> R<V> {
        match p.ty().clone() {
            Ty::Mat(..) => self.mat_eq(p, q),
            Ty::V(..) => {
                let a = self.load_v(p)?;
                let b = self.load_v(q)?;
                let c = self.cmp(CmpOp::Eq, a, b);
                Ok(self.reduce(c, true))
            }
            Ty::Array(_, Some(n)) => {
                if n > 4096 {
                    return self.unsup("comparing arrays of more than 4096 elements");
                }
                let mut acc = self.k_scalar(Sc::Bool, 1);
                for i in 0..n {
                    let k = self.k_u32(i);
                    let a = self.index_place(p.clone(), &k)?;
                    let b = self.index_place(q.clone(), &k)?;
                    let e = self.agg_eq(&a, &b)?;
                    acc = self.bool_op(BinOp::And, acc, e);
                }
                Ok(acc)
            }
            Ty::Struct(sd) => {
                let mut acc = self.k_scalar(Sc::Bool, 1);
                for (name, _) in sd.fields.clone() {
                    let a = self.field_place(p.clone(), &name)?;
                    let b = self.field_place(q.clone(), &name)?;
                    let e = self.agg_eq(&a, &b)?;
                    acc = self.bool_op(BinOp::And, acc, e);
                }
                Ok(acc)
            }
            t => self.err(format!("cannot compare values of type {t}")),
        }
    }

    fn ternary(&mut self, c: &ast::Expr, a: &ast::Expr, b: &ast::Expr) -> R<Value> {
        let cv = self.bool_rv(c)?;
        if let Some(k) = cv.k {
            // Constant condition: only the selected operand is evaluated.
            return if k[0] != 0 {
                self.expr(a)
            } else {
                self.expr(b)
            };
        }
        let ifpc = self.b.open_if(cv.src);
        let x = self.expr(a)?;
        let (res, rty) = match &x {
            Value::V(v) => {
                let r = self.b.mov_fresh(v.ty.lanes(), v.src);
                (Place::reg(r, v.ty.clone()), v.ty.clone())
            }
            Value::Agg(p) => {
                let t = self.alloc_private(p.ty())?;
                self.copy_agg(&t, p)?;
                (t, p.ty().clone())
            }
        };
        let elsepc = self.b.open_else(ifpc);
        let y = self.expr(b)?;
        // The else operand may have the higher type (GLSL converts the other operand).
        let widen_then = match (&y, &rty) {
            (Value::V(yv), Ty::V(a, n)) => match yv.ty {
                Ty::V(b, m) if m == *n && b != *a && implicit_ok(*a, b) => Some(b),
                _ => None,
            },
            _ => None,
        };
        let y_ty = widen_then
            .map(|b| Ty::V(b, rty.lanes()))
            .unwrap_or(rty.clone());
        let y = match self.implicit_value(y, &y_ty) {
            Ok(y) => y,
            Err(_) => {
                return self.err(format!(
                    "the second and third operands of ?: have different types ({rty} and another)"
                ))
            }
        };
        let res2 = match (&res, widen_then) {
            (Place::Reg { ty, .. }, Some(b)) => Place::reg(self.tmp(), Ty::V(b, ty.lanes())),
            _ => res.clone(),
        };
        self.store(&res2, y)?;
        self.b.close_if(ifpc, Some(elsepc));
        if let Some(b) = widen_then {
            // res holds the then-value (old type), res2 the else-value (new type).
            let tv = self.load_v(&res)?;
            let tv = self.convert(tv, b)?;
            let ev = self.load_v(&res2)?;
            let n = rty.lanes();
            let out = self.fresh(Ty::V(b, n));
            let cond = Src::splat(cv.src.reg, cv.src.swz[0]);
            self.b
                .select(n, Dst::lanes(out.src.reg, n), cond, tv.src, ev.src);
            return Ok(Value::V(out));
        }
        self.load(&res)
    }

    fn assign(&mut self, l: &ast::Expr, op: &ast::AssignmentOp, r: &ast::Expr) -> R<Value> {
        use ast::AssignmentOpData as A;
        use ast::BinaryOpData as B;
        let p = self.place_of(l)?;
        if p.ro() {
            return self.err("assignment to a read-only l-value (const, uniform, built-in input, readonly buffer member or swizzle with repeated components)");
        }
        let pty = p.ty().clone();
        let v = match &**op {
            A::Equal => {
                let v = self.expr(r)?;
                self.at(&l.span);
                self.implicit_value(v, &pty)?
            }
            o => {
                let bop = match o {
                    A::Mult => B::Mult,
                    A::Div => B::Div,
                    A::Mod => B::Mod,
                    A::Add => B::Add,
                    A::Sub => B::Sub,
                    A::LShift => B::LShift,
                    A::RShift => B::RShift,
                    A::And => B::BitAnd,
                    A::Xor => B::BitXor,
                    _ => B::BitOr,
                };
                let cur = self.load(&p)?;
                let rhs = self.expr(r)?;
                if is_matrix(&cur) || is_matrix(&rhs) {
                    // m op= x is m = m op x: the result must have m's type (m *= m2 needs
                    // a square m2, v *= m a square m).
                    let res = self.mat_arith(&bop, cur, rhs)?;
                    let res = self.implicit_value(res, &pty)?;
                    self.store(&p, res.clone())?;
                    return Ok(res);
                }
                let (cur, rhs) = (self.scalar_or_vector(cur)?, self.scalar_or_vector(rhs)?);
                let res = if matches!(bop, B::LShift | B::RShift) {
                    self.shift(&bop, cur, rhs)?
                } else {
                    self.arith(&bop, cur, rhs)?
                };
                Value::V(self.implicit(res, &pty)?)
            }
        };
        self.store(&p, v.clone())?;
        Ok(match v {
            Value::V(v) => Value::V(self.snap(v)),
            a => a,
        })
    }

    fn incdec(&mut self, a: &ast::Expr, inc: bool, post: bool) -> R<Value> {
        let p = self.place_of(a)?;
        if p.ro() {
            return self.err("++/-- needs a writable l-value");
        }
        if let Ty::Mat(sc, _, _) = p.ty().clone() {
            // Every component steps by one (§5.9).
            let op = if inc { BinOp::Add } else { BinOp::Sub };
            let one = conv_bits(Sc::Int, sc, 1);
            let old = self.mat_map(&p, |_, c| c)?;
            let new = self.mat_map(&p, |s, c| {
                let k = s.kv(c.ty.clone(), [one; 4]);
                s.bin(op, c, k)
            })?;
            self.store(&p, new.clone())?;
            return Ok(if post { old } else { new });
        }
        let old = self.load_v(&p)?;
        let Ty::V(sc, n) = old.ty else {
            return self.err("++/-- needs a number");
        };
        if !sc.is_num() {
            return self.err("++/-- needs a number");
        }
        let one = conv_bits(Sc::Int, sc, 1);
        let k = self.kv(Ty::V(sc, n), [one; 4]);
        let new = self.bin(if inc { BinOp::Add } else { BinOp::Sub }, old.clone(), k);
        self.store(&p, Value::V(new.clone()))?;
        Ok(Value::V(if post { old } else { new }))
    }
}

/// Whether a value is a matrix.
fn is_matrix(v: &Value) -> bool {
    matches!(v, Value::Agg(p) if matches!(p.ty(), Ty::Mat(..)))
}
