//! Vulkan drivers as backends (`vk:lavapipe`, `vk:radv`, `vk:anv`, `vk:nvidia`, and
//! `vk:DRIVER@PREFIX` for a Mesa install's): a case's requirements translated to the
//! device's extensions and features (`conform_vkrunner::translate`), the plan checked for
//! what only GL has (`conform_vkrunner::support`), and a worker process per executor.

use crate::backend::{BackendFactory, Executor, Job};
use crate::install::Install;
use conform_judge::identity::BackendIdentity;
use conform_plan::RawResult;
use conform_vkrunner::translate::{self, Need};
use conform_vkrunner::{VkDriver, VkInfo, VkWorker};
use std::path::PathBuf;

/// The first requirement of `job` the device lacks or that has no Vulkan translation, or
/// the first thing of its plan only GL has: the skip's reason.
pub fn missing_requirement(job: &Job, info: &VkInfo) -> Option<String> {
    let r = job.requires;
    if r.gles.is_some() {
        return Some("an OpenGL ES case (GL only)".into());
    }
    // `gl`, `glsl` and `profile` describe the GL context; a SPIR-V module on Vulkan needs
    // none of them (its capabilities and extensions say what it needs, and are checked).
    let mut needs: Vec<Need> = Vec::new();
    for ext in &r.extensions {
        match translate::gl_extension(ext) {
            Ok(n) => needs.extend(n),
            Err(why) => return Some(why),
        }
    }
    for ext in &r.spirv_extensions {
        match translate::spirv_extension(ext) {
            Ok(n) => needs.extend(n),
            Err(why) => return Some(why),
        }
    }
    for (name, min) in &r.limits {
        match translate::gl_limit(name) {
            Ok(limit) => needs.push(Need::Limit(limit, *min)),
            Err(why) => return Some(why),
        }
    }
    if let Some(why) = info.first_lack(&needs) {
        return Some(why);
    }
    conform_vkrunner::support::check(job.plan, info).err()
}

/// A backend's name: `vk:lavapipe`, with `@` and the install's label for a Mesa install.
pub fn backend_name(driver: VkDriver, install: Option<&Install>) -> String {
    match install {
        None => driver.name(),
        Some(i) => format!("{}@{}", driver.name(), i.mesa.label()),
    }
}

fn argument(driver: VkDriver, install: Option<&Install>) -> String {
    match install {
        None => driver.name(),
        Some(i) => format!("{}@{}", driver.name(), i.mesa.prefix.display()),
    }
}

/// The identity of a probed Vulkan device (`conform_judge::identity`).
pub fn identity(info: &VkInfo, install: Option<&Install>) -> BackendIdentity {
    let mut id =
        BackendIdentity::driver(&info.driver_name, &info.device_name, &info.version_line());
    id.libraries = info.libraries.clone();
    id.install = install.map(|i| i.mesa.prefix.display().to_string());
    id
}

/// A Vulkan driver found on this machine.
pub struct VkBackend {
    pub info: VkInfo,
    pub exe: PathBuf,
    pub install: Option<Install>,
}

/// A Vulkan driver asked for that is absent (no loader, no device of that driver).
pub struct AbsentVk {
    pub driver: VkDriver,
    pub install: Option<Install>,
    pub reason: String,
}

struct VkExecutor {
    info: VkInfo,
    worker: VkWorker,
}

impl Executor for VkExecutor {
    fn missing(&self, job: &Job) -> Option<String> {
        missing_requirement(job, &self.info)
    }

    fn run(&mut self, job: &Job) -> RawResult {
        let limit = std::time::Duration::from_millis(job.plan.timeout_ms);
        self.worker.run(job.plan, limit)
    }

    fn take_events(&mut self) -> Vec<String> {
        self.worker.take_events()
    }

    fn cancel_on(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.worker.cancel_on(flag);
    }
}

impl BackendFactory for VkBackend {
    fn name(&self) -> String {
        backend_name(self.info.driver, self.install.as_ref())
    }

    fn argument(&self) -> String {
        argument(self.info.driver, self.install.as_ref())
    }

    fn identity(&self) -> Option<BackendIdentity> {
        Some(identity(&self.info, self.install.as_ref()))
    }

    fn make(&self) -> Result<Box<dyn Executor>, String> {
        let mut worker = VkWorker::with_exe(self.exe.clone(), self.info.driver);
        if let Some(i) = &self.install {
            worker.launch(&i.launch);
        }
        Ok(Box::new(VkExecutor {
            info: self.info.clone(),
            worker,
        }))
    }
}

