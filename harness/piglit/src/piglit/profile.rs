//! A piglit test profile (`tests/<profile>.xml.gz` in a piglit build, as piglit's
//! `tests/serializer.py` writes it), read as deqp-runner 0.24's piglit-runner reads it: which
//! shader tests the profile runs, by piglit's name. `conform piglit-runner run` imports just
//! those, so a run covers what piglit-runner would (and no test it would not).
//!
//! Written by hand over quick-xml (already in the tree through quick-junit): the format is a
//! flat list of `<Test type=... name=...>` elements with `<option name=... value=.../>`
//! children, and meta profiles (`<Profile>name</Profile>`) naming other profiles.

use quick_xml::events::{BytesStart, Event};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes a profile may hold once decompressed (piglit's `all` profile is about
/// 30 MB of XML): a larger or endless stream is refused, not read into memory.
const MAX_PROFILE_BYTES: u64 = 256 << 20;

/// How deep meta profiles may name one another.
const MAX_META_DEPTH: usize = 8;

/// One shader test of a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileTest {
    /// piglit's name (`spec@arb_compute_shader@execution@basic-ssbo`).
    pub name: String,
    /// The `.shader_test` file, relative to the piglit folder (`tests/spec/...`).
    pub file: String,
}

/// A profile's shader tests, and how many of its tests are of other kinds (C programs,
/// parser tests: conform does not run them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    pub shader_tests: Vec<ProfileTest>,
    pub other_tests: usize,
}

/// The files piglit-runner tries for `profile` under `<folder>/tests`, in its order: the
/// `no_isolation` forms only without process isolation.
pub fn candidates(folder: &Path, profile: &str, isolation: bool) -> Vec<PathBuf> {
    let tests = folder.join("tests");
    let forms: &[(&str, bool)] = &[
        ("no_isolation.meta.xml", true),
        ("meta.xml", false),
        ("no_isolation.xml.gz", true),
        ("no_isolation.xml", true),
        ("xml.gz", false),
        ("xml", false),
    ];
    forms
        .iter()
        .filter(|(_, no_isolation)| !(isolation && *no_isolation))
        .map(|(ext, _)| tests.join(format!("{profile}.{ext}")))
        .collect()
}

/// Reads `profile` from a piglit folder as piglit-runner does (the first of [`candidates`]
/// that exists; a meta profile's profiles in turn).
pub fn read(folder: &Path, profile: &str, isolation: bool) -> Result<Profile, String> {
    let mut out = Profile::default();
    read_into(folder, profile, isolation, 0, &mut out)?;
    Ok(out)
}

fn read_into(
    folder: &Path,
    profile: &str,
    isolation: bool,
    depth: usize,
    out: &mut Profile,
) -> Result<(), String> {
    if depth > MAX_META_DEPTH {
        return Err(format!(
            "profile {profile}: meta profiles nested more than {MAX_META_DEPTH} deep"
        ));
    }
    if profile.is_empty() || profile.contains(['/', '\\']) || profile.starts_with('.') {
        return Err(format!(
            "`{profile}` is not a profile name (piglit's are file names under tests/)"
        ));
    }
    let tried = candidates(folder, profile, isolation);
    let Some(path) = tried.iter().find(|p| p.is_file()) else {
        let names: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        return Err(format!(
            "profile {profile} not found: none of {} exists (a piglit build writes them)",
            names.join(", ")
        ));
    };
    let text = read_text(path)?;
    let parsed = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    out.shader_tests.extend(parsed.shader_tests);
    out.other_tests += parsed.other_tests;
    for meta in parsed.profiles {
        read_into(folder, &meta, isolation, depth + 1, out)?;
    }
    Ok(())
}

/// A profile file's text, gunzipped when it ends in `.gz`, within [`MAX_PROFILE_BYTES`].
fn read_text(path: &Path) -> Result<String, String> {
    let shown = path.display();
    // Regular files only, opened without blocking (a FIFO).
    let (file, _) = conform_io::input::open_regular(path).map_err(|e| format!("{shown}: {e}"))?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_PROFILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: {e}"))?;
    if bytes.len() as u64 > MAX_PROFILE_BYTES {
        return Err(format!(
            "{shown}: more than {MAX_PROFILE_BYTES} bytes of XML; not a piglit profile"
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))
}

/// What one profile file holds.
#[derive(Debug, Default, PartialEq)]
struct Parsed {
    shader_tests: Vec<ProfileTest>,
    other_tests: usize,
    /// A meta profile's profiles.
    profiles: Vec<String>,
}

/// A test element being read: its type, name and options.
#[derive(Default)]
struct Element {
    kind: String,
    name: String,
    command: Option<String>,
    files: Option<String>,
}

fn attribute(e: &BytesStart, key: &[u8]) -> Result<Option<String>, String> {
    for a in e.attributes() {
        let a = a.map_err(|err| err.to_string())?;
        if a.key.as_ref() == key {
            return a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| Some(v.into_owned()))
                .map_err(|err| err.to_string());
        }
    }
    Ok(None)
}

