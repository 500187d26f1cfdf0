//! Collected flags: one [`conform_plan::Flag`] per kind, with some occurrences spelled out.
//!
//! Groups may run in parallel, so occurrences arrive in no fixed order; to keep the outcome
//! deterministic, each kind keeps the lexicographically smallest [`SHOWN`] distinct messages
//! (and counts all occurrences).

use conform_plan::{Flag, FlagKind};
use std::collections::{BTreeMap, BTreeSet};

/// How many occurrences of one kind are spelled out in its message.
pub const SHOWN: usize = 8;

#[derive(Default, Debug, Clone)]
pub struct FlagSet {
    kinds: BTreeMap<FlagKind, (BTreeSet<String>, u64)>,
    /// How many of the occurrences were uses of a variable read before it was written
    /// (`UndefinedRule::UninitializedValue`): `crate::run_ir` checks whether the results
    /// depend on those values.
    pub uninit_uses: u64,
}

fn keep(set: &mut BTreeSet<String>, message: String) {
    if set.len() < SHOWN {
        set.insert(message);
    } else if set.last().is_some_and(|last| message < *last) && set.insert(message) {
        set.pop_last();
    }
}

impl FlagSet {
    pub fn add(&mut self, kind: FlagKind, message: String) {
        let e = self.kinds.entry(kind).or_default();
        keep(&mut e.0, message);
        e.1 += 1;
    }

    pub fn merge(&mut self, other: FlagSet) {
        self.uninit_uses += other.uninit_uses;
        for (k, (msgs, n)) in other.kinds {
            let e = self.kinds.entry(k).or_default();
            for m in msgs {
                keep(&mut e.0, m);
            }
            e.1 += n;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    pub fn has(&self, kind: FlagKind) -> bool {
        self.kinds.contains_key(&kind)
    }

    pub fn into_flags(self) -> Vec<Flag> {
        self.kinds
            .into_iter()
            .map(|(kind, (msgs, n))| {
                let shown = msgs.len() as u64;
                let mut message = msgs.into_iter().collect::<Vec<_>>().join("; ");
                if n > shown {
                    message.push_str(&format!(" ({n} occurrences in all)"));
                }
                Flag { kind, message }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_of_arrival_does_not_matter() {
        let msgs: Vec<String> = (0..20).map(|i| format!("m{i:02}")).collect();
        let mut a = FlagSet::default();
        let mut b = FlagSet::default();
        for m in &msgs {
            a.add(FlagKind::OutOfBounds, m.clone());
        }
        let mut half = FlagSet::default();
        for m in msgs.iter().rev() {
            if m.as_str() < "m10" {
                half.add(FlagKind::OutOfBounds, m.clone());
            } else {
                b.add(FlagKind::OutOfBounds, m.clone());
            }
        }
        b.merge(half);
        assert_eq!(a.clone().into_flags(), b.into_flags());
        let f = a.into_flags();
        assert_eq!(
            f[0].message,
            "m00; m01; m02; m03; m04; m05; m06; m07 (20 occurrences in all)"
        );
    }
}
