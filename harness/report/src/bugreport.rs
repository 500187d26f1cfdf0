//! `conform bugreport`: one case's failure as a Markdown report to paste into an upstream
//! issue (Mesa's GitLab): a title naming the driver and the operation, the driver's identity,
//! what the program does, the program and its inputs, expected (with the spec text of the
//! clauses) against actual, how to reproduce it with piglit's shader_runner and with conform,
//! and the builds it fails and passes on.
//!
//! Everything is made from the case and the results of running it (the CLI runs it on the
//! reference and the backends asked for); nothing here runs anything. Text from the case and
//! the driver is escaped the way `summary.md` escapes it: an issue tracker must not take a
//! line of it for a quick action or a mention. What may start a line goes through
//! `md_line` (the description, where a quote is from): its first character cannot start a
//! quick action (`/close`), a heading, a rule, a list, a quote or HTML; text within a line
//! through `md_text` or a code span (`md_code`, `md_cell_code` in a table); multi-line text
//! (the program, the piglit test, a crash's details) is an indented code block
//! (`md_code_block`), never a fence, so no line of it starts at the margin.

use conform_case::Case;
use conform_io::escape::{md_cell_code, md_code, md_code_block, md_line, md_text};
use conform_judge::identity::BackendIdentity;
use conform_judge::results::{CaseResult, Status};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What a report is made from besides the case.
pub struct BugReportInput<'a> {
    /// The case's results: one per backend it ran on (the reference's included).
    pub results: &'a [CaseResult],
    /// Each backend's identity, by name.
    pub identities: &'a BTreeMap<String, BackendIdentity>,
    /// The cited clauses, in the case's order.
    pub clauses: &'a [ClauseText],
    /// The case as a piglit test (`conform export piglit`), or why it cannot be one.
    pub piglit: Result<PiglitTest, String>,
    /// A title checked by hand (`--title`): what is wrong, in the words a driver developer
    /// searches for. Without it the title is the case description's first sentence.
    pub title: Option<&'a str>,
}

/// A cited clause: conform's summary and the spec's own words.
pub struct ClauseText {
    pub id: String,
    /// `where: text` from the clause catalogue (empty when the catalogue lacks the id).
    pub summary: String,
    /// The spec's sentences, word for word: (where from: name, revision, section; text).
    pub quotes: Vec<(String, String)>,
}

/// A case as piglit runs it: a shader_test, or a glslparsertest file for a compile failure.
pub struct PiglitTest {
    /// The file name to save it as (`modf.shader_test`, `shared-initializer.comp`).
    pub file: String,
    /// The command that runs it, with the file name (`shader_runner modf.shader_test -auto
    /// -fbo`).
    pub command: String,
    pub text: String,
}

/// The first sentence of a description that says what the program does, for a title: a
/// sentence of provenance ("Found by `conform fuzz` ...") is skipped.
fn first_sentence(text: &str) -> String {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut sentences = Vec::new();
    let mut rest = t.as_str();
    while !rest.is_empty() {
        let end = rest
            .char_indices()
            .find(|&(i, c)| c == '.' && rest[i + 1..].starts_with(' '))
            .map_or(rest.len(), |(i, _)| i);
        sentences.push(&rest[..end]);
        rest = rest[end..].trim_start_matches('.').trim_start();
    }
    let s = sentences
        .iter()
        .find(|s| !s.starts_with("Found "))
        .or(sentences.first())
        .copied()
        .unwrap_or("");
    if s.chars().count() > 100 {
        format!("{}…", s.chars().take(100).collect::<String>())
    } else {
        s.to_string()
    }
}

fn failed(s: Status) -> bool {
    matches!(s, Status::Fail | Status::Crash | Status::Timeout)
}

/// Where a backend's build is described in a line: renderer and version. Not where it is
/// installed: a report is read on other machines, and the version names the build.
fn build(name: &str, ids: &BTreeMap<String, BackendIdentity>) -> String {
    match ids.get(name) {
        Some(id) => format!("{} ({})", md_cell_code(name), md_text(&id.summary())),
        None => md_cell_code(name),
    }
}

