//! Function bodies and the finished program: lowering each function reached from `main` (or,
//! when compiling one shader, every function it defines), the link checks on functions
//! (`main`, undefined callees, recursion), call patching, and the [`Program`] built from it.

use super::global::is_counter_type;
use super::{Diag, Fail, Lower, PQual, Sym, R};
use crate::front::glsl::types::Ty;
use crate::ir::{Function, Inst, Program, Scope};
use std::collections::{HashMap, HashSet};

impl<'a> Lower<'a> {
    fn lower_fn(&mut self, fi: usize) -> R<()> {
        let Some((si, fd)) = self.fns[fi].def else {
            return Ok(());
        };
        self.cur = si;
        self.at(&fd.span);
        let pc = self.b.pc();
        self.fns[fi].pc = Some(pc);
        self.cur_fn = Some(fi);
        self.scopes.truncate(1);
        self.scopes.push(HashMap::new());
        let params = self.fns[fi].params.clone();
        let slots = self.fns[fi].slots.clone();
        for ((ty, q, name), slot) in params.iter().zip(slots) {
            if let Some(n) = name {
                if is_counter_type(ty) {
                    let p = self.counter_parameter(&slot, ty)?;
                    self.declare(n, Sym::Var(p))?;
                    continue;
                }
                if *q == PQual::Out {
                    // out parameters start undefined: 0 here.
                    self.zero_init(&slot);
                }
                self.declare(n, Sym::Var(slot))?;
            }
        }
        for st in &fd.statement.statement_list {
            self.stmt(st)?;
        }
        self.emit(Inst::Return);
        self.scopes.truncate(1);
        self.cur_fn = None;
        Ok(())
    }

    /// Lowers everything: globals, main and every function reachable from it.
    pub fn finish(mut self) -> R<Program> {
        // Entry: global initialisers were emitted by `globals`; then main's body.
        let mains: Vec<usize> = self
            .fn_names
            .get("main")
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|&i| self.fns[i].def.is_some())
            .collect();
        let Some(&main) = mains.first() else {
            if self.link {
                return Err(Fail::Link(Diag {
                    shader: self.shaders.first().map(|s| s.idx).unwrap_or(0),
                    offset: 0,
                    msg: "no function main() defined in the program".into(),
                }));
            }
            // A shader without main compiles (its functions are still checked); nothing runs.
            self.emit(Inst::Return);
            for f in 0..self.fns.len() {
                if self.fns[f].def.is_some() && self.fns[f].pc.is_none() {
                    self.lower_fn(f)?;
                }
            }
            for (pc, _) in self.calls.clone() {
                if let Some(i) = self.b.code.get_mut(pc as usize) {
                    *i = Inst::MemoryBarrier {
                        scope: Scope::Group,
                    };
                }
            }
            return self.build();
        };
        if !self.fns[main].params.is_empty() || self.fns[main].ret != Ty::Void {
            let (s, o) = self.fns[main].decl_off;
            self.cur = s;
            self.off = o;
            return self.err("main must be 'void main()'");
        }
        self.lower_fn(main)?;
        let mut done: HashSet<usize> = HashSet::new();
        done.insert(main);
        if !self.link {
            // Compile mode: every function of the shader is type-checked, called or not.
            for f in 0..self.fns.len() {
                if f != main && self.fns[f].def.is_some() {
                    done.insert(f);
                    self.lower_fn(f)?;
                }
            }
        }
        loop {
            let pending: Vec<usize> = self
                .calls
                .iter()
                .map(|c| c.1)
                .filter(|f| !done.contains(f))
                .collect::<HashSet<_>>()
                .into_iter()
                .collect();
            if pending.is_empty() {
                break;
            }
            let mut pending = pending;
            pending.sort();
            for f in pending {
                done.insert(f);
                if self.fns[f].def.is_none() {
                    if self.link {
                        let (s, o) = self.fns[f].decl_off;
                        return Err(Fail::Link(Diag {
                            shader: self.shaders.get(s).map(|x| x.idx).unwrap_or(0),
                            offset: o,
                            msg: format!(
                                "function '{}' is called but not defined in any shader of the program",
                                self.fns[f].name
                            ),
                        }));
                    }
                    continue;
                }
                self.lower_fn(f)?;
            }
        }
        // Recursion check (static, over the call graph).
        let n = self.fns.len();
        let mut adj = vec![Vec::new(); n];
        for (a, b) in &self.call_edges {
            adj[*a].push(*b);
        }
        let mut state = vec![0u8; n];
        fn dfs(v: usize, adj: &[Vec<usize>], st: &mut [u8]) -> Option<usize> {
            st[v] = 1;
            for &w in &adj[v] {
                if st[w] == 1 {
                    return Some(w);
                }
                if st[w] == 0 {
                    if let Some(x) = dfs(w, adj, st) {
                        return Some(x);
                    }
                }
            }
            st[v] = 2;
            None
        }
        if let Some(f) = dfs(main, &adj, &mut state) {
            let (s, o) = self.fns[f].decl_off;
            self.cur = s;
            self.off = o;
            return self.err(format!(
                "'{}' : recursion is not allowed in GLSL",
                self.fns[f].name
            ));
        }
        // Patch calls.
        for (pc, f) in self.calls.clone() {
            let target = self.fns[f].pc.unwrap_or(0);
            if let Some(Inst::Call { target_pc }) = self.b.code.get_mut(pc as usize) {
                *target_pc = target;
            }
        }
        // Calls to undefined functions in compile-only mode are never run; make them safe.
        for (pc, f) in self.calls.clone() {
            if self.fns[f].pc.is_none() {
                if let Some(i) = self.b.code.get_mut(pc as usize) {
                    *i = Inst::MemoryBarrier {
                        scope: Scope::Group,
                    };
                }
            }
        }
        self.build()
    }

    fn build(self) -> R<Program> {
        let functions = self
            .fns
            .iter()
            .filter_map(|f| {
                f.pc.map(|pc| Function {
                    name: f.name.clone(),
                    start_pc: pc,
                })
            })
            .collect();
        // The storage blocks the code uses (their bindings loaded, stored or atomically
        // updated): the active ones, which must be backed by large enough buffers.
        let used: std::collections::BTreeSet<u32> = self
            .b
            .code
            .iter()
            .flat_map(|i| match i {
                crate::ir::Inst::Load { space, .. }
                | crate::ir::Inst::Store { space, .. }
                | crate::ir::Inst::Atomic { space, .. } => space.storage_bindings(),
                _ => 0..0,
            })
            .collect();
        let storage_blocks = self
            .storage_blocks
            .iter()
            .filter(|(_, b, _)| used.contains(b))
            .map(|(name, binding, min_size)| crate::ir::StorageBlock {
                name: name.clone(),
                binding: *binding,
                min_size: *min_size,
            })
            .collect();
        let mut p = Program {
            code: self.b.code,
            locs: self.b.locs,
            entry_pc: 0,
            functions,
            reg_init: self.b.reg_init,
            group_size: self.group_size,
            variable_group_size: false,
            shared_size: self.shared_top,
            private_size: self.private_top,
            uses: Default::default(),
            uniforms: self.uniform_slots,
            uniform_init: self.uniform_init,
            active_uniforms: self.active.borrow().count(),
            nan_undefined: true,
            storage_blocks,
            aligned_access: false,
        };
        p.compute_uses();
        Ok(p)
    }

    pub fn shared_size(&self) -> u32 {
        self.shared_top
    }
}
