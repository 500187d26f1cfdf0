//! Escaping what the console and the Markdown reports embed.
//!
//! Case names, paths, messages and backend names come from case files and journals, which may
//! come from an untrusted merge request. On a terminal or in a CI log, an ESC sequence can clear
//! the screen or recolour text, and a CR or LF can forge a `REGRESSION ...` line; in a Markdown
//! note posted on a merge request, a line starting with `/` is a GitLab quick action (`/merge`,
//! `/approve`) and `@all` notifies everyone. So:
//!
//! - [`line`] shows every control character (line breaks included) and the Unicode bidi
//!   controls as a visible escape (`\x1b`, `\n`, `\u{202e}`), for one-line console fields;
//! - [`text`] does the same but keeps line breaks and tabs, for multi-line console text
//!   (diagnostics, program source);
//! - [`md_code`] puts a value in a Markdown code span that no backtick in it can close and no
//!   line break can leave, where neither quick actions nor mentions are recognised;
//! - [`md_text`] escapes free Markdown text: line breaks shown as escapes, Markdown
//!   punctuation and HTML characters escaped, and `@` kept from starting a mention;
//! - [`md_line`] is [`md_text`] for text that starts a line: nothing at its start can act
//!   (a quick action `/close`, a heading `#`, a rule or setext underline `---`/`===`, a list
//!   item `-`, `+`, `1.`, a block quote, HTML, a code fence);
//! - [`md_code_block`] shows multi-line text (a program, a file) as an indented code block:
//!   every line starts with four spaces, so no line of it starts a quick action (GitLab's
//!   quick-action extractor knows only ```` ``` ```` fences, and content could end one early
//!   for it) and nothing in it can end the block.
//!
//! HTML escapes its markup (`report::html::escape`) after [`text`]; JUnit's strings go through
//! [`line`] or [`text`] before quick-junit escapes XML, so no report holds these characters raw
//! and a JUnit file is always well-formed XML 1.0.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must be shown as an escape on a console or in a report: C0 and C1 controls,
/// DEL, the Unicode bidi controls (embeddings, overrides, isolates, and the marks LRM, RLM and
/// ALM, which reorder text), the line and paragraph separators (which break it), and the two
/// characters besides controls that XML 1.0 forbids and a Rust string can hold (U+FFFE,
/// U+FFFF). Every report builds on [`line`] and [`text`], so none holds these raw.
pub fn is_hostile(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{61c}'
                | '\u{fffe}'
                | '\u{ffff}'
        )
}

/// Whether `c` is invisible where text is shown, without being [`is_hostile`]: zero-width
/// characters and joiners, invisible operators, the byte order mark, variation selectors,
/// Unicode tags, interlinear annotation controls, and fillers that render blank. Harmless in a
/// message; in a case name they make one name look like another, so the loader refuses them.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{34f}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{17b4}'
            | '\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200d}'
            | '\u{2060}'..='\u{2065}'
            | '\u{206a}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff0}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

