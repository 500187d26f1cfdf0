//! Images bound to image units (ARB_shader_image_load_store, GL 4.6 section 8.26): what a
//! case's image is (dimensionality, size, format) and how its texels are laid out in the
//! plan's bytes.
//!
//! An image travels as a [`crate::BufferInit`] of kind [`crate::BufferKind::Image`]: `binding`
//! is the image unit and `bytes` the texels of level 0, tightly packed, x fastest, then y
//! (the layout glTexSubImage2D takes with an unpack alignment of 1 and glGetTexImage gives),
//! so every backend reads them back like buffer contents and every check applies.

use crate::{ElemType, Scalar};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The dimensionality of an image (the texture target it is made with).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageDim {
    /// TEXTURE_2D (`image2D`, `uimage2D`, `iimage2D`).
    #[serde(rename = "2d")]
    D2,
}

impl ImageDim {
    pub const ALL: [ImageDim; 1] = [ImageDim::D2];

    pub fn name(self) -> &'static str {
        match self {
            ImageDim::D2 => "2d",
        }
    }

    /// How many of `size`'s values the dimensionality uses.
    pub fn coordinates(self) -> usize {
        match self {
            ImageDim::D2 => 2,
        }
    }
}

/// An image format: the internal format of the texture and the format qualifier a shader
/// declares the image with (GL 4.6 Table 8.33).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageFormat {
    R32ui,
    R32i,
    R32f,
}

impl ImageFormat {
    pub const ALL: [ImageFormat; 3] = [ImageFormat::R32ui, ImageFormat::R32i, ImageFormat::R32f];

    /// The name of the format layout qualifier (`r32ui`).
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::R32ui => "r32ui",
            ImageFormat::R32i => "r32i",
            ImageFormat::R32f => "r32f",
        }
    }

    pub fn parse(name: &str) -> Option<ImageFormat> {
        ImageFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The element a texel is stored as in the plan's bytes (and checked as by default).
    pub fn texel(self) -> ElemType {
        ElemType::scalar(match self {
            ImageFormat::R32ui => Scalar::U32,
            ImageFormat::R32i => Scalar::I32,
            ImageFormat::R32f => Scalar::F32,
        })
    }

    /// Bytes per texel.
    pub fn texel_bytes(self) -> u64 {
        self.texel().size() as u64
    }
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One image: its dimensionality, format and size in texels (unused dimensions 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ImageDesc {
    pub dim: ImageDim,
    pub format: ImageFormat,
    pub size: [u32; 3],
}

impl ImageDesc {
    /// Texels of level 0.
    pub fn texels(&self) -> u64 {
        self.size.iter().map(|&s| s as u64).product()
    }

    /// Bytes of level 0 in the plan's layout.
    pub fn bytes(&self) -> u64 {
        self.texels() * self.format.texel_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_name_their_texels() {
        for f in ImageFormat::ALL {
            assert_eq!(ImageFormat::parse(f.name()), Some(f));
            assert_eq!(f.texel_bytes(), 4);
        }
        assert_eq!(ImageFormat::parse("rgba8"), None);
        let d = ImageDesc {
            dim: ImageDim::D2,
            format: ImageFormat::R32f,
            size: [3, 2, 1],
        };
        assert_eq!((d.texels(), d.bytes()), (6, 24));
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            r#"{"dim":"2d","format":"r32f","size":[3,2,1]}"#
        );
    }
}
