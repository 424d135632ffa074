//! Request bodies in the media types besides JSON that an operation may declare: form
//! fields (`application/x-www-form-urlencoded`, `multipart/form-data`) and text. The planner
//! makes each body as a JSON value from the body's schema, as for JSON; this is where that
//! value becomes the bytes its media type says, the way a browser form or a client library
//! would send it.

use serde_json::Value;
pub(crate) use spec_model::encode::scalar_text;

/// The boundary between multipart parts. Fixed, so the same case sends the same bytes
/// and a record or curl line can be compared across runs; no generated value holds it.
const BOUNDARY: &str = "conformance-boundary-5f1c";

/// The `Content-Type` and bytes of `value` sent as `media`.
pub fn body(media: &str, value: &Value) -> (String, Vec<u8>) {
    let essence = media
        .split(';')
        .next()
        .unwrap_or(media)
        .trim()
        .to_ascii_lowercase();
    match (essence.as_str(), value) {
        ("application/x-www-form-urlencoded", Value::Object(fields)) => {
            let mut form = form_urlencoded::Serializer::new(String::new());
            for (name, text) in fields.iter().flat_map(|(k, v)| field_texts(k, v)) {
                form.append_pair(&name, &text);
            }
            (essence, form.finish().into_bytes())
        }
        ("multipart/form-data", Value::Object(fields)) => {
            let mut out = String::new();
            for (name, v) in fields {
                for (name, text, json) in parts(name, v) {
                    out.push_str(&format!(
                        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{}\"\r\n",
                        name.replace('"', "%22")
                    ));
                    if json {
                        out.push_str("Content-Type: application/json\r\n");
                    }
                    out.push_str(&format!("\r\n{text}\r\n"));
                }
            }
            out.push_str(&format!("--{BOUNDARY}--\r\n"));
            (
                format!("multipart/form-data; boundary={BOUNDARY}"),
                out.into_bytes(),
            )
        }
        // Text, or a form whose schema is not an object: the value's own text.
        _ => (media.to_string(), scalar_text(value).into_bytes()),
    }
}

/// The form fields of one property: a list of scalars repeats its name (`tag=a&tag=b`, as
/// OpenAPI's default `form` style with `explode` has it), a null is left out, an object or
/// nested list goes as its JSON text.
fn field_texts(name: &str, v: &Value) -> Vec<(String, String)> {
    parts(name, v)
        .into_iter()
        .map(|(name, text, _)| (name, text))
        .collect()
}

/// (name, text, whether the text is JSON) of each part of one property.
fn parts(name: &str, v: &Value) -> Vec<(String, String, bool)> {
    match v {
        Value::Null => Vec::new(),
        Value::Array(items) if items.iter().all(|i| !i.is_array() && !i.is_object()) => items
            .iter()
            .filter(|i| !i.is_null())
            .map(|i| (name.to_string(), scalar_text(i), false))
            .collect(),
        Value::Array(_) | Value::Object(_) => vec![(name.to_string(), v.to_string(), true)],
        scalar => vec![(name.to_string(), scalar_text(scalar), false)],
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::body;

    #[test]
    fn a_form_repeats_lists_leaves_out_nulls_and_sends_objects_as_json() {
        let (ct, bytes) = body(
            "application/x-www-form-urlencoded",
            &json!({"name": "a b", "tags": ["x", "y"], "gone": null, "meta": {"k": 1}, "n": 2}),
        );
        assert_eq!(ct, "application/x-www-form-urlencoded");
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "name=a+b&tags=x&tags=y&meta=%7B%22k%22%3A1%7D&n=2"
        );
    }

    #[test]
    fn multipart_gives_each_field_a_part_and_json_its_media_type() {
        let (ct, bytes) = body(
            "multipart/form-data",
            &json!({"file": "contents", "meta": {"k": 1}}),
        );
        assert_eq!(
            ct,
            "multipart/form-data; boundary=conformance-boundary-5f1c"
        );
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "--conformance-boundary-5f1c\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\ncontents\r\n\
             --conformance-boundary-5f1c\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"k\":1}\r\n\
             --conformance-boundary-5f1c--\r\n"
        );
    }

    #[test]
    fn text_goes_as_it_is() {
        let (ct, bytes) = body("text/plain; charset=utf-8", &json!("hello"));
        assert_eq!(ct, "text/plain; charset=utf-8");
        assert_eq!(bytes, b"hello");
    }
}
