//! A litmus test's dispatches as an ordinary YAML case (cases/README.md): the program, the
//! result buffer `out` (one outcome tuple per instance), the role table `map`, the stress
//! buffer, and per dispatch: the new role table (`write`), `out` zeroed (a `write`), the dispatch, and
//! an `expect` step whose `outcomes` check lists the test's allowed outcome set. The case goes
//! through the ordinary loader, so `conform run` reproduces what `conform litmus` ran.

use super::layout::{Layout, MAX_ROLE_VALUES, STRESS_WORDS};
use super::model::Outcomes;
use super::shape::{Fence, Lang, Scope};
use super::{glsl, nvasm, spirv};
use std::fmt::Write;

/// Dispatches one case of `layout` holds.
pub fn dispatches_per_case(layout: &Layout) -> usize {
    (MAX_ROLE_VALUES / layout.invocations()).max(1) as usize
}

/// Clause ids (cases/clauses.yaml) a test exercises.
pub fn clauses(layout: &Layout) -> Vec<&'static str> {
    let t = layout.test;
    let mut out = vec![match t.lang {
        Lang::Nvasm => "NVCP5-MEMBAR",
        Lang::Glsl | Lang::Spirv => "ARBCS-GLSL-MEMORY-BARRIER-ORDERING",
    }];
    out.push("ARBSILS-COHERENT-COMPLETION");
    match (t.lang, t.fence) {
        (_, Fence::None) => {}
        (Lang::Nvasm, Fence::Membar) => out.push("NVCP5-MEMBAR"),
        (Lang::Nvasm, Fence::MembarCta) => out.push("NVCP5-MEMBAR-CTA"),
        (Lang::Nvasm, _) => out.extend(["NVCP5-MEMBAR-CTA", "NVCP5-BAR-SYNC"]),
        (Lang::Glsl, Fence::Barrier | Fence::MemoryBarrierSharedBarrier) => {
            out.extend(["ARBCS-GLSL-BARRIER", "ARBCS-GLSL-SHARED-VISIBILITY"])
        }
        (Lang::Glsl, _) => out.push("ARBCS-GLSL-MEMORY-BARRIERS"),
        (Lang::Spirv, _) => out.push("GLSPV-BARRIER-MAPPING"),
    }
    if t.scope == Scope::Workgroup && t.lang != Lang::Nvasm {
        out.push("ARBCS-GLSL-SHARED-VISIBILITY");
    }
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|c| seen.insert(*c));
    out
}

/// The program text of `layout`'s test and its case `language`.
pub fn program(layout: &Layout) -> (String, &'static str) {
    match layout.test.lang {
        Lang::Glsl => (glsl::emit(layout), "glsl"),
        Lang::Nvasm => (nvasm::emit(layout), "nvasm"),
        Lang::Spirv => (spirv::emit(layout), "spirv-asm"),
    }
}

/// The case running `layout`'s test once per role table in `dispatches`; without `name` the
/// case takes its name from its path (committed cases).
pub fn render(
    layout: &Layout,
    outcomes: &Outcomes,
    dispatches: &[Vec<u32>],
    name: Option<&str>,
) -> String {
    let test = layout.test;
    let width = test.shape.width();
    let mut y = String::new();
    if let Some(name) = name {
        let _ = writeln!(y, "name: {name}");
    }
    let _ = writeln!(y, "description: >-");
    let _ = writeln!(
        y,
        "  Litmus test {} ({} instances per dispatch, {} dispatches, {} stress invocations\n  \
         per group of {}). Each instance's tuple in `out` is its registers, then the final\n  \
         values of its locations; the allowed outcomes are derived from the spec text\n  \
         (docs/FUZZING.md, \"Memory-model litmus tests\").",
        test.name(),
        layout.params.instances,
        dispatches.len(),
        layout.params.stress,
        layout.params.group_size
    );
    let _ = writeln!(y, "spec: [{}]", clauses(layout).join(", "));
    let _ = writeln!(
        y,
        "requires: {}",
        match test.lang {
            Lang::Glsl if glsl::needs_gl43(test.fence) => "{gl: \"4.3\"}",
            Lang::Glsl =>
                "{extensions: [GL_ARB_compute_shader, GL_ARB_shader_storage_buffer_object]}",
            Lang::Nvasm =>
                "{extensions: [GL_NV_compute_program5, GL_NV_shader_storage_buffer_object]}",
            Lang::Spirv => "{gl: \"4.3\", extensions: [GL_ARB_gl_spirv]}",
        }
    );
    let (text, language) = program(layout);
    let _ = writeln!(y, "program:\n  language: {language}\n  source: |");
    for line in text.lines() {
        let _ = writeln!(y, "    {line}");
    }
    let _ = writeln!(y, "buffers:");
    let _ = writeln!(
        y,
        "  - {{name: out, binding: 0, data: {{fill: 0, count: {}}}}}",
        layout.out_words()
    );
    let _ = writeln!(
        y,
        "  - {{name: map, binding: 1, data: {{fill: 0, count: {}}}}}",
        layout.invocations()
    );
    let _ = writeln!(
        y,
        "  - {{name: stress, binding: 2, data: {{fill: 0, count: {STRESS_WORDS}}}}}"
    );
    let allowed: Vec<String> = outcomes
        .allowed
        .iter()
        .map(|o| format!("[{}]", join(o)))
        .collect();
    let _ = writeln!(y, "steps:");
    for (k, roles) in dispatches.iter().enumerate() {
        if k > 0 {
            // The stress invocations read-modify-write `stress` in every dispatch: without a
            // shader-storage barrier their loads of the last dispatch's stores are undefined
            // (ARB_shader_image_load_store, "Shader Memory Access Synchronization"), and the
            // reference flags them. It orders nothing within a dispatch, which is all the test
            // observes.
            let _ = writeln!(y, "  - barrier: [shader_storage]");
        }
        let _ = writeln!(y, "  - write: {{buffer: map, data: [{}]}}", join(roles));
        // A write, not `clear` (GL 4.3 or ARB_clear_buffer_object): softpipe runs it too.
        let _ = writeln!(
            y,
            "  - write: {{buffer: out, data: {{fill: 0, count: {}}}}}",
            layout.out_words()
        );
        let _ = writeln!(y, "  - dispatch: [{}, 1, 1]", layout.groups);
        let _ = writeln!(
            y,
            "  - expect:\n      - {{buffer: out, outcomes: {{width: {width}, allowed: [{}]}}}}",
            allowed.join(", ")
        );
    }
    y
}

fn join(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}
