//! NV assembly declarations: OPTION, GROUP_SIZE, SHARED_MEMORY, TEMP (and TEMP arrays),
//! PARAM (and PARAM arrays), ATTRIB (invocation attributes), ALIAS, BUFFER/BUFFER4, STORAGE,
//! SHARED, with their load-failure rules, and the `program.*` / `invocation.*` bindings they
//! use.

use super::types::VarType;
use super::{diag, unsupported, upper, Cx, Res, Sym, R_DECL, R_GRAMMAR, R_SHARED_VARS};
use crate::front::nvasm::lexer::Tok;
use crate::ir::{Builtin, Dst, Kind, MemTy, Reg, ScalarTy, Space, Src};
use crate::LIMITS;

impl Cx {
    /// Declares `name` as `s`, with the modifiers of the declaration being read (none outside
    /// TEMP / PARAM / ATTRIB).
    fn declare(&mut self, name: &str, s: Sym, l: u32, c: u32) -> Res<()> {
        if self.decl_type != VarType::default() {
            self.var_types.insert(name.to_string(), self.decl_type);
        }
        if self.syms.contains_key(name) {
            return Err(diag(
                l,
                c,
                format!("\"{name}\" is already declared {R_GRAMMAR}"),
            ));
        }
        if matches!(
            upper(name).as_str(),
            "END" | "TEMP" | "PARAM" | "OPTION" | "PROGRAM" | "INVOCATION" | "STATE"
        ) {
            return Err(diag(
                l,
                c,
                format!("\"{name}\" is a reserved word {R_GRAMMAR}"),
            ));
        }
        self.syms.insert(name.to_string(), s);
        Ok(())
    }

    /// `OPTION name;`
    pub(super) fn option(&mut self) -> Res<()> {
        self.next();
        let (l, c) = self.here();
        let name = self.ident("an option name")?;
        const OTHER: [&str; 9] = [
            "NV_gpu_program_fp64",
            "NV_shader_atomic_float64",
            "NV_shader_atomic_fp16_vector",
            "NV_shader_atomic_counters",
            "NV_bindless_texture",
            "NV_shader_thread_group",
            "NV_shader_buffer_load",
            "NV_shader_buffer_store",
            "NV_gpu_program5_mem_extended",
        ];
        if let Some(o) = OTHER.iter().find(|o| **o == name) {
            self.opt_other.push(o);
        }
        match name.as_str() {
            "NV_shader_thread_shuffle" => self.opt_shuffle = true,
            "NV_shader_atomic_float" => self.opt_afloat = true,
            "NV_shader_atomic_int64" => self.opt_aint64 = true,
            "NV_shader_storage_buffer" => self.opt_ssbo = true,
            // Options of other extensions the reference accepts; the features they
            // enable are refused where used.
            "NV_gpu_program_fp64"
            | "NV_shader_atomic_float64"
            | "NV_shader_atomic_fp16_vector"
            | "NV_shader_atomic_counters"
            | "NV_bindless_texture"
            | "NV_shader_thread_group"
            | "NV_shader_buffer_load"
            | "NV_shader_buffer_store"
            | "NV_gpu_program5_mem_extended" => {}
            _ => {
                return Err(diag(
                    l,
                    c,
                    format!(
                        "unknown program option \"{name}\" (NV_gpu_program4, \"Program Options\")"
                    ),
                ));
            }
        }
        self.end_stmt()
    }

    /// `SHARED_MEMORY n;`: at most one, within the shared memory limit.
    pub(super) fn shared_memory_decl(&mut self) -> Res<()> {
        let (l, c) = self.here();
        self.next();
        let v = self.int_u32("after SHARED_MEMORY")?;
        if let Some((_, first)) = self.shared_mem {
            return Err(diag(l, c, format!("second SHARED_MEMORY declaration (the first is at line {first}): a program may have at most one {R_DECL}")));
        }
        if v > LIMITS.max_shared_memory_size {
            return Err(diag(l, c, format!("SHARED_MEMORY {v} exceeds the shared memory limit MAX_COMPUTE_SHARED_MEMORY_SIZE ({}) {R_DECL}", LIMITS.max_shared_memory_size)));
        }
        self.shared_mem = Some((v, l));
        self.end_stmt()
    }

