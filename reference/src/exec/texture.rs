//! texelFetch on the sampled textures of a plan (GLSL 4.60 §8.9.2; GL 4.6 §11.1.3.2 Texel
//! Fetches): the texel at integer coordinates of one level, unfiltered, converted as the
//! format says (`image::decode`). What the spec leaves undefined, the fetch reports as
//! undefined (flagged where the value is used): a level or coordinates outside the texture,
//! and a sampler whose component type is not the format's (GLSL 4.60 §8.9: "undefined if
//! the texture's internal format does not match the sampler type"). A texture the spec calls
//! incomplete (GL 4.6 §8.17), and a unit with no texture of the sampler's target (its
//! default texture has no image), read (0, 0, 0, 1) (§11.1.3.5).

use super::image::{decode, Done};
use crate::ir::image::{Format, ImageInst};
use crate::ir::Kind;
use conform_plan::{Filter, ImageDim, TextureDesc};

/// A texture on a texture unit.
pub struct Bound<'a> {
    pub unit: u32,
    pub desc: TextureDesc,
    /// Every level's texels, level 0 first (the plan's layout).
    pub texels: &'a [u8],
}

/// Whether the GL calls `desc` complete (GL 4.6 §8.17): its levels are the immutable
/// storage's, so a mipmapped minification filter finds them all; what remains is that an
/// integer texture must filter with NEAREST (NEAREST_MIPMAP_NEAREST).
pub fn complete(desc: &TextureDesc) -> bool {
    let integer = matches!(Format::of_plan(desc.format).kind(), Kind::U | Kind::S);
    let s = desc.sampler;
    !integer
        || (s.mag_filter == Filter::Nearest
            && matches!(s.min_filter, Filter::Nearest | Filter::NearestMipmapNearest))
}

