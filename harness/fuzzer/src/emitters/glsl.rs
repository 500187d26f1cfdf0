//! Program tree → GLSL compute shader (`#version 430`, std430 buffers, one per block).
//!
//! Every value is a `uint`; signed operators cast at the point of use (`int(a) >> n`), so the
//! text says exactly what the model computes. Each block is a braced scope, and barriers stand
//! at the top level of `main`, in uniform control flow.

use crate::ast::*;
use crate::emitters::spell::{float_text, glsl_bin, power_of_two, xyz};
use crate::oracles::model::atomic_finals;
use std::fmt::Write;

/// A generated program's text and its number of statements (for the size of reduced cases).
pub struct Emitted {
    pub text: String,
    pub instructions: usize,
}

/// The shader of `p`, which must satisfy [`Program::check`] (the generator and the reducer
/// guarantee it; a program read from disk is checked first).
pub fn emit(p: &Program) -> Emitted {
    let mut head = String::from("#version 430\n");
    if p.has_float_atomics() {
        head.push_str("#extension GL_NV_shader_atomic_float : require\n");
    }
    if p.uses_wide() || crate::features::subgroup::needs_int64(p) {
        head.push_str("#extension GL_ARB_gpu_shader_int64 : require\n");
    }
    for e in crate::features::subgroup::glsl_extensions(p) {
        let _ = writeln!(head, "#extension {e} : require");
    }
    if p.needs_shuffle() {
        head.push_str("#extension GL_NV_shader_thread_shuffle : require\n");
    }
    match p.local_dims() {
        [x, 1, 1] if p.shape.is_none() => {
            let _ = writeln!(head, "layout(local_size_x = {x}) in;");
        }
        [x, y, z] => {
            let _ = writeln!(
                head,
                "layout(local_size_x = {x}, local_size_y = {y}, local_size_z = {z}) in;"
            );
        }
    }
    let mut body = Body::default();
    for (k, b) in p.blocks.iter().enumerate() {
        let elem = match b {
            Block::Atomic(a) if a.ty == AtomTy::S32 => "int",
            Block::AtomicMix(m) if m.ty == AtomTy::S32 => "int",
            Block::FloatAtomic(_) => "float",
            _ => "uint",
        };
        let _ = writeln!(
            head,
            "layout(std430, binding = {k}) buffer B{k} {{ {elem} b{k}[]; }};"
        );
        body.line(&format!("// block {k}: {}", b.feature()));
        match b {
            Block::Atomic(a) => atomic(&mut head, &mut body, k, a, p),
            Block::Section(s) => section(&mut head, &mut body, k, s),
            Block::Exchange(x) => exchange(&mut head, &mut body, k, x, p),
            Block::Shuffle(s) => shuffle(&mut body, k, s),
            Block::Compute(c) => compute(&mut body, k, c),
            Block::FloatAtomic(f) => float_atomic(&mut head, &mut body, k, f, p),
            Block::Undefined(u) => undefined(&mut head, &mut body, k, u, p),
            Block::AtomicMix(m) => atomic_mix(&mut head, &mut body, k, m),
            Block::Narrow(_) => {
                unreachable!("Program::check keeps 8- and 16-bit storage in NV assembly")
            }
            Block::Vector(v) => {
                body.open("{");
                crate::features::vector::glsl(k, v)
                    .iter()
                    .for_each(|l| body.line(l));
                body.close("}");
            }
            Block::Subgroup(s) => {
                body.open("{");
                crate::features::subgroup::glsl(k, s, p)
                    .iter()
                    .for_each(|l| body.line(l));
                body.close("}");
            }
        }
    }
    let mut text = head;
    // Callees before callers.
    let functions: String = body.functions.iter().rev().map(String::as_str).collect();
    for (call, def) in HELPERS.iter().chain(&crate::features::wide::GLSL_HELPERS) {
        if body.text.contains(call) || functions.contains(call) {
            text.push_str(def);
            text.push('\n');
        }
    }
    text.push_str(&functions);
    text.push_str("void main() {\n");
    text.push_str("    uint lid = gl_LocalInvocationIndex;\n");
    if p.shape.is_some() {
        // Linear indices (ast::Shape).
        let [gx, gy, _] = p.group_dims();
        let _ = writeln!(
            text,
            "    uint wg = gl_WorkGroupID.x + {} * (gl_WorkGroupID.y + {} * gl_WorkGroupID.z);",
            uint(gx),
            uint(gy)
        );
        let _ = writeln!(text, "    uint gid = wg * {} + lid;", uint(p.local_size));
    } else {
        text.push_str("    uint gid = gl_GlobalInvocationID.x;\n");
        text.push_str("    uint wg = gl_WorkGroupID.x;\n");
    }
    text.push_str(&body.text);
    text.push_str("}\n");
    Emitted {
        text,
        instructions: body.statements,
    }
}

