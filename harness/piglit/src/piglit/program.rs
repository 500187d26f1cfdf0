//! A run's sections → the case's `program` / `programs`, as shader_runner compiles them:
//! GLSL sections with `#version` prepended from the `GLSL >=` requirement when the text has
//! none, SPIR-V sections assembled (shader_runner strips `#` lines, assembles for OpenGL 4.5
//! and specializes at entry point `main`), in its attach order (vertex, tessellation,
//! geometry, fragment, compute). Sections conform cannot express (ARB programs, includes,
//! vertex data, uniform blocks) are skips.

use super::case::{Language, Origin, Program};
use super::command::{self, Command};
use super::outcome::{Converted, GlslVersion, Mode, Skip};
use super::parse::{self, Section, SectionKind, ShaderTest, Stage};
use std::collections::BTreeMap;

/// Shader_runner's pass-through vertex shader (`[vertex shader passthrough]`).
const PASSTHROUGH_VS: &str = "#if __VERSION__ >= 130\nin vec4 piglit_vertex;\n#else\nattribute vec4 piglit_vertex;\n#endif\nvoid main() { gl_Position = piglit_vertex; }\n";

/// The sections a run compiles → `program` / `programs`.
pub(super) fn programs(
    test: &ShaderTest,
    mode: Mode,
    glsl: Option<GlslVersion>,
    out: &mut Converted,
) -> Result<(), Skip> {
    let section_skip = |s: &Section, kind: &str| Skip::new(kind, s.header.clone(), Some(s.line));
    for s in &test.sections {
        match s.kind {
            SectionKind::ArbProgram => return Err(section_skip(s, "ARB assembly programs")),
            SectionKind::ShaderInclude | SectionKind::ShaderIncludePaths => {
                return Err(section_skip(s, "shader includes"))
            }
            SectionKind::GeometryLayout => return Err(section_skip(s, "[geometry layout]")),
            SectionKind::VertexData => return Err(section_skip(s, "[vertex data]")),
            SectionKind::VertexPassthrough if mode == Mode::Spirv => {
                return Err(section_skip(
                    s,
                    "[vertex shader passthrough] in SPIR-V mode",
                ))
            }
            _ => {}
        }
    }
    let specializations = specializations(test)?;
    let mut chosen: Vec<&Section> = test
        .sections
        .iter()
        .filter(|s| {
            matches!(
                (mode, s.kind),
                (
                    Mode::Glsl,
                    SectionKind::Glsl(_) | SectionKind::VertexPassthrough
                ) | (Mode::Spirv, SectionKind::Spirv(_))
            )
        })
        .collect();
    // shader_runner attaches vertex, tessellation, geometry, fragment, then compute shaders.
    chosen.sort_by_key(|s| stage_of(s));
    if !chosen.iter().any(|s| stage_of(s) == Stage::Compute) {
        return Err(Skip::new(
            format!("no compute shader in {} mode", mode.name()),
            "",
            None,
        ));
    }
    let draws = test
        .commands
        .iter()
        .find(|c| matches!(c.item, Command::Unsupported(command::DRAW)));
    if let (Some(other), Some(draw)) =
        (chosen.iter().find(|s| stage_of(s) != Stage::Compute), draws)
    {
        return Err(Skip::new(
            format!("{} with a draw", other.header),
            format!("`{}`", draw.text),
            Some(draw.line),
        ));
    }
    for s in chosen {
        let origin = Origin {
            line: s.line,
            text: s.header.clone(),
        };
        let program = match s.kind {
            SectionKind::Spirv(stage) => {
                let source = spirv_source(&s.text);
                if source.trim().is_empty() {
                    return Err(section_skip(s, "empty shader section"));
                }
                if declares_spirv_uniform_block(&source) {
                    return Err(section_skip(s, command::UBO));
                }
                Program {
                    stage,
                    language: Language::SpirvAsm,
                    source,
                    specialization: specializations.get(&stage).cloned().unwrap_or_default(),
                    origin,
                }
            }
            _ => {
                let (stage, text, has_version) = match s.kind {
                    SectionKind::Glsl(stage) => (stage, s.text.as_str(), s.version_from_here),
                    _ => (Stage::Vertex, PASSTHROUGH_VS, false),
                };
                if text.trim().is_empty() {
                    return Err(section_skip(s, "empty shader section"));
                }
                let Some(version) = glsl else {
                    return Err(section_skip(s, "GLSL shader without a GLSL requirement")
                        .why("shader_runner fails the test"));
                };
                if declares_glsl_uniform_block(text) {
                    return Err(section_skip(s, command::UBO));
                }
                let mut source = String::new();
                if !has_version {
                    // compile_glsl: "#version N" from the requirement, " es" for ES but 100.
                    source.push_str(&format!("#version {}", version.num));
                    if version.es && version.num != 100 {
                        source.push_str(" es");
                    }
                    source.push('\n');
                } else if !text.contains("#version ") {
                    out.notes.push(format!(
                        "line {}: {} has no #version, but shader_runner finds one later in the file and prepends none",
                        s.line, s.header
                    ));
                }
                source.push_str(&trim_trailing_blank_lines(text));
                Program {
                    stage,
                    language: Language::Glsl,
                    source,
                    specialization: Vec::new(),
                    origin,
                }
            }
        };
        out.case.programs.push(program);
    }
    Ok(())
}

