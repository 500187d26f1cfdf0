//! `conform`: the command line. Each subcommand is a few lines over the library modules.
//!
//! Exit codes: 0 when nothing regressed, 1 on a regression (a failure, crash or timeout not
//! in the `--baseline` nor the `--flakes` list, failing every `--retry`; also an unexpected
//! pass with `--strict`), 2 on usage errors or invalid cases (docs/CI.md).

use clap::{Parser, Subcommand};
use conform::case::{self, Case};
use conform::clauses::{Catalogue, Coverage};
use conform::drivers::{self as gl_drivers, backends, current_exe};
use conform::results;
use conform::run::{self, BackendFactory, InvalidCase, RunConfig};
use conform_glrunner::Driver;
use conform_plan::RawResult;
use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "conform", version, about = "Conformance suite and fuzzing harness for GPU compute in OpenGL", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run cases on the reference interpreter and GL drivers, compare, and write a report.
    ///
    /// Example: conform run cases/nv_compute_program5 --backend reference --filter atoms
    Run(RunArgs),
    /// Check case files without running them; print one diagnostic per problem.
    ///
    /// Example: conform validate cases/
    Validate {
        /// Case files or directories.
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
    },
    /// List the cases with the clauses they name.
    ///
    /// Example: conform list cases/ --filter shuffle
    List {
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
        /// Only cases whose name matches this regex.
        #[arg(long)]
        filter: Option<String>,
    },
    /// Show one case: program, buffers, steps and its expected memory in typed form.
    ///
    /// Example: conform show nv_compute_program5/atoms-iwrap-wraps
    Show {
        /// A case name or a path to a case file.
        case: String,
        /// Where to look for case names.
        #[arg(long, default_value = "cases")]
        root: PathBuf,
    },
    /// Print the reference interpreter's output (final buffers, typed) for each case.
    ///
    /// Example: conform golden cases/nv_shader_thread_shuffle --filter shfidx
    Golden {
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
        #[arg(long)]
        filter: Option<String>,
    },
    /// Spec coverage: clauses named by valid cases / all clauses, per extension, and the
    /// uncovered ones.
    ///
    /// Example: conform coverage cases/
    Coverage {
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
    },
    /// Measure each backend's throughput on the corpus and where a case's time goes
    /// (build, dispatch, readback, conform's overhead), with one reused worker and, with
    /// --fresh N, with a fresh worker process for each of the first N cases.
    ///
    /// Example: conform bench cases/ --backend llvmpipe --fresh 40
    Bench {
        #[arg(default_value = "cases")]
        paths: Vec<PathBuf>,
        #[arg(long, default_value = "reference,llvmpipe", value_delimiter = ',')]
        backend: Vec<String>,
        #[arg(long)]
        filter: Option<String>,
        /// Also time a fresh worker process per case on the first N cases.
        #[arg(long)]
        fresh: Option<usize>,
    },
    /// Probe every GL driver: renderer, version, GLSL version, compute limits, the relevant
    /// extensions and the SPIR-V extensions.
    ///
    /// Example: conform drivers
    Drivers,
    /// Combine the output directories of shard runs (`run --shard I/N`) into one result set
    /// and write the same reports as a run; exits like a run.
    ///
    /// Example: conform merge shard-1 shard-2 shard-3 --out merged --baseline ci/baseline.txt
    Merge(conform::ci::MergeArgs),
    /// Rebuild a run's reports (report.html, summary.md, JUnit) from its results.jsonl.
    ///
    /// Example: conform report reports/run-20261121T120000Z
    Report(conform::ci::ReportArgs),
    /// Generate programs, run them on the reference and GL drivers, and reduce every
    /// divergence from the fuzzer's model to a minimal case in <out>/<signature>/case.yaml.
    /// Resumable: rerun with the same --corpus (and seed and languages) to go on. Exits 1 when
    /// this session found a divergence not in the corpus before, 0 otherwise.
    ///
    /// Example: conform fuzz --backend llvmpipe --time 10m --seed 1 --lang glsl
    Fuzz(FuzzArgs),
    /// Internal: a driver worker process (the harness starts these; see docs/DRIVERS.md).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        driver: String,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// Case files or directories.
    #[arg(default_value = "cases")]
    paths: Vec<PathBuf>,
    /// Backends, comma-separated: reference, llvmpipe, softpipe, zink, nvidia, or all
    /// (the reference and every driver found).
    #[arg(long, default_value = "reference", value_delimiter = ',')]
    backend: Vec<String>,
    /// Only cases whose name matches this regex.
    #[arg(long)]
    filter: Option<String>,
    /// Cases run at once per backend (worker processes per driver).
    #[arg(long, short = 'j', default_value_t = default_jobs())]
    jobs: usize,
    /// Output directory (default: reports/run-<timestamp>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Per-case timeout on drivers, overriding each case's `timeout_ms`.
    #[arg(long)]
    timeout_ms: Option<u64>,
    /// Run cases even where the driver does not advertise what they require.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    ci: conform::ci::RunCiArgs,
}

