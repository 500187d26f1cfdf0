//! Lowering of the compute subset of SPIR-V into the reference IR.
//!
//! Values: scalars and vectors live in one register each (lane i in component i); structs and
//! arrays are lists of values; pointers are compile-time (space, constant byte offset, optional
//! dynamic byte-offset register, pointee type). Every memory object has a byte layout: buffers
//! use their Offset / ArrayStride decorations, Workgroup / Private / Function objects a natural
//! layout (scalars aligned to their size). Function-storage variables live in the IR's private
//! memory.
//!
//! Functions: every OpFunctionCall gets its own copy of the callee (SPIR-V shaders cannot
//! recurse), reached with `Call` and left with `Return`, so pointer arguments stay compile-time.
//!
//! Control flow: structured. A selection is `If`/`Else`/`EndIf`; a switch a chain of them. A
//! loop with header H, merge M and continue target C is
//! ```text
//! Loop                       ; outer: one iteration per SPIR-V iteration
//!   brk = 0
//!   Loop                     ; inner: runs once; `Break` here is SPIR-V `continue`
//!     H and the body         ; branch to M: brk = 1; Break     branch to C: Break
//!     Break
//!   EndLoop
//!   If brk: Break EndIf
//!   continue construct       ; branch back to H: end of the region; to M: Break
//! EndLoop
//! ```
//! so the continue construct comes after the body in code order and sees its values. A switch
//! is a chain of `If`s inside a run-once `Loop`, so a branch to its merge from any depth is a
//! `Break`; a jump further out (a loop break or continue from inside a case) sets the switch's
//! flag, breaks, and breaks again after the switch.

use super::module::{id_at, lit_at, Info, Type};
use crate::ir::{
    AtomicOp, BinOp, BitfieldForm, Builder, Builtin, CmpOp, Dst, Function, Inst, Kind, Loc, MemTy,
    Program, Reg, ScalarTy, Scope, Space, Src, Ty, UnOp,
};
use crate::{Diagnostic, LIMITS};
use conform_plan::BuildStage;
use rspirv::dr::{Block, Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass, Word};
use std::collections::HashMap;

/// Per-invocation private memory the reference gives one program (Private + Function objects).
pub const MAX_PRIVATE_BYTES: u64 = 64 * 1024;
/// Most blocks emitted for one function copy (guards against code blow-up).
const MAX_BLOCK_EMISSIONS: u32 = 200_000;
/// Most function copies (calls are expanded per call site).
const MAX_FUNCTION_COPIES: usize = 4096;
/// Most IR instructions / registers one program may lower to (composites are expanded).
const MAX_CODE: usize = 1 << 20;
/// Most register-file bytes one work group may need (registers are per invocation).
const MAX_GROUP_REG_BYTES: u64 = 256 << 20;
/// Deepest nesting of structured constructs lowered.
const MAX_NESTING: u32 = 128;

/// Why the lowering stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LowerError {
    /// The module is valid but uses something the reference does not model: a refusal.
    Unsupported(Diagnostic),
    /// The module breaks a GL rule checked after validation: glSpecializeShader (unknown entry
    /// point or SpecId, not a GLCompute entry point: `Validate`) or a limit (work group size,
    /// shared memory: `Link`).
    Rejected(BuildStage, Diagnostic),
    /// The lowering produced IR that breaks the IR's invariants (a bug in the reference).
    Internal(String),
}

impl From<Diagnostic> for LowerError {
    fn from(d: Diagnostic) -> Self {
        LowerError::Unsupported(d)
    }
}

type R<T> = Result<T, LowerError>;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Base {
    Mem(Space),
    Builtin(Builtin),
}

#[derive(Clone, Debug, PartialEq)]
struct Ptr {
    base: Base,
    off: u64,
    dynoff: Option<Reg>,
    /// Pointee type.
    ty: Word,
    /// Column stride of a matrix pointee from the enclosing member's MatrixStride (natural
    /// when None).
    mstride: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
enum Val {
    R(Reg),
    C(Vec<Val>),
    P(Ptr),
}

#[derive(Clone, Debug)]
enum Frame {
    Sel {
        merge: Word,
    },
    /// A switch, lowered inside a run-once loop so that a branch to its merge from anywhere in
    /// it is an IR `Break`; `pend` is set when a jump goes further out than the switch.
    Switch {
        merge: Word,
        pend: Reg,
    },
    /// Inside a loop's header/body.
    Body {
        merge: Word,
        cont: Word,
        brk: Reg,
    },
    /// Inside a loop's continue construct.
    Cont {
        header: Word,
        merge: Word,
    },
}

enum Exit {
    /// The end of the current region (fall through).
    Stop,
    /// An IR `Break`, after setting the propagation flags of the switch wrappers it crosses
    /// (`pends`) and, for a SPIR-V loop break from a body, the loop's `brk` flag. A SPIR-V
    /// `continue` from a body is a break of the body's inner loop; a switch break is a break
    /// of the switch's wrapper loop.
    Jump {
        pends: Vec<Reg>,
        brk: Option<Reg>,
    },
    Normal,
}

struct FuncInfo<'m> {
    def: &'m Instruction,
    params: Vec<Word>,
    blocks: Vec<&'m Block>,
    index: HashMap<Word, usize>,
}

struct Fcx {
    func: usize,
    vals: HashMap<Word, Val>,
    ret: Option<Val>,
    phis: HashMap<Word, Val>,
    emitted: u32,
    depth: u32,
    /// Current nesting of constructs (bounded so deep nesting is an error, not a stack overflow).
    nest: u32,
}

struct Pending {
    call_pc: u32,
    func: usize,
    args: Vec<Val>,
    ret: Option<Val>,
    depth: u32,
}

pub struct Lowerer<'a, 'm> {
    info: &'a mut Info<'m>,
    b: Builder,
    /// Constant values: scalars one entry, vectors one per lane.
    consts: HashMap<Word, Vec<u64>>,
    globals: HashMap<Word, Val>,
    const_regs: HashMap<[u64; 4], Reg>,
    funcs: Vec<FuncInfo<'m>>,
    func_index: HashMap<Word, usize>,
    pending: Vec<Pending>,
    shared_size: u64,
    private_size: u64,
    ext_glsl: Option<Word>,
    spec: HashMap<u32, u32>,
    functions: Vec<Function>,
    /// Flags set by some emitted jump (switch propagation flags, loop break flags).
    used_pends: std::collections::HashSet<Reg>,
}

fn diag(line: u32, message: String) -> Diagnostic {
    Diagnostic {
        line,
        column: 1,
        message,
    }
}

fn align_up(v: u64, a: u64) -> u64 {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a).saturating_mul(a)
    }
}

impl<'a, 'm> Lowerer<'a, 'm> {
    pub fn new(info: &'a mut Info<'m>, specialization: &[(u32, u32)]) -> Self {
        Lowerer {
            info,
            b: Builder::new(),
            consts: HashMap::new(),
            globals: HashMap::new(),
            const_regs: HashMap::new(),
            funcs: Vec::new(),
            func_index: HashMap::new(),
            pending: Vec::new(),
            shared_size: 0,
            private_size: 0,
            ext_glsl: None,
            spec: specialization.iter().copied().collect(),
            functions: Vec::new(),
            used_pends: Default::default(),
        }
    }

    fn at(&self, inst: &Instruction, msg: impl Into<String>) -> Diagnostic {
        diag(
            self.info.line(inst),
            format!("{} ({})", msg.into(), self.info.where_(inst)),
        )
    }

    /// Stops the lowering: the module leaves the reference's subset.
    fn err<T>(&self, inst: &Instruction, msg: impl Into<String>) -> R<T> {
        Err(LowerError::Unsupported(self.at(inst, msg)))
    }

    /// Stops the lowering: the module breaks a GL rule and fails at `stage`.
    fn rejected<T>(&self, stage: BuildStage, inst: &Instruction, msg: impl Into<String>) -> R<T> {
        Err(LowerError::Rejected(stage, self.at(inst, msg)))
    }

    fn unsupported<T>(&self, inst: &Instruction, what: &str) -> R<T> {
        self.err(
            inst,
            format!(
                "Op{:?} is not supported by the reference's SPIR-V front end{what}",
                inst.class.opcode
            ),
        )
    }

    // ---------------------------------------------------------------- types and layout

    fn ty(&self, id: Word) -> Type {
        self.info.ty(id).cloned().unwrap_or(Type::Other(Op::Nop))
    }

    /// Scalar type and lane count of a scalar or vector type; integers as unsigned.
    fn scalar_lanes(&self, id: Word) -> Option<(ScalarTy, u8)> {
        let s = |t: &Type| match t {
            Type::Bool => Some(ScalarTy::BOOL),
            Type::Int { bits, signed } => Some(ScalarTy::new(
                if *signed { Kind::S } else { Kind::U },
                *bits,
            )),
            Type::Float { bits } => Some(ScalarTy::new(Kind::F, *bits)),
            _ => None,
        };
        match self.info.ty(id)? {
            Type::Vector { elem, n } if (1..=4).contains(n) => Some((s(self.info.ty(*elem)?)?, *n)),
            t => Some((s(t)?, 1)),
        }
    }

    /// `(size, align)` in bytes of a type laid out in memory.
    fn size_align(&self, id: Word, depth: u32) -> Option<(u64, u64)> {
        if depth > 64 {
            return None;
        }
        Some(match self.info.ty(id)? {
            Type::Bool => (4, 4),
            Type::Int { bits, .. } | Type::Float { bits } => {
                let s = u64::from(*bits) / 8;
                (s, s.max(1))
            }
            Type::Vector { elem, n } => {
                let (s, a) = self.size_align(*elem, depth + 1)?;
                (s * u64::from(*n), a)
            }
            Type::Array { elem, len } => {
                let (_, a) = self.size_align(*elem, depth + 1)?;
                let stride = self.array_stride(id, depth)?;
                (stride.checked_mul(*len)?, a)
            }
            Type::RtArray { elem } => {
                let (_, a) = self.size_align(*elem, depth + 1)?;
                (0, a)
            }
            Type::Matrix { col, n } => {
                let (s, a) = self.size_align(*col, depth + 1)?;
                (align_up(s, a) * u64::from(*n), a)
            }
            Type::Struct { members } => {
                let mut end = 0u64;
                let mut al = 1u64;
                for (i, m) in members.iter().enumerate() {
                    let (s, a) = self.size_align(*m, depth + 1)?;
                    al = al.max(a);
                    let off = self.member_offset(id, i as u32, depth)?;
                    end = end.max(off.checked_add(s)?);
                }
                (align_up(end, al), al)
            }
            _ => return None,
        })
    }

    fn array_stride(&self, id: Word, depth: u32) -> Option<u64> {
        if let Some(s) = self.info.deco_lit(id, Decoration::ArrayStride) {
            return Some(u64::from(s));
        }
        let elem = match self.info.ty(id)? {
            Type::Array { elem, .. } | Type::RtArray { elem } => *elem,
            Type::Vector { elem, .. } => return self.size_align(*elem, depth + 1).map(|x| x.0),
            _ => return None,
        };
        let (s, a) = self.size_align(elem, depth + 1)?;
        Some(align_up(s, a))
    }

    fn member_offset(&self, id: Word, m: u32, depth: u32) -> Option<u64> {
        if let Some(o) = self.info.member_deco_lit(id, m, Decoration::Offset) {
            return Some(u64::from(o));
        }
        let Type::Struct { members } = self.info.ty(id)? else {
            return None;
        };
        let mut off = 0u64;
        for (i, mt) in members.iter().enumerate() {
            let (s, a) = self.size_align(*mt, depth + 1)?;
            off = align_up(off, a);
            if i as u32 == m {
                return Some(off);
            }
            off = off.checked_add(s)?;
        }
        None
    }

    // ---------------------------------------------------------------- registers

    fn too_big(&self) -> bool {
        self.b.code.len() > MAX_CODE || self.b.reg_init.len() > MAX_CODE
    }

    fn creg(&mut self, v: [u64; 4]) -> Reg {
        if let Some(r) = self.const_regs.get(&v) {
            return *r;
        }
        let r = self.b.constant(v);
        self.const_regs.insert(v, r);
        r
    }

    fn cu32(&mut self, v: u64) -> Reg {
        self.creg([v & 0xffff_ffff, 0, 0, 0])
    }

    /// Fresh registers shaped like a value of type `id` (for phis, results, returns).
    fn alloc_val(&mut self, id: Word, depth: u32) -> Option<Val> {
        if depth > 64 || self.too_big() {
            return None;
        }
        Some(match self.info.ty(id)?.clone() {
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => {
                Val::R(self.b.reg())
            }
            Type::Array { elem, len } if len <= 4096 => {
                let mut v = Vec::new();
                for _ in 0..len {
                    v.push(self.alloc_val(elem, depth + 1)?);
                }
                Val::C(v)
            }
            Type::Matrix { n, .. } => Val::C((0..n).map(|_| Val::R(self.b.reg())).collect()),
            Type::Struct { members } => {
                let mut v = Vec::new();
                for m in members {
                    v.push(self.alloc_val(m, depth + 1)?);
                }
                Val::C(v)
            }
            _ => return None,
        })
    }

    /// The zero value of a type (OpConstantNull, OpUndef).
    fn zero_val(&mut self, id: Word, depth: u32) -> Option<Val> {
        if depth > 64 || self.too_big() {
            return None;
        }
        Some(match self.info.ty(id)?.clone() {
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => {
                Val::R(self.creg([0; 4]))
            }
            Type::Array { elem, len } if len <= 4096 => {
                let mut v = Vec::new();
                for _ in 0..len {
                    v.push(self.zero_val(elem, depth + 1)?);
                }
                Val::C(v)
            }
            Type::Matrix { n, .. } => {
                let z = self.creg([0; 4]);
                Val::C((0..n).map(|_| Val::R(z)).collect())
            }
            Type::Struct { members } => {
                let mut v = Vec::new();
                for m in members {
                    v.push(self.zero_val(m, depth + 1)?);
                }
                Val::C(v)
            }
            _ => return None,
        })
    }

