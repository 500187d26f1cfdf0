//! Images of a plan on the driver: a TEXTURE_2D with immutable storage of the image's format,
//! filled with the plan's texels, bound to its image unit for reading and writing, and read
//! back with glGetTexImage (desktop GL: OpenGL ES has no way to read a texture other than
//! through a framebuffer, which the runner does not do yet; such plans are refused).

use conform_gl as gl;
use conform_gl::types::{GLenum, GLuint};
use conform_plan::{ImageDesc, ImageDim, ImageFormat};

/// (internal format, pixel format, pixel type) of `format` for glTexStorage / glTexSubImage /
/// glGetTexImage (GL 4.6 Tables 8.2, 8.3 and 8.12): the texels move unconverted.
fn formats(format: ImageFormat) -> (GLenum, GLenum, GLenum) {
    match format {
        ImageFormat::R32ui => (gl::R32UI, gl::RED_INTEGER, gl::UNSIGNED_INT),
        ImageFormat::R32i => (gl::R32I, gl::RED_INTEGER, gl::INT),
        ImageFormat::R32f => (gl::R32F, gl::RED, gl::FLOAT),
    }
}

fn target(dim: ImageDim) -> GLenum {
    match dim {
        ImageDim::D2 => gl::TEXTURE_2D,
    }
}

/// Creates the texture of `desc` with `texels` (its whole level 0) and binds it to image
/// `unit` (READ_WRITE, layered FALSE, level 0). Returns the texture name; errors are left for
/// the caller to read.
pub(crate) fn create(gl: &gl::Gl, desc: &ImageDesc, unit: u32, texels: &[u8]) -> GLuint {
    let (internal, format, ty) = formats(desc.format);
    let t = target(desc.dim);
    let [w, h, _] = desc.size.map(|s| s as i32);
    let mut tex = 0;
    // SAFETY: `texels` holds w*h texels of the format (the loader checks the length); unpack
    // alignment 1 matches the plan's tight packing, and the old values are restored.
    unsafe {
        gl.GenTextures(1, &mut tex);
        gl.BindTexture(t, tex);
        gl.TexStorage2D(t, 1, internal, w, h);
        let mut align = 4;
        gl.GetIntegerv(gl::UNPACK_ALIGNMENT, &mut align);
        gl.PixelStorei(gl::UNPACK_ALIGNMENT, 1);
        gl.TexSubImage2D(t, 0, 0, 0, w, h, format, ty, texels.as_ptr().cast());
        gl.PixelStorei(gl::UNPACK_ALIGNMENT, align);
        gl.BindTexture(t, 0);
        gl.BindImageTexture(unit, tex, 0, gl::FALSE, 0, gl::READ_WRITE, internal);
    }
    tex
}

/// Reads level 0 of texture `tex` into `texels` (its size).
pub(crate) fn read(gl: &gl::Gl, tex: GLuint, desc: &ImageDesc, texels: &mut [u8]) {
    let (_, format, ty) = formats(desc.format);
    let t = target(desc.dim);
    // SAFETY: `texels` has room for the whole level (the plan's bytes are its size); pack
    // alignment 1 matches the tight packing and is restored.
    unsafe {
        gl.BindTexture(t, tex);
        let mut align = 4;
        gl.GetIntegerv(gl::PACK_ALIGNMENT, &mut align);
        gl.PixelStorei(gl::PACK_ALIGNMENT, 1);
        gl.GetTexImage(t, 0, format, ty, texels.as_mut_ptr().cast());
        gl.PixelStorei(gl::PACK_ALIGNMENT, align);
        gl.BindTexture(t, 0);
    }
}

/// Unbinds image `unit` and deletes texture `tex`.
pub(crate) fn release(gl: &gl::Gl, tex: GLuint, unit: u32) {
    // SAFETY: `tex` was made by [`create`]; binding texture 0 resets the unit.
    unsafe {
        gl.BindImageTexture(unit, 0, 0, gl::FALSE, 0, gl::READ_ONLY, gl::R32UI);
        gl.DeleteTextures(1, &tex);
    }
}
