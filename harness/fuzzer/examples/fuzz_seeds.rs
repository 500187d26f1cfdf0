//! Writes seed corpora for the libFuzzer targets in `fuzz/` from the case corpus: every case
//! file for `case_loader`, and every program for the front end of its language
//! (`nvasm_front`, `glsl_front`, `spirv_front`, the latter as assembly text behind the odd
//! selector byte the target expects).
//!
//! Usage: cargo run --example fuzz_seeds -- [CASES_DIR] [CORPUS_DIR]
//! (defaults: cases, fuzz/corpus)

use conform_plan::Language;
use std::path::PathBuf;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let cases = PathBuf::from(args.next().unwrap_or_else(|| "cases".into()));
    let corpus = PathBuf::from(args.next().unwrap_or_else(|| "fuzz/corpus".into()));
    let files = conform_case::discover(std::slice::from_ref(&cases))?.files;
    let mut written = 0;
    let mut put = |target: &str, name: String, bytes: &[u8]| -> Result<(), String> {
        let dir = corpus.join(target);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        written += 1;
        Ok(())
    };
    for f in &files {
        let stem = f
            .strip_prefix(&cases)
            .unwrap_or(f)
            .display()
            .to_string()
            .replace(['/', '\\'], "-");
        let text = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        put("case_loader", stem.clone(), &text)?;
        let Ok(case) = conform_case::load(f, None) else {
            continue;
        };
        for (i, p) in case.plan.programs.iter().enumerate() {
            let name = format!("{stem}-{i}");
            match p.language {
                Language::Nvasm => put("nvasm_front", name, p.text.as_bytes())?,
                Language::Glsl => put("glsl_front", name, p.text.as_bytes())?,
                Language::SpirvAsm => {
                    let mut bytes = vec![1u8];
                    bytes.extend_from_slice(p.text.as_bytes());
                    put("spirv_front", name, &bytes)?
                }
                Language::Spirv => {
                    let mut bytes = vec![0u8];
                    bytes.extend(p.words.iter().flat_map(|w| w.to_le_bytes()));
                    put("spirv_front", name, &bytes)?
                }
            }
        }
    }
    println!("{written} seeds under {}", corpus.display());
    Ok(())
}
