//! The C library's text-to-number routines as shader_runner uses them: `strtol`/`strtoul`/
//! `strtod` with their prefix, base and overflow rules, glibc's `sscanf` for the handful of
//! conversions shader_runner's format strings use, and piglit's `parser_utils.c` helpers
//! (`parse_str`, `parse_ints`, `parse_floats`, ...).
//!
//! shader_runner reads every command with these, so their quirks are piglit's semantics: `%d`
//! stops at the `x` of `0x10`, `parse_ints` reads `010` as octal, `%u` wraps `-1` to
//! 0xFFFFFFFF, `strtof_hex` takes `0x3f800000` as bits while `%f` takes it as a hex float.
//! Matching them exactly is what makes an imported case mean what the piglit test meant.

/// C's `isspace` in the "C" locale.
pub fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Skips C whitespace.
pub fn skip_space(s: &str) -> &str {
    let n = s.bytes().take_while(|&c| is_c_space(c)).count();
    &s[n..]
}

/// piglit's `parse_str`: skips whitespace, then `lit` must follow; returns what is after it.
pub fn parse_str<'a>(s: &'a str, lit: &str) -> Option<&'a str> {
    skip_space(s).strip_prefix(lit)
}

/// piglit's `parse_word`: the next run of non-space characters and the rest.
pub fn parse_word(s: &str) -> Option<(&str, &str)> {
    let t = skip_space(s);
    let n = t.bytes().take_while(|&c| !is_c_space(c)).count();
    (n > 0).then(|| (&t[..n], &t[n..]))
}

fn digit_value(c: u8) -> Option<u32> {
    (c as char).to_digit(36)
}

/// An optional `+`/`-`: whether it is a minus, and how many bytes it takes.
fn sign(b: &[u8]) -> (bool, usize) {
    match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    }
}

/// The digits of a C integer: sign, base (0 = detect `0x`/`0` prefixes), the magnitude (None
/// when it overflowed u64) and the rest. None when there is no number at all.
fn c_integer(s: &str, base: u32) -> Option<(bool, Option<u64>, &str)> {
    let t = skip_space(s);
    let b = t.as_bytes();
    let (negative, mut i) = sign(b);
    let mut base = base;
    let has_hex_prefix = b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X'))
        && b.get(i + 2)
            .and_then(|&c| digit_value(c))
            .is_some_and(|d| d < 16);
    if (base == 0 || base == 16) && has_hex_prefix {
        base = 16;
        i += 2;
    } else if base == 0 {
        base = if b.get(i) == Some(&b'0') { 8 } else { 10 };
    }
    let start = i;
    let mut value: Option<u64> = Some(0);
    while let Some(d) = b.get(i).and_then(|&c| digit_value(c)).filter(|&d| d < base) {
        value = value
            .and_then(|v| v.checked_mul(base as u64))
            .and_then(|v| v.checked_add(d as u64));
        i += 1;
    }
    (i > start).then(|| (negative, value, &t[i..]))
}

/// `strtol`/`strtoll` (64-bit long): clamps to the i64 range on overflow.
pub fn strtol(s: &str, base: u32) -> Option<(i64, &str)> {
    let (neg, mag, rest) = c_integer(s, base)?;
    let v = match (neg, mag) {
        (false, Some(m)) if m <= i64::MAX as u64 => m as i64,
        (false, _) => i64::MAX,
        (true, Some(m)) if m <= 1 << 63 => (m as i64).wrapping_neg(),
        (true, _) => i64::MIN,
    };
    Some((v, rest))
}

/// `strtoul`/`strtoull` (64-bit): a minus sign negates in unsigned arithmetic; overflow gives
/// u64::MAX.
pub fn strtoul(s: &str, base: u32) -> Option<(u64, &str)> {
    let (neg, mag, rest) = c_integer(s, base)?;
    let v = match mag {
        None => u64::MAX,
        Some(m) if neg => m.wrapping_neg(),
        Some(m) => m,
    };
    Some((v, rest))
}

