//! Four-component unsigned vectors in the fuzzer's grammar: [`VectorBlock`], a block of its
//! own (`Block::Vector`, feature `vector`) rather than statements inside compute blocks, so
//! that the scalar grammar, its reducer and its signatures stay as they were, and a
//! divergence in vector code names this area.
//!
//! A block holds two vector variables (`u0 = (gid, lid, wg, seed)`, `u1 = (seed, wg, lid,
//! gid)`: every component differs from its neighbours, so a swizzle reading the wrong one
//! shows) and one scalar `s = gid`, and runs straight-line statements:
//! - [`VStmt::Assign`]: `u<d>.<mask> = value` where `value` is a [`VExpr`]: a variable read
//!   through any four-selector swizzle (repeats and broadcasts included: GLSL 4.60 §5.5,
//!   NV_gpu_program4 2.X.4 "swizzle", SPIR-V `OpVectorShuffle`), a scalar broadcast
//!   (`uvec4(s)`, an NV scalar swizzle `t.x`, `OpCompositeConstruct`), or a component-wise
//!   operator of [`VECTOR_OPS`]. The write mask names each component at most once (a bit
//!   set), which GLSL 4.60 §5.8 requires of an l-value swizzle; components outside it keep
//!   their value (NV_gpu_program4 2.X.4 "write masks"; SPIR-V: an `OpVectorShuffle` of the old
//!   and new values, or `OpCompositeInsert` for one component). Lane `i` of the value goes to
//!   component `i` (NV `MOV R0.xz, R1` reads `R1.x` and `R1.z`; GLSL writes `u0.xz =
//!   (value).xz`).
//! - [`VStmt::Scalar`]: `s = ` a scalar [`SExpr`] over constants, `s` and extracted
//!   components (`u1.y`: GLSL §5.5, NV scalar swizzle, `OpCompositeExtract`).
//!
//! Each invocation stores `u0`, `u1` and `s` to words `12 * gid ..` of the block's buffer (a
//! 16-byte aligned stride: NV `STB.U32X4` stores whole vectors; the three words after `s`
//! stay untouched). The model ([`model`]) derives the memory from the tree alone. Emission
//! helpers for the three languages live here too ([`glsl`], [`nvasm`], [`spirv`]), so the
//! emitters only call them. The node types and the rules they keep are the tree's
//! ([`crate::ast::vector`]).

use crate::ast::vector::{SExpr, VExpr, VStmt, VectorBlock, IDENTITY, VECTOR_OPS, VVARS};
use crate::ast::{BinOp, Program};
use crate::emitters::spell::{glsl_bin, mnemonic};
use crate::oracles::model::value::{bin, BufferModel, Elem, Want, SENTINEL};
use arbitrary::{Result, Unstructured};

/// Words each invocation owns in the buffer: `u0`, `u1`, `s`, 3 untouched.
pub const STRIDE: u32 = 12;

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// The variables of one invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    pub vars: [[u32; 4]; VVARS as usize],
    pub s: u32,
}

impl State {
    pub fn new(gid: u32, lid: u32, wg: u32, seed: u32) -> State {
        State {
            vars: [[gid, lid, wg, seed], [seed, wg, lid, gid]],
            s: gid,
        }
    }
}

pub fn eval_s(e: &SExpr, st: &State) -> u32 {
    match e {
        SExpr::Const(c) => *c,
        SExpr::S => st.s,
        SExpr::Comp(v, c) => st.vars[usize::from(*v % VVARS)][usize::from(*c & 3)],
        SExpr::Bin(op, a, b) => bin(*op, eval_s(a, st), eval_s(b, st)),
    }
}

pub fn eval_v(e: &VExpr, st: &State) -> [u32; 4] {
    match e {
        // GLSL 4.60 §5.5 / NV_gpu_program4 2.X.4.2 swizzle: lane i reads the named component.
        VExpr::Var(v, swz) => {
            let r = st.vars[usize::from(*v % VVARS)];
            swz.map(|c| r[usize::from(c & 3)])
        }
        VExpr::Splat(s) => [eval_s(s, st); 4],
        VExpr::Bin(op, a, b) => {
            let (a, b) = (eval_v(a, st), eval_v(b, st));
            std::array::from_fn(|i| bin(*op, a[i], b[i]))
        }
    }
}

/// Runs `stmts`: a write mask leaves the components outside it unchanged.
pub fn exec(stmts: &[VStmt], st: &mut State) {
    for s in stmts {
        match s {
            VStmt::Assign { dst, mask, value } => {
                let x = eval_v(value, st);
                let d = &mut st.vars[usize::from(*dst % VVARS)];
                for i in 0..4 {
                    if mask & (1 << i) != 0 {
                        d[i] = x[i];
                    }
                }
            }
            VStmt::Scalar(e) => st.s = eval_s(e, st),
        }
    }
}

