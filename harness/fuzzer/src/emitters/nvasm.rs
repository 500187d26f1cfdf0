//! Program tree → NV assembly compute program (`!!NVcp5.0`, NV_gpu_program4/5 syntax).
//!
//! Storage buffers are `STORAGE b<k>[] = { program.storage[k] }` (byte addressed, through
//! `OPTION NV_shader_storage_buffer`); shared words and arrays share one `SHARED_MEMORY`
//! region. Expressions become one instruction per operator writing a fresh temporary
//! component; conditions go through condition codes (`SNE.U.CC` then `IF NE` or a conditional
//! `MOV`). Integer set-on instructions give all ones for TRUE, so comparisons are masked with
//! 1 to match the model's 0/1.

use crate::ast::*;
use crate::emitters::glsl::Emitted;
use crate::emitters::spell::{mnemonic, power_of_two, xyz};
use crate::oracles::model::{atomic_finals, quarters};
use std::fmt::Write;

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

const LID: &str = "invocation.localindex.x";
const GID: &str = "invocation.globalid.x";
const WG: &str = "invocation.groupid.x";

/// The program of `p`, which must satisfy [`Program::check`].
pub fn emit(p: &Program) -> Emitted {
    let mut a = Asm {
        shaped: p.shape.is_some(),
        ..Asm::default()
    };
    let mut decls = String::new();
    let mut shared_bytes = 0u32;
    for (k, b) in p.blocks.iter().enumerate() {
        let _ = writeln!(decls, "STORAGE b{k}[] = {{ program.storage[{k}] }};");
        a.temps.push(format!("r{k}, a{k}"));
        a.comment(&format!("block {k}: {}", b.feature()));
        match b {
            Block::Atomic(at) => atomic(&mut a, k, at, p, &mut shared_bytes),
            Block::Section(s) => section(&mut a, k, s, &mut shared_bytes),
            Block::Exchange(x) => exchange(&mut a, k, x, p, &mut shared_bytes),
            Block::Shuffle(s) => shuffle(&mut a, k, s),
            Block::Compute(c) => compute(&mut a, k, c),
            Block::FloatAtomic(f) => float_atomic(&mut a, k, f, p, &mut shared_bytes),
            Block::Narrow(n) => narrow(&mut a, k, n, p, &mut shared_bytes),
            Block::AtomicMix(m) => atomic_mix(&mut a, k, m, p, &mut shared_bytes),
            Block::Undefined(u) => undefined(&mut a, k, u, p, &mut shared_bytes),
            Block::Subgroup(_) => unreachable!("Program::check keeps subgroup blocks in GLSL"),
            Block::Vector(v) => {
                let nv = crate::features::vector::nvasm(k, v, GID, LID, WG);
                a.temps.extend(nv.temps);
                nv.insts.iter().for_each(|i| a.inst(i));
            }
        }
    }
    let mut text = String::from("!!NVcp5.0\nOPTION NV_shader_storage_buffer;\n");
    if p.has_float_atomics() {
        text.push_str("OPTION NV_shader_atomic_float;\n");
    }
    if p.needs_shuffle() {
        text.push_str("OPTION NV_shader_thread_shuffle;\n");
    }
    if p.uses_wide() {
        a.temps.push(crate::features::wide::NV_WORDS.into());
        let _ = writeln!(decls, "LONG TEMP {};", crate::features::wide::NV_LONG);
    }
    let [x, y, z] = p.local_dims();
    if p.shape.is_some() {
        let _ = writeln!(text, "GROUP_SIZE {x} {y} {z};");
        // Linear indices (ast::Shape) in `gl`: the blocks' global and group indices.
        let [gx, gy, _] = p.group_dims();
        let body = std::mem::take(&mut a.body)
            .replace(GID, "gl.x")
            .replace(WG, "gl.y");
        a.subroutines = a
            .subroutines
            .iter()
            .map(|s| s.replace(GID, "gl.x").replace(WG, "gl.y"))
            .collect();
        a.temps.push("gl, gd".into());
        a.inst("MOV.U gd, invocation.groupid");
        a.inst(&format!("MAD.U gl.y, gd.z, {gy}, gd.y"));
        a.inst(&format!("MAD.U gl.y, gl.y, {gx}, gd.x"));
        a.inst(&format!("MAD.U gl.x, gl.y, {}, {LID}", p.local_size));
        a.body.push_str(&body);
    } else {
        let _ = writeln!(text, "GROUP_SIZE {x};");
    }
    if shared_bytes > 0 {
        let _ = writeln!(text, "SHARED_MEMORY {shared_bytes};");
        text.push_str("SHARED sh[] = { program.sharedmem };\n");
    }
    text.push_str(&decls);
    let mut temps = a.temps.clone();
    temps.extend((0..a.scratch.div_ceil(4)).map(|i| format!("e{i}")));
    let _ = writeln!(text, "TEMP {};", temps.join(", "));
    text.push_str(&a.body);
    if !a.subroutines.is_empty() {
        // The main code ends here; the subroutines follow their labels.
        text.push_str("RET;\n");
        a.subroutines.iter().for_each(|s| text.push_str(s));
    }
    text.push_str("END\n");
    Emitted {
        text,
        instructions: a.instructions,
    }
}

