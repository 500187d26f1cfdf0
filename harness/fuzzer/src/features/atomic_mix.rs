//! Several atomic operations on one word whose final value does not depend on their order.
//!
//! An [`crate::ast::AtomicBlock`] applies one operation with one operand kind to its word. An
//! [`AtomicMixBlock`] hands the invocations sharing a word *different* operations: invocation
//! `i` (its global index for a storage word, its local index for a shared word, as the atomic
//! block does) performs part `i % parts.len()`, one atomic operation with that part's
//! constant operand, under an `if (i % n == j)` per part (the same test the atomic block's
//! `Guard::Every` emits in every language). The word starts at `init` (written by the
//! harness for a storage word, by invocation 0 before a barrier for a shared word); after a
//! barrier, a shared word's final value is stored at the group's index of the block's buffer.
//!
//! Every atomic operation reads the word, computes a new value and writes it back with no
//! other write to the word in between (GLSL 4.60 section 8.11, "Atomic Memory Functions";
//! NV_compute_program5 `ATOMS` and NV_shader_storage_buffer_object `ATOMB`, whose operations
//! are NV_gpu_program5's `ATOM` table; SPIR-V's atomic instructions `OpAtomicIAdd`,
//! `OpAtomicUMin`/`SMin`, `OpAtomicUMax`/`SMax`, `OpAtomicAnd`/`Or`/`Xor`), so the word goes
//! through the parts'
//! functions `f_1 .. f_N` in some order, unspecified. The final value is the same in every
//! order exactly when those functions commute pairwise, which holds for these combinations
//! only ([`AtomicMixBlock::check`] keeps to them):
//! - adds of any operands: the new value is `old + a` in 32-bit integer arithmetic, which
//!   keeps the low 32 bits of an overflowing sum (GLSL 4.60 section 4.1.3; NV_gpu_program4's
//!   integer ADD; SPIR-V `OpIAdd`'s modulo-2^N result), and addition mod 2^32 is commutative
//!   and associative, so `(x + a) + b == (x + b) + a`;
//! - ANDs, ORs and XORs whose touched bits are pairwise disjoint across the three kinds: an AND
//!   with `m` clears the bits of `!m` and keeps the others, an OR sets the bits of its operand,
//!   a XOR flips the bits of its operand. Each bit is touched by one kind only, and the
//!   updates of one kind commute among themselves (AND and OR are commutative, associative and
//!   idempotent; XORs flip each bit by the parity of how many set it, whatever the order),
//!   while the other kinds leave that bit alone (OR and XOR with 0, AND with 1). Overlapping
//!   sets do not commute: `(x | 1) ^ 1 != (x ^ 1) | 1`;
//! - several MINs, or several MAXes, of any operands, unsigned or signed as the word's type
//!   says: `min(min(x, a), b) == min(x, min(a, b))` in any total order. A MIN with a MAX does
//!   not commute (`max(min(5, 1), 3) = 3`, `min(max(5, 3), 1) = 1`), nor does anything with an
//!   exchange or a compare-and-swap (the last exchange wins).
//!
//! IWRAP and DWRAP (NV assembly only) are left out: where no wrap point can be reached they
//! are adds of +1 and -1, which the add mixes cover in every language, and where one can be
//! reached they do not commute with each other or with adds (wrapping to 0 first, or adding
//! first and not wrapping, gives different words).
//!
//! The values the atomics return are not checked: each is the word before one update, which
//! depends on how many and which other parts came first, so unlike a one-operation block with
//! a uniform operand their multiset is not fixed. The model folds the parts over the word in
//! index order ([`final_value`]); a property test applies them in random orders.
//!
//! The block's node types and [`AtomicMixBlock::check`] are the tree's
//! ([`crate::ast::atomic_mix`]); this module holds the semantics, generation and reduction.

use crate::ast::atomic_mix::{MixKind, MixPart, MAX_PARTS};
use crate::ast::{AtomTy, AtomicMixBlock, AtomicOp, Program, Space};
use crate::oracles::model::value::{atomic_step, BufferModel, Elem, Want, SENTINEL};
use arbitrary::{Result, Unstructured};

