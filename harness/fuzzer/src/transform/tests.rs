//! The transformations keep results: every transformation of every eligible corpus case
//! passes on the reference, as the original does. With a bug planted in the reference where
//! only run-time values reach it (outside the generative grammar), a transform campaign over
//! the corpus finds it.

use super::*;
use crate::ReferenceTarget;
use conform_plan::Language;
use conform_run::backend::Executor;

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    let catalogue = conform_case::clauses::Catalogue::load(&dir.join("clauses.yaml")).ok();
    conform_case::discover(&[dir])
        .expect("corpus readable")
        .files
        .iter()
        .filter_map(|f| conform_case::load(f, catalogue.as_ref()).ok())
        .collect()
}

/// Runs every kind of `language` with `seeds` seeds on each subject of that language (and,
/// for `pairs`, two steps in a row) on the reference; returns how often each kind applied.
fn check_language(
    language: Language,
    min_subjects: usize,
    seeds: u64,
    pairs: bool,
) -> BTreeMap<&'static str, usize> {
    let (subjects, ineligible) = subjects(&corpus());
    let subjects: Vec<Subject> = subjects
        .into_iter()
        .filter(|s| s.language() == language)
        .collect();
    assert!(
        subjects.len() >= min_subjects,
        "{} subjects; left out: {ineligible:#?}",
        subjects.len()
    );
    let mut reference = ReferenceTarget::default();
    let mut applied: BTreeMap<&str, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut refused = 0;
    let kinds = Kind::of(language);
    for s in &subjects {
        let original = judge(&s.case, &reference.run(&Job::of(&s.case)), true, None);
        if original.status != Status::Pass {
            continue;
        }
        let mut tries: Vec<Vec<Step>> = Vec::new();
        for &kind in kinds {
            for seed in 0..seeds {
                tries.push(vec![Step { kind, seed }]);
                if pairs {
                    let other = kinds[(seed as usize) % kinds.len()];
                    tries.push(vec![
                        Step { kind, seed },
                        Step {
                            kind: other,
                            seed: seed * 7 + 1,
                        },
                    ]);
                }
            }
        }
        for want in tries {
            let kind = want[0].kind;
            let seed = want[0].seed;
            {
                let (text, steps) = transform(s, &want);
                if steps.is_empty() {
                    continue;
                }
                for st in &steps {
                    *applied.entry(st.kind.name()).or_default() += 1;
                }
                let (case, yaml) = match case_of(s, &text, &steps) {
                    Ok(c) => c,
                    Err(e) => {
                        problems.push(format!("{} {}: {e}", s.case.name, kind.name()));
                        continue;
                    }
                };
                let v = judge(&case, &reference.run(&Job::of(&case)), true, None);
                // What the reference does not model in the transformed form (a run-time index
                // where the original had a constant) is a refusal: it cannot judge, not wrong.
                if v.status == Status::Skip && v.message.starts_with("unsupported") {
                    refused += 1;
                    continue;
                }
                if v.status != Status::Pass {
                    problems.push(format!(
                        "{} {} seed {seed} ({} steps): {:?} {}\n{}",
                        s.case.name,
                        kind.name(),
                        steps.len(),
                        v.status,
                        v.message,
                        yaml
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        refused < 20,
        "{refused} transformed programs refused by the reference"
    );
    applied
}

#[test]
fn every_transformation_of_the_corpus_passes_on_the_reference() {
    let applied = check_language(Language::Glsl, 100, 3, false);
    assert_each_applied(&applied, &Kind::GLSL, 50);
}

/// Every kind of `kinds` was applied more than `more_than` times.
fn assert_each_applied(applied: &BTreeMap<&'static str, usize>, kinds: &[Kind], more_than: usize) {
    for kind in kinds {
        assert!(
            applied.get(kind.name()).copied().unwrap_or(0) > more_than,
            "{} applied only {applied:?}",
            kind.name()
        );
    }
}

/// The SPIR-V assembly cases, under many seeds of each instruction-level transformation and
/// of pairs of them: every transformed module is valid (spirv-val and the front end) and
/// passes as the original does.
#[test]
fn every_spirv_transformation_of_the_corpus_passes_on_the_reference() {
    let applied = check_language(Language::SpirvAsm, 25, 12, true);
    assert_each_applied(&applied, &Kind::SPIRV, 200);
}

/// The NV assembly cases (`!!NVcp5.0`), under many seeds of each instruction-level
/// transformation and of pairs of them: every transformed program loads on the reference
/// and passes as the original does.
#[test]
fn every_nvasm_transformation_of_the_corpus_passes_on_the_reference() {
    let applied = check_language(Language::Nvasm, 80, 12, true);
    assert_each_applied(&applied, &Kind::NVASM, 500);
}

#[test]
fn the_mode_parses_and_steps_are_a_function_of_seed_and_iteration() {
    assert_eq!("transform".parse(), Ok(FuzzMode::Transform));
    assert_eq!(
        "loop-caps".parse(),
        Ok(FuzzMode::Generate(crate::generators::Mode::LoopCaps))
    );
    assert_eq!(
        steps_of(7, 3, 4, &Kind::GLSL),
        steps_of(7, 3, 4, &Kind::GLSL)
    );
    assert!((0..100).all(|i| (1..=4).contains(&steps_of(7, i, 4, &Kind::GLSL).len())));
    assert_ne!(
        steps_of(7, 3, 4, &Kind::GLSL),
        steps_of(8, 3, 4, &Kind::GLSL)
    );
}

/// A transform campaign of `iterations` programs from `seed` over `subjects` on the reference
/// alone, in process (a planted bug needs it): its report, summary.md and output directory.
#[cfg(feature = "self-test")]
fn campaign_on_the_reference(
    subjects: &[Subject],
    seed: u64,
    iterations: u64,
    bug: Option<conform_reference::PlantedBug>,
) -> (Report, String, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let cfg = Config {
        seed,
        time: Duration::from_secs(120),
        iterations: Some(iterations),
        out: out.path().to_path_buf(),
        max_transforms: 3,
        reference: conform_run::reference::ReferenceBackend::InProcess,
        planted_bug: bug,
    };
    let r = run(&cfg, subjects, &[], BTreeMap::new()).unwrap();
    let summary = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
    (r, summary, out)
}

/// A pack of a run-time value that skips the clamp, planted in the reference: the generative
/// grammar has no pack function, and glsl/builtin-pack packs constants, which the front end
/// folds (without the bug), so the original passes; making its literals opaque reaches the
/// bug. Without the bug the same campaign finds nothing on the reference.
#[cfg(feature = "self-test")]
#[test]
fn a_transform_campaign_finds_a_bug_planted_outside_the_grammar() {
    let cases: Vec<Case> = corpus()
        .into_iter()
        .filter(|c| c.name.starts_with("glsl/builtin-"))
        .collect();
    let (subjects, ineligible) = subjects(&cases);
    assert!(
        subjects.iter().any(|s| s.case.name == "glsl/builtin-pack"),
        "{ineligible:?}"
    );
    let run_with = |bug| campaign_on_the_reference(&subjects, 1, 400, bug);
    let (clean, summary, _) = run_with(None);
    assert!(clean.findings.is_empty(), "{summary}");
    assert_eq!(clean.invalid, 0, "{summary}");
    let (planted, summary, out) = run_with(Some(conform_reference::PlantedBug::PackNormUnclamped));
    assert!(
        planted.originals_not_passing.is_empty(),
        "the originals fold their packs: {summary}"
    );
    let f = planted
        .findings
        .values()
        .find(|f| f.case == "glsl/builtin-pack")
        .unwrap_or_else(|| panic!("not found: {summary}"));
    assert_eq!(f.backend, "reference");
    assert!(
        f.steps.iter().all(|s| s.kind == Kind::OpaqueLiteral),
        "{f:?}"
    );
    assert!(out.path().join(&f.signature).join("case.yaml").exists());
}

/// Signed unpacking of a run-time word that zero-extends its fields, planted in the
/// reference: the grammar has no unpack, and arb_gl_spirv/glsl450-unpack-constant-operands
/// unpacks constant words, which the planted bug leaves alone (as compilers fold them), so
/// the original passes; an opaque-literal transformation of the word reaches the bug. Without
/// the bug the same campaign over the SPIR-V cases finds nothing on the reference.
#[cfg(feature = "self-test")]
#[test]
fn a_spirv_transform_campaign_finds_a_bug_planted_outside_the_grammar() {
    let cases: Vec<Case> = corpus()
        .into_iter()
        // glsl450-modf-frexp-pack-norm unpacks loaded words: it fails as written with the bug.
        .filter(|c| c.name.starts_with("arb_gl_spirv/glsl450-") && !c.name.ends_with("-pack-norm"))
        .collect();
    let (subjects, ineligible) = subjects(&cases);
    assert!(
        subjects
            .iter()
            .any(|s| s.case.name == "arb_gl_spirv/glsl450-unpack-constant-operands"),
        "{ineligible:?}"
    );
    let run_with = |bug| campaign_on_the_reference(&subjects, 3, 300, bug);
    let (clean, summary, _) = run_with(None);
    assert!(clean.findings.is_empty(), "{summary}");
    assert_eq!(clean.invalid, 0, "{summary}");
    let (planted, summary, out) = run_with(Some(
        conform_reference::PlantedBug::UnpackSnormRuntimeUnsigned,
    ));
    assert!(
        planted.originals_not_passing.is_empty(),
        "the originals unpack constants: {summary}"
    );
    let f = planted
        .findings
        .values()
        .find(|f| f.case == "arb_gl_spirv/glsl450-unpack-constant-operands")
        .unwrap_or_else(|| panic!("not found: {summary}"));
    assert_eq!(f.backend, "reference");
    assert!(
        f.steps.iter().all(|s| s.kind == Kind::OpaqueLiteral),
        "{f:?}"
    );
    assert!(out.path().join(&f.signature).join("case.yaml").exists());
}
