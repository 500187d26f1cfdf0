//! Setting plain (default-block) uniforms on the case's GLSL or SPIR-V program: the plan's
//! `uniforms` before the first step, and `Step::Uniform` between steps. Both go through
//! glProgramUniform* (GL 4.1 / ARB_separate_shader_objects), so the values land in the case's
//! program whatever an `api` step made current.

use crate::exec::{unsupported, Program, Runner};
use crate::gl_query::{gl_error, take_error};
use conform_gl as gl;
use conform_gl::types::{GLint, GLuint};
use conform_plan::{Refusal, Scalar, StepOutcome, UniformSet, UniformTarget, UniformType};
use std::ffi::CString;

/// A uniform's values, decoded from little-endian bytes for the GL call.
enum Values {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
}

impl Values {
    fn decode(scalar: Scalar, bytes: &[u8]) -> Option<Values> {
        let w4 = || bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
        let w8 = || {
            bytes
                .chunks_exact(8)
                .map(|c| [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
        };
        Some(match scalar {
            Scalar::F32 => Values::F32(w4().map(f32::from_le_bytes).collect()),
            Scalar::I32 => Values::I32(w4().map(i32::from_le_bytes).collect()),
            Scalar::U32 => Values::U32(w4().map(u32::from_le_bytes).collect()),
            Scalar::F64 => Values::F64(w8().map(f64::from_le_bytes).collect()),
            Scalar::I64 => Values::I64(w8().map(i64::from_le_bytes).collect()),
            Scalar::U64 => Values::U64(w8().map(u64::from_le_bytes).collect()),
            _ => return None,
        })
    }
}

impl Runner<'_> {
    /// The case's program object, for uniforms.
    fn uniform_program(&self) -> Result<GLuint, Refusal> {
        match self.program {
            Program::Object(p) => Ok(p),
            _ => Err(Refusal::Internal(
                "uniforms need a GLSL or SPIR-V program".into(),
            )),
        }
    }

    /// What the context lacks to load values of `ty`, if anything.
    fn uniform_support(&self, ty: UniformType) -> Result<(), Refusal> {
        if !self.caps.separate_shader_objects() {
            return Err(unsupported(
                "GL 4.1 or GL_ARB_separate_shader_objects (glProgramUniform*)",
            ));
        }
        match ty.scalar() {
            Scalar::F64 if !self.caps.fp64() => Err(unsupported("GL_ARB_gpu_shader_fp64")),
            Scalar::I64 | Scalar::U64 if !self.caps.ext("GL_ARB_gpu_shader_int64") => {
                Err(unsupported("GL_ARB_gpu_shader_int64"))
            }
            _ => Ok(()),
        }
    }

    /// Sets the plan's `uniforms` (by name) on the program.
    pub(crate) fn set_uniforms(&mut self) -> Result<(), Refusal> {
        if self.plan.uniforms.is_empty() {
            return Ok(());
        }
        let gl = self.gl;
        let prog = self.uniform_program()?;
        for u in &self.plan.uniforms {
            let mut loc = uniform_location(gl, prog, &u.name);
            if loc < 0 {
                loc = uniform_location(gl, prog, &format!("{}[0]", u.name));
            }
            if loc < 0 {
                self.notes.push(format!(
                    "uniform `{}` is not active in the program; not set",
                    u.name
                ));
                continue;
            }
            let ty = UniformType::Elem(u.elem);
            self.uniform_support(ty)?;
            load(gl, prog, loc, ty, &u.bytes)?;
            let err = take_error(gl);
            if err != gl::NO_ERROR {
                self.notes.push(format!(
                    "setting uniform `{}` raised {:?}",
                    u.name,
                    gl_error(err)
                ));
            }
        }
        Ok(())
    }

    /// A `Step::Uniform`: glGetUniformLocation for a name (-1 when the program has no active
    /// uniform of that name: GL then ignores the values, and a note says so), then the
    /// glProgramUniform* its type names. The step's error is what GL raised.
    pub(crate) fn uniform_step(&mut self, set: &UniformSet) -> Result<StepOutcome, Refusal> {
        let gl = self.gl;
        let prog = self.uniform_program()?;
        self.uniform_support(set.ty)?;
        take_error(gl);
        let loc = match &set.target {
            UniformTarget::Location(l) => *l,
            UniformTarget::Name(n) => {
                let loc = uniform_location(gl, prog, n);
                if loc < 0 {
                    self.notes.push(format!(
                        "uniform `{n}`: glGetUniformLocation gave -1 (no active uniform of that name); GL ignores the values"
                    ));
                }
                loc
            }
        };
        load(gl, prog, loc, set.ty, &set.bytes)?;
        Ok(StepOutcome {
            error: Some(gl_error(take_error(gl))),
            values: vec![],
            applicable: true,
        })
    }
}

/// glProgramUniform* of `bytes` (`count` values of `ty`) at `loc` of `prog`.
fn load(
    gl: &gl::Gl,
    prog: GLuint,
    loc: GLint,
    ty: UniformType,
    bytes: &[u8],
) -> Result<(), Refusal> {
    let size = ty.size();
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return Err(Refusal::Internal(format!(
            "{} bytes of uniform values are not whole {ty} values",
            bytes.len()
        )));
    }
    let count = i32::try_from(bytes.len() / size)
        .map_err(|_| Refusal::Internal("too many uniform values".into()))?;
    let values = Values::decode(ty.scalar(), bytes)
        .ok_or_else(|| unsupported(&format!("uniforms of type {ty}")))?;
    let no = gl::FALSE;
    // SAFETY: each call reads `count` values of `ty` (count × components scalars) from a
    // vector holding exactly that many; the context offers the command (uniform_support).
    unsafe {
        match (ty, &values) {
            (UniformType::Elem(e), Values::F32(v)) => {
                let p = v.as_ptr();
                match e.lanes {
                    1 => gl.ProgramUniform1fv(prog, loc, count, p),
                    2 => gl.ProgramUniform2fv(prog, loc, count, p),
                    3 => gl.ProgramUniform3fv(prog, loc, count, p),
                    _ => gl.ProgramUniform4fv(prog, loc, count, p),
                }
            }
            (UniformType::Elem(e), Values::F64(v)) => {
                let p = v.as_ptr();
                match e.lanes {
                    1 => gl.ProgramUniform1dv(prog, loc, count, p),
                    2 => gl.ProgramUniform2dv(prog, loc, count, p),
                    3 => gl.ProgramUniform3dv(prog, loc, count, p),
                    _ => gl.ProgramUniform4dv(prog, loc, count, p),
                }
            }
            (UniformType::Elem(e), Values::I32(v)) => {
                let p = v.as_ptr();
                match e.lanes {
                    1 => gl.ProgramUniform1iv(prog, loc, count, p),
                    2 => gl.ProgramUniform2iv(prog, loc, count, p),
                    3 => gl.ProgramUniform3iv(prog, loc, count, p),
                    _ => gl.ProgramUniform4iv(prog, loc, count, p),
                }
            }
            (UniformType::Elem(e), Values::U32(v)) => {
                let p = v.as_ptr();
                match e.lanes {
                    1 => gl.ProgramUniform1uiv(prog, loc, count, p),
                    2 => gl.ProgramUniform2uiv(prog, loc, count, p),
                    3 => gl.ProgramUniform3uiv(prog, loc, count, p),
                    _ => gl.ProgramUniform4uiv(prog, loc, count, p),
                }
            }
            (UniformType::Elem(e), Values::I64(v)) => {
                let p = v.as_ptr();
                match e.lanes {
                    1 => gl.ProgramUniform1i64vARB(prog, loc, count, p),
                    2 => gl.ProgramUniform2i64vARB(prog, loc, count, p),
                    3 => gl.ProgramUniform3i64vARB(prog, loc, count, p),
                    _ => gl.ProgramUniform4i64vARB(prog, loc, count, p),
                }
            }
            (UniformType::Elem(e), Values::U64(v)) => {
                let p = v.as_ptr();
                match e.lanes {
                    1 => gl.ProgramUniform1ui64vARB(prog, loc, count, p),
                    2 => gl.ProgramUniform2ui64vARB(prog, loc, count, p),
                    3 => gl.ProgramUniform3ui64vARB(prog, loc, count, p),
                    _ => gl.ProgramUniform4ui64vARB(prog, loc, count, p),
                }
            }
            (UniformType::Matrix { columns, rows, .. }, Values::F32(v)) => {
                let p = v.as_ptr();
                match (columns, rows) {
                    (2, 2) => gl.ProgramUniformMatrix2fv(prog, loc, count, no, p),
                    (3, 3) => gl.ProgramUniformMatrix3fv(prog, loc, count, no, p),
                    (4, 4) => gl.ProgramUniformMatrix4fv(prog, loc, count, no, p),
                    (2, 3) => gl.ProgramUniformMatrix2x3fv(prog, loc, count, no, p),
                    (3, 2) => gl.ProgramUniformMatrix3x2fv(prog, loc, count, no, p),
                    (2, 4) => gl.ProgramUniformMatrix2x4fv(prog, loc, count, no, p),
                    (4, 2) => gl.ProgramUniformMatrix4x2fv(prog, loc, count, no, p),
                    (3, 4) => gl.ProgramUniformMatrix3x4fv(prog, loc, count, no, p),
                    _ => gl.ProgramUniformMatrix4x3fv(prog, loc, count, no, p),
                }
            }
            (UniformType::Matrix { columns, rows, .. }, Values::F64(v)) => {
                let p = v.as_ptr();
                match (columns, rows) {
                    (2, 2) => gl.ProgramUniformMatrix2dv(prog, loc, count, no, p),
                    (3, 3) => gl.ProgramUniformMatrix3dv(prog, loc, count, no, p),
                    (4, 4) => gl.ProgramUniformMatrix4dv(prog, loc, count, no, p),
                    (2, 3) => gl.ProgramUniformMatrix2x3dv(prog, loc, count, no, p),
                    (3, 2) => gl.ProgramUniformMatrix3x2dv(prog, loc, count, no, p),
                    (2, 4) => gl.ProgramUniformMatrix2x4dv(prog, loc, count, no, p),
                    (4, 2) => gl.ProgramUniformMatrix4x2dv(prog, loc, count, no, p),
                    (3, 4) => gl.ProgramUniformMatrix3x4dv(prog, loc, count, no, p),
                    _ => gl.ProgramUniformMatrix4x3dv(prog, loc, count, no, p),
                }
            }
            (UniformType::Matrix { .. }, _) => {
                return Err(unsupported(&format!("uniforms of type {ty}")))
            }
        }
    }
    Ok(())
}

fn uniform_location(gl: &gl::Gl, prog: GLuint, name: &str) -> GLint {
    match CString::new(name) {
        // SAFETY: NUL-terminated name.
        Ok(c) => unsafe { gl.GetUniformLocation(prog, c.as_ptr()) },
        Err(_) => -1,
    }
}
