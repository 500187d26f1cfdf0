//! The syntax of 8- and 16-bit storage blocks: [`NarrowBlock`], its layout arithmetic and the
//! rules it keeps. Semantics are `crate::features::narrow`'s (whose documentation describes the block).

use super::{Expr, Lang, Program, Space, MAX_LOCAL_SIZE};
use serde::{Deserialize, Serialize};

/// Each invocation stores the low `bits` bits of `value` to slot `lid` of its group's
/// region (slot `gid` of a region after the block's results in its buffer for
/// [`Space::Storage`], slot `lid` of a shared array for [`Space::Shared`]), then, after
/// `MEMBAR.CTA` and `BAR`, loads slot `(lid + rot) % local_size` of its group, extended by
/// `load_signed`, and stores the 32-bit result at its global index. For storage the region
/// itself is checked too: every slot holds what its invocation stored, and the bytes past the
/// last slot keep [`REGION_FILL`](crate::features::narrow::REGION_FILL).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NarrowBlock {
    pub space: Space,
    /// 8 or 16.
    pub bits: u8,
    /// `S8`/`S16` on the store (it stores the same low bits as `U8`/`U16`).
    pub store_signed: bool,
    /// `S8`/`S16` on the load: sign extension; else zero extension.
    pub load_signed: bool,
    /// An expression over `Const`, `Lid` and `Wg`.
    pub value: Expr,
    pub rot: u32,
}

impl NarrowBlock {
    /// Short name for signatures: the load's type (`narrow-s8`, `narrow-u16`). Not the
    /// space: a bug in extending a load shows in both, and should keep one signature.
    pub fn feature(&self) -> String {
        format!(
            "narrow-{}{}",
            if self.load_signed { 's' } else { 'u' },
            self.bits
        )
    }

    /// Bytes per slot.
    pub fn bytes(&self) -> u32 {
        u32::from(self.bits) / 8
    }

    /// The storage modifiers of the store and of the load (`U8`, `S16`, ...).
    pub fn modifiers(&self) -> (String, String) {
        let m = |signed: bool| format!("{}{}", if signed { 'S' } else { 'U' }, self.bits);
        (m(self.store_signed), m(self.load_signed))
    }

    /// Bytes of a group's (shared) or the dispatch's (storage) region of `slots` slots,
    /// rounded up to whole words.
    pub fn region_bytes(&self, slots: u32) -> u32 {
        (slots * self.bytes()).div_ceil(4) * 4
    }

    pub fn check(&self, p: &Program) -> Result<(), String> {
        if self.bits != 8 && self.bits != 16 {
            return Err(format!("{}-bit storage does not exist", self.bits));
        }
        if p.lang != Lang::Nvasm {
            return Err("8- and 16-bit storage exists in NV assembly only".into());
        }
        if self.rot > 2 * MAX_LOCAL_SIZE {
            return Err(format!("rotation {} out of range", self.rot));
        }
        Ok(())
    }
}
