//! NV assembly memory instructions: LDB/STB/ATOMB on STORAGE variables and LDS/STS/ATOMS on
//! SHARED variables, their storage and atomic modifier rules, and their address operands.

use super::modifiers::{atomic_name, parse_storage, storage_name, Mods};
use super::operands::component;
use super::{diag, Cx, Res, Sym, R_AFLOAT, R_ATOMS, R_GRAMMAR, R_SHARED_VARS, R_SSBO};
use crate::ir::{AtomicOp, Dst, Inst, MemTy, ScalarTy, Space, Src};

fn atomic_allowed(op: AtomicOp, st: ScalarTy, afloat: bool, aint64: bool) -> bool {
    let (u32_, s32, u64_, s64, f32_) = (
        ScalarTy::U32,
        ScalarTy::S32,
        ScalarTy::U64,
        ScalarTy::S64,
        ScalarTy::F32,
    );
    let base: &[ScalarTy] = match op {
        AtomicOp::Add | AtomicOp::Exch | AtomicOp::CmpXchg => &[u32_, s32, u64_],
        AtomicOp::Min | AtomicOp::Max | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => {
            &[u32_, s32]
        }
        AtomicOp::IWrap | AtomicOp::DWrap => &[u32_],
    };
    if base.contains(&st) {
        return true;
    }
    if afloat && st == f32_ && matches!(op, AtomicOp::Add | AtomicOp::Exch) {
        return true;
    }
    aint64 && (st == u64_ || st == s64) && !matches!(op, AtomicOp::IWrap | AtomicOp::DWrap)
}

impl Cx {
    /// The memory operand `var[...]` of LDB/STB/ATOMB/LDS/STS/ATOMS accessing `size` bytes:
    /// its space, and its byte address (emitted when it has a register part).
    fn memory_operand(&mut self, op: &'static str, shared: bool, size: u32) -> Res<(Space, Src)> {
        let (l, c) = self.here();
        let name = self.ident(if shared {
            "a shared memory variable"
        } else {
            "a storage buffer variable"
        })?;
        let (space, base) = match (self.syms.get(&name), shared) {
            (Some(Sym::Shared { base }), true) => (Space::Shared, i64::from(*base)),
            (Some(Sym::Storage { binding, base }), false) => (
                Space::Storage(*binding),
                i64::try_from(*base).unwrap_or(i64::MAX),
            ),
            (s, true) => {
                let what = s.map(|s| s.what()).unwrap_or("not declared");
                return Err(diag(l, c, format!("the memory operand of {op} must be a shared memory variable declared with SHARED; \"{name}\" is {what} {R_SHARED_VARS}")));
            }
            (s, false) => {
                let what = s.map(|s| s.what()).unwrap_or("not declared");
                return Err(diag(l, c, format!("the memory operand of {op} must be a storage buffer variable declared with STORAGE; \"{name}\" is {what} {R_SSBO}")));
            }
        };
        let (dynamic, k) = if self.is_sym('[') {
            self.index()?
        } else {
            (None, 0)
        };
        let offset = base.saturating_add(k);
        if dynamic.is_none() && offset < 0 {
            return Err(diag(
                l,
                c,
                format!("{op} offset {offset} is negative {R_GRAMMAR}"),
            ));
        }
        if shared && offset >= 0 {
            self.shared_ends
                .push((l, c, op, offset.saturating_add(i64::from(size))));
        }
        // The offset's constant part (including the variable's base) in 32-bit arithmetic,
        // plus the register component of a relative index.
        let k = (offset as u64) & 0xffff_ffff;
        let addr = match dynamic {
            None => Src::new(self.b.interned_constant([k, 0, 0, 0])),
            Some(d) if k == 0 => d,
            Some(d) => Src::new(self.plus_constant(d, offset)),
        };
        Ok((space, addr))
    }

