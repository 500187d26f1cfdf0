//! NV assembly source operands: variables, bindings, literals and constant vectors, swizzles,
//! negation and absolute value, and indexing of PARAM, TEMP and BUFFER arrays.

use super::{diag, Cx, Res, Sym, R_GRAMMAR, R_SHARED_VARS, R_SSBO};
use crate::front::nvasm::lexer::Tok;
use crate::front::nvasm::FrontError;
use crate::ir::{BinOp, CmpOp, Dst, Inst, Kind, MemTy, Reg, ScalarTy, Space, Src, Ty, UnOp};

/// Encodes a literal for an operation of type `t`.
/// A literal's bits as type `t`, or why it fails the load: "A program will fail to load if it
/// specifies a floating-point constant value ... that should be interpreted as a signed or
/// unsigned integer, or a negative integer constant value that should be interpreted as an
/// unsigned integer", and "if the value used to specify an integer constant is too large to be
/// represented" (NV_gpu_program4, 2.X.3.3).
fn lit_bits(t: ScalarTy, v: &Lit) -> Result<u64, String> {
    match (t.kind, v) {
        (Kind::F, Lit::Int(i, neg)) => {
            // integer to float conversions are correctly rounded (once)
            Ok(if t.bits == 64 {
                let f = *i as f64;
                (if *neg { -f } else { f }).to_bits()
            } else {
                let f = *i as f32;
                u64::from((if *neg { -f } else { f }).to_bits())
            })
        }
        (Kind::F, Lit::Float(f, g)) => Ok(if t.bits == 64 {
            f.to_bits()
        } else {
            u64::from(g.to_bits())
        }),
        (_, Lit::Int(i, neg)) => {
            let unsigned = t.kind == Kind::U;
            if unsigned && *neg && *i != 0 {
                return Err(format!(
                    "the negative constant -{i} is used as an unsigned integer"
                ));
            }
            let max = if unsigned {
                t.mask()
            } else if *neg {
                1u64 << (t.bits - 1)
            } else {
                (1u64 << (t.bits - 1)) - 1
            };
            if *i > max {
                let sign = if *neg { "-" } else { "" };
                return Err(format!(
                    "the constant {sign}{i} is too large for a {}-bit {} integer",
                    t.bits,
                    if unsigned { "unsigned" } else { "signed" }
                ));
            }
            Ok((if *neg { i.wrapping_neg() } else { *i }) & t.mask())
        }
        (_, Lit::Float(f, _)) => Err(format!(
            "the floating-point constant {f} is used as {} integer",
            if t.kind == Kind::U {
                "an unsigned"
            } else {
                "a signed"
            }
        )),
    }
}

const R_CONSTANTS: &str = "(NV_gpu_program4, 2.X.3.3 \"Program Parameters\", constant bindings)";

#[derive(Clone, Copy, Debug)]
enum Lit {
    /// Magnitude and whether it was negated.
    Int(u64, bool),
    /// Double and single precision values, each rounded once from the text.
    Float(f64, f32),
}

/// Whether a swizzle or write mask takes its letters from one set, xyzw or rgba: the grammar
/// has `<xyzwSwizzle>` and `<rgbaSwizzle>` (and the masks likewise), never a mix.
pub(super) fn one_component_set(s: &str) -> bool {
    s.chars().all(|c| "xyzw".contains(c)) || s.chars().all(|c| "rgba".contains(c))
}

pub(super) fn swz_char(c: char) -> Option<u8> {
    match c {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    }
}

/// How TEMP array elements are kept in private memory: four raw 64-bit slots.
pub(super) const TEMP_ELEM: MemTy = MemTy {
    scalar: ScalarTy::U64,
    lanes: 4,
    widen: false,
};

/// Component `k` of an operand, as its swizzle selects it, in every lane: how the scalar
/// operands of NV assembly instructions (RCP's operand, shift counts, bitfield offsets and
/// widths, atomic and shuffle operands, REP counts) are read.
pub(super) fn component(s: Src, k: usize) -> Src {
    Src::splat(s.reg, s.swz[k])
}

