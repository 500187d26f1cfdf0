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

use super::case::{Case, Origin};
use super::command::Command;
use super::emit::comment;
use super::scan::{parse_str, parse_word, sscanf, Arg};
use crate::yaml::{f32_text, flow_list, scalar};
use conform_plan::{Filter, SamplerState, Wrap};
use std::fmt::Write;

/// A texture parameter shader_runner sets.
#[derive(Clone, Debug, PartialEq)]
pub enum TexParameter {
    Min(Filter),
    Mag(Filter),
    /// S (0), T (1) or R (2).
    Wrap(usize, Wrap),
    BorderColor([f32; 4]),
    /// One conform's textures do not carry: its name.
    Other(&'static str),
}

/// `texparameter TARGET PARAM VALUE`: the target's name (`2D`) and the parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct TexParameterCmd {
    pub target: &'static str,
    pub param: TexParameter,
}

/// parse_tex_target's table (tests/shaders/parser_utils.c).
const TARGETS: [&str; 8] = [
    "1D",
    "2D",
    "3D",
    "Rect",
    "Cube",
    "1DArray",
    "2DArray",
    "CubeArray",
];
const MIN_FILTERS: [Filter; 6] = [
    Filter::NearestMipmapNearest,
    Filter::LinearMipmapNearest,
    Filter::NearestMipmapLinear,
    Filter::LinearMipmapLinear,
    Filter::Nearest,
    Filter::Linear,
];
/// handle_texparameter's `wrap_modes` (MIRRORED_REPEAT is not among them).
const WRAPS: [Wrap; 3] = [Wrap::Repeat, Wrap::ClampToEdge, Wrap::ClampToBorder];

/// `texture miptree %d` (sscanf, so anything after the unit is ignored).
pub fn texture_miptree(line: &str) -> Option<Result<Command, String>> {
    match sscanf(line, "texture miptree %d").first() {
        Some(Arg::Int(unit)) => Some(Ok(Command::TextureMiptree { unit: *unit })),
        _ => None,
    }
}

/// `texparameter ...` (parse_str, so after leading space): shader_runner fails the test on
/// an unknown target, parameter or value (REQUIRE), and on a border colour of fewer than
/// four floats.
pub fn texparameter(line: &str) -> Option<Result<Command, String>> {
    let rest = parse_str(line, "texparameter ")?;
    let fail = |what: &str| Err(format!("`{line}`: {what} (shader_runner fails the test)"));
    let Some((word, rest)) = parse_word(rest) else {
        return Some(fail("no texture target"));
    };
    let Some(target) = TARGETS.into_iter().find(|t| *t == word) else {
        return Some(fail("bad texture target"));
    };
    let enumerated = |rest: &str, names: &[&'static str]| -> Option<usize> {
        let (w, _) = parse_word(rest)?;
        names.iter().position(|n| *n == w)
    };
    let min_names: Vec<&str> = MIN_FILTERS.iter().map(|f| f.name()).collect();
    let wrap_names: Vec<&str> = WRAPS.iter().map(|w| w.name()).collect();
    let param = if let Some(r) = parse_str(rest, "min ") {
        match enumerated(r, &min_names) {
            Some(i) => TexParameter::Min(MIN_FILTERS[i]),
            None => return Some(fail("bad min")),
        }
    } else if let Some(r) = parse_str(rest, "mag ") {
        match enumerated(r, &["nearest", "linear"]) {
            Some(0) => TexParameter::Mag(Filter::Nearest),
            Some(_) => TexParameter::Mag(Filter::Linear),
            None => return Some(fail("bad mag")),
        }
    } else if let Some((axis, r)) = ["wrap_s ", "wrap_t ", "wrap_r "]
        .iter()
        .enumerate()
        .find_map(|(i, p)| parse_str(rest, p).map(|r| (i, r)))
    {
        match enumerated(r, &wrap_names) {
            Some(i) => TexParameter::Wrap(axis, WRAPS[i]),
            None => return Some(fail("bad wrap mode")),
        }
    } else if let Some(r) = parse_str(rest, "border_color ") {
        let v: Vec<f32> = sscanf(r, "%f %f %f %f")
            .iter()
            .filter_map(|a| match a {
                Arg::Float(f) => Some(*f),
                _ => None,
            })
            .collect();
        match <[f32; 4]>::try_from(v.as_slice()) {
            Ok(c) => TexParameter::BorderColor(c),
            Err(_) => return Some(fail("a border colour of fewer than four floats")),
        }
    } else if let Some(name) = [
        "compare_func ",
        "depth_mode ",
        "lod_bias ",
        "max_level ",
        "base_level ",
        "swizzle_r ",
    ]
    .into_iter()
    .find(|p| parse_str(rest, p).is_some())
    {
        TexParameter::Other(name.trim_end())
    } else {
        return Some(fail("unknown texture parameter"));
    };
    Some(Ok(Command::TexParameter(TexParameterCmd { target, param })))
}

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

