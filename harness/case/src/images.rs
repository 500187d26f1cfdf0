//! The `images:` list: images bound to image units (cases/README.md, "Images"). Each becomes
//! a plan buffer of kind `Image` after the case's buffers, so expectations, `expect` steps and
//! the differential view read its texels as they read a buffer's elements (texel
//! `x + width * y` at `at`, in the format's type by default).

use super::model::{RawImage, RawTexelRange};
use super::{limits, values, Checker};
use conform_io::diag::did_you_mean;
use conform_plan::{BufferInit, BufferKind, ImageDesc, ImageDim, ImageFormat};

/// Image units: the least MAX_COMPUTE_IMAGE_UNIFORMS and MAX_IMAGE_UNITS (GL 4.6 Tables
/// 23.61, 23.64): units 0 to 7 exist everywhere.
const IMAGE_UNITS: Units = Units {
    unit: "image unit",
    object: "image",
    taken: "a buffer or an image",
    guaranteed: 8,
    context: "",
    of_kind: |k| matches!(k, BufferKind::Image(_)),
};

/// The units of one kind of object (image units, texture units), for the checks they share.
pub(super) struct Units {
    /// `image unit`
    pub unit: &'static str,
    /// `image`
    pub object: &'static str,
    /// What a name already in use may name.
    pub taken: &'static str,
    /// Units 0 to `guaranteed - 1` exist everywhere.
    pub guaranteed: u32,
    /// Where they exist (` for compute shaders`).
    pub context: &'static str,
    /// Whether a plan buffer is an object on these units.
    pub of_kind: fn(&BufferKind) -> bool,
}

/// The largest TEXTURE_BUFFER_OFFSET_ALIGNMENT GL allows (GL 4.6 Table 23.53: the value is at
/// most 256): a range offset that is a multiple of it is aligned on every implementation.
const BUFFER_OFFSET_ALIGNMENT: u64 = 256;

