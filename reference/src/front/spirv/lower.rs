//! Lowering of the compute subset of SPIR-V into the reference IR.
//!
//! Values: scalars and vectors live in one register each (lane i in component i); structs and
//! arrays are lists of values; pointers are compile-time (space, constant byte offset, optional
//! dynamic byte-offset register, pointee type).
//!
//! This root holds the [`Lowerer`] (the state of one lowering), [`LowerError`], the value and
//! pointer representation (`Val`, `Ptr`), the context of one function copy (`Fcx`), the
//! limits, the error helpers, `cu32` (the interned register of a 32-bit constant) and
//! [`Lowerer::lower`]: the entry point and specialization checks, the work group size, the
//! Private initializers, the function copies and the checks of the finished program. The rest
//! is by concern:
//!
//! - `types`: types as IR scalar types and lanes, and the byte layout of memory objects;
//! - `values`: operands, results, and register values shaped like a type (fresh, zero, copies);
//! - `constants`: constants and spec constants (SpecId overrides, OpSpecConstantOp folding);
//! - `variables`: global and Function variables, built-ins, addresses, access chains, loads and
//!   stores;
//! - `func`: function copies (one per call site) and OpFunctionCall;
//! - `flow`: structured control flow (blocks, phis, selections, switches, loops, their exits);
//! - `inst`: the dispatch of one instruction by opcode; arithmetic, logic, comparisons and
//!   conversions;
//! - `composite`: composite construct / extract / insert and the matrix operations;
//! - `glsl_std450`: the GLSL.std.450 extended instructions;
//! - `atomic`: the atomic instructions;
//! - `subgroup`: the non-uniform group instructions (OpGroupNonUniform*, KHR_shader_subgroup)
//!   and OpControlBarrier with Subgroup execution scope;
//! - `image`: storage images (image variables, reads, writes, size queries, texel atomics).

mod atomic;
mod composite;
mod constants;
mod flow;
mod func;
mod glsl_std450;
mod image;
mod inst;
mod subgroup;
mod types;
mod uniforms;
mod values;
mod variables;

use super::module::{id_at, lit_at, Info};
use crate::ir::{Builder, Builtin, Function, Inst, Program, Reg, Space};
use crate::{Diagnostic, LIMITS};
use conform_plan::BuildStage;
use rspirv::dr::{Block, Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, ExecutionMode, ExecutionModel, Word};
use std::collections::HashMap;

/// Per-invocation private memory the reference gives one program (Private + Function objects).
pub const MAX_PRIVATE_BYTES: u64 = 64 * 1024;
/// Most blocks emitted for one function copy (guards against code blow-up).
const MAX_BLOCK_EMISSIONS: u32 = 200_000;
/// Most function copies (calls are expanded per call site).
const MAX_FUNCTION_COPIES: usize = 4096;
/// Most IR instructions / registers one program may lower to (composites are expanded).
const MAX_CODE: usize = 1 << 20;
/// Most register-file bytes one work group may need (registers are per invocation).
const MAX_GROUP_REG_BYTES: u64 = 256 << 20;
/// Deepest nesting of structured constructs lowered.
const MAX_NESTING: u32 = 128;

/// Why the lowering stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LowerError {
    /// The module is valid but uses something the reference does not model: a refusal.
    Unsupported(Diagnostic),
    /// The module breaks a GL rule checked after validation: glSpecializeShader (unknown entry
    /// point or SpecId, not a GLCompute entry point: `Validate`) or a limit (work group size,
    /// shared memory: `Link`).
    Rejected(BuildStage, Diagnostic),
    /// The lowering produced IR that breaks the IR's invariants (a bug in the reference).
    Internal(String),
}

impl From<Diagnostic> for LowerError {
    fn from(d: Diagnostic) -> Self {
        LowerError::Unsupported(d)
    }
}

type R<T> = Result<T, LowerError>;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Base {
    Mem(Space),
    Builtin(Builtin),
}

