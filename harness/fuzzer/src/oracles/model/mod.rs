//! The fuzzer's own oracle: what each block must leave in its buffer, derived from the tree.
//!
//! This is deliberately a second, plain implementation of the semantics (integer expressions,
//! atomic update rules, shuffle lane math), written from the spec text and independent of the
//! reference interpreter: a generated case is judged the same way on every backend, the
//! reference included, so a bug planted in (or present in) the reference shows up as a
//! divergence instead of being copied into the expectation. Closed forms stand in for
//! scheduling: every block is built so that its checked memory does not depend on the order of
//! invocations (a multiset for the values atomics return; both readings of the assembly
//! shuffle range test as a `one_of`).
//!
//! The vocabulary every block model shares (buffer expectations, expression semantics) is
//! [`value`], below the feature models (`crate::features::vector`, `crate::features::narrow`,
//! `crate::features::atomic_mix`); this module holds the models of the core blocks and
//! [`block_model`], the dispatch over every block kind, above them.

pub mod value;

pub use self::value::{
    atomic_step, bin, div_operands, eval, extract, f_to_i, BufferModel, Elem, Env, Want, SENTINEL,
};
use crate::ast::*;

/// How a statement list ended: normally, or leaving the innermost loop's round early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Normal,
    Break,
    Continue,
}

/// Runs `stmts`; a `break` or `continue` ends the list and is handed to the enclosing loop
/// (GLSL 4.60 section 6.4, NV_gpu_program4 BRK/CONT, SPIR-V branches to the loop's merge
/// or continue target: the same meaning).
pub fn exec(stmts: &[Stmt], env: &mut Env) -> Flow {
    for s in stmts {
        let flow = match s {
            Stmt::Assign(v, e) => {
                let x = eval(e, env);
                env.vars[usize::from(*v) % VARS] = x;
                Flow::Normal
            }
            Stmt::If(c, a, b) => {
                if eval(c, env) != 0 {
                    exec(a, env)
                } else {
                    exec(b, env)
                }
            }
            Stmt::Loop(n, body) => {
                for i in 0..*n {
                    env.loops.push(i);
                    let flow = exec(body, env);
                    env.loops.pop();
                    if flow == Flow::Break {
                        break;
                    }
                }
                Flow::Normal
            }
            Stmt::Break => Flow::Break,
            Stmt::Continue => Flow::Continue,
            // The callee sees the variables, not the caller's loops (Program::check keeps
            // its break and continue inside its own loops).
            Stmt::Call(body) => {
                let outer = std::mem::take(&mut env.loops);
                exec(body, env);
                env.loops = outer;
                Flow::Normal
            }
        };
        if flow != Flow::Normal {
            return flow;
        }
    }
    Flow::Normal
}

/// The operand invocation `index` hands an atomic.
pub fn operand_of(o: Operand, index: u32) -> u32 {
    match o {
        Operand::Uniform(v) => v,
        Operand::PerInvocation { base, step } => base.wrapping_add(step.wrapping_mul(index)),
    }
}

/// The final value and, for a uniform operand, the multiset of returned old values of the
/// admitted invocations `indices` updating one word.
pub fn atomic_reduce(a: &AtomicBlock, indices: &[u32]) -> (u32, Option<Vec<u32>>) {
    let signed = a.ty == AtomTy::S32;
    let mut state = a.init;
    let mut olds = Vec::with_capacity(indices.len());
    for &i in indices {
        olds.push(state);
        state = atomic_step(a.op, signed, state, operand_of(a.operand, i), a.compare);
    }
    // With a uniform operand every update is the same function, so the sequence of states
    // (and the multiset of old values) is the same in every order; with per-invocation
    // operands only the final value of a commuting operation is.
    let olds = matches!(a.operand, Operand::Uniform(_)).then_some(olds);
    (state, olds)
}

/// Buffer layout of an atomic block: final values first (1 for a storage word, one per group
/// for a shared word), then one return slot per invocation (with `keep_returns`).
pub fn atomic_finals(a: &AtomicBlock, p: &Program) -> usize {
    match a.space {
        Space::Storage => 1,
        Space::Shared => p.groups as usize,
    }
}

