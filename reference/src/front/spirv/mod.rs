//! The SPIR-V front end: SPIR-V assembly / binaries (ARB_gl_spirv, OpenGL 4.5 environment) →
//! the reference IR.
//!
//! Pipeline ([`build`]): assemble text with SPIRV-Tools when there are no words
//! ([`assemble_spirv`]); validate with spirv-val for OpenGL 4.5 (its message and result code go
//! into the log); parse with rspirv (only binaries SPIRV-Tools could parse) and check, in the
//! front end, the OpenGL environment rules spirv-val leaves out (DescriptorSet 0, storage
//! classes, scopes, recursion, LocalSize, no OpTypeSampler) and the
//! SPV_EXT_shader_atomic_float_add rules ([`rules`], so a rejected module names the clause it
//! breaks, e.g. `GLSPV-DESCRIPTOR-SET-ZERO: ...`); then lower the compute subset ([`lower`]).
//! Invalid modules fail at [`BuildStage::Validate`] with a log (glSpecializeShader failures
//! too: unknown entry point or SpecId); a work group size or shared memory over the limits
//! fails at [`BuildStage::Link`]; valid modules the reference cannot model are
//! [`BuildFailure::Unsupported`] (a skip), naming the opcode and line, unless no step of the
//! plan dispatches the program (a link-only plan): then the module's validation and link are
//! all that is judged, the executable is empty and a note says what was not lowered. Nothing
//! here panics on any input.
//!
//! # Supported subset (GLCompute entry points)
//! - Capabilities/extensions: whatever spirv-val accepts for OpenGL 4.5; the environment and
//!   SPVFADD rules are checked on top (see [`rules`]).
//! - Types: bool, 8/16/32/64-bit int and float scalars, vectors of 2-4, arrays (constant or
//!   spec-constant length), runtime arrays, structs, column-major matrices (MatrixStride),
//!   pointers. Storage images (OpTypeImage Sampled 2 of Dim 1D, 2D, 3D or arrayed 2D, in
//!   UniformConstant variables, the unit their Binding) with OpImageRead, OpImageWrite,
//!   OpImageQuerySize and OpImageTexelPointer + the atomics (`lower::image`). Other images,
//!   sampled images and samplers may be declared, but an instruction that uses one is refused.
//!   Default uniforms (non-opaque UniformConstant variables of bool, 32/64-bit scalars,
//!   vectors, matrices, and arrays and structures of them) live in `Space::DefaultUniform`, set
//!   by their Location (`lower::uniforms`); a scalar or vector constant initializer is the
//!   initial value (`ir::Program::uniform_init`), others are refused. No row-major matrices.
//! - Constants: OpConstant*, OpConstantComposite/Null, OpUndef, spec constants (OpSpecConstant
//!   / True / False / Composite with SpecId overrides from `ProgramSource::specialization`, and
//!   OpSpecConstantOp folded for the integer/logical/select/convert opcodes).
//! - Variables: Uniform + BufferBlock and StorageBuffer → `Space::Storage(binding)`, Uniform +
//!   Block → `Space::Uniform(binding)`, arrays of blocks → `Space::BlockArray` (element k at
//!   binding + k; a non-uniform run-time index is flagged by the executor), AtomicCounter (Binding and Offset; arrays of counters),
//!   UniformConstant (default uniforms), Workgroup (shared memory), Private and
//!   Function (private memory), Input built-ins GlobalInvocationId, LocalInvocationId,
//!   WorkgroupId, NumWorkgroups, LocalInvocationIndex, WorkgroupSize (also as a constant that
//!   sets the group size). Layout from Offset / ArrayStride; natural layout elsewhere.
//! - Instructions: loads, stores, OpCopyMemory, access chains (constant and dynamic indices),
//!   OpArrayLength (from the size of the buffer the plan binds), integer/float arithmetic (with
//!   OpIAddCarry, OpISubBorrow, OpUMulExtended, OpSMulExtended), bit operations, bitfields,
//!   comparisons (ordered and unordered),
//!   logical operations, conversions and bitcasts, select, composite construct / extract /
//!   insert, vector shuffle / dynamic extract / insert, dot, vector-times-scalar, any/all,
//!   matrix × scalar / vector / matrix, vector × matrix, transpose, outer product,
//!   GLSL.std.450 rounding (Round, RoundEven, Trunc, Floor, Ceil, Fract), abs, sign,
//!   min/max/clamp (F, U, S and N forms), mix, step, smoothstep, fma, pow, exp2/log2, sqrt,
//!   inversesqrt, sin/cos, radians/degrees, ldexp, findLSB/MSB, length, distance, cross,
//!   normalize, faceforward, reflect, refract, determinant, matrix inverse, modf, frexp, half,
//!   double and normalized packing; OpPhi; OpFunctionCall (each call site gets its
//!   own copy of the callee); structured control flow (OpSelectionMerge with
//!   OpBranchConditional / OpSwitch, OpLoopMerge with continue constructs, breaks, continues,
//!   OpReturn / OpReturnValue / OpKill / OpUnreachable); OpControlBarrier (Workgroup execution
//!   scope) and OpMemoryBarrier; OpAtomicLoad / Store / Exchange / CompareExchange /
//!   IIncrement / IDecrement / IAdd / ISub / SMin / UMin / SMax / UMax / And / Or / Xor and
//!   OpAtomicFAddEXT (f32 and f64, and f16 when SPV_EXT_shader_atomic_float16_add is declared;
//!   any storage the module can point into). Scopes and memory semantics are checked by
//!   spirv-val and otherwise do not change the result (the executor is sequentially
//!   consistent).
//! - Subgroups (KHR_shader_subgroup: a module declaring a GroupNonUniform* capability is a SPIR-V
//!   1.3 module, validated for universal SPIR-V 1.3 plus the GL rules): the built-ins
//!   SubgroupSize, SubgroupLocalInvocationId, NumSubgroups, SubgroupId and Subgroup??Mask
//!   (uvec4), OpControlBarrier with Subgroup execution scope, and OpGroupNonUniformElect, All,
//!   Any, AllEqual, Broadcast, BroadcastFirst, Ballot, InverseBallot, BallotBitExtract,
//!   BallotBitCount, BallotFindLSB/MSB, Shuffle, ShuffleXor, ShuffleUp, ShuffleDown and the
//!   arithmetic ones (IAdd ... LogicalXor) with Reduce, InclusiveScan and ExclusiveScan
//!   (`lower::subgroup`). Refused by name: ClusteredReduce and the quad instructions (no
//!   clustered or quad operations in the IR).
//!
//! Anything else is refused with the opcode and its position ("OpX is not supported by the
//! reference's SPIR-V front end (line N)"); `crate::check` reports it as "not modeled by the
//! reference: ...".

