//! The executor: runs an IR program over the steps of a plan.
//!
//! Work groups run in parallel (rayon) unless the program uses storage-buffer atomics; then
//! they run one after another in the schedule's group order, so that the values atomics return
//! are reproducible run to run (determinism over speed for the oracle). Storage memory is kept
//! in atomic words either way, so the interpreter itself never races.

pub mod block_index;
pub mod convert;
pub mod derivative;
pub mod flags;
pub mod image;
pub mod interp;
pub mod mem;
pub mod planted;
pub mod poison;
pub mod race;
pub mod shuffle;
pub mod subgroup;
pub mod texture;
pub mod uniforms;
pub mod values;
pub mod visibility;

/// What the executor's unit tests share: a plan of one compute program, run on the reference.
#[cfg(test)]
pub(crate) mod testing {
    use conform_plan::bytes::read_u32s;
    use conform_plan::{
        BufferInit, ExecPlan, FlagKind, Language, Outcome, ProgramSource, Stage, Step,
    };

    /// A plan of `text` in `language` over `buffers`, running `steps`.
    pub fn plan(
        language: Language,
        text: &str,
        buffers: Vec<BufferInit>,
        steps: Vec<Step>,
    ) -> ExecPlan {
        ExecPlan {
            case: "unit".into(),
            programs: vec![ProgramSource::from_text(
                language,
                Stage::Compute,
                text,
                "test",
            )],
            buffers,
            uniforms: vec![],
            steps,
            timeout_ms: 1000,
            skip_steps_if_built: false,
        }
    }

    /// `plan` run on the reference (it must build): the outcome and the first buffer's words.
    pub fn run(plan: &ExecPlan) -> (Outcome, Vec<u32>) {
        let out = crate::run(plan, &crate::Options::default())
            .unwrap_or_else(|e| panic!("refused: {e:?}"));
        assert_eq!(out.build.failed_at, None, "{}", out.build.log);
        let w = read_u32s(&out.buffers[0]);
        (out, w)
    }

    /// The message of the outcome's `undefined-value` flag, if it has one.
    pub fn undefined(o: &Outcome) -> Option<&str> {
        o.flags
            .iter()
            .find(|f| f.kind == FlagKind::UndefinedValue)
            .map(|f| f.message.as_str())
    }
}

use crate::ir::{Inst, Program, Space, BLOCK_ARRAY_SHIFT};
use crate::{PlantedBug, LIMITS};
use conform_plan::{
    ApiAction, BufferKind, ExecPlan, FlagKind, GlError, Language, ProgramPname, QueryPname,
    Refusal, Step, StepOutcome, UniformSet, UniformTarget, UniformType,
};
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
    /// None: variables read before they are written (`UndefinedRule::UninitializedValue`)
    /// read 0 and are flagged where used. Some(bits): they read `bits` in every lane (a 32-bit
    /// pattern), unflagged, for the check that a result does not depend on them.
    pub uninit_fill: Option<u64>,
}

/// What one run of a plan produced.
#[derive(Debug)]
pub struct RunOut {
    pub steps: Vec<StepOutcome>,
    pub buffers: Vec<Vec<u8>>,
    /// The buffers at each `Step::Snapshot`, in order.
    pub snapshots: Vec<Vec<Vec<u8>>>,
    /// What the run wants said in the outcome (uniform steps GL ignores, ...).
    pub notes: Vec<String>,
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

    /// glBufferSubData: `data` at byte `offset`; false (nothing written) past the end.
    fn host_write(&mut self, offset: u64, data: &[u8]) -> bool {
        let mut bytes = self.bytes();
        let Some(dst) = usize::try_from(offset)
            .ok()
            .and_then(|o| bytes.get_mut(o..o.checked_add(data.len())?))
        else {
            return false;
        };
        dst.copy_from_slice(data);
        self.replace(bytes);
        true
    }

    /// glClearBufferData with no data: every byte 0.
    fn host_clear(&mut self) {
        let zeros = vec![0; self.bytes().len()];
        self.replace(zeros);
    }

