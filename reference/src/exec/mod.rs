//! The executor: runs an IR program over the steps of a plan.
//!
//! Work groups run in parallel (rayon) unless the program uses storage-buffer atomics; then
//! they run one after another in the schedule's group order, so that the values atomics return
//! are reproducible run to run (determinism over speed for the oracle). Storage memory is kept
//! in atomic words either way, so the interpreter itself never races.

pub mod convert;
pub mod flags;
pub mod interp;
pub mod mem;
pub mod poison;
pub mod shuffle;
pub mod subgroup;
pub mod values;

use crate::ir::Program;
use crate::{PlantedBug, LIMITS};
use conform_plan::{BufferKind, ExecPlan, GlError, QueryPname, Refusal, Step, StepOutcome};
use flags::FlagSet;
use interp::{Env, GroupExec, Schedule, SplitMix};
use mem::GlobalBuf;
use rayon::prelude::*;
use shuffle::Reading;
use std::sync::Mutex;

/// How one run of a plan is configured.
#[derive(Clone, Copy, Debug)]
pub struct RunCfg {
    pub schedule: Schedule,
    pub reading: Reading,
    pub bug: Option<PlantedBug>,
    pub budget: u64,
    /// Invocations per subgroup (a power of two; `crate::Options::subgroup_size`).
    pub subgroup_size: u32,
    /// Log the instructions of this (group, local index) in every dispatch.
    pub trace: Option<([u32; 3], usize)>,
}

/// What one run of a plan produced.
#[derive(Debug)]
pub struct RunOut {
    pub steps: Vec<StepOutcome>,
    pub buffers: Vec<Vec<u8>>,
    pub flags: FlagSet,
    /// Trace lines (when `RunCfg::trace` is set).
    pub trace: Vec<String>,
}

/// Total invocations one dispatch may have on the reference.
pub const MAX_DISPATCH_INVOCATIONS: u64 = 1 << 32;

enum Mem {
    Global(GlobalBuf),
    ReadOnly(Vec<u8>),
}

impl Mem {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Mem::Global(g) => g.to_bytes(),
            Mem::ReadOnly(b) => b.clone(),
        }
    }
}

/// Lays out vec4 parameters from buffers of one kind (`binding` = first index).
fn params(plan: &ExecPlan, kind: BufferKind) -> Vec<u8> {
    let mut out = Vec::new();
    for b in plan.buffers.iter().filter(|b| b.kind == kind) {
        let start = (b.binding as usize).saturating_mul(16);
        let Some(end) = start.checked_add(b.bytes.len()) else {
            continue;
        };
        if end > (1 << 24) {
            continue;
        }
        if out.len() < end {
            out.resize(end, 0);
        }
        out[start..end].copy_from_slice(&b.bytes);
    }
    out
}

/// Lays out the plan's plain uniforms per `prog.uniforms` (unset ones read as 0).
fn default_uniforms(prog: &Program, plan: &ExecPlan) -> Vec<u8> {
    let end = prog
        .uniforms
        .iter()
        .map(|u| u64::from(u.offset) + u64::from(u.size))
        .max()
        .unwrap_or(0)
        .min(1 << 24) as usize;
    let mut out = vec![0u8; end];
    for slot in &prog.uniforms {
        if let Some(u) = plan.uniforms.iter().find(|u| u.name == slot.name) {
            let start = slot.offset as usize;
            let n = u
                .bytes
                .len()
                .min(slot.size as usize)
                .min(end.saturating_sub(start));
            out[start..start + n].copy_from_slice(&u.bytes[..n]);
        }
    }
    out
}

/// Runs every step of `plan` with `prog`.
pub fn run_plan(prog: &Program, plan: &ExecPlan, cfg: RunCfg) -> Result<RunOut, Refusal> {
    let mems: Vec<Mem> = plan
        .buffers
        .iter()
        .map(|b| match b.kind {
            BufferKind::Storage | BufferKind::AtomicCounter | BufferKind::Indirect => {
                Mem::Global(GlobalBuf::from_bytes(&b.bytes))
            }
            _ => Mem::ReadOnly(b.bytes.clone()),
        })
        .collect();
    let local = params(plan, BufferKind::ProgramLocal);
    let uniforms = default_uniforms(prog, plan);
    let envp = params(plan, BufferKind::ProgramEnv);
    let mut flags = FlagSet::default();
    let mut trace = Vec::new();
    let mut steps = Vec::new();
    for (k, step) in plan.steps.iter().enumerate() {
        let k = k as u64;
        let out = match step {
            Step::Dispatch { groups } => {
                let err = dispatch_checked(
                    prog, plan, &mems, &local, &envp, &uniforms, *groups, cfg, k, &mut flags,
                    &mut trace,
                )?;
                applied(err)
            }
            Step::DispatchIndirect { buffer, offset } => {
                let err = match indirect_groups(&mems, *buffer, *offset) {
                    Err(e) => e,
                    Ok(groups) => dispatch_checked(
                        prog, plan, &mems, &local, &envp, &uniforms, groups, cfg, k, &mut flags,
                        &mut trace,
                    )?,
                };
                applied(err)
            }
            Step::MemoryBarrier { .. } => applied(GlError::NoError),
            Step::Query { pname, index } => query(*pname, *index),
            Step::ProgramQuery { .. } | Step::Api { .. } => StepOutcome::default(),
        };
        steps.push(out);
    }
    Ok(RunOut {
        steps,
        buffers: mems.iter().map(Mem::bytes).collect(),
        flags,
        trace,
    })
}

