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
//! index memory quadratic in the depth), or one whose aliases expand to more nodes than a case
//! file could hold (a "billion laughs"), is refused with the position where it went too far.

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
                    let key = key_text.unwrap_or("?").to_string();
                    let full = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    self.index.keys.insert(full, pos(mark));
                    *pending_key = Some(key);
                    None
                }
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match ev {
            Event::Scalar(text, ..) => {
                if let Some(p) = self.child_path(Some(&text), mark) {
                    self.index.nodes.insert(p, pos(mark));
                }
            }
            Event::Alias(_) => {
                if let Some(p) = self.child_path(Some("*alias"), mark) {
                    self.index.nodes.insert(p, pos(mark));
                }
            }
            Event::SequenceStart(..) => {
                let p = self.child_path(Some("[seq]"), mark).unwrap_or_default();
                self.index.nodes.insert(p.clone(), pos(mark));
                self.stack.push(Frame::Seq { path: p, next: 0 });
            }
            Event::MappingStart(..) => {
                let p = self.child_path(Some("{map}"), mark).unwrap_or_default();
                self.index.nodes.insert(p.clone(), pos(mark));
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

/// Checks that `text` nests at most `max_depth` collections deep and holds at most `max_nodes`
/// nodes once every alias is expanded, reading events only as far as the first violation.
/// Syntax errors are left to the real parse.
pub fn check_shape(text: &str, max_depth: usize, max_nodes: u64) -> Result<(), ShapeError> {
    let mut parser = Parser::new_from_str(text);
    // Nodes of each open collection so far (expanded), and of each finished anchor.
    let mut open: Vec<(usize, u64)> = Vec::new();
    let mut anchors: HashMap<usize, u64> = HashMap::new();
    let mut total: u64 = 0;
    let too = |mark: Marker, message: String| ShapeError {
        pos: pos(mark),
        message,
    };
    loop {
        let (ev, mark) = match parser.next_token() {
            Ok(e) => e,
            // The scanner looks ahead through flow collections and gives up at 256 levels.
            Err(e) if e.info().contains("recursion limit") => {
                return Err(too(
                    *e.marker(),
                    format!("the document nests more than {max_depth} lists and maps deep"),
                ));
            }
            Err(_) => return Ok(()),
        };
        // Nodes this event adds (an alias: its anchor's whole subtree).
        let (added, anchor, opens) = match &ev {
            Event::StreamEnd => return Ok(()),
            Event::Scalar(_, _, anchor, _) => (1, *anchor, false),
            Event::Alias(id) => (anchors.get(id).copied().unwrap_or(1), 0, false),
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => (1, *anchor, true),
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((anchor, nodes)) = open.pop() {
                    if anchor > 0 {
                        anchors.insert(anchor, nodes);
                    }
                    if let Some(parent) = open.last_mut() {
                        parent.1 = parent.1.saturating_add(nodes);
                    }
                }
                continue;
            }
            _ => continue,
        };
        total = total.saturating_add(added);
        if total > max_nodes {
            return Err(too(
                mark,
                format!("the document holds more than {max_nodes} values (aliases expanded)"),
            ));
        }
        if opens {
            if open.len() >= max_depth {
                return Err(too(
                    mark,
                    format!("the document nests more than {max_depth} lists and maps deep"),
                ));
            }
            open.push((anchor, 1));
        } else {
            if anchor > 0 {
                anchors.insert(anchor, 1);
            }
            if let Some(parent) = open.last_mut() {
                parent.1 = parent.1.saturating_add(added);
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

    #[test]
    fn deep_and_exploding_documents_are_stopped_where_they_go_too_far() {
        assert_eq!(check_shape("a: [1, {b: [2]}]\n", 4, 100), Ok(()));
        assert!(check_shape("a: [1, {b: [2]}]\n", 3, 100).is_err());
        let deep = format!("x:\n  {}1{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let t = std::time::Instant::now();
        let e = check_shape(&deep, 32, 1 << 20).unwrap_err();
        assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
        assert_eq!(e.pos.line, 2);
        assert!(e.message.contains("more than 32"), "{e:?}");
        let block = format!("{}1\n", "- ".repeat(100_000));
        let e = check_shape(&block, 32, 1 << 20).unwrap_err();
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
        let e = check_shape(&laughs, 32, 1 << 20).unwrap_err();
        assert!(e.message.contains("aliases expanded"), "{e:?}");
        assert_eq!(e.pos.line, 6);
        // Syntax errors are the real parser's to report.
        assert_eq!(check_shape("a: [", 32, 100), Ok(()));
    }
}