impl Checker<'_> {
    /// Checks `raw` and appends the images to `buffers` (sharing their byte budget).
    pub(super) fn images(&mut self, raw: &[RawImage], buffers: &mut Vec<BufferInit>) {
        let mut used: u64 = buffers.iter().map(|b| b.bytes.len() as u64).sum();
        for (i, r) in raw.iter().enumerate() {
            let node = format!("images[{i}]");
            match self.image(&node, r, buffers, used) {
                Some(image) => {
                    used += image.bytes.len() as u64;
                    buffers.push(image);
                }
                None => self.rejected.push((r.name.clone(), r.unit)),
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
        self.name_and_unit(node, &r.name, r.unit, buffers, &IMAGE_UNITS)?;
        let (dim, format, size) = self.image_shape(node, &r.dim, &r.format, &r.size)?;
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
            self.over_budget(&format!("{node}.size"), "image", desc.bytes(), left);
            return None;
        }
        let bytes = match &r.data {
            None => vec![0; desc.bytes() as usize],
            Some(d) => {
                // "a 2x2 image", but "a buffer image" (not "a 4 image") for one size.
                let what = match r.size.len() {
                    1 => format!("a {} image", dim.name()),
                    _ => format!("a {} image", dims_text(&r.size)),
                };
                self.texel_data(&format!("{node}.data"), d, format, &r.size, &what, left)?
            }
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

impl Checker<'_> {
    /// Checks an image's or a texture's `type`, `format` and `size` (at `node`): the
    /// dimensionality, the format and the size with unused dimensions 1.
    pub(super) fn image_shape(
        &mut self,
        node: &str,
        dim: &str,
        format: &str,
        size: &[u32],
    ) -> Option<(ImageDim, ImageFormat, [u32; 3])> {
        let Some(dim) = ImageDim::ALL.into_iter().find(|d| d.name() == dim) else {
            let known: Vec<&str> = ImageDim::ALL.iter().map(|d| d.name()).collect();
            self.err_at(
                &format!("{node}.type"),
                format!("unknown image type `{dim}`"),
                Some(format!("image types are: {}", known.join(", "))),
            );
            return None;
        };
        let Some(format) = ImageFormat::parse(format) else {
            let known: Vec<&str> = ImageFormat::ALL.iter().map(|f| f.name()).collect();
            let hint = match did_you_mean(format, known.iter().copied()) {
                Some(m) => format!("did you mean `{m}`? formats are: {}", known.join(", ")),
                None => format!("formats are: {}", known.join(", ")),
            };
            self.err_at(
                &format!("{node}.format"),
                format!("unknown image format `{format}`"),
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
        if size.len() != n || size.iter().zip(max).any(|(&s, m)| s == 0 || s > m) {
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
        let mut full = [1u32; 3];
        full[..n].copy_from_slice(size);
        Some((dim, format, full))
    }

    /// The error for `bytes` of a `what` above the `left` bytes of the case's budget.
    pub(super) fn over_budget(&mut self, at: &str, what: &str, bytes: u64, left: u64) {
        self.err_at(
            at,
            format!(
                "the {what}'s {} are above the {} left for this case's buffers and images",
                limits::bytes(bytes),
                limits::bytes(left)
            ),
            None,
        );
    }

    /// Encodes texel data `d` (at `at`) for `what` ("a 2x2 image", "level 1 (2x1)") of size `dims` in `format`: exactly the
    /// level's texels, within `left` bytes.
    pub(super) fn texel_data(
        &mut self,
        at: &str,
        d: &serde_yaml_ng::Value,
        format: ImageFormat,
        dims: &[u32],
        what: &str,
        left: u64,
    ) -> Option<Vec<u8>> {
        let texels: u64 = dims.iter().map(|&s| s as u64).product();
        match values::encode_data(d, format.texel(), left) {
            Ok(bytes) if bytes.len() as u64 == texels * format.texel_bytes() => Some(bytes),
            Ok(bytes) => {
                let texel = format.texel();
                let per = match texel.lanes {
                    1 => String::new(),
                    n => format!(" ({n} values of {} each)", texel.scalar.name()),
                };
                let msg = format!(
                    "{} texels for {what} of {texels} texels{per}",
                    bytes.len() as u64 / format.texel_bytes(),
                );
                self.err_at(at, msg, None);
                None
            }
            Err(e) => {
                self.value_err(at, e);
                None
            }
        }
    }
}

/// `[2, 3]` as `2x3`.
pub(super) fn dims_text(dims: &[u32]) -> String {
    let dims: Vec<String> = dims.iter().map(|s| s.to_string()).collect();
    dims.join("x")
}

impl Checker<'_> {
    /// Checks that `name` names nothing in `buffers` yet and that `unit` is one of `units`
    /// every implementation has and no other object of that kind uses.
    pub(super) fn name_and_unit(
        &mut self,
        node: &str,
        name: &str,
        unit: u32,
        buffers: &[BufferInit],
        units: &Units,
    ) -> Option<()> {
        if buffers.iter().any(|b| b.name == name) {
            let msg = format!("`{name}` already names {}", units.taken);
            self.err_at(&format!("{node}.name"), msg, None);
            return None;
        }
        if let Some(o) = buffers
            .iter()
            .find(|b| (units.of_kind)(&b.kind) && b.binding == unit)
        {
            let msg = format!(
                "{} {unit} is already used by {} `{}`",
                units.unit, units.object, o.name
            );
            self.err_at(&format!("{node}.unit"), msg, None);
            return None;
        }
        if unit >= units.guaranteed {
            let msg = format!(
                "{} {unit} is not one every implementation has{} (0 to {})",
                units.unit,
                units.context,
                units.guaranteed - 1
            );
            self.err_at(&format!("{node}.unit"), msg, None);
            return None;
        }
        Some(())
    }
}
