//! Program tree → SPIR-V assembly (SPIR-V 1.0 for OpenGL, ARB_gl_spirv: storage buffers are
//! `Uniform` structs decorated `BufferBlock`, one per block at its binding; SPIR-V 1.3,
//! KHR_shader_subgroup, with subgroup blocks, spelled by `crate::features::subgroup::spirv`).
//!
//! Every value is a 32-bit `%uint` (or `%int` for signed atomics' words); signed operations
//! use the signed opcodes on the same bits (`OpSDiv`, `OpSLessThan`, `OpShiftRightArithmetic`,
//! GLSL.std.450 `SMin`), which SPIR-V allows on any integer type of the same width. Compute
//! variables and loop indices are `Function` variables; control flow is structured
//! (`OpSelectionMerge`, `OpLoopMerge`). `spirv-val` (SPIRV-Tools, through the reference's
//! assembler) validates every module before anything runs. A few trees have no SPIR-V form
//! the reference models: [`expressible`] says which.

use crate::ast::*;
use crate::emitters::glsl::Emitted;
use crate::emitters::spell::float_text;
use crate::oracles::model::{atomic_finals, quarters};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Why `p` has no SPIR-V form (shuffles: SPIR-V has no NV shuffle; IWRAP/DWRAP), or `Ok` when
/// it has one.
pub fn expressible(p: &Program) -> Result<(), String> {
    if p.needs_shuffle() {
        return Err("SPIR-V has no NV_shader_thread_shuffle".into());
    }
    for b in &p.blocks {
        match b {
            Block::Atomic(a) if a.op.nvasm_only() => {
                return Err(format!("{} exists in NV assembly only", a.op.name()));
            }
            Block::Narrow(_) => {
                return Err("no driver here lists SPV_KHR_8bit_storage or 16bit_storage".into())
            }
            _ => {}
        }
    }
    Ok(())
}

/// The module of `p`, which must satisfy [`Program::check`] and [`expressible`].
pub fn emit(p: &Program) -> Emitted {
    let mut s = Spv {
        shaped: p.shape.map(|sh| (sh.groups, p.local_size)),
        ids: p.reads_id_components(),
        wide: p.uses_wide(),
        ..Spv::default()
    };
    s.builtins("");
    let mut decorations = String::new();
    for (k, b) in p.blocks.iter().enumerate() {
        let buf = match b {
            Block::Atomic(a) if a.ty == AtomTy::S32 => "BufI",
            Block::AtomicMix(m) if m.ty == AtomTy::S32 => "BufI",
            Block::FloatAtomic(_) => "BufF",
            _ => "BufU",
        };
        let _ = writeln!(s.globals, "%b{k} = OpVariable %ptr_{buf} Uniform");
        let _ = writeln!(decorations, "OpDecorate %b{k} DescriptorSet 0");
        let _ = writeln!(decorations, "OpDecorate %b{k} Binding {k}");
        s.comment(&format!("block {k}: {}", b.feature()));
        match b {
            Block::Atomic(a) => atomic(&mut s, k, a, p),
            Block::Section(x) => section(&mut s, k, x),
            Block::Exchange(x) => exchange(&mut s, k, x, p),
            Block::Compute(c) => compute(&mut s, k, c),
            Block::FloatAtomic(f) => float_atomic(&mut s, k, f, p),
            Block::Undefined(u) => undefined(&mut s, k, u, p),
            Block::Vector(v) => {
                let sp = crate::features::vector::spirv(k, v);
                sp.consts.iter().for_each(|&c| drop(s.cu(c)));
                if !s.globals.contains(crate::features::vector::SPIRV_TYPE) {
                    s.globals.push_str(crate::features::vector::SPIRV_TYPE);
                }
                sp.lines.iter().for_each(|l| s.line(l));
            }
            Block::AtomicMix(m) => atomic_mix(&mut s, k, m),
            Block::Shuffle(_) => unreachable!("expressible() keeps shuffles out of SPIR-V"),
            Block::Narrow(_) => unreachable!("expressible() keeps 8- and 16-bit storage out"),
            Block::Subgroup(b) => crate::features::subgroup::spirv::emit(&mut s, k, b, p),
        }
    }
    let subgroups = crate::features::subgroup::spirv::has_blocks(p);
    let mut text = String::from(if subgroups {
        "; SPIR-V 1.3 for OpenGL (ARB_gl_spirv, KHR_shader_subgroup), written by conform's \
         fuzzer\n"
    } else {
        "; SPIR-V 1.0 for OpenGL (ARB_gl_spirv), written by conform's fuzzer\n"
    });
    text.push_str("OpCapability Shader\n");
    text.push_str(&crate::features::subgroup::spirv::capabilities(p));
    if p.uses_wide() {
        text.push_str(crate::features::wide::SPIRV_CAPABILITY);
    }
    if p.has_float_atomics() {
        text.push_str(
            "OpCapability AtomicFloat32AddEXT\n\
             OpExtension \"SPV_EXT_shader_atomic_float_add\"\n",
        );
    }
    text.push_str(
        "%glsl = OpExtInstImport \"GLSL.std.450\"\n\
         OpMemoryModel Logical GLSL450\n\
         OpEntryPoint GLCompute %main \"main\" %in_lid %in_gid %in_wg %in_lid3",
    );
    if subgroups {
        text.push_str(crate::features::subgroup::spirv::INTERFACE);
    }
    text.push('\n');
    let [x, y, z] = p.local_dims();
    let _ = writeln!(text, "OpExecutionMode %main LocalSize {x} {y} {z}");
    text.push_str(
        "OpDecorate %in_lid BuiltIn LocalInvocationIndex\n\
         OpDecorate %in_gid BuiltIn GlobalInvocationId\n\
         OpDecorate %in_wg BuiltIn WorkgroupId\n\
         OpDecorate %in_lid3 BuiltIn LocalInvocationId\n\
         OpDecorate %arr_uint ArrayStride 4\n\
         OpDecorate %arr_int ArrayStride 4\n\
         OpDecorate %arr_float ArrayStride 4\n\
         OpMemberDecorate %BufF 0 Offset 0\n\
         OpDecorate %BufF BufferBlock\n\
         OpMemberDecorate %BufU 0 Offset 0\n\
         OpDecorate %BufU BufferBlock\n\
         OpMemberDecorate %BufI 0 Offset 0\n\
         OpDecorate %BufI BufferBlock\n",
    );
    if subgroups {
        text.push_str(crate::features::subgroup::spirv::DECORATIONS);
    }
    text.push_str(&decorations);
    text.push_str(
        "%void = OpTypeVoid\n\
         %fn_void = OpTypeFunction %void\n\
         %bool = OpTypeBool\n\
         %uint = OpTypeInt 32 0\n\
         %int = OpTypeInt 32 1\n\
         %float = OpTypeFloat 32\n\
         %v3uint = OpTypeVector %uint 3\n\
         %ptr_in_uint = OpTypePointer Input %uint\n\
         %ptr_in_v3 = OpTypePointer Input %v3uint\n\
         %in_lid = OpVariable %ptr_in_uint Input\n\
         %in_gid = OpVariable %ptr_in_v3 Input\n\
         %in_wg = OpVariable %ptr_in_v3 Input\n\
         %in_lid3 = OpVariable %ptr_in_v3 Input\n\
         %arr_uint = OpTypeRuntimeArray %uint\n\
         %arr_int = OpTypeRuntimeArray %int\n\
         %arr_float = OpTypeRuntimeArray %float\n\
         %BufF = OpTypeStruct %arr_float\n\
         %ptr_BufF = OpTypePointer Uniform %BufF\n\
         %ptr_u_float = OpTypePointer Uniform %float\n\
         %ptr_wg_float = OpTypePointer Workgroup %float\n\
         %BufU = OpTypeStruct %arr_uint\n\
         %BufI = OpTypeStruct %arr_int\n\
         %ptr_BufU = OpTypePointer Uniform %BufU\n\
         %ptr_BufI = OpTypePointer Uniform %BufI\n\
         %ptr_u_uint = OpTypePointer Uniform %uint\n\
         %ptr_u_int = OpTypePointer Uniform %int\n\
         %ptr_wg_uint = OpTypePointer Workgroup %uint\n\
         %ptr_wg_int = OpTypePointer Workgroup %int\n\
         %ptr_fn_uint = OpTypePointer Function %uint\n\
         %fn_call = OpTypeFunction %void %ptr_fn_uint %ptr_fn_uint %ptr_fn_uint %ptr_fn_uint\n",
    );
    if p.uses_wide() {
        text.push_str(crate::features::wide::SPIRV_DECLS);
    }
    if subgroups {
        text.push_str(crate::features::subgroup::spirv::VARIABLES);
    }
    let floats: BTreeSet<u32> = s
        .floats
        .iter()
        .map(|&q| quarters(i64::from(q)))
        .chain(s.float_bits.iter().copied())
        .collect();
    for bits in floats {
        let _ = writeln!(text, "%cf{bits} = OpConstant %float {}", float_text(bits));
    }
    for &(signed, v) in &s.consts {
        if signed {
            let _ = writeln!(text, "%ci{v} = OpConstant %int {}", v as i32);
        } else {
            let _ = writeln!(text, "%cu{v} = OpConstant %uint {v}");
        }
    }
    text.push_str(&s.globals);
    text.push_str("%main = OpFunction %void None %fn_void\n%entry = OpLabel\n");
    text.push_str(&s.vars);
    text.push_str(&s.body);
    text.push_str("OpReturn\nOpFunctionEnd\n");
    s.functions.iter().for_each(|f| text.push_str(f));
    Emitted {
        text,
        instructions: s.instructions,
    }
}

