//! Hostile input, round three (issue 27): limits that count bytes, one reading of a YAML
//! document, the clause catalogue as untrusted input, reports well-formed whatever a name
//! holds, command-line bounds, and a finished run's directory never appended to.
//!
//! Each test here failed before the change it checks (several by aborting the harness, so run
//! them under an address-space limit: `ulimit -v 8000000` before `cargo test -p conform --test
//! hostile`, as docs/RELIABILITY.md records).

use super::{conform, symlink, GLSL, SECRET};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `tmp/NAME` with the tests' clause catalogue in it.
fn cases_dir(tmp: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("tests/data/clauses.yaml", dir.join("clauses.yaml")).unwrap();
    dir
}

/// A case that passes on the reference.
fn passing() -> String {
    format!("spec: [T-EXEC]\n{GLSL}expect: [{{buffer: out, values: [1]}}]\n")
}

/// The line of `text` about `file` (a path ending), or a failure showing all of it.
fn line_for<'a>(text: &'a str, file: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(file))
        .unwrap_or_else(|| panic!("no line for {file} in:\n{}", cut(text)))
}

/// At most 4000 characters of `text`, for failure messages.
fn cut(text: &str) -> String {
    text.chars().take(4000).collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Two MiB of one scalar, and a list that names it 100,000 times: a few MiB of text, 200 GiB
/// once the aliases are expanded (under the node limit: the limit counted nodes only).
#[test]
fn aliases_and_long_keys_are_limited_by_the_bytes_they_expand_to() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cases_dir(tmp.path(), "c1");
    let big = "x".repeat(2 << 20);
    let refs = vec!["*big"; 100_000].join(", ");
    std::fs::write(
        dir.join("alias-bytes.yaml"),
        format!("spec: [T-EXEC]\ndescription: &big \"{big}\"\nsteps: [{refs}]\n"),
    )
    .unwrap();
    // One 2 MiB key (an explicit `?` key: YAML caps implicit keys at 1024 characters) over
    // 150,000 values: the position index named each value by a path holding the key (300 GiB
    // of paths).
    let zeros = vec!["0"; 150_000].join(", ");
    std::fs::write(
        dir.join("long-key.yaml"),
        format!(
            "spec: [T-EXEC]\n{GLSL}steps:\n  - ? {}\n    : [{zeros}]\n",
            "k".repeat(2 << 20)
        ),
    )
    .unwrap();
    std::fs::write(dir.join("ok.yaml"), passing()).unwrap();
    let v = conform(&["validate", s(&dir)], here());
    let t = v.text();
    assert_eq!(v.code, Some(2), "{}", cut(&t));
    assert!(
        v.took < Duration::from_secs(30),
        "validate took {:?}",
        v.took
    );
    assert!(t.contains("1 valid, 2 invalid"), "{}", cut(&t));
    let l = line_for(&t, "alias-bytes.yaml:3:");
    assert!(l.contains("bytes of text (aliases expanded)"), "{}", cut(l));
    // Read by both parsers, and refused for what it is, not for its syntax.
    let l = line_for(&t, "long-key.yaml:11:");
    assert!(l.contains("step"), "{}", cut(l));
    assert!(l.len() < 8192, "a diagnostic of {} bytes", l.len());
    // No diagnostic quotes megabytes of the file.
    assert!(t.len() < 64 << 10, "validate printed {} bytes", t.len());
    assert!(
        v.peak_kib < 1 << 20,
        "validate peaked at {} KiB",
        v.peak_kib
    );
}

