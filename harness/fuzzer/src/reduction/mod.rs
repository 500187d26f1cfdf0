//! Reduction: shrink a diverging program while it keeps the same divergence.
//!
//! Greedy delta debugging over the syntax tree: candidates go from large cuts to small ones
//! (keep only the diverging block, drop a block, shrink the dispatch, then simplify inside a
//! block: drop or unwrap statements, replace an expression by a child or a small constant,
//! simplify an atomic's guard, operand and initial value, replace an operator by a canonical
//! one (`add`, `xor`) and a constant by a smaller canonical one, so that the operators left
//! name the bug and one bug keeps one signature). The first candidate that still
//! diverges the same way becomes the current program and the search starts over; it stops at
//! a program no candidate improves or when the test budget is spent. Every candidate keeps
//! [`Program::check`], so its model stays exact.

pub mod signature;
use crate::ast::*;

/// Shrinks `p` while `still_fails` holds, running at most `budget` tests. Returns the smallest
/// program found and the number of tests run.
pub fn reduce(
    p: &Program,
    focus: Option<usize>,
    budget: usize,
    mut still_fails: impl FnMut(&Program) -> bool,
) -> (Program, usize) {
    let mut cur = p.clone();
    let mut focus = focus;
    let mut tests = 0;
    'search: loop {
        for (cand, new_focus) in candidates(&cur, focus) {
            if tests >= budget {
                break 'search;
            }
            if cand.check().is_err() {
                continue;
            }
            tests += 1;
            if still_fails(&cand) {
                cur = cand;
                focus = new_focus;
                continue 'search;
            }
        }
        break;
    }
    (cur, tests)
}

/// Smaller variants of `p`, largest cuts first, each with where the focused block went.
pub fn candidates(p: &Program, focus: Option<usize>) -> Vec<(Program, Option<usize>)> {
    let mut out = Vec::new();
    let with_blocks = |blocks: Vec<Block>| Program {
        blocks,
        ..p.clone()
    };
    if p.blocks.len() > 1 {
        if let Some(f) = focus.filter(|&f| f < p.blocks.len()) {
            out.push((with_blocks(vec![p.blocks[f].clone()]), Some(0)));
        }
        for i in 0..p.blocks.len() {
            if Some(i) == focus {
                continue;
            }
            let mut blocks = p.blocks.clone();
            blocks.remove(i);
            let f = focus.map(|f| if f > i { f - 1 } else { f });
            out.push((with_blocks(blocks), f));
        }
    }
    if p.shape.is_some() {
        out.push((
            Program {
                shape: None,
                ..p.clone()
            },
            focus,
        ));
    }
    let mut sized = |local_size: u32, groups: u32| {
        if (local_size, groups) != (p.local_size, p.groups) {
            out.push((
                Program {
                    local_size,
                    groups,
                    ..p.clone()
                },
                focus,
            ));
        }
    };
    sized(p.local_size, 1);
    sized(p.local_size, p.groups / 2);
    for ls in [1, 32, p.local_size / 2, p.local_size - 1] {
        if ls >= 1 && ls < p.local_size {
            sized(ls, p.groups);
        }
    }
    for (i, b) in p.blocks.iter().enumerate() {
        for nb in shrink_block(b) {
            let mut blocks = p.blocks.clone();
            blocks[i] = nb;
            out.push((with_blocks(blocks), focus));
        }
    }
    out
}

fn smaller_values(v: u32) -> Vec<u32> {
    let mut out: Vec<u32> = [0, 1, v / 2, v.wrapping_sub(1)]
        .into_iter()
        .filter(|&x| x < v)
        .collect();
    out.dedup();
    out
}

/// Variants of one block, each made by one edit of a copy; edits that change nothing are
/// dropped.
struct Edits<'a, T> {
    base: &'a T,
    wrap: fn(T) -> Block,
    out: Vec<Block>,
}

impl<'a, T: Clone + PartialEq> Edits<'a, T> {
    fn of(base: &'a T, wrap: fn(T) -> Block) -> Self {
        Edits {
            base,
            wrap,
            out: Vec::new(),
        }
    }

    fn with(&mut self, edit: impl FnOnce(&mut T)) {
        let mut x = self.base.clone();
        edit(&mut x);
        if &x != self.base {
            self.out.push((self.wrap)(x));
        }
    }
}

