//! Benchmark: 4096 work groups x 256 invocations of a ~20-instruction atomics program, and of a
//! shared-memory tree reduction (loads and stores between barriers: what the race detector,
//! `exec::race`, keeps), through `run` (default options: 3 schedules). Run with
//! `cargo bench -p conform-reference`.

use conform_plan::*;
use std::time::Instant;

const SHARED_ATOMICS: &str = "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 256;
SHARED_MEMORY 8;
SHARED s[] = { program.sharedmem };
STORAGE out[] = { program.storage[0] };
TEMP r, a, i, t;
MOV.U i.x, invocation.localindex.x;
SEQ.U.CC t.x, i.x, 0;
IF NE.x;
  MOV.U r, 0;
  STS.U32X2 r, s[0];
ENDIF;
BAR;
ATOMS.ADD.U32 r.x, 1, s[0];
ATOMS.IWRAP.U32 r.y, 7, s[4];
ADD.U r.z, r.x, r.y;
XOR.U r.w, r.z, i.x;
MAD.U a.x, invocation.groupid.x, 256, i.x;
MUL.U a.x, a.x, 16;
STB.U32X4 r, out[a.x];
END
";

const STORAGE_ATOMICS: &str = "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 256;
STORAGE ctr[] = { program.storage[1] };
STORAGE out[] = { program.storage[0] };
TEMP r, a, i, t;
MOV.U i.x, invocation.localindex.x;
ATOMB.ADD.U32 r.x, 1, ctr[0];
ATOMB.IWRAP.U32 r.y, 7, ctr[4];
ATOMB.MAX.U32 t.x, i.x, ctr[8];
ADD.U r.z, r.x, r.y;
XOR.U r.w, r.z, i.x;
AND.U r.w, r.w, 0xFFFF;
MAD.U a.x, invocation.groupid.x, 256, i.x;
MUL.U a.x, a.x, 16;
STB.U32X4 r, out[a.x];
END
";

/// A sum of 256 shared words in 8 halving steps, each between barriers.
fn shared_reduction() -> String {
    let mut t = String::from(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;
GROUP_SIZE 256;
SHARED_MEMORY 1024;
SHARED s[] = { program.sharedmem };
STORAGE out[] = { program.storage[0] };
TEMP i, a, v, w, t;
MOV.U i.x, invocation.localindex.x;
MUL.U a.x, i.x, 4;
ADD.U v.x, i.x, invocation.groupid.x;
STS.U32 v.x, s[a.x];
BAR;
",
    );
    for stride in [128, 64, 32, 16, 8, 4, 2, 1] {
        t.push_str(&format!(
            "SLT.U.CC t.x, i.x, {stride};
IF NE.x;
ADD.U a.y, a.x, {};
LDS.U32 v.x, s[a.x];
LDS.U32 w.x, s[a.y];
ADD.U v.x, v.x, w.x;
STS.U32 v.x, s[a.x];
ENDIF;
BAR;
",
            stride * 4
        ));
    }
    t.push_str(
        "SEQ.U.CC t.x, i.x, 0;
IF NE.x;
LDS.U32 v.x, s[0];
MUL.U a.z, invocation.groupid.x, 4;
STB.U32 v.x, out[a.z];
ENDIF;
END
",
    );
    t
}

fn plan(text: &str) -> ExecPlan {
    let buf = |name: &str, binding, n: usize| BufferInit {
        name: name.into(),
        kind: BufferKind::Storage,
        binding,
        elem: ElemType::scalar(Scalar::U32),
        bytes: vec![0; n * 4],
    };
    ExecPlan {
        case: "bench".into(),
        programs: vec![ProgramSource::from_text(
            Language::Nvasm,
            Stage::Compute,
            text,
            "bench",
        )],
        buffers: vec![buf("out", 0, 4096 * 256 * 4), buf("ctr", 1, 4)],
        uniforms: vec![],
        steps: vec![Step::Dispatch {
            groups: [4096, 1, 1],
        }],
        timeout_ms: 60_000,
        skip_steps_if_built: false,
    }
}

fn main() {
    let only_quick = std::env::args().any(|a| a == "--quick");
    let reduction = shared_reduction();
    for (name, text) in [
        ("shared atomics (groups in parallel)", SHARED_ATOMICS),
        ("storage atomics (groups sequential)", STORAGE_ATOMICS),
        ("shared-memory reduction (groups in parallel)", &reduction),
    ] {
        let p = plan(text);
        let opts = conform_reference::Options::default();
        let t = Instant::now();
        let o = conform_reference::run(&p, &opts).expect("bench run refused");
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(o.build.failed_at, None, "{}", o.build.log);
        println!(
            "dispatch 4096 x 256 invocations, {name}, {} schedules: {secs:.2} s (flags: {:?})",
            opts.schedules,
            o.flags.iter().map(|f| f.kind.name()).collect::<Vec<_>>()
        );
        if only_quick {
            break;
        }
    }
}