#[derive(Clone, Debug, PartialEq)]
struct Ptr {
    base: Base,
    off: u64,
    dynoff: Option<Reg>,
    /// Pointee type.
    ty: Word,
    /// Column stride of a matrix pointee from the enclosing member's MatrixStride (natural
    /// when None).
    mstride: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
enum Val {
    R(Reg),
    C(Vec<Val>),
    P(Ptr),
}

struct FuncInfo<'m> {
    def: &'m Instruction,
    params: Vec<Word>,
    blocks: Vec<&'m Block>,
    index: HashMap<Word, usize>,
}

struct Fcx {
    func: usize,
    vals: HashMap<Word, Val>,
    ret: Option<Val>,
    phis: HashMap<Word, Val>,
    emitted: u32,
    depth: u32,
    /// Current nesting of constructs (bounded so deep nesting is an error, not a stack overflow).
    nest: u32,
}

struct Pending {
    call_pc: u32,
    func: usize,
    args: Vec<Val>,
    ret: Option<Val>,
    depth: u32,
}

pub struct Lowerer<'a, 'm> {
    info: &'a mut Info<'m>,
    b: Builder,
    /// Constant values: scalars one entry, vectors one per lane.
    consts: HashMap<Word, Vec<u64>>,
    globals: HashMap<Word, Val>,
    /// The registers of scalar and vector OpUndef values, with their lanes: 0, marked
    /// undefined at the start of the program (flagged where used).
    undefs: Vec<(Reg, u8)>,
    /// The register `values::undefined_val` builds a Function variable's first value from.
    undef_fill: Reg,
    funcs: Vec<FuncInfo<'m>>,
    func_index: HashMap<Word, usize>,
    pending: Vec<Pending>,
    shared_size: u64,
    private_size: u64,
    ext_glsl: Option<Word>,
    spec: HashMap<u32, u32>,
    functions: Vec<Function>,
    /// Flags set by some emitted jump (switch propagation flags, loop break flags).
    used_pends: std::collections::HashSet<Reg>,
    /// What the plan that runs the module binds and does.
    facts: PlanFacts,
    /// Variables of opaque types (images, sampled images, samplers) and the results of loading
    /// them: the reference does not model them, so an instruction that uses one is refused.
    opaque: std::collections::HashSet<Word>,
    /// End of the default uniforms placed so far in `Space::DefaultUniform` (bytes).
    uniform_top: u64,
    /// The default uniforms' slots, for `Program::uniforms` (`uniforms.rs`).
    uniform_slots: Vec<crate::ir::UniformSlot>,
    /// The default uniforms' initial bytes (`Program::uniform_init`).
    uniform_init: Vec<u8>,
    /// What glGetProgramiv(ACTIVE_UNIFORMS) counts (`uniforms.rs`).
    active: crate::front::active::ActiveUniforms<Word>,
    /// Storage image variables and the results of loading them.
    images: HashMap<Word, image::ImageRef>,
    /// The results of OpImageTexelPointer: the image and the coordinates' register.
    texel_ptrs: HashMap<Word, (image::ImageRef, Reg)>,
    /// Why the code of a link-only plan was not lowered (see [`PlanFacts::link_only`]).
    pub unexecuted: Option<Diagnostic>,
}

/// What the lowering needs to know about the plan that runs the module.
#[derive(Clone, Debug, Default)]
pub struct PlanFacts {
    /// Byte size of the storage buffer bound at each binding (None: built without a plan).
    pub storage_sizes: Option<HashMap<u32, u64>>,
    /// No step of the plan runs the program (no dispatch): only what glSpecializeShader and
    /// glLinkProgram decide matters, so code the reference does not model (images, ...) does
    /// not stop the build; the executable is then empty and `Lowerer::unexecuted` says why.
    pub link_only: bool,
}

