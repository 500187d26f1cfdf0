//! Headless EGL contexts through the EGL device platform (worker side).
//!
//! Mesa exposes one software device (`EGL_MESA_device_software`) whose Gallium driver is the one
//! `GALLIUM_DRIVER` named when EGL loaded, and one device per DRM render node it can drive;
//! NVIDIA exposes one device per GPU. We pick the device for the driver, make a display from
//! it, and make surfaceless contexts on it: desktop OpenGL, and OpenGL ES for cases that
//! require it. [`list_devices`] describes them all.

use crate::{ContextApi, Driver, EglDevice};
use conform_gl as gl;
use glutin::api::egl::context::PossiblyCurrentContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi as GlutinApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::prelude::*;
use std::ffi::CString;

/// A GL or GL ES context with its loaded function pointers.
pub struct GlContext {
    pub gl: gl::Gl,
    pub api: ContextApi,
    /// Kept alive: dropping them would destroy the context.
    context: PossiblyCurrentContext,
    _display: Display,
    /// Which EGL device was used, for notes.
    pub device_description: String,
}

const VERSIONS: [(u8, u8); 11] = [
    (4, 6),
    (4, 5),
    (4, 4),
    (4, 3),
    (4, 2),
    (4, 1),
    (4, 0),
    (3, 3),
    (3, 2),
    (3, 1),
    (3, 0),
];

/// The profile tried first for a driver. NV assembly programs are compatibility-profile
/// features on NVIDIA; softpipe only offers compute in its compatibility profile.
fn preferred_profiles(driver: Driver) -> [GlProfile; 2] {
    let forced = std::env::var("CONFORM_GL_PROFILE").ok();
    match forced.as_deref() {
        Some("core") => return [GlProfile::Core, GlProfile::Compatibility],
        Some("compatibility") | Some("compat") => {
            return [GlProfile::Compatibility, GlProfile::Core]
        }
        _ => {}
    }
    match driver {
        Driver::Llvmpipe | Driver::Zink | Driver::Virgl | Driver::Mesa(_) | Driver::Render(_) => {
            [GlProfile::Core, GlProfile::Compatibility]
        }
        Driver::Softpipe | Driver::Nvidia => [GlProfile::Compatibility, GlProfile::Core],
    }
}

/// One EGL device in words, for messages: `vendor Mesa, /dev/dri/renderD128, extensions
/// EGL_...` (what the device does not report is left out).
fn describe(dev: &Device) -> String {
    let mut exts: Vec<&str> = dev.extensions().iter().copied().collect();
    exts.sort_unstable();
    let mut parts = Vec::new();
    if let Some(v) = dev.vendor() {
        parts.push(format!("vendor {v}"));
    }
    if let Some(n) = dev.name() {
        parts.push(format!("name {n}"));
    }
    let node = dev
        .drm_render_device_node_path()
        .or_else(|| dev.drm_device_node_path());
    if let Some(p) = node {
        parts.push(p.display().to_string());
    }
    parts.push(format!("extensions {}", exts.join(" ")));
    parts.join(", ")
}

/// How surely `dev` is NVIDIA's own EGL device ([`nvidia_rank_of`] on what EGL and sysfs say).
fn nvidia_rank(dev: &Device) -> u8 {
    let extensions: Vec<&str> = dev.extensions().iter().copied().collect();
    nvidia_rank_of(dev.vendor(), &extensions, || kernel_driver_link(dev))
}

/// 2 when NVIDIA's EGL library says the device is its own (vendor string or its
/// `EGL_NV_device_*` extensions), 1 when only the kernel driver behind its DRM node is nvidia
/// (Mesa may list such a node too, without being able to drive it), 0 otherwise.
/// `kernel_driver` reads the node's `device/driver` link; it is asked only when the EGL
/// strings do not decide.
pub(crate) fn nvidia_rank_of(
    vendor: Option<&str>,
    extensions: &[&str],
    kernel_driver: impl FnOnce() -> Option<std::path::PathBuf>,
) -> u8 {
    if vendor.is_some_and(|v| v.to_ascii_lowercase().contains("nvidia"))
        || extensions.iter().any(|e| e.starts_with("EGL_NV_device"))
    {
        return 2;
    }
    let nvidia_module = kernel_driver().is_some_and(|target| {
        target
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("nvidia"))
    });
    u8::from(nvidia_module)
}

