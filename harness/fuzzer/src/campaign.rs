//! Fuzz campaigns: generate, run on every backend, reduce, deduplicate, report, resume.
//!
//! Iteration `i` of seed `s` is a pure function of `(s, i, language)` ([`crate::input_bytes`]),
//! so a campaign is resumable from its corpus directory (`state.json` records the first
//! iteration not yet finished) and splits across machines by seed. Each worker thread owns one
//! executor per backend (a driver worker process each), runs the program everywhere, and
//! reduces what diverges on the backend where it diverged. Divergences are grouped by
//! signature (backend, language, the diverging block's feature and, for compute blocks and
//! whole-program divergences, the operators left after reduction, and what differs:
//! [`crate::reduction::signature`]). A divergence whose program uses every operator of a finding of its
//! key is counted to that finding; the others are reduced, up to a cap per key, and then
//! counted.

use crate::ast::{Lang, Program};
use crate::generators as gen;
use crate::reduction::reduce;
use crate::reduction::signature::{attributes, divergence_ops, known_line, signature};
use crate::{
    glsl_profile_for, input_bytes, load_case, load_case_in, observe, Divergence, ReferenceTarget,
    Target,
};
use arbitrary::Unstructured;
#[cfg(feature = "self-test")]
use conform_reference::PlantedBug;
use conform_run::backend::BackendFactory;
use conform_run::run::spawn_jobs;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub mod merge;
mod state;
pub use state::MAX_ITERATIONS;

/// Which languages a campaign generates: iteration `i` is in the `i % n`-th of its `n`
/// languages. Written as in `--lang`: `all` or a comma-separated list (`glsl,spirv`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LangChoice(Vec<Lang>);

impl LangChoice {
    /// Every language, in turn.
    pub fn all() -> LangChoice {
        LangChoice(Lang::ALL.to_vec())
    }

    /// These languages, in turn (none: every language).
    pub fn of(langs: &[Lang]) -> LangChoice {
        if langs.is_empty() {
            return LangChoice::all();
        }
        LangChoice(langs.to_vec())
    }

    /// The languages drivers called `drivers` can run, the default of `--lang`: NV assembly
    /// only where NVIDIA's driver (or the reference alone) runs it, SPIR-V where some driver
    /// has ARB_gl_spirv (every one here but softpipe: docs/DRIVERS.md), GLSL everywhere. No
    /// program then goes to a backend that can only skip it.
    pub fn for_drivers(drivers: &[String]) -> LangChoice {
        if drivers.is_empty() || drivers.iter().any(|d| d == "nvidia") {
            return LangChoice::all();
        }
        let mut langs = vec![Lang::Glsl];
        if drivers.iter().any(|d| d != "softpipe") {
            langs.push(Lang::Spirv);
        }
        LangChoice(langs)
    }

    pub fn name(&self) -> String {
        if self.0 == Lang::ALL {
            return "all".into();
        }
        self.0
            .iter()
            .map(|l| l.name())
            .collect::<Vec<_>>()
            .join(",")
    }

    pub fn of_iteration(&self, i: u64) -> Lang {
        self.0[(i % self.0.len() as u64) as usize]
    }
}

impl std::str::FromStr for LangChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "all" {
            return Ok(LangChoice::all());
        }
        let mut langs = Vec::new();
        for part in s.split(',').map(str::trim) {
            let lang = Lang::ALL
                .into_iter()
                .find(|l| l.name() == part)
                .ok_or_else(|| format!("unknown language `{part}` (glsl, nvasm, spirv, all)"))?;
            if !langs.contains(&lang) {
                langs.push(lang);
            }
        }
        Ok(LangChoice::of(&langs))
    }
}

impl Serialize for LangChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for LangChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A campaign's settings (`conform fuzz` options).
pub struct Config {
    pub seed: u64,
    pub lang: LangChoice,
    pub mode: gen::Mode,
    /// Stop after this long (this session).
    pub time: Duration,
    /// Stop after this many iterations more, counted from where the campaign resumes (a
    /// night's share), if given.
    pub iterations: Option<u64>,
    pub corpus: PathBuf,
    /// Where reduced cases go: `<out>/<signature>/case.yaml`.
    pub out: PathBuf,
    pub jobs: usize,
    /// Tests the reducer may run per divergence.
    pub reduce_tests: usize,
    /// `--known`: divergences listed here (the run baseline's format, with `fuzz/<lang>-
    /// <feature>-<aspect>` for the case: [`Divergence::known_name`], optionally followed by
    /// `-with-<op>-<op>...`: only programs using all those operators, see
    /// [`crate::reduction::signature::known_line`]) are counted, not reduced.
    pub known: Option<conform_gate::gate::Baseline>,
    /// `--cross`: each program also in every other language that can express it.
    pub cross: bool,
    #[cfg(feature = "self-test")]
    pub planted_bug: Option<PlantedBug>,
    pub show_progress: bool,
}

impl Config {
    /// The `conform fuzz` options that fix the programs: with them, iteration i is the same
    /// program again.
    pub fn generator_options(&self) -> String {
        let mode = match self.mode {
            gen::Mode::Default => "",
            gen::Mode::LoopCaps => " --mode loop-caps",
        };
        let cross = if self.cross { " --cross" } else { "" };
        format!(
            "--seed {} --lang {}{mode}{cross}",
            self.seed,
            self.lang.name()
        )
    }
}

/// What a campaign found, kept in `<corpus>/state.json` (fields missing from an older file
/// take their defaults).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct State {
    pub seed: u64,
    pub lang: Option<LangChoice>,
    pub mode: gen::Mode,
    /// The first iteration not yet finished: a resumed campaign starts here.
    pub next: u64,
    pub execs: u64,
    pub seconds: f64,
    /// Programs some backend did not run (it lacks what they need), per backend.
    pub unsupported: BTreeMap<String, u64>,
    /// Cases the fuzzer wrote that the loader rejected (bugs in the fuzzer): how many, and
    /// the first few messages.
    pub generator_error_count: u64,
    pub generator_errors: Vec<String>,
    pub signatures: BTreeMap<String, Finding>,
    /// How many divergences of each reduction key were reduced so far (counted when the
    /// reduction is written, so an interrupted one is done again on resume).
    pub reduced_keys: BTreeMap<String, u32>,
    /// Iterations after `next` that already finished (workers finish out of order): a
    /// resumed campaign skips them.
    pub done_after: BTreeSet<u64>,
    /// Divergences skipped as known (`--known`), by their baseline name and backend.
    pub known: BTreeMap<String, u64>,
    /// The drivers the campaign runs besides the reference, by name, sorted; absent in a
    /// state written before it was recorded (taken as this session's on resume). A resume
    /// with other drivers is refused: its counts and findings would mix two campaigns.
    pub backends: Option<Vec<String>>,
    /// Subgroup operations in the programs run, by family and operation (`features::subgroup`).
    pub subgroup_ops: BTreeMap<String, u64>,
}