/// `texelFetch(sampler on unit, coord, lod)` for `im` (op Fetch).
pub fn fetch(
    textures: &[Bound],
    im: &ImageInst,
    unit: u64,
    coord: [u64; 4],
    lod: [u64; 4],
) -> Done {
    let var = im.var;
    let unit_value = unit & 0xffff_ffff;
    let found = textures
        .iter()
        .find(|t| u64::from(t.unit) == unit_value && t.desc.dim == var.dim);
    let Some(tex) = found.filter(|t| complete(&t.desc)) else {
        let one = match var.kind {
            Kind::F => u64::from(1f32.to_bits()),
            _ => 1,
        };
        return Done {
            value: Some([0, 0, 0, one]),
            ..Done::default()
        };
    };
    let format = Format::of_plan(tex.desc.format);
    let undefined = |why: String| Done {
        value: Some([0; 4]),
        undefined: Some(why),
        ..Done::default()
    };
    if format.kind() != var.kind {
        return undefined(format!(
            "texelFetch through a sampler of another component type than its {} texture's (undefined, GLSL 4.60 section 8.9)",
            format.name()
        ));
    }
    let level = lod[0] as u32 as i32;
    if level < 0 || level as u32 >= tex.desc.levels {
        return undefined(format!(
            "texelFetch of level {level} of a texture of {} levels (undefined, GL 4.6 section 11.1.3.2)",
            tex.desc.levels
        ));
    }
    let level = level as u32;
    let size = tex.desc.level_size(level);
    let n = var.dim.coordinates();
    let mut at = [0u64; 3];
    for d in 0..n {
        let c = coord[d] as u32 as i32;
        if c < 0 || c as u32 >= size[d] {
            let shown: Vec<String> = coord[..n]
                .iter()
                .map(|&c| (c as u32 as i32).to_string())
                .collect();
            let dims: Vec<String> = size[..n].iter().map(|s| s.to_string()).collect();
            return undefined(format!(
                "texelFetch at ({}) outside level {level} of size {} (undefined, GL 4.6 section 11.1.3.2)",
                shown.join(", "),
                dims.join("x")
            ));
        }
        at[d] = c as u64;
    }
    let [w, h, _] = size.map(u64::from);
    let index = match var.dim {
        ImageDim::D1 | ImageDim::Buffer => at[0],
        ImageDim::D2 => at[0] + w * at[1],
        ImageDim::D3 | ImageDim::D2Array => at[0] + w * (at[1] + h * at[2]),
    };
    let bytes = format.texel_bytes() as u64;
    let base: u64 = (0..level).map(|l| tex.desc.level_bytes(l)).sum();
    let off = (base + index * bytes) as usize;
    let mut raw = 0u128;
    for (i, &b) in tex.texels[off..off + bytes as usize].iter().enumerate() {
        raw |= u128::from(b) << (8 * i);
    }
    Done {
        value: Some(decode(format, raw)),
        ..Done::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::image::{ImageOp, ImageVar};
    use crate::ir::Src;
    use conform_plan::{ImageFormat, SamplerState};

    fn inst(dim: ImageDim, kind: Kind) -> ImageInst {
        let s = Src::new(crate::ir::Reg(0));
        ImageInst {
            op: ImageOp::Fetch,
            var: ImageVar {
                dim,
                kind,
                format: None,
            },
            dst: None,
            unit: s,
            coord: s,
            a: s,
            b: s,
        }
    }

    #[test]
    fn fetch_reads_levels_and_flags_what_is_undefined() {
        let desc = TextureDesc {
            dim: ImageDim::D2,
            format: ImageFormat::R32ui,
            size: [2, 2, 1],
            levels: 2,
            sampler: SamplerState {
                min_filter: Filter::NearestMipmapNearest,
                mag_filter: Filter::Nearest,
                ..SamplerState::default()
            },
        };
        let texels: Vec<u8> = [10u32, 11, 12, 13, 20]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let t = [Bound {
            unit: 3,
            desc,
            texels: &texels,
        }];
        let u = inst(ImageDim::D2, Kind::U);
        let got = |coord: [u64; 4], lod: u64| fetch(&t, &u, 3, coord, [lod, 0, 0, 0]);
        assert_eq!(got([1, 1, 0, 0], 0).value, Some([13, 0, 0, 1]));
        assert_eq!(got([0, 0, 0, 0], 1).value, Some([20, 0, 0, 1]));
        assert!(
            got([0, 0, 0, 0], 2).undefined.is_some(),
            "level past the last"
        );
        assert!(got([2, 0, 0, 0], 0).undefined.is_some(), "x past the width");
        assert!(
            got([0, 1, 0, 0], 1).undefined.is_some(),
            "y past level 1's height"
        );
        assert!(
            got([u32::MAX as u64, 0, 0, 0], 0).undefined.is_some(),
            "x = -1"
        );
        // A float sampler on a uint texture: undefined.
        let f = inst(ImageDim::D2, Kind::F);
        assert!(fetch(&t, &f, 3, [0; 4], [0; 4]).undefined.is_some());
        // No 2D texture on unit 0, or a 3D sampler on unit 3: the default texture, (0, 0, 0, 1).
        assert_eq!(fetch(&t, &u, 0, [0; 4], [0; 4]).value, Some([0, 0, 0, 1]));
        let u3 = inst(ImageDim::D3, Kind::U);
        assert_eq!(fetch(&t, &u3, 3, [0; 4], [0; 4]).value, Some([0, 0, 0, 1]));
        // An integer texture that filters LINEAR is incomplete: (0, 0, 0, 1).
        let mut linear = desc;
        linear.sampler.mag_filter = Filter::Linear;
        assert!(!complete(&linear));
        let tl = [Bound {
            unit: 3,
            desc: linear,
            texels: &texels,
        }];
        assert_eq!(
            fetch(&tl, &u, 3, [1, 1, 0, 0], [0; 4]).value,
            Some([0, 0, 0, 1])
        );
    }
}
