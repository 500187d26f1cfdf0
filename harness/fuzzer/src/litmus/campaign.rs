//! Running litmus tests on backends: each test runs `iterations` cases of `dispatches` dispatches
//! each (a fresh shuffled role table per dispatch), on the reference and on every driver; the
//! outcome tuples of every instance are counted into a histogram per test and backend, and a
//! run with a forbidden outcome is a divergence: its case is written with the dispatch that
//! showed it, then reduced (fewer instances, no stress, one dispatch) while a forbidden
//! outcome still shows within a few tries.

use super::case;
use super::layout::{Layout, Params};
use super::model::{outcomes, Outcome, Outcomes};
use super::shape::Test;
use crate::Target;
use conform_case::values::SplitMix64;
use conform_case::Case;
use conform_judge::judge;
use conform_judge::results::Status;
use conform_plan::RawResult;
use conform_run::backend::Job;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one test showed on one backend.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    /// Instances per outcome tuple.
    pub counts: BTreeMap<Outcome, u64>,
    /// Runs (cases) and how they ended other than with memory: not run (missing features),
    /// or a build failure, crash or timeout (its message).
    pub runs: u64,
    pub not_run: Option<String>,
    pub errors: Vec<String>,
    /// The first divergence: where its case was written.
    pub divergence: Option<PathBuf>,
}

impl Histogram {
    pub fn instances(&self) -> u64 {
        self.counts.values().sum()
    }
}

/// How a test is run.
#[derive(Clone, Debug)]
pub struct Config {
    pub params: Params,
    /// Cases per test and dispatches per case.
    pub iterations: u64,
    pub dispatches: u32,
    pub seed: u64,
    /// Where divergences' cases go (`<out>/<backend>-<test>/case.yaml`).
    pub out: PathBuf,
    /// Tries per reduction step (weak behaviours are rare: a step is kept when one of this
    /// many runs still shows a forbidden outcome).
    pub reduce_tries: u32,
}

/// The histograms of one test, per backend name.
pub type Results = BTreeMap<String, Histogram>;

/// Runs `test` on every target.
pub fn run_test(test: &Test, cfg: &Config, targets: &mut [Target]) -> Result<Results, String> {
    let layout = Layout::new(*test, cfg.params)?;
    let sets = outcomes(test);
    let mut results: Results = BTreeMap::new();
    let name = format!("litmus/{}", test.name());
    for it in 0..cfg.iterations {
        let all_tables = role_tables(&layout, cfg, it);
        for tables in all_tables.chunks(case::dispatches_per_case(&layout)) {
            let yaml = case::render(&layout, &sets, tables, Some(&name));
            let case = load(&name, &yaml)?;
            for target in targets.iter_mut() {
                let h = results.entry(target.name.clone()).or_default();
                if h.not_run.is_some() {
                    continue;
                }
                let run = match run_once(&case, target) {
                    Ok(run) => run,
                    Err(missing) => {
                        h.not_run = Some(missing);
                        continue;
                    }
                };
                h.runs += 1;
                match run {
                    Run::Error(e) => h.errors.push(e),
                    Run::Done {
                        snapshots,
                        forbidden,
                    } => {
                        count(&mut h.counts, &snapshots, test.shape.width());
                        if let (Some(k), None) = (forbidden, &h.divergence) {
                            let dir = cfg.out.join(format!("{}-{}", target.name, test.name()));
                            let reduced = reduce(&layout, &sets, &tables[k], cfg, target);
                            write_divergence(&dir, &yaml, &reduced)?;
                            h.divergence = Some(dir);
                        }
                    }
                }
            }
        }
    }
    Ok(results)
}

