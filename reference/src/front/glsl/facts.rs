//! The compile rules that need no lowering, per shader: `#extension` directives, the version
//! a compute shader needs, local size declarations, and the rules for shaders of other stages
//! ([`shader_facts`]).

use super::lower::{self, quals};
use super::parse::{self, Behavior, Parsed};
use super::{unsupported_at, Src};
use crate::front::BuildFailure;
use crate::ir::DerivGroup;
use crate::{Diagnostic, LIMITS};
use conform_plan::{BuildStage, Stage};
use glsl_lang::ast;
use glsl_lang::visitor::{Host, Visit, Visitor};

/// The extension that declares `local_size_variable` and `gl_LocalGroupSizeARB`.
pub(super) const VARIABLE_GROUP_SIZE: &str = "GL_ARB_compute_variable_group_size";

/// The extension that adds the derivative group layouts and derivatives in compute shaders.
pub(super) const DERIVATIVES: &str = "GL_NV_compute_shader_derivatives";

/// Facts from one shader's AST the compile and link rules need.
pub(super) struct ShaderFacts {
    pub(super) local_size: Option<[u32; 3]>,
    /// Byte offset of the first local size declaration.
    pub(super) local_size_at: Option<usize>,
    /// Byte offset of `layout(local_size_variable) in;` (ARB_compute_variable_group_size).
    pub(super) variable_size_at: Option<usize>,
    /// `layout(derivative_group_quadsNV) in;` or `..._linearNV` (NV_compute_shader_derivatives)
    /// and the byte offset of the qualifier.
    pub(super) derivative_group: Option<(DerivGroup, usize)>,
    pub(super) exts: parse::ExtState,
    pub(super) warnings: Vec<String>,
}

