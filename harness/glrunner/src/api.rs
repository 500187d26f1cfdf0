//! What the GL runner does for each `api` step action ([`ApiAction`], from conform-plan).
//!
//! Each action is a short, fixed sequence of GL calls that an API clause needs and that the
//! other step kinds cannot express. After the action, glGetError goes into the step's `error`
//! (the first error any of its calls raised); queries put their results into `values`.
//! [`describe`] says what each requires and does; `docs/DRIVERS.md` carries that table
//! ([`api_table_markdown`], checked by a test).

use crate::exec::{self, Program, Runner};
use crate::gl_query::{gl_error, take_error};
use conform_gl as gl;
use conform_plan::{
    ApiAction, ApiCall, ConditionalRenderMode, ProgramInterface, Refusal, StepOutcome,
};

const ARB_CS: &str = "GL 4.3 or GL_ARB_compute_shader";
const NV_CP5: &str = "GL_NV_compute_program5";
const SSO: &str = "GL 4.1 or GL_ARB_separate_shader_objects";
const NV_PBO: &str = "GL_NV_parameter_buffer_object";

/// What an action requires of the context (empty: nothing) and the GL calls it makes, with
/// what it returns: the `requires` and last columns of the table in docs/DRIVERS.md.
pub fn describe(call: ApiCall) -> (&'static str, &'static str) {
    use ApiCall as C;
    match call {
        C::UseNoProgram => (
            "",
            "glUseProgram(0) (and glBindProgramPipeline(0) when a pipeline was bound)",
        ),
        C::UseProgram => ("", "glUseProgram(case program)"),
        C::Dispatch => (
            ARB_CS,
            "glDispatchCompute(x, y, z) with the raw values (no checks of ours)",
        ),
        C::DispatchAboveMaxCount => (
            ARB_CS,
            "glDispatchCompute with MAX_COMPUTE_WORK_GROUP_COUNT[dim] + 1 in dimension dim \
             and 1 elsewhere; values = [the count used]; not applicable when the maximum is \
             2^32-1",
        ),
        C::DispatchIndirectRaw => (
            ARB_CS,
            "glDispatchComputeIndirect(offset) with whatever DISPATCH_INDIRECT_BUFFER binding \
             the earlier steps left",
        ),
        C::BindIndirect => (
            ARB_CS,
            "glBindBuffer(DISPATCH_INDIRECT_BUFFER, buffers[index])",
        ),
        C::BindIndirectNone => (ARB_CS, "glBindBuffer(DISPATCH_INDIRECT_BUFFER, 0)"),
        C::DispatchGroupSize => (
            "GL_ARB_compute_variable_group_size",
            "glDispatchComputeGroupSizeARB(x, y, z, size_x, size_y, size_z)",
        ),
        C::MemoryBarrierRaw => (
            "GL 4.2 or GL_ARB_shader_image_load_store",
            "glMemoryBarrier(bits) with a raw bitfield (e.g. 0xFFFFFFFF = ALL_BARRIER_BITS)",
        ),
        C::QueryWorkGroupSizeUnlinked => (
            ARB_CS,
            "glCreateProgram, then glGetProgramiv(COMPUTE_WORK_GROUP_SIZE) on the never-linked \
             program (INVALID_OPERATION expected); values = what was returned",
        ),
        C::QueryWorkGroupSizeLinkFailed => (
            ARB_CS,
            "links a program from a compute shader that does not compile, then \
             glGetProgramiv(COMPUTE_WORK_GROUP_SIZE) on it; values = what was returned",
        ),
        C::UseTrivialGlslCompute => (
            ARB_CS,
            "compiles and links `layout(local_size_x = 1) in; void main() {}` (GLSL 4.30, or \
             3.30 with the compute extension before GL 4.3) and glUseProgram's it, e.g. to see \
             which program a dispatch runs while COMPUTE_PROGRAM_NV is enabled; values = \
             [LINK_STATUS]",
        ),
        C::MakeSeparable => (
            SSO,
            "glProgramParameteri(program, PROGRAM_SEPARABLE, TRUE), relink, glUseProgram \
             and set the uniforms again; values = [LINK_STATUS]",
        ),
        C::BindPipelineCompute => (
            SSO,
            "glUseProgram(0), glGenProgramPipelines, glUseProgramStages(pipeline, \
             COMPUTE_SHADER_BIT, program), glBindProgramPipeline(pipeline); the error is the \
             first any of them raised",
        ),
        C::BeginConditionalRenderFalse => (
            "GL 3.0",
            "glBeginQuery/glEndQuery(SAMPLES_PASSED) around nothing (result 0), then \
             glBeginConditionalRender(query, mode): later dispatches run inside a conditional \
             render whose condition is false",
        ),
        C::EndConditionalRender => ("GL 3.0", "glEndConditionalRender()"),
        C::UniformBlockReferencedByCompute => (
            "GL 4.3",
            "glGetActiveUniformBlockiv(program, index, UNIFORM_BLOCK_REFERENCED_BY_COMPUTE_SHADER); \
             values = [result]",
        ),
        C::AtomicCounterBufferReferencedByCompute => (
            "GL 4.3",
            "glGetActiveAtomicCounterBufferiv(program, index, \
             ATOMIC_COUNTER_BUFFER_REFERENCED_BY_COMPUTE_SHADER); values = [result]",
        ),
        C::ResourceReferencedByCompute => (
            "GL 4.3 or GL_ARB_program_interface_query",
            "glGetProgramResourceiv(program, interface, index, REFERENCED_BY_COMPUTE_SHADER); \
             values = [result]",
        ),
        C::ValidateProgram => ("", "glValidateProgram(program); values = [VALIDATE_STATUS]"),
        C::EnableComputeProgramNv => (NV_CP5, "glEnable(COMPUTE_PROGRAM_NV)"),
        C::DisableComputeProgramNv => (NV_CP5, "glDisable(COMPUTE_PROGRAM_NV)"),
        C::IsEnabledComputeProgramNv => (
            NV_CP5,
            "glIsEnabled(COMPUTE_PROGRAM_NV); values = [0 or 1]",
        ),
        C::BindProgramNv => (
            NV_CP5,
            "glBindProgramARB(COMPUTE_PROGRAM_NV, 0) for 0, the case program for 1",
        ),
        C::ProgramLocalI4 => (
            NV_CP5,
            "glProgramLocalParameterI4iNV(COMPUTE_PROGRAM_NV, index, x, y, z, w)",
        ),
        C::ProgramEnvI4 => (
            NV_CP5,
            "glProgramEnvParameterI4iNV(COMPUTE_PROGRAM_NV, index, x, y, z, w) (reset to 0 \
             after the case)",
        ),
        C::ProgramBufferParametersIuivNv => (
            NV_PBO,
            "glProgramBufferParametersIuivNV(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, binding, \
             word index, count, [v0, v1, ...])",
        ),
        C::BindParameterBufferAboveMaxNv => (
            NV_PBO,
            "n = GetProgramivARB(COMPUTE_PROGRAM_NV, MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV); \
             glBindBufferBase(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, n, buffer); values = [n]",
        ),
        C::Finish => ("", "glFinish()"),
        C::ConformTestAbort => (
            "",
            "test trigger: the worker process aborts (SIGABRT), as a crashing driver would",
        ),
        C::ConformTestHang => (
            "",
            "test trigger: the worker process sleeps forever, as a hanging driver would",
        ),
    }
}

