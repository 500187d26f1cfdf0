//! The plan's buffers on the driver: creating them (GL buffers bound to their targets, images,
//! sampled textures, NV program parameters), writing them with glBufferSubData through the
//! copy-write target, and reading them back (glGetBufferSubData, or by mapping, the only way
//! OpenGL ES reads a buffer).

use super::Runner;
use crate::gl_query::*;
use crate::images;
use crate::sampled;
use conform_gl as gl;
use conform_gl::types::GLuint;
use conform_plan::{BufferKind, ImageDim, Refusal, Scalar};

impl Runner<'_> {
    /// Notes the GL error the creation of a buffer or an image raised, if any: "`what`
    /// `binding`) raised ERROR".
    fn note_error(&mut self, what: std::fmt::Arguments, binding: u32) {
        let err = take_error(self.gl);
        if err != gl::NO_ERROR {
            let what = what.to_string();
            self.notes
                .push(format!("{what} {binding}) raised {:?}", gl_error(err)));
        }
    }

    pub(super) fn create_buffers(&mut self) -> Result<(), Refusal> {
        let gl = self.gl;
        for (i, b) in self.plan.buffers.iter().enumerate() {
            match b.kind {
                BufferKind::ProgramLocal | BufferKind::ProgramEnv => {
                    self.buffers.push(None);
                    self.set_params(i)?;
                    continue;
                }
                BufferKind::Image(desc) if desc.dim != ImageDim::Buffer => {
                    self.buffers.push(None);
                    let tex = images::create(gl, &desc, b.binding, &b.bytes);
                    self.textures.push((i, tex));
                    self.note_error(
                        format_args!("creating/binding image `{}` (unit", b.name),
                        b.binding,
                    );
                    continue;
                }
                BufferKind::Texture(desc) => {
                    self.buffers.push(None);
                    let tex = sampled::create(gl, &desc, b.binding, &b.bytes);
                    self.sampled.push((i, tex));
                    self.note_error(
                        format_args!("creating/binding texture `{}` (texture unit", b.name),
                        b.binding,
                    );
                    continue;
                }
                _ => {}
            }
            let mut id = 0;
            // SAFETY: uploads `b.bytes` through the copy-write target, so no binding the case
            // can observe (e.g. DISPATCH_INDIRECT_BUFFER) is touched.
            unsafe {
                gl.GenBuffers(1, &mut id);
                gl.BindBuffer(gl::COPY_WRITE_BUFFER, id);
                let ptr = if b.bytes.is_empty() {
                    std::ptr::null()
                } else {
                    b.bytes.as_ptr().cast()
                };
                gl.BufferData(
                    gl::COPY_WRITE_BUFFER,
                    b.bytes.len() as isize,
                    ptr,
                    gl::DYNAMIC_COPY,
                );
                gl.BindBuffer(gl::COPY_WRITE_BUFFER, 0);
            }
            self.buffers.push(Some(id));
            let target = match b.kind {
                BufferKind::Storage => Some(gl::SHADER_STORAGE_BUFFER),
                BufferKind::AtomicCounter => Some(gl::ATOMIC_COUNTER_BUFFER),
                BufferKind::Uniform => Some(gl::UNIFORM_BUFFER),
                BufferKind::ParameterBuffer => Some(gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV),
                _ => None,
            };
            if let Some(target) = target {
                // SAFETY: live buffer, target gated in check_support.
                unsafe { gl.BindBufferBase(target, b.binding, id) };
                self.bindings.push((target, b.binding));
            }
            if let BufferKind::Image(desc) = b.kind {
                let tex = images::create_buffer_texture(gl, &desc, b.binding, id);
                self.textures.push((i, tex));
                self.note_error(
                    format_args!("creating/binding buffer image `{}` (unit", b.name),
                    b.binding,
                );
                continue;
            }
            self.note_error(
                format_args!("creating/binding buffer `{}` (binding", b.name),
                b.binding,
            );
        }
        Ok(())
    }

    /// Writes program local/env parameters for plan buffer `i` (vec4s from index `binding`).
    pub(crate) fn set_params(&mut self, i: usize) -> Result<(), Refusal> {
        let gl = self.gl;
        let b = &self.plan.buffers[i];
        if b.elem.scalar.size() != 4 || !b.bytes.len().is_multiple_of(16) {
            return Err(Refusal::Internal(format!(
                "parameter buffer `{}` must be whole vec4s of 32-bit values",
                b.name
            )));
        }
        let words = conform_plan::bytes::read_u32s(&b.bytes);
        let t = gl::COMPUTE_PROGRAM_NV;
        for (k, v) in words.chunks_exact(4).enumerate() {
            let index = b.binding + k as u32;
            let f: Vec<f32> = v.iter().map(|w| f32::from_bits(*w)).collect();
            let s: Vec<i32> = v.iter().map(|w| *w as i32).collect();
            // SAFETY: four values each; NV_compute_program5 implies NV_gpu_program4.
            unsafe {
                match (b.kind, b.elem.scalar) {
                    (BufferKind::ProgramLocal, Scalar::F32) => {
                        gl.ProgramLocalParameter4fvARB(t, index, f.as_ptr())
                    }
                    (BufferKind::ProgramLocal, Scalar::I32) => {
                        gl.ProgramLocalParameterI4ivNV(t, index, s.as_ptr())
                    }
                    (BufferKind::ProgramLocal, _) => {
                        gl.ProgramLocalParameterI4uivNV(t, index, v.as_ptr())
                    }
                    (_, Scalar::F32) => gl.ProgramEnvParameter4fvARB(t, index, f.as_ptr()),
                    (_, Scalar::I32) => gl.ProgramEnvParameterI4ivNV(t, index, s.as_ptr()),
                    (_, _) => gl.ProgramEnvParameterI4uivNV(t, index, v.as_ptr()),
                }
            }
            if b.kind == BufferKind::ProgramEnv {
                self.env_params.push(index);
            }
        }
        let err = take_error(gl);
        if err != gl::NO_ERROR {
            self.notes.push(format!(
                "setting parameters `{}` from index {} raised {:?}",
                b.name,
                b.binding,
                gl_error(err)
            ));
        }
        Ok(())
    }

    pub(super) fn read_back(&mut self) -> Vec<Vec<u8>> {
        let gl = self.gl;
        let mut out = Vec::with_capacity(self.plan.buffers.len());
        for (i, b) in self.plan.buffers.iter().enumerate() {
            let mut bytes = vec![0u8; b.bytes.len()];
            // A buffer image is read through its buffer object, as any buffer.
            let buffer_image = matches!(b.kind, BufferKind::Image(d) if d.dim == ImageDim::Buffer);
            let texture = self
                .textures
                .iter()
                .find(|t| t.0 == i && !buffer_image)
                .map(|t| t.1);
            match self.buffers.get(i).copied().flatten() {
                // Nothing a plan does writes a sampled texture (no image unit, no
                // framebuffer holds it): its texels are the ones uploaded.
                _ if matches!(b.kind, BufferKind::Texture(_)) => bytes.copy_from_slice(&b.bytes),
                _ if texture.is_some() => {
                    if let (BufferKind::Image(desc), Some(tex)) = (b.kind, texture) {
                        if self.caps.es() {
                            if let Err(e) = images::read_es(gl, tex, &desc, &mut bytes) {
                                self.notes.push(format!("reading image `{}`: {e}", b.name));
                            }
                        } else {
                            images::read(gl, tex, &desc, &mut bytes);
                        }
                    }
                }
                Some(id) if !bytes.is_empty() && self.caps.get_buffer_sub_data() => {
                    // SAFETY: `bytes` has the buffer's size.
                    unsafe {
                        gl.BindBuffer(gl::COPY_READ_BUFFER, id);
                        gl.GetBufferSubData(
                            gl::COPY_READ_BUFFER,
                            0,
                            bytes.len() as isize,
                            bytes.as_mut_ptr().cast(),
                        );
                        gl.BindBuffer(gl::COPY_READ_BUFFER, 0);
                    }
                }
                Some(id) if !bytes.is_empty() => map_read(gl, id, &mut bytes),
                Some(_) => {}
                None => {
                    let t = gl::COMPUTE_PROGRAM_NV;
                    for (k, chunk) in bytes.chunks_exact_mut(16).enumerate() {
                        let index = b.binding + k as u32;
                        let mut v = [0u32; 4];
                        // SAFETY: four values each.
                        unsafe {
                            match (b.kind, b.elem.scalar) {
                                (BufferKind::ProgramLocal, Scalar::F32) => gl
                                    .GetProgramLocalParameterfvARB(t, index, v.as_mut_ptr().cast()),
                                (BufferKind::ProgramLocal, Scalar::I32) => gl
                                    .GetProgramLocalParameterIivNV(t, index, v.as_mut_ptr().cast()),
                                (BufferKind::ProgramLocal, _) => {
                                    gl.GetProgramLocalParameterIuivNV(t, index, v.as_mut_ptr())
                                }
                                (_, Scalar::F32) => {
                                    gl.GetProgramEnvParameterfvARB(t, index, v.as_mut_ptr().cast())
                                }
                                (_, Scalar::I32) => {
                                    gl.GetProgramEnvParameterIivNV(t, index, v.as_mut_ptr().cast())
                                }
                                (_, _) => gl.GetProgramEnvParameterIuivNV(t, index, v.as_mut_ptr()),
                            }
                        }
                        chunk.copy_from_slice(&conform_plan::bytes::from_u32s(&v));
                    }
                }
            }
            let err = take_error(gl);
            if err != gl::NO_ERROR {
                self.notes.push(format!(
                    "reading back buffer `{}` raised {:?}",
                    b.name,
                    gl_error(err)
                ));
            }
            out.push(bytes);
        }
        out
    }
}

