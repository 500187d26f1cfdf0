//! deqp-runner's conventions, read and written, so a CI job built around deqp-runner (Mesa's
//! GitLab CI) runs conform the same way: `results.csv` and `failures.csv` in every run
//! directory, deqp-runner's status names, `name,Status` baselines (a previous run's
//! `failures.csv` included), and `conform junit` from a `results.csv` (docs/CI.md has the
//! migration table).
//!
//! A deqp-runner test is one name; a conform result is a case on a backend, so its deqp name
//! is `backend/case` ([`test_name`]): backend names never hold a `/`, so the first `/` splits
//! it back. Lines are `name,Status,seconds` with no header, sorted by name, never quoted:
//! deqp-runner splits at the first comma (names that would break that are refused at load,
//! [`field`]); quoted fields of older files still read back.
//! The CSV is parsed by hand, line by line, because every file conform reads reports
//! problems as `file:line: message` and allows `#` comments, which a record-oriented CSV
//! reader does not give.

use conform_io::diag::Diagnostic;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// The file with every result of a run, deqp-runner's form.
pub const RESULTS_CSV: &str = "results.csv";
/// The results a person must look at (regressions, crashes, timeouts, unexpected improvements, missing: what deqp-runner counts as failing), in
/// the same form; usable as the next run's `--baseline`.
pub const FAILURES_CSV: &str = "failures.csv";
/// The failures and the expected failures: the baseline as this run would have it.
pub const FAILURES_ALL_CSV: &str = "failures-all.csv";

/// deqp-runner's status of a result (its `RunnerStatus`), as it spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeqpStatus {
    Pass,
    Fail,
    Crash,
    Timeout,
    Skip,
    /// Failed, then passed on a retry.
    Flake,
    /// Failed, and the flakes list (or a baseline's `Flake` line) names it.
    KnownFlake,
    /// Failed as the baseline says.
    ExpectedFail,
    /// Did better than the baseline says: passed, skipped, or failed where a crash or a
    /// timeout was known (deqp-runner's `UnexpectedImprovement(<what it did>)`).
    UnexpectedImprovement(Improved),
    /// Selected, but never ran (the run was interrupted or killed).
    Missing,
    /// deqp's quality or compatibility warning: read from baselines, never written.
    Warn,
}

/// What a test did when it did better than its baseline: deqp-runner's `TestStatus`, the
/// inner status of `UnexpectedImprovement(...)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Improved {
    Pass,
    Fail,
    Warn,
    Skip,
    Crash,
    Timeout,
}

impl Improved {
    pub const ALL: [Improved; 6] = [
        Improved::Pass,
        Improved::Fail,
        Improved::Warn,
        Improved::Skip,
        Improved::Crash,
        Improved::Timeout,
    ];

    /// What a conform result did, as deqp-runner's test status.
    pub fn of(s: conform_judge::results::Status) -> Improved {
        use conform_judge::results::Status as S;
        match s {
            S::Pass | S::Flagged => Improved::Pass,
            S::Fail | S::Invalid => Improved::Fail,
            S::Skip => Improved::Skip,
            S::Crash => Improved::Crash,
            S::Timeout => Improved::Timeout,
        }
    }
}

