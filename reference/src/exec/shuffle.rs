//! Warp shuffle lane math (NV_shader_thread_shuffle), as pure functions so they can be
//! checked against direct formulas.

use crate::ir::ShflMode;
use crate::PlantedBug;

/// Which reading of the assembly range test to apply (specs README, ambiguity 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// NVIDIA PTX `shfl`: in range when `src <= max` (up: `src >= max`). Canonical.
    Inclusive,
    /// The extension text: in range when `src < max` (up: `src > max`).
    Strict,
}

impl Reading {
    pub fn name(self) -> &'static str {
        match self {
            Reading::Inclusive => {
                "inclusive (PTX shfl: source <= maxThreadId, SHFUP source >= maxThreadId)"
            }
            Reading::Strict => {
                "strict (extension text: source < maxThreadId, SHFUP source > maxThreadId)"
            }
        }
    }
}

/// Assembly form: for lane `tid` (0..32), the source lane and whether it is in range. Only the
/// low 5 bits of `index` count (PTX `b[4:0]`). `src` is signed: SHFUP below zero is out of
/// range, never wrapped.
pub fn asm_source(
    mode: ShflMode,
    tid: u32,
    index: u32,
    mask: u32,
    reading: Reading,
    bug: Option<PlantedBug>,
) -> (i64, bool) {
    let tid = tid & 31;
    let index = index & 31;
    let clamp = mask & 0x1f;
    let seg = (mask >> 8) & 0x1f;
    let min = tid & seg;
    let max = i64::from(min | (clamp & !seg));
    let t = i64::from(tid);
    let i = i64::from(index);
    let src = match mode {
        ShflMode::Idx => i64::from((index & !seg) | min),
        ShflMode::Up => t - i,
        ShflMode::Down => t + i,
        ShflMode::Xor => i64::from(tid ^ index),
    };
    let bugged = bug == Some(PlantedBug::ShuffleClampOffByOne);
    let ok = match (mode, reading) {
        (ShflMode::Up, Reading::Inclusive) if bugged => src > max,
        (ShflMode::Up, Reading::Inclusive) => src >= max,
        (ShflMode::Up, Reading::Strict) => src > max,
        (_, Reading::Inclusive) if bugged => src < max,
        (_, Reading::Inclusive) => src <= max,
        (_, Reading::Strict) => src < max,
    };
    let ok = ok && (0..32).contains(&src);
    (src, ok)
}

/// GLSL form (`shuffle*NV(data, index, width)`): the warp is split into segments of `width`
/// lanes; ids are relative to the lane's segment; only the low 5 bits of `index` count. Returns
/// the absolute source lane and validity. A `width` that is not a power of two in 2..=32 is
/// undefined: it returns None (the executor returns the own value, invalid, and flags it).
pub fn glsl_source(mode: ShflMode, tid: u32, index: u32, width: u32) -> Option<(i64, bool)> {
    if !(2..=32).contains(&width) || !width.is_power_of_two() {
        return None;
    }
    let tid = tid & 31;
    let index = i64::from(index & 31);
    let w = i64::from(width);
    let base = i64::from(tid & !(width - 1));
    let rel = i64::from(tid & (width - 1));
    let (src, ok) = match mode {
        ShflMode::Idx => (index, index < w),
        ShflMode::Up => (rel - index, rel - index >= 0),
        ShflMode::Down => (rel + index, rel + index < w),
        ShflMode::Xor => (rel ^ index, (rel ^ index) < w),
    };
    Some((base + src, ok))
}