    fn copy_into(&mut self, dst: &Val, src: &Val) -> bool {
        match (dst, src) {
            (Val::R(d), Val::R(s)) => {
                self.b.push(Inst::Mov {
                    dst: Dst::new(*d),
                    a: Src::new(*s),
                });
                true
            }
            (Val::C(d), Val::C(s)) if d.len() == s.len() => {
                d.iter().zip(s).all(|(d, s)| self.copy_into(d, s))
            }
            _ => false,
        }
    }

    // ---------------------------------------------------------------- constants

    fn spec_default(&self, inst: &Instruction) -> Option<u32> {
        let id = inst.result_id?;
        let sid = self.info.deco_lit(id, Decoration::SpecId)?;
        self.spec.get(&sid).copied()
    }

    fn lower_constants(&mut self) -> R<()> {
        let module = self.info.module;
        for inst in &module.types_global_values {
            let op = inst.class.opcode;
            if op == Op::TypeArray {
                let id = inst.result_id.unwrap_or(0);
                let len_id = id_at(inst, 1).unwrap_or(0);
                let Some(len) = self.consts.get(&len_id).and_then(|v| v.first().copied()) else {
                    return self.err(inst, "array length is not a known constant");
                };
                if let Some(Type::Array { len: l, .. }) = self.info.types.get_mut(&id) {
                    *l = len;
                }
                continue;
            }
            let (Some(id), Some(rt)) = (inst.result_id, inst.result_type) else {
                continue;
            };
            let vals: Option<Vec<u64>> = match op {
                Op::Constant | Op::SpecConstant => {
                    let mask = self.scalar_lanes(rt).map(|(s, _)| s.mask()).unwrap_or(0);
                    let lit = match inst.operands.first() {
                        Some(Operand::LiteralBit32(v)) => u64::from(*v),
                        Some(Operand::LiteralBit64(v)) => *v,
                        _ => return self.err(inst, "constant without a literal value"),
                    };
                    let v = match (op, self.spec_default(inst)) {
                        (Op::SpecConstant, Some(o)) => u64::from(o),
                        _ => lit,
                    };
                    Some(vec![v & mask])
                }
                Op::ConstantTrue | Op::ConstantFalse => {
                    Some(vec![u64::from(op == Op::ConstantTrue)])
                }
                Op::SpecConstantTrue | Op::SpecConstantFalse => {
                    let d = op == Op::SpecConstantTrue;
                    Some(vec![u64::from(match self.spec_default(inst) {
                        Some(o) => o != 0,
                        None => d,
                    })])
                }
                Op::ConstantComposite | Op::SpecConstantComposite => {
                    if matches!(self.ty(rt), Type::Vector { .. }) {
                        let mut v = Vec::new();
                        for o in &inst.operands {
                            let Some(c) = o.id_ref_any() else { continue };
                            match self.consts.get(&c) {
                                Some(x) => v.extend_from_slice(x),
                                None => return self.err(inst, "composite of unknown constants"),
                            }
                        }
                        Some(v)
                    } else {
                        let mut parts = Vec::new();
                        for o in &inst.operands {
                            let Some(c) = o.id_ref_any() else { continue };
                            match self.globals.get(&c) {
                                Some(x) => parts.push(x.clone()),
                                None => return self.err(inst, "composite of unknown constants"),
                            }
                        }
                        self.globals.insert(id, Val::C(parts));
                        None
                    }
                }
                Op::ConstantNull => match self.scalar_lanes(rt) {
                    Some((_, n)) => Some(vec![0; n as usize]),
                    None => {
                        let Some(z) = self.zero_val(rt, 0) else {
                            return self.err(inst, "OpConstantNull of an unsupported type");
                        };
                        self.globals.insert(id, z);
                        None
                    }
                },
                Op::SpecConstantOp => Some(vec![self.fold_spec_op(inst, rt)?]),
                Op::Undef => match self.scalar_lanes(rt) {
                    Some((_, n)) => Some(vec![0; n as usize]),
                    None => {
                        if let Some(z) = self.zero_val(rt, 0) {
                            self.globals.insert(id, z);
                        }
                        None
                    }
                },
                _ => None,
            };
            if let Some(v) = vals {
                if v.len() > 4 {
                    return self.err(inst, "vector constant with more than 4 components");
                }
                let mut w = [0u64; 4];
                w[..v.len()].copy_from_slice(&v);
                let r = self.creg(w);
                self.consts.insert(id, v);
                self.globals.insert(id, Val::R(r));
            }
        }
        Ok(())
    }

    fn fold_spec_op(&self, inst: &Instruction, rt: Word) -> R<u64> {
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = inst.operands.first() else {
            return self.err(inst, "OpSpecConstantOp without an opcode");
        };
        let Some((rs, 1)) = self.scalar_lanes(rt) else {
            return self.err(
                inst,
                "OpSpecConstantOp on a non-scalar type is not supported",
            );
        };
        let arg = |i: usize| -> R<(u64, ScalarTy)> {
            let id = id_at(inst, i).unwrap_or(0);
            let v = self.consts.get(&id).and_then(|v| v.first().copied());
            let t = self
                .info
                .type_of
                .get(&id)
                .and_then(|t| self.scalar_lanes(*t));
            match (v, t) {
                (Some(v), Some((t, 1))) => Ok((v, t)),
                _ => self.err(
                    inst,
                    "OpSpecConstantOp operand is not a known scalar constant",
                ),
            }
        };
        use crate::exec::values as ev;
        let u = |s: ScalarTy| ScalarTy::new(Kind::U, s.bits);
        let sg = |s: ScalarTy| ScalarTy::new(Kind::S, s.bits);
        let bin = |b: BinOp, signed: bool| -> R<u64> {
            let (a, t) = arg(1)?;
            let (c, _) = arg(2)?;
            Ok(ev::binop(b, if signed { sg(t) } else { u(t) }, a, c))
        };
        let cmp = |c: CmpOp, signed: bool| -> R<u64> {
            let (a, t) = arg(1)?;
            let (x, _) = arg(2)?;
            Ok(u64::from(ev::cmp(
                c,
                if signed { sg(t) } else { u(t) },
                a,
                x,
            )))
        };
        Ok(match op {
            Op::IAdd => bin(BinOp::Add, false)?,
            Op::ISub => bin(BinOp::Sub, false)?,
            Op::IMul => bin(BinOp::Mul, false)?,
            Op::UDiv => bin(BinOp::Div, false)?,
            Op::SDiv => bin(BinOp::Div, true)?,
            Op::UMod => bin(BinOp::Rem, false)?,
            Op::SRem => bin(BinOp::Rem, true)?,
            Op::SMod => bin(BinOp::Mod, true)?,
            Op::ShiftLeftLogical => bin(BinOp::Shl, false)?,
            Op::ShiftRightLogical => bin(BinOp::Shr, false)?,
            Op::ShiftRightArithmetic => bin(BinOp::Shr, true)?,
            Op::BitwiseAnd | Op::LogicalAnd => bin(BinOp::And, false)?,
            Op::BitwiseOr | Op::LogicalOr => bin(BinOp::Or, false)?,
            Op::BitwiseXor => bin(BinOp::Xor, false)?,
            Op::IEqual | Op::LogicalEqual => cmp(CmpOp::Eq, false)?,
            Op::INotEqual | Op::LogicalNotEqual => cmp(CmpOp::Ne, false)?,
            Op::ULessThan => cmp(CmpOp::Lt, false)?,
            Op::SLessThan => cmp(CmpOp::Lt, true)?,
            Op::UGreaterThan => cmp(CmpOp::Gt, false)?,
            Op::SGreaterThan => cmp(CmpOp::Gt, true)?,
            Op::ULessThanEqual => cmp(CmpOp::Le, false)?,
            Op::SLessThanEqual => cmp(CmpOp::Le, true)?,
            Op::UGreaterThanEqual => cmp(CmpOp::Ge, false)?,
            Op::SGreaterThanEqual => cmp(CmpOp::Ge, true)?,
            Op::Not => {
                let (a, t) = arg(1)?;
                !a & t.mask()
            }
            Op::LogicalNot => u64::from(arg(1)?.0 == 0),
            Op::SNegate => {
                let (a, t) = arg(1)?;
                a.wrapping_neg() & t.mask()
            }
            Op::Select => {
                let (c, _) = arg(1)?;
                if c != 0 {
                    arg(2)?.0
                } else {
                    arg(3)?.0
                }
            }
            Op::UConvert => ev::convert(u(arg(1)?.1), u(rs), arg(1)?.0),
            Op::SConvert => ev::convert(sg(arg(1)?.1), sg(rs), arg(1)?.0),
            other => {
                return self.err(
                    inst,
                    format!("OpSpecConstantOp with Op{other:?} is not supported by the reference"),
                )
            }
        } & rs.mask())
    }

    // ---------------------------------------------------------------- globals

    fn lower_globals(&mut self, private_inits: &mut Vec<(Ptr, Word, Word)>) -> R<()> {
        let module = self.info.module;
        for inst in &module.types_global_values {
            if inst.class.opcode != Op::Variable {
                continue;
            }
            let (Some(id), Some(pt)) = (inst.result_id, inst.result_type) else {
                continue;
            };
            let Type::Pointer { pointee, .. } = self.ty(pt) else {
                return self.err(inst, "OpVariable whose type is not a pointer");
            };
            let Some(Operand::StorageClass(sc)) = inst.operands.first() else {
                return self.err(inst, "OpVariable without a storage class");
            };
            let binding = self.info.deco_lit(id, Decoration::Binding).unwrap_or(0);
            let ptr = |base: Base, off: u64| Ptr {
                base,
                off,
                dynoff: None,
                ty: pointee,
                mstride: None,
            };
            let v = match sc {
                StorageClass::Input => {
                    let bi = self.info.decos.get(&id).and_then(|d| {
                        d.iter()
                            .find(|x| x.deco == Decoration::BuiltIn)
                            .and_then(|x| match x.args.first() {
                                Some(Operand::BuiltIn(b)) => Some(*b),
                                _ => None,
                            })
                    });
                    let which =
                        match bi {
                            Some(BuiltIn::GlobalInvocationId) => Builtin::GlobalId,
                            Some(BuiltIn::LocalInvocationId) => Builtin::LocalId,
                            Some(BuiltIn::WorkgroupId) => Builtin::GroupId,
                            Some(BuiltIn::NumWorkgroups) => Builtin::GroupCount,
                            Some(BuiltIn::LocalInvocationIndex) => Builtin::LocalIndex,
                            Some(BuiltIn::WorkgroupSize) => Builtin::GroupSize,
                            Some(other) => {
                                return self.err(
                                    inst,
                                    format!("built-in {other:?} is not supported by the reference"),
                                )
                            }
                            None => return self.err(
                                inst,
                                "Input variables other than compute built-ins are not supported",
                            ),
                        };
                    ptr(Base::Builtin(which), 0)
                }
                StorageClass::Uniform | StorageClass::StorageBuffer => {
                    let block_ty = match self.ty(pointee) {
                        Type::Array { elem, .. } | Type::RtArray { elem } => {
                            return self.err(
                                inst,
                                format!(
                                    "arrays of blocks are not supported by the reference (element %{elem})"
                                ),
                            )
                        }
                        _ => pointee,
                    };
                    let space = if *sc == StorageClass::StorageBuffer
                        || self.info.has_deco(block_ty, Decoration::BufferBlock)
                    {
                        Space::Storage(binding)
                    } else {
                        Space::Uniform(binding)
                    };
                    ptr(Base::Mem(space), 0)
                }
                StorageClass::AtomicCounter => {
                    let off = self.info.deco_lit(id, Decoration::Offset).unwrap_or(0);
                    ptr(Base::Mem(Space::AtomicCounter(binding)), u64::from(off))
                }
                StorageClass::Workgroup => {
                    let Some((size, al)) = self.size_align(pointee, 0) else {
                        return self.err(inst, "Workgroup variable of an unsupported type");
                    };
                    let off = align_up(self.shared_size, al.max(4));
                    self.shared_size = off.saturating_add(size);
                    if self.shared_size > u64::from(LIMITS.max_shared_memory_size) {
                        return self.rejected(
                            BuildStage::Link,
                            inst,
                            format!(
                                "Workgroup variables need {} bytes, more than MAX_COMPUTE_SHARED_MEMORY_SIZE ({})",
                                self.shared_size, LIMITS.max_shared_memory_size
                            ),
                        );
                    }
                    ptr(Base::Mem(Space::Shared), off)
                }
                StorageClass::Private => {
                    let p = self.alloc_private(inst, pointee)?;
                    if let Some(init) = id_at(inst, 1) {
                        private_inits.push((p.clone(), pointee, init));
                    }
                    p
                }
                other => {
                    return self.err(
                        inst,
                        format!(
                        "variables in storage class {other:?} are not supported by the reference"
                    ),
                    )
                }
            };
            self.globals.insert(id, Val::P(v));
        }
        Ok(())
    }

    fn alloc_private(&mut self, inst: &Instruction, ty: Word) -> R<Ptr> {
        let Some((size, al)) = self.size_align(ty, 0) else {
            return self.err(inst, "variable of an unsupported type");
        };
        let off = align_up(self.private_size, al.max(4));
        self.private_size = off.saturating_add(size);
        if self.private_size > MAX_PRIVATE_BYTES {
            return self.err(
                inst,
                format!(
                    "Private/Function variables need more than the reference's {MAX_PRIVATE_BYTES} bytes per invocation"
                ),
            );
        }
        Ok(Ptr {
            base: Base::Mem(Space::Private),
            off,
            dynoff: None,
            ty,
            mstride: None,
        })
    }

