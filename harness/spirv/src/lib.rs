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

/// Assembles SPIR-V assembly text into words (SPIR-V 1.0 header, OpenGL 4.5 environment).
pub fn assemble(text: &str) -> Result<Vec<u32>, Vec<Diagnostic>> {
    let asm = assembler::create(Some(TARGET_ENV));
    match asm.assemble(text, assembler::AssemblerOptions::default()) {
        Ok(bin) => Ok(bin.as_words().to_vec()),
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

/// Validates a module with spirv-val for OpenGL 4.5.
pub fn validate(words: &[u32]) -> Result<(), ValError> {
    let v = val::create(Some(TARGET_ENV));
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
        assert_eq!(
            code_name(spirv_tools::error::SpirvResult::InvalidCapability),
            "SPV_ERROR_INVALID_CAPABILITY"
        );
    }
}
