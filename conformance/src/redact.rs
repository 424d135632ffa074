//! Redaction: the secret values and `x-secret` fields of a run, and every way they are
//! masked before anything is shown (text, URLs, JSON, form bodies, results, `Debug`).

use std::collections::BTreeSet;

use reqwest::Url;
use serde_json::Value;

use crate::outcome::CheckResult;

/// Secret values that must never be printed, each with the placeholder shown instead.
/// `Debug` shows the placeholders only.
#[derive(Clone, Default)]
pub struct Secrets {
    values: Vec<(String, String)>,
    fields: BTreeSet<String>,
    /// The `--header`s the transport adds to every request, for curl lines.
    headers: Vec<(String, String)>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secrets")
            .field(
                "placeholders",
                &self
                    .values
                    .iter()
                    .map(|(_, p)| p.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("fields", &self.fields)
            .finish()
    }
}

impl Secrets {
    /// Starts with the spec's `x-secret` field names.
    pub fn new(fields: BTreeSet<String>) -> Secrets {
        Secrets {
            values: Vec::new(),
            fields,
            headers: Vec::new(),
        }
    }

    /// Registers a header sent with every request (`--header`), so curl lines show it; a
    /// secret value is shown as `$NAME` (upper case, `-` as `_`).
    pub fn add_header(&mut self, name: &str, value: &str, secret: bool) {
        if secret {
            let placeholder = format!("${}", name.to_ascii_uppercase().replace('-', "_"));
            self.add(value, &placeholder);
        }
        self.headers.push((name.to_string(), value.to_string()));
    }

    /// The headers sent with every request (`--header`, `--public-header`).
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// Registers a secret value (ignored when empty).
    pub fn add(&mut self, value: &str, placeholder: &str) {
        if !value.is_empty() && !self.values.iter().any(|(v, _)| v == value) {
            self.values
                .push((value.to_string(), placeholder.to_string()));
            self.values.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
        }
    }

    /// Registers the password of a URL's userinfo (`http://user:pw@host/`), shown as
    /// `<redacted>`.
    pub fn add_url_password(&mut self, url: &str) {
        if let Ok(u) = Url::parse(url)
            && let Some(pw) = u.password()
        {
            self.add(pw, "<redacted>");
        }
    }

    /// Replaces every known secret value standing alone in a free text: an occurrence
    /// counts only when the characters just before and after it cannot belong to a token
    /// (see [`is_token_byte`]), so `Bearer e` and `"e"` lose a secret `e` but
    /// `categoryPositionLimit` keeps its letters.
    pub fn redact(&self, text: &str) -> String {
        self.redact_bounded(text, is_token_byte)
    }

    /// Like [`Secrets::redact`] for a URL or a form-encoded body, where `/`, `=` and `&`
    /// also end a value (`?code=e` loses a secret `e`).
    pub fn redact_in_url(&self, text: &str) -> String {
        self.redact_bounded(text, |b| is_token_byte(b) && !matches!(b, b'/' | b'='))
    }

    /// A secret of [`ANYWHERE_LEN`] bytes or more is replaced wherever it occurs (it
    /// cannot turn up by chance, and `token=SECRET` must lose it too); a shorter one only
    /// where it stands alone.
    fn redact_bounded(&self, text: &str, in_token: fn(u8) -> bool) -> String {
        let mut out = text.to_string();
        for (v, p) in &self.values {
            out = if v.len() >= ANYWHERE_LEN {
                out.replace(v.as_str(), p)
            } else {
                replace_bounded(&out, v, p, in_token)
            };
        }
        out
    }

    /// A result as it may be shown: every text in it redacted. Every result goes through
    /// here before it is printed or written, so no check has to remember to redact.
    pub fn redact_result(&self, mut r: CheckResult) -> CheckResult {
        r.message = self.redact(&r.message);
        r.expected = self.redact(&r.expected);
        r.curl = r.curl.map(|c| self.redact(&c));
        if let Some(g) = &mut r.got {
            g.body = self.redact(&g.body);
            g.error = g.error.as_deref().map(|e| self.redact(e));
            for (_, v) in &mut g.headers {
                *v = self.redact(v);
            }
        }
        r
    }

