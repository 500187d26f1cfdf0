//! Undefined values, followed to where they matter.
//!
//! Some operations give a value the specifications leave undefined without making the program
//! undefined: an integer division by zero, a shift by the bit width or more, a float-to-integer
//! conversion out of range ("the result is undefined"), a read of shared memory no invocation
//! wrote ("the contents of shared memory are undefined"), an atomic read-modify-write of such
//! memory, a float atomic add whose sum is a NaN (marked in shared memory; flagged at the
//! atomic in buffers and images, which the API reads), a shuffle from an inactive lane or with
//! an invalid width. A program that computes
//! such a value and then discards it, or overwrites it, is fully defined; flagging it would be a
//! false verdict. So the executor marks the value instead: every register lane, and every byte
//! of shared and private memory, has an [`Origin`] (none, or the instruction that made the
//! value undefined and why), which instructions propagate from their operands to their
//! results. The flag is raised where a marked value is *used*: stored to a buffer (storage or
//! atomic counter), used as an address, an atomic operand, a branch condition or a loop count.
//!
//! Tracking is lazy: an invocation holds no marks until an instruction makes an undefined
//! value (`tainted`), so programs that never do run at full speed.

use crate::ir::{BinOp, Dst, Inst, Program, Space, Src};
use conform_plan::FlagKind;

/// Why a value is undefined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// An operation whose result the specification leaves undefined (`undefined-value`).
    Undefined,
    /// A read of shared memory never written in the group (`uninitialized-shared-read`).
    UninitShared,
    /// A shuffle from an inactive lane (`shuffle-inactive-lane`).
    InactiveLane,
    /// A read racing with another invocation's write (`data-race`, `race`).
    DataRace,
    /// A read of a storage byte another work group changed (`data-race`, `race::CrossGroup`).
    GroupRace,
    /// A load of a storage byte an earlier dispatch changed with no SHADER_STORAGE barrier
    /// since (`undefined-value`, `visibility`).
    Unseen,
}

/// Where a value came from: defined, or the cause and the pc of the instruction that made it
/// undefined (cause in the top three bits, pc + 1 below).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin(u32);

const PC_BITS: u32 = 0x1fff_ffff;

impl Origin {
    /// A defined value.
    pub const NONE: Origin = Origin(0);

    pub fn new(cause: Cause, pc: u32) -> Origin {
        let c = match cause {
            Cause::Undefined => 1,
            Cause::UninitShared => 2,
            Cause::InactiveLane => 3,
            Cause::DataRace => 4,
            Cause::GroupRace => 5,
            Cause::Unseen => 6,
        };
        Origin((c << 29) | (pc.min(PC_BITS - 1) + 1))
    }

    pub fn is_some(self) -> bool {
        self.0 != 0
    }

    /// This origin, or `other` when this one is defined.
    pub fn or(self, other: Origin) -> Origin {
        if self.is_some() {
            self
        } else {
            other
        }
    }

    pub fn cause(self) -> Cause {
        match self.0 >> 29 {
            2 => Cause::UninitShared,
            3 => Cause::InactiveLane,
            4 => Cause::DataRace,
            5 => Cause::GroupRace,
            6 => Cause::Unseen,
            _ => Cause::Undefined,
        }
    }

    pub fn pc(self) -> u32 {
        (self.0 & PC_BITS).saturating_sub(1)
    }

