//! Transformations of an NV assembly program (`!!NVcp5.0`, as the cases hold it: one
//! statement a line) that keep what it computes, at the instruction level: each hides
//! something from the compiler while the program's results stay the same, so the original
//! case's expectations stay the oracle.
//!
//! The opaque values come from a storage buffer the transformation declares ([`prepare`]:
//! `STORAGE conform_opq[] = { program.storage[N] };` at a free binding, holding 0, 1 and 1.0,
//! which needs the program's own `OPTION NV_shader_storage_buffer;`), loaded once before the
//! program's first instruction into `conform_o.x`, `conform_o1.x` and `conform_o2.x` (a
//! single-component load fills the other components with zeroes). Fresh temporaries are
//! declared beside them. The text is edited line by line (comments and layout kept); a program with an
//! instruction spread over lines, or two statements on one line, is not read. Each
//! transformation works on one place, chosen by the seed:
//!
//! - `opaque-literal`: a scalar literal operand `5` (or `-5`) of an ALU instruction with an
//!   explicit 32-bit data type (`.S`, `.U`, `.F`, `.S32`, `.U32`, `.F32`) or of a typed
//!   `REP` becomes a temporary computed just before: `ADD.T t.x, conform_o.x, 5;` for
//!   integer types, `MUL.T t.x, conform_o2.x, 5;` for float ones (normal or zero values only),
//!   the same data type reading the literal as the instruction did. Never a vector literal,
//!   an index (`out[4]`, `smem[0]`), a memory, atomic, shuffle or conversion operand, or a
//!   literal of an instruction whose operands take another type than its own (FLR with an
//!   integer type, SAD's third operand, CVT, BFE/BFI, 64-bit types).
//! - `dead-code`: copies of the (up to 4) ALU instructions before a point, writing a fresh
//!   temporary instead of their result (condition-code updates and conditional write masks
//!   dropped), behind `MOV.U.CC1 d.x, conform_o.x; IF NE1.x; ... ENDIF;`; in a program that
//!   uses condition code CC1 itself, behind `REP.S conform_o.x; ... ENDREP;` (zero rounds).
//! - `one-iteration-loop`: a straight run of 1 to 4 instructions (no flow control, labels or
//!   BAR) inside `REP.S conform_o1.x; ... ENDREP;`.
//! - `swap`: two adjacent ALU instructions swapped when neither names a register the other
//!   writes, neither touches condition codes, and the program has no ALIAS.
//!
//! The nesting limits (MAX_PROGRAM_IF_DEPTH_NV, MAX_PROGRAM_LOOP_DEPTH_NV, 64 in the
//! reference) are kept. Every transformed program is loaded by the reference's front end in
//! the campaign; one it rejects counts as a bug of this transformer.

use super::Kind;

/// The names the transformation declares start with this (a program that already uses it is
/// not a subject).
pub const PREFIX: &str = "conform_";
const OPQ: &str = "conform_opq";
/// The opaque 0u, 1u and 1.0, each in the x component of its own temporary.
const ZERO: &str = "conform_o.x";
const ONE: &str = "conform_o1.x";
const ONEF: &str = "conform_o2.x";
const DECLARATION: &str = "TEMP conform_o, conform_o1, conform_o2;";
const HEADER: &str = "!!NVcp5.0";

/// Flow control: never copied, moved or wrapped.
const FLOW: &[&str] = &[
    "IF", "ELSE", "ENDIF", "REP", "ENDREP", "BRK", "CONT", "CAL", "RET",
];

/// Instructions computing registers from registers: the ones dead code copies and swaps move.
const ALU: &[&str] = &[
    "MOV", "ABS", "FLR", "CEIL", "TRUNC", "ROUND", "FRC", "SSG", "NOT", "BFR", "BTC", "BTFL",
    "BTFM", "ADD", "SUB", "MUL", "MIN", "MAX", "AND", "OR", "XOR", "DIV", "MOD", "SHL", "SHR",
    "MAD", "CMP", "SEQ", "SNE", "SLT", "SLE", "SGT", "SGE", "SFL", "STR", "RCP", "RSQ", "EX2",
    "LG2", "SIN", "COS", "POW", "DP2", "DP3", "DP4", "DPH", "I2F", "BFE", "BFI", "SAD", "NRM",
    "XPD", "SCS",
];

