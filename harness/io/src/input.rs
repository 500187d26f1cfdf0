//! Reading the files a user or a case names, safely: regular files only, bounded.
//!
//! Case files, program files, baselines, flakes and skips lists, the clause catalogue, a run's
//! `gating.json`, `run.json` and journal may all come from an untrusted merge request or be
//! mistyped. A path can name `/dev/zero` (endless), `/dev/urandom`, a FIFO (an `open` that
//! blocks until a writer comes), or a symlink to one of those; checking the size with a
//! `metadata` call before reading only works for regular files, and races with the file
//! changing. So every read here opens the file without blocking (`O_NONBLOCK`: a FIFO opens at
//! once), checks what was opened (`fstat`), refuses anything but a regular file, and reads at
//! most the limit plus one byte (`Read::take`), so a file that grows after the check is still
//! caught. Hand-written rather than a crate: it is a dozen lines over `std` and `libc`.

use crate::diag::Diagnostic;
use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The path names something other than a regular file (`a FIFO`, `a character device`).
    NotRegular(&'static str),
    /// The file holds more than `limit` bytes (`size`: what `fstat` said, or `limit + 1` when
    /// it grew while being read).
    TooLarge { size: u64, limit: u64 },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
            ReadError::NotRegular(what) => {
                write!(
                    f,
                    "is {what}, not a regular file; only regular files are read"
                )
            }
            ReadError::TooLarge { size, limit } if size > limit => write!(
                f,
                "file is {size} bytes, above the {limit} byte limit for this kind of file"
            ),
            ReadError::TooLarge { limit, .. } => {
                write!(
                    f,
                    "file is above the {limit} byte limit for this kind of file"
                )
            }
        }
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// What a file type is, in words, for messages.
fn describe(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Opens `path` (following symlinks) for reading if it is a regular file; returns the file and
/// its size. Never blocks: a FIFO is opened non-blocking and refused.
pub fn open_regular(path: &Path) -> Result<(File, u64), ReadError> {
    open_checked(path, 0)
}

/// [`open_regular`], but a symlink as the last component of `path` is refused, not followed
/// (`O_NOFOLLOW`, so the check cannot race with the file being replaced): for files inside a
/// directory that came from elsewhere (a campaign's artifacts, a piglit checkout), where a
/// symlink is not what the writer made.
pub fn open_regular_nofollow(path: &Path) -> Result<(File, u64), ReadError> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(ReadError::NotRegular("a symbolic link"));
    }
    open_checked(path, libc::O_NOFOLLOW).map_err(|e| match e {
        ReadError::Io(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            ReadError::NotRegular("a symbolic link")
        }
        e => e,
    })
}

fn open_checked(path: &Path, flags: i32) -> Result<(File, u64), ReadError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | flags)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular(describe(meta.file_type())));
    }
    Ok((file, meta.len()))
}

/// The bytes of the regular file `path`, refused above `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_opened(open_regular(path)?, limit)
}

/// [`read_bounded`] of a file that must not be a symlink ([`open_regular_nofollow`]).
pub fn read_bounded_nofollow(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_opened(open_regular_nofollow(path)?, limit)
}

fn read_opened((file, size): (File, u64), limit: u64) -> Result<Vec<u8>, ReadError> {
    if size > limit {
        return Err(ReadError::TooLarge { size, limit });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            size: limit + 1,
            limit,
        });
    }
    Ok(bytes)
}

/// The JSON document at `path` (at most `limit` bytes), `Ok(None)` when there is no such file;
/// errors name the file (and the line and column, for JSON errors), never what it holds
/// ([`json_error`]).
pub fn read_json_if_present<T: serde::de::DeserializeOwned>(
    path: &Path,
    limit: u64,
) -> Result<Option<T>, String> {
    if !path.exists() && !path.is_symlink() {
        return Ok(None);
    }
    let bytes = read_bounded(path, limit).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_json(path, &bytes).map(Some)
}

