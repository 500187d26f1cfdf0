//! The `images:` list: images bound to image units (cases/README.md, "Images"). Each becomes
//! a plan buffer of kind `Image` after the case's buffers, so expectations, `expect` steps and
//! the differential view read its texels as they read a buffer's elements (texel
//! `x + width * y` at `at`, in the format's type by default).

use super::model::{RawImage, RawTexelRange};
use super::{limits, values, Checker};
use crate::diag::did_you_mean;
use conform_plan::{BufferInit, BufferKind, ImageDesc, ImageDim, ImageFormat};

/// The least MAX_COMPUTE_IMAGE_UNIFORMS and MAX_IMAGE_UNITS (GL 4.6 Tables 23.61, 23.64):
/// units 0 to 7 exist everywhere.
const GUARANTEED_UNITS: u32 = 8;

/// The largest TEXTURE_BUFFER_OFFSET_ALIGNMENT GL allows (GL 4.6 Table 23.53: the value is at
/// most 256): a range offset that is a multiple of it is aligned on every implementation.
const BUFFER_OFFSET_ALIGNMENT: u64 = 256;

impl Checker<'_> {
    /// Checks `raw` and appends the images to `buffers` (sharing their byte budget).
    pub(super) fn images(&mut self, raw: &[RawImage], buffers: &mut Vec<BufferInit>) {
        let mut used: u64 = buffers.iter().map(|b| b.bytes.len() as u64).sum();
        for (i, r) in raw.iter().enumerate() {
            let node = format!("images[{i}]");
            if let Some(image) = self.image(&node, r, buffers, used) {
                used += image.bytes.len() as u64;
                buffers.push(image);
            }
        }
    }

    fn image(
        &mut self,
        node: &str,
        r: &RawImage,
        buffers: &[BufferInit],
        used: u64,
    ) -> Option<BufferInit> {
        if buffers.iter().any(|b| b.name == r.name) {
            let msg = format!("`{}` already names a buffer or an image", r.name);
            self.err_at(&format!("{node}.name"), msg, None);
            return None;
        }
        if let Some(o) = buffers
            .iter()
            .find(|b| matches!(b.kind, BufferKind::Image(_)) && b.binding == r.unit)
        {
            let msg = format!(
                "image unit {} is already used by image `{}`",
                r.unit, o.name
            );
            self.err_at(&format!("{node}.unit"), msg, None);
            return None;
        }
        if r.unit >= GUARANTEED_UNITS {
            let msg = format!(
                "image unit {} is not one every implementation has (0 to {})",
                r.unit,
                GUARANTEED_UNITS - 1
            );
            self.err_at(&format!("{node}.unit"), msg, None);
            return None;
        }
        let Some(dim) = ImageDim::ALL.into_iter().find(|d| d.name() == r.dim) else {
            let known: Vec<&str> = ImageDim::ALL.iter().map(|d| d.name()).collect();
            self.err_at(
                &format!("{node}.type"),
                format!("unknown image type `{}`", r.dim),
                Some(format!("image types are: {}", known.join(", "))),
            );
            return None;
        };
        let Some(format) = ImageFormat::parse(&r.format) else {
            let known: Vec<&str> = ImageFormat::ALL.iter().map(|f| f.name()).collect();
            let hint = match did_you_mean(&r.format, known.iter().copied()) {
                Some(m) => format!("did you mean `{m}`? formats are: {}", known.join(", ")),
                None => format!("formats are: {}", known.join(", ")),
            };
            self.err_at(
                &format!("{node}.format"),
                format!("unknown image format `{}`", r.format),
                Some(hint),
            );
            return None;
        };
        if dim == ImageDim::Buffer && !format.has_buffer_textures() {
            self.err_at(
                &format!("{node}.format"),
                format!("a buffer texture cannot have format `{format}`"),
                Some(
                    "GL 4.6 Table 8.18 lists the buffer texture formats: no snorm or packed ones"
                        .into(),
                ),
            );
            return None;
        }
        let n = dim.coordinates();
        let max = dim.max_size();
        if r.size.len() != n || r.size.iter().zip(max).any(|(&s, m)| s == 0 || s > m) {
            let most: Vec<String> = max[..n].iter().map(|m| m.to_string()).collect();
            let values = match n {
                1 => "1 value".to_string(),
                n => format!("{n} values"),
            };
            let msg = format!(
                "a {} image's size is {values} from 1 to at most [{}]",
                dim.name(),
                most.join(", ")
            );
            self.err_at(&format!("{node}.size"), msg, None);
            return None;
        }
        let mut size = [1u32; 3];
        size[..n].copy_from_slice(&r.size);
        let range = match &r.range {
            None => None,
            Some(range) => Some(self.texel_range(node, dim, format, size[0], range)?),
        };
        let desc = ImageDesc {
            dim,
            format,
            size,
            range,
        };
        let left = limits::left(limits::MAX_BUFFER_BYTES, used);
        if desc.bytes() > left {
            self.err_at(
                &format!("{node}.size"),
                format!(
                    "the image's {} are above the {} left for this case's buffers and images",
                    limits::bytes(desc.bytes()),
                    limits::bytes(left)
                ),
                None,
            );
            return None;
        }
        let bytes = match &r.data {
            None => vec![0; desc.bytes() as usize],
            Some(d) => match values::encode_data(d, format.texel(), left) {
                Ok(bytes) if bytes.len() as u64 == desc.bytes() => bytes,
                Ok(bytes) => {
                    // "a 2x2 image", but "a buffer image" (not "a 4 image") for one size.
                    let dims: Vec<String> = match n {
                        1 => vec![dim.name().to_string()],
                        _ => r.size.iter().map(|s| s.to_string()).collect(),
                    };
                    let texel = format.texel();
                    let per = match texel.lanes {
                        1 => String::new(),
                        n => format!(" ({n} values of {} each)", texel.scalar.name()),
                    };
                    let msg = format!(
                        "{} texels for a {} image of {} texels{per}",
                        bytes.len() as u64 / format.texel_bytes(),
                        dims.join("x"),
                        desc.texels(),
                    );
                    self.err_at(&format!("{node}.data"), msg, None);
                    return None;
                }
                Err(e) => {
                    self.value_err(&format!("{node}.data"), e);
                    return None;
                }
            },
        };
        Some(BufferInit {
            name: r.name.clone(),
            kind: BufferKind::Image(desc),
            binding: r.unit,
            elem: format.texel(),
            bytes,
        })
    }

    /// Checks a buffer image's `range` against its buffer of `texels` texels: the bytes
    /// glTexBufferRange may view everywhere (GL 4.6 section 8.9: INVALID_VALUE for an offset
    /// that is not a multiple of TEXTURE_BUFFER_OFFSET_ALIGNMENT, a size of 0, or a range past
    /// the buffer's end); the texture must have at least one texel.
    fn texel_range(
        &mut self,
        node: &str,
        dim: ImageDim,
        format: ImageFormat,
        texels: u32,
        r: &RawTexelRange,
    ) -> Option<[u64; 2]> {
        let at = format!("{node}.range");
        if dim != ImageDim::Buffer {
            let msg = format!("a {} image has no range: only buffer images do", dim.name());
            self.err_at(&at, msg, None);
            return None;
        }
        if !r.offset.is_multiple_of(BUFFER_OFFSET_ALIGNMENT) {
            let msg = format!(
                "range offset {} is not a multiple of {BUFFER_OFFSET_ALIGNMENT}",
                r.offset
            );
            let hint = "the largest TEXTURE_BUFFER_OFFSET_ALIGNMENT GL allows is 256; a multiple \
                        of it is aligned everywhere";
            self.err_at(&at, msg, Some(hint.into()));
            return None;
        }
        let buffer = u64::from(texels) * format.texel_bytes();
        if r.size < format.texel_bytes() || r.offset.saturating_add(r.size) > buffer {
            let msg = format!(
                "range bytes {}..{} must hold at least one {format} texel ({} bytes) and lie \
                 inside the buffer's {buffer} bytes",
                r.offset,
                r.offset.saturating_add(r.size),
                format.texel_bytes()
            );
            self.err_at(&at, msg, None);
            return None;
        }
        Some([r.offset, r.size])
    }
}
