//! End-to-end tests of `conform fuzz merge` (no GL needed): a real campaign of the reference
//! and synthetic ones written with the fuzzer's own types, merged through the CLI; the exit
//! codes (1 when a finding is not in --known, 0 otherwise, 2 on bad input with the file
//! named); and `conform fuzz --flags` still a campaign. The merge itself is tested in depth,
//! and its summary.md golden, in `conform_fuzzer::campaign::merge`.

use conform_fuzzer::ast::{BinOp, Block, ComputeBlock, Expr, Lang, Program, Stmt};
use conform_fuzzer::campaign::{render_summary, Finding, LangChoice, State};
use conform_fuzzer::Divergence;
use conform_judge::results::Status;
use std::path::Path;

mod common;
use common::{conform, text};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A finished campaign of seed `seed` in `dir` (its state in `dir/corpus`) with one finding:
/// a wrong mulhi on llvmpipe, its reduced case of `statements` statements, hit `count` times.
fn campaign(dir: &Path, seed: u64, statements: u32, count: u64) {
    let p = Program {
        shape: None,
        lang: Lang::Glsl,
        local_size: 1,
        groups: 1,
        blocks: vec![Block::Compute(ComputeBlock {
            seed: 0,
            stmts: (0..statements)
                .map(|k| Stmt::Assign(0, Expr::bin(BinOp::MulHiS, Expr::Const(k + 2), Expr::Lid)))
                .collect(),
        })],
    };
    let d = Divergence {
        backend: "llvmpipe".into(),
        lang: Lang::Glsl,
        feature: "compute".into(),
        aspect: "memory".into(),
        block: Some(0),
        status: Status::Fail,
        message: "b0: 1 of 1 elements differ".into(),
        details: vec![],
    };
    let sig = conform_fuzzer::reduction::signature::signature(&d, &p);
    let (_, case) = conform_fuzzer::load_case(&p, &format!("fuzz-{sig}"), "found").unwrap();
    std::fs::create_dir_all(dir.join(&sig)).unwrap();
    std::fs::write(dir.join(&sig).join("case.yaml"), &case.yaml).unwrap();
    let state = State {
        seed,
        lang: Some(LangChoice::of(&[Lang::Glsl])),
        next: 100,
        execs: 100,
        seconds: 60.0,
        signatures: [(
            sig.clone(),
            Finding {
                backend: d.backend.clone(),
                key: d.key(),
                count,
                first_iteration: 7,
                message: d.message.clone(),
                instructions: case.instructions,
                case: format!("{}/{sig}/case.yaml", dir.display()),
            },
        )]
        .into(),
        ..State::default()
    };
    std::fs::create_dir_all(dir.join("corpus")).unwrap();
    let json = serde_json::to_string_pretty(&state).unwrap();
    std::fs::write(dir.join("corpus").join("state.json"), json).unwrap();
    std::fs::write(dir.join("summary.md"), render_summary(&state)).unwrap();
}