    fn replace(&mut self, bytes: Vec<u8>) {
        *self = match self {
            Mem::Global(_) => Mem::Global(GlobalBuf::from_bytes(&bytes)),
            Mem::ReadOnly(_) => Mem::ReadOnly(bytes),
        };
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

/// The default-uniform space with the plan's `uniforms` set (before the first step), or a
/// refusal naming a uniform set with a type its declaration does not take (GL would raise
/// INVALID_OPERATION where no step can report it).
fn default_uniforms(
    prog: &Program,
    plan: &ExecPlan,
    notes: &mut Vec<String>,
) -> Result<Vec<u8>, Refusal> {
    let mut space = uniforms::space(prog);
    for u in &plan.uniforms {
        let set = UniformSet {
            target: UniformTarget::Name(u.name.clone()),
            ty: UniformType::Elem(u.elem),
            bytes: u.bytes.clone(),
        };
        match uniforms::apply(prog, &mut space, &set) {
            uniforms::Applied::Done(GlError::NoError) => {}
            uniforms::Applied::Done(e) => {
                return Err(Refusal::Unsupported(format!(
                "uniform `{}` set as {} raises {e:?}: its declaration takes another type or count",
                u.name, u.elem
            )))
            }
            uniforms::Applied::Ignored(why) | uniforms::Applied::Unknown(why) => {
                notes.push(format!("uniform `{}`: {why}", u.name))
            }
        }
    }
    Ok(space)
}

/// Where the steps of one run are: memory, parameters and what has been noted so far.
struct State<'a> {
    prog: &'a Program,
    plan: &'a ExecPlan,
    mems: Vec<Mem>,
    local: Vec<u8>,
    envp: Vec<u8>,
    uniforms: Vec<u8>,
    cfg: RunCfg,
    flags: FlagSet,
    trace: Vec<String>,
    snapshots: Vec<Vec<Vec<u8>>>,
    notes: Vec<String>,
    /// Storage bytes earlier dispatches wrote that no barrier has made visible yet.
    vis: visibility::Visibility,
}

impl State<'_> {
    /// Runs a dispatch as step `i` of the plan.
    fn dispatch(
        &mut self,
        i: usize,
        groups: [u32; 3],
        size: Option<[u32; 3]>,
    ) -> Result<GlError, Refusal> {
        let err = dispatch_checked(
            self.prog,
            self.plan,
            &self.mems,
            &self.vis,
            &self.local,
            &self.envp,
            &self.uniforms,
            Launch { groups, size },
            self.cfg,
            i as u64,
            &mut self.flags,
            &mut self.trace,
        )?;
        self.vis.dispatched();
        Ok(err)
    }

