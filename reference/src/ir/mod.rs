//! The reference IR: one executable form for NV assembly, GLSL and SPIR-V programs.
//!
//! # Shape
//! A [`Program`] is a flat list of [`Inst`] (`code`) over one register file of virtual
//! registers ([`Reg`]). Every register holds four 64-bit component slots (`[u64; 4]`); a
//! component of an `N`-bit type holds its bit pattern zero-extended to 64 bits (an `s32` of -1
//! is `0x0000_0000_ffff_ffff`, an `f32` is its IEEE bits, a `bool` is 0 or 1). Instructions name
//! the type they operate on ([`Ty`]); registers themselves are untyped, as in NV assembly.
//!
//! Sources ([`Src`]) carry a swizzle; destinations ([`Dst`]) carry a write mask. Negation and
//! absolute value are separate instructions ([`UnOp::Neg`], [`UnOp::Abs`]) emitted by the front
//! end into scratch registers. Constants are registers preloaded from `Program::reg_init`, so
//! there is no immediate operand form: a front end allocates a register per literal.
//!
//! Functions are pc ranges of the same `code`: [`Inst::Call`] pushes a return pc and jumps;
//! [`Inst::Return`] pops (with an empty call stack it ends the invocation). Registers are global
//! to the program (NV assembly TEMPs are; GLSL/SPIR-V lowering allocates distinct registers per
//! function and passes arguments in registers; recursion is not supported by those languages).
//!
//! # Structured control flow (invariants a front end must keep)
//! - `If { else_pc }` ... [`Inst::Else`] `{ end_pc }` ... [`Inst::EndIf`], or `If` ... `EndIf`
//!   without `Else`. `else_pc` is the pc just after the `Else` (or of the `EndIf` when there is
//!   none); `Else::end_pc` is the pc of the matching `EndIf`. Properly nested.
//! - `Loop { count, end_pc }` ... `EndLoop { begin_pc }`: `end_pc` is the pc of the `EndLoop`,
//!   `begin_pc` the pc of the `Loop`. With `count`, the body runs `count` times (the count is
//!   read once, as a signed 32-bit integer from component x; <= 0 runs zero times, NV `REP`);
//!   without, until a `Break`. `Break` and `Continue` act on the innermost loop of the current
//!   function invocation and must be inside a loop. A `Return` inside loops discards them.
//! - Every pc a control instruction names is inside `code`; [`Program::validate`] checks all of
//!   this, and the executor relies on it (a front end runs it before handing the program over).
//! - `ControlBarrier` may appear anywhere; executing it in divergent control flow is flagged at
//!   run time, not rejected.
//!
//! # Memory
//! Addresses are byte offsets (u32, from component x of the address source) into a
//! [`Space`]. Loads widen per [`MemTy`]: with `widen`, 8/16-bit integers are sign/zero
//! extended to 32 bits and `f16` is converted to `f32`; without, values keep their width.
//! Out-of-bounds accesses are defined by the executor (loads return 0, stores are dropped, and
//! a flag is raised) so no program can make it panic. Plain (default-block) uniforms are read
//! from [`Space::DefaultUniform`] at the offsets `Program::uniforms` gives them.
//!
//! # For front-end authors
//! Build code with [`Builder`] (fresh registers, constants, instruction helpers, structured
//! control flow with its pc fix-ups, or plain `push`), wrap it with
//! [`Program::from_builder`], set the other fields (shared/private sizes, uniforms), then
//! [`Program::compute_uses`] and [`Program::validate`], and hand it to `crate::run_ir`. Lower
//! GLSL `a * b + c` to `Bin Mul` + `Bin Add` (two roundings) and `fma()` to [`Inst::Mad`] (one);
//! GLSL `barrier()` to [`Inst::ControlBarrier`], `memoryBarrier*()` to [`Inst::MemoryBarrier`];
//! `shuffle*NV` to [`Inst::ShuffleGlsl`]. The NV-only instructions ([`Inst::SetCc`],
//! [`Inst::SetCcAdd`], [`Inst::TestCc`], [`Inst::ShuffleAsm`], [`Inst::Pack64`],
//! [`Inst::Unpack64`]) are not needed by the other languages.

mod builder;
mod domain;
pub use domain::norm_range;
pub mod fmt;
pub mod image;
pub mod validate;

pub use builder::Builder;
pub use image::{ImageInst, ImageOp, ImageVar};

/// A virtual register: index into the register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u32);

/// Scalar kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Unsigned integer.
    U,
    /// Signed (two's complement) integer.
    S,
    /// IEEE float (16, 32 or 64 bits).
    F,
    /// Boolean (stored as 0 / 1, `bits` = 32).
    B,
}

/// A scalar type: kind and width in bits (8, 16, 32, 64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScalarTy {
    pub kind: Kind,
    pub bits: u8,
}

impl ScalarTy {
    pub const U32: ScalarTy = ScalarTy {
        kind: Kind::U,
        bits: 32,
    };
    pub const S32: ScalarTy = ScalarTy {
        kind: Kind::S,
        bits: 32,
    };
    pub const F32: ScalarTy = ScalarTy {
        kind: Kind::F,
        bits: 32,
    };
    pub const U64: ScalarTy = ScalarTy {
        kind: Kind::U,
        bits: 64,
    };
    pub const S64: ScalarTy = ScalarTy {
        kind: Kind::S,
        bits: 64,
    };
    pub const F64: ScalarTy = ScalarTy {
        kind: Kind::F,
        bits: 64,
    };
    pub const F16: ScalarTy = ScalarTy {
        kind: Kind::F,
        bits: 16,
    };
    pub const BOOL: ScalarTy = ScalarTy {
        kind: Kind::B,
        bits: 32,
    };

    pub const fn new(kind: Kind, bits: u8) -> Self {
        ScalarTy { kind, bits }
    }

    /// Mask of the value bits in a component slot.
    pub fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    pub fn bytes(self) -> u32 {
        u32::from(self.bits) / 8
    }
}

/// An operation type: scalar type and lane count (1..=4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ty {
    pub scalar: ScalarTy,
    pub lanes: u8,
}

impl Ty {
    pub const fn new(scalar: ScalarTy, lanes: u8) -> Self {
        Ty { scalar, lanes }
    }
    pub const fn vec4(scalar: ScalarTy) -> Self {
        Ty { scalar, lanes: 4 }
    }
}

/// A register source with a swizzle (`swz[i]` is the register component read for lane `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Src {
    pub reg: Reg,
    pub swz: [u8; 4],
}

