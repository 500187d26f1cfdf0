//! The reference interpreter: the oracle every driver is judged against.
//!
//! Entry point: [`run`] takes a lowered case ([`conform_plan::ExecPlan`]) and returns the
//! memory and step results it must produce ([`conform_plan::Outcome`]). [`check`] parses and
//! checks one program without running it; [`trace`] explains what one invocation did.
//!
//! Layout: [`front`] holds the front ends (NV assembly, GLSL, SPIR-V), each behind one
//! contract ([`front::build`]: a built program or a typed [`front::BuildFailure`]); [`ir`] is
//! the executable form they all lower into; [`exec`] runs IR programs over dispatches. This
//! file alone turns builds into outcomes: `run`, `check` and `trace` live here, and nothing in
//! `front` runs a program.

pub mod exec;
pub mod front;
pub mod ir;

use conform_plan::{
    BuildOutcome, BuildStage, ExecPlan, FlagKind, Outcome, ProgramSource, Refusal, Timings,
};
use exec::interp::Schedule;
use exec::shuffle::Reading;
use exec::RunCfg;
pub use front::spirv::assemble_spirv;
use front::BuildFailure;
use std::time::Instant;

/// Bugs the fuzzer's self-test can plant in the reference to check that it notices them.
/// Only builds with the `planted-bugs` feature (the test suite's) can ask for one
/// ([`Options::planted_bug`]); release builds always run the reference as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlantedBug {
    /// IWRAP wraps one step late: stores 0 only when old > op.
    IwrapOffByOne,
    /// The assembly shuffle range test is off by one beyond the strict reading (in range when
    /// `source < maxThreadId - 1`; SHFUP `source > maxThreadId + 1`), under both readings, so
    /// the output matches neither allowed reading at `source == maxThreadId - 1`.
    ShuffleClampOffByOne,
    /// Signed integer division rounds towards negative infinity instead of truncating
    /// towards zero (`-7 / 2` gives -4, not -3).
    SignedDivisionRoundsDown,
    /// A barrier reached by only part of the group (every waiting invocation at the same
    /// barrier) is no longer flagged as `divergent-barrier`.
    PartialBarrierUnflagged,
    /// A float atomic add adds only the operand's integer part (`+= 1.25` adds 1).
    FloatAtomicAddDropsFraction,
    /// Rounding a float down (`floor`, `FLR`, GLSL.std.450 `Floor`, `CVT.FLR`) truncates
    /// towards zero instead: `floor(-2.5)` gives -2, not -3.
    FloorTruncates,
    /// A loop's `continue` (`Inst::Continue`: NV assembly's CONT) leaves the loop, as a
    /// break does.
    ContinueBreaks,
    /// A return from a call skips the caller's next instruction (unless that one ends the
    /// program, as after NV assembly's main).
    ReturnSkipsOne,
    /// The local invocation ID's z component reads 0 (`gl_LocalInvocationID.z`,
    /// `invocation.localid.z`, `LocalInvocationId`): wrong only in groups deeper than 1.
    LocalIdZeroZ,
    /// In a partial warp (a group whose size is not a multiple of 32), an NV shuffle's
    /// read of an active lane returns the reader's own value.
    PartialWarpShuffleOwn,
    /// A signed 8- or 16-bit load (NV assembly's `LDS.S8`, `LDB.S16`, ...) zero-extends
    /// instead of sign-extending.
    NarrowLoadZeroExtends,
    /// A 64-bit integer shift takes its count modulo 32 instead of 64 (`x << 40` shifts by
    /// 8): wrong only for 64-bit operands and counts of 32 to 63.
    WideShiftCountMod32,
    /// A move (`Inst::Mov`: GLSL swizzles, NV `MOV`, SPIR-V's per-lane shuffle moves) that
    /// reads component w into lane y or z reads component z there instead (`.xwwy` reads as
    /// `.xzzy`), unless the swizzle is a broadcast (`.wwww`): wrong only for swizzles that
    /// move w sideways.
    SwizzleWReadsZ,
    /// An atomic OR on a word whose previous atomic operation was an AND acts as XOR (flips
    /// the operand's bits). One-operation atomic blocks never reach it: only different
    /// atomics on one word (the fuzzer's atomic-mix blocks) put an OR after an AND.
    OrAfterAndActsAsXor,
    /// Packing to normalized fixed point (`packUnorm2x16`, `packSnorm4x8`, ...) skips the
    /// clamp to [0, 1] or [-1, 1] at run time (1.5 packs to 16 bits as round(1.5 * 65535)
    /// truncated). Constant operands are folded by the front ends with the executor's own
    /// arithmetic, without the bug: only a pack of a run-time value reaches it. The
    /// generative grammar has no pack function; `conform fuzz --mode transform` reaches it
    /// by making a corpus case's constants opaque.
    PackNormUnclamped,
    /// An unsigned 32-bit `<=` or `>=` compares the signed readings (`0x80000000 <= 1`
    /// holds): reached by GLSL's `<=`/`>=` on `uint`, NV `SLE.U`/`SGE.U` and SPIR-V
    /// `OpULessThanEqual`/`OpUGreaterThanEqual`, which only the generator's
    /// integer-families statement writes.
    UnsignedLeSigned,
    /// A logical not of a boolean (`UnOp::Not` on booleans: SPIR-V `OpLogicalNot`, GLSL `!`
    /// and the short-circuit of `||`) complements every bit, so that true and false both
    /// come out non-zero (true).
    LogicalNotBitwise,
    /// `findMSB` of a negative signed integer (`BTFM.S`, `FindSMsb`) gives the unsigned
    /// answer, 31, instead of the highest bit that differs from the sign.
    FindMsbSignedAsUnsigned,
    /// An NV integer subtract's carry flag (`SUB.U.CC`) is set on a borrow instead of when the
    /// difference is not negative (NV_gpu_program4 section 2.X.4.3 has it the other way
    /// round from x86).
    SubtractCarryIsBorrow,
    /// NV assembly's `SAD.S` orders its operands as unsigned (`|-1 - 1|` gives 2^32 - 2, not
    /// 2). Planted in the NV front end's lowering (`front/nvasm/lower/alu.rs`), not in the
    /// executor: SAD lowers to the max, min, subtract and add every other block reaches.
    SadSignedReadsUnsigned,
    /// GLSL's `clamp` of ints orders them as uints (`clamp(-1, 0, 5)` gives 5). Planted in
    /// the GLSL front end (`front/glsl/lower/builtin/common.rs`): clamp lowers to the max and
    /// min every other block reaches.
    ClampSignedAsUnsigned,
    /// A subgroup shuffle or broadcast (`subgroupShuffle`, `subgroupShuffleXor`, `...Up`,
    /// `...Down`, `subgroupBroadcast`, `readInvocationARB`) reads from its source id with bit
    /// 4 (16) cleared: wrong only in subgroups of more than 16 invocations (the reference's
    /// default size is 32), for sources 16 to 31, 48 to 63, ...; `subgroupBroadcastFirst`
    /// and every other operation are unaffected.
    SubgroupShuffleSourceDropsBit4,
    /// Subgroup scans (inclusive and exclusive) start from 0 instead of the operation's
    /// identity (1 for mul, all ones for and, the largest value for min, the smallest for a
    /// signed or float max): wrong only for those operations.
    SubgroupScanIdentityZero,
    /// UnpackSnorm2x16 and UnpackSnorm4x8 of a run-time word (`GLSL.std.450` in SPIR-V, whose
    /// front end extracts the fields with one signed bitfield extract of several lanes from
    /// one lane of the word) zero-extend the fields: -32768 unpacks to 1, not -1. A constant
    /// word (a preloaded register, which compilers fold) unpacks right. Planted on the built
    /// program (`exec::planted::program`). Outside the generative grammar (no unpack);
    /// `conform fuzz --mode transform` reaches it by making arb_gl_spirv's constant operands
    /// opaque.
    UnpackSnormRuntimeUnsigned,
}

