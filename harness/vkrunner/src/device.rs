//! A worker's Vulkan device: the loader opened at run time, one instance, the physical
//! device of the asked-for driver (by `driverID`), a logical device with every feature
//! conform translates requirements to that the device supports, one compute queue; and its
//! description ([`VkInfo`]) for the harness.

use crate::formats;
use crate::{FormatSupport, Subgroups, VkDriver, VkInfo};
use ash::vk;
use conform_plan::ImageFormat;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{c_char, CStr};

/// Device extensions enabled when the device has them: the ones requirements translate to
/// ([`crate::translate`]). Enabling an extension changes nothing for a module that does not
/// use it.
const OPTIONAL_EXTENSIONS: &[&CStr] = &[
    c"VK_EXT_shader_atomic_float",
    c"VK_EXT_shader_atomic_float2",
    c"VK_EXT_shader_subgroup_ballot",
    c"VK_EXT_shader_subgroup_vote",
    c"VK_KHR_shader_float_controls",
    c"VK_KHR_8bit_storage",
    c"VK_KHR_16bit_storage",
    c"VK_KHR_storage_buffer_storage_class",
    c"VK_KHR_variable_pointers",
    c"VK_KHR_vulkan_memory_model",
    c"VK_KHR_shader_float16_int8",
    c"VK_EXT_pipeline_robustness",
    c"VK_EXT_image_robustness",
];

/// The open device.
pub(crate) struct Device {
    // Kept alive: the loader library must outlive the instance.
    _entry: ash::Entry,
    pub instance: ash::Instance,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub queue_family: u32,
    pub memory: vk::PhysicalDeviceMemoryProperties,
    pub info: VkInfo,
    /// Whether the device was opened with robustBufferAccess and robustBufferAccess2 (for
    /// the plans with buffer images where the device lacks pipeline robustness).
    pub robust: bool,
}

fn c_text(s: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    s.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn version_triple(v: u32) -> (u32, u32, u32) {
    (
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v),
    )
}

/// driverVersion as the driver encodes it: NVIDIA packs 10.8.8.6 bits, Mesa and most
/// others use the Vulkan version encoding.
fn driver_version(driver_id: vk::DriverId, v: u32) -> String {
    if driver_id == vk::DriverId::NVIDIA_PROPRIETARY {
        format!(
            "{}.{}.{}.{}",
            v >> 22,
            (v >> 14) & 0xff,
            (v >> 6) & 0xff,
            v & 0x3f
        )
    } else {
        let (a, b, c) = version_triple(v);
        format!("{a}.{b}.{c}")
    }
}

/// The subgroup operation flags by conform's names.
fn subgroup_operations(f: vk::SubgroupFeatureFlags) -> BTreeSet<String> {
    [
        (vk::SubgroupFeatureFlags::BASIC, "basic"),
        (vk::SubgroupFeatureFlags::VOTE, "vote"),
        (vk::SubgroupFeatureFlags::ARITHMETIC, "arithmetic"),
        (vk::SubgroupFeatureFlags::BALLOT, "ballot"),
        (vk::SubgroupFeatureFlags::SHUFFLE, "shuffle"),
        (
            vk::SubgroupFeatureFlags::SHUFFLE_RELATIVE,
            "shuffle_relative",
        ),
        (vk::SubgroupFeatureFlags::CLUSTERED, "clustered"),
        (vk::SubgroupFeatureFlags::QUAD, "quad"),
    ]
    .into_iter()
    .filter(|(flag, _)| f.contains(*flag))
    .map(|(_, n)| n.to_string())
    .collect()
}

