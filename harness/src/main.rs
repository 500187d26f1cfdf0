//! `conform`: the command line. Each subcommand is a few lines over the library modules.
//!
//! Exit codes: 0 when nothing regressed and the run is complete, 1 on a regression (a
//! failure, crash or timeout not in the `--baseline` nor the `--flakes` list, failing every
//! `--retry`; also an unexpected improvement with `--strict`), 3 when the run is incomplete (killed,
//! interrupted, partial, an empty selection, an absent backend, an incomplete shard set), 2 on
//! usage errors or invalid cases (docs/CI.md).

mod ci_args;
mod fuzz_cmd;
mod piglit_runner;
use fuzz_cmd::{cmd_fuzz, cmd_litmus, FuzzArgs, LitmusArgs};

use clap::{CommandFactory, Parser, Subcommand};
use conform_case::clauses::Coverage;
use conform_case::corpus::{self, InvalidCase, Loaded};
use conform_case::{self as case, Case};
use conform_glrunner::Driver;
use conform_io::escape;
use conform_judge::results;
use conform_plan::RawResult;
use conform_run::backend::current_exe;
use conform_run::backend::BackendFactory;
use conform_run::drivers::{self as gl_drivers, backends};
use conform_run::run::{self, RunConfig};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "conform", version, about = "Conformance suite and fuzzing harness for GPU compute in OpenGL", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour the output: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, default_value_t = conform_io::console::ColorChoice::Auto)]
    color: conform_io::console::ColorChoice,
}

