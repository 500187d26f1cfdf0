//! Images on image units (ARB_shader_image_load_store, GL 4.6 §8.26): texel memory, the
//! format conversions of loads and stores, and [`execute`] for [`crate::ir::Inst::Image`].
//!
//! Texels live in a [`GlobalBuf`] in the plan's layout (level 0, tightly packed, x fastest,
//! then y, then z or the layer), so concurrent stores to different texels never lose each
//! other's bytes and the atomics on r32 texels are atomic.
//!
//! Conversions follow Section 3.9.X of the extension: a load reads the texel as GetTexImage
//! would with format RGBA and type FLOAT (float variables), INT (`iimage`) or UNSIGNED_INT
//! (`uimage`), a store writes it as TexSubImage would from the same; unused components read
//! as (0, 0, 0, 1). So (GL 4.6 §2.3.4, §2.3.5, §8.4.4):
//! - unorm c of b bits loads as c / (2^b - 1), snorm as max(c / (2^(b-1) - 1), -1), both
//!   correctly rounded to single precision (the quotient of two integers below 2^16 is never
//!   within a double's rounding error of a single-precision midpoint, so dividing in double
//!   and rounding once more is exact);
//! - a float stored to unorm is clamped to [0, 1] and to snorm to [-1, 1], then multiplied by
//!   2^b - 1 (2^(b-1) - 1) and rounded to the nearest integer, a tie to the even one
//!   (convert_float_uint / convert_float_int: the spec prefers round to nearest and allows
//!   either neighbour; docs/REFERENCE.md "Images"); NaN stores 0 (the clamp of a NaN is not
//!   specified);
//! - half floats round to nearest even; the 11- and 10-bit unsigned floats of r11f_g11f_b10f
//!   round to nearest even, negative values and -inf become 0, finite values above the largest
//!   (65024, 64512) become the largest, +inf and NaN stay (GL 4.6 §2.3.4.3, §2.3.4.4);
//! - integers stored to a narrower integer format are clamped to its range (a reading: the
//!   spec defers to TexSubImage, which does not say; cases do not depend on it).
//!
//! An access to a texel that does not exist, or through a unit with no image, is invalid:
//! loads give 0, stores do nothing, atomics do nothing and give 0 (Section 3.9.X, "Invalid
//! image loads will return zero"). An access whose variable does not match the image (target,
//! component type, format qualifier) is a format mismatch with undefined results: it does
//! nothing, gives 0 and is reported as undefined.

use super::mem::{atomic_new, GlobalBuf};
use super::values::{f16_to_f32, f32_to_f16};
use crate::ir::image::{Enc, Format, ImageDim, ImageInst, ImageOp};
use crate::ir::{Kind, ScalarTy};
use crate::PlantedBug;
use conform_plan::ImageDesc;

/// An image bound to an image unit for one dispatch.
pub struct Bound<'a> {
    pub unit: u32,
    pub desc: ImageDesc,
    pub texels: &'a GlobalBuf,
}

/// What an image instruction did: its result (None for stores), for a format mismatch why
/// the result is undefined, and the texel it accessed (for the race detector).
#[derive(Debug, Default, PartialEq)]
pub struct Done {
    pub value: Option<[u64; 4]>,
    pub undefined: Option<String>,
    pub texel: Option<TexelAccess>,
}

/// The bytes of an image's texels a load, store or atomic accessed (`bytes` at `off`), and
/// the texel's stored representation before and after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexelAccess {
    pub off: u64,
    pub bytes: u32,
    pub before: u128,
    pub after: u128,
}

