//! Places (l-values) and addresses: where a variable, element, field or swizzle lives (a
//! register or memory), private-memory allocation, bounds-checked address arithmetic, and the
//! loads, stores and aggregate copies through a place.

use super::{Fail, Lower, Sym, Value, R, V};
use crate::front::glsl::types::{align, size, stride, struct_offsets, Rule, Sc, Ty};
use crate::ir::{
    BinOp, CmpOp, Dst, Inst, MemTy, Reg, ScalarTy, Space, Src, Ty as ITy, BLOCK_ARRAY_SHIFT,
};
use glsl_lang::ast::{self, ExprData};

/// Address: a constant offset plus an optional register holding a dynamic byte offset (x).
#[derive(Clone, Copy, Debug)]
pub(super) struct Addr {
    pub(super) dynr: Option<Reg>,
    pub(super) off: u32,
}

#[derive(Clone, Debug)]
pub(super) enum Place {
    Reg {
        reg: Reg,
        ty: Ty,
        swz: Option<Vec<u8>>,
        dyn_idx: Option<Reg>,
        ro: bool,
    },
    Mem {
        space: Space,
        addr: Addr,
        ty: Ty,
        rule: Rule,
        swz: Option<Vec<u8>>,
        /// For a vector: the bytes from one component to the next when they are not
        /// adjacent (a column of a row-major matrix); 0 when they are.
        vstride: u32,
        ro: bool,
    },
}

impl Place {
    /// A whole register holding a scalar or vector, writable.
    pub(super) fn reg(reg: Reg, ty: Ty) -> Place {
        Place::Reg {
            reg,
            ty,
            swz: None,
            dyn_idx: None,
            ro: false,
        }
    }
    /// `ty` laid out std430 at byte `off` of `space` (a fixed address), writable: private,
    /// shared and default-uniform storage the lowering allocates itself.
    pub(super) fn std430(space: Space, off: u32, ty: Ty) -> Place {
        Place::Mem {
            space,
            addr: Addr { dynr: None, off },
            ty,
            rule: Rule::STD430,
            swz: None,
            vstride: 0,
            ro: false,
        }
    }
    pub(super) fn ty(&self) -> &Ty {
        match self {
            Place::Reg { ty, .. } | Place::Mem { ty, .. } => ty,
        }
    }
    pub(super) fn ro(&self) -> bool {
        match self {
            Place::Reg { ro, .. } | Place::Mem { ro, .. } => *ro,
        }
    }
    pub(super) fn set_ro(mut self) -> Self {
        match &mut self {
            Place::Reg { ro, .. } | Place::Mem { ro, .. } => *ro = true,
        }
        self
    }
    /// The same place, writable (for the lowering's own stores: parameter and return slots,
    /// the initial value of a const).
    pub(super) fn writable(mut self) -> Self {
        match &mut self {
            Place::Reg { ro, .. } | Place::Mem { ro, .. } => *ro = false,
        }
        self
    }
}

const OOB_ADDR: u64 = 0xFFFF_FF00;

impl<'a> Lower<'a> {
    // ---------- memory ----------

    pub(super) fn alloc_private(&mut self, ty: &Ty) -> R<Place> {
        if ty.has_runtime_array() {
            return self
                .err("a runtime-sized array is only allowed as the last member of a buffer block");
        }
        let a = align(ty, Rule::STD430).max(4);
        let start = self.private_top.div_ceil(a).saturating_mul(a);
        let end = start.saturating_add(size(ty, Rule::STD430));
        if end > 1 << 20 {
            return self.unsup("more than 1 MiB of private (local array/struct) memory");
        }
        self.private_top = end;
        Ok(Place::std430(Space::Private, start, ty.clone()))
    }

    pub(super) fn addr_src(&mut self, a: Addr) -> Src {
        match a.dynr {
            None => Src::new(self.konst([u64::from(a.off), 0, 0, 0])),
            Some(r) if a.off == 0 => Src::new(r),
            Some(r) => {
                let k = self.konst([u64::from(a.off), 0, 0, 0]);
                let u32t = ITy::new(ScalarTy::U32, 1);
                Src::new(self.b.bin_fresh(BinOp::Add, u32t, Src::new(r), Src::new(k)))
            }
        }
    }

