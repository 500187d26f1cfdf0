//! The actions of `api` steps: GL API sequences that API clauses need and that the other step
//! kinds cannot express.
//!
//! A case writes `api: {call: NAME, args: [integers]}`; [`ApiAction::parse`] turns that into
//! an [`ApiAction`] whose variant carries typed arguments, or says precisely what is wrong (an
//! unknown name, the wrong number of arguments, an argument out of range). [`ApiCall`] names
//! the actions without their arguments (for hints and for the table in docs/DRIVERS.md). What
//! each action does on a driver is the GL runner's (`harness/glrunner/src/api.rs`, an
//! exhaustive match); the reference does not model them and reports the steps as not
//! applicable.

use crate::named::named_enum;
use serde::{Deserialize, Serialize};
use std::fmt;

named_enum! {
    /// The name of an [`ApiAction`], as `call:` spells it.
    pub enum ApiCall {
        UseNoProgram = "use_no_program",
        UseProgram = "use_program",
        Dispatch = "dispatch",
        DispatchAboveMaxCount = "dispatch_above_max_count",
        DispatchIndirectRaw = "dispatch_indirect_raw",
        BindIndirect = "bind_indirect",
        BindIndirectNone = "bind_indirect_none",
        DispatchGroupSize = "dispatch_group_size",
        MemoryBarrierRaw = "memory_barrier_raw",
        QueryWorkGroupSizeUnlinked = "query_work_group_size_unlinked",
        QueryWorkGroupSizeLinkFailed = "query_work_group_size_link_failed",
        UseTrivialGlslCompute = "use_trivial_glsl_compute",
        MakeSeparable = "make_separable",
        BindPipelineCompute = "bind_pipeline_compute",
        BeginConditionalRenderFalse = "begin_conditional_render_false",
        EndConditionalRender = "end_conditional_render",
        UniformBlockReferencedByCompute = "uniform_block_referenced_by_compute",
        AtomicCounterBufferReferencedByCompute = "atomic_counter_buffer_referenced_by_compute",
        ResourceReferencedByCompute = "resource_referenced_by_compute",
        ValidateProgram = "validate_program",
        EnableComputeProgramNv = "enable_compute_program_nv",
        DisableComputeProgramNv = "disable_compute_program_nv",
        IsEnabledComputeProgramNv = "is_enabled_compute_program_nv",
        BindProgramNv = "bind_program_nv",
        ProgramLocalI4 = "program_local_i4",
        ProgramEnvI4 = "program_env_i4",
        ProgramBufferParametersIuivNv = "program_buffer_parameters_iuiv_nv",
        BindParameterBufferAboveMaxNv = "bind_parameter_buffer_above_max_nv",
        Finish = "finish",
        /// Test trigger: the worker process aborts, as a crashing driver would.
        ConformTestAbort = "conform_test_abort",
        /// Test trigger: the worker process sleeps forever, as a hanging driver would.
        ConformTestHang = "conform_test_hang",
    }
}

named_enum! {
    /// A dimension of a dispatch: argument 0, 1 or 2.
    pub enum Axis {
        X = "x",
        Y = "y",
        Z = "z",
    }
}

named_enum! {
    /// The mode of glBeginConditionalRender: argument 0..=3.
    pub enum ConditionalRenderMode {
        Wait = "QUERY_WAIT",
        NoWait = "QUERY_NO_WAIT",
        ByRegionWait = "QUERY_BY_REGION_WAIT",
        ByRegionNoWait = "QUERY_BY_REGION_NO_WAIT",
    }
}

named_enum! {
    /// A program interface of glGetProgramResourceiv: argument 0..=4.
    pub enum ProgramInterface {
        Uniform = "UNIFORM",
        UniformBlock = "UNIFORM_BLOCK",
        BufferVariable = "BUFFER_VARIABLE",
        ShaderStorageBlock = "SHADER_STORAGE_BLOCK",
        AtomicCounterBuffer = "ATOMIC_COUNTER_BUFFER",
    }
}

