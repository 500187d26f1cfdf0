//! Generation of programs from bytes, on `arbitrary`'s `Unstructured`.
//!
//! The same bytes give the same program, so a libFuzzer input, a seeded campaign iteration and
//! a stored corpus entry are interchangeable. Choices lean towards the places bugs hide:
//! atomic operands and initial values next to the wrap-around points (0, the operand, the
//! number of updates, the ends of the signed and unsigned ranges), shuffle indices at the
//! segment and clamp boundaries and with high bits set, constants at the edges of shifts and
//! signed ranges. Every program satisfies [`Program::check`].

pub mod rules;
use crate::ast::*;
use arbitrary::{Result, Unstructured};
use serde::{Deserialize, Serialize};

/// What a campaign generates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Every block kind, loops far below every known driver cap.
    #[default]
    Default,
    /// Loops of about 2^16 iterations and more in small dispatches: probes iteration caps
    /// such as llvmpipe's 65535 (docs/DRIVERS.md).
    LoopCaps,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "default" => Ok(Mode::Default),
            "loop-caps" => Ok(Mode::LoopCaps),
            // Litmus tests are run, not generated: their options (instances, stress, fences)
            // are another command's.
            "litmus" => Err(
                "memory-model litmus tests have their own command: `conform litmus` (see \
                 `conform litmus --help` and docs/FUZZING.md)"
                    .into(),
            ),
            other => Err(format!("unknown mode `{other}` (default, loop-caps)")),
        }
    }
}

/// Generates one program in `lang` for `mode`.
pub fn program_in(u: &mut Unstructured, lang: Lang, mode: Mode) -> Result<Program> {
    match mode {
        Mode::Default => program(u, lang),
        Mode::LoopCaps => loop_caps(u, lang),
    }
}

/// A compute block whose first statement is a loop of about 2^16 iterations or more, in one
/// group of at most 4 invocations.
fn loop_caps(u: &mut Unstructured, lang: Lang) -> Result<Program> {
    let count = *u.choose(&[65_535, 65_536, 65_537, 100_000, 131_072])?;
    let body = stmts(u, 1, 0)?;
    let mut rest = stmts(u, 0, 0)?;
    rest.insert(0, Stmt::Loop(count, body));
    Ok(Program {
        lang,
        local_size: *u.choose(&[1, 2, 4])?,
        groups: 1,
        blocks: vec![Block::Compute(ComputeBlock {
            seed: u.arbitrary()?,
            stmts: rest,
        })],
        shape: None,
    })
}

