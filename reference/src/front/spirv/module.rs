//! Module-level tables shared by the rule checks and the lowering: definitions, types,
//! decorations, constant values, and instruction positions.

use rspirv::dr::{Instruction, Module, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};
use std::collections::HashMap;

/// A SPIR-V type, as far as the compute subset needs it.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Void,
    Bool,
    Int {
        bits: u8,
        signed: bool,
    },
    Float {
        bits: u8,
    },
    Vector {
        elem: Word,
        n: u8,
    },
    Array {
        elem: Word,
        len: u64,
    },
    RtArray {
        elem: Word,
    },
    Struct {
        members: Vec<Word>,
    },
    /// Column-major matrix of `n` columns of vector type `col`.
    Matrix {
        col: Word,
        n: u8,
    },
    Pointer {
        sc: StorageClass,
        pointee: Word,
    },
    Function,
    /// A type the subset does not handle (the opcode).
    Other(Op),
}

/// One decoration: the decoration and its literal/id operands (as words).
#[derive(Clone, Debug)]
pub struct Deco {
    pub deco: Decoration,
    pub args: Vec<Operand>,
}

/// Module tables.
pub struct Info<'m> {
    pub module: &'m Module,
    pub types: HashMap<Word, Type>,
    /// Decorations of ids.
    pub decos: HashMap<Word, Vec<Deco>>,
    /// Decorations of struct members: (struct id, member index).
    pub member_decos: HashMap<(Word, u32), Vec<Deco>>,
    /// Result type of every id that has one.
    pub type_of: HashMap<Word, Word>,
    /// Position (1-based instruction ordinal in the binary) of every result id's definition and
    /// of every instruction, keyed by the instruction's address.
    pub pos_of: HashMap<*const Instruction, u32>,
    /// Source line of the n-th instruction (1-based) when the module came from text.
    pub lines: Vec<u32>,
}

impl<'m> Info<'m> {
    pub fn new(module: &'m Module, text: Option<&str>) -> Self {
        let mut info = Info {
            module,
            types: HashMap::new(),
            decos: HashMap::new(),
            member_decos: HashMap::new(),
            type_of: HashMap::new(),
            pos_of: HashMap::new(),
            lines: Vec::new(),
        };
        if let Some(t) = text {
            for (i, l) in t.lines().enumerate() {
                let code = l.split(';').next().unwrap_or("");
                if !code.trim().is_empty() {
                    info.lines.push(i as u32 + 1);
                }
            }
        }
        for (n, inst) in module.all_inst_iter().enumerate() {
            info.pos_of.insert(inst as *const Instruction, n as u32 + 1);
            if let (Some(id), Some(ty)) = (inst.result_id, inst.result_type) {
                info.type_of.insert(id, ty);
            }
        }
        for a in &module.annotations {
            match a.class.opcode {
                Op::Decorate | Op::DecorateId => {
                    if let (Some(Operand::IdRef(t)), Some(Operand::Decoration(d))) =
                        (a.operands.first(), a.operands.get(1))
                    {
                        info.decos.entry(*t).or_default().push(Deco {
                            deco: *d,
                            args: a.operands[2..].to_vec(),
                        });
                    }
                }
                Op::MemberDecorate => {
                    if let (
                        Some(Operand::IdRef(t)),
                        Some(Operand::LiteralBit32(m)),
                        Some(Operand::Decoration(d)),
                    ) = (a.operands.first(), a.operands.get(1), a.operands.get(2))
                    {
                        info.member_decos.entry((*t, *m)).or_default().push(Deco {
                            deco: *d,
                            args: a.operands[3..].to_vec(),
                        });
                    }
                }
                _ => {}
            }
        }
        for inst in &module.types_global_values {
            let Some(id) = inst.result_id else { continue };
            let lit = |i: usize| match inst.operands.get(i) {
                Some(Operand::LiteralBit32(v)) => Some(*v),
                _ => None,
            };
            let idr = |i: usize| match inst.operands.get(i) {
                Some(Operand::IdRef(v)) => Some(*v),
                _ => None,
            };
            let ty = match inst.class.opcode {
                Op::TypeVoid => Type::Void,
                Op::TypeBool => Type::Bool,
                Op::TypeInt => Type::Int {
                    bits: lit(0).unwrap_or(0).min(255) as u8,
                    signed: lit(1).unwrap_or(0) != 0,
                },
                Op::TypeFloat => Type::Float {
                    bits: lit(0).unwrap_or(0).min(255) as u8,
                },
                Op::TypeVector => Type::Vector {
                    elem: idr(0).unwrap_or(0),
                    n: lit(1).unwrap_or(0).min(255) as u8,
                },
                Op::TypeArray => Type::Array {
                    elem: idr(0).unwrap_or(0),
                    // Filled in from the constant's value below (0 when unknown).
                    len: 0,
                },
                Op::TypeMatrix => Type::Matrix {
                    col: idr(0).unwrap_or(0),
                    n: lit(1).unwrap_or(0).min(255) as u8,
                },
                Op::TypeRuntimeArray => Type::RtArray {
                    elem: idr(0).unwrap_or(0),
                },
                Op::TypeStruct => Type::Struct {
                    members: inst
                        .operands
                        .iter()
                        .filter_map(|o| o.id_ref_any())
                        .collect(),
                },
                Op::TypePointer => match (inst.operands.first(), idr(1)) {
                    (Some(Operand::StorageClass(sc)), Some(p)) => Type::Pointer {
                        sc: *sc,
                        pointee: p,
                    },
                    _ => Type::Other(Op::TypePointer),
                },
                Op::TypeFunction => Type::Function,
                op if format!("{op:?}").starts_with("Type") => Type::Other(op),
                _ => continue,
            };
            info.types.insert(id, ty);
        }
        info
    }

