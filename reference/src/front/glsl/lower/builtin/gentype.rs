//! Overload resolution for the built-in functions written with gen types (GLSL 4.60 §8:
//! `genFType` is float or vec2..4, `genDType` double or dvec2..4, `genIType`, `genUType`,
//! `genBType`, and GL_ARB_gpu_shader_int64's `genI64Type`/`genU64Type`).
//!
//! A signature is the scalar types its gen type may be (`families`, in the order overloads
//! are preferred) and the shape of each parameter ([`P`]). Arguments match a family exactly,
//! or else through implicit conversions (GLSL §6.1), the first family in order winning, as
//! int arguments to `sin` become float.

use super::super::ops::implicit_ok;
use crate::front::glsl::lower::{Lower, R, V};
use crate::front::glsl::types::{Sc, Ty};

/// The shape of a parameter of a gen-type signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum P {
    /// The gen type itself (all such arguments have the same size).
    Gen,
    /// A scalar of the gen type's scalar type (`float` in `genFType min(genFType, float)`).
    Scalar,
    /// A vector of the gen type's size of this scalar type (`genBType` in `mix`,
    /// `genIType` in `ldexp`).
    Same(Sc),
}

/// The float families.
pub(super) const F: &[Sc] = &[Sc::Float];
pub(super) const FD: &[Sc] = &[Sc::Float, Sc::Double];
/// int, uint, the 64-bit integers of GL_ARB_gpu_shader_int64, float, double: in this order a
/// call's first family that every argument converts to is the overload §6.1 prefers
/// (`min(int, uint)` is the uint one, `min(int, float)` the float one).
pub(super) const NUMERIC: &[Sc] = &[
    Sc::Int,
    Sc::Uint,
    Sc::Int64,
    Sc::Uint64,
    Sc::Float,
    Sc::Double,
];
pub(super) const SIGNED: &[Sc] = &[Sc::Int, Sc::Int64, Sc::Float, Sc::Double];

impl<'a> Lower<'a> {
    /// Matches `args` against `genX f(params)` for X in `families`: the chosen scalar type, the
    /// gen type's size, and the arguments converted (scalar parameters splatted to the size).
    /// None when no family matches.
    pub(super) fn gen_match(
        &mut self,
        args: &[V],
        families: &[Sc],
        params: &[P],
    ) -> R<Option<(Sc, u8, Vec<V>)>> {
        if args.len() != params.len() {
            return Ok(None);
        }
        let mut n = None;
        for (a, p) in args.iter().zip(params) {
            let Ty::V(_, lanes) = a.ty else {
                return Ok(None);
            };
            let want = match p {
                P::Gen | P::Same(_) => {
                    let n = *n.get_or_insert(lanes);
                    n
                }
                P::Scalar => 1,
            };
            if lanes != want {
                return Ok(None);
            }
        }
        let n = n.unwrap_or(1);
        let converts =
            |from: Sc, to: Sc, exact: bool| from == to || (!exact && implicit_ok(from, to));
        let fits = |sc: Sc, exact: bool| {
            args.iter().zip(params).all(|(a, p)| {
                let from = a.ty.sc().unwrap_or(Sc::Bool);
                match p {
                    P::Gen | P::Scalar => converts(from, sc, exact),
                    P::Same(s) => converts(from, *s, exact),
                }
            })
        };
        let Some(sc) = families
            .iter()
            .copied()
            .find(|&sc| fits(sc, true))
            .or_else(|| families.iter().copied().find(|&sc| fits(sc, false)))
        else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(args.len());
        for (a, p) in args.iter().zip(params) {
            let to = match p {
                P::Same(s) => *s,
                _ => sc,
            };
            let v = self.convert(a.clone(), to)?;
            out.push(self.splat(v, n));
        }
        Ok(Some((sc, n, out)))
    }

    /// The first of several signatures the arguments match (see [`Lower::gen_match`]), or the
    /// compile error for a call with no matching overload.
    pub(super) fn gen_call(
        &mut self,
        name: &str,
        args: &[V],
        families: &[Sc],
        signatures: &[&[P]],
    ) -> R<(Sc, u8, Vec<V>)> {
        for params in signatures {
            if let Some(m) = self.gen_match(args, families, params)? {
                return Ok(m);
            }
        }
        let tys: Vec<String> = args.iter().map(|a| a.ty.to_string()).collect();
        self.no_overload(name, tys.join(", "))
    }
}
