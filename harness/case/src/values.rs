//! Values and data forms of the case format: turning YAML scalars into little-endian element
//! bytes of a declared type, expanding `fill` / `series` / `random`, and printing bytes back
//! as typed values for reports.

use super::limits;
use conform_plan::{ElemType, Scalar};
use serde_yaml_ng::Value;

/// A problem with a value, with the path (relative to the node being read) where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueError {
    /// Suffix to append to the node's path: `[3]`, `.count`, ... (empty for the node itself).
    pub at: String,
    pub message: String,
    pub hint: Option<String>,
}

impl ValueError {
    fn new(at: impl Into<String>, message: impl Into<String>) -> Self {
        ValueError {
            at: at.into(),
            message: message.into(),
            hint: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// Encodes one scalar value of type `s`.
pub fn encode_scalar(v: &Value, s: Scalar) -> Result<Vec<u8>, ValueError> {
    if s.is_float() {
        encode_float(v, s)
    } else {
        let n = int_value(v, s)?;
        Ok(int_bytes(n, s))
    }
}

fn int_bytes(n: i128, s: Scalar) -> Vec<u8> {
    n.to_le_bytes()[..s.size()].to_vec()
}

fn int_range(s: Scalar) -> (i128, i128) {
    let bits = s.size() as u32 * 8;
    if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn parse_hex(text: &str) -> Option<u128> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))?;
    u128::from_str_radix(&digits.replace('_', ""), 16).ok()
}

fn int_value(v: &Value, s: Scalar) -> Result<i128, ValueError> {
    let (lo, hi) = int_range(s);
    let n: i128 = match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u as i128
            } else if let Some(i) = n.as_i64() {
                i as i128
            } else {
                return Err(ValueError::new(
                    "",
                    format!("{n} is not an integer, but the type is {}", s.name()),
                ));
            }
        }
        Value::String(t) => match parse_hex(t) {
            Some(h) if h <= (hi - lo) as u128 => {
                // Hex gives the bit pattern: reinterpret it in the type.
                let h = h as i128;
                if s.is_signed() && h > hi {
                    h - (hi - lo + 1)
                } else {
                    h
                }
            }
            Some(_) => {
                return Err(ValueError::new(
                    "",
                    format!("{t} has more bits than {} holds", s.name()),
                ))
            }
            None => {
                return Err(ValueError::new(
                    "",
                    format!("`{t}` is not a value of type {}", s.name()),
                )
                .hint("integers are YAML numbers or hexadecimal strings like \"0xFF\""))
            }
        },
        other => {
            return Err(ValueError::new(
                "",
                format!(
                    "expected a value of type {}, found {}",
                    s.name(),
                    describe(other)
                ),
            ))
        }
    };
    if n < lo || n > hi {
        let mut e = ValueError::new(
            "",
            format!("{n} does not fit in {} ({lo}..={hi})", s.name()),
        );
        if n < 0 && !s.is_signed() {
            let bits = s.size() * 8;
            let pattern = (n as u128) & (u128::MAX >> (128 - bits));
            e = e.hint(format!(
                "write the bit pattern \"0x{pattern:0w$X}\" or use a signed type",
                w = s.size() * 2
            ));
        }
        return Err(e);
    }
    Ok(n)
}

fn encode_float(v: &Value, s: Scalar) -> Result<Vec<u8>, ValueError> {
    let x: f64 = match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(t) => {
            if let Some(bits) = parse_hex(t) {
                if bits >> (s.size() * 8) != 0 {
                    return Err(ValueError::new(
                        "",
                        format!("{t} has more bits than {} holds", s.name()),
                    ));
                }
                return Ok(bits.to_le_bytes()[..s.size()].to_vec());
            }
            match t.as_str() {
                "inf" | "+inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                "nan" => f64::NAN,
                "-0" | "-0.0" => -0.0,
                _ => {
                    return Err(ValueError::new(
                        "",
                        format!("`{t}` is not a value of type {}", s.name()),
                    )
                    .hint("floats are numbers, \"inf\", \"-inf\", \"nan\", \"-0.0\", or raw bits as \"0x3f800000\""))
                }
            }
        }
        other => {
            return Err(ValueError::new(
                "",
                format!(
                    "expected a value of type {}, found {}",
                    s.name(),
                    describe(other)
                ),
            ))
        }
    };
    Ok(float_bytes(x, s))
}

