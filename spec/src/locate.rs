//! Finding the line of a JSON pointer in the spec's text.
//!
//! The parsed value has no positions, so the pointer's keys are searched for in order in
//! the text: each key is looked for after the previous one's line, as a YAML key (`key:`)
//! or a JSON key (`"key":`). Array indices count list items (`- ` in YAML, `{` or values
//! in JSON are not counted and keep the previous line). Good enough to point an author at
//! the right place; when a key cannot be found, no line is given rather than a wrong one.

/// 1-based line of the node `pointer` names, when the text shows it.
pub fn line_of(text: &str, pointer: &str) -> Option<usize> {
    Locator::new(text).line_of(pointer)
}

/// Where the search stands after some keys of a pointer: the line of the deepest node
/// found, the line to search on from, whether any key was found, and whether the search
/// gave up (a later key cannot be found below a missing one).
#[derive(Debug, Clone, Copy)]
struct Walk {
    at: usize,
    from: usize,
    found_any: bool,
    stopped: bool,
}

/// Finds the lines of many pointers in one text: the text is split into lines once, and
/// the search state after each pointer prefix is remembered, so warnings under one
/// parent (`/components/schemas/...`) do not each scan the document from the top. On a
/// 3.7 MB description with a few dozen warnings that was a tenth of the generation time.
pub(crate) struct Locator<'a> {
    lines: Vec<&'a str>,
    walked: std::collections::HashMap<String, Walk>,
}

impl<'a> Locator<'a> {
    /// Splits `text` into lines, once for every pointer asked about.
    pub(crate) fn new(text: &'a str) -> Self {
        Locator {
            lines: text.lines().collect(),
            walked: std::collections::HashMap::new(),
        }
    }

    /// 1-based line of the node `pointer` names, when the text shows it.
    pub(crate) fn line_of(&mut self, pointer: &str) -> Option<usize> {
        if pointer.is_empty() {
            return None;
        }
        let mut walk = Walk {
            at: 0,
            from: 0,
            found_any: false,
            stopped: false,
        };
        // Where the pointer's prefix ends after each token (the text before the first
        // `/` is not a token).
        let mut prefix_end = pointer.find('/').unwrap_or(pointer.len());
        for token in pointer.split('/').skip(1) {
            prefix_end += 1 + token.len();
            let prefix = &pointer[..prefix_end];
            walk = match self.walked.get(prefix) {
                Some(known) => *known,
                None => {
                    let next = step(&self.lines, walk, token);
                    self.walked.insert(prefix.to_owned(), next);
                    next
                }
            };
            if walk.stopped {
                break;
            }
        }
        walk.found_any.then_some(walk.at + 1)
    }
}

/// Looks for one pointer token below where `walk` stands.
fn step(lines: &[&str], walk: Walk, token: &str) -> Walk {
    let Walk {
        at,
        from,
        found_any,
        ..
    } = walk;
    let key = token.replace("~1", "/").replace("~0", "~");
    if let Ok(index) = key.parse::<usize>()
        && let Some(line) = nth_item(lines, at, index)
    {
        return Walk {
            at: line,
            from: line,
            found_any: true,
            stopped: false,
        };
    }
    let yaml_keys = [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ];
    let json_key = format!("\"{key}\"");
    let parent_indent = found_any.then(|| indent(lines[at]));
    for (i, line) in lines.iter().enumerate().skip(from) {
        let t = trim_indent(line);
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        // Left the parent's block: the key is not on a line of its own.
        if i > at && parent_indent.is_some_and(|p| line.len() - t.len() <= p) {
            break;
        }
        let mut t = t;
        while let Some(rest) = t.strip_prefix("- ") {
            t = rest;
        }
        let is_key = yaml_keys.iter().any(|k| t.starts_with(k.as_str()))
            || (t.starts_with(&json_key) && t[json_key.len()..].trim_start().starts_with(':'));
        if is_key {
            return Walk {
                at: i,
                from: i + 1,
                found_any: true,
                stopped: false,
            };
        }
    }
    // The deepest node that could be found is the best place to point at.
    Walk {
        stopped: true,
        ..walk
    }
}

