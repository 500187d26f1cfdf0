//! A campaign's `state.json` read back: bounded, and every iteration and count within what a
//! campaign reaches, so a damaged or hostile file is an error naming it and the field, never
//! a counter that wraps to iteration 0 or overflows.

use super::State;
use std::path::Path;

/// The largest iteration number, and the largest count, a campaign's state may hold: 2^48,
/// some 9,000 years at a million programs a second. A `state.json` above it is damaged (or
/// not a campaign's), and resuming from it would wrap its iteration counter or overflow a
/// count: it is refused, naming the file and the field.
pub const MAX_ITERATIONS: u64 = 1 << 48;

/// The largest `state.json` read back (a state holds a few hundred findings at most).
const MAX_STATE_BYTES: u64 = 16 << 20;

impl State {
    /// The campaign state in `corpus`, if any: a regular file of at most 16 MiB, every
    /// iteration and count within [`MAX_ITERATIONS`] (see [`State::check`]).
    pub fn load(corpus: &Path) -> Result<Option<State>, String> {
        let path = corpus.join("state.json");
        let state: Option<State> = conform_io::input::read_json_if_present(&path, MAX_STATE_BYTES)?;
        match state {
            Some(s) => s.check().map(|()| Some(s)).map_err(|e| {
                format!(
                    "{}: {e}; start a new --corpus, or repair the file",
                    path.display()
                )
            }),
            None => Ok(None),
        }
    }

    /// Whether every iteration and count is one a campaign can reach and go on from.
    fn check(&self) -> Result<(), String> {
        let within = |what: &str, n: u64| {
            if n > MAX_ITERATIONS {
                Err(format!(
                    "{what} is {n}, above {MAX_ITERATIONS}, the most a campaign runs"
                ))
            } else {
                Ok(())
            }
        };
        let total = |counts: &mut dyn Iterator<Item = u64>| counts.fold(0u64, u64::saturating_add);
        within("`next`", self.next)?;
        within("`execs`", self.execs)?;
        within("`generator_error_count`", self.generator_error_count)?;
        within(
            "the `unsupported` counts",
            total(&mut self.unsupported.values().copied()),
        )?;
        within(
            "the `known` counts",
            total(&mut self.known.values().copied()),
        )?;
        within(
            "the `signatures` counts",
            total(&mut self.signatures.values().map(|f| f.count)),
        )?;
        for f in self.signatures.values() {
            within("a `first_iteration`", f.first_iteration)?;
        }
        if let Some(n) = self.reduced_keys.values().find(|n| **n > 1 << 16) {
            return Err(format!("a `reduced_keys` count is {n}, above 65536"));
        }
        if let Some(i) = self
            .done_after
            .iter()
            .find(|i| **i <= self.next || **i > MAX_ITERATIONS)
        {
            return Err(format!(
                "`done_after` holds {i}, not an iteration after `next` ({}) within {MAX_ITERATIONS}",
                self.next
            ));
        }
        if !self.seconds.is_finite() || self.seconds < 0.0 {
            return Err(format!("`seconds` is {}, not a duration", self.seconds));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Finding;
    use super::*;

    #[test]
    fn a_state_no_campaign_reaches_is_refused_naming_the_file_and_field() {
        let dir = tempfile::tempdir().unwrap();
        let good = State {
            next: 3,
            done_after: [5].into(),
            ..State::default()
        };
        good.save(dir.path()).unwrap();
        assert_eq!(State::load(dir.path()).unwrap(), Some(good.clone()));
        let mut finding = Finding {
            backend: "b".into(),
            key: "k".into(),
            count: u64::MAX,
            first_iteration: 0,
            message: String::new(),
            instructions: 1,
            case: String::new(),
        };
        let bad = [
            (
                State {
                    next: u64::MAX,
                    ..good.clone()
                },
                "`next` is 18446744073709551615",
            ),
            (
                State {
                    execs: u64::MAX,
                    ..good.clone()
                },
                "`execs`",
            ),
            (
                State {
                    done_after: [2].into(),
                    ..good.clone()
                },
                "`done_after` holds 2",
            ),
            (
                State {
                    seconds: -1.0,
                    ..good.clone()
                },
                "`seconds`",
            ),
            (
                State {
                    signatures: [("s".to_string(), finding.clone())].into(),
                    ..good.clone()
                },
                "`signatures` counts",
            ),
            (
                State {
                    known: [("a".to_string(), u64::MAX), ("b".to_string(), 5)].into(),
                    ..good.clone()
                },
                "`known` counts",
            ),
        ];
        for (state, says) in bad {
            state.save(dir.path()).unwrap();
            let e = State::load(dir.path()).unwrap_err();
            assert!(e.contains("state.json: ") && e.contains(says), "{e}");
        }
        finding.count = 1;
        finding.first_iteration = 1 << 60;
        State {
            signatures: [("s".to_string(), finding)].into(),
            ..good
        }
        .save(dir.path())
        .unwrap();
        assert!(State::load(dir.path())
            .unwrap_err()
            .contains("`first_iteration`"));
        // Not a regular file: refused, not read.
        std::fs::remove_file(dir.path().join("state.json")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("state.json")).unwrap();
        assert!(State::load(dir.path())
            .unwrap_err()
            .contains("character device"));
    }
}
