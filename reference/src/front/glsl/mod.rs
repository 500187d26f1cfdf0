//! The GLSL front end: GLSL compute shaders → IR.
//!
//! Parsing is glsl-lang's (through its preprocessor, with our extension registry, see
//! [`parse`]); type checking and lowering are ours ([`lower`]). [`build`] applies the compile
//! rules per shader and the link rules of ARB_compute_shader across the shaders of a program,
//! reporting failures as a compiler would (stage + log with `line N:` messages, the line
//! counted in the case file via `ProgramSource::first_line`); constructs the reference does not
//! model are refused with `unsupported: <construct>` and the line, never run approximately.
//!
//! # Supported
//! - Versions: GLSL 1.40 and later with GL_ARB_compute_shader, 4.30 and later, ESSL 3.10 and
//!   3.20 (`#version 310 es`). `#extension` per GLSL §3.3 ([`parse`], `facts`): unknown
//!   extensions warn with enable/warn and are refused with require; directives apply from
//!   where they stand.
//! - Types: bool/int/uint/float/double scalars and vectors, int64_t/uint64_t and their vectors
//!   (GL_ARB_gpu_shader_int64; literals with l/L/ul/UL, see [`literals`]), structs, arrays (multi-dimensional,
//!   runtime-sized as the last buffer-block member), `atomic_uint`, matrices (mat2..mat4,
//!   matNxM, dmat*: constructors, components, operators, conversions, §8.6's functions; in
//!   blocks column- or row-major per §4.4.5; see `lower::matrix`).
//! - Storage: buffer blocks (std430, std140; `binding`; instance names; readonly), uniform
//!   blocks (std140), arrays of blocks (element k at binding + k; a run-time index picks it by address, `ir::Space::BlockArray`, and one that is not dynamically uniform is flagged), plain uniforms (scalars, vectors, matrices, arrays and structures of them; values from `ExecPlan::uniforms` and `uniform` steps, 0 when absent), shared
//!   variables, atomic counters (`binding`/`offset`), private globals, `const` (folded with the
//!   executor's own arithmetic), initializer lists.
//! - Functions with in/out/inout parameters and overloads (IR subroutines; recursion is a
//!   compile error); `atomic_uint` `in` parameters pass the counter's address
//!   (`ir::Space::CounterAddress`); all statements: if/else, for, while, do-while, switch (fall-through),
//!   break/continue/return, ?:, && || (short-circuit), comma, compound assignment, ++/--.
//! - Variable work group sizes (GL_ARB_compute_variable_group_size): `layout(local_size_variable)
//!   in;` marks the program `ir::Program::variable_group_size`, `gl_LocalGroupSizeARB` reads
//!   the dispatch's size, `gl_WorkGroupSize` is refused in such a shader.
//! - GL_NV_compute_shader_derivatives: `layout(derivative_group_quadsNV|linearNV) in;` with
//!   its compile and link rules (`facts`, [`build`]) and dFdx/dFdy/fwidth with their Fine and
//!   Coarse forms (`lower::builtin::derivative`, `ir::Inst::Derivative`); 0 without a qualifier.
//! - Built-ins: compute inputs and `gl_WorkGroupSize`, `gl_MaxCompute*` constants (the
//!   reference's LIMITS), barrier and memory barriers, atomic* on buffer/shared int/uint (and
//!   float add/exchange with GL_NV_shader_atomic_float or GL_EXT_shader_atomic_float;
//!   64-bit ones with GL_NV_shader_atomic_int64, add/exchange/compare-swap for int64_t only;
//!   float min/max/exchange/compare-swap with GL_INTEL_shader_atomic_float_minmax),
//!   atomicCounter*, shuffle*NV (every overload, optional threadIdValid; needs
//!   GL_NV_shader_thread_shuffle), gl_WarpSizeNV/gl_ThreadInWarpNV/gl_WarpIDNV/masks/
//!   gl_HelperThreadNV (GL_NV_shader_thread_group), constructors and conversions, swizzles,
//!   `length()`; every function of GLSL 4.60 chapter 8 a compute shader can call except the
//!   texture ones (`lower::builtin`: common, angle/trigonometry/exponential,
//!   pack, geometric, matrix, integer, vector relational; transcendentals are the host's functions);
//!   clockARB/clock2x32ARB (GL_ARB_shader_clock); min3/max3/mid3
//!   (GL_AMD_shader_trinary_minmax); `memoryBarrier()` only from GLSL 4.20 / ESSL 3.10 or with
//!   GL_ARB_shader_image_load_store (ARB_compute_shader adds only the typed barriers);
//!   images (GLSL 4.20, GL_ARB_shader_image_load_store, ESSL 3.10): `[iu]image{1D,2D,3D,2DArray}`
//!   uniforms and arrays of them with every format qualifier of the extension's table and the
//!   memory qualifiers, imageLoad/imageStore/imageSize/imageAtomic* (`lower::image`,
//!   `lower::builtin::image`) with the compile errors the extension requires;
//!   the invocation group functions (GLSL 4.60 `anyInvocation` & co., GL_ARB_shader_group_vote,
//!   GL_ARB_shader_ballot) and GL_KHR_shader_subgroup basic, vote, ballot, shuffle,
//!   shuffle_relative and arithmetic (subgroups of `Options::subgroup_size` invocations).
//! - Documented choices for undefined values: uninitialised locals and `out` parameters read 0;
//!   `round` rounds half to even; a dynamic index outside a sized array is redirected out of
//!   bounds so the executor flags it (`out-of-bounds`) and reads 0 / drops the store.
//!
//! - Stages: shaders of other stages are parsed and checked for the compute-only rules
//!   (`shared`, memoryBarrierShared/groupMemoryBarrier, barrier outside tessellation control,
//!   local_size layouts); mixed with compute shaders they fail the link; alone they link as a
//!   graphics program whose dispatches raise INVALID_OPERATION (log: "not a compute shader").
//!
//! # Refused (`Refusal::Unsupported`)
//! Samplers/textures, image types the plan has no images of (cube, rectangle,
//! 1D array, multisample), image function parameters, arrays of arrays of images,
//! GL_KHR_shader_subgroup clustered and quad, arrays of blocks of more than one dimension,
//! `length()` of a runtime array in a block chosen at run time, blocks without std430/std140 (explicit or by a default `layout(...) buffer;`/`uniform;`) whose offsets would differ between
//! std140 and std430 when `Options::shared_layout` does not say which to assume (the
//! shared/packed layout is implementation-dependent), layout values
//! that are not integer literals,
//! offset/align member qualifiers, uniform initializers other than constant scalars and vectors (those set `ir::Program::uniform_init`),
//! non-literal local sizes, gl_SMIDNV/gl_SMCountNV/gl_WarpsPerSMNV, ballotThreadNV and the
//! other thread-group functions.

