//! `conform export piglit`: a case as a piglit `.shader_test` that shader_runner runs
//! unchanged, the inverse of the importer beside it.
//!
//! What the file holds: a `#` header naming the case, its clauses and the spec text they
//! cite; `[require]` from the case's requirements; the program as `[compute shader]` (GLSL)
//! or `[compute shader spirv]` (SPIR-V assembly, with `SPIRV ONLY`); and `[test]`: the
//! buffers (`ssbo B SIZE` and `ssbo B subdata` words, `atomic counter buffer` and `atomic
//! counter` values), uniforms, the steps (`compute`, `compute group size`, `memory barrier`,
//! buffer writes) and a probe for every checked element (`probe ssbo`, `probe atomic counter
//! buffer`), each at the point of the run where the case checks it.
//!
//! Checks are stated exactly or not at all: an exact float is probed as its bits (`probe ssbo
//! uint ... == 0x3fc00000`, with the value in a comment), since shader_runner's float `==` has
//! a tolerance and treats -0.0 as 0.0; comparisons keep their operator; a float check within
//! a tolerance is the judge's own interval as two ordered probes (`>=` its lowest accepted
//! value, `<=` its highest: [`probe_within`]). What piglit cannot
//! state refuses the whole case by name ([`Refusal`]): NV assembly, more than one program,
//! SPIR-V given as binary words, multisets, one-of alternatives and litmus outcome sets
//! (schedule-dependent results), expectations taken from the reference, cases about
//! undefined behaviour (every check undefined), build failures other than at link, GL errors expected of a step,
//! queries and API actions, and buffers of other kinds than storage and atomic counters.
//! What it can state only in part (8- and 16-bit elements, a tolerance on an integer,
//! elements marked undefined, an expected NaN) is left out, and the file says so in its header
//! ([`Exported::left_out`]).
//!
//! Case text never becomes structure in the file: each piece is escaped or refused by the
//! rules of the place it lands (comments, one-word names, program text, a glslparsertest
//! header), stated at [`Word`]; a refusal names the case and what is wrong.

#[cfg(test)]
mod tests;

use conform_case::{Case, Check, Expectation};
use conform_plan::{
    BarrierBit, BufferKind, ElemType, GlError, Language, Scalar, Stage, Step, UniformTarget,
    UniformType,
};
use std::fmt::Write;

/// A case as a shader_test.
#[derive(Clone, Debug, PartialEq)]
pub struct Exported {
    /// The file's path below the output directory: the case name with `.shader_test`.
    pub file: String,
    pub text: String,
    /// The checks piglit cannot state, left out (also in the file's header).
    pub left_out: Vec<String>,
    /// For a glslparsertest file, the arguments after its path (`fail 4.30
    /// GL_ARB_compute_shader`, as all.py passes them from the config); `None` for a
    /// shader_test.
    pub glslparsertest_args: Option<String>,
}

impl Exported {
    /// The piglit command that runs the file saved as `path`.
    pub fn command(&self, path: &str) -> String {
        match &self.glslparsertest_args {
            Some(args) => format!("glslparsertest {path} {args}"),
            None => format!("shader_runner {path} -auto -fbo"),
        }
    }
}

/// Why a case cannot be exported at all.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal(why.into()))
}

/// Case text in an exported file. A case may come from an untrusted merge request, and what
/// it writes must not become structure in the file piglit reads: each piece of case text
/// goes through one of these, by where it lands, and is escaped or refused (the refusal
/// names the case and what is wrong), never written as it is. The rules, by field:
///
/// - Free text in a comment (the description, the clause text, what was left out, which
///   holds buffer names and log patterns): [`comment_text`]. Split at every character some
///   reader of the file takes for a line break (shader_runner and conform's importer split at
///   `\n`; piglit's Python framework reads with universal newlines, `\r` too; the Unicode
///   separators), each piece its own comment line, every other control, bidi or separator
///   character shown as an escape (`conform_io::escape::line`). So nothing in it can end its
///   comment line and start a section (`[test]`) or a config line.
/// - Names that stand as one word of a line ([`Word`], through [`word`]): a uniform name is a
///   GLSL name (`a`, `a[2]`, `s.f`: letters, digits, `_`, `[`, `]`, `.`, starting with a
///   letter or `_`; shader_runner reads a leading digit as a location); an extension is
///   `GL_` and letters, digits, `_` (not `GL_MAX_`/`GL_NUM_`, which piglit reads as limits);
///   a limit is letters, digits, `_`; a GL or GL ES version is `N.M`; a clause id or the case
///   name, which stand in comments, holds no control, bidi, separator or invisible character
///   (and the name, the file's path, no `..`, `.` or empty component and no leading `/`).
///   Anything else is refused: a space or a line break in a name would be a second word or a
///   second line.
/// - Program text ([`program_text`]): no NUL (shader_runner's and glslparsertest's readers
///   stop there, so the rest of the file would be lost) and, in a shader_test, no line whose
///   first character after white space is `[` (shader_runner starts a section at a line
///   whose first character is `[`; other readers trim first). Such a line is a comment, a
///   string or a continued expression; rewriting it would change the program, so the case
///   is refused.
/// - The header comment of a glslparsertest file ([`comp_header`]): besides the above, no
///   `*/` (it would end the comment early and make the rest program text), and no `[config]`
///   or `[end config]` in it or in the program (a second expectation block), refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    Uniform,
    Extension,
    Limit,
    Version,
    /// A clause id or the case name: comment text that must stay on one line.
    Name,
}