fn atomic_model(a: &AtomicBlock, p: &Program) -> BufferModel {
    let elem = if a.ty == AtomTy::S32 {
        Elem::I32
    } else {
        Elem::U32
    };
    let finals = atomic_finals(a, p);
    let n = p.invocations() as usize;
    let mut init = vec![SENTINEL; finals];
    if a.space == Space::Storage {
        init[0] = a.init;
    }
    let mut want = Vec::new();
    let mut final_values = Vec::new();
    let mut returns = Vec::new();
    let words: Vec<Vec<u32>> = match a.space {
        Space::Storage => vec![(0..p.invocations())
            .filter(|&g| a.guard.admits(g))
            .collect()],
        Space::Shared => (0..p.groups)
            .map(|_| (0..p.local_size).filter(|&l| a.guard.admits(l)).collect())
            .collect(),
    };
    for indices in &words {
        let (fin, olds) = atomic_reduce(a, indices);
        final_values.push(fin);
        if let Some(olds) = olds {
            returns.extend(olds);
        }
    }
    want.push(Want::Values {
        at: 0,
        values: final_values,
    });
    if a.stores_returns() {
        init.extend(std::iter::repeat_n(SENTINEL, n));
        // Invocations that are not admitted leave their slot alone.
        returns.extend(std::iter::repeat_n(SENTINEL, n - returns.len()));
        want.push(Want::Permutation {
            at: finals,
            values: returns,
        });
    }
    BufferModel { elem, init, want }
}

/// The marker of a float buffer's unwritten slots: 1e9, exact in f32 and far outside every
/// value a float atomic block produces.
pub const F32_SENTINEL: u32 = 1.0e9f32.to_bits();

/// The f32 bits of `quarters / 4` (exact: the values stay far below 2^24 quarters).
pub fn quarters(q: i64) -> u32 {
    (q as f32 / 4.0).to_bits()
}

/// Float atomic layout, as an atomic block's: the final values (one word, or one per group),
/// then one returned value per invocation (with `keep_returns`).
fn float_atomic_model(f: &FloatAtomicBlock, p: &Program) -> BufferModel {
    let (finals, n) = match f.space {
        Space::Storage => (1, p.invocations()),
        Space::Shared => (p.groups as usize, p.local_size),
    };
    let mut init = vec![F32_SENTINEL; finals];
    if f.space == Space::Storage {
        init[0] = quarters(i64::from(f.init));
    }
    let mut final_values = Vec::new();
    let mut returns = Vec::new();
    for _ in 0..finals {
        let admitted = (0..n).filter(|&i| f.guard.admits(i)).count() as i64;
        let step = i64::from(f.operand);
        final_values.push(quarters(i64::from(f.init) + step * admitted));
        returns.extend((0..admitted).map(|k| quarters(i64::from(f.init) + step * k)));
    }
    let mut want = vec![Want::Values {
        at: 0,
        values: final_values,
    }];
    if f.keep_returns {
        let all = p.invocations() as usize;
        init.extend(std::iter::repeat_n(F32_SENTINEL, all));
        returns.extend(std::iter::repeat_n(F32_SENTINEL, all - returns.len()));
        want.push(Want::Permutation {
            at: finals,
            values: returns,
        });
    }
    BufferModel {
        elem: Elem::F32,
        init,
        want,
    }
}

/// Section layout: per counter (one, or one per group), `[counter, hits, payload]`.
fn section_model(s: &SectionBlock, p: &Program) -> BufferModel {
    let per_counter = p.sharing(s.space);
    let counters = p.invocations() / per_counter;
    let mut init = Vec::new();
    let mut values = Vec::new();
    for _ in 0..counters {
        init.extend([0, 0, SENTINEL]);
        let won = s.winner < per_counter;
        let env = Env {
            ticket: s.winner,
            ..Env::default()
        };
        values.extend([
            per_counter,
            u32::from(won),
            if won {
                eval(&s.payload, &env)
            } else {
                SENTINEL
            },
        ]);
    }
    if s.space == Space::Shared {
        // The counter lives in shared memory; its slot is written at the end by lid 0.
        for c in 0..counters as usize {
            init[3 * c] = SENTINEL;
        }
    }
    BufferModel {
        elem: Elem::U32,
        init,
        want: vec![Want::Values { at: 0, values }],
    }
}

