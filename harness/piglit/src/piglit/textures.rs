//! shader_runner's textures, image units, framebuffers and pixel probes → conform images
//! and texel expectations.
//!
//! - `texture rgbw N (W, H) [FORMAT]` is `piglit_rgbw_texture(FORMAT, W, H, no mipmaps, no
//!   alpha, GL_UNSIGNED_NORMALIZED)` (tests/util/piglit-util-gl.c): `piglit_rgbw_image`'s
//!   quadrants red (x < W/2, y < H/2), green (y < H/2), blue (x < W/2) and white, every alpha
//!   1, uploaded as floats with glTexImage2D (in GL ES as `piglit_rgbw_image_ubyte`'s bytes).
//! - `texture integer N (W, H) (B, A) FORMAT` is `piglit_integer_texture`: per texel (x, y)
//!   R = x + y·B + A for one channel, (x + B, y + A) for two, (x, y, B, A) for four, with
//!   glTexStorage2D.
//! - `image texture N FORMAT` is glBindImageTexture(N, texture N, 0, GL_FALSE, 0,
//!   GL_READ_WRITE, FORMAT): the texture becomes conform's image `texN` on unit N.
//! - `fb tex 2d N...` attaches textures to the draw and read framebuffers; `clear` clears
//!   the draw attachments to the `clear color`; probes read the read framebuffer's first
//!   attachment.
//! - Pixel probes compare with `piglit_tolerance`, which shader_runner never derives from
//!   the framebuffer: it is piglit-util-gl.c's initial {0.01, 0.01, 0.01, 0.01} unless a
//!   `tolerance` line sets it (`piglit_set_tolerance_for_bits` has no caller in
//!   shader_runner). `probe rgb`/`probe rgba` read one pixel as floats
//!   (`piglit_probe_pixel_rgb[a]`: the texel passes when |c/255 - e| <= t in float);
//!   `probe all`/`probe rect` go through `probe_rect`, which on an 8-bit framebuffer of a
//!   context listing GL_ARB_framebuffer_object reads bytes (`probe_rect_ubyte`: |c -
//!   (GLubyte)(e·255)| <= ceil(t·255)) and otherwise floats as above (`probe_rect_float`;
//!   always so in GL ES, where that extension is never listed). Either way the texels that
//!   pass form a range of bytes per channel, written as two `compare` expectations (`>=` the
//!   lowest, `<=` the highest) on the `rgba8` texels.

use super::case::{Check, Entry, Expectation, Image, Item, Origin, SampledTexture};
use super::command::{Command, FbTarget, Op};
use super::outcome::Skip;
use super::parse::Line;
use super::sampled;
use crate::yaml::f32_text;
use conform_plan::{ImageFormat, SamplerState};
use std::collections::BTreeMap;

/// conform's image units (the least MAX_IMAGE_UNITS GL guarantees).
const IMAGE_UNITS: i32 = 8;
/// The image formats of GL ES (ES 3.2 §8.22, Table 8.27) that conform has.
const ES_IMAGE_FORMATS: [ImageFormat; 8] = [
    ImageFormat::Rgba32f,
    ImageFormat::Rgba16f,
    ImageFormat::R32f,
    ImageFormat::Rgba32ui,
    ImageFormat::R32ui,
    ImageFormat::Rgba32i,
    ImageFormat::R32i,
    ImageFormat::Rgba8,
];
/// The largest texture the importer writes out as data (texels).
const MAX_TEXELS: u64 = 1 << 16;

/// A texture shader_runner made, as the walk knows it.
struct Texture {
    size: [u32; 2],
    format: ImageFormat,
    /// Texel values lane by lane, as YAML.
    data: Vec<String>,
    origin: Origin,
    /// glTexStorage (immutable): only those can be image units in GL ES.
    immutable: bool,
    /// The `image texture` line that bound it.
    bound: Option<Origin>,
    /// A line that needs it in conform's case (a probe or a clear of it).
    used: Option<usize>,
    /// The levels after level 0 (`data`), for a sampled texture.
    more_levels: Vec<Vec<String>>,
    /// Its sampler state, and the `texparameter` lines that changed it.
    sampler: SamplerState,
    texparameters: Vec<Origin>,
}

