//! IR programs built by hand (as the GLSL and SPIR-V front ends will) through `run_ir`:
//! examples for front-end authors, and the GLSL form of the shuffle.

mod common;
use common::*;
use conform_plan::Step;
use conform_reference::ir::*;

/// Wraps code into a Program of `size` invocations.
fn program(b: Builder, size: u32) -> Program {
    let mut p = Program {
        code: b.code,
        locs: b.locs,
        entry_pc: 0,
        functions: vec![Function {
            name: "main".into(),
            start_pc: 0,
        }],
        reg_init: b.reg_init,
        group_size: [size, 1, 1],
        variable_group_size: false,
        shared_size: 0,
        private_size: 0,
        uses: Uses::default(),
        uniforms: vec![],
        uniform_init: vec![],
        active_uniforms: None,
        nan_undefined: false,
        storage_blocks: Vec::new(),
        aligned_access: false,
    };
    p.compute_uses();
    p.validate().unwrap();
    p
}

/// out[lane] = shuffle*NV(lane * 10, index, width, valid); valid into out[32 + lane].
fn glsl_shuffle(mode: ShflMode, index: u32, width: u32) -> (Vec<u32>, Vec<u32>) {
    let mut b = Builder::new();
    let lane = b.reg();
    let val = b.reg();
    let res = b.reg();
    let valid = b.reg();
    let addr = b.reg();
    let ten = b.constant([10; 4]);
    let four = b.constant([4; 4]);
    let c128 = b.constant([128; 4]);
    let idx = b.constant([u64::from(index); 4]);
    let wid = b.constant([u64::from(width); 4]);
    let u1 = Ty::new(ScalarTy::U32, 1);
    b.push(Inst::Builtin {
        dst: Dst::new(lane),
        which: Builtin::LaneId,
    });
    b.push(Inst::Bin {
        op: BinOp::Mul,
        ty: u1,
        dst: Dst::new(val),
        a: Src::new(lane),
        b: Src::new(ten),
    });
    b.push(Inst::ShuffleGlsl {
        mode,
        lanes: 1,
        dst: Dst::masked(res, 1),
        valid: Some(Dst::masked(valid, 1)),
        val: Src::new(val),
        index: Src::new(idx),
        width: Src::new(wid),
    });
    b.push(Inst::Bin {
        op: BinOp::Mul,
        ty: u1,
        dst: Dst::new(addr),
        a: Src::new(lane),
        b: Src::new(four),
    });
    b.push(Inst::Store {
        space: Space::Storage(0),
        ty: MemTy::new(ScalarTy::U32, 1),
        addr: Src::new(addr),
        val: Src::new(res),
    });
    b.push(Inst::Bin {
        op: BinOp::Add,
        ty: u1,
        dst: Dst::new(addr),
        a: Src::new(addr),
        b: Src::new(c128),
    });
    b.push(Inst::Store {
        space: Space::Storage(0),
        ty: MemTy::new(ScalarTy::U32, 1),
        addr: Src::new(addr),
        val: Src::new(valid),
    });
    b.push(Inst::Exit);
    let prog = program(b, 32);
    let p = plan(
        "",
        vec![storage(0, &[0xAAAA_AAAA; 64])],
        vec![dispatch(1, 1, 1)],
    );
    let o = conform_reference::run_ir(&prog, &p, &Default::default()).unwrap();
    let w = words(&o, 0);
    (w[..32].to_vec(), w[32..].to_vec())
}

#[test]
fn glsl_shuffle_idx_index_past_width_is_invalid_not_wrapped() {
    let (v, ok) = glsl_shuffle(ShflMode::Idx, 9, 8);
    for lane in 0..32u32 {
        assert_eq!(
            (v[lane as usize], ok[lane as usize]),
            (lane * 10, 0),
            "lane {lane}: own value, invalid"
        );
    }
    let (v, ok) = glsl_shuffle(ShflMode::Idx, 2, 8);
    for lane in 0..32u32 {
        assert_eq!(
            (v[lane as usize], ok[lane as usize]),
            (((lane & !7) + 2) * 10, 1)
        );
    }
}