/// One `api` step: the action and its arguments. docs/DRIVERS.md describes each (generated
/// from the GL runner's table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiAction {
    UseNoProgram,
    UseProgram,
    /// glDispatchCompute with the raw counts.
    Dispatch {
        groups: [u32; 3],
    },
    DispatchAboveMaxCount {
        dim: Axis,
    },
    DispatchIndirectRaw {
        offset: i64,
    },
    /// Binds `buffers[buffer]` of the plan to DISPATCH_INDIRECT_BUFFER.
    BindIndirect {
        buffer: usize,
    },
    BindIndirectNone,
    DispatchGroupSize {
        groups: [u32; 3],
        size: [u32; 3],
    },
    MemoryBarrierRaw {
        bits: u32,
    },
    QueryWorkGroupSizeUnlinked,
    QueryWorkGroupSizeLinkFailed,
    UseTrivialGlslCompute,
    MakeSeparable,
    BindPipelineCompute,
    /// `mode` None when the case gave no argument (QUERY_WAIT).
    BeginConditionalRenderFalse {
        mode: Option<ConditionalRenderMode>,
    },
    EndConditionalRender,
    /// `index`: the program's active uniform block index.
    UniformBlockReferencedByCompute {
        index: u32,
    },
    /// `index`: the program's active atomic counter buffer index.
    AtomicCounterBufferReferencedByCompute {
        index: u32,
    },
    ResourceReferencedByCompute {
        interface: ProgramInterface,
        index: u32,
    },
    ValidateProgram,
    EnableComputeProgramNv,
    DisableComputeProgramNv,
    IsEnabledComputeProgramNv,
    /// Binds the case's NV program (argument 1) or program 0 (argument 0).
    BindProgramNv {
        case_program: bool,
    },
    /// `values` are 32-bit words: written as signed or unsigned integers.
    ProgramLocalI4 {
        index: u32,
        values: [i32; 4],
    },
    ProgramEnvI4 {
        index: u32,
        values: [i32; 4],
    },
    ProgramBufferParametersIuivNv {
        binding: u32,
        word: u32,
        values: Vec<u32>,
    },
    /// Binds `buffers[buffer]` of the plan above the last parameter buffer binding.
    BindParameterBufferAboveMaxNv {
        buffer: usize,
    },
    Finish,
    ConformTestAbort,
    ConformTestHang,
}

/// Why an `api` step's call and arguments make no [`ApiAction`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiArgsError {
    /// No action has this name.
    UnknownCall(String),
    /// The action takes another number of arguments.
    Count { call: ApiCall, got: usize },
    /// Argument `index` is outside what the action accepts there (`expected`, in words).
    Value {
        call: ApiCall,
        index: usize,
        value: i64,
        expected: String,
    },
}

impl fmt::Display for ApiArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiArgsError::UnknownCall(name) => write!(f, "unknown api action `{name}`"),
            ApiArgsError::Count { call, got } => {
                let (min, max) = call.arity();
                let takes = match max {
                    Some(max) if max == min => format!("{min}"),
                    Some(max) => format!("{min} to {max}"),
                    None => format!("at least {min}"),
                };
                write!(
                    f,
                    "api action `{call}` takes {takes} argument(s) ({}), not {got}",
                    call.args_doc()
                )
            }
            ApiArgsError::Value {
                call,
                index,
                value,
                expected,
            } => write!(
                f,
                "argument {index} of api action `{call}` is {value}, not {expected}"
            ),
        }
    }
}

impl std::error::Error for ApiArgsError {}

