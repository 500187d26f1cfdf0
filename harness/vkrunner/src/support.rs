//! Whether a plan can run on a Vulkan device, and how: the skip reason that names what only
//! GL has (or what the device lacks), or the descriptor layout the plan's buffers fill.
//! Pure: the parent checks plans with it before sending them (a skip), the worker again
//! before running them (a plan sent with `--force` is refused with the same reason).

use crate::formats;
use crate::module::{self, Module, Resource, ResourceKind};
use crate::translate::{self, Need};
use crate::VkInfo;
use conform_plan::{
    BufferInit, BufferKind, ExecPlan, ImageDesc, ImageDim, ImageFormat, Language, Stage, Step,
};
use spirv_tools::val::{self, Validator};
use spirv_tools::TargetEnv;

/// One binding of set 0: its Vulkan binding, the GL binding (buffer binding or image unit)
/// the plan names, its kind, and the plan buffer of each array element (one unless the
/// module declares an array of blocks or images: element k is GL binding `gl_binding + k`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor {
    pub binding: u32,
    pub gl_binding: u32,
    pub kind: ResourceKind,
    pub buffers: Vec<usize>,
}

/// A plan the device can run: its module's facts, its descriptor set 0, and the module's
/// words with the bindings moved where GL's namespaces collide in Vulkan's one.
#[derive(Clone, Debug)]
pub struct Ready {
    pub module: Module,
    pub descriptors: Vec<Descriptor>,
    pub words: Vec<u32>,
}

impl Ready {
    /// Whether the plan has a storage image / a buffer image: its pipeline asks for GL's
    /// out-of-bounds image accesses (exec.rs).
    pub fn has(&self, kind: ResourceKind) -> bool {
        self.descriptors.iter().any(|d| d.kind == kind)
    }
}

/// GL's binding namespace of a resource kind: storage buffers, uniform buffers, image units.
fn namespace(kind: ResourceKind) -> u8 {
    match kind {
        ResourceKind::StorageBuffer => 0,
        ResourceKind::UniformBuffer => 1,
        ResourceKind::StorageImage | ResourceKind::StorageTexelBuffer => 2,
    }
}

/// Whether plan buffer `kind` is in the namespace of `resource`.
fn in_namespace(kind: &BufferKind, resource: ResourceKind) -> bool {
    match kind {
        BufferKind::Storage => namespace(resource) == 0,
        BufferKind::Uniform => namespace(resource) == 1,
        BufferKind::Image(_) => namespace(resource) == 2,
        _ => false,
    }
}

