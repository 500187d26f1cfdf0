//! A fake GL driver for the runner's NV path, so the calls conform makes for NV assembly
//! programs are checked on machines without NVIDIA's driver.
//!
//! `Gl::load_with` gets `extern "system"` functions written here instead of a driver's. Each
//! records its call (name and arguments; the program text of ProgramStringARB separately) and
//! keeps just enough state to answer: the pending error, the context's strings and integers,
//! buffer names, bindings and contents, program parameters, and the load error a test asks
//! for. A function the runner was not expected to call is not loaded, so calling it panics.
//!
//! The fake never runs a program: a dispatch is only recorded, and buffers read back hold what
//! was uploaded. These tests check the calls conform makes against NV_compute_program5,
//! NV_gpu_program4, NV_shader_storage_buffer_object and NV_parameter_buffer_object (and the
//! ARB_vertex_program program-object calls they build on); they say nothing about what a
//! driver computes. Where the fake raises an error, it is one those specifications prescribe.
//!
//! The state is per thread (the test harness runs each test on its own thread).

use crate::caps::{self, Caps};
use crate::{ContextApi, Driver};
use conform_gl as gl;
use conform_gl::types::{GLboolean, GLenum, GLfloat, GLint, GLint64, GLsizei, GLubyte, GLuint};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{c_void, CString};

/// The extensions of the fake context, besides what GL 4.6 implies.
const NV_EXTENSIONS: [&str; 6] = [
    "GL_NV_compute_program5",
    "GL_NV_gpu_program5",
    "GL_NV_shader_storage_buffer_object",
    "GL_NV_parameter_buffer_object",
    "GL_NV_shader_thread_shuffle",
    "GL_NV_shader_atomic_float",
];

/// MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV of the fake: any value will do; this one is no
/// power of two and no other limit of the fake, so it cannot be mistaken for another.
const PARAMETER_BUFFER_BINDINGS: GLint = 14;