impl PlantedBug {
    /// Every planted bug with its name on the command line (`conform fuzz --plant-bug NAME`).
    pub const NAMES: [(PlantedBug, &'static str); 24] = [
        (PlantedBug::IwrapOffByOne, "iwrap"),
        (PlantedBug::ShuffleClampOffByOne, "shuffle-clamp"),
        (PlantedBug::SignedDivisionRoundsDown, "signed-division"),
        (PlantedBug::PartialBarrierUnflagged, "partial-barrier"),
        (PlantedBug::FloatAtomicAddDropsFraction, "float-atomic"),
        (PlantedBug::FloorTruncates, "floor"),
        (PlantedBug::ContinueBreaks, "continue"),
        (PlantedBug::ReturnSkipsOne, "return"),
        (PlantedBug::LocalIdZeroZ, "local-id-z"),
        (PlantedBug::PartialWarpShuffleOwn, "partial-warp"),
        (PlantedBug::NarrowLoadZeroExtends, "narrow-load"),
        (PlantedBug::WideShiftCountMod32, "wide-shift"),
        (PlantedBug::SwizzleWReadsZ, "swizzle-w"),
        (PlantedBug::OrAfterAndActsAsXor, "or-after-and"),
        (PlantedBug::PackNormUnclamped, "pack-norm"),
        (PlantedBug::UnsignedLeSigned, "unsigned-le"),
        (PlantedBug::LogicalNotBitwise, "logical-not"),
        (PlantedBug::FindMsbSignedAsUnsigned, "find-msb-signed"),
        (PlantedBug::SubtractCarryIsBorrow, "sub-carry"),
        (PlantedBug::SadSignedReadsUnsigned, "sad-signed"),
        (PlantedBug::ClampSignedAsUnsigned, "clamp-signed"),
        (
            PlantedBug::SubgroupShuffleSourceDropsBit4,
            "subgroup-shuffle-bit4",
        ),
        (
            PlantedBug::SubgroupScanIdentityZero,
            "subgroup-scan-identity",
        ),
        (PlantedBug::UnpackSnormRuntimeUnsigned, "unpack-snorm"),
    ];

    /// The bug named `name` ([`PlantedBug::NAMES`]).
    pub fn from_name(name: &str) -> Option<PlantedBug> {
        Self::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(b, _)| *b)
    }
}