impl Src {
    pub const fn new(reg: Reg) -> Self {
        Src {
            reg,
            swz: [0, 1, 2, 3],
        }
    }
    pub const fn swizzled(reg: Reg, swz: [u8; 4]) -> Self {
        Src { reg, swz }
    }
    /// All lanes read component `c`.
    pub const fn splat(reg: Reg, c: u8) -> Self {
        Src {
            reg,
            swz: [c, c, c, c],
        }
    }
}

/// A register destination with a write mask (bit `i` set: lane `i` is written to component `i`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dst {
    pub reg: Reg,
    pub mask: u8,
}

impl Dst {
    pub const fn new(reg: Reg) -> Self {
        Dst { reg, mask: 0xF }
    }
    pub const fn masked(reg: Reg, mask: u8) -> Self {
        Dst { reg, mask }
    }
    /// Writes lanes `0..n` (`n` above 4 counts as 4).
    pub const fn lanes(reg: Reg, n: u8) -> Self {
        let n = if n > 4 { 4 } else { n };
        Dst {
            reg,
            mask: ((1u16 << n) - 1) as u8,
        }
    }
}

/// A rule of a specification that leaves a result undefined, for [`Inst::MarkUndefined`]
/// (docs/REFERENCE.md, "Undefined results"; `reference/undefined.yaml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UndefinedRule {
    /// GLSL `%` with a negative operand (GLSL 4.60 section 5.9).
    GlslRemNegative,
    /// GLSL `smoothstep` with `edge0 >= edge1` (GLSL 4.60 section 8.3).
    SmoothstepEdges,
    /// GLSL conversion of a negative floating-point value to an unsigned integer (GLSL 4.60
    /// section 5.4.1).
    NegativeFloatToUnsigned,
    /// SPIR-V OpSDiv, OpSRem, OpSMod of the minimum integer by -1.
    SignedDivisionOverflow,
    /// GLSL integer division that overflows, the minimum integer by -1 (GLSL 4.60 section
    /// 4.1.3).
    GlslDivisionOverflow,
    /// pow(x, y) with x < 0, or x == 0 and y <= 0 (GLSL 4.60 section 8.2, GLSL.std.450 Pow).
    PowDomain,
    /// log or log2 of x <= 0 (GLSL 4.60 section 8.2, GLSL.std.450 Log and Log2, NV LG2).
    LogDomain,
    /// sqrt of x < 0 (GLSL 4.60 section 8.2, GLSL.std.450 Sqrt).
    SqrtDomain,
    /// inversesqrt of x <= 0 (GLSL 4.60 section 8.2, GLSL.std.450 InverseSqrt, NV RSQ).
    InverseSqrtDomain,
    /// asin or acos of |x| > 1 (GLSL 4.60 section 8.1, GLSL.std.450 Asin and Acos).
    AsinAcosDomain,
    /// atan(y, x) with x and y both 0 (GLSL 4.60 section 8.1, GLSL.std.450 Atan2).
    Atan2Origin,
    /// acosh of x < 1 (GLSL 4.60 section 8.1, GLSL.std.450 Acosh).
    AcoshDomain,
    /// atanh of |x| >= 1 (GLSL 4.60 section 8.1, GLSL.std.450 Atanh).
    AtanhDomain,
    /// clamp with minVal > maxVal (GLSL 4.60 section 8.3, GLSL.std.450 FClamp, UClamp,
    /// SClamp, NClamp).
    ClampBounds,
    /// ldexp whose product does not fit the type, or whose exponent is above +128 (float) or
    /// +1024 (double) (GLSL 4.60 section 8.3, GLSL.std.450 Ldexp).
    LdexpRange,
    /// frexp of an infinity or NaN (GLSL 4.60 section 8.3, GLSL.std.450 Frexp, FrexpStruct).
    FrexpSpecial,
    /// A bitfield extract or insert whose offset or bit count is negative or whose sum is past
    /// the operand's width (GLSL 4.60 section 8.8; SPIR-V OpBitField*; NV_gpu_program5 BFE and
    /// BFI, which also leave an offset equal to the width undefined).
    BitfieldRange,
    /// NV MOD with a negative first operand or a second operand <= 0 (NV_gpu_program4).
    NvModDomain,
    /// The inverse of a singular matrix, one whose determinant is 0 (GLSL 4.60 section 8.6:
    /// "The values in the returned matrix are undefined if m is singular or poorly-conditioned
    /// (nearly singular)"; GLSL.std.450 MatrixInverse: "Results are undefined if m is singular
    /// or poorly-conditioned"). Poor conditioning has no threshold in either text: only exact
    /// singularity is flagged.
    SingularInverse,
    /// A float min, max or clamp with a NaN operand (GLSL 4.60 section 8.3: "Which operand is
    /// the result is undefined if one of the operands is a NaN"; GLSL.std.450 FMin, FMax,
    /// FClamp: "If either operand is a NaN, the result is undefined"; NMin/NMax/NClamp are
    /// defined).
    MinMaxNan,
    /// The components NV_gpu_program4 leaves undefined in a vector result: NRM's and XPD's
    /// w ("The w component of the result [vector] is undefined"), SCS's z and w ("The z and w
    /// components of the result vector are undefined"). The reference writes 0.
    NvUndefinedComponent,
    /// NV SCS of an angle outside [-PI, PI] (NV_gpu_program4 SCS: "If the scalar operand is not
    /// in the range [-PI,PI], the result vector is undefined").
    NvScsRange,
    /// NV MUL.S24 / MUL.U24 with an operand outside [-2^23, 2^23 - 1] / [0, 2^24 - 1]
    /// (NV_gpu_program4 MUL).
    NvMul24Range,
    /// intBitsToFloat, uintBitsToFloat, int64BitsToDouble or uint64BitsToDouble of a NaN's
    /// encoding (GLSL 4.60 section 8.3: "If a NaN is passed in, it will not signal, and the
    /// resulting value is unspecified"; an infinity's gives the infinity), or of an
    /// infinity's in ESSL; packDouble2x32 of either (GLSL 4.60 section 8.4).
    BitsToFloatSpecial,
    /// SPIR-V OpSRem or OpSMod with a negative operand in OpenGL (ARB_gl_spirv A.spv.5: "For
    /// the OpSRem and OpSMod instructions, if either operand is negative the result is
    /// undefined").
    SpirvRemNegative,
    /// A ballot query the subgroup operations leave undefined: subgroupBallotFindLSB or
    /// FindMSB of a value with no bit set below the subgroup size, subgroupBallotBitExtract
    /// at an index at or past gl_SubgroupSize (GL_KHR_shader_subgroup section 8.18).
    BallotRange,
    /// A subgroup min or max whose every float value the invocation uses is a NaN
    /// (GL_KHR_shader_subgroup section 8.18: "If all <value>s that are used by the current
    /// invocation are NaN, then the result is undefined").
    SubgroupMinMaxAllNan,
    /// A variable read before anything was written to it (GLSL 4.60 section 4.3: "the value
    /// of an uninitialized variable is undefined"; out parameters start so, section 6.1.1),
    /// an NV TEMP ("undefined at the beginning of each program invocation", NV_gpu_program4
    /// section 2.X.3.4) or condition code (section 2.X.3.7), the undefined components of an NV invocation binding (.w, and
    /// .yzw of localindex: NV_compute_program5 Table X.1), or a SPIR-V OpUndef. The
    /// reference reads 0.
    UninitializedValue,
    /// GLSL round or GLSL.std.450 Round of a whole number and a half ("The fraction 0.5 will
    /// round in a direction chosen by the implementation"), and the norm packs that round
    /// with it (GLSL 4.60 section 8.4): the reference rounds to even.
    RoundHalf,
    /// A norm pack (GLSL pack{U,S}norm*, GLSL.std.450 Pack{U,S}norm*) of a NaN component (the
    /// clamp it is written with) or of one whose scaled value is a whole number and a half
    /// (the round it is written with).
    PackNormRounding,
    /// An image load, store or atomic through an array of images at an index outside it
    /// (ARB_shader_image_load_store section 3.9.X: "the results of the operation are
    /// undefined but may not lead to termination").
    ImageArrayIndex,
}