/// What the fake context offers.
#[derive(Clone, Debug)]
pub(crate) struct FakeContext {
    pub version: (GLint, GLint),
    pub extensions: Vec<&'static str>,
    /// When set, ProgramStringARB fails: INVALID_OPERATION, this error position and string.
    pub reject_program: Option<(GLint, &'static str)>,
}

impl Default for FakeContext {
    /// GL 4.6 compatibility with the NV extensions the corpus needs.
    fn default() -> Self {
        FakeContext {
            version: (4, 6),
            extensions: NV_EXTENSIONS.to_vec(),
            reject_program: None,
        }
    }
}

#[derive(Default)]
struct State {
    context: FakeContext,
    calls: Vec<String>,
    program_texts: Vec<String>,
    error: GLenum,
    next_name: GLuint,
    /// Buffer bound to each non-indexed target.
    bound: BTreeMap<GLenum, GLuint>,
    /// Buffer bound to each (target, index).
    indexed: BTreeMap<(GLenum, GLuint), GLuint>,
    buffers: BTreeMap<GLuint, Vec<u8>>,
    /// Program bound to COMPUTE_PROGRAM_NV, and whether COMPUTE_PROGRAM_NV is enabled.
    program: GLuint,
    enabled: bool,
    /// The GLSL program of UseProgram.
    used_program: GLuint,
    /// Local parameters per (program, index); env parameters per index (words, whatever type).
    local: BTreeMap<(GLuint, GLuint), [u32; 4]>,
    env: BTreeMap<GLuint, [u32; 4]>,
    error_position: GLint,
    error_string: CString,
    /// Strings handed out by GetString/GetStringi, alive until the next install.
    strings: Vec<CString>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

fn record(call: String) {
    with(|s| s.calls.push(call));
}

/// Sets the pending error unless one is already pending (GL keeps the first).
fn raise(error: GLenum) {
    with(|s| {
        if s.error == gl::NO_ERROR {
            s.error = error;
        }
    });
}

/// The enums the runner passes, by name; anything else in hex.
fn name(e: GLenum) -> String {
    let known = match e {
        gl::COMPUTE_PROGRAM_NV => "COMPUTE_PROGRAM_NV",
        gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV => "COMPUTE_PROGRAM_PARAMETER_BUFFER_NV",
        gl::PROGRAM_FORMAT_ASCII_ARB => "PROGRAM_FORMAT_ASCII_ARB",
        gl::PROGRAM_FORMAT_ARB => "PROGRAM_FORMAT_ARB",
        gl::PROGRAM_BINDING_ARB => "PROGRAM_BINDING_ARB",
        gl::PROGRAM_INSTRUCTIONS_ARB => "PROGRAM_INSTRUCTIONS_ARB",
        gl::PROGRAM_ERROR_POSITION_ARB => "PROGRAM_ERROR_POSITION_ARB",
        gl::PROGRAM_ERROR_STRING_ARB => "PROGRAM_ERROR_STRING_ARB",
        gl::MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV => "MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV",
        gl::MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV => "MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV",
        gl::SHADER_STORAGE_BUFFER => "SHADER_STORAGE_BUFFER",
        gl::ATOMIC_COUNTER_BUFFER => "ATOMIC_COUNTER_BUFFER",
        gl::UNIFORM_BUFFER => "UNIFORM_BUFFER",
        gl::COPY_READ_BUFFER => "COPY_READ_BUFFER",
        gl::COPY_WRITE_BUFFER => "COPY_WRITE_BUFFER",
        gl::DISPATCH_INDIRECT_BUFFER => "DISPATCH_INDIRECT_BUFFER",
        gl::DYNAMIC_COPY => "DYNAMIC_COPY",
        gl::INVALID_ENUM => "INVALID_ENUM",
        gl::INVALID_VALUE => "INVALID_VALUE",
        gl::INVALID_OPERATION => "INVALID_OPERATION",
        _ => return format!("{e:#x}"),
    };
    known.to_string()
}

/// Reads four values at `p`.
///
/// # Safety
/// `p` points to four readable values.
unsafe fn four<T: Copy>(p: *const T) -> [T; 4] {
    // SAFETY: the caller's promise.
    unsafe { [*p, *p.add(1), *p.add(2), *p.add(3)] }
}

/// Copies `n` values at `p` (none for a negative `n`).
///
/// # Safety
/// `p` points to `n` readable values when `n > 0`.
unsafe fn values<T: Copy>(p: *const T, n: GLsizei) -> Vec<T> {
    if n <= 0 {
        return Vec::new();
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(p, n as usize) }.to_vec()
}

/// Program calls take COMPUTE_PROGRAM_NV here; any other target is INVALID_ENUM.
fn program_target(target: GLenum) -> bool {
    if target == gl::COMPUTE_PROGRAM_NV {
        true
    } else {
        raise(gl::INVALID_ENUM);
        false
    }
}

// ---- the fake entry points --------------------------------------------------------------

extern "system" fn get_error() -> GLenum {
    let error = with(|s| std::mem::replace(&mut s.error, gl::NO_ERROR));
    if error != gl::NO_ERROR {
        record(format!("GetError() = {}", name(error)));
    }
    error
}

/// The value of a single-valued integer state, or None (INVALID_ENUM).
fn integer(pname: GLenum) -> Option<i64> {
    with(|s| {
        let c = &s.context;
        Some(match pname {
            gl::MAJOR_VERSION => c.version.0 as i64,
            gl::MINOR_VERSION => c.version.1 as i64,
            gl::NUM_EXTENSIONS => c.extensions.len() as i64,
            gl::CONTEXT_PROFILE_MASK => gl::CONTEXT_COMPATIBILITY_PROFILE_BIT as i64,
            gl::NUM_SPIR_V_EXTENSIONS => 0,
            gl::PROGRAM_ERROR_POSITION_ARB => s.error_position as i64,
            // NV_parameter_buffer_object lists these for GetProgramivARB only.
            gl::MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV
            | gl::MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV => return None,
            gl::COMPUTE_PROGRAM_NV => i64::from(s.enabled),
            // The generic binding (the fake answers it as it answers the indexed one).
            gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV => {
                s.bound.get(&pname).copied().unwrap_or(0) as i64
            }
            // Every other pname the runner reads is a limit; the fake has one value for all.
            _ => 65536,
        })
    })
}

fn indexed_integer(target: GLenum, index: GLuint) -> Option<i64> {
    match target {
        gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV if index as GLint >= PARAMETER_BUFFER_BINDINGS => {
            raise(gl::INVALID_VALUE);
            Some(0)
        }
        gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV | gl::SHADER_STORAGE_BUFFER => Some(with(|s| {
            s.indexed.get(&(target, index)).copied().unwrap_or(0) as i64
        })),
        _ => Some(65535),
    }
}

extern "system" fn get_integerv(pname: GLenum, data: *mut GLint) {
    record(format!("GetIntegerv({})", name(pname)));
    match integer(pname) {
        // SAFETY: the caller passes room for one value.
        Some(v) => unsafe { *data = v as GLint },
        None => raise(gl::INVALID_ENUM),
    }
}

extern "system" fn get_integer64v(pname: GLenum, data: *mut GLint64) {
    record(format!("GetInteger64v({})", name(pname)));
    match integer(pname) {
        // SAFETY: as get_integerv.
        Some(v) => unsafe { *data = v },
        None => raise(gl::INVALID_ENUM),
    }
}

extern "system" fn get_integer64i_v(target: GLenum, index: GLuint, data: *mut GLint64) {
    record(format!("GetInteger64i_v({}, {index})", name(target)));
    if let Some(v) = indexed_integer(target, index) {
        // SAFETY: as get_integerv.
        unsafe { *data = v };
    }
}

extern "system" fn get_integeri_v(target: GLenum, index: GLuint, data: *mut GLint) {
    record(format!("GetIntegeri_v({}, {index})", name(target)));
    if let Some(v) = indexed_integer(target, index) {
        // SAFETY: as get_integerv.
        unsafe { *data = v as GLint };
    }
}

/// Keeps `text` alive in the state and returns it as GL hands strings out.
fn hand_out(text: &str) -> *const GLubyte {
    let c = CString::new(text).unwrap_or_default();
    let p = c.as_ptr().cast();
    with(|s| s.strings.push(c));
    p
}

extern "system" fn get_string(name_: GLenum) -> *const GLubyte {
    record(format!("GetString({})", name(name_)));
    let text = match name_ {
        gl::VENDOR => "conform fake driver".to_string(),
        gl::RENDERER => "fake NV-path recorder (no GPU)".to_string(),
        gl::VERSION => with(|s| format!("{}.{}.0 fake", s.context.version.0, s.context.version.1)),
        gl::SHADING_LANGUAGE_VERSION => "4.60 fake".to_string(),
        gl::PROGRAM_ERROR_STRING_ARB => with(|s| s.error_string.to_string_lossy().into_owned()),
        _ => {
            raise(gl::INVALID_ENUM);
            return std::ptr::null();
        }
    };
    hand_out(&text)
}

extern "system" fn get_stringi(name_: GLenum, index: GLuint) -> *const GLubyte {
    record(format!("GetStringi({}, {index})", name(name_)));
    let ext = with(|s| s.context.extensions.get(index as usize).copied());
    match (name_, ext) {
        (gl::EXTENSIONS, Some(e)) => hand_out(e),
        _ => {
            raise(gl::INVALID_VALUE);
            std::ptr::null()
        }
    }
}

extern "system" fn gen_programs_arb(n: GLsizei, programs: *mut GLuint) {
    record(format!("GenProgramsARB({n})"));
    for i in 0..n.max(0) as usize {
        let id = with(|s| {
            s.next_name += 1;
            s.next_name
        });
        // SAFETY: the caller passes room for `n` names.
        unsafe { *programs.add(i) = id };
    }
}

extern "system" fn bind_program_arb(target: GLenum, program: GLuint) {
    record(format!("BindProgramARB({}, {program})", name(target)));
    if program_target(target) {
        with(|s| s.program = program);
    }
}

extern "system" fn delete_programs_arb(n: GLsizei, programs: *const GLuint) {
    // SAFETY: the caller passes `n` names.
    let names = unsafe { values(programs, n) };
    record(format!("DeleteProgramsARB({names:?})"));
}

extern "system" fn program_string_arb(
    target: GLenum,
    format: GLenum,
    len: GLsizei,
    string: *const c_void,
) {
    record(format!(
        "ProgramStringARB({}, {}, {len})",
        name(target),
        name(format)
    ));
    // SAFETY: the caller passes `len` bytes at `string`.
    let bytes = unsafe { values(string.cast::<u8>(), len) };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if !program_target(target) {
        return;
    }
    if format != gl::PROGRAM_FORMAT_ASCII_ARB {
        raise(gl::INVALID_ENUM);
        return;
    }
    // ARB_vertex_program 2.14.1: a program that fails to load raises INVALID_OPERATION and
    // sets the error position; one that loads sets it to -1.
    let reject = with(|s| {
        s.program_texts.push(text);
        s.context.reject_program
    });
    let (position, message) = match reject {
        Some((position, message)) => {
            raise(gl::INVALID_OPERATION);
            (position, message)
        }
        None => (-1, ""),
    };
    with(|s| {
        s.error_position = position;
        s.error_string = CString::new(message).unwrap_or_default();
    });
}

extern "system" fn get_programiv_arb(target: GLenum, pname: GLenum, params: *mut GLint) {
    record(format!(
        "GetProgramivARB({}, {})",
        name(target),
        name(pname)
    ));
    if !program_target(target) {
        return;
    }
    let v = match pname {
        gl::PROGRAM_FORMAT_ARB => gl::PROGRAM_FORMAT_ASCII_ARB as GLint,
        gl::PROGRAM_BINDING_ARB => with(|s| s.program) as GLint,
        gl::MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV => PARAMETER_BUFFER_BINDINGS,
        gl::MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV => 16384,
        gl::PROGRAM_INSTRUCTIONS_ARB
        | gl::MAX_PROGRAM_INSTRUCTIONS_ARB
        | gl::MAX_PROGRAM_TEMPORARIES_ARB
        | gl::MAX_PROGRAM_LOCAL_PARAMETERS_ARB
        | gl::MAX_PROGRAM_ENV_PARAMETERS_ARB => 1024,
        _ => {
            raise(gl::INVALID_ENUM);
            return;
        }
    };
    // SAFETY: the caller passes room for one value.
    unsafe { *params = v };
}

extern "system" fn enable(cap: GLenum) {
    record(format!("Enable({})", name(cap)));
    with(|s| s.enabled |= cap == gl::COMPUTE_PROGRAM_NV);
}

extern "system" fn disable(cap: GLenum) {
    record(format!("Disable({})", name(cap)));
    with(|s| s.enabled &= cap != gl::COMPUTE_PROGRAM_NV);
}

extern "system" fn use_program(program: GLuint) {
    record(format!("UseProgram({program})"));
    with(|s| s.used_program = program);
}

extern "system" fn gen_buffers(n: GLsizei, buffers: *mut GLuint) {
    record(format!("GenBuffers({n})"));
    for i in 0..n.max(0) as usize {
        let id = with(|s| {
            s.next_name += 1;
            s.buffers.insert(s.next_name, Vec::new());
            s.next_name
        });
        // SAFETY: the caller passes room for `n` names.
        unsafe { *buffers.add(i) = id };
    }
}

extern "system" fn delete_buffers(n: GLsizei, buffers: *const GLuint) {
    // SAFETY: the caller passes `n` names.
    let names = unsafe { values(buffers, n) };
    record(format!("DeleteBuffers({names:?})"));
    with(|s| names.iter().for_each(|n| drop(s.buffers.remove(n))));
}

extern "system" fn bind_buffer(target: GLenum, buffer: GLuint) {
    record(format!("BindBuffer({}, {buffer})", name(target)));
    with(|s| s.bound.insert(target, buffer));
}

extern "system" fn buffer_data(target: GLenum, size: isize, data: *const c_void, usage: GLenum) {
    record(format!(
        "BufferData({}, {size}, {})",
        name(target),
        name(usage)
    ));
    let bytes = if data.is_null() {
        vec![0; size.max(0) as usize]
    } else {
        // SAFETY: the caller passes `size` bytes at `data` (the runner's sizes fit a GLsizei).
        unsafe { values(data.cast::<u8>(), size as GLsizei) }
    };
    with(|s| match s.bound.get(&target).copied() {
        Some(id) if id != 0 => {
            s.buffers.insert(id, bytes);
        }
        _ => s.error = gl::INVALID_OPERATION,
    });
}

extern "system" fn bind_buffer_base(target: GLenum, index: GLuint, buffer: GLuint) {
    record(format!(
        "BindBufferBase({}, {index}, {buffer})",
        name(target)
    ));
    // NV_parameter_buffer_object: INVALID_VALUE for an index at or above
    // MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV.
    if target == gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV
        && index as GLint >= PARAMETER_BUFFER_BINDINGS
    {
        raise(gl::INVALID_VALUE);
        return;
    }
    // BindBufferBase also binds the generic target.
    with(|s| {
        s.indexed.insert((target, index), buffer);
        s.bound.insert(target, buffer);
    });
}

extern "system" fn get_buffer_sub_data(
    target: GLenum,
    offset: isize,
    size: isize,
    data: *mut c_void,
) {
    record(format!(
        "GetBufferSubData({}, {offset}, {size})",
        name(target)
    ));
    let bytes = with(|s| {
        let id = s.bound.get(&target).copied().unwrap_or(0);
        s.buffers.get(&id).cloned()
    });
    let range = offset.max(0) as usize..(offset + size).max(0) as usize;
    match bytes.as_ref().and_then(|b| b.get(range)) {
        // SAFETY: the caller passes room for `size` bytes.
        Some(b) => unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), data.cast(), b.len()) },
        None => raise(gl::INVALID_VALUE),
    }
}