/// What a framebuffer binding reads or draws.
#[derive(Clone, Debug, PartialEq)]
enum Fb {
    Window,
    Textures(Vec<i32>),
}

/// shader_runner's texture and framebuffer state.
pub(super) struct Textures {
    textures: BTreeMap<i32, Texture>,
    /// `clear color` values read: None before any (glClear then has no colour bit).
    clear_color: Option<Vec<f32>>,
    draw: Fb,
    read: Fb,
    tolerance: [f32; 4],
    /// A GL ES context: different texture uploads, float probes.
    es: bool,
    /// The header line of a program that declares a sampler, if one does.
    sampler: Option<usize>,
    /// Whether a program declares an image.
    images: bool,
    /// The unit of the last `texture` command (its glActiveTexture), where `texparameter`
    /// applies.
    active: Option<i32>,
}

impl Textures {
    /// `sampler`: the line of a program that declares a sampler (its textures are then
    /// sampled textures); `images`: whether a program declares an image.
    pub(super) fn new(es: bool, sampler: Option<usize>, images: bool) -> Self {
        Textures {
            textures: BTreeMap::new(),
            clear_color: None,
            draw: Fb::Window,
            read: Fb::Window,
            tolerance: [0.01; 4],
            es,
            sampler,
            images,
            active: None,
        }
    }