#[derive(Default)]
struct Asm {
    body: String,
    depth: usize,
    instructions: usize,
    /// Named temporaries to declare.
    temps: Vec<String>,
    /// Scratch components handed out (`e0.x`, `e0.y`, ...).
    scratch: usize,
    /// Subroutines called with CAL, in order (each its label, body and RET).
    subroutines: Vec<String>,
    /// A 2D or 3D program: the group ID is read from `gd`, a copy taken first.
    shaped: bool,
}

impl Asm {
    fn inst(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.body.push_str("  ");
        }
        self.body.push_str(s);
        self.body.push_str(";\n");
        self.instructions += 1;
    }

    fn comment(&mut self, s: &str) {
        let _ = writeln!(self.body, "# {s}");
    }

    /// A fresh scratch component, and the letter of its component (for CC tests).
    fn fresh(&mut self) -> (String, char) {
        let i = self.scratch;
        self.scratch += 1;
        let c = COMPONENTS[i % 4];
        (format!("e{}.{c}", i / 4), c)
    }

    /// `IF` on `a <set-on> b` (`setop` is a set-on instruction such as `SLT.U`): sets a
    /// scratch component with condition codes and tests it.
    fn if_set(&mut self, setop: &str, a: &str, b: &str) {
        let (t, c) = self.fresh();
        self.inst(&format!("{setop}.CC {t}, {a}, {b}"));
        self.inst(&format!("IF NE.{c}"));
        self.depth += 1;
    }

    fn else_(&mut self) {
        self.depth -= 1;
        self.inst("ELSE");
        self.depth += 1;
    }

    fn endif(&mut self) {
        self.depth -= 1;
        self.inst("ENDIF");
    }

    /// A register operand holding `operand` (stores take registers, not literals).
    /// An operand of a signed instruction: a literal above i32::MAX is moved into a register
    /// as unsigned first, since a signed operand may not be written as a constant too large
    /// for it (NV_gpu_program4 2.X.3.3).
    fn signed_operand(&mut self, operand: String) -> String {
        match operand.parse::<u32>() {
            Ok(v) if v > i32::MAX as u32 => self.reg(operand),
            _ => operand,
        }
    }

    fn reg(&mut self, operand: String) -> String {
        if operand.starts_with(|c: char| c.is_ascii_digit()) {
            let (t, _) = self.fresh();
            self.inst(&format!("MOV.U {t}, {operand}"));
            t
        } else {
            operand
        }
    }

    fn shared_barrier(&mut self) {
        self.inst("MEMBAR.CTA");
        self.inst("BAR");
    }

    /// Runs `f` in invocation 0 of each group only.
    fn in_lid0(&mut self, f: impl FnOnce(&mut Asm)) {
        self.if_set("SEQ.U", LID, "0");
        f(self);
        self.endif();
    }

    fn expr(&mut self, e: &Expr, env: &ExprEnv) -> String {
        match e {
            Expr::Const(c) => c.to_string(),
            Expr::Lid => LID.into(),
            Expr::Gid => GID.into(),
            Expr::Wg => WG.into(),
            Expr::LocalId(d) => format!("invocation.localid.{}", xyz(*d)),
            Expr::GroupId(d) if self.shaped => format!("gd.{}", xyz(*d)),
            Expr::GroupId(d) => format!("invocation.groupid.{}", xyz(*d)),
            Expr::Ticket => env.ticket.clone(),
            Expr::Var(v) => format!("c{}.{}", env.block, COMPONENTS[usize::from(*v) % 4]),
            Expr::LoopIdx(d) => format!("{}.{}", env.indices, COMPONENTS[usize::from(*d) % 4]),
            Expr::Un(op, a) => {
                let a = self.expr(a, env);
                let (t, _) = self.fresh();
                match op {
                    UnOp::Not => self.inst(&format!("NOT.U {t}, {a}")),
                    UnOp::Neg => self.inst(&format!("SUB.U {t}, 0, {a}")),
                    UnOp::BitCount => self.inst(&format!("BTC.U {t}, {a}")),
                    UnOp::BitReverse => self.inst(&format!("BFR.U {t}, {a}")),
                    UnOp::FindLsb => self.inst(&format!("BTFL.U {t}, {a}")),
                    UnOp::FindMsb => self.inst(&format!("BTFM.U {t}, {a}")),
                    UnOp::FindMsbS => {
                        let a = self.signed_operand(a);
                        self.inst(&format!("BTFM.S {t}, {a}"))
                    }
                    UnOp::AbsS => {
                        let a = self.signed_operand(a);
                        let m = self.signed_operand(0x8000_0001u32.to_string());
                        self.inst(&format!("MAX.S {t}, {a}, {m}"));
                        self.inst(&format!("ABS.S {t}, {t}"))
                    }
                    UnOp::SignS => {
                        // SSG takes floats only (NV_gpu_program4): (a < 0) - (a > 0) on the
                        // set-on results, which are -1 for TRUE.
                        let a = self.signed_operand(a);
                        let (n, p) = (self.fresh().0, self.fresh().0);
                        self.inst(&format!("SLT.S {n}, {a}, 0"));
                        self.inst(&format!("SGT.S {p}, {a}, 0"));
                        self.inst(&format!("SUB.S {t}, {n}, {p}"))
                    }
                    UnOp::LNot => {
                        self.inst(&format!("SEQ.U {t}, {a}, 0"));
                        self.inst(&format!("AND.U {t}, {t}, 1"))
                    }
                }
                t
            }
            Expr::Clamp {
                value,
                lo,
                hi,
                signed,
            } => {
                // No integer clamp in NV_gpu_program4/5: MAX then MIN, as GLSL defines clamp.
                let v = self.expr(value, env);
                let (t, _) = self.fresh();
                if *signed {
                    let v = self.signed_operand(v);
                    let lo = self.signed_operand(lo.to_string());
                    let hi = self.signed_operand(hi.to_string());
                    self.inst(&format!("MAX.S {t}, {v}, {lo}"));
                    self.inst(&format!("MIN.S {t}, {t}, {hi}"));
                } else {
                    self.inst(&format!("MAX.U {t}, {v}, {lo}"));
                    self.inst(&format!("MIN.U {t}, {t}, {hi}"));
                }
                t
            }
            Expr::Extract {
                value,
                offset,
                bits,
                signed,
            } => {
                let v = self.expr(value, env);
                let v = if *signed { self.signed_operand(v) } else { v };
                let (t, _) = self.fresh();
                let ty = if *signed { "S" } else { "U" };
                self.inst(&format!("BFE.{ty} {t}, {{{bits}, {offset}, 0, 0}}, {v}"));
                t
            }
            Expr::Insert {
                base,
                insert,
                offset,
                bits,
            } => {
                let (b, i) = (self.expr(base, env), self.expr(insert, env));
                let (t, _) = self.fresh();
                self.inst(&format!("BFI.U {t}, {{{bits}, {offset}, 0, 0}}, {i}, {b}"));
                t
            }
            Expr::Select(c, a, b) => {
                let (c, a, b) = (self.expr(c, env), self.expr(a, env), self.expr(b, env));
                let (cc, comp) = self.fresh();
                let (t, _) = self.fresh();
                self.inst(&format!("SNE.U.CC {cc}, {c}, 0"));
                self.inst(&format!("MOV.U {t}, {b}"));
                self.inst(&format!("MOV.U {t} (NE.{comp}), {a}"));
                t
            }
            Expr::FToI {
                value,
                round,
                to,
                sat,
            } => {
                let f = self.fexpr(value, false, env);
                let (t, _) = self.fresh();
                let r = match round {
                    Round::Trunc => "TRUNC",
                    Round::Floor => "FLR",
                    Round::Ceil => "CEIL",
                    Round::Even => "ROUND",
                };
                if *to == IntTy::S32 && !*sat {
                    // NV_gpu_program4: the rounding instruction with an integer data type.
                    self.inst(&format!("{r}.S {t}, {f}"));
                } else {
                    let sat = if *sat { ".SAT" } else { "" };
                    self.inst(&format!("CVT.{}.F32.{r}{sat} {t}, {f}", to.nv()));
                }
                t
            }
            Expr::Wide(w) => {
                let (a, b) = (self.expr(&w.a, env), self.expr(&w.b, env));
                crate::features::wide::nvasm(self, w, &a, &b)
            }
            // An add of a product is one integer MAD (NV_gpu_program4: MAD takes the S and U
            // data types; the product's low 32 bits plus the addend, wrapping).
            Expr::Bin(BinOp::Add, m, c) if matches!(**m, Expr::Bin(BinOp::Mul, ..)) => {
                let Expr::Bin(_, x, y) = &**m else {
                    unreachable!("matched above")
                };
                let (x, y) = (self.expr(x, env), self.expr(y, env));
                let c = self.expr(c, env);
                let (t, _) = self.fresh();
                self.inst(&format!("MAD.U {t}, {x}, {y}, {c}"));
                t
            }
            // SAD (NV_gpu_program4): |a - b| plus an addend, 0 or the add's other operand.
            Expr::Bin(BinOp::Add, s, c)
                if matches!(**s, Expr::Bin(BinOp::AbsDiffU | BinOp::AbsDiffS, ..)) =>
            {
                let Expr::Bin(op, a, b) = &**s else {
                    unreachable!("matched above")
                };
                let c = self.expr(c, env);
                self.sad(*op, a, b, c, env)
            }
            Expr::Bin(op @ (BinOp::AbsDiffU | BinOp::AbsDiffS), a, b) => {
                self.sad(*op, a, b, "0".into(), env)
            }
            // MUL.U24/S24 on operands brought into their 24-bit ranges (NV_gpu_program4 MUL:
            // undefined outside them).
            Expr::Bin(op @ (BinOp::Mul24U | BinOp::Mul24S), a, b) => {
                let (a, b) = (self.expr(a, env), self.expr(b, env));
                let (x, y) = (self.fresh().0, self.fresh().0);
                for (r, v) in [(&x, a), (&y, b)] {
                    if *op == BinOp::Mul24U {
                        self.inst(&format!("AND.U {r}, {v}, 16777215"));
                    } else {
                        let v = self.signed_operand(v);
                        self.inst(&format!("BFE.S {r}, {{24, 0, 0, 0}}, {v}"));
                    }
                }
                let (t, _) = self.fresh();
                self.inst(&format!("{} {t}, {x}, {y}", mnemonic(*op)));
                t
            }
            Expr::Bin(op @ (BinOp::LAnd | BinOp::LOr | BinOp::LXor), a, b) => {
                let (a, b) = (self.expr(a, env), self.expr(b, env));
                let (x, y) = (self.fresh().0, self.fresh().0);
                self.inst(&format!("SNE.U {x}, {a}, 0"));
                self.inst(&format!("SNE.U {y}, {b}, 0"));
                let (t, _) = self.fresh();
                self.inst(&format!("{} {t}, {x}, {y}", mnemonic(*op)));
                self.inst(&format!("AND.U {t}, {t}, 1"));
                t
            }
            Expr::Bin(op @ (BinOp::Carry | BinOp::Borrow), a, b) => {
                // NV_gpu_program4 section 2.X.4.3: an add sets CF when the unsigned sum
                // overflows, a subtract when the difference is not negative.
                let (a, b) = (self.expr(a, env), self.expr(b, env));
                let (sum, comp) = self.fresh();
                self.inst(&format!("{}.CC {sum}, {a}, {b}", mnemonic(*op)));
                let (t, _) = self.fresh();
                let test = if *op == BinOp::Carry { "CF" } else { "NCF" };
                self.inst(&format!("MOV.U {t}, 0"));
                self.inst(&format!("MOV.U {t} ({test}.{comp}), 1"));
                t
            }
            Expr::Bin(op, a, b) => {
                let a = self.expr(a, env);
                let (a, b) = match (op, &**b) {
                    // Shift counts are taken modulo 32, as in the model; folded when the
                    // operand is a literal.
                    (BinOp::Shl | BinOp::ShrU | BinOp::ShrS, Expr::Const(c)) => {
                        (a, (c & 31).to_string())
                    }
                    (BinOp::Shl | BinOp::ShrU | BinOp::ShrS, e) => {
                        let x = self.expr(e, env);
                        let (t, _) = self.fresh();
                        self.inst(&format!("AND.U {t}, {x}, 31"));
                        (a, t)
                    }
                    (BinOp::DivU | BinOp::RemU | BinOp::DivS | BinOp::RemS, e) => {
                        self.division_operands(*op, a, e, env)
                    }
                    (_, e) => (a, self.expr(e, env)),
                };
                let mnemonic = mnemonic(*op);
                let (a, b) = if mnemonic.split('.').any(|m| m == "S") {
                    (self.signed_operand(a), self.signed_operand(b))
                } else {
                    (a, b)
                };
                let (t, _) = self.fresh();
                self.inst(&format!("{mnemonic} {t}, {a}, {b}"));
                if op.is_comparison() {
                    self.inst(&format!("AND.U {t}, {t}, 1"));
                }
                t
            }
        }
    }
}