/// One distinct divergence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub backend: String,
    pub key: String,
    pub count: u64,
    pub first_iteration: u64,
    pub message: String,
    /// Instructions (NV assembly) or statements (GLSL) of the reduced program.
    pub instructions: usize,
    pub case: String,
}

impl State {
    pub(crate) fn save(&self, corpus: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(corpus)?;
        let tmp = corpus.join("state.json.tmp");
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(tmp, corpus.join("state.json"))
    }
}

/// Wall-clock limit of one reduction.
const REDUCE_TIME: Duration = Duration::from_secs(120);

/// Loader rejections kept in the state (the count goes on).
const KEEP_ERRORS: usize = 20;

/// How many divergences of one reduction key are reduced before the rest are only counted.
/// Hits that a finding's operators already explain are not reduced ([`attributes`]), so the
/// cap only bounds reductions of hits that may be new: those of a key whose findings all
/// name operators the hit lacks (two bugs behind one key, told apart by their operators). A
/// finding that kept no operator (an atomic block's, or an exchange that shows a barrier
/// bug) explains every hit of its key, so such a key is reduced once.
const REDUCTION_CAP: u32 = 8;

struct Shared<'a> {
    cfg: &'a Config,
    /// The first iteration this session does not run (`--iterations` from the resume point).
    end: u64,
    state: Mutex<State>,
    in_flight: Mutex<BTreeSet<u64>>,
    /// Iterations finished at or after the saved `next` (this session's and those the state
    /// recorded).
    finished: Mutex<BTreeSet<u64>>,
    /// Reductions under way, by key: they count against the cap but are not yet recorded.
    reducing: Mutex<BTreeMap<String, u32>>,
    next: AtomicU64,
    stop: AtomicBool,
    new_signatures: Mutex<Vec<String>>,
    bar: indicatif::ProgressBar,
    started: Instant,
}

/// Runs a campaign; returns its final state and the signatures first found in this session.
pub fn run(
    cfg: &Config,
    drivers: &[Box<dyn BackendFactory>],
) -> Result<(State, Vec<String>), String> {
    // The summary and the reduced cases go to --out, rewritten whole on each resumed session;
    // a `conform run`'s directory would have its summary.md replaced.
    if ["results.jsonl", "run.json"]
        .iter()
        .any(|f| cfg.out.join(f).exists())
    {
        return Err(format!(
            "--out {} holds the results of a conform run (results.jsonl, run.json); the fuzzer would overwrite its summary.md: choose another --out",
            cfg.out.display()
        ));
    }
    if let Some(n) = cfg.iterations.filter(|n| *n > MAX_ITERATIONS) {
        return Err(format!("--iterations {n} is above {MAX_ITERATIONS}"));
    }
    let mut backends: Vec<String> = drivers.iter().map(|d| d.name()).collect();
    backends.sort();
    let mut state = match State::load(&cfg.corpus)? {
        Some(s) => {
            let same_drivers = s.backends.as_ref().is_none_or(|b| *b == backends);
            if s.seed != cfg.seed
                || s.lang.as_ref() != Some(&cfg.lang)
                || s.mode != cfg.mode
                || !same_drivers
            {
                return Err(format!(
                    "{} holds a campaign of seed {} (--lang {}, mode {:?}, backends {}); this one is seed {} (--lang {}, mode {:?}, backends {}): resume it with its settings, or use another --corpus (or --out)",
                    cfg.corpus.display(),
                    s.seed,
                    s.lang.as_ref().map_or_else(|| "all".into(), LangChoice::name),
                    s.mode,
                    backend_list(s.backends.as_deref().unwrap_or(&backends)),
                    cfg.seed,
                    cfg.lang.name(),
                    cfg.mode,
                    backend_list(&backends),
                ));
            }
            eprintln!(
                "fuzz: resuming the campaign in {} at iteration {} ({} programs run before, {} distinct divergences){}",
                cfg.corpus.display(),
                s.next,
                s.execs,
                s.signatures.len(),
                cfg.iterations
                    .map_or_else(String::new, |n| format!("; --iterations {n}: up to iteration {}", s.next.saturating_add(n)))
            );
            s
        }
        None => State {
            seed: cfg.seed,
            lang: Some(cfg.lang.clone()),
            mode: cfg.mode,
            ..State::default()
        },
    };
    state.backends = Some(backends);
    // `--iterations N` is N more from where the campaign resumes: never a rewind, and no
    // iteration counted twice.
    let end = cfg
        .iterations
        .map(|n| state.next.saturating_add(n))
        .filter(|end| *end <= MAX_ITERATIONS);
    if cfg.iterations.is_some() && end.is_none() {
        return Err(format!(
            "--iterations would run past iteration {MAX_ITERATIONS}, the most a campaign runs"
        ));
    }
    let previous_seconds = state.seconds;
    state
        .save(&cfg.corpus)
        .map_err(|e| format!("{}: {e}", cfg.corpus.display()))?;
    let shared = Shared {
        cfg,
        end: end.unwrap_or(MAX_ITERATIONS),
        next: AtomicU64::new(state.next),
        finished: Mutex::new(state.done_after.clone()),
        reducing: Mutex::new(BTreeMap::new()),
        state: Mutex::new(state),
        in_flight: Mutex::new(BTreeSet::new()),
        stop: AtomicBool::new(false),
        new_signatures: Mutex::new(Vec::new()),
        bar: progress_bar(cfg.show_progress),
        started: Instant::now(),
    };
    let previous_execs = shared.state.lock().map_or(0, |s| s.execs);
    // No bar in a CI log (stderr is not a terminal): a heartbeat line instead, so the log
    // shows the campaign alive between findings.
    let heartbeat = {
        use std::io::IsTerminal;
        (cfg.show_progress && !std::io::stderr().is_terminal()).then_some(HEARTBEAT)
    };
    let mut last_beat = Instant::now();
    let started = std::thread::scope(|scope| {
        // Fewer jobs where the system refuses threads; none: an error below (nothing ran).
        let started = spawn_jobs(scope, cfg.jobs.max(1), |_| || worker(&shared, drivers));
        if started == 0 {
            shared.stop.store(true, Ordering::SeqCst);
        }
        // Save now and then so an interrupted campaign loses little.
        while !shared.stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(200));
            if shared.started.elapsed() >= cfg.time {
                shared.stop.store(true, Ordering::SeqCst);
            }
            let state = snapshot(&shared, previous_seconds);
            if heartbeat.is_some_and(|every| last_beat.elapsed() >= every) {
                last_beat = Instant::now();
                let execs = state.execs.saturating_sub(previous_execs);
                eprintln!(
                    "{}",
                    heartbeat_line(&state, execs, shared.started.elapsed())
                );
            }
            let _ = state.save(&cfg.corpus);
        }
        started
    });
    shared.bar.finish_and_clear();
    if started == 0 {
        return Err("cannot start any fuzzing thread (see above): nothing was run".into());
    }
    let state = snapshot(&shared, previous_seconds);
    state
        .save(&cfg.corpus)
        .map_err(|e| format!("{}: {e}", cfg.corpus.display()))?;
    let new = shared
        .new_signatures
        .lock()
        .map(|v| v.clone())
        .unwrap_or_default();
    write_summary(cfg, &state).map_err(|e| format!("{}: {e}", cfg.out.display()))?;
    Ok((state, new))
}

