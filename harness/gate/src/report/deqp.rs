//! A gated run in deqp-runner's terms: each result's deqp-runner status, and the rows that
//! `results.csv`, `failures.csv` and the end-of-run table are written from (`deqp.rs` has the
//! conventions: names, statuses, the CSV lines).

use crate::deqp::{test_name, DeqpStatus, Row};
use crate::gate::{Class, Gated};
use conform_judge::results::{CaseResult, Status};

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
        Class::UnexpectedPass => DeqpStatus::UnexpectedPass,
        Class::Regression => match r.status {
            Status::Crash => DeqpStatus::Crash,
            Status::Timeout => DeqpStatus::Timeout,
            _ => DeqpStatus::Fail,
        },
    }
}

/// The rows of a gated run, sorted by name: one per result, and a `Missing` one for each
/// `(backend, case)` in `missing`.
pub fn rows(gated: &Gated, missing: &[(String, String)]) -> Vec<Row> {
    let mut rows: Vec<Row> = gated
        .iter()
        .map(|(r, class, _)| Row {
            name: test_name(&r.backend, &r.case),
            status: status_of(r, class),
            seconds: r.duration_ms as f64 / 1000.0,
        })
        .chain(missing.iter().map(|(b, c)| Row {
            name: test_name(b, c),
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
    use crate::deqp::{csv, parse_results, table};
    use crate::gate::Gate;
    use conform_judge::testing::result;
    use std::path::Path;

    /// The two files of a gated run, golden: every class has its deqp-runner status, the
    /// missing pair is listed, failures.csv holds what needs a look.
    #[test]
    fn results_and_failures_csv_golden() {
        let gate = Gate {
            baseline: crate::gate::Baseline::parse(
                Path::new("b"),
                "llvmpipe,x/known,fail\nllvmpipe,x/fixed,fail\n",
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
            result("x/new", "llvmpipe", Status::Crash),
            result("x/s", "llvmpipe", Status::Skip),
            flagged,
        ]);
        let rows = rows(&gated, &[("llvmpipe".into(), "x/later".into())]);
        assert_eq!(
            csv(&rows, false),
            "llvmpipe/x/fixed,UnexpectedImprovement(Pass),0.001\n\
             llvmpipe/x/known,ExpectedFail,0.001\n\
             llvmpipe/x/later,Missing,0.000\n\
             llvmpipe/x/new,Crash,0.001\n\
             llvmpipe/x/ok,Pass,0.001\n\
             llvmpipe/x/s,Skip,0.001\n\
             reference/x/ub,Pass,1.500\n"
        );
        assert_eq!(
            csv(&rows, true),
            "llvmpipe/x/fixed,UnexpectedImprovement(Pass),0.001\n\
             llvmpipe/x/later,Missing,0.000\n\
             llvmpipe/x/new,Crash,0.001\n"
        );
        let back = parse_results(Path::new("results.csv"), &csv(&rows, false)).unwrap();
        assert_eq!(back, rows);
        assert_eq!(
            table(&rows),
            "backend      Pass Fail Crash Timeout Skip Flake KnownFlake ExpectedFail UnexpectedPass Missing total\n\
             llvmpipe        1    0     1       0    1     0          0            1              1       1     6\n\
             reference       1    0     0       0    0     0          0            0              0       0     1\n"
        );
    }
}
