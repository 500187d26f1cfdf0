//! Transformations of a SPIR-V assembly module (as the cases hold it: one instruction a line)
//! that keep what it computes, at the instruction level: each hides something from the
//! compiler while the module's results stay the same, so the original case's expectations stay
//! the oracle.
//!
//! The opaque values come from a storage block the transformation declares ([`prepare`]: a
//! Uniform + BufferBlock struct of 0u, 1u and 1.0 at a free binding, as the GLSL mode's
//! block). The text is edited line by line (comments and layout kept): a line holds one
//! instruction, `%id = OpX ...` or `OpX ...`; a module with an instruction spread over lines,
//! or two on one, is not read (the subject is refused). Each transformation works on one place
//! of one function, chosen by the seed:
//!
//! - `opaque-literal`: a use of a 32-bit integer or float `OpConstant` in an instruction that
//!   takes any value there becomes `OpIAdd c zero` (through `OpBitcast` for signed types) or
//!   `OpFMul c onef` (finite constants only), with the opaque value loaded just before. Never
//!   a struct member index of an access chain, a scope or semantics operand of an atomic or a
//!   barrier, an extended instruction of another set than GLSL.std.450, an `OpPhi` operand, a
//!   literal, or anything in the global section (array lengths, spec constants, composites).
//! - `dead-code`: a block split in two by a selection on `zero != 0` whose true side holds
//!   copies of the instructions before the split (stores of integers store the complement):
//!   dead code the compiler cannot remove.
//! - `one-iteration-loop`: a straight run of instructions of a block inside a do-while loop
//!   (header with `OpPhi` counter, body, continue block testing `i + 1 < one`), so values the
//!   run defines dominate their uses after the loop.
//! - `swap`: two adjacent instructions without memory effects, the second not using the
//!   first's result, swapped.
//!
//! Blocks that head a loop or are its continue target are never split (the back edge must
//! reach the block holding `OpLoopMerge`; the continue construct keeps its shape). Phis of the
//! split block's successors are renamed to the block that now ends with its terminator.
//! Every transformed module is checked by the reference's front end (spirv-val included) in
//! the campaign; one it rejects counts as a bug of this transformer.

use super::Kind;
use std::collections::{HashMap, HashSet};

/// The names the transformation declares start with this (a module that already uses it is
/// not a subject).
pub const PREFIX: &str = "%conform_";
const OPAQUE: &str = "%conform_opaque";
const K0: &str = "%conform_k0";
const K1: &str = "%conform_k1";
const K2: &str = "%conform_k2";
const INDENT: &str = "        ";

/// One instruction: its result id, opcode and operands (string literals kept as one token).
#[derive(Clone, Debug, PartialEq)]
struct Ins {
    result: Option<String>,
    op: String,
    args: Vec<String>,
}

impl Ins {
    fn new(result: Option<&str>, op: &str, args: &[&str]) -> Self {
        Ins {
            result: result.map(str::to_string),
            op: op.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }
}

/// A line of the text: its own text, and the instruction on it (none for blank lines and
/// comments).
#[derive(Clone, Debug)]
struct Line {
    raw: String,
    ins: Option<Ins>,
}

impl Line {
    fn of(ins: Ins) -> Self {
        let mut raw = String::from(INDENT);
        if let Some(r) = &ins.result {
            raw.push_str(r);
            raw.push_str(" = ");
        }
        raw.push_str(&ins.op);
        for a in &ins.args {
            raw.push(' ');
            raw.push_str(a);
        }
        Line {
            raw,
            ins: Some(ins),
        }
    }

    fn op(&self) -> &str {
        self.ins.as_ref().map_or("", |i| i.op.as_str())
    }
}

/// The tokens of one line before its comment; `None` for an unterminated string.
fn tokens(line: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == ';' {
            break;
        } else if c == '"' {
            let mut s = String::from('"');
            chars.next();
            let mut closed = false;
            while let Some(c) = chars.next() {
                s.push(c);
                if c == '\\' {
                    s.push(chars.next()?);
                } else if c == '"' {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return None;
            }
            out.push(s);
        } else {
            let mut s = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == ';' || c == '"' {
                    break;
                }
                s.push(c);
                chars.next();
            }
            out.push(s);
        }
    }
    Some(out)
}