impl Device {
    /// Opens the loader, the instance and the device of `driver`; Err says why not (no
    /// loader, no such device, a failed call).
    pub fn open(driver: VkDriver, robust: bool) -> Result<Device, String> {
        // SAFETY: loading the system's Vulkan loader library; its initialisation has no
        // preconditions of ours.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| format!("no Vulkan loader (libvulkan.so.1): {e}"))?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"conform")
            .api_version(vk::make_api_version(0, 1, 3, 0));
        let create = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a valid create info without layers or extensions.
        let instance = unsafe { entry.create_instance(&create, None) }
            .map_err(|e| format!("vkCreateInstance failed: {e}"))?;
        match Self::open_device(entry.clone(), instance.clone(), driver, robust) {
            Ok(d) => Ok(d),
            Err(e) => {
                // SAFETY: no object of the instance exists any more.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn open_device(
        entry: ash::Entry,
        instance: ash::Instance,
        driver: VkDriver,
        robust: bool,
    ) -> Result<Device, String> {
        // SAFETY: a live instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| format!("vkEnumeratePhysicalDevices failed: {e}"))?;
        let mut seen = Vec::new();
        let mut chosen = None;
        for pd in physicals {
            // SAFETY: a physical device of the live instance.
            let props = unsafe { instance.get_physical_device_properties(pd) };
            let name = c_text(props.device_name_as_c_str());
            if props.api_version < vk::API_VERSION_1_1 {
                seen.push(format!("{name} (Vulkan 1.0: no driver properties)"));
                continue;
            }
            let mut drv = vk::PhysicalDeviceDriverProperties::default();
            let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut drv);
            // SAFETY: as above; the chain holds one live structure.
            unsafe { instance.get_physical_device_properties2(pd, &mut p2) };
            seen.push(format!("{name} ({})", c_text(drv.driver_name_as_c_str())));
            if drv.driver_id.as_raw() == driver.driver_id() && chosen.is_none() {
                chosen = Some(pd);
            }
        }
        let Some(physical) = chosen else {
            return Err(format!(
                "no Vulkan device of driver {driver} (driver ID {}); devices: {}",
                driver.driver_id(),
                if seen.is_empty() {
                    "none".to_string()
                } else {
                    seen.join(", ")
                }
            ));
        };
        let mut info = describe(&instance, physical, driver)?;
        // SAFETY: a physical device of the live instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("the device has no compute queue")? as u32;
        let robustness2: &[&CStr] = if robust {
            &[c"VK_EXT_robustness2"]
        } else {
            &[]
        };
        let extensions: Vec<*const c_char> = OPTIONAL_EXTENSIONS
            .iter()
            .chain(robustness2)
            .filter(|e| info.extensions.contains(e.to_str().unwrap_or("")))
            .map(|e| e.as_ptr())
            .collect();
        let has = |e: &str| info.extensions.contains(e);
        let v12 = info.at_least(1, 2);
        // Every feature the device supports, as queried: enabling one changes nothing for a
        // module that does not use it. robustBufferAccess is left off (unless `robust`), as GL contexts are
        // not robust unless asked: an access out of bounds is the case's problem, not hidden.
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut af = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
        let mut af2 = vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT::default();
        // Pipeline robustness: the plans with images ask for GL's out-of-bounds image
        // accesses per pipeline (exec.rs); enabling it makes no pipeline robust by itself.
        let mut pr = vk::PhysicalDevicePipelineRobustnessFeaturesEXT::default();
        // robustImageAccess: GL defines out-of-bounds image accesses (ARB_shader_image_load_
        // store section 3.9.X), Vulkan with this feature; it changes nothing but images.
        let mut ir = vk::PhysicalDeviceImageRobustnessFeatures::default();
        let mut r2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        if v12 {
            f2 = f2.push_next(&mut f11).push_next(&mut f12);
        }
        if has("VK_EXT_image_robustness") || info.at_least(1, 3) {
            f2 = f2.push_next(&mut ir);
        }

        if has("VK_EXT_shader_atomic_float") {
            f2 = f2.push_next(&mut af);
        }
        if has("VK_EXT_shader_atomic_float2") {
            f2 = f2.push_next(&mut af2);
        }
        if has("VK_EXT_pipeline_robustness") {
            f2 = f2.push_next(&mut pr);
        }
        // SAFETY: the chain holds live structures of the device's version and extensions.
        unsafe { instance.get_physical_device_features2(physical, &mut f2) };
        if !robust {
            f2.features.robust_buffer_access = vk::FALSE;
        } else if has("VK_EXT_robustness2") {
            let mut q = vk::PhysicalDeviceFeatures2::default().push_next(&mut r2);
            // SAFETY: the chain holds one live structure of an extension the device has.
            unsafe { instance.get_physical_device_features2(physical, &mut q) };
            // robustBufferAccess2 only: robustImageAccess is what GL's image rules need,
            // and no plan has null descriptors.
            r2.robust_image_access2 = vk::FALSE;
            r2.null_descriptor = vk::FALSE;
            f2 = f2.push_next(&mut r2);
        }
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .push_next(&mut f2);
        // SAFETY: the create info names a queue family of the device, extensions it
        // offers and features it reported.
        let device = unsafe { instance.create_device(physical, &create, None) }
            .map_err(|e| format!("vkCreateDevice failed: {e}"))?;
        // SAFETY: queue 0 of a family the device was created with.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        // SAFETY: a physical device of the live instance.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
        info.libraries = conform_worker_libraries();
        Ok(Device {
            _entry: entry,
            instance,
            device,
            queue,
            queue_family,
            memory,
            info,
            robust,
        })
    }
}

/// The driver libraries mapped into this process (the Vulkan ICD and what it loads).
fn conform_worker_libraries() -> Vec<String> {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for line in maps.lines() {
        let Some(path) = line.splitn(6, char::is_whitespace).nth(5).map(str::trim) else {
            continue;
        };
        let name = path.rsplit('/').next().unwrap_or(path);
        let driver = ["libvulkan_", "libLLVM", "libnvidia-", "libgallium"]
            .iter()
            .any(|p| name.starts_with(p));
        if path.starts_with('/') && driver && !out.iter().any(|p| p == path) {
            out.push(path.to_string());
        }
    }
    out
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: every object of the device was destroyed with its plan; the device is idle
        // after the wait.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// The description of `physical`: identity, extensions, features, subgroups, limits.
fn describe(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    driver: VkDriver,
) -> Result<VkInfo, String> {
    // SAFETY: a physical device of the live instance.
    let exts = unsafe { instance.enumerate_device_extension_properties(physical) }
        .map_err(|e| format!("vkEnumerateDeviceExtensionProperties failed: {e}"))?;
    let extensions: BTreeSet<String> = exts
        .iter()
        .map(|e| c_text(e.extension_name_as_c_str()))
        .collect();
    let mut drv = vk::PhysicalDeviceDriverProperties::default();
    let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut drv)
        .push_next(&mut sub);
    // SAFETY: the chain holds live structures of Vulkan 1.1 and 1.2 (checked by the caller).
    unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
    let props = p2.properties;
    let api_version = version_triple(props.api_version);
    let v12 = (api_version.0, api_version.1) >= (1, 2);
    let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut af = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
    let mut af2 = vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default();
    if v12 {
        f2 = f2.push_next(&mut f11).push_next(&mut f12);
    }
    let has_af = extensions.contains("VK_EXT_shader_atomic_float");
    let has_af2 = extensions.contains("VK_EXT_shader_atomic_float2");
    if has_af {
        f2 = f2.push_next(&mut af);
    }
    if has_af2 {
        f2 = f2.push_next(&mut af2);
    }
    let mut pr = vk::PhysicalDevicePipelineRobustnessFeaturesEXT::default();
    let mut ir = vk::PhysicalDeviceImageRobustnessFeatures::default();
    let mut r2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
    let has_pr = extensions.contains("VK_EXT_pipeline_robustness");
    let has_ir =
        extensions.contains("VK_EXT_image_robustness") || (api_version.0, api_version.1) >= (1, 3);
    let has_r2 = extensions.contains("VK_EXT_robustness2");
    if has_pr {
        f2 = f2.push_next(&mut pr);
    }
    if has_ir {
        f2 = f2.push_next(&mut ir);
    }
    if has_r2 {
        f2 = f2.push_next(&mut r2);
    }
    // SAFETY: the chain holds live structures of the device's version and extensions.
    unsafe { instance.get_physical_device_features2(physical, &mut f2) };
    let core = f2.features;
    let mut features: BTreeMap<String, bool> = BTreeMap::new();
    let mut put = |name: &str, v: vk::Bool32| {
        features.insert(name.to_string(), v == vk::TRUE);
    };
    put("shaderFloat64", core.shader_float64);
    put("shaderInt64", core.shader_int64);
    put("shaderInt16", core.shader_int16);
    put(
        "shaderStorageImageExtendedFormats",
        core.shader_storage_image_extended_formats,
    );
    put(
        "shaderStorageImageReadWithoutFormat",
        core.shader_storage_image_read_without_format,
    );
    put(
        "shaderStorageImageWriteWithoutFormat",
        core.shader_storage_image_write_without_format,
    );
    if v12 {
        put("storageBuffer16BitAccess", f11.storage_buffer16_bit_access);
        put(
            "uniformAndStorageBuffer16BitAccess",
            f11.uniform_and_storage_buffer16_bit_access,
        );
        put("variablePointers", f11.variable_pointers);
        put("shaderFloat16", f12.shader_float16);
        put("shaderInt8", f12.shader_int8);
        put("storageBuffer8BitAccess", f12.storage_buffer8_bit_access);
        put(
            "uniformAndStorageBuffer8BitAccess",
            f12.uniform_and_storage_buffer8_bit_access,
        );
        put("shaderBufferInt64Atomics", f12.shader_buffer_int64_atomics);
        put("shaderSharedInt64Atomics", f12.shader_shared_int64_atomics);
        put("vulkanMemoryModel", f12.vulkan_memory_model);
        put(
            "vulkanMemoryModelDeviceScope",
            f12.vulkan_memory_model_device_scope,
        );
    }
    if has_af {
        put(
            "shaderBufferFloat32Atomics",
            af.shader_buffer_float32_atomics,
        );
        put(
            "shaderBufferFloat32AtomicAdd",
            af.shader_buffer_float32_atomic_add,
        );
        put(
            "shaderBufferFloat64Atomics",
            af.shader_buffer_float64_atomics,
        );
        put(
            "shaderBufferFloat64AtomicAdd",
            af.shader_buffer_float64_atomic_add,
        );
        put(
            "shaderSharedFloat32Atomics",
            af.shader_shared_float32_atomics,
        );
        put(
            "shaderSharedFloat32AtomicAdd",
            af.shader_shared_float32_atomic_add,
        );
        put(
            "shaderSharedFloat64Atomics",
            af.shader_shared_float64_atomics,
        );
        put(
            "shaderSharedFloat64AtomicAdd",
            af.shader_shared_float64_atomic_add,
        );
    }
    // What GL's defined out-of-bounds image accesses need (exec.rs, pipeline robustness).
    if has_pr {
        put("pipelineRobustness", pr.pipeline_robustness);
    }
    if has_ir {
        put("robustImageAccess", ir.robust_image_access);
    }
    if has_r2 {
        put("robustImageAccess2", r2.robust_image_access2);
        put("robustBufferAccess2", r2.robust_buffer_access2);
    }
    put(
        "shaderStorageBufferArrayDynamicIndexing",
        core.shader_storage_buffer_array_dynamic_indexing,
    );
    put(
        "shaderUniformBufferArrayDynamicIndexing",
        core.shader_uniform_buffer_array_dynamic_indexing,
    );
    if has_af2 {
        put(
            "shaderBufferFloat16Atomics",
            af2.shader_buffer_float16_atomics,
        );
        put(
            "shaderBufferFloat16AtomicAdd",
            af2.shader_buffer_float16_atomic_add,
        );
        put(
            "shaderBufferFloat16AtomicMinMax",
            af2.shader_buffer_float16_atomic_min_max,
        );
        put(
            "shaderBufferFloat32AtomicMinMax",
            af2.shader_buffer_float32_atomic_min_max,
        );
        put(
            "shaderBufferFloat64AtomicMinMax",
            af2.shader_buffer_float64_atomic_min_max,
        );
        put(
            "shaderSharedFloat16Atomics",
            af2.shader_shared_float16_atomics,
        );
        put(
            "shaderSharedFloat16AtomicAdd",
            af2.shader_shared_float16_atomic_add,
        );
        put(
            "shaderSharedFloat16AtomicMinMax",
            af2.shader_shared_float16_atomic_min_max,
        );
        put(
            "shaderSharedFloat32AtomicMinMax",
            af2.shader_shared_float32_atomic_min_max,
        );
        put(
            "shaderSharedFloat64AtomicMinMax",
            af2.shader_shared_float64_atomic_min_max,
        );
    }
    let l = props.limits;
    let limits: BTreeMap<String, Vec<i64>> = [
        (
            "maxComputeWorkGroupCount",
            l.max_compute_work_group_count.map(i64::from).to_vec(),
        ),
        (
            "maxComputeWorkGroupSize",
            l.max_compute_work_group_size.map(i64::from).to_vec(),
        ),
        (
            "maxComputeWorkGroupInvocations",
            vec![i64::from(l.max_compute_work_group_invocations)],
        ),
        (
            "maxComputeSharedMemorySize",
            vec![i64::from(l.max_compute_shared_memory_size)],
        ),
        (
            "maxStorageBufferRange",
            vec![i64::from(l.max_storage_buffer_range)],
        ),
        (
            "maxUniformBufferRange",
            vec![i64::from(l.max_uniform_buffer_range)],
        ),
        (
            "maxPerStageDescriptorStorageBuffers",
            vec![i64::from(l.max_per_stage_descriptor_storage_buffers)],
        ),
        (
            "maxPerStageDescriptorUniformBuffers",
            vec![i64::from(l.max_per_stage_descriptor_uniform_buffers)],
        ),
        (
            "maxPerStageDescriptorStorageImages",
            vec![i64::from(l.max_per_stage_descriptor_storage_images)],
        ),
        (
            "maxImageDimension1D",
            vec![i64::from(l.max_image_dimension1_d)],
        ),
        (
            "maxImageDimension2D",
            vec![i64::from(l.max_image_dimension2_d)],
        ),
        (
            "maxImageDimension3D",
            vec![i64::from(l.max_image_dimension3_d)],
        ),
        (
            "maxImageArrayLayers",
            vec![i64::from(l.max_image_array_layers)],
        ),
        (
            "maxTexelBufferElements",
            vec![i64::from(l.max_texel_buffer_elements)],
        ),
        (
            "minTexelBufferOffsetAlignment",
            vec![l.min_texel_buffer_offset_alignment as i64],
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let formats = ImageFormat::ALL
        .into_iter()
        .map(|f| {
            // SAFETY: a physical device of the live instance.
            let p = unsafe {
                instance.get_physical_device_format_properties(physical, formats::vk_format(f))
            };
            let (t, b) = (p.optimal_tiling_features, p.buffer_features);
            let copies =
                vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::TRANSFER_DST;
            let support = FormatSupport {
                storage_image: t.contains(vk::FormatFeatureFlags::STORAGE_IMAGE | copies),
                storage_image_atomic: t.contains(vk::FormatFeatureFlags::STORAGE_IMAGE_ATOMIC),
                storage_texel_buffer: b.contains(vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER),
                storage_texel_buffer_atomic: b
                    .contains(vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER_ATOMIC),
            };
            (f.name().to_string(), support)
        })
        .collect();
    let c = drv.conformance_version;
    Ok(VkInfo {
        driver,
        device_name: c_text(props.device_name_as_c_str()),
        driver_name: c_text(drv.driver_name_as_c_str()),
        driver_info: c_text(drv.driver_info_as_c_str()),
        driver_version: driver_version(drv.driver_id, props.driver_version),
        api_version,
        conformance_version: format!("{}.{}.{}.{}", c.major, c.minor, c.subminor, c.patch),
        extensions,
        features,
        subgroups: Subgroups {
            size: sub.subgroup_size,
            in_compute: sub.supported_stages.contains(vk::ShaderStageFlags::COMPUTE),
            operations: subgroup_operations(sub.supported_operations),
        },
        limits,
        libraries: Vec::new(),
        formats,
    })
}
