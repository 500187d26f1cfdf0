//! The subgroup block in SPIR-V assembly (SPIR-V 1.3 through KHR_shader_subgroup: the
//! `GroupNonUniform*` capabilities, the built-ins `SubgroupSize`, `SubgroupLocalInvocationId`
//! and `SubgroupId`, the Subgroup scope), statement for statement the program
//! [`super::glsl`] writes, so the model ([`super::expected`]) holds for both:
//!
//! - exchanges: `OpGroupNonUniformShuffle`, `ShuffleXor`, `ShuffleUp`, `ShuffleDown`,
//!   `Broadcast` (its id a constant, as SPIR-V before 1.5 requires) and `BroadcastFirst`;
//! - arithmetic: `OpGroupNonUniform` `IAdd`/`FAdd`, `IMul`, `SMin`/`UMin`/`FMin`,
//!   `SMax`/`UMax`/`FMax`, `BitwiseAnd`/`Or`/`Xor` (by the element type, as glslang spells
//!   GLSL's functions) with `Reduce`, `InclusiveScan` or `ExclusiveScan`;
//! - ballots: `OpGroupNonUniformBallot` and `BallotBitCount` (`Reduce`, `InclusiveScan`,
//!   `ExclusiveScan`) or the ballot's four words.
//!
//! The guards are the GLSL's: the exchange runs in uniform control flow, then a selection
//! stores its result where the source is inside the subgroup (`OpULessThan` of the id, of
//! `sid ^ mask`, of the delta against `sid + 1` or `size - sid`) and the invocation's own
//! value elsewhere; a float is stored as `OpSelect(x == 0.0, 0, OpBitcast(x))`; word 0 holds
//! `SubgroupSize`; the slot is `wg * local_size + SubgroupId * SubgroupSize +
//! SubgroupLocalInvocationId`.
//!
//! GL_ARB_shader_ballot's blocks are not spelled (`SubgroupBlock::check` keeps them out of
//! SPIR-V): their own SPIR-V (SPV_KHR_shader_ballot's `OpSubgroupReadInvocationKHR`, ...) is
//! not in the reference's SPIR-V front end, and the KHR blocks make the same operations.

use crate::ast::subgroup::{BallotQuery, SgArith, SgExt, SgOp, SgScan, SgTy};
use crate::ast::{Program, SubgroupBlock};

/// What the SPIR-V emitter lends the spelling. Ids it may use besides what it makes here:
/// `%uint`, `%int`, `%float`, `%bool`, `%v3uint`, `%ptr_u_uint`, `%wg` (main's group index),
/// `%b<k>` and the built-in variables of [`VARIABLES`].
pub trait Sink {
    /// A fresh id holding `rhs` (`OpIAdd %uint %a %b`).
    fn val(&mut self, rhs: &str) -> String;
    /// One instruction or label line of main's body.
    fn line(&mut self, s: &str);
    /// A fresh label id.
    fn label_id(&mut self) -> String;
    /// The `%uint` constant `v`.
    fn cu(&mut self, v: u32) -> String;
    /// The `%float` constant `v`.
    fn cf(&mut self, v: f32) -> String;
    /// A type declaration line (with its newline) the module must have, declared once.
    fn declare(&mut self, decl: &str);
}

/// The Subgroup scope (SPIR-V's Scope 3).
const SUBGROUP_SCOPE: u32 = 3;

/// The entry point's extra interface of a module with subgroup blocks.
pub const INTERFACE: &str = " %in_ssz %in_sid %in_sgid";

/// The built-ins' decorations.
pub const DECORATIONS: &str = "OpDecorate %in_ssz BuiltIn SubgroupSize\n\
    OpDecorate %in_sid BuiltIn SubgroupLocalInvocationId\n\
    OpDecorate %in_sgid BuiltIn SubgroupId\n";

/// The built-ins' variables (after `%ptr_in_uint`).
pub const VARIABLES: &str = "%in_ssz = OpVariable %ptr_in_uint Input\n\
    %in_sid = OpVariable %ptr_in_uint Input\n\
    %in_sgid = OpVariable %ptr_in_uint Input\n";