/// "The set of constant offsets supported for relative addressing is limited to values in the
/// range [0,<n>-1], where <n> is the size of the array. A program will fail to load if it
/// specifies an offset outside that range" (NV_gpu_program4, 2.X.4.2).
fn relative_offset_in_range(name: &str, k: i64, len: u32, l: u32, c: u32) -> Res<()> {
    if k < 0 || k >= i64::from(len) {
        return Err(diag(l, c, format!("relative offset {k} is outside [0, {}] for array \"{name}\" of {len} elements (NV_gpu_program4, 2.X.4.2 \"Program Operands\")", i64::from(len) - 1)));
    }
    Ok(())
}

impl Cx {
    /// "A program will fail to load if it contains ... an instruction that specifies an array
    /// member for a non-array variable" (NV_gpu_program4 2.X.3.1).
    pub(super) fn no_member_of_non_array(&self, name: &str) -> Res<()> {
        if self.is_sym('[') {
            return self.err(format!("\"{name}\" is not an array: it takes no array member (NV_gpu_program4, 2.X.3.1 \"Program Variable Types\")"));
        }
        Ok(())
    }
}

/// The load failure for a name that was never declared.
pub(super) fn undeclared(l: u32, c: u32, name: &str) -> FrontError {
    diag(l, c, format!("undeclared variable \"{name}\" {R_GRAMMAR}"))
}

/// The load failure for a SHARED or STORAGE variable (`sym`, its declaration) used as `role`
/// ("an operand", "the result") of `op`: only the memory instructions of its kind take it.
pub(super) fn misplaced_memory_variable(
    l: u32,
    c: u32,
    name: &str,
    sym: &Sym,
    role: &str,
    op: &str,
) -> FrontError {
    let message = if let Sym::Shared { .. } = sym {
        format!("shared variable \"{name}\" used as {role} of {op}: shared memory variables may only be operands of ATOMS, LDS and STS {R_SHARED_VARS}")
    } else {
        format!("storage buffer variable \"{name}\" used as {role} of {op}: storage variables may only be operands of ATOMB, LDB and STB {R_SSBO}")
    };
    diag(l, c, message)
}

impl Cx {
    /// A literal scalar or vector in a declaration (`{1, 2, 3, 4}`, `-1.5`).
    pub(super) fn literal_vec(&mut self, kind: Option<Kind>) -> Res<[u64; 4]> {
        let t = match kind {
            Some(k) => ScalarTy::new(k, 32),
            None => ScalarTy::F32,
        };
        self.literal_vec_typed(t)
    }

    /// A literal scalar or vector encoded for type `t` (64-bit types keep full precision).
    fn literal_vec_typed(&mut self, t: ScalarTy) -> Res<[u64; 4]> {
        if self.eat_sym('{') {
            let mut vals = Vec::new();
            loop {
                let at = self.here();
                let lit = self.literal()?;
                vals.push(self.constant(t, &lit, at)?);
                if !self.eat_sym(',') {
                    break;
                }
            }
            self.expect_sym('}', "after a constant vector")?;
            if vals.len() > 4 {
                return self.err(format!(
                    "a constant vector has at most four components {R_GRAMMAR}"
                ));
            }
            let one = self.constant(t, &Lit::Int(1, false), self.here())?;
            let mut v = [0, 0, 0, one];
            for (i, x) in vals.iter().enumerate() {
                v[i] = *x;
            }
            Ok(v)
        } else {
            let at = self.here();
            let lit = self.literal()?;
            let x = self.constant(t, &lit, at)?;
            Ok([x; 4])
        }
    }

    /// `lit` as type `t`, or the load failure at `at` (`lit_bits`).
    fn constant(&self, t: ScalarTy, lit: &Lit, at: (u32, u32)) -> Res<u64> {
        lit_bits(t, lit).map_err(|m| diag(at.0, at.1, format!("{m} {R_CONSTANTS}")))
    }

    fn literal(&mut self) -> Res<Lit> {
        let neg = if self.eat_sym('-') {
            true
        } else {
            self.eat_sym('+');
            false
        };
        match self.peek().tok {
            Tok::Int(v) => {
                self.next();
                Ok(Lit::Int(v, neg))
            }
            Tok::Float(f, g) => {
                self.next();
                Ok(if neg {
                    Lit::Float(-f, -g)
                } else {
                    Lit::Float(f, g)
                })
            }
            ref t => {
                let d = Self::describe(t);
                self.err(format!("expected a number, found {d} {R_GRAMMAR}"))
            }
        }
    }

