//! Front ends: source text → [`crate::ir::Program`], all behind one contract.
//!
//! Each front end (`nvasm`, `glsl`, `spirv`) exposes one `build` that turns the programs of a
//! plan into either a [`Built`] program (IR, build log, warnings) or a typed
//! [`BuildFailure`]: the build failed at a stage with a log and located diagnostics, the
//! program needs something the reference does not model, it has no compute shader, or the
//! front end hit a bug of its own. [`build`] picks the front end by language. Nothing here runs
//! programs: `crate::run`, `crate::check` and `crate::trace` own execution and the outcomes.

pub mod active;
pub mod glsl;
pub mod nvasm;
pub mod spirv;

use crate::{ir, Diagnostic};
use conform_plan::{BuildStage, ExecPlan, Language, ProgramSource, Stage};

/// A program a front end built.
#[derive(Clone, Debug)]
pub struct Built {
    /// The validated IR program.
    pub program: ir::Program,
    /// The build log of a successful build (warnings, as a compiler would print them).
    pub log: String,
    /// Constructs that build but whose results the specification leaves undefined; `run`
    /// reports them as `undefined-value` flags.
    pub undefined: Vec<Diagnostic>,
    /// Notes for the report (what the front end did).
    pub notes: Vec<String>,
}

/// Why a front end did not build a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildFailure {
    /// The program breaks a rule of its language or of GL: it fails at `stage` with `log` (as
    /// a driver would report it) and the diagnostics (lines relative to the program text).
    Failed {
        stage: BuildStage,
        log: String,
        diagnostics: Vec<Diagnostic>,
    },
    /// The program needs something the reference does not model: a skip, never a failure.
    /// `reason` is the located description for the report; `at` the same as a diagnostic.
    Unsupported { reason: String, at: Diagnostic },
    /// Only shaders of other stages: they link (as a graphics program would) but there is no
    /// compute executable, so every dispatch is INVALID_OPERATION. `log` is the link log.
    NotCompute { log: String },
    /// A bug in the front end (a panic, or IR that breaks the IR's invariants).
    Internal(String),
}

impl BuildFailure {
    /// A refusal with no better location than the start of the program.
    pub fn unsupported(message: impl Into<String>) -> Self {
        let message = message.into();
        BuildFailure::Unsupported {
            reason: message.clone(),
            at: Diagnostic {
                line: 1,
                column: 1,
                message,
            },
        }
    }
}

/// The one compute program of a plan whose front end runs exactly one (`several` says what is
/// refused when there are more).
fn single_compute<'p>(
    programs: &'p [ProgramSource],
    several: &str,
) -> Result<&'p ProgramSource, BuildFailure> {
    match programs {
        [p] if p.stage == Stage::Compute => Ok(p),
        [_] => Err(BuildFailure::unsupported(
            "the reference runs compute programs only",
        )),
        _ => Err(BuildFailure::unsupported(several)),
    }
}

/// Which front end handles a language.
fn front_of(language: Language) -> Language {
    match language {
        Language::SpirvAsm => Language::Spirv,
        other => other,
    }
}

/// Builds the programs of a plan with the front end of their language. `plan` gives what a
/// build may depend on (uniform values, buffer sizes for GLSL's `.length()` and SPIR-V's
/// OpArrayLength); without it the
/// programs are built on their own (`check`). `opts` gives the reference's assumptions where
/// a language leaves something to the implementation (GLSL's `shared` block layout).
pub fn build(
    programs: &[ProgramSource],
    plan: Option<&ExecPlan>,
    opts: &crate::Options,
) -> Result<Built, BuildFailure> {
    let Some(first) = programs.first() else {
        return Err(BuildFailure::unsupported("the plan has no program"));
    };
    let language = front_of(first.language);
    if let Some(other) = programs.iter().find(|p| front_of(p.language) != language) {
        return Err(BuildFailure::unsupported(format!(
            "the plan mixes {} and {} programs, which the reference does not run",
            first.language.name(),
            other.language.name()
        )));
    }
    match language {
        Language::Nvasm => nvasm::build(programs, opts.planted_bug()),
        Language::Glsl => glsl::build(programs, plan, opts),
        Language::Spirv | Language::SpirvAsm => spirv::build(programs, plan),
    }
}
