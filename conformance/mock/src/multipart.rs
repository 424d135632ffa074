//! A `multipart/form-data` request body read as the object its schema describes, so the
//! mock judges a form as it judges a JSON body. Each part is read by what its property
//! declares: a `format: binary` property (or a list of them) is a file, judged as the
//! text of its bytes (so `required` and `maxLength` apply to it); an object property is
//! a JSON part; every other part is text, read as the type its property takes (as a
//! URL-encoded form's values are). The parts are cut apart by `multer`, the parser axum's
//! own `Multipart` uses.

use bytes::Bytes;
use serde_json::{Map, Value};

use crate::coerce::{items_of, object, properties_of, resolve, types_of};

/// How one property of the form is sent.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Text,
    Json,
    File,
}

/// The form `bytes` (sent as `content_type`, whose boundary cuts it) as the object the
/// schema describes; `Err`, saying why, when it is not a readable multipart body.
pub(crate) async fn read(
    doc: &Value,
    schema: &Value,
    content_type: &str,
    bytes: Bytes,
) -> Result<Value, String> {
    let boundary = multer::parse_boundary(content_type)
        .map_err(|e| format!("the multipart body cannot be read: {e}"))?;
    let stream =
        futures_util::stream::once(async move { Ok::<Bytes, std::convert::Infallible>(bytes) });
    let mut multipart = multer::Multipart::new(stream, boundary);
    let props = properties_of(doc, schema);
    let mut texts = Vec::new();
    let mut others: Vec<(String, Value)> = Vec::new();
    while let Some(field) = multipart
        .next_field()
        .await
        .map_err(|e| format!("the multipart body cannot be read: {e}"))?
    {
        let name = field
            .name()
            .map(str::to_owned)
            .ok_or_else(|| "a part of the multipart body has no name".to_owned())?;
        let prop = props.iter().find(|(n, _)| *n == name).map(|(_, s)| *s);
        let data = field
            .bytes()
            .await
            .map_err(|e| format!("the part `{name}` cannot be read: {e}"))?;
        match prop.map_or(Kind::Text, |p| kind(doc, p)) {
            Kind::File => {
                let text = String::from_utf8_lossy(&data).into_owned();
                others.push((name, Value::String(text)));
            }
            Kind::Json => {
                let value = serde_json::from_slice(&data)
                    .map_err(|e| format!("the part `{name}` is not JSON: {e}"))?;
                others.push((name, value));
            }
            Kind::Text => {
                let text = String::from_utf8(data.to_vec())
                    .map_err(|_| format!("the text part `{name}` is not UTF-8"))?;
                texts.push((name, text));
            }
        }
    }
    let Value::Object(mut map) = object(doc, schema, texts) else {
        unreachable!("`object` builds an object")
    };
    for (name, value) in others {
        let prop = props.iter().find(|(n, _)| *n == name).map(|(_, s)| *s);
        put(&mut map, name, value, prop.is_some_and(|p| is_list(doc, p)));
    }
    Ok(Value::Object(map))
}

/// A part's value put in the form's object: gathered into an array for a list property.
fn put(map: &mut Map<String, Value>, name: String, value: Value, list: bool) {
    if list {
        let entry = map.entry(name).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = entry {
            items.push(value);
        }
    } else {
        map.insert(name, value);
    }
}

fn is_list(doc: &Value, schema: &Value) -> bool {
    types_of(doc, schema).iter().any(|t| t == "array")
}

/// How a property's parts are sent: by its schema, or its items' for a list.
fn kind(doc: &Value, schema: &Value) -> Kind {
    let one = match is_list(doc, schema) {
        true => items_of(doc, schema).unwrap_or(schema),
        false => schema,
    };
    let node = resolve(doc, one);
    if node.get("format").and_then(Value::as_str) == Some("binary") {
        return Kind::File;
    }
    let types = types_of(doc, one);
    if types.iter().any(|t| t == "object" || t == "array") {
        Kind::Json
    } else {
        Kind::Text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FORM: &str = "--B\r\n\
        Content-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n\
        --B\r\n\
        Content-Disposition: form-data; name=\"count\"\r\n\r\n3\r\n\
        --B\r\n\
        Content-Disposition: form-data; name=\"tags\"\r\n\r\na\r\n\
        --B\r\n\
        Content-Disposition: form-data; name=\"tags\"\r\n\r\nb\r\n\
        --B\r\n\
        Content-Disposition: form-data; name=\"meta\"\r\n\r\n{\"source\": \"cam\"}\r\n\
        --B\r\n\
        Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\
        Content-Type: application/octet-stream\r\n\r\nbytes\r\n\
        --B--\r\n";

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "title": {"type": "string"},
            "count": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "meta": {"$ref": "#/components/schemas/Meta"},
            "file": {"type": "string", "format": "binary"}
        }})
    }

    fn doc() -> Value {
        json!({"components": {"schemas": {"Meta": {"type": "object"}}}})
    }

    #[tokio::test]
    async fn each_part_is_read_as_its_property_declares() {
        let read = read(
            &doc(),
            &schema(),
            "multipart/form-data; boundary=B",
            FORM.into(),
        )
        .await
        .unwrap();
        assert_eq!(
            read,
            json!({"title": "Holiday", "count": 3, "tags": ["a", "b"],
                   "meta": {"source": "cam"}, "file": "bytes"})
        );
    }

    #[tokio::test]
    async fn an_unreadable_form_is_refused() {
        let bad = [
            ("multipart/form-data", FORM.to_owned(), "no boundary"),
            (
                "multipart/form-data; boundary=B",
                FORM.replace("--B--", ""),
                "cut off",
            ),
            (
                "multipart/form-data; boundary=B",
                FORM.replace("{\"source\": \"cam\"}", "{source"),
                "a JSON part that is not JSON",
            ),
        ];
        for (content_type, body, what) in bad {
            let got = read(&doc(), &schema(), content_type, body.into()).await;
            assert!(got.is_err(), "{what}");
        }
    }
}
