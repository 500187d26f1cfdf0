//! Unit tests: images in GLSL (ARB_shader_image_load_store's GLSL section, GLSL 4.60 §8.12):
//! declarations and their compile errors, and imageLoad/imageStore/imageSize/imageAtomic*
//! run on images of the plan.

use super::tests::{build_fail, plan_of, prog, run_plan};
use conform_plan::bytes::{from_u32s, read_u32s};
use conform_plan::{
    BufferInit, BufferKind, BuildStage, ElemType, FlagKind, ImageDesc, ImageDim, ImageFormat,
    Outcome, Refusal, Scalar, Stage,
};

fn image(
    unit: u32,
    dim: ImageDim,
    format: ImageFormat,
    size: [u32; 3],
    bytes: Vec<u8>,
) -> BufferInit {
    BufferInit {
        name: format!("img{unit}"),
        kind: BufferKind::Image(ImageDesc {
            dim,
            format,
            size,
            range: None,
        }),
        binding: unit,
        elem: format.texel(),
        bytes,
    }
}

fn storage(binding: u32, words: &[u32]) -> BufferInit {
    BufferInit {
        name: format!("b{binding}"),
        kind: BufferKind::Storage,
        binding,
        elem: ElemType::scalar(Scalar::U32),
        bytes: from_u32s(words),
    }
}

fn run(src: &str, buffers: Vec<BufferInit>, groups: [u32; 3]) -> Outcome {
    let plan = plan_of(vec![prog(Stage::Compute, src)], buffers, groups);
    let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    out
}

fn compile_error(src: &str) -> String {
    let (stage, log) = build_fail(vec![prog(Stage::Compute, src)]);
    assert_eq!(stage, BuildStage::Compile, "{log}");
    log
}

const HEAD: &str = "#version 430\nlayout(local_size_x = 4) in;\n";

#[test]
fn load_store_and_size_on_a_2d_r32ui_image() {
    let src = format!(
        "{HEAD}layout(r32ui, binding = 2) uniform uimage2D img;\n\
         layout(std430, binding = 0) buffer Out {{ uint v[8]; }};\n\
         void main() {{ int i = int(gl_LocalInvocationID.x);\n\
         v[i] = imageLoad(img, ivec2(i - 1, 0)).x;\n\
         imageStore(img, ivec2(i, 1), uvec4(10u + uint(i)));\n\
         ivec2 s = imageSize(img); v[4] = uint(s.x); v[5] = uint(s.y);\n\
         uvec4 w = imageLoad(img, ivec2(0, 0)); v[6] = w.w; v[7] = w.y; }}\n"
    );
    let texels = from_u32s(&[5, 6, 7, 0, 0, 0]);
    let out = run(
        &src,
        vec![
            storage(0, &[9; 8]),
            image(2, ImageDim::D2, ImageFormat::R32ui, [3, 2, 1], texels),
        ],
        [1, 1, 1],
    );
    // x = -1 and x = 3 do not exist: 0; the missing components read (0, 0, 0, 1).
    assert_eq!(read_u32s(&out.buffers[0]), [0, 5, 6, 7, 3, 2, 1, 0]);
    // The store at (3, 1) does nothing.
    assert_eq!(read_u32s(&out.buffers[1]), [5, 6, 7, 10, 11, 12]);
    assert!(out.flags.is_empty(), "{:?}", out.flags);
}

