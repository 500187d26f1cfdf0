//! What a backend is to the runner: an [`Executor`] (one per worker thread) turns a [`Job`]
//! (a plan and the knobs that shape its run, never the case's expectations) into a
//! [`RawResult`]; a [`BackendFactory`] makes executors for one backend.

use conform_case::model::Requires;
use conform_case::Case;
use conform_judge::identity::BackendIdentity;
use conform_plan::{ExecPlan, RawResult};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What a backend gets to run one case: the plan and the knobs that shape the run. The case's
/// expectations are not part of it, so no backend can look at them.
#[derive(Clone, Debug)]
pub struct Job<'a> {
    /// The plan, with the run's `--timeout` applied to `timeout_ms`.
    pub plan: &'a ExecPlan,
    /// What the case requires of a driver ([`Executor::missing`] checks it).
    pub requires: &'a Requires,
    /// The reference interpreter's knobs for the case (schedules, step budget, ...), as the
    /// case chose them: backend-neutral, the reference turns them into its options.
    pub reference: conform_plan::ReferenceKnobs,
}

impl<'a> Job<'a> {
    /// The job for `case` as written.
    pub fn of(case: &'a Case) -> Self {
        Job::with_plan(case, &case.plan)
    }

    /// The job for `case` with `plan` in place of its own (the run's settings applied).
    pub fn with_plan(case: &'a Case, plan: &'a ExecPlan) -> Self {
        Job {
            plan,
            requires: &case.requires,
            reference: case.reference,
        }
    }
}

