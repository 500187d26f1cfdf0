//! A gated run in deqp-runner's terms: each result's deqp-runner status, and the rows that
//! `results.csv`, `failures.csv` and the end-of-run table are written from (`deqp.rs` has the
//! conventions: names, statuses, the CSV lines).

use conform_gate::deqp::{raw_status, DeqpStatus, Improved, Row};
use conform_gate::gate::{Class, Gated};
use conform_judge::results::CaseResult;

/// The deqp-runner status of a gated result. A case the reference flags as the undefined
/// behaviour it declares, and a hang an `undefined:` case allows, are passes; an invalid case
/// (it did not load) is a `Fail` (deqp-runner has no word for it).
pub fn status_of(r: &CaseResult, class: Class) -> DeqpStatus {
    match class {
        Class::Pass => DeqpStatus::Pass,
        Class::Skip => DeqpStatus::Skip,
        Class::Invalid => DeqpStatus::Fail,
        Class::Flake => DeqpStatus::Flake,
        Class::KnownFlake => DeqpStatus::KnownFlake,
        Class::ExpectedFail => DeqpStatus::ExpectedFail,
        Class::UnexpectedImprovement => DeqpStatus::UnexpectedImprovement(Improved::of(r.status)),
        Class::Regression => match raw_status(r.status) {
            DeqpStatus::Pass | DeqpStatus::Skip => DeqpStatus::Fail,
            s => s,
        },
    }
}