#[test]
fn atomics_return_the_old_value() {
    let src = format!(
        "{HEAD}layout(r32i, binding = 0) uniform iimage1D img;\n\
         layout(std430, binding = 1) buffer Out {{ int v[4]; }};\n\
         void main() {{ int i = int(gl_LocalInvocationID.x);\n\
         v[i] = imageAtomicAdd(img, 0, -1 - i);\n\
         imageAtomicMax(img, 1, i * 10);\n\
         imageAtomicCompSwap(img, 2, 7, 100 + i); }}\n"
    );
    let out = run(
        &src,
        vec![
            image(
                0,
                ImageDim::D1,
                ImageFormat::R32i,
                [3, 1, 1],
                from_u32s(&[0, 15, 7]),
            ),
            storage(1, &[0; 4]),
        ],
        [1, 1, 1],
    );
    let texels: Vec<i32> = read_u32s(&out.buffers[0])
        .iter()
        .map(|&w| w as i32)
        .collect();
    // 0 - 1 - 2 - 3 - 4; max(15, 30); the first CompSwap (of invocation 0, in order) wins.
    assert_eq!(texels, [-10, 30, 100]);
    let olds: Vec<i32> = read_u32s(&out.buffers[1])
        .iter()
        .map(|&w| w as i32)
        .collect();
    assert_eq!(olds, [0, -1, -3, -6]);
}

#[test]
fn unorm_snorm_and_half_convert_as_the_spec_says() {
    let src = format!(
        "{HEAD}layout(rgba8, binding = 0) uniform image2DArray un;\n\
         layout(rgba16f, binding = 1) writeonly uniform image3D half_img;\n\
         layout(std430, binding = 2) buffer Out {{ vec4 loaded; }};\n\
         void main() {{ if (gl_LocalInvocationID.x == 0u) {{\n\
         loaded = imageLoad(un, ivec3(0, 0, 1));\n\
         imageStore(un, ivec3(0, 0, 0), vec4(0.5, -3.0, 7.0, 1.0 / 255.0));\n\
         imageStore(half_img, ivec3(0, 0, 0), vec4(1.0, -2.5, 65504.0, 0.1)); }} }}\n"
    );
    let out = run(
        &src,
        vec![
            image(
                0,
                ImageDim::D2Array,
                ImageFormat::Rgba8,
                [1, 1, 2],
                vec![0, 0, 0, 0, 255, 51, 0, 128],
            ),
            image(1, ImageDim::D3, ImageFormat::Rgba16f, [1, 1, 1], vec![0; 8]),
            storage(2, &[0; 4]),
        ],
        [1, 1, 1],
    );
    // 0.5 * 255 = 127.5: to the even 128; clamped to 0 and 255; 1/255 gives back 1.
    assert_eq!(out.buffers[0][..4], [128, 0, 255, 1]);
    let halves: Vec<u16> = out.buffers[1]
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    // 0.1 is not a half: the nearest one, 0x2e66.
    assert_eq!(halves, [0x3c00, 0xc100, 0x7bff, 0x2e66]);
    let loaded: Vec<f32> = read_u32s(&out.buffers[2])
        .iter()
        .map(|&w| f32::from_bits(w))
        .collect();
    assert_eq!(loaded, [1.0, 0.2, 0.0, 128.0 / 255.0]);
}

#[test]
fn a_format_mismatch_is_flagged() {
    let src = format!(
        "{HEAD}layout(r32f, binding = 0) uniform image2D img;\n\
         void main() {{ imageStore(img, ivec2(0), vec4(1.0)); }}\n"
    );
    let out = run(
        &src,
        vec![image(
            0,
            ImageDim::D2,
            ImageFormat::R32ui,
            [1, 1, 1],
            vec![0; 4],
        )],
        [1, 1, 1],
    );
    assert!(
        out.flags.iter().any(|f| f.kind == FlagKind::UndefinedValue),
        "{:?}",
        out.flags
    );
}

