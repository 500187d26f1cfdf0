//! The outcome sets of a litmus test, derived by enumerating its candidate executions.
//!
//! A candidate execution picks, for every load, the store it reads from (or the initial 0),
//! and for every location an order of its stores (coherence order, `co`); from-read (`fr`)
//! relates a load to the stores after the one it read. Its outcome is the loaded values, then
//! each location's last store in `co` (0 if none). Which candidates are allowed:
//!
//! - **sequentially consistent** (`sc`): acyclic(po ∪ rf ∪ co ∪ fr). Only used to call an
//!   outcome *weak* in the histograms; no spec promises SC.
//! - **allowed**: acyclic(ord ∪ rf ∪ co ∪ fr), where `ord` is what the test's fence orders:
//!   nothing without a fence that orders at the test's scope (`Fence::orders`): then every
//!   candidate is allowed: reads and writes "complete in a largely undefined order"
//!   (ARB_shader_image_load_store, coherent qualifier), even two reads of one location.
//!   With an ordering fence, every access before it precedes every access after it in the
//!   same thread (the memory barrier functions "wait for the completion of all reads and
//!   writes previously performed by the caller", and stores before it "will be visible to any
//!   future coherent access ... by any other shader invocation": ARB_compute_shader's memory
//!   control functions; MEMBAR: "memory transactions ... prior to the MEMBAR instruction
//!   complete prior to any memory transactions issued after", NV_compute_program5). A control
//!   barrier that also orders memory (`barrier()`, `MEMBAR.CTA; BAR`, `OpControlBarrier` with
//!   WorkgroupMemory) adds: every access before it, in any thread of the group, precedes
//!   every access after it in any thread.
//!
//! Reading "visible to any future coherent access by any other invocation" as one point where
//! a store becomes visible to all is what forbids IRIW's weak outcome with fences (multi-copy
//! atomicity); docs/FUZZING.md discusses it.

use super::shape::{Op, Shape, Test};
use std::collections::BTreeSet;

/// One outcome: registers, then final location values.
pub type Outcome = Vec<u32>;

/// The outcome sets of one test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcomes {
    /// What the specs allow.
    pub allowed: BTreeSet<Outcome>,
    /// What a sequentially consistent execution gives (a subset of `allowed`).
    pub sc: BTreeSet<Outcome>,
    /// Every outcome some candidate execution gives (the values each load could read).
    pub candidates: BTreeSet<Outcome>,
}

/// An event: (thread, index in the thread).
type Event = (usize, usize);

/// Derives the outcome sets of `test`.
pub fn outcomes(test: &Test) -> Outcomes {
    let fence_orders = test.fence.orders(test.scope);
    let barrier_orders = fence_orders && test.fence.effect().control;
    // The fence stands after each thread's first access: it orders a thread's first access
    // before its second, and a control barrier every thread's first before every second.
    derive(test.shape, |a, b| {
        a.1 == 0 && b.1 == 1 && ((fence_orders && a.0 == b.0) || barrier_orders)
    })
}

