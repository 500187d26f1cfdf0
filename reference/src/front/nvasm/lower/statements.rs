//! The statement loop of the NV assembly lowerer: labels, END, and the dispatch of each
//! statement to its declaration, instruction or flow-control handler, with the opcode table
//! (instructions the reference does not model, instructions not available to compute programs).

use super::{diag, unsupported, upper, Cx, Res, R_DECL, R_FLOW, R_GRAMMAR, R_INSTR};
use crate::front::nvasm::lexer::Tok;
use crate::ir::{Inst, Scope};
use crate::LIMITS;

impl Cx {
    // ----- program -----
    pub(super) fn parse_program(&mut self) -> Res<()> {
        loop {
            let t = self.peek().clone();
            self.cur_loc = (t.line, t.col);
            self.scratch_next = 0;
            match &t.tok {
                Tok::Eof => {
                    return Err(diag(
                        t.line,
                        t.col,
                        format!("missing END at the end of the program {R_GRAMMAR}"),
                    ));
                }
                Tok::Ident(name) => {
                    if self.peek_at(1) == &Tok::Sym(':') {
                        self.next();
                        self.next();
                        if !self.blocks.is_empty() {
                            return Err(diag(
                                t.line,
                                t.col,
                                format!("label \"{name}\" inside an IF or REP block: subroutines may not nest or overlap {R_FLOW}"),
                            ));
                        }
                        // "as though an unconditional RET were inserted immediately before the
                        // instruction label" (NV_gpu_program4, CAL).
                        self.emit(Inst::Return);
                        if self.labels.insert(name.clone(), self.b.pc()).is_some() {
                            return Err(diag(
                                t.line,
                                t.col,
                                format!("label \"{name}\" is defined twice {R_FLOW}"),
                            ));
                        }
                        continue;
                    }
                    let up = upper(name);
                    if up == "END" {
                        self.next();
                        self.emit(Inst::Exit);
                        return Ok(());
                    }
                    self.statement(&up)?;
                }
                other => {
                    let d = Self::describe(other);
                    return Err(diag(
                        t.line,
                        t.col,
                        format!("expected a statement, found {d} {R_GRAMMAR}"),
                    ));
                }
            }
        }
    }

    fn statement(&mut self, up: &str) -> Res<()> {
        match up {
            "OPTION" => {
                self.next();
                let (l, c) = self.here();
                let name = self.ident("an option name")?;
                match name.as_str() {
                    "NV_shader_thread_shuffle" => self.opt_shuffle = true,
                    "NV_shader_atomic_float" => self.opt_afloat = true,
                    "NV_shader_atomic_int64" => self.opt_aint64 = true,
                    "NV_shader_storage_buffer" => self.opt_ssbo = true,
                    // Options of other extensions the reference accepts; the features they
                    // enable are refused where used.
                    "NV_gpu_program_fp64"
                    | "NV_shader_atomic_float64"
                    | "NV_shader_atomic_fp16_vector"
                    | "NV_shader_atomic_counters"
                    | "NV_bindless_texture"
                    | "NV_shader_thread_group"
                    | "NV_shader_buffer_load"
                    | "NV_shader_buffer_store"
                    | "NV_gpu_program5_mem_extended" => {}
                    _ => {
                        return Err(diag(l, c, format!("unknown program option \"{name}\" (NV_gpu_program4, \"Program Options\")")));
                    }
                }
                self.end_stmt()
            }
            "GROUP_SIZE" => self.group_size_decl(),
            "SHARED_MEMORY" => {
                let (l, c) = self.here();
                self.next();
                let v = self.int_u32("after SHARED_MEMORY")?;
                if let Some((_, first)) = self.shared_mem {
                    return Err(diag(l, c, format!("second SHARED_MEMORY declaration (the first is at line {first}): a program may have at most one {R_DECL}")));
                }
                if v > LIMITS.max_shared_memory_size {
                    return Err(diag(l, c, format!("SHARED_MEMORY {v} exceeds the shared memory limit MAX_COMPUTE_SHARED_MEMORY_SIZE ({}) {R_DECL}", LIMITS.max_shared_memory_size)));
                }
                self.shared_mem = Some((v, l));
                self.end_stmt()
            }
            "TEMP" | "PARAM" | "ATTRIB" | "SHORT" | "LONG" | "INT" | "UINT" | "FLOAT"
            | "BUFFER" | "BUFFER4" => self.naming_statement(),
            "ALIAS" => {
                self.next();
                let (l, c) = self.here();
                let name = self.ident("a name")?;
                self.expect_sym('=', "in ALIAS")?;
                let (l2, c2) = self.here();
                let target = self.ident("an established name")?;
                let Some(s) = self.syms.get(&target).cloned() else {
                    return Err(diag(
                        l2,
                        c2,
                        format!("ALIAS of undeclared name \"{target}\" {R_GRAMMAR}"),
                    ));
                };
                self.declare(&name, s, l, c)?;
                self.end_stmt()
            }
            "STORAGE" => {
                if self.first_ssbo_use.is_none() {
                    let (l, c) = self.here();
                    self.first_ssbo_use = Some((l, c, "STORAGE"));
                }
                self.storage_decl()
            }
            "SHARED" => self.shared_decl(),
            "CBUFFER" | "TEXTURE" | "IMAGE" => {
                let (l, c) = self.here();
                Err(unsupported(
                    l,
                    c,
                    format!("{up} declarations are not modeled by the reference"),
                ))
            }
            "OUTPUT" => {
                let (l, c) = self.here();
                Err(diag(l, c, "compute programs have no result variables: OUTPUT is not allowed (NV_compute_program5, \"Program Results\")".to_string()))
            }
            _ => self.instruction(),
        }
    }

