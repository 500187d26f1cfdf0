//! A litmus test as SPIR-V assembly (SPIR-V 1.0 for OpenGL, ARB_gl_spirv), laid out as the
//! GLSL form (`glsl.rs`). Storage buffers are `Uniform` structs decorated `BufferBlock`, the
//! result buffer and the stress buffer `Coherent`; shared locations a `Workgroup` array. Each
//! role's accesses sit in a structured selection (`OpSelectionMerge`); the stress rounds are
//! unrolled. The fences are `OpMemoryBarrier` and `OpControlBarrier` with the scopes and
//! semantics ARB_gl_spirv maps GLSL's barrier functions to.

use super::layout::{Layout, ROLE_STRESS, STRESS_ROUNDS, STRESS_WORDS};
use super::shape::{loads, local_register, Fence, Op, Scope};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Scope operands (SPIR-V 3.27) and memory semantics bits (3.25).
const SCOPE_DEVICE: u32 = 1;
const SCOPE_WORKGROUP: u32 = 2;
const SEM_ACQ_REL: u32 = 0x8;
const SEM_UNIFORM: u32 = 0x40;
const SEM_WORKGROUP: u32 = 0x100;

#[derive(Default)]
struct Body {
    text: String,
    next: usize,
    consts: BTreeSet<u32>,
}

impl Body {
    fn id(&mut self) -> String {
        self.next += 1;
        format!("%t{}", self.next)
    }

    fn c(&mut self, v: u32) -> String {
        self.consts.insert(v);
        format!("%c{v}")
    }

    /// `%tN = <rest>`, returning `%tN`.
    fn op(&mut self, rest: &str) -> String {
        let id = self.id();
        let _ = writeln!(self.text, "{id} = {rest}");
        id
    }

    fn line(&mut self, l: &str) {
        self.text.push_str(l);
        self.text.push('\n');
    }

    /// `a + b` for a value and a constant.
    fn add(&mut self, a: &str, b: u32) -> String {
        let c = self.c(b);
        self.op(&format!("OpIAdd %uint {a} {c}"))
    }

    /// Opens `if (role == value)`; returns the merge label for [`Body::close`].
    fn open_if(&mut self, role: &str, value: u32) -> String {
        let c = self.c(value);
        let cond = self.op(&format!("OpIEqual %bool {role} {c}"));
        let (then, merge) = (self.id(), self.id());
        let _ = writeln!(
            self.text,
            "OpSelectionMerge {merge} None\nOpBranchConditional {cond} {then} {merge}\n{then} = OpLabel"
        );
        merge
    }

    fn close(&mut self, merge: &str) {
        let _ = writeln!(self.text, "OpBranch {merge}\n{merge} = OpLabel");
    }

    /// A pointer to location word `index` (a value id).
    fn ptr(&mut self, wg: bool, index: &str) -> String {
        if wg {
            self.op(&format!("OpAccessChain %ptr_wg_uint %mem {index}"))
        } else {
            let c0 = self.c(0);
            self.op(&format!("OpAccessChain %ptr_u_uint %o {c0} {index}"))
        }
    }

    fn barrier(&mut self, exec: Option<u32>, scope: u32, sem: u32) {
        let (s, m) = (self.c(scope), self.c(sem));
        match exec {
            Some(e) => {
                let e = self.c(e);
                let _ = writeln!(self.text, "OpControlBarrier {e} {s} {m}");
            }
            None => {
                let _ = writeln!(self.text, "OpMemoryBarrier {s} {m}");
            }
        }
    }
}

