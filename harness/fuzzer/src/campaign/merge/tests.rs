//! `conform fuzz merge` on synthetic campaign directories, written by the campaign's own
//! writers (`State::save`, `write_summary`, the reduced case and `divergence.md` as `report`
//! writes them): overlapping findings with cases of different sizes, attribution across
//! nodes, a known finding, an unfinished node and damaged inputs. The merged summary.md is
//! golden, in harness/tests/data/fuzz-merge/; rewrite it with `BLESS=1 cargo test -p
//! conform-fuzzer merge` and read the diff.

use super::super::{divergence_md, write_summary, Config, LangChoice};
use super::*;
use crate::ast::{BinOp, Block, ComputeBlock, Expr, Program, Stmt};
use crate::emitters::case::GlslProfile;
use crate::reduction::signature::signature;
use std::time::Duration;

fn config(root: &Path, name: &str, seed: u64) -> Config {
    let out = root.join(name);
    Config {
        seed,
        lang: LangChoice::of(&[Lang::Glsl]),
        mode: crate::generators::Mode::Default,
        time: Duration::from_secs(60),
        iterations: None,
        corpus: out.join("corpus"),
        out,
        jobs: 1,
        reduce_tests: 400,
        known: None,
        cross: false,
        #[cfg(feature = "self-test")]
        planted_bug: None,
        show_progress: false,
    }
}

/// A GLSL program of one compute block with these statements.
fn program(stmts: Vec<Stmt>) -> Program {
    Program {
        shape: None,
        lang: Lang::Glsl,
        local_size: 1,
        groups: 1,
        blocks: vec![Block::Compute(ComputeBlock { seed: 0, stmts })],
    }
}

fn assign(op: BinOp, k: u32) -> Stmt {
    Stmt::Assign(0, Expr::bin(op, Expr::Const(k), Expr::Lid))
}

fn divergence(backend: &str, aspect: &str, status: Status, message: &str) -> Divergence {
    Divergence {
        backend: backend.into(),
        lang: Lang::Glsl,
        feature: "compute".into(),
        aspect: aspect.into(),
        block: Some(0),
        status,
        message: message.into(),
        details: vec!["b0[0]: expected 1, got 2".into()],
    }
}

/// Records a reduced divergence of `p` found at iteration `i` and hit `count` times, as the
/// campaign's `report` does: `<out>/<signature>/` with the case, the original, the tree and
/// `divergence.md`, and the finding in the state. Returns the signature.
fn found(cfg: &Config, s: &mut State, p: &Program, d: &Divergence, i: u64, count: u64) -> String {
    let sig = signature(d, p);
    let dir = cfg.out.join(&sig);
    let description = format!(
        "Found by `conform fuzz {}` at iteration {i} and reduced (9 tests).",
        cfg.generator_options()
    );
    let (_, text) = crate::load_case_in(
        p,
        &format!("fuzz-{sig}"),
        &description,
        GlslProfile::Core430,
    )
    .unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("case.yaml"), &text.yaml).unwrap();
    std::fs::write(dir.join("original.yaml"), &text.yaml).unwrap();
    std::fs::write(
        dir.join("program.json"),
        serde_json::to_string_pretty(p).unwrap(),
    )
    .unwrap();
    let statuses = [format!(
        "{}: {} ({})",
        d.backend,
        d.status.name(),
        d.message
    )];
    let md = divergence_md(cfg, &sig, d, d, &text, i, 9, &statuses);
    std::fs::write(dir.join("divergence.md"), md).unwrap();
    s.signatures.insert(
        sig.clone(),
        Finding {
            backend: d.backend.clone(),
            key: d.key(),
            count,
            first_iteration: i,
            message: d.message.clone(),
            instructions: text.instructions,
            case: dir.join("case.yaml").display().to_string(),
        },
    );
    sig
}

fn state(cfg: &Config, next: u64, seconds: f64) -> State {
    State {
        seed: cfg.seed,
        lang: Some(cfg.lang.clone()),
        next,
        execs: next,
        seconds,
        ..State::default()
    }
}

/// The end of a session: the state, then the summary rendered from it.
fn finish(cfg: &Config, s: &State) {
    s.save(&cfg.corpus).unwrap();
    write_summary(cfg, s).unwrap();
}

