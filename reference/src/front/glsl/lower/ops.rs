//! Operations on scalar/vector values: conversions (explicit, implicit, splat), per-lane
//! unary, binary and comparison operations, operand unification, the typing of arithmetic and
//! shift operators, and lane reductions. Constant operands are folded with the executor's own
//! arithmetic (`exec::values`), so a folded value is what the instruction would compute.

use super::{Lower, Value, R, V};
use crate::exec::values;
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{BinOp, CmpOp, Dst, Inst, ScalarTy, Src, Ty as ITy, UnOp, UndefinedRule};
use glsl_lang::ast;

impl<'a> Lower<'a> {
    pub(super) fn convert(&mut self, v: V, to: Sc) -> R<V> {
        let Ty::V(from, _) = v.ty else {
            return self.err("cannot convert an aggregate");
        };
        if from == to {
            return Ok(v);
        }
        if from.is_float() && matches!(to, Sc::Uint | Sc::Uint64) {
            // GLSL 4.60 section 5.4.1: "the conversion of a negative floating-point value to
            // an unsigned integer" is undefined, also for values in (-1, 0), which truncate to
            // a representable 0 (the executor already flags what is out of range).
            let zero = self.k_float(&v.ty, 0.0);
            let negative = self.cmp(CmpOp::Lt, v.clone(), zero);
            let r = self.convert_plain(v, to)?;
            return Ok(self.mark_undefined(r, negative, UndefinedRule::NegativeFloatToUnsigned));
        }
        self.convert_plain(v, to)
    }

    /// [`Self::convert`] without the marking of undefined results.
    fn convert_plain(&mut self, v: V, to: Sc) -> R<V> {
        let Ty::V(from, n) = v.ty else {
            return self.err("cannot convert an aggregate");
        };
        let ty = Ty::V(to, n);
        if let Some(k) = v.k {
            return Ok(self.k_lanes(ty, |i| conv_bits(from, to, k[i])));
        }
        let t = self.tmp();
        let dst = Dst::lanes(t, n);
        if to == Sc::Bool {
            let z = self.konst([0; 4]);
            let ty = ITy::new(from.ir(), n);
            self.b.cmp(CmpOp::Ne, ty, dst, v.src, Src::new(z));
        } else if from == Sc::Bool {
            let one = conv_bits(Sc::Bool, to, 1);
            let o = self.konst([one; 4]);
            let z = self.konst([0; 4]);
            self.b.select(n, dst, v.src, Src::new(o), Src::new(z));
        } else {
            self.b.convert(from.ir(), to.ir(), n, dst, v.src);
        }
        Ok(V {
            src: Src::new(t),
            ty,
            k: None,
        })
    }

    /// Implicit conversion (GLSL 4.30 4.1.10) to `to`.
    pub(super) fn implicit(&mut self, v: V, to: &Ty) -> R<V> {
        if v.ty == *to {
            return Ok(v);
        }
        match (&v.ty, to) {
            (Ty::V(a, n), Ty::V(b, m)) if n == m && implicit_ok(*a, *b) => self.convert(v, *b),
            _ => self.err(format!("cannot convert {} to {to}", v.ty)),
        }
    }

    pub(super) fn implicit_value(&mut self, v: Value, to: &Ty) -> R<Value> {
        match v {
            Value::V(v) => Ok(Value::V(self.implicit(v, to)?)),
            Value::Agg(p) => match (p.ty(), to) {
                (a, b) if a == b => Ok(Value::Agg(p)),
                // mat to dmat of the same size (GLSL §4.1.10).
                (Ty::Mat(Sc::Float, c, r), Ty::Mat(Sc::Double, c2, r2)) if c == c2 && r == r2 => {
                    self.convert_mat(&p, Sc::Double)
                }
                _ => self.err(format!("cannot convert {} to {to}", p.ty())),
            },
        }
    }

