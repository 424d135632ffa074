//! Each case stands alone: a create's fields that look unique to the target (a `name`,
//! `title`, `slug`, `email`, `username`, `key`, `code`, `label`, or a `…_name`, `…_slug`,
//! `…_email`, `…_title`) get a value of the case's own in every case that may create
//! (the positive family and the creates chains start with), so that a second create does
//! not fail on "name must be unique" because an earlier case of the run took the name, and
//! a failure's curl line reproduces on its own. Only a body the generator made is changed:
//! the contract files' `defaults` and the spec's examples may name what the target
//! expects (a login's user). The value is the original with a tag of the case's (its id,
//! the run's seed and the rest of its body, so that a later pass's body whose references
//! now name the target's records gets a tag of its own), kept only where the whole body still
//! validates against its schema (a `pattern`, a `maxLength`, `format: email`); else a
//! shorter one, else the field is left as it was. What the case's later steps expect of
//! the created record (a chain's read-back) follows the new value.

use serde_json::{Map, Value};

use crate::case::{AssertKind, BodyTemplate, Case};
use crate::inputs::Inputs;
use crate::registry::Check;
use crate::spec::{Body, Operation};

/// Exact field names (in `snake_case`) that look unique.
const NAMES: &[&str] = &[
    "name",
    "title",
    "slug",
    "email",
    "username",
    "user_name",
    "login",
    "handle",
    "key",
    "code",
    "label",
    "display_name",
];

/// Suffixes that look unique.
const SUFFIXES: &[&str] = &["_name", "_slug", "_email", "_title"];

/// Characters of a tag: lower-case letters and digits, which slugs and names admit.
const ALPHABET: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'j', 'k', 'm', 'n', 'p', 'q', 'r', 's', 't', 'u', 'v',
    'w', 'x', 'y', 'z', '2', '3', '4', '5', '6', '7', '8', '9',
];

