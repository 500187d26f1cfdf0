//! Declaration qualifiers: the storage, parameter and layout qualifiers of a declaration that
//! the lowering and the compile checks read ([`quals`]), and literal layout values.

use super::span_off;
use crate::front::glsl::types::Rule;
use glsl_lang::ast::{self, ExprData};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PQual {
    In,
    Out,
    InOut,
}

/// The qualifiers of a declaration that matter here.
#[derive(Default, Debug, Clone)]
pub struct Quals {
    pub konst: bool,
    pub shared: bool,
    pub buffer: bool,
    pub uniform: bool,
    pub inout: Option<PQualPub>,
    pub readonly: bool,
    /// `writeonly` (images and buffer blocks).
    pub writeonly: bool,
    /// `coherent`, `volatile` or `restrict`: memory qualifiers the reference's sequentially
    /// consistent memory satisfies by itself.
    pub coherent_volatile_restrict: bool,
    /// A precision qualifier (`highp`, `mediump`, `lowp`).
    pub precision: bool,
    pub std430: bool,
    pub std140: bool,
    pub packed_or_shared: bool,
    pub binding: Option<u32>,
    pub offset: Option<u32>,
    pub align: Option<u32>,
    pub location: bool,
    /// `row_major` (true) or `column_major` (false), the last one named.
    pub row_major: Option<bool>,
    /// A layout identifier whose value is not an integer literal expression (name, offset).
    pub nonliteral: Option<(String, usize)>,
    /// Layout identifiers with their (constant-literal) values, in order.
    pub layout: Vec<(String, Option<i64>, usize)>,
}

pub type PQualPub = PQual;

impl Quals {
    /// The value of the last `location` layout qualifier (u32::MAX for a negative one).
    pub fn location_value(&self) -> Option<u32> {
        self.layout
            .iter()
            .rev()
            .find(|(n, _, _)| n == "location")
            .and_then(|(_, v, _)| *v)
            .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
    }

    /// The block layout the qualifiers name: `Some(Some(rule))` for std430 or std140 (std430
    /// when both), `Some(None)` for packed or shared (implementation-dependent), `None` when
    /// they name none.
    pub fn layout_rule(&self) -> Option<Option<Rule>> {
        if self.std430 {
            Some(Some(Rule::STD430))
        } else if self.std140 {
            Some(Some(Rule::STD140))
        } else if self.packed_or_shared {
            Some(None)
        } else {
            None
        }
    }
}

/// Where a layout qualifier stands, for the table of GLSL §4.4 (which identifiers each kind
/// of declaration takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutSite {
    /// `layout(std430) buffer;` / `uniform;`
    DefaultBlock,
    /// A buffer or uniform block.
    Block,
    /// A member of a buffer or uniform block.
    BlockMember,
    /// A plain uniform of a transparent type.
    Uniform,
    /// A plain uniform of an opaque type (atomic counters, samplers).
    OpaqueUniform,
    /// A uniform of an image type (binding, location and a format qualifier).
    ImageUniform,
    /// Anything else (shared, global and local variables, parameters): no layout qualifiers.
    Other,
}

/// GLSL 4.60 §4.4's table of layout qualifiers, for the declarations an OpenGL compute shader
/// has: each identifier and where it may stand (`local_size_*` are checked with the local
/// size declarations).
const LAYOUT_TABLE: [(&str, &[LayoutSite]); 10] = {
    use LayoutSite::*;
    const BLOCK_LAYOUT: &[LayoutSite] = &[DefaultBlock, Block];
    const MATRIX_LAYOUT: &[LayoutSite] = &[DefaultBlock, Block, BlockMember];
    [
        ("shared", BLOCK_LAYOUT),
        ("packed", BLOCK_LAYOUT),
        ("std140", BLOCK_LAYOUT),
        ("std430", BLOCK_LAYOUT),
        ("row_major", MATRIX_LAYOUT),
        ("column_major", MATRIX_LAYOUT),
        ("binding", &[Block, OpaqueUniform, ImageUniform]),
        ("offset", &[BlockMember, OpaqueUniform]),
        ("align", &[Block, BlockMember]),
        ("location", &[Uniform, OpaqueUniform, ImageUniform]),
    ]
};

/// Layout identifiers that exist only in GLSL for Vulkan (GL_KHR_vulkan_glsl) or for SPIR-V.
const VULKAN_ONLY: [&str; 4] = [
    "set",
    "push_constant",
    "input_attachment_index",
    "constant_id",
];