    /// `ALIAS name = established;`
    pub(super) fn alias_decl(&mut self) -> Res<()> {
        self.next();
        let (l, c) = self.here();
        let name = self.ident("a name")?;
        self.expect_sym('=', "in ALIAS")?;
        let (l2, c2) = self.here();
        let target = self.ident("an established name")?;
        let Some(s) = self.syms.get(&target).cloned() else {
            return Err(diag(
                l2,
                c2,
                format!("ALIAS of undeclared name \"{target}\" {R_GRAMMAR}"),
            ));
        };
        self.declare(&name, s, l, c)?;
        if let Some(vt) = self.var_types.get(&target).copied() {
            self.var_types.insert(name, vt);
        }
        self.end_stmt()
    }

    pub(super) fn group_size_decl(&mut self) -> Res<()> {
        let (l, c) = self.here();
        self.next();
        let mut dims = Vec::new();
        while let Tok::Int(_) = self.peek().tok {
            let (vl, vc) = self.here();
            let v = self.int("in GROUP_SIZE")?;
            dims.push((v, vl, vc));
            if self.is_sym(',') {
                return self.err(format!("GROUP_SIZE sizes are separated by spaces, not commas: the grammar is \"GROUP_SIZE\" <int> [<int> [<int>]] {R_DECL}"));
            }
        }
        if dims.is_empty() || dims.len() > 3 {
            return Err(diag(
                l,
                c,
                format!(
                    "GROUP_SIZE takes one to three sizes, found {} {R_DECL}",
                    dims.len()
                ),
            ));
        }
        if !self.is_sym(';') {
            let d = Self::describe(&self.peek().tok);
            return self.err(format!(
                "GROUP_SIZE takes one to three space-separated integer sizes; found {d} {R_DECL}"
            ));
        }
        if let Some((_, first)) = self.group_size {
            return Err(diag(l, c, format!("second GROUP_SIZE declaration (the first is at line {first}): a program must have exactly one {R_DECL}")));
        }
        let mut size = [1u32; 3];
        for (i, (v, vl, vc)) in dims.iter().enumerate() {
            let lim = LIMITS.max_work_group_size[i];
            let axis = ["x", "y", "z"][i];
            if *v == 0 {
                return Err(diag(
                    *vl,
                    *vc,
                    format!("GROUP_SIZE {axis} size must be at least 1 {R_DECL}"),
                ));
            }
            if *v > u64::from(lim) {
                return Err(diag(*vl, *vc, format!("GROUP_SIZE {axis} size {v} exceeds MAX_COMPUTE_WORK_GROUP_SIZE[{i}] ({lim}) {R_DECL}")));
            }
            size[i] = *v as u32;
        }
        let total = u64::from(size[0]) * u64::from(size[1]) * u64::from(size[2]);
        if total > u64::from(LIMITS.max_work_group_invocations) {
            return Err(diag(l, c, format!("GROUP_SIZE {}x{}x{} has {total} invocations, above MAX_COMPUTE_WORK_GROUP_INVOCATIONS ({}) (ARB_compute_shader, \"Compute Shaders\")", size[0], size[1], size[2], LIMITS.max_work_group_invocations)));
        }
        self.group_size = Some((size, l));
        self.end_stmt()
    }
    /// `[INT|UINT|FLOAT] [SHORT|LONG] TEMP|PARAM|ATTRIB|BUFFER|BUFFER4 ...`: the variables
    /// declared get the modifiers' type (`types`).
    pub(super) fn naming_statement(&mut self) -> Res<()> {
        let (vt, w, l, c) = self.declaration_modifiers()?;
        if !w.starts_with("BUFFER") {
            self.decl_type = vt;
        }
        let r = self.naming_body(&w, vt.kind.filter(|k| *k != Kind::F), l, c);
        self.decl_type = VarType::default();
        r
    }

