//! The CI options of `run`, `merge` and `report` as the command line spells them; the gate
//! (`conform_report::ci`) does the work.

use conform_judge::shard::Shard;
use conform_report::ci::GateOptions;
use std::path::PathBuf;

/// `--timeout DURATION`: within a case's own bounds for `timeout_ms` (1 ms to
/// `conform_case::limits::MAX_TIMEOUT_MS`, ten minutes), so a typo cannot make a hung case
/// hold a CI machine for days; clap reports the error and exits 2.
pub fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    let d = humantime::parse_duration(s).map_err(|e| e.to_string())?;
    timeout_ms(d.as_millis()).map(|_| d)
}

/// `--timeout-ms N` (the former spelling): the same bounds.
pub fn parse_timeout_ms(s: &str) -> Result<u64, String> {
    let ms: u64 = s.parse().map_err(|e| format!("{e}"))?;
    timeout_ms(u128::from(ms))
}

fn timeout_ms(ms: u128) -> Result<u64, String> {
    let max = conform_case::limits::MAX_TIMEOUT_MS;
    if ms == 0 {
        return Err("a per-case time limit must be at least 1ms".into());
    }
    if ms > u128::from(max) {
        return Err(format!(
            "{ms} ms is above {max} ms (10m), the most a case's timeout_ms may be"
        ));
    }
    Ok(ms as u64)
}

/// The gating options shared by `run`, `merge` and `report`.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct GateArgs {
    /// Known failures: `backend,case,status` lines (status: fail, crash, timeout, any;
    /// backend may be *) or deqp-runner's `name,Status[,seconds]` lines (a previous
    /// failures.csv), `#` comments. Listed failures do not fail the run. May be given more
    /// than once (one file per driver build); a test listed in two files is an error.
    #[arg(long, value_name = "FILE")]
    pub baseline: Vec<PathBuf>,
    /// Known flaky cases: `backend,regex` lines (the regex matches the whole case name;
    /// backend may be *) or deqp-runner's bare regex lines. Their failures do not fail the
    /// run. May be given more than once.
    #[arg(long, value_name = "FILE")]
    pub flakes: Vec<PathBuf>,
    /// Also fail (exit 1) on unexpected improvements: baseline entries that passed, were skipped, or failed where a crash or timeout was listed.
    #[arg(long)]
    pub strict: bool,
    /// Write a baseline listing this run's failures (flakes excluded) to FILE.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// The form --write-baseline writes: deqp (deqp-runner's `backend/case,Status`, which
    /// deqp-runner and conform both read) or conform (`backend,case,status`).
    #[arg(long, value_name = "FORMAT", default_value = "deqp")]
    pub baseline_format: conform_gate::gate::BaselineFormat,
    /// How results.csv, failures.csv and --write-baseline name tests: conform
    /// (`backend/case`, the default) or piglit-runner (an imported piglit test as
    /// piglit-runner names it, `spec@...`; other cases by name: for a run of one driver,
    /// whose lines then go into Mesa's fails files as they are). `report` and `merge`
    /// default to the run's.
    #[arg(long, value_name = "NAMES")]
    pub test_names: Option<conform_gate::gate::TestNames>,
}

/// `conform run`'s CI options.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct RunCiArgs {
    #[command(flatten)]
    pub gate: GateArgs,
    /// Cases not to run: lines like --flakes (`backend,regex` or a bare regex); they are
    /// reported as skips. May be given more than once.
    #[arg(long, value_name = "FILE")]
    pub skips: Vec<PathBuf>,
    /// Run a failing, crashing or timing-out case up to N more times; one that passes on a
    /// retry is a flake, one that fails every time a regression.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub retry: u32,
    /// Run only shard I of N (1-based): a deterministic slice of the cases. Combine the
    /// shards' output directories with `conform merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Do not gate on the results: exit 0 on regressions and invalid cases (still 3 when the
    /// run is incomplete). For shard jobs whose `conform merge` gates.
    #[arg(long)]
    pub no_gate: bool,
    /// Stop after more than N failures, crashes or timeouts the baseline does not expect
    /// (deqp-runner's option); the cases not started are missing and the run is incomplete.
    #[arg(long, value_name = "N")]
    pub max_fails: Option<usize>,
}

/// `conform merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Output directories of shard runs (each holds a results.jsonl).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where to write the combined results.jsonl and reports (default:
    /// reports/merge-<timestamp>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Without --baseline/--flakes, the gating the shards ran with (their gating.json).
    #[command(flatten)]
    pub gate: GateArgs,
}

/// `conform report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// A run's output directory (holding results.jsonl).
    pub dir: PathBuf,
    /// Without --baseline/--flakes, the gating the run used (its gating.json).
    #[command(flatten)]
    pub gate: GateArgs,
}

impl GateArgs {
    /// The gate's view of these options.
    pub fn options(&self) -> GateOptions {
        GateOptions {
            baseline: self.baseline.clone(),
            flakes: self.flakes.clone(),
            strict: self.strict,
            write_baseline: self.write_baseline.clone(),
            baseline_format: self.baseline_format,
            test_names: self.test_names,
        }
    }
}
