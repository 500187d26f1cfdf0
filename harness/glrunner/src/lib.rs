//! `conform-glrunner`: runs conform [`ExecPlan`]s on real OpenGL drivers.
//!
//! Every driver runs in its own worker process (`conform worker --driver NAME`), because Mesa
//! picks its Gallium driver from `GALLIUM_DRIVER` once, when EGL loads, and because a driver
//! may crash or hang on a case: the parent ([`Worker`]) sees a crash or a timeout, kills the
//! process, and starts a fresh one for the next plan. Nothing already reported is lost.
//!
//! The worker creates one headless EGL context per client API (EGL device platform,
//! surfaceless, glutin): desktop OpenGL, and OpenGL ES where the driver offers ES 3.1, and
//! reuses them for every plan, making current the one the plan's case asks for. The protocol is one JSON object per line: the parent writes a
//! [`Request`], the worker answers one [`Response`].
//!
//! See `docs/DRIVERS.md` for the environment, the protocol and the `api` step actions.

mod api;
pub mod breadcrumb;
mod caps;
mod context;
mod enums;
mod exec;
#[cfg(test)]
mod fake_driver;
mod gl_query;
mod images;
pub mod install;
pub mod loaded;
mod sampled;
mod uniforms;
pub mod vtest;
mod worker;
mod worker_main;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

pub use api::api_table_markdown;
pub use worker::{
    available_drivers, list_devices, probe_drivers, probe_these, probe_with_env, GlProtocol,
    Worker, MAX_RESPONSE_BYTES, STARTUP_TIMEOUT,
};
pub use worker_main::{
    devices_main, ignore_interrupts, protocol_output, run_in_process, watch_parent, worker_main,
};

pub use conform_plan::{ExecPlan, Outcome, RawResult, Refusal};

/// An OpenGL driver conform can run on.
///
/// Mesa's software drivers run on Mesa's software EGL device (`GALLIUM_DRIVER` picks
/// which), NVIDIA's on its own EGL device, a Mesa hardware driver on the EGL device whose
/// DRM render node its kernel driver drives, and `egl:renderD<N>` on that render node with
/// whatever driver EGL loads for it (`MESA_LOADER_DRIVER_OVERRIDE` decides, when set). Names
/// are the strings of [`Driver::name`] everywhere (CLI, journal, wire protocol).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Driver {
    /// Mesa llvmpipe (`GALLIUM_DRIVER=llvmpipe`): GL 4.5 core.
    Llvmpipe,
    /// Mesa softpipe (`GALLIUM_DRIVER=softpipe`): GL 3.3 compatibility with ARB_compute_shader.
    Softpipe,
    /// Mesa zink over a Vulkan driver (`GALLIUM_DRIVER=zink`, lavapipe without a GPU).
    Zink,
    /// Mesa's virgl, the GL driver of virtio-gpu guests, through virglrenderer's vtest server
    /// (`GALLIUM_DRIVER=virpipe`): the worker starts its own server ([`vtest`]) on a private
    /// socket, with a host driver of its own (llvmpipe unless `CONFORM_VIRGL_HOST` names
    /// another software driver). The shader goes NIR -> TGSI in the guest, over the socket,
    /// TGSI -> GLSL in virglrenderer, then through the host driver's compiler.
    Virgl,
    /// The NVIDIA proprietary driver, through its EGL device.
    Nvidia,
    /// A Mesa hardware driver, on the device its kernel driver drives.
    Mesa(MesaDriver),
    /// The EGL device of DRM render node `/dev/dri/renderD<N>`, whatever driver it loads.
    Render(u32),
}

/// Mesa's hardware Gallium drivers, each with the kernel drivers it drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MesaDriver {
    Radeonsi,
    R600,
    Iris,
    Crocus,
    Nouveau,
    Freedreno,
    Panfrost,
    Lima,
    V3d,
    Vc4,
    Etnaviv,
    Virgl,
    Asahi,
}

