//! Subgroup operations ([`SubgroupOp`]): what each active invocation of a subgroup gets when
//! they execute one together, as a pure function of their ids and operands, so that it can be
//! checked against direct formulas.
//!
//! Readings (docs/REFERENCE.md): reductions and scans combine the values in id order
//! (KHR_shader_subgroup leaves the order to the implementation, for scans too: "in an
//! implementation-defined order"; integer results do not depend on it, float sums and
//! products may, by rounding); `AllEqual` compares with the type's `==` (so -0.0 equals +0.0 and NaN
//! equals nothing); a shuffle or broadcast whose source invocation is inactive or outside the
//! subgroup returns the invocation's own value (undefined in the specs, reported).

use super::values::{self, bits_f32, bits_f64, sext};
use crate::ir::{BinOp, CmpOp, Kind, MaskKind, ScalarTy, SubgroupOp, Ty, UnOp};

/// One active invocation of a subgroup: its id in the subgroup and its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    pub id: u32,
    pub a: [u64; 4],
    pub b: [u64; 4],
}

/// What one invocation gets: the result, the source id when it read from an invocation that
/// is inactive or outside the subgroup (an undefined value; its own value is returned), and
/// the one member whose `a` it read, for the operations that read one (shuffles, broadcasts):
/// the others read every member's `a` (reductions, votes, ballots) or a prefix (scans).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub value: [u64; 4],
    pub bad_source: Option<i64>,
    pub source: Option<u32>,
    /// The lanes (bits) whose result the specification leaves undefined: a float min or max
    /// over values that are all NaN (GL_KHR_shader_subgroup section 8.18), and a float sum or
    /// product whose value depends on the order of the operations, which KHR_shader_subgroup
    /// leaves to the implementation (id order and a pairwise order give different results).
    pub undefined: u8,
}

/// The results for `members` (sorted by id, all active in a subgroup of `size` invocations)
/// executing `op` on operands of type `ty`, in the same order.
pub fn results(op: SubgroupOp, ty: Ty, size: u32, members: &[Member]) -> Vec<Outcome> {
    results_with(None, op, ty, size, members)
}

