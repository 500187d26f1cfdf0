//! deqp-runner's conventions, read and written, so a CI job built around deqp-runner (Mesa's
//! GitLab CI) runs conform the same way: `results.csv` and `failures.csv` in every run
//! directory, deqp-runner's status names, `name,Status` baselines (a previous run's
//! `failures.csv` included), and `conform junit` from a `results.csv` (docs/CI.md has the
//! migration table).
//!
//! A deqp-runner test is one name; a conform result is a case on a backend, so its deqp name
//! is `backend/case` ([`test_name`]): backend names never hold a `/`, so the first `/` splits
//! it back. Lines are `name,Status,seconds` with no header, sorted by name; a field holding a
//! comma, a quote or a line break (a case file may be named so) is quoted the RFC 4180 way.
//! The CSV is parsed by hand, line by line, because every file conform reads reports
//! problems as `file:line: message` and allows `#` comments, which a record-oriented CSV
//! reader does not give.

use conform_io::diag::Diagnostic;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// The file with every result of a run, deqp-runner's form.
pub const RESULTS_CSV: &str = "results.csv";
/// The results a person must look at (regressions, flakes, unexpected passes, missing), in
/// the same form; usable as the next run's `--baseline`.
pub const FAILURES_CSV: &str = "failures.csv";

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
    /// Passed although the baseline lists a failure: deqp-runner's
    /// `UnexpectedImprovement(Pass)`.
    UnexpectedPass,
    /// Selected, but never ran (the run was interrupted or killed).
    Missing,
    /// deqp's quality or compatibility warning: read from baselines, never written.
    Warn,
}

impl DeqpStatus {
    /// Every status, in the order the end-of-run table shows them.
    pub const ALL: [DeqpStatus; 11] = [
        DeqpStatus::Pass,
        DeqpStatus::Fail,
        DeqpStatus::Crash,
        DeqpStatus::Timeout,
        DeqpStatus::Skip,
        DeqpStatus::Flake,
        DeqpStatus::KnownFlake,
        DeqpStatus::ExpectedFail,
        DeqpStatus::UnexpectedPass,
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
            DeqpStatus::UnexpectedPass => "UnexpectedImprovement(Pass)",
            DeqpStatus::Missing => "Missing",
            DeqpStatus::Warn => "Warn",
        }
    }

    /// Parses a status the way deqp-runner writes it, in any case; also the older
    /// `UnexpectedPass` and any `UnexpectedImprovement(...)`.
    pub fn parse(s: &str) -> Option<DeqpStatus> {
        let lower = s.trim().to_ascii_lowercase();
        if lower.starts_with("unexpectedimprovement(") && lower.ends_with(')') {
            return Some(DeqpStatus::UnexpectedPass);
        }
        match lower.as_str() {
            "unexpectedpass" => Some(DeqpStatus::UnexpectedPass),
            _ => DeqpStatus::ALL
                .into_iter()
                .find(|d| d.name().eq_ignore_ascii_case(&lower)),
        }
    }

    /// Whether deqp-runner counts it as a failure of the run (and `failures.csv` lists it;
    /// flakes are listed too, so they can be added to a flakes file).
    pub fn in_failures(self) -> bool {
        matches!(
            self,
            DeqpStatus::Fail
                | DeqpStatus::Crash
                | DeqpStatus::Timeout
                | DeqpStatus::Flake
                | DeqpStatus::UnexpectedPass
                | DeqpStatus::Missing
        )
    }
}

impl fmt::Display for DeqpStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The deqp-runner name of `case` on `backend`.
pub fn test_name(backend: &str, case: &str) -> String {
    format!("{backend}/{case}")
}

/// One line of a results.csv: name, status, seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    pub status: DeqpStatus,
    pub seconds: f64,
}

/// `rows` as CSV text (all of them, or only those [`DeqpStatus::in_failures`]).
pub fn csv(rows: &[Row], failures_only: bool) -> String {
    let mut out = String::new();
    for r in rows
        .iter()
        .filter(|r| !failures_only || r.status.in_failures())
    {
        out.push_str(&field(&r.name));
        out.push(',');
        out.push_str(r.status.name());
        out.push_str(&format!(",{:.3}\n", r.seconds));
    }
    out
}

/// Writes `results.csv` and `failures.csv` into `dir`; returns their paths.
pub fn write(dir: &Path, rows: &[Row]) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut written = Vec::new();
    for (name, failures_only) in [(RESULTS_CSV, false), (FAILURES_CSV, true)] {
        let path = dir.join(name);
        std::fs::write(&path, csv(rows, failures_only))?;
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
        DeqpStatus::UnexpectedPass => "UnexpectedPass",
        s => s.name(),
    };
    let mut counts: BTreeMap<&str, BTreeMap<DeqpStatus, usize>> = BTreeMap::new();
    for r in rows {
        let backend = r.name.split_once('/').map_or(r.name.as_str(), |(b, _)| b);
        *counts
            .entry(backend)
            .or_default()
            .entry(r.status)
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

/// One CSV field, quoted when it must be. Control characters (only an invalid case's file
/// name can hold one) are shown as escapes first, so every row stays one line.
pub fn field(s: &str) -> Cow<'_, str> {
    let s = conform_io::escape::line(s);
    if s.contains([',', '"']) || s.starts_with('#') {
        Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        s
    }
}

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
                Ok(v) if v.is_finite() && v >= 0.0 => v,
                _ => {
                    diags.push(err(format!("`{s}` is not a duration in seconds")));
                    continue;
                }
            },
        };
        rows.push(Row {
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
    fn statuses_parse_in_any_case_and_in_both_spellings_of_unexpected_pass() {
        for s in DeqpStatus::ALL {
            assert_eq!(DeqpStatus::parse(s.name()), Some(s));
            assert_eq!(DeqpStatus::parse(&s.name().to_uppercase()), Some(s));
        }
        assert_eq!(DeqpStatus::parse("fail"), Some(DeqpStatus::Fail));
        assert_eq!(
            DeqpStatus::parse("UnexpectedPass"),
            Some(DeqpStatus::UnexpectedPass)
        );
        assert_eq!(
            DeqpStatus::parse("UnexpectedImprovement(Skip)"),
            Some(DeqpStatus::UnexpectedPass)
        );
        assert_eq!(DeqpStatus::parse("broken"), None);
    }

    #[test]
    fn fields_quote_and_split_back() {
        assert_eq!(field("x\ny"), "x\\ny");
        for name in ["plain/name", "a,b", "say \"hi\"", "#hash"] {
            let line = format!("{},Fail,0.001", field(name));
            let back = split_line(&line).unwrap();
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
        let e =
            parse_results(Path::new("r.csv"), "a,Pass,0.1\nb\nc,Nope\nd,Fail,soon\n").unwrap_err();
        let msgs: Vec<String> = e.iter().map(ToString::to_string).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert_eq!(
            msgs[0],
            "r.csv:2: expected `name,Status[,seconds]`, found 1 field(s)"
        );
        assert!(
            msgs[1].starts_with("r.csv:3: unknown status `Nope`"),
            "{}",
            msgs[1]
        );
        assert_eq!(msgs[2], "r.csv:4: `soon` is not a duration in seconds");
    }
}