/// glBufferSubData of `bytes` at `offset` of buffer `id`, through the copy-write target (no
/// binding a case can observe is touched). GL checks the range (a step may expect it to
/// refuse one).
pub(crate) fn buffer_sub_data(gl: &gl::Gl, id: GLuint, offset: isize, bytes: &[u8]) {
    // SAFETY: `bytes` holds the `len` bytes passed.
    unsafe {
        gl.BindBuffer(gl::COPY_WRITE_BUFFER, id);
        gl.BufferSubData(
            gl::COPY_WRITE_BUFFER,
            offset,
            bytes.len() as isize,
            bytes.as_ptr().cast(),
        );
        gl.BindBuffer(gl::COPY_WRITE_BUFFER, 0);
    }
}

/// Reads buffer `id` into `bytes` (its size) by glMapBufferRange(MAP_READ_BIT), the only way
/// OpenGL ES reads a buffer (it has no glGetBufferSubData). A failed map leaves `bytes` zero;
/// the error it raised is noted by the caller.
pub(crate) fn map_read(gl: &gl::Gl, id: GLuint, bytes: &mut [u8]) {
    // SAFETY: the mapped range is `bytes.len()` bytes of the bound buffer, read before unmap.
    unsafe {
        gl.BindBuffer(gl::COPY_READ_BUFFER, id);
        let p = gl.MapBufferRange(
            gl::COPY_READ_BUFFER,
            0,
            bytes.len() as isize,
            gl::MAP_READ_BIT,
        );
        if !p.is_null() {
            std::ptr::copy_nonoverlapping(p.cast::<u8>(), bytes.as_mut_ptr(), bytes.len());
            gl.UnmapBuffer(gl::COPY_READ_BUFFER);
        }
        gl.BindBuffer(gl::COPY_READ_BUFFER, 0);
    }
}