    /// The flag a use of this value raises, and what made the value undefined ("an integer
    /// division by zero at line 12").
    pub fn describe(self, prog: &Program) -> (FlagKind, String) {
        let pc = self.pc();
        let line = prog.locs.get(pc as usize).map(|l| l.line).unwrap_or(0);
        let (kind, what) = match self.cause() {
            Cause::UninitShared => (
                FlagKind::UninitializedSharedRead,
                "a read of shared memory never written in the group",
            ),
            Cause::InactiveLane => (
                FlagKind::ShuffleInactiveLane,
                "a shuffle's read of an inactive lane (its own value was returned)",
            ),
            Cause::DataRace => (
                FlagKind::DataRace,
                "a read of memory another invocation wrote since the last barrier, unordered by any barrier, atomic or subgroup operation (ARB_compute_shader, GLSL section 4.3.7: their order is not defined; the lockstep schedule is run too)",
            ),
            Cause::GroupRace => (
                FlagKind::DataRace,
                "a read of a storage byte another work group of the dispatch changed, with no atomic before it (ARB_compute_shader section 5.5: work groups run independently and in unspecified order)",
            ),
            Cause::Unseen => (
                FlagKind::UndefinedValue,
                "a load of storage memory an earlier dispatch wrote, with no glMemoryBarrier(SHADER_STORAGE_BARRIER_BIT) step since (ARB_shader_storage_buffer_object, ARB_shader_image_load_store: shader stores are not automatically synchronized with later commands; the load may return the value from before the write)",
            ),
            Cause::Undefined => (
                FlagKind::UndefinedValue,
                match prog.code.get(pc as usize) {
                    Some(Inst::MarkUndefined { why, .. }) => why.text(),
                    Some(Inst::MarkPrivateUndefined { .. }) => {
                        crate::ir::UndefinedRule::UninitializedValue.text()
                    }
                    Some(Inst::Bin { ty, .. } | Inst::Un { ty, .. } | Inst::Mad { ty, .. })
                        if ty.scalar.kind == crate::ir::Kind::F =>
                    {
                        "a float operation whose result is a NaN (GLSL 4.60 section 4.7.1, ARB_gl_spirv A.spv.5: NaNs need not be generated, and an operation on a NaN need not return one)"
                    }
                    Some(Inst::Bin {
                        op: BinOp::Div | BinOp::Rem | BinOp::Mod,
                        ..
                    }) => "an integer division or remainder by zero",
                    Some(Inst::Bin { .. }) => "a shift count negative or not below the bit width",
                    Some(Inst::Convert { .. }) => {
                        "a float-to-integer conversion of NaN, an infinity or an out-of-range value"
                    }
                    Some(Inst::ConvertRounded { .. }) => {
                        "a float-to-integer conversion of NaN or an infinity"
                    }
                    Some(Inst::ShuffleGlsl { .. }) => {
                        "a shuffle width that is not a power of two in 2..32"
                    }
                    Some(Inst::Atomic {
                        op: crate::ir::AtomicOp::Min | crate::ir::AtomicOp::Max,
                        ..
                    }) => super::mem::FLOAT_ATOMIC_MIN_MAX_NANS,
                    Some(Inst::Atomic { .. }) => super::mem::FLOAT_ATOMIC_ADD_NAN,
                    Some(Inst::Load { .. }) => {
                        "a load at an offset not a multiple of its size (NV_gpu_program5 section 2.X.4.5: undefined)"
                    }
                    Some(Inst::Subgroup { .. }) => {
                        "a subgroup min or max of values that are all NaN, or a float subgroup sum or product whose value depends on the order of its operations (GL_KHR_shader_subgroup section 8.18: undefined; the order is the implementation's)"
                    }
                    Some(Inst::Derivative { .. }) => {
                        "a derivative the specs leave open: one its group of four invocations did not execute together (non-uniform control flow; the reference gives 0), or a coarse derivative or dFdx/dFdy/fwidth whose two rows (columns) of the group differ (either is allowed; GLSL 4.60 section 8.14.1, NV_compute_shader_derivatives)"
                    }
                    Some(Inst::Image(im)) if im.op == crate::ir::ImageOp::Fetch => {
                        "a texelFetch outside the texture's levels or texels, or through a sampler of another component type (GL 4.6 section 11.1.3.2, GLSL 4.60 section 8.9)"
                    }
                    Some(Inst::Image(_)) => {
                        "an image access through a variable that does not match the image (a format mismatch)"
                    }
                    _ => "an operation with an undefined result",
                },
            ),
        };
        let value = if matches!(self.cause(), Cause::DataRace | Cause::GroupRace) {
            "the value this schedule read is used"
        } else {
            "the reference's documented value is used"
        };
        (kind, format!("{what} at line {line} ({value})"))
    }
}

/// The origins of a register's four lanes.
pub type Lanes = [Origin; 4];

/// The lanes a source reads, through its swizzle.
pub fn read(sh: &[Lanes], s: Src) -> Lanes {
    let r = sh[s.reg.0 as usize];
    [
        r[(s.swz[0] & 3) as usize],
        r[(s.swz[1] & 3) as usize],
        r[(s.swz[2] & 3) as usize],
        r[(s.swz[3] & 3) as usize],
    ]
}

/// Lane x of a source.
pub fn read_x(sh: &[Lanes], s: Src) -> Origin {
    sh[s.reg.0 as usize][(s.swz[0] & 3) as usize]
}

