//! The fuzzer's syntax tree: a compute program as a list of independent test blocks.
//!
//! The bottom layer of the fuzzer: it names nothing above it. Each feature with a sub-grammar
//! of its own keeps its node types in a child module, re-exported here ([`float`], [`wide`],
//! [`vector`], [`narrow`], [`atomic_mix`], [`subgroup`]); the feature's semantics, generation,
//! reduction and emission live in the crate module of the same name. The rules every program
//! keeps ([`Program::check`], [`Lang::expresses`]) consult the model and the SPIR-V emitter,
//! so they live above both, in `crate::generators::rules`.
//!
//! Each block exercises one feature and owns one output buffer (`b<k>`, binding `k`), so a
//! divergence in a buffer names the block that caused it, and the reducer can drop blocks
//! without disturbing the others. Every block has a checkable outcome that [`crate::oracles::model`]
//! derives from the tree alone (never from running a backend):
//! - [`AtomicBlock`]: atomic reductions whose final memory does not depend on the order
//!   (one operation with one operand per location, IWRAP/DWRAP included), with the returned
//!   old values checked as a multiset;
//! - [`SectionBlock`]: an atomic section in the style of CLsmith: the invocation that draws
//!   ticket `winner` from an atomic counter, and only it, runs a block;
//! - [`ExchangeBlock`]: shared-memory communication across a barrier, each invocation reading
//!   the slot a permutation picks;
//! - [`ShuffleBlock`]: a warp shuffle in uniform control flow over full warps;
//! - [`ComputeBlock`]: integer statements and expressions (if/else, counted loops, the whole
//!   operator set), per invocation;
//! - [`AtomicMixBlock`]: different atomic operations on one word whose final value does not
//!   depend on their order (adds, disjoint ANDs/ORs/XORs, MINs or MAXes; `crate::features::atomic_mix`);
//! - [`NarrowBlock`]: 8- and 16-bit stores and loads side by side in one word (NV assembly's
//!   storage modifiers; `crate::features::narrow`);
//! - [`VectorBlock`] (`crate::features::vector`): uvec4 variables under component-wise operators,
//!   swizzles, write masks and component extraction, per invocation;
//! - [`SubgroupBlock`] (`crate::features::subgroup`): GL_KHR_shader_subgroup's shuffles,
//!   broadcasts, reductions, scans and ballots, GL_ARB_shader_ballot's reads and ballot, in
//!   uniform control flow over full subgroups of any size;
//! - [`UndefinedBlock`]: undefined behaviour on purpose (a divergent barrier, a read of
//!   shared memory nobody wrote, a shuffle reading an inactive lane, an oversize shift, a
//!   division by zero): nothing to check in its memory, but the reference must flag it and
//!   drivers must not crash. At most one per program, always the last block, so that the
//!   blocks before it run defined and stay checked.
//!
//! Programs are language-neutral: the same tree emits GLSL (`emit_glsl`) or NV assembly
//! (`emit_nvasm`); a few features exist in one language only (IWRAP/DWRAP in assembly, bool
//! shuffles in GLSL) and the generator respects that.

pub mod atomic_mix;
pub mod float;
pub mod narrow;
pub mod subgroup;
pub mod vector;
pub mod wide;

pub use self::atomic_mix::AtomicMixBlock;
pub use self::float::{FExpr, FLeaf, FOp, IntTy, Round};
pub use self::narrow::NarrowBlock;
pub use self::subgroup::SubgroupBlock;
pub use self::vector::VectorBlock;
pub use self::wide::Wide;
use serde::{Deserialize, Serialize};

/// Source language of a generated program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Glsl,
    Nvasm,
    /// SPIR-V assembly (`emit_spirv`), run through ARB_gl_spirv.
    Spirv,
}

impl Lang {
    pub const ALL: [Lang; 3] = [Lang::Glsl, Lang::Nvasm, Lang::Spirv];

    pub fn name(self) -> &'static str {
        match self {
            Lang::Glsl => "glsl",
            Lang::Nvasm => "nvasm",
            Lang::Spirv => "spirv",
        }
    }
}

/// One generated compute program: `groups` work groups of `local_size` invocations, in x
/// only, or shaped in 2D or 3D by `shape`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    pub lang: Lang,
    pub local_size: u32,
    pub groups: u32,
    pub blocks: Vec<Block>,
    /// The work group size and the dispatch in three dimensions (their products are
    /// `local_size` and `groups`); none: `[local_size, 1, 1]` and `[groups, 1, 1]`.
    #[serde(default)]
    pub shape: Option<Shape>,
}