    pub(super) fn splat(&mut self, v: V, n: u8) -> V {
        if v.ty.lanes() == n {
            return v;
        }
        let sc = v.ty.sc().unwrap_or(Sc::Float);
        V {
            src: Src::splat(v.src.reg, v.src.swz[0]),
            ty: Ty::V(sc, n),
            k: v.k.map(|k| [k[0]; 4]),
        }
    }

    pub(super) fn un(&mut self, op: UnOp, v: V) -> V {
        let Ty::V(sc, n) = v.ty else { return v };
        let it = ITy::new(sc.ir(), n);
        if let Some(k) = v.k {
            return self.k_lanes(v.ty, |i| values::unop(op, sc.ir(), k[i]));
        }
        let t = self.b.un_fresh(op, it, v.src);
        V {
            src: Src::new(t),
            ty: v.ty,
            k: None,
        }
    }

    /// A binary per-lane op on values of identical type `ty` (result type `rty`).
    pub(super) fn bin(&mut self, op: BinOp, a: V, b: V) -> V {
        let ty = a.ty.clone();
        let Ty::V(sc, n) = ty else { return a };
        if let (Some(x), Some(y)) = (a.k, b.k) {
            return self.k_lanes(ty, |i| values::binop(op, sc.ir(), x[i], y[i]));
        }
        let t = self.b.bin_fresh(op, ITy::new(sc.ir(), n), a.src, b.src);
        V {
            src: Src::new(t),
            ty,
            k: None,
        }
    }

    pub(super) fn cmp(&mut self, op: CmpOp, a: V, b: V) -> V {
        let Ty::V(sc, n) = a.ty else { return a };
        let rty = Ty::V(Sc::Bool, n);
        let it = if sc == Sc::Bool {
            ScalarTy::U32
        } else {
            sc.ir()
        };
        if let (Some(x), Some(y)) = (a.k, b.k) {
            return self.k_lanes(rty, |i| u64::from(values::cmp(op, it, x[i], y[i])));
        }
        let t = self.b.cmp_fresh(op, ITy::new(it, n), a.src, b.src);
        V {
            src: Src::new(t),
            ty: rty,
            k: None,
        }
    }

    /// Brings two operands to a common scalar type and lane count.
    pub(super) fn unify(&mut self, a: V, b: V) -> R<(V, V)> {
        let (Ty::V(sa, na), Ty::V(sb, nb)) = (a.ty.clone(), b.ty.clone()) else {
            return self.err("operands must be scalars or vectors");
        };
        let Some(sc) = common_sc(sa, sb) else {
            return self.err(format!(
                "no implicit conversion between {} and {}",
                a.ty, b.ty
            ));
        };
        let a = self.convert(a, sc)?;
        let b = self.convert(b, sc)?;
        if na == nb {
            return Ok((a, b));
        }
        if na == 1 {
            return Ok((self.splat(a, nb), b));
        }
        if nb == 1 {
            return Ok((a, self.splat(b, na)));
        }
        self.err(format!("operand sizes do not match: {} and {}", a.ty, b.ty))
    }

