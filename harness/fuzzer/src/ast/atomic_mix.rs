//! The syntax of atomic mix blocks: [`AtomicMixBlock`], its parts and their families, and the
//! rule that keeps the final value independent of the order ([`AtomicMixBlock::check`]; the
//! argument is in `crate::features::atomic_mix`'s documentation, with the block's semantics, generation
//! and reduction).

use super::{AtomTy, AtomicBlock, AtomicOp, Guard, Operand, Space};
use serde::{Deserialize, Serialize};

/// The most parts a block has.
pub const MAX_PARTS: usize = 4;

/// One part: an atomic operation with a constant operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MixPart {
    pub op: AtomicOp,
    pub operand: u32,
}

/// The invocations sharing a word (the dispatch for [`Space::Storage`], a group for
/// [`Space::Shared`]) apply `parts` round robin by index to one word starting at `init`; its
/// final value is checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtomicMixBlock {
    pub space: Space,
    /// The word's type: signed or unsigned comparisons for MIN and MAX.
    pub ty: AtomTy,
    pub init: u32,
    pub parts: Vec<MixPart>,
}

/// The families of operations that commute with one another (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MixKind {
    Add,
    Bits,
    Min,
    Max,
}

impl MixKind {
    pub fn of(op: AtomicOp) -> Option<MixKind> {
        match op {
            AtomicOp::Add => Some(MixKind::Add),
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => Some(MixKind::Bits),
            AtomicOp::Min => Some(MixKind::Min),
            AtomicOp::Max => Some(MixKind::Max),
            AtomicOp::Exch | AtomicOp::CSwap | AtomicOp::IWrap | AtomicOp::DWrap => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MixKind::Add => "add",
            MixKind::Bits => "bits",
            MixKind::Min => "min",
            MixKind::Max => "max",
        }
    }
}

/// The bits a bitwise part changes: those an AND clears, an OR sets, a XOR flips.
fn touched(part: MixPart) -> u32 {
    match part.op {
        AtomicOp::And => !part.operand,
        _ => part.operand,
    }
}

impl AtomicMixBlock {
    /// The family of the parts (of the first; [`AtomicMixBlock::check`] keeps them alike).
    pub fn kind(&self) -> MixKind {
        self.parts
            .first()
            .and_then(|p| MixKind::of(p.op))
            .unwrap_or(MixKind::Add)
    }

    /// Short name for signatures: the family (`atomic-mix-bits`, `atomic-mix-add`). Not the
    /// space: a bug in combining operations shows in both, and should keep one signature
    /// per language.
    pub fn feature(&self) -> String {
        format!("atomic-mix-{}", self.kind().name())
    }

    /// Part `j` as a one-operation atomic block with a uniform operand, for the emitters'
    /// atomic helpers.
    pub fn part_block(&self, j: usize) -> AtomicBlock {
        AtomicBlock {
            space: self.space,
            op: self.parts[j].op,
            ty: self.ty,
            operand: Operand::Uniform(self.parts[j].operand),
            compare: 0,
            init: self.init,
            guard: Guard::All,
            keep_returns: false,
        }
    }

    /// The test that selects part `j`'s invocations: none with one part.
    pub fn part_guard(&self, j: usize) -> Guard {
        match self.parts.len() {
            1 => Guard::All,
            m => Guard::Every {
                m: m as u32,
                r: j as u32,
            },
        }
    }

    /// Whether the final value is the same in every order (module documentation).
    pub fn check(&self) -> std::result::Result<(), String> {
        if self.parts.is_empty() || self.parts.len() > MAX_PARTS {
            return Err(format!("{} parts (1 to {MAX_PARTS})", self.parts.len()));
        }
        for p in &self.parts {
            match MixKind::of(p.op) {
                None => {
                    return Err(format!(
                        "{} does not commute with other operations",
                        p.op.name()
                    ))
                }
                Some(k) if k != self.kind() => {
                    return Err(format!(
                        "{} and {} do not commute",
                        self.parts[0].op.name(),
                        p.op.name()
                    ))
                }
                Some(_) => {}
            }
        }
        if self.kind() == MixKind::Bits {
            let set = |op: AtomicOp| {
                self.parts
                    .iter()
                    .filter(|p| p.op == op)
                    .fold(0, |acc, &p| acc | touched(p))
            };
            let (and, or, xor) = (set(AtomicOp::And), set(AtomicOp::Or), set(AtomicOp::Xor));
            if and & or != 0 || and & xor != 0 || or & xor != 0 {
                return Err(format!(
                    "bitwise parts touch common bits (AND clears {and:#x}, OR sets {or:#x}, \
                     XOR flips {xor:#x})"
                ));
            }
        }
        Ok(())
    }
}