#[derive(Default)]
struct Spv {
    body: String,
    /// Function-scope variables (they must open the first block).
    vars: String,
    /// Module-scope variables and the types only they use.
    globals: String,
    /// Constants used: (signed, bits).
    consts: BTreeSet<(bool, u32)>,
    /// Float constants used, in quarters.
    floats: BTreeSet<i32>,
    /// Other float constants used, as f32 bits.
    float_bits: BTreeSet<u32>,
    /// Workgroup array lengths whose types are declared.
    arrays: BTreeSet<u32>,
    /// The merge and continue labels of the loops around the statement being emitted.
    loops: Vec<(String, String)>,
    /// The functions compute blocks call (`%fz<i>`).
    functions: Vec<String>,
    /// A shaped program's dispatch and group size.
    shaped: Option<([u32; 3], u32)>,
    /// Whether the program reads components of the local or group ID.
    ids: bool,
    /// Whether `%wide_product`, the result type of OpUMulExtended/OpSMulExtended, is declared.
    wide_product: bool,
    /// Whether the module declares wide's types (`features::wide::SPIRV_DECLS`).
    wide: bool,
    next: usize,
    instructions: usize,
}

/// Scopes and memory semantics (SPIR-V 3.27, 3.25).
const DEVICE: u32 = 1;
const WORKGROUP: u32 = 2;
const RELAXED: u32 = 0;
/// AcquireRelease | WorkgroupMemory: what glslang gives GLSL's `barrier()` in compute.
const BARRIER_SEMANTICS: u32 = 0x108;

impl crate::features::wide::SpvSink for Spv {
    fn val(&mut self, rhs: &str) -> String {
        Spv::val(self, rhs)
    }

    fn cu(&mut self, v: u32) -> String {
        Spv::cu(self, v)
    }
}

impl crate::features::subgroup::spirv::Sink for Spv {
    fn val(&mut self, rhs: &str) -> String {
        Spv::val(self, rhs)
    }

    fn line(&mut self, s: &str) {
        Spv::line(self, s)
    }

    fn label_id(&mut self) -> String {
        Spv::label_id(self)
    }

    fn cu(&mut self, v: u32) -> String {
        Spv::cu(self, v)
    }

    fn cf(&mut self, v: f32) -> String {
        Spv::cf(self, v)
    }

    fn declare(&mut self, decl: &str) {
        let declared = self.wide && crate::features::wide::SPIRV_DECLS.contains(decl.trim_end());
        if !declared && !self.globals.contains(decl) {
            self.globals.push_str(decl);
        }
    }
}

impl Spv {
    fn line(&mut self, s: &str) {
        self.body.push_str(s);
        self.body.push('\n');
        if !s.contains("OpLabel") {
            self.instructions += 1;
        }
    }

    fn comment(&mut self, s: &str) {
        let _ = writeln!(self.body, "; {s}");
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%t{}", self.next)
    }

    /// A fresh id holding `rhs` (`OpIAdd %uint %a %b`).
    fn val(&mut self, rhs: &str) -> String {
        let id = self.fresh();
        self.line(&format!("{id} = {rhs}"));
        id
    }

    fn cu(&mut self, v: u32) -> String {
        self.consts.insert((false, v));
        format!("%cu{v}")
    }

    /// The `%float` constant `v`.
    fn cf(&mut self, v: f32) -> String {
        self.float_bits.insert(v.to_bits());
        format!("%cf{}", v.to_bits())
    }

