//! Images in Vulkan's terms: a plan image's format as a `VkFormat` (the same bytes per texel,
//! the same order, so the texels move unconverted between the plan and the image), a SPIR-V
//! `Image Format` operand as the plan's format, and which SPIR-V image types and view types
//! match a plan image's dimensionality. Pure: the unit tests need no device.

use crate::module::{ImageType, DIM_BUFFER};
use ash::vk;
use conform_plan::{ImageDim, ImageFormat};

/// The `VkFormat` whose texels are stored exactly as the plan stores `format`'s (the GL
/// runner's pixel format and type: ARB_shader_image_load_store Table X.3): components in
/// R, G, B, A order, little-endian; the packed formats with red in the low bits.
pub fn vk_format(format: ImageFormat) -> vk::Format {
    use vk::Format as V;
    use ImageFormat as F;
    match format {
        F::R32ui => V::R32_UINT,
        F::R32i => V::R32_SINT,
        F::R32f => V::R32_SFLOAT,
        F::Rg32ui => V::R32G32_UINT,
        F::Rg32i => V::R32G32_SINT,
        F::Rg32f => V::R32G32_SFLOAT,
        F::Rgba32ui => V::R32G32B32A32_UINT,
        F::Rgba32i => V::R32G32B32A32_SINT,
        F::Rgba32f => V::R32G32B32A32_SFLOAT,
        F::Rgba16f => V::R16G16B16A16_SFLOAT,
        F::R16f => V::R16_SFLOAT,
        F::Rgba8ui => V::R8G8B8A8_UINT,
        F::Rgba8i => V::R8G8B8A8_SINT,
        F::Rgba8 => V::R8G8B8A8_UNORM,
        F::Rgba16 => V::R16G16B16A16_UNORM,
        F::Rgba8Snorm => V::R8G8B8A8_SNORM,
        // UNSIGNED_INT_10F_11F_11F_REV: R in bits 0..10, G 11..21, B 22..31.
        F::R11fG11fB10f => V::B10G11R11_UFLOAT_PACK32,
        // UNSIGNED_INT_2_10_10_10_REV: R in bits 0..9, G 10..19, B 20..29, A 30..31.
        F::Rgb10A2 => V::A2B10G10R10_UNORM_PACK32,
    }
}

/// The plan format a SPIR-V `Image Format` operand names (None: Unknown, or a format conform
/// has no image of).
pub fn spirv_format(operand: u32) -> Option<ImageFormat> {
    use spirv::ImageFormat as S;
    use ImageFormat as F;
    Some(match spirv::ImageFormat::from_u32(operand)? {
        S::R32ui => F::R32ui,
        S::R32i => F::R32i,
        S::R32f => F::R32f,
        S::Rg32ui => F::Rg32ui,
        S::Rg32i => F::Rg32i,
        S::Rg32f => F::Rg32f,
        S::Rgba32ui => F::Rgba32ui,
        S::Rgba32i => F::Rgba32i,
        S::Rgba32f => F::Rgba32f,
        S::Rgba16f => F::Rgba16f,
        S::R16f => F::R16f,
        S::Rgba8ui => F::Rgba8ui,
        S::Rgba8i => F::Rgba8i,
        S::Rgba8 => F::Rgba8,
        S::Rgba16 => F::Rgba16,
        S::Rgba8Snorm => F::Rgba8Snorm,
        S::R11fG11fB10f => F::R11fG11fB10f,
        S::Rgb10A2 => F::Rgb10A2,
        _ => return None,
    })
}

/// The SPIR-V image type (Dim, Arrayed) a plan image of `dim` is accessed through in Vulkan:
/// the view type must match the OpTypeImage (Vulkan, "Compatibility Between SPIR-V Image
/// Dimensions and Vulkan ImageView Types").
pub fn spirv_dim(dim: ImageDim) -> (u32, bool) {
    match dim {
        ImageDim::D1 => (0, false),
        ImageDim::D2 => (1, false),
        ImageDim::D3 => (2, false),
        ImageDim::D2Array => (1, true),
        ImageDim::Buffer => (DIM_BUFFER, false),
    }
}

/// The image type as messages name it (`2D`, `2D array`, `Buffer`).
pub fn type_name(t: &ImageType) -> String {
    let dim = match t.dim {
        0 => "1D".to_string(),
        1 => "2D".to_string(),
        2 => "3D".to_string(),
        DIM_BUFFER => "Buffer".to_string(),
        d => spirv::Dim::from_u32(d)
            .map(|d| format!("{d:?}"))
            .unwrap_or_else(|| format!("Dim {d}")),
    };
    if t.arrayed {
        format!("{dim} array")
    } else {
        dim
    }
}