fn float_bytes(x: f64, s: Scalar) -> Vec<u8> {
    match s {
        Scalar::F16 => half::f16::from_f64(x).to_bits().to_le_bytes().to_vec(),
        Scalar::F32 => (x as f32).to_le_bytes().to_vec(),
        _ => x.to_le_bytes().to_vec(),
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a map",
        Value::Tagged(_) => "a tagged value",
    }
}

/// SplitMix64: small, fixed, and documented, so `random` data is the same on every machine.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

const DATA_FORMS: &str = "a list of values, {fill: V, count: N}, {series: {start: S, step: D}, count: N} or {random: {seed: K, min: A, max: B}, count: N}";

/// Expands a data form into bytes of `elem`, refusing (before allocating) a form that would
/// take more than `max_bytes` (the case's budget left, `case::limits`).
pub fn encode_data(v: &Value, elem: ElemType, max_bytes: u64) -> Result<Vec<u8>, ValueError> {
    let lanes = elem.lanes as usize;
    match v {
        Value::Sequence(items) => {
            if items.len() % lanes != 0 {
                return Err(ValueError::new(
                    "",
                    format!(
                        "{} values do not make whole {elem} elements ({lanes} values each)",
                        items.len()
                    ),
                ));
            }
            let size = (items.len() as u64).saturating_mul(elem.scalar.size() as u64);
            if size > max_bytes {
                return Err(too_large("", size, max_bytes));
            }
            let mut out = Vec::with_capacity(size as usize);
            for (i, item) in items.iter().enumerate() {
                let bytes = encode_scalar(item, elem.scalar).map_err(|mut e| {
                    e.at = format!("[{i}]{}", e.at);
                    e
                })?;
                out.extend(bytes);
            }
            Ok(out)
        }
        Value::Mapping(map) => encode_generator(map, elem, max_bytes),
        Value::Number(_) | Value::String(_) => Err(ValueError::new(
            "",
            format!("expected {DATA_FORMS}, found a single value"),
        )
        .hint("write a single value as a one-element list: [V]")),
        other => Err(ValueError::new(
            "",
            format!("expected {DATA_FORMS}, found {}", describe(other)),
        )),
    }
}

/// Data of `size` bytes where at most `max` are left.
fn too_large(at: &str, size: u64, max: u64) -> ValueError {
    ValueError::new(
        at,
        format!(
            "this data is {size} bytes, above the {} left for it",
            limits::bytes(max)
        ),
    )
    .hint(format!(
        "a case's buffers may hold {} in all, its expectations {} (cases/README.md, Limits)",
        limits::bytes(limits::MAX_BUFFER_BYTES),
        limits::bytes(limits::MAX_EXPECT_BYTES)
    ))
}

