//! Compute-shader derivatives (NV_compute_shader_derivatives, [`Inst::Derivative`]): which
//! group of four an invocation belongs to, and what each member of a group gets, as pure
//! functions of the members' values so that they can be checked against the spec's formulas.
//!
//! The GLSL extension's §8.13.1: "Invocations in each group of four compute shader
//! invocations are assigned (x,y) coordinates of (m,n) ... fine derivatives with respect to
//! <x> for an invocation at (m,n) are evaluated as F(1,n) - F(0,n) while fine derivatives with
//! respect to <y> are evaluated as F(m,1) - F(m,0). As in fragment shaders, coarse derivatives
//! in compute shaders may evaluate a single value for each group of four invocations."
//! GLSL 4.60 §8.14.1 lets a coarse derivative use either row (column) and `dFdx`/`dFdy` be the
//! fine or the coarse one, so the reference gives row (column) 0 for coarse, the fine value for
//! `Either`, and marks a lane undefined where the two rows (columns) differ: a case whose
//! result depends on that choice is flagged where it uses the value. A group whose members do
//! not all execute the derivative together (non-uniform control flow: "undefined results for
//! fragment shaders", the extension's issue 4, NVIDIA's hardware giving zero) gets 0 in every
//! lane, marked undefined.
//!
//! [`Inst::Derivative`]: crate::ir::Inst::Derivative

use super::values;
use crate::ir::{BinOp, DerivAxis, DerivGroup, DerivKind, ScalarTy};

/// The group of four (a key unique within the work group) and the invocation's place in it,
/// `m + 2n`, for the invocation at local id `local_id` and local index `local_index`.
pub fn position(group: DerivGroup, local_id: [u32; 3], local_index: u32) -> (u64, usize) {
    match group {
        DerivGroup::Quads => {
            let [x, y, z] = local_id;
            let key = (u64::from(z) << 40) | (u64::from(y / 2) << 20) | u64::from(x / 2);
            (key, ((x & 1) + 2 * (y & 1)) as usize)
        }
        DerivGroup::Linear => (u64::from(local_index / 4), (local_index % 4) as usize),
    }
}

/// What one member gets: the value, and a bit per lane whose value the spec leaves open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DerivOut {
    pub value: [u64; 4],
    pub undefined: u8,
}

/// The results of the derivative for the four places (m + 2n) of a group whose members'
/// operands are `f` (None: that member did not execute it with the others), for the places
/// that executed it.
pub fn results(
    axis: DerivAxis,
    kind: DerivKind,
    lanes: u8,
    f: &[Option<[u64; 4]>; 4],
) -> [Option<DerivOut>; 4] {
    let lanes = usize::from(lanes.clamp(1, 4));
    let all_lanes = ((1u16 << lanes) - 1) as u8;
    let mut out = [None; 4];
    let Some(v) = f.iter().copied().collect::<Option<Vec<[u64; 4]>>>() else {
        for (o, fi) in out.iter_mut().zip(f) {
            if fi.is_some() {
                *o = Some(DerivOut {
                    value: [0; 4],
                    undefined: all_lanes,
                });
            }
        }
        return out;
    };
    // The difference along the axis in row (x) or column (y) k.
    let diff = |k: usize, l: usize| {
        let (hi, lo) = match axis {
            DerivAxis::X => (1 + 2 * k, 2 * k),
            DerivAxis::Y => (2 + k, k),
        };
        values::binop(BinOp::Sub, ScalarTy::F32, v[hi][l], v[lo][l]) & 0xffff_ffff
    };
    for (p, o) in out.iter_mut().enumerate() {
        let (m, n) = (p & 1, p >> 1);
        let own = match axis {
            DerivAxis::X => n,
            DerivAxis::Y => m,
        };
        let mut r = DerivOut {
            value: [0; 4],
            undefined: 0,
        };
        for l in 0..lanes {
            let (d0, d1) = (diff(0, l), diff(1, l));
            r.value[l] = match kind {
                DerivKind::Fine => diff(own, l),
                DerivKind::Coarse => d0,
                DerivKind::Either => diff(own, l),
            };
            if kind != DerivKind::Fine && !same(d0, d1) {
                r.undefined |= 1 << l;
            }
        }
        *o = Some(r);
    }
    out
}