/// Generates one program in `lang` (the default mode).
pub fn program(u: &mut Unstructured, lang: Lang) -> Result<Program> {
    // SPIR-V has no NV shuffle (emit_spirv::expressible).
    let with_shuffles = u.ratio(1, 4)? && lang != Lang::Spirv;
    let local_size = if with_shuffles {
        32 * u.int_in_range(1..=4)?
    } else {
        *u.choose(&[1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 64, 100, 128, 256])?
    };
    let groups = *u.choose(&[1, 1, 2, 2, 3, 4, 8])?;
    let mut p = Program {
        lang,
        local_size,
        groups,
        blocks: Vec::new(),
        shape: None,
    };
    let n = u.int_in_range(1..=4)?;
    for _ in 0..n {
        let block = match u.int_in_range(0..=9)? {
            0..=2 => Block::Atomic(atomic(u, &p)?),
            3 if u.ratio(1, 2)? => Block::FloatAtomic(float_atomic(u, &p)?),
            3 => Block::Atomic(atomic(u, &p)?),
            4 => Block::Section(section(u, &p)?),
            5 | 6 => Block::Exchange(exchange(u, &p)?),
            7 if with_shuffles => Block::Shuffle(shuffle(u, lang)?),
            _ => Block::Compute(compute(u)?),
        };
        p.blocks.push(block);
    }
    // Undefined behaviour on purpose, in one program of eight, after the defined blocks.
    if u.ratio(1, 8)? {
        if let Some(b) = undefined(u, &p)? {
            p.blocks.push(Block::Undefined(b));
        }
    }
    // 2D and 3D groups and dispatches, in one program of three without shuffles: the sizes
    // drawn above, factored (drawn last, so the blocks are the ones they were before).
    if !p.needs_shuffle() && u.ratio(1, 3)? {
        let local = factor(u, p.local_size, 64)?;
        let groups = factor(u, p.groups, u32::MAX)?;
        p.shape = Some(Shape { local, groups });
    }
    // Shuffles in a partial last warp (in two programs of three with shuffles, up to two
    // tries): the group shrinks where no shuffle then reads a missing lane (drawn last, as
    // the shape).
    if with_shuffles && u.ratio(2, 3)? {
        for _ in 0..2 {
            let smaller = Program {
                local_size: p.local_size - u.int_in_range(1..=31)?,
                ..p.clone()
            };
            if smaller.check().is_ok() {
                p = smaller;
                break;
            }
        }
    }
    // 8- and 16-bit storage (NV assembly only: crate::features::narrow), in one program of four, drawn
    // last so that the rest of the program stays what it was before it existed, and
    // placed before the undefined-behaviour block, which stays last.
    if lang == Lang::Nvasm && p.blocks.len() < MAX_BLOCKS && u.ratio(1, 4)? {
        let at = p.undefined_block().map_or(p.blocks.len(), |(k, _)| k);
        let b = narrow(u, &p)?;
        p.blocks.insert(at, Block::Narrow(b));
    }
    // Vectors, swizzles and write masks (crate::features::vector), in one program of five, drawn last
    // for the same reason, also before the undefined-behaviour block.
    if p.blocks.len() < MAX_BLOCKS && u.ratio(1, 5)? {
        let at = p.undefined_block().map_or(p.blocks.len(), |(k, _)| k);
        let b = crate::features::vector::block(u)?;
        p.blocks.insert(at, Block::Vector(b));
    }
    // Different atomic operations on one word (crate::features::atomic_mix), in one program of six,
    // drawn after everything else for the same reason, before the undefined-behaviour block.
    if p.blocks.len() < MAX_BLOCKS && u.ratio(1, 6)? {
        let at = p.undefined_block().map_or(p.blocks.len(), |(k, _)| k);
        let space = space(u)?;
        let b = crate::features::atomic_mix::generate(u, &p, space, edgy)?;
        p.blocks.insert(at, Block::AtomicMix(b));
    }
    // The rest of the integer instruction set (docs/FUZZING.md's table: comparisons, logical
    // operators, signed functions, clamps, carries and borrows, and in SPIR-V OpSRem/OpSMod
    // on non-negative operands), in one program of two, drawn after everything else so that the rest
    // of the program is what it was without it: one to three more statements at the end of
    // a compute block, or of a new one before the undefined-behaviour block when there is
    // none.
    if u.ratio(1, 2)? {
        let computes: Vec<usize> = (0..p.blocks.len())
            .filter(|&k| matches!(p.blocks[k], Block::Compute(_)))
            .collect();
        let k = if !computes.is_empty() {
            Some(*u.choose(&computes)?)
        } else if p.blocks.len() < MAX_BLOCKS {
            let at = p.undefined_block().map_or(p.blocks.len(), |(k, _)| k);
            let c = ComputeBlock {
                seed: u.arbitrary()?,
                stmts: Vec::new(),
            };
            p.blocks.insert(at, Block::Compute(c));
            Some(at)
        } else {
            None
        };
        if let Some(Block::Compute(c)) = k.map(|k| &mut p.blocks[k]) {
            // Each folded into a variable by `^`, which loses neither side: a wrong value
            // computed before stays visible (an assignment would hide it).
            for _ in 0..u.int_in_range(1..=3)? {
                let e = int_families(u, lang, 0)?;
                let v = u.int_in_range(0..=VARS as u8 - 1)?;
                c.stmts
                    .push(Stmt::Assign(v, Expr::bin(BinOp::Xor, Expr::Var(v), e)));
            }
        }
    }
    // Subgroup exchanges, arithmetic and ballots (crate::features::subgroup; GLSL and
    // SPIR-V, in one-dimensional groups of a multiple of 64 invocations, without NV
    // shuffles), in two programs of three that can have one, drawn after everything else so
    // that the rest of the program is what it was without it, before the
    // undefined-behaviour block.
    let subgroups = lang != Lang::Nvasm
        && p.local_size
            .is_multiple_of(crate::ast::subgroup::SUBGROUP_GROUP_MULTIPLE)
        && p.shape.is_none()
        && !p.needs_shuffle();
    if subgroups && p.blocks.len() < MAX_BLOCKS && u.ratio(2, 3)? {
        if let Some(b) = crate::features::subgroup::generate(u, &p)? {
            let at = p.undefined_block().map_or(p.blocks.len(), |(k, _)| k);
            p.blocks.insert(at, Block::Subgroup(b));
        }
    }
    debug_assert_eq!(p.check(), Ok(()), "{p:?}");
    Ok(p)
}

