//! String `format`s: which ones the generator knows to be faithfully held by a Rust
//! `String`, so that any other one is reported rather than passed over in silence. A
//! format names a constraint or a richer type the spec's author cares about; the author
//! should learn that the generated client does not enforce or model it.

/// The formats of JSON Schema (2020-12, "Defined Formats") and of OpenAPI (3.0/3.1 data
/// types: `byte`, `binary`, `password`) whose values a `String` holds as they are sent.
const KNOWN: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
    "byte",
    "binary",
    "password",
];

/// The warning for a string schema's `format`, if the generator does not know it.
pub(super) fn unknown_string_format(format: Option<&str>) -> Option<String> {
    let format = format?;
    (!KNOWN.contains(&format)).then(|| {
        format!("unknown string format `{format}`: the value is a plain `String`, not checked against the format")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unknown_formats_warn() {
        assert_eq!(unknown_string_format(None), None);
        assert_eq!(unknown_string_format(Some("date-time")), None);
        assert_eq!(
            unknown_string_format(Some("ip")).as_deref(),
            Some(
                "unknown string format `ip`: the value is a plain `String`, not checked against the format"
            )
        );
    }
}
