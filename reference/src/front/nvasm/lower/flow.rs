//! NV assembly flow control: IF/ELSE/ENDIF, REP/ENDREP (with the nesting limit), BRK/CONT,
//! labels and CAL/RET, BAR/MEMBAR, and the open-block stack they share.

use super::modifiers::Mods;
use super::operands::component;
use super::{diag, Cx, Res, R_FLOW};
use crate::front::nvasm::FrontError;
use crate::ir::{BinOp, Dst, Inst, Kind, Reg, ScalarTy, Scope, Src, Ty, UnOp};
use crate::LIMITS;

pub(super) struct IfFrame {
    if_pc: u32,
    else_pc: Option<u32>,
    line: u32,
}

pub(super) enum Block {
    If(IfFrame),
    Rep(RepFrame),
}

pub(super) struct RepFrame {
    pc: u32,
    line: u32,
    counted: bool,
    has_brk: bool,
    col: u32,
}

impl Block {
    /// The keyword that opened the block, and its line.
    pub(super) fn opened(&self) -> (&'static str, u32) {
        match self {
            Block::If(f) => ("IF", f.line),
            Block::Rep(r) => ("REP", r.line),
        }
    }
}

/// The load failure of `closer` (ENDIF, ENDREP) when the innermost open block is not the
/// `opener` block it closes.
fn unmatched_close(
    l: u32,
    c: u32,
    closer: &str,
    opener: &str,
    innermost: Option<Block>,
) -> FrontError {
    let message = match innermost {
        Some(b) => {
            let (what, line) = b.opened();
            format!(
                "{closer} closes the {what} opened at line {line} (expected END{what}) {R_FLOW}"
            )
        }
        None => format!("{closer} without a matching {opener} {R_FLOW}"),
    };
    diag(l, c, message)
}

impl Cx {
    /// Emits `inst`, guarded by a condition register when one is given.
    fn guarded(&mut self, cond: Option<Reg>, inst: Inst) -> u32 {
        match cond {
            None => self.b.push(inst),
            Some(cr) => self.b.guarded(Src::splat(cr, 0), inst),
        }
    }

    /// A label `name:` (at `line`, `col`) starting a subroutine.
    pub(super) fn label(&mut self, name: &str, line: u32, col: u32) -> Res<()> {
        if !self.blocks.is_empty() {
            return Err(diag(
                line,
                col,
                format!("label \"{name}\" inside an IF or REP block: subroutines may not nest or overlap {R_FLOW}"),
            ));
        }
        // "as though an unconditional RET were inserted immediately before the
        // instruction label" (NV_gpu_program4, CAL).
        self.b.push(Inst::Return);
        if self.labels.insert(name.to_string(), self.b.pc()).is_some() {
            return Err(diag(
                line,
                col,
                format!("label \"{name}\" is defined twice {R_FLOW}"),
            ));
        }
        Ok(())
    }