#[derive(Default)]
struct Body {
    text: String,
    depth: usize,
    statements: usize,
    /// The functions compute blocks call (`fz_call<i>`, index i); a callee has a higher
    /// index than its caller.
    functions: Vec<String>,
}

impl Body {
    fn line(&mut self, s: &str) {
        for _ in 0..=self.depth {
            self.text.push_str("    ");
        }
        self.text.push_str(s);
        self.text.push('\n');
        if s.ends_with(';') {
            self.statements += 1;
        }
    }

    fn open(&mut self, s: &str) {
        self.line(s);
        self.depth += 1;
    }

    fn close(&mut self, s: &str) {
        self.depth -= 1;
        self.line(s);
    }

    fn shared_barrier(&mut self) {
        self.line("memoryBarrierShared();");
        self.line("barrier();");
    }
}

fn uint(v: u32) -> String {
    format!("{v}u")
}

/// A signed literal that every compiler takes (`-2147483648` is not a valid int literal).
fn int(v: u32) -> String {
    match v as i32 {
        i32::MIN => "int(0x80000000u)".into(),
        s => s.to_string(),
    }
}

fn guard_cond(g: Guard, idx: &str) -> Option<String> {
    match g {
        Guard::All => None,
        Guard::Below(n) => Some(format!("{idx} < {}", uint(n))),
        Guard::Every { m, r } => Some(format!("{idx} % {} == {}", uint(m), uint(r))),
    }
}

fn atomic_call(a: &AtomicBlock, mem: &str, idx: &str) -> String {
    let lit = |v: u32| {
        if a.ty == AtomTy::S32 {
            int(v)
        } else {
            uint(v)
        }
    };
    let operand = match a.operand {
        Operand::Uniform(v) => lit(v),
        Operand::PerInvocation { base, step } => {
            let e = format!("({} + {} * {idx})", uint(base), uint(step));
            if a.ty == AtomTy::S32 {
                format!("int{e}")
            } else {
                e
            }
        }
    };
    let f = match a.op {
        AtomicOp::Add => "atomicAdd",
        AtomicOp::Min => "atomicMin",
        AtomicOp::Max => "atomicMax",
        AtomicOp::And => "atomicAnd",
        AtomicOp::Or => "atomicOr",
        AtomicOp::Xor => "atomicXor",
        AtomicOp::Exch => "atomicExchange",
        AtomicOp::CSwap => return format!("atomicCompSwap({mem}, {}, {operand})", lit(a.compare)),
        AtomicOp::IWrap | AtomicOp::DWrap => {
            unreachable!("Program::check keeps wrapping atomics out of GLSL")
        }
    };
    format!("{f}({mem}, {operand})")
}

/// The word block `k`'s atomics update (a shared one set to `init` by invocation 0 before a
/// barrier) and the index that tells its invocations apart.
fn atomic_word(
    head: &mut String,
    body: &mut Body,
    k: usize,
    a: &AtomicBlock,
) -> (String, &'static str) {
    let ty = if a.ty == AtomTy::S32 { "int" } else { "uint" };
    let lit = |v: u32| if a.ty == AtomTy::S32 { int(v) } else { uint(v) };
    match a.space {
        Space::Storage => (format!("b{k}[0]"), "gid"),
        Space::Shared => {
            let _ = writeln!(head, "shared {ty} s{k};");
            body.line(&format!("if (lid == 0u) s{k} = {};", lit(a.init)));
            body.shared_barrier();
            (format!("s{k}"), "lid")
        }
    }
}

/// After the updates: a shared word's final value, at the group's index of the buffer.
fn atomic_word_end(body: &mut Body, k: usize, space: Space) {
    if space == Space::Shared {
        body.shared_barrier();
        body.line(&format!("if (lid == 0u) b{k}[wg] = s{k};"));
    }
}