    /// Applies a texture, framebuffer or pixel-probe command; `dispatched` says whether a
    /// dispatch ran before it. Returns what it left out (a window clear), if anything.
    pub(super) fn command(
        &mut self,
        l: &Line<Command>,
        item: &mut Item,
        dispatched: bool,
    ) -> Result<Option<String>, Skip> {
        match &l.item {
            Command::TextureRgbw { unit, size, format } => {
                let size = self.new_texture(l, *unit, *size, dispatched)?;
                let format = match format {
                    Some(name) => image_format(l, name)?,
                    // Sampled only: its 0 and 1 read the same in any storage (sampled.rs).
                    None if self.sampler.is_some() && !self.images => ImageFormat::Rgba8,
                    None => {
                        return Err(Skip::at(l, "a texture of unsized format GL_RGBA")
                            .why("its storage is the driver's choice"))
                    }
                };
                let data = rgbw(l, size, format)?;
                if self.es && format != ImageFormat::Rgba8 {
                    return Err(Skip::at(l, "a float rgbw texture in GL ES")
                        .why("piglit uploads bytes there, which float formats do not take"));
                }
                self.insert(l, *unit, size, format, data, false);
                item.note = Some(self.becomes(*unit));
            }
            Command::TextureMiptree { unit } => {
                let size = self.new_texture(l, *unit, [8, 8], dispatched)?;
                let mut levels = sampled::miptree_levels();
                let data = levels.remove(0);
                self.insert(l, *unit, size, ImageFormat::Rgba8, data, false);
                let t = self.textures.get_mut(unit).expect("just inserted");
                t.more_levels = levels;
                t.sampler = sampled::miptree_sampler();
                item.note = Some(self.becomes(*unit));
            }
            Command::TexParameter(p) => {
                if dispatched {
                    return Err(Skip::at(l, "a texparameter after a dispatch")
                        .why("conform sets a texture's state before the first step"));
                }
                let Some(unit) = self.active else {
                    return Err(
                        Skip::at(l, "a texparameter of a texture conform never made").why(
                            "no `texture` command before it: it sets unit 0's default texture",
                        ),
                    );
                };
                if p.target != "2D" {
                    return Err(Skip::at(l, "a texparameter of a target other than 2D").why(
                        "it sets a texture bound to another target, which conform does not make",
                    ));
                }
                let t = self
                    .textures
                    .get_mut(&unit)
                    .expect("the active unit's texture");
                if let Err(name) = sampled::apply(&mut t.sampler, &p.param) {
                    return Err(Skip::at(l, format!("texparameter {name}"))
                        .why("conform's textures do not carry it"));
                }
                t.texparameters.push(origin(l));
                item.note = Some(format!("sets texture tex{unit}'s sampler state"));
            }
            Command::TextureInteger {
                unit,
                size,
                b,
                a,
                format,
            } => {
                let size = self.new_texture(l, *unit, *size, dispatched)?;
                let format = image_format(l, format)?;
                let data = integer(l, size, format, *b, *a)?;
                self.insert(l, *unit, size, format, data, true);
                item.note = Some(self.becomes(*unit));
            }
            Command::ImageTexture { unit, .. } if !self.images && self.sampler.is_some() => {
                self.texture(l, *unit, "an image unit bound to")?;
                item.note = Some(
                    "no program declares an image, so the binding changes nothing a shader reads; \
                     shader_runner checks no GL error here"
                        .into(),
                );
            }
            Command::ImageTexture { unit, format } => self.bind(l, *unit, format, dispatched)?,
            Command::FbTex2d { target, textures } => {
                if textures.is_empty() {
                    return Err(Skip::at(l, "fb tex 2d without a texture")
                        .why("shader_runner reads an uninitialised texture number"));
                }
                for t in textures {
                    self.texture(l, *t, "a framebuffer of")?;
                }
                self.set_fb(*target, Fb::Textures(textures.clone()));
                item.note = Some("the framebuffer clears and probes use".into());
            }
            Command::FbWindow(target) => {
                self.set_fb(*target, Fb::Window);
                item.note = Some("the framebuffer clears and probes use".into());
            }
            Command::ClearColor(values) => {
                self.clear_color = Some(values.clone());
                item.note = Some("the colour `clear` uses".into());
            }
            Command::Clear => return self.clear(l, item, dispatched),
            Command::Tolerance(values) => {
                for (t, v) in self.tolerance.iter_mut().zip(values) {
                    *t = *v;
                }
                item.note = Some("piglit_tolerance, for pixel probes".into());
            }
            Command::ProbePixel { channels, values } => {
                if values.len() < channels + 2 {
                    return Err(Skip::at(l, "a pixel probe with fewer values than it reads")
                        .why("shader_runner compares with uninitialised ones"));
                }
                let (x, y) = (values[0], values[1]);
                let at = [x, y].map(|v| {
                    // (int) of the float: defined only within int's range.
                    (v.is_finite() && v > i32::MIN as f32 && v < i32::MAX as f32)
                        .then_some(v as i32)
                });
                let [Some(x), Some(y)] = at else {
                    return Err(Skip::at(l, "a pixel probe at a position no int holds"));
                };
                let expected = &values[2..2 + channels];
                self.probe(l, item, [x, y, 1, 1], expected, false)?;
            }
            Command::ProbeRect {
                channels,
                rect,
                values,
            } => {
                if values.len() < *channels {
                    return Err(Skip::at(l, "a pixel probe with fewer values than it reads")
                        .why("shader_runner compares with uninitialised ones"));
                }
                let rect = match rect {
                    Some(r) => *r,
                    None => {
                        let t = self.read_texture(l)?;
                        let [w, h] = self.textures[&t].size;
                        [0, 0, w as i32, h as i32]
                    }
                };
                self.probe(l, item, rect, &values[..*channels], true)?;
            }
            // Not a texture command: the walk sends none here.
            _ => {}
        }
        Ok(None)
    }

