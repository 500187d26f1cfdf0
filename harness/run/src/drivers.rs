//! GL drivers as backends: requirement checks against a probed [`DriverInfo`], and a
//! worker process per executor.
//!
//! The worker protocol, the isolation and the `api` actions live in `conform-glrunner`
//! (see docs/DRIVERS.md); this module only decides skips and maps worker results.

use crate::backend::{current_exe, BackendFactory, Executor, Job};
pub use crate::install::Install;
use crate::reference::ReferenceBackend;
use conform_case::model::Profile;
use conform_case::parse_gl_version;
use conform_glrunner::install::MesaInstall;
use conform_glrunner::{ContextApi, Driver, DriverInfo, EglDevice, Worker};
use conform_judge::identity::BackendIdentity;
use conform_plan::{Language, RawResult};
use conform_vkrunner::VkDriver;
use std::path::PathBuf;

/// The first requirement of `job` that `info` lacks, described for a skip message.
///
/// A case with `requires.gles` runs in the worker's OpenGL ES context: everything else it
/// requires (GLSL version, extensions, limits, languages) is checked against that context's
/// description.
pub fn missing_requirement(job: &Job, info: &DriverInfo) -> Option<String> {
    let r = job.requires;
    let info = match r.gles.as_deref().and_then(parse_gl_version) {
        None => info,
        Some((major, minor)) => {
            let es = match &info.gles {
                Ok(es) => es,
                Err(why) => return Some(format!("an OpenGL ES context (driver: {why})")),
            };
            if !es.at_least(major, minor) {
                return Some(format!(
                    "OpenGL ES {major}.{minor} (driver has {}.{})",
                    es.gl_version.0, es.gl_version.1
                ));
            }
            es
        }
    };
    if let Some((major, minor)) = r.gl.as_deref().and_then(parse_gl_version) {
        if !info.at_least(major, minor) {
            return Some(format!(
                "GL {major}.{minor} (driver has {}.{})",
                info.gl_version.0, info.gl_version.1
            ));
        }
    }
    if let Some(glsl) = r.glsl {
        if info.glsl < glsl {
            return Some(format!("GLSL {glsl} (driver has {})", info.glsl));
        }
    }
    if let Some(p) = r.profile {
        let want = match p {
            Profile::Core => "core",
            Profile::Compatibility => "compatibility",
        };
        if info.profile != want {
            return Some(format!(
                "a {want} profile context (driver has {})",
                info.profile
            ));
        }
    }
    if let Some(ext) = r.extensions.iter().find(|e| !info.has_extension(e)) {
        return Some(ext.clone());
    }
    if let Some(ext) = r
        .spirv_extensions
        .iter()
        .find(|e| !info.spirv_extensions.contains(*e))
    {
        return Some(format!("{ext} in GL_SPIR_V_EXTENSIONS"));
    }
    for (name, min) in &r.limits {
        let key = name.strip_prefix("GL_").unwrap_or(name);
        match info.limits.get(key) {
            Some(v) if v.iter().all(|x| x >= min) => {}
            Some(v) => return Some(format!("{key} >= {min} (driver has {v:?})")),
            None => return Some(format!("{key} >= {min} (driver does not report it)")),
        }
    }
    // Languages need their GL entry points, whatever the case lists.
    for p in &job.plan.programs {
        let need = match p.language {
            Language::Nvasm => "GL_NV_compute_program5",
            Language::Spirv | Language::SpirvAsm => "GL_ARB_gl_spirv",
            Language::Glsl => {
                // A desktop GLSL program needs the GLSL version its `#version` names, whatever
                // the case's `requires` says: a GL 4.3 driver rightly refuses `#version 450`.
                match glsl_version_directive(&p.text) {
                    Some(v) if r.gles.is_none() && info.glsl < v => {
                        return Some(format!(
                            "GLSL {v} (the program's #version; driver has {})",
                            info.glsl
                        ))
                    }
                    _ => continue,
                }
            }
        };
        let core_spirv = need == "GL_ARB_gl_spirv" && info.at_least(4, 6);
        if !core_spirv && !info.has_extension(need) {
            return Some(need.to_string());
        }
    }
    None
}

