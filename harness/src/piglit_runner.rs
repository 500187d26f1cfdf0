//! `conform piglit-runner run`: conform in place of deqp-runner's piglit-runner in a job
//! written from Mesa's `.gitlab-ci/piglit/piglit-runner.sh`, with no change but the binary's
//! name. It takes piglit-runner's options as that script passes them (`--piglit-folder`,
//! `--profile`, `--output`, `--skips A B C`, `--flakes`, `--baseline`, `--fraction`,
//! `--fraction-start`, `-j`/`--jobs`, `--timeout`, `--process-isolation`, `-v`), imports the
//! profile's compute shader tests on the fly (only the run shader_runner makes of each), and
//! runs them as `conform run` would, naming results as piglit-runner does (`spec@...`), so
//! results.csv and failures.csv lines go straight into Mesa's fails files. The translation is
//! here; the work is the importer's and `conform run`'s.

use crate::{CmdResult, UsageError};
use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct PiglitRunnerArgs {
    #[command(subcommand)]
    command: PiglitRunnerCommand,
}

#[derive(Subcommand)]
enum PiglitRunnerCommand {
    /// Run a piglit profile's compute shader tests (or conform cases) as piglit-runner runs
    /// a profile: its options, its test names, its files.
    ///
    /// Example: conform piglit-runner run --piglit-folder /piglit --profile quick_shader
    /// --output results --skips all-skips.txt llvmpipe-skips.txt --flakes llvmpipe-flakes.txt
    /// --baseline llvmpipe-fails.txt --process-isolation -v -v
    Run(PiglitRunArgs),
}

#[derive(clap::Args)]
pub struct PiglitRunArgs {
    /// A piglit build (or install): its `tests/<profile>.xml.gz` and `tests/spec/...`.
    #[arg(long, value_name = "DIR", requires = "profile")]
    piglit_folder: Option<PathBuf>,
    /// The profile to run (`quick_gl`, `quick_shader`, ...): its shader tests that hold a
    /// compute shader are imported and run; tests of other kinds are not run.
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// conform cases to run instead of a piglit folder.
    cases: Vec<PathBuf>,
    /// Where results.csv, failures.csv and the reports go (the imported cases in
    /// DIR/imported).
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// Cases run at once per backend; 0: one per CPU.
    #[arg(long, short = 'j', default_value_t = 0)]
    jobs: usize,
    /// Skips files (regex lines); several may follow one flag, as Mesa's script passes them.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    skips: Vec<PathBuf>,
    /// Flakes files (regex lines); several may follow one flag.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    flakes: Vec<PathBuf>,
    /// Known failures (`spec@...,Fail` lines: Mesa's `*-fails.txt`, or a failures.csv).
    #[arg(long, value_name = "FILE")]
    baseline: Vec<PathBuf>,
    /// Seconds a test may take before it is a timeout (default: each case's own limit).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Run every Nth test (this job's share of N; Mesa's `--fraction`).
    #[arg(long, default_value_t = 1)]
    fraction: u32,
    /// The first test of this job's share (1-based; Mesa passes CI_NODE_INDEX).
    #[arg(long, default_value_t = 1)]
    fraction_start: u32,
    /// Accepted as piglit-runner's: conform always runs tests in worker processes, a crashed
    /// or hung one replaced (a crash costs one test).
    #[arg(long)]
    process_isolation: bool,
    /// Accepted as piglit-runner's (-v -v): a CI log gets one line per test anyway.
    #[arg(short, long, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only tests whose piglit name matches one of these regexes.
    #[arg(long, short = 't', value_name = "REGEX", num_args = 1..)]
    include_tests: Vec<String>,
    /// Stop after more than N unexpected failures.
    #[arg(long, value_name = "N")]
    max_fails: Option<usize>,
    /// The driver (default: GALLIUM_DRIVER or MESA_LOADER_DRIVER_OVERRIDE, as Mesa's jobs
    /// name it); any `conform run --backend` name.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
}

/// The command line, with `piglit-runner` put in as the subcommand when conform was started
/// under that name (a link `piglit-runner -> conform`): Mesa's script then runs unchanged.
pub fn argv(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    let mut argv: Vec<OsString> = args.collect();
    let called = argv
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .is_some_and(|n| n == "piglit-runner");
    if called {
        argv.insert(1, "piglit-runner".into());
    }
    argv
}

pub fn cmd_piglit_runner(args: PiglitRunnerArgs) -> CmdResult {
    let PiglitRunnerCommand::Run(args) = args.command;
    cmd_run(args)
}

