//! Reads racing with writes (`exec::race`): a read of shared or storage memory another
//! invocation of the group wrote since the last barrier is observed (`data-race`) and the
//! lockstep schedule is run besides, whose memory is another outcome the case must allow;
//! reads a barrier, an atomic hand-over or a subgroup exchange orders, own writes, and writes
//! that cannot change the value read are not.

mod common;

use common::*;
use conform_plan::*;

fn glsl(body: &str, size: u32, init: &[u32]) -> Outcome {
    let header =
        "#extension GL_KHR_shader_subgroup_basic : enable\nshared uint s[64];\nshared uint c;\n";
    run(&glsl_plan(header, body, size, init))
}

fn lockstep(o: &Outcome) -> Option<Vec<u32>> {
    o.other_schedules
        .iter()
        .find(|s| s.name == "lockstep")
        .map(|s| {
            s.buffers[0]
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        })
}

/// Write 1, read the neighbour's word, write 2: the lockstep schedule reads 1, which running
/// each invocation until it blocks never does.
const WRITE_READ_WRITE: &str = "    s[i] = 0u;\n    barrier();\n    s[i] = 1u;\n    \
     v[i] = s[i ^ 1u];\n    s[i] = 2u;\n    barrier();\n    v[i + 2u] = s[i ^ 1u];";

#[test]
fn a_read_between_another_invocations_writes_is_a_race_and_lockstep_reads_the_middle() {
    let o = glsl(WRITE_READ_WRITE, 2, &[9; 4]);
    assert!(has_flag(&o, FlagKind::DataRace), "{:?}", o.flags);
    assert!(FlagKind::DataRace.is_observation());
    let m = &o
        .flags
        .iter()
        .find(|f| f.kind == FlagKind::DataRace)
        .unwrap()
        .message;
    assert!(
        m.contains("a store to Storage(0)") && m.contains("line 12"),
        "{m}"
    );
    assert_eq!(words(&o, 0), [0, 2, 2, 2], "in order");
    assert_eq!(lockstep(&o), Some(vec![1, 1, 2, 2]));
    assert!(
        o.notes.iter().any(|n| n.contains("lockstep")),
        "{:?}",
        o.notes
    );
}

#[test]
fn storage_buffers_race_like_shared_memory() {
    let o = glsl(
        "    v[i] = 1u;\n    v[i + 4u] = v[i ^ 1u];\n    v[i] = 2u;",
        2,
        &[0; 8],
    );
    assert!(has_flag(&o, FlagKind::DataRace), "{:?}", o.flags);
    assert_eq!(lockstep(&o).unwrap()[4..6], [1, 1]);
}

#[test]
fn ordered_or_unchangeable_reads_are_not_races() {
    let cases = [
        // A barrier between the write and the read.
        "    s[i] = i + 1u;\n    barrier();\n    v[i] = s[i ^ 1u];",
        // Own writes.
        "    s[i] = 1u;\n    s[i] = s[i] + 1u;\n    v[i] = s[i];",
        // Every invocation stores the same value, then reads it.
        "    s[0] = 7u;\n    v[i] = s[0];",
        // A store of the value already there.
        "    s[0] = 3u;\n    barrier();\n    if (i == 0u) s[0] = 3u;\n    v[i] = s[0];",
        // The last invocation to arrive at an atomic counter reads what the others wrote
        // before their increment.
        "    if (i == 0u) c = 0u;\n    barrier();\n    s[i] = i + 1u;\n    memoryBarrierShared();\n    \
         if (atomicAdd(c, 1u) == 3u) {\n        v[0] = s[0] + s[1] + s[2] + s[3];\n    }",
        // A subgroup barrier between the write and the read (one subgroup).
        "    s[i] = i + 1u;\n    subgroupBarrier();\n    v[i] = s[i ^ 1u];",
    ];
    for body in cases {
        let o = glsl(body, 4, &[0; 4]);
        assert!(!has_flag(&o, FlagKind::DataRace), "{body}: {:?}", o.flags);
        assert_eq!(lockstep(&o), None, "{body}");
    }
}

#[test]
fn a_non_atomic_read_of_a_word_others_update_atomically_races() {
    // Invocation 0 increments, the others read the counter without an atomic: 0 or 1.
    let o = glsl(
        "    if (i == 0u) c = 0u;\n    barrier();\n    if (i == 0u) atomicAdd(c, 1u);\n    v[i] = c;",
        4,
        &[0; 4],
    );
    assert!(has_flag(&o, FlagKind::DataRace), "{:?}", o.flags);
}

