//! A Mesa install in a prefix, as a worker's environment: `--backend llvmpipe@PREFIX`.
//!
//! A driver engineer tests today's Mesa or their own build beside the system's without
//! installing it: Debian's backports unpacked with `dpkg -x` (`bash .ci/deps mesa-backports
//! PREFIX`), or a meson install prefix. A worker started with [`MesaInstall::environment`]
//! loads that prefix's libraries and nothing of the system's Mesa: the dynamic loader looks in
//! the prefix's library directory first (`LD_LIBRARY_PATH`), the DRI loader in its `dri/`
//! (`LIBGL_DRIVERS_PATH`), glvnd takes only the prefix's EGL vendor library
//! (`__EGL_VENDOR_LIBRARY_FILENAMES`), and the Vulkan loader under zink only the prefix's
//! lavapipe (`VK_DRIVER_FILES`, and `VK_ICD_FILENAMES` for older loaders). The vendor and ICD
//! files a package ships name libraries by bare name or by their system path, so conform
//! writes its own, naming the prefix's files by absolute path. Which libraries a worker
//! really loaded is checked afterwards ([`crate::loaded`]), since a wrong path falls back to
//! the system's Mesa without a word.
//!
//! A root of another Debian suite (`bash .ci/deps mesa-debian sid DIR`: sid's Mesa needs
//! sid's C library and LLVM) is an install too: it has its own `libc.so.6` beside Mesa's
//! libraries, so its workers start through the root's own dynamic loader
//! (`DIR/lib64/ld-linux-x86-64.so.2 conform worker ...`, [`MesaInstall::launch`]) with only
//! the root's library directories on the path: no chroot, no mounts, nothing left behind.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A Mesa install prefix and what a worker needs to load it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MesaInstall {
    /// The prefix as given (with `~` expanded), made absolute.
    pub prefix: PathBuf,
    /// The directory holding `libEGL_mesa.so.0`.
    pub libdir: PathBuf,
    /// `libdir/dri`, the DRI drivers.
    pub dri: PathBuf,
    /// `libdir/libvulkan_lvp.so`, when the install has lavapipe (zink needs it).
    pub lavapipe: Option<PathBuf>,
    /// For a root with its own C library: its dynamic loader, which workers start through.
    pub loader: Option<PathBuf>,
    /// The name in backend names ([`MesaInstall::label`]).
    label: String,
}

/// The EGL vendor library every install must have.
const EGL_MESA: &str = "libEGL_mesa.so.0";

