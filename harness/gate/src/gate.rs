//! Gating: separating regressions from known failures and flakes.
//!
//! Three input files, all line-based text with `#` comments (docs/CI.md is the reference):
//!
//! - a **baseline** (`--baseline`): known failures, `backend,case,status` per line, where
//!   `backend` may be `*` and `status` is `fail`, `crash`, `timeout` or `any` (any case);
//!   or deqp-runner's `name,Status[,seconds]` lines (`crate::deqp`: a name is `backend/case`
//!   or a bare case name for every backend), so a previous run's `failures.csv` is a baseline;
//! - a **flakes** list (`--flakes`): `backend,regex` per line; cases whose name the regex
//!   matches entirely are known to be flaky on that backend (`*`: every backend); or a bare
//!   regex line, deqp-runner's form, found anywhere in the case name or in `backend/case`;
//! - a **skips** list (`--skips`): same format; matching cases are not run at all.
//!
//! Every result gets a [`Class`]; only regressions (and, with `--strict`, unexpected improvements)
//! fail the run. Malformed lines are reported as `file:line: message`, every one of them.
//! A run with gaps (`record::gaps`: killed, interrupted, partial, empty, an absent backend,
//! an incomplete shard set) did not pass either, whatever its results: [`EXIT_INCOMPLETE`].

use crate::deqp::DeqpStatus;
use conform_io::diag::Diagnostic;
use conform_judge::policy::Known;
use conform_judge::results::{CaseResult, Status};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Nothing blocks, the run is complete and every case valid.
pub const EXIT_PASSED: u8 = 0;
/// A regression (or an unexpected improvement under `--strict`).
pub const EXIT_REGRESSION: u8 = 1;
/// Invalid cases or input files, or a usage error.
pub const EXIT_INVALID: u8 = 2;
/// The run is incomplete: its results do not cover what it set out to run.
pub const EXIT_INCOMPLETE: u8 = 3;

/// What a result means for the gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// A failure not in the baseline (or failing differently from it), failing every attempt.
    Regression,
    /// Did better than the baseline says (deqp-runner's `UnexpectedImprovement`): passed, was
    /// skipped, or failed where the baseline lists a crash or a timeout. The baseline entry
    /// can go or change (fails the run with `--strict`).
    UnexpectedImprovement,
    /// Failed, then passed on a retry.
    Flake,
    /// Failed (on some or all attempts), and the flakes list names it.
    KnownFlake,
    /// Failed as the baseline says it does.
    ExpectedFail,
    Pass,
    Skip,
    /// The case itself is broken (exit code 2).
    Invalid,
}

impl Class {
    pub const ALL: [Class; 8] = [
        Class::Regression,
        Class::UnexpectedImprovement,
        Class::Flake,
        Class::KnownFlake,
        Class::ExpectedFail,
        Class::Pass,
        Class::Skip,
        Class::Invalid,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Regression => "regression",
            Class::UnexpectedImprovement => "unexpected-improvement",
            Class::Flake => "flake",
            Class::KnownFlake => "known-flake",
            Class::ExpectedFail => "expected-fail",
            Class::Pass => "pass",
            Class::Skip => "skip",
            Class::Invalid => "invalid",
        }
    }

    /// Whether this class makes the run exit 1.
    pub fn blocks(self, strict: bool) -> bool {
        match self {
            Class::Regression => true,
            Class::UnexpectedImprovement => strict,
            _ => false,
        }
    }
}

/// How results.csv, failures.csv and a written baseline name a test (`--test-names`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestNames {
    /// `backend/case` (`llvmpipe/nv_compute_program5/atoms`): unique across backends.
    #[default]
    Conform,
    /// The suite runner's own names, for a run of one driver (`conform piglit-runner run`):
    /// an imported piglit test as piglit-runner names it
    /// (`spec@arb_compute_shader@execution@basic-ssbo`), any other case by its name; so the
    /// lines go straight into Mesa's fails files.
    PiglitRunner,
}

impl TestNames {
    /// A result's name in deqp-runner's files.
    pub fn name(self, backend: &str, case: &str) -> String {
        match self {
            TestNames::Conform => crate::deqp::test_name(backend, case),
            TestNames::PiglitRunner => {
                crate::deqp::piglit_runner_name(case).unwrap_or_else(|| case.to_string())
            }
        }
    }
}

impl std::str::FromStr for TestNames {
    type Err = String;

    fn from_str(s: &str) -> Result<TestNames, String> {
        match s {
            "conform" => Ok(TestNames::Conform),
            "piglit-runner" => Ok(TestNames::PiglitRunner),
            other => Err(format!(
                "`{other}`: test names are conform (backend/case) or piglit-runner (spec@...)"
            )),
        }
    }
}

/// The form `--write-baseline` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BaselineFormat {
    /// deqp-runner's `name,Status` (`llvmpipe/case,Fail`), which deqp-runner and conform both
    /// read.
    #[default]
    Deqp,
    /// conform's `backend,case,status` (`llvmpipe,case,fail`), which only conform reads.
    Conform,
}

impl std::str::FromStr for BaselineFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<BaselineFormat, String> {
        match s {
            "deqp" => Ok(BaselineFormat::Deqp),
            "conform" => Ok(BaselineFormat::Conform),
            _ => Err(format!("unknown baseline format `{s}`: deqp or conform")),
        }
    }
}

/// The failing status a baseline entry expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    Status(Status),
    /// Any of fail, crash, timeout.
    Any,
    /// Flaky (a deqp-runner baseline's `Flake` line): a failure is a known flake, a pass is
    /// a plain pass.
    Flaky,
}

