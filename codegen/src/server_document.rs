//! The document a generated server judges requests against: the spec as plain JSON
//! Schema 2020-12 (`schema_values::dialect`, the translation the conformance harness and
//! the mock judge with, so all three read a schema alike), trimmed to what requests need.
//!
//! Trimmed: the operations' `callbacks` and the document's `info`, `servers`, `tags`,
//! `externalDocs` and `webhooks` go, unless a `$ref` points into them (then the document
//! stays whole). Responses stay: a refused request is answered in the body of the
//! operation's declared error schema. Pointers into the spec (the IR's) are pointers into
//! this document, since the translation keeps every node where it was.

use serde_json::Value;
use spec_model::{Source, SpecError};

/// The document's JSON text.
pub(crate) fn text(source: &Source) -> Result<Value, SpecError> {
    let doc = spec_model::to_value(source)?;
    let dialect = schema_values::Dialect::of(&doc);
    let mut translated = schema_values::dialect::translate_document(
        &doc,
        dialect,
        schema_values::Direction::Request,
    );
    local_refs(&mut translated);
    let mut trimmed = translated.clone();
    trim(&mut trimmed);
    Ok(if refs_resolve(&trimmed, &trimmed) {
        trimmed
    } else {
        translated
    })
}

/// `$ref`s the translation wrote against its registration URI, made document-local again.
fn local_refs(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref")
                && let Some(rest) = r.strip_prefix(schema_values::dialect::DOC_URI)
            {
                *r = rest.to_owned();
            }
            map.values_mut().for_each(local_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(local_refs),
        _ => {}
    }
}

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn trim(doc: &mut Value) {
    let Some(map) = doc.as_object_mut() else {
        return;
    };
    for key in ["info", "servers", "tags", "externalDocs", "webhooks"] {
        map.remove(key);
    }
    if let Some(Value::Object(paths)) = map.get_mut("paths") {
        for item in paths.values_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for m in METHODS {
                if let Some(Value::Object(op)) = item.get_mut(*m) {
                    op.remove("callbacks");
                }
            }
        }
    }
}

/// Whether every document-local `$ref` under `v` points at a node of `doc`.
fn refs_resolve(v: &Value, doc: &Value) -> bool {
    match v {
        Value::Object(map) => {
            let own = match map.get("$ref").and_then(Value::as_str) {
                Some(r) => match r.strip_prefix('#') {
                    Some(p) => doc.pointer(&percent_decode(p)).is_some(),
                    None => true,
                },
                None => true,
            };
            own && map.values().all(|v| refs_resolve(v, doc))
        }
        Value::Array(items) => items.iter().all(|v| refs_resolve(v, doc)),
        _ => true,
    }
}

fn percent_decode(p: &str) -> String {
    percent_encoding::percent_decode_str(p)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        Source {
            name: "t.yaml".into(),
            text: text.into(),
        }
    }

    #[test]
    fn callbacks_go_unless_a_ref_points_into_them() {
        let spec = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema: {type: string, nullable: true}
      callbacks:
        done:
          "{$request.body#/url}":
            post:
              requestBody: {content: {application/json: {schema: {type: integer}}}}
              responses: {"200": {description: ok}}
      responses:
        "200": {description: ok}
"##;
        let doc = text(&source(spec)).unwrap();
        assert!(doc.pointer("/paths/~1a/post/callbacks").is_none());
        assert!(doc.pointer("/paths/~1a/post/responses/200").is_some());
        assert!(doc.get("info").is_none());
        assert_eq!(
            doc.pointer("/paths/~1a/post/requestBody/content/application~1json/schema/type"),
            Some(&serde_json::json!(["string", "null"])),
            "3.0's nullable is translated"
        );
        let pointing = spec.replace(
            "schema: {type: string, nullable: true}",
            "schema: {$ref: '#/paths/~1a/post/callbacks/done/{$request.body#~1url}/post/requestBody/content/application~1json/schema'}",
        );
        let doc = text(&source(&pointing)).unwrap();
        assert!(doc.pointer("/paths/~1a/post/callbacks").is_some());
        assert!(
            doc.pointer("/paths/~1a/post/requestBody/content/application~1json/schema/$ref")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|r| r.starts_with("#/paths/")),
            "refs are document-local"
        );
    }
}
