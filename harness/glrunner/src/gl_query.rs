//! The small GL queries every part of the runner uses: strings, integers, errors, and the
//! driver's KHR_debug messages collected per plan.

use conform_gl as gl;
use conform_gl::types::{GLenum, GLint, GLuint};
use conform_plan::GlError;
use std::ffi::CStr;
use std::sync::Mutex;

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
/// within the plan that caused it), when the context has debug output (`supported`:
/// `Caps::debug_output`, GL 4.3 / ES 3.2 / GL_KHR_debug).
pub(crate) fn enable_debug_messages(gl: &gl::Gl, supported: bool) -> bool {
    if !supported {
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

pub(crate) fn take_debug_messages() -> Vec<String> {
    match DEBUG_LOG.lock() {
        Ok(mut log) => std::mem::take(&mut *log),
        Err(_) => Vec::new(),
    }
}

/// The driver messages that say more than the build `log`: Mesa also reports a compile or
/// link error through KHR_debug, word for word, and a failure would show it twice.
pub(crate) fn beyond_log(messages: Vec<String>, log: &str) -> Vec<String> {
    messages
        .into_iter()
        .filter(|m| {
            // `driver message (KIND, id ID): TEXT`, as `debug_callback` writes it.
            let text = m.split_once("): ").map_or(m.as_str(), |(_, t)| t).trim();
            text.is_empty() || !log.contains(text)
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_messages_that_repeat_the_build_log_are_dropped() {
        let log = "0:4(22): error: `undeclared' undeclared\n0:4(5): error: type mismatch";
        let said = vec![
            "driver message (error, id 0x1): 0:4(22): error: `undeclared' undeclared".to_string(),
            "driver message (performance, id 0x2): recompiling the shader".to_string(),
        ];
        assert_eq!(
            beyond_log(said.clone(), log),
            ["driver message (performance, id 0x2): recompiling the shader"]
        );
        assert_eq!(
            beyond_log(said.clone(), ""),
            said,
            "no log: every message stays"
        );
    }
}