/// The standard block layouts of GLSL 4.60 §7.6.2.2 (conform-plan's, the one type for them).
pub use conform_plan::BlockLayout;

/// Knobs for one reference run.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many interleavings to run (in order, reversed, then seeded random). At least 1 is
    /// always run.
    pub schedules: u32,
    /// Instructions per invocation before the run is refused as a timeout.
    pub step_budget: u64,
    /// The layout the reference assumes for GLSL blocks declared `shared` or `packed` (or
    /// with no layout, whose default is `shared`): implementation-dependent in GL (GLSL 4.60
    /// §4.4.5), std430 in Mesa. None: such a block is refused where std140 and std430 would
    /// place a member differently.
    pub shared_layout: Option<BlockLayout>,
    /// Invocations per subgroup for the GLSL subgroup, ballot and vote functions (a power of
    /// two, 4 to 64; 32 by default): subgroup k of a work group is local indices `k * size ..
    /// (k + 1) * size`. NV_shader_thread_shuffle's warps are 32 invocations whatever this is.
    pub subgroup_size: u32,
    /// Whether `subgroup_size` is the default rather than one the case chose: then a program
    /// using subgroup operations is also run with subgroups of 16, and memory that differs
    /// is reported as another schedule (gl_SubgroupSize is the implementation's,
    /// KHR_shader_subgroup). True by default.
    pub vary_subgroup_size: bool,
    /// Test-only: a deliberate bug for the fuzzer's self-test. None by default.
    #[cfg(feature = "planted-bugs")]
    pub planted_bug: Option<PlantedBug>,
}

impl Options {
    /// Options with `schedules` interleavings and a step budget of `step_budget`.
    pub fn new(schedules: u32, step_budget: u64) -> Self {
        Options {
            schedules,
            step_budget,
            shared_layout: None,
            subgroup_size: 32,
            vary_subgroup_size: true,
            #[cfg(feature = "planted-bugs")]
            planted_bug: None,
        }
    }

    /// The options a case's knobs choose, the defaults elsewhere: the one place the
    /// backend-neutral knobs become the interpreter's options. A subgroup size the case chose
    /// is the only one run.
    pub fn from_knobs(knobs: &conform_plan::ReferenceKnobs) -> Options {
        let mut o = Options::default();
        if let Some(s) = knobs.schedules {
            o.schedules = s;
        }
        if let Some(b) = knobs.step_budget {
            o.step_budget = b;
        }
        o.shared_layout = knobs.shared_layout;
        if let Some(s) = knobs.subgroup_size {
            o.subgroup_size = s;
            o.vary_subgroup_size = false;
        }
        o
    }

    /// Whether the knobs make sense: the subgroup size is a power of two from 4 to 64 (the
    /// largest ARB_shader_ballot's uint64_t ballots hold).
    pub fn check(&self) -> Result<(), String> {
        let s = self.subgroup_size;
        if !(4..=64).contains(&s) || !s.is_power_of_two() {
            return Err(format!(
                "subgroup size {s} is not a power of two from 4 to 64"
            ));
        }
        Ok(())
    }

    /// The bug to plant: always none without the `planted-bugs` feature.
    pub fn planted_bug(&self) -> Option<PlantedBug> {
        #[cfg(feature = "planted-bugs")]
        return self.planted_bug;
        #[cfg(not(feature = "planted-bugs"))]
        None
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::new(3, 10_000_000)
    }
}

