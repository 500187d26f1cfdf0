//! Architecture invariants that a test can hold (ARCHITECTURE.md, "Invariants"): which crate
//! may depend on which, which module may use which, no import circle between the files of a
//! crate, and the size limits of source files and of the CLI. They are checked on the source
//! text and the manifests, as rust-analyzer's tidy tests do, so breaking one fails `cargo test`
//! with the file and line to look at.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace root (this crate is `harness/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

/// Every `.rs` file under `dir` (relative to the root), sorted. Panics on a missing directory,
/// so a check never passes over files that moved away.
fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for e in entries.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                // Build output (`fuzz/target` once cargo-fuzz has built there) is not source.
                if p.file_name().is_some_and(|n| n == "target") {
                    continue;
                }
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out.sort();
    assert!(!out.is_empty(), "no Rust files under {dir}");
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `file:line: text` for every line of `files` containing `needle`, outside comments.
fn mentions(files: &[PathBuf], needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for f in files {
        for (i, line) in read(f).lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if code.contains(needle) {
                hits.push(format!("{}:{}: {}", f.display(), i + 1, code));
            }
        }
    }
    hits
}

/// Our crates: package name and directory.
const CRATES: &[(&str, &str)] = &[
    ("conform", "harness"),
    ("conform-io", "harness/io"),
    ("conform-plan", "harness/plan"),
    ("conform-case", "harness/case"),
    ("conform-judge", "harness/judge"),
    ("conform-run", "harness/run"),
    ("conform-gate", "harness/gate"),
    ("conform-report", "harness/report"),
    ("conform-fuzzer", "harness/fuzzer"),
    ("conform-piglit", "harness/piglit"),
    ("conform-reference", "reference"),
    ("conform-gl", "harness/gl"),
    ("conform-glrunner", "harness/glrunner"),
    ("conform-worker", "harness/worker"),
    ("conform-vkrunner", "harness/vkrunner"),
    ("conform-spirv", "harness/spirv"),
];

/// Which of our crates each crate may depend on (`[dependencies]`): the layering of
/// ARCHITECTURE.md's picture. A new edge is a design decision: change it here and there.
const ALLOWED: &[(&str, &[&str])] = &[
    ("conform-io", &[]),
    ("conform-plan", &[]),
    ("conform-gl", &[]),
    // SPIRV-Tools' assembler and validator, for the loader and the reference alike.
    ("conform-spirv", &[]),
    ("conform-reference", &["conform-plan", "conform-spirv"]),
    // Worker processes (isolation, protocol plumbing) are backend-neutral: one copy for the
    // GL and the Vulkan runner.
    ("conform-worker", &["conform-plan"]),
    (
        "conform-glrunner",
        &["conform-plan", "conform-gl", "conform-worker"],
    ),
    ("conform-vkrunner", &["conform-plan", "conform-worker"]),
    // The loader assembles `spirv-asm` programs with conform-spirv, never through the
    // interpreter.
    (
        "conform-case",
        &["conform-io", "conform-plan", "conform-spirv"],
    ),
    (
        "conform-judge",
        &["conform-io", "conform-plan", "conform-case"],
    ),
    (
        "conform-run",
        &[
            "conform-io",
            "conform-plan",
            "conform-case",
            "conform-judge",
            "conform-reference",
            "conform-glrunner",
            "conform-vkrunner",
            // The reference's workers, supervised as every driver's.
            "conform-worker",
        ],
    ),
    (
        "conform-gate",
        &[
            "conform-io",
            "conform-plan",
            "conform-case",
            "conform-judge",
        ],
    ),
    // The reports are made from gated results: the gate below them, never the reverse.
    (
        "conform-report",
        &[
            "conform-io",
            "conform-plan",
            "conform-case",
            "conform-judge",
            "conform-gate",
        ],
    ),
    (
        "conform-fuzzer",
        &[
            "conform-io",
            "conform-plan",
            "conform-case",
            "conform-judge",
            "conform-run",
            "conform-gate",
            "conform-reference",
            "conform-glrunner",
        ],
    ),
    // The export states the judge's tolerances as piglit's ordered probes
    // (`conform_judge::checks::tolerance_bounds`), never a second copy of them.
    (
        "conform-piglit",
        &[
            "conform-io",
            "conform-plan",
            "conform-case",
            "conform-judge",
        ],
    ),
];