fn atomic(head: &mut String, body: &mut Body, k: usize, a: &AtomicBlock, p: &Program) {
    let ty = if a.ty == AtomTy::S32 { "int" } else { "uint" };
    let finals = atomic_finals(a, p);
    let (mem, idx) = atomic_word(head, body, k, a);
    body.open("{");
    let guarded = guard_cond(a.guard, idx);
    if let Some(c) = &guarded {
        body.open(&format!("if ({c}) {{"));
    }
    let call = atomic_call(a, &mem, idx);
    if a.stores_returns() {
        body.line(&format!("{ty} r = {call};"));
        body.line(&format!("b{k}[{} + gid] = r;", uint(finals as u32)));
    } else {
        body.line(&format!("{call};"));
    }
    if guarded.is_some() {
        body.close("}");
    }
    body.close("}");
    atomic_word_end(body, k, a.space);
}

/// Different atomic operations on one word (`crate::features::atomic_mix`): part `j` under
/// `if (idx % n == j)`.
fn atomic_mix(head: &mut String, body: &mut Body, k: usize, m: &AtomicMixBlock) {
    let (mem, idx) = atomic_word(head, body, k, &m.part_block(0));
    body.open("{");
    for j in 0..m.parts.len() {
        let guarded = guard_cond(m.part_guard(j), idx);
        if let Some(c) = &guarded {
            body.open(&format!("if ({c}) {{"));
        }
        body.line(&format!("{};", atomic_call(&m.part_block(j), &mem, idx)));
        if guarded.is_some() {
            body.close("}");
        }
    }
    body.close("}");
    atomic_word_end(body, k, m.space);
}

/// A float literal for `quarters / 4` (exact).
fn quarter_literal(q: i32) -> String {
    float_text(crate::oracles::model::quarters(i64::from(q)))
}

fn float_atomic(head: &mut String, body: &mut Body, k: usize, f: &FloatAtomicBlock, p: &Program) {
    let (mem, idx, finals) = match f.space {
        Space::Storage => (format!("b{k}[0]"), "gid", 1),
        Space::Shared => {
            let _ = writeln!(head, "shared float s{k};");
            body.line(&format!(
                "if (lid == 0u) s{k} = {};",
                quarter_literal(f.init)
            ));
            body.shared_barrier();
            (format!("s{k}"), "lid", p.groups)
        }
    };
    body.open("{");
    let guarded = guard_cond(f.guard, idx);
    if let Some(c) = &guarded {
        body.open(&format!("if ({c}) {{"));
    }
    let call = format!("atomicAdd({mem}, {})", quarter_literal(f.operand));
    if f.keep_returns {
        body.line(&format!("float r = {call};"));
        body.line(&format!("b{k}[{} + gid] = r;", uint(finals)));
    } else {
        body.line(&format!("{call};"));
    }
    if guarded.is_some() {
        body.close("}");
    }
    body.close("}");
    if f.space == Space::Shared {
        body.shared_barrier();
        body.line(&format!("if (lid == 0u) b{k}[wg] = s{k};"));
    }
}

fn section(head: &mut String, body: &mut Body, k: usize, s: &SectionBlock) {
    let (counter, base) = match s.space {
        Space::Storage => (format!("b{k}[0]"), "0u".to_string()),
        Space::Shared => {
            let _ = writeln!(head, "shared uint s{k};");
            body.line(&format!("if (lid == 0u) s{k} = 0u;"));
            body.shared_barrier();
            (format!("s{k}"), "3u * wg".to_string())
        }
    };
    body.open("{");
    body.line(&format!("uint t = atomicAdd({counter}, 1u);"));
    body.open(&format!("if (t == {}) {{", uint(s.winner)));
    body.line(&format!("atomicAdd(b{k}[{base} + 1u], 1u);"));
    body.line(&format!("b{k}[{base} + 2u] = {};", expr(&s.payload)));
    body.close("}");
    body.close("}");
    if s.space == Space::Shared {
        body.shared_barrier();
        body.line(&format!("if (lid == 0u) b{k}[{base}] = s{k};"));
    }
}