/// Whether two f32 results are the same value bit for bit (any two NaNs count as the same).
fn same(a: u64, b: u64) -> bool {
    let nan = |x: u64| f32::from_bits(x as u32).is_nan();
    a == b || (nan(a) && nan(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u64 {
        u64::from(x.to_bits())
    }
    fn quad(v: [f32; 4]) -> [Option<[u64; 4]>; 4] {
        v.map(|x| Some([f(x), 0, 0, 0]))
    }
    fn x_of(r: [Option<DerivOut>; 4]) -> Vec<(f32, u8)> {
        r.iter()
            .map(|r| {
                let r = r.unwrap();
                (f32::from_bits(r.value[0] as u32), r.undefined)
            })
            .collect()
    }

    #[test]
    fn places_follow_the_spec() {
        // quads: (2x+m, 2y+n, z); linear: 4x+2n+m.
        assert_eq!(position(DerivGroup::Quads, [5, 2, 0], 0).1, 1);
        assert_eq!(position(DerivGroup::Quads, [4, 3, 0], 0).1, 2);
        assert_eq!(
            position(DerivGroup::Quads, [4, 2, 1], 0).0,
            position(DerivGroup::Quads, [5, 3, 1], 0).0
        );
        assert_ne!(
            position(DerivGroup::Quads, [4, 2, 0], 0).0,
            position(DerivGroup::Quads, [4, 2, 1], 0).0
        );
        assert_eq!(position(DerivGroup::Linear, [0; 3], 6), (1, 2));
        assert_eq!(position(DerivGroup::Linear, [0; 3], 7), (1, 3));
    }

    #[test]
    fn fine_derivatives_difference_the_own_row_and_column() {
        // F(0,0)=1, F(1,0)=3, F(0,1)=10, F(1,1)=17.
        let q = quad([1.0, 3.0, 10.0, 17.0]);
        let dx = x_of(results(DerivAxis::X, DerivKind::Fine, 1, &q));
        assert_eq!(dx, vec![(2.0, 0), (2.0, 0), (7.0, 0), (7.0, 0)]);
        let dy = x_of(results(DerivAxis::Y, DerivKind::Fine, 1, &q));
        assert_eq!(dy, vec![(9.0, 0), (14.0, 0), (9.0, 0), (14.0, 0)]);
    }

    #[test]
    fn coarse_derivatives_are_defined_only_where_rows_agree() {
        let q = quad([1.0, 3.0, 10.0, 17.0]);
        let dx = x_of(results(DerivAxis::X, DerivKind::Coarse, 1, &q));
        assert_eq!(dx, vec![(2.0, 1); 4]);
        let dy = x_of(results(DerivAxis::Y, DerivKind::Either, 1, &q));
        assert_eq!(dy, vec![(9.0, 1), (14.0, 1), (9.0, 1), (14.0, 1)]);
        let plane = quad([1.0, 3.0, 10.0, 12.0]);
        let dx = x_of(results(DerivAxis::X, DerivKind::Coarse, 1, &plane));
        assert_eq!(dx, vec![(2.0, 0); 4]);
        let dy = x_of(results(DerivAxis::Y, DerivKind::Coarse, 1, &plane));
        assert_eq!(dy, vec![(9.0, 0); 4]);
    }

    #[test]
    fn a_group_with_a_member_missing_gets_undefined_zeros() {
        let mut q = quad([1.0, 3.0, 10.0, 17.0]);
        q[3] = None;
        let r = results(DerivAxis::X, DerivKind::Fine, 2, &q);
        assert!(r[3].is_none());
        for r in &r[..3] {
            assert_eq!(
                *r,
                Some(DerivOut {
                    value: [0; 4],
                    undefined: 0b11
                })
            );
        }
    }
}