    fn naming_body(&mut self, w: &str, int_kind: Option<Kind>, l: u32, c: u32) -> Res<()> {
        match w {
            "TEMP" => {
                loop {
                    let (nl, nc) = self.here();
                    let name = self.ident("a TEMP name")?;
                    if self.eat_sym('[') {
                        let (al, ac) = self.here();
                        let len = self.int_u32("as the TEMP array size")?;
                        self.expect_sym(']', "after the TEMP array size")?;
                        let bytes = u64::from(len) * 32;
                        if len == 0 || u64::from(self.private_size) + bytes > u64::from(crate::ir::validate::MAX_PRIVATE_SIZE) {
                            return Err(diag(al, ac, format!("TEMP array size {len} is zero or above the reference's limit of {} bytes of arrays per invocation", crate::ir::validate::MAX_PRIVATE_SIZE)));
                        }
                        let base = self.private_size;
                        self.private_size += bytes as u32;
                        // Undefined like any temporary until written (each element's
                        // components apart): marked in the prologue, flagged where used.
                        self.pro.push(crate::ir::Inst::MarkPrivateUndefined {
                            off: base,
                            size: bytes as u32,
                        });
                        self.declare(&name, Sym::TempArray { base, len }, nl, nc)?;
                    } else {
                        let r = self.b.reg();
                        // NV_gpu_program4 section 2.X.3.4: temporaries "are undefined at the
                        // beginning of each program invocation" (the reference reads 0):
                        // marked in the prologue, flagged where used.
                        self.mark_unset(Dst::new(r));
                        self.declare(&name, Sym::Temp(r), nl, nc)?;
                    }
                    if !self.eat_sym(',') {
                        break;
                    }
                }
                self.end_stmt()
            }
            "PARAM" => self.param_decl(int_kind),
            "ATTRIB" => {
                let (nl, nc) = self.here();
                let name = self.ident("an ATTRIB name")?;
                self.expect_sym('=', "in ATTRIB")?;
                let (bl, bc) = self.here();
                let first = self.ident("an attribute binding")?;
                if first != "invocation" {
                    return Err(diag(bl, bc, format!("compute programs have only invocation.* attributes, not \"{first}\" (NV_compute_program5, \"Program Attribute Variables\")")));
                }
                let r = self.invocation_attr()?;
                self.declare(&name, Sym::Param(r), nl, nc)?;
                self.end_stmt()
            }
            "BUFFER" | "BUFFER4" => self.buffer_decl(if w == "BUFFER" { 4 } else { 16 }),
            _ => Err(diag(l, c, format!("expected TEMP, PARAM, ATTRIB or BUFFER after a variable modifier, found \"{w}\" {R_GRAMMAR}"))),
        }
    }

    /// After `invocation`: `.name`; returns the builtin's register.
    pub(super) fn invocation_attr(&mut self) -> Res<Reg> {
        self.expect_sym('.', "after \"invocation\"")?;
        let (l, c) = self.here();
        let n = self.ident("an invocation attribute")?;
        let (key, which): (&'static str, Builtin) = match n.as_str() {
            "localid" => ("localid", Builtin::LocalId),
            "globalid" => ("globalid", Builtin::GlobalId),
            "groupid" => ("groupid", Builtin::GroupId),
            "groupcount" => ("groupcount", Builtin::GroupCount),
            "groupsize" => ("groupsize", Builtin::GroupSize),
            "localindex" => ("localindex", Builtin::LocalIndex),
            // NV_shader_thread_group's attributes: valid programs the reference does not run.
            "threadid" | "threadeqmask" | "threadltmask" | "threadlemask" | "threadgtmask"
            | "threadgemask" | "warpid" | "smid"
                if self.opt_other.contains(&"NV_shader_thread_group") =>
            {
                return Err(unsupported(
                    l,
                    c,
                    format!("the attribute \"invocation.{n}\" (NV_shader_thread_group) is not modeled by the reference"),
                ));
            }
            _ => {
                return Err(diag(l, c, format!("unknown attribute \"invocation.{n}\"; compute programs have localid, globalid, groupid, groupcount, groupsize and localindex (NV_compute_program5, Table X.1)")));
            }
        };
        Ok(self.builtin_reg(key, which))
    }

