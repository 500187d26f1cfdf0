//! A litmus test as an NV assembly compute program (`!!NVcp5.0`), laid out as the GLSL form
//! (`glsl.rs`): role code from `m`, first accesses, the fence, second accesses, registers to
//! the record in `o`. Workgroup scope: locations in `SHARED_MEMORY` (LDS/STS), zeroed and
//! fenced with `MEMBAR.CTA; BAR;`. Device scope: the record's last words, accessed with
//! `LDB.U32.COH`/`STB.U32.COH` (coherent, NV_gpu_program5's COH modifier).

use super::layout::{Layout, ROLE_STRESS, STRESS_ROUNDS, STRESS_WORDS};
use super::shape::{loads, local_register, Fence, Op, Scope};
use std::fmt::Write;

/// The program of `layout`'s test.
pub fn emit(layout: &Layout) -> String {
    let test = layout.test;
    let shape = test.shape;
    let (regs, locs, width) = (shape.registers(), shape.locations(), shape.width());
    let w = layout.params.group_size;
    let wg = test.scope == Scope::Workgroup;
    let mem_bytes = 4 * layout.per_group as usize * locs;
    let mut s = String::from("!!NVcp5.0\nOPTION NV_shader_storage_buffer;\n");
    let _ = writeln!(s, "GROUP_SIZE {w};");
    if wg {
        let _ = writeln!(s, "SHARED_MEMORY {};", mem_bytes + 4 * w as usize);
        s.push_str("SHARED sh[] = { program.sharedmem };\n");
    }
    s.push_str(
        "STORAGE o[] = { program.storage[0] };\n\
         STORAGE m[] = { program.storage[1] };\n\
         STORAGE st[] = { program.storage[2] };\n\
         TEMP c, a, r0, r1, t, k;\n",
    );
    s.push_str("MUL.U a.x, invocation.globalid.x, 4;\nLDB.U32 c.x, m[a.x];\n");
    s.push_str("AND.U c.y, c.x, 255;\nSHR.U c.z, c.x, 8;\n");
    let _ = writeln!(s, "MUL.U a.z, c.z, {};", 4 * width);
    s.push_str("MOV.U r0, 0;\nMOV.U r1, 0;\n");
    let (load, store, at) = if wg {
        let _ = writeln!(s, "MOD.U a.y, c.z, {};", layout.per_group);
        let _ = writeln!(s, "MUL.U a.y, a.y, {};", 4 * locs);
        ("LDS.U32", "STS.U32", "sh[a.y")
    } else {
        ("LDB.U32.COH", "STB.U32.COH", "o[a.z")
    };
    let at = |l: usize| format!("{at} + {}]", 4 * l);
    // Device-scope locations follow the registers in the record.
    let off = |l: usize| if wg { l } else { regs + l };
    let role_if = |s: &mut String, role: u32| {
        let _ = writeln!(s, "SEQ.U.CC t.x, c.y, {role};\nIF NE.x;");
    };
    if wg {
        s.push_str("MUL.U k.x, invocation.localindex.x, 4;\nMOV.U t.y, 0;\n");
        let _ = writeln!(s, "STS.U32 t.y, sh[k.x + {mem_bytes}];");
        role_if(&mut s, 0);
        for l in 0..locs {
            let _ = writeln!(s, "STS.U32 t.y, {};", at(off(l)));
        }
        s.push_str("ENDIF;\nMEMBAR.CTA;\nBAR;\n");
    }
    let threads = shape.threads();
    let reg_of = shape.first_registers();
    // Registers are whole temporaries: a scalar load fills the x component of its result
    // vector, so a second load into `.y` of the same temporary would write 0.
    const REGS: [&str; 2] = ["r0", "r1"];
    for phase in 0..2 {
        for (t, ops) in threads.iter().enumerate() {
            let Some(op) = ops.get(phase) else { continue };
            let r = REGS[local_register(ops, phase)];
            role_if(&mut s, t as u32);
            match *op {
                Op::Store(l, v) => {
                    let _ = writeln!(s, "MOV.U t.y, {v};\n{store} t.y, {};", at(off(l)));
                }
                Op::Load(l) => {
                    let _ = writeln!(s, "{load} {r}.x, {};", at(off(l)));
                }
            }
            s.push_str("ENDIF;\n");
        }
        if phase == 0 {
            if layout.params.stress > 0 {
                stress(&mut s, wg, w, mem_bytes);
            }
            for line in fence(test.fence) {
                let _ = writeln!(s, "{line};");
            }
        }
    }
    for (t, ops) in threads.iter().enumerate() {
        let loads = loads(ops);
        if loads == 0 {
            continue;
        }
        role_if(&mut s, t as u32);
        for (k, r) in REGS.iter().enumerate().take(loads) {
            let _ = writeln!(s, "STB.U32 {r}.x, o[a.z + {}];", 4 * (reg_of[t] + k));
        }
        s.push_str("ENDIF;\n");
    }
    if wg {
        s.push_str("MEMBAR.CTA;\nBAR;\n");
        role_if(&mut s, 0);
        for l in 0..locs {
            let _ = writeln!(s, "LDS.U32 r0.x, {};", at(l));
            let _ = writeln!(s, "STB.U32 r0.x, o[a.z + {}];", 4 * (regs + l));
        }
        s.push_str("ENDIF;\n");
    }
    s.push_str("END\n");
    s
}

