//! Issue 48's self-tests: one bug planted in the reference per subgroup family, each found
//! from seed 0 within a fixed number of GLSL iterations, and of SPIR-V iterations (the planted
//! bugs are in the reference's subgroup executor, which both front ends lower to), and reduced
//! to a small case (a child of `campaign.rs`'s tests, which hold the helpers; that file is at
//! tidy's line limit).

use super::*;

/// Iterations for the subgroup families' planted bugs (GLSL and SPIR-V: NV assembly has no
/// subgroup blocks).
const SUBGROUP_ITERATIONS: u64 = 200;

/// Most SPIR-V instructions a reduced subgroup case keeps: the block's smallest module is
/// about 30 (the built-ins, the slot, the value, word 0's selection, the store), a float's
/// stores in both arms of the guard add about 15.
const SPIRV_MAX_SIZE: usize = 60;

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

/// The shuffle bug through `--lang spirv` (OpGroupNonUniformShuffle*, Broadcast).
#[test]
fn finds_the_planted_subgroup_shuffle_bug_in_spirv() {
    finds_planted_in_few_signatures(
        PlantedBug::SubgroupShuffleSourceDropsBit4,
        LangChoice::of(&[Lang::Spirv]),
        "subgroup-shuffle|subgroup-broadcast",
        SUBGROUP_ITERATIONS,
        SPIRV_MAX_SIZE,
    );
}

/// The scan identity bug through `--lang spirv` (OpGroupNonUniform* InclusiveScan,
/// ExclusiveScan).
#[test]
fn finds_the_planted_subgroup_scan_identity_bug_in_spirv() {
    finds_planted_in_few_signatures(
        PlantedBug::SubgroupScanIdentityZero,
        LangChoice::of(&[Lang::Spirv]),
        "subgroup-inclusive|subgroup-exclusive",
        SUBGROUP_ITERATIONS,
        SPIRV_MAX_SIZE,
    );
}