    pub fn ty(&self, id: Word) -> Option<&Type> {
        self.types.get(&id)
    }

    /// 1-based ordinal of an instruction in the module.
    pub fn pos(&self, inst: &Instruction) -> u32 {
        self.pos_of
            .get(&(inst as *const Instruction))
            .copied()
            .unwrap_or(0)
    }

    /// Source line of an instruction (its ordinal when there is no text).
    pub fn line(&self, inst: &Instruction) -> u32 {
        let p = self.pos(inst);
        if p == 0 {
            return 0;
        }
        self.lines.get(p as usize - 1).copied().unwrap_or(p)
    }

    /// "line 12" (from text) or "instruction 12" (binary).
    pub fn where_(&self, inst: &Instruction) -> String {
        let p = self.pos(inst);
        match self.lines.get((p as usize).wrapping_sub(1)) {
            Some(l) => format!("line {l}"),
            None => format!("instruction {p}"),
        }
    }

    pub fn has_deco(&self, id: Word, d: Decoration) -> bool {
        self.decos
            .get(&id)
            .is_some_and(|v| v.iter().any(|x| x.deco == d))
    }

    pub fn deco_lit(&self, id: Word, d: Decoration) -> Option<u32> {
        self.decos
            .get(&id)?
            .iter()
            .find(|x| x.deco == d)
            .and_then(|x| {
                x.args.first().and_then(|a| match a {
                    Operand::LiteralBit32(v) => Some(*v),
                    _ => None,
                })
            })
    }

    pub fn member_deco_lit(&self, id: Word, m: u32, d: Decoration) -> Option<u32> {
        self.member_decos
            .get(&(id, m))?
            .iter()
            .find(|x| x.deco == d)
            .and_then(|x| match x.args.first() {
                Some(Operand::LiteralBit32(v)) => Some(*v),
                _ => None,
            })
    }

    /// A short human name of a type.
    pub fn ty_name(&self, id: Word) -> String {
        self.ty_name_d(id, 0)
    }

    fn ty_name_d(&self, id: Word, d: u32) -> String {
        if d > 8 {
            return format!("%{id}");
        }
        match self.ty(id) {
            Some(Type::Void) => "void".into(),
            Some(Type::Bool) => "bool".into(),
            Some(Type::Int { bits, signed }) => {
                format!("{}{bits}-bit integer", if *signed { "signed " } else { "" })
            }
            Some(Type::Float { bits }) => format!("{bits}-bit float"),
            Some(Type::Vector { elem, n }) => {
                format!("vector of {n} x {}", self.ty_name_d(*elem, d + 1))
            }
            Some(Type::Array { elem, len }) => {
                format!("array of {len} x {}", self.ty_name_d(*elem, d + 1))
            }
            Some(Type::RtArray { elem }) => {
                format!("runtime array of {}", self.ty_name_d(*elem, d + 1))
            }
            Some(Type::Struct { .. }) => format!("struct %{id}"),
            Some(Type::Matrix { col, n }) => {
                format!("matrix of {n} x {}", self.ty_name_d(*col, d + 1))
            }
            Some(Type::Pointer { sc, pointee }) => {
                format!("pointer to {} in {sc:?}", self.ty_name_d(*pointee, d + 1))
            }
            Some(Type::Function) => "function type".into(),
            Some(Type::Other(op)) => format!("Op{op:?}"),
            None => format!("%{id} (not a type)"),
        }
    }

    /// Whether a type is an opaque type (image, sampled image, sampler) or an array of them.
    pub fn is_opaque(&self, ty: Word) -> bool {
        let mut t = ty;
        for _ in 0..64 {
            match self.ty(t) {
                Some(Type::Array { elem, .. } | Type::RtArray { elem }) => t = *elem,
                Some(Type::Other(Op::TypeImage | Op::TypeSampledImage | Op::TypeSampler)) => {
                    return true
                }
                _ => return false,
            }
        }
        false
    }

    /// Whether two type ids denote the same type (by id, or structurally for scalars/vectors).
    pub fn same_type(&self, a: Word, b: Word) -> bool {
        if a == b {
            return true;
        }
        match (self.ty(a), self.ty(b)) {
            (Some(Type::Vector { elem: x, n: m }), Some(Type::Vector { elem: y, n })) => {
                m == n && self.same_type(*x, *y)
            }
            (Some(x @ (Type::Bool | Type::Int { .. } | Type::Float { .. })), Some(y)) => x == y,
            _ => false,
        }
    }
}

/// The id operand at `i` (IdRef, IdScope or IdMemorySemantics).
pub fn id_at(inst: &Instruction, i: usize) -> Option<Word> {
    match inst.operands.get(i)? {
        Operand::IdRef(w) | Operand::IdScope(w) | Operand::IdMemorySemantics(w) => Some(*w),
        _ => None,
    }
}

/// The 32-bit literal operand at `i`.
pub fn lit_at(inst: &Instruction, i: usize) -> Option<u32> {
    match inst.operands.get(i)? {
        Operand::LiteralBit32(w) => Some(*w),
        Operand::LiteralExtInstInteger(w) => Some(*w),
        _ => None,
    }
}
