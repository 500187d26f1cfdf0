//! Images bound to image units (ARB_shader_image_load_store, GL 4.6 section 8.26): what a
//! case's image is (dimensionality, size, format) and how its texels are laid out in the
//! plan's bytes.
//!
//! An image travels as a [`crate::BufferInit`] of kind [`crate::BufferKind::Image`]: `binding`
//! is the image unit and `bytes` the texels of level 0 in the format's stored representation,
//! tightly packed, x fastest, then y, then z or the layer (the layout glTexSubImage* takes
//! with an unpack alignment of 1 and glGetTexImage gives),
//! so every backend reads them back like buffer contents and every check applies. A buffer
//! image's bytes are the data store of the buffer object its texture is made on, whole.

use crate::{ElemType, Scalar};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The dimensionality of an image (the texture target it is made with).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ImageDim {
    /// TEXTURE_1D (`image1D`, ...): size `[width]`.
    #[serde(rename = "1d")]
    D1,
    /// TEXTURE_2D (`image2D`, `uimage2D`, `iimage2D`): size `[width, height]`.
    #[serde(rename = "2d")]
    D2,
    /// TEXTURE_3D (`image3D`), bound layered: size `[width, height, depth]`.
    #[serde(rename = "3d")]
    D3,
    /// TEXTURE_2D_ARRAY (`image2DArray`), bound layered: size `[width, height, layers]`.
    #[serde(rename = "2d_array")]
    D2Array,
    /// TEXTURE_BUFFER (`imageBuffer`; GL 4.6 section 8.1, ARB_texture_buffer_object): a
    /// one-dimensional array of texels in a buffer object's data store: size `[texels]`.
    #[serde(rename = "buffer")]
    Buffer,
}

impl ImageDim {
    pub const ALL: [ImageDim; 5] = [
        ImageDim::D1,
        ImageDim::D2,
        ImageDim::D3,
        ImageDim::D2Array,
        ImageDim::Buffer,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ImageDim::D1 => "1d",
            ImageDim::D2 => "2d",
            ImageDim::D3 => "3d",
            ImageDim::D2Array => "2d_array",
            ImageDim::Buffer => "buffer",
        }
    }

    /// How many of `size`'s values the dimensionality uses.
    pub fn coordinates(self) -> usize {
        match self {
            ImageDim::D1 | ImageDim::Buffer => 1,
            ImageDim::D2 => 2,
            ImageDim::D3 | ImageDim::D2Array => 3,
        }
    }

    /// Whether the whole level is bound (glBindImageTexture's `layered`): the targets with
    /// layers or depth, so a shader addresses every layer (ARB_shader_image_load_store,
    /// Table X.1).
    pub fn layered(self) -> bool {
        matches!(self, ImageDim::D3 | ImageDim::D2Array)
    }

    /// The largest size in each used dimension that every GL 4.x implementation offers
    /// (MAX_TEXTURE_SIZE 16384, MAX_3D_TEXTURE_SIZE 2048, MAX_ARRAY_TEXTURE_LAYERS 2048,
    /// MAX_TEXTURE_BUFFER_SIZE 65536; GL 4.6 Table 23.53).
    pub fn max_size(self) -> [u32; 3] {
        match self {
            ImageDim::Buffer => [65536, 1, 1],
            ImageDim::D1 | ImageDim::D2 => [16384, 16384, 1],
            ImageDim::D3 => [2048, 2048, 2048],
            ImageDim::D2Array => [16384, 16384, 2048],
        }
    }
}

/// An image format: the internal format of the texture and the format qualifier a shader
/// declares the image with (ARB_shader_image_load_store Table X.2; GL 4.6 Table 8.33).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageFormat {
    R32ui,
    R32i,
    R32f,
    Rg32ui,
    Rg32i,
    Rg32f,
    Rgba32ui,
    Rgba32i,
    Rgba32f,
    Rgba16f,
    R16f,
    Rgba8ui,
    Rgba8i,
    /// Unsigned normalized: stored as bytes c, read by shaders as c / 255.
    Rgba8,
    /// Unsigned normalized, 16 bits: c / 65535.
    Rgba16,
    /// Signed normalized: stored as signed bytes c, read as max(c / 127, -1).
    Rgba8Snorm,
    /// Unsigned 11-, 11- and 10-bit floats packed in a 32-bit word, red in the low bits
    /// (UNSIGNED_INT_10F_11F_11F_REV).
    R11fG11fB10f,
    /// Unsigned normalized 10-, 10-, 10- and 2-bit components packed in a 32-bit word, red in
    /// the low bits (UNSIGNED_INT_2_10_10_10_REV).
    Rgb10A2,
}

impl ImageFormat {
    pub const ALL: [ImageFormat; 18] = [
        ImageFormat::R32ui,
        ImageFormat::R32i,
        ImageFormat::R32f,
        ImageFormat::Rg32ui,
        ImageFormat::Rg32i,
        ImageFormat::Rg32f,
        ImageFormat::Rgba32ui,
        ImageFormat::Rgba32i,
        ImageFormat::Rgba32f,
        ImageFormat::Rgba16f,
        ImageFormat::R16f,
        ImageFormat::Rgba8ui,
        ImageFormat::Rgba8i,
        ImageFormat::Rgba8,
        ImageFormat::Rgba16,
        ImageFormat::Rgba8Snorm,
        ImageFormat::R11fG11fB10f,
        ImageFormat::Rgb10A2,
    ];

