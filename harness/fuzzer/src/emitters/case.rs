//! Program tree → a YAML case in the corpus format (cases/README.md), with the model's
//! expectations, the clauses the blocks exercise and what a backend must offer.
//!
//! The text goes through the ordinary case loader before anything runs, so every case the
//! fuzzer executes or writes is one `conform run` reproduces as-is.

use super::{glsl as emit_glsl, nvasm as emit_nvasm, spirv as emit_spirv};
use crate::ast::*;
use crate::oracles::model::{block_model, Elem, Want};
use std::fmt::Write;

/// Reference IR instructions one compute statement can take at most (its expression lowered,
/// plus the loop bookkeeping), with room to spare.
const STEPS_PER_STATEMENT: u64 = 512;

/// The wall-clock limit of a program with undefined behaviour on purpose, which may hang.
const UNDEFINED_TIMEOUT_MS: u64 = 2000;

/// A program rendered as a case.
pub struct CaseText {
    pub yaml: String,
    /// Instructions (NV assembly) or statements (GLSL) of the program.
    pub instructions: usize,
}

/// Clause ids (cases/clauses.yaml) a block exercises.
fn clauses(b: &Block, lang: Lang, out: &mut Vec<&'static str>) {
    // SPIR-V modules run through ARB_gl_spirv with ARB_compute_shader's semantics: the GLSL
    // clauses of the same constructs.
    match (lang, b) {
        (Lang::Nvasm, Block::Atomic(a)) if a.space == Space::Shared => {
            out.extend([
                "NVCP5-ATOMS-RESULT",
                "NVCP5-ATOMS-ATOMICITY",
                "NVCP5-STS",
                "NVCP5-LDS",
                "NVCP5-BAR-SYNC",
                "NVCP5-SHARED-PER-GROUP",
            ]);
            out.push(match a.op {
                AtomicOp::Add => "NVCP5-ATOMS-ADD",
                AtomicOp::Min => "NVCP5-ATOMS-MIN",
                AtomicOp::Max => "NVCP5-ATOMS-MAX",
                AtomicOp::And => "NVCP5-ATOMS-AND",
                AtomicOp::Or => "NVCP5-ATOMS-OR",
                AtomicOp::Xor => "NVCP5-ATOMS-XOR",
                AtomicOp::Exch => "NVCP5-ATOMS-EXCH",
                AtomicOp::CSwap => "NVCP5-ATOMS-CSWAP",
                AtomicOp::IWrap => "NVCP5-ATOMS-IWRAP",
                AtomicOp::DWrap => "NVCP5-ATOMS-DWRAP",
            });
        }
        (Lang::Nvasm, Block::Atomic(_)) => out.push("NVCP5-ATTR-GLOBALID"),
        (Lang::Nvasm, Block::Section(s)) => {
            if s.space == Space::Shared {
                out.extend(["NVCP5-ATOMS-ADD", "NVCP5-ATOMS-RESULT", "NVCP5-BAR-SYNC"]);
            }
        }
        (Lang::Nvasm, Block::Exchange(_)) => out.extend([
            "NVCP5-STS",
            "NVCP5-LDS",
            "NVCP5-BAR-SYNC",
            "NVCP5-MEMBAR-CTA",
            "NVCP5-ATTR-LOCALINDEX",
        ]),
        (Lang::Nvasm, Block::Shuffle(s)) => {
            out.extend([
                "SHFL-ASM-OPTION",
                "SHFL-ASM-MASK",
                "SHFL-ASM-RESULT-LAYOUT",
                "SHFL-ASM-TRUE-VALUES",
                "SHFL-ASM-TYPES",
                "SHFL-ASM-RANGE-BOUNDARY",
            ]);
            out.push(match s.mode {
                ShflMode::Idx => "SHFL-ASM-IDX",
                ShflMode::Up => "SHFL-ASM-UP",
                ShflMode::Down => "SHFL-ASM-DOWN",
                ShflMode::Xor => "SHFL-ASM-XOR",
            });
        }
        (Lang::Nvasm, Block::Compute(_) | Block::Vector(_)) => {
            out.extend(["NVCP5-ATTR-GLOBALID", "NVCP5-ATTR-GROUPID"])
        }
        (Lang::Glsl | Lang::Spirv, Block::Atomic(a)) => out.push(match a.op {
            AtomicOp::Add => "ARBCS-GLSL-ATOMIC-ADD",
            AtomicOp::Min => "ARBCS-GLSL-ATOMIC-MIN",
            AtomicOp::Max => "ARBCS-GLSL-ATOMIC-MAX",
            AtomicOp::And => "ARBCS-GLSL-ATOMIC-AND",
            AtomicOp::Or => "ARBCS-GLSL-ATOMIC-OR",
            AtomicOp::Xor => "ARBCS-GLSL-ATOMIC-XOR",
            AtomicOp::Exch => "ARBCS-GLSL-ATOMIC-EXCHANGE",
            AtomicOp::CSwap => "ARBCS-GLSL-ATOMIC-COMPSWAP",
            // Program::check keeps these out of GLSL.
            AtomicOp::IWrap | AtomicOp::DWrap => "ARBCS-GLSL-ATOMIC-ADD",
        }),
        // Each part's clauses, as a one-operation block's.
        (_, Block::AtomicMix(m)) => {
            for j in 0..m.parts.len() {
                clauses(&Block::Atomic(m.part_block(j)), lang, out);
            }
        }
        (Lang::Glsl | Lang::Spirv, Block::Section(_)) => out.push("ARBCS-GLSL-ATOMIC-ADD"),
        (Lang::Glsl | Lang::Spirv, Block::Exchange(_)) => out.extend([
            "ARBCS-GLSL-SHARED-VISIBILITY",
            "ARBCS-GLSL-BARRIER",
            "ARBCS-GLSL-MEMORY-BARRIERS",
        ]),
        (Lang::Glsl | Lang::Spirv, Block::Shuffle(s)) => {
            out.extend([
                "SHFL-GLSL-EXTENSION",
                "SHFL-GLSL-TYPES",
                "SHFL-GLSL-WIDTH-SEGMENTS",
                "SHFL-GLSL-INVALID-OWN-VALUE",
                "SHFL-GLSL-INDEX-5-BITS",
            ]);
            if s.want_valid {
                out.push("SHFL-GLSL-OPTIONAL-VALID");
            }
            out.push(match s.mode {
                ShflMode::Idx => "SHFL-GLSL-IDX",
                ShflMode::Up => "SHFL-GLSL-UP",
                ShflMode::Down => "SHFL-GLSL-DOWN",
                ShflMode::Xor => "SHFL-GLSL-XOR",
            });
        }
        (Lang::Nvasm, Block::Undefined(u)) => out.push(match u.kind {
            UbKind::DivergentBarrier => "NVCP5-BAR-DIVERGENT",
            UbKind::UninitSharedRead => "NVCP5-SHARED-UNDEFINED-INIT",
            UbKind::InactiveLaneRead => "SHFL-ASM-IDX",
            UbKind::OversizeShift | UbKind::DivByZero => "NVCP5-ATTR-GLOBALID",
        }),
        (Lang::Glsl | Lang::Spirv, Block::Undefined(u)) => out.push(match u.kind {
            UbKind::DivergentBarrier => "ARBCS-GLSL-BARRIER-DIVERGENT",
            UbKind::UninitSharedRead => "ARBCS-GLSL-SHARED-UNDEFINED-INIT",
            UbKind::InactiveLaneRead => "SHFL-GLSL-IDX",
            UbKind::OversizeShift | UbKind::DivByZero => "ARBCS-GLSL-GLOBAL-INVOCATION-ID",
        }),
        (Lang::Nvasm, Block::FloatAtomic(_)) => out.push("NVCP5-ATOMS-F32-DEPENDENCY"),
        (Lang::Nvasm, Block::Narrow(n)) => {
            out.extend(["NVCP5-BAR-SYNC", "NVCP5-MEMBAR-CTA"]);
            match n.space {
                Space::Shared => out.extend(["NVCP5-STS", "NVCP5-LDS"]),
                Space::Storage => out.push("NVSSBO-LDB-STB-OPERAND"),
            }
        }
        // Program::check keeps 8- and 16-bit storage in NV assembly.
        (Lang::Glsl | Lang::Spirv, Block::Narrow(_)) => {}
        (Lang::Glsl, Block::FloatAtomic(f)) => out.push(match f.space {
            Space::Storage => "NVAF-GLSL-ADD-BUFFER",
            Space::Shared => "NVAF-GLSL-ADD-SHARED",
        }),
        (Lang::Spirv, Block::FloatAtomic(f)) => out.extend([
            match f.space {
                Space::Storage => "SPVFADD-F32-STORAGE-BUFFER",
                Space::Shared => "SPVFADD-F32-WORKGROUP",
            },
            "SPVFADD-RESULT-ORIGINAL",
            "SPVFADD-ATOMICITY",
        ]),
        (Lang::Spirv, Block::Subgroup(s)) => {
            use crate::ast::subgroup::{SgOp, SgScan};
            out.push(match s.op {
                SgOp::Shuffle | SgOp::ShuffleXor => "SPV-SUBGROUP-SHUFFLE",
                SgOp::ShuffleUp | SgOp::ShuffleDown => "SPV-SUBGROUP-SHUFFLE-RELATIVE",
                SgOp::Broadcast | SgOp::BroadcastFirst => "SPV-SUBGROUP-BROADCAST",
                SgOp::Arith(..) => "SPV-SUBGROUP-ARITHMETIC",
                SgOp::Ballot(_) => "SPV-SUBGROUP-BALLOT",
            });
            out.push("SPV-SUBGROUP-BASIC");
            if matches!(s.op, SgOp::Arith(SgScan::Exclusive, _)) {
                out.push("SPV-SUBGROUP-SCAN-IDENTITY");
            }
        }
        (_, Block::Subgroup(s)) => {
            use crate::ast::subgroup::{SgExt, SgOp};
            out.push(match (s.ext, s.op) {
                (SgExt::Arb, SgOp::Ballot(_)) => "ARBBALLOT-BALLOT",
                (SgExt::Arb, _) => "ARBBALLOT-READ",
                (_, SgOp::Shuffle | SgOp::ShuffleXor) => "KHRSG-SHUFFLE",
                (_, SgOp::ShuffleUp | SgOp::ShuffleDown) => "KHRSG-SHUFFLE-RELATIVE",
                (_, SgOp::Broadcast | SgOp::BroadcastFirst) => "KHRSG-BROADCAST",
                (_, SgOp::Arith(..)) => "KHRSG-ARITHMETIC",
                (_, SgOp::Ballot(_)) => "KHRSG-BALLOT",
            });
            out.push(match s.ext {
                SgExt::Khr => "KHRSG-BASIC-BUILTINS",
                SgExt::Arb => "ARBBALLOT-MASKS",
            });
            if matches!(
                s.op,
                SgOp::Arith(crate::ast::subgroup::SgScan::Exclusive, _)
            ) {
                out.push("KHRSG-SCAN-IDENTITY");
            }
        }
        (Lang::Glsl | Lang::Spirv, Block::Compute(_) | Block::Vector(_)) => out.extend([
            "ARBCS-GLSL-GLOBAL-INVOCATION-ID",
            "ARBCS-GLSL-LOCAL-INVOCATION-INDEX",
            "ARBCS-GLSL-WORK-GROUP-ID",
        ]),
    }
}

