//! Issue 48's self-tests: one bug planted in the reference per subgroup family, each found
//! from seed 0 within a fixed number of GLSL iterations and reduced to a small case (a child of
//! `campaign.rs`'s tests, which hold the helpers; that file is at tidy's line limit).

use super::*;

/// Iterations for the subgroup families' planted bugs (GLSL only: the reference's SPIR-V
/// front end has no OpGroupNonUniform instructions, NV assembly no KHR subgroups).
const SUBGROUP_ITERATIONS: u64 = 200;

/// A subgroup shuffle or broadcast reading its source with bit 4 cleared: only the exchange
/// family's blocks (KHR shuffles and broadcasts, `readInvocationARB`) reach it.
#[test]
fn finds_the_planted_subgroup_shuffle_bug() {
    finds_planted_in_few_signatures(
        PlantedBug::SubgroupShuffleSourceDropsBit4,
        LangChoice::of(&[Lang::Glsl]),
        "subgroup-shuffle|subgroup-broadcast",
        SUBGROUP_ITERATIONS,
        20,
    );
}

/// Subgroup scans starting from 0 instead of the identity: only the arithmetic family's
/// inclusive and exclusive scans of mul, and, min and max reach it.
#[test]
fn finds_the_planted_subgroup_scan_identity_bug() {
    finds_planted_in_few_signatures(
        PlantedBug::SubgroupScanIdentityZero,
        LangChoice::of(&[Lang::Glsl]),
        "subgroup-inclusive|subgroup-exclusive",
        SUBGROUP_ITERATIONS,
        20,
    );
}
