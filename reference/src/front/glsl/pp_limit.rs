//! A bound on macro expansion, checked before glsl-lang's preprocessor runs.
//!
//! glsl-lang expands a macro eagerly into a vector of tokens, so 24 chained
//! `#define A{i} (A{i-1}+A{i-1})` ask it for 2^24 copies before anything could count them,
//! and the process runs out of memory. [`too_large`] estimates the size of the expansion from
//! the `#define` lines alone: the expanded size of every macro (an object-like macro's body,
//! its macros expanded; a function-like macro's body with each parameter replaced by the size
//! of the argument at each call), memoized, with saturating arithmetic. The estimate errs on
//! the large side: every definition of a name counts (conditional compilation and `#undef`
//! are ignored, the largest definition wins), and a token pasted with `##` counts as the
//! largest macro. Hand-written: no crate estimates preprocessor output.

use std::collections::HashMap;

/// The most tokens the source may expand to.
pub const MAX_EXPANDED_TOKENS: u64 = 1 << 20;
/// The most evaluation steps the estimate may take (it stops, as too large, beyond): a token
/// visited costs one, so a 4 MiB program file fits.
const MAX_STEPS: u64 = 1 << 24;
/// The deepest nesting of macro calls the estimate follows (it stops, as too large, beyond).
const MAX_DEPTH: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Other(char),
    Paste,
}

struct Macro {
    /// None: object-like.
    params: Option<Vec<String>>,
    body: Vec<Tok>,
}

/// Splits text into identifiers, `##` and single punctuation or number characters (numbers
/// count per character: an overestimate, which is the safe side).
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_string()), start));
            continue;
        }
        if c == b'#' && b.get(i + 1) == Some(&b'#') {
            out.push((Tok::Paste, i));
            i += 2;
            continue;
        }
        if !c.is_ascii_whitespace() {
            out.push((Tok::Other(c as char), i));
        }
        i += 1;
    }
    out
}

/// The source's logical lines (backslash-newline joined), each with its byte offset, and
/// without comments.
fn logical_lines(source: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    let mut in_block = false;
    let mut offset = 0;
    for raw in source.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        if cur.is_empty() {
            start = line_start;
        }
        let mut text = String::new();
        let mut chars = raw.trim_end_matches(['\n', '\r']).chars().peekable();
        while let Some(c) = chars.next() {
            if in_block {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    in_block = false;
                    text.push(' ');
                }
                continue;
            }
            match (c, chars.peek()) {
                ('/', Some('/')) => break,
                ('/', Some('*')) => {
                    chars.next();
                    in_block = true;
                }
                _ => text.push(c),
            }
        }
        if let Some(cont) = text.strip_suffix('\\') {
            cur.push_str(cont);
            cur.push(' ');
            continue;
        }
        cur.push_str(&text);
        out.push((std::mem::take(&mut cur), start));
    }
    if !cur.is_empty() {
        out.push((cur, start));
    }
    out
}

/// Every definition of each macro name.
type Macros = HashMap<String, Vec<Macro>>;

/// The `#define`s of the source, and its other tokens with their offsets.
fn split(source: &str) -> (Macros, Vec<(Tok, usize)>) {
    let mut macros: Macros = HashMap::new();
    let mut text = Vec::new();
    for (line, at) in logical_lines(source) {
        let trimmed = line.trim_start();
        let Some(directive) = trimmed.strip_prefix('#') else {
            text.extend(tokens(&line).into_iter().map(|(t, o)| (t, at + o)));
            continue;
        };
        let Some(def) = directive.trim_start().strip_prefix("define") else {
            continue;
        };
        let def = def.trim_start();
        let name_len = def
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(def.len());
        let (name, rest) = def.split_at(name_len);
        if name.is_empty() {
            continue;
        }
        let (params, body) = match rest.strip_prefix('(') {
            Some(after) => {
                let close = after.find(')').unwrap_or(after.len());
                let params = after[..close]
                    .split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect();
                (Some(params), after.get(close + 1..).unwrap_or(""))
            }
            None => (None, rest),
        };
        let body = tokens(body).into_iter().map(|(t, _)| t).collect();
        macros
            .entry(name.to_string())
            .or_default()
            .push(Macro { params, body });
    }
    (macros, text)
}