/// Runs the test triggers (`conform_test_abort`, `conform_test_hang`), which never return;
/// any other action is left alone. Only builds with the `test-triggers` feature (the test
/// suite's) have them: a release worker refuses them (see [`Runner::api`]), so no case can make
/// it crash or hang on purpose.
#[cfg(feature = "test-triggers")]
pub(crate) fn test_trigger(action: &ApiAction) {
    match action {
        ApiAction::ConformTestAbort => {
            eprintln!("conform worker: conform_test_abort step, aborting");
            std::process::abort();
        }
        ApiAction::ConformTestHang => {
            eprintln!("conform worker: conform_test_hang step, sleeping forever");
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        _ => {}
    }
}

impl Runner<'_> {
    fn object_program(&self, call: &str) -> Result<u32, Refusal> {
        match self.program {
            Program::Object(p) => Ok(p),
            _ => Err(Refusal::Internal(format!(
                "api call `{call}` needs a GLSL or SPIR-V program"
            ))),
        }
    }

    fn need(&self, ok: bool, what: &str) -> Result<(), Refusal> {
        if ok {
            Ok(())
        } else {
            Err(Refusal::Unsupported(what.to_string()))
        }
    }

    /// glDispatchComputeGroupSizeARB: the `dispatch_group_size` step and the api action.
    pub(crate) fn dispatch_group_size(
        &self,
        groups: &[u32; 3],
        size: &[u32; 3],
    ) -> Result<(), Refusal> {
        self.need(
            self.caps.ext("GL_ARB_compute_variable_group_size"),
            "GL_ARB_compute_variable_group_size",
        )?;
        let (g, l) = (groups, size);
        // SAFETY: a GL call with plain values on the worker's current context.
        unsafe {
            self.gl
                .DispatchComputeGroupSizeARB(g[0], g[1], g[2], l[0], l[1], l[2])
        };
        Ok(())
    }

    pub(crate) fn api(&mut self, action: &ApiAction) -> Result<StepOutcome, Refusal> {
        let gl = self.gl;
        let caps = self.caps;
        let call = action.call().name();
        let mut values: Vec<i64> = Vec::new();
        let mut applicable = true;
        use ApiAction as A;
        // SAFETY (for every block below): each action is gated on the extension string or the
        // context version; pointers passed to GL point at live locals of the right size.
        match action {
            #[cfg(feature = "test-triggers")]
            A::ConformTestAbort | A::ConformTestHang => test_trigger(action),
            #[cfg(not(feature = "test-triggers"))]
            A::ConformTestAbort | A::ConformTestHang => {
                return Err(Refusal::Unsupported(format!(
                    "`{call}` is a test trigger, available only in builds with the test-triggers feature"
                )))
            }
            // SAFETY: a GL call with plain values on the worker's current context.
            A::UseNoProgram => unsafe {
                if !self.pipelines.is_empty() {
                    gl.BindProgramPipeline(0);
                }
                gl.UseProgram(0);
            },
            A::UseProgram => {
                let p = self.object_program(call)?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.UseProgram(p) };
            }
            A::Dispatch { groups: [x, y, z] } => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.DispatchCompute(*x, *y, *z) };
            }
            A::DispatchAboveMaxCount { dim } => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let dim = *dim as u32;
                take_error(gl);
                let max =
                    crate::caps::get_values(caps, gl, gl::MAX_COMPUTE_WORK_GROUP_COUNT, Some(dim), 1)[0];
                take_error(gl);
                if max >= u32::MAX as i64 || max < 0 {
                    self.notes.push(format!(
                        "`{call}`: MAX_COMPUTE_WORK_GROUP_COUNT[{dim}] is {max}; no count above it \
                         fits the 32-bit argument"
                    ));
                    applicable = false;
                } else {
                    let mut g = [1u32; 3];
                    g[dim as usize] = max as u32 + 1;
                    values.push(g[dim as usize] as i64);
                    // SAFETY: a GL call with plain values on the worker's current context.
                    unsafe { gl.DispatchCompute(g[0], g[1], g[2]) };
                }
            }
            A::DispatchIndirectRaw { offset } => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let off = *offset;
                let off = isize::try_from(off)
                    .map_err(|_| Refusal::Internal(format!("offset {off} does not fit")))?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.DispatchComputeIndirect(off) };
            }
            A::BindIndirect { buffer } => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let id = self.buffer_name(*buffer)?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.BindBuffer(gl::DISPATCH_INDIRECT_BUFFER, id) };
            }
            A::BindIndirectNone => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.BindBuffer(gl::DISPATCH_INDIRECT_BUFFER, 0) };
            }
            A::DispatchGroupSize { groups, size } => self.dispatch_group_size(groups, size)?,
            A::MemoryBarrierRaw { bits } => {
                self.need(
                    caps.memory_barrier(),
                    "GL_ARB_shader_image_load_store (glMemoryBarrier)",
                )?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.MemoryBarrier(*bits) };
            }
            A::QueryWorkGroupSizeUnlinked => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                // SAFETY: COMPUTE_WORK_GROUP_SIZE writes three values; `v` holds three.
                let p = unsafe { gl.CreateProgram() };
                self.extra_programs.push(p);
                take_error(gl);
                let mut v = [i32::MIN; 3];
                // SAFETY: COMPUTE_WORK_GROUP_SIZE writes three values; `v` holds three.
                unsafe { gl.GetProgramiv(p, gl::COMPUTE_WORK_GROUP_SIZE, v.as_mut_ptr()) };
                values = v.iter().map(|&x| x as i64).collect();
            }
            A::QueryWorkGroupSizeLinkFailed => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                // SAFETY: a GL call with plain values on the worker's current context.
                let sh = unsafe { gl.CreateShader(gl::COMPUTE_SHADER) };
                self.shaders.push(sh);
                let mut log = String::new();
                exec::compile_glsl(
                    gl,
                    sh,
                    "#version 430\nlayout(local_size_x = 2) in;\nvoid main() { undeclared = 1; }\n",
                    &mut log,
                );
                // SAFETY: a GL call with plain values on the worker's current context.
                let p = unsafe { gl.CreateProgram() };
                self.extra_programs.push(p);
                // SAFETY: COMPUTE_WORK_GROUP_SIZE writes three values; `v` holds three.
                unsafe { gl.AttachShader(p, sh) };
                exec::link(gl, p, &mut log);
                take_error(gl);
                let mut v = [i32::MIN; 3];
                // SAFETY: COMPUTE_WORK_GROUP_SIZE writes three values; `v` holds three.
                unsafe { gl.GetProgramiv(p, gl::COMPUTE_WORK_GROUP_SIZE, v.as_mut_ptr()) };
                values = v.iter().map(|&x| x as i64).collect();
            }
            A::UseTrivialGlslCompute => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let src = if caps.es() {
                    "#version 310 es\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
                } else if caps.version(4, 3) {
                    "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
                } else {
                    "#version 330\n#extension GL_ARB_compute_shader : require\n\
                     layout(local_size_x = 1) in;\nvoid main() {}\n"
                };
                // SAFETY: a GL call with plain values on the worker's current context.
                let sh = unsafe { gl.CreateShader(gl::COMPUTE_SHADER) };
                self.shaders.push(sh);
                let mut log = String::new();
                exec::compile_glsl(gl, sh, src, &mut log);
                // SAFETY: a GL call with plain values on the worker's current context.
                let p = unsafe { gl.CreateProgram() };
                self.extra_programs.push(p);
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.AttachShader(p, sh) };
                let ok = exec::link(gl, p, &mut log);
                if !ok {
                    self.notes
                        .push(format!("`{call}`: the trivial program did not link: {log}"));
                }
                values.push(ok as i64);
                take_error(gl);
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.UseProgram(p) };
            }
            A::MakeSeparable => {
                self.need(
                    caps.separate_shader_objects(),
                    "GL_ARB_separate_shader_objects",
                )?;
                let p = self.object_program(call)?;
                let mut log = String::new();
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.ProgramParameteri(p, gl::PROGRAM_SEPARABLE, gl::TRUE as i32) };
                let first = take_error(gl);
                let ok = exec::link(gl, p, &mut log);
                values.push(ok as i64);
                if !ok {
                    self.notes
                        .push(format!("`{call}`: relinking as separable failed: {log}"));
                }
                self.set_uniforms()?;
                if first != gl::NO_ERROR {
                    return Ok(StepOutcome {
                        error: Some(gl_error(first)),
                        values,
                        applicable: true,
                    });
                }
            }
            A::BindPipelineCompute => {
                self.need(
                    caps.separate_shader_objects(),
                    "GL_ARB_separate_shader_objects",
                )?;
                let p = self.object_program(call)?;
                let mut pipe = 0;
                // SAFETY: GenProgramPipelines(1, ..) writes one name into the live local `pipe`.
                unsafe {
                    gl.UseProgram(0);
                    gl.GenProgramPipelines(1, &mut pipe);
                }
                self.pipelines.push(pipe);
                let mut first = take_error(gl);
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.UseProgramStages(pipe, gl::COMPUTE_SHADER_BIT, p) };
                let e = take_error(gl);
                if first == gl::NO_ERROR {
                    first = e;
                }
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.BindProgramPipeline(pipe) };
                let e = take_error(gl);
                if first == gl::NO_ERROR {
                    first = e;
                }
                return Ok(StepOutcome {
                    error: Some(gl_error(first)),
                    values,
                    applicable: true,
                });
            }
            A::BeginConditionalRenderFalse { mode } => {
                self.need(caps.version(3, 0), "GL 3.0 (conditional rendering)")?;
                let mode = match mode.unwrap_or(ConditionalRenderMode::Wait) {
                    ConditionalRenderMode::Wait => gl::QUERY_WAIT,
                    ConditionalRenderMode::NoWait => gl::QUERY_NO_WAIT,
                    ConditionalRenderMode::ByRegionWait => gl::QUERY_BY_REGION_WAIT,
                    ConditionalRenderMode::ByRegionNoWait => gl::QUERY_BY_REGION_NO_WAIT,
                };
                let mut q = 0;
                // SAFETY: GenQueries(1, ..) writes one name into the live local `q`.
                unsafe {
                    gl.GenQueries(1, &mut q);
                    gl.BeginQuery(gl::SAMPLES_PASSED, q);
                    gl.EndQuery(gl::SAMPLES_PASSED);
                }
                self.queries.push(q);
                let setup = take_error(gl);
                if setup != gl::NO_ERROR {
                    self.notes.push(format!(
                        "`{call}`: the occlusion query raised {:?}",
                        gl_error(setup)
                    ));
                }
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.BeginConditionalRender(q, mode) };
                self.conditional_render = true;
            }
            A::EndConditionalRender => {
                self.need(caps.version(3, 0), "GL 3.0 (conditional rendering)")?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.EndConditionalRender() };
                self.conditional_render = false;
            }
            A::UniformBlockReferencedByCompute { index } => {
                self.need(caps.compute() && caps.ubo(), "GL 4.3")?;
                let p = self.object_program(call)?;
                let i = *index;
                let mut v = i32::MIN;
                // SAFETY: this pname writes one value into the live local `v`.
                unsafe {
                    gl.GetActiveUniformBlockiv(
                        p,
                        i,
                        gl::UNIFORM_BLOCK_REFERENCED_BY_COMPUTE_SHADER,
                        &mut v,
                    )
                };
                values.push(v as i64);
            }
            A::AtomicCounterBufferReferencedByCompute { index } => {
                self.need(caps.compute() && caps.atomic_counters(), "GL 4.3")?;
                let p = self.object_program(call)?;
                let i = *index;
                let mut v = i32::MIN;
                // SAFETY: this pname writes one value into the live local `v`.
                unsafe {
                    gl.GetActiveAtomicCounterBufferiv(
                        p,
                        i,
                        gl::ATOMIC_COUNTER_BUFFER_REFERENCED_BY_COMPUTE_SHADER,
                        &mut v,
                    )
                };
                values.push(v as i64);
            }
            A::ResourceReferencedByCompute { interface, index } => {
                self.need(
                    caps.program_interface_query(),
                    "GL_ARB_program_interface_query",
                )?;
                let p = self.object_program(call)?;
                let iface = match interface {
                    ProgramInterface::Uniform => gl::UNIFORM,
                    ProgramInterface::UniformBlock => gl::UNIFORM_BLOCK,
                    ProgramInterface::BufferVariable => gl::BUFFER_VARIABLE,
                    ProgramInterface::ShaderStorageBlock => gl::SHADER_STORAGE_BLOCK,
                    ProgramInterface::AtomicCounterBuffer => gl::ATOMIC_COUNTER_BUFFER,
                };
                let index = *index;
                let prop = gl::REFERENCED_BY_COMPUTE_SHADER;
                let mut v = i32::MIN;
                let mut len = 0;
                // SAFETY: one property in (`prop`), at most one value out (bufSize 1) into `v`, the count into `len`.
                unsafe { gl.GetProgramResourceiv(p, iface, index, 1, &prop, 1, &mut len, &mut v) };
                values.push(v as i64);
            }
            A::ValidateProgram => {
                let p = self.object_program(call)?;
                let mut v = 0;
                // SAFETY: VALIDATE_STATUS writes one value into the live local `v`.
                unsafe {
                    gl.ValidateProgram(p);
                    gl.GetProgramiv(p, gl::VALIDATE_STATUS, &mut v);
                }
                values.push(v as i64);
            }
            A::EnableComputeProgramNv => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.Enable(gl::COMPUTE_PROGRAM_NV) };
            }
            A::DisableComputeProgramNv => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.Disable(gl::COMPUTE_PROGRAM_NV) };
            }
            A::IsEnabledComputeProgramNv => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                // SAFETY: a GL call with plain values on the worker's current context.
                let v = unsafe { gl.IsEnabled(gl::COMPUTE_PROGRAM_NV) };
                values.push(v as i64);
            }
            A::BindProgramNv { case_program } => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                let id = match (case_program, self.program) {
                    (false, _) => 0,
                    (true, Program::Nv(p)) => p,
                    _ => {
                        return Err(Refusal::Internal(format!(
                            "api call `{call}` [1] needs an NV assembly program"
                        )))
                    }
                };
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe { gl.BindProgramARB(gl::COMPUTE_PROGRAM_NV, id) };
            }
            A::ProgramLocalI4 { index, values: v } | A::ProgramEnvI4 { index, values: v } => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                let index = *index;
                // SAFETY: a GL call with plain values on the worker's current context.
                unsafe {
                    if matches!(action, A::ProgramLocalI4 { .. }) {
                        gl.ProgramLocalParameterI4iNV(
                            gl::COMPUTE_PROGRAM_NV,
                            index,
                            v[0],
                            v[1],
                            v[2],
                            v[3],
                        );
                    } else {
                        gl.ProgramEnvParameterI4iNV(
                            gl::COMPUTE_PROGRAM_NV,
                            index,
                            v[0],
                            v[1],
                            v[2],
                            v[3],
                        );
                        self.env_params.push(index);
                    }
                }
            }
            A::ProgramBufferParametersIuivNv {
                binding,
                word,
                values: words,
            } => {
                self.need(
                    caps.ext("GL_NV_parameter_buffer_object"),
                    "GL_NV_parameter_buffer_object",
                )?;
                // SAFETY: GL reads `words.len()` values from the live slice `words`.
                unsafe {
                    gl.ProgramBufferParametersIuivNV(
                        gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV,
                        *binding,
                        *word,
                        words.len() as i32,
                        words.as_ptr(),
                    )
                };
            }
            A::BindParameterBufferAboveMaxNv { buffer } => {
                self.need(
                    caps.ext("GL_NV_parameter_buffer_object"),
                    "GL_NV_parameter_buffer_object",
                )?;
                let id = self.buffer_name(*buffer)?;
                let mut n = 0;
                // SAFETY: this pname writes one value into the live local `n`; the other calls
                // take plain values.
                unsafe {
                    gl.GetProgramivARB(
                        gl::COMPUTE_PROGRAM_NV,
                        gl::MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV,
                        &mut n,
                    );
                    // Clear the query's own error state so the step sees the bind's error.
                    let _ = take_error(gl);
                    gl.BindBufferBase(gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, n as u32, id);
                }
                values.push(n as i64);
            }
            // SAFETY: a GL call with plain values on the worker's current context.
            A::Finish => unsafe { gl.Finish() },
        }
        let err = take_error(gl);
        if !applicable {
            return Ok(StepOutcome {
                error: None,
                values,
                applicable,
            });
        }
        Ok(StepOutcome {
            error: Some(gl_error(err)),
            values,
            applicable,
        })
    }
}

/// The `api` actions as a Markdown table (the one in `docs/DRIVERS.md`).
pub fn api_table_markdown() -> String {
    let mut out =
        String::from("| call | args | requires | GL calls and results |\n|---|---|---|---|\n");
    for &call in ApiCall::ALL {
        let (requires, does) = describe(call);
        let requires = if requires.is_empty() { "-" } else { requires };
        out.push_str(&format!(
            "| `{call}` | {} | {requires} | {does} |\n",
            call.args_doc()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_carry_the_table() {
        let doc = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/DRIVERS.md"
        ))
        .expect("docs/DRIVERS.md");
        for line in api_table_markdown().lines() {
            assert!(doc.contains(line), "docs/DRIVERS.md lacks the row: {line}");
        }
    }
}