/// A problem found in a program by [`check`]; `line` is relative to the program text (1-based).
/// The SPIR-V assembler's type, so one diagnostic type crosses from it to the loader.
pub use conform_spirv::Diagnostic;

/// Implementation limits the reference models (ARB_compute_shader / NV_compute_program5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_work_group_count: [u32; 3],
    pub max_work_group_size: [u32; 3],
    pub max_work_group_invocations: u32,
    /// MAX_COMPUTE_VARIABLE_GROUP_SIZE_ARB (ARB_compute_variable_group_size).
    pub max_variable_group_size: [u32; 3],
    /// MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB.
    pub max_variable_group_invocations: u32,
    pub max_shared_memory_size: u32,
    pub warp_size: u32,
    /// MAX_PROGRAM_CALL_DEPTH_NV (NV assembly CAL nesting; GLSL and SPIR-V call copies).
    pub max_call_depth: u32,
    /// MAX_PROGRAM_LOOP_DEPTH_NV: REP nesting in NV assembly (spec minimum 4).
    pub max_loop_depth: u32,
    /// MAX_PROGRAM_IF_DEPTH_NV: IF nesting in NV assembly (spec minimum 48).
    pub max_if_depth: u32,
}

/// The limits of the reference.
pub const LIMITS: Limits = Limits {
    max_work_group_count: [65535, 65535, 65535],
    max_work_group_size: [1024, 1024, 64],
    max_work_group_invocations: 1024,
    // ARB_compute_variable_group_size's minimum maxima, as the fixed-size limits are GL 4.3's.
    max_variable_group_size: [512, 512, 64],
    max_variable_group_invocations: 512,
    max_shared_memory_size: 49152,
    warp_size: 32,
    max_call_depth: 32,
    max_loop_depth: 64,
    max_if_depth: 64,
};

/// The GL extensions the reference implements, as a driver's extension string would list
/// them: a case whose `requires.extensions` names one outside this list is a skip on the
/// reference, as on a driver without it. An extension is listed when the reference models it;
/// the constructs of a listed extension it does not model are refused by name where a program
/// uses them (docs/REFERENCE.md, "Not modeled"), so a listed extension never turns into a wrong
/// verdict. The GLSL front end accepts in `#extension` those with a GLSL part
/// (`front::glsl::parse::supported`).
pub const EXTENSIONS: &[&str] = &[
    // GLSL
    "GL_ARB_compute_shader",
    "GL_ARB_shader_storage_buffer_object",
    "GL_ARB_shader_atomic_counters",
    "GL_ARB_shader_atomic_counter_ops",
    "GL_ARB_gpu_shader5",
    "GL_ARB_shading_language_420pack",
    "GL_ARB_shader_bit_encoding",
    "GL_ARB_gpu_shader_fp64",
    "GL_NV_shader_thread_shuffle",
    "GL_NV_shader_thread_group",
    "GL_NV_shader_atomic_float",
    "GL_EXT_shader_atomic_float",
    "GL_ARB_gpu_shader_int64",
    "GL_INTEL_shader_atomic_float_minmax",
    "GL_ARB_shader_group_vote",
    "GL_ARB_shader_ballot",
    "GL_ARB_shader_clock",
    "GL_ARB_compute_variable_group_size",
    "GL_ARB_shader_image_load_store",
    "GL_ARB_shader_image_size",
    "GL_OES_shader_image_atomic",
    "GL_AMD_shader_trinary_minmax",
    // Derivatives in compute shaders (GLSL only; implicit-LOD texture lookups and
    // textureQueryLod are refused by name, as everywhere).
    "GL_NV_compute_shader_derivatives",
    // The API extension and the GLSL extensions of its basic, vote, ballot, shuffle,
    // shuffle_relative and arithmetic features (not clustered and quad).
    "GL_KHR_shader_subgroup",
    "GL_KHR_shader_subgroup_basic",
    "GL_KHR_shader_subgroup_vote",
    "GL_KHR_shader_subgroup_ballot",
    "GL_KHR_shader_subgroup_shuffle",
    "GL_KHR_shader_subgroup_shuffle_relative",
    "GL_KHR_shader_subgroup_arithmetic",
    // NV assembly
    "GL_NV_compute_program5",
    "GL_NV_gpu_program5",
    "GL_NV_gpu_program4",
    "GL_NV_shader_storage_buffer_object",
    "GL_NV_shader_atomic_int64",
    "GL_NV_gpu_program_fp64",
    "GL_NV_parameter_buffer_object",
    // MEMBAR.CTA; its images are refused where used.
    "GL_EXT_shader_image_load_store",
    // ESSL 3.10 shaders in a desktop context (core in GL 4.5; the reference compiles them as
    // it does there). An API extension: no `#extension` of its own.
    "GL_ARB_ES3_1_compatibility",
    // SPIR-V
    "GL_ARB_gl_spirv",
    "GL_ARB_spirv_extensions",
    "GL_AMD_gpu_shader_half_float",
];

