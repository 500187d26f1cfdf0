//! `conform bench`: throughput of each backend on a corpus, and where a case's time goes.
//!
//! For a driver, each case's wall time (as the harness sees it: plan sent → verdict made) is
//! split into the worker's own measurements — build (compile/link/load), dispatch (the
//! steps), readback — and the rest, which is conform's overhead: the pipe and JSON, buffer
//! set-up in the worker, and judging. The same corpus is then run with a fresh worker process
//! per case, to show what reusing one context per worker saves.

use crate::backend::{Executor, Job};
use conform_case::Case;
use conform_judge::judge;
use conform_plan::{RawResult, Timings};
use std::time::{Duration, Instant};

#[derive(Debug, Default, Clone)]
pub struct BenchFigures {
    pub backend: String,
    pub mode: String,
    pub cases: usize,
    pub wall: Duration,
    pub build: Duration,
    pub dispatch: Duration,
    pub readback: Duration,
    pub judge: Duration,
}

impl BenchFigures {
    pub fn cases_per_second(&self) -> f64 {
        self.cases as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Everything that is not the driver's build, dispatch or readback.
    pub fn overhead(&self) -> Duration {
        self.wall
            .saturating_sub(self.build + self.dispatch + self.readback)
    }

    pub fn overhead_share(&self) -> f64 {
        self.overhead().as_secs_f64() / self.wall.as_secs_f64().max(1e-9)
    }

    pub fn header() -> String {
        format!(
            "{:<10} {:<16} {:>6} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}\n",
            "backend",
            "mode",
            "cases",
            "cases/s",
            "ms/case",
            "build",
            "dispatch",
            "readback",
            "overhead",
            "overhead%"
        )
    }

    pub fn row(&self) -> String {
        let n = self.cases.max(1) as f64;
        let per = |d: Duration| d.as_secs_f64() * 1000.0 / n;
        format!(
            "{:<10} {:<16} {:>6} {:>9.1} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>8.1}%\n",
            self.backend,
            self.mode,
            self.cases,
            self.cases_per_second(),
            per(self.wall),
            per(self.build),
            per(self.dispatch),
            per(self.readback),
            per(self.overhead()),
            self.overhead_share() * 100.0
        )
    }
}

fn micros(us: u64) -> Duration {
    Duration::from_micros(us)
}

/// Runs every case once on `exec` (one after another, so timings are not mixed) and adds
/// up where the time went. Cases the backend lacks requirements for are left out.
pub fn measure(
    backend: &str,
    mode: &str,
    cases: &[&Case],
    make: &mut dyn FnMut() -> Box<dyn Executor>,
    fresh: bool,
    is_reference: bool,
) -> BenchFigures {
    let mut f = BenchFigures {
        backend: backend.to_string(),
        mode: mode.to_string(),
        ..Default::default()
    };
    let mut exec = make();
    if !fresh {
        // Warm-up, untimed: the worker's start and context creation happen once per run.
        if let Some(first) = cases.first() {
            let _ = exec.run(&Job::of(first));
        }
    }
    for case in cases {
        if fresh {
            exec = make();
        }
        let start = Instant::now();
        let raw = exec.run(&Job::of(case));
        let t0 = Instant::now();
        let _ = judge(case, &raw, is_reference, None);
        f.judge += t0.elapsed();
        f.wall += start.elapsed();
        f.cases += 1;
        if let RawResult::Done(Ok(o)) = &raw {
            let Timings {
                build,
                dispatch,
                readback,
            } = o.timings_us;
            f.build += micros(build);
            f.dispatch += micros(dispatch);
            f.readback += micros(readback);
        }
    }
    f
}