impl ApiCall {
    /// The `args` it takes, in words (the `args` column of docs/DRIVERS.md).
    pub fn args_doc(self) -> &'static str {
        self.shape().2
    }

    /// How many arguments it takes: at least the first, at most the second (None: no limit).
    pub fn arity(self) -> (usize, Option<usize>) {
        let (min, max, _) = self.shape();
        (min, max)
    }

    /// The arguments it takes: the fewest, the most (None: no limit), and in words.
    fn shape(self) -> (usize, Option<usize>, &'static str) {
        use ApiCall as C;
        let exactly = |n, doc| (n, Some(n), doc);
        match self {
            C::Dispatch => exactly(3, "[x, y, z], each 0..=2^32-1"),
            C::DispatchAboveMaxCount => exactly(1, "[dim] (0, 1 or 2)"),
            C::DispatchIndirectRaw => exactly(1, "[offset]"),
            C::BindIndirect => exactly(1, "[buffer index]"),
            C::DispatchGroupSize => exactly(6, "[x, y, z, size_x, size_y, size_z]"),
            C::MemoryBarrierRaw => exactly(1, "[bits]"),
            C::BeginConditionalRenderFalse => (
                0,
                Some(1),
                "[mode] optional: 0 QUERY_WAIT (default), 1 QUERY_NO_WAIT, 2 QUERY_BY_REGION_WAIT, \
                 3 QUERY_BY_REGION_NO_WAIT",
            ),
            C::UniformBlockReferencedByCompute => exactly(1, "[block index]"),
            C::AtomicCounterBufferReferencedByCompute => exactly(1, "[buffer index]"),
            C::ResourceReferencedByCompute => exactly(
                2,
                "[interface, index]: interface 0 UNIFORM, 1 UNIFORM_BLOCK, 2 BUFFER_VARIABLE, \
                 3 SHADER_STORAGE_BLOCK, 4 ATOMIC_COUNTER_BUFFER",
            ),
            C::BindProgramNv => exactly(1, "[0 or 1]"),
            C::ProgramLocalI4 | C::ProgramEnvI4 => exactly(5, "[index, x, y, z, w]"),
            C::ProgramBufferParametersIuivNv => (2, None, "[binding, word index, v0, v1, ...]"),
            C::BindParameterBufferAboveMaxNv => exactly(1, "[buffer]"),
            C::UseNoProgram
            | C::UseProgram
            | C::BindIndirectNone
            | C::QueryWorkGroupSizeUnlinked
            | C::QueryWorkGroupSizeLinkFailed
            | C::UseTrivialGlslCompute
            | C::MakeSeparable
            | C::BindPipelineCompute
            | C::EndConditionalRender
            | C::ValidateProgram
            | C::EnableComputeProgramNv
            | C::DisableComputeProgramNv
            | C::IsEnabledComputeProgramNv
            | C::Finish
            | C::ConformTestAbort
            | C::ConformTestHang => exactly(0, "none"),
        }
    }
}

/// The arguments of one call, read with range checks.
struct Args<'a> {
    call: ApiCall,
    args: &'a [i64],
}

impl Args<'_> {
    fn bad(&self, index: usize, expected: impl Into<String>) -> ApiArgsError {
        ApiArgsError::Value {
            call: self.call,
            index,
            value: self.args[index],
            expected: expected.into(),
        }
    }

    fn u32(&self, i: usize) -> Result<u32, ApiArgsError> {
        u32::try_from(self.args[i]).map_err(|_| self.bad(i, "a 32-bit unsigned value"))
    }

    /// Three unsigned values from argument `i` on.
    fn u32x3(&self, i: usize) -> Result<[u32; 3], ApiArgsError> {
        Ok([self.u32(i)?, self.u32(i + 1)?, self.u32(i + 2)?])
    }

    /// A 32-bit word written as a signed or an unsigned value.
    fn word(&self, i: usize) -> Result<i32, ApiArgsError> {
        let v = self.args[i];
        i32::try_from(v)
            .or_else(|_| u32::try_from(v).map(|u| u as i32))
            .map_err(|_| self.bad(i, "a 32-bit value"))
    }

    /// The choice numbered by argument `i` (0 for the first of `all`).
    fn choice<T: Copy>(&self, i: usize, all: &[T]) -> Result<T, ApiArgsError> {
        usize::try_from(self.args[i])
            .ok()
            .and_then(|k| all.get(k).copied())
            .ok_or_else(|| self.bad(i, format!("in 0..={}", all.len() - 1)))
    }
}

