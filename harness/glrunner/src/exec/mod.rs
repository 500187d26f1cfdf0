//! Executing one [`ExecPlan`] on the worker's current context.
//!
//! Every feature is gated on the extension string (or the context version), never on a loaded
//! function pointer: Mesa hands out non-null stubs for functions it does not implement.

//!
//! `build.rs` builds the programs, `memory.rs` moves buffer contents; the context's
//! capabilities are `crate::caps`, the small GL queries `crate::gl_query`.

mod build;
mod memory;

use crate::caps::{get_values, Caps};
use crate::enums::{self, ProgramRead};
use crate::gl_query::*;
use crate::images;
use crate::sampled;
use build::*;
pub(crate) use build::{compile_glsl, link};
use conform_gl as gl;
use conform_gl::types::{GLenum, GLuint};
use conform_plan::{
    BarrierBit, BufferKind, BuildOutcome, BuildStage, ExecPlan, GlError, ImageDim, Language,
    Outcome, ProgramSource, Refusal, Scalar, Stage, StepOutcome, Timings,
};
use memory::*;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Program {
    None,
    /// A GLSL or SPIR-V program object.
    Object(GLuint),
    /// An NV assembly program (ARB program name) on COMPUTE_PROGRAM_NV.
    Nv(GLuint),
}

/// One plan's GL objects. Dropping it deletes them and resets the bindings it touched, so the
/// worker's context is clean for the next plan.
pub(crate) struct Runner<'a> {
    pub gl: &'a gl::Gl,
    pub caps: &'a Caps,
    pub plan: &'a ExecPlan,
    pub program: Program,
    pub shaders: Vec<GLuint>,
    pub extra_programs: Vec<GLuint>,
    /// GL buffer names, per plan buffer (None for program parameters and images).
    pub buffers: Vec<Option<GLuint>>,
    /// Texture names of the plan's images: (index into the plan's buffers, texture).
    pub textures: Vec<(usize, GLuint)>,
    /// Texture names of the plan's sampled textures: (index into the plan's buffers, texture).
    pub sampled: Vec<(usize, GLuint)>,
    pub bindings: Vec<(GLenum, GLuint)>,
    pub pipelines: Vec<GLuint>,
    pub queries: Vec<GLuint>,
    pub conditional_render: bool,
    pub env_params: Vec<GLuint>,
    pub notes: Vec<String>,
    /// The buffers read at each `Step::Snapshot`.
    pub snapshots: Vec<Vec<Vec<u8>>>,
}

pub(crate) fn unsupported(what: &str) -> Refusal {
    Refusal::Unsupported(what.to_string())
}

impl<'a> Runner<'a> {
    fn new(gl: &'a gl::Gl, caps: &'a Caps, plan: &'a ExecPlan) -> Self {
        Runner {
            gl,
            caps,
            plan,
            program: Program::None,
            shaders: Vec::new(),
            extra_programs: Vec::new(),
            buffers: Vec::new(),
            textures: Vec::new(),
            sampled: Vec::new(),
            bindings: Vec::new(),
            pipelines: Vec::new(),
            queries: Vec::new(),
            conditional_render: false,
            env_params: Vec::new(),
            notes: Vec::new(),
            snapshots: Vec::new(),
        }
    }

    /// What the harness does before it reads buffers (after the last step, and at a
    /// `Step::Snapshot`): GL only promises that glGetBufferSubData sees shader writes after
    /// a BUFFER_UPDATE barrier, and glGetTexImage image stores after a TEXTURE_UPDATE one
    /// (glFinish alone does not). Its errors are cleared.
    fn observe(&self) {
        let gl = self.gl;
        // SAFETY: gated on the extension string; no other preconditions.
        unsafe {
            if self.caps.memory_barrier() {
                // Images are read with glGetTexImage, in ES through a framebuffer.
                let textures = match (self.textures.is_empty(), self.caps.es()) {
                    (true, _) => 0,
                    (false, false) => gl::TEXTURE_UPDATE_BARRIER_BIT,
                    (false, true) => gl::FRAMEBUFFER_BARRIER_BIT,
                };
                gl.MemoryBarrier(gl::BUFFER_UPDATE_BARRIER_BIT | textures);
            }
            gl.Finish();
        }
        take_error(gl);
    }