impl MesaDriver {
    pub const ALL: [MesaDriver; 13] = [
        MesaDriver::Radeonsi,
        MesaDriver::R600,
        MesaDriver::Iris,
        MesaDriver::Crocus,
        MesaDriver::Nouveau,
        MesaDriver::Freedreno,
        MesaDriver::Panfrost,
        MesaDriver::Lima,
        MesaDriver::V3d,
        MesaDriver::Vc4,
        MesaDriver::Etnaviv,
        MesaDriver::Virgl,
        MesaDriver::Asahi,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MesaDriver::Radeonsi => "radeonsi",
            MesaDriver::R600 => "r600",
            MesaDriver::Iris => "iris",
            MesaDriver::Crocus => "crocus",
            MesaDriver::Nouveau => "nouveau",
            MesaDriver::Freedreno => "freedreno",
            MesaDriver::Panfrost => "panfrost",
            MesaDriver::Lima => "lima",
            MesaDriver::V3d => "v3d",
            MesaDriver::Vc4 => "vc4",
            MesaDriver::Etnaviv => "etnaviv",
            MesaDriver::Virgl => "virgl",
            MesaDriver::Asahi => "asahi",
        }
    }

    /// The kernel drivers (`/sys/class/drm/renderD*/device/driver`) this Mesa driver can
    /// drive. Some kernel drivers have two Mesa drivers (amdgpu: radeonsi, and r600 for older
    /// radeon; i915: iris from Gen8 on, crocus before): the loader picks by chip, and
    /// [`Driver::Mesa`] asks for one with `MESA_LOADER_DRIVER_OVERRIDE`.
    pub fn kernel_drivers(self) -> &'static [&'static str] {
        match self {
            MesaDriver::Radeonsi => &["amdgpu", "radeon"],
            MesaDriver::R600 => &["radeon"],
            MesaDriver::Iris | MesaDriver::Crocus => &["i915", "xe"],
            MesaDriver::Nouveau => &["nouveau"],
            MesaDriver::Freedreno => &["msm"],
            MesaDriver::Panfrost => &["panfrost", "panthor"],
            MesaDriver::Lima => &["lima"],
            MesaDriver::V3d => &["v3d"],
            MesaDriver::Vc4 => &["vc4"],
            MesaDriver::Etnaviv => &["etnaviv"],
            MesaDriver::Virgl => &["virtio_gpu", "virtio-gpu"],
            MesaDriver::Asahi => &["asahi"],
        }
    }

    /// The Mesa driver the loader picks first for `kernel` driver, if any.
    pub fn for_kernel_driver(kernel: &str) -> Option<MesaDriver> {
        MesaDriver::ALL
            .into_iter()
            .find(|m| m.kernel_drivers().contains(&kernel))
    }
}

impl Driver {
    /// The drivers `conform drivers` and `--backend all` always probe; hardware drivers are
    /// probed where an EGL device offers them ([`probe_drivers`]). virgl is found where
    /// virglrenderer's vtest server is installed.
    pub const ALL: [Driver; 5] = [
        Driver::Llvmpipe,
        Driver::Softpipe,
        Driver::Zink,
        Driver::Virgl,
        Driver::Nvidia,
    ];

    pub fn name(self) -> String {
        match self {
            Driver::Llvmpipe => "llvmpipe".into(),
            Driver::Softpipe => "softpipe".into(),
            Driver::Zink => "zink".into(),
            Driver::Virgl => "virgl".into(),
            Driver::Nvidia => "nvidia".into(),
            // `virgl` is the vtest backend; the virtio-gpu device of a guest is named for it.
            Driver::Mesa(MesaDriver::Virgl) => "virtio-gpu".into(),
            Driver::Mesa(m) => m.name().into(),
            Driver::Render(n) => format!("egl:renderD{n}"),
        }
    }

    /// Names accepted by [`Driver::from_str`], for "allowed values" hints.
    pub fn names() -> Vec<String> {
        let mut v: Vec<String> = Driver::ALL.iter().map(|d| d.name()).collect();
        v.extend(MesaDriver::ALL.iter().map(|m| Driver::Mesa(*m).name()));
        v.push("egl:renderD<N>".into());
        v
    }