#[derive(Subcommand)]
enum Command {
    /// Run cases on the reference interpreter and GL drivers, compare, and write a report.
    ///
    /// Example: conform run cases/nv_compute_program5 --backend reference --filter atoms
    Run(RunArgs),
    /// piglit-runner's command line (Mesa CI's piglit-runner.sh calls, unchanged): a piglit
    /// profile's compute shader tests imported and run, named and reported as piglit-runner
    /// does (docs/CI.md).
    PiglitRunner(piglit_runner::PiglitRunnerArgs),
    /// Check case files without running them; print one diagnostic per problem.
    ///
    /// Example: conform validate cases/
    Validate {
        #[command(flatten)]
        paths: CasePaths,
    },
    /// List the cases with the clauses they name.
    ///
    /// Example: conform list cases/ --filter shuffle --format json
    List {
        #[command(flatten)]
        select: Selection,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Show one case: program, buffers, steps and its expected memory in typed form.
    ///
    /// Example: conform show nv_compute_program5/atoms-iwrap-wraps
    Show {
        /// A case name or a path to a case file.
        case: String,
        /// Case files or directories to look for the name in.
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
        /// Former spelling of PATHS (one directory).
        #[arg(long, hide = true)]
        root: Option<PathBuf>,
        #[command(flatten)]
        outside: OutsideRoot,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Run one case in this process, not in a worker, for a debugger: the driver crashes
    /// with its own stack (and the GL call it was in) under gdb, rr or valgrind. Prints the
    /// verdict; exits 1 when the case fails.
    ///
    /// Example: gdb --args conform debug arb_compute_shader/glsl-shared-atomics --backend llvmpipe
    Debug {
        /// A case name or a path to a case file.
        case: String,
        /// Case files or directories to look for the name in.
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
        /// One backend: reference or a driver (llvmpipe, radeonsi, egl:renderD128, ...).
        #[arg(long, default_value = "llvmpipe", value_name = "NAME")]
        backend: String,
        #[command(flatten)]
        outside: OutsideRoot,
    },
    /// Print the reference interpreter's output (final buffers, typed) for each case.
    ///
    /// Example: conform golden cases/nv_shader_thread_shuffle --filter shfidx
    Golden {
        #[command(flatten)]
        select: Selection,
    },
    /// Spec coverage: clauses named by valid cases / all clauses, per extension, and the
    /// uncovered ones.
    ///
    /// Example: conform coverage cases/ --format json
    Coverage {
        #[command(flatten)]
        paths: CasePaths,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Measure each backend's throughput on the corpus and where a case's time goes
    /// (build, dispatch, readback, conform's overhead), with one reused worker and, with
    /// --fresh N, with a fresh worker process for each of the first N cases.
    ///
    /// Example: conform bench cases/ --backend llvmpipe --fresh 40
    Bench {
        #[command(flatten)]
        select: Selection,
        #[command(flatten)]
        backend: BackendArg,
        /// Also time a fresh worker process per case on the first N cases.
        #[arg(long, value_name = "N")]
        fresh: Option<usize>,
    },
    /// Probe every GL driver: renderer, version, GLSL version, compute limits, the relevant
    /// extensions and the SPIR-V extensions.
    ///
    /// Example: conform drivers --format json
    Drivers {
        /// Probe the drivers of this Mesa install prefix instead of the system's (what
        /// `--backend llvmpipe@PREFIX` would run; docs/DRIVERS.md, "Mesa installs").
        #[arg(long, value_name = "PREFIX")]
        mesa: Option<String>,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Combine the output directories of shard runs (`run --shard I/N`) into one result set
    /// and write the same reports as a run; exits like a run.
    ///
    /// Example: conform merge shard-1 shard-2 shard-3 --out merged --baseline ci/baseline.txt
    Merge(ci_args::MergeArgs),
    /// Rebuild a run's reports (report.html, summary.md, JUnit) from its results.jsonl.
    ///
    /// Example: conform report reports/run-20261121T120000Z
    Report(ci_args::ReportArgs),
    /// Compare runs (piglit's `summary`): per case and backend, the regressions, fixes,
    /// other changes, new and missing results between each run and the next and between the
    /// first and the last, as Markdown or HTML. Exits 1 when the last run has a regression
    /// against the first, 2 on bad input.
    ///
    /// Example: conform compare reports/last-night reports/tonight --output diff.md
    Compare {
        /// Run (or merge) output directories, oldest first; one with --backends.
        #[arg(required = true, value_name = "RUN_DIR")]
        dirs: Vec<PathBuf>,
        /// Within one run directory, compare backend BEFORE's results with AFTER's
        /// (e.g. llvmpipe,llvmpipe@25.0.7).
        #[arg(long, value_delimiter = ',', value_name = "BEFORE,AFTER")]
        backends: Option<Vec<String>>,
        /// markdown or html (a self-contained page).
        #[arg(long, default_value = "markdown")]
        format: conform_report::compare::Format,
        /// Write to FILE instead of standard output.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// JUnit XML from a results.csv (conform's or deqp-runner's `name,Status,seconds` lines),
    /// one suite per backend, like `deqp-runner junit`.
    ///
    /// Example: conform junit reports/run-20261121T120000Z/results.csv --out junit.xml
    Junit {
        /// A results.csv (or failures.csv); or give it as --results, as deqp-runner does.
        #[arg(value_name = "RESULTS", required_unless_present = "results")]
        results_file: Option<PathBuf>,
        /// A results.csv or failures.csv (deqp-runner's spelling).
        #[arg(long, value_name = "FILE", conflicts_with = "results_file")]
        results: Option<PathBuf>,
        /// Where to write the XML (default: standard output).
        #[arg(long, short = 'o', visible_alias = "out", value_name = "FILE")]
        output: Option<PathBuf>,
        /// The suite of names without a `backend/` prefix, and the report's title.
        #[arg(long, default_value = "conform")]
        testsuite: String,
        /// List only the first N test cases by name (0: all), as deqp-runner does.
        #[arg(long, value_name = "N", default_value_t = 0)]
        limit: usize,
        /// Each failure's message, `{{testcase}}` replaced by the test name (deqp-runner's
        /// --template; e.g. a link to the job's logs).
        #[arg(long, value_name = "TEMPLATE", default_value = "")]
        template: String,
    },
    /// Generate programs, run them on the reference and GL drivers, and reduce every
    /// divergence from the fuzzer's model to a minimal case in <out>/<signature>/case.yaml.
    /// Resumable: rerun with the same --corpus (and seed and languages) to go on. Exits 1 when
    /// this session found a divergence not in the corpus before, 0 otherwise. `conform fuzz
    /// merge` merges the campaigns of many machines.
    ///
    /// Example: conform fuzz --backend llvmpipe --time 10m --seed 1 --lang glsl
    Fuzz(FuzzArgs),
    /// Run memory-model litmus tests (MP, SB, LB, S, 2+2W, CoRR, IRIW over shared memory and
    /// storage buffers, with and without fences) on the reference and GL drivers, print the
    /// histogram of observed outcomes per test, and write a reduced case for every outcome the
    /// specs forbid to <out>/<backend>-<test>/case.yaml. Exits 1 when one was seen.
    ///
    /// Example: LP_NUM_THREADS=2 conform litmus --backend llvmpipe --shape mp,sb --stress 8
    Litmus(LitmusArgs),
    /// Print a shell completion script on stdout.
    ///
    /// Example: conform completions bash > ~/.local/share/bash-completion/completions/conform
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Write man pages: conform.1 and one per command (conform-run.1, ...).
    ///
    /// Example: conform man --out ~/.local/share/man/man1
    Man {
        /// Where the pages go (created if needed).
        #[arg(long, default_value = "reports/man", value_name = "DIR")]
        out: PathBuf,
    },
    /// Convert test suites users already have into conform cases (docs/IMPORT.md).
    ///
    /// Example: conform import piglit ~/piglit/tests/spec --out cases-piglit
    #[command(subcommand)]
    Import(ImportCommand),
    /// Run one case on the reference and the backends named and write its failure as a
    /// Markdown bug report for an upstream issue: driver identity, what the program does, the
    /// spec text of its clauses, expected against actual, the program and inputs, and how to
    /// reproduce it with piglit's shader_runner (the exported test, attached) and with
    /// conform. Exits 1 when the case fails on none of them (nothing to report).
    ///
    /// Example: conform bugreport glsl/builtin-modf-frexp-ldexp --backend llvmpipe,llvmpipe@~/mesa-25
    Bugreport {
        /// A case name or a path to a case file.
        case: String,
        /// Case files or directories to look for the name in.
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        backend: BackendArg,
        /// Write the report here (default: standard output).
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
        /// The report's title after the driver, checked by hand: what is wrong, in the words
        /// a driver developer searches for (default: the case description's first sentence).
        #[arg(long, value_name = "TEXT")]
        title: Option<String>,
    },
    /// Write cases in other suites' formats.
    ///
    /// Example: conform export piglit cases/arb_compute_shader --out exported
    #[command(subcommand)]
    Export(ExportCommand),
    /// Run one case on one driver of several Mesa builds, in Mesa version order, and name the
    /// build where its result changed (first bad, first good), with each build's identity.
    ///
    /// Example: conform bisect glsl/float-divide-by-constant-zero --backend llvmpipe --builds system ~/mesa-25 ~/mesa-sid
    Bisect {
        /// A case name or a path to a case file.
        case: String,
        /// Case files or directories to look for the name in.
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
        /// The driver: llvmpipe, softpipe, zink, a hardware driver, or vk:lavapipe.
        #[arg(long, value_name = "DRIVER")]
        backend: String,
        /// The builds: Mesa install prefixes or roots (`bash .ci/deps mesa-debian sid DIR`),
        /// and `system` for the system's Mesa.
        #[arg(long, num_args = 1.., required = true, value_name = "DIR")]
        builds: Vec<String>,
    },
    /// Internal: a worker process for a driver or for the reference (the harness starts
    /// these; see docs/DRIVERS.md).
    #[command(hide = true)]
    Worker {
        #[arg(
            long,
            required_unless_present_any = ["reference", "list_devices", "vulkan"],
            conflicts_with_all = ["reference", "list_devices", "vulkan"]
        )]
        driver: Option<String>,
        #[arg(long, conflicts_with_all = ["list_devices", "vulkan"])]
        reference: bool,
        /// Print every EGL device as JSON and exit.
        #[arg(long)]
        list_devices: bool,
        /// A Vulkan driver's worker (`lavapipe`, `radv`, `anv`, `nvidia`).
        #[arg(long, conflicts_with = "list_devices")]
        vulkan: Option<String>,
    },
}

#[derive(Subcommand)]
enum ExportCommand {
    /// Each case as a piglit `.shader_test` that shader_runner runs unchanged
    /// (`out/<case name>.shader_test`), its header citing the case's clauses. A case piglit
    /// cannot state is refused with its reason; checks it can state only in part are left
    /// out and the file says so (docs/EXPORT.md). Exits 2 when a case file is invalid, 0
    /// otherwise (refusals are listed, not errors).
    Piglit {
        #[command(flatten)]
        select: Selection,
        /// Where the `.shader_test` files go.
        #[arg(long)]
        out: PathBuf,
    },
}

#[derive(Subcommand)]
enum ImportCommand {
    /// piglit `.shader_test` files with `[compute shader]` / `[compute shader spirv]`
    /// sections: one case per test (`piglit/<path under tests/spec>`), a summary printed and
    /// written as `<out>/import-summary.json`. Exits 2 when a file is malformed or
    /// unreadable (the others are still converted), 0 otherwise.
    Piglit {
        /// `.shader_test` files or directories (searched recursively).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Where the cases and the summary go.
        #[arg(long)]
        out: PathBuf,
    },
}

/// The case files a command reads: the same positional paths everywhere.
#[derive(clap::Args)]
struct CasePaths {
    /// Case files or directories (searched recursively).
    #[arg(default_value = "cases")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    outside: OutsideRoot,
}

/// `--allow-outside-root`, on the commands that load cases (and only there: it means nothing
/// to `drivers`, `man` or `merge`).
#[derive(clap::Args)]
struct OutsideRoot {
    /// Let cases read program files outside their case root (the directory given, or for a
    /// case file the nearest directory above it holding clauses.yaml). Only for cases you
    /// trust: a case's files end up in the reports.
    #[arg(long)]
    allow_outside_root: bool,
}

impl Command {
    /// `--allow-outside-root` of a command that loads cases; false for the others.
    fn allow_outside_root(&self) -> bool {
        let outside = match self {
            Command::Run(a) => &a.select.paths.outside,
            Command::Validate { paths } | Command::Coverage { paths, .. } => &paths.outside,
            Command::List { select, .. }
            | Command::Golden { select }
            | Command::Bench { select, .. } => &select.paths.outside,
            Command::Show { outside, .. } | Command::Debug { outside, .. } => outside,
            _ => return false,
        };
        outside.allow_outside_root
    }
}

/// Case paths and a name filter.
#[derive(clap::Args)]
struct Selection {
    #[command(flatten)]
    paths: CasePaths,
    /// Only cases whose name matches this regex (found anywhere in the name).
    #[arg(long, value_name = "REGEX")]
    filter: Option<String>,
}

/// `--backend`, with the same default everywhere.
#[derive(clap::Args)]
struct BackendArg {
    /// Backends, comma-separated: reference, llvmpipe, softpipe, zink, nvidia, or all (the
    /// reference and every driver found, the default). A driver named but absent makes a
    /// run incomplete; one `all` does not find is simply not part of it.
    #[arg(
        long,
        default_value = "all",
        value_delimiter = ',',
        value_name = "NAMES"
    )]
    backend: Vec<String>,
}

/// `--format`: for commands that print data.
#[derive(clap::Args)]
struct FormatArg {
    /// text (for people) or json (for scripts; one JSON document on stdout).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(clap::Args)]
struct RunArgs {
    #[command(flatten)]
    select: Selection,
    #[command(flatten)]
    backend: BackendArg,
    /// Cases run at once per backend (worker processes per driver).
    #[arg(long, short = 'j', default_value_t = default_jobs())]
    jobs: usize,
    /// Output directory (default: reports/run-<timestamp>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Per-case time limit (e.g. 500ms, 10s; at most 10m, as a case's `timeout_ms`),
    /// overriding each case's `timeout_ms`.
    #[arg(long, value_parser = ci_args::parse_timeout, value_name = "DURATION")]
    timeout: Option<std::time::Duration>,
    /// Former spelling of --timeout, in milliseconds.
    #[arg(long, hide = true, conflicts_with = "timeout", value_parser = ci_args::parse_timeout_ms)]
    timeout_ms: Option<u64>,
    /// Run cases even where the driver does not advertise what they require.
    #[arg(long)]
    force: bool,
    /// When stdout is not a terminal (a CI log), print a line with the counts so far and the
    /// cases still running this often (e.g. 30s, 2m), besides one line per finished case.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    heartbeat: std::time::Duration,
    /// Stop before any case, exit 2, unless every driver's GL_RENDERER matches this regex
    /// (deqp-runner's option: a job that got another driver than it meant measures nothing).
    #[arg(long, value_name = "REGEX", value_parser = parse_regex)]
    renderer_check: Option<regex::Regex>,
    /// Stop before any case, exit 2, unless every driver's GL_VERSION matches this regex
    /// (e.g. `Mesa 25\.0`).
    #[arg(long, value_name = "REGEX", value_parser = parse_regex)]
    version_check: Option<regex::Regex>,
    #[command(flatten)]
    ci: ci_args::RunCiArgs,
}

fn parse_regex(s: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(s).map_err(|e| e.to_string())
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A usage error or a problem that stops a command before it produces a result: printed as
/// `error: ...` and exit code 2, in one place ([`main`]).
struct UsageError(String);

impl<T: std::fmt::Display> From<T> for UsageError {
    fn from(e: T) -> Self {
        UsageError(e.to_string())
    }
}

type CmdResult = Result<u8, UsageError>;

fn main() -> ExitCode {
    let result = try_main();
    // Output that could not be written (a full disk, not a closed pipe) fails the command
    // whatever its work decided: a CI job must not take a cut JUnit file for a whole one.
    if let Some(why) = conform_io::console::lost() {
        eprintln!("error: cannot write standard output: {why}; the output is incomplete");
        return ExitCode::from(2);
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(UsageError(msg)) => {
            eprintln!("error: {}", escape::text(&msg));
            ExitCode::from(2)
        }
    }
}

fn try_main() -> CmdResult {
    let cli = Cli::parse_from(piglit_runner::argv(std::env::args_os()));
    conform_io::console::set_color(cli.color);
    ALLOW_OUTSIDE_ROOT.store(
        cli.command.allow_outside_root(),
        std::sync::atomic::Ordering::Relaxed,
    );
    match cli.command {
        Command::Run(args) => cmd_run(args),
        Command::Validate { paths } => cmd_validate(&paths.paths),
        Command::List { select, format } => {
            cmd_list(&select.paths.paths, select.filter.as_deref(), format.format)
        }
        Command::Show {
            case,
            paths,
            root,
            format,
            ..
        } => {
            let paths = root.map_or(paths, |r| vec![r]);
            cmd_show(&case, &paths, format.format)
        }
        Command::Debug {
            case,
            paths,
            backend,
            ..
        } => cmd_debug(&case, &paths, &backend),
        Command::Golden { select } => cmd_golden(&select.paths.paths, select.filter.as_deref()),
        Command::Coverage { paths, format } => cmd_coverage(&paths.paths, format.format),
        Command::Drivers { mesa, format } => cmd_drivers(mesa.as_deref(), format.format),
        Command::Merge(args) => Ok(conform_report::ci::merge(
            &args.dirs,
            args.out,
            &args.gate.options(),
        )),
        Command::Report(args) => Ok(conform_report::ci::report(&args.dir, &args.gate.options())),
        Command::Compare {
            dirs,
            backends,
            format,
            output,
        } => cmd_compare(dirs, backends, format, output),
        Command::Bench {
            select,
            backend,
            fresh,
        } => cmd_bench(
            &select.paths.paths,
            &backend.backend,
            select.filter.as_deref(),
            fresh,
        ),
        Command::Fuzz(args) => cmd_fuzz(args),
        Command::Litmus(args) => cmd_litmus(args),
        Command::PiglitRunner(args) => piglit_runner::cmd_piglit_runner(args),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "conform", &mut out);
            conform_io::out!("{}", String::from_utf8_lossy(&out));
            Ok(0)
        }
        Command::Man { out } => cmd_man(&out),
        Command::Junit {
            results_file,
            results,
            output,
            testsuite,
            limit,
            template,
        } => {
            let options = conform_report::junit::RowsOptions {
                testsuite,
                limit,
                template,
            };
            let results = results.or(results_file).unwrap_or_default();
            cmd_junit(&results, output.as_deref(), &options)
        }
        Command::Import(ImportCommand::Piglit { paths, out }) => cmd_import_piglit(&paths, &out),
        Command::Export(ExportCommand::Piglit { select, out }) => cmd_export_piglit(&select, &out),
        Command::Bugreport {
            case,
            paths,
            backend,
            output,
            title,
        } => cmd_bugreport(
            &case,
            &paths,
            &backend.backend,
            output.as_deref(),
            title.as_deref(),
        ),
        Command::Bisect {
            case,
            paths,
            backend,
            builds,
        } => cmd_bisect(&case, &paths, &backend, &builds),
        Command::Worker {
            driver,
            reference,
            list_devices,
            vulkan,
        } => {
            let code = match (driver, vulkan) {
                _ if list_devices => conform_glrunner::devices_main(),
                (_, Some(v)) => conform_vkrunner::vk_worker_main(v.parse()?),
                (Some(d), _) if !reference => conform_glrunner::worker_main(d.parse::<Driver>()?),
                _ => conform_run::reference::worker_main(),
            };
            Ok(code.clamp(0, 255) as u8)
        }
    }
}

/// Whether cases may read files outside their case root (`--allow-outside-root`).
static ALLOW_OUTSIDE_ROOT: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// The cases under `paths` (`conform_case::corpus`), warnings printed.
fn load_all(paths: &[PathBuf]) -> Result<Loaded, String> {
    load_filtered(paths, None)
}

/// [`load_all`], keeping only the valid cases whose name matches `filter`.
fn load_filtered(paths: &[PathBuf], filter: Option<&str>) -> Result<Loaded, String> {
    let anywhere = ALLOW_OUTSIDE_ROOT.load(std::sync::atomic::Ordering::Relaxed);
    let loaded = corpus::load(paths, filter, anywhere)?;
    for w in &loaded.warnings {
        eprintln!("{}", escape::text(w));
    }
    Ok(loaded)
}

/// Exit code 2 when some case files are invalid, 0 otherwise.
fn invalid_code(loaded: &Loaded) -> u8 {
    if loaded.invalid.is_empty() {
        0
    } else {
        2
    }
}

fn print_invalid(invalid: &[InvalidCase]) {
    for bad in invalid {
        for d in &bad.diagnostics {
            eprintln!("{}", escape::text(d));
        }
    }
}

fn cmd_validate(paths: &[PathBuf]) -> CmdResult {
    let loaded = load_all(paths)?;
    if loaded.catalogue.is_none() {
        eprintln!("{}", corpus::no_catalogue_warning(paths));
    }
    print_invalid(&loaded.invalid);
    conform_io::outln!(
        "{} valid, {} invalid",
        loaded.cases.len(),
        loaded.invalid.len()
    );
    Ok(invalid_code(&loaded))
}

fn cmd_list(paths: &[PathBuf], filter: Option<&str>, format: Format) -> CmdResult {
    let loaded = load_filtered(paths, filter)?;
    if format == Format::Json {
        let cases: Vec<serde_json::Value> = loaded
            .cases
            .iter()
            .map(|c| serde_json::json!({"name": c.name, "path": c.path, "spec": c.spec}))
            .collect();
        print_json(&cases)?;
        print_invalid(&loaded.invalid);
        return Ok(invalid_code(&loaded));
    }
    for c in &loaded.cases {
        if conform_io::console::closed() {
            break;
        }
        conform_io::outln!(
            "{:<60} {}",
            escape::line(&c.name),
            escape::line(&c.spec.join(" "))
        );
    }
    print_invalid(&loaded.invalid);
    Ok(invalid_code(&loaded))
}

fn cmd_coverage(paths: &[PathBuf], format: Format) -> CmdResult {
    let loaded = load_all(paths)?;
    let Some(cat) = &loaded.catalogue else {
        return Err("coverage needs a clauses.yaml (cases/clauses.yaml)".into());
    };
    let cov = Coverage::compute(
        cat,
        loaded
            .cases
            .iter()
            .map(|c| (c.name.as_str(), c.spec.as_slice())),
    );
    if format == Format::Json {
        let extensions: Vec<serde_json::Value> = cov
            .per_extension
            .iter()
            .map(|(ext, covered, uncovered)| {
                serde_json::json!({"extension": ext, "covered": covered, "uncovered": uncovered})
            })
            .collect();
        print_json(&serde_json::json!({
            "extensions": extensions,
            "cases_by_clause": cov.cases_by_clause,
        }))?;
    } else {
        conform_io::out!("{}", cov.render());
    }
    if !loaded.invalid.is_empty() {
        eprintln!(
            "\n{} invalid case(s) not counted; run `conform validate`",
            loaded.invalid.len()
        );
    }
    Ok(0)
}

/// The case `name` names (a case name under `roots`, or a case file); `Ok(Err(2))` when it
/// is invalid (its diagnostics are printed).
fn find_case(command: &str, name: &str, roots: &[PathBuf]) -> Result<Result<Case, u8>, UsageError> {
    let path = Path::new(name);
    let paths = if path.is_file() {
        vec![path.to_path_buf()]
    } else {
        if let Some(why) = corpus::missing_root(command, name, roots) {
            return Err(why.into());
        }
        roots.to_vec()
    };
    let mut loaded = load_all(&paths)?;
    if let Some(i) = loaded
        .cases
        .iter()
        .position(|c| c.name == name || c.path == path)
    {
        return Ok(Ok(loaded.cases.swap_remove(i)));
    }
    if let Some(bad) = loaded
        .invalid
        .iter()
        .find(|b| b.path == path || case::default_name(&b.path) == name)
    {
        print_invalid(std::slice::from_ref(bad));
        return Ok(Err(2));
    }
    let invalid: Vec<String> = loaded
        .invalid
        .iter()
        .map(|b| case::default_name(&b.path))
        .collect();
    let names = loaded.cases.iter().map(|c| c.name.as_str());
    Err(corpus::no_such_case(name, roots, names.chain(invalid.iter().map(String::as_str))).into())
}

fn cmd_show(name: &str, roots: &[PathBuf], format: Format) -> CmdResult {
    match find_case("show", name, roots)? {
        Ok(case) if format == Format::Json => {
            print_json(&serde_json::json!({
                "name": case.name,
                "path": case.path,
                "description": case.description,
                "spec": case.spec,
                "plan": case.plan,
                "text": conform_case::show::render(&case),
            }))?;
            Ok(0)
        }
        Ok(case) => {
            conform_io::out!("{}", escape::text(&conform_case::show::render(&case)));
            Ok(0)
        }
        Err(code) => Ok(code),
    }
}

/// Prints `value` as one pretty JSON document on stdout.
fn print_json(value: &impl serde::Serialize) -> Result<(), UsageError> {
    let text = serde_json::to_string_pretty(value)?;
    conform_io::outln!("{text}");
    Ok(())
}

fn cmd_debug(name: &str, roots: &[PathBuf], backend: &str) -> CmdResult {
    let case = match find_case("debug", name, roots)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let job = conform_run::backend::Job::of(&case);
    // The reference's output first (drivers are judged against it where a case says
    // `reference: true`); it runs in this process too and loads no GL.
    let golden = match run::ReferenceExecutor::run_job(&job) {
        RawResult::Done(Ok(o)) => Some(o),
        _ => None,
    };
    let (raw, is_reference) = if backend == "reference" {
        (run::ReferenceExecutor::run_job(&job), true)
    } else {
        let driver = gl_drivers::parse_driver(backend)?;
        eprintln!(
            "running {} on {driver} in this process (pid {})",
            escape::line(&case.name),
            std::process::id()
        );
        let (info, result) = conform_glrunner::run_in_process(driver, job.plan)
            .map_err(|e| format!("{driver}: {e}"))?;
        if let Some(what) = gl_drivers::missing_requirement(&job, &info) {
            eprintln!("note: {driver} does not advertise {what}; ran anyway");
        }
        (RawResult::Done(result), false)
    };
    let v = conform_judge::judge(&case, &raw, is_reference, golden.as_ref());
    let failing = !v.allowed
        && matches!(
            v.status,
            results::Status::Fail | results::Status::Crash | results::Status::Timeout
        );
    let message = if v.message.is_empty() {
        String::new()
    } else {
        format!(": {}", escape::line(&v.message))
    };
    conform_io::outln!(
        "{} {} [{}]{message}",
        v.status.name().to_uppercase(),
        escape::line(&case.name),
        escape::line(backend),
    );
    for d in &v.details {
        conform_io::outln!("    {}", escape::line(d));
    }
    Ok(u8::from(failing))
}

fn cmd_golden(paths: &[PathBuf], filter: Option<&str>) -> CmdResult {
    let loaded = load_filtered(paths, filter)?;
    for c in &loaded.cases {
        if conform_io::console::closed() {
            break;
        }
        conform_io::outln!("== {}", escape::line(&c.name));
        match run::ReferenceExecutor::run_job(&conform_run::backend::Job::of(c)) {
            RawResult::Done(Ok(o)) => {
                conform_io::out!(
                    "{}",
                    escape::text(&conform_case::show::render_outcome(c, &o))
                )
            }
            other => conform_io::outln!(
                "  no output: {}",
                escape::line(&conform_judge::judge(c, &other, true, None).message)
            ),
        }
    }
    print_invalid(&loaded.invalid);
    Ok(0)
}

fn cmd_run(args: RunArgs) -> CmdResult {
    let loaded = load_filtered(&args.select.paths.paths, args.select.filter.as_deref())?;
    let prep = match conform_report::ci::Prepared::read(
        &args.ci.gate.options(),
        &args.ci.skips,
        args.ci.shard,
    ) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    let (cases, invalid) = prep.shard(loaded.cases, loaded.invalid);
    let factories = backends(&args.backend.backend)?;
    conform_run::backend::check_strings(
        &factories,
        args.renderer_check.as_ref(),
        args.version_check.as_ref(),
    )?;
    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| conform_judge::record::default_out_dir(Path::new("reports"), "run"));
    let cfg = RunConfig {
        jobs: args.jobs,
        out_dir: out_dir.clone(),
        force: args.force,
        timeout_ms: args
            .timeout
            .map(|d| d.as_millis().clamp(1, u128::from(u64::MAX)) as u64)
            .or(args.timeout_ms),
        progress: conform_run::progress::Mode::for_stdout(args.heartbeat),
        retries: args.ci.retry,
        skipped_by: prep.skipped_by(),
        expected_failure: prep.expected_failure(),
        reference: run::ReferenceBackend::workers()?,
        interrupt: stop_on_signals()?,
        shard: prep.shard,
        max_fails: args.ci.max_fails,
    };
    print_invalid(&invalid);
    let backends: Vec<&dyn BackendFactory> = factories.iter().map(|b| b.as_ref()).collect();
    let output = run::run_all(&cases, &invalid, &backends, &cfg)
        .map_err(|e| format!("cannot write results to {}: {e}", out_dir.display()))?;
    let all = &output.results;
    if backends.len() > 1 {
        let mut diff =
            conform_report::differential::Differential::compute(&cases, all, &output.memory);
        diff.identities = output.record.identities.clone();
        let path = out_dir.join("differential.md");
        if let Err(e) = std::fs::write(&path, diff.render_markdown()) {
            eprintln!("warning: cannot write {}: {e}", path.display());
        }
        conform_io::out!("\n{}", diff.render_terminal());
        conform_io::outln!("differential report: {}", path.display());
    }
    conform_io::outln!("results: {}/results.jsonl", out_dir.display());
    let gaps = conform_judge::record::gaps(&out_dir, Some(&output.record), all.len());
    let planned = conform_judge::record::Planned {
        cases: cases.iter().map(|c| c.name.clone()).collect(),
        backends: output.record.backends.clone(),
    };
    Ok(conform_report::ci::finish(
        &out_dir,
        output.results,
        conform_report::ci::Ending {
            spec: &prep.spec,
            gate: &prep.gate,
            write_baseline: prep.write_baseline.as_deref(),
            baseline_format: prep.baseline_format,
            gaps,
            no_gate: args.ci.no_gate,
            planned: Some(planned),
            shipped_baselines: shipped_baselines(&args.select.paths.paths),
        },
    ))
}