    /// A float expression as a `%float` id.
    fn fexpr(&mut self, f: &FExpr, env: &ExprEnv) -> String {
        match f {
            FExpr::Int(l) => {
                let v = self.expr(&l.value, env);
                let (zero, n) = (self.cu(0), self.cu(u32::from(l.bits)));
                let (extract, convert) = if l.signed {
                    ("OpBitFieldSExtract", "OpConvertSToF")
                } else {
                    ("OpBitFieldUExtract", "OpConvertUToF")
                };
                let e = self.val(&format!("{extract} %uint {v} {zero} {n}"));
                let f = self.val(&format!("{convert} %float {e}"));
                if l.scale == 0 {
                    return f;
                }
                let p = self.cf(2f32.powi(i32::from(l.scale)));
                self.val(&format!("OpFMul %float {f} {p}"))
            }
            FExpr::Bin(op, a, b) => {
                let (a, b) = (self.fexpr(a, env), self.fexpr(b, env));
                let name = match op {
                    FOp::Add => "OpFAdd",
                    FOp::Sub => "OpFSub",
                    FOp::Mul => "OpFMul",
                };
                self.val(&format!("{name} %float {a} {b}"))
            }
            FExpr::Fma(a, b, c) => {
                let (a, b, c) = (self.fexpr(a, env), self.fexpr(b, env), self.fexpr(c, env));
                self.val(&format!("OpExtInst %float %glsl Fma {a} {b} {c}"))
            }
            FExpr::Sat(a) => {
                let a = self.fexpr(a, env);
                let (zero, one) = (self.cf(0.0), self.cf(1.0));
                self.val(&format!("OpExtInst %float %glsl FClamp {a} {zero} {one}"))
            }
        }
    }

    /// A float rounded and converted to `to`, as a `%uint`: `OpConvertFToS` (defined in
    /// range, which `FExpr::exact` guarantees) of the rounded value, then the narrowing or
    /// clamp in integer operations; a saturated `U32` converts the clamped float with
    /// `OpConvertFToU`.
    fn f_to_i(
        &mut self,
        value: &FExpr,
        round: Round,
        to: IntTy,
        sat: bool,
        env: &ExprEnv,
    ) -> String {
        let f = self.fexpr(value, env);
        let rounded = match round {
            Round::Trunc => f,
            Round::Floor => self.val(&format!("OpExtInst %float %glsl Floor {f}")),
            Round::Ceil => self.val(&format!("OpExtInst %float %glsl Ceil {f}")),
            Round::Even => self.val(&format!("OpExtInst %float %glsl RoundEven {f}")),
        };
        if to == IntTy::U32 && sat {
            let zero = self.cf(0.0);
            let c = self.val(&format!("OpExtInst %float %glsl FMax {rounded} {zero}"));
            return self.val(&format!("OpConvertFToU %uint {c}"));
        }
        let i = self.val(&format!("OpConvertFToS %uint {rounded}"));
        let (lo, hi) = to.range();
        match (to, sat) {
            (IntTy::S32, _) | (IntTy::U32, _) => i,
            (_, true) => {
                let (lo, hi) = (self.cu(lo as u32), self.cu(hi as u32));
                self.val(&format!("OpExtInst %uint %glsl SClamp {i} {lo} {hi}"))
            }
            (IntTy::S16 | IntTy::S8, false) => {
                let (zero, n) = (self.cu(0), self.cu(to.bits()));
                self.val(&format!("OpBitFieldSExtract %uint {i} {zero} {n}"))
            }
            (_, false) => {
                let mask = self.cu(hi as u32);
                self.val(&format!("OpBitwiseAnd %uint {i} {mask}"))
            }
        }
    }

    fn ci(&mut self, v: u32) -> String {
        self.consts.insert((true, v));
        format!("%ci{v}")
    }

    /// A `Function` variable named `name` (declared once).
    fn var(&mut self, name: &str) -> String {
        let id = format!("%{name}");
        let decl = format!("{id} = OpVariable %ptr_fn_uint Function\n");
        if !self.vars.contains(&decl) {
            self.vars.push_str(&decl);
        }
        id
    }

    /// The pointer to compute variable `v`: main's `Function` variable, or in a called
    /// function its parameter.
    fn var_of(&mut self, env: &ExprEnv, v: u8) -> String {
        let name = format!("v{}_{}", env.block, v % VARS as u8);
        if env.scope.is_empty() {
            self.var(&name)
        } else {
            format!("%{}{name}", env.scope)
        }
    }

    /// Loads the built-ins of a function whose ids start with `sc`: `%<sc>lid`, `%<sc>gid`
    /// and `%<sc>wg` (linear indices in a shaped program: ast::Shape), and where the program
    /// reads them the components `%<sc>lidc<d>` and `%<sc>wgc<d>`.
    fn builtins(&mut self, sc: &str) {
        self.line(&format!("%{sc}lid = OpLoad %uint %in_lid"));
        match self.shaped {
            None => {
                self.line(&format!("%{sc}gid3 = OpLoad %v3uint %in_gid"));
                self.line(&format!("%{sc}gid = OpCompositeExtract %uint %{sc}gid3 0"));
                self.line(&format!("%{sc}wg3 = OpLoad %v3uint %in_wg"));
                self.line(&format!("%{sc}wg = OpCompositeExtract %uint %{sc}wg3 0"));
            }
            Some(([gx, gy, _], local_size)) => {
                self.line(&format!("%{sc}wg3 = OpLoad %v3uint %in_wg"));
                let c: Vec<String> = (0..3)
                    .map(|d| self.val(&format!("OpCompositeExtract %uint %{sc}wg3 {d}")))
                    .collect();
                let (gx, gy, n) = (self.cu(gx), self.cu(gy), self.cu(local_size));
                let t = self.val(&format!("OpIMul %uint {} {gy}", c[2]));
                let t = self.val(&format!("OpIAdd %uint {t} {}", c[1]));
                let t = self.val(&format!("OpIMul %uint {t} {gx}"));
                self.line(&format!("%{sc}wg = OpIAdd %uint {t} {}", c[0]));
                let t = self.val(&format!("OpIMul %uint %{sc}wg {n}"));
                self.line(&format!("%{sc}gid = OpIAdd %uint {t} %{sc}lid"));
            }
        }
        if self.ids {
            self.line(&format!("%{sc}lid3 = OpLoad %v3uint %in_lid3"));
            for d in 0..3 {
                self.line(&format!(
                    "%{sc}lidc{d} = OpCompositeExtract %uint %{sc}lid3 {d}"
                ));
                self.line(&format!(
                    "%{sc}wgc{d} = OpCompositeExtract %uint %{sc}wg3 {d}"
                ));
            }
        }
    }

    /// A `Workgroup` array of `n` words, `%name`.
    fn shared_array(&mut self, name: &str, n: u32) -> String {
        let len = self.cu(n);
        if self.arrays.insert(n) {
            let _ = writeln!(self.globals, "%arr_wg_{n} = OpTypeArray %uint {len}");
            let _ = writeln!(
                self.globals,
                "%ptr_wg_arr_{n} = OpTypePointer Workgroup %arr_wg_{n}"
            );
        }
        let _ = writeln!(
            self.globals,
            "%{name} = OpVariable %ptr_wg_arr_{n} Workgroup"
        );
        format!("%{name}")
    }