/// The estimate's state: the macros, memoized sizes, and the steps taken.
struct Estimate<'m> {
    macros: &'m Macros,
    memo: HashMap<(String, Vec<u64>), u64>,
    /// Macros being expanded (a macro does not expand inside its own expansion).
    active: Vec<String>,
    /// The largest object-like expansion, for pasted tokens.
    largest: u64,
    steps: u64,
    depth: usize,
}

impl Estimate<'_> {
    /// Expanded size of `toks`, where the parameters in `env` stand for arguments of the
    /// given sizes. `None` when the estimate itself runs too long.
    fn size(&mut self, toks: &[Tok], env: &HashMap<&str, u64>) -> Option<u64> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let n = self.size_of(toks, env);
        self.depth -= 1;
        n
    }

    fn size_of(&mut self, toks: &[Tok], env: &HashMap<&str, u64>) -> Option<u64> {
        let mut total: u64 = 0;
        let mut i = 0;
        while i < toks.len() {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return None;
            }
            let n = match &toks[i] {
                Tok::Paste => self.largest.max(1),
                Tok::Other(_) => 1,
                Tok::Ident(id) if env.contains_key(id.as_str()) => env[id.as_str()],
                Tok::Ident(id) if self.active.contains(id) => 1,
                Tok::Ident(id) => match self.macros.get(id) {
                    None => 1,
                    Some(defs) => {
                        let args = match toks.get(i + 1) {
                            Some(Tok::Other('(')) => Some(call_args(toks, i + 1)),
                            _ => None,
                        };
                        let mut best = 1;
                        for def in defs {
                            let n = match (&def.params, &args) {
                                (None, _) => self.expand(id, def, &[])?,
                                (Some(ps), Some((arg_toks, _))) => {
                                    let mut sizes = Vec::new();
                                    for a in arg_toks {
                                        sizes.push(self.size(a, env)?);
                                    }
                                    sizes.resize(ps.len(), 0);
                                    self.expand(id, def, &sizes)?
                                }
                                // A function-like name without arguments is not a call.
                                (Some(_), None) => 1,
                            };
                            best = best.max(n);
                        }
                        if let (Some((_, end)), true) =
                            (&args, defs.iter().any(|d| d.params.is_some()))
                        {
                            i = *end;
                        }
                        best
                    }
                },
            };
            total = total.saturating_add(n);
            i += 1;
        }
        Some(total)
    }

    /// Expanded size of macro `name` (definition `def`) called with arguments of `sizes`.
    fn expand(&mut self, name: &str, def: &Macro, sizes: &[u64]) -> Option<u64> {
        let key = (name.to_string(), sizes.to_vec());
        if let Some(&n) = self.memo.get(&key) {
            return Some(n);
        }
        let env: HashMap<&str, u64> = def
            .params
            .iter()
            .flatten()
            .map(String::as_str)
            .zip(sizes.iter().copied())
            .collect();
        self.active.push(name.to_string());
        let n = self.size(&def.body, &env);
        self.active.pop();
        let n = n?;
        self.memo.insert(key, n);
        Some(n)
    }
}

