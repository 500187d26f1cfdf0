//! One instruction of a block: the dispatch by opcode, and the arithmetic, logic, comparison
//! (with SPIR-V's ordered and unordered float comparisons) and conversion forms. Memory,
//! composites, GLSL.std.450, atomics and calls are in their own modules.

use super::{Base, Fcx, Lowerer, Val, R};
use crate::front::spirv::module::id_at;
use crate::ir::{
    AtomicOp, BinOp, Builder, CmpOp, Dst, Inst, Kind, Reg, ScalarTy, Scope, Space, Src, Ty, UnOp,
};
use rspirv::dr::Instruction;
use rspirv::spirv::Op;

impl<'a, 'm> Lowerer<'a, 'm> {
    /// The type of operand 0 and the registers of operands 0 and 1 (a binary instruction).
    fn binary_operands(&self, fcx: &Fcx, inst: &Instruction) -> R<(Ty, Reg, Reg)> {
        let (s, lanes) = self.operand_ty(inst, 0)?;
        let (a, b) = (
            self.reg_operand(fcx, inst, 0)?,
            self.reg_operand(fcx, inst, 1)?,
        );
        Ok((Ty::new(s, lanes), a, b))
    }

    /// A binary instruction on operands 0 and 1, typed as operand 0 with `kind` forced, into
    /// the result: `emit` is the builder helper that appends it.
    fn binary(
        &mut self,
        fcx: &mut Fcx,
        inst: &Instruction,
        kind: Kind,
        emit: impl FnOnce(&mut Builder, Ty, Dst, Src, Src) -> u32,
    ) -> R<()> {
        let (ty, a, b) = self.binary_operands(fcx, inst)?;
        let d = self.result_reg(fcx, inst);
        let ty = Ty::new(Self::with_kind(ty.scalar, kind), ty.lanes);
        emit(&mut self.b, ty, Dst::new(d), Src::new(a), Src::new(b));
        Ok(())
    }

    fn bin(&mut self, fcx: &mut Fcx, inst: &Instruction, op: BinOp, kind: Kind) -> R<()> {
        self.binary(fcx, inst, kind, |b, ty, d, x, y| b.bin(op, ty, d, x, y))
    }

    /// OpSDiv, OpSRem, OpSMod: the SPIR-V specification leaves the result undefined "if
    /// Operand 2 is -1 and Operand 1 is the minimum representable value for the operands'
    /// type" (as for a zero divisor, which the executor flags itself); those lanes are marked.
    fn signed_div(&mut self, fcx: &mut Fcx, inst: &Instruction, op: BinOp) -> R<()> {
        let (ty, a, b) = self.binary_operands(fcx, inst)?;
        let d = self.result_reg(fcx, inst);
        let st = Ty::new(Self::with_kind(ty.scalar, Kind::S), ty.lanes);
        let both = self
            .b
            .signed_division_overflow(st, Src::new(a), Src::new(b));
        self.b.bin(op, st, Dst::new(d), Src::new(a), Src::new(b));
        self.b.mark_undefined(
            ty.lanes,
            d,
            both,
            crate::ir::UndefinedRule::SignedDivisionOverflow,
        );
        if matches!(op, BinOp::Rem | BinOp::Mod) {
            // ARB_gl_spirv A.spv.6: "For the OpSRem and OpSMod instructions, if either
            // operand is negative the result is undefined." (The SPIR-V specification gives
            // them signs; OpenGL's environment takes that back.)
            let negative = self.b.either_negative(st, Src::new(a), Src::new(b));
            self.b.mark_undefined(
                ty.lanes,
                d,
                negative,
                crate::ir::UndefinedRule::SpirvRemNegative,
            );
        }
        Ok(())
    }

    /// OpBitFieldInsert, OpBitFieldSExtract, OpBitFieldUExtract: "The resulting value is
    /// undefined if Count or Offset or their sum is greater than the number of bits in the
    /// result" (both consumed as unsigned): the lanes of `d` are marked where they are.
    fn bitfield_range(&mut self, s: ScalarTy, lanes: u8, d: Reg, off: Reg, cnt: Reg) {
        let (off, cnt) = (Src::splat(off, 0), Src::splat(cnt, 0));
        let bad = self.b.bitfield_range(lanes, s.bits, off, cnt, false);
        self.b
            .mark_undefined(lanes, d, bad, crate::ir::UndefinedRule::BitfieldRange);
    }