/// The argument code of a choice: its position in `all`.
fn code<T: PartialEq>(all: &[T], v: &T) -> i64 {
    all.iter().position(|x| x == v).unwrap_or(0) as i64
}

impl ApiAction {
    /// The action `name` with `args`, checked: the count and the range of each argument.
    pub fn parse(name: &str, args: &[i64]) -> Result<ApiAction, ApiArgsError> {
        let call =
            ApiCall::from_name(name).ok_or_else(|| ApiArgsError::UnknownCall(name.to_string()))?;
        let (min, max) = call.arity();
        if args.len() < min || max.is_some_and(|max| args.len() > max) {
            return Err(ApiArgsError::Count {
                call,
                got: args.len(),
            });
        }
        let a = Args { call, args };
        use ApiAction as A;
        use ApiCall as C;
        Ok(match call {
            C::UseNoProgram => A::UseNoProgram,
            C::UseProgram => A::UseProgram,
            C::Dispatch => A::Dispatch {
                groups: a.u32x3(0)?,
            },
            C::DispatchAboveMaxCount => A::DispatchAboveMaxCount {
                dim: a.choice(0, Axis::ALL)?,
            },
            C::DispatchIndirectRaw => A::DispatchIndirectRaw { offset: args[0] },
            C::BindIndirect => A::BindIndirect {
                buffer: a.u32(0)? as usize,
            },
            C::BindIndirectNone => A::BindIndirectNone,
            C::DispatchGroupSize => A::DispatchGroupSize {
                groups: a.u32x3(0)?,
                size: a.u32x3(3)?,
            },
            C::MemoryBarrierRaw => A::MemoryBarrierRaw { bits: a.u32(0)? },
            C::QueryWorkGroupSizeUnlinked => A::QueryWorkGroupSizeUnlinked,
            C::QueryWorkGroupSizeLinkFailed => A::QueryWorkGroupSizeLinkFailed,
            C::UseTrivialGlslCompute => A::UseTrivialGlslCompute,
            C::MakeSeparable => A::MakeSeparable,
            C::BindPipelineCompute => A::BindPipelineCompute,
            C::BeginConditionalRenderFalse => A::BeginConditionalRenderFalse {
                mode: match args {
                    [] => None,
                    _ => Some(a.choice(0, ConditionalRenderMode::ALL)?),
                },
            },
            C::EndConditionalRender => A::EndConditionalRender,
            C::UniformBlockReferencedByCompute => {
                A::UniformBlockReferencedByCompute { index: a.u32(0)? }
            }
            C::AtomicCounterBufferReferencedByCompute => {
                A::AtomicCounterBufferReferencedByCompute { index: a.u32(0)? }
            }
            C::ResourceReferencedByCompute => A::ResourceReferencedByCompute {
                interface: a.choice(0, ProgramInterface::ALL)?,
                index: a.u32(1)?,
            },
            C::ValidateProgram => A::ValidateProgram,
            C::EnableComputeProgramNv => A::EnableComputeProgramNv,
            C::DisableComputeProgramNv => A::DisableComputeProgramNv,
            C::IsEnabledComputeProgramNv => A::IsEnabledComputeProgramNv,
            C::BindProgramNv => A::BindProgramNv {
                case_program: a.choice(0, &[false, true])?,
            },
            C::ProgramLocalI4 => A::ProgramLocalI4 {
                index: a.u32(0)?,
                values: [a.word(1)?, a.word(2)?, a.word(3)?, a.word(4)?],
            },
            C::ProgramEnvI4 => A::ProgramEnvI4 {
                index: a.u32(0)?,
                values: [a.word(1)?, a.word(2)?, a.word(3)?, a.word(4)?],
            },
            C::ProgramBufferParametersIuivNv => A::ProgramBufferParametersIuivNv {
                binding: a.u32(0)?,
                word: a.u32(1)?,
                values: (2..args.len())
                    .map(|i| a.u32(i))
                    .collect::<Result<_, _>>()?,
            },
            C::BindParameterBufferAboveMaxNv => A::BindParameterBufferAboveMaxNv {
                buffer: a.u32(0)? as usize,
            },
            C::Finish => A::Finish,
            C::ConformTestAbort => A::ConformTestAbort,
            C::ConformTestHang => A::ConformTestHang,
        })
    }