/// The word after `parts` applied to `init` one after another.
pub fn final_value(ty: AtomTy, init: u32, parts: impl IntoIterator<Item = MixPart>) -> u32 {
    parts.into_iter().fold(init, |old, p| {
        atomic_step(p.op, ty == AtomTy::S32, old, p.operand, 0)
    })
}

/// The final word of every word the block updates: one for storage, one per group for shared.
pub fn finals(m: &AtomicMixBlock, p: &Program) -> Vec<u32> {
    let words = match m.space {
        Space::Storage => 1,
        Space::Shared => p.groups,
    };
    let sharing = p.sharing(m.space) as usize;
    let n = m.parts.len();
    (0..words)
        .map(|_| final_value(m.ty, m.init, (0..sharing).map(|i| m.parts[i % n])))
        .collect()
}

/// What the block must leave in its buffer: the final words, from index 0.
pub fn model(m: &AtomicMixBlock, p: &Program) -> BufferModel {
    let values = finals(m, p);
    let mut init = vec![SENTINEL; values.len()];
    if m.space == Space::Storage {
        init[0] = m.init;
    }
    BufferModel {
        elem: if m.ty == AtomTy::S32 {
            Elem::I32
        } else {
            Elem::U32
        },
        init,
        want: vec![Want::Values { at: 0, values }],
    }
}

/// A block for `p`: two to [`MAX_PARTS`] parts of one family, operands next to the edges
/// `edgy` draws; bitwise parts draw which bits each kind owns first, and take the kinds in
/// turn.
pub fn generate(
    u: &mut Unstructured,
    p: &Program,
    space: Space,
    edgy: fn(&mut Unstructured, u32) -> Result<u32>,
) -> Result<AtomicMixBlock> {
    let updaters = p.sharing(space);
    let n = u.int_in_range(2..=MAX_PARTS)?;
    // Bitwise mixes weigh double: three kinds with ownership rules, the most to get wrong.
    let kind = *u.choose(&[
        MixKind::Add,
        MixKind::Bits,
        MixKind::Bits,
        MixKind::Min,
        MixKind::Max,
    ])?;
    let ty = if matches!(kind, MixKind::Min | MixKind::Max) && u.arbitrary()? {
        AtomTy::S32
    } else {
        AtomTy::U32
    };
    let mut parts = Vec::with_capacity(n);
    // Bitwise: every bit belongs to the ANDs, the ORs, the XORs or none (two random words
    // split the 32 bits four ways); a part touches a random subset of its kind's bits.
    let (r1, r2): (u32, u32) = (u.arbitrary()?, u.arbitrary()?);
    // The kinds in turn from a random rotation, so that two parts are two kinds and three
    // are all three.
    let kinds = [AtomicOp::And, AtomicOp::Or, AtomicOp::Xor];
    let first = u.int_in_range(0..=2)?;
    let owned = |op: AtomicOp| match op {
        AtomicOp::And => r1 & r2,
        AtomicOp::Or => r1 & !r2,
        _ => !r1 & r2,
    };
    for j in 0..n {
        let part = match kind {
            MixKind::Bits => {
                let op = kinds[(first + j) % 3];
                let bits = owned(op)
                    & if u.arbitrary()? {
                        u32::MAX
                    } else {
                        u.arbitrary()?
                    };
                let operand = if op == AtomicOp::And { !bits } else { bits };
                MixPart { op, operand }
            }
            MixKind::Add => MixPart {
                op: AtomicOp::Add,
                operand: edgy(u, updaters)?,
            },
            MixKind::Min | MixKind::Max => MixPart {
                op: if kind == MixKind::Min {
                    AtomicOp::Min
                } else {
                    AtomicOp::Max
                },
                operand: edgy(u, updaters)?,
            },
        };
        parts.push(part);
    }
    let init = match u.int_in_range(0..=3)? {
        0 => parts[0].operand,
        1 => parts[0].operand.wrapping_add(1),
        _ => edgy(u, updaters)?,
    };
    Ok(AtomicMixBlock {
        space,
        ty,
        init,
        parts,
    })
}