/// A 2D or 3D work group size and dispatch. Blocks index invocations linearly: the local
/// index is `gl_LocalInvocationIndex` (x + y * X + z * X * Y, GLSL 4.60 section 7.1.6), the
/// group index `wg = gx + GX * (gy + GY * gz)` and the global index `wg * local_size + lid`
/// (`gl_GlobalInvocationID.x` is no longer unique in more than one dimension).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    pub local: [u32; 3],
    pub groups: [u32; 3],
}

impl Shape {
    /// The x, y, z of linear index `i` in a grid of `dims`.
    pub fn split(dims: [u32; 3], i: u32) -> [u32; 3] {
        [
            i % dims[0],
            (i / dims[0]) % dims[1],
            i / (dims[0] * dims[1]),
        ]
    }
}

impl Program {
    /// Whether a compute block reads a component of the local or group ID.
    pub fn reads_id_components(&self) -> bool {
        self.compute_has(&|x| matches!(x, Expr::LocalId(_) | Expr::GroupId(_)))
    }

    /// Whether a compute block has a 64-bit expression ([`Wide`]).
    pub fn uses_wide(&self) -> bool {
        self.compute_has(&|x| matches!(x, Expr::Wide(_)))
    }

    /// Whether an expression node of a compute block satisfies `f`.
    fn compute_has(&self, f: &dyn Fn(&Expr) -> bool) -> bool {
        fn stmts(ss: &[Stmt], f: &dyn Fn(&Expr) -> bool) -> bool {
            ss.iter().any(|s| match s {
                Stmt::Assign(_, e) => reads(e, f),
                Stmt::If(c, a, b) => reads(c, f) || stmts(a, f) || stmts(b, f),
                Stmt::Loop(_, b) | Stmt::Call(b) => stmts(b, f),
                Stmt::Break | Stmt::Continue => false,
            })
        }
        fn reads(e: &Expr, f: &dyn Fn(&Expr) -> bool) -> bool {
            !e.walk(&mut |x| !f(x))
        }
        self.blocks.iter().any(|b| match b {
            Block::Compute(c) => stmts(&c.stmts, f),
            _ => false,
        })
    }

    /// The work group size in three dimensions.
    pub fn local_dims(&self) -> [u32; 3] {
        self.shape.map_or([self.local_size, 1, 1], |s| s.local)
    }

    /// The dispatch in three dimensions.
    pub fn group_dims(&self) -> [u32; 3] {
        self.shape.map_or([self.groups, 1, 1], |s| s.groups)
    }
}

impl Program {
    pub fn invocations(&self) -> u32 {
        self.local_size * self.groups
    }

    /// How many invocations share one word in `space`: the whole dispatch for a storage word,
    /// one group for a shared one.
    pub fn sharing(&self, space: Space) -> u32 {
        match space {
            Space::Storage => self.invocations(),
            Space::Shared => self.local_size,
        }
    }

    /// Whether the program has a shuffle block.
    pub fn has_shuffle_blocks(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b, Block::Shuffle(_)))
    }

    /// The subgroup blocks of the program.
    pub fn subgroup_blocks(&self) -> impl Iterator<Item = &SubgroupBlock> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Subgroup(s) => Some(s),
            _ => None,
        })
    }

    /// Whether the program has a float atomic block.
    pub fn has_float_atomics(&self) -> bool {
        self.blocks
            .iter()
            .any(|b| matches!(b, Block::FloatAtomic(_)))
    }

    /// Whether the program shuffles (a shuffle block, or an inactive-lane read).
    pub fn needs_shuffle(&self) -> bool {
        self.has_shuffle_blocks()
            || self
                .undefined_block()
                .is_some_and(|(_, u)| u.kind == UbKind::InactiveLaneRead)
    }

    /// The undefined-behaviour block, if the program has one (it is the last).
    pub fn undefined_block(&self) -> Option<(usize, &UndefinedBlock)> {
        match self.blocks.last() {
            Some(Block::Undefined(u)) => Some((self.blocks.len() - 1, u)),
            _ => None,
        }
    }
}

/// Limits of generated programs (well under every driver's: loops stay far below llvmpipe's
/// 65535-iteration cap, nesting is shallow, six storage buffers of the eight GL guarantees).
pub const MAX_LOCAL_SIZE: u32 = 256;
pub const MAX_GROUPS: u32 = 8;
pub const MAX_BLOCKS: usize = 6;
pub const MAX_NESTING: usize = 3;
/// Statement executions of a compute block over the whole dispatch (bounds the reference's
/// time; loops near the drivers' iteration caps fit only in small dispatches).
pub const MAX_WORK: u64 = 1 << 24;