mod facts;
pub mod literals;
pub mod lower;
pub mod parse;
mod pp_limit;
pub mod types;

use super::{BuildFailure, Built};
use crate::ir::Program;
use crate::{Diagnostic, LIMITS};
use conform_plan::{BuildStage, ExecPlan, ProgramSource, Stage};
use facts::shader_facts;
use lower::{Diag, Fail, Lower, PlanIn, ShaderIn};
use parse::LineMap;
use types::Rule;

struct Src<'a> {
    prog: &'a ProgramSource,
    map: LineMap,
}

impl Src<'_> {
    fn first(&self) -> u32 {
        self.prog.first_line.max(1)
    }
    /// (absolute line in the case file, relative line, column)
    fn pos(&self, off: usize) -> (u32, u32, u32) {
        let (l, c) = self.map.line_col(off);
        (l + self.first() - 1, l, c)
    }
}

fn fail(srcs: &[Src], stage: BuildStage, shader: usize, off: usize, msg: &str) -> BuildFailure {
    let (abs, rel, col) = srcs.get(shader).map(|s| s.pos(off)).unwrap_or((1, 1, 1));
    BuildFailure::Failed {
        stage,
        log: format!("line {abs}: error: {msg}\n"),
        diagnostics: vec![Diagnostic {
            line: rel,
            column: col,
            message: msg.to_string(),
        }],
    }
}

