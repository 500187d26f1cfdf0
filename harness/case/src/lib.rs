//! Test cases: loading a YAML case file, checking it, and lowering it to an [`ExecPlan`] plus
//! the expectations the harness compares outcomes with.
//!
//! Loading never panics and never stops at the first problem it can recover from: a case
//! either loads into a [`Case`] or yields every [`Diagnostic`] found, each at `file:line:col`.
//! `model.rs` is the file as written, `values.rs` the value/data forms, `pos.rs` the position
//! index used to locate problems found after deserialization.
//!
//! `conform-case` owns: discovery of case files, the input checks, the YAML model, `Checker`,
//! diagnostics, limits ([`limits`]), the case root ([`root`]), the clause catalogue
//! ([`clauses`]), lowering to `ExecPlan`, and how a case is shown ([`show`]).
//!
//! Never depends on: a runner or a backend (it checks cases against `conform-plan`'s
//! vocabulary, so a case is valid or not whatever backends are built; the only thing it takes
//! from the reference is its SPIR-V assembler), the judge, the gate, the CLI.

pub mod clauses;
pub mod corpus;
mod expect;
mod images;
pub mod limits;
pub mod model;
pub mod pos;
pub mod root;
mod sampled;
pub mod show;
mod state_steps;
mod steps;
pub mod values;
pub mod yaml;

use crate::clauses::Catalogue;
use conform_io::diag::{did_you_mean, Diagnostic};
use conform_plan::{
    BufferInit, BufferKind, BuildStage, ElemType, ExecPlan, GlError, Language, ProgramSource, Step,
    UniformInit,
};
use model::*;
use pos::PosIndex;
use regex::Regex;
pub use root::CaseRoot;
use serde_yaml_ng::Value;
use std::path::{Path, PathBuf};
use values::ValueError;

/// The prefix of a `spec` id naming another test suite (`external:piglit`) instead of a
/// catalogue clause: imported cases have no clause of ours; coverage does not count them.
pub const EXTERNAL_SPEC: &str = "external:";

fn is_suite_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

pub use conform_io::input::{read_text, MAX_FILE_BYTES};
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;

#[derive(Clone, Debug)]
pub struct Case {
    pub path: PathBuf,
    pub name: String,
    pub description: String,
    pub spec: Vec<String>,
    pub requires: Requires,
    pub plan: ExecPlan,
    pub expect: Vec<Expectation>,
    /// One per plan step.
    pub step_checks: Vec<StepCheck>,
    pub fails: Option<FailExpect>,
    pub undefined: Option<String>,
    /// `may_terminate: true`: the spec lets the case's undefined behaviour terminate the
    /// program (ARB_shader_storage_buffer_object's "may result in GL interruption or
    /// termination"), so a driver's crash is allowed, not a failure. Absent, a crash fails:
    /// most undefined results are values ("undefined but may not lead to termination").
    pub may_terminate: bool,
    /// The case's `reference:` knobs (conform-plan's type, as every backend's job carries it).
    pub reference: conform_plan::ReferenceKnobs,
}

#[derive(Clone, Debug)]
pub struct FailExpect {
    pub at: BuildStage,
    pub log: Option<Regex>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StepCheck {
    pub error: GlError,
    pub bound: Option<QueryBound>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueryBound {
    Equals(Vec<i64>),
    AtLeast(i64),
    AtMost(i64),
}

#[derive(Clone, Debug)]
pub struct Expectation {
    /// Line of the expectation in the case file, for messages.
    pub line: usize,
    /// Where the memory is read: None after the last step (top-level `expect`), else the
    /// `expect` step's snapshot (an index into `Outcome::snapshots`).
    pub at_snapshot: Option<Snapshot>,
    /// Index into `plan.buffers`.
    pub buffer: usize,
    pub elem: ElemType,
    /// First element checked.
    pub at: u64,
    /// Number of elements checked.
    pub count: u64,
    pub check: Check,
}

/// An `expect` step: the plan's `Step::Snapshot` at step `step` (0-based), the `index`-th
/// snapshot of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub index: usize,
    pub step: usize,
}

/// The operator of a `compare` check: observed OP expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
}

