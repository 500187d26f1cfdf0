//! Names of the GL enums that `query` and `program_query` steps may use.
//!
//! Names are written without the `GL_` prefix (a leading `GL_` is accepted and ignored). A
//! pname not in the tables may also be given as a number (`0x91BE`), with one value returned.

use conform_gl as gl;

/// (name, enum, number of values glGetInteger64v returns for it).
pub(crate) const QUERY_PNAMES: &[(&str, u32, usize)] = &[
    (
        "MAX_COMPUTE_WORK_GROUP_COUNT",
        gl::MAX_COMPUTE_WORK_GROUP_COUNT,
        3,
    ),
    (
        "MAX_COMPUTE_WORK_GROUP_SIZE",
        gl::MAX_COMPUTE_WORK_GROUP_SIZE,
        3,
    ),
    (
        "MAX_COMPUTE_WORK_GROUP_INVOCATIONS",
        gl::MAX_COMPUTE_WORK_GROUP_INVOCATIONS,
        1,
    ),
    (
        "MAX_COMPUTE_SHARED_MEMORY_SIZE",
        gl::MAX_COMPUTE_SHARED_MEMORY_SIZE,
        1,
    ),
    (
        "MAX_COMPUTE_UNIFORM_BLOCKS",
        gl::MAX_COMPUTE_UNIFORM_BLOCKS,
        1,
    ),
    (
        "MAX_COMPUTE_TEXTURE_IMAGE_UNITS",
        gl::MAX_COMPUTE_TEXTURE_IMAGE_UNITS,
        1,
    ),
    (
        "MAX_COMPUTE_IMAGE_UNIFORMS",
        gl::MAX_COMPUTE_IMAGE_UNIFORMS,
        1,
    ),
    (
        "MAX_COMPUTE_UNIFORM_COMPONENTS",
        gl::MAX_COMPUTE_UNIFORM_COMPONENTS,
        1,
    ),
    (
        "MAX_COMBINED_COMPUTE_UNIFORM_COMPONENTS",
        gl::MAX_COMBINED_COMPUTE_UNIFORM_COMPONENTS,
        1,
    ),
    (
        "MAX_COMBINED_TEXTURE_IMAGE_UNITS",
        gl::MAX_COMBINED_TEXTURE_IMAGE_UNITS,
        1,
    ),
    (
        "MAX_COMPUTE_ATOMIC_COUNTERS",
        gl::MAX_COMPUTE_ATOMIC_COUNTERS,
        1,
    ),
    (
        "MAX_COMPUTE_ATOMIC_COUNTER_BUFFERS",
        gl::MAX_COMPUTE_ATOMIC_COUNTER_BUFFERS,
        1,
    ),
    (
        "MAX_COMPUTE_SHADER_STORAGE_BLOCKS",
        gl::MAX_COMPUTE_SHADER_STORAGE_BLOCKS,
        1,
    ),
    (
        "MAX_COMBINED_SHADER_STORAGE_BLOCKS",
        gl::MAX_COMBINED_SHADER_STORAGE_BLOCKS,
        1,
    ),
    (
        "MAX_SHADER_STORAGE_BUFFER_BINDINGS",
        gl::MAX_SHADER_STORAGE_BUFFER_BINDINGS,
        1,
    ),
    (
        "MAX_SHADER_STORAGE_BLOCK_SIZE",
        gl::MAX_SHADER_STORAGE_BLOCK_SIZE,
        1,
    ),
    (
        "SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT",
        gl::SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT,
        1,
    ),
    (
        "MAX_UNIFORM_BUFFER_BINDINGS",
        gl::MAX_UNIFORM_BUFFER_BINDINGS,
        1,
    ),
    ("MAX_UNIFORM_BLOCK_SIZE", gl::MAX_UNIFORM_BLOCK_SIZE, 1),
    (
        "MAX_ATOMIC_COUNTER_BUFFER_BINDINGS",
        gl::MAX_ATOMIC_COUNTER_BUFFER_BINDINGS,
        1,
    ),
    (
        "MAX_ATOMIC_COUNTER_BUFFER_SIZE",
        gl::MAX_ATOMIC_COUNTER_BUFFER_SIZE,
        1,
    ),
    (
        "MAX_COMPUTE_VARIABLE_GROUP_SIZE_ARB",
        gl::MAX_COMPUTE_VARIABLE_GROUP_SIZE_ARB,
        3,
    ),
    (
        "MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB",
        gl::MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB,
        1,
    ),
    (
        "MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV",
        gl::MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV,
        1,
    ),
    (
        "MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV",
        gl::MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV,
        1,
    ),
    (
        "DISPATCH_INDIRECT_BUFFER_BINDING",
        gl::DISPATCH_INDIRECT_BUFFER_BINDING,
        1,
    ),
    (
        "SHADER_STORAGE_BUFFER_BINDING",
        gl::SHADER_STORAGE_BUFFER_BINDING,
        1,
    ),
    (
        "SHADER_STORAGE_BUFFER_START",
        gl::SHADER_STORAGE_BUFFER_START,
        1,
    ),
    (
        "SHADER_STORAGE_BUFFER_SIZE",
        gl::SHADER_STORAGE_BUFFER_SIZE,
        1,
    ),
    (
        "ATOMIC_COUNTER_BUFFER_BINDING",
        gl::ATOMIC_COUNTER_BUFFER_BINDING,
        1,
    ),
    ("UNIFORM_BUFFER_BINDING", gl::UNIFORM_BUFFER_BINDING, 1),
    ("CURRENT_PROGRAM", gl::CURRENT_PROGRAM, 1),
    ("PROGRAM_PIPELINE_BINDING", gl::PROGRAM_PIPELINE_BINDING, 1),
    ("MAJOR_VERSION", gl::MAJOR_VERSION, 1),
    ("MINOR_VERSION", gl::MINOR_VERSION, 1),
    ("NUM_EXTENSIONS", gl::NUM_EXTENSIONS, 1),
    ("CONTEXT_PROFILE_MASK", gl::CONTEXT_PROFILE_MASK, 1),
    ("NUM_SPIR_V_EXTENSIONS", gl::NUM_SPIR_V_EXTENSIONS, 1),
    (
        "NUM_SHADER_BINARY_FORMATS",
        gl::NUM_SHADER_BINARY_FORMATS,
        1,
    ),
    ("COMPUTE_PROGRAM_NV", gl::COMPUTE_PROGRAM_NV, 1),
    (
        "COMPUTE_PROGRAM_PARAMETER_BUFFER_NV",
        gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV,
        1,
    ),
    (
        "PROGRAM_ERROR_POSITION_ARB",
        gl::PROGRAM_ERROR_POSITION_ARB,
        1,
    ),
    (
        "MAX_COMBINED_UNIFORM_BLOCKS",
        gl::MAX_COMBINED_UNIFORM_BLOCKS,
        1,
    ),
    (
        "MAX_COMBINED_ATOMIC_COUNTERS",
        gl::MAX_COMBINED_ATOMIC_COUNTERS,
        1,
    ),
    (
        "MAX_COMBINED_ATOMIC_COUNTER_BUFFERS",
        gl::MAX_COMBINED_ATOMIC_COUNTER_BUFFERS,
        1,
    ),
];