/// `repro` with every install directory of `ids` written `MESA_DIR` (a report leaves no
/// local absolute path), and whether one was.
fn portable(repro: &str, ids: &BTreeMap<String, BackendIdentity>) -> (String, bool) {
    let mut out = repro.to_string();
    let mut installs: Vec<&str> = ids.values().filter_map(|i| i.install.as_deref()).collect();
    // The longest first, so a directory inside another is not half replaced.
    installs.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for dir in installs {
        out = out.replace(dir.trim_end_matches('/'), "MESA_DIR");
    }
    let replaced = out != repro;
    (out, replaced)
}

/// A driver library as a report names it: its file name (the directory is the machine's).
fn library_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A build's Mesa version as numbers (`26.2.6`), from its identity's Mesa version or, for a
/// Vulkan driver, the `Mesa X.Y.Z` in its version string.
fn mesa_numbers(id: &BackendIdentity) -> Option<Vec<u64>> {
    let text = match &id.mesa_version {
        Some(v) => v.as_str(),
        None => id.version.split("Mesa ").nth(1)?,
    };
    let numbers: Vec<u64> = text
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|p| !p.is_empty())
        .take(3)
        .filter_map(|p| p.parse().ok())
        .collect();
    (numbers.len() == 3).then_some(numbers)
}

/// Which side a zink failure is on: llvmpipe of the same Mesa runs the same GLSL and NIR
/// through gallivm, and lavapipe (zink's Vulkan driver here) shares that back end, so a zink
/// failure llvmpipe does not share is in zink's translation to SPIR-V or its use of Vulkan;
/// one it shares is in the common front end, NIR or LLVM. `vk:lavapipe` of the same Mesa, when
/// it ran the case (SPIR-V cases), says whether lavapipe alone fails it.
fn zink_side(
    failing: &CaseResult,
    results: &[CaseResult],
    ids: &BTreeMap<String, BackendIdentity>,
) -> Option<String> {
    let id = ids.get(&failing.backend)?;
    if !id.renderer.starts_with("zink") {
        return None;
    }
    let version = mesa_numbers(id)?;
    let same = |prefix: &str| {
        results.iter().find(|r| {
            ids.get(&r.backend).is_some_and(|i| {
                mesa_numbers(i).as_ref() == Some(&version)
                    && r.backend.starts_with(prefix)
                    && r.status != Status::Skip
            })
        })
    };
    let mut lines = Vec::new();
    match same("llvmpipe") {
        Some(r) if failed(r.status) => lines.push(format!(
            "llvmpipe of the same Mesa ({}) fails it too: the bug is in what the two share \
             (the compiler front end, NIR or LLVM), not in zink.",
            md_code(&r.backend)
        )),
        Some(r) => lines.push(format!(
            "llvmpipe of the same Mesa ({}) passes: the bug is zink's (its translation of NIR \
             to SPIR-V or its use of Vulkan); lavapipe, zink's Vulkan driver here, shares \
             llvmpipe's back end.",
            md_code(&r.backend)
        )),
        None => {}
    }
    if let Some(r) = same("vk:lavapipe") {
        lines.push(format!(
            "The case's SPIR-V on lavapipe through Vulkan ({}): {}.",
            md_code(&r.backend),
            if failed(r.status) {
                "fails too"
            } else {
                "passes"
            }
        ));
    }
    (!lines.is_empty()).then(|| lines.join(" "))
}