    /// Refuses plans the context cannot run at all.
    fn check_support(&self) -> Result<(), Refusal> {
        let plan = self.plan;
        let nv = plan
            .programs
            .iter()
            .filter(|p| p.language == Language::Nvasm)
            .count();
        if nv > 0 {
            if !self.caps.nv_compute() {
                return Err(unsupported("GL_NV_compute_program5"));
            }
            if nv != plan.programs.len() || nv > 1 {
                return Err(Refusal::Internal(
                    "an NV assembly program must be the plan's only program".into(),
                ));
            }
            if plan.programs[0].stage != Stage::Compute {
                return Err(unsupported("NV assembly programs other than compute"));
            }
        }
        for p in &plan.programs {
            match p.language {
                Language::Glsl if p.stage == Stage::Compute && !self.caps.compute() => {
                    return Err(unsupported("GL_ARB_compute_shader"));
                }
                Language::Spirv | Language::SpirvAsm => {
                    if !self.caps.spirv() {
                        return Err(unsupported("GL_ARB_gl_spirv"));
                    }
                    if p.words.is_empty() {
                        return Err(Refusal::Internal(format!(
                            "SPIR-V program from {} has no words (not assembled?)",
                            p.origin
                        )));
                    }
                }
                _ => {}
            }
        }
        for b in &plan.buffers {
            let ok = match b.kind {
                // NV assembly reaches SHADER_STORAGE_BUFFER through NV_shader_storage_buffer_object,
                // which requires ARB_shader_storage_buffer_object: the binding point is ARB's.
                BufferKind::Storage => self.caps.ssbo(),
                BufferKind::AtomicCounter => self.caps.atomic_counters(),
                BufferKind::Uniform => self.caps.ubo(),
                BufferKind::ProgramLocal | BufferKind::ProgramEnv => {
                    if nv == 0 {
                        return Err(Refusal::Internal(format!(
                            "buffer `{}` is an NV program parameter but the plan has no NV \
                             assembly program",
                            b.name
                        )));
                    }
                    true
                }
                BufferKind::ParameterBuffer => self.caps.ext("GL_NV_parameter_buffer_object"),
                BufferKind::Indirect => self.caps.compute(),
                BufferKind::Image(desc) if desc.dim == ImageDim::Buffer => {
                    if !self.caps.buffer_textures() {
                        return Err(unsupported(
                            "buffer textures (GL 3.1, GL_ARB_texture_buffer_object or ES 3.2)",
                        ));
                    }
                    if desc.range.is_some() && !self.caps.buffer_texture_range() {
                        return Err(unsupported(
                            "glTexBufferRange (GL 4.3, GL_ARB_texture_buffer_range or ES 3.2)",
                        ));
                    }
                    if self.caps.es() && !images::in_es(desc.format) {
                        return Err(unsupported(
                            "an image of a format OpenGL ES has no image unit format for",
                        ));
                    }
                    self.caps.memory_barrier()
                }
                BufferKind::Image(desc) if self.caps.es() => {
                    if desc.dim == ImageDim::D1 {
                        return Err(unsupported(
                            "1D images in an OpenGL ES context (ES has none)",
                        ));
                    }
                    let float_buffers =
                        self.caps.es_3_2() || self.caps.ext("GL_EXT_color_buffer_float");
                    if let Some(why) = images::es_unreadable(desc.format, float_buffers) {
                        return Err(unsupported(why));
                    }
                    self.caps.memory_barrier()
                }
                BufferKind::Image(_) => self.caps.memory_barrier(),
                BufferKind::Texture(desc) => match sampled::lacks(self.caps, &desc) {
                    Some(why) => return Err(unsupported(why)),
                    None => true,
                },
            };
            if !ok {
                return Err(unsupported(match b.kind {
                    BufferKind::Storage => "GL_ARB_shader_storage_buffer_object",
                    BufferKind::AtomicCounter => "GL_ARB_shader_atomic_counters",
                    BufferKind::Uniform => "GL_ARB_uniform_buffer_object",
                    BufferKind::ParameterBuffer => "GL_NV_parameter_buffer_object",
                    BufferKind::Image(_) => "GL_ARB_shader_image_load_store",
                    _ => "GL_ARB_compute_shader",
                }));
            }
        }
        Ok(())
    }