/// Like [`strtoul`], but also says whether the value overflowed (errno ERANGE).
fn strtoul_checked(s: &str, base: u32) -> Option<(u64, bool, &str)> {
    let (neg, mag, rest) = c_integer(s, base)?;
    Some(match mag {
        None => (u64::MAX, true, rest),
        Some(m) if neg => (m.wrapping_neg(), false, rest),
        Some(m) => (m, false, rest),
    })
}

/// A float as `strtod` reads it, before rounding to a type.
enum FloatText<'a> {
    Decimal(&'a str),
    Hex {
        negative: bool,
        mantissa: u128,
        /// Exponent of two to apply to `mantissa`.
        exp2: i64,
    },
    Inf(bool),
    Nan(bool),
}

/// The longest prefix of `s` (after whitespace) that `strtod` accepts, and the rest.
fn float_text(s: &str) -> Option<(FloatText<'_>, &str)> {
    let t = skip_space(s);
    let b = t.as_bytes();
    let (negative, i) = sign(b);
    let word = |w: &str, at: usize| {
        t.get(at..at + w.len())
            .is_some_and(|x| x.eq_ignore_ascii_case(w))
    };
    if word("infinity", i) {
        return Some((FloatText::Inf(negative), &t[i + 8..]));
    }
    if word("inf", i) {
        return Some((FloatText::Inf(negative), &t[i + 3..]));
    }
    if word("nan", i) {
        let mut end = i + 3;
        // nan(n-char-sequence)
        if b.get(end) == Some(&b'(') {
            let inner = b[end + 1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            if b.get(end + 1 + inner) == Some(&b')') {
                end += inner + 2;
            }
        }
        return Some((FloatText::Nan(negative), &t[end..]));
    }
    let is_hex = |c: &u8| c.is_ascii_hexdigit();
    if b.get(i) == Some(&b'0') && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        let mut j = i + 2;
        let mut mantissa: u128 = 0;
        let mut exp2: i64 = 0;
        let mut digits = 0;
        let mut sticky = false;
        let mut push = |d: u32, frac: bool, exp2: &mut i64| {
            if mantissa >> 120 == 0 {
                mantissa = mantissa << 4 | d as u128;
                if frac {
                    *exp2 -= 4;
                }
            } else {
                // Too many digits to hold: keep the magnitude, remember lost bits.
                sticky |= d != 0;
                if !frac {
                    *exp2 += 4;
                }
            }
        };
        while let Some(c) = b.get(j).filter(|c| is_hex(c)) {
            push((*c as char).to_digit(16).unwrap_or(0), false, &mut exp2);
            digits += 1;
            j += 1;
        }
        if b.get(j) == Some(&b'.') {
            let mut k = j + 1;
            let mut frac_digits = 0;
            while let Some(c) = b.get(k).filter(|c| is_hex(c)) {
                push((*c as char).to_digit(16).unwrap_or(0), true, &mut exp2);
                frac_digits += 1;
                k += 1;
            }
            if digits + frac_digits > 0 {
                digits += frac_digits;
                j = k;
            }
        }
        if digits == 0 {
            // "0x" without digits: strtod reads the "0".
            return Some((FloatText::Decimal(&t[..i + 1]), &t[i + 1..]));
        }
        if matches!(b.get(j), Some(b'p' | b'P')) {
            if let Some((e, rest)) = exponent(&t[j + 1..]) {
                exp2 = exp2.saturating_add(e);
                j = t.len() - rest.len();
            }
        }
        if sticky {
            mantissa |= 1;
        }
        return Some((
            FloatText::Hex {
                negative,
                mantissa,
                exp2,
            },
            &t[j..],
        ));
    }
    let mut j = i;
    let int_digits = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
    j += int_digits;
    let mut frac_digits = 0;
    if b.get(j) == Some(&b'.') {
        frac_digits = b[j + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if int_digits + frac_digits > 0 {
            j += 1 + frac_digits;
        }
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        if let Some((_, rest)) = exponent(&t[j + 1..]) {
            j = t.len() - rest.len();
        }
    }
    Some((FloatText::Decimal(&t[..j]), &t[j..]))
}

/// `[+-]digits` of an exponent (saturating); None without digits.
fn exponent(s: &str) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    let (neg, i) = sign(b);
    let n = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    let mut v: i64 = 0;
    for c in &b[i..i + n] {
        v = v.saturating_mul(10).saturating_add((c - b'0') as i64);
    }
    Some((if neg { -v } else { v }, &s[i + n..]))
}

