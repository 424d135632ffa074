//! Reading a large JSON document on two cores: `paths` on one, the rest on the other.
//!
//! The typed read of a large document is a fixed share of the generator's time, paid on
//! one core before anything else can start (nexus: a twelfth of the whole process's
//! instructions). `paths` is about half of a document, and a `PathItem` reads the same
//! wherever its text sits, so the text is cut at the top level: the value of `paths` read
//! on this thread, the document with `"paths": {}` in its place on a second one, and the
//! two put together. Only a document that reads without an error is read this way; any
//! problem (a syntax error, a mistyped field, a boolean schema, a Swagger 2.0 document,
//! a `paths` key given twice or after a key written with escapes) gives `None`, and the
//! caller reads the text whole, as before, for the result and the error message it
//! always gave.

use indexmap::IndexMap;

use crate::model::{OpenApi, PathItem};

/// Below this size the second thread costs more than it saves.
const MIN_LEN: usize = 64 * 1024;

/// The document read as two halves, or `None` when it is not worth it or not certain to
/// read as the whole text does (see the module's documentation).
pub(crate) fn read(text: &str) -> Option<OpenApi> {
    if text.len() < MIN_LEN {
        return None;
    }
    let paths = top_level_value(text, "paths")?;
    let rest = [&text[..paths.start], "{}", &text[paths.end..]].concat();
    let paths_text = &text[paths];
    // The second thread gets the smaller half (nexus: 110 KB against 148 KB of paths):
    // it starts a millisecond or two late, the time the idle core takes to wake.
    std::thread::scope(|scope| {
        let spec = scope.spawn(|| serde_json::from_str::<OpenApi>(&rest));
        let paths = serde_json::from_str::<IndexMap<String, PathItem>>(paths_text);
        let mut spec = spec.join().ok()?.ok()?;
        spec.paths = paths.ok()?;
        Some(spec)
    })
}

/// The byte range of the value of `key` in the document's top-level object: `None` when
/// the text is not an object, the key is missing or comes after a key written with an
/// escape, or the scan meets anything it does not expect (the whole read then says
/// what). The scan stops at the key: the rest of the text is read by serde, which also
/// refuses the key given a second time (a duplicate field), and the whole read then
/// says so as it always did.
fn top_level_value(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return None;
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(b, i)?;
        let name = &b[i + 1..key_end - 1];
        if name.contains(&b'\\') {
            return None;
        }
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(b, i + 1);
        let end = skip_value(b, start)?;
        if name == key.as_bytes() {
            return Some(start..end);
        }
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            _ => return None,
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The end (past the closing quote) of the string that opens at `i`.
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    i += 1;
    loop {
        // Most of a document's bytes are in strings: past the plain ones a few at a time.
        while b.get(i).is_some_and(|&c| c != b'"' && c != b'\\') {
            i += 1;
        }
        match b.get(i)? {
            b'"' => return Some(i + 1),
            _ => i += 2,
        }
    }
}

/// The end of the value that starts at `i`: a string, a balanced object or array, or a
/// scalar up to the next delimiter.
fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                while b
                    .get(i)
                    .is_some_and(|&c| !matches!(c, b'"' | b'{' | b'}' | b'[' | b']'))
                {
                    i += 1;
                }
                match b.get(i)? {
                    b'"' => {
                        i = skip_string(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let start = i;
            while !matches!(
                b.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            (i > start).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_of_a_top_level_key_is_found_whole() {
        let text = r#" { "openapi": "3.0.3", "k": "\\", "info": {"paths": 1}, "paths" : {"/a": {"x": "}\"{\\\"\\"}}, "n": -1.5e3 } "#;
        let range = top_level_value(text, "paths").unwrap();
        assert_eq!(&text[range], r#"{"/a": {"x": "}\"{\\\"\\"}}"#);
        assert_eq!(&text[top_level_value(text, "n").unwrap()], "-1.5e3");
    }

    #[test]
    fn anything_unusual_is_left_to_the_whole_read() {
        for text in [
            r#"{"pa\u0074hs": {}, "paths": {}}"#,
            r#"{"openapi": "3.0.3"}"#,
            r#"{"paths": {"/a": {}"#,
            r#"["paths"]"#,
            r#"{"paths" {}}"#,
        ] {
            assert_eq!(top_level_value(text, "paths"), None, "{text}");
        }
        // A second `paths` is left in the rest, which serde refuses.
        let twice = r#"{"openapi": "3.0.3", "paths": {}, "paths": {"/a": {}}}"#;
        let first = top_level_value(twice, "paths").unwrap();
        let rest = [&twice[..first.start], "{}", &twice[first.end..]].concat();
        assert!(serde_json::from_str::<OpenApi>(&rest).is_err());
    }

    /// A large document reads the same in halves as whole.
    #[test]
    fn the_halves_put_together_are_the_whole() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../codegen/tests/corpus/nexus.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let halves = read(&text).expect("nexus is read in halves");
        let whole: OpenApi = serde_json::from_str(&text).unwrap();
        assert_eq!(format!("{halves:?}"), format!("{whole:?}"));
        assert!(!halves.paths.is_empty());
    }
}
