//! The project's own decisions: the `x-` extensions spec-model reads (`x-level`,
//! `x-decision`, `x-constraint-levels`, `x-rules`, `x-max-body`, …), compared node by node.
//!
//! A level is a `must`/`should` value anywhere inside them; where an extension names no
//! level it is MUST (spec-model's default), so a level that appears as `should` loosens
//! and one that disappears from `should` tightens. A changed `decision` names another row
//! of DECISIONS.md. Any other difference inside an extension is the rule itself changing.

use std::collections::BTreeMap;

use serde_json::Value;
use spec_model::push_pointer;

use crate::finding::Findings;

/// The extensions spec-model reads (see `spec_model::model`); other vendors' `x-` keys
/// mean nothing to this project and are not compared.
const READ: &[&str] = &[
    "x-length-unit",
    "x-server-errors",
    "x-unknown-path",
    "x-undeclared-method",
    "x-undeclared-status",
    "x-max-body",
    "x-non-bmp",
    "x-mistyped-input",
    "x-rules",
    "x-business-error",
    "x-penalty",
    "x-alternate-encodings",
    "x-encoding-levels",
    "x-rust-name",
    "x-level",
    "x-decision",
    "x-secret",
    "x-combined-max-length",
    "x-constructors",
    "x-constraint-levels",
    "x-rejection",
    "x-rejection-response",
    "x-token-refresh",
];

/// Compares the project's extensions of two documents (as JSON values).
pub fn diff(old: &Value, new: &Value, findings: &mut Findings) {
    let mut a = BTreeMap::new();
    let mut b = BTreeMap::new();
    collect(old, &mut String::new(), &mut a);
    collect(new, &mut String::new(), &mut b);
    for (pointer, before) in &a {
        let after = b.get(pointer).copied();
        compare(pointer, Some(before), after, findings);
    }
    for (pointer, after) in &b {
        if !a.contains_key(pointer) {
            compare(pointer, None, Some(after), findings);
        }
    }
}

/// Every read extension in the document, by pointer. The walk visits every node of the
/// document: one pointer buffer grows and shrinks along it, and a pointer is copied out
/// only for an extension found (a string per node was most of this comparison's time).
fn collect<'v>(value: &'v Value, pointer: &mut String, out: &mut BTreeMap<String, &'v Value>) {
    let len = pointer.len();
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let read = READ.contains(&k.as_str());
                if !read && k.starts_with("x-") {
                    continue;
                }
                push_token(pointer, k);
                if read {
                    out.insert(pointer.clone(), v);
                } else {
                    collect(v, pointer, out);
                }
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                use std::fmt::Write;
                let _ = write!(pointer, "/{i}");
                collect(v, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Appends `/token` to a JSON pointer, escaped as [`push_pointer`] does.
fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// The operation a pointer is inside (`/paths/~1pets/get/...` is `GET /pets`).
fn operation(pointer: &str) -> Option<String> {
    let mut parts = pointer.strip_prefix("/paths/")?.split('/');
    let path = parts.next()?.replace("~1", "/").replace("~0", "~");
    let method = parts.next()?;
    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    METHODS
        .contains(&method)
        .then(|| format!("{} {path}", method.to_uppercase()))
}

fn is_level(v: &Value) -> bool {
    matches!(v.as_str(), Some("must" | "should"))
}

/// Level and decision leaves (relative pointer to value), and the rest with them removed.
fn split(value: &Value, pointer: &str, levels: &mut BTreeMap<String, Value>) -> Value {
    match value {
        Value::Object(map) => {
            let mut rest = serde_json::Map::new();
            for (k, v) in map {
                let p = push_pointer(pointer, k);
                if is_level(v) || k == "decision" || k == "x-decision" {
                    levels.insert(p, v.clone());
                } else {
                    rest.insert(k.clone(), split(v, &p, levels));
                }
            }
            Value::Object(rest)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| split(v, &push_pointer(pointer, &i.to_string()), levels))
                .collect(),
        ),
        v if is_level(v) => {
            levels.insert(pointer.to_owned(), v.clone());
            Value::Null
        }
        v => v.clone(),
    }
}

