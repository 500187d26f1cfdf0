//! The `textures:` list: sampled textures on texture units (cases/README.md, "Textures").
//! Each becomes a plan buffer of kind `Texture` after the case's buffers and images (sharing
//! their byte budget): its levels' texels, level 0 first, and its sampler state.

use super::images::Units;
use super::model::{RawSampler, RawTexture};
use super::{limits, Checker};
use conform_io::diag::did_you_mean;
use conform_plan::{BufferInit, BufferKind, Filter, ImageDim, SamplerState, TextureDesc, Wrap};

/// Texture units: the least MAX_COMPUTE_TEXTURE_IMAGE_UNITS (GL 4.6 Table 23.64; OpenGL ES
/// 3.2 Table 21.43): units 0 to 15 exist for compute shaders everywhere.
const TEXTURE_UNITS: Units = Units {
    unit: "texture unit",
    object: "texture",
    taken: "a buffer, an image or a texture",
    guaranteed: 16,
    context: " for compute shaders",
    of_kind: |k| matches!(k, BufferKind::Texture(_)),
};

impl Checker<'_> {
    /// Checks `raw` and appends the textures to `buffers`.
    pub(super) fn textures(&mut self, raw: &[RawTexture], buffers: &mut Vec<BufferInit>) {
        let mut used: u64 = buffers.iter().map(|b| b.bytes.len() as u64).sum();
        for (i, r) in raw.iter().enumerate() {
            let node = format!("textures[{i}]");
            match self.texture(&node, r, buffers, used) {
                Some(t) => {
                    used += t.bytes.len() as u64;
                    buffers.push(t);
                }
                None => self.rejected.push((r.name.clone(), r.unit)),
            }
        }
    }

    fn texture(
        &mut self,
        node: &str,
        r: &RawTexture,
        buffers: &[BufferInit],
        used: u64,
    ) -> Option<BufferInit> {
        self.name_and_unit(node, &r.name, r.unit, buffers, &TEXTURE_UNITS)?;
        let (dim, format, size) = self.image_shape(node, &r.dim, &r.format, &r.size)?;
        if dim == ImageDim::Buffer {
            let msg = "a texture of type buffer: samplers of buffer textures are not in the format";
            self.err_at(&format!("{node}.type"), msg, None);
            return None;
        }
        let most = TextureDesc::max_levels(dim, size);
        let levels = r.levels.len() as u32;
        if levels == 0 || levels > most {
            let msg = format!(
                "{levels} levels for a texture of size {:?}: from 1 to {most} (each level halves the size, down to 1)",
                r.size
            );
            self.err_at(&format!("{node}.levels"), msg, None);
            return None;
        }
        let sampler = self.sampler(&format!("{node}.sampler"), &r.sampler)?;
        let desc = TextureDesc {
            dim,
            format,
            size,
            levels,
            sampler,
        };
        let left = limits::left(limits::MAX_BUFFER_BYTES, used);
        if desc.bytes() > left {
            self.over_budget(&format!("{node}.levels"), "texture", desc.bytes(), left);
            return None;
        }
        let mut bytes = Vec::with_capacity(desc.bytes() as usize);
        for (l, d) in r.levels.iter().enumerate() {
            let dims = &desc.level_size(l as u32)[..dim.coordinates()];
            let at = format!("{node}.levels[{l}]");
            bytes.extend(self.texel_data(
                &at,
                d,
                format,
                dims,
                &format!("level {l} ({})", super::images::dims_text(dims)),
                left,
            )?);
        }
        Some(BufferInit {
            name: r.name.clone(),
            kind: BufferKind::Texture(desc),
            binding: r.unit,
            elem: format.texel(),
            bytes,
        })
    }

    fn sampler(&mut self, node: &str, r: &RawSampler) -> Option<SamplerState> {
        let mut s = SamplerState::default();
        if let Some(name) = &r.min_filter {
            s.min_filter = self.filter(&format!("{node}.min_filter"), name, false)?;
        }
        if let Some(name) = &r.mag_filter {
            s.mag_filter = self.filter(&format!("{node}.mag_filter"), name, true)?;
        }
        if let Some(wraps) = &r.wrap {
            if wraps.is_empty() || wraps.len() > 3 {
                let msg = "`wrap` is one to three wrap modes (S, T, R)";
                self.err_at(&format!("{node}.wrap"), msg, None);
                return None;
            }
            for (i, name) in wraps.iter().enumerate() {
                let Some(w) = Wrap::parse(name) else {
                    let known: Vec<&str> = Wrap::ALL.iter().map(|w| w.name()).collect();
                    self.err_at(
                        &format!("{node}.wrap[{i}]"),
                        format!("unknown wrap mode `{name}`"),
                        Some(format!("wrap modes are: {}", known.join(", "))),
                    );
                    return None;
                };
                s.wrap[i] = w;
            }
        }
        if let Some(c) = &r.border_color {
            let Ok(c) = <[f32; 4]>::try_from(c.as_slice()) else {
                let msg = "`border_color` is four floats (red, green, blue, alpha)";
                self.err_at(&format!("{node}.border_color"), msg, None);
                return None;
            };
            s.border_color = c.map(f32::to_bits);
        }
        Some(s)
    }

    fn filter(&mut self, at: &str, name: &str, magnification: bool) -> Option<Filter> {
        let known: Vec<&str> = Filter::ALL
            .iter()
            .filter(|f| f.magnifies() || !magnification)
            .map(|f| f.name())
            .collect();
        match Filter::parse(name) {
            Some(f) if f.magnifies() || !magnification => Some(f),
            _ => {
                let hint = match did_you_mean(name, known.iter().copied()) {
                    Some(m) => format!("did you mean `{m}`? filters are: {}", known.join(", ")),
                    None => format!("filters are: {}", known.join(", ")),
                };
                let what = if magnification {
                    "magnification"
                } else {
                    "minification"
                };
                self.err_at(at, format!("unknown {what} filter `{name}`"), Some(hint));
                None
            }
        }
    }
}