impl Asm {
    /// A float expression into a fresh component; with `sat` its last instruction clamps
    /// to [0, 1] (`.SAT`, NV_gpu_program4 2.X.4.1).
    fn fexpr(&mut self, f: &FExpr, sat: bool, env: &ExprEnv) -> String {
        let sat_mod = if sat { ".SAT" } else { "" };
        match f {
            FExpr::Int(l) => {
                let v = self.expr(&l.value, env);
                let ty = if l.signed { "S" } else { "U" };
                let v = if l.signed { self.signed_operand(v) } else { v };
                let (e, _) = self.fresh();
                self.inst(&format!("BFE.{ty} {e}, {{{}, 0, 0, 0}}, {v}", l.bits));
                let (t, _) = self.fresh();
                self.inst(&format!("I2F.{ty} {t}, {e}"));
                if l.scale == 0 && !sat {
                    return t;
                }
                let (r, _) = self.fresh();
                if l.scale == 0 {
                    self.inst(&format!("MOV.F.SAT {r}, {t}"));
                } else {
                    let p = power_of_two(l.scale);
                    self.inst(&format!("MUL.F{sat_mod} {r}, {t}, {p}"));
                }
                r
            }
            FExpr::Bin(op, a, b) => {
                let (a, b) = (self.fexpr(a, false, env), self.fexpr(b, false, env));
                let m = match op {
                    FOp::Add => "ADD",
                    FOp::Sub => "SUB",
                    FOp::Mul => "MUL",
                };
                let (t, _) = self.fresh();
                self.inst(&format!("{m}.F{sat_mod} {t}, {a}, {b}"));
                t
            }
            FExpr::Fma(a, b, c) => {
                let (a, b) = (self.fexpr(a, false, env), self.fexpr(b, false, env));
                let c = self.fexpr(c, false, env);
                let (t, _) = self.fresh();
                self.inst(&format!("MAD.F{sat_mod} {t}, {a}, {b}, {c}"));
                t
            }
            FExpr::Sat(a) => self.fexpr(a, true, env),
        }
    }