/// Stores four words as a local (`local`) or env parameter of COMPUTE_PROGRAM_NV.
fn set_parameter(call: &str, target: GLenum, index: GLuint, local: bool, words: [u32; 4]) {
    record(format!("{call}({}, {index}, {words:?})", name(target)));
    if program_target(target) {
        with(|s| {
            if local {
                s.local.insert((s.program, index), words);
            } else {
                s.env.insert(index, words);
            }
        });
    }
}

/// Reads four words of a local or env parameter into `out`.
fn get_parameter(call: &str, target: GLenum, index: GLuint, local: bool, out: *mut u32) {
    record(format!("{call}({}, {index})", name(target)));
    if program_target(target) {
        let words = with(|s| {
            if local {
                s.local.get(&(s.program, index)).copied()
            } else {
                s.env.get(&index).copied()
            }
        })
        .unwrap_or_default();
        // SAFETY: the caller passes room for four values.
        unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), out, 4) };
    }
}

fn float_words(p: *const GLfloat) -> [u32; 4] {
    // SAFETY: the runner passes four values.
    unsafe { four(p) }.map(f32::to_bits)
}

fn int_words(p: *const GLint) -> [u32; 4] {
    // SAFETY: as float_words.
    unsafe { four(p) }.map(|v| v as u32)
}

