//! A copy of a document narrowed to what `cargo-progenitor` reads, for the documents it
//! refuses as they are (GitHub's description makes it panic): each rule reads one of
//! its messages and takes out of the document what that message names, and the bench
//! runs it again on the copy until it generates. Both generators are then timed on that
//! same copy, so the ratio compares the same work.
//!
//! The rules are functions of the document and the message, so they are tested without
//! progenitor (see the tests below). Each one that applies changes the document; when
//! none applies, the bench stops with progenitor's message.
//!
//! - A panic naming an operation (`not yet implemented: more media types than expected
//!   for markdown/render-raw: 2`): that operation is dropped.
//! - `unexpected content type: X`: every operation whose request body or response
//!   (through `$ref`s) declares media type `X` is dropped.
//! - typify's `Failed to make unique variant names`: in every string `enum`, of values
//!   that are equal once lower-cased with everything but letters and digits removed
//!   (`+1`, `1` and `-1`; `Admin` and `admin`), only the first is kept.
//! - `assertion failed: response_types.len() <= 1`: every operation whose success (2xx)
//!   responses, or whose error responses (the other statuses but `default`), differ in
//!   content (media types and schemas, through `$ref`s) is dropped.

use std::collections::BTreeSet;

use serde_json::Value;

/// The HTTP methods an OpenAPI path item holds operations under.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// What one rule did to the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// These operations (by `operationId`, else `METHOD path`) were taken out, for `why`.
    Dropped {
        why: String,
        operations: Vec<String>,
    },
    /// This many string enums lost values equal to an earlier one but for case and
    /// punctuation.
    EnumsTrimmed(usize),
}

/// Applies the first rule that `message` (progenitor's standard output and error
/// together) calls for and that changes `doc`; `None` when none does.
pub fn step(doc: &mut Value, message: &str) -> Option<Step> {
    if let Some(step) = panic_naming_an_operation(doc, message) {
        return Some(step);
    }
    if let Some(step) = unexpected_content_type(doc, message) {
        return Some(step);
    }
    if message.contains("Failed to make unique variant names") {
        let trimmed = trim_enum_duplicates(doc);
        if trimmed > 0 {
            return Some(Step::EnumsTrimmed(trimmed));
        }
    }
    if message.contains("response_types.len() <= 1") {
        let operations = drop_operations(doc, several_response_types);
        if !operations.is_empty() {
            return Some(Step::Dropped {
                why: "more than one response type".into(),
                operations,
            });
        }
    }
    None
}

/// The operations of the document: path, method and the operation's object.
fn operations(doc: &Value) -> Vec<(String, &'static str, &Value)> {
    let mut found = Vec::new();
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return found;
    };
    for (path, item) in paths {
        for method in METHODS {
            if let Some(op) = item.get(method).filter(|o| o.is_object()) {
                found.push((path.clone(), method, op));
            }
        }
    }
    found
}

/// How an operation is named in what the bench prints: its `operationId`, else `METHOD
/// path`.
fn label(path: &str, method: &str, op: &Value) -> String {
    match op.get("operationId").and_then(Value::as_str) {
        Some(id) => id.to_owned(),
        None => format!("{} {path}", method.to_uppercase()),
    }
}

/// The number of operations in the document.
pub fn count_operations(doc: &Value) -> usize {
    operations(doc).len()
}

/// Removes every operation `drop` says to, given the document and the operation; their
/// labels.
fn drop_operations(doc: &mut Value, drop: impl Fn(&Value, &Value) -> bool) -> Vec<String> {
    let doomed: Vec<(String, &'static str, String)> = operations(doc)
        .into_iter()
        .filter(|(_, _, op)| drop(doc, op))
        .map(|(path, method, op)| {
            let label = label(&path, method, op);
            (path, method, label)
        })
        .collect();
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return Vec::new();
    };
    doomed
        .into_iter()
        .map(|(path, method, label)| {
            if let Some(item) = paths.get_mut(&path).and_then(Value::as_object_mut) {
                item.shift_remove(method);
            }
            label
        })
        .collect()
}

/// The rule for a panic whose message ends `for OPERATION_ID: ...`: the operation it
/// names, when the document has one of that id.
fn panic_naming_an_operation(doc: &mut Value, message: &str) -> Option<Step> {
    // The message is the line after `panicked at FILE:LINE:COLUMN:`; a backtrace after it
    // is not read.
    let mut lines = message.lines();
    lines.find(|l| l.contains("panicked at"))?;
    let said = lines.next()?;
    let ids: Vec<&str> = said
        .match_indices(" for ")
        .filter_map(|(at, _)| {
            let rest = &said[at + 5..];
            let end = rest.find(':')?;
            let id = &rest[..end];
            (!id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '/' | '-' | '_' | '.')))
            .then_some(id)
        })
        .collect();
    for id in ids {
        let operations = drop_operations(doc, |_, op| {
            op.get("operationId").and_then(Value::as_str) == Some(id)
        });
        if !operations.is_empty() {
            return Some(Step::Dropped {
                why: "progenitor panics on it".into(),
                operations,
            });
        }
    }
    None
}

