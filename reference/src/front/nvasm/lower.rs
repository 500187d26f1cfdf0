//! Parsing, load-failure checks and lowering of NV assembly into IR, in one pass.
//!
//! This root holds the lowering context `Cx`, the rule citations every load-failure message
//! ends with, the entry points [`compile`] and [`compile_with_warnings`], register helpers,
//! and the checks that need the whole program (`finish`). The statements are handled by the
//! submodules, one concern each:
//!
//! - `tokens`: the token cursor (peek, expect, identifiers, integers);
//! - `statements`: the statement loop (END) and dispatch to the modules below;
//! - `decl`: declarations and options (OPTION, GROUP_SIZE, SHARED_MEMORY, TEMP, PARAM, ATTRIB,
//!   ALIAS, BUFFER, STORAGE, SHARED);
//! - `modifiers`: opcode modifiers, data types and storage modifiers;
//! - `operands`: source operands, swizzles, indexing and literals;
//! - `results`: result operands, write masks and the write-back of a result;
//! - `cc`: condition-code tests;
//! - `alu`: arithmetic, comparison, bit and conversion instructions;
//! - `memory`: LDB/STB/ATOMB and LDS/STS/ATOMS and their addresses;
//! - `shuffle`: SHFIDX/SHFUP/SHFDOWN/SHFXOR (NV_shader_thread_shuffle);
//! - `flow`: IF/ELSE/ENDIF, REP/ENDREP, BRK/CONT, labels, CAL/RET, BAR/MEMBAR;
//! - `types`: declared variable types (INT/UINT/FLOAT, SHORT/LONG), their checks and NTC.

mod alu;
mod cc;
mod decl;
mod flow;
mod memory;
mod modifiers;
mod operands;
mod results;
mod shuffle;
mod statements;
mod tokens;
mod types;

use super::lexer::{lex, Token};
use super::FrontError;
use crate::ir::{Builder, Builtin, Dst, Function, Inst, Loc, Program, Reg, Src, Ty, UnOp, Uses};
use crate::Diagnostic;
use flow::Block;
use std::collections::HashMap;

const HEADER: &str = "!!NVcp5.0";
const R_GRAMMAR: &str = "(NV_compute_program5, \"Program Grammar\")";
const R_DECL: &str = "(NV_compute_program5, \"Compute Program Declarations\")";
const R_SHARED: &str = "(NV_compute_program5, \"Shared memory\")";
const R_SHARED_VARS: &str = "(NV_compute_program5, \"Compute Program Shared Memory\")";
const R_ATOMS: &str = "(NV_compute_program5, \"ATOMS\", Table X.Y)";
const R_SSBO: &str = "(NV_shader_storage_buffer_object, \"Shader Storage Buffers\")";
const R_SHFL: &str = "(NV_shader_thread_shuffle, \"Program Options\")";
const R_AFLOAT: &str = "(NV_compute_program5, \"Dependencies on NV_shader_atomic_float\")";
const R_INSTR: &str = "(NV_gpu_program4, \"Program Instruction Set\")";
const R_FLOW: &str = "(NV_gpu_program4, \"Program Flow Control\")";

type Res<T> = Result<T, FrontError>;

fn diag(line: u32, column: u32, message: String) -> FrontError {
    FrontError::Invalid(vec![Diagnostic {
        line,
        column,
        message,
    }])
}

fn unsupported(line: u32, column: u32, message: String) -> FrontError {
    FrontError::Unsupported(Diagnostic {
        line,
        column,
        message,
    })
}

/// A declared name.
#[derive(Clone, Debug)]
enum Sym {
    Temp(Reg),
    /// A PARAM or ATTRIB: read-only register.
    Param(Reg),
    /// A PARAM array: element registers, and (for relative addressing) a copy in private memory
    /// at `private_base` (16 bytes per element).
    ParamArray {
        regs: Vec<Reg>,
        private_base: u32,
    },
    /// A TEMP array in private memory: 32 bytes (four 64-bit slots) per element.
    TempArray {
        base: u32,
        len: u32,
    },
    Storage {
        binding: u32,
        base: u64,
    },
    Shared {
        base: u32,
    },
    /// BUFFER (4-byte elements, replicated) or BUFFER4 (16-byte vec4 elements).
    Buffer {
        binding: u32,
        elem: u32,
        base: u32,
    },
}