    fn un(&mut self, fcx: &mut Fcx, inst: &Instruction, op: UnOp, kind: Kind, arg: usize) -> R<()> {
        let (s, lanes) = self.operand_ty(inst, arg)?;
        let a = self.reg_operand(fcx, inst, arg)?;
        let d = self.result_reg(fcx, inst);
        self.b.un(
            op,
            Ty::new(Self::with_kind(s, kind), lanes),
            Dst::new(d),
            Src::new(a),
        );
        Ok(())
    }

    fn cmp(&mut self, fcx: &mut Fcx, inst: &Instruction, op: CmpOp, kind: Kind) -> R<()> {
        self.binary(fcx, inst, kind, |b, ty, d, x, y| b.cmp(op, ty, d, x, y))
    }

    /// Float comparison with SPIR-V's ordered/unordered reading.
    fn fcmp(&mut self, fcx: &mut Fcx, inst: &Instruction, op: CmpOp, ordered: bool) -> R<()> {
        let (ty, a, b) = self.binary_operands(fcx, inst)?;
        let bt = Ty::new(ScalarTy::BOOL, ty.lanes);
        let d = self.result_reg(fcx, inst);
        // IR: ordered except Ne (true on NaN).
        let cmp = |s: &mut Self, op: CmpOp, dst: Reg, x: Reg, y: Reg| {
            s.b.cmp(op, ty, Dst::new(dst), Src::new(x), Src::new(y));
        };
        let logic = |s: &mut Self, op: BinOp, dst: Reg, x: Reg, y: Reg| {
            s.b.bin(op, bt, Dst::new(dst), Src::new(x), Src::new(y));
        };
        // dst = a != b && a == a && b == b, through t.
        let ordered_ne = |s: &mut Self, t: Reg, dst: Reg| {
            let (oa, ob) = (s.b.reg(), s.b.reg());
            cmp(s, CmpOp::Ne, t, a, b);
            cmp(s, CmpOp::Eq, oa, a, a);
            cmp(s, CmpOp::Eq, ob, b, b);
            logic(s, BinOp::And, t, t, oa);
            logic(s, BinOp::And, dst, t, ob);
        };
        match (ordered, op) {
            (true, CmpOp::Ne) => {
                let t = self.b.reg();
                ordered_ne(self, t, d);
            }
            (true, _) | (false, CmpOp::Ne) => cmp(self, op, d, a, b),
            (false, _) => {
                // Unordered X = !(ordered inverse of X); the inverse of Eq is the IR's Ne,
                // which is already true on NaN, so FUnordEqual = !(a != b && ordered).
                let t = self.b.reg();
                if op == CmpOp::Eq {
                    ordered_ne(self, t, t);
                } else {
                    let inv = match op {
                        CmpOp::Lt => CmpOp::Ge,
                        CmpOp::Le => CmpOp::Gt,
                        CmpOp::Gt => CmpOp::Le,
                        _ => CmpOp::Lt,
                    };
                    cmp(self, inv, t, a, b);
                }
                self.b.un(UnOp::Not, bt, Dst::new(d), Src::new(t));
            }
        }
        Ok(())
    }

    fn convert(&mut self, fcx: &mut Fcx, inst: &Instruction, fk: Kind, tk: Kind) -> R<()> {
        let (fs, lanes) = self.operand_ty(inst, 0)?;
        let (ts, _) = self.result_ty(inst)?;
        let a = self.reg_operand(fcx, inst, 0)?;
        let d = self.result_reg(fcx, inst);
        self.b.convert(
            Self::with_kind(fs, fk),
            Self::with_kind(ts, tk),
            lanes,
            Dst::new(d),
            Src::new(a),
        );
        Ok(())
    }