/// 2^e as an f64 (saturating to 0 / inf), for scaling hex floats.
fn scale(x: f64, e: i64) -> f64 {
    let mut x = x;
    let mut e = e.clamp(-3000, 3000);
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e as i32)
}

/// The value of a float's text in f32 or f64: `hex` turns a hexadecimal mantissa and
/// exponent into the type.
fn float_value<T>(text: FloatText<'_>, hex: impl Fn(u128, i64) -> T, inf: T, nan: T) -> Option<T>
where
    T: std::str::FromStr + std::ops::Neg<Output = T>,
{
    let signed = |negative: bool, v: T| if negative { -v } else { v };
    Some(match text {
        FloatText::Decimal(d) => d.parse::<T>().ok()?,
        FloatText::Hex {
            negative,
            mantissa,
            exp2,
        } => signed(negative, hex(mantissa, exp2)),
        FloatText::Inf(negative) => signed(negative, inf),
        FloatText::Nan(negative) => signed(negative, nan),
    })
}

/// `strtod`: the value and the rest; None when there is no number.
pub fn strtod(s: &str) -> Option<(f64, &str)> {
    let (text, rest) = float_text(s)?;
    // The mantissa rounds once to f64; scaling by a power of two is exact.
    let v = float_value(text, |m, e| scale(m as f64, e), f64::INFINITY, f64::NAN)?;
    Some((v, rest))
}

/// `strtof`: rounds once, straight to f32 (what glibc's `%f` does).
pub fn strtof(s: &str) -> Option<(f32, &str)> {
    let (text, rest) = float_text(s)?;
    // The mantissa rounds once to f32; scaling by a power of two is then exact outside the
    // subnormal range.
    let hex = |m: u128, e: i64| scale(m as f32 as f64, e) as f32;
    let v = float_value(text, hex, f32::INFINITY, f32::NAN)?;
    Some((v, rest))
}

/// One value `sscanf` stored.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// `%d`
    Int(i32),
    /// `%u`, `%x`
    UInt(u32),
    /// `%ld`
    Long(i64),
    /// `%lu`
    ULong(u64),
    /// `%f`
    Float(f32),
    /// `%lf`
    Double(f64),
    /// `%s`
    Str(String),
}

