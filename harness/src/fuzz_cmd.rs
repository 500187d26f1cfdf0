//! `conform fuzz` (generated campaigns, the transform mode over existing cases, merging a
//! farm's campaigns) and `conform litmus`: their options as the command line spells them and a
//! few lines each; the work is `conform_fuzzer`'s.

use crate::{default_jobs, BackendArg, CmdResult, UsageError};
use clap::Subcommand;
use conform_run::backend::BackendFactory;
use conform_run::drivers::backends;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct FuzzArgs {
    #[command(subcommand)]
    command: Option<FuzzCommand>,
    /// The reference always runs (the fuzzer's model judges it too): the drivers among
    /// these also do.
    #[command(flatten)]
    backend: BackendArg,
    /// How long this session runs (e.g. 90s, 10m, 8h).
    #[arg(long, default_value = "10m", value_parser = humantime::parse_duration)]
    time: std::time::Duration,
    /// Campaign seed: iteration i of seed s is always the same program.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Languages to generate, in turn: all, or a comma-separated list of glsl, nvasm, spirv.
    /// Default: the languages the chosen drivers run (glsl,spirv on Mesa; all with nvidia or
    /// the reference alone).
    #[arg(long)]
    lang: Option<conform_fuzzer::campaign::LangChoice>,
    /// Known divergences to count but not reduce, in the run baseline's format with
    /// `fuzz/<lang>-<feature>-<aspect>` as the case (`llvmpipe,fuzz/glsl-exchange-shared-barrier-memory,fail`).
    #[arg(long, value_name = "FILE")]
    known: Option<PathBuf>,
    /// Also run each program in every other language that can express it (the same model
    /// judges each: the reference's front ends are checked against one another).
    #[arg(long)]
    cross: bool,
    /// What to generate: default (every block kind, short loops), loop-caps (loops of
    /// about 2^16 iterations and more, probing drivers' iteration caps), or transform (no
    /// generation: CASES rewritten by transformations that keep their results, judged by
    /// their own expectations).
    #[arg(long, default_value = "default")]
    mode: conform_fuzzer::transform::FuzzMode,
    /// With --mode transform: the cases (files or directories) to transform.
    cases: Vec<PathBuf>,
    /// With --mode transform: transformations per program, at most.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=16))]
    max_transforms: u8,
    /// Campaign state (resumes from here) and the inputs of every divergence. Default:
    /// OUT/corpus, so each --out is a campaign of its own.
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Where reduced cases and the summary go.
    #[arg(long, default_value = "reports/fuzz")]
    out: PathBuf,
    /// Stop after this many iterations more: counted from where a resumed campaign stands
    /// (its state's next iteration), so a resume never repeats or rewinds.
    #[arg(long)]
    iterations: Option<u64>,
    /// Worker threads (each with its own driver worker processes).
    #[arg(long, short = 'j', default_value_t = default_jobs())]
    jobs: usize,
    /// Tests the reducer may run per divergence.
    #[arg(long, default_value_t = 400)]
    reduce_tests: usize,
    /// Test-only: plant a bug in the reference (a name of `PlantedBug::NAMES`: iwrap,
    /// signed-division, swizzle-w, ...) to check the fuzzer finds it. Only in builds with the
    /// `self-test` feature.
    #[cfg(feature = "self-test")]
    #[arg(long, hide = true)]
    plant_bug: Option<String>,
}

