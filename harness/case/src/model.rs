//! The case file as written: serde structs mirroring `cases/README.md` one to one.
//!
//! Fixed-shape parts are typed with `deny_unknown_fields`, so serde_yaml_ng reports unknown
//! keys and wrong types with their position. Parts that take several forms (data, values,
//! steps) stay `serde_yaml_ng::Value` here and are interpreted by the `Checker` in `case/mod.rs`,
//! where each form gets its own precise message instead of serde's "did not match any variant".

use serde::Deserialize;
use serde_yaml_ng::Value;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCase {
    pub name: Option<String>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub spec: Vec<String>,
    #[serde(default)]
    pub requires: Requires,
    pub program: Option<RawProgram>,
    pub programs: Option<Vec<RawProgram>>,
    #[serde(default)]
    pub buffers: Vec<RawBuffer>,
    #[serde(default)]
    pub images: Vec<RawImage>,
    #[serde(default)]
    pub textures: Vec<RawTexture>,
    #[serde(default)]
    pub uniforms: Vec<RawUniform>,
    pub steps: Option<Vec<Value>>,
    #[serde(default)]
    pub expect: Vec<RawExpect>,
    pub fails: Option<RawFails>,
    pub undefined: Option<String>,
    /// With `undefined`: the spec lets this undefined behaviour terminate the program (its
    /// words quoted in the description), so a crash on a context without robust buffer access
    /// is allowed.
    pub may_terminate: Option<bool>,
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub reference: RawReferenceKnobs,
}

#[derive(Debug, Default, Deserialize, Clone, PartialEq, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// Minimum GL version, "4.3".
    pub gl: Option<String>,
    /// Minimum OpenGL ES version, "3.1": the case runs in an OpenGL ES context (drivers: the
    /// worker's ES context; the reference: when its GLSL front end accepts ES shaders).
    pub gles: Option<String>,
    /// Minimum GLSL version, 430.
    pub glsl: Option<u32>,
    pub profile: Option<Profile>,
    #[serde(default)]
    pub extensions: Vec<String>,
    #[serde(default)]
    pub spirv_extensions: Vec<String>,
    #[serde(default)]
    pub limits: BTreeMap<String, i64>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    Core,
    Compatibility,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProgram {
    pub language: conform_plan::Language,
    #[serde(default)]
    pub stage: conform_plan::Stage,
    pub source: Option<String>,
    pub file: Option<String>,
    pub entry: Option<String>,
    #[serde(default)]
    pub specialization: BTreeMap<u32, i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuffer {
    pub name: Option<String>,
    pub binding: u32,
    #[serde(default)]
    pub kind: conform_plan::BufferKind,
    #[serde(rename = "type")]
    pub elem: Option<String>,
    pub data: Option<Value>,
    pub size: Option<u64>,
}

/// An image bound to an image unit (`images:`); `dim` and `format` are checked by name in
/// `case/images.rs` so that a wrong one gets the list of known ones.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawImage {
    pub name: String,
    pub unit: u32,
    #[serde(rename = "type")]
    pub dim: String,
    pub format: String,
    pub size: Vec<u32>,
    pub data: Option<Value>,
    pub range: Option<RawTexelRange>,
}

/// `range:` of a buffer image: the bytes of its buffer object the texture views
/// (glTexBufferRange's `offset` and `size`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTexelRange {
    pub offset: u64,
    pub size: u64,
}

/// One entry of `textures:` (cases/README.md, "Textures"): a sampled texture on a texture
/// unit. Names stay strings, checked in `case/sampled.rs`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTexture {
    pub name: String,
    pub unit: u32,
    #[serde(rename = "type")]
    pub dim: String,
    pub format: String,
    pub size: Vec<u32>,
    /// The data of each level, level 0 first; their number is the texture's level count.
    pub levels: Vec<Value>,
    #[serde(default)]
    pub sampler: RawSampler,
}

/// A texture's sampler state; what is left out keeps GL's initial value.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSampler {
    pub min_filter: Option<String>,
    pub mag_filter: Option<String>,
    /// S, T, R: one to three.
    pub wrap: Option<Vec<String>>,
    pub border_color: Option<Vec<f32>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawUniform {
    pub name: String,
    #[serde(rename = "type")]
    pub elem: String,
    pub value: Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExpect {
    pub buffer: Value,
    /// The first element checked; None when not written (element 0).
    pub at: Option<u64>,
    #[serde(rename = "type")]
    pub elem: Option<String>,
    pub count: Option<u64>,
    pub values: Option<Value>,
    pub tolerance: Option<RawTolerance>,
    pub one_of: Option<Vec<Value>>,
    pub permutation_of: Option<Value>,
    pub compare: Option<RawCompare>,
    pub outcomes: Option<RawOutcomes>,
    pub undefined: Option<bool>,
    pub reference: Option<bool>,
}

/// `compare: {op: "<", values: DATA}`: observed OP expected, element by element.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCompare {
    pub op: String,
    pub values: Value,
}

/// `outcomes: {width: K, allowed: [[...], ...]}`: the range is a sequence of K-element tuples
/// (one per litmus instance), each of which must equal one of the allowed tuples.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOutcomes {
    pub width: u64,
    pub allowed: Vec<Value>,
}

#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct RawTolerance {
    pub ulp: Option<u64>,
    pub abs: Option<f64>,
    pub rel: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFails {
    pub at: conform_plan::BuildStage,
    pub log: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReferenceKnobs {
    pub schedules: Option<u32>,
    pub step_budget: Option<u64>,
    /// `std140` or `std430` (conform_plan::BlockLayout).
    pub shared_layout: Option<conform_plan::BlockLayout>,
    pub subgroup_size: Option<u32>,
}

/// The actions of a step (exactly one per step).
pub const STEP_ACTIONS: &[&str] = &[
    "dispatch",
    "dispatch_indirect",
    "dispatch_group_size",
    "barrier",
    "query",
    "program_query",
    "api",
    "uniform",
    "write",
    "clear",
    "expect",
];
/// Keys a step may carry besides its action.
pub const STEP_MODIFIERS: &[&str] = &["error", "equals", "at_least", "at_most"];
