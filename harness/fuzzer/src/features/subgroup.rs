//! Subgroup operations: GL_KHR_shader_subgroup's exchanges (`subgroupShuffle`,
//! `subgroupShuffleXor`, `subgroupShuffleUp`, `subgroupShuffleDown`, `subgroupBroadcast`,
//! `subgroupBroadcastFirst`), arithmetic (`subgroup<Op>`, `subgroupInclusive<Op>`,
//! `subgroupExclusive<Op>` for Add, Mul, Min, Max, And, Or, Xor) and ballots
//! (`subgroupBallot` with `subgroupBallotBitCount`, its inclusive and exclusive counts, or
//! its words), and GL_ARB_shader_ballot's `readInvocationARB`, `readFirstInvocationARB` and
//! `ballotARB`.
//!
//! A [`SubgroupBlock`] runs in uniform control flow, in one-dimensional groups of a multiple
//! of 64 invocations ([`crate::ast::subgroup::SUBGROUP_GROUP_MULTIPLE`]), so every subgroup of
//! every allowed size (powers of two up to 64) is full and every invocation is active. Each
//! invocation computes a value from its subgroup invocation id `sid`, its subgroup's index `sg`
//! and its group `wg` ([`SgValue`]: uint, int, or a float that is a quarter of a small integer,
//! so that sums, minima and maxima are exact in any order; 1 to 4 components), runs the
//! operation, and stores the result at slot `wg * local_size + sg * size + sid` (KHR:
//! `gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID`, which holds whatever local
//! invocations a driver puts in a subgroup; ARB has no subgroup id: the slot is the global
//! index, reading subgroups as runs of local indices, as the reference and Mesa do). Word 0
//! holds `gl_SubgroupSize` / `gl_SubGroupSizeARB`.
//!
//! The size is the implementation's, so the model writes one complete expected buffer per
//! size in [`crate::ast::subgroup::SUBGROUP_SIZES`] and the case accepts `one_of` them: word
//! 0 ties each alternative to its size, so a driver is held to the results of the size it
//! reports (the reference runs 32 and 16, both checked).
//!
//! Ids and deltas go to the subgroup's ends and beyond (`gl_SubgroupSize - 1`, `+ 1`, all
//! ones, `0x80000000`, per-lane ids): the specifications leave a shuffle or broadcast of an
//! id outside the subgroup undefined (GL_KHR_shader_subgroup section 8.18; ARB_shader_ballot:
//! `readInvocationARB` of an index not below `gl_SubGroupSizeARB`), so the program stores the
//! result only where its source is inside (`if ((sid ^ mask) < gl_SubgroupSize)`), else the
//! invocation's own value: the undefined value is produced and never used, which the
//! reference does not flag and the model does not need to guess.

pub mod spirv;

use crate::ast::subgroup::*;
use crate::ast::{Lang, Program, SubgroupBlock};
use crate::oracles::model::value::{BufferModel, Elem, Want, SENTINEL};
use arbitrary::{Result, Unstructured};

/// The source invocation of `sid`'s read, or none where it is outside the subgroup (or the
/// operation reads no single source).
pub fn source(b: &SubgroupBlock, sid: u32, size: u32) -> Option<u32> {
    let i = i64::from(b.index.at(sid, size));
    let s = i64::from(sid);
    let src = match b.op {
        SgOp::Shuffle | SgOp::Broadcast => i,
        SgOp::ShuffleXor => s ^ i,
        SgOp::ShuffleUp => s - i,
        SgOp::ShuffleDown => s + i,
        SgOp::BroadcastFirst => 0,
        SgOp::Arith(..) | SgOp::Ballot(_) => return None,
    };
    (0..i64::from(size)).contains(&src).then_some(src as u32)
}