    /// Whether the driver is one of Mesa's software drivers, on Mesa's software EGL device
    /// (chosen by `GALLIUM_DRIVER`; virgl's guest side, virpipe, is one).
    pub fn is_mesa_software(self) -> bool {
        matches!(
            self,
            Driver::Llvmpipe | Driver::Softpipe | Driver::Zink | Driver::Virgl
        )
    }

    /// The `GALLIUM_DRIVER` value of a software driver.
    fn gallium_name(self) -> String {
        match self {
            Driver::Virgl => "virpipe".into(),
            d => d.name(),
        }
    }

    /// Whether the driver is Mesa's (software or hardware), and so may run from a Mesa
    /// install prefix ([`install::MesaInstall`]). A render node's driver is whatever EGL
    /// loads there: Mesa's, when the install is what the worker loads.
    pub fn is_mesa(self) -> bool {
        self.is_mesa_software() || matches!(self, Driver::Mesa(_) | Driver::Render(_))
    }

    /// Environment the worker process for this driver gets: `(name, value, overridable)`.
    /// Overridable entries are only set when the caller's environment lacks them; everything
    /// else of the caller's environment reaches the driver as it is (a local Mesa build's
    /// `LIBGL_DRIVERS_PATH`, `__EGL_VENDOR_LIBRARY_FILENAMES`, `VK_DRIVER_FILES`...).
    pub fn environment(self) -> Vec<(&'static str, String, bool)> {
        let mut env = vec![
            ("MESA_SHADER_CACHE_DISABLE", "true".to_string(), true),
            ("__GL_SHADER_DISK_CACHE", "0".to_string(), true),
        ];
        match self {
            d if d.is_mesa_software() => {
                env.push(("GALLIUM_DRIVER", d.gallium_name(), false));
                env.push(("LIBGL_ALWAYS_SOFTWARE", "1".into(), false));
            }
            Driver::Mesa(m) => env.push(("MESA_LOADER_DRIVER_OVERRIDE", m.name().into(), true)),
            _ => {}
        }
        env
    }
}

impl fmt::Display for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Driver {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        if let Some(n) = lower
            .strip_prefix("egl:renderd")
            .or_else(|| lower.strip_prefix("egl:/dev/dri/renderd"))
        {
            return n
                .parse::<u32>()
                .map(Driver::Render)
                .map_err(|_| format!("`{s}`: expected egl:renderD<N> (a DRM render node)"));
        }
        Driver::ALL
            .into_iter()
            .find(|d| d.name() == lower)
            .or_else(|| {
                MesaDriver::ALL
                    .into_iter()
                    .map(Driver::Mesa)
                    .find(|d| d.name() == lower)
            })
            .ok_or_else(|| {
                format!(
                    "unknown driver `{s}` (known: {})",
                    Driver::names().join(", ")
                )
            })
    }
}

impl From<Driver> for String {
    fn from(d: Driver) -> String {
        d.name()
    }
}

impl TryFrom<String> for Driver {
    type Error = String;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// One EGL device as a worker found it (`conform worker --list-devices`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EglDevice {
    /// Position in eglQueryDevicesEXT's list.
    pub index: usize,
    /// `EGL_VENDOR` of the device (EGL_EXT_device_query_name), when reported.
    pub vendor: Option<String>,
    /// `EGL_RENDERER` of the device, when reported.
    pub name: Option<String>,
    /// The DRM render node (`/dev/dri/renderD128`), when the device has one.
    pub render_node: Option<String>,
    /// The DRM primary node (`/dev/dri/card0`), when the device has one.
    pub drm_node: Option<String>,
    /// The kernel driver behind the node (`amdgpu`, `i915`, `nvidia`), from sysfs.
    pub kernel_driver: Option<String>,
    /// Mesa's software device (`EGL_MESA_device_software`).
    pub software: bool,
    pub extensions: Vec<String>,
}

