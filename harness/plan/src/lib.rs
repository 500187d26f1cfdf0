//! `conform-plan`: the backend-neutral form of one test case.
//!
//! The harness loads a YAML case, checks it, and lowers it into an [`ExecPlan`]: programs as
//! source text (or SPIR-V words), buffers as initial bytes, and the steps in order. Every
//! backend — the reference interpreter and each GL driver worker — takes an `ExecPlan` and
//! answers with an [`Outcome`]: whether the programs built (with logs), what each step did
//! (GL error, query values), and the final bytes of every buffer. Comparing an `Outcome` with
//! the case's expectations is the harness's job alone, so every backend is judged by the same
//! code.
//!
//! The types are plain data with serde derives because they are also the protocol between the
//! harness and its worker processes, driver and reference alike (one JSON object per line over
//! a pipe). Byte buffers travel as base64 strings ([`b64`]): a JSON array of numbers would take
//! up to four bytes per byte, and the reference's answer holds its buffers once per schedule.
//!
//! Invariants:
//! - `ExecPlan::buffers[i]` and `Outcome::buffers[i]` describe the same buffer; buffer ids in
//!   steps are indices into `buffers`.
//! - Nothing is implicit: a backend issues exactly the steps listed, no extra barriers.
//! - Byte order of buffer contents is little-endian, as on every GL implementation we target.

mod api;
mod flag;
mod image;
mod named;
mod pname;
mod texture;
mod uniform;

pub use api::{ApiAction, ApiArgsError, ApiCall, Axis, ConditionalRenderMode, ProgramInterface};
pub use flag::FlagKind;
pub use image::{ImageDesc, ImageDim, ImageFormat};
pub use pname::{ProgramPname, QueryPname};
pub use texture::{Filter, SamplerState, TextureDesc, Wrap};
pub use uniform::{UniformSet, UniformTarget, UniformType, UNIFORM_SCALARS};

use serde::{Deserialize, Serialize};
use std::fmt;

/// Scalar element types a buffer or expectation can be declared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scalar {
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F16,
    F32,
    F64,
}

impl Scalar {
    pub const ALL: [Scalar; 11] = [
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::I8,
        Scalar::I16,
        Scalar::I32,
        Scalar::I64,
        Scalar::F16,
        Scalar::F32,
        Scalar::F64,
    ];

    pub fn size(self) -> usize {
        match self {
            Scalar::U8 | Scalar::I8 => 1,
            Scalar::U16 | Scalar::I16 | Scalar::F16 => 2,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 4,
            Scalar::U64 | Scalar::I64 | Scalar::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::F32 | Scalar::F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }

    pub fn name(self) -> &'static str {
        match self {
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::F16 => "f16",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }
}

/// An element type: a scalar or a vector of 2..=4 tightly packed scalars (`u32`, `f32x4`).
/// Layout padding (std430 `vec3` strides) is the case author's to spell out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ElemType {
    pub scalar: Scalar,
    pub lanes: u8,
}

impl ElemType {
    pub const fn scalar(scalar: Scalar) -> Self {
        ElemType { scalar, lanes: 1 }
    }

    pub fn size(self) -> usize {
        self.scalar.size() * self.lanes as usize
    }

    /// All type names accepted by [`ElemType::parse`], for "allowed values" hints.
    pub fn names() -> Vec<String> {
        let mut v = Vec::new();
        for s in Scalar::ALL {
            v.push(s.name().to_string());
            for n in 2..=4 {
                v.push(format!("{}x{n}", s.name()));
            }
        }
        v
    }

    pub fn parse(text: &str) -> Option<Self> {
        let (base, lanes) = match text.split_once('x') {
            Some((b, n)) => (b, n.parse::<u8>().ok().filter(|n| (2..=4).contains(n))?),
            None => (text, 1),
        };
        let scalar = Scalar::ALL.into_iter().find(|s| s.name() == base)?;
        Some(ElemType { scalar, lanes })
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lanes == 1 {
            f.write_str(self.scalar.name())
        } else {
            write!(f, "{}x{}", self.scalar.name(), self.lanes)
        }
    }
}