/// `reference,llvmpipe,zink`: the backends of a campaign as `--backend` would name them.
fn backend_list(drivers: &[String]) -> String {
    std::iter::once("reference")
        .chain(drivers.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(",")
}

fn snapshot(shared: &Shared, previous_seconds: f64) -> State {
    let mut s = shared.state.lock().map(|s| s.clone()).unwrap_or_default();
    let next = shared.next.load(Ordering::SeqCst);
    s.next = shared
        .in_flight
        .lock()
        .ok()
        .and_then(|f| f.first().copied())
        .unwrap_or(next)
        .min(next)
        .min(shared.end);
    if let Ok(mut f) = shared.finished.lock() {
        *f = f.split_off(&s.next);
        s.done_after = f.clone();
    }
    s.seconds = previous_seconds + shared.started.elapsed().as_secs_f64();
    s
}

/// How often a campaign whose stderr is not a terminal prints a [`heartbeat_line`] (as
/// `conform run --heartbeat` does by default).
const HEARTBEAT: Duration = Duration::from_secs(30);

/// `fuzz: 1234 programs run in 1m 30s (13.7/s), 3 divergences (2 distinct), 5 known`: the
/// line a CI log gets every [`HEARTBEAT`]; `execs` and `elapsed` are this session's.
fn heartbeat_line(s: &State, execs: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { execs as f64 / secs } else { 0.0 };
    let total: u64 = s.signatures.values().map(|f| f.count).sum();
    let known: u64 = s.known.values().sum();
    let known = if known > 0 {
        format!(", {known} known")
    } else {
        String::new()
    };
    let whole = elapsed.as_secs();
    let clock = match (whole / 3600, whole / 60 % 60, whole % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, min, sec) => format!("{min}m {sec}s"),
        (h, min, sec) => format!("{h}h {min}m {sec}s"),
    };
    format!(
        "fuzz: {execs} programs run in {clock} ({rate:.1}/s), {total} divergences ({} distinct){known}",
        s.signatures.len()
    )
}

fn progress_bar(show: bool) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} {elapsed_precise} {pos} execs ({rate}) {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner())
        // indicatif's own {per_sec} shows four decimals (15.6946/s).
        .with_key(
            "rate",
            |p: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1}/s", p.per_sec());
            },
        ),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

fn make_targets(shared: &Shared, drivers: &[Box<dyn BackendFactory>]) -> Vec<Target> {
    let mut targets = vec![Target {
        name: "reference".into(),
        is_reference: true,
        exec: Box::new(ReferenceTarget {
            #[cfg(feature = "self-test")]
            planted_bug: shared.cfg.planted_bug,
        }),
    }];
    for d in drivers {
        match d.make() {
            Ok(exec) => targets.push(Target {
                name: d.name(),
                is_reference: false,
                exec,
            }),
            Err(why) => shared
                .bar
                .suspend(|| eprintln!("{}: unavailable ({why})", d.name())),
        }
    }
    targets
}

fn worker(shared: &Shared, drivers: &[Box<dyn BackendFactory>]) {
    let mut targets = make_targets(shared, drivers);
    while !shared.stop.load(Ordering::SeqCst) {
        let i = shared.next.fetch_add(1, Ordering::SeqCst);
        if i >= shared.end {
            shared.stop.store(true, Ordering::SeqCst);
            break;
        }
        // Finished before an interruption: never run twice.
        if shared.finished.lock().is_ok_and(|f| f.contains(&i)) {
            continue;
        }
        if let Ok(mut f) = shared.in_flight.lock() {
            f.insert(i);
        }
        iteration(shared, &mut targets, i);
        // Finished only when not cut short: an iteration stopped mid-reduction by the end of
        // the session runs again on resume, so its divergence is not lost.
        if !shared.stop.load(Ordering::SeqCst) {
            if let Ok(mut f) = shared.finished.lock() {
                f.insert(i);
            }
        }
        if let Ok(mut f) = shared.in_flight.lock() {
            f.remove(&i);
        }
        shared.bar.inc(1);
    }
}

fn iteration(shared: &Shared, targets: &mut [Target], i: u64) {
    let cfg = shared.cfg;
    let lang = cfg.lang.of_iteration(i);
    let bytes = input_bytes(cfg.seed, i);
    let Ok(p) = gen::program_in(&mut Unstructured::new(&bytes), lang, cfg.mode) else {
        return;
    };
    // --cross: the same tree in every language that expresses it, each judged against the
    // same model; a reference front end that disagrees is a reference bug found without any
    // driver.
    let mut programs = vec![p.clone()];
    if cfg.cross {
        programs.extend(
            Lang::ALL
                .into_iter()
                .filter(|&l| l != lang && l.expresses(&p))
                .map(|l| Program {
                    lang: l,
                    ..p.clone()
                }),
        );
    }
    for p in &programs {
        run_program(shared, targets, p, i, &bytes);
    }
    update_message(shared);
}

