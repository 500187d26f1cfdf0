//! A typed piglit test → conform cases, one per run shader_runner can make of it (GLSL,
//! SPIR-V, or both for `SPIRV YES`), or the reason it cannot be expressed.
//!
//! The rule is that an imported case passes exactly where the piglit test passes. What
//! conform cannot express is a skip with a reason, never an approximation; what is left out
//! must be unable to change the verdict (drawing state in a test that never draws), and is
//! listed. The semantics followed are shader_runner's (tests/shaders/shader_runner.c).
//!
//! This module makes the runs and maps `[require]`; [`super::program`] turns the sections
//! into programs and [`super::steps`] the `[test]` commands into buffers, steps and
//! expectations.

use super::case::{Case, Requires};
use super::command::Op;
use super::outcome::{Converted, GlslVersion, Mode, Names, Run, Skip};
use super::parse::{Profile, Requirement, ShaderTest, SpirvMode};
use super::{program, steps};

/// Converts one test: one run, or two for `SPIRV YES` (`--1` GLSL, `--2` SPIR-V).
pub fn convert(test: &ShaderTest, names: &Names) -> Vec<Run> {
    let modes: &[Mode] = match test.spirv_mode() {
        None => &[Mode::Glsl],
        Some(SpirvMode::Only) => &[Mode::Spirv],
        Some(SpirvMode::Yes) => &[Mode::Glsl, Mode::Spirv],
    };
    modes
        .iter()
        .enumerate()
        .map(|(i, &mode)| {
            let (name, variant_note) = if modes.len() > 1 {
                (
                    format!("{}--{}", names.base, i + 1),
                    Some(format!("{} run of a SPIRV YES test", mode.name())),
                )
            } else {
                (names.base.clone(), None)
            };
            Run {
                mode,
                name: name.clone(),
                result: convert_run(test, mode, name, names.label.clone(), variant_note),
            }
        })
        .collect()
}

fn convert_run(
    test: &ShaderTest,
    mode: Mode,
    name: String,
    label: String,
    variant_note: Option<String>,
) -> Result<Converted, Skip> {
    let mut out = Converted {
        case: Case {
            name,
            source_label: label,
            variant_note,
            header_comments: test.header_comments.clone(),
            requires: Requires::default(),
            programs: Vec::new(),
            buffers: Vec::new(),
            images: Vec::new(),
            textures: Vec::new(),
            items: Vec::new(),
            fails_at_link: None,
        },
        left_out: Vec::new(),
        notes: Vec::new(),
    };
    if !test.has_test {
        return Err(Skip::new(
            "no [test] section",
            "shader_runner then only compiles and never checks the link",
            None,
        ));
    }
    let glsl_version = requirements(test, mode, &mut out)?;
    program::programs(test, mode, glsl_version, &mut out)?;
    steps::walk(&mut out, test, mode)?;
    Ok(out)
}

/// `[require]` → `requires:`; returns the GLSL version for `#version`.
fn requirements(
    test: &ShaderTest,
    mode: Mode,
    out: &mut Converted,
) -> Result<Option<GlslVersion>, Skip> {
    let r = &mut out.case.requires;
    let mut gl: Option<(u32, bool)> = None;
    let mut glsl: Option<GlslVersion> = None;
    let mut glsl_max: Option<u32> = None;
    for l in &test.requirements {
        match &l.item {
            Requirement::Gl {
                profile,
                es,
                op,
                num,
            } => {
                let min = match op {
                    Op::Ge => *num,
                    Op::Gt => num.saturating_add(1),
                    _ => return Err(Skip::at(l, "GL version other than >= or >")),
                };
                if gl.is_some_and(|(_, e)| e != *es) {
                    return Err(Skip::at(l, "GL and GL ES requirements together"));
                }
                gl = Some((gl.map_or(min, |(n, _)| n.max(min)), *es));
                match profile {
                    Some(Profile::Core) => r.profile = Some("core"),
                    Some(Profile::Compat) => r.profile = Some("compatibility"),
                    None => {}
                }
            }
            Requirement::Glsl { es, num, .. } => {
                if glsl.is_some_and(|g| g.es != *es) {
                    return Err(Skip::at(l, "GLSL and GLSL ES requirements together"));
                }
                glsl = Some(GlslVersion { num: *num, es: *es });
                glsl_max = Some(glsl_max.map_or(*num, |m| m.max(*num)));
            }
            Requirement::Extension(e) => {
                if !r.extensions.contains(e) {
                    r.extensions.push(e.clone());
                }
            }
            Requirement::NotExtension(_) => {
                return Err(Skip::at(l, "an extension required to be absent"))
            }
            Requirement::Limit { name, op, value } => {
                let min = match op {
                    Op::Ge => *value,
                    Op::Gt => value + 1,
                    _ => return Err(Skip::at(l, "a limit other than >= or >")),
                };
                let key = name.strip_prefix("GL_").unwrap_or(name).to_string();
                match r.limits.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => *v = (*v).max(min),
                    None => r.limits.push((key, min)),
                }
            }
            Requirement::Spirv(_) => {}
            Requirement::Sso => return Err(Skip::at(l, "SSO program pipelines")),
            Requirement::SeparableProgram => return Err(Skip::at(l, "separable programs")),
            Requirement::Rlimit(_) => {
                return Err(Skip::at(l, "rlimit").why("a memory cap on the test process"))
            }
            Requirement::WindowSize | Requirement::DepthBuffer => out.left_out.push(format!(
                "line {}: `{}` (window configuration; only drawing uses it)",
                l.line, l.text
            )),
            Requirement::Other(_) => return Err(Skip::at(l, "unknown requirement")),
        }
    }
    let gl_es = gl.is_some_and(|(_, es)| es);
    if let Some(g) = glsl {
        if g.es != gl_es {
            return Err(Skip::new(
                "GL and GLSL requirements of different APIs",
                "shader_runner always skips such a test",
                None,
            ));
        }
    }
    if gl_es {
        if mode == Mode::Spirv {
            return Err(Skip::new(
                "SPIR-V in a GL ES test",
                "ARB_gl_spirv is desktop GL only",
                None,
            ));
        }
        let from_gl = gl.map_or(0, |(n, _)| n);
        let from_glsl = match glsl_max {
            None => 0,
            Some(n) if n <= 100 => 20,
            Some(n) if n <= 300 => 30,
            Some(n) if n <= 310 => 31,
            Some(n) if n <= 320 => 32,
            Some(n) => {
                return Err(Skip::new(
                    "GLSL ES version beyond every GL ES version",
                    format!("GLSL ES {}.{:02}", n / 100, n % 100),
                    None,
                ))
            }
        };
        let n = from_gl.max(from_glsl);
        r.gles = Some(format!("{}.{}", n / 10, n % 10));
    } else {
        if let Some((n, _)) = gl {
            r.gl = Some(format!("{}.{}", n / 10, n % 10));
        }
        r.glsl = glsl_max;
    }
    Ok(glsl)
}