fn exchange(head: &mut String, body: &mut Body, k: usize, x: &ExchangeBlock, p: &Program) {
    let _ = writeln!(head, "shared uint x{k}[{}];", p.local_size);
    let barrier = |body: &mut Body| {
        if x.fence {
            body.shared_barrier()
        } else {
            body.line("barrier();")
        }
    };
    let source = format!(
        "x{k}[({} * lid + {}) % {}]",
        uint(x.mul),
        uint(x.add),
        uint(p.local_size)
    );
    body.line(&format!("x{k}[lid] = {};", expr(&x.value)));
    barrier(body);
    if x.rounds > 0 {
        body.open(&format!(
            "for (uint n{k} = 0u; n{k} < {}; n{k}++) {{",
            uint(u32::from(x.rounds))
        ));
        body.line(&format!("uint t = {source};"));
        barrier(body);
        body.line(&format!("x{k}[lid] = t;"));
        barrier(body);
        body.close("}");
    }
    body.line(&format!("b{k}[gid] = {source};"));
}

fn shuffle(body: &mut Body, k: usize, s: &ShuffleBlock) {
    let f = match s.mode {
        ShflMode::Idx => "shuffleNV",
        ShflMode::Up => "shuffleUpNV",
        ShflMode::Down => "shuffleDownNV",
        ShflMode::Xor => "shuffleXorNV",
    };
    let v = expr(&s.value);
    let (ty, data, bits) = match s.ty {
        ShflTy::U32 => ("uint", v, "r"),
        ShflTy::I32 => ("int", format!("int({v})"), "uint(r)"),
        ShflTy::F32 => (
            "float",
            format!("float(({v}) & 0xFFFFu)"),
            "floatBitsToUint(r)",
        ),
        ShflTy::Bool => ("bool", format!("(({v}) & 1u) != 0u"), "(r ? 1u : 0u)"),
    };
    let args = format!("{data}, {}, {}", expr(&s.index), uint(s.width));
    body.open("{");
    if s.want_valid {
        body.line("bool ok;");
        body.line(&format!("{ty} r = {f}({args}, ok);"));
        body.line(&format!("b{k}[2u * gid] = ok ? 1u : 0u;"));
    } else {
        body.line(&format!("{ty} r = {f}({args});"));
    }
    body.line(&format!("b{k}[2u * gid + 1u] = {bits};"));
    body.close("}");
}

/// Undefined behaviour on purpose; each invocation stores what it got (unchecked).
fn undefined(head: &mut String, body: &mut Body, k: usize, u: &UndefinedBlock, p: &Program) {
    let value = match u.kind {
        UbKind::DivergentBarrier => {
            body.open(&format!("if (lid < {}) {{", uint(u.param)));
            body.line("barrier();");
            body.close("}");
            "lid".to_string()
        }
        UbKind::UninitSharedRead => {
            let _ = writeln!(head, "shared uint u{k}[{}];", p.local_size);
            format!("u{k}[(lid + {}) % {}]", uint(u.param), uint(p.local_size))
        }
        UbKind::InactiveLaneRead => format!("shuffleNV(gid, {}, 32u)", uint(u.param)),
        UbKind::OversizeShift => format!("(gid << (lid + {}))", uint(u.param)),
        UbKind::DivByZero => "(gid / (lid >> 8u))".to_string(),
    };
    body.line(&format!("b{k}[gid] = {value};"));
}

fn compute(body: &mut Body, k: usize, c: &ComputeBlock) {
    body.open("{");
    body.line(&format!(
        "uint v0 = gid, v1 = lid, v2 = wg, v3 = {};",
        uint(c.seed)
    ));
    stmts(body, &c.stmts, 0);
    for v in 0..VARS {
        body.line(&format!("b{k}[{}u * gid + {v}u] = v{v};", VARS));
    }
    body.close("}");
}

/// `v<v> = e;`, or where `e` reads `v<v> <op> x` the compound assignment (`v0 += x;`,
/// `v0 <<= (x & 31u);`) or, for `+ 1` and `- 1`, the increment and decrement operators
/// (GLSL 4.60 section 5.8 and 5.9: the same value, another syntax and another path through a
/// compiler's front end).
fn assignment(v: u8, e: &Expr) -> String {
    if let Expr::Bin(op, a, b) = e {
        if **a == Expr::Var(v) {
            let x = expr(b);
            match (op, &**b) {
                (BinOp::Add, Expr::Const(1)) => return format!("v{v}++;"),
                (BinOp::Sub, Expr::Const(1)) => return format!("--v{v};"),
                (BinOp::Add, _) => return format!("v{v} += {x};"),
                (BinOp::Sub, _) => return format!("v{v} -= {x};"),
                (BinOp::Mul, _) => return format!("v{v} *= {x};"),
                (BinOp::And, _) => return format!("v{v} &= {x};"),
                (BinOp::Or, _) => return format!("v{v} |= {x};"),
                (BinOp::Xor, _) => return format!("v{v} ^= {x};"),
                (BinOp::Shl, _) => return format!("v{v} <<= ({x} & 31u);"),
                (BinOp::ShrU, _) => return format!("v{v} >>= ({x} & 31u);"),
                _ => {}
            }
        }
    }
    format!("v{v} = {};", expr(e))
}

