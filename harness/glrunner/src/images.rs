//! Images of a plan on the driver: a texture (1D, 2D, 3D, 2D array) with immutable storage of
//! the image's format,
//! filled with the plan's texels, bound to its image unit for reading and writing, and read
//! back with glGetTexImage, or in OpenGL ES, which has none, through a read framebuffer and
//! glReadPixels ([`read_es`]). A buffer image is a buffer texture on a buffer object the
//! caller makes and reads back as any buffer ([`create_buffer_texture`]).

use conform_gl as gl;
use conform_gl::types::{GLenum, GLuint};
use conform_plan::{ImageDesc, ImageDim, ImageFormat};

/// (internal format, pixel format, pixel type) of `format` for glTexStorage / glTexSubImage /
/// glGetTexImage: the pixel format and type of ARB_shader_image_load_store Table X.3, with
/// which the texels move unconverted (normalized bytes and half floats as stored).
pub(crate) fn formats(format: ImageFormat) -> (GLenum, GLenum, GLenum) {
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
        F::Rgba16 => (gl::RGBA16, gl::RGBA, gl::UNSIGNED_SHORT),
        F::Rgba8Snorm => (gl::RGBA8_SNORM, gl::RGBA, gl::BYTE),
        F::R11fG11fB10f => (
            gl::R11F_G11F_B10F,
            gl::RGB,
            gl::UNSIGNED_INT_10F_11F_11F_REV,
        ),
        F::Rgb10A2 => (gl::RGB10_A2, gl::RGBA, gl::UNSIGNED_INT_2_10_10_10_REV),
    }
}

pub(crate) fn target(dim: ImageDim) -> GLenum {
    match dim {
        ImageDim::D1 => gl::TEXTURE_1D,
        ImageDim::D2 => gl::TEXTURE_2D,
        ImageDim::D3 => gl::TEXTURE_3D,
        ImageDim::D2Array => gl::TEXTURE_2D_ARRAY,
        ImageDim::Buffer => gl::TEXTURE_BUFFER,
    }
}

/// Creates a buffer texture of `desc`'s format on the whole data store of buffer object
/// `buffer` (glTexBuffer, GL 4.6 section 8.9), or on the bytes of its range
/// (glTexBufferRange), and binds it to image `unit` (READ_WRITE).
/// Returns the texture name; errors are left for the caller to read.
pub(crate) fn create_buffer_texture(
    gl: &gl::Gl,
    desc: &ImageDesc,
    unit: u32,
    buffer: GLuint,
) -> GLuint {
    let (internal, _, _) = formats(desc.format);
    let mut tex = 0;
    // SAFETY: `buffer` is a live buffer object; the texture is made and bound here and the
    // TEXTURE_BUFFER binding reset to 0.
    unsafe {
        gl.GenTextures(1, &mut tex);
        gl.BindTexture(gl::TEXTURE_BUFFER, tex);
        match desc.range {
            None => gl.TexBuffer(gl::TEXTURE_BUFFER, internal, buffer),
            Some([offset, size]) => gl.TexBufferRange(
                gl::TEXTURE_BUFFER,
                internal,
                buffer,
                offset as isize,
                size as isize,
            ),
        }
        gl.BindTexture(gl::TEXTURE_BUFFER, 0);
        gl.BindImageTexture(unit, tex, 0, gl::FALSE, 0, gl::READ_WRITE, internal);
    }
    tex
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
            ImageDim::Buffer => {}
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

/// The pixel format and type an OpenGL ES context reads a color buffer of `format` with
/// (OpenGL ES 3.2 section 16.1.2: RGBA_INTEGER with UNSIGNED_INT or INT for integer buffers,
/// RGBA with UNSIGNED_BYTE for normalized ones and with FLOAT for float ones), and the bytes
/// of one read pixel.
fn es_read_format(format: ImageFormat) -> (GLenum, GLenum, usize) {
    use conform_plan::Scalar as S;
    match format.texel().scalar {
        S::U32 | S::U8 if format != ImageFormat::Rgba8 => (gl::RGBA_INTEGER, gl::UNSIGNED_INT, 16),
        S::I32 | S::I8 => (gl::RGBA_INTEGER, gl::INT, 16),
        S::F32 | S::F16 => (gl::RGBA, gl::FLOAT, 16),
        _ => (gl::RGBA, gl::UNSIGNED_BYTE, 4),
    }
}

/// Why an OpenGL ES context cannot read `format` back (attach it to a framebuffer), if it
/// cannot: every integer format and rgba8 are color-renderable from ES 3.0 on; the float ones
/// from ES 3.2 or with GL_EXT_color_buffer_float. rgba16, rgba8_snorm, r11f_g11f_b10f and
/// rgb10_a2 are not read back there (ES 3.1 has no image unit format for them).
pub(crate) fn es_unreadable(
    format: ImageFormat,
    es_3_2_or_float_buffers: bool,
) -> Option<&'static str> {
    use conform_plan::Scalar as S;
    if !in_es(format) {
        return Some("an image of a format OpenGL ES has no image unit format for");
    }
    let float = matches!(format.texel().scalar, S::F32 | S::F16);
    (float && !es_3_2_or_float_buffers)
        .then_some("GL_EXT_color_buffer_float (to read a float image back in ES)")
}

