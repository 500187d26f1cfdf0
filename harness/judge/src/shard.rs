//! `--shard I/N`: a deterministic slice of the cases for one of N machines.
//!
//! The case names are sorted, shuffled with a fixed seed (SplitMix64, written out in
//! `case::values`, so the assignment never changes under a dependency update), and shard `I`
//! takes every N-th name starting at position `I-1`. Shuffling spreads the slow cases of one
//! folder over all shards; the fixed seed makes every machine compute the same assignment
//! from the same case list. Every case lands in exactly one shard.

use conform_case::values::SplitMix64;
use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// The shuffle's seed. Changing it reassigns every case to another shard.
pub const SHARD_SEED: u64 = 0x636f_6e66_6f72_6d31; // "conform1"

/// The most shards a run may be split into (`--shard I/N`, N at most this): far more machines
/// than any CI gives a suite of a few thousand cases, and few enough that `merge` can name
/// every missing shard. A run record naming more is not read as a shard.
pub const MAX_SHARDS: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || {
            format!(
                "--shard `{}`: expected I/N with 1 <= I <= N and N at most {MAX_SHARDS}, e.g. 2/4",
                conform_io::escape::line(s)
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// The names of `all` that belong to this shard.
    pub fn select<'a>(&self, all: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
        let mut names: Vec<&str> = all
            .into_iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut rng = SplitMix64::new(SHARD_SEED);
        // Fisher-Yates, from the back.
        for i in (1..names.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            names.swap(i, j);
        }
        names
            .into_iter()
            .enumerate()
            .filter(|(p, _)| p % self.count == self.index - 1)
            .map(|(_, n)| n.to_string())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        for bad in [
            "0/3",
            "4/3",
            "1/0",
            "3",
            "a/b",
            "",
            "1/10001",
            "1/18446744073709551616",
        ] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(
            "10000/10000".parse::<Shard>(),
            Ok(Shard {
                index: 10_000,
                count: MAX_SHARDS
            })
        );
        let e = "1/10001".parse::<Shard>().unwrap_err();
        assert!(e.contains("N at most 10000"), "{e}");
    }

    #[test]
    fn shards_partition_the_cases_evenly_and_deterministically() {
        let names: Vec<String> = (0..100)
            .map(|i| format!("ext{}/case-{i:03}", i % 4))
            .collect();
        let mut seen = BTreeSet::new();
        for i in 1..=3 {
            let s = Shard { index: i, count: 3 };
            let part = s.select(names.iter().map(String::as_str));
            assert!((33..=34).contains(&part.len()), "{}", part.len());
            // The same input in another order gives the same slice.
            assert_eq!(part, s.select(names.iter().rev().map(String::as_str)));
            for n in part {
                assert!(seen.insert(n));
            }
        }
        assert_eq!(seen.len(), 100);
        // Shuffled: shard 1 is not simply the first third, nor every third sorted name.
        let first = Shard { index: 1, count: 3 }.select(names.iter().map(String::as_str));
        let sorted: BTreeSet<&str> = names.iter().map(String::as_str).collect();
        let every_third: BTreeSet<String> =
            sorted.iter().step_by(3).map(|s| s.to_string()).collect();
        assert_ne!(first, every_third);
    }
}
