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
        // The planted bug is off by one beyond the strict reading, under both readings, so
        // that its output matches neither allowed reading.
        (ShflMode::Up, _) if bugged => src > max + 1,
        (_, _) if bugged => src < max - 1,
        (ShflMode::Up, Reading::Inclusive) => src >= max,
        (ShflMode::Up, Reading::Strict) => src > max,
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

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    const MODES: [ShflMode; 4] = [ShflMode::Idx, ShflMode::Up, ShflMode::Down, ShflMode::Xor];

    /// The extension's text, written out directly (independent of `asm_source`).
    fn direct(mode: ShflMode, tid: u32, index: u32, mask: u32, inclusive: bool) -> (i64, bool) {
        let clamp = i64::from(mask & 31);
        let seg = i64::from((mask >> 8) & 31);
        let tid = i64::from(tid);
        let index = i64::from(index & 31);
        let min = tid & seg;
        let max = min | (clamp & !seg);
        let src = match mode {
            ShflMode::Idx => (index & !seg) | min,
            ShflMode::Up => tid - index,
            ShflMode::Down => tid + index,
            ShflMode::Xor => tid ^ index,
        };
        let ok = match (mode, inclusive) {
            (ShflMode::Up, true) => src >= max && src >= 0,
            (ShflMode::Up, false) => src > max,
            (_, true) => src <= max && src < 32,
            (_, false) => src < max,
        };
        (src, ok)
    }

    #[test]
    fn asm_lane_math_matches_the_text_for_every_mask() {
        for mode in MODES {
            for tid in 0..32 {
                for index in 0..32 {
                    for clamp in 0..32 {
                        for seg in [0u32, 1, 3, 7, 0xF, 0x10, 0x18, 0x1C, 0x1E, 0x1F, 0x15] {
                            let mask = clamp | (seg << 8);
                            for (reading, inc) in
                                [(Reading::Inclusive, true), (Reading::Strict, false)]
                            {
                                assert_eq!(
                                    asm_source(mode, tid, index, mask, reading, None),
                                    direct(mode, tid, index, mask, inc),
                                    "{mode:?} tid {tid} index {index} mask {mask:#x} {reading:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    quickcheck! {
        fn asm_ignores_high_bits(tid: u32, index: u32, mask: u32) -> bool {
            let tid = tid % 32;
            MODES.iter().all(|&m| {
                asm_source(m, tid, index, mask, Reading::Inclusive, None)
                    == asm_source(m, tid, index & 31, mask & 0x1f1f, Reading::Inclusive, None)
            })
        }

        fn asm_source_in_range_is_a_real_lane(tid: u32, index: u32, mask: u32) -> bool {
            MODES.iter().all(|&m| {
                let (src, ok) = asm_source(m, tid % 32, index, mask, Reading::Inclusive, None);
                !ok || (0..32).contains(&src)
            })
        }

        fn glsl_matches_the_text(tid: u32, index: u32, wlog: u8) -> bool {
            let width = 1u32 << (1 + wlog % 5);
            let tid = tid % 32;
            let i = i64::from(index & 31);
            let rel = i64::from(tid % width);
            let base = i64::from(tid - tid % width);
            let w = i64::from(width);
            let expect = [
                (base + i, i < w),
                (base + rel - i, rel - i >= 0),
                (base + rel + i, rel + i < w),
                (base + (rel ^ i), (rel ^ i) < w),
            ];
            MODES.iter().zip(expect).all(|(&m, e)| glsl_source(m, tid, index, width) == Some(e))
        }
    }

    #[test]
    fn glsl_examples_of_the_extension() {
        // shuffleNV index 2 width 8 reads lane 2 (the text's "b" is its own typo: ambiguity 4)
        assert_eq!(glsl_source(ShflMode::Idx, 5, 2, 8), Some((2, true)));
        assert_eq!(glsl_source(ShflMode::Idx, 5, 9, 8), Some((9, false)));
        assert_eq!(glsl_source(ShflMode::Up, 0, 1, 8), Some((-1, false)));
        assert_eq!(glsl_source(ShflMode::Down, 6, 2, 8), Some((8, false)));
        assert_eq!(glsl_source(ShflMode::Xor, 3, 1, 8), Some((2, true)));
        // index 31 at width 32 is valid (the reason the inclusive reading is canonical)
        assert_eq!(glsl_source(ShflMode::Idx, 0, 31, 32), Some((31, true)));
        assert_eq!(glsl_source(ShflMode::Idx, 0, 3, 6), None);
        assert_eq!(glsl_source(ShflMode::Idx, 0, 3, 64), None);
    }
}