impl Expected {
    fn name(self) -> &'static str {
        match self {
            Expected::Status(s) => s.name(),
            Expected::Any => "any",
            Expected::Flaky => "flake",
        }
    }

    pub fn matches(self, s: Status) -> bool {
        match self {
            Expected::Any | Expected::Flaky => {
                matches!(s, Status::Fail | Status::Crash | Status::Timeout)
            }
            Expected::Status(e) => e == s,
        }
    }

    /// What a deqp-runner status in a baseline expects; `None` for the statuses that expect
    /// no failure (Pass, Skip, Warn, Missing, UnexpectedImprovement): such lines are ignored.
    fn of_deqp(s: DeqpStatus) -> Option<Expected> {
        match s {
            DeqpStatus::Fail | DeqpStatus::ExpectedFail => Some(Expected::Status(Status::Fail)),
            DeqpStatus::Crash => Some(Expected::Status(Status::Crash)),
            DeqpStatus::Timeout => Some(Expected::Status(Status::Timeout)),
            DeqpStatus::Flake | DeqpStatus::KnownFlake => Some(Expected::Flaky),
            DeqpStatus::Pass
            | DeqpStatus::Skip
            | DeqpStatus::Warn
            | DeqpStatus::Missing
            | DeqpStatus::UnexpectedImprovement(_) => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct BaselineEntry {
    /// Empty for a deqp-runner line, whose `case` is the whole test name.
    pub backend: String,
    pub case: String,
    pub expected: Expected,
    /// `file:line`, for messages.
    pub origin: String,
}

impl BaselineEntry {
    /// What this entry says of a failure with `status`: the one rule the gate's classes and
    /// the console's status words share. A wrong value where a crash or a hang was known is
    /// better, not a regression (deqp-runner: `UnexpectedImprovement(Fail)`); a crash or hang
    /// where a wrong value was known is worse.
    pub fn knows(&self, status: Status) -> Known {
        if self.expected.matches(status) {
            Known::Expected
        } else if status == Status::Fail
            && matches!(
                self.expected,
                Expected::Status(Status::Crash | Status::Timeout)
            )
        {
            Known::Improved
        } else {
            Known::No
        }
    }
}

/// Known failures, by backend and case name.
#[derive(Clone, Debug, Default)]
pub struct Baseline {
    entries: Vec<BaselineEntry>,
    /// conform lines by `(backend, case)`; deqp-runner lines by `("", name)`.
    index: HashMap<(String, String), usize>,
    /// deqp-runner lines by lower-cased name: piglit-runner's names are matched whatever
    /// their case ([`crate::deqp::piglit_runner_name`]).
    lower: HashMap<String, usize>,
}

/// Splits a line into its content (without a `#` comment) and trims it.
fn content(line: &str) -> &str {
    line.split_once('#').map_or(line, |(c, _)| c).trim()
}

/// One baseline line's fields, in either form: `(backend, case, expected)`, backend empty for
/// a deqp-runner line; `Ok(None)` for a deqp-runner line that expects no failure.
fn baseline_line(fields: &[String]) -> Result<Option<(&str, &str, Expected)>, Diagnosis> {
    let deqp = match fields {
        [_, status] => Some(status),
        [_, status, seconds] if seconds.parse::<f64>().is_ok() => Some(status),
        _ => None,
    };
    if let Some(status) = deqp {
        let Some(s) = DeqpStatus::parse(status) else {
            if looks_like_regex(&fields[0]) || looks_like_regex(status) {
                return Err(Diagnosis(
                    format!(
                        "`{}` looks like a regex (a skips or flakes line): a baseline lists exact test names with their status",
                        fields.join(",")
                    ),
                    Some("give the file as --skips or --flakes"),
                ));
            }
            return Err(Diagnosis(
                format!(
                    "unknown status `{status}`: read as deqp-runner's `name,Status[,seconds]` (statuses {}); conform's own lines are `backend,case,status`",
                    DeqpStatus::ALL.map(DeqpStatus::name).join(", ")
                ),
                None,
            ));
        };
        return Ok(Expected::of_deqp(s).map(|e| ("", fields[0].as_str(), e)));
    }
    let [backend, case, status] = fields else {
        if fields.iter().any(|f| looks_like_regex(f)) {
            return Err(Diagnosis(
                format!(
                    "`{}` looks like a regex (a skips or flakes line): a baseline lists exact test names with their status",
                    fields.join(",")
                ),
                Some("give the file as --skips or --flakes"),
            ));
        }
        return Err(Diagnosis(
            format!(
                "expected `backend,case,status` (conform) or `name,Status[,seconds]` (deqp-runner), found {} field(s)",
                fields.len()
            ),
            Some("e.g. `llvmpipe,nv_compute_program5/atoms-iwrap-edges,fail` or `llvmpipe/nv_compute_program5/atoms-iwrap-edges,Fail`"),
        ));
    };
    if backend.is_empty() || case.is_empty() {
        return Err(Diagnosis("empty backend or case name".into(), None));
    }
    let expected = match status.to_ascii_lowercase().as_str() {
        "fail" => Expected::Status(Status::Fail),
        "crash" => Expected::Status(Status::Crash),
        "timeout" => Expected::Status(Status::Timeout),
        "any" => Expected::Any,
        _ => {
            return Err(Diagnosis(
                format!("unknown status `{status}` (expected fail, crash, timeout or any)"),
                None,
            ))
        }
    };
    Ok(Some((backend.as_str(), case.as_str(), expected)))
}

/// Whether a baseline field holds regex syntax no test name has (`.*`, `[...]`, `^`, `$`,
/// `|`, `+`, `?`, `{`): case and test names are paths and dotted names.
fn looks_like_regex(field: &str) -> bool {
    field.contains(".*") || field.chars().any(|c| "[]^$|+?{}\\".contains(c))
}

/// A problem with one line: message and hint.
struct Diagnosis(String, Option<&'static str>);

/// `value` when reading it found no problem, else the problems.
fn clean<T>(value: T, diags: Vec<Diagnostic>) -> Result<T, Vec<Diagnostic>> {
    if diags.is_empty() {
        Ok(value)
    } else {
        Err(diags)
    }
}

impl Baseline {
    pub fn parse(path: &Path, text: &str) -> Result<Baseline, Vec<Diagnostic>> {
        let mut b = Baseline::default();
        let diags = b.add(path, text);
        clean(b, diags)
    }

    /// Adds the entries of another baseline file (`--baseline` given more than once); a
    /// test listed in two files is an error naming both places, whatever they expect.
    pub fn add(&mut self, path: &Path, text: &str) -> Vec<Diagnostic> {
        let b = self;
        let mut diags = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line_no = n + 1;
            let c = crate::deqp::content(line);
            if c.is_empty() {
                continue;
            }
            let err = |msg: String| Diagnostic::new(path, line_no, 0, msg);
            let parsed = crate::deqp::split_line(c)
                .map_err(|e| Diagnosis(e, None))
                .and_then(|fields| {
                    baseline_line(&fields)
                        .map(|l| l.map(|(b, c, e)| (b.to_string(), c.to_string(), e)))
                });
            let (backend, case, expected) = match parsed {
                Ok(Some(entry)) => entry,
                Ok(None) => continue,
                Err(Diagnosis(msg, hint)) => {
                    let d = err(msg);
                    diags.push(match hint {
                        Some(h) => d.with_hint(h),
                        None => d,
                    });
                    continue;
                }
            };
            if case.is_empty() {
                diags.push(err("empty test name".into()));
                continue;
            }
            let shown = if backend.is_empty() {
                case.clone()
            } else {
                format!("{backend},{case}")
            };
            let key = (backend, case);
            if let Some(&i) = b.index.get(&key) {
                diags.push(err(format!(
                    "`{shown}` is already listed at {}",
                    b.entries[i].origin
                )));
                continue;
            }
            if key.0.is_empty() {
                b.lower
                    .entry(key.1.to_lowercase())
                    .or_insert(b.entries.len());
            }
            b.index.insert(key.clone(), b.entries.len());
            b.entries.push(BaselineEntry {
                backend: key.0,
                case: key.1,
                expected,
                origin: format!("{}:{line_no}", path.display()),
            });
        }
        diags
    }

    pub fn load(path: &Path) -> Result<Baseline, Vec<Diagnostic>> {
        let text = conform_io::input::read_text(path).map_err(|d| vec![d])?;
        Baseline::parse(path, &text)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, in file order.
    pub fn entries(&self) -> &[BaselineEntry] {
        &self.entries
    }

    /// The entry for `case` on `backend`: an exact backend entry, else a deqp-runner
    /// `backend/case` line, else a `*` entry, else a deqp-runner line naming the bare case.
    pub fn find(&self, backend: &str, case: &str) -> Option<&BaselineEntry> {
        let get = |b: &str, c: &str| self.index.get(&(b.to_string(), c.to_string()));
        get(backend, case)
            .or_else(|| get("", &crate::deqp::test_name(backend, case)))
            .or_else(|| get("*", case))
            .or_else(|| get("", case))
            // An imported piglit test by piglit-runner's name, as Mesa's expectation files
            // list it (`spec@arb_compute_shader@execution@basic-ssbo,Fail`).
            .or_else(|| {
                crate::deqp::piglit_runner_name(case).and_then(|name| self.lower.get(&name))
            })
            .map(|&i| &self.entries[i])
    }

    /// Baseline lines naming an install backend (`llvmpipe@mesa-25`) that `backends` lacks
    /// while it has the same driver of another install: most likely a name from before
    /// installs were named by their Mesa version. One message per backend name: where it is
    /// first written and the names the run has.
    pub fn stale_install_names(&self, backends: &[&str]) -> Vec<String> {
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for e in &self.entries {
            // conform lines name the backend; deqp-runner lines carry it in the test name.
            let backend = if e.backend.is_empty() {
                e.case.split_once('/').map_or("", |(b, _)| b)
            } else {
                e.backend.as_str()
            };
            let Some((driver, _)) = backend.split_once('@') else {
                continue;
            };
            if backends.contains(&backend) || !seen.insert(backend.to_string()) {
                continue;
            }
            let same: Vec<&str> = backends
                .iter()
                .copied()
                .filter(|b| b.split_once('@').is_some_and(|(d, _)| d == driver))
                .collect();
            if !same.is_empty() {
                out.push(format!(
                    "{}: `{backend}` is no backend of this run, which has {}: a Mesa install is named by the Mesa version it holds (docs/DRIVERS.md, \"Mesa installs\"); write that name",
                    e.origin,
                    same.join(", ")
                ));
            }
        }
        out
    }

    /// Whether the baseline lists `case` on `backend` as failing with `status`.
    pub fn expects(&self, backend: &str, case: &str, status: Status) -> bool {
        self.find(backend, case)
            .is_some_and(|e| e.expected.matches(status))
    }

    /// What the baseline knows of a failure with `status`, as [`Gate::classify`] classes it:
    /// expected, better than the crash or hang it lists, or not known.
    pub fn known(&self, backend: &str, case: &str, status: Status) -> Known {
        self.find(backend, case)
            .map_or(Known::No, |e| e.knows(status))
    }
}

#[derive(Clone, Debug)]
pub struct PatternEntry {
    /// A backend name, `*` for every backend, or empty for a bare (deqp-runner) line.
    pub backend: String,
    pub regex: Regex,
    /// A bare line's regex without regard to case, for piglit-runner's names of imported
    /// piglit tests.
    pub regex_any_case: Option<Regex>,
    /// `file:line`, for messages.
    pub origin: String,
}

impl PatternEntry {
    fn matches(&self, backend: &str, case: &str) -> bool {
        if self.backend.is_empty() {
            return self.regex.is_match(case)
                || self.regex.is_match(&crate::deqp::test_name(backend, case))
                || crate::deqp::piglit_runner_name(case).is_some_and(|name| {
                    self.regex_any_case
                        .as_ref()
                        .is_some_and(|r| r.is_match(&name))
                });
        }
        (self.backend == "*" || self.backend == backend) && self.regex.is_match(case)
    }
}

/// deqp-runner's reading of a bare skips or flakes line: when it holds none of
/// `*+?()[]{}|^$\\`, it is a test name and its dots are literal; otherwise a regex as written.
fn escape_dots_if_no_regex(line: &str) -> String {
    const REGEX_CHARS: &str = "*+?()[]{}|^$\\";
    let line = line.trim();
    if line.chars().any(|c| REGEX_CHARS.contains(c)) {
        line.to_string()
    } else {
        line.replace('.', "\\.")
    }
}

/// Whether the text before a line's first comma names a backend (`*`, `llvmpipe`,
/// `egl:renderD128`) rather than being part of a bare regex (`x{1,3}`, `dEQP-GLES2.a,b`).
fn is_backend_field(s: &str) -> bool {
    // A driver of a Mesa install is `driver@label` (`llvmpipe@mesa-25.0`): the label, the
    // last component of a path, may hold dots, which never start a regex's first field.
    let (driver, label) = match s.split_once('@') {
        Some((d, l)) => (d, Some(l)),
        None => (s, None),
    };
    let name = |t: &str, extra: &[char]| {
        !t.is_empty()
            && t.chars().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':') || extra.contains(&c)
            })
    };
    s == "*" || (name(driver, &[]) && label.is_none_or(|l| name(l, &['.', '+', '~'])))
}