/// The module of `layout`'s test.
pub fn emit(layout: &Layout) -> String {
    let test = layout.test;
    let shape = test.shape;
    let (regs, locs, width) = (shape.registers(), shape.locations(), shape.width());
    let w = layout.params.group_size;
    let wg = test.scope == Scope::Workgroup;
    let mut b = Body::default();
    b.line("%r0 = OpVariable %ptr_fn_uint Function\n%r1 = OpVariable %ptr_fn_uint Function");
    let c0 = b.c(0);
    let _ = writeln!(b.text, "OpStore %r0 {c0}\nOpStore %r1 {c0}");
    let gid3 = b.op("OpLoad %v3uint %in_gid");
    let gid = b.op(&format!("OpCompositeExtract %uint {gid3} 0"));
    let lid = b.op("OpLoad %uint %in_lid");
    let pm = b.op(&format!("OpAccessChain %ptr_u_uint %m {c0} {gid}"));
    let code = b.op(&format!("OpLoad %uint {pm}"));
    let c255 = b.c(255);
    let role = b.op(&format!("OpBitwiseAnd %uint {code} {c255}"));
    let c8 = b.c(8);
    let inst = b.op(&format!("OpShiftRightLogical %uint {code} {c8}"));
    let cw = b.c(width as u32);
    let rec = b.op(&format!("OpIMul %uint {inst} {cw}"));
    // The index of location 0 of this instance: in `mem`, or in `o` after the registers.
    let base = if wg {
        let cpg = b.c(layout.per_group);
        let slot = b.op(&format!("OpUMod %uint {inst} {cpg}"));
        let cl = b.c(locs as u32);
        b.op(&format!("OpIMul %uint {slot} {cl}"))
    } else {
        b.add(&rec, regs as u32)
    };
    let shared_sync = SEM_ACQ_REL | SEM_WORKGROUP;
    if wg {
        let p = b.op(&format!("OpAccessChain %ptr_wg_uint %scratch {lid}"));
        let _ = writeln!(b.text, "OpStore {p} {c0}");
        let merge = b.open_if(&role, 0);
        for l in 0..locs {
            let i = b.add(&base, l as u32);
            let p = b.ptr(true, &i);
            let _ = writeln!(b.text, "OpStore {p} {c0}");
        }
        b.close(&merge);
        b.barrier(Some(SCOPE_WORKGROUP), SCOPE_WORKGROUP, shared_sync);
    }
    let threads = shape.threads();
    let reg_of = shape.first_registers();
    for phase in 0..2 {
        for (t, ops) in threads.iter().enumerate() {
            let Some(op) = ops.get(phase) else { continue };
            let r = local_register(ops, phase);
            let merge = b.open_if(&role, t as u32);
            match *op {
                Op::Store(l, v) => {
                    let i = b.add(&base, l as u32);
                    let p = b.ptr(wg, &i);
                    let cv = b.c(v);
                    let _ = writeln!(b.text, "OpStore {p} {cv}");
                }
                Op::Load(l) => {
                    let i = b.add(&base, l as u32);
                    let p = b.ptr(wg, &i);
                    let v = b.op(&format!("OpLoad %uint {p}"));
                    let _ = writeln!(b.text, "OpStore %r{r} {v}");
                }
            }
            b.close(&merge);
        }
        if phase == 0 {
            if layout.params.stress > 0 {
                stress(&mut b, &role, if wg { &lid } else { &gid }, wg, w);
            }
            match test.fence {
                Fence::OpMemoryBarrierDevice => b.barrier(
                    None,
                    SCOPE_DEVICE,
                    SEM_ACQ_REL | SEM_UNIFORM | SEM_WORKGROUP,
                ),
                Fence::OpMemoryBarrierWorkgroup => b.barrier(
                    None,
                    SCOPE_WORKGROUP,
                    SEM_ACQ_REL | SEM_UNIFORM | SEM_WORKGROUP,
                ),
                Fence::OpControlBarrier => {
                    b.barrier(Some(SCOPE_WORKGROUP), SCOPE_WORKGROUP, shared_sync)
                }
                Fence::OpControlBarrierNoSemantics => {
                    b.barrier(Some(SCOPE_WORKGROUP), SCOPE_WORKGROUP, 0)
                }
                _ => {}
            }
        }
    }
    for (t, ops) in threads.iter().enumerate() {
        let loads = loads(ops);
        if loads == 0 {
            continue;
        }
        let merge = b.open_if(&role, t as u32);
        for k in 0..loads {
            let v = b.op(&format!("OpLoad %uint %r{k}"));
            let i = b.add(&rec, (reg_of[t] + k) as u32);
            let p = b.ptr(false, &i);
            let _ = writeln!(b.text, "OpStore {p} {v}");
        }
        b.close(&merge);
    }
    if wg {
        b.barrier(Some(SCOPE_WORKGROUP), SCOPE_WORKGROUP, shared_sync);
        let merge = b.open_if(&role, 0);
        for l in 0..locs {
            let i = b.add(&base, l as u32);
            let p = b.ptr(true, &i);
            let v = b.op(&format!("OpLoad %uint {p}"));
            let j = b.add(&rec, (regs + l) as u32);
            let q = b.ptr(false, &j);
            let _ = writeln!(b.text, "OpStore {q} {v}");
        }
        b.close(&merge);
    }
    module(layout, &b)
}