    /// OpIAddCarry, OpISubBorrow, OpUMulExtended, OpSMulExtended: a struct of two integers of
    /// the operands' type, the low result and the carry (1 or 0), the borrow (1 or 0) or the
    /// high half of the double-width product.
    fn extended_arith(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let (ty, a, b) = self.binary_operands(fcx, inst)?;
        let u = Ty::new(Self::with_kind(ty.scalar, Kind::U), ty.lanes);
        let (x, y) = (Src::new(a), Src::new(b));
        let (low_op, signed_hi) = match inst.class.opcode {
            Op::IAddCarry => (BinOp::Add, None),
            Op::ISubBorrow => (BinOp::Sub, None),
            Op::UMulExtended => (BinOp::Mul, Some(false)),
            _ => (BinOp::Mul, Some(true)),
        };
        let low = self.b.bin_fresh(low_op, u, x, y);
        let high = match signed_hi {
            Some(signed) => {
                let k = if signed { Kind::S } else { Kind::U };
                let t = Ty::new(Self::with_kind(ty.scalar, k), ty.lanes);
                self.b.bin_fresh(BinOp::MulHi, t, x, y)
            }
            None => {
                // Carry out of a + b: the wrapped sum is below a. Borrow of a - b: a < b.
                let out = if low_op == BinOp::Add {
                    self.b.cmp_fresh(CmpOp::Lt, u, Src::new(low), x)
                } else {
                    self.b.cmp_fresh(CmpOp::Lt, u, x, y)
                };
                let one = self.b.interned_constant([1; 4]);
                let zero = self.b.interned_constant([0; 4]);
                self.select_fresh(ty.lanes, Src::new(out), Src::new(one), Src::new(zero))
            }
        };
        self.set(fcx, inst, Val::C(vec![Val::R(low), Val::R(high)]));
        Ok(())
    }