/// The buffer of a vector block: per invocation `u0`, `u1`, `s`, then 3 sentinels.
pub fn model(v: &VectorBlock, p: &Program) -> BufferModel {
    let mut values = Vec::new();
    for wg in 0..p.groups {
        for lid in 0..p.local_size {
            let gid = wg * p.local_size + lid;
            let mut st = State::new(gid, lid, wg, v.seed);
            exec(&v.stmts, &mut st);
            values.extend(st.vars.iter().flatten());
            values.extend([st.s, SENTINEL, SENTINEL, SENTINEL]);
        }
    }
    BufferModel {
        elem: Elem::U32,
        init: vec![SENTINEL; values.len()],
        want: vec![Want::Values { at: 0, values }],
    }
}

// ---------------------------------------------------------------------------------------
// Generation.

fn constant(u: &mut Unstructured) -> Result<u32> {
    let any = u.arbitrary()?;
    Ok(*u.choose(&[0, 1, 2, 31, 32, 0x7FFF_FFFF, 0x8000_0000, u32::MAX, any])?)
}

fn op(u: &mut Unstructured) -> Result<BinOp> {
    Ok(*u.choose(VECTOR_OPS)?)
}

fn sexpr(u: &mut Unstructured, depth: usize) -> Result<SExpr> {
    Ok(match u.int_in_range(0..=5)? {
        0 => SExpr::Const(constant(u)?),
        1 => SExpr::S,
        4 | 5 if depth < 1 => SExpr::Bin(
            op(u)?,
            Box::new(sexpr(u, depth + 1)?),
            Box::new(sexpr(u, depth + 1)?),
        ),
        _ => SExpr::Comp(u.int_in_range(0..=VVARS - 1)?, u.int_in_range(0..=3)?),
    })
}

fn swizzle(u: &mut Unstructured) -> Result<[u8; 4]> {
    Ok(match u.int_in_range(0..=3)? {
        0 => IDENTITY,
        1 => [u.int_in_range(0..=3)?; 4],
        _ => [
            u.int_in_range(0..=3)?,
            u.int_in_range(0..=3)?,
            u.int_in_range(0..=3)?,
            u.int_in_range(0..=3)?,
        ],
    })
}

fn vexpr(u: &mut Unstructured, depth: usize) -> Result<VExpr> {
    Ok(match u.int_in_range(0..=7)? {
        0 => VExpr::Splat(sexpr(u, 1)?),
        4..=7 if depth < 2 => VExpr::Bin(
            op(u)?,
            Box::new(vexpr(u, depth + 1)?),
            Box::new(vexpr(u, depth + 1)?),
        ),
        _ => VExpr::Var(u.int_in_range(0..=VVARS - 1)?, swizzle(u)?),
    })
}

/// A vector block of 1 to 6 statements.
pub fn block(u: &mut Unstructured) -> Result<VectorBlock> {
    let seed = u.arbitrary()?;
    let mut stmts = Vec::new();
    for _ in 0..u.int_in_range(1..=6)? {
        stmts.push(if u.ratio(1, 4)? {
            VStmt::Scalar(sexpr(u, 0)?)
        } else {
            let mask = if u.ratio(1, 4)? {
                15
            } else {
                u.int_in_range(1..=15)?
            };
            VStmt::Assign {
                dst: u.int_in_range(0..=VVARS - 1)?,
                mask,
                value: vexpr(u, 0)?,
            }
        });
    }
    Ok(VectorBlock { seed, stmts })
}

// ---------------------------------------------------------------------------------------
// Reduction.

fn simpler(c: u32) -> Vec<u32> {
    let mut out: Vec<u32> = [0, 1, c / 2].into_iter().filter(|&x| x < c).collect();
    out.dedup();
    out
}

fn canonical_ops(op: BinOp) -> Vec<BinOp> {
    let rank = |o: BinOp| {
        VECTOR_OPS
            .iter()
            .position(|&x| x == o)
            .unwrap_or(usize::MAX)
    };
    [BinOp::Add, BinOp::Xor]
        .into_iter()
        .filter(|&o| rank(o) < rank(op) && o != op)
        .collect()
}

fn shrink_s(e: &SExpr) -> Vec<SExpr> {
    match e {
        SExpr::Const(c) => simpler(*c).into_iter().map(SExpr::Const).collect(),
        SExpr::S | SExpr::Comp(..) => vec![SExpr::Const(0), SExpr::Const(1)],
        SExpr::Bin(op, a, b) => {
            let mut out = vec![(**a).clone(), (**b).clone(), SExpr::Const(0)];
            for o in canonical_ops(*op) {
                out.push(SExpr::Bin(o, a.clone(), b.clone()));
            }
            for x in shrink_s(a) {
                out.push(SExpr::Bin(*op, Box::new(x), b.clone()));
            }
            for x in shrink_s(b) {
                out.push(SExpr::Bin(*op, a.clone(), Box::new(x)));
            }
            out
        }
    }
}

