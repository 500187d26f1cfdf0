//! Integer literals glsl-lang's lexer rejects as invalid int literals: 64-bit ones
//! (GL_ARB_gpu_shader_int64: the suffixes `l`/`L` make an `int64_t`, `ul`/`UL` a `uint64_t`),
//! and `int` literals without a suffix whose value is above 2^31 - 1 but fits in 32 bits
//! (`0xFF00FF00`, `0x80000000`, `4294967295`): GLSL 4.60 section 4.1.3, "It is a compile-time
//! error to provide a literal integer whose bit pattern cannot fit in 32 bits. The bit pattern
//! of the literal is always used unmodified. So a signed literal whose bit pattern includes a
//! set sign bit creates a negative value." (glsl-lang reads them as an i32 and fails.)
//!
//! Before parsing, each such literal is replaced by `0` padded with spaces to the same length,
//! so that every byte offset (and so every diagnostic position) stays the same, and its value is
//! kept in a table keyed by the literal's byte offset; the lowering reads an integer constant
//! at such an offset from the table. A 64-bit literal on a preprocessor directive line (a macro
//! body, an `#if` expression) cannot be handled this way (its uses are not at its offset): the
//! shader is refused, never run with a wrong value.

use std::borrow::Cow;
use std::collections::HashMap;

/// An integer literal the lexer cannot read: its type (signed or not, 64-bit or 32-bit) and
/// bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntLiteral {
    pub unsigned: bool,
    /// A 64-bit literal (`int64_t`, `uint64_t`); a 32-bit one is an `int` with its sign bit
    /// set.
    pub wide: bool,
    pub bits: u64,
}

/// What stops a source from being rewritten: (byte offset, message, whether it is a refusal
/// rather than a compile error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiteralProblem {
    pub offset: usize,
    pub message: String,
    pub unsupported: bool,
}

/// The source with those literals replaced (see the module docs) and their table.
pub fn rewrite(source: &str) -> Result<(Cow<'_, str>, HashMap<usize, IntLiteral>), LiteralProblem> {
    let b = source.as_bytes();
    let mut found: Vec<(usize, usize, IntLiteral)> = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    let mut directive = false;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            // A backslash-newline continues a directive.
            let continued = i > 0 && b[i - 1] == b'\\';
            line_start = true;
            directive &= continued;
            i += 1;
            continue;
        }
        if let Some((end, _)) = comment_end(b, i) {
            i = end;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if line_start && c == b'#' {
            directive = true;
        }
        line_start = false;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            continue;
        }
        let number_start =
            c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        if !number_start {
            i += 1;
            continue;
        }
        // A pp-number: digits, letters, '.', and a sign after an exponent letter.
        let start = i;
        while i < b.len() {
            let d = b[i];
            let sign_after_exp = (d == b'+' || d == b'-')
                && matches!(b[i - 1], b'e' | b'E')
                && !source[start..i].starts_with("0x")
                && !source[start..i].starts_with("0X");
            if d.is_ascii_alphanumeric() || d == b'_' || d == b'.' || sign_after_exp {
                i += 1;
            } else {
                break;
            }
        }
        let text = &source[start..i];
        let Some(lit) = int64_literal(text).or_else(|| signed_32_bit_literal(text)) else {
            continue;
        };
        let lit = lit.map_err(|message| LiteralProblem {
            offset: start,
            message,
            unsupported: false,
        })?;
        if directive {
            let what = if lit.wide {
                "64-bit integer literal"
            } else {
                "int literal with its sign bit set"
            };
            return Err(LiteralProblem {
                offset: start,
                message: format!("unsupported: the {what} '{text}' on a preprocessor directive line (the reference reads such literals only in shader code)"),
                unsupported: true,
            });
        }
        found.push((start, i, lit));
    }
    if found.is_empty() {
        return Ok((Cow::Borrowed(source), HashMap::new()));
    }
    let mut out = String::with_capacity(source.len());
    let mut last = 0;
    let mut table = HashMap::new();
    for (start, end, lit) in found {
        out.push_str(&source[last..start]);
        out.push('0');
        out.extend(std::iter::repeat_n(' ', end - start - 1));
        table.insert(start, lit);
        last = end;
    }
    out.push_str(&source[last..]);
    Ok((Cow::Owned(out), table))
}

/// At a comment starting at byte `i` (`//` or `/*`): the offset just past it (a line comment
/// ends before its newline) and whether it is closed (a block comment may run to the end).
pub(super) fn comment_end(b: &[u8], i: usize) -> Option<(usize, bool)> {
    match (b.get(i), b.get(i + 1)) {
        (Some(b'/'), Some(b'/')) => {
            let len = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap_or(b.len() - i);
            Some((i + len, true))
        }
        (Some(b'/'), Some(b'*')) => match b[i + 2..].windows(2).position(|w| w == b"*/") {
            Some(k) => Some((i + 2 + k + 2, true)),
            None => Some((b.len(), false)),
        },
        _ => None,
    }
}