pub mod lower;
pub mod module;
pub mod rules;
/// SPIRV-Tools (assembler, spirv-val), in a crate of its own that the case loader uses too.
pub use conform_spirv as tools;

#[cfg(test)]
mod tests;

use super::{BuildFailure, Built};
use crate::ir::Program;
use crate::Diagnostic;
use conform_plan::{BufferKind, BuildStage, ExecPlan, Language, ProgramSource, Step};
use lower::{LowerError, PlanFacts};

/// Assembles SPIR-V assembly text into words for the OpenGL 4.5 environment (SPIR-V 1.0
/// header), so `spirv-asm` cases become binaries before any backend sees them.
pub fn assemble_spirv(text: &str) -> Result<Vec<u32>, Vec<Diagnostic>> {
    tools::assemble(text)
}

/// The words of a program: its `words`, or its assembled `text`.
fn words_of(src: &ProgramSource) -> Result<Vec<u32>, Vec<Diagnostic>> {
    if !src.words.is_empty() {
        return Ok(src.words.clone());
    }
    if src.text.trim().is_empty() {
        return Err(vec![Diagnostic {
            line: 1,
            column: 1,
            message: "SPIR-V program has neither words nor assembly text".into(),
        }]);
    }
    assemble_spirv(&src.text)
}

/// Parses a binary with rspirv. rspirv can panic on some malformed binaries, so this is only
/// called on binaries SPIRV-Tools could parse, and under `catch_unwind` as a second guard.
fn parse(words: &[u32]) -> Result<rspirv::dr::Module, Diagnostic> {
    // Every instruction's word count must be at least 1 and stay inside the module.
    let mut at = 5usize;
    while at < words.len() {
        let wc = (words[at] >> 16) as usize;
        if wc == 0 || at + wc > words.len() {
            return Err(Diagnostic {
                line: 1,
                column: 1,
                message: format!(
                    "not a valid SPIR-V binary: the instruction at word {at} has word count {wc}"
                ),
            });
        }
        at += wc;
    }
    let r = std::panic::catch_unwind(|| rspirv::dr::load_words(words));
    let msg = match r {
        Ok(Ok(m)) => return Ok(m),
        Ok(Err(e)) => format!("not a valid SPIR-V binary: {e}"),
        Err(_) => "not a valid SPIR-V binary (the parser gave up)".to_string(),
    };
    Err(Diagnostic {
        line: 1,
        column: 1,
        message: msg,
    })
}