fn is_opcode(t: &str) -> bool {
    t.len() > 2 && t.starts_with("Op") && t.as_bytes()[2].is_ascii_uppercase()
}

/// The module's lines, each with its instruction; `None` when a line is not one whole
/// instruction (spread over lines, two on a line, an unterminated string).
fn parse(text: &str) -> Option<Vec<Line>> {
    let mut out = Vec::new();
    for raw in text.split('\n') {
        let t = tokens(raw)?;
        let ins = match t.as_slice() {
            [] => None,
            [r, eq, op, rest @ ..] if eq == "=" && r.starts_with('%') && is_opcode(op) => {
                Some(Ins {
                    result: Some(r.clone()),
                    op: op.clone(),
                    args: rest.to_vec(),
                })
            }
            [op, rest @ ..] if is_opcode(op) => Some(Ins {
                result: None,
                op: op.clone(),
                args: rest.to_vec(),
            }),
            _ => return None,
        };
        if let Some(i) = &ins {
            if i.args.iter().any(|a| is_opcode(a) || a == "=") {
                return None;
            }
        }
        out.push(Line {
            raw: raw.to_string(),
            ins,
        });
    }
    Some(out)
}

fn render(lines: &[Line]) -> String {
    lines
        .iter()
        .map(|l| l.raw.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A type, as far as the transformations need it.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    Int {
        width: u32,
        signed: bool,
    },
    Float(u32),
    Bool,
    /// Vector, matrix, array, runtime array: the element (column) type.
    Elements(String),
    Struct(Vec<String>),
    Pointer {
        class: String,
        pointee: String,
    },
    Other,
}

/// What the module declares: types, the result type of every id, the scalar constants and
/// the GLSL.std.450 import.
#[derive(Default)]
struct Facts {
    types: HashMap<String, Ty>,
    result_type: HashMap<String, String>,
    /// `OpConstant`s: type and literal.
    constants: HashMap<String, (String, String)>,
    glsl_std450: HashSet<String>,
}

const NO_RESULT_TYPE: &[&str] = &[
    "OpLabel",
    "OpExtInstImport",
    "OpString",
    "OpDecorationGroup",
];

fn facts(lines: &[Line]) -> Facts {
    let mut f = Facts::default();
    for i in lines.iter().filter_map(|l| l.ins.as_ref()) {
        let Some(r) = &i.result else { continue };
        let a = |k: usize| i.args.get(k).cloned().unwrap_or_default();
        let ty = match i.op.as_str() {
            "OpTypeInt" => Some(Ty::Int {
                width: a(0).parse().unwrap_or(0),
                signed: a(1) == "1",
            }),
            "OpTypeFloat" => Some(Ty::Float(a(0).parse().unwrap_or(0))),
            "OpTypeBool" => Some(Ty::Bool),
            "OpTypeVector" | "OpTypeMatrix" | "OpTypeArray" | "OpTypeRuntimeArray" => {
                Some(Ty::Elements(a(0)))
            }
            "OpTypeStruct" => Some(Ty::Struct(i.args.clone())),
            "OpTypePointer" => Some(Ty::Pointer {
                class: a(0),
                pointee: a(1),
            }),
            op if op.starts_with("OpType") => Some(Ty::Other),
            _ => None,
        };
        if let Some(t) = ty {
            f.types.insert(r.clone(), t);
            continue;
        }
        if i.op == "OpExtInstImport" && a(0) == "\"GLSL.std.450\"" {
            f.glsl_std450.insert(r.clone());
        }
        if NO_RESULT_TYPE.contains(&i.op.as_str()) {
            continue;
        }
        f.result_type.insert(r.clone(), a(0));
        if i.op == "OpConstant" {
            f.constants.insert(r.clone(), (a(0), a(1)));
        }
    }
    f
}

impl Facts {
    /// The rewrite a constant takes, when it is a 32-bit integer or a finite 32-bit float.
    fn opaque_form(&self, id: &str) -> Option<(&str, Ty)> {
        let (ty, lit) = self.constants.get(id)?;
        match self.types.get(ty)? {
            t @ Ty::Int { width: 32, .. } => Some((ty, t.clone())),
            Ty::Float(32) if lit.parse::<f32>().is_ok_and(f32::is_finite) => {
                Some((ty, Ty::Float(32)))
            }
            _ => None,
        }
    }

    fn int_value(&self, id: &str) -> Option<u64> {
        let (_, lit) = self.constants.get(id)?;
        match lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => lit.parse().ok(),
        }
    }

    /// The first id declaring `want`.
    fn type_id(&self, lines: &[Line], want: &Ty) -> Option<String> {
        lines
            .iter()
            .filter_map(|l| l.ins.as_ref())
            .filter_map(|i| i.result.as_ref())
            .find(|r| self.types.get(*r) == Some(want))
            .cloned()
    }

    /// The operand positions of an access chain's indices that may hold a run-time value
    /// (those into arrays, vectors and matrices; never a struct member index).
    fn dynamic_indices(&self, i: &Ins) -> Vec<usize> {
        let mut out = Vec::new();
        let Some(base) = i.args.get(1) else {
            return out;
        };
        let Some(Ty::Pointer { pointee, .. }) =
            self.result_type.get(base).and_then(|t| self.types.get(t))
        else {
            return out;
        };
        let mut t = pointee.clone();
        for (k, idx) in i.args.iter().enumerate().skip(2) {
            match self.types.get(&t) {
                Some(Ty::Elements(e)) => {
                    out.push(k);
                    t = e.clone();
                }
                Some(Ty::Struct(m)) => {
                    let Some(next) = self
                        .int_value(idx)
                        .and_then(|v| m.get(usize::try_from(v).ok()?))
                    else {
                        break;
                    };
                    t = next.clone();
                }
                _ => break,
            }
        }
        out
    }
}

