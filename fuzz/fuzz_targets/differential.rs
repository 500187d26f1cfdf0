//! Differential target: generator bytes → a GLSL compute program, run on the reference and on
//! Mesa llvmpipe (a worker process of the `conform` binary: CONFORM_EXE, else `conform` beside
//! this executable, else `../target/release/conform`); a disagreement with the fuzzer's model
//! panics with the case. Known driver bugs are skipped: `known.txt` beside this executable
//! (`conform fuzz --known`'s format) and CONFORM_FUZZ_KNOWN (comma-separated regexes over
//! divergence keys).
#![no_main]
use conform_fuzzer::{targets, Target};
use libfuzzer_sys::fuzz_target;
use std::sync::{Mutex, OnceLock};

type State = (Vec<Target>, Vec<regex::Regex>);

static STATE: OnceLock<Mutex<State>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let state = STATE.get_or_init(|| {
        let exe = targets::conform_exe();
        Mutex::new((
            targets::differential_targets(&exe, conform_glrunner::Driver::Llvmpipe),
            targets::known_divergences(),
        ))
    });
    let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
    let (targets, known) = &mut *state;
    targets::differential(data, targets, known);
});