fn from_fail(srcs: &[Src], f: Fail) -> BuildFailure {
    match f {
        Fail::Compile(Diag {
            shader,
            offset,
            msg,
        }) => fail(srcs, BuildStage::Compile, shader, offset, &msg),
        Fail::Link(Diag {
            shader,
            offset,
            msg,
        }) => fail(srcs, BuildStage::Link, shader, offset, &msg),
        Fail::Unsupported(Diag {
            shader,
            offset,
            msg,
        }) => {
            let (abs, rel, col) = srcs.get(shader).map(|s| s.pos(offset)).unwrap_or((1, 1, 1));
            unsupported_at(abs, rel, col, &msg)
        }
    }
}

fn plan_in(plan: Option<&ExecPlan>, opts: &crate::Options) -> PlanIn {
    PlanIn {
        shared_layout: opts.shared_layout.map(|l| match l {
            crate::BlockLayout::Std140 => Rule::STD140,
            crate::BlockLayout::Std430 => Rule::STD430,
        }),
        buffers: plan
            .map(|p| {
                p.buffers
                    .iter()
                    .map(|b| (b.kind, b.binding, b.bytes.len()))
                    .collect()
            })
            .unwrap_or_default(),
        bug: opts.planted_bug(),
    }
}

/// Compiles and links the shaders of a program. `plan` provides buffer sizes (for
/// `.length()` of runtime-sized arrays); uniform values are the executor's business (plain
/// uniforms live in `Space::DefaultUniform`).
///
/// Runs on a thread of its own with a large stack: parsing and lowering recurse over the
/// syntax tree, and deeply nested expressions must not overflow the caller's stack.
pub fn build(
    programs: &[ProgramSource],
    plan: Option<&ExecPlan>,
    opts: &crate::Options,
) -> Result<Built, BuildFailure> {
    const MAX_SOURCE: usize = 4 << 20;
    const MAX_NESTING: usize = 2000;
    for p in programs {
        let err = |m: String| unsupported_at(1, 1, 1, &format!("unsupported: {m}"));
        if p.text.len() > MAX_SOURCE {
            return Err(err(format!(
                "a shader source of {} bytes (the reference takes up to {MAX_SOURCE})",
                p.text.len()
            )));
        }
        let (mut d, mut mx) = (0usize, 0usize);
        for c in p.text.bytes() {
            match c {
                b'(' | b'[' | b'{' => {
                    d += 1;
                    mx = mx.max(d);
                }
                b')' | b']' | b'}' => d = d.saturating_sub(1),
                _ => {}
            }
        }
        if mx > MAX_NESTING {
            return Err(err(format!(
                "brackets nested {mx} deep (the reference takes up to {MAX_NESTING})"
            )));
        }
    }
    let r = std::thread::scope(|sc| {
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn_scoped(sc, || build_inner(programs, plan, opts))
            .map(|h| h.join())
    });
    match r {
        Ok(Ok(r)) => r.map(|(program, log)| Built {
            notes: vec![format!(
                "GLSL lowered to {} IR instructions",
                program.code.len()
            )],
            program,
            log,
            undefined: Vec::new(),
        }),
        Ok(Err(_)) => Err(BuildFailure::Internal(
            "the GLSL front end panicked (a bug in the reference)".into(),
        )),
        Err(e) => Err(BuildFailure::Internal(format!(
            "could not start the GLSL front end thread: {e}"
        ))),
    }
}