    fn label(&mut self, l: &str) {
        self.line(&format!("{l} = OpLabel"));
    }

    fn label_id(&mut self) -> String {
        self.next += 1;
        format!("%l{}", self.next)
    }

    /// Opens `if (cond)` (a `%bool`); returns the merge label for [`Spv::close_if`].
    fn open_if(&mut self, cond: &str) -> String {
        let (then, merge) = (self.label_id(), self.label_id());
        self.line(&format!("OpSelectionMerge {merge} None"));
        self.line(&format!("OpBranchConditional {cond} {then} {merge}"));
        self.label(&then);
        merge
    }

    fn close_if(&mut self, merge: &str) {
        self.line(&format!("OpBranch {merge}"));
        self.label(merge);
    }

    /// Opens the `if` a block's guard puts around its work for invocation `idx` (none for
    /// `Guard::All`); returns the merge label for [`Spv::close_if`].
    fn open_guard(&mut self, guard: &Guard, idx: &str) -> Option<String> {
        let cond = match *guard {
            Guard::All => return None,
            Guard::Below(n) => {
                let n = self.cu(n);
                self.val(&format!("OpULessThan %bool {idx} {n}"))
            }
            Guard::Every { m, r } => {
                let (m, r) = (self.cu(m), self.cu(r));
                let rem = self.val(&format!("OpUMod %uint {idx} {m}"));
                self.val(&format!("OpIEqual %bool {rem} {r}"))
            }
        };
        Some(self.open_if(&cond))
    }

    /// `if (lid == 0)`.
    fn open_lid0(&mut self) -> String {
        let zero = self.cu(0);
        let c = self.val(&format!("OpIEqual %bool %lid {zero}"));
        self.open_if(&c)
    }

    fn barrier(&mut self) {
        let (wg, sem) = (self.cu(WORKGROUP), self.cu(BARRIER_SEMANTICS));
        self.line(&format!("OpControlBarrier {wg} {wg} {sem}"));
    }

    /// Opens a loop of `n` rounds counting in the function variable `counter`; returns what
    /// [`Spv::close_loop`] needs.
    fn open_loop(&mut self, counter: &str, n: u32) -> OpenLoop {
        let zero = self.cu(0);
        let count = self.cu(n);
        let l = OpenLoop {
            head: self.label_id(),
            cont: self.label_id(),
            merge: self.label_id(),
            counter: counter.to_string(),
        };
        let (check, body) = (self.label_id(), self.label_id());
        self.line(&format!("OpStore {counter} {zero}"));
        self.line(&format!("OpBranch {}", l.head));
        self.label(&l.head);
        self.line(&format!("OpLoopMerge {} {} None", l.merge, l.cont));
        self.line(&format!("OpBranch {check}"));
        self.label(&check);
        let i = self.val(&format!("OpLoad %uint {counter}"));
        let go = self.val(&format!("OpULessThan %bool {i} {count}"));
        self.line(&format!("OpBranchConditional {go} {body} {}", l.merge));
        self.label(&body);
        l
    }

    fn close_loop(&mut self, l: OpenLoop) {
        let one = self.cu(1);
        self.line(&format!("OpBranch {}", l.cont));
        self.label(&l.cont);
        let i = self.val(&format!("OpLoad %uint {}", l.counter));
        let next = self.val(&format!("OpIAdd %uint {i} {one}"));
        self.line(&format!("OpStore {} {next}", l.counter));
        self.line(&format!("OpBranch {}", l.head));
        self.label(&l.merge);
    }

    /// A pointer to word `index` (an id of `%uint`) of block `k`'s buffer of `ty`.
    fn elem(&mut self, k: usize, ty: &str, index: &str) -> String {
        let zero = self.cu(0);
        self.val(&format!("OpAccessChain %ptr_u_{ty} %b{k} {zero} {index}"))
    }

    fn store_word(&mut self, k: usize, index: &str, value: &str) {
        let p = self.elem(k, "uint", index);
        self.line(&format!("OpStore {p} {value}"));
    }

    fn bool_as_uint(&mut self, cond: &str) -> String {
        let (one, zero) = (self.cu(1), self.cu(0));
        self.val(&format!("OpSelect %uint {cond} {one} {zero}"))
    }