/// Runs one image instruction with its operands read (`unit.x`, `coord`, `a`, `b`).
pub fn execute(
    images: &[Bound],
    im: &ImageInst,
    unit: u64,
    coord: [u64; 4],
    a: [u64; 4],
    b: [u64; 4],
    bug: Option<PlantedBug>,
) -> Done {
    let zero = Some([0u64; 4]);
    let result = |value, undefined| Done {
        value,
        undefined,
        texel: None,
    };
    let none_or_zero = if im.op == ImageOp::Store { None } else { zero };
    // An invalid access: no image on the unit, or no such texel.
    let Some(img) = images
        .iter()
        .find(|i| u64::from(i.unit) == unit & 0xffff_ffff)
    else {
        return result(none_or_zero, None);
    };
    let format = Format::of_plan(img.desc.format);
    if let Some(why) = mismatch(im, img.desc.dim, format) {
        return result(none_or_zero, Some(why));
    }
    if im.op == ImageOp::Size {
        let [w, h, d] = img.desc.view_size().map(u64::from);
        let size = match img.desc.dim {
            ImageDim::D1 | ImageDim::Buffer => [w, 0, 0, 0],
            ImageDim::D2 => [w, h, 0, 0],
            ImageDim::D3 | ImageDim::D2Array => [w, h, d, 0],
        };
        return result(Some(size), None);
    }
    let Some(texel) = texel_index(&img.desc, coord) else {
        return result(none_or_zero, None);
    };
    let bytes = u64::from(format.texel_bytes());
    let off = img.desc.view_offset() + texel * bytes;
    let accessed = |bytes: u64, before: u128, after: u128| {
        Some(TexelAccess {
            off,
            bytes: bytes as u32,
            before,
            after,
        })
    };
    match im.op {
        ImageOp::Load => {
            let raw = read_texel(img.texels, off, bytes);
            Done {
                texel: accessed(bytes, raw, raw),
                ..result(Some(decode(format, raw)), None)
            }
        }
        ImageOp::Store => {
            let before = read_texel(img.texels, off, bytes);
            let raw = encode(format, a);
            write_texel(img.texels, off, bytes, raw);
            // What write_texel stored: the texel's bytes of `raw`.
            let after = raw & (u128::MAX >> (128 - 8 * bytes.min(16)));
            Done {
                texel: accessed(bytes, before, after),
                ..result(None, None)
            }
        }
        ImageOp::Atomic(op) => {
            let ty = ScalarTy::new(im.var.kind, 32);
            // What this atomic stored (None: nothing), not the texel read again after it,
            // which another work group running at the same time may have changed since.
            let stored = std::cell::Cell::new(None);
            let old = img.texels.rmw(off, 4, |old| {
                let new = atomic_new(op, ty, old, a[0], b[0], bug);
                stored.set(new);
                new
            });
            Done {
                texel: old.and_then(|o| {
                    let now = stored.get().unwrap_or(o) & 0xffff_ffff;
                    accessed(4, u128::from(o), u128::from(now))
                }),
                ..result(Some([old.unwrap_or(0), 0, 0, 0]), None)
            }
        }
        ImageOp::Size | ImageOp::Fetch => result(zero, None),
    }
}

/// Why an access through `im`'s variable to an image of `dim` and `format` is a format
/// mismatch (Section 3.9.X's list), if it is.
fn mismatch(im: &ImageInst, dim: ImageDim, format: Format) -> Option<String> {
    let var = im.var;
    if var.dim != dim {
        return Some(format!(
            "an image variable of target {} accesses a {} image (a format mismatch)",
            var.dim.name(),
            dim.name()
        ));
    }
    if im.op == ImageOp::Size {
        return None;
    }
    if var.kind != format.kind() {
        return Some(format!(
            "an image variable of {} components accesses a {} image (a format mismatch)",
            kind_name(var.kind),
            format.name()
        ));
    }
    match var.format {
        Some(f) if f != format => Some(format!(
            "an image variable declared {} accesses a {} image (a format mismatch)",
            f.name(),
            format.name()
        )),
        _ => None,
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::F => "float",
        Kind::S => "int",
        Kind::U => "uint",
        Kind::B => "bool",
    }
}