    fn step(&mut self, i: usize, step: &Step) -> Result<StepOutcome, Refusal> {
        Ok(match step {
            Step::Dispatch { groups } => applied(self.dispatch(i, *groups, None)?),
            Step::DispatchGroupSize { groups, size } => {
                applied(self.dispatch(i, *groups, Some(*size))?)
            }
            Step::DispatchIndirect { buffer, offset } => {
                let err = match indirect_groups(&self.mems, *buffer, *offset) {
                    Err(e) => e,
                    // ARB_compute_shader: "If any of <num_groups_x>, <num_groups_y> or
                    // <num_groups_z> is greater than MAX_COMPUTE_WORK_GROUP_COUNT for the
                    // corresponding dimension then the results are undefined" (no error, unlike
                    // DispatchCompute's INVALID_VALUE): flagged, and nothing is run.
                    Ok(groups)
                        if groups
                            .iter()
                            .zip(LIMITS.max_work_group_count)
                            .any(|(g, m)| *g > m) =>
                    {
                        self.flags.add(
                            FlagKind::UndefinedValue,
                            format!(
                                "step {}: an indirect dispatch of {groups:?} groups, above MAX_COMPUTE_WORK_GROUP_COUNT {:?} (ARB_compute_shader: undefined results); not run",
                                i + 1,
                                LIMITS.max_work_group_count
                            ),
                        );
                        GlError::NoError
                    }
                    Ok(groups) => self.dispatch(i, groups, None)?,
                };
                applied(err)
            }
            Step::MemoryBarrier { bits } => {
                self.vis.barrier(bits);
                applied(GlError::NoError)
            }
            Step::Query { pname, index } => query(*pname, *index),
            Step::Uniform(set) => match uniforms::apply(self.prog, &mut self.uniforms, set) {
                uniforms::Applied::Done(e) => applied(e),
                uniforms::Applied::Ignored(why) => {
                    self.notes.push(format!("step {}: {why}", i + 1));
                    applied(GlError::NoError)
                }
                uniforms::Applied::Unknown(why) => {
                    self.notes.push(format!("step {}: {why}", i + 1));
                    StepOutcome::default()
                }
            },
            Step::WriteBuffer {
                buffer,
                offset,
                bytes,
            } => {
                let written = self
                    .mems
                    .get_mut(*buffer)
                    .is_some_and(|m| m.host_write(*offset, bytes));
                if written {
                    self.vis.api_write(*buffer, *offset, bytes.len() as u64);
                }
                // GL 4.6 §6.2: INVALID_VALUE when offset + size exceeds BUFFER_SIZE.
                applied(if written {
                    GlError::NoError
                } else {
                    GlError::InvalidValue
                })
            }
            Step::ClearBuffer { buffer } => match self.mems.get_mut(*buffer) {
                Some(m) => {
                    m.host_clear();
                    self.vis.api_write(*buffer, 0, u64::MAX);
                    applied(GlError::NoError)
                }
                None => applied(GlError::InvalidValue),
            },
            Step::Snapshot => {
                self.snapshots
                    .push(self.mems.iter().map(Mem::bytes).collect());
                applied(GlError::NoError)
            }
            Step::ProgramQuery {
                pname: ProgramPname::ActiveUniforms,
            } => match self.prog.active_uniforms {
                Some(n) => StepOutcome {
                    error: Some(GlError::NoError),
                    values: vec![i64::from(n)],
                    applicable: true,
                },
                None => StepOutcome::default(),
            },
            Step::ProgramQuery {
                pname: ProgramPname::ComputeWorkGroupSize,
            } => work_group_size_query(self.plan, self.prog),
            Step::ProgramQuery {
                pname: ProgramPname::LinkStatus,
            } => link_status_query(self.plan),
            Step::ProgramQuery { pname } => nv_depth_limit(self.plan, *pname),
            // The API forms of the two dispatches run as their step forms do (with the same
            // error checks); the other API actions change or query GL state the reference
            // does not model, and are not applicable (the case is a skip on the reference).
            Step::Api(ApiAction::Dispatch { groups }) => applied(self.dispatch(i, *groups, None)?),
            Step::Api(ApiAction::DispatchGroupSize { groups, size }) => {
                applied(self.dispatch(i, *groups, Some(*size))?)
            }
            Step::Api(_) => StepOutcome::default(),
        })
    }
}

/// glGetProgramiv(LINK_STATUS) on a program whose steps run: it linked, so TRUE (GL 4.6
/// Section 7.3); NV assembly programs have no such pname (not applicable).
pub(crate) fn link_status_query(plan: &ExecPlan) -> StepOutcome {
    if plan
        .programs
        .first()
        .is_none_or(|p| p.language == Language::Nvasm)
    {
        return StepOutcome::default();
    }
    StepOutcome {
        error: Some(GlError::NoError),
        values: vec![1],
        applicable: true,
    }
}

/// glGetProgramiv(COMPUTE_WORK_GROUP_SIZE) on a linked GLSL or SPIR-V compute program: the
/// local size its layout declares (ARB_compute_shader, Section 5.5), or zero in each
/// dimension for a variable group size (ARB_compute_variable_group_size, Issue 8). NV
/// assembly programs have no such pname (not applicable).
fn work_group_size_query(plan: &ExecPlan, prog: &Program) -> StepOutcome {
    if plan
        .programs
        .first()
        .is_none_or(|p| p.language == Language::Nvasm)
    {
        return StepOutcome::default();
    }
    let size = if prog.variable_group_size {
        [0; 3]
    } else {
        prog.group_size
    };
    StepOutcome {
        error: Some(GlError::NoError),
        values: size.iter().map(|&n| i64::from(n)).collect(),
        applicable: true,
    }
}

/// NV_gpu_program4's nesting limits (GetProgramivARB on an NV assembly program): the values the
/// NV front end enforces (`LIMITS`); not applicable for other pnames and programs.
fn nv_depth_limit(plan: &ExecPlan, pname: ProgramPname) -> StepOutcome {
    let nv = plan
        .programs
        .first()
        .is_some_and(|p| p.language == Language::Nvasm);
    let value = match pname {
        ProgramPname::MaxProgramCallDepthNv => LIMITS.max_call_depth,
        ProgramPname::MaxProgramIfDepthNv => LIMITS.max_if_depth,
        ProgramPname::MaxProgramLoopDepthNv => LIMITS.max_loop_depth,
        _ => return StepOutcome::default(),
    };
    if !nv {
        return StepOutcome::default();
    }
    StepOutcome {
        error: Some(GlError::NoError),
        values: vec![i64::from(value)],
        applicable: true,
    }
}

