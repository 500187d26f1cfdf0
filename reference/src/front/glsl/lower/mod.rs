//! Type checking and lowering of GLSL compute shaders into the IR.
//!
//! Representation: scalars and vectors live in registers (one per variable; every read copies
//! into a fresh register so that side effects later in an expression cannot change an operand
//! already evaluated). Arrays and structs live in memory: buffer blocks in `Storage`/`Uniform`,
//! `shared` variables in `Shared`, and local/global aggregates and aggregate temporaries in
//! `Private` (each function's aggregates at their own static offsets: GLSL has no recursion).
//! Constant expressions are folded with the executor's own arithmetic (`exec::values`), so a
//! folded value is exactly what the instruction would have computed.
//! Functions are IR subroutines (`Call`/`Return`) with registers per parameter.
//! Dynamic indices into sized arrays are bounds-checked: an out-of-range index is redirected to
//! an address outside every memory so that the executor flags it (`out-of-bounds`) instead of
//! silently reading a neighbouring variable.
//!
//! # Modules
//! This module holds the [`Lower`] state, its diagnostics and the register/constant helpers
//! every part uses; code is emitted through [`crate::ir::Builder`]'s helpers.
//! - `quals`: the qualifiers of a declaration (also read by the compile checks).
//! - `typespec`: type specifiers → [`Ty`].
//! - `place`: places (l-values) and addresses; loads, stores, aggregate copies.
//! - `ops`: operations on scalar/vector values, folded when constant; conversions.
//! - `matrix`: matrices: columns, constructors, operators, conversions.
//! - `expr`: expressions. `call`: calls, constructors, user functions.
//! - `builtin`: built-in functions (atomics, shuffles, math) and variables.
//! - `stmt`: statements. `decl`: local declarations and the symbol table.
//! - `global`: global declarations (functions, variables, uniforms, blocks).
//! - `image`: image types and uniforms, and the image an image function names.
//! - `finish`: function bodies, the link checks on functions, the finished program.

mod builtin;
mod call;
mod decl;
mod expr;
mod finish;
mod global;
mod image;
mod matrix;
mod ops;
mod place;
mod quals;
mod stmt;
mod typespec;

pub use builtin::is_builtin_fn;
pub use quals::{lit_int, quals, PQual, PQualPub, Quals};

use place::Place;

use super::parse::{ExtState, Parsed};
use super::types::{Rule, Sc, StructDef, Ty};
use crate::ir::{Builder, Inst, Loc, Reg, Src};
use conform_plan::BufferKind;
use glsl_lang::ast::{self, NodeSpan};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Where an error was found: shader index and byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub shader: usize,
    pub offset: usize,
    pub msg: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fail {
    /// A compile error (the shader is invalid GLSL).
    Compile(Diag),
    /// A link error.
    Link(Diag),
    /// Valid GLSL the reference does not model.
    Unsupported(Diag),
}

type R<T> = Result<T, Fail>;

/// A scalar/vector value in a register, with its constant lanes when known.
#[derive(Clone, Debug)]
struct V {
    src: Src,
    ty: Ty,
    k: Option<[u64; 4]>,
}

#[derive(Clone, Debug)]
enum Value {
    V(V),
    Agg(Place),
}

#[derive(Clone, Debug)]
enum Sym {
    Var(Place),
    Const(V),
    /// An image uniform (or an array of them).
    Image(image::ImageSym),
}

struct FnInfo<'a> {
    name: String,
    params: Vec<(Ty, PQual, Option<String>)>,
    ret: Ty,
    def: Option<(usize, &'a ast::FunctionDefinition)>,
    /// Storage of each parameter (register or private region).
    slots: Vec<Place>,
    ret_slot: Option<Place>,
    pc: Option<u32>,
    decl_off: (usize, usize),
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    /// A user loop without a body wrapper: `break`/`continue` act on it directly.
    Loop,
    /// The body wrapper (a one-trip loop) of a user loop whose `continue` must reach the
    /// post-expression / condition: `continue` leaves the wrapper, `break` sets `pending` 1.
    Body { pending: Reg },
    /// A switch (a one-trip loop): `break` leaves it, `continue` sets `pending` 2.
    Switch { pending: Reg },
}