/// A value as a person reads it: small numbers in decimal, bit patterns in hexadecimal.
fn value(elem: Elem, v: u32) -> String {
    match elem {
        Elem::U32 if v >= 0x10000 => format!("{v:#X}").replace("0X", "0x"),
        Elem::U32 => v.to_string(),
        Elem::I32 => (v as i32).to_string(),
        Elem::F32 => crate::emitters::spell::float_text(v),
    }
}

/// Data in the shortest form: a fill when every value is the same, else a flow list.
fn data(elem: Elem, values: &[u32]) -> String {
    match values.first() {
        Some(&first) if values.len() > 1 && values.iter().all(|&v| v == first) => {
            format!("{{fill: {}, count: {}}}", value(elem, first), values.len())
        }
        _ => {
            let items: Vec<String> = values.iter().map(|&v| value(elem, v)).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// The program's text in its language.
pub fn program_text(p: &Program) -> emit_glsl::Emitted {
    match p.lang {
        Lang::Glsl => emit_glsl::emit(p),
        Lang::Nvasm => emit_nvasm::emit(p),
        Lang::Spirv => emit_spirv::emit(p),
    }
}

/// How a GLSL program is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GlslProfile {
    /// `#version 430`, for GL 4.3 drivers.
    #[default]
    Core430,
    /// `#version 330` with [`COMPAT_EXTENSIONS`], for GL 3.3 drivers with compute shaders
    /// (softpipe): the same program with the same meaning.
    Compat330,
}

/// What GLSL 3.30 needs to say everything the fuzzer's GLSL says: compute shaders, `shared`,
/// `barrier()`, `memoryBarrierShared()` and atomics on shared variables
/// (ARB_compute_shader); buffer blocks, std430 and atomics on buffer variables
/// (ARB_shader_storage_buffer_object); `layout(binding = k)` (ARB_shading_language_420pack);
/// the bitfield functions, `bitCount`, `findLSB`/`findMSB`, `umulExtended`/`imulExtended` and
/// `fma` (ARB_gpu_shader5).
pub const COMPAT_EXTENSIONS: [&str; 4] = [
    "GL_ARB_compute_shader",
    "GL_ARB_shader_storage_buffer_object",
    "GL_ARB_shading_language_420pack",
    "GL_ARB_gpu_shader5",
];

/// `text` (GLSL 4.30 from `emit_glsl`) written as GLSL 3.30 with [`COMPAT_EXTENSIONS`].
fn compat_text(text: &str) -> String {
    let mut head = String::from("#version 330\n");
    for e in COMPAT_EXTENSIONS {
        let _ = writeln!(head, "#extension {e} : require");
    }
    match text.strip_prefix("#version 430\n") {
        Some(rest) => head + rest,
        None => text.to_string(),
    }
}

/// What a backend must offer to run `p`, as the case's `requires` map.
fn requires(p: &Program, profile: GlslProfile) -> String {
    let compat = p.lang == Lang::Glsl && profile == GlslProfile::Compat330;
    let mut extensions: Vec<&str> = match p.lang {
        Lang::Glsl if compat => COMPAT_EXTENSIONS.to_vec(),
        Lang::Glsl => vec![],
        Lang::Nvasm => vec![
            "GL_NV_compute_program5",
            "GL_NV_shader_storage_buffer_object",
        ],
        Lang::Spirv => vec!["GL_ARB_gl_spirv"],
    };
    if p.needs_shuffle() {
        extensions.push("GL_NV_shader_thread_shuffle");
    }
    extensions.extend(crate::features::subgroup::gl_extensions(p));
    if p.uses_wide() || crate::features::subgroup::needs_int64(p) {
        // NV_gpu_program5's LONG TEMP holds 64 bits only with NV_gpu_program_fp64; SPIR-V's
        // Int64 capability needs ARB_gpu_shader_int64 under ARB_gl_spirv.
        extensions.push(match p.lang {
            Lang::Nvasm => "GL_NV_gpu_program_fp64",
            _ => "GL_ARB_gpu_shader_int64",
        });
    }
    let mut spirv_extensions = Vec::new();
    if p.has_float_atomics() {
        match p.lang {
            Lang::Spirv => spirv_extensions.push("SPV_EXT_shader_atomic_float_add"),
            _ => extensions.push("GL_NV_shader_atomic_float"),
        }
    }
    let mut parts = Vec::new();
    if compat {
        parts.push("gl: \"3.3\"".to_string());
    } else if p.lang != Lang::Nvasm {
        parts.push("gl: \"4.3\"".to_string());
    }
    if !extensions.is_empty() {
        parts.push(format!("extensions: [{}]", extensions.join(", ")));
    }
    if !spirv_extensions.is_empty() {
        parts.push(format!(
            "spirv_extensions: [{}]",
            spirv_extensions.join(", ")
        ));
    }
    format!("{{{}}}", parts.join(", "))
}

/// Renders `p` (which must satisfy [`Program::check`]) as a case named `name`.
pub fn render(p: &Program, name: &str, description: &str) -> CaseText {
    render_in(p, name, description, GlslProfile::Core430)
}

/// [`render`], a GLSL program written in `profile`.
pub fn render_in(p: &Program, name: &str, description: &str, profile: GlslProfile) -> CaseText {
    let mut program = program_text(p);
    if p.lang == Lang::Glsl && profile == GlslProfile::Compat330 {
        program.text = compat_text(&program.text);
    }
    let mut spec: Vec<&str> = Vec::new();
    for b in &p.blocks {
        clauses(b, p.lang, &mut spec);
    }
    if spec.is_empty() {
        spec.push(match p.lang {
            Lang::Glsl | Lang::Spirv => "ARBCS-GLSL-GLOBAL-INVOCATION-ID",
            Lang::Nvasm => "NVCP5-ATTR-GLOBALID",
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    spec.retain(|c| seen.insert(*c));

    let mut y = String::new();
    let _ = writeln!(y, "name: {name}");
    let _ = writeln!(y, "description: >-");
    for line in description.lines() {
        let _ = writeln!(y, "  {line}");
    }
    let _ = writeln!(y, "spec: [{}]", spec.join(", "));
    let _ = writeln!(y, "requires: {}", requires(p, profile));
    if let Some((_, u)) = p.undefined_block() {
        let _ = writeln!(
            y,
            "undefined: \"the last block's {} (the reference must flag {})\"",
            u.kind.name(),
            u.kind.flag()
        );
        // A hang is allowed here (specs README, ambiguity 11): do not wait the default 5 s.
        let _ = writeln!(y, "timeout_ms: {UNDEFINED_TIMEOUT_MS}");
    }
    let language = match p.lang {
        Lang::Spirv => "spirv-asm",
        other => other.name(),
    };
    let _ = writeln!(y, "program:\n  language: {language}\n  source: |");
    for line in program.text.lines() {
        let _ = writeln!(y, "    {line}");
    }
    let mut buffers = String::new();
    let mut expect = String::new();
    for (k, b) in p.blocks.iter().enumerate() {
        let m = block_model(b, p);
        let _ = writeln!(
            buffers,
            "  - {{name: b{k}, binding: {k}, type: {}, data: {}}}",
            m.elem.name(),
            data(m.elem, &m.init)
        );
        for w in &m.want {
            let line = match w {
                Want::Values { at, values } => format!(
                    "{{buffer: b{k}, at: {at}, values: {}}}",
                    data(m.elem, values)
                ),
                Want::Permutation { at, values } => format!(
                    "{{buffer: b{k}, at: {at}, count: {}, permutation_of: {}}}",
                    values.len(),
                    data(m.elem, values)
                ),
                Want::OneOf { at, alts } => format!(
                    "{{buffer: b{k}, at: {at}, count: {}, one_of: [{}]}}",
                    alts.first().map_or(0, Vec::len),
                    alts.iter()
                        .map(|a| data(m.elem, a))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let _ = writeln!(expect, "  - {line}");
        }
    }
    let _ = write!(y, "buffers:\n{buffers}");
    let [gx, gy, gz] = p.group_dims();
    let _ = writeln!(y, "steps:\n  - dispatch: [{gx}, {gy}, {gz}]");
    let _ = write!(y, "expect:\n{expect}");
    // Long loops (the loop-caps mode) need more than the reference's default step budget;
    // an instruction budget per statement execution covers the largest expressions.
    let work = p
        .blocks
        .iter()
        .map(|b| match b {
            Block::Compute(c) => trips(&c.stmts),
            _ => 0,
        })
        .fold(0u64, u64::saturating_add);
    let budget = work.saturating_mul(STEPS_PER_STATEMENT);
    if budget > conform_reference::Options::default().step_budget {
        let _ = writeln!(y, "reference: {{step_budget: {budget}}}");
    }
    CaseText {
        yaml: y,
        instructions: program.instructions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(lang: Lang) -> Program {
        Program {
            lang,
            local_size: 2,
            groups: 1,
            blocks: vec![Block::Compute(ComputeBlock {
                seed: 1,
                stmts: vec![],
            })],
            shape: None,
        }
    }

    #[test]
    fn glsl_330_profile_names_its_extensions_and_gl_3_3() {
        let p = program(Lang::Glsl);
        let core = render(&p, "t", "d").yaml;
        assert!(core.contains("    #version 430\n"), "{core}");
        assert!(core.contains("requires: {gl: \"4.3\"}"), "{core}");
        let compat = render_in(&p, "t", "d", GlslProfile::Compat330).yaml;
        assert!(!compat.contains("#version 430"), "{compat}");
        assert!(
            compat.contains("    #version 330\n    #extension GL_ARB_compute_shader : require\n")
        );
        assert!(
            compat.contains("#extension GL_ARB_gpu_shader5 : require"),
            "{compat}"
        );
        assert!(
            compat.contains(
                "requires: {gl: \"3.3\", extensions: [GL_ARB_compute_shader, \
                 GL_ARB_shader_storage_buffer_object, GL_ARB_shading_language_420pack, \
                 GL_ARB_gpu_shader5]}"
            ),
            "{compat}"
        );
        // Other languages have no GLSL profile.
        let nv = program(Lang::Nvasm);
        assert_eq!(
            render(&nv, "t", "d").yaml,
            render_in(&nv, "t", "d", GlslProfile::Compat330).yaml
        );
    }
}