fn stmts(body: &mut Body, ss: &[Stmt], loops: usize) {
    for s in ss {
        match s {
            Stmt::Assign(v, e) => body.line(&assignment(*v, e)),
            Stmt::If(c, a, b) => {
                body.open(&format!("if ({} != 0u) {{", expr(c)));
                stmts(body, a, loops);
                if b.is_empty() {
                    body.close("}");
                } else {
                    body.close("} else {");
                    body.depth += 1;
                    stmts(body, b, loops);
                    body.close("}");
                }
            }
            Stmt::Loop(n, inner) => {
                body.open(&format!(
                    "for (uint i{loops} = 0u; i{loops} < {}; i{loops}++) {{",
                    uint(*n)
                ));
                stmts(body, inner, loops + 1);
                body.close("}");
            }
            Stmt::Break => body.line("break;"),
            Stmt::Continue => body.line("continue;"),
            Stmt::Call(inner) => {
                let name = format!("fz_call{}", body.functions.len());
                // The callee's own callees are defined first (GLSL wants a function declared
                // before its use).
                let mut f = Body {
                    functions: std::mem::take(&mut body.functions),
                    ..Body::default()
                };
                f.functions.push(String::new());
                let at = f.functions.len() - 1;
                stmts(&mut f, inner, 0);
                let mut functions = f.functions;
                functions[at] = format!(
                    "void {name}(inout uint v0, inout uint v1, inout uint v2, inout uint v3, uint lid, uint gid, uint wg) {{\n{}}}\n",
                    f.text
                );
                body.functions = functions;
                body.statements += f.statements;
                body.line(&format!("{name}(v0, v1, v2, v3, lid, gid, wg);"));
            }
        }
    }
}

/// The helper functions a shader may call (`fz_<name>(`), each defined only where the spec
/// defines the operation: they replace exactly the operands `model::div_operands` replaces.
const HELPERS: [(&str, &str); 8] = [
    (
        "fz_carry(",
        "uint fz_carry(uint a, uint b) { uint c; uaddCarry(a, b, c); return c; }",
    ),
    (
        "fz_borrow(",
        "uint fz_borrow(uint a, uint b) { uint c; usubBorrow(a, b, c); return c; }",
    ),
    ("fz_divu(", "uint fz_divu(uint a, uint b) { return a / (b == 0u ? 1u : b); }"),
    ("fz_remu(", "uint fz_remu(uint a, uint b) { return a % (b == 0u ? 1u : b); }"),
    (
        "fz_divs(",
        "uint fz_divs(uint a, uint b) { int d = (b == 0u || (a == 0x80000000u && b == 0xFFFFFFFFu)) ? 1 : int(b); return uint(int(a) / d); }",
    ),
    (
        "fz_rems(",
        "uint fz_rems(uint a, uint b) { return uint(int(a & 0x7FFFFFFFu) % (int(b) < 1 ? 1 : int(b))); }",
    ),
    (
        "fz_mulhiu(",
        "uint fz_mulhiu(uint a, uint b) { uint hi, lo; umulExtended(a, b, hi, lo); return hi; }",
    ),
    (
        "fz_mulhis(",
        "uint fz_mulhis(uint a, uint b) { int hi, lo; imulExtended(int(a), int(b), hi, lo); return uint(hi); }",
    ),
];

/// A division or remainder: with a literal divisor the spec defines for every dividend, the
/// plain operator (so compilers see the constant divisors they strength-reduce); otherwise the
/// helper that replaces only the undefined operands.
fn division(op: BinOp, a: &str, b: &Expr) -> String {
    match (op, b) {
        (BinOp::DivU, Expr::Const(c)) if *c != 0 => format!("({a} / {})", uint(*c)),
        (BinOp::RemU, Expr::Const(c)) if *c != 0 => format!("({a} % {})", uint(*c)),
        (BinOp::DivS, Expr::Const(c)) if *c != 0 && *c != u32::MAX => {
            format!("uint(int({a}) / {})", int(*c))
        }
        (BinOp::RemS, Expr::Const(c)) if (*c as i32) > 0 => {
            format!("uint(int({a} & 0x7FFFFFFFu) % {})", int(*c))
        }
        _ => format!("fz_{}({a}, {})", op.name(), expr(b)),
    }
}

