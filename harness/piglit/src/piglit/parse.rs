//! One `.shader_test` file's text → a typed [`ShaderTest`]: its sections split the way
//! shader_runner's `process_test_script` splits them, the `[require]` lines read the way its
//! `process_requirement`/`parse_required_config` read them, and the `[test]` lines typed by
//! [`super::command`].
//!
//! Parsing only types what the file says; deciding what conform can express is
//! [`super::convert`]'s job. A file shader_runner would reject while reading it (an unknown
//! section, a malformed version line, a bad specialization) is an [`ParseError`] here.

use super::command::{self, Command, Op};
use super::scan::{self, parse_str, parse_word};

/// A problem that makes the file malformed for shader_runner (it reports FAIL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the file (0: the whole file).
    pub line: usize,
    pub message: String,
}

impl ParseError {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        ParseError {
            line,
            message: message.into(),
        }
    }
}

/// The shader stage of a shader section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Vertex,
    TessControl,
    TessEvaluation,
    Geometry,
    Fragment,
    Compute,
}

impl Stage {
    /// conform's `stage:` name.
    pub fn conform_name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::TessControl => "tesscontrol",
            Stage::TessEvaluation => "tessevaluation",
            Stage::Geometry => "geometry",
            Stage::Fragment => "fragment",
            Stage::Compute => "compute",
        }
    }
}

/// What a section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionKind {
    Require,
    /// `[X shader]`: GLSL.
    Glsl(Stage),
    /// `[X shader spirv]`: SPIR-V assembly.
    Spirv(Stage),
    /// `[X shader specializations]`.
    Specializations(Stage),
    /// `[vertex shader passthrough]`: shader_runner's built-in vertex shader.
    VertexPassthrough,
    /// `[vertex program]` / `[fragment program]`: ARB assembly.
    ArbProgram,
    GeometryLayout,
    VertexData,
    ShaderInclude,
    ShaderIncludePaths,
    Test,
}

/// Section headers in the order shader_runner tries them (each a prefix of the line).
const HEADERS: &[(&str, SectionKind)] = {
    use SectionKind::*;
    use Stage::*;
    &[
        ("[require]", Require),
        ("[vertex shader]", Glsl(Vertex)),
        ("[vertex program]", ArbProgram),
        ("[vertex shader passthrough]", VertexPassthrough),
        ("[vertex shader spirv]", Spirv(Vertex)),
        ("[vertex shader specializations]", Specializations(Vertex)),
        ("[tessellation control shader]", Glsl(TessControl)),
        ("[tessellation control shader spirv]", Spirv(TessControl)),
        (
            "[tessellation control shader specializations]",
            Specializations(TessControl),
        ),
        ("[tessellation evaluation shader]", Glsl(TessEvaluation)),
        (
            "[tessellation evaluation shader spirv]",
            Spirv(TessEvaluation),
        ),
        (
            "[tessellation evaluation shader specializations]",
            Specializations(TessEvaluation),
        ),
        ("[geometry shader]", Glsl(Geometry)),
        (
            "[geometry shader specializations]",
            Specializations(Geometry),
        ),
        ("[geometry shader spirv]", Spirv(Geometry)),
        ("[geometry layout]", GeometryLayout),
        ("[fragment shader]", Glsl(Fragment)),
        ("[fragment program]", ArbProgram),
        (
            "[fragment shader specializations]",
            Specializations(Fragment),
        ),
        ("[fragment shader spirv]", Spirv(Fragment)),
        ("[compute shader]", Glsl(Compute)),
        ("[compute shader spirv]", Spirv(Compute)),
        ("[compute shader specializations]", Specializations(Compute)),
        ("[vertex data]", VertexData),
        ("[shader include]", ShaderInclude),
        ("[shader include paths]", ShaderIncludePaths),
        ("[test]", Test),
    ]
};

/// A section of the file before `[test]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub kind: SectionKind,
    /// The header as written (up to its `]`), for messages: `[compute shader]`.
    pub header: String,
    /// Line of the header.
    pub line: usize,
    /// The text after the header line up to the next header (shader_runner hands exactly
    /// this to the compiler).
    pub text: String,
    /// Whether `#version ` occurs anywhere from this section's text to the end of the file:
    /// shader_runner looks with `strstr` on its unterminated text, so a later section's
    /// `#version` counts too.
    pub version_from_here: bool,
}

