//! Moving buffer contents: glBufferSubData through the copy-write target and reads by
//! mapping (the only way OpenGL ES reads a buffer).

use conform_gl as gl;
use conform_gl::types::GLuint;

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