    // ---------------------------------------------------------------- memory

    /// Column stride of the matrix `p` points to.
    fn mat_stride(&self, p: &Ptr, col: Word) -> u64 {
        p.mstride.unwrap_or_else(|| {
            self.size_align(col, 0)
                .map(|(s, a)| align_up(s, a))
                .unwrap_or(16)
        })
    }

    /// MatrixStride of struct member `m` (row-major matrices are refused).
    fn member_mstride(&self, inst: &Instruction, st: Word, m: u32) -> R<Option<u64>> {
        if self
            .info
            .member_decos
            .get(&(st, m))
            .is_some_and(|d| d.iter().any(|x| x.deco == Decoration::RowMajor))
        {
            return self.err(inst, "RowMajor matrices are not supported by the reference");
        }
        Ok(self
            .info
            .member_deco_lit(st, m, Decoration::MatrixStride)
            .map(u64::from))
    }

    fn addr(&mut self, p: &Ptr) -> Src {
        match p.dynoff {
            None => Src::new(self.cu32(p.off)),
            Some(d) if p.off == 0 => Src::new(d),
            Some(d) => {
                let c = self.cu32(p.off);
                let r = self.b.reg();
                self.b.push(Inst::Bin {
                    op: BinOp::Add,
                    ty: Ty::new(ScalarTy::U32, 1),
                    dst: Dst::new(r),
                    a: Src::new(d),
                    b: Src::new(c),
                });
                Src::new(r)
            }
        }
    }

    fn mem_scalar(s: ScalarTy) -> ScalarTy {
        if s.kind == Kind::B {
            ScalarTy::U32
        } else {
            s
        }
    }

    fn load(&mut self, inst: &Instruction, p: &Ptr, depth: u32) -> R<Val> {
        if depth > 64 {
            return self.err(inst, "type nesting too deep");
        }
        if self.too_big() {
            return self.err(
                inst,
                "the program expands to too much code for the reference",
            );
        }
        if let Base::Builtin(which) = p.base {
            let r = self.b.reg();
            self.b.push(Inst::Builtin {
                dst: Dst::new(r),
                which,
            });
            let Some((_, lanes)) = self.scalar_lanes(p.ty) else {
                return self.err(inst, "built-in of an unsupported type");
            };
            if p.off == 0 && p.dynoff.is_none() {
                return Ok(Val::R(r));
            }
            if lanes != 1 {
                return self.err(
                    inst,
                    "pointer into a built-in at an offset must be to a scalar",
                );
            }
            let out = self.b.reg();
            let a = self.addr(p);
            let idx = self.b.reg();
            let two = self.cu32(2);
            self.b.push(Inst::Bin {
                op: BinOp::Shr,
                ty: Ty::new(ScalarTy::U32, 1),
                dst: Dst::new(idx),
                a,
                b: Src::new(two),
            });
            self.b.push(Inst::ExtractDyn {
                dst: Dst::new(out),
                vec: Src::new(r),
                idx: Src::new(idx),
            });
            return Ok(Val::R(out));
        }
        let Base::Mem(space) = p.base else {
            return self.err(inst, "bad pointer");
        };
        if let Some((s, lanes)) = self.scalar_lanes(p.ty) {
            let dst = self.b.reg();
            let addr = self.addr(p);
            self.b.push(Inst::Load {
                space,
                ty: MemTy {
                    scalar: Self::mem_scalar(s),
                    lanes,
                    widen: false,
                },
                dst: Dst::new(dst),
                addr,
            });
            return Ok(Val::R(dst));
        }
        match self.ty(p.ty) {
            Type::Array { elem, len } if len <= 4096 => {
                let Some(stride) = self.array_stride(p.ty, 0) else {
                    return self.err(inst, "array without a layout");
                };
                let mut v = Vec::new();
                for i in 0..len {
                    let q = Ptr {
                        off: p.off + i * stride,
                        ty: elem,
                        ..p.clone()
                    };
                    v.push(self.load(inst, &q, depth + 1)?);
                }
                Ok(Val::C(v))
            }
            Type::Matrix { col, n } => {
                let stride = self.mat_stride(p, col);
                let mut v = Vec::new();
                for j in 0..u64::from(n) {
                    let q = Ptr {
                        off: p.off + j * stride,
                        ty: col,
                        ..p.clone()
                    };
                    v.push(self.load(inst, &q, depth + 1)?);
                }
                Ok(Val::C(v))
            }
            Type::Struct { members } => {
                let mut v = Vec::new();
                for (i, m) in members.iter().enumerate() {
                    let Some(o) = self.member_offset(p.ty, i as u32, 0) else {
                        return self.err(inst, "struct without a layout");
                    };
                    let q = Ptr {
                        off: p.off + o,
                        ty: *m,
                        mstride: self.member_mstride(inst, p.ty, i as u32)?,
                        ..p.clone()
                    };
                    v.push(self.load(inst, &q, depth + 1)?);
                }
                Ok(Val::C(v))
            }
            _ => self.err(
                inst,
                format!(
                    "loading a value of type {} is not supported",
                    self.info.ty_name(p.ty)
                ),
            ),
        }
    }

    fn store(&mut self, inst: &Instruction, p: &Ptr, v: &Val, depth: u32) -> R<()> {
        if depth > 64 {
            return self.err(inst, "type nesting too deep");
        }
        if self.too_big() {
            return self.err(
                inst,
                "the program expands to too much code for the reference",
            );
        }
        let Base::Mem(space) = p.base else {
            return self.err(inst, "store to a built-in input");
        };
        if let (Some((s, lanes)), Val::R(r)) = (self.scalar_lanes(p.ty), v) {
            let addr = self.addr(p);
            self.b.push(Inst::Store {
                space,
                ty: MemTy {
                    scalar: Self::mem_scalar(s),
                    lanes,
                    widen: false,
                },
                addr,
                val: Src::new(*r),
            });
            return Ok(());
        }
        match (self.ty(p.ty), v) {
            (Type::Array { elem, .. }, Val::C(parts)) => {
                let Some(stride) = self.array_stride(p.ty, 0) else {
                    return self.err(inst, "array without a layout");
                };
                for (i, part) in parts.iter().enumerate() {
                    let q = Ptr {
                        off: p.off + i as u64 * stride,
                        ty: elem,
                        ..p.clone()
                    };
                    self.store(inst, &q, part, depth + 1)?;
                }
                Ok(())
            }
            (Type::Struct { members }, Val::C(parts)) if parts.len() == members.len() => {
                for (i, (m, part)) in members.iter().zip(parts).enumerate() {
                    let Some(o) = self.member_offset(p.ty, i as u32, 0) else {
                        return self.err(inst, "struct without a layout");
                    };
                    let q = Ptr {
                        off: p.off + o,
                        ty: *m,
                        mstride: self.member_mstride(inst, p.ty, i as u32)?,
                        ..p.clone()
                    };
                    self.store(inst, &q, part, depth + 1)?;
                }
                Ok(())
            }
            (Type::Matrix { col, .. }, Val::C(parts)) => {
                let stride = self.mat_stride(p, col);
                for (j, part) in parts.iter().enumerate() {
                    let q = Ptr {
                        off: p.off + j as u64 * stride,
                        ty: col,
                        ..p.clone()
                    };
                    self.store(inst, &q, part, depth + 1)?;
                }
                Ok(())
            }
            _ => self.err(
                inst,
                format!(
                    "storing a value of type {} is not supported",
                    self.info.ty_name(p.ty)
                ),
            ),
        }
    }

    // ---------------------------------------------------------------- entry

    /// Lowers the module's entry point `entry_name`. The error says whether the module breaks
    /// a GL rule ([`LowerError::Rejected`]: glSpecializeShader at the validate stage, a limit at
    /// the link stage) or leaves the reference's subset ([`LowerError::Unsupported`]).
    pub fn lower(&mut self, entry_name: &str) -> R<Program> {
        let module = self.info.module;
        let want = if entry_name.is_empty() {
            "main"
        } else {
            entry_name
        };
        let ep = module
            .entry_points
            .iter()
            .find(|e| matches!(e.operands.get(2), Some(Operand::LiteralString(s)) if s == want));
        let Some(ep) = ep else {
            return Err(LowerError::Rejected(
                BuildStage::Validate,
                diag(
                1,
                format!("the module has no entry point named \"{want}\" (glSpecializeShader: INVALID_VALUE)"),
            )));
        };
        let spec_ids: std::collections::HashSet<u32> = self
            .info
            .decos
            .values()
            .flatten()
            .filter(|d| d.deco == Decoration::SpecId)
            .filter_map(|d| match d.args.first() {
                Some(Operand::LiteralBit32(v)) => Some(*v),
                _ => None,
            })
            .collect();
        let mut unknown: Vec<u32> = self
            .spec
            .keys()
            .filter(|k| !spec_ids.contains(k))
            .copied()
            .collect();
        unknown.sort_unstable();
        if let Some(k) = unknown.first() {
            return Err(LowerError::Rejected(
                BuildStage::Validate,
                diag(
                1,
                format!("specialization constant {k} does not exist in the module (glSpecializeShader: INVALID_VALUE)"),
            )));
        }
        if !matches!(
            ep.operands.first(),
            Some(Operand::ExecutionModel(ExecutionModel::GLCompute))
        ) {
            return self.rejected(
                BuildStage::Validate,
                ep,
                format!("entry point \"{want}\" is not a GLCompute entry point"),
            );
        }
        let entry_fn = id_at(ep, 1).unwrap_or(0);
        for e in &module.ext_inst_imports {
            if matches!(e.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450")
            {
                self.ext_glsl = e.result_id;
            }
        }
        for f in &module.functions {
            let Some(def) = f.def.as_ref() else { continue };
            let Some(fid) = def.result_id else { continue };
            let blocks: Vec<&Block> = f.blocks.iter().collect();
            let index = blocks
                .iter()
                .enumerate()
                .filter_map(|(i, b)| b.label.as_ref()?.result_id.map(|l| (l, i)))
                .collect();
            self.func_index.insert(fid, self.funcs.len());
            self.funcs.push(FuncInfo {
                def,
                params: f.parameters.iter().filter_map(|p| p.result_id).collect(),
                blocks,
                index,
            });
        }
        self.lower_constants()?;
        let mut private_inits = Vec::new();
        self.lower_globals(&mut private_inits)?;

        // Work group size: LocalSize / LocalSizeId, overridden by a WorkgroupSize constant.
        let mut group_size = None;
        for em in &module.execution_modes {
            if id_at(em, 0) != Some(entry_fn) {
                continue;
            }
            match em.operands.get(1) {
                Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) => {
                    group_size = Some([
                        lit_at(em, 2).unwrap_or(1),
                        lit_at(em, 3).unwrap_or(1),
                        lit_at(em, 4).unwrap_or(1),
                    ]);
                }
                Some(Operand::ExecutionMode(ExecutionMode::LocalSizeId)) => {
                    let mut g = [1u32; 3];
                    for (k, gk) in g.iter_mut().enumerate() {
                        let id = id_at(em, 2 + k).unwrap_or(0);
                        *gk = self
                            .consts
                            .get(&id)
                            .and_then(|v| v.first().copied())
                            .unwrap_or(1) as u32;
                    }
                    group_size = Some(g);
                }
                _ => {}
            }
        }
        for (id, v) in &self.consts {
            let is_wgs = self.info.decos.get(id).is_some_and(|d| {
                d.iter().any(|x| {
                    x.deco == Decoration::BuiltIn
                        && matches!(
                            x.args.first(),
                            Some(Operand::BuiltIn(BuiltIn::WorkgroupSize))
                        )
                })
            });
            if is_wgs && v.len() == 3 {
                group_size = Some([v[0] as u32, v[1] as u32, v[2] as u32]);
            }
        }
        let Some(group_size) = group_size else {
            return self.err(ep, "the entry point has no LocalSize execution mode");
        };
        let inv = group_size.iter().map(|g| u64::from(*g)).product::<u64>();
        if group_size.contains(&0)
            || group_size
                .iter()
                .zip(LIMITS.max_work_group_size)
                .any(|(g, m)| *g > m)
            || inv > u64::from(LIMITS.max_work_group_invocations)
        {
            return self.rejected(
                BuildStage::Link,
                ep,
                format!(
                    "work group size {group_size:?} is zero or above the limits (MAX_COMPUTE_WORK_GROUP_SIZE {:?}, MAX_COMPUTE_WORK_GROUP_INVOCATIONS {})",
                    LIMITS.max_work_group_size, LIMITS.max_work_group_invocations
                ),
            );
        }

        // Entry: Private initializers, then the entry function's body.
        let Some(&entry_idx) = self.func_index.get(&entry_fn) else {
            return self.err(ep, "the entry point's function is not defined");
        };
        for (p, ty, init) in private_inits {
            let Some(v) = self.globals.get(&init).cloned() else {
                return self.err(ep, "Private variable initializer is not a constant");
            };
            let _ = ty;
            self.store(ep, &p, &v, 0)?;
        }
        self.functions.push(Function {
            name: want.to_string(),
            start_pc: 0,
        });
        self.emit_function(entry_idx, Vec::new(), None, 0)?;
        while let Some(p) = self.pending.pop() {
            if self.functions.len() > MAX_FUNCTION_COPIES {
                return Err(LowerError::Unsupported(diag(
                    1,
                    "too many function calls to expand (more than the reference's limit)".into(),
                )));
            }
            let start = self.b.pc();
            if let Some(Inst::Call { target_pc }) = self.b.code.get_mut(p.call_pc as usize) {
                *target_pc = start;
            }
            let name = self.funcs[p.func]
                .def
                .result_id
                .map(|i| format!("%{i}"))
                .unwrap_or_default();
            self.functions.push(Function {
                name,
                start_pc: start,
            });
            self.emit_function(p.func, p.args, p.ret, p.depth)?;
        }
        let reg_bytes = self.b.reg_init.len() as u64 * 32 * inv;
        if reg_bytes > MAX_GROUP_REG_BYTES {
            return self.err(
                ep,
                format!(
                    "the lowered program needs {} MiB of registers per work group, more than the reference's {} MiB",
                    reg_bytes >> 20,
                    MAX_GROUP_REG_BYTES >> 20
                ),
            );
        }
        let b = std::mem::take(&mut self.b);
        let mut prog = Program {
            code: b.code,
            locs: b.locs,
            entry_pc: 0,
            functions: std::mem::take(&mut self.functions),
            reg_init: b.reg_init,
            group_size,
            shared_size: self.shared_size as u32,
            private_size: self.private_size as u32,
            uses: Default::default(),
            uniforms: Vec::new(),
        };
        prog.compute_uses();
        if let Err(e) = prog.validate() {
            return Err(LowerError::Internal(format!(
                "the SPIR-V lowering produced an invalid program: {e}"
            )));
        }
        Ok(prog)
    }

