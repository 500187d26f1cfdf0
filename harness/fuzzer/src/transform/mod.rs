//! `conform fuzz --mode transform CASES...`: metamorphic testing of existing cases
//! (GraphicsFuzz's idea, on GL compute). A case's program is rewritten by transformations that
//! provably keep its results ([`glsl`]: dead code behind a value the compiler cannot know,
//! literals made opaque, a loop of one iteration around a statement, a statement outlined into
//! a function), and the transformed case runs on every backend against the original case's own
//! expectations: no model is needed, the case is the oracle. A backend that passes the
//! original and fails a transformation of it has a bug the transformation exposed (typically
//! in an optimisation: constant folding, dead-code elimination, loop or call handling). The
//! divergence is reduced by undoing transformations while it stays, and written as a case.
//!
//! Every transformed program is first run on the reference: one its front end rejects is a
//! bug of the transformer (counted and listed, never reported as a driver's). GLSL programs
//! ([`glsl`]), SPIR-V assembly modules ([`spirv`]) and NV assembly programs ([`nvasm`]), the
//! last two at the instruction level (docs/FUZZING.md).

pub mod glsl;
pub mod nvasm;
pub mod spirv;

use crate::Target;
use conform_case::{Case, Check};
use conform_judge::judge;
use conform_judge::results::Status;
use conform_plan::{BufferKind, Language, Stage};
use conform_run::backend::{BackendFactory, Job};
use serde::Serialize;
use serde_yaml_ng::Value;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The transformations, each keeping the program's results (how each language spells them:
/// [`glsl`], [`spirv`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Dead code behind a condition on an opaque value: GLSL, a copy of a statement after it
    /// behind `if (zero != 0u)`; SPIR-V, a block split by a selection on `zero != 0` whose
    /// true side repeats the instructions before it; NV assembly, copies of the instructions
    /// before a point writing a fresh temporary, behind `IF NE1.x` on an opaque zero.
    DeadCode,
    /// A literal made opaque: GLSL `(5 + int(conform_zero))`, `(1.5 * conform_onef)`, ...;
    /// SPIR-V, a use of an `OpConstant` replaced by `OpIAdd c zero` or `OpFMul c onef`: exact
    /// identities the compiler cannot fold; NV assembly, a literal operand replaced by a
    /// temporary computed as `ADD.T t.x, zero, 5` or `MUL.F t.x, onef, 1.5`.
    OpaqueLiteral,
    /// A statement (GLSL) or a straight run of instructions (SPIR-V, NV assembly's
    /// `REP.S one`) inside a loop of one iteration whose bound is the opaque `one`.
    OneIterationLoop,
    /// A statement that uses only global names moved into a function called in its place
    /// (GLSL).
    Outline,
    /// Two adjacent instructions without memory effects and without a dependence swapped
    /// (SPIR-V, NV assembly).
    Swap,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::DeadCode,
        Kind::OpaqueLiteral,
        Kind::OneIterationLoop,
        Kind::Outline,
        Kind::Swap,
    ];
    /// GLSL's, in the order steps are drawn from (kept so seeds replay).
    pub const GLSL: [Kind; 4] = [
        Kind::DeadCode,
        Kind::OpaqueLiteral,
        Kind::OneIterationLoop,
        Kind::Outline,
    ];
    pub const SPIRV: [Kind; 4] = [
        Kind::DeadCode,
        Kind::OpaqueLiteral,
        Kind::OneIterationLoop,
        Kind::Swap,
    ];
    /// NV assembly's ([`nvasm`]).
    pub const NVASM: [Kind; 4] = Kind::SPIRV;

    pub fn name(self) -> &'static str {
        match self {
            Kind::DeadCode => "dead-code",
            Kind::OpaqueLiteral => "opaque-literal",
            Kind::OneIterationLoop => "one-iteration-loop",
            Kind::Outline => "outline",
            Kind::Swap => "swap",
        }
    }

    /// The kinds that apply to programs of `language`.
    pub fn of(language: Language) -> &'static [Kind] {
        match language {
            Language::Glsl => &Kind::GLSL,
            Language::Nvasm => &Kind::NVASM,
            _ => &Kind::SPIRV,
        }
    }
}