/// `x` negated one time in two.
fn negated(u: &mut Unstructured, x: Box<Expr>) -> Result<Box<Expr>> {
    Ok(if u.ratio(1, 2)? {
        Box::new(Expr::Un(UnOp::Neg, x))
    } else {
        x
    })
}

/// The families of [`int_families`], with the names their operators have in signatures
/// (`srem-smod`: SPIR-V only).
pub const INT_FAMILIES: [(&str, &[&str]); 7] = [
    ("relational", &["leu", "les", "gtu", "gts", "geu", "ges"]),
    ("logical", &["land", "lor", "lxor", "lnot"]),
    ("signed", &["findmsbs", "abss", "signs"]),
    ("clamp", &["clampu", "clamps"]),
    ("carry", &["carry", "borrow"]),
    ("nv-forms", &["absdiffu", "absdiffs", "mul24u", "mul24s"]),
    ("srem-smod", &["srem", "smod"]),
];

/// An expression whose root is one of the operators outside [`BinOp::ALL`] and
/// [`UnOp::ALL`], by family (each family one time in six, or seven in SPIR-V); its operands
/// are ordinary compute expressions or, one time in four at the top, another such root.
fn int_families(u: &mut Unstructured, lang: Lang, depth: usize) -> Result<Expr> {
    let operand = |u: &mut Unstructured| -> Result<Box<Expr>> {
        Ok(Box::new(if depth == 0 && u.ratio(1, 4)? {
            int_families(u, lang, depth + 1)?
        } else {
            expr(u, &Leaves::COMPUTE, 1, 3)?
        }))
    };
    let families = if lang == Lang::Spirv { 7 } else { 6 };
    Ok(match u.int_in_range(1..=families)? {
        1 => {
            use BinOp::*;
            let op = *u.choose(&[LeU, LeS, GtU, GtS, GeU, GeS])?;
            let a = operand(u)?;
            // Equal operands one time in four: where `<=` and `<` part.
            let b = if u.ratio(1, 4)? {
                a.clone()
            } else {
                operand(u)?
            };
            // On operands extended to 64 bits one time in four (crate::features::wide).
            if u.ratio(1, 4)? {
                Expr::Wide(Wide {
                    op,
                    a,
                    b,
                    signed: u.arbitrary()?,
                    high: false,
                })
            } else {
                Expr::Bin(op, a, b)
            }
        }
        2 if u.ratio(1, 4)? => Expr::Un(UnOp::LNot, operand(u)?),
        2 => Expr::Bin(
            *u.choose(&[BinOp::LAnd, BinOp::LOr, BinOp::LXor])?,
            operand(u)?,
            operand(u)?,
        ),
        // A negative operand one time in two: where the signed functions part from the
        // unsigned ones.
        3 => {
            let op = *u.choose(&[UnOp::FindMsbS, UnOp::AbsS, UnOp::SignS])?;
            let x = operand(u)?;
            Expr::Un(op, negated(u, x)?)
        }
        4 => {
            let signed: bool = u.arbitrary()?;
            let (a, b) = (constant(u)?, constant(u)?);
            let b = if u.ratio(1, 4)? { a } else { b };
            let (lo, hi) = if (signed && (a as i32) <= (b as i32)) || (!signed && a <= b) {
                (a, b)
            } else {
                (b, a)
            };
            Expr::Clamp {
                value: operand(u)?,
                lo,
                hi,
                signed,
            }
        }
        5 => Expr::Bin(
            *u.choose(&[BinOp::Carry, BinOp::Borrow])?,
            operand(u)?,
            operand(u)?,
        ),
        // NV's own forms: SAD (with an addend one time in two) and the 24-bit multiplies.
        6 => {
            use BinOp::*;
            let op = *u.choose(&[AbsDiffU, AbsDiffS, Mul24U, Mul24S])?;
            let e = Expr::Bin(op, operand(u)?, operand(u)?);
            if matches!(op, AbsDiffU | AbsDiffS) && u.ratio(1, 2)? {
                Expr::Bin(Add, Box::new(e), operand(u)?)
            } else {
                e
            }
        }
        _ => {
            // Negated operands one time in two each (the emitters then clear the sign: in
            // OpenGL a negative operand is undefined, ARB_gl_spirv A.spv.6).
            let a = operand(u)?;
            let a = negated(u, a)?;
            let b = operand(u)?;
            let b = negated(u, b)?;
            Expr::Bin(*u.choose(&[BinOp::SRem, BinOp::SMod])?, a, b)
        }
    })
}

