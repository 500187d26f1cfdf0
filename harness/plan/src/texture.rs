//! Sampled textures: a texture object with mip levels and sampler state, bound to a texture
//! unit for a shader's samplers (GL 4.6 chapter 8; GLSL 4.60 section 8.9).
//!
//! A texture travels as a [`crate::BufferInit`] of kind [`crate::BufferKind::Texture`]:
//! `binding` is the texture unit and `bytes` the texels of every level, level 0 first, each
//! laid out as an image's level 0 ([`crate::ImageDesc`]: the format's stored representation,
//! tightly packed, x fastest). It is a kind of its own, not an image: shaders read it through
//! samplers (`texelFetch`, `texture`), never through image units, and nothing writes it.

use crate::{ImageDim, ImageFormat};
use serde::{Deserialize, Serialize};

/// A minification or magnification filter (GL 4.6 Table 8.26, TEXTURE_MIN_FILTER and
/// TEXTURE_MAG_FILTER; magnification takes only the first two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    Nearest,
    Linear,
    NearestMipmapNearest,
    LinearMipmapNearest,
    NearestMipmapLinear,
    LinearMipmapLinear,
}

impl Filter {
    pub const ALL: [Filter; 6] = [
        Filter::Nearest,
        Filter::Linear,
        Filter::NearestMipmapNearest,
        Filter::LinearMipmapNearest,
        Filter::NearestMipmapLinear,
        Filter::LinearMipmapLinear,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Filter::Nearest => "nearest",
            Filter::Linear => "linear",
            Filter::NearestMipmapNearest => "nearest_mipmap_nearest",
            Filter::LinearMipmapNearest => "linear_mipmap_nearest",
            Filter::NearestMipmapLinear => "nearest_mipmap_linear",
            Filter::LinearMipmapLinear => "linear_mipmap_linear",
        }
    }

    pub fn parse(name: &str) -> Option<Filter> {
        Filter::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether it may be a magnification filter (NEAREST or LINEAR only).
    pub fn magnifies(self) -> bool {
        matches!(self, Filter::Nearest | Filter::Linear)
    }
}

/// A wrap mode (GL 4.6 Table 8.26, TEXTURE_WRAP_S/T/R).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wrap {
    Repeat,
    ClampToEdge,
    ClampToBorder,
    MirroredRepeat,
}

impl Wrap {
    pub const ALL: [Wrap; 4] = [
        Wrap::Repeat,
        Wrap::ClampToEdge,
        Wrap::ClampToBorder,
        Wrap::MirroredRepeat,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Wrap::Repeat => "repeat",
            Wrap::ClampToEdge => "clamp_to_edge",
            Wrap::ClampToBorder => "clamp_to_border",
            Wrap::MirroredRepeat => "mirrored_repeat",
        }
    }

    pub fn parse(name: &str) -> Option<Wrap> {
        Wrap::ALL.into_iter().find(|w| w.name() == name)
    }
}

/// The texture's sampler state (its own parameters; conform binds no sampler objects).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SamplerState {
    pub min_filter: Filter,
    pub mag_filter: Filter,
    /// S, T, R.
    pub wrap: [Wrap; 3],
    /// TEXTURE_BORDER_COLOR as set with glTexParameterfv: the bits of four floats (bits, so
    /// that the state compares and hashes exactly).
    pub border_color: [u32; 4],
}

impl Default for SamplerState {
    /// The initial state of a texture object (GL 4.6 Table 23.18): NEAREST_MIPMAP_LINEAR,
    /// LINEAR, REPEAT everywhere, a border of (0, 0, 0, 0).
    fn default() -> Self {
        SamplerState {
            min_filter: Filter::NearestMipmapLinear,
            mag_filter: Filter::Linear,
            wrap: [Wrap::Repeat; 3],
            border_color: [0; 4],
        }
    }
}

/// One texture: its target, format, level-0 size (unused dimensions 1), level count and
/// sampler state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TextureDesc {
    pub dim: ImageDim,
    pub format: ImageFormat,
    pub size: [u32; 3],
    pub levels: u32,
    pub sampler: SamplerState,
}

impl TextureDesc {
    /// The most levels a texture of level-0 size `size` can have: floor(log2(largest)) + 1
    /// over the dimensions that shrink (GL 4.6 section 8.14.3; an array's layers do not).
    pub fn max_levels(dim: ImageDim, size: [u32; 3]) -> u32 {
        let shrinking = match dim {
            ImageDim::D1 | ImageDim::Buffer => 1,
            ImageDim::D2 | ImageDim::D2Array => 2,
            ImageDim::D3 => 3,
        };
        let largest = size[..shrinking].iter().copied().max().unwrap_or(1).max(1);
        32 - largest.leading_zeros()
    }

    /// The size of `level`: each shrinking dimension halved per level, at least 1.
    pub fn level_size(&self, level: u32) -> [u32; 3] {
        let mut s = self.size;
        let shrinking = match self.dim {
            ImageDim::D1 | ImageDim::Buffer => 1,
            ImageDim::D2 | ImageDim::D2Array => 2,
            ImageDim::D3 => 3,
        };
        for d in s.iter_mut().take(shrinking) {
            *d = (*d >> level.min(31)).max(1);
        }
        s
    }

    /// Bytes of `level` in the plan's layout.
    pub fn level_bytes(&self, level: u32) -> u64 {
        let texels: u64 = self.level_size(level).iter().map(|&s| s as u64).product();
        texels * self.format.texel_bytes()
    }

    /// Bytes of every level, level 0 first.
    pub fn bytes(&self) -> u64 {
        (0..self.levels).map(|l| self.level_bytes(l)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_halve_their_shrinking_dimensions() {
        let d = TextureDesc {
            dim: ImageDim::D2,
            format: ImageFormat::Rgba8,
            size: [8, 2, 1],
            levels: 4,
            sampler: SamplerState::default(),
        };
        assert_eq!(TextureDesc::max_levels(d.dim, d.size), 4);
        assert_eq!(
            (0..4).map(|l| d.level_size(l)).collect::<Vec<_>>(),
            [[8, 2, 1], [4, 1, 1], [2, 1, 1], [1, 1, 1]]
        );
        assert_eq!(d.bytes(), (16 + 4 + 2 + 1) * 4);
        let a = TextureDesc {
            dim: ImageDim::D2Array,
            size: [4, 4, 3],
            levels: 3,
            ..d
        };
        assert_eq!(a.level_size(2), [1, 1, 3]);
        assert_eq!(TextureDesc::max_levels(ImageDim::D1, [5, 1, 1]), 3);
        assert_eq!(TextureDesc::max_levels(ImageDim::D3, [1, 2, 9]), 4);
        for f in Filter::ALL {
            assert_eq!(Filter::parse(f.name()), Some(f));
            assert_eq!(
                serde_json::to_string(&f).unwrap(),
                format!("\"{}\"", f.name())
            );
        }
        for w in Wrap::ALL {
            assert_eq!(Wrap::parse(w.name()), Some(w));
        }
        assert!(Filter::Linear.magnifies() && !Filter::NearestMipmapNearest.magnifies());
    }
}
