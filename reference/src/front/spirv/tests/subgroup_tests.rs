//! Unit tests: the non-uniform group instructions (KHR_shader_subgroup's SPIR-V 1.3 subset)
//! run at every subgroup size, what the IR cannot model is refused by name, and the GL
//! environment's subgroup rules reject at validation.

use super::{broken, buf, module, plan, src, u32s};
use crate::front::spirv::{assemble_spirv, validate};
use crate::{run, Options};
use conform_plan::{Refusal, Scalar};

/// `module` with the subgroup capabilities and the SubgroupLocalInvocationId built-in `%sid`.
fn sg_module(local_size: u32, types: &str, body: &str) -> String {
    module(
        local_size,
        "OpDecorate %sid BuiltIn SubgroupLocalInvocationId\n",
        &format!("%sid = OpVariable %ptr_in_u Input\n%sg = OpConstant %uint 3\n{types}"),
        body,
    )
    .replacen(
        "OpCapability Shader\n",
        "OpCapability Shader\nOpCapability GroupNonUniform\nOpCapability GroupNonUniformArithmetic\n\
         OpCapability GroupNonUniformShuffle\nOpCapability GroupNonUniformQuad\n\
         OpCapability GroupNonUniformClustered\nOpCapability Int64\n",
        1,
    )
    .replacen("%lidx %wgid", "%lidx %wgid %sid", 1)
}

/// Stores `%r` (a uint computed by `expr` from `%id`, the subgroup id, and `%i`, the local
/// index) at word `%i`, in a group of 64, at subgroup size `size`.
fn per_invocation(expr: &str, size: u32) -> Result<Vec<u32>, Refusal> {
    let body = format!(
        "%i = OpLoad %uint %lidx\n%id = OpLoad %uint %sid\n{expr}\n\
         %p = OpAccessChain %pu %bu %u0 %i\nOpStore %p %r\nOpReturn"
    );
    let text = sg_module(64, "", &body);
    let p = plan(src(&text), vec![buf("u", 0, Scalar::U32, vec![0; 256])], 1);
    let opts = Options {
        subgroup_size: size,
        ..Options::default()
    };
    let out = run(&p, &opts)?;
    assert_eq!(out.build.failed_at, None, "{}", out.build.log);
    Ok(u32s(&out.buffers[0]))
}

#[test]
fn a_subgroup_module_is_spirv_1_3_and_its_scans_follow_the_size() {
    let text = sg_module(1, "", "OpReturn");
    let words = assemble_spirv(&text).unwrap();
    assert_eq!(words[1], 0x0001_0300, "KHR_shader_subgroup's SPIR-V 1.3");
    assert_eq!(validate(&words, Some(&text)), Ok(()));
    for size in [4, 16, 32, 64] {
        let scan = per_invocation(
            "%r = OpGroupNonUniformIAdd %uint %sg ExclusiveScan %u1",
            size,
        )
        .unwrap();
        let want: Vec<u32> = (0..64).map(|i| i % size).collect();
        assert_eq!(scan, want, "size {size}");
        let xor =
            per_invocation("%r = OpGroupNonUniformShuffleXor %uint %sg %i %u1", size).unwrap();
        let want: Vec<u32> = (0..64).map(|i| i ^ 1).collect();
        assert_eq!(xor, want, "size {size}");
        // SMin compares signed whatever the type: min of 0 - id is 1 - size.
        let smin = per_invocation(
            "%n = OpISub %uint %u0 %id\n%r = OpGroupNonUniformSMin %uint %sg Reduce %n",
            size,
        )
        .unwrap();
        assert!(
            smin.iter().all(|&v| v == 1u32.wrapping_sub(size)),
            "{smin:?}"
        );
    }
}

#[test]
fn clustered_and_quad_operations_are_refused_by_name() {
    let clustered = per_invocation(
        "%r = OpGroupNonUniformIAdd %uint %sg ClusteredReduce %u1 %u2",
        32,
    );
    match clustered {
        Err(Refusal::Unsupported(m)) => assert!(m.contains("ClusteredReduce"), "{m}"),
        other => panic!("{other:?}"),
    }
    let quad = per_invocation("%r = OpGroupNonUniformQuadSwap %uint %sg %id %u0", 32);
    match quad {
        Err(Refusal::Unsupported(m)) => assert!(m.contains("GroupNonUniformQuad"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_gl_environment_rules_of_subgroups() {
    let workgroup = sg_module(
        1,
        "",
        "%r = OpGroupNonUniformIAdd %uint %u2 Reduce %u1\nOpReturn",
    );
    assert_eq!(broken(&workgroup), ["GLSPV-EXECUTION-SCOPE"]);
    let wide = sg_module(
        1,
        "%ulong = OpTypeInt 64 0\n%l1 = OpConstant %ulong 1\n",
        "%r = OpGroupNonUniformIAdd %ulong %sg Reduce %l1\nOpReturn",
    );
    assert_eq!(broken(&wide), ["GLSPV-SUBGROUP-RESULT-TYPE"]);
    // A SPIR-V 1.3 feature unrelated to subgroups (the assembler, for SPIR-V 1.0, spells no
    // 1.1 instruction such as OpModuleProcessed).
    let device_group = sg_module(1, "", "OpReturn").replacen(
        "OpCapability Shader\n",
        "OpCapability Shader\nOpCapability DeviceGroup\n",
        1,
    );
    assert_eq!(broken(&device_group), ["GLSPV-SUBGROUP-SPIRV-SUBSET"]);
    let double = sg_module(
        1,
        "",
        "%r = OpGroupNonUniformFAdd %double %sg Reduce %d1\nOpReturn",
    );
    assert_eq!(
        broken(&double),
        Vec::<String>::new(),
        "doubles with Float64"
    );
}