#[derive(clap::Args)]
struct FuzzArgs {
    /// GL drivers to run programs on, comma-separated, besides the reference (which always
    /// runs): llvmpipe, softpipe, zink, nvidia, all (every driver found), or reference (only).
    #[arg(long, default_value = "llvmpipe", value_delimiter = ',')]
    backend: Vec<String>,
    /// How long this session runs (e.g. 90s, 10m, 8h).
    #[arg(long, default_value = "10m", value_parser = humantime::parse_duration)]
    time: std::time::Duration,
    /// Campaign seed: iteration i of seed s is always the same program.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Languages to generate: glsl, nvasm or all (alternately).
    #[arg(long, default_value = "all")]
    lang: conform::fuzz::campaign::LangChoice,
    /// What to generate: default (every block kind, short loops) or loop-caps (loops of
    /// about 2^16 iterations and more, probing drivers' iteration caps).
    #[arg(long, default_value = "default")]
    mode: conform::fuzz::gen::Mode,
    /// Campaign state (resumes from here) and the inputs of every divergence.
    #[arg(long, default_value = "reports/fuzz/corpus")]
    corpus: PathBuf,
    /// Where reduced cases and the summary go.
    #[arg(long, default_value = "reports/fuzz")]
    out: PathBuf,
    /// Stop after this many iterations in all (also across resumed sessions).
    #[arg(long)]
    iterations: Option<u64>,
    /// Worker threads (each with its own driver worker processes).
    #[arg(long, short = 'j', default_value_t = default_jobs())]
    jobs: usize,
    /// Tests the reducer may run per divergence.
    #[arg(long, default_value_t = 400)]
    reduce_tests: usize,
    /// Test-only: plant a bug in the reference (iwrap, shuffle-clamp) to check the fuzzer
    /// finds it.
    #[arg(long, hide = true)]
    plant_bug: Option<String>,
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Run(args) => cmd_run(args),
        Command::Validate { paths } => cmd_validate(&paths),
        Command::List { paths, filter } => cmd_list(&paths, filter.as_deref()),
        Command::Show { case, root } => cmd_show(&case, &root),
        Command::Golden { paths, filter } => cmd_golden(&paths, filter.as_deref()),
        Command::Coverage { paths } => cmd_coverage(&paths),
        Command::Drivers => cmd_drivers(),
        Command::Merge(args) => conform::ci::cmd_merge(args),
        Command::Report(args) => conform::ci::cmd_report(args),
        Command::Bench {
            paths,
            backend,
            filter,
            fresh,
        } => cmd_bench(&paths, &backend, filter.as_deref(), fresh),
        Command::Fuzz(args) => cmd_fuzz(args),
        Command::Worker { driver } => match driver.parse::<Driver>() {
            Ok(d) => return ExitCode::from(conform_glrunner::worker_main(d).clamp(0, 255) as u8),
            Err(e) => usage_error(e),
        },
    };
    ExitCode::from(code)
}

/// Cases loaded from paths: the valid ones and the diagnostics of the others.
struct Loaded {
    cases: Vec<Case>,
    invalid: Vec<InvalidCase>,
    catalogue: Option<Catalogue>,
}

fn usage_error(msg: impl std::fmt::Display) -> u8 {
    eprintln!("error: {msg}");
    2
}

fn load_all(paths: &[PathBuf]) -> Result<Loaded, String> {
    let files = case::discover(paths)?;
    let catalogue = match paths.first().and_then(|p| Catalogue::find(p)) {
        Some(path) => Some(Catalogue::load(&path).map_err(|d| d.to_string())?),
        None => {
            eprintln!(
                "warning: no clauses.yaml found above {}; clause ids are not checked",
                paths
                    .first()
                    .map_or(".".into(), |p| p.display().to_string())
            );
            None
        }
    };
    let mut cases: Vec<Case> = Vec::new();
    let mut invalid = Vec::new();
    for f in files {
        match case::load(&f, catalogue.as_ref()) {
            Ok(c) => {
                if let Some(other) = cases.iter().find(|o| o.name == c.name) {
                    invalid.push(InvalidCase {
                        path: f.clone(),
                        diagnostics: vec![format!(
                            "{}: case name `{}` is also used by {}",
                            f.display(),
                            c.name,
                            other.path.display()
                        )],
                    });
                } else {
                    cases.push(c);
                }
            }
            Err(diags) => invalid.push(InvalidCase {
                path: f.clone(),
                diagnostics: diags.iter().map(ToString::to_string).collect(),
            }),
        }
    }
    Ok(Loaded {
        cases,
        invalid,
        catalogue,
    })
}