impl Word {
    /// What the field must be, for a refusal.
    fn rule(self) -> &'static str {
        match self {
            Word::Uniform => "a GLSL uniform name (letters, digits, `_`, `[N]`, `.field`)",
            Word::Extension => "a GL extension name (`GL_` and letters, digits, `_`)",
            Word::Limit => "a GL limit name (letters, digits, `_`)",
            Word::Version => "a version `N.M`",
            Word::Name => "text on one line (no control, bidi, separator or invisible character)",
        }
    }

    fn accepts(self, s: &str) -> bool {
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        match self {
            Word::Uniform => {
                s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && s.chars().all(|c| ident(c) || matches!(c, '[' | ']' | '.'))
            }
            Word::Extension => {
                s.strip_prefix("GL_")
                    .is_some_and(|r| !r.is_empty() && r.chars().all(ident))
                    && !s.starts_with("GL_MAX_")
                    && !s.starts_with("GL_NUM_")
            }
            Word::Limit => !s.is_empty() && s.chars().all(ident),
            Word::Version => s.split_once('.').is_some_and(|(a, b)| {
                [a, b]
                    .iter()
                    .all(|p| !p.is_empty() && p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit()))
            }),
            Word::Name => !s
                .chars()
                .any(|c| conform_io::escape::is_hostile(c) || conform_io::escape::is_invisible(c)),
        }
    }
}

/// `value`, a `what` of `case` (`uniform name`), if it is what the field must be
/// ([`Word::rule`]); else the refusal, naming the case and showing the value escaped.
fn word<'a>(case: &Case, what: &str, value: &'a str, kind: Word) -> Result<&'a str, Refusal> {
    if kind.accepts(value) {
        return Ok(value);
    }
    refuse(format!(
        "case `{}`: the {what} `{}` is not {} (piglit would read it as other words or lines)",
        shown(&case.name),
        shown(value),
        kind.rule()
    ))
}

/// Case text in a refusal message: control, bidi and invisible characters as escapes,
/// at most 80 characters.
fn shown(s: &str) -> String {
    let mut o = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == 80 {
            o.push('…');
            break;
        }
        if conform_io::escape::is_invisible(c) {
            let _ = write!(o, "\\u{{{:x}}}", c as u32);
        } else {
            o.push_str(&conform_io::escape::line(c.encode_utf8(&mut [0; 4])));
        }
    }
    o
}

/// Whether a reader of the file may take `c` for the end of a line.
fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Free text as the lines of a comment: one per piece between line breaks (any a reader may
/// take for one), each with its trailing white space dropped and every other control, bidi
/// or separator character as a visible escape. Blank pieces are dropped.
fn comment_text(text: &str) -> Vec<String> {
    text.split(is_line_break)
        .map(|l| conform_io::escape::line(l.trim_end()).into_owned())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// The case's name, which heads the file and is its path: one line of text, a relative path
/// without `.`, `..` or empty components.
fn case_name(case: &Case) -> Result<&str, Refusal> {
    let name = word(case, "case name", &case.name, Word::Name)?;
    if name.starts_with('/')
        || name
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..")
    {
        return refuse(format!(
            "case `{}`: its name is not a relative path without `.` or `..` components (it names the exported file)",
            shown(name)
        ));
    }
    Ok(name)
}

/// Program text as a shader section (`shader_test`) or the body of a glslparsertest file:
/// refused with a NUL, and in a shader_test with a line whose first character after white
/// space is `[` (a section header to shader_runner).
fn program_text<'a>(case: &Case, text: &'a str, shader_test: bool) -> Result<&'a str, Refusal> {
    if text.contains('\0') {
        return refuse(format!(
            "case `{}`: a NUL character in the program (piglit's readers stop at it)",
            shown(&case.name)
        ));
    }
    if shader_test {
        if let Some((n, l)) = text
            .split(is_line_break)
            .enumerate()
            .find(|(_, l)| l.trim_start().starts_with('['))
        {
            return refuse(format!(
                "case `{}`: program line {} starts with `[` (`{}`), which shader_runner reads as a section header",
                shown(&case.name),
                n + 1,
                shown(l.trim())
            ));
        }
    }
    Ok(text)
}

/// The lines of a glslparsertest file's header comment, each ` * LINE`: refused where one
/// holds `*/` (the comment would end there) or `[config]`/`[end config]` (a second
/// expectation block); `program`, the file's body, may not hold those markers either.
fn comp_header(case: &Case, lines: &[String], program: &str) -> Result<String, Refusal> {
    let markers = ["[config]", "[end config]"];
    let mut out = String::new();
    for l in lines {
        if let Some(m) = ["*/"].iter().chain(&markers).find(|m| l.contains(**m)) {
            return refuse(format!(
                "case `{}`: `{m}` in the text of a glslparsertest header (`{}`)",
                shown(&case.name),
                shown(l)
            ));
        }
        let _ = writeln!(out, " * {l}");
    }
    if let Some(m) = markers.iter().find(|m| program.contains(**m)) {
        return refuse(format!(
            "case `{}`: `{m}` in the program of a glslparsertest file (a second expectation block)",
            shown(&case.name)
        ));
    }
    Ok(out)
}

/// A clause as the header cites it: its id, where the spec says it, and its text.
pub struct CitedClause {
    pub id: String,
    pub text: String,
    /// The spec's own words for it, where the catalogue has them (`Clause::quote`).
    pub quotes: Vec<conform_case::clauses::Quote>,
}

