//! NV assembly ALU instructions: moves, arithmetic, comparisons (SEQ, SLT, ... CMP), dot
//! products, transcendental functions, bit operations, packing, and CVT conversions.

use super::modifiers::Mods;
use super::operands::component;
use super::{diag, Cx, Res, R_INSTR};
use crate::ir::{
    BinOp, CmpOp, Dst, Inst, Kind, Reg, Rounding, ScalarTy, Src, Ty, UnOp, UndefinedRule,
};

impl Cx {
    /// Marks the lanes of `d` (its write mask) where `cond` holds as undefined by `why`.
    fn mark(&mut self, d: Dst, cond: Reg, why: UndefinedRule) {
        self.b.push(Inst::MarkUndefined {
            lanes: 4,
            dst: d,
            cond: Src::new(cond),
            why,
        });
    }

    /// NV_gpu_program4's NRM, XPD and SCS, computed into a scratch vector (the result may
    /// alias an operand) and moved to `d`: NRM scales op0's xyz by RSQ of their dot product
    /// (undefined, as RSQ, where that is <= 0), XPD is the cross product of the operands'
    /// xyz, SCS puts the cosine of op0's scalar in x and its sine in y (undefined outside
    /// [-PI, PI]). The components the spec leaves undefined (w; SCS's z and w) hold 0, marked.
    fn vector_legacy(&mut self, op: &str, t: ScalarTy, d: Dst) -> Res<()> {
        let v4 = Ty::vec4(t);
        let s1 = Ty::new(t, 1);
        let zero = self.b.interned_constant([0; 4]);
        let v = self.scratch();
        let undefined_lanes = if op == "SCS" {
            [0, 0, 1, 1]
        } else {
            [0, 0, 0, 1]
        };
        let mut domain = None;
        match op {
            "NRM" => {
                let a = self.src(t, op)?;
                let (p, sum, scale) = (self.scratch(), self.scratch(), self.scratch());
                self.b.bin(BinOp::Mul, v4, Dst::new(p), a, a);
                self.b.bin(
                    BinOp::Add,
                    s1,
                    Dst::new(sum),
                    Src::splat(p, 0),
                    Src::splat(p, 1),
                );
                self.b.bin(
                    BinOp::Add,
                    s1,
                    Dst::new(sum),
                    Src::splat(sum, 0),
                    Src::splat(p, 2),
                );
                self.b
                    .un(UnOp::Rsq, s1, Dst::new(scale), Src::splat(sum, 0));
                self.b.bin(
                    BinOp::Mul,
                    v4,
                    Dst::masked(v, 0b0111),
                    a,
                    Src::splat(scale, 0),
                );
                let rule = UndefinedRule::InverseSqrtDomain;
                let at = Src::splat(sum, 0);
                domain = self.b.float_domain(rule, v4, at, at).map(|bad| (bad, rule));
            }
            "XPD" => {
                let [a, b] = self.sources(t, op)?;
                // a.yzx * b.zxy - a.zxy * b.yzx, through the operands' own swizzles.
                let sw = |s: Src, k: [usize; 3]| {
                    Src::swizzled(s.reg, [s.swz[k[0]], s.swz[k[1]], s.swz[k[2]], s.swz[3]])
                };
                let (p, q) = (self.scratch(), self.scratch());
                self.b.bin(
                    BinOp::Mul,
                    v4,
                    Dst::new(p),
                    sw(a, [1, 2, 0]),
                    sw(b, [2, 0, 1]),
                );
                self.b.bin(
                    BinOp::Mul,
                    v4,
                    Dst::new(q),
                    sw(a, [2, 0, 1]),
                    sw(b, [1, 2, 0]),
                );
                self.b.bin(
                    BinOp::Sub,
                    v4,
                    Dst::masked(v, 0b0111),
                    Src::new(p),
                    Src::new(q),
                );
            }
            _ => {
                let x = component(self.src(t, op)?, 0);
                self.b.un(UnOp::Cos, v4, Dst::masked(v, 0b0001), x);
                self.b.un(UnOp::Sin, v4, Dst::masked(v, 0b0010), x);
                let rule = UndefinedRule::NvScsRange;
                domain = self.b.float_domain(rule, v4, x, x).map(|bad| (bad, rule));
            }
        }
        let undefined_mask = undefined_lanes
            .iter()
            .enumerate()
            .fold(0u8, |m, (l, &u)| m | ((u as u8) << l));
        self.b.mov(Dst::masked(v, undefined_mask), Src::new(zero));
        self.b.mov(d, Src::new(v));
        let lanes = self.b.interned_constant(undefined_lanes);
        self.mark(d, lanes, UndefinedRule::NvUndefinedComponent);
        if let Some((bad, rule)) = domain {
            self.mark(d, bad, rule);
        }
        Ok(())
    }