    fn expr(&mut self, e: &Expr, env: &ExprEnv) -> String {
        match e {
            Expr::Const(c) => self.cu(*c),
            Expr::Lid => format!("%{}lid", env.scope),
            Expr::Gid => format!("%{}gid", env.scope),
            Expr::Wg => format!("%{}wg", env.scope),
            Expr::LocalId(d) => format!("%{}lidc{}", env.scope, d % 3),
            Expr::GroupId(d) => format!("%{}wgc{}", env.scope, d % 3),
            Expr::Ticket => env.ticket.clone(),
            Expr::Var(v) => {
                let var = self.var_of(env, *v);
                self.val(&format!("OpLoad %uint {var}"))
            }
            Expr::LoopIdx(d) => {
                let var = self.var(&format!("{}i{}_{d}", env.scope, env.block));
                self.val(&format!("OpLoad %uint {var}"))
            }
            Expr::Un(op, a) => {
                let a = self.expr(a, env);
                let inst = match op {
                    UnOp::Not => format!("OpNot %uint {a}"),
                    UnOp::Neg => format!("OpSNegate %uint {a}"),
                    UnOp::BitCount => format!("OpBitCount %uint {a}"),
                    UnOp::BitReverse => format!("OpBitReverse %uint {a}"),
                    UnOp::FindLsb => format!("OpExtInst %uint %glsl FindILsb {a}"),
                    UnOp::FindMsb => format!("OpExtInst %uint %glsl FindUMsb {a}"),
                    UnOp::FindMsbS => format!("OpExtInst %uint %glsl FindSMsb {a}"),
                    UnOp::SignS => format!("OpExtInst %uint %glsl SSign {a}"),
                    UnOp::AbsS => {
                        let m = self.cu(0x8000_0001);
                        let m = self.val(&format!("OpExtInst %uint %glsl SMax {a} {m}"));
                        format!("OpExtInst %uint %glsl SAbs {m}")
                    }
                    UnOp::LNot => {
                        let zero = self.cu(0);
                        let c = self.val(&format!("OpINotEqual %bool {a} {zero}"));
                        let n = self.val(&format!("OpLogicalNot %bool {c}"));
                        return self.bool_as_uint(&n);
                    }
                };
                self.val(&inst)
            }
            Expr::Clamp {
                value,
                lo,
                hi,
                signed,
            } => {
                let v = self.expr(value, env);
                let (lo, hi) = (self.cu(*lo), self.cu(*hi));
                let name = if *signed { "SClamp" } else { "UClamp" };
                self.val(&format!("OpExtInst %uint %glsl {name} {v} {lo} {hi}"))
            }
            Expr::Extract {
                value,
                offset,
                bits,
                signed,
            } => {
                let v = self.expr(value, env);
                let (o, n) = (self.cu(u32::from(*offset)), self.cu(u32::from(*bits)));
                let op = if *signed {
                    "OpBitFieldSExtract"
                } else {
                    "OpBitFieldUExtract"
                };
                self.val(&format!("{op} %uint {v} {o} {n}"))
            }
            Expr::Insert {
                base,
                insert,
                offset,
                bits,
            } => {
                let (b, i) = (self.expr(base, env), self.expr(insert, env));
                let (o, n) = (self.cu(u32::from(*offset)), self.cu(u32::from(*bits)));
                self.val(&format!("OpBitFieldInsert %uint {b} {i} {o} {n}"))
            }
            Expr::Select(c, a, b) => {
                let (c, a, b) = (self.expr(c, env), self.expr(a, env), self.expr(b, env));
                let zero = self.cu(0);
                let t = self.val(&format!("OpINotEqual %bool {c} {zero}"));
                self.val(&format!("OpSelect %uint {t} {a} {b}"))
            }
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a, env), self.expr(b, env));
                self.bin(*op, &a, &b)
            }
            Expr::Wide(w) => {
                let (a, b) = (self.expr(&w.a, env), self.expr(&w.b, env));
                crate::features::wide::spirv(self, w, &a, &b)
            }
            Expr::FToI {
                value,
                round,
                to,
                sat,
            } => self.f_to_i(value, *round, *to, *sat, env),
        }
    }

    fn bin(&mut self, op: BinOp, a: &str, b: &str) -> String {
        let plain = |s: &str| format!("{s} %uint {a} {b}");
        match op {
            BinOp::Add => self.val(&plain("OpIAdd")),
            BinOp::Sub => self.val(&plain("OpISub")),
            BinOp::Mul => self.val(&plain("OpIMul")),
            BinOp::And => self.val(&plain("OpBitwiseAnd")),
            BinOp::Or => self.val(&plain("OpBitwiseOr")),
            BinOp::Xor => self.val(&plain("OpBitwiseXor")),
            BinOp::Shl | BinOp::ShrU | BinOp::ShrS => {
                let mask = self.cu(31);
                let n = self.val(&format!("OpBitwiseAnd %uint {b} {mask}"));
                let name = match op {
                    BinOp::Shl => "OpShiftLeftLogical",
                    BinOp::ShrU => "OpShiftRightLogical",
                    _ => "OpShiftRightArithmetic",
                };
                self.val(&format!("{name} %uint {a} {n}"))
            }
            BinOp::MinU => self.val(&format!("OpExtInst %uint %glsl UMin {a} {b}")),
            BinOp::MaxU => self.val(&format!("OpExtInst %uint %glsl UMax {a} {b}")),
            BinOp::MinS => self.val(&format!("OpExtInst %uint %glsl SMin {a} {b}")),
            BinOp::MaxS => self.val(&format!("OpExtInst %uint %glsl SMax {a} {b}")),
            BinOp::DivU | BinOp::RemU | BinOp::DivS | BinOp::RemS | BinOp::SRem | BinOp::SMod => {
                self.division(op, a, b)
            }
            BinOp::MulHiU | BinOp::MulHiS | BinOp::Carry | BinOp::Borrow => {
                // The struct of the low and high halves (SPIR-V, Arithmetic Instructions); OpSMulExtended reads
                // its `%uint` operands as signed whatever the type's signedness.
                if !self.wide_product {
                    self.wide_product = true;
                    self.globals
                        .push_str("%wide_product = OpTypeStruct %uint %uint\n");
                }
                // OpIAddCarry and OpISubBorrow: member 1 is the carry (1 when the sum
                // overflows) or the borrow (1 when Operand 2 > Operand 1).
                let name = match op {
                    BinOp::MulHiU => "OpUMulExtended",
                    BinOp::MulHiS => "OpSMulExtended",
                    BinOp::Carry => "OpIAddCarry",
                    _ => "OpISubBorrow",
                };
                let both = self.val(&format!("{name} %wide_product {a} {b}"));
                self.val(&format!("OpCompositeExtract %uint {both} 1"))
            }
            BinOp::AbsDiffU | BinOp::AbsDiffS => {
                let (max, min) = if op == BinOp::AbsDiffU {
                    ("UMax", "UMin")
                } else {
                    ("SMax", "SMin")
                };
                let hi = self.val(&format!("OpExtInst %uint %glsl {max} {a} {b}"));
                let lo = self.val(&format!("OpExtInst %uint %glsl {min} {a} {b}"));
                self.val(&format!("OpISub %uint {hi} {lo}"))
            }
            BinOp::Mul24U | BinOp::Mul24S => {
                let mut low24 = |x: &str| {
                    if op == BinOp::Mul24U {
                        let m = self.cu(0xFF_FFFF);
                        self.val(&format!("OpBitwiseAnd %uint {x} {m}"))
                    } else {
                        let (o, n) = (self.cu(0), self.cu(24));
                        self.val(&format!("OpBitFieldSExtract %uint {x} {o} {n}"))
                    }
                };
                let (x, y) = (low24(a), low24(b));
                self.val(&format!("OpIMul %uint {x} {y}"))
            }
            BinOp::LAnd | BinOp::LOr | BinOp::LXor => {
                let zero = self.cu(0);
                let x = self.val(&format!("OpINotEqual %bool {a} {zero}"));
                let y = self.val(&format!("OpINotEqual %bool {b} {zero}"));
                let name = match op {
                    BinOp::LAnd => "OpLogicalAnd",
                    BinOp::LOr => "OpLogicalOr",
                    _ => "OpLogicalNotEqual",
                };
                let c = self.val(&format!("{name} %bool {x} {y}"));
                self.bool_as_uint(&c)
            }
            // The comparisons (BinOp::is_comparison).
            cmp => {
                let name = match cmp {
                    BinOp::LtU => "OpULessThan",
                    BinOp::LtS => "OpSLessThan",
                    BinOp::Eq => "OpIEqual",
                    BinOp::Ne => "OpINotEqual",
                    BinOp::LeU => "OpULessThanEqual",
                    BinOp::LeS => "OpSLessThanEqual",
                    BinOp::GtU => "OpUGreaterThan",
                    BinOp::GtS => "OpSGreaterThan",
                    BinOp::GeU => "OpUGreaterThanEqual",
                    BinOp::GeS => "OpSGreaterThanEqual",
                    other => unreachable!("{} has its own arm above", other.name()),
                };
                let c = self.val(&format!("{name} %bool {a} {b}"));
                self.bool_as_uint(&c)
            }
        }
    }

    /// A division or remainder on the operands `model::div_operands` gives: only the
    /// undefined ones are replaced (SPIR-V `OpUDiv`/`OpSDiv`/`OpUMod`/`OpSRem`/`OpSMod`:
    /// undefined by zero, `OpSDiv` of MIN by -1, and in OpenGL `OpSRem` and `OpSMod` with a
    /// negative operand, ARB_gl_spirv A.spv.6: the signed remainders keep non-negative
    /// operands, as GLSL's `%` and NV `MOD` do).
    fn division(&mut self, op: BinOp, a: &str, b: &str) -> String {
        let (zero, one) = (self.cu(0), self.cu(1));
        let (a, undefined) = match op {
            BinOp::DivS => {
                let (min, neg1) = (self.cu(0x8000_0000), self.cu(u32::MAX));
                let z = self.val(&format!("OpIEqual %bool {b} {zero}"));
                let m = self.val(&format!("OpIEqual %bool {a} {min}"));
                let n = self.val(&format!("OpIEqual %bool {b} {neg1}"));
                let mn = self.val(&format!("OpLogicalAnd %bool {m} {n}"));
                (
                    a.to_string(),
                    self.val(&format!("OpLogicalOr %bool {z} {mn}")),
                )
            }
            BinOp::RemS | BinOp::SRem | BinOp::SMod => {
                let mask = self.cu(0x7FFF_FFFF);
                let a = self.val(&format!("OpBitwiseAnd %uint {a} {mask}"));
                (a, self.val(&format!("OpSLessThan %bool {b} {one}")))
            }
            _ => (
                a.to_string(),
                self.val(&format!("OpIEqual %bool {b} {zero}")),
            ),
        };
        let d = self.val(&format!("OpSelect %uint {undefined} {one} {b}"));
        let name = match op {
            BinOp::DivU => "OpUDiv",
            BinOp::RemU => "OpUMod",
            BinOp::DivS => "OpSDiv",
            BinOp::SMod => "OpSMod",
            _ => "OpSRem",
        };
        self.val(&format!("{name} %uint {a} {d}"))
    }
}

