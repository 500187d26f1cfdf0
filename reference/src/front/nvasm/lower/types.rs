//! Declared variable data types and sizes (NV_gpu_program4 2.X.3.1, "Program Variable
//! Types"): the `INT` / `UINT` / `FLOAT` and `SHORT` / `LONG` modifiers of a declaration, the
//! load failures of a declaration with two of a kind or a size its variable cannot have, the
//! data type check of every read and write of a typed variable (off with `NTC`, section
//! 2.X.4), and PK64 / UP64's `LONG` requirement (NV_gpu_program5).

use super::{diag, upper, Cx, Res};
use crate::front::nvasm::lexer::Tok;
use crate::ir::{Kind, ScalarTy};

const R_TYPES: &str = "(NV_gpu_program4, 2.X.3.1 \"Program Variable Types\")";
const R_CHECK: &str = "(NV_gpu_program4, 2.X.4 \"Program Execution Environment\")";

/// The modifiers of one variable declaration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct VarType {
    /// `INT`, `UINT` or `FLOAT`; none: typeless.
    pub(super) kind: Option<Kind>,
    /// `LONG` (the other size, `SHORT`, only needs checking where it is declared).
    pub(super) long: bool,
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::S => "INT",
        Kind::U => "UINT",
        _ => "FLOAT",
    }
}

fn type_name(t: ScalarTy) -> &'static str {
    match t.kind {
        Kind::S => "signed integer",
        Kind::U => "unsigned integer",
        _ => "floating-point",
    }
}

impl Cx {
    /// Reads the modifiers before `TEMP` / `PARAM` / `ATTRIB` / `BUFFER`: returns them and the
    /// declaration keyword (upper case) with its position.
    pub(super) fn declaration_modifiers(&mut self) -> Res<(VarType, String, u32, u32)> {
        let mut vt = VarType::default();
        let mut size: Option<&'static str> = None;
        loop {
            let (l, c) = self.here();
            let w = upper(&self.ident("a declaration")?);
            let kind = match w.as_str() {
                "INT" => Some(Kind::S),
                "UINT" => Some(Kind::U),
                "FLOAT" => Some(Kind::F),
                "SHORT" | "LONG" => {
                    if let Some(first) = size {
                        return Err(diag(l, c, format!("a declaration has two storage size modifiers ({first} and {w}) {R_TYPES}")));
                    }
                    size = Some(if w == "LONG" { "LONG" } else { "SHORT" });
                    vt.long = w == "LONG";
                    continue;
                }
                _ => None,
            };
            match kind {
                Some(k) => {
                    if let Some(first) = vt.kind {
                        return Err(diag(
                            l,
                            c,
                            format!(
                                "a declaration has two data type modifiers ({} and {w}) {R_TYPES}",
                                kind_name(first)
                            ),
                        ));
                    }
                    vt.kind = Some(k);
                }
                None => {
                    if let Some(s) = size {
                        if w != "TEMP" {
                            return Err(diag(l, c, format!("the {s} modifier is supported only for TEMP declarations in compute programs, not {w} {R_TYPES}")));
                        }
                    }
                    return Ok((vt, w, l, c));
                }
            }
        }
    }

    /// The load failure of a read (`write` false) or write of the declared variable `name` as
    /// `t` when it is declared with another data type and the instruction has no `NTC`.
    pub(super) fn check_var_type(
        &self,
        name: &str,
        t: ScalarTy,
        write: bool,
        at: (u32, u32),
    ) -> Res<()> {
        let Some(k) = self.var_types.get(name).and_then(|v| v.kind) else {
            return Ok(());
        };
        let same = match k {
            Kind::F => t.kind == Kind::F,
            _ => t.kind == k,
        };
        if same || self.ntc {
            return Ok(());
        }
        let how = if write { "writes" } else { "reads" };
        Err(diag(at.0, at.1, format!("the instruction {how} {} variable \"{name}\" as a {} value; use a matching data type modifier or NTC {R_CHECK}", kind_name(k), type_name(t))))
    }

    /// The load failure of PK64 writing, or UP64 reading, `name` (none: not a variable) when
    /// it is not declared `LONG`.
    pub(super) fn require_long(
        &self,
        op: &str,
        name: Option<&str>,
        role: &str,
        at: (u32, u32),
    ) -> Res<()> {
        let long = name
            .and_then(|n| self.var_types.get(n))
            .is_some_and(|v| v.long);
        if long {
            return Ok(());
        }
        let what = name.map_or("an operand that is not a variable".to_string(), |n| {
            format!("\"{n}\", not declared LONG")
        });
        Err(diag(at.0, at.1, format!("{op} {role} {what}; it must be a variable declared \"LONG\" (NV_gpu_program5, \"{op}\")")))
    }

    /// The position of the next source operand and the declared variable it names, if any
    /// (past a sign or an absolute-value bar; a literal or a binding names none).
    pub(super) fn operand_variable(&self) -> ((u32, u32), Option<String>) {
        let at = self.here();
        let mut k = 0;
        while matches!(self.peek_at(k), Tok::Sym('-' | '+' | '|')) {
            k += 1;
        }
        match self.peek_at(k) {
            Tok::Ident(n) if self.syms.contains_key(n) => (at, Some(n.clone())),
            _ => (at, None),
        }
    }
}