fn diag(line: u32, message: String) -> Diagnostic {
    Diagnostic {
        line,
        column: 1,
        message,
    }
}

fn align_up(v: u64, a: u64) -> u64 {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a).saturating_mul(a)
    }
}

impl<'a, 'm> Lowerer<'a, 'm> {
    pub fn new(info: &'a mut Info<'m>, specialization: &[(u32, u32)], facts: PlanFacts) -> Self {
        Lowerer {
            info,
            b: Builder::new(),
            consts: HashMap::new(),
            undefs: Vec::new(),
            undef_fill: Reg(0),
            globals: HashMap::new(),
            funcs: Vec::new(),
            func_index: HashMap::new(),
            pending: Vec::new(),
            shared_size: 0,
            private_size: 0,
            ext_glsl: None,
            spec: specialization.iter().copied().collect(),
            functions: Vec::new(),
            used_pends: Default::default(),
            facts,
            opaque: Default::default(),
            uniform_top: 0,
            uniform_slots: Vec::new(),
            uniform_init: Vec::new(),
            active: Default::default(),
            images: HashMap::new(),
            texel_ptrs: HashMap::new(),
            unexecuted: None,
        }
    }

    fn at(&self, inst: &Instruction, msg: impl Into<String>) -> Diagnostic {
        diag(
            self.info.line(inst),
            format!("{} ({})", msg.into(), self.info.where_(inst)),
        )
    }

    /// Stops the lowering: the module leaves the reference's subset.
    fn err<T>(&self, inst: &Instruction, msg: impl Into<String>) -> R<T> {
        Err(LowerError::Unsupported(self.at(inst, msg)))
    }

    /// Stops the lowering: the module breaks a GL rule and fails at `stage`.
    fn rejected<T>(&self, stage: BuildStage, inst: &Instruction, msg: impl Into<String>) -> R<T> {
        Err(LowerError::Rejected(stage, self.at(inst, msg)))
    }

    fn unsupported<T>(&self, inst: &Instruction, what: &str) -> R<T> {
        self.err(
            inst,
            format!(
                "Op{:?} is not supported by the reference's SPIR-V front end{what}",
                inst.class.opcode
            ),
        )
    }

    fn too_big(&self) -> bool {
        self.b.code.len() > MAX_CODE || self.b.reg_init.len() > MAX_CODE
    }

    /// The interned register holding the 32-bit constant `v` in lane x.
    fn cu32(&mut self, v: u64) -> Reg {
        self.b.interned_constant([v & 0xffff_ffff, 0, 0, 0])
    }