const MULHI: &str = "llvmpipe-glsl-compute-memory-with-mulhis";
const MULHI_ADD: &str = "llvmpipe-glsl-compute-memory-with-add-mulhis";
const SHR: &str = "llvmpipe-glsl-compute-memory-with-shrs";
const DIV: &str = "llvmpipe-glsl-compute-memory-with-divs";
const KNOWN: &str = "llvmpipe,fuzz/glsl-compute-memory-with-shrs,fail\n";

/// A farm of three nodes:
/// - `node-a` (seed 1): the mulhi bug with a case of two statements, hit 5 times; the shr bug
///   (known); 4 hits its own --known counted;
/// - `node-b` (seed 2): the mulhi bug again with a case of one statement (the smallest), hit
///   twice; and a signature with add and mulhi, which the mulhi finding attributes;
/// - `node-c` (seed 3): the division bug; killed in its second session (its summary.md is
///   the first session's), and NV assembly not run on llvmpipe.
fn farm(root: &Path) -> Vec<PathBuf> {
    let fail = |m: &str| divergence("llvmpipe", "memory", Status::Fail, m);
    let a = config(root, "node-a", 1);
    let mut s = state(&a, 1000, 600.0);
    found(
        &a,
        &mut s,
        &program(vec![assign(BinOp::MulHiS, 7), assign(BinOp::MulHiS, 9)]),
        &fail("b0: 1 of 1 elements differ | `x` <b>"),
        10,
        5,
    );
    found(
        &a,
        &mut s,
        &program(vec![assign(BinOp::ShrS, 3)]),
        &fail("b0: shift"),
        40,
        3,
    );
    s.known
        .insert("llvmpipe,fuzz/glsl-atomic-iwrap-memory".into(), 4);
    finish(&a, &s);

    let b = config(root, "node-b", 2);
    let mut s = state(&b, 2000, 1200.5);
    found(
        &b,
        &mut s,
        &program(vec![assign(BinOp::MulHiS, 7)]),
        &fail("b0: 1 of 1 elements differ"),
        3,
        2,
    );
    found(
        &b,
        &mut s,
        &program(vec![
            assign(BinOp::MulHiS, 7),
            assign(BinOp::Add, 1),
            assign(BinOp::MulHiS, 5),
        ]),
        &fail("b0: 1 of 1 elements differ"),
        77,
        1,
    );
    s.known
        .insert("llvmpipe,fuzz/glsl-atomic-iwrap-memory".into(), 1);
    finish(&b, &s);

    let c = config(root, "node-c", 3);
    let mut s = state(&c, 300, 100.0);
    s.unsupported.insert("llvmpipe".into(), 12);
    finish(&c, &s);
    found(
        &c,
        &mut s,
        &program(vec![assign(BinOp::DivS, 7)]),
        &fail("b0: division"),
        301,
        1,
    );
    s.next = 350;
    s.execs = 350;
    s.seconds = 130.0;
    s.save(&c.corpus).unwrap();
    vec![a.out, b.out, c.out]
}

fn known() -> Baseline {
    Baseline::parse(Path::new("known.txt"), KNOWN).unwrap()
}

fn finding<'a>(m: &'a Merged, sig: &str) -> &'a MergedFinding {
    m.findings
        .iter()
        .find(|f| f.signature == sig)
        .unwrap_or_else(|| panic!("no {sig} in {m:#?}"))
}