/// Parses a profile's XML.
fn parse(text: &str) -> Result<Parsed, String> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut out = Parsed::default();
    let mut test: Option<Element> = None;
    let mut in_profile = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"Test" => {
                if let Some(t) = test.take() {
                    finish(t, &mut out);
                }
                test = Some(Element {
                    kind: attribute(&e, b"type")?.unwrap_or_default(),
                    name: attribute(&e, b"name")?.unwrap_or_default(),
                    ..Element::default()
                });
            }
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"option" => {
                if let Some(t) = test.as_mut() {
                    let value = attribute(&e, b"value")?;
                    match attribute(&e, b"name")?.as_deref() {
                        Some("command") => t.command = value,
                        Some("files") => t.files = value,
                        _ => {}
                    }
                }
            }
            Event::Start(e) if e.name().as_ref() == b"Profile" => in_profile = true,
            Event::Text(t) if in_profile => {
                let name = t.decode().map_err(|e| e.to_string())?;
                let name = name.trim();
                if !name.is_empty() {
                    out.profiles.push(name.to_string());
                }
            }
            Event::End(e) if e.name().as_ref() == b"Profile" => in_profile = false,
            Event::End(e) if e.name().as_ref() == b"Test" => {
                if let Some(t) = test.take() {
                    finish(t, &mut out);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(t) = test.take() {
        finish(t, &mut out);
    }
    Ok(out)
}

/// A python list's string items (`['shader_runner', 'tests/x.shader_test']`), as
/// piglit-runner reads them: brackets stripped, split at commas, quotes removed.
fn python_list(value: &str) -> Vec<String> {
    let inner = value.trim().trim_start_matches('[').trim_end_matches(']');
    inner
        .split(',')
        .map(|s| s.trim().trim_matches(['\'', '"']).to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn finish(t: Element, out: &mut Parsed) {
    match t.kind.as_str() {
        // shader_runner with one file: `['shader_runner', 'tests/spec/...shader_test']`.
        "shader" => {
            let file = t
                .command
                .as_deref()
                .map(python_list)
                .and_then(|args| args.into_iter().find(|a| a.ends_with(".shader_test")));
            match file {
                Some(file) => out.shader_tests.push(ProfileTest { name: t.name, file }),
                None => out.other_tests += 1,
            }
        }
        // A directory's shader tests in one process (profiles without isolation): each file
        // is run and named as under isolation.
        "multi_shader" => {
            let files = t.files.as_deref().map(python_list).unwrap_or_default();
            if files.is_empty() {
                out.other_tests += 1;
            }
            for file in files {
                let name = piglit_name(&file);
                out.shader_tests.push(ProfileTest { name, file });
            }
        }
        _ => out.other_tests += 1,
    }
}

/// piglit's name of a shader test file (`tests/spec/a/b/x.shader_test` →
/// `spec@a@b@x`): its groups joined with `@`, lower-cased.
pub fn piglit_name(file: &str) -> String {
    let rel = file.strip_prefix("tests/").unwrap_or(file);
    let stem = rel.strip_suffix(".shader_test").unwrap_or(rel);
    stem.replace(['/', '\\'], "@").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: &str = r#"<?xml version='1.0' encoding='utf-8'?>
<PiglitTestList count="4" name="quick_shader">
  <Test type="shader" name="spec@arb_compute_shader@execution@basic-ssbo">
    <option name="command" value="['shader_runner', 'tests/spec/arb_compute_shader/execution/basic-ssbo.shader_test']" />
    <option name="run_concurrent" value="True" />
  </Test>
  <Test type="gl" name="spec@!opengl 3.0@clearbuffer-depth-cs-probe">
    <option name="command" value="['clearbuffer-depth-cs-probe']" />
  </Test>
  <Test type="glsl_parser" name="spec@glsl-4.30@compiler@x.comp">
    <option name="command" value="['glslparsertest', 'tests/spec/x.comp', 'pass']" />
  </Test>
  <Test type="shader" name="spec@a@b@Mixed">
    <option name="command" value="['shader_runner', 'tests/spec/a/b/Mixed.shader_test']" />
  </Test>
</PiglitTestList>
"#;

    #[test]
    fn shader_tests_are_listed_and_the_rest_counted() {
        let p = parse(PROFILE).unwrap();
        assert_eq!(
            p.shader_tests,
            [
                ProfileTest {
                    name: "spec@arb_compute_shader@execution@basic-ssbo".into(),
                    file: "tests/spec/arb_compute_shader/execution/basic-ssbo.shader_test".into(),
                },
                ProfileTest {
                    name: "spec@a@b@Mixed".into(),
                    file: "tests/spec/a/b/Mixed.shader_test".into(),
                },
            ]
        );
        assert_eq!(p.other_tests, 2);
        assert_eq!(
            piglit_name("tests/spec/a/b/Mixed.shader_test"),
            "spec@a@b@mixed"
        );
    }

    #[test]
    fn a_gzipped_meta_profile_is_read_as_piglit_runner_reads_it() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let tests = dir.path().join("tests");
        std::fs::create_dir_all(&tests).unwrap();
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(tests.join("quick_shader.xml.gz")).unwrap(),
            flate2::Compression::default(),
        );
        gz.write_all(PROFILE.as_bytes()).unwrap();
        gz.finish().unwrap();
        std::fs::write(
            tests.join("quick.meta.xml"),
            "<PiglitMetaProfile><Profile>quick_shader</Profile></PiglitMetaProfile>",
        )
        .unwrap();
        let p = read(dir.path(), "quick", true).unwrap();
        assert_eq!((p.shader_tests.len(), p.other_tests), (2, 2));
        let e = read(dir.path(), "quick_gl", true).unwrap_err();
        assert!(e.contains("profile quick_gl not found"), "{e}");
        assert!(read(dir.path(), "../x", true).is_err());
        // A meta profile naming itself ends, with an error.
        std::fs::write(
            tests.join("loop.meta.xml"),
            "<PiglitMetaProfile><Profile>loop</Profile></PiglitMetaProfile>",
        )
        .unwrap();
        assert!(read(dir.path(), "loop", true)
            .unwrap_err()
            .contains("nested"));
        // Without isolation, the no_isolation form comes first.
        assert!(candidates(dir.path(), "quick", false)[0].ends_with("quick.no_isolation.meta.xml"));
        assert!(candidates(dir.path(), "quick", true)[0].ends_with("quick.meta.xml"));
    }
}
