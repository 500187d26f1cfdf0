//! Differential target: generator bytes → a GLSL compute program, run on the reference and on
//! Mesa llvmpipe (a worker process of the `conform` binary named by CONFORM_EXE, default
//! `../target/release/conform`); a disagreement with the fuzzer's model panics with the case.
#![no_main]
use conform::fuzz::{targets, Target};
use libfuzzer_sys::fuzz_target;
use std::sync::{Mutex, OnceLock};

static TARGETS: OnceLock<Mutex<Vec<Target>>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let targets = TARGETS.get_or_init(|| {
        let exe = std::env::var_os("CONFORM_EXE")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| "../target/release/conform".into());
        Mutex::new(targets::differential_targets(
            &exe,
            conform_glrunner::Driver::Llvmpipe,
        ))
    });
    let mut targets = targets.lock().unwrap_or_else(|e| e.into_inner());
    targets::differential(data, &mut targets);
});
