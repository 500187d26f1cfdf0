//! Executing one [`ExecPlan`] on the worker's current context: [`Runner`] (one plan's GL
//! objects, released when it drops), the support check and [`run_plan`].
//!
//! Every feature is gated on the extension string (or the context version), never on a loaded
//! function pointer: Mesa hands out non-null stubs for functions it does not implement.
//!
//! `build.rs` builds the programs and makes them current, `buffers.rs` creates, writes and
//! reads back the plan's buffers, `steps.rs` executes a step; the `api` and `uniform` steps are
//! in `crate::api` and `crate::uniforms`, the context's capabilities in `crate::caps`, the small
//! GL queries in `crate::gl_query`.

mod buffers;
mod build;
mod steps;

use crate::caps::Caps;
use crate::gl_query::*;
use crate::images;
use crate::sampled;
pub(crate) use build::{compile_glsl, link};
use conform_gl as gl;
use conform_gl::types::{GLenum, GLuint};
use conform_plan::{BufferKind, ExecPlan, ImageDim, Language, Outcome, Refusal, Stage, Timings};
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
        let before = beyond_log(take_debug_messages(), &build.log);
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
                .extend(said.into_iter().map(|m| format!("step {}: {m}", i + 1)));
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
    notes.extend(beyond_log(take_debug_messages(), &build.log));
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