/// YAML 1.1's line breaks beyond CR and LF (NEL, LS, PS), read as line breaks by libyaml (the
/// deserializer) and as ordinary characters by yaml-rust2 (the pre-scan), and other characters
/// the two read differently: refused where they are.
#[test]
fn line_breaks_the_two_yaml_parsers_read_differently_are_refused_where_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cases_dir(tmp.path(), "c2");
    let big = "x".repeat(2 << 20);
    let refs = vec!["*big"; 100_000].join(", ");
    let w = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
    // To yaml-rust2 the third line is a comment; to libyaml the LS ends it and `steps:` is a
    // key naming the 2 MiB scalar 100,000 times.
    w(
        "comment-ls.yaml",
        format!("spec: [T-EXEC]\ndescription: &big \"{big}\"\n# note\u{2028}steps: [{refs}]\n"),
    );
    w(
        "nel-plain.yaml",
        format!("spec: [T-EXEC]\nname: a\u{85}b\n{GLSL}"),
    );
    w(
        "ps-quoted.yaml",
        format!("spec: [T-EXEC]\nname: \"a\u{2029}b\"\n{GLSL}"),
    );
    w(
        "bom-inside.yaml",
        format!("spec: [T-EXEC]\n\u{feff}name: x\n{GLSL}"),
    );
    w(
        "c1-comment.yaml",
        format!("spec: [T-EXEC]\n# \u{86}\n{GLSL}"),
    );
    w("ok.yaml", passing());
    let v = conform(&["validate", s(&dir)], here());
    let t = v.text();
    assert_eq!(v.code, Some(2), "{}", cut(&t));
    assert!(t.contains("1 valid, 5 invalid"), "{}", cut(&t));
    for (file, says) in [
        ("comment-ls.yaml:3:7:", "U+2028"),
        ("nel-plain.yaml:2:8:", "U+0085"),
        ("ps-quoted.yaml:2:9:", "U+2029"),
        ("bom-inside.yaml:2:1:", "U+FEFF"),
        ("c1-comment.yaml:2:3:", "U+0086"),
    ] {
        let l = line_for(&t, file);
        assert!(l.contains(says), "{file}: {l}");
    }
    assert!(t.len() < 64 << 10, "validate printed {} bytes", t.len());
}

/// `clauses.yaml` is found above the cases and read before any of them: through a symlink it
/// could name any file, and its parse errors quoted what they read.
#[test]
fn the_clause_catalogue_is_read_with_the_rules_of_a_case_file() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("secret.txt"), format!("{SECRET}\n")).unwrap();
    // A catalogue that is a symlink out of its directory.
    let a = tmp.path().join("a/cases");
    std::fs::create_dir_all(&a).unwrap();
    symlink("../../secret.txt", a.join("clauses.yaml"));
    std::fs::write(a.join("ok.yaml"), passing()).unwrap();
    let v = conform(&["validate", s(&a)], here());
    let t = v.text();
    assert_eq!(v.code, Some(2), "{t}");
    assert!(!t.contains(SECRET), "{t}");
    let l = line_for(&t, "clauses.yaml");
    assert!(l.contains("outside"), "{l}");
    // Inside the root, but not a catalogue: the error names file:line:col, not the content.
    let b = tmp.path().join("b/cases");
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(
        b.join("clauses.yaml"),
        format!("EXT_x:\n  - {{id: A, kind: exec, text: a}}\nEXT_y: \"{SECRET}\"\n"),
    )
    .unwrap();
    std::fs::write(b.join("ok.yaml"), passing()).unwrap();
    for cmd in ["validate", "list"] {
        let v = conform(&[cmd, s(&b)], here());
        let t = v.text();
        assert_eq!(v.code, Some(2), "{cmd}: {t}");
        assert!(!t.contains(SECRET), "{cmd}: {t}");
        assert!(
            line_for(&t, "clauses.yaml:3:").contains("clause catalogue"),
            "{t}"
        );
    }
    // The case limits hold for it too: aliases and characters the parsers read differently.
    let c = tmp.path().join("c/cases");
    std::fs::create_dir_all(&c).unwrap();
    let mut laughs = String::from("l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n");
    for i in 1..9 {
        let refs = vec![format!("*l{}", i - 1); 10].join(", ");
        laughs.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    std::fs::write(c.join("clauses.yaml"), laughs).unwrap();
    std::fs::write(c.join("ok.yaml"), passing()).unwrap();
    let v = conform(&["validate", s(&c)], here());
    assert_eq!(v.code, Some(2), "{}", v.text());
    assert!(line_for(&v.text(), "clauses.yaml:").contains("aliases expanded"));
}