    /// `program.local[...]` / `program.env[...]` / `program.storagelen[...]` after "program":
    /// returns (space, first, last); the space is None for storagelen (always 0 for assembly).
    pub(super) fn program_param(&mut self) -> Res<(Option<Space>, u32, u32)> {
        self.expect_sym('.', "after \"program\"")?;
        let (l, c) = self.here();
        let n = self.ident("\"local\" or \"env\"")?;
        let space = match n.as_str() {
            "local" => Some(Space::ProgramLocal),
            "env" => Some(Space::ProgramEnv),
            // NV_shader_storage_buffer_object: "If the program is an assembly program ... the
            // x component will hold the integer value zero."
            "storagelen" => None,
            "storage" | "sharedmem" | "buffer" => {
                return Err(diag(l, c, format!("\"program.{n}\" bindings can only initialize {} declarations, not be used here {R_GRAMMAR}", match n.as_str() { "storage" => "STORAGE", "sharedmem" => "SHARED", _ => "BUFFER" })));
            }
            _ => {
                return Err(diag(
                    l,
                    c,
                    format!("unknown program parameter binding \"program.{n}\" {R_GRAMMAR}"),
                ))
            }
        };
        self.expect_sym('[', "after the parameter binding")?;
        let a = self.int_u32("as a parameter index")?;
        let b = if self.peek().tok == Tok::DotDot {
            self.next();
            self.int_u32("as a parameter range end")?
        } else {
            a
        };
        self.expect_sym(']', "after the parameter index")?;
        if b < a {
            return Err(diag(
                l,
                c,
                format!("parameter range [{a}..{b}] is empty {R_GRAMMAR}"),
            ));
        }
        if b >= 65536 {
            return Err(diag(
                l,
                c,
                format!("parameter index {b} is above the reference's limit of 65535"),
            ));
        }
        Ok((space, a, b))
    }

    pub(super) fn param_load(&mut self, space: Option<Space>, index: u32) -> Reg {
        let Some(space) = space else {
            return self.b.interned_constant([0; 4]);
        };
        let r = self.b.reg();
        let addr = self.b.interned_constant([u64::from(index) * 16, 0, 0, 0]);
        self.pro.load(
            space,
            MemTy::new(ScalarTy::U32, 4),
            Dst::new(r),
            Src::new(addr),
        );
        r
    }

    fn param_decl(&mut self, kind: Option<Kind>) -> Res<()> {
        let (nl, nc) = self.here();
        let name = self.ident("a PARAM name")?;
        let array = if self.eat_sym('[') {
            let n = if let Tok::Int(_) = self.peek().tok {
                Some(self.int_u32("as the array size")?)
            } else {
                None
            };
            self.expect_sym(']', "after the array size")?;
            Some(n)
        } else {
            None
        };
        self.expect_sym('=', "in PARAM")?;
        match array {
            None => {
                let r = if let Tok::Ident(w) = self.peek().tok.clone() {
                    let (l, c) = self.here();
                    self.next();
                    if w == "program" {
                        let (space, a, b) = self.program_param()?;
                        if a != b {
                            return Err(diag(
                                l,
                                c,
                                format!(
                                    "a single PARAM takes one parameter, not a range {R_GRAMMAR}"
                                ),
                            ));
                        }
                        self.param_load(space, a)
                    } else if w == "state" {
                        return Err(unsupported(l, c, "state.* bindings are not available to compute programs on the reference".into()));
                    } else {
                        return Err(diag(l, c, format!("expected a constant or a program parameter binding, found \"{w}\" {R_GRAMMAR}")));
                    }
                } else {
                    let v = self.literal_vec(kind)?;
                    self.b.constant(v)
                };
                self.declare(&name, Sym::Param(r), nl, nc)?;
            }
            Some(size) => {
                self.expect_sym('{', "to open the PARAM array initializer")?;
                let mut regs = Vec::new();
                loop {
                    if let Tok::Ident(w) = self.peek().tok.clone() {
                        let (l, c) = self.here();
                        self.next();
                        if w != "program" {
                            return Err(diag(l, c, format!("expected a constant or a program parameter binding, found \"{w}\" {R_GRAMMAR}")));
                        }
                        let (space, a, b) = self.program_param()?;
                        for i in a..=b {
                            let r = self.param_load(space, i);
                            regs.push(r);
                        }
                    } else {
                        let v = self.literal_vec(kind)?;
                        let r = self.b.constant(v);
                        regs.push(r);
                    }
                    if regs.len() > 4096
                        || self.private_size as usize + 16 * regs.len()
                            > crate::ir::validate::MAX_PRIVATE_SIZE as usize
                    {
                        return self.err(
                            "PARAM array above the reference's limit of 4096 elements".into(),
                        );
                    }
                    if !self.eat_sym(',') {
                        break;
                    }
                }
                self.expect_sym('}', "to close the PARAM array initializer")?;
                if let Some(n) = size {
                    if n as usize != regs.len() {
                        return Err(diag(nl, nc, format!("PARAM array \"{name}\" declares {n} elements but its initializer has {} (ARB_vertex_program, \"Program Parameters\")", regs.len())));
                    }
                }
                let private_base = self.private_size;
                for (i, r) in regs.iter().enumerate() {
                    let addr = self.b.interned_constant([
                        u64::from(private_base) + 16 * i as u64,
                        0,
                        0,
                        0,
                    ]);
                    self.pro.store(
                        Space::Private,
                        MemTy::new(ScalarTy::U32, 4),
                        Src::new(addr),
                        Src::new(*r),
                    );
                }
                self.private_size += 16 * regs.len() as u32;
                self.declare(&name, Sym::ParamArray { regs, private_base }, nl, nc)?;
            }
        }
        self.end_stmt()
    }