#[test]
fn compile_errors_the_extension_requires() {
    let cases: &[(&str, &str)] = &[
        (
            "layout(r32ui) writeonly uniform uimage2D i;\nvoid main() { imageLoad(i, ivec2(0)); }",
            "writeonly",
        ),
        (
            "layout(r32ui) readonly uniform uimage2D i;\nvoid main() { imageStore(i, ivec2(0), uvec4(0)); }",
            "readonly",
        ),
        (
            "layout(r32ui) readonly uniform uimage2D i;\nvoid main() { imageAtomicAdd(i, ivec2(0), 1u); }",
            "readonly",
        ),
        ("uniform uimage2D i;\nvoid main() {}", "format layout qualifier"),
        ("layout(rgba32f) uniform uimage2D i;\nvoid main() {}", "does not apply to unsigned integer"),
        ("layout(r32i) uniform image2D i;\nvoid main() {}", "does not apply to floating point"),
        ("layout(r32ui, r32i) uniform uimage2D i;\nvoid main() {}", "only one format"),
        (
            "layout(rgba8ui) uniform uimage2D i;\nvoid main() { imageAtomicAdd(i, ivec2(0), 1u); }",
            "only supported on image with format r32i or r32ui",
        ),
        (
            "layout(r32ui) uniform uimage2D i;\nvoid main() { imageLoad(i, uvec2(0)); }",
            "ivec2 coordinates",
        ),
        ("layout(r32f) uniform float f;\nvoid main() {}", "format layout qualifiers apply to images only"),
        ("layout(r32ui) uniform uimage2D i;\nvoid main() { uvec4 v = i; }", "only be the argument of an image function"),
        ("uimage2D i;\nvoid main() {}", "images can only be uniforms"),
        (
            "layout(r32ui) uniform uimage2D i[2];\nvoid main() { imageLoad(i[2], ivec2(0)); }",
            "out of range",
        ),
    ];
    for (body, want) in cases {
        let log = compile_error(&format!("{HEAD}{body}\n"));
        assert!(log.contains(want), "{body}: {log}");
    }
    // Images need GLSL 4.20 or the extension; imageSize GLSL 4.30 or ARB_shader_image_size.
    let old =
        "#version 330\n#extension GL_ARB_compute_shader : require\nlayout(local_size_x = 1) in;\n";
    let log = compile_error(&format!(
        "{old}writeonly uniform image2D i;\nvoid main() {{}}\n"
    ));
    assert!(log.contains("GL_ARB_shader_image_load_store"), "{log}");
    let with = format!("{old}#extension GL_ARB_shader_image_load_store : require\n");
    let log = compile_error(&format!(
        "{with}writeonly uniform image2D i;\nvoid main() {{ imageSize(i); }}\n"
    ));
    assert!(log.contains("GL_ARB_shader_image_size"), "{log}");
}

#[test]
fn image_arrays_take_consecutive_units() {
    let src = format!(
        "{HEAD}layout(r32ui, binding = 1) uniform uimage1D imgs[2];\n\
         void main() {{ int i = int(gl_LocalInvocationID.x);\n\
         imageStore(imgs[i % 2], i / 2, uvec4(i + 1)); imageStore(imgs[i + 5], 0, uvec4(99)); }}\n"
    );
    let out = run(
        &src,
        vec![
            image(1, ImageDim::D1, ImageFormat::R32ui, [2, 1, 1], vec![0; 8]),
            image(2, ImageDim::D1, ImageFormat::R32ui, [2, 1, 1], vec![0; 8]),
        ],
        [1, 1, 1],
    );
    assert_eq!(read_u32s(&out.buffers[0]), [1, 3]);
    assert_eq!(read_u32s(&out.buffers[1]), [2, 4]);
}

#[test]
fn image_types_the_plan_lacks_are_refused_by_name() {
    for ty in ["imageCube", "image2DMS"] {
        let src = format!("{HEAD}layout(r32f) uniform {ty} i;\nvoid main() {{}}\n");
        let plan = plan_of(vec![prog(Stage::Compute, &src)], vec![], [1, 1, 1]);
        match run_plan(&plan) {
            Err(Refusal::Unsupported(m)) => assert!(m.contains("image type"), "{m}"),
            other => panic!("{ty}: {other:?}"),
        }
    }
}