/// Opcodes whose operands (after the result type) are all values, which may be run-time ones.
const VALUE_OPS: &[&str] = &[
    "OpIAdd",
    "OpISub",
    "OpIMul",
    "OpSDiv",
    "OpUDiv",
    "OpSRem",
    "OpSMod",
    "OpUMod",
    "OpFAdd",
    "OpFSub",
    "OpFMul",
    "OpFDiv",
    "OpFRem",
    "OpFMod",
    "OpSNegate",
    "OpFNegate",
    "OpShiftLeftLogical",
    "OpShiftRightLogical",
    "OpShiftRightArithmetic",
    "OpBitwiseAnd",
    "OpBitwiseOr",
    "OpBitwiseXor",
    "OpNot",
    "OpIEqual",
    "OpINotEqual",
    "OpUGreaterThan",
    "OpSGreaterThan",
    "OpUGreaterThanEqual",
    "OpSGreaterThanEqual",
    "OpULessThan",
    "OpSLessThan",
    "OpULessThanEqual",
    "OpSLessThanEqual",
    "OpFOrdEqual",
    "OpFUnordEqual",
    "OpFOrdNotEqual",
    "OpFUnordNotEqual",
    "OpFOrdLessThan",
    "OpFUnordLessThan",
    "OpFOrdGreaterThan",
    "OpFUnordGreaterThan",
    "OpFOrdLessThanEqual",
    "OpFUnordLessThanEqual",
    "OpFOrdGreaterThanEqual",
    "OpFUnordGreaterThanEqual",
    "OpSelect",
    "OpCompositeConstruct",
    "OpBitcast",
    "OpConvertFToU",
    "OpConvertFToS",
    "OpConvertSToF",
    "OpConvertUToF",
    "OpUConvert",
    "OpSConvert",
    "OpFConvert",
    "OpBitFieldInsert",
    "OpBitFieldSExtract",
    "OpBitFieldUExtract",
    "OpBitReverse",
    "OpBitCount",
    "OpIAddCarry",
    "OpISubBorrow",
    "OpUMulExtended",
    "OpSMulExtended",
    "OpVectorTimesScalar",
    "OpDot",
    "OpVectorExtractDynamic",
    "OpVectorInsertDynamic",
    "OpCopyObject",
];

/// Instructions without memory effects that two of may swap (besides [`VALUE_OPS`]).
const PURE_EXTRA: &[&str] = &[
    "OpAccessChain",
    "OpInBoundsAccessChain",
    "OpCompositeExtract",
    "OpCompositeInsert",
    "OpVectorShuffle",
];

