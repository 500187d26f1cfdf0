//! Transformations of a GLSL compute shader's text that keep what it computes, GraphicsFuzz's
//! idea on GL compute: each hides something from the compiler (a value it cannot fold, a
//! branch it cannot prove dead, a loop whose trip count it cannot see, a call it must make)
//! while the program's results stay the same, so the original case's expectations stay the
//! oracle.
//!
//! The opaque values come from a storage block the transformation adds ([`opaque_block`]:
//! 0, 1 and 1.0, which the case never checks): a compiler cannot know them. The text is edited
//! in place (comments, macros and the author's layout kept): `main`'s top-level statements are
//! found by a small scanner of GLSL's statement syntax ([`statements`]), and each
//! transformation works on one of them, or on one literal inside `main`. What the scanner
//! cannot read (preprocessor directives inside `main`) makes a program ineligible. A
//! transformation that would not keep the program valid is not made: the campaign checks every
//! transformed program with the reference's front end and counts those it rejects as bugs of
//! the transformer.
//!
//! Written by hand: no crate edits GLSL text with its layout kept (glsl-lang's transpiler
//! prints a tree without comments, macros or the author's `#extension` lines).

use super::Kind;
use std::ops::Range;

/// The added block's members: 0u, 1u and 1.0. The block has no instance name (GLSL 1.40
/// has none), so its members are global names, prefixed to stay apart from the program's.
pub const ZERO: &str = "conform_zero";
pub const ONE: &str = "conform_one";
pub const ONEF: &str = "conform_onef";

/// The added block's declaration at `binding`.
pub fn opaque_block(binding: u32) -> String {
    format!(
        "layout(std430, binding = {binding}) buffer ConformOpaque {{ uint {ZERO}; uint {ONE}; float {ONEF}; }};"
    )
}

/// The same values as default-block uniforms with initializers, for programs without
/// storage blocks (GLSL 1.30 to 4.20 without GL_ARB_shader_storage_buffer_object).
pub fn opaque_uniforms() -> String {
    format!("uniform uint {ZERO};\nuniform uint {ONE} = 1u;\nuniform float {ONEF} = 1.0;")
}

/// The block's contents, as u32 words: 0, 1 and the bits of 1.0.
pub const OPAQUE_WORDS: [u32; 3] = [0, 1, 0x3F80_0000];

/// Where `main`'s body is in `text`: the bytes between its braces.
pub fn main_body(text: &str) -> Option<Range<usize>> {
    let b = text.as_bytes();
    let mut found = None;
    let mut i = 0;
    while i < b.len() {
        i = skip_ws_comments(b, i);
        if i >= b.len() {
            break;
        }
        if b[i] == b'#' {
            // A directive runs to the end of its line.
            i = line_end(b, i);
            continue;
        }
        if let Some(word) = ident_at(b, i) {
            if word == "main" && (i == 0 || !is_ident(b[i - 1])) {
                let j = skip_ws_comments(b, i + 4);
                if b.get(j) == Some(&b'(') {
                    let k = skip_ws_comments(b, match_close(b, j)?);
                    if b.get(k) == Some(&b'{') {
                        if found.is_some() {
                            return None; // main twice: not for us to judge
                        }
                        found = Some(k + 1..match_close(b, k)? - 1);
                    }
                }
            }
            i += word.len();
            continue;
        }
        i += 1;
    }
    found
}

/// The top-level statements of a function body (`body`: the text between its braces), as
/// byte ranges of `body`. `None` when the body holds something the scanner does not read (a
/// preprocessor directive, unbalanced brackets).
pub fn statements(body: &str) -> Option<Vec<Range<usize>>> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = skip_ws_comments(b, 0);
    while i < b.len() {
        let end = statement_end(b, i)?;
        out.push(i..end);
        i = skip_ws_comments(b, end);
    }
    Some(out)
}

