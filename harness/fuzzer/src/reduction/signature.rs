//! Signatures of divergences, and attributing a divergence to a known bug before reducing it.
//!
//! A divergence's key (`llvmpipe-glsl-compute-memory`: backend, language, the diverging
//! block's feature, what differs) is too broad wherever the block computes a value: every
//! arithmetic bug shares a compute block's key, a whole program's (a crash, a timeout), and
//! also an exchange's, a section's, a shuffle's or a narrow load's, whose stored value or
//! index is an expression (an exchange through shared memory that diverges because the value
//! it exchanges was miscomputed is an arithmetic bug, not a barrier bug). After reduction the
//! signature adds the operators the reduced program kept (`...-compute-memory-with-mulhis`,
//! `...-exchange-shared-fenced-memory-with-mulhis`), which names the root cause closely
//! enough to tell bugs apart; a block whose reduced form kept no operator (the exchange of
//! `gl_LocalInvocationIndex` that shows a barrier bug) keeps the bare key.
//!
//! Reducing every divergence would cost a reduction (seconds to minutes) per hit of a bug
//! that shows in many programs, so before reducing, a divergence is *attributed*: to a finding
//! of this campaign, or to a `--known` baseline line, when the unreduced program uses every
//! operator that finding's signature (or that line) lists. A reducer only removes or
//! canonicalises what the bug does not need, so a new hit of the same bug uses at least the
//! operators of its reduced form; a program that lacks one of them is not that bug and is
//! reduced (up to the key's cap). The price: a different bug in a program that happens to use
//! all of a known bug's operators is counted as that bug; it still shows in the programs
//! without them.

use crate::ast::{Block, Program};
use crate::Divergence;
use conform_gate::gate::Baseline;
use std::collections::BTreeSet;

/// Longest signature (it names a directory).
const MAX_LEN: usize = 120;

/// The operator names the diverging part of `p` uses: the expressions of block `block`, or of
/// every block for a divergence of the whole program (`block` none).
pub fn divergence_ops(p: &Program, block: Option<usize>) -> BTreeSet<&'static str> {
    let mut ops = Vec::new();
    match block {
        Some(k) => p
            .blocks
            .get(k)
            .into_iter()
            .for_each(|b| block_ops(b, &mut ops)),
        None => p.blocks.iter().for_each(|b| block_ops(b, &mut ops)),
    }
    ops.into_iter().collect()
}

/// The operator names of one block's expressions and statements.
fn block_ops(b: &Block, out: &mut Vec<&'static str>) {
    match b {
        Block::Compute(c) => c.stmts.iter().for_each(|s| s.ops(out)),
        Block::Section(s) => s.payload.ops(out),
        Block::Exchange(x) => x.value.ops(out),
        Block::Narrow(n) => n.value.ops(out),
        Block::Vector(v) => v.ops(out),
        Block::Shuffle(s) => {
            s.value.ops(out);
            s.index.ops(out);
        }
        // Their feature names their one operation, or family of operations.
        Block::Atomic(_)
        | Block::AtomicMix(_)
        | Block::FloatAtomic(_)
        | Block::Undefined(_)
        | Block::Subgroup(_) => {}
    }
}

/// `s` as a directory-safe name: lower-case ASCII letters, digits and `-`.
fn sanitise(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// The signature of a reduced divergence: its key, plus the operators kept by the diverging
/// block or, for a divergence of the whole program, by every block. The operators are those
/// attribution compares ([`divergence_ops`] of the unreduced program), so a finding stands
/// for exactly the later hits that use them, and a `--known` line naming them covers the
/// finding in `conform fuzz merge` as it covers the hits in a campaign.
pub fn signature(d: &Divergence, reduced: &Program) -> String {
    let mut sig = d.key();
    let ops = divergence_ops(reduced, d.block);
    if !ops.is_empty() {
        sig.push_str("-with-");
        sig.push_str(&ops.into_iter().collect::<Vec<_>>().join("-"));
    }
    sanitise(&sig).chars().take(MAX_LEN).collect()
}

/// The operators a signature or a baseline name lists after `base` (`<base>-with-a-b`):
/// `Some([])` for `base` itself, none for a name of another key. A signature cut at
/// [`MAX_LEN`] may end in part of a name: that part matches no operator, so such a finding
/// attracts nothing and later hits are reduced again (up to the key's cap), never hidden.
fn listed_ops<'a>(name: &'a str, base: &str) -> Option<Vec<&'a str>> {
    if name == base {
        return Some(Vec::new());
    }
    let rest = name.strip_prefix(base)?.strip_prefix("-with-")?;
    Some(rest.split('-').collect())
}