impl UndefinedRule {
    /// The rule in words, for the flag.
    pub fn text(self) -> &'static str {
        match self {
            UndefinedRule::GlslRemNegative => {
                "a GLSL % with a negative operand (GLSL 4.60 section 5.9: undefined)"
            }
            UndefinedRule::SmoothstepEdges => {
                "smoothstep with edge0 >= edge1 (GLSL 4.60 section 8.3, GLSL.std.450 SmoothStep: undefined)"
            }
            UndefinedRule::NegativeFloatToUnsigned => {
                "a conversion of a negative float to an unsigned integer (GLSL 4.60 section 5.4.1: undefined)"
            }
            UndefinedRule::SignedDivisionOverflow => {
                "a signed division or remainder of the minimum integer by -1 (SPIR-V OpSDiv/OpSRem/OpSMod: undefined)"
            }
            UndefinedRule::GlslDivisionOverflow => {
                "a GLSL integer division that overflows, the minimum integer by -1 (GLSL 4.60 section 4.1.3: undefined)"
            }
            UndefinedRule::PowDomain => {
                "pow(x, y) with x < 0, or x == 0 and y <= 0 (GLSL 4.60 section 8.2, GLSL.std.450 Pow: undefined)"
            }
            UndefinedRule::LogDomain => {
                "a logarithm of x <= 0 (GLSL 4.60 section 8.2 log/log2, GLSL.std.450 Log/Log2, NV_gpu_program4 LG2: undefined)"
            }
            UndefinedRule::SqrtDomain => {
                "sqrt of x < 0 (GLSL 4.60 section 8.2, GLSL.std.450 Sqrt: undefined)"
            }
            UndefinedRule::InverseSqrtDomain => {
                "an inverse square root of x <= 0 (GLSL 4.60 section 8.2 inversesqrt, GLSL.std.450 InverseSqrt, NV_gpu_program4 RSQ: undefined)"
            }
            UndefinedRule::AsinAcosDomain => {
                "asin or acos of |x| > 1 (GLSL 4.60 section 8.1, GLSL.std.450 Asin/Acos: undefined)"
            }
            UndefinedRule::Atan2Origin => {
                "atan(y, x) with x and y both 0 (GLSL 4.60 section 8.1, GLSL.std.450 Atan2: undefined)"
            }
            UndefinedRule::AcoshDomain => {
                "acosh of x < 1 (GLSL 4.60 section 8.1, GLSL.std.450 Acosh: undefined)"
            }
            UndefinedRule::AtanhDomain => {
                "atanh of |x| >= 1 (GLSL 4.60 section 8.1, GLSL.std.450 Atanh: undefined)"
            }
            UndefinedRule::ClampBounds => {
                "clamp with minVal > maxVal (GLSL 4.60 section 8.3, GLSL.std.450 FClamp/UClamp/SClamp/NClamp: undefined)"
            }
            UndefinedRule::LdexpRange => {
                "ldexp whose result is too large for the type or whose exponent is above +128 (float) / +1024 (double) (GLSL 4.60 section 8.3, GLSL.std.450 Ldexp: undefined)"
            }
            UndefinedRule::FrexpSpecial => {
                "frexp of an infinity or NaN (GLSL 4.60 section 8.3, GLSL.std.450 Frexp: undefined)"
            }
            UndefinedRule::BitfieldRange => {
                "a bitfield extract or insert with a negative offset or bit count, or past the operand's width (GLSL 4.60 section 8.8, SPIR-V OpBitField*, NV_gpu_program5 BFE/BFI: undefined)"
            }
            UndefinedRule::NvModDomain => {
                "a MOD with a negative first operand or a second operand <= 0 (NV_gpu_program4 MOD: undefined)"
            }
            UndefinedRule::SingularInverse => {
                "the inverse of a singular matrix, whose determinant is 0 (GLSL 4.60 section 8.6, GLSL.std.450 MatrixInverse: undefined)"
            }
            UndefinedRule::MinMaxNan => {
                "a float min, max or clamp with a NaN operand (GLSL 4.60 section 8.3, GLSL.std.450 FMin/FMax/FClamp: undefined)"
            }
            UndefinedRule::NvUndefinedComponent => {
                "a component NV_gpu_program4 leaves undefined (NRM's and XPD's w, SCS's z and w)"
            }
            UndefinedRule::NvScsRange => {
                "an SCS of an angle outside [-PI, PI] (NV_gpu_program4 SCS: the result vector is undefined)"
            }
            UndefinedRule::NvMul24Range => {
                "a MUL.S24 or MUL.U24 with an operand outside its 24-bit range (NV_gpu_program4 MUL: undefined)"
            }
            UndefinedRule::ImageArrayIndex => {
                "an image array index outside the array (ARB_shader_image_load_store section 3.9.X: the operation's results are undefined)"
            }
            UndefinedRule::PackNormRounding => {
                "a norm pack of a NaN or of a value whose scaled form is a half (GLSL 4.60 section 8.4, GLSL.std.450 Pack*norm: clamp undefined for NaN, the direction of round the implementation's)"
            }
            UndefinedRule::RoundHalf => {
                "a rounding of a half, whose direction the implementation chooses (GLSL 4.60 sections 8.3 round and 8.4 pack*norm, GLSL.std.450 Round: either neighbour)"
            }
            UndefinedRule::UninitializedValue => {
                "a variable (or NV condition code) read before it was written, an undefined component of an invocation binding, or an OpUndef (GLSL 4.60 sections 4.3 and 6.1.1, NV_gpu_program4 sections 2.X.3.4 and 2.X.3.7, NV_compute_program5 Table X.1, SPIR-V OpUndef: undefined; the reference reads 0)"
            }
            UndefinedRule::BallotRange => {
                "a ballot query with no bit set in the subgroup or an index past gl_SubgroupSize (GL_KHR_shader_subgroup section 8.18: undefined)"
            }
            UndefinedRule::SubgroupMinMaxAllNan => {
                "a subgroup min or max of values that are all NaN (GL_KHR_shader_subgroup section 8.18: undefined)"
            }
            UndefinedRule::SpirvRemNegative => {
                "a SPIR-V OpSRem or OpSMod with a negative operand (ARB_gl_spirv A.spv.6: undefined in OpenGL)"
            }
            UndefinedRule::BitsToFloatSpecial => {
                "a float made from the bits of a NaN, or of an infinity where the rule says so (GLSL 4.60 sections 8.3 and 8.4, ESSL 3.20 section 8.3: intBitsToFloat, packDouble2x32: unspecified)"
            }
        }
    }
}

