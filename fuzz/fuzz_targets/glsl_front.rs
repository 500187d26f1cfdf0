//! The GLSL front end (and, for shaders that compile, the executor) on arbitrary text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| conform::fuzz::targets::text_front_end(
    conform_plan::Language::Glsl,
    data
));