#[test]
fn gl_uniform_1i_moves_an_image_uniform_to_another_unit() {
    use conform_plan::{GlError, Step, UniformSet, UniformTarget, UniformType};
    let src = format!(
        "{HEAD}layout(r32ui, binding = 0) uniform uimage1D img;\n\
         layout(r32ui, binding = 2) uniform uimage1D pair[2];\n\
         void main() {{ int i = int(gl_LocalInvocationID.x);\n\
         imageStore(img, i, uvec4(1u)); imageStore(pair[1], i, uvec4(2u)); }}\n"
    );
    let set = |name: &str, units: &[u32]| {
        Step::Uniform(UniformSet {
            target: UniformTarget::Name(name.into()),
            ty: UniformType::parse("i32").unwrap(),
            bytes: from_u32s(units),
        })
    };
    let mut plan = plan_of(
        vec![prog(Stage::Compute, &src)],
        (0..4)
            .map(|u| image(u, ImageDim::D1, ImageFormat::R32ui, [4, 1, 1], vec![0; 16]))
            .collect(),
        [1, 1, 1],
    );
    let dispatch = plan.steps[0].clone();
    // First at their bindings: img on unit 0, pair[1] on unit 3. Then img on unit 1 and
    // pair[1] on unit 2; a unit past MAX_IMAGE_UNITS is INVALID_VALUE and changes nothing.
    plan.steps = vec![
        dispatch.clone(),
        set("img", &[1]),
        set("pair", &[3, 2]),
        set("pair[1]", &[8]),
        dispatch,
    ];
    let out = run_plan(&plan).unwrap_or_else(|e| panic!("refused: {e:?}"));
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    let errors: Vec<_> = out.steps.iter().map(|s| s.error).collect();
    assert_eq!(errors[3], Some(GlError::InvalidValue));
    assert_eq!(errors[1], Some(GlError::NoError));
    let words: Vec<Vec<u32>> = out.buffers.iter().map(|b| read_u32s(b)).collect();
    assert_eq!(words, [vec![1; 4], vec![1; 4], vec![2; 4], vec![2; 4]]);
}

#[test]
fn essl_images_need_a_precision_and_readonly_or_writeonly() {
    let es = "#version 310 es\nlayout(local_size_x = 1) in;\n";
    let log = compile_error(&format!(
        "{es}layout(r32ui, binding = 0) uniform uimage2D i;\nvoid main() {{}}\n"
    ));
    assert!(log.contains("requires a precision qualifier"), "{log}");
    let log = compile_error(&format!(
        "{es}layout(rgba8ui, binding = 0) uniform highp uimage2D i;\nvoid main() {{}}\n"
    ));
    assert!(log.contains("must be readonly or writeonly"), "{log}");
    let log = compile_error(&format!(
        "{es}layout(rg32ui, binding = 0) writeonly uniform highp uimage2D i;\nvoid main() {{}}\n"
    ));
    assert!(log.contains("not in OpenGL ES"), "{log}");
    // A default precision statement before the declaration is enough; one after it is not.
    let ok = format!(
        "{es}precision highp uimage2D;\nlayout(r32ui, binding = 0) uniform uimage2D i;\n\
         layout(std430, binding = 1) buffer B {{ uint v; }};\nvoid main() {{ v = imageLoad(i, ivec2(0)).x; }}\n"
    );
    let out = run(
        &ok,
        vec![
            image(
                0,
                ImageDim::D2,
                ImageFormat::R32ui,
                [1, 1, 1],
                from_u32s(&[6]),
            ),
            storage(1, &[0]),
        ],
        [1, 1, 1],
    );
    assert_eq!(read_u32s(&out.buffers[1]), [6]);
    let log = compile_error(&format!(
        "{es}layout(r32ui, binding = 0) uniform uimage2D i;\nprecision highp uimage2D;\nvoid main() {{}}\n"
    ));
    assert!(log.contains("requires a precision qualifier"), "{log}");
}