impl DeqpStatus {
    /// Every status, in the order the end-of-run table shows them (one
    /// `UnexpectedImprovement`: the table counts them together).
    pub const ALL: [DeqpStatus; 11] = [
        DeqpStatus::Pass,
        DeqpStatus::Fail,
        DeqpStatus::Crash,
        DeqpStatus::Timeout,
        DeqpStatus::Skip,
        DeqpStatus::Flake,
        DeqpStatus::KnownFlake,
        DeqpStatus::ExpectedFail,
        DeqpStatus::UnexpectedImprovement(Improved::Pass),
        DeqpStatus::Missing,
        DeqpStatus::Warn,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DeqpStatus::Pass => "Pass",
            DeqpStatus::Fail => "Fail",
            DeqpStatus::Crash => "Crash",
            DeqpStatus::Timeout => "Timeout",
            DeqpStatus::Skip => "Skip",
            DeqpStatus::Flake => "Flake",
            DeqpStatus::KnownFlake => "KnownFlake",
            DeqpStatus::ExpectedFail => "ExpectedFail",
            DeqpStatus::UnexpectedImprovement(i) => match i {
                Improved::Pass => "UnexpectedImprovement(Pass)",
                Improved::Fail => "UnexpectedImprovement(Fail)",
                Improved::Warn => "UnexpectedImprovement(Warn)",
                Improved::Skip => "UnexpectedImprovement(Skip)",
                Improved::Crash => "UnexpectedImprovement(Crash)",
                Improved::Timeout => "UnexpectedImprovement(Timeout)",
            },
            DeqpStatus::Missing => "Missing",
            DeqpStatus::Warn => "Warn",
        }
    }

    /// Every status, each `UnexpectedImprovement(...)` included.
    pub fn every() -> impl Iterator<Item = DeqpStatus> {
        DeqpStatus::ALL
            .into_iter()
            .filter(|s| !matches!(s, DeqpStatus::UnexpectedImprovement(_)))
            .chain(Improved::ALL.map(DeqpStatus::UnexpectedImprovement))
    }

    /// Parses a status as deqp-runner writes it, in any case (conform reads leniently; it
    /// writes only deqp-runner's exact spellings); also conform's older `UnexpectedPass`.
    pub fn parse(s: &str) -> Option<DeqpStatus> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "unexpectedpass" {
            return Some(DeqpStatus::UnexpectedImprovement(Improved::Pass));
        }
        DeqpStatus::every().find(|d| d.name().eq_ignore_ascii_case(&lower))
    }

    /// Parses a status exactly as deqp-runner 0.24's `RunnerStatus::from_str` does: its
    /// spellings only, case and all. What every file conform writes must pass.
    pub fn parse_strict(s: &str) -> Option<DeqpStatus> {
        DeqpStatus::every().find(|d| d.name() == s)
    }

    /// The column of the end-of-run table that counts it.
    fn column(self) -> DeqpStatus {
        match self {
            DeqpStatus::UnexpectedImprovement(_) => {
                DeqpStatus::UnexpectedImprovement(Improved::Pass)
            }
            s => s,
        }
    }

    /// Whether deqp-runner counts it as a failure of the run (not `is_success`): what
    /// `failures.csv` lists. Flakes are successes to deqp-runner.
    pub fn in_failures(self) -> bool {
        matches!(
            self,
            DeqpStatus::Fail
                | DeqpStatus::Crash
                | DeqpStatus::Timeout
                | DeqpStatus::UnexpectedImprovement(_)
                | DeqpStatus::Missing
        )
    }

    /// What `failures-all.csv` lists: the failures and the expected failures (an updated
    /// baseline, as deqp-runner writes it).
    pub fn in_failures_all(self) -> bool {
        self.in_failures() || self == DeqpStatus::ExpectedFail
    }
}

impl fmt::Display for DeqpStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failing result's status as deqp-runner spells it, whatever its class (for a baseline).
pub fn raw_status(s: conform_judge::results::Status) -> DeqpStatus {
    use conform_judge::results::Status;
    match s {
        Status::Crash => DeqpStatus::Crash,
        Status::Timeout => DeqpStatus::Timeout,
        Status::Skip => DeqpStatus::Skip,
        Status::Pass | Status::Flagged => DeqpStatus::Pass,
        Status::Fail | Status::Invalid => DeqpStatus::Fail,
    }
}

/// The deqp-runner name of `case` on `backend`.
pub fn test_name(backend: &str, case: &str) -> String {
    format!("{backend}/{case}")
}

