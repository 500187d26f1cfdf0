//! One reading of a YAML document, and its cost, checked before anything is built from it.
//!
//! Two parsers read every case file and the clause catalogue: yaml-rust2 (YAML 1.2) for the
//! pre-scan and the position index (`pos.rs`), and libyaml (YAML 1.1) through serde_yaml_ng for
//! the deserializer. They disagree on some characters, and a document that one reads as a
//! short comment the other can read as a list of a hundred thousand aliases: the limits the
//! pre-scan enforces would then hold for a document nobody deserializes. The simplest sound
//! way to make them read the same document is to refuse, anywhere in the file, every
//! character they treat differently, and to count the cost again with the deserializer itself.
//! So [`check`]:
//!
//! 1. refuses the characters the two read differently ([`refused`]): NEL (U+0085), LINE
//!    SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029), line breaks to YAML 1.1 and
//!    ordinary characters to YAML 1.2; a byte order mark (U+FEFF), which libyaml skips and
//!    yaml-rust2 reads as text (`read_text` refuses one at the start of a file); and the
//!    characters YAML does not allow in a stream (C0 controls but tab, LF and CR; DEL; C1
//!    controls; U+FFFE, U+FFFF), which libyaml refuses and yaml-rust2 reads. Anywhere, quoted
//!    scalars included: telling a quoted scalar from a comment is what the two disagree on,
//!    and a double-quoted scalar can still write any of them as an escape (`"\u2028"`). The
//!    diagnostic names `file:line:col` and the code point, never the text around it;
//! 2. runs the pre-scan (`pos::check_shape`): depth, values and bytes of scalar text with
//!    aliases expanded, stopping where the document goes over;
//! 3. counts values and bytes again on the deserializer's own reading (serde_yaml_ng, aliases
//!    replayed as it replays them for the real parse, nothing allocated), stopping where it
//!    goes over: whatever the two parsers might still disagree on, what the real parse builds
//!    is bounded by what this count saw;
//! 4. refuses a document the deserializer reads whole but the pre-scan could not (the index
//!    would locate nothing past that point, and the limits of step 2 did not see it).
//!
//! Syntax errors both parsers see are left to the real parse, whose messages are the ones the
//! malformed-case tests pin. `tests` below runs a corpus of line-break and encoding corners
//! through both parsers.

use crate::pos::{self, Budget, Pos, Scan, ShapeError};
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// What a refused character is, in words, or None for a character both parsers read alike.
pub fn refused(c: char) -> Option<&'static str> {
    Some(match c {
        '\t' | '\n' | '\r' => return None,
        '\u{85}' => "NEXT LINE, a line break to YAML 1.1 (libyaml) and not to YAML 1.2 (yaml-rust2)",
        '\u{2028}' => {
            "LINE SEPARATOR, a line break to YAML 1.1 (libyaml) and not to YAML 1.2 (yaml-rust2)"
        }
        '\u{2029}' => {
            "PARAGRAPH SEPARATOR, a line break to YAML 1.1 (libyaml) and not to YAML 1.2 (yaml-rust2)"
        }
        '\u{feff}' => "a BYTE ORDER MARK, skipped by libyaml and read as text by yaml-rust2",
        '\u{fffe}' | '\u{ffff}' => "a noncharacter, which YAML does not allow",
        c if c.is_control() => "a control character, which YAML does not allow",
        _ => return None,
    })
}

/// The first character of `text` that [`refused`] names, with its position (lines broken at
/// LF, CR LF and CR, as both parsers break them; columns in characters, from 1).
pub fn check_text(text: &str) -> Result<(), ShapeError> {
    let (mut line, mut column) = (1, 0);
    let mut after_cr = false;
    for c in text.chars() {
        if c == '\n' && after_cr {
            after_cr = false;
            continue;
        }
        after_cr = c == '\r';
        if c == '\n' || c == '\r' {
            line += 1;
            column = 0;
            continue;
        }
        column += 1;
        if let Some(what) = refused(c) {
            return Err(ShapeError {
                pos: Pos { line, column },
                message: format!(
                    "U+{:04X} ({what}): the two YAML parsers would read different documents",
                    c as u32
                ),
            });
        }
    }
    Ok(())
}

/// The hint for a refused character.
pub const CHARACTER_HINT: &str =
    "remove it, or write it as an escape in a double-quoted string (\"\\u2028\")";

/// Steps 1 to 4 of the module's description: Ok when both parsers read `text` as one document
/// within `budget`, or when both stop at a syntax error (the real parse reports it).
pub fn check(text: &str, budget: Budget) -> Result<(), ShapeError> {
    check_text(text)?;
    let scan = pos::check_shape(text, budget)?;
    let whole = measure(text, budget)?;
    match scan {
        Scan::Unreadable(e) if whole => Err(ShapeError {
            pos: e.pos,
            message: format!(
                "the YAML pre-scan (yaml-rust2) cannot read the document from here ({}), though the deserializer can: conform reads only documents both read alike",
                e.message
            ),
        }),
        _ => Ok(()),
    }
}