/// What `conform fuzz --mode` selects: a generated campaign ([`crate::generators::Mode`]) or the
/// transformation of existing cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuzzMode {
    Generate(crate::generators::Mode),
    Transform,
}

impl std::str::FromStr for FuzzMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "transform" => Ok(FuzzMode::Transform),
            other => other.parse().map(FuzzMode::Generate),
        }
    }
}

/// A transform campaign's settings.
pub struct Config {
    pub seed: u64,
    pub time: Duration,
    pub iterations: Option<u64>,
    /// Where reduced cases and summary.md go.
    pub out: PathBuf,
    /// Transformations per program, at most.
    pub max_transforms: usize,
    /// Where the reference runs: `conform fuzz` gives worker processes, as `conform run`
    /// does, since the cases transformed are anyone's (one that exhausts the reference's
    /// memory or hangs it costs that case, not the campaign). In process for a planted bug
    /// (the self-test) and unit tests.
    pub reference: conform_run::reference::ReferenceBackend,
    #[cfg(feature = "self-test")]
    pub planted_bug: Option<conform_reference::PlantedBug>,
}

/// A case the transformations apply to: its YAML document (to write transformed cases from),
/// and its program with the opaque block declared.
#[derive(Clone)]
pub struct Subject {
    pub case: Case,
    document: Value,
    /// The program text with the opaque values declared (no transformation yet).
    base: String,
    opaque: Opaque,
}

impl Subject {
    /// The language of the case's program.
    pub fn language(&self) -> Language {
        self.case
            .plan
            .programs
            .first()
            .map_or(Language::Glsl, |p| p.language)
    }
}

/// Why `case` cannot be transformed, or it as a [`Subject`]. `yaml` is its file's text.
pub fn subject(case: &Case, yaml: &str) -> Result<Subject, String> {
    if case.fails.is_some() {
        return Err("expects a build failure".into());
    }
    if case.undefined.is_some() {
        return Err("is about undefined behaviour".into());
    }
    if case
        .expect
        .iter()
        .any(|e| matches!(e.check, Check::Reference))
    {
        return Err("takes its expectations from the reference".into());
    }
    if case
        .plan
        .steps
        .iter()
        .any(|s| matches!(s, conform_plan::Step::Api(_)))
    {
        return Err("has API steps (they test GL state, which the added buffer changes)".into());
    }
    let [p] = case.plan.programs.as_slice() else {
        return Err("has more than one program".into());
    };
    if p.stage != Stage::Compute {
        return Err("is not a compute shader".into());
    }
    if !matches!(
        p.language,
        Language::Glsl | Language::SpirvAsm | Language::Nvasm
    ) {
        return Err(format!(
            "is {} (transformations of SPIR-V binaries are not written)",
            p.language.name()
        ));
    }
    let document: Value =
        serde_yaml_ng::from_str(yaml).map_err(|e| format!("cannot be read again: {e}"))?;
    if document
        .get("program")
        .and_then(|p| p.get("source"))
        .and_then(Value::as_str)
        != Some(p.text.as_str())
    {
        return Err("does not give its program as `program: {source: ...}`".into());
    }
    if p.language == Language::Nvasm {
        let used: Vec<u32> = regex::Regex::new(r"program\.storage\s*\[\s*(\d+)")
            .expect("a valid pattern")
            .captures_iter(&p.text)
            .filter_map(|c| c[1].parse().ok())
            .collect();
        let blocks = regex::Regex::new(r"(?im)^\s*STORAGE\b")
            .expect("a valid pattern")
            .find_iter(&p.text)
            .count() as u32;
        let binding = free_binding(case, &used, blocks, 8)?;
        let base = nvasm::prepare(&p.text, binding)?;
        return Ok(Subject {
            case: case.clone(),
            document,
            base,
            opaque: Opaque::Buffer(binding),
        });
    }
    if p.language == Language::SpirvAsm {
        let used: Vec<u32> = regex::Regex::new(r"\bBinding\s+(\d+)")
            .expect("a valid pattern")
            .captures_iter(&p.text)
            .filter_map(|c| c[1].parse().ok())
            .collect();
        let blocks =
            p.text.matches("BufferBlock").count() + p.text.matches(" StorageBuffer").count();
        let binding = free_binding(case, &used, blocks as u32, 8)?;
        let base = spirv::prepare(&p.text, binding)?;
        return Ok(Subject {
            case: case.clone(),
            document,
            base,
            opaque: Opaque::Buffer(binding),
        });
    }
    let body = glsl::main_body(&p.text).ok_or("has no main the transformer reads")?;
    glsl::statements(&p.text[body])
        .ok_or("has a main the transformer does not read (a directive inside)")?;
    // The block's syntax needs storage blocks and layout bindings: GLSL 4.30 (ESSL 3.10), or
    // the extensions that bring them to older versions.
    let version: u32 = regex::Regex::new(r"#version\s+(\d+)")
        .expect("a valid pattern")
        .captures(&p.text)
        .and_then(|c| c[1].parse().ok())
        .unwrap_or(110);
    let es = regex::Regex::new(r"#version\s+\d+\s+es\b")
        .expect("a valid pattern")
        .is_match(&p.text);
    let has = |ext: &str| p.text.contains(ext);
    let used: Vec<u32> = regex::Regex::new(r"\bbinding\s*=\s*(\d+)")
        .expect("a valid pattern")
        .captures_iter(&p.text)
        .filter_map(|c| c[1].parse().ok())
        .collect();
    let blocks = regex::Regex::new(r"\bbuffer\b")
        .expect("a valid pattern")
        .find_iter(&p.text)
        .count() as u32;
    // GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS is at least 8 (GL 4.3), 4 in OpenGL ES 3.1.
    let limit = if es { 4 } else { 8 };
    let ssbo_syntax = version >= 430
        || (es && version >= 310)
        || (has("GL_ARB_shader_storage_buffer_object")
            && (version >= 420 || has("GL_ARB_shading_language_420pack")));
    let at = glsl::declaration_point(&p.text);
    let (opaque, declaration) = if ssbo_syntax {
        let binding = free_binding(case, &used, blocks, limit)?;
        (Opaque::Buffer(binding), glsl::opaque_block(binding))
    } else if !es && version >= 130 {
        // Without storage blocks: default-block uniforms with initializers (GLSL 1.20), set
        // at link time, which a compiler must not fold (glUniform may change them).
        (Opaque::Uniforms, glsl::opaque_uniforms())
    } else {
        return Err(
            "has neither storage blocks nor uniform initializers of uint (GLSL 1.30)".into(),
        );
    };
    let base = format!("{}{declaration}\n{}", &p.text[..at], &p.text[at..]);
    Ok(Subject {
        case: case.clone(),
        document,
        base,
        opaque,
    })
}