/// Per-shader facts the lowering needs.
pub struct ShaderIn<'a> {
    pub idx: usize,
    pub parsed: &'a Parsed,
    pub local_size: Option<[u32; 3]>,
    /// Byte offset of the first local size declaration (`gl_WorkGroupSize` may only be used
    /// after it).
    pub local_size_at: Option<usize>,
    /// Byte offset of `layout(local_size_variable) in;` (`gl_WorkGroupSize` is refused in
    /// such a shader).
    pub variable_size_at: Option<usize>,
    pub exts: ExtState,
    /// Byte offset → (line in the case file, column).
    pub line_of: Box<dyn Fn(usize) -> (u32, u32) + 'a>,
}

/// What the plan tells the lowering: the layout of shared blocks and buffer sizes (uniform
/// values are the executor's business).
pub struct PlanIn {
    /// The layout assumed for `shared` and `packed` blocks (`crate::Options::shared_layout`).
    pub shared_layout: Option<Rule>,
    pub buffers: Vec<(BufferKind, u32, usize)>,
    /// The planted bug of the fuzzer's self-test that lives in this front end, if any
    /// ([`crate::PlantedBug::ClampSignedAsUnsigned`]).
    pub bug: Option<crate::PlantedBug>,
}

pub struct Lower<'a> {
    b: Builder,
    shaders: &'a [ShaderIn<'a>],
    plan: &'a PlanIn,
    cur: usize,
    off: usize,
    scopes: Vec<HashMap<String, Sym>>,
    structs: HashMap<String, Rc<StructDef>>,
    fns: Vec<FnInfo<'a>>,
    fn_names: HashMap<String, Vec<usize>>,
    cur_fn: Option<usize>,
    frames: Vec<Frame>,
    calls: Vec<(u32, usize)>,
    call_edges: HashSet<(usize, usize)>,
    private_top: u32,
    shared_top: u32,
    /// End of the default-uniform space laid out so far, and its slots.
    uniform_top: u32,
    uniform_slots: Vec<crate::ir::UniformSlot>,
    /// The default uniforms' initial bytes (`Program::uniform_init`).
    uniform_init: Vec<u8>,
    /// What glGetProgramiv(ACTIVE_UNIFORMS) counts: global uniforms by name, noted as
    /// referenced by `place::lookup` (a `&self` method, hence the cell).
    active: std::cell::RefCell<crate::front::active::ActiveUniforms<String>>,
    counter_next: HashMap<u32, u32>,
    group_size: [u32; 3],
    link: bool,
    global_owner: HashMap<String, usize>,
    /// Default block layouts (`layout(std430) buffer;`) per (shader, is-buffer).
    default_layout: HashMap<(usize, bool), Option<Rule>>,
    /// Default matrix majorness (`layout(row_major) uniform;`) per (shader, is-buffer).
    default_major: HashMap<(usize, bool), bool>,
    /// Arrays of blocks by instance name: element k is the block at binding + k (indexed only
    /// by constant expressions, `place::block_array_element`).
    block_arrays: HashMap<String, Vec<Place>>,
    /// The storage blocks declared: (name, binding, bytes needed), for
    /// `Program::storage_blocks` (the ones the code uses).
    storage_blocks: Vec<(String, u32, u32)>,
    /// The program's NV_compute_shader_derivatives arrangement (None: derivatives are 0).
    derivative_group: Option<crate::ir::DerivGroup>,
}

fn span_off(s: &Option<NodeSpan>) -> Option<usize> {
    s.as_ref().map(|s| usize::from(s.start().offset))
}