/// A loop being emitted: its header, continue target and merge labels, and its counter.
struct OpenLoop {
    head: String,
    cont: String,
    merge: String,
    counter: String,
}

/// What the leaves of an expression refer to in the block being emitted.
struct ExprEnv {
    block: usize,
    ticket: String,
    /// The prefix of the ids of the function being emitted (`` in main, `f<n>_` in the
    /// function of call n): its variables are its pointer parameters, its built-ins loaded
    /// in it (ids are module-wide, and a function cannot use another's).
    scope: String,
}

impl ExprEnv {
    fn of(block: usize) -> ExprEnv {
        ExprEnv {
            block,
            ticket: String::new(),
            scope: String::new(),
        }
    }
}

/// The type name of an atomic's word, whether it is signed, and a constant of it.
fn atomic_ty(ty: AtomTy) -> (&'static str, bool) {
    match ty {
        AtomTy::S32 => ("int", true),
        AtomTy::U32 => ("uint", false),
    }
}

fn atomic_lit(s: &mut Spv, signed: bool, v: u32) -> String {
    if signed {
        s.ci(v)
    } else {
        s.cu(v)
    }
}

/// A pointer to the word block `k`'s atomics update (a shared one set to `init` by invocation
/// 0 before a barrier), the index that tells its invocations apart, and the atomics' scope.
fn atomic_word(
    s: &mut Spv,
    k: usize,
    space: Space,
    ty: AtomTy,
    init: u32,
) -> (String, &'static str, u32) {
    let (ty, signed) = atomic_ty(ty);
    match space {
        Space::Storage => {
            let zero = s.cu(0);
            (s.elem(k, ty, &zero), "%gid", DEVICE)
        }
        Space::Shared => {
            let _ = writeln!(s.globals, "%s{k} = OpVariable %ptr_wg_{ty} Workgroup");
            let merge = s.open_lid0();
            let init = atomic_lit(s, signed, init);
            s.line(&format!("OpStore %s{k} {init}"));
            s.close_if(&merge);
            s.barrier();
            (format!("%s{k}"), "%lid", WORKGROUP)
        }
    }
}

/// The opcode of an atomic operation with one value operand (all but CSWAP and the wrapping
/// ones).
fn atomic_opcode(op: AtomicOp, signed: bool) -> &'static str {
    match (op, signed) {
        (AtomicOp::Add, _) => "OpAtomicIAdd",
        (AtomicOp::Min, true) => "OpAtomicSMin",
        (AtomicOp::Min, false) => "OpAtomicUMin",
        (AtomicOp::Max, true) => "OpAtomicSMax",
        (AtomicOp::Max, false) => "OpAtomicUMax",
        (AtomicOp::And, _) => "OpAtomicAnd",
        (AtomicOp::Or, _) => "OpAtomicOr",
        (AtomicOp::Xor, _) => "OpAtomicXor",
        (AtomicOp::Exch, _) => "OpAtomicExchange",
        (AtomicOp::CSwap | AtomicOp::IWrap | AtomicOp::DWrap, _) => {
            unreachable!("CSWAP has its own form; expressible() keeps wrapping atomics out")
        }
    }
}

/// Different atomic operations on one word (`crate::features::atomic_mix`): part `j` under
/// `if (idx % n == j)`.
fn atomic_mix(s: &mut Spv, k: usize, m: &AtomicMixBlock) {
    let (ty, signed) = atomic_ty(m.ty);
    let (ptr, idx, scope) = atomic_word(s, k, m.space, m.ty, m.init);
    let (scope, relaxed) = (s.cu(scope), s.cu(RELAXED));
    for (j, part) in m.parts.iter().enumerate() {
        let guard = s.open_guard(&m.part_guard(j), idx);
        let operand = atomic_lit(s, signed, part.operand);
        let name = atomic_opcode(part.op, signed);
        s.val(&format!("{name} %{ty} {ptr} {scope} {relaxed} {operand}"));
        if let Some(merge) = guard {
            s.close_if(&merge);
        }
    }
    atomic_end(s, k, &m.part_block(0), ty, None);
}

