//! How a run shows its progress, one backend pass at a time.
//!
//! On a terminal: a progress bar (stderr), with one line above it per failure the baseline
//! does not expect. In a CI log (stdout is not a terminal), a bar is useless and silence
//! looks like a hang, so: one status line per finished case (`llvmpipe [  12/1104] pass
//! nv_compute_program5/atoms (0.12s)`, failures in capitals with their message), and a
//! heartbeat line every `--heartbeat` (counts so far and the cases still running, which
//! names a hang while it happens). Details of failures come once, at the end of the run.

use conform_judge::policy::Known;
use conform_judge::results::{CaseResult, Status};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// What a pass prints as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Nothing (tests, library use).
    Quiet,
    /// A progress bar on stderr, failures above it.
    Bar,
    /// Status lines on stdout, and a heartbeat line at this interval.
    Lines { heartbeat: Duration },
}

impl Mode {
    /// The mode for a command line run: a bar when stdout is a terminal, lines otherwise.
    pub fn for_stdout(heartbeat: Duration) -> Mode {
        use std::io::IsTerminal;
        if std::io::stdout().is_terminal() {
            Mode::Bar
        } else {
            Mode::Lines { heartbeat }
        }
    }
}

/// The progress of one backend's pass over the cases.
pub struct Progress {
    mode: Mode,
    bar: indicatif::ProgressBar,
    backend: String,
    total: usize,
    done: usize,
    counts: BTreeMap<Status, usize>,
    started: Instant,
    last_beat: Instant,
}

impl Progress {
    pub fn new(mode: Mode, backend: &str, total: usize) -> Progress {
        let bar = match mode {
            Mode::Bar => bar(total as u64, backend),
            Mode::Quiet | Mode::Lines { .. } => indicatif::ProgressBar::hidden(),
        };
        Progress {
            mode,
            bar,
            backend: backend.to_string(),
            total,
            done: 0,
            counts: BTreeMap::new(),
            started: Instant::now(),
            last_beat: Instant::now(),
        }
    }

    /// One finished case; `known`: what the baseline says of its failure (a known one is
    /// not highlighted).
    pub fn finished(&mut self, r: &CaseResult, known: Known) {
        self.done += 1;
        *self.counts.entry(r.status).or_default() += 1;
        let failing = r.is_failure() && known == Known::No;
        match self.mode {
            Mode::Quiet => {}
            Mode::Bar => {
                self.bar.set_message(self.counts_text());
                self.bar.inc(1);
                if failing {
                    let text = status_line(r, None, known);
                    self.bar.suspend(|| eprintln!("{text}"));
                }
            }
            Mode::Lines { .. } => {
                let at = (self.done, self.total);
                conform_io::outln!("{}", status_line(r, Some(at), known));
            }
        }
    }

    /// Called after each result and while waiting for one: prints a heartbeat line when one
    /// is due, naming the cases `running` says are under way.
    pub fn tick(&mut self, running: impl FnOnce() -> Vec<String>) {
        let Mode::Lines { heartbeat } = self.mode else {
            return;
        };
        if self.last_beat.elapsed() < heartbeat {
            return;
        }
        self.last_beat = Instant::now();
        conform_io::outln!("{}", self.heartbeat_line(&running()));
    }