/// The outcome of a step the reference executed, with the GL error it raised.
pub(crate) fn applied(error: GlError) -> StepOutcome {
    StepOutcome {
        error: Some(error),
        values: vec![],
        applicable: true,
    }
}

fn indirect_groups(mems: &[Mem], buffer: Option<usize>, offset: i64) -> Result<[u32; 3], GlError> {
    if offset < 0 || offset % 4 != 0 {
        return Err(GlError::InvalidValue);
    }
    let Some(b) = buffer.and_then(|b| mems.get(b)) else {
        return Err(GlError::InvalidOperation);
    };
    let bytes = b.bytes();
    let off = offset as u64;
    if off.checked_add(12).is_none_or(|e| e > bytes.len() as u64) {
        return Err(GlError::InvalidOperation);
    }
    let o = off as usize;
    let w = |k: usize| {
        u32::from_le_bytes([
            bytes[o + k],
            bytes[o + k + 1],
            bytes[o + k + 2],
            bytes[o + k + 3],
        ])
    };
    Ok([w(0), w(4), w(8)])
}

#[allow(clippy::too_many_arguments)]
fn dispatch_checked(
    prog: &Program,
    plan: &ExecPlan,
    mems: &[Mem],
    local: &[u8],
    envp: &[u8],
    default_uniforms: &[u8],
    groups: [u32; 3],
    cfg: RunCfg,
    step_index: u64,
    flags: &mut FlagSet,
    trace: &mut Vec<String>,
) -> Result<GlError, Refusal> {
    if groups
        .iter()
        .zip(LIMITS.max_work_group_count)
        .any(|(g, m)| *g > m)
    {
        return Ok(GlError::InvalidValue);
    }
    if groups.contains(&0) {
        return Ok(GlError::NoError);
    }
    let mut storage = Vec::new();
    let mut counters = Vec::new();
    let mut uniform = Vec::new();
    let mut param_buf = Vec::new();
    for (b, m) in plan.buffers.iter().zip(mems) {
        match (b.kind, m) {
            (BufferKind::Storage, Mem::Global(g)) => storage.push((b.binding, g)),
            (BufferKind::AtomicCounter, Mem::Global(g)) => counters.push((b.binding, g)),
            (BufferKind::Uniform, Mem::ReadOnly(r)) => uniform.push((b.binding, r.as_slice())),
            (BufferKind::ParameterBuffer, Mem::ReadOnly(r)) => {
                param_buf.push((b.binding, r.as_slice()))
            }
            _ => {}
        }
    }
    let env = Env {
        prog,
        storage,
        counters,
        uniform,
        param_buf,
        local,
        default_uniforms,
        env: envp,
        group_count: groups,
        reading: cfg.reading,
        bug: cfg.bug,
        budget: cfg.budget,
        schedule: cfg.schedule,
        subgroup_size: cfg.subgroup_size,
        trace_target: cfg.trace,
        clock_base: step_index << 40,
    };
    dispatch(&env, flags, trace)?;
    Ok(GlError::NoError)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Runs all groups of one dispatch.
fn dispatch(env: &Env, flags: &mut FlagSet, trace: &mut Vec<String>) -> Result<(), Refusal> {
    let [gx, gy, gz] = env.group_count;
    let total = u64::from(gx) * u64::from(gy) * u64::from(gz);
    let gs = env.prog.group_size;
    let per = u64::from(gs[0]) * u64::from(gs[1]) * u64::from(gs[2]);
    if total.saturating_mul(per) > MAX_DISPATCH_INVOCATIONS {
        return Err(Refusal::Unsupported(format!(
            "dispatch of {total} groups x {per} invocations is above the reference's limit of {MAX_DISPATCH_INVOCATIONS} invocations"
        )));
    }
    let gid_of = |lin: u64| -> [u32; 3] {
        let x = lin % u64::from(gx);
        let y = (lin / u64::from(gx)) % u64::from(gy);
        let z = lin / (u64::from(gx) * u64::from(gy));
        [x as u32, y as u32, z as u32]
    };
    // Group order (used when groups run sequentially): an affine bijection for random.
    let (mul, add) = match env.schedule {
        Schedule::Random(seed) => {
            let mut r = SplitMix(seed);
            let mut a = r.below(total).max(1);
            while gcd(a, total) != 1 {
                a = r.below(total).max(1);
            }
            (a, r.below(total))
        }
        _ => (1, 0),
    };
    let order = |k: u64| -> u64 {
        match env.schedule {
            Schedule::InOrder => k,
            Schedule::Reversed => total - 1 - k,
            Schedule::Random(_) => {
                ((u128::from(k) * u128::from(mul) + u128::from(add)) % u128::from(total)) as u64
            }
        }
    };
    // Groups that may communicate through storage (or atomic counters) run one after another
    // in the schedule's group order, so the oracle's memory never depends on thread timing.
    if env.prog.uses.storage_atomics || env.prog.uses.storage_read_write {
        let mut ge = GroupExec::new(env.prog);
        for k in 0..total {
            let lin = order(k);
            ge.run_group(env, gid_of(lin), lin)?;
        }
        flags.merge(std::mem::take(&mut ge.flags));
        trace.append(&mut ge.trace);
    } else {
        let sink = Mutex::new(FlagSet::default());
        let trace_sink = Mutex::new(Vec::new());
        (0..total).into_par_iter().try_for_each_init(
            || GroupExec::new(env.prog),
            |ge, k| -> Result<(), Refusal> {
                let lin = order(k);
                let r = ge.run_group(env, gid_of(lin), lin);
                if !ge.trace.is_empty() {
                    if let Ok(mut t) = trace_sink.lock() {
                        t.append(&mut ge.trace);
                    }
                }
                if !ge.flags.is_empty() {
                    if let Ok(mut s) = sink.lock() {
                        s.merge(std::mem::take(&mut ge.flags));
                    }
                }
                r
            },
        )?;
        if let Ok(s) = sink.into_inner() {
            flags.merge(s);
        }
        if let Ok(mut t) = trace_sink.into_inner() {
            trace.append(&mut t);
        }
    }
    Ok(())
}

/// Answers a limit query (glGetIntegerv / glGetIntegeri_v).
pub fn query(pname: QueryPname, index: Option<u32>) -> StepOutcome {
    let ok = |v: i64| StepOutcome {
        error: Some(GlError::NoError),
        values: vec![v],
        applicable: true,
    };
    let err = |e: GlError| StepOutcome {
        error: Some(e),
        values: vec![],
        applicable: true,
    };
    let indexed = |vals: [u32; 3]| match index {
        Some(i) if (i as usize) < 3 => ok(i64::from(vals[i as usize])),
        Some(_) => err(GlError::InvalidValue),
        None => err(GlError::InvalidEnum),
    };
    let plain = |v: i64| match index {
        None => ok(v),
        Some(_) => err(GlError::InvalidEnum),
    };
    use QueryPname as Q;
    match pname {
        Q::MaxComputeWorkGroupCount => indexed(LIMITS.max_work_group_count),
        Q::MaxComputeWorkGroupSize => indexed(LIMITS.max_work_group_size),
        Q::MaxComputeWorkGroupInvocations => plain(i64::from(LIMITS.max_work_group_invocations)),
        Q::MaxComputeSharedMemorySize => plain(i64::from(LIMITS.max_shared_memory_size)),
        Q::MaxComputeUniformBlocks => plain(12),
        Q::MaxComputeTextureImageUnits => plain(16),
        Q::MaxComputeImageUniforms => plain(8),
        Q::MaxComputeUniformComponents => plain(512),
        Q::MaxComputeAtomicCounterBuffers => plain(8),
        Q::MaxComputeAtomicCounters => plain(8),
        Q::MaxCombinedComputeUniformComponents => plain(12 * 16384 / 4 + 512),
        Q::MaxComputeShaderStorageBlocks => plain(8),
        // Not modelled: the reference reports these steps as not applicable.
        Q::MaxCombinedTextureImageUnits
        | Q::MaxCombinedShaderStorageBlocks
        | Q::MaxShaderStorageBufferBindings
        | Q::MaxShaderStorageBlockSize
        | Q::ShaderStorageBufferOffsetAlignment
        | Q::MaxUniformBufferBindings
        | Q::MaxUniformBlockSize
        | Q::MaxAtomicCounterBufferBindings
        | Q::MaxAtomicCounterBufferSize
        | Q::MaxComputeVariableGroupSizeArb
        | Q::MaxComputeVariableGroupInvocationsArb
        | Q::MaxProgramParameterBufferBindingsNv
        | Q::MaxProgramParameterBufferSizeNv
        | Q::DispatchIndirectBufferBinding
        | Q::ShaderStorageBufferBinding
        | Q::ShaderStorageBufferStart
        | Q::ShaderStorageBufferSize
        | Q::AtomicCounterBufferBinding
        | Q::UniformBufferBinding
        | Q::CurrentProgram
        | Q::ProgramPipelineBinding
        | Q::MajorVersion
        | Q::MinorVersion
        | Q::NumExtensions
        | Q::ContextProfileMask
        | Q::NumSpirVExtensions
        | Q::NumShaderBinaryFormats
        | Q::ComputeProgramNv
        | Q::ComputeProgramParameterBufferNv
        | Q::ProgramErrorPositionArb
        | Q::MaxCombinedUniformBlocks
        | Q::MaxCombinedAtomicCounters
        | Q::MaxCombinedAtomicCounterBuffers => StepOutcome::default(),
    }
}
