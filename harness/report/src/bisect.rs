//! `conform bisect`: one case on one driver of several Mesa builds, ordered by Mesa version,
//! and where its result changed: the first bad build of a regression, the first good one of a
//! fix. The builds are installs on the machine (Debian's, a root of another suite, a local
//! meson build) or the system's own; each is named by the identity its worker reported.

use conform_judge::identity::BackendIdentity;
use conform_judge::results::{CaseResult, Status};
use std::fmt::Write;

/// One build's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The backend's name (`llvmpipe@26.2.6`).
    pub backend: String,
    /// What `--backend` took for it (`llvmpipe@/root/mesa-sid`).
    pub argument: String,
    pub identity: Option<BackendIdentity>,
    pub status: Status,
    pub message: String,
}

/// The numeric parts of a Mesa version (`25.0.7-2~bpo12+1` → [25, 0, 7]), for ordering.
fn version_key(id: Option<&BackendIdentity>) -> Vec<u64> {
    let Some(v) = id.and_then(|i| i.mesa_version.as_deref()) else {
        return vec![];
    };
    let number: String = v
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    number.split('.').filter_map(|p| p.parse().ok()).collect()
}

/// The steps in Mesa version order (oldest first; a build whose version is unknown last, in
/// the order given).
pub fn order(mut steps: Vec<Step>) -> Vec<Step> {
    steps.sort_by_key(|s| {
        let k = version_key(s.identity.as_ref());
        (k.is_empty(), k)
    });
    steps
}

/// Whether a status counts as good (the case holds on that build).
fn good(s: Status) -> bool {
    matches!(s, Status::Pass | Status::Flagged)
}

/// Each change of result from one build to the next, with what it is: `first bad`, `first
/// good`, or another change (a skip, a different failure).
pub fn changes(steps: &[Step]) -> Vec<(usize, &'static str)> {
    steps
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0].status != w[1].status)
        .map(|(i, w)| {
            let what = match (good(w[0].status), good(w[1].status)) {
                (true, false) if w[1].status != Status::Skip => "first bad",
                (false, true) if w[0].status != Status::Skip => "first good",
                _ => "changed",
            };
            (i + 1, what)
        })
        .collect()
}

/// The steps of a run's results for `case`, in the order of `arguments` (backend name,
/// what `--backend` took).
pub fn steps(
    results: &[CaseResult],
    identities: &std::collections::BTreeMap<String, BackendIdentity>,
    case: &str,
    backends: &[(String, String)],
) -> Vec<Step> {
    backends
        .iter()
        .filter_map(|(name, argument)| {
            let r = results
                .iter()
                .find(|r| r.case == case && &r.backend == name)?;
            Some(Step {
                backend: name.clone(),
                argument: argument.clone(),
                identity: identities.get(name).cloned(),
                status: r.status,
                message: r.message.clone(),
            })
        })
        .collect()
}

/// The table a person reads: each build with its Mesa version, renderer and result, then the
/// changes.
pub fn render(case: &str, steps: &[Step]) -> String {
    use conform_io::escape::line;
    let mut o = format!(
        "bisect {}: {} build(s), oldest first\n",
        line(case),
        steps.len()
    );
    for s in steps {
        let id = s.identity.as_ref();
        let version = id
            .and_then(|i| i.mesa_version.clone())
            .unwrap_or_else(|| "version unknown".into());
        let renderer = id.map(|i| i.renderer.as_str()).unwrap_or("");
        let message = if s.message.is_empty() {
            String::new()
        } else {
            format!(": {}", line(&s.message))
        };
        let _ = writeln!(
            o,
            "  {:<22} Mesa {:<18} {:<8} {}{message}",
            line(&s.backend),
            line(&version),
            s.status.name(),
            line(renderer)
        );
    }
    let changes = changes(steps);
    if changes.is_empty() {
        let _ = writeln!(o, "no change: the same result on every build");
    }
    for (i, what) in changes {
        let s = &steps[i];
        let _ = writeln!(
            o,
            "{what}: {} (Mesa {}; {} before it, {} here)",
            line(&s.backend),
            line(
                s.identity
                    .as_ref()
                    .and_then(|i| i.mesa_version.as_deref())
                    .unwrap_or("version unknown")
            ),
            steps[i - 1].status.name(),
            s.status.name()
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(backend: &str, version: &str, status: Status) -> Step {
        Step {
            backend: backend.into(),
            argument: backend.into(),
            identity: Some(BackendIdentity {
                mesa_version: Some(version.into()),
                renderer: "llvmpipe".into(),
                ..BackendIdentity::default()
            }),
            status,
            message: String::new(),
        }
    }

    /// Builds given in any order are ordered by Mesa version; a case failing on 22.3.6 and
    /// 25.0.7 and passing on 26.2.6 names 26.2.6 the first good build.
    #[test]
    fn the_first_good_build_of_a_fix_is_named() {
        let steps = order(vec![
            step("llvmpipe@26.2.6", "26.2.6-1", Status::Pass),
            step("llvmpipe", "22.3.6", Status::Fail),
            step("llvmpipe@26.1.6", "26.1.6-1~bpo13+1", Status::Pass),
            step("llvmpipe@25.0.7", "25.0.7-2~bpo12+1", Status::Fail),
        ]);
        let names: Vec<&str> = steps.iter().map(|s| s.backend.as_str()).collect();
        assert_eq!(
            names,
            [
                "llvmpipe",
                "llvmpipe@25.0.7",
                "llvmpipe@26.1.6",
                "llvmpipe@26.2.6"
            ]
        );
        assert_eq!(changes(&steps), [(2, "first good")]);
        let text = render("glsl/x", &steps);
        assert!(
            text.contains(
                "first good: llvmpipe@26.1.6 (Mesa 26.1.6-1~bpo13+1; fail before it, pass here)"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_regression_names_its_first_bad_build_and_a_skip_is_only_a_change() {
        let steps = vec![
            step("a", "22.3.6", Status::Pass),
            step("b", "25.0.7", Status::Crash),
            step("c", "26.2.6", Status::Skip),
        ];
        assert_eq!(changes(&steps), [(1, "first bad"), (2, "changed")]);
        assert!(render("x", &steps[..1]).contains("no change"));
    }
}
