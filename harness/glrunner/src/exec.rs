//! Executing one [`ExecPlan`] on the worker's current context.
//!
//! Every feature is gated on the extension string (or the context version), never on a loaded
//! function pointer: Mesa hands out non-null stubs for functions it does not implement.

use crate::enums::{self, ProgramRead};
use crate::images;
use crate::sampled;
use crate::{ContextApi, DriverInfo};
use conform_gl as gl;
use conform_gl::types::{GLenum, GLint, GLuint};
use conform_plan::{
    BarrierBit, BufferKind, BuildOutcome, BuildStage, ExecPlan, GlError, ImageDim, Language,
    Outcome, ProgramPname, ProgramSource, QueryPname, Refusal, Scalar, Stage, StepOutcome, Timings,
};
use std::ffi::{CStr, CString};
use std::sync::Mutex;
use std::time::Instant;

/// Driver debug messages (KHR_debug) received during the current plan.
static DEBUG_LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// How many driver messages one plan keeps.
const DEBUG_KEEP: usize = 32;

extern "system" fn debug_callback(
    _source: GLenum,
    gltype: GLenum,
    id: GLuint,
    severity: GLenum,
    length: gl::types::GLsizei,
    message: *const gl::types::GLchar,
    _user: *mut std::ffi::c_void,
) {
    if message.is_null() || severity == gl::DEBUG_SEVERITY_NOTIFICATION {
        return;
    }
    // SAFETY: GL passes `length` bytes at `message`, or a NUL-terminated string when negative.
    let text = unsafe {
        if length >= 0 {
            String::from_utf8_lossy(std::slice::from_raw_parts(message.cast(), length as usize))
                .into_owned()
        } else {
            CStr::from_ptr(message).to_string_lossy().into_owned()
        }
    };
    let kind = match gltype {
        gl::DEBUG_TYPE_ERROR => "error",
        gl::DEBUG_TYPE_DEPRECATED_BEHAVIOR => "deprecated",
        gl::DEBUG_TYPE_UNDEFINED_BEHAVIOR => "undefined behaviour",
        gl::DEBUG_TYPE_PORTABILITY => "portability",
        gl::DEBUG_TYPE_PERFORMANCE => "performance",
        _ => "other",
    };
    if let Ok(mut log) = DEBUG_LOG.lock() {
        if log.len() < DEBUG_KEEP {
            log.push(format!(
                "driver message ({kind}, id {id:#x}): {}",
                text.trim_end()
            ));
        }
    }
}

/// Routes the driver's KHR_debug messages into [`DEBUG_LOG`] (synchronously, so each lands
/// within the plan that caused it). Gated on GL 4.3 / ES 3.2 / GL_KHR_debug.
pub(crate) fn enable_debug_messages(gl: &gl::Gl, caps: &Caps) -> bool {
    if !caps.debug_output() {
        return false;
    }
    // SAFETY: the callback is a plain function that lives for the whole process.
    unsafe {
        gl.Enable(gl::DEBUG_OUTPUT);
        gl.Enable(gl::DEBUG_OUTPUT_SYNCHRONOUS);
        gl.DebugMessageCallback(Some(debug_callback), std::ptr::null());
    }
    take_error(gl) == gl::NO_ERROR
}

fn take_debug_messages() -> Vec<String> {
    match DEBUG_LOG.lock() {
        Ok(mut log) => std::mem::take(&mut *log),
        Err(_) => Vec::new(),
    }
}

pub(crate) fn get_string(gl: &gl::Gl, name: GLenum) -> String {
    // SAFETY: GetString returns null or a static NUL-terminated string.
    unsafe {
        let p = gl.GetString(name);
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p.cast()).to_string_lossy().into_owned()
        }
    }
}

pub(crate) fn get_string_i(gl: &gl::Gl, name: GLenum, index: u32) -> String {
    // SAFETY: as get_string.
    unsafe {
        let p = gl.GetStringi(name, index);
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p.cast()).to_string_lossy().into_owned()
        }
    }
}

pub(crate) fn get_int(gl: &gl::Gl, pname: GLenum) -> GLint {
    let mut v = 0;
    // SAFETY: single-valued pnames only.
    unsafe { gl.GetIntegerv(pname, &mut v) };
    v
}

/// Reads and clears every pending GL error; returns the first.
pub(crate) fn take_error(gl: &gl::Gl) -> u32 {
    // SAFETY: GetError has no preconditions.
    let first = unsafe { gl.GetError() };
    let mut n = 0;
    // SAFETY: as above.
    while n < 16 && unsafe { gl.GetError() } != gl::NO_ERROR {
        n += 1;
    }
    first
}

