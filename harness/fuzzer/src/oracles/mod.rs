//! The oracles: what every backend's run of a generated program is compared against, and the
//! one seam through which the fuzzer drives an engine.
//!
//! [`Target`] is a backend as the fuzzer drives it (the reference interpreter, optionally with
//! a planted bug, or a driver's worker); [`observe`] runs a generated program's case on one
//! target and judges it with `conform-judge` against the expectations the fuzzer's own
//! [`model`] wrote (the semantics, from the specs, not from the reference): any disagreement
//! is a [`Divergence`]. The reference is judged like the drivers, which is what lets a planted
//! reference bug (the self-test) or a real one surface.

pub mod model;

use crate::ast::{Lang, Program};
use crate::emitters::case::{self, GlslProfile};
use conform_case::Case;
use conform_judge::judge;
use conform_judge::results::Status;
use conform_plan::RawResult;
#[cfg(feature = "self-test")]
use conform_reference::PlantedBug;
use conform_run::backend::{Executor, Job};
use conform_run::reference::ReferenceExecutor;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A backend as the fuzzer drives it: one executor (for a driver, one worker process).
pub struct Target {
    pub name: String,
    pub is_reference: bool,
    pub exec: Box<dyn Executor>,
}

impl Target {
    /// The reference interpreter as a target.
    pub fn reference() -> Target {
        Target {
            name: "reference".into(),
            is_reference: true,
            exec: Box::new(ReferenceTarget::default()),
        }
    }
}

/// The reference interpreter, optionally (in `self-test` builds) with a deliberate bug: the
/// fuzzer's self-test.
#[derive(Default)]
pub struct ReferenceTarget {
    #[cfg(feature = "self-test")]
    pub planted_bug: Option<PlantedBug>,
}

impl Executor for ReferenceTarget {
    fn missing(&self, _job: &Job) -> Option<String> {
        None
    }

    fn run(&mut self, job: &Job) -> RawResult {
        #[cfg_attr(not(feature = "self-test"), allow(unused_mut))]
        let mut opts = conform_reference::Options::from_knobs(&job.reference);
        #[cfg(feature = "self-test")]
        {
            opts.planted_bug = self.planted_bug;
        }
        ReferenceExecutor::run_with(job.plan, &opts)
    }
}

/// One backend disagreeing with the model on one program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Divergence {
    pub backend: String,
    pub lang: Lang,
    /// The feature of the block whose memory differs (`atomic-iwrap-u32-shared`), or
    /// `program` when the whole program failed (build, crash, timeout).
    pub feature: String,
    /// `memory`, `build`, `crash`, `timeout`, `undefined` (the reference flagged undefined
    /// behaviour in a program built to have none), `unflagged` (the reference did not flag
    /// the undefined behaviour of a program built to have it) or `steps`.
    pub aspect: String,
    /// Index of the diverging block, when one is known.
    pub block: Option<usize>,
    pub status: Status,
    pub message: String,
    pub details: Vec<String>,
}

impl Divergence {
    /// What must stay the same while reducing: backend, language, feature and aspect.
    pub fn key(&self) -> String {
        format!(
            "{}-{}-{}-{}",
            self.backend,
            self.lang.name(),
            self.feature,
            self.aspect
        )
    }

    /// The name a run baseline gives this divergence in `conform fuzz --known FILE`
    /// (`llvmpipe,fuzz/glsl-exchange-shared-barrier-memory,fail`): the key without the
    /// backend, which the baseline line names.
    pub fn known_name(&self) -> String {
        format!("fuzz/{}-{}-{}", self.lang.name(), self.feature, self.aspect)
    }
}

/// Renders `p` as a case and loads it back through the ordinary loader.
pub fn load_case(
    p: &Program,
    name: &str,
    description: &str,
) -> Result<(Case, case::CaseText), String> {
    load_case_in(p, name, description, GlslProfile::Core430)
}