/// Enumerates the candidate executions of `shape`; `ordered(a, b)` says that the test's
/// fences order event `a` before `b`.
fn derive(shape: Shape, ordered: impl Fn(Event, Event) -> bool) -> Outcomes {
    let threads = shape.threads();
    let events: Vec<(Event, Op)> = threads
        .iter()
        .enumerate()
        .flat_map(|(t, ops)| ops.iter().enumerate().map(move |(i, op)| ((t, i), *op)))
        .collect();
    let loads: Vec<usize> = (0..events.len())
        .filter(|&k| matches!(events[k].1, Op::Load(_)))
        .collect();
    let stores_to = |loc| -> Vec<usize> {
        (0..events.len())
            .filter(|&k| matches!(events[k].1, Op::Store(l, _) if l == loc))
            .collect()
    };
    let locs = shape.locations();
    // Choices: for each load, the index into its location's stores (len = the initial 0);
    // for each location, a permutation of its stores.
    let load_choices: Vec<Vec<Option<usize>>> = loads
        .iter()
        .map(|&k| {
            let Op::Load(loc) = events[k].1 else {
                unreachable!()
            };
            std::iter::once(None)
                .chain(stores_to(loc).into_iter().map(Some))
                .collect()
        })
        .collect();
    let co_choices: Vec<Vec<Vec<usize>>> = (0..locs).map(|l| permutations(&stores_to(l))).collect();
    let mut out = Outcomes {
        allowed: BTreeSet::new(),
        sc: BTreeSet::new(),
        candidates: BTreeSet::new(),
    };
    for rf in product(&load_choices) {
        for co in product(&co_choices) {
            let com = communication(&events, &loads, &rf, &co);
            let mut outcome: Outcome = rf
                .iter()
                .map(|src| src.map_or(0, |k| value(events[k].1)))
                .collect();
            outcome.extend(
                co.iter()
                    .map(|order| order.last().map_or(0, |&k| value(events[k].1))),
            );
            let n = events.len();
            let edges_with = |extra: &dyn Fn(usize, usize) -> bool| -> Vec<(usize, usize)> {
                let mut e = com.clone();
                for a in 0..n {
                    for b in 0..n {
                        if a != b && extra(a, b) {
                            e.push((a, b));
                        }
                    }
                }
                e
            };
            let po = |a: usize, b: usize| {
                events[a].0 .0 == events[b].0 .0 && events[a].0 .1 < events[b].0 .1
            };
            if acyclic(n, &edges_with(&|a, b| ordered(events[a].0, events[b].0))) {
                out.allowed.insert(outcome.clone());
            }
            if acyclic(n, &edges_with(&po)) {
                out.sc.insert(outcome.clone());
            }
            out.candidates.insert(outcome);
        }
    }
    out
}

fn value(op: Op) -> u32 {
    match op {
        Op::Store(_, v) => v,
        Op::Load(_) => 0,
    }
}

/// rf, co and fr edges of one candidate (indices into `events`).
fn communication(
    events: &[(Event, Op)],
    loads: &[usize],
    rf: &[Option<usize>],
    co: &[Vec<usize>],
) -> Vec<(usize, usize)> {
    let mut edges = Vec::new();
    for order in co {
        for w in order.windows(2) {
            edges.push((w[0], w[1]));
        }
    }
    for (&r, src) in loads.iter().zip(rf) {
        let Op::Load(loc) = events[r].1 else {
            continue;
        };
        let order = &co[loc];
        // The stores after the one read (all of them when the load read the initial value).
        let after = match src {
            Some(w) => {
                edges.push((*w, r));
                let at = order.iter().position(|x| x == w).unwrap_or(order.len());
                &order[at + 1..]
            }
            None => &order[..],
        };
        edges.extend(after.iter().map(|&w| (r, w)));
    }
    edges
}

fn acyclic(n: usize, edges: &[(usize, usize)]) -> bool {
    // Transitive closure (Floyd–Warshall on a handful of events).
    let mut reach = vec![vec![false; n]; n];
    for &(a, b) in edges {
        reach[a][b] = true;
    }
    for k in 0..n {
        let via = reach[k].clone();
        for row in reach.iter_mut() {
            if row[k] {
                for (to, &r) in row.iter_mut().zip(&via) {
                    *to |= r;
                }
            }
        }
    }
    (0..n).all(|i| !reach[i][i])
}

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

