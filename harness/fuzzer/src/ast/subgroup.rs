//! The syntax of subgroup blocks: [`SubgroupBlock`] (GL_KHR_shader_subgroup's exchanges,
//! arithmetic and ballots, GL_ARB_shader_ballot's reads and ballot), its parts and the rules it
//! keeps. Semantics, generation, shrinks and spelling are `crate::features::subgroup`'s (whose
//! documentation describes the block).

use super::{Lang, Program};
use serde::{Deserialize, Serialize};

/// The subgroup sizes the model accepts (`gl_SubgroupSize` is the implementation's: a power of
/// two; the reference runs 32 and 16, lavapipe and zink on it 8, NVIDIA 32, AMD 32 or 64).
/// Groups are multiples of [`SUBGROUP_GROUP_MULTIPLE`], so every subgroup is full.
pub const SUBGROUP_SIZES: [u32; 5] = [4, 8, 16, 32, 64];

/// A program with a subgroup block has groups of a multiple of this many invocations.
pub const SUBGROUP_GROUP_MULTIPLE: u32 = 64;

/// Most words one expected alternative of a subgroup block holds (one per size).
pub const SUBGROUP_MAX_WORDS: u32 = 2048;

/// Which extension spells the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SgExt {
    /// GL_KHR_shader_subgroup (`_basic`, `_shuffle`, `_shuffle_relative`, `_ballot`,
    /// `_arithmetic`).
    Khr,
    /// GL_ARB_shader_ballot (`readInvocationARB`, `readFirstInvocationARB`, `ballotARB`;
    /// its `uint64_t` needs GL_ARB_gpu_shader_int64).
    Arb,
}

/// The element type exchanged or combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SgTy {
    U32,
    I32,
    /// Quarters of small integers: every sum, minimum and maximum is exact in any order.
    F32,
}

impl SgTy {
    pub fn name(self) -> &'static str {
        match self {
            SgTy::U32 => "u32",
            SgTy::I32 => "i32",
            SgTy::F32 => "f32",
        }
    }
}

/// A reduction or scan's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SgArith {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
}

impl SgArith {
    pub const ALL: [SgArith; 7] = [
        SgArith::Add,
        SgArith::Mul,
        SgArith::Min,
        SgArith::Max,
        SgArith::And,
        SgArith::Or,
        SgArith::Xor,
    ];

    /// GLSL's spelling (`subgroup<Name>`).
    pub fn glsl(self) -> &'static str {
        match self {
            SgArith::Add => "Add",
            SgArith::Mul => "Mul",
            SgArith::Min => "Min",
            SgArith::Max => "Max",
            SgArith::And => "And",
            SgArith::Or => "Or",
            SgArith::Xor => "Xor",
        }
    }
}

/// Reduction, inclusive or exclusive scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SgScan {
    Reduce,
    Inclusive,
    Exclusive,
}

/// What a ballot block stores per invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BallotQuery {
    /// `subgroupBallotBitCount`.
    Count,
    /// `subgroupBallotInclusiveBitCount`.
    InclusiveCount,
    /// `subgroupBallotExclusiveBitCount`.
    ExclusiveCount,
    /// The ballot's words: a `uvec4` (KHR) or the two halves of `ballotARB`'s `uint64_t`.
    Words,
}

/// The operation of a subgroup block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SgOp {
    /// `subgroupShuffle(v, id)` / `readInvocationARB(v, id)`: the source is `index`.
    Shuffle,
    /// `subgroupShuffleXor(v, mask)`: the source is `sid ^ index`.
    ShuffleXor,
    /// `subgroupShuffleUp(v, delta)`: the source is `sid - index`.
    ShuffleUp,
    /// `subgroupShuffleDown(v, delta)`: the source is `sid + index`.
    ShuffleDown,
    /// `subgroupBroadcast(v, id)`, `id` a constant expression.
    Broadcast,
    /// `subgroupBroadcastFirst(v)` / `readFirstInvocationARB(v)`: invocation 0 (every
    /// invocation is active).
    BroadcastFirst,
    Arith(SgScan, SgArith),
    /// `subgroupBallot((v & mask) != 0u)` (the block's `index.add` is the mask) and a query.
    Ballot(BallotQuery),
}