#[test]
fn a_mismatched_load_is_flagged_where_its_value_is_used() {
    let run_with = |body: &str| {
        let src = format!(
            "{HEAD}layout(r32f, binding = 0) readonly uniform image2D img;\n\
             layout(std430, binding = 1) buffer B {{ float v; }};\nvoid main() {{ {body} }}\n"
        );
        run(
            &src,
            vec![
                image(0, ImageDim::D2, ImageFormat::R32ui, [1, 1, 1], vec![0; 4]),
                storage(1, &[0]),
            ],
            [1, 1, 1],
        )
    };
    let unused = run_with("float x = imageLoad(img, ivec2(0)).x; v = 1.0;");
    assert!(unused.flags.is_empty(), "{:?}", unused.flags);
    let used = run_with("v = imageLoad(img, ivec2(0)).x;");
    let flag = used
        .flags
        .iter()
        .find(|f| f.kind == FlagKind::UndefinedValue);
    assert!(
        flag.is_some_and(|f| f.message.contains("format mismatch")),
        "{:?}",
        used.flags
    );
}

#[test]
fn memory_qualifiers_only_on_images_and_buffers() {
    for decl in [
        "coherent uniform uint u;\nvoid main() {}",
        "writeonly shared uint s;\nvoid main() {}",
        "void main() { volatile uint x = 1u; }",
    ] {
        let log = compile_error(&format!("{HEAD}{decl}\n"));
        assert!(log.contains("memory qualifiers"), "{decl}: {log}");
    }
    let fine = format!(
        "{HEAD}layout(std430, binding = 0) coherent buffer B {{ readonly uint a; writeonly uint b; }};\n\
         layout(r32ui, binding = 1) coherent volatile restrict uniform uimage1D i;\n\
         void main() {{ b = a + imageLoad(i, 0).x; }}\n"
    );
    let out = run(
        &fine,
        vec![
            storage(0, &[2, 0]),
            image(
                1,
                ImageDim::D1,
                ImageFormat::R32ui,
                [1, 1, 1],
                from_u32s(&[5]),
            ),
        ],
        [1, 1, 1],
    );
    assert_eq!(read_u32s(&out.buffers[0]), [2, 7]);
}

#[test]
fn a_buffer_image_is_its_texel_count_long() {
    let src = format!(
        "{HEAD}layout(r32i, binding = 1) uniform iimageBuffer img;\n\
         layout(std430, binding = 0) buffer Out {{ int v[6]; }};\n\
         void main() {{ int i = int(gl_LocalInvocationID.x);\n\
         v[i] = imageLoad(img, i + 1).x;\n\
         imageStore(img, i + 2, ivec4(-i));\n\
         if (i == 0) {{ v[4] = imageSize(img); v[5] = imageAtomicAdd(img, 5, 1); }} }}\n"
    );
    let texels = from_u32s(&[10, 11, 12, 13]);
    let out = run(
        &src,
        vec![
            storage(0, &[9; 6]),
            image(1, ImageDim::Buffer, ImageFormat::R32i, [4, 1, 1], texels),
        ],
        [1, 1, 1],
    );
    // Texel 4 is past the end of the 4 texels: loads give 0, stores and atomics do nothing.
    // Invocations 0 and 1 store to texels 2 and 3 after (program order) every load of
    // their own; invocation 1's load of texel 2 races invocation 0's store, so only the
    // loads of texels 1 and 4 are checked.
    let v = read_u32s(&out.buffers[0]);
    assert_eq!([v[0], v[3], v[4], v[5]], [11, 0, 4, 0]);
    assert_eq!(read_u32s(&out.buffers[1]), [10, 11, 0, (-1i32) as u32]);
}

#[test]
fn essl_has_buffer_images_from_3_20() {
    let body = "layout(local_size_x = 1) in;\n\
        layout(r32f, binding = 0) writeonly highp uniform imageBuffer img;\n\
        void main() { imageStore(img, 0, vec4(1.0)); }\n";
    let log = compile_error(&format!("#version 310 es\n{body}"));
    assert!(log.contains("buffer images need #version 320 es"), "{log}");
    let src = format!("#version 320 es\n{body}");
    let texels = from_u32s(&[0]);
    let out = run(
        &src,
        vec![image(
            0,
            ImageDim::Buffer,
            ImageFormat::R32f,
            [1, 1, 1],
            texels,
        )],
        [1, 1, 1],
    );
    assert_eq!(read_u32s(&out.buffers[0]), [1f32.to_bits()]);
}
