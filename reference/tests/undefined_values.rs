//! Undefined values are flagged where they are used, not where they are made: a program that
//! computes an undefined value (integer division by zero, a read of never-written shared
//! memory, a shuffle from an inactive lane) and then discards or overwrites it is fully
//! defined, and an atomic exchange writes a never-written shared word.

mod common;

use common::*;
use conform_plan::*;

fn glsl_plan(body: &str, size: u32, init: &[u32]) -> ExecPlan {
    let header =
        "#extension GL_NV_shader_thread_shuffle : enable\nshared uint s[4];\nshared uint w;\n";
    common::glsl_plan(header, body, size, init)
}

/// The outcome of a GLSL body on `size` invocations, with the first buffer as words.
fn outcome(body: &str, size: u32, init: &[u32]) -> (Outcome, Vec<u32>) {
    let o = run(&glsl_plan(body, size, init));
    let w = words(&o, 0);
    (o, w)
}

fn ub_flags(o: &Outcome) -> Vec<FlagKind> {
    o.flags
        .iter()
        .map(|f| f.kind)
        .filter(|k| !k.is_observation())
        .collect()
}

#[test]
fn a_division_by_zero_that_is_overwritten_is_not_flagged() {
    let (o, w) = outcome(
        "    uint q = v[1] / v[0];\n    if (v[0] == 0u) q = 7u;\n    v[2] = q;",
        1,
        &[0, 5, 0],
    );
    assert_eq!(w[2], 7);
    assert_eq!(ub_flags(&o), []);
    // Stored as it is, the undefined quotient is flagged at the store, naming the division.
    let (o, _) = outcome("    uint q = v[1] / v[0];\n    v[2] = q;", 1, &[0, 5, 0]);
    assert_eq!(ub_flags(&o), [FlagKind::UndefinedValue]);
    let m = &o.flags[0].message;
    assert!(
        m.contains("a store to Storage(0)") && m.contains("integer division or remainder by zero"),
        "{m}"
    );
}

#[test]
fn undefined_values_used_for_control_or_addresses_are_flagged() {
    let (o, _) = outcome(
        "    uint q = v[1] / v[0];\n    if (q == 3u) v[2] = 1u;",
        1,
        &[0, 5, 0],
    );
    assert_eq!(ub_flags(&o), [FlagKind::UndefinedValue], "{:?}", o.flags);
    assert!(o.flags[0].message.contains("a branch condition"));
    let (o, _) = outcome(
        "    uint q = v[1] >> 40u;\n    v[q & 3u] = 1u;",
        1,
        &[0, 5, 0, 0],
    );
    assert_eq!(ub_flags(&o), [FlagKind::UndefinedValue], "{:?}", o.flags);
}

#[test]
fn an_unused_read_of_unwritten_shared_memory_is_not_flagged() {
    // s[1] is read with s[0] but only s[0] is stored.
    let (o, w) = outcome(
        "    if (i == 0u) s[0] = 4u;\n    barrier();\n    uvec2 p = uvec2(s[0], s[1]);\n    v[i] = p.x;",
        2,
        &[0, 0],
    );
    assert_eq!(w, [4, 4]);
    assert_eq!(ub_flags(&o), []);
    let (o, _) = outcome(
        "    if (i == 0u) s[0] = 4u;\n    barrier();\n    uvec2 p = uvec2(s[0], s[1]);\n    v[i] = p.y;",
        2,
        &[0, 0],
    );
    assert_eq!(ub_flags(&o), [FlagKind::UninitializedSharedRead]);
}

#[test]
fn an_atomic_exchange_initialises_shared_memory() {
    let (o, w) = outcome(
        "    if (i == 0u) atomicExchange(w, 5u);\n    barrier();\n    v[i] = w;",
        2,
        &[0, 0],
    );
    assert_eq!(w, [5, 5]);
    assert_eq!(ub_flags(&o), [], "{:?}", o.flags);
    // The value it returns is the undefined old contents.
    let (o, _) = outcome("    if (i == 0u) v[1] = atomicExchange(w, 5u);", 1, &[0, 0]);
    assert_eq!(ub_flags(&o), [FlagKind::UninitializedSharedRead]);
    // A read-modify-write of the never-written word leaves it undefined.
    let (o, _) = outcome(
        "    if (i == 0u) atomicAdd(w, 1u);\n    barrier();\n    v[i] = w;",
        2,
        &[0, 0],
    );
    assert_eq!(ub_flags(&o), [FlagKind::UninitializedSharedRead]);
    // So does a compare-exchange, whether or not it stores: the comparison read the word.
    let (o, _) = outcome(
        "    if (i == 0u) atomicCompSwap(w, 0xDEADBEEFu, 3u);\n    barrier();\n    v[i] = w;",
        1,
        &[0],
    );
    assert_eq!(ub_flags(&o), [FlagKind::UninitializedSharedRead]);
}