    pub(super) fn arith(&mut self, op: &ast::BinaryOpData, a: V, b: V) -> R<V> {
        use ast::BinaryOpData as B;
        let (a, b) = self.unify(a, b)?;
        let sc = a.ty.sc().unwrap_or(Sc::Bool);
        let iop = match op {
            B::Add => BinOp::Add,
            B::Sub => BinOp::Sub,
            B::Mult => BinOp::Mul,
            B::Div => BinOp::Div,
            B::Mod => BinOp::Rem,
            B::BitAnd => BinOp::And,
            B::BitOr => BinOp::Or,
            B::BitXor => BinOp::Xor,
            B::LShift => BinOp::Shl,
            B::RShift => BinOp::Shr,
            _ => return self.err("internal: not an arithmetic operator"),
        };
        let int_only = matches!(
            iop,
            BinOp::Rem | BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr
        );
        if sc == Sc::Bool || (int_only && !sc.is_int()) {
            return self.err(format!("operator not defined for {}", a.ty));
        }
        if iop == BinOp::Div && sc.is_signed_int() {
            // GLSL 4.60 section 4.1.3: "Division resulting in overflow will result in an
            // undefined value": the minimum integer by -1 (a zero divisor the executor flags).
            let bits = sc.ir().bits;
            let min = 1u64 << (bits - 1);
            let all = sc.ir().mask();
            let kmin = self.k_lanes(a.ty.clone(), |_| min);
            let kneg1 = self.k_lanes(a.ty.clone(), |_| all);
            let is_min = self.cmp(CmpOp::Eq, a.clone(), kmin);
            let is_neg1 = self.cmp(CmpOp::Eq, b.clone(), kneg1);
            let cond = self.bool_op(BinOp::And, is_min, is_neg1);
            let r = self.bin(iop, a, b);
            return Ok(self.mark_undefined(r, cond, UndefinedRule::GlslDivisionOverflow));
        }
        if iop == BinOp::Rem && sc.is_signed_int() {
            // GLSL 4.60 section 5.9: "If both operands are non-negative, then the remainder
            // is non-negative. Results are undefined if one or both operands are negative."
            let zero = self.k_lanes(a.ty.clone(), |_| 0);
            let a_neg = self.cmp(CmpOp::Lt, a.clone(), zero.clone());
            let b_neg = self.cmp(CmpOp::Lt, b.clone(), zero);
            let cond = self.bool_op(BinOp::Or, a_neg, b_neg);
            let r = self.bin(iop, a, b);
            return Ok(self.mark_undefined(r, cond, UndefinedRule::GlslRemNegative));
        }
        Ok(self.bin(iop, a, b))
    }

    /// `v` with its lanes where `cond` holds marked undefined ([`Inst::MarkUndefined`]): the
    /// executor flags them where they are used. A constant `v` is copied to a register of its
    /// own first (constants are shared); a `cond` false in every lane marks nothing.
    pub(super) fn mark_undefined(&mut self, v: V, cond: V, why: UndefinedRule) -> V {
        let n = v.ty.lanes();
        if cond
            .k
            .is_some_and(|k| k.iter().take(n as usize).all(|x| *x == 0))
        {
            return v;
        }
        let cond = self.splat(cond, n);
        let v = if v.k.is_some() {
            let t = self.tmp();
            self.emit(Inst::Mov {
                dst: Dst::lanes(t, n),
                a: v.src,
            });
            V {
                src: Src::new(t),
                ty: v.ty,
                k: None,
            }
        } else {
            v
        };
        let Src { reg, .. } = v.src;
        // A result register the front end just made: its lanes are the value's.
        if v.src == Src::new(reg) {
            self.emit(Inst::MarkUndefined {
                lanes: n,
                dst: Dst::lanes(reg, n),
                cond: cond.src,
                why,
            });
            return v;
        }
        // A swizzled view: copy it out first.
        let t = self.tmp();
        self.emit(Inst::Mov {
            dst: Dst::lanes(t, n),
            a: v.src,
        });
        self.emit(Inst::MarkUndefined {
            lanes: n,
            dst: Dst::lanes(t, n),
            cond: cond.src,
            why,
        });
        V {
            src: Src::new(t),
            ty: v.ty,
            k: None,
        }
    }

    pub(super) fn shift(&mut self, op: &ast::BinaryOpData, a: V, b: V) -> R<V> {
        // Shifts: operand types may differ in signedness; result has the type of a.
        let (Some(sa), Some(sb)) = (a.ty.sc(), b.ty.sc()) else {
            return self.err("shift operands must be integers");
        };
        if !sa.is_int() || !sb.is_int() {
            return self.err("shift operands must be integers");
        }
        let n = a.ty.lanes();
        if b.ty.lanes() != n && b.ty.lanes() != 1 {
            return self.err("shift operand sizes do not match");
        }
        let b = self.splat(b, n);
        let b = V {
            ty: a.ty.clone(),
            ..b
        };
        let op = if matches!(op, ast::BinaryOpData::LShift) {
            BinOp::Shl
        } else {
            BinOp::Shr
        };
        Ok(self.bin(op, a, b))
    }

