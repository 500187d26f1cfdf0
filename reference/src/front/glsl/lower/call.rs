//! Calls: the dispatch of a call expression (constructors, user functions, built-ins,
//! `.length()`), constructors, user function calls (overload resolution, in/out/inout copies),
//! and the argument helpers the built-ins share.

use super::global::is_counter_type;
use super::ops::conv_ok;
use super::place::Place;
use super::{Lower, PQual, Value, R, V};
use crate::front::glsl::types::{stride, Sc, Ty};
use crate::ir::{Dst, Inst, Space, Src};
use conform_plan::BufferKind;
use glsl_lang::ast::{self, ExprData};

impl<'a> Lower<'a> {
    pub(super) fn call(&mut self, f: &ast::FunIdentifier, args: &[ast::Expr]) -> R<Value> {
        match &**f {
            ast::FunIdentifierData::TypeSpecifier(ts) => {
                let ty = self.resolve_ts(ts)?;
                self.construct(&ty, args)
            }
            ast::FunIdentifierData::Expr(fe) => match &***fe {
                ExprData::Variable(id) => {
                    let name = id.as_str();
                    if let Some(sd) = self.structs.get(name).cloned() {
                        return self.construct(&Ty::Struct(sd), args);
                    }
                    if self.fn_names.contains_key(name) {
                        return self.user_call(name, args);
                    }
                    self.builtin_call(name, args)
                }
                ExprData::Dot(base, m) if m.as_str() == "length" && args.is_empty() => {
                    if let Some(elems) = self.block_array(base) {
                        let n = elems.len() as u64;
                        return Ok(Value::V(self.k_scalar(Sc::Int, n)));
                    }
                    let p = self.place_of(base)?;
                    match p.ty().clone() {
                        Ty::Array(_, Some(n)) => Ok(Value::V(self.k_scalar(Sc::Int, u64::from(n)))),
                        Ty::V(_, n) if n > 1 => Ok(Value::V(self.k_scalar(Sc::Int, u64::from(n)))),
                        Ty::Mat(_, c, _) => Ok(Value::V(self.k_scalar(Sc::Int, u64::from(c)))),
                        Ty::Array(e, None) => self.runtime_length(&p, &e),
                        t => self.err(format!("length() is not defined on {t}")),
                    }
                }
                _ => self.unsup("this form of function call"),
            },
        }
    }

    /// `.length()` of a runtime-sized array: from the size of the buffer the plan binds.
    fn runtime_length(&mut self, p: &Place, elem: &Ty) -> R<Value> {
        let Place::Mem {
            space: Space::Storage(bnd),
            addr,
            rule,
            ..
        } = p
        else {
            return self.unsup("length() of this runtime-sized array");
        };
        if addr.dynr.is_some() {
            return self.unsup("length() of a runtime-sized array at a dynamic offset");
        }
        let Some(len) = self
            .plan
            .buffers
            .iter()
            .find(|b| b.0 == BufferKind::Storage && b.1 == *bnd)
            .map(|b| b.2)
        else {
            return self.unsup(format!(
                "length() of a runtime-sized array in a buffer block at binding {bnd} that the plan does not bind"
            ));
        };
        let st = stride(elem, *rule).max(1) as usize;
        let n = len.saturating_sub(addr.off as usize) / st;
        let n = n.min(i32::MAX as usize) as u64;
        let t = self.tmp();
        let k = self.konst([n, 0, 0, 0]);
        // Not a compile-time constant: a register copy.
        self.b.mov(Dst::masked(t, 1), Src::new(k));
        Ok(Value::V(V {
            src: Src::new(t),
            ty: Ty::INT,
            k: None,
        }))
    }

