//! JUnit XML with the gate's classes: regressions are failures (or errors, for crashes and
//! timeouts), expected failures are skipped with the baseline entry named, flakes pass with
//! their failed attempts as `flakyFailure`s, and a failure that failed every attempt carries
//! the earlier ones as `rerunFailure`s.

use conform_gate::gate::{Class, Gated};
use conform_judge::identity::BackendIdentity;
use conform_judge::results::{Attempt, CaseResult, Status};
use quick_junit::{
    NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite,
};
use std::collections::BTreeMap;
use std::time::Duration;

/// A one-line field (names, messages, types, property values) as JUnit gets it: control,
/// bidi and XML-forbidden characters as visible escapes (`conform_io::escape::line`), so the
/// file is well-formed XML 1.0 whatever a case name, a message or a driver string holds
/// (quick-junit drops C0 controls but passes U+FFFE, U+FFFF and bidi overrides through).
fn one(s: &str) -> String {
    conform_io::escape::line(s).into_owned()
}

/// A multi-line field (descriptions, system-out): the same, line feeds and tabs kept.
fn multi(s: &str) -> String {
    conform_io::escape::text(s).into_owned()
}

fn kind(s: Status) -> NonSuccessKind {
    match s {
        Status::Fail => NonSuccessKind::Failure,
        _ => NonSuccessKind::Error,
    }
}

fn rerun(a: &Attempt) -> TestRerun {
    let mut r = TestRerun::new(kind(a.status));
    r.set_type(a.status.name());
    r.set_message(one(&format!("{}: {}", a.status.name(), a.message)));
    r.set_time(Duration::from_millis(a.duration_ms));
    r
}

fn description(r: &CaseResult) -> String {
    let mut text = r.details.join("\n");
    text.push_str(&format!("\nrerun: {}", r.repro));
    multi(&text)
}

fn status_of(r: &CaseResult, class: Class, why: &str, strict: bool) -> TestCaseStatus {
    let mut st = match class {
        Class::Regression | Class::Invalid => {
            let mut st = TestCaseStatus::non_success(if class == Class::Invalid {
                NonSuccessKind::Error
            } else {
                kind(r.status)
            });
            let why = if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            };
            st.set_message(one(&format!(
                "{} {}: {}{why}",
                class.name(),
                r.status.name(),
                r.message
            )));
            st.set_type(r.status.name());
            st.set_description(description(r));
            st
        }
        Class::UnexpectedImprovement if strict => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_message(one(&format!("unexpected improvement: {why}")));
            st.set_type("unexpected-improvement");
            st
        }
        Class::ExpectedFail | Class::Skip => {
            let mut st = TestCaseStatus::skipped();
            let msg = if class == Class::Skip {
                r.message.clone()
            } else {
                format!("{why}: {}: {}", r.status.name(), r.message)
            };
            st.set_message(one(&msg));
            st.set_type(class.name());
            st
        }
        Class::KnownFlake if r.is_failure() => {
            let mut st = TestCaseStatus::skipped();
            st.set_message(one(&format!(
                "known flake, {why}: {}: {}",
                r.status.name(),
                r.message
            )));
            st.set_type("known-flake");
            st
        }
        _ => TestCaseStatus::success(),
    };
    st.add_reruns(r.attempts.iter().map(rerun));
    st
}

