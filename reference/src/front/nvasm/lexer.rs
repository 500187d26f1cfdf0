//! Tokens of NV assembly (ARB program syntax): identifiers, numbers, punctuation; `#` comments.

use crate::Diagnostic;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// An integer literal (decimal or 0x hex) with its value.
    Int(u64),
    /// A literal with a fraction or exponent, correctly rounded to double and to single
    /// precision from its text (no double rounding).
    Float(f64, f32),
    /// One punctuation character: . , ; : = { } [ ] ( ) | - +
    Sym(char),
    /// `..` in ranges.
    DotDot,
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
    pub col: u32,
}

/// Splits `text` (the part after the header) into tokens; `line0`/`col0` are the position of
/// its first character.
pub fn lex(text: &str, line0: u32, col0: u32) -> Result<Vec<Token>, Diagnostic> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut line, mut col) = (line0, col0);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let (tl, tc) = (line, col);
        if c == '\n' {
            line += 1;
            col = 1;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            col += (i - start) as u32;
            out.push(Token {
                tok: Tok::Ident(s),
                line: tl,
                col: tc,
            });
            continue;
        }
        let starts_number = c.is_ascii_digit()
            || (c == '.'
                && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
                && !prev_is_operand(&out));
        if starts_number {
            if c == '0' && matches!(chars.get(i + 1), Some('x') | Some('X')) {
                i += 2;
                let hs = i;
                while i < chars.len() && chars[i].is_ascii_hexdigit() {
                    i += 1;
                }
                let h: String = chars[hs..i].iter().collect();
                col += (i - start) as u32;
                let v = u64::from_str_radix(&h, 16).map_err(|_| Diagnostic {
                    line: tl,
                    column: tc,
                    message: format!("malformed hexadecimal constant \"0x{h}\""),
                })?;
                out.push(Token {
                    tok: Tok::Int(v),
                    line: tl,
                    col: tc,
                });
                continue;
            }
            let mut is_float = false;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i < chars.len() && chars[i] == '.' && chars.get(i + 1) != Some(&'.') {
                // a fraction: "1.5", "1." — but not a swizzle on a number.
                if !chars
                    .get(i + 1)
                    .is_some_and(|d| d.is_ascii_alphabetic() && *d != 'e' && *d != 'E')
                {
                    is_float = true;
                    i += 1;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    is_float = true;
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            let s: String = chars[start..i].iter().collect();
            col += (i - start) as u32;
            let tok = if is_float {
                let single = s.parse::<f32>().unwrap_or(f32::INFINITY);
                let double = s.parse::<f64>().map_err(|_| Diagnostic {
                    line: tl,
                    column: tc,
                    message: format!("malformed number \"{s}\""),
                })?;
                Tok::Float(double, single)
            } else {
                match s.parse::<u64>() {
                    Ok(v) => Tok::Int(v),
                    Err(_) => Tok::Float(
                        s.parse::<f64>().unwrap_or(f64::INFINITY),
                        s.parse::<f32>().unwrap_or(f32::INFINITY),
                    ),
                }
            };
            out.push(Token {
                tok,
                line: tl,
                col: tc,
            });
            continue;
        }
        if c == '.' && chars.get(i + 1) == Some(&'.') {
            out.push(Token {
                tok: Tok::DotDot,
                line: tl,
                col: tc,
            });
            i += 2;
            col += 2;
            continue;
        }
        if ".,;:={}[]()|-+".contains(c) {
            out.push(Token {
                tok: Tok::Sym(c),
                line: tl,
                col: tc,
            });
            i += 1;
            col += 1;
            continue;
        }
        return Err(Diagnostic {
            line: tl,
            column: tc,
            message: format!("unexpected character '{c}'"),
        });
    }
    out.push(Token {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok(out)
}

/// Whether the previous token ends an operand (so a following '.' is a suffix, not a number).
fn prev_is_operand(out: &[Token]) -> bool {
    matches!(
        out.last().map(|t| &t.tok),
        Some(Tok::Ident(_)) | Some(Tok::Sym(']'))
    )
}
