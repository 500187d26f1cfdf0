//! What the command line prints on standard output, and how.
//!
//! `println!` panics when stdout is a closed pipe (`conform list | head -1`): Rust ignores
//! SIGPIPE, so the write fails with `EPIPE` and the macro turns that into a panic with a
//! backtrace and exit code 101. Everything the CLI prints goes through [`out!`](crate::out)
//! and [`outln!`](crate::outln) instead: the first write that finds the pipe closed marks
//! stdout [`closed`] and every later write is dropped, so a command ends quietly with the exit
//! code its work decides (a listing 0, a gated merge its verdict). Loops that only print
//! (`list`, `golden`) stop early once [`closed`] says nobody reads.
//!
//! Any other failed write (a full disk behind `conform junit > results.xml`, an I/O error)
//! is output lost, not a reader gone: it is kept ([`lost`]) and `main` exits non-zero naming
//! it, so a pipeline never takes a truncated JUnit file or bug report for the whole of it.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
static STDOUT_LOST: OnceLock<String> = OnceLock::new();

/// Writes `args` to stdout; a closed pipe marks stdout closed and is otherwise ignored, any
/// other write error marks it closed and [`lost`].
pub fn write_out(args: std::fmt::Arguments) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        note_failure(&e);
    }
}

fn note_failure(e: &std::io::Error) {
    STDOUT_CLOSED.store(true, Ordering::Relaxed);
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        let _ = STDOUT_LOST.set(e.to_string());
    }
}

/// Why output written to stdout was lost (a write failed for another reason than a closed
/// pipe), if it was: the command must not exit 0.
pub fn lost() -> Option<&'static str> {
    STDOUT_LOST.get().map(String::as_str)
}

/// Whether a write to stdout failed (its reader went away): printing more is pointless.
pub fn closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

/// `print!` that ends quietly on a closed pipe ([`write_out`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::console::write_out(format_args!($($arg)*))
    };
}

/// `println!` that ends quietly on a closed pipe ([`write_out`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::console::write_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::console::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `--color`: when the output is coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (no-color.org).
    #[default]
    Auto,
    Always,
    Never,
}

static COLOR: AtomicBool = AtomicBool::new(false);

/// Decides once, at start, whether output is coloured: `--color`, then `NO_COLOR` (any
/// non-empty value), then whether stdout is a terminal.
pub fn set_color(choice: ColorChoice) {
    use std::io::IsTerminal;
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    };
    COLOR.store(on, Ordering::Relaxed);
}

fn paint(text: &str, sgr: &str) -> String {
    if COLOR.load(Ordering::Relaxed) {
        format!("\x1b[{sgr}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// A failure's label (bold red when coloured).
pub fn paint_failure(text: &str) -> String {
    paint(text, "1;31")
}

/// A warning-like label: expected failures, flakes, skips (yellow when coloured).
pub fn paint_notice(text: &str) -> String {
    paint(text, "33")
}

/// A pass (green when coloured).
pub fn paint_pass(text: &str) -> String {
    paint(text, "32")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed pipe is a reader gone (quiet); a full disk is output lost (issue 45: `junit`,
    /// `compare` and `bugreport` exited 0 with their output unwritten).
    #[test]
    fn a_closed_pipe_is_quiet_and_a_full_disk_is_lost() {
        note_failure(&std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(closed());
        assert_eq!(lost(), None);
        note_failure(&std::io::Error::from_raw_os_error(libc::ENOSPC));
        assert!(
            lost().is_some_and(|m| m.contains("No space left")),
            "{:?}",
            lost()
        );
    }
}
