//! Tests of the SPIR-V default uniforms: slot layout and locations, ACTIVE_UNIFORMS, refusals.

use crate::front::{build, BuildFailure};
use crate::ir::{Program, UniformScalar};
use crate::Options;
use conform_plan::{Language, ProgramSource, Stage};

const HEAD: &str = "OpCapability Shader\nOpCapability AtomicStorage\nOpCapability Float64\n\
    OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
    OpExecutionMode %main LocalSize 1 1 1\n";
const TYPES: &str = "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n\
    %int = OpTypeInt 32 1\n%float = OpTypeFloat 32\n%double = OpTypeFloat 64\n%bool = OpTypeBool\n\
    %v3float = OpTypeVector %float 3\n%mat2v3 = OpTypeMatrix %v3float 2\n\
    %uint_1 = OpConstant %uint 1\n%uint_2 = OpConstant %uint 2\n%uint_3 = OpConstant %uint 3\n";

/// Builds a module of `decos`, `globals` (after the common types) and `body` (main's code).
fn lower(decos: &str, globals: &str, body: &str) -> Result<Program, BuildFailure> {
    let text = format!(
        "{HEAD}{decos}{TYPES}{globals}%main = OpFunction %void None %fn\n%entry = OpLabel\n{body}\
         OpReturn\nOpFunctionEnd\n"
    );
    let p = ProgramSource::from_text(Language::SpirvAsm, Stage::Compute, &text, "test");
    build(&[p], None, &Options::default()).map(|b| b.program)
}

#[test]
fn slots_take_consecutive_locations_and_natural_offsets() {
    let prog = lower(
        "OpDecorate %a Location 2\nOpDecorate %s Location 7\nOpDecorate %m Location 20\n\
         OpDecorate %d Location 21\n",
        "%arr3 = OpTypeArray %int %uint_3\n%S = OpTypeStruct %bool %arr3\n%arrS = OpTypeArray %S %uint_2\n\
         %pa = OpTypePointer UniformConstant %arr3\n%ps = OpTypePointer UniformConstant %arrS\n\
         %pm = OpTypePointer UniformConstant %mat2v3\n%pd = OpTypePointer UniformConstant %double\n\
         %a = OpVariable %pa UniformConstant\n%s = OpVariable %ps UniformConstant\n\
         %m = OpVariable %pm UniformConstant\n%d = OpVariable %pd UniformConstant\n",
        "%x = OpLoad %arr3 %a\n%y = OpLoad %arrS %s\n%z = OpLoad %mat2v3 %m\n%w = OpLoad %double %d\n",
    )
    .unwrap();
    let got: Vec<_> = prog
        .uniforms
        .iter()
        .map(|u| {
            (
                u.location,
                u.ty.scalar,
                u.ty.columns,
                u.ty.rows,
                u.array,
                u.offset,
                u.stride,
            )
        })
        .collect();
    use UniformScalar::*;
    assert_eq!(
        got,
        vec![
            // int a[3]: locations 2..4, 4-byte stride
            (Some(2), I32, 1, 1, Some(3), 0, 4),
            // S s[2] (bool b; int c[3]) at 12: s[0].b 7, s[0].c 8..10, s[1].b 11, s[1].c 12..14
            (Some(7), Bool, 1, 1, None, 12, 4),
            (Some(8), I32, 1, 1, Some(3), 16, 4),
            (Some(11), Bool, 1, 1, None, 28, 4),
            (Some(12), I32, 1, 1, Some(3), 32, 4),
            // mat2x3 at 44: two columns of three floats, 12 bytes apart
            (Some(20), F32, 2, 3, None, 44, 24),
            // double at 72 (8-aligned)
            (Some(21), F64, 1, 1, None, 72, 8),
        ]
    );
    assert_eq!(prog.uniforms[5].column_stride, 12);
    // 4 uniforms of basic types or arrays of them plus 4 structure members: 7 slots.
    assert_eq!(prog.active_uniforms, Some(7));
}