/// Refuses a plan binding a buffer of 16 MiB or more where the program indexes an array of
/// blocks at run time: such an address keeps the element index above bit
/// [`BLOCK_ARRAY_SHIFT`] (`Space::BlockArray`).
fn block_array_sizes(prog: &Program, plan: &ExecPlan) -> Result<(), Refusal> {
    let arrays = prog.code.iter().filter_map(|inst| match inst {
        Inst::Load { space, .. } | Inst::Store { space, .. } | Inst::Atomic { space, .. } => {
            match *space {
                Space::BlockArray {
                    uniform,
                    first,
                    len,
                } => Some((uniform, first..first.saturating_add(len))),
                _ => None,
            }
        }
        _ => None,
    });
    for (uniform, bindings) in arrays {
        let kind = if uniform {
            BufferKind::Uniform
        } else {
            BufferKind::Storage
        };
        if let Some(b) = plan.buffers.iter().find(|b| {
            b.kind == kind
                && bindings.contains(&b.binding)
                && b.bytes.len() >> BLOCK_ARRAY_SHIFT != 0
        }) {
            return Err(Refusal::Unsupported(format!(
                "buffer `{}` of {} bytes in an array of blocks indexed at run time: the reference addresses such blocks below 16 MiB",
                b.name,
                b.bytes.len()
            )));
        }
    }
    Ok(())
}