impl SgOp {
    /// The family the operation belongs to, for signatures and campaign counts.
    pub fn family(self) -> &'static str {
        match self {
            SgOp::Arith(..) => "arithmetic",
            SgOp::Ballot(_) => "ballot",
            _ => "exchange",
        }
    }

    /// Short name (`shuffle-xor`, `exclusive-min`, `ballot-count`).
    pub fn name(self) -> String {
        match self {
            SgOp::Shuffle => "shuffle".into(),
            SgOp::ShuffleXor => "shuffle-xor".into(),
            SgOp::ShuffleUp => "shuffle-up".into(),
            SgOp::ShuffleDown => "shuffle-down".into(),
            SgOp::Broadcast => "broadcast".into(),
            SgOp::BroadcastFirst => "broadcast-first".into(),
            SgOp::Arith(scan, a) => {
                let scan = match scan {
                    SgScan::Reduce => "reduce",
                    SgScan::Inclusive => "inclusive",
                    SgScan::Exclusive => "exclusive",
                };
                format!("{scan}-{}", a.glsl().to_lowercase())
            }
            SgOp::Ballot(q) => match q {
                BallotQuery::Count => "ballot-count".into(),
                BallotQuery::InclusiveCount => "ballot-inclusive-count".into(),
                BallotQuery::ExclusiveCount => "ballot-exclusive-count".into(),
                BallotQuery::Words => "ballot-words".into(),
            },
        }
    }
}

/// A 32-bit value per invocation: `mul * sid + sg_mul * sg + wg_mul * wg + add`, plus
/// `comp * c` in component `c` (wrapping), where `sid` is the subgroup invocation id, `sg` the
/// subgroup's index in its group and `wg` the group's. As a float: `float(int(v)) * 0.25`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SgValue {
    pub mul: u32,
    pub sg_mul: u32,
    pub wg_mul: u32,
    pub add: u32,
    pub comp: u32,
}

impl SgValue {
    pub fn at(&self, sid: u32, sg: u32, wg: u32, c: u32) -> u32 {
        self.mul
            .wrapping_mul(sid)
            .wrapping_add(self.sg_mul.wrapping_mul(sg))
            .wrapping_add(self.wg_mul.wrapping_mul(wg))
            .wrapping_add(self.add)
            .wrapping_add(self.comp.wrapping_mul(c))
    }

    /// The largest magnitude of the signed value over every invocation and component a
    /// program can have (sid and sg below 64, wg below 8, c below 4), read as i64 terms.
    pub fn max_magnitude(&self) -> i64 {
        let s = |x: u32| i64::from(x as i32);
        let term = |k: u32, top: i64| s(k).abs() * top;
        term(self.mul, 63)
            + term(self.sg_mul, 63)
            + term(self.wg_mul, 7)
            + term(self.comp, 3)
            + s(self.add).abs()
    }
}

/// A shuffle's id, mask or delta: `lane * sid + (size ? gl_SubgroupSize : 0) + add`
/// (wrapping), then `& (gl_SubgroupSize - 1)` with `wrap`. A ballot's mask is `add`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SgIndex {
    pub lane: u32,
    pub size: bool,
    pub add: u32,
    pub wrap: bool,
}

impl SgIndex {
    pub fn at(&self, sid: u32, size: u32) -> u32 {
        let x = self
            .lane
            .wrapping_mul(sid)
            .wrapping_add(if self.size { size } else { 0 })
            .wrapping_add(self.add);
        if self.wrap {
            x & (size - 1)
        } else {
            x
        }
    }

    /// A constant expression (the same in every invocation and every subgroup size).
    pub fn is_constant(&self) -> bool {
        self.lane == 0 && !self.size && !self.wrap
    }

    /// The same in every invocation of a subgroup (dynamically uniform).
    pub fn is_uniform(&self) -> bool {
        self.lane == 0
    }
}