    // ---- build -------------------------------------------------------------------------

    fn build(&mut self) -> Result<BuildOutcome, Refusal> {
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

    // ---- buffers -----------------------------------------------------------------------

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

    fn create_buffers(&mut self) -> Result<(), Refusal> {
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

    fn read_back(&mut self) -> Vec<Vec<u8>> {
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

    // ---- steps -------------------------------------------------------------------------

    pub(crate) fn buffer_name(&self, index: usize) -> Result<GLuint, Refusal> {
        match self.buffers.get(index) {
            Some(Some(id)) => Ok(*id),
            Some(None) => Err(Refusal::Internal(format!(
                "buffer {index} is a program parameter, not a GL buffer"
            ))),
            None => Err(Refusal::Internal(format!(
                "step names buffer {index}, the plan has {}",
                self.buffers.len()
            ))),
        }
    }

    fn step(&mut self, step: &conform_plan::Step) -> Result<StepOutcome, Refusal> {
        use conform_plan::Step;
        let gl = self.gl;
        let mut values = Vec::new();
        match step {
            Step::Dispatch { groups } => {
                if !self.caps.compute() {
                    return Err(unsupported("GL_ARB_compute_shader"));
                }
                // SAFETY: compute is offered; any arguments are legal to pass.
                unsafe { gl.DispatchCompute(groups[0], groups[1], groups[2]) };
            }
            Step::DispatchIndirect { buffer, offset } => {
                if !self.caps.compute() {
                    return Err(unsupported("GL_ARB_compute_shader"));
                }
                let id = match buffer {
                    Some(i) => self.buffer_name(*i)?,
                    None => 0,
                };
                let offset = isize::try_from(*offset).map_err(|_| {
                    Refusal::Internal(format!("indirect offset {offset} does not fit"))
                })?;
                // SAFETY: GL checks the offset against the bound buffer.
                unsafe {
                    gl.BindBuffer(gl::DISPATCH_INDIRECT_BUFFER, id);
                    gl.DispatchComputeIndirect(offset);
                }
            }
            Step::MemoryBarrier { bits } => {
                if !self.caps.memory_barrier() {
                    return Err(unsupported(
                        "GL_ARB_shader_image_load_store (glMemoryBarrier)",
                    ));
                }
                let mask = bits.iter().fold(0u32, |m, b| m | barrier_bit(*b));
                // SAFETY: gated above.
                unsafe { gl.MemoryBarrier(mask) };
            }
            Step::Query { pname, index } => {
                let (e, count) = enums::query_pname(*pname);
                values = get_values(self.caps, gl, e, *index, count);
            }
            Step::ProgramQuery { pname } => match (self.program, enums::program_pname(*pname)) {
                (Program::Object(p), ProgramRead::Object(e, count)) => {
                    let mut v = vec![0i32; count + 16];
                    // SAFETY: room for more values than the pname has.
                    unsafe { gl.GetProgramiv(p, e, v.as_mut_ptr()) };
                    values = v.into_iter().take(count).map(i64::from).collect();
                }
                (Program::Nv(_), ProgramRead::Assembly(e, count)) => {
                    let mut v = vec![0i32; count + 16];
                    // SAFETY: as above.
                    unsafe { gl.GetProgramivARB(gl::COMPUTE_PROGRAM_NV, e, v.as_mut_ptr()) };
                    values = v.into_iter().take(count).map(i64::from).collect();
                }
                (Program::Object(_), ProgramRead::Assembly(..)) => {
                    return Err(Refusal::Internal(format!(
                        "program pname `{pname}` unknown to the GL runner"
                    )))
                }
                (Program::Nv(_), ProgramRead::Object(..)) => {
                    return Err(Refusal::Internal(format!(
                        "assembly program pname `{pname}` unknown to the GL runner"
                    )))
                }
                (Program::None, _) => {
                    return Err(Refusal::Internal("program_query without a program".into()))
                }
            },
            Step::Api(action) => return self.api(action),
            Step::DispatchGroupSize { groups, size } => self.dispatch_group_size(groups, size)?,
            Step::Uniform(set) => return self.uniform_step(set),
            Step::WriteBuffer {
                buffer,
                offset,
                bytes,
            } => {
                let id = self.buffer_name(*buffer)?;
                let offset = isize::try_from(*offset).map_err(|_| {
                    Refusal::Internal(format!("write offset {offset} does not fit"))
                })?;
                buffer_sub_data(gl, id, offset, bytes);
            }
            Step::ClearBuffer { buffer } if self.caps.es() => {
                // OpenGL ES has no glClearBufferData: the same zeros through glBufferSubData.
                let id = self.buffer_name(*buffer)?;
                let zeros = vec![0u8; self.plan.buffers[*buffer].bytes.len()];
                buffer_sub_data(gl, id, 0, &zeros);
            }
            Step::ClearBuffer { buffer } => {
                if !self.caps.clear_buffer_data() {
                    return Err(unsupported("GL 4.3 or GL_ARB_clear_buffer_object"));
                }
                let id = self.buffer_name(*buffer)?;
                // SAFETY: gated above; a null `data` fills the buffer with zeros (GL 4.6
                // section 6.2.1), whatever format describes it.
                unsafe {
                    gl.BindBuffer(gl::COPY_WRITE_BUFFER, id);
                    gl.ClearBufferData(
                        gl::COPY_WRITE_BUFFER,
                        gl::R8UI,
                        gl::RED_INTEGER,
                        gl::UNSIGNED_BYTE,
                        std::ptr::null(),
                    );
                    gl.BindBuffer(gl::COPY_WRITE_BUFFER, 0);
                }
            }
            Step::Snapshot => {
                // Reading is the harness observing, like the readback after the last step:
                // what it raises is noted by read_back, not charged to the case.
                self.observe();
                let buffers = self.read_back();
                self.snapshots.push(buffers);
                return Ok(StepOutcome {
                    error: Some(GlError::NoError),
                    values,
                    applicable: true,
                });
            }
        }
        let err = take_error(gl);
        if err != gl::NO_ERROR {
            values.clear();
        }
        Ok(StepOutcome {
            error: Some(gl_error(err)),
            values,
            applicable: true,
        })
    }

    fn cleanup(&mut self) {
        let gl = self.gl;
        // SAFETY: every name deleted here was created by this runner; bindings are reset to 0.
        unsafe {
            if self.conditional_render {
                gl.EndConditionalRender();
            }
            if !self.pipelines.is_empty() {
                gl.BindProgramPipeline(0);
                gl.DeleteProgramPipelines(self.pipelines.len() as i32, self.pipelines.as_ptr());
            }
            gl.UseProgram(0);
            if let Program::Nv(p) = self.program {
                gl.Disable(gl::COMPUTE_PROGRAM_NV);
                gl.BindProgramARB(gl::COMPUTE_PROGRAM_NV, 0);
                gl.DeleteProgramsARB(1, &p);
            }
            for &index in &self.env_params {
                let zero = [0u32; 4];
                gl.ProgramEnvParameterI4uivNV(gl::COMPUTE_PROGRAM_NV, index, zero.as_ptr());
            }
            for &(target, index) in &self.bindings {
                gl.BindBufferBase(target, index, 0);
            }
            if self.caps.compute() {
                gl.BindBuffer(gl::DISPATCH_INDIRECT_BUFFER, 0);
            }
            for id in self.buffers.iter().flatten() {
                gl.DeleteBuffers(1, id);
            }
            for &(i, tex) in &self.textures {
                images::release(gl, tex, self.plan.buffers[i].binding);
            }
            for &(i, tex) in &self.sampled {
                let b = &self.plan.buffers[i];
                if let BufferKind::Texture(desc) = &b.kind {
                    sampled::release(gl, tex, desc, b.binding);
                }
            }
            if let Program::Object(p) = self.program {
                gl.DeleteProgram(p);
            }
            for &p in &self.extra_programs {
                gl.DeleteProgram(p);
            }
            for &s in &self.shaders {
                gl.DeleteShader(s);
            }
            if !self.queries.is_empty() {
                gl.DeleteQueries(self.queries.len() as i32, self.queries.as_ptr());
            }
        }
        take_error(gl);
    }
}

impl Drop for Runner<'_> {
    fn drop(&mut self) {
        self.cleanup();
    }
}

fn barrier_bit(b: BarrierBit) -> u32 {
    match b {
        BarrierBit::ShaderStorage => gl::SHADER_STORAGE_BARRIER_BIT,
        BarrierBit::AtomicCounter => gl::ATOMIC_COUNTER_BARRIER_BIT,
        BarrierBit::Uniform => gl::UNIFORM_BARRIER_BIT,
        BarrierBit::Command => gl::COMMAND_BARRIER_BIT,
        BarrierBit::BufferUpdate => gl::BUFFER_UPDATE_BARRIER_BIT,
        BarrierBit::ShaderImageAccess => gl::SHADER_IMAGE_ACCESS_BARRIER_BIT,
        BarrierBit::All => gl::ALL_BARRIER_BITS,
    }
}

fn micros(since: Instant) -> u64 {
    since.elapsed().as_micros().min(u64::MAX as u128) as u64
}

/// Runs a plan on the current context.
pub(crate) fn run_plan(gl: &gl::Gl, caps: &Caps, plan: &ExecPlan) -> Result<Outcome, Refusal> {
    let stray = take_error(gl);
    take_debug_messages();
    let mut r = Runner::new(gl, caps, plan);
    if stray != gl::NO_ERROR {
        r.notes.push(format!(
            "a GL error ({:?}) was pending before the plan; cleared",
            gl_error(stray)
        ));
    }
    r.check_support()?;
    let t = Instant::now();
    crate::breadcrumb::set(
        "building the program (glCompileShader, glLinkProgram or glProgramStringARB)",
    );
    let build = r.build()?;
    let mut timings = Timings {
        build: micros(t),
        ..Timings::default()
    };
    let mut steps = Vec::new();
    // A plan for a case that expects a build failure says `skip_steps_if_built`: when the program
    // builds anyway, that is the whole verdict, and running a program the spec says must not
    // compile would only trade that clear answer for whatever the driver does with it (Mesa
    // crashes on some).
    let run_steps = build.failed_at.is_none() && !plan.skip_steps_if_built;
    if build.failed_at.is_none() && plan.skip_steps_if_built {
        r.notes.push(
            "the program built although the case expects a build failure; its steps were not run"
                .to_string(),
        );
    }
    if run_steps {
        crate::breadcrumb::set("setting up (glUseProgram, glBufferData, glBindBufferBase)");
        r.use_program()?;
        r.create_buffers()?;
        let before = take_debug_messages();
        r.notes
            .extend(before.into_iter().map(|m| format!("build/setup: {m}")));
        let t = Instant::now();
        for (i, step) in plan.steps.iter().enumerate() {
            crate::breadcrumb::set(&format!(
                "step {}: {}",
                i + 1,
                crate::breadcrumb::step_call(step)
            ));
            steps.push(r.step(step)?);
            let said = take_debug_messages();
            r.notes
                .extend(said.into_iter().map(|m| format!("step {i}: {m}")));
        }
        crate::breadcrumb::set("glMemoryBarrier and glFinish after the last step");
        // Part of the readback, after the last step.
        r.observe();
        timings.dispatch = micros(t);
    } else {
        r.create_buffers()?;
    }
    let t = Instant::now();
    crate::breadcrumb::set("reading the buffers back (glGetBufferSubData)");
    let buffers = r.read_back();
    timings.readback = micros(t);
    let mut notes = std::mem::take(&mut r.notes);
    notes.extend(take_debug_messages());
    Ok(Outcome {
        build,
        steps,
        buffers,
        snapshots: std::mem::take(&mut r.snapshots),
        flags: Vec::new(),
        notes,
        timings_us: timings,
        other_schedules: Vec::new(),
    })
}