    /// Lowers the module's entry point `entry_name`. The error says whether the module breaks
    /// a GL rule ([`LowerError::Rejected`]: glSpecializeShader at the validate stage, a limit at
    /// the link stage) or leaves the reference's subset ([`LowerError::Unsupported`]).
    pub fn lower(&mut self, entry_name: &str) -> R<Program> {
        let module = self.info.module;
        let want = if entry_name.is_empty() {
            "main"
        } else {
            entry_name
        };
        let ep = module
            .entry_points
            .iter()
            .find(|e| matches!(e.operands.get(2), Some(Operand::LiteralString(s)) if s == want));
        let Some(ep) = ep else {
            return Err(LowerError::Rejected(
                BuildStage::Validate,
                diag(
                1,
                format!("the module has no entry point named \"{want}\" (glSpecializeShader: INVALID_VALUE)"),
            )));
        };
        let spec_ids: std::collections::HashSet<u32> = self
            .info
            .decos
            .values()
            .flatten()
            .filter(|d| d.deco == Decoration::SpecId)
            .filter_map(|d| match d.args.first() {
                Some(Operand::LiteralBit32(v)) => Some(*v),
                _ => None,
            })
            .collect();
        let mut unknown: Vec<u32> = self
            .spec
            .keys()
            .filter(|k| !spec_ids.contains(k))
            .copied()
            .collect();
        unknown.sort_unstable();
        if let Some(k) = unknown.first() {
            return Err(LowerError::Rejected(
                BuildStage::Validate,
                diag(
                1,
                format!("specialization constant {k} does not exist in the module (glSpecializeShader: INVALID_VALUE)"),
            )));
        }
        if !matches!(
            ep.operands.first(),
            Some(Operand::ExecutionModel(ExecutionModel::GLCompute))
        ) {
            return self.rejected(
                BuildStage::Validate,
                ep,
                format!("entry point \"{want}\" is not a GLCompute entry point"),
            );
        }
        let entry_fn = id_at(ep, 1).unwrap_or(0);
        for e in &module.ext_inst_imports {
            if matches!(e.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450")
            {
                self.ext_glsl = e.result_id;
            }
        }
        for f in &module.functions {
            let Some(def) = f.def.as_ref() else { continue };
            let Some(fid) = def.result_id else { continue };
            let blocks: Vec<&Block> = f.blocks.iter().collect();
            let index = blocks
                .iter()
                .enumerate()
                .filter_map(|(i, b)| b.label.as_ref()?.result_id.map(|l| (l, i)))
                .collect();
            self.func_index.insert(fid, self.funcs.len());
            self.funcs.push(FuncInfo {
                def,
                params: f.parameters.iter().filter_map(|p| p.result_id).collect(),
                blocks,
                index,
            });
        }
        self.lower_constants()?;
        let mut private_inits = Vec::new();
        self.lower_globals(&mut private_inits)?;

        // Work group size: LocalSize / LocalSizeId, overridden by a WorkgroupSize constant.
        let mut group_size = None;
        for em in &module.execution_modes {
            if id_at(em, 0) != Some(entry_fn) {
                continue;
            }
            match em.operands.get(1) {
                Some(Operand::ExecutionMode(ExecutionMode::LocalSize)) => {
                    group_size = Some([
                        lit_at(em, 2).unwrap_or(1),
                        lit_at(em, 3).unwrap_or(1),
                        lit_at(em, 4).unwrap_or(1),
                    ]);
                }
                Some(Operand::ExecutionMode(ExecutionMode::LocalSizeId)) => {
                    let mut g = [1u32; 3];
                    for (k, gk) in g.iter_mut().enumerate() {
                        let id = id_at(em, 2 + k).unwrap_or(0);
                        *gk = self
                            .consts
                            .get(&id)
                            .and_then(|v| v.first().copied())
                            .unwrap_or(1) as u32;
                    }
                    group_size = Some(g);
                }
                _ => {}
            }
        }
        for (id, v) in &self.consts {
            let is_wgs = self.info.decos.get(id).is_some_and(|d| {
                d.iter().any(|x| {
                    x.deco == Decoration::BuiltIn
                        && matches!(
                            x.args.first(),
                            Some(Operand::BuiltIn(BuiltIn::WorkgroupSize))
                        )
                })
            });
            if is_wgs && v.len() == 3 {
                group_size = Some([v[0] as u32, v[1] as u32, v[2] as u32]);
            }
        }
        let Some(group_size) = group_size else {
            return self.err(ep, "the entry point has no LocalSize execution mode");
        };
        let inv = group_size.iter().map(|g| u64::from(*g)).product::<u64>();
        if group_size.contains(&0)
            || group_size
                .iter()
                .zip(LIMITS.max_work_group_size)
                .any(|(g, m)| *g > m)
            || inv > u64::from(LIMITS.max_work_group_invocations)
        {
            return self.rejected(
                BuildStage::Link,
                ep,
                format!(
                    "work group size {group_size:?} is zero or above the limits (MAX_COMPUTE_WORK_GROUP_SIZE {:?}, MAX_COMPUTE_WORK_GROUP_INVOCATIONS {})",
                    LIMITS.max_work_group_size, LIMITS.max_work_group_invocations
                ),
            );
        }

        let Some(&entry_idx) = self.func_index.get(&entry_fn) else {
            return self.err(ep, "the entry point's function is not defined");
        };
        match self.emit_code(ep, want, entry_idx, private_inits) {
            Err(LowerError::Unsupported(d)) if self.facts.link_only => {
                // Nothing runs the program: an empty executable that ends at once.
                self.b = Builder::new();
                self.functions = vec![Function {
                    name: want.to_string(),
                    start_pc: 0,
                }];
                self.b.push(Inst::Exit);
                self.unexecuted = Some(d);
            }
            r => r?,
        }
        let reg_bytes = self.b.reg_init.len() as u64 * 32 * inv;
        if reg_bytes > MAX_GROUP_REG_BYTES {
            return self.err(
                ep,
                format!(
                    "the lowered program needs {} MiB of registers per work group, more than the reference's {} MiB",
                    reg_bytes >> 20,
                    MAX_GROUP_REG_BYTES >> 20
                ),
            );
        }
        let b = std::mem::take(&mut self.b);
        let mut prog = Program {
            code: b.code,
            locs: b.locs,
            entry_pc: 0,
            functions: std::mem::take(&mut self.functions),
            reg_init: b.reg_init,
            group_size,
            variable_group_size: false,
            shared_size: self.shared_size as u32,
            private_size: self.private_size as u32,
            uses: Default::default(),
            uniforms: std::mem::take(&mut self.uniform_slots),
            uniform_init: std::mem::take(&mut self.uniform_init),
            active_uniforms: self.active.count(),
            nan_undefined: true,
            storage_blocks: Vec::new(),
            aligned_access: false,
        };
        prog.compute_uses();
        if let Err(e) = prog.validate() {
            return Err(LowerError::Internal(format!(
                "the SPIR-V lowering produced an invalid program: {e}"
            )));
        }
        Ok(prog)
    }

    /// The code: the Private initializers, then the entry function `entry_idx` and the copies
    /// of the functions it calls.
    fn emit_code(
        &mut self,
        ep: &Instruction,
        want: &str,
        entry_idx: usize,
        private_inits: Vec<(Ptr, Word, Option<Word>)>,
    ) -> R<()> {
        for (p, ty, init) in private_inits {
            let v = match init {
                Some(init) => match self.globals.get(&init).cloned() {
                    Some(v) => v,
                    None => return self.err(ep, "Private variable initializer is not a constant"),
                },
                // SPIR-V leaves a Private variable without an initializer undefined until
                // written: 0, marked (flagged where a load of it is used).
                None => match self.undefined_val(ty) {
                    Some(v) => v,
                    None => continue,
                },
            };
            self.store(ep, &p, &v, 0)?;
        }
        let all = self.b.interned_constant([1; 4]);
        for (r, lanes) in std::mem::take(&mut self.undefs) {
            self.b
                .mark_undefined(lanes, r, all, crate::ir::UndefinedRule::UninitializedValue);
        }
        self.functions.push(Function {
            name: want.to_string(),
            start_pc: 0,
        });
        self.emit_function(entry_idx, Vec::new(), None, 0)?;
        while let Some(p) = self.pending.pop() {
            if self.functions.len() > MAX_FUNCTION_COPIES {
                return Err(LowerError::Unsupported(diag(
                    1,
                    "too many function calls to expand (more than the reference's limit)".into(),
                )));
            }
            let start = self.b.pc();
            if let Some(Inst::Call { target_pc }) = self.b.code.get_mut(p.call_pc as usize) {
                *target_pc = start;
            }
            let name = self.funcs[p.func]
                .def
                .result_id
                .map(|i| format!("%{i}"))
                .unwrap_or_default();
            self.functions.push(Function {
                name,
                start_pc: start,
            });
            self.emit_function(p.func, p.args, p.ret, p.depth)?;
        }
        Ok(())
    }
}