/// The names in the `[dependencies]` table of a manifest (not dev- or build-dependencies:
/// tests may use more).
fn dependencies(dir: &str) -> Vec<String> {
    let text = read(&root().join(dir).join("Cargo.toml"));
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t == "[dependencies]";
            continue;
        }
        if in_deps && !t.is_empty() && !t.starts_with('#') {
            if let Some((name, _)) = t.split_once('=') {
                deps.push(name.trim().trim_end_matches(".workspace").to_string());
            }
        }
    }
    deps
}

/// Our crates each crate depends on, directly.
fn our_graph() -> BTreeMap<&'static str, Vec<&'static str>> {
    CRATES
        .iter()
        .map(|&(name, dir)| {
            let deps = dependencies(dir);
            let ours = CRATES
                .iter()
                .map(|&(n, _)| n)
                .filter(|n| deps.iter().any(|d| d == n))
                .collect();
            (name, ours)
        })
        .collect()
}

/// Every crate `name` depends on, directly or not.
fn closure(
    graph: &BTreeMap<&'static str, Vec<&'static str>>,
    name: &str,
) -> BTreeSet<&'static str> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&str> = graph[name].clone();
    while let Some(n) = todo.pop() {
        if seen.insert(n) {
            todo.extend(graph[n].iter().copied());
        }
    }
    seen
}

