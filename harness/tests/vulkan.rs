//! The Vulkan runner end to end on lavapipe (`--backend vk:lavapipe`): SPIR-V cases of the
//! corpus run on it, the SPV_EXT_shader_atomic_float_add ones as advertised (no `--force`),
//! and what only GL has is a skip that names it. Skipped, with a message, on a machine
//! without a Vulkan loader or lavapipe (as the zink tests are without zink).

mod common;
use common::{conform, text};

/// Whether `conform drivers` finds a lavapipe device.
fn have_lavapipe() -> bool {
    let o = conform(&["drivers"]);
    let t = text(&o);
    let ok = t
        .lines()
        .any(|l| l.starts_with("vk:lavapipe: ") && !l.contains("absent"));
    if !ok {
        let why = t
            .lines()
            .find(|l| l.starts_with("vk:lavapipe"))
            .unwrap_or("no vk:lavapipe line");
        eprintln!("skipping: no lavapipe on this machine ({why})");
    }
    ok
}

fn statuses(dir: &std::path::Path) -> Vec<(String, String, String)> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .expect("journal written")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .filter(|l| l["backend"] == "vk:lavapipe")
        .map(|l| {
            (
                l["case"].as_str().unwrap_or("").to_string(),
                l["status"].as_str().unwrap_or("").to_string(),
                l["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn spirv_cases_run_on_lavapipe_and_gl_only_ones_skip_by_name() {
    if !have_lavapipe() {
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR").to_string() + "/../cases";
    let cases = [
        "spv_ext_shader_atomic_float_add/f32-buffer-contention-ones.yaml",
        "spv_ext_shader_atomic_float_add/f32-workgroup-contention.yaml",
        "arb_gl_spirv/array-length.yaml",
        "arb_gl_spirv/extended-arithmetic.yaml",
        // A storage image (VkImage, upload, read-back, out-of-bounds accesses), a buffer
        // image (a storage texel buffer) and an array of blocks (one binding, two elements).
        "arb_gl_spirv/storage-image.yaml",
        "arb_gl_spirv/storage-image-buffer.yaml",
        "arb_gl_spirv/block-arrays.yaml",
        // Invalid usage in Vulkan: an image variable of another format than the image.
        "arb_gl_spirv/undefined-image-format-mismatch.yaml",
        // GL only: an atomic counter buffer, and a GL query step.
        "arb_gl_spirv/default-uniforms-by-location.yaml",
        "spv_ext_shader_atomic_float_add/gl-advertised-module-runs.yaml",
    ];
    let out = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec!["run".into()];
    args.extend(cases.iter().map(|c| format!("{root}/{c}")));
    args.extend([
        "--backend".into(),
        "vk:lavapipe".into(),
        "--out".into(),
        out.path().display().to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = conform(&args);
    let got = statuses(out.path());
    let status = |case: &str| {
        got.iter()
            .find(|(c, _, _)| c == case)
            .unwrap_or_else(|| panic!("{case} not in the journal: {}", text(&o)))
    };
    for case in [
        "spv_ext_shader_atomic_float_add/f32-buffer-contention-ones",
        "spv_ext_shader_atomic_float_add/f32-workgroup-contention",
        "arb_gl_spirv/array-length",
        "arb_gl_spirv/extended-arithmetic",
        "arb_gl_spirv/storage-image",
        "arb_gl_spirv/storage-image-buffer",
        "arb_gl_spirv/block-arrays",
    ] {
        assert_eq!(
            status(case).1,
            "pass",
            "{case}: {:?}\n{}",
            status(case),
            text(&o)
        );
    }
    let (_, s, m) = status("arb_gl_spirv/undefined-image-format-mismatch");
    assert_eq!(s, "skip");
    assert!(m.contains("a format mismatch"), "{m}");
    let (_, s, m) = status("arb_gl_spirv/default-uniforms-by-location");
    assert_eq!(s, "skip");
    assert!(m.contains("atomic counter buffers (GL only)"), "{m}");
    let (_, s, m) = status("spv_ext_shader_atomic_float_add/gl-advertised-module-runs");
    assert_eq!(s, "skip");
    assert!(m.contains("a GL API step"), "{m}");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}