/// An upper bound of the statements `stmts` executes (both branches of every `if`).
pub fn trips(stmts: &[Stmt]) -> u64 {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::Assign(..) => 1,
            Stmt::If(_, a, b) => 1u64.saturating_add(trips(a)).saturating_add(trips(b)),
            Stmt::Loop(n, body) => u64::from(*n).saturating_mul(1u64.saturating_add(trips(body))),
            Stmt::Break | Stmt::Continue => 1,
            Stmt::Call(body) => 1u64.saturating_add(trips(body)),
        })
        .fold(0u64, u64::saturating_add)
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Block {
    Atomic(AtomicBlock),
    Section(SectionBlock),
    Exchange(ExchangeBlock),
    Shuffle(ShuffleBlock),
    Compute(ComputeBlock),
    FloatAtomic(FloatAtomicBlock),
    Narrow(NarrowBlock),
    AtomicMix(AtomicMixBlock),
    Undefined(UndefinedBlock),
    /// Four-component vectors, swizzles and write masks (`crate::features::vector`).
    Vector(VectorBlock),
    /// Subgroup exchanges, arithmetic and ballots (`crate::features::subgroup`).
    Subgroup(SubgroupBlock),
}

impl Block {
    /// Short name of the block's kind and main feature, used in signatures
    /// (`atomic-iwrap-u32-shared`, `shuffle-up-f32`, `compute`).
    pub fn feature(&self) -> String {
        match self {
            Block::Atomic(a) => {
                format!("atomic-{}-{}-{}", a.op.name(), a.ty.name(), a.space.name())
            }
            Block::Section(s) => format!("section-{}", s.space.name()),
            Block::Exchange(x) if x.fence => "exchange-shared-fenced".into(),
            Block::Exchange(_) => "exchange-shared-barrier".into(),
            Block::Shuffle(s) => format!("shuffle-{}-{}", s.mode.name(), s.ty.name()),
            Block::Compute(_) => "compute".into(),
            Block::FloatAtomic(f) => format!("fatomic-add-f32-{}", f.space.name()),
            Block::Narrow(n) => n.feature(),
            Block::AtomicMix(m) => m.feature(),
            Block::Undefined(u) => format!("undefined-{}", u.kind.name()),
            Block::Vector(_) => "vector".into(),
            Block::Subgroup(s) => s.feature(),
        }
    }
}

/// Float atomic add (NV_shader_atomic_float `atomicAdd(float)` and `ATOM.ADD.F32`, SPIR-V
/// `OpAtomicFAddEXT`): every admitted invocation adds `operand / 4` to one f32 word starting
/// at `init / 4`. Quarters of small integers keep every partial sum exact in f32, so the final
/// value and the multiset of returned values do not depend on the order or on the rounding
/// the specs leave open (specs README, ambiguity 9).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FloatAtomicBlock {
    pub space: Space,
    /// The operand in quarters (-64..=64).
    pub operand: i32,
    /// The initial value in quarters (-4096..=4096).
    pub init: i32,
    pub guard: Guard,
    pub keep_returns: bool,
}

/// Undefined behaviour on purpose: what the program does, with its parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndefinedBlock {
    pub kind: UbKind,
    /// The kind's parameter (see [`UbKind`]).
    pub param: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UbKind {
    /// `if (lid < param) barrier();` with `0 < param < local_size`: a barrier reached by part
    /// of the group (ARB_compute_shader GLSL 8.15, NV_compute_program5 BAR).
    DivergentBarrier,
    /// Each invocation reads slot `(lid + param) % local_size` of a shared array nobody wrote
    /// (GLSL 4.3.7, NV_compute_program5 2.X.3.Y: shared memory starts undefined).
    UninitSharedRead,
    /// A shuffle of lane `param` in a group whose last warp is partial, `param` at or past its
    /// active lanes and below 31 (both readings of the assembly range test let it through):
    /// the missing lanes are inactive, and reading one is undefined (specs README, 5).
    InactiveLaneRead,
    /// `gid << (lid + param)` with `param` in 32..=63: a count not below the bit width.
    OversizeShift,
    /// `gid / (lid >> 8)`: a divisor of zero the compiler cannot see (groups stay below 256).
    DivByZero,
}

impl UbKind {
    pub const ALL: [UbKind; 5] = [
        UbKind::DivergentBarrier,
        UbKind::UninitSharedRead,
        UbKind::InactiveLaneRead,
        UbKind::OversizeShift,
        UbKind::DivByZero,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UbKind::DivergentBarrier => "divergent-barrier",
            UbKind::UninitSharedRead => "uninitialized-shared-read",
            UbKind::InactiveLaneRead => "inactive-lane-read",
            UbKind::OversizeShift => "oversize-shift",
            UbKind::DivByZero => "division-by-zero",
        }
    }

    /// The flag (`conform_plan::FlagKind` name) the reference must raise.
    pub fn flag(self) -> &'static str {
        match self {
            UbKind::DivergentBarrier => "divergent-barrier",
            UbKind::UninitSharedRead => "uninitialized-shared-read",
            UbKind::InactiveLaneRead => "shuffle-inactive-lane",
            UbKind::OversizeShift | UbKind::DivByZero => "undefined-value",
        }
    }
}

