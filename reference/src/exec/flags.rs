//! Collected flags: one [`conform_plan::Flag`] per kind, each distinct occurrence spelled out
//! once.
//!
//! Occurrences that differ only by which invocation, group or byte they are in (`group [0,
//! 0, 0] invocation 3, line 12: a store ... (offset 12) ...`) are one fact about one place in
//! the program: they are shown once, with how many more there are like it, so a reader sees
//! each site once however many invocations hit it. Groups may run in parallel, so
//! occurrences arrive in no fixed order; to keep the outcome deterministic, each kind keeps
//! the [`SHOWN`] smallest distinct sites (and counts all occurrences), each with its smallest
//! message as the one shown.

use conform_plan::{Flag, FlagKind};
use std::collections::BTreeMap;

/// How many distinct sites of one kind are spelled out in its message.
pub const SHOWN: usize = 8;

/// One site: the message shown for it and how many occurrences it had.
#[derive(Debug, Clone)]
struct Site {
    shown: String,
    count: u64,
}

#[derive(Default, Debug, Clone)]
pub struct FlagSet {
    /// Per kind: sites by their key ([`site_key`]), and every occurrence counted.
    kinds: BTreeMap<FlagKind, (BTreeMap<String, Site>, u64)>,
    /// How many of the occurrences were uses of a variable read before it was written
    /// (`UndefinedRule::UninitializedValue`): `crate::run_ir` checks whether the results
    /// depend on those values.
    pub uninit_uses: u64,
}

/// What makes two occurrences one site: the message with the group, the invocation and the
/// byte offsets left out (the line and what happened stay).
fn site_key(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while !rest.is_empty() {
        let masked = ["group [", "invocation ", "offset "]
            .iter()
            .find(|p| rest.starts_with(*p));
        match masked {
            Some(&"group [") => {
                out.push_str("group [#]");
                rest = rest.find(']').map_or("", |i| &rest[i + 1..]);
            }
            Some(p) => {
                out.push_str(p);
                out.push('#');
                rest = rest[p.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
            }
            None => {
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// Adds `count` occurrences of a site whose smallest message is `message`, keeping the
/// [`SHOWN`] smallest sites: a site dropped for being larger never comes back larger than
/// the ones kept, so the kept sites and their counts are the same in any order of arrival.
fn keep(sites: &mut BTreeMap<String, Site>, key: String, message: String, count: u64) {
    let site = sites.entry(key).or_insert_with(|| Site {
        shown: message.clone(),
        count: 0,
    });
    if message < site.shown {
        site.shown = message;
    }
    site.count += count;
    if sites.len() > SHOWN {
        sites.pop_last();
    }
}

impl FlagSet {
    pub fn add(&mut self, kind: FlagKind, message: String) {
        let e = self.kinds.entry(kind).or_default();
        keep(&mut e.0, site_key(&message), message, 1);
        e.1 += 1;
    }

    pub fn merge(&mut self, other: FlagSet) {
        self.uninit_uses += other.uninit_uses;
        for (k, (sites, n)) in other.kinds {
            let e = self.kinds.entry(k).or_default();
            for (key, site) in sites {
                keep(&mut e.0, key, site.shown, site.count);
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
            .map(|(kind, (sites, n))| {
                let shown: u64 = sites.values().map(|s| s.count).sum();
                let mut message = sites
                    .into_values()
                    .map(|s| match s.count {
                        1 => s.shown,
                        c => format!("{} (and {} more like it)", s.shown, c - 1),
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
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

    /// Occurrences of one site in many invocations and bytes are shown once, with their
    /// count; another line of the program is another site.
    #[test]
    fn a_site_is_shown_once_however_many_invocations_hit_it() {
        let mut f = FlagSet::default();
        for i in 0..4 {
            f.add(
                FlagKind::UninitializedSharedRead,
                format!(
                    "group [0, 0, 0] invocation {i}, line 12: a store (offset {}) uses it",
                    4 * i
                ),
            );
        }
        f.add(
            FlagKind::UninitializedSharedRead,
            "group [1, 0, 0] invocation 0, line 14: a store (offset 0) uses it".into(),
        );
        let flags = f.into_flags();
        assert_eq!(
            flags[0].message,
            "group [0, 0, 0] invocation 0, line 12: a store (offset 0) uses it (and 3 more like it); \
             group [1, 0, 0] invocation 0, line 14: a store (offset 0) uses it"
        );
        assert_eq!(
            site_key("group [2, 0, 0] invocation 17, line 3: x (offset 40)"),
            "group [#] invocation #, line 3: x (offset #)"
        );
    }

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