/// The lowest storage binding (0 last: a block declared without a binding has binding 0)
/// that no binding the program names (`used`) and no buffer of the case uses, when the
/// program's `blocks` leave one of `limit`.
fn free_binding(case: &Case, used: &[u32], blocks: u32, limit: u32) -> Result<u32, String> {
    let used: Vec<u32> = used
        .iter()
        .copied()
        .chain(
            case.plan
                .buffers
                .iter()
                .filter(|b| b.kind == BufferKind::Storage)
                .map(|b| b.binding),
        )
        .collect();
    (1..limit)
        .chain([0])
        .find(|b| !used.contains(b))
        .filter(|_| blocks < limit)
        .ok_or_else(|| "uses every storage block binding the limits promise".into())
}

/// Where the opaque values come from.
#[derive(Clone, Copy, Debug)]
enum Opaque {
    /// The storage block at this binding, and a buffer the case gains.
    Buffer(u32),
    /// Default-block uniforms with initializers.
    Uniforms,
}

/// One transformation as applied: its kind and the seed that chose where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    pub kind: Kind,
    pub seed: u64,
}

/// The subject's program with `steps` applied in order (a step that finds no place is left
/// out), and the steps that applied.
pub fn transform(s: &Subject, steps: &[Step]) -> (String, Vec<Step>) {
    let mut text = s.base.clone();
    let mut applied = Vec::new();
    let language = s.language();
    for (n, st) in steps.iter().enumerate() {
        let t = match language {
            Language::SpirvAsm => spirv::apply(&text, st.kind, st.seed, n),
            Language::Nvasm => nvasm::apply(&text, st.kind, st.seed, n),
            _ => glsl::apply(&text, st.kind, st.seed, n),
        };
        if let Some(t) = t {
            text = t;
            applied.push(*st);
        }
    }
    (text, applied)
}

