//! Writing YAML text by hand: scalars (plain when unambiguous, double-quoted otherwise),
//! numbers that read back to the exact value, literal block scalars for program text, and
//! comments.
//!
//! Imported cases carry a `# file:line: command` comment on every step and expectation, and
//! serde cannot emit comments, so the importer writes the text itself. Everything written
//! here reads back through serde_yaml_ng (the loader's parser) to the intended value: block
//! scalars are checked by a round trip and fall back to a quoted string.

/// A string as a YAML scalar: plain when it is a simple word that YAML reads back as the
/// same string, double-quoted otherwise.
pub fn scalar(s: &str) -> String {
    let simple = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    const RESERVED: &[&str] = &[
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf",
    ];
    if simple && !RESERVED.contains(&s.to_ascii_lowercase().as_str()) {
        s.to_string()
    } else {
        quoted(s)
    }
}

/// Characters a YAML double-quoted scalar may hold as they are (YAML 1.1's printable set,
/// which libyaml enforces, minus its line breaks NEL, LS and PS and the BOM).
fn printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// A double-quoted YAML scalar with every non-printable character escaped.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if printable(c) => out.push(c),
            c if (c as u32) <= 0xff => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Text safe for a `#` comment line: one line of printable characters (others escaped).
pub fn comment_text(s: &str) -> String {
    let q = quoted(s);
    q[1..q.len() - 1]
        .replace("\\\"", "\"")
        .replace("\\\\", "\\")
}

/// A list in flow style: `[a, b, c]`.
pub fn flow_list<I: IntoIterator<Item = String>>(items: I) -> String {
    let items: Vec<String> = items.into_iter().collect();
    format!("[{}]", items.join(", "))
}

/// A map in flow style from (key, already-rendered value) pairs: `{a: 1, b: x}`.
pub fn flow_map(pairs: &[(&str, String)]) -> String {
    let inner: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", inner.join(", "))
}

/// An f64 as a YAML float that parses back to exactly `x` (`"inf"`, `"-inf"`, and NaN as
/// its raw bits `"0x..."`, which the case loader reads as bits for float types).
pub fn f64_text(x: f64) -> String {
    if x.is_nan() {
        return quoted(&format!("0x{:016x}", x.to_bits()));
    }
    if x.is_infinite() {
        return quoted(if x > 0.0 { "inf" } else { "-inf" });
    }
    float_literal(format!("{x:?}"))
}

/// An f32 as a YAML float that the case loader (which reads an f64 and rounds it to f32)
/// turns back into exactly `x`: the shortest decimal when it survives that double rounding,
/// the exact f64 value otherwise.
pub fn f32_text(x: f32) -> String {
    if x.is_nan() {
        return quoted(&format!("0x{:08x}", x.to_bits()));
    }
    if x.is_infinite() {
        return quoted(if x > 0.0 { "inf" } else { "-inf" });
    }
    let short = float_literal(format!("{x:?}"));
    match short.parse::<f64>() {
        Ok(v) if (v as f32).to_bits() == x.to_bits() => short,
        _ => f64_text(x as f64),
    }
}

/// Rust's float text as a YAML float: `1e10` becomes `1.0e10` (YAML 1.1 floats need a dot).
fn float_literal(s: String) -> String {
    match s.find(['e', 'E']) {
        Some(i) if !s[..i].contains('.') => format!("{}.0{}", &s[..i], &s[i..]),
        _ => s,
    }
}

/// `key: |` and `text` as a literal block scalar indented to `indent` + 2 spaces (the key
/// itself at `indent`), or `key: "..."` when the block form would not read back exactly.
pub fn block_entry(indent: usize, key: &str, text: &str) -> String {
    let pad = " ".repeat(indent);
    if let Some(block) = literal_block(indent, text) {
        let candidate = format!("{pad}{key}: {block}");
        if reads_back(&candidate, indent, key, text) {
            return candidate;
        }
    }
    format!("{pad}{key}: {}\n", quoted(text))
}

fn literal_block(indent: usize, text: &str) -> Option<String> {
    if text.is_empty() || !text.chars().all(|c| c == '\n' || c == '\t' || printable(c)) {
        return None;
    }
    let chomp = if !text.ends_with('\n') {
        "-"
    } else if text.ends_with("\n\n") {
        "+"
    } else {
        ""
    };
    let body = text.strip_suffix('\n').unwrap_or(text);
    // The first line that is not all spaces decides YAML's detected indentation; state it
    // when that line starts with a space or blank lines before it carry spaces.
    let first_content = body.lines().find(|l| !l.trim_start_matches(' ').is_empty());
    let leading_spaces = body
        .lines()
        .take_while(|l| l.trim_start_matches(' ').is_empty())
        .any(|l| !l.is_empty());
    let explicit = first_content.is_none_or(|l| l.starts_with(' ')) || leading_spaces;
    let indicator = if explicit { "2" } else { "" };
    let pad = " ".repeat(indent + 2);
    let mut out = format!("|{indicator}{chomp}\n");
    for line in body.split('\n') {
        if line.is_empty() {
            out.push('\n');
        } else {
            out.push_str(&pad);
            out.push_str(line);
            out.push('\n');
        }
    }
    Some(out)
}