/// (image type, view type) of a plan image that is not a buffer image; its extent and array
/// layers from the plan's size.
pub fn image_shape(
    dim: ImageDim,
    size: [u32; 3],
) -> (vk::ImageType, vk::ImageViewType, vk::Extent3D, u32) {
    let [w, h, d] = size;
    let extent = |width, height, depth| vk::Extent3D {
        width,
        height,
        depth,
    };
    match dim {
        ImageDim::D1 | ImageDim::Buffer => (
            vk::ImageType::TYPE_1D,
            vk::ImageViewType::TYPE_1D,
            extent(w, 1, 1),
            1,
        ),
        ImageDim::D2 => (
            vk::ImageType::TYPE_2D,
            vk::ImageViewType::TYPE_2D,
            extent(w, h, 1),
            1,
        ),
        ImageDim::D3 => (
            vk::ImageType::TYPE_3D,
            vk::ImageViewType::TYPE_3D,
            extent(w, h, d),
            1,
        ),
        ImageDim::D2Array => (
            vk::ImageType::TYPE_2D,
            vk::ImageViewType::TYPE_2D_ARRAY,
            extent(w, h, 1),
            d,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_a_vk_format_of_its_texel_size() {
        for f in ImageFormat::ALL {
            let v = vk_format(f);
            let bytes = match v {
                vk::Format::R16_SFLOAT => 2,
                vk::Format::R32_UINT
                | vk::Format::R32_SINT
                | vk::Format::R32_SFLOAT
                | vk::Format::R8G8B8A8_UINT
                | vk::Format::R8G8B8A8_SINT
                | vk::Format::R8G8B8A8_UNORM
                | vk::Format::R8G8B8A8_SNORM
                | vk::Format::B10G11R11_UFLOAT_PACK32
                | vk::Format::A2B10G10R10_UNORM_PACK32 => 4,
                vk::Format::R32G32_UINT
                | vk::Format::R32G32_SINT
                | vk::Format::R32G32_SFLOAT
                | vk::Format::R16G16B16A16_SFLOAT
                | vk::Format::R16G16B16A16_UNORM => 8,
                _ => 16,
            };
            assert_eq!(bytes, f.texel_bytes(), "{f}: {v:?}");
            // Each SPIR-V format operand of the same name maps back to the format.
            let operand = (0..40)
                .find(|&o| spirv_format(o) == Some(f))
                .unwrap_or_else(|| panic!("{f}: no SPIR-V operand"));
            let name = format!("{:?}", spirv::ImageFormat::from_u32(operand).unwrap());
            assert_eq!(name.to_lowercase(), f.name().replace('_', ""), "{f}");
        }
        assert_eq!(vk_format(ImageFormat::Rgba8), vk::Format::R8G8B8A8_UNORM);
        assert_eq!(spirv_format(33), Some(ImageFormat::R32ui));
        assert_eq!(spirv_format(3), Some(ImageFormat::R32f));
        assert_eq!(spirv_format(0), None, "Unknown");
        assert_eq!(spirv_format(7), None, "Rg16f: no conform format");
    }

    #[test]
    fn dimensionalities_match_spirv_and_view_types() {
        assert_eq!(spirv_dim(ImageDim::D2Array), (1, true));
        assert_eq!(spirv_dim(ImageDim::Buffer), (DIM_BUFFER, false));
        let (t, v, e, layers) = image_shape(ImageDim::D2Array, [4, 2, 3]);
        assert_eq!(
            (t, v, (e.width, e.height, e.depth), layers),
            (
                vk::ImageType::TYPE_2D,
                vk::ImageViewType::TYPE_2D_ARRAY,
                (4, 2, 1),
                3
            )
        );
        let (t, v, e, layers) = image_shape(ImageDim::D3, [4, 2, 3]);
        assert_eq!(
            (t, v, (e.width, e.height, e.depth), layers),
            (
                vk::ImageType::TYPE_3D,
                vk::ImageViewType::TYPE_3D,
                (4, 2, 3),
                1
            )
        );
        let t = ImageType {
            dim: 1,
            arrayed: true,
            format: 33,
        };
        assert_eq!(type_name(&t), "2D array");
    }
}