/// A backend's identity as JUnit suite properties (`driver.renderer`, `driver.version`, ...),
/// so a dashboard that reads only JUnit still says which build produced the results.
fn identity_properties(id: &BackendIdentity) -> Vec<Property> {
    let mut p = vec![
        Property::new("driver.vendor", one(&id.vendor)),
        Property::new("driver.renderer", one(&id.renderer)),
        Property::new("driver.version", one(&id.version)),
    ];
    let optional = [
        ("driver.mesa_version", id.mesa_version.as_deref()),
        ("driver.git_revision", id.git_revision.as_deref()),
        ("driver.es_version", id.es_version.as_deref()),
        ("driver.egl_device", id.egl_device.as_deref()),
        ("driver.install", id.install.as_deref()),
    ];
    for (name, value) in optional {
        if let Some(v) = value {
            p.push(Property::new(name, one(v)));
        }
    }
    if !id.glsl_version.is_empty() {
        p.push(Property::new("driver.glsl_version", one(&id.glsl_version)));
    }
    if !id.libraries.is_empty() {
        p.push(Property::new(
            "driver.libraries",
            one(&id.libraries.join(":")),
        ));
    }
    p
}

/// JUnit XML for the results of `backend` (every backend when None): one suite per backend.
pub fn junit(gated: &Gated, run_name: &str, backend: Option<&str>) -> String {
    let mut report = Report::new(one(&format!("conform {run_name}")));
    let mut suites: BTreeMap<&str, TestSuite> = BTreeMap::new();
    for (r, class, why) in gated.iter() {
        if backend.is_some_and(|b| b != r.backend) {
            continue;
        }
        let suite = suites.entry(r.backend.as_str()).or_insert_with(|| {
            let mut suite = TestSuite::new(one(&r.backend));
            if let Some(id) = gated.identities.get(&r.backend) {
                suite.add_properties(identity_properties(id));
            }
            suite
        });
        let mut tc = TestCase::new(one(&r.case), status_of(r, class, why, gated.strict));
        tc.set_classname(one(r.extension()));
        tc.set_time(Duration::from_millis(r.duration_ms));
        let mut out = format!("class: {}", class.name());
        if !why.is_empty() {
            out.push_str(&format!(" ({why})"));
        }
        if !r.spec.is_empty() {
            out.push_str(&format!("\nspec: {}", r.spec.join(", ")));
        }
        tc.set_system_out(multi(&out));
        suite.add_test_case(tc);
    }
    // An incomplete run must not look green in a dashboard that only reads JUnit: one
    // failing test case names its gaps.
    if !gated.gaps.is_empty() {
        let mut suite = TestSuite::new("conform");
        let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
        st.set_type("incomplete");
        st.set_message("the run is incomplete");
        st.set_description(multi(&gated.gaps.join("\n")));
        suite.add_test_case(TestCase::new("run complete", st));
        report.add_test_suite(suite);
    }
    report.add_test_suites(suites.into_values());
    report
        .to_string()
        .unwrap_or_else(|e| format!("<!-- junit serialization failed: {e} -->"))
}

/// `conform junit`'s options, named as deqp-runner's `junit` names them.
#[derive(Clone, Debug, Default)]
pub struct RowsOptions {
    /// `--testsuite`: the suite of names without a `backend/` prefix, and the report's title.
    pub testsuite: String,
    /// `--limit`: how many test cases to list, the first by name (0: all), as deqp-runner.
    pub limit: usize,
    /// `--template`: each failure's message, `{{testcase}}` replaced by the test name
    /// (deqp-runner's; Mesa points it at the job's artifacts). Empty: the status.
    pub template: String,
}