/// Why the image `b` cannot be array element `k` of `r`, the module's image at GL unit
/// `unit`, on `info`'s device; and what it needs of the device.
fn image_lack(
    r: &Resource,
    unit: u32,
    b: &BufferInit,
    desc: &ImageDesc,
    module: &Module,
    info: &VkInfo,
    needs: &mut Vec<Need>,
) -> Option<String> {
    let t = r.image?;
    let at = format!("image `{}` (unit {unit})", b.name);
    if formats::spirv_dim(desc.dim) != (t.dim, t.arrayed) {
        return Some(format!(
            "{at} is {}, the module's image there is {}: the view type must match the \
             OpTypeImage (invalid usage in Vulkan)",
            desc.dim.name(),
            formats::type_name(&t)
        ));
    }
    match (t.format, formats::spirv_format(t.format)) {
        (0, _) => {}
        (_, Some(f)) if f == desc.format => {}
        (op, f) => {
            return Some(format!(
                "{at} is {}, the module declares its image {}: a format mismatch (undefined \
                 values in GL; in Vulkan the Image Format must match the view's format, a \
                 valid-usage rule, not a defined result)",
                desc.format,
                f.map(|f| f.name().to_string())
                    .unwrap_or_else(|| format!("of SPIR-V Image Format {op}"))
            ))
        }
    }
    let support = info
        .formats
        .get(desc.format.name())
        .copied()
        .unwrap_or_default();
    let atomics = module.image_atomics
        && matches!(
            desc.format,
            ImageFormat::R32ui | ImageFormat::R32i | ImageFormat::R32f
        );
    let buffer = desc.dim == ImageDim::Buffer;
    let (plain, atomic, what) = if buffer {
        (
            support.storage_texel_buffer,
            support.storage_texel_buffer_atomic,
            "storage texel buffers",
        )
    } else {
        (
            support.storage_image,
            support.storage_image_atomic,
            "storage images",
        )
    };
    if !plain || (atomics && !atomic) {
        return Some(format!(
            "the format {} for {what}{} (vkGetPhysicalDeviceFormatProperties)",
            desc.format,
            if plain { " with atomics" } else { "" }
        ));
    }
    if buffer {
        // GL defines out-of-bounds texel accesses (zero, no effect): robustBufferAccess2
        // (per pipeline, or on the worker's robust device: exec.rs).
        needs.push(Need::Feature("robustBufferAccess2".into()));
        let offset = desc.view_offset();
        let texels = desc.view_size()[0];
        let align = info
            .limits
            .get("minTexelBufferOffsetAlignment")
            .and_then(|v| v.first())
            .copied()
            .unwrap_or(1)
            .max(1) as u64;
        if texels == 0 {
            return Some(format!(
                "{at}: a buffer image of no texels (no Vulkan buffer view)"
            ));
        }
        if !offset.is_multiple_of(align) {
            return Some(format!(
                "{at}: a buffer range at offset {offset}, not a multiple of \
                 minTexelBufferOffsetAlignment {align}"
            ));
        }
        needs.push(Need::Limit("maxTexelBufferElements", i64::from(texels)));
    } else {
        needs.push(Need::Feature("robustImageAccess".into()));
        let [w, h, d] = desc.size.map(i64::from);
        match desc.dim {
            ImageDim::D1 => needs.push(Need::Limit("maxImageDimension1D", w)),
            ImageDim::D2 => needs.push(Need::Limit("maxImageDimension2D", w.max(h))),
            ImageDim::D3 => needs.push(Need::Limit("maxImageDimension3D", w.max(h).max(d))),
            ImageDim::D2Array => {
                needs.push(Need::Limit("maxImageDimension2D", w.max(h)));
                needs.push(Need::Limit("maxImageArrayLayers", d));
            }
            ImageDim::Buffer => {}
        }
    }
    None
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
            BufferKind::Storage
            | BufferKind::Uniform
            | BufferKind::Indirect
            | BufferKind::Image(_) => continue,
            BufferKind::AtomicCounter => "atomic counter buffers (GL only)",
            BufferKind::ProgramLocal | BufferKind::ProgramEnv | BufferKind::ParameterBuffer => {
                "NV program parameters (GL only)"
            }
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
                "%{id} in UniformConstant: a default-block uniform (GL only), or a sampled \
                 image or sampler (not implemented in the Vulkan runner)"
            ),
            module::SC_ATOMIC_COUNTER => format!("%{id}: an atomic counter (GL only)"),
            module::SC_PUSH_CONSTANT => {
                format!("%{id}: push constants (no plan buffer maps to them)")
            }
            module::SC_IMAGE => format!("%{id}: an image (not implemented in the Vulkan runner)"),
            module::SC_UNIFORM => {
                format!("%{id}: a Uniform variable that is not a block or an array of blocks")
            }
            other => format!(
                "%{id} in {}: no descriptor for it in the Vulkan runner",
                module::storage_class_name(other)
            ),
        });
    }
    let mut descriptors: Vec<Descriptor> = Vec::new();
    // Variables whose Binding moves: GL's namespaces share Vulkan's one binding space.
    let mut moves: Vec<(u32, u32)> = Vec::new();
    let mut next = module
        .resources
        .iter()
        .filter_map(|r| r.binding)
        .max()
        .map_or(0, |b| b + 1);
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
        if let Some(d) = descriptors
            .iter()
            .find(|d| d.gl_binding == binding && namespace(d.kind) == namespace(r.kind))
        {
            if d.kind != r.kind || d.buffers.len() != r.count as usize {
                return Err(format!(
                    "binding {binding} declared both as {} {} and as {} {}",
                    d.buffers.len(),
                    d.kind.name(),
                    r.count,
                    r.kind.name()
                ));
            }
            if d.binding != binding {
                moves.push((r.id, d.binding));
            }
            continue;
        }
        let mut buffers = Vec::new();
        for k in 0..r.count {
            let gl = binding + k;
            let element = if r.count > 1 {
                format!(" (element {k} of an array of {})", r.count)
            } else {
                String::new()
            };
            let Some(buffer) = plan
                .buffers
                .iter()
                .position(|b| in_namespace(&b.kind, r.kind) && b.binding == gl)
            else {
                return Err(format!(
                    "the module's {} at binding {gl}{element} has no buffer in the plan (GL \
                     leaves it unbound; Vulkan needs a descriptor)",
                    r.kind.name()
                ));
            };
            let b = &plan.buffers[buffer];
            if let BufferKind::Image(desc) = &b.kind {
                if let Some(why) = image_lack(r, gl, b, desc, &module, info, &mut needs) {
                    return Err(why);
                }
            }
            buffers.push(buffer);
        }
        if r.count > 1 {
            // The array may be indexed dynamically: Vulkan needs the feature then.
            match r.kind {
                ResourceKind::StorageBuffer => needs.push(Need::Feature(
                    "shaderStorageBufferArrayDynamicIndexing".into(),
                )),
                ResourceKind::UniformBuffer => needs.push(Need::Feature(
                    "shaderUniformBufferArrayDynamicIndexing".into(),
                )),
                _ => {
                    return Err(format!(
                        "an array of {} {}s at binding {binding} (not implemented in the Vulkan \
                         runner)",
                        r.count,
                        r.kind.name()
                    ))
                }
            }
        }
        let vk_binding = if descriptors.iter().any(|d| d.binding == binding) {
            next += 1;
            moves.push((r.id, next - 1));
            next - 1
        } else {
            binding
        };
        descriptors.push(Descriptor {
            binding: vk_binding,
            gl_binding: binding,
            kind: r.kind,
            buffers,
        });
    }
    if let Some(why) = info.first_lack(&needs) {
        return Err(why);
    }
    if let Some(why) = dispatch_limits(plan, info) {
        return Err(why);
    }
    let words = if moves.is_empty() {
        program.words.clone()
    } else {
        module::rebind(&program.words, &moves)
    };
    Ok(Ready {
        module,
        descriptors,
        words,
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
    use conform_plan::{ElemType, ProgramSource, Scalar};

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
                gl_binding: 0,
                kind: ResourceKind::StorageBuffer,
                buffers: vec![0],
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

    /// An r32ui 2D image at unit 0, an SSBO at binding 0 (GL: two namespaces) and an array
    /// of two uniform blocks at bindings 1 and 2.
    const BINDINGS: &str = "
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %img DescriptorSet 0
               OpDecorate %img Binding 0
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf BufferBlock
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
               OpMemberDecorate %P 0 Offset 0
               OpDecorate %P Block
               OpDecorate %params DescriptorSet 0
               OpDecorate %params Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
       %timg = OpTypeImage %uint 2D 0 0 0 2 R32ui
       %pimg = OpTypePointer UniformConstant %timg
        %img = OpVariable %pimg UniformConstant
        %Buf = OpTypeStruct %uint
       %pbuf = OpTypePointer Uniform %Buf
        %out = OpVariable %pbuf Uniform
          %P = OpTypeStruct %uint
      %arr_P = OpTypeArray %P %uint_2
       %parr = OpTypePointer Uniform %arr_P
     %params = OpVariable %parr Uniform
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
";

    fn bindings_plan(format: ImageFormat) -> ExecPlan {
        let mut p = plan(BINDINGS, vec![]);
        let buffer = |name: &str, kind, binding| BufferInit {
            name: name.into(),
            kind,
            binding,
            elem: ElemType::scalar(Scalar::U32),
            bytes: vec![0; 4],
        };
        p.buffers = vec![
            buffer(
                "img",
                BufferKind::Image(ImageDesc {
                    dim: ImageDim::D2,
                    format,
                    size: [1, 1, 1],
                    range: None,
                }),
                0,
            ),
            buffer("out", BufferKind::Storage, 0),
            buffer("p1", BufferKind::Uniform, 1),
            buffer("p0", BufferKind::Uniform, 2),
        ];
        p
    }

    #[test]
    fn gl_namespaces_and_arrays_of_blocks_map_to_vulkan_bindings() {
        let p = bindings_plan(ImageFormat::R32ui);
        let ready = check(&p, &lavapipe()).unwrap();
        // The image keeps binding 0; the SSBO, also GL binding 0, moves past every GL
        // binding of the module (2); the array of blocks is one binding of two elements:
        // element k is the uniform buffer at GL binding 1 + k.
        let d = |binding, gl_binding, kind, buffers: &[usize]| Descriptor {
            binding,
            gl_binding,
            kind,
            buffers: buffers.to_vec(),
        };
        assert_eq!(
            ready.descriptors,
            [
                d(0, 0, ResourceKind::StorageImage, &[0]),
                d(2, 0, ResourceKind::StorageBuffer, &[1]),
                d(1, 1, ResourceKind::UniformBuffer, &[2, 3]),
            ]
        );
        let moved = Module::parse(&ready.words).unwrap();
        let binding_of = |id| {
            moved
                .resources
                .iter()
                .find(|r| r.id == id)
                .and_then(|r| r.binding)
        };
        let ids: Vec<u32> = ready.module.resources.iter().map(|r| r.id).collect();
        assert_eq!(
            ids.iter().map(|&id| binding_of(id)).collect::<Vec<_>>(),
            [Some(0), Some(2), Some(1)]
        );
        // A missing element of the array is named.
        let mut p = bindings_plan(ImageFormat::R32ui);
        p.buffers.pop();
        assert!(
            check(&p, &lavapipe())
                .unwrap_err()
                .contains("at binding 2 (element 1 of an array of 2) has no buffer"),
            "{}",
            check(&p, &lavapipe()).unwrap_err()
        );
    }

    #[test]
    fn image_formats_and_types_are_checked() {
        let skip = |p: &ExecPlan, info: &VkInfo| check(p, info).unwrap_err();
        // The module declares R32ui: an r32f image is a format mismatch.
        let p = bindings_plan(ImageFormat::R32f);
        assert!(
            skip(&p, &lavapipe()).contains("a format mismatch"),
            "{}",
            skip(&p, &lavapipe())
        );
        // A 2D array image for a 2D OpTypeImage.
        let mut p = bindings_plan(ImageFormat::R32ui);
        if let BufferKind::Image(desc) = &mut p.buffers[0].kind {
            desc.dim = ImageDim::D2Array;
        }
        assert!(skip(&p, &lavapipe()).contains("is 2d_array, the module's image there is 2D"));
        // A format the device has no storage images of is a skip by name.
        let mut info = lavapipe();
        info.formats.insert("r32ui".into(), Default::default());
        assert_eq!(
            skip(&bindings_plan(ImageFormat::R32ui), &info),
            "the format r32ui for storage images (vkGetPhysicalDeviceFormatProperties)"
        );
        let mut info = lavapipe();
        info.features.insert("robustImageAccess".into(), false);
        assert_eq!(
            skip(&bindings_plan(ImageFormat::R32ui), &info),
            "the feature robustImageAccess"
        );
    }
}