pub(crate) fn gl_error(code: u32) -> GlError {
    // Codes GL does not define should not happen; report them as the nearest thing.
    GlError::from_code(code).unwrap_or(GlError::InvalidOperation)
}

/// What the context offers, from the probe.
pub(crate) struct Caps {
    pub info: DriverInfo,
}

impl Caps {
    pub fn ext(&self, name: &str) -> bool {
        self.info.extensions.contains(name)
    }
    /// An OpenGL ES 3.2 (or later) context.
    pub fn es_3_2(&self) -> bool {
        self.es() && self.info.gl_version >= (3, 2)
    }
    /// An OpenGL ES context.
    pub fn es(&self) -> bool {
        self.info.api == ContextApi::Gles
    }
    /// Whether the context's version has a feature that desktop GL made core in `gl` and
    /// OpenGL ES in `es` (None: not in any ES version).
    fn core_in(&self, gl: (u32, u32), es: Option<(u32, u32)>) -> bool {
        match (self.es(), es) {
            (false, _) => self.info.gl_version >= gl,
            (true, Some(es)) => self.info.gl_version >= es,
            (true, None) => false,
        }
    }
    /// A desktop context of at least `major.minor`.
    pub fn version(&self, major: u32, minor: u32) -> bool {
        self.core_in((major, minor), None)
    }
    pub fn compute(&self) -> bool {
        self.core_in((4, 3), Some((3, 1))) || self.ext("GL_ARB_compute_shader")
    }
    pub fn ssbo(&self) -> bool {
        self.core_in((4, 3), Some((3, 1))) || self.ext("GL_ARB_shader_storage_buffer_object")
    }
    pub fn atomic_counters(&self) -> bool {
        self.core_in((4, 2), Some((3, 1))) || self.ext("GL_ARB_shader_atomic_counters")
    }
    pub fn ubo(&self) -> bool {
        self.core_in((3, 1), Some((3, 0))) || self.ext("GL_ARB_uniform_buffer_object")
    }
    pub fn spirv(&self) -> bool {
        self.version(4, 6) || self.ext("GL_ARB_gl_spirv")
    }
    pub fn nv_compute(&self) -> bool {
        self.ext("GL_NV_compute_program5")
    }
    pub fn memory_barrier(&self) -> bool {
        self.core_in((4, 2), Some((3, 1))) || self.ext("GL_ARB_shader_image_load_store")
    }
    pub fn separate_shader_objects(&self) -> bool {
        self.core_in((4, 1), Some((3, 1))) || self.ext("GL_ARB_separate_shader_objects")
    }
    pub fn get_integer64(&self) -> bool {
        self.core_in((3, 2), Some((3, 0))) || self.ext("GL_ARB_sync")
    }
    pub fn fp64(&self) -> bool {
        self.version(4, 0) || self.ext("GL_ARB_gpu_shader_fp64")
    }
    pub fn program_interface_query(&self) -> bool {
        self.core_in((4, 3), Some((3, 1))) || self.ext("GL_ARB_program_interface_query")
    }
    /// glDebugMessageCallback.
    pub fn debug_output(&self) -> bool {
        self.core_in((4, 3), Some((3, 2))) || self.ext("GL_KHR_debug")
    }
    /// glGetBufferSubData (desktop GL 1.5; OpenGL ES has none: buffers are read by mapping).
    pub fn get_buffer_sub_data(&self) -> bool {
        !self.es()
    }
    /// Buffer textures (glTexBuffer): desktop GL 3.1 or GL_ARB_texture_buffer_object, ES 3.2
    /// (ES 3.1's GL_EXT/OES_texture_buffer name the function with a suffix, which the
    /// bindings do not load).
    pub fn buffer_textures(&self) -> bool {
        self.core_in((3, 1), Some((3, 2))) || self.ext("GL_ARB_texture_buffer_object")
    }
    /// glTexBufferRange: desktop GL 4.3 or GL_ARB_texture_buffer_range, ES 3.2.
    pub fn buffer_texture_range(&self) -> bool {
        self.core_in((4, 3), Some((3, 2))) || self.ext("GL_ARB_texture_buffer_range")
    }
    /// glClearBufferData (desktop GL 4.3 or GL_ARB_clear_buffer_object; not in OpenGL ES).
    pub fn clear_buffer_data(&self) -> bool {
        self.version(4, 3) || self.ext("GL_ARB_clear_buffer_object")
    }
}