#[test]
fn a_farm_merges_into_one_list_with_the_smallest_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = farm(tmp.path());
    let out = tmp.path().join("merged");
    let m = merge(&dirs, &out, Some(&known())).unwrap();

    // One list: the mulhi bug once (with the add-mulhi signature attributed to it), the
    // division bug, and the known shr bug last.
    let sigs: Vec<&str> = m.findings.iter().map(|f| f.signature.as_str()).collect();
    assert_eq!(sigs, [DIV, MULHI, SHR]);
    assert_eq!((m.new_findings(), m.exit_code()), (2, 1));
    let mulhi = finding(&m, MULHI);
    assert_eq!(mulhi.hits, 5 + 2 + 1);
    let seen: Vec<(&str, &str, u64, u64)> = mulhi
        .seen
        .iter()
        .map(|s| {
            let dir = s.dir.rsplit('/').next().unwrap();
            (dir, s.signature.as_str(), s.hits, s.first_iteration)
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("node-a", MULHI, 5, 10),
            ("node-b", MULHI, 2, 3),
            ("node-b", MULHI_ADD, 1, 77)
        ]
    );
    assert_eq!(
        finding(&m, SHR).known.as_deref(),
        Some("fuzz/glsl-compute-memory-with-shrs")
    );
    assert_eq!(finding(&m, DIV).known, None);

    // The smallest case is node-b's one statement, copied with its files.
    let case = mulhi.case.as_ref().unwrap();
    assert!(
        case.dir.ends_with("node-b") && case.signature == MULHI,
        "{case:?}"
    );
    let from = dirs[1].join(MULHI);
    for name in CASE_FILES {
        assert_eq!(
            std::fs::read(out.join(MULHI).join(name)).unwrap(),
            std::fs::read(from.join(name)).unwrap(),
            "{name}"
        );
    }
    let bigger = program_bytes(&dirs[0].join(MULHI)).unwrap();
    assert!(
        case.program_bytes < bigger,
        "{} {bigger}",
        case.program_bytes
    );
    assert_eq!(
        case.program_bytes,
        program_bytes(out.join(&case.path).parent().unwrap()).unwrap()
    );
    // Every finding has its directory, the attributed signature none of its own.
    for f in &m.findings {
        assert!(
            out.join(&f.signature).join("case.yaml").is_file(),
            "{}",
            f.signature
        );
    }
    assert!(!out.join(MULHI_ADD).exists());

    // Counts per node, the unfinished one said so.
    let counts: Vec<(u64, u64, u64, usize, u64, bool)> = m
        .nodes
        .iter()
        .map(|n| {
            let ended = n.unfinished.is_none();
            (
                n.seed,
                n.programs,
                n.divergences,
                n.distinct,
                n.known_hits,
                ended,
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            (1, 1000, 8, 2, 4, true),
            (2, 2000, 3, 2, 1, true),
            (3, 350, 1, 1, 0, false)
        ]
    );
    assert_eq!(m.known_hits.len(), 1);
    assert_eq!(m.known_hits[0].hits, 5);

    // merged.json holds the same list.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("merged.json")).unwrap()).unwrap();
    assert_eq!(json["findings"][1]["signature"], MULHI);
    assert_eq!(json["findings"][1]["hits"], 8);
    assert!(json["nodes"][2]["unfinished"].is_string());

    // The summary a person reads, golden.
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert_eq!(summary, render(&m));
    let root = tmp.path().display().to_string();
    golden("summary.md", &summary.replace(&root, "<tmp>"));
}

#[test]
fn the_exit_code_follows_known() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = farm(tmp.path());
    // Without --known every finding is new.
    let m = merge(&dirs, &tmp.path().join("m1"), None).unwrap();
    assert_eq!((m.new_findings(), m.exit_code()), (3, 1));
    assert!(render(&m).contains("no --known: every finding is new"));
    // Every one known: exit 0. The mulhi line covers the add-mulhi signature too.
    let all = format!(
        "{KNOWN}llvmpipe,fuzz/glsl-compute-memory-with-mulhis,fail\n\
         llvmpipe,fuzz/glsl-compute-memory-with-divs,fail\n"
    );
    let b = Baseline::parse(Path::new("known.txt"), &all).unwrap();
    let m = merge(&dirs, &tmp.path().join("m2"), Some(&b)).unwrap();
    assert_eq!((m.new_findings(), m.exit_code()), (0, 0), "{}", render(&m));
    assert_eq!(finding(&m, MULHI).hits, 8);
    assert!(render(&m).contains("## New findings\n\nNone."));
    // A line of another status or backend does not cover it.
    let b = Baseline::parse(
        Path::new("known.txt"),
        "llvmpipe,fuzz/glsl-compute-memory,crash\nzink,fuzz/glsl-compute-memory,fail\n",
    )
    .unwrap();
    let m = merge(&dirs, &tmp.path().join("m3"), Some(&b)).unwrap();
    assert_eq!(m.new_findings(), 3);
}