impl<'a> Lower<'a> {
    pub fn new(
        shaders: &'a [ShaderIn<'a>],
        plan: &'a PlanIn,
        group_size: [u32; 3],
        link: bool,
    ) -> Self {
        Lower {
            b: Builder::new(),
            shaders,
            plan,
            cur: 0,
            off: 0,
            scopes: vec![HashMap::new()],
            structs: HashMap::new(),
            fns: Vec::new(),
            fn_names: HashMap::new(),
            cur_fn: None,
            frames: Vec::new(),
            calls: Vec::new(),
            call_edges: HashSet::new(),
            private_top: 0,
            shared_top: 0,
            uniform_top: 0,
            uniform_slots: Vec::new(),
            uniform_init: Vec::new(),
            active: Default::default(),
            counter_next: HashMap::new(),
            group_size,
            link,
            global_owner: HashMap::new(),
            default_layout: HashMap::new(),
            default_major: HashMap::new(),
            block_arrays: HashMap::new(),
            storage_blocks: Vec::new(),
            derivative_group: None,
        }
    }

    /// Sets how derivatives group the invocations (`layout(derivative_group_*NV) in;` of the
    /// program's shaders); without, derivatives return 0.
    pub fn set_derivative_group(&mut self, g: Option<crate::ir::DerivGroup>) {
        self.derivative_group = g;
    }

    // ---------- diagnostics ----------

    fn diag(&self, msg: String) -> Diag {
        Diag {
            shader: self.shaders.get(self.cur).map(|s| s.idx).unwrap_or(0),
            offset: self.off,
            msg,
        }
    }
    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(Fail::Compile(self.diag(msg.into())))
    }
    fn unsup<T>(&self, msg: impl Into<String>) -> R<T> {
        Err(Fail::Unsupported(
            self.diag(format!("unsupported: {}", msg.into())),
        ))
    }
    fn at(&mut self, s: &Option<NodeSpan>) {
        if let Some(o) = span_off(s) {
            self.off = o;
            if let Some(sh) = self.shaders.get(self.cur) {
                let (line, column) = (sh.line_of)(o);
                self.b.cur_loc = Loc { line, column };
            }
        }
    }
    fn has_ext(&self, name: &str) -> bool {
        self.shaders
            .get(self.cur)
            .is_some_and(|s| s.exts.enabled_at(name, self.off))
    }

    // ---------- registers and constants ----------

    fn konst(&mut self, v: [u64; 4]) -> Reg {
        self.b.interned_constant(v)
    }
    fn kv(&mut self, ty: Ty, lanes: [u64; 4]) -> V {
        let r = self.konst(lanes);
        V {
            src: Src::new(r),
            ty,
            k: Some(lanes),
        }
    }
    /// A constant of type `ty` whose lane `i` is `lane(i)`.
    fn k_lanes(&mut self, ty: Ty, lane: impl Fn(usize) -> u64) -> V {
        let mut lanes = [0u64; 4];
        for (i, l) in lanes.iter_mut().enumerate().take(ty.lanes().into()) {
            *l = lane(i);
        }
        self.kv(ty, lanes)
    }
    fn k_scalar(&mut self, sc: Sc, bits: u64) -> V {
        self.kv(Ty::V(sc, 1), [bits, 0, 0, 0])
    }
    fn k_u32(&mut self, v: u32) -> V {
        self.k_scalar(Sc::Uint, u64::from(v))
    }
    fn tmp(&mut self) -> Reg {
        self.b.reg()
    }
    fn emit(&mut self, i: Inst) -> u32 {
        self.b.push(i)
    }
    fn fresh(&mut self, ty: Ty) -> V {
        let r = self.tmp();
        V {
            src: Src::new(r),
            ty,
            k: None,
        }
    }

    /// Copies a value into a fresh register (snapshot).
    fn snap(&mut self, v: V) -> V {
        if v.k.is_some() {
            return v;
        }
        let r = self.b.mov_fresh(v.ty.lanes(), v.src);
        V {
            src: Src::new(r),
            ty: v.ty,
            k: None,
        }
    }

    fn lane_src(v: &V, i: usize) -> Src {
        Src::splat(v.src.reg, v.src.swz[i.min(3)])
    }

    /// A value in a register of its own with identity swizzle.
    fn snap_reg(&mut self, v: V) -> V {
        if v.src.swz == [0, 1, 2, 3] {
            return v;
        }
        let r = self.b.mov_fresh(4, v.src);
        V {
            src: Src::new(r),
            ty: v.ty,
            k: v.k,
        }
    }
}