impl UndefinedBlock {
    /// Whether `kind` with `param` is undefined in `p`, as its documentation says.
    pub fn check(&self, p: &Program) -> Result<(), String> {
        let active = p.local_size % 32;
        let ok = match self.kind {
            UbKind::DivergentBarrier => (1..p.local_size).contains(&self.param),
            UbKind::UninitSharedRead | UbKind::DivByZero => true,
            UbKind::InactiveLaneRead => {
                !p.has_shuffle_blocks() && active != 0 && (active..31).contains(&self.param)
            }
            UbKind::OversizeShift => (32..=63).contains(&self.param),
        };
        ok.then_some(()).ok_or_else(|| {
            format!(
                "{} with parameter {} is not undefined in a group of {}",
                self.kind.name(),
                self.param,
                p.local_size
            )
        })
    }
}

/// Where an atomic's word lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Space {
    /// One word in the block's storage buffer, shared by every work group.
    Storage,
    /// One word of shared memory per work group.
    Shared,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Storage => "storage",
            Space::Shared => "shared",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AtomicOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    CSwap,
    IWrap,
    DWrap,
}

impl AtomicOp {
    pub const ALL: [AtomicOp; 10] = [
        AtomicOp::Add,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exch,
        AtomicOp::CSwap,
        AtomicOp::IWrap,
        AtomicOp::DWrap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Min => "min",
            AtomicOp::Max => "max",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Exch => "exch",
            AtomicOp::CSwap => "cswap",
            AtomicOp::IWrap => "iwrap",
            AtomicOp::DWrap => "dwrap",
        }
    }

    /// Order-independent final value with different operands per invocation.
    pub fn commutes(self) -> bool {
        matches!(
            self,
            AtomicOp::Add
                | AtomicOp::Min
                | AtomicOp::Max
                | AtomicOp::And
                | AtomicOp::Or
                | AtomicOp::Xor
        )
    }

    /// IWRAP and DWRAP exist in NV assembly only (GLSL has no wrapping atomics).
    pub fn nvasm_only(self) -> bool {
        matches!(self, AtomicOp::IWrap | AtomicOp::DWrap)
    }
}

/// Type of an atomic's word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AtomTy {
    U32,
    S32,
}

impl AtomTy {
    pub fn name(self) -> &'static str {
        match self {
            AtomTy::U32 => "u32",
            AtomTy::S32 => "s32",
        }
    }
}

/// The value each invocation hands an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    /// The same value everywhere: the sequence of states is fixed whatever the order.
    Uniform(u32),
    /// `base + step * index` (wrapping): only for operations that commute.
    PerInvocation { base: u32, step: u32 },
}

/// Which invocations take part, by index (global for storage words, local for shared ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Guard {
    All,
    /// `index < n`.
    Below(u32),
    /// `index % m == r` (`m >= 2`, `r < m`).
    Every {
        m: u32,
        r: u32,
    },
}

impl Guard {
    pub fn admits(self, index: u32) -> bool {
        match self {
            Guard::All => true,
            Guard::Below(n) => index < n,
            Guard::Every { m, r } => index % m == r,
        }
    }
}

/// Every admitted invocation applies `op` with its operand to one word starting at `init`
/// (a storage word for the whole dispatch, or a shared word per group) and, with
/// `keep_returns`, stores the old value it got back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtomicBlock {
    pub space: Space,
    pub op: AtomicOp,
    pub ty: AtomTy,
    pub operand: Operand,
    /// CSWAP's comparison value (ignored by other operations).
    pub compare: u32,
    pub init: u32,
    pub guard: Guard,
    pub keep_returns: bool,
}

impl AtomicBlock {
    /// Whether invocations store the old values they get back: only where their multiset is
    /// fixed, i.e. with a uniform operand.
    pub fn stores_returns(&self) -> bool {
        self.keep_returns && matches!(self.operand, Operand::Uniform(_))
    }
}

/// CLsmith-style atomic section: every invocation draws a ticket with an atomic add of 1 on a
/// counter starting at 0; the one that draws `winner` increments a hit counter and stores
/// `payload` evaluated with its ticket. Exactly one hit per counter, whatever the order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionBlock {
    pub space: Space,
    pub winner: u32,
    /// An expression over `Const` and `Ticket` leaves only.
    pub payload: Expr,
}