/// The index of the texel `coord` names (Table X.1) from the first one the image views, or
/// None when it does not exist (a buffer image with a range has the range's texels).
fn texel_index(desc: &ImageDesc, coord: [u64; 4]) -> Option<u64> {
    let n = desc.dim.coordinates();
    let mut index = 0u64;
    let mut scale = 1u64;
    for (c, size) in coord.iter().zip(desc.view_size()).take(n) {
        let c = i64::from(*c as u32 as i32);
        if c < 0 || c >= i64::from(size) {
            return None;
        }
        index += c as u64 * scale;
        scale *= u64::from(size);
    }
    Some(index)
}

fn read_texel(texels: &GlobalBuf, off: u64, bytes: u64) -> u128 {
    let mut raw = 0u128;
    let mut at = 0;
    while at < bytes {
        let n = (bytes - at).min(8);
        let part = texels.read(off + at, n as u32).unwrap_or(0);
        raw |= u128::from(part) << (at * 8);
        at += n;
    }
    raw
}

fn write_texel(texels: &GlobalBuf, off: u64, bytes: u64, raw: u128) {
    let mut at = 0;
    while at < bytes {
        let n = (bytes - at).min(8);
        texels.write(off + at, n as u32, (raw >> (at * 8)) as u64);
        at += n;
    }
}

/// The four lanes a load gives for the stored texel `raw` (components packed from bit 0 as
/// `Format::bits` says), for a variable whose component type matches the format.
pub fn decode(format: Format, raw: u128) -> [u64; 4] {
    let one = match format.kind() {
        Kind::F => u64::from(1f32.to_bits()),
        _ => 1,
    };
    let mut out = [0, 0, 0, one];
    let mut shift = 0;
    for (lane, &bits) in format.bits().iter().enumerate() {
        let c = ((raw >> shift) as u64) & mask(bits);
        shift += u32::from(bits);
        out[lane] = match format.enc() {
            Enc::Uint => c,
            Enc::Sint => sext(c, bits) as u32 as u64,
            Enc::Float => u64::from(float_of(c, bits).to_bits()),
            Enc::Unorm => {
                let f = c as f64 / mask(bits) as f64;
                u64::from((f as f32).to_bits())
            }
            Enc::Snorm => {
                let f = (sext(c, bits) as f64 / mask(bits - 1) as f64).max(-1.0);
                u64::from((f as f32).to_bits())
            }
        };
    }
    out
}

/// The stored texel for the four lanes `lanes` of a store (of the format's component type);
/// components the format lacks are dropped.
pub fn encode(format: Format, lanes: [u64; 4]) -> u128 {
    let mut raw = 0u128;
    let mut shift = 0;
    for (lane, &bits) in format.bits().iter().enumerate() {
        let v = lanes[lane] & 0xffff_ffff;
        let f = f32::from_bits(v as u32);
        let c = match format.enc() {
            Enc::Uint => v.min(mask(bits)),
            Enc::Sint => {
                let max = mask(bits - 1) as i64;
                i64::from(v as u32 as i32).clamp(-max - 1, max) as u64 & mask(bits)
            }
            Enc::Float => bits_of_float(f, bits),
            Enc::Unorm => {
                let f = if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
                (f64::from(f) * mask(bits) as f64).round_ties_even() as u64
            }
            Enc::Snorm => {
                let f = if f.is_nan() { 0.0 } else { f.clamp(-1.0, 1.0) };
                let c = (f64::from(f) * mask(bits - 1) as f64).round_ties_even() as i64;
                c as u64 & mask(bits)
            }
        };
        raw |= u128::from(c) << shift;
        shift += u32::from(bits);
    }
    raw
}

fn mask(bits: u8) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sext(c: u64, bits: u8) -> i64 {
    let s = 64 - u32::from(bits);
    ((c << s) as i64) >> s
}