/// What a statement holds that limits where it may move.
#[derive(Clone, Copy, Debug, Default)]
struct Traits {
    /// A declaration (`T name ...;`): its name is visible to the statements after it.
    declaration: bool,
    barrier: bool,
    /// `break` or `continue` (that may bind to an enclosing loop).
    loop_jump: bool,
    /// `return` or `discard`.
    exit: bool,
    constant: bool,
}

fn traits(stmt: &str) -> Traits {
    let words = words(stmt);
    let has = |w: &str| words.iter().any(|(_, x)| *x == w);
    Traits {
        declaration: is_declaration(stmt),
        barrier: has("barrier"),
        loop_jump: has("break") || has("continue"),
        exit: has("return") || has("discard"),
        constant: has("const"),
    }
}

/// `T name ...` (with qualifiers and precision before T, an array size after it): two
/// identifiers in a row, the first not a statement keyword.
fn is_declaration(stmt: &str) -> bool {
    let b = stmt.as_bytes();
    let Some(first) = ident_at(b, 0) else {
        return false;
    };
    if STATEMENT_KEYWORDS.contains(&first) {
        return false;
    }
    let mut j = skip_ws_comments(b, first.len());
    if b.get(j) == Some(&b'[') {
        match match_close(b, j) {
            Some(k) => j = skip_ws_comments(b, k),
            None => return false,
        }
    }
    ident_at(b, j).is_some()
}

const STATEMENT_KEYWORDS: &[&str] = &[
    "if", "else", "for", "while", "do", "switch", "case", "default", "return", "break", "continue",
    "discard",
];

/// Applies `kind` to `text` (a shader holding the [`opaque_block`] and `main`), choosing where
/// with `seed`; `n` makes the names it adds unique. `None` when the program has no place for
/// it.
pub fn apply(text: &str, kind: Kind, seed: u64, n: usize) -> Option<String> {
    let body = main_body(text)?;
    let stmts = statements(&text[body.clone()])?;
    let abs = |r: &Range<usize>| body.start + r.start..body.start + r.end;
    let pick = |candidates: &[Range<usize>]| -> Option<Range<usize>> {
        (!candidates.is_empty())
            .then(|| candidates[(seed % candidates.len() as u64) as usize].clone())
    };
    match kind {
        Kind::DeadCode => {
            let c: Vec<_> = stmts
                .iter()
                .filter(|r| !traits(&text[abs(r)]).barrier)
                .map(abs)
                .collect();
            let r = pick(&c)?;
            let copy = &text[r.clone()];
            Some(format!(
                "{}\n    if ({ZERO} != 0u) {{\n    {copy}\n    }}{}",
                &text[..r.end],
                &text[r.end..]
            ))
        }
        Kind::OneIterationLoop => {
            let c: Vec<_> = stmts
                .iter()
                .map(abs)
                .filter(|r| {
                    let t = traits(&text[r.clone()]);
                    !t.declaration && !t.barrier && !t.loop_jump
                })
                .collect();
            let r = pick(&c)?;
            let var = format!("conform_l{n}");
            Some(format!(
                "{}for (int {var} = 0; {var} < int({ONE}); {var}++) {{\n    {}\n    }}{}",
                &text[..r.start],
                &text[r.clone()],
                &text[r.end..]
            ))
        }
        Kind::Outline => {
            let locals = local_names(&text[body.clone()], true);
            let globals = &text[..body.start];
            let c: Vec<_> = stmts
                .iter()
                .map(abs)
                .filter(|r| {
                    let s = &text[r.clone()];
                    let t = traits(s);
                    !t.declaration
                        && !t.barrier
                        && !t.loop_jump
                        && !t.exit
                        && uses_only_globals(s, globals, &locals)
                })
                .collect();
            let r = pick(&c)?;
            let f = format!("conform_f{n}");
            let main_at = main_definition_start(text, body.start)?;
            Some(format!(
                "{}void {f}() {{\n    {}\n}}\n\n{}{f}();{}",
                &text[..main_at],
                &text[r.clone()],
                &text[main_at..r.start],
                &text[r.end..]
            ))
        }
        Kind::OpaqueLiteral => {
            let mut c = Vec::new();
            for r in stmts.iter().map(abs) {
                let s = &text[r.clone()];
                let t = traits(s);
                if t.constant {
                    continue;
                }
                // In a declaration, only the initializer (an array size must stay constant).
                let from = if t.declaration {
                    match s.find('=') {
                        Some(k) => k,
                        None => continue,
                    }
                } else {
                    0
                };
                for lit in literals(&s[from..]) {
                    let at = r.start + from + lit.range.start..r.start + from + lit.range.end;
                    let before = &text[r.start..at.start];
                    if !in_case_label(before) && !in_constant_argument(before) {
                        c.push((at, lit.kind));
                    }
                }
            }
            if c.is_empty() {
                return None;
            }
            let (at, lit) = c[(seed % c.len() as u64) as usize].clone();
            let l = &text[at.clone()];
            let opaque = match lit {
                Literal::Int => format!("({l} + int({ZERO}))"),
                Literal::Uint => format!("({l} + {ZERO})"),
                Literal::Float => format!("({l} * {ONEF})"),
                Literal::Double => format!("({l} * double({ONEF}))"),
            };
            Some(format!("{}{opaque}{}", &text[..at.start], &text[at.end..]))
        }
        // Statements are not reordered in GLSL (no cheap proof of independence).
        Kind::Swap => None,
    }
}