/// piglit-runner's name of a piglit test that `conform import piglit` converted, so that
/// Mesa's expectation files for piglit-runner (fails, flakes, skips) apply to an imported
/// run unchanged. The importer names a test under `tests/spec/` `piglit/<path without the
/// extension>`, and a file that holds several programs `...--N`; piglit names it
/// `spec@<dir>@...@<file stem>` (its groups joined with `@`), lower-cased as piglit's test
/// dictionaries store every name. `None` for cases that are not imported.
pub fn piglit_runner_name(case: &str) -> Option<String> {
    let rest = case.strip_prefix("piglit/")?;
    let rest = match rest.rsplit_once("--") {
        Some((stem, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => stem,
        _ => rest,
    };
    Some(format!("spec@{}", rest.replace('/', "@")).to_lowercase())
}

/// One line of a results.csv: name, status, seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    /// The backend that produced it (a results.csv read back: the name's part before its
    /// first `/`, else the whole name): the end-of-run table's row.
    pub backend: String,
    pub status: DeqpStatus,
    pub seconds: f64,
}

/// The files a run writes in deqp-runner's forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsvFile {
    /// `results.csv`: every result, `name,Status,seconds`.
    Results,
    /// `failures.csv`: what deqp-runner counts as failing, `name,Status` (the next run's
    /// `--baseline`, once reviewed).
    Failures,
    /// `failures-all.csv`: the failures and the expected failures, `name,Status`: the
    /// baseline updated with this run.
    FailuresAll,
}

impl CsvFile {
    pub const ALL: [CsvFile; 3] = [CsvFile::Results, CsvFile::Failures, CsvFile::FailuresAll];

    pub fn name(self) -> &'static str {
        match self {
            CsvFile::Results => RESULTS_CSV,
            CsvFile::Failures => FAILURES_CSV,
            CsvFile::FailuresAll => FAILURES_ALL_CSV,
        }
    }
}

/// `rows` as the text of `file`, lines as deqp-runner 0.24 writes them.
pub fn csv(rows: &[Row], file: CsvFile) -> String {
    let mut out = String::new();
    for r in rows.iter().filter(|r| match file {
        CsvFile::Results => true,
        CsvFile::Failures => r.status.in_failures(),
        CsvFile::FailuresAll => r.status.in_failures_all(),
    }) {
        out.push_str(&field(&r.name));
        out.push(',');
        out.push_str(r.status.name());
        if file == CsvFile::Results {
            out.push_str(&format!(",{:.3}", r.seconds));
        }
        out.push('\n');
    }
    out
}

/// Writes `results.csv`, `failures.csv` and `failures-all.csv` into `dir`; returns their
/// paths.
pub fn write(dir: &Path, rows: &[Row]) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut written = Vec::new();
    for file in CsvFile::ALL {
        let path = dir.join(file.name());
        std::fs::write(&path, csv(rows, file))?;
        written.push(path);
    }
    Ok(written)
}

/// The end-of-run table: one row per backend, one column per status, counted from the same
/// rows as results.csv (so the table and the file always agree), and a total.
pub fn table(rows: &[Row]) -> String {
    use std::collections::BTreeMap;
    use std::fmt::Write;
    // Warn is only ever read, never written.
    let columns: Vec<DeqpStatus> = DeqpStatus::ALL
        .into_iter()
        .filter(|s| *s != DeqpStatus::Warn)
        .collect();
    let header = |s: DeqpStatus| match s {
        DeqpStatus::UnexpectedImprovement(_) => "UnexpectedImprovement",
        s => s.name(),
    };
    let mut counts: BTreeMap<&str, BTreeMap<DeqpStatus, usize>> = BTreeMap::new();
    for r in rows {
        *counts
            .entry(r.backend.as_str())
            .or_default()
            .entry(r.status.column())
            .or_default() += 1;
    }
    // Wide enough for the longest backend name (`llvmpipe@mesa-25`), at least 12.
    let width = counts
        .keys()
        .map(|b| conform_io::escape::line(b).chars().count())
        .max()
        .unwrap_or(0)
        .max(12);
    let mut out = format!("{:<width$}", "backend");
    for c in &columns {
        let _ = write!(out, " {}", header(*c));
    }
    out.push_str(" total\n");
    for (backend, n) in &counts {
        let _ = write!(out, "{:<width$}", conform_io::escape::line(backend));
        for c in &columns {
            let v = n.get(c).copied().unwrap_or(0);
            let _ = write!(out, " {v:>w$}", w = header(*c).len());
        }
        let _ = writeln!(out, " {:>5}", n.values().sum::<usize>());
    }
    out
}