    /// addr + idx * scale, with idx checked against `len` when given.
    fn addr_index(&mut self, a: Addr, idx: &V, scale: u32, len: Option<u32>) -> R<Addr> {
        if let Some(k) = idx.k {
            let i = k[0] & 0xffff_ffff;
            let neg = idx.ty.sc() == Some(Sc::Int) && (i as u32 as i32) < 0;
            if let Some(n) = len {
                if neg || i >= u64::from(n) {
                    return self.err(format!(
                        "array index {} out of range (size {n})",
                        i as u32 as i32
                    ));
                }
            }
            let off = (i as u32)
                .checked_mul(scale)
                .and_then(|o| o.checked_add(a.off));
            return match off {
                Some(off) => Ok(Addr { dynr: a.dynr, off }),
                None => self.err("constant array index out of range"),
            };
        }
        let u32t = ITy::new(ScalarTy::U32, 1);
        let sk = self.konst([u64::from(scale), 0, 0, 0]);
        let t = self.b.bin_fresh(BinOp::Mul, u32t, idx.src, Src::new(sk));
        if let Some(d) = a.dynr {
            let tx = Dst::masked(t, 1);
            self.b.bin(BinOp::Add, u32t, tx, Src::new(t), Src::new(d));
        }
        if let Some(n) = len {
            let nk = self.konst([u64::from(n), 0, 0, 0]);
            let c = self.b.cmp_fresh(CmpOp::Lt, u32t, idx.src, Src::new(nk));
            let bad = self.konst([OOB_ADDR, 0, 0, 0]);
            let tx = Dst::masked(t, 1);
            self.b
                .select(1, tx, Src::new(c), Src::new(t), Src::new(bad));
        }
        Ok(Addr {
            dynr: Some(t),
            off: a.off,
        })
    }

    // ---------- places ----------

    pub(super) fn load(&mut self, p: &Place) -> R<Value> {
        match p {
            Place::Reg {
                reg,
                ty,
                swz,
                dyn_idx,
                ..
            } => {
                let t = match dyn_idx {
                    Some(ix) => {
                        let t = self.tmp();
                        self.emit(Inst::ExtractDyn {
                            dst: Dst::masked(t, 1),
                            vec: Src::new(*reg),
                            idx: Src::new(*ix),
                        });
                        t
                    }
                    None => {
                        let mut s = [0u8, 1, 2, 3];
                        if let Some(sw) = swz {
                            for (i, c) in sw.iter().enumerate() {
                                s[i] = *c;
                            }
                        }
                        self.b.mov_fresh(ty.lanes(), Src::swizzled(*reg, s))
                    }
                };
                Ok(Value::V(V {
                    src: Src::new(t),
                    ty: ty.clone(),
                    k: None,
                }))
            }
            Place::Mem {
                space,
                addr,
                ty,
                swz,
                vstride,
                ..
            } => {
                let Ty::V(sc, n) = ty else {
                    if *ty == Ty::AtomicUint {
                        return self.err(
                            "an atomic_uint can only be used with the atomic counter functions",
                        );
                    }
                    return Ok(Value::Agg(p.clone()));
                };
                if *vstride != 0 {
                    return self.load_strided(*space, *addr, *sc, *n, swz.as_deref(), *vstride);
                }
                let (lanes, s) = match swz {
                    Some(sw) => {
                        let mx = sw.iter().copied().max().unwrap_or(0) + 1;
                        let mut s = [0u8; 4];
                        for (i, c) in sw.iter().enumerate() {
                            s[i] = *c;
                        }
                        (mx, s)
                    }
                    None => (*n, [0, 1, 2, 3]),
                };
                let a = self.addr_src(*addr);
                let t = self.tmp();
                let mty = MemTy::new(sc.mem(), lanes);
                self.b.load(*space, mty, Dst::lanes(t, lanes), a);
                let mut src = Src::swizzled(t, s);
                if *sc == Sc::Bool {
                    let z = self.konst([0; 4]);
                    let u32x4 = ITy::new(ScalarTy::U32, 4);
                    src = Src::new(self.b.cmp_fresh(CmpOp::Ne, u32x4, src, Src::new(z)));
                }
                if swz.is_some() && *sc != Sc::Bool {
                    src = Src::new(self.b.mov_fresh(4, src));
                }
                Ok(Value::V(V {
                    src,
                    ty: ty.clone(),
                    k: None,
                }))
            }
        }
    }