/// Reads the context's description (renderer, version, extensions, limits).
pub(crate) fn probe(gl: &gl::Gl, driver: crate::Driver, api: ContextApi) -> DriverInfo {
    let major = get_int(gl, gl::MAJOR_VERSION).max(0) as u32;
    let minor = get_int(gl, gl::MINOR_VERSION).max(0) as u32;
    take_error(gl);
    let n = get_int(gl, gl::NUM_EXTENSIONS).max(0) as u32;
    let extensions = (0..n)
        .map(|i| get_string_i(gl, gl::EXTENSIONS, i))
        .collect();
    let glsl_version = get_string(gl, gl::SHADING_LANGUAGE_VERSION);
    // ES: "OpenGL ES GLSL ES 3.20 Mesa ..." (OpenGL ES 3.2 section 6.1.5).
    let glsl = parse_glsl(
        glsl_version
            .strip_prefix("OpenGL ES GLSL ES ")
            .unwrap_or(&glsl_version),
    );
    let profile = if api == ContextApi::Gles {
        "es"
    } else if (major, minor) >= (3, 2) {
        let mask = get_int(gl, gl::CONTEXT_PROFILE_MASK) as u32;
        if mask & gl::CONTEXT_CORE_PROFILE_BIT != 0 {
            "core"
        } else {
            "compatibility"
        }
    } else {
        "compatibility"
    };
    let mut info = DriverInfo {
        driver,
        api,
        renderer: get_string(gl, gl::RENDERER),
        vendor: get_string(gl, gl::VENDOR),
        version: get_string(gl, gl::VERSION),
        glsl_version,
        profile: profile.to_string(),
        gl_version: (major, minor),
        glsl,
        extensions,
        spirv_extensions: Default::default(),
        limits: Default::default(),
        gles: Err(match api {
            ContextApi::Gl => "not probed".into(),
            ContextApi::Gles => "an ES context itself".into(),
        }),
    };
    let caps = Caps { info: info.clone() };
    if caps.spirv() {
        let n = get_int(gl, gl::NUM_SPIR_V_EXTENSIONS).max(0) as u32;
        info.spirv_extensions = (0..n)
            .map(|i| get_string_i(gl, gl::SPIR_V_EXTENSIONS, i))
            .collect();
    }
    take_error(gl);
    use QueryPname as Q;
    let mut limits: Vec<QueryPname> = Vec::new();
    if caps.compute() {
        limits.extend([
            Q::MaxComputeWorkGroupCount,
            Q::MaxComputeWorkGroupSize,
            Q::MaxComputeWorkGroupInvocations,
            Q::MaxComputeSharedMemorySize,
            Q::MaxComputeUniformBlocks,
            Q::MaxComputeTextureImageUnits,
            Q::MaxComputeUniformComponents,
            Q::MaxCombinedComputeUniformComponents,
        ]);
        if caps.atomic_counters() {
            limits.extend([
                Q::MaxComputeAtomicCounters,
                Q::MaxComputeAtomicCounterBuffers,
            ]);
        }
        if caps.memory_barrier() {
            limits.push(Q::MaxComputeImageUniforms);
        }
    }
    if caps.ssbo() {
        limits.extend([
            Q::MaxComputeShaderStorageBlocks,
            Q::MaxCombinedShaderStorageBlocks,
            Q::MaxShaderStorageBufferBindings,
            Q::MaxShaderStorageBlockSize,
            Q::ShaderStorageBufferOffsetAlignment,
        ]);
    }
    if caps.ubo() {
        limits.extend([Q::MaxUniformBufferBindings, Q::MaxUniformBlockSize]);
    }
    if caps.atomic_counters() {
        limits.extend([
            Q::MaxAtomicCounterBufferBindings,
            Q::MaxAtomicCounterBufferSize,
        ]);
    }
    if caps.ext("GL_ARB_compute_variable_group_size") {
        limits.extend([
            Q::MaxComputeVariableGroupSizeArb,
            Q::MaxComputeVariableGroupInvocationsArb,
        ]);
    }
    for name in limits {
        let (pname, count) = enums::query_pname(name);
        let values = if count == 1 {
            get_values(&caps, gl, pname, None, 1)
        } else {
            (0..count as u32)
                .map(|i| get_values(&caps, gl, pname, Some(i), 1)[0])
                .collect()
        };
        if take_error(gl) == gl::NO_ERROR {
            info.limits.insert(name.name().to_string(), values);
        }
    }
    if caps.nv_compute() {
        let mut names = vec![
            ProgramPname::MaxProgramLocalParametersArb,
            ProgramPname::MaxProgramEnvParametersArb,
            ProgramPname::MaxProgramInstructionsArb,
            ProgramPname::MaxProgramTemporariesArb,
            ProgramPname::MaxProgramCallDepthNv,
            ProgramPname::MaxProgramIfDepthNv,
            ProgramPname::MaxProgramLoopDepthNv,
        ];
        // NV_parameter_buffer_object, New Tokens: these two are pnames of GetProgramivARB,
        // not of GetIntegerv.
        if caps.ext("GL_NV_parameter_buffer_object") {
            names.extend([
                ProgramPname::MaxProgramParameterBufferBindingsNv,
                ProgramPname::MaxProgramParameterBufferSizeNv,
            ]);
        }
        for name in names {
            if let ProgramRead::Assembly(pname, _) = enums::program_pname(name) {
                let mut v = 0;
                // SAFETY: single-valued pname on a target the extension string offers.
                unsafe { gl.GetProgramivARB(gl::COMPUTE_PROGRAM_NV, pname, &mut v) };
                if take_error(gl) == gl::NO_ERROR {
                    info.limits.insert(name.name().to_string(), vec![v as i64]);
                }
            }
        }
    }
    info
}

