//! `conform-vkrunner`: runs conform [`ExecPlan`]s with SPIR-V programs on Vulkan drivers.
//!
//! SPV_EXT_shader_atomic_float_add's home is Vulkan (VK_EXT_shader_atomic_float): no GL
//! driver here advertises it, lavapipe does. So a SPIR-V case that is valid in the Vulkan
//! environment also runs on Vulkan drivers, named by their `VkDriverId`: `vk:lavapipe`,
//! `vk:radv`, `vk:anv`, `vk:nvidia`.
//!
//! Like the GL drivers, every Vulkan driver runs in worker processes (`conform worker
//! --vulkan NAME`): one instance and device per worker, one compute pipeline per plan, the
//! plan's steps recorded into command buffers, crash and hang isolation by
//! `conform-worker`. The Vulkan loader is opened at run time (ash's `loaded`), so nothing
//! links libvulkan: a machine without a loader says so in the probe.
//!
//! What a plan needs that Vulkan lacks (GLSL and NV programs, default-block uniforms, atomic
//! counters, GL API steps, GL error cases) is a skip that names it ([`support`]); a case's
//! requirements translate to device extensions and features ([`translate`]). Storage images
//! and buffer images become VkImages and texel buffers ([`formats`], exec.rs), arrays of
//! blocks one binding of several descriptors.
//! See docs/DRIVERS.md ("Vulkan drivers").

mod device;
mod exec;
pub mod formats;
pub mod module;
pub mod support;
pub mod translate;
mod worker;
mod worker_main;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

pub use conform_plan::{ExecPlan, Outcome, RawResult, Refusal};
pub use worker::{probe_vulkan, VkWorker, STARTUP_TIMEOUT};
pub use worker_main::vk_worker_main;

/// A Vulkan driver conform can run on, by the `driverID` of VkPhysicalDeviceDriverProperties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum VkDriver {
    /// Mesa lavapipe (`VK_DRIVER_ID_MESA_LLVMPIPE`), on the CPU.
    Lavapipe,
    /// Mesa RADV (`VK_DRIVER_ID_MESA_RADV`), AMD GPUs.
    Radv,
    /// Mesa ANV (`VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA`), Intel GPUs.
    Anv,
    /// NVIDIA's proprietary driver (`VK_DRIVER_ID_NVIDIA_PROPRIETARY`).
    Nvidia,
}

impl VkDriver {
    pub const ALL: [VkDriver; 4] = [
        VkDriver::Lavapipe,
        VkDriver::Radv,
        VkDriver::Anv,
        VkDriver::Nvidia,
    ];

    /// The name after `vk:` (`lavapipe`).
    pub fn short(self) -> &'static str {
        match self {
            VkDriver::Lavapipe => "lavapipe",
            VkDriver::Radv => "radv",
            VkDriver::Anv => "anv",
            VkDriver::Nvidia => "nvidia",
        }
    }

    /// The backend name (`vk:lavapipe`).
    pub fn name(self) -> String {
        format!("vk:{}", self.short())
    }

    /// The `VkDriverId` value that identifies the driver.
    pub fn driver_id(self) -> i32 {
        match self {
            VkDriver::Radv => 3,
            VkDriver::Nvidia => 4,
            VkDriver::Anv => 6,
            VkDriver::Lavapipe => 13,
        }
    }

    /// Names accepted by [`VkDriver::from_str`].
    pub fn names() -> Vec<String> {
        VkDriver::ALL.iter().map(|d| d.name()).collect()
    }
}

impl fmt::Display for VkDriver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for VkDriver {
    type Err = String;

    /// `vk:lavapipe` or `lavapipe` (the worker's `--vulkan` takes the short name).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        let short = lower.strip_prefix("vk:").unwrap_or(&lower);
        VkDriver::ALL
            .into_iter()
            .find(|d| d.short() == short)
            .ok_or_else(|| {
                format!(
                    "unknown Vulkan driver `{s}` (known: {})",
                    VkDriver::names().join(", ")
                )
            })
    }
}