/// Whether `entry` (a `key: value` line at `indent`) parses back to `text`.
fn reads_back(entry: &str, indent: usize, key: &str, text: &str) -> bool {
    // Nest the entry under enough parent keys to reproduce its indentation.
    let mut doc = String::new();
    let levels = indent / 2;
    for level in 0..levels {
        doc.push_str(&" ".repeat(level * 2));
        doc.push_str("k:\n");
    }
    doc.push_str(entry);
    let Ok(mut value) = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(&doc) else {
        return false;
    };
    for _ in 0..levels {
        match value.get("k") {
            Some(v) => value = v.clone(),
            None => return false,
        }
    }
    value.get(key).and_then(|v| v.as_str()) == Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;
    use serde_yaml_ng::Value;

    fn read(doc: &str) -> Value {
        serde_yaml_ng::from_str(doc).unwrap()
    }

    #[test]
    fn scalars_read_back() {
        for s in [
            "abc",
            "a/b-c.d",
            "a[2]",
            "yes",
            "NULL",
            "x: y",
            "-1",
            "",
            "é\u{85}\u{7f}\"\\",
            "inf",
        ] {
            let v = read(&format!("k: {}", scalar(s)));
            assert_eq!(v["k"].as_str(), Some(s), "{s:?}");
        }
    }

    #[test]
    fn floats_read_back_exactly() {
        for x in [
            0.1f32,
            1e10,
            1e-7,
            16777217.0,
            f32::MIN_POSITIVE,
            1.0e-45,
            -0.0,
            3.4028235e38,
        ] {
            let v = read(&format!("k: {}", f32_text(x)));
            assert_eq!(
                (v["k"].as_f64().unwrap() as f32).to_bits(),
                x.to_bits(),
                "{x}"
            );
        }
        for x in [0.1f64, 1e300, 5e-324, -2.5, 2.220446049250313e-16] {
            let v = read(&format!("k: {}", f64_text(x)));
            assert_eq!(v["k"].as_f64().unwrap().to_bits(), x.to_bits(), "{x}");
        }
        assert_eq!(f32_text(f32::NAN), "\"0x7fc00000\"");
        assert_eq!(f64_text(f64::INFINITY), "\"inf\"");
    }

    #[test]
    fn block_scalars_cover_awkward_text() {
        for text in [
            "void main() {}\n",
            "no newline",
            "two\n\n",
            "  leading space\nx\n",
            "\n\nafter blanks\n",
            "   \n  \nx\n",
            "tab\tinside\n\tstarts with tab\n",
            "trailing spaces   \n",
        ] {
            let entry = block_entry(2, "source", text);
            let doc = format!("p:\n{entry}");
            assert_eq!(read(&doc)["p"]["source"].as_str(), Some(text), "{entry}");
        }
        assert!(block_entry(0, "source", "void main() {}\n").starts_with("source: |\n"));
        assert!(block_entry(0, "s", "a\rb").starts_with("s: \""));
    }

    quickcheck! {
        fn any_text_reads_back(text: String, indent: u8) -> bool {
            let indent = (indent % 3) as usize * 2;
            let entry = block_entry(indent, "source", &text);
            let mut doc = String::new();
            for level in 0..indent / 2 {
                doc.push_str(&" ".repeat(level * 2));
                doc.push_str("k:\n");
            }
            doc.push_str(&entry);
            let mut v: Value = serde_yaml_ng::from_str(&doc).unwrap();
            for _ in 0..indent / 2 {
                v = v["k"].clone();
            }
            v["source"].as_str() == Some(text.as_str())
        }

        fn any_scalar_reads_back(s: String) -> bool {
            let v: Value = serde_yaml_ng::from_str(&format!("k: {}", scalar(&s))).unwrap();
            v["k"].as_str() == Some(s.as_str())
        }

        fn comments_stay_one_line(s: String) -> bool {
            let c = comment_text(&s);
            let v: Value = serde_yaml_ng::from_str(&format!("# {c}\nk: 1")).unwrap();
            v["k"].as_u64() == Some(1)
        }

        fn any_f32_reads_back(bits: u32) -> bool {
            let x = f32::from_bits(bits);
            let v: Value = serde_yaml_ng::from_str(&format!("k: {}", f32_text(x))).unwrap();
            match &v["k"] {
                Value::String(s) if x.is_nan() => s == &format!("0x{bits:08x}"),
                Value::String(s) => s == if x > 0.0 { "inf" } else { "-inf" },
                n => (n.as_f64().unwrap() as f32).to_bits() == bits,
            }
        }
    }
}
