//! The OpenGL SPIR-V execution environment rules (ARB_gl_spirv, Appendix A.spv and the
//! Overview's "Non-acceptance of SPIR-V features"; KHR_shader_subgroup's additions to the
//! validation rules) that spirv-val does not check for the OpenGL 4.5 target (SPIRV-Tools
//! leaves its OpenGL scope and memory checks as TODOs). A module breaking one fails
//! glSpecializeShader: the reference reports it at the validate stage, naming the clause.
//!
//! Not checked, deliberately: the AtomicCounter rule that atomics use AtomicCounterMemory
//! semantics (glslang emits Relaxed, 0, for atomicCounterIncrement and drivers accept it), and
//! the rules about stages other than compute.

use crate::front::spirv::module::{id_at, Info};
use crate::Diagnostic;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, ExecutionMode, ExecutionModel, Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

/// Scope values (SPIR-V "Scope <id>").
const SCOPE_DEVICE: u32 = 1;
const SCOPE_WORKGROUP: u32 = 2;
const SCOPE_SUBGROUP: u32 = 3;
const SCOPE_INVOCATION: u32 = 4;

fn scope_name(s: u32) -> String {
    match s {
        0 => "CrossDevice".into(),
        SCOPE_DEVICE => "Device".into(),
        SCOPE_WORKGROUP => "Workgroup".into(),
        SCOPE_SUBGROUP => "Subgroup".into(),
        SCOPE_INVOCATION => "Invocation".into(),
        5 => "QueueFamily".into(),
        6 => "ShaderCallKHR".into(),
        o => format!("{o}"),
    }
}

/// The storage classes A.spv.4 allows, with StorageBuffer (ARB_spirv_extensions, when
/// SPV_KHR_storage_buffer_storage_class is supported; spirv-val requires the module to declare
/// the extension).
fn storage_class_allowed(sc: StorageClass) -> bool {
    use StorageClass as S;
    matches!(
        sc,
        S::UniformConstant
            | S::Input
            | S::Uniform
            | S::Output
            | S::Workgroup
            | S::Private
            | S::Function
            | S::AtomicCounter
            | S::Image
            | S::StorageBuffer
    )
}

/// Which scope operands of an instruction are execution scopes and which memory scopes:
/// (operand index, is execution scope).
fn scope_operands(inst: &Instruction) -> Vec<(usize, bool)> {
    let op = inst.class.opcode;
    let name = format!("{op:?}");
    let scopes = inst
        .operands
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(o, Operand::IdScope(_)))
        .map(|(i, _)| i);
    match op {
        Op::ControlBarrier => scopes.enumerate().map(|(k, i)| (i, k == 0)).collect(),
        _ if name.starts_with("Atomic") || op == Op::MemoryBarrier => {
            scopes.map(|i| (i, false)).collect()
        }
        _ if name.starts_with("Group") => scopes.take(1).map(|i| (i, true)).collect(),
        _ => Vec::new(),
    }
}

