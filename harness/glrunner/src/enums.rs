//! The GL enums behind the pnames of `query` and `program_query` steps.
//!
//! The pnames themselves are conform-plan's [`QueryPname`] and [`ProgramPname`]; these
//! exhaustive matches give each its GL enum and how many values the query returns.

use conform_gl as gl;
use conform_plan::{ProgramPname, QueryPname};

/// The enum and value count for a `query` pname (glGetInteger64v / glGetInteger64i_v).
pub(crate) fn query_pname(pname: QueryPname) -> (u32, usize) {
    use QueryPname as Q;
    match pname {
        Q::MaxComputeWorkGroupCount => (gl::MAX_COMPUTE_WORK_GROUP_COUNT, 3),
        Q::MaxComputeWorkGroupSize => (gl::MAX_COMPUTE_WORK_GROUP_SIZE, 3),
        Q::MaxComputeWorkGroupInvocations => (gl::MAX_COMPUTE_WORK_GROUP_INVOCATIONS, 1),
        Q::MaxComputeSharedMemorySize => (gl::MAX_COMPUTE_SHARED_MEMORY_SIZE, 1),
        Q::MaxComputeUniformBlocks => (gl::MAX_COMPUTE_UNIFORM_BLOCKS, 1),
        Q::MaxComputeTextureImageUnits => (gl::MAX_COMPUTE_TEXTURE_IMAGE_UNITS, 1),
        Q::MaxComputeImageUniforms => (gl::MAX_COMPUTE_IMAGE_UNIFORMS, 1),
        Q::MaxComputeUniformComponents => (gl::MAX_COMPUTE_UNIFORM_COMPONENTS, 1),
        Q::MaxCombinedComputeUniformComponents => (gl::MAX_COMBINED_COMPUTE_UNIFORM_COMPONENTS, 1),
        Q::MaxCombinedTextureImageUnits => (gl::MAX_COMBINED_TEXTURE_IMAGE_UNITS, 1),
        Q::MaxComputeAtomicCounters => (gl::MAX_COMPUTE_ATOMIC_COUNTERS, 1),
        Q::MaxComputeAtomicCounterBuffers => (gl::MAX_COMPUTE_ATOMIC_COUNTER_BUFFERS, 1),
        Q::MaxComputeShaderStorageBlocks => (gl::MAX_COMPUTE_SHADER_STORAGE_BLOCKS, 1),
        Q::MaxCombinedShaderStorageBlocks => (gl::MAX_COMBINED_SHADER_STORAGE_BLOCKS, 1),
        Q::MaxShaderStorageBufferBindings => (gl::MAX_SHADER_STORAGE_BUFFER_BINDINGS, 1),
        Q::MaxShaderStorageBlockSize => (gl::MAX_SHADER_STORAGE_BLOCK_SIZE, 1),
        Q::ShaderStorageBufferOffsetAlignment => (gl::SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, 1),
        Q::MaxUniformBufferBindings => (gl::MAX_UNIFORM_BUFFER_BINDINGS, 1),
        Q::MaxUniformBlockSize => (gl::MAX_UNIFORM_BLOCK_SIZE, 1),
        Q::MaxAtomicCounterBufferBindings => (gl::MAX_ATOMIC_COUNTER_BUFFER_BINDINGS, 1),
        Q::MaxAtomicCounterBufferSize => (gl::MAX_ATOMIC_COUNTER_BUFFER_SIZE, 1),
        Q::MaxComputeVariableGroupSizeArb => (gl::MAX_COMPUTE_VARIABLE_GROUP_SIZE_ARB, 3),
        Q::MaxComputeVariableGroupInvocationsArb => {
            (gl::MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB, 1)
        }
        Q::MaxProgramParameterBufferBindingsNv => (gl::MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV, 1),
        Q::MaxProgramParameterBufferSizeNv => (gl::MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV, 1),
        Q::DispatchIndirectBufferBinding => (gl::DISPATCH_INDIRECT_BUFFER_BINDING, 1),
        Q::ShaderStorageBufferBinding => (gl::SHADER_STORAGE_BUFFER_BINDING, 1),
        Q::ShaderStorageBufferStart => (gl::SHADER_STORAGE_BUFFER_START, 1),
        Q::ShaderStorageBufferSize => (gl::SHADER_STORAGE_BUFFER_SIZE, 1),
        Q::AtomicCounterBufferBinding => (gl::ATOMIC_COUNTER_BUFFER_BINDING, 1),
        Q::UniformBufferBinding => (gl::UNIFORM_BUFFER_BINDING, 1),
        Q::CurrentProgram => (gl::CURRENT_PROGRAM, 1),
        Q::ProgramPipelineBinding => (gl::PROGRAM_PIPELINE_BINDING, 1),
        Q::MajorVersion => (gl::MAJOR_VERSION, 1),
        Q::MinorVersion => (gl::MINOR_VERSION, 1),
        Q::NumExtensions => (gl::NUM_EXTENSIONS, 1),
        Q::ContextProfileMask => (gl::CONTEXT_PROFILE_MASK, 1),
        Q::NumSpirVExtensions => (gl::NUM_SPIR_V_EXTENSIONS, 1),
        Q::NumShaderBinaryFormats => (gl::NUM_SHADER_BINARY_FORMATS, 1),
        Q::ComputeProgramNv => (gl::COMPUTE_PROGRAM_NV, 1),
        Q::ComputeProgramParameterBufferNv => (gl::COMPUTE_PROGRAM_PARAMETER_BUFFER_NV, 1),
        Q::ProgramErrorPositionArb => (gl::PROGRAM_ERROR_POSITION_ARB, 1),
        Q::MaxCombinedUniformBlocks => (gl::MAX_COMBINED_UNIFORM_BLOCKS, 1),
        Q::MaxCombinedAtomicCounters => (gl::MAX_COMBINED_ATOMIC_COUNTERS, 1),
        Q::MaxCombinedAtomicCounterBuffers => (gl::MAX_COMBINED_ATOMIC_COUNTER_BUFFERS, 1),
    }
}