fn escaped(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_hostile(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_hostile(c) || keep(c) {
            o.push(c);
            continue;
        }
        match c {
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x100 => {
                let _ = write!(o, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(o, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(o)
}

/// A one-line console field: every control character, line breaks included, as an escape.
pub fn line(s: &str) -> Cow<'_, str> {
    escaped(s, |_| false)
}

/// Multi-line console text: control characters as escapes, except line feeds and tabs.
pub fn text(s: &str) -> Cow<'_, str> {
    escaped(s, |c| c == '\n' || c == '\t')
}

/// `s` as a Markdown inline code span: control characters as escapes, fenced with more
/// backticks than any run of backticks in it. For a table cell use [`md_cell_code`].
pub fn md_code(s: &str) -> String {
    let s = line(s);
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // A space inside the fence keeps a backtick at either end from joining it; CommonMark strips
    // one space on each side. An empty span would not be a span at all.
    if longest > 0 || s.is_empty() || s.starts_with(' ') || s.ends_with(' ') {
        format!("{fence} {s} {fence}")
    } else {
        format!("{fence}{s}{fence}")
    }
}

/// [`md_code`] for a table cell: a `|` would end the cell even inside a code span (GFM).
pub fn md_cell_code(s: &str) -> String {
    md_code(s).replace('|', "\\|")
}

/// Free Markdown text, for use inside a line (never at its start): control characters as
/// escapes, the punctuation that means something mid-line (code, emphasis, links, tables,
/// strike-through) backslash-escaped, `<`, `>` and `&` as HTML entities, and a word joiner
/// after every `@` so that no mention (`@all`) is recognised (GitLab finds mentions in the
/// rendered text, where a backslash escape is already gone). Rendered, it reads as the
/// original text.
pub fn md_text(s: &str) -> String {
    let s = line(s);
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '@' => o.push_str("@\u{2060}"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                o.push('\\');
                o.push(c);
            }
            c => o.push(c),
        }
    }
    o
}

/// [`md_text`] for text at the start of a Markdown line (a paragraph's line, a quote's
/// source): also leading spaces dropped, and the first character backslash-escaped where it
/// is ASCII punctuation (`/close` would be a GitLab quick action, `#` a heading, `-`, `+`,
/// `=` a list item, a rule or a setext underline, `>`... is already `&gt;`), and the `.` or
/// `)` after leading digits escaped (an ordered list item). A backslash before ASCII
/// punctuation renders as the punctuation alone, so it reads as the original text.
pub fn md_line(s: &str) -> String {
    let t = md_text(s.trim_start_matches(' '));
    let mut o = String::with_capacity(t.len() + 2);
    match t.chars().next() {
        // Already an escape (`\*`) or an entity (`&lt;`).
        Some('\\' | '&') | None => o.push_str(&t),
        Some(c) if c.is_ascii_punctuation() => {
            o.push('\\');
            o.push_str(&t);
        }
        Some(c) if c.is_ascii_digit() => {
            let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            o.push_str(&t[..digits]);
            if t[digits..].starts_with(['.', ')']) {
                o.push('\\');
            }
            o.push_str(&t[digits..]);
        }
        Some(_) => o.push_str(&t),
    }
    o
}

/// Multi-line text as a Markdown indented code block: every line (at `\n`, `\r\n` or a lone
/// `\r`, which Markdown also takes for a line end) is indented by four spaces, with control
/// characters other than tabs shown as escapes ([`text`]); leading and trailing blank lines
/// are dropped. Nothing in it can end the block (only a line indented less would, and every
/// line is indented), no line of it starts a quick action, a heading or HTML, and GitLab
/// recognises no mention in code. The caller puts a blank line before and after it. An
/// indented block rather than a fence, as GitLab's quick-action extractor takes a ```` ``` ````
/// line inside a longer fence for the fence's end and reads the lines after it for actions.
pub fn md_code_block(s: &str) -> String {
    let lines: Vec<&str> = s
        .split("\r\n")
        .flat_map(|l| l.split(['\n', '\r']))
        .collect();
    let blank = |l: &&str| l.chars().all(|c| c == ' ' || c == '\t');
    let start = lines.iter().position(|l| !blank(l)).unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !blank(l))
        .map_or(start, |i| i + 1);
    let mut o = String::new();
    for l in &lines[start..end] {
        let l = text(l.trim_end_matches([' ', '\t']));
        if l.is_empty() {
            o.push('\n');
        } else {
            let _ = writeln!(o, "    {l}");
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_escapes_make_control_characters_visible() {
        assert_eq!(line("plain/name-1"), "plain/name-1");
        assert!(matches!(line("plain"), Cow::Borrowed(_)));
        assert_eq!(
            line("a\x1b[2Jb\rREGRESSION x\n\u{202e}z\u{9b}"),
            "a\\x1b[2Jb\\rREGRESSION x\\n\\u{202e}z\\x9b"
        );
        assert_eq!(text("one\n\ttwo\x1b"), "one\n\ttwo\\x1b");
        // What XML 1.0 forbids, and the Arabic letter mark, are shown too.
        assert_eq!(
            line("a\u{fffe}b\u{ffff}\u{61c}"),
            "a\\u{fffe}b\\u{ffff}\\u{61c}"
        );
        assert!(is_invisible('\u{200b}') && is_invisible('\u{feff}') && !is_invisible('a'));
    }

    #[test]
    fn code_spans_survive_backticks_and_line_breaks() {
        assert_eq!(md_code("x/a"), "`x/a`");
        assert_eq!(md_code("a`b"), "`` a`b ``");
        assert_eq!(md_code("``"), "``` `` ```");
        assert_eq!(md_code(""), "`  `");
        assert_eq!(md_code("x\n/merge\n@all"), "`x\\n/merge\\n@all`");
        assert_eq!(md_cell_code("a|b"), "`a\\|b`");
    }

    #[test]
    fn free_text_cannot_mention_act_or_inject() {
        let t = md_text("/merge @all <script>x</script>\nnext");
        assert!(!t.contains('\n'));
        assert!(
            t.starts_with("/merge"),
            "callers never start a line with it"
        );
        assert!(!t.contains("@all"));
        assert!(!t.contains('<'));
    }

    /// Text that starts a line in a Markdown note cannot act there: no quick action, heading,
    /// rule, setext underline, list item, block quote, HTML or mention; rendered, it reads as
    /// the original.
    #[test]
    fn text_at_a_line_start_cannot_act() {
        for (raw, shown) in [
            ("/close", "\\/close"),
            ("/label ~bug", "\\/label \\~bug"),
            ("# Heading", "\\# Heading"),
            ("---", "\\---"),
            ("===", "\\==="),
            ("***", "\\*\\*\\*"),
            ("___", "\\_\\_\\_"),
            ("> quote", "&gt; quote"),
            (">>> quote", "&gt;&gt;&gt; quote"),
            ("- item", "\\- item"),
            ("+ item", "\\+ item"),
            ("   # indented", "\\# indented"),
            ("12. item", "12\\. item"),
            ("3) item", "3\\) item"),
            ("2024 was", "2024 was"),
            ("<details>", "&lt;details&gt;"),
            ("```", "\\`\\`\\`"),
            ("$$", "\\$$"),
            ("plain text", "plain text"),
            ("", ""),
        ] {
            assert_eq!(md_line(raw), shown, "{raw}");
        }
        assert!(!md_line("@all please").contains("@all"));
        assert!(!md_line("x\n/close").contains('\n'));
    }

    /// A code block's every line is indented: no content line starts a quick action or ends
    /// the block, whatever fences, line ends or controls it holds.
    #[test]
    fn code_blocks_indent_every_line() {
        let b = md_code_block("\nvoid main() {\n```\n/close\r/label ~x\r\n\n</details>\x1b\n}\n\n");
        assert_eq!(
            b,
            "    void main() {\n    ```\n    /close\n    /label ~x\n\n    </details>\\x1b\n    }\n"
        );
        for l in b.lines() {
            assert!(l.is_empty() || l.starts_with("    "), "{l:?}");
        }
        assert_eq!(md_code_block(""), "");
        assert_eq!(md_code_block("\u{2028}"), "    \\u{2028}\n");
    }
}