/// Indentation of a line, in bytes of leading whitespace.
fn indent(line: &str) -> usize {
    line.len() - trim_indent(line).len()
}

/// `str::trim_start`, byte by byte over the ASCII whitespace that indents every line of
/// a spec (decoding each character of deep JSON indentation was most of the time spent
/// locating warnings); the general form only after a non-ASCII byte.
fn trim_indent(line: &str) -> &str {
    let ascii = line
        .bytes()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r'))
        .count();
    let rest = &line[ascii..];
    if rest.as_bytes().first().is_some_and(|b| !b.is_ascii()) {
        rest.trim_start()
    } else {
        rest
    }
}

/// Line of the `index`th YAML list item (`- `) below line `parent`, at the first item's
/// indentation.
fn nth_item(lines: &[&str], parent: usize, index: usize) -> Option<usize> {
    let mut indent = None;
    let mut count = 0;
    for (i, line) in lines.iter().enumerate().skip(parent + 1) {
        let trimmed = line.trim_start();
        let this_indent = line.len() - trimmed.len();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed.starts_with("- ") || trimmed == "-" {
            match indent {
                None => indent = Some(this_indent),
                Some(n) if this_indent < n => return None,
                Some(n) if this_indent > n => continue,
                _ => {}
            }
            if count == index {
                return Some(i);
            }
            count += 1;
        } else if indent.is_some_and(|n| this_indent <= n) {
            return None;
        } else if indent.is_none() && i > parent + 1 && !trimmed.starts_with('#') {
            // The parent's value is not a block list (flow or JSON): give up on indices.
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_yaml_keys_and_items() {
        let text = "a:\n  b:\n    - x: 1\n    - y: 2\n      c: 3\n";
        assert_eq!(line_of(text, "/a/b"), Some(2));
        assert_eq!(line_of(text, "/a/b/1"), Some(4));
        assert_eq!(line_of(text, "/a/b/1/c"), Some(5));
        assert_eq!(
            line_of(text, "/a/nope"),
            Some(1),
            "the deepest found ancestor"
        );
        assert_eq!(line_of(text, "/nope"), None);
        // A key of a later sibling block is not taken for a missing one.
        let text = "a:\n  b: {c: 1}\nd:\n  c: 2\n";
        assert_eq!(line_of(text, "/a/b/c"), Some(2));
    }

    #[test]
    fn finds_json_keys_with_escapes() {
        let text = "{\n  \"paths\": {\n    \"/a/b\": {\n      \"get\": {}\n    }\n  }\n}\n";
        assert_eq!(line_of(text, "/paths/~1a~1b/get"), Some(4));
    }

    #[test]
    fn indentation_trims_as_trim_start_does() {
        for line in ["", "  a", "\t- b", " \u{a0} c", "\u{2003}d", "   ", "x  "] {
            assert_eq!(trim_indent(line), line.trim_start(), "{line:?}");
        }
    }

    #[test]
    fn a_locator_answers_as_line_of_does_in_any_order() {
        let text = "a:\n  b:\n    - x: 1\n    - y: 2\n      c: 3\nd:\n  c: 4\n  e:\n    - 1\n";
        let pointers = [
            "/a/b/1/c",
            "/a/b",
            "/d/c",
            "/a/nope/c",
            "/a/b/1",
            "/d/e/0",
            "/nope",
            "",
            "/a",
            "/d/c",
            "/a/b/0/x",
            "/a/nope",
        ];
        let mut locator = Locator::new(text);
        for pointer in pointers {
            assert_eq!(
                locator.line_of(pointer),
                line_of(text, pointer),
                "{pointer}"
            );
        }
        assert_eq!(locator.line_of("/a/b/1/c"), Some(5));
        assert_eq!(locator.line_of("/a/nope/c"), Some(1));
        assert_eq!(locator.line_of("/d/c"), Some(7));
    }
}