impl Serialize for ElemType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ElemType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        ElemType::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown element type `{text}`")))
    }
}

/// Source language of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Language {
    /// NV assembly (`!!NVcp5.0`), loaded with ProgramStringARB.
    Nvasm,
    /// GLSL, compiled with CompileShader.
    Glsl,
    /// SPIR-V assembly text; the harness assembles it into `words` before backends see it.
    SpirvAsm,
    /// A SPIR-V binary module.
    Spirv,
}

impl Language {
    pub fn name(self) -> &'static str {
        match self {
            Language::Nvasm => "nvasm",
            Language::Glsl => "glsl",
            Language::SpirvAsm => "spirv-asm",
            Language::Spirv => "spirv",
        }
    }
}

/// Pipeline stage of a shader. Only compute runs; the others exist for link-failure cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    #[default]
    Compute,
    Vertex,
    Fragment,
    Geometry,
    TessControl,
    TessEvaluation,
}

/// One program or shader of the case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramSource {
    pub language: Language,
    pub stage: Stage,
    /// Source text (NV assembly, GLSL, SPIR-V assembly). Empty for binary SPIR-V.
    pub text: String,
    /// SPIR-V words, when the language is SPIR-V (assembled by the harness from `text`).
    pub words: Vec<u32>,
    /// Where the text came from, for messages: the case file or the program file.
    pub origin: String,
    /// Line in `origin` where the text starts (1-based), so diagnostics map back to the case.
    pub first_line: u32,
    /// SPIR-V entry point name.
    pub entry: String,
    /// SPIR-V specialization constants: (SpecId, 32-bit value).
    pub specialization: Vec<(u32, u32)>,
}

impl ProgramSource {
    /// A program written out as text at line 1 of `origin`, entry `main`, with no SPIR-V words
    /// (the harness assembles them) and no specialization: how tests and benchmarks state one.
    pub fn from_text(language: Language, stage: Stage, text: &str, origin: &str) -> ProgramSource {
        ProgramSource {
            language,
            stage,
            text: text.to_string(),
            words: vec![],
            origin: origin.to_string(),
            first_line: 1,
            entry: "main".into(),
            specialization: vec![],
        }
    }
}

/// How a buffer is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BufferKind {
    /// SHADER_STORAGE_BUFFER at `binding` (GLSL buffer block, SPIR-V StorageBuffer,
    /// NV assembly `program.storage[binding]`).
    #[default]
    Storage,
    /// ATOMIC_COUNTER_BUFFER at `binding`.
    AtomicCounter,
    /// UNIFORM_BUFFER at `binding` (std140 uniform block).
    Uniform,
    /// NV assembly `program.local[binding..]`: vec4 parameters set with ProgramLocalParameter.
    ProgramLocal,
    /// NV assembly `program.env[binding..]`: set with ProgramEnvParameter.
    ProgramEnv,
    /// NV_parameter_buffer_object `program.buffer[binding]`, bound to
    /// COMPUTE_PROGRAM_PARAMETER_BUFFER_NV.
    ParameterBuffer,
    /// Bound to DISPATCH_INDIRECT_BUFFER by the dispatch steps that name it.
    Indirect,
    /// Not a buffer object: a texture bound to image unit `binding` (glBindImageTexture,
    /// READ_WRITE, its own format); the bytes are its texels (see [`ImageDesc`]).
    Image(ImageDesc),
    /// Not a buffer object: a texture with mip levels and sampler state bound to texture unit
    /// `binding` for samplers; the bytes are its levels' texels (see [`TextureDesc`]).
    Texture(TextureDesc),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BufferInit {
    /// Name used in messages (`out`, `b0`).
    pub name: String,
    pub kind: BufferKind,
    pub binding: u32,
    /// Declared element type, for messages and typed dumps.
    pub elem: ElemType,
    /// Initial contents, little-endian. Its length is the buffer's size.
    #[serde(with = "b64")]
    pub bytes: Vec<u8>,
}