/// Where `main`'s definition starts (its return type), given where its body starts.
fn main_definition_start(text: &str, body_start: usize) -> Option<usize> {
    let head = &text[..body_start];
    let at = head.rfind("main")?;
    let before = head[..at].trim_end();
    let ty = before.rfind("void")?;
    Some(ty)
}

/// Whether the text before a literal in its statement ends in an open `case` label.
/// Built-ins some of whose arguments must be constant expressions: a subgroup broadcast's
/// invocation id and a clustered operation's cluster size (GL_KHR_shader_subgroup), a texture
/// offset (GLSL 4.60 section 8.9.2). A literal anywhere in their arguments stays literal.
const CONSTANT_ARGUMENT_CALLS: &[&str] = &[
    "subgroupBroadcast",
    "subgroupQuadBroadcast",
    "subgroupClusteredAdd",
    "subgroupClusteredMul",
    "subgroupClusteredMin",
    "subgroupClusteredMax",
    "subgroupClusteredAnd",
    "subgroupClusteredOr",
    "subgroupClusteredXor",
    "textureOffset",
    "textureProjOffset",
    "textureLodOffset",
    "textureProjLodOffset",
    "texelFetchOffset",
    "textureGradOffset",
    "textureProjGradOffset",
    "textureGatherOffset",
    "textureGatherOffsets",
];

