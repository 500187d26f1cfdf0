//! The group executor: runs the invocations of one work group under a schedule.
//!
//! Scheduling model: the invocations of a group are run one at a time, each until it blocks
//! (at `ControlBarrier` or at a shuffle) or ends; the order in which they get their turn is the
//! schedule's (in order, reversed, or a seeded random permutation redrawn every round). When
//! none can run: first, pending shuffles are resolved warp by warp (all lanes of a warp waiting
//! at the same shuffle exchange values together; lanes elsewhere count as inactive; subgroup
//! operations likewise per subgroup, derivatives per group of four, `quads`); otherwise
//! the barrier is resolved: when every live invocation waits at the same BAR, all are released;
//! when only part of the group reached it (others ended, or wait at another BAR), the flag
//! `divergent-barrier` is raised and the waiting invocations are released anyway (the group
//! carries on: never a hang).

#![allow(
    clippy::needless_range_loop,
    clippy::too_many_arguments,
    clippy::type_complexity
)]

use super::block_index::BlockIndexUniformity;
use super::flags::FlagSet;
use super::mem::{atomic_new, GlobalBuf, SharedMem};
use super::poison::{self, Cause, Lanes, MemPoison, Origin};
use super::race::{CrossGroup, Memory, RaceShadow};
use super::shuffle::{asm_source, glsl_source, Reading};
use super::subgroup::{self, Member};
use super::values::{self, f16_to_f32, f32_to_f16, rd, sext};
use crate::ir::{
    AtomicOp, BinOp, Builtin, Dst, ImageOp, Inst, Kind, MemTy, Program, Space, Src, UnOp,
    BLOCK_ARRAY_SHIFT,
};
use crate::{PlantedBug, LIMITS};
use conform_plan::{FlagKind, Refusal};

mod access;
mod compute;
mod control;
mod quads;
mod races;
mod warps;

/// Where an instruction executes: the invocation (its group, its index there, its registers'
/// place in `GroupExec::regs`), its pc, and the instructions it has executed so far, this one
/// included. What `run_inv` hands each kind of instruction (`compute`, `access`, `control`).
#[derive(Clone, Copy)]
struct At {
    gid: [u32; 3],
    i: usize,
    base: usize,
    nregs: usize,
    pc: u32,
    steps: u64,
}

/// Where an invocation goes on after a control instruction.
enum Flow {
    /// At this pc, in the same turn.
    Goto(u32),
    /// Its turn ends, its pc at this value, its status set (waiting or done).
    Yield(u32),
}

/// In which order invocations (and, when run sequentially, groups) take turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    InOrder,
    Reversed,
    Random(u64),
    /// The invocations take turns at every memory access (load, store, atomic, image
    /// operation), in order: what a machine running the group in lock step reads. Not one of
    /// `nth`'s: `crate::run_ir` adds it where a read races with a write (`race`), the one
    /// interleaving the others never give (write 1, read, write 2 in each invocation: the
    /// others read 1 only here).
    Lockstep,
}

impl Schedule {
    /// Schedule number `i` of a run: 0 in order, 1 reversed, then random with seed `i`.
    pub fn nth(i: u32) -> Schedule {
        match i {
            0 => Schedule::InOrder,
            1 => Schedule::Reversed,
            n => Schedule::Random(0x5EED_0000 + u64::from(n)),
        }
    }
    pub fn name(self) -> String {
        match self {
            Schedule::InOrder => "in-order".into(),
            Schedule::Reversed => "reversed".into(),
            Schedule::Random(s) => format!("random(seed {s:#x})"),
            Schedule::Lockstep => "lockstep".into(),
        }
    }
}

/// The register an instruction writes, if any (for traces).
fn dst_of(inst: &Inst) -> Option<u32> {
    use Inst::*;
    match inst {
        Mov { dst, .. }
        | Un { dst, .. }
        | Bin { dst, .. }
        | Mad { dst, .. }
        | Cmp { dst, .. }
        | Select { dst, .. }
        | Convert { dst, .. }
        | ConvertRounded { dst, .. }
        | BitfieldExtract { dst, .. }
        | BitfieldInsert { dst, .. }
        | Pack64 { dst, .. }
        | Unpack64 { dst, .. }
        | ExtractDyn { dst, .. }
        | InsertDyn { dst, .. }
        | Builtin { dst, .. }
        | MarkUndefined { dst, .. }
        | SetCc { dst, .. }
        | SetCcAdd { dst, .. }
        | TestCc { dst, .. }
        | Load { dst, .. }
        | Derivative { dst, .. } => Some(dst.reg.0),
        Atomic { dst: Some(d), .. } | Subgroup { dst: Some(d), .. } => Some(d.reg.0),
        _ => None,
    }
}

