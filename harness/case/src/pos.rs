//! Where each node of a YAML document is: a map from a node's path (`expect[2].values`) to its
//! line and column.
//!
//! serde_yaml_ng gives positions for the errors it finds itself (syntax, unknown keys, wrong
//! types) but not for the checks we make after deserializing (a buffer name that does not
//! exist, an expectation that runs past its buffer). A second, event-level parse with
//! yaml-rust2 records the position of every node by path, so those checks can point at the
//! exact line too. The two parsers agree on structure for every document the first accepts.
//!
//! [`check_shape`] runs first, on the same event stream, and stops early: a document nested
//! deeper than a case ever is (a 100k-deep sequence would take serde tens of seconds, and this
//! index memory quadratic in the depth), or one whose aliases expand to more nodes or more
//! bytes of text than a case file could hold (a "billion laughs", a scalar of megabytes named
//! a hundred thousand times), is refused with the position where it went too far. `yaml.rs`
//! runs it, with the character check before it and the deserializer's own count after it.
//!
//! Paths are bounded: a long key stands as `?` in them and a path over 128 bytes is not
//! recorded (its node is located at its nearest recorded ancestor), so the index costs at most
//! a few tens of MiB whatever the keys hold.

use std::collections::HashMap;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

/// Positions of nodes (by path) and of mapping keys (by the path of the value they introduce).
#[derive(Debug, Default)]
pub struct PosIndex {
    nodes: HashMap<String, Pos>,
    keys: HashMap<String, Pos>,
}

impl PosIndex {
    pub fn build(text: &str) -> PosIndex {
        let mut builder = Builder::default();
        // Errors are reported by serde_yaml_ng; a partial index is still useful.
        let _ = Parser::new_from_str(text).load(&mut builder, false);
        builder.index
    }

    /// Position of the node at `path`, or of its closest recorded ancestor.
    pub fn node(&self, path: &str) -> Pos {
        let mut p = path;
        loop {
            if let Some(pos) = self.nodes.get(p) {
                return *pos;
            }
            match parent(p) {
                Some(up) => p = up,
                None => return Pos::default(),
            }
        }
    }

    /// Position of the key that introduces `path` (falls back to the node).
    pub fn key(&self, path: &str) -> Pos {
        self.keys
            .get(path)
            .copied()
            .unwrap_or_else(|| self.node(path))
    }
}

fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    let cut = path.rfind(['.', '[']).unwrap_or(0);
    Some(&path[..cut])
}

enum Frame {
    Map {
        path: String,
        /// The key whose value comes next, or None when a key comes next.
        pending_key: Option<String>,
    },
    Seq {
        path: String,
        next: usize,
    },
}

#[derive(Default)]
struct Builder {
    index: PosIndex,
    stack: Vec<Frame>,
}

/// Keys longer than this (or holding a `.` or `[`) stand in paths as [`LONG_KEY`]: no key the
/// checker looks up is near that long, and a key of megabytes would otherwise be copied into
/// the path of every node below it.
const MAX_KEY_IN_PATH: usize = 64;
const LONG_KEY: &str = "?";
/// Paths longer than this are not recorded: their nodes are located at the nearest recorded
/// ancestor. The index of a document of 2^18 nodes then holds at most 32 MiB of paths.
const MAX_PATH_BYTES: usize = 128;

fn path_key(key: &str) -> &str {
    if key.len() > MAX_KEY_IN_PATH || key.contains(['.', '[']) {
        LONG_KEY
    } else {
        key
    }
}

fn pos(mark: Marker) -> Pos {
    Pos {
        line: mark.line(),
        column: mark.col() + 1,
    }
}

impl Builder {
    /// Path of the node starting now, advancing the parent's state. None when the event is a
    /// mapping key.
    fn child_path(&mut self, key_text: Option<&str>, mark: Marker) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Seq { path, next }) => {
                let p = format!("{path}[{next}]");
                *next += 1;
                Some(p)
            }
            Some(Frame::Map { path, pending_key }) => match pending_key.take() {
                Some(key) => Some(if path.is_empty() {
                    key
                } else {
                    format!("{path}.{key}")
                }),
                None => {
                    // This node is a key.
                    let key = path_key(key_text.unwrap_or(LONG_KEY)).to_string();
                    let full = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    if full.len() <= MAX_PATH_BYTES {
                        self.index.keys.insert(full, pos(mark));
                    }
                    *pending_key = Some(key);
                    None
                }
            },
        }
    }
}

