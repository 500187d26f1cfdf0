//! Sampled textures of a plan on the driver: a texture with immutable storage of its levels
//! (glTexStorage*), each level uploaded from the plan's bytes, its sampler parameters set
//! with glTexParameter*, bound to its texture unit for the shader's samplers.

use crate::caps::Caps;
use crate::images::{formats, target};
use conform_gl as gl;
use conform_gl::types::{GLenum, GLint, GLuint};
use conform_plan::{Filter, ImageDim, TextureDesc, Wrap};

/// What the driver lacks to make `desc` (None: nothing): glTexStorage* (GL 4.2, OpenGL ES 3.0
/// or GL_ARB_texture_storage), CLAMP_TO_BORDER in OpenGL ES (3.2 or an extension), 1D
/// textures in OpenGL ES (none).
pub(crate) fn lacks(caps: &Caps, desc: &TextureDesc) -> Option<&'static str> {
    let version = caps.info.gl_version;
    let es = caps.es();
    if es && desc.dim == ImageDim::D1 {
        return Some("1D textures in an OpenGL ES context (ES has none)");
    }
    let border = desc.sampler.wrap.contains(&Wrap::ClampToBorder);
    let border_clamp = !es
        || caps.es_3_2()
        || caps.ext("GL_EXT_texture_border_clamp")
        || caps.ext("GL_OES_texture_border_clamp");
    if border && !border_clamp {
        return Some("CLAMP_TO_BORDER (OpenGL ES 3.2 or GL_EXT_texture_border_clamp)");
    }
    let storage = version >= if es { (3, 0) } else { (4, 2) };
    if !storage && !caps.ext("GL_ARB_texture_storage") {
        return Some("GL_ARB_texture_storage");
    }
    None
}

fn filter(f: Filter) -> GLenum {
    match f {
        Filter::Nearest => gl::NEAREST,
        Filter::Linear => gl::LINEAR,
        Filter::NearestMipmapNearest => gl::NEAREST_MIPMAP_NEAREST,
        Filter::LinearMipmapNearest => gl::LINEAR_MIPMAP_NEAREST,
        Filter::NearestMipmapLinear => gl::NEAREST_MIPMAP_LINEAR,
        Filter::LinearMipmapLinear => gl::LINEAR_MIPMAP_LINEAR,
    }
}

fn wrap(w: Wrap) -> GLenum {
    match w {
        Wrap::Repeat => gl::REPEAT,
        Wrap::ClampToEdge => gl::CLAMP_TO_EDGE,
        Wrap::ClampToBorder => gl::CLAMP_TO_BORDER,
        Wrap::MirroredRepeat => gl::MIRRORED_REPEAT,
    }
}

/// Creates the texture of `desc` with `texels` (every level, level 0 first), sets its sampler
/// state and binds it to texture `unit`. Returns the texture name; errors are left for the
/// caller to read. The active texture unit is left at TEXTURE0, its initial value.
pub(crate) fn create(gl: &gl::Gl, desc: &TextureDesc, unit: u32, texels: &[u8]) -> GLuint {
    let (internal, format, ty) = formats(desc.format);
    let t = target(desc.dim);
    let levels = desc.levels as i32;
    let [w, h, d] = desc.size.map(|s| s as i32);
    let mut tex = 0;
    // SAFETY: `texels` holds every level's texels in the format (the loader checks the
    // length against `desc.bytes()`, and each level is read at its offset with its size);
    // unpack alignment 1 matches the plan's tight packing, and the old value is restored.
    unsafe {
        gl.GenTextures(1, &mut tex);
        gl.ActiveTexture(gl::TEXTURE0 + unit);
        gl.BindTexture(t, tex);
        let mut align = 4;
        gl.GetIntegerv(gl::UNPACK_ALIGNMENT, &mut align);
        gl.PixelStorei(gl::UNPACK_ALIGNMENT, 1);
        match desc.dim {
            // The loader makes no buffer texture of kind Texture.
            ImageDim::D1 | ImageDim::Buffer => gl.TexStorage1D(t, levels, internal, w),
            ImageDim::D2 => gl.TexStorage2D(t, levels, internal, w, h),
            ImageDim::D3 | ImageDim::D2Array => gl.TexStorage3D(t, levels, internal, w, h, d),
        }
        let mut offset = 0usize;
        for level in 0..desc.levels {
            let [lw, lh, ld] = desc.level_size(level).map(|s| s as i32);
            let data = texels[offset..].as_ptr().cast();
            let l = level as i32;
            match desc.dim {
                ImageDim::D1 | ImageDim::Buffer => gl.TexSubImage1D(t, l, 0, lw, format, ty, data),
                ImageDim::D2 => gl.TexSubImage2D(t, l, 0, 0, lw, lh, format, ty, data),
                ImageDim::D3 | ImageDim::D2Array => {
                    gl.TexSubImage3D(t, l, 0, 0, 0, lw, lh, ld, format, ty, data)
                }
            }
            offset += desc.level_bytes(level) as usize;
        }
        gl.PixelStorei(gl::UNPACK_ALIGNMENT, align);
        let s = &desc.sampler;
        gl.TexParameteri(t, gl::TEXTURE_MIN_FILTER, filter(s.min_filter) as GLint);
        gl.TexParameteri(t, gl::TEXTURE_MAG_FILTER, filter(s.mag_filter) as GLint);
        let names = [gl::TEXTURE_WRAP_S, gl::TEXTURE_WRAP_T, gl::TEXTURE_WRAP_R];
        for (name, w) in names.into_iter().zip(s.wrap) {
            gl.TexParameteri(t, name, wrap(w) as GLint);
        }
        if s.border_color != [0; 4] {
            let border = s.border_color.map(f32::from_bits);
            gl.TexParameterfv(t, gl::TEXTURE_BORDER_COLOR, border.as_ptr());
        }
        gl.ActiveTexture(gl::TEXTURE0);
    }
    tex
}

/// Unbinds `tex` from texture `unit` and deletes it.
pub(crate) fn release(gl: &gl::Gl, tex: GLuint, desc: &TextureDesc, unit: u32) {
    // SAFETY: `tex` was made by [`create`]; binding texture 0 resets the unit.
    unsafe {
        gl.ActiveTexture(gl::TEXTURE0 + unit);
        gl.BindTexture(target(desc.dim), 0);
        gl.ActiveTexture(gl::TEXTURE0);
        gl.DeleteTextures(1, &tex);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_filter_and_wrap_has_its_enum() {
        let filters: Vec<GLenum> = Filter::ALL.into_iter().map(filter).collect();
        assert_eq!(filters, [0x2600, 0x2601, 0x2700, 0x2701, 0x2702, 0x2703]);
        let wraps: Vec<GLenum> = Wrap::ALL.into_iter().map(wrap).collect();
        assert_eq!(wraps, [0x2901, 0x812F, 0x812D, 0x8370]);
    }
}