/// Exports `case`; `clauses` gives the text each of its `spec:` ids cites (from the clause
/// catalogue), in the case's order.
pub fn export(case: &Case, clauses: &[CitedClause]) -> Result<Exported, Refusal> {
    let plan = &case.plan;
    // A case about undefined results exports its defined checks (the undefined elements are
    // left out below); one whose every check is undefined (undefined behaviour: nothing is
    // checked) has nothing to export.
    if case.undefined.is_some()
        && case
            .expect
            .iter()
            .all(|e| matches!(e.check, Check::Undefined))
    {
        return refuse("a case about undefined behaviour (what the reference flags)");
    }
    let program = match plan.programs.as_slice() {
        [p] => p,
        [] => return refuse("no program"),
        _ => return refuse("more than one program"),
    };
    if program.stage != Stage::Compute {
        return refuse("a program of another stage than compute");
    }
    match program.language {
        Language::Nvasm => return refuse("an NV assembly program (piglit runs GLSL and SPIR-V)"),
        Language::Spirv => return refuse("a SPIR-V binary without assembly text"),
        Language::Glsl | Language::SpirvAsm => {}
    }
    if !program.specialization.is_empty() {
        return refuse("specialization constants");
    }
    if program.language == Language::SpirvAsm
        && program.entry != "main"
        && !program.entry.is_empty()
    {
        return refuse("a SPIR-V entry point other than `main`");
    }
    if !case.requires.spirv_extensions.is_empty() {
        return refuse("required SPIR-V extensions (shader_runner cannot require them)");
    }
    let link_error = match &case.fails {
        None => false,
        Some(f) if f.at == conform_plan::BuildStage::Link => true,
        Some(f) => {
            return refuse(format!(
                "a build failure at {} (shader_runner's `link error` checks links only)",
                f.at.name()
            ))
        }
    };
    let mut left_out = Vec::new();
    if let Some(log) = case.fails.as_ref().and_then(|f| f.log.as_ref()) {
        left_out.push(format!(
            "the link log pattern `{}` (shader_runner's `link error` checks only that the link fails)",
            log.as_str()
        ));
    }
    let mut test = String::new();
    let mut buffers = Vec::new();
    for (i, b) in plan.buffers.iter().enumerate() {
        buffers.push(buffer_setup(&mut test, i, b)?);
    }
    for name in plan
        .uniforms
        .iter()
        .map(|u| u.name.as_str())
        .chain(plan.steps.iter().filter_map(|s| match s {
            Step::Uniform(set) => match &set.target {
                UniformTarget::Name(n) => Some(n.as_str()),
                UniformTarget::Location(_) => None,
            },
            _ => None,
        }))
    {
        word(case, "uniform name", name, Word::Uniform)?;
        if !declares(&program.text, name) {
            return refuse(
                "a uniform no program declares (shader_runner fails where GL ignores it)",
            );
        }
    }
    for u in &plan.uniforms {
        let ty = UniformType::Elem(u.elem);
        test.push_str(&uniform_line(
            case,
            &UniformTarget::Name(u.name.clone()),
            ty,
            &u.bytes,
        )?);
    }
    if link_error {
        test.push_str("link error\n");
    } else {
        let mut snapshot = 0;
        for (i, step) in plan.steps.iter().enumerate() {
            match step {
                Step::DispatchIndirect { .. } => return refuse("an indirect dispatch"),
                Step::ClearBuffer { .. } => return refuse("a buffer clear"),
                Step::Query { .. } | Step::ProgramQuery { .. } => {
                    return refuse(
                        "GL queries (shader_runner checks program queries only by `verify`)",
                    )
                }
                Step::Api(_) => return refuse("API actions"),
                _ => {}
            }
            if let Some(c) = case.step_checks.get(i) {
                if c.error != GlError::NoError {
                    return refuse(format!(
                        "a step that expects {} (shader_runner fails on any GL error)",
                        c.error.name()
                    ));
                }
            }
            match step {
                Step::Dispatch { groups: [x, y, z] } => {
                    let _ = writeln!(test, "compute {x} {y} {z}");
                }
                Step::DispatchGroupSize {
                    groups: [x, y, z],
                    size: [a, b, c],
                } => {
                    let _ = writeln!(test, "compute group size {x} {y} {z} {a} {b} {c}");
                }
                Step::MemoryBarrier { bits } => {
                    for bit in bits {
                        let _ = writeln!(test, "memory barrier {}", barrier_name(*bit));
                    }
                }
                Step::Uniform(set) => {
                    test.push_str(&uniform_line(case, &set.target, set.ty, &set.bytes)?)
                }
                Step::WriteBuffer {
                    buffer,
                    offset,
                    bytes,
                } => write_words(&mut test, &buffers[*buffer], *offset, bytes, false)?,
                Step::Snapshot => {
                    probes(&mut test, case, &buffers, Some(snapshot), &mut left_out)?;
                    snapshot += 1;
                }
                Step::DispatchIndirect { .. }
                | Step::ClearBuffer { .. }
                | Step::Query { .. }
                | Step::ProgramQuery { .. }
                | Step::Api(_) => unreachable!("refused above"),
            }
        }
        probes(&mut test, case, &buffers, None, &mut left_out)?;
    }
    if !link_error && !test.contains("\nprobe ") && !test.starts_with("probe ") {
        return refuse("no check piglit can state (every one is left out)");
    }
    let mut text = hash_comment(&header(case, clauses, &left_out)?);
    text.push_str(&require(case, program.language)?);
    match program.language {
        Language::SpirvAsm => {
            text.push_str("\n[compute shader spirv]\n");
            // shader_runner drops `#` lines before spirv-as; `;` comments stay comments.
            for line in program_text(case, &program.text, true)?.lines() {
                match line.strip_prefix('#') {
                    Some(rest) => {
                        let _ = writeln!(text, ";{rest}");
                    }
                    None => {
                        let _ = writeln!(text, "{line}");
                    }
                }
            }
        }
        _ => {
            if !program.text.contains("#version") {
                return refuse("GLSL without a #version line");
            }
            text.push_str("\n[compute shader]\n");
            text.push_str(program_text(case, &program.text, true)?.trim_end());
            text.push('\n');
        }
    }
    text.push_str("\n[test]\n");
    text.push_str(&test);
    Ok(Exported {
        file: format!("{}.shader_test", case.name),
        text,
        left_out,
        glslparsertest_args: None,
    })
}

