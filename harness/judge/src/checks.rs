//! Judging an outcome against a case: memory checks (exact, ULP/abs/rel tolerance, one_of,
//! permutation_of, reference), step errors, query bounds and build failures.
//!
//! Every backend's outcome goes through the same functions, so the reference and the drivers
//! are held to exactly the same standard. A mismatch is described in the declared element
//! type: index, expected, actual, and how many elements differ.

use conform_case::show::{describe_step, format_tuple, when};
use conform_case::values::format_elem;
use conform_case::{Case, Check, CompareOp, Expectation, QueryBound, Tolerance};
use conform_plan::{ElemType, Outcome, Scalar, ScheduleOutcome};
use std::cmp::Ordering;

/// How many differing elements a message lists before summarizing.
pub const SHOWN_DIFFS: usize = 8;

/// One failed check, described for a person.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub summary: String,
    pub details: Vec<String>,
    /// Element indices (in the expectation's type) that differ, for heat maps.
    pub elements: Vec<u64>,
    /// Index into `plan.buffers`, when the mismatch is about memory.
    pub buffer: Option<usize>,
}

impl Mismatch {
    fn plain(summary: impl Into<String>) -> Self {
        Mismatch {
            summary: summary.into(),
            details: vec![],
            elements: vec![],
            buffer: None,
        }
    }
}

/// The memory a backend reported for one run: the buffers after the last step and at each
/// snapshot (`expect` steps).
#[derive(Clone, Copy, Debug)]
pub struct Memory<'a> {
    pub buffers: &'a [Vec<u8>],
    pub snapshots: &'a [Vec<Vec<u8>>],
}

impl<'a> Memory<'a> {
    pub fn of(o: &'a Outcome) -> Self {
        Memory {
            buffers: &o.buffers,
            snapshots: &o.snapshots,
        }
    }

    pub fn of_schedule(s: &'a ScheduleOutcome) -> Self {
        Memory {
            buffers: &s.buffers,
            snapshots: &s.snapshots,
        }
    }

    /// The buffers `x` reads: at its snapshot, or after the last step.
    pub fn for_expectation(&self, x: &Expectation) -> Option<&'a [Vec<u8>]> {
        match x.at_snapshot {
            None => Some(self.buffers),
            Some(s) => self.snapshots.get(s.index).map(Vec::as_slice),
        }
    }
}