/// Checks every environment rule; one diagnostic per broken rule and instruction (storage
/// classes: per class).
pub fn check(info: &Info) -> Vec<Diagnostic> {
    let m = info.module;
    let mut out = Vec::new();
    let mut diag = |inst: &Instruction, rule: &str, msg: String| {
        out.push(Diagnostic {
            line: info.line(inst),
            column: 1,
            message: format!("{rule}: {msg} ({})", info.where_(inst)),
        });
    };

    for a in &m.annotations {
        if !matches!(a.class.opcode, Op::Decorate | Op::DecorateId) {
            continue;
        }
        if let (
            Some(Operand::Decoration(Decoration::DescriptorSet)),
            Some(Operand::LiteralBit32(set)),
        ) = (a.operands.get(1), a.operands.get(2))
        {
            if *set != 0 {
                diag(
                    a,
                    "GLSPV-DESCRIPTOR-SET-ZERO",
                    format!(
                        "DescriptorSet {set} on %{}: in OpenGL DescriptorSet must always be 0, if present (ARB_gl_spirv, Overview, \"Non-acceptance of SPIR-V features\")",
                        id_at(a, 0).unwrap_or(0)
                    ),
                );
            }
        }
    }

    let mut reported = HashSet::new();
    for inst in m.types_global_values.iter().chain(
        m.functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter()),
    ) {
        let sc = match (inst.class.opcode, inst.operands.first()) {
            (Op::TypePointer | Op::TypeForwardPointer | Op::Variable, _) => {
                inst.operands.iter().find_map(|o| match o {
                    Operand::StorageClass(sc) => Some(*sc),
                    _ => None,
                })
            }
            _ => None,
        };
        if let Some(sc) = sc {
            if !storage_class_allowed(sc) && reported.insert(sc) {
                diag(
                    inst,
                    "GLSPV-STORAGE-CLASSES",
                    format!(
                        "storage class {sc:?} cannot be used in OpenGL (ARB_gl_spirv A.spv.4: Storage Class must be limited to UniformConstant, Input, Uniform, Output, Workgroup, Private, Function, AtomicCounter and Image; ARB_spirv_extensions adds StorageBuffer{})",
                        if sc == StorageClass::PushConstant {
                            "; the Overview: \"Push-constant buffers cannot be used\""
                        } else {
                            ""
                        }
                    ),
                );
            }
        }
        if inst.class.opcode == Op::TypeSampler {
            diag(
                inst,
                "GLSPV-NO-SAMPLER-TYPE",
                "OpTypeSampler cannot be used in OpenGL, where samplers and textures are combined (ARB_gl_spirv, Overview, \"Non-acceptance of SPIR-V features\")".into(),
            );
        }
    }

    let constants: HashMap<Word, u32> = m
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| match (i.result_id, i.operands.first()) {
            (Some(id), Some(Operand::LiteralBit32(v))) => Some((id, *v)),
            _ => None,
        })
        .collect();
    for f in &m.functions {
        for inst in f.blocks.iter().flat_map(|b| b.instructions.iter()) {
            for (i, exec) in scope_operands(inst) {
                let Some(scope) = id_at(inst, i).and_then(|id| constants.get(&id)) else {
                    continue;
                };
                let name = format!("Op{:?}", inst.class.opcode);
                let group = name.starts_with("OpGroup");
                if exec && group && *scope != SCOPE_SUBGROUP {
                    diag(
                        inst,
                        "GLSPV-EXECUTION-SCOPE",
                        format!(
                            "{name} with execution scope {}: Scope for Non Uniform Group Operations must be limited to Subgroup (KHR_shader_subgroup, additions to the validation rules)",
                            scope_name(*scope)
                        ),
                    );
                } else if exec && !matches!(*scope, SCOPE_WORKGROUP | SCOPE_SUBGROUP) {
                    diag(
                        inst,
                        "GLSPV-EXECUTION-SCOPE",
                        format!(
                            "{name} with execution scope {}: Scope for execution must be limited to Workgroup and Subgroup (ARB_gl_spirv A.spv.4)",
                            scope_name(*scope)
                        ),
                    );
                } else if !exec
                    && !matches!(
                        *scope,
                        SCOPE_DEVICE | SCOPE_WORKGROUP | SCOPE_INVOCATION | SCOPE_SUBGROUP
                    )
                {
                    diag(
                        inst,
                        "GLSPV-MEMORY-SCOPE",
                        format!(
                            "{name} with memory scope {}: Scope for memory must be limited to Device, Workgroup and Invocation (ARB_gl_spirv A.spv.4), and Subgroup (KHR_shader_subgroup)",
                            scope_name(*scope)
                        ),
                    );
                }
            }
        }
    }

    subgroup_rules(info, &mut diag);

    for ep in &m.entry_points {
        if !matches!(
            ep.operands.first(),
            Some(Operand::ExecutionModel(ExecutionModel::GLCompute))
        ) {
            continue;
        }
        let f = id_at(ep, 1);
        let has_local_size = m.execution_modes.iter().any(|em| {
            id_at(em, 0) == f
                && matches!(
                    em.operands.get(1),
                    Some(Operand::ExecutionMode(
                        ExecutionMode::LocalSize | ExecutionMode::LocalSizeId
                    ))
                )
        });
        let has_workgroup_size = info.decos.values().flatten().any(|d| {
            d.deco == Decoration::BuiltIn
                && matches!(
                    d.args.first(),
                    Some(Operand::BuiltIn(rspirv::spirv::BuiltIn::WorkgroupSize))
                )
        });
        if !has_local_size && !has_workgroup_size {
            diag(
                ep,
                "GLSPV-LOCAL-SIZE",
                "the compute entry point has neither a LocalSize execution mode nor an object decorated WorkgroupSize (ARB_gl_spirv A.spv.4, \"Compute Shaders\")".into(),
            );
        }
        if let Some(call) = f.and_then(|f| recursion(info, f)) {
            diag(
                call,
                "GLSPV-NO-RECURSION",
                "the static function-call graph of the entry point contains a cycle (ARB_gl_spirv A.spv.4, \"Recursion\")".into(),
            );
        }
    }
    out
}