/// Simpler vector expressions: a child in place of an operator, a constant broadcast in
/// place of anything else, an identity swizzle, a canonical operator, then a child shrunk.
/// Each goes one way only, so reduction cannot cycle.
fn shrink_v(e: &VExpr) -> Vec<VExpr> {
    let zero = VExpr::Splat(SExpr::Const(0));
    match e {
        VExpr::Var(v, swz) => {
            let mut out = vec![zero];
            if *swz != IDENTITY {
                out.push(VExpr::Var(*v, IDENTITY));
            }
            out
        }
        VExpr::Splat(s) => shrink_s(s).into_iter().map(VExpr::Splat).collect(),
        VExpr::Bin(op, a, b) => {
            let mut out = vec![(**a).clone(), (**b).clone(), zero];
            for o in canonical_ops(*op) {
                out.push(VExpr::Bin(o, a.clone(), b.clone()));
            }
            for x in shrink_v(a) {
                out.push(VExpr::Bin(*op, Box::new(x), b.clone()));
            }
            for x in shrink_v(b) {
                out.push(VExpr::Bin(*op, a.clone(), Box::new(x)));
            }
            out
        }
    }
}

/// Smaller blocks for the reducer: a statement dropped, a partial mask widened to all four
/// components or narrowed to its lowest one, a value or scalar shrunk, the seed 0.
pub fn shrink(v: &VectorBlock) -> Vec<VectorBlock> {
    let mut out = Vec::new();
    let with = |i: usize, s: VStmt| {
        let mut x = v.clone();
        x.stmts[i] = s;
        x
    };
    for (i, s) in v.stmts.iter().enumerate() {
        let mut x = v.clone();
        x.stmts.remove(i);
        out.push(x);
        match s {
            VStmt::Assign { dst, mask, value } => {
                // Masks go one way: a partial mask widens to all four components, or two or
                // three narrow to the lowest one (which can still widen); a full mask stays.
                let low = mask & mask.wrapping_neg();
                for m in [15, low] {
                    if *mask != 15 && m != *mask {
                        let value = value.clone();
                        out.push(with(
                            i,
                            VStmt::Assign {
                                dst: *dst,
                                mask: m,
                                value,
                            },
                        ));
                    }
                }
                for value in shrink_v(value) {
                    out.push(with(
                        i,
                        VStmt::Assign {
                            dst: *dst,
                            mask: *mask,
                            value,
                        },
                    ));
                }
            }
            VStmt::Scalar(e) => {
                for e in shrink_s(e) {
                    out.push(with(i, VStmt::Scalar(e)));
                }
            }
        }
    }
    if v.seed != 0 {
        out.push(VectorBlock {
            seed: 0,
            ..v.clone()
        });
    }
    out
}

// ---------------------------------------------------------------------------------------
// GLSL: `uvec4 u0, u1; uint s;` in the block's scope.

fn letters(swz: &[u8]) -> String {
    swz.iter().map(|&c| XYZW[usize::from(c & 3)]).collect()
}

fn mask_letters(mask: u8) -> String {
    (0..4)
        .filter(|i| mask & (1 << i) != 0)
        .map(|i| XYZW[i])
        .collect()
}

fn glsl_s(e: &SExpr) -> String {
    match e {
        SExpr::Const(c) => format!("{c}u"),
        SExpr::S => "s".into(),
        SExpr::Comp(v, c) => format!("u{v}.{}", XYZW[usize::from(*c & 3)]),
        SExpr::Bin(op, a, b) => glsl_bin(*op, &glsl_s(a), &glsl_s(b), false),
    }
}

fn glsl_v(e: &VExpr) -> String {
    match e {
        VExpr::Var(v, swz) if *swz == IDENTITY => format!("u{v}"),
        VExpr::Var(v, swz) => format!("u{v}.{}", letters(swz)),
        VExpr::Splat(s) => format!("uvec4({})", glsl_s(s)),
        VExpr::Bin(op, a, b) => glsl_bin(*op, &glsl_v(a), &glsl_v(b), true),
    }
}

