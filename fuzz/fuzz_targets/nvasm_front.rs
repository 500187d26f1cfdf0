//! The NV assembly front end (and, for programs that load, the executor) on arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| conform_fuzzer::targets::text_front_end(
    conform_plan::Language::Nvasm,
    data
));