/// Flakes or skips: `backend,regex` lines, whose regex must match the whole case name, and
/// deqp-runner's bare regex lines, found anywhere in the case name or in `backend/case`.
#[derive(Clone, Debug, Default)]
pub struct Patterns {
    entries: Vec<PatternEntry>,
}

impl Patterns {
    pub fn parse(path: &Path, text: &str) -> Result<Patterns, Vec<Diagnostic>> {
        let mut p = Patterns::default();
        let diags = p.add(path, text);
        clean(p, diags)
    }

    /// Adds the lines of another file (`--flakes`/`--skips` given more than once).
    pub fn add(&mut self, path: &Path, text: &str) -> Vec<Diagnostic> {
        let entries = &mut self.entries;
        let mut diags = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line_no = n + 1;
            // A regex may contain `#` only escaped as `\x23`; the comment rule stays simple.
            let c = content(line);
            if c.is_empty() {
                continue;
            }
            let err = |msg: String| Diagnostic::new(path, line_no, 0, msg);
            // A results or baseline line given as skips or flakes (deqp-runner refuses it
            // too: "regex line appears to incorrectly contain a result status").
            if let Some((_, last)) = c.rsplit_once(',') {
                if crate::deqp::DeqpStatus::parse(last).is_some()
                    || matches!(last.trim(), "fail" | "crash" | "timeout" | "any")
                {
                    diags.push(
                        err(format!(
                            "`{c}` ends in a result status: this is a baseline or results line, \
                             but a skips or flakes file holds regexes"
                        ))
                        .with_hint("give the file as --baseline, or keep only the name (a regex)"),
                    );
                    continue;
                }
            }
            let (backend, re, anchored) = match c.split_once(',') {
                Some((b, re)) if is_backend_field(b.trim()) => (b.trim(), re.trim(), true),
                // deqp-runner's bare line: a regex found anywhere in the name, with its dots
                // taken literally when the line has no other regex syntax (a plain test name).
                _ => ("", c, false),
            };
            let escaped;
            let re = if anchored {
                re
            } else {
                escaped = escape_dots_if_no_regex(re);
                escaped.as_str()
            };
            if re.is_empty() {
                diags.push(
                    err(format!("backend `{backend}` without a regex"))
                        .with_hint("e.g. `zink,nv_shader_thread_shuffle/.*-width32`"),
                );
                continue;
            }
            let pattern = if anchored {
                format!("^(?:{re})$")
            } else {
                re.to_string()
            };
            match Regex::new(&pattern) {
                Ok(regex) => entries.push(PatternEntry {
                    backend: backend.into(),
                    regex_any_case: (!anchored)
                        .then(|| {
                            regex::RegexBuilder::new(&pattern)
                                .case_insensitive(true)
                                .build()
                                .ok()
                        })
                        .flatten(),
                    regex,
                    origin: format!("{}:{line_no}", path.display()),
                }),
                Err(e) => {
                    let msg = e.to_string();
                    let last = msg.lines().last().unwrap_or("").trim().to_string();
                    diags.push(err(format!("bad regex `{re}`: {last}")));
                }
            }
        }
        diags
    }

    pub fn load(path: &Path) -> Result<Patterns, Vec<Diagnostic>> {
        let text = conform_io::input::read_text(path).map_err(|d| vec![d])?;
        Patterns::parse(path, &text)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first entry that names `case` on `backend`.
    pub fn find(&self, backend: &str, case: &str) -> Option<&PatternEntry> {
        self.entries.iter().find(|e| e.matches(backend, case))
    }
}