#[test]
fn crates_depend_only_downwards() {
    let graph = our_graph();
    let mut wrong = Vec::new();
    for &(name, allowed) in ALLOWED {
        for d in &graph[name] {
            if !allowed.contains(d) {
                wrong.push(format!("{name} depends on {d}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "dependencies outside the layering (tidy.rs ALLOWED, ARCHITECTURE.md):\n{}",
        wrong.join("\n")
    );
    assert_eq!(
        ALLOWED.len() + 1,
        CRATES.len(),
        "every crate but the CLI has its allowed list"
    );
}

#[test]
fn the_rules_that_matter_hold_transitively() {
    let graph = our_graph();
    let rules: &[(&str, &[&str], &str)] = &[
        (
            "conform-gate",
            &[
                "conform-run",
                "conform-glrunner",
                "conform-vkrunner",
                "conform-fuzzer",
                "conform-report",
            ],
            "the gate classifies results; it never builds a runner, a GL backend or the reports",
        ),
        (
            "conform-report",
            &[
                "conform-run",
                "conform-glrunner",
                "conform-vkrunner",
                "conform-fuzzer",
                "conform-reference",
            ],
            "the reports read results; they never build a runner, a backend or the interpreter",
        ),
        (
            "conform-vkrunner",
            &["conform-glrunner", "conform-reference", "conform-case"],
            "backends know plans, not cases, and never each other",
        ),
        (
            "conform-case",
            &[
                "conform-judge",
                "conform-run",
                "conform-glrunner",
                "conform-gate",
                "conform-reference",
            ],
            "the loader checks cases against conform-plan, never against a runner or the interpreter",
        ),
        (
            "conform-gate",
            &["conform-reference"],
            "the gate and the reports never build the interpreter: an edit there rebuilds neither",
        ),
        (
            "conform-judge",
            &["conform-reference"],
            "judging never builds the interpreter",
        ),
        (
            "conform-piglit",
            &["conform-reference"],
            "the importer writes cases; it never builds the interpreter",
        ),
        (
            "conform-judge",
            &["conform-run", "conform-glrunner", "conform-gate", "conform-report"],
            "judging needs a case and a raw result, not a backend, the gate or the reports",
        ),
        (
            "conform-run",
            &["conform-gate", "conform-report", "conform-fuzzer", "conform-piglit"],
            "the runner gets CI decisions injected (conform_judge::policy)",
        ),
        (
            "conform-piglit",
            &[
                "conform-run",
                "conform-gate",
                "conform-report",
                "conform-fuzzer",
                "conform-glrunner",
            ],
            "the importer writes cases; it runs nothing",
        ),
        (
            "conform-reference",
            &["conform-glrunner", "conform-case"],
            "backends know plans, not cases, and never each other",
        ),
        (
            "conform-glrunner",
            &["conform-reference", "conform-case"],
            "backends know plans, not cases, and never each other",
        ),
        (
            "conform-plan",
            &["conform-io"],
            "conform-plan is the vocabulary: it depends on nothing of ours",
        ),
    ];
    for &(name, never, why) in rules {
        let all = closure(&graph, name);
        for n in never {
            assert!(!all.contains(n), "{name} depends on {n}: {why}");
        }
    }
    for &(name, _) in CRATES {
        assert!(
            !closure(&graph, name).contains("conform"),
            "{name} depends on the CLI: nothing may (the fuzzer and the importer included)"
        );
    }
}

/// No file of the loader, judge, gate or importer names the interpreter, and the reference
/// backend of the runner names no GL runner item: each side of the worker seam is
/// `conform-worker`'s.
#[test]
fn the_interpreter_and_the_gl_runner_stay_in_their_rooms() {
    let mut hits = Vec::new();
    for dir in [
        "harness/case/src",
        "harness/judge/src",
        "harness/gate/src",
        "harness/piglit/src",
    ] {
        hits.extend(mentions(&rust_files(dir), "conform_reference"));
    }
    hits.extend(mentions(
        &[root().join("harness/run/src/reference.rs")],
        "conform_glrunner",
    ));
    assert!(
        hits.is_empty(),
        "the loader, judge, gate and importer never name the interpreter (SPIR-V assembly is \
         conform-spirv's), and the reference backend never names the GL runner:\n{}",
        hits.join("\n")
    );
}

#[test]
fn backends_never_see_expectations() {
    let backend = vec![root().join("harness/run/src/backend.rs")];
    let hits: Vec<String> = mentions(&backend, "fn run(&mut self")
        .into_iter()
        .chain(mentions(&backend, "fn missing(&self"))
        .filter(|l| !l.contains("Job"))
        .collect();
    assert!(
        hits.is_empty(),
        "Executor methods take a Job, never the Case:\n{}",
        hits.join("\n")
    );
    let defined = mentions(&backend, "fn run(&mut self").len();
    assert_eq!(defined, 1, "Executor::run is in harness/run/src/backend.rs");
}

#[test]
fn in_the_reference_only_lib_rs_runs_programs() {
    let is_test = |p: &PathBuf| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.ends_with("tests.rs")
    };
    let front: Vec<PathBuf> = rust_files("reference/src/front")
        .into_iter()
        .filter(|p| !is_test(p))
        .collect();
    for needle in ["crate::run(", "run_ir(", "exec::run_plan", "crate::trace("] {
        let hits = mentions(&front, needle);
        assert!(
            hits.is_empty(),
            "front ends build, lib.rs runs:\n{}",
            hits.join("\n")
        );
    }
    for (dir, needles) in [
        ("reference/src/ir", &["crate::front", "crate::exec"][..]),
        ("reference/src/exec", &["crate::front"][..]),
    ] {
        for needle in needles {
            let hits = mentions(&rust_files(dir), needle);
            assert!(
                hits.is_empty(),
                "{dir} must not use {needle}:\n{}",
                hits.join("\n")
            );
        }
    }
}

#[test]
fn no_source_file_over_1500_lines() {
    let mut long = Vec::new();
    for dir in ["harness", "reference", "fuzz"] {
        for f in rust_files(dir) {
            let n = read(&f).lines().count();
            if n > 1500 {
                long.push(format!("{}: {n} lines", f.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "split these by concern:\n{}",
        long.join("\n")
    );
}

/// A file's code without its test module (`#[cfg(test)] mod ...` to the end of the file, where
/// this project keeps them) and without comment lines.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        let t = l.trim_start();
        if t == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().contains("mod "))
        {
            break;
        }
        if !t.starts_with("//") {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// The module path of `file` in the crate whose root directory is `src`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|l| l == "mod")
        || (parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main"))
    {
        parts.pop();
    }
    parts
}

/// The paths `crate::`, `super::` and `self::` references in `code` name, resolved against
/// module `at` (brace groups expanded one level, which is how this project writes them).
fn referenced_paths(code: &str, at: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    for kw in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(i) = code[from..].find(kw) {
            let start = from + i;
            from = start + kw.len();
            if start > 0 && (is_ident(bytes[start - 1]) || bytes[start - 1] == b':') {
                continue;
            }
            let mut base: Vec<String> = match kw {
                "crate::" => vec![],
                "self::" => at.to_vec(),
                _ => at[..at.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = &code[from..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            let mut path = base;
            loop {
                if let Some(group) = rest.strip_prefix('{') {
                    let end = group.find('}').unwrap_or(group.len());
                    for item in group[..end].split(',') {
                        let item = item.split_whitespace().next().unwrap_or("");
                        let mut p = path.clone();
                        p.extend(
                            item.split("::")
                                .filter(|s| !s.is_empty() && *s != "self")
                                .map(String::from),
                        );
                        out.push(p);
                    }
                    break;
                }
                let n = rest.bytes().take_while(|&c| is_ident(c)).count();
                if n == 0 {
                    out.push(path);
                    break;
                }
                path.push(rest[..n].to_string());
                rest = &rest[n..];
                match rest.strip_prefix("::") {
                    Some(r) => rest = r,
                    None => {
                        out.push(path);
                        break;
                    }
                }
            }
        }
    }
    out
}

/// The circles between the files of the crate rooted at `src` (each a list of modules), where
/// file A uses file B when A's code names an item of B. A module using its own submodules is
/// ownership, not a use, and test modules do not count.
fn import_circles(src: &str) -> Vec<Vec<String>> {
    let src = root().join(src);
    let files: BTreeMap<Vec<String>, PathBuf> =
        rust_files(src.strip_prefix(root()).unwrap().to_str().unwrap())
            .into_iter()
            .filter(|f| !f.components().any(|c| c.as_os_str() == "bin"))
            .map(|f| (module_of(&src, &f), f))
            .collect();
    let mut uses: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (m, f) in &files {
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let mut to = BTreeSet::new();
        for p in referenced_paths(&code_of(&read(f)), m) {
            let owner = (0..=p.len())
                .rev()
                .map(|k| p[..k].to_vec())
                .find(|k| files.contains_key(k))
                .unwrap_or_default();
            if !owner.starts_with(m) {
                to.insert(owner);
            }
        }
        uses.insert(m.clone(), to);
    }
    strongly_connected(&uses)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            c.into_iter()
                .map(|m| {
                    if m.is_empty() {
                        "lib".into()
                    } else {
                        m.join("/")
                    }
                })
                .collect()
        })
        .collect()
}

/// Tarjan's strongly connected components of `graph`.
fn strongly_connected(
    graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
) -> Vec<Vec<Vec<String>>> {
    struct State<'a> {
        graph: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Vec<String>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            comp.sort();
            s.out.push(comp);
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// Circles still to break, each exactly as found: a circle that grows, shrinks or appears
/// fails the test, so this list only ever gets shorter (ARCHITECTURE.md says why each is
/// left).
const KNOWN_CIRCLES: &[(&str, &[&str])] = &[];

#[test]
fn no_import_circle_between_the_files_of_a_crate() {
    let mut new = Vec::new();
    let mut seen = Vec::new();
    for &(_, dir) in CRATES {
        for c in import_circles(&format!("{dir}/src")) {
            match KNOWN_CIRCLES.iter().position(|(d, k)| *d == dir && *k == c) {
                Some(i) => seen.push(i),
                None => new.push(format!("{dir}/src: {}", c.join(" <-> "))),
            }
        }
    }
    assert!(
        new.is_empty(),
        "files that use each other (move what both need into a lower module):\n{}",
        new.join("\n")
    );
    let gone: Vec<String> = (0..KNOWN_CIRCLES.len())
        .filter(|i| !seen.contains(i))
        .map(|i| {
            format!(
                "{}: {}",
                KNOWN_CIRCLES[i].0,
                KNOWN_CIRCLES[i].1.join(" <-> ")
            )
        })
        .collect();
    assert!(
        gone.is_empty(),
        "these circles are broken: take them out of KNOWN_CIRCLES (and ARCHITECTURE.md):\n{}",
        gone.join("\n")
    );
}

#[test]
fn the_circle_finder_finds_circles() {
    let uses = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(vec![a.to_string()])
                .or_default()
                .insert(vec![b.to_string()]);
            g.entry(vec![b.to_string()]).or_default();
        }
        strongly_connected(&g)
            .into_iter()
            .filter(|c| c.len() > 1)
            .count()
    };
    assert_eq!(uses(&[("a", "b"), ("b", "c")]), 0);
    assert_eq!(uses(&[("a", "b"), ("b", "c"), ("c", "a")]), 1);
    let at = vec!["x".to_string(), "y".to_string()];
    let refs = referenced_paths("use super::z::{W, q::V};\nlet a = crate::k::f();", &at);
    assert_eq!(
        refs,
        [
            vec!["k".to_string(), "f".into()],
            vec!["x".into(), "z".into(), "W".into()],
            vec!["x".into(), "z".into(), "q".into(), "V".into()],
        ]
    );
}

/// Lines of non-test Rust in the CLI crate (`harness/src`): test modules at the end of a file
/// and comment lines are not counted.
#[test]
fn the_cli_is_thin() {
    let n: usize = rust_files("harness/src")
        .iter()
        .map(|f| {
            code_of(&read(f))
                .lines()
                .filter(|l| !l.trim().is_empty())
                .count()
        })
        .sum();
    assert!(
        n <= 4000,
        "the CLI crate holds {n} lines of non-test Rust (at most 4,000): argument types and a few \
         lines per subcommand; move the work into the crate that owns it"
    );
}

/// ARCHITECTURE.md's code map names every crate (a row of its table) and, in that row (the
/// reference: in its own section too), every top-level module of the crate: a file or folder
/// under `src/` other than lib.rs and main.rs, as `name.rs`, `name/` or `` `name` ``. A module
/// added without a line in the map fails here.
#[test]
fn the_code_map_names_every_crate_and_top_level_module() {
    let arch = read(&root().join("ARCHITECTURE.md"));
    let reference = match (
        arch.find("## The reference"),
        arch.find("## How a case flows"),
    ) {
        (Some(a), Some(b)) if a < b => &arch[a..b],
        _ => panic!("ARCHITECTURE.md has no \"The reference\" section before \"How a case flows\""),
    };
    let mut missing = Vec::new();
    for &(name, dir) in CRATES {
        let Some(row) = arch
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` ")))
        else {
            missing.push(format!("{name}: no row in the table of crates"));
            continue;
        };
        let text = if name == "conform-reference" {
            format!("{row}\n{reference}")
        } else {
            row.to_string()
        };
        let src = root().join(dir).join("src");
        let mut entries: Vec<String> = std::fs::read_dir(&src)
            .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "lib.rs" && n != "main.rs")
            .collect();
        entries.sort();
        for e in entries {
            let stem = e.strip_suffix(".rs").unwrap_or(&e);
            let named = [
                format!("{stem}.rs"),
                format!("{stem}/"),
                format!("`{stem}`"),
            ]
            .iter()
            .any(|p| text.contains(p.as_str()));
            if !named {
                missing.push(format!("{name}: {dir}/src/{e}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's code map leaves out:\n{}",
        missing.join("\n")
    );
}

/// The fuzz crate's lib.rs is its map (rooms by folder), not a room itself: short.
#[test]
fn the_fuzzer_s_lib_rs_is_a_map() {
    let lib = root().join("harness/fuzzer/src/lib.rs");
    let n = read(&lib).lines().count();
    assert!(
        n < 100,
        "{}: {n} lines; what it does belongs in a folder (generators/, oracles/, ...)",
        lib.display()
    );
}