/// `n` as a product x * y * z, z at most `max_z`: each factor a divisor of what is left.
fn factor(u: &mut Unstructured, n: u32, max_z: u32) -> Result<[u32; 3]> {
    let divisors = |m: u32| {
        (1..=m)
            .filter(|d| m.is_multiple_of(*d))
            .collect::<Vec<u32>>()
    };
    let x = *u.choose(&divisors(n))?;
    let rest = n / x;
    let y = *u.choose(&divisors(rest))?;
    let z = rest / y;
    Ok(if z <= max_z { [x, y, z] } else { [x, y * z, 1] })
}

/// An undefined-behaviour block that is undefined in `p` (the kinds that cannot be, such as
/// an inactive-lane read among whole warps, are left out), or none.
fn undefined(u: &mut Unstructured, p: &Program) -> Result<Option<UndefinedBlock>> {
    let active = p.local_size % 32;
    let kinds: Vec<UbKind> = UbKind::ALL
        .into_iter()
        .filter(|k| match k {
            UbKind::DivergentBarrier => p.local_size >= 2,
            UbKind::InactiveLaneRead => {
                p.lang != Lang::Spirv && !p.has_shuffle_blocks() && (1..=30).contains(&active)
            }
            _ => true,
        })
        .collect();
    let kind = *u.choose(&kinds)?;
    let param = match kind {
        UbKind::DivergentBarrier => match u.int_in_range(0..=2)? {
            0 => 1,
            1 => p.local_size - 1,
            _ => u.int_in_range(1..=p.local_size - 1)?,
        },
        UbKind::UninitSharedRead => u.int_in_range(0..=p.local_size - 1)?,
        UbKind::InactiveLaneRead => u.int_in_range(active..=30)?,
        UbKind::OversizeShift => {
            let any = u.int_in_range(32..=63)?;
            *u.choose(&[32, 33, 63, any])?
        }
        UbKind::DivByZero => 0,
    };
    let b = UndefinedBlock { kind, param };
    if p.blocks.len() >= MAX_BLOCKS || b.check(p).is_err() {
        return Ok(None);
    }
    Ok(Some(b))
}

/// A value near an edge of 32-bit arithmetic or of `n` (a count of updates), or any value.
fn edgy(u: &mut Unstructured, n: u32) -> Result<u32> {
    Ok(match u.int_in_range(0..=11)? {
        0 => 0,
        1 => 1,
        2 => n.saturating_sub(1),
        3 => n,
        4 => n + 1,
        5 => u32::MAX,
        6 => 0x7FFF_FFFF,
        7 => 0x8000_0000,
        8 | 9 => u.int_in_range(0..=40)?,
        _ => u.arbitrary()?,
    })
}

fn guard(u: &mut Unstructured, n: u32) -> Result<Guard> {
    Ok(match u.int_in_range(0..=5)? {
        0..=2 => Guard::All,
        3 | 4 => Guard::Below(u.int_in_range(0..=n)?),
        _ => {
            let m = u.int_in_range(2..=4)?;
            Guard::Every {
                m,
                r: u.int_in_range(0..=m - 1)?,
            }
        }
    })
}

fn space(u: &mut Unstructured) -> Result<Space> {
    Ok(if u.arbitrary()? {
        Space::Storage
    } else {
        Space::Shared
    })
}

