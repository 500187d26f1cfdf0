//! A typed imported [`Case`] → conform YAML text (cases/README.md plus the v2 keys of
//! notes/format-v2.md), with a `# file:line: command` comment above every buffer, step and
//! expectation.
//!
//! Layout of the steps: each piglit command's entries follow its comment in order; a run of
//! probes between steps becomes one `expect:` step; the probes after the last step go to the
//! top-level `expect:` list (the state after the last step, which the harness reads after
//! its own final barrier and glFinish, as shader_runner's probes read after the dispatch's
//! GL_ALL_BARRIER_BITS).

use super::case::{
    Buffer, BufferKind, Case, Check, Entry, Expectation, Item, Language, Origin, Program, Requires,
    Step, UniformTarget,
};
use crate::yaml::{block_entry, comment_text, f32_text, flow_list, flow_map, quoted, scalar};
use std::fmt::Write;

/// The YAML text of `case`.
pub fn render(case: &Case) -> String {
    let mut out = String::new();
    header(&mut out, case);
    requires(&mut out, &case.requires);
    programs(&mut out, case);
    buffers(&mut out, case);
    images(&mut out, case);
    emit_textures(&mut out, case);
    let (steps, trailing) = split_trailing(&case.items);
    if let Some(origin) = &case.fails_at_link {
        comment(&mut out, 0, case, origin, None);
        out.push_str("fails: {at: link}\n");
    }
    if steps.is_empty() {
        out.push_str("steps: []\n");
    } else {
        out.push_str("steps:\n");
        step_list(&mut out, case, steps);
    }
    if trailing.iter().any(Item::has_expectations) {
        out.push_str("expect:\n");
        for item in trailing {
            comment(&mut out, 2, case, &item.origin, item.note.as_deref());
            for e in &item.entries {
                if let Entry::Expect(x) = e {
                    let _ = writeln!(out, "  - {}", expectation(x));
                }
            }
        }
    } else {
        for item in trailing {
            comment(&mut out, 0, case, &item.origin, item.note.as_deref());
        }
    }
    out
}

/// The items up to the last one that emits a step, and the rest.
fn split_trailing(items: &[Item]) -> (&[Item], &[Item]) {
    let cut = items.iter().rposition(Item::has_steps).map_or(0, |i| i + 1);
    items.split_at(cut)
}

fn header(out: &mut String, case: &Case) {
    out.push_str("# Imported from piglit by `conform import piglit`: re-run the import instead of editing.\n");
    let _ = writeln!(out, "# Source: {}", comment_text(&case.source_label));
    if let Some(v) = &case.variant_note {
        let _ = writeln!(
            out,
            "# {}: shader_runner runs the SPIR-V sections by default, the GLSL ones with -glsl",
            comment_text(v)
        );
    }
    if case.header_comments.iter().any(|l| !l.is_empty()) {
        out.push_str("#\n");
        for l in &case.header_comments {
            let _ = writeln!(out, "#   {}", comment_text(l));
        }
    }
    let _ = writeln!(out, "name: {}", scalar(&case.name));
    let mut description = format!("piglit test {}", case.source_label);
    if let Some(v) = &case.variant_note {
        description.push_str(&format!(" ({v})"));
    }
    let _ = writeln!(out, "description: {}", quoted(&description));
    out.push_str("spec: [\"external:piglit\"]\n");
}

fn requires(out: &mut String, r: &Requires) {
    if r.is_empty() {
        return;
    }
    out.push_str("requires:\n");
    if let Some(gl) = &r.gl {
        let _ = writeln!(out, "  gl: {}", quoted(gl));
    }
    if let Some(gles) = &r.gles {
        let _ = writeln!(out, "  gles: {}", quoted(gles));
    }
    if let Some(glsl) = r.glsl {
        let _ = writeln!(out, "  glsl: {glsl}");
    }
    if let Some(p) = r.profile {
        let _ = writeln!(out, "  profile: {p}");
    }
    if !r.extensions.is_empty() {
        let _ = writeln!(
            out,
            "  extensions: {}",
            flow_list(r.extensions.iter().map(|e| scalar(e)))
        );
    }
    if !r.limits.is_empty() {
        out.push_str("  limits:\n");
        for (name, v) in &r.limits {
            let _ = writeln!(out, "    {}: {v}", scalar(name));
        }
    }
}

fn programs(out: &mut String, case: &Case) {
    match case.programs.as_slice() {
        [one] if one.stage == super::parse::Stage::Compute => {
            comment(out, 0, case, &one.origin, None);
            out.push_str("program:\n");
            program_body(out, 2, one, false);
        }
        many => {
            out.push_str("programs:\n");
            for p in many {
                comment(out, 2, case, &p.origin, None);
                out.push_str("  - ");
                program_body(out, 4, p, true);
            }
        }
    }
}