/// Each invocation writes `value` (over `Lid`, `Wg`, `Const`) to shared slot `lid`, then, in
/// each of `rounds` rounds of a loop, reads slot `(mul * lid + add) % local_size` (a
/// permutation: `mul` is coprime to the size) and writes what it read back to its own slot,
/// with a barrier between every read and write; finally it reads the permuted slot once more
/// and stores it. In GLSL, `fence` puts `memoryBarrierShared()` before every `barrier()`;
/// without it `barrier()` alone must order the shared accesses (ARBCS-GLSL-SHARED-VISIBILITY).
/// NV assembly always uses `MEMBAR.CTA` then `BAR`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExchangeBlock {
    pub mul: u32,
    pub add: u32,
    pub value: Expr,
    pub rounds: u8,
    pub fence: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Xor,
}

impl ShflMode {
    pub const ALL: [ShflMode; 4] = [ShflMode::Idx, ShflMode::Up, ShflMode::Down, ShflMode::Xor];

    pub fn name(self) -> &'static str {
        match self {
            ShflMode::Idx => "idx",
            ShflMode::Up => "up",
            ShflMode::Down => "down",
            ShflMode::Xor => "xor",
        }
    }
}

/// The data type a shuffle moves. `Bool` exists in GLSL only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ShflTy {
    U32,
    I32,
    F32,
    Bool,
}

impl ShflTy {
    pub fn name(self) -> &'static str {
        match self {
            ShflTy::U32 => "u32",
            ShflTy::I32 => "i32",
            ShflTy::F32 => "f32",
            ShflTy::Bool => "bool",
        }
    }
}

/// A warp shuffle of `value` (over `Lid`, `Wg`, `Const`), converted to `ty`, with an index
/// (over `Lid`, `Const`). GLSL takes `width`; NV assembly takes `mask` (clamp in bits 0-4,
/// segment mask in bits 8-12). Each invocation stores the value it got and whether the source
/// was valid (GLSL `threadIdValid`, stored only with `want_valid`; the assembly predicate).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShuffleBlock {
    pub mode: ShflMode,
    pub ty: ShflTy,
    pub value: Expr,
    pub index: Expr,
    pub width: u32,
    pub mask: u32,
    pub want_valid: bool,
}

/// Statements over four variables (`v0 = gid`, `v1 = lid`, `v2 = wg`, `v3 = seed`); each
/// invocation stores the four final values.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputeBlock {
    pub seed: u32,
    pub stmts: Vec<Stmt>,
}

/// Number of variables of a [`ComputeBlock`].
pub const VARS: usize = 4;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stmt {
    Assign(u8, Expr),
    /// `if (cond != 0) then else els`.
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// A counted loop: the body runs `count` times with its index (`LoopIdx(depth)`) 0, 1, ...
    Loop(u32, Vec<Stmt>),
    /// Leaves the innermost loop. Only as the last statement of the then-branch of an `if`
    /// inside a loop ([`Program::check`]): every language can then branch out of the `if`
    /// directly.
    Break,
    /// Ends the innermost loop's round (the index still counts on). Same place as `Break`.
    Continue,
    /// A call of a function whose body is these statements, on the caller's four variables
    /// (GLSL `inout` parameters, the same NV registers through `CAL`/`RET`, SPIR-V
    /// `OpFunctionCall` with pointers to them). The caller's loop indices are not visible in
    /// it.
    Call(Vec<Stmt>),
}

/// A 32-bit integer expression. All values are `u32` bit patterns; operators that care about
/// signs say so (`ShrS`, `MinS`, `LtS`, `DivS`, ...). Every operator is defined on every
/// input: shift counts are taken modulo 32, and a division or remainder replaces only the
/// operands the specs leave undefined (division by zero, signed `MIN / -1`, a negative
/// remainder operand: [`crate::oracles::model::div_operands`]), so no expression reaches undefined
/// behaviour while every defined operand pair stays reachable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expr {
    Const(u32),
    /// `gl_LocalInvocationIndex` / `invocation.localindex`.
    Lid,
    /// `gl_GlobalInvocationID.x` / `invocation.globalid.x` (in a shaped program, the linear
    /// global index: [`Shape`]).
    Gid,
    /// `gl_WorkGroupID.x` / `invocation.groupid.x` (in a shaped program, the linear group
    /// index: [`Shape`]).
    Wg,
    /// A component (0, 1, 2) of `gl_LocalInvocationID` / `invocation.localid`.
    LocalId(u8),
    /// A component (0, 1, 2) of `gl_WorkGroupID` / `invocation.groupid`.
    GroupId(u8),
    /// A variable of a compute block.
    Var(u8),
    /// The index of the enclosing loop at this nesting depth (0 = outermost).
    LoopIdx(u8),
    /// A section's ticket.
    Ticket,
    Un(UnOp, Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `c != 0 ? a : b`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `bits` bits of `value` from bit `offset` (`offset < 32`, `offset + bits <= 32`),
    /// zero- or sign-extended; 0 when `bits` is 0 (GLSL `bitfieldExtract`, NV `BFE`).
    Extract {
        value: Box<Expr>,
        offset: u8,
        bits: u8,
        signed: bool,
    },
    /// `base` with bits `offset..offset + bits` replaced by the low bits of `insert` (same
    /// limits; GLSL `bitfieldInsert`, NV `BFI`).
    Insert {
        base: Box<Expr>,
        insert: Box<Expr>,
        offset: u8,
        bits: u8,
    },
    /// A float expression, exact by construction, rounded to an integer and converted to
    /// `to` (clamped with `sat`, else wrapped), widened back to 32 bits ([`float`]).
    FToI {
        value: Box<FExpr>,
        round: Round,
        to: IntTy,
        sat: bool,
    },
    /// A 64-bit operation on the extended operands, one half of the result (`crate::features::wide`).
    Wide(Wide),
    /// `value` clamped to `[lo, hi]`, compared signed or unsigned (GLSL `clamp` on `int` or
    /// `uint`, GLSL.std.450 `SClamp`/`UClamp`; NV assembly has no clamp for integers and
    /// spells it `MAX` then `MIN`). The bounds are constants with `lo <= hi` in the
    /// comparison's order ([`Program::check`]): GLSL 4.60 section 8.3 and GLSL.std.450 leave
    /// `lo > hi` undefined.
    Clamp {
        value: Box<Expr>,
        lo: u32,
        hi: u32,
        signed: bool,
    },
}

