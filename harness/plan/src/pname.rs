//! The pnames `query` and `program_query` steps may read.
//!
//! Cases write them as GL enum names without the `GL_` prefix (the loader strips one). Which
//! GL enum and how many values each stands for is the GL runner's business
//! (`harness/glrunner/src/enums.rs`); what the reference answers is in its `exec::query`. Both
//! match these enums exhaustively, so a new pname is handled by each or does not compile.

use crate::named::named_enum;

named_enum! {
    /// A glGetIntegerv / glGetIntegeri_v pname of a `query` step: limits and bindings.
    pub enum QueryPname {
        MaxComputeWorkGroupCount = "MAX_COMPUTE_WORK_GROUP_COUNT",
        MaxComputeWorkGroupSize = "MAX_COMPUTE_WORK_GROUP_SIZE",
        MaxComputeWorkGroupInvocations = "MAX_COMPUTE_WORK_GROUP_INVOCATIONS",
        MaxComputeSharedMemorySize = "MAX_COMPUTE_SHARED_MEMORY_SIZE",
        MaxComputeUniformBlocks = "MAX_COMPUTE_UNIFORM_BLOCKS",
        MaxComputeTextureImageUnits = "MAX_COMPUTE_TEXTURE_IMAGE_UNITS",
        MaxComputeImageUniforms = "MAX_COMPUTE_IMAGE_UNIFORMS",
        MaxComputeUniformComponents = "MAX_COMPUTE_UNIFORM_COMPONENTS",
        MaxCombinedComputeUniformComponents = "MAX_COMBINED_COMPUTE_UNIFORM_COMPONENTS",
        MaxCombinedTextureImageUnits = "MAX_COMBINED_TEXTURE_IMAGE_UNITS",
        MaxComputeAtomicCounters = "MAX_COMPUTE_ATOMIC_COUNTERS",
        MaxComputeAtomicCounterBuffers = "MAX_COMPUTE_ATOMIC_COUNTER_BUFFERS",
        MaxComputeShaderStorageBlocks = "MAX_COMPUTE_SHADER_STORAGE_BLOCKS",
        MaxCombinedShaderStorageBlocks = "MAX_COMBINED_SHADER_STORAGE_BLOCKS",
        MaxShaderStorageBufferBindings = "MAX_SHADER_STORAGE_BUFFER_BINDINGS",
        MaxShaderStorageBlockSize = "MAX_SHADER_STORAGE_BLOCK_SIZE",
        ShaderStorageBufferOffsetAlignment = "SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT",
        MaxUniformBufferBindings = "MAX_UNIFORM_BUFFER_BINDINGS",
        MaxUniformBlockSize = "MAX_UNIFORM_BLOCK_SIZE",
        MaxAtomicCounterBufferBindings = "MAX_ATOMIC_COUNTER_BUFFER_BINDINGS",
        MaxAtomicCounterBufferSize = "MAX_ATOMIC_COUNTER_BUFFER_SIZE",
        MaxComputeVariableGroupSizeArb = "MAX_COMPUTE_VARIABLE_GROUP_SIZE_ARB",
        MaxComputeVariableGroupInvocationsArb = "MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB",
        MaxProgramParameterBufferBindingsNv = "MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV",
        MaxProgramParameterBufferSizeNv = "MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV",
        DispatchIndirectBufferBinding = "DISPATCH_INDIRECT_BUFFER_BINDING",
        ShaderStorageBufferBinding = "SHADER_STORAGE_BUFFER_BINDING",
        ShaderStorageBufferStart = "SHADER_STORAGE_BUFFER_START",
        ShaderStorageBufferSize = "SHADER_STORAGE_BUFFER_SIZE",
        AtomicCounterBufferBinding = "ATOMIC_COUNTER_BUFFER_BINDING",
        UniformBufferBinding = "UNIFORM_BUFFER_BINDING",
        CurrentProgram = "CURRENT_PROGRAM",
        ProgramPipelineBinding = "PROGRAM_PIPELINE_BINDING",
        MajorVersion = "MAJOR_VERSION",
        MinorVersion = "MINOR_VERSION",
        NumExtensions = "NUM_EXTENSIONS",
        ContextProfileMask = "CONTEXT_PROFILE_MASK",
        NumSpirVExtensions = "NUM_SPIR_V_EXTENSIONS",
        NumShaderBinaryFormats = "NUM_SHADER_BINARY_FORMATS",
        ComputeProgramNv = "COMPUTE_PROGRAM_NV",
        ComputeProgramParameterBufferNv = "COMPUTE_PROGRAM_PARAMETER_BUFFER_NV",
        ProgramErrorPositionArb = "PROGRAM_ERROR_POSITION_ARB",
        MaxCombinedUniformBlocks = "MAX_COMBINED_UNIFORM_BLOCKS",
        MaxCombinedAtomicCounters = "MAX_COMBINED_ATOMIC_COUNTERS",
        MaxCombinedAtomicCounterBuffers = "MAX_COMBINED_ATOMIC_COUNTER_BUFFERS",
    }
}