/// The gating inputs as given: file names and texts, so a report can be rebuilt later with
/// exactly the same classification (`gating.json` in the run directory).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GateSpec {
    /// The `--baseline` files, in the order given (a gating.json from before repeatable
    /// options holds one file or none: both read back).
    #[serde(default, deserialize_with = "one_or_many")]
    pub baseline: Vec<GateFile>,
    /// The `--flakes` files.
    #[serde(default, deserialize_with = "one_or_many")]
    pub flakes: Vec<GateFile>,
    #[serde(default)]
    pub strict: bool,
    /// How results.csv and written baselines name tests (`--test-names`).
    #[serde(default)]
    pub test_names: TestNames,
}

/// A list of files, or the single file (or null) older gating.json files hold.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<GateFile>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<GateFile>),
        One(Option<GateFile>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::Many(v) => v,
        OneOrMany::One(one) => one.into_iter().collect(),
    })
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateFile {
    pub path: String,
    pub text: String,
}

impl GateFile {
    pub fn read(path: &Path) -> Result<GateFile, Vec<Diagnostic>> {
        Ok(GateFile {
            path: path.display().to_string(),
            text: conform_io::input::read_text(path).map_err(|d| vec![d])?,
        })
    }
}

/// The parsed gate.
#[derive(Clone, Debug, Default)]
pub struct Gate {
    pub baseline: Baseline,
    pub flakes: Patterns,
    pub strict: bool,
    pub test_names: TestNames,
}

impl Gate {
    pub fn from_spec(spec: &GateSpec) -> Result<Gate, Vec<Diagnostic>> {
        let mut diags = Vec::new();
        let mut baseline = Baseline::default();
        for f in &spec.baseline {
            diags.extend(baseline.add(Path::new(&f.path), &f.text));
        }
        let mut flakes = Patterns::default();
        for f in &spec.flakes {
            diags.extend(flakes.add(Path::new(&f.path), &f.text));
        }
        let gate = Gate {
            baseline,
            flakes,
            strict: spec.strict,
            test_names: spec.test_names,
        };
        clean(gate, diags)
    }