/// Runs a plan on the reference interpreter.
///
/// Builds the programs with the front end of their language ([`front::build`]). A program
/// that fails to build gives an `Outcome` with `build.failed_at` set, the log, no steps and
/// the initial buffers; one without a compute shader an `Outcome` whose dispatches raise
/// INVALID_OPERATION; one the reference does not model a [`Refusal::Unsupported`]. A built
/// program runs under `opts.schedules` interleavings and, for programs with assembly
/// shuffles, under both readings of the shuffle range test ([`run_ir`]). The returned memory
/// is the in-order schedule's under the inclusive (PTX) reading; differences between runs
/// become flags and notes.
pub fn run(plan: &ExecPlan, opts: &Options) -> Result<Outcome, Refusal> {
    opts.check()
        .map_err(|m| Refusal::Internal(format!("{}: {m}", plan.case)))?;
    let t0 = Instant::now();
    let built = front::build(&plan.programs, Some(plan), opts);
    let build_us = micros(t0);
    let mut built = match built {
        Ok(b) => b,
        Err(BuildFailure::Failed { stage, log, .. }) => {
            return Ok(Outcome {
                build: BuildOutcome {
                    failed_at: Some(stage),
                    log,
                },
                buffers: initial_buffers(plan),
                timings_us: Timings {
                    build: build_us,
                    ..Timings::default()
                },
                ..Outcome::default()
            })
        }
        Err(BuildFailure::NotCompute { log }) => return Ok(not_compute(plan, log, build_us)),
        Err(failure) => return Err(refusal(plan, failure)),
    };
    exec::planted::program(opts.planted_bug(), &mut built.program);
    let mut out = run_ir(&built.program, plan, opts)?;
    out.timings_us.build = build_us;
    if !built.log.is_empty() {
        out.build.log = built.log;
    }
    out.notes.extend(built.notes);
    if !built.undefined.is_empty() {
        let msg = built
            .undefined
            .iter()
            .map(|d| format!("line {}: {}", d.line, d.message))
            .collect::<Vec<_>>()
            .join("; ");
        match out
            .flags
            .iter_mut()
            .find(|f| f.kind == FlagKind::UndefinedValue)
        {
            Some(f) => f.message = format!("{msg}; {}", f.message),
            None => out.flags.push(conform_plan::Flag {
                kind: FlagKind::UndefinedValue,
                message: msg,
            }),
        }
        out.flags.sort_by_key(|f| f.kind);
    }
    Ok(out)
}

/// The buffers of a plan as they are before any step runs.
fn initial_buffers(plan: &ExecPlan) -> Vec<Vec<u8>> {
    plan.buffers.iter().map(|b| b.bytes.clone()).collect()
}

/// A build failure that is not an outcome (the reference cannot run the plan) as a refusal
/// naming the case.
fn refusal(plan: &ExecPlan, failure: BuildFailure) -> Refusal {
    match failure {
        BuildFailure::Unsupported { reason, .. } => {
            Refusal::Unsupported(format!("{}: {reason}", plan.case))
        }
        BuildFailure::Internal(m) => Refusal::Internal(format!("{}: {m}", plan.case)),
        BuildFailure::Failed { stage, log, .. } => Refusal::Internal(format!(
            "{}: the program failed to {}: {log}",
            plan.case,
            stage.name()
        )),
        BuildFailure::NotCompute { .. } => {
            Refusal::Unsupported(format!("{}: the program has no compute shader", plan.case))
        }
    }
}

