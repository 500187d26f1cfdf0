//! The default-uniform space ([`Space::DefaultUniform`]): glUniform* on the slots a front end
//! laid out in `Program::uniforms`, with GL 4.6 §7.6.1's rules.
//!
//! - A name resolves as glGetUniformLocation resolves it (§7.3.1.1 and §7.3.1): a slot's name,
//!   its name with `[0]`, or `name[i]` for element i of an array slot; anything else is -1.
//! - A location resolves to the slot whose explicit location range holds it. GL assigns
//!   locations to uniforms without `layout(location)` as it likes, so a location outside every
//!   explicit range is INVALID_OPERATION only when the program has no such uniform; otherwise
//!   the reference cannot tell and reports the step as not applicable.
//! - -1 (as a location, or a name that resolves to none) is silently ignored.
//! - The command must match the uniform's size and component type, booleans taking the f,
//!   i and ui forms (converted: 0 is false); `count > 1` needs an array; values past the
//!   array's end are ignored. A mismatch is INVALID_OPERATION and changes nothing.
//! - An image uniform holds its image unit: glUniform1i{v} sets it, and a value below 0 or
//!   at least MAX_IMAGE_UNITS (8 here) is INVALID_VALUE (ARB_shader_image_load_store, "Errors");
//!   it starts at its `binding`.
//!
//! [`Space::DefaultUniform`]: crate::ir::Space::DefaultUniform

use crate::ir::{Program, UniformScalar, UniformSlot};
use conform_plan::{GlError, Scalar, UniformSet, UniformTarget, UniformType};

/// What a uniform step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Executed with this error (values stored only with NO_ERROR).
    Done(GlError),
    /// Ignored, as GL ignores location -1; the note says why.
    Ignored(String),
    /// The reference cannot tell what GL would do (why).
    Unknown(String),
}

/// The image units the reference has (MAX_IMAGE_UNITS: the minimum GL 4.2 requires).
pub const MAX_IMAGE_UNITS: u32 = 8;

/// The bytes of the default-uniform space of `prog`: its initializers' values and the image
/// uniforms' initial units, 0 elsewhere.
pub fn space(prog: &Program) -> Vec<u8> {
    let mut bytes = zeroed_space(prog);
    for slot in &prog.uniforms {
        if let UniformScalar::ImageUnit { binding } = slot.ty.scalar {
            for k in 0..slot.array.unwrap_or(1) {
                let at = u64::from(slot.offset) + u64::from(k) * u64::from(slot.stride);
                let unit = binding.saturating_add(k).to_le_bytes();
                if let Some(dst) = usize::try_from(at)
                    .ok()
                    .and_then(|a| bytes.get_mut(a..a + 4))
                {
                    dst.copy_from_slice(&unit);
                }
            }
        }
    }
    bytes
}

fn zeroed_space(prog: &Program) -> Vec<u8> {
    let end = prog
        .uniforms
        .iter()
        .map(|u| {
            let last = u64::from(u.array.unwrap_or(1).saturating_sub(1));
            u64::from(u.offset) + last * u64::from(u.stride) + u64::from(slot_bytes(u))
        })
        .max()
        .unwrap_or(0)
        .min(1 << 24);
    let mut bytes = vec![0; end as usize];
    let n = prog.uniform_init.len().min(bytes.len());
    bytes[..n].copy_from_slice(&prog.uniform_init[..n]);
    bytes
}

/// Bytes one element of `slot` spans (the last column's end).
fn slot_bytes(slot: &UniformSlot) -> u32 {
    let t = slot.ty;
    u32::from(t.columns.saturating_sub(1)) * slot.column_stride
        + u32::from(t.rows) * t.scalar.size()
}

