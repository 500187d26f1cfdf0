//! GLSL types of the front end and their memory layouts (std430, std140).

use crate::ir::image::ImageDim;
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
    /// For the members of a block: a `row_major` (true) or `column_major` (false) qualifier
    /// on the member, which overrides the block's for the matrices in it. Empty otherwise.
    pub majors: Vec<Option<bool>>,
    /// For the members of a block: whether the member is `readonly` (its own qualifier or the
    /// block's). Empty otherwise.
    pub readonly: Vec<bool>,
}

impl StructDef {
    /// A struct (not a block): no member qualifiers.
    pub fn new(name: String, fields: Vec<(String, Ty)>) -> Self {
        StructDef {
            name,
            fields,
            majors: Vec::new(),
            readonly: Vec::new(),
        }
    }

    /// The rule field `i` is laid out with inside a struct laid out with `rule`.
    pub fn field_rule(&self, i: usize, rule: Rule) -> Rule {
        match self.majors.get(i).copied().flatten() {
            Some(row_major) => Rule { row_major, ..rule },
            None => rule,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    Void,
    /// Scalar (n = 1) or vector (n = 2..4).
    V(Sc, u8),
    /// Element type and length; None: runtime-sized (last member of a buffer block).
    Array(Box<Ty>, Option<u32>),
    Struct(Rc<StructDef>),
    /// A matrix of float or double: scalar type, columns, rows (`mat2x3` has 2 columns of 3).
    Mat(Sc, u8, u8),
    AtomicUint,
    /// An image type (`image2D`, `iimage3D`, `uimage2DArray`, ...): the target and the
    /// component type (Float, Int or Uint).
    Image(ImageDim, Sc),
    /// A sampler type (`sampler2D`, `isampler3D`, `usampler2DArray`, ...): the target and the
    /// component type.
    Sampler(ImageDim, Sc),
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
    /// Whether the type is an image or an array of images.
    pub fn is_image(&self) -> bool {
        match self {
            Ty::Image(..) => true,
            Ty::Array(e, _) => e.is_image(),
            _ => false,
        }
    }

    /// Whether the type is an image or a sampler, or an array of them: an opaque type a
    /// uniform holds the unit of.
    pub fn is_unit_opaque(&self) -> bool {
        match self {
            Ty::Image(..) | Ty::Sampler(..) => true,
            Ty::Array(e, _) => e.is_unit_opaque(),
            _ => false,
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
            Ty::Mat(s, c, r) => {
                let d = if *s == Sc::Double { "d" } else { "" };
                if c == r {
                    write!(f, "{d}mat{c}")
                } else {
                    write!(f, "{d}mat{c}x{r}")
                }
            }
            Ty::AtomicUint => f.write_str("atomic_uint"),
            Ty::Image(dim, sc) => write!(f, "{}image{}", sc_prefix(*sc), dim_suffix(*dim)),
            Ty::Sampler(dim, sc) => write!(f, "{}sampler{}", sc_prefix(*sc), dim_suffix(*dim)),
        }
    }
}

/// The component-type prefix of an opaque type's name (`i`, `u`, or none for float).
fn sc_prefix(sc: Sc) -> &'static str {
    match sc {
        Sc::Int => "i",
        Sc::Uint => "u",
        _ => "",
    }
}

/// The target suffix of an opaque type's name (`2DArray`).
fn dim_suffix(dim: ImageDim) -> &'static str {
    match dim {
        ImageDim::D1 => "1D",
        ImageDim::D2 => "2D",
        ImageDim::D3 => "3D",
        ImageDim::D2Array => "2DArray",
        ImageDim::Buffer => "Buffer",
    }
}

/// Memory layout rule (GL 4.6 §7.6.2.2): std140 (arrays and structs aligned to 16 bytes) or
/// std430, and whether matrices are row-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    pub std140: bool,
    pub row_major: bool,
}

impl Rule {
    pub const STD430: Rule = Rule {
        std140: false,
        row_major: false,
    };
    pub const STD140: Rule = Rule {
        std140: true,
        row_major: false,
    };
}

fn round_up(x: u32, a: u32) -> u32 {
    if a == 0 {
        x
    } else {
        x.div_ceil(a).saturating_mul(a)
    }
}

/// The array a matrix is stored as (§7.6.2.2 rules 5 and 7): its columns (column-major) or its
/// rows (row-major) as vectors.
pub fn matrix_as_array(sc: Sc, cols: u8, rows: u8, row_major: bool) -> Ty {
    let (n, count) = if row_major {
        (cols, rows)
    } else {
        (rows, cols)
    };
    Ty::Array(Box::new(Ty::V(sc, n)), Some(u32::from(count)))
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
            if rule.std140 {
                round_up(a, 16)
            } else {
                a
            }
        }
        Ty::Struct(s) => {
            let a = s
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| align(&f.1, s.field_rule(i, rule)))
                .max()
                .unwrap_or(1);
            if rule.std140 {
                round_up(a, 16)
            } else {
                a
            }
        }
        Ty::Mat(sc, c, r) => align(&matrix_as_array(*sc, *c, *r, rule.row_major), rule),
        Ty::AtomicUint | Ty::Image(..) | Ty::Sampler(..) => 4,
        Ty::Void => 1,
    }
}

/// Array stride of an element type.
pub fn stride(elem: &Ty, rule: Rule) -> u32 {
    let a = if rule.std140 {
        round_up(align(elem, rule), 16)
    } else {
        align(elem, rule)
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
            let n = s.fields.len();
            let end = match (s.fields.last(), offs.last()) {
                (Some(f), Some(o)) => o.saturating_add(size(&f.1, s.field_rule(n - 1, rule))),
                _ => 0,
            };
            round_up(end, align(ty, rule))
        }
        Ty::Mat(sc, c, r) => size(&matrix_as_array(*sc, *c, *r, rule.row_major), rule),
        Ty::AtomicUint | Ty::Image(..) | Ty::Sampler(..) => 4,
        Ty::Void => 0,
    }
}

/// Byte offsets of the fields of a struct.
pub fn struct_offsets(s: &StructDef, rule: Rule) -> Vec<u32> {
    let mut off = 0u32;
    let mut v = Vec::new();
    for (i, (_, t)) in s.fields.iter().enumerate() {
        let r = s.field_rule(i, rule);
        off = round_up(off, align(t, r));
        v.push(off);
        off = off.saturating_add(size(t, r));
    }
    v
}