/// The outcome of a program without a compute shader: built, but every dispatch is
/// INVALID_OPERATION (ARB_compute_shader: no active compute program) and memory is unchanged.
fn not_compute(plan: &ExecPlan, log: String, build_us: u64) -> Outcome {
    use conform_plan::{GlError, Step, StepOutcome};
    let steps = plan
        .steps
        .iter()
        .map(|st| match st {
            Step::Dispatch { .. }
            | Step::DispatchIndirect { .. }
            | Step::DispatchGroupSize { .. }
            | Step::Api(
                conform_plan::ApiAction::Dispatch { .. }
                | conform_plan::ApiAction::DispatchGroupSize { .. },
            ) => exec::applied(GlError::InvalidOperation),
            Step::MemoryBarrier { .. } => exec::applied(GlError::NoError),
            Step::Query { pname, index } => exec::query(*pname, *index),
            // ARB_compute_shader, Section 5.5: "a linked program object that contains no
            // compute shaders" makes the query INVALID_OPERATION.
            Step::ProgramQuery {
                pname: conform_plan::ProgramPname::ComputeWorkGroupSize,
            } => exec::applied(GlError::InvalidOperation),
            Step::ProgramQuery {
                pname: conform_plan::ProgramPname::LinkStatus,
            } => exec::link_status_query(plan),
            // Memory and uniforms are not modelled without a compute program.
            Step::Uniform(_)
            | Step::WriteBuffer { .. }
            | Step::ClearBuffer { .. }
            | Step::Snapshot
            | Step::ProgramQuery { .. }
            | Step::Api { .. } => StepOutcome::default(),
        })
        .collect();
    Outcome {
        build: BuildOutcome {
            failed_at: None,
            log,
        },
        steps,
        buffers: initial_buffers(plan),
        notes: vec!["the program has no compute shader: dispatches raise INVALID_OPERATION".into()],
        timings_us: Timings {
            build: build_us,
            ..Timings::default()
        },
        ..Outcome::default()
    }
}

/// Runs an already-built IR program over the steps of `plan` (what [`run`] does after the
/// front end; front ends for other languages hand their [`ir::Program`] here). The program
/// must satisfy [`ir::Program::validate`]; `plan.programs` is not looked at.
pub fn run_ir(prog: &ir::Program, plan: &ExecPlan, opts: &Options) -> Result<Outcome, Refusal> {
    prog.validate()
        .map_err(|m| Refusal::Internal(format!("invalid IR: {m}")))?;
    let (out, uninit_uses) = run_ir_with(prog, plan, opts, None)?;
    if uninit_uses == 0 {
        return Ok(out);
    }
    // A program that reads a variable before writing it (or an OpUndef) has undefined values,
    // but its results need not depend on them (a branch on one whose two sides end the same,
    // as generated and transformed programs do): run it again with those values all zeros,
    // all ones and a pattern, unflagged; when memory and every step come out the same, the
    // flags those values raised are dropped (the others stay).
    // (32-bit patterns: registers hold 32-bit lanes zero-extended.)
    let fills = [0u64, 0xFFFF_FFFF, 0x5A5A_5A5A];
    let mut runs = Vec::new();
    for fill in fills {
        let cfg = RunCfg {
            uninit_fill: Some(fill),
            ..run_cfg(opts, 0, Reading::Inclusive)
        };
        match exec::run_plan(prog, plan, cfg) {
            Ok(r) => runs.push(r),
            Err(_) => return Ok(out),
        }
    }
    let same = runs
        .windows(2)
        .all(|w| diff_all(plan, &w[0], &w[1], 1).is_empty() && w[0].steps == w[1].steps);
    if !same {
        return Ok(out);
    }
    let (mut quiet, _) = run_ir_with(prog, plan, opts, Some(0))?;
    quiet.notes.push(
        "the program reads variables before writing them (or OpUndef values), but its results do not depend on what they hold: the same with 0, 0xFFFFFFFF and 0x5A5A5A5A in them (not flagged)"
            .into(),
    );
    Ok(quiet)
}