/// Every combination taking one element of each list.
fn product<T: Clone>(lists: &[Vec<T>]) -> Vec<Vec<T>> {
    lists.iter().fold(vec![vec![]], |acc, list| {
        acc.iter()
            .flat_map(|prefix| {
                list.iter().map(move |x| {
                    let mut p = prefix.clone();
                    p.push(x.clone());
                    p
                })
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::shape::{Fence, Lang, Scope};

    fn test(shape: Shape, scope: Scope, fence: Fence) -> Outcomes {
        let lang = fence.lang().unwrap_or(Lang::Glsl);
        outcomes(&Test {
            shape,
            scope,
            fence,
            lang,
        })
    }

    fn weak(o: &Outcomes) -> Vec<Outcome> {
        o.candidates.difference(&o.sc).cloned().collect()
    }

    fn forbidden(o: &Outcomes) -> Vec<Outcome> {
        o.candidates.difference(&o.allowed).cloned().collect()
    }

    /// The weak outcome of each shape (registers, then final x and y), by hand from the
    /// classic litmus tests: exactly the candidates SC excludes.
    #[test]
    fn sc_excludes_exactly_the_classic_weak_outcomes() {
        let want: [(Shape, Vec<Outcome>); 7] = [
            (Shape::Mp, vec![vec![1, 0, 1, 1]]),
            (Shape::Sb, vec![vec![0, 0, 1, 1]]),
            (Shape::Lb, vec![vec![1, 1, 1, 1]]),
            (Shape::S, vec![vec![1, 2, 1]]),
            (Shape::TwoPlusTwoW, vec![vec![2, 2]]),
            (Shape::Corr, vec![vec![1, 0, 1]]),
            (Shape::Iriw, vec![vec![1, 0, 1, 0, 1, 1]]),
        ];
        for (shape, weak_outcomes) in want {
            let o = test(shape, Scope::Workgroup, Fence::None);
            assert_eq!(weak(&o), weak_outcomes, "{shape:?}");
            assert!(o.sc.is_subset(&o.allowed));
        }
    }

    #[test]
    fn without_an_ordering_fence_nothing_is_forbidden() {
        for shape in Shape::ALL {
            for (scope, fence) in [
                (Scope::Workgroup, Fence::None),
                (Scope::Workgroup, Fence::Bar),
                (Scope::Workgroup, Fence::OpControlBarrierNoSemantics),
                (Scope::Device, Fence::MembarCta),
                (Scope::Device, Fence::GroupMemoryBarrier),
            ] {
                let o = test(shape, scope, fence);
                assert_eq!(o.allowed, o.candidates, "{shape:?} {fence:?}");
            }
        }
    }

    #[test]
    fn ordering_fences_forbid_exactly_the_weak_outcomes() {
        for shape in Shape::ALL {
            for (scope, fence) in [
                (Scope::Device, Fence::Membar),
                (Scope::Device, Fence::MemoryBarrier),
                (Scope::Device, Fence::OpMemoryBarrierDevice),
                (Scope::Workgroup, Fence::MembarCta),
                (Scope::Workgroup, Fence::MemoryBarrierShared),
                (Scope::Workgroup, Fence::OpMemoryBarrierWorkgroup),
            ] {
                let o = test(shape, scope, fence);
                assert_eq!(o.allowed, o.sc, "{shape:?} {fence:?}");
            }
        }
    }

    /// With barrier() between the accesses, everything before it precedes everything after:
    /// one outcome is left. MP: the load of y (before) cannot see the store of y (after),
    /// the load of x (after) must see the store of x (before).
    #[test]
    fn a_memory_ordering_control_barrier_leaves_one_outcome() {
        let o = test(Shape::Mp, Scope::Workgroup, Fence::Barrier);
        assert_eq!(o.allowed.iter().collect::<Vec<_>>(), [&vec![0, 1, 1, 1]]);
        let o = test(Shape::Sb, Scope::Workgroup, Fence::MembarCtaBar);
        assert_eq!(o.allowed.iter().collect::<Vec<_>>(), [&vec![1, 1, 1, 1]]);
        // 2+2W: both second stores come after both first ones: x ends 1, y ends 1.
        let o = test(
            Shape::TwoPlusTwoW,
            Scope::Workgroup,
            Fence::OpControlBarrier,
        );
        assert_eq!(o.allowed.iter().collect::<Vec<_>>(), [&vec![1, 1]]);
        assert_eq!(forbidden(&o).len(), 3);
    }
}