/// A GL/GLSL profile named in a version requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Core,
    Compat,
}

/// Whether `SPIRV` appeared in `[require]`, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpirvMode {
    /// `SPIRV YES`: the test runs from SPIR-V by default and from GLSL with `-glsl`.
    Yes,
    /// `SPIRV ONLY`: SPIR-V only (`-glsl` skips it).
    Only,
}

/// One `[require]` line, typed.
#[derive(Clone, Debug, PartialEq)]
pub enum Requirement {
    /// `GL [CORE|COMPAT] [ES] OP X.Y`; `num` is major*10+minor, as shader_runner keeps it.
    Gl {
        profile: Option<Profile>,
        es: bool,
        op: Op,
        num: u32,
    },
    /// `GLSL [ES] OP X.YY`; `num` is major*100+minor.
    Glsl {
        es: bool,
        op: Op,
        num: u32,
    },
    /// `GL_X`: the extension must be supported.
    Extension(String),
    /// `!GL_X`: the extension must not be supported.
    NotExtension(String),
    /// `INT GL_X OP N`, or one of shader_runner's six named limits (`GL_MAX_VARYING_COMPONENTS
    /// OP N`); `name` keeps its `GL_` prefix.
    Limit {
        name: String,
        op: Op,
        value: i64,
    },
    Spirv(SpirvMode),
    /// `SSO ENABLED`
    Sso,
    /// `SEPARABLE PROGRAM ENABLED`
    SeparableProgram,
    /// `rlimit N`
    Rlimit(u64),
    /// `SIZE W H`: the window size.
    WindowSize,
    /// `depthbuffer`: ask for a depth buffer.
    DepthBuffer,
    /// A line shader_runner ignores and conform cannot vouch for.
    Other(String),
}

/// A line of the file, with its 1-based number and its text (without the newline).
#[derive(Clone, Debug, PartialEq)]
pub struct Line<T> {
    pub line: usize,
    pub text: String,
    pub item: T,
}

/// One `.shader_test` file, typed.
#[derive(Clone, Debug, PartialEq)]
pub struct ShaderTest {
    /// Comment lines before the first section (the test's own description).
    pub header_comments: Vec<String>,
    pub requirements: Vec<Line<Requirement>>,
    /// Sections before `[test]` other than `[require]`, in file order.
    pub sections: Vec<Section>,
    /// Whether the file has a `[test]` section.
    pub has_test: bool,
    /// The `[test]` lines that are not blank or comments.
    pub commands: Vec<Line<Command>>,
}

impl ShaderTest {
    /// Whether the file has a compute shader section (GLSL or SPIR-V): what makes it a test
    /// the importer handles.
    pub fn is_compute(&self) -> bool {
        self.sections.iter().any(|s| {
            matches!(
                s.kind,
                SectionKind::Glsl(Stage::Compute) | SectionKind::Spirv(Stage::Compute)
            )
        })
    }

    /// The `SPIRV` mode named in `[require]` (the last one wins, as in shader_runner).
    pub fn spirv_mode(&self) -> Option<SpirvMode> {
        self.requirements.iter().rev().find_map(|r| match r.item {
            Requirement::Spirv(m) => Some(m),
            _ => None,
        })
    }
}

/// Splits text into lines the way shader_runner walks them (`\n`-terminated; a `\r` before
/// the `\n` is dropped, since C's whitespace rules treat it as trailing space everywhere
/// shader_runner looks).
/// Yields (line number, byte offset just after the line's newline, line).
fn lines(text: &str) -> impl Iterator<Item = (usize, usize, &str)> + '_ {
    let mut offset = 0;
    text.split_inclusive('\n').enumerate().map(move |(i, raw)| {
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        (i + 1, offset, line)
    })
}