    fn buffer_decl(&mut self, elem: u32) -> Res<()> {
        let (name, nl, nc, braces) = self.binding_decl_head("BUFFER")?;
        let (binding, base) = self.binding_ref("buffer", "BUFFER")?;
        if braces {
            self.close_single_binding("BUFFER")?;
        }
        let other_kind = self.syms.values().any(
            |s| matches!(s, Sym::Buffer { binding: b, elem: e, .. } if *b == binding && *e != elem),
        );
        if other_kind {
            return Err(diag(nl, nc, format!("BUFFER and BUFFER4 variables both use program.buffer[{binding}] (NV_gpu_program4, 2.X.3.6 \"Program Parameter Buffers\")")));
        }
        self.declare(
            &name,
            Sym::Buffer {
                binding,
                elem,
                base: base.0 as u32,
            },
            nl,
            nc,
        )?;
        self.end_stmt()
    }

    /// The head of a BUFFER, STORAGE or SHARED declaration up to its bindings: `name =`, or
    /// the array form `name[] = {` / `name[n] = {` (the size is not checked: the bindings
    /// decide). Returns the name, where it stands, and whether the array form opened a brace.
    fn binding_decl_head(&mut self, decl: &str) -> Res<(String, u32, u32, bool)> {
        let (nl, nc) = self.here();
        let name = self.ident(&format!("a {decl} name"))?;
        let in_decl = format!("in {decl}");
        let braces = if self.eat_sym('[') {
            if let Tok::Int(_) = self.peek().tok {
                self.int("as the array size")?;
            }
            self.expect_sym(']', "after the array size")?;
            self.expect_sym('=', &in_decl)?;
            self.expect_sym('{', &format!("to open the {decl} initializer"))?;
            true
        } else {
            self.expect_sym('=', &in_decl)?;
            false
        };
        Ok((name, nl, nc, braces))
    }

    /// Closes the array form of a BUFFER or STORAGE declaration after its one binding: the
    /// reference does not support arrays over several binding points.
    fn close_single_binding(&mut self, decl: &str) -> Res<()> {
        if self.is_sym(',') {
            let (l, c) = self.here();
            return Err(unsupported(
                l,
                c,
                format!(
                    "{decl} arrays over several binding points are not supported by the reference"
                ),
            ));
        }
        self.expect_sym('}', &format!("to close the {decl} initializer"))
    }

