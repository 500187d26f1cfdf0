//! Judging: what one backend did with one case, turned into a status with a message a person
//! can act on. Every backend, the reference included, is judged by this code; backends never
//! compare.

use crate::checks::{check_memory, check_steps, Memory, Mismatch};
use crate::results::Status;
use conform_case::{Case, Check};
use conform_plan::{Outcome, RawResult, Refusal};
use std::collections::BTreeMap;

/// The verdict on one case on one backend.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub status: Status,
    pub message: String,
    pub details: Vec<String>,
    pub allowed: bool,
    pub log: String,
    pub differing: BTreeMap<String, Vec<u64>>,
}

impl Verdict {
    /// A verdict with `status` and `message` and nothing else.
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Verdict {
            status,
            message: message.into(),
            details: vec![],
            allowed: false,
            log: String::new(),
            differing: BTreeMap::new(),
        }
    }
}

fn tail(text: &str, lines: usize) -> Vec<String> {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// The last `lines` lines of a build log, each line that names a place in the program given
/// the other line number beside it, so a reader has one system to go by: a driver's
/// `0:5(9): error: ...` (the program's line 5) gets `(bad.yaml:9)`, where that line is in the
/// file the program came from; the reference's `line 9: ...` (already the file's) gets
/// `(program line 5)`. Only for a case of one program, whose log's lines are unambiguous.
fn log_tail(case: &Case, log: &str, lines: usize) -> Vec<String> {
    let lines = tail(log, lines);
    let [program] = case.plan.programs.as_slice() else {
        return lines;
    };
    let first = u64::from(program.first_line.max(1));
    let file = std::path::Path::new(&program.origin)
        .file_name()
        .map_or_else(
            || program.origin.clone(),
            |n| n.to_string_lossy().into_owned(),
        );
    lines
        .into_iter()
        .map(|l| {
            // Mesa's (and glslang's) `SOURCE:LINE(COLUMN): ...`.
            let mesa = l.split_once(':').and_then(|(src, rest)| {
                let digits = rest.split_once('(')?.0;
                (src.trim().parse::<u64>().is_ok() && !digits.is_empty())
                    .then(|| digits.parse::<u64>().ok())
                    .flatten()
            });
            if let Some(n) = mesa.filter(|n| *n >= 1) {
                return format!("{l} ({file}:{})", first + n - 1);
            }
            // The reference's `line N: ...` and `STAGE failure: line N: ...`.
            let at = l
                .strip_prefix("line ")
                .or_else(|| l.split_once(" failure: line ").map(|(_, r)| r));
            let n = at
                .and_then(|r| r.split_once(':'))
                .and_then(|(n, _)| n.parse::<u64>().ok());
            match n {
                Some(n) if first > 1 && n >= first => {
                    format!("{l} (program line {})", n - first + 1)
                }
                _ => l,
            }
        })
        .collect()
}

/// Adds the mismatches to the verdict's details; a summary that is already the verdict's
/// message is not repeated as a detail (its own detail lines follow the headline).
fn add_mismatches(v: &mut Verdict, case: &Case, ms: &[Mismatch]) {
    for m in ms {
        if m.summary != v.message {
            v.details.push(m.summary.clone());
        }
        v.details.extend(m.details.iter().map(|d| format!("  {d}")));
        if let Some(b) = m.buffer {
            v.differing
                .entry(case.plan.buffers[b].name.clone())
                .or_default()
                .extend(&m.elements);
        }
    }
}

/// What the message of an allowed crash says.
pub const TERMINATION_ALLOWED: &str = " (allowed: the spec lets this undefined behaviour terminate the program on a context without robust buffer access, and conform's contexts are not robust)";

/// Judges a backend's raw result against the case.
pub fn judge(
    case: &Case,
    raw: &RawResult,
    is_reference: bool,
    golden: Option<&Outcome>,
) -> Verdict {
    judge_within(case, raw, is_reference, golden, case.plan.timeout_ms)
}

/// [`judge`] for a run whose time limit per case was `timeout_ms` (`--timeout`).
pub fn judge_within(
    case: &Case,
    raw: &RawResult,
    is_reference: bool,
    golden: Option<&Outcome>,
    timeout_ms: u64,
) -> Verdict {
    let undefined = case.undefined.is_some();
    let outcome = match raw {
        RawResult::Crash {
            signal,
            code,
            stderr_tail,
        } => {
            let mut how = match (signal, code) {
                (Some(s), _) => format!("worker killed by signal {s}"),
                (None, Some(c)) => format!("worker exited with code {c}"),
                (None, None) => "backend crashed".to_string(),
            };
            // The GL worker's crash handler names what it was doing (glrunner's breadcrumb).
            if let Some(at) = stderr_tail
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("conform worker: crashed in "))
            {
                how.push_str(&format!(" in {at}"));
            }
            // A worker that ends itself says why (virgl's, when its vtest server died).
            if let Some(why) = stderr_tail
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("conform worker: lost: "))
            {
                how.push_str(&format!(": {why}"));
            }
            let mut v = Verdict::new(Status::Crash, how);
            v.details = tail(stderr_tail, 20);
            // Termination is allowed only where the spec says so (`may_terminate`), and only
            // on a driver: conform's GL contexts never ask for robust buffer access, under
            // which such a crash would be a failure again. The reference must never crash.
            if undefined && case.may_terminate && !is_reference {
                v.allowed = true;
                v.message.push_str(TERMINATION_ALLOWED);
            }
            return v;
        }
        RawResult::Timeout { stderr_tail } => {
            let mut v = Verdict::new(
                Status::Timeout,
                format!("no result within {timeout_ms} ms; the worker was killed and restarted"),
            );
            v.details = tail(stderr_tail, 20);
            if undefined {
                v.allowed = true;
                v.message
                    .push_str(" (allowed: the case exercises undefined behaviour, which may hang)");
            }
            return v;
        }
        RawResult::Done(Err(Refusal::Unsupported(what))) => {
            return Verdict::new(Status::Skip, format!("unsupported: {what}"));
        }
        RawResult::Done(Err(Refusal::Timeout(msg))) => {
            let mut v = Verdict::new(Status::Timeout, msg.clone());
            v.allowed = undefined;
            return v;
        }
        RawResult::Done(Err(Refusal::Internal(msg))) => {
            return Verdict::new(Status::Crash, format!("internal error in conform: {msg}"));
        }
        RawResult::Done(Ok(o)) => o,
    };
    let mut v = judge_outcome(case, outcome, is_reference, golden);
    // What went wrong first (the mismatches and their elements, the build log), then what
    // the backend noted: the notes never come between a mismatch and its elements.
    for f in &outcome.flags {
        v.details.push(format!("flag {}: {}", f.kind, f.message));
    }
    for n in &outcome.notes {
        v.details.push(format!("note: {n}"));
    }
    v
}

