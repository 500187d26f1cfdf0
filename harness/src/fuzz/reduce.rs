//! Reduction: shrink a diverging program while it keeps the same divergence.
//!
//! Greedy delta debugging over the syntax tree: candidates go from large cuts to small ones
//! (keep only the diverging block, drop a block, shrink the dispatch, then simplify inside a
//! block: drop or unwrap statements, replace an expression by a child or a small constant,
//! simplify an atomic's guard, operand and initial value). The first candidate that still
//! diverges the same way becomes the current program and the search starts over; it stops at
//! a program no candidate improves or when the test budget is spent. Every candidate keeps
//! [`Program::check`], so its model stays exact.

use super::ast::*;

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

fn shrink_block(b: &Block) -> Vec<Block> {
    let mut out = Vec::new();
    match b {
        Block::Atomic(a) => {
            let mut push = |f: &dyn Fn(&mut AtomicBlock)| {
                let mut x = a.clone();
                f(&mut x);
                if &x != a {
                    out.push(Block::Atomic(x));
                }
            };
            push(&|x| x.guard = Guard::All);
            push(&|x| x.keep_returns = false);
            push(&|x| x.space = Space::Storage);
            push(&|x| x.ty = AtomTy::U32);
            if let Operand::PerInvocation { base, .. } = a.operand {
                push(&|x| x.operand = Operand::Uniform(base));
            }
            if let Operand::Uniform(v) = a.operand {
                for s in smaller_values(v) {
                    push(&|x| x.operand = Operand::Uniform(s));
                }
            }
            for s in smaller_values(a.init) {
                push(&|x| x.init = s);
            }
            for s in smaller_values(a.compare) {
                push(&|x| x.compare = s);
            }
            if let Guard::Below(n) = a.guard {
                for s in smaller_values(n) {
                    push(&|x| x.guard = Guard::Below(s));
                }
            }
        }
        Block::Section(s) => {
            for e in shrink_expr(&s.payload) {
                out.push(Block::Section(SectionBlock {
                    payload: e,
                    ..s.clone()
                }));
            }
            for w in smaller_values(s.winner) {
                out.push(Block::Section(SectionBlock {
                    winner: w,
                    ..s.clone()
                }));
            }
            if s.space == Space::Shared {
                out.push(Block::Section(SectionBlock {
                    space: Space::Storage,
                    ..s.clone()
                }));
            }
        }
        Block::Exchange(x) => {
            for e in shrink_expr(&x.value) {
                out.push(Block::Exchange(ExchangeBlock {
                    value: e,
                    ..x.clone()
                }));
            }
            if x.mul != 1 {
                out.push(Block::Exchange(ExchangeBlock {
                    mul: 1,
                    ..x.clone()
                }));
            }
            if x.add != 0 {
                out.push(Block::Exchange(ExchangeBlock {
                    add: 0,
                    ..x.clone()
                }));
            }
            for rounds in smaller_values(u32::from(x.rounds)) {
                out.push(Block::Exchange(ExchangeBlock {
                    rounds: rounds as u8,
                    ..x.clone()
                }));
            }
        }
        Block::Shuffle(s) => {
            for e in shrink_expr(&s.value) {
                out.push(Block::Shuffle(ShuffleBlock {
                    value: e,
                    ..s.clone()
                }));
            }
            for e in shrink_expr(&s.index) {
                out.push(Block::Shuffle(ShuffleBlock {
                    index: e,
                    ..s.clone()
                }));
            }
            if s.want_valid {
                out.push(Block::Shuffle(ShuffleBlock {
                    want_valid: false,
                    ..s.clone()
                }));
            }
            if s.ty != ShflTy::U32 {
                out.push(Block::Shuffle(ShuffleBlock {
                    ty: ShflTy::U32,
                    ..s.clone()
                }));
            }
        }
        Block::Compute(c) => {
            for stmts in shrink_stmts(&c.stmts, 0) {
                out.push(Block::Compute(ComputeBlock { stmts, ..c.clone() }));
            }
            if c.seed != 0 {
                out.push(Block::Compute(ComputeBlock {
                    seed: 0,
                    ..c.clone()
                }));
            }
        }
    }
    out
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
            Expr::Un(op, a) => Expr::Un(*op, Box::new(expr(a, depth))),
            Expr::Bin(op, a, b) => Expr::bin(*op, expr(a, depth), expr(b, depth)),
            Expr::Select(c, a, b) => Expr::Select(
                Box::new(expr(c, depth)),
                Box::new(expr(a, depth)),
                Box::new(expr(b, depth)),
            ),
            Expr::Extract {
                value,
                offset,
                bits,
                signed,
            } => Expr::Extract {
                value: Box::new(expr(value, depth)),
                offset: *offset,
                bits: *bits,
                signed: *signed,
            },
            Expr::Insert {
                base,
                insert,
                offset,
                bits,
            } => Expr::Insert {
                base: Box::new(expr(base, depth)),
                insert: Box::new(expr(insert, depth)),
                offset: *offset,
                bits: *bits,
            },
            leaf => leaf.clone(),
        }
    }
    body.iter()
        .map(|s| match s {
            Stmt::Assign(v, e) => Stmt::Assign(*v, expr(e, depth)),
            Stmt::If(c, a, b) => Stmt::If(expr(c, depth), unloop(a, depth), unloop(b, depth)),
            Stmt::Loop(n, inner) => Stmt::Loop(*n, unloop(inner, depth)),
        })
        .collect()
}