/// The JSON document `bytes` (read from `path`) as a `T`; the error names `path`, the line and
/// the column, and says what is wrong without quoting the document ([`json_error`]).
pub fn parse_json<T: serde::de::DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "{}:{}:{}: {}",
            path.display(),
            e.line(),
            e.column(),
            json_error(&e)
        )
    })
}

/// What is wrong with a JSON document, from serde_json's error, without the document's text:
/// a file that is not what it should be (a symlink to a secret, a mistyped path) may be
/// anything, and serde quotes the values and keys it did not expect (`invalid type: string
/// "<the file's text>"`). Syntax errors say nothing of the text and are kept; the names serde
/// expected come from the type, not the file, and are kept too.
pub fn json_error(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let msg = full
        .find(" at line ")
        .map_or(full.as_str(), |cut| &full[..cut]);
    if e.classify() != serde_json::error::Category::Data {
        return msg.to_string();
    }
    // The last ", expected " is serde's own (a quoted value cannot follow it).
    let expected = msg.rfind(", expected ").map(|i| &msg[i + 2..]);
    for (phrase, what) in [
        ("invalid type: ", "a value of the wrong type"),
        ("invalid value: ", "a value out of range"),
        ("invalid length ", "a list of the wrong length"),
        ("unknown field ", "an unknown field"),
        ("unknown variant ", "an unknown name"),
    ] {
        if msg.starts_with(phrase) {
            return match expected {
                Some(e) => format!("{what} ({e})"),
                None => what.to_string(),
            };
        }
    }
    // `missing field `x``, `duplicate field `x``: names of the type's own fields.
    if msg.starts_with("missing field ") || msg.starts_with("duplicate field ") {
        return msg.to_string();
    }
    "a value this file cannot hold".to_string()
}

/// One line of a line-based file read with [`read_line_bounded`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line (without its `\n`), or the last line of a file that does not end in one.
    Text(Vec<u8>),
    /// A line longer than the limit: its bytes were skipped up to the next `\n`.
    TooLong,
}