/// glGetProgramiv pnames (GLSL and SPIR-V programs): (name, enum, number of values).
pub(crate) const PROGRAM_PNAMES: &[(&str, u32, usize)] = &[
    ("LINK_STATUS", gl::LINK_STATUS, 1),
    ("DELETE_STATUS", gl::DELETE_STATUS, 1),
    ("VALIDATE_STATUS", gl::VALIDATE_STATUS, 1),
    ("INFO_LOG_LENGTH", gl::INFO_LOG_LENGTH, 1),
    ("ATTACHED_SHADERS", gl::ATTACHED_SHADERS, 1),
    ("ACTIVE_UNIFORMS", gl::ACTIVE_UNIFORMS, 1),
    (
        "ACTIVE_UNIFORM_MAX_LENGTH",
        gl::ACTIVE_UNIFORM_MAX_LENGTH,
        1,
    ),
    ("ACTIVE_UNIFORM_BLOCKS", gl::ACTIVE_UNIFORM_BLOCKS, 1),
    (
        "ACTIVE_ATOMIC_COUNTER_BUFFERS",
        gl::ACTIVE_ATOMIC_COUNTER_BUFFERS,
        1,
    ),
    ("ACTIVE_ATTRIBUTES", gl::ACTIVE_ATTRIBUTES, 1),
    ("COMPUTE_WORK_GROUP_SIZE", gl::COMPUTE_WORK_GROUP_SIZE, 3),
    ("PROGRAM_BINARY_LENGTH", gl::PROGRAM_BINARY_LENGTH, 1),
    ("PROGRAM_SEPARABLE", gl::PROGRAM_SEPARABLE, 1),
    (
        "PROGRAM_BINARY_RETRIEVABLE_HINT",
        gl::PROGRAM_BINARY_RETRIEVABLE_HINT,
        1,
    ),
];