fn filter_cases(cases: Vec<Case>, filter: Option<&str>) -> Result<Vec<Case>, String> {
    match filter {
        None => Ok(cases),
        Some(f) => {
            let re = Regex::new(f).map_err(|e| format!("--filter: {e}"))?;
            Ok(cases.into_iter().filter(|c| re.is_match(&c.name)).collect())
        }
    }
}

fn print_invalid(invalid: &[InvalidCase]) {
    for bad in invalid {
        for d in &bad.diagnostics {
            eprintln!("{d}");
        }
    }
}

fn cmd_validate(paths: &[PathBuf]) -> u8 {
    let loaded = match load_all(paths) {
        Ok(l) => l,
        Err(e) => return usage_error(e),
    };
    print_invalid(&loaded.invalid);
    println!(
        "{} valid, {} invalid",
        loaded.cases.len(),
        loaded.invalid.len()
    );
    if loaded.invalid.is_empty() {
        0
    } else {
        2
    }
}

fn cmd_list(paths: &[PathBuf], filter: Option<&str>) -> u8 {
    let loaded = match load_all(paths) {
        Ok(l) => l,
        Err(e) => return usage_error(e),
    };
    let cases = match filter_cases(loaded.cases, filter) {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    for c in &cases {
        println!("{:<60} {}", c.name, c.spec.join(" "));
    }
    print_invalid(&loaded.invalid);
    if loaded.invalid.is_empty() {
        0
    } else {
        2
    }
}

fn cmd_coverage(paths: &[PathBuf]) -> u8 {
    let loaded = match load_all(paths) {
        Ok(l) => l,
        Err(e) => return usage_error(e),
    };
    let Some(cat) = &loaded.catalogue else {
        return usage_error("coverage needs a clauses.yaml (cases/clauses.yaml)");
    };
    let cov = Coverage::compute(
        cat,
        loaded
            .cases
            .iter()
            .map(|c| (c.name.as_str(), c.spec.as_slice())),
    );
    print!("{}", cov.render());
    if !loaded.invalid.is_empty() {
        eprintln!(
            "\n{} invalid case(s) not counted; run `conform validate`",
            loaded.invalid.len()
        );
    }
    0
}

fn find_case(name: &str, root: &Path) -> Result<Case, u8> {
    let path = Path::new(name);
    let paths = if path.is_file() {
        vec![path.to_path_buf()]
    } else {
        vec![root.to_path_buf()]
    };
    let loaded = load_all(&paths).map_err(usage_error)?;
    if let Some(c) = loaded
        .cases
        .into_iter()
        .find(|c| c.name == name || c.path == path)
    {
        return Ok(c);
    }
    if let Some(bad) = loaded
        .invalid
        .iter()
        .find(|b| b.path == path || case::default_name(&b.path) == name)
    {
        print_invalid(std::slice::from_ref(bad));
        return Err(2);
    }
    Err(usage_error(format!(
        "no case named `{name}` under {}",
        root.display()
    )))
}

fn cmd_show(name: &str, root: &Path) -> u8 {
    let case = match find_case(name, root) {
        Ok(c) => c,
        Err(code) => return code,
    };
    print!("{}", conform::case::show::render(&case));
    0
}

fn cmd_golden(paths: &[PathBuf], filter: Option<&str>) -> u8 {
    let loaded = match load_all(paths) {
        Ok(l) => l,
        Err(e) => return usage_error(e),
    };
    let cases = match filter_cases(loaded.cases, filter) {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    for c in &cases {
        println!("== {}", c.name);
        match run::ReferenceExecutor::run_job(&run::Job::of(c)) {
            RawResult::Done(Ok(o)) => {
                print!("{}", conform::case::show::render_outcome(c, &o))
            }
            other => println!("  no output: {}", run::judge(c, &other, true, None).message),
        }
    }
    print_invalid(&loaded.invalid);
    0
}

fn cmd_run(args: RunArgs) -> u8 {
    let loaded = match load_all(&args.paths) {
        Ok(l) => l,
        Err(e) => return usage_error(e),
    };
    let cases = match filter_cases(loaded.cases, args.filter.as_deref()) {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    let prep = match args.ci.prepare() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let (cases, invalid) = prep.shard(cases, loaded.invalid);
    let factories = match backends(&args.backend) {
        Ok(f) => f,
        Err(e) => return usage_error(e),
    };
    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| run::default_out_dir(Path::new("reports")));
    let cfg = RunConfig {
        jobs: args.jobs,
        out_dir: out_dir.clone(),
        force: args.force,
        timeout_ms: args.timeout_ms,
        show_progress: true,
        retries: args.ci.retry,
        skips: prep.skips.clone(),
        expected_failure: prep.expected_failure(),
    };
    print_invalid(&invalid);
    let backends: Vec<&dyn BackendFactory> = factories.iter().map(|b| b.as_ref()).collect();
    let output = match run::run_all(&cases, &invalid, &backends, &cfg) {
        Ok(r) => r,
        Err(e) => {
            return usage_error(format!(
                "cannot write results to {}: {e}",
                out_dir.display()
            ))
        }
    };
    let all = &output.results;
    if backends.len() > 1 {
        let diff = conform::differential::Differential::compute(&cases, all, &output.memory);
        let path = out_dir.join("differential.md");
        if let Err(e) = std::fs::write(&path, diff.render_markdown()) {
            eprintln!("warning: cannot write {}: {e}", path.display());
        }
        print!("\n{}", diff.render_terminal());
        println!("differential report: {}", path.display());
    }
    println!("\n{}", results::summary_table(all));
    println!("results: {}/results.jsonl", out_dir.display());
    conform::ci::finish(
        &out_dir,
        output.results,
        &prep.spec,
        &prep.gate,
        prep.write_baseline.as_deref(),
    )
}

fn cmd_fuzz(args: FuzzArgs) -> u8 {
    use conform_reference::PlantedBug;
    let planted_bug = match args.plant_bug.as_deref() {
        None => None,
        Some("iwrap") => Some(PlantedBug::IwrapOffByOne),
        Some("shuffle-clamp") => Some(PlantedBug::ShuffleClampOffByOne),
        Some(other) => {
            return usage_error(format!(
                "--plant-bug {other}: known bugs are iwrap and shuffle-clamp"
            ))
        }
    };
    let drivers: Vec<Box<dyn BackendFactory>> = match backends(&args.backend) {
        Ok(all) => all.into_iter().filter(|b| !b.is_reference()).collect(),
        Err(e) => return usage_error(e),
    };
    // A campaign against a driver that is not there would quietly fuzz the reference alone.
    for d in &drivers {
        if let Err(why) = d.make() {
            return usage_error(format!("cannot fuzz {}: {why}", d.name()));
        }
    }
    let cfg = conform::fuzz::campaign::Config {
        seed: args.seed,
        lang: args.lang,
        mode: args.mode,
        time: args.time,
        iterations: args.iterations,
        corpus: args.corpus,
        out: args.out,
        jobs: args.jobs,
        reduce_tests: args.reduce_tests,
        planted_bug,
        show_progress: true,
    };
    match conform::fuzz::campaign::run(&cfg, &drivers) {
        Ok((state, new)) => {
            print!("{}", conform::fuzz::campaign::render_summary(&state));
            println!("summary: {}", cfg.out.join("summary.md").display());
            u8::from(!new.is_empty())
        }
        Err(e) => usage_error(e),
    }
}

fn cmd_drivers() -> u8 {
    let exe = match current_exe() {
        Ok(e) => e,
        Err(e) => return usage_error(e),
    };
    for (driver, info) in gl_drivers::probe(&exe, None) {
        print!("{}", gl_drivers::render_info(driver, &info));
    }
    0
}

fn cmd_bench(
    paths: &[PathBuf],
    names: &[String],
    filter: Option<&str>,
    fresh: Option<usize>,
) -> u8 {
    let loaded = match load_all(paths) {
        Ok(l) => l,
        Err(e) => return usage_error(e),
    };
    let cases = match filter_cases(loaded.cases, filter) {
        Ok(c) => c,
        Err(e) => return usage_error(e),
    };
    let factories = match backends(names) {
        Ok(f) => f,
        Err(e) => return usage_error(e),
    };
    print!("{}", conform::bench::BenchFigures::header());
    for b in &factories {
        let Ok(probe) = b.make() else {
            eprintln!("{}: unavailable", b.name());
            continue;
        };
        let runnable: Vec<&Case> = cases
            .iter()
            .filter(|c| probe.missing(&run::Job::of(c)).is_none())
            .collect();
        drop(probe);
        let mut make = || b.make().expect("backend was available a moment ago");
        let f = conform::bench::measure(
            &b.name(),
            "reused worker",
            &runnable,
            &mut make,
            false,
            b.is_reference(),
        );
        print!("{}", f.row());
        if let (Some(n), false) = (fresh, b.is_reference()) {
            let first: Vec<&Case> = runnable.iter().take(n).copied().collect();
            let f =
                conform::bench::measure(&b.name(), "fresh process", &first, &mut make, true, false);
            print!("{}", f.row());
        }
    }
    0
}