/// Instructions whose every source operand is read as the instruction's data type (the
/// literals `opaque-literal` may replace).
const LITERAL_OPS: &[&str] = &[
    "MOV", "ABS", "FRC", "SSG", "NOT", "RCP", "RSQ", "EX2", "LG2", "SIN", "COS", "ADD", "SUB",
    "MUL", "MIN", "MAX", "AND", "OR", "XOR", "DIV", "MOD", "SHL", "SHR", "MAD", "CMP", "SEQ",
    "SNE", "SLT", "SLE", "SGT", "SGE", "POW", "DP2", "DP3", "DP4", "DPH", "I2F",
];

/// Every opcode the front end knows (a line starting with another word is a declaration or
/// something this transformer leaves alone).
const OPCODES: &[&str] = &[
    "LDB", "STB", "ATOMB", "LDS", "STS", "ATOMS", "BAR", "MEMBAR", "SHFIDX", "SHFUP", "SHFDOWN",
    "SHFXOR", "PK64", "UP64", "CVT",
];

/// A statement on one line: an instruction (opcode, modifiers, operands), a label or END.
#[derive(Clone, Debug, PartialEq)]
struct Ins {
    /// The opcode, upper case.
    op: String,
    /// The modifiers as written (`U`, `CC1`, ...).
    mods: Vec<String>,
    operands: Vec<String>,
}

impl Ins {
    fn new(op: &str, mods: &[&str], operands: &[&str]) -> Self {
        Ins {
            op: op.to_string(),
            mods: mods.iter().map(|m| m.to_string()).collect(),
            operands: operands.iter().map(|o| o.to_string()).collect(),
        }
    }

    /// Whether it touches condition codes (updates them or writes under one).
    fn uses_cc(&self) -> bool {
        self.mods
            .iter()
            .any(|m| m.to_ascii_uppercase().starts_with("CC"))
            || self.operands.iter().any(|o| o.contains('('))
    }

    /// The explicit 32-bit data type, when it is one and no modifier implies another.
    fn type32(&self) -> Option<&str> {
        if self
            .mods
            .iter()
            .any(|m| m.contains("64") || m.contains("24"))
        {
            return None;
        }
        self.mods
            .iter()
            .find(|m| {
                matches!(
                    m.to_ascii_uppercase().as_str(),
                    "F" | "F32" | "S" | "S32" | "U" | "U32"
                )
            })
            .map(String::as_str)
    }

