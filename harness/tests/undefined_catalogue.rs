//! The undefined-result catalogue (`reference/undefined.yaml`, docs/REFERENCE.md) is true:
//! every row's case exists, declares the undefined behaviour it holds, and is flagged by the
//! reference (status `flagged`: the reference detected what the case declares), and a row
//! marked flagged has such a case in each language it names.

use std::process::Command;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    spec: String,
    text: String,
    languages: Vec<String>,
    treatment: String,
    case: Cases,
}

/// One case or a list of cases.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Cases {
    One(String),
    Many(Vec<String>),
}

impl Cases {
    fn names(&self) -> Vec<&str> {
        match self {
            Cases::One(c) => vec![c.as_str()],
            Cases::Many(cs) => cs.iter().map(String::as_str).collect(),
        }
    }
}

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_flagged_row_of_the_catalogue_is_flagged_by_the_reference() {
    let text = std::fs::read_to_string(root().join("reference/undefined.yaml")).unwrap();
    let rows: Vec<Row> = serde_yaml_ng::from_str(&text).unwrap();
    assert!(rows.len() >= 35, "{} rows", rows.len());
    let mut paths = Vec::new();
    for r in &rows {
        let names = r.case.names();
        assert!(!r.spec.is_empty() && !r.text.is_empty(), "{names:?}");
        assert!(!r.languages.is_empty(), "{names:?}");
        assert!(!names.is_empty(), "{}: no case", r.spec);
        let mut languages = Vec::new();
        for name in &names {
            let path = root().join("cases").join(format!("{name}.yaml"));
            let case = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if !r.treatment.starts_with("flagged") {
                continue;
            }
            assert!(
                case.contains("\nundefined:"),
                "{name} declares no undefined:"
            );
            let language = case
                .lines()
                .find_map(|l| l.trim().strip_prefix("language: "))
                .unwrap_or("")
                .to_string();
            assert!(
                r.languages.contains(&language),
                "{name}: a {language} case for a row of {:?}",
                r.languages
            );
            languages.push(language);
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        if r.treatment.starts_with("flagged") {
            for l in &r.languages {
                assert!(
                    languages.contains(l),
                    "{}: flagged in {l}, but none of its cases {names:?} is in {l}",
                    r.spec
                );
            }
        }
    }
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("run");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_conform"));
    cmd.arg("run")
        .args(&paths)
        .args(["--backend", "reference", "--out"])
        .arg(&dir);
    let o = cmd.output().unwrap();
    let journal = std::fs::read_to_string(dir.join("results.jsonl")).unwrap_or_else(|_| {
        panic!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let statuses: Vec<(String, String)> = journal
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["case"].as_str().unwrap().to_string(),
                v["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(statuses.len(), paths.len(), "{statuses:?}");
    for (case, status) in statuses {
        assert_eq!(
            status, "flagged",
            "{case}: the reference does not flag what the catalogue says"
        );
    }
}