/// Quick test whether `text` has a compute shader section, without parsing the rest: lets
/// a walk over thousands of files pass over the others cheaply and quietly.
pub fn mentions_compute_section(text: &str) -> bool {
    lines(text).any(|(_, _, l)| {
        l.starts_with("[compute shader]") || l.starts_with("[compute shader spirv]")
    })
}

/// Parses one file.
pub fn parse(text: &str) -> Result<ShaderTest, Vec<ParseError>> {
    let mut test = ShaderTest {
        header_comments: Vec::new(),
        requirements: Vec::new(),
        sections: Vec::new(),
        has_test: false,
        commands: Vec::new(),
    };
    let mut errors = Vec::new();
    let mut seen_require = false;
    // The open section: its kind, header, header line and body lines.
    let mut open: Option<(SectionKind, String, usize, usize, Vec<&str>)> = None;
    let mut in_test = false;
    for (n, next_line_start, line) in lines(text) {
        if in_test {
            let trimmed = scan::skip_space(line);
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            match command::parse(trimmed) {
                Ok(item) => test.commands.push(Line {
                    line: n,
                    text: trimmed.to_string(),
                    item,
                }),
                Err(message) => errors.push(ParseError::new(n, message)),
            }
            continue;
        }
        if line.starts_with('[') {
            if let Some(section) = open.take() {
                close_section(&mut test, section, text);
            }
            let Some((header, kind)) = HEADERS.iter().find(|(h, _)| line.starts_with(h)) else {
                errors.push(ParseError::new(
                    n,
                    format!("unknown section `{line}` (shader_runner fails the test)"),
                ));
                continue;
            };
            match kind {
                SectionKind::Test => {
                    test.has_test = true;
                    in_test = true;
                }
                SectionKind::Require => seen_require = true,
                _ => {}
            }
            open = Some((*kind, header.to_string(), n, next_line_start, Vec::new()));
            continue;
        }
        match &mut open {
            None => {
                if let Some(c) = line.strip_prefix('#') {
                    test.header_comments.push(c.trim().to_string());
                }
            }
            Some((SectionKind::Require, ..)) => match requirement(line) {
                Ok(Some(r)) => test.requirements.push(Line {
                    line: n,
                    text: line.trim().to_string(),
                    item: r,
                }),
                Ok(None) => {}
                Err(message) => errors.push(ParseError::new(n, message)),
            },
            Some((SectionKind::Specializations(_), ..)) => {
                if let Err(message) = specialization(line) {
                    errors.push(ParseError::new(n, message));
                }
                if let Some((.., body)) = &mut open {
                    body.push(line);
                }
            }
            Some((.., body)) => body.push(line),
        }
    }
    if let Some(section) = open.take() {
        close_section(&mut test, section, text);
    }
    if !seen_require {
        errors.push(ParseError::new(
            0,
            "no [require] section (shader_runner fails the test)",
        ));
    }
    check_glsl_es_needs_gl(&test, &mut errors);
    if errors.is_empty() {
        Ok(test)
    } else {
        Err(errors)
    }
}

fn close_section(
    test: &mut ShaderTest,
    (kind, header, line, body_start, body): (SectionKind, String, usize, usize, Vec<&str>),
    text: &str,
) {
    if matches!(kind, SectionKind::Require | SectionKind::Test) {
        return;
    }
    let mut body_text = body.join("\n");
    if !body.is_empty() {
        body_text.push('\n');
    }
    let version_from_here = text
        .get(body_start.min(text.len())..)
        .is_some_and(|rest| rest.contains("#version "));
    test.sections.push(Section {
        kind,
        header,
        line,
        text: body_text,
        version_from_here,
    });
}

/// `parse_required_config` fails a test whose GLSL requirement is ES without a GL one.
fn check_glsl_es_needs_gl(test: &ShaderTest, errors: &mut Vec<ParseError>) {
    let gl = test.requirements.iter().any(
        |r| matches!(r.item, Requirement::Gl { op, .. } if matches!(op, Op::Ge | Op::Gt | Op::Eq)),
    );
    let glsl_es = test
        .requirements
        .iter()
        .rev()
        .find(|r| matches!(r.item, Requirement::Glsl { op: Op::Ge, .. }));
    if let Some(r) = glsl_es {
        if matches!(r.item, Requirement::Glsl { es: true, .. }) && !gl {
            errors.push(ParseError::new(
                r.line,
                "a GLSL ES requirement without a GL requirement (shader_runner fails the test)",
            ));
        }
    }
}