fn atomic(u: &mut Unstructured, p: &Program) -> Result<AtomicBlock> {
    let space = space(u)?;
    // Wrap-around is the main target: IWRAP and DWRAP weigh double where they exist.
    let mut ops: Vec<AtomicOp> = AtomicOp::ALL.to_vec();
    if p.lang == Lang::Nvasm {
        ops.extend([AtomicOp::IWrap, AtomicOp::DWrap]);
    } else {
        ops.retain(|o| !o.nvasm_only());
    }
    let op = *u.choose(&ops)?;
    let ty = if op.nvasm_only() || u.ratio(2, 3)? {
        AtomTy::U32
    } else {
        AtomTy::S32
    };
    let updaters = p.sharing(space);
    let guard = guard(u, updaters)?;
    let operand = if op.commutes() && u.ratio(1, 3)? {
        Operand::PerInvocation {
            base: edgy(u, updaters)?,
            step: *u.choose(&[0, 1, 2, 3, 0xFFFF_FFFF, 0x8000_0000, 0x1234_5679])?,
        }
    } else {
        Operand::Uniform(edgy(u, updaters)?)
    };
    let op_value = match operand {
        Operand::Uniform(v) => v,
        Operand::PerInvocation { base, .. } => base,
    };
    let init = match u.int_in_range(0..=5)? {
        0 => op_value,
        1 => op_value.wrapping_add(1),
        2 => op_value.wrapping_sub(1),
        _ => edgy(u, updaters)?,
    };
    let compare = if u.arbitrary()? {
        init
    } else {
        edgy(u, updaters)?
    };
    Ok(AtomicBlock {
        space,
        op,
        ty,
        operand,
        compare,
        init,
        guard,
        keep_returns: u.ratio(4, 5)?,
    })
}

fn float_atomic(u: &mut Unstructured, p: &Program) -> Result<FloatAtomicBlock> {
    let space = space(u)?;
    let updaters = p.sharing(space);
    Ok(FloatAtomicBlock {
        space,
        operand: *u.choose(&[1, 2, 4, -4, 6, 64, -64, 3])?,
        init: *u.choose(&[0, 2, -2, 4096, -4096, 1000])?,
        guard: guard(u, updaters)?,
        keep_returns: u.ratio(4, 5)?,
    })
}

fn narrow(u: &mut Unstructured, p: &Program) -> Result<NarrowBlock> {
    Ok(NarrowBlock {
        space: space(u)?,
        bits: *u.choose(&[8, 16])?,
        store_signed: u.arbitrary()?,
        load_signed: u.arbitrary()?,
        // Values around the sign bits of a byte and a halfword, and over them.
        value: match u.int_in_range(0..=2)? {
            0 => Expr::bin(
                BinOp::Add,
                Expr::Const(*u.choose(&[0x7E, 0xFE, 0x7FFE, 0xFFFE, 0x1_FFFE])?),
                Expr::Lid,
            ),
            _ => expr(u, &Leaves::PURE, 0, 3)?,
        },
        rot: u.int_in_range(0..=2 * p.local_size)?,
    })
}