/// The slot and element `name` names, if any.
fn by_name(slots: &[UniformSlot], name: &str) -> Option<(usize, u32)> {
    if let Some(i) = slots.iter().position(|s| s.name == name) {
        return Some((i, 0));
    }
    let (base, index) = name.strip_suffix(']')?.rsplit_once('[')?;
    // "an integer (with no "+" sign, extra leading zeroes, or whitespace)"
    if index.is_empty()
        || !index.bytes().all(|b| b.is_ascii_digit())
        || (index.len() > 1 && index.starts_with('0'))
    {
        return None;
    }
    let k: u32 = index.parse().ok()?;
    let i = slots.iter().position(|s| s.name == base)?;
    let len = slots[i].array?;
    (k < len).then_some((i, k))
}

/// The slot and element at `location`, if an explicit location range holds it.
fn by_location(slots: &[UniformSlot], location: u32) -> Option<(usize, u32)> {
    slots.iter().enumerate().find_map(|(i, s)| {
        let first = s.location?;
        let k = location.checked_sub(first)?;
        (k < s.array.unwrap_or(1)).then_some((i, k))
    })
}

/// Whether the command's type may load the slot's (§7.6.1).
fn matches(slot: UniformScalar, columns: u8, rows: u8, ty: UniformType) -> bool {
    let (scalar, c, r) = match ty {
        UniformType::Elem(e) => (e.scalar, 1, e.lanes),
        UniformType::Matrix {
            scalar,
            columns,
            rows,
        } => (scalar, columns, rows),
    };
    if (c, r) != (columns, rows) {
        return false;
    }
    let matrix = c > 1;
    match slot {
        UniformScalar::Bool => !matrix && matches!(scalar, Scalar::F32 | Scalar::I32 | Scalar::U32),
        UniformScalar::F32 => scalar == Scalar::F32,
        UniformScalar::F64 => scalar == Scalar::F64,
        UniformScalar::I32 | UniformScalar::ImageUnit { .. } => scalar == Scalar::I32,
        UniformScalar::U32 => scalar == Scalar::U32,
        UniformScalar::I64 => scalar == Scalar::I64,
        UniformScalar::U64 => scalar == Scalar::U64,
    }
}

/// Runs one glUniform* of `set` on `space` (laid out by `prog.uniforms`).
pub fn apply(prog: &Program, space: &mut [u8], set: &UniformSet) -> Applied {
    let slots = &prog.uniforms;
    let found = match &set.target {
        UniformTarget::Location(-1) => {
            return Applied::Ignored("location -1: GL ignores the values".into())
        }
        UniformTarget::Location(l) if *l < 0 => None,
        UniformTarget::Location(l) => match by_location(slots, *l as u32) {
            Some(f) => Some(f),
            None if slots.iter().any(|s| s.location.is_none()) => {
                return Applied::Unknown(format!(
                    "no uniform has the explicit location {l}, and GL may give it to one declared without a location"
                ))
            }
            None => None,
        },
        UniformTarget::Name(n) => match by_name(slots, n) {
            Some(f) => Some(f),
            None => {
                return Applied::Ignored(format!(
                    "no active uniform `{n}`: glGetUniformLocation gives -1, and GL ignores the values"
                ))
            }
        },
    };
    let Some((i, first)) = found else {
        return Applied::Done(GlError::InvalidOperation);
    };
    let slot = &slots[i];
    let count = set.count();
    if !matches(slot.ty.scalar, slot.ty.columns, slot.ty.rows, set.ty)
        || (count > 1 && slot.array.is_none())
    {
        return Applied::Done(GlError::InvalidOperation);
    }
    if matches!(slot.ty.scalar, UniformScalar::ImageUnit { .. })
        && set.bytes.chunks_exact(4).any(|c| {
            let v = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            u32::try_from(v).map_or(true, |u| u >= MAX_IMAGE_UNITS)
        })
    {
        return Applied::Done(GlError::InvalidValue);
    }
    let len = slot.array.unwrap_or(1);
    let component = set.ty.scalar().size();
    let rows = usize::from(slot.ty.rows);
    for (k, value) in set
        .bytes
        .chunks_exact(set.ty.size())
        .enumerate()
        .take(len.saturating_sub(first) as usize)
    {
        let elem = u64::from(slot.offset) + u64::from(first + k as u32) * u64::from(slot.stride);
        for (j, c) in value.chunks_exact(component).enumerate() {
            let (col, row) = (j / rows, j % rows);
            let at = elem
                + col as u64 * u64::from(slot.column_stride)
                + row as u64 * u64::from(slot.ty.scalar.size());
            let stored = stored_bytes(c, set.ty.scalar(), slot.ty.scalar);
            if let Some(dst) = usize::try_from(at)
                .ok()
                .and_then(|a| space.get_mut(a..a + stored.len()))
            {
                dst.copy_from_slice(&stored);
            }
        }
    }
    Applied::Done(GlError::NoError)
}

