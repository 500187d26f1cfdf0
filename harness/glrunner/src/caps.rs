//! What a context offers: [`Caps`] (its version, extensions and limits, from [`probe`]), the
//! feature predicates every step is gated on (the extension string or the version, never a
//! function pointer), and indexed limit queries.

use crate::enums::{self, ProgramRead};
use crate::gl_query::*;
use crate::{ContextApi, DriverInfo};
use conform_gl as gl;
use conform_gl::types::GLenum;
use conform_plan::{ProgramPname, QueryPname};

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
        egl_device: String::new(),
        libraries: Vec::new(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glsl_versions() {
        assert_eq!(parse_glsl("4.50"), 450);
        assert_eq!(parse_glsl("3.30"), 330);
        assert_eq!(parse_glsl("4.60 NVIDIA"), 460);
        assert_eq!(parse_glsl("4.6"), 460);
        assert_eq!(parse_glsl(""), 0);
    }
}