/// Atomics with a value operand, and the position of their first value operand.
const ATOMIC_VALUE_OPS: &[(&str, usize)] = &[
    ("OpAtomicStore", 3),
    ("OpAtomicExchange", 4),
    ("OpAtomicCompareExchange", 5),
    ("OpAtomicIAdd", 4),
    ("OpAtomicISub", 4),
    ("OpAtomicSMin", 4),
    ("OpAtomicUMin", 4),
    ("OpAtomicSMax", 4),
    ("OpAtomicUMax", 4),
    ("OpAtomicAnd", 4),
    ("OpAtomicOr", 4),
    ("OpAtomicXor", 4),
    ("OpAtomicFAddEXT", 4),
];

const TERMINATORS: &[&str] = &[
    "OpBranch",
    "OpBranchConditional",
    "OpSwitch",
    "OpReturn",
    "OpReturnValue",
    "OpKill",
    "OpUnreachable",
    "OpTerminateInvocation",
];

const BARRIERS: &[&str] = &["OpControlBarrier", "OpMemoryBarrier"];

/// The operand positions of `i` that may hold a run-time value instead of a constant.
fn value_positions(f: &Facts, i: &Ins) -> Vec<usize> {
    let op = i.op.as_str();
    let n = i.args.len();
    if VALUE_OPS.contains(&op) {
        return (1..n).collect();
    }
    if let Some((_, from)) = ATOMIC_VALUE_OPS.iter().find(|(o, _)| *o == op) {
        return (*from..n).collect();
    }
    match op {
        "OpStore" => vec![1],
        "OpReturnValue" => vec![0],
        "OpCompositeInsert" => vec![1],
        "OpFunctionCall" => (2..n).collect(),
        "OpExtInst" if i.args.get(1).is_some_and(|s| f.glsl_std450.contains(s)) => (3..n).collect(),
        "OpAccessChain" | "OpInBoundsAccessChain" => f.dynamic_indices(i),
        _ => Vec::new(),
    }
}

fn pure(i: &Ins) -> bool {
    i.result.is_some()
        && (VALUE_OPS.contains(&i.op.as_str()) || PURE_EXTRA.contains(&i.op.as_str()))
}

/// A block of a function: where its label, first instruction after its phis and variables,
/// merge instruction (or terminator) and terminator are.
#[derive(Clone, Debug)]
struct Block {
    label: String,
    /// The first line after the label, the phis and the function variables.
    first: usize,
    /// The merge instruction's line, or the terminator's.
    limit: usize,
    end: usize,
    /// Heads a loop or is a loop's continue target: never split.
    fixed: bool,
}

