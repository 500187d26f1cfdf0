//! Global declarations of every shader: function prototypes and definitions (signatures and
//! parameter slots), global variables (private, `shared`, `const`), atomic counters, plain
//! uniforms (values from the plan), buffer and uniform blocks with their layouts, and the
//! default block layouts.

use super::decl::{declarators, size_from_init, Declarator};
use super::place::{Addr, Place};
use super::quals::LayoutSite;
use super::{is_builtin_fn, quals, Fail, FnInfo, Lower, PQual, Quals, Sym, Value, R, V};
use crate::front::active::counter_entries;
use crate::front::glsl::types::{
    align, matrix_as_array, size, stride, struct_offsets, Rule, Sc, StructDef, Ty,
};
use crate::ir::{Space, UniformScalar, UniformSlot, UniformTy};
use glsl_lang::ast;
use std::rc::Rc;

impl<'a> Lower<'a> {
    /// Processes the global declarations of every shader (emitting global initialisers).
    pub fn globals(&mut self) -> R<()> {
        for si in 0..self.shaders.len() {
            self.cur = si;
            let sh = &self.shaders[si];
            for ed in &sh.parsed.tu.0 {
                self.at(&ed.span);
                match &**ed {
                    ast::ExternalDeclarationData::Preprocessor(_) => {}
                    ast::ExternalDeclarationData::FunctionDefinition(fd) => {
                        self.declare_fn(&fd.prototype, Some((si, fd)))?;
                    }
                    ast::ExternalDeclarationData::Declaration(d) => self.global_decl(d)?,
                }
            }
        }
        Ok(())
    }