/// Runs `p` (iteration `i`, generated from `bytes`) on every target and reduces what diverges.
fn run_program(shared: &Shared, targets: &mut [Target], p: &Program, i: u64, bytes: &[u8]) {
    let cfg = shared.cfg;
    let name = format!("fuzz-{}-{i}", cfg.seed);
    let (case, _) = match load_case(p, &name, "generated") {
        Ok(c) => c,
        Err(e) => {
            if let Ok(mut s) = shared.state.lock() {
                s.generator_error_count += 1;
                if s.generator_errors.len() < KEEP_ERRORS {
                    s.generator_errors.push(format!("iteration {i}: {e}"));
                }
            }
            return;
        }
    };
    let mut found: Vec<(usize, Divergence)> = Vec::new();
    let mut statuses = Vec::new();
    for (t, target) in targets.iter_mut().enumerate() {
        match observe(p, &case, target) {
            None => {
                statuses.push(format!("{}: not run (unsupported)", target.name));
                if let Ok(mut s) = shared.state.lock() {
                    *s.unsupported.entry(target.name.clone()).or_default() += 1;
                }
            }
            Some(ds) => {
                statuses.push(match ds.first() {
                    None => format!("{}: agrees with the model", target.name),
                    Some(d) => format!("{}: {} ({})", target.name, d.status.name(), d.message),
                });
                found.extend(ds.into_iter().map(|d| (t, d)));
            }
        }
    }
    if let Ok(mut s) = shared.state.lock() {
        s.execs += 1;
        crate::features::subgroup::count(p, &mut s.subgroup_ops);
    }
    for (t, d) in found {
        let ops = divergence_ops(p, d.block);
        if let Some(line) = cfg.known.as_ref().and_then(|b| known_line(b, &d, &ops)) {
            if let Ok(mut s) = shared.state.lock() {
                *s.known.entry(format!("{},{line}", d.backend)).or_default() += 1;
            }
            continue;
        }
        let key = d.key();
        let reduce_it = match (shared.state.lock(), shared.reducing.lock()) {
            (Ok(mut s), Ok(mut r)) => {
                let done = s.reduced_keys.get(&key).copied().unwrap_or(0);
                let pending = r.entry(key.clone()).or_default();
                let explained = s
                    .signatures
                    .iter_mut()
                    .find(|(sig, f)| f.key == key && attributes(sig, &key, &ops));
                let go = explained.is_none() && done + *pending < REDUCTION_CAP;
                if go {
                    *pending += 1;
                } else if let Some((_, f)) = explained {
                    f.count += 1;
                } else if let Some(f) = s.signatures.values_mut().find(|f| f.key == key) {
                    f.count += 1;
                }
                go
            }
            _ => false,
        };
        if reduce_it {
            let recorded = report(shared, &mut targets[t], p, &d, i, bytes, &statuses);
            if let (Ok(mut s), Ok(mut r)) = (shared.state.lock(), shared.reducing.lock()) {
                *r.entry(key.clone()).or_default() -= 1;
                if recorded {
                    *s.reduced_keys.entry(key).or_default() += 1;
                }
            }
        }
    }
}

fn update_message(shared: &Shared) {
    if let Ok(s) = shared.state.lock() {
        let total: u64 = s.signatures.values().map(|f| f.count).sum();
        shared.bar.set_message(format!(
            "{} divergences, {} distinct",
            total,
            s.signatures.len()
        ));
    }
}

/// Reduces one divergence on the backend where it happened and records it; whether it is
/// recorded (a case that would not load is not).
fn report(
    shared: &Shared,
    target: &mut Target,
    p: &Program,
    d: &Divergence,
    i: u64,
    bytes: &[u8],
    statuses: &[String],
) -> bool {
    let cfg = shared.cfg;
    let key = d.key();
    let mut last: Option<Divergence> = None;
    let started = Instant::now();
    let (reduced, tests) = reduce(p, d.block, cfg.reduce_tests, |cand| {
        // A reduction of hangs could take hours: stop trying when the campaign ends or
        // the reduction has had its time.
        if shared.stop.load(Ordering::SeqCst) || started.elapsed() > REDUCE_TIME {
            return false;
        }
        let Ok((case, _)) = load_case(cand, "fuzz-reduce", "reduction candidate") else {
            return false;
        };
        match observe(cand, &case, target)
            .unwrap_or_default()
            .into_iter()
            .find(|x| x.key() == key)
        {
            Some(x) => {
                last = Some(x);
                true
            }
            None => false,
        }
    });
    let reduced_d = last.unwrap_or_else(|| d.clone());
    let sig = signature(&reduced_d, &reduced);
    let dir = cfg.out.join(&sig);
    let name = format!("fuzz-{sig}");
    let description = format!(
        "Found by `conform fuzz {}` at iteration {i} and reduced ({tests} tests): {} \
         disagrees with the fuzzer's model ({}). Expected values come from the model in \
         harness/fuzzer/src/oracles/model/, derived from the spec, not from any backend.",
        cfg.generator_options(),
        d.backend,
        d.aspect
    );
    // Written as the target ran it (GLSL 3.30 with extensions on a GL 3.3 driver), so that
    // `conform run case.yaml --backend <it>` reproduces it.
    let profile = glsl_profile_for(&reduced, target);
    let Ok((_, reduced_text)) = load_case_in(&reduced, &name, &description, profile) else {
        return false;
    };
    let is_new = match shared.state.lock() {
        Ok(mut s) => match s.signatures.get_mut(&sig) {
            Some(f) => {
                f.count += 1;
                false
            }
            None => {
                s.signatures.insert(
                    sig.clone(),
                    Finding {
                        backend: d.backend.clone(),
                        key: key.clone(),
                        count: 1,
                        first_iteration: i,
                        message: reduced_d.message.clone(),
                        instructions: reduced_text.instructions,
                        case: dir.join("case.yaml").display().to_string(),
                    },
                );
                true
            }
        },
        Err(_) => false,
    };
    if !is_new {
        return true;
    }
    if let Ok(mut v) = shared.new_signatures.lock() {
        v.push(sig.clone());
    }
    let original = load_case_in(p, &format!("{name}-original"), &description, profile)
        .map(|(_, t)| t.yaml)
        .unwrap_or_default();
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("case.yaml"), &reduced_text.yaml)?;
        std::fs::write(dir.join("original.yaml"), original)?;
        std::fs::write(
            dir.join("program.json"),
            serde_json::to_string_pretty(&reduced).map_err(std::io::Error::other)?,
        )?;
        std::fs::write(
            dir.join("divergence.md"),
            divergence_md(cfg, &sig, d, &reduced_d, &reduced_text, i, tests, statuses),
        )?;
        let inputs = cfg.corpus.join("inputs");
        std::fs::create_dir_all(&inputs)?;
        std::fs::write(inputs.join(format!("{sig}.bin")), bytes)
    };
    if let Err(e) = write() {
        shared
            .bar
            .suspend(|| eprintln!("cannot write {}: {e}", dir.display()));
    }
    shared.bar.suspend(|| {
        eprintln!(
            "new divergence {sig}: {} ({} instructions after reduction)\n  {}",
            reduced_d.message,
            reduced_text.instructions,
            dir.join("case.yaml").display()
        )
    });
    true
}