/// The arguments of a call whose `(` is at `open`: the tokens of each, and the index of the
/// closing `)` (the last token when it is missing).
fn call_args(toks: &[Tok], open: usize) -> (Vec<Vec<Tok>>, usize) {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    let mut i = open + 1;
    while i < toks.len() {
        match &toks[i] {
            Tok::Other('(') => depth += 1,
            Tok::Other(')') if depth == 0 => return (args, i),
            Tok::Other(')') => depth -= 1,
            Tok::Other(',') if depth == 0 => {
                args.push(Vec::new());
                i += 1;
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push(toks[i].clone());
        }
        i += 1;
    }
    (args, toks.len().saturating_sub(1))
}

/// What a source that expands past the limit is told.
pub fn too_large_message() -> String {
    format!(
        "macro expansion too large: the source would expand to more than {MAX_EXPANDED_TOKENS} tokens"
    )
}

/// When `source` would expand to more than [`MAX_EXPANDED_TOKENS`] tokens, the byte offset
/// of the token where the expansion passes the limit.
pub fn too_large(source: &str) -> Option<usize> {
    if !source.contains("define") {
        return None;
    }
    let (macros, text) = split(source);
    if macros.is_empty() {
        return None;
    }
    let mut est = Estimate {
        macros: &macros,
        memo: HashMap::new(),
        active: Vec::new(),
        largest: 0,
        steps: 0,
        depth: 0,
    };
    // A pasted token may name any macro: it counts as the largest object-like one.
    let pastes = macros
        .values()
        .flatten()
        .any(|m| m.body.contains(&Tok::Paste));
    if pastes {
        for (name, defs) in &macros {
            for def in defs.iter().filter(|d| d.params.is_none()) {
                match est.expand(name, def, &[]) {
                    Some(n) => est.largest = est.largest.max(n),
                    None => return Some(0),
                }
            }
        }
    }
    let toks: Vec<Tok> = text.iter().map(|(t, _)| t.clone()).collect();
    // Token by token, to say where the limit is passed.
    let mut total: u64 = 0;
    let mut i = 0;
    while i < toks.len() {
        let end = match (&toks[i], toks.get(i + 1)) {
            (Tok::Ident(id), Some(Tok::Other('(')))
                if macros
                    .get(id)
                    .is_some_and(|d| d.iter().any(|m| m.params.is_some())) =>
            {
                call_args(&toks, i + 1).1
            }
            _ => i,
        };
        match est.size(&toks[i..=end], &HashMap::new()) {
            Some(n) => total = total.saturating_add(n),
            None => return Some(text[i].1),
        }
        if total > MAX_EXPANDED_TOKENS {
            return Some(text[i].1);
        }
        i = end + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_macros_pass() {
        let src = "#version 430\n#define N 64\n#define SQ(x) ((x) * (x))\nlayout(local_size_x = N) in;\nvoid main() { uint a = SQ(N) + SQ(SQ(2u)); }\n";
        assert!(too_large(src).is_none());
        assert!(too_large("void main() {}\n").is_none());
    }

    #[test]
    fn exponential_chains_are_refused_quickly_at_their_use() {
        let mut src = String::from("#version 430\n#define A0 1u\n");
        for i in 1..=24 {
            src.push_str(&format!("#define A{i} (A{} + A{})\n", i - 1, i - 1));
        }
        src.push_str("void main() { uint x = A24; }\n");
        let t = std::time::Instant::now();
        let offset = too_large(&src).expect("refused");
        assert!(t.elapsed().as_millis() < 500, "{:?}", t.elapsed());
        assert_eq!(offset, src.find("A24; }").unwrap());
        // Function-like doubling, nested calls in the source, pasting and continuations.
        let nested = format!(
            "#define F(x) x x\nvoid main() {{ int a = {}1{}; }}\n",
            "F(".repeat(30),
            ")".repeat(30)
        );
        assert!(too_large(&nested).is_some());
        let pasted = format!("{src}#define CAT(a, b) a ## b\nvoid f() {{ CAT(A, 24); }}\n")
            .replace("uint x = A24;", "");
        assert!(too_large(&pasted).is_some());
        let cont = "#define B0 1\n#define B1 \\\n B0 B0 B0 B0 B0 B0 B0 B0\n".to_string()
            + &(2..=8)
                .map(|i| {
                    format!(
                        "#define B{i} B{0} B{0} B{0} B{0} B{0} B{0} B{0} B{0}\n",
                        i - 1
                    )
                })
                .collect::<String>()
            + "int x = B8;\n";
        assert!(too_large(&cont).is_some());
    }
}