impl CompareOp {
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Eq,
        CompareOp::Ne,
        CompareOp::Lt,
        CompareOp::Gt,
        CompareOp::Le,
        CompareOp::Ge,
    ];

    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Gt => ">",
            CompareOp::Le => "<=",
            CompareOp::Ge => ">=",
        }
    }

    pub fn parse(text: &str) -> Option<CompareOp> {
        CompareOp::ALL.into_iter().find(|op| op.symbol() == text)
    }

    /// Whether `observed OP expected` holds for an ordering of the two (None: unordered, a
    /// NaN on either side, where only `!=` holds, as in IEEE 754).
    pub fn holds(self, order: Option<std::cmp::Ordering>) -> bool {
        use std::cmp::Ordering::*;
        match (self, order) {
            (CompareOp::Ne, None) => true,
            (_, None) => false,
            (CompareOp::Eq, Some(o)) => o == Equal,
            (CompareOp::Ne, Some(o)) => o != Equal,
            (CompareOp::Lt, Some(o)) => o == Less,
            (CompareOp::Gt, Some(o)) => o == Greater,
            (CompareOp::Le, Some(o)) => o != Greater,
            (CompareOp::Ge, Some(o)) => o != Less,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    Ulp(u64),
    Abs(f64),
    Rel(f64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    Exact(Vec<u8>),
    Within(Vec<u8>, Tolerance),
    OneOf(Vec<Vec<u8>>),
    Permutation(Vec<u8>),
    /// Element by element (component by component for vectors), observed OP expected;
    /// integers in their type, floats by value (NaN: see [`CompareOp::holds`]).
    Compare(CompareOp, Vec<u8>),
    /// The range is a sequence of tuples of `width` elements (one per instance of a litmus
    /// test); each must equal one of `allowed` (each `width` elements).
    Outcomes {
        width: usize,
        allowed: Vec<Vec<u8>>,
    },
    Undefined,
    Reference,
}

impl Expectation {
    pub fn byte_range(&self) -> std::ops::Range<usize> {
        let start = self.at as usize * self.elem.size();
        start..start + self.count as usize * self.elem.size()
    }
}

/// The default case name: the path below the last `cases/` directory, without extension.
pub fn default_name(path: &Path) -> String {
    let comps: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let start = comps
        .iter()
        .rposition(|c| c == "cases")
        .map_or(comps.len().saturating_sub(1), |i| i + 1);
    let rel = comps[start.min(comps.len())..].join("/");
    rel.strip_suffix(".yaml")
        .or_else(|| rel.strip_suffix(".yml"))
        .unwrap_or(&rel)
        .to_string()
}

/// `name` with what [`conform_io::escape::line`] escapes, and invisible characters too, as
/// escapes (`\u{200b}`), for a message about the name.
fn escape_invisible(name: &str) -> String {
    let mut o = String::new();
    for c in name.chars() {
        if conform_io::escape::is_invisible(c) {
            o.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            o.push_str(&conform_io::escape::line(c.encode_utf8(&mut [0; 4])));
        }
    }
    o
}

/// Loads and checks one case file, reading program files only from its own directory tree
/// (see [`load_in`]).
pub fn load(path: &Path, catalogue: Option<&Catalogue>) -> Result<Case, Vec<Diagnostic>> {
    load_in(path, catalogue, &CaseRoot::of_case_file(path))
}

/// Loads and checks one case file that must resolve inside `root`, and whose program files
/// must too (see `case/root.rs`).
pub fn load_in(
    path: &Path,
    catalogue: Option<&Catalogue>,
    root: &CaseRoot,
) -> Result<Case, Vec<Diagnostic>> {
    root.check_case_file(path)
        .map_err(|msg| vec![Diagnostic::whole_file(path, msg).with_hint(root::HINT)])?;
    let text = read_text(path).map_err(|d| vec![d])?;
    parse_in(path, &text, catalogue, root)
}

/// Parses and checks a case from its text (`path` is used for messages and relative files,
/// which must be in its own directory tree).
pub fn parse(
    path: &Path,
    text: &str,
    catalogue: Option<&Catalogue>,
) -> Result<Case, Vec<Diagnostic>> {
    parse_in(path, text, catalogue, &CaseRoot::of_case_file(path))
}

/// [`parse`], reading program files only inside `root`.
pub fn parse_in(
    path: &Path,
    text: &str,
    catalogue: Option<&Catalogue>,
    root: &CaseRoot,
) -> Result<Case, Vec<Diagnostic>> {
    if text.trim().is_empty() {
        return Err(vec![Diagnostic::whole_file(
            path,
            "file is empty: a case needs at least `spec` and a `program`",
        )]);
    }
    yaml::check(text, limits::YAML_BUDGET).map_err(|e| vec![yaml_diagnostic(path, e)])?;
    let raw: RawCase =
        serde_yaml_ng::from_str(text).map_err(|e| vec![serde_diagnostic(path, &e)])?;
    let index = PosIndex::build(text);
    let mut cx = Checker {
        path,
        text,
        index: &index,
        root,
        diags: Vec::new(),
        expect_bytes: 0,
        rejected: Vec::new(),
    };
    let case = cx.check(raw, catalogue);
    match case {
        Some(case) if cx.diags.is_empty() => Ok(case),
        _ => {
            if cx.diags.is_empty() {
                cx.diags
                    .push(Diagnostic::whole_file(path, "case is invalid"));
            }
            Err(cx.diags)
        }
    }
}

/// A document [`yaml::check`] refused, as a diagnostic.
fn yaml_diagnostic(path: &Path, e: pos::ShapeError) -> Diagnostic {
    let hint = if e.message.starts_with("U+") {
        yaml::CHARACTER_HINT
    } else {
        "a case is a few small lists and maps (cases/README.md, Limits)"
    };
    Diagnostic::new(path, e.pos.line, e.pos.column, e.message).with_hint(hint)
}

/// Turns a serde_yaml_ng error into a diagnostic with a did-you-mean for unknown keys.
fn serde_diagnostic(path: &Path, e: &serde_yaml_ng::Error) -> Diagnostic {
    let (line, col) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
    let mut msg = e.to_string();
    // serde_yaml_ng appends " at line L column C"; we print the position up front instead.
    if let Some(cut) = msg.find(" at line ") {
        msg.truncate(cut);
    }
    let hint = unknown_field_hint(&msg);
    // "expect[0]: unknown field `x`, expected one of ..." — keep the expected list in the hint.
    if let Some(cut) = msg.find(", expected one of") {
        msg.truncate(cut);
    } else if let Some(cut) = msg.find(", expected ") {
        if msg.contains("unknown variant") {
            msg.truncate(cut);
        }
    }
    Diagnostic::new(path, line, col, msg).with_optional_hint(hint)
}

fn unknown_field_hint(msg: &str) -> Option<String> {
    let re = Regex::new(r"unknown (field|variant) `([^`]*)`, expected (one of )?(.*)$").ok()?;
    let caps = re.captures(msg)?;
    let word = caps.get(2)?.as_str();
    let list = caps.get(4)?.as_str();
    let choices: Vec<&str> = list
        .split(", ")
        .flat_map(|s| s.split(" or "))
        .map(|s| s.trim_matches('`'))
        .filter(|s| !s.is_empty())
        .collect();
    match did_you_mean(word, choices.iter().copied()) {
        Some(m) => Some(format!("did you mean `{m}`?")),
        None => Some(format!("expected one of {}", choices.join(", "))),
    }
}

struct Checker<'a> {
    path: &'a Path,
    text: &'a str,
    index: &'a PosIndex,
    root: &'a CaseRoot,
    diags: Vec<Diagnostic>,
    /// Bytes the expectations hold so far (`expect` steps and the top-level list together),
    /// against limits::MAX_EXPECT_BYTES.
    expect_bytes: u64,
    /// Buffers, images and textures declared but rejected (name, binding or unit): their
    /// problem is reported once, where they are declared, so a step or expectation that
    /// names one is not reported again as naming nothing ([`Checker::buffer_ref`]).
    rejected: Vec<(String, u32)>,
}

impl Checker<'_> {
    fn err_at(&mut self, node: &str, message: impl Into<String>, hint: Option<String>) {
        let p = self.index.node(node);
        self.diags
            .push(Diagnostic::new(self.path, p.line, p.column, message).with_optional_hint(hint));
    }

    fn err_key(&mut self, node: &str, message: impl Into<String>, hint: Option<String>) {
        let p = self.index.key(node);
        self.diags
            .push(Diagnostic::new(self.path, p.line, p.column, message).with_optional_hint(hint));
    }

    /// A serde error from reading the map at `node` out of a `Value` (no position of its
    /// own): an unknown key is reported at the key, anything else at the node.
    fn nested_serde_err(&mut self, node: &str, e: &serde_yaml_ng::Error) {
        let mut msg = e.to_string();
        let hint = unknown_field_hint(&msg);
        if let Some(cut) = msg.find(", expected one of") {
            msg.truncate(cut);
        }
        let key = Regex::new(r"unknown field `([^`]*)`")
            .ok()
            .and_then(|re| re.captures(&msg).map(|c| c[1].to_string()));
        match key {
            Some(k) => self.err_key(&format!("{node}.{k}"), msg, hint),
            None => self.err_at(node, msg, hint),
        }
    }

    fn value_err(&mut self, node: &str, e: ValueError) {
        self.err_at(&format!("{node}{}", e.at), e.message, e.hint);
    }

    fn elem(&mut self, node: &str, text: &str) -> Option<ElemType> {
        let t = ElemType::parse(text);
        if t.is_none() {
            let names = ElemType::names();
            let hint = match did_you_mean(text, names.iter().map(String::as_str)) {
                Some(m) => format!("did you mean `{m}`?"),
                None => "element types are u8 u16 u32 u64 i8 i16 i32 i64 f16 f32 f64, or vectors like u32x4".into(),
            };
            self.err_at(node, format!("unknown element type `{text}`"), Some(hint));
        }
        t
    }

    fn check(&mut self, raw: RawCase, catalogue: Option<&Catalogue>) -> Option<Case> {
        let name = raw.name.clone().unwrap_or_else(|| default_name(self.path));
        use conform_io::escape::{is_hostile, is_invisible, line};
        if name.len() > limits::MAX_NAME_BYTES {
            let node = if raw.name.is_some() { "name" } else { "" };
            let start: String = name.chars().take(32).collect();
            self.err_at(
                node,
                format!(
                    "case name `{}…` is {} bytes, above the limit of {} bytes",
                    line(&start),
                    name.len(),
                    limits::MAX_NAME_BYTES
                ),
                Some("names appear on every report line and console line of a run: shorten it (its `name:` or file path)".into()),
            );
        } else if name.chars().any(|c| is_hostile(c) || is_invisible(c)) {
            let node = if raw.name.is_some() { "name" } else { "" };
            self.err_at(
                node,
                format!(
                    "case name `{}` contains control characters, bidirectional or invisible formatting characters, or characters XML forbids (shown escaped)",
                    escape_invisible(&name)
                ),
                Some("names appear on consoles and in reports: use letters, digits, - _ /".into()),
            );
        } else if name.contains([',', '"', '#']) {
            // results.csv and every deqp-runner file are `name,Status` lines that deqp-runner
            // splits at the first comma, with no quoting, and that conform's own readers (and
            // a baseline's `# note`s) end at a `#`: such a name would break them.
            let node = if raw.name.is_some() { "name" } else { "" };
            let what = if raw.name.is_some() {
                "`name:`"
            } else {
                "file"
            };
            self.err_at(
                node,
                format!(
                    "case name `{name}` contains a comma, a double quote or a `#`, which deqp-runner's files cannot hold"
                ),
                Some(format!("rename the case (its {what}): use letters, digits, - _ . /")),
            );
        }
        if raw.spec.is_empty() {
            self.err_key(
                "spec",
                "a case must name the clauses it exercises in a non-empty `spec:` list",
                Some("e.g. spec: [NVCP5-ATOMS-IWRAP]".into()),
            );
        }
        for (i, id) in raw.spec.iter().enumerate() {
            if let Some(suite) = id.strip_prefix(EXTERNAL_SPEC) {
                if !is_suite_name(suite) {
                    self.err_at(
                        &format!("spec[{i}]"),
                        format!("`{id}` is not an external suite id"),
                        Some("write `external:<suite>`, e.g. external:piglit (letters, digits, `_`, `-`, `.`)".into()),
                    );
                }
            }
        }
        if let Some(cat) = catalogue {
            for (i, id) in raw.spec.iter().enumerate() {
                if !id.starts_with(EXTERNAL_SPEC) && !cat.contains(id) {
                    let hint = did_you_mean(id, cat.ids()).map(|m| format!("did you mean `{m}`?"));
                    self.err_at(
                        &format!("spec[{i}]"),
                        format!("unknown clause id `{id}` (not in {})", cat.path.display()),
                        hint,
                    );
                }
            }
        }
        self.check_requires(&raw.requires);
        let programs = self.programs(&raw);
        let mut buffers = self.buffers(&raw.buffers);
        self.images(&raw.images, &mut buffers);
        self.textures(&raw.textures, &mut buffers);
        let uniforms = self.uniforms(&raw.uniforms);
        let (steps, step_checks, step_expect) =
            self.steps(raw.steps.as_deref(), &buffers, &programs);
        let mut expect = self.expectations(&raw.expect, &buffers);
        expect.extend(step_expect);
        let fails = raw.fails.as_ref().map(|f| {
            let log = match &f.log {
                Some(re) => match Regex::new(re) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        let why = e.to_string();
                        let why = why
                            .lines()
                            .last()
                            .unwrap_or("")
                            .trim_start_matches("error: ")
                            .to_string();
                        self.err_at("fails.log", format!("invalid regex /{re}/: {why}"), None);
                        None
                    }
                },
                None => None,
            };
            FailExpect { at: f.at, log }
        });
        if let Some(f) = &fails {
            let langs: Vec<Language> = programs.iter().map(|p| p.language).collect();
            let fits = langs.iter().all(|l| match f.at {
                BuildStage::Load => *l == Language::Nvasm,
                BuildStage::Compile | BuildStage::Link => *l == Language::Glsl,
                BuildStage::Validate => matches!(l, Language::Spirv | Language::SpirvAsm),
            });
            if !fits && !langs.is_empty() {
                self.err_at(
                    "fails.at",
                    format!(
                        "`{}` failures do not happen to {} programs",
                        f.at.name(),
                        langs[0].name()
                    ),
                    Some("load is for nvasm, compile/link for glsl, validate for spirv".into()),
                );
            }
            if !expect.is_empty() {
                let node = match expect.iter().find_map(|x| x.at_snapshot) {
                    Some(s) => format!("steps[{}].expect", s.step),
                    None => "expect".to_string(),
                };
                self.err_key(
                    &node,
                    "a case that expects a build failure runs no steps, so it cannot expect memory",
                    None,
                );
            }
        }
        if let Some(t) = raw.timeout_ms {
            if t == 0 || t > limits::MAX_TIMEOUT_MS {
                self.err_at(
                    "timeout_ms",
                    format!("timeout_ms {t} is outside 1..={}", limits::MAX_TIMEOUT_MS),
                    None,
                );
            }
        }
        if self.diags.is_empty() {
            // Only on an otherwise valid case: step indices are the file's then.
            self.check_work(&raw.reference, &buffers, &steps);
        }
        if let Some(s) = raw.reference.subgroup_size {
            if !(4..=64).contains(&s) || !s.is_power_of_two() {
                self.err_at(
                    "reference.subgroup_size",
                    format!("subgroup_size {s} is not a power of two from 4 to 64"),
                    None,
                );
            }
        }
        if raw.may_terminate.is_some() && raw.undefined.is_none() {
            self.err_at(
                "may_terminate",
                "may_terminate needs `undefined`: only undefined behaviour may terminate the program".to_string(),
                None,
            );
        }
        if !self.diags.is_empty() {
            return None;
        }
        let plan = ExecPlan {
            case: name.clone(),
            programs,
            buffers,
            uniforms,
            steps,
            timeout_ms: raw.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
            // The verdict of a case that expects a build failure is the build alone.
            skip_steps_if_built: fails.is_some(),
        };
        Some(Case {
            path: self.path.to_path_buf(),
            name,
            description: raw.description,
            spec: raw.spec,
            requires: raw.requires,
            plan,
            expect,
            step_checks,
            fails,
            undefined: raw.undefined,
            may_terminate: raw.may_terminate.unwrap_or(false),
            reference: conform_plan::ReferenceKnobs {
                schedules: raw.reference.schedules,
                step_budget: raw.reference.step_budget,
                shared_layout: raw.reference.shared_layout,
                subgroup_size: raw.reference.subgroup_size,
            },
        })
    }

    /// The reference knobs within their maximums, and the work and memory the reference would
    /// spend on the case within `limits` (groups x schedules, buffers x schedules).
    fn check_work(&mut self, knobs: &RawReferenceKnobs, buffers: &[BufferInit], steps: &[Step]) {
        let schedules = knobs.schedules.unwrap_or(limits::DEFAULT_SCHEDULES);
        let readme = "cases/README.md, Limits";
        if !(1..=limits::MAX_SCHEDULES).contains(&schedules) {
            self.err_at(
                "reference.schedules",
                format!(
                    "schedules must be 1..={} (the default is {})",
                    limits::MAX_SCHEDULES,
                    limits::DEFAULT_SCHEDULES
                ),
                None,
            );
            return;
        }
        if let Some(b) = knobs.step_budget {
            if !(1..=limits::MAX_STEP_BUDGET).contains(&b) {
                self.err_at(
                    "reference.step_budget",
                    format!(
                        "step_budget must be 1..={} instructions per invocation (the default is {})",
                        limits::MAX_STEP_BUDGET,
                        limits::DEFAULT_STEP_BUDGET
                    ),
                    Some(format!("the case's timeout_ms bounds the time anyway ({readme})")),
                );
            }
        }
        let buffer_bytes: u64 = buffers.iter().map(|b| b.bytes.len() as u64).sum();
        let memory = buffer_bytes.saturating_mul(u64::from(schedules) + 1);
        if memory > limits::MAX_REFERENCE_BYTES {
            let node = if knobs.schedules.is_some() {
                "reference.schedules"
            } else {
                "buffers"
            };
            self.err_at(
                node,
                format!(
                    "the reference would keep {} of buffers ({} of buffers x ({schedules} schedules + 1)), above its limit of {}",
                    limits::bytes(memory),
                    limits::bytes(buffer_bytes),
                    limits::bytes(limits::MAX_REFERENCE_BYTES)
                ),
                Some(format!("use fewer schedules (reference: {{schedules: 1}}) or smaller buffers ({readme})")),
            );
        }
        let max = [limits::REFERENCE_MAX_GROUP_COUNT; 3];
        let mut groups: u64 = 0;
        for (i, step) in steps.iter().enumerate() {
            let Step::Dispatch { groups: g } = step else {
                continue;
            };
            // Counts above the GL limit only raise INVALID_VALUE; nothing runs.
            if g.iter().zip(max).any(|(n, m)| *n > m) {
                continue;
            }
            let n = g.iter().map(|&n| u64::from(n)).product::<u64>();
            groups = groups.saturating_add(n);
            let runs = groups.saturating_mul(u64::from(schedules));
            if runs > limits::MAX_GROUP_RUNS {
                self.err_at(
                    &format!("steps[{i}].dispatch"),
                    format!(
                        "the dispatches up to here run {groups} work groups x {schedules} schedules = {runs} on the reference, above its limit of {}",
                        limits::MAX_GROUP_RUNS
                    ),
                    Some(format!("dispatch fewer groups, or use reference: {{schedules: 1}} ({readme})")),
                );
                return;
            }
        }
    }

    fn check_requires(&mut self, r: &Requires) {
        if let Some(gl) = &r.gl {
            if parse_gl_version(gl).is_none() {
                self.err_at(
                    "requires.gl",
                    format!("`{gl}` is not a GL version"),
                    Some("write it as \"4.3\"".into()),
                );
            }
        }
        if let Some(gles) = &r.gles {
            if parse_gl_version(gles).is_none() {
                self.err_at(
                    "requires.gles",
                    format!("`{gles}` is not an OpenGL ES version"),
                    Some("write it as \"3.1\"".into()),
                );
            } else if r.gl.is_some() {
                self.err_key(
                    "requires.gles",
                    "a case runs in one context: it requires either `gl` (desktop OpenGL) or `gles` (OpenGL ES), not both",
                    None,
                );
            }
        }
        for (i, ext) in r.extensions.iter().enumerate() {
            if !ext.starts_with("GL_") {
                self.err_at(
                    &format!("requires.extensions[{i}]"),
                    format!("`{ext}` is not a GL extension name"),
                    Some(format!("GL extension names start with GL_: GL_{ext}")),
                );
            }
        }
        for (i, ext) in r.spirv_extensions.iter().enumerate() {
            if !ext.starts_with("SPV_") {
                self.err_at(
                    &format!("requires.spirv_extensions[{i}]"),
                    format!("`{ext}` is not a SPIR-V extension name"),
                    Some("SPIR-V extension names start with SPV_".into()),
                );
            }
        }
    }

    fn programs(&mut self, raw: &RawCase) -> Vec<ProgramSource> {
        let list: Vec<(String, &RawProgram)> = match (&raw.program, &raw.programs) {
            (Some(p), None) => vec![("program".to_string(), p)],
            (None, Some(ps)) if !ps.is_empty() => ps
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("programs[{i}]"), p))
                .collect(),
            (None, Some(_)) => {
                self.err_key("programs", "`programs` is empty", None);
                return vec![];
            }
            (Some(_), Some(_)) => {
                self.err_key(
                    "programs",
                    "give either `program` or `programs`, not both",
                    None,
                );
                return vec![];
            }
            (None, None) => {
                self.diags.push(
                    Diagnostic::whole_file(self.path, "case has no `program`")
                        .with_hint("add `program: {language: glsl, source: ...}`"),
                );
                return vec![];
            }
        };
        let mut out = Vec::new();
        for (node, p) in list {
            if let Some(prog) = self.program(&node, p) {
                out.push(prog);
            }
        }
        if out.len() > 1 && out.iter().any(|p| p.language != Language::Glsl) {
            self.err_key(
                "programs",
                "only GLSL programs can be linked from several shaders",
                None,
            );
        }
        out
    }

    fn program(&mut self, node: &str, p: &RawProgram) -> Option<ProgramSource> {
        let (text, words, origin, first_line) = match (&p.source, &p.file) {
            (Some(src), None) => {
                // A block scalar (`source: |`) starts on the line after its indicator.
                let at = self.index.node(&format!("{node}.source"));
                let indicator = self
                    .text
                    .lines()
                    .nth(at.line.saturating_sub(1))
                    .and_then(|l| l.get(at.column.saturating_sub(1)..))
                    .is_some_and(|rest| rest.starts_with('|') || rest.starts_with('>'));
                let first = at.line as u32 + u32::from(indicator);
                (src.clone(), vec![], self.path.display().to_string(), first)
            }
            (None, Some(file)) => {
                let full = self.path.parent().unwrap_or(Path::new(".")).join(file);
                let real = match self.root.resolve(self.path, file) {
                    Ok(real) => real,
                    Err(msg) => {
                        self.err_at(&format!("{node}.file"), msg, Some(root::HINT.into()));
                        return None;
                    }
                };
                if p.language == Language::Spirv {
                    match read_spirv(&real, &full) {
                        Ok(words) => (String::new(), words, full.display().to_string(), 1),
                        Err(msg) => {
                            self.err_at(&format!("{node}.file"), msg, None);
                            return None;
                        }
                    }
                } else {
                    match read_text(&real) {
                        Ok(t) => (t, vec![], full.display().to_string(), 1),
                        Err(d) => {
                            let msg = match d.line {
                                0 => format!("program file {}: {}", full.display(), d.message),
                                l => {
                                    format!("program file {}:{}: {}", full.display(), l, d.message)
                                }
                            };
                            self.err_at(&format!("{node}.file"), msg, None);
                            return None;
                        }
                    }
                }
            }
            (Some(_), Some(_)) => {
                self.err_key(
                    &format!("{node}.file"),
                    "give either `source` or `file`, not both",
                    None,
                );
                return None;
            }
            (None, None) => {
                self.err_at(node, "program needs `source` or `file`", None);
                return None;
            }
        };
        if p.language == Language::Spirv && p.file.is_none() {
            self.err_at(
                &format!("{node}.language"),
                "binary SPIR-V must come from a `file`",
                Some("for inline SPIR-V use language: spirv-asm".into()),
            );
            return None;
        }
        if p.language != Language::Spirv && text.trim().is_empty() {
            self.err_at(&format!("{node}.source"), "program text is empty", None);
            return None;
        }
        if !matches!(p.language, Language::Spirv | Language::SpirvAsm)
            && (p.entry.is_some() || !p.specialization.is_empty())
        {
            self.err_key(
                &format!("{node}.entry"),
                "`entry` and `specialization` apply to SPIR-V programs only",
                None,
            );
        }
        // SPIR-V assembly becomes words here, once, with SPIRV-Tools (conform-spirv), so
        // every backend — drivers included — gets a binary module. An assembly
        // error is a broken case; validation failures are left to the backends (a `validate`
        // case expects them).
        let mut words = words;
        if p.language == Language::SpirvAsm {
            match conform_spirv::assemble(&text) {
                Ok(w) => words = w,
                Err(diags) => {
                    for d in diags {
                        let line = if d.line > 0 {
                            first_line as usize + d.line as usize - 1
                        } else {
                            0
                        };
                        self.diags.push(Diagnostic::new(
                            self.path,
                            line,
                            d.column as usize,
                            format!("SPIR-V assembly: {}", d.message),
                        ));
                    }
                    return None;
                }
            }
        }
        let mut specialization = Vec::new();
        for (id, v) in &p.specialization {
            match u32::try_from(*v).or_else(|_| i32::try_from(*v).map(|x| x as u32)) {
                Ok(w) => specialization.push((*id, w)),
                Err(_) => self.err_at(
                    &format!("{node}.specialization.{id}"),
                    format!("specialization value {v} does not fit in 32 bits"),
                    None,
                ),
            }
        }
        Some(ProgramSource {
            language: p.language,
            stage: p.stage,
            text,
            words,
            origin,
            first_line,
            entry: p.entry.clone().unwrap_or_else(|| "main".into()),
            specialization,
        })
    }

    fn buffers(&mut self, raw: &[RawBuffer]) -> Vec<BufferInit> {
        let mut out: Vec<BufferInit> = Vec::new();
        // Bytes of the buffers so far, against limits::MAX_BUFFER_BYTES.
        let mut used: u64 = 0;
        for (i, b) in raw.iter().enumerate() {
            let node = format!("buffers[{i}]");
            let name = b.name.clone().unwrap_or_else(|| format!("b{}", b.binding));
            if out.iter().any(|o| o.name == name) {
                self.err_at(&node, format!("two buffers are named `{name}`"), None);
                continue;
            }
            match self.buffer(&node, b, name.clone(), &out, used) {
                Some(buffer) => {
                    used += buffer.bytes.len() as u64;
                    out.push(buffer);
                }
                None => self.rejected.push((name, b.binding)),
            }
        }
        out
    }

    /// One buffer of `buffers:`, after those in `before` (holding `used` bytes), or None
    /// when it is rejected (the problem reported).
    fn buffer(
        &mut self,
        node: &str,
        b: &RawBuffer,
        name: String,
        before: &[BufferInit],
        used: u64,
    ) -> Option<BufferInit> {
        if let Some(o) = before
            .iter()
            .find(|o| o.kind == b.kind && o.binding == b.binding && b.kind != BufferKind::Indirect)
        {
            self.err_at(
                &format!("{node}.binding"),
                format!(
                    "binding {} is already used by buffer `{}`",
                    b.binding, o.name
                ),
                None,
            );
            return None;
        }
        let elem = self.elem(&format!("{node}.type"), b.elem.as_deref().unwrap_or("u32"))?;
        let left = limits::left(limits::MAX_BUFFER_BYTES, used);
        let mut bytes = match &b.data {
            Some(d) => match values::encode_data(d, elem, left) {
                Ok(bytes) => bytes,
                Err(e) => {
                    self.value_err(&format!("{node}.data"), e);
                    return None;
                }
            },
            None => vec![0; elem.size()],
        };
        if let Some(size) = b.size {
            if size > left {
                self.err_at(
                    &format!("{node}.size"),
                    format!(
                        "size {size} is above the {} left for this case's buffers",
                        limits::bytes(left)
                    ),
                    Some(format!(
                        "a case's buffers may hold {} in all (cases/README.md, Limits)",
                        limits::bytes(limits::MAX_BUFFER_BYTES)
                    )),
                );
                return None;
            }
            if (size as usize) < bytes.len() {
                self.err_at(
                    &format!("{node}.size"),
                    format!(
                        "size {size} is smaller than the data ({} bytes)",
                        bytes.len()
                    ),
                    None,
                );
                return None;
            }
            bytes.resize(size as usize, 0);
        }
        if matches!(b.kind, BufferKind::ProgramLocal | BufferKind::ProgramEnv)
            && (elem.scalar.size() != 4 || bytes.len() % 16 != 0)
        {
            self.err_at(
                &format!("{node}.data"),
                "program parameters are vec4s of 32-bit values: use f32, i32 or u32 data in multiples of 4",
                None,
            );
            return None;
        }
        if bytes.is_empty() {
            self.err_at(node, format!("buffer `{name}` is empty"), None);
            return None;
        }
        Some(BufferInit {
            name,
            kind: b.kind,
            binding: b.binding,
            elem,
            bytes,
        })
    }

    fn uniforms(&mut self, raw: &[RawUniform]) -> Vec<UniformInit> {
        let mut out = Vec::new();
        for (i, u) in raw.iter().enumerate() {
            let node = format!("uniforms[{i}]");
            let Some(elem) = self.elem(&format!("{node}.type"), &u.elem) else {
                continue;
            };
            let value = match &u.value {
                Value::Sequence(_) => u.value.clone(),
                other => Value::Sequence(vec![other.clone()]),
            };
            match values::encode_data(&value, elem, limits::MAX_BUFFER_BYTES) {
                Ok(bytes) => out.push(UniformInit {
                    name: u.name.clone(),
                    elem,
                    bytes,
                }),
                Err(e) => self.value_err(&format!("{node}.value"), e),
            }
        }
        out
    }

    fn buffer_ref(&mut self, node: &str, v: &Value, buffers: &[BufferInit]) -> Option<usize> {
        let found = match v {
            Value::String(name) => buffers.iter().position(|b| &b.name == name),
            Value::Number(n) => n
                .as_u64()
                .and_then(|b| buffers.iter().position(|x| u64::from(x.binding) == b)),
            _ => None,
        };
        let rejected = self.rejected.iter().any(|(name, binding)| match v {
            Value::String(s) => s == name,
            Value::Number(n) => n.as_u64() == Some(u64::from(*binding)),
            _ => false,
        });
        if found.is_none() && !rejected {
            let shown = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => "?".into(),
            };
            let names: Vec<&str> = buffers
                .iter()
                .map(|b| b.name.as_str())
                .chain(self.rejected.iter().map(|(n, _)| n.as_str()))
                .collect();
            let hint = match did_you_mean(&shown, names.iter().copied()) {
                Some(m) => format!("did you mean `{m}`?"),
                None if names.is_empty() => "the case declares no buffers".into(),
                None => format!("buffers are: {}", names.join(", ")),
            };
            self.err_at(node, format!("no buffer named `{shown}`"), Some(hint));
        }
        found
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => format!("`{s}`"),
        Value::Number(n) => n.to_string(),
        other => serde_yaml_ng::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