/// glGetProgramivARB(COMPUTE_PROGRAM_NV, pname) pnames (NV assembly programs).
pub(crate) const ASM_PROGRAM_PNAMES: &[(&str, u32, usize)] = &[
    ("PROGRAM_LENGTH_ARB", gl::PROGRAM_LENGTH_ARB, 1),
    ("PROGRAM_FORMAT_ARB", gl::PROGRAM_FORMAT_ARB, 1),
    ("PROGRAM_BINDING_ARB", gl::PROGRAM_BINDING_ARB, 1),
    ("PROGRAM_INSTRUCTIONS_ARB", gl::PROGRAM_INSTRUCTIONS_ARB, 1),
    (
        "MAX_PROGRAM_INSTRUCTIONS_ARB",
        gl::MAX_PROGRAM_INSTRUCTIONS_ARB,
        1,
    ),
    (
        "PROGRAM_NATIVE_INSTRUCTIONS_ARB",
        gl::PROGRAM_NATIVE_INSTRUCTIONS_ARB,
        1,
    ),
    (
        "MAX_PROGRAM_NATIVE_INSTRUCTIONS_ARB",
        gl::MAX_PROGRAM_NATIVE_INSTRUCTIONS_ARB,
        1,
    ),
    ("PROGRAM_TEMPORARIES_ARB", gl::PROGRAM_TEMPORARIES_ARB, 1),
    (
        "MAX_PROGRAM_TEMPORARIES_ARB",
        gl::MAX_PROGRAM_TEMPORARIES_ARB,
        1,
    ),
    ("PROGRAM_PARAMETERS_ARB", gl::PROGRAM_PARAMETERS_ARB, 1),
    (
        "MAX_PROGRAM_PARAMETERS_ARB",
        gl::MAX_PROGRAM_PARAMETERS_ARB,
        1,
    ),
    (
        "MAX_PROGRAM_LOCAL_PARAMETERS_ARB",
        gl::MAX_PROGRAM_LOCAL_PARAMETERS_ARB,
        1,
    ),
    (
        "MAX_PROGRAM_ENV_PARAMETERS_ARB",
        gl::MAX_PROGRAM_ENV_PARAMETERS_ARB,
        1,
    ),
    (
        "PROGRAM_UNDER_NATIVE_LIMITS_ARB",
        gl::PROGRAM_UNDER_NATIVE_LIMITS_ARB,
        1,
    ),
    ("PROGRAM_ATTRIBS_ARB", gl::PROGRAM_ATTRIBS_ARB, 1),
    // NV_parameter_buffer_object's limits are read with GetProgramivARB on the target.
    (
        "MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV",
        gl::MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV,
        1,
    ),
    (
        "MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV",
        gl::MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV,
        1,
    ),
];

fn strip(name: &str) -> &str {
    name.strip_prefix("GL_").unwrap_or(name)
}

fn numeric(name: &str) -> Option<(u32, usize)> {
    let hex = name
        .strip_prefix("0x")
        .or_else(|| name.strip_prefix("0X"))?;
    u32::from_str_radix(hex, 16).ok().map(|v| (v, 1))
}

fn lookup(table: &[(&str, u32, usize)], name: &str) -> Option<(u32, usize)> {
    let name = strip(name);
    table
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, e, c)| (e, c))
        .or_else(|| numeric(name))
}

/// The enum and value count for a `query` pname.
pub(crate) fn query_pname(name: &str) -> Option<(u32, usize)> {
    lookup(QUERY_PNAMES, name)
}

/// The enum and value count for a `program_query` pname on a GLSL/SPIR-V program.
pub(crate) fn program_pname(name: &str) -> Option<(u32, usize)> {
    lookup(PROGRAM_PNAMES, name)
}

/// The enum and value count for a `program_query` pname on an NV assembly program.
pub(crate) fn asm_program_pname(name: &str) -> Option<(u32, usize)> {
    lookup(ASM_PROGRAM_PNAMES, name)
}

/// Names `query` steps accept (besides numeric `0x...` enums), for case validation.
pub fn known_pnames() -> Vec<&'static str> {
    QUERY_PNAMES.iter().map(|(n, _, _)| *n).collect()
}

/// Names `program_query` steps accept: glGetProgramiv pnames for GLSL/SPIR-V programs and
/// glGetProgramivARB pnames for NV assembly programs.
pub fn known_program_pnames() -> Vec<&'static str> {
    PROGRAM_PNAMES
        .iter()
        .chain(ASM_PROGRAM_PNAMES)
        .map(|(n, _, _)| *n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        assert_eq!(
            query_pname("GL_MAX_COMPUTE_WORK_GROUP_COUNT"),
            Some((0x91BE, 3))
        );
        assert_eq!(query_pname("0x91BE"), Some((0x91BE, 1)));
        assert_eq!(query_pname("MAX_NONSENSE"), None);
        assert_eq!(program_pname("COMPUTE_WORK_GROUP_SIZE"), Some((0x8267, 3)));
        assert!(known_program_pnames().contains(&"PROGRAM_INSTRUCTIONS_ARB"));
    }

    #[test]
    fn names_are_unique() {
        for table in [QUERY_PNAMES, PROGRAM_PNAMES, ASM_PROGRAM_PNAMES] {
            let mut names: Vec<_> = table.iter().map(|t| t.0).collect();
            names.sort_unstable();
            let n = names.len();
            names.dedup();
            assert_eq!(n, names.len());
        }
    }
}