fn stage_of(s: &Section) -> Stage {
    match s.kind {
        SectionKind::Glsl(st) | SectionKind::Spirv(st) | SectionKind::Specializations(st) => st,
        _ => Stage::Vertex,
    }
}

/// Trailing blank lines of a section are the gap before the next header, and trailing
/// whitespace means nothing to a compiler or assembler: one final newline stays.
fn trim_trailing_blank_lines(text: &str) -> String {
    let mut t = text.trim_end_matches(['\n', ' ', '\t']).to_string();
    if !t.is_empty() {
        t.push('\n');
    }
    t
}

/// shader_runner strips `#` lines (at the start of a line) before handing SPIR-V assembly to
/// spirv-as; `;` comments keep them readable and the lines where they were.
fn spirv_source(text: &str) -> String {
    let body: Vec<String> = text
        .lines()
        .map(|l| match l.strip_prefix('#') {
            Some(rest) => format!(";{rest}"),
            None => l.to_string(),
        })
        .collect();
    trim_trailing_blank_lines(&(body.join("\n") + "\n"))
}

/// The specializations per stage: `[X shader specializations]` lines in order.
fn specializations(test: &ShaderTest) -> Result<BTreeMap<Stage, Vec<(u32, u32)>>, Skip> {
    let mut by_stage: BTreeMap<Stage, Vec<(u32, u32)>> = BTreeMap::new();
    for s in &test.sections {
        let SectionKind::Specializations(stage) = s.kind else {
            continue;
        };
        for line in s.text.lines() {
            // Malformed lines were rejected by the parser.
            if let Ok(Some((id, value))) = parse::specialization(line) {
                let list = by_stage.entry(stage).or_default();
                if list.iter().any(|(i, _)| *i == id) {
                    return Err(Skip::new(
                        "a specialization constant given twice",
                        format!("SpecId {id} in {}", s.header),
                        Some(s.line),
                    ));
                }
                list.push((id, value));
            }
        }
    }
    Ok(by_stage)
}

/// GLSL text without comments (a `uniform Block {` in a comment declares nothing).
fn strip_glsl_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
            out.push(' ');
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Whether GLSL declares a uniform block: shader_runner then makes and binds one buffer per
/// block itself (glUniformBlockBinding(prog, i, i)) and routes `uniform` commands for its
/// members into it, which conform cannot express.
fn declares_glsl_uniform_block(text: &str) -> bool {
    let re = regex::Regex::new(r"\buniform\s+[A-Za-z_][A-Za-z0-9_]*\s*\{").expect("valid regex");
    re.is_match(&strip_glsl_comments(text))
}

/// Whether SPIR-V assembly declares a uniform block: a `Block`-decorated struct behind a
/// `Uniform` pointer.
fn declares_spirv_uniform_block(text: &str) -> bool {
    let block = regex::Regex::new(r"OpDecorate\s+(%[\w.]+)\s+Block\b").expect("valid regex");
    let pointer = regex::Regex::new(r"OpTypePointer\s+Uniform\s+(%[\w.]+)").expect("valid regex");
    let blocks: Vec<String> = block
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str().to_string()))
        .collect();
    let pointees: Vec<String> = pointer
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str().to_string()))
        .collect();
    pointees.iter().any(|p| blocks.contains(p))
}
