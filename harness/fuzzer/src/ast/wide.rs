//! The syntax of 64-bit expressions: [`Wide`] (`Expr::Wide`) and which operators have a 64-bit
//! form, with their names in signatures. Semantics, generation, reduction and emission are
//! `crate::features::wide`'s.

use super::{BinOp, Expr};
use serde::{Deserialize, Serialize};

/// A 64-bit operation on two extended 32-bit operands, one half of the result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wide {
    /// An operator with a 64-bit form ([`has_form`]).
    pub op: BinOp,
    pub a: Box<Expr>,
    pub b: Box<Expr>,
    /// Sign-extend both operands (else zero-extend). Shift counts are never extended.
    pub signed: bool,
    /// The high 32 bits of the result (else the low 32).
    pub high: bool,
}

/// Whether `op` has a 64-bit form: the operators of [`BinOp::ALL`] but the high halves of
/// products, which would need 128 bits, and the other comparisons (`<=`, `>`, `>=`; drawn
/// only by the integer-families statement, `crate::generators`).
pub fn has_form(op: BinOp) -> bool {
    use BinOp::*;
    (BinOp::ALL.contains(&op) && !matches!(op, MulHiU | MulHiS))
        || matches!(op, LeU | LeS | GtU | GtS | GeU | GeS)
}

/// The operators with a 64-bit form, in [`BinOp::ALL`]'s order.
pub fn ops() -> Vec<BinOp> {
    BinOp::ALL.into_iter().filter(|&op| has_form(op)).collect()
}

/// The operator's name in signatures (`wide<op>`: one word, as every operator name, so
/// that `-` separates names in a signature).
pub fn name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "wideadd",
        BinOp::Sub => "widesub",
        BinOp::Mul => "widemul",
        BinOp::And => "wideand",
        BinOp::Or => "wideor",
        BinOp::Xor => "widexor",
        BinOp::Shl => "wideshl",
        BinOp::ShrU => "wideshru",
        BinOp::ShrS => "wideshrs",
        BinOp::MinU => "wideminu",
        BinOp::MaxU => "widemaxu",
        BinOp::MinS => "widemins",
        BinOp::MaxS => "widemaxs",
        BinOp::DivU => "widedivu",
        BinOp::RemU => "wideremu",
        BinOp::DivS => "widedivs",
        BinOp::RemS => "widerems",
        BinOp::LtU => "wideltu",
        BinOp::LtS => "widelts",
        BinOp::Eq => "wideeq",
        BinOp::Ne => "widene",
        BinOp::LeU => "wideleu",
        BinOp::LeS => "wideles",
        BinOp::GtU => "widegtu",
        BinOp::GtS => "widegts",
        BinOp::GeU => "widegeu",
        BinOp::GeS => "wideges",
        _ => "wideinvalid",
    }
}
