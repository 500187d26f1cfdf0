//! `conform litmus`: the tests a command line selects, run on the reference and the drivers
//! (or written out as cases), with the histograms of what each backend gave. The CLI parses
//! the options into a [`Request`]; the work is here.

use super::layout::Params;
use super::{campaign, shape};
use conform_run::backend::BackendFactory;
use std::path::PathBuf;

/// What `conform litmus` asks for.
pub struct Request {
    /// Languages (default: what the drivers run).
    pub lang: Option<crate::campaign::LangChoice>,
    /// Shapes and scopes (empty: all).
    pub shapes: Vec<shape::Shape>,
    pub scopes: Vec<shape::Scope>,
    /// Only the fences with these names (empty: all).
    pub fences: Vec<String>,
    pub params: Params,
    /// Cases per test, dispatches per case, and the seed of the role tables.
    pub iterations: u64,
    pub dispatches: u32,
    pub seed: u64,
    /// Where divergences' cases and `histograms.md` go.
    pub out: PathBuf,
    /// Runs per reduction step before the step is given up.
    pub reduce_tries: u32,
    /// Write each selected test's first case here and run nothing.
    pub emit_cases: Option<PathBuf>,
}

/// Runs `request` on the reference and `drivers`; the exit code (1: a forbidden outcome).
pub fn run(args: Request, drivers: &[Box<dyn BackendFactory>]) -> Result<u8, String> {
    let mut targets = vec![crate::Target::reference()];
    for d in drivers {
        let exec = d
            .make()
            .map_err(|why| format!("cannot run litmus tests on {}: {why}", d.name()))?;
        targets.push(crate::Target {
            name: d.name(),
            is_reference: false,
            exec,
        });
    }
    let choice = args.lang.unwrap_or_else(|| {
        let names: Vec<String> = drivers.iter().map(|d| d.name()).collect();
        crate::campaign::LangChoice::for_drivers(&names)
    });
    let langs: Vec<shape::Lang> = shape::Lang::ALL
        .into_iter()
        .filter(|l| {
            choice
                .name()
                .split(',')
                .any(|n| n == l.name() || n == "all")
        })
        .collect();
    let shapes = if args.shapes.is_empty() {
        shape::Shape::ALL.to_vec()
    } else {
        args.shapes
    };
    let scopes = if args.scopes.is_empty() {
        shape::Scope::ALL.to_vec()
    } else {
        args.scopes
    };
    for f in &args.fences {
        if !shape::Fence::ALL.iter().any(|k| k.name() == f) {
            let names: Vec<&str> = shape::Fence::ALL.iter().map(|k| k.name()).collect();
            return Err(format!("--fence {f}: the fences are {}", names.join(", ")));
        }
    }
    let tests: Vec<shape::Test> = shape::Test::all(&langs, &shapes, &scopes)
        .into_iter()
        .filter(|t| args.fences.is_empty() || args.fences.iter().any(|f| f == t.fence.name()))
        .collect();
    let cfg = campaign::Config {
        params: args.params,
        iterations: args.iterations,
        dispatches: args.dispatches,
        seed: args.seed,
        out: args.out.clone(),
        reduce_tries: args.reduce_tries,
    };
    // Refuse impossible sizes before anything runs.
    for t in &tests {
        super::layout::Layout::new(*t, cfg.params)?;
    }
    if let Some(dir) = &args.emit_cases {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for t in &tests {
            let layout = super::layout::Layout::new(*t, cfg.params)?;
            let mut tables = campaign::role_tables(&layout, &cfg, 0);
            tables.truncate(super::case::dispatches_per_case(&layout));
            let sets = super::model::outcomes(t);
            let yaml = super::case::render(&layout, &sets, &tables, None);
            let path = dir.join(format!("{}.yaml", t.name()));
            std::fs::write(&path, yaml)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            conform_io::outln!("{}", path.display());
        }
        return Ok(0);
    }
    let mut results = Vec::new();
    let mut forbidden = 0;
    for (k, t) in tests.iter().enumerate() {
        let started = std::time::Instant::now();
        let r = campaign::run_test(t, &cfg, &mut targets)?;
        let diverged: Vec<&String> = r
            .iter()
            .filter(|(_, h)| h.divergence.is_some())
            .map(|(b, _)| b)
            .collect();
        forbidden += diverged.len();
        eprintln!(
            "[{}/{}] {} ({:.1}s){}",
            k + 1,
            tests.len(),
            t.name(),
            started.elapsed().as_secs_f64(),
            if diverged.is_empty() {
                String::new()
            } else {
                format!(": FORBIDDEN outcome on {diverged:?}")
            }
        );
        results.push((*t, r));
    }
    let table = campaign::render(&results);
    conform_io::out!("{table}");
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let path = args.out.join("histograms.md");
    std::fs::write(&path, &table).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    conform_io::outln!(
        "histograms: {} ({forbidden} test(s) with a forbidden outcome)",
        path.display()
    );
    Ok(u8::from(forbidden > 0))
}