fn shrink_block(b: &Block) -> Vec<Block> {
    match b {
        Block::Atomic(a) => {
            let mut e = Edits::of(a, Block::Atomic);
            e.with(|x| x.guard = Guard::All);
            e.with(|x| x.keep_returns = false);
            e.with(|x| x.space = Space::Storage);
            e.with(|x| x.ty = AtomTy::U32);
            match a.operand {
                Operand::PerInvocation { base, .. } => {
                    e.with(|x| x.operand = Operand::Uniform(base))
                }
                Operand::Uniform(v) => {
                    for s in smaller_values(v) {
                        e.with(|x| x.operand = Operand::Uniform(s));
                    }
                }
            }
            for s in smaller_values(a.init) {
                e.with(|x| x.init = s);
            }
            for s in smaller_values(a.compare) {
                e.with(|x| x.compare = s);
            }
            if let Guard::Below(n) = a.guard {
                for s in smaller_values(n) {
                    e.with(|x| x.guard = Guard::Below(s));
                }
            }
            e.out
        }
        Block::Section(s) => {
            let mut e = Edits::of(s, Block::Section);
            for p in shrink_expr(&s.payload) {
                e.with(|x| x.payload = p);
            }
            for w in smaller_values(s.winner) {
                e.with(|x| x.winner = w);
            }
            e.with(|x| x.space = Space::Storage);
            e.out
        }
        Block::Exchange(x) => {
            let mut e = Edits::of(x, Block::Exchange);
            for v in shrink_expr(&x.value) {
                e.with(|b| b.value = v);
            }
            e.with(|b| b.mul = 1);
            e.with(|b| b.add = 0);
            for r in smaller_values(u32::from(x.rounds)) {
                e.with(|b| b.rounds = r as u8);
            }
            e.out
        }
        Block::Shuffle(s) => {
            let mut e = Edits::of(s, Block::Shuffle);
            for v in shrink_expr(&s.value) {
                e.with(|x| x.value = v);
            }
            for i in shrink_expr(&s.index) {
                e.with(|x| x.index = i);
            }
            e.with(|x| x.want_valid = false);
            e.with(|x| x.ty = ShflTy::U32);
            e.out
        }
        Block::FloatAtomic(f) => {
            let mut e = Edits::of(f, Block::FloatAtomic);
            e.with(|x| x.guard = Guard::All);
            e.with(|x| x.keep_returns = false);
            e.with(|x| x.space = Space::Storage);
            e.with(|x| x.operand = 4);
            e.with(|x| x.init = 0);
            if let Guard::Below(n) = f.guard {
                for s in smaller_values(n) {
                    e.with(|x| x.guard = Guard::Below(s));
                }
            }
            e.out
        }
        Block::Narrow(n) => {
            let mut e = Edits::of(n, Block::Narrow);
            for v in shrink_expr(&n.value) {
                e.with(|b| b.value = v);
            }
            e.with(|b| b.rot = 0);
            e.with(|b| b.space = Space::Storage);
            e.with(|b| b.store_signed = false);
            e.with(|b| b.bits = 16);
            e.out
        }
        Block::AtomicMix(m) => crate::features::atomic_mix::shrink(m)
            .into_iter()
            .map(Block::AtomicMix)
            .collect(),
        Block::Undefined(u) => {
            let mut e = Edits::of(u, Block::Undefined);
            for v in smaller_values(u.param) {
                e.with(|x| x.param = v);
            }
            e.out
        }
        Block::Vector(v) => crate::features::vector::shrink(v)
            .into_iter()
            .map(Block::Vector)
            .collect(),
        Block::Subgroup(s) => crate::features::subgroup::shrink(s)
            .into_iter()
            .map(Block::Subgroup)
            .collect(),
        Block::Compute(c) => {
            let mut e = Edits::of(c, Block::Compute);
            for stmts in shrink_stmts(&c.stmts, 0) {
                e.with(|x| x.stmts = stmts);
            }
            e.with(|x| x.seed = 0);
            e.out
        }
    }
}

