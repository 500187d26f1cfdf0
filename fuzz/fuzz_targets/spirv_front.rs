//! The SPIR-V front end on arbitrary modules (binary or assembly text), and the executor on
//! the ones that validate.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| conform_fuzzer::targets::spirv_front_end(data));