    /// The class of one result, with a one-line reason for the non-obvious ones.
    pub fn classify(&self, r: &CaseResult) -> (Class, String) {
        match r.status {
            Status::Invalid => return (Class::Invalid, String::new()),
            // A failure the baseline knows that is now skipped is reported (deqp-runner's
            // `UnexpectedImprovement(Skip)`): the driver may have lost what the case needs.
            Status::Skip => {
                return match self.baseline.find(&r.backend, &r.case) {
                    Some(e) if e.expected != Expected::Flaky => (
                        Class::UnexpectedImprovement,
                        format!(
                            "the baseline ({}) expects {}, the case was skipped",
                            e.origin,
                            e.expected.name()
                        ),
                    ),
                    _ => (Class::Skip, String::new()),
                }
            }
            _ => {}
        }
        let failed_before = r.attempts.iter().any(|a| a.status != Status::Pass);
        let failing = r.is_failure();
        if let Some(f) = self.flakes.find(&r.backend, &r.case) {
            if failing || failed_before {
                return (
                    Class::KnownFlake,
                    format!("listed as flaky at {} (`{}`)", f.origin, f.regex.as_str()),
                );
            }
        }
        let known = self.baseline.find(&r.backend, &r.case);
        if let Some(e) = known.filter(|e| e.expected == Expected::Flaky) {
            if failing || failed_before {
                return (
                    Class::KnownFlake,
                    format!("listed as flaky in the baseline ({})", e.origin),
                );
            }
            return (Class::Pass, String::new());
        }
        if failing {
            return match known.map(|e| (e, e.knows(r.status))) {
                Some((e, Known::Expected)) => {
                    (Class::ExpectedFail, format!("known failure ({})", e.origin))
                }
                Some((e, Known::Improved)) => (
                    Class::UnexpectedImprovement,
                    format!(
                        "the baseline ({}) expects {}, this run got fail",
                        e.origin,
                        e.expected.name()
                    ),
                ),
                Some((e, Known::No)) => (
                    Class::Regression,
                    format!(
                        "the baseline ({}) expects {}, this run got {}",
                        e.origin,
                        e.expected.name(),
                        r.status.name()
                    ),
                ),
                None if r.attempts.is_empty() => (Class::Regression, String::new()),
                None => (
                    Class::Regression,
                    format!("failed all {} attempts", r.attempts.len() + 1),
                ),
            };
        }
        if failed_before {
            let first = r
                .attempts
                .iter()
                .position(|a| a.status != Status::Pass)
                .unwrap_or(0);
            return (
                Class::Flake,
                format!(
                    "{} on attempt {}, passed on attempt {}",
                    r.attempts[first].status.name(),
                    first + 1,
                    r.attempts.len() + 1
                ),
            );
        }
        match known {
            Some(e) => (
                Class::UnexpectedImprovement,
                format!(
                    "the baseline ({}) expects {}; remove the entry",
                    e.origin,
                    e.expected.name()
                ),
            ),
            None => (Class::Pass, String::new()),
        }
    }

    pub fn apply(&self, results: Vec<CaseResult>) -> Gated {
        let classes = results.iter().map(|r| self.classify(r)).collect();
        Gated {
            results,
            classes,
            strict: self.strict,
            gaps: vec![],
            identities: BTreeMap::new(),
            test_names: self.test_names,
        }
    }
}

/// Results with their classes: what every report is made from.
#[derive(Clone, Debug)]
pub struct Gated {
    pub results: Vec<CaseResult>,
    /// One per result: class and reason.
    pub classes: Vec<(Class, String)>,
    pub strict: bool,
    /// Why the run is incomplete (`record::gaps`); empty when it is complete.
    pub gaps: Vec<String>,
    /// Which build each backend was, from the run record (empty for runs from before
    /// identities).
    pub identities: BTreeMap<String, conform_judge::identity::BackendIdentity>,
    /// How deqp-runner's files name each result.
    pub test_names: TestNames,
}

impl Gated {
    pub fn iter(&self) -> impl Iterator<Item = (&CaseResult, Class, &str)> {
        self.results
            .iter()
            .zip(&self.classes)
            .map(|(r, (c, why))| (r, *c, why.as_str()))
    }

    pub fn count(&self, class: Class) -> usize {
        self.classes.iter().filter(|(c, _)| *c == class).count()
    }

    /// Counts per backend and class.
    pub fn tally(&self) -> BTreeMap<String, BTreeMap<Class, usize>> {
        let mut t: BTreeMap<String, BTreeMap<Class, usize>> = BTreeMap::new();
        for (r, c, _) in self.iter() {
            *t.entry(r.backend.clone())
                .or_default()
                .entry(c)
                .or_default() += 1;
        }
        t
    }

    /// [`EXIT_REGRESSION`] on regressions (and unexpected improvements with `strict`), else
    /// [`EXIT_INCOMPLETE`] when the run has gaps, else [`EXIT_INVALID`] on invalid cases, else
    /// [`EXIT_PASSED`].
    pub fn exit_code(&self) -> u8 {
        if self.classes.iter().any(|(c, _)| c.blocks(self.strict)) {
            EXIT_REGRESSION
        } else if !self.gaps.is_empty() {
            EXIT_INCOMPLETE
        } else if self.count(Class::Invalid) > 0 {
            EXIT_INVALID
        } else {
            EXIT_PASSED
        }
    }

    /// The results that block the run, for the end of the terminal output.
    pub fn blocking(&self) -> Vec<(&CaseResult, Class, &str)> {
        self.iter()
            .filter(|(_, c, _)| c.blocks(self.strict))
            .collect()
    }