    /// BFE and BFI (NV_gpu_program5): "The results of bitfield extraction [insertion] are
    /// undefined if the number of bits to extract or the starting offset is negative, if the
    /// sum of the number of bits to extract and the starting offset is greater than the total
    /// number of bits in the operand/result, or if the starting offset is greater than or
    /// equal to the total number of bits in the operand/result": `a.x` bits, `a.y` offset.
    fn bitfield_range(&mut self, t: ScalarTy, d: Dst, a: Src) {
        let (offset, count) = (component(a, 1), component(a, 0));
        let bad = self.b.bitfield_range(4, t.bits, offset, count, true);
        self.mark(d, bad, UndefinedRule::BitfieldRange);
    }

    /// The lanes where a MUL.S24 or MUL.U24 operand is outside its 24-bit range.
    fn mul24_range(&mut self, t: ScalarTy, a: Src, b: Src) -> Reg {
        let v4 = Ty::vec4(t);
        let bt = Ty::vec4(ScalarTy::BOOL);
        let (lo, hi) = if t.kind == Kind::S {
            ((-(1i64 << 23)) as u64 & t.mask(), (1u64 << 23) - 1)
        } else {
            (0, (1u64 << 24) - 1)
        };
        let lo = Src::new(self.b.interned_constant([lo; 4]));
        let hi = Src::new(self.b.interned_constant([hi; 4]));
        let mut bad = None;
        for x in [a, b] {
            let over = self.b.cmp_fresh(CmpOp::Gt, v4, x, hi);
            let under = self.b.cmp_fresh(CmpOp::Lt, v4, x, lo);
            let out = self
                .b
                .bin_fresh(BinOp::Or, bt, Src::new(over), Src::new(under));
            bad = Some(match bad {
                None => out,
                Some(prev) => self
                    .b
                    .bin_fresh(BinOp::Or, bt, Src::new(prev), Src::new(out)),
            });
        }
        bad.expect("two operands")
    }

    pub(super) fn true_false(t: ScalarTy) -> ([u64; 4], [u64; 4]) {
        let tv = match (t.kind, t.bits) {
            (Kind::F, 64) => 1.0f64.to_bits(),
            (Kind::F, _) => u64::from(1.0f32.to_bits()),
            _ => t.mask(),
        };
        ([tv; 4], [0; 4])
    }