/// The header's lines, without the comment mark (`#` in a shader_test, ` * ` in a
/// glslparsertest file; an empty string is a blank comment line): the case, where it came
/// from, its clauses with their text, what was left out. Case text goes through
/// [`comment_text`] and [`word`].
fn header(
    case: &Case,
    clauses: &[CitedClause],
    left_out: &[String],
) -> Result<Vec<String>, Refusal> {
    let mut h = vec![format!("conform case {}", case_name(case)?)];
    h.extend(comment_text(&case.description));
    for c in clauses {
        h.push(String::new());
        h.push(format!("{}:", word(case, "clause id", &c.id, Word::Name)?));
        for line in wrap(&c.text, 92) {
            h.push(format!("  {}", conform_io::escape::line(&line)));
        }
    }
    h.push(String::new());
    h.push(format!(
        "Exported by conform {} (`conform export piglit`); the expected values are the case's,",
        env!("CARGO_PKG_VERSION")
    ));
    h.push("derived from the clauses above.".into());
    if !left_out.is_empty() {
        h.push("Checks of the case piglit cannot state, left out of this test:".into());
        for l in left_out {
            let mut pieces = comment_text(l).into_iter();
            h.push(format!("  - {}", pieces.next().unwrap_or_default()));
            h.extend(pieces.map(|p| format!("    {p}")));
        }
    }
    Ok(h)
}

/// The header as a shader_test's `#` lines.
fn hash_comment(lines: &[String]) -> String {
    let mut out = String::new();
    for l in lines {
        if l.is_empty() {
            out.push_str("#\n");
        } else {
            let _ = writeln!(out, "# {l}");
        }
    }
    out
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `[require]` from the case's requirements.
fn require(case: &Case, language: Language) -> Result<String, Refusal> {
    let r = &case.requires;
    let mut out = String::from("\n[require]\n");
    let profile = match r.profile {
        Some(conform_case::model::Profile::Core) => "CORE ",
        Some(conform_case::model::Profile::Compatibility) => "COMPAT ",
        None => "",
    };
    if r.gles.is_none() && language == Language::Glsl && glsl_es(case) {
        return refuse(
            "an ESSL program in a desktop context (shader_runner runs ESSL only in an ES one)",
        );
    }
    match (&r.gl, &r.gles) {
        (Some(_), Some(_)) => return refuse("both GL and GL ES versions required"),
        (Some(gl), None) => {
            let gl = word(case, "GL version", gl, Word::Version)?;
            let _ = writeln!(out, "GL {profile}>= {gl}");
        }
        (None, Some(es)) => {
            if language == Language::SpirvAsm {
                return refuse("SPIR-V in a GL ES context");
            }
            let es = word(case, "GL ES version", es, Word::Version)?;
            let _ = writeln!(out, "GL ES >= {es}");
        }
        (None, None) => {}
    }
    if let Some(glsl) = r.glsl {
        let es = if r.gles.is_some() { "ES " } else { "" };
        let _ = writeln!(out, "GLSL {es}>= {}.{:02}", glsl / 100, glsl % 100);
    } else if language == Language::Glsl {
        // shader_runner needs a GLSL requirement for a GLSL section: the program's own.
        let v = case
            .plan
            .programs
            .first()
            .and_then(|p| glsl_version(&p.text))
            .ok_or_else(|| Refusal("GLSL without a readable #version".into()))?;
        let es = if v.1 { "ES " } else { "" };
        let _ = writeln!(out, "GLSL {es}>= {}.{:02}", v.0 / 100, v.0 % 100);
    }
    if language == Language::SpirvAsm {
        out.push_str("SPIRV ONLY\n");
    }
    for e in &r.extensions {
        let _ = writeln!(out, "{}", word(case, "extension", e, Word::Extension)?);
    }
    for (name, min) in &r.limits {
        let name = word(case, "limit", name, Word::Limit)?;
        let name = if name.starts_with("GL_") {
            name.to_string()
        } else {
            format!("GL_{name}")
        };
        // shader_runner reads six limits by name; any other line starting `GL_` is an
        // extension to it (absent: the test skips), so the rest go through `INT`, its
        // glGetIntegerv requirement.
        let int = if crate::piglit::parse::NAMED_LIMITS.contains(&name.as_str()) {
            ""
        } else {
            "INT "
        };
        let _ = writeln!(out, "{int}{name} >= {min}");
    }
    Ok(out)
}

/// Whether `text` names the uniform `name` (its first identifier: `a` of `a[2]` or `s.f`) as
/// a whole word: shader_runner fails a test that sets a uniform the program lacks, where GL
/// ignores it (location -1).
fn declares(text: &str, name: &str) -> bool {
    let base: String = name
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    !base.is_empty()
        && text.match_indices(base.as_str()).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + base.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            !word(before) && !word(after)
        })
}