/// Stress invocations: rounds of a load and a store on scratch words.
fn stress(s: &mut String, wg: bool, w: u32, mem_bytes: usize) {
    let _ = writeln!(s, "SEQ.U.CC t.x, c.y, {ROLE_STRESS};\nIF NE.x;");
    let (id, words) = if wg {
        ("invocation.localindex.x", w)
    } else {
        ("invocation.globalid.x", STRESS_WORDS)
    };
    let _ = writeln!(s, "MUL.U k.y, {id}, 7;\nREP {STRESS_ROUNDS};");
    let _ = writeln!(
        s,
        "ADD.U k.y, k.y, 1;\nMOD.U k.z, k.y, {words};\nMUL.U k.z, k.z, 4;"
    );
    // A scalar load writes its value to x and zeroes to the other components (NV_gpu_program5
    // 2.X.4.5: "remaining components are filled with zeroes"): the count goes through t.x (the
    // role test's condition code is already set).
    if wg {
        let _ = writeln!(
            s,
            "LDS.U32 t.x, sh[k.z + {mem_bytes}];\nADD.U t.x, t.x, 1;\nSTS.U32 t.x, sh[k.z + {mem_bytes}];"
        );
    } else {
        s.push_str("LDB.U32.COH t.x, st[k.z];\nADD.U t.x, t.x, 1;\nSTB.U32.COH t.x, st[k.z];\n");
    }
    s.push_str("ENDREP;\nENDIF;\n");
}

/// The instructions of an NV assembly fence.
fn fence(f: Fence) -> Vec<&'static str> {
    match f {
        Fence::Membar => vec!["MEMBAR"],
        Fence::MembarCta => vec!["MEMBAR.CTA"],
        Fence::Bar => vec!["BAR"],
        Fence::MembarCtaBar => vec!["MEMBAR.CTA", "BAR"],
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::layout::Params;
    use crate::litmus::shape::{Lang, Shape, Test};

    fn emit_mp(scope: Scope, fence: Fence) -> String {
        let test = Test {
            shape: Shape::Mp,
            scope,
            fence,
            lang: Lang::Nvasm,
        };
        emit(&Layout::new(test, Params::default()).unwrap())
    }

    /// The fence stands between the first and second accesses, outside any IF (BAR must be
    /// reached by the whole group), and device-scope accesses are coherent.
    #[test]
    fn the_fence_sits_between_the_phases_in_uniform_flow() {
        let text = emit_mp(Scope::Device, Fence::Membar);
        let first = text.find("STB.U32.COH t.y, o[a.z + 8]").unwrap();
        let fence = text.find("MEMBAR;").unwrap();
        let second = text.find("STB.U32.COH t.y, o[a.z + 12]").unwrap();
        assert!(first < fence && fence < second, "{text}");
        let depth: i32 = text[..fence]
            .lines()
            .map(|l| i32::from(l.starts_with("IF ")) - i32::from(l == "ENDIF;"))
            .sum();
        assert_eq!(depth, 0);
        let wg = emit_mp(Scope::Workgroup, Fence::MembarCtaBar);
        assert_eq!(wg.matches("MEMBAR.CTA;\nBAR;").count(), 3, "{wg}");
        assert!(!wg.contains(".COH"));
    }
}
