//! The conform case an import produces, typed just enough to write it out: every buffer,
//! step and expectation keeps the piglit line it came from, for the `# file:line: command`
//! comments [`super::emit`] writes.

use super::command::Op;
use super::parse::Stage;
use conform_plan::SamplerState;

/// A piglit line an entry comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    pub line: usize,
    pub text: String,
}

/// `requires:`
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Requires {
    pub gl: Option<String>,
    pub gles: Option<String>,
    pub glsl: Option<u32>,
    /// `core` / `compatibility`
    pub profile: Option<&'static str>,
    pub extensions: Vec<String>,
    /// Limit names without `GL_`, each `>=` its value.
    pub limits: Vec<(String, i64)>,
}

impl Requires {
    pub fn is_empty(&self) -> bool {
        *self == Requires::default()
    }
}

/// The language of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Glsl,
    SpirvAsm,
}

/// One shader of the case's program.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub stage: Stage,
    pub language: Language,
    pub source: String,
    /// SpecId → 32-bit value (SPIR-V only).
    pub specialization: Vec<(u32, u32)>,
    /// The section header line it comes from.
    pub origin: Origin,
}

/// The binding point kind of a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    Storage,
    AtomicCounter,
}

/// A zero-filled buffer (shader_runner creates every buffer zeroed).
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub binding: u32,
    pub kind: BufferKind,
    pub size_bytes: u64,
    pub origin: Origin,
}

/// A texture bound to an image unit: `images:` (a 2D image of one level).
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub name: String,
    pub unit: u32,
    /// conform's format name (`rgba8`).
    pub format: &'static str,
    pub size: [u32; 2],
    /// The texels' values, lane by lane, x fastest (already YAML).
    pub data: Vec<YamlValue>,
    /// Values per texel (a line of `data` per image row is written).
    pub lanes: usize,
    /// The `texture` line that made it and the `image texture` line that bound it.
    pub origins: Vec<Origin>,
}

/// A value already written as YAML (see [`crate::yaml`]).
pub type YamlValue = String;

/// What an expectation checks.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// `values: [v]` (exact)
    Equals(YamlValue),
    /// `values: [v], tolerance: {abs: x}`
    WithinAbs(YamlValue, YamlValue),
    /// `compare: {op: OP, values: [v]}`
    Compare(Op, YamlValue),
    /// `count` vector elements compared lane by lane with `lanes`:
    /// `compare: {op: OP, values: [lanes]}` or `{fill: [lanes], count: N}`.
    CompareLanes {
        op: Op,
        lanes: Vec<YamlValue>,
        count: u64,
    },
}

/// One element of a buffer checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    pub buffer: String,
    /// First element, in elements of `ty`.
    pub at: u64,
    pub ty: &'static str,
    pub check: Check,
}

/// `uniform: {name|location, type, value}`
#[derive(Clone, Debug, PartialEq)]
pub enum UniformTarget {
    Name(String),
    Location(i32),
}

/// A step of the `steps:` list (`expect:` steps are made by [`super::emit`] from runs of
/// expectations).
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Barrier(Vec<&'static str>),
    Dispatch([u32; 3]),
    DispatchGroupSize {
        groups: [u32; 3],
        size: [u32; 3],
    },
    Write {
        buffer: String,
        offset: u64,
        ty: &'static str,
        value: YamlValue,
    },
    /// Every byte of `buffer` (`bytes` long) set to zero: a `write` of `{fill: 0}` bytes.
    Zero {
        buffer: String,
        bytes: u64,
    },
    Uniform {
        target: UniformTarget,
        ty: String,
        values: Vec<YamlValue>,
    },
    ProgramQuery {
        pname: String,
        equals: i64,
    },
}

/// What one piglit command became.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    Step(Step),
    Expect(Expectation),
}

/// One `[test]` command and what it became (possibly nothing: then `note` says why).
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub origin: Origin,
    pub entries: Vec<Entry>,
    /// Why nothing (or less) was emitted, shown after the command in its comment.
    pub note: Option<String>,
}

impl Item {
    pub fn has_steps(&self) -> bool {
        self.entries.iter().any(|e| matches!(e, Entry::Step(_)))
    }

    pub fn has_expectations(&self) -> bool {
        self.entries.iter().any(|e| matches!(e, Entry::Expect(_)))
    }
}

/// A whole case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub name: String,
    /// How comments name the piglit file (`tests/spec/a/b.shader_test`).
    pub source_label: String,
    /// Which of a SPIRV YES test's two runs this is, if it is one.
    pub variant_note: Option<String>,
    /// The test's own leading comment lines.
    pub header_comments: Vec<String>,
    pub requires: Requires,
    pub programs: Vec<Program>,
    pub buffers: Vec<Buffer>,
    pub images: Vec<Image>,
    /// Sampled textures (`textures:`).
    pub textures: Vec<SampledTexture>,
    /// The `[test]` commands in order.
    pub items: Vec<Item>,
    /// `link error`: the program must fail to link.
    pub fails_at_link: Option<Origin>,
}

/// A sampled 2D texture of the case: `textures:`.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledTexture {
    pub name: String,
    pub unit: u32,
    /// conform's format name (`rgba8`).
    pub format: &'static str,
    pub size: [u32; 2],
    /// Values per texel.
    pub lanes: usize,
    /// The texels of each level, lane by lane (already YAML).
    pub levels: Vec<Vec<String>>,
    pub sampler: SamplerState,
    /// The `texture` line that made it and the `texparameter` lines that set its state.
    pub origins: Vec<Origin>,
}