/// `Some` when `text` (a pp-number) ends in a 64-bit suffix: its value, or why it is invalid.
fn int64_literal(text: &str) -> Option<Result<IntLiteral, String>> {
    let (digits, unsigned) =
        if let Some(d) = text.strip_suffix("ul").or_else(|| text.strip_suffix("UL")) {
            (d, true)
        } else if let Some(d) = text.strip_suffix('l').or_else(|| text.strip_suffix('L')) {
            (d, false)
        } else {
            return None;
        };
    // Float literals with a double suffix (`1.0lf`) end in 'f', not 'l'; anything else with
    // a '.' or an exponent is not an integer.
    let (radix, body) = radix_and_digits(digits);
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return if digits
            .chars()
            .all(|c| c.is_ascii_hexdigit() || matches!(c, 'x' | 'X'))
        {
            Some(Err(format!("invalid integer literal '{text}'")))
        } else {
            None
        };
    }
    Some(match u64::from_str_radix(body, radix) {
        Ok(bits) => Ok(IntLiteral {
            unsigned,
            wide: true,
            bits,
        }),
        Err(_) => Err(format!("integer literal '{text}' does not fit in 64 bits")),
    })
}

/// The radix of an integer literal's digits (GLSL 4.60 section 4.1.3: `0x` or `0X` hexadecimal,
/// a leading `0` octal, else decimal) and the digits after the prefix.
fn radix_and_digits(digits: &str) -> (u32, &str) {
    if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, h)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    }
}

/// `Some` when `text` (a pp-number) is an `int` literal without a suffix whose value is above
/// 2^31 - 1 and fits in 32 bits: its bits, an `int` with the sign bit set. Larger values and
/// everything else are left to the lexer (a literal that does not fit in 32 bits is its
/// compile error).
fn signed_32_bit_literal(text: &str) -> Option<Result<IntLiteral, String>> {
    let (radix, body) = radix_and_digits(text);
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = u64::from_str_radix(body, radix).ok()?;
    (v > i32::MAX as u64 && v <= u64::from(u32::MAX)).then_some(Ok(IntLiteral {
        unsigned: false,
        wide: false,
        bits: v,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_replaced_in_place() {
        let src = "int64_t a = 5L + 0x10UL; // 7L\nuint64_t b = 017ul;";
        let (out, t) = rewrite(src).unwrap();
        assert_eq!(out.len(), src.len());
        assert_eq!(out, "int64_t a = 0  + 0     ; // 7L\nuint64_t b = 0    ;");
        let at = |s: &str| src.find(s).unwrap();
        assert_eq!(
            t[&at("5L")],
            IntLiteral {
                unsigned: false,
                wide: true,
                bits: 5
            }
        );
        assert_eq!(
            t[&at("0x10UL")],
            IntLiteral {
                unsigned: true,
                wide: true,
                bits: 16
            }
        );
        assert_eq!(
            t[&at("017ul")],
            IntLiteral {
                unsigned: true,
                wide: true,
                bits: 15
            }
        );
        assert_eq!(t.len(), 3, "the literal in the comment is left alone");
    }

    #[test]
    fn other_numbers_and_identifiers_are_left_alone() {
        let src = "float x = 1.0e-5 + 2.0lf; int y5L = 3u; uint z = 0x1Fu;";
        let (out, t) = rewrite(src).unwrap();
        assert!(t.is_empty());
        assert_eq!(out, src);
    }

    #[test]
    fn full_width_values_and_errors() {
        let (_, t) = rewrite("x = 0xFFFFFFFFFFFFFFFFUL;").unwrap();
        assert_eq!(t.values().next().unwrap().bits, u64::MAX);
        let e = rewrite("x = 18446744073709551616UL;").unwrap_err();
        assert!(!e.unsupported && e.message.contains("64 bits"), "{e:?}");
        let e = rewrite("#define K 5L\nint64_t x = K;").unwrap_err();
        assert!(e.unsupported && e.offset == 10, "{e:?}");
    }

    /// GLSL 4.60 section 4.1.3: an `int` literal above 2^31 - 1 keeps its 32 bits (a negative
    /// value); one past 32 bits, and any with a `u` suffix, are the lexer's.
    #[test]
    fn int_literals_with_the_sign_bit_keep_their_bits() {
        let src = "int a = 0xFF00FF00 + 037777777777 + 2147483648 + 2147483647 + 0x80000000u;";
        let (out, t) = rewrite(src).unwrap();
        assert_eq!(out.len(), src.len());
        let at = |s: &str| src.find(s).unwrap();
        let lit = |bits| IntLiteral {
            unsigned: false,
            wide: false,
            bits,
        };
        assert_eq!(t[&at("0xFF00FF00")], lit(0xFF00_FF00));
        assert_eq!(t[&at("037777777777")], lit(0xFFFF_FFFF));
        assert_eq!(t[&at("2147483648")], lit(0x8000_0000));
        assert_eq!(
            t.len(),
            3,
            "2147483647 and 0x80000000u are the lexer's: {t:?}"
        );
        let (_, t) = rewrite("int b = 4294967296;").unwrap();
        assert!(t.is_empty(), "past 32 bits: the lexer's compile error");
        let e = rewrite("#define M 0x80000000\nint c = M;").unwrap_err();
        assert!(e.unsupported && e.message.contains("sign bit"), "{e:?}");
    }
}
