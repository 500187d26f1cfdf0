//! Requirements in Vulkan's terms: what a SPIR-V capability, a SPIR-V extension, a GL
//! extension or a GL limit a case names needs of a Vulkan device, and whether a device
//! ([`VkInfo`]) has it. A requirement with no translation is a skip that names it.

use crate::module::{capability_name, AtomicOp, FloatAtomic};
use crate::VkInfo;

/// One thing a device must offer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Need {
    /// A core Vulkan version.
    Version(u32, u32),
    /// A device extension.
    Extension(&'static str),
    /// A device extension, or the core version that absorbed it.
    ExtensionOrVersion(&'static str, u32, u32),
    /// A feature, by its Vulkan name (`shaderFloat64`), reported by the probe.
    Feature(String),
    /// A subgroup operation class in the compute stage (`basic`, `vote`, `ballot`...).
    Subgroup(&'static str),
    /// A limit of at least the values given (a `[x, y, z]` limit: each component).
    Limit(&'static str, i64),
}

impl Need {
    fn feature(name: &str) -> Need {
        Need::Feature(name.to_string())
    }
}

/// The device extension (or core version) a SPIR-V extension needs in Vulkan.
pub fn spirv_extension(name: &str) -> Result<Vec<Need>, String> {
    use Need::*;
    Ok(match name {
        "SPV_EXT_shader_atomic_float_add" => vec![Extension("VK_EXT_shader_atomic_float")],
        "SPV_EXT_shader_atomic_float_min_max" | "SPV_EXT_shader_atomic_float16_add" => {
            vec![Extension("VK_EXT_shader_atomic_float2")]
        }
        "SPV_KHR_storage_buffer_storage_class" => {
            vec![ExtensionOrVersion(
                "VK_KHR_storage_buffer_storage_class",
                1,
                1,
            )]
        }
        "SPV_KHR_shader_draw_parameters" => {
            vec![ExtensionOrVersion("VK_KHR_shader_draw_parameters", 1, 1)]
        }
        "SPV_KHR_16bit_storage" => vec![ExtensionOrVersion("VK_KHR_16bit_storage", 1, 1)],
        "SPV_KHR_8bit_storage" => vec![ExtensionOrVersion("VK_KHR_8bit_storage", 1, 2)],
        "SPV_KHR_variable_pointers" => vec![ExtensionOrVersion("VK_KHR_variable_pointers", 1, 1)],
        "SPV_KHR_vulkan_memory_model" => {
            vec![ExtensionOrVersion("VK_KHR_vulkan_memory_model", 1, 2)]
        }
        "SPV_KHR_shader_ballot" => vec![Extension("VK_EXT_shader_subgroup_ballot")],
        "SPV_KHR_subgroup_vote" => vec![Extension("VK_EXT_shader_subgroup_vote")],
        "SPV_KHR_float_controls" => vec![ExtensionOrVersion("VK_KHR_shader_float_controls", 1, 2)],
        other => {
            return Err(format!(
                "{other}: conform knows no Vulkan device extension for it"
            ))
        }
    })
}

/// What a GL extension a case requires means for a SPIR-V program on Vulkan.
pub fn gl_extension(name: &str) -> Result<Vec<Need>, String> {
    use Need::*;
    Ok(match name {
        // What SPIR-V on Vulkan has by definition: compute, storage buffers, SPIR-V itself.
        "GL_ARB_gl_spirv"
        | "GL_ARB_spirv_extensions"
        | "GL_ARB_compute_shader"
        | "GL_ARB_shader_storage_buffer_object"
        | "GL_ARB_uniform_buffer_object" => vec![],
        "GL_ARB_gpu_shader_fp64" => vec![Need::feature("shaderFloat64")],
        "GL_ARB_gpu_shader_int64" => vec![Need::feature("shaderInt64")],
        "GL_KHR_shader_subgroup" => vec![Subgroup("basic")],
        "GL_ARB_shader_ballot" => vec![Extension("VK_EXT_shader_subgroup_ballot")],
        "GL_ARB_shader_group_vote" => vec![Extension("VK_EXT_shader_subgroup_vote")],
        other => {
            return Err(format!(
                "{other}: a GL extension with no Vulkan translation in conform"
            ))
        }
    })
}

/// The Vulkan limit of a GL limit a case requires (`MAX_COMPUTE_SHARED_MEMORY_SIZE` →
/// `maxComputeSharedMemorySize`).
pub fn gl_limit(name: &str) -> Result<&'static str, String> {
    let key = name.strip_prefix("GL_").unwrap_or(name);
    Ok(match key {
        "MAX_COMPUTE_SHARED_MEMORY_SIZE" => "maxComputeSharedMemorySize",
        "MAX_COMPUTE_WORK_GROUP_INVOCATIONS" => "maxComputeWorkGroupInvocations",
        "MAX_COMPUTE_WORK_GROUP_SIZE" => "maxComputeWorkGroupSize",
        "MAX_COMPUTE_WORK_GROUP_COUNT" => "maxComputeWorkGroupCount",
        "MAX_SHADER_STORAGE_BLOCK_SIZE" => "maxStorageBufferRange",
        "MAX_UNIFORM_BLOCK_SIZE" => "maxUniformBufferRange",
        "MAX_COMPUTE_SHADER_STORAGE_BLOCKS" | "MAX_SHADER_STORAGE_BUFFER_BINDINGS" => {
            "maxPerStageDescriptorStorageBuffers"
        }
        "MAX_COMPUTE_UNIFORM_BLOCKS" | "MAX_UNIFORM_BUFFER_BINDINGS" => {
            "maxPerStageDescriptorUniformBuffers"
        }
        other => {
            return Err(format!(
                "the limit {other}: no Vulkan limit conform translates it to"
            ))
        }
    })
}

/// What a SPIR-V capability needs in Vulkan. The float atomic capabilities need nothing by
/// themselves: each float atomic instruction needs its feature ([`float_atomic`]), since a
/// device may offer buffer atomics and not workgroup ones.
pub fn capability(cap: u32) -> Result<Vec<Need>, String> {
    use Need::*;
    let f = Need::feature;
    Ok(match cap {
        // Matrix, Shader, ImageQuery, Image1D, ImageBuffer (core in Vulkan; images are
        // checked in support.rs), the float atomic capabilities, GroupNonUniform is below.
        0 | 1 | 50 | 44 | 47 | 6033 | 6034 | 6095 | 5612 | 5613 | 5616 => vec![],
        49 => vec![f("shaderStorageImageExtendedFormats")],
        55 => vec![f("shaderStorageImageReadWithoutFormat")],
        56 => vec![f("shaderStorageImageWriteWithoutFormat")],
        9 => vec![f("shaderFloat16")],
        10 => vec![f("shaderFloat64")],
        11 => vec![f("shaderInt64")],
        12 => vec![f("shaderBufferInt64Atomics")],
        22 => vec![f("shaderInt16")],
        39 => vec![f("shaderInt8")],
        4433 => vec![f("storageBuffer16BitAccess")],
        4434 => vec![f("uniformAndStorageBuffer16BitAccess")],
        4448 => vec![f("storageBuffer8BitAccess")],
        4449 => vec![f("uniformAndStorageBuffer8BitAccess")],
        4423 => vec![Extension("VK_EXT_shader_subgroup_ballot")],
        4431 => vec![Extension("VK_EXT_shader_subgroup_vote")],
        5345 => vec![f("vulkanMemoryModel")],
        5346 => vec![f("vulkanMemoryModelDeviceScope")],
        61 => vec![Version(1, 1), Subgroup("basic")],
        62 => vec![Version(1, 1), Subgroup("vote")],
        63 => vec![Version(1, 1), Subgroup("arithmetic")],
        64 => vec![Version(1, 1), Subgroup("ballot")],
        65 => vec![Version(1, 1), Subgroup("shuffle")],
        66 => vec![Version(1, 1), Subgroup("shuffle_relative")],
        67 => vec![Version(1, 1), Subgroup("clustered")],
        68 => vec![Version(1, 1), Subgroup("quad")],
        21 => return Err("atomic counters (AtomicStorage: GL only)".into()),
        other => {
            return Err(format!(
                "the capability {}: no Vulkan feature conform translates it to",
                capability_name(other)
            ))
        }
    })
}

/// The feature a float atomic instruction needs (VK_EXT_shader_atomic_float and
/// VK_EXT_shader_atomic_float2): `shaderBufferFloat32AtomicAdd`, `shaderSharedFloat64AtomicMinMax`...
pub fn float_atomic(a: &FloatAtomic) -> Need {
    let place = if a.shared { "Shared" } else { "Buffer" };
    let what = match a.op {
        AtomicOp::Add => "AtomicAdd",
        AtomicOp::MinMax => "AtomicMinMax",
        AtomicOp::LoadStoreExchange => "Atomics",
    };
    Need::Feature(format!("shader{place}Float{}{what}", a.width))
}

impl VkInfo {
    /// Why the device lacks `need`, or None when it has it.
    pub fn lacks(&self, need: &Need) -> Option<String> {
        let (major, minor, _) = self.api_version;
        match need {
            Need::Version(a, b) if !self.at_least(*a, *b) => {
                Some(format!("Vulkan {a}.{b} (device has {major}.{minor})"))
            }
            Need::Extension(e) if !self.extensions.contains(*e) => {
                Some(format!("the device extension {e}"))
            }
            Need::ExtensionOrVersion(e, a, b)
                if !self.extensions.contains(*e) && !self.at_least(*a, *b) =>
            {
                Some(format!(
                    "the device extension {e} or Vulkan {a}.{b} (device has {major}.{minor})"
                ))
            }
            Need::Feature(f) if !self.has_feature(f) => Some(format!(
                "the feature {f}{}",
                if self.features.contains_key(f) {
                    ""
                } else {
                    " (not probed)"
                }
            )),
            Need::Subgroup(op) if !self.subgroups.in_compute => {
                Some(format!("subgroup operations ({op}) in the compute stage"))
            }
            Need::Subgroup(op) if !self.subgroups.operations.contains(*op) => {
                Some(format!("the subgroup operations `{op}`"))
            }
            Need::Limit(name, min) => match self.limits.get(*name) {
                Some(v) if v.iter().all(|x| x >= min) => None,
                Some(v) => Some(format!("{name} >= {min} (device has {v:?})")),
                None => Some(format!("{name} >= {min} (not probed)")),
            },
            _ => None,
        }
    }

    /// The first of `needs` the device lacks.
    pub fn first_lack(&self, needs: &[Need]) -> Option<String> {
        needs.iter().find_map(|n| self.lacks(n))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{Subgroups, VkDriver};

    /// lavapipe 22.3.6 as far as these tests need it.
    pub(crate) fn lavapipe() -> VkInfo {
        VkInfo {
            driver: VkDriver::Lavapipe,
            device_name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            driver_name: "llvmpipe".into(),
            driver_info: "Mesa 22.3.6 (LLVM 15.0.6)".into(),
            driver_version: "22.3.6".into(),
            api_version: (1, 3, 230),
            conformance_version: "1.3.1.1".into(),
            extensions: ["VK_EXT_shader_atomic_float", "VK_EXT_shader_atomic_float2"]
                .into_iter()
                .map(String::from)
                .collect(),
            features: [
                ("shaderBufferFloat32AtomicAdd", true),
                ("shaderSharedFloat32AtomicAdd", true),
                ("shaderBufferFloat64AtomicAdd", false),
                ("shaderFloat64", true),
                ("pipelineRobustness", true),
                ("robustImageAccess", true),
                ("robustImageAccess2", true),
                ("robustBufferAccess2", true),
                ("shaderStorageBufferArrayDynamicIndexing", true),
                ("shaderUniformBufferArrayDynamicIndexing", true),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            subgroups: Subgroups {
                size: 8,
                in_compute: true,
                operations: ["basic", "vote", "ballot"]
                    .into_iter()
                    .map(String::from)
                    .collect(),
            },
            limits: [
                ("maxComputeSharedMemorySize", vec![32768]),
                ("maxImageDimension1D", vec![16384]),
                ("maxImageDimension2D", vec![16384]),
                ("maxImageDimension3D", vec![2048]),
                ("maxImageArrayLayers", vec![2048]),
                ("maxTexelBufferElements", vec![134217728]),
                ("minTexelBufferOffsetAlignment", vec![16]),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            libraries: Vec::new(),
            // Every format for storage images and texel buffers, atomics on r32ui and r32i.
            formats: conform_plan::ImageFormat::ALL
                .into_iter()
                .map(|f| {
                    let atomic = matches!(
                        f,
                        conform_plan::ImageFormat::R32ui | conform_plan::ImageFormat::R32i
                    );
                    let s = crate::FormatSupport {
                        storage_image: true,
                        storage_image_atomic: atomic,
                        storage_texel_buffer: true,
                        storage_texel_buffer_atomic: atomic,
                    };
                    (f.name().to_string(), s)
                })
                .collect(),
        }
    }

    #[test]
    fn spirv_extensions_become_device_extensions() {
        let info = lavapipe();
        let needs = spirv_extension("SPV_EXT_shader_atomic_float_add").unwrap();
        assert_eq!(needs, [Need::Extension("VK_EXT_shader_atomic_float")]);
        assert_eq!(info.first_lack(&needs), None);
        let mut old = lavapipe();
        old.extensions.clear();
        assert_eq!(
            old.first_lack(&needs).as_deref(),
            Some("the device extension VK_EXT_shader_atomic_float")
        );
        // Core since 1.1: the extension's absence does not matter on a 1.3 device.
        let needs = spirv_extension("SPV_KHR_storage_buffer_storage_class").unwrap();
        assert_eq!(info.first_lack(&needs), None);
        assert!(spirv_extension("SPV_AMD_gpu_shader_half_float")
            .unwrap_err()
            .contains("no Vulkan device extension"));
    }

    #[test]
    fn float_atomics_need_their_own_feature() {
        let info = lavapipe();
        let a = |op, shared, width| float_atomic(&FloatAtomic { op, shared, width });
        assert_eq!(
            a(AtomicOp::Add, false, 32),
            Need::Feature("shaderBufferFloat32AtomicAdd".into())
        );
        assert_eq!(info.lacks(&a(AtomicOp::Add, true, 32)), None);
        assert_eq!(
            info.lacks(&a(AtomicOp::Add, false, 64)).as_deref(),
            Some("the feature shaderBufferFloat64AtomicAdd")
        );
        assert_eq!(
            info.lacks(&a(AtomicOp::MinMax, true, 16)).as_deref(),
            Some("the feature shaderSharedFloat16AtomicMinMax (not probed)")
        );
    }

    #[test]
    fn capabilities_gl_extensions_and_limits_translate_or_name_themselves() {
        let info = lavapipe();
        assert_eq!(capability(10).unwrap(), [Need::feature("shaderFloat64")]);
        assert!(capability(21).unwrap_err().contains("atomic counters"));
        assert!(capability(6).unwrap_err().contains("Kernel"));
        assert_eq!(
            info.first_lack(&capability(63).unwrap()).as_deref(),
            Some("the subgroup operations `arithmetic`")
        );
        assert_eq!(gl_extension("GL_ARB_gl_spirv").unwrap(), []);
        assert_eq!(
            gl_extension("GL_ARB_gpu_shader_fp64").unwrap(),
            [Need::feature("shaderFloat64")]
        );
        assert!(gl_extension("GL_NV_shader_thread_shuffle").is_err());
        assert_eq!(
            gl_limit("MAX_COMPUTE_SHARED_MEMORY_SIZE"),
            Ok("maxComputeSharedMemorySize")
        );
        assert_eq!(
            info.lacks(&Need::Limit("maxComputeSharedMemorySize", 49152))
                .as_deref(),
            Some("maxComputeSharedMemorySize >= 49152 (device has [32768])")
        );
        assert!(gl_limit("MAX_COMPUTE_ATOMIC_COUNTERS").is_err());
    }
}