    /// The images of the case (every texture bound to a unit) and its sampled textures
    /// (every texture, when a program declares a sampler and none an image), after the
    /// walk; any other texture left unbound is a skip (conform could not hold what the test
    /// does to it).
    pub(super) fn finish(self) -> Result<(Vec<Image>, Vec<SampledTexture>), Skip> {
        let mut images = Vec::new();
        let mut sampled = Vec::new();
        let sampled_only = self.sampler.is_some() && !self.images;
        for (unit, t) in self.textures {
            if sampled_only {
                if let Some(line) = t.used {
                    return Err(Skip::new(
                        "a sampled texture a framebuffer uses",
                        format!("texture {unit} (line {})", t.origin.line),
                        Some(line),
                    ));
                }
                let mut levels = vec![t.data];
                levels.extend(t.more_levels);
                let mut origins = vec![t.origin];
                origins.extend(t.texparameters);
                sampled.push(SampledTexture {
                    name: format!("tex{unit}"),
                    unit: unit as u32,
                    format: t.format.name(),
                    size: t.size,
                    lanes: t.format.texel().lanes as usize,
                    levels,
                    sampler: t.sampler,
                    origins,
                });
                continue;
            }
            if !t.texparameters.is_empty() || !t.more_levels.is_empty() {
                return Err(Skip::new(
                    "sampled textures",
                    format!(
                        "texture {unit} (line {}) has levels or sampler state, and a program declares an image: conform cannot tell which it is",
                        t.origin.line
                    ),
                    Some(t.origin.line),
                ));
            }
            let Some(bound) = t.bound else {
                let line = t.used.unwrap_or(t.origin.line);
                return Err(Skip::new(
                    "textures not bound to an image unit",
                    format!(
                        "texture {unit} (line {}) is no image: the shader samples it or only the framebuffer uses it",
                        t.origin.line
                    ),
                    Some(line),
                ));
            };
            images.push(Image {
                name: format!("tex{unit}"),
                unit: unit as u32,
                format: t.format.name(),
                size: t.size,
                lanes: t.format.texel().lanes as usize,
                data: t.data,
                origins: vec![t.origin, bound],
            });
        }
        Ok((images, sampled))
    }

    /// What a `texture` command on `unit` becomes.
    fn becomes(&self, unit: i32) -> String {
        if self.sampler.is_some() && !self.images {
            format!("becomes texture tex{unit}")
        } else {
            format!("becomes image tex{unit}'s data")
        }
    }

    fn new_texture(
        &self,
        l: &Line<Command>,
        unit: i32,
        size: [i32; 2],
        dispatched: bool,
    ) -> Result<[u32; 2], Skip> {
        if let (Some(line), true) = (self.sampler, self.images) {
            return Err(Skip::at(l, "sampled textures").why(&format!(
                "a program (line {line}) declares a sampler and one an image: conform cannot tell which the texture is"
            )));
        }
        if dispatched {
            return Err(Skip::at(l, "a texture made after a dispatch")
                .why("conform makes every image before the first step"));
        }
        if !(0..IMAGE_UNITS).contains(&unit) {
            return Err(Skip::at(l, "a texture beyond conform's image units 0 to 7"));
        }
        if self.textures.contains_key(&unit) {
            return Err(Skip::at(l, "a texture made again on the same unit"));
        }
        if size.iter().any(|&s| s <= 0) {
            return Err(Skip::at(l, "an empty texture"));
        }
        if size[0] as u64 * size[1] as u64 > MAX_TEXELS {
            return Err(Skip::at(l, "a texture larger than the importer writes out"));
        }
        Ok(size.map(|s| s as u32))
    }

    fn insert(
        &mut self,
        l: &Line<Command>,
        unit: i32,
        size: [u32; 2],
        format: ImageFormat,
        data: Vec<String>,
        immutable: bool,
    ) {
        self.textures.insert(
            unit,
            Texture {
                size,
                format,
                data,
                origin: origin(l),
                immutable,
                bound: None,
                used: None,
                more_levels: Vec::new(),
                sampler: sampled::rgbw_sampler(),
                texparameters: Vec::new(),
            },
        );
        self.active = Some(unit);
    }

    fn texture(&self, l: &Line<Command>, t: i32, what: &str) -> Result<&Texture, Skip> {
        self.textures
            .get(&t)
            .ok_or_else(|| Skip::at(l, format!("{what} a texture never made")))
    }