#[derive(Subcommand)]
enum FuzzCommand {
    /// Merge the campaign directories of a farm into one list of findings.
    ///
    /// One campaign per CI job, each with its own --out: findings deduplicated by signature
    /// and attribution, each with the smallest reduced case, counts per directory and seed,
    /// in --out as summary.md and merged.json. Exits 1 when a finding is not in --known, 0
    /// otherwise, 2 on bad input.
    ///
    /// Example: conform fuzz merge fuzz-out/seed-* --out fuzz-merged --known known.txt
    Merge {
        /// Campaign directories: each a campaign's --out, its state.json there or in corpus/.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the merged list goes: a new or empty directory.
        #[arg(long)]
        out: PathBuf,
        /// Known divergences, as for `conform fuzz --known`.
        #[arg(long, value_name = "FILE")]
        known: Option<PathBuf>,
        /// The previous night's merged.json: each finding then carries its first and last
        /// night seen and how many nights, and the findings not seen tonight are listed
        /// ("not seen since"). Without it tonight starts the history.
        #[arg(long, value_name = "MERGED_JSON")]
        history: Option<PathBuf>,
        /// Tonight's label in the history (default: today's date, UTC).
        #[arg(long, value_name = "LABEL")]
        night: Option<String>,
    },
    /// Run every finding of a merged list on the builds named and mark it fixed where it
    /// now passes: a finding is fixed on a build of its own driver (`llvmpipe@NEW` for a
    /// finding of `llvmpipe@OLD`) whose result is a pass, with that build's identity.
    /// Writes recheck.json and recheck.md into MERGED; the next merge given this MERGED as
    /// --history closes what is fixed and not seen again.
    ///
    /// Example: conform fuzz recheck fuzz-merged --backend llvmpipe@~/mesa-new,zink@~/mesa-new
    Recheck {
        /// A merged list (`conform fuzz merge --out`).
        merged: PathBuf,
        #[command(flatten)]
        backend: BackendArg,
    },
}

#[derive(clap::Args)]
pub struct LitmusArgs {
    /// The reference always runs (its schedules must land in every allowed set): the
    /// drivers among these also do.
    #[command(flatten)]
    backend: BackendArg,
    /// Languages: all, or a comma-separated list of glsl, nvasm, spirv. Default: what the
    /// drivers run (glsl,spirv on Mesa; all with nvidia or the reference alone).
    #[arg(long)]
    lang: Option<conform_fuzzer::campaign::LangChoice>,
    /// Shapes, comma-separated (default all).
    #[arg(long, value_delimiter = ',', value_enum)]
    shape: Vec<conform_fuzzer::litmus::shape::Shape>,
    /// Scopes, comma-separated: workgroup (shared memory, one group per instance), device
    /// (a storage buffer, threads in different groups). Default both.
    #[arg(long, value_delimiter = ',', value_enum)]
    scope: Vec<conform_fuzzer::litmus::shape::Scope>,
    /// Only the fences with these names (nofence, membar, barrier, opcontrolbarrier, ...).
    #[arg(long, value_delimiter = ',')]
    fence: Vec<String>,
    /// Instances per dispatch.
    #[arg(long, default_value_t = 256)]
    instances: u32,
    /// Work group size.
    #[arg(long, default_value_t = 64)]
    group_size: u32,
    /// Memory-stress invocations per work group.
    #[arg(long, default_value_t = 0)]
    stress: u32,
    /// Cases per test (each compiled once).
    #[arg(long, default_value_t = 4)]
    iterations: u64,
    /// Dispatches per case (each with a new role table).
    #[arg(long, default_value_t = 8)]
    dispatches: u32,
    /// Seed of the role tables: iteration i of seed s always places the instances the same
    /// way (the same for every fence of a shape and size).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where divergences' cases and `histograms.md` go.
    #[arg(long, default_value = "reports/litmus")]
    out: PathBuf,
    /// Runs per reduction step before giving the step up.
    #[arg(long, default_value_t = 20)]
    reduce_tries: u32,
    /// Write each selected test's first case to DIR/<test>.yaml (no `name:`: the path names
    /// it) and run nothing: how litmus cases get into a corpus.
    #[arg(long, value_name = "DIR")]
    emit_cases: Option<PathBuf>,
}

/// `--plant-bug`: the bug the fuzzer's self-test plants in the reference (test builds only).
#[cfg(feature = "self-test")]
fn planted_bug(name: Option<&str>) -> Result<Option<conform_reference::PlantedBug>, UsageError> {
    use conform_reference::PlantedBug;
    match name {
        None => Ok(None),
        Some(n) => PlantedBug::from_name(n).map(Some).ok_or_else(|| {
            let names: Vec<&str> = PlantedBug::NAMES.iter().map(|(_, n)| *n).collect();
            format!("--plant-bug {n}: known bugs are {}", names.join(", ")).into()
        }),
    }
}

fn load_known(path: &Path) -> Result<conform_gate::gate::Baseline, UsageError> {
    conform_gate::gate::Baseline::load(path).map_err(|d| {
        d.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
            .into()
    })
}

