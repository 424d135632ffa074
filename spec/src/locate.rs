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
///
/// A parent asked about for more than two keys is indexed ([`Block`]): the keys of its
/// lines are kept as the search passes them, so the next key under it is looked up, or
/// the search goes on from where the last one stopped, instead of scanning the parent's
/// block again from its top. Prefect's spec has its warnings under some fifty schemas of
/// one `components/schemas` block thirty thousand lines long: each scanned it anew, a
/// tenth of the whole generation's instructions.
pub(crate) struct Locator<'a> {
    lines: Vec<&'a str>,
    walked: std::collections::HashMap<String, Walk>,
    /// The blocks asked about so far, by where their search starts (`from`, `at` and
    /// `found_any` of the parent's walk).
    blocks: std::collections::HashMap<(usize, usize, bool), Block<'a>>,
}

/// The longest key a [`Block`] keeps: a line's keys are its prefixes before each colon
/// (a YAML key may hold colons), and a minified document is one line of megabytes with
/// as many colons, so only the first bytes of each line are indexed; a longer key is
/// searched for line by line.
const INDEXED_KEY: usize = 128;

/// The keys met so far in one parent's block (see [`Locator`]).
#[derive(Default)]
struct Block<'a> {
    /// How many keys were asked about under the parent.
    asked: usize,
    /// Each key met on the lines indexed so far, with the first line it is on.
    keys: std::collections::HashMap<&'a str, usize, std::hash::BuildHasherDefault<WordHash>>,
    /// The next line to index, once indexing has started.
    next: Option<usize>,
    /// Whether the block's end was reached.
    done: bool,
}

/// A multiply-rotate hash taking eight bytes at a time (as rustc's `FxHasher` does), for
/// the short keys of [`Block`]: no protection against chosen collisions is needed there,
/// and SipHash's cost would be most of indexing a line.
#[derive(Default)]
struct WordHash(u64);

