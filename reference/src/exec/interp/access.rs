//! Memory instructions: loads, stores, atomics and image operations, with what goes with
//! them: bounds and alignment checks, undefined-value origins (`poison`), races between
//! invocations (`race`) and the flags of accesses the specs leave undefined.

use super::*;

// Each takes the whole instruction and matches its kind again (a compare the branch
// predictor keeps): `run_inv`'s match names the four, so their fields need no second type.

impl GroupExec {
    /// A load: each lane from memory, with its origin.
    #[inline]
    pub(super) fn load(&mut self, env: &Env, at: At, inst: &Inst) {
        let Inst::Load {
            space,
            ty,
            dst,
            addr,
        } = inst
        else {
            return;
        };
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &mut self.regs[base..base + nregs];
        let a = rdx(regs, *addr) & 0xffff_ffff;
        let sz = ty.scalar.bytes();
        let line = line_of(prog, pc);
        self.check_use(prog, gid, i, base, line, *addr, "the address of a load");
        self.check_block_index(gid, i, pc, line, *space, a);
        let mut v = [0u64; 4];
        let mut origins = [Origin::NONE; 4];
        for l in 0..ty.lanes.min(4) as usize {
            let (raw, o) = self.mem_load(
                env,
                gid,
                i,
                *space,
                a + (l as u64) * u64::from(sz),
                sz,
                pc,
                line,
            );
            v[l] = widen(crate::exec::planted::load_ty(env.bug, *ty), raw);
            origins[l] = o;
        }
        if misaligned(prog, *space, a, sz, ty.lanes) {
            origins = [Origin::new(Cause::Undefined, pc); 4];
        }
        let regs = &mut self.regs[base..base + nregs];
        wr(regs, dst, ty.lanes, v);
        if origins.iter().any(|o| o.is_some()) {
            self.taint(i, nregs);
        }
        if self.invs[i].tainted {
            let sh = &mut self.shadow[base..base + nregs];
            poison::write(sh, dst, ty.lanes, origins);
        }
    }

    /// A store: each lane to memory, with its origin.
    #[inline]
    pub(super) fn store(&mut self, env: &Env, at: At, inst: &Inst) {
        let Inst::Store {
            space,
            ty,
            addr,
            val,
        } = inst
        else {
            return;
        };
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &mut self.regs[base..base + nregs];
        let a = rdx(regs, *addr) & 0xffff_ffff;
        let v = rd(regs, *val);
        let sz = ty.scalar.bytes();
        let line = line_of(prog, pc);
        self.check_use(prog, gid, i, base, line, *addr, "the address of a store");
        self.check_block_index(gid, i, pc, line, *space, a);
        let origins = self.origins(i, base, nregs, *val);
        if misaligned(prog, *space, a, sz, ty.lanes) {
            self.flags.add(FlagKind::UndefinedValue, format!("group {gid:?} invocation {i}, line {line}: a store of {} bytes at offset {a}, not a multiple of its size (NV_gpu_program5 section 2.X.4.5: its effects are undefined; performed)", u64::from(sz) * u64::from(ty.lanes)));
        }
        for l in 0..ty.lanes.min(4) as usize {
            self.mem_store(
                env,
                gid,
                i,
                *space,
                a + (l as u64) * u64::from(sz),
                sz,
                narrow(*ty, v[l]),
                origins[l],
                line,
            );
        }
    }