/// KHR_shader_subgroup's additions to the validation rules (C.4): the result types of the
/// non-uniform group instructions, and in a SPIR-V 1.3 module (the version the extension
/// adds) the 1.1-1.3 features it disallows.
fn subgroup_rules(info: &Info, diag: &mut impl FnMut(&Instruction, &str, String)) {
    let m = info.module;
    let float64 = m.capabilities.iter().any(|c| {
        matches!(
            c.operands.first(),
            Some(Operand::Capability(rspirv::spirv::Capability::Float64))
        )
    });
    let type_ok = |t: Word| -> bool {
        let Some(def) = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(t))
        else {
            return false;
        };
        let scalar = |d: &Instruction| match (d.class.opcode, d.operands.first()) {
            (Op::TypeBool, _) => true,
            (Op::TypeInt, Some(Operand::LiteralBit32(32))) => true,
            (Op::TypeFloat, Some(Operand::LiteralBit32(32))) => true,
            (Op::TypeFloat, Some(Operand::LiteralBit32(64))) => float64,
            _ => false,
        };
        if def.class.opcode == Op::TypeVector {
            id_at(def, 0)
                .and_then(|e| {
                    m.types_global_values
                        .iter()
                        .find(|i| i.result_id == Some(e))
                })
                .is_some_and(scalar)
        } else {
            scalar(def)
        }
    };
    for inst in m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
    {
        let name = format!("Op{:?}", inst.class.opcode);
        if name.starts_with("OpGroupNonUniform") && !inst.result_type.is_some_and(type_ok) {
            diag(
                inst,
                "GLSPV-SUBGROUP-RESULT-TYPE",
                format!("{name} with a result type other than a 32-bit float, 32-bit integer, boolean (or a vector of them) or, with Float64, a double (KHR_shader_subgroup, additions to the validation rules)"),
            );
        }
    }
    if m.header.as_ref().map(|h| h.version()) != Some((1, 3)) {
        return;
    }
    let why = "KHR_shader_subgroup, additions to the validation rules: the SPIR-V 1.1, 1.2 and 1.3 features not related to subgroups are not allowed";
    use rspirv::spirv::Capability as C;
    for c in &m.capabilities {
        if let Some(Operand::Capability(
            cap @ (C::StorageBuffer16BitAccess
            | C::UniformAndStorageBuffer16BitAccess
            | C::StoragePushConstant16
            | C::StorageInputOutput16
            | C::DeviceGroup
            | C::MultiView
            | C::VariablePointersStorageBuffer
            | C::VariablePointers),
        )) = c.operands.first()
        {
            diag(
                c,
                "GLSPV-SUBGROUP-SPIRV-SUBSET",
                format!("capability {cap:?} ({why})"),
            );
        }
    }
    for em in &m.execution_modes {
        if em.class.opcode == Op::ExecutionModeId
            || matches!(
                em.operands.get(1),
                Some(Operand::ExecutionMode(ExecutionMode::LocalSizeId))
            )
        {
            diag(
                em,
                "GLSPV-SUBGROUP-SPIRV-SUBSET",
                format!("OpExecutionModeId or LocalSizeId ({why})"),
            );
        }
    }
    for i in m.debug_module_processed.iter().chain(
        m.annotations
            .iter()
            .filter(|a| a.class.opcode == Op::DecorateId),
    ) {
        diag(
            i,
            "GLSPV-SUBGROUP-SPIRV-SUBSET",
            format!("Op{:?} ({why})", i.class.opcode),
        );
    }
    for i in m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .filter(|i| i.class.opcode == Op::LoopMerge)
    {
        if let Some(Operand::LoopControl(lc)) = i.operands.get(2) {
            use rspirv::spirv::LoopControl as L;
            if lc.intersects(L::DEPENDENCY_INFINITE | L::DEPENDENCY_LENGTH) {
                diag(
                    i,
                    "GLSPV-SUBGROUP-SPIRV-SUBSET",
                    format!("the DependencyInfinite or DependencyLength loop control ({why})"),
                );
            }
        }
    }
}

