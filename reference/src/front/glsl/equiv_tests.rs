//! GLSL programs equivalent to NV assembly programs must give the same reference results, and
//! the GLSL shuffle lowering agrees with a plain model of the extension's formulas.

use super::tests::{buf, plan_of, prog};
use crate::Options;
use conform_plan::bytes::read_u32s;
use conform_plan::{BufferKind, Language, ProgramSource, Stage};
use quickcheck::{QuickCheck, TestResult};

fn nv(text: &str) -> ProgramSource {
    ProgramSource {
        language: Language::Nvasm,
        ..prog(Stage::Compute, text)
    }
}

fn run_both(
    glsl: &str,
    asm: &str,
    sizes: &[usize],
    groups: [u32; 3],
) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let mk = |p: ProgramSource| {
        let bufs = sizes
            .iter()
            .enumerate()
            .map(|(i, n)| buf(i as u32, BufferKind::Storage, &vec![0xDEAD_BEEF; *n]))
            .collect();
        let plan = plan_of(vec![p], bufs, groups);
        let out = crate::run(&plan, &Options::default()).expect("runs");
        assert_eq!(out.build.failed_at, None, "{}", out.build.log);
        out.buffers.iter().map(|b| read_u32s(b)).collect::<Vec<_>>()
    };
    (mk(prog(Stage::Compute, glsl)), mk(nv(asm)))
}

#[test]
fn global_id_equivalent() {
    let g = "#version 430\nlayout(local_size_x = 4, local_size_y = 2) in;\n\
        layout(std430, binding = 0) buffer Out { uint o[]; };\n\
        void main() { uvec3 id = gl_GlobalInvocationID; o[id.y * 8u + id.x] = id.y * 1000u + id.x; }";
    let a = "!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nGROUP_SIZE 4 2;\nSTORAGE out[] = { program.storage[0] };\nTEMP r, a;\n\
        MAD.U a.x, invocation.globalid.y, 8, invocation.globalid.x;\nMUL.U a.x, a.x, 4;\n\
        MAD.U r.x, invocation.globalid.y, 1000, invocation.globalid.x;\nSTB.U32 r.x, out[a.x];\nEND\n";
    let (x, y) = run_both(g, a, &[48], [2, 3, 1]);
    assert_eq!(x, y);
    assert_eq!(x[0][8 * 5 + 7], 5007);
}

#[test]
fn shared_reverse_equivalent() {
    let g = "#version 430\nlayout(local_size_x = 64) in;\nlayout(std430, binding = 0) buffer Out { uint o[]; };\n\
        shared uint s[64];\nvoid main() { uint i = gl_LocalInvocationIndex; s[i] = gl_WorkGroupID.x * 1000u + i; barrier();\n\
        uint j = 63u - i; o[gl_WorkGroupID.x * 64u + j] = s[j]; }";
    let a = "!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nGROUP_SIZE 64;\nSHARED_MEMORY 256;\nSHARED smem[] = { program.sharedmem };\n\
        STORAGE out[] = { program.storage[0] };\nTEMP v, a, j;\nMAD.U v.x, invocation.groupid.x, 1000, invocation.localindex.x;\n\
        MUL.U a.x, invocation.localindex.x, 4;\nSTS.U32 v.x, smem[a.x];\nBAR;\nSUB.U j.x, 63, invocation.localindex.x;\n\
        MUL.U a.x, j.x, 4;\nLDS.U32 v.x, smem[a.x];\nMAD.U a.x, invocation.groupid.x, 64, j.x;\nMUL.U a.x, a.x, 4;\nSTB.U32 v.x, out[a.x];\nEND\n";
    let (x, y) = run_both(g, a, &[128], [2, 1, 1]);
    assert_eq!(x, y);
    assert_eq!(x[0][64 + 5], 1005);
}

