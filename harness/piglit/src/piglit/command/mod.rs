//! One `[test]` line → a typed [`Command`], recognised by the same tests in the same order as
//! shader_runner's `piglit_display` (`sscanf` patterns and `parse_str` prefixes), so a line
//! means here what it means to shader_runner: `compute1 1 1 junk` is a dispatch, `ssbo 0
//! subdata uint ...` is an unknown command, `probe ssbo uint 0 0 == 0X10` compares with 0.
//!
//! Commands the importer maps are typed with their values read exactly as shader_runner
//! reads them; the rest are classed ([`Command::DrawState`], [`Command::Unsupported`],
//! [`Command::Unknown`]) for the converter's skip reasons. A line shader_runner rejects with
//! a FAIL of its own (a bad comparison, an unknown uniform type) is an Err.

pub mod texture;

use super::scan::{self, parse_str, parse_word, sscanf, Arg};

/// A comparison operator of a probe or requirement: the case format's own (`compare:`).
pub use conform_case::CompareOp as Op;

/// piglit's `parse_comparison_op` (prefix match, `<=` before `<`), except that `!=` means
/// "not equal": piglit's parser maps `!=` to `greater`, so a piglit `!=` probe really checks
/// `observed > expected`. The importer follows the operator's meaning (docs/IMPORT.md).
pub fn comparison(s: &str) -> Option<(Op, &str)> {
    const OPS: &[(&str, Op)] = &[
        ("==", Op::Eq),
        ("!=", Op::Ne),
        ("<=", Op::Le),
        ("<", Op::Lt),
        (">=", Op::Ge),
        (">", Op::Gt),
    ];
    OPS.iter()
        .find_map(|(text, op)| parse_str(s, text).map(|rest| (*op, rest)))
}

/// A value as shader_runner stored it for a GL call or a comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
}

/// The scalar type of a uniform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniformScalar {
    F32,
    F64,
    I32,
    U32,
    I64,
    U64,
}

/// The type of a `uniform` command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniformType {
    Scalar(UniformScalar),
    Vector(UniformScalar, u8),
    /// Columns × rows, values column-major (f32 or f64).
    Matrix(UniformScalar, u8, u8),
}

impl UniformType {
    pub fn scalar(self) -> UniformScalar {
        match self {
            UniformType::Scalar(s) | UniformType::Vector(s, _) | UniformType::Matrix(s, _, _) => s,
        }
    }

    /// How many values glUniform* reads.
    pub fn lanes(self) -> usize {
        match self {
            UniformType::Scalar(_) => 1,
            UniformType::Vector(_, n) => n as usize,
            UniformType::Matrix(_, c, r) => c as usize * r as usize,
        }
    }
}

/// What a `uniform` command names: a uniform by name (`glGetUniformLocation`) or a location
/// (a name starting with a digit, read with `strtol(.., 0)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UniformTarget {
    Name(String),
    Location(i32),
}

/// A `[test]` line shader_runner understands.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `atomic counter buffer B N`: a zeroed buffer of N counters at binding B.
    AtomicCounterBuffer {
        binding: u32,
        count: u32,
    },
    /// `atomic counters N`: a zeroed buffer of N counters at binding 0.
    AtomicCounters {
        count: i32,
    },
    /// `atomic counter B I V`: counter I (4 bytes each) of buffer B set to V.
    AtomicCounterSet {
        binding: u32,
        index: u32,
        value: u32,
    },
    /// `compute X Y Z`
    Compute {
        groups: [i32; 3],
    },
    /// `compute group size X Y Z W H D`
    ComputeGroupSize {
        groups: [i32; 3],
        size: [i32; 3],
    },
    /// `memory barrier GL_X`: the enum name.
    MemoryBarrier {
        name: String,
    },
    /// `probe atomic counter I OP V` (binding 0, byte offset 4·I) or `probe atomic counter
    /// buffer B OFF OP V` (byte offset OFF).
    ProbeAtomicCounter {
        binding: u32,
        offset: u64,
        op: Op,
        value: u32,
    },
    /// `probe ssbo TYPE N OFF OP V`
    ProbeSsbo {
        index: i32,
        offset: i32,
        op: Op,
        value: Value,
    },
    /// `ssbo N SIZE`: a zeroed storage buffer of SIZE bytes at binding N.
    Ssbo {
        index: i32,
        size: i32,
    },
    /// `ssbo N subdata TYPE OFF V`: `value` is None when V is not a number (shader_runner
    /// then writes an uninitialised variable).
    SsboSubdata {
        index: i32,
        offset: i64,
        value: Option<Value>,
    },
    /// `uniform TYPE NAME V...`: `values` are those read (fewer than the type's lanes when
    /// the line is short: shader_runner then passes uninitialised values).
    Uniform {
        ty: UniformType,
        target: UniformTarget,
        values: Vec<Value>,
    },
    /// `uniform handle ...` (ARB_bindless_texture).
    UniformHandle,
    /// `verify program_query GL_X V`: the pname (with `GL_`) and the expected value.
    VerifyProgramQuery {
        pname: String,
        expected: i32,
    },
    LinkError,
    LinkSuccess,
    /// `clear color R G B A`: the values read (shader_runner's `c` is uninitialised past
    /// them); it also adds the colour bit to what `clear` clears.
    ClearColor(Vec<f32>),
    /// `clear`: glClear of the bits the `clear color`/`clear depth` lines before it set.
    Clear,
    /// `fb [draw|read] tex 2d T...`: textures T attached as colour attachments 0, 1, ...
    FbTex2d {
        target: FbTarget,
        textures: Vec<i32>,
    },
    /// `fb [draw|read] winsys`: the window framebuffer again.
    FbWindow(FbTarget),
    /// `image texture N FORMAT`: glBindImageTexture(N, texture N, level 0, not layered,
    /// READ_WRITE, FORMAT).
    ImageTexture {
        unit: i32,
        format: String,
    },
    /// `probe rgb X Y R G B` / `probe rgba X Y R G B A`: one pixel of the read framebuffer;
    /// `values` are those read (X and Y first).
    ProbePixel {
        channels: usize,
        values: Vec<f32>,
    },
    /// `probe rect rgba (X, Y, W, H) (R, G, B, A)` (`rect`), `probe all rgba R G B A` and
    /// `probe all rgb R G B` (the whole read framebuffer); `values` are those read.
    ProbeRect {
        channels: usize,
        rect: Option<[i32; 4]>,
        values: Vec<f32>,
    },
    /// `tolerance A B C D`: piglit_tolerance, the values read (the others keep theirs).
    Tolerance(Vec<f32>),
    /// `texture rgbw N (W, H) [FORMAT]`: piglit_rgbw_texture's quadrants.
    TextureRgbw {
        unit: i32,
        size: [i32; 2],
        format: Option<String>,
    },
    /// `texture integer N (W, H) (B, A) FORMAT`: piglit_integer_texture's values.
    TextureInteger {
        unit: i32,
        size: [i32; 2],
        b: i32,
        a: i32,
        format: String,
    },
    /// `texture miptree N`: piglit_miptree_texture on unit N.
    TextureMiptree {
        unit: i32,
    },
    /// `texparameter TARGET PARAM VALUE`: glTexParameter on the active unit's texture.
    TexParameter(texture::TexParameterCmd),
    /// State only drawing reads (clear colour, projection, tolerance of pixel probes, ...):
    /// what it is.
    DrawState(&'static str),
    /// A command conform has no counterpart for: its class (a skip reason).
    Unsupported(&'static str),
    /// Not a shader_runner command (it fails the test).
    Unknown,
}

/// A note when shader_runner reads a hexadecimal value differently from how it looks:
/// `%d`/`%u`/`%ld`/`%lu` stop at the `x` of `0x10` (the value is 0, except for `probe ssbo
/// uint`'s own `0x%x` form), and `%f`/`%lf` (and `strtod` behind an uppercase `0X`) read
/// `0x3f800000` as a hexadecimal float rather than as bits.
pub fn hex_quirk(line: &str, cmd: &Command) -> Option<String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let hexish = |t: &str| {
        let t = t.trim_start_matches(['+', '-']);
        t.starts_with("0x") || t.starts_with("0X")
    };
    let float_note =
        |t: &str, v: f64| format!("`{t}` is read as the hexadecimal float {v}, not as bits");
    match cmd {
        Command::ProbeSsbo { value, .. } => {
            let t = *tokens.get(6).filter(|t| hexish(t))?;
            match *value {
                Value::F32(v) => Some(float_note(t, v as f64)),
                Value::F64(v) => Some(float_note(t, v)),
                _ if tokens.get(2) == Some(&"uint") && t.starts_with("0x") => None,
                Value::I32(v) => Some(format!("`{t}` is read by %d as {v}")),
                Value::U32(v) => Some(format!("`{t}` is read by %d as {v}")),
                Value::I64(v) => Some(format!("`{t}` is read by %ld as {v}")),
                Value::U64(v) => Some(format!("`{t}` is read by %lu as {v}")),
            }
        }
        Command::ProbeAtomicCounter { value, .. } => {
            let t = *tokens.last().filter(|t| hexish(t))?;
            Some(format!("`{t}` is read by %u as {value}"))
        }
        Command::SsboSubdata {
            value: Some(Value::F32(v)),
            ..
        } => {
            let t = *tokens.get(5).filter(|t| hexish(t))?;
            Some(float_note(t, *v as f64))
        }
        Command::SsboSubdata {
            value: Some(Value::F64(v)),
            ..
        } => {
            let t = *tokens
                .get(5)
                .filter(|t| t.trim_start_matches(['+', '-']).starts_with("0X"))?;
            Some(float_note(t, *v))
        }
        Command::Uniform { ty, .. }
            if matches!(ty.scalar(), UniformScalar::F32 | UniformScalar::F64) =>
        {
            let t = tokens
                .iter()
                .skip(3)
                .find(|t| t.trim_start_matches(['+', '-']).starts_with("0X"))?;
            Some(format!("`{t}` is read as a hexadecimal float, not as bits"))
        }
        _ => None,
    }
}