/// The statements of block `k` (inside its braces), reading `gid`, `lid`, `wg`.
pub fn glsl(k: usize, v: &VectorBlock) -> Vec<String> {
    let mut out = vec![
        format!(
            "uvec4 u0 = uvec4(gid, lid, wg, {s}u), u1 = uvec4({s}u, wg, lid, gid);",
            s = v.seed
        ),
        "uint s = gid;".to_string(),
    ];
    for s in &v.stmts {
        out.push(match s {
            VStmt::Assign {
                dst,
                mask: 15,
                value,
            } => format!("u{dst} = {};", glsl_v(value)),
            // GLSL 4.60 §5.8: the l-value swizzle names each component once (a bit set).
            VStmt::Assign { dst, mask, value } => {
                let m = mask_letters(*mask);
                format!("u{dst}.{m} = ({}).{m};", glsl_v(value))
            }
            VStmt::Scalar(e) => format!("s = {};", glsl_s(e)),
        });
    }
    for (w, name) in [
        "u0.x", "u0.y", "u0.z", "u0.w", "u1.x", "u1.y", "u1.z", "u1.w", "s",
    ]
    .iter()
    .enumerate()
    {
        out.push(format!("b{k}[{STRIDE}u * gid + {w}u] = {name};"));
    }
    out
}

// ---------------------------------------------------------------------------------------
// NV assembly: registers `x<k>a`, `x<k>b` (u0, u1), `x<k>s.x` and temporaries `x<k>t<n>`.

/// NV assembly of block `k`: the temporaries to declare and the instructions (without `;`),
/// reading the global, local and group index from `gid`, `lid`, `wg`.
pub struct NvText {
    pub temps: Vec<String>,
    pub insts: Vec<String>,
}

struct Nv {
    k: usize,
    temps: usize,
    insts: Vec<String>,
}

/// The NV instruction of a vector operator (component-wise: every vector operator has
/// one, [`mnemonic`]).
fn nv_mnemonic(op: BinOp) -> &'static str {
    debug_assert!(
        VECTOR_OPS.contains(&op),
        "{} is not a vector operator",
        op.name()
    );
    mnemonic(op)
}

impl Nv {
    fn var(&self, v: u8) -> String {
        format!("x{}{}", self.k, ['a', 'b'][usize::from(v % VVARS)])
    }

    fn temp(&mut self) -> String {
        self.temps += 1;
        format!("x{}t{}", self.k, self.temps - 1)
    }

    /// A scalar operand (a register component; literals go through a register, since a
    /// signed instruction may not take one above i32::MAX: NV_gpu_program4 2.X.3.3).
    fn s(&mut self, e: &SExpr) -> String {
        match e {
            SExpr::Const(c) => {
                let t = self.temp();
                self.insts.push(format!("MOV.U {t}.x, {c}"));
                format!("{t}.x")
            }
            SExpr::S => format!("x{}s.x", self.k),
            SExpr::Comp(v, c) => format!("{}.{}", self.var(*v), XYZW[usize::from(*c & 3)]),
            SExpr::Bin(op, a, b) => {
                let t = self.temp();
                self.bin(*op, &format!("{t}.x"), &**a, &**b);
                format!("{t}.x")
            }
        }
    }

    fn bin<E: NvOperand>(&mut self, op: BinOp, dst: &str, a: &E, b: &E) {
        let a = a.operand(self);
        let b = b.operand(self);
        if !matches!(op, BinOp::Shl | BinOp::ShrU | BinOp::ShrS) {
            self.insts
                .push(format!("{} {dst}, {a}, {b}", nv_mnemonic(op)));
            return;
        }
        // Counts masked to 0-31, as the model takes them. SHL and SHR shift every component
        // by one scalar count (NV_gpu_program4 2.X.8.Z: `tmp1 = ScalarLoad(op1)`), so a
        // vector shift is one instruction per component, each with its write mask.
        let n = self.temp();
        self.insts
            .push(format!("AND.U {n}, {b}, {{31, 31, 31, 31}}"));
        let m = nv_mnemonic(op);
        if E::VECTOR {
            let t = self.temp();
            for c in XYZW {
                self.insts.push(format!("{m} {t}.{c}, {a}, {n}.{c}"));
            }
            self.insts.push(format!("MOV.U {dst}, {t}"));
        } else {
            self.insts.push(format!("{m} {dst}, {a}, {n}.x"));
        }
    }

    /// A vector operand: a variable with its swizzle (NV_gpu_program4 2.X.4.2: a single
    /// component is replicated), a broadcast scalar, or a temporary.
    fn v(&mut self, e: &VExpr) -> String {
        match e {
            VExpr::Var(v, swz) if *swz == IDENTITY => self.var(*v),
            VExpr::Var(v, swz) => format!("{}.{}", self.var(*v), letters(swz)),
            VExpr::Splat(s) => self.s(s),
            VExpr::Bin(op, a, b) => {
                let t = self.temp();
                self.bin(*op, &t, &**a, &**b);
                t
            }
        }
    }
}