/// Whether the case's GLSL says `#version N es`.
fn glsl_es(case: &Case) -> bool {
    case.plan
        .programs
        .first()
        .and_then(|p| glsl_version(&p.text))
        .is_some_and(|(_, es)| es)
}

/// The number of a `#version N [es]` line and whether it says `es`.
fn glsl_version(text: &str) -> Option<(u32, bool)> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("#version"))?;
    let mut words = line.split_whitespace().skip(1);
    let n = words.next()?.parse().ok()?;
    Some((n, words.next() == Some("es")))
}

/// How a case's buffer appears in the test: its kind and binding.
#[derive(Clone, Copy, Debug)]
struct BufferRef {
    atomic: bool,
    binding: u32,
    size: usize,
}

/// `ssbo B SIZE` (or `atomic counter buffer B N`) and the buffer's non-zero contents.
fn buffer_setup(
    test: &mut String,
    _index: usize,
    b: &conform_plan::BufferInit,
) -> Result<BufferRef, Refusal> {
    let atomic = match b.kind {
        BufferKind::Storage => false,
        BufferKind::AtomicCounter => true,
        BufferKind::Uniform => {
            return refuse("a uniform block buffer (shader_runner makes its own)")
        }
        BufferKind::Indirect => return refuse("an indirect-dispatch buffer"),
        BufferKind::Image(_) => return refuse("images"),
        BufferKind::Texture(_) => return refuse("textures"),
        _ => return refuse("an NV program buffer"),
    };
    if b.bytes.is_empty() || !b.bytes.len().is_multiple_of(4) {
        return refuse("a buffer whose size is not a multiple of 4 bytes");
    }
    let r = BufferRef {
        atomic,
        binding: b.binding,
        size: b.bytes.len(),
    };
    if atomic {
        let _ = writeln!(
            test,
            "atomic counter buffer {} {}",
            b.binding,
            b.bytes.len() / 4
        );
    } else {
        let _ = writeln!(test, "ssbo {} {}", b.binding, b.bytes.len());
    }
    write_words(test, &r, 0, &b.bytes, true)?;
    Ok(r)
}

/// The 32-bit words of `bytes` at byte `offset` of the buffer, as `ssbo B subdata int` (or
/// `atomic counter B I V`) lines; zero words of a new (zeroed) buffer are left out.
fn write_words(
    test: &mut String,
    b: &BufferRef,
    offset: u64,
    bytes: &[u8],
    fresh: bool,
) -> Result<(), Refusal> {
    if !offset.is_multiple_of(4) || !bytes.len().is_multiple_of(4) {
        return refuse("a buffer write not in whole 32-bit words");
    }
    if offset as usize + bytes.len() > b.size {
        return refuse("a buffer write past the end of the buffer");
    }
    for (i, w) in bytes.chunks_exact(4).enumerate() {
        let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        if fresh && word == 0 {
            continue;
        }
        let at = offset as usize + i * 4;
        if b.atomic {
            let _ = writeln!(test, "atomic counter {} {} {}", b.binding, at / 4, word);
        } else {
            let _ = writeln!(
                test,
                "ssbo {} subdata int {} {}",
                b.binding, at, word as i32
            );
        }
    }
    Ok(())
}

/// A `uniform TYPE TARGET V...` line.
fn uniform_line(
    case: &Case,
    target: &UniformTarget,
    ty: UniformType,
    bytes: &[u8],
) -> Result<String, Refusal> {
    if bytes.len() != ty.size() {
        return refuse("a uniform array load (more than one value)");
    }
    let scalar = ty.scalar();
    let name = match ty {
        UniformType::Elem(e) => {
            let (s, v) = match scalar {
                Scalar::F32 => ("float", "vec"),
                Scalar::F64 => ("double", "dvec"),
                Scalar::I32 => ("int", "ivec"),
                Scalar::U32 => ("uint", "uvec"),
                Scalar::I64 => ("int64_t", "i64vec"),
                Scalar::U64 => ("uint64_t", "u64vec"),
                _ => return refuse("a uniform of a type no glUniform* takes"),
            };
            match e.lanes {
                1 => s.to_string(),
                2..=4 => format!("{v}{}", e.lanes),
                _ => return refuse("a uniform vector of more than 4 components"),
            }
        }
        UniformType::Matrix {
            scalar,
            columns,
            rows,
        } => {
            let m = if scalar == Scalar::F64 { "dmat" } else { "mat" };
            if columns == rows {
                format!("{m}{columns}")
            } else {
                format!("{m}{columns}x{rows}")
            }
        }
    };
    let target = match target {
        UniformTarget::Name(n) => word(case, "uniform name", n, Word::Uniform)?.to_string(),
        UniformTarget::Location(l) if *l >= 0 => l.to_string(),
        // shader_runner takes a target starting with a digit as a location, anything else
        // as a name: `-1` is looked up, not found, and fails the test.
        UniformTarget::Location(l) => {
            return refuse(format!(
                "a uniform at location {l} (shader_runner reads it as a name)"
            ))
        }
    };
    let mut values = Vec::new();
    for c in bytes.chunks_exact(scalar.size()) {
        values.push(scalar_text(scalar, c).ok_or_else(|| {
            Refusal("a uniform value shader_runner cannot read back exactly (inf or NaN)".into())
        })?);
    }
    Ok(format!("uniform {name} {target} {}\n", values.join(" ")))
}