/// [`results`] with `bug` planted (`exec::planted`: a shuffle's source, where scans start).
pub fn results_with(
    bug: Option<crate::PlantedBug>,
    op: SubgroupOp,
    ty: Ty,
    size: u32,
    members: &[Member],
) -> Vec<Outcome> {
    let lanes = usize::from(ty.lanes.clamp(1, 4));
    let t = ty.scalar;
    let ok = |value| Outcome {
        value,
        bad_source: None,
        source: None,
        undefined: 0,
    };
    // The lanes where a float sum or product is a NaN, made (inf + -inf, 0 * inf) or carried
    // from a NaN operand: undefined as every float result that is a NaN (ARB_gl_spirv
    // A.spv.5, GLSL 4.60 section 4.7.1: "NaNs are not required to be generated"; only GLSL
    // and SPIR-V have subgroup arithmetic).
    let nan_result = |bop: BinOp, value: &[u64; 4]| -> u8 {
        if !matches!(bop, BinOp::Add | BinOp::Mul) || t.kind != Kind::F {
            return 0;
        }
        (0..lanes)
            .filter(|&l| values::unop(UnOp::IsNan, t, value[l]) != 0)
            .fold(0, |m, l| m | (1 << l))
    };
    // The lanes where every value of `used` is a NaN, for a float min or max ("If all
    // <value>s that are used by the current invocation are NaN, then the result is
    // undefined"); an empty set (an exclusive scan's first invocation) gives the identity.
    let all_nan = |bop: BinOp, used: &[Member]| -> u8 {
        if !matches!(bop, BinOp::Min | BinOp::Max) || t.kind != Kind::F || used.is_empty() {
            return 0;
        }
        (0..lanes)
            .filter(|&l| {
                used.iter()
                    .all(|m| values::unop(UnOp::IsNan, t, m.a[l]) != 0)
            })
            .fold(0, |r, l| r | 1 << l)
    };
    // The lanes where a float sum or product of `used` in id order (`seq`) differs from the
    // same operation done pairwise (a tree): the order is the implementation's ("in an
    // implementation-defined order"), so such a result is one of several.
    let order_dependent = |bop: BinOp, used: &[Member], seq: &[u64; 4]| -> u8 {
        if !matches!(bop, BinOp::Add | BinOp::Mul) || t.kind != Kind::F || used.len() < 3 {
            return 0;
        }
        let mut bad = 0u8;
        for (l, &s) in seq.iter().enumerate().take(lanes) {
            let xs: Vec<u64> = used.iter().map(|m| m.a[l]).collect();
            let tree = pairwise(bop, t, &xs);
            let same = tree == s
                || (values::unop(UnOp::IsNan, t, tree) != 0
                    && values::unop(UnOp::IsNan, t, s) != 0);
            if !same {
                bad |= 1 << l;
            }
        }
        bad
    };
    let splat = |b: bool| [u64::from(b), 0, 0, 0];
    let fold = |op: BinOp, acc: [u64; 4], x: &[u64; 4]| {
        let mut r = acc;
        for l in 0..lanes {
            r[l] = values::binop(op, t, acc[l], x[l]);
        }
        r
    };
    match op {
        SubgroupOp::Barrier => members.iter().map(|_| ok([0; 4])).collect(),
        SubgroupOp::Elect => (0..members.len()).map(|i| ok(splat(i == 0))).collect(),
        SubgroupOp::All | SubgroupOp::Any => {
            let all = members.iter().all(|m| m.a[0] != 0);
            let any = members.iter().any(|m| m.a[0] != 0);
            let v = if op == SubgroupOp::All { all } else { any };
            members.iter().map(|_| ok(splat(v))).collect()
        }
        SubgroupOp::AllEqual => {
            let first = members.first().map(|m| m.a).unwrap_or_default();
            let equal = members
                .iter()
                .all(|m| (0..lanes).all(|l| values::cmp(CmpOp::Eq, t, m.a[l], first[l])));
            members.iter().map(|_| ok(splat(equal))).collect()
        }
        SubgroupOp::Ballot => {
            let mut bits = [0u64; 4];
            for m in members.iter().filter(|m| m.a[0] != 0 && m.id < 128) {
                bits[(m.id / 32) as usize] |= 1 << (m.id % 32);
            }
            members.iter().map(|_| ok(bits)).collect()
        }
        SubgroupOp::Shuffle
        | SubgroupOp::ShuffleXor
        | SubgroupOp::ShuffleUp
        | SubgroupOp::ShuffleDown => members
            .iter()
            .map(|m| {
                let (id, k) = (i64::from(m.id), (m.b[0] & 0xffff_ffff) as i64);
                let src = super::planted::subgroup_source(
                    bug,
                    match op {
                        SubgroupOp::Shuffle => k,
                        SubgroupOp::ShuffleXor => id ^ k,
                        SubgroupOp::ShuffleUp => id - k,
                        _ => id + k,
                    },
                );
                let from = members
                    .iter()
                    .find(|o| i64::from(o.id) == src && src < i64::from(size));
                match from {
                    Some(o) => Outcome {
                        source: Some(o.id),
                        ..ok(o.a)
                    },
                    None => Outcome {
                        value: m.a,
                        bad_source: Some(src),
                        source: None,
                        undefined: 0,
                    },
                }
            })
            .collect(),
        SubgroupOp::BroadcastFirst => {
            let first = members.first().map(|m| m.a).unwrap_or_default();
            let source = members.first().map(|m| m.id);
            members
                .iter()
                .map(|_| Outcome {
                    source,
                    ..ok(first)
                })
                .collect()
        }
        SubgroupOp::Reduce(bop) => {
            let total = members.iter().skip(1).fold(
                members.first().map(|m| m.a).unwrap_or_default(),
                |acc, m| fold(bop, acc, &m.a),
            );
            let undefined = all_nan(bop, members)
                | order_dependent(bop, members, &total)
                | nan_result(bop, &total);
            members
                .iter()
                .map(|_| Outcome {
                    undefined,
                    ..ok(total)
                })
                .collect()
        }
        SubgroupOp::InclusiveScan(bop) | SubgroupOp::ExclusiveScan(bop) => {
            let mut acc = [super::planted::subgroup_scan_identity(bug, identity(bop, t)); 4];
            let mut out = Vec::with_capacity(members.len());
            let inclusive = matches!(op, SubgroupOp::InclusiveScan(_));
            for (k, m) in members.iter().enumerate() {
                let next = fold(bop, acc, &m.a);
                let used = if inclusive {
                    &members[..=k]
                } else {
                    &members[..k]
                };
                let value = if inclusive { next } else { acc };
                out.push(Outcome {
                    undefined: all_nan(bop, used)
                        | order_dependent(bop, used, &value)
                        | nan_result(bop, &value),
                    ..ok(value)
                });
                acc = next;
            }
            out
        }
    }
}