/// The run baselines shipped beside the cases a run names: `DIR/baselines/*.txt` for each
/// directory among `paths` (`cases/baselines/mesa-22.3.6.txt` for `conform run cases`).
fn shipped_baselines(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| std::fs::read_dir(p.join("baselines")).ok())
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt") && p.is_file())
        .collect();
    files.sort();
    files
}

/// The flag SIGINT, SIGTERM and SIGHUP raise (ctrlc's `termination` feature): the run stops
/// starting cases, stops the ones under way, and writes its reports from what finished,
/// marked interrupted. A second signal exits at once (the journal is whole line by line).
fn stop_on_signals() -> Result<Arc<AtomicBool>, String> {
    let flag = Arc::new(AtomicBool::new(false));
    let raised = Arc::clone(&flag);
    ctrlc::set_handler(move || {
        if raised.swap(true, Ordering::SeqCst) {
            eprintln!("\nsecond signal: exiting now; the journal keeps every finished result");
            std::process::exit(i32::from(conform_gate::gate::EXIT_INCOMPLETE));
        }
        eprintln!("\ninterrupted: stopping; the reports will cover what finished (signal again to exit at once)");
    })
    .map_err(|e| format!("cannot handle signals: {e}"))?;
    Ok(flag)
}

/// Writes `conform.1` and `conform-<command>.1` for every visible command into `dir`.
fn cmd_man(dir: &Path) -> CmdResult {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut cli = Cli::command();
    // Building names each command as a person types it (`conform run`, the SYNOPSIS) and as
    // its page is called (`conform-run`, the title and file name).
    cli.build();
    let mut pages = vec![("conform".to_string(), cli.clone())];
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("conform-{}", sub.get_name());
        pages.push((name, sub.clone()));
    }
    for (name, cmd) in pages {
        let mut text = Vec::new();
        clap_mangen::Man::new(cmd)
            .source(format!("conform {}", env!("CARGO_PKG_VERSION")))
            .render(&mut text)
            .map_err(|e| format!("cannot render {name}.1: {e}"))?;
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        conform_io::outln!("{}", path.display());
    }
    Ok(0)
}