/// Only the add-mulhi signature is known: it is not folded into the new mulhi finding (known
/// lines are checked first, as in a campaign), and the mulhi finding keeps its own hits.
#[test]
fn attribution_never_crosses_known_and_new() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = farm(tmp.path());
    let b = Baseline::parse(
        Path::new("known.txt"),
        "llvmpipe,fuzz/glsl-compute-memory-with-add-mulhis,fail\n",
    )
    .unwrap();
    let m = merge(&dirs, &tmp.path().join("m"), Some(&b)).unwrap();
    assert_eq!(finding(&m, MULHI).hits, 7);
    assert_eq!(finding(&m, MULHI_ADD).hits, 1);
    assert!(finding(&m, MULHI_ADD).known.is_some());
}

#[test]
fn a_campaign_with_its_state_beside_its_summary_merges_too() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = config(tmp.path(), "flat", 9);
    cfg.corpus = cfg.out.clone();
    let mut s = state(&cfg, 10, 5.0);
    let d = divergence("zink", "crash", Status::Crash, "worker died");
    let sig = found(
        &cfg,
        &mut s,
        &program(vec![assign(BinOp::MulHiS, 7)]),
        &d,
        4,
        1,
    );
    finish(&cfg, &s);
    let m = merge(
        std::slice::from_ref(&cfg.out),
        &tmp.path().join("m"),
        Some(&Baseline::parse(Path::new("k"), "zink,fuzz/glsl-compute-crash,crash\n").unwrap()),
    )
    .unwrap();
    assert_eq!(m.nodes[0].unfinished, None);
    assert_eq!(m.findings[0].signature, sig);
    assert!(m.findings[0].known.is_some());
    assert_eq!(m.exit_code(), 0);
}

/// A finding whose reduced case is gone or damaged is still listed, and says why; the other
/// node's case is kept.
#[test]
fn a_missing_or_damaged_case_is_a_note_not_a_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = farm(tmp.path());
    std::fs::remove_dir_all(dirs[2].join(DIV)).unwrap();
    std::fs::write(dirs[1].join(MULHI).join("case.yaml"), "name: [").unwrap();
    let m = merge(&dirs, &tmp.path().join("m"), None).unwrap();
    let div = finding(&m, DIV);
    assert!(
        div.case.is_none() && div.notes[0].contains("missing"),
        "{div:?}"
    );
    let mulhi = finding(&m, MULHI);
    assert!(mulhi.case.as_ref().unwrap().dir.ends_with("node-a"));
    assert!(
        mulhi.notes.iter().any(|n| n.contains("does not load")),
        "{mulhi:?}"
    );
    let summary = render(&m);
    assert!(summary.contains("none readable"), "{summary}");
}

#[test]
fn bad_inputs_are_errors_naming_the_file_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = farm(tmp.path());
    let out = tmp.path().join("m");
    let fails = |dirs: &[PathBuf], says: &[&str]| {
        let e = merge(dirs, &out, None).unwrap_err();
        for s in says {
            assert!(e.contains(s), "{e}\nshould say {s}");
        }
        assert!(!out.exists());
    };
    let with = |extra: PathBuf| {
        let mut v = dirs.clone();
        v.push(extra);
        v
    };
    let bad = tmp.path().join("bad");
    fails(&with(bad.clone()), &["bad: no such directory"]);
    std::fs::create_dir_all(&bad).unwrap();
    fails(&with(bad.clone()), &["not a fuzz campaign's directory"]);
    std::fs::write(bad.join("results.jsonl"), "").unwrap();
    fails(&with(bad.clone()), &["conform run"]);
    fails(&with(dirs[0].clone()), &["node-a: the same directory as"]);
    fails(&[], &["no campaign directory"]);
    // A corrupt state.json: not JSON, a count no campaign reaches, a signature that is no
    // directory name, a key that is no divergence's.
    let corrupt = config(tmp.path(), "corrupt", 5);
    let state_json = corrupt.corpus.join("state.json");
    std::fs::create_dir_all(&corrupt.corpus).unwrap();
    let damage = |text: &str, says: &[&str]| {
        std::fs::write(&state_json, text).unwrap();
        let mut says = says.to_vec();
        says.push("corrupt/corpus/state.json");
        fails(&with(corrupt.out.clone()), &says);
    };
    damage("{\"seed\": 5, \"next\": ", &["EOF"]);
    damage("{\"next\": 18446744073709551615}", &["`next`"]);
    let finding = |sig: &str, key: &str| {
        format!(
            "{{\"signatures\": {{\"{sig}\": {{\"backend\": \"llvmpipe\", \"key\": \"{key}\", \
             \"count\": 1, \"first_iteration\": 0, \"message\": \"\", \"instructions\": 1, \
             \"case\": \"x\"}}}}}}"
        )
    };
    damage(
        &finding("../../etc", "llvmpipe-glsl-compute-memory"),
        &["signature ../../etc is not one a campaign writes"],
    );
    damage(
        &finding("llvmpipe-x", "zink-glsl-compute-memory"),
        &["the key zink-glsl-compute-memory"],
    );
    damage(
        &finding("llvmpipe-x", "llvmpipe-cuda-compute-memory"),
        &["llvmpipe-cuda-compute-memory"],
    );
    // Every error at once, the missing directory and the corrupt state both.
    std::fs::write(&state_json, "\"a string\"").unwrap();
    let e = merge(&[bad.join("x"), corrupt.out.clone()], &out, None).unwrap_err();
    assert_eq!(e.lines().count(), 2, "{e}");
    // A symlink (to a device) as state.json: refused, not read.
    std::fs::remove_file(&state_json).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &state_json).unwrap();
    fails(
        &with(corrupt.out.clone()),
        &["state.json: is a symbolic link"],
    );
}

