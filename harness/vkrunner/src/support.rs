//! Whether a plan can run on a Vulkan device, and how: the skip reason that names what only
//! GL has (or what the device lacks), or the descriptor layout the plan's buffers fill.
//! Pure: the parent checks plans with it before sending them (a skip), the worker again
//! before running them (a plan sent with `--force` is refused with the same reason).

use crate::module::{self, Module, ResourceKind};
use crate::translate::{self, Need};
use crate::VkInfo;
use conform_plan::{BufferKind, ExecPlan, Language, Stage, Step};
use spirv_tools::val::{self, Validator};
use spirv_tools::TargetEnv;

/// One descriptor of set 0: its binding, kind, and the plan buffer it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    pub binding: u32,
    pub kind: ResourceKind,
    pub buffer: usize,
}

/// A plan the device can run: its module's facts and its descriptor set 0.
#[derive(Clone, Debug)]
pub struct Ready {
    pub module: Module,
    pub descriptors: Vec<Descriptor>,
}

/// The target environment spirv-val checks a module against on a device of `api` version.
pub fn target_env(api: (u32, u32, u32)) -> (TargetEnv, &'static str) {
    match (api.0, api.1) {
        (1, 0) => (TargetEnv::Vulkan_1_0, "Vulkan 1.0"),
        (1, 1) => (TargetEnv::Vulkan_1_1, "Vulkan 1.1"),
        (1, 2) => (TargetEnv::Vulkan_1_2, "Vulkan 1.2"),
        _ => (TargetEnv::Vulkan_1_3, "Vulkan 1.3"),
    }
}

/// spirv-val's verdict on `words` in the Vulkan environment of a device of `api` version.
pub fn validate(words: &[u32], api: (u32, u32, u32)) -> Result<(), String> {
    let (env, name) = target_env(api);
    let v = val::create(Some(env));
    v.validate(words, None).map_err(|e| {
        let (message, notes) = match e.diagnostic {
            Some(d) => (d.message, d.notes),
            None => ("validation failed".to_string(), String::new()),
        };
        let notes = notes.trim();
        format!(
            "not valid SPIR-V in the {name} environment (spirv-val: {message}{}{notes})",
            if notes.is_empty() { "" } else { ": " }
        )
    })
}