    /// A baseline listing every failure of this run that is not a flake, sorted: in
    /// deqp-runner's `name,Status` form (what `deqp-runner run --baseline` reads, and conform
    /// too), or conform's `backend,case,status` form.
    pub fn baseline_text(&self, generated_from: &str, format: BaselineFormat) -> String {
        let mut lines: Vec<String> = self
            .iter()
            .filter(|(r, c, _)| {
                r.is_failure()
                    && matches!(
                        c,
                        Class::Regression | Class::ExpectedFail | Class::UnexpectedImprovement
                    )
            })
            .map(|(r, _, _)| match format {
                BaselineFormat::Deqp => format!(
                    "{},{}",
                    self.test_names.name(&r.backend, &r.case),
                    crate::deqp::raw_status(r.status).name()
                ),
                BaselineFormat::Conform => {
                    format!("{},{},{}", r.backend, r.case, r.status.name())
                }
            })
            .collect();
        lines.sort();
        lines.dedup();
        let mut out = match format {
            BaselineFormat::Deqp => format!(
                "# conform baseline: known failures, one `{},Status` per line (deqp-runner's\n\
                 # form: Fail, Crash or Timeout). Written from {generated_from}.\n",
                match self.test_names {
                    TestNames::Conform => "backend/case",
                    TestNames::PiglitRunner => "test",
                }
            ),
            BaselineFormat::Conform => format!(
                "# conform baseline: known failures, one `backend,case,status` per line\n\
                 # (status: fail, crash, timeout or any; backend may be *). Written from {generated_from}.\n"
            ),
        };
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_judge::results::Attempt;
    use conform_judge::testing::result;

    fn attempt(status: Status) -> Attempt {
        Attempt {
            status,
            message: String::new(),
            duration_ms: 1,
        }
    }

    fn gate(baseline: &str, flakes: &str) -> Gate {
        Gate {
            baseline: Baseline::parse(Path::new("baseline.txt"), baseline).unwrap(),
            flakes: Patterns::parse(Path::new("flakes.txt"), flakes).unwrap(),
            strict: false,
            test_names: TestNames::Conform,
        }
    }

    fn file(path: &str, text: &str) -> GateFile {
        GateFile {
            path: path.into(),
            text: text.into(),
        }
    }

    /// A baseline line naming an install the run has under another name is pointed out.
    #[test]
    fn an_old_install_name_in_a_baseline_is_pointed_out() {
        let b = Baseline::parse(
            Path::new("mesa-25.txt"),
            "llvmpipe@mesa-25,x/a,fail\nllvmpipe@mesa-25,x/b,fail\nzink@25.0.7,x/a,fail\nllvmpipe@other/x/c,Fail\n",
        )
        .unwrap();
        let w = b.stale_install_names(&["llvmpipe@25.0.7", "zink@25.0.7", "reference"]);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("mesa-25.txt:1: `llvmpipe@mesa-25` is no backend of this run, which has llvmpipe@25.0.7"), "{}", w[0]);
        assert!(
            w[1].starts_with("mesa-25.txt:4: `llvmpipe@other`"),
            "{}",
            w[1]
        );
        assert!(b
            .stale_install_names(&["llvmpipe@mesa-25", "llvmpipe@other", "zink@25.0.7"])
            .is_empty());
    }