    /// The operands of a division or remainder, replaced only where NV_gpu_program4 leaves
    /// the result undefined, as `model::div_operands` does: a divisor of 0 (and for DIV.S, -1
    /// under a dividend of `i32::MIN`) becomes 1; for MOD.S the dividend loses its sign bit
    /// and a divisor below 1 becomes 1. A literal divisor that is defined for every dividend
    /// is used as it is.
    fn division_operands(
        &mut self,
        op: BinOp,
        a: String,
        b: &Expr,
        env: &ExprEnv,
    ) -> (String, String) {
        let a = if op == BinOp::RemS {
            let (t, _) = self.fresh();
            self.inst(&format!("AND.U {t}, {a}, 2147483647"));
            t
        } else {
            a
        };
        if let Expr::Const(c) = *b {
            let defined = match op {
                BinOp::DivS => c != 0 && c != u32::MAX,
                BinOp::RemS => (c as i32) > 0,
                _ => c != 0,
            };
            if defined {
                return (a, c.to_string());
            }
        }
        let b = self.expr(b, env);
        // Condition codes of `undefined` select 1 as the divisor.
        let (undefined, comp) = self.fresh();
        match op {
            BinOp::DivS => {
                let (min, _) = self.fresh();
                self.inst(&format!("SEQ.U {undefined}, {b}, 0"));
                self.inst(&format!("SEQ.U {min}, {a}, 2147483648"));
                let (neg1, _) = self.fresh();
                self.inst(&format!("SEQ.U {neg1}, {b}, 4294967295"));
                self.inst(&format!("AND.U {min}, {min}, {neg1}"));
                self.inst(&format!("OR.U.CC {undefined}, {undefined}, {min}"));
            }
            BinOp::RemS => {
                let bs = self.signed_operand(b.clone());
                self.inst(&format!("SLT.S.CC {undefined}, {bs}, 1"))
            }
            _ => self.inst(&format!("SEQ.U.CC {undefined}, {b}, 0")),
        }
        let (d, _) = self.fresh();
        self.inst(&format!("MOV.U {d}, {b}"));
        self.inst(&format!("MOV.U {d} (NE.{comp}), 1"));
        (a, d)
    }
}