/// Smaller statement lists: one statement dropped, an `if` replaced by a branch, a loop by its
/// body (run once, its index read as 0) or by fewer rounds, or one inner part shrunk.
fn shrink_stmts(ss: &[Stmt], loops: u8) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    for i in 0..ss.len() {
        let mut v = ss.to_vec();
        v.remove(i);
        out.push(v);
    }
    for (i, s) in ss.iter().enumerate() {
        let mut splice = |with: Vec<Stmt>| {
            let mut v = ss[..i].to_vec();
            v.extend(with);
            v.extend_from_slice(&ss[i + 1..]);
            out.push(v);
        };
        match s {
            Stmt::Assign(var, e) => {
                for e in shrink_expr(e) {
                    splice(vec![Stmt::Assign(*var, e)]);
                }
            }
            Stmt::If(c, a, b) => {
                splice(a.clone());
                splice(b.clone());
                for c in shrink_expr(c) {
                    splice(vec![Stmt::If(c, a.clone(), b.clone())]);
                }
                for a in shrink_stmts(a, loops) {
                    splice(vec![Stmt::If(c.clone(), a, b.clone())]);
                }
                for b in shrink_stmts(b, loops) {
                    splice(vec![Stmt::If(c.clone(), a.clone(), b)]);
                }
            }
            Stmt::Break | Stmt::Continue => {}
            Stmt::Call(body) => {
                splice(body.clone());
                for body in shrink_stmts(body, 0) {
                    splice(vec![Stmt::Call(body)]);
                }
            }
            Stmt::Loop(n, body) => {
                splice(unloop(body, loops));
                for m in smaller_values(*n).into_iter().filter(|&m| m >= 1) {
                    splice(vec![Stmt::Loop(m, body.clone())]);
                }
                for body in shrink_stmts(body, loops + 1) {
                    splice(vec![Stmt::Loop(*n, body)]);
                }
            }
        }
    }
    out
}

/// The body of the loop at depth `depth`, taken out of it: its index reads 0 (the first
/// round) and deeper indices move up one level.
fn unloop(body: &[Stmt], depth: u8) -> Vec<Stmt> {
    fn expr(e: &Expr, depth: u8) -> Expr {
        match e {
            Expr::LoopIdx(d) if *d == depth => Expr::Const(0),
            Expr::LoopIdx(d) if *d > depth => Expr::LoopIdx(d - 1),
            _ => {
                let mut x = e.clone();
                for c in x.children_mut() {
                    *c = expr(c, depth);
                }
                x
            }
        }
    }
    body.iter()
        .map(|s| match s {
            Stmt::Assign(v, e) => Stmt::Assign(*v, expr(e, depth)),
            Stmt::If(c, a, b) => Stmt::If(expr(c, depth), unloop(a, depth), unloop(b, depth)),
            Stmt::Loop(n, inner) => Stmt::Loop(*n, unloop(inner, depth)),
            Stmt::Break => Stmt::Break,
            Stmt::Continue => Stmt::Continue,
            // A callee does not see the caller's loop indices.
            Stmt::Call(body) => Stmt::Call(body.clone()),
        })
        .collect()
}

/// Constants a reduced case prefers, smallest first: besides 0 and 1, the edges the generator
/// leans on. A constant is only ever replaced by a smaller one, so reduction cannot cycle.
const CANONICAL: [u32; 6] = [2, 31, 32, 0x7FFF_FFFF, 0x8000_0000, u32::MAX];

/// Operators a reduced case prefers: an operator is replaced by one of these when the
/// divergence does not need it, so one bug keeps one signature (the operators left after
/// reduction name it). Only ever by one earlier in [`BinOp::ALL`]: no cycles.
const CANONICAL_OPS: [BinOp; 2] = [BinOp::Add, BinOp::Xor];