    /// The name of the format layout qualifier (`r32ui`).
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::R32ui => "r32ui",
            ImageFormat::R32i => "r32i",
            ImageFormat::R32f => "r32f",
            ImageFormat::Rg32ui => "rg32ui",
            ImageFormat::Rg32i => "rg32i",
            ImageFormat::Rg32f => "rg32f",
            ImageFormat::Rgba32ui => "rgba32ui",
            ImageFormat::Rgba32i => "rgba32i",
            ImageFormat::Rgba32f => "rgba32f",
            ImageFormat::Rgba16f => "rgba16f",
            ImageFormat::R16f => "r16f",
            ImageFormat::Rgba8ui => "rgba8ui",
            ImageFormat::Rgba8i => "rgba8i",
            ImageFormat::Rgba8 => "rgba8",
            ImageFormat::Rgba16 => "rgba16",
            ImageFormat::Rgba8Snorm => "rgba8_snorm",
            ImageFormat::R11fG11fB10f => "r11f_g11f_b10f",
            ImageFormat::Rgb10A2 => "rgb10_a2",
        }
    }

    pub fn parse(name: &str) -> Option<ImageFormat> {
        ImageFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The element a texel is stored as in the plan's bytes (and checked as by default): the
    /// stored representation, one lane per component (`rgba8` as `u8x4`, the bytes, not the
    /// normalized values a shader reads); the packed formats as one `u32`.
    pub fn texel(self) -> ElemType {
        use ImageFormat as F;
        let (scalar, lanes) = match self {
            F::R32ui => (Scalar::U32, 1),
            F::R32i => (Scalar::I32, 1),
            F::R32f => (Scalar::F32, 1),
            F::Rg32ui => (Scalar::U32, 2),
            F::Rg32i => (Scalar::I32, 2),
            F::Rg32f => (Scalar::F32, 2),
            F::Rgba32ui => (Scalar::U32, 4),
            F::Rgba32i => (Scalar::I32, 4),
            F::Rgba32f => (Scalar::F32, 4),
            F::Rgba16f => (Scalar::F16, 4),
            F::R16f => (Scalar::F16, 1),
            F::Rgba8ui | F::Rgba8 => (Scalar::U8, 4),
            F::Rgba8i | F::Rgba8Snorm => (Scalar::I8, 4),
            F::Rgba16 => (Scalar::U16, 4),
            F::R11fG11fB10f | F::Rgb10A2 => (Scalar::U32, 1),
        };
        ElemType { scalar, lanes }
    }

    /// Bytes per texel.
    pub fn texel_bytes(self) -> u64 {
        self.texel().size() as u64
    }

    /// Whether a buffer texture may have the format (GL 4.6 Table 8.18, "Internal formats for
    /// buffer textures"; TexBuffer refuses the others with INVALID_ENUM): every format here but
    /// the signed normalized and the packed ones.
    pub fn has_buffer_textures(self) -> bool {
        !matches!(
            self,
            ImageFormat::Rgba8Snorm | ImageFormat::R11fG11fB10f | ImageFormat::Rgb10A2
        )
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
    /// A buffer image whose texture views only bytes `[offset, offset + size)` of its buffer
    /// object (glTexBufferRange; `size` above is then the buffer's texel count): the texture
    /// has floor(size / texel bytes) texels, its texel 0 at `offset` (GL 4.6 section 8.9).
    /// None: the whole buffer (glTexBuffer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[u64; 2]>,
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

    /// The size a shader sees (imageSize, and which texels exist): `size`, or for a buffer
    /// image with a range the range's texel count.
    pub fn view_size(&self) -> [u32; 3] {
        match self.range {
            Some([_, bytes]) => [(bytes / self.format.texel_bytes()) as u32, 1, 1],
            None => self.size,
        }
    }

    /// The byte offset of the texel a shader addresses as texel 0.
    pub fn view_offset(&self) -> u64 {
        self.range.map_or(0, |[offset, _]| offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_name_their_texels() {
        for f in ImageFormat::ALL {
            assert_eq!(ImageFormat::parse(f.name()), Some(f));
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.name()));
        }
        let bytes = |n: &str| ImageFormat::parse(n).unwrap().texel_bytes();
        assert_eq!(
            ["r32ui", "rg32f", "rgba32i", "rgba16f", "r16f", "rgba8", "rgba8i"].map(bytes),
            [4, 8, 16, 8, 2, 4, 4]
        );
        assert_eq!(
            ["rgba16", "rgba8_snorm", "r11f_g11f_b10f", "rgb10_a2"].map(bytes),
            [8, 4, 4, 4]
        );
        assert_eq!(ImageFormat::parse("rgb8"), None);
        let buffer: Vec<_> = ImageFormat::ALL
            .into_iter()
            .filter(|f| !f.has_buffer_textures())
            .map(|f| f.name())
            .collect();
        assert_eq!(buffer, ["rgba8_snorm", "r11f_g11f_b10f", "rgb10_a2"]);
        for d in ImageDim::ALL {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, format!("\"{}\"", d.name()));
        }
        let d = ImageDesc {
            dim: ImageDim::D2,
            format: ImageFormat::R32f,
            size: [3, 2, 1],
            range: None,
        };
        assert_eq!((d.texels(), d.bytes()), (6, 24));
        assert_eq!((d.view_size(), d.view_offset()), ([3, 2, 1], 0));
        let ranged = ImageDesc {
            dim: ImageDim::Buffer,
            format: ImageFormat::Rg32f,
            size: [100, 1, 1],
            range: Some([256, 20]),
        };
        // 20 bytes hold two whole 8-byte texels.
        assert_eq!((ranged.view_size(), ranged.view_offset()), ([2, 1, 1], 256));
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            r#"{"dim":"2d","format":"r32f","size":[3,2,1]}"#
        );
    }
}
