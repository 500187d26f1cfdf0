//! Where each node of a YAML document is: a map from a node's path (`expect[2].values`) to its
//! line and column.
//!
//! serde_yaml_ng gives positions for the errors it finds itself (syntax, unknown keys, wrong
//! types) but not for the checks we make after deserializing (a buffer name that does not
//! exist, an expectation that runs past its buffer). A second, event-level parse with
//! yaml-rust2 records the position of every node by path, so those checks can point at the
//! exact line too. The two parsers agree on structure for every document the first accepts.

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
}