#[test]
fn fuzz_merge_lists_a_farms_findings_once_and_exits_by_known() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("seed-1"), tmp.path().join("seed-2"));
    campaign(&a, 1, 3, 4);
    campaign(&b, 2, 1, 2);
    let sig = "llvmpipe-glsl-compute-memory-with-mulhis";

    let out = tmp.path().join("merged");
    let o = conform(&["fuzz", "merge", s(&a), s(&b), "--out", s(&out)]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("**1 new**") && t.contains("summary: "), "{t}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("merged.json")).unwrap()).unwrap();
    assert_eq!(json["findings"].as_array().unwrap().len(), 1, "{json}");
    assert_eq!(json["findings"][0]["hits"], 6);
    // seed-2's case is the smaller one (one statement against three).
    assert_eq!(
        std::fs::read(out.join(sig).join("case.yaml")).unwrap(),
        std::fs::read(b.join(sig).join("case.yaml")).unwrap()
    );
    assert!(std::fs::read_to_string(out.join("summary.md"))
        .unwrap()
        .contains(sig));

    // Known: exit 0.
    let known = tmp.path().join("known.txt");
    std::fs::write(
        &known,
        "llvmpipe,fuzz/glsl-compute-memory-with-mulhis,fail\n",
    )
    .unwrap();
    let out2 = tmp.path().join("merged-known");
    let args = ["fuzz", "merge", s(&a), s(&b), "--out", s(&out2), "--known"];
    let o = conform(&[&args[..], &[s(&known)]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // Bad input: exit 2, the file named, nothing written.
    let out3 = tmp.path().join("merged-bad");
    std::fs::write(b.join("corpus").join("state.json"), "{\"next\": ").unwrap();
    let o = conform(&["fuzz", "merge", s(&a), s(&b), "--out", s(&out3)]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("seed-2/corpus/state.json"), "{t}");
    assert!(!out3.exists());
    // A non-empty --out, a missing directory, a bad --known: exit 2.
    let o = conform(&["fuzz", "merge", s(&a), "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not empty"), "{}", text(&o));
    let missing = tmp.path().join("seed-9");
    let o = conform(&["fuzz", "merge", s(&missing), "--out", s(&out3)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("seed-9: no such directory"),
        "{}",
        text(&o)
    );
    std::fs::write(&known, "llvmpipe,fuzz/x\n").unwrap();
    let o = conform(&[
        "fuzz",
        "merge",
        s(&a),
        "--out",
        s(&out3),
        "--known",
        s(&known),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("known.txt:1"), "{}", text(&o));
}

/// `conform fuzz` with its flags is still a campaign; its directory (the corpus inside its
/// --out, the default layout) merges as one that ended, without findings: exit 0.
#[test]
fn fuzz_flags_still_run_a_campaign_that_merges() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("node");
    let corpus = dir.join("corpus");
    let o = conform(&[
        "fuzz",
        "--backend",
        "reference",
        "--seed",
        "3",
        "--lang",
        "glsl",
        "--iterations",
        "2",
        "--time",
        "60s",
        "--corpus",
        s(&corpus),
        "--out",
        s(&dir),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let out = tmp.path().join("merged");
    let o = conform(&["fuzz", "merge", s(&dir), "--out", s(&out)]);
    let t = text(&o);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("merged.json")).unwrap()).unwrap();
    assert_eq!(
        json["nodes"][0]["unfinished"],
        serde_json::Value::Null,
        "{t}"
    );
    assert_eq!(json["nodes"][0]["programs"], 2, "{t}");
    let findings = json["findings"].as_array().unwrap().len();
    assert_eq!(o.status.code(), Some(u8::from(findings > 0).into()), "{t}");
    // Flags and the subcommand do not mix; the help names the subcommand.
    let o = conform(&["fuzz", "--seed", "1", "merge", s(&dir), "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("cannot be used with"), "{}", text(&o));
    let o = conform(&["fuzz", "--help"]);
    assert!(text(&o).contains("\n  merge "), "{}", text(&o));
    let o = conform(&["fuzz", "merge", "--help"]);
    assert!(text(&o).contains("--known"), "{}", text(&o));
}

/// `conform fuzz recheck`: each finding's reduced case on the builds named; fixed where a build
/// of its own driver passes it, with that build's identity; still failing elsewhere. Then the
/// next night's merge, given this list, closes the fixed finding it does not see again.
#[test]
fn fuzz_recheck_marks_what_a_build_fixed_and_the_next_merge_closes_it() {
    let o = conform(&["drivers"]);
    if !text(&o)
        .lines()
        .any(|l| l.starts_with("llvmpipe: ") && !l.contains("absent"))
    {
        eprintln!("skipping: no llvmpipe here");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let merged = tmp.path().join("merged");
    let case = |name: &str, value: u32, expected: u32| {
        format!(
            "name: fuzz-{name}\nspec: [ARBCS-GLSL-GLOBAL-INVOCATION-ID]\nrequires: {{gl: \"4.3\"}}\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    layout(std430, binding = 0) buffer B {{ uint v[]; }};\n    void main() {{ v[0] = {value}u; }}\nbuffers:\n  - {{name: b, binding: 0, type: u32, data: [0]}}\nsteps:\n  - dispatch: [1]\nexpect:\n  - {{buffer: b, values: [{expected}]}}\n"
        )
    };
    // A finding of an older llvmpipe whose case llvmpipe passes today (fixed), and one whose
    // case it still fails (its expectation is not what the program stores).
    for (sig, yaml) in [
        ("llvmpipe-glsl-compute-memory-with-adds", case("adds", 5, 5)),
        ("llvmpipe-glsl-compute-memory-with-subs", case("subs", 5, 6)),
    ] {
        std::fs::create_dir_all(merged.join(sig)).unwrap();
        std::fs::write(merged.join(sig).join("case.yaml"), yaml).unwrap();
    }
    let finding = |sig: &str| {
        format!(
            r#"{{"signature": "{sig}", "backend": "llvmpipe@1.0.0", "key": "llvmpipe@1.0.0-glsl-compute-memory", "known": null, "hits": 1, "message": "", "case": null, "seen": [], "notes": [], "history": {{"first_seen": "n1", "last_seen": "n1", "nights": 1}}}}"#
        )
    };
    std::fs::write(
        merged.join("merged.json"),
        format!(
            r#"{{"known_lines": null, "nodes": [], "known_hits": [], "night": "n1", "findings": [{}, {}]}}"#,
            finding("llvmpipe-glsl-compute-memory-with-adds"),
            finding("llvmpipe-glsl-compute-memory-with-subs")
        ),
    )
    .unwrap();
    let o = conform(&["fuzz", "recheck", s(&merged), "--backend", "llvmpipe"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let recheck: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("recheck.json")).unwrap())
            .unwrap();
    let of = |sig: &str| {
        recheck["rechecked"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["signature"] == sig)
            .cloned()
            .unwrap()
    };
    let fixed = of("llvmpipe-glsl-compute-memory-with-adds");
    assert_eq!(fixed["fixed_on"]["backend"], "llvmpipe", "{recheck}");
    assert!(
        fixed["fixed_on"]["identity"]
            .as_str()
            .unwrap()
            .contains("llvmpipe"),
        "{recheck}"
    );
    assert!(of("llvmpipe-glsl-compute-memory-with-subs")["fixed_on"].is_null());
    assert!(t.contains("still failing"), "{t}");
    // The next night sees neither: the fixed one is closed, the other not seen since n1.
    let night = tmp.path().join("night-2");
    campaign(&night, 3, 1, 1);
    let next = tmp.path().join("merged-2");
    let o = conform(&[
        "fuzz",
        "merge",
        s(&night),
        "--out",
        s(&next),
        "--history",
        s(&merged.join("merged.json")),
        "--night",
        "n2",
    ]);
    let summary = std::fs::read_to_string(next.join("summary.md")).unwrap();
    assert!(o.status.code().is_some(), "{}", text(&o));
    assert!(
        summary.contains("### Fixed (`conform fuzz recheck`), closed"),
        "{summary}"
    );
    let closed =
        &summary[summary.find("### Fixed").unwrap()..summary.find("### Not seen").unwrap()];
    assert!(closed.contains("with-adds"), "{summary}");
    assert!(!closed.contains("with-subs"), "{summary}");
    let absent = &summary[summary.find("### Not seen tonight").unwrap()..];
    assert!(
        absent.contains("with-subs") && absent.contains("`n1`"),
        "{summary}"
    );
}