fn section(u: &mut Unstructured, p: &Program) -> Result<SectionBlock> {
    let space = space(u)?;
    let per_counter = p.sharing(space);
    let winner = match u.int_in_range(0..=2)? {
        0 => 0,
        1 => per_counter - 1,
        _ => u.int_in_range(0..=per_counter - 1)?,
    };
    let payload = expr(u, &Leaves::TICKET, 0, 3)?;
    Ok(SectionBlock {
        space,
        winner,
        payload,
    })
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn exchange(u: &mut Unstructured, p: &Program) -> Result<ExchangeBlock> {
    let n = p.local_size;
    let mut mul = 2 * u.int_in_range(0..=40)? + 1;
    while gcd(mul, n) != 1 {
        mul += 2;
    }
    Ok(ExchangeBlock {
        mul,
        add: u.int_in_range(0..=2 * n)?,
        value: expr(u, &Leaves::PURE, 0, 3)?,
        rounds: *u.choose(&[0, 0, 1, 2, 5])?,
        fence: u.arbitrary()?,
    })
}

fn shuffle(u: &mut Unstructured, lang: Lang) -> Result<ShuffleBlock> {
    let mode = *u.choose(&ShflMode::ALL)?;
    let ty = match lang {
        Lang::Glsl | Lang::Spirv => {
            *u.choose(&[ShflTy::U32, ShflTy::I32, ShflTy::F32, ShflTy::Bool])?
        }
        Lang::Nvasm => *u.choose(&[ShflTy::U32, ShflTy::I32, ShflTy::F32])?,
    };
    let width = 2u32 << u.int_in_range(0..=4)?;
    // Segment masks of whole power-of-two segments mostly, sometimes any 5 bits; the clamp
    // anywhere, often at a segment end.
    let seg = match u.int_in_range(0..=3)? {
        0 => 0,
        1 | 2 => *u.choose(&[0x10, 0x18, 0x1C, 0x1E, 0x1F])?,
        _ => u.int_in_range(0..=31)?,
    };
    let clamp = match u.int_in_range(0..=2)? {
        0 => 31,
        1 => !seg & 31,
        _ => u.int_in_range(0..=31)?,
    };
    let mask = (seg << 8) | clamp;
    let index = if u.ratio(2, 3)? {
        Expr::Const(match u.int_in_range(0..=6)? {
            0 => 0,
            1 => 1,
            2 => width - 1,
            3 => width,
            4 => 31,
            5 => 32 + u.int_in_range(0..=31)?,
            _ => u.arbitrary()?,
        })
    } else {
        expr(u, &Leaves::INDEX, 0, 2)?
    };
    Ok(ShuffleBlock {
        mode,
        ty,
        value: expr(u, &Leaves::PURE, 0, 2)?,
        index,
        width,
        mask,
        want_valid: u.ratio(3, 4)?,
    })
}

fn compute(u: &mut Unstructured) -> Result<ComputeBlock> {
    let seed = u.arbitrary()?;
    let mut stmts = stmts(u, 0, 2)?;
    // Float conversions come last, over the variables the statements before computed: drawn
    // after them, they leave the integer statements as they were before floats existed.
    if u.ratio(1, 2)? {
        let leaves = Leaves {
            floats: true,
            ..Leaves::COMPUTE
        };
        for _ in 0..u.int_in_range(1..=2)? {
            let v = u.int_in_range(0..=VARS as u8 - 1)?;
            stmts.push(Stmt::Assign(v, f_to_i(u, &leaves, 0, 2)?));
        }
    }
    // The components of the local and group IDs (in any shape; 0 beyond x in one dimension).
    if u.ratio(1, 3)? {
        let leaves = Leaves {
            dims: true,
            ..Leaves::COMPUTE
        };
        let v = u.int_in_range(0..=VARS as u8 - 1)?;
        stmts.push(Stmt::Assign(v, expr(u, &leaves, 0, 3)?));
    }
    // 64-bit expressions (`crate::features::wide`) in one block of three, over the variables the
    // statements before computed (drawn after them, as the floats).
    if u.ratio(1, 3)? {
        let v = u.int_in_range(0..=VARS as u8 - 1)?;
        let mut operand = |u: &mut Unstructured| {
            if u.ratio(1, 4)? {
                crate::features::wide::arbitrary(u, &mut |u| expr(u, &Leaves::COMPUTE, 1, 3))
            } else {
                expr(u, &Leaves::COMPUTE, 0, 3)
            }
        };
        stmts.push(Stmt::Assign(
            v,
            crate::features::wide::arbitrary(u, &mut operand)?,
        ));
    }
    // Functions: a run of top-level statements (which read no loop index) moved into a
    // function and called there, sometimes twice (a call inside a call).
    for _ in 0..2 {
        if !u.ratio(1, 3)? {
            break;
        }
        let from = u.int_in_range(0..=stmts.len() - 1)?;
        let to = u.int_in_range(from..=stmts.len() - 1)?;
        let body: Vec<Stmt> = stmts.drain(from..=to).collect();
        stmts.insert(from, Stmt::Call(body));
    }
    Ok(ComputeBlock { seed, stmts })
}

fn stmts(u: &mut Unstructured, loops: u8, depth: usize) -> Result<Vec<Stmt>> {
    let n = u.int_in_range(1..=4)?;
    let mut out = Vec::new();
    let leaves = Leaves {
        loops,
        ..Leaves::COMPUTE
    };
    for _ in 0..n {
        let s = match u.int_in_range(0..=5)? {
            4 if depth > 0 => {
                let cond = expr(u, &leaves, 0, 2)?;
                let mut then = stmts(u, loops, depth - 1)?;
                let els = if u.arbitrary()? {
                    stmts(u, loops, depth - 1)?
                } else {
                    Vec::new()
                };
                // Inside a loop, the then-branch may leave the round or the loop early.
                if loops > 0 && u.ratio(1, 2)? {
                    then.push(if u.arbitrary()? {
                        Stmt::Break
                    } else {
                        Stmt::Continue
                    });
                }
                Stmt::If(cond, then, els)
            }
            5 if depth > 0 => Stmt::Loop(u.int_in_range(1..=8)?, stmts(u, loops + 1, depth - 1)?),
            _ => Stmt::Assign(u.int_in_range(0..=VARS as u8 - 1)?, expr(u, &leaves, 0, 4)?),
        };
        out.push(s);
    }
    Ok(out)
}

/// Which leaves an expression may read where it stands.
struct Leaves {
    lid: bool,
    gid: bool,
    wg: bool,
    vars: bool,
    ticket: bool,
    /// Float conversions (in the last statements of compute blocks only: a planted float
    /// bug then shows with the operators that reach it in its signature).
    floats: bool,
    /// The components of `gl_LocalInvocationID` and `gl_WorkGroupID`.
    dims: bool,
    /// Number of enclosing loops.
    loops: u8,
}

impl Leaves {
    const NONE: Leaves = Leaves {
        lid: false,
        gid: false,
        wg: false,
        vars: false,
        ticket: false,
        floats: false,
        dims: false,
        loops: 0,
    };
    /// Over `lid`, `wg` and constants: values another invocation of the group can recompute.
    const PURE: Leaves = Leaves {
        lid: true,
        wg: true,
        ..Leaves::NONE
    };
    /// A compute statement's (loop indices aside).
    const COMPUTE: Leaves = Leaves {
        lid: true,
        gid: true,
        wg: true,
        vars: true,
        ..Leaves::NONE
    };
    const INDEX: Leaves = Leaves {
        lid: true,
        ..Leaves::NONE
    };
    const TICKET: Leaves = Leaves {
        ticket: true,
        ..Leaves::NONE
    };
}

fn constant(u: &mut Unstructured) -> Result<u32> {
    Ok(match u.int_in_range(0..=9)? {
        0 => 0,
        1 => 1,
        2 => 31,
        3 => 32,
        4 => 0x7FFF_FFFF,
        5 => 0x8000_0000,
        6 => u32::MAX,
        7 => u.int_in_range(2..=16)?,
        _ => u.arbitrary()?,
    })
}

fn leaf(u: &mut Unstructured, l: &Leaves) -> Result<Expr> {
    let mut options = vec![Expr::Const(constant(u)?)];
    for (on, e) in [(l.lid, Expr::Lid), (l.gid, Expr::Gid), (l.wg, Expr::Wg)] {
        if on {
            options.push(e);
        }
    }
    if l.ticket {
        options.extend([Expr::Ticket, Expr::Ticket]);
    }
    if l.dims {
        options.extend((0..3).flat_map(|d| [Expr::LocalId(d), Expr::GroupId(d)]));
    }
    if l.vars {
        options.extend((0..VARS as u8).map(Expr::Var));
    }
    options.extend((0..l.loops).map(Expr::LoopIdx));
    Ok(u.choose(&options)?.clone())
}

fn expr(u: &mut Unstructured, l: &Leaves, depth: usize, max: usize) -> Result<Expr> {
    if depth >= max || u.ratio(1, 3)? {
        return leaf(u, l);
    }
    let sub = |u: &mut Unstructured| expr(u, l, depth + 1, max).map(Box::new);
    // Without floats the choice is the one it was before they existed, so the programs (and
    // the planted-bug tests' first hits) of blocks without floats stay the same.
    let arms = if l.floats { 12 } else { 11 };
    Ok(match u.int_in_range(0..=arms)? {
        12 => f_to_i(u, l, depth, max)?,
        0 | 1 => Expr::Un(*u.choose(&UnOp::ALL)?, sub(u)?),
        2 => Expr::Select(sub(u)?, sub(u)?, sub(u)?),
        3 => {
            let (offset, bits) = bitfield(u)?;
            Expr::Extract {
                value: sub(u)?,
                offset,
                bits,
                signed: u.arbitrary()?,
            }
        }
        4 => {
            let (offset, bits) = bitfield(u)?;
            Expr::Insert {
                base: sub(u)?,
                insert: sub(u)?,
                offset,
                bits,
            }
        }
        _ => Expr::Bin(*u.choose(&BinOp::ALL)?, sub(u)?, sub(u)?),
    })
}

/// A float expression rounded back to an integer: a sum, difference, product, `fma` or
/// clamp of small integers scaled by powers of two (fractions included, ties of
/// round-to-even too), exact by [`FExpr::exact`]; a tree that is not is replaced by one of
/// its leaves, which always is.
fn f_to_i(u: &mut Unstructured, l: &Leaves, depth: usize, max: usize) -> Result<Expr> {
    let mut value = fexpr(u, l, depth, max, 0)?;
    if !value.exact() {
        value = fleaf(u, l, depth, max)?;
    }
    let to = if u.ratio(1, 2)? {
        IntTy::S32
    } else {
        *u.choose(&IntTy::ALL)?
    };
    Ok(Expr::FToI {
        value: Box::new(value),
        round: *u.choose(&Round::ALL)?,
        to,
        sat: u.ratio(1, 3)?,
    })
}

fn fexpr(
    u: &mut Unstructured,
    l: &Leaves,
    depth: usize,
    max: usize,
    fdepth: usize,
) -> Result<FExpr> {
    if fdepth >= 2 || u.ratio(1, 3)? {
        return fleaf(u, l, depth, max);
    }
    let sub = |u: &mut Unstructured| fexpr(u, l, depth, max, fdepth + 1).map(Box::new);
    Ok(match u.int_in_range(0..=5)? {
        0..=2 => FExpr::Bin(*u.choose(&FOp::ALL)?, sub(u)?, sub(u)?),
        3 => FExpr::Fma(sub(u)?, sub(u)?, sub(u)?),
        _ => FExpr::Sat(sub(u)?),
    })
}

/// `float(bitfieldExtract(x, 0, bits)) * 2^scale`: mostly narrow, often fractional.
fn fleaf(u: &mut Unstructured, l: &Leaves, depth: usize, max: usize) -> Result<FExpr> {
    let any = u.int_in_range(1..=24)?;
    let bits = *u.choose(&[1, 2, 4, 6, 8, 12, 24, any])?;
    let any = u.int_in_range(-8..=8)?;
    // Below 2^30 in magnitude: in range of every 32-bit conversion.
    let scale = (*u.choose(&[0, 0, -1, -2, -4, 1, 4, any])?).min(30 - bits as i8);
    Ok(FExpr::Int(FLeaf {
        value: Box::new(expr(u, l, depth + 1, max)?),
        bits,
        signed: u.arbitrary()?,
        scale,
    }))
}

/// A bitfield defined in both languages, often at an edge (empty, whole word, top bit).
fn bitfield(u: &mut Unstructured) -> Result<(u8, u8)> {
    let any = u.int_in_range(0..=31)?;
    let offset = *u.choose(&[0u8, 0, 1, 8, 16, 31, any])?;
    let room = 32 - offset;
    let any = u.int_in_range(0..=room)?;
    let bits = *u.choose(&[0u8, 1, room, room, any])?;
    Ok((offset, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_litmus_points_to_its_command() {
        assert_eq!("loop-caps".parse::<Mode>(), Ok(Mode::LoopCaps));
        assert!("litmus"
            .parse::<Mode>()
            .unwrap_err()
            .contains("`conform litmus`"));
        assert!("fast".parse::<Mode>().unwrap_err().contains("`fast`"));
    }

    #[test]
    fn every_generated_program_keeps_the_rules() {
        let mut bytes = vec![0u8; 4096];
        let mut state = 1u64;
        for i in 0..2000 {
            for b in bytes.iter_mut() {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *b = (state >> 56) as u8;
            }
            let lang = Lang::ALL[i % Lang::ALL.len()];
            let p = program(&mut Unstructured::new(&bytes), lang).unwrap();
            assert_eq!(p.check(), Ok(()), "{p:?}");
        }
    }

    #[test]
    fn loop_cap_programs_keep_the_rules_and_loop_past_65535() {
        let mut bytes = vec![0u8; 2048];
        for i in 0..200u64 {
            let mut rng = conform_case::values::SplitMix64::new(i);
            bytes.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
            let p = program_in(&mut Unstructured::new(&bytes), Lang::Glsl, Mode::LoopCaps).unwrap();
            assert_eq!(p.check(), Ok(()), "{p:?}");
            let Block::Compute(c) = &p.blocks[0] else {
                panic!("{p:?}")
            };
            assert!(matches!(c.stmts[0], Stmt::Loop(n, _) if n >= 65_535));
        }
    }

    #[test]
    fn empty_input_still_gives_a_program() {
        for lang in Lang::ALL {
            let p = program(&mut Unstructured::new(&[]), lang).unwrap();
            assert_eq!(p.check(), Ok(()));
        }
    }
}