/// The first undefined lane among the first `lanes` lanes.
pub fn first(l: &Lanes, lanes: u8) -> Origin {
    l.iter()
        .take(lanes.min(4) as usize)
        .copied()
        .find(|o| o.is_some())
        .unwrap_or(Origin::NONE)
}

/// Writes origins as the executor writes values (`interp::wr`): lanes `0..lanes` that the
/// write mask keeps.
pub fn write(sh: &mut [Lanes], d: &Dst, lanes: u8, v: Lanes) {
    let r = &mut sh[d.reg.0 as usize];
    for (l, slot) in r.iter_mut().enumerate().take((lanes as usize).min(4)) {
        if d.mask & (1 << l) != 0 {
            *slot = v[l];
        }
    }
}

/// Per-lane union of sources.
fn union(srcs: &[Lanes]) -> Lanes {
    let mut out = [Origin::NONE; 4];
    for s in srcs {
        for l in 0..4 {
            out[l] = out[l].or(s[l]);
        }
    }
    out
}

/// Sets the result origins of an instruction that computes from registers only, before it
/// executes (its sources are still intact even when the destination is one of them). `regs`
/// are the invocation's registers (for the lane a Select or ExtractDyn picks). Memory,
/// atomic, shuffle and control instructions are handled where they execute.
pub fn propagate(inst: &Inst, regs: &[[u64; 4]], sh: &mut [Lanes]) {
    let rd = |s: Src| read(sh, s);
    let (dst, lanes, v): (&Dst, u8, Lanes) = match inst {
        Inst::Mov { dst, a } => (dst, 4, rd(*a)),
        Inst::Un { ty, dst, a, .. } | Inst::SetCc { ty, dst, a } => (dst, ty.lanes, rd(*a)),
        Inst::Bin { ty, dst, a, b, .. }
        | Inst::Cmp { ty, dst, a, b, .. }
        | Inst::SetCcAdd { ty, dst, a, b, .. } => (dst, ty.lanes, union(&[rd(*a), rd(*b)])),
        Inst::Mad { ty, dst, a, b, c } => (dst, ty.lanes, union(&[rd(*a), rd(*b), rd(*c)])),
        Inst::Select {
            lanes,
            dst,
            cond,
            a,
            b,
        } => {
            let c = super::values::rd(regs, *cond);
            let (oc, oa, ob) = (rd(*cond), rd(*a), rd(*b));
            let mut v = [Origin::NONE; 4];
            for l in 0..4 {
                v[l] = oc[l].or(if c[l] != 0 { oa[l] } else { ob[l] });
            }
            (dst, *lanes, v)
        }
        Inst::Convert { lanes, dst, a, .. } | Inst::ConvertRounded { lanes, dst, a, .. } => {
            (dst, *lanes, rd(*a))
        }
        Inst::BitfieldExtract {
            ty,
            dst,
            a,
            offset,
            width,
        } => (dst, ty.lanes, union(&[rd(*a), rd(*offset), rd(*width)])),
        Inst::BitfieldInsert {
            ty,
            dst,
            base,
            insert,
            offset,
            width,
        } => (
            dst,
            ty.lanes,
            union(&[rd(*base), rd(*insert), rd(*offset), rd(*width)]),
        ),
        Inst::Pack64 { dst, a } => {
            let o = rd(*a);
            let (lo, hi) = (o[0].or(o[1]), o[2].or(o[3]));
            (dst, 4, [lo, hi, lo, hi])
        }
        Inst::Unpack64 { dst, a } => {
            let o = rd(*a);
            (dst, 4, [o[0], o[0], o[1], o[1]])
        }
        Inst::ExtractDyn { dst, vec, idx } => {
            let k = super::values::rd(regs, *idx)[0] & 0xffff_ffff;
            let lane = rd(*vec).get(k as usize).copied().unwrap_or(Origin::NONE);
            (dst, 1, [read_x(sh, *idx).or(lane); 4])
        }
        Inst::InsertDyn { dst, vec, val, idx } => {
            // An undefined index leaves it undefined which lane changed: all of them.
            let k = super::values::rd(regs, *idx)[0] & 0xffff_ffff;
            let oi = read_x(sh, *idx);
            let mut v = rd(*vec);
            if let Some(slot) = v.get_mut(k as usize) {
                *slot = read_x(sh, *val);
            }
            (dst, 4, v.map(|o| oi.or(o)))
        }
        Inst::TestCc { dst, cc, .. } => (dst, 4, rd(*cc)),
        Inst::Builtin { dst, .. } => (dst, 4, [Origin::NONE; 4]),
        _ => return,
    };
    write(sh, dst, lanes, v);
}

