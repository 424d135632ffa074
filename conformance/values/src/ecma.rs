//! ECMA-262 patterns, as JSON Schema's `pattern` holds them, read by Rust's regex crates:
//! matched anywhere in the string. Before Rust's regex parser reads one, the classes whose
//! meaning differs are written out in ASCII: ECMA's `\d` and `\w` are ASCII-only where
//! Rust's are Unicode. For generation `.` and `\S` are narrowed to printable ASCII, a
//! subset of what they match, so values stay readable in a request. Both the string
//! generator and the flattening of schemas (which tests property names) read patterns
//! here, so they cannot read one two ways.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// How the pattern is rewritten.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Purpose {
    /// To generate from: narrowed classes, anchors kept (removed later from the HIR).
    Generate,
    /// To test a string with the `regex` crate as ECMA-262 would.
    Match,
}

/// An ECMA-262 pattern in Rust regex syntax.
pub(crate) fn rewrite(pattern: &str, purpose: Purpose) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let class = match e {
                    'd' => Some("0-9"),
                    'D' => Some("^0-9"),
                    'w' => Some("A-Za-z0-9_"),
                    'W' => Some("^A-Za-z0-9_"),
                    'S' if purpose == Purpose::Generate => Some("!-~"),
                    _ => None,
                };
                if let Some(cls) = class {
                    if in_class && !cls.starts_with('^') {
                        out.push_str(cls);
                    } else {
                        out.push('[');
                        out.push_str(cls);
                        out.push(']');
                    }
                } else if e == 'u' {
                    // \uXXXX → \x{XXXX}
                    let hex: String = chars.clone().take(4).collect();
                    if hex.len() == 4 && hex.chars().all(|h| h.is_ascii_hexdigit()) {
                        for _ in 0..4 {
                            chars.next();
                        }
                        out.push_str(&format!("\\x{{{hex}}}"));
                    } else {
                        out.push_str("\\u");
                    }
                } else if e == '/' {
                    out.push('/');
                } else {
                    out.push('\\');
                    out.push(e);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                // A leading `]` or `^]` is literal in Rust, but closes an empty class in ECMA.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
            }
            '[' if in_class => out.push_str("\\["),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '.' if !in_class => out.push_str(match purpose {
                Purpose::Generate => "[ -~]",
                Purpose::Match => "[^\\n\\r\\x{2028}\\x{2029}]",
            }),
            _ => out.push(c),
        }
    }
    out
}

/// Compiled matchers, shared: the same patterns recur across a document.
fn matcher(pattern: &str) -> Result<regex::Regex, String> {
    static CACHE: OnceLock<Mutex<HashMap<String, Result<regex::Regex, String>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut guard = cache
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    guard
        .entry(pattern.to_string())
        .or_insert_with(|| {
            regex::Regex::new(&rewrite(pattern, Purpose::Match)).map_err(|e| e.to_string())
        })
        .clone()
}

/// Whether `s` matches the ECMA-262 `pattern` somewhere (JSON Schema's rule).
pub(crate) fn matches(pattern: &str, s: &str) -> Result<bool, String> {
    let (looks, rest) = leading_lookarounds(pattern);
    if looks.is_empty() {
        return Ok(matcher(pattern)?.is_match(s));
    }
    for (negative, body) in &looks {
        let hit = matcher(&format!("^(?:{body})"))?.is_match(s);
        if hit == *negative {
            return Ok(false);
        }
    }
    Ok(matcher(&rest)?.is_match(s))
}

/// Lookarounds at the start of an anchored pattern (`^(?!…)rest`, a common way to exclude
/// one shape, as "a name that is not a UUID"), split off: (negative?, body) each, and the
/// pattern without them. Neither Rust's regex nor `rand_regex` has lookarounds; at the
/// start they are a plain test of the string's beginning.
pub(crate) fn leading_lookarounds(pattern: &str) -> (Vec<(bool, String)>, String) {
    let mut looks = Vec::new();
    let Some(mut rest) = pattern.strip_prefix('^') else {
        return (looks, pattern.to_string());
    };
    loop {
        let negative = if rest.starts_with("(?!") {
            true
        } else if rest.starts_with("(?=") {
            false
        } else {
            break;
        };
        let Some(end) = group_end(rest) else {
            return (Vec::new(), pattern.to_string());
        };
        looks.push((negative, rest[3..end].to_string()));
        rest = &rest[end + 1..];
        rest = rest.strip_prefix('^').unwrap_or(rest);
    }
    (looks, format!("^{rest}"))
}

/// Byte index of the `)` closing the group that opens at 0.
fn group_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_class = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}
