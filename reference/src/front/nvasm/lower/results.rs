//! NV assembly result operands: the written variable, its write mask and condition-code mask,
//! and the write-back of a computed value (saturation, condition-code mask and update, and
//! the store back of a TEMP array element).

use super::modifiers::Mods;
use super::operands::{
    misplaced_memory_variable, one_component_set, swz_char, undeclared, TEMP_ELEM,
};
use super::{diag, Cx, Res, Sym, R_GRAMMAR};
use crate::ir::{BinOp, CcTest, Dst, Inst, Kind, Reg, ScalarTy, Space, Src, Ty};
use crate::Diagnostic;

/// A parsed instruction result: register, write mask, optional condition-code write mask.
pub(super) struct ResultOperand {
    pub(super) reg: Reg,
    pub(super) mask: u8,
    ccmask: Option<(CcTest, usize, [u8; 4])>,
    /// For a TEMP array element: its private-memory address; `reg` holds a copy of the
    /// element that is stored back after the instruction.
    store_back: Option<Src>,
    /// The variable's name and position, for the checks of its declared type.
    pub(super) name: String,
    pub(super) at: (u32, u32),
}

impl Cx {
    pub(super) fn result(&mut self, op: &str) -> Res<ResultOperand> {
        let (l, c) = self.here();
        let name = self.ident("a result variable")?;
        let mut store_back = None;
        let reg = match self.syms.get(&name).cloned() {
            Some(Sym::Temp(r)) => {
                self.no_member_of_non_array(&name)?;
                r
            }
            Some(Sym::TempArray { base, len }) => {
                let (e, addr) = self.temp_array_elem(&name, base, len, l, c)?;
                store_back = Some(addr);
                e
            }
            Some(s @ (Sym::Shared { .. } | Sym::Storage { .. })) => {
                return Err(misplaced_memory_variable(l, c, &name, &s, "the result", op));
            }
            Some(s) => {
                let w = s.what();
                return Err(diag(l, c, format!("\"{name}\" is {w} and cannot be written; results must be TEMP variables {R_GRAMMAR}")));
            }
            None => {
                if name == "program" || name == "invocation" {
                    return Err(diag(l, c, format!("\"{name}.*\" bindings are read-only; compute programs have no result bindings (NV_compute_program5, \"Program Results\")")));
                }
                return Err(undeclared(l, c, &name));
            }
        };
        let mut mask = 0xF;
        if self.is_sym('.') {
            self.next();
            let (ml, mc) = self.here();
            let s = self.ident("a write mask")?;
            if !one_component_set(&s) && s.chars().all(|ch| swz_char(ch).is_some()) {
                return Err(diag(
                    ml,
                    mc,
                    format!("write mask \".{s}\" mixes xyzw and rgba letters {R_GRAMMAR}"),
                ));
            }
            let mut m = 0u8;
            let mut last: i32 = -1;
            for ch in s.chars() {
                let Some(k) = swz_char(ch) else {
                    return Err(diag(
                        ml,
                        mc,
                        format!("invalid write mask \".{s}\" {R_GRAMMAR}"),
                    ));
                };
                if i32::from(k) <= last {
                    return Err(diag(
                        ml,
                        mc,
                        format!(
                            "write mask \".{s}\" must list components in xyzw order {R_GRAMMAR}"
                        ),
                    ));
                }
                last = i32::from(k);
                m |= 1 << k;
            }
            mask = m;
        }
        let ccmask = if self.eat_sym('(') {
            let t = self.cc_test()?;
            self.expect_sym(')', "to close the condition code mask")?;
            Some(t)
        } else {
            None
        };
        Ok(ResultOperand {
            reg,
            mask,
            ccmask,
            store_back,
            name,
            at: (l, c),
        })
    }