fn atomic(s: &mut Spv, k: usize, a: &AtomicBlock, p: &Program) {
    let (ty, signed) = atomic_ty(a.ty);
    let lit = |s: &mut Spv, v: u32| atomic_lit(s, signed, v);
    let (ptr, idx, scope) = atomic_word(s, k, a.space, a.ty, a.init);
    let guard = s.open_guard(&a.guard, idx);
    let operand = match a.operand {
        Operand::Uniform(v) => lit(s, v),
        Operand::PerInvocation { base, step } => {
            let (base, step) = (s.cu(base), s.cu(step));
            let m = s.val(&format!("OpIMul %uint {step} {idx}"));
            let v = s.val(&format!("OpIAdd %uint {base} {m}"));
            if signed {
                s.val(&format!("OpBitcast %int {v}"))
            } else {
                v
            }
        }
    };
    let (scope, relaxed) = (s.cu(scope), s.cu(RELAXED));
    let name = match a.op {
        AtomicOp::CSwap => {
            let cmp = lit(s, a.compare);
            let r = s.val(&format!(
                "OpAtomicCompareExchange %{ty} {ptr} {scope} {relaxed} {relaxed} {operand} {cmp}"
            ));
            atomic_returns(s, k, a, p, ty, &r);
            return atomic_end(s, k, a, ty, guard);
        }
        op => atomic_opcode(op, signed),
    };
    let r = s.val(&format!("{name} %{ty} {ptr} {scope} {relaxed} {operand}"));
    atomic_returns(s, k, a, p, ty, &r);
    atomic_end(s, k, a, ty, guard);
}

fn atomic_returns(s: &mut Spv, k: usize, a: &AtomicBlock, p: &Program, ty: &str, r: &str) {
    if a.stores_returns() {
        let finals = s.cu(atomic_finals(a, p) as u32);
        let at = s.val(&format!("OpIAdd %uint {finals} %gid"));
        let q = s.elem(k, ty, &at);
        s.line(&format!("OpStore {q} {r}"));
    }
}

fn atomic_end(s: &mut Spv, k: usize, a: &AtomicBlock, ty: &str, guard: Option<String>) {
    if let Some(merge) = guard {
        s.close_if(&merge);
    }
    if a.space == Space::Shared {
        s.barrier();
        let merge = s.open_lid0();
        let v = s.val(&format!("OpLoad %{ty} %s{k}"));
        let q = s.elem(k, ty, "%wg");
        s.line(&format!("OpStore {q} {v}"));
        s.close_if(&merge);
    }
}

fn section(s: &mut Spv, k: usize, x: &SectionBlock) {
    let (zero, one, relaxed) = (s.cu(0), s.cu(1), s.cu(RELAXED));
    let (counter, base, scope) = match x.space {
        Space::Storage => (s.elem(k, "uint", &zero), zero.clone(), s.cu(DEVICE)),
        Space::Shared => {
            let _ = writeln!(s.globals, "%s{k} = OpVariable %ptr_wg_uint Workgroup");
            let merge = s.open_lid0();
            s.line(&format!("OpStore %s{k} {zero}"));
            s.close_if(&merge);
            s.barrier();
            let three = s.cu(3);
            let base = s.val(&format!("OpIMul %uint %wg {three}"));
            (format!("%s{k}"), base, s.cu(WORKGROUP))
        }
    };
    let ticket = s.val(&format!(
        "OpAtomicIAdd %uint {counter} {scope} {relaxed} {one}"
    ));
    let winner = s.cu(x.winner);
    let c = s.val(&format!("OpIEqual %bool {ticket} {winner}"));
    let merge = s.open_if(&c);
    let (device, two) = (s.cu(DEVICE), s.cu(2));
    let hits_at = s.val(&format!("OpIAdd %uint {base} {one}"));
    let hits = s.elem(k, "uint", &hits_at);
    s.val(&format!(
        "OpAtomicIAdd %uint {hits} {device} {relaxed} {one}"
    ));
    let env = ExprEnv {
        ticket,
        ..ExprEnv::of(k)
    };
    let payload = s.expr(&x.payload, &env);
    let payload_at = s.val(&format!("OpIAdd %uint {base} {two}"));
    s.store_word(k, &payload_at, &payload);
    s.close_if(&merge);
    if x.space == Space::Shared {
        s.barrier();
        let merge = s.open_lid0();
        let v = s.val(&format!("OpLoad %uint %s{k}"));
        s.store_word(k, &base, &v);
        s.close_if(&merge);
    }
}

fn exchange(s: &mut Spv, k: usize, x: &ExchangeBlock, p: &Program) {
    let n = p.local_size;
    let arr = s.shared_array(&format!("x{k}"), n);
    let env = ExprEnv::of(k);
    let v = s.expr(&x.value, &env);
    let own = s.val(&format!("OpAccessChain %ptr_wg_uint {arr} %lid"));
    s.line(&format!("OpStore {own} {v}"));
    s.barrier();
    let (mul, add, size) = (s.cu(x.mul), s.cu(x.add), s.cu(n));
    let m = s.val(&format!("OpIMul %uint {mul} %lid"));
    let a = s.val(&format!("OpIAdd %uint {m} {add}"));
    let src = s.val(&format!("OpUMod %uint {a} {size}"));
    if x.rounds > 0 {
        let counter = s.var(&format!("n{k}"));
        let l = s.open_loop(&counter, u32::from(x.rounds));
        let from = s.val(&format!("OpAccessChain %ptr_wg_uint {arr} {src}"));
        let t = s.val(&format!("OpLoad %uint {from}"));
        s.barrier();
        let own = s.val(&format!("OpAccessChain %ptr_wg_uint {arr} %lid"));
        s.line(&format!("OpStore {own} {t}"));
        s.barrier();
        s.close_loop(l);
    }
    let from = s.val(&format!("OpAccessChain %ptr_wg_uint {arr} {src}"));
    let r = s.val(&format!("OpLoad %uint {from}"));
    s.store_word(k, "%gid", &r);
}

fn compute(s: &mut Spv, k: usize, c: &ComputeBlock) {
    let seed = s.cu(c.seed);
    for (v, init) in ["%gid", "%lid", "%wg", seed.as_str()]
        .into_iter()
        .enumerate()
    {
        let var = s.var(&format!("v{k}_{v}"));
        s.line(&format!("OpStore {var} {init}"));
    }
    let env = ExprEnv::of(k);
    stmts(s, &env, &c.stmts, 0);
    let width = s.cu(VARS as u32);
    let base = s.val(&format!("OpIMul %uint %gid {width}"));
    for v in 0..VARS {
        let var = s.var(&format!("v{k}_{v}"));
        let x = s.val(&format!("OpLoad %uint {var}"));
        let off = s.cu(v as u32);
        let at = s.val(&format!("OpIAdd %uint {base} {off}"));
        s.store_word(k, &at, &x);
    }
}