    /// Its name.
    pub fn call(&self) -> ApiCall {
        use ApiAction as A;
        use ApiCall as C;
        match self {
            A::UseNoProgram => C::UseNoProgram,
            A::UseProgram => C::UseProgram,
            A::Dispatch { .. } => C::Dispatch,
            A::DispatchAboveMaxCount { .. } => C::DispatchAboveMaxCount,
            A::DispatchIndirectRaw { .. } => C::DispatchIndirectRaw,
            A::BindIndirect { .. } => C::BindIndirect,
            A::BindIndirectNone => C::BindIndirectNone,
            A::DispatchGroupSize { .. } => C::DispatchGroupSize,
            A::MemoryBarrierRaw { .. } => C::MemoryBarrierRaw,
            A::QueryWorkGroupSizeUnlinked => C::QueryWorkGroupSizeUnlinked,
            A::QueryWorkGroupSizeLinkFailed => C::QueryWorkGroupSizeLinkFailed,
            A::UseTrivialGlslCompute => C::UseTrivialGlslCompute,
            A::MakeSeparable => C::MakeSeparable,
            A::BindPipelineCompute => C::BindPipelineCompute,
            A::BeginConditionalRenderFalse { .. } => C::BeginConditionalRenderFalse,
            A::EndConditionalRender => C::EndConditionalRender,
            A::UniformBlockReferencedByCompute { .. } => C::UniformBlockReferencedByCompute,
            A::AtomicCounterBufferReferencedByCompute { .. } => {
                C::AtomicCounterBufferReferencedByCompute
            }
            A::ResourceReferencedByCompute { .. } => C::ResourceReferencedByCompute,
            A::ValidateProgram => C::ValidateProgram,
            A::EnableComputeProgramNv => C::EnableComputeProgramNv,
            A::DisableComputeProgramNv => C::DisableComputeProgramNv,
            A::IsEnabledComputeProgramNv => C::IsEnabledComputeProgramNv,
            A::BindProgramNv { .. } => C::BindProgramNv,
            A::ProgramLocalI4 { .. } => C::ProgramLocalI4,
            A::ProgramEnvI4 { .. } => C::ProgramEnvI4,
            A::ProgramBufferParametersIuivNv { .. } => C::ProgramBufferParametersIuivNv,
            A::BindParameterBufferAboveMaxNv { .. } => C::BindParameterBufferAboveMaxNv,
            A::Finish => C::Finish,
            A::ConformTestAbort => C::ConformTestAbort,
            A::ConformTestHang => C::ConformTestHang,
        }
    }