impl EglDevice {
    /// The drivers conform can reach on this device.
    pub fn drivers(&self) -> Vec<Driver> {
        if self.software {
            return vec![Driver::Llvmpipe, Driver::Softpipe, Driver::Zink];
        }
        let mut out = Vec::new();
        let nvidia = self
            .vendor
            .as_deref()
            .is_some_and(|v| v.to_ascii_lowercase().contains("nvidia"))
            || self
                .extensions
                .iter()
                .any(|e| e.starts_with("EGL_NV_device"));
        if nvidia {
            out.push(Driver::Nvidia);
        } else if let Some(m) = self
            .kernel_driver
            .as_deref()
            .and_then(MesaDriver::for_kernel_driver)
        {
            out.push(Driver::Mesa(m));
        }
        if let Some(n) = self.render_minor() {
            out.push(Driver::Render(n));
        }
        out
    }

    /// N of `/dev/dri/renderD<N>`.
    pub fn render_minor(&self) -> Option<u32> {
        self.render_node
            .as_deref()?
            .strip_prefix("/dev/dri/renderD")?
            .parse()
            .ok()
    }
}

/// The client API of a context: desktop OpenGL, or OpenGL ES (a case's `requires.gles`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextApi {
    #[default]
    Gl,
    Gles,
}

impl fmt::Display for ContextApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ContextApi::Gl => "OpenGL",
            ContextApi::Gles => "OpenGL ES",
        })
    }
}

/// What a driver offers, as probed by its worker. The harness checks a case's `requires`
/// against it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverInfo {
    pub driver: Driver,
    /// The context's client API: the description of a desktop context, or (in
    /// [`DriverInfo::gles`]) of an ES one.
    #[serde(default)]
    pub api: ContextApi,
    /// GL_RENDERER.
    pub renderer: String,
    /// GL_VENDOR.
    pub vendor: String,
    /// GL_VERSION (the full string, with the Mesa version on Mesa).
    pub version: String,
    /// GL_SHADING_LANGUAGE_VERSION.
    pub glsl_version: String,
    /// `core` or `compatibility` (`es` for an ES context).
    pub profile: String,
    /// GL_MAJOR_VERSION, GL_MINOR_VERSION (the ES version in an ES context).
    pub gl_version: (u32, u32),
    /// GLSL version as a number (`450`; `320` for GLSL ES 3.20 in an ES context).
    pub glsl: u32,
    /// The extension string, one entry per extension (`GL_ARB_compute_shader`).
    pub extensions: BTreeSet<String>,
    /// GL_SPIR_V_EXTENSIONS (empty without GL_ARB_gl_spirv).
    pub spirv_extensions: BTreeSet<String>,
    /// Implementation limits by enum name without the `GL_` prefix
    /// (`MAX_COMPUTE_WORK_GROUP_COUNT: [x, y, z]`). Limits of absent features are left out.
    pub limits: BTreeMap<String, Vec<i64>>,
    /// The worker's OpenGL ES context on the same device (cases with `requires.gles` run
    /// there), or why it has none. Always `Err` inside an ES description.
    #[serde(default = "no_gles")]
    pub gles: Result<Box<DriverInfo>, String>,
    /// The EGL device the context was made on, described (`vendor Mesa, extensions ...`).
    #[serde(default)]
    pub egl_device: String,
    /// The driver libraries mapped into the worker process once its context existed
    /// (absolute paths, [`loaded::driver_libraries`]): which build actually ran.
    #[serde(default)]
    pub libraries: Vec<String>,
}

fn no_gles() -> Result<Box<DriverInfo>, String> {
    Err("not probed".into())
}

impl DriverInfo {
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.contains(name)
    }

    /// Whether the context offers GL version `major.minor` or later.
    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        self.gl_version >= (major, minor)
    }
}

