//! Instruction families through whole programs: each test stores results with STB and
//! compares words.

mod common;
use common::*;
use conform_plan::FlagKind;

/// Runs `body` (which may use TEMPs r, s, t and stores to `out`) in one invocation and
/// returns the first `n` words of `out`.
fn one(body: &str, n: usize) -> Vec<u32> {
    one_with(body, n, vec![])
}

fn one_with(body: &str, n: usize, extra: Vec<conform_plan::BufferInit>) -> Vec<u32> {
    let text = format!(
        "!!NVcp5.0 OPTION NV_shader_storage_buffer;\nGROUP_SIZE 1;\nSTORAGE out[] = {{ program.storage[0] }};\nTEMP r, s, t;\n{body}END\n"
    );
    let mut bufs = vec![storage(0, &vec![0xCCCC_CCCC; n])];
    bufs.extend(extra);
    let o = run(&plan(&text, bufs, vec![dispatch(1, 1, 1)]));
    words(&o, 0)
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn float_arithmetic_and_swizzles() {
    let w = one(
        "MOV r, {1.5, -2, 3, 4};
ADD s, r, r.wzyx;
STB.F32X4 s, out[0];
MUL s, -r, |r.y|;
STB.F32X4 s, out[16];
MAD s, r, 2, 0.25;
STB.F32X4 s, out[32];
MIN s.xy, r, 0;
MAX s.zw, r.x, 3.5;
STB.F32X4 s, out[48];
",
        16,
    );
    assert_eq!(&w[0..4], &[f(5.5), f(1.0), f(1.0), f(5.5)]);
    assert_eq!(&w[4..8], &[f(-3.0), f(4.0), f(-6.0), f(-8.0)]);
    assert_eq!(&w[8..12], &[f(3.25), f(-3.75), f(6.25), f(8.25)]);
    assert_eq!(&w[12..16], &[f(0.0), f(-2.0), f(3.5), f(3.5)]);
}

#[test]
fn scalar_ops_replicate_and_dot_products() {
    let w = one(
        "MOV r, {4, 2, 0.5, 8};
RCP s, r.y;
STB.F32X4 s, out[0];
RSQ s.x, r.x;
EX2 s.y, r.w;
LG2 s.z, r.w;
POW s.w, r.y, r.w;
STB.F32X4 s, out[16];
DP3 s, r, r;
DP4 t, r, {1, 1, 1, 1};
MOV s.y, t.x;
STB.F32X4 s, out[32];
",
        12,
    );
    assert_eq!(&w[0..4], &[f(0.5); 4]);
    assert_eq!(&w[4..8], &[f(0.5), f(256.0), f(3.0), f(256.0)]);
    assert_eq!(w[8], f(20.25));
    assert_eq!(w[9], f(14.5));
}

#[test]
fn set_on_and_cmp_per_type() {
    let w = one(
        "MOV r, {1, 2, 3, 4};
SLT s, r, 2.5;
STB.F32X4 s, out[0];
MOV.S r, {-1, 2, 3, 0};
SGE.S s, r, 2;
STB.U32X4 s, out[16];
SNE.U s, r, 3;
STB.U32X4 s, out[32];
CMP.S s, r, 10, 20;
STB.U32X4 s, out[48];
SFL.U s, r, r;
STR.U t, r, r;
MOV.U s.y, t.x;
STB.U32X2 s, out[64];
",
        18,
    );
    assert_eq!(&w[0..4], &[f(1.0), f(1.0), 0, 0]);
    assert_eq!(&w[4..8], &[0, u32::MAX, u32::MAX, 0]);
    assert_eq!(&w[8..12], &[u32::MAX, u32::MAX, 0, u32::MAX]);
    assert_eq!(&w[12..16], &[10, 20, 20, 20]);
    assert_eq!(&w[16..18], &[0, u32::MAX]);
}

#[test]
fn integer_ops_and_documented_undefined_values() {
    let w = one(
        "MOV.S r, {7, -7, 5, 0};
DIV.S s, r, 2;
STB.U32X4 s, out[0];
MOD.S s, r, 3;
STB.U32X4 s, out[16];
DIV.S s, r, 0;
STB.U32X4 s, out[32];
DIV.U s, r, 0;
MOD.U t, r, 0;
MOV.U s.y, t.x;
STB.U32X2 s, out[48];
SHL.U s, 1, 33;
SHR.S t, r.y, 1;
MOV.U s.y, t.x;
SHR.U t, r.y, 28;
MOV.U s.z, t.x;
NOT.U s.w, 0;
STB.U32X4 s, out[64];
AND.U s, 0xF0F0, 0xFF00;
OR.U t, 0xF0, 0x0F;
XOR.U s.y, 0xFF, 0x0F;
MOV.U s.z, t.x;
MUL.U.HI s.w, 0x80000000, 4;
STB.U32X4 s, out[80];
",
        24,
    );
    assert_eq!(&w[0..4], &[3, (-3i32) as u32, 2, 0]);
    assert_eq!(
        &w[4..8],
        &[1, (-1i32) as u32, 2, 0],
        "MOD of negatives: sign of the dividend"
    );
    assert_eq!(
        &w[8..12],
        &[u32::MAX, 1, u32::MAX, u32::MAX],
        "signed x/0: -1 (x>=0), 1 (x<0)"
    );
    assert_eq!(
        &w[12..14],
        &[u32::MAX, 7],
        "unsigned x/0: all ones; x mod 0: x"
    );
    assert_eq!(
        &w[16..20],
        &[2, (-4i32) as u32, 0xF, u32::MAX],
        "shift counts modulo 32"
    );
    assert_eq!(&w[20..24], &[0xF000, 0xF0, 0xFF, 2]);
}

#[test]
fn bitfield_ops() {
    let w = one(
        "MOV.U r, {0xABCD1234, 0x80000000, 0, 0xF0};
BFE.U s, {8, 4}, r;
STB.U32X4 s, out[0];
BFE.S s.x, {4, 28}, r.x;
BFI.U s.y, {8, 16}, 0xEE, r.x;
BTC.U s.z, r.x;
BFR.U s.w, 1;
STB.U32X4 s, out[16];
BTFM.U s, r;
STB.U32X4 s, out[32];
BTFL.U s, r;
STB.U32X4 s, out[48];
",
        16,
    );
    assert_eq!(&w[0..4], &[0x23, 0, 0, 0xF]);
    assert_eq!(
        &w[4..8],
        &[
            (-6i32) as u32,
            0xABEE_1234,
            0xABCD1234u32.count_ones(),
            0x8000_0000
        ]
    );
    assert_eq!(&w[8..12], &[31, 31, u32::MAX, 7]);
    assert_eq!(&w[12..16], &[2, 31, u32::MAX, 4]);
}

#[test]
fn conversions() {
    let w = one(
        "MOV r, {2.5, -2.5, 3.7, -0.5};
TRUNC.S s, r;
STB.U32X4 s, out[0];
FLR.S s, r;
STB.U32X4 s, out[16];
ROUND.S s, r;
STB.U32X4 s, out[32];
CEIL s, r;
STB.F32X4 s, out[48];
MOV.S t, {-3, 7, 0, 1};
I2F.S s, t;
STB.F32X4 s, out[64];
CVT.S32.F32 s, r;
CVT.FLR.S32.F32 t, r;
MOV.U s.w, t.y;
STB.U32X4 s, out[80];
",
        24,
    );
    assert_eq!(&w[0..4], &[2, (-2i32) as u32, 3, 0]);
    assert_eq!(&w[4..8], &[2, (-3i32) as u32, 3, (-1i32) as u32]);
    assert_eq!(
        &w[8..12],
        &[2, (-2i32) as u32, 4, 0],
        "ROUND: nearest, ties to even"
    );
    assert_eq!(&w[12..16], &[f(3.0), f(-2.0), f(4.0), f(-0.0)]);
    assert_eq!(&w[16..20], &[f(-3.0), f(7.0), f(0.0), f(1.0)]);
    assert_eq!(&w[20..24], &[2, (-2i32) as u32, 4, (-3i32) as u32]);
}

#[test]
fn sixty_four_bit_and_pack() {
    let w = one(
        "LONG TEMP d;
MOV.U r, {0xFFFFFFFF, 1, 5, 0};
PK64.U d, r;
ADD.U64 d.x, d.x, 1;
UP64.U t, d;
STB.U32X4 t, out[0];
MOV.U r, {0, 0, 0, 0};
STB.U64 d.x, out[16];
",
        6,
    );
    assert_eq!(&w[0..4], &[0, 2, 5, 0]);
    assert_eq!(&w[4..6], &[0, 2]);
}

#[test]
fn condition_codes_and_flow() {
    let w = one(
        "MOV.S.CC r, {-1, 0, 5, 0};
MOV.U s, 0;
MOV.U s (GT), 7;
STB.U32X4 s, out[0];
MOV.U s, 0;
MOV.U s (LE.wzyx), 9;
STB.U32X4 s, out[16];
MOV.U t, 0;
IF LT.x;
  MOV.U t.x, 1;
ELSE;
  MOV.U t.x, 2;
ENDIF;
IF GT.y;
  MOV.U t.y, 1;
ELSE;
  MOV.U t.y, 2;
ENDIF;
IF GT;
  MOV.U t.z, 3;
ENDIF;
STB.U32X4 t, out[32];
",
        12,
    );
    assert_eq!(&w[0..4], &[0, 0, 7, 0]);
    assert_eq!(&w[4..8], &[9, 0, 9, 9]);
    assert_eq!(
        &w[8..12],
        &[1, 2, 3, 0],
        "IF GT (xyzw) passes when any component passes"
    );
}

#[test]
fn rep_brk_cont_cal_ret() {
    let w = one(
        "MOV.U r, 0;
REP 5;
  ADD.U r.x, r.x, 1;
ENDREP;
REP 2.9;
  ADD.U r.y, r.y, 1;
ENDREP;
REP -1;
  ADD.U r.z, r.z, 1;
ENDREP;
MOV.U s, 0;
REP.U 10;
  ADD.U.CC s.x, s.x, 1;
  SEQ.U.CC t.x, s.x, 3;
  CONT (NE.x);
  SGE.U.CC t.x, s.x, 6;
  BRK (NE.x);
  ADD.U s.y, s.y, 1;
ENDREP;
CAL sub;
STB.U32X4 r, out[0];
STB.U32X2 s, out[16];
RET;
sub:
  MOV.U r.w, 42;
  CAL sub2;
  RET;
sub2:
  ADD.U r.w, r.w, 1;
  RET;
",
        6,
    );
    assert_eq!(&w[0..4], &[5, 2, 0, 43]);
    assert_eq!(
        &w[4..6],
        &[6, 4],
        "iterations 1,2,4,5 add; 3 continues; 6 breaks"
    );
}

#[test]
fn parameters_local_env_buffer_and_arrays() {
    use conform_plan::BufferKind;
    let local = buf(
        "loc",
        2,
        BufferKind::ProgramLocal,
        &[1, 2, 3, 4, 5, 6, 7, 8],
    );
    let env = buf("env", 0, BufferKind::ProgramEnv, &[9, 10, 11, 12]);
    let pb = buf(
        "pb",
        1,
        BufferKind::ParameterBuffer,
        &[100, 101, 102, 103, 104, 105, 106, 107],
    );
    // BUFFER and BUFFER4 may not share a binding point (NV_gpu_program4 2.X.3.6).
    let pb2 = buf(
        "pb2",
        2,
        BufferKind::ParameterBuffer,
        &[100, 101, 102, 103, 104, 105, 106, 107],
    );
    let w = one_with(
        "PARAM a = program.local[3];
PARAM arr[] = { program.local[2..3], {20, 21, 22, 23} };
BUFFER4 b4[] = { program.buffer[1] };
BUFFER b1[] = { program.buffer[2] };
STB.U32X4 a, out[0];
STB.U32X4 program.env[0], out[16];
MOV.U r.x, 2;
MOV.U s, arr[r.x];
STB.U32X4 s, out[32];
MOV.U r.x, 0;
MOV.U s, arr[r.x];
STB.U32X4 s, out[48];
MOV.U r.x, 1;
MOV.U s, b4[r.x];
STB.U32X4 s, out[64];
MOV.U s, b1[r.x + 5];
STB.U32X4 s, out[80];
",
        24,
        vec![local, env, pb, pb2],
    );
    assert_eq!(&w[0..4], &[5, 6, 7, 8]);
    assert_eq!(&w[4..8], &[9, 10, 11, 12]);
    assert_eq!(&w[8..12], &[f(20.0), f(21.0), f(22.0), f(23.0)]);
    assert_eq!(&w[12..16], &[1, 2, 3, 4]);
    assert_eq!(&w[16..20], &[104, 105, 106, 107]);
    assert_eq!(&w[20..24], &[106; 4]);
}

#[test]
fn storage_modifiers_sign_and_zero_extend() {
    let w = one(
        "MOV.U r, 0x8180FF7F;
STB.U32 r.x, out[0];
LDB.U8 s, out[1];
LDB.S8 t, out[1];
MOV.U s.y, t.x;
LDB.S16 t, out[2];
MOV.U s.z, t.x;
STB.U32X4 s, out[16];
MOV r, -1.5;
STB.F16 r.x, out[32];
LDB.F16 s, out[32];
STB.F32X4 s, out[48];
",
        16,
    );
    assert_eq!(&w[4..8], &[0xFF, u32::MAX, 0xFFFF_8180, 0]);
    assert_eq!(w[8] & 0xFFFF, 0xBE00, "-1.5 as f16");
    assert_eq!(
        &w[12..16],
        &[f(-1.5), 0, 0, 0],
        "scalar loads fill y, z, w with 0"
    );
}

#[test]
fn out_of_bounds_storage_is_flagged_not_a_crash() {
    let text = "!!NVcp5.0 OPTION NV_shader_storage_buffer;\nGROUP_SIZE 1;\nSTORAGE out[] = { program.storage[0] };\nTEMP r;\nMOV.U r, 1000;\nSTB.U32 r.x, out[r.x];\nLDB.U32 r, out[4000];\nSTB.U32 r.x, out[0];\nEND\n";
    let o = run(&plan(text, vec![storage(0, &[7])], vec![dispatch(1, 1, 1)]));
    assert_eq!(words(&o, 0), vec![0]);
    assert!(has_flag(&o, FlagKind::OutOfBounds));
}

#[test]
fn main_label_and_implicit_return_before_labels() {
    // Reaching a label returns from the subroutine; execution starts at "main".
    let w = one(
        "sub:
  ADD.U r.x, r.x, 1;
main:
  MOV.U r.x, 5;
  CAL sub;
  CAL sub2;
  STB.U32 r.x, out[0];
  RET;
  MOV.U r.x, 99;
sub2:
  MUL.U r.x, r.x, 10;
  RET;
",
        1,
    );
    assert_eq!(w, vec![60]);
    // reaching END ends the program, even inside a subroutine ("until ... the end of the
    // program text is reached")
    let w = one(
        "CAL s;
STB.U32 r.x, out[0];
RET;
s:
MOV.U r.x, 1;
",
        1,
    );
    assert_eq!(w, vec![0xCCCC_CCCC]);
}

#[test]
fn storagelen_is_zero_for_assembly_programs() {
    let w = one("PARAM len = program.storagelen[0];\nMOV.U r, 7;\nADD.U r, r, len;\nADD.U r, r, program.storagelen[3];\nSTB.U32 r.x, out[0];\n", 1);
    assert_eq!(w, vec![7]);
}

/// NV_gpu_program4 SAD: abs(op0 - op1) + op2, the first two operands read as the data type,
/// the third and the result unsigned; MUL.S24/U24: the low 32 bits of the product of 24-bit
/// operands (hand-derived from the section text).
#[test]
fn sad_and_24_bit_multiplies() {
    let w = one(
        "MOV.S r, {-5, 7, 0x7FFFFFFF, 3};
MOV.S s, {3, 7, -2147483648, 10};
SAD.S t, r, s, {1, 0, 0, 100};
STB.U32X4 t, out[0];
SAD.U t, r, s, 0;
STB.U32X4 t, out[16];
SAD.U.CC t.x, 0xFFFFFFFF, 0, 1;
MOV.U t.y, 0;
MOV.U t.y (CF.x), 1;
STB.U32X2 t, out[32];
MOV.S r, {-8388608, 8388607, -3, 16777215};
MUL.S24 t.x, r.x, 2;
MUL.S24 t.y, r.y, r.y;
MUL.S24 t.z, r.z, 5;
MUL.U24 t.w, r.w, r.w;
STB.U32X4 t, out[48];
",
        16,
    );
    // |-5 - 3| + 1 = 9; |7 - 7| = 0; |(2^31 - 1) - (-2^31)| = 2^32 - 1; |3 - 10| + 100 = 107.
    assert_eq!(&w[0..4], &[9, 0, 0xFFFF_FFFF, 107]);
    // Unsigned readings: 0xFFFFFFFB - 3, 0, 0x80000000 - 0x7FFFFFFF, 10 - 3.
    assert_eq!(&w[4..8], &[0xFFFF_FFF8, 0, 1, 7]);
    // SAD's add sets CF like ADD: (2^32 - 1) + 1 carries.
    assert_eq!(&w[8..10], &[0, 1]);
    // -2^23 * 2 = -2^24; (2^23 - 1)^2 = 2^46 - 2^24 + 1, low 32 bits 0xFF000001; -15;
    // (2^24 - 1)^2 = 2^48 - 2^25 + 1, low 32 bits 0xFE000001.
    assert_eq!(
        &w[12..16],
        &[
            (-(1i32 << 24)) as u32,
            0xFF00_0001,
            (-15i32) as u32,
            0xFE00_0001
        ]
    );
}

/// MUL.S24 and MUL.U24 imply their data type: another data type modifier, or HI, is an error.
#[test]
fn mul24_takes_no_data_type_modifier() {
    for bad in [
        "MUL.S24.S t.x, r.x, r.y;",
        "MUL.U.U24 t.x, r.x, r.y;",
        "MUL.S24.HI t.x, r.x, r.y;",
        "ADD.S24 t.x, r.x, r.y;",
    ] {
        let text = format!(
            "!!NVcp5.0 OPTION NV_shader_storage_buffer;\nGROUP_SIZE 1;\nSTORAGE out[] = {{ program.storage[0] }};\nTEMP r, s, t;\n{bad}\nEND\n"
        );
        let log = load_error(&text);
        assert!(
            log.contains("S24") || log.contains("modifier"),
            "`{bad}`: {log}"
        );
    }
}

#[test]
fn carry_and_overflow_flags_of_add_and_sub() {
    let w = one(
        "MOV.U r, {0xFFFFFFFF, 0x7FFFFFFF, 1, 5};
ADD.U.CC s, r, {1, 1, 1, 5};
MOV.U t, 0;
MOV.U t (CF), 1;
STB.U32X4 t, out[0];
MOV.U t, 0;
MOV.U t (OF), 1;
STB.U32X4 t, out[16];
SUB.S.CC s, r, {-1, 1, 2, 5};
MOV.U t, 0;
MOV.U t (CF), 1;
STB.U32X4 t, out[32];
ADD.S.CC r, r, -r;
MOV.U t, 0;
MOV.U t (NCF), 1;
MOV.U t.w (AB), 2;
STB.U32X4 t, out[48];
",
        16,
    );
    assert_eq!(&w[0..4], &[1, 0, 0, 0], "carry out of 0xFFFFFFFF + 1 only");
    assert_eq!(
        &w[4..8],
        &[0, 1, 0, 0],
        "signed overflow of 0x7FFFFFFF + 1 only"
    );
    assert_eq!(
        &w[8..12],
        &[1, 1, 0, 1],
        "subtract: carry set when a >= b (unsigned)"
    );
    // ADD r, -r is the subtract r - r: carry set (r >= r), zero: AB false
    assert_eq!(&w[12..16], &[0, 0, 0, 0]);
}

#[test]
fn temp_arrays_with_relative_addressing() {
    let w = one(
        "TEMP a[4];
UINT TEMP sp;
MOV.U sp, 0;
MOV.U r, {1, 2, 3, 4};
REP 4;
  MOV.U a[sp.x], r;
  ADD.U r, r, 10;
  ADD.U sp.x, sp.x, 1;
ENDREP;
MOV.U a[2].y, 99;
MOV.U s, a[1];
STB.U32X4 s, out[0];
MOV.U sp.x, 1;
ADD.U s, a[sp.x + 1], a[3].x;
STB.U32X4 s, out[16];
ADD.U.CC a[0].x, a[0].x, 0xFFFFFFFF;
MOV.U t, a[0];
STB.U32X4 t, out[32];
",
        12,
    );
    assert_eq!(&w[0..4], &[11, 12, 13, 14]);
    assert_eq!(&w[4..8], &[21 + 31, 99 + 31, 23 + 31, 24 + 31]);
    assert_eq!(&w[8..12], &[0, 2, 3, 4]);
}

/// The outcome of `body` with TEMPs `temps`, which then stores `s` to out[0..4].
fn stored_s(temps: &str, body: &str) -> conform_plan::Outcome {
    let text = format!("!!NVcp5.0 OPTION NV_shader_storage_buffer;\nGROUP_SIZE 1;\nSTORAGE out[] = {{ program.storage[0] }};\nTEMP {temps};\n{body}STB.U32X4 s, out[0];\nEND\n");
    run(&plan(
        &text,
        vec![storage(0, &[0; 4])],
        vec![dispatch(1, 1, 1)],
    ))
}

#[test]
fn temp_array_components_never_written_are_flagged_where_used() {
    let flagged = |body: &str| {
        stored_s("a[2], s", body)
            .flags
            .iter()
            .any(|f| f.kind == FlagKind::UndefinedValue && f.message.contains("read before"))
    };
    // NV_gpu_program4 section 2.X.3.4: temporaries, arrays included, start undefined.
    assert!(flagged("MOV.U a[0], 5;\nMOV.U s, a[1];\n"));
    assert!(flagged("MOV.U a[0].x, 5;\nMOV.U s, a[0];\n"));
    assert!(!flagged(
        "MOV.U a[0].x, 5;\nMOV.U s, 0;\nMOV.U s.x, a[0].x;\n"
    ));
    assert!(!flagged("MOV.U a[1], {1, 2, 3, 4};\nMOV.U s, a[1];\n"));
}

#[test]
fn undefined_values_are_flagged_only_for_written_lanes() {
    let flagged = |body: &str| {
        let body = format!("MOV.U r, {{1, 2, 0, 4}};\n{body}");
        has_flag(&stored_s("r, s", &body), FlagKind::UndefinedValue)
    };
    assert!(flagged("DIV.U s, r, r.z;\n"));
    assert!(!flagged("DIV.U s, r, r.x;\n"));
    assert!(flagged("MOD.U s, r, 0;\n"));
    assert!(flagged("SHL.U s, r, 32;\n"));
    assert!(!flagged("SHL.U s, r, 31;\n"));
    assert!(flagged("MOV s, 3e10;\nTRUNC.S s, s;\n"));
    assert!(!flagged("MOV s, -3.5;\nTRUNC.S s, s;\n"));
    // a lane that is computed but not written does not count
    assert!(!flagged(
        "MOV.U s, 0;\nADD.U s.x, r.x, 0;\nBFE.U s.w, r, r;\nMOV.U r.z, 1;\nDIV.U s.xy, r.y, r.w;\n"
    ));
}

#[test]
fn sixty_four_bit_literals_keep_precision() {
    let w = one("LONG TEMP d;\nMOV.F64 d, {0.1, -2};\nSTB.F64X2 d, out[0];\nMOV.S64 d.x, -3;\nSTB.S64 d.x, out[16];\n", 6);
    let f = |lo: u32, hi: u32| f64::from_bits(u64::from(lo) | (u64::from(hi) << 32));
    assert_eq!(f(w[0], w[1]), 0.1);
    assert_eq!(f(w[2], w[3]), -2.0);
    assert_eq!(u64::from(w[4]) | (u64::from(w[5]) << 32), (-3i64) as u64);
}

#[test]
fn float_literals_are_rounded_once() {
    // 1.00000005960464477539062500000001 lies just above the midpoint between two floats:
    // rounding through f64 first would land on the midpoint and round to even (1.0).
    let w = one("MOV r, 1.00000005960464477539062500000001;\nMOV s, 16777217;\nMOV r.y, s.x;\nSTB.F32X2 r, out[0];\n", 2);
    assert_eq!(w[0], 0x3f80_0001);
    assert_eq!(f32::from_bits(w[1]), 16777216.0);
}

#[test]
fn pk64_replicates_its_two_results() {
    let w = one(
        "LONG TEMP d;\nMOV.U r, {1, 2, 3, 4};\nPK64.U d, r;\nSTB.U64X4 d, out[0];\n",
        8,
    );
    assert_eq!(w, vec![1, 2, 3, 4, 1, 2, 3, 4]);
}

/// The results NV_gpu_program4 and NV_gpu_program5 leave undefined are flagged where stored
/// (reference/undefined.yaml): MOD with a negative first operand or a second operand <= 0,
/// LG2 and RSQ of x <= 0, BFE/BFI past the width or at an offset equal to it, DIV by zero,
/// shifts by the width or more; the same instructions on defined operands are not.
#[test]
fn undefined_results_of_the_instructions_are_flagged() {
    let flagged = |body: &str| -> Option<String> {
        let text = format!(
            "!!NVcp5.0 OPTION NV_shader_storage_buffer;\nGROUP_SIZE 1;\nSTORAGE out[] = {{ program.storage[0] }};\nTEMP r, s, t;\n{body}END\n"
        );
        let o = run(&plan(
            &text,
            vec![storage(0, &[0; 4])],
            vec![dispatch(1, 1, 1)],
        ));
        o.flags
            .iter()
            .find(|f| f.kind == FlagKind::UndefinedValue)
            .map(|f| f.message.clone())
    };
    let rows: &[(&str, &str, &str)] = &[
        // (undefined, the rule the flag names, defined)
        (
            "MOV.S r, {-7, 2, 0, 0}; MOD.S s.x, r.x, r.y; STB.S32 s.x, out[0];",
            "MOD with a negative first operand",
            "MOV.S r, {7, 2, 0, 0}; MOD.S s.x, r.x, r.y; STB.S32 s.x, out[0];",
        ),
        (
            "MOV.S r, {7, -2, 0, 0}; MOD s.x, r.x, r.y; STB.S32 s.x, out[0];",
            "MOD with a negative first operand",
            "MOV.S r, {0, 3, 0, 0}; MOD s.x, r.x, r.y; STB.S32 s.x, out[0];",
        ),
        (
            "MOV.F r, {0, 8, 0, 0}; LG2 s.x, r.x; STB.F32 s.x, out[0];",
            "logarithm of x <= 0",
            "MOV.F r, {0, 8, 0, 0}; LG2 s.x, r.y; STB.F32 s.x, out[0];",
        ),
        (
            "MOV.F r, {-4, 4, 0, 0}; RSQ s.x, r.x; STB.F32 s.x, out[0];",
            "inverse square root of x <= 0",
            "MOV.F r, {-4, 4, 0, 0}; RSQ s.x, |r.x|; STB.F32 s.x, out[0];",
        ),
        (
            "MOV.U r, {4, 30, 0, 0}; BFE.U s.x, r, 255; STB.U32 s.x, out[0];",
            "bitfield extract or insert",
            "MOV.U r, {4, 28, 0, 0}; BFE.U s.x, r, 255; STB.U32 s.x, out[0];",
        ),
        (
            "MOV.U r, {0, 32, 0, 0}; BFE.U s.x, r, 255; STB.U32 s.x, out[0];",
            "bitfield extract or insert",
            "MOV.U r, {0, 31, 0, 0}; BFE.U s.x, r, 255; STB.U32 s.x, out[0];",
        ),
        (
            "MOV.S r, {-1, 0, 0, 0}; BFI.U s.x, r, 1, 0; STB.U32 s.x, out[0];",
            "bitfield extract or insert",
            "MOV.S r, {1, 0, 0, 0}; BFI.U s.x, r, 1, 0; STB.U32 s.x, out[0];",
        ),
        (
            "MOV.U r, {7, 0, 0, 0}; DIV.U s.x, r.x, r.y; STB.U32 s.x, out[0];",
            "division or remainder by zero",
            "MOV.U r, {7, 1, 0, 0}; DIV.U s.x, r.x, r.y; STB.U32 s.x, out[0];",
        ),
        (
            "MOV.U r, {7, 32, 0, 0}; SHL.U s.x, r.x, r.y; STB.U32 s.x, out[0];",
            "shift count",
            "MOV.U r, {7, 31, 0, 0}; SHL.U s.x, r.x, r.y; STB.U32 s.x, out[0];",
        ),
        (
            "MOV.S r, {7, -1, 0, 0}; SHR.S s.x, r.x, r.y; STB.S32 s.x, out[0];",
            "shift count",
            "MOV.S r, {-7, 1, 0, 0}; SHR.S s.x, r.x, r.y; STB.S32 s.x, out[0];",
        ),
        (
            "MOV.S r, {8388608, 2, 0, 0}; MUL.S24 s.x, r.x, r.y; STB.S32 s.x, out[0];",
            "MUL.S24 or MUL.U24 with an operand outside",
            "MOV.S r, {-8388608, 2, 0, 0}; MUL.S24 s.x, r.x, r.y; STB.S32 s.x, out[0];",
        ),
        (
            "MOV.U r, {3, 16777216, 0, 0}; MUL.U24 s.x, r.x, r.y; STB.U32 s.x, out[0];",
            "MUL.S24 or MUL.U24 with an operand outside",
            "MOV.U r, {3, 16777215, 0, 0}; MUL.U24 s.x, r.x, r.y; STB.U32 s.x, out[0];",
        ),
    ];
    for (bad, rule, good) in rows {
        let f = flagged(bad).unwrap_or_else(|| panic!("`{bad}` is not flagged"));
        assert!(f.contains(rule), "`{bad}`: {f}");
        assert_eq!(flagged(good), None, "`{good}`");
    }
}
