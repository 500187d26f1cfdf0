//! The kinds of [`Flag`](crate::Flag) a backend raises: undefined behaviour the reference
//! detected, and observations about the run (docs/REFERENCE.md describes each).
//!
//! They are written in results, journals and reports as the same kebab-case names the strings
//! had, and they sort by name, so flag lists keep their order.

use crate::named::named_enum;
use std::cmp::Ordering;

named_enum! {
    /// What a flag reports.
    pub enum FlagKind {
        /// A barrier reached by only part of the group.
        DivergentBarrier = "divergent-barrier",
        /// A use (stored to a buffer, an address, a branch, ...) of a value read from shared
        /// memory never written in the group.
        UninitializedSharedRead = "uninitialized-shared-read",
        /// Final memory differs between schedules (an observation).
        ScheduleDependent = "schedule-dependent",
        /// The two readings of the assembly shuffle range test differ (an observation).
        AmbiguousReading = "ambiguous-reading",
        /// A use of the value a shuffle read from an inactive lane.
        ShuffleInactiveLane = "shuffle-inactive-lane",
        /// Only part of a warp's live lanes reached a shuffle (an observation: shuffles in
        /// divergent code are defined; reading an inactive lane is `ShuffleInactiveLane`).
        DivergentShuffle = "divergent-shuffle",
        /// An access outside its buffer, an unbound buffer, a component index >= 4.
        OutOfBounds = "out-of-bounds",
        /// An atomic at an offset not a multiple of its size.
        MisalignedAtomic = "misaligned-atomic",
        /// An array of blocks indexed by an expression that is not dynamically uniform (two
        /// invocations of a work group took different elements at the same access).
        NonUniformBlockIndex = "non-uniform-block-index",
        /// A use of the result of an operation the specification leaves undefined.
        UndefinedValue = "undefined-value",
        /// Call depth above the reference's limit: the invocation ended.
        CallStackOverflow = "call-stack-overflow",
        /// Loop nesting above the reference's limit: the invocation ended.
        LoopStackOverflow = "loop-stack-overflow",
        /// A use of a value read from memory that another invocation of the work group wrote
        /// since the last barrier, or another work group changed, unordered by any barrier,
        /// atomic or subgroup operation (an
        /// observation: the read returns one of the values written, in an undefined order;
        /// the reference then also runs the `lockstep` schedule).
        DataRace = "data-race",
        /// The race detector left part of the run unchecked: over its limit of bytes written
        /// between two barriers, or a buffer too large to track between work groups (an
        /// observation: the verdict stands, races there are not looked for).
        RaceUntracked = "race-untracked",
    }
}

impl FlagKind {
    /// Whether the flag observes the run (its memory depends on the schedule, two readings of
    /// a clause differ, a shuffle ran in divergent code) rather than reporting undefined
    /// behaviour of the program: the harness judges only the others as undefined behaviour.
    pub fn is_observation(self) -> bool {
        use FlagKind as K;
        match self {
            K::ScheduleDependent
            | K::AmbiguousReading
            | K::DivergentShuffle
            | K::DataRace
            | K::RaceUntracked => true,
            K::DivergentBarrier
            | K::UninitializedSharedRead
            | K::ShuffleInactiveLane
            | K::OutOfBounds
            | K::MisalignedAtomic
            | K::NonUniformBlockIndex
            | K::UndefinedValue
            | K::CallStackOverflow
            | K::LoopStackOverflow => false,
        }
    }
}

/// By name, as the kinds sorted when they were strings.
impl Ord for FlagKind {
    fn cmp(&self, other: &Self) -> Ordering {
        self.name().cmp(other.name())
    }
}

impl PartialOrd for FlagKind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_kebab_case_sorted_by_name() {
        crate::named::assert_unique_names(FlagKind::names());
        for name in FlagKind::names() {
            let kebab = |c: char| c.is_ascii_lowercase() || c == '-';
            assert!(name.chars().all(kebab), "{name}");
        }
        let mut kinds = FlagKind::ALL.to_vec();
        kinds.sort();
        let mut names: Vec<&str> = FlagKind::names().collect();
        names.sort_unstable();
        assert_eq!(kinds.iter().map(|k| k.name()).collect::<Vec<_>>(), names);
        assert_eq!(
            serde_json::to_string(&FlagKind::DivergentBarrier).unwrap(),
            "\"divergent-barrier\""
        );
        let observations: Vec<_> = FlagKind::ALL
            .iter()
            .filter(|k| k.is_observation())
            .collect();
        assert_eq!(
            observations,
            [
                &FlagKind::ScheduleDependent,
                &FlagKind::AmbiguousReading,
                &FlagKind::DivergentShuffle,
                &FlagKind::DataRace,
                &FlagKind::RaceUntracked
            ]
        );
    }
}
