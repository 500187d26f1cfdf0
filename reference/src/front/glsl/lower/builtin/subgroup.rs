//! The shader invocation group functions: GLSL 4.60 §8.18 (`anyInvocation`,
//! `allInvocations`, `allInvocationsEqual`), GL_ARB_shader_group_vote (their `ARB` forms),
//! GL_ARB_shader_ballot (`ballotARB`, `readInvocationARB`, `readFirstInvocationARB`) and
//! GL_KHR_shader_subgroup's basic, vote, ballot, shuffle, shuffle_relative and arithmetic
//! functions, lowered to `Inst::Subgroup` (the group of the vote functions is the subgroup)
//! and, for the ballot queries, to arithmetic on the ballot and the subgroup masks.

use crate::front::glsl::lower::{Lower, Value, R, V};
use crate::front::glsl::types::{Sc, Ty};
use crate::ir::{
    BinOp, Builtin, CmpOp, Dst, Inst, MaskKind, Scope, Src, SubgroupOp, Ty as ITy, UnOp,
};
use glsl_lang::ast;

/// What enables a subgroup function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gate {
    /// GLSL 4.60 (not ESSL).
    Core460,
    /// An extension; for the GL_KHR_shader_subgroup_* ones, any of them also enables _basic.
    Ext(&'static str),
}