    /// `llvmpipe: 120/1104 after 5m 2s: pass 100, fail 2; running: a, b`.
    fn heartbeat_line(&self, running: &[String]) -> String {
        let running = if running.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = running
                .iter()
                .map(|n| conform_io::escape::line(n).into_owned())
                .collect();
            format!("; running: {}", names.join(", "))
        };
        format!(
            "{}: {}/{} after {}: {}{running}",
            conform_io::escape::line(&self.backend),
            self.done,
            self.total,
            humantime::format_duration(Duration::from_secs(self.started.elapsed().as_secs())),
            if self.counts.is_empty() {
                "no result yet".to_string()
            } else {
                self.counts_text()
            }
        )
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }

    fn counts_text(&self) -> String {
        self.counts
            .iter()
            .map(|(s, n)| format!("{} {n}", s.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One line for a finished case: backend, `[done/total]` (log mode), status, case, time and,
/// for a failure, its message. Failures the baseline does not expect are in capitals (and
/// red when coloured); known ones take the word results.csv gives them (`ExpectedFail`,
/// `UnexpectedImprovement(Fail)`), so the log and the file never disagree.
pub fn status_line(r: &CaseResult, at: Option<(usize, usize)>, known: Known) -> String {
    use conform_io::console::{paint_failure, paint_notice, paint_pass};
    use conform_io::escape::line;
    let failing = r.is_failure();
    let word = match (failing, known, r.status) {
        (true, Known::No, s) => paint_failure(&format!("{:<8}", s.name().to_uppercase())),
        (true, Known::Expected, _) => paint_notice("ExpectedFail"),
        (true, Known::Improved, s) => paint_notice(&format!(
            "UnexpectedImprovement({}{})",
            s.name()[..1].to_uppercase(),
            &s.name()[1..]
        )),
        (false, _, Status::Pass | Status::Flagged) => {
            paint_pass(&format!("{:<8}", r.status.name()))
        }
        (false, _, s) => paint_notice(&format!("{:<8}", s.name())),
    };
    let at = match at {
        Some((done, total)) => {
            let w = total.to_string().len();
            format!(" [{done:>w$}/{total}]")
        }
        None => String::new(),
    };
    let mut text = format!(
        "{}{at} {word} {} ({:.2}s)",
        line(&r.backend),
        line(&r.case),
        r.duration_ms as f64 / 1000.0
    );
    if failing || r.status == Status::Skip {
        text.push_str(": ");
        text.push_str(&line(&r.message));
        match known {
            Known::No => {}
            Known::Expected => text.push_str(" (expected by the baseline)"),
            Known::Improved => text.push_str(" (better than the crash or hang the baseline lists)"),
        }
    }
    text
}

fn bar(len: u64, backend: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix:>10} [{bar:30}] {pos}/{len} {elapsed_precise} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(backend.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_judge::testing::result;

    /// The lines a CI log gets, golden (no colour: the tests never turn it on).
    #[test]
    fn status_lines_golden() {
        let mut pass = result("nv/a", "llvmpipe", Status::Pass);
        pass.duration_ms = 120;
        assert_eq!(
            status_line(&pass, Some((7, 120)), Known::No),
            "llvmpipe [  7/120] pass     nv/a (0.12s)"
        );
        let fail = result("nv/b", "llvmpipe", Status::Fail);
        assert_eq!(
            status_line(&fail, Some((8, 120)), Known::No),
            "llvmpipe [  8/120] FAIL     nv/b (0.00s): fail happened"
        );
        assert_eq!(
            status_line(&fail, None, Known::Expected),
            "llvmpipe ExpectedFail nv/b (0.00s): fail happened (expected by the baseline)"
        );
        // A wrong value where the baseline lists a crash: results.csv's word, not FAIL.
        assert_eq!(
            status_line(&fail, None, Known::Improved),
            "llvmpipe UnexpectedImprovement(Fail) nv/b (0.00s): fail happened (better than the crash or hang the baseline lists)"
        );
        let skip = result("nv/c", "zink", Status::Skip);
        assert_eq!(
            status_line(&skip, Some((120, 120)), Known::No),
            "zink [120/120] skip     nv/c (0.00s): skip happened"
        );
    }

    /// The heartbeat names the counts and the cases still running (escaped: names come from
    /// case files), so a hang shows in a CI log while it happens.
    #[test]
    fn heartbeat_golden() {
        let mut p = Progress::new(Mode::Quiet, "zink", 3);
        assert_eq!(p.heartbeat_line(&[]), "zink: 0/3 after 0s: no result yet");
        p.finished(&result("a", "zink", Status::Pass), Known::No);
        p.finished(&result("b", "zink", Status::Fail), Known::No);
        assert_eq!(
            p.heartbeat_line(&["nv/hang\x1b[2J".to_string()]),
            "zink: 2/3 after 0s: pass 1, fail 1; running: nv/hang\\x1b[2J"
        );
    }

    #[test]
    fn the_counter_counts_finished_cases_from_one() {
        let mut p = Progress::new(Mode::Quiet, "llvmpipe", 2);
        assert_eq!(p.done, 0);
        p.finished(&result("a", "llvmpipe", Status::Pass), Known::No);
        assert_eq!((p.done, p.total), (1, 2));
        assert_eq!(p.counts_text(), "pass 1");
    }
}