/// A test name as a field of deqp-runner's files, which split a line at its first comma and
/// skip lines that start with `#`, with no quoting; conform's own readers also end a line's
/// content at a `#` outside quotes (a baseline's `# note`). The loader refuses case names with a
/// comma, a double quote or a `#`, so only an invalid case's file name (or a backend's name) can
/// hold one: its commas become `-` (as piglit-runner sanitises piglit's names), double quotes
/// `'`, each `#` `_`, and control characters are shown as escapes, so every row stays one line
/// that deqp-runner and conform read back as written.
pub fn field(s: &str) -> Cow<'_, str> {
    let s = conform_io::escape::line(s);
    if s.contains([',', '"', '#']) {
        Cow::Owned(s.replace(',', "-").replace('"', "'").replace('#', "_"))
    } else {
        s
    }
}

/// The longest duration a results file may give a test: a year. A number from a file is
/// bounded before use: JUnit's `time` and every sum of durations stay far from overflow.
pub const MAX_SECONDS: f64 = 31_536_000.0;

/// Splits one CSV line into its fields (trimmed when unquoted); an error names what is wrong.
pub fn split_line(line: &str) -> Result<Vec<String>, String> {
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
            chars.next();
        }
        let mut f = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        f.push('"');
                    }
                    Some('"') => break,
                    Some(c) => f.push(c),
                    None => return Err("a quoted field is not closed".into()),
                }
            }
            while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
                chars.next();
            }
            match chars.next() {
                None => {
                    fields.push(f);
                    return Ok(fields);
                }
                Some(',') => fields.push(f),
                Some(c) => return Err(format!("`{c}` after a quoted field")),
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(f.trim().to_string());
                        return Ok(fields);
                    }
                    Some(',') => break,
                    Some(c) => f.push(c),
                }
            }
            fields.push(f.trim().to_string());
        }
    }
}

/// The content of a line of a list file: without a `#` comment, trimmed. A `#` inside a
/// quoted CSV field is not a comment.
pub fn content(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return line[..i].trim(),
            _ => {}
        }
    }
    line.trim()
}

/// Reads a deqp-runner results.csv (or failures.csv): every row, or every problem as
/// `file:line: message`.
pub fn read_results(path: &Path) -> Result<Vec<Row>, Vec<Diagnostic>> {
    let text = conform_io::input::read_text(path).map_err(|d| vec![d])?;
    parse_results(path, &text)
}