/// Where the `device/driver` link of `dev`'s DRM node points in sysfs.
fn kernel_driver_link(dev: &Device) -> Option<std::path::PathBuf> {
    let node = dev
        .drm_render_device_node_path()
        .or_else(|| dev.drm_device_node_path())?;
    let link = std::path::Path::new("/sys/class/drm")
        .join(node.file_name()?)
        .join("device/driver");
    std::fs::read_link(link).ok()
}

/// The kernel driver behind `dev`'s DRM node (`amdgpu`, `i915`, `nvidia`), from sysfs.
fn kernel_driver(dev: &Device) -> Option<String> {
    let target = kernel_driver_link(dev)?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

/// Every EGL device, described (worker side: `conform worker --list-devices`).
pub fn list_devices() -> Result<Vec<EglDevice>, String> {
    let devices = Device::query_devices().map_err(|e| format!("no EGL devices: {e}"))?;
    Ok(devices
        .enumerate()
        .map(|(index, d)| {
            let mut extensions: Vec<String> =
                d.extensions().iter().map(|e| e.to_string()).collect();
            extensions.sort();
            EglDevice {
                index,
                vendor: d.vendor().map(String::from),
                name: d.name().map(String::from),
                render_node: d
                    .drm_render_device_node_path()
                    .map(|p| p.display().to_string()),
                drm_node: d.drm_device_node_path().map(|p| p.display().to_string()),
                kernel_driver: kernel_driver(&d),
                software: d.extensions().contains("EGL_MESA_device_software"),
                extensions,
            }
        })
        .collect())
}

fn pick_device(driver: Driver) -> Result<Device, String> {
    let devices: Vec<Device> = Device::query_devices()
        .map_err(|e| format!("no EGL devices: {e}"))?
        .collect();
    if devices.is_empty() {
        return Err("EGL lists no devices".into());
    }
    let render_node = |d: &&Device, want: &str| {
        d.drm_render_device_node_path()
            .is_some_and(|p| p == std::path::Path::new(want))
    };
    let found = match driver {
        Driver::Nvidia => devices
            .iter()
            .filter(|d| nvidia_rank(d) > 0)
            .min_by_key(|d| std::cmp::Reverse(nvidia_rank(d))),
        Driver::Mesa(m) => devices.iter().find(|d| {
            !d.extensions().contains("EGL_MESA_device_software")
                && kernel_driver(d).is_some_and(|k| m.kernel_drivers().contains(&k.as_str()))
        }),
        Driver::Render(n) => devices
            .iter()
            .find(|d| render_node(d, &format!("/dev/dri/renderD{n}"))),
        Driver::Llvmpipe | Driver::Softpipe | Driver::Zink | Driver::Virgl => devices
            .iter()
            .find(|d| d.extensions().contains("EGL_MESA_device_software")),
    };
    found.cloned().ok_or_else(|| {
        let listed: Vec<String> = devices.iter().map(describe).collect();
        format!(
            "no EGL device for {driver} among {} device(s): {}",
            devices.len(),
            listed.join("; ")
        )
    })
}

/// The EGL display of `driver`'s device, with the device's description (for notes). Every
/// context of a worker is made on this one display (glutin terminates a display when its last
/// handle goes, so the contexts share it rather than each making its own).
pub fn open_display(driver: Driver) -> Result<(Display, String), String> {
    let device = pick_device(driver)?;
    let device_description = describe(&device);
    // SAFETY: no raw display handle is passed.
    let display = unsafe { Display::with_device(&device, None) }
        .map_err(|e| format!("eglGetPlatformDisplay(device) failed: {e}"))?;
    Ok((display, device_description))
}

/// OpenGL ES versions tried for an ES context, newest first (compute needs 3.1).
const ES_VERSIONS: [(u8, u8); 2] = [(3, 2), (3, 1)];

/// Creates a context of `api` for `driver` on `display`, makes it current, and checks that
/// the driver that answered is the one asked for (Mesa silently falls back to another driver
/// when, e.g., zink finds no Vulkan). Desktop contexts are the newest version of the
/// driver's preferred profile; ES contexts the newest of [`ES_VERSIONS`].
pub fn create(
    display: &Display,
    device_description: &str,
    driver: Driver,
    api: ContextApi,
) -> Result<GlContext, String> {
    let config_api = match api {
        ContextApi::Gl => Api::OPENGL,
        ContextApi::Gles => Api::GLES3,
    };
    let template = ConfigTemplateBuilder::new()
        .with_api(config_api)
        .with_surface_type(ConfigSurfaceTypes::empty())
        .build();
    // SAFETY: the template is valid; configs borrow the display.
    let config = unsafe { display.find_configs(template) }
        .map_err(|e| format!("eglChooseConfig failed: {e}"))?
        .next()
        .ok_or_else(|| format!("no EGL config with {api} support"))?;

    let mut attempts = Vec::new();
    match api {
        ContextApi::Gl => {
            for profile in preferred_profiles(driver) {
                for (major, minor) in VERSIONS {
                    let attrs = ContextAttributesBuilder::new()
                        .with_context_api(GlutinApi::OpenGl(Some(Version::new(major, minor))))
                        .with_profile(profile)
                        .build(None);
                    attempts.push((format!("{profile:?} {major}.{minor}"), attrs));
                }
            }
        }
        ContextApi::Gles => {
            for (major, minor) in ES_VERSIONS {
                let attrs = ContextAttributesBuilder::new()
                    .with_context_api(GlutinApi::Gles(Some(Version::new(major, minor))))
                    .build(None);
                attempts.push((format!("ES {major}.{minor}"), attrs));
            }
        }
    }
    let mut errors = Vec::new();
    let mut made = None;
    for (what, attrs) in attempts {
        // SAFETY: config comes from this display.
        match unsafe { display.create_context(&config, &attrs) } {
            Ok(ctx) => {
                made = Some(ctx);
                break;
            }
            Err(e) => errors.push(format!("{what}: {e}")),
        }
    }
    let not_current = made.ok_or_else(|| {
        format!(
            "no {api} context could be created ({})",
            errors.last().cloned().unwrap_or_default()
        )
    })?;
    let context = not_current
        .make_current_surfaceless()
        .map_err(|e| format!("eglMakeCurrent(surfaceless) failed: {e}"))?;
    let gl = gl::Gl::load_with(|name| match CString::new(name) {
        Ok(c) => display.get_proc_address(&c),
        Err(_) => std::ptr::null(),
    });
    let ctx = GlContext {
        gl,
        api,
        context,
        _display: display.clone(),
        device_description: device_description.to_string(),
    };
    let renderer = crate::gl_query::get_string(&ctx.gl, gl::RENDERER);
    let vendor = crate::gl_query::get_string(&ctx.gl, gl::VENDOR);
    let lower = renderer.to_ascii_lowercase();
    let ok = match driver {
        Driver::Nvidia => vendor.to_ascii_lowercase().contains("nvidia"),
        // A hardware driver's renderer names the chip, not the driver: what can be checked is
        // that Mesa did not fall back to a software driver.
        Driver::Mesa(_) => !["llvmpipe", "softpipe", "zink (llvmpipe"]
            .iter()
            .any(|sw| lower.starts_with(sw)),
        Driver::Render(_) => true,
        // "zink (llvmpipe (...))" contains "llvmpipe": compare the start.
        d => lower.starts_with(&d.name()),
    };
    if !ok {
        return Err(format!(
            "asked for {driver} but the context is `{renderer}` by `{vendor}`"
        ));
    }
    Ok(ctx)
}

impl GlContext {
    /// Makes this context current on the calling thread (its API's slot).
    pub fn make_current(&self) -> Result<(), String> {
        self.context
            .make_current_surfaceless()
            .map_err(|e| format!("eglMakeCurrent({}) failed: {e}", self.api))
    }

    /// Releases this context from the calling thread. EGL keeps one current context per
    /// client API and thread, and Mesa routes GL calls to the one made current last: a worker
    /// switching APIs releases the old context first, so exactly one is current.
    pub fn release(&self) -> Result<(), String> {
        self.context
            .make_not_current_in_place()
            .map_err(|e| format!("eglMakeCurrent(none) for {} failed: {e}", self.api))
    }
}