/// Unary per-lane operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Abs,
    /// Bitwise not (integers), logical not (bool).
    Not,
    /// Float: floor / ceil / trunc / round-half-even / x - floor(x).
    Floor,
    Ceil,
    Trunc,
    RoundEven,
    Fract,
    Sqrt,
    /// 1 / sqrt(x)
    Rsq,
    /// 1 / x
    Rcp,
    Exp2,
    Log2,
    Sin,
    Cos,
    /// -1, 0, 1 (float or signed).
    Sign,
    /// Number of set bits (result u32).
    BitCount,
    /// Reverse the bits of the value's width.
    BitReverse,
    /// Index of the most significant set bit (for S: of the first bit differing from the sign);
    /// -1 (all ones) when none. NV `BTFM`.
    FindMsb,
    /// Index of the least significant set bit, -1 when none. NV `BTFL`.
    FindLsb,
    /// Float is NaN → bool.
    IsNan,
    IsInf,
    /// The host's `f32`/`f64` functions (GLSL leaves their precision undefined or
    /// ULP-bounded; docs/REFERENCE.md).
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    /// e^x and the natural logarithm.
    Exp,
    Log,
    /// The fractional part with the sign of x (GLSL `modf`): x - trunc(x), ±0 for infinities.
    ModfFrac,
    /// The significand of x in [0.5, 1) with x's sign (GLSL `frexp`); 0 for 0.
    FrexpMant,
    /// The exponent of x (GLSL `frexp`), as a 32-bit integer; 0 for 0.
    FrexpExp,
    /// Float → normalized fixed point of `bits` bits (GLSL `pack{U,S}norm`):
    /// round(clamp(x, 0 or -1, 1) * (2^bits - 1 or 2^(bits-1) - 1)), rounding half to even,
    /// as `bits`-bit two's complement in a u32.
    PackNorm {
        signed: bool,
        bits: u8,
    },
    /// The low `bits` bits of an integer lane (signed: two's complement) → float (GLSL
    /// `unpack{U,S}norm`): f / (2^bits - 1), or clamp(f / (2^(bits-1) - 1), -1, 1).
    UnpackNorm {
        signed: bool,
        bits: u8,
    },
}

/// Binary per-lane operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// High half of the double-width product (integers).
    MulHi,
    /// Division: float IEEE; integer truncating, by zero gives the documented value
    /// (unsigned: all ones; signed: -1 for x >= 0, 1 for x < 0; MIN / -1 = MIN).
    Div,
    /// Remainder with the sign of the dividend (C `%`, SPIR-V `SRem`); by zero: the dividend.
    Rem,
    /// Remainder with the sign of the divisor (SPIR-V `SMod`, GLSL float `mod`); by zero: the
    /// dividend.
    Mod,
    Min,
    Max,
    And,
    Or,
    Xor,
    /// Shifts use the count modulo the bit width (documented choice for oversize counts).
    Shl,
    /// Arithmetic for S, logical for U.
    Shr,
    Pow,
    /// Float `a * 2^b`, rounded once, with `b` read as a signed 32-bit integer lane (front ends
    /// convert exponents of other widths).
    Ldexp,
    /// atan(a / b) in the quadrant of (b, a) (GLSL two-argument `atan(y, x)`).
    Atan2,
}

/// The rounding direction of [`Inst::ConvertRounded`] for a result the destination type
/// cannot hold exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// The nearer neighbour, the even one on a tie.
    NearestEven,
    /// Toward +infinity.
    Up,
    /// Toward -infinity.
    Down,
    TowardZero,
}

/// Comparisons (result: bool lanes). Float comparisons are ordered except `Ne` (true on NaN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Memory spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Shader storage buffer at a binding (NV `program.storage[n]`, GLSL `buffer`).
    Storage(u32),
    /// Work-group shared memory (NV `SHARED`, GLSL `shared`, SPIR-V Workgroup).
    Shared,
    /// std140 uniform block at a binding.
    Uniform(u32),
    /// NV `program.local[]`: vec4 parameters, 16 bytes each, read-only.
    ProgramLocal,
    /// NV `program.env[]`.
    ProgramEnv,
    /// NV `program.buffer[n]` (parameter buffer object), read-only.
    ParamBuffer(u32),
    /// Per-invocation private memory (`Program::private_size` bytes), zero at start.
    Private,
    /// Atomic counter buffer at a binding.
    AtomicCounter(u32),
    /// Plain (default-block) uniforms, laid out by `Program::uniforms`; read-only to the
    /// program. Set from `ExecPlan::uniforms` before the first step and by `Step::Uniform`
    /// between dispatches; a uniform never set reads as 0.
    DefaultUniform,
    /// Element k of an array of buffer blocks (`uniform`: uniform blocks) bound at bindings
    /// `first .. first + len`, chosen at run time: an address holds k in its bits
    /// [`BLOCK_ARRAY_SHIFT`]..32 and the byte offset in the element in the bits below
    /// ([`Space::resolve`]). An element index >= `len` is out of bounds.
    BlockArray { uniform: bool, first: u32, len: u32 },
    /// An atomic counter whose buffer binding is known only at run time (a GLSL `atomic_uint`
    /// function parameter): an address holds the binding in its bits
    /// [`BLOCK_ARRAY_SHIFT`]..32 and the byte offset below ([`Space::resolve`]).
    CounterAddress,
}