    pub(super) fn load_v(&mut self, p: &Place) -> R<V> {
        match self.load(p)? {
            Value::V(v) => Ok(v),
            Value::Agg(_) => self.err(format!("expected a scalar or vector, found {}", p.ty())),
        }
    }

    pub(super) fn store(&mut self, p: &Place, v: Value) -> R<()> {
        if p.ro() {
            return self
                .err("assignment to a read-only variable (const, uniform, input or readonly)");
        }
        match (p, v) {
            (
                Place::Reg {
                    reg, swz, dyn_idx, ..
                },
                Value::V(v),
            ) => {
                if let Some(ix) = dyn_idx {
                    self.emit(Inst::InsertDyn {
                        dst: Dst::new(*reg),
                        vec: Src::new(*reg),
                        val: v.src,
                        idx: Src::new(*ix),
                    });
                } else if let Some(sw) = swz {
                    let mut m = 0u8;
                    let mut s = [0u8; 4];
                    for (i, c) in sw.iter().enumerate() {
                        m |= 1 << c;
                        s[*c as usize] = v.src.swz[i];
                    }
                    self.b
                        .mov(Dst::masked(*reg, m), Src::swizzled(v.src.reg, s));
                } else {
                    self.b.mov(Dst::lanes(*reg, v.ty.lanes()), v.src);
                }
                Ok(())
            }
            (
                Place::Mem {
                    space,
                    addr,
                    ty: Ty::V(sc, n),
                    swz,
                    vstride,
                    ..
                },
                Value::V(v),
            ) => {
                let bytes = if *vstride != 0 { *vstride } else { sc.bytes() };
                let all: Vec<u8>;
                let swz = match swz {
                    None if *vstride != 0 => {
                        all = (0..*n).collect();
                        Some(&all)
                    }
                    other => other.as_ref(),
                };
                match swz {
                    None => {
                        let a = self.addr_src(*addr);
                        self.b.store(*space, MemTy::new(sc.mem(), *n), a, v.src);
                    }
                    Some(sw) => {
                        for (i, c) in sw.iter().enumerate() {
                            let a = self.addr_src(Addr {
                                dynr: addr.dynr,
                                off: addr.off.wrapping_add(u32::from(*c).wrapping_mul(bytes)),
                            });
                            let mty = MemTy::new(sc.mem(), 1);
                            self.b.store(*space, mty, a, Self::lane_src(&v, i));
                        }
                    }
                }
                Ok(())
            }
            (Place::Mem { .. }, Value::Agg(src)) => self.copy_agg(p, &src),
            _ => self.err("type mismatch in assignment"),
        }
    }