    pub(super) fn swizzle(&mut self) -> Res<[u8; 4]> {
        if !self.is_sym('.') {
            return Ok([0, 1, 2, 3]);
        }
        self.next();
        let (l, c) = self.here();
        let s = self.ident("a swizzle")?;
        let comps: Option<Vec<u8>> = s.chars().map(swz_char).collect();
        if comps.is_some() && !one_component_set(&s) {
            return Err(diag(
                l,
                c,
                format!("swizzle \".{s}\" mixes xyzw and rgba letters {R_GRAMMAR}"),
            ));
        }
        match comps {
            Some(v) if v.len() == 1 => Ok([v[0]; 4]),
            Some(v) if v.len() == 4 => Ok([v[0], v[1], v[2], v[3]]),
            _ => Err(diag(
                l,
                c,
                format!(
                    "invalid swizzle \".{s}\": use one component or four (x, y, z, w) {R_GRAMMAR}"
                ),
            )),
        }
    }

    /// Parses a relative or absolute index inside `[...]`; returns (dynamic src, constant).
    pub(super) fn index(&mut self) -> Res<(Option<Src>, i64)> {
        self.expect_sym('[', "to open an index")?;
        let r = match self.peek().tok.clone() {
            Tok::Int(v) => {
                self.next();
                (None, i64::try_from(v).unwrap_or(i64::MAX))
            }
            Tok::Ident(name) => {
                let (l, c) = self.here();
                self.next();
                let reg = match self.syms.get(&name) {
                    Some(Sym::Temp(r)) | Some(Sym::Param(r)) => *r,
                    Some(s) => {
                        let w = s.what();
                        return Err(diag(l, c, format!("\"{name}\" is {w}; an index must be a TEMP or PARAM component {R_GRAMMAR}")));
                    }
                    None => return Err(undeclared(l, c, &name)),
                };
                if !self.is_sym('.') {
                    return self.err(format!(
                        "a relative index needs a scalar component, like \"{name}.x\" {R_GRAMMAR}"
                    ));
                }
                let sw = self.swizzle()?;
                if sw[0] != sw[1] || sw[0] != sw[2] || sw[0] != sw[3] {
                    return Err(diag(l, c, format!("a relative index takes one component, not a four-component swizzle {R_GRAMMAR}")));
                }
                let mut k = 0i64;
                if self.is_sym('+') || self.is_sym('-') {
                    let neg = self.is_sym('-');
                    self.next();
                    let v = i64::try_from(self.int("as an index offset")?).unwrap_or(i64::MAX);
                    k = if neg { -v } else { v };
                }
                (Some(Src::splat(reg, sw[0])), k)
            }
            t => {
                let d = Self::describe(&t);
                return self.err(format!("expected an index, found {d} {R_GRAMMAR}"));
            }
        };
        self.expect_sym(']', "to close an index")?;
        Ok(r)
    }

    /// A source operand of an instruction of type `t`.
    pub(super) fn src(&mut self, t: ScalarTy, op: &str) -> Res<Src> {
        Ok(self.src_ex(t, op)?.0)
    }

    /// `N` comma-separated source operands of an instruction of type `t`.
    pub(super) fn sources<const N: usize>(&mut self, t: ScalarTy, op: &str) -> Res<[Src; N]> {
        let first = self.src(t, op)?;
        let mut all = [first; N];
        for s in all.iter_mut().skip(1) {
            self.comma(op)?;
            *s = self.src(t, op)?;
        }
        Ok(all)
    }