impl From<VkDriver> for String {
    fn from(d: VkDriver) -> String {
        d.name()
    }
}

impl TryFrom<String> for VkDriver {
    type Error = String;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// The subgroup properties of a device (VkPhysicalDeviceSubgroupProperties).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subgroups {
    pub size: u32,
    /// Whether `supportedStages` includes the compute stage.
    pub in_compute: bool,
    /// `supportedOperations`, by the flag's name without its prefix and suffix (`basic`,
    /// `vote`, `arithmetic`, `ballot`, `shuffle`, `shuffle_relative`, `clustered`, `quad`).
    pub operations: BTreeSet<String>,
}

/// What a Vulkan device offers, as its worker probed it. The harness checks a case's
/// requirements against it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VkInfo {
    pub driver: VkDriver,
    /// VkPhysicalDeviceProperties::deviceName (`llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub device_name: String,
    /// VkPhysicalDeviceDriverProperties::driverName (`llvmpipe`).
    pub driver_name: String,
    /// VkPhysicalDeviceDriverProperties::driverInfo (`Mesa 22.3.6 (LLVM 15.0.6)`).
    pub driver_info: String,
    /// driverVersion, decoded as Mesa and most drivers encode it (major.minor.patch).
    pub driver_version: String,
    /// The Vulkan version of the device (apiVersion).
    pub api_version: (u32, u32, u32),
    /// conformanceVersion (`1.3.1.1`; `0.0.0.0` for a driver that is not conformant).
    pub conformance_version: String,
    /// The device extensions, by name.
    pub extensions: BTreeSet<String>,
    /// The features conform translates requirements to, by their Vulkan names
    /// (`shaderBufferFloat32AtomicAdd`), each supported or not.
    pub features: BTreeMap<String, bool>,
    pub subgroups: Subgroups,
    /// Compute limits by their Vulkan names (`maxComputeWorkGroupCount: [x, y, z]`).
    pub limits: BTreeMap<String, Vec<i64>>,
    /// The driver libraries mapped into the worker once its device existed.
    #[serde(default)]
    pub libraries: Vec<String>,
    /// What the device does with each image format conform has (by its name, `r32ui`),
    /// from vkGetPhysicalDeviceFormatProperties.
    #[serde(default)]
    pub formats: BTreeMap<String, FormatSupport>,
}

/// The storage uses of one format on a device: optimal-tiling storage images and storage
/// texel buffers, each with or without atomics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormatSupport {
    pub storage_image: bool,
    pub storage_image_atomic: bool,
    pub storage_texel_buffer: bool,
    pub storage_texel_buffer_atomic: bool,
}

impl VkInfo {
    /// Whether the device's Vulkan version is at least `major.minor`.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.api_version.0, self.api_version.1) >= (major, minor)
    }

    pub fn has_feature(&self, name: &str) -> bool {
        self.features.get(name).copied().unwrap_or(false)
    }

    /// The version string as the identity of a run shows it.
    pub fn version_line(&self) -> String {
        let (a, b, c) = self.api_version;
        format!(
            "Vulkan {a}.{b}.{c}, {} {} ({}), conformance {}",
            self.driver_name, self.driver_version, self.driver_info, self.conformance_version
        )
    }
}

/// A request from the parent to a Vulkan worker (one JSON line).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum VkRequest {
    /// Describe the device (or say why there is none).
    Probe,
    /// Run one plan.
    Run(ExecPlan),
}

/// A Vulkan worker's answer (one JSON line).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum VkResponse {
    Probe(Result<VkInfo, String>),
    Run(Result<Outcome, Refusal>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_names_round_trip() {
        for d in VkDriver::ALL {
            assert_eq!(d.name().parse::<VkDriver>(), Ok(d));
            assert_eq!(d.short().parse::<VkDriver>(), Ok(d));
            assert_eq!(
                serde_json::to_string(&d).unwrap(),
                format!("\"{}\"", d.name())
            );
        }
        assert!("vk:swiftshader".parse::<VkDriver>().is_err());
    }
}