/// One backend instance, owned by one worker thread.
pub trait Executor: Send {
    /// Requirement of the job this backend lacks, if any (a skip, unless `--force`).
    fn missing(&self, job: &Job) -> Option<String>;
    fn run(&mut self, job: &Job) -> RawResult;
    /// What happened outside any job since the last call (a driver worker that died between
    /// plans and was replaced), oldest first. The runner notes it on the next result.
    fn take_events(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// Stops a job under way as soon as `flag` is raised (a worker process is killed); the
    /// runner drops what such a job returns. Executors that cannot be stopped ignore it.
    fn cancel_on(&mut self, _flag: Arc<AtomicBool>) {}
}

/// Makes executors for one backend (one per worker thread).
pub trait BackendFactory: Sync {
    fn name(&self) -> String;
    fn is_reference(&self) -> bool {
        false
    }
    /// Why this backend, asked for, cannot run at all (an absent driver): its cases are
    /// skipped, and the run is incomplete (`record`).
    fn absent(&self) -> Option<String> {
        None
    }
    fn make(&self) -> Result<Box<dyn Executor>, String>;
    /// What `--backend` takes to select this backend again (for repro commands): its name,
    /// but for a Mesa install, whose name carries its Mesa version, not its prefix.
    fn argument(&self) -> String {
        self.name()
    }
    /// Which build of the driver (or of the reference) this is: the run record, the
    /// journal and the reports carry it. `None` for a driver that could not be probed.
    fn identity(&self) -> Option<BackendIdentity> {
        None
    }
}

pub fn current_exe() -> Result<PathBuf, String> {
    std::env::current_exe()
        .map_err(|e| format!("cannot find the conform executable to start driver workers: {e}"))
}

/// deqp-runner's `--renderer-check` and `--version-check`: every driver backend's
/// GL_RENDERER matches `renderer` and GL_VERSION matches `version` (regexes, searched
/// anywhere in the string), or the run must not start: a CI job that meant to test one driver
/// build and got another (a wrong library path falls back to the system's Mesa silently) has
/// measured nothing it can gate on. An absent driver fails the check (its strings are
/// unknown); the reference is not a driver and is not checked. All mismatches are listed.
pub fn check_strings(
    backends: &[Box<dyn BackendFactory>],
    renderer: Option<&regex::Regex>,
    version: Option<&regex::Regex>,
) -> Result<(), String> {
    if renderer.is_none() && version.is_none() {
        return Ok(());
    }
    let mut wrong = Vec::new();
    for b in backends.iter().filter(|b| !b.is_reference()) {
        let id = match (b.absent(), b.identity()) {
            (None, Some(id)) => id,
            (Some(why), _) => {
                wrong.push(format!(
                    "{} is absent ({why}): its strings cannot be checked",
                    b.name()
                ));
                continue;
            }
            (None, None) => {
                wrong.push(format!("{} gave no GL strings to check", b.name()));
                continue;
            }
        };
        for (flag, re, value) in [
            ("--renderer-check", renderer, &id.renderer),
            ("--version-check", version, &id.version),
        ] {
            if let Some(re) = re.filter(|re| !re.is_match(value)) {
                wrong.push(format!(
                    "{}: `{value}` does not match {flag} `{}`",
                    b.name(),
                    re.as_str()
                ));
            }
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the drivers are not the ones the run was told to expect; nothing was run:\n  {}",
            wrong.join("\n  ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Named {
        name: &'static str,
        identity: Option<BackendIdentity>,
        absent: Option<&'static str>,
        reference: bool,
    }

    impl BackendFactory for Named {
        fn name(&self) -> String {
            self.name.into()
        }
        fn is_reference(&self) -> bool {
            self.reference
        }
        fn absent(&self) -> Option<String> {
            self.absent.map(String::from)
        }
        fn identity(&self) -> Option<BackendIdentity> {
            self.identity.clone()
        }
        fn make(&self) -> Result<Box<dyn Executor>, String> {
            Err("not in this test".into())
        }
    }

    fn driver(name: &'static str, renderer: &str, version: &str) -> Box<dyn BackendFactory> {
        Box::new(Named {
            name,
            identity: Some(BackendIdentity::driver("Mesa", renderer, version)),
            absent: None,
            reference: false,
        })
    }

    fn re(s: &str) -> regex::Regex {
        regex::Regex::new(s).unwrap()
    }

    #[test]
    fn matching_strings_pass_and_every_mismatch_is_named() {
        let backends = vec![
            Box::new(Named {
                name: "reference",
                identity: Some(BackendIdentity::reference()),
                absent: None,
                reference: true,
            }) as Box<dyn BackendFactory>,
            driver(
                "llvmpipe",
                "llvmpipe (LLVM 15.0.6, 256 bits)",
                "4.5 (Core Profile) Mesa 22.3.6",
            ),
            driver(
                "llvmpipe@mesa-25",
                "llvmpipe (LLVM 15.0.6, 256 bits)",
                "4.5 (Core Profile) Mesa 25.0.7-2~bpo12+1",
            ),
        ];
        assert!(check_strings(&backends, None, None).is_ok());
        assert!(
            check_strings(&backends, Some(&re("llvmpipe")), Some(&re("Mesa 2[25]\\."))).is_ok()
        );
        let err =
            check_strings(&backends, Some(&re("^llvmpipe")), Some(&re("Mesa 25"))).unwrap_err();
        assert!(err.contains("nothing was run"), "{err}");
        assert!(
            err.contains("llvmpipe: `4.5 (Core Profile) Mesa 22.3.6` does not match --version-check `Mesa 25`"),
            "{err}"
        );
        assert!(!err.contains("llvmpipe@mesa-25:"), "{err}");
        assert!(!err.contains("reference"), "{err}");
        let err = check_strings(&backends, Some(&re("zink")), None).unwrap_err();
        assert_eq!(
            err.matches("does not match --renderer-check `zink`")
                .count(),
            2,
            "{err}"
        );
    }

    #[test]
    fn an_absent_driver_fails_the_check() {
        let backends = vec![Box::new(Named {
            name: "nvidia",
            identity: None,
            absent: Some("no EGL device for nvidia"),
            reference: false,
        }) as Box<dyn BackendFactory>];
        let err = check_strings(&backends, None, Some(&re("NVIDIA"))).unwrap_err();
        assert!(
            err.contains("nvidia is absent (no EGL device for nvidia)"),
            "{err}"
        );
    }
}