/// XML 1.0's `Char`: what a well-formed document may hold.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Whether `xml` is a well-formed XML 1.0 document: only characters XML allows, every
/// reference predefined or a character XML allows, elements balanced under one root,
/// attributes unique and readable (quick-xml checks the structure; it does not check
/// characters, so this does).
fn well_formed(xml: &str) -> Result<(), String> {
    use quick_xml::events::Event;
    if let Some((at, c)) = xml.char_indices().find(|(_, c)| !is_xml_char(*c)) {
        return Err(format!(
            "byte {at}: U+{:04X} is not an XML 1.0 character",
            c as u32
        ));
    }
    let mut reader = quick_xml::Reader::from_str(xml);
    let (mut depth, mut roots) = (0usize, 0usize);
    loop {
        let ev = reader
            .read_event()
            .map_err(|e| format!("byte {}: {e}", reader.buffer_position()))?;
        let attrs = |e: &quick_xml::events::BytesStart| -> Result<(), String> {
            for a in e.attributes() {
                let a = a.map_err(|e| e.to_string())?;
                let v = a
                    .normalized_value(quick_xml::XmlVersion::Explicit1_0)
                    .map_err(|e| e.to_string())?;
                if let Some(c) = v.chars().find(|c| !is_xml_char(*c)) {
                    return Err(format!("attribute holds U+{:04X}", c as u32));
                }
            }
            Ok(())
        };
        match ev {
            Event::Start(e) => {
                roots += usize::from(depth == 0);
                depth += 1;
                attrs(&e)?;
            }
            Event::Empty(e) => {
                roots += usize::from(depth == 0);
                attrs(&e)?;
            }
            Event::End(_) => depth = depth.checked_sub(1).ok_or("an end tag too many")?,
            Event::GeneralRef(r) => {
                let name = r.decode().map_err(|e| e.to_string())?;
                match r.resolve_char_ref() {
                    Ok(Some(c)) if is_xml_char(c) => {}
                    Ok(None) if ["lt", "gt", "amp", "apos", "quot"].contains(&&*name) => {}
                    _ => return Err(format!("reference &{name};")),
                }
            }
            Event::Text(t) if depth == 0 => {
                let text = t.decode().map_err(|e| e.to_string())?;
                if !text.trim().is_empty() {
                    return Err(format!("text outside the root: {text:?}"));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if depth != 0 || roots != 1 {
        return Err(format!("{roots} root element(s), {depth} left open"));
    }
    Ok(())
}

/// Characters no report may hold raw: controls other than line feed and tab, the bidi
/// controls, line and paragraph separators, and what XML 1.0 forbids.
fn raw_hostile(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{fffe}'
                | '\u{ffff}'
        )
}

#[test]
fn reports_are_well_formed_whatever_a_name_or_message_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cases_dir(tmp.path(), "c4");
    let w = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
    w("ok.yaml", passing());
    // Names from file names: a character XML 1.0 forbids, a bidi override, a zero-width
    // space, a control character.
    w("xml-\u{fffe}.yaml", passing());
    w("bidi-\u{202e}gnp.yaml", passing());
    w("zw-\u{200b}.yaml", passing());
    w("ctl-\u{1}.yaml", passing());
    // A megabyte of name.
    w(
        "long-name.yaml",
        format!("name: \"{}\"\n{}", "n".repeat(1 << 20), passing()),
    );
    // A failure whose message and details carry what the case declares.
    w(
        "fails.yaml",
        format!("spec: [T-EXEC]\n{GLSL}expect: [{{buffer: out, values: [2]}}]\n"),
    );
    let v = conform(&["validate", s(&dir)], here());
    let t = v.text();
    assert_eq!(v.code, Some(2), "{}", cut(&t));
    assert!(t.contains("2 valid, 5 invalid"), "{}", cut(&t));
    let l = line_for(&t, "long-name.yaml:1:");
    assert!(
        l.contains("1048576 bytes") && l.contains("256"),
        "{}",
        cut(l)
    );
    assert!(l.len() < 1024, "a diagnostic of {} bytes", l.len());
    for (file, shown) in [
        ("/xml-", "xml-\\u{fffe}"),
        ("/zw-", "zw-\\u{200b}"),
        ("/bidi-", "bidi-\\u{202e}gnp"),
    ] {
        let l = line_for(&t, file);
        assert!(l.contains(&format!("case name `{shown}`")), "{file}: {l}");
    }

    let out = tmp.path().join("out");
    let r = conform(
        &["run", s(&dir), "--backend", "reference", "--out", s(&out)],
        here(),
    );
    assert_eq!(r.code, Some(1), "{}", cut(&r.text()));
    let rows = out.join("junit-rows.xml");
    let j = conform(
        &[
            "junit",
            "--results",
            s(&out.join("results.csv")),
            "-o",
            s(&rows),
        ],
        here(),
    );
    assert_eq!(j.code, Some(0), "{}", j.text());
    let mut junits = 0;
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let report = name.starts_with("junit") && name.ends_with(".xml")
            || ["report.html", "summary.md", "results.csv", "failures.csv"].contains(&&*name);
        if !report {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        if name.starts_with("junit") {
            junits += 1;
            if let Err(e) = well_formed(&text) {
                panic!("{name} is not well-formed XML 1.0: {e}");
            }
        }
        if let Some(c) = text.chars().find(|c| raw_hostile(*c)) {
            panic!("{name} holds U+{:04X} raw", c as u32);
        }
    }
    assert!(junits >= 2, "{junits} JUnit files");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("bidi-\\u{202e}gnp"), "the override is shown");
}

#[test]
fn command_line_numbers_and_numbers_read_back_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cases_dir(tmp.path(), "q");
    std::fs::write(dir.join("a.yaml"), passing()).unwrap();
    std::fs::write(dir.join("b.yaml"), passing()).unwrap();
    let out = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    let run = |extra: &[&str], to: &str| {
        let mut args = vec!["run", s(&dir), "--backend", "reference", "--out", to];
        args.extend_from_slice(extra);
        conform(&args, here())
    };
    for (extra, says) in [
        (&["--shard", "1/10001"][..], "at most 10000"),
        (&["--shard", "3/2"][..], "1 <= I <= N"),
        (&["--timeout", "11m"][..], "600000"),
        (&["--timeout", "0s"][..], "at least 1ms"),
        (&["--timeout-ms", "600001"][..], "600000"),
    ] {
        let to = out("never");
        let r = run(extra, &to);
        assert_eq!(r.code, Some(2), "{extra:?}: {}", r.text());
        assert!(r.text().contains(says), "{extra:?}: {}", r.text());
        assert!(!Path::new(&to).exists(), "{extra:?} wrote {to}");
    }
    // A run record naming a shard count no --shard accepts: merge never counts to it.
    let r = run(&["--shard", "1/1", "--no-gate"], &out("s1"));
    assert_eq!(r.code, Some(0), "{}", r.text());
    let record = tmp.path().join("s1/run.json");
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("\"shard\": \"1/1\""), "{text}");
    std::fs::write(
        &record,
        text.replace(
            "\"shard\": \"1/1\"",
            "\"shard\": \"1/18446744073709551615\"",
        ),
    )
    .unwrap();
    let m = conform(&["merge", &out("s1"), "--out", &out("m1")], here());
    assert_eq!(m.code, Some(3), "{}", m.text());
    assert!(m.text().contains("1/18446744073709551615"), "{}", m.text());
    // Counts that overflow when added.
    let r = run(&[], &out("e1"));
    assert_eq!(r.code, Some(0), "{}", r.text());
    let other = cases_dir(tmp.path(), "q2");
    std::fs::write(other.join("c.yaml"), passing()).unwrap();
    let e2 = out("e2");
    let r = conform(
        &["run", s(&other), "--backend", "reference", "--out", &e2],
        here(),
    );
    assert_eq!(r.code, Some(0), "{}", r.text());
    for d in ["e1", "e2"] {
        let record = tmp.path().join(d).join("run.json");
        let text = std::fs::read_to_string(&record).unwrap();
        let text = regex_replace_expected(&text, "18446744073709551615");
        std::fs::write(&record, text).unwrap();
    }
    let m = conform(&["merge", &out("e1"), &e2, "--out", &out("m2")], here());
    assert_eq!(m.code, Some(3), "{}", m.text());
    assert!(
        m.text().contains("of the 18446744073709551615 results"),
        "{}",
        m.text()
    );

    // A fuzz campaign's state with an iteration no campaign reaches: an error naming the
    // file, not a silent wrap to iteration 0.
    let corpus = out("fuzz-corpus");
    let fuzz = |extra: &[&str]| {
        let mut args = vec![
            "fuzz",
            "--backend",
            "reference",
            "--seed",
            "7",
            "--lang",
            "glsl",
            "--corpus",
            &corpus,
            "--out",
            "fuzz-out",
        ];
        args.extend_from_slice(extra);
        let cwd = tmp.path();
        conform(&args, cwd)
    };
    let f = fuzz(&["--iterations", "1", "--time", "30s"]);
    assert!(matches!(f.code, Some(0 | 1)), "{}", f.text());
    let state = Path::new(&corpus).join("state.json");
    let text = std::fs::read_to_string(&state).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["next"] = serde_json::json!(u64::MAX);
    std::fs::write(&state, json.to_string()).unwrap();
    let f = fuzz(&["--time", "2s"]);
    assert_eq!(f.code, Some(2), "{}", f.text());
    assert!(
        f.text().contains("state.json") && f.text().contains("next"),
        "{}",
        f.text()
    );
}