/// The transformed case: the original document with `text` as its program, the opaque
/// buffer added, its name and description saying what was done. Returns the case and its
/// YAML.
pub fn case_of(s: &Subject, text: &str, steps: &[Step]) -> Result<(Case, String), String> {
    let mut doc = s.document.clone();
    let name = format!("transform/{}", s.case.name);
    let kinds: Vec<&str> = steps.iter().map(|st| st.kind.name()).collect();
    let source = match s.opaque {
        Opaque::Buffer(b) => format!("the block at binding {b}"),
        Opaque::Uniforms => "uniforms with initializers".into(),
    };
    let description = format!(
        "{} Transformed by `conform fuzz --mode transform` ({}; opaque values from {source}), which keeps the results: the expectations are the original case's ({}).",
        s.case.description.trim(),
        kinds.join(", "),
        s.case.name
    );
    let Value::Mapping(m) = &mut doc else {
        return Err("not a mapping".into());
    };
    m.insert("name".into(), name.clone().into());
    m.insert("description".into(), description.into());
    if let Some(Value::Mapping(p)) = m.get_mut("program") {
        p.insert("source".into(), text.into());
    }
    if let Opaque::Buffer(binding) = s.opaque {
        let opaque: Value = serde_yaml_ng::from_str(&format!(
            "{{name: conform_opaque, binding: {binding}, type: u32, data: [{}]}}",
            glsl::OPAQUE_WORDS.map(|w| w.to_string()).join(", ")
        ))
        .map_err(|e| e.to_string())?;
        match m.get_mut("buffers") {
            Some(Value::Sequence(b)) => b.push(opaque),
            _ => {
                m.insert("buffers".into(), Value::Sequence(vec![opaque]));
            }
        }
    }
    let yaml = serde_yaml_ng::to_string(&doc).map_err(|e| e.to_string())?;
    let path = s.case.path.with_file_name(format!(
        "transformed-{}",
        s.case
            .path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or("case.yaml")
    ));
    let case = conform_case::parse(&path, &yaml, None).map_err(|d| {
        d.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    Ok((case, yaml))
}

/// A transformed program that diverged, reduced.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub signature: String,
    pub backend: String,
    pub case: String,
    pub steps: Vec<Step>,
    pub status: Status,
    pub message: String,
    pub hits: u64,
    pub first_iteration: u64,
}

/// What a transform campaign did.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub subjects: usize,
    /// Cases left out, by reason.
    pub ineligible: BTreeMap<String, u64>,
    pub programs: u64,
    pub seconds: f64,
    /// Transformed programs the reference's front end rejected (transformer bugs): how many,
    /// and the first few.
    pub invalid: u64,
    pub invalid_examples: Vec<String>,
    /// Per backend: originals it does not pass (their transformations are not judged on it).
    pub originals_not_passing: BTreeMap<String, u64>,
    pub findings: BTreeMap<String, Finding>,
}

const KEEP_EXAMPLES: usize = 10;

/// Whether a verdict is the kind of failure `want` is (the same status; for a failure, both
/// build failures or both not).
fn same_failure(v: &conform_judge::Verdict, want: &conform_judge::Verdict) -> bool {
    let build = |m: &str| m.starts_with("the program failed to");
    v.status == want.status && build(&v.message) == build(&want.message)
}

fn failing(s: Status) -> bool {
    matches!(s, Status::Fail | Status::Crash | Status::Timeout)
}

/// splitmix64: the campaign's randomness, a pure function of seed and iteration.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The steps of iteration `i`: 1 to `max` transformations of the `kinds` (those of the
/// subject's language, [`Kind::of`]).
pub fn steps_of(seed: u64, i: u64, max: usize, kinds: &[Kind]) -> Vec<Step> {
    let kinds = if kinds.is_empty() {
        &Kind::ALL[..]
    } else {
        kinds
    };
    let mut r = mix(seed ^ mix(i));
    let n = 1 + (r % max.max(1) as u64) as usize;
    (0..n)
        .map(|_| {
            r = mix(r);
            let kind = kinds[(r % kinds.len() as u64) as usize];
            r = mix(r);
            Step { kind, seed: r }
        })
        .collect()
}

