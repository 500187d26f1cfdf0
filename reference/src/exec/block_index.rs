//! Whether arrays of blocks are indexed by dynamically uniform expressions.
//!
//! "A uniform or shader storage block array can only be indexed with a dynamically uniform
//! integral expression, otherwise results are undefined" (ARB_shader_storage_buffer_object,
//! GLSL 4.60 §4.3.9). An expression is dynamically uniform when every invocation of the
//! invocation group (for compute shaders, the work group: GLSL 4.60 §3.8.2) that evaluates it
//! gets the same value — per dynamic instance: the n-th time each invocation reaches that
//! access is the same instance, so an index that changes with a loop counter every invocation
//! shares stays uniform. The executor checks the element index of every
//! [`Space::BlockArray`](crate::ir::Space::BlockArray) access this way.

use std::collections::HashMap;

/// Per work group: the element index the first invocation to reach each dynamic instance of
/// a block-array access used, and how often each invocation reached each access.
#[derive(Default)]
pub struct BlockIndexUniformity {
    first: HashMap<(u32, u32), (u32, usize)>,
    reached: Vec<HashMap<u32, u32>>,
}

impl BlockIndexUniformity {
    /// Forgets everything, for a work group of `n` invocations.
    pub fn reset(&mut self, n: usize) {
        self.first.clear();
        self.reached.iter_mut().for_each(HashMap::clear);
        self.reached.resize_with(n, HashMap::new);
    }

    /// Invocation `inv` accesses element `element` at `pc`: the element and invocation of an
    /// earlier access to the same dynamic instance with another element, if any.
    pub fn check(&mut self, inv: usize, pc: u32, element: u32) -> Option<(u32, usize)> {
        let reached = self.reached.get_mut(inv)?;
        let n = reached.entry(pc).or_insert(0);
        let instance = *n;
        *n = n.saturating_add(1);
        let (e, who) = *self.first.entry((pc, instance)).or_insert((element, inv));
        (e != element).then_some((e, who))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_element_per_instance_is_uniform() {
        let mut u = BlockIndexUniformity::default();
        u.reset(2);
        // A loop: both invocations take elements 0, 1, 2 in turn, interleaved in any order.
        for e in 0..3 {
            assert_eq!(u.check(0, 7, e), None);
        }
        for e in 0..2 {
            assert_eq!(u.check(1, 7, e), None);
        }
        // A different element at the same instance is not uniform.
        assert_eq!(u.check(1, 7, 5), Some((2, 0)));
        // Another access (pc) is checked on its own; reset forgets.
        assert_eq!(u.check(1, 9, 4), None);
        u.reset(2);
        assert_eq!(u.check(1, 7, 5), None);
        assert_eq!(u.check(0, 7, 6), Some((5, 1)));
    }

    #[test]
    fn unknown_invocations_are_ignored() {
        let mut u = BlockIndexUniformity::default();
        u.reset(1);
        assert_eq!(u.check(3, 0, 1), None);
    }
}