/// A plain (default-block) uniform set with glUniform*/glProgramUniform*.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UniformInit {
    pub name: String,
    pub elem: ElemType,
    /// Values, little-endian, `elem.size()` bytes per array element.
    #[serde(with = "b64")]
    pub bytes: Vec<u8>,
}

/// GL error codes a step can expect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum GlError {
    #[default]
    NoError,
    InvalidEnum,
    InvalidValue,
    InvalidOperation,
    InvalidFramebufferOperation,
    OutOfMemory,
    StackUnderflow,
    StackOverflow,
}

impl GlError {
    pub fn from_code(code: u32) -> Option<GlError> {
        Some(match code {
            0 => GlError::NoError,
            0x0500 => GlError::InvalidEnum,
            0x0501 => GlError::InvalidValue,
            0x0502 => GlError::InvalidOperation,
            0x0506 => GlError::InvalidFramebufferOperation,
            0x0505 => GlError::OutOfMemory,
            0x0504 => GlError::StackUnderflow,
            0x0503 => GlError::StackOverflow,
            _ => return None,
        })
    }

    /// The name as the GL specification and case files write it (`INVALID_VALUE`).
    pub fn name(self) -> &'static str {
        match self {
            GlError::NoError => "NO_ERROR",
            GlError::InvalidEnum => "INVALID_ENUM",
            GlError::InvalidValue => "INVALID_VALUE",
            GlError::InvalidOperation => "INVALID_OPERATION",
            GlError::InvalidFramebufferOperation => "INVALID_FRAMEBUFFER_OPERATION",
            GlError::OutOfMemory => "OUT_OF_MEMORY",
            GlError::StackUnderflow => "STACK_UNDERFLOW",
            GlError::StackOverflow => "STACK_OVERFLOW",
        }
    }
}

impl std::fmt::Display for GlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Bits of glMemoryBarrier relevant to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierBit {
    ShaderStorage,
    AtomicCounter,
    Uniform,
    Command,
    BufferUpdate,
    ShaderImageAccess,
    All,
}

/// One step of a case, executed in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// glDispatchCompute(x, y, z).
    Dispatch { groups: [u32; 3] },
    /// glDispatchComputeIndirect(offset) with buffer `buffer` (an index into `buffers`, or
    /// None to dispatch with no buffer bound).
    DispatchIndirect { buffer: Option<usize>, offset: i64 },
    /// glMemoryBarrier(bits).
    MemoryBarrier { bits: Vec<BarrierBit> },
    /// glGetIntegeri_v / glGetIntegerv of a limit or binding, at `index` when given.
    Query {
        pname: QueryPname,
        index: Option<u32>,
    },
    /// glGetProgramiv (glGetProgramivARB for NV assembly) on the case's program.
    ProgramQuery { pname: ProgramPname },
    /// A GL API action for API cases (e.g. `use_no_program`, `enable_compute_program_nv`).
    /// The GL runner performs it; the reference reports such steps as not applicable.
    Api(ApiAction),
    /// glDispatchComputeGroupSizeARB(groups, size) (ARB_compute_variable_group_size): a
    /// dispatch of a program declaring `layout(local_size_variable) in;`, whose work group
    /// size is `size`.
    DispatchGroupSize { groups: [u32; 3], size: [u32; 3] },
    /// glProgramUniform* on the case's program (the values a later dispatch sees).
    Uniform(UniformSet),
    /// glBufferSubData(offset, bytes) on buffer `buffer` (an index into `buffers`).
    WriteBuffer {
        buffer: usize,
        offset: u64,
        #[serde(with = "b64")]
        bytes: Vec<u8>,
    },
    /// glClearBufferData with no data on buffer `buffer`: every byte becomes 0.
    ClearBuffer { buffer: usize },
    /// The harness reads every buffer here, as it does after the last step (GL runner:
    /// glMemoryBarrier(BUFFER_UPDATE_BARRIER_BIT) and glFinish, then glGetBufferSubData): the
    /// backend answers with the contents in [`Outcome::snapshots`], one entry per `Snapshot`
    /// step in step order. An observation, not a barrier between dispatches: a case that needs
    /// one writes a `MemoryBarrier` step.
    Snapshot,
}