fn blocks(lines: &[Line]) -> Vec<Block> {
    let continues: HashSet<&str> = lines
        .iter()
        .filter(|l| l.op() == "OpLoopMerge")
        .filter_map(|l| l.ins.as_ref()?.args.get(1).map(String::as_str))
        .collect();
    let mut out = Vec::new();
    let mut cur: Option<Block> = None;
    for (k, l) in lines.iter().enumerate() {
        let Some(i) = &l.ins else { continue };
        match i.op.as_str() {
            "OpLabel" => {
                let label = i.result.clone().unwrap_or_default();
                cur = Some(Block {
                    fixed: continues.contains(label.as_str()),
                    label,
                    first: k + 1,
                    limit: usize::MAX,
                    end: usize::MAX,
                });
            }
            "OpPhi" | "OpVariable" => {
                if let Some(b) = cur.as_mut() {
                    b.first = k + 1;
                }
            }
            "OpLoopMerge" | "OpSelectionMerge" => {
                if let Some(b) = cur.as_mut() {
                    b.limit = k;
                    b.fixed |= i.op == "OpLoopMerge";
                }
            }
            op if TERMINATORS.contains(&op) => {
                if let Some(mut b) = cur.take() {
                    b.limit = b.limit.min(k);
                    b.end = k;
                    if b.first <= b.limit {
                        out.push(b);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Where a block may be split: before an instruction line from `first` up to its merge or
/// terminator (included).
fn split_points(lines: &[Line], b: &Block) -> Vec<usize> {
    (b.first..=b.limit)
        .filter(|&k| lines[k].ins.is_some())
        .collect()
}

/// Fresh ids for step `n`.
struct Fresh {
    n: usize,
    k: usize,
}

impl Fresh {
    fn id(&mut self) -> String {
        self.k += 1;
        format!("{PREFIX}{}_{}", self.n, self.k)
    }
}

/// The ids of the types and pointers the opaque block uses.
struct Names {
    uint: String,
    float: String,
    boolean: String,
    ptr_uint: String,
    ptr_float: String,
}

impl Names {
    fn of(f: &Facts, lines: &[Line]) -> Option<Names> {
        let uint = f.type_id(
            lines,
            &Ty::Int {
                width: 32,
                signed: false,
            },
        )?;
        let float = f.type_id(lines, &Ty::Float(32))?;
        let ptr = |t: &str| {
            f.type_id(
                lines,
                &Ty::Pointer {
                    class: "Uniform".into(),
                    pointee: t.into(),
                },
            )
        };
        Some(Names {
            ptr_uint: ptr(&uint)?,
            ptr_float: ptr(&float)?,
            boolean: f.type_id(lines, &Ty::Bool)?,
            uint,
            float,
        })
    }

    /// Loads member `m` of the opaque block (0: 0u, 1: 1u, 2: 1.0): the instructions and the
    /// loaded id.
    fn load(&self, fresh: &mut Fresh, m: u32) -> (Vec<Line>, String) {
        let (ptr, ty, k) = match m {
            0 => (&self.ptr_uint, &self.uint, K0),
            1 => (&self.ptr_uint, &self.uint, K1),
            _ => (&self.ptr_float, &self.float, K2),
        };
        let (a, v) = (fresh.id(), fresh.id());
        (
            vec![
                Line::of(Ins::new(Some(&a), "OpAccessChain", &[ptr, OPAQUE, k])),
                Line::of(Ins::new(Some(&v), "OpLoad", &[ty, &a])),
            ],
            v,
        )
    }
}

/// Opcodes allowed before the annotations end (debug and mode-setting instructions, and the
/// annotations themselves).
const PREAMBLE: &[&str] = &[
    "OpCapability",
    "OpExtension",
    "OpExtInstImport",
    "OpMemoryModel",
    "OpEntryPoint",
    "OpExecutionMode",
    "OpExecutionModeId",
    "OpString",
    "OpSource",
    "OpSourceExtension",
    "OpSourceContinued",
    "OpName",
    "OpMemberName",
    "OpModuleProcessed",
    "OpDecorate",
    "OpMemberDecorate",
    "OpDecorationGroup",
    "OpGroupDecorate",
    "OpGroupMemberDecorate",
    "OpDecorateId",
    "OpDecorateString",
    "OpMemberDecorateString",
    "OpLine",
    "OpNoLine",
];

/// `text` with the opaque block declared at `binding` (decorations after the module's, types,
/// pointers, the variable and the index constants before the first function); an error when
/// the transformer does not read the module.
pub fn prepare(text: &str, binding: u32) -> Result<String, String> {
    if text.contains(PREFIX) {
        return Err("already uses the transformer's names (%conform_...)".into());
    }
    let lines = parse(text)
        .ok_or("has SPIR-V assembly the transformer does not read (one instruction a line)")?;
    let func = lines
        .iter()
        .position(|l| l.op() == "OpFunction")
        .ok_or("has no function")?;
    if !lines.iter().any(|l| {
        l.op() == "OpMemoryModel"
            && l.ins
                .as_ref()
                .and_then(|i| i.args.first())
                .map(String::as_str)
                == Some("Logical")
    }) {
        return Err("has no Logical memory model".into());
    }
    let annotations_end = lines
        .iter()
        .position(|l| l.ins.is_some() && !PREAMBLE.contains(&l.op()))
        .unwrap_or(func)
        .min(func);
    let f = facts(&lines);
    let mut globals = Vec::new();
    let mut declare = |want: Ty, name: &str, op: &str, args: &[&str]| -> String {
        f.type_id(&lines, &want).unwrap_or_else(|| {
            globals.push(Line::of(Ins::new(Some(name), op, args)));
            name.to_string()
        })
    };
    let uint = declare(
        Ty::Int {
            width: 32,
            signed: false,
        },
        "%conform_uint",
        "OpTypeInt",
        &["32", "0"],
    );
    let float = declare(Ty::Float(32), "%conform_float", "OpTypeFloat", &["32"]);
    declare(Ty::Bool, "%conform_bool", "OpTypeBool", &[]);
    let pointer = |t: &str| Ty::Pointer {
        class: "Uniform".into(),
        pointee: t.into(),
    };
    declare(
        pointer(&uint),
        "%conform_ptr_uint",
        "OpTypePointer",
        &["Uniform", &uint],
    );
    declare(
        pointer(&float),
        "%conform_ptr_float",
        "OpTypePointer",
        &["Uniform", &float],
    );
    let fixed = [
        Ins::new(
            Some("%conform_block"),
            "OpTypeStruct",
            &[&uint, &uint, &float],
        ),
        Ins::new(
            Some("%conform_ptr_block"),
            "OpTypePointer",
            &["Uniform", "%conform_block"],
        ),
        Ins::new(
            Some(OPAQUE),
            "OpVariable",
            &["%conform_ptr_block", "Uniform"],
        ),
        Ins::new(Some(K0), "OpConstant", &[&uint, "0"]),
        Ins::new(Some(K1), "OpConstant", &[&uint, "1"]),
        Ins::new(Some(K2), "OpConstant", &[&uint, "2"]),
    ];
    globals.extend(fixed.into_iter().map(Line::of));
    let b = binding.to_string();
    let decorations: Vec<Line> = [
        Ins::new(
            None,
            "OpMemberDecorate",
            &["%conform_block", "0", "Offset", "0"],
        ),
        Ins::new(
            None,
            "OpMemberDecorate",
            &["%conform_block", "1", "Offset", "4"],
        ),
        Ins::new(
            None,
            "OpMemberDecorate",
            &["%conform_block", "2", "Offset", "8"],
        ),
        Ins::new(None, "OpDecorate", &["%conform_block", "BufferBlock"]),
        Ins::new(None, "OpDecorate", &[OPAQUE, "DescriptorSet", "0"]),
        Ins::new(None, "OpDecorate", &[OPAQUE, "Binding", &b]),
    ]
    .into_iter()
    .map(Line::of)
    .collect();
    let mut out: Vec<Line> = lines[..annotations_end].to_vec();
    out.extend(decorations);
    out.extend_from_slice(&lines[annotations_end..func]);
    out.extend(globals);
    out.extend_from_slice(&lines[func..]);
    Ok(render(&out))
}

/// Renames the phi parents `from` to `to` (the block that now ends with `from`'s terminator).
fn rename_parents(lines: &mut [Line], from: &str, to: &str) {
    for l in lines.iter_mut() {
        let Some(i) = l.ins.as_mut() else { continue };
        if i.op != "OpPhi" {
            continue;
        }
        let mut changed = false;
        for k in (2..i.args.len()).step_by(2) {
            if i.args[k] == from {
                i.args[k] = to.to_string();
                changed = true;
            }
        }
        if changed {
            *l = Line::of(i.clone());
        }
    }
}

fn pick<T: Clone>(c: &[T], seed: u64) -> Option<T> {
    (!c.is_empty()).then(|| c[(seed % c.len() as u64) as usize].clone())
}

/// Applies `kind` to `text` (a module [`prepare`]d), choosing where with `seed`; `n` makes the
/// names it adds unique. `None` when the module has no place for it (or the kind is not one of
/// SPIR-V's).
pub fn apply(text: &str, kind: Kind, seed: u64, n: usize) -> Option<String> {
    let mut lines = parse(text)?;
    let f = facts(&lines);
    let names = Names::of(&f, &lines)?;
    let mut fresh = Fresh { n, k: 0 };
    let bs = blocks(&lines);
    match kind {
        Kind::OpaqueLiteral => {
            let mut c = Vec::new();
            for b in &bs {
                for (k, l) in lines.iter().enumerate().take(b.end + 1).skip(b.first) {
                    let Some(i) = &l.ins else { continue };
                    if k > b.limit && i.op != "OpReturnValue" {
                        continue;
                    }
                    for p in value_positions(&f, i) {
                        if f.opaque_form(&i.args[p]).is_some() {
                            c.push((k, p));
                        }
                    }
                }
            }
            let (k, p) = pick(&c, seed)?;
            let mut i = lines[k].ins.clone()?;
            let (ty, form) = f.opaque_form(&i.args[p])?;
            let ty = ty.to_string();
            let constant = i.args[p].clone();
            let mut code;
            let r = fresh.id();
            match form {
                Ty::Float(_) => {
                    let (load, one) = names.load(&mut fresh, 2);
                    code = load;
                    code.push(Line::of(Ins::new(
                        Some(&r),
                        "OpFMul",
                        &[&ty, &constant, &one],
                    )));
                }
                Ty::Int { signed, .. } => {
                    let (load, mut zero) = names.load(&mut fresh, 0);
                    code = load;
                    if signed || ty != names.uint {
                        let s = fresh.id();
                        code.push(Line::of(Ins::new(Some(&s), "OpBitcast", &[&ty, &zero])));
                        zero = s;
                    }
                    code.push(Line::of(Ins::new(
                        Some(&r),
                        "OpIAdd",
                        &[&ty, &constant, &zero],
                    )));
                }
                _ => return None,
            }
            i.args[p] = r;
            lines[k] = Line::of(i);
            lines.splice(k..k, code);
        }
        Kind::DeadCode => {
            let c: Vec<(Block, usize)> = bs
                .iter()
                .filter(|b| !b.fixed)
                .flat_map(|b| {
                    split_points(&lines, b)
                        .into_iter()
                        .map(move |p| (b.clone(), p))
                })
                .collect();
            let (b, p) = pick(&c, seed)?;
            let (mut code, zero) = names.load(&mut fresh, 0);
            let (cond, dead, merge) = (fresh.id(), fresh.id(), fresh.id());
            code.push(Line::of(Ins::new(
                Some(&cond),
                "OpINotEqual",
                &[&names.boolean, &zero, K0],
            )));
            code.push(Line::of(Ins::new(
                None,
                "OpSelectionMerge",
                &[&merge, "None"],
            )));
            code.push(Line::of(Ins::new(
                None,
                "OpBranchConditional",
                &[&cond, &dead, &merge],
            )));
            code.push(Line::of(Ins::new(Some(&dead), "OpLabel", &[])));
            code.extend(dead_copies(&f, &lines[b.first..p], &mut fresh));
            code.push(Line::of(Ins::new(None, "OpBranch", &[&merge])));
            code.push(Line::of(Ins::new(Some(&merge), "OpLabel", &[])));
            rename_parents(&mut lines, &b.label, &merge);
            lines.splice(p..p, code);
        }
        Kind::OneIterationLoop => {
            let mut c = Vec::new();
            for b in bs.iter().filter(|b| !b.fixed) {
                let points = split_points(&lines, b);
                for (x, &p) in points.iter().enumerate() {
                    for &q in points.iter().skip(x + 1).take(4) {
                        if !lines[p..q].iter().any(|l| BARRIERS.contains(&l.op())) {
                            c.push((b.clone(), p, q));
                        }
                    }
                }
            }
            let (b, p, q) = pick(&c, seed)?;
            let (mut pre, one) = names.load(&mut fresh, 1);
            let [header, body, cont, merge, i, next, cmp] = [(); 7].map(|_| fresh.id());
            pre.push(Line::of(Ins::new(None, "OpBranch", &[&header])));
            pre.push(Line::of(Ins::new(Some(&header), "OpLabel", &[])));
            pre.push(Line::of(Ins::new(
                Some(&i),
                "OpPhi",
                &[&names.uint, K0, &b.label, &next, &cont],
            )));
            pre.push(Line::of(Ins::new(
                None,
                "OpLoopMerge",
                &[&merge, &cont, "None"],
            )));
            pre.push(Line::of(Ins::new(None, "OpBranch", &[&body])));
            pre.push(Line::of(Ins::new(Some(&body), "OpLabel", &[])));
            let post = [
                Ins::new(None, "OpBranch", &[&cont]),
                Ins::new(Some(&cont), "OpLabel", &[]),
                Ins::new(Some(&next), "OpIAdd", &[&names.uint, &i, K1]),
                Ins::new(Some(&cmp), "OpULessThan", &[&names.boolean, &next, &one]),
                Ins::new(None, "OpBranchConditional", &[&cmp, &header, &merge]),
                Ins::new(Some(&merge), "OpLabel", &[]),
            ]
            .map(Line::of);
            rename_parents(&mut lines, &b.label, &merge);
            lines.splice(q..q, post);
            lines.splice(p..p, pre);
        }
        Kind::Swap => {
            let mut c = Vec::new();
            for b in &bs {
                for k in b.first..b.limit.saturating_sub(1) {
                    let (Some(x), Some(y)) = (&lines[k].ins, &lines[k + 1].ins) else {
                        continue;
                    };
                    let uses = x.result.as_ref().is_some_and(|r| y.args.contains(r));
                    if pure(x) && pure(y) && !uses {
                        c.push(k);
                    }
                }
            }
            let k = pick(&c, seed)?;
            lines.swap(k, k + 1);
        }
        Kind::Outline => return None,
    }
    Some(render(&lines))
}

/// Copies, under fresh ids, of the last few instructions of `before` that dead code may
/// repeat: values, loads, access chains, stores (an integer stored complemented) and atomics.
fn dead_copies(f: &Facts, before: &[Line], fresh: &mut Fresh) -> Vec<Line> {
    let copyable = |i: &Ins| {
        pure(i)
            || matches!(i.op.as_str(), "OpLoad" | "OpStore")
            || ATOMIC_VALUE_OPS.iter().any(|(o, _)| *o == i.op)
    };
    let chosen: Vec<&Ins> = before
        .iter()
        .filter_map(|l| l.ins.as_ref())
        .filter(|i| copyable(i))
        .collect();
    let chosen = &chosen[chosen.len().saturating_sub(4)..];
    let mut renamed: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for i in chosen {
        let mut c = (*i).clone();
        for a in c.args.iter_mut() {
            if let Some(r) = renamed.get(a) {
                *a = r.clone();
            }
        }
        if c.op == "OpStore" {
            let ty = c
                .args
                .get(1)
                .and_then(|v| f.result_type.get(v))
                .and_then(|t| Some((t.clone(), f.types.get(t)?.clone())));
            if let Some((t, Ty::Int { .. })) = ty {
                let g = fresh.id();
                out.push(Line::of(Ins::new(Some(&g), "OpNot", &[&t, &c.args[1]])));
                c.args[1] = g;
            }
        }
        if let Some(r) = &c.result {
            let new = fresh.id();
            renamed.insert(r.clone(), new.clone());
            c.result = Some(new);
        }
        out.push(Line::of(c));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf BufferBlock
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %arr = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %arr
       %pBuf = OpTypePointer Uniform %Buf
        %out = OpVariable %pBuf Uniform
         %pu = OpTypePointer Uniform %uint
         %c0 = OpConstant %uint 0
         %c5 = OpConstant %uint 5 ; a comment
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %a = OpIAdd %uint %c5 %c5
          %b = OpIMul %uint %c5 %c5
          %q = OpAccessChain %pu %out %c0 %c0
               OpStore %q %a
               OpReturn
               OpFunctionEnd
";

    #[test]
    fn prepare_declares_what_is_missing_and_keeps_the_rest() {
        let p = prepare(MODULE, 3).unwrap();
        assert!(p.contains("%conform_float = OpTypeFloat 32"));
        assert!(p.contains("%conform_bool = OpTypeBool"));
        assert!(!p.contains("%conform_uint"), "reuses %uint");
        assert!(p.contains("OpDecorate %conform_opaque Binding 3"));
        assert!(p.contains("%c5 = OpConstant %uint 5 ; a comment"));
        assert!(prepare(&p, 4).is_err(), "prepared twice");
        assert!(prepare("%x = OpIAdd\n %a %b", 1).is_err());
    }

    #[test]
    fn each_kind_rewrites_its_place() {
        let p = prepare(MODULE, 3).unwrap();
        // Only the struct member index %c0 of the access chain stays constant: the array
        // index and the five arithmetic operands are places.
        let opaque: HashSet<String> = (0..20)
            .filter_map(|s| apply(&p, Kind::OpaqueLiteral, s, 0))
            .collect();
        assert_eq!(opaque.len(), 5, "{opaque:#?}");
        assert!(opaque
            .iter()
            .all(|t| !t.contains("OpAccessChain %pu %out %conform")));
        let swapped = apply(&p, Kind::Swap, 0, 0).unwrap();
        assert!(swapped.find("%b = OpIMul").unwrap() < swapped.find("%a = OpIAdd").unwrap());
        let dead = apply(&p, Kind::DeadCode, 3, 0).unwrap();
        assert!(dead.contains("OpSelectionMerge"), "{dead}");
        let looped = apply(&p, Kind::OneIterationLoop, 0, 1).unwrap();
        assert!(looped.contains("OpLoopMerge %conform_1_"), "{looped}");
        assert_eq!(apply(&p, Kind::Outline, 0, 0), None);
    }
}