/// Origins of the bytes of shared or private memory that hold undefined values (stored ones,
/// or the results of atomics on never-written shared memory), keyed by byte offset. Empty for
/// almost every program, so clean stores check `is_empty` first.
#[derive(Clone, Debug, Default)]
pub struct MemPoison(rustc_hash::FxHashMap<u64, Origin>);

impl MemPoison {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Marks `size` bytes at `off` with `o` (a defined value clears them).
    pub fn set(&mut self, off: u64, size: u32, o: Origin) {
        if !o.is_some() && self.0.is_empty() {
            return;
        }
        for b in off..off.saturating_add(u64::from(size)) {
            if o.is_some() {
                self.0.insert(b, o);
            } else {
                self.0.remove(&b);
            }
        }
    }

    /// The origin of the first undefined byte of `size` bytes at `off`.
    pub fn get(&self, off: u64, size: u32) -> Origin {
        if self.0.is_empty() {
            return Origin::NONE;
        }
        (off..off.saturating_add(u64::from(size)))
            .find_map(|b| self.0.get(&b).copied())
            .unwrap_or(Origin::NONE)
    }
}

/// Whether stores to `space` keep their origins in memory (per-group shared and
/// per-invocation private memory, which only the program reads back) rather than being uses
/// (buffers the API reads).
pub fn tracked_in_memory(space: Space) -> bool {
    matches!(space, Space::Shared | Space::Private)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Reg, ScalarTy, Ty};

    #[test]
    fn origins_round_trip() {
        for (c, pc) in [
            (Cause::Undefined, 0),
            (Cause::UninitShared, 17),
            (Cause::InactiveLane, PC_BITS + 5),
            (Cause::DataRace, 9),
            (Cause::GroupRace, PC_BITS - 1),
            (Cause::Unseen, 4),
        ] {
            let o = Origin::new(c, pc);
            assert!(o.is_some());
            assert_eq!(o.cause(), c);
            assert_eq!(o.pc(), pc.min(PC_BITS - 1));
        }
        assert!(!Origin::NONE.is_some());
    }

    #[test]
    fn select_takes_the_chosen_operand_and_the_condition() {
        let o = Origin::new(Cause::Undefined, 3);
        // r0 = cond (lane 0 true, lane 1 false), r1 = a (undefined lane 0), r2 = b (undefined lane 1)
        let regs = vec![[1, 0, 0, 0], [0; 4], [0; 4], [0; 4]];
        let mut sh = vec![[Origin::NONE; 4]; 4];
        sh[1][1] = o;
        sh[2][0] = o;
        let sel = Inst::Select {
            lanes: 2,
            dst: Dst::new(Reg(3)),
            cond: Src::new(Reg(0)),
            a: Src::new(Reg(1)),
            b: Src::new(Reg(2)),
        };
        propagate(&sel, &regs, &mut sh);
        assert_eq!(
            sh[3],
            [Origin::NONE; 4],
            "each lane picked the defined operand"
        );
        sh[0][1] = o;
        propagate(&sel, &regs, &mut sh);
        assert_eq!(
            sh[3][1], o,
            "an undefined condition makes the lane undefined"
        );
    }

    #[test]
    fn masked_lanes_keep_their_origin_and_defined_results_clear() {
        let o = Origin::new(Cause::Undefined, 1);
        let regs = vec![[0u64; 4]; 2];
        let mut sh = vec![[Origin::NONE; 4], [o; 4]];
        let add = Inst::Bin {
            op: BinOp::Add,
            ty: Ty::new(ScalarTy::U32, 4),
            dst: Dst::masked(Reg(1), 0b0011),
            a: Src::new(Reg(0)),
            b: Src::new(Reg(0)),
        };
        propagate(&add, &regs, &mut sh);
        assert_eq!(sh[1], [Origin::NONE, Origin::NONE, o, o]);
    }

    #[test]
    fn memory_marks() {
        let mut m = MemPoison::default();
        let o = Origin::new(Cause::UninitShared, 2);
        m.set(8, 4, o);
        assert_eq!(m.get(10, 4), o);
        assert_eq!(m.get(0, 8), Origin::NONE);
        m.set(8, 2, Origin::NONE);
        assert_eq!(m.get(8, 2), Origin::NONE);
        assert_eq!(m.get(8, 4), o);
    }
}