/// The version a desktop GLSL source's `#version` directive names (`450`); `None` for an ES
/// source (`#version 310 es`) or one without the directive (GLSL 1.10, which every driver
/// here has). Only the first `#version` line counts, as in a compiler.
fn glsl_version_directive(source: &str) -> Option<u32> {
    let line = source
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("#") && l[1..].trim_start().starts_with("version"))?;
    let mut words = line[1..].trim_start()["version".len()..].split_whitespace();
    let version = words.next()?.parse().ok()?;
    match words.next() {
        Some("es") => None,
        _ => Some(version),
    }
}

/// A driver found on this machine: the system's, or one of a Mesa install prefix.
pub struct DriverBackend {
    pub info: DriverInfo,
    pub exe: PathBuf,
    /// The Mesa install the driver's workers load, with their environment.
    pub install: Option<Install>,
}

/// A backend's name: the driver's, with `@` and the install's label for a Mesa install.
fn backend_name(driver: Driver, install: Option<&Install>) -> String {
    match install {
        None => driver.name(),
        Some(i) => format!("{}@{}", driver.name(), i.mesa.label()),
    }
}

/// The identity of a probed driver (`conform_judge::identity`).
pub fn identity(info: &DriverInfo, install: Option<&MesaInstall>) -> BackendIdentity {
    let mut id = BackendIdentity::driver(&info.vendor, &info.renderer, &info.version);
    id.glsl_version = info.glsl_version.clone();
    id.es_version = Some(match &info.gles {
        Ok(es) => es.version.clone(),
        Err(why) => format!("none ({why})"),
    });
    id.egl_device = Some(info.egl_device.clone()).filter(|d| !d.is_empty());
    id.libraries = info.libraries.clone();
    id.install = install.map(|i| i.prefix.display().to_string());
    id
}

/// A driver that was asked for but is absent: every case is skipped with the reason.
pub struct AbsentDriver {
    pub driver: Driver,
    pub install: Option<Install>,
    pub reason: String,
}

struct DriverExecutor {
    info: DriverInfo,
    worker: Worker,
}

impl Executor for DriverExecutor {
    fn missing(&self, job: &Job) -> Option<String> {
        missing_requirement(job, &self.info)
    }

    fn run(&mut self, job: &Job) -> RawResult {
        let api = match job.requires.gles {
            Some(_) => ContextApi::Gles,
            None => ContextApi::Gl,
        };
        let limit = std::time::Duration::from_millis(job.plan.timeout_ms);
        self.worker.run_in(api, job.plan, limit)
    }

    fn take_events(&mut self) -> Vec<String> {
        self.worker.take_events()
    }

    fn cancel_on(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.worker.cancel_on(flag);
    }
}

impl BackendFactory for DriverBackend {
    fn name(&self) -> String {
        backend_name(self.info.driver, self.install.as_ref())
    }

    fn argument(&self) -> String {
        argument(self.info.driver, self.install.as_ref())
    }

    fn identity(&self) -> Option<BackendIdentity> {
        Some(identity(&self.info, self.install.as_ref().map(|i| &i.mesa)))
    }

    fn make(&self) -> Result<Box<dyn Executor>, String> {
        let mut worker = Worker::with_exe(self.exe.clone(), self.info.driver);
        if let Some(i) = &self.install {
            worker.launch(&i.launch);
        }
        Ok(Box::new(DriverExecutor {
            info: self.info.clone(),
            worker,
        }))
    }
}

/// What `--backend` takes to select this backend again (the install's whole prefix).
fn argument(driver: Driver, install: Option<&Install>) -> String {
    match install {
        None => driver.name(),
        Some(i) => format!("{}@{}", driver.name(), i.mesa.prefix.display()),
    }
}