/// `"expected": N` in a run record, replaced by `value`.
fn regex_replace_expected(text: &str, value: &str) -> String {
    let start = text
        .find("\"expected\": ")
        .expect("a run record names its expected results");
    let from = start + "\"expected\": ".len();
    let end = from + text[from..].find([',', '\n', '}']).unwrap();
    format!("{}{value}{}", &text[..from], &text[end..])
}

#[test]
fn a_finished_runs_directory_is_never_appended_to() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cases_dir(tmp.path(), "q");
    std::fs::write(dir.join("a.yaml"), passing()).unwrap();
    let out = tmp.path().join("run");
    let args = ["run", s(&dir), "--backend", "reference", "--out", s(&out)];
    let first = conform(&args, here());
    assert_eq!(first.code, Some(0), "{}", first.text());
    let journal = std::fs::read(out.join("results.jsonl")).unwrap();
    let second = conform(&args, here());
    let t = second.text();
    assert_eq!(second.code, Some(2), "{t}");
    assert!(t.contains(s(&out)) && t.contains("new --out"), "{t}");
    assert_eq!(std::fs::read(out.join("results.jsonl")).unwrap(), journal);
    assert_eq!(conform(&["report", s(&out)], here()).code, Some(0));
    // A merge into a run's directory, or into an earlier merge's.
    let m = conform(&["merge", s(&out), "--out", s(&out)], here());
    assert_eq!(m.code, Some(2), "{}", m.text());
    let merged = tmp.path().join("merged");
    let m = conform(&["merge", s(&out), "--out", s(&merged)], here());
    assert_eq!(m.code, Some(0), "{}", m.text());
    let m = conform(&["merge", s(&out), "--out", s(&merged)], here());
    assert_eq!(m.code, Some(2), "{}", m.text());
    // The fuzzer's --out is meant for resuming a campaign, but never a run's directory.
    let summary = std::fs::read(out.join("summary.md")).unwrap();
    let f = conform(
        &[
            "fuzz",
            "--backend",
            "reference",
            "--iterations",
            "1",
            "--corpus",
            s(&tmp.path().join("corpus")),
            "--out",
            s(&out),
        ],
        here(),
    );
    assert_eq!(f.code, Some(2), "{}", f.text());
    assert!(f.text().contains(s(&out)), "{}", f.text());
    assert_eq!(std::fs::read(out.join("summary.md")).unwrap(), summary);
}