    /// `program.<what>[binding]` with an optional `[a]` / `[a..b]` element range. Returns the
    /// binding and (first element, last element or None).
    fn binding_ref(&mut self, what: &str, decl: &str) -> Res<(u32, (u64, Option<u64>))> {
        let (l, c) = self.here();
        let w = self.ident("a binding")?;
        if w != "program" {
            return Err(diag(l, c, format!("a {decl} declaration needs a \"program.{what}\" binding, found \"{w}\" {R_GRAMMAR}")));
        }
        self.expect_sym('.', "after \"program\"")?;
        let (l2, c2) = self.here();
        let w2 = self.ident("a binding name")?;
        if w2 != what {
            return Err(diag(l2, c2, format!("a {decl} declaration needs a \"program.{what}\" binding, found \"program.{w2}\" {R_GRAMMAR}")));
        }
        self.expect_sym('[', "after the binding name")?;
        let binding = self.int_u32("as the binding point")?;
        if self.peek().tok == Tok::DotDot {
            let (l3, c3) = self.here();
            self.next();
            // "A program using any of these bindings will fail to load if <a> is greater than
            // <b>" (NV_gpu_program4 2.X.3.3; NV_shader_storage_buffer_object likewise).
            if let Tok::Int(b) = self.peek().tok {
                if u64::from(binding) > b {
                    return Err(diag(l3, c3, format!("program.{what}[{binding}..{b}]: the first binding point is greater than the last {R_GRAMMAR}")));
                }
            }
            return Err(unsupported(l3, c3, format!("program.{what}[a..b] ranges of binding points are not supported by the reference")));
        }
        self.expect_sym(']', "after the binding point")?;
        let mut range = (0u64, None);
        if self.eat_sym('[') {
            let a = self.int("as the element")?;
            let b = if self.peek().tok == Tok::DotDot {
                self.next();
                Some(self.int("as the range end")?)
            } else {
                None
            };
            self.expect_sym(']', "after the element")?;
            range = (a, b);
        }
        Ok((binding, range))
    }

    pub(super) fn storage_decl(&mut self) -> Res<()> {
        if self.first_ssbo_use.is_none() {
            let (l, c) = self.here();
            self.first_ssbo_use = Some((l, c, "STORAGE"));
        }
        self.next();
        let (name, nl, nc, braces) = self.binding_decl_head("STORAGE")?;
        let (binding, (base, _)) = self.binding_ref("storage", "STORAGE")?;
        if braces {
            self.close_single_binding("STORAGE")?;
        }
        self.declare(&name, Sym::Storage { binding, base }, nl, nc)?;
        self.end_stmt()
    }

    pub(super) fn shared_decl(&mut self) -> Res<()> {
        self.next();
        let (name, nl, nc, braces) = self.binding_decl_head("SHARED")?;
        // Items: program.sharedmem[a], program.sharedmem[a..b], program.sharedmem (all). Several
        // items bind their elements in order; the reference supports lists whose items are
        // contiguous (each starts where the previous one ended), which is one range.
        let mut base = 0u32;
        let mut next: Option<Option<u32>> = None; // expected start of the next item
        loop {
            let (l, c) = self.here();
            let w = self.ident("a program.sharedmem binding")?;
            self.expect_sym('.', "after \"program\"")?;
            let w2 = self.ident("\"sharedmem\"")?;
            if w != "program" || w2 != "sharedmem" {
                return Err(diag(l, c, format!("a SHARED declaration needs a \"program.sharedmem\" binding, found \"{w}.{w2}\" {R_SHARED_VARS}")));
            }
            let (a, end) = if self.eat_sym('[') {
                let a = self.int_u32("as the shared memory element")?;
                let mut e = a;
                if self.peek().tok == Tok::DotDot {
                    if !braces {
                        return self.err(format!("a range program.sharedmem[a..b] needs the array form SHARED name[] = {{ ... }} {R_SHARED_VARS}"));
                    }
                    self.next();
                    e = self.int_u32("as the range end")?;
                    if e < a {
                        return Err(diag(
                            l,
                            c,
                            format!("shared memory range [{a}..{e}] is empty {R_SHARED_VARS}"),
                        ));
                    }
                }
                self.expect_sym(']', "after the shared memory element")?;
                (a, Some(e))
            } else if !braces {
                return self.err(format!("\"program.sharedmem\" without an element needs the array form SHARED name[] = {{ program.sharedmem }} {R_SHARED_VARS}"));
            } else {
                (0, None)
            };
            match next {
                None => base = a,
                Some(Some(expected)) if expected == a => {}
                Some(_) => {
                    return Err(unsupported(l, c, "SHARED initializers whose items are not contiguous are not supported by the reference".into()));
                }
            }
            next = Some(end.and_then(|e| e.checked_add(1)));
            if !(braces && self.eat_sym(',')) {
                break;
            }
        }
        if braces {
            self.expect_sym('}', "to close the SHARED initializer")?;
        }
        self.declare(&name, Sym::Shared { base }, nl, nc)?;
        self.end_stmt()
    }
}
