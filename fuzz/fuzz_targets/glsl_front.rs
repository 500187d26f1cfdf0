//! The GLSL front end (and, for shaders that compile, the executor) on arbitrary text.
//! Panics inside glsl-lang, which the front end catches and reports as parse errors, are let
//! through to that handler; any other panic is a finding (docs/FUZZING.md).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: {
        conform_fuzzer::targets::tolerate_caught_panics_from(&["/glsl-lang"]);
    },
    |data: &[u8]| conform_fuzzer::targets::text_front_end(conform_plan::Language::Glsl, data)
);