extern "system" fn program_local_parameter4fv_arb(t: GLenum, i: GLuint, p: *const GLfloat) {
    set_parameter("ProgramLocalParameter4fvARB", t, i, true, float_words(p));
}
extern "system" fn program_env_parameter4fv_arb(t: GLenum, i: GLuint, p: *const GLfloat) {
    set_parameter("ProgramEnvParameter4fvARB", t, i, false, float_words(p));
}
extern "system" fn program_local_parameter_i4iv_nv(t: GLenum, i: GLuint, p: *const GLint) {
    set_parameter("ProgramLocalParameterI4ivNV", t, i, true, int_words(p));
}
extern "system" fn program_env_parameter_i4iv_nv(t: GLenum, i: GLuint, p: *const GLint) {
    set_parameter("ProgramEnvParameterI4ivNV", t, i, false, int_words(p));
}
extern "system" fn program_local_parameter_i4uiv_nv(t: GLenum, i: GLuint, p: *const GLuint) {
    // SAFETY: the runner passes four values.
    set_parameter("ProgramLocalParameterI4uivNV", t, i, true, unsafe {
        four(p)
    });
}
extern "system" fn program_env_parameter_i4uiv_nv(t: GLenum, i: GLuint, p: *const GLuint) {
    // SAFETY: the runner passes four values.
    set_parameter("ProgramEnvParameterI4uivNV", t, i, false, unsafe {
        four(p)
    });
}
extern "system" fn program_local_parameter_i4i_nv(
    t: GLenum,
    i: GLuint,
    x: GLint,
    y: GLint,
    z: GLint,
    w: GLint,
) {
    let words = [x, y, z, w].map(|v| v as u32);
    set_parameter("ProgramLocalParameterI4iNV", t, i, true, words);
}
extern "system" fn program_env_parameter_i4i_nv(
    t: GLenum,
    i: GLuint,
    x: GLint,
    y: GLint,
    z: GLint,
    w: GLint,
) {
    let words = [x, y, z, w].map(|v| v as u32);
    set_parameter("ProgramEnvParameterI4iNV", t, i, false, words);
}
extern "system" fn get_program_local_parameterfv_arb(t: GLenum, i: GLuint, p: *mut GLfloat) {
    get_parameter("GetProgramLocalParameterfvARB", t, i, true, p.cast());
}
extern "system" fn get_program_env_parameterfv_arb(t: GLenum, i: GLuint, p: *mut GLfloat) {
    get_parameter("GetProgramEnvParameterfvARB", t, i, false, p.cast());
}
extern "system" fn get_program_local_parameter_iiv_nv(t: GLenum, i: GLuint, p: *mut GLint) {
    get_parameter("GetProgramLocalParameterIivNV", t, i, true, p.cast());
}
extern "system" fn get_program_env_parameter_iiv_nv(t: GLenum, i: GLuint, p: *mut GLint) {
    get_parameter("GetProgramEnvParameterIivNV", t, i, false, p.cast());
}
extern "system" fn get_program_local_parameter_iuiv_nv(t: GLenum, i: GLuint, p: *mut GLuint) {
    get_parameter("GetProgramLocalParameterIuivNV", t, i, true, p);
}
extern "system" fn get_program_env_parameter_iuiv_nv(t: GLenum, i: GLuint, p: *mut GLuint) {
    get_parameter("GetProgramEnvParameterIuivNV", t, i, false, p);
}