/// Validates one module: the front end's SPVFADD rules and spirv-val. All problems found.
pub fn validate(words: &[u32], text: Option<&str>) -> Result<(), Vec<Diagnostic>> {
    let val = tools::validate(words);
    let structural = matches!(
        &val,
        Err(e) if matches!(
            e.code.as_str(),
            "SPV_ERROR_INVALID_BINARY" | "SPV_ERROR_INVALID_POINTER" | "SPV_END_OF_STREAM"
        )
    );
    let mut diags = Vec::new();
    if !structural {
        match parse(words) {
            Ok(module) => diags = rules::check(&module::Info::new(&module, text)),
            Err(d) => diags.push(d),
        }
    }
    if let Err(e) = val {
        let mut message = format!("spirv-val ({}): {}", e.code, e.message.trim_end());
        let notes = e.notes.trim();
        if !notes.is_empty() {
            message.push_str(&format!("\n  {notes}"));
        }
        diags.push(Diagnostic {
            line: diags.first().map(|d| d.line).unwrap_or(1),
            column: 1,
            message,
        });
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// Why a SPIR-V module did not build, before it becomes a [`BuildFailure`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum ModuleError {
    /// Assembly or validation failed (spirv-val or a SPVFADD rule): `BuildStage::Validate`.
    Invalid(Vec<Diagnostic>),
    /// What the lowering reported.
    Lower(lower::LowerError),
}

/// Assembles (when needed), validates and lowers one SPIR-V module for a plan of which
/// `facts` tell what the lowering needs. With the program, why its code was not lowered (a
/// link-only plan whose code the reference does not model).
fn build_module(
    src: &ProgramSource,
    facts: PlanFacts,
) -> Result<(Program, Option<Diagnostic>), ModuleError> {
    let words = words_of(src).map_err(ModuleError::Invalid)?;
    // Positions map to text lines whenever the text is there (the harness fills `words` from
    // it and keeps it); for a bare binary they are instruction ordinals.
    let text = if src.text.trim().is_empty() {
        None
    } else {
        Some(src.text.as_str())
    };
    validate(&words, text).map_err(ModuleError::Invalid)?;
    let module = parse(&words).map_err(|d| ModuleError::Invalid(vec![d]))?;
    let mut info = module::Info::new(&module, text);
    let mut lowerer = lower::Lowerer::new(&mut info, &src.specialization, facts);
    let program = lowerer.lower(&src.entry).map_err(ModuleError::Lower)?;
    Ok((program, lowerer.unexecuted))
}

/// Builds the one SPIR-V compute module of a plan: an invalid module fails at
/// [`BuildStage::Validate`] (glSpecializeShader failures too), a GL limit at
/// [`BuildStage::Link`]; a valid module outside the reference's subset is
/// [`BuildFailure::Unsupported`] naming the opcode and its line. `plan` gives the sizes of the
/// bound storage buffers (OpArrayLength); without it OpArrayLength is refused.
pub fn build(programs: &[ProgramSource], plan: Option<&ExecPlan>) -> Result<Built, BuildFailure> {
    let src = super::single_compute(
        programs,
        "the reference runs plans with exactly one SPIR-V compute module",
    )?;
    let failed = |stage, diagnostics: Vec<Diagnostic>| BuildFailure::Failed {
        stage,
        log: log_of(src, &diagnostics),
        diagnostics,
    };
    let facts = PlanFacts {
        storage_sizes: plan.map(|p| {
            p.buffers
                .iter()
                .filter(|b| b.kind == BufferKind::Storage)
                .map(|b| (b.binding, b.bytes.len() as u64))
                .collect()
        }),
        link_only: plan.is_some_and(|p| {
            !p.steps
                .iter()
                .any(|s| matches!(s, Step::Dispatch { .. } | Step::DispatchIndirect { .. }))
        }),
    };
    match build_module(src, facts) {
        Ok((program, unexecuted)) => Ok(Built {
            program,
            log: String::new(),
            undefined: Vec::new(),
            notes: unexecuted
                .map(|d| {
                    format!(
                        "no step dispatches the program, so only its validation and link were checked; its code was not lowered: {}",
                        log_of(src, &[d]).trim_end()
                    )
                })
                .into_iter()
                .collect(),
        }),
        Err(ModuleError::Invalid(d)) => Err(failed(BuildStage::Validate, d)),
        Err(ModuleError::Lower(LowerError::Rejected(stage, d))) => Err(failed(stage, vec![d])),
        Err(ModuleError::Lower(LowerError::Unsupported(d))) => Err(BuildFailure::Unsupported {
            reason: log_of(src, std::slice::from_ref(&d)).trim_end().to_string(),
            at: d,
        }),
        Err(ModuleError::Lower(LowerError::Internal(m))) => Err(BuildFailure::Internal(m)),
    }
}

/// Whether this front end handles a program.
pub fn handles(src: &ProgramSource) -> bool {
    matches!(src.language, Language::Spirv | Language::SpirvAsm)
}

/// Formats diagnostics as a build log (one per line, `origin:line:column: error: message`).
pub fn log_of(src: &ProgramSource, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let line = if !src.text.trim().is_empty() && d.line > 0 {
            d.line + src.first_line.saturating_sub(1)
        } else {
            d.line
        };
        out.push_str(&format!(
            "{}:{}:{}: error: {}\n",
            src.origin, line, d.column, d.message
        ));
    }
    out
}