    pub(super) fn inst(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        use Kind::{F, S, U};
        let op = inst.class.opcode;
        if self.image_inst(fcx, inst)? || self.group_non_uniform(fcx, inst)? {
            return Ok(());
        }
        match op {
            Op::Load | Op::AccessChain | Op::InBoundsAccessChain
                if id_at(inst, 0).is_some_and(|p| self.opaque.contains(&p)) =>
            {
                // Loading an image or sampler, or a pointer into an array of them: the value is
                // as opaque as the variable, refused where an instruction uses it.
                if let Some(r) = inst.result_id {
                    self.opaque.insert(r);
                }
            }
            Op::Load => {
                let p = self.ptr_operand(fcx, inst, 0)?;
                let v = self.load(inst, &p, 0)?;
                self.set(fcx, inst, v);
            }
            Op::Store => {
                let p = self.ptr_operand(fcx, inst, 0)?;
                let v = self.operand(fcx, inst, 1)?;
                self.store(inst, &p, &v, 0)?;
            }
            Op::CopyMemory => {
                let dst = self.ptr_operand(fcx, inst, 0)?;
                let src = self.ptr_operand(fcx, inst, 1)?;
                let v = self.load(inst, &src, 0)?;
                self.store(inst, &dst, &v, 0)?;
            }
            Op::AccessChain | Op::InBoundsAccessChain => self.access_chain(fcx, inst)?,
            Op::CopyObject => {
                let v = self.operand(fcx, inst, 0)?;
                self.set(fcx, inst, v);
            }
            Op::Undef
                if inst
                    .result_type
                    .and_then(|t| self.scalar_lanes(t))
                    .is_some() =>
            {
                // 0, marked undefined: flagged where it is used.
                let (_, lanes) = inst
                    .result_type
                    .and_then(|t| self.scalar_lanes(t))
                    .unwrap_or((ScalarTy::U32, 1));
                let d = self.result_reg(fcx, inst);
                let (zero, all) = (
                    self.b.interned_constant([0; 4]),
                    self.b.interned_constant([1; 4]),
                );
                self.b.mov(Dst::lanes(d, lanes), Src::new(zero));
                self.b
                    .mark_undefined(lanes, d, all, crate::ir::UndefinedRule::UninitializedValue);
            }
            Op::Undef => {
                // A composite: every scalar 0, marked undefined (flagged where used).
                let Some(z) = inst.result_type.and_then(|t| self.undefined_val(t)) else {
                    return self.err(inst, "OpUndef of an unsupported type");
                };
                self.set(fcx, inst, z);
            }
            Op::IAdd => self.bin(fcx, inst, BinOp::Add, U)?,
            Op::ISub => self.bin(fcx, inst, BinOp::Sub, U)?,
            Op::IMul => self.bin(fcx, inst, BinOp::Mul, U)?,
            Op::UDiv => self.bin(fcx, inst, BinOp::Div, U)?,
            Op::SDiv => self.signed_div(fcx, inst, BinOp::Div)?,
            Op::UMod => self.bin(fcx, inst, BinOp::Rem, U)?,
            Op::SRem => self.signed_div(fcx, inst, BinOp::Rem)?,
            Op::SMod => self.signed_div(fcx, inst, BinOp::Mod)?,
            Op::FAdd => self.bin(fcx, inst, BinOp::Add, F)?,
            Op::FSub => self.bin(fcx, inst, BinOp::Sub, F)?,
            Op::FMul => self.bin(fcx, inst, BinOp::Mul, F)?,
            Op::FDiv => self.bin(fcx, inst, BinOp::Div, F)?,
            Op::FRem => self.bin(fcx, inst, BinOp::Rem, F)?,
            Op::FMod => self.bin(fcx, inst, BinOp::Mod, F)?,
            Op::ShiftLeftLogical => self.bin(fcx, inst, BinOp::Shl, U)?,
            Op::ShiftRightLogical => self.bin(fcx, inst, BinOp::Shr, U)?,
            Op::ShiftRightArithmetic => self.bin(fcx, inst, BinOp::Shr, S)?,
            Op::BitwiseAnd => self.bin(fcx, inst, BinOp::And, U)?,
            Op::BitwiseOr => self.bin(fcx, inst, BinOp::Or, U)?,
            Op::BitwiseXor => self.bin(fcx, inst, BinOp::Xor, U)?,
            Op::LogicalAnd => self.bin(fcx, inst, BinOp::And, Kind::B)?,
            Op::LogicalOr => self.bin(fcx, inst, BinOp::Or, Kind::B)?,
            Op::LogicalEqual => self.cmp(fcx, inst, CmpOp::Eq, U)?,
            Op::LogicalNotEqual => self.cmp(fcx, inst, CmpOp::Ne, U)?,
            Op::LogicalNot => self.un(fcx, inst, UnOp::Not, Kind::B, 0)?,
            Op::Not => self.un(fcx, inst, UnOp::Not, U, 0)?,
            Op::SNegate => self.un(fcx, inst, UnOp::Neg, S, 0)?,
            Op::FNegate => self.un(fcx, inst, UnOp::Neg, F, 0)?,
            Op::BitCount => self.un(fcx, inst, UnOp::BitCount, U, 0)?,
            Op::BitReverse => self.un(fcx, inst, UnOp::BitReverse, U, 0)?,
            Op::IsNan => self.un(fcx, inst, UnOp::IsNan, F, 0)?,
            Op::IsInf => self.un(fcx, inst, UnOp::IsInf, F, 0)?,
            Op::IEqual => self.cmp(fcx, inst, CmpOp::Eq, U)?,
            Op::INotEqual => self.cmp(fcx, inst, CmpOp::Ne, U)?,
            Op::UGreaterThan => self.cmp(fcx, inst, CmpOp::Gt, U)?,
            Op::SGreaterThan => self.cmp(fcx, inst, CmpOp::Gt, S)?,
            Op::UGreaterThanEqual => self.cmp(fcx, inst, CmpOp::Ge, U)?,
            Op::SGreaterThanEqual => self.cmp(fcx, inst, CmpOp::Ge, S)?,
            Op::ULessThan => self.cmp(fcx, inst, CmpOp::Lt, U)?,
            Op::SLessThan => self.cmp(fcx, inst, CmpOp::Lt, S)?,
            Op::ULessThanEqual => self.cmp(fcx, inst, CmpOp::Le, U)?,
            Op::SLessThanEqual => self.cmp(fcx, inst, CmpOp::Le, S)?,
            Op::FOrdEqual => self.fcmp(fcx, inst, CmpOp::Eq, true)?,
            Op::FOrdNotEqual => self.fcmp(fcx, inst, CmpOp::Ne, true)?,
            Op::FOrdLessThan => self.fcmp(fcx, inst, CmpOp::Lt, true)?,
            Op::FOrdLessThanEqual => self.fcmp(fcx, inst, CmpOp::Le, true)?,
            Op::FOrdGreaterThan => self.fcmp(fcx, inst, CmpOp::Gt, true)?,
            Op::FOrdGreaterThanEqual => self.fcmp(fcx, inst, CmpOp::Ge, true)?,
            Op::FUnordEqual => self.fcmp(fcx, inst, CmpOp::Eq, false)?,
            Op::FUnordNotEqual => self.fcmp(fcx, inst, CmpOp::Ne, false)?,
            Op::FUnordLessThan => self.fcmp(fcx, inst, CmpOp::Lt, false)?,
            Op::FUnordLessThanEqual => self.fcmp(fcx, inst, CmpOp::Le, false)?,
            Op::FUnordGreaterThan => self.fcmp(fcx, inst, CmpOp::Gt, false)?,
            Op::FUnordGreaterThanEqual => self.fcmp(fcx, inst, CmpOp::Ge, false)?,
            Op::ConvertFToU => self.convert(fcx, inst, F, U)?,
            Op::ConvertFToS => self.convert(fcx, inst, F, S)?,
            Op::ConvertUToF => self.convert(fcx, inst, U, F)?,
            Op::ConvertSToF => self.convert(fcx, inst, S, F)?,
            Op::UConvert => self.convert(fcx, inst, U, U)?,
            Op::SConvert => self.convert(fcx, inst, S, S)?,
            Op::FConvert => self.convert(fcx, inst, F, F)?,
            Op::Bitcast => {
                let (fs, fl) = self.operand_ty(inst, 0)?;
                let (ts, tl) = self.result_ty(inst)?;
                let a = self.reg_operand(fcx, inst, 0)?;
                let d = self.result_reg(fcx, inst);
                if fs.bits == ts.bits && fl == tl {
                    self.b.mov(Dst::new(d), Src::new(a));
                } else if fs.bits == 32 && ts.bits == 64 && fl == 2 * tl {
                    self.b.push(Inst::Pack64 {
                        dst: Dst::new(d),
                        a: Src::new(a),
                    });
                } else if fs.bits == 64 && ts.bits == 32 && tl == 2 * fl {
                    self.b.push(Inst::Unpack64 {
                        dst: Dst::new(d),
                        a: Src::new(a),
                    });
                } else {
                    return self.unsupported(inst, " between these types");
                }
            }
            Op::Select => {
                let (_, lanes) = self.result_ty(inst).unwrap_or((ScalarTy::U32, 1));
                let (_, cl) = self.operand_ty(inst, 0)?;
                let c = self.reg_operand(fcx, inst, 0)?;
                let a = self.operand(fcx, inst, 1)?;
                let b = self.operand(fcx, inst, 2)?;
                let (Val::R(a), Val::R(b)) = (a, b) else {
                    return self.unsupported(inst, " on composites");
                };
                let d = self.result_reg(fcx, inst);
                self.b.select(
                    lanes,
                    Dst::new(d),
                    if cl == 1 {
                        Src::splat(c, 0)
                    } else {
                        Src::new(c)
                    },
                    Src::new(a),
                    Src::new(b),
                );
            }
            Op::Any | Op::All => {
                let (_, l) = self.operand_ty(inst, 0)?;
                let a = self.reg_operand(fcx, inst, 0)?;
                let op = if op == Op::Any { BinOp::Or } else { BinOp::And };
                let d = self.fold_lanes(op, ScalarTy::BOOL, a, l);
                self.set(fcx, inst, Val::R(d));
            }
            Op::VectorTimesScalar => {
                let (ty, v, k) = self.binary_operands(fcx, inst)?;
                let d = self.mul(ty, Src::new(v), Src::splat(k, 0));
                self.set(fcx, inst, Val::R(d));
            }
            Op::Dot => {
                let (ty, a, b) = self.binary_operands(fcx, inst)?;
                let d = self.dot_product(ty, Src::new(a), Src::new(b));
                self.set(fcx, inst, Val::R(d));
            }
            Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract => {
                let (s, lanes) = self.result_ty(inst)?;
                let d = self.result_reg(fcx, inst);
                if op == Op::BitFieldInsert {
                    let (base, ins) = (
                        self.reg_operand(fcx, inst, 0)?,
                        self.reg_operand(fcx, inst, 1)?,
                    );
                    let (off, cnt) = (
                        self.reg_operand(fcx, inst, 2)?,
                        self.reg_operand(fcx, inst, 3)?,
                    );
                    self.b.push(Inst::BitfieldInsert {
                        ty: Ty::new(Self::with_kind(s, U), lanes),
                        dst: Dst::new(d),
                        base: Src::new(base),
                        insert: Src::new(ins),
                        offset: Src::splat(off, 0),
                        width: Src::splat(cnt, 0),
                    });
                    self.bitfield_range(s, lanes, d, off, cnt);
                } else {
                    let base = self.reg_operand(fcx, inst, 0)?;
                    let (off, cnt) = (
                        self.reg_operand(fcx, inst, 1)?,
                        self.reg_operand(fcx, inst, 2)?,
                    );
                    self.b.push(Inst::BitfieldExtract {
                        ty: Ty::new(
                            Self::with_kind(s, if op == Op::BitFieldSExtract { S } else { U }),
                            lanes,
                        ),
                        dst: Dst::new(d),
                        a: Src::new(base),
                        offset: Src::splat(off, 0),
                        width: Src::splat(cnt, 0),
                    });
                    self.bitfield_range(s, lanes, d, off, cnt);
                }
            }
            Op::MatrixTimesScalar
            | Op::VectorTimesMatrix
            | Op::MatrixTimesVector
            | Op::MatrixTimesMatrix
            | Op::Transpose
            | Op::OuterProduct => self.matrix_op(fcx, inst)?,
            Op::CompositeConstruct => self.composite_construct(fcx, inst)?,
            Op::CompositeExtract => {
                let v = self.operand(fcx, inst, 0)?;
                let idx = Self::lits_from(inst, 1);
                let r = self.extract(inst, &v, &idx)?;
                self.set(fcx, inst, r);
            }
            Op::CompositeInsert => {
                let obj = self.operand(fcx, inst, 0)?;
                let comp = self.operand(fcx, inst, 1)?;
                let idx = Self::lits_from(inst, 2);
                let r = self.insert(inst, &obj, &comp, &idx)?;
                self.set(fcx, inst, r);
            }
            Op::VectorShuffle => {
                let (_, n1) = self.operand_ty(inst, 0)?;
                let (a, b) = (
                    self.reg_operand(fcx, inst, 0)?,
                    self.reg_operand(fcx, inst, 1)?,
                );
                let comps = Self::lits_from(inst, 2);
                let d = self.result_reg(fcx, inst);
                for (lane, c) in comps.iter().enumerate().take(4) {
                    if *c == u32::MAX {
                        continue;
                    }
                    let src = if *c < u32::from(n1) {
                        Src::splat(a, *c as u8)
                    } else {
                        Src::splat(b, (*c - u32::from(n1)).min(3) as u8)
                    };
                    self.b.mov(Dst::masked(d, 1 << lane), src);
                }
            }
            Op::VectorExtractDynamic | Op::VectorInsertDynamic => {
                let v = self.reg_operand(fcx, inst, 0)?;
                let idx = self.index_operand(
                    fcx,
                    inst,
                    if op == Op::VectorExtractDynamic { 1 } else { 2 },
                )?;
                // An index at or past the vector's size is undefined behaviour (SPIR-V
                // OpVectorExtractDynamic: "behavior is undefined if Index's value is less than
                // zero or greater than or equal to the number of components"): the executor
                // flags 4 or more, so a shorter vector's is made 0xFFFFFFFF first.
                let (_, n) = self.operand_ty(inst, 0)?;
                let idx = if n < 4 {
                    let u32t = Ty::new(ScalarTy::U32, 1);
                    let size = self.b.interned_constant([u64::from(n), 0, 0, 0]);
                    let past = self
                        .b
                        .cmp_fresh(CmpOp::Ge, u32t, Src::new(idx), Src::new(size));
                    let oob = self.b.interned_constant([u64::from(u32::MAX), 0, 0, 0]);
                    let t = self.b.reg();
                    self.b.select(
                        1,
                        Dst::masked(t, 1),
                        Src::new(past),
                        Src::new(oob),
                        Src::new(idx),
                    );
                    t
                } else {
                    idx
                };
                let d = self.result_reg(fcx, inst);
                if op == Op::VectorExtractDynamic {
                    self.b.push(Inst::ExtractDyn {
                        dst: Dst::new(d),
                        vec: Src::new(v),
                        idx: Src::new(idx),
                    });
                } else {
                    let c = self.reg_operand(fcx, inst, 1)?;
                    self.b.push(Inst::InsertDyn {
                        dst: Dst::new(d),
                        vec: Src::new(v),
                        val: Src::new(c),
                        idx: Src::new(idx),
                    });
                }
            }
            Op::IAddCarry | Op::ISubBorrow | Op::UMulExtended | Op::SMulExtended => {
                self.extended_arith(fcx, inst)?
            }
            Op::ArrayLength => self.array_length(fcx, inst)?,
            Op::ExtInst => {
                if id_at(inst, 0).is_none() || id_at(inst, 0) != self.ext_glsl {
                    return self.unsupported(inst, " for this extended instruction set");
                }
                self.glsl_ext(fcx, inst)?;
            }
            Op::FunctionCall => self.call(fcx, inst)?,
            Op::ControlBarrier => {
                let exec = self.const_of(inst, 0)?;
                let mem = self.const_of(inst, 1)?;
                let sem = self.const_of(inst, 2)?;
                if exec == 3 {
                    self.subgroup_barrier(sem);
                    return Ok(());
                }
                if exec != 2 {
                    return self.err(
                        inst,
                        format!(
                            "OpControlBarrier with execution scope {exec} is not supported (only Workgroup = 2 and Subgroup = 3)"
                        ),
                    );
                }
                if sem & !0x1f != 0 {
                    self.b.push(Inst::MemoryBarrier {
                        scope: if mem == 2 {
                            Scope::Group
                        } else {
                            Scope::Device
                        },
                    });
                }
                self.b.push(Inst::ControlBarrier);
            }
            Op::MemoryBarrier => {
                let mem = self.const_of(inst, 0)?;
                self.b.push(Inst::MemoryBarrier {
                    scope: if mem == 2 || mem == 3 || mem == 4 {
                        Scope::Group
                    } else {
                        Scope::Device
                    },
                });
            }
            Op::AtomicLoad => {
                // An atomic `or 0` on writable memory (so the executor treats the program as
                // using atomics and keeps results reproducible); a plain load elsewhere.
                let p = self.ptr_operand(fcx, inst, 0)?;
                match p.base {
                    Base::Mem(Space::Storage(_) | Space::Shared | Space::AtomicCounter(_)) => {
                        self.atomic(fcx, inst, AtomicOp::Or, Some(U))?
                    }
                    _ => {
                        let v = self.load(inst, &p, 0)?;
                        self.set(fcx, inst, v);
                    }
                }
            }
            // An exchange without a result (it writes the word whatever it held before).
            Op::AtomicStore => self.atomic(fcx, inst, AtomicOp::Exch, None)?,
            Op::AtomicExchange => self.atomic(fcx, inst, AtomicOp::Exch, None)?,
            Op::AtomicCompareExchange => self.atomic(fcx, inst, AtomicOp::CmpXchg, None)?,
            Op::AtomicIIncrement | Op::AtomicIDecrement | Op::AtomicIAdd | Op::AtomicISub => {
                self.atomic(fcx, inst, AtomicOp::Add, Some(U))?
            }
            Op::AtomicSMin => self.atomic(fcx, inst, AtomicOp::Min, Some(S))?,
            Op::AtomicUMin => self.atomic(fcx, inst, AtomicOp::Min, Some(U))?,
            Op::AtomicSMax => self.atomic(fcx, inst, AtomicOp::Max, Some(S))?,
            Op::AtomicUMax => self.atomic(fcx, inst, AtomicOp::Max, Some(U))?,
            Op::AtomicAnd => self.atomic(fcx, inst, AtomicOp::And, Some(U))?,
            Op::AtomicOr => self.atomic(fcx, inst, AtomicOp::Or, Some(U))?,
            Op::AtomicXor => self.atomic(fcx, inst, AtomicOp::Xor, Some(U))?,
            Op::AtomicFAddEXT => self.atomic(fcx, inst, AtomicOp::Add, Some(F))?,
            _ => return self.unsupported(inst, ""),
        }
        Ok(())
    }
}
