//! Local declarations and the symbol table: new variables (a register, or private memory for
//! aggregates), declaring a name in the current scope (with the link rule for globals declared
//! by several shaders), initializer lists, and local declaration statements (`const` folding).

use super::place::Place;
use super::quals::LayoutSite;
use super::{quals, Fail, Lower, Sym, Value, R};
use crate::front::glsl::types::Ty;
use crate::ir::{Dst, Src};
use glsl_lang::ast;

impl<'a> Lower<'a> {
    /// A new local variable (register or private memory).
    pub(super) fn new_var(&mut self, name: &str, ty: &Ty) -> R<Place> {
        let p = match ty {
            Ty::V(..) | Ty::Array(..) | Ty::Struct(_) | Ty::Mat(..) => self.var_storage(ty)?,
            _ => return self.err(format!("cannot declare a variable of type {ty}")),
        };
        self.declare(name, Sym::Var(p.clone()))?;
        Ok(p)
    }

    /// Declares the local variable `name` (see `new_var`) holding `v`, or 0 without a
    /// value (GLSL leaves it undefined: a documented choice). A `konst` variable becomes
    /// read-only once its value is stored.
    fn define_local(&mut self, name: &str, ty: &Ty, v: Option<Value>, konst: bool) -> R<()> {
        let p = self.new_var(name, ty)?;
        match v {
            Some(v) => self.store(&p, v)?,
            None => self.zero_init(&p),
        }
        if konst {
            // Re-declare read-only.
            if let Some(s) = self.scopes.last_mut() {
                s.insert(name.to_string(), Sym::Var(p.set_ro()));
            }
        }
        Ok(())
    }

    /// Sets a variable to 0, marked undefined: what uninitialised locals and `out`
    /// parameters read (GLSL 4.60 section 4.3: undefined), flagged where a lane (a byte, for
    /// arrays and structs in private memory) is used before it is written.
    pub(super) fn zero_init(&mut self, p: &Place) {
        match p {
            Place::Reg { reg, ty, .. } => {
                let z = self.konst([0; 4]);
                let n = ty.lanes();
                self.b.mov(Dst::lanes(*reg, n), Src::new(z));
                let all = self.konst([1; 4]);
                self.b
                    .mark_undefined(n, *reg, all, crate::ir::UndefinedRule::UninitializedValue);
            }
            Place::Mem {
                space: crate::ir::Space::Private,
                addr: super::place::Addr { dynr: None, off },
                ty,
                ..
            } => {
                let size =
                    crate::front::glsl::types::size(ty, crate::front::glsl::types::Rule::STD430);
                self.emit(crate::ir::Inst::MarkPrivateUndefined { off: *off, size });
            }
            Place::Mem { .. } => {}
        }
    }

    pub(super) fn declare(&mut self, name: &str, s: Sym) -> R<()> {
        if name.starts_with("gl_") {
            return self.err(format!(
                "'{name}' : identifiers starting with gl_ are reserved (redeclaration of a built-in)"
            ));
        }
        let global = self.scopes.len() == 1;
        let cur = self.cur;
        if global {
            if let Some(&owner) = self.global_owner.get(name) {
                if owner != cur {
                    // The same global in another shader of the program: one variable, if the
                    // declarations agree (GLSL link rules).
                    let prev = self.scopes[0].get(name).cloned();
                    let same = match (&prev, &s) {
                        (
                            Some(Sym::Var(Place::Mem {
                                space: a,
                                ty: ta,
                                rule: ra,
                                ..
                            })),
                            Sym::Var(Place::Mem {
                                space: b,
                                ty: tb,
                                rule: rb,
                                ..
                            }),
                        ) => a == b && ta == tb && ra == rb,
                        (Some(Sym::Var(p)), Sym::Var(q)) => p.ty() == q.ty(),
                        (Some(Sym::Const(a)), Sym::Const(b)) => a.ty == b.ty && a.k == b.k,
                        (Some(Sym::Image(a)), Sym::Image(b)) => a == b,
                        _ => false,
                    };
                    if same {
                        return Ok(());
                    }
                    return Err(Fail::Link(self.diag(format!(
                        "'{name}' : declared differently in two shaders of the program"
                    ))));
                }
            }
            self.global_owner.insert(name.to_string(), cur);
        }
        let scope = self.scopes.last_mut().expect("scope");
        if scope.contains_key(name) {
            return self.err(format!("'{name}' : redefinition"));
        }
        scope.insert(name.to_string(), s);
        Ok(())
    }