/// The report, or `None` when the case fails on no driver (nothing to report).
pub fn render(case: &Case, input: &BugReportInput) -> Option<String> {
    let failing: Vec<&CaseResult> = input
        .results
        .iter()
        .filter(|r| r.backend != "reference" && failed(r.status))
        .collect();
    // The newest build that fails leads the report: upstream cares about today's Mesa.
    let version = |r: &CaseResult| -> Vec<u64> {
        input
            .identities
            .get(&r.backend)
            .and_then(|id| id.mesa_version.as_deref())
            .map(|v| {
                v.split(|c: char| !c.is_ascii_digit())
                    .filter(|p| !p.is_empty())
                    .take(3)
                    .filter_map(|p| p.parse().ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    // The first (in the order run) of the newest failing builds.
    let newest = failing.iter().map(|r| version(r)).max()?;
    let first = *failing.iter().find(|r| version(r) == newest)?;
    let driver = input
        .identities
        .get(&first.backend)
        .map_or(first.backend.clone(), |id| {
            let family = id.renderer.split(['(', ' ']).next().unwrap_or(&id.renderer);
            match &id.mesa_version {
                Some(v) => format!("{family} (Mesa {v})"),
                None => family.to_string(),
            }
        });
    let accepts_invalid = case
        .fails
        .as_ref()
        .is_some_and(|f| first.message == conform_judge::built_unexpectedly(f.at));
    let what = match first.status {
        Status::Crash => "crashes",
        Status::Timeout => "hangs",
        _ if accepts_invalid => "accepts an invalid program",
        _ => "wrong result",
    };
    let mut o = String::new();
    match input.title {
        Some(title) => {
            let _ = writeln!(o, "# {}: {}\n", md_text(&driver), md_text(title));
        }
        None => {
            let _ = writeln!(
                o,
                "# {}: {what}: {}\n",
                md_text(&driver),
                md_text(&first_sentence(&case.description))
            );
        }
    }
    o.push_str("## Summary\n\n");
    for line in case.description.lines().filter(|l| !l.trim().is_empty()) {
        let _ = writeln!(o, "{}", md_line(line.trim()));
    }
    let _ = writeln!(
        o,
        "\nThe expected result follows from the specification text quoted below; it is what \
         conform's reference interpreter computes too. Found and reduced with conform (case \
         {}).\n",
        md_code(&case.name)
    );
    o.push_str("## Builds\n\n| build | result |\n|---|---|\n");
    for r in input.results {
        let verdict = match r.status {
            Status::Pass => "passes".to_string(),
            Status::Skip => format!("skipped: {}", md_text(&r.message)),
            s => format!("**{}**: {}", s.name(), md_text(&one_line(&r.message))),
        };
        let _ = writeln!(o, "| {} | {verdict} |", build(&r.backend, input.identities));
    }
    if let Some(id) = input.identities.get(&first.backend) {
        o.push_str("\nDriver identity of the newest failing build:\n\n");
        let _ = writeln!(o, "- GL_VENDOR: {}", md_code(&id.vendor));
        let _ = writeln!(o, "- GL_RENDERER: {}", md_code(&id.renderer));
        let _ = writeln!(o, "- GL_VERSION: {}", md_code(&id.version));
        if !id.glsl_version.is_empty() {
            let _ = writeln!(
                o,
                "- GL_SHADING_LANGUAGE_VERSION: {}",
                md_code(&id.glsl_version)
            );
        }
        if !id.libraries.is_empty() {
            let _ = writeln!(
                o,
                "- libraries: {}",
                id.libraries
                    .iter()
                    .map(|l| md_code(library_name(l)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if let Some(side) = zink_side(first, input.results, input.identities) {
        let _ = writeln!(o, "\nWhere the bug is: {side}");
    }
    o.push_str("\n## Expected, by the specification\n\n");
    for c in input.clauses {
        for (from, text) in &c.quotes {
            let _ = writeln!(o, "{}:\n\n> {}\n", md_line(from), md_line(text));
        }
        match (c.summary.is_empty(), c.quotes.is_empty()) {
            (true, _) => {
                let _ = writeln!(o, "- {}", md_code(&c.id));
            }
            (false, true) => {
                let _ = writeln!(o, "> **{}** {}\n", md_text(&c.id), md_text(&c.summary));
            }
            (false, false) => {
                let _ = writeln!(
                    o,
                    "(conform's clause {}: {})\n",
                    md_text(&c.id),
                    md_text(&c.summary)
                );
            }
        }
    }
    o.push_str("\n## Actual\n\n");
    let _ = writeln!(
        o,
        "{}: {}\n",
        md_code(&first.backend),
        md_text(&one_line(&first.message))
    );
    if let Some(ev) = &first.evidence {
        for m in &ev.memory {
            if m.differs.is_empty() {
                continue;
            }
            let _ = writeln!(
                o,
                "Buffer {} ({}, {}):\n\n| element | expected | actual |\n|--:|---|---|",
                md_code(&m.name),
                md_text(&m.elem),
                md_text(&m.check)
            );
            for &i in m.differs.iter().take(16) {
                let k = (i - m.first) as usize;
                let exp = m.expected.get(k).cloned().flatten().unwrap_or_default();
                let act = m.actual.get(k).cloned().unwrap_or_default();
                let _ = writeln!(
                    o,
                    "| {i} | {} | {} |",
                    md_cell_code(&exp),
                    md_cell_code(&act)
                );
            }
            if m.differs.len() > 16 {
                let _ = writeln!(o, "\n({} more elements differ)", m.differs.len() - 16);
            }
            o.push('\n');
        }
    }
    let details: Vec<&str> = first
        .details
        .iter()
        .filter(|d| !d.trim().is_empty())
        .take(12)
        .map(String::as_str)
        .collect();
    if !details.is_empty() && first.status != Status::Fail {
        let _ = writeln!(o, "{}", md_code_block(&details.join("\n")));
    }
    o.push_str("## Program and inputs\n\n");
    for p in &case.plan.programs {
        let _ = writeln!(o, "{}", md_code_block(&p.text));
    }
    if let Some(ev) = &first.evidence {
        if !ev.uniforms.is_empty() {
            let _ = writeln!(
                o,
                "Uniforms: {}\n",
                ev.uniforms
                    .iter()
                    .map(|u| md_code(u))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !ev.steps.is_empty() {
            let _ = writeln!(
                o,
                "Steps: {}\n",
                ev.steps
                    .iter()
                    .map(|s| md_code(s))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
    }
    for b in &case.plan.buffers {
        let words: Vec<String> = b
            .bytes
            .chunks(4)
            .take(16)
            .map(|w| {
                let mut a = [0u8; 4];
                a[..w.len()].copy_from_slice(w);
                format!("0x{:08x}", u32::from_le_bytes(a))
            })
            .collect();
        let more = if b.bytes.len() > 64 { " …" } else { "" };
        let _ = writeln!(
            o,
            "- buffer {} (binding {}, {} bytes): {}{more}",
            md_code(&b.name),
            b.binding,
            b.bytes.len(),
            words.join(" ")
        );
    }
    o.push_str("\n## Reproduce\n\n");
    match &input.piglit {
        Ok(test) => {
            // The driver of the failing build, as GALLIUM_DRIVER names it (virgl's guest is
            // `virpipe`, and it needs a vtest server listening).
            let driver = first.backend.split('@').next().unwrap_or("llvmpipe");
            let (gallium, first_start) = match driver {
                "virgl" => (
                    "virpipe",
                    "; first start `virgl_test_server --use-egl-surfaceless`, to which the \
                     guest connects at `/tmp/.virgl_test`",
                ),
                other => (other, ""),
            };
            let _ = writeln!(
                o,
                "With piglit: save the test below as {} and run {} \
                 with `PIGLIT_PLATFORM=surfaceless_egl` (headless, no display; Mesa's software \
                 drivers: `LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER={gallium}`{first_start}).\n",
                md_code(&test.file),
                md_code(&test.command)
            );
            let _ = writeln!(
                o,
                "<details><summary>{}</summary>\n\n{}\n</details>\n",
                md_text(&test.file),
                md_code_block(&test.text)
            );
        }
        Err(why) => {
            let _ = writeln!(
                o,
                "No piglit test: piglit cannot state this case ({}).\n",
                md_text(why)
            );
        }
    }
    let (repro, elsewhere) = portable(&first.repro, input.identities);
    let _ = writeln!(
        o,
        "With conform (`cargo install --locked --path harness` in its repository): {}",
        md_code(&repro)
    );
    if elsewhere {
        let _ = writeln!(
            o,
            "\n(MESA_DIR: where that Mesa is installed; `bash .ci/deps mesa-debian SUITE \
             MESA_DIR` in conform's repository puts a Debian suite's Mesa there.)"
        );
    }
    Some(o)
}

fn one_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use conform_judge::results::{BufferDump, Evidence};
    use conform_judge::testing::result;
    use std::path::Path;

    fn case() -> Case {
        let text = "spec: [T-1]\ndescription: modf(-2.0) gives -0.0 as its fractional part. More text.\nprogram:\n  language: glsl\n  source: |\n    #version 450\n    layout(local_size_x = 1) in;\n    layout(std430, binding = 0) buffer F { float f[1]; };\n    void main() { float i; f[0] = modf(-2.0, i); }\nbuffers:\n  - {name: f, binding: 0, type: f32, data: [1.0]}\nsteps:\n  - dispatch: [1, 1, 1]\nexpect:\n  - {buffer: f, values: [-0.0]}\n";
        conform_case::parse(Path::new("/x/cases/glsl/modf.yaml"), text, None).unwrap()
    }

    #[test]
    fn a_report_names_the_driver_the_operation_the_rule_and_both_ways_to_reproduce() {
        let mut bad = result("glsl/modf", "llvmpipe@mesa-25", Status::Fail);
        bad.message = "buffer `f` (f32 elements 0..1, line 14): 1 of 1 elements differ".into();
        bad.repro = "conform run cases/glsl/modf.yaml --backend llvmpipe@/root/mesa-25".into();
        bad.evidence = Some(Evidence {
            memory: vec![BufferDump {
                name: "f".into(),
                elem: "f32".into(),
                first: 0,
                expected: vec![Some("-0.0".into())],
                actual: vec!["0.0".into()],
                total: 1,
                differs: vec![0],
                check: "elements 0..1: exact".into(),
            }],
            ..Evidence::default()
        });
        let results = vec![result("glsl/modf", "reference", Status::Pass), bad];
        let ids = BTreeMap::from([(
            "llvmpipe@mesa-25".to_string(),
            BackendIdentity::driver(
                "Mesa",
                "llvmpipe (LLVM 15.0.6, 256 bits)",
                "4.5 (Core Profile) Mesa 25.0.7-2~bpo12+1",
            ),
        )]);
        let clauses = [ClauseText {
            id: "T-1".to_string(),
            summary: "GLSL 4.60, Section 8.3: both parts have the sign of x".to_string(),
            quotes: Vec::new(),
        }];
        let input = BugReportInput {
            results: &results,
            identities: &ids,
            clauses: &clauses,
            piglit: Ok(PiglitTest {
                file: "modf.shader_test".into(),
                command: "shader_runner modf.shader_test -auto -fbo".into(),
                text: "[require]\nGLSL >= 4.50\n".into(),
            }),
            title: None,
        };
        let md = render(&case(), &input).unwrap();
        assert!(
            md.starts_with("# llvmpipe (Mesa 25.0.7-2\\~bpo12+1): wrong result: modf(-2.0) gives -0.0 as its fractional part\n"),
            "{md}"
        );
        assert!(
            md.contains("> **T-1** GLSL 4.60, Section 8.3: both parts have the sign of x"),
            "{md}"
        );
        assert!(md.contains("| 0 | `-0.0` | `0.0` |"), "{md}");
        assert!(md.contains("| `reference` | passes |"), "{md}");
        assert!(
            md.contains("- GL_VERSION: `4.5 (Core Profile) Mesa 25.0.7-2~bpo12+1`"),
            "{md}"
        );
        assert!(
            md.contains("shader_runner modf.shader_test -auto -fbo"),
            "{md}"
        );
        assert!(
            md.contains("`conform run cases/glsl/modf.yaml --backend llvmpipe@/root/mesa-25`"),
            "{md}"
        );
        assert!(md.contains("PIGLIT_PLATFORM=surfaceless_egl"), "{md}");
        assert!(
            md.contains("- buffer `f` (binding 0, 4 bytes): 0x3f800000"),
            "{md}"
        );
        assert_eq!(
            first_sentence("Found by `conform fuzz` (seed 5). A barrier in a loop. More."),
            "A barrier in a loop"
        );
        // A case that fails nowhere has nothing to report.
        let passing = vec![result("glsl/modf", "llvmpipe", Status::Pass)];
        let input = BugReportInput {
            results: &passing,
            ..input
        };
        assert!(render(&case(), &input).is_none());
    }

    /// A driver that builds a program the case expects to fail is named for what it does.
    #[test]
    fn an_invalid_program_that_builds_is_titled_as_accepted() {
        let text = "spec: [T-1]\ndescription: A shared variable may not have an initializer.\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    layout(local_size_x = 1) in;\n    shared uint s = 0u;\n    void main() {}\nfails: {at: compile}\n";
        let case = conform_case::parse(Path::new("/x/cases/glsl/init.yaml"), text, None).unwrap();
        let mut bad = result("glsl/init", "llvmpipe", Status::Fail);
        bad.message = conform_judge::built_unexpectedly(conform_plan::BuildStage::Compile);
        let results = vec![result("glsl/init", "reference", Status::Pass), bad];
        let ids = BTreeMap::new();
        let input = BugReportInput {
            results: &results,
            identities: &ids,
            clauses: &[],
            piglit: Err("none".into()),
            title: None,
        };
        let md = render(&case, &input).unwrap();
        assert!(
            md.starts_with("# llvmpipe: accepts an invalid program: A shared variable may not have an initializer.\n"),
            "{md}"
        );
        assert!(
            md.contains("No piglit test: piglit cannot state this case (none)."),
            "{md}"
        );
    }

    /// A report for upstream: the hand-checked title, the spec's own words with where they
    /// are from, no directory of this machine, and which side of zink the bug is on.
    #[test]
    fn a_report_quotes_the_spec_names_the_side_and_leaves_no_local_path() {
        let mut zink = result("glsl/modf", "zink@26.2.6", Status::Fail);
        zink.message = "buffer `f`: 1 of 1 elements differ".into();
        zink.repro = "conform run cases/glsl/modf.yaml --backend zink@/root/mesa-sid".into();
        let llvmpipe = result("glsl/modf", "llvmpipe@26.2.6", Status::Pass);
        let results = vec![
            result("glsl/modf", "reference", Status::Pass),
            zink,
            llvmpipe,
        ];
        let mut zid = BackendIdentity::driver(
            "Mesa",
            "zink Vulkan 1.4(llvmpipe (LLVM 22.1.8, 256 bits) (MESA_LLVMPIPE))",
            "4.6 (Core Profile) Mesa 26.2.6-1",
        );
        zid.install = Some("/root/mesa-sid".into());
        zid.libraries =
            vec!["/root/mesa-sid/usr/lib/x86_64-linux-gnu/libgallium-26.2.6-1.so".into()];
        let mut lid = BackendIdentity::driver(
            "Mesa",
            "llvmpipe (LLVM 22.1.8, 256 bits)",
            "4.6 (Core Profile) Mesa 26.2.6-1",
        );
        lid.install = Some("/root/mesa-sid".into());
        let ids = BTreeMap::from([
            ("zink@26.2.6".to_string(), zid),
            ("llvmpipe@26.2.6".to_string(), lid),
        ]);
        let clauses = [ClauseText {
            id: "T-1".into(),
            summary: "GLSL 4.60, Section 8.3: both parts have the sign of x".into(),
            quotes: vec![(
                "The OpenGL Shading Language, Version 4.60.9, Section 8.3".into(),
                "Both the return value and the output parameter will have the same sign as x."
                    .into(),
            )],
        }];
        let input = BugReportInput {
            results: &results,
            identities: &ids,
            clauses: &clauses,
            piglit: Err("none".into()),
            title: Some("modf(-2.0) returns +0.0"),
        };
        let md = render(&case(), &input).unwrap();
        assert!(
            md.starts_with("# zink (Mesa 26.2.6-1): modf(-2.0) returns +0.0\n"),
            "{md}"
        );
        assert!(
            md.contains("The OpenGL Shading Language, Version 4.60.9, Section 8.3:\n\n> Both the return value and the output parameter will have the same sign as x.\n"),
            "{md}"
        );
        assert!(md.contains("(conform's clause T-1: GLSL 4.60"), "{md}");
        assert!(!md.contains("/root"), "{md}");
        assert!(md.contains("--backend zink@MESA_DIR`"), "{md}");
        assert!(md.contains("`libgallium-26.2.6-1.so`"), "{md}");
        assert!(
            md.contains("Where the bug is: llvmpipe of the same Mesa (`llvmpipe@26.2.6`) passes: the bug is zink's"),
            "{md}"
        );
    }

    /// A case whose text tries to act in the tracker (quick actions, headings, rules, quotes,
    /// HTML, a closing fence, mass mentions) in its description, names, program, clause text
    /// and piglit test gives a report in which none of it starts a line: the report's
    /// headings, quotes and HTML are exactly its own.
    #[test]
    fn case_text_cannot_act_in_the_report() {
        let hostile = "/close\n/label ~bug\n# Owned\n---\n===\n***\n> quoted\n>>>\n<img src=x onerror=alert(1)>\n@all look\n1. item\n- item\n```\n/assign @someone\n   /unassign\n\r/reopen";
        let text = format!(
            "spec: [T-1]\nname: glsl/evil\ndescription: {}\nprogram:\n  language: glsl\n  source: |\n    #version 450\n    layout(local_size_x = 1) in;\n    layout(std430, binding = 0) buffer F {{ float f[1]; }};\n    /*\n    ```\n    /close\n    # Owned\n    </details>\n    @all\n    */\n    void main() {{ f[0] = 1.0; }}\nbuffers:\n  - {{name: f, binding: 0, type: f32, data: [1.0]}}\nsteps:\n  - dispatch: [1, 1, 1]\nexpect:\n  - {{buffer: f, values: [2.0]}}\n",
            serde_json::to_string(hostile).unwrap()
        );
        let case = conform_case::parse(Path::new("/x/cases/glsl/evil.yaml"), &text, None).unwrap();
        assert!(
            case.description.starts_with("/close\n/label"),
            "{:?}",
            case.description
        );
        let mut bad = result("glsl/evil", "llvmpipe", Status::Crash);
        bad.message = format!("crashed\n{hostile}");
        bad.details = vec![hostile.to_string(), "```".into(), "/close".into()];
        bad.evidence = Some(Evidence {
            memory: vec![BufferDump {
                name: "f|`x\n/close".into(),
                elem: "f32".into(),
                first: 0,
                expected: vec![Some("2.0|\n/close".into())],
                actual: vec!["1.0".into()],
                total: 1,
                differs: vec![0],
                check: "exact".into(),
            }],
            ..Evidence::default()
        });
        let results = vec![result("glsl/evil", "reference", Status::Pass), bad];
        let ids = BTreeMap::new();
        let clauses = [
            ClauseText {
                id: format!("T-1{hostile}"),
                summary: hostile.into(),
                quotes: vec![(hostile.into(), hostile.into())],
            },
            ClauseText {
                id: format!("T-2{hostile}"),
                summary: String::new(),
                quotes: Vec::new(),
            },
        ];
        let input = BugReportInput {
            results: &results,
            identities: &ids,
            clauses: &clauses,
            piglit: Ok(PiglitTest {
                file: "evil.shader_test".into(),
                command: "shader_runner evil.shader_test -auto -fbo".into(),
                text: format!("# {hostile}\n[test]\n{hostile}\n"),
            }),
            title: None,
        };
        let md = render(&case, &input).unwrap();
        // Lines as GitLab reads them (it drops `\r` before looking for quick actions;
        // Markdown ends a line at one).
        let lines: Vec<&str> = md.split(['\n', '\r']).collect();
        let headings: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.starts_with("    ") && l.trim_start().starts_with('#'))
            .collect();
        assert!(headings[0].starts_with("# llvmpipe: crashes: "), "{md}");
        assert_eq!(
            headings[1..],
            [
                "## Summary",
                "## Builds",
                "## Expected, by the specification",
                "## Actual",
                "## Program and inputs",
                "## Reproduce",
            ],
            "{md}"
        );
        for l in &lines {
            // Indented code (four spaces) is code; everything else starts with text of ours
            // or with an escape.
            if l.starts_with("    ") {
                continue;
            }
            let t = l.trim_start();
            assert!(!t.starts_with('/'), "a quick action: {l:?}\n{md}");
            assert!(!t.starts_with("```"), "a fence: {l:?}\n{md}");
            let rule = t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            assert!(
                !(rule.len() >= 3
                    && ["-", "*", "_", "="]
                        .iter()
                        .any(|m| rule.chars().all(|c| c.to_string() == *m))),
                "a rule or underline: {l:?}\n{md}"
            );
            if t.starts_with('<') {
                assert!(
                    t.starts_with("<details><summary>") || t == "</details>",
                    "HTML: {l:?}\n{md}"
                );
            }
            if t.starts_with('>') {
                assert!(
                    t.starts_with("> \\/close") || t.starts_with("> **"),
                    "a quote: {l:?}\n{md}"
                );
            }
            assert!(
                !t.starts_with(|c: char| c.is_ascii_digit())
                    || !t
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .starts_with('.'),
                "a list: {l:?}\n{md}"
            );
            assert!(!t.starts_with("- item"), "a list: {l:?}\n{md}");
        }
        // A mention only in code, where GitLab recognises none.
        for l in &lines {
            for m in ["@all", "@someone"] {
                if let Some(at) = l.find(m) {
                    assert!(
                        l.starts_with("    ") || l.find('`').is_some_and(|tick| tick < at),
                        "a mention: {l:?}\n{md}"
                    );
                }
            }
        }
        // The text is all still there, to read.
        assert!(
            md.contains("\\/close\n\\/label \\~bug\n\\# Owned\n"),
            "{md}"
        );
        assert!(md.contains("\n    /close\n"), "the program, as code: {md}");
    }
}