/// A sampled 2D texture of the case: `textures:`.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledTexture {
    pub name: String,
    pub unit: u32,
    /// conform's format name (`rgba8`).
    pub format: &'static str,
    pub size: [u32; 2],
    /// Values per texel.
    pub lanes: usize,
    /// The texels of each level, lane by lane (already YAML).
    pub levels: Vec<Vec<String>>,
    pub sampler: SamplerState,
    /// The `texture` line that made it and the `texparameter` lines that set its state.
    pub origins: Vec<Origin>,
}

/// Writes the case's `textures:`.
pub(super) fn emit(out: &mut String, case: &Case) {
    if case.textures.is_empty() {
        return;
    }
    out.push_str("textures:\n");
    for t in &case.textures {
        for origin in &t.origins {
            comment(out, 2, case, origin, None);
        }
        let _ = writeln!(
            out,
            "  - {{name: {}, unit: {}, type: 2d, format: {}, size: {},",
            scalar(&t.name),
            t.unit,
            t.format,
            flow_list(t.size.iter().map(|s| s.to_string()))
        );
        let s = &t.sampler;
        let mut sampler = format!(
            "min_filter: {}, mag_filter: {}, wrap: {}",
            s.min_filter.name(),
            s.mag_filter.name(),
            flow_list(s.wrap.iter().map(|w| w.name().to_string()))
        );
        if s.border_color != [0; 4] {
            let c = s.border_color.map(|b| f32_text(f32::from_bits(b)));
            let _ = write!(sampler, ", border_color: {}", flow_list(c.into_iter()));
        }
        let _ = writeln!(out, "    sampler: {{{sampler}}},");
        out.push_str("    levels: [\n");
        let mut width = t.size[0] as usize;
        let last = t.levels.len().saturating_sub(1);
        for (l, level) in t.levels.iter().enumerate() {
            // One row of texels a line: the data reads as the level it is.
            let rows: Vec<String> = level
                .chunks((width * t.lanes).max(1))
                .map(|r| format!("        {}", r.join(", ")))
                .collect();
            let sep = if l == last { "" } else { "," };
            let _ = writeln!(out, "      [\n{}\n      ]{sep}", rows.join(",\n"));
            width = (width / 2).max(1);
        }
        out.push_str("    ]}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(line: &str) -> Result<TexParameterCmd, String> {
        match texparameter(line).expect("a texparameter line") {
            Ok(Command::TexParameter(c)) => Ok(c),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e),
        }
    }

    #[test]
    fn texparameter_reads_handle_texparameter_forms() {
        let c = tp("texparameter 2D wrap_t clamp_to_border").unwrap();
        assert_eq!(
            (c.target, c.param),
            ("2D", TexParameter::Wrap(1, Wrap::ClampToBorder))
        );
        let c = tp("texparameter 2D border_color 0.1 0.2 0.3 0.4").unwrap();
        assert_eq!(c.param, TexParameter::BorderColor([0.1, 0.2, 0.3, 0.4]));
        let c = tp("texparameter 2DArray min linear_mipmap_nearest").unwrap();
        assert_eq!(
            (c.target, c.param),
            ("2DArray", TexParameter::Min(Filter::LinearMipmapNearest))
        );
        assert_eq!(
            tp("texparameter 2D mag nearest").unwrap().param,
            TexParameter::Mag(Filter::Nearest)
        );
        assert_eq!(
            tp("texparameter 2D max_level 2").unwrap().param,
            TexParameter::Other("max_level")
        );
        // shader_runner fails these.
        assert!(tp("texparameter 2D mag nearest_mipmap_nearest").is_err());
        assert!(tp("texparameter 2D wrap_s mirrored_repeat").is_err());
        assert!(tp("texparameter 2D border_color 0.1 0.2").is_err());
        assert!(tp("texparameter 2d wrap_s repeat").is_err());
        assert!(tp("texparameter 2D swizzle_g red").is_err());
        assert!(texparameter("texparameters 2D").is_none());
    }

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