/// Gives the unique-looking fields of `op`'s create requests in `cases` values of each
/// case's own; `salt` is the run's seed.
pub(crate) fn apply(
    cases: &mut [Case],
    op: &Operation,
    decl: &Body,
    inputs: &Inputs<'_>,
    salt: u64,
) {
    for case in cases.iter_mut() {
        let positive = case.check == Check::PositiveDataAcceptance;
        let mut renamed: Vec<(String, String)> = Vec::new();
        for step in &mut case.steps {
            let creates = step.request.op == op.id && step.request.method.is_none();
            if !creates || !(positive || crate::checks::is_chain_setup(step)) {
                continue;
            }
            let fields = match &mut step.request.body {
                Some(BodyTemplate::Json(Value::Object(m))) => m,
                Some(BodyTemplate::Encoded {
                    value: Value::Object(m),
                    ..
                }) => m,
                _ => continue,
            };
            let rest: Map<String, Value> = fields
                .iter()
                .filter(|(k, _)| !looks_unique(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let tag = tag(&format!("{}\n{}", case.id, Value::Object(rest)), salt);
            renamed.extend(retag(fields, decl, inputs, &tag));
        }
        // The later steps' expectations of the created record follow its new values, up to
        // a step that sends the old value itself (an update setting the same name): what
        // is expected after it is what that step set.
        for (old, new) in &renamed {
            for step in &mut case.steps {
                let creates = step.request.op == op.id && step.request.method.is_none();
                let resends = match &step.request.body {
                    Some(BodyTemplate::Json(v)) | Some(BodyTemplate::Encoded { value: v, .. }) => {
                        holds(v, old)
                    }
                    _ => false,
                };
                if !creates && resends {
                    break;
                }
                for a in &mut step.asserts {
                    match &mut a.kind {
                        AssertKind::Equals(v)
                        | AssertKind::SameExcept { value: v, .. }
                        | AssertKind::Covers { values: v, .. } => replace(v, old, new),
                        AssertKind::NonEmpty | AssertKind::Absent | AssertKind::MaxItems(_) => {}
                    }
                }
            }
        }
    }
}

/// Whether `v` holds the string `text` anywhere.
fn holds(v: &Value, text: &str) -> bool {
    match v {
        Value::String(s) => s == text,
        Value::Array(items) => items.iter().any(|i| holds(i, text)),
        Value::Object(m) => m.values().any(|i| holds(i, text)),
        _ => false,
    }
}

/// Replaces every string equal to `old` in `v` with `new`.
fn replace(v: &mut Value, old: &str, new: &str) {
    match v {
        Value::String(s) if s == old => *s = new.to_string(),
        Value::Array(items) => items.iter_mut().for_each(|i| replace(i, old, new)),
        Value::Object(m) => m.values_mut().for_each(|i| replace(i, old, new)),
        _ => {}
    }
}

/// Whether a field's name looks unique to the target.
fn looks_unique(name: &str) -> bool {
    let n = crate::identity::snake(name);
    NAMES.contains(&n.as_str()) || SUFFIXES.iter().any(|s| n.ends_with(s))
}

/// A tag: six characters from `what` and `salt` (FNV-1a, then SplitMix64).
fn tag(what: &str, salt: u64) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in what.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    super::Rng::new(h ^ salt).string(ALPHABET, 6)
}

/// Each unique-looking string field of `fields` takes the first of its tagged values
/// with which the body still validates. Gives the (old, new) values changed.
fn retag(
    fields: &mut Map<String, Value>,
    decl: &Body,
    inputs: &Inputs<'_>,
    tag: &str,
) -> Vec<(String, String)> {
    let mut renamed = Vec::new();
    let names: Vec<String> = fields
        .iter()
        .filter(|(k, v)| v.is_string() && looks_unique(k))
        .map(|(k, _)| k.clone())
        .collect();
    for name in names {
        let Some(Value::String(old)) = fields.get(&name).cloned() else {
            continue;
        };
        for candidate in candidates(&old, tag) {
            fields.insert(name.clone(), Value::String(candidate.clone()));
            if inputs.body_is_valid(decl, &Value::Object(fields.clone())) {
                renamed.push((old.clone(), candidate));
                break;
            }
            fields.insert(name.clone(), Value::String(old.clone()));
        }
    }
    renamed
}

/// The tagged values of `old` to try, longest first: an address keeps its domain.
fn candidates(old: &str, tag: &str) -> Vec<String> {
    if let Some((local, domain)) = old.rsplit_once('@') {
        return vec![format!("{local}-{tag}@{domain}"), format!("{tag}@{domain}")];
    }
    let chars: Vec<char> = old.chars().collect();
    let mut out = vec![format!("{old}-{tag}")];
    let mut keeps = [chars.len().saturating_sub(8), chars.len() / 2, 0];
    keeps.sort_unstable_by(|a, b| b.cmp(a));
    for keep in keeps {
        let prefix: String = chars[..keep].iter().collect();
        let c = if prefix.is_empty() {
            tag.to_string()
        } else {
            format!("{prefix}-{tag}")
        };
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_look_unique() {
        for n in [
            "name",
            "title",
            "slug",
            "displayName",
            "user_name",
            "work_pool_name",
            "contact_email",
        ] {
            assert!(looks_unique(n), "{n}");
        }
        for n in ["description", "flow_id", "count", "tags"] {
            assert!(!looks_unique(n), "{n}");
        }
    }

    #[test]
    fn tags_differ_by_case_and_salt_and_candidates_keep_an_address() {
        assert_ne!(tag("a/positive", 1), tag("a/example/1", 1));
        assert_ne!(tag("a/positive", 1), tag("a/positive", 2));
        assert_eq!(tag("a/positive", 1), tag("a/positive", 1));
        assert_eq!(
            candidates("ops@example.com", "t4g"),
            ["ops-t4g@example.com", "t4g@example.com"]
        );
        assert_eq!(candidates("widget", "t4g")[0], "widget-t4g");
        assert_eq!(candidates("widget", "t4g").last().unwrap(), "t4g");
    }
}
