//! Collected flags: one [`conform_plan::Flag`] per kind, with the first occurrences spelled out.

use conform_plan::Flag;
use std::collections::BTreeMap;

/// How many occurrences of one kind are spelled out in its message.
const SHOWN: usize = 8;

#[derive(Default, Debug, Clone)]
pub struct FlagSet {
    kinds: BTreeMap<String, (Vec<String>, u64)>,
}

impl FlagSet {
    pub fn add(&mut self, kind: &str, message: String) {
        let e = self.kinds.entry(kind.to_string()).or_default();
        if e.0.len() < SHOWN && !e.0.contains(&message) {
            e.0.push(message);
        }
        e.1 += 1;
    }

    pub fn merge(&mut self, other: FlagSet) {
        for (k, (msgs, n)) in other.kinds {
            let e = self.kinds.entry(k).or_default();
            for m in msgs {
                if e.0.len() < SHOWN && !e.0.contains(&m) {
                    e.0.push(m);
                }
            }
            e.1 += n;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    pub fn has(&self, kind: &str) -> bool {
        self.kinds.contains_key(kind)
    }

    pub fn into_flags(self) -> Vec<Flag> {
        self.kinds
            .into_iter()
            .map(|(kind, (msgs, n))| {
                let mut message = msgs.join("; ");
                if n > msgs.len() as u64 {
                    message.push_str(&format!(" ({n} occurrences in all)"));
                }
                Flag { kind, message }
            })
            .collect()
    }
}