    /// A source operand, and the operand before negation when it was negated (for the carry
    /// and overflow flags, where "negation modifiers turn add operations into subtracts").
    pub(super) fn src_ex(&mut self, t: ScalarTy, op: &str) -> Res<(Src, Option<Src>)> {
        let mut neg = if self.eat_sym('-') {
            true
        } else {
            self.eat_sym('+');
            false
        };
        let abs = self.eat_sym('|');
        if abs && self.eat_sym('-') {
            // |-x| is |x|
        }
        let mut src = match self.peek().tok.clone() {
            Tok::Int(_) | Tok::Float(..) => {
                let (l0, c0) = self.here();
                let mut lit = self.literal()?;
                if neg && !abs {
                    lit = match lit {
                        Lit::Int(v, n) => Lit::Int(v, !n),
                        Lit::Float(f, g) => Lit::Float(-f, -g),
                    };
                    neg = false;
                }
                let x = self.constant(t, &lit, (l0, c0))?;
                let r = self.b.interned_constant([x; 4]);
                Src::new(r)
            }
            Tok::Sym('{') => {
                let v = self.literal_vec_typed(t)?;
                let r = self.b.interned_constant(v);
                let sw = self.swizzle()?;
                Src::swizzled(r, sw)
            }
            Tok::Ident(name) => {
                let (l, c) = self.here();
                self.next();
                let reg = if name == "invocation" {
                    self.invocation_attr()?
                } else if name == "program" {
                    let (space, a, b) = self.program_param()?;
                    if a != b {
                        return Err(diag(
                            l,
                            c,
                            format!("a parameter range cannot be an operand {R_GRAMMAR}"),
                        ));
                    }
                    self.param_load(space, a)
                } else {
                    self.check_var_type(&name, t, false, (l, c))?;
                    match self.syms.get(&name).cloned() {
                        Some(Sym::Temp(r)) | Some(Sym::Param(r)) => {
                            self.no_member_of_non_array(&name)?;
                            r
                        }
                        Some(Sym::TempArray { base, len }) => {
                            self.temp_array_elem(&name, base, len, l, c)?.0
                        }
                        Some(Sym::ParamArray { regs, private_base }) => {
                            let (dynamic, k) = self.index()?;
                            match dynamic {
                                None => match usize::try_from(k).ok().and_then(|k| regs.get(k)) {
                                    Some(r) => *r,
                                    None => {
                                        return Err(diag(l, c, format!("index {k} is out of range for PARAM array \"{name}\" of {} elements (ARB_vertex_program, \"Program Parameter Arrays\")", regs.len())));
                                    }
                                },
                                Some(d) => {
                                    relative_offset_in_range(&name, k, regs.len() as u32, l, c)?;
                                    let len = regs.len() as u32;
                                    let addr = self.indexed_addr(d, k, 16, private_base, len);
                                    let s2 = self.scratch();
                                    self.b.load(
                                        Space::Private,
                                        MemTy::new(ScalarTy::U32, 4),
                                        Dst::new(s2),
                                        addr,
                                    );
                                    s2
                                }
                            }
                        }
                        Some(Sym::Buffer {
                            binding,
                            elem,
                            base,
                        }) => {
                            let (dynamic, k) = self.index()?;
                            let s1 = self.scratch();
                            let off = i64::from(base)
                                .saturating_add(k)
                                .saturating_mul(i64::from(elem));
                            let kc = self.b.interned_constant([(off as u64) & 0xffff_ffff; 4]);
                            match dynamic {
                                None => self.b.mov(Dst::new(s1), Src::new(kc)),
                                Some(d) => {
                                    let ec = self.b.interned_constant([u64::from(elem); 4]);
                                    self.b.push(Inst::Mad {
                                        ty: Ty::new(ScalarTy::U32, 1),
                                        dst: Dst::new(s1),
                                        a: d,
                                        b: Src::new(ec),
                                        c: Src::new(kc),
                                    })
                                }
                            };
                            let s2 = self.scratch();
                            let lanes = if elem == 16 { 4 } else { 1 };
                            self.b.load(
                                Space::ParamBuffer(binding),
                                MemTy::new(ScalarTy::U32, lanes),
                                Dst::new(s2),
                                Src::new(s1),
                            );
                            if lanes == 1 {
                                self.b.mov(Dst::new(s2), Src::splat(s2, 0));
                            }
                            s2
                        }
                        Some(s @ (Sym::Shared { .. } | Sym::Storage { .. })) => {
                            return Err(misplaced_memory_variable(
                                l,
                                c,
                                &name,
                                &s,
                                "an operand",
                                op,
                            ));
                        }
                        None => return Err(undeclared(l, c, &name)),
                    }
                };
                let sw = self.swizzle()?;
                Src::swizzled(reg, sw)
            }
            t => {
                let d = Self::describe(&t);
                return self.err(format!("expected an operand, found {d} {R_GRAMMAR}"));
            }
        };
        if abs {
            self.expect_sym('|', "to close an absolute value")?;
            src = self.unary_to_scratch(UnOp::Abs, Ty::vec4(t), src);
        }
        let mut plain = None;
        if neg {
            let negated = self.unary_to_scratch(UnOp::Neg, Ty::vec4(t), src);
            plain = Some(src);
            src = negated;
        }
        Ok((src, plain))
    }