/// Everything a backend needs to run one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecPlan {
    /// The case's name, for messages.
    pub case: String,
    pub programs: Vec<ProgramSource>,
    pub buffers: Vec<BufferInit>,
    pub uniforms: Vec<UniformInit>,
    pub steps: Vec<Step>,
    /// Wall-clock limit for the whole case on a driver, in milliseconds.
    pub timeout_ms: u64,
    /// When the programs build, do not run the steps: set for a case that expects a build
    /// failure, whose verdict is the build alone (running a program the spec says must not
    /// compile would only trade that answer for whatever the driver does with it; Mesa crashes
    /// on some). The GL runner honours it and notes that it did; the reference, which cannot
    /// crash, runs the steps anyway.
    pub skip_steps_if_built: bool,
}

/// How far the program got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildStage {
    /// NV assembly ProgramStringARB.
    Load,
    Compile,
    Link,
    /// SPIR-V validation / specialization.
    Validate,
}

impl BuildStage {
    pub fn name(self) -> &'static str {
        match self {
            BuildStage::Load => "load",
            BuildStage::Compile => "compile",
            BuildStage::Link => "link",
            BuildStage::Validate => "validate",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct BuildOutcome {
    /// None when everything built; otherwise the stage that failed.
    pub failed_at: Option<BuildStage>,
    /// Compiler / linker / loader log (all stages concatenated).
    pub log: String,
}

/// What one step produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct StepOutcome {
    /// glGetError after the step; None where the backend cannot tell (the reference on API
    /// steps it does not model).
    pub error: Option<GlError>,
    /// Values a query step returned.
    pub values: Vec<i64>,
    /// Whether the backend could execute this step at all.
    pub applicable: bool,
}

/// Something the backend noticed that the case cannot express as memory: undefined behaviour
/// the reference detected, results that depend on the schedule, driver quirks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flag {
    /// What it reports (written as `divergent-barrier`, `schedule-dependent`, ...).
    pub kind: FlagKind,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct Outcome {
    pub build: BuildOutcome,
    /// One per executed step, in order; shorter than the plan's steps when the build failed.
    pub steps: Vec<StepOutcome>,
    /// Final contents of every buffer, same order as the plan's `buffers`.
    #[serde(with = "b64::list")]
    pub buffers: Vec<Vec<u8>>,
    /// The buffers at each [`Step::Snapshot`] the backend executed, in step order; each entry
    /// is like `buffers`.
    #[serde(default, with = "b64::lists")]
    pub snapshots: Vec<Vec<Vec<u8>>>,
    pub flags: Vec<Flag>,
    /// Free-form notes for the report (which reading of an ambiguous clause was taken, ...).
    pub notes: Vec<String>,
    /// Per-phase timings in microseconds (compile, dispatch, readback), when measured.
    pub timings_us: Timings,
    /// The reference only: the final buffers under its other schedules (interleavings), where
    /// they differ from `buffers`. The harness checks every schedule against the case, so a
    /// case whose checked memory depends on the interleaving is reported as such.
    #[serde(default)]
    pub other_schedules: Vec<ScheduleOutcome>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
pub struct ScheduleOutcome {
    /// `reversed`, `random(seed=1)`, ...
    pub name: String,
    #[serde(with = "b64::list")]
    pub buffers: Vec<Vec<u8>>,
    /// The snapshots under this schedule (see [`Outcome::snapshots`]).
    #[serde(default, with = "b64::lists")]
    pub snapshots: Vec<Vec<Vec<u8>>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Timings {
    pub build: u64,
    pub dispatch: u64,
    pub readback: u64,
}

/// The reference interpreter's knobs for one plan: what a case's `reference:` map chose, each
/// `None` where it chose nothing (the interpreter's default). The one type for them: the case
/// holds it, the runner's `Job` carries it to every backend alike, a reference worker gets it
/// with the plan, and `conform_reference::Options::from_knobs` turns it into the
/// interpreter's options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceKnobs {
    /// Interleavings to run (at least 1).
    #[serde(default)]
    pub schedules: Option<u32>,
    /// Instructions per invocation before the run is refused as a timeout.
    #[serde(default)]
    pub step_budget: Option<u64>,
    /// The layout assumed for GLSL blocks declared `shared`/`packed` or with no layout.
    #[serde(default)]
    pub shared_layout: Option<BlockLayout>,
    /// Invocations per subgroup (None: the reference's default, and its second size too).
    #[serde(default)]
    pub subgroup_size: Option<u32>,
}

/// The standard block layouts of GLSL 4.60 §7.6.2.2; a case's `reference.shared_layout`
/// (`std140`, `std430`): the packing the reference assumes for GLSL blocks whose layout GL
/// leaves to the implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockLayout {
    Std140,
    Std430,
}

/// What a reference worker process is asked: one plan, with its knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceRequest {
    pub plan: ExecPlan,
    pub knobs: ReferenceKnobs,
}