#[allow(clippy::too_many_arguments)]
fn divergence_md(
    cfg: &Config,
    sig: &str,
    original: &Divergence,
    reduced: &Divergence,
    text: &crate::emitters::case::CaseText,
    i: u64,
    tests: usize,
    statuses: &[String],
) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# {sig}\n");
    let _ = writeln!(
        m,
        "- backend: {}\n- found at: iteration {i} of `conform fuzz {}` ({})\n- reduced with {tests} tests to {} instructions/statements",
        original.backend,
        cfg.generator_options(),
        original.lang.name(),
        text.instructions
    );
    #[cfg(feature = "self-test")]
    if let Some(b) = cfg.planted_bug {
        let _ = writeln!(
            m,
            "- **the reference ran with a planted bug ({b:?})**: this is the fuzzer's self-test"
        );
    }
    let _ = writeln!(
        m,
        "- reproduce: `conform run {} --backend {}`\n",
        cfg.out.join(sig).join("case.yaml").display(),
        original.backend
    );
    let _ = writeln!(m, "## Every backend on the original program\n");
    for s in statuses {
        let _ = writeln!(m, "- {s}");
    }
    let _ = writeln!(m, "\n## The reduced program on {}\n", reduced.backend);
    let _ = writeln!(m, "{}: {}\n", reduced.status.name(), reduced.message);
    let _ = writeln!(m, "```");
    for d in &reduced.details {
        let _ = writeln!(m, "{d}");
    }
    let _ = writeln!(
        m,
        "```\n\n## Analysis\n\n(to be written: driver bug, reference bug or fuzzer bug, and why)"
    );
    m
}

/// `<out>/summary.md`: the campaign and its distinct divergences.
pub fn write_summary(cfg: &Config, s: &State) -> std::io::Result<()> {
    std::fs::create_dir_all(&cfg.out)?;
    std::fs::write(cfg.out.join("summary.md"), render_summary(s))
}