/// [`judge_within`] for a backend that produced an outcome, its flags and notes aside.
fn judge_outcome(
    case: &Case,
    outcome: &Outcome,
    is_reference: bool,
    golden: Option<&Outcome>,
) -> Verdict {
    let undefined = case.undefined.is_some();
    let mut v = Verdict::new(Status::Pass, "");
    v.log = outcome.build.log.chars().take(4000).collect();

    // Build.
    match (&case.fails, outcome.build.failed_at) {
        // ARB_gl_spirv: "The OpenGL API expects the SPIR-V module to have already been
        // validated ... An invalid SPIR-V module is allowed to result in undefined behavior."
        // A driver that accepts an invalid module is therefore conformant; the validation rules
        // bind the reference (SPIRV-Tools and the front end), and the driver is only held to
        // not crashing or hanging.
        (Some(f), None) if f.at == conform_plan::BuildStage::Validate && !is_reference => {
            v.message = "the driver accepted an invalid SPIR-V module, which ARB_gl_spirv allows (undefined behaviour); validation is checked on the reference".into();
            return v;
        }
        (Some(f), None) => {
            v.status = Status::Fail;
            v.message = built_unexpectedly(f.at);
            return v;
        }
        (Some(f), Some(stage)) => {
            if stage != f.at {
                v.status = Status::Fail;
                v.message = format!(
                    "expected a {} failure, got a {} failure",
                    f.at.name(),
                    stage.name()
                );
                v.details.extend(log_tail(case, &outcome.build.log, 10));
                return v;
            }
            if let Some(re) = &f.log {
                if !re.is_match(&outcome.build.log) {
                    if is_reference {
                        v.status = Status::Fail;
                        v.message =
                            format!("the {} log does not match /{}/", stage.name(), re.as_str());
                        v.details.extend(log_tail(case, &outcome.build.log, 10));
                        return v;
                    }
                    v.details.push(format!("note: the driver's log does not match /{}/ (drivers word logs their own way)", re.as_str()));
                }
            }
            return v;
        }
        (None, Some(stage)) => {
            v.status = Status::Fail;
            v.message = format!(
                "the program failed to {}",
                match stage {
                    conform_plan::BuildStage::Load => "load",
                    conform_plan::BuildStage::Compile => "compile",
                    conform_plan::BuildStage::Link => "link",
                    conform_plan::BuildStage::Validate => "validate",
                }
            );
            v.details.extend(log_tail(case, &outcome.build.log, 12));
            return v;
        }
        (None, None) => {}
    }

    // Steps.
    let (step_mismatches, not_applicable) = check_steps(case, outcome);
    if !not_applicable.is_empty() {
        v.status = Status::Skip;
        v.message = format!("backend cannot execute {}", not_applicable.join(", "));
        return v;
    }
    if outcome.steps.len() < case.plan.steps.len() {
        v.status = Status::Fail;
        v.message = format!(
            "backend ran {} of {} steps",
            outcome.steps.len(),
            case.plan.steps.len()
        );
        return v;
    }

    // Memory, under every schedule the backend reports.
    let reference_memory = if is_reference {
        Some(Memory::of(outcome))
    } else {
        golden.map(Memory::of)
    };
    let needs_golden = case
        .expect
        .iter()
        .any(|x| matches!(x.check, Check::Reference));
    if needs_golden && reference_memory.is_none() {
        v.status = Status::Skip;
        v.message = "the case compares with the reference, which produced no output for it".into();
        return v;
    }
    let memory = check_memory(case, Memory::of(outcome), reference_memory);
    let mut failures: Vec<Mismatch> = step_mismatches;
    failures.extend(memory.iter().cloned());
    if !failures.is_empty() {
        v.status = Status::Fail;
        v.message = failures[0].summary.clone();
        add_mismatches(&mut v, case, &failures);
        return v;
    }
    for s in &outcome.other_schedules {
        let ms = check_memory(case, Memory::of_schedule(s), reference_memory);
        if !ms.is_empty() {
            v.status = Status::Fail;
            v.message = if s.name.starts_with("subgroup size") {
                format!(
                    "subgroup-size-dependent: the checked memory differs with a {}; gl_SubgroupSize is the implementation's: check what holds for every size (or give the case reference.subgroup_size)",
                    s.name
                )
            } else {
                format!(
                    "schedule-dependent: the checked memory differs under the `{}` schedule; use one_of or permutation_of where the order is unspecified",
                    s.name
                )
            };
            add_mismatches(&mut v, case, &ms);
            return v;
        }
    }

    // Undefined behaviour.
    let ub: Vec<_> = outcome
        .flags
        .iter()
        .filter(|f| !f.kind.is_observation())
        .collect();
    match (undefined, is_reference, ub.is_empty()) {
        (true, true, false) => {
            v.status = Status::Flagged;
            v.message = format!("undefined behaviour detected as declared: {}", ub[0].kind);
        }
        (true, true, true) => {
            v.status = Status::Fail;
            v.message = format!(
                "the case declares undefined behaviour ({}) but the reference flagged none",
                case.undefined.as_deref().unwrap_or("")
            );
        }
        (false, true, false) => {
            v.status = Status::Fail;
            v.message = format!(
                "the reference detected undefined behaviour ({}: {}); fix the program or mark the case `undefined:`",
                ub[0].kind, ub[0].message
            );
        }
        (true, false, _) => {
            // The memory checks ran first: the defined elements, if any, matched.
            let checked = case
                .expect
                .iter()
                .any(|e| !matches!(e.check, Check::Undefined));
            v.message = if checked {
                "ran to completion and its defined checks hold (the elements marked undefined are not checked)"
            } else {
                "ran to completion (the result is undefined; only crashes and hangs are wrong)"
            }
            .into();
        }
        _ => {}
    }
    v
}

