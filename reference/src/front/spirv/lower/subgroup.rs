//! The non-uniform group instructions (OpGroupNonUniform*, SPIR-V 1.3; in OpenGL through
//! KHR_shader_subgroup's additions to the SPIR-V environment), lowered to the IR the GLSL
//! front end gives GL_KHR_shader_subgroup's functions: `Inst::Subgroup` for elect, the votes,
//! ballot, broadcasts, shuffles and the arithmetic group operations (Reduce, InclusiveScan,
//! ExclusiveScan), and arithmetic on the ballot and the subgroup masks for the ballot queries
//! (InverseBallot, BallotBitExtract, BallotBitCount, BallotFindLSB/MSB), plus
//! OpControlBarrier with Subgroup execution scope.
//!
//! Undefined results as the SPIR-V specification states them (and GL_KHR_shader_subgroup's
//! section 8.18 for the same functions): a shuffle or broadcast from an inactive invocation or
//! one outside the subgroup, float min/max whose used values are all NaN, float sums and
//! products whose order matters or that are NaN are flagged by the executor
//! (`exec::subgroup`); BallotFindLSB/MSB with no considered bit set and BallotBitExtract at an
//! index at or past the subgroup size are marked here (`UndefinedRule::BallotRange`).
//!
//! Refused by name (no clustered or quad operations in the IR): the ClusteredReduce group
//! operation (GroupNonUniformClustered), OpGroupNonUniformQuadBroadcast/QuadSwap
//! (GroupNonUniformQuad, the dispatch's default refusal), and the partitioned operations.
//! The GL environment's own rules (Subgroup execution scope only, the result types) are checked
//! at validation (`rules::gl_env`).

use super::{Fcx, Lowerer, Val, R};
use crate::ir::{
    BinOp, Builtin, CmpOp, Dst, Inst, Kind, MaskKind, Reg, ScalarTy, Scope, Src, SubgroupOp, Ty,
    UnOp, UndefinedRule,
};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{GroupOperation, Op};

/// The Subgroup scope (SPIR-V "Scope <id>" value 3).
const SCOPE_SUBGROUP: u64 = 3;

/// The ballot instructions that need no other invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Query {
    Inverse,
    BitExtract,
    /// Count the considered bits, those selected by a mask when given.
    Count(Option<MaskKind>),
    FindLsb,
    FindMsb,
}

const U32: ScalarTy = ScalarTy::U32;