/// Stress invocations: unrolled rounds of a load and a store on scratch words.
fn stress(b: &mut Body, role: &str, id: &str, wg: bool, w: u32) {
    let merge = b.open_if(role, ROLE_STRESS);
    let c7 = b.c(7);
    let start = b.op(&format!("OpIMul %uint {id} {c7}"));
    let words = if wg { w } else { STRESS_WORDS };
    let cw = b.c(words);
    for k in 0..STRESS_ROUNDS {
        let i = b.add(&start, k);
        let i = b.op(&format!("OpUMod %uint {i} {cw}"));
        let p = if wg {
            b.op(&format!("OpAccessChain %ptr_wg_uint %scratch {i}"))
        } else {
            let c0 = b.c(0);
            b.op(&format!("OpAccessChain %ptr_u_uint %st {c0} {i}"))
        };
        let v = b.op(&format!("OpLoad %uint {p}"));
        let v = b.add(&v, 1);
        let _ = writeln!(b.text, "OpStore {p} {v}");
    }
    b.close(&merge);
}

fn module(layout: &Layout, b: &Body) -> String {
    let w = layout.params.group_size;
    let wg = layout.test.scope == Scope::Workgroup;
    let mut s = String::from(
        "; SPIR-V 1.0 for OpenGL (ARB_gl_spirv), a conform litmus test\n\
         OpCapability Shader\n\
         OpMemoryModel Logical GLSL450\n\
         OpEntryPoint GLCompute %main \"main\" %in_gid %in_lid\n",
    );
    let _ = writeln!(s, "OpExecutionMode %main LocalSize {w} 1 1");
    s.push_str(
        "OpDecorate %in_gid BuiltIn GlobalInvocationId\n\
         OpDecorate %in_lid BuiltIn LocalInvocationIndex\n\
         OpDecorate %arr ArrayStride 4\n\
         OpMemberDecorate %Buf 0 Offset 0\n\
         OpDecorate %Buf BufferBlock\n",
    );
    for (k, name) in ["o", "m", "st"].iter().enumerate() {
        let _ = writeln!(
            s,
            "OpDecorate %{name} DescriptorSet 0\nOpDecorate %{name} Binding {k}"
        );
    }
    s.push_str(
        "OpDecorate %o Coherent\nOpDecorate %st Coherent\nOpDecorate %m NonWritable\n\
         %void = OpTypeVoid\n\
         %fn_void = OpTypeFunction %void\n\
         %bool = OpTypeBool\n\
         %uint = OpTypeInt 32 0\n\
         %v3uint = OpTypeVector %uint 3\n\
         %ptr_in_uint = OpTypePointer Input %uint\n\
         %ptr_in_v3 = OpTypePointer Input %v3uint\n\
         %in_gid = OpVariable %ptr_in_v3 Input\n\
         %in_lid = OpVariable %ptr_in_uint Input\n\
         %arr = OpTypeRuntimeArray %uint\n\
         %Buf = OpTypeStruct %arr\n\
         %ptr_Buf = OpTypePointer Uniform %Buf\n\
         %ptr_u_uint = OpTypePointer Uniform %uint\n\
         %ptr_wg_uint = OpTypePointer Workgroup %uint\n\
         %ptr_fn_uint = OpTypePointer Function %uint\n\
         %o = OpVariable %ptr_Buf Uniform\n\
         %m = OpVariable %ptr_Buf Uniform\n\
         %st = OpVariable %ptr_Buf Uniform\n",
    );
    let mut consts = b.consts.clone();
    if wg {
        let mem = layout.per_group * layout.test.shape.locations() as u32;
        consts.extend([mem, w]);
    }
    for v in &consts {
        let _ = writeln!(s, "%c{v} = OpConstant %uint {v}");
    }
    if wg {
        let mem = layout.per_group * layout.test.shape.locations() as u32;
        let _ = writeln!(
            s,
            "%arr_mem = OpTypeArray %uint %c{mem}\n\
             %ptr_wg_mem = OpTypePointer Workgroup %arr_mem\n\
             %mem = OpVariable %ptr_wg_mem Workgroup"
        );
        if mem == w {
            s.push_str("%scratch = OpVariable %ptr_wg_mem Workgroup\n");
        } else {
            let _ = writeln!(
                s,
                "%arr_scratch = OpTypeArray %uint %c{w}\n\
                 %ptr_wg_scratch = OpTypePointer Workgroup %arr_scratch\n\
                 %scratch = OpVariable %ptr_wg_scratch Workgroup"
            );
        }
    }
    s.push_str("%main = OpFunction %void None %fn_void\n%entry = OpLabel\n");
    s.push_str(&b.text);
    s.push_str("OpReturn\nOpFunctionEnd\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::layout::Params;
    use crate::litmus::shape::{Lang, Shape, Test};

    /// Every SPIR-V test, with and without stress, assembles and passes spirv-val (the
    /// SPIRV-Tools build the reference links, as the fuzzer's SPIR-V emitter is checked).
    #[test]
    fn every_module_assembles_and_validates() {
        for test in Test::all(&[Lang::Spirv], &Shape::ALL, &Scope::ALL) {
            for stress in [0, 3] {
                let params = Params {
                    instances: 5,
                    group_size: 8,
                    stress,
                };
                let text = emit(&Layout::new(test, params).unwrap());
                let words = conform_reference::assemble_spirv(&text)
                    .unwrap_or_else(|d| panic!("{}: {d:?}\n{text}", test.name()));
                conform_reference::front::spirv::validate(&words, Some(&text))
                    .unwrap_or_else(|d| panic!("{}: {d:?}\n{text}", test.name()));
            }
        }
    }

    #[test]
    fn fences_are_the_barriers_arb_gl_spirv_maps_glsl_to() {
        let text = |fence| {
            let test = Test {
                shape: Shape::Mp,
                scope: Scope::Workgroup,
                fence,
                lang: Lang::Spirv,
            };
            emit(&Layout::new(test, Params::default()).unwrap())
        };
        // Scope Workgroup (2), semantics AcquireRelease|WorkgroupMemory (0x108 = 264); the
        // same barrier opens and closes the test in every workgroup-scope module.
        let barrier = "OpControlBarrier %c2 %c2 %c264";
        assert_eq!(text(Fence::None).matches(barrier).count(), 2);
        assert_eq!(text(Fence::OpControlBarrier).matches(barrier).count(), 3);
        assert!(text(Fence::OpControlBarrierNoSemantics).contains("OpControlBarrier %c2 %c2 %c0"));
        // AcquireRelease|UniformMemory|WorkgroupMemory = 0x148 = 328.
        assert!(text(Fence::OpMemoryBarrierDevice).contains("OpMemoryBarrier %c1 %c328"));
        assert!(text(Fence::OpMemoryBarrierWorkgroup).contains("OpMemoryBarrier %c2 %c328"));
    }
}