    /// A result operand of an instruction that defines only the components in `defined`:
    /// a write mask reaching the others loads, with the warning `undefined()` (reported as an
    /// `undefined-value` flag).
    pub(super) fn result_defined_in(
        &mut self,
        op: &str,
        defined: u8,
        undefined: impl FnOnce() -> String,
    ) -> Res<ResultOperand> {
        let (l, c) = self.here();
        let r = self.result(op)?;
        if r.mask & !defined != 0 {
            self.warnings.push(Diagnostic {
                line: l,
                column: c,
                message: undefined(),
            });
        }
        Ok(r)
    }

    /// Where to compute an instruction's value: straight into the result, or into a scratch
    /// register when a condition-code mask or update needs the value first.
    pub(super) fn target(&mut self, r: &ResultOperand, m: &Mods) -> Dst {
        if r.ccmask.is_none() && m.cc.is_none() {
            Dst::masked(r.reg, r.mask)
        } else {
            Dst::new(self.scratch())
        }
    }

    /// Finishes an ALU instruction: saturation, condition-code mask, condition-code update.
    fn writeback(&mut self, t: ScalarTy, r: &ResultOperand, m: &Mods, d: Dst) {
        if let Some(ssat) = m.sat {
            // [0, 1] or [-1, 1] in the result's float width (CVT's F16 results included).
            let bits = |x: f32| match t.bits {
                64 => f64::from(x).to_bits(),
                16 => u64::from(crate::exec::values::f32_to_f16(x)),
                _ => u64::from(x.to_bits()),
            };
            let lo = self
                .b
                .interned_constant([bits(if ssat { -1.0 } else { 0.0 }); 4]);
            let hi = self.b.interned_constant([bits(1.0); 4]);
            self.b
                .bin(BinOp::Max, Ty::vec4(t), d, Src::new(d.reg), Src::new(lo));
            self.b
                .bin(BinOp::Min, Ty::vec4(t), d, Src::new(d.reg), Src::new(hi));
        }
        if d.reg == r.reg {
            return;
        }
        let cond = r.ccmask.map(|cc| self.emit_cc_test(cc));
        // Flags are computed before the result is written: the result may alias an operand
        // that the carry/overflow computation reads.
        let carry = self.pending_carry.take();
        let flags = m.cc.map(|_| {
            let f = self.scratch();
            match carry {
                Some((a, b, sub)) if t.kind != Kind::F => self.b.push(Inst::SetCcAdd {
                    ty: Ty::vec4(t),
                    sub,
                    dst: Dst::new(f),
                    a,
                    b,
                }),
                _ => self.b.push(Inst::SetCc {
                    ty: Ty::vec4(t),
                    dst: Dst::new(f),
                    a: Src::new(d.reg),
                }),
            };
            f
        });
        match cond {
            Some(cr) => {
                self.b.select(
                    4,
                    Dst::masked(r.reg, r.mask),
                    Src::new(cr),
                    Src::new(d.reg),
                    Src::new(r.reg),
                );
            }
            None => {
                self.b.mov(Dst::masked(r.reg, r.mask), Src::new(d.reg));
            }
        }
        if let (Some(k), Some(f)) = (m.cc, flags) {
            let ccr = self.cc[k];
            match cond {
                Some(cr) => self.b.select(
                    4,
                    Dst::masked(ccr, r.mask),
                    Src::new(cr),
                    Src::new(f),
                    Src::new(ccr),
                ),
                None => self.b.mov(Dst::masked(ccr, r.mask), Src::new(f)),
            };
        }
    }

    pub(super) fn finish_alu(
        &mut self,
        t: ScalarTy,
        r: &ResultOperand,
        m: &Mods,
        d: Dst,
    ) -> Res<()> {
        self.check_var_type(&r.name, t, true, r.at)?;
        self.writeback(t, r, m, d);
        if let Some(addr) = r.store_back {
            self.b
                .store(Space::Private, TEMP_ELEM, addr, Src::new(r.reg));
        }
        self.end_stmt()
    }
}