    /// Element-wise copy between two memory places of the same type.
    pub(super) fn copy_agg(&mut self, dst: &Place, src: &Place) -> R<()> {
        let ty = dst.ty().clone();
        if ty != *src.ty() {
            return self.err(format!("cannot assign {} to {}", src.ty(), ty));
        }
        match &ty {
            Ty::V(..) => {
                let v = self.load(src)?;
                self.store(&dst.clone().writable(), v)
            }
            Ty::Array(_, Some(n)) => {
                if *n > 4096 {
                    return self.unsup("copying arrays of more than 4096 elements");
                }
                for i in 0..*n {
                    let k = self.k_u32(i);
                    let d = self.index_place(dst.clone(), &k)?;
                    let s = self.index_place(src.clone(), &k)?;
                    self.copy_agg(&d, &s)?;
                }
                Ok(())
            }
            Ty::Struct(sd) => {
                for (name, _) in sd.fields.clone() {
                    let d = self.field_place(dst.clone(), &name)?;
                    let s = self.field_place(src.clone(), &name)?;
                    self.copy_agg(&d, &s)?;
                }
                Ok(())
            }
            Ty::Mat(_, cols, _) => {
                for i in 0..u32::from(*cols) {
                    let k = self.k_u32(i);
                    let d = self.index_place(dst.clone(), &k)?;
                    let s = self.index_place(src.clone(), &k)?;
                    self.copy_agg(&d, &s)?;
                }
                Ok(())
            }
            _ => self.err(format!("cannot assign a value of type {ty}")),
        }
    }

    /// A temporary in private memory of the aggregate `ty` (a sized array or a struct) with
    /// element or field `i` set to `item(i, its type)`, in order (constructors, initializer
    /// lists).
    pub(super) fn fill_aggregate(
        &mut self,
        ty: &Ty,
        mut item: impl FnMut(&mut Self, usize, &Ty) -> R<Value>,
    ) -> R<Value> {
        let t = self.alloc_private(ty)?;
        match ty {
            Ty::Array(e, Some(n)) => {
                for i in 0..*n {
                    let v = item(self, i as usize, e)?;
                    let k = self.k_u32(i);
                    let d = self.index_place(t.clone(), &k)?;
                    self.store(&d, v)?;
                }
            }
            Ty::Struct(sd) => {
                for (i, (fname, fty)) in sd.fields.iter().enumerate() {
                    let v = item(self, i, fty)?;
                    let d = self.field_place(t.clone(), fname)?;
                    self.store(&d, v)?;
                }
            }
            _ => return self.err(format!("internal: {ty} is not a sized aggregate")),
        }
        Ok(Value::Agg(t))
    }