/// A call of a function made of `body` (SPIR-V 2.16.1: pointer arguments must be memory
/// object declarations, which main's variables and a caller's pointer parameters are). The
/// function is emitted on the side, with its own variables and loops.
fn call(s: &mut Spv, env: &ExprEnv, body: &[Stmt]) {
    let n = s.functions.len();
    s.functions.push(String::new());
    let args: Vec<String> = (0..VARS as u8).map(|v| s.var_of(env, v)).collect();
    let r = s.fresh();
    s.line(&format!(
        "{r} = OpFunctionCall %void %fz{n} {}",
        args.join(" ")
    ));
    let callee = ExprEnv {
        scope: format!("f{n}_"),
        ..ExprEnv::of(env.block)
    };
    let outer = (
        std::mem::take(&mut s.body),
        std::mem::take(&mut s.vars),
        std::mem::take(&mut s.loops),
    );
    let sc = &callee.scope;
    s.builtins(sc);
    stmts(s, &callee, body, 0);
    let (code, vars) = (
        std::mem::replace(&mut s.body, outer.0),
        std::mem::replace(&mut s.vars, outer.1),
    );
    s.loops = outer.2;
    let mut f = format!("%fz{n} = OpFunction %void None %fn_call\n");
    for v in 0..VARS {
        let _ = writeln!(
            f,
            "%{sc}v{}_{v} = OpFunctionParameter %ptr_fn_uint",
            env.block
        );
    }
    let _ = writeln!(f, "%{sc}entry = OpLabel");
    f.push_str(&vars);
    f.push_str(&code);
    f.push_str("OpReturn\nOpFunctionEnd\n");
    s.functions[n] = f;
}

/// The statements of `ss`; whether the list ended in a branch out of it (`break` or
/// `continue`: its block is then terminated).
fn stmts(s: &mut Spv, env: &ExprEnv, ss: &[Stmt], loops: usize) -> bool {
    for st in ss {
        match st {
            Stmt::Assign(v, e) => {
                let x = s.expr(e, env);
                let var = s.var_of(env, *v);
                s.line(&format!("OpStore {var} {x}"));
            }
            Stmt::Call(body) => call(s, env, body),
            Stmt::If(c, a, b) => {
                let c = s.expr(c, env);
                let zero = s.cu(0);
                let t = s.val(&format!("OpINotEqual %bool {c} {zero}"));
                let (then, els, merge) = (s.label_id(), s.label_id(), s.label_id());
                s.line(&format!("OpSelectionMerge {merge} None"));
                s.line(&format!("OpBranchConditional {t} {then} {els}"));
                s.label(&then);
                if !stmts(s, env, a, loops) {
                    s.line(&format!("OpBranch {merge}"));
                }
                s.label(&els);
                if !stmts(s, env, b, loops) {
                    s.line(&format!("OpBranch {merge}"));
                }
                s.label(&merge);
            }
            Stmt::Loop(n, body) => {
                let counter = s.var(&format!("{}i{}_{loops}", env.scope, env.block));
                let l = s.open_loop(&counter, *n);
                s.loops.push((l.merge.clone(), l.cont.clone()));
                stmts(s, env, body, loops + 1);
                s.loops.pop();
                s.close_loop(l);
            }
            // A break from a selection to the loop's merge block, a continue to its continue
            // target (SPIR-V 2.11, structured control flow); Program::check puts them last.
            Stmt::Break | Stmt::Continue => {
                let (merge, cont) = s.loops.last().expect("checked: inside a loop").clone();
                let to = if matches!(st, Stmt::Break) {
                    merge
                } else {
                    cont
                };
                s.line(&format!("OpBranch {to}"));
                return true;
            }
        }
    }
    false
}

fn float_atomic(s: &mut Spv, k: usize, f: &FloatAtomicBlock, p: &Program) {
    let float = |s: &mut Spv, q: i32| {
        s.floats.insert(q);
        format!("%cf{}", quarters(i64::from(q)))
    };
    let (ptr, idx, scope, finals) = match f.space {
        Space::Storage => {
            let zero = s.cu(0);
            (s.elem(k, "float", &zero), "%gid", DEVICE, 1)
        }
        Space::Shared => {
            let _ = writeln!(s.globals, "%s{k} = OpVariable %ptr_wg_float Workgroup");
            let merge = s.open_lid0();
            let init = float(s, f.init);
            s.line(&format!("OpStore %s{k} {init}"));
            s.close_if(&merge);
            s.barrier();
            (format!("%s{k}"), "%lid", WORKGROUP, p.groups)
        }
    };
    let guard = s.open_guard(&f.guard, idx);
    let (scope, relaxed) = (s.cu(scope), s.cu(RELAXED));
    let operand = float(s, f.operand);
    let r = s.val(&format!(
        "OpAtomicFAddEXT %float {ptr} {scope} {relaxed} {operand}"
    ));
    if f.keep_returns {
        let finals = s.cu(finals);
        let at = s.val(&format!("OpIAdd %uint {finals} %gid"));
        let q = s.elem(k, "float", &at);
        s.line(&format!("OpStore {q} {r}"));
    }
    if let Some(merge) = guard {
        s.close_if(&merge);
    }
    if f.space == Space::Shared {
        s.barrier();
        let merge = s.open_lid0();
        let v = s.val(&format!("OpLoad %float %s{k}"));
        let q = s.elem(k, "float", "%wg");
        s.line(&format!("OpStore {q} {v}"));
        s.close_if(&merge);
    }
}

/// Undefined behaviour on purpose; each invocation stores what it got (unchecked).
fn undefined(s: &mut Spv, k: usize, u: &UndefinedBlock, p: &Program) {
    let value = match u.kind {
        UbKind::DivergentBarrier => {
            let n = s.cu(u.param);
            let c = s.val(&format!("OpULessThan %bool %lid {n}"));
            let merge = s.open_if(&c);
            s.barrier();
            s.close_if(&merge);
            "%lid".to_string()
        }
        UbKind::UninitSharedRead => {
            let arr = s.shared_array(&format!("u{k}"), p.local_size);
            let (add, size) = (s.cu(u.param), s.cu(p.local_size));
            let a = s.val(&format!("OpIAdd %uint %lid {add}"));
            let i = s.val(&format!("OpUMod %uint {a} {size}"));
            let from = s.val(&format!("OpAccessChain %ptr_wg_uint {arr} {i}"));
            s.val(&format!("OpLoad %uint {from}"))
        }
        UbKind::OversizeShift => {
            let add = s.cu(u.param);
            let n = s.val(&format!("OpIAdd %uint %lid {add}"));
            s.val(&format!("OpShiftLeftLogical %uint %gid {n}"))
        }
        UbKind::DivByZero => {
            let eight = s.cu(8);
            let d = s.val(&format!("OpShiftRightLogical %uint %lid {eight}"));
            s.val(&format!("OpUDiv %uint %gid {d}"))
        }
        UbKind::InactiveLaneRead => unreachable!("expressible() keeps shuffles out of SPIR-V"),
    };
    s.store_word(k, "%gid", &value);
}