pub fn render_summary(s: &State) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# Fuzz campaign\n");
    let rate = if s.seconds > 0.0 {
        s.execs as f64 / s.seconds
    } else {
        0.0
    };
    let _ = writeln!(
        m,
        "seed {}, languages {}, mode {:?}: {} programs run in {:.0} s ({rate:.1}/s), iterations 0..{}",
        s.seed,
        s.lang.as_ref().map_or_else(|| "all".into(), LangChoice::name),
        s.mode,
        s.execs,
        s.seconds,
        s.next
    );
    for (b, n) in &s.unsupported {
        let _ = writeln!(
            m,
            "- {b} did not run {n} programs (it lacks what they need)"
        );
    }
    if s.generator_error_count > 0 {
        let _ = writeln!(
            m,
            "- {} generated cases were rejected by the loader (fuzzer bugs): {}",
            s.generator_error_count,
            s.generator_errors.first().cloned().unwrap_or_default()
        );
    }
    for (name, n) in &s.known {
        let _ = writeln!(m, "- {n} known divergences `{name}` (--known): not reduced");
    }
    crate::features::subgroup::summary(&s.subgroup_ops, &mut m);
    let total: u64 = s.signatures.values().map(|f| f.count).sum();
    let _ = writeln!(
        m,
        "\n{} divergences, {} distinct\n",
        total,
        s.signatures.len()
    );
    if !s.signatures.is_empty() {
        let _ = writeln!(
            m,
            "| signature | backend | count | first iteration | size | case |"
        );
        let _ = writeln!(m, "|---|---|---|---|---|---|");
        for (sig, f) in &s.signatures {
            let _ = writeln!(
                m,
                "| {sig} | {} | {} | {} | {} | {} |",
                f.backend, f.count, f.first_iteration, f.instructions, f.case
            );
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "self-test")]
    mod subgroup_tests;

    #[test]
    fn the_heartbeat_counts_programs_rate_and_divergences() {
        let mut s = State::default();
        assert_eq!(
            heartbeat_line(&s, 0, Duration::ZERO),
            "fuzz: 0 programs run in 0s (0.0/s), 0 divergences (0 distinct)"
        );
        s.signatures.insert(
            "llvmpipe-glsl-x".into(),
            Finding {
                backend: "llvmpipe".into(),
                key: "k".into(),
                count: 3,
                first_iteration: 7,
                message: String::new(),
                instructions: 4,
                case: String::new(),
            },
        );
        s.known.insert("llvmpipe,fuzz/glsl-y".into(), 5);
        assert_eq!(
            heartbeat_line(&s, 1413, Duration::from_millis(90_030)),
            "fuzz: 1413 programs run in 1m 30s (15.7/s), 3 divergences (1 distinct), 5 known"
        );
        assert!(heartbeat_line(&s, 1, Duration::from_secs(3_725)).contains(" in 1h 2m 5s "));
    }

    fn config(dir: &Path, lang: LangChoice, iterations: u64) -> Config {
        Config {
            seed: 0,
            lang,
            mode: gen::Mode::Default,
            time: Duration::from_secs(3600),
            iterations: Some(iterations),
            corpus: dir.join("corpus"),
            out: dir.join("out"),
            jobs: 1,
            reduce_tests: 400,
            known: None,
            cross: false,
            #[cfg(feature = "self-test")]
            planted_bug: None,
            show_progress: false,
        }
    }

    /// Issue 7's self-test: from seed 0, a bug planted in the reference is found within a
    /// fixed number of iterations (a wall-clock figure is in docs/FUZZING.md) and reduced to a
    /// case of at most 15 instructions that reproduces as-is.
    #[cfg(feature = "self-test")]
    fn finds_planted(bug: PlantedBug, feature: &str, iterations: u64) {
        finds_planted_in(bug, LangChoice::of(&[Lang::Nvasm]), feature, iterations, 15);
    }

    /// [`finds_planted`] in `lang`; `feature` is looked for in the signatures (one of
    /// several separated by `|`), and the
    /// smallest reduced case has at most `max_size` instructions (SPIR-V spells out every
    /// load, store and access chain: its cases are longer).
    #[cfg(feature = "self-test")]
    fn finds_planted_in(
        bug: PlantedBug,
        lang: LangChoice,
        feature: &str,
        iterations: u64,
        max_size: usize,
    ) -> State {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config {
            planted_bug: Some(bug),
            ..config(dir.path(), lang, iterations)
        };
        let (state, new) = run(&cfg, &[]).unwrap();
        assert!(
            state.generator_errors.is_empty(),
            "{:?}",
            state.generator_errors
        );
        let hits: Vec<&Finding> = state
            .signatures
            .iter()
            .filter(|(sig, _)| feature.split('|').any(|f| sig.contains(f)))
            .map(|(_, f)| f)
            .collect();
        assert!(!hits.is_empty(), "{}", render_summary(&state));
        assert_eq!(new.len(), state.signatures.len());
        // Nothing but the planted bug diverges.
        assert_eq!(
            hits.len(),
            state.signatures.len(),
            "{}",
            render_summary(&state)
        );
        let smallest = hits.iter().min_by_key(|f| f.instructions).unwrap();
        assert!(
            smallest.instructions <= max_size,
            "{}",
            render_summary(&state)
        );
        // The reduced case is an ordinary case: it fails on the bugged reference and passes on
        // the real one.
        let case = conform_case::load(Path::new(&smallest.case), None).unwrap();
        let verdict = |bug| {
            let mut t = ReferenceTarget { planted_bug: bug };
            let raw =
                conform_run::backend::Executor::run(&mut t, &conform_run::backend::Job::of(&case));
            conform_judge::judge(&case, &raw, true, None).status
        };
        assert_eq!(verdict(Some(bug)), conform_judge::results::Status::Fail);
        // A case with undefined behaviour on purpose passes as `flagged` on the reference.
        let fine = [
            conform_judge::results::Status::Pass,
            conform_judge::results::Status::Flagged,
        ];
        assert!(fine.contains(&verdict(None)), "{}", smallest.case);
        eprintln!(
            "{bug:?}: first found at iteration {}, {} signatures",
            hits.iter().map(|f| f.first_iteration).min().unwrap_or(0),
            hits.len()
        );
        state
    }

    /// [`finds_planted_in`], and the bug keeps signatures close to its root cause: at most 3
    /// (issue 16).
    #[cfg(feature = "self-test")]
    fn finds_planted_in_few_signatures(
        bug: PlantedBug,
        lang: LangChoice,
        feature: &str,
        iterations: u64,
        max_size: usize,
    ) {
        let state = finds_planted_in(bug, lang, feature, iterations, max_size);
        assert!(state.signatures.len() <= 3, "{}", render_summary(&state));
    }

    /// [`finds_planted_in`] with at most two signatures per language: the integer families'
    /// signatures also name the operator that made the operand negative or large
    /// (`-with-findmsbs-neg`), which the reducer keeps because the bug needs that value.
    #[cfg(feature = "self-test")]
    fn finds_planted_family(bug: PlantedBug, langs: &[Lang], feature: &str, max_size: usize) {
        let state = finds_planted_in(
            bug,
            LangChoice::of(langs),
            feature,
            FAMILY_ITERATIONS,
            max_size,
        );
        assert!(
            state.signatures.len() <= 2 * langs.len(),
            "{}",
            render_summary(&state)
        );
    }

    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_iwrap_bug() {
        finds_planted(PlantedBug::IwrapOffByOne, "atomic-iwrap", 60);
    }

    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_shuffle_clamp_bug() {
        // The undefined-behaviour block's read of an inactive lane goes through the same
        // range test: the bug can also leave it unflagged.
        finds_planted(
            PlantedBug::ShuffleClampOffByOne,
            "shuffle-|inactive-lane-read",
            160,
        );
    }

    /// Issue 16: signed division rounding down instead of truncating, which no block reached
    /// before the integer grammar had signed division.
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_signed_division_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::SignedDivisionRoundsDown,
            LangChoice::of(&[Lang::Glsl, Lang::Nvasm]),
            "divs",
            DIVISION_ITERATIONS,
            15,
        );
    }

    /// The same bug through the SPIR-V emitter and the reference's SPIR-V front end
    /// (`OpSDiv`).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_signed_division_bug_in_spirv() {
        finds_planted_in(
            PlantedBug::SignedDivisionRoundsDown,
            LangChoice::of(&[Lang::Spirv]),
            "spirv-compute-memory-with-divs",
            DIVISION_ITERATIONS,
            40,
        );
    }

    /// Issue 16: a barrier reached by part of the group no longer flagged, which only the
    /// undefined-behaviour blocks reach (every other block is built to be defined).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_partial_barrier_bug() {
        finds_planted_in(
            PlantedBug::PartialBarrierUnflagged,
            LangChoice::all(),
            "undefined-divergent-barrier-unflagged",
            BARRIER_ITERATIONS,
            15,
        );
    }

    /// Issue 16: float atomic adds (`atomicAdd(float)`, `ATOM.ADD.F32`, `OpAtomicFAddEXT`)
    /// adding only the operand's integer part, which only the float atomic blocks reach.
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_float_atomic_bug() {
        finds_planted_in(
            PlantedBug::FloatAtomicAddDropsFraction,
            LangChoice::all(),
            "fatomic-add-f32",
            FLOAT_ITERATIONS,
            40,
        );
    }

    /// Issue 16: rounding a float down truncating instead (`floor`, `FLR.S`, `CVT.FLR`,
    /// GLSL.std.450 `Floor`), which only the float conversions of compute expressions reach.
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_floor_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::FloorTruncates,
            LangChoice::all(),
            "floor",
            FLOOR_ITERATIONS,
            40,
        );
    }

    /// Issue 16: NV assembly's CONT leaving the loop, which only the `continue` statements
    /// of compute blocks reach (the GLSL and SPIR-V front ends lower `continue` to other
    /// branches, so the test runs NV assembly).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_continue_bug() {
        finds_planted_in(
            PlantedBug::ContinueBreaks,
            LangChoice::of(&[Lang::Nvasm]),
            "continue",
            CONTINUE_ITERATIONS,
            // The loop's own REP/ENDREP, index and IF around the CONT come on top of the
            // compute block's 6 instructions.
            20,
        );
    }

    /// Issue 16: a return skipping the caller's next instruction, which only the function
    /// calls of compute blocks reach in NV assembly (CAL/RET) and SPIR-V (OpFunctionCall).
    /// GLSL programs call functions elsewhere too (the `fz_divs`-style helpers), so the bug
    /// shows in every GLSL block kind that has one: not an area of its own there.
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_return_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::ReturnSkipsOne,
            LangChoice::of(&[Lang::Nvasm, Lang::Spirv]),
            "call",
            RETURN_ITERATIONS,
            40,
        );
    }

    /// Issue 16: the local invocation ID's z component reading 0, which only the ID
    /// components that compute blocks of 3D groups read reach.
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_local_id_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::LocalIdZeroZ,
            LangChoice::all(),
            "compute",
            LOCAL_ID_ITERATIONS,
            40,
        );
    }

    /// Issue 16: shuffles in a partial warp returning the own value on an active lane's
    /// read, which only the shuffle blocks of groups that are not a multiple of 32 reach
    /// (NV shuffles: GLSL and NV assembly).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_partial_warp_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::PartialWarpShuffleOwn,
            LangChoice::of(&[Lang::Glsl, Lang::Nvasm]),
            "shuffle",
            PARTIAL_WARP_ITERATIONS,
            15,
        );
    }

    /// A signed 8- or 16-bit load that zero-extends: only narrow blocks load narrow types
    /// (NV assembly).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_narrow_load_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::NarrowLoadZeroExtends,
            LangChoice::of(&[Lang::Nvasm]),
            "narrow-s",
            NARROW_ITERATIONS,
            15,
        );
    }

    /// Issue 16: a 64-bit shift taking its count modulo 32, which only the 64-bit
    /// expressions reach (every 32-bit shift count is masked to 0..31 already).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_wide_shift_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::WideShiftCountMod32,
            LangChoice::all(),
            "widesh",
            WIDE_ITERATIONS,
            40,
        );
    }

    /// Issue 16: a move reading component w into lane y or z reads z, which only the
    /// swizzles of vector blocks reach (GLSL swizzles, NV MOV, SPIR-V shuffles all move).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_swizzle_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::SwizzleWReadsZ,
            LangChoice::all(),
            "vector",
            SWIZZLE_ITERATIONS,
            40,
        );
    }

    /// Issue 16: an atomic OR after an AND on the same word acting as XOR, which only the
    /// atomic-mix blocks reach (every other block applies one operation to a word).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_or_after_and_bug() {
        finds_planted_in_few_signatures(
            PlantedBug::OrAfterAndActsAsXor,
            LangChoice::all(),
            "atomic-mix-bits",
            MIX_ITERATIONS,
            40,
        );
    }

    /// Issue 29: the integer instructions outside the first grammar, one planted bug per
    /// family, each reached only by the integer-families statement (`gen::int_families`).
    /// Unsigned `<=`/`>=` comparing signed: GLSL, NV assembly and SPIR-V.
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_unsigned_le_bug() {
        finds_planted_family(PlantedBug::UnsignedLeSigned, &Lang::ALL, "leu|geu", 40);
    }

    /// A logical not complementing every bit of a boolean: SPIR-V's `OpLogicalNot` (NV
    /// assembly has no booleans; in GLSL every `||` reaches it too, the division helpers'
    /// included, so the bug would not be the logical family's alone there).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_logical_not_bug() {
        finds_planted_family(PlantedBug::LogicalNotBitwise, &[Lang::Spirv], "lnot", 40);
    }

    /// `findMSB` of a negative int answering as for a uint: every language.
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_find_msb_signed_bug() {
        finds_planted_family(
            PlantedBug::FindMsbSignedAsUnsigned,
            &Lang::ALL,
            "findmsbs",
            40,
        );
    }

    /// NV's subtract carry flag set on a borrow: NV assembly's `SUB.U.CC` (GLSL's
    /// `usubBorrow` and SPIR-V's `OpISubBorrow` have no flags).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_subtract_carry_bug() {
        finds_planted_family(
            PlantedBug::SubtractCarryIsBorrow,
            &[Lang::Nvasm],
            "borrow",
            15,
        );
    }

    /// NV's own forms (SAD, MUL.S24/U24): SAD.S ordering its operands as unsigned, in the NV
    /// front end (GLSL and SPIR-V spell the absolute difference with max and min).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_sad_signed_bug() {
        finds_planted_family(
            PlantedBug::SadSignedReadsUnsigned,
            &[Lang::Nvasm],
            "absdiffs",
            15,
        );
    }

    /// GLSL's `clamp` of ints ordering them as uints, in the GLSL front end (NV assembly spells
    /// clamp with MAX.S and MIN.S; the SPIR-V front end lowers SClamp itself). The float
    /// conversions' saturation to 8 and 16 bits is an int clamp in GLSL too (`-with-i2f-...`).
    #[cfg(feature = "self-test")]
    #[test]
    fn finds_the_planted_clamp_signed_bug() {
        finds_planted_family(
            PlantedBug::ClampSignedAsUnsigned,
            &[Lang::Glsl],
            "clamps|i2f",
            15,
        );
    }

    /// Iterations of seed 0 the planted-bug tests of issue 16 run (first hits measured in
    /// docs/FUZZING.md, with room to spare; each is a few seconds in a debug build).
    #[cfg(feature = "self-test")]
    const DIVISION_ITERATIONS: u64 = 40;
    #[cfg(feature = "self-test")]
    const BARRIER_ITERATIONS: u64 = 40;
    #[cfg(feature = "self-test")]
    const FLOAT_ITERATIONS: u64 = 40;
    #[cfg(feature = "self-test")]
    const FLOOR_ITERATIONS: u64 = 80;
    #[cfg(feature = "self-test")]
    const CONTINUE_ITERATIONS: u64 = 80;
    #[cfg(feature = "self-test")]
    const RETURN_ITERATIONS: u64 = 40;
    #[cfg(feature = "self-test")]
    const LOCAL_ID_ITERATIONS: u64 = 60;
    #[cfg(feature = "self-test")]
    const NARROW_ITERATIONS: u64 = 60;
    #[cfg(feature = "self-test")]
    const PARTIAL_WARP_ITERATIONS: u64 = 140;
    #[cfg(feature = "self-test")]
    const WIDE_ITERATIONS: u64 = 100;
    #[cfg(feature = "self-test")]
    const SWIZZLE_ITERATIONS: u64 = 40;
    #[cfg(feature = "self-test")]
    const MIX_ITERATIONS: u64 = 60;
    #[cfg(feature = "self-test")]
    const FAMILY_ITERATIONS: u64 = 300;

    #[test]
    fn a_resumed_campaign_skips_the_iterations_it_finished() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(dir.path(), LangChoice::all(), 3);
        let (first, _) = run(&cfg, &[]).unwrap();
        assert_eq!((first.next, first.execs), (3, 3));
        // As if iterations 4 and 5 had finished while 3 was still running at the interruption.
        let mut s = State::load(&cfg.corpus).unwrap().unwrap();
        s.done_after = [4, 5].into();
        s.save(&cfg.corpus).unwrap();
        let (second, _) = run(&config(dir.path(), LangChoice::all(), 5), &[]).unwrap();
        // Five more from 3: 3, 6 and 7 ran; 4 and 5 did not run again.
        assert_eq!((second.next, second.execs), (8, 6));
        assert!(second.done_after.is_empty(), "{:?}", second.done_after);
    }

    #[test]
    fn cross_runs_each_tree_in_every_language_that_expresses_it() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config {
            cross: true,
            ..config(dir.path(), LangChoice::of(&[Lang::Glsl]), 6)
        };
        let (state, _) = run(&cfg, &[]).unwrap();
        assert!(state.signatures.is_empty(), "{}", render_summary(&state));
        // Six trees, each also in NV assembly and SPIR-V where they have a form.
        let expected: u64 = (0..6)
            .map(|i| {
                let bytes = input_bytes(0, i);
                let p = gen::program(&mut Unstructured::new(&bytes), Lang::Glsl).unwrap();
                Lang::ALL.iter().filter(|l| l.expresses(&p)).count() as u64
            })
            .sum();
        assert!(expected > 6);
        assert_eq!((state.next, state.execs), (6, expected));
    }

    #[test]
    fn languages_parse_and_default_to_what_the_drivers_run() {
        let glsl_spirv = LangChoice::of(&[Lang::Glsl, Lang::Spirv]);
        assert_eq!("glsl, spirv".parse::<LangChoice>().unwrap(), glsl_spirv);
        assert_eq!(glsl_spirv.of_iteration(3), Lang::Spirv);
        assert_eq!("all".parse::<LangChoice>().unwrap().name(), "all");
        assert!("glsl,cuda"
            .parse::<LangChoice>()
            .unwrap_err()
            .contains("`cuda`"));
        let default = |v: &[&str]| {
            let names: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            LangChoice::for_drivers(&names).name()
        };
        assert_eq!(default(&["llvmpipe", "zink"]), "glsl,spirv");
        assert_eq!(default(&["softpipe"]), "glsl");
        assert_eq!(default(&[]), "all");
        assert_eq!(default(&["llvmpipe", "nvidia"]), "all");
    }

    /// `--known`: a divergence the baseline lists is counted, not reduced or reported.
    #[cfg(feature = "self-test")]
    #[test]
    fn known_divergences_are_counted_not_reported() {
        let dir = tempfile::tempdir().unwrap();
        let known = "reference,fuzz/nvasm-atomic-iwrap-u32-storage-memory,fail\n\
                     reference,fuzz/nvasm-atomic-iwrap-u32-shared-memory,fail\n";
        let cfg = Config {
            planted_bug: Some(PlantedBug::IwrapOffByOne),
            known: Some(
                conform_gate::gate::Baseline::parse(Path::new("known.txt"), known).unwrap(),
            ),
            ..config(dir.path(), LangChoice::of(&[Lang::Nvasm]), 20)
        };
        let (state, new) = run(&cfg, &[]).unwrap();
        assert!(new.is_empty(), "{}", render_summary(&state));
        assert!(!state.known.is_empty(), "{}", render_summary(&state));
        assert!(render_summary(&state).contains("known divergences"));
    }

    /// `--known` with operators: the planted signed-division bug is known as
    /// `compute-memory-with-divs`, so every hit (each program uses `divs`) is counted as
    /// known and none is reported; a line naming another operator covers none of them.
    #[cfg(feature = "self-test")]
    #[test]
    fn known_lines_with_operators_cover_only_programs_using_them() {
        let run_with = |line: &str| {
            let dir = tempfile::tempdir().unwrap();
            let cfg = Config {
                planted_bug: Some(PlantedBug::SignedDivisionRoundsDown),
                known: Some(
                    conform_gate::gate::Baseline::parse(Path::new("known.txt"), line).unwrap(),
                ),
                ..config(dir.path(), LangChoice::of(&[Lang::Glsl]), 40)
            };
            run(&cfg, &[]).unwrap()
        };
        let (state, new) = run_with("reference,fuzz/glsl-compute-memory-with-divs,fail\n");
        assert!(new.is_empty(), "{}", render_summary(&state));
        assert!(
            state.known.keys().any(|k| k.ends_with("-with-divs")),
            "{}",
            render_summary(&state)
        );
        let (state, new) = run_with("reference,fuzz/glsl-compute-memory-with-mulhis,fail\n");
        assert!(state.known.is_empty(), "{}", render_summary(&state));
        assert!(
            new.iter().any(|s| s.contains("-with-divs")),
            "{}",
            render_summary(&state)
        );
    }

    /// `--iterations N` on a resumed campaign is N more: the state never rewinds and no
    /// iteration is run or counted twice, even with N below the iterations already done.
    #[test]
    fn resumes_from_its_corpus_and_refuses_another_seed() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(dir.path(), LangChoice::all(), 6);
        let (first, _) = run(&cfg, &[]).unwrap();
        assert_eq!((first.next, first.execs), (6, 6));
        let cfg = config(dir.path(), LangChoice::all(), 4);
        let (second, new) = run(&cfg, &[]).unwrap();
        assert_eq!((second.next, second.execs), (10, 10));
        let (third, _) = run(&config(dir.path(), LangChoice::all(), 2), &[]).unwrap();
        assert_eq!((third.next, third.execs), (12, 12));
        assert_eq!(third.backends, Some(vec![]));
        assert!(
            new.is_empty() && second.signatures.is_empty(),
            "{}",
            render_summary(&second)
        );
        let other = Config {
            seed: 1,
            ..config(dir.path(), LangChoice::all(), 12)
        };
        assert!(run(&other, &[]).unwrap_err().contains("seed 0"));
        // A campaign that ran llvmpipe is not resumed by the reference alone (nor the reverse).
        let mut s = State::load(&cfg.corpus).unwrap().unwrap();
        s.backends = Some(vec!["llvmpipe".into()]);
        s.save(&cfg.corpus).unwrap();
        let e = run(&cfg, &[]).unwrap_err();
        assert!(
            e.contains("backends reference,llvmpipe)") && e.contains("backends reference)"),
            "{e}"
        );
        assert_eq!(State::load(&cfg.corpus).unwrap().unwrap().next, 12);
        // A state from before backends were recorded resumes, and records them.
        s.backends = None;
        s.save(&cfg.corpus).unwrap();
        let (fourth, _) = run(&config(dir.path(), LangChoice::all(), 1), &[]).unwrap();
        assert_eq!((fourth.next, fourth.backends), (13, Some(vec![])));
    }
}
