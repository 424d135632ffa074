//! The `Prefer` request header as Stoplight Prism reads it: `code=404` asks for that
//! status, `example=name` for that named example, `dynamic=true` for a value generated
//! from the schema even where the spec has an example. Preferences may be separated by
//! `,` or `;`, in one header or several; unknown ones are ignored (RFC 7240 §2).

use http::HeaderMap;

/// What a request prefers.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Prefer {
    pub code: Option<u16>,
    pub example: Option<String>,
    pub dynamic: Option<bool>,
}

/// The preferences of a request.
pub(crate) fn parse(headers: &HeaderMap) -> Prefer {
    let mut out = Prefer::default();
    let values = headers
        .get_all("prefer")
        .iter()
        .filter_map(|v| v.to_str().ok());
    for part in values.flat_map(|v| v.split([',', ';'])) {
        let Some((key, value)) = part.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"');
        match key.trim().to_ascii_lowercase().as_str() {
            "code" => out.code = value.parse().ok().filter(|c| (100..600).contains(c)),
            "example" => out.example = Some(value.to_owned()),
            "dynamic" => out.dynamic = Some(value.eq_ignore_ascii_case("true")),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_preference_is_read_whatever_the_separator() {
        let mut h = HeaderMap::new();
        h.append("prefer", "code=404, example=\"cat\"".parse().unwrap());
        h.append("prefer", "dynamic=true;respond-async".parse().unwrap());
        let p = parse(&h);
        assert_eq!(p.code, Some(404));
        assert_eq!(p.example.as_deref(), Some("cat"));
        assert_eq!(p.dynamic, Some(true));
        assert_eq!(parse(&HeaderMap::new()), Prefer::default());
    }
}
