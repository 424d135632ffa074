//! What a target's refusal says a request lacked: the body fields a `400`/`422` names as
//! required, read from the error shapes frameworks write, for any spec. A create the
//! spec lets through without such a field (its schema does not require it, or does not
//! name it at all) is refused by the target all the same; the run learns the field from
//! the refusal, so its chains can still make a record to work on (the refusal itself
//! stays the positive case's finding). The shapes read, each an entry that says the value
//! is required or missing:
//!
//! - Pydantic and FastAPI (`{"detail": [{"type": "missing", "loc": ["body", "name"]}]}`),
//!   under any key (`exception_detail`);
//! - Cornice and Colander (`{"details": [{"location": "body", "name": "data.id",
//!   "description": "data.id in body: Required"}]}`);
//! - Django REST framework (`{"name": ["This field is required."]}`);
//! - JSON pointers in problem details (`{"errors": [{"pointer": "#/name", "detail": "is
//!   required"}]}`).

use serde_json::Value;

/// How deep an error body is searched.
const MAX_DEPTH: usize = 6;

/// The body fields `answer` names as required, each as its path of property names.
pub fn missing_fields(answer: &Value) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    walk(answer, 0, &mut out);
    // Django REST framework: the answer's own keys, each with a list of messages.
    if let Value::Object(m) = answer {
        for (k, v) in m {
            let said = v
                .as_array()
                .is_some_and(|msgs| msgs.iter().any(|s| s.as_str().is_some_and(says_required)));
            if said
                && !out
                    .iter()
                    .any(|p: &Vec<String>| p.as_slice() == std::slice::from_ref(k))
            {
                out.push(vec![k.clone()]);
            }
        }
    }
    out
}

fn walk(v: &Value, depth: usize, out: &mut Vec<Vec<String>>) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Array(items) => items.iter().for_each(|i| walk(i, depth + 1, out)),
        Value::Object(m) => {
            if let Some(path) = entry(m)
                && !path.is_empty()
                && !out.contains(&path)
            {
                out.push(path);
            }
            m.values().for_each(|i| walk(i, depth + 1, out));
        }
        _ => {}
    }
}

/// The path one error entry names as required, if it is such an entry.
fn entry(m: &serde_json::Map<String, Value>) -> Option<Vec<String>> {
    let text = |k: &str| m.get(k).and_then(Value::as_str);
    let required = m.get("type").and_then(Value::as_str) == Some("missing")
        || ["msg", "message", "description", "detail", "reason"]
            .iter()
            .any(|k| text(k).is_some_and(says_required));
    if !required {
        return None;
    }
    if let Some(loc) = m.get("loc").and_then(Value::as_array) {
        let parts: Vec<String> = loc
            .iter()
            .map(|p| match p {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        return match parts.split_first() {
            Some((first, rest)) if first == "body" => Some(rest.to_vec()),
            _ => None,
        };
    }
    if text("location") == Some("body") {
        return text("name").map(|n| n.split('.').map(str::to_string).collect());
    }
    let pointer = text("pointer").or_else(|| text("field"))?;
    let pointer = pointer.trim_start_matches('#').trim_start_matches('/');
    Some(
        pointer
            .split(['/', '.'])
            .filter(|s| !s.is_empty())
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

/// Whether an error message says a value is required or missing.
fn says_required(s: &str) -> bool {
    let s = s.to_ascii_lowercase();
    s.contains("required") || s.contains("missing") || s.contains("may not be null")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_frameworks_error_shapes_name_the_missing_fields() {
        let fastapi = json!({"detail": [
            {"type": "missing", "loc": ["body", "name"], "msg": "Field required"},
            {"type": "string_too_long", "loc": ["body", "title"], "msg": "too long"},
            {"type": "missing", "loc": ["query", "limit"], "msg": "Field required"}
        ]});
        assert_eq!(missing_fields(&fastapi), [vec!["name".to_string()]]);
        let cornice = json!({"code": 400, "details": [
            {"location": "body", "name": "data.id", "description": "data.id in body: Required"}
        ]});
        assert_eq!(
            missing_fields(&cornice),
            [vec!["data".to_string(), "id".to_string()]]
        );
        let drf = json!({"slug": ["This field is required."], "size": ["Too big."]});
        assert_eq!(missing_fields(&drf), [vec!["slug".to_string()]]);
        let problem = json!({"type": "about:blank", "errors": [{"pointer": "#/owner/email", "detail": "is required"}]});
        assert_eq!(
            missing_fields(&problem),
            [vec!["owner".to_string(), "email".to_string()]]
        );
        assert!(missing_fields(&json!({"detail": "Not found"})).is_empty());
    }
}