/// [`read_results`] on `text`.
pub fn parse_results(path: &Path, text: &str) -> Result<Vec<Row>, Vec<Diagnostic>> {
    let mut rows = Vec::new();
    let mut diags = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let c = content(line);
        if c.is_empty() {
            continue;
        }
        let err = |msg: String| Diagnostic::new(path, n + 1, 0, msg);
        let fields = match split_line(c) {
            Ok(f) => f,
            Err(e) => {
                diags.push(err(e));
                continue;
            }
        };
        if !(2..=3).contains(&fields.len()) {
            diags.push(err(format!(
                "expected `name,Status[,seconds]`, found {} field(s)",
                fields.len()
            )));
            continue;
        }
        let Some(status) = DeqpStatus::parse(&fields[1]) else {
            diags.push(err(format!(
                "unknown status `{}` (deqp-runner's: {})",
                fields[1],
                DeqpStatus::ALL.map(DeqpStatus::name).join(", ")
            )));
            continue;
        };
        let seconds = match fields.get(2) {
            None => 0.0,
            Some(s) => match s.parse::<f64>() {
                Ok(v) if (0.0..=MAX_SECONDS).contains(&v) => v,
                _ => {
                    diags.push(err(format!(
                        "`{s}` is not a duration in seconds (0 to {MAX_SECONDS})"
                    )));
                    continue;
                }
            },
        };
        rows.push(Row {
            backend: fields[0]
                .split_once('/')
                .map_or(fields[0].as_str(), |(b, _)| b)
                .to_string(),
            name: fields[0].clone(),
            status,
            seconds,
        });
    }
    if diags.is_empty() {
        Ok(rows)
    } else {
        Err(diags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_parse_in_any_case_and_keep_what_an_improvement_did() {
        for s in DeqpStatus::every() {
            assert_eq!(DeqpStatus::parse(s.name()), Some(s));
            assert_eq!(DeqpStatus::parse(&s.name().to_uppercase()), Some(s));
            assert_eq!(DeqpStatus::parse_strict(s.name()), Some(s));
        }
        assert_eq!(DeqpStatus::every().count(), 16);
        assert_eq!(DeqpStatus::parse("fail"), Some(DeqpStatus::Fail));
        // deqp-runner reads its own spellings only.
        assert_eq!(DeqpStatus::parse_strict("fail"), None);
        assert_eq!(DeqpStatus::parse_strict("UnexpectedPass"), None);
        assert_eq!(
            DeqpStatus::parse("UnexpectedPass"),
            Some(DeqpStatus::UnexpectedImprovement(Improved::Pass))
        );
        assert_eq!(
            DeqpStatus::parse("UnexpectedImprovement(Skip)"),
            Some(DeqpStatus::UnexpectedImprovement(Improved::Skip))
        );
        assert_eq!(DeqpStatus::parse("broken"), None);
    }

    #[test]
    fn imported_piglit_tests_have_piglit_runners_names() {
        assert_eq!(
            piglit_runner_name("piglit/arb_compute_shader/execution/basic-SSBO").as_deref(),
            Some("spec@arb_compute_shader@execution@basic-ssbo")
        );
        // A file that held several programs is one piglit test.
        assert_eq!(
            piglit_runner_name("piglit/glsl-4.30/compute/t--12").as_deref(),
            Some("spec@glsl-4.30@compute@t")
        );
        assert_eq!(
            piglit_runner_name("piglit/a/b--x").as_deref(),
            Some("spec@a@b--x")
        );
        assert_eq!(piglit_runner_name("arb_compute_shader/basic"), None);
    }

    #[test]
    fn fields_are_what_deqp_runner_reads_back_and_quoted_lines_still_split() {
        assert_eq!(field("x\ny"), "x\\ny");
        assert_eq!(field("plain/name"), "plain/name");
        assert_eq!(field("a,b"), "a-b");
        assert_eq!(field("say \"hi\""), "say 'hi'");
        assert_eq!(field("#hash"), "_hash");
        assert_eq!(field("a#b"), "a_b");
        // Files written by conform before (quoted fields) still read back.
        for (line, name) in [
            ("\"a,b\",Fail,0.001", "a,b"),
            ("\"say \"\"hi\"\"\",Fail,0.001", "say \"hi\""),
        ] {
            let back = split_line(line).unwrap();
            assert_eq!(back, [name, "Fail", "0.001"], "{line}");
        }
        assert_eq!(split_line(" a , Fail ").unwrap(), ["a", "Fail"]);
        assert!(split_line("\"open,Fail").is_err());
        assert!(split_line("\"a\"b,Fail").is_err());
        assert_eq!(content("a,Fail # note"), "a,Fail");
        assert_eq!(content("\"a#b\",Fail # note"), "\"a#b\",Fail");
    }

    #[test]
    fn bad_results_lines_are_located() {
        let e = parse_results(
            Path::new("r.csv"),
            "a,Pass,0.1\nb\nc,Nope\nd,Fail,soon\ne,Pass,1e300\nf,Pass,-1\n",
        )
        .unwrap_err();
        let msgs: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert_eq!(msgs.len(), 5, "{msgs:?}");
        assert_eq!(
            msgs[0],
            "r.csv:2: expected `name,Status[,seconds]`, found 1 field(s)"
        );
        assert!(
            msgs[1].starts_with("r.csv:3: unknown status `Nope`"),
            "{}",
            msgs[1]
        );
        assert_eq!(
            msgs[2],
            "r.csv:4: `soon` is not a duration in seconds (0 to 31536000)"
        );
        // A number from a file is bounded before use: `junit` turned 1e300 into a Duration
        // and panicked (issue 45).
        assert_eq!(
            msgs[3],
            "r.csv:5: `1e300` is not a duration in seconds (0 to 31536000)"
        );
        assert!(msgs[4].starts_with("r.csv:6: `-1`"), "{}", msgs[4]);
    }
}