/// Where the element index sits in a [`Space::BlockArray`] address; a block's offsets stay
/// below 2^24 (16 MiB: the executor refuses larger buffers in such an array).
pub const BLOCK_ARRAY_SHIFT: u32 = 24;

impl Space {
    /// The space and byte offset the address `off` of this space names: for a
    /// [`Space::BlockArray`], the element's block and the offset in it, None when the element
    /// index is out of range; any other space names itself.
    pub fn resolve(self, off: u64) -> Option<(Space, u64)> {
        match self {
            Space::BlockArray {
                uniform,
                first,
                len,
            } => {
                let k = u32::try_from(off >> BLOCK_ARRAY_SHIFT).ok()?;
                let binding = first.checked_add(k).filter(|_| k < len)?;
                let off = off & ((1 << BLOCK_ARRAY_SHIFT) - 1);
                Some((
                    if uniform {
                        Space::Uniform(binding)
                    } else {
                        Space::Storage(binding)
                    },
                    off,
                ))
            }
            Space::CounterAddress => {
                let binding = u32::try_from(off >> BLOCK_ARRAY_SHIFT).ok()?;
                Some((
                    Space::AtomicCounter(binding),
                    off & ((1 << BLOCK_ARRAY_SHIFT) - 1),
                ))
            }
            s => Some((s, off)),
        }
    }

    /// The storage bindings an access in this space may touch.
    pub fn storage_bindings(self) -> std::ops::Range<u32> {
        match self {
            Space::Storage(b) => b..b.saturating_add(1),
            Space::BlockArray {
                uniform: false,
                first,
                len,
            } => first..first.saturating_add(len),
            _ => 0..0,
        }
    }
}

/// One active uniform of the default block as GL enumerates it (GL 4.6 §7.3.1.1): a scalar,
/// vector or matrix, or an array of one of those, and where its values live in
/// [`Space::DefaultUniform`]. An aggregate uniform is several slots: `s.f`, `s[1].v`, `a[2]`
/// for the inner arrays of an array of arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UniformSlot {
    /// The enumerated name without a trailing `[0]`: `u`, `a`, `s.f`, `s[1].v`, `a[2]`.
    pub name: String,
    /// The location of element 0 when the program gives it explicitly (GLSL
    /// `layout(location = L)`, SPIR-V `Location`); element i is at location + i. Uniforms
    /// without one get implementation-dependent locations in GL: the reference gives them none.
    pub location: Option<u32>,
    pub ty: UniformTy,
    /// The array length, for arrays (a one-element array is an array).
    pub array: Option<u32>,
    /// Byte offset of element 0 in the default-uniform space.
    pub offset: u32,
    /// Bytes from one array element to the next.
    pub stride: u32,
    /// Bytes from one matrix column to the next (the column's components are consecutive).
    pub column_stride: u32,
}

/// The basic type of a [`UniformSlot`]: `columns` vectors of `rows` components of `scalar`
/// (columns is 1 for scalars and vectors). Booleans are stored as u32 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniformTy {
    pub scalar: UniformScalar,
    pub columns: u8,
    pub rows: u8,
}

/// The scalar of a uniform, as glUniform* sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniformScalar {
    F32,
    F64,
    I32,
    U32,
    I64,
    U64,
    Bool,
    /// An image uniform: the image unit it names, an int glUniform1i{v} sets (0 to
    /// MAX_IMAGE_UNITS - 1), initially `binding` (+ k for element k of an array).
    ImageUnit {
        binding: u32,
    },
}

impl UniformScalar {
    /// Bytes of one component in the default-uniform space.
    pub fn size(self) -> u32 {
        match self {
            UniformScalar::F64 | UniformScalar::I64 | UniformScalar::U64 => 8,
            _ => 4,
        }
    }
}

/// A memory access type: scalar, lane count, and whether loads widen small types (see module
/// docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemTy {
    pub scalar: ScalarTy,
    pub lanes: u8,
    pub widen: bool,
}

impl MemTy {
    pub const fn new(scalar: ScalarTy, lanes: u8) -> Self {
        MemTy {
            scalar,
            lanes,
            widen: true,
        }
    }
    pub fn size(self) -> u32 {
        self.scalar.bytes() * u32::from(self.lanes)
    }
    /// The register type a (widening) load produces.
    pub fn reg_scalar(self) -> ScalarTy {
        if !self.widen {
            return self.scalar;
        }
        match (self.scalar.kind, self.scalar.bits) {
            (Kind::F, 16) => ScalarTy::F32,
            (k, b) if b < 32 => ScalarTy::new(k, 32),
            _ => self.scalar,
        }
    }
}

/// Atomic operations. All return the old value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// Integer add (wrapping) or float add (when the type is F).
    Add,
    /// Signedness per the type.
    Min,
    Max,
    And,
    Or,
    Xor,
    /// Stores `a`.
    Exch,
    /// Stores `b` when old == `a`.
    CmpXchg,
    /// Stores (old >= a) ? 0 : old + 1 (unsigned).
    IWrap,
    /// Stores (old == 0 || old > a) ? a : old - 1 (unsigned).
    DWrap,
}

/// Memory scopes of a memory barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The work group (NV `MEMBAR.CTA`, GLSL `groupMemoryBarrier`).
    Group,
    /// The device (NV `MEMBAR`, GLSL `memoryBarrier*`).
    Device,
}

/// Shuffle modes (NV_shader_thread_shuffle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    Idx,
    Up,
    Down,
    Xor,
}

/// Subgroup operations (KHR_shader_subgroup, ARB_shader_ballot, ARB_shader_group_vote, GLSL
/// 4.60 §8.18). A subgroup is `subgroup_size` consecutive local indices (the size is a run
/// option, `crate::Options::subgroup_size`); its *active* invocations for one execution of the
/// instruction are those that wait at it together when the group can make no other progress
/// (exec docs). Results are computed by `exec::subgroup`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubgroupOp {
    /// Waits for the active invocations; no result.
    Barrier,
    /// bool: true in the active invocation with the lowest id.
    Elect,
    /// bool: `a.x` (bool) is true in every / some active invocation.
    All,
    Any,
    /// bool: `a` (all `ty.lanes` lanes) is the same in every active invocation.
    AllEqual,
    /// u32x4: bit i (of the 128, x first) set when invocation i is active and its `a.x` true.
    Ballot,
    /// `a` of the invocation whose id is `b.x` (broadcast, shuffle, readInvocation).
    Shuffle,
    /// `a` of the invocation `id ^ b.x`, `id - b.x`, `id + b.x`.
    ShuffleXor,
    ShuffleUp,
    ShuffleDown,
    /// `a` of the active invocation with the lowest id.
    BroadcastFirst,
    /// The op (Add, Mul, Min, Max, And, Or, Xor) over the active invocations' `a`, in id
    /// order: all of them, those up to this one, those before it (the first gets the
    /// identity).
    Reduce(BinOp),
    InclusiveScan(BinOp),
    ExclusiveScan(BinOp),
}