#[test]
fn glsl_shuffle_up_down_xor_in_segments() {
    let (v, ok) = glsl_shuffle(ShflMode::Up, 1, 8);
    assert_eq!((v[8], ok[8]), (80, 0), "first lane of a segment: own value");
    assert_eq!((v[9], ok[9]), (80, 1));
    let (v, ok) = glsl_shuffle(ShflMode::Down, 2, 8);
    assert_eq!((v[14], ok[14]), (140, 0));
    assert_eq!((v[13], ok[13]), (150, 1));
    let (v, ok) = glsl_shuffle(ShflMode::Xor, 1, 32);
    assert_eq!((v[30], ok[30]), (310, 1));
    let (v, ok) = glsl_shuffle(ShflMode::Idx, 31, 32);
    assert_eq!((v[0], ok[0]), (310, 1), "index 31 at width 32 is valid");
}

#[test]
fn loops_and_private_memory() {
    // for (i = 0; i < 10; i++) { if (i == 3) continue; if (i == 7) break; sum += i; }
    let mut b = Builder::new();
    let i = b.reg();
    let sum = b.reg();
    let c = b.reg();
    let (one, three, seven, ten) = (
        b.constant([1; 4]),
        b.constant([3; 4]),
        b.constant([7; 4]),
        b.constant([10; 4]),
    );
    let zero = b.constant([0; 4]);
    let s1 = Ty::new(ScalarTy::S32, 1);
    let lp = b.push(Inst::Loop {
        count: None,
        end_pc: 0,
    });
    b.push(Inst::Cmp {
        op: CmpOp::Ge,
        ty: s1,
        dst: Dst::new(c),
        a: Src::new(i),
        b: Src::new(ten),
    });
    let if1 = b.push(Inst::If {
        cond: Src::new(c),
        else_pc: 0,
    });
    b.push(Inst::Break);
    let e1 = b.push(Inst::EndIf);
    b.push(Inst::Cmp {
        op: CmpOp::Eq,
        ty: s1,
        dst: Dst::new(c),
        a: Src::new(i),
        b: Src::new(three),
    });
    let if2 = b.push(Inst::If {
        cond: Src::new(c),
        else_pc: 0,
    });
    b.push(Inst::Bin {
        op: BinOp::Add,
        ty: s1,
        dst: Dst::new(i),
        a: Src::new(i),
        b: Src::new(one),
    });
    b.push(Inst::Continue);
    let e2 = b.push(Inst::EndIf);
    b.push(Inst::Cmp {
        op: CmpOp::Eq,
        ty: s1,
        dst: Dst::new(c),
        a: Src::new(i),
        b: Src::new(seven),
    });
    let if3 = b.push(Inst::If {
        cond: Src::new(c),
        else_pc: 0,
    });
    b.push(Inst::Break);
    let e3 = b.push(Inst::EndIf);
    b.push(Inst::Bin {
        op: BinOp::Add,
        ty: s1,
        dst: Dst::new(sum),
        a: Src::new(sum),
        b: Src::new(i),
    });
    b.push(Inst::Bin {
        op: BinOp::Add,
        ty: s1,
        dst: Dst::new(i),
        a: Src::new(i),
        b: Src::new(one),
    });
    let el = b.push(Inst::EndLoop { begin_pc: lp });
    // private memory round trip, then store
    b.push(Inst::Store {
        space: Space::Private,
        ty: MemTy::new(ScalarTy::U32, 1),
        addr: Src::new(zero),
        val: Src::new(sum),
    });
    b.push(Inst::Load {
        space: Space::Private,
        ty: MemTy::new(ScalarTy::U32, 1),
        dst: Dst::masked(c, 1),
        addr: Src::new(zero),
    });
    b.push(Inst::Store {
        space: Space::Storage(0),
        ty: MemTy::new(ScalarTy::U32, 1),
        addr: Src::new(zero),
        val: Src::new(c),
    });
    b.push(Inst::Return);
    let patch = |b: &mut Builder, at: u32, to: u32| match &mut b.code[at as usize] {
        Inst::If { else_pc, .. } => *else_pc = to,
        Inst::Loop { end_pc, .. } => *end_pc = to,
        _ => unreachable!(),
    };
    patch(&mut b, if1, e1);
    patch(&mut b, if2, e2);
    patch(&mut b, if3, e3);
    patch(&mut b, lp, el);
    let mut prog = program(b, 1);
    prog.private_size = 4;
    let p = plan("", vec![storage(0, &[0])], vec![dispatch(1, 1, 1)]);
    let o = conform_reference::run_ir(&prog, &p, &Default::default()).unwrap();
    assert_eq!(words(&o, 0), vec![1 + 2 + 4 + 5 + 6]);
}