/// Every file under `dir`, recursively (not following symlinks), with its bytes.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        if m.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out
}

/// Campaign directories are artifacts of other jobs: a finding directory, a reduced case or
/// a file beside it that is a symlink (to a secret of the merging machine) is neither read
/// nor copied; the finding says which path was left out, and nothing the merge writes holds
/// the secret.
#[test]
fn symlinked_finding_directories_and_files_are_noted_not_followed() {
    const SECRET: &str = "MERGE-SECRET-5d0c1";
    let tmp = tempfile::tempdir().unwrap();
    let dirs = farm(tmp.path());
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    // node-b's case of the mulhi bug (the smallest): a symlink to the secret.
    let b_case = dirs[1].join(MULHI).join("case.yaml");
    std::fs::remove_file(&b_case).unwrap();
    std::os::unix::fs::symlink(&secret, &b_case).unwrap();
    // node-a's original of it, copied with the case: a symlink to the secret.
    let a_original = dirs[0].join(MULHI).join("original.yaml");
    std::fs::remove_file(&a_original).unwrap();
    std::os::unix::fs::symlink(&secret, &a_original).unwrap();
    // node-c's division finding: a directory moved out and symlinked back, the secret in it.
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::rename(dirs[2].join(DIV), elsewhere.join(DIV)).unwrap();
    std::fs::write(elsewhere.join(DIV).join("program.json"), SECRET).unwrap();
    std::os::unix::fs::symlink(elsewhere.join(DIV), dirs[2].join(DIV)).unwrap();
    let out = tmp.path().join("m");
    let m = merge(&dirs, &out, None).unwrap();
    let mulhi = finding(&m, MULHI);
    assert!(
        mulhi.case.as_ref().unwrap().dir.ends_with("node-a"),
        "{mulhi:?}"
    );
    let notes = mulhi.notes.join("\n");
    assert!(
        notes.contains(&format!("{} is a symbolic link", b_case.display())),
        "{notes}"
    );
    assert!(
        notes.contains(&format!(
            "{} not copied: is a symbolic link",
            a_original.display()
        )),
        "{notes}"
    );
    let div = finding(&m, DIV);
    assert!(div.case.is_none(), "{div:?}");
    assert!(
        div.notes[0].contains("is a symbolic link, not a finding's directory"),
        "{div:?}"
    );
    for (path, bytes) in files_under(&out) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(SECRET),
            "{} holds the secret",
            path.display()
        );
    }
    assert!(!out.join(MULHI).join("original.yaml").exists());
}

#[test]
fn a_non_empty_out_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = farm(tmp.path());
    let out = tmp.path().join("m");
    merge(&dirs, &out, None).unwrap();
    let summary = std::fs::read(out.join("summary.md")).unwrap();
    let e = merge(&dirs, &out, None).unwrap_err();
    assert!(e.contains("not empty"), "{e}");
    assert_eq!(std::fs::read(out.join("summary.md")).unwrap(), summary);
    // An empty directory is fine; a file is not; nor is the merge an input.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    merge(&dirs, &empty, None).unwrap();
    let e = merge(&dirs, &out.join("summary.md"), None).unwrap_err();
    assert!(e.contains("not a directory"), "{e}");
    let e = merge(std::slice::from_ref(&out), &tmp.path().join("again"), None).unwrap_err();
    assert!(e.contains("output of a merge"), "{e}");
}