/// JUnit XML from deqp-runner rows (`conform junit --results results.csv`, like `deqp-runner
/// junit`): one suite per backend (the name before the first `/`; `--testsuite` for names
/// without one). Failures, crashes, timeouts, unexpected improvements and missing results
/// fail; skips, expected failures and known flakes are skipped; the rest pass.
pub fn junit_of_rows(rows: &[conform_gate::deqp::Row], options: &RowsOptions) -> String {
    use conform_gate::deqp::DeqpStatus as D;
    let suite = options.testsuite.as_str();
    let mut report = Report::new(one(suite));
    let mut suites: BTreeMap<&str, TestSuite> = BTreeMap::new();
    let limit = if options.limit == 0 {
        usize::MAX
    } else {
        options.limit
    };
    for row in rows.iter().take(limit) {
        let (backend, case) = row.name.split_once('/').unwrap_or((suite, &row.name));
        let st = match row.status {
            D::Pass | D::Warn | D::Flake => TestCaseStatus::success(),
            D::Skip | D::ExpectedFail | D::KnownFlake => {
                let mut st = TestCaseStatus::skipped();
                st.set_type(row.status.name());
                st
            }
            D::Fail | D::UnexpectedImprovement(_) | D::Missing | D::Crash | D::Timeout => {
                let kind = match row.status {
                    D::Crash | D::Timeout => NonSuccessKind::Error,
                    _ => NonSuccessKind::Failure,
                };
                let mut st = TestCaseStatus::non_success(kind);
                st.set_type(row.status.name());
                st.set_message(if options.template.is_empty() {
                    row.status.name().to_string()
                } else {
                    one(&options.template.replace("{{testcase}}", &row.name))
                });
                st
            }
        };
        let mut tc = TestCase::new(one(case), st);
        tc.set_classname(one(case.split_once('/').map_or(case, |(e, _)| e)));
        // Rows are read bounded (`deqp::MAX_SECONDS`); a row made in code is clamped the same.
        tc.set_time(
            Duration::try_from_secs_f64(row.seconds.clamp(0.0, conform_gate::deqp::MAX_SECONDS))
                .unwrap_or_default(),
        );
        suites
            .entry(backend)
            .or_insert_with(|| TestSuite::new(one(backend)))
            .add_test_case(tc);
    }
    report.add_test_suites(suites.into_values());
    report
        .to_string()
        .unwrap_or_else(|e| format!("<!-- junit serialization failed: {e} -->"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_gate::gate::{Baseline, Gate};
    use conform_judge::testing::result;
    use std::path::Path;

    #[test]
    fn classes_map_to_junit_statuses_per_backend() {
        let gate = Gate {
            baseline: Baseline::parse(Path::new("b.txt"), "llvmpipe,x/known,fail\n").unwrap(),
            ..Gate::default()
        };
        let mut flake = result("x/flaky", "llvmpipe", Status::Pass);
        flake.attempts = vec![Attempt {
            status: Status::Timeout,
            message: "slow".into(),
            duration_ms: 5,
        }];
        let gated = gate.apply(vec![
            result("x/known", "llvmpipe", Status::Fail),
            result("x/new", "llvmpipe", Status::Crash),
            flake,
            result("x/new", "zink", Status::Pass),
        ]);
        let all = junit(&gated, "t", None);
        assert!(all.contains("<testsuite name=\"zink\""), "{all}");
        let xml = junit(&gated, "t", Some("llvmpipe"));
        assert!(!xml.contains("<testsuite name=\"zink\""), "{xml}");
        assert!(
            xml.contains("tests=\"3\" skipped=\"1\" errors=\"1\" failures=\"0\""),
            "{xml}"
        );
        assert!(
            xml.contains("<error message=\"regression crash: crash happened\" type=\"crash\">"),
            "{xml}"
        );
        assert!(xml.contains("<skipped message=\"known failure (b.txt:1): fail: fail happened\" type=\"expected-fail\"/>"), "{xml}");
        assert!(
            xml.contains("<flakyError time=\"0.005\" message=\"timeout: slow\" type=\"timeout\">"),
            "{xml}"
        );
    }

    #[test]
    fn junit_from_a_results_csv_has_a_suite_per_backend() {
        let rows = conform_gate::deqp::parse_results(
            Path::new("results.csv"),
            "llvmpipe/nv/a,Pass,0.5\nllvmpipe/nv/b,Crash,1\nzink/nv/a,ExpectedFail,0\nzink/nv/c,Missing,0\nbare,Fail\n",
        )
        .unwrap();
        let options = RowsOptions {
            testsuite: "deqp".into(),
            ..RowsOptions::default()
        };
        let xml = junit_of_rows(&rows, &options);
        assert!(
            xml.contains("<testsuite name=\"llvmpipe\" tests=\"2\" skipped=\"0\" errors=\"1\" failures=\"0\""),
            "{xml}"
        );
        assert!(
            xml.contains(
                "<testsuite name=\"zink\" tests=\"2\" skipped=\"1\" errors=\"0\" failures=\"1\""
            ),
            "{xml}"
        );
        assert!(
            xml.contains("<testsuite name=\"deqp\" tests=\"1\""),
            "{xml}"
        );
        assert!(
            xml.contains("<testcase name=\"nv/b\" classname=\"nv\" time=\"1.000\">"),
            "{xml}"
        );
    }

    /// What a case name, a message, a log or a driver string holds never reaches the XML raw:
    /// controls, bidi overrides and U+FFFE/U+FFFF (which XML 1.0 forbids and quick-junit
    /// passes through) are shown as escapes, in every field, from results and from rows.
    #[test]
    fn hostile_strings_from_any_source_are_escaped_so_the_xml_is_well_formed() {
        let mut r = result("x/a\u{fffe}\u{202e}b", "be\u{1}\u{ffff}", Status::Fail);
        r.message = "m\u{202e}\u{fffe}\x1b[2J".into();
        r.details = vec!["d\u{2066}\u{b}".into()];
        r.repro = "conform run \u{85}".into();
        r.spec = vec!["S\u{2029}".into()];
        r.attempts = vec![Attempt {
            status: Status::Timeout,
            message: "t\u{fffe}".into(),
            duration_ms: 1,
        }];
        let mut gated = Gate::default().apply(vec![r]);
        gated.identities.insert(
            "be\u{1}\u{ffff}".into(),
            BackendIdentity {
                renderer: "R\u{202e}".into(),
                libraries: vec!["l\u{fffe}".into()],
                ..BackendIdentity::default()
            },
        );
        gated.gaps.push("gap \u{ffff}".into());
        let rows = [conform_gate::deqp::Row {
            name: "b\u{202e}/x/\u{fffe}".into(),
            backend: "b\u{202e}".into(),
            status: conform_gate::deqp::DeqpStatus::Fail,
            seconds: 0.0,
        }];
        let options = RowsOptions {
            template: "{{testcase}}\u{2067}".into(),
            ..RowsOptions::default()
        };
        for xml in [
            junit(&gated, "run\u{202e}", None),
            junit_of_rows(&rows, &options),
        ] {
            let raw = xml
                .chars()
                .find(|c| conform_io::escape::is_hostile(*c) && *c != '\n' && *c != '\t');
            assert_eq!(raw, None, "{xml}");
        }
        let xml = junit(&gated, "r", None);
        assert!(xml.contains("x/a\\u{fffe}\\u{202e}b"), "{xml}");
        assert!(xml.contains("R\\u{202e}"), "{xml}");
    }

    /// deqp-runner's `--limit` (the first N test cases by name) and `--template` (each
    /// failure's message), and an improvement keeps what it did.
    #[test]
    fn junit_limit_template_and_improvements_as_deqp_runner() {
        let rows = conform_gate::deqp::parse_results(
            Path::new("failures.csv"),
            "a/x,Fail\nb/y,UnexpectedImprovement(Skip)\nc/z,Crash\n",
        )
        .unwrap();
        let options = RowsOptions {
            testsuite: "dEQP".into(),
            limit: 2,
            template: "See https://ci.example/{{testcase}}.log".into(),
        };
        let xml = junit_of_rows(&rows, &options);
        assert!(
            xml.contains("message=\"See https://ci.example/a/x.log\" type=\"Fail\""),
            "{xml}"
        );
        assert!(
            xml.contains("type=\"UnexpectedImprovement(Skip)\""),
            "{xml}"
        );
        assert!(!xml.contains("c/z") && !xml.contains("name=\"z\""), "{xml}");
    }
}