/// shader_runner's six limits read without `INT` (its `getint_limits` table).
pub(crate) const NAMED_LIMITS: &[&str] = &[
    "GL_MAX_VERTEX_OUTPUT_COMPONENTS",
    "GL_MAX_FRAGMENT_UNIFORM_COMPONENTS",
    "GL_MAX_VERTEX_UNIFORM_COMPONENTS",
    "GL_MAX_VERTEX_ATTRIBS",
    "GL_MAX_VARYING_COMPONENTS",
    "GL_NUM_PROGRAM_BINARY_FORMATS",
];

/// One `[require]` line, in `process_requirement`'s order. Ok(None) for blank lines and
/// comments.
fn requirement(line: &str) -> Result<Option<Requirement>, String> {
    let t = scan::skip_space(line);
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    if let Some(rest) = parse_str(line, "INT ") {
        let (name, rest) = parse_word(rest).ok_or("INT requirement without a GL enum")?;
        let (op, rest) = command::comparison(rest)
            .ok_or_else(|| format!("invalid comparison in `{}`", line.trim()))?;
        let value = scan::parse_ints(rest, 1);
        let Some(&value) = value.first() else {
            return Err(format!("invalid comparison value in `{}`", line.trim()));
        };
        return Ok(Some(Requirement::Limit {
            name: name.to_string(),
            op,
            value: value as i64,
        }));
    }
    for name in NAMED_LIMITS {
        if let Some(rest) = parse_str(line, name) {
            let (op, rest) = command::comparison(rest)
                .ok_or_else(|| format!("invalid comparison in `{}`", line.trim()))?;
            // atoi: a leading decimal number, 0 when there is none.
            let value = scan::strtol(rest, 10).map_or(0, |(v, _)| v as i32);
            return Ok(Some(Requirement::Limit {
                name: name.to_string(),
                op,
                value: value as i64,
            }));
        }
    }
    if parse_str(line, "GL_").is_some() {
        let (word, _) = parse_word(line).unwrap_or_default();
        return Ok(Some(Requirement::Extension(word.to_string())));
    }
    if let Some(rest) = parse_str(line, "!") {
        if parse_str(rest, "GL_").is_some() {
            let (word, _) = parse_word(rest).unwrap_or_default();
            return Ok(Some(Requirement::NotExtension(word.to_string())));
        }
    }
    if let Some(rest) = parse_str(line, "GLSL") {
        let (_, es, op, major, minor) = version(rest)?;
        if op != Op::Ge {
            return Err(format!(
                "`{}`: shader_runner accepts only >= for GLSL versions",
                line.trim()
            ));
        }
        return Ok(Some(Requirement::Glsl {
            es,
            op,
            num: major.wrapping_mul(100).wrapping_add(minor),
        }));
    }
    if let Some(rest) = parse_str(line, "GL") {
        let (profile, es, op, major, minor) = version(rest)?;
        return Ok(Some(Requirement::Gl {
            profile,
            es,
            op,
            num: major.wrapping_mul(10).wrapping_add(minor),
        }));
    }
    if let Some(rest) = parse_str(line, "rlimit") {
        let v = scan::parse_uints(rest, 1);
        let Some(&v) = v.first() else {
            return Err(format!("invalid rlimit argument in `{}`", line.trim()));
        };
        return Ok(Some(Requirement::Rlimit(v as u64)));
    }
    if parse_str(line, "SSO").is_some_and(|r| parse_str(r, "ENABLED").is_some()) {
        return Ok(Some(Requirement::Sso));
    }
    if parse_str(line, "SEPARABLE PROGRAM").is_some_and(|r| parse_str(r, "ENABLED").is_some()) {
        return Ok(Some(Requirement::SeparableProgram));
    }
    if let Some(rest) = parse_str(line, "SPIRV") {
        if parse_str(rest, "ONLY").is_some() {
            return Ok(Some(Requirement::Spirv(SpirvMode::Only)));
        }
        if parse_str(rest, "YES").is_some() {
            return Ok(Some(Requirement::Spirv(SpirvMode::Yes)));
        }
        return Err(format!("unknown SPIRV line `{}`", line.trim()));
    }
    // parse_required_config's own keys: shader_runner's process_requirement ignores them.
    if parse_str(line, "SIZE").is_some() {
        return Ok(Some(Requirement::WindowSize));
    }
    if parse_str(line, "depthbuffer").is_some() {
        return Ok(Some(Requirement::DepthBuffer));
    }
    Ok(Some(Requirement::Other(line.trim().to_string())))
}