    fn text(&self) -> String {
        let mut s = self.op.clone();
        for m in &self.mods {
            s.push('.');
            s.push_str(m);
        }
        if !self.operands.is_empty() {
            s.push(' ');
            s.push_str(&self.operands.join(", "));
        }
        s.push(';');
        s
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Stmt {
    Ins(Ins),
    Label,
    End,
    /// A declaration, option or anything else this transformer does not touch.
    Other,
}

/// A line of the text: its own text, the statement on it, and (for instructions) the
/// indentation and the comment, kept when it is rewritten.
#[derive(Clone, Debug)]
struct Line {
    raw: String,
    stmt: Stmt,
}

impl Line {
    fn of(indent: &str, ins: Ins) -> Self {
        Line {
            raw: format!("{indent}{}", ins.text()),
            stmt: Stmt::Ins(ins),
        }
    }

    fn other(raw: String) -> Self {
        Line {
            raw,
            stmt: Stmt::Other,
        }
    }

    fn ins(&self) -> Option<&Ins> {
        match &self.stmt {
            Stmt::Ins(i) => Some(i),
            _ => None,
        }
    }

    fn op(&self) -> &str {
        self.ins().map_or("", |i| i.op.as_str())
    }

    fn indent(&self) -> &str {
        let t = self.raw.trim_start();
        &self.raw[..self.raw.len() - t.len()]
    }

    /// A statement execution reaches (an instruction, label or END).
    fn is_code(&self) -> bool {
        !matches!(self.stmt, Stmt::Other)
    }
}

/// Splits operands at the commas outside brackets, braces and parentheses.
fn split_operands(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return None;
        }
        if c == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if depth != 0 {
        return None;
    }
    if !cur.trim().is_empty() || !out.is_empty() {
        out.push(cur.trim().to_string());
    }
    if out.iter().any(String::is_empty) {
        return None;
    }
    Some(out)
}

/// The program's lines, each with its statement; `None` when an instruction is not one whole
/// line (spread over lines, two statements on one line) or the header is missing.
fn parse(text: &str) -> Option<Vec<Line>> {
    if !text.starts_with(HEADER) {
        return None;
    }
    let mut out = Vec::new();
    for (k, raw) in text.split('\n').enumerate() {
        let code = raw.split('#').next().unwrap_or("").trim();
        let code = if k == 0 {
            code.strip_prefix(HEADER)?.trim()
        } else {
            code
        };
        let word: String = code
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        let up = word.to_ascii_uppercase();
        let stmt = if code.is_empty() {
            Stmt::Other
        } else if up == "END" && code.len() == 3 {
            Stmt::End
        } else if code.ends_with(':') && code.len() == word.len() + 1 {
            Stmt::Label
        } else if ALU.contains(&up.as_str())
            || FLOW.contains(&up.as_str())
            || OPCODES.contains(&up.as_str())
        {
            let body = code.strip_suffix(';')?;
            if body.contains(';') || body.contains(':') {
                return None;
            }
            let head_len = body
                .find(|c: char| c.is_whitespace() || c == '(')
                .unwrap_or(body.len());
            let (head, rest) = body.split_at(head_len);
            let mut parts = head.split('.');
            parts.next();
            let mods: Vec<String> = parts.map(str::to_string).collect();
            if mods.iter().any(String::is_empty) {
                return None;
            }
            Stmt::Ins(Ins {
                op: up,
                mods,
                operands: split_operands(rest.trim())?,
            })
        } else if code.contains(':') && !code.contains('=') {
            // A label and a statement on one line.
            return None;
        } else {
            Stmt::Other
        };
        out.push(Line {
            raw: raw.to_string(),
            stmt,
        });
    }
    Some(out)
}

fn render(lines: &[Line]) -> String {
    lines
        .iter()
        .map(|l| l.raw.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The program with the opaque buffer declared at `binding` and loaded before its first
/// instruction, or why it cannot be transformed.
pub fn prepare(text: &str, binding: u32) -> Result<String, String> {
    if text.contains(PREFIX) {
        return Err("already uses the transformer's names (conform_...)".into());
    }
    let lines = parse(text).ok_or(
        "has NV assembly the transformer does not read (one statement a line, after the header)",
    )?;
    let option = regex::Regex::new(r"(?im)^\s*OPTION\s+NV_shader_storage_buffer\s*;")
        .expect("a valid pattern");
    if !option.is_match(text) {
        return Err(
            "does not declare OPTION NV_shader_storage_buffer (the opaque buffer needs it)".into(),
        );
    }
    let first = lines
        .iter()
        .position(Line::is_code)
        .ok_or("has no instruction")?;
    if lines[first].stmt == Stmt::End {
        return Err("has no instruction".into());
    }
    let indent = lines[first].indent().to_string();
    let mut code = vec![
        Line::other(format!(
            "{indent}STORAGE {OPQ}[] = {{ program.storage[{binding}] }};"
        )),
        Line::other(format!("{indent}{DECLARATION}")),
    ];
    for (to, offset) in [ZERO, ONE, ONEF].iter().zip([0, 4, 8]) {
        code.push(Line::of(
            &indent,
            Ins::new("LDB", &["U32"], &[to, &format!("{OPQ}[{offset}]")]),
        ));
    }
    let mut out = lines;
    out.splice(first..first, code);
    Ok(render(&out))
}

/// Fresh temporaries for step `n`, declared beside `conform_o`.
struct Fresh {
    n: usize,
    k: usize,
    declared: Vec<String>,
}

impl Fresh {
    fn temp(&mut self, what: char) -> String {
        let t = format!("conform_{what}{}_{}", self.n, self.k);
        self.k += 1;
        self.declared.push(t.clone());
        t
    }

    /// Declares the temporaries after [`DECLARATION`].
    fn declare(self, lines: &mut Vec<Line>) -> Option<()> {
        if self.declared.is_empty() {
            return Some(());
        }
        let at = lines.iter().position(|l| l.raw.trim() == DECLARATION)?;
        let indent = lines[at].indent().to_string();
        lines.insert(
            at + 1,
            Line::other(format!("{indent}TEMP {};", self.declared.join(", "))),
        );
        Some(())
    }
}

/// For each line, the IF and REP blocks open around it.
fn depths(lines: &[Line]) -> Vec<(usize, usize)> {
    let (mut ifs, mut reps) = (0usize, 0usize);
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        match l.op() {
            "ENDIF" => ifs = ifs.saturating_sub(1),
            "ENDREP" => reps = reps.saturating_sub(1),
            _ => {}
        }
        out.push((ifs, reps));
        match l.op() {
            "IF" => ifs += 1,
            "REP" => reps += 1,
            _ => {}
        }
    }
    out
}

/// The index of the first line after the opaque loads (where transformations may place
/// code).
fn body_start(lines: &[Line]) -> Option<usize> {
    lines
        .iter()
        .rposition(|l| {
            l.ins()
                .is_some_and(|i| i.op == "LDB" && i.operands.first().is_some_and(|o| *o == ONEF))
        })
        .map(|k| k + 1)
}

/// A scalar literal operand (`5`, `-5`, `0x1F`, `1.5`, `-2e3`) and, for a float one, whether
/// its value is zero or normal in single precision.
fn literal(op: &str) -> Option<bool> {
    let digits = op.strip_prefix('-').unwrap_or(op).trim_start();
    let first = digits.chars().next()?;
    if !(first.is_ascii_digit() || first == '.') {
        return None;
    }
    if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        return (!h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit())).then_some(true);
    }
    if digits.chars().all(|c| c.is_ascii_digit()) {
        return Some(true);
    }
    let v: f64 = digits.parse().ok()?;
    if !digits
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    let f = v as f32;
    Some(f.is_finite() && (f == 0.0 || f.abs() >= f32::MIN_POSITIVE))
}

