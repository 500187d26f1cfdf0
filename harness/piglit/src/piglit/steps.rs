//! The `[test]` walk: shader_runner's commands in order → the case's buffers, steps and
//! expectations, keeping the state that decides what is expressible: which buffers exist
//! (conform binds them all before the first step), whether a dispatch has run, whether a
//! probe rebound SSBO binding 0 (shader_runner's `probe_ssbo_*` binds the probed buffer
//! there), and the link outcome expected.
//!
//! Every `compute` is wrapped in glMemoryBarrier(GL_ALL_BARRIER_BITS) as shader_runner does;
//! float probes compare |observed - expected| against DBL_EPSILON as its `compare_double`
//! does.

use super::case::{
    Buffer, BufferKind, Check, Entry, Expectation, Item, Language, Origin, Step, UniformTarget,
};
use super::command::{self, Command, Op, UniformScalar, UniformType, Value};
use super::outcome::{Converted, Mode, Skip};
use super::parse::{Line, ShaderTest};
use super::textures::{declares_image, Textures};
use crate::yaml::{f32_text, f64_text};
use std::collections::BTreeMap;

/// Walks `test`'s commands into `out`'s case.
pub(super) fn walk(out: &mut Converted, test: &ShaderTest, mode: Mode) -> Result<(), Skip> {
    Commands::new(out, test, mode).run()
}

/// shader_runner keeps 32 SSBO and 8 atomic counter buffer objects.
const SSBO_SLOTS: i64 = 32;
const ATOMIC_SLOTS: u32 = 8;
/// The group count every driver supports in each dimension (the least
/// MAX_COMPUTE_WORK_GROUP_COUNT GL allows).
const MAX_GUARANTEED_GROUPS: i32 = 65535;
/// conform's largest buffer (case loader's element limit, in bytes of u8).
const MAX_BUFFER_BYTES: u64 = 1 << 28;

/// The greatest double below DBL_EPSILON: `|a - b| <= this` is shader_runner's
/// `fabs(a - b) < DBL_EPSILON` for every pair of doubles.
pub fn float_equal_tolerance() -> f64 {
    f64::from_bits(f64::EPSILON.to_bits() - 1)
}

/// A buffer shader_runner created, as the walk knows it.
struct Created {
    /// Index into the case's buffers.
    buffer: usize,
    size: u64,
}

/// The walk over `[test]`: shader_runner's state that matters to the mapping.
struct Commands<'a> {
    out: &'a mut Converted,
    test: &'a ShaderTest,
    ssbos: BTreeMap<i64, Created>,
    atomics: BTreeMap<u32, Created>,
    dispatched: bool,
    /// A probe of SSBO K (K ≠ 0) rebinds binding 0 to it: (K, line).
    binding0_rebound: Option<(i64, usize)>,
    link_error: Option<usize>,
    link_success: Option<usize>,
    mode: Mode,
    textures: Textures,
}

impl<'a> Commands<'a> {
    fn new(out: &'a mut Converted, test: &'a ShaderTest, mode: Mode) -> Self {
        let es = out.case.requires.gles.is_some();
        let sampler = out
            .case
            .programs
            .iter()
            .find(|p| p.source.contains("sampler") || p.source.contains("OpTypeSampledImage"))
            .map(|p| p.origin.line);
        let images = out.case.programs.iter().any(|p| declares_image(&p.source));
        Commands {
            out,
            test,
            ssbos: BTreeMap::new(),
            atomics: BTreeMap::new(),
            dispatched: false,
            binding0_rebound: None,
            link_error: None,
            link_success: None,
            mode,
            textures: Textures::new(es, sampler, images),
        }
    }

    fn run(mut self) -> Result<(), Skip> {
        let test = self.test;
        for l in &test.commands {
            let origin = Origin {
                line: l.line,
                text: l.text.clone(),
            };
            let mut item = Item {
                origin,
                entries: Vec::new(),
                note: None,
            };
            if let Some(quirk) = command::hex_quirk(&l.text, &l.item) {
                self.out.notes.push(format!("line {}: {quirk}", l.line));
                item.note = Some(format!("note: {quirk}"));
            }
            let keep = self.command(l, &mut item)?;
            if keep {
                self.out.case.items.push(item);
            }
        }
        self.finish()
    }