    pub(super) fn index_place(&mut self, p: Place, idx: &V) -> R<Place> {
        let idx = self.index_value(idx)?;
        match p {
            Place::Mem {
                space,
                addr,
                ty,
                rule,
                swz,
                vstride,
                ro,
            } => {
                let mem = |addr, ty, swz, vstride| Place::Mem {
                    space,
                    addr,
                    ty,
                    rule,
                    swz,
                    vstride,
                    ro,
                };
                match (&ty, swz) {
                    (Ty::Array(e, n), None) => {
                        let st = stride(e, rule);
                        let a = self.addr_index(addr, &idx, st, *n)?;
                        Ok(mem(a, (**e).clone(), None, 0))
                    }
                    (Ty::Mat(sc, cols, rows), None) => {
                        // Column i: a vector of `rows` components, adjacent in a column-major
                        // matrix, one row stride apart in a row-major one (GL §7.6.2.2).
                        let col = Ty::V(*sc, *rows);
                        let (scale, vstride) = if rule.row_major {
                            (sc.bytes(), stride(&Ty::V(*sc, *cols), rule))
                        } else {
                            (stride(&col, rule), 0)
                        };
                        let a = self.addr_index(addr, &idx, scale, Some(u32::from(*cols)))?;
                        Ok(mem(a, col, None, vstride))
                    }
                    (Ty::V(sc, n), sw) => {
                        let lanes = sw.as_ref().map(|s| s.len() as u8).unwrap_or(*n);
                        let scalar = Ty::V(*sc, 1);
                        if let (Some(sw), Some(k)) = (sw.as_ref(), idx.k) {
                            let i = k[0] as usize;
                            if i >= sw.len() {
                                return self.err(format!("vector index {i} out of range"));
                            }
                            return Ok(mem(addr, scalar, Some(vec![sw[i]]), vstride));
                        }
                        if sw.is_some() {
                            return self.unsup("dynamic index into a swizzle");
                        }
                        let step = if vstride != 0 { vstride } else { sc.bytes() };
                        let a = self.addr_index(addr, &idx, step, Some(u32::from(lanes)))?;
                        Ok(mem(a, scalar, None, 0))
                    }
                    _ => self.err(format!("type {ty} cannot be indexed")),
                }
            }
            Place::Reg {
                reg,
                ty,
                swz,
                dyn_idx,
                ro,
            } => {
                let Ty::V(sc, n) = ty else {
                    return self.err(format!("type {ty} cannot be indexed"));
                };
                if n == 1 || dyn_idx.is_some() {
                    return self.err("a scalar cannot be indexed");
                }
                let comps: Vec<u8> = swz.clone().unwrap_or_else(|| (0..n).collect());
                if let Some(k) = idx.k {
                    let i = k[0] & 0xffff_ffff;
                    if i >= u64::from(n) {
                        return self.err(format!("vector index {i} out of range"));
                    }
                    return Ok(Place::Reg {
                        reg,
                        ty: Ty::V(sc, 1),
                        swz: Some(vec![comps[i as usize]]),
                        dyn_idx: None,
                        ro,
                    });
                }
                if swz.is_some() {
                    return self.unsup("dynamic index into a swizzle");
                }
                // Out-of-range dynamic component index (GLSL 4.60 section 5.5: undefined
                // behaviour): the executor flags an index of 4 or more; one at or past a
                // shorter vector's size (or negative) is made 0xFFFFFFFF first.
                let idx = if n < 4 {
                    let u = V {
                        ty: Ty::UINT,
                        ..idx.clone()
                    };
                    let size = self.k_u32(u32::from(n));
                    let past = self.cmp(CmpOp::Ge, u.clone(), size);
                    let oob = self.k_u32(u32::MAX);
                    let t = self.fresh(Ty::UINT);
                    self.b
                        .select(1, Dst::masked(t.src.reg, 1), past.src, oob.src, u.src);
                    t
                } else {
                    idx
                };
                Ok(Place::Reg {
                    reg,
                    ty: Ty::V(sc, 1),
                    swz: None,
                    dyn_idx: Some(idx.src.reg)
                        .filter(|_| idx.src.swz[0] == 0)
                        .or_else(|| Some(self.b.mov_fresh(1, idx.src))),
                    ro,
                })
            }
        }
    }

    /// Loads a vector whose components are `vstride` bytes apart (a column of a row-major
    /// matrix), the components `swz` picks or all `n`, one scalar load each.
    fn load_strided(
        &mut self,
        space: Space,
        addr: Addr,
        sc: Sc,
        n: u8,
        swz: Option<&[u8]>,
        vstride: u32,
    ) -> R<Value> {
        let comps: Vec<u8> = swz.map(<[u8]>::to_vec).unwrap_or_else(|| (0..n).collect());
        let t = self.tmp();
        for (i, c) in comps.iter().enumerate() {
            let a = self.addr_src(Addr {
                dynr: addr.dynr,
                off: addr.off.wrapping_add(u32::from(*c).wrapping_mul(vstride)),
            });
            let one = self.tmp();
            self.b
                .load(space, MemTy::new(sc.mem(), 1), Dst::masked(one, 1), a);
            self.b.mov(Dst::masked(t, 1 << i), Src::splat(one, 0));
        }
        let mut src = Src::new(t);
        if sc == Sc::Bool {
            let z = self.konst([0; 4]);
            let u32x4 = ITy::new(ScalarTy::U32, 4);
            src = Src::new(self.b.cmp_fresh(CmpOp::Ne, u32x4, src, Src::new(z)));
        }
        Ok(Value::V(V {
            src,
            ty: Ty::V(sc, comps.len() as u8),
            k: None,
        }))
    }

    fn index_value(&mut self, v: &V) -> R<V> {
        match v.ty {
            Ty::V(Sc::Int | Sc::Uint, 1) => {
                if v.src.swz[0] == 0 {
                    Ok(v.clone())
                } else {
                    let v2 = self.snap(v.clone());
                    Ok(v2)
                }
            }
            _ => self.err(format!(
                "an index must be a scalar int or uint, found {}",
                v.ty
            )),
        }
    }