/// Which binding an `fb` command sets: both (`GL_FRAMEBUFFER`), or only the draw or the
/// read framebuffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FbTarget {
    Both,
    Draw,
    Read,
}

/// Skip reason of drawing, framebuffer, texture, image, transform feedback and pixel-probe
/// commands the importer does not map.
pub const DRAW: &str = "draw/fb/texture/image commands";
/// Skip reason of commands that fill or configure uniform blocks.
pub const UBO: &str = "uniform blocks";

fn ints(args: &[Arg]) -> Vec<i32> {
    args.iter()
        .map(|a| match a {
            Arg::Int(v) => *v,
            Arg::UInt(v) => *v as i32,
            _ => 0,
        })
        .collect()
}

fn uint(a: &Arg) -> u32 {
    match a {
        Arg::UInt(v) => *v,
        Arg::Int(v) => *v as u32,
        _ => 0,
    }
}

fn float(a: &Arg) -> f32 {
    match a {
        Arg::Float(v) => *v,
        _ => 0.0,
    }
}

fn text(a: &Arg) -> &str {
    match a {
        Arg::Str(s) => s,
        _ => "",
    }
}

/// Matches `format` fully: exactly `n` conversions.
fn scanf_n(line: &str, format: &str, n: usize) -> Option<Vec<Arg>> {
    let args = sscanf(line, format);
    (args.len() == n).then_some(args)
}

/// The operator of a probe: shader_runner fails the test when it is not one.
fn op_of(line: &str, token: &str) -> Result<Op, String> {
    comparison(token)
        .map(|(op, _)| op)
        .ok_or_else(|| format!("invalid comparison operation `{token}` in `{line}`"))
}

/// A command shader_runner reads with its own code; None when the line is not one.
type Reader = fn(&str) -> Option<Result<Command, String>>;