/// [`run_ir`] with uninitialized variables flagged (`uninit_fill` None) or reading a value,
/// and how many flagged uses were of such variables.
fn run_ir_with(
    prog: &ir::Program,
    plan: &ExecPlan,
    opts: &Options,
    uninit_fill: Option<u64>,
) -> Result<(Outcome, u64), Refusal> {
    let t1 = Instant::now();
    let n = opts.schedules.max(1);
    let cfg = |i: u32, reading| RunCfg {
        uninit_fill,
        ..run_cfg(opts, i, reading)
    };
    let mut canon = exec::run_plan(prog, plan, cfg(0, Reading::Inclusive))?;
    let mut flags = std::mem::take(&mut canon.flags);
    let mut notes = std::mem::take(&mut canon.notes);
    let mut names = vec![Schedule::nth(0).name()];
    let mut sched_diffs: Option<(String, Vec<String>)> = None;
    // The harness checks every schedule's memory against the case, so a case whose checked
    // memory depends on the interleaving is reported with the differing elements.
    let mut other_schedules = Vec::new();
    for i in 1..n {
        let other = exec::run_plan(prog, plan, cfg(i, Reading::Inclusive))?;
        names.push(Schedule::nth(i).name());
        let d = diff_all(plan, &canon, &other, 8);
        if !d.is_empty() {
            if sched_diffs.is_none() {
                sched_diffs = Some((Schedule::nth(i).name(), d));
            }
            other_schedules.push(conform_plan::ScheduleOutcome {
                name: Schedule::nth(i).name(),
                buffers: other.buffers,
                snapshots: other.snapshots,
            });
        }
        flags.merge(other.flags);
    }
    // A read that races with a write may see a value no run-until-blocked schedule gives (a
    // write between two of another invocation's accesses): the lock-step schedule gives it.
    if flags.has(FlagKind::DataRace) {
        let lockstep = RunCfg {
            schedule: Schedule::Lockstep,
            ..cfg(0, Reading::Inclusive)
        };
        let other = exec::run_plan(prog, plan, lockstep)?;
        names.push(Schedule::Lockstep.name());
        let d = diff_all(plan, &canon, &other, 8);
        if !d.is_empty() {
            if sched_diffs.is_none() {
                sched_diffs = Some((Schedule::Lockstep.name(), d));
            }
            other_schedules.push(conform_plan::ScheduleOutcome {
                name: Schedule::Lockstep.name(),
                buffers: other.buffers,
                snapshots: other.snapshots,
            });
        }
        flags.merge(other.flags);
    }
    notes.push(format!(
        "ran {} schedule(s): {}; work groups {}",
        names.len(),
        names.join(", "),
        if prog.uses.storage_atomics {
            "one after another (the program has storage atomics)"
        } else if prog.uses.storage_read_write {
            "one after another (the program reads and writes one storage buffer)"
        } else {
            "in parallel"
        }
    ));
    // gl_SubgroupSize is the implementation's: memory that depends on it is another outcome
    // a driver may give, checked like a schedule's.
    if prog.uses.subgroup && opts.vary_subgroup_size && opts.subgroup_size != 16 {
        let other = RunCfg {
            subgroup_size: 16,
            ..cfg(0, Reading::Inclusive)
        };
        if let Ok(o) = exec::run_plan(prog, plan, other) {
            let d = diff_all(plan, &canon, &o, 8);
            if !d.is_empty() {
                let name = "subgroup size 16".to_string();
                if sched_diffs.is_none() {
                    sched_diffs = Some((name.clone(), d));
                }
                other_schedules.push(conform_plan::ScheduleOutcome {
                    name,
                    buffers: o.buffers,
                    snapshots: o.snapshots,
                });
            }
        }
    }
    if let Some((name, d)) = sched_diffs {
        flags.add(
            FlagKind::ScheduleDependent,
            format!(
                "memory differs between the in-order and the {name} schedule (in-order kept): {}",
                d.join("; ")
            ),
        );
    }
    if prog.uses.shuffle_asm {
        let strict = exec::run_plan(prog, plan, cfg(0, Reading::Strict))?;
        let d = diff_all(plan, &canon, &strict, 16);
        if d.is_empty() {
            notes.push(format!(
                "shuffle range test: the {} and the {} readings produce the same memory",
                Reading::Inclusive.name(),
                Reading::Strict.name()
            ));
        } else {
            let msg = format!(
                "shuffle range test (SHFL-ASM-RANGE-BOUNDARY, SHFL-ASM-UP-BOUND): memory returned follows the {}; the {} differs at: {} (values: inclusive vs strict)",
                Reading::Inclusive.name(),
                Reading::Strict.name(),
                d.join("; ")
            );
            notes.push(msg.clone());
            flags.add(FlagKind::AmbiguousReading, msg);
        }
        flags.merge(strict.flags);
    }
    let uninit_uses = flags.uninit_uses;
    let out = Outcome {
        build: BuildOutcome::default(),
        steps: canon.steps,
        buffers: canon.buffers,
        snapshots: canon.snapshots,
        flags: flags.into_flags(),
        notes,
        timings_us: Timings {
            build: 0,
            dispatch: micros(t1),
            readback: 0,
        },
        other_schedules,
    };
    Ok((out, uninit_uses))
}

/// The run configuration `opts` gives for schedule `i` (0: in order) and a shuffle reading:
/// no trace, uninitialized variables flagged.
fn run_cfg(opts: &Options, i: u32, reading: Reading) -> RunCfg {
    RunCfg {
        schedule: Schedule::nth(i),
        reading,
        bug: opts.planted_bug(),
        budget: opts.step_budget,
        subgroup_size: opts.subgroup_size,
        trace: None,
        uninit_fill: None,
    }
}