impl BackendFactory for AbsentVk {
    fn name(&self) -> String {
        backend_name(self.driver, self.install.as_ref())
    }

    fn argument(&self) -> String {
        argument(self.driver, self.install.as_ref())
    }

    fn absent(&self) -> Option<String> {
        Some(self.reason.clone())
    }

    fn make(&self) -> Result<Box<dyn Executor>, String> {
        Err(self.reason.clone())
    }
}

/// A Mesa install a Vulkan backend runs must have lavapipe: its environment names the
/// install's ICD file (`conform_glrunner::install`), which only exists with it.
pub fn check_install(install: &Install) -> Result<(), String> {
    match install.mesa.lavapipe {
        Some(_) => Ok(()),
        None => Err(format!(
            "Mesa install {} has no libvulkan_lvp.so (lavapipe)",
            install.mesa.prefix.display()
        )),
    }
}

/// Makes the backends of the Vulkan drivers named (each with its install, if any), probing
/// each in a worker; an absent one is an [`AbsentVk`].
pub fn backends(
    exe: &std::path::Path,
    wanted: &[(VkDriver, Option<Install>)],
) -> Vec<Box<dyn BackendFactory>> {
    let mut out: Vec<Box<dyn BackendFactory>> = Vec::new();
    for (driver, install) in wanted {
        let env = install
            .as_ref()
            .map(|i| i.launch.clone())
            .unwrap_or_default();
        let probed = conform_vkrunner::probe_vulkan(exe, &[*driver], &env);
        let name = backend_name(*driver, install.as_ref());
        match probed.into_iter().next().map(|(_, r)| r) {
            Some(Ok(info)) => {
                eprintln!(
                    "driver {name}: {} ({})",
                    info.device_name,
                    info.version_line()
                );
                out.push(Box::new(VkBackend {
                    info,
                    exe: exe.to_path_buf(),
                    install: install.clone(),
                }));
            }
            Some(Err(reason)) => out.push(Box::new(AbsentVk {
                driver: *driver,
                install: install.clone(),
                reason,
            })),
            None => {}
        }
    }
    out
}

/// `conform drivers`' Vulkan part: every Vulkan driver probed (of `install`, when given),
/// one block each.
pub fn render_all(exe: &std::path::Path, install: Option<&Install>) -> String {
    let env = install.map(|i| i.launch.clone()).unwrap_or_default();
    let mut o = String::from("\nVulkan drivers:\n\n");
    for (driver, info) in conform_vkrunner::probe_vulkan(exe, &VkDriver::ALL, &env) {
        o.push_str(&render_info(&backend_name(driver, install), &info));
    }
    o
}

/// `conform drivers --format json`'s Vulkan part: every Vulkan driver probed (of `install`,
/// when given), with its backend name, identity and description, or why it is absent.
pub fn json_all(exe: &std::path::Path, install: Option<&Install>) -> serde_json::Value {
    let env = install.map(|i| i.launch.clone()).unwrap_or_default();
    let drivers: Vec<serde_json::Value> = conform_vkrunner::probe_vulkan(exe, &VkDriver::ALL, &env)
        .into_iter()
        .map(|(driver, info)| match info {
            Ok(i) => serde_json::json!({
                "driver": driver,
                "backend": backend_name(driver, install),
                "available": true,
                "identity": identity(&i, install),
                "info": i,
            }),
            Err(why) => serde_json::json!({
                "driver": driver,
                "backend": backend_name(driver, install),
                "available": false,
                "reason": why,
            }),
        })
        .collect();
    serde_json::Value::Array(drivers)
}