    pub(super) fn memory(&mut self, op: &'static str, m: &Mods, l: u32, c: u32) -> Res<()> {
        let shared = op.ends_with('S');
        if shared && self.first_shared_use.is_none() {
            self.first_shared_use = Some((l, c, op));
        }
        if !shared && self.first_ssbo_use.is_none() {
            self.first_ssbo_use = Some((l, c, op));
        }
        let rule = if shared { R_ATOMS } else { R_SSBO };
        let atomic = op.starts_with("ATOM");
        if atomic && m.atomic.is_none() {
            return Err(diag(l, c, format!("{op} requires an atomic modifier (ADD, MIN, MAX, IWRAP, DWRAP, AND, OR, XOR, EXCH or CSWAP) {rule}")));
        }
        if m.storage.len() != 1 {
            let msg = if m.storage.is_empty() {
                format!("{op} requires exactly one storage modifier (U32, S32, F32, ...), found none {rule}")
            } else {
                format!(
                    "{op} requires exactly one storage modifier, found {} ({}) {rule}",
                    m.storage.len(),
                    m.storage
                        .iter()
                        .map(|t| storage_name(*t))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(diag(l, c, msg));
        }
        let st = m.storage[0];
        if let Some(aop) = m.atomic {
            let sname = storage_name(st);
            let aname = atomic_name(aop);
            if st.lanes != 1 || !atomic_allowed(aop, st.scalar, self.opt_afloat, self.opt_aint64) {
                if st == MemTy::new(ScalarTy::F32, 1)
                    && matches!(aop, AtomicOp::Add | AtomicOp::Exch)
                {
                    return Err(diag(l, c, format!("{op}.{aname}.F32 requires \"OPTION NV_shader_atomic_float;\" {R_AFLOAT}")));
                }
                let allowed: Vec<&str> = ["U32", "S32", "U64", "S64", "F32"]
                    .into_iter()
                    .filter(|n| {
                        parse_storage(n).is_some_and(|t| {
                            atomic_allowed(aop, t.scalar, self.opt_afloat, self.opt_aint64)
                        })
                    })
                    .collect();
                return Err(diag(l, c, format!("storage modifier {sname} is not allowed with {op}.{aname}; allowed: {} {rule}", allowed.join(", "))));
            }
        }
        let rt = st.reg_scalar();
        match op {
            "LDB" | "LDS" => {
                let r = self.result(op)?;
                let d = self.target(&r, m);
                self.comma(op)?;
                let (space, addr) = self.memory_operand(op, shared, st.size())?;
                let lanes_mask = ((1u16 << st.lanes) - 1) as u8;
                self.b
                    .load(space, st, Dst::masked(d.reg, d.mask & lanes_mask), addr);
                if d.mask & !lanes_mask != 0 {
                    let z = self.b.interned_constant([0; 4]);
                    self.b
                        .mov(Dst::masked(d.reg, d.mask & !lanes_mask), Src::new(z));
                }
                self.finish_alu(rt, &r, m, d)
            }
            "STB" | "STS" => {
                let v = self.src(rt, op)?;
                self.comma(op)?;
                let (space, addr) = self.memory_operand(op, shared, st.size())?;
                self.b.store(space, st, addr, v);
                self.end_stmt()
            }
            _ => {
                let aop = m.atomic.unwrap_or(AtomicOp::Add);
                let r = self.result_defined_in(op, 0x1, || format!("{op} result written to .y/.z/.w, which the specification leaves undefined (NV_compute_program5, \"ATOMS\"); the reference writes the old value there too"))?;
                let d = self.target(&r, m);
                self.comma(op)?;
                let v = self.src(rt, op)?;
                self.comma(op)?;
                let (space, addr) = self.memory_operand(op, shared, st.size())?;
                // A scalar result ("s" in the opcode table): replicated to every component.
                let s = self.scratch();
                self.b.push(Inst::Atomic {
                    space,
                    op: aop,
                    ty: st.scalar,
                    dst: Some(Dst::masked(s, 1)),
                    addr,
                    a: component(v, 0),
                    b: component(v, 1),
                });
                self.b.mov(d, Src::splat(s, 0));
                self.finish_alu(rt, &r, m, d)
            }
        }
    }
}
