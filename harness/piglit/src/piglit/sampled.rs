//! shader_runner's sampled textures → conform `textures:` (cases/README.md, "Textures").
//!
//! - `texture miptree N` is `piglit_miptree_texture()` (tests/util/piglit-util-gl.c) on unit
//!   N: an 8x8 TEXTURE_2D of unsized format GL_RGBA with four levels (8x8, 4x4, 2x2, 1x1),
//!   level L solid `color_wheel[L]` (red, green, blue, white; alpha 1), uploaded as floats
//!   with glTexImage2D; wrap S and T CLAMP_TO_EDGE, MAG_FILTER NEAREST, MIN_FILTER
//!   NEAREST_MIPMAP_NEAREST. shader_runner ignores any size written after N.
//! - `texture rgbw N (W, H)` through a sampler is `piglit_rgbw_texture` (one level, wrap S
//!   and T CLAMP_TO_EDGE, both filters NEAREST; [`super::textures`] has its texels).
//! - `texparameter TARGET PARAM VALUE` is `handle_texparameter` (tests/shaders/shader_runner.c):
//!   glTexParameter on the texture bound to TARGET on the active unit, which is the unit of
//!   the last `texture` command (each calls glActiveTexture(GL_TEXTURE0 + N)).
//!
//! An unsized GL_RGBA texture becomes `rgba8`: the GL picks its storage, but piglit's texels
//! are all 0 and 1, which every RGBA internal format holds exactly (normalized fixed point
//! converts 0 and 1 to 0 and 2^b - 1, which read back as 0.0 and 1.0; GL 4.6 section 2.3.5),
//! so whatever the driver picked a sampler reads the same values.

use super::command::texture::TexParameter;
use conform_plan::{Filter, SamplerState, Wrap};

/// piglit_miptree_texture's four levels as rgba8 bytes: level L solid color_wheel[L].
pub(super) fn miptree_levels() -> Vec<Vec<String>> {
    let wheel = [[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 1, 1]];
    (0..4)
        .map(|level| {
            let texels = (8usize >> level).pow(2);
            let texel = wheel[level].map(|c| if c == 1 { "255" } else { "0" });
            texel.repeat(texels).into_iter().map(String::from).collect()
        })
        .collect()
}

/// The sampler state piglit_miptree_texture sets.
pub(super) fn miptree_sampler() -> SamplerState {
    SamplerState {
        min_filter: Filter::NearestMipmapNearest,
        mag_filter: Filter::Nearest,
        wrap: [Wrap::ClampToEdge, Wrap::ClampToEdge, Wrap::Repeat],
        border_color: [0; 4],
    }
}

/// The sampler state piglit_rgbw_texture (without mipmaps) and piglit_integer_texture set.
pub(super) fn rgbw_sampler() -> SamplerState {
    SamplerState {
        min_filter: Filter::Nearest,
        mag_filter: Filter::Nearest,
        ..miptree_sampler()
    }
}

/// Applies `param` to `state`; Err names a parameter conform's textures do not carry.
pub(super) fn apply(state: &mut SamplerState, param: &TexParameter) -> Result<(), &'static str> {
    match param {
        TexParameter::Min(f) => state.min_filter = *f,
        TexParameter::Mag(f) => state.mag_filter = *f,
        TexParameter::Wrap(axis, w) => state.wrap[*axis] = *w,
        TexParameter::BorderColor(c) => state.border_color = c.map(f32::to_bits),
        TexParameter::Other(name) => return Err(name),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::command::{texture::texture_miptree, Command};
    use super::*;

    #[test]
    fn miptree_is_piglits_color_wheel() {
        assert_eq!(
            texture_miptree("texture miptree 3 (8, 8)"),
            Some(Ok(Command::TextureMiptree { unit: 3 }))
        );
        assert_eq!(texture_miptree("texture miptree x"), None);
        let levels = miptree_levels();
        assert_eq!(
            levels.iter().map(Vec::len).collect::<Vec<_>>(),
            [256, 64, 16, 4]
        );
        assert_eq!(
            levels[0][..8],
            ["255", "0", "0", "255", "255", "0", "0", "255"]
        );
        assert_eq!(levels[1][..4], ["0", "255", "0", "255"]);
        assert_eq!(levels[2][..4], ["0", "0", "255", "255"]);
        assert_eq!(levels[3], ["255"; 4]);
        let mut s = rgbw_sampler();
        assert_eq!(s.min_filter, Filter::Nearest);
        apply(&mut s, &TexParameter::BorderColor([0.5, 0.0, 0.0, 1.0])).unwrap();
        assert_eq!(s.border_color[0], 0.5f32.to_bits());
        assert_eq!(
            apply(&mut s, &TexParameter::Other("lod_bias")),
            Err("lod_bias")
        );
    }
}
