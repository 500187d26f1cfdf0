//! Building a plan's programs and making them current: GLSL compile and link, SPIR-V load and
//! specialization, NV assembly load (its failures with their positions mapped to
//! `origin:line`), and the logs.

use super::{unsupported, Program, Runner};
use crate::gl_query::*;
use conform_gl as gl;
use conform_gl::types::{GLenum, GLint, GLuint};
use conform_plan::{BuildOutcome, BuildStage, Language, ProgramSource, Refusal, Stage};
use std::ffi::CString;

/// The load log of an NV assembly program, or None when it loaded: ProgramStringARB failed when
/// it raised `err` or left an error position other than -1. The log is the driver's error
/// string plus the position mapped to `origin:line`.
pub(crate) fn nv_load_failure(
    msg: &str,
    err: u32,
    pos: GLint,
    p: &ProgramSource,
) -> Option<String> {
    if err == gl::NO_ERROR && pos == -1 {
        return None;
    }
    let mut log = msg.trim_end().to_string();
    let line = if pos >= 0 {
        let upto = (pos as usize).min(p.text.len());
        let nl = p.text.as_bytes()[..upto]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        format!(" ({}:{})", p.origin, p.first_line as usize + nl)
    } else {
        String::new()
    };
    if !log.is_empty() {
        log.push('\n');
    }
    let what = if err == gl::NO_ERROR {
        "no error raised".to_string()
    } else {
        format!("{:?}", gl_error(err))
    };
    log.push_str(&format!(
        "ProgramStringARB: {what}, error position {pos}{line}"
    ));
    Some(log)
}

pub(crate) fn stage_enum(stage: Stage) -> GLenum {
    match stage {
        Stage::Compute => gl::COMPUTE_SHADER,
        Stage::Vertex => gl::VERTEX_SHADER,
        Stage::Fragment => gl::FRAGMENT_SHADER,
        Stage::Geometry => gl::GEOMETRY_SHADER,
        Stage::TessControl => gl::TESS_CONTROL_SHADER,
        Stage::TessEvaluation => gl::TESS_EVALUATION_SHADER,
    }
}

pub(crate) fn shader_log(gl: &gl::Gl, sh: GLuint) -> String {
    let mut len = 0;
    // SAFETY: the buffer has the reported length.
    unsafe {
        gl.GetShaderiv(sh, gl::INFO_LOG_LENGTH, &mut len);
        let mut buf = vec![0u8; len.max(1) as usize];
        let mut written = 0;
        gl.GetShaderInfoLog(sh, buf.len() as i32, &mut written, buf.as_mut_ptr().cast());
        buf.truncate(written.clamp(0, len.max(0)) as usize);
        String::from_utf8_lossy(&buf).trim_end().to_string()
    }
}

pub(crate) fn program_log(gl: &gl::Gl, p: GLuint) -> String {
    let mut len = 0;
    // SAFETY: the buffer has the reported length.
    unsafe {
        gl.GetProgramiv(p, gl::INFO_LOG_LENGTH, &mut len);
        let mut buf = vec![0u8; len.max(1) as usize];
        let mut written = 0;
        gl.GetProgramInfoLog(p, buf.len() as i32, &mut written, buf.as_mut_ptr().cast());
        buf.truncate(written.clamp(0, len.max(0)) as usize);
        String::from_utf8_lossy(&buf).trim_end().to_string()
    }
}

pub(crate) fn append_log(log: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if !log.is_empty() && !log.ends_with('\n') {
        log.push('\n');
    }
    log.push_str(text);
}

/// Compiles GLSL; returns the failed stage, if any.
pub(crate) fn compile_glsl(
    gl: &gl::Gl,
    sh: GLuint,
    text: &str,
    log: &mut String,
) -> Option<BuildStage> {
    let ptr = text.as_ptr().cast();
    let len = text.len() as i32;
    let mut ok = 0;
    // SAFETY: one string with an explicit length.
    unsafe {
        gl.ShaderSource(sh, 1, &ptr, &len);
        gl.CompileShader(sh);
        gl.GetShaderiv(sh, gl::COMPILE_STATUS, &mut ok);
    }
    append_log(log, &shader_log(gl, sh));
    take_error(gl);
    (ok == 0).then_some(BuildStage::Compile)
}

