//! A litmus test as a GLSL 4.30 compute shader.
//!
//! Every invocation reads its role code from `map`; the test threads' first accesses run in
//! one `if` per thread, then the fence (in uniform control flow: every invocation executes
//! it, stress and idle ones too), then the second accesses, then the registers go to the
//! instance's record in `o`. Workgroup scope: the locations are `shared` (zeroed and fenced
//! with `memoryBarrierShared(); barrier();` before the test) and copied to the record after a
//! second such barrier. Device scope: the locations are the record's last words, in a
//! `coherent` buffer. Stress invocations load and store scratch words (`scratch` in shared
//! memory, `st` in a storage buffer) meanwhile.

use super::layout::{Layout, ROLE_STRESS, STRESS_ROUNDS, STRESS_WORDS};
use super::shape::{loads, local_register, Fence, Op, Scope};
use std::fmt::Write;

/// The source of `layout`'s test.
pub fn emit(layout: &Layout) -> String {
    let test = layout.test;
    let shape = test.shape;
    let (regs, locs, width) = (shape.registers(), shape.locations(), shape.width());
    let w = layout.params.group_size;
    let wg = test.scope == Scope::Workgroup;
    let mut s = String::new();
    if needs_gl43(test.fence) {
        let _ = writeln!(s, "#version 430");
    } else {
        s.push_str(
            "#version 330\n\
             #extension GL_ARB_compute_shader : require\n\
             #extension GL_ARB_shader_storage_buffer_object : require\n",
        );
    }
    let _ = writeln!(s, "layout(local_size_x = {w}) in;");
    let _ = writeln!(
        s,
        "layout(std430, binding = 0) coherent buffer Out {{ uint o[]; }};"
    );
    let _ = writeln!(
        s,
        "layout(std430, binding = 1) readonly buffer Map {{ uint map[]; }};"
    );
    let _ = writeln!(
        s,
        "layout(std430, binding = 2) coherent buffer Stress {{ uint st[]; }};"
    );
    if wg {
        let _ = writeln!(s, "shared uint mem[{}];", layout.per_group as usize * locs);
        let _ = writeln!(s, "shared uint scratch[{w}];");
    }
    let _ = writeln!(s, "void main() {{");
    let _ = writeln!(s, "  uint code = map[gl_GlobalInvocationID.x];");
    let _ = writeln!(s, "  uint role = code & 255u;");
    let _ = writeln!(s, "  uint rec = (code >> 8u) * {width}u;");
    let _ = writeln!(s, "  uint r0 = 0u;\n  uint r1 = 0u;");
    let loc = |l: usize| -> String {
        if wg {
            format!("mem[(code >> 8u) % {}u * {locs}u + {l}u]", layout.per_group)
        } else {
            format!("o[rec + {}u]", regs + l)
        }
    };
    if wg {
        let _ = writeln!(s, "  scratch[gl_LocalInvocationIndex] = 0u;");
        let inits: String = (0..locs).map(|l| format!(" {} = 0u;", loc(l))).collect();
        let _ = writeln!(s, "  if (role == 0u) {{{inits} }}");
        let _ = writeln!(s, "  memoryBarrierShared();\n  barrier();");
    }
    let threads = shape.threads();
    let reg_of = shape.first_registers();
    for phase in 0..2 {
        for (t, ops) in threads.iter().enumerate() {
            let Some(op) = ops.get(phase) else { continue };
            let r = local_register(ops, phase);
            let stmt = match *op {
                Op::Store(l, v) => format!("{} = {v}u;", loc(l)),
                Op::Load(l) => format!("r{r} = {};", loc(l)),
            };
            let _ = writeln!(s, "  if (role == {t}u) {{ {stmt} }}");
        }
        if phase == 0 {
            let scratch = if wg {
                format!("scratch[(gl_LocalInvocationIndex * 7u + k) % {w}u]")
            } else {
                format!("st[(gl_GlobalInvocationID.x * 7u + k) % {STRESS_WORDS}u]")
            };
            if layout.params.stress > 0 {
                let _ = writeln!(
                    s,
                    "  if (role == {ROLE_STRESS}u) {{\n    for (uint k = 0u; k < {STRESS_ROUNDS}u; k++) {{ {scratch} = {scratch} + 1u; }}\n  }}"
                );
            }
            for line in fence(test.fence) {
                let _ = writeln!(s, "  {line}");
            }
        }
    }
    for (t, ops) in threads.iter().enumerate() {
        let loads = loads(ops);
        if loads == 0 {
            continue;
        }
        let stores: String = (0..loads)
            .map(|k| format!(" o[rec + {}u] = r{k};", reg_of[t] + k))
            .collect();
        let _ = writeln!(s, "  if (role == {t}u) {{{stores} }}");
    }
    if wg {
        let _ = writeln!(s, "  memoryBarrierShared();\n  barrier();");
        let finals: String = (0..locs)
            .map(|l| format!(" o[rec + {}u] = {};", regs + l, loc(l)))
            .collect();
        let _ = writeln!(s, "  if (role == 0u) {{{finals} }}");
    }
    let _ = writeln!(s, "}}");
    s
}