/// One component as the slot stores it: booleans as u32 0/1 ("set to FALSE if the
/// corresponding input value is 0 or 0.0f, and set to TRUE otherwise"), others unchanged.
fn stored_bytes(c: &[u8], from: Scalar, to: UniformScalar) -> Vec<u8> {
    if to != UniformScalar::Bool {
        return c.to_vec();
    }
    let word = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    let truth = if from == Scalar::F32 {
        f32::from_bits(word) != 0.0
    } else {
        word != 0
    };
    u32::from(truth).to_le_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::UniformTy;
    use conform_plan::ElemType;

    fn slot(
        name: &str,
        location: Option<u32>,
        scalar: UniformScalar,
        array: Option<u32>,
    ) -> UniformSlot {
        UniformSlot {
            name: name.into(),
            location,
            ty: UniformTy {
                scalar,
                columns: 1,
                rows: 1,
            },
            array,
            offset: 0,
            stride: 4,
            column_stride: 0,
        }
    }

    fn program(slots: Vec<UniformSlot>) -> Program {
        let mut p = Program::from_builder(crate::ir::Builder::default(), [1, 1, 1]);
        p.uniforms = slots;
        p
    }

    fn set(target: UniformTarget, ty: &str, words: &[u32]) -> UniformSet {
        UniformSet {
            target,
            ty: UniformType::parse(ty).unwrap(),
            bytes: conform_plan::bytes::from_u32s(words),
        }
    }

    fn name(n: &str) -> UniformTarget {
        UniformTarget::Name(n.into())
    }

    #[test]
    fn names_resolve_as_get_uniform_location_does() {
        let slots = vec![
            slot("u", None, UniformScalar::U32, None),
            slot("a", None, UniformScalar::U32, Some(3)),
            slot("s[1].f", None, UniformScalar::U32, None),
        ];
        assert_eq!(by_name(&slots, "u"), Some((0, 0)));
        assert_eq!(by_name(&slots, "a"), Some((1, 0)));
        assert_eq!(by_name(&slots, "a[0]"), Some((1, 0)));
        assert_eq!(by_name(&slots, "a[2]"), Some((1, 2)));
        assert_eq!(by_name(&slots, "a[3]"), None, "past the end");
        assert_eq!(by_name(&slots, "a[02]"), None, "leading zero");
        assert_eq!(by_name(&slots, "a[+1]"), None);
        assert_eq!(by_name(&slots, "u[0]"), None, "not an array");
        assert_eq!(by_name(&slots, "s[1].f"), Some((2, 0)));
        assert_eq!(by_name(&slots, "s[1]"), None);
    }

    #[test]
    fn arrays_load_from_the_named_element_and_ignore_the_excess() {
        let p = program(vec![slot("a", Some(4), UniformScalar::U32, Some(3))]);
        let mut space = space(&p);
        assert_eq!(space.len(), 12);
        let r = apply(
            &p,
            &mut space,
            &set(UniformTarget::Location(5), "u32", &[7, 8, 9]),
        );
        assert_eq!(r, Applied::Done(GlError::NoError));
        assert_eq!(conform_plan::bytes::read_u32s(&space), vec![0, 7, 8]);
        let r = apply(&p, &mut space, &set(name("a[0]"), "u32", &[1]));
        assert_eq!(r, Applied::Done(GlError::NoError));
        assert_eq!(conform_plan::bytes::read_u32s(&space), vec![1, 7, 8]);
    }

    #[test]
    fn type_size_and_arrayness_must_match() {
        let p = program(vec![slot("u", Some(0), UniformScalar::U32, None)]);
        let mut space = space(&p);
        let loc = UniformTarget::Location(0);
        for (ty, words) in [("i32", vec![1]), ("u32x2", vec![1, 2]), ("u32", vec![1, 2])] {
            let r = apply(&p, &mut space, &set(loc.clone(), ty, &words));
            assert_eq!(
                r,
                Applied::Done(GlError::InvalidOperation),
                "{ty} {words:?}"
            );
        }
        assert_eq!(space, vec![0; 4], "a failed call changes nothing");
        let r = apply(
            &p,
            &mut space,
            &set(UniformTarget::Location(1), "u32", &[1]),
        );
        assert_eq!(
            r,
            Applied::Done(GlError::InvalidOperation),
            "no such location"
        );
        assert!(matches!(
            apply(
                &p,
                &mut space,
                &set(UniformTarget::Location(-1), "u32", &[1])
            ),
            Applied::Ignored(_)
        ));
        assert!(matches!(
            apply(&p, &mut space, &set(name("v"), "u32", &[1])),
            Applied::Ignored(_)
        ));
    }

    #[test]
    fn implicit_locations_make_an_unknown_location_unknowable() {
        let p = program(vec![
            slot("u", Some(0), UniformScalar::U32, None),
            slot("w", None, UniformScalar::U32, None),
        ]);
        let mut space = space(&p);
        assert!(matches!(
            apply(
                &p,
                &mut space,
                &set(UniformTarget::Location(3), "u32", &[1])
            ),
            Applied::Unknown(_)
        ));
    }

    #[test]
    fn booleans_take_float_int_and_uint_values() {
        let p = program(vec![slot("b", None, UniformScalar::Bool, Some(3))]);
        let mut space = space(&p);
        let f = UniformSet {
            target: name("b"),
            ty: UniformType::Elem(ElemType::scalar(Scalar::F32)),
            bytes: [0.0f32, -0.0, 0.5]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        };
        assert_eq!(apply(&p, &mut space, &f), Applied::Done(GlError::NoError));
        assert_eq!(conform_plan::bytes::read_u32s(&space), vec![0, 0, 1]);
        let r = apply(&p, &mut space, &set(name("b[1]"), "i32", &[5]));
        assert_eq!(r, Applied::Done(GlError::NoError));
        assert_eq!(conform_plan::bytes::read_u32s(&space), vec![0, 1, 1]);
        assert_eq!(
            apply(&p, &mut space, &set(name("b"), "u64", &[1, 0])),
            Applied::Done(GlError::InvalidOperation)
        );
    }

    #[test]
    fn matrices_scatter_columns_by_the_column_stride() {
        // mat2x3 (2 columns of 3 rows) with std430-like 16-byte columns.
        let mut s = slot("m", None, UniformScalar::F32, None);
        s.ty = UniformTy {
            scalar: UniformScalar::F32,
            columns: 2,
            rows: 3,
        };
        s.column_stride = 16;
        s.stride = 32;
        let p = program(vec![s]);
        let mut space = space(&p);
        assert_eq!(space.len(), 28);
        let vals: Vec<u32> = (1..=6).map(|x| (x as f32).to_bits()).collect();
        let r = apply(&p, &mut space, &set(name("m"), "f32mat2x3", &vals));
        assert_eq!(r, Applied::Done(GlError::NoError));
        let got: Vec<f32> = conform_plan::bytes::read_u32s(&space)
            .into_iter()
            .map(f32::from_bits)
            .collect();
        assert_eq!(got, vec![1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0]);
        assert_eq!(
            apply(&p, &mut space, &set(name("m"), "f32mat3x2", &vals)),
            Applied::Done(GlError::InvalidOperation),
            "columns and rows must match"
        );
    }
}