    /// `image texture N FORMAT`.
    fn bind(
        &mut self,
        l: &Line<Command>,
        unit: i32,
        format: &str,
        dispatched: bool,
    ) -> Result<(), Skip> {
        if dispatched {
            return Err(Skip::at(l, "an image bound after a dispatch")
                .why("conform binds every image before the first step"));
        }
        let wanted = image_format(l, format)?;
        let es = self.es;
        let t = self
            .textures
            .get_mut(&unit)
            .ok_or_else(|| Skip::at(l, "an image unit bound to a texture never made"))?;
        if t.bound.is_some() {
            return Err(Skip::at(l, "an image unit bound twice"));
        }
        if t.format != wanted {
            return Err(Skip::at(l, "an image format other than its texture's")
                .why("conform's images have one format"));
        }
        if es && !ES_IMAGE_FORMATS.contains(&wanted) {
            return Err(Skip::at(l, "an image format GL ES lacks")
                .why("GL ES 3.2 Table 8.27 has no such image format"));
        }
        if es && !t.immutable {
            return Err(Skip::at(l, "an image on a mutable texture in GL ES").why(
                "GL ES binds only immutable textures (glTexStorage) to image units; piglit's rgbw texture uses glTexImage2D",
            ));
        }
        t.bound = Some(origin(l));
        Ok(())
    }

    fn set_fb(&mut self, target: FbTarget, fb: Fb) {
        if target != FbTarget::Read {
            self.draw = fb.clone();
        }
        if target != FbTarget::Draw {
            self.read = fb;
        }
    }

    /// The texture the read framebuffer reads (its colour attachment 0).
    fn read_texture(&self, l: &Line<Command>) -> Result<i32, Skip> {
        match &self.read {
            Fb::Window => Err(Skip::at(l, "a probe of the window framebuffer")),
            Fb::Textures(t) => Ok(t[0]),
        }
    }

