//! The token cursor of the NV assembly lowerer: looking ahead, consuming expected symbols,
//! identifiers and integers, and the grammar errors that name what was found instead.

use super::{diag, Cx, Res, R_GRAMMAR};
use crate::front::nvasm::lexer::{Tok, Token};

impl Cx {
    pub(super) fn peek(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }
    pub(super) fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    pub(super) fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    pub(super) fn here(&self) -> (u32, u32) {
        let t = self.peek();
        (t.line, t.col)
    }
    pub(super) fn err<T>(&self, msg: String) -> Res<T> {
        let (l, c) = self.here();
        Err(diag(l, c, msg))
    }
    pub(super) fn is_sym(&self, c: char) -> bool {
        self.peek().tok == Tok::Sym(c)
    }
    pub(super) fn eat_sym(&mut self, c: char) -> bool {
        if self.is_sym(c) {
            self.next();
            true
        } else {
            false
        }
    }
    pub(super) fn describe(t: &Tok) -> String {
        match t {
            Tok::Ident(s) => format!("\"{s}\""),
            Tok::Int(v) => format!("\"{v}\""),
            Tok::Float(v, _) => format!("\"{v}\""),
            Tok::Sym(c) => format!("'{c}'"),
            Tok::DotDot => "\"..\"".into(),
            Tok::Eof => "the end of the program".into(),
        }
    }
    pub(super) fn expect_sym(&mut self, c: char, ctx: &str) -> Res<()> {
        if self.eat_sym(c) {
            Ok(())
        } else {
            let found = Self::describe(&self.peek().tok);
            self.err(format!("expected '{c}' {ctx}, found {found} {R_GRAMMAR}"))
        }
    }
    pub(super) fn ident(&mut self, ctx: &str) -> Res<String> {
        match self.peek().tok.clone() {
            Tok::Ident(s) => {
                self.next();
                Ok(s)
            }
            t => self.err(format!(
                "expected {ctx}, found {} {R_GRAMMAR}",
                Self::describe(&t)
            )),
        }
    }
    pub(super) fn int(&mut self, ctx: &str) -> Res<u64> {
        match self.peek().tok {
            Tok::Int(v) => {
                self.next();
                Ok(v)
            }
            ref t => {
                let d = Self::describe(t);
                self.err(format!("expected an integer {ctx}, found {d} {R_GRAMMAR}"))
            }
        }
    }
    pub(super) fn int_u32(&mut self, ctx: &str) -> Res<u32> {
        let (l, c) = self.here();
        let v = self.int(ctx)?;
        u32::try_from(v).map_err(|_| diag(l, c, format!("integer {v} {ctx} is too large")))
    }
    pub(super) fn end_stmt(&mut self) -> Res<()> {
        self.expect_sym(';', "at the end of the statement")
    }
    pub(super) fn comma(&mut self, op: &str) -> Res<()> {
        self.expect_sym(',', &format!("between the operands of {op}"))
    }
}