impl Builder {
    fn record(&mut self, path: &str, mark: Marker) {
        if path.len() <= MAX_PATH_BYTES {
            self.index.nodes.insert(path.to_string(), pos(mark));
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match ev {
            Event::Scalar(text, ..) => {
                if let Some(p) = self.child_path(Some(&text), mark) {
                    self.record(&p, mark);
                }
            }
            Event::Alias(_) => {
                if let Some(p) = self.child_path(Some("*alias"), mark) {
                    self.record(&p, mark);
                }
            }
            Event::SequenceStart(..) => {
                let p = self.child_path(Some("[seq]"), mark).unwrap_or_default();
                self.record(&p, mark);
                self.stack.push(Frame::Seq { path: p, next: 0 });
            }
            Event::MappingStart(..) => {
                let p = self.child_path(Some("{map}"), mark).unwrap_or_default();
                self.record(&p, mark);
                self.stack.push(Frame::Map {
                    path: p,
                    pending_key: None,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}

/// A document too deep or too large: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    pub pos: Pos,
    pub message: String,
}

/// What a document may cost once read: how deep, how many values and how many bytes of
/// scalar text, aliases expanded (`limits.rs` has the case file's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub depth: usize,
    pub nodes: u64,
    pub bytes: u64,
}

impl Budget {
    /// The message for a document over `nodes` or `bytes`.
    pub fn over(&self, nodes: u64, bytes: u64) -> Option<String> {
        if nodes > self.nodes {
            Some(format!(
                "the document holds more than {} values (aliases expanded)",
                self.nodes
            ))
        } else if bytes > self.bytes {
            Some(format!(
                "the document holds more than {} bytes of text (aliases expanded)",
                self.bytes
            ))
        } else {
            None
        }
    }

    fn too_deep(&self) -> String {
        format!(
            "the document nests more than {} lists and maps deep",
            self.depth
        )
    }
}

/// What [`check_shape`] made of a document within its budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scan {
    /// Read to its end.
    Whole,
    /// yaml-rust2 stopped at a syntax error (where, and its message): what comes after was
    /// not counted.
    Unreadable(ShapeError),
}

/// Checks that `text` nests at most `budget.depth` collections deep and holds at most
/// `budget.nodes` nodes and `budget.bytes` bytes of scalar text (keys too) once every alias is
/// expanded, reading events only as far as the first violation. A syntax error ends the scan
/// ([`Scan::Unreadable`]): the caller decides (`yaml.rs`).
pub fn check_shape(text: &str, budget: Budget) -> Result<Scan, ShapeError> {
    let mut parser = Parser::new_from_str(text);
    // (anchor, nodes, bytes) of each open collection so far (expanded); (nodes, bytes) of each
    // finished anchor.
    let mut open: Vec<(usize, u64, u64)> = Vec::new();
    let mut anchors: HashMap<usize, (u64, u64)> = HashMap::new();
    let (mut nodes, mut bytes) = (0u64, 0u64);
    let too = |mark: Marker, message: String| ShapeError {
        pos: pos(mark),
        message,
    };
    loop {
        let (ev, mark) = match parser.next_token() {
            Ok(e) => e,
            // The scanner looks ahead through flow collections and gives up at 256 levels.
            Err(e) if e.info().contains("recursion limit") => {
                return Err(too(*e.marker(), budget.too_deep()));
            }
            Err(e) => {
                return Ok(Scan::Unreadable(too(*e.marker(), e.info().to_string())));
            }
        };
        // Nodes and bytes this event adds (an alias: its anchor's whole subtree).
        let ((added, added_bytes), anchor, opens) = match &ev {
            Event::StreamEnd => return Ok(Scan::Whole),
            Event::Scalar(text, _, anchor, _) => ((1, text.len() as u64), *anchor, false),
            Event::Alias(id) => (anchors.get(id).copied().unwrap_or((1, 0)), 0, false),
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                ((1, 0), *anchor, true)
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, n, b)) = open.pop() {
                    if anchor > 0 {
                        anchors.insert(anchor, (n, b));
                    }
                    if let Some(parent) = open.last_mut() {
                        parent.1 = parent.1.saturating_add(n);
                        parent.2 = parent.2.saturating_add(b);
                    }
                }
                continue;
            }
            _ => continue,
        };
        nodes = nodes.saturating_add(added);
        bytes = bytes.saturating_add(added_bytes);
        if let Some(message) = budget.over(nodes, bytes) {
            return Err(too(mark, message));
        }
        if opens {
            if open.len() >= budget.depth {
                return Err(too(mark, budget.too_deep()));
            }
            open.push((anchor, 1, 0));
        } else {
            if anchor > 0 {
                anchors.insert(anchor, (added, added_bytes));
            }
            if let Some(parent) = open.last_mut() {
                parent.1 = parent.1.saturating_add(added);
                parent.2 = parent.2.saturating_add(added_bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_nested_paths() {
        let text =
            "name: x\nexpect:\n  - buffer: out\n    values: [1, 2]\n  - {buffer: b, at: 3}\n";
        let idx = PosIndex::build(text);
        assert_eq!(idx.node("name"), Pos { line: 1, column: 7 });
        assert_eq!(
            idx.node("expect[0].buffer"),
            Pos {
                line: 3,
                column: 13
            }
        );
        assert_eq!(idx.key("expect[0].values"), Pos { line: 4, column: 5 });
        assert_eq!(
            idx.node("expect[0].values[1]"),
            Pos {
                line: 4,
                column: 17
            }
        );
        assert_eq!(
            idx.node("expect[1].at"),
            Pos {
                line: 5,
                column: 21
            }
        );
        // Unknown paths fall back to the closest ancestor.
        assert_eq!(idx.node("expect[1].nope"), idx.node("expect[1]"));
    }

    fn budget(depth: usize, nodes: u64) -> Budget {
        Budget {
            depth,
            nodes,
            bytes: 1 << 20,
        }
    }

    #[test]
    fn deep_and_exploding_documents_are_stopped_where_they_go_too_far() {
        assert_eq!(
            check_shape("a: [1, {b: [2]}]\n", budget(4, 100)),
            Ok(Scan::Whole)
        );
        assert!(check_shape("a: [1, {b: [2]}]\n", budget(3, 100)).is_err());
        let deep = format!("x:\n  {}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let t = std::time::Instant::now();
        let e = check_shape(&deep, budget(32, 1 << 20)).unwrap_err();
        assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
        assert_eq!(e.pos.line, 2);
        assert!(e.message.contains("more than 32"), "{e:?}");
        let block = format!("{}1\n", "- ".repeat(100_000));
        let e = check_shape(&block, budget(32, 1 << 20)).unwrap_err();
        assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
        assert_eq!(
            e.pos,
            Pos {
                line: 1,
                column: 65
            }
        );
        // Ten aliases of ten aliases of ...: small text, huge expansion.
        let mut laughs = String::from("l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n");
        for i in 1..9 {
            let refs = vec![format!("*l{}", i - 1); 10].join(", ");
            laughs.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
        }
        let e = check_shape(&laughs, budget(32, 1 << 20)).unwrap_err();
        assert!(e.message.contains("aliases expanded"), "{e:?}");
        assert_eq!(e.pos.line, 6);
        // Syntax errors end the scan, with where they are.
        match check_shape("a: [", budget(32, 100)) {
            Ok(Scan::Unreadable(e)) => {
                assert_eq!(e.pos.line, 2, "{e:?}");
                assert!(e.message.contains("did not find expected node content"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn scalar_bytes_count_once_per_alias_keys_included() {
        let b = |bytes| Budget {
            depth: 8,
            nodes: 1000,
            bytes,
        };
        // `big`, the anchored 10 bytes, `l`, then 5 aliases of it: 64 bytes in all.
        let text = "big: &a xxxxxxxxxx\nl: [*a, *a, *a, *a, *a]\n";
        assert_eq!(check_shape(text, b(64)), Ok(Scan::Whole));
        let e = check_shape(text, b(63)).unwrap_err();
        assert!(
            e.message.contains("bytes of text (aliases expanded)"),
            "{e:?}"
        );
        assert_eq!(
            e.pos,
            Pos {
                line: 2,
                column: 21
            }
        );
        // An anchored list counts its keys and values each time.
        let text = "a: &m {kkkk: vvvv}\nb: [*m, *m]\n";
        assert_eq!(check_shape(text, b(26)), Ok(Scan::Whole));
        assert!(check_shape(text, b(25)).is_err());
    }

    #[test]
    fn long_keys_are_not_repeated_in_every_path_below_them() {
        let key = "k".repeat(1 << 20);
        let text = format!("s:\n  - {{{key}: [{}]}}\n", vec!["0"; 20_000].join(", "));
        let idx = PosIndex::build(&text);
        let held: usize = idx
            .nodes
            .keys()
            .chain(idx.keys.keys())
            .map(String::len)
            .sum();
        assert!(held < 1 << 20, "the index holds {held} bytes of paths");
        assert_eq!(idx.node("s[0]").line, 2);
        assert_eq!(idx.node(&format!("s[0].{key}[7]")).line, 2);
    }
}
