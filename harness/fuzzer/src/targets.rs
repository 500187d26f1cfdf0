//! The bodies of the libFuzzer targets in `fuzz/` (kept here so they are compiled and tested
//! with the workspace; the targets themselves are one-liners).
//!
//! The parser targets feed arbitrary input to a front end and, when it builds, run the program
//! on the reference over one small work group with a tight step budget, so the executor sees
//! what the front ends let through. None of it may panic: a panic is the bug these targets
//! hunt. The differential target generates a program and compares backends with the model.

use crate::ast::Lang;
use crate::generators as gen;
use crate::{load_case, observe, ReferenceTarget, Target};
use arbitrary::Unstructured;
use conform_case::values::SplitMix64;
use conform_plan::{
    BufferInit, BufferKind, ElemType, ExecPlan, Language, ProgramSource, Scalar, Stage, Step,
};
use conform_run::backend::BackendFactory;

/// Largest input the parser targets look at (front ends refuse huge sources anyway).
const MAX_INPUT: usize = 64 << 10;

/// A plan running `program` once over one work group, with four 256-byte storage buffers at
/// bindings 0-3 (seeded contents, so programs that read them see something).
pub fn one_group_plan(program: ProgramSource) -> ExecPlan {
    let mut rng = SplitMix64::new(1);
    let buffers = (0..4u32)
        .map(|binding| BufferInit {
            name: format!("b{binding}"),
            kind: BufferKind::Storage,
            binding,
            elem: ElemType::scalar(Scalar::U32),
            bytes: (0..32).flat_map(|_| rng.next_u64().to_le_bytes()).collect(),
        })
        .collect();
    ExecPlan {
        case: "fuzz-target".into(),
        programs: vec![program],
        buffers,
        uniforms: vec![],
        steps: vec![Step::Dispatch { groups: [1, 1, 1] }],
        timeout_ms: 1000,
        skip_steps_if_built: false,
    }
}

fn source(language: Language, text: String, words: Vec<u32>) -> ProgramSource {
    ProgramSource {
        language,
        stage: Stage::Compute,
        text,
        words,
        origin: "fuzz-input".into(),
        first_line: 1,
        entry: "main".into(),
        specialization: vec![],
    }
}

/// Lets panics raised inside the named crates (by the source path of the panic location)
/// unwind to the front end's `catch_unwind`, which reports them as parse errors, instead of
/// aborting as libFuzzer's hook does; every other panic still aborts. For `glsl_front`:
/// glsl-lang's preprocessor panics on some malformed inputs, which the GLSL front end catches
/// (reference/src/front/glsl/parse.rs), so the target hunts panics of conform's own code. Call
/// from a target's `init:` block, after libfuzzer-sys has installed its hook.
pub fn tolerate_caught_panics_from(crates: &'static [&'static str]) {
    let abort = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let inside = info
            .location()
            .is_some_and(|l| crates.iter().any(|c| l.file().contains(c)));
        if !inside {
            abort(info)
        }
    }));
}

/// Checks `program`, and runs it when it builds (one schedule, a small step budget).
fn check_and_run(program: ProgramSource) {
    if conform_reference::check(&program).is_ok() {
        let opts = conform_reference::Options::new(1, 20_000);
        let _ = conform_reference::run(&one_group_plan(program), &opts);
    }
}

/// Target `nvasm_front` / `glsl_front`: the input as program text.
pub fn text_front_end(language: Language, data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    if let Ok(text) = std::str::from_utf8(data) {
        check_and_run(source(language, text.to_string(), vec![]));
    }
}

/// Target `spirv_front`: the input as a SPIR-V binary when its first byte is even, else as
/// SPIR-V assembly text (through SPIRV-Tools' assembler, as the case loader does).
pub fn spirv_front_end(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    if rest.len() > MAX_INPUT {
        return;
    }
    let words = if first % 2 == 0 {
        rest.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    } else {
        let Ok(text) = std::str::from_utf8(rest) else {
            return;
        };
        match conform_reference::assemble_spirv(text) {
            Ok(w) => w,
            Err(_) => return,
        }
    };
    check_and_run(source(Language::Spirv, String::new(), words));
}

/// Target `case_loader`: the input as a YAML case file.
pub fn case_loader(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = conform_case::parse(std::path::Path::new("fuzz-input.yaml"), text, None);
    }
}

/// The backends of the `differential` target: the reference, then `driver` through a worker
/// process of the `conform` binary `exe` (a fuzz target binary cannot be its own worker).
pub fn differential_targets(
    exe: &std::path::Path,
    driver: conform_glrunner::Driver,
) -> Vec<Target> {
    let mut targets = vec![Target {
        name: "reference".into(),
        is_reference: true,
        exec: Box::new(ReferenceTarget::default()),
    }];
    for (d, info) in conform_run::drivers::probe(exe, Some(&[driver])) {
        let backend = match info {
            Ok(info) => conform_run::drivers::DriverBackend {
                info,
                exe: exe.to_path_buf(),
                install: None,
            },
            Err(why) => panic!("{d} is not usable here ({why}); the differential target needs it"),
        };
        match backend.make() {
            Ok(exec) => targets.push(Target {
                name: d.name(),
                is_reference: false,
                exec,
            }),
            Err(why) => panic!("cannot start a {d} worker: {why}"),
        }
    }
    targets
}