    /// Parses `[index]` after a TEMP array name and loads the element into a scratch
    /// register; returns the register and the element's private-memory address.
    pub(super) fn temp_array_elem(
        &mut self,
        name: &str,
        base: u32,
        len: u32,
        l: u32,
        c: u32,
    ) -> Res<(Reg, Src)> {
        let addr = self.temp_array_addr(name, base, len, l, c)?;
        let e = self.scratch();
        self.b.load(Space::Private, TEMP_ELEM, Dst::new(e), addr);
        Ok((e, addr))
    }

    /// Parses `[index]` after a TEMP array name and emits its private-memory address.
    fn temp_array_addr(&mut self, name: &str, base: u32, len: u32, l: u32, c: u32) -> Res<Src> {
        let (dynamic, k) = self.index()?;
        match dynamic {
            None => {
                if k < 0 || k >= i64::from(len) {
                    return Err(diag(l, c, format!("index {k} is out of range for TEMP array \"{name}\" of {len} elements (NV_gpu_program4, \"Program Variables\")")));
                }
                Ok(Src::new(self.b.interned_constant([
                    u64::from(base) + 32 * k as u64,
                    0,
                    0,
                    0,
                ])))
            }
            // An index out of range is undefined ("could result in overwriting other program
            // variables"): flagged (`indexed_addr`).
            Some(d) => {
                relative_offset_in_range(name, k, len, l, c)?;
                Ok(self.indexed_addr(d, k, 32, base, len))
            }
        }
    }

    /// `d + k` in 32-bit (wrapping) arithmetic, into a scratch register: a relative index or
    /// offset register component plus its constant part.
    pub(super) fn plus_constant(&mut self, d: Src, k: i64) -> Reg {
        let s = self.scratch();
        let kc = self.b.interned_constant([(k as u64) & 0xffff_ffff; 4]);
        self.b.bin(
            BinOp::Add,
            Ty::new(ScalarTy::U32, 1),
            Dst::new(s),
            d,
            Src::new(kc),
        );
        s
    }

    /// The private-memory address `base + stride * (d + k)` of a PARAM or TEMP array element
    /// indexed by register component `d` plus `k`, in 32-bit arithmetic. An index outside
    /// the `len` elements (negative ones too: compared unsigned) is undefined
    /// (NV_gpu_program4, "Program Variables": it "could result in overwriting other program
    /// variables"): it is sent past all private memory, where the executor flags the access
    /// (`out-of-bounds`) instead of reaching a neighbouring array.
    fn indexed_addr(&mut self, d: Src, k: i64, stride: u32, base: u32, len: u32) -> Src {
        let s = self.plus_constant(d, k);
        let u32t = Ty::new(ScalarTy::U32, 1);
        let lc = self.b.interned_constant([u64::from(len); 4]);
        let inside = self.b.cmp_fresh(CmpOp::Lt, u32t, Src::new(s), Src::new(lc));
        // 2^26 elements of 16 or 32 bytes: past any private memory once scaled (2^30 or 2^31
        // bytes, no 32-bit wrap).
        let far = self.b.interned_constant([0x0400_0000; 4]);
        self.b
            .select(1, Dst::new(s), Src::new(inside), Src::new(s), Src::new(far));
        let sc = self.b.interned_constant([u64::from(stride); 4]);
        let bc = self.b.interned_constant([u64::from(base); 4]);
        self.b.push(Inst::Mad {
            ty: Ty::new(ScalarTy::U32, 1),
            dst: Dst::new(s),
            a: Src::new(s),
            b: Src::new(sc),
            c: Src::new(bc),
        });
        Src::new(s)
    }
}