/// How NV_compute_shader_derivatives puts the invocations of a work group in groups of four
/// for derivatives (GLSL_NV_compute_shader_derivatives, §8.13.1 as it modifies it). Each
/// invocation of a group of four has the coordinates (m, n), m and n 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerivGroup {
    /// `derivative_group_quadsNV`: local invocation ids (2x+m, 2y+n, z).
    Quads,
    /// `derivative_group_linearNV`: local invocation indices 4x+2n+m.
    Linear,
}

/// The axis of a derivative: x (`dFdx*`) or y (`dFdy*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerivAxis {
    X,
    Y,
}

/// Which derivative: fine (`dFdxFine`: the invocation's own row or column of its group of
/// four), coarse (`dFdxCoarse`: one value per group, which row or column the implementation
/// chooses) or either (`dFdx`: fine or coarse, the implementation's choice). GLSL 4.60 §8.14.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerivKind {
    Fine,
    Coarse,
    Either,
}

/// Built-in inputs. Vectors are u32x4 with unused components 0 (w is 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    LocalId,
    GlobalId,
    GroupId,
    GroupCount,
    GroupSize,
    /// x = flattened local index.
    LocalIndex,
    /// x = localindex / 32.
    WarpId,
    /// x = localindex % 32 (gl_ThreadInWarpNV).
    LaneId,
    /// x = 32.
    WarpSize,
    /// x = the subgroup size (`SubgroupOp` docs).
    SubgroupSize,
    /// x = local index % subgroup size.
    SubgroupInvocationId,
    /// x = local index / subgroup size.
    SubgroupId,
    /// x = the number of subgroups in the work group (rounded up).
    NumSubgroups,
    /// u32x4: bit i (of the 128, x first) set when i compares with the subgroup invocation id
    /// as the mask says; bits at or above the subgroup size are 0.
    SubgroupMask(MaskKind),
    /// x = a 64-bit time (ARB_shader_clock `clockARB`): the instructions this invocation has
    /// executed in its dispatch, plus 2^40 times the index of the dispatch's step in the plan.
    /// It grows within an invocation and from one dispatch to the next, the same in every
    /// schedule; the extension leaves its units and any agreement between invocations open.
    Clock,
}

/// Which bits a subgroup mask sets: bit index ==, >=, >, <=, < the invocation's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskKind {
    Eq,
    Ge,
    Gt,
    Le,
    Lt,
}