    fn instruction(&mut self) -> Res<()> {
        let (l, c) = self.here();
        let name = self.ident("an instruction")?;
        let op = upper(&name);
        let known: &[&str] = &[
            "MOV", "ABS", "FLR", "CEIL", "TRUNC", "ROUND", "FRC", "SSG", "NOT", "BFR", "BTC",
            "BTFL", "BTFM", "ADD", "SUB", "MUL", "MIN", "MAX", "AND", "OR", "XOR", "DIV", "MOD",
            "SHL", "SHR", "MAD", "CMP", "SEQ", "SNE", "SLT", "SLE", "SGT", "SGE", "SFL", "STR",
            "RCP", "RSQ", "EX2", "LG2", "SIN", "COS", "POW", "DP2", "DP3", "DP4", "DPH", "I2F",
            "BFE", "BFI", "PK64", "UP64", "CVT", "LDB", "STB", "ATOMB", "LDS", "STS", "ATOMS",
            "BAR", "MEMBAR", "SHFIDX", "SHFUP", "SHFDOWN", "SHFXOR", "IF", "ELSE", "ENDIF", "REP",
            "ENDREP", "BRK", "CONT", "CAL", "RET",
        ];
        let op: &'static str = match known.iter().find(|k| **k == op) {
            Some(k) => k,
            None => {
                return match op.as_str() {
                    "ATOM" | "LOAD" | "STORE" | "TEX" | "TXF" | "TXQ" | "TXL" | "TXB" | "TXD"
                    | "TXG" | "TXGO" | "TXP" | "TXFMS" | "LOADIM" | "STOREIM" | "ATOMIM"
                    | "LDC" | "TGALL" | "TGANY" | "TGEQ" | "LIT" | "LRP" | "NRM" | "RFL"
                    | "SCS" | "SWZ" | "X2D" | "DST" | "DP2A" | "RCC" | "PK2H" | "PK2US"
                    | "PK4B" | "PK4UB" | "UP2H" | "UP2US" | "UP4B" | "UP4UB" | "SAD" => {
                        Err(unsupported(
                            l,
                            c,
                            format!("instruction {op} is not modeled by the reference"),
                        ))
                    }
                    "KIL" | "DDX" | "DDY" | "EMIT" | "EMITS" | "ENDPRIM" | "IPAC" | "IPAO"
                    | "IPAS" => Err(diag(
                        l,
                        c,
                        format!("instruction {op} is not available in compute programs {R_INSTR}"),
                    )),
                    _ => Err(diag(
                        l,
                        c,
                        format!("unknown instruction \"{name}\" {R_INSTR}"),
                    )),
                };
            }
        };
        let m = self.mods(op)?;
        let mem = matches!(
            op,
            "LDB" | "STB" | "ATOMB" | "LDS" | "STS" | "ATOMS" | "CVT"
        );
        if !mem && m.atomic.is_none() && !m.storage.is_empty() {
            return Err(diag(
                l,
                c,
                format!("{op} takes no storage modifier {R_INSTR}"),
            ));
        }
        if m.round.is_some() && op != "CVT" {
            return Err(diag(
                l,
                c,
                format!("rounding modifiers apply only to CVT {R_INSTR}"),
            ));
        }
        match op {
            "IF" | "ELSE" | "ENDIF" | "REP" | "ENDREP" | "BRK" | "CONT" | "CAL" | "RET" => {
                self.flow(op, &m)
            }
            "BAR" => {
                self.emit(Inst::ControlBarrier);
                self.end_stmt()
            }
            "MEMBAR" => {
                self.emit(Inst::MemoryBarrier {
                    scope: if m.cta { Scope::Group } else { Scope::Device },
                });
                self.end_stmt()
            }
            "LDB" | "STB" | "ATOMB" | "LDS" | "STS" | "ATOMS" => {
                if !op.ends_with('S') && self.first_ssbo_use.is_none() {
                    self.first_ssbo_use = Some((l, c, op));
                }
                self.memory(op, &m, l, c)
            }
            "CVT" => self.cvt(&m, l, c),
            "SHFIDX" | "SHFUP" | "SHFDOWN" | "SHFXOR" => self.shuffle(op, &m, l, c),
            _ => self.alu(op, &m),
        }
    }
}