/// Values and bytes of scalar text counted so far on the deserializer's reading.
struct Count {
    budget: Budget,
    nodes: u64,
    bytes: u64,
    over: Option<String>,
}

impl Count {
    fn add<E: de::Error>(&mut self, bytes: usize) -> Result<(), E> {
        self.nodes = self.nodes.saturating_add(1);
        self.bytes = self.bytes.saturating_add(bytes as u64);
        match self.budget.over(self.nodes, self.bytes) {
            Some(message) => {
                self.over = Some(message.clone());
                Err(E::custom(message))
            }
            None => Ok(()),
        }
    }
}

/// Reads `text` with serde_yaml_ng as the real parse does, counting every value (aliases
/// replayed) without keeping any: Ok(true) when it read the whole document within `budget`,
/// Ok(false) when it stopped at an error of its own (a syntax error, its recursion limit), Err
/// at the value where the count went over.
fn measure(text: &str, budget: Budget) -> Result<bool, ShapeError> {
    let mut count = Count {
        budget,
        nodes: 0,
        bytes: 0,
        over: None,
    };
    let read = Measure(&mut count).deserialize(serde_yaml_ng::Deserializer::from_str(text));
    match (read, count.over) {
        (Ok(()), _) => Ok(true),
        (Err(e), Some(message)) => {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            Err(ShapeError {
                pos: Pos { line, column },
                message,
            })
        }
        (Err(_), None) => Ok(false),
    }
}

/// A value of any form, counted and dropped.
struct Measure<'a>(&'a mut Count);