    /// Applies one command; Ok(false) when it becomes a buffer declaration rather than an
    /// item of the step list.
    fn command(&mut self, l: &Line<Command>, item: &mut Item) -> Result<bool, Skip> {
        match &l.item {
            Command::Ssbo { index, size } => {
                let (index, size) = (*index as i64, *size as i64);
                if let Some(zero) = self.recreate(l, self.ssbos.get(&index), size)? {
                    item.entries.push(zero);
                    if index == 0 {
                        self.binding0_rebound = None;
                    }
                    return Ok(true);
                }
                self.create_ssbo(l, index, size)?;
                return Ok(false);
            }
            Command::AtomicCounters { count } => {
                let size = (*count as i64).saturating_mul(4);
                if let Some(zero) = self.recreate(l, self.atomics.get(&0), size)? {
                    item.entries.push(zero);
                    return Ok(true);
                }
                self.create_atomics(l, 0, *count as i64)?;
                return Ok(false);
            }
            Command::AtomicCounterBuffer { binding, count } => {
                let size = (*count as i64).saturating_mul(4);
                if let Some(zero) = self.recreate(l, self.atomics.get(binding), size)? {
                    item.entries.push(zero);
                    return Ok(true);
                }
                self.create_atomics(l, *binding, *count as i64)?;
                return Ok(false);
            }
            Command::Compute { groups } => {
                let groups = self.groups(l, groups)?;
                self.dispatch(l, item, Step::Dispatch(groups))?;
            }
            Command::ComputeGroupSize { groups, size } => {
                let groups = self.groups(l, groups)?;
                if size.iter().any(|&s| s <= 0) {
                    return Err(Skip::at(l, "a group size of zero or less"));
                }
                let size = size.map(|s| s as u32);
                self.dispatch(l, item, Step::DispatchGroupSize { groups, size })?;
            }
            Command::SsboSubdata {
                index,
                offset,
                value,
            } => {
                let Some(value) = value else {
                    return Err(Skip::at(l, "a subdata value that is not a number")
                        .why("shader_runner writes an uninitialised variable"));
                };
                let buffer = self.ssbo(l, *index as i64, "subdata to")?;
                let beyond = "subdata beyond the end of the buffer";
                item.entries
                    .push(self.write(l, buffer, *offset, typed(value), beyond)?);
            }
            Command::AtomicCounterSet {
                binding,
                index,
                value,
            } => {
                let buffer = self.atomic(l, *binding, "a counter set in")?;
                let offset = *index as i64 * 4;
                let beyond = "a counter beyond the end of the buffer";
                let value = typed(&Value::U32(*value));
                item.entries
                    .push(self.write(l, buffer, offset, value, beyond)?);
            }
            Command::ProbeSsbo {
                index,
                offset,
                op,
                value,
            } => {
                let (ty, text, size) = typed(value);
                let buffer = self.ssbo(l, *index as i64, "a probe of")?;
                let offset = *offset as i64;
                if offset % size as i64 != 0 {
                    return Err(Skip::at(
                        l,
                        "a probe at an offset that is not a multiple of its type's size",
                    ));
                }
                self.check_range(
                    l,
                    buffer.size,
                    offset,
                    size,
                    "a probe beyond the end of the buffer",
                )?;
                let check = probe_check(l, *op, value, text)?;
                item.entries.push(Entry::Expect(Expectation {
                    buffer: self.out.case.buffers[buffer.buffer].name.clone(),
                    at: offset as u64 / size,
                    ty,
                    check,
                }));
                if *index != 0 {
                    self.binding0_rebound = Some((*index as i64, l.line));
                }
            }
            Command::ProbeAtomicCounter {
                binding,
                offset,
                op,
                value,
            } => {
                let buffer = self.atomic(l, *binding, "a probe of")?;
                let offset = *offset as i64;
                if offset % 4 != 0 {
                    return Err(Skip::at(
                        l,
                        "a probe at an offset that is not a multiple of 4",
                    ));
                }
                self.check_range(
                    l,
                    buffer.size,
                    offset,
                    4,
                    "a probe beyond the end of the buffer",
                )?;
                let check = probe_check(l, *op, &Value::U32(*value), value.to_string())?;
                item.entries.push(Entry::Expect(Expectation {
                    buffer: self.out.case.buffers[buffer.buffer].name.clone(),
                    at: offset as u64 / 4,
                    ty: "u32",
                    check,
                }));
            }
            Command::Uniform { ty, target, values } => {
                if values.len() < ty.lanes() {
                    return Err(Skip::at(l, "a uniform with fewer values than its type")
                        .why("shader_runner passes uninitialised ones"));
                }
                let target = match target {
                    command::UniformTarget::Name(_) if self.mode == Mode::Spirv => {
                        return Err(Skip::at(l, "a uniform by name in SPIR-V mode")
                            .why("SPIR-V programs have no uniform names: shader_runner fails it"))
                    }
                    command::UniformTarget::Name(n) => UniformTarget::Name(n.clone()),
                    command::UniformTarget::Location(loc) => UniformTarget::Location(*loc),
                };
                item.entries.push(Entry::Step(Step::Uniform {
                    target,
                    ty: uniform_type(*ty),
                    values: values.iter().map(|v| typed(v).1).collect(),
                }));
            }
            Command::UniformHandle => return Err(Skip::at(l, "bindless handle uniforms")),
            Command::VerifyProgramQuery { pname, expected } => {
                let short = pname.strip_prefix("GL_").unwrap_or(pname);
                if short == "COMPUTE_WORK_GROUP_SIZE" {
                    return Err(
                        Skip::at(l, "verify program_query GL_COMPUTE_WORK_GROUP_SIZE")
                            .why("shader_runner fails it as unsupported"),
                    );
                }
                if conform_plan::ProgramPname::from_name(short).is_none() {
                    return Err(Skip::at(l, "a program query conform does not know"));
                }
                item.entries.push(Entry::Step(Step::ProgramQuery {
                    pname: short.to_string(),
                    equals: *expected as i64,
                }));
            }
            Command::MemoryBarrier { name } => {
                let Some(bit) = barrier_bit(name) else {
                    return Err(Skip::at(l, "a memory barrier bit conform has no name for"));
                };
                item.entries.push(Entry::Step(Step::Barrier(vec![bit])));
            }
            Command::LinkError => {
                self.link_error.get_or_insert(l.line);
                self.out.case.fails_at_link = Some(item.origin.clone());
                return Ok(false);
            }
            Command::LinkSuccess => {
                self.link_success.get_or_insert(l.line);
                item.note = Some("conform checks that every case's program builds".into());
            }
            Command::DrawState(what) => {
                let why = format!(
                    "left out: {what} is state only drawing reads, and the test never draws"
                );
                self.out.left_out.push(format!(
                    "line {}: `{}` ({what}: only drawing reads it)",
                    l.line, l.text
                ));
                item.note = Some(why);
            }
            Command::ClearColor(_)
            | Command::Clear
            | Command::FbTex2d { .. }
            | Command::FbWindow(_)
            | Command::ImageTexture { .. }
            | Command::ProbePixel { .. }
            | Command::ProbeRect { .. }
            | Command::Tolerance(_)
            | Command::TextureRgbw { .. }
            | Command::TextureMiptree { .. }
            | Command::TexParameter(_)
            | Command::TextureInteger { .. } => {
                if let Some(left_out) = self.textures.command(l, item, self.dispatched)? {
                    self.out.left_out.push(left_out);
                }
            }
            Command::Unsupported(kind) => return Err(Skip::at(l, *kind)),
            Command::Unknown => {
                return Err(Skip::new(
                    "unknown command",
                    format!("'{}'", l.text),
                    Some(l.line),
                ))
            }
        }
        Ok(true)
    }

