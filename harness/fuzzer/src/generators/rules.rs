//! The rules every program the generator or the reducer hands on keeps ([`Program::check`]),
//! so that its model is exact and every emitter accepts it, and which languages express a tree
//! ([`Lang::expresses`]).
//!
//! They sit above the tree ([`crate::ast`]), the model and the emitters because some consult
//! them: a defined shuffle reads active lanes only (the model's lane math,
//! [`crate::oracles::model::shuffle_reads_inactive`]) and a SPIR-V program must have a SPIR-V form
//! ([`crate::emitters::spirv::expressible`]). Each feature's own rules stay with its node types
//! (`ast::vector::check`, `NarrowBlock::check`, `AtomicMixBlock::check`,
//! `UndefinedBlock::check`).

use crate::ast::*;

impl Lang {
    /// Whether `p`'s tree has a form in this language (the tree's own language aside).
    pub fn expresses(self, p: &Program) -> bool {
        let q = Program {
            lang: self,
            ..p.clone()
        };
        q.check().is_ok()
    }
}

impl Program {
    /// The rules every program the generator or the reducer hands on keeps, so that its
    /// model is exact and both emitters accept it. The first rule broken, if any.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_LOCAL_SIZE).contains(&self.local_size)
            || !(1..=MAX_GROUPS).contains(&self.groups)
        {
            return Err(format!(
                "dispatch {} x {} out of range",
                self.groups, self.local_size
            ));
        }
        if let Some(s) = self.shape {
            let product = |d: [u32; 3]| d.iter().map(|&x| u64::from(x)).product::<u64>();
            if s.local.contains(&0)
                || s.groups.contains(&0)
                || product(s.local) != u64::from(self.local_size)
                || product(s.groups) != u64::from(self.groups)
                || s.local[2] > 64
            {
                return Err(format!("shape {s:?} does not match the dispatch"));
            }
            // Warps are made of consecutive local indices; shuffles stay in x-only groups.
            if self.needs_shuffle() {
                return Err("shuffles run in one-dimensional groups".into());
            }
        }
        // In a partial warp the missing lanes are inactive, and reading one is undefined
        // (specs README, 5): a defined shuffle block reads active lanes only.
        for b in &self.blocks {
            if let Block::Shuffle(s) = b {
                if crate::oracles::model::shuffle_reads_inactive(s, self) {
                    return Err("a shuffle reads an inactive lane of a partial warp".into());
                }
            }
        }
        if self.blocks.is_empty() || self.blocks.len() > MAX_BLOCKS {
            return Err(format!("{} blocks", self.blocks.len()));
        }
        if self.lang == Lang::Spirv {
            crate::emitters::spirv::expressible(self)?;
        }
        let last = self.blocks.len() - 1;
        for (k, b) in self.blocks.iter().enumerate() {
            let leaves = |e: &Expr, allowed: &dyn Fn(&Expr) -> bool| -> Result<(), String> {
                e.walk(&mut |x| match x {
                    Expr::Un(..) | Expr::Bin(..) | Expr::Select(..) => true,
                    Expr::Extract { offset, bits, .. } | Expr::Insert { offset, bits, .. } => {
                        bitfield_ok(*offset, *bits)
                    }
                    Expr::FToI { value, .. } => value.exact(),
                    leaf => allowed(leaf),
                })
                .then_some(())
                .ok_or_else(|| {
                    format!(
                        "an expression of a {} block reads a leaf it cannot",
                        b.feature()
                    )
                })
            };
            let pure = |x: &Expr| matches!(x, Expr::Const(_) | Expr::Lid | Expr::Wg);
            match b {
                Block::FloatAtomic(f) => {
                    if f.operand.abs() > 64 || f.init.abs() > 4096 {
                        return Err("a float atomic's values must stay exact".into());
                    }
                }
                Block::Atomic(a) => {
                    if a.op.nvasm_only() && (self.lang != Lang::Nvasm || a.ty != AtomTy::U32) {
                        return Err(format!(
                            "{} exists for U32 in NV assembly only",
                            a.op.name()
                        ));
                    }
                    if matches!(a.operand, Operand::PerInvocation { .. }) && !a.op.commutes() {
                        return Err(format!(
                            "{} with per-invocation operands depends on the order",
                            a.op.name()
                        ));
                    }
                    if let Guard::Every { m, r } = a.guard {
                        if m < 2 || r >= m {
                            return Err("guard Every needs m >= 2 and r < m".into());
                        }
                    }
                }
                Block::Section(s) => {
                    leaves(&s.payload, &|x| matches!(x, Expr::Const(_) | Expr::Ticket))?
                }
                Block::Exchange(x) => leaves(&x.value, &pure)?,
                Block::AtomicMix(m) => m.check()?,
                Block::Narrow(n) => {
                    leaves(&n.value, &pure)?;
                    n.check(self)?;
                }
                Block::Shuffle(s) => {
                    leaves(&s.value, &pure)?;
                    leaves(&s.index, &|x| matches!(x, Expr::Const(_) | Expr::Lid))?;
                    if s.ty == ShflTy::Bool && self.lang != Lang::Glsl {
                        return Err("bool shuffles exist in GLSL only".into());
                    }
                    if self.lang == Lang::Glsl
                        && !(s.width.is_power_of_two() && (2..=32).contains(&s.width))
                    {
                        return Err(format!("shuffle width {} is undefined", s.width));
                    }
                }
                Block::Undefined(u) => {
                    if k != last {
                        return Err("an undefined-behaviour block must be the last".into());
                    }
                    u.check(self)?;
                }
                Block::Vector(v) => crate::ast::vector::check(v)?,
                Block::Subgroup(s) => s.check(self)?,
                Block::Compute(c) => {
                    check_stmts(&c.stmts, 0, false)?;
                    if self.lang != Lang::Spirv {
                        let mut only = None;
                        for s in &c.stmts {
                            s.walk_exprs(&mut |e| {
                                e.walk(&mut |x| {
                                    if let Expr::Bin(op, ..) = x {
                                        if op.spirv_only() {
                                            only = Some(op.name());
                                        }
                                    }
                                    true
                                });
                            });
                        }
                        if let Some(op) = only {
                            return Err(format!(
                                "{op} is defined on negative operands in SPIR-V only"
                            ));
                        }
                    }
                    if u64::from(self.invocations()).saturating_mul(trips(&c.stmts)) > MAX_WORK {
                        return Err("a compute block does too much work for the reference".into());
                    }
                }
            }
        }
        Ok(())
    }
}

