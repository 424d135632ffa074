//! How parameter values are written into a URL (and a header): percent-encoding and
//! the RFC 6570 expansions OpenAPI's `style`s name.
//!
//! Each helper is copied into a generated crate only when one of its operations calls
//! it (an uncalled private function would fail `clippy -D warnings` there).

// @if path
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Every byte but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`): what
/// `encode_path_segment` escapes, so that a value can never add a path segment, a query
/// or a fragment.
const RESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes a path parameter (or a query name or value written by hand):
/// everything but RFC 3986's unreserved characters, so a value can never add a path
/// segment or a query.
pub(crate) fn encode_path_segment(value: &str) -> String {
    utf8_percent_encode(value, RESERVED).to_string()
}
// @end

// @if dots
/// The index of the first segment of `path` that is `.` or `..`.
pub(crate) fn dot_segment(path: &str) -> Option<usize> {
    path.split('/')
        .position(|segment| matches!(segment, "." | ".."))
}

/// Refuses a built `path` in which parameter values made a whole segment `.` or `..`
/// (URL parsing would resolve it away and send the request elsewhere). `segments` pairs
/// the index of each segment the template fills with the wire names of its parameters;
/// a call, not a block in every method, so that each operation costs one statement.
pub(crate) fn refuse_dot_segments(
    path: &str,
    segments: &[(usize, &[&'static str])],
) -> Result<(), crate::ConstraintViolation> {
    let Some(at) = dot_segment(path) else {
        return Ok(());
    };
    match segments.iter().find(|(index, _)| *index == at) {
        Some((_, fields)) => Err(crate::ConstraintViolation {
            fields: fields.to_vec(),
            constraint: crate::Constraint::DotSegment,
        }),
        None => Ok(()),
    }
}
// @end

// @if label
/// RFC 6570 label expansion (`{.x}`, `{.x*}` when `explode`) of encoded items:
/// `.a,b` or `.a.b`; nothing for an empty list.
pub(crate) fn label_style(items: &[String], explode: bool) -> String {
    if items.is_empty() {
        return String::new();
    }
    format!(".{}", items.join(if explode { "." } else { "," }))
}
// @end

// @if matrix
/// RFC 6570 path-style expansion (`{;x}`, `{;x*}` when `explode`) of encoded
/// items: `;x=a,b` or `;x=a;x=b`, `;x` for an empty value; nothing for an empty
/// list.
pub(crate) fn matrix_style(name: &str, items: &[String], explode: bool) -> String {
    let pair = |value: &str| {
        if value.is_empty() {
            format!(";{name}")
        } else {
            format!(";{name}={value}")
        }
    };
    if items.is_empty() {
        String::new()
    } else if explode {
        items.iter().map(|item| pair(item)).collect()
    } else {
        pair(&items.join(","))
    }
}
// @end

// @if object_style
/// RFC 6570 expansion of an object path or header parameter, its properties
/// (see `object_pairs`) as an associative array: `lead` is empty (`simple`:
/// `a,1,b,2`, exploded `a=1,b=2`), `.` (`label`: `.a,1,b,2`, `.a=1.b=2`) or `;`
/// (`matrix`: `;name=a,1,b,2`, `;a=1;b=2`). Keys and values are
/// percent-encoded in a path (`encode`) and sent as they are in a header;
/// an object with no set property expands to nothing.
pub(crate) fn object_style(
    lead: &str,
    name: &str,
    value: &impl serde::Serialize,
    explode: bool,
    encode: bool,
) -> String {
    let text = |s: String| if encode { encode_path_segment(&s) } else { s };
    let pairs: Vec<(String, String)> = object_pairs(value)
        .into_iter()
        .map(|(key, item)| (text(key), text(item)))
        .collect();
    if pairs.is_empty() {
        return String::new();
    }
    if explode {
        let sep = if lead.is_empty() { "," } else { lead };
        let body: Vec<String> = pairs
            .iter()
            .map(|(key, item)| format!("{key}={item}"))
            .collect();
        format!("{lead}{}", body.join(sep))
    } else {
        let body: Vec<&str> = pairs
            .iter()
            .flat_map(|(key, item)| [key.as_str(), item.as_str()])
            .collect();
        if lead == ";" {
            format!(";{name}={}", body.join(","))
        } else {
            format!("{lead}{}", body.join(","))
        }
    }
}
// @end

// @if joined_query
/// Appends `name=a,b` to the query of `url`: each item percent-encoded, the
/// separator literal.
pub(crate) fn push_joined_query(
    url: &mut String,
    name: &str,
    items: impl Iterator<Item = String>,
    sep: &str,
) {
    url.push(if url.contains('?') { '&' } else { '?' });
    url.push_str(&encode_path_segment(name));
    url.push('=');
    let items: Vec<String> = items.map(|item| encode_path_segment(&item)).collect();
    url.push_str(&items.join(sep));
}
// @end

// @if deep_list
/// Appends each item of a list in `deepObject` style to the query of `url` as
/// `name[]=item` (OpenAPI defines the style for objects only; this is the
/// bracket convention of the servers that declare it), name and item
/// percent-encoded, the brackets literal.
pub(crate) fn push_deep_list(url: &mut String, name: &str, items: impl Iterator<Item = String>) {
    for item in items {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&encode_path_segment(name));
        url.push_str("[]=");
        url.push_str(&encode_path_segment(&item));
    }
}
// @end

// @if json_text
/// A value that serializes as its own JSON text: the query value of a
/// parameter described by `content: {application/json: …}`.
pub(crate) struct JsonText<T>(pub(crate) T);

impl<T: serde::Serialize> serde::Serialize for JsonText<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = serde_json::to_string(&self.0).map_err(serde::ser::Error::custom)?;
        serializer.serialize_str(&text)
    }
}
// @end

// @if object_pairs
/// The properties of an object query parameter as text pairs, from its JSON
/// form (structs and maps alike; keys in the order `serde_json` keeps them):
/// strings as they are, other scalars as JSON text, each item of a list under
/// the key again, `null` (an unset field) left out, and a nested object as
/// JSON text, since OpenAPI defines no encoding for one.
pub(crate) fn object_pairs(value: &impl serde::Serialize) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let Ok(serde_json::Value::Object(map)) = serde_json::to_value(value) else {
        return pairs;
    };
    for (key, field) in map {
        let items = match field {
            serde_json::Value::Array(items) => items,
            other => vec![other],
        };
        for item in items {
            let text = match item {
                serde_json::Value::Null => continue,
                serde_json::Value::String(text) => text,
                other => other.to_string(),
            };
            pairs.push((key.clone(), text));
        }
    }
    pairs
}
// @end

// @if object_query
/// Appends an object's properties to the query of `url`, each percent-encoded:
/// `key=value` pairs (`form`, exploded), or `name[key]=value` under `deep`'s
/// name (`deepObject`).
pub(crate) fn push_object_query(
    url: &mut String,
    deep: Option<&str>,
    value: &impl serde::Serialize,
) {
    // A `deepObject` parameter whose value is not an object (a union of an object and a
    // number, as some specs declare one): a scalar goes as `name=value`, a list as
    // `name[]=item` pairs, `null` not at all.
    if let Some(name) = deep
        && let Ok(json) = serde_json::to_value(value)
        && !json.is_object()
    {
        let list = json.is_array();
        let items = match json {
            serde_json::Value::Array(items) => items,
            other => vec![other],
        };
        for item in items {
            let text = match item {
                serde_json::Value::Null => continue,
                serde_json::Value::String(text) => text,
                other => other.to_string(),
            };
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&encode_path_segment(name));
            url.push_str(if list { "[]=" } else { "=" });
            url.push_str(&encode_path_segment(&text));
        }
        return;
    }
    for (key, item) in object_pairs(value) {
        url.push(if url.contains('?') { '&' } else { '?' });
        match deep {
            Some(name) => url.push_str(&format!(
                "{}[{}]",
                encode_path_segment(name),
                encode_path_segment(&key)
            )),
            None => url.push_str(&encode_path_segment(&key)),
        }
        url.push('=');
        url.push_str(&encode_path_segment(&item));
    }
}
// @end
