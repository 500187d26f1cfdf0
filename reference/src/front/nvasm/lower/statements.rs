//! The statement loop of the NV assembly lowerer: END, and the dispatch of each statement
//! (label, declaration, instruction) to the module that handles it, with the opcode table
//! (instructions the reference does not model, instructions not available to compute programs)
//! and the modifier checks common to all instructions.

use super::{diag, unsupported, upper, Cx, Res, R_GRAMMAR, R_INSTR};
use crate::front::nvasm::lexer::Tok;
use crate::ir::{Inst, Loc};

impl Cx {
    pub(super) fn parse_program(&mut self) -> Res<()> {
        loop {
            let t = self.peek().clone();
            self.cur_loc = (t.line, t.col);
            // Every instruction the statement emits carries its position.
            self.b.cur_loc = Loc {
                line: t.line,
                column: t.col,
            };
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
                        self.label(name, t.line, t.col)?;
                        continue;
                    }
                    let up = upper(name);
                    if up == "END" {
                        self.next();
                        self.b.push(Inst::Exit);
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
            "OPTION" => self.option(),
            "GROUP_SIZE" => self.group_size_decl(),
            "SHARED_MEMORY" => self.shared_memory_decl(),
            "TEMP" | "PARAM" | "ATTRIB" | "SHORT" | "LONG" | "INT" | "UINT" | "FLOAT"
            | "BUFFER" | "BUFFER4" => self.naming_statement(),
            "ALIAS" => self.alias_decl(),
            "STORAGE" => self.storage_decl(),
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
            "ENDREP", "BRK", "CONT", "CAL", "RET", "SAD", "NRM", "XPD", "SCS",
        ];
        let op: &'static str = match known.iter().find(|k| **k == op) {
            Some(k) => k,
            None => {
                return match op.as_str() {
                    "ATOM" | "LOAD" | "STORE" | "TEX" | "TXF" | "TXQ" | "TXL" | "TXB" | "TXD"
                    | "TXG" | "TXGO" | "TXP" | "TXFMS" | "LOADIM" | "STOREIM" | "ATOMIM"
                    | "LDC" | "TGALL" | "TGANY" | "TGEQ" | "LIT" | "LRP" | "RFL" | "SWZ"
                    | "X2D" | "DST" | "DP2A" | "RCC" | "PK2H" | "PK2US" | "PK4B" | "PK4UB"
                    | "UP2H" | "UP2US" | "UP4B" | "UP4UB" => Err(unsupported(
                        l,
                        c,
                        format!("instruction {op} is not modeled by the reference"),
                    )),
                    // NV_shader_thread_group's ballot, NV_shader_atomic_counters' counters,
                    // where their options are declared.
                    "TGBALLOT" if self.opt_other.contains(&"NV_shader_thread_group") => {
                        Err(unsupported(
                            l,
                            c,
                            format!("instruction {op} is not modeled by the reference"),
                        ))
                    }
                    "ATOMCTR" | "COUNTER"
                        if self.opt_other.contains(&"NV_shader_atomic_counters") =>
                    {
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
        self.ntc = m.ntc;
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
            "IF" | "ELSE" | "ENDIF" | "REP" | "ENDREP" | "BRK" | "CONT" | "CAL" | "RET" | "BAR"
            | "MEMBAR" => self.flow(op, &m),
            "LDB" | "STB" | "ATOMB" | "LDS" | "STS" | "ATOMS" => self.memory(op, &m, l, c),
            "CVT" => self.cvt(&m, l, c),
            "SHFIDX" | "SHFUP" | "SHFDOWN" | "SHFXOR" => self.shuffle(op, &m, l, c),
            _ => self.alu(op, &m),
        }
    }
}