/// Smaller expressions: a child in place of its parent, small constants in place of anything,
/// then one child shrunk.
pub fn shrink_expr(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    match e {
        Expr::Const(c) => {
            out.extend(smaller_values(*c).into_iter().map(Expr::Const));
            return out;
        }
        Expr::Un(_, a) | Expr::Extract { value: a, .. } => out.push((**a).clone()),
        Expr::Bin(_, a, b)
        | Expr::Insert {
            base: a, insert: b, ..
        } => out.extend([(**a).clone(), (**b).clone()]),
        Expr::Select(c, a, b) => out.extend([(**a).clone(), (**b).clone(), (**c).clone()]),
        _ => {}
    }
    out.extend([Expr::Const(0), Expr::Const(1)]);
    match e {
        Expr::Un(op, a) => out.extend(
            shrink_expr(a)
                .into_iter()
                .map(|a| Expr::Un(*op, Box::new(a))),
        ),
        Expr::Bin(op, a, b) => {
            out.extend(
                shrink_expr(a)
                    .into_iter()
                    .map(|a| Expr::bin(*op, a, (**b).clone())),
            );
            out.extend(
                shrink_expr(b)
                    .into_iter()
                    .map(|b| Expr::bin(*op, (**a).clone(), b)),
            );
        }
        Expr::Extract {
            value,
            offset,
            bits,
            signed,
        } => out.extend(shrink_expr(value).into_iter().map(|v| Expr::Extract {
            value: Box::new(v),
            offset: *offset,
            bits: *bits,
            signed: *signed,
        })),
        Expr::Insert {
            base,
            insert,
            offset,
            bits,
        } => {
            let ins = |b: Expr, i: Expr| Expr::Insert {
                base: Box::new(b),
                insert: Box::new(i),
                offset: *offset,
                bits: *bits,
            };
            out.extend(
                shrink_expr(base)
                    .into_iter()
                    .map(|b| ins(b, (**insert).clone())),
            );
            out.extend(
                shrink_expr(insert)
                    .into_iter()
                    .map(|i| ins((**base).clone(), i)),
            );
        }
        Expr::Select(c, a, b) => {
            let sel =
                |c: Expr, a: Expr, b: Expr| Expr::Select(Box::new(c), Box::new(a), Box::new(b));
            out.extend(
                shrink_expr(c)
                    .into_iter()
                    .map(|c| sel(c, (**a).clone(), (**b).clone())),
            );
            out.extend(
                shrink_expr(a)
                    .into_iter()
                    .map(|a| sel((**c).clone(), a, (**b).clone())),
            );
            out.extend(
                shrink_expr(b)
                    .into_iter()
                    .map(|b| sel((**c).clone(), (**a).clone(), b)),
            );
        }
        _ => {}
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
