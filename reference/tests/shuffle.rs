//! NV_shader_thread_shuffle assembly instructions through whole programs.

mod common;
use common::*;
use conform_plan::FlagKind;

/// Each lane shuffles localindex * 10 with `instr` and stores result.xy at out[lane * 8].
fn shuffle_program(group: u32, instr: &str) -> String {
    format!(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
OPTION NV_shader_thread_shuffle;
GROUP_SIZE {group};
STORAGE out[] = {{ program.storage[0] }};
TEMP v, r, a;
MUL.U v.x, invocation.localindex.x, 10;
{instr}
MUL.U a.x, invocation.localindex.x, 8;
STB.U32X2 r, out[a.x];
END
"
    )
}

fn run_shuffle(group: u32, instr: &str) -> (Vec<(u32, u32)>, conform_plan::Outcome) {
    let p = plan(
        &shuffle_program(group, instr),
        vec![storage(0, &vec![0xAAAA_AAAA; group as usize * 2])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    let w = words(&o, 0);
    (w.chunks(2).map(|c| (c[0], c[1])).collect(), o)
}

const T: u32 = 0xFFFF_FFFF;

#[test]
fn shfdown_boundary_is_ambiguous_and_canonical_is_inclusive() {
    let (r, o) = run_shuffle(32, "SHFDOWN.U r, v.x, 1, 0x1f;");
    assert_eq!(r[5], (T, 60));
    assert_eq!(
        r[30],
        (T, 310),
        "inclusive (PTX) reading: source 31 == maxThreadId is in range"
    );
    assert_eq!(
        r[31],
        (0, 310),
        "source 32 is out of range under both readings: own value"
    );
    let f = o
        .flags
        .iter()
        .find(|f| f.kind == FlagKind::AmbiguousReading)
        .expect("ambiguous-reading flag");
    assert!(
        f.message
            .contains("b0[60] (byte offset 240): 0xffffffff vs 0x00000000"),
        "{}",
        f.message
    );
    assert!(
        f.message
            .contains("b0[61] (byte offset 244): 0x00000136 vs 0x0000012c"),
        "{}",
        f.message
    );
    assert!(o.notes.iter().any(|n| n.contains("strict")));
}

#[test]
fn shfidx_segments_of_eight() {
    // seg mask 0x18 (segments of 8 lanes), clamp 7: mask = 0x1807.
    let (r, o) = run_shuffle(32, "SHFIDX.U r, v.x, 2, 0x1807;");
    for lane in 0..32u32 {
        let src = (lane & 0x18) | 2;
        assert_eq!(r[lane as usize], (T, src * 10), "lane {lane}");
    }
    assert!(!has_flag(&o, FlagKind::AmbiguousReading));
    // index 7 reaches maxThreadId: inclusive valid, strict not
    let (r, o) = run_shuffle(32, "SHFIDX.U r, v.x, 7, 0x1807;");
    for lane in 0..32u32 {
        assert_eq!(
            r[lane as usize],
            (T, ((lane & 0x18) | 7) * 10),
            "lane {lane}"
        );
    }
    assert!(has_flag(&o, FlagKind::AmbiguousReading));
    // only the low 5 bits of the index count: 34 is 2
    let (r, _) = run_shuffle(32, "SHFIDX.U r, v.x, 34, 0x1807;");
    assert_eq!(r[9], (T, 100));
}

#[test]
fn shfup_is_signed_and_never_wraps() {
    let (r, o) = run_shuffle(32, "SHFUP.U r, v.x, 1, 0;");
    assert_eq!(r[0], (0, 0), "source -1 is out of range, not lane 31");
    assert_eq!(r[1], (T, 0), "inclusive: source 0 >= maxThreadId 0");
    assert_eq!(r[17], (T, 160));
    assert!(
        has_flag(&o, FlagKind::AmbiguousReading),
        "strict reading rejects source 0 == maxThreadId"
    );
    let (r, _) = run_shuffle(32, "SHFUP.U r, v.x, 5, 0;");
    assert_eq!(r[4], (0, 40));
    assert_eq!(r[5], (T, 0));
}

#[test]
fn shfxor_and_true_values_per_type() {
    let (r, _) = run_shuffle(32, "SHFXOR.U r, v.x, 1, 0x1f;");
    assert_eq!(r[6], (T, 70));
    assert_eq!(r[7], (T, 60));
    let (r, _) = run_shuffle(32, "SHFXOR.S r, v.x, 1, 0x1f;");
    assert_eq!(r[6], (T, 70), "signed TRUE is -1");
    let (r, _) = run_shuffle(32, "I2F.U v.x, v.x;\nSHFXOR.F r, v.x, 1, 0x1f;");
    assert_eq!(
        r[6],
        (1.0f32.to_bits(), 70.0f32.to_bits()),
        "float TRUE is 1.0"
    );
    let (r, _) = run_shuffle(32, "I2F.U v.x, v.x;\nSHFXOR.F r, v.x, 0, 0;");
    assert_eq!(r[6].0, 0, "float FALSE is 0.0 (source 6 > maxThreadId 0)");
}

#[test]
fn partial_warp_lanes_are_inactive() {
    // 40 invocations: warp 1 has lanes 0..7 only.
    let (r, o) = run_shuffle(40, "SHFDOWN.U r, v.x, 4, 0x1f;");
    assert_eq!(r[33], (T, 370));
    assert_eq!(
        r[36].1, 360,
        "source lane 8 of warp 1 does not exist: own value"
    );
    assert!(has_flag(&o, FlagKind::ShuffleInactiveLane));
    assert_eq!(r[27], (T, 310));
}

#[test]
fn shuffle_needs_the_option() {
    let text = shuffle_program(32, "SHFXOR.U r, v.x, 1, 0x1f;")
        .replace("OPTION NV_shader_thread_shuffle;\n", "");
    assert_eq!(
        load_error(&text),
        "line 6: SHFXOR requires \"OPTION NV_shader_thread_shuffle;\" (NV_shader_thread_shuffle, \"Program Options\")"
    );
}

#[cfg(feature = "planted-bugs")]
#[test]
fn planted_shuffle_clamp_bug_changes_the_result() {
    let p = plan(
        &shuffle_program(32, "SHFDOWN.U r, v.x, 1, 0x1f;"),
        vec![storage(0, &[0; 64])],
        vec![dispatch(1, 1, 1)],
    );
    let opts = conform_reference::Options {
        planted_bug: Some(conform_reference::PlantedBug::ShuffleClampOffByOne),
        ..Default::default()
    };
    let o = conform_reference::run(&p, &opts).unwrap();
    let w = conform_plan::bytes::read_u32s(&o.buffers[0]);
    // lane 29 reads source 30 = maxThreadId - 1: in range under both readings, not with the bug
    assert_eq!((w[58], w[59]), (0, 290));
    assert_eq!(w[60], 0);
    assert!(!o.flags.iter().any(|f| f.kind == FlagKind::AmbiguousReading));
}
