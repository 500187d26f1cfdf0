//! Resource limits of one case, in bytes and in work, checked when the case loads.
//!
//! A case file is a few KiB, but its data forms (`fill`, `series`, `random`), `size` keys,
//! expectations, dispatch sizes and reference knobs can ask for gigabytes or for years of
//! interpretation. Every such request is checked against a limit here *before* anything is
//! allocated or run, and a case over a limit is invalid with a `file:line:col` diagnostic.
//! What the limits cannot see (the work-group size in the program, loop trip counts, indirect
//! dispatches whose arguments a shader writes) is bounded at run time by the per-case
//! wall-clock limit (`timeout_ms`) of the reference and driver worker processes, which also
//! cap the reference's memory (`RLIMIT_DATA`). cases/README.md ("Limits") documents them.

/// Bytes of all buffers of one case together (initial data and `size`).
pub const MAX_BUFFER_BYTES: u64 = 64 << 20;
/// Bytes of all expectations of one case together (`values`, every `one_of` alternative,
/// `permutation_of`).
pub const MAX_EXPECT_BYTES: u64 = 64 << 20;
/// Memory the reference keeps for a case: its buffers once per schedule plus the initial
/// copy, `(schedules + 1) x buffer bytes`.
pub const MAX_REFERENCE_BYTES: u64 = 256 << 20;
/// The reference's default schedules (`conform_reference::Options`; the loader does not link
/// the interpreter, and `reference.rs` tests that the two agree).
pub const DEFAULT_SCHEDULES: u32 = 3;
/// The reference's default step budget, likewise.
pub const DEFAULT_STEP_BUDGET: u64 = 10_000_000;
/// The reference's MAX_COMPUTE_WORK_GROUP_COUNT in each dimension (`conform_reference::LIMITS`,
/// the GL minimum): a dispatch above it raises INVALID_VALUE and runs nothing.
pub const REFERENCE_MAX_GROUP_COUNT: u32 = 65535;
/// The largest `reference.schedules` a case may ask for.
pub const MAX_SCHEDULES: u32 = 16;
/// The largest `reference.step_budget` a case may ask for (the default is 10 million
/// instructions per invocation; the fuzzer's long-loop cases need up to 2^33).
pub const MAX_STEP_BUDGET: u64 = 1 << 34;
/// Work groups the reference runs for a case: the groups of every `dispatch` step within the
/// GL limits (larger ones only raise INVALID_VALUE), times the schedules.
pub const MAX_GROUP_RUNS: u64 = 1 << 20;
/// Lists and maps nested inside each other in a case file.
pub const MAX_YAML_DEPTH: usize = 32;
/// Values in a case file, aliases expanded.
pub const MAX_YAML_NODES: u64 = 1 << 18;
/// Bytes of text of all scalars (keys and values) in a case file, each counted once for every
/// alias that names it: what deserializing the document builds, whatever its aliases. Four
/// times the largest case file (`MAX_FILE_BYTES`), which without aliases is the most it can hold.
pub const MAX_YAML_BYTES: u64 = 16 << 20;
/// What a case file may cost once read, aliases expanded (`yaml.rs` checks it with both YAML
/// parsers before anything is deserialized).
pub const YAML_BUDGET: crate::pos::Budget = crate::pos::Budget {
    depth: MAX_YAML_DEPTH,
    nodes: MAX_YAML_NODES,
    bytes: MAX_YAML_BYTES,
};
/// Bytes of a case name (`name:`, or the file's path under its root without `.yaml`). Names
/// are test names in every report, in deqp-runner's files and on every console line of a run.
pub const MAX_NAME_BYTES: usize = 256;
/// The largest `timeout_ms` of a case, and of `conform run --timeout`: ten minutes.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

// The defaults are within their maximums, and a case with the largest buffers fits the
// reference under the default schedules.
const _: () = assert!(
    DEFAULT_SCHEDULES <= MAX_SCHEDULES
        && DEFAULT_STEP_BUDGET <= MAX_STEP_BUDGET
        && (DEFAULT_SCHEDULES as u64 + 1) * MAX_BUFFER_BYTES <= MAX_REFERENCE_BYTES
);

/// `n` bytes for messages: `67108864 bytes (64 MiB)`.
pub fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{n} bytes ({} MiB)", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

/// What is left of a byte budget: `limit - used`.
pub fn left(limit: u64, used: u64) -> u64 {
    limit.saturating_sub(used)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_said_plainly() {
        assert_eq!(bytes(64 << 20), "67108864 bytes (64 MiB)");
        assert_eq!(bytes(5), "5 bytes");
        assert_eq!(left(10, 12), 0);
    }
}