    fn groups(&self, l: &Line<Command>, groups: &[i32; 3]) -> Result<[u32; 3], Skip> {
        if groups.iter().any(|&g| g < 0) {
            return Err(Skip::at(l, "a negative group count"));
        }
        if groups.iter().any(|&g| g > MAX_GUARANTEED_GROUPS) {
            return Err(Skip::at(l, "a group count above the guaranteed 65535"));
        }
        Ok(groups.map(|g| g as u32))
    }

    /// `compute`: glMemoryBarrier(GL_ALL_BARRIER_BITS) before and after the dispatch.
    fn dispatch(&mut self, l: &Line<Command>, item: &mut Item, step: Step) -> Result<(), Skip> {
        if let Some((k, line)) = self.binding0_rebound {
            return Err(Skip::new(
                "a dispatch after a probe rebound SSBO binding 0",
                format!("`probe ssbo` of buffer {k} on line {line} binds it at binding 0 (shader_runner's probe does that)"),
                Some(l.line),
            ));
        }
        self.dispatched = true;
        item.entries.push(Entry::Step(Step::Barrier(vec!["all"])));
        item.entries.push(Entry::Step(step));
        item.entries.push(Entry::Step(Step::Barrier(vec!["all"])));
        Ok(())
    }

    /// A buffer command for a slot that already has a buffer: shader_runner makes a new
    /// zero-filled buffer object (glBufferData of calloc'ed memory) and binds it in the old
    /// one's place, so every later use sees zeros. With the same size that is a `write` of
    /// zeros over the whole existing buffer (glBufferSubData, which needs nothing the test's
    /// own glBufferData did not; `clear` would add GL_ARB_clear_buffer_object); with another
    /// size conform cannot express it (its buffers keep their size). None when the slot is
    /// free.
    fn recreate(
        &self,
        l: &Line<Command>,
        existing: Option<&Created>,
        size: i64,
    ) -> Result<Option<Entry>, Skip> {
        let Some(existing) = existing else {
            return Ok(None);
        };
        if size != existing.size as i64 {
            return Err(Skip::at(l, "a buffer created again with another size")
                .why("conform's buffers keep the size they were declared with"));
        }
        Ok(Some(Entry::Step(Step::Zero {
            buffer: self.out.case.buffers[existing.buffer].name.clone(),
            bytes: existing.size,
        })))
    }