fn micros(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// The first differing elements of two runs, final memory then each snapshot ("after
/// snapshot k: ..." before those of a snapshot).
fn diff_all(plan: &ExecPlan, a: &exec::RunOut, b: &exec::RunOut, max: usize) -> Vec<String> {
    let mut out = diff(plan, &a.buffers, &b.buffers, max);
    for (k, (x, y)) in a.snapshots.iter().zip(&b.snapshots).enumerate() {
        if out.len() >= max {
            break;
        }
        out.extend(
            diff(plan, x, y, max - out.len())
                .into_iter()
                .map(|d| format!("after snapshot {k}: {d}")),
        );
    }
    out
}

/// The first differing elements of two sets of final buffers, as "name[i] (byte o): a vs b".
fn diff(plan: &ExecPlan, a: &[Vec<u8>], b: &[Vec<u8>], max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut total = 0usize;
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let (name, size) = plan
            .buffers
            .get(k)
            .map(|b| (b.name.as_str(), b.elem.size().max(1)))
            .unwrap_or(("?", 4));
        let n = x.len().max(y.len());
        let mut off = 0;
        while off < n {
            let end = (off + size).min(n);
            let ex = x.get(off..end.min(x.len())).unwrap_or(&[]);
            let ey = y.get(off..end.min(y.len())).unwrap_or(&[]);
            if ex != ey {
                total += 1;
                if out.len() < max {
                    let hex = |s: &[u8]| {
                        let mut h = String::from("0x");
                        for byte in s.iter().rev() {
                            h.push_str(&format!("{byte:02x}"));
                        }
                        h
                    };
                    out.push(format!(
                        "{name}[{}] (byte offset {off}): {} vs {}",
                        off / size,
                        hex(ex),
                        hex(ey)
                    ));
                }
            }
            off += size;
        }
    }
    if total > out.len() {
        out.push(format!("{} more differing elements", total - out.len()));
    }
    out
}

/// Explains one invocation: runs `plan` once (in-order schedule, inclusive shuffle reading)
/// and returns every instruction invocation `local_index` of work group `group` executed, in
/// every dispatch, with its source line and the value it wrote (at most
/// `exec::interp::TRACE_LINES` lines). A program that fails to build gives its diagnostics
/// instead (`compile failure: line 3: ...`).
pub fn trace(
    plan: &ExecPlan,
    opts: &Options,
    group: [u32; 3],
    local_index: u32,
) -> Result<Vec<String>, Refusal> {
    let built = match front::build(&plan.programs, Some(plan), opts) {
        Ok(b) => b,
        Err(BuildFailure::Failed {
            stage, diagnostics, ..
        }) => {
            return Ok(diagnostics
                .iter()
                .map(|d| format!("{} failure: line {}: {}", stage.name(), d.line, d.message))
                .collect())
        }
        Err(failure) => return Err(refusal(plan, failure)),
    };
    let cfg = RunCfg {
        trace: Some((group, local_index as usize)),
        ..run_cfg(opts, 0, Reading::Inclusive)
    };
    Ok(exec::run_plan(&built.program, plan, cfg)?.trace)
}

/// Parses and checks one program on its own (no execution): the build rules of its language
/// that one program can break. Link rules, which need the whole program, are not checked.
pub fn check(program: &ProgramSource) -> Result<(), Vec<Diagnostic>> {
    match front::build(std::slice::from_ref(program), None, &Options::default()) {
        Ok(_) | Err(BuildFailure::NotCompute { .. }) => Ok(()),
        Err(BuildFailure::Failed {
            stage: BuildStage::Link,
            ..
        }) => Ok(()),
        Err(BuildFailure::Failed { diagnostics, .. }) => Err(diagnostics),
        Err(BuildFailure::Unsupported { at, .. }) => Err(vec![Diagnostic {
            message: format!("not modeled by the reference: {}", at.message),
            ..at
        }]),
        Err(BuildFailure::Internal(m)) => Err(vec![Diagnostic {
            line: 1,
            column: 1,
            message: format!("internal error in the reference: {m}"),
        }]),
    }
}

#[cfg(test)]
mod planted_bug_tests {
    use super::PlantedBug;

    #[test]
    fn planted_bug_names_are_unique_and_round_trip() {
        let mut seen = std::collections::BTreeSet::new();
        for (bug, name) in PlantedBug::NAMES {
            assert!(seen.insert(name), "{name} twice");
            assert_eq!(PlantedBug::from_name(name), Some(bug));
        }
        assert_eq!(PlantedBug::from_name("no-such-bug"), None);
    }
}
