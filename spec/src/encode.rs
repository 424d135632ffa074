//! How a parameter's value is written into a URL: a scalar's text, the percent-encoding
//! of one component, and a path parameter laid out in its OpenAPI `style`.
//!
//! The generator writes names fixed by the spec with these at generation time, and the
//! conformance harness the values it sends; both must agree byte for byte with what a
//! generated client sends (the runtime's `encode_path_segment`, `label_style` and
//! `matrix_style`, which the generated crate carries as its own copy and so cannot call
//! this).

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Every byte but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`).
const RESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `value` percent-encoded as a generated client encodes a path segment: every byte but
/// RFC 3986's unreserved characters, so that it can never add a segment or a query.
pub fn percent_encode(value: &str) -> String {
    utf8_percent_encode(value, RESERVED).to_string()
}

/// A scalar as the text a URL, a header or a form carries: a string as it is, anything
/// else as its JSON text.
pub fn scalar_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The OpenAPI styles a path parameter may have (RFC 6570's simple, label and matrix
/// expansions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStyle {
    /// `a,b`.
    Simple,
    /// `.a,b`, or `.a.b` exploded.
    Label,
    /// `;name=a,b`, or `;name=a;name=b` exploded.
    Matrix,
}

/// A path parameter's values (`texts`, one for a scalar) laid out as RFC 6570 does for
/// `style`, each value percent-encoded so that it stays in one segment. `name` (matrix
/// style only) is written as given: encoding it is the caller's choice.
pub fn path_value(style: PathStyle, explode: bool, name: &str, texts: &[String]) -> String {
    let values: Vec<String> = texts.iter().map(|t| percent_encode(t)).collect();
    match style {
        PathStyle::Label if explode => values.iter().map(|v| format!(".{v}")).collect(),
        PathStyle::Label => format!(".{}", values.join(",")),
        PathStyle::Matrix if explode => values.iter().map(|v| format!(";{name}={v}")).collect(),
        PathStyle::Matrix => format!(";{name}={}", values.join(",")),
        PathStyle::Simple => values.join(","),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unreserved_characters_stay_as_they_are() {
        assert_eq!(percent_encode("a-b.c_d~e"), "a-b.c_d~e");
        assert_eq!(percent_encode("a/b?c d"), "a%2Fb%3Fc%20d");
        assert_eq!(percent_encode("é"), "%C3%A9");
    }

    #[test]
    fn each_style_lays_out_its_values() {
        let texts = ["a b".to_owned(), "c".to_owned()];
        let value = |style, explode| path_value(style, explode, "id", &texts);
        assert_eq!(value(PathStyle::Simple, false), "a%20b,c");
        assert_eq!(value(PathStyle::Simple, true), "a%20b,c");
        assert_eq!(value(PathStyle::Label, false), ".a%20b,c");
        assert_eq!(value(PathStyle::Label, true), ".a%20b.c");
        assert_eq!(value(PathStyle::Matrix, false), ";id=a%20b,c");
        assert_eq!(value(PathStyle::Matrix, true), ";id=a%20b;id=c");
    }
}