/// A refusal located at (absolute line in the case file, relative line, column); `msg` starts
/// with `unsupported: `, which the located diagnostic leaves out.
fn unsupported_at(abs: u32, rel: u32, column: u32, msg: &str) -> BuildFailure {
    BuildFailure::Unsupported {
        reason: format!("line {abs}: {msg}"),
        at: Diagnostic {
            line: rel,
            column,
            message: msg.strip_prefix("unsupported: ").unwrap_or(msg).to_string(),
        },
    }
}

fn build_inner(
    programs: &[ProgramSource],
    plan: Option<&ExecPlan>,
    opts: &crate::Options,
) -> Result<(Program, String), BuildFailure> {
    let srcs: Vec<Src> = programs
        .iter()
        .map(|p| Src {
            prog: p,
            map: LineMap::new(&p.text),
        })
        .collect();
    let mut parsed = Vec::new();
    let mut facts = Vec::new();
    let mut log = String::new();
    for (i, p) in programs.iter().enumerate() {
        let pr = match parse::parse(&p.text) {
            Ok(pr) => pr,
            Err(e) if e.unsupported => {
                let (abs, rel, col) = srcs[i].pos(e.offset);
                return Err(unsupported_at(abs, rel, col, &e.message));
            }
            Err(e) => {
                return Err(fail(&srcs, BuildStage::Compile, i, e.offset, &e.message));
            }
        };
        let f = shader_facts(i, &srcs[i], &pr, p.stage)?;
        for w in &f.warnings {
            log.push_str(w);
            log.push('\n');
        }
        parsed.push(pr);
        facts.push(f);
    }
    let pin = plan_in(plan, opts);
    let shader_in = |i: usize| ShaderIn {
        idx: i,
        parsed: &parsed[i],
        local_size: facts[i].local_size,
        local_size_at: facts[i].local_size_at,
        variable_size_at: facts[i].variable_size_at,
        exts: facts[i].exts.clone(),
        line_of: {
            let s = &srcs[i];
            Box::new(move |off| {
                let (abs, _, col) = s.pos(off);
                (abs, col)
            })
        },
    };
    // Compile each compute shader on its own (calls to functions defined elsewhere allowed).
    for (i, p) in programs.iter().enumerate() {
        if p.stage != Stage::Compute {
            continue;
        }
        let one = [shader_in(i)];
        let gs = facts[i].local_size.unwrap_or([1, 1, 1]);
        let mut lw = Lower::new(&one, &pin, gs, false);
        lw.set_derivative_group(facts[i].derivative_group.map(|d| d.0));
        lw.globals().map_err(|f| from_fail(&srcs, f))?;
        lw.finish().map_err(|f| from_fail(&srcs, f))?;
    }
    // Link.
    let compute: Vec<usize> = (0..programs.len())
        .filter(|&i| programs[i].stage == Stage::Compute)
        .collect();
    let other: Vec<usize> = (0..programs.len())
        .filter(|&i| programs[i].stage != Stage::Compute)
        .collect();
    if compute.is_empty() {
        let st = programs.first().map(|p| p.stage).unwrap_or_default();
        return Err(BuildFailure::NotCompute {
            log: format!(
            "note: not a compute shader (stage {st:?}): the program links but has no compute executable; dispatches raise INVALID_OPERATION\n"
        )});
    }
    if let Some(&o) = other.first() {
        return Err(fail(
            &srcs,
            BuildStage::Link,
            o,
            0,
            &format!(
                "a compute shader cannot be linked with shaders of other stages ({:?})",
                programs[o].stage
            ),
        ));
    }
    let mut gs: Option<([u32; 3], usize)> = None;
    for &i in &compute {
        if let Some(ls) = facts[i].local_size {
            match gs {
                None => gs = Some((ls, i)),
                Some((prev, _)) if prev != ls => {
                    return Err(fail(
                        &srcs,
                        BuildStage::Link,
                        i,
                        0,
                        &format!("local sizes {prev:?} and {ls:?} declared by the compute shaders of the program differ"),
                    ))
                }
                _ => {}
            }
        }
    }
    let variable = compute
        .iter()
        .find(|&&i| facts[i].variable_size_at.is_some());
    if let (Some(&v), Some((ls, _))) = (variable, gs) {
        // ARB_compute_variable_group_size: the program's shaders declare either a variable or
        // a fixed local size, not both.
        return Err(fail(
            &srcs,
            BuildStage::Link,
            v,
            0,
            &format!("one compute shader of the program declares a variable local size (local_size_variable), another the fixed size {ls:?}"),
        ));
    }
    let gs = if variable.is_some() {
        Some(([1, 1, 1], 0))
    } else {
        gs
    };
    let Some((gs, _)) = gs else {
        return Err(fail(
            &srcs,
            BuildStage::Link,
            compute[0],
            0,
            "no local size declared in any compute shader of the program (layout(local_size_x = ...) in;)",
        ));
    };
    let total = u64::from(gs[0]) * u64::from(gs[1]) * u64::from(gs[2]);
    if total > u64::from(LIMITS.max_work_group_invocations) {
        return Err(fail(
            &srcs,
            BuildStage::Link,
            compute[0],
            0,
            &format!(
                "work group size {gs:?} has {total} invocations, above MAX_COMPUTE_WORK_GROUP_INVOCATIONS ({})",
                LIMITS.max_work_group_invocations
            ),
        ));
    }
    // NV_compute_shader_derivatives across the shaders of a program: one arrangement, and
    // the program's local size must suit it (the compile-time rules, applied where the local
    // size and the qualifier come from different shaders).
    let mut derivative_group: Option<(crate::ir::DerivGroup, usize)> = None;
    for &i in &compute {
        if let Some((g, off)) = facts[i].derivative_group {
            match derivative_group {
                Some((prev, _)) if prev != g => {
                    return Err(fail(
                        &srcs,
                        BuildStage::Link,
                        i,
                        off,
                        "the compute shaders of the program specify both derivative_group_quadsNV and derivative_group_linearNV (NV_compute_shader_derivatives)",
                    ))
                }
                Some(_) => {}
                None => derivative_group = Some((g, i)),
            }
        }
    }
    if let (Some((g, i)), false) = (derivative_group, variable.is_some()) {
        if let Some(msg) = facts::derivative_size_error(g, gs) {
            return Err(fail(&srcs, BuildStage::Link, i, 0, &msg));
        }
    }
    let all: Vec<ShaderIn> = compute.iter().map(|&i| shader_in(i)).collect();
    let mut lw = Lower::new(&all, &pin, gs, true);
    lw.set_derivative_group(derivative_group.map(|d| d.0));
    lw.globals().map_err(|f| from_fail(&srcs, f))?;
    let mut prog = lw.finish().map_err(|f| from_fail(&srcs, f))?;
    prog.variable_group_size = variable.is_some();
    if prog.shared_size > LIMITS.max_shared_memory_size {
        return Err(fail(
            &srcs,
            BuildStage::Link,
            compute[0],
            0,
            &format!(
                "shared variables use {} bytes, above MAX_COMPUTE_SHARED_MEMORY_SIZE ({})",
                prog.shared_size, LIMITS.max_shared_memory_size
            ),
        ));
    }
    if let Err(e) = prog.validate() {
        return Err(BuildFailure::Internal(format!(
            "the GLSL lowering produced an invalid program: {e}"
        )));
    }
    Ok((prog, log))
}

#[cfg(test)]
mod builtin_tests;
#[cfg(test)]
mod case_tests;
#[cfg(test)]
mod derivatives_tests;
#[cfg(test)]
mod equiv_tests;
#[cfg(test)]
mod ext_tests;
#[cfg(test)]
mod image_tests;
#[cfg(test)]
mod int64_tests;
#[cfg(test)]
mod matrix_tests;
#[cfg(test)]
mod subgroup_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod texture_tests;
#[cfg(test)]
mod undefined_tests;