    pub(super) fn alu(&mut self, op: &'static str, m: &Mods) -> Res<()> {
        let t = self.op_type(op, m)?;
        let v4 = Ty::vec4(t);
        let r = self.result(op)?;
        let d = self.target(&r, m);
        // (operation, whether it reads one scalar component of its operand)
        let unary = match op {
            "ABS" => Some((UnOp::Abs, false)),
            "FRC" => Some((UnOp::Fract, false)),
            "SSG" => Some((UnOp::Sign, false)),
            "NOT" => Some((UnOp::Not, false)),
            "BFR" => Some((UnOp::BitReverse, false)),
            "BTC" => Some((UnOp::BitCount, false)),
            "BTFL" => Some((UnOp::FindLsb, false)),
            "BTFM" => Some((UnOp::FindMsb, false)),
            "RCP" => Some((UnOp::Rcp, true)),
            "RSQ" => Some((UnOp::Rsq, true)),
            "EX2" => Some((UnOp::Exp2, true)),
            "LG2" => Some((UnOp::Log2, true)),
            "SIN" => Some((UnOp::Sin, true)),
            "COS" => Some((UnOp::Cos, true)),
            _ => None,
        };
        let binary = match op {
            "ADD" => Some(BinOp::Add),
            "SUB" => Some(BinOp::Sub),
            "MUL" => Some(if m.hi { BinOp::MulHi } else { BinOp::Mul }),
            "MIN" => Some(BinOp::Min),
            "MAX" => Some(BinOp::Max),
            "AND" => Some(BinOp::And),
            "OR" => Some(BinOp::Or),
            "XOR" => Some(BinOp::Xor),
            _ => None,
        };
        let scalar_second = match op {
            "DIV" => Some(BinOp::Div),
            "MOD" => Some(BinOp::Rem),
            "SHL" => Some(BinOp::Shl),
            "SHR" => Some(BinOp::Shr),
            _ => None,
        };
        let set_on = match op {
            "SEQ" => Some(CmpOp::Eq),
            "SNE" => Some(CmpOp::Ne),
            "SLT" => Some(CmpOp::Lt),
            "SLE" => Some(CmpOp::Le),
            "SGT" => Some(CmpOp::Gt),
            "SGE" => Some(CmpOp::Ge),
            _ => None,
        };
        if r.reg == d.reg && m.hi && t.kind == Kind::F {
            return self.err(format!("MUL.HI needs an integer data type {R_INSTR}"));
        }
        self.comma(op)?;
        if op == "MOV" {
            let a = self.src(t, op)?;
            self.b.mov(d, a);
        } else if let Some((u, scalar)) = unary {
            let a = self.src(t, op)?;
            let a = if scalar { component(a, 0) } else { a };
            self.b.un(u, v4, d, a);
            // NV_gpu_program4 LG2: "If the scalar operand is zero or negative, the result is
            // undefined"; RSQ: "If the operand is less than or equal to zero, the results of
            // the instruction are undefined."
            let rule = match u {
                UnOp::Log2 => Some(UndefinedRule::LogDomain),
                UnOp::Rsq => Some(UndefinedRule::InverseSqrtDomain),
                _ => None,
            };
            if let Some(rule) = rule {
                if let Some(bad) = self.b.float_domain(rule, v4, a, a) {
                    self.mark(d, bad, rule);
                }
            }
        } else if matches!(op, "FLR" | "CEIL" | "TRUNC" | "ROUND") {
            // vf input: the operand is floating-point; an integer data type converts the result.
            let ft = if t.kind == Kind::F { t } else { ScalarTy::F32 };
            let a = self.src(ft, op)?;
            let u = match op {
                "FLR" => UnOp::Floor,
                "CEIL" => UnOp::Ceil,
                "TRUNC" => UnOp::Trunc,
                _ => UnOp::RoundEven,
            };
            if t.kind == Kind::F {
                self.b.un(u, v4, d, a);
            } else {
                let rounded = self.unary_to_scratch(u, Ty::vec4(ft), a);
                self.b.convert(ft, t, 4, d, rounded);
            }
        } else if let Some(bop) = binary {
            let (a, a0) = self.src_ex(t, op)?;
            self.comma(op)?;
            let (b, b0) = self.src_ex(t, op)?;
            if m.cc.is_some() && t.kind != Kind::F && matches!(op, "ADD" | "SUB") {
                // Carry/overflow flags of the add or subtract the operands spell, with
                // negations folded in (NV_gpu_program4 section 2.X.4.3).
                let sub = op == "SUB";
                self.pending_carry = Some(match (a0, b0) {
                    (None, Some(b0)) => (a, b0, !sub),
                    (Some(a0), None) if !sub => (b, a0, true),
                    // -A-B and the like: undefined carry/overflow; the flags of the plain
                    // operation on the negated values.
                    _ => (a, b, sub),
                });
            }
            // MUL.S24/U24: "The results of such multiplies are undefined if either operand is
            // outside the range [-2^23,+2^23-1] for S24 or [0,2^24-1] for U24" (NV_gpu_program4
            // MUL); computed before the result, which may alias an operand.
            let bad24 = m.mul24.map(|_| self.mul24_range(t, a, b));
            self.b.bin(bop, v4, d, a, b);
            if let Some(bad) = bad24 {
                self.mark(d, bad, UndefinedRule::NvMul24Range);
            }
        } else if op == "SAD" {
            // NV_gpu_program4 SAD: abs(op0 - op1) + op2, the first two read as the data type,
            // the third and the result unsigned. |a - b| is max - min, exact modulo 2^32 for
            // both readings (the difference is below 2^32).
            let [a, b] = self.sources(t, op)?;
            self.comma(op)?;
            let (c, c0) = self.src_ex(ScalarTy::U32, op)?;
            let u4 = Ty::vec4(ScalarTy::U32);
            let (hi, lo) = (self.scratch(), self.scratch());
            // The fuzzer's self-test can plant a data-type bug here: SAD.S ordering its
            // operands as unsigned.
            let order = if self.bug == Some(crate::PlantedBug::SadSignedReadsUnsigned) {
                u4
            } else {
                v4
            };
            self.b.bin(BinOp::Max, order, Dst::new(hi), a, b);
            self.b.bin(BinOp::Min, order, Dst::new(lo), a, b);
            self.b
                .bin(BinOp::Sub, u4, Dst::new(hi), Src::new(hi), Src::new(lo));
            if m.cc.is_some() {
                // SAD sets the carry and overflow flags of its add (section 2.X.4.3).
                self.pending_carry = Some(match c0 {
                    Some(c0) => (Src::new(hi), c0, true),
                    None => (Src::new(hi), c, false),
                });
            }
            self.b.bin(BinOp::Add, u4, d, Src::new(hi), c);
        } else if let Some(bop) = scalar_second {
            let a = self.src(t, op)?;
            self.comma(op)?;
            let b = self.src(
                if matches!(op, "SHL" | "SHR") {
                    ScalarTy::new(t.kind, 32)
                } else {
                    t
                },
                op,
            )?;
            let b = component(b, 0);
            self.b.bin(bop, v4, d, a, b);
            if op == "MOD" && t.kind == Kind::S {
                // NV_gpu_program4 MOD: "A result component is undefined if the corresponding
                // component of the first operand is negative or if the second operand is less
                // than or equal to zero." (Unsigned: a zero divisor, which the executor flags.)
                let z = Src::new(self.b.interned_constant([0; 4]));
                let a_neg = self.b.cmp_fresh(CmpOp::Lt, v4, a, z);
                let b_le = self.b.cmp_fresh(CmpOp::Le, v4, b, z);
                let bad = self.b.bin_fresh(
                    BinOp::Or,
                    Ty::vec4(ScalarTy::BOOL),
                    Src::new(a_neg),
                    Src::new(b_le),
                );
                self.mark(d, bad, UndefinedRule::NvModDomain);
            }
        } else if let Some(cop) = set_on {
            let [a, b] = self.sources(t, op)?;
            let s = self.scratch();
            self.b.cmp(cop, v4, Dst::new(s), a, b);
            let (tv, fv) = Self::true_false(t);
            let (tr, fr) = (self.b.interned_constant(tv), self.b.interned_constant(fv));
            self.b.select(4, d, Src::new(s), Src::new(tr), Src::new(fr));
        } else if op == "SFL" || op == "STR" {
            let _: [Src; 2] = self.sources(t, op)?;
            let (tv, fv) = Self::true_false(t);
            let k = self.b.interned_constant(if op == "STR" { tv } else { fv });
            self.b.mov(d, Src::new(k));
        } else if op == "POW" {
            let [a, b] = self.sources(t, op)?;
            self.b
                .bin(BinOp::Pow, v4, d, component(a, 0), component(b, 0));
        } else if op == "MAD" {
            let [a, b] = self.sources(t, op)?;
            self.comma(op)?;
            let (cc, c0) = self.src_ex(t, op)?;
            if m.cc.is_some() && t.kind != Kind::F {
                let p = self.scratch();
                self.b.bin(BinOp::Mul, v4, Dst::new(p), a, b);
                self.pending_carry = Some(match c0 {
                    Some(c0) => (Src::new(p), c0, true),
                    None => (Src::new(p), cc, false),
                });
            }
            self.b.push(Inst::Mad {
                ty: v4,
                dst: d,
                a,
                b,
                c: cc,
            });
        } else if op == "CMP" {
            let [a, b, cc] = self.sources(t, op)?;
            let s = self.scratch();
            let z = self.b.interned_constant([0; 4]);
            self.b.cmp(CmpOp::Lt, v4, Dst::new(s), a, Src::new(z));
            self.b.select(4, d, Src::new(s), b, cc);
        } else if matches!(op, "DP2" | "DP3" | "DP4" | "DPH") {
            let [a, b] = self.sources(t, op)?;
            let p = self.scratch();
            self.b.bin(BinOp::Mul, v4, Dst::new(p), a, b);
            let n = match op {
                "DP2" => 2,
                "DP3" | "DPH" => 3,
                _ => 4,
            };
            let acc = self.scratch();
            self.b.bin(
                BinOp::Add,
                Ty::new(t, 1),
                Dst::new(acc),
                Src::splat(p, 0),
                Src::splat(p, 1),
            );
            for k in 2..n {
                self.b.bin(
                    BinOp::Add,
                    Ty::new(t, 1),
                    Dst::new(acc),
                    Src::splat(acc, 0),
                    Src::splat(p, k),
                );
            }
            if op == "DPH" {
                self.b.bin(
                    BinOp::Add,
                    Ty::new(t, 1),
                    Dst::new(acc),
                    Src::splat(acc, 0),
                    component(b, 3),
                );
            }
            self.b.mov(d, Src::splat(acc, 0));
        } else if matches!(op, "NRM" | "XPD" | "SCS") {
            self.vector_legacy(op, t, d)?;
        } else if op == "I2F" {
            let a = self.src(t, op)?;
            let to = if t.bits == 64 {
                ScalarTy::F64
            } else {
                ScalarTy::F32
            };
            self.b.convert(t, to, 4, d, a);
            return self.finish_alu(to, &r, m, d);
        } else if op == "BFE" {
            let [a, b] = self.sources(t, op)?;
            self.b.push(Inst::BitfieldExtract {
                ty: v4,
                dst: d,
                a: b,
                offset: component(a, 1),
                width: component(a, 0),
            });
            self.bitfield_range(t, d, a);
        } else if op == "BFI" {
            let [a, ins, base] = self.sources(t, op)?;
            self.b.push(Inst::BitfieldInsert {
                ty: v4,
                dst: d,
                base,
                insert: ins,
                offset: component(a, 1),
                width: component(a, 0),
            });
            self.bitfield_range(t, d, a);
        } else if op == "PK64" {
            self.require_long(op, Some(&r.name), "writes", r.at)?;
            let a = self.src(ScalarTy::new(t.kind, 32), op)?;
            self.b.push(Inst::Pack64 { dst: d, a });
            return self.finish_alu(ScalarTy::new(t.kind, 64), &r, m, d);
        } else if op == "UP64" {
            let (at, operand) = self.operand_variable();
            self.require_long(op, operand.as_deref(), "reads", at)?;
            let a = self.src(ScalarTy::new(t.kind, 64), op)?;
            self.b.push(Inst::Unpack64 { dst: d, a });
            return self.finish_alu(ScalarTy::new(t.kind, 32), &r, m, d);
        } else {
            return self.err(format!("instruction {op} is not handled {R_INSTR}"));
        }
        self.finish_alu(t, &r, m, d)
    }