/// The driver Mesa's job environment names: `GALLIUM_DRIVER` (llvmpipe's and zink's jobs),
/// else `MESA_LOADER_DRIVER_OVERRIDE` (hardware drivers).
fn driver_from_env() -> Option<String> {
    ["GALLIUM_DRIVER", "MESA_LOADER_DRIVER_OVERRIDE"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
}

fn cmd_run(args: PiglitRunArgs) -> CmdResult {
    if args.fraction == 0 {
        return Err("--fraction must be >= 1.".into());
    }
    if args.fraction_start == 0 {
        return Err("--fraction_start must be >= 1.".into());
    }
    if args.fraction_start > args.fraction {
        return Err(format!(
            "--fraction-start {} is above --fraction {}: that share is empty",
            args.fraction_start, args.fraction
        )
        .into());
    }
    let backend = args
        .backend
        .clone()
        .or_else(driver_from_env)
        .ok_or_else(|| {
            UsageError::from(
                "no driver named: set GALLIUM_DRIVER (as Mesa's llvmpipe and zink jobs do) or \
             MESA_LOADER_DRIVER_OVERRIDE, or pass --backend",
            )
        })?;
    let include: Vec<regex::Regex> = args
        .include_tests
        .iter()
        .map(|r| regex::Regex::new(r).map_err(|e| format!("-t {r}: {e}")))
        .collect::<Result<_, _>>()?;
    let cases = match (&args.piglit_folder, args.cases.is_empty()) {
        (Some(folder), true) => vec![import_profile(&args, folder, &include)?],
        (None, false) if include.is_empty() => args.cases.clone(),
        (None, false) => return Err("-t applies to a piglit profile's tests".into()),
        (Some(_), false) => {
            return Err("give either --piglit-folder and --profile, or conform cases".into())
        }
        (None, true) => {
            return Err("--piglit-folder and --profile (or conform cases) are needed".into())
        }
    };
    // `conform run`'s arguments (parsed below as RunArgs alone: no subcommand word).
    let mut argv: Vec<OsString> = vec!["conform run".into()];
    argv.extend(cases.into_iter().map(OsString::from));
    let jobs = if args.jobs == 0 {
        crate::default_jobs()
    } else {
        args.jobs
    };
    for (flag, value) in [
        ("--backend", backend.into()),
        ("--out", args.output.clone().into_os_string()),
        ("--jobs", jobs.to_string().into()),
        // deqp-runner runs a failing test once more, and a changed result is a Flake.
        ("--retry", "1".into()),
        ("--test-names", "piglit-runner".into()),
        (
            "--shard",
            format!("{}/{}", args.fraction_start, args.fraction).into(),
        ),
    ] {
        argv.push(flag.into());
        argv.push(value);
    }
    // deqp-runner fails a run on an unexpected improvement too (its exit code 2).
    argv.push("--strict".into());
    let files = [
        ("--skips", &args.skips),
        ("--flakes", &args.flakes),
        ("--baseline", &args.baseline),
    ];
    for (flag, paths) in files {
        for p in paths {
            argv.push(flag.into());
            argv.push(p.clone().into_os_string());
        }
    }
    if let Some(s) = args.timeout {
        if !(s.is_finite() && s > 0.0) {
            return Err(format!("--timeout {s}: seconds above 0").into());
        }
        argv.push("--timeout".into());
        argv.push(format!("{}ms", (s * 1000.0).ceil().min(u64::MAX as f64) as u64).into());
    }
    if let Some(n) = args.max_fails {
        argv.push("--max-fails".into());
        argv.push(n.to_string().into());
    }
    #[derive(Parser)]
    struct RunOnly {
        #[command(flatten)]
        run: crate::RunArgs,
    }
    let run = RunOnly::try_parse_from(argv).map_err(|e| e.to_string())?;
    crate::cmd_run(run.run)
}

/// Imports the profile's compute shader tests that `include` selects into
/// `<output>/imported`, as shader_runner runs them; returns that directory.
fn import_profile(
    args: &PiglitRunArgs,
    folder: &std::path::Path,
    include: &[regex::Regex],
) -> Result<PathBuf, UsageError> {
    use conform_piglit::piglit::{convert_paths_with, profile, Runs};
    let name = args.profile.as_deref().unwrap_or_default();
    let profile = profile::read(folder, name, args.process_isolation)?;
    let files: Vec<PathBuf> = profile
        .shader_tests
        .iter()
        .filter(|t| include.is_empty() || include.iter().any(|r| r.is_match(&t.name)))
        .map(|t| folder.join(&t.file))
        .collect();
    // An earlier run's directory is refused by the run; refused here first, before its
    // imported cases are replaced.
    if conform_judge::results::holds_a_run(&args.output) {
        return Err(format!(
            "{} already holds the results of an earlier run; conform never adds to them: choose a new --output (or remove the directory)",
            args.output.display()
        )
        .into());
    }
    let out = args.output.join("imported");
    if out.exists() {
        std::fs::remove_dir_all(&out)
            .map_err(|e| format!("cannot empty {}: {e}", out.display()))?;
    }
    let summary = convert_paths_with(&files, &out, Runs::AsShaderRunner)
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let t = summary.totals();
    eprintln!(
        "piglit-runner: profile {name}: {} shader tests ({} selected) and {} tests of other kinds; \
         {} selected files hold no compute shader and are not run; {} compute tests gave {} cases \
         ({} not expressible: {}/{})",
        profile.shader_tests.len(),
        files.len(),
        profile.other_tests,
        t.not_compute,
        t.compute_tests,
        t.cases,
        t.skipped + t.errors,
        out.display(),
        conform_piglit::piglit::SUMMARY_FILE
    );
    Ok(out)
}