/// The capabilities `p`'s subgroup blocks need (none without any): `GroupNonUniform` (the
/// built-ins) and each operation's class.
pub fn capabilities(p: &Program) -> String {
    let mut caps: Vec<&str> = Vec::new();
    for b in p.subgroup_blocks() {
        caps.push("GroupNonUniform");
        caps.push(match b.op {
            SgOp::Shuffle | SgOp::ShuffleXor => "GroupNonUniformShuffle",
            SgOp::ShuffleUp | SgOp::ShuffleDown => "GroupNonUniformShuffleRelative",
            SgOp::Arith(..) => "GroupNonUniformArithmetic",
            SgOp::Broadcast | SgOp::BroadcastFirst | SgOp::Ballot(_) => "GroupNonUniformBallot",
        });
    }
    let mut out = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for c in caps {
        if seen.insert(c) {
            out.push_str(&format!("OpCapability {c}\n"));
        }
    }
    out
}

/// Whether `p` has subgroup blocks (its module is SPIR-V 1.3).
pub fn has_blocks(p: &Program) -> bool {
    p.subgroup_blocks().next().is_some()
}

/// The type of `n` components of `ty` (declared through the sink where the module's header
/// does not declare it).
fn vector(s: &mut dyn Sink, ty: SgTy, n: u8) -> String {
    let scalar = match ty {
        SgTy::U32 => "uint",
        SgTy::I32 => "int",
        SgTy::F32 => "float",
    };
    if n == 1 {
        return format!("%{scalar}");
    }
    // `%v3uint` is the header's; `%v2uint_w` is also wide's (features::wide::SPIRV_DECLS) and
    // `%v4uint` vector's (features::vector::SPIRV_TYPE): one declaration of each type.
    let name = match (ty, n) {
        (SgTy::U32, 3) => return "%v3uint".into(),
        (SgTy::U32, 2) => "%v2uint_w".to_string(),
        (SgTy::U32, 4) => "%v4uint".to_string(),
        _ => format!("%v{n}{scalar}_sg"),
    };
    s.declare(&format!("{name} = OpTypeVector %{scalar} {n}\n"));
    name
}

/// The arithmetic instruction's name for `a` on `ty`.
fn arith_name(a: SgArith, ty: SgTy) -> &'static str {
    match (a, ty) {
        (SgArith::Add, SgTy::F32) => "FAdd",
        (SgArith::Add, _) => "IAdd",
        (SgArith::Mul, SgTy::F32) => "FMul",
        (SgArith::Mul, _) => "IMul",
        (SgArith::Min, SgTy::F32) => "FMin",
        (SgArith::Min, SgTy::I32) => "SMin",
        (SgArith::Min, SgTy::U32) => "UMin",
        (SgArith::Max, SgTy::F32) => "FMax",
        (SgArith::Max, SgTy::I32) => "SMax",
        (SgArith::Max, SgTy::U32) => "UMax",
        (SgArith::And, _) => "BitwiseAnd",
        (SgArith::Or, _) => "BitwiseOr",
        (SgArith::Xor, _) => "BitwiseXor",
    }
}

fn group_operation(scan: SgScan) -> &'static str {
    match scan {
        SgScan::Reduce => "Reduce",
        SgScan::Inclusive => "InclusiveScan",
        SgScan::Exclusive => "ExclusiveScan",
    }
}

/// Opens `if (cond)` with an else; returns the else and merge labels for [`close_if`].
fn open_if(s: &mut dyn Sink, cond: &str) -> (String, String) {
    let (then, els, merge) = (s.label_id(), s.label_id(), s.label_id());
    s.line(&format!("OpSelectionMerge {merge} None"));
    s.line(&format!("OpBranchConditional {cond} {then} {els}"));
    s.line(&format!("{then} = OpLabel"));
    (els, merge)
}

/// Ends the then part and, with `els`, opens the else part (ended by [`close_if`]).
fn open_else(s: &mut dyn Sink, labels: &(String, String)) {
    s.line(&format!("OpBranch {}", labels.1));
    s.line(&format!("{} = OpLabel", labels.0));
}

fn close_if(s: &mut dyn Sink, labels: (String, String)) {
    s.line(&format!("OpBranch {}", labels.1));
    s.line(&format!("{} = OpLabel", labels.1));
}