fn compare(pointer: &str, old: Option<&Value>, new: Option<&Value>, findings: &mut Findings) {
    if old == new {
        return;
    }
    let op = operation(pointer);
    let op = op.as_deref();
    let name = pointer.rsplit('/').next().unwrap_or_default();
    if name == "x-decision" {
        let message = format!("decision {} became {}", show(old), show(new));
        findings.add("decision-changed", op, None, pointer, message);
        return;
    }
    let (mut la, mut lb) = (BTreeMap::new(), BTreeMap::new());
    let ra = old.map(|v| split(v, "", &mut la));
    let rb = new.map(|v| split(v, "", &mut lb));
    let level_only = matches!(name, "x-level" | "x-decision" | "x-constraint-levels");
    if !level_only {
        match (&ra, &rb) {
            (Some(_), None) => {
                let message = format!("`{name}` was removed: {}", show(old));
                findings.add("project-rule-removed", op, None, pointer, message);
                return;
            }
            (None, Some(_)) => {
                let message = format!("`{name}` was added: {}", show(new));
                findings.add("project-rule-added", op, None, pointer, message);
                return;
            }
            (Some(a), Some(b)) if a != b => {
                let (at, x, y) = first_difference(a, b, String::new());
                let message = format!("`{name}{at}` was {} and is {}", show(x), show(y));
                findings.add("project-rule-changed", op, None, pointer, message);
            }
            _ => {}
        }
    }
    let keys: std::collections::BTreeSet<&String> = la.keys().chain(lb.keys()).collect();
    for key in keys {
        let at = format!("{pointer}{key}");
        let (a, b) = (la.get(key), lb.get(key));
        if a == b {
            continue;
        }
        if key.ends_with("/decision") || key.ends_with("/x-decision") {
            let message = format!("decision {} became {}", show(a), show(b));
            findings.add("decision-changed", op, None, &at, message);
            continue;
        }
        // No level stated is MUST.
        let level = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("must").to_owned();
        match (level(a).as_str(), level(b).as_str()) {
            ("must", "should") => {
                let message = format!("{} became SHOULD (was MUST)", describe(pointer, key));
                findings.add("decision-level-loosened", op, None, &at, message);
            }
            ("should", "must") => {
                let message = format!("{} became MUST (was SHOULD)", describe(pointer, key));
                findings.add("decision-level-tightened", op, None, &at, message);
            }
            _ => {}
        }
    }
}

/// The first place two values differ: relative pointer and the two values there.
fn first_difference<'v>(
    a: &'v Value,
    b: &'v Value,
    at: String,
) -> (String, Option<&'v Value>, Option<&'v Value>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    None => return (push_pointer(&at, k), Some(va), None),
                    Some(vb) if va != vb => return first_difference(va, vb, push_pointer(&at, k)),
                    _ => {}
                }
            }
            match y.iter().find(|(k, _)| !x.contains_key(*k)) {
                Some((k, vb)) => (push_pointer(&at, k), None, Some(vb)),
                None => (at, Some(a), Some(b)),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                if va != vb {
                    return first_difference(va, vb, push_pointer(&at, &i.to_string()));
                }
            }
            let i = x.len().min(y.len());
            (push_pointer(&at, &i.to_string()), x.get(i), y.get(i))
        }
        _ => (at, Some(a), Some(b)),
    }
}

fn describe(pointer: &str, key: &str) -> String {
    let name = pointer.rsplit('/').next().unwrap_or_default();
    if key.is_empty() {
        format!("`{name}`")
    } else {
        format!("`{name}{key}`")
    }
}

fn show(v: Option<&Value>) -> String {
    match v {
        None => "(none)".to_owned(),
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() > 80 {
                let cut: String = text.chars().take(77).collect();
                format!("{cut}...")
            } else {
                text
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_are_escaped_as_spec_model_escapes_them() {
        for token in ["pets", "/pets/{id}", "a~b/c", "0"] {
            let mut pointer = "/paths".to_owned();
            push_token(&mut pointer, token);
            assert_eq!(pointer, push_pointer("/paths", token));
        }
    }
}
