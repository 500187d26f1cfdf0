//! Parsing through glsl-lang's preprocessor with our own extension registry.
//!
//! glsl-lang rejects `#extension` names its registry does not know, but the GLSL spec (§3.3)
//! says `enable` or `warn` of an unsupported extension only warns, and `require` of one is a
//! matter for the compile rules (the reference refuses such a shader: a skip, not a failure).
//! So the registry built for each parse lists every extension the source names, and the
//! compile rules (`facts`) decide what each directive means; the reference implements those
//! [`supported`] names (each defines its macro as 1, as every extension says).
//!
//! Type names that extensions add (`int64_t`, ... of GL_ARB_gpu_shader_int64, `atomic_uint`
//! below GLSL 4.20 with GL_ARB_shader_atomic_counters or in ESSL 3.10) are registered with the
//! parser as type names from the start ([`EXTENSION_TYPE_NAMES`]), not with the
//! preprocessor's registry: glsl-lang-pp turns a use of a type name whose extension is enabled
//! with `warn` into a fatal error, and gates `atomic_uint` on the version number alone (ESSL
//! 3.10 has it). Whether such a type may be used where it appears is then checked by the
//! lowering, positionally (`#extension` takes effect from the directive on). A user identifier
//! spelled like one of these type names does not parse (a documented limitation).

use super::literals::{self, IntLiteral};
use glsl_lang::ast::{IdentifierData, TranslationUnit};
use glsl_lang::lexer::full::fs::PreprocessorExt;
use glsl_lang::parse::{IntoParseBuilderExt, ParseContext};
use glsl_lang_pp::exts::names::ExtNameAtom;
use glsl_lang_pp::exts::{ExtensionSpec, Registry};
use glsl_lang_pp::processor::event::DirectiveKind;
use glsl_lang_pp::processor::fs::StdProcessor;
use glsl_lang_pp::processor::nodes::{ExtensionBehavior, ExtensionName, VersionProfile};
use glsl_lang_pp::processor::ProcessorStateBuilder;
use std::collections::HashMap;

/// The extensions of [`crate::EXTENSIONS`] that have no GLSL part the reference implements
/// (assembly, SPIR-V and API extensions): in `#extension` they count as unsupported.
const NOT_IN_GLSL: &[&str] = &[
    "GL_NV_compute_program5",
    "GL_NV_gpu_program5",
    "GL_NV_gpu_program4",
    "GL_NV_shader_storage_buffer_object",
    "GL_NV_gpu_program_fp64",
    "GL_NV_parameter_buffer_object",
    "GL_ARB_gl_spirv",
    "GL_ARB_spirv_extensions",
    "GL_AMD_gpu_shader_half_float",
    "GL_KHR_shader_subgroup",
    "GL_ARB_ES3_1_compatibility",
];

/// Whether the GLSL front end implements the extension `name` (it defines its macro as 1).
pub fn supported(name: &str) -> bool {
    crate::EXTENSIONS.contains(&name) && !NOT_IN_GLSL.contains(&name)
}

/// Type names added by extensions, known to the parser from the start: (type name, the
/// extension that adds it).
pub const EXTENSION_TYPE_NAMES: &[(&str, &str)] = &[
    ("atomic_uint", "GL_ARB_shader_atomic_counters"),
    ("int64_t", "GL_ARB_gpu_shader_int64"),
    ("i64vec2", "GL_ARB_gpu_shader_int64"),
    ("i64vec3", "GL_ARB_gpu_shader_int64"),
    ("i64vec4", "GL_ARB_gpu_shader_int64"),
    ("uint64_t", "GL_ARB_gpu_shader_int64"),
    ("u64vec2", "GL_ARB_gpu_shader_int64"),
    ("u64vec3", "GL_ARB_gpu_shader_int64"),
    ("u64vec4", "GL_ARB_gpu_shader_int64"),
];

/// The names of every `#extension` directive in `source` (a textual scan that also sees
/// masked ones: registering a name too many is harmless).
fn extension_names(source: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in source.lines() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("extension") else {
            continue;
        };
        let rest = rest.trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 && &rest[..end] != "all" {
            out.push(&rest[..end]);
        }
    }
    out
}

/// The first extension `source` requires, or enables, whose GLSL part the reference does not
/// implement: any name with `require` (a driver without it fails the compile, and the
/// reference cannot judge it), and with `enable` the extensions the reference lists for
/// another part (GL_AMD_gpu_shader_half_float: its SPIR-V capability, not its GLSL types). A
/// textual scan, as [`extension_names`].
fn unmodelled_extension(source: &str) -> Option<&str> {
    source.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix('#')?;
        let rest = rest.trim_start().strip_prefix("extension")?;
        let (name, behavior) = rest.split_once(':')?;
        let name = name.trim();
        let behavior = behavior.split_whitespace().next()?;
        let listed = crate::EXTENSIONS.contains(&name);
        let unmodelled = !supported(name)
            && name != "all"
            && (behavior == "require" || (behavior == "enable" && listed));
        unmodelled.then_some(name)
    })
}

/// The preprocessor's registry for one source: every supported extension and every other
/// name the source mentions, none with type names (see the module docs).
fn registry_for(source: &str) -> Registry {
    let mut r = Registry::new();
    for name in crate::EXTENSIONS
        .iter()
        .copied()
        .filter(|n| supported(n))
        .chain(extension_names(source))
    {
        r.add(ExtensionSpec::new(ExtNameAtom::from(name), vec![]));
    }
    r
}

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
    /// `#version NNN es`: an OpenGL ES Shading Language shader.
    pub es: bool,
    /// The 64-bit integer literals, by byte offset (see `literals`).
    pub int_literals: HashMap<usize, IntLiteral>,
}