/// Runs every step of `plan` with `prog`.
pub fn run_plan(prog: &Program, plan: &ExecPlan, cfg: RunCfg) -> Result<RunOut, Refusal> {
    let mems: Vec<Mem> = plan
        .buffers
        .iter()
        .map(|b| match b.kind {
            BufferKind::Storage
            | BufferKind::AtomicCounter
            | BufferKind::Indirect
            | BufferKind::Image(_) => Mem::Global(GlobalBuf::from_bytes(&b.bytes)),
            _ => Mem::ReadOnly(b.bytes.clone()),
        })
        .collect();
    let mut notes = Vec::new();
    let uniforms = default_uniforms(prog, plan, &mut notes)?;
    block_array_sizes(prog, plan)?;
    let mut st = State {
        prog,
        plan,
        mems,
        local: params(plan, BufferKind::ProgramLocal),
        envp: params(plan, BufferKind::ProgramEnv),
        uniforms,
        cfg,
        flags: FlagSet::default(),
        trace: Vec::new(),
        snapshots: Vec::new(),
        notes,
        vis: visibility::Visibility::new(plan),
    };
    let mut steps = Vec::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let out = st.step(i, step)?;
        steps.push(out);
    }
    Ok(RunOut {
        steps,
        buffers: st.mems.iter().map(Mem::bytes).collect(),
        snapshots: st.snapshots,
        notes: st.notes,
        flags: st.flags,
        trace: st.trace,
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

/// What one dispatch launches: group counts, and the work group size for
/// glDispatchComputeGroupSizeARB (None for glDispatchCompute and the indirect form).
#[derive(Clone, Copy, Debug)]
struct Launch {
    groups: [u32; 3],
    size: Option<[u32; 3]>,
}

/// The GL error of a dispatch before it runs anything (ARB_compute_shader and
/// ARB_compute_variable_group_size, "Errors"), or the work group size it runs with.
fn launch_size(prog: &Program, launch: Launch) -> Result<[u32; 3], GlError> {
    // "An INVALID_OPERATION error is generated by DispatchCompute or DispatchComputeIndirect
    // if the active program for the compute shader stage has a variable workgroup size", and
    // by DispatchComputeGroupSizeARB "if [it] has a fixed workgroup size".
    let size = match (prog.variable_group_size, launch.size) {
        (false, None) => prog.group_size,
        (true, Some(size)) => size,
        _ => return Err(GlError::InvalidOperation),
    };
    if launch
        .groups
        .iter()
        .zip(LIMITS.max_work_group_count)
        .any(|(g, m)| *g > m)
    {
        return Err(GlError::InvalidValue);
    }
    if launch.size.is_some() {
        // "INVALID_VALUE ... if any of group_size_x, group_size_y, or group_size_z is less
        // than or equal to zero or greater than [MAX_COMPUTE_VARIABLE_GROUP_SIZE_ARB]", or
        // their product exceeds MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB.
        let per_dim = size
            .iter()
            .zip(LIMITS.max_variable_group_size)
            .any(|(s, m)| *s == 0 || *s > m);
        let total: u64 = size.iter().map(|&s| u64::from(s)).product();
        if per_dim || total > u64::from(LIMITS.max_variable_group_invocations) {
            return Err(GlError::InvalidValue);
        }
    }
    Ok(size)
}

#[allow(clippy::too_many_arguments)]
fn dispatch_checked(
    prog: &Program,
    plan: &ExecPlan,
    mems: &[Mem],
    vis: &visibility::Visibility,
    local: &[u8],
    envp: &[u8],
    default_uniforms: &[u8],
    launch: Launch,
    cfg: RunCfg,
    step_index: u64,
    flags: &mut FlagSet,
    trace: &mut Vec<String>,
) -> Result<GlError, Refusal> {
    let group_size = match launch_size(prog, launch) {
        Ok(size) => size,
        Err(e) => return Ok(e),
    };
    let groups = launch.groups;
    if groups.contains(&0) {
        return Ok(GlError::NoError);
    }
    let mut storage = Vec::new();
    let mut counters = Vec::new();
    let mut uniform = Vec::new();
    let mut param_buf = Vec::new();
    let mut images = Vec::new();
    let mut textures = Vec::new();
    let mut unseen = Vec::new();
    for (k, (b, m)) in plan.buffers.iter().zip(mems).enumerate() {
        if let Some(t) = vis.get(k) {
            unseen.push((b.binding, t));
        }
        match (b.kind, m) {
            (BufferKind::Texture(desc), Mem::ReadOnly(r)) => textures.push(texture::Bound {
                unit: b.binding,
                desc,
                texels: r.as_slice(),
            }),
            (BufferKind::Image(desc), Mem::Global(texels)) => images.push(image::Bound {
                unit: b.binding,
                desc,
                texels,
            }),
            (BufferKind::Storage, Mem::Global(g)) => storage.push((b.binding, g)),
            (BufferKind::AtomicCounter, Mem::Global(g)) => counters.push((b.binding, g)),
            (BufferKind::Uniform, Mem::ReadOnly(r)) => uniform.push((b.binding, r.as_slice())),
            (BufferKind::ParameterBuffer, Mem::ReadOnly(r)) => {
                param_buf.push((b.binding, r.as_slice()))
            }
            _ => {}
        }
    }
    // ARB_shader_storage_buffer_object section 2.14.X: "If any active shader storage block
    // is not backed by a sufficiently large buffer object, the results of shader execution
    // are undefined" (the whole dispatch, not only the accesses past the end).
    for blk in &prog.storage_blocks {
        let have = storage
            .iter()
            .find(|(b, _)| *b == blk.binding)
            .map(|(_, g)| g.len());
        if have.is_some_and(|n| n >= blk.min_size as usize) {
            continue;
        }
        let what = match have {
            Some(n) => format!("the buffer bound there has {n}"),
            None => "no buffer is bound there".to_string(),
        };
        flags.add(
            FlagKind::OutOfBounds,
            format!(
                "dispatch {step_index}: the storage block `{}` at binding {} needs {} bytes and {what} (ARB_shader_storage_buffer_object section 2.14.X: the results of the dispatch are undefined)",
                blk.name, blk.binding, blk.min_size
            ),
        );
    }
    let env = Env {
        prog,
        storage,
        counters,
        uniform,
        param_buf,
        images,
        textures,
        local,
        default_uniforms,
        env: envp,
        group_count: groups,
        group_size,
        reading: cfg.reading,
        bug: cfg.bug,
        budget: cfg.budget,
        schedule: cfg.schedule,
        subgroup_size: cfg.subgroup_size,
        trace_target: cfg.trace,
        uninit_fill: cfg.uninit_fill,
        clock_base: step_index << 40,
        unseen,
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
    let gs = env.group_size;
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
            Schedule::InOrder | Schedule::Lockstep => k,
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
        if env.prog.uses.storage_read_write {
            ge.cross.enable();
        }
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
        Q::MaxComputeVariableGroupSizeArb => indexed(LIMITS.max_variable_group_size),
        Q::MaxComputeVariableGroupInvocationsArb => {
            plain(i64::from(LIMITS.max_variable_group_invocations))
        }
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