    /// One baseline per driver build, given together: each applies to its own backends.
    #[test]
    fn several_baselines_and_flakes_files_apply_together() {
        let spec = GateSpec {
            baseline: vec![
                file("mesa-22.txt", "llvmpipe,x/a,fail\n"),
                file("mesa-25.txt", "llvmpipe@mesa-25,x/b,crash\n"),
            ],
            flakes: vec![
                file("f1.txt", "llvmpipe,x/c\n"),
                file("f2.txt", "llvmpipe@mesa-25.0,x/d\n"),
            ],
            ..GateSpec::default()
        };
        let g = Gate::from_spec(&spec).unwrap();
        assert_eq!(g.baseline.len(), 2);
        let gated = g.apply(vec![
            result("x/a", "llvmpipe", Status::Fail),
            result("x/b", "llvmpipe@mesa-25", Status::Crash),
            result("x/a", "llvmpipe@mesa-25", Status::Fail),
            result("x/c", "llvmpipe", Status::Fail),
            result("x/d", "llvmpipe@mesa-25.0", Status::Fail),
        ]);
        let classes: Vec<Class> = gated.classes.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            classes,
            [
                Class::ExpectedFail,
                Class::ExpectedFail,
                Class::Regression,
                Class::KnownFlake,
                Class::KnownFlake
            ]
        );
        // The same test in two files is an error naming both places.
        let twice = GateSpec {
            baseline: vec![
                file("a.txt", "llvmpipe,x/a,fail\n"),
                file("b.txt", "# b\nllvmpipe,x/a,crash\n"),
            ],
            ..GateSpec::default()
        };
        let diags = Gate::from_spec(&twice).unwrap_err();
        assert_eq!(diags.len(), 1);
        let d = diags[0].to_string();
        assert!(d.starts_with("b.txt:2"), "{d}");
        assert!(d.contains("already listed at a.txt:1"), "{d}");
    }

    /// gating.json from before repeatable options held one file or null per kind.
    #[test]
    fn an_older_gating_json_reads_back() {
        let old = r#"{"baseline": {"path": "b.txt", "text": "llvmpipe,x/a,fail\n"}, "flakes": null, "strict": true}"#;
        let spec: GateSpec = serde_json::from_str(old).unwrap();
        assert_eq!(spec.baseline, vec![file("b.txt", "llvmpipe,x/a,fail\n")]);
        assert!(spec.flakes.is_empty());
        assert!(spec.strict);
        let new = serde_json::to_string(&spec).unwrap();
        assert_eq!(serde_json::from_str::<GateSpec>(&new).unwrap(), spec);
    }

    /// Bare skips and flakes lines read as deqp-runner 0.24 reads them (`parse_regex_set`).
    #[test]
    fn bare_pattern_lines_follow_deqp_runner() {
        let p = Patterns::parse(
            Path::new("skips.txt"),
            "  dEQP-GLES2.functional.a  \nspec@arb_.*@execution@x\n",
        )
        .unwrap();
        // A plain name: its dots are literal, found anywhere in the name.
        assert!(p.find("llvmpipe", "dEQP-GLES2.functional.a").is_some());
        assert!(p.find("llvmpipe", "dEQP-GLES2xfunctional.a").is_none());
        assert!(p.find("llvmpipe", "dEQP-GLES2.functional.abc").is_some());
        // A regex stays one.
        assert!(p
            .find("llvmpipe", "spec@arb_compute_shader@execution@x")
            .is_some());
    }

    /// A file of the wrong kind is an error naming the file and line.
    #[test]
    fn files_of_the_wrong_kind_are_refused_naming_the_line() {
        let d = Patterns::parse(Path::new("fails.txt"), "# x\nspec@a@b,Fail\n").unwrap_err();
        let d = d[0].to_string();
        assert!(d.starts_with("fails.txt:2"), "{d}");
        assert!(d.contains("ends in a result status"), "{d}");
        let d = Patterns::parse(Path::new("b.txt"), "llvmpipe,x/a,fail\n").unwrap_err();
        assert!(
            d[0].to_string().contains("give the file as --baseline"),
            "{}",
            d[0]
        );
        let d = Baseline::parse(Path::new("skips.txt"), "\nspec@arb_.*\n").unwrap_err();
        let d = d[0].to_string();
        assert!(d.starts_with("skips.txt:2"), "{d}");
        assert!(d.contains("looks like a regex"), "{d}");
        let d = Baseline::parse(Path::new("flakes.txt"), "llvmpipe,x/[ab]\n").unwrap_err();
        assert!(d[0].to_string().contains("--skips or --flakes"), "{}", d[0]);
    }

    /// Mesa's expectation files for piglit-runner apply to imported piglit tests unchanged.
    #[test]
    fn mesa_piglit_expectations_apply_to_imported_tests() {
        let b = Baseline::parse(
            Path::new("llvmpipe-fails.txt"),
            "spec@intel_shader_atomic_float_minmax@execution@shared-atomiccompswap-float,Fail\n",
        )
        .unwrap();
        let case = "piglit/intel_shader_atomic_float_minmax/execution/shared-atomicCompSwap-float";
        let e = b
            .find("llvmpipe", case)
            .expect("found by piglit-runner's name");
        assert_eq!(e.expected, Expected::Status(Status::Fail));
        assert!(b
            .find("llvmpipe", "intel_shader_atomic_float_minmax/x")
            .is_none());
        let skips = Patterns::parse(
            Path::new("llvmpipe-skips.txt"),
            "spec@arb_compute_shader@execution@.*-LONG\n",
        )
        .unwrap();
        assert!(skips
            .find(
                "llvmpipe",
                "piglit/arb_compute_shader/execution/shared-long--2"
            )
            .is_some());
        assert!(skips
            .find("llvmpipe", "arb_compute_shader/execution/shared-long")
            .is_none());
    }

    #[test]
    fn a_backend_field_may_name_a_mesa_install() {
        assert!(is_backend_field("llvmpipe@mesa-25"));
        assert!(is_backend_field("zink@mesa-25.0.7"));
        assert!(is_backend_field("egl:renderD128"));
        assert!(!is_backend_field("dEQP-GLES2.a"));
        assert!(!is_backend_field("llvmpipe@"));
        assert!(!is_backend_field("x{1"));
    }

    #[test]
    fn planted_regression_blocks_and_is_named() {
        let g = gate("llvmpipe,x/known,fail\n", "");
        let gated = g.apply(vec![
            result("x/known", "llvmpipe", Status::Fail),
            result("x/new", "llvmpipe", Status::Fail),
            result("x/ok", "llvmpipe", Status::Pass),
        ]);
        assert_eq!(gated.exit_code(), 1);
        let blocking: Vec<&str> = gated
            .blocking()
            .iter()
            .map(|(r, _, _)| r.case.as_str())
            .collect();
        assert_eq!(blocking, ["x/new"]);
        assert_eq!(gated.classes[0].0, Class::ExpectedFail);
        assert_eq!(gated.classes[0].1, "known failure (baseline.txt:1)");
    }

    #[test]
    fn failure_listed_in_baseline_exits_zero() {
        let g = gate(
            "# known\nllvmpipe, x/a, fail  # since 2026-11\n*,x/b,any\n",
            "",
        );
        let gated = g.apply(vec![
            result("x/a", "llvmpipe", Status::Fail),
            result("x/b", "zink", Status::Crash),
            result("x/b", "llvmpipe", Status::Timeout),
        ]);
        assert!(
            gated.classes.iter().all(|(c, _)| *c == Class::ExpectedFail),
            "{:?}",
            gated.classes
        );
        assert_eq!(gated.exit_code(), 0);
    }

    #[test]
    fn failing_differently_from_the_baseline_is_a_regression() {
        let g = gate("llvmpipe,x/a,fail\n", "");
        let gated = g.apply(vec![result("x/a", "llvmpipe", Status::Crash)]);
        assert_eq!(gated.classes[0].0, Class::Regression);
        assert_eq!(
            gated.classes[0].1,
            "the baseline (baseline.txt:1) expects fail, this run got crash"
        );
        // The entry is per backend: the same case on another backend is not covered.
        let gated = g.apply(vec![result("x/a", "zink", Status::Fail)]);
        assert_eq!(gated.classes[0].0, Class::Regression);
    }

    #[test]
    fn fails_once_then_passes_is_a_flake() {
        let g = gate("", "");
        let mut r = result("x/a", "llvmpipe", Status::Pass);
        r.attempts = vec![attempt(Status::Timeout)];
        let mut always = result("x/b", "llvmpipe", Status::Fail);
        always.attempts = vec![attempt(Status::Fail), attempt(Status::Fail)];
        let gated = g.apply(vec![r, always]);
        assert_eq!(
            gated.classes[0],
            (
                Class::Flake,
                "timeout on attempt 1, passed on attempt 2".into()
            )
        );
        assert_eq!(
            gated.classes[1],
            (Class::Regression, "failed all 3 attempts".into())
        );
        assert_eq!(gated.exit_code(), 1);
    }

    #[test]
    fn known_flakes_and_unexpected_passes() {
        let mut g = gate(
            "llvmpipe,x/fixed,fail\n",
            "zink,x/shuffle-.*\n*,y/.*-racy\n",
        );
        let gated = g.apply(vec![
            result("x/shuffle-w32", "zink", Status::Fail),
            result("x/shuffle-w32", "llvmpipe", Status::Fail),
            result("y/a-racy", "softpipe", Status::Timeout),
            result("y/a-racy-not", "softpipe", Status::Timeout),
            result("x/fixed", "llvmpipe", Status::Pass),
        ]);
        let classes: Vec<Class> = gated.classes.iter().map(|c| c.0).collect();
        assert_eq!(
            classes,
            [
                Class::KnownFlake,
                Class::Regression,
                Class::KnownFlake,
                Class::Regression,
                Class::UnexpectedImprovement
            ]
        );
        assert_eq!(
            gated.classes[0].1,
            "listed as flaky at flakes.txt:1 (`^(?:x/shuffle-.*)$`)"
        );
        g.strict = true;
        let gated = g.apply(vec![result("x/fixed", "llvmpipe", Status::Pass)]);
        assert_eq!(gated.exit_code(), 1);
        g.strict = false;
        let gated = g.apply(vec![result("x/fixed", "llvmpipe", Status::Pass)]);
        assert_eq!(gated.exit_code(), 0);
    }

    #[test]
    fn invalid_exits_two_skips_and_allowed_failures_do_not_block() {
        let g = gate("", "");
        let mut allowed = result("x/ub", "llvmpipe", Status::Timeout);
        allowed.allowed = true;
        let gated = g.apply(vec![
            result("x/a", "llvmpipe", Status::Skip),
            allowed,
            result("x/bad", "loader", Status::Invalid),
        ]);
        let classes: Vec<Class> = gated.classes.iter().map(|c| c.0).collect();
        assert_eq!(classes, [Class::Skip, Class::Pass, Class::Invalid]);
        assert_eq!(gated.exit_code(), 2);
    }

    #[test]
    fn an_incomplete_run_is_not_passed_and_is_told_apart_from_a_regression() {
        let g = gate("", "");
        let mut gated = g.apply(vec![result("x/a", "llvmpipe", Status::Pass)]);
        assert_eq!(gated.exit_code(), EXIT_PASSED);
        gated.gaps = vec!["the run was killed".into()];
        assert_eq!(gated.exit_code(), EXIT_INCOMPLETE);
        let mut gated = g.apply(vec![result("x/a", "llvmpipe", Status::Fail)]);
        gated.gaps = vec!["the run was killed".into()];
        assert_eq!(gated.exit_code(), EXIT_REGRESSION);
        let mut gated = g.apply(vec![]);
        gated.gaps = vec!["nothing was selected".into()];
        assert_eq!(gated.exit_code(), EXIT_INCOMPLETE);
    }

    #[test]
    fn malformed_lines_are_located() {
        let err = Baseline::parse(
            Path::new("b.txt"),
            "# header\nllvmpipe,x/a\nllvmpipe,x/b,broken\nllvmpipe,x/c,fail\nllvmpipe,x/c,crash\n,x/d,fail\n",
        )
        .unwrap_err();
        let msgs: Vec<String> = err.iter().map(ToString::to_string).collect();
        assert_eq!(
            msgs,
            [
                "b.txt:2: unknown status `x/a`: read as deqp-runner's `name,Status[,seconds]` (statuses Pass, Fail, Crash, Timeout, Skip, Flake, KnownFlake, ExpectedFail, UnexpectedImprovement(Pass), Missing, Warn); conform's own lines are `backend,case,status`",
                "b.txt:3: unknown status `broken` (expected fail, crash, timeout or any)",
                "b.txt:5: `llvmpipe,x/c` is already listed at b.txt:4",
                "b.txt:6: empty backend or case name",
            ]
        );
        let err = Patterns::parse(Path::new("f.txt"), "zink,(unclosed\n\nzink,\n").unwrap_err();
        let msgs: Vec<String> = err.iter().map(ToString::to_string).collect();
        assert_eq!(msgs.len(), 2);
        assert!(
            msgs[0].starts_with("f.txt:1: bad regex `(unclosed`: "),
            "{}",
            msgs[0]
        );
        assert!(
            msgs[1].starts_with("f.txt:3: backend `zink` without a regex"),
            "{}",
            msgs[1]
        );
    }

    /// deqp-runner baselines: `name,Status` lines in any case, a previous failures.csv with
    /// durations, names with or without the backend, Flake lines as known flakes, and lines
    /// that expect no failure ignored; beside conform's own lines in one file.
    #[test]
    fn deqp_runner_baseline_lines_gate_like_conform_lines() {
        let g = gate(
            "# Mesa CI style\nx/a,Fail\nllvmpipe/x/b,crash,0.250\nx/c,Flake\nx/d,UnexpectedImprovement(Pass),0.1\nx/e,Missing,0\nzink,x/f,FAIL\n",
            "",
        );
        let gated = g.apply(vec![
            result("x/a", "softpipe", Status::Fail),
            result("x/b", "llvmpipe", Status::Crash),
            result("x/b", "zink", Status::Crash),
            result("x/c", "llvmpipe", Status::Timeout),
            result("x/c", "zink", Status::Pass),
            result("x/d", "llvmpipe", Status::Fail),
            result("x/e", "llvmpipe", Status::Pass),
            result("x/f", "zink", Status::Fail),
        ]);
        let classes: Vec<Class> = gated.classes.iter().map(|c| c.0).collect();
        assert_eq!(
            classes,
            [
                Class::ExpectedFail,
                Class::ExpectedFail,
                Class::Regression,
                Class::KnownFlake,
                Class::Pass,
                Class::Regression,
                Class::Pass,
                Class::ExpectedFail,
            ]
        );
        assert_eq!(gated.classes[1].1, "known failure (baseline.txt:3)");
        assert_eq!(
            gated.classes[3].1,
            "listed as flaky in the baseline (baseline.txt:4)"
        );
    }

    /// deqp-runner's skips and flakes files: one bare regex per line, found anywhere in the
    /// name (unanchored, as deqp-runner matches), beside conform's anchored `backend,regex`.
    #[test]
    fn bare_regex_lines_match_anywhere_in_the_name() {
        let p = Patterns::parse(
            Path::new("skips.txt"),
            "# deqp-runner style\natoms-iwrap\n^zink/.*shuffle\nx{1,3}y\nllvmpipe,nv/exact\n",
        )
        .unwrap();
        assert!(p.find("llvmpipe", "nv/atoms-iwrap-edges").is_some());
        assert!(p.find("zink", "nv/shuffle-up").is_some());
        assert!(p.find("llvmpipe", "nv/shuffle-up").is_none());
        assert_eq!(
            p.find("softpipe", "q/xxy").map(|e| e.origin.as_str()),
            Some("skips.txt:4")
        );
        assert!(p.find("llvmpipe", "nv/exact").is_some());
        assert!(p.find("llvmpipe", "nv/exact-not").is_none());
        assert!(p.find("zink", "nv/exact").is_none());
    }

    #[test]
    fn written_baseline_reads_back_and_gates_the_same_run_to_zero() {
        let results = vec![
            result("x/b", "zink", Status::Crash),
            result("x/a", "llvmpipe", Status::Fail),
            result("x/ok", "llvmpipe", Status::Pass),
            result("x/s", "llvmpipe", Status::Skip),
        ];
        let gated = Gate::default().apply(results.clone());
        assert_eq!(gated.exit_code(), 1);
        let deqp = gated.baseline_text("test", BaselineFormat::Deqp);
        assert!(
            deqp.ends_with("llvmpipe/x/a,Fail\nzink/x/b,Crash\n"),
            "{deqp}"
        );
        let conform = gated.baseline_text("test", BaselineFormat::Conform);
        assert!(
            conform.ends_with("llvmpipe,x/a,fail\nzink,x/b,crash\n"),
            "{conform}"
        );
        for text in [deqp, conform] {
            let g = Gate {
                baseline: Baseline::parse(Path::new("new.txt"), &text).unwrap(),
                ..Gate::default()
            };
            assert_eq!(g.baseline.len(), 2);
            assert_eq!(g.apply(results.clone()).exit_code(), 0);
        }
    }
}