#[test]
fn invalid_ir_is_an_internal_refusal() {
    let mut b = Builder::new();
    b.push(Inst::Break);
    let prog = Program {
        code: b.code,
        locs: b.locs,
        entry_pc: 0,
        functions: vec![],
        reg_init: vec![],
        group_size: [1, 1, 1],
        variable_group_size: false,
        shared_size: 0,
        private_size: 0,
        uses: Uses::default(),
        uniforms: vec![],
        uniform_init: vec![],
        active_uniforms: None,
        nan_undefined: false,
        storage_blocks: Vec::new(),
        aligned_access: false,
    };
    let p = plan("", vec![], vec![dispatch(1, 1, 1)]);
    assert!(matches!(
        conform_reference::run_ir(&prog, &p, &Default::default()),
        Err(conform_plan::Refusal::Internal(_))
    ));
}

/// A u32 slot `name` at `offset` (no explicit location).
fn u32_slot(name: &str, offset: u32) -> UniformSlot {
    UniformSlot {
        name: name.into(),
        location: None,
        ty: UniformTy {
            scalar: UniformScalar::U32,
            columns: 1,
            rows: 1,
        },
        array: None,
        offset,
        stride: 4,
        column_stride: 0,
    }
}

/// out[0] += uniform "k" + uniform "missing": one invocation, reading the default-uniform
/// space at 0 and 4 and adding both to storage word 0.
fn uniform_adder() -> Program {
    let mut b = Builder::new();
    let (k, m, acc, zero, four) = (
        b.reg(),
        b.reg(),
        b.reg(),
        b.constant([0; 4]),
        b.constant([4; 4]),
    );
    let u1 = MemTy::new(ScalarTy::U32, 1);
    let add = |b: &mut Builder, dst, x, y| {
        b.push(Inst::Bin {
            op: BinOp::Add,
            ty: Ty::new(ScalarTy::U32, 1),
            dst: Dst::new(dst),
            a: Src::new(x),
            b: Src::new(y),
        })
    };
    for (r, at, space) in [
        (k, zero, Space::DefaultUniform),
        (m, four, Space::DefaultUniform),
        (acc, zero, Space::Storage(0)),
    ] {
        b.push(Inst::Load {
            space,
            ty: u1,
            dst: Dst::new(r),
            addr: Src::new(at),
        });
    }
    add(&mut b, k, k, m);
    add(&mut b, acc, acc, k);
    b.push(Inst::Store {
        space: Space::Storage(0),
        ty: u1,
        addr: Src::new(zero),
        val: Src::new(acc),
    });
    let mut prog = Program::from_builder(b, [1, 1, 1]);
    prog.uniforms = vec![u32_slot("k", 0), u32_slot("missing", 4)];
    prog
}

fn set_k(value: u32) -> Step {
    Step::Uniform(conform_plan::UniformSet {
        target: conform_plan::UniformTarget::Name("k".into()),
        ty: conform_plan::UniformType::parse("u32").unwrap(),
        bytes: value.to_le_bytes().to_vec(),
    })
}

#[test]
fn default_uniforms_by_name() {
    let prog = uniform_adder();
    let mut p = plan("", vec![storage(0, &[0])], vec![dispatch(1, 1, 1)]);
    p.uniforms.push(conform_plan::UniformInit {
        name: "k".into(),
        elem: conform_plan::ElemType::scalar(conform_plan::Scalar::U32),
        bytes: 41u32.to_le_bytes().to_vec(),
    });
    let o = conform_reference::run_ir(&prog, &p, &Default::default()).unwrap();
    assert_eq!(words(&o, 0), vec![41], "the unset uniform reads 0");
}

#[test]
fn a_uniform_set_between_dispatches_is_what_the_second_sees() {
    let prog = uniform_adder();
    let p = plan(
        "",
        vec![storage(0, &[0])],
        vec![
            set_k(5),
            dispatch(1, 1, 1),
            Step::Snapshot,
            set_k(100),
            dispatch(1, 1, 1),
        ],
    );
    let o = conform_reference::run_ir(&prog, &p, &Default::default()).unwrap();
    assert_eq!(o.snapshots.len(), 1);
    assert_eq!(o.snapshots[0][0], 5u32.to_le_bytes().to_vec());
    assert_eq!(words(&o, 0), vec![105]);
    assert!(o
        .steps
        .iter()
        .all(|s| s.applicable && s.error == Some(conform_plan::GlError::NoError)));
}