/// The message of a failure where a program the case expects to fail at `stage` built:
/// reports that name such a bug by what it is (a driver that accepts an invalid program)
/// recognise it by this message.
pub fn built_unexpectedly(stage: conform_plan::BuildStage) -> String {
    format!("expected a {} failure, but the program built", stage.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_plan::BuildOutcome;
    use std::path::Path;

    fn validate_case() -> Case {
        let text = "spec: [X]\nprogram: {language: spirv-asm, source: \"OpCapability Shader\"}\nfails: {at: validate}\n";
        conform_case::parse(Path::new("t.yaml"), text, None).unwrap()
    }

    #[test]
    fn invalid_spirv_accepted_by_a_driver_is_not_a_failure() {
        let case = validate_case();
        let built = RawResult::Done(Ok(Outcome::default()));
        assert_eq!(judge(&case, &built, false, None).status, Status::Pass);
        assert_eq!(
            judge(&case, &built, true, None).status,
            Status::Fail,
            "the reference must reject it"
        );
        let rejected = RawResult::Done(Ok(Outcome {
            build: BuildOutcome {
                failed_at: Some(conform_plan::BuildStage::Validate),
                log: "error".into(),
            },
            ..Default::default()
        }));
        assert_eq!(judge(&case, &rejected, true, None).status, Status::Pass);
    }

    /// A crash is allowed only on a driver, on a case whose spec lets its undefined
    /// behaviour terminate the program; an undefined value's crash is a driver bug.
    #[test]
    fn a_crash_is_allowed_only_where_the_spec_lets_the_program_terminate() {
        let body =
            "spec: [X]\nprogram: {language: glsl, source: x}\nundefined: \"out of bounds\"\n";
        let may = conform_case::parse(
            Path::new("t.yaml"),
            &format!("{body}may_terminate: true\n"),
            None,
        )
        .unwrap();
        let value = conform_case::parse(Path::new("t.yaml"), body, None).unwrap();
        let crash = RawResult::Crash {
            signal: Some(11),
            code: None,
            stderr_tail: String::new(),
        };
        let v = judge(&may, &crash, false, None);
        assert_eq!((v.status, v.allowed), (Status::Crash, true));
        assert!(v.message.ends_with(TERMINATION_ALLOWED), "{}", v.message);
        assert!(!judge(&may, &crash, true, None).allowed, "the reference");
        assert!(
            !judge(&value, &crash, false, None).allowed,
            "an undefined value"
        );
        let e = conform_case::parse(
            Path::new("t.yaml"),
            "spec: [X]\nprogram: {language: glsl, source: x}\nmay_terminate: true\n",
            None,
        )
        .unwrap_err();
        assert!(
            format!("{e:?}").contains("may_terminate needs `undefined`"),
            "{e:?}"
        );
    }

    /// A build log's places in both line systems: the driver's program lines get the case
    /// file's beside them, the reference's case-file lines the program's.
    #[test]
    fn build_log_lines_carry_the_other_line_number() {
        let text = "spec: [X]\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    void main() { x; }\nbuffers:\n  - {name: out, binding: 0, data: [0]}\n";
        let case = conform_case::parse(Path::new("dir/bad.yaml"), text, None).unwrap();
        let failed = |log: &str| {
            RawResult::Done(Ok(Outcome {
                build: BuildOutcome {
                    failed_at: Some(conform_plan::BuildStage::Compile),
                    log: log.into(),
                },
                ..Default::default()
            }))
        };
        let v = judge(
            &case,
            &failed("0:2(15): error: `x' undeclared\nplain line"),
            false,
            None,
        );
        assert_eq!(
            v.details,
            ["0:2(15): error: `x' undeclared (bad.yaml:6)", "plain line"]
        );
        let v = judge(
            &case,
            &failed("line 6: error: 'x' : undeclared identifier"),
            true,
            None,
        );
        assert_eq!(
            v.details,
            ["line 6: error: 'x' : undeclared identifier (program line 2)"]
        );
    }

    const SNAPSHOT_CASE: &str = r##"
spec: [X]
program: {language: glsl, source: "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}"}
buffers:
  - {name: out, binding: 0, data: [0]}
steps:
  - dispatch: [1]
  - expect:
      - {buffer: out, values: [1]}
  - dispatch: [1]
expect:
  - {buffer: out, compare: {op: ">", values: [1]}}
"##;

    fn outcome(snapshot: u32, last: u32) -> Outcome {
        let ok = conform_plan::StepOutcome {
            error: Some(conform_plan::GlError::NoError),
            values: vec![],
            applicable: true,
        };
        Outcome {
            steps: vec![ok; 3],
            buffers: vec![last.to_le_bytes().to_vec()],
            snapshots: vec![vec![snapshot.to_le_bytes().to_vec()]],
            ..Default::default()
        }
    }

    #[test]
    fn expect_steps_are_judged_on_their_snapshot() {
        let case = conform_case::parse(Path::new("t.yaml"), SNAPSHOT_CASE, None).unwrap();
        let judged = |o: Outcome| judge(&case, &RawResult::Done(Ok(o)), false, None);
        assert_eq!(judged(outcome(1, 2)).status, Status::Pass);
        let v = judged(outcome(2, 2));
        assert_eq!(v.status, Status::Fail);
        assert!(v.message.contains("after step 2"), "{}", v.message);
        let v = judged(outcome(1, 1));
        assert_eq!(v.status, Status::Fail);
        assert!(
            v.message.contains("fail `observed > expected`"),
            "{}",
            v.message
        );
        let mut o = outcome(1, 2);
        o.snapshots.clear();
        let v = judged(o);
        assert_eq!(
            v.status,
            Status::Fail,
            "a backend that skipped the snapshot"
        );
        assert!(
            v.message.contains("no memory for the expect step"),
            "{}",
            v.message
        );
    }

    #[test]
    fn the_notes_follow_the_mismatches() {
        let case = conform_case::parse(Path::new("t.yaml"), SNAPSHOT_CASE, None).unwrap();
        let mut o = outcome(2, 1);
        o.notes = vec!["ran 3 schedule(s)".into()];
        let v = judge(&case, &RawResult::Done(Ok(o)), true, None);
        assert_eq!(v.status, Status::Fail);
        let last = v.details.last().map(String::as_str);
        assert_eq!(last, Some("note: ran 3 schedule(s)"), "{:#?}", v.details);
        assert!(
            v.details[..v.details.len() - 1]
                .iter()
                .all(|d| !d.starts_with("note: ")),
            "{:#?}",
            v.details
        );
    }

    #[test]
    fn a_snapshot_that_depends_on_the_schedule_fails() {
        let case = conform_case::parse(Path::new("t.yaml"), SNAPSHOT_CASE, None).unwrap();
        let mut o = outcome(1, 2);
        o.other_schedules.push(conform_plan::ScheduleOutcome {
            name: "reversed".into(),
            buffers: o.buffers.clone(),
            snapshots: vec![vec![3u32.to_le_bytes().to_vec()]],
        });
        let v = judge(&case, &RawResult::Done(Ok(o)), true, None);
        assert_eq!(v.status, Status::Fail);
        assert!(v.message.starts_with("schedule-dependent"), "{}", v.message);
    }
}