impl BackendFactory for AbsentDriver {
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

/// Probes the named drivers (every driver reachable for `None`) with worker processes of
/// `exe`.
pub fn probe(
    exe: &std::path::Path,
    only: Option<&[Driver]>,
) -> Vec<(Driver, Result<DriverInfo, String>)> {
    match only {
        None => conform_glrunner::probe_drivers(exe),
        Some(these) => conform_glrunner::probe_these(exe, these.to_vec()),
    }
}

/// `conform drivers`' first part: every EGL device and the drivers reachable on it.
pub fn render_devices(devices: &Result<Vec<EglDevice>, String>) -> String {
    let mut o = String::from("EGL devices:\n");
    let devices = match devices {
        Err(why) => return format!("{o}  none listed: {why}\n"),
        Ok(d) if d.is_empty() => return format!("{o}  none\n"),
        Ok(d) => d,
    };
    for d in devices {
        let mut what = Vec::new();
        if d.software {
            what.push("Mesa's software device".to_string());
        }
        if let Some(n) = &d.render_node {
            what.push(n.clone());
        } else if let Some(n) = &d.drm_node {
            what.push(n.clone());
        }
        if let Some(k) = &d.kernel_driver {
            what.push(format!("kernel driver {k}"));
        }
        if let Some(v) = &d.vendor {
            what.push(format!("vendor {v}"));
        }
        if let Some(n) = &d.name {
            what.push(n.clone());
        }
        let drivers: Vec<String> = d.drivers().iter().map(|x| x.name()).collect();
        o.push_str(&format!(
            "  {}: {}\n    drivers: {}\n",
            d.index,
            what.join(", "),
            if drivers.is_empty() {
                "none conform knows".to_string()
            } else {
                drivers.join(", ")
            }
        ));
    }
    o
}

/// `conform drivers`: one block per driver.
pub fn render_info(driver: &str, info: &Result<DriverInfo, String>) -> String {
    let mut o = String::new();
    match info {
        Err(why) => o.push_str(&format!("{driver}: absent ({why})\n")),
        Ok(i) => {
            o.push_str(&format!("{driver}: {}\n", i.renderer));
            o.push_str(&format!("  vendor:   {}\n", i.vendor));
            o.push_str(&format!(
                "  version:  {} ({} profile)\n",
                i.version, i.profile
            ));
            o.push_str(&format!("  GLSL:     {}\n", i.glsl_version));
            if !i.libraries.is_empty() {
                o.push_str(&format!("  loaded:   {}\n", i.libraries.join(" ")));
            }
            match &i.gles {
                Ok(es) => o.push_str(&format!(
                    "  ES:       {} (GLSL ES {})\n",
                    es.version, es.glsl
                )),
                Err(why) => o.push_str(&format!("  ES:       none ({why})\n")),
            }
            for (k, v) in &i.limits {
                o.push_str(&format!("  {k:<44} {v:?}\n"));
            }
            let relevant: Vec<&String> = i
                .extensions
                .iter()
                .filter(|e| RELEVANT_EXTENSIONS.contains(&e.as_str()))
                .collect();
            let missing: Vec<&&str> = RELEVANT_EXTENSIONS
                .iter()
                .filter(|r| !i.has_extension(r))
                .collect();
            o.push_str(&format!(
                "  relevant extensions: {}\n",
                join(relevant.iter().map(|s| s.as_str()))
            ));
            o.push_str(&format!(
                "  missing: {}\n",
                join(missing.iter().map(|s| **s))
            ));
            o.push_str(&format!(
                "  SPIR-V extensions: {}\n",
                join(i.spirv_extensions.iter().map(String::as_str))
            ));
            o.push_str(&format!("  ({} extensions in all)\n", i.extensions.len()));
        }
    }
    o
}

fn join<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = items.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(" ")
    }
}

/// Extensions the mission's cases depend on, for `conform drivers`.
pub const RELEVANT_EXTENSIONS: &[&str] = &[
    "GL_ARB_compute_shader",
    "GL_ARB_shader_storage_buffer_object",
    "GL_ARB_gl_spirv",
    "GL_ARB_spirv_extensions",
    "GL_ARB_shader_atomic_counters",
    "GL_ARB_compute_variable_group_size",
    "GL_NV_compute_program5",
    "GL_NV_gpu_program5",
    "GL_NV_shader_storage_buffer_object",
    "GL_NV_shader_thread_shuffle",
    "GL_NV_shader_thread_group",
    "GL_NV_shader_atomic_float",
    "GL_NV_shader_atomic_float64",
    "GL_NV_shader_atomic_int64",
    "GL_NV_parameter_buffer_object",
    "GL_EXT_shader_atomic_float",
];