/// How a `program_query` pname is read, with its enum and value count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProgramRead {
    /// glGetProgramiv on a GLSL or SPIR-V program object.
    Object(u32, usize),
    /// glGetProgramivARB(COMPUTE_PROGRAM_NV, pname), for NV assembly programs.
    Assembly(u32, usize),
}

/// How the GL runner reads a `program_query` pname.
pub(crate) fn program_pname(pname: ProgramPname) -> ProgramRead {
    use ProgramPname as P;
    use ProgramRead::{Assembly, Object};
    match pname {
        P::LinkStatus => Object(gl::LINK_STATUS, 1),
        P::DeleteStatus => Object(gl::DELETE_STATUS, 1),
        P::ValidateStatus => Object(gl::VALIDATE_STATUS, 1),
        P::InfoLogLength => Object(gl::INFO_LOG_LENGTH, 1),
        P::AttachedShaders => Object(gl::ATTACHED_SHADERS, 1),
        P::ActiveUniforms => Object(gl::ACTIVE_UNIFORMS, 1),
        P::ActiveUniformMaxLength => Object(gl::ACTIVE_UNIFORM_MAX_LENGTH, 1),
        P::ActiveUniformBlocks => Object(gl::ACTIVE_UNIFORM_BLOCKS, 1),
        P::ActiveAtomicCounterBuffers => Object(gl::ACTIVE_ATOMIC_COUNTER_BUFFERS, 1),
        P::ActiveAttributes => Object(gl::ACTIVE_ATTRIBUTES, 1),
        P::ComputeWorkGroupSize => Object(gl::COMPUTE_WORK_GROUP_SIZE, 3),
        P::ProgramBinaryLength => Object(gl::PROGRAM_BINARY_LENGTH, 1),
        P::ProgramSeparable => Object(gl::PROGRAM_SEPARABLE, 1),
        P::ProgramBinaryRetrievableHint => Object(gl::PROGRAM_BINARY_RETRIEVABLE_HINT, 1),
        P::ProgramLengthArb => Assembly(gl::PROGRAM_LENGTH_ARB, 1),
        P::ProgramFormatArb => Assembly(gl::PROGRAM_FORMAT_ARB, 1),
        P::ProgramBindingArb => Assembly(gl::PROGRAM_BINDING_ARB, 1),
        P::ProgramInstructionsArb => Assembly(gl::PROGRAM_INSTRUCTIONS_ARB, 1),
        P::MaxProgramInstructionsArb => Assembly(gl::MAX_PROGRAM_INSTRUCTIONS_ARB, 1),
        P::ProgramNativeInstructionsArb => Assembly(gl::PROGRAM_NATIVE_INSTRUCTIONS_ARB, 1),
        P::MaxProgramNativeInstructionsArb => Assembly(gl::MAX_PROGRAM_NATIVE_INSTRUCTIONS_ARB, 1),
        P::ProgramTemporariesArb => Assembly(gl::PROGRAM_TEMPORARIES_ARB, 1),
        P::MaxProgramTemporariesArb => Assembly(gl::MAX_PROGRAM_TEMPORARIES_ARB, 1),
        P::ProgramParametersArb => Assembly(gl::PROGRAM_PARAMETERS_ARB, 1),
        P::MaxProgramParametersArb => Assembly(gl::MAX_PROGRAM_PARAMETERS_ARB, 1),
        P::MaxProgramLocalParametersArb => Assembly(gl::MAX_PROGRAM_LOCAL_PARAMETERS_ARB, 1),
        P::MaxProgramEnvParametersArb => Assembly(gl::MAX_PROGRAM_ENV_PARAMETERS_ARB, 1),
        P::ProgramUnderNativeLimitsArb => Assembly(gl::PROGRAM_UNDER_NATIVE_LIMITS_ARB, 1),
        P::ProgramAttribsArb => Assembly(gl::PROGRAM_ATTRIBS_ARB, 1),
        P::MaxProgramParameterBufferBindingsNv => {
            Assembly(gl::MAX_PROGRAM_PARAMETER_BUFFER_BINDINGS_NV, 1)
        }
        P::MaxProgramParameterBufferSizeNv => Assembly(gl::MAX_PROGRAM_PARAMETER_BUFFER_SIZE_NV, 1),
        P::MaxProgramCallDepthNv => Assembly(gl::MAX_PROGRAM_CALL_DEPTH_NV, 1),
        P::MaxProgramIfDepthNv => Assembly(gl::MAX_PROGRAM_IF_DEPTH_NV, 1),
        P::MaxProgramLoopDepthNv => Assembly(gl::MAX_PROGRAM_LOOP_DEPTH_NV, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        assert_eq!(
            query_pname(QueryPname::MaxComputeWorkGroupCount),
            (0x91BE, 3)
        );
        assert_eq!(
            program_pname(ProgramPname::ComputeWorkGroupSize),
            ProgramRead::Object(0x8267, 3)
        );
        assert!(matches!(
            program_pname(ProgramPname::ProgramInstructionsArb),
            ProgramRead::Assembly(_, 1)
        ));
    }
}