impl Asm {
    /// `SAD.U`/`SAD.S t, a, b, c`: the operands read as the data type, the addend unsigned.
    fn sad(&mut self, op: BinOp, a: &Expr, b: &Expr, c: String, env: &ExprEnv) -> String {
        let (a, b) = (self.expr(a, env), self.expr(b, env));
        let (a, b) = if op == BinOp::AbsDiffS {
            (self.signed_operand(a), self.signed_operand(b))
        } else {
            (a, b)
        };
        let (t, _) = self.fresh();
        self.inst(&format!("{} {t}, {a}, {b}, {c}", mnemonic(op)));
        t
    }
}

impl crate::features::wide::AsmSink for Asm {
    fn inst(&mut self, s: &str) {
        Asm::inst(self, s)
    }

    fn fresh(&mut self) -> (String, char) {
        Asm::fresh(self)
    }
}

/// What the leaves of an expression refer to in the block being emitted.
struct ExprEnv {
    block: usize,
    ticket: String,
    /// The temporary holding the loop indices (`i<block>`, or one per function: a callee's
    /// loops must not overwrite its caller's indices).
    indices: String,
}

impl ExprEnv {
    fn of(block: usize) -> ExprEnv {
        ExprEnv {
            block,
            ticket: String::new(),
            indices: format!("i{block}"),
        }
    }
}

/// A literal in the atomic's type: signed decimal for S32 (materialised for i32::MIN, which
/// is not a literal in the grammar), unsigned decimal for U32.
fn atomic_literal(a: &mut Asm, ty: AtomTy, v: u32) -> String {
    match (ty, v as i32) {
        (AtomTy::S32, i32::MIN) => a.reg(v.to_string()),
        (AtomTy::S32, s) => s.to_string(),
        (AtomTy::U32, _) => v.to_string(),
    }
}

fn guard(a: &mut Asm, g: Guard, idx: &str) -> bool {
    match g {
        Guard::All => return false,
        Guard::Below(n) => a.if_set("SLT.U", idx, &n.to_string()),
        Guard::Every { m, r } => {
            let (t, _) = a.fresh();
            a.inst(&format!("MOD.U {t}, {idx}, {m}"));
            a.if_set("SEQ.U", &t, &r.to_string());
        }
    }
    true
}

/// Reserves `bytes` of shared memory (4-byte aligned); its offset.
fn reserve(shared: &mut u32, bytes: u32) -> u32 {
    let at = *shared;
    *shared += bytes;
    at
}

/// The word block `k`'s atomics update (a shared one set to `init` by invocation 0 before a
/// barrier), the index that tells its invocations apart, and its shared offset.
fn atomic_word(
    a: &mut Asm,
    k: usize,
    space: Space,
    init: u32,
    shared: &mut u32,
) -> (String, &'static str, u32) {
    match space {
        Space::Storage => (format!("b{k}[0]"), GID, 0),
        Space::Shared => {
            let off = reserve(shared, 4);
            a.in_lid0(|a| {
                a.inst(&format!("MOV.U r{k}.x, {init}"));
                a.inst(&format!("STS.U32 r{k}.x, sh[{off}]"));
            });
            a.shared_barrier();
            (format!("sh[{off}]"), LID, off)
        }
    }
}

/// After the updates: a shared word's final value (at offset `off`), at the group's index of
/// the buffer.
fn atomic_word_end(a: &mut Asm, k: usize, space: Space, off: u32, p: &Program) {
    if space == Space::Shared {
        a.shared_barrier();
        a.in_lid0(|a| {
            a.inst(&format!("LDS.U32 r{k}.x, sh[{off}]"));
            // One group: its final value goes to word 0, no address to compute.
            if p.groups == 1 {
                a.inst(&format!("STB.U32 r{k}.x, b{k}[0]"));
            } else {
                a.inst(&format!("MUL.U a{k}.x, {WG}, 4"));
                a.inst(&format!("STB.U32 r{k}.x, b{k}[a{k}.x]"));
            }
        });
    }
}

