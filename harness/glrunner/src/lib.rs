//! `conform-glrunner`: runs conform [`ExecPlan`]s on real OpenGL drivers.
//!
//! Every driver runs in its own worker process (`conform worker --driver NAME`), because Mesa
//! picks its Gallium driver from `GALLIUM_DRIVER` once, when EGL loads, and because a driver
//! may crash or hang on a case: the parent ([`Worker`]) sees a crash or a timeout, kills the
//! process, and starts a fresh one for the next plan. Nothing already reported is lost.
//!
//! The worker creates one headless EGL context (EGL device platform, surfaceless, glutin) and
//! reuses it for every plan. The protocol is one JSON object per line: the parent writes a
//! [`Request`], the worker answers one [`Response`].
//!
//! See `docs/DRIVERS.md` for the environment, the protocol and the `api` step actions.

mod api;
mod context;
mod enums;
mod exec;
#[cfg(test)]
mod fake_driver;
mod worker;
mod worker_main;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

pub use api::api_table_markdown;
pub use worker::{
    available_drivers, probe_drivers, Role, Worker, MAX_RESPONSE_BYTES, STARTUP_TIMEOUT,
};
pub use worker_main::{ignore_interrupts, protocol_output, watch_parent, worker_main};

pub use conform_plan::{ExecPlan, Outcome, RawResult, ReferenceKnobs, Refusal};

/// An OpenGL driver conform can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Driver {
    /// Mesa llvmpipe (`GALLIUM_DRIVER=llvmpipe`): GL 4.5 core.
    Llvmpipe,
    /// Mesa softpipe (`GALLIUM_DRIVER=softpipe`): GL 3.3 compatibility with ARB_compute_shader.
    Softpipe,
    /// Mesa zink over a Vulkan driver (`GALLIUM_DRIVER=zink`, lavapipe without a GPU).
    Zink,
    /// The NVIDIA proprietary driver, through its EGL device.
    Nvidia,
}

impl Driver {
    pub const ALL: [Driver; 4] = [
        Driver::Llvmpipe,
        Driver::Softpipe,
        Driver::Zink,
        Driver::Nvidia,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Driver::Llvmpipe => "llvmpipe",
            Driver::Softpipe => "softpipe",
            Driver::Zink => "zink",
            Driver::Nvidia => "nvidia",
        }
    }

    /// Names accepted by [`Driver::from_str`], for "allowed values" hints.
    pub fn names() -> Vec<&'static str> {
        Driver::ALL.iter().map(|d| d.name()).collect()
    }

    /// Whether the driver is one of Mesa's Gallium drivers (chosen by `GALLIUM_DRIVER`).
    pub fn is_mesa(self) -> bool {
        !matches!(self, Driver::Nvidia)
    }

    /// Environment the worker process for this driver gets: `(name, value, overridable)`.
    /// Overridable entries are only set when the caller's environment lacks them.
    pub fn environment(self) -> Vec<(&'static str, &'static str, bool)> {
        let mut env = vec![
            ("MESA_SHADER_CACHE_DISABLE", "true", true),
            ("__GL_SHADER_DISK_CACHE", "0", true),
        ];
        if self.is_mesa() {
            env.push(("GALLIUM_DRIVER", self.name(), false));
            env.push(("LIBGL_ALWAYS_SOFTWARE", "1", false));
        }
        env
    }
}

impl fmt::Display for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Driver {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Driver::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!(
                    "unknown driver `{s}` (known: {})",
                    Driver::names().join(", ")
                )
            })
    }
}

/// What a driver offers, as probed by its worker. The harness checks a case's `requires`
/// against it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverInfo {
    pub driver: Driver,
    /// GL_RENDERER.
    pub renderer: String,
    /// GL_VENDOR.
    pub vendor: String,
    /// GL_VERSION (the full string, with the Mesa version on Mesa).
    pub version: String,
    /// GL_SHADING_LANGUAGE_VERSION.
    pub glsl_version: String,
    /// `core` or `compatibility`.
    pub profile: String,
    /// GL_MAJOR_VERSION, GL_MINOR_VERSION.
    pub gl_version: (u32, u32),
    /// GLSL version as a number (`450`).
    pub glsl: u32,
    /// The extension string, one entry per extension (`GL_ARB_compute_shader`).
    pub extensions: BTreeSet<String>,
    /// GL_SPIR_V_EXTENSIONS (empty without GL_ARB_gl_spirv).
    pub spirv_extensions: BTreeSet<String>,
    /// Implementation limits by enum name without the `GL_` prefix
    /// (`MAX_COMPUTE_WORK_GROUP_COUNT: [x, y, z]`). Limits of absent features are left out.
    pub limits: BTreeMap<String, Vec<i64>>,
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
    /// Run one plan (driver workers).
    Run(ExecPlan),
    /// Run one plan on the reference interpreter with the case's knobs (reference workers);
    /// answered with [`Response::Run`].
    RunReference(ExecPlan, ReferenceKnobs),
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
        for d in Driver::ALL {
            assert_eq!(d.name().parse::<Driver>().unwrap(), d);
            assert_eq!(
                serde_json::to_string(&d).unwrap(),
                format!("\"{}\"", d.name())
            );
        }
        assert!("swrast".parse::<Driver>().is_err());
    }

    #[test]
    fn mesa_drivers_pin_gallium_driver() {
        let env = Driver::Softpipe.environment();
        assert!(env.contains(&("GALLIUM_DRIVER", "softpipe", false)));
        assert!(env.contains(&("MESA_SHADER_CACHE_DISABLE", "true", true)));
        assert!(!Driver::Nvidia
            .environment()
            .iter()
            .any(|(k, _, _)| *k == "GALLIUM_DRIVER"));
    }

    #[test]
    fn requests_are_one_line() {
        let line = serde_json::to_string(&Request::Probe).unwrap();
        assert!(!line.contains('\n'));
        let back: Request = serde_json::from_str(&line).unwrap();
        assert_eq!(back, Request::Probe);
    }
}