/// Whether finding `sig` (of reduction key `key`) covers a divergence of that key whose
/// unreduced program uses `ops`: the program uses every operator the signature lists.
pub fn attributes(sig: &str, key: &str, ops: &BTreeSet<&str>) -> bool {
    listed_ops(sig, &sanitise(key)).is_some_and(|l| l.iter().all(|o| ops.contains(o)))
}

/// The `--known` line that covers divergence `d` of a program using `ops`, by its case name:
/// a line naming the divergence's key (`fuzz/glsl-exchange-shared-barrier-memory`), or a line
/// naming the key with operators (`fuzz/glsl-compute-memory-with-mulhis`) all of which the
/// program uses. The status must match as in a run baseline.
pub fn known_line(b: &Baseline, d: &Divergence, ops: &BTreeSet<&str>) -> Option<String> {
    let base = d.known_name();
    if b.expects(&d.backend, &base, d.status) {
        return Some(base);
    }
    b.entries()
        .iter()
        .filter(|e| (e.backend == d.backend || e.backend == "*") && e.expected.matches(d.status))
        .find(|e| {
            listed_ops(&e.case, &base)
                .is_some_and(|l| !l.is_empty() && l.iter().all(|o| ops.contains(o)))
        })
        .map(|e| e.case.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::*;
    use std::path::Path;

    fn program(stmts: Vec<Stmt>) -> Program {
        Program {
            shape: None,
            lang: Lang::Glsl,
            local_size: 1,
            groups: 1,
            blocks: vec![Block::Compute(ComputeBlock { seed: 0, stmts })],
        }
    }

    fn divergence(feature: &str, aspect: &str, block: Option<usize>) -> Divergence {
        Divergence {
            backend: "llvmpipe".into(),
            lang: Lang::Glsl,
            feature: feature.into(),
            aspect: aspect.into(),
            block,
            status: if block.is_some() {
                conform_judge::results::Status::Fail
            } else {
                conform_judge::results::Status::Crash
            },
            message: String::new(),
            details: vec![],
        }
    }

    fn mulhi_of_lid() -> Program {
        program(vec![Stmt::Assign(
            0,
            Expr::bin(BinOp::MulHiS, Expr::Const(7), Expr::Lid),
        )])
    }

    #[test]
    fn signatures_name_the_operators_a_compute_block_kept() {
        let p = program(vec![Stmt::Assign(
            0,
            Expr::bin(BinOp::ShrS, Expr::Lid, Expr::Const(3)),
        )]);
        let d = divergence("compute", "memory", Some(0));
        assert_eq!(signature(&d, &p), "llvmpipe-glsl-compute-memory-with-shrs");
    }

    /// A crash has no diverging block: its signature names what the whole reduced program
    /// kept, so two crash bugs get two signatures.
    #[test]
    fn signatures_of_a_program_crash_name_every_blocks_operators() {
        let d = divergence("program", "crash", None);
        assert_eq!(
            signature(&d, &mulhi_of_lid()),
            "llvmpipe-glsl-program-crash-with-mulhis"
        );
        let empty = program(vec![]);
        assert_eq!(signature(&d, &empty), "llvmpipe-glsl-program-crash");
    }

    /// Every block that computes a value names the operators its reduced form kept: an
    /// exchange, a section, a shuffle and a narrow load, as a compute block does; one that
    /// kept none (an exchange of the invocation index: a barrier bug) keeps the bare key.
    #[test]
    fn signatures_of_value_blocks_name_the_operators_they_kept() {
        let mulhi = Expr::bin(BinOp::MulHiS, Expr::Const(7), Expr::Lid);
        let exchange = |value| Program {
            blocks: vec![Block::Exchange(ExchangeBlock {
                mul: 1,
                add: 0,
                value,
                rounds: 1,
                fence: false,
            })],
            ..program(vec![])
        };
        let d = divergence("exchange-shared-barrier", "memory", Some(0));
        assert_eq!(
            signature(&d, &exchange(mulhi.clone())),
            "llvmpipe-glsl-exchange-shared-barrier-memory-with-mulhis"
        );
        assert_eq!(
            signature(&d, &exchange(Expr::Lid)),
            "llvmpipe-glsl-exchange-shared-barrier-memory"
        );
        // What attribution compares before reducing is what the signature lists after.
        let ops = divergence_ops(&exchange(mulhi), Some(0));
        assert_eq!(ops.into_iter().collect::<Vec<_>>(), ["mulhis"]);
    }

    #[test]
    fn a_finding_attracts_only_programs_with_all_its_operators() {
        let key = "llvmpipe-glsl-compute-memory";
        let sig = "llvmpipe-glsl-compute-memory-with-mulhis-shrs";
        let has = |v: &[&'static str]| v.iter().copied().collect::<BTreeSet<&str>>();
        assert!(attributes(sig, key, &has(&["add", "mulhis", "shrs"])));
        assert!(!attributes(sig, key, &has(&["add", "mulhis"])));
        // Another key's finding never attracts.
        assert!(!attributes(
            sig,
            "zink-glsl-compute-memory",
            &has(&["mulhis", "shrs"])
        ));
        // A finding with no operators attracts every divergence of its key (the old cap
        // behaviour for keys whose feature names the bug).
        assert!(attributes(key, key, &has(&[])));
        // Cut at the length limit: the partial name matches nothing.
        assert!(!attributes(
            "llvmpipe-glsl-compute-memory-with-mulh",
            key,
            &has(&["mulhis"])
        ));
    }

    /// `-` separates operator names in signatures and known lines ([`listed_ops`]), so every
    /// name is one word.
    #[test]
    fn operator_names_are_one_word() {
        let one_word = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric());
        for op in BinOp::ALL {
            assert!(one_word(op.name()), "{}", op.name());
            assert!(
                one_word(crate::ast::wide::name(op)),
                "{}",
                crate::ast::wide::name(op)
            );
        }
        for op in UnOp::ALL {
            assert!(one_word(op.name()), "{}", op.name());
        }
    }

    /// The committed known-divergence file loads, and names only fuzz cases.
    #[test]
    fn the_mesa_known_file_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../cases/baselines/fuzz-mesa-22.3.6.txt");
        let b = Baseline::load(&path).unwrap_or_else(|d| panic!("{}", d[0]));
        assert!(!b.is_empty());
        for e in b.entries() {
            assert!(e.case.starts_with("fuzz/"), "{}: {}", e.origin, e.case);
        }
    }

    #[test]
    fn known_lines_may_name_operators() {
        let text = "llvmpipe,fuzz/glsl-compute-memory-with-mulhis,fail\n\
                    llvmpipe,fuzz/glsl-program-crash-with-mulhis,crash\n\
                    llvmpipe,fuzz/glsl-exchange-shared-barrier-memory,fail\n";
        let b = Baseline::parse(Path::new("known.txt"), text).unwrap();
        let p = mulhi_of_lid();
        let fail = divergence("compute", "memory", Some(0));
        let ops = divergence_ops(&p, Some(0));
        assert_eq!(
            known_line(&b, &fail, &ops).as_deref(),
            Some("fuzz/glsl-compute-memory-with-mulhis")
        );
        let crash = divergence("program", "crash", None);
        assert!(known_line(&b, &crash, &divergence_ops(&p, None)).is_some());
        // A compute divergence without the operator is not the known bug.
        let other = program(vec![Stmt::Assign(
            0,
            Expr::bin(BinOp::Add, Expr::Lid, Expr::Lid),
        )]);
        assert_eq!(
            known_line(&b, &fail, &divergence_ops(&other, Some(0))),
            None
        );
        // The status must match: the crash line does not cover a wrong value.
        let b = Baseline::parse(
            Path::new("known.txt"),
            "llvmpipe,fuzz/glsl-compute-memory-with-mulhis,crash\n",
        )
        .unwrap();
        assert_eq!(known_line(&b, &fail, &ops), None);
        // Another backend's line does not cover it either.
        let b = Baseline::parse(
            Path::new("known.txt"),
            "zink,fuzz/glsl-compute-memory-with-mulhis,fail\n",
        )
        .unwrap();
        assert_eq!(known_line(&b, &fail, &ops), None);
        // The key alone, as before.
        let x = divergence("exchange-shared-barrier", "memory", Some(0));
        let b = Baseline::parse(Path::new("known.txt"), text).unwrap();
        assert!(known_line(&b, &x, &BTreeSet::new()).is_some());
    }
}