#[test]
fn shared_atomic_add_equivalent() {
    let g = "#version 430\nlayout(local_size_x = 64) in;\nlayout(std430, binding = 0) buffer Ret { uint ret[]; };\n\
        layout(std430, binding = 1) buffer Fin { uint fin[]; };\nshared uint c;\n\
        void main() { c = 100u; barrier(); uint r = atomicAdd(c, 1u); ret[gl_WorkGroupID.x * 64u + gl_LocalInvocationIndex] = r;\n\
        barrier(); fin[gl_WorkGroupID.x] = c; }";
    let a = "!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nGROUP_SIZE 64;\nSHARED_MEMORY 4;\nSHARED smem[] = { program.sharedmem };\n\
        STORAGE ret[] = { program.storage[0] };\nSTORAGE fin[] = { program.storage[1] };\nTEMP r, a;\nMOV.U r.x, 100;\nSTS.U32 r.x, smem[0];\nBAR;\n\
        ATOMS.ADD.U32 r.x, 1, smem[0];\nMAD.U a.x, invocation.groupid.x, 64, invocation.localindex.x;\nMUL.U a.x, a.x, 4;\n\
        STB.U32 r.x, ret[a.x];\nBAR;\nLDS.U32 r.x, smem[0];\nMUL.U a.x, invocation.groupid.x, 4;\nSTB.U32 r.x, fin[a.x];\nEND\n";
    let (x, y) = run_both(g, a, &[128, 2], [2, 1, 1]);
    assert_eq!(x[1], vec![164, 164]);
    let (mut xs, mut ys) = (x[0].clone(), y[0].clone());
    xs.sort();
    ys.sort();
    assert_eq!(xs, ys);
}

#[test]
fn shuffle_idx_equivalent() {
    let g = "#version 430\n#extension GL_NV_shader_thread_shuffle : require\nlayout(local_size_x = 32) in;\n\
        layout(std430, binding = 0) buffer Res { uint res[]; };\nlayout(std430, binding = 1) buffer Valid { uint valid[]; };\n\
        void main() { uint l = gl_LocalInvocationIndex; bool ok; res[l] = shuffleNV(l + 100u, 2u, 8u, ok); valid[l] = ok ? 0xFFFFFFFFu : 0u; }";
    let a = "!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nOPTION NV_shader_thread_shuffle;\nGROUP_SIZE 32;\n\
        STORAGE res[] = { program.storage[0] };\nSTORAGE valid[] = { program.storage[1] };\nTEMP d, r, a;\n\
        ADD.U d.x, invocation.localindex.x, 100;\nSHFIDX.U r, d.x, 2, 6151;\nMUL.U a.x, invocation.localindex.x, 4;\n\
        STB.U32 r.y, res[a.x];\nSTB.U32 r.x, valid[a.x];\nEND\n";
    let (x, y) = run_both(g, a, &[32, 32], [1, 1, 1]);
    assert_eq!(x[0], y[0]);
    assert_eq!(x[1], y[1]);
    assert_eq!(x[0][13], 100 + 8 + 2);
}

#[test]
fn loop_and_storage_atomics_equivalent() {
    let g = "#version 430\nlayout(local_size_x = 16) in;\nlayout(std430, binding = 0) buffer Out { uint o[]; };\n\
        void main() { uint s = 0u; for (int i = 0; i < 5; i++) { s += gl_LocalInvocationIndex * uint(i); }\n\
        atomicMax(o[16], s); o[gl_LocalInvocationIndex] = s; }";
    let a = "!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nGROUP_SIZE 16;\nSTORAGE out[] = { program.storage[0] };\nTEMP s, i, t, a;\n\
        MOV.U s.x, 0;\nMOV.U i.x, 0;\nREP 5;\nMUL.U t.x, invocation.localindex.x, i.x;\nADD.U s.x, s.x, t.x;\nADD.U i.x, i.x, 1;\nENDREP;\n\
        ATOMB.MAX.U32 t.x, s.x, out[64];\nMUL.U a.x, invocation.localindex.x, 4;\nSTB.U32 s.x, out[a.x];\nEND\n";
    let (x, y) = run_both(g, a, &[17], [1, 1, 1]);
    assert_eq!(x, y);
    assert_eq!(x[0][3], 30);
    assert_eq!(x[0][16], 0xDEAD_BEEF);
}

/// The extension's formulas, written out directly (README readings 3 and 5).
fn model(mode: u8, lane: u32, index: u32, width: u32) -> (u32, bool) {
    let index = index & 31;
    let id = lane % width;
    let base = lane - id;
    let (src, ok): (i64, bool) = match mode {
        0 => (i64::from(index), index < width),
        1 => (
            i64::from(id) - i64::from(index),
            i64::from(id) - i64::from(index) >= 0,
        ),
        2 => (i64::from(id + index), id + index < width),
        _ => (i64::from(id ^ index), (id ^ index) < width),
    };
    if ok {
        ((i64::from(base) + src) as u32, true)
    } else {
        (lane, false)
    }
}