/// `ATOMB` for a storage word, `ATOMS` for a shared one, with the type suffix.
fn atomic_names(space: Space, ty: AtomTy) -> (&'static str, &'static str) {
    let store = match space {
        Space::Storage => "ATOMB",
        Space::Shared => "ATOMS",
    };
    let ty = match ty {
        AtomTy::U32 => "U32",
        AtomTy::S32 => "S32",
    };
    (store, ty)
}

/// Different atomic operations on one word (`crate::features::atomic_mix`): part `j` under
/// `IF` on `idx % n == j`.
fn atomic_mix(a: &mut Asm, k: usize, m: &AtomicMixBlock, p: &Program, shared: &mut u32) {
    let (store, ty) = atomic_names(m.space, m.ty);
    let (target, idx, off) = atomic_word(a, k, m.space, m.init, shared);
    for (j, part) in m.parts.iter().enumerate() {
        let guarded = guard(a, m.part_guard(j), idx);
        let operand = atomic_literal(a, m.ty, part.operand);
        let op = part.op.name().to_uppercase();
        a.inst(&format!("{store}.{op}.{ty} r{k}.x, {operand}, {target}"));
        if guarded {
            a.endif();
        }
    }
    atomic_word_end(a, k, m.space, off, p);
}

fn atomic(a: &mut Asm, k: usize, at: &AtomicBlock, p: &Program, shared: &mut u32) {
    let (store, ty) = atomic_names(at.space, at.ty);
    let (target, idx, off) = atomic_word(a, k, at.space, at.init, shared);
    let guarded = guard(a, at.guard, idx);
    let operand = match at.operand {
        Operand::Uniform(v) if at.op == AtomicOp::CSwap => {
            let (c, v) = (
                atomic_literal(a, at.ty, at.compare),
                atomic_literal(a, at.ty, v),
            );
            if c.starts_with('e') || v.starts_with('e') {
                // A vector literal holds literals only: build the pair in a register.
                // MOV.S for S32: its literals may be negative, which MOV.U may not take.
                let mov = if matches!(at.ty, AtomTy::S32) {
                    "MOV.S"
                } else {
                    "MOV.U"
                };
                a.temps.push(format!("q{k}"));
                a.inst(&format!("{mov} q{k}.x, {c}"));
                a.inst(&format!("{mov} q{k}.y, {v}"));
                format!("q{k}")
            } else {
                format!("{{{c}, {v}, 0, 0}}")
            }
        }
        Operand::Uniform(v) => atomic_literal(a, at.ty, v),
        Operand::PerInvocation { base, step } => {
            let (t, _) = a.fresh();
            a.inst(&format!("MAD.U {t}, {idx}, {step}, {base}"));
            t
        }
    };
    a.inst(&format!(
        "{store}.{}.{ty} r{k}.x, {operand}, {target}",
        at.op.name().to_uppercase()
    ));
    if at.stores_returns() {
        let finals = atomic_finals(at, p) as u32;
        a.inst(&format!("MUL.U a{k}.x, {GID}, 4"));
        a.inst(&format!("STB.U32 r{k}.x, b{k}[a{k}.x + {}]", 4 * finals));
    }
    if guarded {
        a.endif();
    }
    atomic_word_end(a, k, at.space, off, p);
}

/// Float values travel as their bits in typeless registers (`MOV.U` of the f32 pattern), which
/// `ATOM*.ADD.F32` reads as a float.
fn float_atomic(a: &mut Asm, k: usize, f: &FloatAtomicBlock, p: &Program, shared: &mut u32) {
    let (target, idx, off, finals) = match f.space {
        Space::Storage => (format!("b{k}[0]"), GID, 0, 1),
        Space::Shared => {
            let off = reserve(shared, 4);
            a.in_lid0(|a| {
                a.inst(&format!("MOV.U r{k}.x, {}", quarters(i64::from(f.init))));
                a.inst(&format!("STS.U32 r{k}.x, sh[{off}]"));
            });
            a.shared_barrier();
            (format!("sh[{off}]"), LID, off, p.groups)
        }
    };
    let guarded = guard(a, f.guard, idx);
    let operand = a.reg(quarters(i64::from(f.operand)).to_string());
    let op = if f.space == Space::Storage {
        "ATOMB"
    } else {
        "ATOMS"
    };
    a.inst(&format!("{op}.ADD.F32 r{k}.x, {operand}, {target}"));
    if f.keep_returns {
        a.inst(&format!("MUL.U a{k}.x, {GID}, 4"));
        a.inst(&format!("STB.U32 r{k}.x, b{k}[a{k}.x + {}]", 4 * finals));
    }
    if guarded {
        a.endif();
    }
    if f.space == Space::Shared {
        a.shared_barrier();
        a.in_lid0(|a| {
            a.inst(&format!("LDS.U32 r{k}.x, sh[{off}]"));
            a.inst(&format!("MUL.U a{k}.x, {WG}, 4"));
            a.inst(&format!("STB.U32 r{k}.x, b{k}[a{k}.x]"));
        });
    }
}