    /// all (and = true) / any (and = false) of the lanes of a bool vector.
    pub(super) fn reduce(&mut self, c: V, and: bool) -> V {
        let op = if and { BinOp::And } else { BinOp::Or };
        // On the 0/1 bits of the bools, as uint.
        let r = self.fold_lanes(&c, op, Ty::UINT);
        V { ty: Ty::BOOL, ..r }
    }

    /// `a op b` for bools or bool vectors `a` and `b` of one size (`op` And or Or, per lane on
    /// their 0/1 bits as uint).
    pub(super) fn bool_op(&mut self, op: BinOp, a: V, b: V) -> V {
        let n = a.ty.lanes();
        let u = Ty::V(Sc::Uint, n);
        let r = self.bin(op, V { ty: u.clone(), ..a }, V { ty: u, ..b });
        V {
            ty: Ty::V(Sc::Bool, n),
            ..r
        }
    }

    /// The lanes of `v` combined left to right with `op` (`v.x op v.y op ...`), each read as
    /// the scalar type `lane_ty`, which the result has.
    pub(super) fn fold_lanes(&mut self, v: &V, op: BinOp, lane_ty: Ty) -> V {
        let lane = |i: usize| V {
            src: Self::lane_src(v, i),
            ty: lane_ty.clone(),
            k: v.k.map(|k| [k[i], 0, 0, 0]),
        };
        let mut acc = lane(0);
        for i in 1..v.ty.lanes() as usize {
            acc = self.bin(op, acc, lane(i));
        }
        acc
    }
}

/// The implicit conversions of GLSL 4.60 §4.1.10, with the 64-bit integer rows of
/// GL_ARB_gpu_shader_int64 ("Modify Section 4.1.10").
pub(super) fn implicit_ok(from: Sc, to: Sc) -> bool {
    use Sc::*;
    match from {
        Int => matches!(to, Uint | Int64 | Uint64 | Float | Double),
        Uint => matches!(to, Uint64 | Float | Double),
        Int64 => matches!(to, Uint64 | Double),
        Uint64 | Float => to == Double,
        Bool | Double => false,
    }
}

/// The type two operands of a binary operator are converted to: the first of the types both
/// convert to implicitly, in the order of GL_ARB_gpu_shader_int64's issue 2 ("a common type
/// that is as close as possible in size and type to the original expression").
pub(super) fn common_sc(a: Sc, b: Sc) -> Option<Sc> {
    use Sc::*;
    if a == b {
        return Some(a);
    }
    [Uint, Int64, Uint64, Float, Double]
        .into_iter()
        .find(|&c| (a == c || implicit_ok(a, c)) && (b == c || implicit_ok(b, c)))
}

pub(super) fn conv_ok(from: &Ty, to: &Ty) -> bool {
    match (from, to) {
        (Ty::V(a, n), Ty::V(b, m)) => n == m && implicit_ok(*a, *b),
        _ => false,
    }
}

/// Converts one lane's bits between GLSL scalar types as a constructor would.
pub(super) fn conv_bits(from: Sc, to: Sc, v: u64) -> u64 {
    if from == to {
        return v;
    }
    if to == Sc::Bool {
        return u64::from(
            !values::cmp(CmpOp::Eq, from.ir(), v, 0) || (from.is_float() && is_nan(from, v)),
        );
    }
    if from == Sc::Bool {
        return match to {
            Sc::Float => u64::from(1.0f32.to_bits()),
            Sc::Double => 1.0f64.to_bits(),
            _ => 1 & v,
        } * (v & 1);
    }
    values::convert(from.ir(), to.ir(), v)
}

fn is_nan(sc: Sc, v: u64) -> bool {
    match sc {
        Sc::Float => f32::from_bits(v as u32).is_nan(),
        Sc::Double => f64::from_bits(v).is_nan(),
        _ => false,
    }
}