/// The permuted slot invocation `lid` reads.
pub fn exchange_source(x: &ExchangeBlock, lid: u32, local_size: u32) -> u32 {
    x.mul.wrapping_mul(lid).wrapping_add(x.add) % local_size
}

fn exchange_model(x: &ExchangeBlock, p: &Program) -> BufferModel {
    let mut values = Vec::new();
    let n = p.local_size;
    for wg in 0..p.groups {
        let mut slots: Vec<u32> = (0..n)
            .map(|lid| {
                let env = Env {
                    lid,
                    wg,
                    ..Env::default()
                };
                eval(&x.value, &env)
            })
            .collect();
        for _ in 0..x.rounds {
            slots = (0..n)
                .map(|lid| slots[exchange_source(x, lid, n) as usize])
                .collect();
        }
        values.extend((0..n).map(|lid| slots[exchange_source(x, lid, n) as usize]));
    }
    BufferModel {
        elem: Elem::U32,
        init: vec![SENTINEL; values.len()],
        want: vec![Want::Values { at: 0, values }],
    }
}

/// How a shuffle's data is formed from its 32-bit value expression, as stored bits.
pub fn shuffle_data(ty: ShflTy, x: u32) -> u32 {
    match ty {
        ShflTy::U32 | ShflTy::I32 => x,
        // Converted from 16 bits so it is exact in f32.
        ShflTy::F32 => ((x & 0xFFFF) as f32).to_bits(),
        ShflTy::Bool => x & 1,
    }
}

/// Reading of the assembly range test (specs README, ambiguity 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// PTX: in range when `src <= max` (SHFUP: `src >= max`).
    Inclusive,
    /// The extension text: `src < max` (SHFUP: `src > max`).
    Strict,
}

/// GLSL `shuffle*NV` (NV_shader_thread_shuffle, "Common Functions"): the lane (within the
/// 32-lane warp) whose data lane `lane` receives, and whether it is valid. Ids are relative
/// to the lane's segment of `width` lanes; only the low 5 bits of the index count.
pub fn glsl_lane(mode: ShflMode, lane: u32, index: u32, width: u32) -> (u32, bool) {
    let i = i64::from(index & 31);
    let w = i64::from(width);
    let seg_start = lane - lane % width;
    let id = i64::from(lane % width);
    let src = match mode {
        ShflMode::Idx => i,
        ShflMode::Up => id - i,
        ShflMode::Down => id + i,
        ShflMode::Xor => id ^ i,
    };
    if (0..w).contains(&src) {
        (seg_start + src as u32, true)
    } else {
        (lane, false)
    }
}

/// Assembly `SHF*` (NV_shader_thread_shuffle, "Dependencies on NV_gpu_program5"): min and max
/// thread ids from the mask (clamp in bits 0-4, segment mask in bits 8-12).
pub fn asm_lane(mode: ShflMode, lane: u32, index: u32, mask: u32, reading: Reading) -> (u32, bool) {
    let seg = i64::from((mask >> 8) & 31);
    let clamp = i64::from(mask & 31);
    let t = i64::from(lane);
    let i = i64::from(index & 31);
    let min = t & seg;
    let max = min | (clamp & !seg);
    let src = match mode {
        ShflMode::Idx => (i & !seg) | min,
        ShflMode::Up => t - i,
        ShflMode::Down => t + i,
        ShflMode::Xor => t ^ i,
    };
    let in_range = match (mode, reading) {
        (ShflMode::Up, Reading::Inclusive) => src >= max,
        (ShflMode::Up, Reading::Strict) => src > max,
        (_, Reading::Inclusive) => src <= max,
        (_, Reading::Strict) => src < max,
    };
    if in_range && (0..32).contains(&src) {
        (src as u32, true)
    } else {
        (lane, false)
    }
}

/// The assembly TRUE value of a shuffle predicate by data type (1.0, -1, all ones).
pub fn asm_true(ty: ShflTy) -> u32 {
    match ty {
        ShflTy::F32 => 1.0f32.to_bits(),
        ShflTy::U32 | ShflTy::I32 | ShflTy::Bool => u32::MAX,
    }
}