/// A scalar's value as shader_runner reads it back exactly (`None` for inf and NaN floats).
/// Whether `b` is a NaN of float type `s` (an infinity is a value like any other).
fn is_nan(s: Scalar, b: &[u8]) -> bool {
    match s {
        Scalar::F32 => b
            .try_into()
            .is_ok_and(|w: [u8; 4]| f32::from_le_bytes(w).is_nan()),
        Scalar::F64 => b
            .try_into()
            .is_ok_and(|w: [u8; 8]| f64::from_le_bytes(w).is_nan()),
        _ => false,
    }
}

fn scalar_text(s: Scalar, b: &[u8]) -> Option<String> {
    Some(match s {
        Scalar::F32 => {
            let v = f32::from_le_bytes(b.try_into().ok()?);
            if !v.is_finite() {
                return None;
            }
            format!("{v:?}")
        }
        Scalar::F64 => {
            let v = f64::from_le_bytes(b.try_into().ok()?);
            if !v.is_finite() {
                return None;
            }
            format!("{v:?}")
        }
        Scalar::I32 => i32::from_le_bytes(b.try_into().ok()?).to_string(),
        Scalar::U32 => u32::from_le_bytes(b.try_into().ok()?).to_string(),
        Scalar::I64 => i64::from_le_bytes(b.try_into().ok()?).to_string(),
        Scalar::U64 => u64::from_le_bytes(b.try_into().ok()?).to_string(),
        _ => return None,
    })
}

fn barrier_name(b: BarrierBit) -> &'static str {
    match b {
        BarrierBit::ShaderStorage => "GL_SHADER_STORAGE_BARRIER_BIT",
        BarrierBit::AtomicCounter => "GL_ATOMIC_COUNTER_BARRIER_BIT",
        BarrierBit::Uniform => "GL_UNIFORM_BARRIER_BIT",
        BarrierBit::Command => "GL_COMMAND_BARRIER_BIT",
        BarrierBit::BufferUpdate => "GL_BUFFER_UPDATE_BARRIER_BIT",
        BarrierBit::ShaderImageAccess => "GL_SHADER_IMAGE_ACCESS_BARRIER_BIT",
        BarrierBit::All => "GL_ALL_BARRIER_BITS",
    }
}

/// The probes of the expectations read at `snapshot` (None: after the last step).
fn probes(
    test: &mut String,
    case: &Case,
    buffers: &[BufferRef],
    snapshot: Option<usize>,
    left_out: &mut Vec<String>,
) -> Result<(), Refusal> {
    for e in case
        .expect
        .iter()
        .filter(|e| e.at_snapshot.map(|s| s.index) == snapshot)
    {
        probe(test, case, e, &buffers[e.buffer], left_out)?;
    }
    Ok(())
}

fn probe(
    test: &mut String,
    case: &Case,
    e: &Expectation,
    b: &BufferRef,
    left_out: &mut Vec<String>,
) -> Result<(), Refusal> {
    let buffer = &case.plan.buffers[e.buffer].name;
    let range = format!(
        "`{buffer}` elements {}..{} (line {})",
        e.at,
        e.at + e.count,
        e.line
    );
    let (op, expected, exact) = match &e.check {
        Check::Exact(bytes) => (conform_case::CompareOp::Eq, bytes, true),
        // piglit's `parse_comparison_op` reads `!=` as `>` (docs/IMPORT.md).
        Check::Compare(conform_case::CompareOp::Ne, _) => {
            return refuse("a != comparison (shader_runner reads `!=` as `>`)")
        }
        Check::Compare(op, bytes) => (*op, bytes, false),
        Check::Undefined => {
            left_out.push(format!(
                "{range}: undefined values (piglit checks them no more than conform)"
            ));
            return Ok(());
        }
        Check::Within(bytes, t) => return probe_within(test, e, b, bytes, *t, &range, left_out),
        Check::OneOf(_) => return refuse("one-of alternatives (readings a driver may choose)"),
        Check::Permutation(_) => return refuse("a multiset (`permutation_of`)"),
        Check::Outcomes { .. } => return refuse("litmus outcome sets"),
        Check::Reference => return refuse("expectations taken from the reference's output"),
    };
    let scalar = e.elem.scalar;
    if scalar.size() < 4 {
        left_out.push(format!(
            "{range}: {}-bit elements (shader_runner probes 32 and 64 bits)",
            scalar.size() * 8
        ));
        return Ok(());
    }
    let elem: ElemType = e.elem;
    let start = e.at as usize * elem.size();
    for (k, comp) in expected.chunks_exact(scalar.size()).enumerate() {
        let offset = start + k * scalar.size();
        let value = scalar_text(scalar, comp);
        let float = matches!(scalar, Scalar::F32 | Scalar::F64);
        if b.atomic {
            if scalar.size() != 4 {
                return refuse("an atomic counter check other than a 32-bit comparison");
            }
            let word = u32::from_le_bytes([comp[0], comp[1], comp[2], comp[3]]);
            let _ = writeln!(
                test,
                "probe atomic counter buffer {} {offset} {} {word}",
                b.binding,
                op.symbol()
            );
            continue;
        }
        match (float, op) {
            // Exactly these bits: shader_runner's float `==` has a tolerance and -0.0 == 0.0.
            // Any NaN is the expected value (conform compares NaN with any NaN); no probe of
            // shader_runner tests for a NaN, and its bits would fail a right driver.
            (true, _) if exact && is_nan(scalar, comp) => {
                left_out.push(format!(
                    "{range}: the NaN at element {} (shader_runner cannot test for a NaN)",
                    offset / scalar.size()
                ));
            }
            (true, _) if exact => {
                match &value {
                    Some(v) => {
                        let _ = writeln!(test, "# {v}");
                    }
                    // An infinity (scalar_text gives finite values only).
                    None if scalar.size() == 4 => {
                        let v = f32::from_le_bytes([comp[0], comp[1], comp[2], comp[3]]);
                        let _ = writeln!(test, "# {v}");
                    }
                    None => {}
                }
                if scalar.size() == 4 {
                    let bits = u32::from_le_bytes([comp[0], comp[1], comp[2], comp[3]]);
                    let _ = writeln!(
                        test,
                        "probe ssbo uint {} {offset} {} 0x{bits:08x}",
                        b.binding,
                        op.symbol()
                    );
                } else {
                    let bits =
                        u64::from_le_bytes(comp.try_into().map_err(|_| Refusal("bad f64".into()))?);
                    let _ = writeln!(
                        test,
                        "probe ssbo uint64 {} {offset} {} {bits}",
                        b.binding,
                        op.symbol()
                    );
                }
            }
            (true, conform_case::CompareOp::Eq) => {
                return refuse(
                    "a float == comparison (IEEE equality; shader_runner's has a tolerance)",
                )
            }
            (true, op) => {
                let Some(v) = value else {
                    return refuse("an ordered comparison with inf or NaN");
                };
                let ty = if scalar == Scalar::F32 {
                    "float"
                } else {
                    "double"
                };
                let _ = writeln!(
                    test,
                    "probe ssbo {ty} {} {offset} {} {v}",
                    b.binding,
                    op.symbol()
                );
            }
            (false, op) => {
                let ty = match scalar {
                    Scalar::I32 => "int",
                    Scalar::U32 => "uint",
                    Scalar::I64 => "int64",
                    Scalar::U64 => "uint64",
                    _ => return refuse("an element type shader_runner cannot probe"),
                };
                let v = value.ok_or_else(|| Refusal("an unreadable value".into()))?;
                let _ = writeln!(
                    test,
                    "probe ssbo {ty} {} {offset} {} {v}",
                    b.binding,
                    op.symbol()
                );
            }
        }
    }
    Ok(())
}

