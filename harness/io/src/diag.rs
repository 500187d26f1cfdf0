//! Diagnostics: a problem in a user's file, located at `file:line:column`, with an optional hint.
//!
//! Every error conform reports about input (a case, a program, a clause catalogue) is one of
//! these, so messages look the same everywhere and golden tests can pin their wording.

use crate::escape::line;
use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: PathBuf,
    /// 1-based; 0 when the problem concerns the whole file.
    pub line: usize,
    /// 1-based; 0 when unknown.
    pub column: usize,
    pub message: String,
    pub hint: Option<String>,
}

/// The most bytes of a message or a hint kept: messages quote what a file holds (a name, a
/// key, a value), and a file of a few MiB, its aliases expanded, must not make a diagnostic
/// of megabytes on a console, in a journal line and in every report.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// `s` cut to [`MAX_MESSAGE_BYTES`] at a character boundary, saying how much was cut.
fn bounded(mut s: String) -> String {
    if s.len() > MAX_MESSAGE_BYTES {
        let mut end = MAX_MESSAGE_BYTES;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let cut = s.len() - end;
        s.truncate(end);
        s.push_str(&format!("… ({cut} more bytes not shown)"));
    }
    s
}

impl Diagnostic {
    pub fn new(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.to_path_buf(),
            line,
            column,
            message: bounded(message.into()),
            hint: None,
        }
    }

    pub fn whole_file(file: &Path, message: impl Into<String>) -> Self {
        Diagnostic::new(file, 0, 0, message)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(bounded(hint.into()));
        self
    }

    pub fn with_optional_hint(mut self, hint: Option<String>) -> Self {
        self.hint = hint.map(bounded);
        self
    }
}

/// `file:line:col: message`, then `  hint: ...` on a second line. The file name, message and
/// hint are escaped (`conform_io::escape::line`): they quote user files, and a diagnostic is
/// printed on consoles and CI logs.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", line(&self.file.display().to_string()))?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        write!(f, ": {}", line(&self.message))?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {}", line(hint))?;
        }
        Ok(())
    }
}

/// Words longer than this get no suggestion: no key or name of ours is near that long, and
/// comparing a word of megabytes with every candidate would take minutes.
const MAX_TYPO_BYTES: usize = 128;

/// The closest candidate to `word` among `candidates`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    if word.len() > MAX_TYPO_BYTES {
        return None;
    }
    candidates
        .into_iter()
        .filter(|c| c.len() <= MAX_TYPO_BYTES)
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_and_without_position() {
        let d = Diagnostic::new(Path::new("a.yaml"), 3, 7, "bad").with_hint("try good");
        assert_eq!(d.to_string(), "a.yaml:3:7: bad\n  hint: try good");
        let d = Diagnostic::whole_file(Path::new("a.yaml"), "empty");
        assert_eq!(d.to_string(), "a.yaml: empty");
    }

    #[test]
    fn messages_and_hints_are_bounded() {
        let d =
            Diagnostic::new(Path::new("a"), 1, 1, "é".repeat(1 << 20)).with_hint("x".repeat(5000));
        assert!(
            d.message.len() < MAX_MESSAGE_BYTES + 64,
            "{}",
            d.message.len()
        );
        assert!(
            d.message.ends_with("(2093056 more bytes not shown)"),
            "{}",
            &d.message[4000..]
        );
        assert!(d.hint.unwrap().ends_with("(904 more bytes not shown)"));
        let long = "k".repeat(2 << 20);
        let t = std::time::Instant::now();
        assert_eq!(did_you_mean(&long, ["k", "kk"]), None);
        assert!(t.elapsed().as_millis() < 100);
    }

    #[test]
    fn suggests_close_words_only() {
        let keys = ["buffers", "steps", "expect"];
        assert_eq!(did_you_mean("bufers", keys), Some("buffers"));
        assert_eq!(did_you_mean("zzz", keys), None);
    }
}