/// Block `k`'s instructions in main (after the built-ins are loaded). `b` is a KHR block
/// (`SubgroupBlock::check` keeps the others out of SPIR-V).
pub fn emit(s: &mut dyn Sink, k: usize, b: &SubgroupBlock, p: &Program) {
    debug_assert_eq!(b.ext, SgExt::Khr, "check() keeps ARB blocks out of SPIR-V");
    let sc = s.cu(SUBGROUP_SCOPE);
    let (zero, one) = (s.cu(0), s.cu(1));
    let sid = s.val("OpLoad %uint %in_sid");
    let ssz = s.val("OpLoad %uint %in_ssz");
    let sg = s.val("OpLoad %uint %in_sgid");
    // slot = wg * local_size + sg * size + sid
    let ls = s.cu(p.local_size);
    let t = s.val(&format!("OpIMul %uint %wg {ls}"));
    let u = s.val(&format!("OpIMul %uint {sg} {ssz}"));
    let t = s.val(&format!("OpIAdd %uint {t} {u}"));
    let slot = s.val(&format!("OpIAdd %uint {t} {sid}"));
    // v = mul * sid + sg_mul * sg + wg_mul * wg + add
    let v = b.value;
    let (mul, sg_mul, wg_mul, add) = (s.cu(v.mul), s.cu(v.sg_mul), s.cu(v.wg_mul), s.cu(v.add));
    let a = s.val(&format!("OpIMul %uint {mul} {sid}"));
    let m = s.val(&format!("OpIMul %uint {sg_mul} {sg}"));
    let a = s.val(&format!("OpIAdd %uint {a} {m}"));
    let m = s.val(&format!("OpIMul %uint {wg_mul} %wg"));
    let a = s.val(&format!("OpIAdd %uint {a} {m}"));
    let val = s.val(&format!("OpIAdd %uint {a} {add}"));
    // if (slot == 0) b[0] = size
    let first = s.val(&format!("OpIEqual %bool {slot} {zero}"));
    let merge = s.label_id();
    let then = s.label_id();
    s.line(&format!("OpSelectionMerge {merge} None"));
    s.line(&format!("OpBranchConditional {first} {then} {merge}"));
    s.line(&format!("{then} = OpLabel"));
    let p0 = s.val(&format!("OpAccessChain %ptr_u_uint %b{k} {zero} {zero}"));
    s.line(&format!("OpStore {p0} {ssz}"));
    s.line(&format!("OpBranch {merge}"));
    s.line(&format!("{merge} = OpLabel"));
    let rec = b.record();
    let recc = s.cu(rec);
    let base = s.val(&format!("OpIMul %uint {slot} {recc}"));
    let base = s.val(&format!("OpIAdd %uint {one} {base}"));
    let store = |s: &mut dyn Sink, c: u32, x: &str| {
        let cc = s.cu(c);
        let at = s.val(&format!("OpIAdd %uint {base} {cc}"));
        let ptr = s.val(&format!("OpAccessChain %ptr_u_uint %b{k} {zero} {at}"));
        s.line(&format!("OpStore {ptr} {x}"));
    };
    if let SgOp::Ballot(q) = b.op {
        let mask = s.cu(b.index.add);
        let bits = s.val(&format!("OpBitwiseAnd %uint {val} {mask}"));
        let pred = s.val(&format!("OpINotEqual %bool {bits} {zero}"));
        let v4 = vector(s, SgTy::U32, 4);
        let ballot = s.val(&format!("OpGroupNonUniformBallot {v4} {sc} {pred}"));
        let count = |s: &mut dyn Sink, op: &str| {
            s.val(&format!(
                "OpGroupNonUniformBallotBitCount %uint {sc} {op} {ballot}"
            ))
        };
        match q {
            BallotQuery::Count => {
                let r = count(s, "Reduce");
                store(s, 0, &r);
            }
            BallotQuery::InclusiveCount => {
                let r = count(s, "InclusiveScan");
                store(s, 0, &r);
            }
            BallotQuery::ExclusiveCount => {
                let r = count(s, "ExclusiveScan");
                store(s, 0, &r);
            }
            BallotQuery::Words => {
                for c in 0..rec {
                    let w = s.val(&format!("OpCompositeExtract %uint {ballot} {c}"));
                    store(s, c, &w);
                }
            }
        }
        return;
    }
    let n = b.lanes;
    let scalar = vector(s, b.ty, 1);
    let ty = vector(s, b.ty, n);
    // The value's components: v + comp * c, as the element type.
    let mut comps = Vec::new();
    for c in 0..u32::from(n) {
        let raw = if c == 0 {
            val.clone()
        } else {
            let d = s.cu(v.comp.wrapping_mul(c));
            s.val(&format!("OpIAdd %uint {val} {d}"))
        };
        comps.push(match b.ty {
            SgTy::U32 => raw,
            SgTy::I32 => s.val(&format!("OpBitcast %int {raw}")),
            SgTy::F32 => {
                // float(int(raw)) * 0.25: OpConvertSToF reads its operand as signed.
                let f = s.val(&format!("OpConvertSToF %float {raw}"));
                let q = s.cf(0.25);
                s.val(&format!("OpFMul %float {f} {q}"))
            }
        });
    }
    let x = if n == 1 {
        comps[0].clone()
    } else {
        s.val(&format!("OpCompositeConstruct {ty} {}", comps.join(" ")))
    };
    // The id, mask or delta: lane * sid + add (+ size) (& (size - 1)).
    let idx = b.index;
    let mut i = s.cu(idx.add);
    if idx.lane != 0 {
        let lane = s.cu(idx.lane);
        let m = s.val(&format!("OpIMul %uint {lane} {sid}"));
        i = s.val(&format!("OpIAdd %uint {m} {i}"));
    }
    if idx.size {
        i = s.val(&format!("OpIAdd %uint {ssz} {i}"));
    }
    if idx.wrap {
        let s1 = s.val(&format!("OpISub %uint {ssz} {one}"));
        i = s.val(&format!("OpBitwiseAnd %uint {i} {s1}"));
    }
    let (r, guard) = match b.op {
        SgOp::Shuffle => (
            s.val(&format!("OpGroupNonUniformShuffle {ty} {sc} {x} {i}")),
            Some(s.val(&format!("OpULessThan %bool {i} {ssz}"))),
        ),
        SgOp::ShuffleXor => {
            let r = s.val(&format!("OpGroupNonUniformShuffleXor {ty} {sc} {x} {i}"));
            let from = s.val(&format!("OpBitwiseXor %uint {sid} {i}"));
            (r, Some(s.val(&format!("OpULessThan %bool {from} {ssz}"))))
        }
        SgOp::ShuffleUp => {
            let r = s.val(&format!("OpGroupNonUniformShuffleUp {ty} {sc} {x} {i}"));
            let up = s.val(&format!("OpIAdd %uint {sid} {one}"));
            (r, Some(s.val(&format!("OpULessThan %bool {i} {up}"))))
        }
        SgOp::ShuffleDown => {
            let r = s.val(&format!("OpGroupNonUniformShuffleDown {ty} {sc} {x} {i}"));
            let left = s.val(&format!("OpISub %uint {ssz} {sid}"));
            (r, Some(s.val(&format!("OpULessThan %bool {i} {left}"))))
        }
        SgOp::Broadcast => {
            // The id is a constant (`i` is `%cu<add>`: check() keeps the index constant).
            let r = s.val(&format!("OpGroupNonUniformBroadcast {ty} {sc} {x} {i}"));
            (r, Some(s.val(&format!("OpULessThan %bool {i} {ssz}"))))
        }
        SgOp::BroadcastFirst => (
            s.val(&format!("OpGroupNonUniformBroadcastFirst {ty} {sc} {x}")),
            None,
        ),
        SgOp::Arith(scan, a) => (
            s.val(&format!(
                "OpGroupNonUniform{} {ty} {sc} {} {x}",
                arith_name(a, b.ty),
                group_operation(scan)
            )),
            None,
        ),
        SgOp::Ballot(_) => unreachable!("ballots return above"),
    };
    // Each component stored as its word (a float: +0.0 for either zero).
    let stores = |s: &mut dyn Sink, var: &str| {
        for c in 0..u32::from(n) {
            let e = if n == 1 {
                var.to_string()
            } else {
                s.val(&format!("OpCompositeExtract {scalar} {var} {c}"))
            };
            let w = match b.ty {
                SgTy::U32 => e,
                SgTy::I32 => s.val(&format!("OpBitcast %uint {e}")),
                SgTy::F32 => {
                    let fz = s.cf(0.0);
                    let is0 = s.val(&format!("OpFOrdEqual %bool {e} {fz}"));
                    let bits = s.val(&format!("OpBitcast %uint {e}"));
                    s.val(&format!("OpSelect %uint {is0} {zero} {bits}"))
                }
            };
            store(s, c, &w);
        }
    };
    match guard {
        None => stores(s, &r),
        Some(g) => {
            // The result is defined only where the source is inside the subgroup; elsewhere
            // the invocation stores its own value and never uses the undefined one.
            let labels = open_if(s, &g);
            stores(s, &r);
            open_else(s, &labels);
            stores(s, &x);
            close_if(s, labels);
        }
    }
}
