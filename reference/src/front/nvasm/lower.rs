//! Parsing, load-failure checks and lowering of NV assembly into IR.

use super::lexer::{lex, Tok, Token};
use super::FrontError;
use crate::ir::{
    AtomicOp, BinOp, BitfieldForm, Builder, Builtin, CcTest, CmpOp, Dst, Function, Inst, Kind, Loc,
    MemTy, Program, Reg, ScalarTy, Scope, ShflMode, Space, Src, Ty, UnOp, Uses,
};
use crate::{Diagnostic, LIMITS};
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

/// Parsed instruction modifiers (`.F32.CC1.SAT` ...), interpreted per opcode.
#[derive(Clone, Debug, Default)]
struct Mods {
    dtype: Option<ScalarTy>,
    cc: Option<usize>,
    sat: Option<bool>, // Some(false): SAT, Some(true): SSAT
    storage: Vec<MemTy>,
    atomic: Option<AtomicOp>,
    round: Option<UnOp>,
    cta: bool,
    hi: bool,
}

/// A memory operand `var[...]` of LDB/STB/ATOMB/LDS/STS/ATOMS.
struct MemRef {
    space: Space,
    /// Register component holding the dynamic part of the offset, if any.
    dynamic: Option<Src>,
    /// Constant part of the offset (including the variable's base), in bytes.
    offset: i64,
    line: u32,
    col: u32,
}

struct IfFrame {
    if_pc: u32,
    else_pc: Option<u32>,
    line: u32,
}

enum Block {
    If(IfFrame),
    Rep(RepFrame),
}

struct RepFrame {
    pc: u32,
    line: u32,
    counted: bool,
    has_brk: bool,
    col: u32,
}

struct Cx {
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
    /// (line, col, opcode, end byte) of shared accesses with a known minimum end.
    shared_ends: Vec<(u32, u32, &'static str, i64)>,
    scratch: Vec<Reg>,
    scratch_next: usize,
    cc: [Reg; 2],
    builtins: HashMap<&'static str, Reg>,
    consts: HashMap<[u64; 4], Reg>,
}

/// Compiles a `!!NVcp5.0` program into IR, or reports the first load failure.
pub fn compile(text: &str) -> Result<Program, FrontError> {
    compile_with_warnings(text).map(|(p, _)| p)
}

/// Like [`compile`], and also returns warnings: constructs that load but whose results the
/// specification leaves undefined (reported as `undefined-value` flags by `run`).
pub fn compile_with_warnings(text: &str) -> Result<(Program, Vec<Diagnostic>), FrontError> {
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
        shared_ends: Vec::new(),
        scratch: Vec::new(),
        scratch_next: 0,
        cc,
        builtins: HashMap::new(),
        consts: HashMap::new(),
    };
    // pc 0 calls the prologue (patched at the end), so that parameter loads run first.
    cx.b.push(Inst::Call { target_pc: 0 });
    cx.parse_program()?;
    let warnings = std::mem::take(&mut cx.warnings);
    cx.finish().map(|p| (p, warnings))
}

fn upper(s: &str) -> String {
    s.to_ascii_uppercase()
}

fn parse_storage(m: &str) -> Option<MemTy> {
    let (base, lanes) = match m.split_once('X') {
        Some((b, n)) => (b, n.parse::<u8>().ok().filter(|n| *n == 2 || *n == 4)?),
        None => (m, 1),
    };
    let kind = match base.chars().next()? {
        'U' => Kind::U,
        'S' => Kind::S,
        'F' => Kind::F,
        _ => return None,
    };
    let bits: u8 = base[1..].parse().ok()?;
    let ok = match kind {
        Kind::F => matches!(bits, 16 | 32 | 64),
        _ => matches!(bits, 8 | 16 | 32 | 64),
    };
    // Vector forms exist for 32- and 64-bit types only (NV_gpu_program5 <opModifier>).
    if !ok || (lanes > 1 && bits < 32) {
        return None;
    }
    Some(MemTy::new(ScalarTy::new(kind, bits), lanes))
}

fn storage_name(t: MemTy) -> String {
    let k = match t.scalar.kind {
        Kind::U => "U",
        Kind::S => "S",
        Kind::F => "F",
        Kind::B => "B",
    };
    if t.lanes > 1 {
        format!("{k}{}X{}", t.scalar.bits, t.lanes)
    } else {
        format!("{k}{}", t.scalar.bits)
    }
}

fn atomic_name(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Add => "ADD",
        AtomicOp::Min => "MIN",
        AtomicOp::Max => "MAX",
        AtomicOp::And => "AND",
        AtomicOp::Or => "OR",
        AtomicOp::Xor => "XOR",
        AtomicOp::Exch => "EXCH",
        AtomicOp::CmpXchg => "CSWAP",
        AtomicOp::IWrap => "IWRAP",
        AtomicOp::DWrap => "DWRAP",
    }
}