    fn emit_function(
        &mut self,
        func: usize,
        args: Vec<Val>,
        ret: Option<Val>,
        depth: u32,
    ) -> R<()> {
        if depth > LIMITS.max_call_depth {
            let def = self.funcs[func].def;
            return self.err(
                def,
                "function calls nest too deeply (recursion is not allowed)",
            );
        }
        let mut fcx = Fcx {
            func,
            vals: HashMap::new(),
            ret,
            phis: HashMap::new(),
            emitted: 0,
            depth,
            nest: 0,
        };
        let params = self.funcs[func].params.clone();
        for (p, a) in params.iter().zip(args) {
            fcx.vals.insert(*p, a);
        }
        // Phi registers and Function variables.
        let blocks = self.funcs[func].blocks.clone();
        for blk in &blocks {
            for inst in &blk.instructions {
                match inst.class.opcode {
                    Op::Phi => {
                        let (Some(id), Some(rt)) = (inst.result_id, inst.result_type) else {
                            continue;
                        };
                        let Some(v) = self.alloc_val(rt, 0) else {
                            return self.err(inst, "OpPhi of an unsupported type");
                        };
                        fcx.phis.insert(id, v.clone());
                        fcx.vals.insert(id, v);
                    }
                    Op::Variable => {
                        let (Some(id), Some(pt)) = (inst.result_id, inst.result_type) else {
                            continue;
                        };
                        let Type::Pointer { pointee, .. } = self.ty(pt) else {
                            return self.err(inst, "OpVariable whose type is not a pointer");
                        };
                        let p = self.alloc_private(inst, pointee)?;
                        fcx.vals.insert(id, Val::P(p));
                    }
                    _ => {}
                }
            }
        }
        // Function variables start at zero (or their initializer) on every call.
        for blk in &blocks {
            for inst in &blk.instructions {
                if inst.class.opcode != Op::Variable {
                    continue;
                }
                let Some(Val::P(p)) = inst.result_id.and_then(|i| fcx.vals.get(&i)).cloned() else {
                    continue;
                };
                let v = match id_at(inst, 1) {
                    Some(init) => match self.value(&fcx, init) {
                        Some(v) => v,
                        None => return self.err(inst, "variable initializer is not a constant"),
                    },
                    None => match self.zero_val(p.ty, 0) {
                        Some(z) => z,
                        None => continue,
                    },
                };
                self.store(inst, &p, &v, 0)?;
            }
        }
        let Some(first) = blocks.first().and_then(|b| b.label.as_ref()?.result_id) else {
            return self.err(self.funcs[func].def, "function without blocks");
        };
        self.region(&mut fcx, first, None, &[], true)?;
        // Falling off the end (unreachable in valid modules) returns.
        self.b.push(Inst::Return);
        Ok(())
    }

    fn value(&self, fcx: &Fcx, id: Word) -> Option<Val> {
        fcx.vals.get(&id).or_else(|| self.globals.get(&id)).cloned()
    }

    // ---------------------------------------------------------------- control flow