/// A signature is split into key and operators the way `attributes` reads it.
#[test]
fn operators_are_read_from_signatures() {
    let key = "llvmpipe-glsl-compute-memory";
    let ops = |sig| ops_of(sig, key).map(|o| o.into_iter().collect::<Vec<_>>());
    assert_eq!(ops(MULHI_ADD), Some(vec!["add", "mulhis"]));
    assert_eq!(ops(key), Some(vec![]));
    assert_eq!(ops("zink-glsl-compute-memory-with-add"), None);
    // A feature spelled with `with` in it is still split after the key.
    assert_eq!(
        ops_of("a-glsl-with-x-memory-with-add", "a-glsl-with-x-memory")
            .map(|o| o.into_iter().collect::<Vec<_>>()),
        Some(vec!["add"])
    );
}

/// The rendering equals the golden file `name` (rewritten under BLESS=1).
fn golden(name: &str, got: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/fuzz-merge");
    conform_judge::testing::golden(&dir, name, got);
}

/// A node that never ended a session (no summary.md) is merged and said so; one that ran the
/// same seed as another is noted.
#[test]
fn a_node_without_a_summary_and_a_seed_run_twice_are_noted() {
    let tmp = tempfile::tempdir().unwrap();
    let mut dirs = farm(tmp.path());
    let d = config(tmp.path(), "node-d", 1);
    state(&d, 5, 1.0).save(&d.corpus).unwrap();
    dirs.push(d.out);
    let m = merge(&dirs, &tmp.path().join("m"), None).unwrap();
    assert_eq!(
        m.nodes[3].unfinished.as_deref(),
        Some("it has no summary.md")
    );
    let summary = render(&m);
    assert!(
        summary.contains("node-d` did not end its last session (it has no summary.md)"),
        "{summary}"
    );
    assert!(
        summary.contains("node-d` ran the same programs (seed 1, languages glsl, mode default)"),
        "{summary}"
    );
}

/// An exchange through shared memory that diverges because the value it exchanges was
/// miscomputed (the imulExtended high half of two literals on Mesa 22.3.6) is that arithmetic
/// bug: its signature names the operator, and the known line naming it covers the finding
/// here as it covers the hits in a campaign. An exchange of the invocation index alone (a
/// barrier bug) keeps the bare key and is not covered by that line.
#[test]
fn an_exchange_finding_is_known_by_the_operators_of_its_value() {
    use crate::ast::ExchangeBlock;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path(), "node", 1);
    let mut s = state(&cfg, 20, 5.0);
    let exchange = |value| Program {
        shape: None,
        lang: Lang::Glsl,
        local_size: 1,
        groups: 1,
        blocks: vec![Block::Exchange(ExchangeBlock {
            mul: 1,
            add: 0,
            value,
            rounds: 1,
            fence: true,
        })],
    };
    let d = Divergence {
        feature: "exchange-shared-fenced".into(),
        ..divergence("llvmpipe", "memory", Status::Fail, "1 of 1 elements differ")
    };
    let mulhi = exchange(Expr::bin(
        BinOp::MulHiS,
        Expr::Const(154_570_412),
        Expr::Const(31),
    ));
    let arithmetic = found(&cfg, &mut s, &mulhi, &d, 3, 2);
    assert_eq!(
        arithmetic,
        "llvmpipe-glsl-exchange-shared-fenced-memory-with-mulhis"
    );
    let barrier = found(&cfg, &mut s, &exchange(Expr::Lid), &d, 7, 1);
    assert_eq!(barrier, "llvmpipe-glsl-exchange-shared-fenced-memory");
    finish(&cfg, &s);
    let b = Baseline::parse(
        Path::new("known.txt"),
        "llvmpipe,fuzz/glsl-exchange-shared-fenced-memory-with-mulhis,fail\n",
    )
    .unwrap();
    let m = merge(
        std::slice::from_ref(&cfg.out),
        &tmp.path().join("m"),
        Some(&b),
    )
    .unwrap();
    assert_eq!(
        finding(&m, &arithmetic).known.as_deref(),
        Some("fuzz/glsl-exchange-shared-fenced-memory-with-mulhis")
    );
    assert_eq!(finding(&m, &barrier).known, None);
    assert_eq!((m.new_findings(), m.exit_code()), (1, 1), "{}", render(&m));
}