fn section(a: &mut Asm, k: usize, s: &SectionBlock, shared: &mut u32) {
    a.temps.push(format!("t{k}"));
    let counter = match s.space {
        Space::Storage => {
            a.inst(&format!("MOV.U a{k}.x, 0"));
            format!("b{k}[0]")
        }
        Space::Shared => {
            let off = reserve(shared, 4);
            a.in_lid0(|a| {
                a.inst(&format!("MOV.U r{k}.x, 0"));
                a.inst(&format!("STS.U32 r{k}.x, sh[{off}]"));
            });
            a.shared_barrier();
            a.inst(&format!("MUL.U a{k}.x, {WG}, 12"));
            format!("sh[{off}]")
        }
    };
    let atom = if s.space == Space::Storage {
        "ATOMB"
    } else {
        "ATOMS"
    };
    a.inst(&format!("{atom}.ADD.U32 t{k}.x, 1, {counter}"));
    a.if_set("SEQ.U", &format!("t{k}.x"), &s.winner.to_string());
    a.inst(&format!("ATOMB.ADD.U32 r{k}.x, 1, b{k}[a{k}.x + 4]"));
    let env = ExprEnv {
        ticket: format!("t{k}.x"),
        ..ExprEnv::of(k)
    };
    let payload = a.expr(&s.payload, &env);
    let payload = a.reg(payload);
    a.inst(&format!("STB.U32 {payload}, b{k}[a{k}.x + 8]"));
    a.endif();
    if let Space::Shared = s.space {
        a.shared_barrier();
        a.in_lid0(|a| {
            a.inst(&format!("LDS.U32 r{k}.x, {counter}"));
            a.inst(&format!("STB.U32 r{k}.x, b{k}[a{k}.x]"));
        });
    }
}

fn exchange(a: &mut Asm, k: usize, x: &ExchangeBlock, p: &Program, shared: &mut u32) {
    let off = reserve(shared, 4 * p.local_size);
    let v = a.expr(&x.value, &ExprEnv::of(k));
    let v = a.reg(v);
    a.inst(&format!("MUL.U a{k}.x, {LID}, 4"));
    a.inst(&format!("STS.U32 {v}, sh[a{k}.x + {off}]"));
    a.shared_barrier();
    a.inst(&format!("MAD.U a{k}.y, {LID}, {}, {}", x.mul, x.add));
    a.inst(&format!("MOD.U a{k}.y, a{k}.y, {}", p.local_size));
    a.inst(&format!("MUL.U a{k}.y, a{k}.y, 4"));
    if x.rounds > 0 {
        a.inst(&format!("REP {}", x.rounds));
        a.depth += 1;
        a.inst(&format!("LDS.U32 r{k}.x, sh[a{k}.y + {off}]"));
        a.shared_barrier();
        a.inst(&format!("STS.U32 r{k}.x, sh[a{k}.x + {off}]"));
        a.shared_barrier();
        a.depth -= 1;
        a.inst("ENDREP");
    }
    a.inst(&format!("LDS.U32 r{k}.x, sh[a{k}.y + {off}]"));
    a.inst(&format!("MUL.U a{k}.z, {GID}, 4"));
    a.inst(&format!("STB.U32 r{k}.x, b{k}[a{k}.z]"));
}

/// Stores with `STS`/`STB` and a narrow storage modifier, `MEMBAR.CTA` and `BAR`, loads a
/// neighbour's slot (`crate::features::narrow`). A storage region follows the block's results in its
/// buffer; slots and their addresses are multiples of their size.
fn narrow(a: &mut Asm, k: usize, n: &NarrowBlock, p: &Program, shared: &mut u32) {
    let (st, ld) = n.modifiers();
    let bytes = n.bytes();
    let v = a.expr(&n.value, &ExprEnv::of(k));
    let v = a.reg(v);
    let (store, load) = match n.space {
        Space::Shared => {
            let off = reserve(shared, n.region_bytes(p.local_size));
            a.inst(&format!("MUL.U a{k}.x, {LID}, {bytes}"));
            (
                format!("STS.{st} {v}, sh[a{k}.x + {off}]"),
                format!("LDS.{ld} r{k}.x, sh[a{k}.y + {off}]"),
            )
        }
        Space::Storage => {
            let off = 4 * p.invocations();
            a.inst(&format!("MUL.U a{k}.x, {GID}, {bytes}"));
            (
                format!("STB.{st} {v}, b{k}[a{k}.x + {off}]"),
                format!("LDB.{ld} r{k}.x, b{k}[a{k}.y + {off}]"),
            )
        }
    };
    a.inst(&store);
    a.shared_barrier();
    a.inst(&format!("ADD.U a{k}.y, {LID}, {}", n.rot));
    a.inst(&format!("MOD.U a{k}.y, a{k}.y, {}", p.local_size));
    if n.space == Space::Storage {
        a.inst(&format!("MAD.U a{k}.y, {WG}, {}, a{k}.y", p.local_size));
    }
    a.inst(&format!("MUL.U a{k}.y, a{k}.y, {bytes}"));
    a.inst(&load);
    a.inst(&format!("MUL.U a{k}.z, {GID}, 4"));
    a.inst(&format!("STB.U32 r{k}.x, b{k}[a{k}.z]"));
}