/// Shuffle layout: per invocation `[valid, data]`. Program sizes are whole warps.
/// The lanes a shuffle reads, per reading the language allows: `(group, lane, source)` for
/// every lane whose source is in range (the others keep their own value).
fn shuffle_sources(s: &ShuffleBlock, p: &Program, reading: Reading) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    for wg in 0..p.groups {
        for lid in 0..p.local_size {
            if let (src, true) = shuffle_source(s, p, wg, lid, reading) {
                out.push((wg, lid, src));
            }
        }
    }
    out
}

/// The local index invocation `lid` of group `wg` reads in shuffle `s`, and whether that
/// source is in range (otherwise the invocation keeps its own value).
fn shuffle_source(
    s: &ShuffleBlock,
    p: &Program,
    wg: u32,
    lid: u32,
    reading: Reading,
) -> (u32, bool) {
    let lane = lid % 32;
    let own = Env {
        lid,
        wg,
        ..Env::default()
    };
    let index = eval(&s.index, &own);
    let (src, valid) = match p.lang {
        Lang::Glsl | Lang::Spirv => glsl_lane(s.mode, lane, index, s.width),
        Lang::Nvasm => asm_lane(s.mode, lane, index, s.mask, reading),
    };
    (lid - lane + src, valid)
}

/// Whether some lane of `s` reads a lane missing from a partial last warp (under either
/// reading of the assembly range test): undefined (specs README, 5).
pub fn shuffle_reads_inactive(s: &ShuffleBlock, p: &Program) -> bool {
    if p.local_size.is_multiple_of(32) {
        return false;
    }
    [Reading::Inclusive, Reading::Strict].into_iter().any(|r| {
        shuffle_sources(s, p, r)
            .iter()
            .any(|&(_, _, src)| src >= p.local_size)
    })
}

fn shuffle_model(s: &ShuffleBlock, p: &Program) -> BufferModel {
    let n = p.invocations() as usize;
    let readings: &[Reading] = match p.lang {
        Lang::Glsl | Lang::Spirv => &[Reading::Inclusive],
        Lang::Nvasm => &[Reading::Inclusive, Reading::Strict],
    };
    let mut alts: Vec<Vec<u32>> = Vec::new();
    for &reading in readings {
        let mut out = vec![SENTINEL; 2 * n];
        for wg in 0..p.groups {
            for lid in 0..p.local_size {
                let gid = wg * p.local_size + lid;
                let (src, valid) = shuffle_source(s, p, wg, lid, reading);
                let src_env = Env {
                    lid: src,
                    wg,
                    ..Env::default()
                };
                let data = shuffle_data(s.ty, eval(&s.value, &src_env));
                let g = gid as usize;
                out[2 * g + 1] = data;
                out[2 * g] = match p.lang {
                    Lang::Glsl | Lang::Spirv if s.want_valid => u32::from(valid),
                    Lang::Glsl | Lang::Spirv => SENTINEL,
                    Lang::Nvasm if valid => asm_true(s.ty),
                    Lang::Nvasm => 0,
                };
            }
        }
        if !alts.contains(&out) {
            alts.push(out);
        }
    }
    let want = if alts.len() == 1 {
        Want::Values {
            at: 0,
            values: alts.remove(0),
        }
    } else {
        Want::OneOf { at: 0, alts }
    };
    BufferModel {
        elem: Elem::U32,
        init: vec![SENTINEL; 2 * n],
        want: vec![want],
    }
}

/// Compute layout: per invocation the four final variables.
fn compute_model(c: &ComputeBlock, p: &Program) -> BufferModel {
    let mut values = Vec::new();
    for wg in 0..p.groups {
        for lid in 0..p.local_size {
            let gid = wg * p.local_size + lid;
            let mut env = Env {
                lid,
                gid,
                wg,
                local_id: Shape::split(p.local_dims(), lid),
                group_id: Shape::split(p.group_dims(), wg),
                vars: [gid, lid, wg, c.seed],
                ..Env::default()
            };
            exec(&c.stmts, &mut env);
            values.extend(env.vars);
        }
    }
    BufferModel {
        elem: Elem::U32,
        init: vec![SENTINEL; values.len()],
        want: vec![Want::Values { at: 0, values }],
    }
}