trait NvOperand {
    const VECTOR: bool;
    fn operand(&self, nv: &mut Nv) -> String;
}

impl NvOperand for SExpr {
    const VECTOR: bool = false;
    fn operand(&self, nv: &mut Nv) -> String {
        nv.s(self)
    }
}

impl NvOperand for VExpr {
    const VECTOR: bool = true;
    fn operand(&self, nv: &mut Nv) -> String {
        nv.v(self)
    }
}

pub fn nvasm(k: usize, v: &VectorBlock, gid: &str, lid: &str, wg: &str) -> NvText {
    let mut nv = Nv {
        k,
        temps: 0,
        insts: Vec::new(),
    };
    let (a, b) = (nv.var(0), nv.var(1));
    nv.insts.extend([
        format!("MOV.U {a}.x, {gid}"),
        format!("MOV.U {a}.y, {lid}"),
        format!("MOV.U {a}.z, {wg}"),
        format!("MOV.U {a}.w, {}", v.seed),
        format!("MOV.U {b}, {a}.wzyx"),
        format!("MOV.U x{k}s.x, {gid}"),
    ]);
    for s in &v.stmts {
        match s {
            VStmt::Assign { dst, mask, value } => {
                // The write mask on the instruction that computes the value (2.X.4.3).
                let m = if *mask == 15 {
                    String::new()
                } else {
                    format!(".{}", mask_letters(*mask))
                };
                let d = format!("{}{m}", nv.var(*dst));
                match value {
                    VExpr::Bin(op, x, y) => nv.bin(*op, &d, &**x, &**y),
                    other => {
                        let x = nv.v(other);
                        nv.insts.push(format!("MOV.U {d}, {x}"));
                    }
                }
            }
            VStmt::Scalar(SExpr::Bin(op, x, y)) => nv.bin(*op, &format!("x{k}s.x"), &**x, &**y),
            VStmt::Scalar(e) => {
                let x = nv.s(e);
                nv.insts.push(format!("MOV.U x{k}s.x, {x}"));
            }
        }
    }
    nv.insts.extend([
        format!("MUL.U a{k}.x, {gid}, {}", 4 * STRIDE),
        format!("STB.U32X4 {a}, b{k}[a{k}.x]"),
        format!("ADD.U a{k}.x, a{k}.x, 16"),
        format!("STB.U32X4 {b}, b{k}[a{k}.x]"),
        format!("ADD.U a{k}.x, a{k}.x, 16"),
        format!("STB.U32 x{k}s.x, b{k}[a{k}.x]"),
    ]);
    let mut temps = vec![a, b, format!("x{k}s")];
    temps.extend((0..nv.temps).map(|t| format!("x{k}t{t}")));
    NvText {
        temps,
        insts: nv.insts,
    }
}

// ---------------------------------------------------------------------------------------
// SPIR-V: straight-line code, so the variables are SSA values (`%q<k>_<n>`) of `%v4uint`.

/// SPIR-V of block `k`: the instructions (over `%gid`, `%lid`, `%wg`, the `%cu<v>` uint
/// constants listed in `consts`, `%v4uint`, `%ptr_u_uint` and `%b<k>`).
pub struct SpvText {
    pub lines: Vec<String>,
    pub consts: Vec<u32>,
}

/// The declaration the module needs for [`spirv`]'s code.
pub const SPIRV_TYPE: &str = "%v4uint = OpTypeVector %uint 4\n";

struct Spv {
    k: usize,
    next: usize,
    lines: Vec<String>,
    consts: Vec<u32>,
    vars: [String; VVARS as usize],
    s: String,
}

impl Spv {
    fn val(&mut self, rhs: String) -> String {
        self.next += 1;
        let id = format!("%q{}_{}", self.k, self.next);
        self.lines.push(format!("{id} = {rhs}"));
        id
    }

    fn cu(&mut self, v: u32) -> String {
        self.consts.push(v);
        format!("%cu{v}")
    }