/// Whether a bitfield of `bits` bits at `offset` is defined in both languages.
pub fn bitfield_ok(offset: u8, bits: u8) -> bool {
    offset < 32 && u32::from(offset) + u32::from(bits) <= 32
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnOp {
    Not,
    Neg,
    /// Number of one bits (`bitCount`, `BTC`).
    BitCount,
    /// Bits in reverse order (`bitfieldReverse`, `BFR`).
    BitReverse,
    /// Index of the lowest one bit, all ones for 0 (`findLSB`, `BTFL.U`).
    FindLsb,
    /// Index of the highest one bit, all ones for 0 (`findMSB` of a uint, `BTFM.U`).
    FindMsb,
    /// Index of the highest bit that differs from the sign bit, all ones for 0 and -1
    /// (`findMSB` of an int, `BTFM.S`, GLSL.std.450 `FindSMsb`).
    FindMsbS,
    /// `|max(a, -2^31 + 1)|` on the signed reading (`abs` of an int, `ABS.S`, `SAbs`): the
    /// minimum integer, whose absolute value no 32-bit int holds and which no spec rules on,
    /// is kept out by the `max` every language writes before it.
    AbsS,
    /// -1, 0 or 1 by the sign of the signed reading (`sign` of an int, `SSign`; NV's `SSG`
    /// takes floats only, so NV assembly subtracts `SGT.S` from `SLT.S`).
    SignS,
    /// `a == 0`, as 0 or 1 (GLSL `!` on a bool, SPIR-V `OpLogicalNot`; NV assembly has no
    /// booleans and spells it `SEQ.U`).
    LNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    /// `a << (b & 31)`.
    Shl,
    /// Logical `a >> (b & 31)`.
    ShrU,
    /// Arithmetic `a >> (b & 31)` on the signed reading of `a`.
    ShrS,
    MinU,
    MaxU,
    MinS,
    MaxS,
    /// `a / b`, unsigned; a divisor of 0 becomes 1.
    DivU,
    /// `a % b`, unsigned; a divisor of 0 becomes 1.
    RemU,
    /// `a / b` on the signed readings, truncating towards zero (GLSL `/` on `int`, NV
    /// `DIV.S`); a divisor of 0, or -1 with a dividend of `i32::MIN`, becomes 1.
    DivS,
    /// `a % b` on the signed readings, where both languages define it: the dividend's sign bit
    /// is cleared and a divisor below 1 becomes 1 (GLSL 4.60 section 5.9 and NV_gpu_program4's
    /// MOD leave negative operands undefined).
    RemS,
    /// High 32 bits of the unsigned 64-bit product (`umulExtended`, `MUL.U.HI`).
    MulHiU,
    /// High 32 bits of the signed 64-bit product (`imulExtended`, `MUL.S.HI`).
    MulHiS,
    /// `a < b` unsigned, as 0 or 1.
    LtU,
    /// `a < b` signed, as 0 or 1.
    LtS,
    /// `a == b`, as 0 or 1.
    Eq,
    /// `a != b`, as 0 or 1.
    Ne,
    // The rest are outside [`BinOp::ALL`]: only the last statement the generator draws for
    // the whole integer instruction set uses them (`gen::int_families`), so every program
    // drawn before they existed is drawn the same.
    /// `a <= b` unsigned, as 0 or 1.
    LeU,
    /// `a <= b` signed, as 0 or 1.
    LeS,
    /// `a > b` unsigned, as 0 or 1.
    GtU,
    /// `a > b` signed, as 0 or 1.
    GtS,
    /// `a >= b` unsigned, as 0 or 1.
    GeU,
    /// `a >= b` signed, as 0 or 1.
    GeS,
    /// `a != 0 && b != 0`, as 0 or 1 (GLSL `&&`, SPIR-V `OpLogicalAnd`; NV assembly: `SNE.U`
    /// and `AND.U`).
    LAnd,
    /// `a != 0 || b != 0`, as 0 or 1 (GLSL `||`, `OpLogicalOr`; NV: `SNE.U`, `OR.U`).
    LOr,
    /// `(a != 0) != (b != 0)`, as 0 or 1 (GLSL `^^`, `OpLogicalNotEqual`; NV: `SNE.U`,
    /// `XOR.U`).
    LXor,
    /// The carry out of the unsigned sum `a + b`, 0 or 1 (GLSL `uaddCarry`'s out argument,
    /// SPIR-V `OpIAddCarry` member 1, NV `ADD.U.CC` and the CF condition).
    Carry,
    /// The borrow of the unsigned difference `a - b` (1 when `a < b`: GLSL `usubBorrow`'s out
    /// argument, `OpISubBorrow` member 1; NV `SUB.U.CC`, whose CF is set when the difference
    /// is not negative: the borrow is NCF).
    Borrow,
    /// SPIR-V `OpSRem`, SPIR-V only. The SPIR-V specification defines it over every sign
    /// (the dividend's), but in OpenGL a negative operand is undefined (ARB_gl_spirv
    /// A.spv.6), so it gets `RemS`'s replacements (`model::div_operands`): the instruction
    /// itself is what is exercised.
    SRem,
    /// SPIR-V `OpSMod` (the divisor's sign where defined), SPIR-V only, same replacements.
    SMod,
    /// `|a - b|` on the unsigned readings (NV `SAD.U` with a zero or another addend; GLSL and
    /// SPIR-V: `max - min`).
    AbsDiffU,
    /// `|a - b|` on the signed readings, as an unsigned result (NV `SAD.S`: "the result [is]
    /// always unsigned"; GLSL and SPIR-V: signed `max - min`, exact modulo 2^32).
    AbsDiffS,
    /// The product of the low 24 bits of each operand (NV `MUL.U24`, whose operands must lie in
    /// [0, 2^24 - 1]: NV assembly masks them first; GLSL and SPIR-V multiply the masked values).
    Mul24U,
    /// The product of the low 24 bits of each operand read as signed (NV `MUL.S24` on operands
    /// sign-extended from 24 bits by `BFE.S`; GLSL `bitfieldExtract(int(x), 0, 24)`).
    Mul24S,
}

impl BinOp {
    /// Whether the operator compares, giving 0 or 1 (NV set-on instructions give all ones
    /// for TRUE, SPIR-V a `bool`: their emitters convert).
    pub fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(
            self,
            LtU | LtS | Eq | Ne | LeU | LeS | GtU | GtS | GeU | GeS
        )
    }

    /// Whether only SPIR-V has this operator (`SRem`, `SMod`: SPIR-V's own instructions; on
    /// the non-negative operands the model lets through they are GLSL's `%` and NV `MOD`).
    pub fn spirv_only(self) -> bool {
        matches!(self, BinOp::SRem | BinOp::SMod)
    }

    pub const ALL: [BinOp; 23] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::ShrU,
        BinOp::ShrS,
        BinOp::MinU,
        BinOp::MaxU,
        BinOp::MinS,
        BinOp::MaxS,
        BinOp::DivU,
        BinOp::RemU,
        BinOp::DivS,
        BinOp::RemS,
        BinOp::MulHiU,
        BinOp::MulHiS,
        BinOp::LtU,
        BinOp::LtS,
        BinOp::Eq,
        BinOp::Ne,
    ];

    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::ShrU => "shru",
            BinOp::ShrS => "shrs",
            BinOp::MinU => "minu",
            BinOp::MaxU => "maxu",
            BinOp::MinS => "mins",
            BinOp::MaxS => "maxs",
            BinOp::DivU => "divu",
            BinOp::RemU => "remu",
            BinOp::DivS => "divs",
            BinOp::RemS => "rems",
            BinOp::MulHiU => "mulhiu",
            BinOp::MulHiS => "mulhis",
            BinOp::LtU => "ltu",
            BinOp::LtS => "lts",
            BinOp::Eq => "eq",
            BinOp::Ne => "ne",
            BinOp::LeU => "leu",
            BinOp::LeS => "les",
            BinOp::GtU => "gtu",
            BinOp::GtS => "gts",
            BinOp::GeU => "geu",
            BinOp::GeS => "ges",
            BinOp::LAnd => "land",
            BinOp::LOr => "lor",
            BinOp::LXor => "lxor",
            BinOp::Carry => "carry",
            BinOp::Borrow => "borrow",
            BinOp::SRem => "srem",
            BinOp::SMod => "smod",
            BinOp::AbsDiffU => "absdiffu",
            BinOp::AbsDiffS => "absdiffs",
            BinOp::Mul24U => "mul24u",
            BinOp::Mul24S => "mul24s",
        }
    }
}

