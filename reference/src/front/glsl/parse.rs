//! Parsing through glsl-lang's preprocessor with our own extension registry.
//!
//! glsl-lang rejects `#extension` names its registry does not know; the registry here lists the
//! extensions the reference supports (so `#extension GL_NV_shader_thread_shuffle : require`
//! works and the `GL_NV_shader_thread_shuffle` macro is defined as 1, as the extension says)
//! and nothing else, so an unknown extension with `require` fails the compile as on a driver.

use glsl_lang::ast::TranslationUnit;
use glsl_lang::lexer::full::fs::PreprocessorExt;
use glsl_lang::parse::IntoParseBuilderExt;
use glsl_lang_pp::exts::names::ExtNameAtom;
use glsl_lang_pp::exts::{ExtensionSpec, Registry};
use glsl_lang_pp::processor::event::DirectiveKind;
use glsl_lang_pp::processor::fs::StdProcessor;
use glsl_lang_pp::processor::nodes::{ExtensionBehavior, ExtensionName};
use glsl_lang_pp::processor::ProcessorStateBuilder;
use std::sync::LazyLock;

/// Extensions the GLSL front end supports (each defines its macro as 1).
pub const SUPPORTED_EXTENSIONS: &[&str] = &[
    "GL_ARB_compute_shader",
    "GL_ARB_shader_storage_buffer_object",
    "GL_ARB_shader_atomic_counters",
    "GL_ARB_gpu_shader5",
    "GL_ARB_shading_language_420pack",
    "GL_ARB_shader_bit_encoding",
    "GL_ARB_gpu_shader_fp64",
    "GL_NV_shader_thread_shuffle",
    "GL_NV_shader_thread_group",
    "GL_NV_shader_atomic_float",
    "GL_EXT_shader_atomic_float",
];

static REGISTRY: LazyLock<Registry> = LazyLock::new(|| {
    let mut r = Registry::new();
    for name in SUPPORTED_EXTENSIONS {
        r.add(ExtensionSpec::new(ExtNameAtom::from(*name), vec![]));
    }
    r
});

/// How an extension was named by an `#extension` directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behavior {
    Require,
    Enable,
    Warn,
    Disable,
}

/// One `#extension` directive that was not masked by conditional compilation.
#[derive(Clone, Debug)]
pub struct ExtDirective {
    /// None: `all`.
    pub name: Option<String>,
    pub behavior: Behavior,
    /// Byte offset of the directive in the source.
    pub offset: usize,
}

pub struct Parsed {
    pub tu: TranslationUnit,
    pub extensions: Vec<ExtDirective>,
    pub version: Option<u16>,
}

/// A parse error: byte offset and message.
#[derive(Clone, Debug)]
pub struct ParseFail {
    pub offset: usize,
    pub message: String,
}

/// Parses one shader. glsl-lang's preprocessor can panic on some malformed inputs (an empty
/// expansion stack when it locates an error at the end of the input); that panic is caught and
/// reported as a parse error so that no input makes the reference panic.
pub fn parse(source: &str) -> Result<Parsed, ParseFail> {
    if let Some(f) = unbalanced_conditionals(source)
        .or_else(|| truncated(source))
        .or_else(|| super::pp_limit::too_large(source))
    {
        return Err(f);
    }
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_inner(source))) {
        Ok(r) => r,
        Err(_) => Err(ParseFail {
            offset: source.len(),
            message: "syntax error (the GLSL parser could not locate the error; near the end of the input?)".into(),
        }),
    }
}

/// Conditional directives that do not pair up (`#if`/`#ifdef`/`#ifndef` without `#endif`, or
/// `#else`/`#elif`/`#endif` without an `#if`): glsl-lang's preprocessor panics on an
/// unterminated one at the end of the input (found by the `glsl_front` fuzz target), so they
/// are reported here, at the directive. Directives inside block comments are not seen by the
/// preprocessor and are skipped.
fn unbalanced_conditionals(source: &str) -> Option<ParseFail> {
    let mut open: Vec<usize> = Vec::new();
    let mut in_comment = false;
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let mut text = line;
        if in_comment {
            match text.find("*/") {
                Some(end) => {
                    in_comment = false;
                    text = &text[end + 2..];
                }
                None => continue,
            }
        }
        let trimmed = text.trim_start();
        if let Some(rest) = trimmed.strip_prefix('#') {
            let word: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            match word.as_str() {
                "if" | "ifdef" | "ifndef" => open.push(start),
                "else" | "elif" if open.is_empty() => {
                    return Some(ParseFail {
                        offset: start,
                        message: format!("#{word} without #if"),
                    })
                }
                "endif" if open.pop().is_none() => {
                    return Some(ParseFail {
                        offset: start,
                        message: "#endif without #if".into(),
                    })
                }
                _ => {}
            }
        }
        // A block comment opened on this line (and not closed on it) hides the next lines.
        if let Some(at) = text.rfind("/*") {
            if !text[at..].contains("*/") && !text[..at].contains("//") {
                in_comment = true;
            }
        }
    }
    open.last().map(|&at| ParseFail {
        offset: at,
        message: "unterminated conditional directive (no matching #endif)".into(),
    })
}

