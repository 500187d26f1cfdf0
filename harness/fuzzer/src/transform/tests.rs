//! The transformations keep results: every transformation of every eligible corpus case
//! passes on the reference, as the original does. With a bug planted in the reference where
//! only run-time values reach it (outside the generative grammar), a transform campaign over
//! the corpus finds it.

use super::*;
use crate::ReferenceTarget;
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

#[test]
fn every_transformation_of_the_corpus_passes_on_the_reference() {
    let (subjects, ineligible) = subjects(&corpus());
    assert!(
        subjects.len() > 100,
        "{} subjects; left out: {ineligible:#?}",
        subjects.len()
    );
    let mut reference = ReferenceTarget::default();
    let mut applied: BTreeMap<&str, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut refused = 0;
    for s in &subjects {
        let original = judge(&s.case, &reference.run(&Job::of(&s.case)), true, None);
        if original.status != Status::Pass {
            continue;
        }
        for kind in Kind::ALL {
            for seed in 0..3u64 {
                let (text, steps) = transform(s, &[Step { kind, seed }]);
                if steps.is_empty() {
                    continue;
                }
                *applied.entry(kind.name()).or_default() += 1;
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
                        "{} {} seed {seed}: {:?} {}\n{}",
                        s.case.name,
                        kind.name(),
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
    for kind in Kind::ALL {
        assert!(
            applied.get(kind.name()).copied().unwrap_or(0) > 50,
            "{} applied only {applied:?}",
            kind.name()
        );
    }
}

#[test]
fn the_mode_parses_and_steps_are_a_function_of_seed_and_iteration() {
    assert_eq!("transform".parse(), Ok(FuzzMode::Transform));
    assert_eq!(
        "loop-caps".parse(),
        Ok(FuzzMode::Generate(crate::generators::Mode::LoopCaps))
    );
    assert_eq!(steps_of(7, 3, 4), steps_of(7, 3, 4));
    assert!((0..100).all(|i| (1..=4).contains(&steps_of(7, i, 4).len())));
    assert_ne!(steps_of(7, 3, 4), steps_of(8, 3, 4));
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
    let run_with = |bug| {
        let out = tempfile::tempdir().unwrap();
        let cfg = Config {
            seed: 1,
            time: Duration::from_secs(120),
            iterations: Some(400),
            out: out.path().to_path_buf(),
            max_transforms: 3,
            reference: conform_run::reference::ReferenceBackend::InProcess,
            planted_bug: bug,
        };
        let r = run(&cfg, &subjects, &[], BTreeMap::new()).unwrap();
        let summary = std::fs::read_to_string(out.path().join("summary.md")).unwrap();
        (r, summary, out)
    };
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