fn shuffle(a: &mut Asm, k: usize, s: &ShuffleBlock) {
    let env = ExprEnv::of(k);
    let v = a.expr(&s.value, &env);
    let (data, modifier) = match s.ty {
        ShflTy::U32 | ShflTy::Bool => (v, "U"),
        ShflTy::I32 => (a.signed_operand(v), "S"),
        ShflTy::F32 => {
            let (t, _) = a.fresh();
            a.inst(&format!("AND.U {t}, {v}, 65535"));
            let (f, _) = a.fresh();
            a.inst(&format!("I2F.U {f}, {t}"));
            (f, "F")
        }
    };
    let index = a.expr(&s.index, &env);
    let mnemonic = match s.mode {
        ShflMode::Idx => "SHFIDX",
        ShflMode::Up => "SHFUP",
        ShflMode::Down => "SHFDOWN",
        ShflMode::Xor => "SHFXOR",
    };
    a.inst(&format!(
        "{mnemonic}.{modifier} r{k}.xy, {data}, {index}, {}",
        s.mask
    ));
    a.inst(&format!("MUL.U a{k}.x, {GID}, 8"));
    a.inst(&format!("STB.U32X2 r{k}, b{k}[a{k}.x]"));
}

/// Undefined behaviour on purpose; each invocation stores what it got (unchecked).
fn undefined(a: &mut Asm, k: usize, u: &UndefinedBlock, p: &Program, shared: &mut u32) {
    match u.kind {
        UbKind::DivergentBarrier => {
            a.if_set("SLT.U", LID, &u.param.to_string());
            a.inst("BAR");
            a.endif();
            a.inst(&format!("MOV.U r{k}.x, {LID}"));
        }
        UbKind::UninitSharedRead => {
            let off = reserve(shared, 4 * p.local_size);
            a.inst(&format!("ADD.U a{k}.x, {LID}, {}", u.param));
            a.inst(&format!("MOD.U a{k}.x, a{k}.x, {}", p.local_size));
            a.inst(&format!("MUL.U a{k}.x, a{k}.x, 4"));
            a.inst(&format!("LDS.U32 r{k}.x, sh[a{k}.x + {off}]"));
        }
        UbKind::InactiveLaneRead => {
            a.inst(&format!("SHFIDX.U r{k}.xy, {GID}, {}, 31", u.param));
        }
        UbKind::OversizeShift => {
            a.inst(&format!("ADD.U a{k}.x, {LID}, {}", u.param));
            a.inst(&format!("SHL.U r{k}.x, {GID}, a{k}.x"));
        }
        UbKind::DivByZero => {
            a.inst(&format!("SHR.U a{k}.x, {LID}, 8"));
            a.inst(&format!("DIV.U r{k}.x, {GID}, a{k}.x"));
        }
    }
    a.inst(&format!("MUL.U a{k}.y, {GID}, 4"));
    a.inst(&format!("STB.U32 r{k}.x, b{k}[a{k}.y]"));
}

fn compute(a: &mut Asm, k: usize, c: &ComputeBlock) {
    a.temps.push(format!("c{k}, i{k}"));
    a.inst(&format!("MOV.U c{k}.x, {GID}"));
    a.inst(&format!("MOV.U c{k}.y, {LID}"));
    a.inst(&format!("MOV.U c{k}.z, {WG}"));
    a.inst(&format!("MOV.U c{k}.w, {}", c.seed));
    stmts(a, &ExprEnv::of(k), &c.stmts, 0);
    a.inst(&format!("MUL.U a{k}.x, {GID}, {}", 4 * VARS));
    a.inst(&format!("STB.U32X4 c{k}, b{k}[a{k}.x]"));
}

fn stmts(a: &mut Asm, env: &ExprEnv, ss: &[Stmt], loops: usize) {
    let k = env.block;
    for s in ss {
        match s {
            Stmt::Assign(v, e) => {
                let x = a.expr(e, env);
                a.inst(&format!(
                    "MOV.U c{k}.{}, {x}",
                    COMPONENTS[usize::from(*v) % 4]
                ));
            }
            Stmt::If(c, t, e) => {
                let c = a.expr(c, env);
                a.if_set("SNE.U", &c, "0");
                stmts(a, env, t, loops);
                if !e.is_empty() {
                    a.else_();
                    stmts(a, env, e, loops);
                }
                a.endif();
            }
            Stmt::Loop(n, body) => {
                // The index counts at the top of each round (from all ones to 0 in the
                // first), so that CONT, which skips the rest of the round, still counts it.
                let i = format!("{}.{}", env.indices, COMPONENTS[loops % 4]);
                a.inst(&format!("MOV.U {i}, {}", u32::MAX));
                a.inst(&format!("REP {n}"));
                a.depth += 1;
                a.inst(&format!("ADD.U {i}, {i}, 1"));
                stmts(a, env, body, loops + 1);
                a.depth -= 1;
                a.inst("ENDREP");
            }
            Stmt::Break => a.inst("BRK"),
            Stmt::Continue => a.inst("CONT"),
            Stmt::Call(body) => {
                // A subroutine after the main code (NV_gpu_program4 CAL/RET): its own loop
                // index temporary, the caller's variable registers.
                let n = a.subroutines.len();
                let label = format!("fz{k}_{n}");
                a.inst(&format!("CAL {label}"));
                a.subroutines.push(String::new());
                let callee = ExprEnv {
                    indices: format!("i{k}f{n}"),
                    ..ExprEnv::of(k)
                };
                a.temps.push(callee.indices.clone());
                let (main, depth) = (std::mem::take(&mut a.body), a.depth);
                a.depth = 1;
                let _ = writeln!(a.body, "{label}:");
                stmts(a, &callee, body, 0);
                a.inst("RET");
                a.subroutines[n] = std::mem::replace(&mut a.body, main);
                a.depth = depth;
            }
        }
    }
}