#[test]
fn a_discarded_shuffle_from_an_inactive_lane_is_not_flagged() {
    // 24 invocations: lanes 24..31 of the warp are missing. A reduction step reads them from
    // lanes 16..23, whose results are then not used.
    let (o, w) = outcome(
        "    uint x = i + 1u;\n    uint y = shuffleDownNV(x, 8u, 32u);\n    if (i < 8u) v[i] = x + y;",
        24,
        &[0; 8],
    );
    assert_eq!(w, (0..8).map(|i| (i + 1) + (i + 9)).collect::<Vec<_>>());
    assert_eq!(ub_flags(&o), [], "{:?}", o.flags);
    let (o, _) = outcome(
        "    uint x = i + 1u;\n    uint y = shuffleDownNV(x, 8u, 32u);\n    if (i >= 16u) v[i - 16u] = y;",
        24,
        &[0; 8],
    );
    assert_eq!(ub_flags(&o), [FlagKind::ShuffleInactiveLane]);
}

#[test]
fn the_predicate_of_an_assembly_shuffle_from_an_inactive_lane_is_undefined_too() {
    // "If the source thread id reference to an inactive thread, the returned result will be
    // undefined" (NV_shader_thread_shuffle, SHFIDX): the whole two-component result. One
    // invocation reads lane 1, which does not exist; storing only the predicate (.x) is a use.
    let text = "!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nOPTION NV_shader_thread_shuffle;\n\
                GROUP_SIZE 1;\nSTORAGE b[] = { program.storage[0] };\nTEMP r;\n\
                SHFIDX.U r.xy, invocation.localindex.x, 1, 31;\nSTB.U32 r.x, b[0];\nEND\n";
    let o = run(&plan(text, vec![storage(0, &[0])], vec![dispatch(1, 1, 1)]));
    assert_eq!(
        ub_flags(&o),
        [FlagKind::ShuffleInactiveLane],
        "{:?}",
        o.flags
    );
    // Reading lane 0 (itself) is defined: the predicate is true (all ones), no flag.
    let text = text.replace("localindex.x, 1, 31", "localindex.x, 0, 31");
    let o = run(&plan(
        &text,
        vec![storage(0, &[0])],
        vec![dispatch(1, 1, 1)],
    ));
    assert_eq!(ub_flags(&o), [], "{:?}", o.flags);
    assert_eq!(words(&o, 0), [u32::MAX]);
}

/// NV assembly values nobody set: a TEMP (NV_gpu_program4 2.X.3.4), the condition codes
/// (2.X.3.7) and the fourth component of an invocation binding (NV_compute_program5 Table X.1)
/// are undefined until written and flagged where used; the same reads after a write are not.
#[test]
fn nv_values_nobody_set_are_flagged_where_used() {
    let prog = |body: &str| {
        format!("!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nGROUP_SIZE 1;\nSTORAGE sb[] = {{ program.storage[0] }};\nTEMP t;\n{body}END\n")
    };
    let flagged = |body: &str| {
        let o = run(&plan(
            &prog(body),
            vec![storage(0, &[7, 7])],
            vec![dispatch(1, 1, 1)],
        ));
        o.flags
            .iter()
            .any(|f| f.kind == FlagKind::UndefinedValue && f.message.contains("read before"))
    };
    assert!(flagged("STB.U32 t.x, sb[0];\n"));
    assert!(flagged(
        "MOV.U t.x, 0;\nIF EQ.x;\nMOV.U t.x, 1;\nENDIF;\nSTB.U32 t.x, sb[0];\n"
    ));
    assert!(flagged(
        "MOV.U t, invocation.globalid;\nSTB.U32 t.w, sb[0];\n"
    ));
    assert!(!flagged("MOV.U t.x, 3;\nSTB.U32 t.x, sb[0];\n"));
    assert!(!flagged(
        "MOV.U.CC t.x, 0;\nIF EQ.x;\nMOV.U t.x, 1;\nENDIF;\nSTB.U32 t.x, sb[0];\n"
    ));
    assert!(!flagged(
        "MOV.U t, invocation.globalid;\nSTB.U32 t.x, sb[0];\n"
    ));
}