impl MesaInstall {
    /// The install in `prefix` (`~/` is expanded: `llvmpipe@~/mesa-25` reaches conform
    /// unexpanded, the shell expands only a leading `~`). Fails, naming what is missing, when
    /// the prefix holds no Mesa.
    pub fn open(prefix: &str) -> Result<MesaInstall, String> {
        let expanded = expand_home(prefix)?;
        let prefix =
            std::path::absolute(&expanded).map_err(|e| format!("Mesa install `{prefix}`: {e}"))?;
        if !prefix.is_dir() {
            return Err(format!(
                "Mesa install `{}`: no such directory (`bash .ci/deps mesa-backports {}` makes one)",
                prefix.display(),
                prefix.display()
            ));
        }
        let candidates = library_dirs(&prefix);
        let Some(libdir) = candidates
            .iter()
            .find(|d| d.join(EGL_MESA).exists())
            .cloned()
        else {
            return Err(format!(
                "Mesa install `{}`: no {EGL_MESA} in {} (not a Mesa install prefix)",
                prefix.display(),
                if candidates.is_empty() {
                    "any lib directory".to_string()
                } else {
                    candidates
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ));
        };
        let dri = libdir.join("dri");
        if !dri.is_dir() {
            return Err(format!(
                "Mesa install `{}`: {} has {EGL_MESA} but no dri/ directory",
                prefix.display(),
                libdir.display()
            ));
        }
        let lavapipe = Some(libdir.join("libvulkan_lvp.so")).filter(|p| p.exists());
        let loader = if libdir.join("libc.so.6").exists() {
            let candidates = [
                prefix.join("lib64/ld-linux-x86-64.so.2"),
                prefix.join("usr/lib64/ld-linux-x86-64.so.2"),
                libdir.join("ld-linux-x86-64.so.2"),
            ];
            match candidates.iter().find(|p| p.is_file()) {
                Some(l) => Some(l.clone()),
                None => {
                    return Err(format!(
                        "Mesa install `{}`: {} holds a C library of its own but the root has no dynamic loader (looked for {})",
                        prefix.display(),
                        libdir.display(),
                        candidates
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            }
        } else {
            None
        };
        let label =
            name_part(&mesa_version(&prefix, &libdir).unwrap_or_else(|| last_component(&prefix)));
        Ok(MesaInstall {
            prefix,
            libdir,
            dri,
            lavapipe,
            loader,
            label,
        })
    }

    /// Makes this install's name distinct from another install's of the same Mesa version in
    /// one run: the version and the prefix's last component (`26.2.6-mesa-sid2`).
    pub fn distinguish(&mut self) {
        self.label = format!(
            "{}-{}",
            self.label,
            name_part(&last_component(&self.prefix))
        );
    }

    /// How this install's workers start: [`MesaInstall::environment`], through the root's
    /// dynamic loader for a root.
    pub fn launch(&self) -> Result<conform_worker::Launch, String> {
        Ok(conform_worker::Launch {
            env: self.environment()?,
            loader: self.loader.clone(),
        })
    }

    /// The install's name in backend names: the Mesa version it holds, Debian's revision left
    /// out (`llvmpipe@25.0.7` wherever 25.0.7 was unpacked), so a baseline written for a Mesa
    /// version applies to every install of it. Read from the prefix's `.mesa-version` (which
    /// `.ci/deps` writes), else from the `libgallium-VERSION.so` it holds; a prefix with
    /// neither (an older meson build) is named by its last component.
    pub fn label(&self) -> String {
        self.label.clone()
    }

    /// The environment of a worker that runs this install's drivers. Writes the EGL vendor
    /// file and the lavapipe ICD file it names (into a directory of the system's temporary
    /// directory keyed by the library directory, replaced atomically, so concurrent runs
    /// share it safely).
    pub fn environment(&self) -> Result<Vec<(OsString, OsString)>, String> {
        let files = self.write_loader_files()?;
        let mut library_path = OsString::from(&self.libdir);
        if self.loader.is_some() {
            // A root's loader takes the root's libraries only: one of the host's (a
            // directory the user's LD_LIBRARY_PATH names) would meet the root's C library.
            let lib = self.prefix.join("lib/x86_64-linux-gnu");
            if lib.is_dir()
                && std::fs::canonicalize(&lib).ok() != std::fs::canonicalize(&self.libdir).ok()
            {
                library_path.push(":");
                library_path.push(lib);
            }
        } else if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
            library_path.push(":");
            library_path.push(old);
        }
        let mut env = vec![
            // The install a worker runs from: its helpers that must run on the system's
            // libraries instead (virgl's vtest server, [`crate::vtest`]) clear what follows.
            ("CONFORM_MESA_INSTALL".into(), self.libdir.clone().into()),
            ("LD_LIBRARY_PATH".into(), library_path),
            ("LIBGL_DRIVERS_PATH".into(), self.dri.clone().into()),
            (
                "__EGL_VENDOR_LIBRARY_FILENAMES".into(),
                files.egl_vendor.into(),
            ),
        ];
        let gbm = self.libdir.join("gbm");
        if gbm.is_dir() {
            env.push(("GBM_BACKENDS_PATH".into(), gbm.into()));
        }
        if let Some(icd) = files.vulkan_icd {
            env.push(("VK_DRIVER_FILES".into(), icd.clone().into()));
            env.push(("VK_ICD_FILENAMES".into(), icd.into()));
        }
        Ok(env)
    }

    fn write_loader_files(&self) -> Result<LoaderFiles, String> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.libdir.hash(&mut h);
        let dir = std::env::temp_dir().join(format!("conform-mesa-{:016x}", h.finish()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let egl_vendor = dir.join("egl_vendor.json");
        write_atomic(&egl_vendor, &loader_file(&self.libdir.join(EGL_MESA), None))?;
        let vulkan_icd = match &self.lavapipe {
            None => None,
            Some(lib) => {
                let icd = dir.join("lvp_icd.json");
                write_atomic(&icd, &loader_file(lib, Some("1.3.0")))?;
                Some(icd)
            }
        };
        Ok(LoaderFiles {
            egl_vendor,
            vulkan_icd,
        })
    }
}

struct LoaderFiles {
    egl_vendor: PathBuf,
    vulkan_icd: Option<PathBuf>,
}

/// A glvnd EGL vendor file or a Vulkan ICD file naming `library` (both have this shape; an
/// ICD also states the API version it implements at least).
fn loader_file(library: &Path, api_version: Option<&str>) -> String {
    let mut icd = serde_json::json!({ "library_path": library.display().to_string() });
    if let Some(v) = api_version {
        icd["api_version"] = v.into();
    }
    serde_json::json!({ "file_format_version": "1.0.0", "ICD": icd }).to_string() + "\n"
}

fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The prefix's last component (`mesa-25` for `~/mesa-25`).
/// `s` as a part of a backend's name, which every report and deqp-runner's files hold
/// (`name,Status` lines with no quoting, `#` comments, one line each): letters, digits and
/// `. _ + ~ -` kept, anything else `_`, at most 64 bytes. An install directory's name (or
/// its `.mesa-version`) is the user's to choose, and a `#` or a comma in it would make
/// results.csv unreadable by conform's own `junit` and `--baseline`.
fn name_part(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '~' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.truncate(64);
    if out.is_empty() {
        out.push('_');
    }
    out
}

fn last_component(prefix: &Path) -> String {
    prefix
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| prefix.display().to_string())
}

/// The Mesa version an install holds, without Debian's revision: `.mesa-version`
/// (`25.0.7-2~bpo12+1` → `25.0.7`), else `libgallium-26.3.0-devel.so` (`26.3.0-devel`).
fn mesa_version(prefix: &Path, libdir: &Path) -> Option<String> {
    // A regular file's first 4 KiB: a FIFO or a device there must not block or exhaust.
    let written = (|| {
        use std::io::Read;
        let path = prefix.join(".mesa-version");
        if !std::fs::metadata(&path).ok()?.is_file() {
            return None;
        }
        let mut text = String::new();
        std::fs::File::open(&path)
            .ok()?
            .take(4096)
            .read_to_string(&mut text)
            .ok()?;
        text.lines().next().map(str::to_string)
    })();
    let gallium = || {
        std::fs::read_dir(libdir).ok()?.flatten().find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("libgallium-")?
                .strip_suffix(".so")
                .map(str::to_string)
        })
    };
    written.or_else(gallium).and_then(|v| upstream_version(&v))
}

/// `25.0.7-2~bpo12+1` → `25.0.7`; `26.1.0-rc3` and `26.3.0-devel` keep their suffix (they
/// are Mesa's, not Debian's); None for what is not a version.
fn upstream_version(v: &str) -> Option<String> {
    let v = v.trim();
    let digits = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let (number, rest) = v.split_at(digits);
    if number.split('.').count() < 2 || number.split('.').any(str::is_empty) {
        return None;
    }
    let keep = ["-devel", "-rc"]
        .iter()
        .find(|s| rest.starts_with(*s))
        .map(|s| {
            let tail = &rest[s.len()..];
            let n = tail
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(tail.len());
            &rest[..s.len() + n]
        })
        .unwrap_or("");
    Some(format!("{number}{keep}"))
}

/// `~` and `~/...` with `$HOME`; anything else as it is.
fn expand_home(prefix: &str) -> Result<PathBuf, String> {
    let rest = match prefix.strip_prefix('~') {
        None => return Ok(PathBuf::from(prefix)),
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.trim_start_matches('/'),
        Some(_) => {
            return Err(format!(
                "Mesa install `{prefix}`: only `~/` is expanded, not another user's home"
            ))
        }
    };
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .ok_or_else(|| format!("Mesa install `{prefix}`: HOME is not set to expand `~`"))?;
    Ok(PathBuf::from(home).join(rest))
}

/// Where an install's libraries may be: Debian's multiarch layout (`usr/lib/<triplet>`, as
/// `dpkg -x` leaves it, or `lib/<triplet>` as meson installs it on Debian), then `lib64`
/// and `lib`, with or without `usr/`.
fn library_dirs(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for base in [prefix.join("usr"), prefix.to_path_buf()] {
        for lib in ["lib", "lib64"] {
            let dir = base.join(lib);
            if !dir.is_dir() {
                continue;
            }
            let mut multiarch: Vec<PathBuf> = std::fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.is_dir()
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.contains("-linux-"))
                })
                .collect();
            multiarch.sort();
            out.extend(multiarch);
            out.push(dir);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_install(layout: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join(layout);
        std::fs::create_dir_all(lib.join("dri")).unwrap();
        std::fs::write(lib.join(EGL_MESA), b"").unwrap();
        std::fs::write(lib.join("libvulkan_lvp.so"), b"").unwrap();
        dir
    }