/// The keys of a program at `indent`; with `in_list` the first key follows `- ` already
/// written.
fn program_body(out: &mut String, indent: usize, p: &Program, in_list: bool) {
    let pad = " ".repeat(indent);
    let mut first = true;
    let mut key = |out: &mut String, text: String| {
        if !(first && in_list) {
            out.push_str(&pad);
        }
        first = false;
        out.push_str(&text);
        out.push('\n');
    };
    if in_list {
        key(out, format!("stage: {}", p.stage.conform_name()));
    }
    let language = match p.language {
        Language::Glsl => "glsl",
        Language::SpirvAsm => "spirv-asm",
    };
    key(out, format!("language: {language}"));
    out.push_str(&block_entry(indent, "source", &p.source));
    if !p.specialization.is_empty() {
        let pairs: Vec<String> = p
            .specialization
            .iter()
            .map(|(id, v)| format!("{id}: {v}"))
            .collect();
        let _ = writeln!(out, "{pad}specialization: {{{}}}", pairs.join(", "));
    }
}

fn buffers(out: &mut String, case: &Case) {
    if case.buffers.is_empty() {
        return;
    }
    out.push_str("buffers:\n");
    for b in &case.buffers {
        comment(out, 2, case, &b.origin, None);
        let _ = writeln!(out, "  - {}", buffer(b));
    }
}

fn buffer(b: &Buffer) -> String {
    let mut pairs = vec![
        ("name", scalar(&b.name)),
        ("binding", b.binding.to_string()),
    ];
    if b.kind == BufferKind::AtomicCounter {
        pairs.push(("kind", "atomic_counter".to_string()));
    }
    // Zero-filled: the smallest zero element the size holds, padded to the size.
    if b.size_bytes.is_multiple_of(4) {
        pairs.push(("size", b.size_bytes.to_string()));
    } else {
        pairs.push(("type", "u8".to_string()));
        pairs.push(("size", b.size_bytes.to_string()));
    }
    flow_map(&pairs)
}

fn images(out: &mut String, case: &Case) {
    if case.images.is_empty() {
        return;
    }
    out.push_str("images:\n");
    for im in &case.images {
        for origin in &im.origins {
            comment(out, 2, case, origin, None);
        }
        let size = flow_list(im.size.iter().map(|s| s.to_string()));
        let _ = writeln!(
            out,
            "  - {{name: {}, unit: {}, type: 2d, format: {}, size: {size},",
            scalar(&im.name),
            im.unit,
            im.format
        );
        // One row of texels a line: the data reads as the image it is.
        let row = im.size[0] as usize * im.lanes;
        let rows: Vec<String> = im
            .data
            .chunks(row.max(1))
            .map(|r| format!("      {}", r.join(", ")))
            .collect();
        let _ = writeln!(out, "    data: [\n{}\n    ]}}", rows.join(",\n"));
    }
}

fn step_list(out: &mut String, case: &Case, items: &[Item]) {
    let mut in_expect = false;
    for item in items {
        if item.has_expectations() {
            if !in_expect {
                out.push_str("  - expect:\n");
                in_expect = true;
            }
            comment(out, 6, case, &item.origin, item.note.as_deref());
            for e in &item.entries {
                if let Entry::Expect(x) = e {
                    let _ = writeln!(out, "      - {}", expectation(x));
                }
            }
            continue;
        }
        if item.has_steps() {
            in_expect = false;
        }
        let indent = if in_expect { 6 } else { 2 };
        comment(out, indent, case, &item.origin, item.note.as_deref());
        for e in &item.entries {
            if let Entry::Step(s) = e {
                step(out, s);
            }
        }
    }
}