/// Loads and specializes a SPIR-V module; returns the failed stage, if any.
pub(crate) fn specialize_spirv(
    gl: &gl::Gl,
    sh: GLuint,
    p: &ProgramSource,
    log: &mut String,
) -> Option<BuildStage> {
    take_error(gl);
    // SAFETY: the words slice is the binary; its byte length is passed.
    unsafe {
        gl.ShaderBinary(
            1,
            &sh,
            gl::SHADER_BINARY_FORMAT_SPIR_V,
            p.words.as_ptr().cast(),
            (p.words.len() * 4) as i32,
        )
    };
    let err = take_error(gl);
    if err != gl::NO_ERROR {
        append_log(log, &shader_log(gl, sh));
        append_log(
            log,
            &format!("ShaderBinary(SPIR-V) raised {:?}", gl_error(err)),
        );
        return Some(BuildStage::Validate);
    }
    let entry = CString::new(if p.entry.is_empty() { "main" } else { &p.entry })
        .unwrap_or_else(|_| CString::from(c"main"));
    let ids: Vec<u32> = p.specialization.iter().map(|s| s.0).collect();
    let vals: Vec<u32> = p.specialization.iter().map(|s| s.1).collect();
    let mut ok = 0;
    // SAFETY: ids and values have the same length, passed as the count.
    unsafe {
        gl.SpecializeShader(
            sh,
            entry.as_ptr(),
            ids.len() as u32,
            ids.as_ptr(),
            vals.as_ptr(),
        );
        gl.GetShaderiv(sh, gl::COMPILE_STATUS, &mut ok);
    }
    let err = take_error(gl);
    append_log(log, &shader_log(gl, sh));
    if err != gl::NO_ERROR {
        append_log(log, &format!("SpecializeShader raised {:?}", gl_error(err)));
    }
    (ok == 0 || err != gl::NO_ERROR).then_some(BuildStage::Validate)
}

/// Links; returns whether it succeeded.
pub(crate) fn link(gl: &gl::Gl, prog: GLuint, log: &mut String) -> bool {
    let mut ok = 0;
    // SAFETY: live program object.
    unsafe {
        gl.LinkProgram(prog);
        gl.GetProgramiv(prog, gl::LINK_STATUS, &mut ok);
    }
    append_log(log, &program_log(gl, prog));
    take_error(gl);
    ok != 0
}