/// `op` over `xs` (at least one) pairwise: the halves first, then the two together.
fn pairwise(op: BinOp, t: ScalarTy, xs: &[u64]) -> u64 {
    match xs {
        [x] => *x,
        _ => {
            let (a, b) = xs.split_at(xs.len() / 2);
            values::binop(op, t, pairwise(op, t, a), pairwise(op, t, b))
        }
    }
}

/// A subgroup mask (`Builtin::SubgroupMask`) for invocation `id` of a subgroup of `size`: bit
/// b (of 128, x first) set when b compares with `id` as `kind` says and b < `size`.
pub fn mask(kind: MaskKind, id: u32, size: u32) -> [u64; 4] {
    let mut out = [0u64; 4];
    for b in 0..size.min(128) {
        let set = match kind {
            MaskKind::Eq => b == id,
            MaskKind::Ge => b >= id,
            MaskKind::Gt => b > id,
            MaskKind::Le => b <= id,
            MaskKind::Lt => b < id,
        };
        if set {
            out[(b / 32) as usize] |= 1 << (b % 32);
        }
    }
    out
}

/// The identity of a scan operation (KHR_shader_subgroup's table for exclusive scans): 0 for
/// add, or and xor, 1 for mul, all ones (true) for and, the largest value for min and the
/// smallest for max (±infinity for floats).
pub fn identity(op: BinOp, t: ScalarTy) -> u64 {
    let float = |f: f64| match t.bits {
        64 => bits_f64(f),
        16 => u64::from(values::f32_to_f16(f as f32)),
        _ => bits_f32(f as f32),
    };
    let m = t.mask();
    match (op, t.kind) {
        (BinOp::Mul, Kind::F) => float(1.0),
        (BinOp::Mul, _) => 1,
        (BinOp::And, Kind::B) => 1,
        (BinOp::And, _) => m,
        (BinOp::Min, Kind::F) => float(f64::INFINITY),
        (BinOp::Min, Kind::S) => m >> 1,
        (BinOp::Min, _) => m,
        (BinOp::Max, Kind::F) => float(f64::NEG_INFINITY),
        (BinOp::Max, Kind::S) => (sext(1 << (t.bits - 1), t.bits) as u64) & m,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    fn u32s(op: SubgroupOp, vals: &[(u32, u32, u32)]) -> Vec<(u32, Option<i64>)> {
        let members: Vec<Member> = vals
            .iter()
            .map(|&(id, a, b)| Member {
                id,
                a: [u64::from(a), 0, 0, 0],
                b: [u64::from(b), 0, 0, 0],
            })
            .collect();
        results(op, Ty::new(ScalarTy::U32, 1), 32, &members)
            .into_iter()
            .map(|o| (o.value[0] as u32, o.bad_source))
            .collect()
    }

    #[test]
    fn scans_and_reductions_in_id_order() {
        let m = [(1, 3, 0), (4, 5, 0), (7, 2, 0)];
        let v = |r: Vec<(u32, Option<i64>)>| r.into_iter().map(|x| x.0).collect::<Vec<_>>();
        assert_eq!(v(u32s(SubgroupOp::Reduce(BinOp::Add), &m)), [10, 10, 10]);
        assert_eq!(
            v(u32s(SubgroupOp::InclusiveScan(BinOp::Add), &m)),
            [3, 8, 10]
        );
        assert_eq!(
            v(u32s(SubgroupOp::ExclusiveScan(BinOp::Add), &m)),
            [0, 3, 8]
        );
        assert_eq!(
            v(u32s(SubgroupOp::ExclusiveScan(BinOp::Min), &m)),
            [u32::MAX, 3, 3]
        );
        assert_eq!(
            v(u32s(SubgroupOp::ExclusiveScan(BinOp::Mul), &m)),
            [1, 3, 15]
        );
        assert_eq!(v(u32s(SubgroupOp::Elect, &m)), [1, 0, 0]);
        assert_eq!(v(u32s(SubgroupOp::Ballot, &m)), [0x92, 0x92, 0x92]);
    }

    #[test]
    fn shuffles_from_inactive_or_outside_lanes_are_reported() {
        let m = [(0, 10, 1), (1, 11, 5), (2, 12, 40)];
        assert_eq!(
            u32s(SubgroupOp::Shuffle, &m),
            [(11, None), (11, Some(5)), (12, Some(40))]
        );
        assert_eq!(
            u32s(SubgroupOp::ShuffleUp, &m),
            [(10, Some(-1)), (11, Some(-4)), (12, Some(-38))]
        );
        assert_eq!(
            u32s(SubgroupOp::ShuffleXor, &[(0, 10, 1), (1, 11, 1)]),
            [(11, None), (10, None)]
        );
    }

    /// GL_KHR_shader_subgroup section 8.18: a float min or max takes the other value over a
    /// NaN, and is undefined only where every value the invocation uses is a NaN.
    #[test]
    fn float_min_max_over_only_nans_is_undefined() {
        let nan = u64::from(f32::NAN.to_bits());
        let one = u64::from(1f32.to_bits());
        let m = |id, a| Member {
            id,
            a: [a, 0, 0, 0],
            b: [0; 4],
        };
        let f32t = Ty::new(ScalarTy::F32, 1);
        let und = |op, ms: &[Member]| -> Vec<u8> {
            results(op, f32t, 32, ms)
                .iter()
                .map(|o| o.undefined)
                .collect()
        };
        let all_nan = [m(0, nan), m(1, nan)];
        let mixed = [m(0, nan), m(1, one), m(2, nan)];
        assert_eq!(und(SubgroupOp::Reduce(BinOp::Min), &all_nan), [1, 1]);
        assert_eq!(und(SubgroupOp::Reduce(BinOp::Max), &mixed), [0, 0, 0]);
        assert_eq!(
            results(SubgroupOp::Reduce(BinOp::Max), f32t, 32, &mixed)[0].value[0],
            one
        );
        assert_eq!(
            und(SubgroupOp::InclusiveScan(BinOp::Min), &mixed),
            [1, 0, 0]
        );
        // The first invocation's exclusive scan uses no value: the identity, defined.
        assert_eq!(
            und(SubgroupOp::ExclusiveScan(BinOp::Min), &mixed),
            [0, 1, 0]
        );
        // A sum of NaNs is undefined by the rule for every float result that is a NaN (not
        // by this one): `float_sums_and_products_that_are_nans_are_undefined`.
        assert_eq!(und(SubgroupOp::Reduce(BinOp::Add), &all_nan), [1, 1]);
    }

    /// One member's scalar operand, and an f32's bits.
    fn member(id: u32, a: u64) -> Member {
        Member {
            id,
            a: [a, 0, 0, 0],
            b: [0; 4],
        }
    }

    fn f(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    /// A float sum or product that is a NaN is undefined, as every float result that is one
    /// (ARB_gl_spirv A.spv.5, GLSL 4.60 section 4.7.1).
    #[test]
    fn float_sums_and_products_that_are_nans_are_undefined() {
        let m = member;
        let f32t = Ty::new(ScalarTy::F32, 1);
        let inf = [
            m(0, f(1.0)),
            m(1, f(f32::INFINITY)),
            m(2, f(f32::NEG_INFINITY)),
        ];
        let r = results(SubgroupOp::Reduce(BinOp::Add), f32t, 32, &inf);
        assert!(f32::from_bits(r[0].value[0] as u32).is_nan());
        assert_eq!(r[0].undefined, 1, "inf + -inf is a NaN made");
        let scan = results(SubgroupOp::InclusiveScan(BinOp::Add), f32t, 32, &inf);
        assert_eq!(
            scan.iter().map(|o| o.undefined).collect::<Vec<_>>(),
            [0, 0, 1],
            "1, inf, then NaN"
        );
        let zero_inf = [m(0, f(0.0)), m(1, f(f32::INFINITY))];
        let r = results(SubgroupOp::Reduce(BinOp::Mul), f32t, 32, &zero_inf);
        assert_eq!(r[0].undefined, 1, "0 * inf");
        let carried = [m(0, f(f32::NAN)), m(1, f(2.0))];
        let r = results(SubgroupOp::Reduce(BinOp::Add), f32t, 32, &carried);
        assert_eq!(r[0].undefined, 1, "a NaN carried");
        // Integers and defined float sums stay defined.
        let u32t = Ty::new(ScalarTy::U32, 1);
        let r = results(SubgroupOp::Reduce(BinOp::Add), u32t, 32, &carried);
        assert_eq!(r[0].undefined, 0);
    }

    /// KHR_shader_subgroup leaves the order of a reduction or scan to the implementation: a
    /// float sum whose id-order and pairwise results differ is undefined; one where they agree
    /// (or an integer sum) is not.
    #[test]
    fn order_dependent_float_sums_are_undefined() {
        let m = member;
        let f32t = Ty::new(ScalarTy::F32, 1);
        let big = [m(0, f(1e8)), m(1, f(3.0)), m(2, f(3.0)), m(3, f(3.0))];
        let r = results(SubgroupOp::Reduce(BinOp::Add), f32t, 32, &big);
        assert_eq!(r[0].value[0], f(1e8), "id order loses every 3");
        assert_eq!(r[0].undefined, 1, "pairwise gives 1e8 + 8");
        let small = [m(0, f(1.0)), m(1, f(2.0)), m(2, f(3.0)), m(3, f(4.0))];
        let r = results(SubgroupOp::Reduce(BinOp::Add), f32t, 32, &small);
        assert_eq!((r[0].value[0], r[0].undefined), (f(10.0), 0));
        let scan = results(SubgroupOp::InclusiveScan(BinOp::Add), f32t, 32, &big);
        assert_eq!(
            scan.iter().map(|o| o.undefined).collect::<Vec<_>>(),
            [0, 0, 1, 1],
            "1e8 + 3 + 3: id order 1e8, pairwise 1e8 + 8"
        );
    }

    #[test]
    fn masks_follow_the_table_within_the_subgroup() {
        assert_eq!(mask(MaskKind::Eq, 33, 64), [0, 2, 0, 0]);
        assert_eq!(mask(MaskKind::Ge, 30, 32), [0xC000_0000, 0, 0, 0]);
        assert_eq!(mask(MaskKind::Gt, 0, 8), [0xFE, 0, 0, 0]);
        assert_eq!(mask(MaskKind::Le, 1, 32), [0x3, 0, 0, 0]);
        assert_eq!(mask(MaskKind::Lt, 32, 64), [0xFFFF_FFFF, 0, 0, 0]);
    }

    #[test]
    fn scan_identities_follow_the_table() {
        assert_eq!(identity(BinOp::Min, ScalarTy::S32), 0x7fff_ffff);
        assert_eq!(identity(BinOp::Max, ScalarTy::S32), 0x8000_0000);
        assert_eq!(identity(BinOp::Max, ScalarTy::U32), 0);
        assert_eq!(
            identity(BinOp::Min, ScalarTy::F32),
            u64::from(f32::INFINITY.to_bits())
        );
        assert_eq!(
            identity(BinOp::Max, ScalarTy::F64),
            f64::NEG_INFINITY.to_bits()
        );
        assert_eq!(identity(BinOp::And, ScalarTy::U64), u64::MAX);
        assert_eq!(
            identity(BinOp::Mul, ScalarTy::F32),
            u64::from(1f32.to_bits())
        );
    }

    quickcheck! {
        fn exclusive_scan_is_inclusive_shifted(vals: Vec<u16>) -> bool {
            let m: Vec<(u32, u32, u32)> = vals.iter().take(32).enumerate().map(|(i, &v)| (i as u32, u32::from(v), 0)).collect();
            let inc = u32s(SubgroupOp::InclusiveScan(BinOp::Add), &m);
            let exc = u32s(SubgroupOp::ExclusiveScan(BinOp::Add), &m);
            m.iter().enumerate().all(|(i, &(_, v, _))| inc[i].0 == exc[i].0.wrapping_add(v))
        }
    }
}
