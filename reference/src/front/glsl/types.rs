//! GLSL types of the front end and their memory layouts (std430, std140).

use crate::ir::{Kind, ScalarTy};
use std::fmt;
use std::rc::Rc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sc {
    Bool,
    Int,
    Uint,
    Float,
    Double,
    /// `int64_t` (GL_ARB_gpu_shader_int64).
    Int64,
    /// `uint64_t` (GL_ARB_gpu_shader_int64).
    Uint64,
}

impl Sc {
    pub fn ir(self) -> ScalarTy {
        match self {
            Sc::Bool => ScalarTy::BOOL,
            Sc::Int => ScalarTy::S32,
            Sc::Uint => ScalarTy::U32,
            Sc::Float => ScalarTy::F32,
            Sc::Double => ScalarTy::F64,
            Sc::Int64 => ScalarTy::S64,
            Sc::Uint64 => ScalarTy::U64,
        }
    }
    /// Bytes in memory (bool is stored as a 32-bit 0/1).
    pub fn bytes(self) -> u32 {
        match self {
            Sc::Double | Sc::Int64 | Sc::Uint64 => 8,
            _ => 4,
        }
    }
    /// Memory scalar type (bools as u32).
    pub fn mem(self) -> ScalarTy {
        match self {
            Sc::Bool => ScalarTy::U32,
            s => s.ir(),
        }
    }
    pub fn is_int(self) -> bool {
        matches!(self, Sc::Int | Sc::Uint | Sc::Int64 | Sc::Uint64)
    }
    /// Signed integer (32 or 64 bits).
    pub fn is_signed_int(self) -> bool {
        matches!(self, Sc::Int | Sc::Int64)
    }
    pub fn is_float(self) -> bool {
        matches!(self, Sc::Float | Sc::Double)
    }
    pub fn is_num(self) -> bool {
        self != Sc::Bool
    }
    pub fn kind(self) -> Kind {
        self.ir().kind
    }
    pub fn name(self) -> &'static str {
        match self {
            Sc::Bool => "bool",
            Sc::Int => "int",
            Sc::Uint => "uint",
            Sc::Float => "float",
            Sc::Double => "double",
            Sc::Int64 => "int64_t",
            Sc::Uint64 => "uint64_t",
        }
    }
    fn vec_prefix(self) -> &'static str {
        match self {
            Sc::Bool => "bvec",
            Sc::Int => "ivec",
            Sc::Uint => "uvec",
            Sc::Float => "vec",
            Sc::Double => "dvec",
            Sc::Int64 => "i64vec",
            Sc::Uint64 => "u64vec",
        }
    }
}

#[derive(Debug, PartialEq)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Ty)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Void,
    /// Scalar (n = 1) or vector (n = 2..4).
    V(Sc, u8),
    /// Element type and length; None: runtime-sized (last member of a buffer block).
    Array(Box<Ty>, Option<u32>),
    Struct(Rc<StructDef>),
    AtomicUint,
}

impl Ty {
    pub fn scalar(s: Sc) -> Ty {
        Ty::V(s, 1)
    }
    pub const BOOL: Ty = Ty::V(Sc::Bool, 1);
    pub const INT: Ty = Ty::V(Sc::Int, 1);
    pub const UINT: Ty = Ty::V(Sc::Uint, 1);
    pub const FLOAT: Ty = Ty::V(Sc::Float, 1);

    pub fn is_vs(&self) -> bool {
        matches!(self, Ty::V(..))
    }
    pub fn sc(&self) -> Option<Sc> {
        match self {
            Ty::V(s, _) => Some(*s),
            _ => None,
        }
    }
    pub fn lanes(&self) -> u8 {
        match self {
            Ty::V(_, n) => *n,
            _ => 0,
        }
    }
    /// Whether a value of this type contains a runtime-sized array.
    pub fn has_runtime_array(&self) -> bool {
        match self {
            Ty::Array(_, None) => true,
            Ty::Array(e, _) => e.has_runtime_array(),
            Ty::Struct(s) => s.fields.iter().any(|f| f.1.has_runtime_array()),
            _ => false,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Void => f.write_str("void"),
            Ty::V(s, 1) => f.write_str(s.name()),
            Ty::V(s, n) => write!(f, "{}{n}", s.vec_prefix()),
            Ty::Array(e, Some(n)) => write!(f, "{e}[{n}]"),
            Ty::Array(e, None) => write!(f, "{e}[]"),
            Ty::Struct(s) => f.write_str(&s.name),
            Ty::AtomicUint => f.write_str("atomic_uint"),
        }
    }
}

/// Memory layout rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Std430,
    Std140,
}

fn round_up(x: u32, a: u32) -> u32 {
    if a == 0 {
        x
    } else {
        x.div_ceil(a).saturating_mul(a)
    }
}

/// Base alignment of a type under a rule.
pub fn align(ty: &Ty, rule: Rule) -> u32 {
    match ty {
        Ty::V(s, n) => {
            let b = s.bytes();
            match n {
                1 => b,
                2 => 2 * b,
                _ => 4 * b,
            }
        }
        Ty::Array(e, _) => {
            let a = align(e, rule);
            if rule == Rule::Std140 {
                round_up(a, 16)
            } else {
                a
            }
        }
        Ty::Struct(s) => {
            let a = s
                .fields
                .iter()
                .map(|f| align(&f.1, rule))
                .max()
                .unwrap_or(1);
            if rule == Rule::Std140 {
                round_up(a, 16)
            } else {
                a
            }
        }
        Ty::AtomicUint => 4,
        Ty::Void => 1,
    }
}

/// Array stride of an element type.
pub fn stride(elem: &Ty, rule: Rule) -> u32 {
    let a = match rule {
        Rule::Std140 => round_up(align(elem, rule), 16),
        Rule::Std430 => align(elem, rule),
    };
    round_up(size(elem, rule), a)
}

/// Size in bytes (a runtime-sized array counts as 0 elements).
pub fn size(ty: &Ty, rule: Rule) -> u32 {
    match ty {
        Ty::V(s, n) => s.bytes() * u32::from(*n),
        Ty::Array(e, n) => stride(e, rule).saturating_mul(n.unwrap_or(0)),
        Ty::Struct(s) => {
            let offs = struct_offsets(s, rule);
            let end = match (s.fields.last(), offs.last()) {
                (Some(f), Some(o)) => o.saturating_add(size(&f.1, rule)),
                _ => 0,
            };
            round_up(end, align(ty, rule))
        }
        Ty::AtomicUint => 4,
        Ty::Void => 0,
    }
}

/// Byte offsets of the fields of a struct.
pub fn struct_offsets(s: &StructDef, rule: Rule) -> Vec<u32> {
    let mut off = 0u32;
    let mut v = Vec::new();
    for (_, t) in &s.fields {
        off = round_up(off, align(t, rule));
        v.push(off);
        off = off.saturating_add(size(t, rule));
    }
    v
}