fn scalar_bits(bytes: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    buf[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(buf)
}

fn to_f64(bytes: &[u8], s: Scalar) -> f64 {
    let raw = scalar_bits(bytes);
    match s {
        Scalar::F16 => half::f16::from_bits(raw as u16).to_f64(),
        Scalar::F32 => f32::from_bits(raw as u32) as f64,
        _ => f64::from_bits(raw),
    }
}

fn is_nan(bytes: &[u8], s: Scalar) -> bool {
    s.is_float() && to_f64(bytes, s).is_nan()
}

/// Distance in units in the last place between two floats of type `s` (NaN to NaN is 0,
/// NaN to a number is u64::MAX, +0 to -0 is 0).
pub fn ulp_distance(a: &[u8], b: &[u8], s: Scalar) -> u64 {
    let (na, nb) = (is_nan(a, s), is_nan(b, s));
    if na || nb {
        return if na && nb { 0 } else { u64::MAX };
    }
    let bits = s.size() as u32 * 8;
    let ordered = |raw: u64| -> i128 {
        let sign = raw >> (bits - 1) & 1 == 1;
        let mag = (raw & ((1u64 << (bits - 1)) - 1)) as i128;
        if sign {
            -mag
        } else {
            mag
        }
    };
    let d = ordered(scalar_bits(a)) - ordered(scalar_bits(b));
    d.unsigned_abs().min(u64::MAX as u128) as u64
}

/// Exact equality of one scalar; floats compare bits, except that any NaN equals any NaN.
fn scalar_equal(a: &[u8], b: &[u8], s: Scalar) -> bool {
    a == b || (is_nan(a, s) && is_nan(b, s))
}

fn scalar_within(expected: &[u8], actual: &[u8], s: Scalar, tol: Tolerance) -> bool {
    if scalar_equal(expected, actual, s) {
        return true;
    }
    match tol {
        Tolerance::Ulp(n) => ulp_distance(expected, actual, s) <= n,
        Tolerance::Abs(x) => (to_f64(expected, s) - to_f64(actual, s)).abs() <= x,
        Tolerance::Rel(x) => {
            let e = to_f64(expected, s);
            (e - to_f64(actual, s)).abs() <= x * e.abs()
        }
    }
}

/// The values of float type `s` (F32 or F64) that a check of `expected` within `tol`
/// accepts, as the closed interval `(lowest, highest)`: what a tool that states only ordered
/// comparisons (piglit's shader_runner, `conform export piglit`) probes for a tolerance. The
/// interval is found with [`scalar_within`] itself (a binary search over the floats in order,
/// whose acceptance is monotone on each side of `expected`), so it is the judge's tolerance
/// and not a second copy of it. `None` for a NaN expected value (any NaN, no interval) or a
/// type that is not float.
pub fn tolerance_bounds(expected: &[u8], s: Scalar, tol: Tolerance) -> Option<(f64, f64)> {
    let width = match s {
        Scalar::F32 => 32u32,
        Scalar::F64 => 64,
        _ => return None,
    };
    if is_nan(expected, s) {
        return None;
    }
    // Floats in order as integers: -max.. -0 == +0 ..max (the NaNs past the infinities).
    let to_ordered = |raw: u64| -> i128 {
        let mag = (raw & ((1u64 << (width - 1)) - 1)) as i128;
        if raw >> (width - 1) & 1 == 1 {
            -mag
        } else {
            mag
        }
    };
    let from_ordered = |o: i128| -> Vec<u8> {
        let raw = if o < 0 {
            (1u64 << (width - 1)) | o.unsigned_abs() as u64
        } else {
            o as u64
        };
        raw.to_le_bytes()[..width as usize / 8].to_vec()
    };
    let top = ((1u128 << (width - 1)) - 1) as i128; // past +inf: NaNs, never accepted
    let centre = to_ordered(scalar_bits(expected));
    let accepts = |o: i128| scalar_within(expected, &from_ordered(o), s, tol);
    // The furthest accepted step from `centre` towards `dir`: acceptance holds for 0 and,
    // the tolerances being distances, stops holding once and for all further out.
    let furthest = |dir: i128| -> i128 {
        let room = if dir > 0 { top - centre } else { centre + top };
        let (mut ok, mut bad) = (0i128, room + 1);
        while bad - ok > 1 {
            let mid = ok + (bad - ok) / 2;
            if accepts(centre + dir * mid) {
                ok = mid;
            } else {
                bad = mid;
            }
        }
        centre + dir * ok
    };
    let value = |o: i128| to_f64(&from_ordered(o), s);
    Some((value(furthest(-1)), value(furthest(1))))
}

fn elem_matches(expected: &[u8], actual: &[u8], elem: ElemType, tol: Option<Tolerance>) -> bool {
    let size = elem.scalar.size();
    expected
        .chunks(size)
        .zip(actual.chunks(size))
        .all(|(e, a)| match tol {
            None => scalar_equal(e, a, elem.scalar),
            Some(t) => scalar_within(e, a, elem.scalar, t),
        })
}

/// Elementwise comparison; returns the differing element indices (relative to the range).
pub fn differing(
    expected: &[u8],
    actual: &[u8],
    elem: ElemType,
    tol: Option<Tolerance>,
) -> Vec<u64> {
    expected
        .chunks(elem.size())
        .zip(actual.chunks(elem.size()))
        .enumerate()
        .filter(|(_, (e, a))| !elem_matches(e, a, elem, tol))
        .map(|(i, _)| i as u64)
        .collect()
}

/// How `observed` compares with `expected`, one scalar of type `s`: integers in their type,
/// floats by value (None when either is a NaN).
fn scalar_order(observed: &[u8], expected: &[u8], s: Scalar) -> Option<Ordering> {
    let (a, b) = (scalar_bits(observed), scalar_bits(expected));
    if s.is_float() {
        return to_f64(observed, s).partial_cmp(&to_f64(expected, s));
    }
    let bits = s.size() as u32 * 8;
    if s.is_signed() {
        let sign_extend = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
        Some(sign_extend(a).cmp(&sign_extend(b)))
    } else {
        Some(a.cmp(&b))
    }
}

/// Element indices (relative to the range) where `observed OP expected` fails for some
/// component.
pub fn failing_comparison(
    observed: &[u8],
    expected: &[u8],
    elem: ElemType,
    op: CompareOp,
) -> Vec<u64> {
    let size = elem.scalar.size();
    observed
        .chunks(elem.size())
        .zip(expected.chunks(elem.size()))
        .enumerate()
        .filter(|(_, (o, e))| {
            !o.chunks(size)
                .zip(e.chunks(size))
                .all(|(a, b)| op.holds(scalar_order(a, b, elem.scalar)))
        })
        .map(|(i, _)| i as u64)
        .collect()
}

/// Canonical form of an element for multiset comparison (all NaNs alike).
fn canonical(bytes: &[u8], elem: ElemType) -> Vec<u8> {
    let size = elem.scalar.size();
    bytes
        .chunks(size)
        .flat_map(|c| {
            if is_nan(c, elem.scalar) {
                vec![0xFF; size]
            } else {
                c.to_vec()
            }
        })
        .collect()
}

/// The `i`-th tuple of `width` elements of `bytes`.
pub fn tuple(bytes: &[u8], elem: ElemType, width: usize, i: usize) -> &[u8] {
    let size = width * elem.size();
    &bytes[i * size..(i + 1) * size]
}

/// The indices of the tuples of `width` elements in `actual` that equal none of `allowed`
/// (compared as elements: NaNs match NaNs).
pub fn forbidden_tuples(
    actual: &[u8],
    elem: ElemType,
    width: usize,
    allowed: &[Vec<u8>],
) -> Vec<usize> {
    let n = actual.len() / (width * elem.size());
    (0..n)
        .filter(|&i| {
            let t = tuple(actual, elem, width, i);
            !allowed
                .iter()
                .any(|a| differing(a, t, elem, None).is_empty())
        })
        .collect()
}

/// Whether `actual` is a rearrangement of `expected` (both sequences of `elem`).
/// Returns the elements missing from `actual` and those it has in excess.
pub fn permutation_diff(
    expected: &[u8],
    actual: &[u8],
    elem: ElemType,
) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut e: Vec<Vec<u8>> = expected
        .chunks(elem.size())
        .map(|c| canonical(c, elem))
        .collect();
    let mut a: Vec<Vec<u8>> = actual
        .chunks(elem.size())
        .map(|c| canonical(c, elem))
        .collect();
    e.sort();
    a.sort();
    let (mut missing, mut extra) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < e.len() || j < a.len() {
        match (e.get(i), a.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                missing.push(x.clone());
                i += 1;
            }
            (Some(_), Some(y)) => {
                extra.push(y.clone());
                j += 1;
            }
            (Some(x), None) => {
                missing.push(x.clone());
                i += 1;
            }
            (None, Some(y)) => {
                extra.push(y.clone());
                j += 1;
            }
            (None, None) => break,
        }
    }
    (missing, extra)
}