/// One test of shader_runner's `piglit_display` chain.
enum Rule {
    /// `parse_str(line, prefix)` gives the command.
    Prefix(&'static str, Command),
    /// `sscanf(line, format) == n` gives the command.
    Scanf(&'static str, usize, Command),
    /// A command with values.
    Read(Reader),
}

/// shader_runner's tests, in its order (the order decides between overlapping patterns:
/// `clear color ` before `clear`, `atomic counter buffer` before `atomic counter`, the
/// `probe ssbo uint ... 0x%x` form before the `%d` one). Texture commands are recognised
/// by prefix: shader_runner matches each with its own pattern and calls a malformed one
/// unknown, and both end in the same skip.
const RULES: &[Rule] = {
    use Command::*;
    use Rule::*;
    &[
        Scanf(
            "active shader program %s",
            1,
            Unsupported("SSO program pipelines"),
        ),
        Read(|l| {
            let a = scanf_n(l, "atomic counter buffer %u %u", 2)?;
            Some(Ok(AtomicCounterBuffer {
                binding: uint(&a[0]),
                count: uint(&a[1]),
            }))
        }),
        Read(|l| {
            let a = scanf_n(l, "atomic counters %d", 1)?;
            Some(Ok(AtomicCounters { count: ints(&a)[0] }))
        }),
        Read(|l| {
            let a = scanf_n(l, "atomic counter %u %u %u", 3)?;
            Some(Ok(AtomicCounterSet {
                binding: uint(&a[0]),
                index: uint(&a[1]),
                value: uint(&a[2]),
            }))
        }),
        Read(|l| {
            let rest = parse_str(l, "clear color ")?;
            Some(Ok(ClearColor(scan::parse_floats(rest, 4))))
        }),
        Prefix("clear depth ", DrawState("clear depth")),
        Prefix("clear", Clear),
        Scanf("clip plane %d %lf %lf %lf %lf", 5, DrawState("clip plane")),
        Prefix("color ", DrawState("color")),
        Read(|l| {
            let g = ints(&scanf_n(l, "compute %d %d %d", 3)?);
            Some(Ok(Compute {
                groups: [g[0], g[1], g[2]],
            }))
        }),
        Read(|l| {
            let g = ints(&scanf_n(l, "compute group size %d %d %d %d %d %d", 6)?);
            Some(Ok(ComputeGroupSize {
                groups: [g[0], g[1], g[2]],
                size: [g[3], g[4], g[5]],
            }))
        }),
        Prefix("draw rect ", Unsupported(DRAW)),
        Prefix("draw instanced rect ", Unsupported(DRAW)),
        Scanf("draw arrays instanced %31s %d %d %d", 4, Unsupported(DRAW)),
        Scanf("draw arrays %31s %d %d", 3, Unsupported(DRAW)),
        Prefix("disable ", Unsupported("enable/disable")),
        Prefix("enable ", Unsupported("enable/disable")),
        Scanf("depthfunc %31s", 1, DrawState("depthfunc")),
        Read(fb),
        Prefix("blit ", Unsupported(DRAW)),
        Prefix("frustum", DrawState("frustum")),
        Prefix("hint", Unsupported("hint")),
        Read(|l| {
            let a = scanf_n(l, "image texture %d %31s", 2)?;
            Some(Ok(ImageTexture {
                unit: ints(&a[..1])[0],
                format: text(&a[1]).to_string(),
            }))
        }),
        Read(|l| {
            let a = scanf_n(l, "memory barrier %s", 1)?;
            let name = text(&a[0]).to_string();
            Some(if is_barrier_enum(&name) {
                Ok(MemoryBarrier { name })
            } else {
                Err(format!(
                    "`{l}`: {name} is not a memory barrier enum (shader_runner aborts)"
                ))
            })
        }),
        Prefix("blend barrier", DrawState("blend barrier")),
        Prefix("fbfetch barrier", DrawState("fbfetch barrier")),
        Prefix("ortho", DrawState("ortho")),
        Scanf(
            "viewport indexed %u %f %f %f %f",
            5,
            DrawState("viewport indexed"),
        ),
        Read(|l| {
            let rest = parse_str(l, "probe rgba ")?;
            Some(Ok(ProbePixel {
                channels: 4,
                values: scan::parse_floats(rest, 6),
            }))
        }),
        Prefix("probe depth ", Unsupported(DRAW)),
        Read(|l| {
            let a = scanf_n(l, "probe atomic counter buffer %u %u %s %u", 4)?;
            Some(op_of(l, text(&a[2])).map(|op| ProbeAtomicCounter {
                binding: uint(&a[0]),
                offset: uint(&a[1]) as u64,
                op,
                value: uint(&a[3]),
            }))
        }),
        Read(|l| {
            let a = scanf_n(l, "probe atomic counter %u %s %u", 3)?;
            // The counter number goes through a GLint and is multiplied by 4.
            let index = uint(&a[0]) as i32 as i64;
            Some(op_of(l, text(&a[1])).map(|op| ProbeAtomicCounter {
                binding: 0,
                offset: (index * 4) as u64,
                op,
                value: uint(&a[2]),
            }))
        }),
        Read(probe_ssbo),
        Scanf(
            "relative probe rgba ( %f , %f ) ( %f , %f , %f , %f )",
            6,
            Unsupported(DRAW),
        ),
        Read(|l| {
            let rest = parse_str(l, "probe rgb ")?;
            Some(Ok(ProbePixel {
                channels: 3,
                values: scan::parse_floats(rest, 5),
            }))
        }),
        Scanf(
            "relative probe rgb ( %f , %f ) ( %f , %f , %f )",
            5,
            Unsupported(DRAW),
        ),
        Read(|l| {
            let a = scanf_n(
                l,
                "probe rect rgba ( %d , %d , %d , %d ) ( %f , %f , %f , %f )",
                8,
            )?;
            let r = ints(&a[..4]);
            Some(Ok(ProbeRect {
                channels: 4,
                rect: Some([r[0], r[1], r[2], r[3]]),
                values: a[4..].iter().map(float).collect(),
            }))
        }),
        Scanf(
            "relative probe rect rgb ( %f , %f , %f , %f ) ( %f , %f , %f )",
            7,
            Unsupported(DRAW),
        ),
        Scanf(
            "relative probe rect rgba ( %f , %f , %f , %f ) ( %f , %f , %f , %f )",
            8,
            Unsupported(DRAW),
        ),
        Scanf(
            "relative probe rect rgba int ( %f , %f , %f , %f ) ( %d , %d , %d , %d )",
            8,
            Unsupported(DRAW),
        ),
        Prefix("polygon mode ", DrawState("polygon mode")),
        Read(|l| {
            let rest = parse_str(l, "probe all rgba ")?;
            Some(Ok(ProbeRect {
                channels: 4,
                rect: None,
                values: scan::parse_floats(rest, 4),
            }))
        }),
        Prefix(
            "probe warn all rgba ",
            Unsupported("probes that warn (a verdict conform lacks)"),
        ),
        Read(|l| {
            let rest = parse_str(l, "probe all rgb")?;
            Some(Ok(ProbeRect {
                channels: 3,
                rect: None,
                values: scan::parse_floats(rest, 3),
            }))
        }),
        Read(|l| {
            let rest = parse_str(l, "tolerance")?;
            Some(Ok(Tolerance(scan::parse_floats(rest, 4))))
        }),
        Prefix("shade model smooth", DrawState("shade model")),
        Prefix("shade model flat", DrawState("shade model")),
        Read(|l| {
            let v = ints(&scanf_n(l, "ssbo %d %d", 2)?);
            Some(Ok(Ssbo {
                index: v[0],
                size: v[1],
            }))
        }),
        Scanf("xfb buffer object %u %u", 2, Unsupported(DRAW)),
        Scanf("xfb draw arrays %31s %d %d", 3, Unsupported(DRAW)),
        Scanf("probe xfb buffer float %u %u %f", 3, Unsupported(DRAW)),
        Scanf("probe xfb buffer double %u %u %lf", 3, Unsupported(DRAW)),
        Read(ssbo_subdata),
        Read(texture_rgbw),
        Read(texture_integer),
        Read(texture::texture_miptree),
        Prefix("texture ", Unsupported(DRAW)),
        Prefix("resident ", Unsupported(DRAW)),
        Prefix("texcoord ", Unsupported(DRAW)),
        Read(texture::texparameter),
        Read(|l| parse_str(l, "uniform ").map(|rest| uniform(l, rest))),
        Prefix("subuniform ", Unsupported("subroutine uniforms")),
        Prefix("parameter ", Unsupported("ARB program parameters")),
        Prefix("patch parameter ", DrawState("patch parameter")),
        Prefix(
            "program binary save restore",
            Unsupported("program binary save/restore"),
        ),
        Prefix("provoking vertex ", DrawState("provoking vertex")),
        Prefix("link error", LinkError),
        Prefix("link success", LinkSuccess),
        Prefix("ubo array index ", Unsupported(UBO)),
        Prefix("block array index ", Unsupported(UBO)),
        Prefix("block binding ", Unsupported(UBO)),
        Prefix("block offset ", Unsupported(UBO)),
        Prefix("block matrix stride", Unsupported(UBO)),
        Prefix("block row major", Unsupported(UBO)),
        Prefix("active uniform ", Unsupported("program interface queries")),
        Read(|l| parse_str(l, "verify program_query").map(|rest| verify_program_query(l, rest))),
        Prefix(
            "verify program_interface_query ",
            Unsupported("program interface queries"),
        ),
        Prefix("verify query_object", Unsupported("query objects")),
        Prefix("vertex attrib ", Unsupported(DRAW)),
        Prefix("newlist ", Unsupported("display lists")),
        Prefix("endlist", Unsupported("display lists")),
        Prefix("calllist", Unsupported("display lists")),
        Prefix("deletelist", Unsupported("display lists")),
        Prefix("viewport swizzle ", DrawState("viewport swizzle")),
    ]
};

/// One `[test]` line (leading whitespace already skipped; not blank, not a comment).
pub fn parse(line: &str) -> Result<Command, String> {
    for rule in RULES {
        match rule {
            Rule::Prefix(prefix, cmd) if parse_str(line, prefix).is_some() => {
                return Ok(cmd.clone())
            }
            Rule::Scanf(format, n, cmd) if scanf_n(line, format, *n).is_some() => {
                return Ok(cmd.clone())
            }
            Rule::Read(read) => {
                if let Some(result) = read(line) {
                    return result;
                }
            }
            _ => {}
        }
    }
    Ok(Command::Unknown)
}

/// Names piglit's `piglit_get_gl_memory_barrier_enum_from_name` knows (GL's MemoryBarrierMask
/// group).
fn is_barrier_enum(name: &str) -> bool {
    let base = name
        .strip_suffix("_EXT")
        .or_else(|| name.strip_suffix("_NV"))
        .unwrap_or(name);
    name.starts_with("GL_") && (base.ends_with("_BARRIER_BIT") || base == "GL_ALL_BARRIER_BITS")
}

/// The value `sscanf` stored, in the matching type.
fn arg_value(a: &Arg) -> Value {
    match a {
        Arg::Int(v) => Value::I32(*v),
        Arg::UInt(v) => Value::U32(*v),
        Arg::Long(v) => Value::I64(*v),
        Arg::ULong(v) => Value::U64(*v),
        Arg::Float(v) => Value::F32(*v),
        Arg::Double(v) => Value::F64(*v),
        Arg::Str(_) => Value::I32(0),
    }
}

/// `fb [draw |read ]SUBCOMMAND`: `tex 2d T...` (read with `parse_int` until it fails, into
/// an array of 32 attachments) and `winsys` are mapped; `tex slice`, `tex layered` and `ms`
/// are not; anything else shader_runner fails.
fn fb(line: &str) -> Option<Result<Command, String>> {
    let rest = parse_str(line, "fb ")?;
    let (target, rest) = if let Some(r) = parse_str(rest, "draw ") {
        (FbTarget::Draw, r)
    } else if let Some(r) = parse_str(rest, "read ") {
        (FbTarget::Read, r)
    } else {
        (FbTarget::Both, rest)
    };
    Some(if let Some(r) = parse_str(rest, "tex 2d ") {
        let textures = scan::parse_ints(r, 33);
        if textures.len() > 32 {
            Ok(Command::Unsupported(
                "more than 32 framebuffer attachments (shader_runner overruns its array)",
            ))
        } else {
            Ok(Command::FbTex2d { target, textures })
        }
    } else if parse_str(rest, "winsys").is_some() {
        Ok(Command::FbWindow(target))
    } else if ["tex slice ", "tex layered", "ms "]
        .iter()
        .any(|p| parse_str(rest, p).is_some())
    {
        Ok(Command::Unsupported(DRAW))
    } else {
        Err(format!(
            "`{line}`: unknown fb subcommand (shader_runner fails the test)"
        ))
    })
}

/// `sscanf(input, format)` with at least `n` conversions; fewer make shader_runner fail the
/// test ("invalid ... command").
fn scanf_at_least(line: &str, input: &str, format: &str, n: usize) -> Result<Vec<Arg>, String> {
    let a = sscanf(input, format);
    if a.len() < n {
        return Err(format!(
            "`{line}`: invalid command (shader_runner fails the test)"
        ));
    }
    Ok(a)
}

/// `texture rgbw N ( W , H ) [FORMAT]`: shader_runner first matches `texture rgbw %d ( %d`,
/// then fails the test unless the height follows.
fn texture_rgbw(line: &str) -> Option<Result<Command, String>> {
    scanf_n(line, "texture rgbw %d ( %d", 2)?;
    let a = match scanf_at_least(line, line, "texture rgbw %d ( %d , %d ) %31s", 3) {
        Ok(a) => a,
        Err(e) => return Some(Err(e)),
    };
    let v = ints(&a[..3]);
    Some(Ok(Command::TextureRgbw {
        unit: v[0],
        size: [v[1], v[2]],
        format: a.get(3).map(|f| text(f).to_string()),
    }))
}

/// `texture integer N ( W , H ) ( B, A ) FORMAT` (sscanf on what follows the prefix; the
/// format is needed).
fn texture_integer(line: &str) -> Option<Result<Command, String>> {
    let rest = parse_str(line, "texture integer ")?;
    let a = match scanf_at_least(line, rest, "%d ( %d , %d ) ( %d, %d ) %31s", 6) {
        Ok(a) => a,
        Err(e) => return Some(Err(e)),
    };
    let v = ints(&a[..5]);
    Some(Ok(Command::TextureInteger {
        unit: v[0],
        size: [v[1], v[2]],
        b: v[3],
        a: v[4],
        format: text(&a[5]).to_string(),
    }))
}

/// The `probe ssbo` patterns, in shader_runner's order.
fn probe_ssbo(line: &str) -> Option<Result<Command, String>> {
    const PATTERNS: &[&str] = &[
        "probe ssbo uint %d %d %s 0x%x",
        "probe ssbo uint %d %d %s %d",
        "probe ssbo uint64 %d %d %s %lu",
        "probe ssbo int %d %d %s %d",
        "probe ssbo int64 %d %d %s %ld",
        "probe ssbo double %d %d %s %lf",
        "probe ssbo float %d %d %s %f",
    ];
    for format in PATTERNS {
        if let Some(a) = scanf_n(line, format, 4) {
            let at = ints(&a[..2]);
            // `probe ssbo uint ... %d` reads an int and compares it as uint32_t.
            let value = match arg_value(&a[3]) {
                Value::I32(v) if format.starts_with("probe ssbo uint ") => Value::U32(v as u32),
                v => v,
            };
            return Some(op_of(line, text(&a[2])).map(|op| Command::ProbeSsbo {
                index: at[0],
                offset: at[1],
                op,
                value,
            }));
        }
    }
    None
}

/// The `ssbo N subdata` patterns, in shader_runner's order (there is no `uint` form).
fn ssbo_subdata(line: &str) -> Option<Result<Command, String>> {
    let (index, offset, value) = if let Some(a) = scanf_n(line, "ssbo %d subdata float %d %f", 3) {
        let v = match a[2] {
            Arg::Float(f) => f,
            _ => 0.0,
        };
        (
            ints(&a[..1])[0],
            ints(&a[1..2])[0] as i64,
            Some(Value::F32(v)),
        )
    } else if let Some(a) = scanf_n(line, "ssbo %d subdata double %d %s", 3) {
        let v = scan::parse_doubles(text(&a[2]), 1)
            .first()
            .map(|&d| Value::F64(d));
        (ints(&a[..1])[0], ints(&a[1..2])[0] as i64, v)
    } else if let Some(a) = scanf_n(line, "ssbo %d subdata int64 %ld %s", 3) {
        let Ok(v) = scan::parse_int64s(text(&a[2]), 1) else {
            return Some(Err(format!(
                "`{line}`: the int64 value overflows (shader_runner asserts)"
            )));
        };
        let offset = match a[1] {
            Arg::Long(o) => o,
            _ => 0,
        };
        (ints(&a[..1])[0], offset, v.first().map(|&v| Value::I64(v)))
    } else if let Some(a) = scanf_n(line, "ssbo %d subdata uint64 %lu %s", 3) {
        let v = scan::parse_uint64s(text(&a[2]), 1);
        // The offset is an unsigned long passed as a GLintptr.
        let offset = match a[1] {
            Arg::ULong(o) => o as i64,
            _ => 0,
        };
        (ints(&a[..1])[0], offset, v.first().map(|&v| Value::U64(v)))
    } else if let Some(a) = scanf_n(line, "ssbo %d subdata int %d %s", 3) {
        let v = scan::parse_ints(text(&a[2]), 1);
        (
            ints(&a[..1])[0],
            ints(&a[1..2])[0] as i64,
            v.first().map(|&v| Value::I32(v)),
        )
    } else {
        return None;
    };
    Some(Ok(Command::SsboSubdata {
        index,
        offset,
        value,
    }))
}

/// `uniform TYPE NAME VALUES`, as `set_uniform` reads it (types are `parse_str` prefixes,
/// tried in its order; vector and matrix sizes are single characters after the prefix).
fn uniform(line: &str, rest: &str) -> Result<Command, String> {
    use UniformScalar::*;
    let bad = || format!("invalid uniform command `{line}`");
    let (ty, rest) = parse_word(rest).ok_or_else(bad)?;
    let (name, values) = parse_word(rest).ok_or_else(bad)?;
    let target = if name.as_bytes()[0].is_ascii_digit() {
        UniformTarget::Location(scan::strtol(name, 0).map_or(0, |(v, _)| v as i32))
    } else {
        UniformTarget::Name(name.to_string())
    };
    let digit = |at: usize| {
        ty.as_bytes()
            .get(at)
            .filter(|c| (b'2'..=b'4').contains(c))
            .map(|c| c - b'0')
    };
    let vector = |prefix: &str, s: UniformScalar| {
        ty.strip_prefix(prefix)
            .and_then(|_| digit(prefix.len()))
            .map(|n| UniformType::Vector(s, n))
    };
    let matrix = |prefix: &str, s: UniformScalar| {
        ty.strip_prefix(prefix)?;
        let cols = digit(prefix.len())?;
        let rows = if ty.as_bytes().get(prefix.len() + 1) == Some(&b'x') {
            digit(prefix.len() + 2)?
        } else {
            cols
        };
        Some(UniformType::Matrix(s, cols, rows))
    };
    let scalar =
        |prefix: &str, s: UniformScalar| ty.starts_with(prefix).then_some(UniformType::Scalar(s));
    // set_uniform's order; a known prefix with a bad size falls out as an unknown type.
    let ty_parsed = if ty.starts_with("float") {
        scalar("float", F32)
    } else if ty.starts_with("int64_t") {
        scalar("int64_t", I64)
    } else if ty.starts_with("uint64_t") {
        scalar("uint64_t", U64)
    } else if ty.starts_with("int") {
        scalar("int", I32)
    } else if ty.starts_with("uint") {
        scalar("uint", U32)
    } else if ty.starts_with("double") {
        scalar("double", F64)
    } else if ty.starts_with("vec") {
        vector("vec", F32)
    } else if ty.starts_with("ivec") {
        vector("ivec", I32)
    } else if ty.starts_with("uvec") {
        vector("uvec", U32)
    } else if ty.starts_with("dvec") {
        vector("dvec", F64)
    } else if ty.starts_with("i64vec") {
        vector("i64vec", I64)
    } else if ty.starts_with("u64vec") {
        vector("u64vec", U64)
    } else if ty.starts_with("mat") && ty.len() > 3 {
        matrix("mat", F32)
    } else if ty.starts_with("dmat") && ty.len() > 4 {
        matrix("dmat", F64)
    } else if ty.starts_with("handle") {
        return Ok(Command::UniformHandle);
    } else {
        None
    };
    let Some(ty) = ty_parsed else {
        return Err(format!(
            "`{line}`: unknown uniform type `{ty}` (shader_runner fails the test)"
        ));
    };
    let n = ty.lanes();
    fn wrap<T>(values: Vec<T>, f: impl Fn(T) -> Value) -> Vec<Value> {
        values.into_iter().map(f).collect()
    }
    let values = match ty.scalar() {
        F32 => wrap(scan::parse_floats(values, n), Value::F32),
        F64 => wrap(scan::parse_doubles(values, n), Value::F64),
        I32 => wrap(scan::parse_ints(values, n), Value::I32),
        U32 => wrap(scan::parse_uints(values, n), Value::U32),
        I64 => wrap(
            scan::parse_int64s(values, n).map_err(|_| {
                format!("`{line}`: an int64 value overflows (shader_runner asserts)")
            })?,
            Value::I64,
        ),
        U64 => wrap(scan::parse_uint64s(values, n), Value::U64),
    };
    Ok(Command::Uniform { ty, target, values })
}

/// `verify program_query GL_PNAME V`: the pnames and value enums shader_runner's table has.
fn verify_program_query(line: &str, rest: &str) -> Result<Command, String> {
    const PNAMES: &[&str] = &[
        "GL_DELETE_STATUS",
        "GL_LINK_STATUS",
        "GL_VALIDATE_STATUS",
        "GL_INFO_LOG_LENGTH",
        "GL_ATTACHED_SHADERS",
        "GL_ACTIVE_ATOMIC_COUNTER_BUFFERS",
        "GL_ACTIVE_ATTRIBUTES",
        "GL_ACTIVE_ATTRIBUTE_MAX_LENGTH",
        "GL_ACTIVE_UNIFORMS",
        "GL_ACTIVE_UNIFORM_BLOCKS",
        "GL_ACTIVE_UNIFORM_BLOCK_MAX_NAME_LENGTH",
        "GL_ACTIVE_UNIFORM_MAX_LENGTH",
        "GL_COMPUTE_WORK_GROUP_SIZE",
        "GL_PROGRAM_BINARY_LENGTH",
        "GL_TRANSFORM_FEEDBACK_BUFFER_MODE",
        "GL_TRANSFORM_FEEDBACK_VARYINGS",
        "GL_TRANSFORM_FEEDBACK_VARYING_MAX_LENGTH",
        "GL_GEOMETRY_VERTICES_OUT",
        "GL_GEOMETRY_INPUT_TYPE",
        "GL_GEOMETRY_OUTPUT_TYPE",
    ];
    const VALUES: &[(&str, i32)] = &[
        ("GL_TRUE", 1),
        ("GL_FALSE", 0),
        ("GL_SEPARATE_ATTRIBS", 0x8C8D),
        ("GL_INTERLEAVED_ATTRIBS", 0x8C8C),
        ("GL_POINTS", 0x0000),
        ("GL_LINES", 0x0001),
        ("GL_LINES_ADJACENCY", 0x000A),
        ("GL_TRIANGLES", 0x0004),
        ("GL_TRIANGLES_ADJACENCY", 0x000C),
        ("GL_LINE_STRIP", 0x0003),
        ("GL_TRIANGLE_STRIP", 0x0005),
        ("GL_COMPUTE_WORK_GROUP_SIZE", 0x8267),
    ];
    let (pname, rest) = parse_word(rest)
        .filter(|(w, _)| PNAMES.contains(w))
        .ok_or_else(|| {
            format!("`{line}`: bad glGetProgram pname (shader_runner fails the test)")
        })?;
    let expected = match parse_word(rest) {
        Some((w, _)) if VALUES.iter().any(|(n, _)| *n == w) => {
            VALUES.iter().find(|(n, _)| *n == w).map_or(0, |(_, v)| *v)
        }
        _ => *scan::parse_ints(rest, 1).first().ok_or_else(|| {
            format!("`{line}`: bad expected value (shader_runner fails the test)")
        })?,
    };
    Ok(Command::VerifyProgramQuery {
        pname: pname.to_string(),
        expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Command::*;

    fn p(line: &str) -> Command {
        parse(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn comparisons_follow_the_operator_not_piglits_parser() {
        assert_eq!(comparison("== 1"), Some((Op::Eq, " 1")));
        assert_eq!(comparison("!= 1").map(|x| x.0), Some(Op::Ne));
        assert_eq!(comparison("<= 1").map(|x| x.0), Some(Op::Le));
        assert_eq!(comparison("< 1").map(|x| x.0), Some(Op::Lt));
        assert_eq!(comparison(">= 1").map(|x| x.0), Some(Op::Ge));
        assert_eq!(comparison("> 1").map(|x| x.0), Some(Op::Gt));
        assert_eq!(comparison("=< 1"), None);
    }

    #[test]
    fn compute_and_group_size() {
        assert_eq!(p("compute 1 2 3"), Compute { groups: [1, 2, 3] });
        assert_eq!(
            p("compute 4 1 1 # trailing text is ignored"),
            Compute { groups: [4, 1, 1] }
        );
        assert_eq!(
            p("compute group size 1 2 3 4 5 6"),
            ComputeGroupSize {
                groups: [1, 2, 3],
                size: [4, 5, 6]
            }
        );
        assert_eq!(p("compute 1 1"), Unknown);
    }

    #[test]
    fn ssbo_creation_and_every_subdata_type() {
        assert_eq!(p("ssbo 2 64"), Ssbo { index: 2, size: 64 });
        let sub = |line: &str| match p(line) {
            SsboSubdata {
                index,
                offset,
                value,
            } => (index, offset, value),
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(sub("ssbo 0 subdata int 4 -7"), (0, 4, Some(Value::I32(-7))));
        assert_eq!(
            sub("ssbo 0 subdata int 4 0x10"),
            (0, 4, Some(Value::I32(16)))
        );
        assert_eq!(sub("ssbo 0 subdata int 4 010"), (0, 4, Some(Value::I32(8))));
        assert_eq!(
            sub("ssbo 1 subdata float 8 1.5"),
            (1, 8, Some(Value::F32(1.5)))
        );
        // %f reads 0x3f800000 as a hexadecimal float, not as bits.
        assert_eq!(
            sub("ssbo 1 subdata float 8 0x3f800000"),
            (1, 8, Some(Value::F32(1_065_353_216.0)))
        );
        assert_eq!(
            sub("ssbo 1 subdata double 8 0x3ff0000000000000"),
            (1, 8, Some(Value::F64(1.0)))
        );
        assert_eq!(
            sub("ssbo 1 subdata int64 16 -2"),
            (1, 16, Some(Value::I64(-2)))
        );
        assert_eq!(
            sub("ssbo 1 subdata uint64 16 0xffffffffffffffff"),
            (1, 16, Some(Value::U64(u64::MAX)))
        );
        assert_eq!(sub("ssbo 1 subdata int 0 abc"), (1, 0, None));
        // No uint form: shader_runner calls it an unknown command.
        assert_eq!(p("ssbo 0 subdata uint 0 1"), Unknown);
        assert!(parse("ssbo 0 subdata int64 0 99999999999999999999").is_err());
    }

    #[test]
    fn probes_of_every_type() {
        let probe = |line: &str| match p(line) {
            ProbeSsbo {
                index,
                offset,
                op,
                value,
            } => (index, offset, op, value),
            other => panic!("{line}: {other:?}"),
        };
        let cases = [
            (
                "probe ssbo uint 0 4 == 0xff",
                (0, 4, Op::Eq, Value::U32(255)),
            ),
            (
                "probe ssbo uint 0 4 != -1",
                (0, 4, Op::Ne, Value::U32(u32::MAX)),
            ),
            // %d stops at the X: piglit compares with 0.
            ("probe ssbo uint 0 4 == 0X10", (0, 4, Op::Eq, Value::U32(0))),
            ("probe ssbo int 1 0 < -3", (1, 0, Op::Lt, Value::I32(-3))),
            ("probe ssbo int64 1 8 >= -3", (1, 8, Op::Ge, Value::I64(-3))),
            (
                "probe ssbo uint64 1 8 > 18446744073709551615",
                (1, 8, Op::Gt, Value::U64(u64::MAX)),
            ),
            (
                "probe ssbo float 0 0 <= 0.5",
                (0, 0, Op::Le, Value::F32(0.5)),
            ),
            (
                "probe ssbo double 0 0 == 0.1",
                (0, 0, Op::Eq, Value::F64(0.1)),
            ),
        ];
        for (line, want) in cases {
            assert_eq!(probe(line), want, "{line}");
        }
        assert!(parse("probe ssbo uint 0 0 =! 1").is_err());
    }

    #[test]
    fn atomic_counter_commands() {
        assert_eq!(p("atomic counters 3"), AtomicCounters { count: 3 });
        assert_eq!(
            p("atomic counter buffer 2 4"),
            AtomicCounterBuffer {
                binding: 2,
                count: 4
            }
        );
        assert_eq!(
            p("atomic counter 2 1 -1"),
            AtomicCounterSet {
                binding: 2,
                index: 1,
                value: u32::MAX
            }
        );
        assert_eq!(
            p("probe atomic counter 3 == 7"),
            ProbeAtomicCounter {
                binding: 0,
                offset: 12,
                op: Op::Eq,
                value: 7
            }
        );
        assert_eq!(
            p("probe atomic counter buffer 2 8 != 7"),
            ProbeAtomicCounter {
                binding: 2,
                offset: 8,
                op: Op::Ne,
                value: 7
            }
        );
    }

    #[test]
    fn uniforms_of_every_type() {
        use UniformScalar::*;
        let u = |line: &str| match p(line) {
            Uniform { ty, target, values } => (ty, target, values),
            other => panic!("{line}: {other:?}"),
        };
        let name = |n: &str| UniformTarget::Name(n.into());
        assert_eq!(u("uniform int x -3").0, UniformType::Scalar(I32));
        assert_eq!(u("uniform int x 0x10").2, vec![Value::I32(16)]);
        assert_eq!(u("uniform uint x -1").2, vec![Value::U32(u32::MAX)]);
        assert_eq!(u("uniform float x 0x3f800000").2, vec![Value::F32(1.0)]);
        assert_eq!(u("uniform double x 0.25").0, UniformType::Scalar(F64));
        assert_eq!(u("uniform int64_t x -5").2, vec![Value::I64(-5)]);
        assert_eq!(u("uniform uint64_t x 5").0, UniformType::Scalar(U64));
        assert_eq!(u("uniform vec4 v 1 2 3 4").0, UniformType::Vector(F32, 4));
        assert_eq!(u("uniform ivec2 v 1 2").0, UniformType::Vector(I32, 2));
        assert_eq!(u("uniform uvec3 v 1 2 3").0, UniformType::Vector(U32, 3));
        assert_eq!(u("uniform dvec2 v 1 2").0, UniformType::Vector(F64, 2));
        assert_eq!(u("uniform i64vec2 v 1 2").0, UniformType::Vector(I64, 2));
        assert_eq!(
            u("uniform u64vec4 v 1 2 3 4").0,
            UniformType::Vector(U64, 4)
        );
        assert_eq!(
            u("uniform mat2 m 1 2 3 4").0,
            UniformType::Matrix(F32, 2, 2)
        );
        assert_eq!(
            u("uniform mat3x2 m 1 2 3 4 5 6").0,
            UniformType::Matrix(F32, 3, 2)
        );
        assert_eq!(
            u("uniform dmat2x4 m 1 2 3 4 5 6 7 8").0,
            UniformType::Matrix(F64, 2, 4)
        );
        assert_eq!(u("uniform int a[2] 1").1, name("a[2]"));
        assert_eq!(u("uniform int 0x3 1").1, UniformTarget::Location(3));
        // A short line: fewer values than the type has.
        assert_eq!(u("uniform vec4 v 1 2").2.len(), 2);
        assert_eq!(p("uniform handle h 0"), UniformHandle);
        assert!(parse("uniform bool b 1").is_err());
        assert!(parse("uniform vec5 v 1").is_err());
        assert!(parse("uniform int").is_err());
    }

    #[test]
    fn queries_links_and_barriers() {
        assert_eq!(
            p("verify program_query GL_ACTIVE_UNIFORMS 3"),
            VerifyProgramQuery {
                pname: "GL_ACTIVE_UNIFORMS".into(),
                expected: 3
            }
        );
        assert_eq!(
            p("verify program_query GL_LINK_STATUS GL_TRUE"),
            VerifyProgramQuery {
                pname: "GL_LINK_STATUS".into(),
                expected: 1
            }
        );
        assert!(parse("verify program_query GL_NOPE 1").is_err());
        assert!(parse("verify program_query GL_LINK_STATUS maybe").is_err());
        assert_eq!(p("link error"), LinkError);
        assert_eq!(p("link success"), LinkSuccess);
        assert_eq!(
            p("memory barrier GL_SHADER_STORAGE_BARRIER_BIT"),
            MemoryBarrier {
                name: "GL_SHADER_STORAGE_BARRIER_BIT".into()
            }
        );
        assert!(parse("memory barrier GL_NOT_A_BARRIER").is_err());
    }

    #[test]
    fn hexadecimal_traps_are_noted() {
        let note = |line: &str| hex_quirk(line, &p(line));
        assert_eq!(note("probe ssbo uint 0 0 == 0x10"), None);
        assert_eq!(
            note("probe ssbo uint 0 0 == 0X10").as_deref(),
            Some("`0X10` is read by %d as 0")
        );
        assert_eq!(
            note("probe ssbo int 0 0 == 0x10").as_deref(),
            Some("`0x10` is read by %d as 0")
        );
        assert_eq!(
            note("probe atomic counter 0 == 0x10").as_deref(),
            Some("`0x10` is read by %u as 0")
        );
        assert_eq!(
            note("ssbo 0 subdata float 0 0x3f800000").as_deref(),
            Some("`0x3f800000` is read as the hexadecimal float 1065353216, not as bits")
        );
        assert_eq!(note("ssbo 0 subdata double 0 0x3ff0000000000000"), None);
        assert!(note("uniform float f 0X3f800000").is_some());
        assert_eq!(note("uniform float f 0x3f800000"), None);
        assert_eq!(note("compute 1 1 1"), None);
    }

    #[test]
    fn drawing_and_the_rest_are_classed() {
        assert_eq!(p("ortho"), DrawState("ortho"));
        assert_eq!(p("clear depth 1.0"), DrawState("clear depth"));
        for draw in [
            "draw rect -1 -1 2 2",
            "draw arrays GL_TRIANGLES 0 3",
            "relative probe rgb (0.5, 0.5) (1, 0, 0)",
            "fb tex slice 2D 0 0 0",
            "texture rgbw 1D 0",
            "texture checkerboard 0 0 (8, 8) (1, 0, 0, 1) (0, 1, 0, 1)",
            "xfb buffer object 0 16",
            "vertex attrib piglit_vertex 2 float",
        ] {
            assert_eq!(p(draw), Unsupported(DRAW), "{draw}");
        }
        assert_eq!(p("texture miptree 0"), TextureMiptree { unit: 0 });
        assert_eq!(p("enable GL_BLEND"), Unsupported("enable/disable"));
        assert_eq!(p("block binding 2"), Unsupported(UBO));
        assert_eq!(
            p("subuniform GL_VERTEX_SHADER f g"),
            Unsupported("subroutine uniforms")
        );
        assert_eq!(
            p("active shader program GL_COMPUTE_SHADER"),
            Unsupported("SSO program pipelines")
        );
        assert_eq!(p("newlist GL_COMPILE"), Unsupported("display lists"));
        assert_eq!(p("frobnicate"), Unknown);
    }

    /// The texture, framebuffer and pixel-probe commands, read with shader_runner's patterns.
    #[test]
    fn texture_and_pixel_commands_read_as_shader_runner_reads_them() {
        assert_eq!(p("clear color 0 0.5 1"), ClearColor(vec![0.0, 0.5, 1.0]));
        assert_eq!(p("clear"), Clear);
        assert_eq!(p("tolerance 0.1 0.2"), Tolerance(vec![0.1, 0.2]));
        assert_eq!(
            p("texture rgbw 0 (15, 1) GL_RGBA8"),
            TextureRgbw {
                unit: 0,
                size: [15, 1],
                format: Some("GL_RGBA8".into())
            }
        );
        assert_eq!(
            p("texture rgbw 2 ( 4 , 8 )"),
            TextureRgbw {
                unit: 2,
                size: [4, 8],
                format: None
            }
        );
        assert!(parse("texture rgbw 0 (4)").is_err(), "no height: a FAIL");
        assert_eq!(
            p("texture integer 1 (2,2) (2,10) GL_R32I"),
            TextureInteger {
                unit: 1,
                size: [2, 2],
                b: 2,
                a: 10,
                format: "GL_R32I".into()
            }
        );
        // `( %d, %d )`: the comma must follow the number directly.
        assert!(parse("texture integer 1 (2,2) (2 ,10) GL_R32I").is_err());
        assert_eq!(
            p("image texture 3 GL_RGBA8"),
            ImageTexture {
                unit: 3,
                format: "GL_RGBA8".into()
            }
        );
        assert_eq!(
            p("fb tex 2d 0 1"),
            FbTex2d {
                target: FbTarget::Both,
                textures: vec![0, 1]
            }
        );
        assert_eq!(
            p("fb read tex 2d 2"),
            FbTex2d {
                target: FbTarget::Read,
                textures: vec![2]
            }
        );
        assert_eq!(p("fb draw winsys"), FbWindow(FbTarget::Draw));
        assert!(parse("fb frob").is_err());
        assert_eq!(
            p("probe rgb 1 0 0.0 1.0 0.0 1.0"),
            ProbePixel {
                channels: 3,
                values: vec![1.0, 0.0, 0.0, 1.0, 0.0]
            }
        );
        assert_eq!(
            p("probe rgba 0 0 1 0 0"),
            ProbePixel {
                channels: 4,
                values: vec![0.0, 0.0, 1.0, 0.0, 0.0]
            }
        );
        assert_eq!(
            p("probe rect rgba (1, 2, 3, 4) (0.5, 0, 0, 1)"),
            ProbeRect {
                channels: 4,
                rect: Some([1, 2, 3, 4]),
                values: vec![0.5, 0.0, 0.0, 1.0]
            }
        );
        assert_eq!(
            p("probe all rgba 1 0 0 0"),
            ProbeRect {
                channels: 4,
                rect: None,
                values: vec![1.0, 0.0, 0.0, 0.0]
            }
        );
        assert_eq!(
            p("probe all rgb 0 1 0"),
            ProbeRect {
                channels: 3,
                rect: None,
                values: vec![0.0, 1.0, 0.0]
            }
        );
        // There is no `probe rect rgb`: shader_runner fails the line as unknown.
        assert_eq!(p("probe rect rgb (0, 0, 1, 1) (1, 0, 0)"), Unknown);
        assert_eq!(
            p("probe warn all rgba 1 0 0 0"),
            Unsupported("probes that warn (a verdict conform lacks)")
        );
    }
}