    pub(super) fn flow(&mut self, op: &'static str, m: &Mods) -> Res<()> {
        let (l, c) = self.cur_loc;
        match op {
            "IF" => {
                // NV_gpu_program4 2.X.5: "a program will fail to load if an IF instruction is
                // nested inside MAX_PROGRAM_IF_DEPTH_NV or more IF/ELSE/ENDIF blocks" (the IF
                // section's "number of IF/ENDIF blocks nested inside each other is
                // MAX_PROGRAM_IF_DEPTH_NV or higher" is one level stricter; the reference reads
                // 2.X.5, as for REP).
                let depth = self
                    .blocks
                    .iter()
                    .filter(|b| matches!(b, Block::If(_)))
                    .count();
                if depth >= LIMITS.max_if_depth as usize {
                    return Err(diag(l, c, format!("IF nested inside {depth} IF/ELSE/ENDIF blocks, MAX_PROGRAM_IF_DEPTH_NV ({}) or more (NV_gpu_program4, section 2.X.5)", LIMITS.max_if_depth)));
                }
                let cc = self.cc_test()?;
                let cr = self.emit_cc_any(cc);
                let pc = self.b.open_if(Src::splat(cr, 0));
                self.blocks.push(Block::If(IfFrame {
                    if_pc: pc,
                    else_pc: None,
                    line: l,
                }));
            }
            "ELSE" => match self.blocks.last_mut() {
                Some(Block::If(f)) if f.else_pc.is_none() => {
                    f.else_pc = Some(self.b.open_else(f.if_pc));
                }
                Some(Block::If(_)) => {
                    return Err(diag(l, c, format!("second ELSE in one IF block {R_FLOW}")))
                }
                _ => return Err(diag(l, c, format!("ELSE without a matching IF {R_FLOW}"))),
            },
            "ENDIF" => match self.blocks.pop() {
                Some(Block::If(f)) => {
                    self.b.close_if(f.if_pc, f.else_pc);
                }
                other => return Err(unmatched_close(l, c, "ENDIF", "IF", other)),
            },
            "REP" => {
                let depth = self
                    .blocks
                    .iter()
                    .filter(|b| matches!(b, Block::Rep(_)))
                    .count();
                // NV_gpu_program4 2.X.5: "a program will fail to load if a REP instruction is
                // nested inside MAX_PROGRAM_LOOP_DEPTH_NV or more REP/ENDREP blocks".
                if depth >= LIMITS.max_loop_depth as usize {
                    return Err(diag(l, c, format!("REP nested inside {depth} REP/ENDREP blocks, MAX_PROGRAM_LOOP_DEPTH_NV ({}) or more (NV_gpu_program4, section 2.X.5)", LIMITS.max_loop_depth)));
                }
                let count = if self.is_sym(';') {
                    None
                } else {
                    let t = self.op_type("REP", m)?;
                    let a = component(self.src(t, "REP")?, 0);
                    let s = self.scratch();
                    if t.kind == Kind::U {
                        // Unsigned counts above i32::MAX are clamped to i32::MAX.
                        let k = self.b.interned_constant([0x7fff_ffff; 4]);
                        self.b.bin(
                            BinOp::Min,
                            Ty::new(ScalarTy::new(Kind::U, t.bits), 1),
                            Dst::new(s),
                            a,
                            Src::new(k),
                        );
                    } else {
                        // A floating-point count is floored, then converted.
                        let a = if t.kind == Kind::F {
                            self.unary_to_scratch(UnOp::Floor, Ty::new(t, 1), a)
                        } else {
                            a
                        };
                        self.b.convert(t, ScalarTy::S32, 1, Dst::new(s), a);
                    }
                    Some(Src::splat(s, 0))
                };
                let counted = count.is_some();
                let pc = self.b.open_loop(count);
                self.blocks.push(Block::Rep(RepFrame {
                    pc,
                    line: l,
                    counted,
                    has_brk: false,
                    col: c,
                }));
            }
            "ENDREP" => match self.blocks.pop() {
                Some(Block::Rep(r)) => {
                    self.b.close_loop(r.pc);
                    if !r.counted && !r.has_brk {
                        self.unbounded.push((r.line, r.col));
                    }
                }
                other => return Err(unmatched_close(l, c, "ENDREP", "REP", other)),
            },
            "BRK" | "CONT" => {
                let Some(pos) = self.blocks.iter().rposition(|b| matches!(b, Block::Rep(_))) else {
                    return Err(diag(
                        l,
                        c,
                        format!("{op} outside a REP/ENDREP block {R_FLOW}"),
                    ));
                };
                if op == "BRK" {
                    if let Block::Rep(r) = &mut self.blocks[pos] {
                        r.has_brk = true;
                    }
                }
                let cond = self.optional_cc()?;
                self.guarded(
                    cond,
                    if op == "BRK" {
                        Inst::Break
                    } else {
                        Inst::Continue
                    },
                );
            }
            "BAR" => {
                self.b.push(Inst::ControlBarrier);
            }
            "MEMBAR" => {
                self.b.push(Inst::MemoryBarrier {
                    scope: if m.cta { Scope::Group } else { Scope::Device },
                });
            }
            "CAL" => {
                let (ll, lc) = self.here();
                let label = self.ident("a label")?;
                let cond = self.optional_cc()?;
                let at = self.guarded(cond, Inst::Call { target_pc: 0 });
                self.calls.push((at, label, ll, lc));
            }
            _ => {
                self.has_ret = true;
                let cond = self.optional_cc()?;
                self.guarded(cond, Inst::Return);
            }
        }
        self.end_stmt()
    }
}
