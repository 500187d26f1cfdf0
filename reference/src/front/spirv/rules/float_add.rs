//! The SPV_EXT_shader_atomic_float_add validation rules, checked by the front end itself so a
//! rejected module names the rule (clause id) it breaks, whatever spirv-val says.

use crate::front::spirv::module::{id_at, Info, Type};
use crate::Diagnostic;
use rspirv::dr::Operand;
use rspirv::spirv::{Capability, Op};

/// The extension's name as declared with OpExtension.
pub const EXTENSION: &str = "SPV_EXT_shader_atomic_float_add";

/// Checks every SPVFADD rule; one diagnostic per broken rule and instruction.
pub fn check(info: &Info) -> Vec<Diagnostic> {
    let m = info.module;
    let mut out = Vec::new();
    let has_cap = |c: Capability| {
        m.capabilities
            .iter()
            .any(|i| matches!(i.operands.first(), Some(Operand::Capability(x)) if *x == c))
    };
    let ext_declared = m
        .extensions
        .iter()
        .any(|i| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == EXTENSION));
    let mut diag = |inst: &rspirv::dr::Instruction, rule: &str, msg: String| {
        out.push(Diagnostic {
            line: info.line(inst),
            column: 1,
            message: format!("{rule}: {msg} ({})", info.where_(inst)),
        });
    };
    if !ext_declared {
        for c in &m.capabilities {
            if let Some(Operand::Capability(
                cap @ (Capability::AtomicFloat32AddEXT | Capability::AtomicFloat64AddEXT),
            )) = c.operands.first()
            {
                diag(
                    c,
                    "SPVFADD-EXTENSION-DECLARED",
                    format!(
                        "OpCapability {cap:?} is declared but the module does not declare OpExtension \"{EXTENSION}\""
                    ),
                );
            }
        }
    }
    for f in &m.functions {
        for b in &f.blocks {
            for inst in &b.instructions {
                if inst.class.opcode != Op::AtomicFAddEXT {
                    continue;
                }
                if !ext_declared {
                    diag(
                        inst,
                        "SPVFADD-EXTENSION-DECLARED",
                        format!("OpAtomicFAddEXT is used but the module does not declare OpExtension \"{EXTENSION}\""),
                    );
                }
                let Some(rt) = inst.result_type else { continue };
                let width = match info.ty(rt) {
                    Some(Type::Float { bits }) => Some(*bits),
                    Some(Type::Vector { .. }) => {
                        diag(
                            inst,
                            "SPVFADD-SCALAR-ONLY",
                            format!(
                                "OpAtomicFAddEXT Result Type must be a scalar floating-point type, not a vector ({})",
                                info.ty_name(rt)
                            ),
                        );
                        None
                    }
                    _ => {
                        diag(
                            inst,
                            "SPVFADD-SCALAR-ONLY",
                            format!(
                                "OpAtomicFAddEXT Result Type must be a scalar floating-point type, found {}",
                                info.ty_name(rt)
                            ),
                        );
                        None
                    }
                };
                match width {
                    Some(32) if !has_cap(Capability::AtomicFloat32AddEXT) => diag(
                        inst,
                        "SPVFADD-CAPABILITY-32",
                        "OpAtomicFAddEXT on a 32-bit float requires OpCapability AtomicFloat32AddEXT"
                            .into(),
                    ),
                    Some(64) if !has_cap(Capability::AtomicFloat64AddEXT) => diag(
                        inst,
                        "SPVFADD-CAPABILITY-64",
                        "OpAtomicFAddEXT on a 64-bit float requires OpCapability AtomicFloat64AddEXT"
                            .into(),
                    ),
                    // SPV_EXT_shader_atomic_float16_add extends the instruction to 16 bits.
                    Some(16) if has_cap(Capability::AtomicFloat16AddEXT) => {}
                    Some(w) if w != 32 && w != 64 => diag(
                        inst,
                        "SPVFADD-WIDTHS",
                        format!(
                            "OpAtomicFAddEXT Result Type must be a 32- or 64-bit float, found width {w}"
                        ),
                    ),
                    _ => {}
                }
                // Operands: Pointer, Memory scope, Semantics, Value.
                if let Some(p) = id_at(inst, 0) {
                    let pty = info.type_of.get(&p).copied();
                    match pty.and_then(|t| info.ty(t)) {
                        Some(Type::Pointer { pointee, .. }) => {
                            if !info.same_type(*pointee, rt) {
                                diag(
                                    inst,
                                    "SPVFADD-TYPES-MATCH",
                                    format!(
                                        "OpAtomicFAddEXT Pointer must point to the Result Type ({}), but it points to {}",
                                        info.ty_name(rt),
                                        info.ty_name(*pointee)
                                    ),
                                );
                            }
                        }
                        _ => diag(
                            inst,
                            "SPVFADD-TYPES-MATCH",
                            "OpAtomicFAddEXT Pointer operand is not a pointer".into(),
                        ),
                    }
                }
                if let Some(v) = id_at(inst, 3) {
                    match info.type_of.get(&v) {
                        Some(vt) if !info.same_type(*vt, rt) => diag(
                            inst,
                            "SPVFADD-TYPES-MATCH",
                            format!(
                                "OpAtomicFAddEXT Value type ({}) must be the Result Type ({})",
                                info.ty_name(*vt),
                                info.ty_name(rt)
                            ),
                        ),
                        _ => {}
                    }
                }
            }
        }
    }
    out
}