pub fn cmd_fuzz(args: FuzzArgs) -> CmdResult {
    if let Some(FuzzCommand::Recheck { merged, backend }) = args.command {
        return cmd_recheck(&merged, &backend.backend);
    }
    if let Some(FuzzCommand::Merge {
        dirs,
        out,
        known,
        history,
        night,
    }) = args.command
    {
        use conform_fuzzer::campaign::merge::{history as nights, merge_nights};
        let known = known.as_deref().map(load_known).transpose()?;
        let night = nights::night_label(night.as_deref())?;
        let previous = history.as_deref().map(nights::load).transpose()?;
        let merged = merge_nights(
            &dirs,
            &out,
            known.as_ref(),
            Some((&night, previous.as_ref())),
        )?;
        conform_io::out!("{}", conform_fuzzer::campaign::merge::render(&merged));
        conform_io::outln!("summary: {}", out.join("summary.md").display());
        return Ok(merged.exit_code());
    }
    let drivers: Vec<Box<dyn BackendFactory>> = backends(&args.backend.backend)?
        .into_iter()
        .filter(|b| !b.is_reference())
        .collect();
    // A campaign against a driver that is not there would quietly fuzz the reference alone.
    for d in &drivers {
        if let Err(why) = d.make() {
            return Err(format!("cannot fuzz {}: {why}", d.name()).into());
        }
    }
    let mode = match args.mode {
        conform_fuzzer::transform::FuzzMode::Transform => return cmd_transform(args, &drivers),
        // After a flag clap reads `merge` as a case path: the subcommand takes no flags.
        conform_fuzzer::transform::FuzzMode::Generate(_)
            if args.cases.first().is_some_and(|c| c.as_os_str() == "merge") =>
        {
            return Err("`merge` is a subcommand (`conform fuzz merge DIR... --out MERGED`); it cannot be used with the campaign flags".into())
        }
        conform_fuzzer::transform::FuzzMode::Generate(_) if !args.cases.is_empty() => {
            return Err(
                "CASES are transformed by --mode transform; other modes generate programs".into(),
            )
        }
        conform_fuzzer::transform::FuzzMode::Generate(m) => m,
    };
    let cfg = conform_fuzzer::campaign::Config {
        seed: args.seed,
        lang: args.lang.unwrap_or_else(|| {
            let names: Vec<String> = drivers.iter().map(|d| d.name()).collect();
            conform_fuzzer::campaign::LangChoice::for_drivers(&names)
        }),
        cross: args.cross,
        known: args.known.as_deref().map(load_known).transpose()?,
        mode,
        time: args.time,
        iterations: args.iterations,
        corpus: args.corpus.unwrap_or_else(|| args.out.join("corpus")),
        out: args.out,
        jobs: args.jobs,
        reduce_tests: args.reduce_tests,
        #[cfg(feature = "self-test")]
        planted_bug: planted_bug(args.plant_bug.as_deref())?,
        show_progress: true,
    };
    let (state, new) = conform_fuzzer::campaign::run(&cfg, &drivers)?;
    conform_io::out!("{}", conform_fuzzer::campaign::render_summary(&state));
    conform_io::outln!("summary: {}", cfg.out.join("summary.md").display());
    Ok(u8::from(!new.is_empty()))
}

/// `conform fuzz --mode transform CASES...`.
fn cmd_transform(args: FuzzArgs, drivers: &[Box<dyn BackendFactory>]) -> CmdResult {
    if args.cases.is_empty() {
        return Err(
            "--mode transform needs CASES: the case files or directories to transform".into(),
        );
    }
    let loaded = crate::load_filtered(&args.cases, None)?;
    crate::print_invalid(&loaded.invalid);
    let (subjects, ineligible) = conform_fuzzer::transform::subjects(&loaded.cases);
    let cfg = conform_fuzzer::transform::Config {
        seed: args.seed,
        time: args.time,
        iterations: args.iterations,
        out: args.out,
        max_transforms: usize::from(args.max_transforms),
        reference: conform_run::reference::ReferenceBackend::workers()?,
        #[cfg(feature = "self-test")]
        planted_bug: planted_bug(args.plant_bug.as_deref())?,
    };
    let report = conform_fuzzer::transform::run(&cfg, &subjects, drivers, ineligible)?;
    conform_io::out!("{}", conform_fuzzer::transform::render(&report));
    conform_io::outln!("summary: {}", cfg.out.join("summary.md").display());
    Ok(u8::from(!report.findings.is_empty()))
}