impl Runner<'_> {
    pub(super) fn build(&mut self) -> Result<BuildOutcome, Refusal> {
        let plan = self.plan;
        if plan.programs.is_empty() {
            return Ok(BuildOutcome::default());
        }
        if plan.programs[0].language == Language::Nvasm {
            return Ok(self.build_nv(&plan.programs[0]));
        }
        let gl = self.gl;
        let mut log = String::new();
        let mut failed = None;
        for p in &plan.programs {
            let stage = stage_enum(p.stage);
            // SAFETY: valid enum; returns 0 on error.
            let sh = unsafe { gl.CreateShader(stage) };
            if sh == 0 {
                take_error(gl);
                return Err(unsupported(&format!("{:?} shaders", p.stage)));
            }
            self.shaders.push(sh);
            let stage_failed = match p.language {
                Language::Glsl => compile_glsl(gl, sh, &p.text, &mut log),
                _ => specialize_spirv(gl, sh, p, &mut log),
            };
            if stage_failed.is_some() && failed.is_none() {
                failed = stage_failed;
            }
        }
        if failed.is_some() {
            return Ok(BuildOutcome {
                failed_at: failed,
                log,
            });
        }
        // SAFETY: plain object creation.
        let prog = unsafe { gl.CreateProgram() };
        self.program = Program::Object(prog);
        for &sh in &self.shaders {
            // SAFETY: both names are live objects.
            unsafe { gl.AttachShader(prog, sh) };
        }
        if !link(gl, prog, &mut log) {
            return Ok(BuildOutcome {
                failed_at: Some(BuildStage::Link),
                log,
            });
        }
        take_error(gl);
        Ok(BuildOutcome {
            failed_at: None,
            log,
        })
    }

    fn build_nv(&mut self, p: &ProgramSource) -> BuildOutcome {
        let gl = self.gl;
        let mut id = 0;
        // SAFETY: the extension string offers NV_compute_program5 (checked).
        unsafe {
            gl.GenProgramsARB(1, &mut id);
            gl.BindProgramARB(gl::COMPUTE_PROGRAM_NV, id);
        }
        self.program = Program::Nv(id);
        take_error(gl);
        // SAFETY: the pointer and length describe `p.text`.
        unsafe {
            gl.ProgramStringARB(
                gl::COMPUTE_PROGRAM_NV,
                gl::PROGRAM_FORMAT_ASCII_ARB,
                p.text.len() as i32,
                p.text.as_ptr().cast(),
            )
        };
        let err = take_error(gl);
        let pos = get_int(gl, gl::PROGRAM_ERROR_POSITION_ARB);
        let msg = get_string(gl, gl::PROGRAM_ERROR_STRING_ARB);
        take_error(gl);
        if let Some(log) = nv_load_failure(&msg, err, pos, p) {
            return BuildOutcome {
                failed_at: Some(BuildStage::Load),
                log,
            };
        }
        let log = msg.trim_end().to_string();
        // SAFETY: as above.
        unsafe { gl.Enable(gl::COMPUTE_PROGRAM_NV) };
        take_error(gl);
        BuildOutcome {
            failed_at: None,
            log,
        }
    }

    /// Makes the program current (UseProgram / BindProgramARB + Enable) and sets uniforms.
    pub(crate) fn use_program(&mut self) -> Result<(), Refusal> {
        let gl = self.gl;
        match self.program {
            Program::None => {}
            // SAFETY: live program object.
            Program::Object(p) => unsafe { gl.UseProgram(p) },
            // SAFETY: the extension string offers NV_compute_program5.
            Program::Nv(p) => unsafe {
                gl.BindProgramARB(gl::COMPUTE_PROGRAM_NV, p);
                gl.Enable(gl::COMPUTE_PROGRAM_NV);
            },
        }
        take_error(gl);
        self.set_uniforms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nv_load_failures_map_positions_to_lines() {
        let p = ProgramSource {
            language: Language::Nvasm,
            stage: Stage::Compute,
            text: "!!NVcp5.0\nTEMP r;\nMOV r, 0;\nEND\n".into(),
            words: vec![],
            origin: "cases/x.yaml".into(),
            first_line: 10,
            entry: String::new(),
            specialization: vec![],
        };
        assert_eq!(nv_load_failure("", gl::NO_ERROR, -1, &p), None);
        let pos = p.text.find("MOV").unwrap() as GLint;
        let log = nv_load_failure(
            "line 3: GROUP_SIZE missing\n",
            gl::INVALID_OPERATION,
            pos,
            &p,
        )
        .unwrap();
        assert_eq!(
            log,
            "line 3: GROUP_SIZE missing\nProgramStringARB: InvalidOperation, error position 18 \
             (cases/x.yaml:12)"
        );
        // A position past the end is clamped; an error without a position has no line.
        assert!(nv_load_failure("", gl::INVALID_OPERATION, 9999, &p)
            .unwrap()
            .ends_with("(cases/x.yaml:14)"));
        assert_eq!(
            nv_load_failure("", gl::INVALID_OPERATION, -1, &p).unwrap(),
            "ProgramStringARB: InvalidOperation, error position -1"
        );
    }
}