    #[test]
    fn finds_the_libraries_of_a_dpkg_unpacked_and_a_meson_prefix() {
        for layout in [
            "usr/lib/x86_64-linux-gnu",
            "lib/x86_64-linux-gnu",
            "lib64",
            "lib",
        ] {
            let dir = fake_install(layout);
            let install = MesaInstall::open(dir.path().to_str().unwrap()).unwrap();
            assert_eq!(install.libdir, dir.path().join(layout), "{layout}");
            assert_eq!(install.dri, dir.path().join(layout).join("dri"));
            assert!(install.lavapipe.is_some());
        }
    }

    /// An install's name reaches every results.csv row: a `#`, a comma, a quote or a line
    /// break in its directory's name or its `.mesa-version` must not (issue 45).
    #[test]
    fn an_install_named_with_a_hash_or_a_comma_gets_a_name_results_files_can_hold() {
        let parent = tempfile::tempdir().unwrap();
        let prefix = parent.path().join("mesa#1,\"x\nstable");
        let lib = prefix.join("usr/lib/x86_64-linux-gnu");
        std::fs::create_dir_all(lib.join("dri")).unwrap();
        std::fs::write(lib.join(EGL_MESA), b"").unwrap();
        let install = MesaInstall::open(prefix.to_str().unwrap()).unwrap();
        assert_eq!(install.label(), "mesa_1__x_stable");
        std::fs::write(prefix.join(".mesa-version"), "26.1.0-rc3#a,b\n").unwrap();
        let mut install = MesaInstall::open(prefix.to_str().unwrap()).unwrap();
        assert_eq!(install.label(), "26.1.0-rc3");
        install.distinguish();
        assert_eq!(install.label(), "26.1.0-rc3-mesa_1__x_stable");
        // A FIFO in place of `.mesa-version` is not waited on.
        std::fs::remove_file(prefix.join(".mesa-version")).unwrap();
        let fifo = std::ffi::CString::new(prefix.join(".mesa-version").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let install = MesaInstall::open(prefix.to_str().unwrap()).unwrap();
        assert_eq!(install.label(), "mesa_1__x_stable");
    }

    #[test]
    fn a_directory_without_mesa_is_refused_with_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("usr/lib/x86_64-linux-gnu")).unwrap();
        let err = MesaInstall::open(dir.path().to_str().unwrap()).unwrap_err();
        assert!(err.contains("no libEGL_mesa.so.0 in"), "{err}");
        assert!(err.contains("usr/lib/x86_64-linux-gnu"), "{err}");
        let err = MesaInstall::open("/nonexistent/mesa-25").unwrap_err();
        assert!(err.contains("no such directory"), "{err}");
        assert!(err.contains(".ci/deps mesa-backports"), "{err}");
    }

    #[test]
    fn the_environment_names_only_the_prefix_files() {
        let dir = fake_install("usr/lib/x86_64-linux-gnu");
        let install = MesaInstall::open(dir.path().to_str().unwrap()).unwrap();
        let env = install.environment().unwrap();
        let get = |k: &str| {
            env.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.to_string_lossy().into_owned())
                .unwrap_or_else(|| panic!("{k} not set"))
        };
        let lib = dir.path().join("usr/lib/x86_64-linux-gnu");
        assert!(get("LD_LIBRARY_PATH").starts_with(lib.to_str().unwrap()));
        assert_eq!(get("LIBGL_DRIVERS_PATH"), lib.join("dri").to_str().unwrap());
        let vendor = std::fs::read_to_string(get("__EGL_VENDOR_LIBRARY_FILENAMES")).unwrap();
        let vendor: serde_json::Value = serde_json::from_str(&vendor).unwrap();
        assert_eq!(
            vendor["ICD"]["library_path"],
            lib.join(EGL_MESA).to_str().unwrap()
        );
        let icd = std::fs::read_to_string(get("VK_DRIVER_FILES")).unwrap();
        assert!(icd.contains(lib.join("libvulkan_lvp.so").to_str().unwrap()));
        assert_eq!(get("VK_DRIVER_FILES"), get("VK_ICD_FILENAMES"));
    }

    /// A root of another suite (its own libc.so.6 beside Mesa) starts its workers through its
    /// own dynamic loader, with the root's libraries alone on the path; without a loader it is
    /// refused, naming where one was looked for.
    #[test]
    fn a_root_with_its_own_c_library_starts_workers_through_its_loader() {
        let dir = fake_install("usr/lib/x86_64-linux-gnu");
        let lib = dir.path().join("usr/lib/x86_64-linux-gnu");
        std::fs::write(lib.join("libc.so.6"), b"").unwrap();
        let err = MesaInstall::open(dir.path().to_str().unwrap()).unwrap_err();
        assert!(err.contains("no dynamic loader"), "{err}");
        assert!(err.contains("lib64/ld-linux-x86-64.so.2"), "{err}");
        std::fs::create_dir_all(dir.path().join("lib64")).unwrap();
        let loader = dir.path().join("lib64/ld-linux-x86-64.so.2");
        std::fs::write(&loader, b"").unwrap();
        let install = MesaInstall::open(dir.path().to_str().unwrap()).unwrap();
        let launch = install.launch().unwrap();
        assert_eq!(launch.loader.as_deref(), Some(loader.as_path()));
        let path = launch
            .env
            .iter()
            .find(|(k, _)| k == "LD_LIBRARY_PATH")
            .map(|(_, v)| v.to_string_lossy().into_owned())
            .unwrap();
        // Only the root's directories, whatever the caller's LD_LIBRARY_PATH says.
        assert!(
            path.split(':')
                .all(|d| d.starts_with(dir.path().to_str().unwrap())),
            "{path}"
        );
        // A prefix of the host's C library (no libc of its own) has no loader.
        let prefix = fake_install("usr/lib/x86_64-linux-gnu");
        let plain = MesaInstall::open(prefix.path().to_str().unwrap()).unwrap();
        assert_eq!(plain.launch().unwrap().loader, None);
    }

    #[test]
    fn tilde_is_the_home_directory_and_the_label_the_last_component() {
        let home = std::env::var("HOME").unwrap_or_default();
        if !home.is_empty() {
            assert_eq!(
                expand_home("~/mesa-25").unwrap(),
                PathBuf::from(&home).join("mesa-25")
            );
        }
        assert!(expand_home("~bob/mesa").is_err());
        assert_eq!(
            expand_home("/opt/mesa").unwrap(),
            PathBuf::from("/opt/mesa")
        );
        let dir = fake_install("lib");
        let install = MesaInstall::open(dir.path().to_str().unwrap()).unwrap();
        assert_eq!(
            install.label(),
            dir.path().file_name().unwrap().to_str().unwrap()
        );
    }

    /// An install is named by the Mesa version it holds, wherever it was unpacked; two of one
    /// version in a run are told apart by their directories.
    #[test]
    fn an_install_is_named_by_its_mesa_version() {
        let dir = fake_install("usr/lib/x86_64-linux-gnu");
        std::fs::write(dir.path().join(".mesa-version"), "25.0.7-2~bpo12+1\n").unwrap();
        let mut install = MesaInstall::open(dir.path().to_str().unwrap()).unwrap();
        assert_eq!(install.label(), "25.0.7");
        install.distinguish();
        let dir_name = dir.path().file_name().unwrap().to_str().unwrap();
        assert_eq!(install.label(), format!("25.0.7-{dir_name}"));
        let built = fake_install("lib/x86_64-linux-gnu");
        std::fs::write(
            built
                .path()
                .join("lib/x86_64-linux-gnu/libgallium-26.3.0-devel.so"),
            b"",
        )
        .unwrap();
        let install = MesaInstall::open(built.path().to_str().unwrap()).unwrap();
        assert_eq!(install.label(), "26.3.0-devel");
        assert_eq!(upstream_version("26.2.6-1").as_deref(), Some("26.2.6"));
        assert_eq!(
            upstream_version("26.1.0-rc3-1").as_deref(),
            Some("26.1.0-rc3")
        );
        assert_eq!(upstream_version("garbage"), None);
    }
}