    /// An atomic: read, operate and write one word, returning the old value.
    #[inline]
    pub(super) fn atomic(&mut self, env: &Env, at: At, inst: &Inst) {
        let Inst::Atomic {
            space,
            op,
            ty,
            dst,
            addr,
            a,
            b,
        } = inst
        else {
            return;
        };
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &mut self.regs[base..base + nregs];
        let off = rdx(regs, *addr) & 0xffff_ffff;
        let (av, bv) = (rdx(regs, *a), rdx(regs, *b));
        let size = ty.bytes();
        let line = line_of(prog, pc);
        let (op, ty, bug) = (*op, *ty, env.bug);
        self.check_use(prog, gid, i, base, line, *addr, "the address of an atomic");
        self.check_block_index(gid, i, pc, line, *space, off);
        self.check_use(prog, gid, i, base, line, *a, "an operand of an atomic");
        if op == AtomicOp::CmpXchg {
            self.check_use(prog, gid, i, base, line, *b, "an operand of an atomic");
        }
        if !off.is_multiple_of(u64::from(size.max(1))) {
            self.flags.add(FlagKind::MisalignedAtomic, format!("group {gid:?} invocation {i}, line {line}: atomic at offset {off} not aligned to {size} bytes (performed non-atomically)"));
        }
        // What the atomic stored (None: nothing), for the undefined values it makes.
        let stored = std::cell::Cell::new(None);
        let f = |op, old: u64| {
            let new = atomic_new(op, ty, old, av, bv, bug);
            stored.set(new);
            new
        };
        // A float atomic whose stored value the specs leave undefined (a NaN sum, a min or
        // max of two NaNs of one kind) makes it undefined there: marked in shared memory,
        // flagged at the store to a buffer (which the API reads), as a store is.
        let nan_undefined = prog.nan_undefined;
        let made = |old: u64, stored: Option<u64>| match crate::exec::mem::float_atomic_undefined(
            op,
            ty,
            old,
            av,
            stored,
            nan_undefined,
        ) {
            Some(_) => Origin::new(Cause::Undefined, pc),
            None => Origin::NONE,
        };
        let mut old_origin = Origin::NONE;
        // An element of an array of blocks: its block (out of range: unresolved,
        // so out of bounds below).
        let (space, off) = match space.resolve(off) {
            Some((s, o)) if matches!(space, Space::BlockArray { .. } | Space::CounterAddress) => {
                (s, o)
            }
            _ => (*space, off),
        };
        // An atomic synchronises (`race`) before its write, which it does not order.
        if matches!(space, Space::Shared | Space::Storage(_)) {
            self.race.sync([i]);
        }
        if matches!(space, Space::Storage(_)) {
            self.cross.atomic(i);
        }
        let old = match space {
            Space::Shared => match self.shared.read(off, size) {
                Some((old, init)) => {
                    // The old value of a never-written word is undefined. An
                    // exchange stores its operand whatever that was, so the word
                    // becomes defined; any other atomic's outcome depends on it (a
                    // compare-exchange's even on whether it stores), so the word
                    // stays undefined.
                    old_origin = self.shared_poison.get(off, size);
                    if !init {
                        old_origin = old_origin.or(Origin::new(Cause::UninitShared, pc));
                    }
                    if let Some(new) = f(self.shared.atomic_op(bug, off, op), old) {
                        self.shared.write(off, size, new);
                    }
                    let now = if op == AtomicOp::Exch {
                        Origin::NONE
                    } else {
                        old_origin.or(made(old, stored.get()))
                    };
                    self.shared_poison.set(off, size, now);
                    Some(old)
                }
                None => None,
            },
            Space::Storage(bn) => {
                let old = find(&env.storage, bn).and_then(|g| g.atomic(off, size, op, bug, f));
                // What it stored, for a later dispatch's loads (`visibility`).
                if let (Some(t), Some(old), Some(new)) = (find(&env.unseen, bn), old, stored.get())
                {
                    t.wrote(off, size, old, new);
                }
                old
            }
            Space::AtomicCounter(bn) => {
                find(&env.counters, bn).and_then(|g| g.atomic(off, size, op, bug, f))
            }
            _ => None,
        };
        if let (Some(old), Some((mem, now))) = (old, self.race_before_write(env, space, off, size))
        {
            if now != old {
                let at = (gid, i, line, "an atomic");
                self.race_write(env, at, mem, off, size, old, now);
            }
        }
        let old = match old {
            Some(o) => o,
            None => {
                self.flags.add(FlagKind::OutOfBounds, format!("group {gid:?} invocation {i}, line {line}: atomic at offset {off} of {space:?} out of bounds or unbound: no effect, returns 0"));
                0
            }
        };
        if !poison::tracked_in_memory(space) {
            let o = made(old, stored.get());
            if o.is_some() {
                let use_ = format!("an atomic's store to {space:?} (offset {off})");
                self.used(prog, gid, i, line, &use_, o);
            }
        }
        if let Some(d) = dst {
            let regs = &mut self.regs[base..base + nregs];
            wr(regs, d, 1, [old, 0, 0, 0]);
            if old_origin.is_some() {
                self.taint(i, nregs);
            }
            if self.invs[i].tainted {
                let sh = &mut self.shadow[base..base + nregs];
                poison::write(sh, d, 1, [old_origin; 4]);
            }
        }
    }