    fn construct(&mut self, ty: &Ty, args: &[ast::Expr]) -> R<Value> {
        let arg = |s: &mut Self, i: usize, ty: &Ty| {
            let v = s.expr(&args[i])?;
            s.implicit_value(v, ty)
        };
        match ty {
            Ty::V(sc, n) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?);
                }
                let mut comps: Vec<V> = Vec::new();
                // Whether comps[i] is the first part of an argument.
                let mut arg_starts: Vec<bool> = Vec::new();
                for v in vals {
                    let parts = match v {
                        Value::V(v) => vec![v],
                        // A matrix argument gives its components in column-major order
                        // (§5.4.2): its columns, each one argument's worth.
                        Value::Agg(p) if matches!(p.ty(), Ty::Mat(..)) => self.mat_cols(&p)?,
                        Value::Agg(p) => {
                            return self.err(format!("cannot construct {ty} from {}", p.ty()))
                        }
                    };
                    for (i, v) in parts.into_iter().enumerate() {
                        let v = self.convert(v, *sc)?;
                        comps.push(v);
                        arg_starts.push(i == 0);
                    }
                }
                let total: u32 = comps.iter().map(|c| u32::from(c.ty.lanes())).sum();
                if comps.is_empty() {
                    return self.err(format!("constructor {ty} needs arguments"));
                }
                if comps.len() == 1 && comps[0].ty.lanes() == 1 {
                    return Ok(Value::V(self.splat(comps.remove(0), *n)));
                }
                if total < u32::from(*n) {
                    return self.err(format!("not enough data for constructor {ty}"));
                }
                // Each argument must contribute at least one component.
                let mut used = 0u32;
                for (c, start) in comps.iter().zip(&arg_starts) {
                    if used >= u32::from(*n) && *start {
                        return self.err(format!("too many arguments to constructor {ty}"));
                    }
                    used += u32::from(c.ty.lanes());
                }
                let all_k = comps.iter().all(|c| c.k.is_some());
                let mut lanes: Vec<(Src, Option<u64>)> = Vec::new();
                for c in &comps {
                    for i in 0..c.ty.lanes() as usize {
                        lanes.push((Self::lane_src(c, i), c.k.map(|k| k[i])));
                    }
                }
                lanes.truncate(*n as usize);
                if all_k {
                    let k = self.k_lanes(ty.clone(), |i| lanes[i].1.unwrap_or(0));
                    return Ok(Value::V(k));
                }
                let t = self.tmp();
                for (i, l) in lanes.iter().enumerate() {
                    self.b.mov(Dst::masked(t, 1 << i), l.0);
                }
                Ok(Value::V(V {
                    src: Src::new(t),
                    ty: ty.clone(),
                    k: None,
                }))
            }
            // Aggregates: argument i, converted to the type of element or field i.
            Ty::Struct(sd) => {
                if args.len() != sd.fields.len() {
                    return self.err(format!(
                        "constructor {} needs {} arguments, got {}",
                        sd.name,
                        sd.fields.len(),
                        args.len()
                    ));
                }
                self.fill_aggregate(ty, arg)
            }
            Ty::Array(e, n) => {
                let len = n.unwrap_or(args.len() as u32);
                if args.len() as u32 != len {
                    return self.err(format!(
                        "array constructor needs {len} arguments, got {}",
                        args.len()
                    ));
                }
                self.fill_aggregate(&Ty::Array(e.clone(), Some(len)), arg)
            }
            Ty::Mat(..) => self.construct_matrix(ty, args),
            _ => self.err(format!("cannot construct {ty}")),
        }
    }

    fn user_call(&mut self, name: &str, args: &[ast::Expr]) -> R<Value> {
        // Evaluate in-values (and places of out params) left to right.
        let cands = self.fn_names.get(name).cloned().unwrap_or_default();
        let arity: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|&i| self.fns[i].params.len() == args.len())
            .collect();
        if arity.is_empty() {
            return self.err(format!(
                "no matching overload of '{name}' for {} arguments",
                args.len()
            ));
        }
        let mut vals: Vec<(Option<Value>, Option<Place>)> = Vec::new();
        // Param qualifiers are needed before evaluation: take them from the first candidate
        // with this arity (overloads differing in qualifiers only are not allowed in GLSL).
        let quals: Vec<PQual> = self.fns[arity[0]].params.iter().map(|p| p.1).collect();
        let counters: Vec<bool> = self.fns[arity[0]]
            .params
            .iter()
            .map(|p| is_counter_type(&p.0))
            .collect();
        for ((a, q), counter) in args.iter().zip(&quals).zip(&counters) {
            match q {
                // A counter is passed by its place (GLSL 4.60 §4.1.7: the callee's operations
                // act on the caller's counter).
                PQual::In if *counter => vals.push((Some(Value::Agg(self.place_of(a)?)), None)),
                PQual::In => vals.push((Some(self.expr(a)?), None)),
                PQual::Out => {
                    let p = self.place_of(a)?;
                    if p.ro() {
                        return self.err("an out/inout argument must be a writable l-value");
                    }
                    vals.push((None, Some(p)));
                }
                PQual::InOut => {
                    let p = self.place_of(a)?;
                    if p.ro() {
                        return self.err("an out/inout argument must be a writable l-value");
                    }
                    let v = self.load(&p)?;
                    vals.push((Some(v), Some(p)));
                }
            }
        }
        let tys: Vec<Ty> = vals
            .iter()
            .map(|(v, p)| match (v, p) {
                (Some(Value::V(v)), _) => v.ty.clone(),
                (Some(Value::Agg(p)), _) | (None, Some(p)) => p.ty().clone(),
                _ => Ty::Void,
            })
            .collect();
        // Overload resolution: exact, then with implicit conversions (unique).
        let exact: Vec<usize> = arity
            .iter()
            .copied()
            .filter(|&i| self.fns[i].params.iter().zip(&tys).all(|(p, t)| p.0 == *t))
            .collect();
        let chosen = if exact.len() == 1 {
            exact[0]
        } else {
            let conv: Vec<usize> = arity
                .iter()
                .copied()
                .filter(|&i| {
                    self.fns[i]
                        .params
                        .iter()
                        .zip(&tys)
                        .all(|(p, t)| p.0 == *t || (p.1 == PQual::In && conv_ok(t, &p.0)))
                })
                .collect();
            match conv.len() {
                1 => conv[0],
                0 => {
                    let list: Vec<String> = tys.iter().map(|t| t.to_string()).collect();
                    return self.err(format!(
                        "no matching overload of '{name}' for ({})",
                        list.join(", ")
                    ));
                }
                _ => return self.err(format!("ambiguous call of overloaded '{name}'")),
            }
        };
        if self.fns[chosen]
            .params
            .iter()
            .map(|p| p.1)
            .collect::<Vec<_>>()
            != quals
        {
            return self.unsup(format!(
                "overloads of '{name}' with different parameter qualifiers"
            ));
        }
        if let Some(cf) = self.cur_fn {
            self.call_edges.insert((cf, chosen));
        }
        let slots = self.fns[chosen].slots.clone();
        let ptys: Vec<Ty> = self.fns[chosen]
            .params
            .iter()
            .map(|p| p.0.clone())
            .collect();
        // Convert and copy in.
        let mut conv_vals = Vec::new();
        for ((v, _), pt) in vals.iter().zip(&ptys) {
            conv_vals.push(match v {
                Some(Value::Agg(p)) if is_counter_type(pt) => Some(self.counter_argument(p)?),
                Some(v) => Some(self.implicit_value(v.clone(), pt)?),
                None => None,
            });
        }
        for (v, slot) in conv_vals.into_iter().zip(&slots) {
            if let Some(v) = v {
                let s = slot.clone().writable();
                self.store(&s, v)?;
            }
        }
        let pc = self.emit(Inst::Call { target_pc: 0 });
        self.calls.push((pc, chosen));
        // Copy out.
        for ((_, p), slot) in vals.iter().zip(&slots) {
            if let Some(p) = p {
                let v = self.load(slot)?;
                self.store(p, v)?;
            }
        }
        let ret = self.fns[chosen].ret.clone();
        match (&ret, self.fns[chosen].ret_slot.clone()) {
            (Ty::Void, _) | (_, None) => Ok(Value::V(V {
                src: Src::new(self.konst([0; 4])),
                ty: Ty::Void,
                k: None,
            })),
            (Ty::V(..), Some(slot)) => self.load(&slot),
            (_, Some(slot)) => {
                let t = self.alloc_private(&ret)?;
                self.copy_agg(&t, &slot)?;
                Ok(Value::Agg(t))
            }
        }
    }

    pub(super) fn args_rv(&mut self, args: &[ast::Expr]) -> R<Vec<V>> {
        let mut v = Vec::new();
        for a in args {
            v.push(self.rv(a)?);
        }
        Ok(v)
    }

    pub(super) fn want_args(&self, name: &str, args: &[ast::Expr], n: usize) -> R<()> {
        if args.len() != n {
            return self.err(format!(
                "no matching overloaded function found: '{name}' takes {n} arguments, got {}",
                args.len()
            ));
        }
        Ok(())
    }
}