/// A float check within a tolerance, as the interval of values the judge accepts
/// (`conform_judge::checks::tolerance_bounds`): `probe ssbo float|double B OFFSET >= LOWEST`
/// and `<= HIGHEST`, each bound printed so that it reads back as the same float (shader_runner
/// parses it with sscanf's `%f`/`%lf` and compares the observed value in double, exactly). A
/// NaN observed fails both, as it fails the judge. An expected NaN is left out, as in exact
/// checks.
fn probe_within(
    test: &mut String,
    e: &Expectation,
    b: &BufferRef,
    expected: &[u8],
    tol: conform_case::Tolerance,
    range: &str,
    left_out: &mut Vec<String>,
) -> Result<(), Refusal> {
    let scalar = e.elem.scalar;
    let ty = match scalar {
        Scalar::F32 => "float",
        Scalar::F64 => "double",
        _ => {
            left_out.push(format!(
                "{range}: a tolerance ({tol:?}) on {}-bit elements shader_runner cannot state",
                scalar.size() * 8
            ));
            return Ok(());
        }
    };
    if b.atomic {
        return refuse("an atomic counter check other than a 32-bit comparison");
    }
    let start = e.at as usize * e.elem.size();
    for (k, comp) in expected.chunks_exact(scalar.size()).enumerate() {
        let offset = start + k * scalar.size();
        let Some((lo, hi)) = conform_judge::checks::tolerance_bounds(comp, scalar, tol) else {
            left_out.push(format!(
                "{range}: the NaN at element {} (shader_runner cannot test for a NaN)",
                offset / scalar.size()
            ));
            continue;
        };
        let text = |v: f64| {
            if scalar == Scalar::F32 {
                format!("{:?}", v as f32)
            } else {
                format!("{v:?}")
            }
        };
        if let Some(v) = scalar_text(scalar, comp) {
            let within = match tol {
                conform_case::Tolerance::Ulp(n) => format!("{n} ulp"),
                conform_case::Tolerance::Abs(x) => format!("{x:?} (absolute)"),
                conform_case::Tolerance::Rel(x) => format!("{x:?} (relative)"),
            };
            let _ = writeln!(test, "# {v} within {within}");
        }
        for (op, bound) in [(">=", lo), ("<=", hi)] {
            let _ = writeln!(
                test,
                "probe ssbo {ty} {} {offset} {op} {}",
                b.binding,
                text(bound)
            );
        }
    }
    Ok(())
}