impl<'de> DeserializeSeed<'de> for Measure<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Measure<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.0.add(0)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.0.add(0)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.0.add(0)
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<(), E> {
        self.0.add(0)
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<(), E> {
        self.0.add(0)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.0.add(0)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.add(v.len())
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.0.add(v.len())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.add(0)
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.0.add(0)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.add(0)?;
        while seq.next_element_seed(Measure(&mut *self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.add(0)?;
        while map.next_key_seed(Measure(&mut *self.0))?.is_some() {
            map.next_value_seed(Measure(&mut *self.0))?;
        }
        Ok(())
    }

    /// A tagged value (`!tag value`): the tag and the value.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        use serde::de::VariantAccess;
        let ((), value) = data.variant_seed(Measure(&mut *self.0))?;
        value.newtype_variant_seed(Measure(&mut *self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_yaml_ng::Value;
    use yaml_rust2::{Yaml, YamlLoader};

    fn budget() -> Budget {
        Budget {
            depth: 32,
            nodes: 1 << 18,
            bytes: 16 << 20,
        }
    }

    /// A document as yaml-rust2 reads it, aliases expanded.
    fn rust2(y: &Yaml) -> String {
        match y {
            Yaml::String(s) => format!("{s:?}"),
            Yaml::Integer(i) => i.to_string(),
            Yaml::Boolean(b) => b.to_string(),
            Yaml::Null => "~".into(),
            Yaml::Real(r) => r.clone(),
            Yaml::Array(a) => format!("[{}]", a.iter().map(rust2).collect::<Vec<_>>().join(",")),
            Yaml::Hash(h) => format!(
                "{{{}}}",
                h.iter()
                    .map(|(k, v)| format!("{}:{}", rust2(k), rust2(v)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            other => format!("{other:?}"),
        }
    }

    /// The same for serde_yaml_ng (libyaml).
    fn libyaml(v: &Value) -> String {
        match v {
            Value::String(s) => format!("{s:?}"),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => "~".into(),
            Value::Sequence(a) => {
                format!("[{}]", a.iter().map(libyaml).collect::<Vec<_>>().join(","))
            }
            Value::Mapping(m) => format!(
                "{{{}}}",
                m.iter()
                    .map(|(k, v)| format!("{}:{}", libyaml(k), libyaml(v)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Value::Tagged(t) => format!("!{} {}", t.tag, libyaml(&t.value)),
        }
    }

    /// The corners: every line break and encoding character the two parsers might read
    /// differently, in every place a YAML document can hold it.
    fn corpus() -> Vec<String> {
        let specials = [
            "\n",
            "\r\n",
            "\r",
            "\t",
            "\u{85}",
            "\u{2028}",
            "\u{2029}",
            "\u{feff}",
            "\u{1}",
            "\u{7f}",
            "\u{86}",
            "\u{9f}",
            "\u{fffe}",
            "\u{ffff}",
            "\u{a0}",
            "\u{200b}",
            "\u{1f600}",
            "\u{e000}",
        ];
        let mut docs = Vec::new();
        for c in specials {
            for template in [
                "a: x{c}y\nb: [1, 2]\n",
                "a: 'x{c}y'\nb: [1, 2]\n",
                "a: \"x{c}y\"\nb: [1, 2]\n",
                "# note{c}b: [*a, *a]\na: x\n",
                "a: &a x\n# note{c}b: [*a, *a]\n",
                "a: |\n  x{c}y\nb: [1, 2]\n",
                "a: >\n  x{c}\n  y\nb: z\n",
                "a: [x{c}, y]\nb: {k: v{c}}\n",
                "{c}a: x\n",
                "a: x\n{c}b: y\n",
                "k{c}: v\n",
                "a: x{c}",
                "- a\n- b{c}- c\n",
                "a: \"x\\{c}y\"\n",
            ] {
                docs.push(template.replace("{c}", c));
            }
        }
        // Escapes that write the refused characters inside double quotes are fine.
        docs.push("a: \"x\\u2028y\\Lz\\N\\P\"\n".into());
        docs.push("%YAML 1.1\n---\na: b\n".into());
        docs.push("a: b\n---\nc: d\n".into());
        docs.push("a: b\n...\n".into());
        docs
    }

    #[test]
    fn both_parsers_read_every_corner_alike_or_it_is_refused_where_it_is() {
        let (mut refused_n, mut same, mut both_fail, mut differ) = (0, 0, 0, 0);
        for doc in corpus() {
            match check(&doc, budget()) {
                // A document libyaml reads and yaml-rust2 cannot (a quoted scalar continued
                // at column 1): refused as read differently.
                Err(e) if e.message.starts_with("the YAML pre-scan") => {
                    assert!(YamlLoader::load_from_str(&doc).is_err(), "{doc:?}");
                    assert!(serde_yaml_ng::from_str::<Value>(&doc).is_ok(), "{doc:?}");
                    differ += 1;
                }
                Err(e) => {
                    refused_n += 1;
                    // The position names the refused character.
                    let line = doc
                        .split_inclusive(['\n', '\r'])
                        .filter(|l| *l != "\n")
                        .nth(e.pos.line - 1);
                    let c = line.and_then(|l| l.chars().nth(e.pos.column - 1));
                    let c = c.unwrap_or_else(|| panic!("{doc:?}: {e:?} points nowhere"));
                    assert!(refused(c).is_some(), "{doc:?}: {e:?} points at {c:?}");
                    assert!(e.message.starts_with("U+"), "{e:?}");
                }
                Ok(()) => {
                    let a = YamlLoader::load_from_str(&doc);
                    let b: Result<Value, _> = serde_yaml_ng::from_str(&doc);
                    match (a, b) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(a.len(), 1, "{doc:?}");
                            assert_eq!(rust2(&a[0]), libyaml(&b), "{doc:?}");
                            same += 1;
                        }
                        (Err(_), Err(_)) => both_fail += 1,
                        // Only yaml-rust2 reads it (several documents, a tab before a key):
                        // the real parse refuses it, having built nothing past the error.
                        (Ok(_), Err(_)) => both_fail += 1,
                        (a, b) => panic!("{doc:?} read differently: {a:?} / {b:?}"),
                    }
                }
            }
        }
        // Every refused character, in each of the 14 places; of the 116 others, most read
        // alike and none differently without being refused.
        assert!(refused_n >= 10 * 14 - 1, "{refused_n} refused");
        assert!(
            same >= 80,
            "{same} read alike, {both_fail} refused by both, {differ} read differently"
        );
        assert!(
            differ >= 1,
            "the corpus holds a document only libyaml reads"
        );
    }

    #[test]
    fn the_deserializers_count_stops_what_the_pre_scan_never_saw() {
        // The pre-scan alone (no character check) sees a comment; libyaml sees aliases.
        let big = "x".repeat(1 << 10);
        let refs = vec!["*a"; 100].join(", ");
        let doc = format!("a: &a {big}\n# c\u{2028}b: [{refs}]\n");
        let small = Budget {
            depth: 32,
            nodes: 1000,
            bytes: 16 << 10,
        };
        assert_eq!(pos::check_shape(&doc, small), Ok(Scan::Whole));
        let e = measure(&doc, small).unwrap_err();
        assert!(
            e.message.contains("bytes of text (aliases expanded)"),
            "{e:?}"
        );
        // serde_yaml_ng locates a replayed alias at its anchor.
        assert_eq!(e.pos, Pos { line: 1, column: 4 }, "{e:?}");
        // And the character check refuses it first, where the separator is.
        let e = check(&doc, small).unwrap_err();
        assert_eq!(e.pos, Pos { line: 2, column: 4 });
        // Within the budget, a whole read; a syntax error is the real parse's.
        assert_eq!(measure("a: [1, {b: c}]\n", small), Ok(true));
        assert_eq!(measure("a: [", small), Ok(false));
        assert_eq!(check("a: [", small), Ok(()));
        // Tagged values count their tag and value.
        assert_eq!(measure("a: !t {b: c}\n", small), Ok(true));
    }
}
