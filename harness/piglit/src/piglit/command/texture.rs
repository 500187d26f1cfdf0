//! shader_runner's texture commands as `Command`s: `texture miptree N` and
//! `texparameter TARGET PARAM VALUE` (`handle_texparameter`, tests/shaders/shader_runner.c);
//! what they make of a case is `super::super::sampled` and `super::super::textures`.

use super::Command;
use crate::piglit::scan::{parse_str, parse_word, sscanf, Arg};
use conform_plan::{Filter, Wrap};

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
}
