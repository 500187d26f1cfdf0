//! Images of a plan on the driver: a texture (1D, 2D, 3D, 2D array) with immutable storage of
//! the image's format,
//! filled with the plan's texels, bound to its image unit for reading and writing, and read
//! back with glGetTexImage (desktop GL: OpenGL ES has no way to read a texture other than
//! through a framebuffer, which the runner does not do yet; such plans are refused).

use conform_gl as gl;
use conform_gl::types::{GLenum, GLuint};
use conform_plan::{ImageDesc, ImageDim, ImageFormat};

/// (internal format, pixel format, pixel type) of `format` for glTexStorage / glTexSubImage /
/// glGetTexImage: the pixel format and type of ARB_shader_image_load_store Table X.3, with
/// which the texels move unconverted (normalized bytes and half floats as stored).
fn formats(format: ImageFormat) -> (GLenum, GLenum, GLenum) {
    use ImageFormat as F;
    match format {
        F::R32ui => (gl::R32UI, gl::RED_INTEGER, gl::UNSIGNED_INT),
        F::R32i => (gl::R32I, gl::RED_INTEGER, gl::INT),
        F::R32f => (gl::R32F, gl::RED, gl::FLOAT),
        F::Rg32ui => (gl::RG32UI, gl::RG_INTEGER, gl::UNSIGNED_INT),
        F::Rg32i => (gl::RG32I, gl::RG_INTEGER, gl::INT),
        F::Rg32f => (gl::RG32F, gl::RG, gl::FLOAT),
        F::Rgba32ui => (gl::RGBA32UI, gl::RGBA_INTEGER, gl::UNSIGNED_INT),
        F::Rgba32i => (gl::RGBA32I, gl::RGBA_INTEGER, gl::INT),
        F::Rgba32f => (gl::RGBA32F, gl::RGBA, gl::FLOAT),
        F::Rgba16f => (gl::RGBA16F, gl::RGBA, gl::HALF_FLOAT),
        F::R16f => (gl::R16F, gl::RED, gl::HALF_FLOAT),
        F::Rgba8ui => (gl::RGBA8UI, gl::RGBA_INTEGER, gl::UNSIGNED_BYTE),
        F::Rgba8i => (gl::RGBA8I, gl::RGBA_INTEGER, gl::BYTE),
        F::Rgba8 => (gl::RGBA8, gl::RGBA, gl::UNSIGNED_BYTE),
    }
}

fn target(dim: ImageDim) -> GLenum {
    match dim {
        ImageDim::D1 => gl::TEXTURE_1D,
        ImageDim::D2 => gl::TEXTURE_2D,
        ImageDim::D3 => gl::TEXTURE_3D,
        ImageDim::D2Array => gl::TEXTURE_2D_ARRAY,
    }
}

/// Creates the texture of `desc` with `texels` (its whole level 0) and binds it to image
/// `unit` (READ_WRITE, level 0, layered for 3D and array textures). Returns the texture name;
/// errors are left for the caller to read.
pub(crate) fn create(gl: &gl::Gl, desc: &ImageDesc, unit: u32, texels: &[u8]) -> GLuint {
    let (internal, format, ty) = formats(desc.format);
    let t = target(desc.dim);
    let [w, h, d] = desc.size.map(|s| s as i32);
    let data = texels.as_ptr().cast();
    let mut tex = 0;
    // SAFETY: `texels` holds the level's texels in the format (the loader checks the
    // length); unpack alignment 1 matches the plan's tight packing, and the old value is
    // restored.
    unsafe {
        gl.GenTextures(1, &mut tex);
        gl.BindTexture(t, tex);
        let mut align = 4;
        gl.GetIntegerv(gl::UNPACK_ALIGNMENT, &mut align);
        gl.PixelStorei(gl::UNPACK_ALIGNMENT, 1);
        match desc.dim {
            ImageDim::D1 => {
                gl.TexStorage1D(t, 1, internal, w);
                gl.TexSubImage1D(t, 0, 0, w, format, ty, data);
            }
            ImageDim::D2 => {
                gl.TexStorage2D(t, 1, internal, w, h);
                gl.TexSubImage2D(t, 0, 0, 0, w, h, format, ty, data);
            }
            ImageDim::D3 | ImageDim::D2Array => {
                gl.TexStorage3D(t, 1, internal, w, h, d);
                gl.TexSubImage3D(t, 0, 0, 0, 0, w, h, d, format, ty, data);
            }
        }
        gl.PixelStorei(gl::UNPACK_ALIGNMENT, align);
        gl.BindTexture(t, 0);
        let layered = if desc.dim.layered() {
            gl::TRUE
        } else {
            gl::FALSE
        };
        gl.BindImageTexture(unit, tex, 0, layered, 0, gl::READ_WRITE, internal);
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