impl WordHash {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for WordHash {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0; 8];
        word[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl<'a> Locator<'a> {
    /// Splits `text` into lines, once for every pointer asked about.
    pub(crate) fn new(text: &'a str) -> Self {
        Locator {
            lines: text.lines().collect(),
            walked: std::collections::HashMap::new(),
            blocks: std::collections::HashMap::new(),
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
                    let next = self.step(walk, token);
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

    /// Looks for one pointer token below where `walk` stands.
    fn step(&mut self, walk: Walk, token: &str) -> Walk {
        let Walk {
            at,
            from,
            found_any,
            ..
        } = walk;
        let lines = &self.lines;
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
        let block = Scan {
            lines,
            at,
            parent_indent: found_any.then(|| indent(lines[at])),
        };
        let index = self.blocks.entry((from, at, found_any)).or_default();
        index.asked += 1;
        // A parent asked about once or twice is scanned: indexing a line costs a few
        // scans of it.
        let found = if index.asked <= 2 || key.len() > INDEXED_KEY {
            block.find(from, &key)
        } else {
            index.find(&block, from, &key)
        };
        match found {
            Some(i) => Walk {
                at: i,
                from: i + 1,
                found_any: true,
                stopped: false,
            },
            // The deepest node that could be found is the best place to point at.
            None => Walk {
                stopped: true,
                ..walk
            },
        }
    }
}

/// Where a key is searched for: below line `at`, inside the block of the parent that is
/// indented `parent_indent` (none: the whole text).
struct Scan<'s, 'a> {
    lines: &'s [&'a str],
    at: usize,
    parent_indent: Option<usize>,
}

/// What a line of a block holds for the key search.
enum Line<'a> {
    /// Nothing (blank, a comment).
    Skip,
    /// The line leaves the parent's block: the search ends.
    End,
    /// The line's text, indentation and list dashes taken off.
    Text(&'a str),
}

impl<'a> Scan<'_, 'a> {
    /// Line `i` of the block.
    fn line(&self, i: usize) -> Line<'a> {
        let line = self.lines[i];
        let t = trim_indent(line);
        if t.is_empty() || t.starts_with('#') {
            return Line::Skip;
        }
        // Left the parent's block: the key is not on a line of its own.
        if i > self.at
            && self
                .parent_indent
                .is_some_and(|p| line.len() - t.len() <= p)
        {
            return Line::End;
        }
        let mut t = t;
        while let Some(rest) = t.strip_prefix("- ") {
            t = rest;
        }
        Line::Text(t)
    }

    /// The first line from `from` on that holds `key` as a key, scanning line by line.
    fn find(&self, from: usize, key: &str) -> Option<usize> {
        let yaml_keys = [
            format!("{key}:"),
            format!("\"{key}\":"),
            format!("'{key}':"),
        ];
        let json_key = format!("\"{key}\"");
        for i in from..self.lines.len() {
            let t = match self.line(i) {
                Line::Skip => continue,
                Line::End => break,
                Line::Text(t) => t,
            };
            let is_key = yaml_keys.iter().any(|k| t.starts_with(k.as_str()))
                || (t.starts_with(&json_key) && t[json_key.len()..].trim_start().starts_with(':'));
            if is_key {
                return Some(i);
            }
        }
        None
    }
}

impl<'a> Block<'a> {
    /// [`Scan::find`], through the index: the key's line when an indexed line holds it,
    /// else the lines after the last indexed one are indexed until one does.
    fn find(&mut self, block: &Scan<'_, 'a>, from: usize, key: &str) -> Option<usize> {
        if let Some(line) = self.keys.get(key) {
            return Some(*line);
        }
        let mut i = self.next.unwrap_or(from);
        while !self.done && i < block.lines.len() {
            match block.line(i) {
                Line::Skip => {}
                Line::End => self.done = true,
                Line::Text(t) => {
                    let mut hit = false;
                    keys_of(t, |k| {
                        hit |= k == key;
                        self.keys.entry(k).or_insert(i);
                    });
                    if hit {
                        self.next = Some(i + 1);
                        return Some(i);
                    }
                }
            }
            i += 1;
        }
        self.done = true;
        None
    }
}

/// Every key of at most [`INDEXED_KEY`] bytes that a line's text holds for
/// [`Scan::find`]: each `k` for which it starts with `k:`, `'k':`, `"k":` or `"k"` then
/// spaces and `:`.
fn keys_of<'a>(t: &'a str, mut key: impl FnMut(&'a str)) {
    let bytes = t.as_bytes();
    let quote = bytes.first().copied();
    // The byte after a key, at most `INDEXED_KEY + 1` in (after its opening quote).
    for (p, b) in bytes.iter().enumerate().take(INDEXED_KEY + 2) {
        match b {
            b':' => key(&t[..p]),
            b'\'' if p > 0 && quote == Some(b'\'') && bytes.get(p + 1) == Some(&b':') => {
                key(&t[1..p]);
            }
            b'"' if p > 0 && quote == Some(b'"') && t[p + 1..].trim_start().starts_with(':') => {
                key(&t[1..p]);
            }
            _ => {}
        }
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
    // Eight spaces at a time first: a pretty-printed JSON document indents its deep
    // lines by dozens.
    let bytes = line.as_bytes();
    let mut spaces = 0;
    while bytes
        .get(spaces..spaces + 8)
        .is_some_and(|b| b == b"        ")
    {
        spaces += 8;
    }
    let ascii = spaces
        + bytes[spaces..]
            .iter()
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
    fn an_indexed_block_answers_as_a_scan_of_it_does() {
        // Keys under one parent asked about many times, in and out of order, on lines
        // whose values hold colons and quotes, in JSON and in YAML.
        let json = "{\n  \"s\": {\n    \"a:b\": {\"x\": 1},\n    \"b\": \"c: \\\"d\\\": e\",\n    \"c\" : {\n      \"a\": 2,\n      \"d\": 3\n    },\n    \"d\": {}\n  },\n  \"t\": {\"d\": 4}\n}\n";
        let yaml = "s:\n  a:b: 1\n  'q': x: y\n  b: \"c: d\"\n  - c:\n      a: 2\n  d: 3\n  '': 4\nt:\n  d: 5\n";
        for text in [json, yaml] {
            let keys = [
                "d",
                "a:b",
                "b",
                "c",
                "a",
                "x",
                "q",
                "nope",
                "e",
                "c: \\\"d\\\"",
                "\"b\"",
                "",
            ];
            let mut locator = Locator::new(text);
            for round in 0..2 {
                for key in keys.iter().chain(keys.iter().rev()) {
                    for pointer in [format!("/s/{key}"), format!("/t/{key}"), format!("/{key}")] {
                        assert_eq!(
                            locator.line_of(&pointer),
                            line_of(text, &pointer),
                            "{pointer} in round {round} of {text}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_key_longer_than_the_index_keeps_is_still_found() {
        let long = "k".repeat(INDEXED_KEY + 5);
        let text = format!("s:\n  a: 1\n  {long}: 2\n  {long}x: 3\n  b: 4\n");
        let mut locator = Locator::new(&text);
        for pointer in ["/s/a", "/s/b"] {
            assert_eq!(locator.line_of(pointer), line_of(&text, pointer));
        }
        assert_eq!(locator.line_of(&format!("/s/{long}")), Some(3));
        assert_eq!(locator.line_of(&format!("/s/{long}x")), Some(4));
        // A minified document: one line, every key on it.
        let one = format!("{{\"s\": {{\"{long}\": {{\"a\": 1}}, \"b\": 2}}}}");
        let mut locator = Locator::new(&one);
        for pointer in ["/s", "/s/b", "/s/a", "/x"] {
            assert_eq!(
                locator.line_of(pointer),
                line_of(&one, pointer),
                "{pointer}"
            );
        }
    }

    #[test]
    fn indentation_trims_as_trim_start_does() {
        for line in [
            "",
            "  a",
            "\t- b",
            " \u{a0} c",
            "\u{2003}d",
            "   ",
            "x  ",
            "          \t  a",
            "        ",
            "         \u{a0}b",
        ] {
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