    /// Redacts a raw body: form fields named like `x-secret` fields are masked, then known
    /// secret values are replaced.
    pub fn redact_text(&self, content_type: &str, text: &str) -> String {
        if !content_type.starts_with("application/x-www-form-urlencoded") {
            return self.redact(text);
        }
        let Ok(parsed) = Url::parse(&format!("http://x/?{text}")) else {
            return self.redact(text);
        };
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(k, v)| {
                let v = if self.fields.contains(k.as_ref()) && !v.is_empty() {
                    "<redacted>".to_string()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        let mut out = Url::parse("http://x/").expect("static URL");
        out.query_pairs_mut().extend_pairs(pairs);
        self.redact_in_url(out.query().unwrap_or(""))
    }

    /// Whether `name` is an `x-secret` field.
    pub fn is_secret_field(&self, name: &str) -> bool {
        self.fields.contains(name)
    }

    /// Masks `x-secret` fields of a JSON value (non-empty strings only, so an empty
    /// `access_token` on failure stays visible as empty) and known secret values.
    pub fn redact_json(&self, v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| {
                        let masked = match x {
                            Value::String(s) if self.fields.contains(k) && !s.is_empty() => {
                                Value::String("<redacted>".into())
                            }
                            other => self.redact_json(other),
                        };
                        (k.clone(), masked)
                    })
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.redact_json(x)).collect()),
            Value::String(s) => Value::String(self.redact(s)),
            other => other.clone(),
        }
    }
}

/// Length from which a secret is redacted even inside a longer run of token characters.
const ANYWHERE_LEN: usize = 12;

/// Whether a byte may belong to a token: ASCII alphanumeric or one of `-._~+/=`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b)
}

/// Replaces the occurrences of `value` in `text` that no token byte touches on either side.
fn replace_bounded(text: &str, value: &str, placeholder: &str, in_token: fn(u8) -> bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut from) = (0, 0);
    while let Some(found) = text[from..].find(value) {
        let at = from + found;
        let end = at + value.len();
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(end).copied();
        if before.is_some_and(in_token) || after.is_some_and(in_token) {
            // An occurrence may overlap this one: look again one character further.
            from = at + text[at..].chars().next().map_or(1, char::len_utf8);
        } else {
            out.push_str(&text[copied..at]);
            out.push_str(placeholder);
            copied = end;
            from = end;
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_secrets_are_replaced_wherever_they_occur() {
        let mut s = Secrets::default();
        s.add("abcdefghijklmnop", "$TOKEN");
        assert_eq!(
            s.redact("refresh_token=abcdefghijklmnop&x=1"),
            "refresh_token=$TOKEN&x=1"
        );
        assert_eq!(s.redact("xabcdefghijklmnopx"), "x$TOKENx");
    }

    #[test]
    fn short_secrets_are_replaced_only_where_they_stand_alone() {
        let mut s = Secrets::default();
        s.add("e", "$TOKEN");
        assert_eq!(s.redact("Bearer e"), "Bearer $TOKEN");
        assert_eq!(s.redact(r#"{"a":"e"}"#), r#"{"a":"$TOKEN"}"#);
        assert_eq!(s.redact("Access is denied"), "Access is denied");
        assert_eq!(
            s.redact_in_url("http://h/v1/categoryPositionLimit/item?t=e&l=e1"),
            "http://h/v1/categoryPositionLimit/item?t=$TOKEN&l=e1"
        );
        s.add("pw", "<redacted>");
        assert_eq!(s.redact("http://u:pw@h/v1"), "http://u:<redacted>@h/v1");
    }

    #[test]
    fn redacts_secret_fields_and_values() {
        let mut s = Secrets::new(["client_secret".to_string()].into());
        s.add("hunter2", "$CLIENT_SECRET");
        let v = s.redact_json(
            &json!({"client_secret": "hunter2", "note": "pw hunter2", "client_id": "c"}),
        );
        assert_eq!(
            v,
            json!({"client_secret": "<redacted>", "note": "pw $CLIENT_SECRET", "client_id": "c"})
        );
    }
}
