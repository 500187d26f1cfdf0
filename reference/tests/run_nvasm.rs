//! Whole programs through `run(&ExecPlan, ..)`.

mod common;
use common::*;
use conform_plan::*;

#[test]
fn store_localindex() {
    let p = plan(
        "!!NVcp5.0
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