/// Whether the text before a literal in its statement leaves it inside the arguments of a
/// [`CONSTANT_ARGUMENT_CALLS`] built-in (at any depth).
fn in_constant_argument(before: &str) -> bool {
    let b = before.as_bytes();
    let mut depth = 0usize;
    for i in (0..b.len()).rev() {
        match b[i] {
            b')' => depth += 1,
            b'(' if depth > 0 => depth -= 1,
            b'(' => {
                let head = before[..i].trim_end();
                let name_at = head
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(0, |k| k + 1);
                if CONSTANT_ARGUMENT_CALLS.contains(&&head[name_at..]) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

fn in_case_label(before: &str) -> bool {
    match before.rfind("case") {
        Some(k) => !before[k..].contains(':'),
        None => false,
    }
}

/// Names `body` may declare: the second of two identifiers in a row (`T name`), and with
/// `commas` any name after a comma (`uint a = 1, b;`, but also `f(a, b)`). With commas the
/// list may hold too many (what main may declare, conservatively); without, too few (what a
/// statement surely declares itself).
fn local_names(body: &str, commas: bool) -> Vec<String> {
    let w = words(body);
    let b = body.as_bytes();
    let mut out = Vec::new();
    for k in 1..w.len() {
        let (at, name) = w[k];
        let (prev_at, prev) = w[k - 1];
        let between = &body[prev_at + prev.len()..at];
        let adjacent = between.chars().all(char::is_whitespace) && !between.is_empty();
        let array_type = between.trim_start().starts_with('[') && between.trim_end().ends_with(']');
        if (adjacent || array_type) && !STATEMENT_KEYWORDS.contains(&prev) {
            out.push(name.to_string());
        }
        let comma = b[..at]
            .iter()
            .rev()
            .find(|c| !c.is_ascii_whitespace())
            .is_some_and(|c| *c == b',');
        if comma && commas {
            out.push(name.to_string());
        }
    }
    out
}

/// Whether every name `stmt` reads or writes is declared at global scope (appears in
/// `globals`, the text before `main`'s body) and not by `main` (`locals`), so that the
/// statement means the same in a function of its own. Calls and constructors (a name before
/// `(`), members (after `.`), built-ins (`gl_`), types (a name before another) and names the
/// statement declares itself are not counted.
fn uses_only_globals(stmt: &str, globals: &str, locals: &[String]) -> bool {
    let own = local_names(stmt, false);
    let global_words: std::collections::HashSet<&str> =
        words(globals).into_iter().map(|(_, w)| w).collect();
    let b = stmt.as_bytes();
    let w = words(stmt);
    for (k, &(at, name)) in w.iter().enumerate() {
        let next = skip_ws_comments(b, at + name.len());
        let call = b.get(next) == Some(&b'(');
        let member = b[..at]
            .iter()
            .rev()
            .find(|c| !c.is_ascii_whitespace())
            .is_some_and(|c| *c == b'.');
        let type_before_name = w.get(k + 1).is_some_and(|&(nat, _)| {
            let between = &stmt[at + name.len()..nat];
            !between.is_empty() && between.chars().all(char::is_whitespace)
        });
        if call
            || member
            || type_before_name
            || name.starts_with("gl_")
            || STATEMENT_KEYWORDS.contains(&name)
            || matches!(name, "true" | "false")
            || own.iter().any(|o| o == name)
        {
            continue;
        }
        if !global_words.contains(name) || locals.iter().any(|l| l == name) {
            return false;
        }
    }
    true
}

/// A numeric literal's type, as the opaque identity needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Literal {
    Int,
    Uint,
    Float,
    Double,
}

struct Lit {
    range: Range<usize>,
    kind: Literal,
}

/// The numeric literals of `text` outside comments: 32-bit integers (decimal, octal, hex,
/// with or without `u`), floats (with or without `f`) and doubles (`lf`). Others (64-bit
/// `l`/`ul`, half `hf`) are left alone.
fn literals(text: &str) -> Vec<Lit> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let j = skip_ws_comments(b, i);
        if j != i {
            i = j;
            continue;
        }
        let c = b[i];
        if is_ident(c) && !c.is_ascii_digit() {
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            continue;
        }
        let starts_number = c.is_ascii_digit()
            || (c == b'.'
                && b.get(i + 1).is_some_and(u8::is_ascii_digit)
                && (i == 0 || !is_ident(b[i - 1])));
        if !starts_number {
            i += 1;
            continue;
        }
        let start = i;
        let mut float = false;
        if c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
            i += 2;
            while i < b.len() && b[i].is_ascii_hexdigit() {
                i += 1;
            }
        } else {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if b.get(i) == Some(&b'.') {
                float = true;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if matches!(b.get(i), Some(b'e' | b'E')) {
                let mut k = i + 1;
                if matches!(b.get(k), Some(b'+' | b'-')) {
                    k += 1;
                }
                if b.get(k).is_some_and(u8::is_ascii_digit) {
                    float = true;
                    i = k;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
        }
        let suffix_start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let suffix = &text[suffix_start..i];
        let kind = match (float, suffix) {
            (true, "" | "f" | "F") | (false, "f" | "F") => Some(Literal::Float),
            (_, "lf" | "LF") => Some(Literal::Double),
            (false, "") => Some(Literal::Int),
            (false, "u" | "U") => Some(Literal::Uint),
            _ => None,
        };
        // `1.` and `5f` are floats; a hex literal with `f` is not (`0x1f` is hex digits).
        if let Some(kind) = kind {
            out.push(Lit {
                range: start..i,
                kind,
            });
        }
    }
    out
}

/// The identifiers of `text` outside comments, with their offsets (numbers skipped).
fn words(text: &str) -> Vec<(usize, &str)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let j = skip_ws_comments(b, i);
        if j != i {
            i = j;
            continue;
        }
        if b[i].is_ascii_digit() || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            // A number with its suffix (`1u`, `2.5e3`, `0xFFu`): no identifier inside.
            while i < b.len() && (is_ident(b[i]) || b[i] == b'.') {
                i += 1;
            }
            continue;
        }
        if is_ident(b[i]) {
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            out.push((start, &text[start..i]));
            continue;
        }
        i += 1;
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn ident_at(b: &[u8], i: usize) -> Option<&str> {
    let first = *b.get(i)?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let mut j = i;
    while j < b.len() && is_ident(b[j]) {
        j += 1;
    }
    std::str::from_utf8(&b[i..j]).ok()
}

fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |k| i + k + 1)
}