/// Why `plan` cannot run on Vulkan, whatever the device: GL-only programs, uniforms,
/// buffers and steps, and GL error cases. Needs no module analysis.
pub fn gl_only(plan: &ExecPlan) -> Option<String> {
    let program = match plan.programs.as_slice() {
        [p] => p,
        [] => return Some("a plan without a program".into()),
        _ => return Some("several programs linked together (a GL link case)".into()),
    };
    match program.language {
        Language::Glsl => return Some("a GLSL program (Vulkan runs SPIR-V only)".into()),
        Language::Nvasm => return Some("an NV assembly program (GL only)".into()),
        Language::Spirv | Language::SpirvAsm => {}
    }
    if program.stage != Stage::Compute {
        return Some(format!("a {:?} shader (compute only)", program.stage).to_lowercase());
    }
    if plan.skip_steps_if_built {
        return Some(
            "a case that expects a build failure: a Vulkan driver need not reject invalid \
             SPIR-V (a valid-usage rule, not a reported error)"
                .into(),
        );
    }
    if !plan.uniforms.is_empty() {
        return Some("default-block uniforms (GL only)".into());
    }
    for b in &plan.buffers {
        let why = match b.kind {
            BufferKind::Storage | BufferKind::Uniform | BufferKind::Indirect => continue,
            BufferKind::AtomicCounter => "atomic counter buffers (GL only)",
            BufferKind::ProgramLocal | BufferKind::ProgramEnv | BufferKind::ParameterBuffer => {
                "NV program parameters (GL only)"
            }
            BufferKind::Image(_) => "images (not implemented in the Vulkan runner)",
            BufferKind::Texture(_) => "sampled textures (not implemented in the Vulkan runner)",
        };
        return Some(format!("buffer `{}`: {why}", b.name));
    }
    for (i, step) in plan.steps.iter().enumerate() {
        let n = i + 1;
        let size = |b: usize| plan.buffers.get(b).map(|b| b.bytes.len() as u64);
        let why = match step {
            Step::Dispatch { .. } | Step::MemoryBarrier { .. } | Step::Snapshot => continue,
            Step::Query { pname, .. } => format!("a GL query ({pname}): a GL API step"),
            Step::ProgramQuery { pname } => {
                format!("a GL program query ({pname}): a GL API step")
            }
            Step::Api(a) => format!("the GL API action `{}`", a.call().name()),
            Step::Uniform(_) => "a default-block uniform (GL only)".to_string(),
            Step::DispatchGroupSize { .. } => {
                "a variable group size dispatch (ARB_compute_variable_group_size: GL only)"
                    .to_string()
            }
            Step::DispatchIndirect { buffer: None, .. } => {
                "an indirect dispatch with no buffer bound (a GL error case)".to_string()
            }
            Step::DispatchIndirect {
                buffer: Some(b),
                offset,
            } => match size(*b) {
                Some(len) if *offset >= 0 && offset % 4 == 0 && *offset as u64 + 12 <= len => {
                    continue
                }
                _ => format!(
                    "an indirect dispatch at offset {offset}, outside its buffer or unaligned \
                     (a GL error case; invalid usage in Vulkan)"
                ),
            },
            Step::WriteBuffer {
                buffer,
                offset,
                bytes,
            } => match size(*buffer) {
                Some(len) if offset + bytes.len() as u64 > len => {
                    "a write past the end of its buffer (a GL error case; invalid usage in Vulkan)"
                        .to_string()
                }
                Some(_) if offset % 4 != 0 || bytes.len() % 4 != 0 => {
                    "a buffer write not in whole 4-byte words (vkCmdUpdateBuffer)".to_string()
                }
                Some(_) => continue,
                None => format!("a write to buffer {buffer}, which the plan lacks"),
            },
            Step::ClearBuffer { buffer } => match size(*buffer) {
                Some(len) if len % 4 == 0 => continue,
                _ => "a clear of a buffer not in whole 4-byte words (vkCmdFillBuffer)".to_string(),
            },
        };
        return Some(format!("step {n}: {why}"));
    }
    None
}