fn step(out: &mut String, s: &Step) {
    let u32s = |v: &[u32; 3]| flow_list(v.iter().map(|x| x.to_string()));
    let line = match s {
        Step::Barrier(bits) => {
            format!("barrier: {}", flow_list(bits.iter().map(|b| b.to_string())))
        }
        Step::Dispatch(g) => format!("dispatch: {}", u32s(g)),
        Step::DispatchGroupSize { groups, size } => format!(
            "dispatch_group_size: {}",
            flow_map(&[("groups", u32s(groups)), ("size", u32s(size))])
        ),
        Step::Write {
            buffer,
            offset,
            ty,
            value,
        } => format!(
            "write: {}",
            flow_map(&[
                ("buffer", scalar(buffer)),
                ("offset", offset.to_string()),
                ("type", ty.to_string()),
                ("data", flow_list([value.clone()])),
            ])
        ),
        Step::Zero { buffer, bytes } => format!(
            "write: {}",
            flow_map(&[
                ("buffer", scalar(buffer)),
                ("offset", "0".to_string()),
                ("type", "u8".to_string()),
                (
                    "data",
                    flow_map(&[("fill", "0".to_string()), ("count", bytes.to_string())])
                ),
            ])
        ),
        Step::Uniform { target, ty, values } => {
            let target = match target {
                UniformTarget::Name(n) => ("name", scalar(n)),
                UniformTarget::Location(l) => ("location", l.to_string()),
            };
            let value = match values.as_slice() {
                [one] => one.clone(),
                many => flow_list(many.iter().cloned()),
            };
            format!(
                "uniform: {}",
                flow_map(&[target, ("type", ty.clone()), ("value", value)])
            )
        }
        Step::ProgramQuery { pname, equals } => {
            let _ = writeln!(
                out,
                "  - program_query: {}",
                flow_map(&[("pname", scalar(pname))])
            );
            let _ = writeln!(out, "    equals: {equals}");
            return;
        }
    };
    let _ = writeln!(out, "  - {line}");
}

fn expectation(x: &Expectation) -> String {
    let mut pairs = vec![
        ("buffer", scalar(&x.buffer)),
        ("at", x.at.to_string()),
        ("type", x.ty.to_string()),
    ];
    match &x.check {
        Check::Equals(v) => pairs.push(("values", flow_list([v.clone()]))),
        Check::WithinAbs(v, tol) => {
            pairs.push(("values", flow_list([v.clone()])));
            pairs.push(("tolerance", flow_map(&[("abs", tol.clone())])));
        }
        Check::Compare(op, v) => pairs.push((
            "compare",
            flow_map(&[
                ("op", quoted(op.symbol())),
                ("values", flow_list([v.clone()])),
            ]),
        )),
        Check::CompareLanes { op, lanes, count } => {
            let lanes = flow_list(lanes.iter().cloned());
            let values = match count {
                1 => lanes,
                n => flow_map(&[("fill", lanes), ("count", n.to_string())]),
            };
            pairs.push((
                "compare",
                flow_map(&[("op", quoted(op.symbol())), ("values", values)]),
            ));
        }
    }
    flow_map(&pairs)
}

/// `# file:line: command` (and the note) at `indent`; the file by its name (the header
/// gives its path).
pub(super) fn comment(
    out: &mut String,
    indent: usize,
    case: &Case,
    origin: &Origin,
    note: Option<&str>,
) {
    let file = case
        .source_label
        .rsplit('/')
        .next()
        .unwrap_or(&case.source_label);
    let _ = write!(
        out,
        "{}# {}:{}: {}",
        " ".repeat(indent),
        comment_text(file),
        origin.line,
        comment_text(&origin.text)
    );
    if let Some(n) = note {
        let _ = write!(out, "  ({})", comment_text(n));
    }
    out.push('\n');
}

/// Writes the case's `textures:`.
fn emit_textures(out: &mut String, case: &Case) {
    if case.textures.is_empty() {
        return;
    }
    out.push_str("textures:\n");
    for t in &case.textures {
        for origin in &t.origins {
            comment(out, 2, case, origin, None);
        }
        let _ = writeln!(
            out,
            "  - {{name: {}, unit: {}, type: 2d, format: {}, size: {},",
            scalar(&t.name),
            t.unit,
            t.format,
            flow_list(t.size.iter().map(|s| s.to_string()))
        );
        let s = &t.sampler;
        let mut sampler = format!(
            "min_filter: {}, mag_filter: {}, wrap: {}",
            s.min_filter.name(),
            s.mag_filter.name(),
            flow_list(s.wrap.iter().map(|w| w.name().to_string()))
        );
        if s.border_color != [0; 4] {
            let c = s.border_color.map(|b| f32_text(f32::from_bits(b)));
            let _ = write!(sampler, ", border_color: {}", flow_list(c.into_iter()));
        }
        let _ = writeln!(out, "    sampler: {{{sampler}}},");
        out.push_str("    levels: [\n");
        let mut width = t.size[0] as usize;
        let last = t.levels.len().saturating_sub(1);
        for (l, level) in t.levels.iter().enumerate() {
            // One row of texels a line: the data reads as the level it is.
            let rows: Vec<String> = level
                .chunks((width * t.lanes).max(1))
                .map(|r| format!("        {}", r.join(", ")))
                .collect();
            let sep = if l == last { "" } else { "," };
            let _ = writeln!(out, "      [\n{}\n      ]{sep}", rows.join(",\n"));
            width = (width / 2).max(1);
        }
        out.push_str("    ]}\n");
    }
}