impl UnOp {
    pub const ALL: [UnOp; 6] = [
        UnOp::Not,
        UnOp::Neg,
        UnOp::BitCount,
        UnOp::BitReverse,
        UnOp::FindLsb,
        UnOp::FindMsb,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UnOp::Not => "not",
            UnOp::Neg => "neg",
            UnOp::BitCount => "bitcount",
            UnOp::BitReverse => "bitreverse",
            UnOp::FindLsb => "findlsb",
            UnOp::FindMsb => "findmsb",
            UnOp::FindMsbS => "findmsbs",
            UnOp::AbsS => "abss",
            UnOp::SignS => "signs",
            UnOp::LNot => "lnot",
        }
    }
}

impl Expr {
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    /// The direct sub-expressions, in order.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Un(_, a) | Expr::Extract { value: a, .. } | Expr::Clamp { value: a, .. } => {
                vec![a]
            }
            Expr::Bin(_, a, b)
            | Expr::Insert {
                base: a, insert: b, ..
            } => vec![a, b],
            Expr::Select(c, a, b) => vec![c, a, b],
            Expr::FToI { value, .. } => value.int_leaves(),
            Expr::Wide(w) => vec![&w.a, &w.b],
            _ => vec![],
        }
    }

    /// The direct sub-expressions, in the order of [`Expr::children`], to rewrite in place.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Un(_, a) | Expr::Extract { value: a, .. } | Expr::Clamp { value: a, .. } => {
                vec![a]
            }
            Expr::Bin(_, a, b)
            | Expr::Insert {
                base: a, insert: b, ..
            } => vec![a, b],
            Expr::Select(c, a, b) => vec![c, a, b],
            Expr::FToI { value, .. } => value.int_leaves_mut(),
            Expr::Wide(w) => vec![&mut w.a, &mut w.b],
            _ => vec![],
        }
    }

    /// Visits every node (parents first) while `f` says yes; whether it said yes to all.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr) -> bool) -> bool {
        f(self) && self.children().into_iter().all(|c| c.walk(f))
    }

    /// Number of nodes.
    pub fn size(&self) -> usize {
        let mut n = 0;
        self.walk(&mut |_| {
            n += 1;
            true
        });
        n
    }

    /// The operator names used, for signatures.
    pub fn ops(&self, out: &mut Vec<&'static str>) {
        self.walk(&mut |e| {
            match e {
                Expr::Un(op, _) => out.push(op.name()),
                Expr::Bin(op, ..) => out.push(op.name()),
                Expr::Select(..) => out.push("select"),
                Expr::Extract { signed: true, .. } => out.push("extracts"),
                Expr::Extract { .. } => out.push("extractu"),
                Expr::Insert { .. } => out.push("insert"),
                Expr::Clamp { signed: true, .. } => out.push("clamps"),
                Expr::Clamp { .. } => out.push("clampu"),
                Expr::FToI { value, round, .. } => {
                    out.push(round.name());
                    value.ops(out);
                }
                Expr::Wide(w) => out.push(wide::name(w.op)),
                _ => {}
            }
            true
        });
    }
}

impl Stmt {
    /// Calls `f` on every expression of the statement and the statements it holds.
    pub fn walk_exprs(&self, f: &mut dyn FnMut(&Expr)) {
        match self {
            Stmt::Assign(_, e) => f(e),
            Stmt::If(c, a, b) => {
                f(c);
                a.iter().chain(b).for_each(|s| s.walk_exprs(f));
            }
            Stmt::Loop(_, body) | Stmt::Call(body) => body.iter().for_each(|s| s.walk_exprs(f)),
            Stmt::Break | Stmt::Continue => {}
        }
    }

    pub fn ops(&self, out: &mut Vec<&'static str>) {
        match self {
            Stmt::Assign(_, e) => e.ops(out),
            Stmt::If(c, a, b) => {
                out.push("if");
                c.ops(out);
                a.iter().chain(b).for_each(|s| s.ops(out));
            }
            Stmt::Loop(_, body) => {
                out.push("loop");
                body.iter().for_each(|s| s.ops(out));
            }
            Stmt::Break => out.push("break"),
            Stmt::Continue => out.push("continue"),
            Stmt::Call(body) => {
                out.push("call");
                body.iter().for_each(|s| s.ops(out));
            }
        }
    }
}