impl<'a, 'm> Lowerer<'a, 'm> {
    /// Lowers `inst` when it is a non-uniform group instruction (true), else does nothing
    /// (false).
    pub(super) fn group_non_uniform(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<bool> {
        use Kind::{B, F, S, U};
        let op = inst.class.opcode;
        if !format!("{op:?}").starts_with("GroupNonUniform") {
            return Ok(false);
        }
        self.subgroup_scope(inst, 0)?;
        match op {
            Op::GroupNonUniformElect => {
                let zero = self.cu32(0);
                let d = self.sg(SubgroupOp::Elect, Ty::new(U32, 1), zero, zero, 1);
                self.set(fcx, inst, Val::R(d));
            }
            Op::GroupNonUniformAll | Op::GroupNonUniformAny | Op::GroupNonUniformAllEqual => {
                let sop = match op {
                    Op::GroupNonUniformAll => SubgroupOp::All,
                    Op::GroupNonUniformAny => SubgroupOp::Any,
                    _ => SubgroupOp::AllEqual,
                };
                let (s, lanes) = self.operand_ty(inst, 1)?;
                let a = self.reg_operand(fcx, inst, 1)?;
                let d = self.sg(sop, Ty::new(s, lanes), a, a, 1);
                self.set(fcx, inst, Val::R(d));
            }
            Op::GroupNonUniformBroadcast => self.exchange(fcx, inst, SubgroupOp::Shuffle)?,
            Op::GroupNonUniformBroadcastFirst => {
                self.exchange(fcx, inst, SubgroupOp::BroadcastFirst)?
            }
            Op::GroupNonUniformShuffle => self.exchange(fcx, inst, SubgroupOp::Shuffle)?,
            Op::GroupNonUniformShuffleXor => self.exchange(fcx, inst, SubgroupOp::ShuffleXor)?,
            Op::GroupNonUniformShuffleUp => self.exchange(fcx, inst, SubgroupOp::ShuffleUp)?,
            Op::GroupNonUniformShuffleDown => self.exchange(fcx, inst, SubgroupOp::ShuffleDown)?,
            Op::GroupNonUniformBallot => {
                let a = self.reg_operand(fcx, inst, 1)?;
                let d = self.sg(SubgroupOp::Ballot, Ty::new(ScalarTy::BOOL, 1), a, a, 4);
                self.set(fcx, inst, Val::R(d));
            }
            Op::GroupNonUniformInverseBallot => self.ballot_query(fcx, inst, Query::Inverse, 1)?,
            Op::GroupNonUniformBallotBitExtract => {
                self.ballot_query(fcx, inst, Query::BitExtract, 1)?
            }
            Op::GroupNonUniformBallotFindLSB => self.ballot_query(fcx, inst, Query::FindLsb, 1)?,
            Op::GroupNonUniformBallotFindMSB => self.ballot_query(fcx, inst, Query::FindMsb, 1)?,
            Op::GroupNonUniformBallotBitCount => {
                let mask = match self.group_operation(inst)? {
                    GroupOperation::Reduce => None,
                    GroupOperation::InclusiveScan => Some(MaskKind::Le),
                    _ => Some(MaskKind::Lt),
                };
                self.ballot_query(fcx, inst, Query::Count(mask), 2)?
            }
            Op::GroupNonUniformIAdd => self.arith(fcx, inst, BinOp::Add, U)?,
            Op::GroupNonUniformFAdd => self.arith(fcx, inst, BinOp::Add, F)?,
            Op::GroupNonUniformIMul => self.arith(fcx, inst, BinOp::Mul, U)?,
            Op::GroupNonUniformFMul => self.arith(fcx, inst, BinOp::Mul, F)?,
            Op::GroupNonUniformSMin => self.arith(fcx, inst, BinOp::Min, S)?,
            Op::GroupNonUniformUMin => self.arith(fcx, inst, BinOp::Min, U)?,
            Op::GroupNonUniformFMin => self.arith(fcx, inst, BinOp::Min, F)?,
            Op::GroupNonUniformSMax => self.arith(fcx, inst, BinOp::Max, S)?,
            Op::GroupNonUniformUMax => self.arith(fcx, inst, BinOp::Max, U)?,
            Op::GroupNonUniformFMax => self.arith(fcx, inst, BinOp::Max, F)?,
            Op::GroupNonUniformBitwiseAnd => self.arith(fcx, inst, BinOp::And, U)?,
            Op::GroupNonUniformBitwiseOr => self.arith(fcx, inst, BinOp::Or, U)?,
            Op::GroupNonUniformBitwiseXor => self.arith(fcx, inst, BinOp::Xor, U)?,
            Op::GroupNonUniformLogicalAnd => self.arith(fcx, inst, BinOp::And, B)?,
            Op::GroupNonUniformLogicalOr => self.arith(fcx, inst, BinOp::Or, B)?,
            Op::GroupNonUniformLogicalXor => self.arith(fcx, inst, BinOp::Xor, B)?,
            Op::GroupNonUniformQuadBroadcast | Op::GroupNonUniformQuadSwap => {
                return self.err(
                    inst,
                    format!(
                        "Op{op:?} (GroupNonUniformQuad) is not supported by the reference's SPIR-V front end: its IR has no quad subgroup operations"
                    ),
                )
            }
            _ => return self.unsupported(inst, ""),
        }
        Ok(true)
    }

    /// OpControlBarrier with Subgroup execution scope: the subgroup waits together (as GLSL's
    /// subgroupBarrier), after a memory barrier when the semantics order memory.
    pub(super) fn subgroup_barrier(&mut self, sem: u64) {
        if sem & !0x1f != 0 {
            self.b.push(Inst::MemoryBarrier {
                scope: Scope::Group,
            });
        }
        let zero = self.cu32(0);
        self.b.push(Inst::Subgroup {
            op: SubgroupOp::Barrier,
            ty: Ty::new(U32, 1),
            dst: None,
            a: Src::new(zero),
            b: Src::new(zero),
        });
    }

    /// The execution scope at operand `i` must be the constant Subgroup (the GL environment
    /// allows no other for these instructions: `rules::gl_env` rejects a constant one at
    /// validation).
    fn subgroup_scope(&self, inst: &Instruction, i: usize) -> R<()> {
        let scope = self.const_of(inst, i)?;
        if scope != SCOPE_SUBGROUP {
            return self.err(
                inst,
                format!(
                    "Op{:?} with execution scope {scope}: only Subgroup (3) is supported",
                    inst.class.opcode
                ),
            );
        }
        Ok(())
    }

    /// The group operation (operand 1) of an arithmetic or bit-count instruction: Reduce,
    /// InclusiveScan or ExclusiveScan; ClusteredReduce and the partitioned ones are refused.
    fn group_operation(&self, inst: &Instruction) -> R<GroupOperation> {
        match inst.operands.get(1) {
            Some(Operand::GroupOperation(
                g @ (GroupOperation::Reduce
                | GroupOperation::InclusiveScan
                | GroupOperation::ExclusiveScan),
            )) => Ok(*g),
            Some(Operand::GroupOperation(GroupOperation::ClusteredReduce)) => self.err(
                inst,
                format!(
                    "Op{:?} with the ClusteredReduce group operation (GroupNonUniformClustered) is not supported by the reference's SPIR-V front end: its IR has no clustered subgroup operations",
                    inst.class.opcode
                ),
            ),
            Some(Operand::GroupOperation(g)) => self.err(
                inst,
                format!(
                    "Op{:?} with the {g:?} group operation is not supported by the reference",
                    inst.class.opcode
                ),
            ),
            _ => self.err(inst, "a group operation is missing"),
        }
    }

    /// One `Inst::Subgroup` on `a` (and `b`) of type `ty` into `lanes` lanes of a fresh
    /// register.
    fn sg(&mut self, op: SubgroupOp, ty: Ty, a: Reg, b: Reg, lanes: u8) -> Reg {
        let d = self.b.reg();
        self.b.push(Inst::Subgroup {
            op,
            ty,
            dst: Some(Dst::lanes(d, lanes)),
            a: Src::new(a),
            b: Src::new(b),
        });
        d
    }

    /// Broadcast, BroadcastFirst and the shuffles: Value at operand 1, the Id, Mask or Delta
    /// (a 32-bit integer scalar; wider ones are refused) at operand 2.
    fn exchange(&mut self, fcx: &mut Fcx, inst: &Instruction, op: SubgroupOp) -> R<()> {
        let (s, lanes) = self.operand_ty(inst, 1)?;
        let a = self.reg_operand(fcx, inst, 1)?;
        let b = if op == SubgroupOp::BroadcastFirst {
            a
        } else {
            let (is, _) = self.operand_ty(inst, 2)?;
            if is.bits != 32 {
                return self.err(
                    inst,
                    format!(
                        "Op{:?} with a {}-bit id, mask or delta is not supported by the reference (32-bit only)",
                        inst.class.opcode, is.bits
                    ),
                );
            }
            self.reg_operand(fcx, inst, 2)?
        };
        let d = self.sg(op, Ty::new(s, lanes), a, b, lanes);
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    /// An arithmetic group operation: Reduce, InclusiveScan or ExclusiveScan of `bop` over
    /// Value (operand 2), its type's kind forced to `kind` (SMin on an unsigned type compares
    /// signed).
    fn arith(&mut self, fcx: &mut Fcx, inst: &Instruction, bop: BinOp, kind: Kind) -> R<()> {
        let sop = match self.group_operation(inst)? {
            GroupOperation::Reduce => SubgroupOp::Reduce(bop),
            GroupOperation::InclusiveScan => SubgroupOp::InclusiveScan(bop),
            _ => SubgroupOp::ExclusiveScan(bop),
        };
        let (s, lanes) = self.operand_ty(inst, 2)?;
        let a = self.reg_operand(fcx, inst, 2)?;
        let s = if kind == Kind::B {
            s
        } else {
            Self::with_kind(s, kind)
        };
        let d = self.sg(sop, Ty::new(s, lanes), a, a, lanes);
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    /// A subgroup built-in read into a fresh register.
    fn sg_builtin(&mut self, which: Builtin) -> Reg {
        let r = self.b.reg();
        self.b.push(Inst::Builtin {
            dst: Dst::new(r),
            which,
        });
        r
    }

    /// Whether bit `idx` (u32 in lane x) of `bits` (u32x4, x first) is set: a bool in lane x.
    /// An index of 128 or more reads a component past the vector (flagged by the executor).
    fn bit_of(&mut self, bits: Reg, idx: Reg) -> Reg {
        let t1 = Ty::new(U32, 1);
        let (five, mask31, one, zero) = (self.cu32(5), self.cu32(31), self.cu32(1), self.cu32(0));
        let comp = self
            .b
            .bin_fresh(BinOp::Shr, t1, Src::splat(idx, 0), Src::new(five));
        let word = self.b.reg();
        self.b.push(Inst::ExtractDyn {
            dst: Dst::masked(word, 1),
            vec: Src::new(bits),
            idx: Src::new(comp),
        });
        let sh = self
            .b
            .bin_fresh(BinOp::And, t1, Src::splat(idx, 0), Src::new(mask31));
        let shifted = self
            .b
            .bin_fresh(BinOp::Shr, t1, Src::new(word), Src::new(sh));
        let b = self
            .b
            .bin_fresh(BinOp::And, t1, Src::new(shifted), Src::new(one));
        self.b.cmp_fresh(CmpOp::Ne, t1, Src::new(b), Src::new(zero))
    }

    /// The ballot instructions on Value (a uvec4 at operand `at`) that need no other
    /// invocation: bit tests, counts and searches over the bits below the subgroup size
    /// ("considering only the bits in Value required to represent all bits of the group's
    /// invocations").
    fn ballot_query(&mut self, fcx: &mut Fcx, inst: &Instruction, q: Query, at: usize) -> R<()> {
        let v = self.reg_operand(fcx, inst, at)?;
        let t1 = Ty::new(U32, 1);
        let t4 = Ty::new(U32, 4);
        // Lt | Ge of any invocation is exactly the bits below the subgroup size.
        let lt = self.sg_builtin(Builtin::SubgroupMask(MaskKind::Lt));
        let ge = self.sg_builtin(Builtin::SubgroupMask(MaskKind::Ge));
        let size_bits = self.b.bin_fresh(BinOp::Or, t4, Src::new(lt), Src::new(ge));
        let bits = self
            .b
            .bin_fresh(BinOp::And, t4, Src::new(v), Src::new(size_bits));
        let d = match q {
            Query::Inverse => {
                let id = self.sg_builtin(Builtin::SubgroupInvocationId);
                self.bit_of(v, id)
            }
            Query::BitExtract => {
                let (is, _) = self.operand_ty(inst, at + 1)?;
                let idx = self.index_operand(fcx, inst, at + 1)?;
                if is.bits != 32 {
                    return self.err(
                        inst,
                        "OpGroupNonUniformBallotBitExtract with an index that is not 32-bit is not supported by the reference",
                    );
                }
                let r = self.bit_of(v, idx);
                // An index at or past the subgroup size: undefined, as GL_KHR_shader_subgroup
                // section 8.18 says of subgroupBallotBitExtract (its SPIR-V spelling).
                let size = self.sg_builtin(Builtin::SubgroupSize);
                let past = self
                    .b
                    .cmp_fresh(CmpOp::Ge, t1, Src::splat(idx, 0), Src::new(size));
                self.b
                    .mark_undefined(1, r, past, UndefinedRule::BallotRange);
                r
            }
            Query::Count(mask) => {
                let counted = match mask {
                    Some(k) => {
                        let m = self.sg_builtin(Builtin::SubgroupMask(k));
                        self.b
                            .bin_fresh(BinOp::And, t4, Src::new(bits), Src::new(m))
                    }
                    None => bits,
                };
                let c = self.b.un_fresh(UnOp::BitCount, t4, Src::new(counted));
                self.fold_lanes(BinOp::Add, U32, c, 4)
            }
            Query::FindLsb | Query::FindMsb => {
                // The first non-zero component (lsb: the lowest) decides; no considered bit
                // set reads as all ones, marked undefined ("If none of the considered bits is
                // set to 1, the resulting value is undefined").
                let lsb = q == Query::FindLsb;
                let per = self.b.un_fresh(
                    if lsb { UnOp::FindLsb } else { UnOp::FindMsb },
                    t4,
                    Src::new(bits),
                );
                let ones = self.cu32(u64::from(u32::MAX));
                let zero = self.cu32(0);
                let mut acc = ones;
                let order: Vec<u8> = if lsb {
                    (0..4).rev().collect()
                } else {
                    (0..4).collect()
                };
                for c in order {
                    let base = self.cu32(32 * u64::from(c));
                    let found =
                        self.b
                            .bin_fresh(BinOp::Add, t1, Src::splat(per, c), Src::new(base));
                    let nonzero =
                        self.b
                            .cmp_fresh(CmpOp::Ne, t1, Src::splat(bits, c), Src::new(zero));
                    let t = self.b.reg();
                    self.b.select(
                        1,
                        Dst::masked(t, 1),
                        Src::new(nonzero),
                        Src::new(found),
                        Src::new(acc),
                    );
                    acc = t;
                }
                let none = self
                    .b
                    .cmp_fresh(CmpOp::Eq, t1, Src::new(acc), Src::new(ones));
                self.b
                    .mark_undefined(1, acc, none, UndefinedRule::BallotRange);
                acc
            }
        };
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }
}