    /// Its arguments as a case writes them ([`ApiAction::parse`] of `call()` and `args()` gives
    /// the action back).
    pub fn args(&self) -> Vec<i64> {
        use ApiAction as A;
        let words = |v: &[i32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        let counts = |v: &[u32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        match self {
            A::Dispatch { groups } => counts(groups),
            A::DispatchAboveMaxCount { dim } => vec![code(Axis::ALL, dim)],
            A::DispatchIndirectRaw { offset } => vec![*offset],
            A::BindIndirect { buffer } | A::BindParameterBufferAboveMaxNv { buffer } => {
                vec![*buffer as i64]
            }
            A::DispatchGroupSize { groups, size } => counts(&[*groups, *size].concat()),
            A::MemoryBarrierRaw { bits } => vec![i64::from(*bits)],
            A::BeginConditionalRenderFalse { mode } => mode
                .iter()
                .map(|m| code(ConditionalRenderMode::ALL, m))
                .collect(),
            A::UniformBlockReferencedByCompute { index }
            | A::AtomicCounterBufferReferencedByCompute { index } => vec![i64::from(*index)],
            A::ResourceReferencedByCompute { interface, index } => {
                vec![code(ProgramInterface::ALL, interface), i64::from(*index)]
            }
            A::BindProgramNv { case_program } => vec![i64::from(*case_program)],
            A::ProgramLocalI4 { index, values } | A::ProgramEnvI4 { index, values } => {
                [vec![i64::from(*index)], words(values)].concat()
            }
            A::ProgramBufferParametersIuivNv {
                binding,
                word,
                values,
            } => [counts(&[*binding, *word]), counts(values)].concat(),
            A::UseNoProgram
            | A::UseProgram
            | A::BindIndirectNone
            | A::QueryWorkGroupSizeUnlinked
            | A::QueryWorkGroupSizeLinkFailed
            | A::UseTrivialGlslCompute
            | A::MakeSeparable
            | A::BindPipelineCompute
            | A::EndConditionalRender
            | A::ValidateProgram
            | A::EnableComputeProgramNv
            | A::DisableComputeProgramNv
            | A::IsEnabledComputeProgramNv
            | A::Finish
            | A::ConformTestAbort
            | A::ConformTestHang => vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_snake_case() {
        crate::named::assert_unique_names(ApiCall::names());
        for name in ApiCall::names() {
            let snake = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
            assert!(name.chars().all(snake), "{name}");
        }
    }

    /// Arguments each call accepts, at its arity.
    fn sample_args(call: ApiCall) -> Vec<i64> {
        let (min, max) = call.arity();
        let n = max.unwrap_or(min + 2);
        (0..n as i64).map(|i| i % 2).collect()
    }

    #[test]
    fn every_call_parses_and_gives_its_arguments_back() {
        for &call in ApiCall::ALL {
            let args = sample_args(call);
            let action = ApiAction::parse(call.name(), &args)
                .unwrap_or_else(|e| panic!("{call} {args:?}: {e}"));
            assert_eq!(action.call(), call);
            assert_eq!(action.args(), args, "{call}");
            let json = serde_json::to_string(&action).unwrap();
            assert_eq!(serde_json::from_str::<ApiAction>(&json).unwrap(), action);
        }
        let off = ApiAction::parse("begin_conditional_render_false", &[]).unwrap();
        assert_eq!(off, ApiAction::BeginConditionalRenderFalse { mode: None });
        assert_eq!(off.args(), Vec::<i64>::new());
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let err = |name: &str, args: &[i64]| ApiAction::parse(name, args).unwrap_err().to_string();
        assert_eq!(err("frobnicate", &[]), "unknown api action `frobnicate`");
        assert_eq!(
            err("dispatch", &[1, 1]),
            "api action `dispatch` takes 3 argument(s) ([x, y, z], each 0..=2^32-1), not 2"
        );
        assert_eq!(
            err("finish", &[1]),
            "api action `finish` takes 0 argument(s) (none), not 1"
        );
        assert_eq!(
            err("program_buffer_parameters_iuiv_nv", &[1]),
            "api action `program_buffer_parameters_iuiv_nv` takes at least 2 argument(s) \
             ([binding, word index, v0, v1, ...]), not 1"
        );
        assert_eq!(
            err("dispatch", &[1, -1, 1]),
            "argument 1 of api action `dispatch` is -1, not a 32-bit unsigned value"
        );
        assert_eq!(
            err("dispatch_above_max_count", &[3]),
            "argument 0 of api action `dispatch_above_max_count` is 3, not in 0..=2"
        );
        assert_eq!(
            err("program_env_i4", &[0, 1, 2, 3, 1 << 32]),
            "argument 4 of api action `program_env_i4` is 4294967296, not a 32-bit value"
        );
        assert!(matches!(
            ApiAction::parse("program_env_i4", &[0, 0xFFFF_FFFF, 0, 0, -1]),
            Ok(ApiAction::ProgramEnvI4 {
                values: [-1, 0, 0, -1],
                ..
            })
        ));
    }
}