/// A request from the parent to a worker (one JSON line on the worker's stdin).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Describe the driver (or say why no context could be made).
    Probe,
    /// Run one plan in the desktop context (driver workers).
    Run(ExecPlan),
    /// Run one plan in the OpenGL ES context (driver workers; a case with `requires.gles`).
    RunGles(ExecPlan),
}

/// A worker's answer (one JSON line on the worker's protocol output).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Response {
    Probe(Result<DriverInfo, String>),
    Run(Result<Outcome, Refusal>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_names_round_trip() {
        let all = Driver::ALL
            .into_iter()
            .chain(MesaDriver::ALL.map(Driver::Mesa))
            .chain([Driver::Render(128)]);
        for d in all {
            assert_eq!(d.name().parse::<Driver>().unwrap(), d);
            assert_eq!(
                serde_json::to_string(&d).unwrap(),
                format!("\"{}\"", d.name())
            );
            assert_eq!(
                serde_json::from_str::<Driver>(&format!("\"{d}\"")).unwrap(),
                d
            );
        }
        assert_eq!("egl:renderD129".parse::<Driver>(), Ok(Driver::Render(129)));
        assert_eq!(
            "RadeonSI".parse::<Driver>(),
            Ok(Driver::Mesa(MesaDriver::Radeonsi))
        );
        assert!("swrast".parse::<Driver>().is_err());
        assert!("egl:renderDx".parse::<Driver>().is_err());
    }

    #[test]
    fn software_drivers_pin_gallium_driver_and_hardware_ones_pass_the_environment() {
        let env = Driver::Softpipe.environment();
        assert!(env.contains(&("GALLIUM_DRIVER", "softpipe".into(), false)));
        assert!(env.contains(&("MESA_SHADER_CACHE_DISABLE", "true".into(), true)));
        for d in [
            Driver::Nvidia,
            Driver::Render(128),
            Driver::Mesa(MesaDriver::Iris),
        ] {
            assert!(!d
                .environment()
                .iter()
                .any(|(k, _, _)| *k == "GALLIUM_DRIVER" || *k == "LIBGL_ALWAYS_SOFTWARE"));
        }
        // A hardware driver is asked for by name, unless the caller overrides it.
        assert!(Driver::Mesa(MesaDriver::Iris).environment().contains(&(
            "MESA_LOADER_DRIVER_OVERRIDE",
            "iris".into(),
            true
        )));
    }

    /// What `conform drivers` offers on a device, from what EGL and sysfs say about it.
    #[test]
    fn devices_offer_the_drivers_of_their_kernel_driver() {
        let dev = |kernel: &str, vendor: &str| EglDevice {
            index: 1,
            vendor: Some(vendor.into()),
            name: None,
            render_node: Some("/dev/dri/renderD128".into()),
            drm_node: Some("/dev/dri/card0".into()),
            kernel_driver: Some(kernel.into()),
            software: false,
            extensions: vec!["EGL_EXT_device_drm".into()],
        };
        assert_eq!(
            dev("amdgpu", "Mesa").drivers(),
            [Driver::Mesa(MesaDriver::Radeonsi), Driver::Render(128)]
        );
        assert_eq!(
            dev("msm", "Mesa").drivers(),
            [Driver::Mesa(MesaDriver::Freedreno), Driver::Render(128)]
        );
        assert_eq!(
            dev("nvidia", "NVIDIA").drivers(),
            [Driver::Nvidia, Driver::Render(128)]
        );
        assert_eq!(dev("unknown", "Mesa").drivers(), [Driver::Render(128)]);
        let mut sw = dev("", "Mesa");
        sw.software = true;
        assert_eq!(
            sw.drivers(),
            [Driver::Llvmpipe, Driver::Softpipe, Driver::Zink]
        );
    }

    #[test]
    fn requests_are_one_line() {
        let line = serde_json::to_string(&Request::Probe).unwrap();
        assert!(!line.contains('\n'));
        let back: Request = serde_json::from_str(&line).unwrap();
        assert_eq!(back, Request::Probe);
    }
}
