//! Whole programs through `run(&ExecPlan, ..)`.

mod common;
use common::*;
use conform_plan::*;

#[test]
fn store_localindex() {
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 8;
STORAGE out[] = { program.storage[0] };
TEMP r, addr;
MOV.U r.x, invocation.localindex.x;
MUL.U addr.x, r.x, 4;
STB.U32 r.x, out[addr.x];
END
",
        vec![storage(0, &[0xFFFF_FFFF; 8])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    assert_eq!(words(&o, 0), (0..8).collect::<Vec<u32>>());
    assert_eq!(o.steps[0].error, Some(GlError::NoError));
}

#[test]
fn figure_x1_dispatch() {
    // GROUP_SIZE 8x4, dispatch 5x4: each invocation writes localid.xy, groupid.xy at its
    // flattened global index (globalid.y * 40 + globalid.x).
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 8 4;
STORAGE out[] = { program.storage[0] };
TEMP g, a, v;
MOV.U g, invocation.globalid;
MAD.U a.x, g.y, 40, g.x;
MUL.U a.x, a.x, 16;
MOV.U v.xy, invocation.localid;
MOV.U v.zw, invocation.groupid.xxxy;
STB.U32X4 v, out[a.x];
END
",
        vec![storage(0, &[0; 40 * 16 * 4])],
        vec![dispatch(5, 4, 1)],
    );
    let o = run(&p);
    let w = words(&o, 0);
    let at = (9 * 40 + 10) * 4;
    assert_eq!(&w[at..at + 4], &[2, 1, 1, 2], "globalid (10,9)");
    // every element written, consistent with globalid = groupid * size + localid
    for gy in 0..16u32 {
        for gx in 0..40u32 {
            let k = ((gy * 40 + gx) * 4) as usize;
            assert_eq!(w[k..k + 4], [gx % 8, gy % 4, gx / 8, gy / 4]);
        }
    }
}

#[test]
fn groupcount_groupsize_and_lower_dims() {
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 3;
STORAGE out[] = { program.storage[0] };
TEMP v;
MOV.U v, invocation.groupcount;
MOV.U v.w, invocation.localid.y;
STB.U32X4 v, out[0];
MOV.U v, invocation.groupsize;
MOV.U v.w, invocation.groupid.z;
STB.U32X4 v, out[16];
END
",
        vec![storage(0, &[9; 8])],
        vec![dispatch(2, 1, 1)],
    );
    let o = run(&p);
    assert_eq!(words(&o, 0), vec![2, 1, 1, 0, 3, 1, 1, 0]);
}

const IWRAP_SHARED: &str = "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 16;
SHARED_MEMORY 4;
SHARED smem[] = { program.sharedmem };
STORAGE out[] = { program.storage[0] };
TEMP r, addr;
MOV.U r.x, 0;
STS.U32 r.x, smem[0];
BAR;
ATOMS.IWRAP.U32 r.x, 3, smem[0];
MUL.U addr.x, invocation.localindex.x, 4;
STB.U32 r.x, out[addr.x];
END
";