/// Each invocation computes its value, executes one subgroup operation in uniform control
/// flow, and stores the result at its slot (`crate::features::subgroup`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubgroupBlock {
    pub ext: SgExt,
    pub op: SgOp,
    pub ty: SgTy,
    /// Components: 1 (a scalar) to 4.
    pub lanes: u8,
    pub value: SgValue,
    pub index: SgIndex,
}

impl SubgroupBlock {
    /// Short name for signatures: `subgroup-<op>-<type>` (`subgroup-shuffle-xor-u32`,
    /// `subgroup-exclusive-min-f32`, `subgroup-ballot-count`), `-arb` for GL_ARB_shader_ballot.
    pub fn feature(&self) -> String {
        let ty = match self.op {
            SgOp::Ballot(_) => String::new(),
            _ if self.lanes > 1 => format!("-{}x{}", self.ty.name(), self.lanes),
            _ => format!("-{}", self.ty.name()),
        };
        let ext = match self.ext {
            SgExt::Khr => "",
            SgExt::Arb => "-arb",
        };
        format!("subgroup-{}{ty}{ext}", self.op.name())
    }

    /// Words each invocation stores.
    pub fn record(&self) -> u32 {
        match (self.op, self.ext) {
            (SgOp::Ballot(BallotQuery::Words), SgExt::Khr) => 4,
            (SgOp::Ballot(BallotQuery::Words), SgExt::Arb) => 2,
            (SgOp::Ballot(_), _) => 1,
            _ => u32::from(self.lanes),
        }
    }

    pub fn check(&self, p: &Program) -> Result<(), String> {
        match (p.lang, self.ext) {
            (Lang::Nvasm, _) => {
                return Err("subgroup blocks exist in GLSL and SPIR-V only".into());
            }
            (Lang::Spirv, SgExt::Arb) => {
                return Err(
                    "GL_ARB_shader_ballot's blocks are GLSL only (SPV_KHR_shader_ballot's \
                     instructions are not in the reference's SPIR-V front end; the KHR blocks \
                     make the same operations)"
                        .into(),
                );
            }
            _ => {}
        }
        if !p.local_size.is_multiple_of(SUBGROUP_GROUP_MULTIPLE) || p.shape.is_some() {
            return Err(format!(
                "subgroup blocks need one-dimensional groups of a multiple of {SUBGROUP_GROUP_MULTIPLE} invocations (full subgroups)"
            ));
        }
        if p.needs_shuffle() {
            return Err("subgroup blocks and NV shuffles are not mixed".into());
        }
        if 1 + p.invocations() * self.record() > SUBGROUP_MAX_WORDS {
            return Err("a subgroup block's expectations would be too large".into());
        }
        if !(1..=4).contains(&self.lanes) {
            return Err(format!("{} components", self.lanes));
        }
        match self.op {
            SgOp::Ballot(q) => {
                if self.ty != SgTy::U32 || self.lanes != 1 {
                    return Err("a ballot's value is a uint".into());
                }
                if self.ext == SgExt::Arb && q != BallotQuery::Words {
                    return Err("ballotARB has no bit-count queries".into());
                }
            }
            SgOp::Arith(_, a)
                if self.ty == SgTy::F32
                    && !matches!(a, SgArith::Add | SgArith::Min | SgArith::Max) =>
            {
                return Err(format!("float {a:?} is inexact or undefined"));
            }
            _ => {}
        }
        if self.ext == SgExt::Arb {
            match self.op {
                SgOp::Shuffle if self.index.is_uniform() => {}
                SgOp::BroadcastFirst | SgOp::Ballot(_) => {}
                _ => {
                    return Err(format!(
                        "GL_ARB_shader_ballot has no {} (readInvocationARB's index is dynamically uniform)",
                        self.op.name()
                    ))
                }
            }
        }
        if self.op == SgOp::Broadcast && !self.index.is_constant() {
            return Err("subgroupBroadcast's id must be a constant expression".into());
        }
        if self.ty == SgTy::F32 && self.value.max_magnitude() > 1 << 15 {
            return Err("a float subgroup value must stay exact".into());
        }
        Ok(())
    }
}