fn encode_generator(
    map: &serde_yaml_ng::Mapping,
    elem: ElemType,
    max_bytes: u64,
) -> Result<Vec<u8>, ValueError> {
    let s = elem.scalar;
    let keys: Vec<String> = map
        .keys()
        .map(|k| k.as_str().unwrap_or("?").to_string())
        .collect();
    for k in &keys {
        if !["fill", "series", "random", "count"].contains(&k.as_str()) {
            let e = ValueError::new(format!(".{k}"), format!("unknown data key `{k}`"));
            let e = match conform_io::diag::did_you_mean(k, ["fill", "series", "random", "count"]) {
                Some(m) => e.hint(format!("did you mean `{m}`?")),
                None => e.hint(format!("data is {DATA_FORMS}")),
            };
            return Err(e);
        }
    }
    let count = match map.get("count") {
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().unwrap_or(0),
        Some(_) => {
            return Err(ValueError::new(
                ".count",
                "count must be a non-negative integer",
            ))
        }
        None => return Err(ValueError::new("", "data form is missing `count`")),
    };
    let size = count.saturating_mul(elem.size() as u64);
    if size > max_bytes {
        return Err(too_large(".count", size, max_bytes));
    }
    let n = count as usize * elem.lanes as usize;
    let forms: Vec<&str> = ["fill", "series", "random"]
        .into_iter()
        .filter(|k| map.contains_key(*k))
        .collect();
    if forms.len() != 1 {
        return Err(ValueError::new(
            "",
            format!(
                "a data map needs exactly one of fill, series, random (found {})",
                if forms.is_empty() {
                    "none".to_string()
                } else {
                    forms.join(", ")
                }
            ),
        ));
    }
    let mut out = Vec::with_capacity(n * s.size());
    match forms[0] {
        "fill" => {
            let one = fill_element(&map["fill"], elem)?;
            for _ in 0..count {
                out.extend_from_slice(&one);
            }
        }
        "series" => {
            let Value::Mapping(series) = &map["series"] else {
                return Err(ValueError::new(
                    ".series",
                    "series must be {start: S, step: D}",
                ));
            };
            let start = series
                .get("start")
                .ok_or_else(|| ValueError::new(".series", "series is missing `start`"))?;
            let step = series
                .get("step")
                .cloned()
                .unwrap_or(Value::Number(1.into()));
            if s.is_float() {
                let a = as_f64(start)
                    .ok_or_else(|| ValueError::new(".series.start", "start must be a number"))?;
                let d = as_f64(&step)
                    .ok_or_else(|| ValueError::new(".series.step", "step must be a number"))?;
                for i in 0..n {
                    out.extend(float_bytes(a + d * i as f64, s));
                }
            } else {
                let a = int_value(start, s).map_err(|e| prefix(e, ".series.start"))?;
                let d = signed_step(&step).map_err(|e| prefix(e, ".series.step"))?;
                let bits = s.size() as u32 * 8;
                let modulus = 1i128 << bits;
                for i in 0..n {
                    let v = (a + d * i as i128).rem_euclid(modulus);
                    out.extend(int_bytes(v, s));
                }
            }
        }
        _ => {
            let Value::Mapping(r) = &map["random"] else {
                return Err(ValueError::new(
                    ".random",
                    "random must be {seed: K, min: A, max: B}",
                ));
            };
            let seed = r
                .get("seed")
                .and_then(Value::as_u64)
                .ok_or_else(|| ValueError::new(".random", "random needs an integer `seed`"))?;
            let mut rng = SplitMix64::new(seed);
            if s.is_float() {
                let lo = r.get("min").and_then(as_f64).unwrap_or(0.0);
                let hi = r.get("max").and_then(as_f64).unwrap_or(1.0);
                for _ in 0..n {
                    let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    out.extend(float_bytes(lo + unit * (hi - lo), s));
                }
            } else {
                let (tlo, thi) = int_range(s);
                let lo = match r.get("min") {
                    Some(v) => int_value(v, s).map_err(|e| prefix(e, ".random.min"))?,
                    None => tlo,
                };
                let hi = match r.get("max") {
                    Some(v) => int_value(v, s).map_err(|e| prefix(e, ".random.max"))?,
                    None => thi,
                };
                if lo > hi {
                    return Err(ValueError::new(
                        ".random",
                        format!("min {lo} is above max {hi}"),
                    ));
                }
                let span = (hi - lo + 1) as u128;
                for _ in 0..n {
                    let v = lo + (rng.next_u64() as u128 % span) as i128;
                    out.extend(int_bytes(v, s));
                }
            }
        }
    }
    Ok(out)
}

/// The bytes of one element of a `fill`: a single value (every lane of a vector takes it)
/// or, for a vector type, a list of exactly one value per lane (`{fill: [255, 0, 0, 255]}`
/// of `u8x4`: every element is that vector).
fn fill_element(v: &Value, elem: ElemType) -> Result<Vec<u8>, ValueError> {
    let s = elem.scalar;
    let lanes = elem.lanes as usize;
    match v {
        Value::Sequence(items) if items.len() == lanes && lanes > 1 => {
            let mut out = Vec::with_capacity(elem.size());
            for (i, item) in items.iter().enumerate() {
                out.extend(encode_scalar(item, s).map_err(|e| prefix(e, &format!(".fill[{i}]")))?);
            }
            Ok(out)
        }
        Value::Sequence(items) if lanes > 1 => Err(ValueError::new(
            ".fill",
            format!(
                "a fill of {} values for {elem} elements, which have {lanes} values each",
                items.len()
            ),
        )
        .hint(format!(
            "give one value (all lanes) or {lanes} values (one per lane)"
        ))),
        Value::Sequence(_) => Err(ValueError::new(
            ".fill",
            format!("a fill of a list for {elem} elements, which have one value each"),
        )
        .hint("write the value itself: {fill: V, count: N}")),
        one => {
            let bytes = encode_scalar(one, s).map_err(|e| prefix(e, ".fill"))?;
            Ok(bytes.repeat(lanes))
        }
    }
}

