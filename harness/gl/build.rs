//! Generates the GL bindings into `$OUT_DIR/gl_bindings.rs`.
//!
//! GL 4.6 core plus the assembly-program and SPIR-V extensions conform exercises. The struct
//! generator is used so that function pointers belong to one context (`Gl::load_with`).

use gl_generator::{Api, Fallbacks, Profile, Registry, StructGenerator};
use std::env;
use std::fs::File;
use std::path::Path;

fn main() {
    let dest = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let mut file = File::create(Path::new(&dest).join("gl_bindings.rs")).expect("create bindings");
    Registry::new(
        Api::Gl,
        (4, 6),
        Profile::Compatibility,
        Fallbacks::All,
        [
            "GL_ARB_vertex_program",
            "GL_ARB_fragment_program",
            "GL_ARB_compute_shader",
            "GL_ARB_gl_spirv",
            "GL_NV_gpu_program4",
            // Only for the nesting limits NV_gpu_program4 reads (MAX_PROGRAM_*_DEPTH_NV): the
            // registry lists their enums under this extension.
            "GL_NV_fragment_program2",
            "GL_NV_gpu_program5",
            "GL_NV_compute_program5",
            "GL_NV_parameter_buffer_object",
            "GL_NV_shader_buffer_load",
            "GL_NV_shader_storage_buffer_object",
            "GL_NV_shader_atomic_float",
            "GL_ARB_compute_variable_group_size",
            "GL_ARB_gpu_shader_int64",
        ],
    )
    .write_bindings(StructGenerator, &mut file)
    .expect("write bindings");
    println!("cargo:rerun-if-changed=build.rs");
}