/// Compile-time checks that need no lowering: extensions, local size declarations, stage rules.
pub(super) fn shader_facts(
    shader: usize,
    src: &Src,
    parsed: &Parsed,
    stage: Stage,
) -> Result<ShaderFacts, BuildFailure> {
    let srcs_one = |off: usize, msg: &str| {
        let (abs, rel, col) = src.pos(off);
        BuildFailure::Failed {
            stage: BuildStage::Compile,
            log: format!("line {abs}: error: {msg}\n"),
            diagnostics: vec![Diagnostic {
                line: rel,
                column: col,
                message: msg.to_string(),
            }],
        }
    };
    let _ = shader;
    let mut warnings = Vec::new();
    for d in &parsed.extensions {
        let Some(n) = &d.name else {
            if matches!(d.behavior, Behavior::Require | Behavior::Enable) {
                return Err(srcs_one(
                    d.offset,
                    "#extension all : require/enable is not allowed (only warn or disable)",
                ));
            }
            continue;
        };
        if parse::supported(n) {
            continue;
        }
        let (abs, rel, col) = src.pos(d.offset);
        match d.behavior {
            // A driver without the extension fails the compile; the reference does not
            // implement it, so it cannot judge the case: a refusal naming the extension.
            Behavior::Require => {
                return Err(unsupported_at(
                    abs,
                    rel,
                    col,
                    &format!("unsupported: extension '{n}' (required by the shader; the reference does not implement it)"),
                ))
            }
            // GLSL §3.3: enable or warn of an extension the compiler does not support only
            // warns.
            Behavior::Enable | Behavior::Warn => {
                warnings.push(format!("line {abs}: warning: extension '{n}' is not supported"))
            }
            Behavior::Disable => {}
        }
    }
    let exts = parse::ExtState::new(&parsed.extensions);
    // Stage rules for non-compute shaders.
    if stage != Stage::Compute {
        struct V {
            bad: Option<(usize, String)>,
            tcs: bool,
        }
        impl Visitor for V {
            fn visit_storage_qualifier(&mut self, q: &ast::StorageQualifier) -> Visit {
                if self.bad.is_none() && matches!(**q, ast::StorageQualifierData::Shared) {
                    let off = q.span.map(|s| usize::from(s.start().offset)).unwrap_or(0);
                    self.bad = Some((
                        off,
                        "'shared' : storage qualifier only allowed in compute shaders".into(),
                    ));
                }
                Visit::Children
            }
            fn visit_expr(&mut self, e: &ast::Expr) -> Visit {
                if let ast::ExprData::FunCall(f, _) = &**e {
                    if let Some(id) = f.as_ident() {
                        let n = id.as_str();
                        // barrier() also exists in tessellation control shaders.
                        let compute_only =
                            matches!(n, "memoryBarrierShared" | "groupMemoryBarrier")
                                || (n == "barrier" && !self.tcs);
                        if self.bad.is_none() && compute_only {
                            let off = e.span.map(|s| usize::from(s.start().offset)).unwrap_or(0);
                            self.bad = Some((
                                off,
                                format!("'{n}' : no matching overloaded function found (available in compute shaders only)"),
                            ));
                        }
                    }
                }
                Visit::Children
            }
        }
        let mut v = V {
            bad: None,
            tcs: stage == Stage::TessControl,
        };
        parsed.tu.visit(&mut v);
        if let Some((off, msg)) = v.bad {
            return Err(srcs_one(off, &msg));
        }
        for ed in &parsed.tu.0 {
            if let ast::ExternalDeclarationData::Declaration(d) = &**ed {
                if let ast::DeclarationData::TypeOnly(q) = &**d {
                    if let Some((n, _, off)) = quals(Some(q)).layout.iter().find(|l| {
                        l.0.starts_with("local_size_") || derivative_group_of(&l.0).is_some()
                    }) {
                        return Err(srcs_one(
                            *off,
                            &format!("'{n}' : layout qualifier only allowed in compute shaders"),
                        ));
                    }
                }
            }
        }
        return Ok(ShaderFacts {
            local_size: None,
            local_size_at: None,
            variable_size_at: None,
            derivative_group: None,
            exts,
            warnings,
        });
    }
    // Compute shaders need GLSL 4.30 or the ARB_compute_shader extension; in OpenGL ES, ESSL
    // 3.10 (GL 4.3 and later accept ESSL 3.10 shaders: GL_ARB_ES3_1_compatibility, core in
    // 4.5).
    let version = parsed.version.unwrap_or(110);
    if parsed.es {
        if version < 310 {
            return Err(srcs_one(
                0,
                &format!("compute shaders need #version 310 es or later, this shader is version {version} es"),
            ));
        }
    } else if version < 430 && !exts.enabled_anywhere("GL_ARB_compute_shader") {
        return Err(srcs_one(
            0,
            &format!("compute shaders need #version 430 (or #extension GL_ARB_compute_shader), this shader is version {version}"),
        ));
    }
    // Local size declarations.
    let mut size: [Option<u32>; 3] = [None; 3];
    let mut any = false;
    let mut last_decl_off = 0usize;
    let mut first_decl_off = None;
    let mut variable_size_at = None;
    let mut derivative_group: Option<(DerivGroup, usize)> = None;
    for ed in &parsed.tu.0 {
        let ast::ExternalDeclarationData::Declaration(d) = &**ed else {
            continue;
        };
        let ast::DeclarationData::TypeOnly(q) = &**d else {
            continue;
        };
        let qq = quals(Some(q));
        let decl_off = d.span.map(|s| usize::from(s.start().offset)).unwrap_or(0);
        if qq.inout != Some(lower::PQualPub::In) {
            continue;
        }
        for (name, val, off) in &qq.layout {
            // Below 4.30 the local size layout comes with GL_ARB_compute_shader, which a
            // directive enables only from where it stands (§3.3).
            if !parsed.es && version < 430 && !exts.enabled_at("GL_ARB_compute_shader", *off) {
                return Err(srcs_one(
                    *off,
                    &format!("'{name}' : layout qualifier requires #version 430 or #extension GL_ARB_compute_shader before it"),
                ));
            }
            if name.eq_ignore_ascii_case("local_size_variable") {
                // ARB_compute_variable_group_size, GLSL 4.4.1.1: the qualifier exists only
                // where the extension is enabled, and takes no value.
                if !exts.enabled_at(VARIABLE_GROUP_SIZE, *off) {
                    return Err(srcs_one(
                        *off,
                        &format!("'{name}' : layout qualifier requires #extension {VARIABLE_GROUP_SIZE} before it"),
                    ));
                }
                if val.is_some() {
                    return Err(srcs_one(
                        *off,
                        &format!("'{name}' : layout qualifier takes no value"),
                    ));
                }
                variable_size_at.get_or_insert(decl_off);
                continue;
            }
            if let Some(g) = derivative_group_of(name) {
                // NV_compute_shader_derivatives, §4.4.1.4: the qualifiers exist where the
                // extension is enabled, take no value, and "It is a compile-time error if both
                // qualifiers are specified."
                if !exts.enabled_at(DERIVATIVES, *off) {
                    return Err(srcs_one(
                        *off,
                        &format!("'{name}' : layout qualifier requires #extension {DERIVATIVES} before it"),
                    ));
                }
                if val.is_some() {
                    return Err(srcs_one(
                        *off,
                        &format!("'{name}' : layout qualifier takes no value"),
                    ));
                }
                if let Some((other, _)) = derivative_group {
                    if other != g {
                        return Err(srcs_one(
                            *off,
                            "both derivative_group_quadsNV and derivative_group_linearNV are specified (NV_compute_shader_derivatives: a compile-time error)",
                        ));
                    }
                }
                derivative_group.get_or_insert((g, *off));
                continue;
            }
            let dim = match name.to_ascii_lowercase().as_str() {
                "local_size_x" => 0,
                "local_size_y" => 1,
                "local_size_z" => 2,
                "location" => {
                    return Err(srcs_one(
                        *off,
                        "'location' : layout qualifier not allowed on compute shader inputs (only local_size_x/y/z)",
                    ))
                }
                other => {
                    return Err(srcs_one(
                        *off,
                        &format!("'{other}' : layout qualifier not allowed on compute shader inputs (only local_size_x/y/z)"),
                    ))
                }
            };
            let Some(v) = val else {
                let (abs, rel, col) = src.pos(*off);
                return Err(unsupported_at(
                    abs,
                    rel,
                    col,
                    &format!("unsupported: {name} given by a non-literal expression"),
                ));
            };
            if *v <= 0 {
                return Err(srcs_one(
                    *off,
                    &format!("'{name}' : local size must be at least 1"),
                ));
            }
            let max = LIMITS.max_work_group_size[dim];
            if *v > i64::from(max) {
                return Err(srcs_one(
                    *off,
                    &format!("'{name}' : local size {v} exceeds the maximum work group size {max} (gl_MaxComputeWorkGroupSize)"),
                ));
            }
            let v = *v as u32;
            if let Some(prev) = size[dim] {
                if prev != v {
                    return Err(srcs_one(
                        *off,
                        &format!("'{name}' : conflicting local size declarations in one shader ({prev} and {v})"),
                    ));
                }
            }
            size[dim] = Some(v);
            any = true;
            first_decl_off.get_or_insert(decl_off);
        }
        last_decl_off = decl_off;
    }
    let local_size = any.then(|| {
        [
            size[0].unwrap_or(1),
            size[1].unwrap_or(1),
            size[2].unwrap_or(1),
        ]
    });
    // ARB_compute_variable_group_size, GLSL 4.4.1.1: "It is a compile-time error to use
    // local_size_variable ... in a shader that also declares a fixed local group size".
    if let (Some(at), true) = (variable_size_at, any) {
        return Err(srcs_one(
            at.max(first_decl_off.unwrap_or(0)),
            "a shader declares both a variable local size (local_size_variable) and a fixed one (local_size_x/y/z)",
        ));
    }
    if let Some(ls) = local_size {
        // The product is checked at compile time, as glslang and Mesa do.
        let total = u64::from(ls[0]) * u64::from(ls[1]) * u64::from(ls[2]);
        if total > u64::from(LIMITS.max_work_group_invocations) {
            return Err(srcs_one(
                last_decl_off,
                &format!(
                    "local size {ls:?} has {total} invocations, above gl_MaxComputeWorkGroupInvocations / MAX_COMPUTE_WORK_GROUP_INVOCATIONS ({}): the work group is too large",
                    LIMITS.max_work_group_invocations
                ),
            ));
        }
    }
    if let (Some((g, at)), Some(ls)) = (derivative_group, local_size) {
        if let Some(msg) = derivative_size_error(g, ls) {
            return Err(srcs_one(at, &msg));
        }
    }
    Ok(ShaderFacts {
        local_size,
        local_size_at: first_decl_off,
        variable_size_at,
        derivative_group,
        exts,
        warnings,
    })
}

