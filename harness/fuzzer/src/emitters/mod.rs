//! What a generated program becomes: its text in each language ([`glsl`], [`nvasm`],
//! [`spirv`], sharing the spellings in [`spell`]) and the YAML case around it ([`case`]), whose
//! expectations are the model's (`crate::oracles::model`).

pub mod case;
pub mod glsl;
pub mod nvasm;
pub mod spell;
pub mod spirv;