    fn declare_fn(
        &mut self,
        proto: &ast::FunctionPrototype,
        def: Option<(usize, &'a ast::FunctionDefinition)>,
    ) -> R<()> {
        let name = proto.name.as_str().to_string();
        if name.starts_with("gl_") {
            return self.err(format!("'{name}' : reserved name"));
        }
        if is_builtin_fn(&name) {
            return self.err(format!(
                "'{name}' : cannot redefine or overload a built-in function"
            ));
        }
        let ret = self.resolve_fst(&proto.ty)?;
        if ret.has_runtime_array() || ret == Ty::AtomicUint || ret.is_unit_opaque() {
            return self.err(format!("invalid return type {ret}"));
        }
        let mut params = Vec::new();
        for p in &proto.parameters {
            let (q, ty, pname) = match &**p {
                ast::FunctionParameterDeclarationData::Named(q, d) => {
                    let t = self.resolve_ts(&d.ty)?;
                    let t = self.apply_arrays(t, None, d.ident.array_spec.as_ref())?;
                    (q.as_ref(), t, Some(d.ident.ident.as_str().to_string()))
                }
                ast::FunctionParameterDeclarationData::Unnamed(q, t) => {
                    (q.as_ref(), self.resolve_ts(t)?, None)
                }
            };
            if ty == Ty::Void {
                if proto.parameters.len() == 1 && pname.is_none() {
                    continue;
                }
                return self.err("a parameter cannot be void");
            }
            if ty.has_runtime_array() || ty.is_unit_opaque() {
                return self.unsup(format!("parameters of type {ty}"));
            }
            let qq = quals(q);
            self.check_layout(&qq, LayoutSite::Other)?;
            let pq = match qq.inout {
                Some(PQual::Out) => PQual::Out,
                Some(PQual::InOut) => PQual::InOut,
                _ => PQual::In,
            };
            if is_counter_type(&ty) && pq != PQual::In {
                // §4.1.7: "opaque variables ... cannot be treated as l-values; hence cannot be
                // used as out or inout function parameters".
                return self.err(format!(
                    "a parameter of type {ty} must be an in parameter: opaque types are not l-values"
                ));
            }
            params.push((ty, pq, pname));
        }
        // Same signature declared before?
        let existing = self.fn_names.get(&name).cloned().unwrap_or_default();
        for i in existing {
            let same = self.fns[i].params.len() == params.len()
                && self.fns[i]
                    .params
                    .iter()
                    .zip(&params)
                    .all(|(a, b)| a.0 == b.0);
            if same {
                if self.fns[i].ret != ret {
                    return self.err(format!(
                        "'{name}' : overloaded functions must not differ only in return type"
                    ));
                }
                if self.fns[i]
                    .params
                    .iter()
                    .zip(&params)
                    .any(|(a, b)| a.1 != b.1)
                {
                    return self.err(format!(
                        "'{name}' : parameter qualifiers differ from the prototype"
                    ));
                }
                if let Some(d) = def {
                    if let Some((prev_shader, _)) = self.fns[i].def {
                        if prev_shader != self.cur {
                            return Err(Fail::Link(self.diag(format!(
                                "'{name}' : function defined in more than one shader of the program"
                            ))));
                        }
                        return self.err(format!("'{name}' : function already has a body"));
                    }
                    self.fns[i].def = Some(d);
                    // Parameter names come from the definition.
                    for (k, p) in params.iter().enumerate() {
                        self.fns[i].params[k].2 = p.2.clone();
                    }
                }
                return Ok(());
            }
        }
        let mut slots = Vec::new();
        for (t, _, _) in &params {
            // A counter parameter holds the counter's address (`builtin::counter`).
            let t = if is_counter_type(t) {
                &Ty::scalar(Sc::Uint)
            } else {
                t
            };
            slots.push(self.var_storage(t)?);
        }
        let ret_slot = match &ret {
            Ty::Void => None,
            t => Some(self.var_storage(t)?),
        };
        let idx = self.fns.len();
        self.fns.push(FnInfo {
            name: name.clone(),
            params,
            ret,
            def,
            slots,
            ret_slot,
            pc: None,
            decl_off: (self.cur, self.off),
        });
        self.fn_names.entry(name).or_default().push(idx);
        Ok(())
    }

    fn global_decl(&mut self, d: &'a ast::Declaration) -> R<()> {
        match &**d {
            ast::DeclarationData::FunctionPrototype(p) => self.declare_fn(p, None),
            ast::DeclarationData::Precision(..) => Ok(()),
            ast::DeclarationData::Invariant(_) => {
                self.err("invariant is not allowed in compute shaders")
            }
            ast::DeclarationData::TypeOnly(q) => {
                // layout(local_size_x = ...) in; is handled by the compile checks.
                let qq = quals(Some(q));
                if qq.buffer || qq.uniform {
                    self.check_layout(&qq, LayoutSite::DefaultBlock)?;
                    if let Some(m) = qq.row_major {
                        self.default_major.insert((self.cur, qq.buffer), m);
                    }
                    let Some(r) = qq.layout_rule() else {
                        return Ok(());
                    };
                    if qq.uniform && qq.std430 {
                        return self.err("std430 is not allowed on uniform blocks");
                    }
                    self.default_layout.insert((self.cur, qq.buffer), r);
                    return Ok(());
                }
                if qq.inout == Some(PQual::In) || qq.shared {
                    Ok(())
                } else {
                    self.err("a qualifier-only declaration must name in, buffer or uniform")
                }
            }
            ast::DeclarationData::Block(b) => self.block(b),
            ast::DeclarationData::InitDeclaratorList(l) => {
                let q = quals(l.head.ty.qualifier.as_ref());
                self.literal_layouts(&q)?;
                let base = self.resolve_fst(&l.head.ty)?;
                let items = declarators(l);
                if q.inout.is_some() {
                    if let Some(Declarator { name: n, .. }) = items.first() {
                        if n.starts_with("gl_") {
                            return self.err(format!("'{n}' : redeclaration of a built-in input variable is not permitted in compute shaders"));
                        }
                    }
                    return self.err("user-defined input and output variables (in/out) are not allowed in compute shaders");
                }
                for Declarator { name, array, init } in items {
                    let ty = self.apply_arrays(base.clone(), None, array)?;
                    let site = if q.uniform {
                        let mut elem = &ty;
                        while let Ty::Array(e, _) = elem {
                            elem = e;
                        }
                        if *elem == Ty::AtomicUint {
                            LayoutSite::OpaqueUniform
                        } else if elem.is_unit_opaque() {
                            LayoutSite::ImageUniform
                        } else {
                            LayoutSite::Uniform
                        }
                    } else {
                        LayoutSite::Other
                    };
                    self.check_layout(&q, site)?;
                    self.global_var(name, ty, &q, init)?;
                }
                Ok(())
            }
        }
    }

    fn global_var(
        &mut self,
        name: &str,
        ty: Ty,
        q: &Quals,
        init: Option<&ast::Initializer>,
    ) -> R<()> {
        if q.buffer {
            return self.err("'buffer' variables must be declared in a block");
        }
        self.memory_qualifiers_on(name, &ty, q)?;
        if ty.is_unit_opaque() {
            let what = if ty.is_image() { "images" } else { "samplers" };
            if !q.uniform {
                return self.err(format!(
                    "'{name}' : {what} can only be uniforms or function parameters"
                ));
            }
            if init.is_some() {
                return self.err(format!("'{name}' : {what} cannot have initializers"));
            }
            return self.image_uniform(name, &ty, q);
        }
        if ty.has_runtime_array() && init.is_none() {
            return self.err(format!("'{name}' : an unsized array needs a size"));
        }
        if ty == Ty::Void {
            return self.err(format!("'{name}' : illegal use of type void"));
        }
        if q.shared && self.declared_by_other_shader(name, Space::Shared, &ty) {
            return Ok(());
        }
        if q.shared {
            if init.is_some() {
                return self.err(format!(
                    "'{name}' : shared variables cannot have initializers"
                ));
            }
            if ty == Ty::AtomicUint {
                return self.err("atomic_uint must be a uniform");
            }
            let a = align(&ty, Rule::STD430).max(4);
            let start = self.shared_top.div_ceil(a).saturating_mul(a);
            let end = start.saturating_add(size(&ty, Rule::STD430));
            self.shared_top = end;
            return self.declare(name, Sym::Var(Place::std430(Space::Shared, start, ty)));
        }
        if q.uniform {
            if is_counter_type(&ty) {
                if init.is_some() {
                    return self.unsup("an initializer on an atomic_uint uniform");
                }
                let binding = q.binding.unwrap_or(0);
                let off = match q.offset {
                    Some(o) => o,
                    None => self.counter_next.get(&binding).copied().unwrap_or(0),
                };
                if off % 4 != 0 {
                    return self.err("atomic counter offset must be a multiple of 4");
                }
                let sz = size(&ty, Rule::STD430);
                self.counter_next.insert(binding, off.saturating_add(sz));
                let mut dims = Vec::new();
                let mut t = &ty;
                while let Ty::Array(e, n) = t {
                    dims.push(u64::from(n.unwrap_or(0)));
                    t = e;
                }
                self.active
                    .borrow_mut()
                    .declare(name.to_string(), counter_entries(&dims));
                return self.declare(
                    name,
                    Sym::Var(Place::Mem {
                        space: Space::AtomicCounter(binding),
                        addr: Addr { dynr: None, off },
                        ty,
                        rule: Rule::STD430,
                        swz: None,
                        vstride: 0,
                        ro: true,
                    }),
                );
            }
            return self.plain_uniform(name, ty, q, init);
        }
        if ty == Ty::AtomicUint {
            return self.err("atomic_uint must be declared uniform");
        }
        let v = match init {
            Some(i) => match &**i {
                ast::InitializerData::Simple(e) => Some(self.expr(e)?),
                ast::InitializerData::List(_) => Some(self.init_list(i, &ty)?),
            },
            None => None,
        };
        let mut ty = ty;
        if let Some(v) = &v {
            size_from_init(&mut ty, v);
        }
        let v = match v {
            Some(v) => Some(self.implicit_value(v, &ty)?),
            None => None,
        };
        if q.konst {
            match v {
                Some(Value::V(vv)) if vv.k.is_some() => return self.declare(name, Sym::Const(vv)),
                Some(Value::V(_)) => {
                    return self.err(format!(
                        "'{name}' : a global const initializer must be a constant expression"
                    ))
                }
                Some(agg) => {
                    let p = self.alloc_private(&ty)?;
                    self.store(&p, agg)?;
                    return self.declare(name, Sym::Var(p.set_ro()));
                }
                None => {
                    return self.err(format!("'{name}' : a const variable needs an initializer"))
                }
            }
        }
        let p = self.var_storage(&ty)?;
        match v {
            Some(v) => self.store(&p, v)?,
            // GLSL 4.60 section 4.3: a global without an initializer is undefined until
            // written ("enter main() with undefined values"): 0, marked undefined.
            None => self.zero_init(&p),
        }
        self.declare(name, Sym::Var(p))
    }

    /// The layout qualifiers of a declaration at `site` (GLSL §4.4): an identifier not allowed
    /// there, or unknown, is a compile error.
    pub(super) fn check_layout(&mut self, q: &Quals, site: LayoutSite) -> R<()> {
        if let Some((off, msg)) = q.bad_layout(site) {
            self.off = off;
            return self.err(msg);
        }
        Ok(())
    }

    fn literal_layouts(&mut self, q: &Quals) -> R<()> {
        if let Some((n, off)) = &q.nonliteral {
            self.off = *off;
            return self.unsup(format!(
                "layout qualifier '{n}' given by a non-literal expression"
            ));
        }
        Ok(())
    }

    /// Whether another shader of the program declared the global `name` in `space` with type
    /// `ty`: then it is the same variable (GLSL link rules), already declared.
    fn declared_by_other_shader(&self, name: &str, space: Space, ty: &Ty) -> bool {
        self.global_owner.get(name).is_some_and(|&o| o != self.cur)
            && matches!(
                self.scopes[0].get(name),
                Some(Sym::Var(Place::Mem { space: s, ty: t0, .. })) if *s == space && t0 == ty
            )
    }

    /// A plain (default-block) uniform: read-only memory in [`Space::DefaultUniform`], laid
    /// out with std430 rules, with one [`UniformSlot`] per basic-type uniform GL enumerates
    /// (the executor sets them from the plan's `uniforms` and `uniform` steps).
    fn plain_uniform(
        &mut self,
        name: &str,
        ty: Ty,
        q: &Quals,
        init: Option<&ast::Initializer>,
    ) -> R<()> {
        if self.declared_by_other_shader(name, Space::DefaultUniform, &ty) {
            return Ok(());
        }
        let location = q.location_value();
        let a = align(&ty, Rule::STD430).max(4);
        let start = self.uniform_top.div_ceil(a).saturating_mul(a);
        let end = start.saturating_add(size(&ty, Rule::STD430));
        if end > 1 << 20 {
            return self.unsup("more than 1 MiB of plain uniforms");
        }
        let mut next = location;
        let mut slots = Vec::new();
        self.uniform_slots(name, &ty, start, &mut next, &mut slots)?;
        if let Some(i) = init {
            // GLSL 4.60 §4.3.5: "The link-time initial value is ... the value of the variable's
            // initializer, if present".
            let bytes = self.uniform_initial_bytes(i, &ty)?;
            let at = start as usize;
            if self.uniform_init.len() < at + bytes.len() {
                self.uniform_init.resize(at + bytes.len(), 0);
            }
            self.uniform_init[at..at + bytes.len()].copy_from_slice(&bytes);
        }
        self.uniform_top = end;
        self.active
            .borrow_mut()
            .declare(name.to_string(), slots.len() as u32);
        self.uniform_slots.extend(slots);
        self.declare(
            name,
            Sym::Var(Place::std430(Space::DefaultUniform, start, ty).set_ro()),
        )
    }

    /// The bytes a uniform of scalar or vector type `ty` starts with: its initializer's value
    /// (a constant expression), booleans as a 32-bit 0 or 1.
    fn uniform_initial_bytes(&mut self, init: &ast::Initializer, ty: &Ty) -> R<Vec<u8>> {
        let ast::InitializerData::Simple(e) = &**init else {
            return self.unsup("uniform initializer lists");
        };
        let v = self.expr(e)?;
        match (self.implicit_value(v, ty)?, ty) {
            (Value::V(V { k: Some(k), .. }), Ty::V(sc, n)) => {
                let size = sc.bytes() as usize;
                Ok(k.iter()
                    .take(usize::from(*n))
                    .flat_map(|v| v.to_le_bytes().into_iter().take(size))
                    .collect())
            }
            (Value::V(_), Ty::V(..)) => {
                self.unsup("a uniform initializer that is not a constant expression")
            }
            _ => self.unsup(format!(
                "an initializer of the {ty} uniform (scalars and vectors only)"
            )),
        }
    }

    /// The active-uniform entries GL 4.6 §7.3.1.1 enumerates for `name` of type `ty` at byte
    /// `off`, with the locations GLSL §4.4.3 gives them from `next` (each inner-most scalar,
    /// vector or array element takes the next one).
    fn uniform_slots(
        &self,
        name: &str,
        ty: &Ty,
        off: u32,
        next: &mut Option<u32>,
        out: &mut Vec<UniformSlot>,
    ) -> R<()> {
        // A scalar, vector or (column-major) matrix: its type and column stride.
        let basic = |t: &Ty| -> Option<(UniformTy, u32)> {
            let (sc, columns, rows) = match t {
                Ty::V(sc, n) => (*sc, 1, *n),
                Ty::Mat(sc, c, r) => (*sc, *c, *r),
                _ => return None,
            };
            let scalar = match sc {
                Sc::Bool => UniformScalar::Bool,
                Sc::Int => UniformScalar::I32,
                Sc::Uint => UniformScalar::U32,
                Sc::Float => UniformScalar::F32,
                Sc::Double => UniformScalar::F64,
                Sc::Int64 => UniformScalar::I64,
                Sc::Uint64 => UniformScalar::U64,
            };
            let column_stride = if columns > 1 {
                stride(&Ty::V(sc, rows), Rule::STD430)
            } else {
                0
            };
            let ty = UniformTy {
                scalar,
                columns,
                rows,
            };
            Some((ty, column_stride))
        };
        let mut take = |n: u32| {
            let at = *next;
            *next = next.map(|l| l.saturating_add(n));
            at
        };
        if let Some((t, column_stride)) = basic(ty) {
            out.push(UniformSlot {
                name: name.to_string(),
                location: take(1),
                ty: t,
                array: None,
                offset: off,
                stride: size(ty, Rule::STD430),
                column_stride,
            });
            return Ok(());
        }
        match ty {
            Ty::Array(e, Some(len)) if basic(e).is_some() => {
                let (t, column_stride) = basic(e).expect("a scalar, vector or matrix");
                out.push(UniformSlot {
                    name: name.to_string(),
                    location: take(*len),
                    ty: t,
                    array: Some(*len),
                    offset: off,
                    stride: stride(e, Rule::STD430),
                    column_stride,
                });
            }
            Ty::Array(e, Some(len)) => {
                let st = stride(e, Rule::STD430);
                for i in 0..*len {
                    let at = off.saturating_add(i.saturating_mul(st));
                    self.uniform_slots(&format!("{name}[{i}]"), e, at, next, out)?;
                }
            }
            Ty::Struct(sd) => {
                let offsets = struct_offsets(sd, Rule::STD430);
                for ((field, fty), o) in sd.fields.iter().zip(offsets) {
                    let at = off.saturating_add(o);
                    self.uniform_slots(&format!("{name}.{field}"), fty, at, next, out)?;
                }
            }
            _ => {
                return self.unsup(format!(
                    "uniform '{name}' of type {ty} (plain uniforms are scalars, vectors, matrices, arrays and structures of them)"
                ))
            }
        }
        Ok(())
    }

    fn block(&mut self, b: &ast::Block) -> R<()> {
        let q = quals(Some(&b.qualifier));
        self.literal_layouts(&q)?;
        self.check_layout(&q, LayoutSite::Block)?;
        if q.inout.is_some() {
            return self.err("input and output blocks are not allowed in compute shaders");
        }
        let explicit = match q.layout_rule() {
            Some(r) => r,
            None => self
                .default_layout
                .get(&(self.cur, q.buffer))
                .copied()
                .flatten(),
        };
        // GLSL 1.40 has uniform blocks but not their instance names (GLSL 1.50, 4.3.7).
        let parsed = self.shaders[self.cur].parsed;
        if b.identifier.is_some() && !parsed.es && parsed.version.unwrap_or(110) < 150 {
            return self.err(
                "an interface block with an instance name needs GLSL 1.50 (GLSL 1.40 has none)",
            );
        }
        let (space, rule, ro) = if q.buffer {
            (Space::Storage(q.binding.unwrap_or(0)), explicit, q.readonly)
        } else if q.uniform {
            if q.std430 {
                return self.err("std430 is not allowed on uniform blocks");
            }
            self.active.get_mut().uniform_block = true;
            (Space::Uniform(q.binding.unwrap_or(0)), explicit, true)
        } else {
            return self.err("a block must be a buffer or uniform block");
        };
        let mut fields = Vec::new();
        let mut majors = Vec::new();
        let nf: usize = b.fields.iter().map(|f| f.identifiers.len()).sum();
        let mut k = 0;
        for f in &b.fields {
            let ft = self.resolve_ts(&f.ty)?;
            let fq = quals(f.qualifier.as_ref());
            self.check_layout(&fq, LayoutSite::BlockMember)?;
            for id in &f.identifiers {
                k += 1;
                let t = self.apply_arrays(ft.clone(), None, id.array_spec.as_ref())?;
                if t.has_runtime_array()
                    && (k != nf || !q.buffer || !matches!(t, Ty::Array(_, None)))
                {
                    return self.err(
                        "only the last member of a buffer block may be a runtime-sized array",
                    );
                }
                if fq.offset.is_some() || fq.align.is_some() {
                    return self.unsup("offset/align layout qualifiers on block members");
                }
                fields.push((id.ident.as_str().to_string(), t, fq.readonly || ro));
                majors.push(fq.row_major);
            }
        }
        let sd = Rc::new(StructDef {
            name: b.name.as_str().to_string(),
            fields: fields.iter().map(|f| (f.0.clone(), f.1.clone())).collect(),
            majors,
            readonly: fields.iter().map(|f| f.2).collect(),
        });
        let bty = Ty::Struct(sd.clone());
        // Matrices are column-major unless the block, or the default before it, says
        // row_major (GLSL §4.4.5; a member's own qualifier overrides, `StructDef::majors`).
        let row_major = q.row_major.unwrap_or_else(|| {
            self.default_major
                .get(&(self.cur, q.buffer))
                .copied()
                .unwrap_or(false)
        });
        let rule = match (rule, self.plan.shared_layout) {
            (Some(r), _) | (None, Some(r)) => Some(r),
            (None, None) => None,
        }
        .map(|r| Rule { row_major, ..r });
        let rule = match rule {
            Some(r) => r,
            None => {
                // The shared/packed layout is implementation-dependent: accepted only when
                // std140 and std430 agree on every offset and stride of the block.
                let std430 = Rule {
                    row_major,
                    ..Rule::STD430
                };
                if same_layout(&bty, row_major) {
                    std430
                } else {
                    return self.unsup(format!(
                        "block '{}' without std430/std140: its shared/packed layout is implementation-dependent (declare layout(std430) or layout(std140), or give the case `reference: {{shared_layout: std430}}`, Mesa's layout)",
                        sd.name
                    ));
                }
            }
        };
        if let Space::Storage(binding) = space {
            // The bytes the block needs: up to the end of its last member (a runtime array
            // counts 0), without the padding after it.
            let offs = struct_offsets(&sd, rule);
            let n = sd.fields.len();
            let need = match (sd.fields.last(), offs.last()) {
                (Some(f), Some(o)) => o.saturating_add(size(&f.1, sd.field_rule(n - 1, rule))),
                _ => 0,
            };
            let count = match &b.identifier {
                Some(inst) if inst.array_spec.is_some() => {
                    match self.apply_arrays(bty.clone(), None, inst.array_spec.as_ref()) {
                        Ok(Ty::Array(_, Some(k))) => k,
                        _ => 1,
                    }
                }
                _ => 1,
            };
            for k in 0..count {
                self.storage_blocks
                    .push((sd.name.clone(), binding.saturating_add(k), need));
            }
        }
        let place = Place::Mem {
            space,
            addr: Addr { dynr: None, off: 0 },
            ty: bty,
            rule,
            swz: None,
            vstride: 0,
            ro: false,
        };
        match &b.identifier {
            Some(inst) if inst.array_spec.is_some() => {
                let n =
                    match self.apply_arrays(place.ty().clone(), None, inst.array_spec.as_ref())? {
                        Ty::Array(e, Some(n)) if matches!(*e, Ty::Struct(_)) => n,
                        _ => {
                            return self.unsup(
                                "arrays of blocks without a size or of more than one dimension",
                            )
                        }
                    };
                // Element k is the block bound at binding + k (GLSL 4.60 §4.4.5, binding).
                let mut elems = Vec::new();
                for k in 0..n {
                    let space = match space {
                        Space::Storage(b) => Space::Storage(b.saturating_add(k)),
                        Space::Uniform(b) => Space::Uniform(b.saturating_add(k)),
                        s => s,
                    };
                    let p = Place::Mem {
                        space,
                        addr: Addr { dynr: None, off: 0 },
                        ty: place.ty().clone(),
                        rule,
                        swz: None,
                        vstride: 0,
                        ro: false,
                    };
                    elems.push(if fields.iter().all(|f| f.2) {
                        p.set_ro()
                    } else {
                        p
                    });
                }
                self.block_arrays
                    .insert(inst.ident.as_str().to_string(), elems);
                Ok(())
            }
            Some(inst) => {
                // A readonly member is read-only through the instance (`StructDef::readonly`);
                // the instance as a whole only when every member is.
                if fields.iter().all(|f| f.2) {
                    self.declare(inst.ident.as_str(), Sym::Var(place.set_ro()))
                } else {
                    self.declare(inst.ident.as_str(), Sym::Var(place))
                }
            }
            None => {
                for (name, _, fro) in &fields {
                    let p = self.field_place(place.clone(), name)?;
                    let p = if *fro { p.set_ro() } else { p };
                    self.declare(name, Sym::Var(p))?;
                }
                Ok(())
            }
        }
    }
}

/// Whether std140 and std430 give the same offsets, strides and sizes for a type (matrices
/// row-major or not as `row_major` says).
fn same_layout(t: &Ty, row_major: bool) -> bool {
    let (a, b) = (
        Rule {
            row_major,
            ..Rule::STD140
        },
        Rule {
            row_major,
            ..Rule::STD430
        },
    );
    match t {
        Ty::Array(e, _) => stride(e, a) == stride(e, b) && same_layout(e, row_major),
        Ty::Struct(sd) => {
            struct_offsets(sd, a) == struct_offsets(sd, b)
                && sd
                    .fields
                    .iter()
                    .enumerate()
                    .all(|(i, f)| same_layout(&f.1, sd.field_rule(i, b).row_major))
        }
        Ty::Mat(sc, c, r) => same_layout(&matrix_as_array(*sc, *c, *r, row_major), row_major),
        _ => true,
    }
}

/// Whether a type is `atomic_uint` or a sized array (of arrays) of it: counters 4 bytes apart.
pub(super) fn is_counter_type(t: &Ty) -> bool {
    match t {
        Ty::AtomicUint => true,
        Ty::Array(e, Some(_)) => is_counter_type(e),
        _ => false,
    }
}