/// SplitMix64, the fixed generator of random schedules.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
}

/// Memory and parameters of one dispatch, shared by every group.
pub struct Env<'a> {
    pub prog: &'a Program,
    /// (binding, buffer) for storage buffers.
    pub storage: Vec<(u32, &'a GlobalBuf)>,
    pub counters: Vec<(u32, &'a GlobalBuf)>,
    pub uniform: Vec<(u32, &'a [u8])>,
    pub param_buf: Vec<(u32, &'a [u8])>,
    /// The images on image units.
    pub images: Vec<super::image::Bound<'a>>,
    /// The sampled textures on texture units.
    pub textures: Vec<super::texture::Bound<'a>>,
    pub local: &'a [u8],
    /// The default-uniform space, laid out per `Program::uniforms`.
    pub default_uniforms: &'a [u8],
    pub env: &'a [u8],
    pub group_count: [u32; 3],
    /// The work group size of this dispatch: the program's, or the one
    /// glDispatchComputeGroupSizeARB gave a program with a variable size.
    pub group_size: [u32; 3],
    pub reading: Reading,
    pub bug: Option<PlantedBug>,
    pub budget: u64,
    pub schedule: Schedule,
    /// Invocations per subgroup (for `Inst::Subgroup`).
    pub subgroup_size: u32,
    /// Trace this (group, local index): every instruction it executes is logged to `trace`.
    pub trace_target: Option<([u32; 3], usize)>,
    /// Where `Builtin::Clock` starts in this dispatch (see there).
    pub clock_base: u64,
    /// What uninitialized variables read (`RunCfg::uninit_fill`).
    pub uninit_fill: Option<u64>,
    /// (binding, bytes) of storage buffers whose earlier dispatches' writes a load may not
    /// see (`visibility`); empty when the plan has one dispatch.
    pub unseen: Vec<(u32, &'a super::visibility::Tracked)>,
}

/// Most lines one trace keeps.
pub const TRACE_LINES: usize = 20_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Run,
    /// Waiting at the BAR at this pc (pc already points past it).
    Bar(u32),
    /// Waiting at the shuffle at this pc (pc still points at it).
    Shfl(u32),
    Done,
}

#[derive(Clone, Copy, Debug)]
struct LoopFrame {
    begin: u32,
    end: u32,
    /// Iterations left including the current one; -1: unbounded.
    remaining: i64,
}

#[derive(Clone, Debug)]
struct Inv {
    pc: u32,
    status: Status,
    calls: Vec<(u32, usize)>,
    loops: Vec<LoopFrame>,
    steps: u64,
    local_id: [u32; 3],
    private: Vec<u8>,
    /// Some register lane of this invocation may hold an undefined value: results get
    /// origins (`poison`). False until an instruction makes an undefined value.
    tainted: bool,
    /// Bytes of `private` holding undefined values.
    private_poison: MemPoison,
}

/// Reusable state for running groups (one per worker thread).
pub struct GroupExec {
    regs: Vec<[u64; 4]>,
    invs: Vec<Inv>,
    shared: SharedMem,
    /// Bytes of `shared` holding undefined values (beyond never-written ones).
    shared_poison: MemPoison,
    /// Origins of every register lane of every invocation (`regs`' shape), allocated when an
    /// invocation of the group first makes an undefined value; empty until then.
    shadow: Vec<Lanes>,
    pub flags: FlagSet,
    order: Vec<usize>,
    /// Lines logged for `Env::trace_target`.
    pub trace: Vec<String>,
    block_index: BlockIndexUniformity,
    /// Reads racing with other invocations' writes since the last barrier (`race`).
    race: RaceShadow,
    /// Reads of storage bytes other work groups of the dispatch changed (`race`; enabled by
    /// the dispatch where groups run one after another).
    pub cross: CrossGroup,
}

#[inline]
/// Converts with `f` (the bits, and whether they are defined) the lanes of `a` that `dst`
/// writes (the others are not computed); returns the values and the mask of undefined lanes.
fn convert_lanes(
    a: [u64; 4],
    dst: &crate::ir::Dst,
    lanes: u8,
    f: impl Fn(u64) -> (u64, bool),
) -> ([u64; 4], u8) {
    let mut v = [0u64; 4];
    let mut bad = 0u8;
    for l in 0..lanes.min(4) as usize {
        if dst.mask & (1 << l) != 0 {
            let (x, defined) = f(a[l]);
            v[l] = x;
            if !defined {
                bad |= 1 << l;
            }
        }
    }
    (v, bad)
}

fn wr(regs: &mut [[u64; 4]], d: &crate::ir::Dst, lanes: u8, v: [u64; 4]) {
    let r = &mut regs[d.reg.0 as usize];
    for (l, slot) in r.iter_mut().enumerate().take((lanes as usize).min(4)) {
        if d.mask & (1 << l) != 0 {
            *slot = v[l];
        }
    }
}

#[inline]
fn rdx(regs: &[[u64; 4]], s: Src) -> u64 {
    regs[s.reg.0 as usize][(s.swz[0] & 3) as usize]
}

/// Register value of a widening load.
fn widen(mt: MemTy, raw: u64) -> u64 {
    if !mt.widen {
        return raw;
    }
    match (mt.scalar.kind, mt.scalar.bits) {
        (Kind::S, b) if b < 32 => (sext(raw, b) as u64) & 0xffff_ffff,
        (Kind::F, 16) => u64::from(f16_to_f32(raw as u16).to_bits()),
        _ => raw,
    }
}

/// Memory bits of a register value for a store.
fn narrow(mt: MemTy, v: u64) -> u64 {
    if mt.widen && mt.scalar.kind == Kind::F && mt.scalar.bits == 16 {
        return u64::from(f32_to_f16(f32::from_bits(v as u32)));
    }
    v & mt.scalar.mask()
}

fn find<T: Copy>(list: &[(u32, T)], binding: u32) -> Option<T> {
    list.iter().find(|(b, _)| *b == binding).map(|(_, t)| *t)
}

fn ro_read(bytes: &[u8], off: u64, size: u32) -> Option<u64> {
    let end = off.checked_add(u64::from(size))?;
    if end > bytes.len() as u64 {
        return None;
    }
    let mut v = 0u64;
    for i in 0..size as usize {
        v |= u64::from(bytes[off as usize + i]) << (i * 8);
    }
    Some(v)
}

impl GroupExec {
    pub fn new(prog: &Program) -> Self {
        GroupExec {
            regs: Vec::new(),
            invs: Vec::new(),
            shared: SharedMem::new(prog.shared_size),
            shared_poison: MemPoison::default(),
            shadow: Vec::new(),
            flags: FlagSet::default(),
            order: Vec::new(),
            trace: Vec::new(),
            block_index: BlockIndexUniformity::default(),
            race: RaceShadow::new(prog),
            cross: CrossGroup::default(),
        }
    }

    /// Runs work group `gid` to completion.
    pub fn run_group(
        &mut self,
        env: &Env,
        gid: [u32; 3],
        group_linear: u64,
    ) -> Result<(), Refusal> {
        let prog = env.prog;
        let [sx, sy, sz] = env.group_size;
        let n = (sx * sy * sz) as usize;
        let nregs = prog.reg_init.len();
        self.regs.clear();
        for _ in 0..n {
            self.regs.extend_from_slice(&prog.reg_init);
        }
        // Reuse the invocation states (and their stacks' capacity) from the previous group.
        self.invs.truncate(n);
        let private = prog.private_size as usize;
        for i in 0..n {
            let i32_ = i as u32;
            let lid = [i32_ % sx, (i32_ / sx) % sy, i32_ / (sx * sy)];
            if i == self.invs.len() {
                self.invs.push(Inv {
                    pc: 0,
                    status: Status::Run,
                    calls: Vec::with_capacity(4),
                    loops: Vec::new(),
                    steps: 0,
                    local_id: lid,
                    private: Vec::new(),
                    tainted: false,
                    private_poison: MemPoison::default(),
                });
            }
            let inv = &mut self.invs[i];
            inv.pc = prog.entry_pc;
            inv.status = Status::Run;
            inv.calls.clear();
            inv.loops.clear();
            inv.steps = 0;
            inv.local_id = lid;
            inv.private.clear();
            inv.private.resize(private, 0);
            inv.tainted = false;
            inv.private_poison.clear();
        }
        self.block_index.reset(n);
        self.race
            .reset(n, prog.uses.shared || prog.uses.storage_read_write);
        self.cross.start_group(group_linear, n);
        if prog.uses.shared || prog.shared_size > 0 {
            self.shared.reset();
        }
        self.shared_poison.clear();
        if !self.shadow.is_empty() {
            self.shadow.clear();
            self.shadow.resize(n * nregs, [Origin::NONE; 4]);
        }
        let mut rng = SplitMix(match env.schedule {
            Schedule::Random(s) => s ^ group_linear.wrapping_mul(0x2545_F491_4F6C_DD1D),
            _ => 0,
        });
        let mut round = 0u64;
        loop {
            self.order.clear();
            self.order.extend(0..n);
            match env.schedule {
                Schedule::InOrder | Schedule::Lockstep => {}
                Schedule::Reversed => self.order.reverse(),
                Schedule::Random(_) => {
                    for i in (1..n).rev() {
                        let j = rng.below(i as u64 + 1) as usize;
                        self.order.swap(i, j);
                    }
                }
            }
            for k in 0..n {
                let i = self.order[k];
                if self.invs[i].status == Status::Run {
                    self.run_inv(env, gid, i, nregs)?;
                }
            }
            round += 1;
            // Lock step: invocations that yielded at a memory access take their next turn.
            if self.invs.iter().any(|v| v.status == Status::Run) {
                continue;
            }
            // Everything is blocked or done: resolve shuffles first, then barriers.
            if self
                .invs
                .iter()
                .any(|v| matches!(v.status, Status::Shfl(_)))
            {
                // Every invocation waiting at an exchange takes part in one synchronisation.
                let invs = &self.invs;
                self.race
                    .sync((0..n).filter(|&i| matches!(invs[i].status, Status::Shfl(_))));
                self.resolve_shuffles(env, gid, nregs);
                self.resolve_subgroups(env, gid, nregs);
                self.resolve_derivatives(env, gid, nregs);
                continue;
            }
            let waiting: Vec<usize> = (0..n)
                .filter(|&i| matches!(self.invs[i].status, Status::Bar(_)))
                .collect();
            if waiting.is_empty() {
                break;
            }
            let first_pc = match self.invs[waiting[0]].status {
                Status::Bar(p) => p,
                _ => 0,
            };
            let same = waiting
                .iter()
                .all(|&i| self.invs[i].status == Status::Bar(first_pc));
            let partial_unflagged = env.bug == Some(PlantedBug::PartialBarrierUnflagged) && same;
            if (waiting.len() != n || !same) && !partial_unflagged {
                let line = prog
                    .locs
                    .get(first_pc as usize)
                    .map(|l| l.line)
                    .unwrap_or(0);
                self.flags.add(
                    FlagKind::DivergentBarrier,
                    format!(
                        "group {gid:?}: {} of {n} invocations reached the barrier at line {line} \
                         (barrier round {round}){}; the waiting ones were released",
                        waiting.len(),
                        if same {
                            ""
                        } else {
                            ", others wait at a different barrier"
                        }
                    ),
                );
            }
            for &i in &waiting {
                self.invs[i].status = Status::Run;
            }
            self.race.barrier();
        }
        Ok(())
    }

    /// The value of `which` for invocation `i`, which has executed `steps` instructions.
    fn builtin(&self, env: &Env, gid: [u32; 3], i: usize, which: Builtin, steps: u64) -> [u64; 4] {
        let gs = env.group_size;
        let sg = env.subgroup_size.max(1) as usize;
        let l = self.invs[i].local_id;
        let w = |a: [u32; 3]| [u64::from(a[0]), u64::from(a[1]), u64::from(a[2]), 0];
        match which {
            Builtin::LocalId if env.bug == Some(PlantedBug::LocalIdZeroZ) => w([l[0], l[1], 0]),
            Builtin::LocalId => w(l),
            Builtin::GlobalId => w([
                gid[0].wrapping_mul(gs[0]).wrapping_add(l[0]),
                gid[1].wrapping_mul(gs[1]).wrapping_add(l[1]),
                gid[2].wrapping_mul(gs[2]).wrapping_add(l[2]),
            ]),
            Builtin::GroupId => w(gid),
            Builtin::GroupCount => w(env.group_count),
            Builtin::GroupSize => w(gs),
            Builtin::LocalIndex => [i as u64, 0, 0, 0],
            Builtin::WarpId => [(i / 32) as u64, 0, 0, 0],
            Builtin::LaneId => [(i % 32) as u64, 0, 0, 0],
            Builtin::WarpSize => [32, 0, 0, 0],
            Builtin::SubgroupSize => [u64::from(env.subgroup_size), 0, 0, 0],
            Builtin::SubgroupInvocationId => [(i % sg) as u64, 0, 0, 0],
            Builtin::SubgroupId => [(i / sg) as u64, 0, 0, 0],
            Builtin::NumSubgroups => [self.invs.len().div_ceil(sg) as u64, 0, 0, 0],
            Builtin::SubgroupMask(kind) => subgroup::mask(kind, (i % sg) as u32, sg as u32),
            Builtin::Clock => [env.clock_base.wrapping_add(steps), 0, 0, 0],
        }
    }

    fn mem_load(
        &mut self,
        env: &Env,
        gid: [u32; 3],
        i: usize,
        space: Space,
        off: u64,
        size: u32,
        pc: u32,
        line: u32,
    ) -> (u64, Origin) {
        let mut origin = Origin::NONE;
        let r = match space {
            Space::BlockArray { .. } | Space::CounterAddress => match space.resolve(off) {
                Some((block, off)) => {
                    return self.mem_load(env, gid, i, block, off, size, pc, line)
                }
                None => None,
            },
            Space::Storage(b) => {
                let v = find(&env.storage, b).and_then(|g| g.read(off, size));
                if let Some(v) = v {
                    if self.race.read_races(Memory::Storage(b), off, size, i) {
                        origin = Origin::new(Cause::DataRace, pc);
                    } else if self.cross.read_races(b, off, size, v, i) {
                        origin = Origin::new(Cause::GroupRace, pc);
                    }
                    // A value an earlier dispatch wrote unseen is undefined whatever this
                    // dispatch's schedule: that, rather than the race, is what its use flags.
                    if !env.unseen.is_empty()
                        && find(&env.unseen, b).is_some_and(|t| t.load_unseen(off, size))
                    {
                        origin = Origin::new(Cause::Unseen, pc);
                    }
                }
                v
            }
            Space::AtomicCounter(b) => find(&env.counters, b).and_then(|g| g.read(off, size)),
            Space::Shared => match self.shared.read(off, size) {
                Some((v, init)) => {
                    // Never-written bytes read as undefined (flagged where the value is used).
                    origin = self.shared_poison.get(off, size);
                    if !init {
                        origin = origin.or(Origin::new(Cause::UninitShared, pc));
                    }
                    if self.race.read_races(Memory::Shared, off, size, i) {
                        origin = origin.or(Origin::new(Cause::DataRace, pc));
                    }
                    Some(v)
                }
                None => None,
            },
            Space::Uniform(b) => find(&env.uniform, b).and_then(|m| ro_read(m, off, size)),
            Space::ParamBuffer(b) => find(&env.param_buf, b).and_then(|m| ro_read(m, off, size)),
            Space::ProgramLocal => ro_read(env.local, off, size).or(Some(0)),
            Space::DefaultUniform => ro_read(env.default_uniforms, off, size),
            Space::ProgramEnv => ro_read(env.env, off, size).or(Some(0)),
            Space::Private => {
                origin = self.invs[i].private_poison.get(off, size);
                ro_read(&self.invs[i].private, off, size)
            }
        };
        match r {
            Some(v) => (v, origin),
            None => {
                self.flags.add(
                    FlagKind::OutOfBounds,
                    format!("group {gid:?} invocation {i}, line {line}: load of {size} bytes at offset {off} of {space:?} is out of bounds (or unbound): read as 0"),
                );
                (0, Origin::NONE)
            }
        }
    }

    /// Flags an access to an array of blocks whose element differs from the one another
    /// invocation of the group took at the same dynamic instance (`block_index`).
    fn check_block_index(
        &mut self,
        gid: [u32; 3],
        i: usize,
        pc: u32,
        line: u32,
        space: Space,
        addr: u64,
    ) {
        if !matches!(space, Space::BlockArray { .. }) {
            return;
        }
        let element = (addr >> BLOCK_ARRAY_SHIFT) as u32;
        if let Some((other, who)) = self.block_index.check(i, pc, element) {
            self.flags.add(
                FlagKind::NonUniformBlockIndex,
                format!("group {gid:?} invocation {i}, line {line}: element {element} of an array of blocks where invocation {who} took element {other}: the index is not dynamically uniform"),
            );
        }
    }

    /// Makes invocation `i` track undefined values (allocating the group's shadow registers).
    fn taint(&mut self, i: usize, nregs: usize) {
        let need = self.invs.len() * nregs;
        if self.shadow.len() < need {
            self.shadow.resize(need, [Origin::NONE; 4]);
        }
        self.invs[i].tainted = true;
    }

    /// Marks the lanes in `lanes` (a bit per lane) of `dst` of invocation `i` as undefined,
    /// made by the instruction at `pc` (nothing when `lanes` is 0).
    fn make_undefined(
        &mut self,
        i: usize,
        base: usize,
        nregs: usize,
        dst: &Dst,
        lanes: u8,
        pc: u32,
    ) {
        if lanes == 0 {
            return;
        }
        self.taint(i, nregs);
        let o = Origin::new(Cause::Undefined, pc);
        let r = &mut self.shadow[base + dst.reg.0 as usize];
        for (l, slot) in r.iter_mut().enumerate() {
            if lanes & (1 << l) != 0 {
                *slot = o;
            }
        }
    }

    /// Marks the lanes of a float result `v` that are NaNs undefined, where the program's
    /// language leaves them so ([`Program::nan_undefined`]).
    #[allow(clippy::too_many_arguments)]
    fn nan_undefined(
        &mut self,
        env: &Env,
        i: usize,
        base: usize,
        nregs: usize,
        dst: &Dst,
        ty: crate::ir::Ty,
        v: &[u64; 4],
        pc: u32,
    ) {
        if !env.prog.nan_undefined || ty.scalar.kind != Kind::F {
            return;
        }
        let mut bad = 0u8;
        for (l, x) in v.iter().enumerate().take(ty.lanes.min(4) as usize) {
            if dst.mask & (1 << l) != 0 && values::unop(UnOp::IsNan, ty.scalar, *x) != 0 {
                bad |= 1 << l;
            }
        }
        self.make_undefined(i, base, nregs, dst, bad, pc);
    }

    /// The origins of the lanes `s` reads in invocation `i` (all defined when it does not
    /// track undefined values).
    fn origins(&self, i: usize, base: usize, nregs: usize, s: Src) -> Lanes {
        if self.invs[i].tainted {
            poison::read(&self.shadow[base..base + nregs], s)
        } else {
            [Origin::NONE; 4]
        }
    }

    /// Flags lane x of `s` when it is undefined: `use_` says what invocation `i` uses it for.
    fn check_use(
        &mut self,
        prog: &Program,
        gid: [u32; 3],
        i: usize,
        base: usize,
        line: u32,
        s: Src,
        use_: &str,
    ) {
        if !self.invs[i].tainted {
            return;
        }
        let o = poison::read_x(&self.shadow[base..], s);
        if o.is_some() {
            self.used(prog, gid, i, line, use_, o);
        }
    }

    /// Flags the use of an undefined value (`o`) by invocation `i` at `line`: `use_` says how it
    /// was used ("a store to Storage(0)").
    fn used(&mut self, prog: &Program, gid: [u32; 3], i: usize, line: u32, use_: &str, o: Origin) {
        let (kind, what) = o.describe(prog);
        if matches!(
            prog.code.get(o.pc() as usize),
            Some(
                Inst::MarkUndefined {
                    why: crate::ir::UndefinedRule::UninitializedValue,
                    ..
                } | Inst::MarkPrivateUndefined { .. }
            )
        ) {
            self.flags.uninit_uses += 1;
        }
        self.flags.add(
            kind,
            format!("group {gid:?} invocation {i}, line {line}: {use_} uses the result of {what}"),
        );
    }

    fn mem_store(
        &mut self,
        env: &Env,
        gid: [u32; 3],
        i: usize,
        space: Space,
        off: u64,
        size: u32,
        v: u64,
        origin: Origin,
        line: u32,
    ) {
        if poison::tracked_in_memory(space) {
            match space {
                Space::Shared => self.shared_poison.set(off, size, origin),
                _ => self.invs[i].private_poison.set(off, size, origin),
            }
        } else if origin.is_some() {
            self.used(
                env.prog,
                gid,
                i,
                line,
                &format!("a store to {space:?} (offset {off})"),
                origin,
            );
        }
        let (space, off) = match space {
            Space::BlockArray { .. } | Space::CounterAddress => {
                space.resolve(off).unwrap_or((space, off))
            }
            _ => (space, off),
        };
        if let Some((mem, old)) = self.race_before_write(env, space, off, size) {
            let at = (gid, i, line, "a store");
            self.race_write(env, at, mem, off, size, old, v);
        }
        let ok = match space {
            Space::Storage(b) => find(&env.storage, b).is_some_and(|g| {
                let seen = find(&env.unseen, b).map(|t| (t, g.read(off, size)));
                let ok = g.write(off, size, v);
                if let Some((t, Some(old))) = seen.filter(|_| ok) {
                    t.wrote(off, size, old, v);
                }
                ok
            }),
            Space::AtomicCounter(b) => {
                find(&env.counters, b).is_some_and(|g| g.write(off, size, v))
            }
            Space::Shared => self.shared.write(off, size, v),
            Space::Private => {
                let p = &mut self.invs[i].private;
                match off.checked_add(u64::from(size)) {
                    Some(end) if end <= p.len() as u64 => {
                        for k in 0..size as usize {
                            p[off as usize + k] = (v >> (k * 8)) as u8;
                        }
                        true
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        if !ok {
            self.flags.add(
                FlagKind::OutOfBounds,
                format!("group {gid:?} invocation {i}, line {line}: store of {size} bytes at offset {off} of {space:?} is out of bounds, read-only or unbound: dropped"),
            );
        }
    }

    /// Logs an instruction of the traced invocation at which it waits for others or ends,
    /// before it runs (`trace_step`'s line would not come).
    fn trace_wait(&mut self, prog: &Program, pc: u32, inst: &Inst) {
        let waits = matches!(
            inst,
            Inst::ControlBarrier
                | Inst::ShuffleAsm { .. }
                | Inst::ShuffleGlsl { .. }
                | Inst::Subgroup { .. }
                | Inst::Derivative { .. }
                | Inst::Exit
                | Inst::Return
        );
        if waits && self.trace.len() < TRACE_LINES {
            let line = line_of(prog, pc);
            self.trace.push(format!("line {line} pc {pc}: {inst}"));
        }
    }

    /// Logs an instruction the traced invocation executed, with the register it wrote.
    fn trace_step(&mut self, prog: &Program, base: usize, pc: u32) {
        if self.trace.len() >= TRACE_LINES {
            return;
        }
        let line = line_of(prog, pc);
        let inst = &prog.code[pc as usize];
        let val = dst_of(inst).map(|r| {
            let v = self.regs[base + r as usize];
            format!(
                " -> r{r} = [{:#x}, {:#x}, {:#x}, {:#x}]",
                v[0], v[1], v[2], v[3]
            )
        });
        self.trace.push(format!(
            "line {line} pc {pc}: {inst}{}",
            val.unwrap_or_default()
        ));
    }

    /// Runs invocation `i` until it blocks or ends: [`GroupExec::compute`] executes register
    /// instructions, [`GroupExec::access`] memory instructions and [`GroupExec::control`] the
    /// rest; this loop counts steps against the budget, traces, carries undefined values'
    /// origins through registers (`poison::propagate`) and ends the turn.
    fn run_inv(&mut self, env: &Env, gid: [u32; 3], i: usize, nregs: usize) -> Result<(), Refusal> {
        let prog = env.prog;
        let code = &prog.code;
        let base = i * nregs;
        let mut pc = self.invs[i].pc;
        let mut steps = self.invs[i].steps;
        let tracing = env.trace_target == Some((gid, i));
        let result = loop {
            let Some(inst) = code.get(pc as usize) else {
                self.invs[i].status = Status::Done;
                break Ok(());
            };
            steps += 1;
            if steps > env.budget {
                let line = line_of(prog, pc);
                break Err(Refusal::Timeout(format!(
                    "step budget of {} instructions per invocation exhausted (group {gid:?}, \
                     invocation {i}, at line {line}): an endless loop?",
                    env.budget
                )));
            }
            if tracing {
                self.trace_wait(prog, pc, inst);
            }
            if self.invs[i].tainted {
                poison::propagate(
                    inst,
                    &self.regs[base..base + nregs],
                    &mut self.shadow[base..base + nregs],
                );
            }
            let at = At {
                gid,
                i,
                base,
                nregs,
                pc,
                steps,
            };
            // One match, so the dispatch stays one jump (a split with two `matches!` tests
            // before it cost 2% in the dispatch benchmark).
            let next = match inst {
                Inst::Load { .. } => {
                    self.load(env, at, inst);
                    pc + 1
                }
                Inst::Store { .. } => {
                    self.store(env, at, inst);
                    pc + 1
                }
                Inst::Atomic { .. } => {
                    self.atomic(env, at, inst);
                    pc + 1
                }
                Inst::Image(_) => {
                    self.image(env, at, inst);
                    pc + 1
                }
                Inst::ControlBarrier
                | Inst::MemoryBarrier { .. }
                | Inst::ShuffleAsm { .. }
                | Inst::ShuffleGlsl { .. }
                | Inst::Subgroup { .. }
                | Inst::Derivative { .. }
                | Inst::If { .. }
                | Inst::Else { .. }
                | Inst::EndIf
                | Inst::Loop { .. }
                | Inst::EndLoop { .. }
                | Inst::Break
                | Inst::Continue
                | Inst::Call { .. }
                | Inst::Return
                | Inst::Exit => match self.control(env, at, inst) {
                    Flow::Goto(next) => next,
                    Flow::Yield(stay) => {
                        pc = stay;
                        break Ok(());
                    }
                },
                _ => {
                    self.compute(env, at, inst);
                    pc + 1
                }
            };
            if tracing {
                self.trace_step(prog, base, pc);
            }
            pc = next;
            if env.schedule == Schedule::Lockstep
                && matches!(
                    inst,
                    Inst::Load { .. } | Inst::Store { .. } | Inst::Atomic { .. } | Inst::Image(_)
                )
            {
                break Ok(());
            }
        };
        self.invs[i].pc = pc;
        self.invs[i].steps = steps;
        result
    }
}
/// The source line of the instruction at `pc` (0 where the program has none).
fn line_of(prog: &Program, pc: u32) -> u32 {
    prog.locs.get(pc as usize).map(|l| l.line).unwrap_or(0)
}

/// Runs image instruction `im`: texelFetch on the textures, the other ops on the images.
fn run_image(
    env: &Env,
    im: &crate::ir::image::ImageInst,
    unit: u64,
    coord: [u64; 4],
    a: [u64; 4],
    b: [u64; 4],
) -> super::image::Done {
    match im.op {
        crate::ir::ImageOp::Fetch => super::texture::fetch(&env.textures, im, unit, coord, a),
        _ => super::image::execute(&env.images, im, unit, coord, a, b, env.bug),
    }
}

/// A dynamic component index for a flag: the front ends turn an index at or past a vector's
/// size (below 4) into 0xFFFFFFFF, which says so.
fn dyn_index_text(k: u64) -> String {
    if k == u64::from(u32::MAX) {
        "at or past the vector's size".to_string()
    } else {
        format!("{k} out of range")
    }
}

/// Whether a load or store of `lanes` elements of `sz` bytes at `addr` in `space` breaks the
/// alignment the program's language requires ([`Program::aligned_access`]: NV assembly's
/// storage and shared accesses, to the whole access size; three-element accesses, which NV
/// assembly has not, are left alone).
fn misaligned(prog: &Program, space: Space, addr: u64, sz: u32, lanes: u8) -> bool {
    let whole = u64::from(sz) * u64::from(lanes);
    prog.aligned_access
        && matches!(space, Space::Storage(_) | Space::Shared)
        && matches!(lanes, 1 | 2 | 4)
        && !addr.is_multiple_of(whole)
}