    /// `clear`: of the window (left out: nothing conform checks reads it), or of the draw
    /// framebuffer's textures before the first dispatch (their data).
    fn clear(
        &mut self,
        l: &Line<Command>,
        item: &mut Item,
        dispatched: bool,
    ) -> Result<Option<String>, Skip> {
        let Fb::Textures(targets) = self.draw.clone() else {
            item.note = Some(
                "left out: a clear of the window framebuffer, which no conform check reads".into(),
            );
            return Ok(Some(format!(
                "line {}: `{}` (a clear of the window framebuffer)",
                l.line, l.text
            )));
        };
        let Some(color) = self.clear_color.clone() else {
            item.note = Some("clears no colour (no `clear color` before it)".into());
            return Ok(None);
        };
        if color.len() < 4 {
            return Err(Skip::at(l, "a clear colour with fewer than 4 values")
                .why("shader_runner passes uninitialised ones"));
        }
        if dispatched {
            return Err(Skip::at(l, "a clear of a texture after a dispatch")
                .why("conform sets images only before the first step"));
        }
        // glClear converts the clamped colour to the buffer's fixed point: "one of the two
        // nearest" values (GL 4.6 §2.3.5.2), exact only where c·255 is an integer.
        let mut bytes = Vec::new();
        for c in &color {
            let scaled = c.clamp(0.0, 1.0) * 255.0;
            if scaled.fract() != 0.0 || c.is_nan() {
                return Err(Skip::at(l, "a clear to a colour rgba8 cannot hold exactly")
                    .why("glClear may round it either way (GL 4.6 section 2.3.5.2)"));
            }
            bytes.push((scaled as u8).to_string());
        }
        for t in &targets {
            let tex = self
                .textures
                .get_mut(t)
                .ok_or_else(|| Skip::at(l, "a clear of a texture never made"))?;
            if tex.format != ImageFormat::Rgba8 {
                return Err(Skip::at(l, "a clear of a texture that is not rgba8"));
            }
            tex.used.get_or_insert(l.line);
            for texel in tex.data.chunks_mut(4) {
                texel.clone_from_slice(&bytes);
            }
        }
        item.note = Some(format!(
            "becomes the data of {}",
            targets
                .iter()
                .map(|t| format!("tex{t}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        Ok(None)
    }

    /// A probe of `rect` (x, y, w, h) of the read framebuffer: `rect_path` for
    /// `probe_rect` (bytes on a desktop context), else the float pixel probe.
    fn probe(
        &mut self,
        l: &Line<Command>,
        item: &mut Item,
        [x, y, w, h]: [i32; 4],
        expected: &[f32],
        rect_path: bool,
    ) -> Result<(), Skip> {
        let t = self.read_texture(l)?;
        let tex = self
            .textures
            .get_mut(&t)
            .ok_or_else(|| Skip::at(l, "a probe of a texture never made"))?;
        if tex.format != ImageFormat::Rgba8 {
            return Err(Skip::at(l, "a pixel probe of a texture that is not rgba8"));
        }
        let [width, height] = tex.size.map(|s| s as i64);
        let (x, y, w, h) = (x as i64, y as i64, w as i64, h as i64);
        if x < 0 || y < 0 || w < 0 || h < 0 || x + w > width || y + h > height {
            return Err(Skip::at(l, "a pixel probe outside the texture")
                .why("glReadPixels leaves such pixels undefined"));
        }
        tex.used.get_or_insert(l.line);
        let bytes = !self.es && rect_path;
        let mut low = vec!["0".to_string(); 4];
        let mut high = vec!["255".to_string(); 4];
        for (i, &e) in expected.iter().enumerate() {
            let Some((lo, hi)) = passing_bytes(e, self.tolerance[i], bytes) else {
                return Err(Skip::at(l, "a pixel probe no rgba8 value passes").why(
                    "piglit fails it everywhere, or converts a value out of range (undefined in C)",
                ));
            };
            low[i] = lo.to_string();
            high[i] = hi.to_string();
        }
        // Whole rows are one range of texels; otherwise a range per row.
        let rows: Vec<(u64, u64)> = if w == width {
            vec![((y * width) as u64, (w * h) as u64)]
        } else {
            (y..y + h)
                .map(|r| ((r * width + x) as u64, w as u64))
                .collect()
        };
        for (at, count) in rows.into_iter().filter(|&(_, c)| c > 0) {
            for (op, lanes) in [(Op::Ge, &low), (Op::Le, &high)] {
                item.entries.push(Entry::Expect(Expectation {
                    buffer: format!("tex{t}"),
                    at,
                    ty: "u8x4",
                    check: Check::CompareLanes {
                        op,
                        lanes: lanes.clone(),
                        count,
                    },
                }));
            }
        }
        let how = if bytes {
            "probe_rect_ubyte: |c - (GLubyte)(e*255)| <= ceil(t*255)"
        } else {
            "|c/255 - e| <= t in float"
        };
        item.note = Some(format!(
            "texels of tex{t} in the bytes that pass ({how}, t = {})",
            self.tolerance[..expected.len()]
                .iter()
                .map(|t| f32_text(*t))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        Ok(())
    }
}

/// Whether a shader declares an image (a GLSL image type, `image2D`, `uimage3D`, ..., or a
/// SPIR-V OpTypeImage, which a sampled image also has: then it counts, erring towards a
/// skip).
pub(super) fn declares_image(source: &str) -> bool {
    const DIMS: [&str; 8] = [
        "1D", "2D", "3D", "Cube", "Buffer", "2DRect", "1DArray", "2DArray",
    ];
    DIMS.iter().any(|d| source.contains(&format!("image{d}"))) || source.contains("OpTypeImage")
}

fn origin(l: &Line<Command>) -> Origin {
    Origin {
        line: l.line,
        text: l.text.clone(),
    }
}

/// conform's format for a GL internal-format name (`GL_RGBA8` → rgba8).
fn image_format(l: &Line<Command>, name: &str) -> Result<ImageFormat, Skip> {
    name.strip_prefix("GL_")
        .and_then(|n| ImageFormat::parse(&n.to_ascii_lowercase()))
        .ok_or_else(|| Skip::at(l, "a texture format conform's images lack"))
}

/// piglit_rgbw_image's texels (no alpha variation, unsigned normalized: components 0 or
/// 1; in GL ES piglit_rgbw_image_ubyte's bytes 0 or 255, the same texels).
fn rgbw(l: &Line<Command>, [w, h]: [u32; 2], format: ImageFormat) -> Result<Vec<String>, Skip> {
    let one = match format {
        ImageFormat::Rgba8 => "255",
        ImageFormat::Rgba16f | ImageFormat::Rgba32f => "1.0",
        _ => {
            return Err(
                Skip::at(l, "an rgbw texture of a format other than rgba8/16f/32f")
                    .why("glTexImage2D of RGBA floats into it is not a plain copy"),
            )
        }
    };
    let zero = if one == "255" { "0" } else { "0.0" };
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let (left, bottom) = (x < w / 2, y < h / 2);
            let rgb = match (left, bottom) {
                (true, true) => [true, false, false],
                (false, true) => [false, true, false],
                (true, false) => [false, false, true],
                (false, false) => [true, true, true],
            };
            for c in rgb.into_iter().chain([true]) {
                out.push(if c { one } else { zero }.to_string());
            }
        }
    }
    Ok(out)
}

/// piglit_integer_texture's texels for a 32-bit signed integer format.
fn integer(
    l: &Line<Command>,
    [w, h]: [u32; 2],
    format: ImageFormat,
    b: i32,
    a: i32,
) -> Result<Vec<String>, Skip> {
    let lanes = match format {
        ImageFormat::R32i => 1,
        ImageFormat::Rg32i => 2,
        ImageFormat::Rgba32i => 4,
        _ => {
            return Err(Skip::at(
                l,
                "an integer texture of a format other than r32i/rg32i/rgba32i",
            )
            .why("shader_runner fails any other"))
        }
    };
    let overflow = || Skip::at(l, "an integer texture whose values overflow int");
    let mut out = Vec::with_capacity((w * h) as usize * lanes);
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            let texel: Vec<i32> = match lanes {
                1 => vec![y
                    .checked_mul(b)
                    .and_then(|v| v.checked_add(x))
                    .and_then(|v| v.checked_add(a))
                    .ok_or_else(overflow)?],
                2 => vec![
                    x.checked_add(b).ok_or_else(overflow)?,
                    y.checked_add(a).ok_or_else(overflow)?,
                ],
                _ => vec![x, y, b, a],
            };
            out.extend(texel.iter().map(|v| v.to_string()));
        }
    }
    Ok(out)
}

/// The bytes c of one channel that pass a probe for `e` with tolerance `t`, as the range
/// (lowest, highest); None when none does. `bytes`: probe_rect_ubyte's comparison (|c -
/// (GLubyte)(e·255)| > ceil(t·255) fails), else the float one (|c/255 - e| > t fails, in
/// float; c/255 is glReadPixels' GL_FLOAT of an 8-bit unsigned normalized value, GL 4.6
/// §2.3.5.1, and what piglit_read_pixels_float computes in GL ES).
pub(super) fn passing_bytes(e: f32, t: f32, bytes: bool) -> Option<(u8, u8)> {
    let pass = |c: u8| -> Option<bool> {
        if bytes {
            // float → GLubyte conversions are defined only in range.
            let et = (e * 255.0).trunc();
            let tt = (t * 255.0).ceil();
            if !(0.0..=255.0).contains(&et) || !(0.0..=255.0).contains(&tt) {
                return None;
            }
            Some((c as i32 - et as i32).abs() <= tt as i32)
        } else {
            Some(
                ((c as f32 / 255.0) - e).abs().partial_cmp(&t) != Some(std::cmp::Ordering::Greater),
            )
        }
    };
    let mut passing = Vec::new();
    for c in 0..=255u8 {
        if pass(c)? {
            passing.push(c);
        }
    }
    let (&lo, &hi) = (passing.first()?, passing.last()?);
    // A range: |c/255 - e| grows on each side of e, and rounding keeps it monotonic.
    (passing.len() == (hi - lo) as usize + 1).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Line<Command> {
        Line {
            line: 1,
            text: text.into(),
            item: Command::Clear,
        }
    }

    #[test]
    fn rgbw_is_piglits_quadrants() {
        let l = line("texture rgbw 0 (4, 2) GL_RGBA8");
        let (r, g, b, w) = (
            ["255", "0", "0", "255"],
            ["0", "255", "0", "255"],
            ["0", "0", "255", "255"],
            ["255"; 4],
        );
        let want: Vec<&str> = [r, r, g, g, b, b, w, w].concat();
        assert_eq!(rgbw(&l, [4, 2], ImageFormat::Rgba8).unwrap(), want);
        // Odd sizes: x < W/2 with W/2 rounded down; a 1x1 texture is white.
        assert_eq!(rgbw(&l, [1, 1], ImageFormat::Rgba8).unwrap(), w);
        // 3x1: H/2 = 0, so no texel is in the lower half; x < 1 is blue.
        assert_eq!(
            rgbw(&l, [3, 1], ImageFormat::Rgba8).unwrap(),
            [b, w, w].concat()
        );
        // 1x2: the lower row (y < 1) right of x < 0 is green.
        assert_eq!(
            rgbw(&l, [1, 2], ImageFormat::Rgba32f).unwrap()[..4],
            ["0.0", "1.0", "0.0", "1.0"]
        );
        assert!(rgbw(&l, [1, 1], ImageFormat::R32ui).is_err());
    }

    #[test]
    fn integer_textures_follow_piglit_integer_texture() {
        let l = line("texture integer 0 (2, 2) (3, 10) GL_R32I");
        // R = x + y*B + A
        assert_eq!(
            integer(&l, [2, 2], ImageFormat::R32i, 3, 10).unwrap(),
            ["10", "11", "13", "14"]
        );
        // (x + B, y + A)
        assert_eq!(
            integer(&l, [2, 1], ImageFormat::Rg32i, 1, 5).unwrap(),
            ["1", "5", "2", "5"]
        );
        // (x, y, B, A)
        assert_eq!(
            integer(&l, [1, 2], ImageFormat::Rgba32i, 7, 8).unwrap(),
            ["0", "0", "7", "8", "0", "1", "7", "8"]
        );
        assert!(
            integer(&l, [2, 2], ImageFormat::R32i, i32::MAX, 1).is_err(),
            "overflow"
        );
        assert!(integer(&l, [2, 2], ImageFormat::R32ui, 0, 0).is_err());
    }

    #[test]
    fn probe_ranges_follow_piglits_two_comparisons() {
        // probe rgb: |c/255 - e| <= 0.01 in float: 2/255 = 0.0078 passes, 3/255 = 0.0118 not.
        assert_eq!(passing_bytes(0.0, 0.01, false), Some((0, 2)));
        assert_eq!(passing_bytes(1.0, 0.01, false), Some((253, 255)));
        // probe_rect_ubyte: ceil(0.01*255) = 3 either side of (GLubyte)(e*255).
        assert_eq!(passing_bytes(0.0, 0.01, true), Some((0, 3)));
        assert_eq!(passing_bytes(1.0, 0.01, true), Some((252, 255)));
        // 0.5*255 = 127.5 truncates to 127: 124..130.
        assert_eq!(passing_bytes(0.5, 0.01, true), Some((124, 130)));
        // |c/255 - 0.5| <= 0.01: 125/255 = 0.4902 (0.0098), 124/255 = 0.4863 (0.0137).
        assert_eq!(passing_bytes(0.5, 0.01, false), Some((125, 130)));
        // A NaN expectation passes every byte in float (the > is false), and is
        // undefined behaviour in bytes.
        assert_eq!(passing_bytes(f32::NAN, 0.01, false), Some((0, 255)));
        assert_eq!(passing_bytes(f32::NAN, 0.01, true), None);
        // Nothing passes: an expectation of 2 with a small tolerance.
        assert_eq!(passing_bytes(2.0, 0.01, false), None);
        assert_eq!(passing_bytes(-0.5, 0.01, true), None);
        // tolerance 1.0: every byte.
        assert_eq!(passing_bytes(0.5, 1.0, true), Some((0, 255)));
    }
}
