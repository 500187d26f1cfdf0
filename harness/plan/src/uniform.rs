//! Setting a plain (default-block) uniform between steps: which uniform ([`UniformTarget`]),
//! the type of the values ([`UniformType`], which picks the glUniform* command), and the values.
//!
//! GL 4.6 §7.6.1: the command used "must match the size and type of the uniform, as declared
//! in the shader" (boolean uniforms take the `f`, `i` and `ui` forms), `count` values load
//! array elements k..k+count-1 from the element the location names, and values past the end
//! of the array are ignored. A backend applies those rules; the plan only carries the call.

use crate::{ElemType, Scalar};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which uniform a [`UniformSet`] loads.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UniformTarget {
    /// A name as glGetUniformLocation takes it: `u`, `a` or `a[2]` for an array, `s.f` or
    /// `s[1].f` for structure members (GL 4.6 §7.3.1.1).
    Name(String),
    /// A location: an explicit `layout(location = L)` (GLSL) or `Location` decoration
    /// (SPIR-V, whose uniforms have no names in GL). -1 is GL's "no uniform": ignored.
    Location(i32),
}

impl fmt::Display for UniformTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UniformTarget::Name(n) => write!(f, "`{n}`"),
            UniformTarget::Location(l) => write!(f, "location {l}"),
        }
    }
}

/// The type a uniform is loaded as: a scalar or vector (`i32`, `f32x4`: glUniform{1234}*) or
/// a matrix (`f32mat4`, `f64mat2x3`: glUniformMatrix*, columns × rows, column-major values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UniformType {
    Elem(ElemType),
    Matrix {
        scalar: Scalar,
        columns: u8,
        rows: u8,
    },
}

/// Scalars some glUniform* command takes: `f`, `d`, `i`, `ui` (GL 4.6 §7.6.1) and the
/// `i64`/`ui64` forms of ARB_gpu_shader_int64.
pub const UNIFORM_SCALARS: [Scalar; 6] = [
    Scalar::F32,
    Scalar::F64,
    Scalar::I32,
    Scalar::U32,
    Scalar::I64,
    Scalar::U64,
];

impl UniformType {
    /// The scalar of every component.
    pub fn scalar(self) -> Scalar {
        match self {
            UniformType::Elem(e) => e.scalar,
            UniformType::Matrix { scalar, .. } => scalar,
        }
    }

    /// Components of one value: lanes of a vector, columns × rows of a matrix.
    pub fn components(self) -> usize {
        match self {
            UniformType::Elem(e) => e.lanes as usize,
            UniformType::Matrix { columns, rows, .. } => columns as usize * rows as usize,
        }
    }

    /// Bytes of one value, tightly packed.
    pub fn size(self) -> usize {
        self.components() * self.scalar().size()
    }

    /// Parses `u32`, `f32x4`, `f32mat4` (4 × 4), `f64mat2x3` (2 columns, 3 rows). Matrices are
    /// f32 or f64 with 2 to 4 columns and rows; any element type parses (the loader refuses
    /// the ones no glUniform* takes, with a message of its own).
    pub fn parse(text: &str) -> Option<Self> {
        if let Some(at) = text.find("mat") {
            let scalar = match &text[..at] {
                "f32" => Scalar::F32,
                "f64" => Scalar::F64,
                _ => return None,
            };
            let dims = &text[at + 3..];
            let dim = |s: &str| s.parse::<u8>().ok().filter(|n| (2..=4).contains(n));
            let (columns, rows) = match dims.split_once('x') {
                Some((c, r)) => (dim(c)?, dim(r)?),
                None => (dim(dims)?, dim(dims)?),
            };
            return Some(UniformType::Matrix {
                scalar,
                columns,
                rows,
            });
        }
        ElemType::parse(text).map(UniformType::Elem)
    }
}

impl fmt::Display for UniformType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UniformType::Elem(e) => e.fmt(f),
            UniformType::Matrix {
                scalar,
                columns,
                rows,
            } if columns == rows => write!(f, "{}mat{columns}", scalar.name()),
            UniformType::Matrix {
                scalar,
                columns,
                rows,
            } => write!(f, "{}mat{columns}x{rows}", scalar.name()),
        }
    }
}

impl Serialize for UniformType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for UniformType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        UniformType::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown uniform type `{text}`")))
    }
}

/// One glUniform*/glProgramUniform* call on the case's program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UniformSet {
    pub target: UniformTarget,
    pub ty: UniformType,
    /// `count` values of `ty`, little-endian, tightly packed (matrices column-major): the
    /// call's `count` is `bytes.len() / ty.size()`.
    #[serde(with = "crate::b64")]
    pub bytes: Vec<u8>,
}

impl UniformSet {
    /// The `count` argument of the call.
    pub fn count(&self) -> usize {
        self.bytes.len() / self.ty.size().max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_type_names_round_trip() {
        for name in [
            "u32",
            "i32x2",
            "f32x4",
            "f64",
            "u64x3",
            "f32mat4",
            "f32mat2x3",
            "f64mat3",
            "f64mat4x2",
        ] {
            let t = UniformType::parse(name).unwrap();
            assert_eq!(t.to_string(), name);
        }
        assert_eq!(
            UniformType::parse("f32mat2x3"),
            Some(UniformType::Matrix {
                scalar: Scalar::F32,
                columns: 2,
                rows: 3
            })
        );
        assert_eq!(
            UniformType::parse("f32mat3x3").unwrap().to_string(),
            "f32mat3"
        );
        assert_eq!(UniformType::parse("f64mat2x3").unwrap().size(), 48);
        for bad in [
            "i32mat2", "f32mat1", "f32mat5", "f32mat2x", "f32matx2", "mat4", "vec4",
        ] {
            assert_eq!(UniformType::parse(bad), None, "{bad}");
        }
    }
}