/// glibc's `sscanf(input, format, ...)` for the conversions shader_runner uses (`%d %u %x %ld
/// %lu %f %lf %s %31s`): returns the values stored, in order (their number is sscanf's
/// return value when it is not EOF). Whitespace in the format skips any amount of
/// whitespace; other characters must match exactly; each conversion but `%c` skips leading
/// whitespace; a failed match stops the scan.
pub fn sscanf(input: &str, format: &str) -> Vec<Arg> {
    let mut out = Vec::new();
    let mut s = input;
    let f = format.as_bytes();
    let mut i = 0;
    while i < f.len() {
        let c = f[i];
        if is_c_space(c) {
            s = skip_space(s);
            i += 1;
            continue;
        }
        if c != b'%' {
            // A literal character (compared as characters: formats may hold any text).
            let Some(lit) = format[i..].chars().next() else {
                return out;
            };
            match s.strip_prefix(lit) {
                Some(rest) => {
                    s = rest;
                    i += lit.len_utf8();
                    continue;
                }
                None => return out,
            }
        }
        i += 1;
        let mut width: Option<usize> = None;
        while let Some(d) = f.get(i).filter(|d| d.is_ascii_digit()) {
            width = Some(width.unwrap_or(0) * 10 + (d - b'0') as usize);
            i += 1;
        }
        let long = f.get(i) == Some(&b'l');
        if long {
            i += 1;
        }
        let Some(&conv) = f.get(i) else {
            return out;
        };
        i += 1;
        s = skip_space(s);
        if s.is_empty() {
            return out;
        }
        // The field: at most `width` characters.
        let field_len = width.map_or(s.len(), |w| floor_char_boundary(s, w));
        let field = &s[..field_len];
        let (arg, rest) = match conv {
            b'd' | b'u' | b'x' => {
                let base = if conv == b'x' { 16 } else { 10 };
                let Some((v, rest)) = strtoul(field, base) else {
                    return out;
                };
                let signed = strtol(field, base).map_or(0, |(x, _)| x);
                let arg = match (conv, long) {
                    (b'd', false) => Arg::Int(signed as i32),
                    (b'd', true) => Arg::Long(signed),
                    (_, false) => Arg::UInt(v as u32),
                    (_, true) => Arg::ULong(v),
                };
                (arg, rest)
            }
            b'f' => {
                let parsed = if long {
                    strtod(field).map(|(v, r)| (Arg::Double(v), r))
                } else {
                    strtof(field).map(|(v, r)| (Arg::Float(v), r))
                };
                let Some(p) = parsed else {
                    return out;
                };
                p
            }
            b's' => {
                let n = field.bytes().take_while(|&c| !is_c_space(c)).count();
                (Arg::Str(field[..n].to_string()), &field[n..])
            }
            _ => return out,
        };
        out.push(arg);
        s = &s[field_len - rest.len()..];
    }
    out
}

fn floor_char_boundary(s: &str, n: usize) -> usize {
    let mut n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Reads up to `n` values with `one`, each from where the last stopped, as piglit's
/// `parse_*` helpers do (they stop at the first text that is not a value).
fn read_n<'a, T>(s: &'a str, n: usize, one: impl Fn(&'a str) -> Option<(T, &'a str)>) -> Vec<T> {
    let mut out = Vec::new();
    let mut s = s;
    while out.len() < n {
        let Some((v, rest)) = one(s) else { break };
        out.push(v);
        s = rest;
    }
    out
}

/// piglit's `parse_ints`: up to `n` values with `strtoll(.., 0)`, each truncated to int.
pub fn parse_ints(s: &str, n: usize) -> Vec<i32> {
    read_n(s, n, |t| strtol(t, 0).map(|(v, rest)| (v as i32, rest)))
}

/// piglit's `parse_uints`: up to `n` values with `strtoul(.., 0)`, truncated to unsigned.
pub fn parse_uints(s: &str, n: usize) -> Vec<u32> {
    read_n(s, n, |t| strtoul(t, 0).map(|(v, rest)| (v as u32, rest)))
}

/// A value too large for its type where piglit asserts that none is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

/// piglit's `parse_int64s`: `0x...` is a raw bit pattern (`strtoull`), anything else
/// `strtoll(.., 0)`. Err when a value overflows: piglit asserts `errno == 0` there.
pub fn parse_int64s(s: &str, n: usize) -> Result<Vec<i64>, Overflow> {
    read_n(s, n, |s| {
        let t = skip_space(s);
        if t.starts_with("0x") {
            let (v, overflow, rest) = strtoul_checked(t, 0)?;
            Some((
                if overflow {
                    Err(Overflow)
                } else {
                    Ok(v as i64)
                },
                rest,
            ))
        } else {
            let (neg, mag, rest) = c_integer(t, 0)?;
            let fits = match mag {
                Some(m) if neg => m <= 1 << 63,
                Some(m) => m <= i64::MAX as u64,
                None => false,
            };
            let v = strtol(t, 0).map_or(0, |(v, _)| v);
            Some((if fits { Ok(v) } else { Err(Overflow) }, rest))
        }
    })
    .into_iter()
    .collect()
}

