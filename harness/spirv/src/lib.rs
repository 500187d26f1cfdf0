//! SPIRV-Tools through the `spirv-tools` crate: assembling text and validating binaries for the
//! OpenGL 4.5 target environment (ARB_gl_spirv, SPIR-V 1.0 header).
//!
//! A crate of its own so that the case loader, which turns every `spirv-asm` program into words
//! once, builds this and not the reference interpreter it used to reach it through (the
//! loader, the judge, the gate and the reports never build the interpreter; harness/tests/
//! tidy.rs holds it). The reference's SPIR-V front end validates through it too, and its
//! [`Diagnostic`] is the reference's problem type.

use spirv_tools::assembler::{self, Assembler};
use spirv_tools::val::{self, Validator};
use spirv_tools::TargetEnv;
use std::fmt;

/// A problem found in a program; `line` is relative to the program text (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// The target environment every module is assembled and validated for.
pub const TARGET_ENV: TargetEnv = TargetEnv::OpenGL_4_5;

/// `InvalidCapability` → `SPV_ERROR_INVALID_CAPABILITY` (the C API's name of the code).
pub fn code_name(r: spirv_tools::error::SpirvResult) -> String {
    let camel = format!("{r:?}");
    let mut out = String::from("SPV_");
    if camel != "Success" && camel != "Warning" && camel != "Unsupported" {
        out.push_str("ERROR_");
    }
    for (i, ch) in camel.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(ch.to_ascii_uppercase());
    }
    out
}

/// The header word of SPIR-V 1.3, the version KHR_shader_subgroup adds to OpenGL (its
/// modifications to Appendix C.1: "Implementations must support the 1.0 and 1.3 versions of
/// SPIR-V"), which the subgroup capabilities need.
pub const VERSION_1_3: u32 = 0x0001_0300;

/// Whether `words` declare one of the subgroup capabilities (GroupNonUniform,
/// GroupNonUniformVote, Arithmetic, Ballot, Shuffle, ShuffleRelative, Clustered, Quad: 61-68),
/// which need SPIR-V 1.3.
pub fn declares_subgroup_capability(words: &[u32]) -> bool {
    let mut at = 5usize;
    while at < words.len() {
        let (wc, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        if wc == 0 {
            return false;
        }
        // OpCapability (17) comes first in a module: stop at the first other instruction.
        if op != 17 {
            return false;
        }
        if words.get(at + 1).is_some_and(|c| (61..=68).contains(c)) {
            return true;
        }
        at += wc;
    }
    false
}

/// Assembles SPIR-V assembly text into words (SPIR-V 1.0 header, OpenGL 4.5 environment; a
/// 1.3 header when the module declares a subgroup capability: KHR_shader_subgroup).
pub fn assemble(text: &str) -> Result<Vec<u32>, Vec<Diagnostic>> {
    let asm = assembler::create(Some(TARGET_ENV));
    match asm.assemble(text, assembler::AssemblerOptions::default()) {
        Ok(bin) => {
            let mut words = bin.as_words().to_vec();
            if words.len() > 1 && declares_subgroup_capability(&words) {
                words[1] = VERSION_1_3;
            }
            Ok(words)
        }
        Err(e) => {
            let code = code_name(e.inner);
            let d = match e.diagnostic {
                Some(d) => Diagnostic {
                    line: d.line as u32 + 1,
                    column: d.column as u32 + 1,
                    message: format!("SPIR-V assembly failed: {} ({code})", d.message),
                },
                None => Diagnostic {
                    line: 1,
                    column: 1,
                    message: format!("SPIR-V assembly failed ({code})"),
                },
            };
            Err(vec![d])
        }
    }
}

/// A validation failure reported by spirv-val.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValError {
    /// The C API's result code (`SPV_ERROR_INVALID_ID`).
    pub code: String,
    pub message: String,
    /// Usually the offending instruction, disassembled.
    pub notes: String,
}

/// Validates a module with spirv-val for OpenGL 4.5; a SPIR-V 1.3 module (KHR_shader_subgroup)
/// for universal SPIR-V 1.3, SPIRV-Tools having no OpenGL environment of that version (the
/// reference's front end checks the OpenGL rules on top, KHR_shader_subgroup's among them).
pub fn validate(words: &[u32]) -> Result<(), ValError> {
    let env = if words.get(1) == Some(&VERSION_1_3) {
        TargetEnv::Universal_1_3
    } else {
        TARGET_ENV
    };
    let v = val::create(Some(env));
    match v.validate(words, None) {
        Ok(()) => Ok(()),
        Err(e) => {
            let code = code_name(e.inner);
            let (message, notes) = match e.diagnostic {
                Some(d) => (d.message, d.notes),
                None => ("validation failed".to_string(), String::new()),
            };
            Err(ValError {
                code,
                message,
                notes,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assembles_validates_and_locates_errors() {
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                    OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
                    %void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                    %main = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\nOpFunctionEnd\n";
        let words = assemble(text).unwrap();
        assert_eq!(words[0], 0x0723_0203, "the SPIR-V magic number");
        assert_eq!(validate(&words), Ok(()));
        // A function with no block is assembled, and refused by spirv-val with its code.
        let e = validate(&assemble(&text.replace("%entry = OpLabel\nOpReturn\n", "")).unwrap())
            .unwrap_err();
        assert!(e.code.starts_with("SPV_ERROR_"), "{e:?}");
        let e = assemble("OpCapability Shader\n%x = OpNoSuchThing\n").unwrap_err();
        assert_eq!((e[0].line, e[0].column > 0), (2, true), "{e:?}");
        assert!(e[0].message.starts_with("SPIR-V assembly failed"), "{e:?}");
        // A module declaring a subgroup capability is SPIR-V 1.3 (KHR_shader_subgroup).
        let sg = text.replace(
            "OpCapability Shader\n",
            "OpCapability Shader\nOpCapability GroupNonUniform\n",
        );
        let words = assemble(&sg).unwrap();
        assert_eq!((words[1], validate(&words)), (VERSION_1_3, Ok(())));
        assert_eq!(assemble(text).unwrap()[1], 0x0001_0000);
        assert_eq!(
            code_name(spirv_tools::error::SpirvResult::InvalidCapability),
            "SPV_ERROR_INVALID_CAPABILITY"
        );
    }
}