fn signed_step(v: &Value) -> Result<i128, ValueError> {
    match v {
        Value::Number(n) if n.as_i64().is_some() => Ok(n.as_i64().unwrap_or(0) as i128),
        Value::Number(n) if n.as_u64().is_some() => Ok(n.as_u64().unwrap_or(0) as i128),
        _ => Err(ValueError::new(
            "",
            "step must be an integer for integer types",
        )),
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

fn prefix(mut e: ValueError, p: &str) -> ValueError {
    e.at = format!("{p}{}", e.at);
    e
}

/// Formats one scalar (little-endian bytes of `s`) for messages: integers in decimal (and hex
/// for unsigned values above 9), floats with enough digits to round-trip plus their bits.
pub fn format_scalar(bytes: &[u8], s: Scalar) -> String {
    let mut buf = [0u8; 8];
    buf[..bytes.len()].copy_from_slice(bytes);
    let raw = u64::from_le_bytes(buf);
    match s {
        Scalar::F16 => {
            let x = half::f16::from_bits(raw as u16);
            format!("{x} (0x{raw:04x})")
        }
        Scalar::F32 => {
            let x = f32::from_bits(raw as u32);
            format!("{x:?} (0x{raw:08x})")
        }
        Scalar::F64 => {
            let x = f64::from_bits(raw);
            format!("{x:?} (0x{raw:016x})")
        }
        _ if s.is_signed() => {
            let bits = s.size() * 8;
            let v = ((raw << (64 - bits)) as i64) >> (64 - bits);
            v.to_string()
        }
        _ => {
            if raw > 9 {
                format!("{raw} (0x{raw:X})")
            } else {
                raw.to_string()
            }
        }
    }
}

/// Formats one element (all its lanes).
pub fn format_elem(bytes: &[u8], elem: ElemType) -> String {
    let size = elem.scalar.size();
    let parts: Vec<String> = bytes
        .chunks(size)
        .map(|c| format_scalar(c, elem.scalar))
        .collect();
    if parts.len() == 1 {
        parts.into_iter().next().unwrap_or_default()
    } else {
        format!("({})", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(s: &str) -> Value {
        serde_yaml_ng::from_str(s).unwrap()
    }

    fn encode_data_t(v: &Value, elem: ElemType) -> Result<Vec<u8>, ValueError> {
        encode_data(v, elem, 1 << 20)
    }

    fn u32s(bytes: &[u8]) -> Vec<u32> {
        conform_plan::bytes::read_u32s(bytes)
    }

    #[test]
    fn lists_hex_and_ranges() {
        let t = ElemType::scalar(Scalar::U32);
        assert_eq!(
            u32s(&encode_data_t(&yaml("[1, \"0xFFFFFFFF\"]"), t).unwrap()),
            [1, u32::MAX]
        );
        let e = encode_data_t(&yaml("[1, -1]"), t).unwrap_err();
        assert_eq!(e.at, "[1]");
        assert!(e.hint.unwrap().contains("0xFFFFFFFF"));
        let e = encode_data_t(&yaml("[4294967296]"), t).unwrap_err();
        assert!(e.message.contains("does not fit in u32"));
        let s8 = ElemType::scalar(Scalar::I8);
        assert_eq!(
            encode_data_t(&yaml("[\"0xFF\", -128]"), s8).unwrap(),
            [0xFF, 0x80]
        );
    }

    #[test]
    fn floats_accept_specials_and_bits() {
        let t = ElemType::scalar(Scalar::F32);
        let b = encode_data_t(&yaml("[1.5, \"-0.0\", \"inf\", \"0x7fc00000\"]"), t).unwrap();
        assert_eq!(
            u32s(&b),
            [0x3FC0_0000, 0x8000_0000, 0x7F80_0000, 0x7FC0_0000]
        );
        let h = ElemType::scalar(Scalar::F16);
        assert_eq!(encode_data_t(&yaml("[1.0]"), h).unwrap(), [0x00, 0x3C]);
    }

    #[test]
    fn generators_expand() {
        let t = ElemType::scalar(Scalar::U32);
        assert_eq!(
            u32s(&encode_data_t(&yaml("{fill: 7, count: 3}"), t).unwrap()),
            [7, 7, 7]
        );
        let s =
            encode_data_t(&yaml("{series: {start: 4294967294, step: 1}, count: 3}"), t).unwrap();
        assert_eq!(
            u32s(&s),
            [u32::MAX - 1, u32::MAX, 0],
            "series wraps in the type"
        );
        let v = ElemType::parse("u32x2").unwrap();
        assert_eq!(
            encode_data_t(&yaml("{fill: 1, count: 2}"), v)
                .unwrap()
                .len(),
            16
        );
        let rgba = ElemType::parse("u8x4").unwrap();
        assert_eq!(
            encode_data_t(&yaml("{fill: [255, 0, 7, 1], count: 2}"), rgba).unwrap(),
            [255, 0, 7, 1, 255, 0, 7, 1],
            "a list fills each element lane by lane"
        );
        assert_eq!(
            encode_data_t(&yaml("{fill: 9, count: 2}"), rgba).unwrap(),
            [9; 8],
            "one value fills every lane"
        );
        let r1 = encode_data_t(&yaml("{random: {seed: 3, min: 0, max: 9}, count: 50}"), t).unwrap();
        let r2 = encode_data_t(&yaml("{random: {seed: 3, min: 0, max: 9}, count: 50}"), t).unwrap();
        assert_eq!(r1, r2);
        assert!(u32s(&r1).iter().all(|&x| x <= 9));
    }

    #[test]
    fn generator_errors_name_the_key() {
        let t = ElemType::scalar(Scalar::U32);
        let e = encode_data_t(&yaml("{fil: 0, count: 3}"), t).unwrap_err();
        assert_eq!(e.hint.as_deref(), Some("did you mean `fill`?"));
        let e = encode_data_t(&yaml("{fill: 0}"), t).unwrap_err();
        assert!(e.message.contains("count"));
        let e = encode_data_t(&yaml("[1, 2, 3]"), ElemType::parse("u32x2").unwrap()).unwrap_err();
        assert!(e.message.contains("whole u32x2"));
        let rgba = ElemType::parse("u8x4").unwrap();
        let e = encode_data_t(&yaml("{fill: [1, 2, 3], count: 2}"), rgba).unwrap_err();
        assert_eq!(e.at, ".fill");
        assert_eq!(
            e.message,
            "a fill of 3 values for u8x4 elements, which have 4 values each"
        );
        let e = encode_data_t(&yaml("{fill: [1, 2, 3, 256], count: 1}"), rgba).unwrap_err();
        assert_eq!(e.at, ".fill[3]", "{e:?}");
        let e = encode_data_t(&yaml("{fill: [1], count: 1}"), t).unwrap_err();
        assert!(e.message.contains("a fill of a list for u32"), "{e:?}");
    }

    #[test]
    fn formats_typed_values() {
        assert_eq!(format_scalar(&[0xFF, 0xFF, 0xFF, 0xFF], Scalar::I32), "-1");
        assert_eq!(
            format_scalar(&[0xFF, 0xFF, 0xFF, 0xFF], Scalar::U32),
            "4294967295 (0xFFFFFFFF)"
        );
        assert_eq!(
            format_scalar(&1.0f32.to_le_bytes(), Scalar::F32),
            "1.0 (0x3f800000)"
        );
    }

    #[test]
    fn data_over_the_byte_budget_is_refused_before_it_is_made() {
        let t = ElemType::parse("f64x4").unwrap();
        let e =
            encode_data(&yaml("{random: {seed: 1}, count: 268435456}"), t, 64 << 20).unwrap_err();
        assert_eq!(e.at, ".count");
        assert_eq!(
            e.message,
            "this data is 8589934592 bytes, above the 67108864 bytes (64 MiB) left for it"
        );
        let e = encode_data(&yaml("{fill: 0, count: 18446744073709551615}"), t, 64).unwrap_err();
        assert!(e.message.contains("18446744073709551615 bytes"), "{e:?}");
        let e = encode_data(&yaml("[1, 2, 3]"), ElemType::parse("u32").unwrap(), 8).unwrap_err();
        assert!(e.message.starts_with("this data is 12 bytes"), "{e:?}");
        assert_eq!(
            encode_data(
                &yaml("{fill: 1, count: 2}"),
                ElemType::parse("u32").unwrap(),
                8
            )
            .unwrap()
            .len(),
            8
        );
    }
}
