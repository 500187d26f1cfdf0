//! glGetProgramiv(ACTIVE_UNIFORMS) as the GLSL and SPIR-V front ends count it (GL 4.6 §7.3.1):
//! the uniforms of the default block and the atomic counters, each as many entries as GL
//! enumerates them (§7.3.1.1), and the members of uniform blocks.
//!
//! A uniform is active when "it is determined by the compiler and linker that the uniform will
//! actually be accessed"; one they cannot decide about is active. An implementation may drop a
//! uniform only where it determines that no code it runs accesses it, so the reference answers
//! only when every declared uniform is referenced by the functions the program calls (the
//! entry point and its callees), and not when the program has uniform blocks (whose members it
//! does not enumerate). Left open: a uniform referenced only in statically dead code (under
//! `if (false)`) is counted, though a driver may drop it.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

/// The uniforms a program declares (keyed by the front end's name for them) and those the
/// code it lowered references.
#[derive(Debug)]
pub struct ActiveUniforms<K> {
    /// Each declared uniform variable and how many entries GL enumerates for it.
    declared: HashMap<K, u32>,
    referenced: HashSet<K>,
    /// The program declares a uniform block.
    pub uniform_block: bool,
}

impl<K> Default for ActiveUniforms<K> {
    fn default() -> Self {
        ActiveUniforms {
            declared: HashMap::new(),
            referenced: HashSet::new(),
            uniform_block: false,
        }
    }
}

impl<K: Eq + Hash + Clone> ActiveUniforms<K> {
    /// Records a uniform variable GL enumerates as `entries` uniforms.
    pub fn declare(&mut self, key: K, entries: u32) {
        self.declared.insert(key, entries);
    }

    /// Records that lowered code references `key` (ignored unless it is a declared uniform).
    pub fn reference(&mut self, key: &K) {
        if self.declared.contains_key(key) {
            self.referenced.insert(key.clone());
        }
    }

    /// ACTIVE_UNIFORMS, where the reference can tell (see the module docs).
    pub fn count(&self) -> Option<u32> {
        let all = self.declared.keys().all(|k| self.referenced.contains(k));
        (all && !self.uniform_block).then(|| {
            self.declared
                .values()
                .fold(0u32, |a, &n| a.saturating_add(n))
        })
    }
}

/// The entries GL enumerates for an atomic counter array of dimensions `dims` (outer first):
/// one for a counter or an array of counters, one per inner-most array of an array of arrays.
pub fn counter_entries(dims: &[u64]) -> u32 {
    let outer = &dims[..dims.len().saturating_sub(1)];
    outer.iter().fold(1u32, |a, &n| {
        a.saturating_mul(u32::try_from(n).unwrap_or(u32::MAX))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_when_every_uniform_is_referenced() {
        let mut a = ActiveUniforms::default();
        a.declare("u", 1);
        a.declare("s", 3);
        a.reference(&"u");
        assert_eq!(a.count(), None);
        a.reference(&"s");
        a.reference(&"not a uniform");
        assert_eq!(a.count(), Some(4));
        a.uniform_block = true;
        assert_eq!(a.count(), None);
    }

    #[test]
    fn no_uniforms_count_zero() {
        assert_eq!(ActiveUniforms::<u32>::default().count(), Some(0));
    }

    #[test]
    fn counter_arrays_enumerate_inner_most_arrays() {
        assert_eq!(counter_entries(&[]), 1);
        assert_eq!(counter_entries(&[4]), 1);
        assert_eq!(counter_entries(&[2, 3]), 2);
        assert_eq!(counter_entries(&[2, 3, 5]), 6);
    }
}