    /// A value from an initializer list (`{a, b, ...}`) for `ty` (GLSL 4.20 initializer lists).
    pub(super) fn init_list(&mut self, init: &ast::Initializer, ty: &Ty) -> R<Value> {
        let items = match &**init {
            ast::InitializerData::Simple(e) => {
                let v = self.expr(e)?;
                return self.implicit_value(v, ty);
            }
            ast::InitializerData::List(items) => items,
        };
        let item = |s: &mut Self, i: usize, ty: &Ty| s.init_list(&items[i], ty);
        match ty {
            Ty::Array(e, n) => {
                let len = n.unwrap_or(items.len() as u32);
                if items.len() as u32 != len {
                    return self.err(format!(
                        "initializer list has {} items for an array of {len}",
                        items.len()
                    ));
                }
                self.fill_aggregate(&Ty::Array(e.clone(), Some(len)), item)
            }
            Ty::Struct(sd) => {
                if items.len() != sd.fields.len() {
                    return self.err(format!(
                        "initializer list has {} items for struct {} of {} fields",
                        items.len(),
                        sd.name,
                        sd.fields.len()
                    ));
                }
                self.fill_aggregate(ty, item)
            }
            Ty::Mat(sc, c, r) => {
                // One item per column (GLSL 4.60 §4.1.11: `mat2 a = { vec2(1, 0), vec2(0, 1) }`).
                if items.len() != usize::from(*c) {
                    return self.err(format!(
                        "initializer list has {} items for {ty} of {c} columns",
                        items.len()
                    ));
                }
                let mut cols = Vec::with_capacity(items.len());
                for it in items {
                    match self.init_list(it, &Ty::V(*sc, *r))? {
                        Value::V(v) => cols.push(v),
                        Value::Agg(_) => return self.err("bad initializer list"),
                    }
                }
                self.mat_of_cols(ty, &cols)
            }
            Ty::V(sc, n) if *n > 1 => {
                if items.len() != *n as usize {
                    return self.err(format!(
                        "initializer list has {} items for {ty}",
                        items.len()
                    ));
                }
                let t = self.fresh(ty.clone());
                for (i, it) in items.iter().enumerate() {
                    let v = self.init_list(it, &Ty::V(*sc, 1))?;
                    let Value::V(v) = v else {
                        return self.err("bad initializer list");
                    };
                    self.b
                        .mov(Dst::masked(t.src.reg, 1 << i), Self::lane_src(&v, 0));
                }
                Ok(Value::V(t))
            }
            _ => self.err(format!("an initializer list cannot initialize {ty}")),
        }
    }

    pub(super) fn local_decl(&mut self, d: &ast::Declaration) -> R<()> {
        self.at(&d.span);
        match &**d {
            ast::DeclarationData::InitDeclaratorList(l) => {
                let q = quals(l.head.ty.qualifier.as_ref());
                self.check_layout(&q, LayoutSite::Other)?;
                if q.shared || q.buffer || q.uniform || q.inout.is_some() {
                    return self.err("storage qualifiers (shared, buffer, uniform, in, out) are not allowed on local variables");
                }
                let base = self.resolve_fst(&l.head.ty)?;
                for Declarator { name, array, init } in declarators(l) {
                    let mut ty = self.apply_arrays(base.clone(), None, array)?;
                    self.memory_qualifiers_on(name, &ty, &q)?;
                    if ty == Ty::Void || ty == Ty::AtomicUint {
                        return self
                            .err(format!("'{name}' : illegal type {ty} for a local variable"));
                    }
                    let v = match init {
                        Some(i) => {
                            let ast::InitializerData::Simple(e) = &**i else {
                                let v = self.init_list(i, &ty)?;
                                if let Value::Agg(p) = &v {
                                    ty = p.ty().clone();
                                }
                                let v = self.implicit_value(v, &ty)?;
                                self.define_local(name, &ty, Some(v), q.konst)?;
                                continue;
                            };
                            let v = self.expr(e)?;
                            size_from_init(&mut ty, &v);
                            Some(self.implicit_value(v, &ty)?)
                        }
                        None => None,
                    };
                    if ty.has_runtime_array() {
                        return self.err(format!(
                            "'{name}' : an unsized array needs a size or an initializer"
                        ));
                    }
                    match (q.konst, v) {
                        (true, None) => {
                            return self
                                .err(format!("'{name}' : a const variable needs an initializer"));
                        }
                        (true, Some(Value::V(vv))) if vv.k.is_some() => {
                            self.declare(name, Sym::Const(vv))?
                        }
                        (konst, v) => self.define_local(name, &ty, v, konst)?,
                    }
                }
                Ok(())
            }
            ast::DeclarationData::Precision(..) => Ok(()),
            ast::DeclarationData::FunctionPrototype(_) => {
                self.err("function prototypes are only allowed at global scope")
            }
            ast::DeclarationData::Block(_) => {
                self.err("interface blocks are only allowed at global scope")
            }
            ast::DeclarationData::Invariant(_) | ast::DeclarationData::TypeOnly(_) => {
                self.err("this declaration is only allowed at global scope")
            }
        }
    }
}

/// One declarator of a declaration (`int a[2] = x, b;` has two): the name, the array
/// dimensions after it and the initializer.
pub(super) struct Declarator<'d> {
    pub(super) name: &'d str,
    pub(super) array: Option<&'d ast::ArraySpecifier>,
    pub(super) init: Option<&'d ast::Initializer>,
}

/// The declarators of a declaration list, in order (the head's when it names one, then the
/// tail's).
pub(super) fn declarators(l: &ast::InitDeclaratorList) -> Vec<Declarator<'_>> {
    let head = l.head.name.as_ref().map(|n| Declarator {
        name: n.as_str(),
        array: l.head.array_specifier.as_ref(),
        init: l.head.initializer.as_ref(),
    });
    let tail = l.tail.iter().map(|t| Declarator {
        name: t.ident.ident.as_str(),
        array: t.ident.array_spec.as_ref(),
        init: t.initializer.as_ref(),
    });
    head.into_iter().chain(tail).collect()
}

/// An unsized array declared with an initializer that is a sized array of the same element
/// type takes the initializer's size (`int a[] = int[](1, 2);`).
pub(super) fn size_from_init(ty: &mut Ty, init: &Value) {
    if let (Ty::Array(e1, None), Value::Agg(p)) = (&*ty, init) {
        if let Ty::Array(e2, Some(n)) = p.ty() {
            if e1 == e2 {
                *ty = Ty::Array(e1.clone(), Some(*n));
            }
        }
    }
}