    fn bin(&mut self, op: BinOp, a: &str, b: &str, vec: bool) -> String {
        let ty = if vec { "%v4uint" } else { "%uint" };
        let b = if matches!(op, BinOp::Shl | BinOp::ShrU | BinOp::ShrS) {
            let m = self.cu(31);
            let m = if vec {
                self.val(format!("OpCompositeConstruct %v4uint {m} {m} {m} {m}"))
            } else {
                m
            };
            self.val(format!("OpBitwiseAnd {ty} {b} {m}"))
        } else {
            b.to_string()
        };
        let rhs = match op {
            BinOp::Add => "OpIAdd",
            BinOp::Sub => "OpISub",
            BinOp::Mul => "OpIMul",
            BinOp::And => "OpBitwiseAnd",
            BinOp::Or => "OpBitwiseOr",
            BinOp::Xor => "OpBitwiseXor",
            BinOp::Shl => "OpShiftLeftLogical",
            BinOp::ShrU => "OpShiftRightLogical",
            BinOp::ShrS => "OpShiftRightArithmetic",
            // GLSL.std.450 on `%uint` bits; SMin/SMax read them as signed.
            BinOp::MinU | BinOp::MaxU | BinOp::MinS | BinOp::MaxS => {
                let f = match op {
                    BinOp::MinU => "UMin",
                    BinOp::MaxU => "UMax",
                    BinOp::MinS => "SMin",
                    _ => "SMax",
                };
                return self.val(format!("OpExtInst {ty} %glsl {f} {a} {b}"));
            }
            other => unreachable!("{} is not a vector operator (check)", other.name()),
        };
        self.val(format!("{rhs} {ty} {a} {b}"))
    }

    fn s(&mut self, e: &SExpr) -> String {
        match e {
            SExpr::Const(c) => self.cu(*c),
            SExpr::S => self.s.clone(),
            SExpr::Comp(v, c) => {
                let x = self.vars[usize::from(*v % VVARS)].clone();
                self.val(format!("OpCompositeExtract %uint {x} {}", c & 3))
            }
            SExpr::Bin(op, a, b) => {
                let (a, b) = (self.s(a), self.s(b));
                self.bin(*op, &a, &b, false)
            }
        }
    }

    fn v(&mut self, e: &VExpr) -> String {
        match e {
            VExpr::Var(v, swz) => {
                let x = self.vars[usize::from(*v % VVARS)].clone();
                if *swz == IDENTITY {
                    x
                } else {
                    let [a, b, c, d] = swz.map(|c| c & 3);
                    self.val(format!("OpVectorShuffle %v4uint {x} {x} {a} {b} {c} {d}"))
                }
            }
            VExpr::Splat(s) => {
                let x = self.s(s);
                self.val(format!("OpCompositeConstruct %v4uint {x} {x} {x} {x}"))
            }
            VExpr::Bin(op, a, b) => {
                let (a, b) = (self.v(a), self.v(b));
                self.bin(*op, &a, &b, true)
            }
        }
    }
}