/// Whether OpenGL ES has `format` as an image unit format (ES 3.1 has none for rgba16,
/// rgba8_snorm, r11f_g11f_b10f and rgb10_a2).
pub(crate) fn in_es(format: ImageFormat) -> bool {
    use ImageFormat as F;
    !matches!(
        format,
        F::Rgba16 | F::Rgba8Snorm | F::R11fG11fB10f | F::Rgb10A2
    )
}

/// Reads level 0 of texture `tex` into `texels` in an OpenGL ES context, which has no
/// glGetTexImage: each layer is attached to a read framebuffer and read with glReadPixels in
/// [`es_read_format`], and each pixel's first components are narrowed back to the stored
/// representation (exactly: the values came from texels of that representation). Returns an
/// error when a framebuffer is incomplete.
pub(crate) fn read_es(
    gl: &gl::Gl,
    tex: GLuint,
    desc: &ImageDesc,
    texels: &mut [u8],
) -> Result<(), String> {
    let (format, ty, pixel) = es_read_format(desc.format);
    let texel = desc.format.texel();
    let lanes = texel.lanes as usize;
    let lane_bytes = texel.scalar.size();
    let [w, h, layers] = desc.size.map(|s| s as usize);
    let layer_bytes = w * h * desc.format.texel_bytes() as usize;
    let mut read = vec![0u8; w * h * pixel];
    let mut fbo = 0;
    let mut result = Ok(());
    // SAFETY: `read` holds w*h pixels of `pixel` bytes (pack alignment 1, restored); the
    // framebuffer is made, used and deleted here, and the read binding reset to 0.
    unsafe {
        gl.GenFramebuffers(1, &mut fbo);
        gl.BindFramebuffer(gl::READ_FRAMEBUFFER, fbo);
        let mut align = 4;
        gl.GetIntegerv(gl::PACK_ALIGNMENT, &mut align);
        gl.PixelStorei(gl::PACK_ALIGNMENT, 1);
        for layer in 0..layers {
            if desc.dim.layered() {
                gl.FramebufferTextureLayer(
                    gl::READ_FRAMEBUFFER,
                    gl::COLOR_ATTACHMENT0,
                    tex,
                    0,
                    layer as i32,
                );
            } else {
                gl.FramebufferTexture2D(
                    gl::READ_FRAMEBUFFER,
                    gl::COLOR_ATTACHMENT0,
                    target(desc.dim),
                    tex,
                    0,
                );
            }
            let status = gl.CheckFramebufferStatus(gl::READ_FRAMEBUFFER);
            if status != gl::FRAMEBUFFER_COMPLETE {
                result = Err(format!(
                    "a framebuffer with the {} image is incomplete ({status:#x})",
                    desc.format
                ));
                break;
            }
            gl.ReadPixels(
                0,
                0,
                w as i32,
                h as i32,
                format,
                ty,
                read.as_mut_ptr().cast(),
            );
            let out = &mut texels[layer * layer_bytes..(layer + 1) * layer_bytes];
            for (p, texel_out) in out.chunks_exact_mut(lanes * lane_bytes).enumerate() {
                for (c, lane) in texel_out.chunks_exact_mut(lane_bytes).enumerate() {
                    let at = p * pixel + c * (pixel / 4);
                    narrow(&read[at..at + pixel / 4], lane);
                }
            }
        }
        gl.PixelStorei(gl::PACK_ALIGNMENT, align);
        gl.BindFramebuffer(gl::READ_FRAMEBUFFER, 0);
        gl.DeleteFramebuffers(1, &fbo);
    }
    result
}

/// One read component (a 4-byte integer or float, or a byte) into one stored lane of
/// `lane.len()` bytes: the low bytes of an integer, a float as f32 or as f16.
fn narrow(component: &[u8], lane: &mut [u8]) {
    match (component.len(), lane.len()) {
        (4, 2) => {
            let f = f32::from_le_bytes([component[0], component[1], component[2], component[3]]);
            lane.copy_from_slice(&half::f16::from_f32(f).to_bits().to_le_bytes());
        }
        (_, n) => lane.copy_from_slice(&component[..n]),
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
