//! Setting a plan's plain (default-block) uniforms on the case's GLSL or SPIR-V program.

use crate::exec::{gl_error, take_error, unsupported, Program, Runner};
use conform_gl as gl;
use conform_gl::types::{GLint, GLuint};
use conform_plan::{Refusal, Scalar};
use std::ffi::CString;

impl Runner<'_> {
    pub(crate) fn set_uniforms(&mut self) -> Result<(), Refusal> {
        let gl = self.gl;
        let prog = match self.program {
            Program::Object(p) => p,
            _ if self.plan.uniforms.is_empty() => return Ok(()),
            _ => {
                return Err(Refusal::Internal(
                    "uniforms need a GLSL or SPIR-V program".into(),
                ))
            }
        };
        // SAFETY: live program object.
        unsafe { gl.UseProgram(prog) };
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
            let size = u.elem.size();
            if size == 0 || u.bytes.len() % size != 0 {
                return Err(Refusal::Internal(format!(
                    "uniform `{}` has {} bytes, not a multiple of {}",
                    u.name,
                    u.bytes.len(),
                    u.elem
                )));
            }
            let count = (u.bytes.len() / size) as i32;
            let lanes = u.elem.lanes;
            // SAFETY: each call reads `count * lanes` values from a vector of that length.
            unsafe {
                match u.elem.scalar {
                    Scalar::U32 => {
                        let v = conform_plan::bytes::read_u32s(&u.bytes);
                        let p = v.as_ptr();
                        match lanes {
                            1 => gl.Uniform1uiv(loc, count, p),
                            2 => gl.Uniform2uiv(loc, count, p),
                            3 => gl.Uniform3uiv(loc, count, p),
                            _ => gl.Uniform4uiv(loc, count, p),
                        }
                    }
                    Scalar::I32 => {
                        let v: Vec<i32> = conform_plan::bytes::read_u32s(&u.bytes)
                            .into_iter()
                            .map(|w| w as i32)
                            .collect();
                        let p = v.as_ptr();
                        match lanes {
                            1 => gl.Uniform1iv(loc, count, p),
                            2 => gl.Uniform2iv(loc, count, p),
                            3 => gl.Uniform3iv(loc, count, p),
                            _ => gl.Uniform4iv(loc, count, p),
                        }
                    }
                    Scalar::F32 => {
                        let v: Vec<f32> = conform_plan::bytes::read_u32s(&u.bytes)
                            .into_iter()
                            .map(f32::from_bits)
                            .collect();
                        let p = v.as_ptr();
                        match lanes {
                            1 => gl.Uniform1fv(loc, count, p),
                            2 => gl.Uniform2fv(loc, count, p),
                            3 => gl.Uniform3fv(loc, count, p),
                            _ => gl.Uniform4fv(loc, count, p),
                        }
                    }
                    Scalar::F64 if !self.caps.fp64() => {
                        return Err(unsupported("GL_ARB_gpu_shader_fp64"))
                    }
                    Scalar::F64 => {
                        let v: Vec<f64> = u
                            .bytes
                            .chunks_exact(8)
                            .map(|c| {
                                f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
                            })
                            .collect();
                        let p = v.as_ptr();
                        match lanes {
                            1 => gl.Uniform1dv(loc, count, p),
                            2 => gl.Uniform2dv(loc, count, p),
                            3 => gl.Uniform3dv(loc, count, p),
                            _ => gl.Uniform4dv(loc, count, p),
                        }
                    }
                    other => {
                        return Err(unsupported(&format!(
                            "uniforms of type {} in the GL runner",
                            other.name()
                        )))
                    }
                }
            }
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
}

fn uniform_location(gl: &gl::Gl, prog: GLuint, name: &str) -> GLint {
    match CString::new(name) {
        // SAFETY: NUL-terminated name.
        Ok(c) => unsafe { gl.GetUniformLocation(prog, c.as_ptr()) },
        Err(_) => -1,
    }
}