    fn block(&self, fcx: &Fcx, label: Word) -> Option<&'m Block> {
        let f = &self.funcs[fcx.func];
        f.index.get(&label).map(|i| f.blocks[*i])
    }

    fn phi_moves(&mut self, fcx: &Fcx, from: Word, to: Word) -> R<()> {
        let Some(blk) = self.block(fcx, to) else {
            return Ok(());
        };
        let mut pairs = Vec::new();
        for inst in &blk.instructions {
            if inst.class.opcode != Op::Phi {
                continue;
            }
            let Some(dst) = inst.result_id.and_then(|i| fcx.phis.get(&i)).cloned() else {
                continue;
            };
            let mut src = None;
            for k in (0..inst.operands.len()).step_by(2) {
                if id_at(inst, k + 1) == Some(from) {
                    src = id_at(inst, k);
                }
            }
            let Some(src) = src else {
                return self.err(inst, "OpPhi has no value for a predecessor");
            };
            let Some(sv) = self.value(fcx, src) else {
                return self.err(
                    inst,
                    format!("OpPhi value %{src} is not defined before use"),
                );
            };
            pairs.push((inst, dst, sv));
        }
        // Parallel copy: through fresh temporaries.
        let mut temps = Vec::new();
        for (inst, dst, sv) in &pairs {
            let Some(t) = self.shape_like(dst) else {
                return self.err(inst, "OpPhi of an unsupported type");
            };
            if !self.copy_into(&t, sv) {
                return self.err(inst, "OpPhi value does not match its type");
            }
            temps.push(t);
        }
        for ((_, dst, _), t) in pairs.iter().zip(&temps) {
            self.copy_into(dst, t);
        }
        Ok(())
    }

    fn shape_like(&mut self, v: &Val) -> Option<Val> {
        Some(match v {
            Val::R(_) => Val::R(self.b.reg()),
            Val::C(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out.push(self.shape_like(p)?);
                }
                Val::C(out)
            }
            Val::P(_) => return None,
        })
    }

    fn classify(&self, target: Word, stop: Option<Word>, stack: &[Frame]) -> Exit {
        if Some(target) == stop {
            return Exit::Stop;
        }
        let mut pends = Vec::new();
        for f in stack.iter().rev() {
            match f {
                Frame::Body { merge, cont, brk } => {
                    if target == *merge {
                        return Exit::Jump {
                            pends,
                            brk: Some(*brk),
                        };
                    }
                    if target == *cont {
                        return Exit::Jump { pends, brk: None };
                    }
                    return Exit::Normal;
                }
                Frame::Cont { merge, header } => {
                    if target == *merge {
                        return Exit::Jump { pends, brk: None };
                    }
                    if target == *header && pends.is_empty() {
                        return Exit::Stop;
                    }
                    return Exit::Normal;
                }
                Frame::Switch { merge, pend } => {
                    if target == *merge {
                        return Exit::Jump { pends, brk: None };
                    }
                    pends.push(*pend);
                }
                Frame::Sel { .. } => {}
            }
        }
        Exit::Normal
    }

    fn is_enclosing_merge(&self, target: Word, stack: &[Frame]) -> bool {
        stack.iter().any(|f| match f {
            Frame::Sel { merge } => *merge == target,
            _ => false,
        })
    }

    /// Emits an exit (not Normal). Returns false for Normal.
    fn emit_exit(&mut self, e: &Exit) -> bool {
        match e {
            Exit::Stop => {}
            Exit::Jump { pends, brk } => {
                let one = self.cu32(1);
                for r in pends.iter().chain(brk) {
                    self.used_pends.insert(*r);
                    self.b.push(Inst::Mov {
                        dst: Dst::new(*r),
                        a: Src::new(one),
                    });
                }
                self.b.push(Inst::Break);
            }
            Exit::Normal => return false,
        }
        true
    }

    fn open_if(&mut self, cond: Src) -> u32 {
        self.b.push(Inst::If { cond, else_pc: 0 })
    }

    fn open_else(&mut self, if_pc: u32) -> u32 {
        let pc = self.b.push(Inst::Else { end_pc: 0 });
        if let Some(Inst::If { else_pc, .. }) = self.b.code.get_mut(if_pc as usize) {
            *else_pc = pc + 1;
        }
        pc
    }

    fn close_if(&mut self, if_pc: u32, else_pc: Option<u32>) {
        let end = self.b.push(Inst::EndIf);
        match else_pc {
            Some(e) => {
                if let Some(Inst::Else { end_pc }) = self.b.code.get_mut(e as usize) {
                    *end_pc = end;
                }
            }
            None => {
                if let Some(Inst::If { else_pc, .. }) = self.b.code.get_mut(if_pc as usize) {
                    *else_pc = end;
                }
            }
        }
    }

    /// The code of one arm: the edge `from → target`, then the target's region up to `stop`.
    fn arm(
        &mut self,
        fcx: &mut Fcx,
        from: Word,
        target: Word,
        stop: Option<Word>,
        stack: &[Frame],
        at: &Instruction,
    ) -> R<()> {
        self.phi_moves(fcx, from, target)?;
        let e = self.classify(target, stop, stack);
        if self.emit_exit(&e) {
            return Ok(());
        }
        if self.is_enclosing_merge(target, stack) {
            return self.unsupported(
                at,
                ": a branch out of a nested selection to an enclosing merge block",
            );
        }
        self.region(fcx, target, stop, stack, false)
    }

    fn bool_src(&mut self, fcx: &Fcx, inst: &Instruction, id: Option<Word>) -> R<Src> {
        match id.and_then(|i| self.value(fcx, i)) {
            Some(Val::R(r)) => Ok(Src::splat(r, 0)),
            _ => self.err(inst, "condition is not a defined scalar value"),
        }
    }

    /// Emits blocks from `start` until `stop` is reached (or the region ends in jumps).
    fn region(
        &mut self,
        fcx: &mut Fcx,
        start: Word,
        stop: Option<Word>,
        stack: &[Frame],
        first: bool,
    ) -> R<()> {
        fcx.nest += 1;
        if fcx.nest > MAX_NESTING {
            return Err(LowerError::Unsupported(diag(
                1,
                format!("control flow nests more than {MAX_NESTING} constructs deep"),
            )));
        }
        let r = self.region_inner(fcx, start, stop, stack, first);
        fcx.nest -= 1;
        r
    }

    fn region_inner(
        &mut self,
        fcx: &mut Fcx,
        start: Word,
        stop: Option<Word>,
        stack: &[Frame],
        mut first: bool,
    ) -> R<()> {
        let mut cur = start;
        loop {
            if !first && Some(cur) == stop {
                return Ok(());
            }
            first = false;
            fcx.emitted += 1;
            if fcx.emitted > MAX_BLOCK_EMISSIONS || self.too_big() {
                return Err(LowerError::Unsupported(diag(
                    1,
                    "structured control flow expands to too much code for the reference".into(),
                )));
            }
            let Some(blk) = self.block(fcx, cur) else {
                return Err(LowerError::Unsupported(diag(
                    1,
                    format!("branch to %{cur}, which is not a block of the function"),
                )));
            };
            let n = blk.instructions.len();
            if blk.instructions.is_empty() {
                return Err(LowerError::Unsupported(diag(
                    1,
                    format!("block %{cur} has no terminator"),
                )));
            }
            let merge_inst = if n >= 2 {
                Some(&blk.instructions[n - 2])
            } else {
                None
            };
            let loop_merge = merge_inst.filter(|m| m.class.opcode == Op::LoopMerge);
            if let Some(lm) = loop_merge {
                let (Some(merge), Some(cont)) = (id_at(lm, 0), id_at(lm, 1)) else {
                    return self.err(lm, "malformed OpLoopMerge");
                };
                self.emit_loop(fcx, cur, merge, cont, stack, lm)?;
                // Continue after the loop with its merge block.
                let e = self.classify(merge, stop, stack);
                if self.emit_exit(&e) {
                    return Ok(());
                }
                cur = merge;
                continue;
            }
            match self.straight(fcx, cur, stop, stack)? {
                Some(next) => cur = next,
                None => return Ok(()),
            }
        }
    }

    /// The loop whose header is `header`.
    fn emit_loop(
        &mut self,
        fcx: &mut Fcx,
        header: Word,
        merge: Word,
        cont: Word,
        stack: &[Frame],
        at: &Instruction,
    ) -> R<()> {
        let outer = self.b.push(Inst::Loop {
            count: None,
            end_pc: 0,
        });
        let brk = self.b.reg();
        let zero = self.cu32(0);
        self.b.push(Inst::Mov {
            dst: Dst::new(brk),
            a: Src::new(zero),
        });
        let inner = self.b.push(Inst::Loop {
            count: None,
            end_pc: 0,
        });
        let mut body_stack = stack.to_vec();
        body_stack.push(Frame::Body { merge, cont, brk });
        // The header block itself, then the body, up to the continue target.
        if let Some(next) = self.straight(fcx, header, Some(cont), &body_stack)? {
            self.region(fcx, next, Some(cont), &body_stack, false)?;
        }
        self.b.push(Inst::Break);
        let inner_end = self.b.push(Inst::EndLoop { begin_pc: inner });
        if let Some(Inst::Loop { end_pc, .. }) = self.b.code.get_mut(inner as usize) {
            *end_pc = inner_end;
        }
        let if_pc = self.open_if(Src::splat(brk, 0));
        self.b.push(Inst::Break);
        self.close_if(if_pc, None);
        if cont != header {
            let mut cont_stack = stack.to_vec();
            cont_stack.push(Frame::Cont { header, merge });
            self.region(fcx, cont, Some(header), &cont_stack, false)?;
        }
        let outer_end = self.b.push(Inst::EndLoop { begin_pc: outer });
        if let Some(Inst::Loop { end_pc, .. }) = self.b.code.get_mut(outer as usize) {
            *end_pc = outer_end;
        }
        let _ = at;
        Ok(())
    }

    /// Emits one block (its instructions and terminator, with nested selections). Returns the
    /// next block to continue with in this region, or None when the region has ended.
    fn straight(
        &mut self,
        fcx: &mut Fcx,
        cur: Word,
        stop: Option<Word>,
        stack: &[Frame],
    ) -> R<Option<Word>> {
        let Some(blk) = self.block(fcx, cur) else {
            return Err(LowerError::Unsupported(diag(
                1,
                format!("branch to %{cur}, which is not a block of the function"),
            )));
        };
        let n = blk.instructions.len();
        if n == 0 {
            return Err(LowerError::Unsupported(diag(
                1,
                format!("block %{cur} has no terminator"),
            )));
        }
        let mut sel_merge = None;
        for inst in &blk.instructions[..n - 1] {
            self.b.cur_loc = Loc {
                line: self.info.line(inst),
                column: 1,
            };
            match inst.class.opcode {
                Op::SelectionMerge => sel_merge = id_at(inst, 0),
                Op::LoopMerge | Op::Phi | Op::Variable | Op::Line | Op::NoLine | Op::Nop => {}
                _ => self.inst(fcx, inst)?,
            }
        }
        let term = &blk.instructions[n - 1];
        self.b.cur_loc = Loc {
            line: self.info.line(term),
            column: 1,
        };
        match term.class.opcode {
            Op::Branch => {
                let Some(t) = id_at(term, 0) else {
                    return self.err(term, "malformed OpBranch");
                };
                self.phi_moves(fcx, cur, t)?;
                let e = self.classify(t, stop, stack);
                if self.emit_exit(&e) {
                    return Ok(None);
                }
                if self.is_enclosing_merge(t, stack) {
                    return self.unsupported(
                        term,
                        ": a branch out of a nested selection to an enclosing merge block",
                    );
                }
                Ok(Some(t))
            }
            Op::BranchConditional => {
                let (Some(t), Some(f)) = (id_at(term, 1), id_at(term, 2)) else {
                    return self.err(term, "malformed OpBranchConditional");
                };
                let cond = self.bool_src(fcx, term, id_at(term, 0))?;
                if let Some(m) = sel_merge {
                    let mut st = stack.to_vec();
                    st.push(Frame::Sel { merge: m });
                    let if_pc = self.open_if(cond);
                    self.arm(fcx, cur, t, Some(m), &st, term)?;
                    let else_pc = self.open_else(if_pc);
                    self.arm(fcx, cur, f, Some(m), &st, term)?;
                    self.close_if(if_pc, Some(else_pc));
                    let e = self.classify(m, stop, stack);
                    if self.emit_exit(&e) {
                        return Ok(None);
                    }
                    return Ok(Some(m));
                }
                let et = self.classify(t, stop, stack);
                let ef = self.classify(f, stop, stack);
                match (matches!(et, Exit::Normal), matches!(ef, Exit::Normal)) {
                    (true, true) => self.unsupported(
                        term,
                        " here: OpBranchConditional to two blocks without OpSelectionMerge",
                    ),
                    (false, true) => {
                        let if_pc = self.open_if(cond);
                        self.phi_moves(fcx, cur, t)?;
                        self.emit_exit(&et);
                        self.close_if(if_pc, None);
                        self.phi_moves(fcx, cur, f)?;
                        Ok(Some(f))
                    }
                    (true, false) => {
                        let if_pc = self.open_if(cond);
                        let else_pc = self.open_else(if_pc);
                        self.phi_moves(fcx, cur, f)?;
                        self.emit_exit(&ef);
                        self.close_if(if_pc, Some(else_pc));
                        self.phi_moves(fcx, cur, t)?;
                        Ok(Some(t))
                    }
                    (false, false) => {
                        let if_pc = self.open_if(cond);
                        self.phi_moves(fcx, cur, t)?;
                        self.emit_exit(&et);
                        let else_pc = self.open_else(if_pc);
                        self.phi_moves(fcx, cur, f)?;
                        self.emit_exit(&ef);
                        self.close_if(if_pc, Some(else_pc));
                        Ok(None)
                    }
                }
            }
            Op::Switch => {
                let Some(m) = sel_merge else {
                    return self.unsupported(term, " without OpSelectionMerge");
                };
                let Some(Val::R(sel)) = id_at(term, 0).and_then(|i| self.value(fcx, i)) else {
                    return self.err(term, "OpSwitch selector is not a defined scalar");
                };
                let sel_ty = id_at(term, 0)
                    .and_then(|i| self.info.type_of.get(&i).copied())
                    .and_then(|t| self.scalar_lanes(t))
                    .map(|(s, _)| ScalarTy::new(Kind::U, s.bits))
                    .unwrap_or(ScalarTy::U32);
                let Some(default) = id_at(term, 1) else {
                    return self.err(term, "malformed OpSwitch");
                };
                // Distinct targets in order, with their literals.
                let mut targets: Vec<(Word, Vec<u64>)> = Vec::new();
                let mut k = 2;
                while k + 1 < term.operands.len() {
                    let lit = match &term.operands[k] {
                        Operand::LiteralBit32(v) => u64::from(*v),
                        Operand::LiteralBit64(v) => *v,
                        _ => return self.err(term, "malformed OpSwitch literal"),
                    };
                    let Some(t) = id_at(term, k + 1) else {
                        return self.err(term, "malformed OpSwitch target");
                    };
                    if t != default {
                        match targets.iter_mut().find(|x| x.0 == t) {
                            Some(x) => x.1.push(lit),
                            None => targets.push((t, vec![lit])),
                        }
                    }
                    k += 2;
                }
                let pend = self.b.reg();
                let zero = self.cu32(0);
                self.b.push(Inst::Mov {
                    dst: Dst::new(pend),
                    a: Src::new(zero),
                });
                let wrapper = self.b.push(Inst::Loop {
                    count: None,
                    end_pc: 0,
                });
                let mut st = stack.to_vec();
                st.push(Frame::Switch { merge: m, pend });
                let mut opened = Vec::new();
                for (t, lits) in &targets {
                    let c = self.b.reg();
                    for (i, l) in lits.iter().enumerate() {
                        let lr = self.creg([*l & sel_ty.mask(), 0, 0, 0]);
                        let dst = if i == 0 { c } else { self.b.reg() };
                        self.b.push(Inst::Cmp {
                            op: CmpOp::Eq,
                            ty: Ty::new(sel_ty, 1),
                            dst: Dst::new(dst),
                            a: Src::splat(sel, 0),
                            b: Src::new(lr),
                        });
                        if i > 0 {
                            self.b.push(Inst::Bin {
                                op: BinOp::Or,
                                ty: Ty::new(ScalarTy::BOOL, 1),
                                dst: Dst::new(c),
                                a: Src::new(c),
                                b: Src::new(dst),
                            });
                        }
                    }
                    let if_pc = self.open_if(Src::splat(c, 0));
                    self.arm(fcx, cur, *t, Some(m), &st, term)?;
                    let else_pc = self.open_else(if_pc);
                    opened.push((if_pc, else_pc));
                }
                self.arm(fcx, cur, default, Some(m), &st, term)?;
                for (if_pc, else_pc) in opened.into_iter().rev() {
                    self.close_if(if_pc, Some(else_pc));
                }
                self.b.push(Inst::Break);
                let end = self.b.push(Inst::EndLoop { begin_pc: wrapper });
                if let Some(Inst::Loop { end_pc, .. }) = self.b.code.get_mut(wrapper as usize) {
                    *end_pc = end;
                }
                if self.used_pends.contains(&pend) {
                    // A jump past the switch: go on breaking outwards.
                    let if_pc = self.open_if(Src::splat(pend, 0));
                    self.b.push(Inst::Break);
                    self.close_if(if_pc, None);
                }
                let e = self.classify(m, stop, stack);
                if self.emit_exit(&e) {
                    return Ok(None);
                }
                Ok(Some(m))
            }
            Op::Return => {
                self.b.push(Inst::Return);
                Ok(None)
            }
            Op::ReturnValue => {
                let v = id_at(term, 0).and_then(|i| self.value(fcx, i));
                match (&fcx.ret.clone(), v) {
                    (Some(dst), Some(src)) => {
                        if !self.copy_into(dst, &src) {
                            return self.err(term, "returned value does not match the return type");
                        }
                    }
                    (None, _) => {}
                    (Some(_), None) => return self.err(term, "returned value is not defined"),
                }
                self.b.push(Inst::Return);
                Ok(None)
            }
            Op::Kill | Op::TerminateInvocation | Op::Unreachable => {
                self.b.push(Inst::Exit);
                Ok(None)
            }
            _ => self.unsupported(term, " as a block terminator"),
        }
    }

    // ---------------------------------------------------------------- instructions

    fn operand(&self, fcx: &Fcx, inst: &Instruction, i: usize) -> R<Val> {
        let Some(id) = id_at(inst, i) else {
            return self.err(inst, format!("operand {i} is not an id"));
        };
        match self.value(fcx, id) {
            Some(v) => Ok(v),
            None => self.err(
                inst,
                format!("operand %{id} is not defined before use (or is of an unsupported kind)"),
            ),
        }
    }

    fn reg_operand(&self, fcx: &Fcx, inst: &Instruction, i: usize) -> R<Reg> {
        match self.operand(fcx, inst, i)? {
            Val::R(r) => Ok(r),
            _ => self.err(inst, format!("operand {i} must be a scalar or vector")),
        }
    }

    fn ptr_operand(&self, fcx: &Fcx, inst: &Instruction, i: usize) -> R<Ptr> {
        match self.operand(fcx, inst, i)? {
            Val::P(p) => Ok(p),
            _ => self.err(inst, format!("operand {i} must be a pointer")),
        }
    }

    /// Scalar type and lanes of the type of operand `i` (a value id).
    fn operand_ty(&self, inst: &Instruction, i: usize) -> R<(ScalarTy, u8)> {
        let t = id_at(inst, i).and_then(|id| self.info.type_of.get(&id).copied());
        match t.and_then(|t| self.scalar_lanes(t)) {
            Some(x) => Ok(x),
            None => self.err(inst, format!("operand {i} is not a scalar or vector")),
        }
    }

    fn result_ty(&self, inst: &Instruction) -> R<(ScalarTy, u8)> {
        match inst.result_type.and_then(|t| self.scalar_lanes(t)) {
            Some(x) => Ok(x),
            None => self.err(inst, "result type is not a scalar or vector"),
        }
    }

    fn set(&mut self, fcx: &mut Fcx, inst: &Instruction, v: Val) {
        if let Some(id) = inst.result_id {
            fcx.vals.insert(id, v);
        }
    }

    fn with_kind(s: ScalarTy, k: Kind) -> ScalarTy {
        ScalarTy::new(k, s.bits)
    }

    /// Binary op with operand types from operand 0, kind forced.
    fn bin(&mut self, fcx: &mut Fcx, inst: &Instruction, op: BinOp, kind: Kind) -> R<()> {
        let (s, lanes) = self.operand_ty(inst, 0)?;
        let (a, b) = (
            self.reg_operand(fcx, inst, 0)?,
            self.reg_operand(fcx, inst, 1)?,
        );
        let d = self.b.reg();
        self.b.push(Inst::Bin {
            op,
            ty: Ty::new(Self::with_kind(s, kind), lanes),
            dst: Dst::new(d),
            a: Src::new(a),
            b: Src::new(b),
        });
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    fn un(&mut self, fcx: &mut Fcx, inst: &Instruction, op: UnOp, kind: Kind, arg: usize) -> R<()> {
        let (s, lanes) = self.operand_ty(inst, arg)?;
        let a = self.reg_operand(fcx, inst, arg)?;
        let d = self.b.reg();
        self.b.push(Inst::Un {
            op,
            ty: Ty::new(Self::with_kind(s, kind), lanes),
            dst: Dst::new(d),
            a: Src::new(a),
        });
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    fn cmp(&mut self, fcx: &mut Fcx, inst: &Instruction, op: CmpOp, kind: Kind) -> R<()> {
        let (s, lanes) = self.operand_ty(inst, 0)?;
        let (a, b) = (
            self.reg_operand(fcx, inst, 0)?,
            self.reg_operand(fcx, inst, 1)?,
        );
        let d = self.b.reg();
        self.b.push(Inst::Cmp {
            op,
            ty: Ty::new(Self::with_kind(s, kind), lanes),
            dst: Dst::new(d),
            a: Src::new(a),
            b: Src::new(b),
        });
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    /// Float comparison with SPIR-V's ordered/unordered reading.
    fn fcmp(&mut self, fcx: &mut Fcx, inst: &Instruction, op: CmpOp, ordered: bool) -> R<()> {
        let (s, lanes) = self.operand_ty(inst, 0)?;
        let (a, b) = (
            self.reg_operand(fcx, inst, 0)?,
            self.reg_operand(fcx, inst, 1)?,
        );
        let ty = Ty::new(s, lanes);
        let bt = Ty::new(ScalarTy::BOOL, lanes);
        let d = self.b.reg();
        // IR: ordered except Ne (true on NaN).
        let cmp = |s: &mut Self, op: CmpOp, dst: Reg, x: Reg, y: Reg| {
            s.b.push(Inst::Cmp {
                op,
                ty,
                dst: Dst::new(dst),
                a: Src::new(x),
                b: Src::new(y),
            });
        };
        let logic = |s: &mut Self, op: BinOp, dst: Reg, x: Reg, y: Reg| {
            s.b.push(Inst::Bin {
                op,
                ty: bt,
                dst: Dst::new(dst),
                a: Src::new(x),
                b: Src::new(y),
            });
        };
        match (ordered, op) {
            (true, CmpOp::Ne) => {
                // a != b && a == a && b == b
                let (t, oa, ob) = (self.b.reg(), self.b.reg(), self.b.reg());
                cmp(self, CmpOp::Ne, t, a, b);
                cmp(self, CmpOp::Eq, oa, a, a);
                cmp(self, CmpOp::Eq, ob, b, b);
                logic(self, BinOp::And, t, t, oa);
                logic(self, BinOp::And, d, t, ob);
            }
            (true, _) | (false, CmpOp::Ne) => cmp(self, op, d, a, b),
            (false, _) => {
                // Unordered X = !(ordered inverse of X); the inverse of Eq is the IR's Ne,
                // which is already true on NaN, so FUnordEqual = !(a != b && ordered).
                let t = self.b.reg();
                if op == CmpOp::Eq {
                    let (oa, ob) = (self.b.reg(), self.b.reg());
                    cmp(self, CmpOp::Ne, t, a, b);
                    cmp(self, CmpOp::Eq, oa, a, a);
                    cmp(self, CmpOp::Eq, ob, b, b);
                    logic(self, BinOp::And, t, t, oa);
                    logic(self, BinOp::And, t, t, ob);
                } else {
                    let inv = match op {
                        CmpOp::Lt => CmpOp::Ge,
                        CmpOp::Le => CmpOp::Gt,
                        CmpOp::Gt => CmpOp::Le,
                        _ => CmpOp::Lt,
                    };
                    cmp(self, inv, t, a, b);
                }
                self.b.push(Inst::Un {
                    op: UnOp::Not,
                    ty: bt,
                    dst: Dst::new(d),
                    a: Src::new(t),
                });
            }
        }
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    fn convert(&mut self, fcx: &mut Fcx, inst: &Instruction, fk: Kind, tk: Kind) -> R<()> {
        let (fs, lanes) = self.operand_ty(inst, 0)?;
        let (ts, _) = self.result_ty(inst)?;
        let a = self.reg_operand(fcx, inst, 0)?;
        let d = self.b.reg();
        self.b.push(Inst::Convert {
            from: Self::with_kind(fs, fk),
            to: Self::with_kind(ts, tk),
            lanes,
            dst: Dst::new(d),
            a: Src::new(a),
        });
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    fn const_of(&self, inst: &Instruction, i: usize) -> R<u64> {
        let id = id_at(inst, i).unwrap_or(0);
        match self.consts.get(&id).and_then(|v| v.first()) {
            Some(v) => Ok(*v),
            None => self.err(inst, format!("operand {i} must be a constant")),
        }
    }

    fn atomic(
        &mut self,
        fcx: &mut Fcx,
        inst: &Instruction,
        op: AtomicOp,
        kind: Option<Kind>,
    ) -> R<()> {
        let p = self.ptr_operand(fcx, inst, 0)?;
        let Base::Mem(space) = p.base else {
            return self.err(inst, "atomic on a built-in input");
        };
        let _scope = self.const_of(inst, 1)?;
        let opc = inst.class.opcode;
        let Some((s, 1)) = self.scalar_lanes(p.ty) else {
            return self.err(inst, "atomic on a pointer to a non-scalar");
        };
        let ty = match kind {
            Some(k) => Self::with_kind(s, k),
            None => s,
        };
        let addr = self.addr(&p);
        let zero = self.creg([0; 4]);
        let (a, b) = match opc {
            Op::AtomicIIncrement => (self.creg([1, 0, 0, 0]), zero),
            Op::AtomicIDecrement => (self.creg([ty.mask(), 0, 0, 0]), zero),
            Op::AtomicCompareExchange => (
                self.reg_operand(fcx, inst, 5)?,
                self.reg_operand(fcx, inst, 4)?,
            ),
            Op::AtomicStore => (self.reg_operand(fcx, inst, 3)?, zero),
            Op::AtomicLoad => (zero, zero),
            Op::AtomicISub => {
                let v = self.reg_operand(fcx, inst, 3)?;
                let n = self.b.reg();
                self.b.push(Inst::Bin {
                    op: BinOp::Sub,
                    ty: Ty::new(Self::with_kind(ty, Kind::U), 1),
                    dst: Dst::new(n),
                    a: Src::new(zero),
                    b: Src::new(v),
                });
                (n, zero)
            }
            _ => (self.reg_operand(fcx, inst, 3)?, zero),
        };
        let dst = if opc == Op::AtomicStore {
            None
        } else {
            Some(self.b.reg())
        };
        self.b.push(Inst::Atomic {
            space,
            op,
            ty,
            // The old value is a scalar: only .x is written.
            dst: dst.map(|d| Dst::masked(d, 1)),
            addr,
            a: Src::new(a),
            b: Src::new(b),
        });
        if let Some(d) = dst {
            self.set(fcx, inst, Val::R(d));
        }
        Ok(())
    }

    fn access_chain(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let mut p = self.ptr_operand(fcx, inst, 0)?;
        for i in 1..inst.operands.len() {
            let Some(idx_id) = id_at(inst, i) else {
                return self.err(inst, "access chain index is not an id");
            };
            let cidx = self.consts.get(&idx_id).and_then(|v| v.first().copied());
            match self.ty(p.ty) {
                Type::Struct { members } => {
                    let Some(m) = cidx.filter(|m| (*m as usize) < members.len()) else {
                        return self.err(inst, "struct index must be an in-range constant");
                    };
                    let Some(o) = self.member_offset(p.ty, m as u32, 0) else {
                        return self.err(inst, "struct without a layout");
                    };
                    p.off = p.off.saturating_add(o);
                    p.mstride = self.member_mstride(inst, p.ty, m as u32)?;
                    p.ty = members[m as usize];
                }
                t @ (Type::Array { .. }
                | Type::RtArray { .. }
                | Type::Vector { .. }
                | Type::Matrix { .. }) => {
                    let (elem, stride) = match t {
                        Type::Array { elem, .. }
                        | Type::RtArray { elem }
                        | Type::Vector { elem, .. } => (elem, self.array_stride(p.ty, 0)),
                        Type::Matrix { col, .. } => (col, Some(self.mat_stride(&p, col))),
                        _ => (0, None),
                    };
                    let Some(stride) = stride else {
                        return self.err(inst, "array without a layout");
                    };
                    let (is, _) = self.operand_ty(inst, i)?;
                    match cidx {
                        Some(c) => {
                            let c = if is.kind == Kind::S {
                                crate::exec::values::sext(c, is.bits) as u64
                            } else {
                                c
                            };
                            p.off = p.off.wrapping_add(c.wrapping_mul(stride)) & 0xffff_ffff;
                        }
                        None => {
                            let r = self.reg_operand(fcx, inst, i)?;
                            let mut idx = r;
                            if is.bits != 32 {
                                let t = self.b.reg();
                                self.b.push(Inst::Convert {
                                    from: Self::with_kind(is, Kind::U),
                                    to: ScalarTy::U32,
                                    lanes: 1,
                                    dst: Dst::new(t),
                                    a: Src::new(r),
                                });
                                idx = t;
                            }
                            let sr = self.cu32(stride);
                            let t = self.b.reg();
                            self.b.push(Inst::Bin {
                                op: BinOp::Mul,
                                ty: Ty::new(ScalarTy::U32, 1),
                                dst: Dst::new(t),
                                a: Src::splat(idx, 0),
                                b: Src::new(sr),
                            });
                            if let Some(d) = p.dynoff {
                                self.b.push(Inst::Bin {
                                    op: BinOp::Add,
                                    ty: Ty::new(ScalarTy::U32, 1),
                                    dst: Dst::new(t),
                                    a: Src::new(t),
                                    b: Src::new(d),
                                });
                            }
                            p.dynoff = Some(t);
                        }
                    }
                    p.ty = elem;
                }
                _ => return self.err(inst, "access chain indexes into a scalar"),
            }
        }
        self.set(fcx, inst, Val::P(p));
        Ok(())
    }

    /// Columns of a matrix value.
    fn columns(&self, inst: &Instruction, v: &Val) -> R<Vec<Reg>> {
        match v {
            Val::C(cols) => cols
                .iter()
                .map(|c| match c {
                    Val::R(r) => Ok(*r),
                    _ => self.err(inst, "matrix column is not a vector"),
                })
                .collect(),
            _ => self.err(inst, "operand is not a matrix"),
        }
    }

    /// `a * b` of `ty` into a fresh register.
    fn mul(&mut self, ty: Ty, a: Src, b: Src) -> Reg {
        let d = self.b.reg();
        self.b.push(Inst::Bin {
            op: BinOp::Mul,
            ty,
            dst: Dst::new(d),
            a,
            b,
        });
        d
    }

    /// Σ_j cols[j] * v[j] (rows lanes), multiplications then additions in column order.
    fn mat_vec(&mut self, ty: Ty, cols: &[Reg], v: Reg) -> Reg {
        let mut acc = self.mul(ty, Src::new(cols[0]), Src::splat(v, 0));
        for (j, c) in cols.iter().enumerate().skip(1) {
            let t = self.mul(ty, Src::new(*c), Src::splat(v, j as u8));
            let d = self.b.reg();
            self.b.push(Inst::Bin {
                op: BinOp::Add,
                ty,
                dst: Dst::new(d),
                a: Src::new(acc),
                b: Src::new(t),
            });
            acc = d;
        }
        acc
    }

    fn matrix_op(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let op = inst.class.opcode;
        // The float type and row count come from a column (or the vector operand).
        let col_ty = |s: &Self, id: Option<Word>| -> Option<(ScalarTy, u8)> {
            let t = id.and_then(|i| s.info.type_of.get(&i).copied())?;
            match s.ty(t) {
                Type::Matrix { col, .. } => s.scalar_lanes(col),
                _ => s.scalar_lanes(t),
            }
        };
        let Some((f, rows)) = col_ty(self, id_at(inst, 0)) else {
            return self.err(inst, "matrix operand of an unsupported type");
        };
        let ty = Ty::new(f, rows);
        let a = self.operand(fcx, inst, 0)?;
        let b = self.operand(fcx, inst, 1).ok();
        let out = match (op, b) {
            (Op::MatrixTimesScalar, Some(Val::R(k))) => {
                let cols = self.columns(inst, &a)?;
                Val::C(
                    cols.iter()
                        .map(|c| Val::R(self.mul(ty, Src::new(*c), Src::splat(k, 0))))
                        .collect(),
                )
            }
            (Op::MatrixTimesVector, Some(Val::R(v))) => {
                let cols = self.columns(inst, &a)?;
                if cols.is_empty() {
                    return self.err(inst, "matrix without columns");
                }
                Val::R(self.mat_vec(ty, &cols, v))
            }
            (Op::VectorTimesMatrix, Some(m)) => {
                let Val::R(v) = a else {
                    return self.err(inst, "operand is not a vector");
                };
                let cols = self.columns(inst, &m)?;
                let d = self.b.reg();
                for (j, c) in cols.iter().enumerate().take(4) {
                    let t = self.mul(ty, Src::new(v), Src::new(*c));
                    let sum = self.b.reg();
                    self.b.push(Inst::Mov {
                        dst: Dst::new(sum),
                        a: Src::splat(t, 0),
                    });
                    for k in 1..rows {
                        self.b.push(Inst::Bin {
                            op: BinOp::Add,
                            ty: Ty::new(f, 1),
                            dst: Dst::new(sum),
                            a: Src::new(sum),
                            b: Src::splat(t, k),
                        });
                    }
                    self.b.push(Inst::Mov {
                        dst: Dst::masked(d, 1 << j),
                        a: Src::splat(sum, 0),
                    });
                }
                Val::R(d)
            }
            (Op::MatrixTimesMatrix, Some(m)) => {
                let left = self.columns(inst, &a)?;
                let right = self.columns(inst, &m)?;
                if left.is_empty() {
                    return self.err(inst, "matrix without columns");
                }
                Val::C(
                    right
                        .iter()
                        .map(|c| Val::R(self.mat_vec(ty, &left, *c)))
                        .collect(),
                )
            }
            (Op::OuterProduct, Some(Val::R(r))) => {
                let Val::R(c) = a else {
                    return self.err(inst, "operand is not a vector");
                };
                let (_, n) = self.operand_ty(inst, 1)?;
                Val::C(
                    (0..n)
                        .map(|j| Val::R(self.mul(ty, Src::new(c), Src::splat(r, j))))
                        .collect(),
                )
            }
            (Op::Transpose, _) => {
                let cols = self.columns(inst, &a)?;
                let Some(Type::Matrix { n: rn, .. }) = inst.result_type.map(|t| self.ty(t)) else {
                    return self.err(inst, "OpTranspose result is not a matrix");
                };
                let mut out = Vec::new();
                for i in 0..rn.min(4) {
                    let d = self.b.reg();
                    for (j, c) in cols.iter().enumerate().take(4) {
                        self.b.push(Inst::Mov {
                            dst: Dst::masked(d, 1 << j),
                            a: Src::splat(*c, i),
                        });
                    }
                    out.push(Val::R(d));
                }
                Val::C(out)
            }
            _ => return self.err(inst, "matrix operands of unexpected kinds"),
        };
        self.set(fcx, inst, out);
        Ok(())
    }

    fn lane_src(&self, v: &Val, lane: u8) -> Option<Src> {
        match v {
            Val::R(r) => Some(Src::splat(*r, lane)),
            _ => None,
        }
    }

    fn composite_construct(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let rt = inst.result_type.unwrap_or(0);
        let mut parts = Vec::new();
        for i in 0..inst.operands.len() {
            parts.push((self.operand(fcx, inst, i)?, i));
        }
        if let Type::Vector { n, .. } = self.ty(rt) {
            if n > 4 {
                return self.err(inst, "vectors of more than 4 components are not supported");
            }
            let d = self.b.reg();
            let mut lane = 0u8;
            for (v, i) in parts {
                let (_, l) = self.operand_ty(inst, i)?;
                for c in 0..l {
                    if lane >= n {
                        break;
                    }
                    let Some(src) = self.lane_src(&v, c) else {
                        return self.err(inst, "vector component is not a scalar or vector");
                    };
                    self.b.push(Inst::Mov {
                        dst: Dst::masked(d, 1 << lane),
                        a: src,
                    });
                    lane += 1;
                }
            }
            self.set(fcx, inst, Val::R(d));
        } else {
            self.set(fcx, inst, Val::C(parts.into_iter().map(|x| x.0).collect()));
        }
        Ok(())
    }

    fn extract(&mut self, inst: &Instruction, v: &Val, idx: &[u32]) -> R<Val> {
        let mut cur = v.clone();
        for &i in idx {
            cur = match cur {
                Val::C(parts) => match parts.get(i as usize) {
                    Some(p) => p.clone(),
                    None => return self.err(inst, "composite index out of range"),
                },
                Val::R(r) if i < 4 => {
                    let d = self.b.reg();
                    self.b.push(Inst::Mov {
                        dst: Dst::new(d),
                        a: Src::splat(r, i as u8),
                    });
                    Val::R(d)
                }
                _ => return self.err(inst, "composite index out of range"),
            };
        }
        Ok(cur)
    }

    fn insert(&mut self, inst: &Instruction, obj: &Val, comp: &Val, idx: &[u32]) -> R<Val> {
        let Some((&first, rest)) = idx.split_first() else {
            return Ok(obj.clone());
        };
        match comp {
            Val::C(parts) => {
                let mut parts = parts.clone();
                let Some(slot) = parts.get(first as usize).cloned() else {
                    return self.err(inst, "composite index out of range");
                };
                parts[first as usize] = self.insert(inst, obj, &slot, rest)?;
                Ok(Val::C(parts))
            }
            Val::R(r) if first < 4 && rest.is_empty() => {
                let Val::R(o) = obj else {
                    return self.err(inst, "inserted object is not a scalar");
                };
                let d = self.b.reg();
                self.b.push(Inst::Mov {
                    dst: Dst::new(d),
                    a: Src::new(*r),
                });
                self.b.push(Inst::Mov {
                    dst: Dst::masked(d, 1 << first),
                    a: Src::splat(*o, 0),
                });
                Ok(Val::R(d))
            }
            _ => self.err(inst, "composite index out of range"),
        }
    }

    fn lits_from(inst: &Instruction, from: usize) -> Vec<u32> {
        inst.operands[from.min(inst.operands.len())..]
            .iter()
            .filter_map(|o| match o {
                Operand::LiteralBit32(v) => Some(*v),
                _ => None,
            })
            .collect()
    }

    fn call(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let Some(fid) = id_at(inst, 0) else {
            return self.err(inst, "malformed OpFunctionCall");
        };
        let Some(&func) = self.func_index.get(&fid) else {
            return self.err(inst, "call of an undefined function");
        };
        let mut args = Vec::new();
        for i in 1..inst.operands.len() {
            args.push(self.operand(fcx, inst, i)?);
        }
        let ret = match inst.result_type {
            Some(rt) if !matches!(self.ty(rt), Type::Void) => match self.alloc_val(rt, 0) {
                Some(v) => Some(v),
                None => return self.err(inst, "function return type is not supported"),
            },
            _ => None,
        };
        let call_pc = self.b.push(Inst::Call { target_pc: 0 });
        self.pending.push(Pending {
            call_pc,
            func,
            args,
            ret: ret.clone(),
            depth: fcx.depth + 1,
        });
        if let Some(r) = ret {
            // Copy out so the value survives later calls of the same copy (each call site has
            // its own copy, but keep the result stable anyway).
            self.set(fcx, inst, r);
        }
        Ok(())
    }

    fn glsl_ext(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        let Some(num) = lit_at(inst, 1) else {
            return self.err(inst, "malformed OpExtInst");
        };
        let (rs, lanes) = self.result_ty(inst)?;
        let ty = Ty::new(rs, lanes);
        let arg = |s: &Self, k: usize| s.reg_operand(fcx, inst, 2 + k);
        let d = self.b.reg();
        let un = |s: &mut Self, op: UnOp, kind: Kind| -> R<()> {
            let a = arg(s, 0)?;
            s.b.push(Inst::Un {
                op,
                ty: Ty::new(Self::with_kind(rs, kind), lanes),
                dst: Dst::new(d),
                a: Src::new(a),
            });
            Ok(())
        };
        let bin = |s: &mut Self, op: BinOp, kind: Kind| -> R<()> {
            let (a, b) = (arg(s, 0)?, arg(s, 1)?);
            s.b.push(Inst::Bin {
                op,
                ty: Ty::new(Self::with_kind(rs, kind), lanes),
                dst: Dst::new(d),
                a: Src::new(a),
                b: Src::new(b),
            });
            Ok(())
        };
        match num {
            2 => un(self, UnOp::RoundEven, Kind::F)?,
            3 => un(self, UnOp::Trunc, Kind::F)?,
            4 => un(self, UnOp::Abs, Kind::F)?,
            5 => un(self, UnOp::Abs, Kind::S)?,
            6 => un(self, UnOp::Sign, Kind::F)?,
            7 => un(self, UnOp::Sign, Kind::S)?,
            8 => un(self, UnOp::Floor, Kind::F)?,
            9 => un(self, UnOp::Ceil, Kind::F)?,
            10 => un(self, UnOp::Fract, Kind::F)?,
            13 => un(self, UnOp::Sin, Kind::F)?,
            14 => un(self, UnOp::Cos, Kind::F)?,
            26 => bin(self, BinOp::Pow, Kind::F)?,
            29 => un(self, UnOp::Exp2, Kind::F)?,
            30 => un(self, UnOp::Log2, Kind::F)?,
            31 => un(self, UnOp::Sqrt, Kind::F)?,
            32 => un(self, UnOp::Rsq, Kind::F)?,
            37 | 79 => bin(self, BinOp::Min, Kind::F)?,
            38 => bin(self, BinOp::Min, Kind::U)?,
            39 => bin(self, BinOp::Min, Kind::S)?,
            40 | 80 => bin(self, BinOp::Max, Kind::F)?,
            41 => bin(self, BinOp::Max, Kind::U)?,
            42 => bin(self, BinOp::Max, Kind::S)?,
            43 | 44 | 45 | 81 => {
                let k = match num {
                    44 => Kind::U,
                    45 => Kind::S,
                    _ => Kind::F,
                };
                let t = Ty::new(Self::with_kind(rs, k), lanes);
                let (x, lo, hi) = (arg(self, 0)?, arg(self, 1)?, arg(self, 2)?);
                let m = self.b.reg();
                self.b.push(Inst::Bin {
                    op: BinOp::Max,
                    ty: t,
                    dst: Dst::new(m),
                    a: Src::new(x),
                    b: Src::new(lo),
                });
                self.b.push(Inst::Bin {
                    op: BinOp::Min,
                    ty: t,
                    dst: Dst::new(d),
                    a: Src::new(m),
                    b: Src::new(hi),
                });
            }
            46 => {
                // mix(x, y, a) = x + (y - x) * a
                let (x, y, a) = (arg(self, 0)?, arg(self, 1)?, arg(self, 2)?);
                let t = self.b.reg();
                self.b.push(Inst::Bin {
                    op: BinOp::Sub,
                    ty,
                    dst: Dst::new(t),
                    a: Src::new(y),
                    b: Src::new(x),
                });
                self.b.push(Inst::Mad {
                    ty,
                    dst: Dst::new(d),
                    a: Src::new(t),
                    b: Src::new(a),
                    c: Src::new(x),
                });
            }
            50 => {
                let (a, b, c) = (arg(self, 0)?, arg(self, 1)?, arg(self, 2)?);
                self.b.push(Inst::Mad {
                    ty,
                    dst: Dst::new(d),
                    a: Src::new(a),
                    b: Src::new(b),
                    c: Src::new(c),
                });
            }
            53 => bin(self, BinOp::Ldexp, Kind::F)?,
            73 => un(self, UnOp::FindLsb, Kind::U)?,
            74 => un(self, UnOp::FindMsb, Kind::S)?,
            75 => un(self, UnOp::FindMsb, Kind::U)?,
            _ => {
                return self.err(
                    inst,
                    format!("GLSL.std.450 instruction {num} is not supported by the reference"),
                )
            }
        }
        self.set(fcx, inst, Val::R(d));
        Ok(())
    }

    fn inst(&mut self, fcx: &mut Fcx, inst: &Instruction) -> R<()> {
        use Kind::{F, S, U};
        let op = inst.class.opcode;
        match op {
            Op::Load => {
                let p = self.ptr_operand(fcx, inst, 0)?;
                let v = self.load(inst, &p, 0)?;
                self.set(fcx, inst, v);
            }
            Op::Store => {
                let p = self.ptr_operand(fcx, inst, 0)?;
                let v = self.operand(fcx, inst, 1)?;
                self.store(inst, &p, &v, 0)?;
            }
            Op::CopyMemory => {
                let dst = self.ptr_operand(fcx, inst, 0)?;
                let src = self.ptr_operand(fcx, inst, 1)?;
                let v = self.load(inst, &src, 0)?;
                self.store(inst, &dst, &v, 0)?;
            }
            Op::AccessChain | Op::InBoundsAccessChain => self.access_chain(fcx, inst)?,
            Op::CopyObject => {
                let v = self.operand(fcx, inst, 0)?;
                self.set(fcx, inst, v);
            }
            Op::Undef => {
                let Some(z) = inst.result_type.and_then(|t| self.zero_val(t, 0)) else {
                    return self.err(inst, "OpUndef of an unsupported type");
                };
                self.set(fcx, inst, z);
            }
            Op::IAdd => self.bin(fcx, inst, BinOp::Add, U)?,
            Op::ISub => self.bin(fcx, inst, BinOp::Sub, U)?,
            Op::IMul => self.bin(fcx, inst, BinOp::Mul, U)?,
            Op::UDiv => self.bin(fcx, inst, BinOp::Div, U)?,
            Op::SDiv => self.bin(fcx, inst, BinOp::Div, S)?,
            Op::UMod => self.bin(fcx, inst, BinOp::Rem, U)?,
            Op::SRem => self.bin(fcx, inst, BinOp::Rem, S)?,
            Op::SMod => self.bin(fcx, inst, BinOp::Mod, S)?,
            Op::FAdd => self.bin(fcx, inst, BinOp::Add, F)?,
            Op::FSub => self.bin(fcx, inst, BinOp::Sub, F)?,
            Op::FMul => self.bin(fcx, inst, BinOp::Mul, F)?,
            Op::FDiv => self.bin(fcx, inst, BinOp::Div, F)?,
            Op::FRem => self.bin(fcx, inst, BinOp::Rem, F)?,
            Op::FMod => self.bin(fcx, inst, BinOp::Mod, F)?,
            Op::ShiftLeftLogical => self.bin(fcx, inst, BinOp::Shl, U)?,
            Op::ShiftRightLogical => self.bin(fcx, inst, BinOp::Shr, U)?,
            Op::ShiftRightArithmetic => self.bin(fcx, inst, BinOp::Shr, S)?,
            Op::BitwiseAnd => self.bin(fcx, inst, BinOp::And, U)?,
            Op::BitwiseOr => self.bin(fcx, inst, BinOp::Or, U)?,
            Op::BitwiseXor => self.bin(fcx, inst, BinOp::Xor, U)?,
            Op::LogicalAnd => self.bin(fcx, inst, BinOp::And, Kind::B)?,
            Op::LogicalOr => self.bin(fcx, inst, BinOp::Or, Kind::B)?,
            Op::LogicalEqual => self.cmp(fcx, inst, CmpOp::Eq, U)?,
            Op::LogicalNotEqual => self.cmp(fcx, inst, CmpOp::Ne, U)?,
            Op::LogicalNot => self.un(fcx, inst, UnOp::Not, Kind::B, 0)?,
            Op::Not => self.un(fcx, inst, UnOp::Not, U, 0)?,
            Op::SNegate => self.un(fcx, inst, UnOp::Neg, S, 0)?,
            Op::FNegate => self.un(fcx, inst, UnOp::Neg, F, 0)?,
            Op::BitCount => self.un(fcx, inst, UnOp::BitCount, U, 0)?,
            Op::BitReverse => self.un(fcx, inst, UnOp::BitReverse, U, 0)?,
            Op::IsNan => self.un(fcx, inst, UnOp::IsNan, F, 0)?,
            Op::IsInf => self.un(fcx, inst, UnOp::IsInf, F, 0)?,
            Op::IEqual => self.cmp(fcx, inst, CmpOp::Eq, U)?,
            Op::INotEqual => self.cmp(fcx, inst, CmpOp::Ne, U)?,
            Op::UGreaterThan => self.cmp(fcx, inst, CmpOp::Gt, U)?,
            Op::SGreaterThan => self.cmp(fcx, inst, CmpOp::Gt, S)?,
            Op::UGreaterThanEqual => self.cmp(fcx, inst, CmpOp::Ge, U)?,
            Op::SGreaterThanEqual => self.cmp(fcx, inst, CmpOp::Ge, S)?,
            Op::ULessThan => self.cmp(fcx, inst, CmpOp::Lt, U)?,
            Op::SLessThan => self.cmp(fcx, inst, CmpOp::Lt, S)?,
            Op::ULessThanEqual => self.cmp(fcx, inst, CmpOp::Le, U)?,
            Op::SLessThanEqual => self.cmp(fcx, inst, CmpOp::Le, S)?,
            Op::FOrdEqual => self.fcmp(fcx, inst, CmpOp::Eq, true)?,
            Op::FOrdNotEqual => self.fcmp(fcx, inst, CmpOp::Ne, true)?,
            Op::FOrdLessThan => self.fcmp(fcx, inst, CmpOp::Lt, true)?,
            Op::FOrdLessThanEqual => self.fcmp(fcx, inst, CmpOp::Le, true)?,
            Op::FOrdGreaterThan => self.fcmp(fcx, inst, CmpOp::Gt, true)?,
            Op::FOrdGreaterThanEqual => self.fcmp(fcx, inst, CmpOp::Ge, true)?,
            Op::FUnordEqual => self.fcmp(fcx, inst, CmpOp::Eq, false)?,
            Op::FUnordNotEqual => self.fcmp(fcx, inst, CmpOp::Ne, false)?,
            Op::FUnordLessThan => self.fcmp(fcx, inst, CmpOp::Lt, false)?,
            Op::FUnordLessThanEqual => self.fcmp(fcx, inst, CmpOp::Le, false)?,
            Op::FUnordGreaterThan => self.fcmp(fcx, inst, CmpOp::Gt, false)?,
            Op::FUnordGreaterThanEqual => self.fcmp(fcx, inst, CmpOp::Ge, false)?,
            Op::ConvertFToU => self.convert(fcx, inst, F, U)?,
            Op::ConvertFToS => self.convert(fcx, inst, F, S)?,
            Op::ConvertUToF => self.convert(fcx, inst, U, F)?,
            Op::ConvertSToF => self.convert(fcx, inst, S, F)?,
            Op::UConvert => self.convert(fcx, inst, U, U)?,
            Op::SConvert => self.convert(fcx, inst, S, S)?,
            Op::FConvert => self.convert(fcx, inst, F, F)?,
            Op::Bitcast => {
                let (fs, fl) = self.operand_ty(inst, 0)?;
                let (ts, tl) = self.result_ty(inst)?;
                let a = self.reg_operand(fcx, inst, 0)?;
                let d = self.b.reg();
                if fs.bits == ts.bits && fl == tl {
                    self.b.push(Inst::Mov {
                        dst: Dst::new(d),
                        a: Src::new(a),
                    });
                } else if fs.bits == 32 && ts.bits == 64 && fl == 2 * tl {
                    self.b.push(Inst::Pack64 {
                        dst: Dst::new(d),
                        a: Src::new(a),
                    });
                } else if fs.bits == 64 && ts.bits == 32 && tl == 2 * fl {
                    self.b.push(Inst::Unpack64 {
                        dst: Dst::new(d),
                        a: Src::new(a),
                    });
                } else {
                    return self.unsupported(inst, " between these types");
                }
                self.set(fcx, inst, Val::R(d));
            }
            Op::Select => {
                let (_, lanes) = self.result_ty(inst).unwrap_or((ScalarTy::U32, 1));
                let (_, cl) = self.operand_ty(inst, 0)?;
                let c = self.reg_operand(fcx, inst, 0)?;
                let a = self.operand(fcx, inst, 1)?;
                let b = self.operand(fcx, inst, 2)?;
                let (Val::R(a), Val::R(b)) = (a, b) else {
                    return self.unsupported(inst, " on composites");
                };
                let d = self.b.reg();
                self.b.push(Inst::Select {
                    lanes,
                    dst: Dst::new(d),
                    cond: if cl == 1 {
                        Src::splat(c, 0)
                    } else {
                        Src::new(c)
                    },
                    a: Src::new(a),
                    b: Src::new(b),
                });
                self.set(fcx, inst, Val::R(d));
            }
            Op::Any | Op::All => {
                let (_, l) = self.operand_ty(inst, 0)?;
                let a = self.reg_operand(fcx, inst, 0)?;
                let d = self.b.reg();
                self.b.push(Inst::Mov {
                    dst: Dst::new(d),
                    a: Src::splat(a, 0),
                });
                for k in 1..l {
                    self.b.push(Inst::Bin {
                        op: if op == Op::Any { BinOp::Or } else { BinOp::And },
                        ty: Ty::new(ScalarTy::BOOL, 1),
                        dst: Dst::new(d),
                        a: Src::new(d),
                        b: Src::splat(a, k),
                    });
                }
                self.set(fcx, inst, Val::R(d));
            }
            Op::VectorTimesScalar => {
                let (s, lanes) = self.operand_ty(inst, 0)?;
                let (v, k) = (
                    self.reg_operand(fcx, inst, 0)?,
                    self.reg_operand(fcx, inst, 1)?,
                );
                let d = self.b.reg();
                self.b.push(Inst::Bin {
                    op: BinOp::Mul,
                    ty: Ty::new(s, lanes),
                    dst: Dst::new(d),
                    a: Src::new(v),
                    b: Src::splat(k, 0),
                });
                self.set(fcx, inst, Val::R(d));
            }
            Op::Dot => {
                let (s, lanes) = self.operand_ty(inst, 0)?;
                let (a, b) = (
                    self.reg_operand(fcx, inst, 0)?,
                    self.reg_operand(fcx, inst, 1)?,
                );
                let t = self.b.reg();
                self.b.push(Inst::Bin {
                    op: BinOp::Mul,
                    ty: Ty::new(s, lanes),
                    dst: Dst::new(t),
                    a: Src::new(a),
                    b: Src::new(b),
                });
                let d = self.b.reg();
                self.b.push(Inst::Mov {
                    dst: Dst::new(d),
                    a: Src::splat(t, 0),
                });
                for k in 1..lanes {
                    self.b.push(Inst::Bin {
                        op: BinOp::Add,
                        ty: Ty::new(s, 1),
                        dst: Dst::new(d),
                        a: Src::new(d),
                        b: Src::splat(t, k),
                    });
                }
                self.set(fcx, inst, Val::R(d));
            }
            Op::BitFieldInsert | Op::BitFieldSExtract | Op::BitFieldUExtract => {
                let (s, lanes) = self.result_ty(inst)?;
                let d = self.b.reg();
                if op == Op::BitFieldInsert {
                    let (base, ins) = (
                        self.reg_operand(fcx, inst, 0)?,
                        self.reg_operand(fcx, inst, 1)?,
                    );
                    let (off, cnt) = (
                        self.reg_operand(fcx, inst, 2)?,
                        self.reg_operand(fcx, inst, 3)?,
                    );
                    self.b.push(Inst::BitfieldInsert {
                        ty: Ty::new(Self::with_kind(s, U), lanes),
                        form: BitfieldForm::Separate,
                        dst: Dst::new(d),
                        base: Src::new(base),
                        insert: Src::new(ins),
                        offset: Src::splat(off, 0),
                        width: Src::splat(cnt, 0),
                    });
                } else {
                    let base = self.reg_operand(fcx, inst, 0)?;
                    let (off, cnt) = (
                        self.reg_operand(fcx, inst, 1)?,
                        self.reg_operand(fcx, inst, 2)?,
                    );
                    self.b.push(Inst::BitfieldExtract {
                        ty: Ty::new(
                            Self::with_kind(s, if op == Op::BitFieldSExtract { S } else { U }),
                            lanes,
                        ),
                        form: BitfieldForm::Separate,
                        dst: Dst::new(d),
                        a: Src::new(base),
                        offset: Src::splat(off, 0),
                        width: Src::splat(cnt, 0),
                    });
                }
                self.set(fcx, inst, Val::R(d));
            }
            Op::MatrixTimesScalar
            | Op::VectorTimesMatrix
            | Op::MatrixTimesVector
            | Op::MatrixTimesMatrix
            | Op::Transpose
            | Op::OuterProduct => self.matrix_op(fcx, inst)?,
            Op::CompositeConstruct => self.composite_construct(fcx, inst)?,
            Op::CompositeExtract => {
                let v = self.operand(fcx, inst, 0)?;
                let idx = Self::lits_from(inst, 1);
                let r = self.extract(inst, &v, &idx)?;
                self.set(fcx, inst, r);
            }
            Op::CompositeInsert => {
                let obj = self.operand(fcx, inst, 0)?;
                let comp = self.operand(fcx, inst, 1)?;
                let idx = Self::lits_from(inst, 2);
                let r = self.insert(inst, &obj, &comp, &idx)?;
                self.set(fcx, inst, r);
            }
            Op::VectorShuffle => {
                let (_, n1) = self.operand_ty(inst, 0)?;
                let (a, b) = (
                    self.reg_operand(fcx, inst, 0)?,
                    self.reg_operand(fcx, inst, 1)?,
                );
                let comps = Self::lits_from(inst, 2);
                let d = self.b.reg();
                for (lane, c) in comps.iter().enumerate().take(4) {
                    if *c == u32::MAX {
                        continue;
                    }
                    let src = if *c < u32::from(n1) {
                        Src::splat(a, *c as u8)
                    } else {
                        Src::splat(b, (*c - u32::from(n1)).min(3) as u8)
                    };
                    self.b.push(Inst::Mov {
                        dst: Dst::masked(d, 1 << lane),
                        a: src,
                    });
                }
                self.set(fcx, inst, Val::R(d));
            }
            Op::VectorExtractDynamic | Op::VectorInsertDynamic => {
                let v = self.reg_operand(fcx, inst, 0)?;
                let ii = if op == Op::VectorExtractDynamic { 1 } else { 2 };
                let (is, _) = self.operand_ty(inst, ii)?;
                let mut idx = self.reg_operand(fcx, inst, ii)?;
                if is.bits != 32 {
                    let t = self.b.reg();
                    self.b.push(Inst::Convert {
                        from: Self::with_kind(is, U),
                        to: ScalarTy::U32,
                        lanes: 1,
                        dst: Dst::new(t),
                        a: Src::new(idx),
                    });
                    idx = t;
                }
                let d = self.b.reg();
                if op == Op::VectorExtractDynamic {
                    self.b.push(Inst::ExtractDyn {
                        dst: Dst::new(d),
                        vec: Src::new(v),
                        idx: Src::new(idx),
                    });
                } else {
                    let c = self.reg_operand(fcx, inst, 1)?;
                    self.b.push(Inst::InsertDyn {
                        dst: Dst::new(d),
                        vec: Src::new(v),
                        val: Src::new(c),
                        idx: Src::new(idx),
                    });
                }
                self.set(fcx, inst, Val::R(d));
            }
            Op::ExtInst => {
                if id_at(inst, 0).is_none() || id_at(inst, 0) != self.ext_glsl {
                    return self.unsupported(inst, " for this extended instruction set");
                }
                self.glsl_ext(fcx, inst)?;
            }
            Op::FunctionCall => self.call(fcx, inst)?,
            Op::ControlBarrier => {
                let exec = self.const_of(inst, 0)?;
                let mem = self.const_of(inst, 1)?;
                let sem = self.const_of(inst, 2)?;
                if exec != 2 {
                    return self.err(
                        inst,
                        format!(
                            "OpControlBarrier with execution scope {exec} is not supported (only Workgroup = 2)"
                        ),
                    );
                }
                if sem & !0x1f != 0 {
                    self.b.push(Inst::MemoryBarrier {
                        scope: if mem == 2 {
                            Scope::Group
                        } else {
                            Scope::Device
                        },
                    });
                }
                self.b.push(Inst::ControlBarrier);
            }
            Op::MemoryBarrier => {
                let mem = self.const_of(inst, 0)?;
                self.b.push(Inst::MemoryBarrier {
                    scope: if mem == 2 || mem == 3 || mem == 4 {
                        Scope::Group
                    } else {
                        Scope::Device
                    },
                });
            }
            Op::AtomicLoad => {
                // An atomic `or 0` on writable memory (so the executor treats the program as
                // using atomics and keeps results reproducible); a plain load elsewhere.
                let p = self.ptr_operand(fcx, inst, 0)?;
                match p.base {
                    Base::Mem(Space::Storage(_) | Space::Shared | Space::AtomicCounter(_)) => {
                        self.atomic(fcx, inst, AtomicOp::Or, Some(U))?
                    }
                    _ => {
                        let v = self.load(inst, &p, 0)?;
                        self.set(fcx, inst, v);
                    }
                }
            }
            Op::AtomicStore => {
                // Shared memory: a plain store (an exchange would read the old value and
                // flag never-written shared memory); elsewhere an exchange without a result.
                let p = self.ptr_operand(fcx, inst, 0)?;
                if p.base == Base::Mem(Space::Shared) {
                    let v = self.operand(fcx, inst, 3)?;
                    self.store(inst, &p, &v, 0)?;
                } else {
                    self.atomic(fcx, inst, AtomicOp::Exch, None)?
                }
            }
            Op::AtomicExchange => self.atomic(fcx, inst, AtomicOp::Exch, None)?,
            Op::AtomicCompareExchange => self.atomic(fcx, inst, AtomicOp::CmpXchg, None)?,
            Op::AtomicIIncrement | Op::AtomicIDecrement | Op::AtomicIAdd | Op::AtomicISub => {
                self.atomic(fcx, inst, AtomicOp::Add, Some(U))?
            }
            Op::AtomicSMin => self.atomic(fcx, inst, AtomicOp::Min, Some(S))?,
            Op::AtomicUMin => self.atomic(fcx, inst, AtomicOp::Min, Some(U))?,
            Op::AtomicSMax => self.atomic(fcx, inst, AtomicOp::Max, Some(S))?,
            Op::AtomicUMax => self.atomic(fcx, inst, AtomicOp::Max, Some(U))?,
            Op::AtomicAnd => self.atomic(fcx, inst, AtomicOp::And, Some(U))?,
            Op::AtomicOr => self.atomic(fcx, inst, AtomicOp::Or, Some(U))?,
            Op::AtomicXor => self.atomic(fcx, inst, AtomicOp::Xor, Some(U))?,
            Op::AtomicFAddEXT => self.atomic(fcx, inst, AtomicOp::Add, Some(F))?,
            _ => return self.unsupported(inst, ""),
        }
        Ok(())
    }
}