/// The word a component's value is stored as: its bits; a float's with -0.0 as +0.0 (the
/// program stores `x == 0.0 ? 0u : floatBitsToUint(x)`, so an exclusive scan's identity may
/// be either zero).
fn word(ty: SgTy, x: u32) -> u32 {
    match ty {
        SgTy::F32 if f32::from_bits(x) == 0.0 => 0,
        _ => x,
    }
}

/// A component's value as the program holds it: the integer's bits, or the float
/// `float(int(v)) * 0.25`'s.
fn held(ty: SgTy, v: u32) -> u32 {
    match ty {
        SgTy::F32 => (v as i32 as f32 * 0.25).to_bits(),
        _ => v,
    }
}

/// The identity an exclusive scan starts from (GL_KHR_shader_subgroup's table).
fn identity(a: SgArith, ty: SgTy) -> u32 {
    match (a, ty) {
        (SgArith::Mul, SgTy::F32) => 1f32.to_bits(),
        (SgArith::Mul, _) => 1,
        (SgArith::And, _) => u32::MAX,
        (SgArith::Min, SgTy::U32) => u32::MAX,
        (SgArith::Min, SgTy::I32) => i32::MAX as u32,
        (SgArith::Min, SgTy::F32) => f32::INFINITY.to_bits(),
        (SgArith::Max, SgTy::I32) => i32::MIN as u32,
        (SgArith::Max, SgTy::F32) => f32::NEG_INFINITY.to_bits(),
        _ => 0,
    }
}

/// `x op y` on held values of `ty`.
fn combine(a: SgArith, ty: SgTy, x: u32, y: u32) -> u32 {
    let f = |v: u32| f32::from_bits(v);
    match (a, ty) {
        (SgArith::Add, SgTy::F32) => (f(x) + f(y)).to_bits(),
        (SgArith::Mul, SgTy::F32) => (f(x) * f(y)).to_bits(),
        (SgArith::Min, SgTy::F32) => f(x).min(f(y)).to_bits(),
        (SgArith::Max, SgTy::F32) => f(x).max(f(y)).to_bits(),
        (SgArith::Add, _) => x.wrapping_add(y),
        (SgArith::Mul, _) => x.wrapping_mul(y),
        (SgArith::Min, SgTy::I32) => (x as i32).min(y as i32) as u32,
        (SgArith::Max, SgTy::I32) => (x as i32).max(y as i32) as u32,
        (SgArith::Min, _) => x.min(y),
        (SgArith::Max, _) => x.max(y),
        (SgArith::And, _) => x & y,
        (SgArith::Or, _) => x | y,
        (SgArith::Xor, _) => x ^ y,
    }
}

/// The words invocation `sid` of subgroup `sg` of group `wg` stores, in a subgroup of `size`.
fn record(b: &SubgroupBlock, size: u32, sg: u32, wg: u32, sid: u32) -> Vec<u32> {
    let lanes = u32::from(b.lanes);
    let own = |s: u32, c: u32| held(b.ty, b.value.at(s, sg, wg, c));
    match b.op {
        SgOp::Arith(scan, a) => (0..lanes)
            .map(|c| {
                let upto = match scan {
                    SgScan::Reduce => size,
                    SgScan::Inclusive => sid + 1,
                    SgScan::Exclusive => sid,
                };
                let r =
                    (0..upto).fold(identity(a, b.ty), |acc, s| combine(a, b.ty, acc, own(s, c)));
                word(b.ty, r)
            })
            .collect(),
        SgOp::Ballot(q) => {
            let set = |s: u32| b.value.at(s, sg, wg, 0) & b.index.add != 0;
            let count = |r: std::ops::Range<u32>| r.filter(|&s| set(s)).count() as u32;
            match q {
                BallotQuery::Count => vec![count(0..size)],
                BallotQuery::InclusiveCount => vec![count(0..sid + 1)],
                BallotQuery::ExclusiveCount => vec![count(0..sid)],
                BallotQuery::Words => {
                    let mut w = vec![0u32; b.record() as usize];
                    for s in (0..size).filter(|&s| set(s)) {
                        w[(s / 32) as usize] |= 1 << (s % 32);
                    }
                    w
                }
            }
        }
        _ => {
            let from = source(b, sid, size).unwrap_or(sid);
            (0..lanes).map(|c| word(b.ty, own(from, c))).collect()
        }
    }
}