/// The function `name` if it is a subgroup function: what enables it and its operation.
fn lookup(name: &str) -> Option<(Gate, Func)> {
    use Func::*;
    use Gate::*;
    const VOTE: &str = "GL_KHR_shader_subgroup_vote";
    const BALLOT: &str = "GL_KHR_shader_subgroup_ballot";
    const ARITH: &str = "GL_KHR_shader_subgroup_arithmetic";
    let arith = |op: BinOp, kind: Kind| Some((Ext(ARITH), Arith(op, kind)));
    let (kind, rest) = if let Some(r) = name.strip_prefix("subgroupInclusive") {
        (Kind::Inclusive, r)
    } else if let Some(r) = name.strip_prefix("subgroupExclusive") {
        (Kind::Exclusive, r)
    } else if let Some(r) = name.strip_prefix("subgroup") {
        (Kind::Reduce, r)
    } else {
        (Kind::Reduce, "")
    };
    match rest {
        "Add" => return arith(BinOp::Add, kind),
        "Mul" => return arith(BinOp::Mul, kind),
        "Min" => return arith(BinOp::Min, kind),
        "Max" => return arith(BinOp::Max, kind),
        "And" => return arith(BinOp::And, kind),
        "Or" => return arith(BinOp::Or, kind),
        "Xor" => return arith(BinOp::Xor, kind),
        _ => {}
    }
    Some(match name {
        "anyInvocation" => (Core460, Vote(SubgroupOp::Any)),
        "allInvocations" => (Core460, Vote(SubgroupOp::All)),
        "allInvocationsEqual" => (Core460, Vote(SubgroupOp::AllEqual)),
        "anyInvocationARB" => (Ext("GL_ARB_shader_group_vote"), Vote(SubgroupOp::Any)),
        "allInvocationsARB" => (Ext("GL_ARB_shader_group_vote"), Vote(SubgroupOp::All)),
        "allInvocationsEqualARB" => (Ext("GL_ARB_shader_group_vote"), Vote(SubgroupOp::AllEqual)),
        "ballotARB" => (Ext("GL_ARB_shader_ballot"), Ballot64),
        "readInvocationARB" => (
            Ext("GL_ARB_shader_ballot"),
            Move(SubgroupOp::Shuffle, false),
        ),
        "readFirstInvocationARB" => (
            Ext("GL_ARB_shader_ballot"),
            Move(SubgroupOp::BroadcastFirst, false),
        ),
        "subgroupBarrier" => (Ext("GL_KHR_shader_subgroup_basic"), Barrier),
        "subgroupMemoryBarrier"
        | "subgroupMemoryBarrierBuffer"
        | "subgroupMemoryBarrierShared"
        | "subgroupMemoryBarrierImage" => (Ext("GL_KHR_shader_subgroup_basic"), MemoryBarrier),
        "subgroupElect" => (Ext("GL_KHR_shader_subgroup_basic"), Elect),
        "subgroupAll" => (Ext(VOTE), Vote(SubgroupOp::All)),
        "subgroupAny" => (Ext(VOTE), Vote(SubgroupOp::Any)),
        "subgroupAllEqual" => (Ext(VOTE), Equal),
        "subgroupBroadcast" => (Ext(BALLOT), Move(SubgroupOp::Shuffle, true)),
        "subgroupBroadcastFirst" => (Ext(BALLOT), Move(SubgroupOp::BroadcastFirst, true)),
        "subgroupBallot" => (Ext(BALLOT), Ballot),
        "subgroupInverseBallot" => (Ext(BALLOT), Query(BallotQuery::Inverse)),
        "subgroupBallotBitExtract" => (Ext(BALLOT), Query(BallotQuery::BitExtract)),
        "subgroupBallotBitCount" => (Ext(BALLOT), Query(BallotQuery::Count(None))),
        "subgroupBallotInclusiveBitCount" => {
            (Ext(BALLOT), Query(BallotQuery::Count(Some(MaskKind::Le))))
        }
        "subgroupBallotExclusiveBitCount" => {
            (Ext(BALLOT), Query(BallotQuery::Count(Some(MaskKind::Lt))))
        }
        "subgroupBallotFindLSB" => (Ext(BALLOT), Query(BallotQuery::FindLsb)),
        "subgroupBallotFindMSB" => (Ext(BALLOT), Query(BallotQuery::FindMsb)),
        "subgroupShuffle" => (
            Ext("GL_KHR_shader_subgroup_shuffle"),
            Move(SubgroupOp::Shuffle, true),
        ),
        "subgroupShuffleXor" => (
            Ext("GL_KHR_shader_subgroup_shuffle"),
            Move(SubgroupOp::ShuffleXor, true),
        ),
        "subgroupShuffleUp" => (
            Ext("GL_KHR_shader_subgroup_shuffle_relative"),
            Move(SubgroupOp::ShuffleUp, true),
        ),
        "subgroupShuffleDown" => (
            Ext("GL_KHR_shader_subgroup_shuffle_relative"),
            Move(SubgroupOp::ShuffleDown, true),
        ),
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Reduce,
    Inclusive,
    Exclusive,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BallotQuery {
    Inverse,
    BitExtract,
    /// Count the bits (within the subgroup), those selected by a mask when given.
    Count(Option<MaskKind>),
    FindLsb,
    FindMsb,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Func {
    /// bool f(bool): the vote functions (allInvocationsEqual and its ARB form take a bool
    /// too).
    Vote(SubgroupOp),
    /// bool subgroupAllEqual(genType/genIType/genUType/genBType/genDType).
    Equal,
    /// Moves a value between invocations; with an id/delta/mask operand except
    /// BroadcastFirst; `bool` says whether bool and double types are taken (KHR: yes, ARB
    /// ballot: genType/genIType/genUType only).
    Move(SubgroupOp, bool),
    Ballot,
    Ballot64,
    Query(BallotQuery),
    Arith(BinOp, Kind),
    Elect,
    Barrier,
    MemoryBarrier,
}

/// Whether `name` is a subgroup function (the built-in names user functions may not redefine
/// include these).
pub fn is_subgroup_fn(name: &str) -> bool {
    lookup(name).is_some()
}

impl<'a> Lower<'a> {
    /// Whether a subgroup feature enabled by `ext` is available here.
    pub(in crate::front::glsl::lower) fn subgroup_ext(&self, ext: &str) -> bool {
        // Any GL_KHR_shader_subgroup_* feature implicitly enables _basic.
        let basic = "GL_KHR_shader_subgroup_basic";
        self.has_ext(ext)
            || (ext == basic
                && crate::EXTENSIONS
                    .iter()
                    .filter(|e| e.starts_with("GL_KHR_shader_subgroup_"))
                    .any(|e| self.has_ext(e)))
    }

    pub(super) fn subgroup_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        let Some((gate, func)) = lookup(name) else {
            return self.no_overload(name, "...");
        };
        let available = match gate {
            Gate::Core460 => {
                let p = self.shaders[self.cur].parsed;
                !p.es && p.version.unwrap_or(110) >= 460
            }
            Gate::Ext(e) => self.subgroup_ext(e),
        };
        if !available {
            let needs = match gate {
                Gate::Core460 => "#version 460".to_string(),
                Gate::Ext(e) => format!("#extension {e}"),
            };
            return self.err(format!(
                "'{name}' : no matching overloaded function found (requires {needs})"
            ));
        }
        let vs = self.args_rv(args)?;
        let tys: Vec<String> = vs.iter().map(|v| v.ty.to_string()).collect();
        let bad = |s: &Self| s.no_overload::<Value>(name, tys.join(", "));
        let arity = match func {
            Func::Elect | Func::Barrier | Func::MemoryBarrier => 0,
            Func::Move(op, _) if op != SubgroupOp::BroadcastFirst => 2,
            Func::Query(BallotQuery::BitExtract) => 2,
            _ => 1,
        };
        if vs.len() != arity {
            return bad(self);
        }
        if name == "subgroupBroadcast" && vs[1].k.is_none() {
            // GL_KHR_shader_subgroup: "<id> must be an integral constant expression when
            // targeting SPIR-V 1.4 and below", and OpenGL's is SPIR-V 1.0 (ARB_gl_spirv).
            return self.err(
                "'subgroupBroadcast' : the id argument must be an integral constant expression",
            );
        }
        let void = |s: &mut Self| V {
            src: Src::new(s.konst([0; 4])),
            ty: Ty::Void,
            k: None,
        };
        let zero = Src::new(self.konst([0; 4]));
        Ok(Value::V(match func {
            Func::Barrier => {
                self.emit(Inst::Subgroup {
                    op: SubgroupOp::Barrier,
                    ty: ITy::new(Sc::Uint.ir(), 1),
                    dst: None,
                    a: zero,
                    b: zero,
                });
                void(self)
            }
            Func::MemoryBarrier => {
                self.emit(Inst::MemoryBarrier {
                    scope: Scope::Group,
                });
                void(self)
            }
            Func::Elect => {
                let k = V {
                    src: zero,
                    ty: Ty::UINT,
                    k: None,
                };
                let r = self.subgroup_inst(SubgroupOp::Elect, &k, None, 1);
                V { ty: Ty::BOOL, ..r }
            }
            Func::Vote(op) if op != SubgroupOp::AllEqual => {
                if vs[0].ty != Ty::BOOL {
                    return bad(self);
                }
                self.subgroup_inst(op, &vs[0], None, 1)
            }
            Func::Vote(_) | Func::Equal => {
                let ok = match func {
                    Func::Vote(_) => vs[0].ty == Ty::BOOL,
                    _ => vs[0]
                        .ty
                        .sc()
                        .is_some_and(|s| !matches!(s, Sc::Int64 | Sc::Uint64)),
                };
                if !ok {
                    return bad(self);
                }
                let r = self.subgroup_inst(SubgroupOp::AllEqual, &vs[0], None, 1);
                V { ty: Ty::BOOL, ..r }
            }
            Func::Move(op, all_types) => {
                let sc = vs[0].ty.sc();
                let ok = match sc {
                    Some(Sc::Float | Sc::Int | Sc::Uint) => true,
                    Some(Sc::Bool | Sc::Double) => all_types,
                    _ => false,
                };
                let id_ok = vs
                    .get(1)
                    .is_none_or(|v| v.ty == Ty::UINT || v.ty == Ty::INT);
                if !ok || !id_ok {
                    return bad(self);
                }
                let n = vs[0].ty.lanes();
                let r = self.subgroup_inst(op, &vs[0], vs.get(1), n);
                V {
                    ty: vs[0].ty.clone(),
                    ..r
                }
            }
            Func::Ballot | Func::Ballot64 => {
                if vs[0].ty != Ty::BOOL {
                    return bad(self);
                }
                let b = self.subgroup_inst(SubgroupOp::Ballot, &vs[0], None, 4);
                if func == Func::Ballot {
                    V {
                        ty: Ty::V(Sc::Uint, 4),
                        ..b
                    }
                } else {
                    self.pack_u64(b)
                }
            }
            Func::Arith(op, kind) => {
                let ok = match vs[0].ty.sc() {
                    Some(Sc::Int | Sc::Uint) => true,
                    Some(Sc::Float | Sc::Double) => {
                        matches!(op, BinOp::Add | BinOp::Mul | BinOp::Min | BinOp::Max)
                    }
                    Some(Sc::Bool) => matches!(op, BinOp::And | BinOp::Or | BinOp::Xor),
                    _ => false,
                };
                if !ok {
                    return bad(self);
                }
                let sop = match kind {
                    Kind::Reduce => SubgroupOp::Reduce(op),
                    Kind::Inclusive => SubgroupOp::InclusiveScan(op),
                    Kind::Exclusive => SubgroupOp::ExclusiveScan(op),
                };
                let n = vs[0].ty.lanes();
                let r = self.subgroup_inst(sop, &vs[0], None, n);
                V {
                    ty: vs[0].ty.clone(),
                    ..r
                }
            }
            Func::Query(q) => {
                let uvec4 = Ty::V(Sc::Uint, 4);
                // The index is a uint; an int converts to it implicitly (GLSL 4.60 §4.1.10).
                let idx_ok = vs
                    .get(1)
                    .is_none_or(|v| v.ty == Ty::UINT || v.ty == Ty::INT);
                if vs[0].ty != uvec4 || !idx_ok {
                    return bad(self);
                }
                self.ballot_query(q, &vs[0], vs.get(1))?
            }
        }))
    }

    /// Emits one subgroup operation on `v` (and `b`), with a result of `lanes` lanes.
    fn subgroup_inst(&mut self, op: SubgroupOp, v: &V, b: Option<&V>, lanes: u8) -> V {
        let v = self.snap_reg(v.clone());
        let sc = v.ty.sc().unwrap_or(Sc::Uint);
        let t = self.fresh(Ty::V(sc, lanes));
        let b = b.map(|b| self.snap_reg(b.clone()).src).unwrap_or(v.src);
        self.emit(Inst::Subgroup {
            op,
            ty: ITy::new(sc.ir(), v.ty.lanes().max(1)),
            dst: Some(Dst::lanes(t.src.reg, lanes)),
            a: v.src,
            b,
        });
        t
    }

    /// The uint64_t made of lanes x (low half) and y (high half) of a uvec4 (ARB ballot form).
    pub(in crate::front::glsl::lower) fn pack_u64(&mut self, v: V) -> V {
        let t = self.fresh(Ty::V(Sc::Uint64, 1));
        self.emit(Inst::Pack64 {
            dst: Dst::masked(t.src.reg, 1),
            a: v.src,
        });
        t
    }

    /// A subgroup built-in value: `which` read into a register, of type `ty`.
    pub(in crate::front::glsl::lower) fn subgroup_builtin(&mut self, which: Builtin, ty: Ty) -> V {
        let t = self.fresh(ty);
        self.emit(Inst::Builtin {
            dst: Dst::new(t.src.reg),
            which,
        });
        t
    }

    /// The ballot functions that need no other invocation: bit tests, counts and searches
    /// over the bits of `v` below the subgroup size.
    fn ballot_query(&mut self, q: BallotQuery, v: &V, index: Option<&V>) -> R<V> {
        let uvec4 = Ty::V(Sc::Uint, 4);
        // Only the bits below the subgroup size count (KHR_shader_subgroup: "bits that are
        // beyond ... are ignored"): Lt | Ge of any invocation is exactly those.
        let lt = self.subgroup_builtin(Builtin::SubgroupMask(MaskKind::Lt), uvec4.clone());
        let ge = self.subgroup_builtin(Builtin::SubgroupMask(MaskKind::Ge), uvec4.clone());
        let size_bits = self.bin(BinOp::Or, lt, ge);
        let bits = self.bin(BinOp::And, v.clone(), size_bits);
        let one = self.k_u32(1);
        let thirty_one = self.k_u32(31);
        let five = self.k_u32(5);
        let bit_of = |s: &mut Self, bits: &V, idx: V| -> V {
            let comp_i = s.bin(BinOp::Shr, idx.clone(), five.clone());
            let t = s.fresh(Ty::UINT);
            s.emit(Inst::ExtractDyn {
                dst: Dst::masked(t.src.reg, 1),
                vec: bits.src,
                idx: comp_i.src,
            });
            let sh = s.bin(BinOp::And, idx, thirty_one.clone());
            let shifted = s.bin(BinOp::Shr, t, sh);
            let b = s.bin(BinOp::And, shifted, one.clone());
            let z = s.k_u32(0);
            s.cmp(CmpOp::Ne, b, z)
        };
        Ok(match q {
            BallotQuery::Inverse => {
                let id = self.subgroup_builtin(Builtin::SubgroupInvocationId, Ty::UINT);
                bit_of(self, v, id)
            }
            BallotQuery::BitExtract => {
                let idx = index.cloned().unwrap_or_else(|| self.k_u32(0));
                let r = bit_of(self, v, idx.clone());
                // GL_KHR_shader_subgroup section 8.18: "If <index> is greater than or equal
                // to <gl_SubgroupSize>, an undefined result is returned."
                let size = self.subgroup_builtin(Builtin::SubgroupSize, Ty::UINT);
                let idx = V {
                    ty: Ty::UINT,
                    ..idx
                };
                let past = self.cmp(CmpOp::Ge, idx, size);
                self.mark_undefined(r, past, crate::ir::UndefinedRule::BallotRange)
            }
            BallotQuery::Count(mask) => {
                let counted = match mask {
                    Some(k) => {
                        let m = self.subgroup_builtin(Builtin::SubgroupMask(k), uvec4.clone());
                        self.bin(BinOp::And, bits, m)
                    }
                    None => bits,
                };
                let c = self.un(UnOp::BitCount, counted);
                let c = V {
                    ty: Ty::V(Sc::Uint, 4),
                    ..c
                };
                self.fold_lanes(&c, BinOp::Add, Ty::UINT)
            }
            BallotQuery::FindLsb | BallotQuery::FindMsb => {
                // The first (lsb: lowest component) non-zero component decides; a ballot with
                // no bit set below the subgroup size reads as all ones, marked undefined
                // below (section 8.18: "If <value> is 0, an undefined value is returned").
                let lsb = q == BallotQuery::FindLsb;
                let per = self.un(
                    if lsb { UnOp::FindLsb } else { UnOp::FindMsb },
                    bits.clone(),
                );
                let mut acc = self.k_u32(u32::MAX);
                let order: Vec<usize> = if lsb {
                    (0..4).rev().collect()
                } else {
                    (0..4).collect()
                };
                for c in order {
                    let lane = |x: &V| V {
                        src: Self::lane_src(x, c),
                        ty: Ty::UINT,
                        k: None,
                    };
                    let base = self.k_u32(32 * c as u32);
                    let found = self.bin(BinOp::Add, lane(&per), base);
                    let z = self.k_u32(0);
                    let nonzero = self.cmp(CmpOp::Ne, lane(&bits), z);
                    let t = self.fresh(Ty::UINT);
                    self.b.select(
                        1,
                        Dst::masked(t.src.reg, 1),
                        nonzero.src,
                        found.src,
                        acc.src,
                    );
                    acc = t;
                }
                let all_ones = self.k_u32(u32::MAX);
                let none = self.cmp(CmpOp::Eq, acc.clone(), all_ones);
                self.mark_undefined(acc, none, crate::ir::UndefinedRule::BallotRange)
            }
        })
    }
}
