//! Statements: blocks and scopes, if/else, loops (while, do-while, for; a one-trip wrapper loop
//! where `continue` must reach the post-expression or condition), jumps, and switch (a one-trip
//! loop over the case segments, with fall-through).

use super::{Frame, Lower, R, V};
use crate::front::glsl::types::Ty;
use crate::ir::{CmpOp, Dst, Inst, Reg, ScalarTy, Src, Ty as ITy, UnOp};
use glsl_lang::ast::{self, StatementData};
use std::collections::{HashMap, HashSet};

impl<'a> Lower<'a> {
    fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        self.scopes.push(HashMap::new());
        let r = f(self);
        self.scopes.pop();
        r
    }

    pub(super) fn stmt(&mut self, s: &ast::Statement) -> R<()> {
        self.at(&s.span);
        match &**s {
            StatementData::Declaration(d) => self.local_decl(d),
            StatementData::Expression(e) => {
                if let Some(e) = &e.0 {
                    self.expr(e)?;
                }
                Ok(())
            }
            StatementData::Selection(sel) => {
                let c = self.bool_rv(&sel.cond)?;
                let ifpc = self.b.open_if(c.src);
                match &*sel.rest {
                    ast::SelectionRestStatementData::Statement(t) => {
                        self.scoped(|s| s.stmt(t))?;
                        self.b.close_if(ifpc, None);
                    }
                    ast::SelectionRestStatementData::Else(t, e) => {
                        self.scoped(|s| s.stmt(t))?;
                        let epc = self.b.open_else(ifpc);
                        self.scoped(|s| s.stmt(e))?;
                        self.b.close_if(ifpc, Some(epc));
                    }
                }
                Ok(())
            }
            StatementData::Switch(sw) => self.switch(sw),
            StatementData::CaseLabel(_) => self.err("case label outside a switch"),
            StatementData::Iteration(it) => self.scoped(|s| s.iteration(it)),
            StatementData::Jump(j) => self.jump(j),
            StatementData::Compound(c) => self.scoped(|s| {
                for st in &c.statement_list {
                    s.stmt(st)?;
                }
                Ok(())
            }),
        }
    }

    fn condition(&mut self, c: &ast::Condition) -> R<V> {
        match &**c {
            ast::ConditionData::Expr(e) => self.bool_rv(e),
            ast::ConditionData::Assignment(ty, id, init) => {
                let t = self.resolve_fst(ty)?;
                let p = self.new_var(id.as_str(), &t)?;
                let ast::InitializerData::Simple(e) = &**init else {
                    return self.err("initializer list in a condition");
                };
                let v = self.expr(e)?;
                let v = self.implicit_value(v, &t)?;
                self.store(&p, v)?;
                let v = self.load_v(&p)?;
                if v.ty != Ty::BOOL {
                    return self.err("condition must be a bool");
                }
                Ok(v)
            }
        }
    }

    /// Emits `if (!c) break;` for a loop condition.
    fn break_unless(&mut self, c: V) {
        if let Some(k) = c.k {
            if k[0] != 0 {
                return;
            }
        }
        let n = self.un(UnOp::Not, c);
        self.b.guarded(n.src, Inst::Break);
    }

    /// Runs `body` inside a wrapper loop so `continue` reaches what follows it.
    fn wrapped_body(&mut self, body: &ast::Statement) -> R<()> {
        // pending == 1: the body asked to break the user loop.
        let c = self.one_trip(|pending| Frame::Body { pending }, |s| s.stmt(body), 1)?;
        self.b.guarded(c, Inst::Break);
        Ok(())
    }

    /// Runs `body` (in a scope of its own) inside a one-trip loop, which a `break` leaves, with
    /// `frame(pending)` pushed: a jump out of the body sets the register `pending` (0 on entry)
    /// to tell the code after the loop what to do next. Returns the bool `pending == code`.
    fn one_trip(
        &mut self,
        frame: impl FnOnce(Reg) -> Frame,
        body: impl FnOnce(&mut Self) -> R<()>,
        code: u64,
    ) -> R<Src> {
        let pending = self.tmp();
        let z = self.konst([0; 4]);
        self.b.mov(Dst::masked(pending, 1), Src::new(z));
        let one = self.konst([1, 0, 0, 0]);
        let lp = self.b.open_loop(Some(Src::new(one)));
        self.frames.push(frame(pending));
        let r = self.scoped(body);
        self.frames.pop();
        r?;
        self.b.close_loop(lp);
        let k = self.konst([code, 0, 0, 0]);
        let u32t = ITy::new(ScalarTy::U32, 1);
        let c = self
            .b
            .cmp_fresh(CmpOp::Eq, u32t, Src::new(pending), Src::new(k));
        Ok(Src::new(c))
    }

    fn iteration(&mut self, it: &ast::IterationStatement) -> R<()> {
        match &**it {
            ast::IterationStatementData::While(c, body) => {
                let lp = self.b.open_loop(None);
                let cv = self.condition(c)?;
                self.break_unless(cv);
                self.frames.push(Frame::Loop);
                let r = self.scoped(|s| s.stmt(body));
                self.frames.pop();
                r?;
                self.b.close_loop(lp);
                Ok(())
            }
            ast::IterationStatementData::DoWhile(body, c) => {
                let lp = self.b.open_loop(None);
                if has_continue(body) {
                    self.frames.push(Frame::Loop);
                    let r = self.wrapped_body(body);
                    self.frames.pop();
                    r?;
                } else {
                    self.frames.push(Frame::Loop);
                    let r = self.scoped(|s| s.stmt(body));
                    self.frames.pop();
                    r?;
                }
                let cv = self.bool_rv(c)?;
                self.break_unless(cv);
                self.b.close_loop(lp);
                Ok(())
            }
            ast::IterationStatementData::For(init, rest, body) => {
                match &**init {
                    ast::ForInitStatementData::Expression(Some(e)) => {
                        self.expr(e)?;
                    }
                    ast::ForInitStatementData::Expression(None) => {}
                    ast::ForInitStatementData::Declaration(d) => self.local_decl(d)?,
                }
                let lp = self.b.open_loop(None);
                if let Some(c) = &rest.condition {
                    let cv = self.condition(c)?;
                    self.break_unless(cv);
                }
                self.frames.push(Frame::Loop);
                let r = if rest.post_expr.is_some() && has_continue(body) {
                    self.wrapped_body(body)
                } else {
                    self.scoped(|s| s.stmt(body))
                };
                self.frames.pop();
                r?;
                if let Some(p) = &rest.post_expr {
                    self.expr(p)?;
                }
                self.b.close_loop(lp);
                Ok(())
            }
        }
    }

    fn jump(&mut self, j: &ast::JumpStatement) -> R<()> {
        match &**j {
            ast::JumpStatementData::Break => match self.frames.last().copied() {
                None => self.err("break outside a loop or switch"),
                Some(Frame::Loop) | Some(Frame::Switch { .. }) => {
                    self.emit(Inst::Break);
                    Ok(())
                }
                Some(Frame::Body { pending }) => {
                    let one = self.konst([1, 0, 0, 0]);
                    self.b.mov(Dst::masked(pending, 1), Src::new(one));
                    self.emit(Inst::Break);
                    Ok(())
                }
            },
            ast::JumpStatementData::Continue => {
                // Find the innermost loop-ish frame.
                match self.frames.last().copied() {
                    None => self.err("continue outside a loop"),
                    Some(Frame::Loop) => {
                        self.emit(Inst::Continue);
                        Ok(())
                    }
                    Some(Frame::Body { .. }) => {
                        self.emit(Inst::Break);
                        Ok(())
                    }
                    Some(Frame::Switch { pending }) => {
                        if !self
                            .frames
                            .iter()
                            .any(|f| matches!(f, Frame::Loop | Frame::Body { .. }))
                        {
                            return self.err("continue outside a loop");
                        }
                        let two = self.konst([2, 0, 0, 0]);
                        self.b.mov(Dst::masked(pending, 1), Src::new(two));
                        self.emit(Inst::Break);
                        Ok(())
                    }
                }
            }
            ast::JumpStatementData::Return(e) => {
                let Some(fi) = self.cur_fn else {
                    return self.err("return outside a function");
                };
                let ret = self.fns[fi].ret.clone();
                match (e, &ret) {
                    (None, Ty::Void) => {}
                    (Some(_), Ty::Void) => return self.err("void function cannot return a value"),
                    (None, _) => return self.err("non-void function must return a value"),
                    (Some(e), _) => {
                        let v = self.expr(e)?;
                        let v = self.implicit_value(v, &ret)?;
                        if let Some(slot) = self.fns[fi].ret_slot.clone() {
                            self.store(&slot.writable(), v)?;
                        }
                    }
                }
                self.emit(Inst::Return);
                Ok(())
            }
            ast::JumpStatementData::Discard => {
                self.err("discard is only allowed in fragment shaders")
            }
        }
    }

    fn switch(&mut self, sw: &ast::SwitchStatement) -> R<()> {
        let sel = self.rv(&sw.head)?;
        if sel.ty != Ty::INT && sel.ty != Ty::UINT {
            return self.err("switch selector must be a scalar int or uint");
        }
        let sel = self.snap(sel);
        // Segments: statements between labels. label -> segment index.
        let mut labels: Vec<(Option<V>, u32)> = Vec::new();
        let mut seg = 0u32;
        let mut segs: Vec<Vec<&ast::Statement>> = vec![Vec::new()];
        let mut seen_vals: HashSet<u64> = HashSet::new();
        let mut have_default = false;
        for st in &sw.body {
            if let StatementData::CaseLabel(cl) = &**st {
                self.at(&st.span);
                if !segs[seg as usize].is_empty() || !labels.is_empty() {
                    seg += 1;
                    segs.push(Vec::new());
                }
                match &**cl {
                    ast::CaseLabelData::Case(e) => {
                        let v = self.rv(e)?;
                        let v = self.implicit(v, &sel.ty)?;
                        let Some(k) = v.k else {
                            return self.err("case label must be a constant integral expression");
                        };
                        if !seen_vals.insert(k[0]) {
                            return self.err("duplicate case label");
                        }
                        labels.push((Some(v), seg));
                    }
                    ast::CaseLabelData::Def => {
                        if have_default {
                            return self.err("duplicate default label");
                        }
                        have_default = true;
                        labels.push((None, seg));
                    }
                }
            } else {
                if labels.is_empty() {
                    return self.err("statement before the first case label of a switch");
                }
                segs[seg as usize].push(st);
            }
        }
        // entered = first matching label's segment, else default's, else none.
        let none = u64::from(u32::MAX);
        let def = labels
            .iter()
            .find(|l| l.0.is_none())
            .map(|l| u64::from(l.1))
            .unwrap_or(none);
        let entered = self.tmp();
        let dk = self.konst([def, 0, 0, 0]);
        self.b.mov(Dst::masked(entered, 1), Src::new(dk));
        for (v, s) in labels.iter().rev() {
            if let Some(v) = v {
                let c = self.cmp(CmpOp::Eq, sel.clone(), v.clone());
                let sk = self.konst([u64::from(*s), 0, 0, 0]);
                let dst = Dst::masked(entered, 1);
                self.b
                    .select(1, dst, c.src, Src::new(sk), Src::new(entered));
            }
        }
        let segments = |s: &mut Self| {
            for (i, stmts) in segs.iter().enumerate() {
                if stmts.is_empty() {
                    continue;
                }
                let ik = s.konst([i as u64, 0, 0, 0]);
                let u32t = ITy::new(ScalarTy::U32, 1);
                let c =
                    s.b.cmp_fresh(CmpOp::Le, u32t, Src::new(entered), Src::new(ik));
                let ifpc = s.b.open_if(Src::new(c));
                for st in stmts {
                    s.stmt(st)?;
                }
                s.b.close_if(ifpc, None);
            }
            Ok(())
        };
        // pending == 2: a `continue` inside the switch.
        let c = self.one_trip(|pending| Frame::Switch { pending }, segments, 2)?;
        let needs = segs.iter().flatten().any(|s| has_continue(s));
        if needs {
            let ifpc = self.b.open_if(c);
            self.jump(&ast::JumpStatementData::Continue.into())?;
            self.b.close_if(ifpc, None);
        }
        Ok(())
    }
}

fn has_continue(s: &ast::Statement) -> bool {
    use glsl_lang::visitor::{Host, Visit, Visitor};
    struct F(bool);
    impl Visitor for F {
        fn visit_jump_statement(&mut self, j: &ast::JumpStatement) -> Visit {
            if matches!(**j, ast::JumpStatementData::Continue) {
                self.0 = true;
            }
            Visit::Children
        }
    }
    let mut f = F(false);
    s.visit(&mut f);
    f.0
}