/// Whether `plan` runs on the device `info` describes, and with which descriptors: Err is
/// the skip reason.
pub fn check(plan: &ExecPlan, info: &VkInfo) -> Result<Ready, String> {
    if let Some(why) = gl_only(plan) {
        return Err(why);
    }
    let program = &plan.programs[0];
    if program.words.is_empty() {
        return Err(format!(
            "the SPIR-V program from {} has no words (not assembled?)",
            program.origin
        ));
    }
    validate(&program.words, info.api_version)?;
    let module = Module::parse(&program.words)?;
    if !module
        .entry_points
        .iter()
        .any(|(model, name)| *model == 5 && *name == program.entry)
    {
        return Err(format!(
            "no GLCompute entry point named `{}` in the module",
            program.entry
        ));
    }
    let mut needs: Vec<Need> = Vec::new();
    for &cap in &module.capabilities {
        needs.extend(translate::capability(cap)?);
    }
    for ext in &module.extensions {
        needs.extend(translate::spirv_extension(ext)?);
    }
    needs.extend(module.float_atomics.iter().map(translate::float_atomic));
    if let Some(&(sc, id)) = module.other_variables.first() {
        return Err(match sc {
            module::SC_UNIFORM_CONSTANT => format!(
                "%{id} in UniformConstant: a default-block uniform (GL only), or an image or \
                 sampler (not implemented in the Vulkan runner)"
            ),
            module::SC_ATOMIC_COUNTER => format!("%{id}: an atomic counter (GL only)"),
            module::SC_PUSH_CONSTANT => {
                format!("%{id}: push constants (no plan buffer maps to them)")
            }
            module::SC_IMAGE => format!("%{id}: an image (not implemented in the Vulkan runner)"),
            module::SC_UNIFORM => {
                format!("%{id}: a Uniform variable that is not a block (an array of blocks?)")
            }
            other => format!(
                "%{id} in {}: no descriptor for it in the Vulkan runner",
                module::storage_class_name(other)
            ),
        });
    }
    let mut descriptors: Vec<Descriptor> = Vec::new();
    for r in &module.resources {
        let (Some(set), Some(binding)) = (r.set, r.binding) else {
            return Err(format!(
                "resource %{} lacks a DescriptorSet or Binding decoration: Vulkan requires \
                 both, and the runner does not rewrite modules (docs/DRIVERS.md)",
                r.id
            ));
        };
        if set != 0 {
            return Err(format!(
                "resource %{} in DescriptorSet {set}: plan buffers have a binding only (set 0)",
                r.id
            ));
        }
        if let Some(d) = descriptors.iter().find(|d| d.binding == binding) {
            if d.kind != r.kind {
                return Err(format!(
                    "binding {binding} declared both as a storage and a uniform buffer"
                ));
            }
            continue;
        }
        let want = match r.kind {
            ResourceKind::StorageBuffer => BufferKind::Storage,
            ResourceKind::UniformBuffer => BufferKind::Uniform,
        };
        let Some(buffer) = plan
            .buffers
            .iter()
            .position(|b| b.kind == want && b.binding == binding)
        else {
            return Err(format!(
                "the module's {} at binding {binding} has no buffer in the plan (GL leaves \
                 it unbound; Vulkan needs a descriptor)",
                match r.kind {
                    ResourceKind::StorageBuffer => "storage buffer",
                    ResourceKind::UniformBuffer => "uniform buffer",
                }
            ));
        };
        descriptors.push(Descriptor {
            binding,
            kind: r.kind,
            buffer,
        });
    }
    if let Some(why) = info.first_lack(&needs) {
        return Err(why);
    }
    if let Some(why) = dispatch_limits(plan, info) {
        return Err(why);
    }
    Ok(Ready {
        module,
        descriptors,
    })
}