/// The rule for `unexpected content type: X`.
fn unexpected_content_type(doc: &mut Value, message: &str) -> Option<Step> {
    const SAID: &str = "unexpected content type: ";
    let at = message.find(SAID)? + SAID.len();
    let rest = &message[at..];
    let end = rest.find(['"', '\n', '\r']).unwrap_or(rest.len());
    let media = rest[..end].trim();
    if media.is_empty() {
        return None;
    }
    let operations = drop_operations(doc, |doc, op| {
        op_contents(doc, op).any(|(declared, _)| declared == media)
    });
    (!operations.is_empty()).then(|| Step::Dropped {
        why: format!("unexpected content type {media}"),
        operations,
    })
}

/// The object a local `$ref` points at, followed through chains of them (at most 32);
/// the value itself when it is no reference.
fn resolve<'a>(doc: &'a Value, mut value: &'a Value) -> &'a Value {
    for _ in 0..32 {
        let Some(target) = value.get("$ref").and_then(Value::as_str) else {
            break;
        };
        match target.strip_prefix('#').and_then(|p| doc.pointer(p)) {
            Some(found) => value = found,
            None => break,
        }
    }
    value
}

/// The `content` map of a request body or response (through `$ref`s): media type and
/// schema, in the document's order.
fn contents<'a>(doc: &'a Value, holder: &'a Value) -> impl Iterator<Item = (&'a str, &'a Value)> {
    resolve(doc, holder)
        .get("content")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(media, entry)| (media.as_str(), entry.get("schema").unwrap_or(&Value::Null)))
}

/// Every media type an operation's request body and responses declare, with its schema.
fn op_contents<'a>(doc: &'a Value, op: &'a Value) -> impl Iterator<Item = (&'a str, &'a Value)> {
    let body = op.get("requestBody").into_iter();
    let responses = op
        .get("responses")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|r| r.values());
    body.chain(responses)
        .flat_map(move |holder| contents(doc, holder))
}

/// Whether an operation's success responses, or its error responses (not `default`),
/// declare more than one distinct content (progenitor asserts one response type each).
fn several_response_types(doc: &Value, op: &Value) -> bool {
    let Some(responses) = op.get("responses").and_then(Value::as_object) else {
        return false;
    };
    [true, false].into_iter().any(|success| {
        let kinds: BTreeSet<String> = responses
            .iter()
            .filter(|(status, _)| status.as_str() != "default")
            .filter(|(status, _)| status.starts_with('2') == success)
            .map(|(_, response)| {
                let mut content: Vec<(&str, String)> = contents(doc, response)
                    .map(|(media, schema)| (media, schema.to_string()))
                    .collect();
                content.sort();
                format!("{content:?}")
            })
            .collect();
        kinds.len() > 1
    })
}