    /// A buffer shader_runner creates zeroed: declared in `buffers:`, which conform binds
    /// before the first step. That is the same only while nothing has run yet.
    fn create(&mut self, l: &Line<Command>, size: i64, buffer: Buffer) -> Result<Created, Skip> {
        if self.dispatched {
            return Err(Skip::at(l, "a buffer created after a dispatch")
                .why("conform binds every buffer before the first step"));
        }
        if size <= 0 {
            return Err(Skip::at(l, "an empty buffer"));
        }
        if size as u64 > MAX_BUFFER_BYTES {
            return Err(Skip::at(l, "a buffer larger than conform's limit"));
        }
        self.out.case.buffers.push(buffer);
        Ok(Created {
            buffer: self.out.case.buffers.len() - 1,
            size: size as u64,
        })
    }

    fn create_ssbo(&mut self, l: &Line<Command>, index: i64, size: i64) -> Result<(), Skip> {
        if !(0..SSBO_SLOTS).contains(&index) {
            return Err(Skip::at(l, "an SSBO index outside shader_runner's 32"));
        }
        let buffer = Buffer {
            name: format!("ssbo{index}"),
            binding: index as u32,
            kind: BufferKind::Storage,
            size_bytes: size.max(0) as u64,
            origin: origin(l),
        };
        let created = self.create(l, size, buffer)?;
        self.ssbos.insert(index, created);
        if index == 0 {
            self.binding0_rebound = None;
        }
        Ok(())
    }

    fn create_atomics(&mut self, l: &Line<Command>, binding: u32, count: i64) -> Result<(), Skip> {
        if binding >= ATOMIC_SLOTS {
            return Err(Skip::at(
                l,
                "an atomic counter buffer outside shader_runner's 8",
            ));
        }
        let buffer = Buffer {
            name: format!("atomic{binding}"),
            binding,
            kind: BufferKind::AtomicCounter,
            size_bytes: count.max(0) as u64 * 4,
            origin: origin(l),
        };
        let created = self.create(l, count.saturating_mul(4), buffer)?;
        self.atomics.insert(binding, created);
        Ok(())
    }

    fn ssbo(&self, l: &Line<Command>, index: i64, what: &str) -> Result<&Created, Skip> {
        self.ssbos
            .get(&index)
            .ok_or_else(|| Skip::at(l, format!("{what} an SSBO before it is created")))
    }

    fn atomic(&self, l: &Line<Command>, binding: u32, what: &str) -> Result<&Created, Skip> {
        self.atomics.get(&binding).ok_or_else(|| {
            Skip::at(
                l,
                format!("{what} an atomic counter buffer before it is created"),
            )
        })
    }