/// What block `b` of `p` must leave in its buffer.
pub fn block_model(b: &Block, p: &Program) -> BufferModel {
    match b {
        Block::Atomic(a) => atomic_model(a, p),
        Block::Section(s) => section_model(s, p),
        Block::Exchange(x) => exchange_model(x, p),
        Block::Shuffle(s) => shuffle_model(s, p),
        Block::Compute(c) => compute_model(c, p),
        Block::FloatAtomic(f) => float_atomic_model(f, p),
        Block::Narrow(n) => crate::features::narrow::model(n, p),
        Block::Vector(v) => crate::features::vector::model(v, p),
        Block::AtomicMix(m) => crate::features::atomic_mix::model(m, p),
        Block::Subgroup(s) => crate::features::subgroup::model(s, p),
        // Undefined behaviour: nothing to expect; the reference's flag is what is checked
        // (`fuzz::observe`).
        Block::Undefined(_) => BufferModel {
            elem: Elem::U32,
            init: vec![SENTINEL; p.invocations() as usize],
            want: Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    fn atomic(op: AtomicOp, operand: u32, init: u32) -> AtomicBlock {
        AtomicBlock {
            space: Space::Storage,
            op,
            ty: AtomTy::U32,
            operand: Operand::Uniform(operand),
            compare: 0,
            init,
            guard: Guard::All,
            keep_returns: true,
        }
    }

    #[test]
    fn iwrap_cycles_through_zero_to_the_operand() {
        // NV_gpu_program5: IWRAP stores (old >= op) ? 0 : old + 1.
        let (fin, olds) = atomic_reduce(&atomic(AtomicOp::IWrap, 3, 0), &[0, 1, 2, 3, 4, 5]);
        assert_eq!(olds.unwrap(), vec![0, 1, 2, 3, 0, 1]);
        assert_eq!(fin, 2);
        // op 0 always stores 0 (specs README, ambiguity 7).
        let (fin, _) = atomic_reduce(&atomic(AtomicOp::IWrap, 0, 9), &[0, 1]);
        assert_eq!(fin, 0);
        // old above op wraps at once.
        let (fin, olds) = atomic_reduce(&atomic(AtomicOp::IWrap, 3, 7), &[0, 1]);
        assert_eq!((fin, olds.unwrap()), (1, vec![7, 0]));
    }

    #[test]
    fn dwrap_reloads_the_operand_at_zero_or_above_it() {
        let (fin, olds) = atomic_reduce(&atomic(AtomicOp::DWrap, 2, 1), &[0, 1, 2, 3]);
        assert_eq!(olds.unwrap(), vec![1, 0, 2, 1]);
        assert_eq!(fin, 0);
        let (fin, _) = atomic_reduce(&atomic(AtomicOp::DWrap, 2, 9), &[0]);
        assert_eq!(fin, 2);
    }

    #[test]
    fn per_invocation_operands_give_no_return_multiset() {
        let mut a = atomic(AtomicOp::Add, 0, 5);
        a.operand = Operand::PerInvocation { base: 1, step: 2 };
        let (fin, olds) = atomic_reduce(&a, &[0, 1, 2]);
        assert_eq!(fin, 5 + 1 + 3 + 5);
        assert!(olds.is_none());
    }

    #[test]
    fn bitfields_and_bit_searches_follow_the_spec() {
        // NV_gpu_program5 BitfieldExtract: zero when bits is 0; sign-extended for S.
        assert_eq!(extract(0xF0, 4, 4, false), 0xF);
        assert_eq!(extract(0x80, 4, 4, true), 0xFFFF_FFF8);
        assert_eq!(extract(0xDEAD_BEEF, 0, 32, false), 0xDEAD_BEEF);
        assert_eq!(extract(0xDEAD_BEEF, 31, 1, true), u32::MAX);
        assert_eq!(extract(u32::MAX, 7, 0, true), 0);
        let env = Env::default();
        let ins = |base, insert, offset, bits| {
            eval(
                &Expr::Insert {
                    base: Box::new(Expr::Const(base)),
                    insert: Box::new(Expr::Const(insert)),
                    offset,
                    bits,
                },
                &env,
            )
        };
        assert_eq!(ins(0xFFFF_FFFF, 0, 8, 8), 0xFFFF_00FF);
        assert_eq!(ins(0, 0xABCD, 0, 32), 0xABCD);
        assert_eq!(ins(0x1234, 0xF, 4, 0), 0x1234);
        let un = |op, a| eval(&Expr::Un(op, Box::new(Expr::Const(a))), &env);
        // BTFL.U / BTFM.U of zero: all ones (GLSL findLSB/findMSB: -1).
        assert_eq!(un(UnOp::FindLsb, 0), u32::MAX);
        assert_eq!(un(UnOp::FindMsb, 0), u32::MAX);
        assert_eq!(un(UnOp::FindLsb, 8), 3);
        assert_eq!(un(UnOp::FindMsb, 0x8000_0001), 31);
        assert_eq!(un(UnOp::BitCount, 0xF0F0), 8);
        assert_eq!(un(UnOp::BitReverse, 1), 0x8000_0000);
    }

    #[test]
    fn signed_division_truncates_and_avoids_only_the_undefined() {
        let s = |v: i32| v as u32;
        // Truncation towards zero (C99 6.5.5, which GLSL and NV assembly follow).
        assert_eq!(bin(BinOp::DivS, s(-7), 2), s(-3));
        assert_eq!(bin(BinOp::DivS, 7, s(-2)), s(-3));
        assert_eq!(bin(BinOp::DivS, s(-7), s(-2)), 3);
        assert_eq!(bin(BinOp::DivU, s(-7), 2), 0x7FFF_FFFC);
        // Undefined operands are replaced, and only they: by zero and MIN / -1 divide by 1.
        assert_eq!(bin(BinOp::DivS, 0x8000_0000, u32::MAX), 0x8000_0000);
        assert_eq!(bin(BinOp::DivS, 0x8000_0000, s(-2)), 0x4000_0000);
        assert_eq!(bin(BinOp::DivS, 9, 0), 9);
        assert_eq!(bin(BinOp::DivU, 9, 0), 9);
        assert_eq!(bin(BinOp::RemU, 9, 0), 0);
        assert_eq!(bin(BinOp::RemU, 9, 4), 1);
        // Remainders of negative operands are undefined in GLSL and NV assembly (MOD).
        assert_eq!(div_operands(BinOp::RemS, s(-7), s(-3)), (0x7FFF_FFF9, 1));
        assert_eq!(bin(BinOp::RemS, 7, 3), 1);
        // High halves of the 64-bit products.
        assert_eq!(bin(BinOp::MulHiU, u32::MAX, u32::MAX), 0xFFFF_FFFE);
        assert_eq!(bin(BinOp::MulHiS, u32::MAX, u32::MAX), 0);
        assert_eq!(bin(BinOp::MulHiS, s(-2), 0x8000_0000), 1);
        assert_eq!(bin(BinOp::MulHiS, s(-1), 1), u32::MAX);
    }

    #[test]
    fn the_spec_shuffle_examples() {
        // NV_shader_thread_shuffle's tables, segment of 8 (its index-2 "b" is a misprint for c,
        // specs README ambiguity 4).
        assert_eq!(glsl_lane(ShflMode::Idx, 5, 2, 8), (2, true));
        assert_eq!(glsl_lane(ShflMode::Idx, 5, 9, 8), (5, false));
        assert_eq!(glsl_lane(ShflMode::Up, 0, 1, 8), (0, false));
        assert_eq!(glsl_lane(ShflMode::Up, 3, 1, 8), (2, true));
        assert_eq!(glsl_lane(ShflMode::Down, 6, 2, 8), (6, false));
        assert_eq!(glsl_lane(ShflMode::Xor, 3, 1, 8), (2, true));
        // Second segment of 8: ids are relative to it.
        assert_eq!(glsl_lane(ShflMode::Idx, 13, 2, 8), (10, true));
    }

    #[test]
    fn asm_readings_differ_only_at_the_boundary() {
        // Mask 0x1f: one segment, clamp 31. Index 31 is valid only under the inclusive reading.
        assert_eq!(
            asm_lane(ShflMode::Idx, 0, 31, 0x1f, Reading::Inclusive),
            (31, true)
        );
        assert_eq!(
            asm_lane(ShflMode::Idx, 0, 31, 0x1f, Reading::Strict),
            (0, false)
        );
        // SHFUP: source below zero is out of range under both (ambiguity 2).
        assert_eq!(
            asm_lane(ShflMode::Up, 0, 1, 0, Reading::Inclusive),
            (0, false)
        );
        assert_eq!(
            asm_lane(ShflMode::Up, 5, 2, 0, Reading::Inclusive),
            (3, true)
        );
        assert_eq!(asm_lane(ShflMode::Up, 5, 5, 0, Reading::Strict), (5, false));
    }

    quickcheck! {
        fn division_operands_change_only_what_is_undefined(a: u32, b: u32) -> bool {
            let (sa, sb) = (a as i32, b as i32);
            let defined = |op| match op {
                BinOp::DivS => b != 0 && !(sa == i32::MIN && sb == -1),
                BinOp::RemS => sa >= 0 && sb > 0,
                _ => b != 0,
            };
            [BinOp::DivU, BinOp::RemU, BinOp::DivS, BinOp::RemS].into_iter().all(|op| {
                let (x, y) = div_operands(op, a, b);
                let ok = if defined(op) { (x, y) == (a, b) } else { y != 0 };
                let (sx, sy) = (x as i32, y as i32);
                ok && !(op == BinOp::DivS && sx == i32::MIN && sy == -1)
                    && (op != BinOp::RemS || (sx >= 0 && sy > 0))
            })
        }

        fn glsl_source_stays_in_its_segment(lane: u32, index: u32, wlog: u8) -> bool {
            let width = 2u32 << (wlog % 5);
            let lane = lane % 32;
            ShflMode::ALL.iter().all(|&m| {
                let (src, _) = glsl_lane(m, lane, index, width);
                src / width == lane / width
            })
        }

        fn asm_inclusive_admits_whatever_strict_admits(lane: u32, index: u32, mask: u32) -> bool {
            let lane = lane % 32;
            ShflMode::ALL.iter().all(|&m| {
                let strict = asm_lane(m, lane, index, mask, Reading::Strict);
                !strict.1 || asm_lane(m, lane, index, mask, Reading::Inclusive) == strict
            })
        }

        fn uniform_operand_order_does_not_matter(op: u8, operand: u32, init: u32, n: u8) -> bool {
            let op = AtomicOp::ALL[usize::from(op) % AtomicOp::ALL.len()];
            let a = atomic(op, operand % 64, init % 64);
            let n = u32::from(n % 40);
            let fwd: Vec<u32> = (0..n).collect();
            let rev: Vec<u32> = (0..n).rev().collect();
            let (f1, o1) = atomic_reduce(&a, &fwd);
            let (f2, o2) = atomic_reduce(&a, &rev);
            let (mut o1, mut o2) = (o1.unwrap(), o2.unwrap());
            o1.sort_unstable();
            o2.sort_unstable();
            f1 == f2 && o1 == o2
        }

        fn commuting_ops_final_value_is_order_free(op: u8, base: u32, step: u32, init: u32, n: u8) -> bool {
            let commuting: Vec<AtomicOp> = AtomicOp::ALL.into_iter().filter(|o| o.commutes()).collect();
            let mut a = atomic(commuting[usize::from(op) % commuting.len()], 0, init);
            a.operand = Operand::PerInvocation { base, step };
            a.ty = if step.is_multiple_of(2) { AtomTy::S32 } else { AtomTy::U32 };
            let idx: Vec<u32> = (0..u32::from(n % 50)).collect();
            let mut shuffled = idx.clone();
            shuffled.rotate_left(idx.len() / 3);
            shuffled.reverse();
            atomic_reduce(&a, &idx).0 == atomic_reduce(&a, &shuffled).0
        }
    }
}