/// An expression, fully parenthesised, as a `uint`.
pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Const(c) => uint(*c),
        Expr::Lid => "lid".into(),
        Expr::Gid => "gid".into(),
        Expr::Wg => "wg".into(),
        Expr::LocalId(d) => format!("gl_LocalInvocationID.{}", xyz(*d)),
        Expr::GroupId(d) => format!("gl_WorkGroupID.{}", xyz(*d)),
        Expr::Ticket => "t".into(),
        Expr::Var(v) => format!("v{v}"),
        Expr::LoopIdx(d) => format!("i{d}"),
        Expr::Un(UnOp::Not, a) => format!("(~{})", expr(a)),
        Expr::Un(UnOp::Neg, a) => format!("(-{})", expr(a)),
        Expr::Un(UnOp::BitCount, a) => format!("uint(bitCount({}))", expr(a)),
        Expr::Un(UnOp::BitReverse, a) => format!("bitfieldReverse({})", expr(a)),
        Expr::Un(UnOp::FindLsb, a) => format!("uint(findLSB({}))", expr(a)),
        Expr::Un(UnOp::FindMsb, a) => format!("uint(findMSB({}))", expr(a)),
        Expr::Un(UnOp::FindMsbS, a) => format!("uint(findMSB(int({})))", expr(a)),
        Expr::Un(UnOp::AbsS, a) => format!("uint(abs(max(int({}), -2147483647)))", expr(a)),
        Expr::Un(UnOp::SignS, a) => format!("uint(sign(int({})))", expr(a)),
        Expr::Un(UnOp::LNot, a) => format!("uint(!({} != 0u))", expr(a)),
        Expr::Clamp {
            value,
            lo,
            hi,
            signed: false,
        } => format!("clamp({}, {}, {})", expr(value), uint(*lo), uint(*hi)),
        Expr::Clamp { value, lo, hi, .. } => format!(
            "uint(clamp(int({}), {}, {}))",
            expr(value),
            int(*lo),
            int(*hi)
        ),
        Expr::Extract {
            value,
            offset,
            bits,
            signed: false,
        } => format!("bitfieldExtract({}, {offset}, {bits})", expr(value)),
        Expr::Extract {
            value,
            offset,
            bits,
            ..
        } => {
            format!(
                "uint(bitfieldExtract(int({}), {offset}, {bits}))",
                expr(value)
            )
        }
        Expr::Insert {
            base,
            insert,
            offset,
            bits,
        } => format!(
            "bitfieldInsert({}, {}, {offset}, {bits})",
            expr(base),
            expr(insert)
        ),
        Expr::Select(c, a, b) => format!("({} != 0u ? {} : {})", expr(c), expr(a), expr(b)),
        Expr::FToI {
            value,
            round,
            to,
            sat,
        } => f_to_i(value, *round, *to, *sat),
        Expr::Wide(w) => crate::features::wide::glsl(w, &expr(&w.a), &expr(&w.b)),
        Expr::Bin(op @ (BinOp::DivU | BinOp::RemU | BinOp::DivS | BinOp::RemS), a, b) => {
            division(*op, &expr(a), b)
        }
        Expr::Bin(BinOp::MulHiU, a, b) => format!("fz_mulhiu({}, {})", expr(a), expr(b)),
        Expr::Bin(BinOp::MulHiS, a, b) => format!("fz_mulhis({}, {})", expr(a), expr(b)),
        Expr::Bin(BinOp::Carry, a, b) => format!("fz_carry({}, {})", expr(a), expr(b)),
        Expr::Bin(BinOp::Borrow, a, b) => format!("fz_borrow({}, {})", expr(a), expr(b)),
        Expr::Bin(op, a, b) => {
            let (a, b) = (expr(a), expr(b));
            match op {
                // The component-wise operators, spelled as for vectors.
                BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::And
                | BinOp::Or
                | BinOp::Xor
                | BinOp::Shl
                | BinOp::ShrU
                | BinOp::ShrS
                | BinOp::MinU
                | BinOp::MaxU
                | BinOp::MinS
                | BinOp::MaxS => glsl_bin(*op, &a, &b, false),
                BinOp::DivU
                | BinOp::RemU
                | BinOp::DivS
                | BinOp::RemS
                | BinOp::MulHiU
                | BinOp::MulHiS
                | BinOp::Carry
                | BinOp::Borrow => unreachable!("written above"),
                BinOp::SRem | BinOp::SMod => {
                    unreachable!("Program::check keeps OpSRem and OpSMod in SPIR-V")
                }
                BinOp::LtU => format!("uint({a} < {b})"),
                BinOp::LtS => format!("uint(int({a}) < int({b}))"),
                BinOp::Eq => format!("uint({a} == {b})"),
                BinOp::Ne => format!("uint({a} != {b})"),
                BinOp::LeU => format!("uint({a} <= {b})"),
                BinOp::LeS => format!("uint(int({a}) <= int({b}))"),
                BinOp::GtU => format!("uint({a} > {b})"),
                BinOp::GtS => format!("uint(int({a}) > int({b}))"),
                BinOp::GeU => format!("uint({a} >= {b})"),
                BinOp::GeS => format!("uint(int({a}) >= int({b}))"),
                BinOp::LAnd => format!("uint({a} != 0u && {b} != 0u)"),
                BinOp::LOr => format!("uint({a} != 0u || {b} != 0u)"),
                BinOp::LXor => format!("uint({a} != 0u ^^ {b} != 0u)"),
                BinOp::AbsDiffU => format!("(max({a}, {b}) - min({a}, {b}))"),
                BinOp::AbsDiffS => {
                    format!("uint(max(int({a}), int({b})) - min(int({a}), int({b})))")
                }
                BinOp::Mul24U => format!("(({a} & 0xFFFFFFu) * ({b} & 0xFFFFFFu))"),
                BinOp::Mul24S => format!(
                    "uint(bitfieldExtract(int({a}), 0, 24) * bitfieldExtract(int({b}), 0, 24))"
                ),
            }
        }
    }
}