/// Encodes a literal for an operation of type `t`.
fn lit_bits(t: ScalarTy, v: &Lit) -> u64 {
    match (t.kind, v) {
        (Kind::F, Lit::Int(i, neg)) => {
            // integer to float conversions are correctly rounded (once)
            if t.bits == 64 {
                let f = *i as f64;
                (if *neg { -f } else { f }).to_bits()
            } else {
                let f = *i as f32;
                u64::from((if *neg { -f } else { f }).to_bits())
            }
        }
        (Kind::F, Lit::Float(f, g)) => {
            if t.bits == 64 {
                f.to_bits()
            } else {
                u64::from(g.to_bits())
            }
        }
        (_, Lit::Int(i, neg)) => {
            let v = if *neg { i.wrapping_neg() } else { *i };
            v & t.mask()
        }
        (_, Lit::Float(f, _)) => {
            // A fractional literal in an integer operation: truncated toward zero.
            let v = if t.kind == Kind::S || *f < 0.0 {
                (*f as i64) as u64
            } else {
                *f as u64
            };
            v & t.mask()
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Lit {
    /// Magnitude and whether it was negated.
    Int(u64, bool),
    /// Double and single precision values, each rounded once from the text.
    Float(f64, f32),
}

fn swz_char(c: char) -> Option<u8> {
    match c {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    }
}

impl Cx {
    // ----- tokens -----
    fn peek(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn here(&self) -> (u32, u32) {
        let t = self.peek();
        (t.line, t.col)
    }
    fn err<T>(&self, msg: String) -> Res<T> {
        let (l, c) = self.here();
        Err(diag(l, c, msg))
    }
    fn is_sym(&self, c: char) -> bool {
        self.peek().tok == Tok::Sym(c)
    }
    fn eat_sym(&mut self, c: char) -> bool {
        if self.is_sym(c) {
            self.next();
            true
        } else {
            false
        }
    }
    fn describe(t: &Tok) -> String {
        match t {
            Tok::Ident(s) => format!("\"{s}\""),
            Tok::Int(v) => format!("\"{v}\""),
            Tok::Float(v, _) => format!("\"{v}\""),
            Tok::Sym(c) => format!("'{c}'"),
            Tok::DotDot => "\"..\"".into(),
            Tok::Eof => "the end of the program".into(),
        }
    }
    fn expect_sym(&mut self, c: char, ctx: &str) -> Res<()> {
        if self.eat_sym(c) {
            Ok(())
        } else {
            let found = Self::describe(&self.peek().tok);
            self.err(format!("expected '{c}' {ctx}, found {found} {R_GRAMMAR}"))
        }
    }
    fn ident(&mut self, ctx: &str) -> Res<String> {
        match self.peek().tok.clone() {
            Tok::Ident(s) => {
                self.next();
                Ok(s)
            }
            t => self.err(format!(
                "expected {ctx}, found {} {R_GRAMMAR}",
                Self::describe(&t)
            )),
        }
    }
    fn int(&mut self, ctx: &str) -> Res<u64> {
        match self.peek().tok {
            Tok::Int(v) => {
                self.next();
                Ok(v)
            }
            ref t => {
                let d = Self::describe(t);
                self.err(format!("expected an integer {ctx}, found {d} {R_GRAMMAR}"))
            }
        }
    }
    fn int_u32(&mut self, ctx: &str) -> Res<u32> {
        let (l, c) = self.here();
        let v = self.int(ctx)?;
        u32::try_from(v).map_err(|_| diag(l, c, format!("integer {v} {ctx} is too large")))
    }
    fn end_stmt(&mut self) -> Res<()> {
        self.expect_sym(';', "at the end of the statement")
    }

    // ----- registers -----
    fn scratch(&mut self) -> Reg {
        if self.scratch_next == self.scratch.len() {
            let r = self.b.reg();
            self.scratch.push(r);
        }
        self.scratch_next += 1;
        self.scratch[self.scratch_next - 1]
    }
    fn constant(&mut self, v: [u64; 4]) -> Reg {
        if let Some(r) = self.consts.get(&v) {
            return *r;
        }
        let r = self.b.constant(v);
        self.consts.insert(v, r);
        r
    }
    fn emit(&mut self, inst: Inst) -> u32 {
        let (l, c) = self.cur_loc;
        self.b.cur_loc = Loc { line: l, column: c };
        self.b.push(inst)
    }
    fn builtin_reg(&mut self, name: &'static str, which: Builtin) -> Reg {
        if let Some(r) = self.builtins.get(name) {
            return *r;
        }
        let r = self.b.reg();
        self.pro.push(Inst::Builtin {
            dst: Dst::new(r),
            which,
        });
        self.builtins.insert(name, r);
        r
    }

    // ----- program -----
    fn parse_program(&mut self) -> Res<()> {
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

    fn declare(&mut self, name: &str, s: Sym, l: u32, c: u32) -> Res<()> {
        if self.syms.contains_key(name) {
            return Err(diag(
                l,
                c,
                format!("\"{name}\" is already declared {R_GRAMMAR}"),
            ));
        }
        if matches!(
            upper(name).as_str(),
            "END" | "TEMP" | "PARAM" | "OPTION" | "PROGRAM" | "INVOCATION" | "STATE"
        ) {
            return Err(diag(
                l,
                c,
                format!("\"{name}\" is a reserved word {R_GRAMMAR}"),
            ));
        }
        self.syms.insert(name.to_string(), s);
        Ok(())
    }

    fn group_size_decl(&mut self) -> Res<()> {
        let (l, c) = self.here();
        self.next();
        let mut dims = Vec::new();
        while let Tok::Int(_) = self.peek().tok {
            let (vl, vc) = self.here();
            let v = self.int("in GROUP_SIZE")?;
            dims.push((v, vl, vc));
            if self.is_sym(',') {
                return self.err(format!("GROUP_SIZE sizes are separated by spaces, not commas: the grammar is \"GROUP_SIZE\" <int> [<int> [<int>]] {R_DECL}"));
            }
        }
        if dims.is_empty() || dims.len() > 3 {
            return Err(diag(
                l,
                c,
                format!(
                    "GROUP_SIZE takes one to three sizes, found {} {R_DECL}",
                    dims.len()
                ),
            ));
        }
        if !self.is_sym(';') {
            let d = Self::describe(&self.peek().tok);
            return self.err(format!(
                "GROUP_SIZE takes one to three space-separated integer sizes; found {d} {R_DECL}"
            ));
        }
        if let Some((_, first)) = self.group_size {
            return Err(diag(l, c, format!("second GROUP_SIZE declaration (the first is at line {first}): a program must have exactly one {R_DECL}")));
        }
        let mut size = [1u32; 3];
        for (i, (v, vl, vc)) in dims.iter().enumerate() {
            let lim = LIMITS.max_work_group_size[i];
            let axis = ["x", "y", "z"][i];
            if *v == 0 {
                return Err(diag(
                    *vl,
                    *vc,
                    format!("GROUP_SIZE {axis} size must be at least 1 {R_DECL}"),
                ));
            }
            if *v > u64::from(lim) {
                return Err(diag(*vl, *vc, format!("GROUP_SIZE {axis} size {v} exceeds MAX_COMPUTE_WORK_GROUP_SIZE[{i}] ({lim}) {R_DECL}")));
            }
            size[i] = *v as u32;
        }
        let total = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
        if total > u64::from(LIMITS.max_work_group_invocations) {
            return Err(diag(l, c, format!("GROUP_SIZE {}x{}x{} has {total} invocations, above MAX_COMPUTE_WORK_GROUP_INVOCATIONS ({}) (ARB_compute_shader, \"Compute Shaders\")", size[0], size[1], size[2], LIMITS.max_work_group_invocations)));
        }
        self.group_size = Some((size, l));
        self.end_stmt()
    }
}

/// One initializer item of a PARAM declaration, as element registers.
impl Cx {
    fn naming_statement(&mut self) -> Res<()> {
        let mut int_kind: Option<Kind> = None;
        loop {
            let (l, c) = self.here();
            let w = upper(&self.ident("a declaration")?);
            match w.as_str() {
                "SHORT" | "LONG" | "FLOAT" => {}
                "INT" => int_kind = Some(Kind::S),
                "UINT" => int_kind = Some(Kind::U),
                "TEMP" => {
                    loop {
                        let (nl, nc) = self.here();
                        let name = self.ident("a TEMP name")?;
                        if self.eat_sym('[') {
                            let (al, ac) = self.here();
                            let len = self.int_u32("as the TEMP array size")?;
                            self.expect_sym(']', "after the TEMP array size")?;
                            let bytes = u64::from(len) * 32;
                            if len == 0 || u64::from(self.private_size) + bytes > u64::from(crate::ir::validate::MAX_PRIVATE_SIZE) {
                                return Err(diag(al, ac, format!("TEMP array size {len} is zero or above the reference's limit of {} bytes of arrays per invocation", crate::ir::validate::MAX_PRIVATE_SIZE)));
                            }
                            let base = self.private_size;
                            self.private_size += bytes as u32;
                            self.declare(&name, Sym::TempArray { base, len }, nl, nc)?;
                        } else {
                            let r = self.b.reg();
                            self.declare(&name, Sym::Temp(r), nl, nc)?;
                        }
                        if !self.eat_sym(',') {
                            break;
                        }
                    }
                    return self.end_stmt();
                }
                "PARAM" => return self.param_decl(int_kind),
                "ATTRIB" => {
                    let (nl, nc) = self.here();
                    let name = self.ident("an ATTRIB name")?;
                    self.expect_sym('=', "in ATTRIB")?;
                    let (bl, bc) = self.here();
                    let first = self.ident("an attribute binding")?;
                    if first != "invocation" {
                        return Err(diag(bl, bc, format!("compute programs have only invocation.* attributes, not \"{first}\" (NV_compute_program5, \"Program Attribute Variables\")")));
                    }
                    let r = self.invocation_attr()?;
                    self.declare(&name, Sym::Param(r), nl, nc)?;
                    return self.end_stmt();
                }
                "BUFFER" | "BUFFER4" => return self.buffer_decl(if w == "BUFFER" { 4 } else { 16 }),
                _ => return Err(diag(l, c, format!("expected TEMP, PARAM, ATTRIB or BUFFER after a variable modifier, found \"{w}\" {R_GRAMMAR}"))),
            }
        }
    }

    /// After `invocation`: `.name`; returns the builtin's register.
    fn invocation_attr(&mut self) -> Res<Reg> {
        self.expect_sym('.', "after \"invocation\"")?;
        let (l, c) = self.here();
        let n = self.ident("an invocation attribute")?;
        let (key, which): (&'static str, Builtin) = match n.as_str() {
            "localid" => ("localid", Builtin::LocalId),
            "globalid" => ("globalid", Builtin::GlobalId),
            "groupid" => ("groupid", Builtin::GroupId),
            "groupcount" => ("groupcount", Builtin::GroupCount),
            "groupsize" => ("groupsize", Builtin::GroupSize),
            "localindex" => ("localindex", Builtin::LocalIndex),
            _ => {
                return Err(diag(l, c, format!("unknown attribute \"invocation.{n}\"; compute programs have localid, globalid, groupid, groupcount, groupsize and localindex (NV_compute_program5, Table X.1)")));
            }
        };
        Ok(self.builtin_reg(key, which))
    }

    /// `program.local[...]` / `program.env[...]` / `program.storagelen[...]` after "program":
    /// returns (space, first, last); the space is None for storagelen (always 0 for assembly).
    fn program_param(&mut self) -> Res<(Option<Space>, u32, u32)> {
        self.expect_sym('.', "after \"program\"")?;
        let (l, c) = self.here();
        let n = self.ident("\"local\" or \"env\"")?;
        let space = match n.as_str() {
            "local" => Some(Space::ProgramLocal),
            "env" => Some(Space::ProgramEnv),
            // NV_shader_storage_buffer_object: "If the program is an assembly program ... the
            // x component will hold the integer value zero."
            "storagelen" => None,
            "storage" | "sharedmem" | "buffer" => {
                return Err(diag(l, c, format!("\"program.{n}\" bindings can only initialize {} declarations, not be used here {R_GRAMMAR}", match n.as_str() { "storage" => "STORAGE", "sharedmem" => "SHARED", _ => "BUFFER" })));
            }
            _ => {
                return Err(diag(
                    l,
                    c,
                    format!("unknown program parameter binding \"program.{n}\" {R_GRAMMAR}"),
                ))
            }
        };
        self.expect_sym('[', "after the parameter binding")?;
        let a = self.int_u32("as a parameter index")?;
        let b = if self.peek().tok == Tok::DotDot {
            self.next();
            self.int_u32("as a parameter range end")?
        } else {
            a
        };
        self.expect_sym(']', "after the parameter index")?;
        if b < a {
            return Err(diag(
                l,
                c,
                format!("parameter range [{a}..{b}] is empty {R_GRAMMAR}"),
            ));
        }
        if b >= 65536 {
            return Err(diag(
                l,
                c,
                format!("parameter index {b} is above the reference's limit of 65535"),
            ));
        }
        Ok((space, a, b))
    }

    fn param_load(&mut self, space: Option<Space>, index: u32) -> Reg {
        let Some(space) = space else {
            return self.constant([0; 4]);
        };
        let r = self.b.reg();
        let addr = self.constant([u64::from(index) * 16, 0, 0, 0]);
        self.pro.push(Inst::Load {
            space,
            ty: MemTy::new(ScalarTy::U32, 4),
            dst: Dst::new(r),
            addr: Src::new(addr),
        });
        r
    }

    /// A literal scalar or vector in a declaration (`{1, 2, 3, 4}`, `-1.5`).
    fn literal_vec(&mut self, kind: Option<Kind>) -> Res<[u64; 4]> {
        let t = match kind {
            Some(k) => ScalarTy::new(k, 32),
            None => ScalarTy::F32,
        };
        self.literal_vec_typed(t)
    }

    /// A literal scalar or vector encoded for type `t` (64-bit types keep full precision).
    fn literal_vec_typed(&mut self, t: ScalarTy) -> Res<[u64; 4]> {
        if self.eat_sym('{') {
            let mut vals = Vec::new();
            loop {
                let lit = self.literal()?;
                vals.push(lit_bits(t, &lit));
                if !self.eat_sym(',') {
                    break;
                }
            }
            self.expect_sym('}', "after a constant vector")?;
            if vals.len() > 4 {
                return self.err(format!(
                    "a constant vector has at most four components {R_GRAMMAR}"
                ));
            }
            let one = lit_bits(t, &Lit::Int(1, false));
            let mut v = [0, 0, 0, one];
            for (i, x) in vals.iter().enumerate() {
                v[i] = *x;
            }
            Ok(v)
        } else {
            let lit = self.literal()?;
            let x = lit_bits(t, &lit);
            Ok([x; 4])
        }
    }

    fn literal(&mut self) -> Res<Lit> {
        let neg = if self.eat_sym('-') {
            true
        } else {
            self.eat_sym('+');
            false
        };
        match self.peek().tok {
            Tok::Int(v) => {
                self.next();
                Ok(Lit::Int(v, neg))
            }
            Tok::Float(f, g) => {
                self.next();
                Ok(if neg {
                    Lit::Float(-f, -g)
                } else {
                    Lit::Float(f, g)
                })
            }
            ref t => {
                let d = Self::describe(t);
                self.err(format!("expected a number, found {d} {R_GRAMMAR}"))
            }
        }
    }

    fn param_decl(&mut self, kind: Option<Kind>) -> Res<()> {
        let (nl, nc) = self.here();
        let name = self.ident("a PARAM name")?;
        let array = if self.eat_sym('[') {
            let n = if let Tok::Int(_) = self.peek().tok {
                Some(self.int_u32("as the array size")?)
            } else {
                None
            };
            self.expect_sym(']', "after the array size")?;
            Some(n)
        } else {
            None
        };
        self.expect_sym('=', "in PARAM")?;
        match array {
            None => {
                let r = if let Tok::Ident(w) = self.peek().tok.clone() {
                    let (l, c) = self.here();
                    self.next();
                    if w == "program" {
                        let (space, a, b) = self.program_param()?;
                        if a != b {
                            return Err(diag(
                                l,
                                c,
                                format!(
                                    "a single PARAM takes one parameter, not a range {R_GRAMMAR}"
                                ),
                            ));
                        }
                        self.param_load(space, a)
                    } else if w == "state" {
                        return Err(unsupported(l, c, "state.* bindings are not available to compute programs on the reference".into()));
                    } else {
                        return Err(diag(l, c, format!("expected a constant or a program parameter binding, found \"{w}\" {R_GRAMMAR}")));
                    }
                } else {
                    let v = self.literal_vec(kind)?;
                    self.b.constant(v)
                };
                self.declare(&name, Sym::Param(r), nl, nc)?;
            }
            Some(size) => {
                self.expect_sym('{', "to open the PARAM array initializer")?;
                let mut regs = Vec::new();
                loop {
                    if let Tok::Ident(w) = self.peek().tok.clone() {
                        let (l, c) = self.here();
                        self.next();
                        if w != "program" {
                            return Err(diag(l, c, format!("expected a constant or a program parameter binding, found \"{w}\" {R_GRAMMAR}")));
                        }
                        let (space, a, b) = self.program_param()?;
                        for i in a..=b {
                            let r = self.param_load(space, i);
                            regs.push(r);
                        }
                    } else {
                        let v = self.literal_vec(kind)?;
                        let r = self.b.constant(v);
                        regs.push(r);
                    }
                    if regs.len() > 4096
                        || self.private_size as usize + 16 * regs.len()
                            > crate::ir::validate::MAX_PRIVATE_SIZE as usize
                    {
                        return self.err(
                            "PARAM array above the reference's limit of 4096 elements".into(),
                        );
                    }
                    if !self.eat_sym(',') {
                        break;
                    }
                }
                self.expect_sym('}', "to close the PARAM array initializer")?;
                if let Some(n) = size {
                    if n as usize != regs.len() {
                        return Err(diag(nl, nc, format!("PARAM array \"{name}\" declares {n} elements but its initializer has {} (ARB_vertex_program, \"Program Parameters\")", regs.len())));
                    }
                }
                let private_base = self.private_size;
                for (i, r) in regs.iter().enumerate() {
                    let addr = self.constant([u64::from(private_base) + 16 * i as u64, 0, 0, 0]);
                    self.pro.push(Inst::Store {
                        space: Space::Private,
                        ty: MemTy::new(ScalarTy::U32, 4),
                        addr: Src::new(addr),
                        val: Src::new(*r),
                    });
                }
                self.private_size += 16 * regs.len() as u32;
                self.declare(&name, Sym::ParamArray { regs, private_base }, nl, nc)?;
            }
        }
        self.end_stmt()
    }

    fn buffer_decl(&mut self, elem: u32) -> Res<()> {
        let (nl, nc) = self.here();
        let name = self.ident("a BUFFER name")?;
        let braces = if self.eat_sym('[') {
            if let Tok::Int(_) = self.peek().tok {
                self.int("as the array size")?;
            }
            self.expect_sym(']', "after the array size")?;
            self.expect_sym('=', "in BUFFER")?;
            self.expect_sym('{', "to open the BUFFER initializer")?;
            true
        } else {
            self.expect_sym('=', "in BUFFER")?;
            false
        };
        let (binding, base) = self.binding_ref("buffer", "BUFFER")?;
        if braces {
            if self.is_sym(',') {
                let (l, c) = self.here();
                return Err(unsupported(
                    l,
                    c,
                    "BUFFER arrays over several bindings are not supported by the reference".into(),
                ));
            }
            self.expect_sym('}', "to close the BUFFER initializer")?;
        }
        self.declare(
            &name,
            Sym::Buffer {
                binding,
                elem,
                base: base.0 as u32,
            },
            nl,
            nc,
        )?;
        self.end_stmt()
    }

    /// `program.<what>[binding]` with an optional `[a]` / `[a..b]` element range. Returns the
    /// binding and (first element, last element or None).
    fn binding_ref(&mut self, what: &str, decl: &str) -> Res<(u32, (u64, Option<u64>))> {
        let (l, c) = self.here();
        let w = self.ident("a binding")?;
        if w != "program" {
            return Err(diag(l, c, format!("a {decl} declaration needs a \"program.{what}\" binding, found \"{w}\" {R_GRAMMAR}")));
        }
        self.expect_sym('.', "after \"program\"")?;
        let (l2, c2) = self.here();
        let w2 = self.ident("a binding name")?;
        if w2 != what {
            return Err(diag(l2, c2, format!("a {decl} declaration needs a \"program.{what}\" binding, found \"program.{w2}\" {R_GRAMMAR}")));
        }
        self.expect_sym('[', "after the binding name")?;
        let binding = self.int_u32("as the binding point")?;
        if self.peek().tok == Tok::DotDot {
            let (l3, c3) = self.here();
            return Err(unsupported(l3, c3, format!("program.{what}[a..b] ranges of binding points are not supported by the reference")));
        }
        self.expect_sym(']', "after the binding point")?;
        let mut range = (0u64, None);
        if self.eat_sym('[') {
            let a = self.int("as the element")?;
            let b = if self.peek().tok == Tok::DotDot {
                self.next();
                Some(self.int("as the range end")?)
            } else {
                None
            };
            self.expect_sym(']', "after the element")?;
            range = (a, b);
        }
        Ok((binding, range))
    }

    fn storage_decl(&mut self) -> Res<()> {
        self.next();
        let (nl, nc) = self.here();
        let name = self.ident("a STORAGE name")?;
        let braces = if self.eat_sym('[') {
            if let Tok::Int(_) = self.peek().tok {
                self.int("as the array size")?;
            }
            self.expect_sym(']', "after the array size")?;
            self.expect_sym('=', "in STORAGE")?;
            self.expect_sym('{', "to open the STORAGE initializer")?;
            true
        } else {
            self.expect_sym('=', "in STORAGE")?;
            false
        };
        let (binding, (base, _)) = self.binding_ref("storage", "STORAGE")?;
        if braces {
            if self.is_sym(',') {
                let (l, c) = self.here();
                return Err(unsupported(
                    l,
                    c,
                    "STORAGE arrays over several binding points are not supported by the reference"
                        .into(),
                ));
            }
            self.expect_sym('}', "to close the STORAGE initializer")?;
        }
        self.declare(&name, Sym::Storage { binding, base }, nl, nc)?;
        self.end_stmt()
    }

    fn shared_decl(&mut self) -> Res<()> {
        self.next();
        let (nl, nc) = self.here();
        let name = self.ident("a SHARED name")?;
        let braces = if self.eat_sym('[') {
            if let Tok::Int(_) = self.peek().tok {
                self.int("as the array size")?;
            }
            self.expect_sym(']', "after the array size")?;
            self.expect_sym('=', "in SHARED")?;
            self.expect_sym('{', "to open the SHARED initializer")?;
            true
        } else {
            self.expect_sym('=', "in SHARED")?;
            false
        };
        // Items: program.sharedmem[a], program.sharedmem[a..b], program.sharedmem (all). Several
        // items bind their elements in order; the reference supports lists whose items are
        // contiguous (each starts where the previous one ended), which is one range.
        let mut base = 0u32;
        let mut next: Option<Option<u32>> = None; // expected start of the next item
        loop {
            let (l, c) = self.here();
            let w = self.ident("a program.sharedmem binding")?;
            self.expect_sym('.', "after \"program\"")?;
            let w2 = self.ident("\"sharedmem\"")?;
            if w != "program" || w2 != "sharedmem" {
                return Err(diag(l, c, format!("a SHARED declaration needs a \"program.sharedmem\" binding, found \"{w}.{w2}\" {R_SHARED_VARS}")));
            }
            let (a, end) = if self.eat_sym('[') {
                let a = self.int_u32("as the shared memory element")?;
                let mut e = a;
                if self.peek().tok == Tok::DotDot {
                    if !braces {
                        return self.err(format!("a range program.sharedmem[a..b] needs the array form SHARED name[] = {{ ... }} {R_SHARED_VARS}"));
                    }
                    self.next();
                    e = self.int_u32("as the range end")?;
                    if e < a {
                        return Err(diag(
                            l,
                            c,
                            format!("shared memory range [{a}..{e}] is empty {R_SHARED_VARS}"),
                        ));
                    }
                }
                self.expect_sym(']', "after the shared memory element")?;
                (a, Some(e))
            } else if !braces {
                return self.err(format!("\"program.sharedmem\" without an element needs the array form SHARED name[] = {{ program.sharedmem }} {R_SHARED_VARS}"));
            } else {
                (0, None)
            };
            match next {
                None => base = a,
                Some(Some(expected)) if expected == a => {}
                Some(_) => {
                    return Err(unsupported(l, c, "SHARED initializers whose items are not contiguous are not supported by the reference".into()));
                }
            }
            next = Some(end.and_then(|e| e.checked_add(1)));
            if !(braces && self.eat_sym(',')) {
                break;
            }
        }
        if braces {
            self.expect_sym('}', "to close the SHARED initializer")?;
        }
        self.declare(&name, Sym::Shared { base }, nl, nc)?;
        self.end_stmt()
    }
}

/// A parsed instruction result: register, write mask, optional condition-code write mask.
struct Res_ {
    reg: Reg,
    mask: u8,
    ccmask: Option<(CcTest, usize, [u8; 4])>,
    /// For a TEMP array element: its private-memory address; `reg` holds a copy of the
    /// element that is stored back after the instruction.
    store_back: Option<Src>,
}

/// How TEMP array elements are kept in private memory: four raw 64-bit slots.
const TEMP_ELEM: MemTy = MemTy {
    scalar: ScalarTy::U64,
    lanes: 4,
    widen: false,
};

fn float_only(op: &str) -> bool {
    matches!(
        op,
        "RCP"
            | "RSQ"
            | "EX2"
            | "LG2"
            | "SIN"
            | "COS"
            | "POW"
            | "DP2"
            | "DP3"
            | "DP4"
            | "DPH"
            | "FRC"
            | "SSG"
    )
}

fn int_only(op: &str) -> bool {
    matches!(
        op,
        "AND"
            | "OR"
            | "XOR"
            | "NOT"
            | "SHL"
            | "SHR"
            | "MOD"
            | "I2F"
            | "BFE"
            | "BFI"
            | "BFR"
            | "BTC"
            | "BTFL"
            | "BTFM"
    )
}

impl Cx {
    /// Parses `.MOD.MOD...` after an opcode.
    fn mods(&mut self, op: &str) -> Res<Mods> {
        let mem = matches!(
            op,
            "LDB" | "STB" | "ATOMB" | "LDS" | "STS" | "ATOMS" | "CVT"
        );
        let atomic = matches!(op, "ATOMB" | "ATOMS");
        let mut m = Mods::default();
        while self.is_sym('.') {
            self.next();
            let (l, c) = self.here();
            let name = self.ident("an instruction modifier")?;
            let up = upper(&name);
            let dup = |what: &str| diag(l, c, format!("{op} has two {what} modifiers {R_INSTR}"));
            match up.as_str() {
                "CC" | "CC0" | "CC1" => {
                    if m.cc.is_some() {
                        return Err(dup("condition code"));
                    }
                    m.cc = Some(if up == "CC1" { 1 } else { 0 });
                }
                "SAT" | "SSAT" => {
                    if m.sat.is_some() {
                        return Err(dup("saturation"));
                    }
                    m.sat = Some(up == "SSAT");
                }
                "ROUND" | "CEIL" | "FLR" | "TRUNC" => {
                    if m.round.is_some() {
                        return Err(dup("rounding"));
                    }
                    m.round = Some(match up.as_str() {
                        "ROUND" => UnOp::RoundEven,
                        "CEIL" => UnOp::Ceil,
                        "FLR" => UnOp::Floor,
                        _ => UnOp::Trunc,
                    });
                }
                "CTA" if op == "MEMBAR" => m.cta = true,
                "S24" | "U24" | "NTC" => {
                    return Err(unsupported(
                        l,
                        c,
                        format!("instruction modifier {up} is not modeled by the reference"),
                    ));
                }
                // Memory ordering hints: the interpreter is sequentially consistent, so
                // coherent/volatile accesses behave as all accesses do; PREC has no effect on
                // an exactly-rounding interpreter.
                "COH" | "VOL" if mem && op != "CVT" => {}
                "PREC" => {}
                "HI" if op == "MUL" => m.hi = true,
                "ADD" | "MIN" | "MAX" | "IWRAP" | "DWRAP" | "AND" | "OR" | "XOR" | "EXCH"
                | "CSWAP"
                    if atomic =>
                {
                    if m.atomic.is_some() {
                        return Err(diag(l, c, format!("{op} takes exactly one atomic modifier, found a second one (\"{up}\") {R_ATOMS}")));
                    }
                    m.atomic = Some(match up.as_str() {
                        "ADD" => AtomicOp::Add,
                        "MIN" => AtomicOp::Min,
                        "MAX" => AtomicOp::Max,
                        "IWRAP" => AtomicOp::IWrap,
                        "DWRAP" => AtomicOp::DWrap,
                        "AND" => AtomicOp::And,
                        "OR" => AtomicOp::Or,
                        "XOR" => AtomicOp::Xor,
                        "EXCH" => AtomicOp::Exch,
                        _ => AtomicOp::CmpXchg,
                    });
                }
                "F" | "U" | "S" if mem => {
                    return Err(diag(l, c, format!("{op} supports no data type modifiers, it takes a storage modifier (U32, S32, F32, ...) instead {R_INSTR}")));
                }
                "F" | "U" | "S" | "F32" | "U32" | "S32" | "F64" | "U64" | "S64" if !mem => {
                    if m.dtype.is_some() {
                        return Err(dup("data type"));
                    }
                    let k = match &up[..1] {
                        "F" => Kind::F,
                        "U" => Kind::U,
                        _ => Kind::S,
                    };
                    let bits = if up.len() == 1 {
                        32
                    } else {
                        up[1..].parse().unwrap_or(32)
                    };
                    m.dtype = Some(ScalarTy::new(k, bits));
                }
                _ => match parse_storage(&up) {
                    Some(t) if mem => m.storage.push(t),
                    Some(_) => {
                        return Err(diag(
                            l,
                            c,
                            format!("storage modifier \"{up}\" is not allowed on {op} {R_INSTR}"),
                        ));
                    }
                    None => {
                        return Err(diag(l, c, format!("unknown or misplaced instruction modifier \"{name}\" on {op} {R_INSTR}")));
                    }
                },
            }
        }
        Ok(m)
    }

    /// The operation type of an ALU instruction from its data type modifier.
    fn op_type(&self, op: &str, m: &Mods) -> Res<ScalarTy> {
        let def = if int_only(op) {
            ScalarTy::S32
        } else {
            ScalarTy::F32
        };
        let t = m.dtype.unwrap_or(def);
        let (l, c) = self.cur_loc;
        if float_only(op) && t.kind != Kind::F {
            return Err(diag(
                l,
                c,
                format!("{op} supports only floating-point data types {R_INSTR}"),
            ));
        }
        if int_only(op) && t.kind == Kind::F {
            return Err(diag(
                l,
                c,
                format!("{op} supports only integer data types (S, U) {R_INSTR}"),
            ));
        }
        if m.sat.is_some() && t.kind != Kind::F {
            return Err(diag(
                l,
                c,
                format!("saturation modifiers apply only to floating-point operations {R_INSTR}"),
            ));
        }
        Ok(t)
    }

    fn swizzle(&mut self) -> Res<[u8; 4]> {
        if !self.is_sym('.') {
            return Ok([0, 1, 2, 3]);
        }
        self.next();
        let (l, c) = self.here();
        let s = self.ident("a swizzle")?;
        let comps: Option<Vec<u8>> = s.chars().map(swz_char).collect();
        match comps {
            Some(v) if v.len() == 1 => Ok([v[0]; 4]),
            Some(v) if v.len() == 4 => Ok([v[0], v[1], v[2], v[3]]),
            _ => Err(diag(
                l,
                c,
                format!(
                    "invalid swizzle \".{s}\": use one component or four (x, y, z, w) {R_GRAMMAR}"
                ),
            )),
        }
    }

    /// Parses a relative or absolute index inside `[...]`; returns (dynamic src, constant).
    fn index(&mut self) -> Res<(Option<Src>, i64)> {
        self.expect_sym('[', "to open an index")?;
        let r = match self.peek().tok.clone() {
            Tok::Int(v) => {
                self.next();
                (None, i64::try_from(v).unwrap_or(i64::MAX))
            }
            Tok::Ident(name) => {
                let (l, c) = self.here();
                self.next();
                let reg = match self.syms.get(&name) {
                    Some(Sym::Temp(r)) | Some(Sym::Param(r)) => *r,
                    Some(s) => {
                        let w = s.what();
                        return Err(diag(l, c, format!("\"{name}\" is {w}; an index must be a TEMP or PARAM component {R_GRAMMAR}")));
                    }
                    None => {
                        return Err(diag(
                            l,
                            c,
                            format!("undeclared variable \"{name}\" {R_GRAMMAR}"),
                        ))
                    }
                };
                if !self.is_sym('.') {
                    return self.err(format!(
                        "a relative index needs a scalar component, like \"{name}.x\" {R_GRAMMAR}"
                    ));
                }
                let sw = self.swizzle()?;
                if sw[0] != sw[1] || sw[0] != sw[2] || sw[0] != sw[3] {
                    return Err(diag(l, c, format!("a relative index takes one component, not a four-component swizzle {R_GRAMMAR}")));
                }
                let mut k = 0i64;
                if self.is_sym('+') || self.is_sym('-') {
                    let neg = self.is_sym('-');
                    self.next();
                    let v = i64::try_from(self.int("as an index offset")?).unwrap_or(i64::MAX);
                    k = if neg { -v } else { v };
                }
                (Some(Src::splat(reg, sw[0])), k)
            }
            t => {
                let d = Self::describe(&t);
                return self.err(format!("expected an index, found {d} {R_GRAMMAR}"));
            }
        };
        self.expect_sym(']', "to close an index")?;
        Ok(r)
    }

    /// A source operand of an instruction of type `t`.
    fn src(&mut self, t: ScalarTy, op: &str) -> Res<Src> {
        Ok(self.src_ex(t, op)?.0)
    }

    /// A source operand, and the operand before negation when it was negated (for the carry
    /// and overflow flags, where "negation modifiers turn add operations into subtracts").
    fn src_ex(&mut self, t: ScalarTy, op: &str) -> Res<(Src, Option<Src>)> {
        let mut neg = if self.eat_sym('-') {
            true
        } else {
            self.eat_sym('+');
            false
        };
        let abs = self.eat_sym('|');
        if abs && self.eat_sym('-') {
            // |-x| is |x|
        }
        let mut src = match self.peek().tok.clone() {
            Tok::Int(_) | Tok::Float(..) => {
                let mut lit = self.literal()?;
                if neg && !abs {
                    lit = match lit {
                        Lit::Int(v, n) => Lit::Int(v, !n),
                        Lit::Float(f, g) => Lit::Float(-f, -g),
                    };
                    neg = false;
                }
                let x = lit_bits(t, &lit);
                let r = self.constant([x; 4]);
                Src::new(r)
            }
            Tok::Sym('{') => {
                let v = self.literal_vec_typed(t)?;
                let r = self.constant(v);
                let sw = self.swizzle()?;
                Src::swizzled(r, sw)
            }
            Tok::Ident(name) => {
                let (l, c) = self.here();
                self.next();
                let reg = if name == "invocation" {
                    self.invocation_attr()?
                } else if name == "program" {
                    let (space, a, b) = self.program_param()?;
                    if a != b {
                        return Err(diag(
                            l,
                            c,
                            format!("a parameter range cannot be an operand {R_GRAMMAR}"),
                        ));
                    }
                    self.param_load(space, a)
                } else {
                    match self.syms.get(&name).cloned() {
                        Some(Sym::Temp(r)) | Some(Sym::Param(r)) => r,
                        Some(Sym::TempArray { base, len }) => {
                            let addr = self.temp_array_addr(&name, base, len, l, c)?;
                            let e = self.scratch();
                            self.emit(Inst::Load {
                                space: Space::Private,
                                ty: TEMP_ELEM,
                                dst: Dst::new(e),
                                addr,
                            });
                            e
                        }
                        Some(Sym::ParamArray { regs, private_base }) => {
                            let (dynamic, k) = self.index()?;
                            match dynamic {
                                None => match usize::try_from(k).ok().and_then(|k| regs.get(k)) {
                                    Some(r) => *r,
                                    None => {
                                        return Err(diag(l, c, format!("index {k} is out of range for PARAM array \"{name}\" of {} elements (ARB_vertex_program, \"Program Parameter Arrays\")", regs.len())));
                                    }
                                },
                                Some(d) => {
                                    // private_base + 16 * (d + k)
                                    let s1 = self.scratch();
                                    let kc = self.constant([(k as u64) & 0xffff_ffff; 4]);
                                    self.emit(Inst::Bin {
                                        op: BinOp::Add,
                                        ty: Ty::new(ScalarTy::U32, 1),
                                        dst: Dst::new(s1),
                                        a: d,
                                        b: Src::new(kc),
                                    });
                                    let sh = self.constant([4; 4]);
                                    self.emit(Inst::Bin {
                                        op: BinOp::Shl,
                                        ty: Ty::new(ScalarTy::U32, 1),
                                        dst: Dst::new(s1),
                                        a: Src::new(s1),
                                        b: Src::new(sh),
                                    });
                                    let bc = self.constant([u64::from(private_base); 4]);
                                    self.emit(Inst::Bin {
                                        op: BinOp::Add,
                                        ty: Ty::new(ScalarTy::U32, 1),
                                        dst: Dst::new(s1),
                                        a: Src::new(s1),
                                        b: Src::new(bc),
                                    });
                                    let s2 = self.scratch();
                                    self.emit(Inst::Load {
                                        space: Space::Private,
                                        ty: MemTy::new(ScalarTy::U32, 4),
                                        dst: Dst::new(s2),
                                        addr: Src::new(s1),
                                    });
                                    s2
                                }
                            }
                        }
                        Some(Sym::Buffer {
                            binding,
                            elem,
                            base,
                        }) => {
                            let (dynamic, k) = self.index()?;
                            let s1 = self.scratch();
                            let off = i64::from(base)
                                .saturating_add(k)
                                .saturating_mul(i64::from(elem));
                            let kc = self.constant([(off as u64) & 0xffff_ffff; 4]);
                            match dynamic {
                                None => self.emit(Inst::Mov {
                                    dst: Dst::new(s1),
                                    a: Src::new(kc),
                                }),
                                Some(d) => {
                                    let ec = self.constant([u64::from(elem); 4]);
                                    self.emit(Inst::Mad {
                                        ty: Ty::new(ScalarTy::U32, 1),
                                        dst: Dst::new(s1),
                                        a: d,
                                        b: Src::new(ec),
                                        c: Src::new(kc),
                                    })
                                }
                            };
                            let s2 = self.scratch();
                            let lanes = if elem == 16 { 4 } else { 1 };
                            self.emit(Inst::Load {
                                space: Space::ParamBuffer(binding),
                                ty: MemTy::new(ScalarTy::U32, lanes),
                                dst: Dst::new(s2),
                                addr: Src::new(s1),
                            });
                            if lanes == 1 {
                                self.emit(Inst::Mov {
                                    dst: Dst::new(s2),
                                    a: Src::splat(s2, 0),
                                });
                            }
                            s2
                        }
                        Some(Sym::Shared { .. }) => {
                            return Err(diag(l, c, format!("shared variable \"{name}\" used as an operand of {op}: shared memory variables may only be operands of ATOMS, LDS and STS {R_SHARED_VARS}")));
                        }
                        Some(Sym::Storage { .. }) => {
                            return Err(diag(l, c, format!("storage buffer variable \"{name}\" used as an operand of {op}: storage variables may only be operands of ATOMB, LDB and STB {R_SSBO}")));
                        }
                        None => {
                            return Err(diag(
                                l,
                                c,
                                format!("undeclared variable \"{name}\" {R_GRAMMAR}"),
                            ))
                        }
                    }
                };
                let sw = self.swizzle()?;
                Src::swizzled(reg, sw)
            }
            t => {
                let d = Self::describe(&t);
                return self.err(format!("expected an operand, found {d} {R_GRAMMAR}"));
            }
        };
        if abs {
            self.expect_sym('|', "to close an absolute value")?;
            let s = self.scratch();
            self.emit(Inst::Un {
                op: UnOp::Abs,
                ty: Ty::vec4(t),
                dst: Dst::new(s),
                a: src,
            });
            src = Src::new(s);
        }
        let mut plain = None;
        if neg {
            let s = self.scratch();
            self.emit(Inst::Un {
                op: UnOp::Neg,
                ty: Ty::vec4(t),
                dst: Dst::new(s),
                a: src,
            });
            plain = Some(src);
            src = Src::new(s);
        }
        Ok((src, plain))
    }

    /// Parses `[index]` after a TEMP array name and emits its private-memory address.
    fn temp_array_addr(&mut self, name: &str, base: u32, len: u32, l: u32, c: u32) -> Res<Src> {
        let (dynamic, k) = self.index()?;
        match dynamic {
            None => {
                if k < 0 || k >= i64::from(len) {
                    return Err(diag(l, c, format!("index {k} is out of range for TEMP array \"{name}\" of {len} elements (NV_gpu_program4, \"Program Variables\")")));
                }
                Ok(Src::new(self.constant([
                    u64::from(base) + 32 * k as u64,
                    0,
                    0,
                    0,
                ])))
            }
            Some(d) => {
                // base + 32 * (d + k); an index out of range is undefined ("could result in
                // overwriting other program variables"): it reaches other arrays or is dropped.
                let s1 = self.scratch();
                let kc = self.constant([(k as u64) & 0xffff_ffff; 4]);
                let u1 = Ty::new(ScalarTy::U32, 1);
                self.emit(Inst::Bin {
                    op: BinOp::Add,
                    ty: u1,
                    dst: Dst::new(s1),
                    a: d,
                    b: Src::new(kc),
                });
                let c32 = self.constant([32; 4]);
                let bc = self.constant([u64::from(base); 4]);
                self.emit(Inst::Mad {
                    ty: u1,
                    dst: Dst::new(s1),
                    a: Src::new(s1),
                    b: Src::new(c32),
                    c: Src::new(bc),
                });
                Ok(Src::new(s1))
            }
        }
    }

    fn cc_test(&mut self) -> Res<(CcTest, usize, [u8; 4])> {
        let (l, c) = self.here();
        let name = upper(&self.ident("a condition code test")?);
        let (base, idx) = match name.strip_suffix('0') {
            Some(b) => (b.to_string(), 0),
            None => match name.strip_suffix('1') {
                Some(b) => (b.to_string(), 1),
                None => (name.clone(), 0),
            },
        };
        let t = match base.as_str() {
            "EQ" => CcTest::Eq,
            "NE" => CcTest::Ne,
            "LT" => CcTest::Lt,
            "LE" => CcTest::Le,
            "GT" => CcTest::Gt,
            "GE" => CcTest::Ge,
            "TR" => CcTest::Tr,
            "FL" => CcTest::Fl,
            "NAN" => CcTest::Nan,
            "LEG" => CcTest::Leg,
            "SF" => CcTest::Sf,
            "NSF" => CcTest::Nsf,
            "CF" => CcTest::Cf,
            "NCF" => CcTest::Ncf,
            "OF" => CcTest::Of,
            "NOF" => CcTest::Nof,
            "AB" => CcTest::Ab,
            "BLE" => CcTest::Ble,
            _ => {
                return Err(diag(
                    l,
                    c,
                    format!("unknown condition code test \"{name}\" (NV_gpu_program4, Table X.16)"),
                ))
            }
        };
        let sw = self.swizzle()?;
        Ok((t, idx, sw))
    }

    /// Emits the test of a condition code into a scratch register; returns it.
    fn emit_cc_test(&mut self, cc: (CcTest, usize, [u8; 4])) -> Reg {
        let s = self.scratch();
        let ccr = self.cc[cc.1];
        self.emit(Inst::TestCc {
            test: cc.0,
            dst: Dst::new(s),
            cc: Src::swizzled(ccr, cc.2),
        });
        s
    }

    fn result(&mut self, op: &str) -> Res<Res_> {
        let (l, c) = self.here();
        let name = self.ident("a result variable")?;
        let mut store_back = None;
        let reg = match self.syms.get(&name).cloned() {
            Some(Sym::Temp(r)) => r,
            Some(Sym::TempArray { base, len }) => {
                let addr = self.temp_array_addr(&name, base, len, l, c)?;
                let e = self.scratch();
                self.emit(Inst::Load {
                    space: Space::Private,
                    ty: TEMP_ELEM,
                    dst: Dst::new(e),
                    addr,
                });
                store_back = Some(addr);
                e
            }
            Some(Sym::Shared { .. }) => {
                return Err(diag(l, c, format!("shared variable \"{name}\" used as the result of {op}: shared memory variables may only be operands of ATOMS, LDS and STS {R_SHARED_VARS}")));
            }
            Some(Sym::Storage { .. }) => {
                return Err(diag(l, c, format!("storage buffer variable \"{name}\" used as the result of {op}: storage variables may only be operands of ATOMB, LDB and STB {R_SSBO}")));
            }
            Some(s) => {
                let w = s.what();
                return Err(diag(l, c, format!("\"{name}\" is {w} and cannot be written; results must be TEMP variables {R_GRAMMAR}")));
            }
            None => {
                if name == "program" || name == "invocation" {
                    return Err(diag(l, c, format!("\"{name}.*\" bindings are read-only; compute programs have no result bindings (NV_compute_program5, \"Program Results\")")));
                }
                return Err(diag(
                    l,
                    c,
                    format!("undeclared variable \"{name}\" {R_GRAMMAR}"),
                ));
            }
        };
        let mut mask = 0xF;
        if self.is_sym('.') {
            self.next();
            let (ml, mc) = self.here();
            let s = self.ident("a write mask")?;
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
        Ok(Res_ {
            reg,
            mask,
            ccmask,
            store_back,
        })
    }

    /// Where to compute an instruction's value: straight into the result, or into a scratch
    /// register when a condition-code mask or update needs the value first.
    fn target(&mut self, r: &Res_, m: &Mods) -> Dst {
        if r.ccmask.is_none() && m.cc.is_none() {
            Dst::masked(r.reg, r.mask)
        } else {
            Dst::new(self.scratch())
        }
    }

    /// Finishes an ALU instruction: saturation, condition-code mask, condition-code update.
    fn writeback(&mut self, t: ScalarTy, r: &Res_, m: &Mods, d: Dst) {
        if let Some(ssat) = m.sat {
            let lo = self.constant(
                [if t.bits == 64 {
                    (if ssat { -1.0f64 } else { 0.0 }).to_bits()
                } else {
                    u64::from((if ssat { -1.0f32 } else { 0.0 }).to_bits())
                }; 4],
            );
            let hi = self.constant(
                [if t.bits == 64 {
                    1.0f64.to_bits()
                } else {
                    u64::from(1.0f32.to_bits())
                }; 4],
            );
            self.emit(Inst::Bin {
                op: BinOp::Max,
                ty: Ty::vec4(t),
                dst: d,
                a: Src::new(d.reg),
                b: Src::new(lo),
            });
            self.emit(Inst::Bin {
                op: BinOp::Min,
                ty: Ty::vec4(t),
                dst: d,
                a: Src::new(d.reg),
                b: Src::new(hi),
            });
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
                Some((a, b, sub)) if t.kind != Kind::F => self.emit(Inst::SetCcAdd {
                    ty: Ty::vec4(t),
                    sub,
                    dst: Dst::new(f),
                    a,
                    b,
                }),
                _ => self.emit(Inst::SetCc {
                    ty: Ty::vec4(t),
                    dst: Dst::new(f),
                    a: Src::new(d.reg),
                }),
            };
            f
        });
        match cond {
            Some(cr) => {
                self.emit(Inst::Select {
                    lanes: 4,
                    dst: Dst::masked(r.reg, r.mask),
                    cond: Src::new(cr),
                    a: Src::new(d.reg),
                    b: Src::new(r.reg),
                });
            }
            None => {
                self.emit(Inst::Mov {
                    dst: Dst::masked(r.reg, r.mask),
                    a: Src::new(d.reg),
                });
            }
        }
        if let (Some(k), Some(f)) = (m.cc, flags) {
            let ccr = self.cc[k];
            match cond {
                Some(cr) => self.emit(Inst::Select {
                    lanes: 4,
                    dst: Dst::masked(ccr, r.mask),
                    cond: Src::new(cr),
                    a: Src::new(f),
                    b: Src::new(ccr),
                }),
                None => self.emit(Inst::Mov {
                    dst: Dst::masked(ccr, r.mask),
                    a: Src::new(f),
                }),
            };
        }
    }
}

impl Cx {
    fn comma(&mut self, op: &str) -> Res<()> {
        self.expect_sym(',', &format!("between the operands of {op}"))
    }

    fn true_false(t: ScalarTy) -> ([u64; 4], [u64; 4]) {
        let tv = match (t.kind, t.bits) {
            (Kind::F, 64) => 1.0f64.to_bits(),
            (Kind::F, _) => u64::from(1.0f32.to_bits()),
            _ => t.mask(),
        };
        ([tv; 4], [0; 4])
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

    fn alu(&mut self, op: &'static str, m: &Mods) -> Res<()> {
        let t = self.op_type(op, m)?;
        let v4 = Ty::vec4(t);
        let r = self.result(op)?;
        let d = self.target(&r, m);
        let un = |o: UnOp| Some(o);
        let unary = match op {
            "ABS" => un(UnOp::Abs),
            "FRC" => un(UnOp::Fract),
            "SSG" => un(UnOp::Sign),
            "NOT" => un(UnOp::Not),
            "BFR" => un(UnOp::BitReverse),
            "BTC" => un(UnOp::BitCount),
            "BTFL" => un(UnOp::FindLsb),
            "BTFM" => un(UnOp::FindMsb),
            _ => None,
        };
        let binary = match op {
            "ADD" => Some(BinOp::Add),
            "SUB" => Some(BinOp::Sub),
            "MUL" => Some(if m.hi { BinOp::MulHi } else { BinOp::Mul }),
            "MIN" => Some(BinOp::Min),
            "MAX" => Some(BinOp::Max),
            "AND" => Some(BinOp::And),
            "OR" => Some(BinOp::Or),
            "XOR" => Some(BinOp::Xor),
            _ => None,
        };
        let scalar_second = match op {
            "DIV" => Some(BinOp::Div),
            "MOD" => Some(BinOp::Rem),
            "SHL" => Some(BinOp::Shl),
            "SHR" => Some(BinOp::Shr),
            _ => None,
        };
        let set_on = match op {
            "SEQ" => Some(CmpOp::Eq),
            "SNE" => Some(CmpOp::Ne),
            "SLT" => Some(CmpOp::Lt),
            "SLE" => Some(CmpOp::Le),
            "SGT" => Some(CmpOp::Gt),
            "SGE" => Some(CmpOp::Ge),
            _ => None,
        };
        let scalar_un = match op {
            "RCP" => Some(UnOp::Rcp),
            "RSQ" => Some(UnOp::Rsq),
            "EX2" => Some(UnOp::Exp2),
            "LG2" => Some(UnOp::Log2),
            "SIN" => Some(UnOp::Sin),
            "COS" => Some(UnOp::Cos),
            _ => None,
        };
        if r.reg == d.reg && m.hi && t.kind == Kind::F {
            return self.err(format!("MUL.HI needs an integer data type {R_INSTR}"));
        }
        self.comma(op)?;
        if op == "MOV" {
            let a = self.src(t, op)?;
            self.emit(Inst::Mov { dst: d, a });
        } else if let Some(u) = unary {
            let a = self.src(t, op)?;
            self.emit(Inst::Un {
                op: u,
                ty: v4,
                dst: d,
                a,
            });
        } else if matches!(op, "FLR" | "CEIL" | "TRUNC" | "ROUND") {
            // vf input: the operand is floating-point; an integer data type converts the result.
            let ft = if t.kind == Kind::F { t } else { ScalarTy::F32 };
            let a = self.src(ft, op)?;
            let u = match op {
                "FLR" => UnOp::Floor,
                "CEIL" => UnOp::Ceil,
                "TRUNC" => UnOp::Trunc,
                _ => UnOp::RoundEven,
            };
            if t.kind == Kind::F {
                self.emit(Inst::Un {
                    op: u,
                    ty: v4,
                    dst: d,
                    a,
                });
            } else {
                let s = self.scratch();
                self.emit(Inst::Un {
                    op: u,
                    ty: Ty::vec4(ft),
                    dst: Dst::new(s),
                    a,
                });
                self.emit(Inst::Convert {
                    from: ft,
                    to: t,
                    lanes: 4,
                    dst: d,
                    a: Src::new(s),
                });
            }
        } else if let Some(bop) = binary {
            let (a, a0) = self.src_ex(t, op)?;
            self.comma(op)?;
            let (b, b0) = self.src_ex(t, op)?;
            if m.cc.is_some() && t.kind != Kind::F && matches!(op, "ADD" | "SUB") {
                // Carry/overflow flags of the add or subtract the operands spell, with
                // negations folded in (NV_gpu_program4 section 2.X.4.3).
                let sub = op == "SUB";
                self.pending_carry = Some(match (a0, b0) {
                    (None, Some(b0)) => (a, b0, !sub),
                    (Some(a0), None) if !sub => (b, a0, true),
                    // -A-B and the like: undefined carry/overflow; the flags of the plain
                    // operation on the negated values.
                    _ => (a, b, sub),
                });
            }
            self.emit(Inst::Bin {
                op: bop,
                ty: v4,
                dst: d,
                a,
                b,
            });
        } else if let Some(bop) = scalar_second {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let b = self.src(
                if matches!(op, "SHL" | "SHR") {
                    ScalarTy::new(t.kind, 32)
                } else {
                    t
                },
                op,
            )?;
            let b = Src::splat(b.reg, b.swz[0]);
            self.emit(Inst::Bin {
                op: bop,
                ty: v4,
                dst: d,
                a,
                b,
            });
        } else if let Some(cop) = set_on {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let b = self.src(t, op)?;
            let s = self.scratch();
            self.emit(Inst::Cmp {
                op: cop,
                ty: v4,
                dst: Dst::new(s),
                a,
                b,
            });
            let (tv, fv) = Self::true_false(t);
            let (tr, fr) = (self.constant(tv), self.constant(fv));
            self.emit(Inst::Select {
                lanes: 4,
                dst: d,
                cond: Src::new(s),
                a: Src::new(tr),
                b: Src::new(fr),
            });
        } else if op == "SFL" || op == "STR" {
            let _ = self.src(t, op)?;
            self.comma(op)?;
            let _ = self.src(t, op)?;
            let (tv, fv) = Self::true_false(t);
            let k = self.constant(if op == "STR" { tv } else { fv });
            self.emit(Inst::Mov {
                dst: d,
                a: Src::new(k),
            });
        } else if let Some(u) = scalar_un {
            let a = self.src(t, op)?;
            self.emit(Inst::Un {
                op: u,
                ty: v4,
                dst: d,
                a: Src::splat(a.reg, a.swz[0]),
            });
        } else if op == "POW" {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let b = self.src(t, op)?;
            self.emit(Inst::Bin {
                op: BinOp::Pow,
                ty: v4,
                dst: d,
                a: Src::splat(a.reg, a.swz[0]),
                b: Src::splat(b.reg, b.swz[0]),
            });
        } else if op == "MAD" {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let b = self.src(t, op)?;
            self.comma(op)?;
            let (cc, c0) = self.src_ex(t, op)?;
            if m.cc.is_some() && t.kind != Kind::F {
                let p = self.scratch();
                self.emit(Inst::Bin {
                    op: BinOp::Mul,
                    ty: v4,
                    dst: Dst::new(p),
                    a,
                    b,
                });
                self.pending_carry = Some(match c0 {
                    Some(c0) => (Src::new(p), c0, true),
                    None => (Src::new(p), cc, false),
                });
            }
            self.emit(Inst::Mad {
                ty: v4,
                dst: d,
                a,
                b,
                c: cc,
            });
        } else if op == "CMP" {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let b = self.src(t, op)?;
            self.comma(op)?;
            let cc = self.src(t, op)?;
            let s = self.scratch();
            let z = self.constant([0; 4]);
            self.emit(Inst::Cmp {
                op: CmpOp::Lt,
                ty: v4,
                dst: Dst::new(s),
                a,
                b: Src::new(z),
            });
            self.emit(Inst::Select {
                lanes: 4,
                dst: d,
                cond: Src::new(s),
                a: b,
                b: cc,
            });
        } else if matches!(op, "DP2" | "DP3" | "DP4" | "DPH") {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let b = self.src(t, op)?;
            let p = self.scratch();
            self.emit(Inst::Bin {
                op: BinOp::Mul,
                ty: v4,
                dst: Dst::new(p),
                a,
                b,
            });
            let n = match op {
                "DP2" => 2,
                "DP3" | "DPH" => 3,
                _ => 4,
            };
            let acc = self.scratch();
            self.emit(Inst::Bin {
                op: BinOp::Add,
                ty: Ty::new(t, 1),
                dst: Dst::new(acc),
                a: Src::splat(p, 0),
                b: Src::splat(p, 1),
            });
            for k in 2..n {
                self.emit(Inst::Bin {
                    op: BinOp::Add,
                    ty: Ty::new(t, 1),
                    dst: Dst::new(acc),
                    a: Src::splat(acc, 0),
                    b: Src::splat(p, k),
                });
            }
            if op == "DPH" {
                self.emit(Inst::Bin {
                    op: BinOp::Add,
                    ty: Ty::new(t, 1),
                    dst: Dst::new(acc),
                    a: Src::splat(acc, 0),
                    b: Src::splat(b.reg, b.swz[3]),
                });
            }
            self.emit(Inst::Mov {
                dst: d,
                a: Src::splat(acc, 0),
            });
        } else if op == "I2F" {
            let a = self.src(t, op)?;
            let to = if t.bits == 64 {
                ScalarTy::F64
            } else {
                ScalarTy::F32
            };
            self.emit(Inst::Convert {
                from: t,
                to,
                lanes: 4,
                dst: d,
                a,
            });
            return self.finish_alu(to, &r, m, d);
        } else if op == "BFE" {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let b = self.src(t, op)?;
            self.emit(Inst::BitfieldExtract {
                ty: v4,
                form: BitfieldForm::Separate,
                dst: d,
                a: b,
                offset: Src::splat(a.reg, a.swz[1]),
                width: Src::splat(a.reg, a.swz[0]),
            });
        } else if op == "BFI" {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let ins = self.src(t, op)?;
            self.comma(op)?;
            let base = self.src(t, op)?;
            self.emit(Inst::BitfieldInsert {
                ty: v4,
                form: BitfieldForm::Separate,
                dst: d,
                base,
                insert: ins,
                offset: Src::splat(a.reg, a.swz[1]),
                width: Src::splat(a.reg, a.swz[0]),
            });
        } else if op == "PK64" {
            let a = self.src(ScalarTy::new(t.kind, 32), op)?;
            self.emit(Inst::Pack64 { dst: d, a });
            return self.finish_alu(ScalarTy::new(t.kind, 64), &r, m, d);
        } else if op == "UP64" {
            let a = self.src(ScalarTy::new(t.kind, 64), op)?;
            self.emit(Inst::Unpack64 { dst: d, a });
            return self.finish_alu(ScalarTy::new(t.kind, 32), &r, m, d);
        } else {
            return self.err(format!("instruction {op} is not handled {R_INSTR}"));
        }
        self.finish_alu(t, &r, m, d)
    }

    fn finish_alu(&mut self, t: ScalarTy, r: &Res_, m: &Mods, d: Dst) -> Res<()> {
        self.writeback(t, r, m, d);
        if let Some(addr) = r.store_back {
            self.emit(Inst::Store {
                space: Space::Private,
                ty: TEMP_ELEM,
                addr,
                val: Src::new(r.reg),
            });
        }
        self.end_stmt()
    }

    fn cvt(&mut self, m: &Mods, l: u32, c: u32) -> Res<()> {
        if m.storage.len() != 2 {
            return Err(diag(l, c, format!("CVT requires two storage modifiers (result type, then operand type), found {} (NV_gpu_program5, \"CVT\")", m.storage.len())));
        }
        let (to, from) = (m.storage[0], m.storage[1]);
        if to.lanes > 1 || from.lanes > 1 {
            return Err(diag(
                l,
                c,
                "CVT takes scalar storage modifiers (no X2/X4) (NV_gpu_program5, \"CVT\")"
                    .to_string(),
            ));
        }
        let r = self.result("CVT")?;
        let d = self.target(&r, m);
        self.comma("CVT")?;
        let (fl, fc) = self.here();
        if self.is_sym('-') || self.is_sym('|') {
            return Err(diag(fl, fc, "CVT does not support negation or absolute value on its operand (NV_gpu_program5, \"CVT\")".to_string()));
        }
        // Registers hold 8/16-bit integers widened to 32 bits, f16 as its 16 low bits.
        let reg_ty = |s: ScalarTy| {
            if s.kind != Kind::F && s.bits < 32 {
                ScalarTy::new(s.kind, 32)
            } else {
                s
            }
        };
        let a = self.src(reg_ty(from.scalar), "CVT")?;
        let mut cur = a;
        if from.scalar.kind == Kind::F && to.scalar.kind != Kind::F {
            let s = self.scratch();
            self.emit(Inst::Un {
                op: m.round.unwrap_or(UnOp::RoundEven),
                ty: Ty::vec4(from.scalar),
                dst: Dst::new(s),
                a: cur,
            });
            cur = Src::new(s);
        }
        let s = self.scratch();
        self.emit(Inst::Convert {
            from: from.scalar,
            to: to.scalar,
            lanes: 4,
            dst: Dst::new(s),
            a: cur,
        });
        let rt = reg_ty(to.scalar);
        if rt != to.scalar {
            self.emit(Inst::Convert {
                from: to.scalar,
                to: rt,
                lanes: 4,
                dst: d,
                a: Src::new(s),
            });
        } else {
            self.emit(Inst::Mov {
                dst: d,
                a: Src::new(s),
            });
        }
        self.finish_alu(rt, &r, m, d)
    }
}

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
    fn memref(&mut self, op: &'static str, shared: bool, size: u32) -> Res<MemRef> {
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
        Ok(MemRef {
            space,
            dynamic,
            offset,
            line: l,
            col: c,
        })
    }

    fn address(&mut self, mr: &MemRef) -> Src {
        let k = (mr.offset as u64) & 0xffff_ffff;
        match mr.dynamic {
            None => Src::new(self.constant([k, 0, 0, 0])),
            Some(d) if k == 0 => d,
            Some(d) => {
                let s = self.scratch();
                let kc = self.constant([k; 4]);
                self.emit(Inst::Bin {
                    op: BinOp::Add,
                    ty: Ty::new(ScalarTy::U32, 1),
                    dst: Dst::new(s),
                    a: d,
                    b: Src::new(kc),
                });
                Src::new(s)
            }
        }
    }

    fn memory(&mut self, op: &'static str, m: &Mods, l: u32, c: u32) -> Res<()> {
        let shared = op.ends_with('S');
        if shared && self.first_shared_use.is_none() {
            self.first_shared_use = Some((l, c, op));
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
                let mr = self.memref(op, shared, st.size())?;
                let addr = self.address(&mr);
                let lanes_mask = ((1u16 << st.lanes) - 1) as u8;
                self.emit(Inst::Load {
                    space: mr.space,
                    ty: st,
                    dst: Dst::masked(d.reg, d.mask & lanes_mask),
                    addr,
                });
                if d.mask & !lanes_mask != 0 {
                    let z = self.constant([0; 4]);
                    self.emit(Inst::Mov {
                        dst: Dst::masked(d.reg, d.mask & !lanes_mask),
                        a: Src::new(z),
                    });
                }
                let _ = (mr.line, mr.col);
                self.finish_alu(rt, &r, m, d)
            }
            "STB" | "STS" => {
                let v = self.src(rt, op)?;
                self.comma(op)?;
                let mr = self.memref(op, shared, st.size())?;
                let addr = self.address(&mr);
                self.emit(Inst::Store {
                    space: mr.space,
                    ty: st,
                    addr,
                    val: v,
                });
                self.end_stmt()
            }
            _ => {
                let aop = m.atomic.unwrap_or(AtomicOp::Add);
                let (rl, rc) = self.here();
                let r = self.result(op)?;
                if r.mask & 0xE != 0 {
                    self.warnings.push(Diagnostic {
                        line: rl,
                        column: rc,
                        message: format!("{op} result written to .y/.z/.w, which the specification leaves undefined (NV_compute_program5, \"ATOMS\"); the reference writes the old value there too"),
                    });
                }
                let d = self.target(&r, m);
                self.comma(op)?;
                let v = self.src(rt, op)?;
                self.comma(op)?;
                let mr = self.memref(op, shared, st.size())?;
                let addr = self.address(&mr);
                // A scalar result ("s" in the opcode table): replicated to every component.
                let s = self.scratch();
                self.emit(Inst::Atomic {
                    space: mr.space,
                    op: aop,
                    ty: st.scalar,
                    dst: Some(Dst::masked(s, 1)),
                    addr,
                    a: Src::splat(v.reg, v.swz[0]),
                    b: Src::splat(v.reg, v.swz[1]),
                });
                self.emit(Inst::Mov {
                    dst: d,
                    a: Src::splat(s, 0),
                });
                self.finish_alu(rt, &r, m, d)
            }
        }
    }

    fn shuffle(&mut self, op: &'static str, m: &Mods, l: u32, c: u32) -> Res<()> {
        if !self.opt_shuffle {
            return Err(diag(
                l,
                c,
                format!("{op} requires \"OPTION NV_shader_thread_shuffle;\" {R_SHFL}"),
            ));
        }
        let t = self.op_type(op, m)?;
        if t.bits != 32 {
            return Err(diag(l, c, format!("{op} exchanges 32-bit values; 64-bit data types are not allowed (NV_shader_thread_shuffle, \"{op}\")")));
        }
        let mode = match op {
            "SHFIDX" => ShflMode::Idx,
            "SHFUP" => ShflMode::Up,
            "SHFDOWN" => ShflMode::Down,
            _ => ShflMode::Xor,
        };
        let (rl, rc) = self.here();
        let r = self.result(op)?;
        if r.mask & 0xC != 0 {
            self.warnings.push(Diagnostic {
                line: rl,
                column: rc,
                message: format!("{op} result written to .z/.w: the instruction returns a 2-component vector (NV_shader_thread_shuffle); the reference writes 0 there"),
            });
        }
        let d = self.target(&r, m);
        self.comma(op)?;
        let v = self.src(t, op)?;
        self.comma(op)?;
        let idx = self.src(ScalarTy::U32, op)?;
        self.comma(op)?;
        let mask = self.src(ScalarTy::U32, op)?;
        let true_bits = Self::true_false(t).0[0];
        self.emit(Inst::ShuffleAsm {
            mode,
            true_bits,
            dst: d,
            val: Src::splat(v.reg, v.swz[0]),
            index: Src::splat(idx.reg, idx.swz[0]),
            mask: Src::splat(mask.reg, mask.swz[0]),
        });
        self.finish_alu(t, &r, m, d)
    }

    /// An optional `(TEST.swz)` branch condition of BRK/CONT/CAL/RET.
    fn optional_cc(&mut self) -> Res<Option<Reg>> {
        if !self.eat_sym('(') {
            return Ok(None);
        }
        let cc = self.cc_test()?;
        self.expect_sym(')', "to close the condition")?;
        Ok(Some(self.emit_cc_any(cc)))
    }

    /// Tests a condition code and reduces it: true when any swizzled component passes
    /// (NV_gpu_program4 IF/BRK/CONT/CAL/RET). The result is in component x.
    fn emit_cc_any(&mut self, cc: (CcTest, usize, [u8; 4])) -> Reg {
        let s = self.emit_cc_test(cc);
        let u = ScalarTy::U32;
        self.emit(Inst::Bin {
            op: BinOp::Or,
            ty: Ty::new(u, 2),
            dst: Dst::masked(s, 3),
            a: Src::swizzled(s, [0, 2, 0, 0]),
            b: Src::swizzled(s, [1, 3, 0, 0]),
        });
        self.emit(Inst::Bin {
            op: BinOp::Or,
            ty: Ty::new(u, 1),
            dst: Dst::masked(s, 1),
            a: Src::splat(s, 0),
            b: Src::splat(s, 1),
        });
        s
    }

    /// Emits `inst`, guarded by a condition register when one is given.
    fn guarded(&mut self, cond: Option<Reg>, inst: Inst) -> u32 {
        match cond {
            None => self.emit(inst),
            Some(cr) => {
                let p = self.b.pc();
                self.emit(Inst::If {
                    cond: Src::splat(cr, 0),
                    else_pc: p + 2,
                });
                let at = self.emit(inst);
                self.emit(Inst::EndIf);
                at
            }
        }
    }

    fn flow(&mut self, op: &'static str, m: &Mods) -> Res<()> {
        let (l, c) = self.cur_loc;
        match op {
            "IF" => {
                let cc = self.cc_test()?;
                let cr = self.emit_cc_any(cc);
                let pc = self.emit(Inst::If {
                    cond: Src::splat(cr, 0),
                    else_pc: 0,
                });
                self.blocks.push(Block::If(IfFrame {
                    if_pc: pc,
                    else_pc: None,
                    line: l,
                }));
            }
            "ELSE" => match self.blocks.last_mut() {
                Some(Block::If(f)) if f.else_pc.is_none() => {
                    let if_pc = f.if_pc;
                    let pc = self.b.pc();
                    if let Some(Block::If(f)) = self.blocks.last_mut() {
                        f.else_pc = Some(pc);
                    }
                    self.emit(Inst::Else { end_pc: 0 });
                    if let Inst::If { else_pc, .. } = &mut self.b.code[if_pc as usize] {
                        *else_pc = pc + 1;
                    }
                }
                Some(Block::If(_)) => {
                    return Err(diag(l, c, format!("second ELSE in one IF block {R_FLOW}")))
                }
                _ => return Err(diag(l, c, format!("ELSE without a matching IF {R_FLOW}"))),
            },
            "ENDIF" => match self.blocks.pop() {
                Some(Block::If(f)) => {
                    let pc = self.emit(Inst::EndIf);
                    match f.else_pc {
                        Some(e) => {
                            if let Inst::Else { end_pc } = &mut self.b.code[e as usize] {
                                *end_pc = pc;
                            }
                        }
                        None => {
                            if let Inst::If { else_pc, .. } = &mut self.b.code[f.if_pc as usize] {
                                *else_pc = pc;
                            }
                        }
                    }
                }
                Some(Block::Rep(r)) => {
                    return Err(diag(
                        l,
                        c,
                        format!(
                            "ENDIF closes the REP opened at line {} (expected ENDREP) {R_FLOW}",
                            r.line
                        ),
                    ))
                }
                None => return Err(diag(l, c, format!("ENDIF without a matching IF {R_FLOW}"))),
            },
            "REP" => {
                let depth = self
                    .blocks
                    .iter()
                    .filter(|b| matches!(b, Block::Rep(_)))
                    .count();
                if depth >= LIMITS.max_loop_depth as usize {
                    return Err(diag(l, c, format!("REP blocks nested {} deep, at or above MAX_PROGRAM_LOOP_DEPTH_NV ({}) (NV_gpu_program4, \"REP\")", depth + 1, LIMITS.max_loop_depth)));
                }
                let count = if self.is_sym(';') {
                    None
                } else {
                    let t = self.op_type("REP", m)?;
                    let a = self.src(t, "REP")?;
                    let s = self.scratch();
                    if t.kind == Kind::F {
                        let f = self.scratch();
                        self.emit(Inst::Un {
                            op: UnOp::Floor,
                            ty: Ty::new(t, 1),
                            dst: Dst::new(f),
                            a: Src::splat(a.reg, a.swz[0]),
                        });
                        self.emit(Inst::Convert {
                            from: t,
                            to: ScalarTy::S32,
                            lanes: 1,
                            dst: Dst::new(s),
                            a: Src::new(f),
                        });
                    } else if t.kind == Kind::U {
                        // Unsigned counts above i32::MAX are clamped to i32::MAX.
                        let k = self.constant([0x7fff_ffff; 4]);
                        self.emit(Inst::Bin {
                            op: BinOp::Min,
                            ty: Ty::new(ScalarTy::new(Kind::U, t.bits), 1),
                            dst: Dst::new(s),
                            a: Src::splat(a.reg, a.swz[0]),
                            b: Src::new(k),
                        });
                    } else {
                        self.emit(Inst::Convert {
                            from: t,
                            to: ScalarTy::S32,
                            lanes: 1,
                            dst: Dst::new(s),
                            a: Src::splat(a.reg, a.swz[0]),
                        });
                    }
                    Some(Src::splat(s, 0))
                };
                let counted = count.is_some();
                let pc = self.emit(Inst::Loop { count, end_pc: 0 });
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
                    let pc = self.emit(Inst::EndLoop { begin_pc: r.pc });
                    if let Inst::Loop { end_pc, .. } = &mut self.b.code[r.pc as usize] {
                        *end_pc = pc;
                    }
                    if !r.counted && !r.has_brk {
                        self.unbounded.push((r.line, r.col));
                    }
                }
                Some(Block::If(f)) => {
                    return Err(diag(
                        l,
                        c,
                        format!(
                            "ENDREP closes the IF opened at line {} (expected ENDIF) {R_FLOW}",
                            f.line
                        ),
                    ))
                }
                None => {
                    return Err(diag(
                        l,
                        c,
                        format!("ENDREP without a matching REP {R_FLOW}"),
                    ))
                }
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

    fn finish(mut self) -> Res<Program> {
        let (end_line, end_col) = self.cur_loc;
        if let Some(b) = self.blocks.last() {
            let (what, line) = match b {
                Block::If(f) => ("IF", f.line),
                Block::Rep(r) => ("REP", r.line),
            };
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
            shared_size,
            private_size: self.private_size,
            uses: Uses::default(),
            uniforms: Vec::new(),
        };
        prog.compute_uses();
        prog.validate().map_err(FrontError::Internal)?;
        Ok(prog)
    }
}