#[test]
fn writes_and_clears_between_dispatches() {
    let prog = uniform_adder();
    let write = |v: u32| Step::WriteBuffer {
        buffer: 0,
        offset: 0,
        bytes: v.to_le_bytes().to_vec(),
    };
    let p = plan(
        "",
        vec![storage(0, &[0])],
        vec![
            set_k(1),
            write(10),
            dispatch(1, 1, 1),
            Step::Snapshot,
            Step::ClearBuffer { buffer: 0 },
            Step::Snapshot,
            dispatch(1, 1, 1),
            Step::WriteBuffer {
                buffer: 0,
                offset: 2,
                bytes: vec![1, 2, 3],
            },
        ],
    );
    let o = conform_reference::run_ir(&prog, &p, &Default::default()).unwrap();
    let snap = |k: usize| o.snapshots[k][0].clone();
    assert_eq!(snap(0), 11u32.to_le_bytes().to_vec());
    assert_eq!(snap(1), vec![0; 4]);
    assert_eq!(words(&o, 0), vec![1]);
    assert_eq!(
        o.steps[7].error,
        Some(conform_plan::GlError::InvalidValue),
        "a write past the end raises INVALID_VALUE (GL 4.6 section 6.2) and writes nothing"
    );
}

/// out[global id] = group size x (Builtin::GroupSize), for a program with a variable size.
fn group_size_writer(variable: bool) -> Program {
    let mut b = Builder::new();
    let (gid, gs, addr, four) = (b.reg(), b.reg(), b.reg(), b.constant([4; 4]));
    b.push(Inst::Builtin {
        which: Builtin::GlobalId,
        dst: Dst::new(gid),
    });
    b.push(Inst::Builtin {
        which: Builtin::GroupSize,
        dst: Dst::new(gs),
    });
    b.push(Inst::Bin {
        op: BinOp::Mul,
        ty: Ty::new(ScalarTy::U32, 1),
        dst: Dst::new(addr),
        a: Src::new(gid),
        b: Src::new(four),
    });
    b.push(Inst::Store {
        space: Space::Storage(0),
        ty: MemTy::new(ScalarTy::U32, 1),
        addr: Src::new(addr),
        val: Src::new(gs),
    });
    let mut prog = Program::from_builder(b, [1, 1, 1]);
    prog.variable_group_size = variable;
    prog.validate().unwrap();
    prog
}

#[test]
fn variable_group_sizes_come_from_the_dispatch() {
    use conform_plan::GlError;
    let sized = |groups: [u32; 3], size: [u32; 3]| Step::DispatchGroupSize { groups, size };
    let p = plan(
        "",
        vec![storage(0, &[0; 8])],
        vec![
            sized([2, 1, 1], [3, 1, 1]),
            dispatch(1, 1, 1),
            sized([1, 1, 1], [0, 1, 1]),
            sized([1, 1, 1], [513, 1, 1]),
            sized([1, 1, 1], [16, 16, 4]),
        ],
    );
    let o = conform_reference::run_ir(&group_size_writer(true), &p, &Default::default()).unwrap();
    assert_eq!(words(&o, 0), vec![3, 3, 3, 3, 3, 3, 0, 0]);
    let errors: Vec<_> = o.steps.iter().map(|s| s.error).collect();
    assert_eq!(
        errors,
        vec![
            Some(GlError::NoError),
            // ARB_compute_variable_group_size, Errors: DispatchCompute on a variable size,
            Some(GlError::InvalidOperation),
            // a size of zero or above MAX_COMPUTE_VARIABLE_GROUP_SIZE_ARB,
            Some(GlError::InvalidValue),
            Some(GlError::InvalidValue),
            // more than MAX_COMPUTE_VARIABLE_GROUP_INVOCATIONS_ARB (512) invocations.
            Some(GlError::InvalidValue),
        ]
    );
    let p = plan(
        "",
        vec![storage(0, &[0; 2])],
        vec![sized([1, 1, 1], [2, 1, 1])],
    );
    let o = conform_reference::run_ir(&group_size_writer(false), &p, &Default::default()).unwrap();
    assert_eq!(
        o.steps[0].error,
        Some(GlError::InvalidOperation),
        "DispatchComputeGroupSizeARB on a fixed size"
    );
    assert_eq!(words(&o, 0), vec![0, 0]);
}