/// The role tables of iteration `it`: the same for every fence of a shape and size.
pub fn role_tables(layout: &Layout, cfg: &Config, it: u64) -> Vec<Vec<u32>> {
    let mut rng = SplitMix64::new(cfg.seed ^ it.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (0..cfg.dispatches)
        .map(|_| layout.roles(&mut rng))
        .collect()
}

fn load(name: &str, yaml: &str) -> Result<Case, String> {
    conform_case::parse(Path::new(&format!("{name}.yaml")), yaml, None).map_err(|d| {
        format!(
            "conform's litmus writer made a case the loader rejects (a bug in conform): {}",
            d.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        )
    })
}

enum Run {
    Error(String),
    /// The `out` buffer after each dispatch, and the first dispatch with a forbidden outcome.
    Done {
        snapshots: Vec<Vec<u8>>,
        forbidden: Option<usize>,
    },
}

/// Runs `case` on `target`; `Err` names what the backend lacks to run it.
fn run_once(case: &Case, target: &mut Target) -> Result<Run, String> {
    let job = Job::of(case);
    if let Some(missing) = target.exec.missing(&job) {
        return Err(format!("lacks {missing}"));
    }
    let raw = target.exec.run(&job);
    if let RawResult::Done(Err(conform_plan::Refusal::Unsupported(why))) = &raw {
        return Err(format!("unsupported: {why}"));
    }
    let v = judge(case, &raw, target.is_reference, None);
    let outcome = match &raw {
        RawResult::Done(Ok(o)) => o,
        _ => return Ok(Run::Error(format!("{:?}: {}", v.status, v.message))),
    };
    if !matches!(v.status, Status::Pass | Status::Fail) || outcome.snapshots.is_empty() {
        return Ok(Run::Error(format!("{:?}: {}", v.status, v.message)));
    }
    let snapshots: Vec<Vec<u8>> = outcome
        .snapshots
        .iter()
        .map(|s| s.first().cloned().unwrap_or_default())
        .collect();
    let forbidden = case.expect.iter().position(|x| {
        conform_judge::checks::check_expectation(
            case,
            x,
            conform_judge::checks::Memory::of(outcome),
            None,
        )
        .is_some()
    });
    if v.status == Status::Fail && forbidden.is_none() {
        return Ok(Run::Error(format!("failed: {}", v.message)));
    }
    Ok(Run::Done {
        snapshots,
        forbidden,
    })
}

fn count(counts: &mut BTreeMap<Outcome, u64>, snapshots: &[Vec<u8>], width: usize) {
    for snap in snapshots {
        let words: Vec<u32> = snap
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        for t in words.chunks_exact(width) {
            *counts.entry(t.to_vec()).or_default() += 1;
        }
    }
}

/// The smallest case that still shows a forbidden outcome on `target` within `reduce_tries`
/// runs: one dispatch of the role table that showed it, then without stress, then with
/// fewer instances (halving). Returns the case text.
fn reduce(
    layout: &Layout,
    sets: &Outcomes,
    table: &[u32],
    cfg: &Config,
    target: &mut Target,
) -> String {
    let name = format!("litmus/{}", layout.test.name());
    let mut best = case::render(layout, sets, &[table.to_vec()], Some(&name));
    let mut params = layout.params;
    let mut rng = SplitMix64::new(cfg.seed ^ 0x5EED);
    let mut candidates = vec![];
    if params.stress > 0 {
        candidates.push(Params {
            stress: 0,
            ..params
        });
    }
    loop {
        let next = candidates.pop().or_else(|| {
            (params.instances > 1).then_some(Params {
                instances: params.instances / 2,
                ..params
            })
        });
        let Some(p) = next else { break };
        let Ok(l) = Layout::new(layout.test, p) else {
            break;
        };
        let shown = (0..cfg.reduce_tries).find_map(|_| {
            let yaml = case::render(&l, sets, &[l.roles(&mut rng)], Some(&name));
            let case = load(&name, &yaml).ok()?;
            match run_once(&case, target).ok()? {
                Run::Done {
                    forbidden: Some(_), ..
                } => Some(yaml),
                _ => None,
            }
        });
        match shown {
            Some(yaml) => {
                best = yaml;
                params = p;
            }
            None => break,
        }
    }
    best
}

fn write_divergence(dir: &Path, original: &str, reduced: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (file, text) in [("original.yaml", original), ("case.yaml", reduced)] {
        let path = dir.join(file);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The histograms as a Markdown table: per test and backend, each outcome with its count,
/// marked `weak` (not sequentially consistent) and `FORBIDDEN` (outside the allowed set).
pub fn render(results: &[(Test, Results)]) -> String {
    let mut s =
        String::from("| test | backend | instances | outcomes (count) |\n|---|---|---|---|\n");
    for (test, per) in results {
        let sets = outcomes(test);
        for (backend, h) in per {
            let shown = if let Some(why) = &h.not_run {
                format!("not run: {why}")
            } else {
                let mut parts: Vec<String> = h
                    .counts
                    .iter()
                    .map(|(o, n)| {
                        let mark = if !sets.allowed.contains(o) {
                            " FORBIDDEN"
                        } else if !sets.sc.contains(o) {
                            " weak"
                        } else {
                            ""
                        };
                        let vals: Vec<String> = o.iter().map(u32::to_string).collect();
                        format!("({}){mark} {n}", vals.join(","))
                    })
                    .collect();
                if !h.errors.is_empty() {
                    parts.push(format!("{} runs failed: {}", h.errors.len(), h.errors[0]));
                }
                parts.join("; ")
            };
            s.push_str(&format!(
                "| {} | {backend} | {} | {shown} |\n",
                test.name(),
                h.instances()
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::shape::{Fence, Lang, Scope, Shape};
    use crate::ReferenceTarget;
    use conform_run::backend::Executor;

    fn config(dir: &Path) -> Config {
        Config {
            params: Params {
                instances: 6,
                group_size: 16,
                stress: 2,
            },
            iterations: 1,
            dispatches: 2,
            seed: 3,
            out: dir.to_path_buf(),
            reduce_tries: 2,
        }
    }

    /// The three emitters, the case writer and the derived sets agree with the reference:
    /// every test runs (SPIR-V modules pass spirv-val on the way) and the reference's
    /// schedules land in the allowed sets. Every fence of every language and scope, and every
    /// shape in each language, without running all 180 combinations (seconds in debug).
    #[test]
    fn every_test_runs_on_the_reference_within_its_allowed_set() {
        let dir = std::env::temp_dir().join(format!("conform-litmus-ref-{}", std::process::id()));
        let cfg = config(&dir);
        let mut targets = [Target::reference()];
        let mut tests = Vec::new();
        for lang in Lang::ALL {
            for scope in Scope::ALL {
                for (k, fence) in Fence::of(lang, scope).into_iter().enumerate() {
                    let shape = Shape::ALL[(k + 3 * usize::from(scope == Scope::Device)) % 7];
                    tests.push(Test {
                        shape,
                        scope,
                        fence,
                        lang,
                    });
                }
            }
            for (k, shape) in Shape::ALL.into_iter().enumerate() {
                let scope = Scope::ALL[k % 2];
                let fence = Fence::of(lang, scope)[1];
                tests.push(Test {
                    shape,
                    scope,
                    fence,
                    lang,
                });
            }
        }
        for test in &tests {
            let r = run_test(test, &cfg, &mut targets).unwrap();
            let h = &r["reference"];
            assert!(
                h.errors.is_empty() && h.not_run.is_none(),
                "{}: {h:?}",
                test.name()
            );
            assert_eq!(h.divergence, None, "{}", test.name());
            assert_eq!(h.instances(), 12, "{}", test.name());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A reference that reports MP's weak outcome for instance 0 of every dispatch.
    struct PlantedWeakOutcome(ReferenceTarget);

    impl Executor for PlantedWeakOutcome {
        fn missing(&self, job: &Job) -> Option<String> {
            self.0.missing(job)
        }

        fn run(&mut self, job: &Job) -> RawResult {
            let mut raw = self.0.run(job);
            if let RawResult::Done(Ok(o)) = &mut raw {
                for snap in &mut o.snapshots {
                    snap[0][..8].copy_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
                }
                for s in &mut o.other_schedules {
                    for snap in &mut s.snapshots {
                        snap[0][..8].copy_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
                    }
                }
            }
            raw
        }
    }

    #[test]
    fn a_forbidden_outcome_is_a_divergence_with_a_reduced_case() {
        let dir = std::env::temp_dir().join(format!("conform-litmus-div-{}", std::process::id()));
        let cfg = config(&dir);
        let mut targets = [Target {
            name: "planted".into(),
            is_reference: false,
            exec: Box::new(PlantedWeakOutcome(ReferenceTarget::default())),
        }];
        let fenced = Test {
            shape: Shape::Mp,
            scope: Scope::Device,
            fence: Fence::Membar,
            lang: Lang::Nvasm,
        };
        let r = run_test(&fenced, &cfg, &mut targets).unwrap();
        let h = &r["planted"];
        assert_eq!(h.counts.get(&vec![1, 0, 1, 1]), Some(&2), "{h:?}");
        let case_dir = h
            .divergence
            .clone()
            .expect("MP's weak outcome is forbidden with MEMBAR");
        let text = std::fs::read_to_string(case_dir.join("case.yaml")).unwrap();
        let case = load("reduced", &text).unwrap();
        // Reduced to one dispatch of one instance without stress; it fails on the planted
        // backend and passes on the real reference.
        assert_eq!(case.expect.len(), 1);
        assert!(
            text.contains("1 instances per dispatch, 1 dispatches, 0 stress"),
            "{text}"
        );
        let planted = run_once(&case, &mut targets[0]);
        assert!(matches!(
            planted,
            Ok(Run::Done {
                forbidden: Some(0),
                ..
            })
        ));
        let real = run_once(&case, &mut Target::reference());
        assert!(matches!(
            real,
            Ok(Run::Done {
                forbidden: None,
                ..
            })
        ));
        // Without a fence the same outcome is allowed: a weak behaviour, no divergence.
        let unfenced = Test {
            fence: Fence::None,
            ..fenced
        };
        let r = run_test(&unfenced, &cfg, &mut targets).unwrap();
        assert_eq!(r["planted"].divergence, None);
        let table = render(&[(unfenced, r)]);
        assert!(table.contains("(1,0,1,1) weak 2"), "{table}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