#[test]
fn a_read_of_an_own_atomic_result_that_others_then_change_races() {
    // Each invocation increments and reads the counter back: it reads its own write in
    // every run-until-blocked schedule (1..4 in some order); in lock step all increments
    // come first and every invocation reads 4.
    let o = glsl(
        "    if (i == 0u) c = 0u;\n    barrier();\n    atomicAdd(c, 1u);\n    v[i] = c;",
        4,
        &[0; 4],
    );
    assert!(has_flag(&o, FlagKind::DataRace), "{:?}", o.flags);
    assert_eq!(lockstep(&o), Some(vec![4; 4]));
}

#[test]
fn a_read_of_a_word_another_work_group_changed_races() {
    let run_groups = |body: &str| {
        let mut p = glsl_plan("", body, 1, &[0, 9]);
        p.steps = vec![dispatch(2, 1, 1)];
        run(&p)
    };
    let o = run_groups("    if (gl_WorkGroupID.x == 0u) v[0] = 1u; else v[1] = v[0];");
    assert!(has_flag(&o, FlagKind::DataRace), "{:?}", o.flags);
    assert!(
        o.flags
            .iter()
            .any(|f| f.message.contains("another work group")),
        "{:?}",
        o.flags
    );
    // Its own group's word; a word another group stored back unchanged; after an atomic.
    for body in [
        "    v[gl_WorkGroupID.x] = v[gl_WorkGroupID.x] + 1u;",
        "    if (gl_WorkGroupID.x == 0u) v[0] = 0u; else v[1] = v[0];",
        "    if (gl_WorkGroupID.x == 0u) { v[0] = 1u; atomicAdd(v[1], 0u); } \
         else if (atomicAdd(v[1], 0u) == 9u) v[1] = v[0];",
    ] {
        let o = run_groups(body);
        assert!(!has_flag(&o, FlagKind::DataRace), "{body}: {:?}", o.flags);
    }
}

#[test]
fn the_write_before_the_read_in_another_schedule_is_found_there() {
    // Invocation 1 writes what invocation 0 reads: in order, 0 reads first (no race seen in
    // that run); the reversed schedule sees the write first and flags it.
    let o = glsl(
        "    if (i == 1u) s[0] = 5u;\n    if (i == 0u) v[0] = s[0];",
        2,
        &[0; 2],
    );
    assert!(has_flag(&o, FlagKind::DataRace), "{:?}", o.flags);
}

/// Issue 45: the detector keeps at most `MAX_TRACKED_BYTES` between two barriers, so a
/// group that fills a large buffer it also reads gets a verdict within the worker's memory
/// (1024 invocations over 64 MiB exhausted it). Past the limit it says so (`race-untracked`,
/// an observation) and sees no race until the next barrier; after the barrier it looks again.
#[test]
fn writes_past_the_detectors_limit_are_said_and_tracking_resumes_at_the_barrier() {
    let limit = conform_reference::exec::race::MAX_TRACKED_BYTES as u32;
    // Two invocations, each filling its half of limit/4 + 64 words: over the limit.
    let words_each = limit / 8 + 32;
    let body = format!(
        "    for (uint k = 0u; k < {words_each}u; k++) v[i * {words_each}u + k] = k;\n    \
         v[i * {words_each}u] = v[(i ^ 1u) * {words_each}u + 1u];\n    barrier();\n    \
         v[i * {words_each}u + 2u] = 7u;\n    v[i * {words_each}u + 3u] = v[(i ^ 1u) * {words_each}u + 2u];"
    );
    let o = run(&glsl_plan("", &body, 2, &vec![0; words_each as usize * 2]));
    let untracked = o
        .flags
        .iter()
        .find(|f| f.kind == FlagKind::RaceUntracked)
        .unwrap_or_else(|| panic!("{:?}", o.flags));
    assert!(FlagKind::RaceUntracked.is_observation());
    assert!(
        untracked.message.contains("line 6"),
        "{}",
        untracked.message
    );
    // The read of the neighbour's word after the pause is not seen; the race after the
    // barrier (line 9 reads what the other wrote at line 8, unordered) is.
    assert!(has_flag(&o, FlagKind::DataRace), "{:?}", o.flags);
    let w = words(&o, 0);
    assert_eq!(w[1], 1, "the verdict's memory is there");
}
