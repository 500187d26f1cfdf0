//! Unit tests: storage images in SPIR-V (OpImageRead, OpImageWrite, OpImageQuerySize,
//! OpImageTexelPointer with atomics) on images of the plan, and the image kinds refused by name.

use super::{buf, module, plan, run_ok, src, u32s};
use crate::run;
use crate::Options;
use conform_plan::{BufferInit, BufferKind, ImageDesc, ImageDim, ImageFormat, Refusal, Scalar};

const IMAGE_TYPES: &str = "%v2int = OpTypeVector %int 2\n%v4u = OpTypeVector %uint 4\n\
    %timg = OpTypeImage %uint 2D 0 0 0 2 R32ui\n%pimg = OpTypePointer UniformConstant %timg\n\
    %img = OpVariable %pimg UniformConstant\n%ptex = OpTypePointer Image %uint\n\
    %i0 = OpConstant %int 0\n%i1 = OpConstant %int 1\n%i2 = OpConstant %int 2\n\
    %c00 = OpConstantComposite %v2int %i0 %i0\n%c10 = OpConstantComposite %v2int %i1 %i0\n\
    %c20 = OpConstantComposite %v2int %i2 %i0\n%u7 = OpConstant %uint 7\n\
    %v7 = OpConstantComposite %v4u %u7 %u7 %u7 %u7\n";

fn image(unit: u32, words: &[u32]) -> BufferInit {
    BufferInit {
        name: "img".into(),
        kind: BufferKind::Image(ImageDesc {
            dim: ImageDim::D2,
            format: ImageFormat::R32ui,
            size: [words.len() as u32, 1, 1],
            range: None,
        }),
        binding: unit,
        elem: ImageFormat::R32ui.texel(),
        bytes: conform_plan::bytes::from_u32s(words),
    }
}

#[test]
fn read_write_size_and_texel_atomics() {
    let text = module(
        1,
        "OpDecorate %img DescriptorSet 0\nOpDecorate %img Binding 3\n",
        IMAGE_TYPES,
        "%i = OpLoad %timg %img\n%t = OpImageRead %v4u %i %c10\n%x = OpCompositeExtract %uint %t 0\n\
         %w = OpCompositeExtract %uint %t 3\n%out = OpImageRead %v4u %i %c20\n%o = OpCompositeExtract %uint %out 0\n\
         %p = OpImageTexelPointer %ptex %img %c00 %u0\n%old = OpAtomicIAdd %uint %p %u1 %u0 %x\n\
         %old2 = OpAtomicUMax %uint %p %u1 %u0 %u2\n\
         OpImageWrite %i %c10 %v7\nOpImageWrite %i %c20 %v7\n\
         %sz = OpImageQuerySize %v2int %i\n%sx = OpCompositeExtract %int %sz 0\n%sxu = OpBitcast %uint %sx\n\
         %a0 = OpAccessChain %pu %bu %u0 %u0\nOpStore %a0 %old\n\
         %a1 = OpAccessChain %pu %bu %u0 %u1\nOpStore %a1 %old2\n\
         %a2 = OpAccessChain %pu %bu %u0 %u2\nOpStore %a2 %sxu\n\
         %a3 = OpAccessChain %pu %bu %u0 %u10\nOpStore %a3 %w\n\
         %a4 = OpAccessChain %pu %bu %u0 %u10\nOpStore %a4 %o\nOpReturn",
    )
    .replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability ImageQuery\n");
    let out = run_ok(&plan(
        src(&text),
        vec![buf("u", 0, Scalar::U32, vec![0; 44]), image(3, &[5, 9])],
        1,
    ));
    let u = u32s(&out[0]);
    // The add returns 5 and stores 5 + 9; the max returns 14 and keeps it; the size is 2;
    // texel (2, 0) does not exist: it reads 0 (stored last at word 10) and the write does
    // nothing.
    assert_eq!(&u[..3], [5, 14, 2]);
    assert_eq!(u[10], 0);
    assert_eq!(u32s(&out[1]), [14, 7]);
}

#[test]
fn images_the_plan_lacks_are_refused_by_name() {
    // A cube image: no cube textures in the plan.
    let types = IMAGE_TYPES.replace(
        "OpTypeImage %uint 2D 0 0 0 2 R32ui",
        "OpTypeImage %uint Cube 0 0 0 2 R32ui",
    )
        + "%v3int = OpTypeVector %int 3\n%c000 = OpConstantComposite %v3int %i0 %i0 %i0\n";
    let text = module(
        1,
        "OpDecorate %img DescriptorSet 0\nOpDecorate %img Binding 0\n",
        &types,
        "%i = OpLoad %timg %img\n%t = OpImageRead %v4u %i %c000\nOpReturn",
    );
    match run(&plan(src(&text), vec![], 1), &Options::default()) {
        Err(Refusal::Unsupported(m)) => {
            assert!(m.contains("OpImageRead is not supported"), "{m}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_dim_buffer_image_is_a_buffer_texture_of_its_texel_count() {
    let types = "%v4u = OpTypeVector %uint 4\n\
        %timg = OpTypeImage %uint Buffer 0 0 0 2 R32ui\n%pimg = OpTypePointer UniformConstant %timg\n\
        %img = OpVariable %pimg UniformConstant\n%ptex = OpTypePointer Image %uint\n\
        %i1 = OpConstant %int 1\n%i3 = OpConstant %int 3\n%u7 = OpConstant %uint 7\n\
        %v7 = OpConstantComposite %v4u %u7 %u7 %u7 %u7\n";
    let text = module(
        1,
        "OpDecorate %img DescriptorSet 0\nOpDecorate %img Binding 1\n",
        types,
        "%i = OpLoad %timg %img\n%t = OpImageRead %v4u %i %i1\n%x = OpCompositeExtract %uint %t 0\n\
         %out = OpImageRead %v4u %i %i3\n%o = OpCompositeExtract %uint %out 0\n\
         %p = OpImageTexelPointer %ptex %img %i1 %u0\n%old = OpAtomicIAdd %uint %p %u1 %u0 %u2\n\
         OpImageWrite %i %i3 %v7\nOpImageWrite %i %i1 %v7\n\
         %sz = OpImageQuerySize %int %i\n%sxu = OpBitcast %uint %sz\n\
         %a0 = OpAccessChain %pu %bu %u0 %u0\nOpStore %a0 %x\n\
         %a1 = OpAccessChain %pu %bu %u0 %u1\nOpStore %a1 %old\n\
         %a2 = OpAccessChain %pu %bu %u0 %u2\nOpStore %a2 %sxu\n\
         %a3 = OpAccessChain %pu %bu %u0 %u10\nOpStore %a3 %o\nOpReturn",
    )
    .replace(
        "OpCapability Shader\n",
        "OpCapability Shader\nOpCapability ImageBuffer\nOpCapability ImageQuery\n",
    );
    let mut texels = image(1, &[4, 5, 6]);
    texels.kind = BufferKind::Image(ImageDesc {
        dim: ImageDim::Buffer,
        format: ImageFormat::R32ui,
        size: [3, 1, 1],
        range: None,
    });
    let out = run_ok(&plan(
        src(&text),
        vec![buf("u", 0, Scalar::U32, vec![9; 44]), texels],
        1,
    ));
    let u = u32s(&out[0]);
    // Texel 1 reads 5; the add returns it; the size is the texel count, 3; texel 3 is past
    // the end: it reads 0 and the write to it does nothing.
    assert_eq!(&u[..3], [5, 5, 3]);
    assert_eq!(u[10], 0);
    assert_eq!(u32s(&out[1]), [4, 7, 6]);
}