fn cmd_compare(
    dirs: Vec<PathBuf>,
    backends: Option<Vec<String>>,
    format: conform_report::compare::Format,
    output: Option<PathBuf>,
) -> CmdResult {
    let req = conform_report::compare::Request {
        dirs,
        backends,
        format,
        output,
    };
    Ok(conform_report::compare::command(&req)?)
}

fn cmd_junit(
    results: &Path,
    out: Option<&Path>,
    options: &conform_report::junit::RowsOptions,
) -> CmdResult {
    let rows = match conform_gate::deqp::read_results(results) {
        Ok(r) => r,
        Err(diags) => {
            for d in diags {
                eprintln!("{d}");
            }
            return Ok(2);
        }
    };
    let xml = conform_report::junit::junit_of_rows(&rows, options);
    match out {
        Some(path) => std::fs::write(path, xml)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => conform_io::out!("{xml}"),
    }
    Ok(0)
}

fn cmd_bisect(name: &str, roots: &[PathBuf], driver: &str, builds: &[String]) -> CmdResult {
    if driver.contains('@') || driver.contains(',') || driver == "reference" || driver == "all" {
        return Err(format!(
            "--backend {driver}: one driver, without an install (the builds name those)"
        )
        .into());
    }
    let case = match find_case("bisect", name, roots)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let arguments: Vec<String> = builds
        .iter()
        .map(|b| {
            if b == "system" {
                driver.to_string()
            } else {
                format!("{driver}@{b}")
            }
        })
        .collect();
    let factories = backends(&arguments)?;
    let pairs: Vec<(String, String)> = factories.iter().map(|f| (f.name(), f.argument())).collect();
    let dir = std::env::temp_dir().join(format!("conform-bisect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = RunConfig {
        out_dir: dir.clone(),
        reference: run::ReferenceBackend::workers()?,
        ..RunConfig::default()
    };
    let refs: Vec<&dyn BackendFactory> = factories.iter().map(|b| b.as_ref()).collect();
    let output = run::run_all(std::slice::from_ref(&case), &[], &refs, &cfg)
        .map_err(|e| format!("cannot run {}: {e}", case.name));
    let _ = std::fs::remove_dir_all(&dir);
    let output = output?;
    let steps = conform_report::bisect::order(conform_report::bisect::steps(
        &output.results,
        &output.record.identities,
        &case.name,
        &pairs,
    ));
    conform_io::out!("{}", conform_report::bisect::render(&case.name, &steps));
    Ok(0)
}

fn cmd_bugreport(
    name: &str,
    roots: &[PathBuf],
    names: &[String],
    output: Option<&Path>,
    title: Option<&str>,
) -> CmdResult {
    let case = match find_case("bugreport", name, roots)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let catalogue = case::clauses::Catalogue::find(&case.path)
        .and_then(|p| case::clauses::Catalogue::load(&p).ok());
    let mut with_reference = vec!["reference".to_string()];
    with_reference.extend(names.iter().filter(|n| n.as_str() != "reference").cloned());
    let factories = backends(&with_reference)?;
    let dir = std::env::temp_dir().join(format!("conform-bugreport-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let cfg = RunConfig {
        out_dir: dir.clone(),
        reference: run::ReferenceBackend::workers()?,
        ..RunConfig::default()
    };
    let refs: Vec<&dyn BackendFactory> = factories.iter().map(|b| b.as_ref()).collect();
    let output_run = run::run_all(std::slice::from_ref(&case), &[], &refs, &cfg)
        .map_err(|e| format!("cannot run {}: {e}", case.name));
    let _ = std::fs::remove_dir_all(&dir);
    let output_run = output_run?;
    let cited = conform_piglit::piglit::export::cite(catalogue.as_ref(), &case.spec);
    let clauses: Vec<conform_report::bugreport::ClauseText> = cited
        .iter()
        .map(|c| conform_report::bugreport::ClauseText {
            id: c.id.clone(),
            summary: c.text.clone(),
            quotes: c
                .quotes
                .iter()
                .map(|q| (q.from.clone(), q.text.clone()))
                .collect(),
        })
        .collect();
    let piglit = conform_piglit::piglit::export::export_piglit(&case, &cited)
        .map(|e| {
            let file = e.file.rsplit('/').next().unwrap_or(&e.file).to_string();
            conform_report::bugreport::PiglitTest {
                command: e.command(&file),
                file,
                text: e.text,
            }
        })
        .map_err(|r| r.0);
    let input = conform_report::bugreport::BugReportInput {
        results: &output_run.results,
        identities: &output_run.record.identities,
        clauses: &clauses,
        piglit,
        title,
    };
    let Some(report) = conform_report::bugreport::render(&case, &input) else {
        eprintln!(
            "{} fails on none of {}: nothing to report",
            case.name,
            names.join(", ")
        );
        return Ok(1);
    };
    match output {
        Some(path) => {
            std::fs::write(path, report)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            conform_io::outln!("bug report: {}", path.display());
        }
        None => conform_io::out!("{report}"),
    }
    Ok(0)
}

fn cmd_export_piglit(select: &Selection, out: &Path) -> CmdResult {
    let loaded = load_filtered(&select.paths.paths, select.filter.as_deref())?;
    print_invalid(&loaded.invalid);
    let summary =
        conform_piglit::piglit::export::export_cases(&loaded.cases, loaded.catalogue.as_ref(), out)
            .map_err(|e| format!("cannot write to {}: {e}", out.display()))?;
    conform_io::out!("{summary}");
    Ok(invalid_code(&loaded))
}

fn cmd_import_piglit(paths: &[PathBuf], out: &Path) -> CmdResult {
    let summary = conform_piglit::piglit::convert_paths(paths, out)
        .map_err(|e| format!("cannot write to {}: {e}", out.display()))?;
    conform_io::out!("{summary}");
    conform_io::outln!(
        "summary: {}",
        out.join(conform_piglit::piglit::SUMMARY_FILE).display()
    );
    let t = summary.totals();
    Ok(if t.errors > 0 || !summary.unreadable.is_empty() {
        2
    } else {
        0
    })
}

fn cmd_drivers(mesa: Option<&str>, format: Format) -> CmdResult {
    let exe = current_exe()?;
    let install = mesa.map(gl_drivers::Install::open).transpose()?;
    let devices = conform_glrunner::list_devices(&exe);
    let probed = match &install {
        None => gl_drivers::probe(&exe, None),
        Some(i) => conform_glrunner::probe_with_env(
            &exe,
            conform_glrunner::Driver::ALL
                .into_iter()
                .filter(|d| d.is_mesa())
                .collect(),
            &i.launch,
        ),
    };
    let name = |driver: conform_glrunner::Driver| match &install {
        None => driver.name(),
        Some(i) => format!("{driver}@{}", i.mesa.label()),
    };
    if format == Format::Json {
        let drivers: Vec<serde_json::Value> = probed
            .iter()
            .map(|(driver, info)| match info {
                Ok(i) => serde_json::json!({
                    "driver": driver,
                    "backend": name(*driver),
                    "available": true,
                    "identity": gl_drivers::identity(i, install.as_ref().map(|i| &i.mesa)),
                    "info": i,
                }),
                Err(why) => serde_json::json!({
                    "driver": driver,
                    "backend": name(*driver),
                    "available": false,
                    "reason": why,
                }),
            })
            .collect();
        let devices = match &devices {
            Ok(d) => serde_json::json!(d),
            Err(why) => serde_json::json!({"error": why}),
        };
        let vulkan = conform_run::vulkan::json_all(&exe, install.as_ref());
        return print_json(
            &serde_json::json!({"devices": devices, "drivers": drivers, "vulkan": vulkan}),
        )
        .map(|()| 0);
    }
    conform_io::outln!("{}", gl_drivers::render_devices(&devices));
    if let Some(i) = &install {
        conform_io::outln!("Mesa install {}:\n", i.mesa.prefix.display());
    }
    for (driver, info) in probed {
        conform_io::out!("{}", gl_drivers::render_info(&name(driver), &info));
    }
    let vulkan = conform_run::vulkan::render_all(&exe, install.as_ref());
    conform_io::out!("{vulkan}");
    Ok(0)
}

fn cmd_bench(
    paths: &[PathBuf],
    names: &[String],
    filter: Option<&str>,
    fresh: Option<usize>,
) -> CmdResult {
    let cases = load_filtered(paths, filter)?.cases;
    let factories = backends(names)?;
    conform_io::out!("{}", conform_run::bench::BenchFigures::header());
    for b in &factories {
        let Ok(probe) = b.make() else {
            eprintln!("{}: unavailable", b.name());
            continue;
        };
        let runnable: Vec<&Case> = cases
            .iter()
            .filter(|c| probe.missing(&conform_run::backend::Job::of(c)).is_none())
            .collect();
        drop(probe);
        let mut make = || b.make().expect("backend was available a moment ago");
        let f = conform_run::bench::measure(
            &b.name(),
            "reused worker",
            &runnable,
            &mut make,
            false,
            b.is_reference(),
        );
        conform_io::out!("{}", f.row());
        if let (Some(n), false) = (fresh, b.is_reference()) {
            let first: Vec<&Case> = runnable.iter().take(n).copied().collect();
            let f = conform_run::bench::measure(
                &b.name(),
                "fresh process",
                &first,
                &mut make,
                true,
                false,
            );
            conform_io::out!("{}", f.row());
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option and argument of every command a person can see says what it is for.
    #[test]
    fn every_visible_option_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if arg.is_hide_set() || id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let cli = Cli::command();
        cli.clone().debug_assert();
        let mut missing = Vec::new();
        walk(&cli, "conform", &mut missing);
        assert!(missing.is_empty(), "options without help: {missing:?}");
    }
}