/// A direct dispatch above maxComputeWorkGroupCount: GL answers INVALID_VALUE, Vulkan calls
/// it invalid usage (no answer): a GL error case.
fn dispatch_limits(plan: &ExecPlan, info: &VkInfo) -> Option<String> {
    let max = info.limits.get("maxComputeWorkGroupCount")?;
    for (i, step) in plan.steps.iter().enumerate() {
        if let Step::Dispatch { groups } = step {
            if groups.iter().zip(max).any(|(g, m)| i64::from(*g) > *m) {
                return Some(format!(
                    "step {}: a dispatch of {groups:?} groups, above maxComputeWorkGroupCount \
                     {max:?} (a GL error case; invalid usage in Vulkan)",
                    i + 1
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translate::tests::lavapipe;
    use conform_plan::{BufferInit, ElemType, ProgramSource, Scalar};

    /// The GL-flavoured module of the corpus's float-add cases, assembled.
    pub(crate) const FADD: &str = "
               OpCapability Shader
               OpCapability AtomicFloat32AddEXT
               OpExtension \"SPV_EXT_shader_atomic_float_add\"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 4 1 1
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf BufferBlock
               OpDecorate %sum DescriptorSet 0
               OpDecorate %sum Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
        %arr = OpTypeRuntimeArray %float
        %Buf = OpTypeStruct %arr
    %ptr_Buf = OpTypePointer Uniform %Buf
        %sum = OpVariable %ptr_Buf Uniform
      %ptr_f = OpTypePointer Uniform %float
     %uint_0 = OpConstant %uint 0
     %device = OpConstant %uint 1
    %relaxed = OpConstant %uint 0
    %float_1 = OpConstant %float 1
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %p = OpAccessChain %ptr_f %sum %uint_0 %uint_0
          %o = OpAtomicFAddEXT %float %p %device %relaxed %float_1
               OpReturn
               OpFunctionEnd
";

    pub(crate) fn assemble(text: &str) -> Vec<u32> {
        use spirv_tools::assembler::{self, Assembler};
        assembler::create(Some(TargetEnv::Universal_1_0))
            .assemble(text, assembler::AssemblerOptions::default())
            .unwrap()
            .as_words()
            .to_vec()
    }

    pub(crate) fn plan(text: &str, steps: Vec<Step>) -> ExecPlan {
        ExecPlan {
            case: "t".into(),
            programs: vec![ProgramSource {
                language: Language::SpirvAsm,
                stage: Stage::Compute,
                text: text.into(),
                words: assemble(text),
                origin: "t.yaml".into(),
                first_line: 1,
                entry: "main".into(),
                specialization: vec![],
            }],
            buffers: vec![BufferInit {
                name: "sum".into(),
                kind: BufferKind::Storage,
                binding: 0,
                elem: ElemType::scalar(Scalar::F32),
                bytes: vec![0; 4],
            }],
            uniforms: vec![],
            steps,
            timeout_ms: 1000,
            skip_steps_if_built: false,
        }
    }

    #[test]
    fn a_gl_flavoured_float_add_module_maps_to_set_0() {
        let p = plan(FADD, vec![Step::Dispatch { groups: [1, 1, 1] }]);
        let ready = check(&p, &lavapipe()).unwrap();
        assert_eq!(
            ready.descriptors,
            [Descriptor {
                binding: 0,
                kind: ResourceKind::StorageBuffer,
                buffer: 0
            }]
        );
        let mut old = lavapipe();
        old.features
            .insert("shaderBufferFloat32AtomicAdd".into(), false);
        assert_eq!(
            check(&p, &old).unwrap_err(),
            "the feature shaderBufferFloat32AtomicAdd"
        );
    }

    #[test]
    fn what_only_gl_has_is_named() {
        let skip = |p: &ExecPlan| check(p, &lavapipe()).unwrap_err();
        let mut p = plan(FADD, vec![]);
        p.programs[0].language = Language::Glsl;
        assert_eq!(skip(&p), "a GLSL program (Vulkan runs SPIR-V only)");
        let mut p = plan(FADD, vec![]);
        p.buffers[0].kind = BufferKind::AtomicCounter;
        assert_eq!(skip(&p), "buffer `sum`: atomic counter buffers (GL only)");
        let p = plan(
            FADD,
            vec![Step::Api(
                conform_plan::ApiAction::parse("use_no_program", &[]).unwrap(),
            )],
        );
        assert_eq!(skip(&p), "step 1: the GL API action `use_no_program`");
        let p = plan(
            FADD,
            vec![Step::DispatchIndirect {
                buffer: None,
                offset: 0,
            }],
        );
        assert!(skip(&p).contains("a GL error case"));
        let p = plan(
            FADD,
            vec![Step::WriteBuffer {
                buffer: 0,
                offset: 4,
                bytes: vec![0; 4],
            }],
        );
        assert!(skip(&p).contains("past the end"));
        let mut p = plan(FADD, vec![]);
        p.skip_steps_if_built = true;
        assert!(skip(&p).contains("expects a build failure"));
        // No DescriptorSet: Vulkan needs one (spirv-val says so first), and the runner does
        // not add it.
        let p = plan(&FADD.replace("OpDecorate %sum DescriptorSet 0", ""), vec![]);
        assert!(
            skip(&p).contains("missing DescriptorSet decoration"),
            "{}",
            skip(&p)
        );
        // A resource at a binding the plan has no buffer for.
        let mut p = plan(FADD, vec![]);
        p.buffers[0].binding = 1;
        assert!(skip(&p).contains("at binding 0 has no buffer"));
    }

    #[test]
    fn an_invalid_module_is_named_with_spirv_val_s_message() {
        let p = plan(
            &FADD.replace("OpCapability AtomicFloat32AddEXT", ""),
            vec![],
        );
        let why = check(&p, &lavapipe()).unwrap_err();
        assert!(
            why.starts_with("not valid SPIR-V in the Vulkan 1.3 environment"),
            "{why}"
        );
    }
}