/// Runs a transform campaign over `subjects` on the reference and `drivers`.
pub fn run(
    cfg: &Config,
    subjects: &[Subject],
    drivers: &[Box<dyn BackendFactory>],
    ineligible: BTreeMap<String, u64>,
) -> Result<Report, String> {
    if subjects.is_empty() {
        return Err("no case can be transformed (see the reasons above)".into());
    }
    if cfg.out.join("results.jsonl").exists() {
        return Err(format!(
            "--out {} holds the results of a conform run: choose another --out",
            cfg.out.display()
        ));
    }
    std::fs::create_dir_all(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    #[cfg(feature = "self-test")]
    let planted = cfg.planted_bug.is_some();
    #[cfg(not(feature = "self-test"))]
    let planted = false;
    let reference: Box<dyn conform_run::backend::Executor> = match &cfg.reference {
        conform_run::reference::ReferenceBackend::Workers { .. } if !planted => cfg
            .reference
            .make()
            .map_err(|e| format!("cannot start the reference: {e}"))?,
        _ => Box::new(crate::ReferenceTarget {
            #[cfg(feature = "self-test")]
            planted_bug: cfg.planted_bug,
        }),
    };
    let mut targets = vec![Target {
        name: "reference".into(),
        is_reference: true,
        exec: reference,
    }];
    for d in drivers {
        match d.make() {
            Ok(exec) => targets.push(Target {
                name: d.name(),
                is_reference: false,
                exec,
            }),
            Err(why) => eprintln!("{}: unavailable ({why})", d.name()),
        }
    }
    let mut report = Report {
        subjects: subjects.len(),
        ineligible,
        ..Report::default()
    };
    // Which backends pass each original: only those judge its transformations.
    let mut passes: Vec<Vec<bool>> = Vec::new();
    for s in subjects {
        let mut row = Vec::new();
        for t in targets.iter_mut() {
            let job = Job::of(&s.case);
            let ok = t.exec.missing(&job).is_none()
                && judge(&s.case, &t.exec.run(&job), t.is_reference, None).status == Status::Pass;
            if !ok {
                *report
                    .originals_not_passing
                    .entry(t.name.clone())
                    .or_default() += 1;
            }
            row.push(ok);
        }
        passes.push(row);
    }
    let started = Instant::now();
    let mut i = 0u64;
    while started.elapsed() < cfg.time && cfg.iterations.is_none_or(|n| i < n) {
        let k = (mix(cfg.seed.wrapping_add(i)) % subjects.len() as u64) as usize;
        let s = &subjects[k];
        let kinds = Kind::of(s.language());
        let (text, steps) = transform(s, &steps_of(cfg.seed, i, cfg.max_transforms, kinds));
        i += 1;
        if steps.is_empty() {
            continue;
        }
        let (case, _) = match case_of(s, &text, &steps) {
            Ok(c) => c,
            Err(e) => {
                note_invalid(&mut report, &s.case.name, &steps, &e);
                continue;
            }
        };
        report.programs += 1;
        for (ti, t) in targets.iter_mut().enumerate() {
            if !passes[k][ti] {
                continue;
            }
            let v = judge(&case, &t.exec.run(&Job::of(&case)), t.is_reference, None);
            if t.is_reference && v.message.starts_with("the program failed to") {
                // The reference's front end rejects it: a transformer bug, not a finding.
                note_invalid(&mut report, &s.case.name, &steps, &v.message);
                break;
            }
            if !failing(v.status) {
                continue;
            }
            let reduced = reduce(s, &steps, t, &v);
            let kinds: std::collections::BTreeSet<&str> =
                reduced.iter().map(|st| st.kind.name()).collect();
            let signature = format!(
                "{}-{}-{}",
                t.name.replace(['@', '/'], "-"),
                s.case.name.replace('/', "-"),
                kinds.into_iter().collect::<Vec<_>>().join("-")
            );
            if let Some(f) = report.findings.get_mut(&signature) {
                f.hits += 1;
                continue;
            }
            let (rtext, rsteps) = transform(s, &reduced);
            if let Ok((_, yaml)) = case_of(s, &rtext, &rsteps) {
                let dir = cfg.out.join(&signature);
                std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                std::fs::write(dir.join("case.yaml"), yaml)
                    .map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            eprintln!("transform: {signature}: {}", v.message);
            report.findings.insert(
                signature.clone(),
                Finding {
                    signature,
                    backend: t.name.clone(),
                    case: s.case.name.clone(),
                    steps: rsteps,
                    status: v.status,
                    message: v.message.clone(),
                    hits: 1,
                    first_iteration: i - 1,
                },
            );
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    std::fs::write(cfg.out.join("summary.md"), render(&report))
        .map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    Ok(report)
}

fn note_invalid(report: &mut Report, case: &str, steps: &[Step], why: &str) {
    report.invalid += 1;
    if report.invalid_examples.len() < KEEP_EXAMPLES {
        let kinds: Vec<&str> = steps.iter().map(|s| s.kind.name()).collect();
        report.invalid_examples.push(format!(
            "{case} ({}): {}",
            kinds.join(", "),
            why.lines().next().unwrap_or("")
        ));
    }
}

/// Undoes transformations one at a time, last first, keeping each undo after which `t`
/// still fails the same way.
fn reduce(
    s: &Subject,
    steps: &[Step],
    t: &mut Target,
    failure: &conform_judge::Verdict,
) -> Vec<Step> {
    let mut kept = steps.to_vec();
    let mut k = kept.len();
    while k > 0 && kept.len() > 1 {
        k -= 1;
        let mut fewer = kept.clone();
        fewer.remove(k);
        let (text, applied) = transform(s, &fewer);
        if applied.is_empty() {
            continue;
        }
        let Ok((case, _)) = case_of(s, &text, &applied) else {
            continue;
        };
        let v = judge(&case, &t.exec.run(&Job::of(&case)), t.is_reference, None);
        if same_failure(&v, failure) {
            kept = applied;
            k = k.min(kept.len());
        }
    }
    kept
}

/// summary.md: what ran, what was found, what the transformer got wrong.
pub fn render(r: &Report) -> String {
    let mut o = String::from("# Transform campaign\n\n");
    let _ = writeln!(
        o,
        "{} programs from {} cases in {:.0}s; {} findings; {} transformed programs the reference's front end rejected (transformer bugs).\n",
        r.programs,
        r.subjects,
        r.seconds,
        r.findings.len(),
        r.invalid
    );
    if !r.findings.is_empty() {
        o.push_str("## Findings\n\n| finding | backend | case | transformations | hits | first at | message |\n|---|---|---|---|---|---|---|\n");
        for f in r.findings.values() {
            let kinds: Vec<&str> = f.steps.iter().map(|s| s.kind.name()).collect();
            let _ = writeln!(
                o,
                "| [`{0}`]({0}/case.yaml) | {1} | `{2}` | {3} | {4} | {5} | {6} |",
                f.signature,
                f.backend,
                f.case,
                kinds.join(", "),
                f.hits,
                f.first_iteration,
                conform_io::escape::md_text(f.message.lines().next().unwrap_or(""))
            );
        }
        o.push('\n');
    }
    if !r.originals_not_passing.is_empty() {
        o.push_str("## Originals not passing (their transformations not judged there)\n\n");
        for (b, n) in &r.originals_not_passing {
            let _ = writeln!(o, "- {b}: {n}");
        }
        o.push('\n');
    }
    if !r.ineligible.is_empty() {
        o.push_str("## Cases left out\n\n");
        for (why, n) in &r.ineligible {
            let _ = writeln!(o, "- {n}: {why}");
        }
        o.push('\n');
    }
    if !r.invalid_examples.is_empty() {
        o.push_str("## Rejected transformations (transformer bugs)\n\n");
        for e in &r.invalid_examples {
            let _ = writeln!(o, "- {}", conform_io::escape::md_text(e));
        }
    }
    o
}

/// Reads each case's file and makes the subjects; the others are counted by reason.
pub fn subjects(cases: &[Case]) -> (Vec<Subject>, BTreeMap<String, u64>) {
    let mut out = Vec::new();
    let mut why: BTreeMap<String, u64> = BTreeMap::new();
    for c in cases {
        let r = conform_case::read_text(Path::new(&c.path))
            .map_err(|e| format!("cannot be read again: {e}"))
            .and_then(|yaml| subject(c, &yaml));
        match r {
            Ok(s) => out.push(s),
            Err(e) => *why.entry(e).or_default() += 1,
        }
    }
    (out, why)
}

#[cfg(test)]
mod tests;