/// The buffer a subgroup of `size` invocations leaves: the size, then each slot's record.
pub fn expected(b: &SubgroupBlock, p: &Program, size: u32) -> Vec<u32> {
    let rec = b.record();
    let mut out = vec![0u32; (1 + p.invocations() * rec) as usize];
    out[0] = size;
    for wg in 0..p.groups {
        for sg in 0..p.local_size / size {
            for sid in 0..size {
                let slot = wg * p.local_size + sg * size + sid;
                let at = (1 + slot * rec) as usize;
                let r = record(b, size, sg, wg, sid);
                out[at..at + r.len()].copy_from_slice(&r);
            }
        }
    }
    out
}

/// What the block must leave in its buffer: one of the [`expected`] buffers, by size.
pub fn model(b: &SubgroupBlock, p: &Program) -> BufferModel {
    let alts: Vec<Vec<u32>> = SUBGROUP_SIZES.iter().map(|&s| expected(b, p, s)).collect();
    BufferModel {
        elem: Elem::U32,
        init: vec![SENTINEL; alts[0].len()],
        want: vec![Want::OneOf { at: 0, alts }],
    }
}

/// Ids, masks and deltas at the ends of every subgroup size and past them.
const EDGES: [u32; 20] = [
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    15,
    16,
    17,
    31,
    32,
    33,
    63,
    64,
    65,
    0xFFFF_FFFF,
    0xFFFF_FFFE,
    0x8000_0000,
    0x7FFF_FFFF,
];

fn edge(u: &mut Unstructured) -> Result<u32> {
    Ok(if u.ratio(1, 5)? {
        u.int_in_range(0..=70)?
    } else {
        *u.choose(&EDGES)?
    })
}