/// Whether the test needs GLSL 4.30 (GL 4.3): memoryBarrier() comes with GLSL 4.20 or
/// ARB_shader_image_load_store, which Mesa does not offer in softpipe's 3.3 context. The other
/// fences are ARB_compute_shader's, so those tests run in a 3.3 context with its extensions.
pub fn needs_gl43(fence: Fence) -> bool {
    fence == Fence::MemoryBarrier
}

/// The statements of a GLSL fence.
fn fence(f: Fence) -> Vec<&'static str> {
    match f {
        Fence::MemoryBarrier => vec!["memoryBarrier();"],
        Fence::MemoryBarrierShared => vec!["memoryBarrierShared();"],
        Fence::MemoryBarrierBuffer => vec!["memoryBarrierBuffer();"],
        Fence::GroupMemoryBarrier => vec!["groupMemoryBarrier();"],
        Fence::Barrier => vec!["barrier();"],
        Fence::MemoryBarrierSharedBarrier => vec!["memoryBarrierShared();", "barrier();"],
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::layout::Params;
    use crate::litmus::shape::{Lang, Shape, Test};

    #[test]
    fn shared_tests_zero_fence_and_copy_out_their_locations() {
        let test = Test {
            shape: Shape::Sb,
            scope: Scope::Workgroup,
            fence: Fence::MemoryBarrierSharedBarrier,
            lang: Lang::Glsl,
        };
        let text = emit(
            &Layout::new(
                test,
                Params {
                    stress: 2,
                    ..Params::default()
                },
            )
            .unwrap(),
        );
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let at = |s: &str| lines.iter().position(|l| l.starts_with(s)).unwrap();
        // SB thread 0: store x, the fence, load y into r0; 31 instances per group of 64.
        let barriers: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i] == "barrier();")
            .collect();
        assert_eq!(barriers.len(), 3, "{text}");
        let store = at("if (role == 0u) { mem[(code >> 8u) % 31u * 2u + 0u] = 1u; }");
        let load = at("if (role == 0u) { r0 = mem[(code >> 8u) % 31u * 2u + 1u]; }");
        assert!(
            barriers[0] < store && store < barriers[1] && barriers[1] < load,
            "{text}"
        );
        assert_eq!(lines[barriers[1] - 1], "memoryBarrierShared();");
        assert!(text.contains("if (role == 0u) { o[rec + 2u] = mem[(code >> 8u) % 31u * 2u + 0u]; o[rec + 3u] = mem[(code >> 8u) % 31u * 2u + 1u]; }"));
        assert!(text.contains(&format!("if (role == {ROLE_STRESS}u)")));
    }
}