#[test]
fn atoms_iwrap_cycles() {
    let p = plan(
        IWRAP_SHARED,
        vec![storage(0, &[0xFFFF_FFFF; 16])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    let mut w = words(&o, 0);
    w.sort();
    assert_eq!(w, vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    // in-order schedule: invocation i gets i % 4
    let w = words(&o, 0);
    assert_eq!(w[5], 1);
    assert!(has_flag(&o, FlagKind::ScheduleDependent), "{:?}", o.flags);
}

#[cfg(feature = "planted-bugs")]
#[test]
fn planted_iwrap_bug_changes_the_result() {
    let p = plan(
        IWRAP_SHARED,
        vec![storage(0, &[0xFFFF_FFFF; 16])],
        vec![dispatch(1, 1, 1)],
    );
    let opts = conform_reference::Options {
        planted_bug: Some(conform_reference::PlantedBug::IwrapOffByOne),
        ..Default::default()
    };
    let o = conform_reference::run(&p, &opts).unwrap();
    let mut w = bytes::read_u32s(&o.buffers[0]);
    w.sort();
    assert_ne!(w, vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
}

#[test]
fn atomb_iwrap_many_invocations_one_word() {
    // 4 groups x 256 invocations IWRAP one storage word with operand 9: the final value is
    // 1024 mod 10, and the returned old values are each of 0..=9 about equally often.
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 256;
STORAGE ctr[] = { program.storage[0] };
STORAGE out[] = { program.storage[1] };
TEMP r, a;
ATOMB.IWRAP.U32 r.x, 9, ctr[0];
MAD.U a.x, invocation.groupid.x, 256, invocation.localindex.x;
MUL.U a.x, a.x, 4;
STB.U32 r.x, out[a.x];
END
",
        vec![storage(0, &[0]), storage(1, &[0xFFFF_FFFF; 1024])],
        vec![dispatch(4, 1, 1)],
    );
    let o = run(&p);
    assert_eq!(words(&o, 0), vec![1024 % 10]);
    let mut counts = [0u32; 10];
    for v in words(&o, 1) {
        counts[v as usize] += 1;
    }
    for (v, c) in counts.iter().enumerate() {
        assert_eq!(*c, if v < 4 { 103 } else { 102 }, "value {v}");
    }
    // run in order (groups sequential): the returned values are 0,1,..,9,0,...
    assert_eq!(&words(&o, 1)[..12], &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]);
}

#[test]
fn atoms_all_ops_single_invocation() {
    // One invocation applies each op to its own word; checks stored and returned values.
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 1;
SHARED_MEMORY 64;
SHARED s[] = { program.sharedmem };
STORAGE out[] = { program.storage[0] };
TEMP r, v;
MOV.U v, {10, 20, 0, 0};
STS.U32X4 v, s[0];
STS.U32X4 v, s[16];
STS.U32X4 v, s[32];
MOV.S v.x, -5;
STS.S32 v.x, s[48];
ATOMS.ADD.U32 r.x, 5, s[0];      # 10 -> 15, returns 10
STB.U32 r.x, out[0];
ATOMS.MIN.U32 r.x, 3, s[4];      # 20 -> 3
STB.U32 r.x, out[4];
ATOMS.MAX.S32 r.x, -7, s[48];    # -5 stays (max)
STB.U32 r.x, out[8];
ATOMS.DWRAP.U32 r.x, 7, s[8];    # 0 -> 7
STB.U32 r.x, out[12];
ATOMS.CSWAP.U32 r.x, {10, 99}, s[16];  # equal: 10 -> 99
STB.U32 r.x, out[16];
ATOMS.CSWAP.U32 r.x, {11, 77}, s[20];  # 20 != 11: unchanged
STB.U32 r.x, out[20];
ATOMS.EXCH.U32 r.x, 42, s[24];
STB.U32 r.x, out[24];
ATOMS.XOR.U32 r.x, 6, s[32];     # 10 ^ 6 = 12
STB.U32 r.x, out[28];
ATOMS.IWRAP.U32 r.x, 0, s[36];   # op 0 always stores 0
STB.U32 r.x, out[32];
LDS.U32X4 v, s[0];
STB.U32X4 v, out[48];
LDS.U32X4 v, s[16];
STB.U32X4 v, out[64];
LDS.U32X4 v, s[32];
STB.U32X4 v, out[80];
LDS.S32 v, s[48];
STB.U32 v.x, out[96];
END
",
        vec![storage(0, &[0; 25])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    let w = words(&o, 0);
    assert_eq!(&w[..9], &[10, 20, (-5i32) as u32, 0, 10, 20, 0, 10, 20]);
    assert_eq!(&w[12..16], &[15, 3, 7, 0]);
    assert_eq!(&w[16..20], &[99, 20, 42, 0]);
    assert_eq!(&w[20..24], &[12, 0, 0, 0]);
    assert_eq!(w[24], (-5i32) as u32);
    assert!(!has_flag(&o, FlagKind::UninitializedSharedRead));
}

#[test]
fn float_atomics_need_the_option_and_add() {
    let text = "!!NVcp5.0 OPTION NV_shader_storage_buffer;
OPTION NV_shader_atomic_float;
GROUP_SIZE 4;
STORAGE out[] = { program.storage[0] };
TEMP r;
ATOMB.ADD.F32 r.x, 1.5, out[0];
END
";
    let mut p = plan(text, vec![storage(0, &[0])], vec![dispatch(2, 1, 1)]);
    p.buffers[0].elem = ElemType::scalar(Scalar::F32);
    let o = run(&p);
    assert_eq!(f32::from_bits(words(&o, 0)[0]), 12.0);
    let log = load_error(&text.replace("OPTION NV_shader_atomic_float;\n", ""));
    assert_eq!(
        log,
        "line 5: ATOMB.ADD.F32 requires \"OPTION NV_shader_atomic_float;\" (NV_compute_program5, \"Dependencies on NV_shader_atomic_float\")"
    );
}

#[test]
fn divergent_barrier_is_flagged_not_hung() {
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 8;
STORAGE out[] = { program.storage[0] };
TEMP r;
SLT.U.CC r.x, invocation.localindex.x, 4;
IF NE.x;
  BAR;
ENDIF;
STB.U32 invocation.localindex.x, out[0];
END
",
        vec![storage(0, &[0])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    assert!(has_flag(&o, FlagKind::DivergentBarrier), "{:?}", o.flags);
}

#[test]
fn uniform_barrier_is_not_flagged_and_orders_shared_memory() {
    // Each invocation writes its index to shared, BAR, then reads its neighbour's.
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 32;
SHARED_MEMORY 128;
SHARED s[] = { program.sharedmem };
STORAGE out[] = { program.storage[0] };
TEMP i, a, n, v;
MOV.U i.x, invocation.localindex.x;
MUL.U a.x, i.x, 4;
STS.U32 i.x, s[a.x];
BAR;
ADD.U n.x, i.x, 1;
AND.U n.x, n.x, 31;
MUL.U n.x, n.x, 4;
LDS.U32 v.x, s[n.x];
STB.U32 v.x, out[a.x];
END
",
        vec![storage(0, &[0; 32])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    assert!(o.flags.is_empty(), "{:?}", o.flags);
    assert_eq!(
        words(&o, 0),
        (0..32).map(|i| (i + 1) % 32).collect::<Vec<u32>>()
    );
}

#[test]
fn uninitialized_shared_read_is_flagged() {
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 1;
SHARED_MEMORY 8;
SHARED s[] = { program.sharedmem };
STORAGE out[] = { program.storage[0] };
TEMP v;
LDS.U32 v.x, s[4];
STB.U32 v.x, out[0];
END
",
        vec![storage(0, &[0])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    assert!(has_flag(&o, FlagKind::UninitializedSharedRead));
    assert_eq!(words(&o, 0), vec![0xDEAD_BEEF]);
}

#[test]
fn racy_shared_write_is_schedule_dependent() {
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 8;
SHARED_MEMORY 4;
SHARED s[] = { program.sharedmem };
STORAGE out[] = { program.storage[0] };
TEMP v;
STS.U32 invocation.localindex.x, s[0];
BAR;
LDS.U32 v.x, s[0];
STB.U32 v.x, out[0];
END
",
        vec![storage(0, &[0])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    assert_eq!(words(&o, 0), vec![7], "in-order: last writer wins");
    let f = o
        .flags
        .iter()
        .find(|f| f.kind == FlagKind::ScheduleDependent)
        .expect("flag");
    assert!(f.message.contains("b0[0] (byte offset 0)"), "{}", f.message);
}

#[test]
fn endless_loop_times_out() {
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 1;
TEMP r;
MOV.U.CC r.x, 0;
REP;
  BRK (NE.x);
ENDREP;
END
",
        vec![],
        vec![dispatch(1, 1, 1)],
    );
    let opts = conform_reference::Options {
        step_budget: 10_000,
        ..Default::default()
    };
    match conform_reference::run(&p, &opts) {
        Err(Refusal::Timeout(m)) => assert!(m.contains("step budget of 10000"), "{m}"),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

/// One invocation per group, each adding 1 to word 0 of storage buffer 0.
const COUNT_INVOCATIONS: &str = "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 1;
STORAGE out[] = { program.storage[0] };
TEMP r;
ATOMB.ADD.U32 r.x, 1, out[0];
END
";

/// ARB_compute_shader 5.5: an indirect dispatch whose group count is above
/// MAX_COMPUTE_WORK_GROUP_COUNT has undefined results and no error (DispatchCompute's
/// INVALID_VALUE is not named for it): flagged, nothing run; at the limit it runs.
#[test]
fn an_indirect_dispatch_above_the_group_count_limit_is_undefined_not_an_error() {
    let text = COUNT_INVOCATIONS;
    let ind = buf("ind", 0, BufferKind::Indirect, &[65536, 1, 1, 1, 1, 65535]);
    let steps = vec![
        Step::DispatchIndirect {
            buffer: Some(1),
            offset: 0,
        },
        Step::DispatchIndirect {
            buffer: Some(1),
            offset: 12,
        },
    ];
    let o = run(&plan(text, vec![storage(0, &[0]), ind], steps));
    let e: Vec<_> = o.steps.iter().map(|s| s.error).collect();
    assert_eq!(e, vec![Some(GlError::NoError), Some(GlError::NoError)]);
    assert!(has_flag(&o, FlagKind::UndefinedValue), "{:?}", o.flags);
    // Only the second dispatch ran: 1 x 1 x 65535 groups.
    assert_eq!(words(&o, 0), vec![65535]);
}

#[test]
fn dispatch_errors_and_zero_counts() {
    let text = "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 1;
STORAGE out[] = { program.storage[0] };
ATOMB.ADD.U32 out, 1, out[0];
END
";
    // ATOMB's result must be a TEMP
    let log = load_error(text);
    assert!(
        log.starts_with("line 4: storage buffer variable \"out\" used as the result of ATOMB"),
        "{log}"
    );
    let text = COUNT_INVOCATIONS;
    let ind = buf("ind", 0, BufferKind::Indirect, &[2, 1, 1, 0, 3, 1]);
    let steps = vec![
        dispatch(65536, 1, 1),
        dispatch(1, 65536, 1),
        dispatch(0, 5, 5),
        dispatch(1, 1, 1),
        Step::DispatchIndirect {
            buffer: Some(2),
            offset: 0,
        },
        Step::DispatchIndirect {
            buffer: Some(2),
            offset: -4,
        },
        Step::DispatchIndirect {
            buffer: Some(2),
            offset: 2,
        },
        Step::DispatchIndirect {
            buffer: None,
            offset: 0,
        },
        Step::DispatchIndirect {
            buffer: Some(2),
            offset: 16,
        },
        Step::DispatchIndirect {
            buffer: Some(2),
            offset: 12,
        },
        Step::MemoryBarrier {
            bits: vec![BarrierBit::All],
        },
        Step::Query {
            pname: QueryPname::MaxComputeWorkGroupCount,
            index: Some(2),
        },
        Step::Query {
            pname: QueryPname::MaxComputeWorkGroupSize,
            index: Some(2),
        },
        Step::Query {
            pname: QueryPname::MaxComputeWorkGroupInvocations,
            index: None,
        },
        Step::Query {
            pname: QueryPname::MaxComputeSharedMemorySize,
            index: None,
        },
        Step::Query {
            pname: QueryPname::MaxUniformBlockSize,
            index: None,
        },
        Step::ProgramQuery {
            pname: ProgramPname::ProgramInstructionsArb,
        },
        Step::Api(ApiAction::UseNoProgram),
    ];
    let p = plan(text, vec![storage(0, &[0]), storage(1, &[0]), ind], steps);
    let o = run(&p);
    let e: Vec<_> = o.steps.iter().map(|s| s.error).collect();
    use GlError::*;
    assert_eq!(
        &e[..11],
        &[
            Some(InvalidValue),
            Some(InvalidValue),
            Some(NoError),
            Some(NoError),
            Some(NoError),
            Some(InvalidValue),
            Some(InvalidValue),
            Some(InvalidOperation),
            Some(InvalidOperation),
            Some(NoError),
            Some(NoError),
        ]
    );
    // 1 + 2 (indirect at 0) + 0 (indirect at 12 reads (0, 3, 1): a zero count) = 3
    assert_eq!(words(&o, 0), vec![3]);
    assert_eq!(o.steps[11].values, vec![65535]);
    assert_eq!(o.steps[12].values, vec![64]);
    assert_eq!(o.steps[13].values, vec![1024]);
    assert_eq!(o.steps[14].values, vec![49152]);
    assert!(!o.steps[15].applicable && o.steps[15].error.is_none());
    assert!(!o.steps[16].applicable && o.steps[16].error.is_none());
    assert!(!o.steps[17].applicable && o.steps[17].error.is_none());
    assert!(o.steps[..15].iter().all(|s| s.applicable));
}

#[test]
fn text_that_is_not_spirv_assembly_fails_validation_without_running() {
    // The dispatch goes to the SPIR-V front end by language, whatever the text holds.
    let mut p = plan(
        "#version 430\nvoid main(){}",
        vec![],
        vec![dispatch(1, 1, 1)],
    );
    p.programs[0].language = Language::SpirvAsm;
    let o = conform_reference::run(&p, &Default::default()).expect("an outcome, not a refusal");
    assert_eq!(
        o.build.failed_at,
        Some(conform_plan::BuildStage::Validate),
        "{}",
        o.build.log
    );
    assert!(o.steps.is_empty());
}

#[test]
fn shared_declaration_forms_and_replicated_atomic_result() {
    // SHARED x = program.sharedmem[a] binds byte a; { program.sharedmem[a..b] } binds from a.
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 1;
SHARED_MEMORY 32;
SHARED all[] = { program.sharedmem };
SHARED one = program.sharedmem[8];
SHARED part[] = { program.sharedmem[16..31] };
STORAGE out[] = { program.storage[0] };
TEMP r;
MOV.U r, {1, 2, 3, 4};
STS.U32X4 r, all[0];
STS.U32X4 r, all[16];
STS.U32 7, one;
STS.U32 9, part[4];
LDS.U32X4 r, all[0];
STB.U32X4 r, out[0];
LDS.U32X4 r, all[16];
STB.U32X4 r, out[16];
ATOMS.ADD.U32 r, 5, one;
STB.U32X4 r, out[32];
END
",
        vec![storage(0, &[0; 12])],
        vec![dispatch(1, 1, 1)],
    );
    let o = run(&p);
    assert_eq!(words(&o, 0), vec![1, 2, 7, 4, 1, 9, 3, 4, 7, 7, 7, 7]);
}

/// Random programs from a pool of statements: whatever loads must run without a panic (a
/// timeout or flags are fine).
#[test]
fn random_programs_never_panic() {
    let pool = [
        "ADD.U r, s, 3;",
        "SUB.S s, r, -7;",
        "MUL.F t, r, s;",
        "DIV.S r, r, s.x;",
        "DIV.U s, s, 0;",
        "MOD.S t, r, s.y;",
        "SHL.U r, r, s.x;",
        "SHR.S s, s, 40;",
        "I2F.S t, r;",
        "TRUNC.S r, t;",
        "FLR.U s, t;",
        "RCP t, t.x;",
        "LG2 t, s.y;",
        "BFE.U r, s, r;",
        "BFI.S s, r, s, t;",
        "BTFM.S r, s;",
        "PK64.U t, r;",
        "UP64.U r, t;",
        "ADD.U64 t, t, s;",
        "CVT.F16.F32 r, t;",
        "CVT.S8.S32 s, r;",
        "CVT.F64.U64 t, r;",
        "LDB.U32 r, b[s.x];",
        "LDB.S8 r, b[r.x + 3];",
        "LDB.F64X4 t, b[s.x];",
        "STB.U32X4 r, b[s.x];",
        "STB.U16 s, b[r.x - 2];",
        "ATOMB.ADD.U32 r, s, b[r.x];",
        "ATOMB.CSWAP.U32 s, r, b[s.x];",
        "ATOMB.MIN.S32 t, r, b[4];",
        "LDS.U32 r, sh[s.x];",
        "STS.U32X2 r, sh[r.x];",
        "ATOMS.IWRAP.U32 s, r, sh[0];",
        "ATOMS.DWRAP.U32 s, 3, sh[r.y];",
        "SHFIDX.U r, s.x, r.x, s.y;",
        "SHFUP.S s, r.y, s.x, 0x1f;",
        "SHFXOR.F t, t.x, 1, r.x;",
        "BAR;",
        "MEMBAR.CTA;",
        "MOV.U.CC r, s;",
        "SGT.S.CC s, r, t;",
        "MOV.U r (GT.x), 5;",
        "IF NE.x; ADD.U r, r, 1; ENDIF;",
        "IF LT; BAR; ELSE; MOV.U s, 1; ENDIF;",
        "REP r.x; ADD.U s, s, 1; BRK (EQ.y); ENDREP;",
        "REP 3; CONT (NE.x); ENDREP;",
        "CAL f;",
        "MOV.U r, invocation.localindex;",
        "MOV.U s, invocation.globalid;",
        "MAD.S t, r, s, t;",
        "SEQ.U r, r, s;",
        "CMP.S s, r, s, t;",
        "DP4 t, t, r;",
        "POW t, t.x, s.y;",
        "MOV.U r.x, 0xFFFFFFFF;",
        "ABS.S r, r;",
        "NOT.U s, r;",
        "ROUND.S r, t;",
        "SSG t, t;",
        "FRC t, t;",
        "BTC.U r, r;",
    ];
    let mut seed = 0x1234_5678_u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let opts = conform_reference::Options::new(2, 2_000);
    let mut loaded = 0;
    for _ in 0..300 {
        let mut body = String::new();
        for _ in 0..(3 + next() % 12) {
            body.push_str(pool[next() % pool.len()]);
            body.push('\n');
        }
        let text = format!(
            "!!NVcp5.0 OPTION NV_shader_storage_buffer;\nOPTION NV_shader_thread_shuffle;\nGROUP_SIZE {} {};\nSHARED_MEMORY 64;\n\
             SHARED sh[] = {{ program.sharedmem }};\nSTORAGE b[] = {{ program.storage[0] }};\n\
             TEMP r, s, t;\n{body}RET;\nf:\nADD.U r, r, 1;\nRET;\nEND\n",
            1 + next() % 40,
            1 + next() % 3
        );
        let p = plan(
            &text,
            vec![storage(0, &[1, 2, 3, 4, 5, 6, 7, 8])],
            vec![dispatch(1 + (next() % 3) as u32, 1, 1)],
        );
        match conform_reference::run(&p, &opts) {
            Ok(o) if o.build.failed_at.is_none() => loaded += 1,
            Ok(_) | Err(Refusal::Timeout(_)) | Err(Refusal::Unsupported(_)) => {}
            Err(Refusal::Internal(m)) => panic!("internal error: {m}\n{text}"),
        }
    }
    assert!(loaded > 100, "only {loaded} random programs loaded");
}

#[test]
fn trace_explains_one_invocation() {
    let p = plan(
        IWRAP_SHARED,
        vec![storage(0, &[0xFFFF_FFFF; 16])],
        vec![dispatch(1, 1, 1)],
    );
    let t = conform_reference::trace(&p, &Default::default(), [0, 0, 0], 5).unwrap();
    let text = t.join("\n");
    assert!(text.contains("line 10"), "{text}");
    assert!(text.contains("AtomicIWrap.u32 Shared"), "{text}");
    assert!(text.contains("Barrier"), "{text}");
    // the atomic returned 1 for invocation 5 (in order: 0,1,2,3,0,1,...)
    let atomic = t.iter().find(|l| l.contains("AtomicIWrap")).unwrap();
    assert!(atomic.ends_with("= [0x1, 0x0, 0x0, 0x0]"), "{atomic}");
    assert!(
        conform_reference::trace(&p, &Default::default(), [1, 0, 0], 0)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn indirect_dispatch_reads_arguments_written_by_an_earlier_dispatch() {
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 1;
STORAGE ctr[] = { program.storage[0] };
STORAGE args[] = { program.storage[1] };
TEMP r;
ATOMB.ADD.U32 r.x, 1, ctr[0];
MOV.U r, {3, 1, 1, 0};
STB.U32X4 r, args[0];
END
",
        vec![storage(0, &[0]), storage(1, &[0, 0, 0, 0])],
        vec![
            dispatch(1, 1, 1),
            Step::MemoryBarrier {
                bits: vec![BarrierBit::Command],
            },
            Step::DispatchIndirect {
                buffer: Some(1),
                offset: 0,
            },
        ],
    );
    let o = run(&p);
    assert_eq!(words(&o, 0), vec![4]);
    assert!(o.steps.iter().all(|s| s.error == Some(GlError::NoError)));
}

#[test]
fn shared_declaration_lists_of_contiguous_items() {
    let p = plan(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 1;
SHARED_MEMORY 16;
SHARED all[] = { program.sharedmem };
SHARED mix[8] = { program.sharedmem[4..7], program.sharedmem[8], program.sharedmem[9..11] };
STORAGE out[] = { program.storage[0] };
TEMP r;
MOV.U r, 0;
STS.U32X4 r, all[0];
STS.U8 0x5A, mix[0];
STS.U8 0x81, mix[4];
LDS.U32X4 r, all[0];
STB.U32X4 r, out[0];
END
",
        vec![storage(0, &[0; 4])],
        vec![dispatch(1, 1, 1)],
    );
    assert_eq!(words(&run(&p), 0), vec![0, 0x5A, 0x81, 0]);
    let text = "!!NVcp5.0\nGROUP_SIZE 1;\nSHARED_MEMORY 16;\nSHARED gap[] = { program.sharedmem[0..3], program.sharedmem[8..11] };\nEND\n";
    let p = plan(text, vec![], vec![dispatch(1, 1, 1)]);
    assert!(matches!(
        conform_reference::run(&p, &Default::default()),
        Err(Refusal::Unsupported(_))
    ));
}

#[test]
fn atomic_results_outside_x_are_flagged_as_undefined() {
    let text = |mask: &str| {
        format!("!!NVcp5.0 OPTION NV_shader_storage_buffer;\nGROUP_SIZE 1;\nSTORAGE b[] = {{ program.storage[0] }};\nTEMP r;\nATOMB.ADD.U32 r{mask}, 1, b[0];\nSTB.U32X4 r, b[0];\nEND\n")
    };
    let o = run(&plan(
        &text(".y"),
        vec![storage(0, &[5, 0, 0, 0])],
        vec![dispatch(1, 1, 1)],
    ));
    let f = o
        .flags
        .iter()
        .find(|f| f.kind == FlagKind::UndefinedValue)
        .expect("flag");
    assert!(
        f.message
            .starts_with("line 5: ATOMB result written to .y/.z/.w"),
        "{}",
        f.message
    );
    assert_eq!(words(&o, 0)[1], 5, "the old value, replicated");
    let o = run(&plan(
        &text(".x"),
        vec![storage(0, &[5, 0, 0, 0])],
        vec![dispatch(1, 1, 1)],
    ));
    // (r.yzw are stored never written: flagged as such, not as atomic results.)
    assert!(!o
        .flags
        .iter()
        .any(|f| f.kind == FlagKind::UndefinedValue && f.message.contains("ATOMB result")));
}