/// The derivative group a layout qualifier names (case-insensitively, as the other layout
/// qualifiers), if it is one of NV_compute_shader_derivatives'.
pub(super) fn derivative_group_of(name: &str) -> Option<DerivGroup> {
    if name.eq_ignore_ascii_case("derivative_group_quadsNV") {
        Some(DerivGroup::Quads)
    } else if name.eq_ignore_ascii_case("derivative_group_linearNV") {
        Some(DerivGroup::Linear)
    } else {
        None
    }
}

/// NV_compute_shader_derivatives, §4.4.1.4: "It is a compile-time error if [quads] is used with
/// a local group size whose first or second dimension is not a multiple of two", and if linear
/// "is used with a local group size whose total number of invocations is not a multiple of
/// four". The message, when `size` breaks the rule.
pub(super) fn derivative_size_error(g: DerivGroup, size: [u32; 3]) -> Option<String> {
    let total = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
    let quads_ok = size[0].is_multiple_of(2) && size[1].is_multiple_of(2);
    match g {
        DerivGroup::Quads if !quads_ok => Some(format!(
            "derivative_group_quadsNV with the local size {size:?}: its first and second dimensions must be multiples of two (NV_compute_shader_derivatives)"
        )),
        DerivGroup::Linear if !total.is_multiple_of(4) => Some(format!(
            "derivative_group_linearNV with the local size {size:?}: its total number of invocations must be a multiple of four (NV_compute_shader_derivatives)"
        )),
        _ => None,
    }
}