fn list_elems(items: &[Vec<u8>], elem: ElemType) -> String {
    let shown: Vec<String> = items
        .iter()
        .take(SHOWN_DIFFS)
        .map(|b| format_elem(b, elem))
        .collect();
    let more = items.len().saturating_sub(SHOWN_DIFFS);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Checks one expectation against a backend's memory (and the reference's, for
/// `reference: true`), at the expectation's point. None when it holds.
pub fn check_expectation(
    case: &Case,
    x: &Expectation,
    memory: Memory,
    reference: Option<Memory>,
) -> Option<Mismatch> {
    let b = &case.plan.buffers[x.buffer];
    let range = x.byte_range();
    let Some(buffers) = memory.for_expectation(x) else {
        return Some(Mismatch::plain(format!(
            "the backend reported no memory for the expect step at step {} (line {})",
            x.at_snapshot.map_or(0, |s| s.step + 1),
            x.line
        )));
    };
    let Some(actual) = buffers.get(x.buffer).and_then(|m| m.get(range.clone())) else {
        return Some(Mismatch::plain(format!(
            "buffer `{}` came back with {} bytes, fewer than the {} the expectation reads",
            b.name,
            buffers.get(x.buffer).map_or(0, Vec::len),
            range.end
        )));
    };
    let where_ = format!(
        "buffer `{}` ({} elements {}..{}, line {}{})",
        b.name,
        x.elem,
        x.at,
        x.at + x.count,
        x.line,
        when(x)
    );
    // The mismatch of the elements `bad` (relative to the range), each described by
    // `line(index, expected element, actual element)`.
    let mismatch = |bad: Vec<u64>,
                    expected: &[u8],
                    summary: String,
                    line: &dyn Fn(u64, String, String) -> String|
     -> Option<Mismatch> {
        if bad.is_empty() {
            return None;
        }
        let size = x.elem.size();
        let details = bad
            .iter()
            .take(SHOWN_DIFFS)
            .map(|&i| {
                let r = i as usize * size..(i as usize + 1) * size;
                line(
                    x.at + i,
                    format_elem(&expected[r.clone()], x.elem),
                    format_elem(&actual[r], x.elem),
                )
            })
            .collect();
        Some(Mismatch {
            summary: format!("{where_}: {} of {} elements {summary}", bad.len(), x.count),
            details,
            elements: bad.iter().map(|i| x.at + i).collect(),
            buffer: Some(x.buffer),
        })
    };
    let elementwise = |expected: &[u8], tol: Option<Tolerance>, what: &str| {
        mismatch(
            differing(expected, actual, x.elem, tol),
            expected,
            format!("differ{what}"),
            &|i, e, a| format!("[{i}] expected {e}, actual {a}"),
        )
    };
    match &x.check {
        Check::Undefined => None,
        Check::Exact(expected) => elementwise(expected, None, ""),
        Check::Within(expected, tol) => {
            let what = match tol {
                Tolerance::Ulp(n) => format!(" by more than {n} ulp"),
                Tolerance::Abs(a) => format!(" by more than {a}"),
                Tolerance::Rel(r) => format!(" by more than a relative {r}"),
            };
            elementwise(expected, Some(*tol), &what)
        }
        Check::Reference => match reference
            .and_then(|r| r.for_expectation(x))
            .and_then(|r| r.get(x.buffer))
            .and_then(|m| m.get(range.clone()))
        {
            Some(golden) => elementwise(golden, None, " from the reference"),
            None => Some(Mismatch::plain(format!(
                "{where_}: no reference output to compare with"
            ))),
        },
        Check::OneOf(alts) => {
            if alts
                .iter()
                .any(|alt| differing(alt, actual, x.elem, None).is_empty())
            {
                return None;
            }
            let mut m = elementwise(&alts[0], None, "")?;
            m.summary = format!("{where_}: matches none of the {} alternatives", alts.len());
            m.details
                .insert(0, "differences from alternative 0:".into());
            Some(m)
        }
        Check::Compare(op, expected) => mismatch(
            failing_comparison(actual, expected, x.elem, *op),
            expected,
            format!("fail `observed {} expected`", op.symbol()),
            &|i, e, a| format!("[{i}] {a} {} {e} does not hold", op.symbol()),
        ),
        Check::Outcomes { width, allowed } => {
            let forbidden = forbidden_tuples(actual, x.elem, *width, allowed);
            if forbidden.is_empty() {
                return None;
            }
            let instances = actual.len() / (width * x.elem.size());
            let mut seen: Vec<(String, Vec<u64>)> = Vec::new();
            for &i in &forbidden {
                let shown = format_tuple(tuple(actual, x.elem, *width, i), x.elem);
                match seen.iter_mut().find(|(t, _)| *t == shown) {
                    Some((_, at)) => at.push(i as u64),
                    None => seen.push((shown, vec![i as u64])),
                }
            }
            let details = seen
                .iter()
                .take(SHOWN_DIFFS)
                .map(|(t, at)| {
                    let first: Vec<String> = at.iter().take(4).map(u64::to_string).collect();
                    format!(
                        "forbidden outcome {t} in {} instance(s): {}{}",
                        at.len(),
                        first.join(", "),
                        if at.len() > 4 { ", ..." } else { "" }
                    )
                })
                .collect();
            Some(Mismatch {
                summary: format!(
                    "{where_}: {} of {instances} instances have an outcome outside the {} allowed",
                    forbidden.len(),
                    allowed.len()
                ),
                details,
                elements: forbidden
                    .iter()
                    .flat_map(|&i| (0..*width).map(move |k| x.at + (i * width + k) as u64))
                    .collect(),
                buffer: Some(x.buffer),
            })
        }
        Check::Permutation(expected) => {
            let (missing, extra) = permutation_diff(expected, actual, x.elem);
            if missing.is_empty() && extra.is_empty() {
                return None;
            }
            Some(Mismatch {
                summary: format!(
                    "{where_}: not a permutation of the expected values ({} missing, {} unexpected)",
                    missing.len(),
                    extra.len()
                ),
                details: vec![
                    format!("missing: {}", list_elems(&missing, x.elem)),
                    format!("unexpected: {}", list_elems(&extra, x.elem)),
                ],
                elements: vec![],
                buffer: Some(x.buffer),
            })
        }
    }
}

/// Checks every expectation on one run's memory.
pub fn check_memory(case: &Case, memory: Memory, reference: Option<Memory>) -> Vec<Mismatch> {
    case.expect
        .iter()
        .filter_map(|x| check_expectation(case, x, memory, reference))
        .collect()
}

/// Checks the per-step GL errors and query values. Steps the backend could not execute are
/// returned separately (the caller decides whether that makes the case a skip).
pub fn check_steps(case: &Case, outcome: &Outcome) -> (Vec<Mismatch>, Vec<String>) {
    let mut mismatches = Vec::new();
    let mut not_applicable = Vec::new();
    for (i, (check, got)) in case.step_checks.iter().zip(&outcome.steps).enumerate() {
        let step = describe_step(&case.plan.steps[i]);
        if !got.applicable {
            not_applicable.push(format!("step {} ({step})", i + 1));
            continue;
        }
        if let Some(err) = got.error {
            if err != check.error {
                mismatches.push(Mismatch::plain(format!(
                    "step {} ({step}): expected GL error {}, got {}",
                    i + 1,
                    check.error,
                    err
                )));
            }
        }
        if let Some(bound) = &check.bound {
            let v = &got.values;
            let ok = match bound {
                QueryBound::Equals(want) => v == want,
                QueryBound::AtLeast(min) => !v.is_empty() && v.iter().all(|x| x >= min),
                QueryBound::AtMost(max) => !v.is_empty() && v.iter().all(|x| x <= max),
            };
            if !ok {
                let want = match bound {
                    QueryBound::Equals(w) => format!("== {w:?}"),
                    QueryBound::AtLeast(m) => format!(">= {m}"),
                    QueryBound::AtMost(m) => format!("<= {m}"),
                };
                mismatches.push(Mismatch::plain(format!(
                    "step {} ({step}): expected {want}, got {v:?}",
                    i + 1
                )));
            }
        }
    }
    (mismatches, not_applicable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{quickcheck, TestResult};

    fn f32b(x: f32) -> Vec<u8> {
        x.to_le_bytes().to_vec()
    }

    #[test]
    fn tolerance_bounds_are_the_judges_interval() {
        let s = Scalar::F32;
        let (lo, hi) = tolerance_bounds(&f32b(1.0), s, Tolerance::Ulp(3)).unwrap();
        assert_eq!(lo as f32, f32::from_bits(0x3F7F_FFFD));
        assert_eq!(hi as f32, f32::from_bits(0x3F80_0003));
        let (lo, hi) = tolerance_bounds(&f32b(0.0), s, Tolerance::Ulp(1)).unwrap();
        assert_eq!(
            (lo as f32, hi as f32),
            (-f32::from_bits(1), f32::from_bits(1))
        );
        let (lo, hi) = tolerance_bounds(&f32b(f32::MAX), s, Tolerance::Ulp(2)).unwrap();
        assert_eq!(
            hi,
            f64::INFINITY,
            "inf is one ulp past MAX, then NaNs: {lo}"
        );
        assert!(tolerance_bounds(&f32b(f32::NAN), s, Tolerance::Ulp(1)).is_none());
        assert!(tolerance_bounds(&1u32.to_le_bytes(), Scalar::U32, Tolerance::Ulp(1)).is_none());
        let (lo, hi) =
            tolerance_bounds(&2.0f64.to_le_bytes(), Scalar::F64, Tolerance::Abs(0.5)).unwrap();
        assert_eq!((lo, hi), (1.5, 2.5));
    }

    quickcheck::quickcheck! {
        /// The bounds are accepted and the floats just outside them are not, for every
        /// kind of tolerance.
        fn tolerance_bounds_are_tight(bits: u32, n: u8, kind: u8) -> TestResult {
            let x = f32::from_bits(bits);
            if x.is_nan() {
                return TestResult::discard();
            }
            let tol = match kind % 3 {
                0 => Tolerance::Ulp(n as u64),
                1 => Tolerance::Abs(n as f64 / 16.0),
                _ => Tolerance::Rel(n as f64 / 256.0),
            };
            let s = Scalar::F32;
            let (lo, hi) = tolerance_bounds(&f32b(x), s, tol).unwrap();
            let (lo, hi) = (lo as f32, hi as f32);
            let ok = |v: f32| scalar_within(&f32b(x), &f32b(v), s, tol);
            let below = if lo == f32::NEG_INFINITY { None } else { Some(lo.next_down()) };
            let above = if hi == f32::INFINITY { None } else { Some(hi.next_up()) };
            TestResult::from_bool(
                ok(lo) && ok(hi) && lo <= x && x <= hi
                    && below.is_none_or(|v| !ok(v))
                    && above.is_none_or(|v| !ok(v)),
            )
        }
    }

    #[test]
    fn ulp_distance_basics() {
        let s = Scalar::F32;
        assert_eq!(ulp_distance(&f32b(1.0), &f32b(1.0), s), 0);
        assert_eq!(ulp_distance(&f32b(0.0), &f32b(-0.0), s), 0);
        assert_eq!(
            ulp_distance(&f32b(1.0), &f32b(f32::from_bits(0x3F80_0001)), s),
            1
        );
        assert_eq!(
            ulp_distance(&f32b(f32::from_bits(1)), &f32b(-f32::from_bits(1)), s),
            2
        );
        assert_eq!(ulp_distance(&f32b(f32::NAN), &f32b(f32::NAN), s), 0);
        assert_eq!(ulp_distance(&f32b(f32::NAN), &f32b(1.0), s), u64::MAX);
    }

    quickcheck! {
        fn ulp_is_symmetric_and_zero_only_on_equal(a: u32, b: u32) -> TestResult {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            if x.is_nan() || y.is_nan() { return TestResult::discard(); }
            let d = ulp_distance(&a.to_le_bytes(), &b.to_le_bytes(), Scalar::F32);
            let e = ulp_distance(&b.to_le_bytes(), &a.to_le_bytes(), Scalar::F32);
            TestResult::from_bool(d == e && ((d == 0) == (x == y)))
        }

        fn ulp_of_next_float_is_one(a: u32) -> TestResult {
            let x = f32::from_bits(a);
            if !x.is_finite() || x == f32::MAX || x == 0.0 || x.is_sign_negative() { return TestResult::discard(); }
            let next = f32::from_bits(a + 1);
            TestResult::from_bool(ulp_distance(&f32b(x), &f32b(next), Scalar::F32) == 1)
        }

        fn permutation_accepts_any_rotation(v: Vec<u32>, k: usize) -> bool {
            let elem = ElemType::scalar(Scalar::U32);
            let mut rotated = v.clone();
            if !v.is_empty() { rotated.rotate_left(k % v.len()); }
            let (m, e) = permutation_diff(&conform_plan::bytes::from_u32s(&v), &conform_plan::bytes::from_u32s(&rotated), elem);
            m.is_empty() && e.is_empty()
        }

        fn permutation_rejects_a_changed_element(v: Vec<u32>, i: usize) -> TestResult {
            if v.is_empty() { return TestResult::discard(); }
            let elem = ElemType::scalar(Scalar::U32);
            let mut changed = v.clone();
            let i = i % v.len();
            changed[i] = changed[i].wrapping_add(1);
            let (m, e) = permutation_diff(&conform_plan::bytes::from_u32s(&v), &conform_plan::bytes::from_u32s(&changed), elem);
            TestResult::from_bool(m.len() == 1 && e.len() == 1)
        }

        fn exact_differs_exactly_where_changed(v: Vec<u32>, i: usize) -> TestResult {
            if v.is_empty() { return TestResult::discard(); }
            let elem = ElemType::scalar(Scalar::U32);
            let mut changed = v.clone();
            let i = i % v.len();
            changed[i] ^= 0x8000_0000;
            let d = differing(&conform_plan::bytes::from_u32s(&v), &conform_plan::bytes::from_u32s(&changed), elem, None);
            TestResult::from_bool(d == vec![i as u64])
        }
    }

    #[test]
    fn nan_matches_any_nan_but_not_numbers() {
        let e = ElemType::scalar(Scalar::F32);
        let qnan = f32b(f32::from_bits(0x7FC0_0000));
        let snan = f32b(f32::from_bits(0x7F80_0001));
        assert!(differing(&qnan, &snan, e, None).is_empty());
        assert_eq!(differing(&qnan, &f32b(0.0), e, None), vec![0]);
        assert_eq!(
            differing(&f32b(0.0), &f32b(-0.0), e, None),
            vec![0],
            "-0 is not +0 exactly"
        );
        assert!(differing(&f32b(0.0), &f32b(-0.0), e, Some(Tolerance::Ulp(0))).is_empty());
    }

    fn i32s(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    quickcheck! {
        fn integer_comparisons_follow_the_type(a: i32, b: i32) -> bool {
            let s = ElemType::scalar(Scalar::I32);
            let u = ElemType::scalar(Scalar::U32);
            let holds = |elem, op| failing_comparison(&i32s(&[a]), &i32s(&[b]), elem, op).is_empty();
            holds(s, CompareOp::Lt) == (a < b)
                && holds(s, CompareOp::Ge) == (a >= b)
                && holds(s, CompareOp::Eq) == (a == b)
                && holds(s, CompareOp::Ne) == (a != b)
                && holds(u, CompareOp::Gt) == ((a as u32) > (b as u32))
                && holds(u, CompareOp::Le) == ((a as u32) <= (b as u32))
        }

        fn float_comparisons_are_ieee(a: f64, b: f64) -> bool {
            let e = ElemType::scalar(Scalar::F64);
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            let holds = |op| failing_comparison(&x, &y, e, op).is_empty();
            holds(CompareOp::Lt) == (a < b)
                && holds(CompareOp::Gt) == (a > b)
                && holds(CompareOp::Le) == (a <= b)
                && holds(CompareOp::Ge) == (a >= b)
                && holds(CompareOp::Eq) == (a == b)
                && holds(CompareOp::Ne) == (a != b)
        }
    }

    #[test]
    fn comparisons_with_nan_hold_only_for_not_equal() {
        let e = ElemType::scalar(Scalar::F32);
        let nan = f32b(f32::NAN);
        for op in CompareOp::ALL {
            let holds = failing_comparison(&nan, &f32b(1.0), e, op).is_empty();
            assert_eq!(holds, op == CompareOp::Ne, "NaN {} 1.0", op.symbol());
            let holds = failing_comparison(&nan, &nan, e, op).is_empty();
            assert_eq!(holds, op == CompareOp::Ne, "NaN {} NaN", op.symbol());
        }
        assert!(
            failing_comparison(&f32b(-0.0), &f32b(0.0), e, CompareOp::Eq).is_empty(),
            "-0 == +0 by value"
        );
    }

    #[test]
    fn vector_comparisons_hold_component_by_component() {
        let e = ElemType::parse("i32x2").unwrap();
        let observed = i32s(&[1, 5, 3, 3]);
        let expected = i32s(&[2, 6, 3, 4]);
        assert_eq!(
            failing_comparison(&observed, &expected, e, CompareOp::Lt),
            vec![1]
        );
        assert!(failing_comparison(&observed, &expected, e, CompareOp::Le).is_empty());
        let small = ElemType::scalar(Scalar::I8);
        assert_eq!(
            failing_comparison(&[0xFF], &[0x01], small, CompareOp::Lt),
            Vec::<u64>::new(),
            "i8 0xFF is -1"
        );
    }

    #[test]
    fn tolerances() {
        let e = ElemType::scalar(Scalar::F32);
        assert!(differing(&f32b(1.0), &f32b(1.0005), e, Some(Tolerance::Abs(0.001))).is_empty());
        assert!(!differing(&f32b(1.0), &f32b(1.002), e, Some(Tolerance::Abs(0.001))).is_empty());
        assert!(differing(&f32b(100.0), &f32b(100.05), e, Some(Tolerance::Rel(0.001))).is_empty());
        assert!(!differing(&f32b(100.0), &f32b(100.5), e, Some(Tolerance::Rel(0.001))).is_empty());
    }

    fn u32s(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// An MP-shaped outcome set over 3 instances at element 1 of the buffer.
    fn outcome_case() -> Case {
        let yaml =
            "spec: [T-EXEC]\nprogram:\n  language: glsl\n  source: |\n    #version 430\n    \
                    layout(local_size_x = 1) in;\n    void main() {}\nbuffers:\n  - {name: out, \
                    binding: 0, data: {fill: 0, count: 7}}\nexpect:\n  - {buffer: out, at: 1, \
                    outcomes: {width: 2, allowed: [[0, 0], [0, 1], [1, 1]]}}\n";
        conform_case::parse(std::path::Path::new("mp.yaml"), yaml, None).unwrap()
    }

    #[test]
    fn outcomes_pass_when_every_instance_is_allowed_and_name_the_forbidden_ones() {
        let case = outcome_case();
        let x = &case.expect[0];
        assert_eq!(x.count, 6);
        let check = |mem: &[u32]| {
            let bufs = vec![u32s(mem)];
            let m = Memory {
                buffers: &bufs,
                snapshots: &[],
            };
            check_expectation(&case, x, m, None)
        };
        assert_eq!(check(&[9, 0, 0, 1, 1, 0, 1]), None);
        let m = check(&[9, 1, 0, 0, 1, 1, 0]).expect("(1, 0) is forbidden");
        assert!(m.summary.contains("2 of 3 instances"), "{}", m.summary);
        assert_eq!(
            m.details,
            vec!["forbidden outcome (1, 0) in 2 instance(s): 0, 2"]
        );
        assert_eq!(m.elements, vec![1, 2, 5, 6]);
    }

    quickcheck! {
        fn outcome_tuples_are_forbidden_exactly_where_outside_the_set(v: Vec<(bool, bool)>) -> bool {
            let allowed = vec![u32s(&[0, 0]), u32s(&[0, 1]), u32s(&[1, 1])];
            let flat: Vec<u32> = v.iter().flat_map(|&(a, b)| [u32::from(a), u32::from(b)]).collect();
            let want: Vec<usize> = (0..v.len()).filter(|&i| v[i] == (true, false)).collect();
            forbidden_tuples(&u32s(&flat), ElemType::scalar(Scalar::U32), 2, &allowed) == want
        }
    }
}
