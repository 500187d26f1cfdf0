//! The named GL API actions of `api` steps (`Step::Api { call, args }`).
//!
//! Each action is a short, fixed sequence of GL calls that an API clause needs and that the
//! other step kinds cannot express. After the action, glGetError goes into the step's `error`
//! (the first error any of its calls raised); queries put their results into `values`.
//! `docs/DRIVERS.md` carries the same table.

use crate::exec::{self, gl_error, take_error, Program, Runner};
use conform_gl as gl;
use conform_plan::{Refusal, StepOutcome};

/// One API action, for documentation and for case validation in the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApiCall {
    pub name: &'static str,
    /// The `args` it takes, in words.
    pub args: &'static str,
    /// What it requires of the context.
    pub requires: &'static str,
    /// The GL calls it makes and what it returns.
    pub does: &'static str,
}

const ARB_CS: &str = "GL 4.3 or GL_ARB_compute_shader";
const NV_CP5: &str = "GL_NV_compute_program5";

/// Every action `api` steps may name.
pub const API_CALLS: &[ApiCall] = &[
    ApiCall {
        name: "use_no_program",
        args: "none",
        requires: "",
        does: "glUseProgram(0) (and glBindProgramPipeline(0) when a pipeline was bound)",
    },
    ApiCall {
        name: "use_program",
        args: "none",
        requires: "",
        does: "glUseProgram(case program)",
    },
    ApiCall {
        name: "dispatch",
        args: "[x, y, z], each 0..=2^32-1",
        requires: ARB_CS,
        does: "glDispatchCompute(x, y, z) with the raw values (no checks of ours)",
    },
    ApiCall {
        name: "dispatch_above_max_count",
        args: "[dim] (0, 1 or 2)",
        requires: ARB_CS,
        does: "glDispatchCompute with MAX_COMPUTE_WORK_GROUP_COUNT[dim] + 1 in dimension dim \
               and 1 elsewhere; values = [the count used]; not applicable when the maximum is \
               2^32-1",
    },
    ApiCall {
        name: "dispatch_indirect_raw",
        args: "[offset]",
        requires: ARB_CS,
        does: "glDispatchComputeIndirect(offset) with whatever DISPATCH_INDIRECT_BUFFER binding \
               the earlier steps left",
    },
    ApiCall {
        name: "bind_indirect",
        args: "[buffer index]",
        requires: ARB_CS,
        does: "glBindBuffer(DISPATCH_INDIRECT_BUFFER, buffers[index])",
    },
    ApiCall {
        name: "bind_indirect_none",
        args: "none",
        requires: ARB_CS,
        does: "glBindBuffer(DISPATCH_INDIRECT_BUFFER, 0)",
    },
    ApiCall {
        name: "dispatch_group_size",
        args: "[x, y, z, size_x, size_y, size_z]",
        requires: "GL_ARB_compute_variable_group_size",
        does: "glDispatchComputeGroupSizeARB(x, y, z, size_x, size_y, size_z)",
    },
    ApiCall {
        name: "memory_barrier_raw",
        args: "[bits]",
        requires: "GL 4.2 or GL_ARB_shader_image_load_store",
        does: "glMemoryBarrier(bits) with a raw bitfield (e.g. 0xFFFFFFFF = ALL_BARRIER_BITS)",
    },
    ApiCall {
        name: "query_work_group_size_unlinked",
        args: "none",
        requires: ARB_CS,
        does: "glCreateProgram, then glGetProgramiv(COMPUTE_WORK_GROUP_SIZE) on the never-linked \
               program (INVALID_OPERATION expected); values = what was returned",
    },
    ApiCall {
        name: "query_work_group_size_link_failed",
        args: "none",
        requires: ARB_CS,
        does: "links a program from a compute shader that does not compile, then \
               glGetProgramiv(COMPUTE_WORK_GROUP_SIZE) on it; values = what was returned",
    },
    ApiCall {
        name: "use_trivial_glsl_compute",
        args: "none",
        requires: ARB_CS,
        does: "compiles and links `layout(local_size_x = 1) in; void main() {}` (GLSL 4.30, or \
               3.30 with the compute extension before GL 4.3) and glUseProgram's it, e.g. to see \
               which program a dispatch runs while COMPUTE_PROGRAM_NV is enabled; values = \
               [LINK_STATUS]",
    },
    ApiCall {
        name: "make_separable",
        args: "none",
        requires: "GL 4.1 or GL_ARB_separate_shader_objects",
        does: "glProgramParameteri(program, PROGRAM_SEPARABLE, TRUE), relink, glUseProgram \
               and set the uniforms again; values = [LINK_STATUS]",
    },
    ApiCall {
        name: "bind_pipeline_compute",
        args: "none",
        requires: "GL 4.1 or GL_ARB_separate_shader_objects",
        does: "glUseProgram(0), glGenProgramPipelines, glUseProgramStages(pipeline, \
               COMPUTE_SHADER_BIT, program), glBindProgramPipeline(pipeline); the error is the \
               first any of them raised",
    },
    ApiCall {
        name: "begin_conditional_render_false",
        args: "[mode] optional: 0 QUERY_WAIT (default), 1 QUERY_NO_WAIT, 2 QUERY_BY_REGION_WAIT, \
               3 QUERY_BY_REGION_NO_WAIT",
        requires: "GL 3.0",
        does: "glBeginQuery/glEndQuery(SAMPLES_PASSED) around nothing (result 0), then \
               glBeginConditionalRender(query, mode): later dispatches run inside a conditional \
               render whose condition is false",
    },
    ApiCall {
        name: "end_conditional_render",
        args: "none",
        requires: "GL 3.0",
        does: "glEndConditionalRender()",
    },
    ApiCall {
        name: "uniform_block_referenced_by_compute",
        args: "[block index]",
        requires: "GL 4.3",
        does: "glGetActiveUniformBlockiv(program, index, UNIFORM_BLOCK_REFERENCED_BY_COMPUTE_SHADER); \
               values = [result]",
    },
    ApiCall {
        name: "atomic_counter_buffer_referenced_by_compute",
        args: "[buffer index]",
        requires: "GL 4.3",
        does: "glGetActiveAtomicCounterBufferiv(program, index, \
               ATOMIC_COUNTER_BUFFER_REFERENCED_BY_COMPUTE_SHADER); values = [result]",
    },
    ApiCall {
        name: "resource_referenced_by_compute",
        args: "[interface, index]: interface 0 UNIFORM, 1 UNIFORM_BLOCK, 2 BUFFER_VARIABLE, \
               3 SHADER_STORAGE_BLOCK, 4 ATOMIC_COUNTER_BUFFER",
        requires: "GL 4.3 or GL_ARB_program_interface_query",
        does: "glGetProgramResourceiv(program, interface, index, REFERENCED_BY_COMPUTE_SHADER); \
               values = [result]",
    },
    ApiCall {
        name: "validate_program",
        args: "none",
        requires: "",
        does: "glValidateProgram(program); values = [VALIDATE_STATUS]",
    },
    ApiCall {
        name: "enable_compute_program_nv",
        args: "none",
        requires: NV_CP5,
        does: "glEnable(COMPUTE_PROGRAM_NV)",
    },
    ApiCall {
        name: "disable_compute_program_nv",
        args: "none",
        requires: NV_CP5,
        does: "glDisable(COMPUTE_PROGRAM_NV)",
    },
    ApiCall {
        name: "is_enabled_compute_program_nv",
        args: "none",
        requires: NV_CP5,
        does: "glIsEnabled(COMPUTE_PROGRAM_NV); values = [0 or 1]",
    },
    ApiCall {
        name: "bind_program_nv",
        args: "[0 or 1]",
        requires: NV_CP5,
        does: "glBindProgramARB(COMPUTE_PROGRAM_NV, 0) for 0, the case program for 1",
    },
    ApiCall {
        name: "program_local_i4",
        args: "[index, x, y, z, w]",
        requires: NV_CP5,
        does: "glProgramLocalParameterI4iNV(COMPUTE_PROGRAM_NV, index, x, y, z, w)",
    },
    ApiCall {
        name: "program_env_i4",
        args: "[index, x, y, z, w]",
        requires: NV_CP5,
        does: "glProgramEnvParameterI4iNV(COMPUTE_PROGRAM_NV, index, x, y, z, w) (reset to 0 \
               after the case)",
    },
    ApiCall {
        name: "program_buffer_parameters_iuiv_nv",
        args: "[binding, word index, v0, v1, ...]",
        requires: "GL_NV_parameter_buffer_object",
        does: "glProgramBufferParametersIuivNV(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, binding, \
               word index, count, [v0, v1, ...])",
    },
    ApiCall {
        name: "bind_parameter_buffer_above_max_nv",
        args: "[buffer]",
        requires: "GL_NV_parameter_buffer_object",
        does: "n = GetProgramivARB(COMPUTE_PROGRAM_NV, MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV); \
               glBindBufferBase(COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, n, buffer); values = [n]",
    },
    ApiCall {
        name: "finish",
        args: "none",
        requires: "",
        does: "glFinish()",
    },
    ApiCall {
        name: "conform_test_abort",
        args: "none",
        requires: "",
        does: "test trigger: the worker process aborts (SIGABRT), as a crashing driver would",
    },
    ApiCall {
        name: "conform_test_hang",
        args: "none",
        requires: "",
        does: "test trigger: the worker process sleeps forever, as a hanging driver would",
    },
];