    /// An image operation (or a texel fetch).
    #[inline]
    pub(super) fn image(&mut self, env: &Env, at: At, inst: &Inst) {
        let Inst::Image(im) = inst else {
            return;
        };
        let At {
            gid,
            i,
            base,
            nregs,
            pc,
            ..
        } = at;
        let prog = env.prog;
        let regs = &mut self.regs[base..base + nregs];
        let line = line_of(prog, pc);
        let (unit, coord) = (rdx(regs, im.unit), rd(regs, im.coord));
        let (a, b) = (rd(regs, im.a), rd(regs, im.b));
        if matches!(im.op, ImageOp::Atomic(_)) {
            self.race.sync([i]);
        }
        let done = run_image(env, im, unit, coord, a, b);
        // A float image atomic whose stored value the specs leave undefined (a NaN sum):
        // flagged where it runs, as a store to a buffer is.
        if let (ImageOp::Atomic(op), Some(t)) = (im.op, done.texel) {
            let ty = crate::ir::ScalarTy::new(im.var.kind, 32);
            let (old, now) = (t.before as u64, Some(t.after as u64));
            let why = crate::exec::mem::float_atomic_undefined(
                op,
                ty,
                old,
                a[0],
                now,
                prog.nan_undefined,
            );
            if let Some(why) = why {
                let msg = format!("group {gid:?} invocation {i}, line {line}: an image atomic's store to unit {unit} uses the result of {why}");
                self.flags.add(FlagKind::UndefinedValue, msg);
            }
        }
        let racy = done.texel.is_some_and(|t| {
            let at = (gid, i, line, "an image write");
            self.race_image(at, unit, im.op, t)
        });
        let reads_data = !matches!(im.op, ImageOp::Load | ImageOp::Size);
        let uses = [(im.unit, "unit"), (im.coord, "coordinates"), (im.a, "data")];
        for (s, what) in uses.into_iter().take(if reads_data { 3 } else { 2 }) {
            let use_ = format!("the {what} of an image access");
            self.check_use(prog, gid, i, base, line, s, &use_);
        }
        // A mismatched load or fetch gives an undefined value, flagged where it is
        // used; a mismatched store or atomic writes undefined values: flagged here.
        let value = !reads_data || im.op == ImageOp::Fetch;
        let undefined_result = value && done.undefined.is_some();
        if let Some(why) = done.undefined.filter(|_| !undefined_result) {
            let msg = format!("group {gid:?} invocation {i}, line {line}: {why}");
            self.flags.add(FlagKind::UndefinedValue, msg);
        }
        if let (Some(d), Some(v)) = (im.dst, done.value) {
            wr(&mut self.regs[base..base + nregs], &d, 4, v);
            if undefined_result {
                self.make_undefined(i, base, nregs, &d, d.mask, pc);
            } else if racy {
                self.taint(i, nregs);
                let sh = &mut self.shadow[base..base + nregs];
                poison::write(sh, &d, 4, [Origin::new(Cause::DataRace, pc); 4]);
            } else if self.invs[i].tainted {
                let sh = &mut self.shadow[base..base + nregs];
                poison::write(sh, &d, 4, [Origin::NONE; 4]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Undefined values made by memory operations are flagged where they are made: a float
    //! atomic add whose result is a NaN (GLSL, SPIR-V; not NV assembly, which computes by
    //! IEEE rules), a float atomicMin or atomicMax of two NaNs of one kind.

    use crate::exec::testing::{self, undefined};
    use conform_plan::bytes::from_u32s;
    use conform_plan::{
        BufferInit, BufferKind, ElemType, ImageDesc, ImageDim, ImageFormat, Language, Outcome,
        Scalar, Step,
    };

    fn storage(binding: u32, words: &[u32]) -> BufferInit {
        BufferInit {
            name: format!("b{binding}"),
            kind: BufferKind::Storage,
            binding,
            elem: ElemType::scalar(Scalar::U32),
            bytes: from_u32s(words),
        }
    }

    /// Runs one work group of `language` text with `buffers`; the outcome and the first
    /// buffer's words.
    fn run(language: Language, text: &str, buffers: Vec<BufferInit>) -> (Outcome, Vec<u32>) {
        let one = vec![Step::Dispatch { groups: [1, 1, 1] }];
        testing::run(&testing::plan(language, text, buffers, one))
    }

    const NAN: u32 = 0x7FC0_0000;
    const INF: u32 = 0x7F80_0000;
    const NEG_INF: u32 = 0xFF80_0000;
    const ONE: u32 = 0x3F80_0000;
    const FIVE: u32 = 0x40A0_0000;

    fn glsl(ext: &str, decls: &str, body: &str) -> String {
        format!(
            "#version 430\n#extension {ext} : require\nlayout(local_size_x = 1) in;\n\
             layout(std430, binding = 0) buffer B {{ float m[4]; float d[4]; float r[4]; }};\n\
             {decls}\nvoid main() {{\n{body}\n}}\n"
        )
    }

    #[test]
    fn a_float_atomic_add_that_stores_a_nan_in_a_buffer_is_flagged() {
        // NaN + 1, inf + -inf, 5 + NaN: each stored sum is flagged; inf + 1 is inf.
        for (old, data) in [(NAN, ONE), (INF, NEG_INF), (FIVE, NAN)] {
            let src = glsl(
                "GL_NV_shader_atomic_float",
                "",
                "    atomicAdd(m[0], d[0]);",
            );
            let mut words = vec![0; 12];
            (words[0], words[4]) = (old, data);
            let (o, w) = run(Language::Glsl, &src, vec![storage(0, &words)]);
            assert_eq!(w[0] & 0x7F80_0000, 0x7F80_0000, "a NaN is stored");
            let m = undefined(&o).unwrap_or_else(|| panic!("{old:#x} + {data:#x} not flagged"));
            assert!(m.contains("an atomic's store to Storage(0)"), "{m}");
            assert!(
                m.contains("a float atomic add whose result is a NaN"),
                "{m}"
            );
        }
        let src = glsl(
            "GL_EXT_shader_atomic_float",
            "",
            "    r[0] = atomicAdd(m[0], d[0]);",
        );
        let mut words = vec![0; 12];
        (words[0], words[4]) = (INF, ONE);
        let (o, w) = run(Language::Glsl, &src, vec![storage(0, &words)]);
        assert_eq!((w[0], w[8]), (INF, INF));
        assert_eq!(undefined(&o), None, "{:?}", o.flags);
    }

    #[test]
    fn a_nan_sum_in_shared_memory_is_flagged_where_it_is_used() {
        let decls = "shared float s;";
        // The sum stays in shared memory: defined. The returned old value is the NaN read
        // from the buffer, which no operation made: defined.
        let body = "    s = m[0];\n    r[0] = atomicAdd(s, 1.0);";
        let src = glsl("GL_NV_shader_atomic_float", decls, body);
        let mut words = vec![0; 12];
        words[0] = NAN;
        let (o, w) = run(Language::Glsl, &src, vec![storage(0, &words.clone())]);
        assert_eq!(w[8], NAN);
        assert_eq!(undefined(&o), None, "{:?}", o.flags);
        // Stored to the buffer, the sum is flagged, naming the add.
        let body = "    s = m[0];\n    atomicAdd(s, 1.0);\n    r[0] = s;";
        let (o, _) = run(
            Language::Glsl,
            &glsl("GL_NV_shader_atomic_float", decls, body),
            vec![storage(0, &words.clone())],
        );
        let m = undefined(&o).expect("flagged");
        assert!(
            m.contains("a float atomic add whose result is a NaN"),
            "{m}"
        );
        // The next atomic returns the made NaN: its old value is undefined too.
        let body = "    s = m[0];\n    atomicAdd(s, 1.0);\n    r[0] = atomicExchange(s, 2.0);\n    r[1] = s;";
        let (o, w) = run(
            Language::Glsl,
            &glsl("GL_NV_shader_atomic_float", decls, body),
            vec![storage(0, &words)],
        );
        assert_eq!(w[9], 0x4000_0000, "the exchange stored 2.0");
        let m = undefined(&o).expect("flagged");
        assert!(m.contains("a store to Storage(0) (offset 32)"), "{m}");
        assert!(
            !m.contains("offset 36"),
            "the exchanged value is defined: {m}"
        );
    }

    #[test]
    fn a_float_image_atomic_add_that_stores_a_nan_is_flagged() {
        let src = "#version 430\n#extension GL_EXT_shader_atomic_float : require\n\
                   layout(local_size_x = 1) in;\n\
                   layout(r32f, binding = 0) uniform coherent image2D img;\n\
                   layout(std430, binding = 0) buffer B { float d; float r; };\n\
                   void main() { r = imageAtomicAdd(img, ivec2(0, 0), d); }\n";
        let image = |texel: u32| BufferInit {
            name: "img".into(),
            kind: BufferKind::Image(ImageDesc {
                dim: ImageDim::D2,
                format: ImageFormat::R32f,
                size: [1, 1, 1],
                range: None,
            }),
            binding: 0,
            elem: ImageFormat::R32f.texel(),
            bytes: from_u32s(&[texel]),
        };
        let (o, _) = run(
            Language::Glsl,
            src,
            vec![storage(0, &[NEG_INF, 0]), image(INF)],
        );
        let m = undefined(&o).expect("flagged");
        assert!(m.contains("an image atomic's store"), "{m}");
        let (o, w) = run(Language::Glsl, src, vec![storage(0, &[ONE, 0]), image(ONE)]);
        assert_eq!(w[1], ONE);
        assert_eq!(undefined(&o), None, "{:?}", o.flags);
    }

    #[test]
    fn float_atomic_min_max_of_two_nans_of_one_kind_is_flagged() {
        let body = "    atomicMin(m[0], d[0]);\n    atomicMax(m[1], d[1]);";
        let src = glsl("GL_INTEL_shader_atomic_float_minmax", "", body);
        // Two different quiet NaNs: which is stored is undefined.
        let mut words = vec![0; 12];
        (words[0], words[1], words[4], words[5]) = (NAN, NAN, NAN | 1, NAN | 1);
        let (o, _) = run(Language::Glsl, &src, vec![storage(0, &words)]);
        let m = undefined(&o).expect("flagged");
        assert!(
            m.contains("atomicMin or atomicMax of two different NaNs"),
            "{m}"
        );
        // A quiet NaN against a number, and the same NaN twice: defined.
        (words[0], words[1], words[4], words[5]) = (ONE, NAN, NAN, NAN);
        let (o, w) = run(Language::Glsl, &src, vec![storage(0, &words)]);
        assert_eq!(&w[..2], &[ONE, NAN]);
        assert_eq!(undefined(&o), None, "{:?}", o.flags);
    }

    #[test]
    fn nv_assembly_float_atomic_adds_follow_ieee_unflagged() {
        let src = "!!NVcp5.0\nOPTION NV_shader_storage_buffer;\nOPTION NV_shader_atomic_float;\n\
                   GROUP_SIZE 1;\nSTORAGE b[] = { program.storage[0] };\nTEMP r, v;\n\
                   LDB.F32 v.x, b[4];\nATOMB.ADD.F32 r.x, v.x, b[0];\nSTB.F32 r.x, b[8];\nEND\n";
        let (o, w) = run(Language::Nvasm, src, vec![storage(0, &[INF, NEG_INF, 0])]);
        assert_eq!(w[0] & 0x7F80_0000, 0x7F80_0000);
        assert_ne!(w[0] & 0x7F_FFFF, 0, "inf + -inf is a NaN");
        assert_eq!(w[2], INF);
        assert_eq!(undefined(&o), None, "{:?}", o.flags);
    }
}