/// A case whose GLSL compute shader must fail to compile, as a piglit glslparsertest file
/// (`<case>.comp` with a `[config]` comment): shader_runner fails any test whose shader does
/// not compile, so piglit states compile failures this way (`glslparsertest FILE fail
/// VERSION EXTENSIONS...`, which all.py reads from the config). Desktop GLSL in a desktop
/// context and ESSL in an ES one; the log pattern a case may give is left out
/// (glslparsertest checks only that compiling fails).
pub fn export_glslparser(case: &Case, clauses: &[CitedClause]) -> Result<Exported, Refusal> {
    let Some(f) = &case.fails else {
        return refuse("not a compile failure");
    };
    if f.at != conform_plan::BuildStage::Compile {
        return refuse("not a compile failure");
    }
    let [program] = case.plan.programs.as_slice() else {
        return refuse("more than one program");
    };
    if program.language != Language::Glsl || program.stage != Stage::Compute {
        return refuse("not a GLSL compute shader");
    }
    let Some((version, es)) = glsl_version(&program.text) else {
        return refuse("GLSL without a readable #version");
    };
    // ESSL in a desktop context is what the desktop glslparsertest does with an ES version
    // (it requires GL_ARB_ES3_1_compatibility for 3.10); desktop GLSL has no ES form.
    if !es && case.requires.gles.is_some() {
        return refuse("desktop GLSL in an ES context");
    }
    let mut left_out = Vec::new();
    if let Some(log) = &f.log {
        left_out.push(format!(
            "the compile log pattern `{}` (glslparsertest checks only that compiling fails)",
            log.as_str()
        ));
    }
    let mut extensions = case.requires.extensions.clone();
    if !es && version < 430 && !extensions.iter().any(|e| e == "GL_ARB_compute_shader") {
        extensions.push("GL_ARB_compute_shader".into());
    }
    let mut text = String::from("/* [config]\n * expect_result: fail\n");
    // ESSL versions carry `es` (piglit's all.py then runs glslparsertest_gles3, or the
    // desktop glslparsertest, which requires GL_ARB_ES3_1_compatibility for 3.10).
    let version_text = format!("{}.{:02}", version / 100, version % 100);
    let _ = writeln!(
        text,
        " * glsl_version: {version_text}{}",
        if es { " es" } else { "" }
    );
    let mut args = format!("fail {version_text}");
    for e in &extensions {
        args.push(' ');
        args.push_str(word(case, "extension", e, Word::Extension)?);
    }
    if !extensions.is_empty() {
        let _ = writeln!(text, " * require_extensions: {}", extensions.join(" "));
    }
    text.push_str(" * [end config]\n *\n");
    let body = program_text(case, &program.text, false)?;
    let lines: Vec<String> = header(case, clauses, &left_out)?
        .iter()
        .map(|l| l.trim_start().to_string())
        .collect();
    text.push_str(&comp_header(case, &lines, body)?);
    text.push_str(" */\n");
    text.push_str(body.trim_end());
    text.push('\n');
    Ok(Exported {
        file: format!("{}.comp", case.name),
        text,
        left_out,
        glslparsertest_args: Some(args),
    })
}

/// The clauses `ids` cite, with their text from the catalogue (`where`: text); ids the
/// catalogue lacks (an external suite's) are cited by id alone.
pub fn cite(
    catalogue: Option<&conform_case::clauses::Catalogue>,
    ids: &[String],
) -> Vec<CitedClause> {
    ids.iter()
        .map(|id| {
            let clause = catalogue.and_then(|c| {
                c.extensions
                    .iter()
                    .flat_map(|(_, clauses)| clauses)
                    .find(|cl| &cl.id == id)
            });
            CitedClause {
                id: id.clone(),
                text: match clause {
                    Some(cl) => match &cl.location {
                        Some(w) => format!("{w}: {}", cl.text),
                        None => cl.text.clone(),
                    },
                    None => String::new(),
                },
                quotes: clause.map(|cl| cl.quote.clone()).unwrap_or_default(),
            }
        })
        .collect()
}

/// What `conform export piglit` did.
#[derive(Debug, Default)]
pub struct ExportSummary {
    /// Files written, and the checks each left out.
    pub written: Vec<(String, Vec<String>)>,
    /// Cases refused, by reason.
    pub refused: std::collections::BTreeMap<String, Vec<String>>,
}

impl std::fmt::Display for ExportSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let partial = self.written.iter().filter(|(_, l)| !l.is_empty()).count();
        let refused: usize = self.refused.values().map(Vec::len).sum();
        writeln!(
            f,
            "exported {} case(s) as piglit tests (shader_tests; glslparsertest .comp files for compile failures; {partial} in part: the file says what it leaves out); refused {refused}:",
            self.written.len()
        )?;
        for (why, cases) in &self.refused {
            writeln!(f, "  {:>4}  {why}", cases.len())?;
        }
        Ok(())
    }
}

/// A case as piglit states it: a shader_test ([`export`]), or else, for a compile failure
/// shader_runner cannot state, a glslparsertest file ([`export_glslparser`]); the refusal is
/// the shader_test's.
pub fn export_piglit(case: &Case, clauses: &[CitedClause]) -> Result<Exported, Refusal> {
    export(case, clauses).or_else(|r| export_glslparser(case, clauses).map_err(|_| r))
}

/// Exports `cases` into `out` (`out/<case name>.shader_test`); a case that cannot be
/// exported is counted with its reason. Err only when `out` cannot be written.
pub fn export_cases(
    cases: &[Case],
    catalogue: Option<&conform_case::clauses::Catalogue>,
    out: &std::path::Path,
) -> std::io::Result<ExportSummary> {
    let mut summary = ExportSummary::default();
    for case in cases {
        let cited = cite(catalogue, &case.spec);
        match export_piglit(case, &cited) {
            Ok(e) => {
                let path = out.join(&e.file);
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                std::fs::write(&path, &e.text)?;
                summary.written.push((e.file, e.left_out));
            }
            Err(r) => summary
                .refused
                .entry(r.0)
                .or_default()
                .push(case.name.clone()),
        }
    }
    Ok(summary)
}