/// Past whitespace and comments from `i`.
fn skip_ws_comments(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'/') {
            i = line_end(b, i);
            continue;
        }
        if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'*') {
            match b[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(k) => i = i + 2 + k + 2,
                None => return b.len(),
            }
            continue;
        }
        return i;
    }
}

/// Past the bracket closing the one at `i` (`(`, `[` or `{`), comments skipped; `None` when
/// unbalanced or when a directive is inside.
fn match_close(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        let k = skip_ws_comments(b, j);
        if k != j {
            j = k;
            continue;
        }
        match b[j] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            b'#' => return None,
            _ => {}
        }
        j += 1;
    }
    None
}

/// Past the `;` ending the simple statement at `i`, at bracket depth 0.
fn semicolon_end(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        let k = skip_ws_comments(b, i);
        if k != i {
            i = k;
            continue;
        }
        match b[i] {
            b';' => return Some(i + 1),
            b'(' | b'[' | b'{' => i = match_close(b, i)?,
            b')' | b']' | b'}' | b'#' => return None,
            _ => i += 1,
        }
    }
    None
}

/// Past the statement starting at `i`.
fn statement_end(b: &[u8], i: usize) -> Option<usize> {
    let i = skip_ws_comments(b, i);
    match b.get(i)? {
        b'{' => return match_close(b, i),
        b'#' => return None,
        _ => {}
    }
    let word = ident_at(b, i).unwrap_or("");
    let after_paren = |from: usize| -> Option<usize> {
        let j = skip_ws_comments(b, from);
        (b.get(j) == Some(&b'(')).then_some(())?;
        match_close(b, j)
    };
    match word {
        "if" => {
            let j = statement_end(b, after_paren(i + 2)?)?;
            let k = skip_ws_comments(b, j);
            if ident_at(b, k) == Some("else") {
                statement_end(b, k + 4)
            } else {
                Some(j)
            }
        }
        "for" | "while" | "switch" => statement_end(b, after_paren(i + word.len())?),
        "do" => {
            let j = statement_end(b, i + 2)?;
            let k = skip_ws_comments(b, j);
            (ident_at(b, k) == Some("while")).then_some(())?;
            let m = skip_ws_comments(b, after_paren(k + 5)?);
            (b.get(m) == Some(&b';')).then_some(m + 1)
        }
        _ => semicolon_end(b, i),
    }
}

/// Where the opaque block's declaration goes: after the last `#version`/`#extension` line
/// (GLSL wants every `#extension` before the first declaration), or at the start.
pub fn declaration_point(text: &str) -> usize {
    let mut at = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("#version") || t.starts_with("#extension") {
            at = offset + line.len();
        }
        offset += line.len();
    }
    at
}

#[cfg(test)]
mod tests;
