//! What an import did, per test and in total: the text `conform import piglit` prints and
//! the `import-summary.json` it writes.

use super::outcome::Run;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// How far a test converted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every run became a case, nothing left out.
    Converted,
    /// Every run converted but something that cannot change the verdict was left out, or a
    /// SPIRV YES test converted in one mode and not the other.
    Partly,
    /// No run could be expressed.
    Skipped,
    /// The file is malformed (shader_runner would fail it while reading) or unreadable.
    Error,
}

/// One run (GLSL / SPIR-V) of a test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    pub mode: &'static str,
    pub case: String,
    /// Whether the case was written.
    pub converted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One test file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestReport {
    pub path: String,
    pub status: Status,
    /// The skip class or error (what the totals count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Specifics: the skip's line and command, or `file:line: message` diagnostics.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The cases written.
    pub cases: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<RunReport>,
}

impl TestReport {
    /// The report of a test that parsed, from its runs (`cases` are those written).
    pub fn from_runs(path: String, runs: &[Run]) -> Self {
        let mut report = TestReport {
            path,
            status: Status::Converted,
            reason: None,
            details: Vec::new(),
            left_out: Vec::new(),
            notes: Vec::new(),
            cases: Vec::new(),
            runs: Vec::new(),
        };
        let mut skips = Vec::new();
        for run in runs {
            match &run.result {
                Ok(c) => {
                    report.cases.push(run.name.clone());
                    report.left_out.extend(c.left_out.iter().cloned());
                    report.notes.extend(c.notes.iter().cloned());
                }
                Err(skip) => skips.push((run.mode.name(), skip)),
            }
            if runs.len() > 1 {
                report.runs.push(RunReport {
                    mode: run.mode.name(),
                    case: run.name.clone(),
                    converted: run.result.is_ok(),
                    reason: run.result.as_ref().err().map(|s| s.describe()),
                });
            }
        }
        report.left_out.dedup();
        report.notes.dedup();
        report.status = match (skips.len(), runs.len()) {
            (0, _) if report.left_out.is_empty() => Status::Converted,
            (0, _) => Status::Partly,
            (s, r) if s == r => Status::Skipped,
            _ => Status::Partly,
        };
        if let Some((mode, first)) = skips.first() {
            report.reason = Some(if report.status == Status::Skipped {
                first.kind.clone()
            } else {
                format!("{mode} run skipped: {}", first.kind)
            });
            report.details = skips
                .iter()
                .map(|(mode, s)| {
                    if runs.len() > 1 {
                        format!("{mode}: {}", s.describe())
                    } else {
                        s.describe()
                    }
                })
                .collect();
        }
        report
    }

    /// The report of a malformed or unreadable file.
    pub fn error(path: String, reason: &str, details: Vec<String>) -> Self {
        TestReport {
            path,
            status: Status::Error,
            reason: Some(reason.to_string()),
            details,
            left_out: Vec::new(),
            notes: Vec::new(),
            cases: Vec::new(),
            runs: Vec::new(),
        }
    }
}

/// The whole import.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// `.shader_test` files read.
    pub files: usize,
    /// Files without a compute shader section (skipped quietly).
    pub not_compute: usize,
    /// Paths given that could not be read (`path: why`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
    /// Every compute test, in the order found.
    pub tests: Vec<TestReport>,
}

/// Totals, for the text and the JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    pub files: usize,
    pub not_compute: usize,
    pub compute_tests: usize,
    pub converted: usize,
    pub partly: usize,
    pub skipped: usize,
    pub errors: usize,
    pub cases: usize,
    /// Skipped tests per reason, and partly converted tests per the run that was skipped.
    pub skipped_by_reason: BTreeMap<String, usize>,
}

impl Summary {
    pub fn totals(&self) -> Totals {
        let mut t = Totals {
            files: self.files,
            not_compute: self.not_compute,
            compute_tests: self.tests.len(),
            ..Totals::default()
        };
        for test in &self.tests {
            t.cases += test.cases.len();
            match test.status {
                Status::Converted => t.converted += 1,
                Status::Partly => t.partly += 1,
                Status::Skipped => {
                    t.skipped += 1;
                    if let Some(r) = &test.reason {
                        *t.skipped_by_reason.entry(r.clone()).or_default() += 1;
                    }
                }
                Status::Error => t.errors += 1,
            }
        }
        t
    }

    /// `import-summary.json`: the totals and every test.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Json<'a> {
            totals: Totals,
            #[serde(skip_serializing_if = "<[String]>::is_empty")]
            unreadable: &'a [String],
            tests: &'a [TestReport],
        }
        let json = Json {
            totals: self.totals(),
            unreadable: &self.unreadable,
            tests: &self.tests,
        };
        serde_json::to_string_pretty(&json).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
            + "\n"
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.totals();
        writeln!(
            f,
            "piglit import: {} .shader_test files, {} compute tests ({} others are not compute tests)",
            t.files, t.compute_tests, t.not_compute
        )?;
        writeln!(f, "  converted fully: {:>5}", t.converted)?;
        writeln!(f, "  converted partly:{:>5}", t.partly)?;
        for test in self.tests.iter().filter(|x| x.status == Status::Partly) {
            writeln!(f, "      {}", test.path)?;
            for what in test.left_out.iter().chain(&test.details) {
                writeln!(f, "        {what}")?;
            }
        }
        writeln!(f, "  skipped:         {:>5}", t.skipped)?;
        let mut reasons: Vec<(&String, &usize)> = t.skipped_by_reason.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (reason, n) in reasons {
            writeln!(f, "    {n:>5}  {reason}")?;
        }
        writeln!(f, "  errors:          {:>5}", t.errors)?;
        for test in self.tests.iter().filter(|x| x.status == Status::Error) {
            for d in &test.details {
                writeln!(f, "    {d}")?;
            }
        }
        for u in &self.unreadable {
            writeln!(f, "  unreadable: {u}")?;
        }
        writeln!(f, "  cases written:   {:>5}", t.cases)
    }
}