/// `parse_version_comparison`: `[CORE] [COMPAT] [ES] OP MAJOR.MINOR` and nothing after.
fn version(s: &str) -> Result<(Option<Profile>, bool, Op, u32, u32), String> {
    let mut s = s;
    let mut profile = None;
    if let Some(r) = parse_str(s, "CORE") {
        profile = Some(Profile::Core);
        s = r;
    }
    if let Some(r) = parse_str(s, "COMPAT") {
        profile = Some(Profile::Compat);
        s = r;
    }
    let mut es = false;
    if let Some(r) = parse_str(s, "ES") {
        es = true;
        s = r;
    }
    let (op, s) = command::comparison(s)
        .ok_or_else(|| format!("invalid comparison operation at `{}`", s.trim()))?;
    let bad = || format!("invalid version string `{}`", s.trim());
    let (major, s) = scan::strtoul(s, 0).ok_or_else(bad)?;
    let s = parse_str(s, ".").ok_or_else(bad)?;
    let (minor, s) = scan::strtoul(s, 0).ok_or_else(bad)?;
    if !scan::skip_space(s).is_empty() {
        return Err(format!(
            "unexpected characters `{}` after the version",
            s.trim()
        ));
    }
    Ok((profile, es, op, major as u32, minor as u32))
}

/// A specialization entry: (SpecId, 32-bit value).
pub type Specialization = (u32, u32);