/// The key under which two enum values give progenitor's generator the same variant
/// name: lower-cased, letters and digits only.
fn variant_key(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Keeps, in every string enum of the document, only the first of values with the same
/// [`variant_key`]; the number of enums changed.
fn trim_enum_duplicates(value: &mut Value) -> usize {
    match value {
        Value::Object(map) => {
            let mut changed = 0;
            if let Some(Value::Array(values)) = map.get_mut("enum")
                && values.iter().all(Value::is_string)
            {
                let mut seen = BTreeSet::new();
                let before = values.len();
                values.retain(|v| seen.insert(variant_key(v.as_str().unwrap_or_default())));
                changed += usize::from(values.len() != before);
            }
            changed + map.values_mut().map(trim_enum_duplicates).sum::<usize>()
        }
        Value::Array(items) => items.iter_mut().map(trim_enum_duplicates).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A small document with one of each thing the rules take out, and one operation no
    /// rule touches.
    fn document() -> Value {
        json!({
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/markdown/raw": {
                    "post": {
                        "operationId": "markdown/render-raw",
                        "requestBody": {"content": {
                            "text/plain": {"schema": {"type": "string"}},
                            "text/x-markdown": {"schema": {"type": "string"}}
                        }},
                        "responses": {"200": {"description": "ok"}}
                    }
                },
                "/upload": {
                    "post": {
                        "operationId": "upload",
                        "requestBody": {"$ref": "#/components/requestBodies/Zip"},
                        "responses": {"204": {"description": "done"}}
                    },
                    "get": {
                        "operationId": "download",
                        "responses": {"200": {"$ref": "#/components/responses/Zip"}}
                    }
                },
                "/both": {
                    "get": {
                        "operationId": "both",
                        "responses": {
                            "200": {"description": "a", "content": {"application/json": {"schema": {"type": "string"}}}},
                            "202": {"$ref": "#/components/responses/Accepted"}
                        }
                    }
                },
                "/errors": {
                    "get": {
                        "operationId": "errors",
                        "responses": {
                            "200": {"description": "a", "content": {"application/json": {"schema": {"type": "string"}}}},
                            "404": {"description": "n", "content": {"application/json": {"schema": {"type": "string"}}}},
                            "422": {"description": "v", "content": {"application/json": {"schema": {"type": "integer"}}}},
                            "default": {"description": "d"}
                        }
                    }
                },
                "/kept": {
                    "get": {
                        "operationId": "kept",
                        "parameters": [{"name": "sort", "in": "query", "schema": {
                            "type": "string", "enum": ["+1", "1", "Admin", "admin", "-1", "other"]
                        }}],
                        "responses": {
                            "200": {"$ref": "#/components/responses/Accepted"},
                            "201": {"description": "same", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}}},
                            "default": {"description": "d", "content": {"text/plain": {}}}
                        }
                    }
                }
            },
            "components": {
                "schemas": {
                    "Job": {"type": "object"},
                    "Level": {"type": "string", "enum": ["low", "high"]},
                    "Numbers": {"enum": [1, 1.0]}
                },
                "requestBodies": {"Zip": {"content": {"application/zip": {"schema": {}}}}},
                "responses": {
                    "Zip": {"$ref": "#/components/responses/ZipBody"},
                    "ZipBody": {"description": "z", "content": {"application/zip": {"schema": {}}}},
                    "Accepted": {"description": "j", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Job"}}}}
                }
            }
        })
    }

    fn ids(doc: &Value) -> Vec<String> {
        operations(doc)
            .into_iter()
            .map(|(path, method, op)| label(&path, method, op))
            .collect()
    }

    #[test]
    fn a_panic_naming_an_operation_drops_that_operation() {
        let mut doc = document();
        let message = "\nthread 'main' (9884) panicked at /x/progenitor-impl-0.15.1/src/method.rs:2057:23:\n\
            not yet implemented: more media types than expected for markdown/render-raw: 2\n\
            stack backtrace:\n   2: <impl progenitor_impl::Generator for x::y>::process_operation\n";
        assert_eq!(
            step(&mut doc, message),
            Some(Step::Dropped {
                why: "progenitor panics on it".into(),
                operations: vec!["markdown/render-raw".into()],
            })
        );
        assert!(!ids(&doc).contains(&"markdown/render-raw".to_owned()));
        assert_eq!(count_operations(&doc), 5);
        // An id the document does not have, or a backtrace's `for`, is no operation.
        let unknown =
            "thread 'main' panicked at a.rs:1:1:\nnot yet implemented: x for nothing/here: 2\n";
        assert_eq!(step(&mut doc, unknown), None);
    }

    #[test]
    fn an_unexpected_content_type_drops_the_operations_using_it_through_refs() {
        let mut doc = document();
        let message = "Error: \"unexpected content type: application/zip\"\n";
        let Some(Step::Dropped {
            why,
            mut operations,
        }) = step(&mut doc, message)
        else {
            panic!("the rule applies");
        };
        operations.sort();
        assert_eq!(operations, ["download", "upload"]);
        assert_eq!(why, "unexpected content type application/zip");
        // The path item stays (empty), the others are untouched.
        assert_eq!(doc["paths"]["/upload"], json!({}));
        assert_eq!(count_operations(&doc), 4);
        // Nothing uses it any more: the rule no longer applies.
        assert_eq!(step(&mut doc, message), None);
    }

    #[test]
    fn duplicate_variant_names_keep_the_first_of_each_in_string_enums() {
        let mut doc = document();
        let message = "Error: Failed to make unique variant names for [\"+1\", \"1\"]";
        assert_eq!(step(&mut doc, message), Some(Step::EnumsTrimmed(1)));
        assert_eq!(
            doc["paths"]["/kept"]["get"]["parameters"][0]["schema"]["enum"],
            json!(["+1", "Admin", "other"])
        );
        // Enums without such duplicates and non-string enums are left as they were.
        assert_eq!(
            doc["components"]["schemas"]["Level"]["enum"],
            json!(["low", "high"])
        );
        assert_eq!(
            doc["components"]["schemas"]["Numbers"]["enum"],
            json!([1, 1.0])
        );
        assert_eq!(step(&mut doc, message), None);
    }

    #[test]
    fn several_response_types_drop_the_operations_that_have_them() {
        let mut doc = document();
        let message = "thread 'main' panicked at typify.rs:1:1:\nassertion failed: response_types.len() <= 1\n";
        let Some(Step::Dropped { mut operations, .. }) = step(&mut doc, message) else {
            panic!("the rule applies");
        };
        operations.sort();
        // `both`: two success contents (a string, a `Job` through a `$ref`); `errors`: two
        // error schemas. `kept`'s two successes are the same `Job`, and `default` does not
        // count; `markdown/render-raw` has one success without content.
        assert_eq!(operations, ["both", "errors"]);
        assert_eq!(
            ids(&doc),
            ["markdown/render-raw", "download", "upload", "kept"]
        );
    }

    #[test]
    fn a_message_no_rule_reads_changes_nothing() {
        let mut doc = document();
        assert_eq!(step(&mut doc, "Error: something else entirely"), None);
        assert_eq!(doc, document());
    }
}