/// A subgroup block for `p` (one that satisfies [`SubgroupBlock::check`] there), or none
/// where even its smallest form does not fit.
pub fn generate(u: &mut Unstructured, p: &Program) -> Result<Option<SubgroupBlock>> {
    // GL_ARB_shader_ballot is GLSL's only (SubgroupBlock::check); the draw is made in every
    // language so that a program's bytes mean the same blocks.
    let ext = if u.ratio(1, 3)? && p.lang == Lang::Glsl {
        SgExt::Arb
    } else {
        SgExt::Khr
    };
    let scans = [SgScan::Reduce, SgScan::Inclusive, SgScan::Exclusive];
    let queries = [
        BallotQuery::Count,
        BallotQuery::InclusiveCount,
        BallotQuery::ExclusiveCount,
        BallotQuery::Words,
    ];
    let op = match ext {
        SgExt::Khr => match u.int_in_range(0..=13)? {
            0 => SgOp::Shuffle,
            1 => SgOp::ShuffleXor,
            2 => SgOp::ShuffleUp,
            3 => SgOp::ShuffleDown,
            4 => SgOp::Broadcast,
            5 => SgOp::BroadcastFirst,
            6..=11 => SgOp::Arith(*u.choose(&scans)?, *u.choose(&SgArith::ALL)?),
            _ => SgOp::Ballot(*u.choose(&queries)?),
        },
        SgExt::Arb => *u.choose(&[
            SgOp::Shuffle,
            SgOp::Shuffle,
            SgOp::BroadcastFirst,
            SgOp::Ballot(BallotQuery::Words),
        ])?,
    };
    let ty = match op {
        SgOp::Ballot(_) => SgTy::U32,
        _ => *u.choose(&[SgTy::U32, SgTy::I32, SgTy::F32])?,
    };
    let op = match op {
        SgOp::Arith(scan, a) if ty == SgTy::F32 => SgOp::Arith(
            scan,
            match a {
                SgArith::Add | SgArith::Min | SgArith::Max => a,
                _ => *u.choose(&[SgArith::Add, SgArith::Min, SgArith::Max])?,
            },
        ),
        op => op,
    };
    let lanes = match op {
        SgOp::Ballot(_) => 1,
        _ if u.ratio(2, 3)? => 1,
        _ => u.int_in_range(2..=4)?,
    };
    let value = if ty == SgTy::F32 {
        let small =
            |u: &mut Unstructured, n: i32| -> Result<u32> { Ok(u.int_in_range(-n..=n)? as u32) };
        SgValue {
            mul: small(u, 8)?,
            sg_mul: small(u, 8)?,
            wg_mul: small(u, 8)?,
            add: small(u, 256)?,
            comp: small(u, 4)?,
        }
    } else {
        let pick = |u: &mut Unstructured, xs: &[u32]| -> Result<u32> {
            Ok(if u.ratio(1, 6)? {
                u.arbitrary()?
            } else {
                *u.choose(xs)?
            })
        };
        SgValue {
            mul: pick(
                u,
                &[
                    1,
                    1,
                    0,
                    2,
                    3,
                    0xFFFF_FFFF,
                    0x10001,
                    0x8000_0000,
                    0x0100_0193,
                ],
            )?,
            sg_mul: pick(u, &[0, 0, 1, 64, 0x100, 0x8000_0000])?,
            wg_mul: pick(u, &[0, 0, 1, 0x10000])?,
            add: pick(
                u,
                &[
                    0,
                    1,
                    0x7FFF_FFFF,
                    0x8000_0000,
                    0xFFFF_FFFF,
                    0xFFFF_FFF0,
                    100,
                ],
            )?,
            comp: pick(u, &[0, 1, 0x8000_0000])?,
        }
    };
    let zero = SgIndex {
        lane: 0,
        size: false,
        add: 0,
        wrap: false,
    };
    let index = match op {
        SgOp::BroadcastFirst | SgOp::Arith(..) => zero,
        SgOp::Broadcast => SgIndex {
            add: edge(u)?,
            ..zero
        },
        SgOp::Ballot(_) => SgIndex {
            add: if u.ratio(1, 4)? {
                u.arbitrary()?
            } else {
                *u.choose(&[1, 2, 4, 8, 0x10, 3, 0x10001, 0x8000_0000])?
            },
            ..zero
        },
        _ => {
            // Per-lane ids for the absolute shuffle (KHR), mostly uniform masks and deltas.
            let lane = match (op, ext) {
                (_, SgExt::Arb) => 0,
                (SgOp::Shuffle, _) => *u.choose(&[0, 1, 1, 2, 3, 0xFFFF_FFFF])?,
                _ if u.ratio(1, 5)? => *u.choose(&[1, 2, 0xFFFF_FFFF])?,
                _ => 0,
            };
            SgIndex {
                lane,
                size: u.ratio(1, 3)?,
                add: edge(u)?,
                wrap: u.ratio(1, 4)?,
            }
        }
    };
    let mut b = SubgroupBlock {
        ext,
        op,
        ty,
        lanes,
        value,
        index,
    };
    if b.check(p).is_err() {
        b.lanes = 1;
        if b.op == SgOp::Ballot(BallotQuery::Words) && b.ext == SgExt::Khr {
            b.op = SgOp::Ballot(BallotQuery::Count);
        }
    }
    Ok(b.check(p).is_ok().then_some(b))
}