/// One instruction. See the module docs for the invariants.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// dst = a (bit copy of `lanes` lanes).
    Mov {
        dst: Dst,
        a: Src,
    },
    Un {
        op: UnOp,
        ty: Ty,
        dst: Dst,
        a: Src,
    },
    Bin {
        op: BinOp,
        ty: Ty,
        dst: Dst,
        a: Src,
        b: Src,
    },
    /// dst = a * b + c (float: fused, one rounding; integer: wrapping).
    Mad {
        ty: Ty,
        dst: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Cmp {
        op: CmpOp,
        ty: Ty,
        dst: Dst,
        a: Src,
        b: Src,
    },
    /// dst = cond != 0 ? a : b, per lane (cond read per lane through its swizzle).
    Select {
        lanes: u8,
        dst: Dst,
        cond: Src,
        a: Src,
        b: Src,
    },
    /// Convert each lane `from` → `to`. Float → int truncates toward zero and saturates (NaN → 0);
    /// int → float rounds to nearest even; int → int truncates / sign- or zero-extends.
    Convert {
        from: ScalarTy,
        to: ScalarTy,
        lanes: u8,
        dst: Dst,
        a: Src,
    },
    /// Convert each lane `from` → `to` (kinds F, S, U) through its exact value, as
    /// NV_gpu_program5's CVT: a non-integral float → integer, and a float result that `to`
    /// cannot hold exactly, round in the direction `round`; an integer result outside `to` is
    /// clamped (`sat`) or keeps its low `to.bits` bits. NaN and infinities → integer are
    /// undefined (`exec::convert`).
    ConvertRounded {
        from: ScalarTy,
        to: ScalarTy,
        lanes: u8,
        round: Rounding,
        sat: bool,
        dst: Dst,
        a: Src,
    },
    /// Extract `width` bits at `offset` of `a` (sign-extended for S); offset and width are separate lanes.
    BitfieldExtract {
        ty: Ty,
        dst: Dst,
        a: Src,
        offset: Src,
        width: Src,
    },
    /// Insert the low `width` bits of `insert` into `base` at `offset`.
    BitfieldInsert {
        ty: Ty,
        dst: Dst,
        base: Src,
        insert: Src,
        offset: Src,
        width: Src,
    },
    /// dst.x = dst.z = a.x | a.y << 32, dst.y = dst.w = a.z | a.w << 32 (NV PK64, replicated).
    Pack64 {
        dst: Dst,
        a: Src,
    },
    /// dst.xy = halves of a.x, dst.zw = halves of a.y (NV UP64).
    Unpack64 {
        dst: Dst,
        a: Src,
    },
    /// Read lane `idx.x` (u32, out of range: 0 and flagged) of `vec` into dst.x.
    ExtractDyn {
        dst: Dst,
        vec: Src,
        idx: Src,
    },
    /// dst = vec with lane `idx.x` replaced by `val.x` (out of range: unchanged, flagged).
    InsertDyn {
        dst: Dst,
        vec: Src,
        val: Src,
        idx: Src,
    },
    Builtin {
        dst: Dst,
        which: Builtin,
    },
    /// Marks the lanes of `dst` (its first `lanes`) whose `cond` lane is true as undefined:
    /// a result the source language's specification leaves undefined for those operands,
    /// which the front end computed with the documented value and the executor flags where it
    /// is used (`undefined-value`). The value is not changed.
    MarkUndefined {
        lanes: u8,
        dst: Dst,
        cond: Src,
        why: UndefinedRule,
    },
    /// Private memory `off..off + size` holds a variable declared without a value (a GLSL
    /// array or struct, an NV TEMP array): the executor writes 0 there and marks the bytes
    /// undefined (`UndefinedRule::UninitializedValue`), flagged where a value loaded from them
    /// is used; with `RunCfg::uninit_fill` it writes the fill pattern, unmarked.
    MarkPrivateUndefined {
        off: u32,
        size: u32,
    },
    /// NV condition-code update: per lane, flags of `a` read as `ty` (see [`cc`]).
    SetCc {
        ty: Ty,
        dst: Dst,
        a: Src,
    },
    /// NV condition-code update of an integer add (`sub`: subtract) `a ± b`: SF and ZF of the
    /// result, OF = signed overflow, CF = unsigned carry out (add) / no borrow, `a >= b` (sub).
    SetCcAdd {
        ty: Ty,
        sub: bool,
        dst: Dst,
        a: Src,
        b: Src,
    },
    /// Per lane: test the condition-code flags in `cc` → bool.
    TestCc {
        test: CcTest,
        dst: Dst,
        cc: Src,
    },

    Load {
        space: Space,
        ty: MemTy,
        dst: Dst,
        addr: Src,
    },
    Store {
        space: Space,
        ty: MemTy,
        addr: Src,
        val: Src,
    },
    /// dst.x = old value. `b` is only read by CmpXchg (the value stored).
    Atomic {
        space: Space,
        op: AtomicOp,
        ty: ScalarTy,
        dst: Option<Dst>,
        addr: Src,
        a: Src,
        b: Src,
    },

    /// An image load, store, size query or atomic (see [`ImageInst`]). Accesses to texels
    /// that do not exist are defined by ARB_shader_image_load_store (loads give 0, stores and
    /// atomics do nothing, atomics give 0); a format or target mismatch is flagged.
    Image(ImageInst),

    /// Work-group execution barrier (NV `BAR`, GLSL `barrier()`).
    ControlBarrier,
    /// Memory barrier (ordering only; the executor is sequentially consistent, so it is a no-op
    /// kept for explanations).
    MemoryBarrier {
        scope: Scope,
    },

    /// NV assembly shuffle: value = `val.x` (32-bit), index = `index.x`, mask = `mask.x`.
    /// Writes dst.x = predicate (`true_bits` / 0), dst.y = value; z, w = 0.
    ShuffleAsm {
        mode: ShflMode,
        true_bits: u64,
        dst: Dst,
        val: Src,
        index: Src,
        mask: Src,
    },
    /// GLSL shuffle*NV(data, index, width, out valid): `lanes` lanes of `val` move together;
    /// `valid` (bool, x) when present. Only the low 5 bits of index count; index/width as in
    /// the extension's GLSL section.
    ShuffleGlsl {
        mode: ShflMode,
        lanes: u8,
        dst: Dst,
        valid: Option<Dst>,
        val: Src,
        index: Src,
        width: Src,
    },

    /// A subgroup operation on `a` (and `b`) of type `ty`, writing `dst` (none for
    /// `SubgroupOp::Barrier`); see [`SubgroupOp`].
    Subgroup {
        op: SubgroupOp,
        ty: Ty,
        dst: Option<Dst>,
        a: Src,
        b: Src,
    },

    /// NV_compute_shader_derivatives: the derivative of `a` (`lanes` f32 lanes) along `axis`
    /// over the invocation's group of four (`group`), executed by the four together (as a
    /// subgroup operation; results by `exec::derivative`). With (m, n) the invocation's place
    /// in its group and F(m, n) the value of `a` there: fine x is F(1, n) - F(0, n), fine y
    /// F(m, 1) - F(m, 0); coarse x is F(1, 0) - F(0, 0) and coarse y F(0, 1) - F(0, 0) (the
    /// spec lets an implementation use the other row or column: where those differ the result
    /// is marked undefined, as for `Either`, whose value is the fine one). A group whose four
    /// invocations do not all execute it together (non-uniform control flow) gets 0, marked
    /// undefined.
    Derivative {
        group: DerivGroup,
        axis: DerivAxis,
        kind: DerivKind,
        lanes: u8,
        dst: Dst,
        a: Src,
    },

    If {
        cond: Src,
        else_pc: u32,
    },
    Else {
        end_pc: u32,
    },
    EndIf,
    Loop {
        count: Option<Src>,
        end_pc: u32,
    },
    EndLoop {
        begin_pc: u32,
    },
    Break,
    Continue,
    Call {
        target_pc: u32,
    },
    Return,
    /// Ends the invocation.
    Exit,
}

/// Condition-code tests (NV_gpu_program4 Table X.16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CcTest {
    /// !SF && ZF
    Eq,
    /// SF || !ZF
    Ne,
    /// (SF && !ZF) ^ OF
    Lt,
    /// SF ^ (ZF || OF)
    Le,
    /// (!SF ^ OF) && !ZF
    Gt,
    /// !(SF ^ OF)
    Ge,
    Tr,
    Fl,
    /// SF && ZF
    Nan,
    /// !SF || !ZF
    Leg,
    /// SF
    Sf,
    /// !SF
    Nsf,
    /// CF
    Cf,
    /// !CF
    Ncf,
    /// OF
    Of,
    /// !OF
    Nof,
    /// CF && !ZF (above)
    Ab,
    /// !CF || ZF (below or equal)
    Ble,
}

/// Condition-code flag bits stored per component by [`Inst::SetCc`] (NV_gpu_program4 section
/// 2.X.4.3): floats set SF when < 0 or NaN and ZF when == 0 or NaN; integers set SF from the
/// most significant bit and ZF when zero. OF and CF are clear except after [`Inst::SetCcAdd`].
pub mod cc {
    pub const SF: u64 = 1;
    pub const ZF: u64 = 2;
    pub const OF: u64 = 4;
    pub const CF: u64 = 8;
}

/// Static facts about a program the executor uses to choose its strategy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Uses {
    pub storage_atomics: bool,
    /// Some storage binding is both read and written (by loads and stores, or by atomics):
    /// work groups may communicate through it, so running them in parallel would make the
    /// result depend on the host's thread timing.
    pub storage_read_write: bool,
    pub shared: bool,
    pub barrier: bool,
    pub shuffle_asm: bool,
    pub shuffle_glsl: bool,
    pub subgroup: bool,
}

/// Per-instruction source location, for explanations and runtime messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loc {
    pub line: u32,
    pub column: u32,
}

/// A function: a named pc range of `Program::code` (informational).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub start_pc: u32,
}