/// A parse error: byte offset and message.
#[derive(Clone, Debug)]
pub struct ParseFail {
    pub offset: usize,
    pub message: String,
    /// The source is valid as far as the parser knows but uses something the reference does
    /// not model (a refusal, not a compile error).
    pub unsupported: bool,
}

/// Parses one shader. glsl-lang's preprocessor can panic on some malformed inputs (an empty
/// expansion stack when it locates an error at the end of the input); that panic is caught and
/// reported as a parse error so that no input makes the reference panic.
pub fn parse(source: &str) -> Result<Parsed, ParseFail> {
    if let Some(f) = unbalanced_conditionals(source)
        .or_else(|| truncated(source))
        .or_else(|| {
            super::pp_limit::too_large(source).map(|offset| ParseFail {
                offset,
                message: super::pp_limit::too_large_message(),
                unsupported: false,
            })
        })
    {
        return Err(f);
    }
    let (source, int_literals) = literals::rewrite(source).map_err(|p| ParseFail {
        offset: p.offset,
        message: p.message,
        unsupported: p.unsupported,
    })?;
    let source = &*source;
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_inner(source)));
    match parsed {
        Ok(Err(e)) if !e.unsupported => Err(match unmodelled_extension(source) {
            // A program written for an extension whose GLSL part the reference does not
            // model (its types, literals and functions are unknown to the parser) is not
            // judged as a compile error: a refusal naming the extension.
            Some(name) => ParseFail {
                message: format!(
                    "unsupported: extension '{name}' (the reference does not implement its GLSL part; the parser stopped here: {})",
                    e.message
                ),
                unsupported: true,
                ..e
            },
            None => e,
        }),
        Ok(r) => r.map(|p| Parsed {
            int_literals,
            ..p
        }),
        Err(_) => Err(ParseFail {
            offset: source.len(),
            message: "syntax error (the GLSL parser could not locate the error; near the end of the input?)".into(),
            unsupported: false,
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
                        unsupported: false,
                    })
                }
                "endif" if open.pop().is_none() => {
                    return Some(ParseFail {
                        offset: start,
                        message: "#endif without #if".into(),
                        unsupported: false,
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
        unsupported: false,
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
        if let Some((end, closed)) = literals::comment_end(b, i) {
            if !closed {
                return Some(ParseFail {
                    offset: source.len(),
                    message: "syntax error: unterminated comment".into(),
                    unsupported: false,
                });
            }
            i = end;
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
            unsupported: false,
        });
    }
    match last {
        Some((b';' | b'}', _)) | None => None,
        Some((_, off)) => Some(ParseFail {
            offset: off,
            message: "syntax error: unexpected end of input (missing ';'?)".into(),
            unsupported: false,
        }),
    }
}

fn parse_inner(source: &str) -> Result<Parsed, ParseFail> {
    let registry = registry_for(source);
    let mut pp = StdProcessor::new();
    let state = ProcessorStateBuilder::new(&registry).finish();
    let file = pp
        .open_source(source, ".")
        .with_registry(&registry)
        .with_state(state);
    let ctx = ParseContext::new();
    for (name, _) in EXTENSION_TYPE_NAMES {
        ctx.add_type_name(IdentifierData::from(*name).into());
    }
    let result = file.builder::<TranslationUnit>().context(&ctx).parse();
    match result {
        Ok((tu, _ctx, iter)) => {
            let directives = iter.into_directives();
            let mut extensions = Vec::new();
            let mut version = None;
            let mut es = false;
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
                        es = v.profile == VersionProfile::Es;
                    }
                    _ => {}
                }
            }
            Ok(Parsed {
                tu,
                extensions,
                version,
                es,
                int_literals: HashMap::new(),
            })
        }
        Err(e) => {
            let offset = usize::from(e.pos().start());
            Err(ParseFail {
                offset,
                message: format!("{}", e.inner()),
                unsupported: false,
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

/// Which extensions are enabled where in one shader: an `#extension` directive takes effect
/// from where it stands to the next one naming the same extension (GLSL §3.3: "the order of
/// directives matters"). `warn` enables like `enable`; `all : warn` enables every supported
/// extension and `all : disable` disables everything.
#[derive(Clone, Debug, Default)]
pub struct ExtState {
    /// (byte offset, extension or None for `all`, enabled after it), in source order.
    changes: Vec<(usize, Option<String>, bool)>,
}

impl ExtState {
    pub fn new(directives: &[ExtDirective]) -> Self {
        let mut changes: Vec<_> = directives
            .iter()
            .map(|d| {
                let on = !matches!(d.behavior, Behavior::Disable);
                (d.offset, d.name.clone(), on)
            })
            .collect();
        changes.sort_by_key(|c| c.0);
        ExtState { changes }
    }

    /// Whether `name` is enabled at byte offset `off`.
    pub fn enabled_at(&self, name: &str, off: usize) -> bool {
        let mut on = false;
        for (at, n, e) in &self.changes {
            if *at > off {
                break;
            }
            match n {
                None => on = *e && supported(name),
                Some(n) if n == name => on = *e,
                Some(_) => {}
            }
        }
        on
    }

    /// Whether `name` is enabled anywhere in the shader.
    pub fn enabled_anywhere(&self, name: &str) -> bool {
        self.changes
            .iter()
            .any(|(at, _, _)| self.enabled_at(name, *at))
    }
}