/// Smaller or plainer forms, for the reducer: one component, a uint, a plainer value
/// (`sid`), a plainer index (constant, smaller).
pub fn shrink(b: &SubgroupBlock) -> Vec<SubgroupBlock> {
    let mut out = Vec::new();
    let mut with = |edit: &dyn Fn(&mut SubgroupBlock)| {
        let mut x = b.clone();
        edit(&mut x);
        if &x != b && !out.contains(&x) {
            out.push(x);
        }
    };
    with(&|x| x.lanes = 1);
    with(&|x| x.ty = SgTy::U32);
    with(&|x| x.value.comp = 0);
    with(&|x| x.value.sg_mul = 0);
    with(&|x| x.value.wg_mul = 0);
    with(&|x| x.value.add = 0);
    with(&|x| x.value.mul = 1);
    with(&|x| x.index.wrap = false);
    with(&|x| x.index.size = false);
    with(&|x| x.index.lane = 0);
    let a = b.index.add;
    for t in [0, 1, a / 2, a & a.wrapping_sub(1)] {
        with(&|x| x.index.add = t);
    }
    out
}

/// The GLSL extensions the program's subgroup blocks need.
pub fn glsl_extensions(p: &Program) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut add = |e: &'static str| {
        if !out.contains(&e) {
            out.push(e);
        }
    };
    for b in p.subgroup_blocks() {
        match b.ext {
            SgExt::Arb => add("GL_ARB_shader_ballot"),
            SgExt::Khr => {
                add("GL_KHR_shader_subgroup_basic");
                add(match b.op {
                    SgOp::Shuffle | SgOp::ShuffleXor => "GL_KHR_shader_subgroup_shuffle",
                    SgOp::ShuffleUp | SgOp::ShuffleDown => {
                        "GL_KHR_shader_subgroup_shuffle_relative"
                    }
                    SgOp::Arith(..) => "GL_KHR_shader_subgroup_arithmetic",
                    SgOp::Broadcast | SgOp::BroadcastFirst | SgOp::Ballot(_) => {
                        "GL_KHR_shader_subgroup_ballot"
                    }
                });
            }
        }
    }
    out
}

/// Whether a subgroup block needs 64-bit integers (`ballotARB`'s `uint64_t`; the other ARB
/// functions are declared with the extension, which Mesa exposes only with them).
pub fn needs_int64(p: &Program) -> bool {
    p.subgroup_blocks().any(|b| b.ext == SgExt::Arb)
}