    /// CVT (NV_gpu_program5): the operand read as its storage type, converted through the
    /// exact value with the rounding modifier (ROUND when none) for every inexact result, SAT
    /// clamping an integer result (without it the low bits are kept), and widened back to the
    /// register's component size. SAT / SSAT on a float result clamp it to [0, 1] / [-1, 1]
    /// as on every instruction with a floating-point result (NV_gpu_program4 2.X.4.1).
    pub(super) fn cvt(&mut self, m: &Mods, l: u32, c: u32) -> Res<()> {
        if m.storage.len() != 2 {
            return Err(diag(l, c, format!("CVT requires two storage modifiers (result type, then operand type), found {} (NV_gpu_program5, \"CVT\")", m.storage.len())));
        }
        let (to, from) = (m.storage[0].scalar, m.storage[1].scalar);
        if m.storage.iter().any(|t| t.lanes > 1) {
            return Err(diag(
                l,
                c,
                "CVT takes scalar storage modifiers (no X2/X4) (NV_gpu_program5, \"CVT\")"
                    .to_string(),
            ));
        }
        if m.sat == Some(true) && to.kind != Kind::F {
            return Err(diag(l, c, "CVT.SSAT needs a floating-point result type: SAT is the only clamp CVT defines for integer results, and SSAT clamps floating-point results (NV_gpu_program5, \"CVT\"; NV_gpu_program4 2.X.4.1)".to_string()));
        }
        let r = self.result("CVT")?;
        let d = self.target(&r, m);
        self.comma("CVT")?;
        let (fl, fc) = self.here();
        if self.is_sym('-') || self.is_sym('|') {
            return Err(diag(fl, fc, "CVT does not support negation or absolute value on its operand (NV_gpu_program5, \"CVT\")".to_string()));
        }
        // Registers hold 8/16-bit integers widened to 32 bits, f16 as its 16 low bits.
        let reg_ty = |s: ScalarTy| {
            if s.kind != Kind::F && s.bits < 32 {
                ScalarTy::new(s.kind, 32)
            } else {
                s
            }
        };
        let a = self.src(reg_ty(from), "CVT")?;
        let round = match m.round {
            Some(UnOp::Ceil) => Rounding::Up,
            Some(UnOp::Floor) => Rounding::Down,
            Some(UnOp::Trunc) => Rounding::TowardZero,
            _ => Rounding::NearestEven,
        };
        let int_sat = m.sat.is_some() && to.kind != Kind::F;
        let rt = reg_ty(to);
        let s = if rt != to { self.scratch() } else { d.reg };
        let converted = if rt != to { Dst::new(s) } else { d };
        self.b.push(Inst::ConvertRounded {
            from,
            to,
            lanes: 4,
            round,
            sat: int_sat,
            dst: converted,
            a,
        });
        if rt != to {
            self.b.convert(to, rt, 4, d, Src::new(s));
        }
        // The float clamp is the write-back's, in the result's own float width.
        let rest = Mods {
            sat: if int_sat { None } else { m.sat },
            ..m.clone()
        };
        self.finish_alu(rt, &r, &rest, d)
    }
}