/// The names an operand reads: identifiers not after a `.` (builtins' members, swizzles and
/// masks are not names), `program` and `invocation` included.
fn names(op: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = op.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let start = k;
            while k < chars.len()
                && (chars[k].is_ascii_alphanumeric() || chars[k] == '_' || chars[k] == '$')
            {
                k += 1;
            }
            let after_dot = start > 0 && chars[start - 1] == '.';
            let after_digit = start > 0 && chars[start - 1].is_ascii_alphanumeric();
            if !after_dot && !after_digit {
                out.push(chars[start..k].iter().collect());
            }
        } else {
            k += 1;
        }
    }
    out
}

/// What an ALU instruction writes (its result's register name) and reads (every other name,
/// the result's index included).
fn effects(i: &Ins) -> Option<(String, Vec<String>)> {
    let (dst, srcs) = i.operands.split_first()?;
    let mut dn = names(dst);
    if dn.is_empty() {
        return None;
    }
    let w = dn.remove(0);
    let mut r = dn;
    for s in srcs {
        r.extend(names(s));
    }
    Some((w, r))
}

/// A copy of an ALU instruction writing `to` (the mask kept) instead of its result, without
/// condition-code updates or a conditional write mask.
fn retarget(i: &Ins, to: &str) -> Option<Ins> {
    let dst = i.operands.first()?;
    let dst = dst.split('(').next()?.trim();
    let mask = match dst.rfind('.') {
        Some(p) if dst[p + 1..].chars().all(|c| "xyzwrgba".contains(c)) && p + 1 < dst.len() => {
            &dst[p..]
        }
        _ => "",
    };
    let mut c = i.clone();
    c.mods.retain(|m| !m.to_ascii_uppercase().starts_with("CC"));
    c.operands[0] = format!("{to}{mask}");
    Some(c)
}