    /// A `write` of one typed value at byte `offset` of `buffer`, which must hold it.
    fn write(
        &self,
        l: &Line<Command>,
        buffer: &Created,
        offset: i64,
        (ty, value, size): (&'static str, String, u64),
        beyond: &str,
    ) -> Result<Entry, Skip> {
        self.check_range(l, buffer.size, offset, size, beyond)?;
        Ok(Entry::Step(Step::Write {
            buffer: self.out.case.buffers[buffer.buffer].name.clone(),
            offset: offset as u64,
            ty,
            value,
        }))
    }

    fn check_range(
        &self,
        l: &Line<Command>,
        size: u64,
        offset: i64,
        len: u64,
        kind: &str,
    ) -> Result<(), Skip> {
        if offset < 0 || offset as u64 + len > size {
            return Err(Skip::at(l, kind));
        }
        Ok(())
    }

    /// The checks that need the whole command list.
    fn finish(self) -> Result<(), Skip> {
        (self.out.case.images, self.out.case.textures) = self.textures.finish()?;
        match (self.link_error, self.link_success) {
            (Some(_), Some(line)) => {
                return Err(Skip::new(
                    "both link error and link success",
                    "the test cannot pass",
                    Some(line),
                ))
            }
            (Some(_), None) => {
                // A conform build-failure case runs no steps: beside `link error` only
                // commands that emit nothing (buffer creation, drawing state) can stand.
                if let Some(item) = self.out.case.items.iter().find(|i| !i.entries.is_empty()) {
                    return Err(Skip::new(
                        "link error with commands that run",
                        format!(
                            "`{}`: a conform build-failure case runs no steps",
                            item.origin.text
                        ),
                        Some(item.origin.line),
                    ));
                }
                if self
                    .out
                    .case
                    .programs
                    .iter()
                    .any(|p| p.language == Language::SpirvAsm)
                {
                    return Err(Skip::new(
                        "link error with SPIR-V",
                        "conform's build failures for SPIR-V are validation failures",
                        None,
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

fn origin(l: &Line<Command>) -> Origin {
    Origin {
        line: l.line,
        text: l.text.clone(),
    }
}

/// conform's element type, the value as YAML, and its size in bytes.
fn typed(v: &Value) -> (&'static str, String, u64) {
    match *v {
        Value::I32(x) => ("i32", x.to_string(), 4),
        Value::U32(x) => ("u32", x.to_string(), 4),
        Value::I64(x) => ("i64", x.to_string(), 8),
        Value::U64(x) => ("u64", x.to_string(), 8),
        Value::F32(x) => ("f32", f32_text(x), 4),
        Value::F64(x) => ("f64", f64_text(x), 8),
    }
}

/// A probe's comparison as a conform check. Integers compare exactly; floats the way
/// shader_runner's `compare_double` does: `==` is |observed - expected| < DBL_EPSILON
/// (an absolute tolerance just below it), `<`, `<=`, `>`, `>=` plain comparisons.
fn probe_check(l: &Line<Command>, op: Op, v: &Value, text: String) -> Result<Check, Skip> {
    let float = match *v {
        Value::F32(x) => Some(x as f64),
        Value::F64(x) => Some(x),
        _ => None,
    };
    Ok(match (float, op) {
        (None, Op::Eq) => Check::Equals(text),
        (None, op) => Check::Compare(op, text),
        (Some(x), Op::Eq) => {
            if !x.is_finite() {
                return Err(Skip::at(l, "a float == probe against inf or nan")
                    .why("|a - b| < DBL_EPSILON never holds"));
            }
            Check::WithinAbs(text, f64_text(float_equal_tolerance()))
        }
        (Some(_), Op::Ne) => return Err(Skip::at(l, "a float != probe").why(
            "shader_runner's |a - b| >= DBL_EPSILON also fails on NaN; no conform check matches",
        )),
        (Some(_), op) => Check::Compare(op, text),
    })
}

/// conform's barrier bit for a GL memory barrier enum.
fn barrier_bit(name: &str) -> Option<&'static str> {
    let base = name.strip_suffix("_EXT").unwrap_or(name);
    Some(match base {
        "GL_ALL_BARRIER_BITS" => "all",
        "GL_SHADER_STORAGE_BARRIER_BIT" => "shader_storage",
        "GL_ATOMIC_COUNTER_BARRIER_BIT" => "atomic_counter",
        "GL_UNIFORM_BARRIER_BIT" => "uniform",
        "GL_COMMAND_BARRIER_BIT" => "command",
        "GL_BUFFER_UPDATE_BARRIER_BIT" => "buffer_update",
        "GL_SHADER_IMAGE_ACCESS_BARRIER_BIT" => "shader_image_access",
        _ => return None,
    })
}

/// conform's uniform type name: `i32`, `f32x4`, `f32mat4`, `f64mat2x3`.
fn uniform_type(ty: UniformType) -> String {
    let scalar = |s: UniformScalar| match s {
        UniformScalar::F32 => "f32",
        UniformScalar::F64 => "f64",
        UniformScalar::I32 => "i32",
        UniformScalar::U32 => "u32",
        UniformScalar::I64 => "i64",
        UniformScalar::U64 => "u64",
    };
    match ty {
        UniformType::Scalar(s) => scalar(s).to_string(),
        UniformType::Vector(s, n) => format!("{}x{n}", scalar(s)),
        UniformType::Matrix(s, c, r) if c == r => format!("{}mat{c}", scalar(s)),
        UniformType::Matrix(s, c, r) => format!("{}mat{c}x{r}", scalar(s)),
    }
}