/// [`load_case`], a GLSL program written in `profile`.
pub fn load_case_in(
    p: &Program,
    name: &str,
    description: &str,
    profile: GlslProfile,
) -> Result<(Case, case::CaseText), String> {
    let text = case::render_in(p, name, description, profile);
    let case =
        conform_case::parse(Path::new(&format!("{name}.yaml")), &text.yaml, None).map_err(|d| {
            format!(
                "the fuzzer wrote a case the loader rejects (a bug in conform's fuzzer): {}",
                d.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })?;
    Ok((case, text))
}

/// The profile a GLSL program of `p` is written in for `target`: GLSL 4.30 where the target
/// runs it, else GLSL 3.30 with extensions where the target runs that (softpipe, a GL 3.3
/// driver with compute shaders).
pub fn glsl_profile_for(p: &Program, target: &Target) -> GlslProfile {
    let runs = |profile| {
        load_case_in(p, "fuzz-profile", "profile probe", profile)
            .is_ok_and(|(c, _)| target.exec.missing(&Job::of(&c)).is_none())
    };
    if p.lang == Lang::Glsl && !runs(GlslProfile::Core430) && runs(GlslProfile::Compat330) {
        GlslProfile::Compat330
    } else {
        GlslProfile::Core430
    }
}

/// Runs `case` (the rendering of `p`) on `target` and lists how it disagrees with the model.
/// `None` when the backend lacks what the program needs (it was not run). A GLSL program the
/// target cannot run as GLSL 4.30 runs as GLSL 3.30 with extensions where it can
/// ([`glsl_profile_for`]).
pub fn observe(p: &Program, case: &Case, target: &mut Target) -> Option<Vec<Divergence>> {
    if p.lang == Lang::Glsl && target.exec.missing(&Job::of(case)).is_some() {
        // The GLSL 3.30 form; where the target lacks that too, `observe_as` finds it so and
        // the program counts as not run.
        let (compat, _) = load_case_in(p, &case.name, "compat", GlslProfile::Compat330).ok()?;
        return observe_as(p, &compat, target);
    }
    observe_as(p, case, target)
}

/// [`observe`] with `case` as it is.
fn observe_as(p: &Program, case: &Case, target: &mut Target) -> Option<Vec<Divergence>> {
    let job = Job::of(case);
    // OpAtomicFAddEXT runs on Mesa although it is not advertised (docs/TRIAGE.md): a float
    // atomic program in SPIR-V runs there as `conform run --force` runs it, and says so.
    let forced = match target.exec.missing(&job) {
        None => None,
        Some(what) if what.starts_with(FORCED_SPIRV_EXTENSION) => Some(what),
        Some(_) => return None,
    };
    let raw = target.exec.run(&job);
    if let RawResult::Done(Err(conform_plan::Refusal::Unsupported(_))) = raw {
        return None;
    }
    let v = judge(case, &raw, target.is_reference, None);
    let whole = |aspect: &str| Divergence {
        backend: target.name.clone(),
        lang: p.lang,
        feature: "program".into(),
        aspect: aspect.into(),
        block: None,
        status: v.status,
        message: v.message.clone(),
        details: v.details.clone(),
    };
    // A program with undefined behaviour on purpose: the reference must raise that block's
    // flag (another flag, or none, is a divergence of the block: its detection is a target).
    if let (Some((k, u)), true) = (p.undefined_block(), target.is_reference) {
        let raised = v
            .details
            .iter()
            .any(|d| d.starts_with(&format!("flag {}:", u.kind.flag())));
        let memory_ok = v.status == Status::Flagged
            || (v.status == Status::Fail
                && v.differing.is_empty()
                && v.message.contains("flagged none"));
        if memory_ok && !raised {
            return Some(vec![Divergence {
                feature: p.blocks[k].feature(),
                aspect: "unflagged".into(),
                block: Some(k),
                message: format!(
                    "the reference did not flag {}: {}",
                    u.kind.flag(),
                    v.message
                ),
                ..whole("unflagged")
            }]);
        }
    }
    let mut out = match v.status {
        Status::Pass | Status::Skip | Status::Flagged => vec![],
        _ if v.allowed => vec![],
        Status::Crash => vec![whole("crash")],
        Status::Timeout => vec![whole("timeout")],
        Status::Invalid => vec![whole("build")],
        Status::Fail if !v.differing.is_empty() => v
            .differing
            .keys()
            .filter_map(|name| name.strip_prefix('b')?.parse::<usize>().ok())
            .filter(|&k| k < p.blocks.len())
            .map(|k| Divergence {
                feature: p.blocks[k].feature(),
                aspect: "memory".into(),
                block: Some(k),
                ..whole("memory")
            })
            .collect(),
        Status::Fail if v.message.starts_with("the program failed to") => vec![whole("build")],
        Status::Fail if v.message.contains("undefined behaviour") => vec![whole("undefined")],
        Status::Fail => vec![whole("steps")],
    };
    if let Some(what) = forced {
        for d in &mut out {
            d.message.push_str(&format!(
                " (run with --force although the driver lacks {what})"
            ));
        }
    }
    Some(out)
}

/// The SPIR-V extension the fuzzer runs on drivers that do not advertise it (`--force`).
pub const FORCED_SPIRV_EXTENSION: &str = "SPV_EXT_shader_atomic_float_add";

/// The bytes a campaign feeds the generator for iteration `i` of seed `seed`.
pub fn input_bytes(seed: u64, i: u64) -> Vec<u8> {
    let mut rng =
        conform_case::values::SplitMix64::new(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (0..INPUT_WORDS)
        .flat_map(|_| rng.next_u64().to_le_bytes())
        .collect()
}

/// Length of a generated input in 64-bit words (more than any program consumes).
const INPUT_WORDS: usize = 512;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast;
    use crate::generators as gen;
    use arbitrary::Unstructured;

    fn reference() -> Target {
        Target {
            name: "reference".into(),
            is_reference: true,
            exec: Box::new(ReferenceTarget::default()),
        }
    }

    /// The model, both emitters, the case writer and the reference agree on generated
    /// programs: any divergence here is a bug in one of them.
    #[test]
    fn generated_programs_pass_on_the_reference() {
        let mut target = reference();
        // SPIR-V programs with each extended multiply: the high halves of products are
        // OpUMulExtended/OpSMulExtended there, not replaced.
        let mut wide = [0; 2];
        let mut vectors = 0;
        for i in 0..120u64 {
            for lang in Lang::ALL {
                let bytes = input_bytes(7, i);
                let p = gen::program(&mut Unstructured::new(&bytes), lang).unwrap();
                let (case, text) = load_case(&p, "fuzz-test", "a generated program").unwrap();
                let d = observe(&p, &case, &mut target).expect("the reference runs everything");
                assert!(d.is_empty(), "iteration {i}: {d:#?}\n{}", text.yaml);
                vectors += usize::from(p.blocks.iter().any(|b| matches!(b, ast::Block::Vector(_))));
                for (n, op) in wide.iter_mut().zip(["OpUMulExtended", "OpSMulExtended"]) {
                    *n += usize::from(lang == Lang::Spirv && text.yaml.contains(op));
                }
            }
        }
        assert!(wide.iter().all(|&n| n > 0), "{wide:?}");
        assert!(vectors > 0);
    }

    /// Issue 29: every operator of the integer-families statement (`gen::INT_FAMILIES`, and
    /// the 64-bit forms of its comparisons) is generated in every language that has it, and
    /// every program with one passes on the reference: the model, the three emitters and the
    /// reference's three front ends agree on them.
    #[test]
    fn every_integer_family_operator_is_generated_and_passes_on_the_reference() {
        let mut target = reference();
        let mut seen = std::collections::HashSet::new();
        let names: Vec<&str> = gen::INT_FAMILIES
            .iter()
            .flat_map(|(_, ops)| ops.iter().copied())
            .collect();
        for i in 0..200u64 {
            for lang in Lang::ALL {
                let bytes = input_bytes(13, i);
                let p = gen::program(&mut Unstructured::new(&bytes), lang).unwrap();
                let mut ops = Vec::new();
                for b in &p.blocks {
                    if let ast::Block::Compute(c) = b {
                        c.stmts.iter().for_each(|s| s.ops(&mut ops));
                    }
                }
                let wide_cmp = |o: &str| {
                    ["widele", "widegt", "widege"]
                        .iter()
                        .any(|w| o.starts_with(w))
                };
                let new: Vec<&str> = ops
                    .into_iter()
                    .filter(|o| names.contains(o) || wide_cmp(o))
                    .collect();
                if new.is_empty() {
                    continue;
                }
                let (case, text) = load_case(&p, "fuzz-test", "a generated program").unwrap();
                let d = observe(&p, &case, &mut target).expect("the reference runs everything");
                assert!(d.is_empty(), "iteration {i}: {d:#?}\n{}", text.yaml);
                for o in new {
                    seen.insert((lang, if wide_cmp(o) { "widecmp" } else { o }));
                }
            }
        }
        for lang in Lang::ALL {
            for op in names.iter().copied().chain(["widecmp"]) {
                let has = lang == Lang::Spirv || !["srem", "smod"].contains(&op);
                assert_eq!(
                    seen.contains(&(lang, op)),
                    has,
                    "{op} in {lang:?} ({} seen)",
                    seen.len()
                );
            }
        }
    }

    /// Issue 48: generated programs with subgroup blocks (every family: exchanges,
    /// arithmetic, ballots; both extensions) pass on the reference with its default sizes (32,
    /// and 16 as another outcome) and with subgroups of 4, 8 and 64 (the case's
    /// `reference.subgroup_size`): the model's alternative for each size is the reference's.
    #[test]
    fn generated_subgroup_programs_pass_on_the_reference_at_every_size() {
        let seen = subgroup_programs_pass_at_every_size(Lang::Glsl);
        assert!(seen.len() >= 4, "{seen:?}");
    }

    /// The same in SPIR-V (`OpGroupNonUniform*`, spelled by `features::subgroup::spirv`;
    /// GL_ARB_shader_ballot's blocks are GLSL's only): every family, and the programs' texts
    /// name their instructions.
    #[test]
    fn generated_spirv_subgroup_programs_pass_on_the_reference_at_every_size() {
        let seen = subgroup_programs_pass_at_every_size(Lang::Spirv);
        let families: std::collections::BTreeSet<_> = seen.iter().map(|s| s.0).collect();
        assert_eq!(families.len(), 3, "{seen:?}");
        assert!(seen.iter().all(|s| !s.1), "{seen:?}");
    }

    /// Runs the first 30 programs in `lang` from seed 0 with subgroup blocks at every size;
    /// the families and extensions (whether ARB) seen.
    fn subgroup_programs_pass_at_every_size(
        lang: Lang,
    ) -> std::collections::BTreeSet<(&'static str, bool)> {
        let mut target = reference();
        let mut seen = std::collections::BTreeSet::new();
        let mut programs = 0;
        for i in 0..400u64 {
            let bytes = input_bytes(0, i);
            let p = gen::program(&mut Unstructured::new(&bytes), lang).unwrap();
            let blocks: Vec<_> = p.subgroup_blocks().cloned().collect();
            if blocks.is_empty() {
                continue;
            }
            programs += 1;
            let (case, text) = load_case(&p, "fuzz-test", "a generated program").unwrap();
            if lang == Lang::Spirv {
                assert!(
                    text.yaml.contains("OpGroupNonUniform"),
                    "iteration {i}:\n{}",
                    text.yaml
                );
            }
            for size in [None, Some(4), Some(8), Some(64)] {
                let mut c = case.clone();
                c.reference.subgroup_size = size;
                let d = observe(&p, &c, &mut target).expect("the reference runs everything");
                assert!(
                    d.is_empty(),
                    "iteration {i}, size {size:?}: {d:#?}\n{}",
                    text.yaml
                );
            }
            for b in blocks {
                seen.insert((b.op.family(), b.ext == ast::subgroup::SgExt::Arb));
            }
            if programs >= 30 {
                break;
            }
        }
        assert!(programs >= 30, "{programs} programs with subgroup blocks");
        seen
    }

    /// Written as GLSL 3.30 with extensions (for softpipe), generated GLSL programs say the
    /// same: the reference, which checks versions and extensions as Mesa does, builds each
    /// and agrees with the model.
    #[test]
    fn generated_glsl_programs_pass_as_glsl_330_with_extensions() {
        let mut target = reference();
        for i in 0..80u64 {
            let bytes = input_bytes(11, i);
            let p = gen::program(&mut Unstructured::new(&bytes), Lang::Glsl).unwrap();
            let (case, text) =
                load_case_in(&p, "fuzz-test", "compat", GlslProfile::Compat330).unwrap();
            assert!(text.yaml.contains("#version 330"), "{}", text.yaml);
            assert!(text.yaml.contains("gl: \"3.3\""), "{}", text.yaml);
            let d = observe_as(&p, &case, &mut target).expect("the reference runs everything");
            assert!(d.is_empty(), "iteration {i}: {d:#?}\n{}", text.yaml);
        }
    }
}
