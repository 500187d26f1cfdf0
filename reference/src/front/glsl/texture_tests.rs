//! Unit tests: samplers and texelFetch in GLSL (GLSL 4.60 §4.1.7.1, §8.9.2): declarations and
//! their compile errors, texelFetch run on the plan's textures (levels, units set by binding
//! and by glUniform1i, undefined fetches flagged), and the filtered lookups refused by name.

use super::tests::{build_fail, plan_of, prog, run_plan};
use conform_plan::bytes::{from_u32s, read_u32s};
use conform_plan::{
    BufferInit, BufferKind, BuildStage, ElemType, Filter, FlagKind, ImageDim, ImageFormat, Refusal,
    SamplerState, Scalar, Stage, TextureDesc,
};

fn texture(unit: u32, size: [u32; 3], levels: u32, words: &[u32]) -> BufferInit {
    BufferInit {
        name: format!("tex{unit}"),
        kind: BufferKind::Texture(TextureDesc {
            dim: ImageDim::D2,
            format: ImageFormat::R32ui,
            size,
            levels,
            sampler: SamplerState {
                min_filter: Filter::NearestMipmapNearest,
                mag_filter: Filter::Nearest,
                ..SamplerState::default()
            },
        }),
        binding: unit,
        elem: ImageFormat::R32ui.texel(),
        bytes: from_u32s(words),
    }
}

fn out(n: usize) -> BufferInit {
    BufferInit {
        name: "out".into(),
        kind: BufferKind::Storage,
        binding: 0,
        elem: ElemType::scalar(Scalar::U32),
        bytes: from_u32s(&vec![0xdead; n]),
    }
}

const HEAD: &str = "#version 430\nlayout(local_size_x = 1) in;\n\
                    layout(std430, binding = 0) buffer Out { uvec4 v[4]; };\n";

fn compile_error(src: &str) -> String {
    let (stage, log) = build_fail(vec![prog(Stage::Compute, src)]);
    assert_eq!(stage, BuildStage::Compile, "{log}");
    log
}

#[test]
fn texel_fetch_reads_each_level_and_flags_what_is_undefined() {
    let src = format!(
        "{HEAD}layout(binding = 5) uniform usampler2D t;\n\
         void main() {{ v[0] = texelFetch(t, ivec2(1, 1), 0);\n\
         v[1] = texelFetch(t, ivec2(0, 0), 1);\n\
         v[2] = texelFetch(t, ivec2(2, 0), 0); }}"
    );
    let plan = plan_of(
        vec![prog(Stage::Compute, &src)],
        vec![out(16), texture(5, [2, 2, 1], 2, &[1, 2, 3, 4, 9])],
        [1, 1, 1],
    );
    let o = run_plan(&plan).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(o.build.failed_at, None, "{}", o.build.log);
    assert_eq!(read_u32s(&o.buffers[0])[..8], [4, 0, 0, 1, 9, 0, 0, 1]);
    // x = 2 is outside the 2x2 level: undefined, flagged where the value is stored.
    assert!(
        o.flags.iter().any(|f| f.kind == FlagKind::UndefinedValue
            && f.message.contains("texelFetch outside")),
        "{:?}",
        o.flags
    );
}

#[test]
fn compile_errors_and_refusals() {
    let log = compile_error(&format!(
        "{HEAD}layout(r32ui, binding = 0) uniform uimage2D img;\n\
         void main() {{ v[0] = texelFetch(img, ivec2(0), 0); }}"
    ));
    assert!(log.contains("not a sampler"), "{log}");
    let log = compile_error(&format!(
        "{HEAD}uniform usampler2D t;\n\
         void main() {{ v[0] = imageLoad(t, ivec2(0)); }}"
    ));
    assert!(log.contains("is a sampler"), "{log}");
    let log = compile_error(&format!(
        "{HEAD}layout(r32ui) uniform usampler2D t;\nvoid main() {{}}"
    ));
    assert!(log.contains("apply to images only"), "{log}");
    let log = compile_error(&format!(
        "{HEAD}uniform usampler2D t;\nvoid main() {{ v[0] = texelFetch(t, ivec2(0), 0.0); }}"
    ));
    assert!(log.contains("int level of detail"), "{log}");
    // Integer samplers arrive with GLSL 1.30.
    compile_error("#version 120\nuniform isampler2D t;\nvoid main() {}\n");
    let src = format!(
        "{HEAD}uniform sampler2D t;\nvoid main() {{ v[0] = uvec4(textureLod(t, vec2(0), 0.0)); }}"
    );
    let plan = plan_of(vec![prog(Stage::Compute, &src)], vec![out(16)], [1, 1, 1]);
    match run_plan(&plan) {
        Err(Refusal::Unsupported(m)) => assert!(m.contains("'textureLod'"), "{m}"),
        other => panic!("{other:?}"),
    }
}