/// The driver `name` names, or why not: the known names, and the closest one when `name` is
/// likely a typo of it (or of `reference` or `all`, which `--backend` also takes).
pub fn parse_driver(name: &str) -> Result<Driver, String> {
    name.parse::<Driver>().map_err(|why| {
        let names = Driver::names();
        let candidates = ["reference", "all"]
            .into_iter()
            .chain(names.iter().map(String::as_str))
            .filter(|n| !n.contains('<'));
        match conform_io::diag::did_you_mean(&name.to_ascii_lowercase(), candidates) {
            Some(m) => format!("{why}; did you mean `{m}`?"),
            None => why,
        }
    })
}

/// Opens the install at `prefix` under the name it has in results, one name per prefix across
/// the GL and the Vulkan backends of a run: a prefix already opened keeps its name; the second
/// install of one Mesa version gets its directory in its name too (`25.0.7-mesa-trixie`), so
/// that `llvmpipe@A,vk:lavapipe@A,llvmpipe@B,vk:lavapipe@B` never gives two backends one name.
fn open_install(prefix: &str, opened: &mut Vec<Install>) -> Result<Install, String> {
    let mut install = Install::open(prefix)?;
    if let Some(same) = opened.iter().find(|i| i.mesa.prefix == install.mesa.prefix) {
        return Ok(same.clone());
    }
    if opened
        .iter()
        .any(|i| i.mesa.label() == install.mesa.label())
    {
        install.mesa.distinguish();
    }
    if let Some(other) = opened
        .iter()
        .find(|i| i.mesa.label() == install.mesa.label())
    {
        return Err(format!(
            "Mesa installs {} and {} have the same name `{}` in results: \
             give them prefixes with different last components",
            other.mesa.prefix.display(),
            install.mesa.prefix.display(),
            install.mesa.label()
        ));
    }
    opened.push(install.clone());
    Ok(install)
}

/// The backends a command line names, before anything is probed: the reference, the system's
/// GL drivers, each install's GL drivers and the Vulkan drivers, every install under its name
/// in results ([`open_install`]).
struct Named {
    reference: bool,
    /// `all`: every GL driver found on the system.
    all_drivers: bool,
    /// System GL drivers named.
    want: Vec<Driver>,
    /// Per install prefix (in the order named): the install and its GL drivers.
    installs: Vec<(Install, Vec<Driver>)>,
    /// Vulkan drivers (`vk:lavapipe`, `vk:lavapipe@PREFIX`), in the order named.
    vulkan: Vec<(VkDriver, Option<Install>)>,
}

fn named(names: &[String]) -> Result<Named, String> {
    let mut want_reference = false;
    let mut want: Vec<Driver> = Vec::new();
    let mut all_drivers = false;
    // Per install prefix (in the order named): the install and its drivers.
    let mut installs: Vec<(Install, Vec<Driver>)> = Vec::new();
    // Vulkan drivers (`vk:lavapipe`, `vk:lavapipe@PREFIX`), in the order named.
    let mut vulkan: Vec<(VkDriver, Option<Install>)> = Vec::new();
    // Every install named, GL and Vulkan alike, so that one prefix has one name in results.
    let mut opened: Vec<Install> = Vec::new();
    for n in names {
        if n.to_ascii_lowercase().starts_with("vk:") {
            let (driver, prefix) = match n.split_once('@') {
                Some((d, p)) => (d, Some(p)),
                None => (n.as_str(), None),
            };
            let d: VkDriver = driver
                .parse()
                .map_err(|why| format!("unknown backend `{n}`: {why}"))?;
            let install = prefix.map(|p| open_install(p, &mut opened)).transpose()?;
            if let Some(i) = &install {
                crate::vulkan::check_install(i)?;
            }
            let same = |(x, i): &(VkDriver, Option<Install>)| {
                *x == d
                    && i.as_ref().map(|i| &i.mesa.prefix)
                        == install.as_ref().map(|i| &i.mesa.prefix)
            };
            if !vulkan.iter().any(same) {
                vulkan.push((d, install));
            }
            continue;
        }
        match n.as_str() {
            "reference" => want_reference = true,
            "all" => {
                want_reference = true;
                all_drivers = true;
            }
            other => {
                let (driver, prefix) = match other.split_once('@') {
                    Some((d, p)) => (d, Some(p)),
                    None => (other, None),
                };
                let d = parse_driver(driver).map_err(|why| {
                    format!(
                        "unknown backend `{other}` (reference, all, a driver or DRIVER@PREFIX: {why})"
                    )
                })?;
                match prefix {
                    None => {
                        if !want.contains(&d) {
                            want.push(d);
                        }
                    }
                    Some(prefix) => {
                        if !d.is_mesa() {
                            return Err(format!(
                                "backend `{other}`: only Mesa's drivers run from an install prefix"
                            ));
                        }
                        let install = open_install(prefix, &mut opened)?;
                        let i = match installs
                            .iter()
                            .position(|(i, _)| i.mesa.prefix == install.mesa.prefix)
                        {
                            Some(i) => i,
                            None => {
                                installs.push((install, Vec::new()));
                                installs.len() - 1
                            }
                        };
                        if !installs[i].1.contains(&d) {
                            installs[i].1.push(d);
                        }
                    }
                }
            }
        }
    }
    Ok(Named {
        reference: want_reference,
        all_drivers,
        want,
        installs,
        vulkan,
    })
}