/// The OpFunctionCall that closes a cycle in the static call graph reachable from `entry`.
fn recursion<'m>(info: &Info<'m>, entry: Word) -> Option<&'m Instruction> {
    let m = info.module;
    let calls: HashMap<Word, Vec<&Instruction>> = m
        .functions
        .iter()
        .filter_map(|f| {
            let id = f.def.as_ref()?.result_id?;
            let calls = f
                .blocks
                .iter()
                .flat_map(|b| b.instructions.iter())
                .filter(|i| i.class.opcode == Op::FunctionCall)
                .collect();
            Some((id, calls))
        })
        .collect();
    // Depth-first search with an explicit stack: (function, next call to follow).
    let mut on_path = HashSet::from([entry]);
    let mut done = HashSet::new();
    let mut stack = vec![(entry, 0usize)];
    while let Some((f, k)) = stack.last_mut() {
        let call = calls.get(f).and_then(|c| c.get(*k)).copied();
        *k += 1;
        let Some(call) = call else {
            let f = *f;
            on_path.remove(&f);
            done.insert(f);
            stack.pop();
            continue;
        };
        let Some(callee) = id_at(call, 0) else {
            continue;
        };
        if on_path.contains(&callee) {
            return Some(call);
        }
        if !done.contains(&callee) && calls.contains_key(&callee) {
            on_path.insert(callee);
            stack.push((callee, 0));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::front::spirv::tests::broken;

    /// A compute module with `decos` after the entry point, `types` and a `body` in main.
    fn module(modes: &str, decos: &str, types: &str, body: &str) -> String {
        format!(
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
             {modes}{decos}%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n\
             %u0 = OpConstant %uint 0\n%u1 = OpConstant %uint 1\n%u2 = OpConstant %uint 2\n\
             %u3 = OpConstant %uint 3\n%u4 = OpConstant %uint 4\n{types}\
             %main = OpFunction %void None %fn\n%entry = OpLabel\n{body}\nOpReturn\nOpFunctionEnd\n"
        )
    }

    const LOCAL: &str = "OpExecutionMode %main LocalSize 1 1 1\n";

    #[test]
    fn a_valid_module_breaks_nothing() {
        let ok = module(
            LOCAL,
            "OpDecorate %v DescriptorSet 0\nOpDecorate %v Binding 3\n",
            "%pw = OpTypePointer Workgroup %uint\n%v = OpVariable %pw Workgroup\n",
            "OpControlBarrier %u2 %u2 %u0\nOpControlBarrier %u3 %u3 %u0\nOpMemoryBarrier %u1 %u0\n\
             OpMemoryBarrier %u4 %u0\n%x = OpAtomicIAdd %uint %v %u2 %u0 %u1",
        );
        assert_eq!(broken(&ok), Vec::<String>::new());
    }

    #[test]
    fn descriptor_set_must_be_zero() {
        let m = module(
            LOCAL,
            "OpDecorate %v DescriptorSet 1\n",
            "%pw = OpTypePointer Workgroup %uint\n%v = OpVariable %pw Workgroup\n",
            "",
        );
        assert_eq!(broken(&m), ["GLSPV-DESCRIPTOR-SET-ZERO"]);
    }

    #[test]
    fn push_constants_and_other_storage_classes_are_rejected_once_per_class() {
        let m = module(
            LOCAL,
            "OpDecorate %B Block\nOpMemberDecorate %B 0 Offset 0\n",
            "%B = OpTypeStruct %uint\n%pB = OpTypePointer PushConstant %B\n%pc = OpVariable %pB PushConstant\n",
            "",
        );
        assert_eq!(broken(&m), ["GLSPV-STORAGE-CLASSES"]);
    }

    #[test]
    fn scopes() {
        let exec = |s: &str| module(LOCAL, "", "", &format!("OpControlBarrier {s} %u2 %u0"));
        assert_eq!(broken(&exec("%u1")), ["GLSPV-EXECUTION-SCOPE"], "Device");
        assert_eq!(
            broken(&exec("%u4")),
            ["GLSPV-EXECUTION-SCOPE"],
            "Invocation"
        );
        let mem = module(LOCAL, "", "", "OpMemoryBarrier %u0 %u0");
        assert_eq!(broken(&mem), ["GLSPV-MEMORY-SCOPE"], "CrossDevice");
    }

    #[test]
    fn recursion_and_missing_local_size() {
        let rec = format!(
            "{}%f = OpFunction %void None %fn\n%l = OpLabel\n%r2 = OpFunctionCall %void %f\nOpReturn\nOpFunctionEnd\n",
            module(LOCAL, "", "", "%r = OpFunctionCall %void %f")
        );
        assert_eq!(broken(&rec), ["GLSPV-NO-RECURSION"]);
        assert_eq!(broken(&module("", "", "", "")), ["GLSPV-LOCAL-SIZE"]);
        let wgs = module(
            "",
            "OpDecorate %wgs BuiltIn WorkgroupSize\n",
            "%v3 = OpTypeVector %uint 3\n%wgs = OpConstantComposite %v3 %u1 %u1 %u1\n",
            "",
        );
        assert_eq!(
            broken(&wgs),
            Vec::<String>::new(),
            "WorkgroupSize gives the size"
        );
    }

    #[test]
    fn sampler_type() {
        let m = module(LOCAL, "", "%s = OpTypeSampler\n", "");
        assert_eq!(broken(&m), ["GLSPV-NO-SAMPLER-TYPE"]);
    }
}