    pub(super) fn field_place(&mut self, p: Place, name: &str) -> R<Place> {
        let ty = p.ty().clone();
        match &ty {
            Ty::Struct(sd) => {
                let Place::Mem {
                    space,
                    addr,
                    rule,
                    ro,
                    ..
                } = p
                else {
                    return self.err("internal: struct not in memory");
                };
                let offs = struct_offsets(sd, rule);
                let Some(i) = sd.fields.iter().position(|f| f.0 == name) else {
                    return self.err(format!("'{}' has no field '{name}'", sd.name));
                };
                Ok(Place::Mem {
                    space,
                    addr: Addr {
                        dynr: addr.dynr,
                        off: addr.off.saturating_add(offs[i]),
                    },
                    ty: sd.fields[i].1.clone(),
                    rule: sd.field_rule(i, rule),
                    swz: None,
                    vstride: 0,
                    ro: ro || sd.readonly.get(i).copied().unwrap_or(false),
                })
            }
            Ty::V(sc, n) => {
                let comps = parse_swizzle(name, *n).ok_or_else(|| {
                    Fail::Compile(self.diag(format!("invalid swizzle '.{name}' on {ty}")))
                })?;
                let base: Vec<u8> = match &p {
                    Place::Reg { swz: Some(s), .. } | Place::Mem { swz: Some(s), .. } => s.clone(),
                    _ => (0..*n).collect(),
                };
                let new: Vec<u8> = comps.iter().map(|c| base[*c as usize]).collect();
                let mut seen = 0u8;
                let mut dup = false;
                for c in &new {
                    dup |= seen & (1 << c) != 0;
                    seen |= 1 << c;
                }
                let nt = Ty::V(*sc, new.len() as u8);
                Ok(match p {
                    Place::Reg {
                        reg,
                        dyn_idx: None,
                        ro,
                        ..
                    } => Place::Reg {
                        reg,
                        ty: nt,
                        swz: Some(new),
                        dyn_idx: None,
                        ro: ro || dup,
                    },
                    Place::Mem {
                        space,
                        addr,
                        rule,
                        vstride,
                        ro,
                        ..
                    } => Place::Mem {
                        space,
                        addr,
                        ty: nt,
                        rule,
                        swz: Some(new),
                        vstride,
                        ro: ro || dup,
                    },
                    Place::Reg { .. } => return self.err("a scalar has no components"),
                })
            }
            _ => self.err(format!("type {ty} has no field '{name}'")),
        }
    }

    pub(super) fn place_of(&mut self, e: &ast::Expr) -> R<Place> {
        self.at(&e.span);
        match &**e {
            ExprData::Variable(id) => self.var_place(id.as_str()),
            ExprData::Bracket(base, idx) => {
                if let Some(elems) = self.block_array(base) {
                    return self.block_array_element(&elems, idx);
                }
                let p = self.place_of(base)?;
                let i = self.rv(idx)?;
                self.at(&e.span);
                self.index_place(p, &i)
            }
            ExprData::Dot(base, f) => {
                let p = self.place_of(base)?;
                self.at(&e.span);
                self.field_place(p, f.as_str())
            }
            _ => match self.expr(e)? {
                Value::V(v) => Ok(self.value_place(v)),
                Value::Agg(p) => Ok(p.set_ro()),
            },
        }
    }

    /// The elements of the array of blocks `e` names, if it names one (not shadowed by a
    /// variable).
    pub(super) fn block_array(&self, e: &ast::Expr) -> Option<Vec<Place>> {
        match &**e {
            ExprData::Variable(id) if self.lookup(id.as_str()).is_none() => {
                self.block_arrays.get(id.as_str()).cloned()
            }
            _ => None,
        }
    }