/// The value of a stored float component of `bits` bits (32, 16, or the unsigned 11/10-bit
/// floats: 5 exponent bits biased by 15, 6 or 5 mantissa bits, no sign).
fn float_of(c: u64, bits: u8) -> f32 {
    match bits {
        32 => f32::from_bits(c as u32),
        16 => f16_to_f32(c as u16),
        _ => {
            let m = u32::from(bits) - 5;
            let (exp, man) = ((c >> m) as i32, c & mask(m as u8));
            let man = man as f32 / (1u32 << m) as f32;
            match exp {
                0 => man * (2f32).powi(-14),
                31 if man == 0.0 => f32::INFINITY,
                31 => f32::NAN,
                e => (1.0 + man) * (2f32).powi(e - 15),
            }
        }
    }
}

/// The stored form of `f` in a float component of `bits` bits (see [`float_of`]), rounded to
/// nearest even.
fn bits_of_float(f: f32, bits: u8) -> u64 {
    match bits {
        32 => u64::from(f.to_bits()),
        16 => u64::from(f32_to_f16(f)),
        _ => {
            let m = u32::from(bits) - 5;
            let inf = 31u64 << m;
            if f.is_nan() {
                return inf | 1;
            }
            if f == f32::INFINITY {
                return inf;
            }
            if f <= 0.0 {
                return 0;
            }
            let largest = inf - 1;
            if f64::from(f) >= f64::from(float_of(largest, bits)) {
                return largest;
            }
            // The exponent of f, at least the smallest normal one (-14): below it the value is
            // a denormal with the same scale.
            let e = (f64::from(f).log2().floor() as i32).max(-14);
            let q = (f64::from(f) * 2f64.powi(m as i32 - e)).round_ties_even() as u64;
            if e == -14 && q < (1 << m) {
                return q;
            }
            // q in [2^m, 2^(m+1)]: 2^(m+1) carries into the next exponent, which the encoding
            // below does by itself.
            (((e + 15) as u64) << m) + (q - (1 << m))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::image::ImageVar;
    use crate::ir::{AtomicOp, Dst, Reg, Src};
    use conform_plan::ImageFormat;
    use quickcheck::quickcheck;

    fn f(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    #[test]
    fn unorm_and_snorm_load_as_the_spec_divides() {
        let l = decode(
            Format::Rgba8,
            u128::from(u32::from_le_bytes([0, 128, 255, 51])),
        );
        assert_eq!(l, [f(0.0), f(128.0 / 255.0), f(1.0), f(0.2)]);
        // snorm: -128 and -127 both load as -1 (the max with -1).
        let l = decode(
            Format::Rg8Snorm,
            u128::from(u16::from_le_bytes([0x80, 0x81])),
        );
        assert_eq!(l, [f(-1.0), f(-1.0), 0, f(1.0)]);
        let l = decode(Format::R16, 65535);
        assert_eq!(l, [f(1.0), 0, 0, f(1.0)]);
    }

    #[test]
    fn stores_clamp_and_round_to_nearest_even() {
        let lanes = [f(0.5), f(2.0), f(-1.0), f(f32::NAN)];
        // 0.5 * 255 = 127.5: the even neighbour 128.
        assert_eq!(
            encode(Format::Rgba8, lanes).to_le_bytes()[..4],
            [128, 255, 0, 0]
        );
        let lanes = [f(-2.0), f(0.5), f(-0.5), 0];
        // snorm8: clamp to -1 → -127; ±0.5 * 127 = ±63.5 → ±64 (even).
        assert_eq!(
            encode(Format::Rgba8Snorm, lanes).to_le_bytes()[..4],
            [0x81, 64, 0xC0, 0]
        );
        // Integers clamp to the format's range.
        let ints = [300, (-200i32) as u32 as u64, 5, 0];
        assert_eq!(
            encode(Format::Rgba8i, ints).to_le_bytes()[..4],
            [127, 0x80, 5, 0]
        );
        assert_eq!(
            encode(Format::Rgba8ui, ints).to_le_bytes()[..4],
            [255, 255, 5, 0]
        );
    }

    #[test]
    fn packed_formats_put_red_in_the_low_bits() {
        let raw = encode(Format::Rgb10A2ui, [1, 2, 3, 1]);
        assert_eq!(raw, 1 | 2 << 10 | 3 << 20 | 1 << 30);
        assert_eq!(decode(Format::Rgb10A2ui, raw), [1, 2, 3, 1]);
        let raw = encode(Format::R11fG11fB10f, [f(1.0), f(-3.0), f(0.5), 0]);
        // 1.0: exponent 15, mantissa 0; -3 → 0; 0.5 in the 10-bit float: exponent 14.
        assert_eq!(raw, 15 << 6 | 14 << (22 + 5));
        assert_eq!(
            decode(Format::R11fG11fB10f, raw),
            [f(1.0), f(0.0), f(0.5), f(1.0)]
        );
        // The largest finite values, and what is above them.
        assert_eq!(float_of(bits_of_float(1e9, 11), 11), 65024.0);
        assert_eq!(float_of(bits_of_float(1e9, 10), 10), 64512.0);
        assert_eq!(
            float_of(bits_of_float(f32::INFINITY, 10), 10),
            f32::INFINITY
        );
        assert!(float_of(bits_of_float(f32::NAN, 11), 11).is_nan());
        // The smallest denormal of the 11-bit float: 2^-14 / 64.
        let tiny = 2f32.powi(-20);
        assert_eq!(bits_of_float(tiny, 11), 1);
        assert_eq!(
            bits_of_float(tiny * 0.5, 11),
            0,
            "a tie rounds to the even 0"
        );
    }

    quickcheck! {
        fn small_floats_round_trip_what_they_hold(c: u16) -> bool {
            [11u8, 10].iter().all(|&bits| {
                let c = u64::from(c) & mask(bits);
                let v = float_of(c, bits);
                v.is_nan() || bits_of_float(v, bits) == c
            })
        }

        fn small_floats_round_to_a_neighbour(x: f32) -> bool {
            if !x.is_finite() {
                return true;
            }
            let x = x.abs() % 70000.0;
            let c = bits_of_float(x, 11);
            let v = float_of(c, 11);
            let below = if c == 0 { 0.0 } else { float_of(c - 1, 11) };
            let above = float_of(c + 1, 11);
            v.is_finite() && (x - v).abs() <= (x - below).abs() && (x >= 65024.0 || (x - v).abs() <= (above - x).abs())
        }

        fn unorm_round_trips_every_code(c: u16) -> bool {
            let one = decode(Format::R16, u128::from(c));
            encode(Format::R16, one) == u128::from(c)
                && encode(Format::R8, decode(Format::R8, u128::from(c & 0xff)))
                    == u128::from(c & 0xff)
        }

        fn snorm_round_trips_every_code_but_the_most_negative(c: u16) -> bool {
            let c = if c == 0x8000 { 0x8001 } else { c };
            encode(Format::R16Snorm, decode(Format::R16Snorm, u128::from(c)))
                == u128::from(c)
        }
    }

    fn inst(op: ImageOp, format: Option<Format>, kind: Kind) -> ImageInst {
        let r = Src::new(Reg(0));
        ImageInst {
            op,
            var: ImageVar {
                dim: ImageDim::D2,
                kind,
                format,
            },
            dst: Some(Dst::new(Reg(0))),
            unit: r,
            coord: r,
            a: r,
            b: r,
        }
    }

    #[test]
    fn invalid_accesses_and_mismatches() {
        let texels = GlobalBuf::from_bytes(&[5, 0, 0, 0, 6, 0, 0, 0]);
        let desc = ImageDesc {
            dim: ImageDim::D2,
            format: ImageFormat::R32ui,
            size: [2, 1, 1],
            range: None,
        };
        let images = [Bound {
            unit: 2,
            desc,
            texels: &texels,
        }];
        let load = inst(ImageOp::Load, Some(Format::R32ui), Kind::U);
        let run = |im: &ImageInst, unit, x: i32, a| {
            execute(
                &images,
                im,
                unit,
                [x as u32 as u64, 0, 0, 0],
                [a; 4],
                [0; 4],
                None,
            )
        };
        assert_eq!(run(&load, 2, 1, 0).value, Some([6, 0, 0, 1]));
        // No such texel, no image on the unit: zero, no flag.
        assert_eq!(
            run(&load, 2, 2, 0),
            Done {
                value: Some([0; 4]),
                ..Done::default()
            }
        );
        assert_eq!(run(&load, 2, -1, 0).value, Some([0; 4]));
        assert_eq!(
            run(&load, 3, 0, 0),
            Done {
                value: Some([0; 4]),
                ..Done::default()
            }
        );
        // An atomic returns the old value; out of range it does nothing and returns 0.
        let add = inst(ImageOp::Atomic(AtomicOp::Add), Some(Format::R32ui), Kind::U);
        assert_eq!(run(&add, 2, 0, 10).value, Some([5, 0, 0, 0]));
        assert_eq!(run(&add, 2, 5, 10).value, Some([0; 4]));
        assert_eq!(texels.to_bytes(), [15, 0, 0, 0, 6, 0, 0, 0]);
        // A store through a variable of another format is a mismatch: flagged, no effect.
        let store = inst(ImageOp::Store, Some(Format::R16ui), Kind::U);
        let done = run(&store, 2, 0, 9);
        assert!(done
            .undefined
            .unwrap()
            .contains("declared r16ui accesses a r32ui"));
        let signed = inst(ImageOp::Store, Some(Format::R32i), Kind::S);
        assert!(run(&signed, 2, 0, 9)
            .undefined
            .unwrap()
            .contains("int components"));
        let float = inst(ImageOp::Store, None, Kind::F);
        assert!(run(&float, 2, 0, 9).undefined.is_some());
        assert_eq!(texels.to_bytes(), [15, 0, 0, 0, 6, 0, 0, 0]);
        let size = inst(ImageOp::Size, None, Kind::F);
        assert_eq!(run(&size, 2, 0, 0).value, Some([2, 1, 0, 0]));
    }

    #[test]
    fn a_buffer_image_with_a_range_sees_only_the_range() {
        // Four r32ui texels 1..4; the texture views bytes 4..12: texels 2 and 3 as its 0 and 1.
        let texels = GlobalBuf::from_bytes(&conform_plan::bytes::from_u32s(&[1, 2, 3, 4]));
        let desc = ImageDesc {
            dim: ImageDim::Buffer,
            format: ImageFormat::R32ui,
            size: [4, 1, 1],
            range: Some([4, 11]),
        };
        let images = [Bound {
            unit: 0,
            desc,
            texels: &texels,
        }];
        let on_buffer = |op| {
            let im = inst(op, Some(Format::R32ui), Kind::U);
            ImageInst {
                var: ImageVar {
                    dim: ImageDim::Buffer,
                    ..im.var
                },
                ..im
            }
        };
        let run = |op, x: i32, a| {
            let im = on_buffer(op);
            execute(
                &images,
                &im,
                0,
                [x as u32 as u64, 0, 0, 0],
                [a; 4],
                [0; 4],
                None,
            )
            .value
        };
        // 11 bytes hold two whole texels: the size is 2, texel 2 (the buffer's 4) does not exist.
        assert_eq!(run(ImageOp::Size, 0, 0), Some([2, 0, 0, 0]));
        assert_eq!(run(ImageOp::Load, 0, 0), Some([2, 0, 0, 1]));
        assert_eq!(run(ImageOp::Load, 2, 0), Some([0; 4]));
        assert_eq!(run(ImageOp::Store, 1, 30), None);
        assert_eq!(run(ImageOp::Store, 2, 40), None);
        assert_eq!(run(ImageOp::Load, -1, 0), Some([0; 4]));
        assert_eq!(
            conform_plan::bytes::read_u32s(&texels.to_bytes()),
            [1, 2, 30, 4]
        );
    }
}