#[test]
fn shuffle_lowering_matches_spec_model() {
    fn prop(mode: u8, wlog: u8, a: u8, b: u8, ty: u8, lanes: u8) -> TestResult {
        let mode = mode % 4;
        let width = 1u32 << (1 + wlog % 5);
        let lanes = 1 + lanes % 4;
        let name = ["shuffleNV", "shuffleUpNV", "shuffleDownNV", "shuffleXorNV"][mode as usize];
        let (tname, to_u, from) = match ty % 4 {
            0 => ("uint", "", ""),
            1 => ("int", "uint", "int"),
            2 => ("float", "uint", "float"),
            _ => ("bool", "uint", "bool"),
        };
        let vt = |t: &str| -> String {
            if lanes == 1 {
                t.to_string()
            } else {
                let p = match t {
                    "uint" => "uvec",
                    "int" => "ivec",
                    "float" => "vec",
                    _ => "bvec",
                };
                format!("{p}{lanes}")
            }
        };
        // Per-lane index a * lane + b (may exceed 31: only the low 5 bits count).
        let data = if tname == "bool" {
            format!("{}(((l >> 1u) & 1u) == 1u)", vt("bool"))
        } else {
            format!("{}({from}(l + 1000u))", vt(tname))
        };
        let get0 = if lanes == 1 {
            "r".to_string()
        } else {
            "r.x".to_string()
        };
        let getn = if lanes == 1 {
            "r".to_string()
        } else {
            format!("r[{}]", lanes - 1)
        };
        let _ = to_u;
        let src = format!(
            "#version 430\n#extension GL_NV_shader_thread_shuffle : require\nlayout(local_size_x = 32) in;\n\
             layout(std430, binding = 0) buffer O {{ uint o[]; }};\n\
             void main() {{ uint l = gl_LocalInvocationIndex; bool ok; {vtn} r = {name}({data}, l * {a}u + {b}u, {width}u, ok);\n\
             o[l * 3u] = uint({get0}); o[l * 3u + 1u] = ok ? 1u : 0u; o[l * 3u + 2u] = uint({getn}); }}",
            vtn = vt(tname),
        );
        let plan = plan_of(
            vec![prog(Stage::Compute, &src)],
            vec![buf(0, BufferKind::Storage, &[0; 96])],
            [1, 1, 1],
        );
        let out = match crate::run(
            &plan,
            &Options {
                schedules: 1,
                ..Options::default()
            },
        ) {
            Ok(o) => o,
            Err(e) => return TestResult::error(format!("{e:?}\n{src}")),
        };
        if out.build.failed_at.is_some() {
            return TestResult::error(format!("{}\n{src}", out.build.log));
        }
        let o = read_u32s(&out.buffers[0]);
        for l in 0..32u32 {
            let idx = l.wrapping_mul(u32::from(a)).wrapping_add(u32::from(b));
            let (s, ok) = model(mode, l, idx, width);
            let want = if tname == "bool" {
                (s >> 1) & 1
            } else {
                s + 1000
            };
            let got = &o[(l * 3) as usize..(l * 3 + 3) as usize];
            if got != [want, u32::from(ok), want] {
                return TestResult::error(format!(
                    "{name} width {width} lane {l} index {idx}: want ({want}, {ok}), got {got:?}"
                ));
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(u8, u8, u8, u8, u8, u8) -> TestResult);
}

/// A random expression over three operands; `leaf(i)` spells operand i.
#[derive(Clone, Debug)]
enum E {
    Leaf(u8),
    Bin(u8, Box<E>, Box<E>),
    Sel(Box<E>, Box<E>, Box<E>),
    Swz(Box<E>, u8),
}

impl quickcheck::Arbitrary for E {
    fn arbitrary(g: &mut quickcheck::Gen) -> E {
        fn go(g: &mut quickcheck::Gen, d: u32) -> E {
            let k = u8::arbitrary(g) % if d == 0 { 1 } else { 8 };
            match k {
                0..=1 => E::Leaf(u8::arbitrary(g) % 3),
                2..=5 => E::Bin(
                    u8::arbitrary(g),
                    Box::new(go(g, d - 1)),
                    Box::new(go(g, d - 1)),
                ),
                6 => E::Sel(
                    Box::new(go(g, d - 1)),
                    Box::new(go(g, d - 1)),
                    Box::new(go(g, d - 1)),
                ),
                _ => E::Swz(Box::new(go(g, d - 1)), u8::arbitrary(g)),
            }
        }
        go(g, 3)
    }
}

fn spell(e: &E, ty: &str, leaf: &dyn Fn(u8) -> String) -> String {
    match e {
        E::Leaf(i) => leaf(*i),
        E::Bin(op, a, b) => {
            let (a, b) = (spell(a, ty, leaf), spell(b, ty, leaf));
            let int = ty != "float";
            let ops: &[&str] = if int {
                &[
                    "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "min", "max",
                ]
            } else {
                &["+", "-", "*", "/", "min", "max", "mod", "pow"]
            };
            let o = ops[*op as usize % ops.len()];
            match o {
                "min" | "max" | "mod" | "pow" => format!("{o}({a}, {b})"),
                "<<" | ">>" => format!("(({a}) {o} (({b}) & {ty}(7)))"),
                _ => format!("(({a}) {o} ({b}))"),
            }
        }
        E::Sel(c, a, b) => format!(
            "((({}) < ({})) ? ({}) : ({}))",
            spell(c, ty, leaf),
            spell(a, ty, leaf),
            spell(a, ty, leaf),
            spell(b, ty, leaf)
        ),
        E::Swz(a, k) => {
            let comp = ["x", "y", "z"][*k as usize % 3];
            format!(
                "{}({}, {ty}(5), {ty}(2)).{comp}",
                vec3_of(ty),
                spell(a, ty, leaf)
            )
        }
    }
}

fn vec3_of(ty: &str) -> &'static str {
    match ty {
        "int" => "ivec3",
        "uint" => "uvec3",
        _ => "vec3",
    }
}

/// Constant folding (operands are literals) and run-time evaluation (operands loaded from a
/// buffer) of the same expression give the same bits.
#[test]
fn folding_agrees_with_execution() {
    fn prop(e: E, t: u8, a: i32, b: i32, c: i32) -> TestResult {
        let ty = ["int", "uint", "float"][t as usize % 3];
        let vals = [a % 1000, b % 1000, c % 1000];
        let lit = |i: u8| -> String {
            let v = vals[i as usize];
            match ty {
                "int" => format!("({v})"),
                "uint" => format!("{}u", v as u32),
                _ => format!("({v}.5)"),
            }
        };
        let rt = |i: u8| -> String { format!("{ty}In[{i}]") };
        let k = spell(&e, ty, &lit);
        let r = spell(&e, ty, &rt);
        let conv = if ty == "float" {
            "floatBitsToUint"
        } else {
            "uint"
        };
        let src = format!(
            "#version 430\nlayout(local_size_x = 1) in;\n\
             layout(std430, binding = 0) buffer O {{ uint o[2]; int intIn[3]; uint uintIn[3]; float floatIn[3]; }};\n\
             void main() {{ const {ty} k = {k}; o[0] = {conv}(k); o[1] = {conv}({r}); }}"
        );
        let mut init = vec![0u32; 11];
        for i in 0..3 {
            init[2 + i] = vals[i] as u32;
            init[5 + i] = vals[i] as u32;
            init[8 + i] = format!("{}.5", vals[i])
                .parse::<f32>()
                .unwrap_or(0.0)
                .to_bits();
        }
        let plan = plan_of(
            vec![prog(Stage::Compute, &src)],
            vec![buf(0, BufferKind::Storage, &init)],
            [1, 1, 1],
        );
        let out = match crate::run(
            &plan,
            &Options {
                schedules: 1,
                ..Options::default()
            },
        ) {
            Ok(o) => o,
            Err(e) => return TestResult::error(format!("{e:?}\n{src}")),
        };
        if out.build.failed_at.is_some() {
            // Not a constant expression (e.g. a constant division by zero is still folded): skip.
            return TestResult::error(format!("{}\n{src}", out.build.log));
        }
        let o = read_u32s(&out.buffers[0]);
        let same = o[0] == o[1]
            || (ty == "float" && f32::from_bits(o[0]).is_nan() && f32::from_bits(o[1]).is_nan());
        if !same {
            return TestResult::error(format!("folded {:#x} vs executed {:#x}\n{src}", o[0], o[1]));
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(
            std::env::var("GLSL_FOLD_TESTS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(150),
        )
        .quickcheck(prop as fn(E, u8, i32, i32, i32) -> TestResult);
}
