//! Which driver build produced a result: a backend's identity as the run record, the
//! journal and every report carry it.
//!
//! A result that does not say which Mesa produced it cannot be compared with another run's,
//! nor filed upstream; the renderer string alone does not tell Mesa 22.3.6's llvmpipe from
//! 25.0.7's. So every driver backend is described by what its worker read from the context
//! (GL_VENDOR, GL_RENDERER, GL_VERSION and the Mesa version and git revision in it, the GLSL
//! and ES versions), the EGL device it ran on, the driver libraries the worker process had
//! loaded (their paths), and the install prefix it was started with (`llvmpipe@PREFIX`).

use serde::{Deserialize, Serialize};

/// One backend's identity.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackendIdentity {
    /// GL_VENDOR (`conform` for the reference interpreter).
    pub vendor: String,
    /// GL_RENDERER (`reference interpreter` for the reference).
    pub renderer: String,
    /// GL_VERSION, whole (the reference: conform's version).
    pub version: String,
    /// The Mesa version in GL_VERSION (`25.0.7-2~bpo12+1`), when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesa_version: Option<String>,
    /// The git revision in GL_VERSION (`git-1a2b3c4d`'s hex), when a development build names
    /// one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_revision: Option<String>,
    /// GL_SHADING_LANGUAGE_VERSION.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub glsl_version: String,
    /// The ES context's GL_VERSION, or why there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub es_version: Option<String>,
    /// The EGL device the context was made on, described.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egl_device: Option<String>,
    /// The driver libraries mapped into the worker process (absolute paths): which
    /// `libEGL_mesa`, `libgallium`, `*_dri.so` or NVIDIA library actually ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub libraries: Vec<String>,
    /// The Mesa install prefix the backend was started with (`llvmpipe@PREFIX`); none for the
    /// system's drivers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<String>,
}

impl BackendIdentity {
    /// The identity of the reference interpreter of this build of conform.
    pub fn reference() -> BackendIdentity {
        BackendIdentity {
            vendor: "conform".into(),
            renderer: "reference interpreter".into(),
            version: format!("conform {}", env!("CARGO_PKG_VERSION")),
            ..BackendIdentity::default()
        }
    }

    /// A driver's identity from its strings; the Mesa version and git revision are read
    /// out of `version`.
    pub fn driver(vendor: &str, renderer: &str, version: &str) -> BackendIdentity {
        let (mesa_version, git_revision) = mesa_version(version);
        BackendIdentity {
            vendor: vendor.into(),
            renderer: renderer.into(),
            version: version.into(),
            mesa_version,
            git_revision,
            ..BackendIdentity::default()
        }
    }

    /// One line for a table cell or a journal line: the renderer and the driver's version
    /// (`llvmpipe (LLVM 15.0.6, 256 bits), Mesa 25.0.7-2~bpo12+1`).
    pub fn summary(&self) -> String {
        let mut s = self.renderer.clone();
        match (&self.mesa_version, &self.git_revision) {
            (Some(v), Some(g)) => s.push_str(&format!(", Mesa {v} (git-{g})")),
            (Some(v), None) => s.push_str(&format!(", Mesa {v}")),
            _ if !self.version.is_empty() => s.push_str(&format!(", {}", self.version)),
            _ => {}
        }
        s
    }
}

/// The Mesa version and git revision in a GL_VERSION string: `4.5 (Core Profile) Mesa
/// 25.0.7-2~bpo12+1` gives `25.0.7-2~bpo12+1`; `4.6 (Core Profile) Mesa 25.1.0-devel
/// (git-1a2b3c4d5e)` gives `25.1.0-devel` and `1a2b3c4d5e`.
pub fn mesa_version(version: &str) -> (Option<String>, Option<String>) {
    let mut words = version.split_whitespace();
    let mesa = words
        .by_ref()
        .find(|w| *w == "Mesa")
        .and_then(|_| words.next())
        .map(String::from);
    let git = version.split(['(', ')', ' ']).find_map(|w| {
        let hex = w.strip_prefix("git-")?;
        (!hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit())).then(|| hex.to_string())
    });
    (mesa, git)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_mesa_version_and_git_revision_out_of_gl_version() {
        assert_eq!(
            mesa_version("4.5 (Core Profile) Mesa 25.0.7-2~bpo12+1"),
            (Some("25.0.7-2~bpo12+1".into()), None)
        );
        assert_eq!(
            mesa_version("4.6 (Core Profile) Mesa 25.1.0-devel (git-1a2b3c4d5e)"),
            (Some("25.1.0-devel".into()), Some("1a2b3c4d5e".into()))
        );
        assert_eq!(
            mesa_version("OpenGL ES 3.2 Mesa 22.3.6"),
            (Some("22.3.6".into()), None)
        );
        assert_eq!(mesa_version("4.6.0 NVIDIA 550.54.14"), (None, None));
        // A word that merely starts with git- but is not hex is no revision.
        assert_eq!(mesa_version("4.5 Mesa 24.0 (git-main)").1, None);
    }

    #[test]
    fn the_summary_names_the_renderer_and_the_driver_version() {
        let id = BackendIdentity::driver(
            "Mesa",
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            "4.5 (Core Profile) Mesa 25.0.7-2~bpo12+1",
        );
        assert_eq!(
            id.summary(),
            "llvmpipe (LLVM 15.0.6, 256 bits), Mesa 25.0.7-2~bpo12+1"
        );
        let nv = BackendIdentity::driver(
            "NVIDIA Corporation",
            "NVIDIA H200",
            "4.6.0 NVIDIA 550.54.14",
        );
        assert_eq!(nv.summary(), "NVIDIA H200, 4.6.0 NVIDIA 550.54.14");
        assert!(BackendIdentity::reference()
            .summary()
            .starts_with("reference interpreter, conform "));
    }
}