/// `conform drivers`: one block per Vulkan driver.
pub fn render_info(name: &str, info: &Result<VkInfo, String>) -> String {
    let mut o = String::new();
    let i = match info {
        Err(why) => return format!("{name}: absent ({why})\n"),
        Ok(i) => i,
    };
    let (a, b, c) = i.api_version;
    o.push_str(&format!("{name}: {}\n", i.device_name));
    o.push_str(&format!(
        "  driver:   {} {} ({})\n",
        i.driver_name, i.driver_version, i.driver_info
    ));
    o.push_str(&format!("  Vulkan:   {a}.{b}.{c}\n"));
    o.push_str(&format!(
        "  conformance version: {}\n",
        i.conformance_version
    ));
    if !i.libraries.is_empty() {
        o.push_str(&format!("  loaded:   {}\n", i.libraries.join(" ")));
    }
    let ext: Vec<&str> = ["VK_EXT_shader_atomic_float", "VK_EXT_shader_atomic_float2"]
        .into_iter()
        .filter(|e| i.extensions.contains(*e))
        .collect();
    o.push_str(&format!(
        "  relevant extensions: {}\n",
        if ext.is_empty() {
            "none".to_string()
        } else {
            ext.join(" ")
        }
    ));
    let on: Vec<&str> = i
        .features
        .iter()
        .filter(|(_, v)| **v)
        .map(|(k, _)| k.as_str())
        .collect();
    let off: Vec<&str> = i
        .features
        .iter()
        .filter(|(_, v)| !**v)
        .map(|(k, _)| k.as_str())
        .collect();
    o.push_str(&format!("  features: {}\n", on.join(" ")));
    o.push_str(&format!("  without:  {}\n", off.join(" ")));
    let ops: Vec<&str> = i.subgroups.operations.iter().map(String::as_str).collect();
    o.push_str(&format!(
        "  subgroups: size {}, {}compute, operations {}\n",
        i.subgroups.size,
        if i.subgroups.in_compute {
            ""
        } else {
            "not in "
        },
        ops.join(" ")
    ));
    for (k, v) in &i.limits {
        o.push_str(&format!("  {k:<44} {v:?}\n"));
    }
    o.push_str(&format!(
        "  ({} device extensions in all)\n",
        i.extensions.len()
    ));
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_case::Case;
    use std::path::Path;

    fn lavapipe() -> VkInfo {
        VkInfo {
            driver: VkDriver::Lavapipe,
            device_name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(),
            driver_name: "llvmpipe".into(),
            driver_info: "Mesa 22.3.6 (LLVM 15.0.6)".into(),
            driver_version: "22.3.6".into(),
            api_version: (1, 3, 230),
            conformance_version: "1.3.1.1".into(),
            extensions: ["VK_EXT_shader_atomic_float".to_string()]
                .into_iter()
                .collect(),
            features: [("shaderFloat64".to_string(), true)].into_iter().collect(),
            subgroups: Default::default(),
            limits: [("maxComputeSharedMemorySize".to_string(), vec![32768])]
                .into_iter()
                .collect(),
            libraries: Vec::new(),
            formats: Default::default(),
        }
    }

    fn case(requires: &str, language: &str) -> Case {
        let text = format!(
            "spec: [X]\nrequires: {requires}\nprogram: {{language: {language}, source: \"x\"}}\n"
        );
        conform_case::parse(Path::new("t.yaml"), &text, None).unwrap()
    }

    fn missing(requires: &str, language: &str) -> Option<String> {
        missing_requirement(&Job::of(&case(requires, language)), &lavapipe())
    }

    #[test]
    fn requirements_translate_or_name_themselves() {
        assert_eq!(
            missing("{gles: \"3.1\"}", "glsl").as_deref(),
            Some("an OpenGL ES case (GL only)")
        );
        assert_eq!(
            missing("{extensions: [GL_NV_shader_thread_shuffle]}", "glsl").as_deref(),
            Some(
                "GL_NV_shader_thread_shuffle: a GL extension with no Vulkan translation in conform"
            )
        );
        assert_eq!(
            missing(
                "{spirv_extensions: [SPV_EXT_shader_atomic_float_min_max]}",
                "glsl"
            )
            .as_deref(),
            Some("the device extension VK_EXT_shader_atomic_float2")
        );
        assert_eq!(
            missing("{limits: {MAX_COMPUTE_SHARED_MEMORY_SIZE: 65536}}", "glsl").as_deref(),
            Some("maxComputeSharedMemorySize >= 65536 (device has [32768])")
        );
        // What the requirements allow, the plan may still not: a GLSL program.
        assert_eq!(
            missing(
                "{gl: \"4.6\", extensions: [GL_ARB_gpu_shader_fp64], spirv_extensions: [SPV_EXT_shader_atomic_float_add]}",
                "glsl"
            )
            .as_deref(),
            Some("a GLSL program (Vulkan runs SPIR-V only)")
        );
        assert_eq!(
            missing("{}", "nvasm").as_deref(),
            Some("an NV assembly program (GL only)")
        );
    }
}
