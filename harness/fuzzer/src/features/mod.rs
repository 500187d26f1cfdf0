//! The fuzzer's feature families beyond the core blocks, each one module with its semantics
//! (the model's part), its generation, its shrinks and its spelling in each language: 64-bit
//! expressions ([`wide`], which need nothing but the tree), vector blocks ([`vector`]), narrow
//! (8- and 16-bit) loads and stores ([`narrow`]), different atomic operations on one word
//! ([`atomic_mix`]), and subgroup exchanges, arithmetic and ballots ([`subgroup`]). Their node
//! types are in `crate::ast`'s children of the same names.

pub mod atomic_mix;
pub mod narrow;
pub mod subgroup;
pub mod vector;
pub mod wide;