/// The GL extensions a backend must offer (the case's `requires`).
pub fn gl_extensions(p: &Program) -> Vec<&'static str> {
    let mut out = Vec::new();
    for b in p.subgroup_blocks() {
        let e = match b.ext {
            SgExt::Khr => "GL_KHR_shader_subgroup",
            SgExt::Arb => "GL_ARB_shader_ballot",
        };
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// Counts `p`'s subgroup operations into a campaign's tally, by `family/operation` (`-arb`
/// for GL_ARB_shader_ballot's).
pub fn count(p: &Program, tally: &mut std::collections::BTreeMap<String, u64>) {
    for b in p.subgroup_blocks() {
        let arb = if b.ext == SgExt::Arb { "-arb" } else { "" };
        let key = format!("{}/{}{arb}", b.op.family(), b.op.name());
        *tally.entry(key).or_default() += 1;
    }
}

/// The campaign summary's line for the tally [`count`] keeps: per family, the programs run
/// with its operations, then each operation's share (none when there were none).
pub fn summary(tally: &std::collections::BTreeMap<String, u64>, out: &mut String) {
    use std::fmt::Write;
    let mut families: std::collections::BTreeMap<&str, (u64, Vec<String>)> = Default::default();
    for (key, n) in tally {
        let (family, op) = key.split_once('/').unwrap_or((key.as_str(), ""));
        let f = families.entry(family).or_default();
        f.0 += n;
        f.1.push(format!("{op} {n}"));
    }
    if families.is_empty() {
        return;
    }
    let parts: Vec<String> = families
        .iter()
        .map(|(family, (n, ops))| format!("{family} {n} ({})", ops.join(", ")))
        .collect();
    let _ = writeln!(
        out,
        "- subgroup operations in the programs run: {}",
        parts.join("; ")
    );
}

/// `x` as a GLSL uint literal.
fn lit(x: u32) -> String {
    format!("{x:#x}u")
}

/// The block's GLSL statements (inside the block's braces).
pub fn glsl(k: usize, b: &SubgroupBlock, p: &Program) -> Vec<String> {
    let mut l = Vec::new();
    let (sid, ssz) = match b.ext {
        SgExt::Khr => ("gl_SubgroupInvocationID", "gl_SubgroupSize"),
        SgExt::Arb => ("gl_SubGroupInvocationARB", "gl_SubGroupSizeARB"),
    };
    l.push(format!("uint fz_sid = {sid};"));
    l.push(format!("uint fz_ssz = {ssz};"));
    match b.ext {
        SgExt::Khr => {
            l.push("uint fz_sg = gl_SubgroupID;".into());
            l.push(format!(
                "uint fz_slot = wg * {} + fz_sg * fz_ssz + fz_sid;",
                lit(p.local_size)
            ));
        }
        SgExt::Arb => {
            l.push("uint fz_sg = lid / fz_ssz;".into());
            l.push("uint fz_slot = gid;".into());
        }
    }
    let v = b.value;
    l.push(format!(
        "uint fz_v = {} * fz_sid + {} * fz_sg + {} * wg + {};",
        lit(v.mul),
        lit(v.sg_mul),
        lit(v.wg_mul),
        lit(v.add)
    ));
    l.push(format!("if (fz_slot == 0u) b{k}[0] = fz_ssz;"));
    let rec = b.record();
    let store = |c: u32, x: &str| format!("b{k}[1u + fz_slot * {rec}u + {c}u] = {x};");
    if let SgOp::Ballot(q) = b.op {
        let pred = format!("(fz_v & {}) != 0u", lit(b.index.add));
        match b.ext {
            SgExt::Khr => l.push(format!("uvec4 fz_b = subgroupBallot({pred});")),
            SgExt::Arb => l.push(format!("uvec2 fz_b = unpackUint2x32(ballotARB({pred}));")),
        }
        match q {
            BallotQuery::Count => l.push(store(0, "subgroupBallotBitCount(fz_b)")),
            BallotQuery::InclusiveCount => {
                l.push(store(0, "subgroupBallotInclusiveBitCount(fz_b)"))
            }
            BallotQuery::ExclusiveCount => {
                l.push(store(0, "subgroupBallotExclusiveBitCount(fz_b)"))
            }
            BallotQuery::Words => {
                for c in 0..rec {
                    l.push(store(
                        c,
                        &format!("fz_b.{}", ["x", "y", "z", "w"][c as usize]),
                    ));
                }
            }
        }
        return l;
    }
    let n = b.lanes;
    let (scalar, vector) = match b.ty {
        SgTy::U32 => ("uint", "uvec"),
        SgTy::I32 => ("int", "ivec"),
        SgTy::F32 => ("float", "vec"),
    };
    let comp = |c: u32| {
        let raw = if c == 0 {
            "fz_v".to_string()
        } else {
            format!("(fz_v + {})", lit(v.comp.wrapping_mul(c)))
        };
        match b.ty {
            SgTy::U32 => raw,
            SgTy::I32 => format!("int({raw})"),
            SgTy::F32 => format!("float(int({raw})) * 0.25"),
        }
    };
    let ty = if n == 1 {
        scalar.to_string()
    } else {
        format!("{vector}{n}")
    };
    if n == 1 {
        l.push(format!("{ty} fz_x = {};", comp(0)));
    } else {
        let cs: Vec<String> = (0..u32::from(n)).map(comp).collect();
        l.push(format!("{ty} fz_x = {ty}({});", cs.join(", ")));
    }
    let idx = b.index;
    let mut index = format!("{} * fz_sid", lit(idx.lane));
    if idx.lane == 0 {
        index = lit(idx.add);
    } else {
        index.push_str(&format!(" + {}", lit(idx.add)));
    }
    if idx.size {
        index = format!("fz_ssz + {index}");
    }
    if idx.wrap {
        index = format!("({index}) & (fz_ssz - 1u)");
    }
    let (call, guard) = match (b.op, b.ext) {
        (SgOp::Shuffle, SgExt::Khr) => ("subgroupShuffle(fz_x, fz_i)".into(), "fz_i < fz_ssz"),
        (SgOp::Shuffle, SgExt::Arb) => ("readInvocationARB(fz_x, fz_i)".into(), "fz_i < fz_ssz"),
        (SgOp::ShuffleXor, _) => (
            "subgroupShuffleXor(fz_x, fz_i)".into(),
            "(fz_sid ^ fz_i) < fz_ssz",
        ),
        (SgOp::ShuffleUp, _) => ("subgroupShuffleUp(fz_x, fz_i)".into(), "fz_i < fz_sid + 1u"),
        (SgOp::ShuffleDown, _) => (
            "subgroupShuffleDown(fz_x, fz_i)".into(),
            "fz_i < fz_ssz - fz_sid",
        ),
        (SgOp::Broadcast, _) => (
            format!("subgroupBroadcast(fz_x, {})", lit(idx.add)),
            "fz_i < fz_ssz",
        ),
        (SgOp::BroadcastFirst, SgExt::Khr) => ("subgroupBroadcastFirst(fz_x)".into(), ""),
        (SgOp::BroadcastFirst, SgExt::Arb) => ("readFirstInvocationARB(fz_x)".into(), ""),
        (SgOp::Arith(scan, a), _) => {
            let scan = match scan {
                SgScan::Reduce => "",
                SgScan::Inclusive => "Inclusive",
                SgScan::Exclusive => "Exclusive",
            };
            (format!("subgroup{scan}{}(fz_x)", a.glsl()), "")
        }
        (SgOp::Ballot(_), _) => unreachable!("ballots return above"),
    };
    if !guard.is_empty() {
        l.push(format!("uint fz_i = {index};"));
    }
    l.push(format!("{ty} fz_r = {call};"));
    let stores = |l: &mut Vec<String>, var: &str| {
        for c in 0..u32::from(n) {
            let x = if n == 1 {
                var.to_string()
            } else {
                format!("{var}.{}", ["x", "y", "z", "w"][c as usize])
            };
            let w = match b.ty {
                SgTy::U32 => x,
                SgTy::I32 => format!("uint({x})"),
                SgTy::F32 => format!("({x} == 0.0 ? 0u : floatBitsToUint({x}))"),
            };
            l.push(format!("    {}", store(c, &w)));
        }
    };
    if guard.is_empty() {
        l.push("{".into());
        stores(&mut l, "fz_r");
        l.push("}".into());
    } else {
        // The result is defined only where the source is inside the subgroup; elsewhere the
        // invocation stores its own value and never uses the undefined one.
        l.push(format!("if ({guard}) {{"));
        stores(&mut l, "fz_r");
        l.push("} else {".into());
        stores(&mut l, "fz_x");
        l.push("}".into());
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Block, Lang};

    fn block(op: SgOp, ty: SgTy, index: SgIndex) -> SubgroupBlock {
        SubgroupBlock {
            ext: SgExt::Khr,
            op,
            ty,
            lanes: 1,
            value: SgValue {
                mul: 1,
                sg_mul: 0,
                wg_mul: 0,
                add: 0,
                comp: 0,
            },
            index,
        }
    }

    fn program(b: &SubgroupBlock) -> Program {
        Program {
            lang: Lang::Glsl,
            local_size: 64,
            groups: 1,
            blocks: vec![Block::Subgroup(b.clone())],
            shape: None,
        }
    }

    const ZERO: SgIndex = SgIndex {
        lane: 0,
        size: false,
        add: 0,
        wrap: false,
    };

    /// By hand: in subgroups of 8, shuffling `sid` down by 3 gives `sid + 3` for ids 0 to 4
    /// and the own id (the undefined read is not stored) for 5 to 7; xor with 5 gives `sid ^ 5`
    /// everywhere; up by `size - 1` reaches only invocation 7 (from 0).
    #[test]
    fn exchanges_read_inside_the_subgroup_only() {
        let down = block(SgOp::ShuffleDown, SgTy::U32, SgIndex { add: 3, ..ZERO });
        let e = expected(&down, &program(&down), 8);
        assert_eq!(e[0], 8);
        assert_eq!(&e[1..9], &[3, 4, 5, 6, 7, 5, 6, 7]);
        let xor = block(SgOp::ShuffleXor, SgTy::U32, SgIndex { add: 5, ..ZERO });
        let e = expected(&xor, &program(&xor), 8);
        assert_eq!(&e[1..9], &[5, 4, 7, 6, 1, 0, 3, 2]);
        let up = block(
            SgOp::ShuffleUp,
            SgTy::U32,
            SgIndex {
                size: true,
                add: u32::MAX,
                ..ZERO
            },
        );
        let e = expected(&up, &program(&up), 8);
        assert_eq!(&e[1..9], &[0, 1, 2, 3, 4, 5, 6, 0]);
    }

    /// By hand: an exclusive signed max over `sid - 2` starts at INT_MIN; a float inclusive
    /// add of `sid / 4` gives the triangular numbers in quarters; a ballot of odd values in
    /// subgroups of 4 counts 2, and its words are 0b1010.
    #[test]
    fn scans_start_from_the_identity_and_ballots_count() {
        let mut m = block(
            SgOp::Arith(SgScan::Exclusive, SgArith::Max),
            SgTy::I32,
            ZERO,
        );
        m.value.add = (-2i32) as u32;
        let e = expected(&m, &program(&m), 4);
        assert_eq!(
            &e[1..5],
            &[i32::MIN as u32, (-2i32) as u32, (-1i32) as u32, 0]
        );
        let f = block(
            SgOp::Arith(SgScan::Inclusive, SgArith::Add),
            SgTy::F32,
            ZERO,
        );
        let e = expected(&f, &program(&f), 4);
        let q = |x: f32| x.to_bits();
        assert_eq!(&e[1..5], &[0, q(0.25), q(0.75), q(1.5)]);
        let mut b = block(
            SgOp::Ballot(BallotQuery::Count),
            SgTy::U32,
            SgIndex { add: 1, ..ZERO },
        );
        assert_eq!(&expected(&b, &program(&b), 4)[1..5], &[2, 2, 2, 2]);
        b.op = SgOp::Ballot(BallotQuery::Words);
        assert_eq!(
            &expected(&b, &program(&b), 4)[1..9],
            &[0b1010, 0, 0, 0, 0b1010, 0, 0, 0]
        );
    }

    /// Every generated block is checkable, and its shrinks too where they are kept.
    #[test]
    fn generated_blocks_keep_the_rules() {
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..400u64 {
            // xorshift64 bytes (the campaign's input_bytes lives above this module).
            let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ i;
            let bytes: Vec<u8> = (0..1024)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let mut u = Unstructured::new(&bytes);
            let p = Program {
                lang: Lang::Glsl,
                local_size: 128,
                groups: 2,
                blocks: vec![],
                shape: None,
            };
            if let Some(b) = generate(&mut u, &p).unwrap() {
                assert_eq!(b.check(&p), Ok(()), "{b:?}");
                seen.insert(b.op.family());
                for s in shrink(&b) {
                    assert_ne!(s, b);
                }
            }
        }
        assert_eq!(seen.len(), 3, "{seen:?}");
    }
}