/// piglit's `parse_uint64s`: `strtoull(.., 0)`.
pub fn parse_uint64s(s: &str, n: usize) -> Vec<u64> {
    read_n(s, n, |t| strtoul(t, 0))
}

/// Skips spaces and tabs only, as piglit's `strtof_hex`/`strtod_hex` do before looking for
/// `0x`.
fn skip_blanks(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
}

/// piglit's `parse_floats` (`strtof_hex`): `0x...` is the raw bit pattern of the float
/// (`strtoul(.., 16)`, truncated to 32 bits); anything else is `strtod` rounded to float.
pub fn parse_floats(s: &str, n: usize) -> Vec<f32> {
    read_n(s, n, |s| {
        let t = skip_blanks(s);
        if t.starts_with("0x") {
            strtoul(t, 16).map(|(v, rest)| (f32::from_bits(v as u32), rest))
        } else {
            strtod(t).map(|(v, rest)| (v as f32, rest))
        }
    })
}

/// piglit's `parse_doubles` (`strtod_hex`): `0x...` is the raw bit pattern of the double.
pub fn parse_doubles(s: &str, n: usize) -> Vec<f64> {
    read_n(s, n, |s| {
        let t = skip_blanks(s);
        if t.starts_with("0x") {
            strtoul(t, 16).map(|(v, rest)| (f64::from_bits(v), rest))
        } else {
            strtod(t)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn strtol_follows_c() {
        assert_eq!(strtol("  42xyz", 10), Some((42, "xyz")));
        assert_eq!(strtol("0x1F", 0), Some((31, "")));
        assert_eq!(strtol("010", 0), Some((8, "")));
        assert_eq!(strtol("010", 10), Some((10, "")));
        assert_eq!(strtol("08", 0), Some((0, "8")));
        assert_eq!(strtol("0xg", 0), Some((0, "xg")));
        assert_eq!(strtol("-5", 0), Some((-5, "")));
        assert_eq!(strtol("99999999999999999999", 10), Some((i64::MAX, "")));
        assert_eq!(strtol("-99999999999999999999", 10), Some((i64::MIN, "")));
        assert_eq!(strtol("x", 10), None);
        assert_eq!(strtol("-", 10), None);
    }

    #[test]
    fn strtoul_wraps_negatives_and_saturates() {
        assert_eq!(strtoul("-1", 10), Some((u64::MAX, "")));
        assert_eq!(strtoul("99999999999999999999", 10), Some((u64::MAX, "")));
        assert_eq!(strtoul("0xFFFFFFFF", 16), Some((0xFFFF_FFFF, "")));
        assert_eq!(strtoul("ff", 16), Some((255, "")));
    }

    #[test]
    fn strtod_reads_decimal_hex_inf_nan() {
        assert_eq!(strtod("1.5e3x"), Some((1500.0, "x")));
        assert_eq!(strtod("1e"), Some((1.0, "e")));
        assert_eq!(strtod(".5"), Some((0.5, "")));
        assert_eq!(strtod("-inf"), Some((f64::NEG_INFINITY, "")));
        assert_eq!(strtod("Infinity!"), Some((f64::INFINITY, "!")));
        assert!(strtod("nan(0x1)").unwrap().0.is_nan());
        assert_eq!(strtod("nan(0x1)").unwrap().1, "");
        assert_eq!(strtod("0x1p3"), Some((8.0, "")));
        assert_eq!(strtod("0x1.8"), Some((1.5, "")));
        assert_eq!(strtod("0x3f800000"), Some((1_065_353_216.0, "")));
        assert_eq!(strtod("0x"), Some((0.0, "x")));
        assert_eq!(strtod("."), None);
        assert_eq!(strtod("abc"), None);
    }

    #[test]
    fn strtof_rounds_once() {
        // 1 + 2^-24 + 2^-60: nearest float is 1 + 2^-23, but via double it ties to 1.0.
        let text = "1.00000005960464477539062500000000008673617379884035472059622406959533691406";
        assert_eq!(strtof(text).unwrap().0, 1.000_000_1);
        assert_eq!(strtod(text).unwrap().0 as f32, 1.0);
    }

    #[test]
    fn sscanf_mirrors_glibc() {
        use Arg::*;
        assert_eq!(
            sscanf("compute 1 2 3", "compute %d %d %d"),
            vec![Int(1), Int(2), Int(3)]
        );
        assert_eq!(sscanf("compute1 2 3 junk", "compute %d %d %d").len(), 3);
        assert_eq!(
            sscanf("compute group size 1 1 1 2 2 2", "compute %d %d %d"),
            vec![]
        );
        // %d stops at the x of 0x10; the literal 0x form is tried by piglit first.
        assert_eq!(
            sscanf("probe ssbo uint 0 4 == 0x10", "probe ssbo uint %d %d %s %d"),
            vec![Int(0), Int(4), Str("==".into()), Int(0)]
        );
        assert_eq!(
            sscanf(
                "probe ssbo uint 0 4 == 0x10",
                "probe ssbo uint %d %d %s 0x%x"
            ),
            vec![Int(0), Int(4), Str("==".into()), UInt(16)]
        );
        assert_eq!(sscanf("x -1", "x %u"), vec![UInt(u32::MAX)]);
        assert_eq!(sscanf("x 4294967295", "x %d"), vec![Int(-1)]);
        assert_eq!(sscanf("x 0x3f800000", "x %f"), vec![Float(1_065_353_216.0)]);
        assert_eq!(
            sscanf("memory barrier GL_ALL_BARRIER_BITS", "memory barrier %s"),
            vec![Str("GL_ALL_BARRIER_BITS".into())]
        );
        assert_eq!(sscanf("a", "a %d"), vec![]);
        assert_eq!(
            sscanf("abcdef", "%3s%s"),
            vec![Str("abc".into()), Str("def".into())]
        );
    }

    #[test]
    fn parser_utils_helpers() {
        assert_eq!(parse_ints(" 1 0x10 010 junk", 5), vec![1, 16, 8]);
        assert_eq!(parse_ints("4294967295", 1), vec![-1]);
        assert_eq!(parse_uints("-1 7", 2), vec![u32::MAX, 7]);
        assert_eq!(parse_int64s("0xFFFFFFFFFFFFFFFF", 1), Ok(vec![-1]));
        assert_eq!(parse_int64s("-9223372036854775808", 1), Ok(vec![i64::MIN]));
        assert_eq!(parse_int64s("9223372036854775808", 1), Err(Overflow));
        assert_eq!(parse_uint64s("18446744073709551615", 1), vec![u64::MAX]);
        assert_eq!(parse_floats("0x3f800000 2.5", 2), vec![1.0, 2.5]);
        assert_eq!(parse_floats("0X3f800000", 1), vec![1_065_353_216.0]);
        assert_eq!(parse_doubles("0x3ff0000000000000", 1), vec![1.0]);
        assert_eq!(parse_str("  link error", "link error"), Some(""));
        assert_eq!(parse_word("  int x"), Some(("int", " x")));
        assert_eq!(parse_word("   "), None);
    }

    quickcheck! {
        fn sscanf_never_panics(input: String, format: String) -> bool {
            let _ = sscanf(&input, &format);
            true
        }

        fn numbers_never_panic(input: String) -> bool {
            let _ = strtol(&input, 0);
            let _ = strtoul(&input, 16);
            let _ = strtod(&input);
            let _ = strtof(&input);
            let _ = parse_int64s(&input, 4);
            let _ = parse_floats(&input, 4);
            let _ = parse_doubles(&input, 4);
            true
        }

        fn decimal_strtol_matches_rust(n: i64) -> bool {
            strtol(&n.to_string(), 0) == Some((n, ""))
        }

        fn strtod_matches_rust_on_floats(x: f64) -> bool {
            let text = format!("{x:e}");
            match strtod(&text) {
                Some((v, "")) => v == x || (v.is_nan() && x.is_nan()),
                _ => false,
            }
        }
    }
}
