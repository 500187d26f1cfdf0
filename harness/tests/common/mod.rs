//! What the CLI tests share: running the built `conform` binary and reading what it printed.

use std::process::{Command, Output};

/// Runs `conform ARGS` and waits for it.
pub fn conform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_conform"))
        .args(args)
        .output()
        .expect("conform runs")
}

/// What the command printed, stdout then stderr.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