fn pick<T: Clone>(c: &[T], seed: u64) -> Option<T> {
    if c.is_empty() {
        return None;
    }
    Some(c[(seed % c.len() as u64) as usize].clone())
}

/// Whether the program itself (not the transformer's lines) uses condition code CC1.
fn uses_cc1(lines: &[Line]) -> bool {
    let re = regex::Regex::new(
        r"(?i)\b(CC1|(EQ|NE|LT|LE|GT|GE|TR|FL|NAN|LEG|SF|NSF|CF|NCF|OF|NOF|AB|BLE)1)\b",
    )
    .expect("a valid pattern");
    lines
        .iter()
        .filter(|l| !l.raw.contains(PREFIX))
        .any(|l| re.is_match(l.raw.split('#').next().unwrap_or("")))
}

const MAX_DEPTH: usize = 63;

/// `text` (a [`prepare`]d program) with transformation `kind` applied at the place `seed`
/// chooses; `n` names its temporaries. `None` when there is no such place.
pub fn apply(text: &str, kind: Kind, seed: u64, n: usize) -> Option<String> {
    let mut lines = parse(text)?;
    let start = body_start(&lines)?;
    let depth = depths(&lines);
    let mut fresh = Fresh {
        n,
        k: 0,
        declared: Vec::new(),
    };
    match kind {
        Kind::OpaqueLiteral => {
            let mut c = Vec::new();
            for (k, l) in lines.iter().enumerate().skip(start) {
                let Some(i) = l.ins() else { continue };
                let Some(t) = i.type32() else { continue };
                let float = t.to_ascii_uppercase().starts_with('F');
                let first = match i.op.as_str() {
                    "REP" => 0,
                    op if LITERAL_OPS.contains(&op) => 1,
                    _ => continue,
                };
                for (p, o) in i.operands.iter().enumerate().skip(first) {
                    match literal(o) {
                        Some(true) => c.push((k, p)),
                        Some(false) if !float => c.push((k, p)),
                        _ => {}
                    }
                }
            }
            let (k, p) = pick(&c, seed)?;
            let mut i = lines[k].ins()?.clone();
            let t = i.type32()?.to_string();
            let r = fresh.temp('t');
            let helper = if t.to_ascii_uppercase().starts_with('F') {
                Ins::new("MUL", &[&t], &[&format!("{r}.x"), ONEF, &i.operands[p]])
            } else {
                Ins::new("ADD", &[&t], &[&format!("{r}.x"), ZERO, &i.operands[p]])
            };
            i.operands[p] = format!("{r}.x");
            let indent = lines[k].indent().to_string();
            lines[k] = Line::of(&indent, i);
            lines.insert(k, Line::of(&indent, helper));
        }
        Kind::DeadCode => {
            let c: Vec<usize> = (start..lines.len())
                .filter(|&k| lines[k].is_code() && depth[k].0 < MAX_DEPTH && depth[k].1 < MAX_DEPTH)
                .collect();
            let k = pick(&c, seed)?;
            let d = fresh.temp('d');
            let mut copies = Vec::new();
            for l in lines[start..k].iter().rev() {
                if copies.len() == 4 {
                    break;
                }
                match &l.stmt {
                    Stmt::Ins(i) if ALU.contains(&i.op.as_str()) => {
                        if i.mods.iter().all(|m| !m.contains("64")) {
                            if let Some(c) = retarget(i, &d) {
                                copies.push(c);
                            }
                        }
                    }
                    Stmt::Ins(i) if !FLOW.contains(&i.op.as_str()) && i.op != "BAR" => {}
                    Stmt::Other => {}
                    _ => break,
                }
            }
            copies.reverse();
            if copies.is_empty() {
                copies.push(Ins::new("MOV", &["U"], &[&d, ZERO]));
            }
            let indent = lines[k].indent().to_string();
            let inner = format!("{indent}    ");
            let mut code = Vec::new();
            if uses_cc1(&lines) {
                code.push(Line::of(&indent, Ins::new("REP", &["S"], &[ZERO])));
                code.extend(copies.into_iter().map(|c| Line::of(&inner, c)));
                code.push(Line::of(&indent, Ins::new("ENDREP", &[], &[])));
            } else {
                code.push(Line::of(
                    &indent,
                    Ins::new("MOV", &["U", "CC1"], &[&format!("{d}.x"), ZERO]),
                ));
                code.push(Line::of(&indent, Ins::new("IF", &[], &["NE1.x"])));
                code.extend(copies.into_iter().map(|c| Line::of(&inner, c)));
                code.push(Line::of(&indent, Ins::new("ENDIF", &[], &[])));
            }
            lines.splice(k..k, code);
        }
        Kind::OneIterationLoop => {
            let movable = |l: &Line| {
                l.ins()
                    .is_some_and(|i| !FLOW.contains(&i.op.as_str()) && i.op != "BAR")
            };
            let mut c = Vec::new();
            for (p, d) in depth.iter().enumerate().skip(start) {
                if d.1 >= MAX_DEPTH {
                    continue;
                }
                for q in p + 1..(p + 5).min(lines.len() + 1) {
                    if !movable(&lines[q - 1]) {
                        break;
                    }
                    c.push((p, q));
                }
            }
            let (p, q) = pick(&c, seed)?;
            let indent = lines[p].indent().to_string();
            lines.insert(q, Line::of(&indent, Ins::new("ENDREP", &[], &[])));
            for l in &mut lines[p..q] {
                l.raw = format!("    {}", l.raw);
            }
            lines.insert(p, Line::of(&indent, Ins::new("REP", &["S"], &[ONE])));
        }
        Kind::Swap => {
            if lines.iter().any(|l| {
                matches!(l.stmt, Stmt::Other)
                    && l.raw.trim_start().to_ascii_uppercase().starts_with("ALIAS")
            }) {
                return None;
            }
            let mut c = Vec::new();
            for k in start..lines.len().saturating_sub(1) {
                let (Some(x), Some(y)) = (lines[k].ins(), lines[k + 1].ins()) else {
                    continue;
                };
                if !ALU.contains(&x.op.as_str())
                    || !ALU.contains(&y.op.as_str())
                    || x.uses_cc()
                    || y.uses_cc()
                {
                    continue;
                }
                let (Some((wx, rx)), Some((wy, ry))) = (effects(x), effects(y)) else {
                    continue;
                };
                if wx != wy && !ry.contains(&wx) && !rx.contains(&wy) {
                    c.push(k);
                }
            }
            let k = pick(&c, seed)?;
            lines.swap(k, k + 1);
        }
        Kind::Outline => return None,
    }
    fresh.declare(&mut lines)?;
    Some(render(&lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "!!NVcp5.0
OPTION NV_shader_storage_buffer;
GROUP_SIZE 4;
STORAGE out[] = { program.storage[0] };
TEMP a, v, w;
MUL.U a.x, invocation.globalid.x, 4; # the address
ADD.U v.x, invocation.globalid.x, 5;
MUL.F w.x, 2.5, 3;
LDB.U32 w.y, out[4];
STB.U32 v.x, out[a.x];
END";

    fn base() -> String {
        prepare(PROGRAM, 3).unwrap()
    }

    #[test]
    fn prepare_declares_and_loads_the_opaque_values_before_the_first_instruction() {
        let b = base();
        assert!(b.contains("STORAGE conform_opq[] = { program.storage[3] };\nTEMP conform_o, conform_o1, conform_o2;\nLDB.U32 conform_o.x, conform_opq[0];\nLDB.U32 conform_o1.x, conform_opq[4];\nLDB.U32 conform_o2.x, conform_opq[8];\nMUL.U a.x"), "{b}");
        assert!(prepare(
            &PROGRAM.replace("OPTION NV_shader_storage_buffer;\n", ""),
            3
        )
        .is_err());
        assert!(prepare(&PROGRAM.replace(" w;", " conform_w;"), 3).is_err());
        assert!(prepare(&PROGRAM.replace("ADD.U v.x", "lbl: ADD.U v.x"), 3).is_err());
        assert!(prepare(&PROGRAM.replace("4; #", "4; MOV.U v, 1; #"), 3).is_err());
    }

    #[test]
    fn opaque_literals_are_computed_in_the_instructions_type() {
        let b = base();
        let all: Vec<String> = (0..40)
            .filter_map(|s| apply(&b, Kind::OpaqueLiteral, s, 2))
            .collect();
        assert!(all.iter().any(|t| t.contains(
            "ADD.U conform_t2_0.x, conform_o.x, 5;\nADD.U v.x, invocation.globalid.x, conform_t2_0.x;"
        )));
        assert!(all.iter().any(|t| t
            .contains("MUL.F conform_t2_0.x, conform_o2.x, 2.5;\nMUL.F w.x, conform_t2_0.x, 3;")));
        assert!(all
            .iter()
            .any(|t| t.contains("MUL.U a.x, invocation.globalid.x, conform_t2_0.x;")));
        assert!(all
            .iter()
            .all(|t| t.contains("conform_o2;\nTEMP conform_t2_0;")));
        // Never an index or a memory operand.
        assert!(all
            .iter()
            .all(|t| t.contains("out[4]") && t.contains("conform_opq[8]")));
        assert!(literal("1e-40").is_some_and(|ok| !ok));
        assert_eq!(literal("0x1F"), Some(true));
        assert_eq!(literal("-3"), Some(true));
        assert_eq!(literal("a.x"), None);
    }

    #[test]
    fn dead_code_copies_earlier_instructions_to_a_fresh_temporary_behind_cc1() {
        let b = base();
        let t = (0..40)
            .filter_map(|s| apply(&b, Kind::DeadCode, s, 1))
            .find(|t| t.contains("IF NE1.x;\n    MUL.U conform_d1_0.x, invocation.globalid.x, 4;\n    ADD.U conform_d1_0.x, invocation.globalid.x, 5;\n"))
            .expect("a copy of the two instructions");
        assert!(t.contains("MOV.U.CC1 conform_d1_0.x, conform_o.x;"), "{t}");
        // A program that uses CC1 gets a loop of zero rounds instead.
        let cc1 = prepare(&PROGRAM.replace("ADD.U v.x", "ADD.U.CC1 v.x"), 0).unwrap();
        let t = apply(&cc1, Kind::DeadCode, 3, 0).unwrap();
        assert!(
            t.contains("REP.S conform_o.x;") && !t.contains("IF NE1"),
            "{t}"
        );
    }

    #[test]
    fn loops_wrap_straight_runs_and_swaps_keep_dependences() {
        let b = base();
        for s in 0..40 {
            let t = apply(&b, Kind::OneIterationLoop, s, 0).unwrap();
            let body: Vec<&str> = t
                .lines()
                .skip_while(|l| !l.contains("REP.S conform_o1.x;"))
                .take_while(|l| !l.contains("ENDREP"))
                .collect();
            assert!((2..=5).contains(&body.len()), "{t}");
            assert!(!t.contains("    END\n"), "{t}");
        }
        let swapped: Vec<String> = (0..20)
            .filter_map(|s| apply(&b, Kind::Swap, s, 0))
            .collect();
        // ADD then MUL.F are independent; MUL.U a.x and ADD.U v.x too; never the LDB/STB.
        assert!(swapped
            .iter()
            .any(|t| t.contains("MUL.F w.x, 2.5, 3;\nADD.U v.x")));
        let dependent = PROGRAM.replace("MUL.F w.x, 2.5, 3", "MUL.F w.x, v.x, 3");
        let dependent = prepare(
            &dependent.replace("ADD.U v.x, invocation.globalid.x", "ADD.U v.x, a.x"),
            0,
        )
        .unwrap();
        assert_eq!(apply(&dependent, Kind::Swap, 0, 0), None);
    }
}