/// Detects input that ends in the middle of a construct (unbalanced brackets, or a last token
/// that cannot end a translation unit): glsl-lang panics while locating such an error, so it is
/// reported here. Only for sources without conditional compilation or macros, where the raw
/// text is what the parser sees.
fn truncated(source: &str) -> Option<ParseFail> {
    let mut depth: Vec<(u8, usize)> = Vec::new();
    let mut last: Option<(u8, usize)> = None;
    let b = source.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if line_start && c == b'#' {
            let rest = &source[i + 1..];
            let word: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            if matches!(
                word.as_str(),
                "if" | "ifdef"
                    | "ifndef"
                    | "else"
                    | "elif"
                    | "define"
                    | "undef"
                    | "include"
                    | "line"
            ) {
                return None;
            }
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            if i + 1 >= b.len() {
                return Some(ParseFail {
                    offset: source.len(),
                    message: "syntax error: unterminated comment".into(),
                });
            }
            i += 2;
            continue;
        }
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
            last = Some((c, i));
            match c {
                b'{' | b'(' | b'[' => depth.push((c, i)),
                // An unmatched closer: the parser reports that one itself.
                b'}' | b')' | b']' => {
                    depth.pop()?;
                }
                _ => {}
            }
        }
        i += 1;
    }
    if let Some((c, off)) = depth.last() {
        return Some(ParseFail {
            offset: *off,
            message: format!(
                "syntax error: '{}' is never closed (unexpected end of input)",
                *c as char
            ),
        });
    }
    match last {
        Some((b';' | b'}', _)) | None => None,
        Some((_, off)) => Some(ParseFail {
            offset: off,
            message: "syntax error: unexpected end of input (missing ';'?)".into(),
        }),
    }
}

fn parse_inner(source: &str) -> Result<Parsed, ParseFail> {
    let mut pp = StdProcessor::new();
    let state = ProcessorStateBuilder::new(&REGISTRY).finish();
    let file = pp
        .open_source(source, ".")
        .with_registry(&*REGISTRY)
        .with_state(state);
    let result = file.builder::<TranslationUnit>().parse();
    match result {
        Ok((tu, _ctx, iter)) => {
            let directives = iter.into_directives();
            let mut extensions = Vec::new();
            let mut version = None;
            for d in directives.directives() {
                let offset = usize::from(d.text_range().start().offset);
                match d.kind() {
                    DirectiveKind::Extension(ext) => {
                        let name = match &ext.name {
                            ExtensionName::All => None,
                            ExtensionName::Specific(n) => Some(n.as_ref().to_string()),
                        };
                        let behavior = match ext.behavior {
                            ExtensionBehavior::Require => Behavior::Require,
                            ExtensionBehavior::Enable => Behavior::Enable,
                            ExtensionBehavior::Warn => Behavior::Warn,
                            ExtensionBehavior::Disable => Behavior::Disable,
                        };
                        extensions.push(ExtDirective {
                            name,
                            behavior,
                            offset,
                        });
                    }
                    DirectiveKind::Version(v) if version.is_none() => {
                        version = Some(v.number);
                    }
                    _ => {}
                }
            }
            Ok(Parsed {
                tu,
                extensions,
                version,
            })
        }
        Err(e) => {
            let offset = usize::from(e.pos().start());
            Err(ParseFail {
                offset,
                message: format!("{}", e.inner()),
            })
        }
    }
}

/// Maps byte offsets to 1-based (line, column).
pub struct LineMap {
    starts: Vec<usize>,
}

impl LineMap {
    pub fn new(src: &str) -> Self {
        let mut starts = vec![0];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        LineMap { starts }
    }
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let col = offset - self.starts.get(line).copied().unwrap_or(0);
        (line as u32 + 1, col as u32 + 1)
    }
}