/// Reads the next line of `reader`, keeping at most `limit` bytes of it (longer lines are
/// skipped, so one endless line cannot exhaust memory). `None` at the end of the input.
pub fn read_line_bounded(
    reader: &mut impl BufRead,
    limit: usize,
) -> std::io::Result<Option<(Line, bool)>> {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > limit {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        match done {
            Some(n) => {
                reader.consume(n);
                let l = if too_long {
                    Line::TooLong
                } else {
                    Line::Text(line)
                };
                return Ok(Some((l, true)));
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
    if !any {
        return Ok(None);
    }
    let l = if too_long {
        Line::TooLong
    } else {
        Line::Text(line)
    };
    Ok(Some((l, false)))
}

/// Largest case or program file we read (a case is text of a few KiB).
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// Reads a text file with the checks every input gets: a regular file (not a device, FIFO or
/// directory), size (of what is actually read), binary content, a byte order mark, UTF-8.
pub fn read_text(path: &Path) -> Result<String, Diagnostic> {
    let bytes = read_bounded(path, MAX_FILE_BYTES).map_err(|e| read_error(path, e))?;
    text_of(path, bytes)
}

/// The checks [`read_text`] makes of what it read (size, binary content, a byte order mark,
/// UTF-8), for text made elsewhere that must pass them: a case file about to be written (the
/// piglit importer) is checked by the same rules that will read it back.
pub fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String, Diagnostic> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        let size = bytes.len() as u64;
        return Err(read_error(
            path,
            ReadError::TooLarge {
                size,
                limit: MAX_FILE_BYTES,
            },
        ));
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(
            Diagnostic::new(path, 1, 1, "file starts with a UTF-8 byte order mark (BOM)")
                .with_hint("save the file as UTF-8 without a BOM"),
        );
    }
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        let (line, col) = line_col(&bytes, at);
        return Err(Diagnostic::new(
            path,
            line,
            col,
            "file contains a NUL byte: this is a binary file, not YAML or program text",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let (line, col) = line_col(e.as_bytes(), at);
        Diagnostic::new(path, line, col, "file is not valid UTF-8")
            .with_hint("save the file as UTF-8")
    })
}

/// Why a case or program file was not read, as a diagnostic about the whole file.
fn read_error(path: &Path, e: ReadError) -> Diagnostic {
    let msg = match e {
        ReadError::TooLarge { .. } => {
            format!("{e} (case and program files are at most {MAX_FILE_BYTES} bytes)")
        }
        e => e.to_string(),
    };
    Diagnostic::whole_file(path, msg)
}

fn line_col(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = at
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, b"hello").unwrap();
        assert_eq!(read_bounded(&p, 5).unwrap(), b"hello");
        let e = read_bounded(&p, 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "file is 5 bytes, above the 4 byte limit for this kind of file"
        );
        let e = read_bounded(dir.path(), 4).unwrap_err();
        assert!(e.to_string().starts_with("is a directory"), "{e}");
    }

    #[test]
    fn devices_fifos_and_symlinks_to_them_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_bounded(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.to_string().starts_with("is a character device"), "{e}");
        let link = dir.path().join("zero.yaml");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(
            read_bounded(&link, 1 << 20),
            Err(ReadError::NotRegular(_))
        ));
        let fifo = dir.path().join("fifo.yaml");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: c is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_bounded(&fifo, 1 << 20).unwrap_err();
        assert!(e.to_string().starts_with("is a FIFO"), "{e}");
    }

    #[test]
    fn json_errors_name_the_position_but_never_quote_the_document() {
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Record {
            started: String,
            kind: Option<Kind>,
        }
        #[derive(serde::Deserialize, Debug)]
        enum Kind {
            A,
        }
        let p = Path::new("run.json");
        let err = |text: &str| parse_json::<Record>(p, text.as_bytes()).unwrap_err();
        for (text, says) in [
            (
                "\"TOKEN-1\"",
                "run.json:1:9: a value of the wrong type (expected struct Record)",
            ),
            (
                "{\"TOKEN-2\": 1}",
                "run.json:1:10: an unknown field (expected `started` or `kind`)",
            ),
            (
                "{\"started\": \"x\", \"kind\": \"TOKEN-3\"}",
                "run.json:1:34: an unknown name (expected `A`)",
            ),
            (
                "{\"started\": 12}",
                "run.json:1:14: a value of the wrong type (expected a string)",
            ),
            ("{}", "run.json:1:2: missing field `started`"),
            ("TOKEN-4", "run.json:1:1: expected value"),
        ] {
            assert_eq!(err(text), says);
        }
    }

    #[test]
    fn nofollow_refuses_a_symlink_even_to_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.txt");
        std::fs::write(&target, b"secret").unwrap();
        let link = dir.path().join("l.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(read_bounded_nofollow(&target, 6).unwrap(), b"secret");
        let e = read_bounded_nofollow(&link, 6).unwrap_err();
        assert_eq!(
            e.to_string(),
            "is a symbolic link, not a regular file; only regular files are read"
        );
        let fifo = dir.path().join("f");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: c is a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_bounded_nofollow(&fifo, 6).unwrap_err();
        assert!(e.to_string().starts_with("is a FIFO"), "{e}");
    }

    #[test]
    fn lines_are_bounded_and_a_torn_last_line_is_told_apart() {
        let text = b"short\nthis line is too long\nlast";
        let mut r = std::io::BufReader::with_capacity(4, &text[..]);
        let mut got = Vec::new();
        while let Some(l) = read_line_bounded(&mut r, 8).unwrap() {
            got.push(l);
        }
        assert_eq!(
            got,
            [
                (Line::Text(b"short".to_vec()), true),
                (Line::TooLong, true),
                (Line::Text(b"last".to_vec()), false),
            ]
        );
    }
}