/// A float expression, fully parenthesised, as a `float`.
fn fexpr(f: &FExpr) -> String {
    match f {
        FExpr::Int(l) => {
            let (x, bits) = (expr(&l.value), l.bits);
            let v = if l.signed {
                format!("float(bitfieldExtract(int({x}), 0, {bits}))")
            } else {
                format!("float(bitfieldExtract({x}, 0, {bits}))")
            };
            match l.scale {
                0 => v,
                s => format!("({v} * {})", power_of_two(s)),
            }
        }
        FExpr::Bin(op, a, b) => {
            let sym = match op {
                FOp::Add => "+",
                FOp::Sub => "-",
                FOp::Mul => "*",
            };
            format!("({} {sym} {})", fexpr(a), fexpr(b))
        }
        FExpr::Fma(a, b, c) => format!("fma({}, {}, {})", fexpr(a), fexpr(b), fexpr(c)),
        FExpr::Sat(a) => format!("clamp({}, 0.0, 1.0)", fexpr(a)),
    }
}

/// A float rounded and converted to `to` (GLSL 4.60 section 5.4.1: `int()` truncates; it and
/// `uint()` are defined only in range, which `FExpr::exact` keeps every value in; `uint()` of
/// a negative float is undefined, so `uint()` only reads a clamped value), as a `uint`.
fn f_to_i(value: &FExpr, round: Round, to: IntTy, sat: bool) -> String {
    let f = fexpr(value);
    let rounded = match round {
        Round::Trunc => f,
        Round::Floor => format!("floor({f})"),
        Round::Ceil => format!("ceil({f})"),
        Round::Even => format!("roundEven({f})"),
    };
    // `int()` of the rounded value (truncation changes nothing more).
    let i = format!("int({rounded})");
    let (lo, hi) = to.range();
    match (to, sat) {
        (IntTy::S32, _) | (IntTy::U32, false) => format!("uint({i})"),
        (IntTy::U32, true) => format!("uint(max({rounded}, 0.0))"),
        (_, true) => format!("uint(clamp({i}, {lo}, {hi}))"),
        (IntTy::S16 | IntTy::S8, false) => {
            format!("uint(bitfieldExtract({i}, 0, {}))", to.bits())
        }
        (_, false) => format!("(uint({i}) & {})", uint(hi as u32)),
    }
}