/// Calls nested at most [`MAX_NESTING`] deep.
fn calls_nest(stmts: &[Stmt], depth: usize) -> Result<(), String> {
    if depth > MAX_NESTING {
        return Err("calls nested too deep".into());
    }
    for s in stmts {
        match s {
            Stmt::Call(b) => calls_nest(b, depth + 1)?,
            Stmt::If(_, a, b) => {
                calls_nest(a, depth)?;
                calls_nest(b, depth)?
            }
            Stmt::Loop(_, b) => calls_nest(b, depth)?,
            _ => {}
        }
    }
    Ok(())
}

/// `branch`: whether `stmts` is the then-branch of an `if` (where a last `break` or `continue`
/// may stand, inside a loop: the else-branch always reaches the `if`'s end, which keeps every
/// SPIR-V merge block reachable).
fn check_stmts(stmts: &[Stmt], loops: usize, branch: bool) -> Result<(), String> {
    if loops > MAX_NESTING {
        return Err("statements nested too deep".into());
    }
    let expr_ok = |e: &Expr| {
        e.walk(&mut |x| match x {
            Expr::LoopIdx(d) => usize::from(*d) < loops,
            Expr::LocalId(d) | Expr::GroupId(d) => *d < 3,
            Expr::Var(v) => usize::from(*v) < VARS,
            Expr::Ticket => false,
            Expr::Extract { offset, bits, .. } | Expr::Insert { offset, bits, .. } => {
                bitfield_ok(*offset, *bits)
            }
            Expr::FToI { value, .. } => value.exact(),
            Expr::Wide(w) => crate::ast::wide::has_form(w.op),
            Expr::Clamp {
                lo, hi, signed: s, ..
            } => {
                if *s {
                    *lo as i32 <= *hi as i32
                } else {
                    lo <= hi
                }
            }
            _ => true,
        })
    };
    for (i, s) in stmts.iter().enumerate() {
        let ok = match s {
            Stmt::Assign(v, e) => usize::from(*v) < VARS && expr_ok(e),
            Stmt::If(c, a, b) => {
                check_stmts(a, loops, true)?;
                check_stmts(b, loops, false)?;
                expr_ok(c)
            }
            Stmt::Loop(_, body) => {
                check_stmts(body, loops + 1, false)?;
                true
            }
            // A function body starts without loops; nesting still counts towards the limit
            // (every language's call depth and loop stack are far deeper).
            Stmt::Call(body) => {
                check_stmts(body, 0, false)?;
                calls_nest(body, 1)?;
                true
            }
            Stmt::Break | Stmt::Continue => {
                if loops == 0 || !branch || i + 1 != stmts.len() {
                    return Err(
                        "break and continue stand last in a branch of an if inside a loop".into(),
                    );
                }
                true
            }
        };
        if !ok {
            return Err(
                "a compute statement reads a variable or loop index that does not exist, \
                 or clamps to an empty range"
                    .into(),
            );
        }
    }
    Ok(())
}