impl Sym {
    fn what(&self) -> &'static str {
        match self {
            Sym::Temp(_) | Sym::TempArray { .. } => "a TEMP",
            Sym::Param(_) | Sym::ParamArray { .. } => "a PARAM/ATTRIB",
            Sym::Storage { .. } => "a STORAGE variable",
            Sym::Shared { .. } => "a SHARED variable",
            Sym::Buffer { .. } => "a BUFFER variable",
        }
    }
}

struct Cx {
    /// The planted bug of the fuzzer's self-test that lives in this front end, if any.
    bug: Option<crate::PlantedBug>,
    toks: Vec<Token>,
    pos: usize,
    b: Builder,
    /// Instructions run once at the start (parameter loads, builtins).
    pro: Builder,
    syms: HashMap<String, Sym>,
    opt_shuffle: bool,
    opt_afloat: bool,
    opt_aint64: bool,
    group_size: Option<([u32; 3], u32)>,
    shared_mem: Option<(u32, u32)>,
    private_size: u32,
    blocks: Vec<Block>,
    cur_loc: (u32, u32),
    /// (line, col) of REPs without a count and without a BRK at their level.
    unbounded: Vec<(u32, u32)>,
    /// Operands of the integer add/subtract whose carry and overflow flags a `.CC` update of
    /// the current instruction reports (ADD, SUB, MAD).
    pending_carry: Option<(Src, Src, bool)>,
    /// Loadable constructs with undefined results.
    warnings: Vec<Diagnostic>,
    labels: HashMap<String, u32>,
    calls: Vec<(u32, String, u32, u32)>,
    has_ret: bool,
    /// (line, col, opcode) of the first shared-memory instruction.
    first_shared_use: Option<(u32, u32, &'static str)>,
    /// (line, col, what) of the first STORAGE declaration or LDB/STB/ATOMB instruction.
    first_ssbo_use: Option<(u32, u32, &'static str)>,
    opt_ssbo: bool,
    /// The other options declared (their features are refused by name where used).
    opt_other: Vec<&'static str>,
    /// (line, col, opcode, end byte) of shared accesses with a known minimum end.
    shared_ends: Vec<(u32, u32, &'static str, i64)>,
    scratch: Vec<Reg>,
    scratch_next: usize,
    cc: [Reg; 2],
    builtins: HashMap<&'static str, Reg>,
    /// The modifiers of each typed variable (by name; aliases share them).
    var_types: HashMap<String, types::VarType>,
    /// The modifiers of the declaration being read.
    decl_type: types::VarType,
    /// The current instruction has NTC: no data type checks.
    ntc: bool,
}

/// Compiles a `!!NVcp5.0` program into IR, or reports the first load failure.
pub fn compile(text: &str) -> Result<Program, FrontError> {
    compile_with_warnings(text).map(|(p, _)| p)
}

/// Like [`compile`], and also returns warnings: constructs that load but whose results the
/// specification leaves undefined (reported as `undefined-value` flags by `run`).
pub fn compile_with_warnings(text: &str) -> Result<(Program, Vec<Diagnostic>), FrontError> {
    compile_planted(text, None)
}

/// [`compile_with_warnings`] with a front-end bug planted for the fuzzer's self-test
/// ([`crate::PlantedBug::SadSignedReadsUnsigned`]; `None` in every other use).
pub fn compile_planted(
    text: &str,
    bug: Option<crate::PlantedBug>,
) -> Result<(Program, Vec<Diagnostic>), FrontError> {
    let body = match text.strip_prefix(HEADER) {
        Some(rest) => rest,
        None => {
            let first: String = text
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .chars()
                .take(24)
                .collect();
            let msg = if first.starts_with("!!") {
                format!("header \"{first}\" is not a compute program: a compute program must begin with \"{HEADER}\" {R_GRAMMAR}")
            } else {
                format!("program must begin with the header \"{HEADER}\" {R_GRAMMAR}")
            };
            return Err(diag(1, 1, msg));
        }
    };
    let toks = lex(body, 1, HEADER.len() as u32 + 1).map_err(|d| FrontError::Invalid(vec![d]))?;
    let mut b = Builder::new();
    let cc = [b.reg(), b.reg()];
    let mut cx = Cx {
        toks,
        pos: 0,
        b,
        pro: Builder::new(),
        syms: HashMap::new(),
        opt_shuffle: false,
        opt_afloat: false,
        opt_aint64: false,
        group_size: None,
        shared_mem: None,
        private_size: 0,
        blocks: Vec::new(),
        cur_loc: (1, 1),
        unbounded: Vec::new(),
        pending_carry: None,
        warnings: Vec::new(),
        labels: HashMap::new(),
        calls: Vec::new(),
        has_ret: false,
        first_shared_use: None,
        first_ssbo_use: None,
        opt_ssbo: false,
        opt_other: Vec::new(),
        shared_ends: Vec::new(),
        scratch: Vec::new(),
        scratch_next: 0,
        cc,
        builtins: HashMap::new(),
        var_types: HashMap::new(),
        decl_type: types::VarType::default(),
        ntc: false,
        bug,
    };
    // NV_gpu_program4 section 2.X.3.7: the condition codes' "values are undefined at the
    // beginning of program execution": marked in the prologue, flagged where a test of them
    // is used before an instruction sets them.
    for r in cx.cc {
        cx.mark_unset(Dst::new(r));
    }
    // pc 0 calls the prologue (patched at the end), so that parameter loads run first.
    cx.b.push(Inst::Call { target_pc: 0 });
    cx.parse_program()?;
    let warnings = std::mem::take(&mut cx.warnings);
    cx.finish().map(|p| (p, warnings))
}

fn upper(s: &str) -> String {
    s.to_ascii_uppercase()
}

impl Cx {
    /// A register for a value used within the current statement: the statement loop hands
    /// the same registers out again for the next statement.
    fn scratch(&mut self) -> Reg {
        if self.scratch_next == self.scratch.len() {
            let r = self.b.reg();
            self.scratch.push(r);
        }
        self.scratch_next += 1;
        self.scratch[self.scratch_next - 1]
    }
    /// Emits unary `op` on `a` into a new scratch register, and returns that as a source.
    fn unary_to_scratch(&mut self, op: UnOp, ty: Ty, a: Src) -> Src {
        let s = self.scratch();
        self.b.un(op, ty, Dst::new(s), a);
        Src::new(s)
    }
    /// The register of an `invocation.*` builtin, loaded once by the prologue.
    fn builtin_reg(&mut self, name: &'static str, which: Builtin) -> Reg {
        if let Some(r) = self.builtins.get(name) {
            return *r;
        }
        let r = self.b.reg();
        self.pro.push(Inst::Builtin {
            dst: Dst::new(r),
            which,
        });
        // NV_compute_program5, Table X.1: "All bindings are considered four-component
        // unsigned integer vectors with the value of the fourth component undefined" (and
        // localindex is (x,-,-,-)): those lanes are marked, flagged where used.
        let undefined_lanes = if which == Builtin::LocalIndex {
            0b1110
        } else {
            0b1000
        };
        self.mark_unset(Dst::masked(r, undefined_lanes));
        self.builtins.insert(name, r);
        r
    }

    /// Marks the lanes of `dst` undefined in the prologue (`UndefinedRule::UninitializedValue`,
    /// flagged where used): a value the program has not set when it starts.
    fn mark_unset(&mut self, dst: Dst) {
        let all = self.b.interned_constant([1; 4]);
        self.pro.push(Inst::MarkUndefined {
            lanes: 4,
            dst,
            cond: Src::new(all),
            why: crate::ir::UndefinedRule::UninitializedValue,
        });
    }

    fn finish(mut self) -> Res<Program> {
        let (end_line, end_col) = self.cur_loc;
        if let Some(b) = self.blocks.last() {
            let (what, line) = b.opened();
            return Err(diag(
                line,
                1,
                format!("{what} opened here is not closed before END {R_FLOW}"),
            ));
        }
        let Some((group_size, _)) = self.group_size else {
            return Err(diag(
                end_line,
                end_col,
                format!(
                    "no GROUP_SIZE declaration: a compute program must have exactly one {R_DECL}"
                ),
            ));
        };
        if let (Some((l, c, what)), false) = (self.first_ssbo_use, self.opt_ssbo) {
            return Err(diag(l, c, format!("{what} requires \"OPTION NV_shader_storage_buffer;\" (NV_shader_storage_buffer_object, \"Program Options\")")));
        }
        if let Some((l, c, op)) = self.first_shared_use {
            match self.shared_mem {
                None => {
                    return Err(diag(
                        l,
                        c,
                        format!("{op} requires a SHARED_MEMORY declaration {R_SHARED}"),
                    ))
                }
                Some((size, _)) => {
                    for (l, c, op, end) in &self.shared_ends {
                        if *end > i64::from(size) {
                            return Err(diag(*l, *c, format!("{op} accesses shared memory up to byte {end}, beyond the declared SHARED_MEMORY size of {size} bytes {R_SHARED}")));
                        }
                    }
                }
            }
        }
        if !self.has_ret {
            if let Some((l, c)) = self.unbounded.first() {
                return Err(diag(*l, *c, "REP without a loop count needs a BRK at its nesting level or a RET in the program (NV_gpu_program4, \"REP\")".to_string()));
            }
        }
        let mut functions = vec![Function {
            name: "main".into(),
            start_pc: 1,
        }];
        for (at, label, l, c) in std::mem::take(&mut self.calls) {
            let Some(pc) = self.labels.get(&label) else {
                return Err(diag(
                    l,
                    c,
                    format!("CAL to undefined label \"{label}\" {R_FLOW}"),
                ));
            };
            if let Inst::Call { target_pc } = &mut self.b.code[at as usize] {
                *target_pc = *pc;
            }
        }
        for (name, pc) in &self.labels {
            functions.push(Function {
                name: name.clone(),
                start_pc: *pc,
            });
        }
        functions.sort_by_key(|f| f.start_pc);
        let pro_pc = self.b.pc();
        let pro = std::mem::take(&mut self.pro);
        // The prologue has no source line of its own.
        self.b.cur_loc = Loc::default();
        for inst in pro.code {
            self.b.push(inst);
        }
        // Execution: the prologue, then main (the "main" label if there is one, else the first
        // instruction) as a call, so that RET in main and the implicit RET before the next
        // label end the program.
        let main_pc = self.labels.get("main").copied().unwrap_or(1);
        self.b.push(Inst::Call { target_pc: main_pc });
        self.b.push(Inst::Exit);
        self.b.code[0] = Inst::Exit;
        let shared_size = self.shared_mem.map(|s| s.0).unwrap_or(0);
        let mut prog = Program {
            code: self.b.code,
            locs: self.b.locs,
            entry_pc: pro_pc,
            functions,
            reg_init: self.b.reg_init,
            group_size,
            variable_group_size: false,
            shared_size,
            private_size: self.private_size,
            uses: Uses::default(),
            uniforms: Vec::new(),
            uniform_init: Vec::new(),
            active_uniforms: None,
            nan_undefined: false,
            storage_blocks: Vec::new(),
            aligned_access: true,
        };
        prog.compute_uses();
        prog.validate().map_err(FrontError::Internal)?;
        Ok(prog)
    }
}