extern "system" fn program_buffer_parameters_iuiv_nv(
    target: GLenum,
    binding: GLuint,
    word: GLuint,
    count: GLsizei,
    params: *const GLuint,
) {
    // SAFETY: the caller passes `count` values.
    let words = unsafe { values(params, count) };
    record(format!(
        "ProgramBufferParametersIuivNV({}, {binding}, {word}, {count}, {words:?})",
        name(target)
    ));
    if target != gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV {
        return raise(gl::INVALID_ENUM);
    }
    // NV_parameter_buffer_object: INVALID_OPERATION without a buffer at the binding,
    // INVALID_VALUE when wordIndex + count passes its words; otherwise BufferSubData's effect.
    let error = with(|s| {
        let id = s.indexed.get(&(target, binding)).copied().unwrap_or(0);
        let Some(bytes) = s.buffers.get_mut(&id).filter(|_| id != 0) else {
            return gl::INVALID_OPERATION;
        };
        let start = word as usize * 4;
        match bytes.get_mut(start..start + words.len() * 4) {
            Some(range) => {
                range.copy_from_slice(&conform_plan::bytes::from_u32s(&words));
                gl::NO_ERROR
            }
            None => gl::INVALID_VALUE,
        }
    });
    if error != gl::NO_ERROR {
        raise(error);
    }
}