/// One `[X shader specializations]` line (`uint ID VALUE` / `float ID VALUE`); Ok(None) for
/// blank lines and comments.
pub fn specialization(line: &str) -> Result<Option<Specialization>, String> {
    let t = scan::skip_space(line);
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let invalid = || format!("invalid specialization line `{}`", line.trim());
    let (is_float, rest) = if let Some(r) = parse_str(t, "uint") {
        (false, r)
    } else if let Some(r) = parse_str(t, "float") {
        (true, r)
    } else {
        return Err(invalid());
    };
    let (id, rest) = scan::strtoul(rest, 0).ok_or_else(invalid)?;
    let value = if is_float {
        *scan::parse_floats(rest, 1).first().ok_or_else(invalid)?
    } else {
        f32::from_bits(*scan::parse_uints(rest, 1).first().ok_or_else(invalid)?)
    };
    Ok(Some((id as u32, value.to_bits())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(line: &str) -> Requirement {
        requirement(line).unwrap().unwrap()
    }

    #[test]
    fn requirements_are_read_like_process_requirement() {
        assert_eq!(
            req("GL >= 4.3"),
            Requirement::Gl {
                profile: None,
                es: false,
                op: Op::Ge,
                num: 43
            }
        );
        assert_eq!(
            req("GL CORE >= 3.3"),
            Requirement::Gl {
                profile: Some(Profile::Core),
                es: false,
                op: Op::Ge,
                num: 33
            }
        );
        assert_eq!(
            req("GL ES >= 3.1"),
            Requirement::Gl {
                profile: None,
                es: true,
                op: Op::Ge,
                num: 31
            }
        );
        assert_eq!(
            req("GLSL ES >= 3.10"),
            Requirement::Glsl {
                es: true,
                op: Op::Ge,
                num: 310
            }
        );
        assert_eq!(
            req("GLSL >= 4.30"),
            Requirement::Glsl {
                es: false,
                op: Op::Ge,
                num: 430
            }
        );
        assert_eq!(
            req("GL_ARB_compute_shader"),
            Requirement::Extension("GL_ARB_compute_shader".into())
        );
        assert_eq!(
            req("!GL_ARB_foo"),
            Requirement::NotExtension("GL_ARB_foo".into())
        );
        assert_eq!(
            req("INT GL_MAX_COMPUTE_SHARED_MEMORY_SIZE >= 0x8000"),
            Requirement::Limit {
                name: "GL_MAX_COMPUTE_SHARED_MEMORY_SIZE".into(),
                op: Op::Ge,
                value: 32768
            }
        );
        assert_eq!(
            req("GL_MAX_VARYING_COMPONENTS > 32"),
            Requirement::Limit {
                name: "GL_MAX_VARYING_COMPONENTS".into(),
                op: Op::Gt,
                value: 32
            }
        );
        assert_eq!(req("SPIRV YES"), Requirement::Spirv(SpirvMode::Yes));
        assert_eq!(req("SPIRV ONLY"), Requirement::Spirv(SpirvMode::Only));
        assert_eq!(req("SSO ENABLED"), Requirement::Sso);
        assert_eq!(
            req("SEPARABLE PROGRAM ENABLED"),
            Requirement::SeparableProgram
        );
        assert_eq!(req("rlimit 1000"), Requirement::Rlimit(1000));
        assert_eq!(req("SIZE 64 64"), Requirement::WindowSize);
        assert_eq!(req("depthbuffer"), Requirement::DepthBuffer);
        assert_eq!(req("fancy"), Requirement::Other("fancy".into()));
        assert_eq!(requirement("  # a comment").unwrap(), None);
        assert!(requirement("GLSL < 4.30").is_err());
        assert!(requirement("GL >= 4.3 please").is_err());
        assert!(requirement("GL >= four").is_err());
        assert!(requirement("SPIRV MAYBE").is_err());
    }

    #[test]
    fn sections_split_like_process_test_script() {
        let text = "# about the test\n[require]\nGLSL >= 4.30\n\n[compute shader]\nvoid main() {}\n\n[compute shader specializations]\nuint 1 0x10\nfloat 2 1.0\n[test]\n  compute 1 1 1\n# a comment\n\n[not a section]\n";
        let t = parse(text).unwrap();
        assert_eq!(t.header_comments, ["about the test"]);
        assert_eq!(t.sections.len(), 2);
        assert_eq!(t.sections[0].kind, SectionKind::Glsl(Stage::Compute));
        assert_eq!(t.sections[0].line, 5);
        assert_eq!(t.sections[0].text, "void main() {}\n\n");
        assert!(!t.sections[0].version_from_here);
        assert_eq!(t.commands.len(), 2);
        assert_eq!(t.commands[0].line, 12);
        assert_eq!(t.commands[0].text, "compute 1 1 1");
        assert_eq!(t.commands[1].item, Command::Unknown);
        assert_eq!(specialization("float 2 1.0"), Ok(Some((2, 0x3f80_0000))));
        assert_eq!(specialization("uint 1 0x10"), Ok(Some((1, 16))));
        assert!(t.is_compute());
    }

    #[test]
    fn version_search_runs_to_the_end_of_the_file() {
        let text = "[require]\nGLSL >= 4.30\n[compute shader]\nvoid main() {}\n[fragment shader]\n#version 430\n";
        let t = parse(text).unwrap();
        assert!(t.sections[0].version_from_here);
    }

    #[test]
    fn malformed_files_say_where() {
        let errors = parse(
            "[require]\nGL >= x\n[compute shader]\n[bogus]\n[test]\nprobe ssbo int 0 0 ~ 1\n",
        )
        .unwrap_err();
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [2, 4, 6]);
        let errors = parse("[compute shader]\nvoid main() {}\n").unwrap_err();
        assert_eq!(errors[0].line, 0);
        let errors = parse("[require]\nGLSL ES >= 3.10\n[compute shader]\n").unwrap_err();
        assert_eq!(errors[0].line, 2);
        let errors = parse("[require]\n[compute shader specializations]\nint 1 2\n").unwrap_err();
        assert_eq!(errors[0].line, 3);
    }
}