#[test]
fn active_uniforms_count_counters_and_need_every_uniform_referenced() {
    let globals = "%arr2 = OpTypeArray %uint %uint_2\n%arr32 = OpTypeArray %arr2 %uint_3\n\
         %pc = OpTypePointer AtomicCounter %uint\n%paa = OpTypePointer AtomicCounter %arr32\n\
         %pu = OpTypePointer UniformConstant %uint\n\
         %c = OpVariable %pc AtomicCounter\n%aa = OpVariable %paa AtomicCounter\n\
         %u = OpVariable %pu UniformConstant\n";
    let decos = "OpDecorate %c Binding 0\nOpDecorate %aa Binding 1\nOpDecorate %u Location 0\n";
    let all = "%x = OpLoad %uint %u\n%y = OpAtomicIIncrement %uint %c %uint_1 %uint_1\n\
         %p = OpAccessChain %pc %aa %uint_1 %uint_1\n%z = OpAtomicIIncrement %uint %p %uint_1 %uint_1\n";
    // c: 1; aa (uint[3][2]): one per inner-most array, 3; u: 1.
    assert_eq!(lower(decos, globals, all).unwrap().active_uniforms, Some(5));
    let without_u = "%y = OpAtomicIIncrement %uint %c %uint_1 %uint_1\n\
         %p = OpAccessChain %pc %aa %uint_1 %uint_1\n%z = OpAtomicIIncrement %uint %p %uint_1 %uint_1\n";
    assert_eq!(
        lower(decos, globals, without_u).unwrap().active_uniforms,
        None
    );
}

#[test]
fn uniform_blocks_leave_active_uniforms_unanswered() {
    let prog = lower(
        "OpDecorate %B Block\nOpMemberDecorate %B 0 Offset 0\nOpDecorate %b Binding 0\n\
         OpDecorate %b DescriptorSet 0\n",
        "%B = OpTypeStruct %uint\n%pb = OpTypePointer Uniform %B\n%pbu = OpTypePointer Uniform %uint\n\
         %b = OpVariable %pb Uniform\n%uint_0 = OpConstant %uint 0\n",
        "%p = OpAccessChain %pbu %b %uint_0\n%x = OpLoad %uint %p\n",
    )
    .unwrap();
    assert_eq!(prog.active_uniforms, None);
}

#[test]
fn initializers_set_the_initial_value_and_aggregates_are_refused() {
    let prog = lower(
        "OpDecorate %u Location 0\nOpDecorate %v Location 1\n",
        "%v3u = OpTypeVector %uint 3\n%cv = OpConstantComposite %v3u %uint_1 %uint_2 %uint_3\n\
         %pu = OpTypePointer UniformConstant %uint\n%pv = OpTypePointer UniformConstant %v3u\n\
         %u = OpVariable %pu UniformConstant %uint_3\n%v = OpVariable %pv UniformConstant %cv\n",
        "%x = OpLoad %uint %u\n%y = OpLoad %v3u %v\n",
    )
    .unwrap();
    // u at 0 = 3; v (uvec3, 4-aligned) at 4 = (1, 2, 3).
    let words: Vec<u32> = prog
        .uniform_init
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [3, 1, 2, 3]);
    let r = lower(
        "OpDecorate %a Location 0\n",
        "%arr = OpTypeArray %uint %uint_2\n%ca = OpConstantComposite %arr %uint_1 %uint_2\n\
         %pa = OpTypePointer UniformConstant %arr\n%a = OpVariable %pa UniformConstant %ca\n",
        "%x = OpLoad %arr %a\n",
    );
    match r {
        Err(BuildFailure::Unsupported { reason, at }) => {
            let text = format!("{reason} {}", at.message);
            assert!(text.contains("initializer"), "{text}");
        }
        Err(other) => panic!("expected a refusal, got {other:?}"),
        Ok(_) => panic!("expected a refusal, got a program"),
    }
}