/// The `conform` binary whose workers the `differential` target runs: `CONFORM_EXE`, else
/// `conform` beside the target's own executable (where a farm copies both), else
/// `../target/release/conform` (cargo-fuzz run from `fuzz/` of a checkout).
pub fn conform_exe() -> std::path::PathBuf {
    if let Some(exe) = std::env::var_os("CONFORM_EXE") {
        return exe.into();
    }
    std::env::current_exe()
        .ok()
        .and_then(|me| Some(me.parent()?.join("conform")))
        .filter(|beside| beside.is_file())
        .unwrap_or_else(|| "../target/release/conform".into())
}

/// Divergence keys to ignore in the `differential` target: libFuzzer stops at the first
/// crash, so a known driver bug would otherwise end every run. From `CONFORM_FUZZ_KNOWN`
/// (comma-separated regexes over `Divergence::key`, e.g. `exchange-shared-barrier` for
/// Mesa 22.3's barrier bug), and from `known.txt` beside the target's executable (or the file
/// `CONFORM_FUZZ_KNOWN_FILE` names): `conform fuzz --known`'s format, `backend,fuzz/<lang>-
/// <feature>-<aspect>,status` per line, `#` comments, each line the key it names.
pub fn known_divergences() -> Vec<regex::Regex> {
    let mut known: Vec<regex::Regex> = std::env::var("CONFORM_FUZZ_KNOWN")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            regex::Regex::new(s.trim())
                .unwrap_or_else(|e| panic!("CONFORM_FUZZ_KNOWN: bad regex `{s}`: {e}"))
        })
        .collect();
    let file = std::env::var_os("CONFORM_FUZZ_KNOWN_FILE")
        .map(std::path::PathBuf::from)
        .or_else(|| Some(std::env::current_exe().ok()?.parent()?.join("known.txt")));
    if let Some(text) = file.and_then(|f| std::fs::read_to_string(f).ok()) {
        known.extend(known_file_keys(&text));
    }
    known
}

/// The divergence keys of a known list in `conform fuzz --known`'s format, as exact regexes.
pub fn known_file_keys(text: &str) -> Vec<regex::Regex> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split(',');
            let backend = parts.next()?.trim();
            let name = parts.next()?.trim().strip_prefix("fuzz/")?;
            regex::Regex::new(&format!(
                "^{}$",
                regex::escape(&format!("{backend}-{name}"))
            ))
            .ok()
        })
        .collect()
}

/// Target `differential`: the input as generator bytes for a GLSL program, run on every
/// target; a divergence from the model (other than the `known` ones) panics with the case, so
/// libFuzzer keeps the input.
pub fn differential(data: &[u8], targets: &mut [Target], known: &[regex::Regex]) {
    let Ok(p) = gen::program(&mut Unstructured::new(data), Lang::Glsl) else {
        return;
    };
    let (case, text) = match load_case(&p, "fuzz-differential", "a libFuzzer input") {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    for t in targets.iter_mut() {
        if let Some(ds) = observe(&p, &case, t) {
            if let Some(d) = ds
                .iter()
                .find(|d| !known.iter().any(|k| k.is_match(&d.key())))
            {
                panic!(
                    "{} diverges from the model: {} {}\n{}\n{}",
                    t.name,
                    d.key(),
                    d.message,
                    d.details.join("\n"),
                    text.yaml
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_take_garbage_and_real_programs() {
        let garbage: &[&[u8]] = &[
            b"",
            b"\xff\xfe",
            b"!!NVcp5.0\nGROUP_SIZE 1;\nEND\n",
            b"spec: [X]\n{",
        ];
        for g in garbage {
            text_front_end(Language::Nvasm, g);
            text_front_end(Language::Glsl, g);
            spirv_front_end(g);
            case_loader(g);
        }
        // A program that builds goes through the executor.
        let nv = "!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nGROUP_SIZE 4;\nSTORAGE b[] = { program.storage[0] };\nTEMP r;\nLDB.U32 r.x, b[4];\nADD.U r.x, r.x, 1;\nSTB.U32 r.x, b[0];\nEND\n";
        let p = source(Language::Nvasm, nv.into(), vec![]);
        assert_eq!(conform_reference::check(&p), Ok(()));
        let o = conform_reference::run(&one_group_plan(p), &Default::default()).unwrap();
        let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        let before =
            &one_group_plan(source(Language::Nvasm, String::new(), vec![])).buffers[0].bytes;
        assert_eq!(word(&o.buffers[0], 0), word(before, 1).wrapping_add(1));
        text_front_end(Language::Nvasm, nv.as_bytes());
    }

    #[test]
    fn differential_on_the_reference_alone_passes_generated_programs() {
        let mut targets = vec![Target {
            name: "reference".into(),
            is_reference: true,
            exec: Box::new(ReferenceTarget::default()),
        }];
        for i in 0..20 {
            differential(&crate::input_bytes(3, i), &mut targets, &[]);
        }
    }
}

#[cfg(test)]
mod known_file_tests {
    /// A known list in `--known`'s format names the keys the `differential` target skips.
    #[test]
    fn a_known_file_names_divergence_keys() {
        let keys = super::known_file_keys(
            "# the barrier bug\nllvmpipe,fuzz/glsl-exchange-shared-barrier-memory,fail\nnot a line\n",
        );
        assert_eq!(keys.len(), 1);
        assert!(keys[0].is_match("llvmpipe-glsl-exchange-shared-barrier-memory"));
        assert!(!keys[0].is_match("zink-glsl-exchange-shared-barrier-memory"));
    }
}