pub fn spirv(k: usize, v: &VectorBlock) -> SpvText {
    let mut sp = Spv {
        k,
        next: 0,
        lines: Vec::new(),
        consts: Vec::new(),
        vars: [String::new(), String::new()],
        s: "%gid".into(),
    };
    let seed = sp.cu(v.seed);
    sp.vars[0] = sp.val(format!("OpCompositeConstruct %v4uint %gid %lid %wg {seed}"));
    sp.vars[1] = sp.val(format!("OpCompositeConstruct %v4uint {seed} %wg %lid %gid"));
    for s in &v.stmts {
        match s {
            VStmt::Assign { dst, mask, value } => {
                let new = sp.v(value);
                let d = usize::from(*dst % VVARS);
                let old = sp.vars[d].clone();
                sp.vars[d] = if *mask == 15 {
                    new
                } else if mask.count_ones() == 1 {
                    let c = mask.trailing_zeros();
                    let x = sp.val(format!("OpCompositeExtract %uint {new} {c}"));
                    sp.val(format!("OpCompositeInsert %v4uint {x} {old} {c}"))
                } else {
                    // Lane i from the new value (operand 2: 4 + i) where the mask has it.
                    let sel: Vec<String> = (0..4)
                        .map(|i| (if mask & (1 << i) != 0 { 4 + i } else { i }).to_string())
                        .collect();
                    sp.val(format!(
                        "OpVectorShuffle %v4uint {old} {new} {}",
                        sel.join(" ")
                    ))
                };
            }
            VStmt::Scalar(e) => sp.s = sp.s(e),
        }
    }
    let width = sp.cu(STRIDE);
    let base = sp.val(format!("OpIMul %uint %gid {width}"));
    let zero = sp.cu(0);
    for w in 0..9u32 {
        let x = match w {
            8 => sp.s.clone(),
            _ => {
                let vec = sp.vars[(w / 4) as usize].clone();
                sp.val(format!("OpCompositeExtract %uint {vec} {}", w % 4))
            }
        };
        let off = sp.cu(w);
        let at = sp.val(format!("OpIAdd %uint {base} {off}"));
        let ptr = sp.val(format!("OpAccessChain %ptr_u_uint %b{k} {zero} {at}"));
        sp.lines.push(format!("OpStore {ptr} {x}"));
    }
    SpvText {
        lines: sp.lines,
        consts: sp.consts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::vector::check;
    use crate::ast::{Block, Lang};
    use crate::{load_case, observe, ReferenceTarget, Target};
    use quickcheck::quickcheck;

    fn var(v: u8, swz: [u8; 4]) -> VExpr {
        VExpr::Var(v, swz)
    }

    fn vbin(op: BinOp, a: VExpr, b: VExpr) -> VExpr {
        VExpr::Bin(op, Box::new(a), Box::new(b))
    }

    fn splat(c: u32) -> VExpr {
        VExpr::Splat(SExpr::Const(c))
    }

    fn assign(dst: u8, mask: u8, value: VExpr) -> VStmt {
        VStmt::Assign { dst, mask, value }
    }

    /// `u0.yw = u1.wzyx + uvec4(1); s = u0.w - u1.x; u1.x = uvec4(s) << u0.yyyy;`
    fn sample() -> VectorBlock {
        VectorBlock {
            seed: 9,
            stmts: vec![
                assign(0, 0b1010, vbin(BinOp::Add, var(1, [3, 2, 1, 0]), splat(1))),
                VStmt::Scalar(SExpr::Bin(
                    BinOp::Sub,
                    Box::new(SExpr::Comp(0, 3)),
                    Box::new(SExpr::Comp(1, 0)),
                )),
                assign(
                    1,
                    0b0001,
                    vbin(BinOp::Shl, VExpr::Splat(SExpr::S), var(0, [1, 1, 1, 1])),
                ),
            ],
        }
    }

    #[test]
    fn masks_keep_the_other_components_and_swizzles_read_the_named_ones() {
        // gid 5, lid 1, wg 2, seed 9: u0 = (5, 1, 2, 9), u1 = (9, 2, 1, 5), s = 5.
        let mut st = State::new(5, 1, 2, 9);
        exec(&sample().stmts, &mut st);
        // u1.wzyx + 1 = (6, 2, 3, 10); the mask .yw writes lanes y and w only (GLSL 4.60
        // section 5.8, NV_gpu_program4 2.X.4.3): u0 = (5, 2, 2, 10). s = u0.w - u1.x = 1.
        // u1.x = 1 << u0.y = 4.
        assert_eq!(st.vars, [[5, 2, 2, 10], [4, 2, 1, 5]]);
        assert_eq!(st.s, 1);
        // Signed minimum and arithmetic shift per lane.
        let mut st = State::new(0, 0x8000_0000, 7, u32::MAX);
        let min = vbin(BinOp::MinS, var(0, [0, 1, 2, 3]), splat(3));
        let shr = vbin(BinOp::ShrS, var(0, [0, 0, 1, 1]), var(1, [2, 2, 2, 2]));
        exec(&[assign(0, 15, min), assign(1, 0b0011, shr)], &mut st);
        assert_eq!(st.vars[0], [0, 0x8000_0000, 3, u32::MAX]);
        // u1 was (MAX, 7, 0x8000_0000, 0): counts u1.z & 31 = 0.
        assert_eq!(st.vars[1], [0, 0, 0x8000_0000, 0]);
    }

    quickcheck! {
        /// Two complementary masks write what one full assignment writes (of a value that
        /// does not read the destination).
        fn complementary_masks_make_a_full_write(mask: u8, c: u32, swz: u8, gid: u32, seed: u32) -> bool {
            let m = 1 + mask % 14;
            let swz = [swz & 3, (swz >> 2) & 3, (swz >> 4) & 3, swz >> 6];
            let e = vbin(BinOp::Xor, var(1, swz), splat(c));
            let (mut a, mut b) = (State::new(gid, 3, 1, seed), State::new(gid, 3, 1, seed));
            exec(&[assign(0, m, e.clone()), assign(0, 15 ^ m, e.clone())], &mut a);
            exec(&[assign(0, 15, e)], &mut b);
            a == b
        }

        /// An identity swizzle is a no-op, and a swizzle of a copy reads what the swizzle of
        /// the original reads.
        fn identity_swizzles_change_nothing(swz: u8, gid: u32, lid: u32, seed: u32) -> bool {
            let swz = [swz & 3, (swz >> 2) & 3, (swz >> 4) & 3, swz >> 6];
            let st = State::new(gid, lid, 4, seed);
            let mut same = st;
            exec(&[assign(0, 15, var(0, IDENTITY))], &mut same);
            let mut copy = st;
            exec(&[assign(0, 15, var(1, IDENTITY))], &mut copy);
            same == st && eval_v(&var(0, swz), &copy) == eval_v(&var(1, swz), &st)
        }

        /// Every shrink of a generated block keeps the rules.
        fn shrinks_keep_the_rules(bytes: Vec<u8>) -> bool {
            let v = block(&mut Unstructured::new(&bytes)).unwrap();
            check(&v).is_ok() && shrink(&v).iter().all(|x| check(x).is_ok())
        }

        /// Shrinks go one way: any chain of them ends (no cycle, such as a mask narrowed
        /// and widened back).
        fn shrinking_ends(bytes: Vec<u8>, picks: Vec<u8>) -> bool {
            let mut v = block(&mut Unstructured::new(&bytes)).unwrap();
            for step in 0..10_000 {
                let c = shrink(&v);
                if c.is_empty() {
                    return true;
                }
                let pick = picks.get(step % picks.len().max(1)).copied().unwrap_or(0);
                v = c[usize::from(pick) % c.len()].clone();
            }
            false
        }
    }

    #[test]
    fn the_vector_operators_are_the_component_wise_ones() {
        let names: Vec<&str> = VECTOR_OPS.iter().map(|o| o.name()).collect();
        assert_eq!(
            names,
            [
                "add", "sub", "mul", "and", "or", "xor", "shl", "shru", "shrs", "minu", "maxu",
                "mins", "maxs"
            ]
        );
    }

    #[test]
    fn glsl_text() {
        assert_eq!(
            glsl(2, &sample())[2..5],
            [
                "u0.yw = ((u1.wzyx + uvec4(1u))).yw;",
                "s = (u0.w - u1.x);",
                "u1.x = ((uvec4(s) << (u0.yyyy & 31u))).x;",
            ]
        );
        assert_eq!(glsl(2, &sample())[13], "b2[12u * gid + 8u] = s;");
    }

    #[test]
    fn nvasm_text() {
        let nv = nvasm(1, &sample(), "G", "L", "W");
        let text = nv.insts.join("\n");
        for line in [
            "MOV.U x1b, x1a.wzyx",
            "MOV.U x1t0.x, 1",
            "ADD.U x1a.yw, x1b.wzyx, x1t0.x",
            "SUB.U x1s.x, x1a.w, x1b.x",
            // One shift per component, each by its scalar count, then the masked move.
            "AND.U x1t1, x1a.yyyy, {31, 31, 31, 31}",
            "SHL.U x1t2.z, x1s.x, x1t1.z",
            "MOV.U x1b.x, x1t2",
            "STB.U32X4 x1b, b1[a1.x]",
        ] {
            assert!(text.contains(line), "{line} not in\n{text}");
        }
        assert_eq!(nv.temps, ["x1a", "x1b", "x1s", "x1t0", "x1t1", "x1t2"]);
    }

    #[test]
    fn spirv_text() {
        let sp = spirv(0, &sample());
        let text = sp.lines.join("\n");
        for line in [
            "%q0_3 = OpVectorShuffle %v4uint %q0_2 %q0_2 3 2 1 0",
            "%q0_5 = OpIAdd %v4uint %q0_3 %q0_4",
            // The mask .yw: lanes y and w from the new value (operand 2).
            "%q0_6 = OpVectorShuffle %v4uint %q0_1 %q0_5 0 5 2 7",
            "%q0_7 = OpCompositeExtract %uint %q0_6 3",
            // One component: an insert.
            "OpCompositeInsert %v4uint",
        ] {
            assert!(text.contains(line), "{line} not in\n{text}");
        }
        assert!(sp.consts.contains(&31) && sp.consts.contains(&12));
    }

    /// The sample and a block of every operator run on the reference in every language
    /// and give the model's memory.
    #[test]
    fn every_language_agrees_with_the_model_on_the_reference() {
        let ops = VectorBlock {
            seed: 0x8000_0001,
            stmts: VECTOR_OPS
                .iter()
                .enumerate()
                .map(|(i, &op)| {
                    let a = var((i % 2) as u8, [(i % 4) as u8, 3, 0, 1]);
                    let b = vbin(BinOp::Add, var(1, [3, 3, 2, 2]), splat(i as u32));
                    assign(((i + 1) % 2) as u8, 1 + (i % 15) as u8, vbin(op, a, b))
                })
                .collect(),
        };
        let mut target = Target {
            name: "reference".into(),
            is_reference: true,
            exec: Box::new(ReferenceTarget::default()),
        };
        for lang in Lang::ALL {
            let p = Program {
                lang,
                local_size: 3,
                groups: 2,
                blocks: vec![Block::Vector(sample()), Block::Vector(ops.clone())],
                shape: None,
            };
            assert_eq!(p.check(), Ok(()));
            let (case, text) = load_case(&p, "fuzz-test", "vectors").unwrap();
            let d = observe(&p, &case, &mut target).expect("the reference runs it");
            assert!(d.is_empty(), "{lang:?}: {d:#?}\n{}", text.yaml);
        }
    }
}