fn arg(args: &[i64], i: usize, call: &str) -> Result<i64, Refusal> {
    args.get(i).copied().ok_or_else(|| {
        Refusal::Internal(format!(
            "api call `{call}` needs at least {} argument(s)",
            i + 1
        ))
    })
}

fn arg_u32(args: &[i64], i: usize, call: &str) -> Result<u32, Refusal> {
    let v = arg(args, i, call)?;
    u32::try_from(v).map_err(|_| {
        Refusal::Internal(format!(
            "api call `{call}`: argument {i} ({v}) is not a 32-bit unsigned value"
        ))
    })
}

fn arg_i32(args: &[i64], i: usize, call: &str) -> Result<i32, Refusal> {
    let v = arg(args, i, call)?;
    i32::try_from(v)
        .or_else(|_| u32::try_from(v).map(|u| u as i32))
        .map_err(|_| {
            Refusal::Internal(format!(
                "api call `{call}`: argument {i} ({v}) is not a 32-bit value"
            ))
        })
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

    pub(crate) fn api(&mut self, call: &str, args: &[i64]) -> Result<StepOutcome, Refusal> {
        let gl = self.gl;
        let caps = self.caps;
        let mut values: Vec<i64> = Vec::new();
        let mut applicable = true;
        // SAFETY (for every block below): each action is gated on the extension string or the
        // context version; pointers passed to GL point at live locals of the right size.
        match call {
            "conform_test_abort" => {
                eprintln!("conform worker: conform_test_abort step, aborting");
                std::process::abort();
            }
            "conform_test_hang" => {
                eprintln!("conform worker: conform_test_hang step, sleeping forever");
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                }
            }
            "use_no_program" => unsafe {
                if !self.pipelines.is_empty() {
                    gl.BindProgramPipeline(0);
                }
                gl.UseProgram(0);
            },
            "use_program" => {
                let p = self.object_program(call)?;
                unsafe { gl.UseProgram(p) };
            }
            "dispatch" => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let (x, y, z) = (
                    arg_u32(args, 0, call)?,
                    arg_u32(args, 1, call)?,
                    arg_u32(args, 2, call)?,
                );
                unsafe { gl.DispatchCompute(x, y, z) };
            }
            "dispatch_above_max_count" => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let dim = arg_u32(args, 0, call)?;
                if dim > 2 {
                    return Err(Refusal::Internal(format!(
                        "api call `{call}`: dimension {dim} is not 0, 1 or 2"
                    )));
                }
                take_error(gl);
                let max =
                    exec::get_values(caps, gl, gl::MAX_COMPUTE_WORK_GROUP_COUNT, Some(dim), 1)[0];
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
                    unsafe { gl.DispatchCompute(g[0], g[1], g[2]) };
                }
            }
            "dispatch_indirect_raw" => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let off = arg(args, 0, call)?;
                let off = isize::try_from(off)
                    .map_err(|_| Refusal::Internal(format!("offset {off} does not fit")))?;
                unsafe { gl.DispatchComputeIndirect(off) };
            }
            "bind_indirect" => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let i = arg_u32(args, 0, call)? as usize;
                let id = self.buffer_name(i)?;
                unsafe { gl.BindBuffer(gl::DISPATCH_INDIRECT_BUFFER, id) };
            }
            "bind_indirect_none" => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                unsafe { gl.BindBuffer(gl::DISPATCH_INDIRECT_BUFFER, 0) };
            }
            "dispatch_group_size" => {
                self.need(
                    caps.ext("GL_ARB_compute_variable_group_size"),
                    "GL_ARB_compute_variable_group_size",
                )?;
                let mut a = [0u32; 6];
                for (i, v) in a.iter_mut().enumerate() {
                    *v = arg_u32(args, i, call)?;
                }
                unsafe { gl.DispatchComputeGroupSizeARB(a[0], a[1], a[2], a[3], a[4], a[5]) };
            }
            "memory_barrier_raw" => {
                self.need(
                    caps.memory_barrier(),
                    "GL_ARB_shader_image_load_store (glMemoryBarrier)",
                )?;
                let bits = arg_u32(args, 0, call)?;
                unsafe { gl.MemoryBarrier(bits) };
            }
            "query_work_group_size_unlinked" => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let p = unsafe { gl.CreateProgram() };
                self.extra_programs.push(p);
                take_error(gl);
                let mut v = [i32::MIN; 3];
                unsafe { gl.GetProgramiv(p, gl::COMPUTE_WORK_GROUP_SIZE, v.as_mut_ptr()) };
                values = v.iter().map(|&x| x as i64).collect();
            }
            "query_work_group_size_link_failed" => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let sh = unsafe { gl.CreateShader(gl::COMPUTE_SHADER) };
                self.shaders.push(sh);
                let mut log = String::new();
                exec::compile_glsl(
                    gl,
                    sh,
                    "#version 430\nlayout(local_size_x = 2) in;\nvoid main() { undeclared = 1; }\n",
                    &mut log,
                );
                let p = unsafe { gl.CreateProgram() };
                self.extra_programs.push(p);
                unsafe { gl.AttachShader(p, sh) };
                exec::link(gl, p, &mut log);
                take_error(gl);
                let mut v = [i32::MIN; 3];
                unsafe { gl.GetProgramiv(p, gl::COMPUTE_WORK_GROUP_SIZE, v.as_mut_ptr()) };
                values = v.iter().map(|&x| x as i64).collect();
            }
            "use_trivial_glsl_compute" => {
                self.need(caps.compute(), "GL_ARB_compute_shader")?;
                let src = if caps.version(4, 3) {
                    "#version 430\nlayout(local_size_x = 1) in;\nvoid main() {}\n"
                } else {
                    "#version 330\n#extension GL_ARB_compute_shader : require\n\
                     layout(local_size_x = 1) in;\nvoid main() {}\n"
                };
                let sh = unsafe { gl.CreateShader(gl::COMPUTE_SHADER) };
                self.shaders.push(sh);
                let mut log = String::new();
                exec::compile_glsl(gl, sh, src, &mut log);
                let p = unsafe { gl.CreateProgram() };
                self.extra_programs.push(p);
                unsafe { gl.AttachShader(p, sh) };
                let ok = exec::link(gl, p, &mut log);
                if !ok {
                    self.notes
                        .push(format!("`{call}`: the trivial program did not link: {log}"));
                }
                values.push(ok as i64);
                take_error(gl);
                unsafe { gl.UseProgram(p) };
            }
            "make_separable" => {
                self.need(
                    caps.separate_shader_objects(),
                    "GL_ARB_separate_shader_objects",
                )?;
                let p = self.object_program(call)?;
                let mut log = String::new();
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
            "bind_pipeline_compute" => {
                self.need(
                    caps.separate_shader_objects(),
                    "GL_ARB_separate_shader_objects",
                )?;
                let p = self.object_program(call)?;
                let mut pipe = 0;
                unsafe {
                    gl.UseProgram(0);
                    gl.GenProgramPipelines(1, &mut pipe);
                }
                self.pipelines.push(pipe);
                let mut first = take_error(gl);
                unsafe { gl.UseProgramStages(pipe, gl::COMPUTE_SHADER_BIT, p) };
                let e = take_error(gl);
                if first == gl::NO_ERROR {
                    first = e;
                }
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
            "begin_conditional_render_false" => {
                self.need(caps.version(3, 0), "GL 3.0 (conditional rendering)")?;
                let mode = match args.first().copied().unwrap_or(0) {
                    0 => gl::QUERY_WAIT,
                    1 => gl::QUERY_NO_WAIT,
                    2 => gl::QUERY_BY_REGION_WAIT,
                    3 => gl::QUERY_BY_REGION_NO_WAIT,
                    m => {
                        return Err(Refusal::Internal(format!(
                            "api call `{call}`: mode {m} is not 0..=3"
                        )))
                    }
                };
                let mut q = 0;
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
                unsafe { gl.BeginConditionalRender(q, mode) };
                self.conditional_render = true;
            }
            "end_conditional_render" => {
                self.need(caps.version(3, 0), "GL 3.0 (conditional rendering)")?;
                unsafe { gl.EndConditionalRender() };
                self.conditional_render = false;
            }
            "uniform_block_referenced_by_compute" => {
                self.need(caps.compute() && caps.ubo(), "GL 4.3")?;
                let p = self.object_program(call)?;
                let i = arg_u32(args, 0, call)?;
                let mut v = i32::MIN;
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
            "atomic_counter_buffer_referenced_by_compute" => {
                self.need(caps.compute() && caps.atomic_counters(), "GL 4.3")?;
                let p = self.object_program(call)?;
                let i = arg_u32(args, 0, call)?;
                let mut v = i32::MIN;
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
            "resource_referenced_by_compute" => {
                self.need(
                    caps.program_interface_query(),
                    "GL_ARB_program_interface_query",
                )?;
                let p = self.object_program(call)?;
                let iface = match arg(args, 0, call)? {
                    0 => gl::UNIFORM,
                    1 => gl::UNIFORM_BLOCK,
                    2 => gl::BUFFER_VARIABLE,
                    3 => gl::SHADER_STORAGE_BLOCK,
                    4 => gl::ATOMIC_COUNTER_BUFFER,
                    i => {
                        return Err(Refusal::Internal(format!(
                            "api call `{call}`: interface {i} is not 0..=4"
                        )))
                    }
                };
                let index = arg_u32(args, 1, call)?;
                let prop = gl::REFERENCED_BY_COMPUTE_SHADER;
                let mut v = i32::MIN;
                let mut len = 0;
                unsafe { gl.GetProgramResourceiv(p, iface, index, 1, &prop, 1, &mut len, &mut v) };
                values.push(v as i64);
            }
            "validate_program" => {
                let p = self.object_program(call)?;
                let mut v = 0;
                unsafe {
                    gl.ValidateProgram(p);
                    gl.GetProgramiv(p, gl::VALIDATE_STATUS, &mut v);
                }
                values.push(v as i64);
            }
            "enable_compute_program_nv" => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                unsafe { gl.Enable(gl::COMPUTE_PROGRAM_NV) };
            }
            "disable_compute_program_nv" => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                unsafe { gl.Disable(gl::COMPUTE_PROGRAM_NV) };
            }
            "is_enabled_compute_program_nv" => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                let v = unsafe { gl.IsEnabled(gl::COMPUTE_PROGRAM_NV) };
                values.push(v as i64);
            }
            "bind_program_nv" => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                let id = match (arg(args, 0, call)?, self.program) {
                    (0, _) => 0,
                    (_, Program::Nv(p)) => p,
                    _ => {
                        return Err(Refusal::Internal(format!(
                            "api call `{call}` [1] needs an NV assembly program"
                        )))
                    }
                };
                unsafe { gl.BindProgramARB(gl::COMPUTE_PROGRAM_NV, id) };
            }
            "program_local_i4" | "program_env_i4" => {
                self.need(caps.nv_compute(), "GL_NV_compute_program5")?;
                let index = arg_u32(args, 0, call)?;
                let mut v = [0i32; 4];
                for (k, x) in v.iter_mut().enumerate() {
                    *x = arg_i32(args, k + 1, call)?;
                }
                unsafe {
                    if call == "program_local_i4" {
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
            "program_buffer_parameters_iuiv_nv" => {
                self.need(
                    caps.ext("GL_NV_parameter_buffer_object"),
                    "GL_NV_parameter_buffer_object",
                )?;
                let binding = arg_u32(args, 0, call)?;
                let word = arg_u32(args, 1, call)?;
                let mut words = Vec::new();
                for k in 2..args.len() {
                    words.push(arg_u32(args, k, call)?);
                }
                unsafe {
                    gl.ProgramBufferParametersIuivNV(
                        gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV,
                        binding,
                        word,
                        words.len() as i32,
                        words.as_ptr(),
                    )
                };
            }
            "bind_parameter_buffer_above_max_nv" => {
                self.need(
                    caps.ext("GL_NV_parameter_buffer_object"),
                    "GL_NV_parameter_buffer_object",
                )?;
                let id = self.buffer_name(arg_u32(args, 0, call)? as usize)?;
                let mut n = 0;
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
            "finish" => unsafe { gl.Finish() },
            other => {
                return Err(Refusal::Internal(format!(
                    "api call `{other}` is not one the GL runner knows (see docs/DRIVERS.md)"
                )))
            }
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

/// [`API_CALLS`] as a Markdown table (the one in `docs/DRIVERS.md`).
pub fn api_table_markdown() -> String {
    let mut out =
        String::from("| call | args | requires | GL calls and results |\n|---|---|---|---|\n");
    for c in API_CALLS {
        let requires = if c.requires.is_empty() {
            "-"
        } else {
            c.requires
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            c.name, c.args, requires, c.does
        ));
    }
    out
}

/// Whether `name` is an action [`API_CALLS`] lists.
pub(crate) fn is_known(name: &str) -> bool {
    API_CALLS.iter().any(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_names_are_unique_and_snake_case() {
        let mut names: Vec<_> = API_CALLS.iter().map(|c| c.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
        for c in API_CALLS {
            assert!(c
                .name
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_'));
        }
        assert!(is_known("dispatch_above_max_count"));
        let doc = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/DRIVERS.md"
        ))
        .expect("docs/DRIVERS.md");
        for line in api_table_markdown().lines() {
            assert!(doc.contains(line), "docs/DRIVERS.md lacks the row: {line}");
        }
        assert!(!is_known("nonsense"));
    }
}