extern "system" fn dispatch_compute(x: GLuint, y: GLuint, z: GLuint) {
    record(format!("DispatchCompute({x}, {y}, {z})"));
    // No active program (neither COMPUTE_PROGRAM_NV enabled nor a GLSL program in use).
    if with(|s| !s.enabled && s.used_program == 0) {
        raise(gl::INVALID_OPERATION);
    }
}

extern "system" fn dispatch_compute_indirect(offset: isize) {
    record(format!("DispatchComputeIndirect({offset})"));
}

extern "system" fn memory_barrier(bits: GLenum) {
    record(format!("MemoryBarrier({bits:#x})"));
}

extern "system" fn finish() {
    record("Finish()".to_string());
}

extern "system" fn is_enabled(cap: GLenum) -> GLboolean {
    record(format!("IsEnabled({})", name(cap)));
    GLboolean::from(cap == gl::COMPUTE_PROGRAM_NV && with(|s| s.enabled))
}

/// The fake's entry point for a GL function name, or null for one the runner is not expected
/// to call on this path (calling it panics: "gl function was not loaded").
fn entry_point(symbol: &str) -> *const c_void {
    let f: *const c_void = match symbol {
        "glGetError" => get_error as *const c_void,
        "glGetIntegerv" => get_integerv as *const c_void,
        "glGetInteger64v" => get_integer64v as *const c_void,
        "glGetInteger64i_v" => get_integer64i_v as *const c_void,
        "glGetIntegeri_v" => get_integeri_v as *const c_void,
        "glGetString" => get_string as *const c_void,
        "glGetStringi" => get_stringi as *const c_void,
        "glGenProgramsARB" => gen_programs_arb as *const c_void,
        "glBindProgramARB" => bind_program_arb as *const c_void,
        "glDeleteProgramsARB" => delete_programs_arb as *const c_void,
        "glProgramStringARB" => program_string_arb as *const c_void,
        "glGetProgramivARB" => get_programiv_arb as *const c_void,
        "glEnable" => enable as *const c_void,
        "glDisable" => disable as *const c_void,
        "glIsEnabled" => is_enabled as *const c_void,
        "glUseProgram" => use_program as *const c_void,
        "glGenBuffers" => gen_buffers as *const c_void,
        "glDeleteBuffers" => delete_buffers as *const c_void,
        "glBindBuffer" => bind_buffer as *const c_void,
        "glBufferData" => buffer_data as *const c_void,
        "glBindBufferBase" => bind_buffer_base as *const c_void,
        "glGetBufferSubData" => get_buffer_sub_data as *const c_void,
        "glProgramLocalParameter4fvARB" => program_local_parameter4fv_arb as *const c_void,
        "glProgramEnvParameter4fvARB" => program_env_parameter4fv_arb as *const c_void,
        "glProgramLocalParameterI4ivNV" => program_local_parameter_i4iv_nv as *const c_void,
        "glProgramEnvParameterI4ivNV" => program_env_parameter_i4iv_nv as *const c_void,
        "glProgramLocalParameterI4uivNV" => program_local_parameter_i4uiv_nv as *const c_void,
        "glProgramEnvParameterI4uivNV" => program_env_parameter_i4uiv_nv as *const c_void,
        "glProgramLocalParameterI4iNV" => program_local_parameter_i4i_nv as *const c_void,
        "glProgramEnvParameterI4iNV" => program_env_parameter_i4i_nv as *const c_void,
        "glGetProgramLocalParameterfvARB" => get_program_local_parameterfv_arb as *const c_void,
        "glGetProgramEnvParameterfvARB" => get_program_env_parameterfv_arb as *const c_void,
        "glGetProgramLocalParameterIivNV" => get_program_local_parameter_iiv_nv as *const c_void,
        "glGetProgramEnvParameterIivNV" => get_program_env_parameter_iiv_nv as *const c_void,
        "glGetProgramLocalParameterIuivNV" => get_program_local_parameter_iuiv_nv as *const c_void,
        "glGetProgramEnvParameterIuivNV" => get_program_env_parameter_iuiv_nv as *const c_void,
        "glProgramBufferParametersIuivNV" => program_buffer_parameters_iuiv_nv as *const c_void,
        "glDispatchCompute" => dispatch_compute as *const c_void,
        "glDispatchComputeIndirect" => dispatch_compute_indirect as *const c_void,
        "glMemoryBarrier" => memory_barrier as *const c_void,
        "glFinish" => finish as *const c_void,
        _ => std::ptr::null(),
    };
    f
}

/// Resets the fake to `context` and loads the bindings from it.
pub(crate) fn install(context: FakeContext) -> gl::Gl {
    with(|s| {
        *s = State {
            context,
            error_position: -1,
            ..State::default()
        }
    });
    gl::Gl::load_with(entry_point)
}

/// The calls recorded since the last take (or install), in order.
pub(crate) fn take_calls() -> Vec<String> {
    with(|s| std::mem::take(&mut s.calls))
}

/// The texts ProgramStringARB received since the install.
pub(crate) fn program_texts() -> Vec<String> {
    with(|s| s.program_texts.clone())
}

/// Installs `context`, probes it as the worker does, and drops the probe's calls.
pub(crate) fn probed(context: FakeContext) -> (gl::Gl, Caps) {
    let gl = install(context);
    let info = caps::probe(&gl, Driver::Nvidia, ContextApi::Gl);
    take_calls();
    (gl, Caps { info })
}

mod tests;