/// Why a backend could not run a plan at all (as opposed to running it and failing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Refusal {
    /// The backend lacks a requirement (extension, language, limit): a skip.
    Unsupported(String),
    /// The backend ran out of its step budget / time (reference): a timeout.
    Timeout(String),
    /// The backend hit an internal error (a bug in conform, not in the driver).
    Internal(String),
}

/// What a backend did with one plan, before the harness judges it: an answer (an outcome or
/// a refusal), or no answer because the backend died or overran its time. The reference
/// reports a panic as a crash; a driver worker process a signal or an exit code.
#[derive(Clone, Debug, PartialEq)]
pub enum RawResult {
    /// The backend answered: an outcome or a refusal.
    Done(Result<Outcome, Refusal>),
    /// The backend died while running the plan (signal on Unix, or exit code).
    Crash {
        signal: Option<i32>,
        code: Option<i32>,
        stderr_tail: String,
    },
    /// The plan ran past its time limit; the backend was killed.
    Timeout { stderr_tail: String },
}

/// Serde for byte buffers as standard base64 strings (`#[serde(with = "b64")]`, and
/// `b64::list` for a list of buffers).
pub mod b64 {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::borrow::Cow;

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = Cow::<str>::deserialize(d)?;
        STANDARD.decode(text.as_bytes()).map_err(D::Error::custom)
    }

    /// A list of byte buffers, each a base64 string.
    pub mod list {
        use super::*;

        #[derive(Serialize)]
        struct Out<'a>(#[serde(with = "super")] &'a [u8]);

        #[derive(Deserialize)]
        struct In(#[serde(with = "super")] Vec<u8>);

        pub fn serialize<S: Serializer>(list: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(list.iter().map(|b| Out(b)))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
            Ok(Vec::<In>::deserialize(d)?
                .into_iter()
                .map(|b| b.0)
                .collect())
        }
    }

    /// A list of lists of byte buffers (snapshots), each buffer a base64 string.
    pub mod lists {
        use super::*;

        #[derive(Serialize)]
        struct Out<'a>(#[serde(with = "super::list")] &'a [Vec<u8>]);

        #[derive(Deserialize)]
        struct In(#[serde(with = "super::list")] Vec<Vec<u8>>);

        pub fn serialize<S: Serializer>(lists: &[Vec<Vec<u8>>], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(lists.iter().map(|l| Out(l)))
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<Vec<u8>>>, D::Error> {
            Ok(Vec::<In>::deserialize(d)?
                .into_iter()
                .map(|l| l.0)
                .collect())
        }
    }
}