/// Smaller variants of `m` (fewer parts, smaller operands and initial value, a storage word,
/// unsigned): the reducer keeps those that still pass [`Program::check`] and still diverge.
pub fn shrink(m: &AtomicMixBlock) -> Vec<AtomicMixBlock> {
    let mut out = Vec::new();
    let mut with = |edit: &dyn Fn(&mut AtomicMixBlock)| {
        let mut x = m.clone();
        edit(&mut x);
        if &x != m {
            out.push(x);
        }
    };
    for j in 0..m.parts.len() {
        with(&|x| {
            if x.parts.len() > 1 {
                x.parts.remove(j);
            }
        });
        let v = m.parts[j].operand;
        // Toward 0 for adds, min and max; toward the identity (all ones) for an AND.
        let targets: Vec<u32> = if m.parts[j].op == AtomicOp::And {
            vec![u32::MAX, v | (v >> 1) | 1]
        } else {
            vec![0, 1, v / 2, v & v.wrapping_sub(1)]
        };
        for t in targets {
            with(&|x| x.parts[j].operand = t);
        }
    }
    for t in [0, 1, m.init / 2] {
        with(&|x| x.init = t);
    }
    with(&|x| x.space = Space::Storage);
    with(&|x| x.ty = AtomTy::U32);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Block, Lang};
    use quickcheck::quickcheck;

    fn part(op: AtomicOp, operand: u32) -> MixPart {
        MixPart { op, operand }
    }

    fn block(space: Space, ty: AtomTy, init: u32, parts: &[MixPart]) -> AtomicMixBlock {
        AtomicMixBlock {
            space,
            ty,
            init,
            parts: parts.to_vec(),
        }
    }

    fn program(m: &AtomicMixBlock, lang: Lang, local_size: u32, groups: u32) -> Program {
        Program {
            lang,
            local_size,
            groups,
            blocks: vec![Block::AtomicMix(m.clone())],
            shape: None,
        }
    }

    /// By hand: six invocations, three add 5 (15) and three add 0xFFFFFFFF (-3): 10 + 12 = 22.
    #[test]
    fn adds_wrap_and_sum() {
        let m = block(
            Space::Storage,
            AtomTy::U32,
            10,
            &[part(AtomicOp::Add, 5), part(AtomicOp::Add, u32::MAX)],
        );
        let b = model(&m, &program(&m, Lang::Glsl, 3, 2));
        assert_eq!(b.init, vec![10]);
        assert_eq!(
            b.want,
            vec![Want::Values {
                at: 0,
                values: vec![22]
            }]
        );
        assert_eq!(m.feature(), "atomic-mix-add");
    }

    /// By hand: in each group of 4, lids 0 and 3 AND with !0xF0 (clearing 0xF0), lid 1 ORs
    /// 0x0F000000, lid 2 XORs 0xF00 once: 0xF0F000FF becomes 0xFFF00F0F. In a group of 6 the
    /// XOR runs twice (lids 2 and 5) and cancels: 0xFFF0000F.
    #[test]
    fn disjoint_bits_per_group() {
        let m = block(
            Space::Shared,
            AtomTy::U32,
            0xF0F0_00FF,
            &[
                part(AtomicOp::And, !0xF0),
                part(AtomicOp::Or, 0x0F00_0000),
                part(AtomicOp::Xor, 0xF00),
            ],
        );
        assert_eq!(m.check(), Ok(()));
        let b = model(&m, &program(&m, Lang::Nvasm, 4, 2));
        assert_eq!(b.init, vec![SENTINEL, SENTINEL]);
        assert_eq!(
            b.want,
            vec![Want::Values {
                at: 0,
                values: vec![0xFFF0_0F0F, 0xFFF0_0F0F]
            }]
        );
        assert_eq!(
            finals(&m, &program(&m, Lang::Nvasm, 6, 1)),
            vec![0xFFF0_000F]
        );
        assert_eq!(m.feature(), "atomic-mix-bits");
    }

    /// By hand: MIN of 5 and of 0xFFFFFFFD from 7: signed -3, unsigned 5.
    #[test]
    fn mins_signed_and_unsigned() {
        let parts = [part(AtomicOp::Min, 5), part(AtomicOp::Min, 0xFFFF_FFFD)];
        let s = block(Space::Storage, AtomTy::S32, 7, &parts);
        assert_eq!(
            finals(&s, &program(&s, Lang::Spirv, 2, 1)),
            vec![0xFFFF_FFFD]
        );
        assert_eq!(model(&s, &program(&s, Lang::Spirv, 2, 1)).elem, Elem::I32);
        let u = block(Space::Storage, AtomTy::U32, 7, &parts);
        assert_eq!(finals(&u, &program(&u, Lang::Spirv, 2, 1)), vec![5]);
    }

    #[test]
    fn only_commuting_combinations() {
        let check = |parts: &[MixPart]| block(Space::Storage, AtomTy::U32, 0, parts).check();
        assert!(check(&[part(AtomicOp::Min, 1), part(AtomicOp::Max, 2)])
            .unwrap_err()
            .contains("do not commute"));
        assert!(check(&[part(AtomicOp::Add, 1), part(AtomicOp::Or, 2)]).is_err());
        assert!(check(&[part(AtomicOp::Exch, 1)]).is_err());
        assert!(check(&[part(AtomicOp::IWrap, 1)]).is_err());
        // AND clears bits 0-3, OR sets bit 0: they overlap.
        assert!(check(&[part(AtomicOp::And, !0xF), part(AtomicOp::Or, 1)])
            .unwrap_err()
            .contains("common bits"));
        // Two XORs, or two ORs, may share bits.
        assert_eq!(
            check(&[
                part(AtomicOp::Xor, 3),
                part(AtomicOp::Xor, 1),
                part(AtomicOp::Or, 4)
            ]),
            Ok(())
        );
        assert!(check(&[]).is_err());
        assert!(check(&[part(AtomicOp::Add, 1); MAX_PARTS + 1]).is_err());
    }

    #[test]
    fn shrinks_stay_checkable_or_are_refused() {
        let m = block(
            Space::Shared,
            AtomTy::S32,
            9,
            &[part(AtomicOp::Max, 40), part(AtomicOp::Max, 3)],
        );
        let s = shrink(&m);
        assert!(s.iter().any(|x| x.parts.len() == 1));
        assert!(s.iter().any(|x| x.space == Space::Storage));
        assert!(s.iter().all(|x| x.check().is_ok() && x != &m));
    }

    /// A block of `kind` from random words, its bitwise parts disjoint by construction.
    fn arbitrary_block(kind: u8, ops: &[u8], words: &[u32], init: u32) -> AtomicMixBlock {
        let kind = [MixKind::Add, MixKind::Bits, MixKind::Min, MixKind::Max][usize::from(kind % 4)];
        let (r1, r2) = (
            words.first().copied().unwrap_or(0),
            words.get(1).copied().unwrap_or(0),
        );
        let parts: Vec<MixPart> = ops
            .iter()
            .zip(words.iter().cycle().skip(2))
            .take(MAX_PARTS)
            .map(|(&o, &w)| match kind {
                MixKind::Bits => match o % 3 {
                    0 => part(AtomicOp::And, !(r1 & r2 & w)),
                    1 => part(AtomicOp::Or, r1 & !r2 & w),
                    _ => part(AtomicOp::Xor, !r1 & r2 & w),
                },
                MixKind::Add => part(AtomicOp::Add, w),
                MixKind::Min => part(AtomicOp::Min, w),
                MixKind::Max => part(AtomicOp::Max, w),
            })
            .collect();
        let ty = if init.is_multiple_of(2) {
            AtomTy::U32
        } else {
            AtomTy::S32
        };
        block(Space::Storage, ty, init, &parts)
    }

    quickcheck! {
        /// The final word is the same whatever the order the invocations' parts run in.
        fn final_value_is_order_independent(
            kind: u8, ops: Vec<u8>, words: Vec<u32>, init: u32, count: u8, seed: u64
        ) -> bool {
            if ops.is_empty() || words.is_empty() {
                return true;
            }
            let m = arbitrary_block(kind, &ops, &words, init);
            assert_eq!(m.check(), Ok(()), "{m:?}");
            let n = m.parts.len();
            let in_order: Vec<MixPart> = (0..usize::from(count)).map(|i| m.parts[i % n]).collect();
            // A Fisher-Yates shuffle driven by a SplitMix64 of the seed.
            let mut rng = conform_case::values::SplitMix64::new(seed);
            let mut shuffled = in_order.clone();
            for i in (1..shuffled.len()).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                shuffled.swap(i, j);
            }
            final_value(m.ty, m.init, in_order) == final_value(m.ty, m.init, shuffled)
        }

        /// Overlapping bitwise parts of two kinds are refused (each such pair does not
        /// commute for some word).
        fn overlapping_bits_are_refused(a: u32, b: u32, or: bool) -> bool {
            let second = part(if or { AtomicOp::Or } else { AtomicOp::Xor }, b);
            let m = block(Space::Storage, AtomTy::U32, 0, &[part(AtomicOp::And, a), second]);
            m.check().is_ok() == (!a & b == 0)
        }
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;
    use crate::ast::{Block, Lang};

    fn program(lang: Lang, space: Space) -> Program {
        Program {
            lang,
            local_size: 4,
            groups: 2,
            blocks: vec![Block::AtomicMix(AtomicMixBlock {
                space,
                ty: AtomTy::U32,
                init: 0xF0,
                parts: vec![
                    MixPart {
                        op: AtomicOp::And,
                        operand: !0x10,
                    },
                    MixPart {
                        op: AtomicOp::Or,
                        operand: 0x1,
                    },
                ],
            })],
            shape: None,
        }
    }

    fn text(p: &Program) -> String {
        match p.lang {
            Lang::Glsl => crate::emitters::glsl::emit(p).text,
            Lang::Nvasm => crate::emitters::nvasm::emit(p).text,
            Lang::Spirv => crate::emitters::spirv::emit(p).text,
        }
    }

    /// One guarded atomic per part on the one word, the shared word stored after a barrier.
    #[test]
    fn each_language_spells_one_guarded_atomic_per_part() {
        let glsl = text(&program(Lang::Glsl, Space::Shared));
        for want in [
            "shared uint s0;",
            "if (lid == 0u) s0 = 240u;",
            "if (lid % 2u == 0u) {\n            atomicAnd(s0, 4294967279u);",
            "if (lid % 2u == 1u) {\n            atomicOr(s0, 1u);",
            "barrier();\n    if (lid == 0u) b0[wg] = s0;",
        ] {
            assert!(glsl.contains(want), "{want}\n{glsl}");
        }
        let nv = text(&program(Lang::Nvasm, Space::Storage));
        for want in [
            "MOD.U e0.x, invocation.globalid.x, 2;\nSEQ.U.CC e0.y, e0.x, 0;\nIF NE.y;\n  \
             ATOMB.AND.U32 r0.x, 4294967279, b0[0];\nENDIF;",
            "SEQ.U.CC e0.w, e0.z, 1;\nIF NE.w;\n  ATOMB.OR.U32 r0.x, 1, b0[0];\nENDIF;",
        ] {
            assert!(nv.contains(want), "{want}\n{nv}");
        }
        let spv = text(&program(Lang::Spirv, Space::Storage));
        for want in [
            "%t1 = OpAccessChain %ptr_u_uint %b0 %cu0 %cu0",
            "%t2 = OpUMod %uint %gid %cu2",
            "OpAtomicAnd %uint %t1 %cu1 %cu0 %cu4294967279",
            "OpAtomicOr %uint %t1 %cu1 %cu0 %cu1",
        ] {
            assert!(spv.contains(want), "{want}\n{spv}");
        }
    }

    /// The three languages and both spaces agree with the model on the reference: AND clears
    /// 0x10 and OR sets 0x1 in 0xF0, 0xE1 in every word.
    #[test]
    fn the_reference_agrees_with_the_model() {
        let mut target = crate::Target::reference();
        for lang in Lang::ALL {
            for space in [Space::Storage, Space::Shared] {
                let p = program(lang, space);
                let Block::AtomicMix(m) = &p.blocks[0] else {
                    unreachable!()
                };
                let want = if space == Space::Storage { 1 } else { 2 };
                assert_eq!(finals(m, &p), vec![0xE1; want]);
                let (case, t) = crate::load_case(&p, "mix", "test").unwrap();
                let d = crate::observe(&p, &case, &mut target).unwrap();
                assert!(d.is_empty(), "{d:#?}\n{}", t.yaml);
            }
        }
    }
}