/// The rows of a gated run, sorted by name: one per result, and a `Missing` one for each
/// `(backend, case)` in `missing`.
pub fn rows(gated: &Gated, missing: &[(String, String)]) -> Vec<Row> {
    let mut rows: Vec<Row> = gated
        .iter()
        .map(|(r, class, _)| Row {
            name: gated.test_names.name(&r.backend, &r.case),
            backend: r.backend.clone(),
            status: status_of(r, class),
            seconds: r.duration_ms as f64 / 1000.0,
        })
        .chain(missing.iter().map(|(b, c)| Row {
            name: gated.test_names.name(b, c),
            backend: b.clone(),
            status: DeqpStatus::Missing,
            seconds: 0.0,
        }))
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_gate::deqp::{csv, parse_results, table, CsvFile};
    use conform_gate::gate::Gate;
    use conform_judge::results::Status;
    use conform_judge::testing::result;
    use std::path::Path;

    /// The two files of a gated run, golden: every class has its deqp-runner status, the
    /// missing pair is listed, failures.csv holds what needs a look.
    #[test]
    fn results_and_failures_csv_golden() {
        let gate = Gate {
            baseline: conform_gate::gate::Baseline::parse(
                Path::new("b"),
                "llvmpipe,x/known,fail\nllvmpipe,x/fixed,fail\nllvmpipe,x/better,crash\nllvmpipe,x/gone,fail\n",
            )
            .unwrap(),
            ..Gate::default()
        };
        let mut flagged = result("x/ub", "reference", Status::Flagged);
        flagged.duration_ms = 1500;
        let gated = gate.apply(vec![
            result("x/ok", "llvmpipe", Status::Pass),
            result("x/known", "llvmpipe", Status::Fail),
            result("x/fixed", "llvmpipe", Status::Pass),
            result("x/better", "llvmpipe", Status::Fail),
            result("x/gone", "llvmpipe", Status::Skip),
            result("x/new", "llvmpipe", Status::Crash),
            result("x/s", "llvmpipe", Status::Skip),
            flagged,
        ]);
        let rows = rows(&gated, &[("llvmpipe".into(), "x/later".into())]);
        assert_eq!(
            csv(&rows, CsvFile::Results),
            "llvmpipe/x/better,UnexpectedImprovement(Fail),0.001\n\
             llvmpipe/x/fixed,UnexpectedImprovement(Pass),0.001\n\
             llvmpipe/x/gone,UnexpectedImprovement(Skip),0.001\n\
             llvmpipe/x/known,ExpectedFail,0.001\n\
             llvmpipe/x/later,Missing,0.000\n\
             llvmpipe/x/new,Crash,0.001\n\
             llvmpipe/x/ok,Pass,0.001\n\
             llvmpipe/x/s,Skip,0.001\n\
             reference/x/ub,Pass,1.500\n"
        );
        // deqp-runner's failures.csv: what is not a success to it, two fields.
        assert_eq!(
            csv(&rows, CsvFile::Failures),
            "llvmpipe/x/better,UnexpectedImprovement(Fail)\n\
             llvmpipe/x/fixed,UnexpectedImprovement(Pass)\n\
             llvmpipe/x/gone,UnexpectedImprovement(Skip)\n\
             llvmpipe/x/later,Missing\n\
             llvmpipe/x/new,Crash\n"
        );
        assert_eq!(
            csv(&rows, CsvFile::FailuresAll),
            "llvmpipe/x/better,UnexpectedImprovement(Fail)\n\
             llvmpipe/x/fixed,UnexpectedImprovement(Pass)\n\
             llvmpipe/x/gone,UnexpectedImprovement(Skip)\n\
             llvmpipe/x/known,ExpectedFail\n\
             llvmpipe/x/later,Missing\n\
             llvmpipe/x/new,Crash\n"
        );
        let back = parse_results(Path::new("results.csv"), &csv(&rows, CsvFile::Results)).unwrap();
        assert_eq!(back, rows);
        assert_eq!(
            table(&rows),
            "backend      Pass Fail Crash Timeout Skip Flake KnownFlake ExpectedFail UnexpectedImprovement Missing total\n\
             llvmpipe        1    0     1       0    1     0          0            1                     3       1     8\n\
             reference       1    0     0       0    0     0          0            0                     0       0     1\n"
        );
    }

    /// deqp-runner 0.24's `RunnerResults::from_csv`, rule for rule: blank and `#` lines are
    /// skipped, `^([^,]+),([^,]+)` takes the name and the status, the status must be one of
    /// its spellings exactly, and a name twice is an error.
    fn deqp_runner_from_csv(text: &str) -> Result<Vec<(String, DeqpStatus)>, String> {
        let re = regex::Regex::new("^([^,]+),([^,]+)").unwrap();
        let mut out: Vec<(String, DeqpStatus)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let cap = re
                .captures(line)
                .ok_or_else(|| format!("line {n}: not test,status: {line}"))?;
            let status = DeqpStatus::parse_strict(&cap[2])
                .ok_or_else(|| format!("line {n}: unknown runner status '{}'", &cap[2]))?;
            if out.iter().any(|(t, _)| t == &cap[1]) {
                return Err(format!("line {n}: duplicate result for {}", &cap[1]));
            }
            out.push((cap[1].to_string(), status));
        }
        Ok(out)
    }

    /// Every file a run writes in deqp-runner's forms reads back through deqp-runner's own
    /// parser rules, with the same names and statuses; the baseline `--write-baseline`
    /// writes too.
    #[test]
    fn every_written_file_reads_back_through_deqp_runners_rules() {
        let gate = Gate {
            baseline: conform_gate::gate::Baseline::parse(
                Path::new("b"),
                "llvmpipe,x/known,fail\nllvmpipe,x/fixed,crash\nllvmpipe,x/better,timeout\nllvmpipe,x/gone,fail\nllvmpipe,x/flaky,fail\n",
            )
            .unwrap(),
            flakes: conform_gate::gate::Patterns::parse(Path::new("f"), "llvmpipe,x/flaky\n").unwrap(),
            ..Gate::default()
        };
        let mut retried = result("x/retried", "zink", Status::Pass);
        retried.attempts.push(conform_judge::results::Attempt {
            status: Status::Fail,
            message: String::new(),
            duration_ms: 1,
        });
        let gated = gate.apply(vec![
            result("x/ok", "llvmpipe", Status::Pass),
            result("x/known", "llvmpipe", Status::Fail),
            result("x/fixed", "llvmpipe", Status::Pass),
            result("x/better", "llvmpipe", Status::Fail),
            result("x/gone", "llvmpipe", Status::Skip),
            result("x/flaky", "llvmpipe", Status::Fail),
            result("x/new", "zink", Status::Crash),
            result("x/hang", "zink", Status::Timeout),
            result("x/bad", "loader", Status::Invalid),
            result("x/ub", "reference", Status::Flagged),
            retried,
        ]);
        let rows = rows(&gated, &[("zink".into(), "x/later".into())]);
        for file in CsvFile::ALL {
            let text = csv(&rows, file);
            let back =
                deqp_runner_from_csv(&text).unwrap_or_else(|e| panic!("{file:?}: {e}\n{text}"));
            let expected: Vec<(String, DeqpStatus)> = rows
                .iter()
                .filter(|r| match file {
                    CsvFile::Results => true,
                    CsvFile::Failures => r.status.in_failures(),
                    CsvFile::FailuresAll => r.status.in_failures_all(),
                })
                .map(|r| (r.name.clone(), r.status))
                .collect();
            assert_eq!(back, expected, "{file:?}");
        }
        // Every status deqp-runner knows occurs but Warn (only ever read).
        let seen: std::collections::BTreeSet<DeqpStatus> = rows.iter().map(|r| r.status).collect();
        assert!(seen.len() >= 11, "{seen:?}");
        let baseline = gated.baseline_text("test", conform_gate::gate::BaselineFormat::Deqp);
        let back = deqp_runner_from_csv(&baseline).unwrap_or_else(|e| panic!("{e}\n{baseline}"));
        assert_eq!(
            back,
            [
                ("llvmpipe/x/better".to_string(), DeqpStatus::Fail),
                ("llvmpipe/x/known".to_string(), DeqpStatus::Fail),
                ("zink/x/hang".to_string(), DeqpStatus::Timeout),
                ("zink/x/new".to_string(), DeqpStatus::Crash),
            ]
        );
    }
}