    /// Element `idx` of an array of blocks (each element is a binding of its own): a constant
    /// index names it, a run-time one picks it by address ([`Space::BlockArray`]).
    fn block_array_element(&mut self, elems: &[Place], idx: &ast::Expr) -> R<Place> {
        let i = self.rv(idx)?;
        let Some(k) = i.k.map(|k| k[0]) else {
            return self.dynamic_block_element(elems, &i);
        };
        let k = match i.ty.sc() {
            Some(Sc::Int) => i64::from(k as u32 as i32),
            _ => k as i64,
        };
        match usize::try_from(k).ok().and_then(|k| elems.get(k)) {
            Some(p) => Ok(p.clone()),
            None => self.err(format!(
                "index {k} out of range for an array of {} blocks",
                elems.len()
            )),
        }
    }

    /// Element `i` (an index known only at run time) of an array of blocks: the address holds
    /// the element index above [`BLOCK_ARRAY_SHIFT`]. "A uniform or shader storage block
    /// array can only be indexed with a dynamically uniform integral expression, otherwise
    /// results are undefined" (GLSL 4.60 §4.3.9; the executor flags a non-uniform index), and
    /// an index outside the array is undefined too (§5.7): it is redirected out of range, so
    /// the executor flags the access `out-of-bounds`.
    fn dynamic_block_element(&mut self, elems: &[Place], i: &V) -> R<Place> {
        let Some(Place::Mem {
            space,
            ty,
            rule,
            ro,
            ..
        }) = elems.first().cloned()
        else {
            return self.err("internal: an empty array of blocks");
        };
        let (uniform, first) = match space {
            Space::Storage(b) => (false, b),
            Space::Uniform(b) => (true, b),
            s => return self.err(format!("internal: an array of blocks in {s:?}")),
        };
        let i = self.index_value(i)?;
        let len = u32::try_from(elems.len()).unwrap_or(u32::MAX);
        if len >= 0xFF {
            // The out-of-range address (`OOB_ADDR`) must name no element.
            return self.unsup("a run-time index into an array of 255 or more blocks");
        }
        let start = Addr { dynr: None, off: 0 };
        let addr = self.addr_index(start, &i, 1 << BLOCK_ARRAY_SHIFT, Some(len))?;
        Ok(Place::Mem {
            space: Space::BlockArray {
                uniform,
                first,
                len,
            },
            addr,
            ty,
            rule,
            swz: None,
            vstride: 0,
            ro,
        })
    }

    pub(super) fn lookup(&self, name: &str) -> Option<Sym> {
        for (depth, s) in self.scopes.iter().enumerate().rev() {
            if let Some(v) = s.get(name) {
                if depth == 0 {
                    self.active.borrow_mut().reference(&name.to_string());
                }
                return Some(v.clone());
            }
        }
        None
    }

    fn var_place(&mut self, name: &str) -> R<Place> {
        match self.lookup(name) {
            Some(Sym::Var(p)) => Ok(p),
            Some(Sym::Const(v)) => Ok(self.value_place(v)),
            Some(Sym::Image(_)) => self.err(format!(
                "'{name}' : an image can only be the argument of an image function"
            )),
            None => {
                let v = self.builtin_var(name)?;
                Ok(self.value_place(v))
            }
        }
    }

    /// A read-only place holding a value (in a register of its own).
    fn value_place(&mut self, v: V) -> Place {
        let v = self.snap_reg(v);
        Place::reg(v.src.reg, v.ty).set_ro()
    }

    /// Storage for a variable, parameter or return value: a fresh register for a scalar or
    /// vector, private memory for an aggregate.
    pub(super) fn var_storage(&mut self, ty: &Ty) -> R<Place> {
        match ty {
            Ty::V(..) => Ok(Place::reg(self.tmp(), ty.clone())),
            _ => self.alloc_private(ty),
        }
    }
}

pub(super) fn parse_swizzle(s: &str, n: u8) -> Option<Vec<u8>> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    let sets = ["xyzw", "rgba", "stpq"];
    let set = sets.iter().find(|set| s.chars().all(|c| set.contains(c)))?;
    let v: Vec<u8> = s.chars().map(|c| set.find(c).unwrap_or(0) as u8).collect();
    if v.iter().any(|&c| c >= n) {
        return None;
    }
    Some(v)
}
