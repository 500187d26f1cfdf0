//! Register instructions: arithmetic, comparisons, conversions, bit fields, packing, dynamic
//! components, built-ins and condition codes. They read and write the invocation's registers
//! (and, for `MarkPrivateUndefined`, its private memory), and mark the results the specs leave
//! undefined (`poison`); memory is `access`'s, the pc `control`'s.

use super::*;

impl GroupExec {
    /// Executes register instruction `inst` for the invocation at `at` ([`GroupExec::run_inv`]
    /// sends only register instructions here; any other is left alone).
    #[inline(always)]
    pub(super) fn compute(&mut self, env: &Env, at: At, inst: &Inst) {
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            steps,
        } = at;
        let regs = &mut self.regs[base..base + nregs];
        match inst {
            Inst::Mov { dst, a } => {
                let v = rd(regs, crate::exec::planted::mov_source(env.bug, *a));
                wr(regs, dst, 4, v);
            }
            Inst::Un { op, ty, dst, a } => {
                let a = rd(regs, *a);
                let mut v = [0u64; 4];
                for l in 0..ty.lanes.min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    let op = crate::exec::planted::unop(env.bug, *op, ty.scalar);
                    v[l] = crate::exec::planted::unop_value(env.bug, op, ty.scalar, a[l]);
                }
                wr(regs, dst, ty.lanes, v);
                // (The tests and the exponent and pack results are not floats.)
                if !matches!(
                    op,
                    UnOp::IsNan | UnOp::IsInf | UnOp::FrexpExp | UnOp::PackNorm { .. }
                ) {
                    self.nan_undefined(env, i, base, nregs, dst, *ty, &v, pc);
                }
            }
            Inst::Bin { op, ty, dst, a, b } => {
                let (a, b) = (rd(regs, *a), rd(regs, *b));
                let mut v = [0u64; 4];
                for l in 0..ty.lanes.min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    let count = crate::exec::planted::shift_count(env.bug, *op, ty.scalar, b[l]);
                    v[l] = values::binop(*op, ty.scalar, a[l], count);
                    if env.bug == Some(PlantedBug::SignedDivisionRoundsDown)
                        && *op == BinOp::Div
                        && ty.scalar.kind == Kind::S
                    {
                        v[l] = values::floor_div_planted(ty.scalar, a[l], b[l]);
                    }
                }
                wr(regs, dst, ty.lanes, v);
                self.nan_undefined(env, i, base, nregs, dst, *ty, &v, pc);
                if ty.scalar.kind != Kind::F
                    && matches!(
                        op,
                        BinOp::Div | BinOp::Rem | BinOp::Mod | BinOp::Shl | BinOp::Shr
                    )
                {
                    let bad = values::undefined_lanes(*op, ty.scalar, &b, ty.lanes, dst.mask);
                    self.make_undefined(i, base, nregs, dst, bad, pc);
                }
            }
            Inst::MarkUndefined {
                lanes,
                dst,
                why: crate::ir::UndefinedRule::UninitializedValue,
                ..
            } if env.uninit_fill.is_some() => {
                let fill = env.uninit_fill.unwrap_or(0);
                wr(regs, dst, *lanes, [fill; 4]);
            }
            Inst::MarkPrivateUndefined { off, size } => {
                let (off, size) = (*off as usize, *size as usize);
                let inv = &mut self.invs[i];
                if let Some(bytes) = inv.private.get_mut(off..off + size) {
                    match env.uninit_fill {
                        Some(fill) => {
                            let pattern = (fill as u32).to_le_bytes();
                            for (k, b) in bytes.iter_mut().enumerate() {
                                *b = pattern[k % 4];
                            }
                        }
                        None => {
                            bytes.fill(0);
                            let o = Origin::new(Cause::Undefined, pc);
                            inv.private_poison.set(off as u64, size as u32, o);
                        }
                    }
                }
            }
            Inst::MarkUndefined {
                lanes, dst, cond, ..
            } => {
                let c = rd(regs, *cond);
                let mut bad = 0u8;
                for (l, v) in c.iter().enumerate().take((*lanes).min(4) as usize) {
                    if *v != 0 && dst.mask & (1 << l) != 0 {
                        bad |= 1 << l;
                    }
                }
                self.make_undefined(i, base, nregs, dst, bad, pc);
            }
            Inst::Mad { ty, dst, a, b, c } => {
                let (a, b, c) = (rd(regs, *a), rd(regs, *b), rd(regs, *c));
                let mut v = [0u64; 4];
                for l in 0..ty.lanes.min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    v[l] = values::mad(ty.scalar, a[l], b[l], c[l]);
                }
                wr(regs, dst, ty.lanes, v);
                self.nan_undefined(env, i, base, nregs, dst, *ty, &v, pc);
            }
            Inst::Cmp { op, ty, dst, a, b } => {
                let (a, b) = (rd(regs, *a), rd(regs, *b));
                let mut v = [0u64; 4];
                for l in 0..ty.lanes.min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    v[l] = u64::from(crate::exec::planted::cmp(
                        env.bug, *op, ty.scalar, a[l], b[l],
                    ));
                }
                wr(regs, dst, ty.lanes, v);
            }
            Inst::Select {
                lanes,
                dst,
                cond,
                a,
                b,
            } => {
                let (c, a, b) = (rd(regs, *cond), rd(regs, *a), rd(regs, *b));
                let mut v = [0u64; 4];
                for l in 0..(*lanes).min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    v[l] = if c[l] != 0 { a[l] } else { b[l] };
                }
                wr(regs, dst, *lanes, v);
            }
            Inst::Convert {
                from,
                to,
                lanes,
                dst,
                a,
            } => {
                let check = from.kind == Kind::F && to.kind != Kind::F;
                let (v, bad) = convert_lanes(rd(regs, *a), dst, *lanes, |x| {
                    let defined = !check || values::convert_defined(*from, *to, x);
                    (values::convert(*from, *to, x), defined)
                });
                wr(regs, dst, *lanes, v);
                self.make_undefined(i, base, nregs, dst, bad, pc);
            }
            Inst::ConvertRounded {
                from,
                to,
                lanes,
                round,
                sat,
                dst,
                a,
            } => {
                let round = crate::exec::planted::rounding(env.bug, *round);
                let (v, bad) = convert_lanes(rd(regs, *a), dst, *lanes, |x| {
                    crate::exec::convert::convert_rounded(*from, *to, round, *sat, x)
                });
                wr(regs, dst, *lanes, v);
                self.make_undefined(i, base, nregs, dst, bad, pc);
            }
            Inst::BitfieldExtract {
                ty,
                dst,
                a,
                offset,
                width,
            } => {
                let (a, o, w) = (rd(regs, *a), rd(regs, *offset), rd(regs, *width));
                let mut v = [0u64; 4];
                for l in 0..ty.lanes.min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    let (off, wid) = (o[l] & 0xffff_ffff, w[l] & 0xffff_ffff);
                    v[l] = values::bfe(ty.scalar, a[l], off, wid);
                }
                wr(regs, dst, ty.lanes, v);
            }
            Inst::BitfieldInsert {
                ty,
                dst,
                base: b,
                insert,
                offset,
                width,
            } => {
                let (bs, ins, o, w) = (
                    rd(regs, *b),
                    rd(regs, *insert),
                    rd(regs, *offset),
                    rd(regs, *width),
                );
                let mut v = [0u64; 4];
                for l in 0..ty.lanes.min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    let (off, wid) = (o[l] & 0xffff_ffff, w[l] & 0xffff_ffff);
                    v[l] = values::bfi(ty.scalar, bs[l], ins[l], off, wid);
                }
                wr(regs, dst, ty.lanes, v);
            }
            Inst::Pack64 { dst, a } => {
                let a = rd(regs, *a);
                let lo = (a[0] & 0xffff_ffff) | (a[1] << 32);
                let hi = (a[2] & 0xffff_ffff) | (a[3] << 32);
                wr(regs, dst, 4, [lo, hi, lo, hi]);
            }
            Inst::Unpack64 { dst, a } => {
                let a = rd(regs, *a);
                let v = [
                    a[0] & 0xffff_ffff,
                    a[0] >> 32,
                    a[1] & 0xffff_ffff,
                    a[1] >> 32,
                ];
                wr(regs, dst, 4, v);
            }
            Inst::ExtractDyn { dst, vec, idx } => {
                let v = rd(regs, *vec);
                let k = rdx(regs, *idx) & 0xffff_ffff;
                let x = if k < 4 { v[k as usize] } else { 0 };
                wr(regs, dst, 1, [x, 0, 0, 0]);
                if k >= 4 {
                    self.flags.add(
                        FlagKind::OutOfBounds,
                        format!(
                            "group {gid:?} invocation {i}: dynamic component index {}, read as 0",
                            dyn_index_text(k)
                        ),
                    );
                }
            }
            Inst::InsertDyn { dst, vec, val, idx } => {
                let mut v = rd(regs, *vec);
                let k = rdx(regs, *idx) & 0xffff_ffff;
                if k < 4 {
                    v[k as usize] = rdx(regs, *val);
                }
                wr(regs, dst, 4, v);
                if k >= 4 {
                    self.flags.add(FlagKind::OutOfBounds, format!("group {gid:?} invocation {i}: dynamic component index {}, write dropped", dyn_index_text(k)));
                }
            }
            Inst::Builtin { dst, which } => {
                let v = self.builtin(env, gid, i, *which, steps);
                let regs = &mut self.regs[base..base + nregs];
                wr(regs, dst, 4, v);
            }
            Inst::SetCc { ty, dst, a } => {
                let a = rd(regs, *a);
                let mut v = [0u64; 4];
                for l in 0..ty.lanes.min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    v[l] = values::cc_flags(ty.scalar, a[l]);
                }
                wr(regs, dst, ty.lanes, v);
            }
            Inst::SetCcAdd { ty, sub, dst, a, b } => {
                let (a, b) = (rd(regs, *a), rd(regs, *b));
                let mut v = [0u64; 4];
                for l in 0..ty.lanes.min(4) as usize {
                    if dst.mask & (1 << l) == 0 {
                        continue; // lanes the write mask drops are not computed
                    }
                    let f = values::cc_flags_add(ty.scalar, a[l], b[l], *sub);
                    v[l] = crate::exec::planted::cc_add_flags(env.bug, f, *sub);
                }
                wr(regs, dst, ty.lanes, v);
            }
            Inst::TestCc { test, dst, cc } => {
                let c = rd(regs, *cc);
                let mut v = [0u64; 4];
                for l in 0..4 {
                    v[l] = u64::from(values::cc_test(*test, c[l]));
                }
                wr(regs, dst, 4, v);
            }
            _ => {}
        }
    }
}
