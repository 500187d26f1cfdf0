//! The YAML case loader on arbitrary input: every input is a case or diagnostics, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| conform_fuzzer::targets::case_loader(data));
