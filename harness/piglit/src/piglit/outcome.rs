//! What converting a piglit test is made of and yields: which run a case is ([`Mode`]), why a
//! run cannot be imported ([`Skip`]), a converted case ([`Converted`]), one run's outcome
//! ([`Run`]), the names a test's cases get ([`Names`]), and the `#version` a run's GLSL gets
//! ([`GlslVersion`]). Below `convert`, `program`, `steps` and `textures`, which all speak it.

use super::case::Case;
use super::parse::Line;

/// Which run of the test a case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// From the GLSL sections (shader_runner's default, or `-glsl` for SPIRV YES).
    Glsl,
    /// From the `spirv` sections (SPIRV YES / ONLY).
    Spirv,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Glsl => "GLSL",
            Mode::Spirv => "SPIR-V",
        }
    }
}

/// Why a run cannot be imported: a short class (what the summary counts) and the specifics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip {
    pub kind: String,
    pub detail: String,
    /// The piglit line it is about, if one.
    pub line: Option<usize>,
}

impl Skip {
    pub(super) fn new(
        kind: impl Into<String>,
        detail: impl Into<String>,
        line: Option<usize>,
    ) -> Self {
        Skip {
            kind: kind.into(),
            detail: detail.into(),
            line,
        }
    }

    pub(super) fn at<T>(l: &Line<T>, kind: impl Into<String>) -> Self {
        Skip::new(kind, format!("`{}`", l.text), Some(l.line))
    }

    /// Adds why the kind cannot be expressed to the detail.
    pub(super) fn why(mut self, why: &str) -> Self {
        if !self.detail.is_empty() {
            self.detail.push_str(": ");
        }
        self.detail.push_str(why);
        self
    }

    /// `kind: detail` (or just the kind).
    pub fn describe(&self) -> String {
        let mut s = self.kind.clone();
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        if let Some(l) = self.line {
            s.push_str(&format!(" (line {l})"));
        }
        s
    }
}

/// A run that converted: the case, and what was left out (nothing: a full conversion).
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    pub case: Case,
    pub left_out: Vec<String>,
    pub notes: Vec<String>,
}

/// One run's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub mode: Mode,
    pub name: String,
    pub result: Result<Converted, Skip>,
}

/// The names a test's cases get: `base` and the label the comments use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// `piglit/<path without extension>`
    pub base: String,
    /// How comments and descriptions name the file.
    pub label: String,
}

/// The last `GLSL >=` line (what shader_runner prepends as `#version`).
#[derive(Clone, Copy, Debug)]
pub(super) struct GlslVersion {
    pub num: u32,
    pub es: bool,
}