/// Backends named on the command line (`reference`, a driver name, `DRIVER@PREFIX` for a
/// driver of a Mesa install, `vk:DRIVER` or `vk:DRIVER@PREFIX` for a Vulkan driver
/// (`crate::vulkan`), or `all`: the reference and every GL driver found on the system).
/// The reference runs in worker processes of this executable. A named driver that is absent
/// becomes an [`AbsentDriver`], whose cases are skipped with the reason (and which makes the
/// run incomplete: `ci`). A prefix that holds no Mesa is an error: nothing would run.
pub fn backends(names: &[String]) -> Result<Vec<Box<dyn BackendFactory>>, String> {
    let Named {
        reference: want_reference,
        all_drivers,
        want,
        installs,
        vulkan,
    } = named(names)?;
    let mut out: Vec<Box<dyn BackendFactory>> = Vec::new();
    if want_reference {
        out.push(Box::new(ReferenceBackend::workers()?));
    }
    if all_drivers || !want.is_empty() || !installs.is_empty() {
        let exe = current_exe()?;
        let mut probed: Vec<(Option<Install>, Driver, Result<DriverInfo, String>)> = Vec::new();
        if all_drivers || !want.is_empty() {
            let only = if all_drivers {
                None
            } else {
                Some(want.as_slice())
            };
            probed.extend(probe(&exe, only).into_iter().map(|(d, r)| (None, d, r)));
        }
        for (install, drivers) in installs {
            let found = conform_glrunner::probe_with_env(&exe, drivers, &install.launch);
            probed.extend(
                found
                    .into_iter()
                    .map(|(d, r)| (Some(install.clone()), d, r)),
            );
        }
        for (install, driver, info) in probed {
            let name = backend_name(driver, install.as_ref());
            match info {
                Ok(info) => {
                    eprintln!("driver {name}: {} ({})", info.renderer, info.version);
                    out.push(Box::new(DriverBackend {
                        info,
                        exe: exe.clone(),
                        install,
                    }));
                }
                // With `all`, an absent system driver is simply not part of the run.
                Err(reason) if all_drivers && install.is_none() && !want.contains(&driver) => {
                    eprintln!("driver {name}: absent ({reason})");
                }
                Err(reason) => out.push(Box::new(AbsentDriver {
                    driver,
                    install,
                    reason,
                })),
            }
        }
    }
    if !vulkan.is_empty() {
        out.extend(crate::vulkan::backends(&current_exe()?, &vulkan));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_case::Case;
    use std::path::Path;

    /// A misspelt backend gets the name it is likely to mean, before anything is probed.
    #[test]
    fn a_backend_typo_gets_a_suggestion() {
        let err = |names: &[&str]| {
            let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            match backends(&names) {
                Ok(_) => panic!("{names:?} parsed"),
                Err(e) => e,
            }
        };
        let e = err(&["llvmpip"]);
        assert!(e.starts_with("unknown backend `llvmpip`"), "{e}");
        assert!(e.contains("did you mean `llvmpipe`?"), "{e}");
        assert!(err(&["referenc"]).contains("did you mean `reference`?"));
        assert!(err(&["reference", "zinc"]).contains("did you mean `zink`?"));
        assert!(!err(&["frobnicate"]).contains("did you mean"));
        assert_eq!(parse_driver("LLVMpipe"), Ok(Driver::Llvmpipe));
    }

    /// One Mesa install has one name in results, whether GL or Vulkan backends named it; and
    /// a second install of the same Mesa version is told apart by its directory in both (it was
    /// not on the Vulkan side: `vk:lavapipe@25.0.7` twice in one run, for bookworm-backports'
    /// 25.0.7 and trixie's).
    #[test]
    fn installs_of_one_mesa_version_get_one_name_each_in_gl_and_vulkan_backends() {
        let fake = |version: &str| {
            let dir = tempfile::tempdir().unwrap();
            let lib = dir.path().join("usr/lib/x86_64-linux-gnu");
            std::fs::create_dir_all(lib.join("dri")).unwrap();
            std::fs::write(lib.join("libEGL_mesa.so.0"), b"").unwrap();
            std::fs::write(lib.join("libvulkan_lvp.so"), b"").unwrap();
            std::fs::write(dir.path().join(".mesa-version"), version).unwrap();
            dir
        };
        let (a, b) = (fake("25.0.7-2~bpo12+1\n"), fake("25.0.7-2+deb13u1\n"));
        let (a, b) = (a.path().to_str().unwrap(), b.path().to_str().unwrap());
        let b_dir = Path::new(b).file_name().unwrap().to_str().unwrap();
        let names = |order: &[String]| {
            let n = named(order).unwrap();
            let mut out: Vec<String> = n
                .installs
                .iter()
                .flat_map(|(i, ds)| ds.iter().map(|d| backend_name(*d, Some(i))))
                .collect();
            out.extend(
                n.vulkan
                    .iter()
                    .map(|(d, i)| crate::vulkan::backend_name(*d, i.as_ref())),
            );
            out
        };
        let second = format!("25.0.7-{b_dir}");
        for order in [
            [
                format!("llvmpipe@{a}"),
                format!("vk:lavapipe@{a}"),
                format!("zink@{b}"),
                format!("vk:lavapipe@{b}"),
            ],
            [
                format!("vk:lavapipe@{a}"),
                format!("vk:lavapipe@{b}"),
                format!("llvmpipe@{a}"),
                format!("zink@{b}"),
            ],
        ] {
            let mut got = names(&order);
            got.sort();
            let mut want = vec![
                "llvmpipe@25.0.7".to_string(),
                format!("zink@{second}"),
                "vk:lavapipe@25.0.7".to_string(),
                format!("vk:lavapipe@{second}"),
            ];
            want.sort();
            assert_eq!(got, want, "{order:?}");
        }
    }

    fn info() -> DriverInfo {
        DriverInfo {
            driver: Driver::Softpipe,
            renderer: "softpipe".into(),
            vendor: "Mesa".into(),
            version: "3.3 (Compatibility Profile) Mesa 22.3.6".into(),
            glsl_version: "3.30".into(),
            profile: "compatibility".into(),
            gl_version: (3, 3),
            glsl: 330,
            extensions: ["GL_ARB_compute_shader".to_string()].into_iter().collect(),
            spirv_extensions: Default::default(),
            limits: [("MAX_COMPUTE_SHARED_MEMORY_SIZE".to_string(), vec![32768])]
                .into_iter()
                .collect(),
            api: ContextApi::Gl,
            egl_device: String::new(),
            libraries: Vec::new(),
            gles: Ok(Box::new(DriverInfo {
                api: ContextApi::Gles,
                version: "OpenGL ES 3.1 Mesa 22.3.6".into(),
                glsl_version: "OpenGL ES GLSL ES 3.10".into(),
                profile: "es".into(),
                gl_version: (3, 1),
                glsl: 310,
                extensions: ["GL_EXT_shader_integer_mix".to_string()]
                    .into_iter()
                    .collect(),
                limits: Default::default(),
                gles: Err("an ES context itself".into()),
                ..es_free()
            })),
        }
    }

    /// The desktop description without its ES one (for building the ES one).
    fn es_free() -> DriverInfo {
        DriverInfo {
            driver: Driver::Softpipe,
            renderer: "softpipe".into(),
            vendor: "Mesa".into(),
            version: String::new(),
            glsl_version: String::new(),
            profile: String::new(),
            gl_version: (0, 0),
            glsl: 0,
            extensions: Default::default(),
            spirv_extensions: Default::default(),
            limits: Default::default(),
            api: ContextApi::Gl,
            gles: Err(String::new()),
            egl_device: String::new(),
            libraries: Vec::new(),
        }
    }

    fn case(requires: &str, language: &str) -> Case {
        let text = format!(
            "spec: [X]\nrequires: {requires}\nprogram: {{language: {language}, source: \"x\"}}\n"
        );
        conform_case::parse(Path::new("t.yaml"), &text, None).unwrap()
    }

    /// What a softpipe-like driver lacks for a case with `requires` and a `language` program.
    fn missing(requires: &str, language: &str) -> Option<String> {
        missing_requirement(&Job::of(&case(requires, language)), &info())
    }

    #[test]
    fn skips_name_what_is_missing() {
        assert_eq!(
            missing("{gl: \"4.3\"}", "glsl").as_deref(),
            Some("GL 4.3 (driver has 3.3)")
        );
        assert_eq!(
            missing("{extensions: [GL_ARB_compute_shader]}", "glsl"),
            None
        );
        assert_eq!(
            missing("{extensions: [GL_NV_shader_thread_shuffle]}", "glsl").as_deref(),
            Some("GL_NV_shader_thread_shuffle")
        );
        assert_eq!(
            missing("{limits: {MAX_COMPUTE_SHARED_MEMORY_SIZE: 49152}}", "glsl").as_deref(),
            Some("MAX_COMPUTE_SHARED_MEMORY_SIZE >= 49152 (driver has [32768])")
        );
        assert_eq!(
            missing("{}", "nvasm").as_deref(),
            Some("GL_NV_compute_program5")
        );
        assert_eq!(
            missing("{profile: core}", "glsl").as_deref(),
            Some("a core profile context (driver has compatibility)")
        );
    }

    #[test]
    fn gles_cases_are_checked_against_the_es_context() {
        assert_eq!(missing("{gles: \"3.1\"}", "glsl"), None);
        assert_eq!(
            missing("{gles: \"3.2\"}", "glsl").as_deref(),
            Some("OpenGL ES 3.2 (driver has 3.1)")
        );
        // The ES context's extensions, not the desktop one's.
        assert_eq!(
            missing(
                "{gles: \"3.1\", extensions: [GL_EXT_shader_integer_mix]}",
                "glsl"
            ),
            None
        );
        assert_eq!(
            missing(
                "{gles: \"3.1\", extensions: [GL_ARB_compute_shader]}",
                "glsl"
            )
            .as_deref(),
            Some("GL_ARB_compute_shader")
        );
        assert_eq!(
            missing("{gles: \"3.1\"}", "nvasm").as_deref(),
            Some("GL_NV_compute_program5")
        );
        let mut no_es = info();
        no_es.gles = Err("no EGL config with OpenGL ES support".into());
        let case = case("{gles: \"3.1\"}", "glsl");
        assert_eq!(
            missing_requirement(&Job::of(&case), &no_es).as_deref(),
            Some("an OpenGL ES context (driver: no EGL config with OpenGL ES support)")
        );
    }

    #[test]
    fn a_glsl_version_directive_names_what_the_program_needs() {
        assert_eq!(
            glsl_version_directive("#version 450\nvoid main() {}"),
            Some(450)
        );
        assert_eq!(
            glsl_version_directive("// x\n  #  version 430 core\n"),
            Some(430)
        );
        assert_eq!(glsl_version_directive("#version 310 es\n"), None);
        assert_eq!(glsl_version_directive("void main() {}"), None);
    }
}