/// Simpler constants than `c`: smaller values, the canonical ones first.
fn simpler_constants(c: u32) -> Vec<u32> {
    let mut out: Vec<u32> = [0, 1]
        .into_iter()
        .chain(CANONICAL)
        .filter(|&x| x < c)
        .collect();
    for x in smaller_values(c) {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

fn rank(op: BinOp) -> usize {
    BinOp::ALL
        .iter()
        .position(|&o| o == op)
        .unwrap_or(usize::MAX)
}

/// Smaller expressions: a child in place of its parent, small constants in place of anything,
/// a canonical operator in place of another, then one child shrunk.
pub fn shrink_expr(e: &Expr) -> Vec<Expr> {
    if let Expr::Const(c) = e {
        return simpler_constants(*c).into_iter().map(Expr::Const).collect();
    }
    let mut out: Vec<Expr> = e.children().into_iter().cloned().collect();
    out.extend([Expr::Const(0), Expr::Const(1), Expr::Const(2)]);
    if let Expr::Bin(op, a, b) = e {
        for simpler in CANONICAL_OPS {
            if rank(simpler) < rank(*op) {
                out.push(Expr::Bin(simpler, a.clone(), b.clone()));
            }
        }
    }
    if let Expr::Wide(w) = e {
        out.extend(crate::features::wide::shrink(w).into_iter().map(Expr::Wide));
    }
    if let Expr::FToI {
        value,
        round,
        to,
        sat,
    } = e
    {
        let with = |value: FExpr, round: Round, to: IntTy, sat: bool| Expr::FToI {
            value: Box::new(value),
            round,
            to,
            sat,
        };
        // Towards truncation to a plain int, each only one way: no cycles.
        if *sat {
            out.push(with((**value).clone(), *round, *to, false));
        }
        if *to != IntTy::S32 {
            out.push(with((**value).clone(), *round, IntTy::S32, *sat));
        }
        if *round != Round::Trunc {
            out.push(with((**value).clone(), Round::Trunc, *to, *sat));
        }
        for v in value.shrink() {
            out.push(with(v, *round, *to, *sat));
        }
    }
    for (i, child) in e.children().into_iter().enumerate() {
        for smaller in shrink_expr(child) {
            let mut x = e.clone();
            *x.children_mut()[i] = smaller;
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compute(stmts: Vec<Stmt>) -> Program {
        Program {
            lang: Lang::Glsl,
            local_size: 8,
            groups: 2,
            blocks: vec![Block::Compute(ComputeBlock { seed: 7, stmts })],
            shape: None,
        }
    }

    #[test]
    fn reduces_to_the_one_operator_that_matters() {
        // "Fails" whenever a Mul is left anywhere: the reducer must strip everything else.
        let e = Expr::bin(
            BinOp::Add,
            Expr::bin(BinOp::Mul, Expr::Lid, Expr::Const(77)),
            Expr::bin(BinOp::Xor, Expr::Gid, Expr::Wg),
        );
        let p = compute(vec![
            Stmt::Assign(0, Expr::Lid),
            Stmt::Loop(5, vec![Stmt::Assign(1, e)]),
            Stmt::Assign(2, Expr::Const(9)),
        ]);
        let has_mul = |p: &Program| {
            let mut ops = Vec::new();
            for b in &p.blocks {
                if let Block::Compute(c) = b {
                    c.stmts.iter().for_each(|s| s.ops(&mut ops));
                }
            }
            ops.contains(&"mul")
        };
        let (r, tests) = reduce(&p, Some(0), 1000, has_mul);
        assert!(tests < 1000);
        assert_eq!((r.local_size, r.groups), (1, 1));
        let Block::Compute(c) = &r.blocks[0] else {
            panic!()
        };
        assert_eq!(c.stmts.len(), 1, "{r:?}");
        let mut ops = Vec::new();
        c.stmts[0].ops(&mut ops);
        assert_eq!(ops, vec!["mul"], "{r:?}");
    }

    #[test]
    fn operators_and_constants_move_towards_canonical_ones_only() {
        let e = Expr::bin(BinOp::DivS, Expr::Lid, Expr::Const(0x9E37_79B9));
        let c = shrink_expr(&e);
        assert!(c.contains(&Expr::bin(BinOp::Add, Expr::Lid, Expr::Const(0x9E37_79B9))));
        assert!(c.contains(&Expr::bin(BinOp::Xor, Expr::Lid, Expr::Const(0x9E37_79B9))));
        assert!(c.contains(&Expr::bin(BinOp::DivS, Expr::Lid, Expr::Const(0x8000_0000))));
        // Add is the simplest operator: nothing replaces it.
        let add = Expr::bin(BinOp::Add, Expr::Lid, Expr::Gid);
        assert!(!shrink_expr(&add)
            .iter()
            .any(|x| matches!(x, Expr::Bin(op, ..) if *op != BinOp::Add)));
        // Every proposed constant is smaller: reduction terminates.
        assert!(simpler_constants(u32::MAX).iter().all(|&x| x < u32::MAX));
        assert_eq!(simpler_constants(0), Vec::<u32>::new());
    }

    #[test]
    fn unlooping_reads_the_first_round() {
        let body = vec![Stmt::Loop(
            3,
            vec![Stmt::Assign(
                0,
                Expr::bin(BinOp::Add, Expr::LoopIdx(0), Expr::LoopIdx(1)),
            )],
        )];
        let out = unloop(&body, 0);
        assert_eq!(
            out,
            vec![Stmt::Loop(
                3,
                vec![Stmt::Assign(
                    0,
                    Expr::bin(BinOp::Add, Expr::Const(0), Expr::LoopIdx(0))
                )]
            )]
        );
    }

    #[test]
    fn keeps_the_focused_block_first() {
        let p = Program {
            blocks: vec![
                Block::Compute(ComputeBlock {
                    seed: 1,
                    stmts: vec![],
                }),
                Block::Exchange(ExchangeBlock {
                    mul: 3,
                    add: 1,
                    value: Expr::Lid,
                    rounds: 2,
                    fence: false,
                }),
            ],
            ..compute(vec![])
        };
        let c = candidates(&p, Some(1));
        assert_eq!(c[0].0.blocks, vec![p.blocks[1].clone()]);
        assert_eq!(c[0].1, Some(0));
    }
}