/// Little-endian encoding helpers shared by the harness and backends.
pub mod bytes {
    pub fn read_u32s(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    pub fn from_u32s(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elem_type_names_round_trip() {
        for name in ElemType::names() {
            let t = ElemType::parse(&name).unwrap();
            assert_eq!(t.to_string(), name);
        }
        assert_eq!(ElemType::parse("f32x4").unwrap().size(), 16);
        assert!(ElemType::parse("f32x5").is_none());
        assert!(ElemType::parse("float").is_none());
        assert!(ElemType::parse("u32x1").is_none());
    }

    /// Messages print GL errors the way case files write them, which is also their serde form.
    #[test]
    fn gl_error_names_are_the_case_file_spelling() {
        for code in [0, 0x0500, 0x0501, 0x0502, 0x0503, 0x0504, 0x0505, 0x0506] {
            let e = GlError::from_code(code).unwrap();
            assert_eq!(
                serde_json::to_string(&e).unwrap(),
                format!("\"{e}\""),
                "{e:?}"
            );
        }
        assert_eq!(GlError::InvalidValue.to_string(), "INVALID_VALUE");
    }

    #[test]
    fn plan_serializes_as_one_json_line() {
        let plan = ExecPlan {
            case: "c".into(),
            programs: vec![],
            buffers: vec![BufferInit {
                name: "out".into(),
                kind: BufferKind::Storage,
                binding: 0,
                elem: ElemType::scalar(Scalar::U32),
                bytes: vec![1, 0, 0, 0],
            }],
            uniforms: vec![],
            steps: vec![
                Step::Dispatch { groups: [1, 1, 1] },
                Step::Uniform(UniformSet {
                    target: UniformTarget::Name("m[1]".into()),
                    ty: UniformType::parse("f32mat2x3").unwrap(),
                    bytes: vec![0; 24],
                }),
                Step::Uniform(UniformSet {
                    target: UniformTarget::Location(-1),
                    ty: UniformType::parse("u32").unwrap(),
                    bytes: vec![7, 0, 0, 0],
                }),
                Step::WriteBuffer {
                    buffer: 0,
                    offset: 0,
                    bytes: vec![2, 0, 0, 0],
                },
                Step::ClearBuffer { buffer: 0 },
                Step::DispatchGroupSize {
                    groups: [2, 1, 1],
                    size: [8, 1, 1],
                },
                Step::Snapshot,
            ],
            timeout_ms: 1000,
            skip_steps_if_built: false,
        };
        let line = serde_json::to_string(&plan).unwrap();
        assert!(!line.contains('\n'));
        assert!(line.contains(r#""bytes":"AQAAAA==""#), "{line}");
        let back: ExecPlan = serde_json::from_str(&line).unwrap();
        assert_eq!(back, plan);
    }

    #[test]
    fn outcome_buffers_round_trip_as_base64() {
        let o = Outcome {
            buffers: vec![vec![0, 255, 7], vec![]],
            other_schedules: vec![ScheduleOutcome {
                name: "reversed".into(),
                buffers: vec![vec![1; 5]],
                snapshots: vec![vec![vec![2; 3]]],
            }],
            snapshots: vec![vec![vec![9], vec![]]],
            ..Outcome::default()
        };
        let line = serde_json::to_string(&o).unwrap();
        assert!(line.contains(r#""buffers":["AP8H",""]"#), "{line}");
        assert_eq!(serde_json::from_str::<Outcome>(&line).unwrap(), o);
        assert!(serde_json::from_str::<Outcome>(&line.replace("AP8H", "!!")).is_err());
    }

    #[test]
    fn outcomes_without_snapshots_still_read() {
        // A worker built before snapshots existed answers without the field.
        let o: Outcome = serde_json::from_str(
            r#"{"build":{"failed_at":null,"log":""},"steps":[],"buffers":["AQ=="],"flags":[],"notes":[],"timings_us":{"build":0,"dispatch":0,"readback":0}}"#,
        )
        .unwrap();
        assert!(o.snapshots.is_empty());
        assert_eq!(o.buffers, vec![vec![1]]);
    }
}