named_enum! {
    /// A pname of a `program_query` step on the case's program: glGetProgramiv pnames for GLSL
    /// and SPIR-V programs, then glGetProgramivARB pnames (`_ARB`, `_NV`) for NV assembly
    /// programs.
    pub enum ProgramPname {
        LinkStatus = "LINK_STATUS",
        DeleteStatus = "DELETE_STATUS",
        ValidateStatus = "VALIDATE_STATUS",
        InfoLogLength = "INFO_LOG_LENGTH",
        AttachedShaders = "ATTACHED_SHADERS",
        ActiveUniforms = "ACTIVE_UNIFORMS",
        ActiveUniformMaxLength = "ACTIVE_UNIFORM_MAX_LENGTH",
        ActiveUniformBlocks = "ACTIVE_UNIFORM_BLOCKS",
        ActiveAtomicCounterBuffers = "ACTIVE_ATOMIC_COUNTER_BUFFERS",
        ActiveAttributes = "ACTIVE_ATTRIBUTES",
        ComputeWorkGroupSize = "COMPUTE_WORK_GROUP_SIZE",
        ProgramBinaryLength = "PROGRAM_BINARY_LENGTH",
        ProgramSeparable = "PROGRAM_SEPARABLE",
        ProgramBinaryRetrievableHint = "PROGRAM_BINARY_RETRIEVABLE_HINT",
        // glGetProgramivARB(COMPUTE_PROGRAM_NV, pname), NV assembly programs.
        ProgramLengthArb = "PROGRAM_LENGTH_ARB",
        ProgramFormatArb = "PROGRAM_FORMAT_ARB",
        ProgramBindingArb = "PROGRAM_BINDING_ARB",
        ProgramInstructionsArb = "PROGRAM_INSTRUCTIONS_ARB",
        MaxProgramInstructionsArb = "MAX_PROGRAM_INSTRUCTIONS_ARB",
        ProgramNativeInstructionsArb = "PROGRAM_NATIVE_INSTRUCTIONS_ARB",
        MaxProgramNativeInstructionsArb = "MAX_PROGRAM_NATIVE_INSTRUCTIONS_ARB",
        ProgramTemporariesArb = "PROGRAM_TEMPORARIES_ARB",
        MaxProgramTemporariesArb = "MAX_PROGRAM_TEMPORARIES_ARB",
        ProgramParametersArb = "PROGRAM_PARAMETERS_ARB",
        MaxProgramParametersArb = "MAX_PROGRAM_PARAMETERS_ARB",
        MaxProgramLocalParametersArb = "MAX_PROGRAM_LOCAL_PARAMETERS_ARB",
        MaxProgramEnvParametersArb = "MAX_PROGRAM_ENV_PARAMETERS_ARB",
        ProgramUnderNativeLimitsArb = "PROGRAM_UNDER_NATIVE_LIMITS_ARB",
        ProgramAttribsArb = "PROGRAM_ATTRIBS_ARB",
        // NV_parameter_buffer_object's limits are read with GetProgramivARB on the target.
        MaxProgramParameterBufferBindingsNv = "MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV",
        MaxProgramParameterBufferSizeNv = "MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV",
        // NV_gpu_program4's nesting limits (Table X.21), GetProgramivARB on the target.
        MaxProgramCallDepthNv = "MAX_PROGRAM_CALL_DEPTH_NV",
        MaxProgramIfDepthNv = "MAX_PROGRAM_IF_DEPTH_NV",
        MaxProgramLoopDepthNv = "MAX_PROGRAM_LOOP_DEPTH_NV",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_gl_enum_names() {
        crate::named::assert_unique_names(QueryPname::names());
        crate::named::assert_unique_names(ProgramPname::names());
        for name in QueryPname::names().chain(ProgramPname::names()) {
            let gl_style = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_';
            assert!(
                !name.starts_with("GL_") && name.chars().all(gl_style),
                "{name}"
            );
        }
        assert_eq!(
            QueryPname::from_name("MAX_COMPUTE_WORK_GROUP_COUNT"),
            Some(QueryPname::MaxComputeWorkGroupCount)
        );
        assert_eq!(QueryPname::from_name("MAX_NONSENSE"), None);
    }
}