impl Quals {
    /// The first layout identifier not allowed at `site`, as (offset, compile error message).
    pub fn bad_layout(&self, site: LayoutSite) -> Option<(usize, String)> {
        self.layout.iter().find_map(|(name, _, off)| {
            let n = name.to_ascii_lowercase();
            let msg = match LAYOUT_TABLE.iter().find(|e| e.0 == n) {
                Some((_, sites)) if sites.contains(&site) => return None,
                // The format qualifiers (ARB_shader_image_load_store, "Image Layout
                // Qualifiers") stand on image declarations only.
                None if crate::ir::image::Format::parse(&n).is_some() => {
                    if site == LayoutSite::ImageUniform {
                        return None;
                    }
                    format!("'{name}' : format layout qualifiers apply to images only")
                }
                Some(_) => format!("'{name}' : layout qualifier not allowed on this declaration"),
                None if VULKAN_ONLY.contains(&n.as_str()) => {
                    format!(
                        "'{name}' : layout qualifier only allowed in GLSL for Vulkan, not OpenGL"
                    )
                }
                None => format!("'{name}' : unrecognized layout identifier"),
            };
            Some((*off, msg))
        })
    }
}

/// Reads a literal integer layout value (constant expressions of literals only).
pub fn lit_int(e: &ast::Expr) -> Option<i64> {
    match &**e {
        ExprData::IntConst(i) => Some(i64::from(*i)),
        ExprData::UIntConst(u) => Some(i64::from(*u)),
        ExprData::Unary(op, a) if matches!(**op, ast::UnaryOpData::Minus) => lit_int(a).map(|v| -v),
        ExprData::Binary(op, a, b) => {
            let (a, b) = (lit_int(a)?, lit_int(b)?);
            match **op {
                ast::BinaryOpData::Add => a.checked_add(b),
                ast::BinaryOpData::Sub => a.checked_sub(b),
                ast::BinaryOpData::Mult => a.checked_mul(b),
                ast::BinaryOpData::Div if b != 0 => Some(a / b),
                _ => None,
            }
        }
        _ => None,
    }
}

pub fn quals(q: Option<&ast::TypeQualifier>) -> Quals {
    let mut o = Quals::default();
    let Some(q) = q else { return o };
    for s in &q.qualifiers {
        match &**s {
            ast::TypeQualifierSpecData::Storage(st) => match &**st {
                ast::StorageQualifierData::Const => o.konst = true,
                ast::StorageQualifierData::Shared => o.shared = true,
                ast::StorageQualifierData::Buffer => o.buffer = true,
                ast::StorageQualifierData::Uniform => o.uniform = true,
                ast::StorageQualifierData::In => {
                    o.inout = Some(if o.inout == Some(PQual::Out) {
                        PQual::InOut
                    } else {
                        PQual::In
                    })
                }
                ast::StorageQualifierData::Out => {
                    o.inout = Some(if o.inout == Some(PQual::In) {
                        PQual::InOut
                    } else {
                        PQual::Out
                    })
                }
                ast::StorageQualifierData::InOut => o.inout = Some(PQual::InOut),
                ast::StorageQualifierData::ReadOnly => o.readonly = true,
                ast::StorageQualifierData::WriteOnly => o.writeonly = true,
                ast::StorageQualifierData::Coherent
                | ast::StorageQualifierData::Volatile
                | ast::StorageQualifierData::Restrict => o.coherent_volatile_restrict = true,
                ast::StorageQualifierData::Attribute | ast::StorageQualifierData::Varying => {
                    o.inout = Some(PQual::In)
                }
                _ => {}
            },
            ast::TypeQualifierSpecData::Precision(_) => o.precision = true,
            ast::TypeQualifierSpecData::Layout(l) => {
                for id in &l.ids {
                    let off = span_off(&id.span).unwrap_or(0);
                    match &**id {
                        ast::LayoutQualifierSpecData::Identifier(name, val) => {
                            let v = val.as_ref().and_then(|e| lit_int(e));
                            // GLSL §4.4: layout qualifier names are not case sensitive.
                            let lower = name.as_str().to_ascii_lowercase();
                            let n = lower.as_str();
                            if val.is_some() && v.is_none() && o.nonliteral.is_none() {
                                o.nonliteral = Some((n.to_string(), off));
                            }
                            o.layout.push((name.as_str().to_string(), v, off));
                            match n {
                                "std430" => o.std430 = true,
                                "std140" => o.std140 = true,
                                "packed" => o.packed_or_shared = true,
                                "binding" => o.binding = v.map(|v| v as u32),
                                "offset" => o.offset = v.map(|v| v as u32),
                                "align" => o.align = v.map(|v| v as u32),
                                "location" => o.location = true,
                                "row_major" => o.row_major = Some(true),
                                "column_major" => o.row_major = Some(false),
                                _ => {}
                            }
                        }
                        ast::LayoutQualifierSpecData::Shared => {
                            o.packed_or_shared = true;
                            o.layout.push(("shared".into(), None, off));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    o
}