fn parse_glsl(s: &str) -> u32 {
    let num = s.split_whitespace().next().unwrap_or("");
    let (maj, min) = num.split_once('.').unwrap_or((num, "0"));
    let maj: u32 = maj.parse().unwrap_or(0);
    let min: String = min.chars().take_while(|c| c.is_ascii_digit()).collect();
    let min: u32 = format!("{min:0<2}")
        .get(..2)
        .unwrap_or("0")
        .parse()
        .unwrap_or(0);
    maj * 100 + min
}

/// glGetInteger64(i)v with `count` values (indexed queries return one).
pub(crate) fn get_values(
    caps: &Caps,
    gl: &gl::Gl,
    pname: GLenum,
    index: Option<u32>,
    count: usize,
) -> Vec<i64> {
    let count = if index.is_some() { 1 } else { count.max(1) };
    // Room for drivers that write more values than we expect.
    let mut v64 = vec![0i64; count + 16];
    let mut v32 = vec![0i32; count + 16];
    // SAFETY: the buffers are larger than any value count of the pnames we know.
    unsafe {
        match (index, caps.get_integer64()) {
            (Some(i), true) => gl.GetInteger64i_v(pname, i, v64.as_mut_ptr()),
            (None, true) => gl.GetInteger64v(pname, v64.as_mut_ptr()),
            (Some(i), false) => gl.GetIntegeri_v(pname, i, v32.as_mut_ptr()),
            (None, false) => gl.GetIntegerv(pname, v32.as_mut_ptr()),
        }
    }
    if caps.get_integer64() {
        v64.truncate(count);
        v64
    } else {
        v32.into_iter().take(count).map(i64::from).collect()
    }
}

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

/// The load log of an NV assembly program, or None when it loaded: ProgramStringARB failed when
/// it raised `err` or left an error position other than -1. The log is the driver's error
/// string plus the position mapped to `origin:line`.
fn nv_load_failure(msg: &str, err: u32, pos: GLint, p: &ProgramSource) -> Option<String> {
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

fn stage_enum(stage: Stage) -> GLenum {
    match stage {
        Stage::Compute => gl::COMPUTE_SHADER,
        Stage::Vertex => gl::VERTEX_SHADER,
        Stage::Fragment => gl::FRAGMENT_SHADER,
        Stage::Geometry => gl::GEOMETRY_SHADER,
        Stage::TessControl => gl::TESS_CONTROL_SHADER,
        Stage::TessEvaluation => gl::TESS_EVALUATION_SHADER,
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

fn append_log(log: &mut String, text: &str) {
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
fn specialize_spirv(
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

fn micros(since: Instant) -> u64 {
    since.elapsed().as_micros().min(u64::MAX as u128) as u64
}

/// glBufferSubData of `bytes` at `offset` of buffer `id`, through the copy-write target (no
/// binding a case can observe is touched). GL checks the range (a step may expect it to
/// refuse one).
fn buffer_sub_data(gl: &gl::Gl, id: GLuint, offset: isize, bytes: &[u8]) {
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
fn map_read(gl: &gl::Gl, id: GLuint, bytes: &mut [u8]) {
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

    #[test]
    fn glsl_versions() {
        assert_eq!(parse_glsl("4.50"), 450);
        assert_eq!(parse_glsl("3.30"), 330);
        assert_eq!(parse_glsl("4.60 NVIDIA"), 460);
        assert_eq!(parse_glsl("4.6"), 460);
        assert_eq!(parse_glsl(""), 0);
    }
}