pub fn cmd_litmus(args: LitmusArgs) -> CmdResult {
    let drivers: Vec<Box<dyn BackendFactory>> = backends(&args.backend.backend)?
        .into_iter()
        .filter(|b| !b.is_reference())
        .collect();
    let request = conform_fuzzer::litmus::command::Request {
        lang: args.lang,
        shapes: args.shape,
        scopes: args.scope,
        fences: args.fence,
        params: conform_fuzzer::litmus::layout::Params {
            instances: args.instances,
            group_size: args.group_size,
            stress: args.stress,
        },
        iterations: args.iterations,
        dispatches: args.dispatches,
        seed: args.seed,
        out: args.out,
        reduce_tries: args.reduce_tries,
        emit_cases: args.emit_cases,
    };
    Ok(conform_fuzzer::litmus::command::run(request, &drivers)?)
}

/// `conform fuzz recheck MERGED --backend B...`: every finding's reduced case on the builds
/// named; a finding is fixed on a build of its own driver where it passes.
fn cmd_recheck(merged: &Path, names: &[String]) -> CmdResult {
    use conform_fuzzer::campaign::merge::history::{Recheck, RecheckResult, Rechecked};
    let listed = conform_fuzzer::campaign::merge::history::findings_of(merged)?;
    let paths: Vec<PathBuf> = listed
        .iter()
        .map(|(sig, _)| merged.join(sig).join("case.yaml"))
        .filter(|p| p.is_file())
        .collect();
    if paths.is_empty() {
        let recheck = Recheck {
            rechecked: Vec::new(),
        };
        let path = merged.join("recheck.json");
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&recheck).map_err(|e| e.to_string())? + "\n",
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
        conform_io::outln!("{}: no finding to recheck", merged.display());
        return Ok(0);
    }
    let loaded = conform_case::corpus::load(&paths, None, false)?;
    for bad in &loaded.invalid {
        eprintln!(
            "{}: not rechecked: the case is invalid (`conform validate` says why)",
            conform_io::escape::text(&bad.path.display().to_string())
        );
    }
    let factories = backends(names)?;
    let dir = std::env::temp_dir().join(format!("conform-recheck-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = conform_run::run::RunConfig {
        out_dir: dir.clone(),
        reference: conform_run::run::ReferenceBackend::workers()?,
        ..conform_run::run::RunConfig::default()
    };
    let refs: Vec<&dyn BackendFactory> = factories.iter().map(|b| b.as_ref()).collect();
    let output = conform_run::run::run_all(&loaded.cases, &[], &refs, &cfg)
        .map_err(|e| format!("cannot recheck: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let output = output?;
    let mut rechecked = Vec::new();
    for (sig, backend) in &listed {
        let case = loaded
            .cases
            .iter()
            .find(|c| c.path == merged.join(sig).join("case.yaml"));
        let driver = backend.split('@').next().unwrap_or(backend);
        let results: Vec<RecheckResult> = match case {
            None => Vec::new(),
            Some(c) => output
                .results
                .iter()
                .filter(|r| r.case == c.name && r.backend != "reference")
                .map(|r| RecheckResult {
                    backend: r.backend.clone(),
                    status: r.status.name().to_string(),
                    identity: output
                        .record
                        .identities
                        .get(&r.backend)
                        .map(|i| i.summary())
                        .unwrap_or_default(),
                })
                .collect(),
        };
        let fixed_on = results
            .iter()
            .find(|r| r.status == "pass" && r.backend.split('@').next() == Some(driver))
            .cloned();
        rechecked.push(Rechecked {
            signature: sig.clone(),
            backend: backend.clone(),
            results,
            fixed_on,
            note: case
                .is_none()
                .then(|| "its reduced case did not load".to_string()),
        });
    }
    let recheck = Recheck { rechecked };
    let md = recheck.render();
    let write = |name: &str, text: String| {
        let path = merged.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    write(
        "recheck.json",
        serde_json::to_string_pretty(&recheck).map_err(|e| e.to_string())? + "\n",
    )?;
    write("recheck.md", md.clone())?;
    conform_io::out!("{md}");
    Ok(0)
}