/// Three nights, each merge given the one before (`--history`): a finding seen every night
/// counts three nights from the first; one seen only on the first is "not seen since" then;
/// a new one on the third starts its history there; a second merge on the same night does
/// not count the night twice.
#[test]
fn history_carries_findings_across_nights() {
    use super::history::{load, History};
    let tmp = tempfile::tempdir().unwrap();
    let fail = |m: &str| divergence("llvmpipe", "memory", Status::Fail, m);
    let mulhi = program(vec![assign(BinOp::MulHiS, 7)]);
    let shr = program(vec![assign(BinOp::ShrS, 3)]);
    let div = program(vec![assign(BinOp::DivS, 5)]);
    let night = |n: u32, programs: &[&Program]| -> PathBuf {
        let cfg = config(&tmp.path().join(format!("night-{n}")), "node", u64::from(n));
        let mut s = state(&cfg, 100, 60.0);
        for (i, p) in programs.iter().enumerate() {
            found(&cfg, &mut s, p, &fail("b0: differ"), i as u64, 1);
        }
        // A known bug, counted every night, never reduced.
        s.known.insert(
            "llvmpipe,fuzz/glsl-exchange-shared-barrier-memory".into(),
            2,
        );
        finish(&cfg, &s);
        cfg.out
    };
    let merge_night = |n: u32, dir: PathBuf, previous: Option<&Path>| -> Merged {
        let previous = previous.map(|p| load(p).unwrap());
        let label = format!("2026-12-0{n}");
        merge_nights(
            &[dir],
            &tmp.path().join(format!("merged-{n}")),
            None,
            Some((&label, previous.as_ref())),
        )
        .unwrap()
    };
    let m1 = merge_night(1, night(1, &[&mulhi, &shr]), None);
    assert_eq!(m1.findings.len(), 2);
    let m2 = merge_night(
        2,
        night(2, &[&mulhi]),
        Some(&tmp.path().join("merged-1/merged.json")),
    );
    assert_eq!(m2.absent.len(), 1, "{m2:?}");
    let m3 = merge_night(
        3,
        night(3, &[&mulhi, &div]),
        Some(&tmp.path().join("merged-2/merged.json")),
    );
    let h = |m: &Merged, sig: &str| finding(m, sig).history.clone().unwrap();
    let history = |first: &str, last: &str, nights: u32| History {
        first_seen: first.into(),
        last_seen: last.into(),
        nights,
    };
    assert_eq!(h(&m3, MULHI), history("2026-12-01", "2026-12-03", 3));
    assert_eq!(h(&m3, DIV), history("2026-12-03", "2026-12-03", 1));
    assert_eq!(
        m3.known_hits[0].history,
        Some(history("2026-12-01", "2026-12-03", 3)),
        "the known barrier bug has its nights too"
    );
    assert_eq!(m3.absent.len(), 1, "{:?}", m3.absent);
    assert_eq!(m3.absent[0].signature, SHR);
    assert_eq!(m3.absent[0].history, history("2026-12-01", "2026-12-01", 1));
    let summary = std::fs::read_to_string(tmp.path().join("merged-3/summary.md")).unwrap();
    assert!(
        summary.contains("## History (tonight: `2026-12-03`)"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!(
            "| `{SHR}` | `llvmpipe` | `2026-12-01` | `2026-12-01` | 1 |"
        )),
        "{summary}"
    );
    // The same night merged again from night 3's list: not a fourth night.
    let again = merge_nights(
        &[tmp.path().join("night-3/node")],
        &tmp.path().join("merged-3b"),
        None,
        Some((
            "2026-12-03",
            Some(&load(&tmp.path().join("merged-3/merged.json")).unwrap()),
        )),
    )
    .unwrap();
    assert_eq!(h(&again, MULHI), history("2026-12-01", "2026-12-03", 3));
}