/// A whole lowered compute program.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub code: Vec<Inst>,
    /// Same length as `code`.
    pub locs: Vec<Loc>,
    pub entry_pc: u32,
    pub functions: Vec<Function>,
    /// Initial register file; its length is the register count. Constants are here; other
    /// registers start at the documented "unwritten" value (0).
    pub reg_init: Vec<[u64; 4]>,
    pub group_size: [u32; 3],
    /// The program declares a variable work group size (ARB_compute_variable_group_size,
    /// `layout(local_size_variable) in;`): each glDispatchComputeGroupSizeARB gives the size
    /// (`Builtin::GroupSize` reads it), and `group_size` is not used (front ends set
    /// [1, 1, 1]).
    pub variable_group_size: bool,
    /// Bytes of shared memory per work group.
    pub shared_size: u32,
    /// Bytes of private memory per invocation.
    pub private_size: u32,
    pub uses: Uses,
    /// Layout of the plain uniforms (GLSL default block); empty for NV assembly.
    pub uniforms: Vec<UniformSlot>,
    /// The initial bytes of [`Space::DefaultUniform`] (uniform initializers: GLSL 4.60 §4.3.5,
    /// ARB_gl_spirv); bytes past its end start as 0.
    pub uniform_init: Vec<u8>,
    /// glGetProgramiv(ACTIVE_UNIFORMS) (GL 4.6 §7.3.1: the default-block uniforms and atomic
    /// counters as GL enumerates them), where the front end can tell: every uniform the
    /// program declares is referenced by code it runs, and it has no uniform blocks (whose
    /// members count too). None: the reference answers the query as not applicable.
    pub active_uniforms: Option<u32>,
    /// Whether a float operation whose result is a NaN is undefined (flagged where used): in
    /// GLSL (4.60 section 4.7.1: "NaNs are not required to be generated ... Operations and
    /// built-in functions that operate on a NaN are not required to return a NaN as the
    /// result") and in SPIR-V under OpenGL (ARB_gl_spirv A.spv.5, the same words), not in NV
    /// assembly, which computes by IEEE rules (NV_gpu_program4 issue 18).
    pub nan_undefined: bool,
    /// The storage blocks the program uses, with the bytes each needs (its members up to the
    /// end of the last, a runtime array counting 0): ARB_shader_storage_buffer_object
    /// section 2.14.X, "If any active shader storage block is not backed by a sufficiently
    /// large buffer object, the results of shader execution are undefined". GLSL only.
    pub storage_blocks: Vec<StorageBlock>,
    /// Whether a storage or shared load or store must be aligned to its whole size (NV
    /// assembly, NV_gpu_program5 section 2.X.4.5: "If an offset is not correctly aligned, the
    /// values returned by a buffer memory load will be undefined, and the effects of a buffer
    /// memory store will also be undefined"; GLSL and SPIR-V layouts align every access).
    pub aligned_access: bool,
}

/// A storage block a program uses ([`Program::storage_blocks`]).
#[derive(Clone, Debug, PartialEq)]
pub struct StorageBlock {
    pub name: String,
    pub binding: u32,
    pub min_size: u32,
}

impl Program {
    /// A program from a builder's code and registers, with everything else empty: set the
    /// other fields, then call [`Program::compute_uses`] and [`Program::validate`].
    pub fn from_builder(b: Builder, group_size: [u32; 3]) -> Program {
        let mut p = Program {
            code: b.code,
            locs: b.locs,
            entry_pc: 0,
            functions: vec![Function {
                name: "main".into(),
                start_pc: 0,
            }],
            reg_init: b.reg_init,
            group_size,
            variable_group_size: false,
            shared_size: 0,
            private_size: 0,
            uses: Uses::default(),
            uniforms: Vec::new(),
            uniform_init: Vec::new(),
            active_uniforms: None,
            nan_undefined: false,
            storage_blocks: Vec::new(),
            aligned_access: false,
        };
        p.compute_uses();
        p
    }

    /// Computes `uses` from the code.
    pub fn compute_uses(&mut self) {
        let mut u = Uses::default();
        let (mut read, mut written) = (Vec::new(), Vec::new());
        for inst in &self.code {
            match inst {
                Inst::Load { space, .. } => read.extend(space.storage_bindings()),
                Inst::Store { space, .. } => written.extend(space.storage_bindings()),
                Inst::Atomic { space, .. } => {
                    read.extend(space.storage_bindings());
                    written.extend(space.storage_bindings());
                }
                _ => {}
            }
            // Images are texture memory every group sees: counted as one storage binding
            // (`u32::MAX`) read by loads and atomics and written by stores and atomics.
            if let Inst::Image(im) = inst {
                match im.op {
                    ImageOp::Load => read.push(u32::MAX),
                    ImageOp::Store => written.push(u32::MAX),
                    ImageOp::Atomic(_) => {
                        u.storage_atomics = true;
                        read.push(u32::MAX);
                        written.push(u32::MAX);
                    }
                    // A sampled texture is never written: no binding to order.
                    ImageOp::Size | ImageOp::Fetch => {}
                }
            }
            match inst {
                Inst::Atomic {
                    space:
                        Space::Storage(_)
                        | Space::AtomicCounter(_)
                        | Space::BlockArray { .. }
                        | Space::CounterAddress,
                    ..
                } => u.storage_atomics = true,
                Inst::Atomic {
                    space: Space::Shared,
                    ..
                }
                | Inst::Load {
                    space: Space::Shared,
                    ..
                }
                | Inst::Store {
                    space: Space::Shared,
                    ..
                } => u.shared = true,
                Inst::ControlBarrier => u.barrier = true,
                Inst::ShuffleAsm { .. } => u.shuffle_asm = true,
                Inst::ShuffleGlsl { .. } => u.shuffle_glsl = true,
                Inst::Subgroup { .. } => u.subgroup = true,
                _ => {}
            }
        }
        u.storage_read_write = written.iter().any(|b| read.contains(b));
        self.uses = u;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_array_addresses_resolve_to_their_element() {
        let a = Space::BlockArray {
            uniform: false,
            first: 3,
            len: 2,
        };
        assert_eq!(a.resolve(8), Some((Space::Storage(3), 8)));
        assert_eq!(
            a.resolve((1 << BLOCK_ARRAY_SHIFT) + 4),
            Some((Space::Storage(4), 4))
        );
        assert_eq!(a.resolve(2 << BLOCK_ARRAY_SHIFT), None);
        assert_eq!(a.resolve(0xFFFF_FF00), None);
        let u = Space::BlockArray {
            uniform: true,
            first: 0,
            len: 1,
        };
        assert_eq!(u.resolve(12), Some((Space::Uniform(0), 12)));
        assert_eq!(Space::Shared.resolve(5), Some((Space::Shared, 5)));
        let c = Space::CounterAddress;
        assert_eq!(
            c.resolve((3 << BLOCK_ARRAY_SHIFT) + 8),
            Some((Space::AtomicCounter(3), 8))
        );
        assert_eq!(a.storage_bindings(), 3..5);
        assert_eq!(u.storage_bindings(), 0..0);
    }
}