/// Parses "4.3" into (4, 3).
pub fn parse_gl_version(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The SPIR-V binary at `path` (`shown` in messages) as words.
fn read_spirv(path: &Path, shown: &Path) -> Result<Vec<u32>, String> {
    let bytes = conform_io::input::read_bounded(path, MAX_FILE_BYTES)
        .map_err(|e| format!("SPIR-V file {}: {e}", shown.display()))?;
    if bytes.len() % 4 != 0 || bytes.len() < 20 {
        return Err(format!(
            "{} is not a SPIR-V binary (size {} bytes)",
            shown.display(),
            bytes.len()
        ));
    }
    let words = conform_plan::bytes::read_u32s(&bytes);
    if words[0] != 0x0723_0203 {
        return Err(format!(
            "{} is not a SPIR-V binary (magic 0x{:08x})",
            shown.display(),
            words[0]
        ));
    }
    Ok(words)
}

/// Case files found under some paths, and what the search noticed on the way.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Sorted; each file once.
    pub files: Vec<PathBuf>,
    /// Symlink loops and directories too deep to search, one line each (for stderr).
    pub warnings: Vec<String>,
}

/// Directories nested deeper than this below a given path are not searched.
pub const MAX_DIR_DEPTH: usize = 64;

/// Finds case files under the given paths (files are taken as they are), sorted. Symlinks are
/// followed, but no directory is searched twice: a symlink back to an ancestor (a loop) is
/// reported once and not followed, and a file or directory reachable along two paths is listed
/// once, under the first path in sorted order.
pub fn discover(paths: &[PathBuf]) -> Result<Discovered, String> {
    let mut walk = Walk::default();
    for p in paths {
        if p.is_dir() {
            walk.dir(p, &mut Vec::new())
                .map_err(|e| format!("{}: {e}", p.display()))?;
        } else if p.exists() || p.is_symlink() {
            walk.out.files.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    let mut out = walk.out;
    out.files.sort();
    out.files.dedup();
    Ok(out)
}

/// The state of [`discover`]: what was seen, by device and inode.
#[derive(Default)]
struct Walk {
    dirs: std::collections::HashSet<(u64, u64)>,
    files: std::collections::HashSet<(u64, u64)>,
    out: Discovered,
}

impl Walk {
    /// Searches `dir`; `ancestors` are the (device, inode) of the directories above it.
    fn dir(&mut self, dir: &Path, ancestors: &mut Vec<(u64, u64)>) -> std::io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir)?;
        let id = (meta.dev(), meta.ino());
        if ancestors.contains(&id) {
            self.out.warnings.push(format!(
                "warning: {}: symlink loop (it leads back to a directory above it); not followed",
                dir.display()
            ));
            return Ok(());
        }
        if !self.dirs.insert(id) {
            return Ok(());
        }
        if ancestors.len() >= MAX_DIR_DEPTH {
            self.out.warnings.push(format!(
                "warning: {}: more than {MAX_DIR_DEPTH} directory levels deep; not searched",
                dir.display()
            ));
            return Ok(());
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
            .map(|e| e.map(|e| e.path()))
            .collect::<std::io::Result<_>>()?;
        entries.sort();
        ancestors.push(id);
        for path in entries {
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => self.dir(&path, ancestors)?,
                Ok(m) if is_case_file(&path) => {
                    if self.files.insert((m.dev(), m.ino())) {
                        self.out.files.push(path);
                    }
                }
                Ok(_) => {}
                // A dangling symlink (or one in a loop of symlinks) named like a case: the
                // loader reports why it cannot be read.
                Err(_) if is_case_file(&path) => self.out.files.push(path),
                Err(_) => {}
            }
        }
        ancestors.pop();
        Ok(())
    }
}

/// Whether [`discover`] takes `path` for a case file (`*.yaml`, `*.yml`, not `clauses.yaml`):
/// a file written as a case under another name is never loaded.
pub fn is_case_file(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str());
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    matches!(ext, Some("yaml" | "yml")) && name != "clauses.yaml"
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_plan::{BufferKind, QueryPname, Step};

    const TESTDATA: &str = "testdata";

    fn catalogue() -> Catalogue {
        Catalogue::load(&Path::new(TESTDATA).join("clauses.yaml")).unwrap()
    }

    /// Every file in testdata/malformed is one kind of broken case; their diagnostics are
    /// pinned in testdata/malformed.golden. Regenerate with `BLESS=1 cargo test`.
    #[test]
    fn malformed_cases_golden_diagnostics() {
        let dir = Path::new(TESTDATA).join("malformed");
        let files = discover(&[dir]).unwrap().files;
        assert!(files.len() >= 15, "at least 15 kinds of malformed input");
        let cat = catalogue();
        let mut out = String::new();
        for f in &files {
            let diags =
                load(f, Some(&cat)).expect_err(&format!("{} must be rejected", f.display()));
            for d in diags {
                assert!(
                    d.line > 0 || d.message.contains("empty") || d.message.contains("no `program`"),
                    "{d} has no line"
                );
                out.push_str(&d.to_string());
                out.push('\n');
            }
        }
        let golden = Path::new(TESTDATA).join("malformed.golden");
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&golden, &out).unwrap();
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        assert_eq!(
            out, want,
            "diagnostics changed; rerun with BLESS=1 if intended"
        );
    }

    #[test]
    fn a_complete_case_lowers_to_a_plan() {
        let text = r#"
spec: [T-EXEC]
description: all the parts
program:
  language: glsl
  source: |
    #version 430
    layout(local_size_x = 4) in;
    void main() {}
buffers:
  - {name: out, binding: 1, type: u32, data: {fill: 0xFFFFFFFF, count: 4}}
  - {name: args, binding: 0, kind: indirect, type: u32, data: [2, 1, 1]}
steps:
  - dispatch: [1]
  - barrier: [command]
  - dispatch_indirect: {buffer: args, offset: 0}
  - query: {pname: GL_MAX_COMPUTE_WORK_GROUP_COUNT, index: 0}
    at_least: 65535
  - {dispatch: [1, 1, 1], error: INVALID_OPERATION}
expect:
  - {buffer: out, values: [0, 1]}
  - {buffer: out, at: 2, count: 2, undefined: true}
  - {buffer: 1, at: 0, permutation_of: [1, 0]}
"#;
        let case = parse(
            Path::new("cases/x/all-parts.yaml"),
            text,
            Some(&catalogue()),
        )
        .unwrap();
        assert_eq!(case.name, "x/all-parts");
        assert_eq!(
            case.plan.programs[0].first_line, 7,
            "source starts on the line after `|`"
        );
        assert_eq!(case.plan.buffers[1].kind, BufferKind::Indirect);
        assert_eq!(case.plan.buffers[0].bytes.len(), 16);
        assert_eq!(case.plan.steps[0], Step::Dispatch { groups: [1, 1, 1] });
        assert_eq!(
            case.plan.steps[2],
            Step::DispatchIndirect {
                buffer: Some(1),
                offset: 0
            }
        );
        assert_eq!(
            case.plan.steps[3],
            Step::Query {
                pname: QueryPname::MaxComputeWorkGroupCount,
                index: Some(0)
            }
        );
        assert_eq!(case.step_checks[3].bound, Some(QueryBound::AtLeast(65535)));
        assert_eq!(case.step_checks[4].error, GlError::InvalidOperation);
        assert_eq!(case.expect.len(), 3);
        assert_eq!(case.expect[1].byte_range(), 8..16);
        assert_eq!(case.expect[2].buffer, 0, "buffers can be named by binding");
    }

    #[test]
    fn default_names_come_from_the_path_below_cases() {
        assert_eq!(
            default_name(Path::new("/r/cases/nv/atoms.yaml")),
            "nv/atoms"
        );
        assert_eq!(default_name(Path::new("elsewhere/a.yml")), "a");
    }

    #[test]
    fn huge_files_are_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("huge.yaml");
        let f = std::fs::File::create(&p).unwrap();
        f.set_len(MAX_FILE_BYTES + 1).unwrap();
        let d = load(&p, None).unwrap_err();
        assert!(d[0].message.contains("above the"), "{}", d[0]);
    }
}
