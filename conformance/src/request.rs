//! Turning a request template into bytes on the wire, and into the redacted forms the
//! reports show (a curl line with `$TOKEN`, bodies with secret fields masked).

use std::collections::BTreeSet;

use reqwest::Url;
use serde_json::{Map, Value};

use crate::case::{AuthMode, BodyTemplate, RequestTemplate};
use crate::outcome::CheckResult;
use crate::spec::{Location, Spec, Style};
use crate::transport::Request;
use crate::vars::Vars;

/// A token no target ever issued, for `ignored_auth`.
pub const UNKNOWN_TOKEN: &str = "conformance-unknown-token-0000000000";

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

/// A request ready to send, with what the checks and reports need. `Debug` shows the
/// redacted curl line only.
#[derive(Clone)]
pub struct Built {
    /// What goes on the wire.
    pub request: Request,
    /// Parameter values after substitution, for rules that compare with them.
    pub params: Map<String, Value>,
    /// The JSON body after substitution.
    pub body: Option<Value>,
    /// A curl line with secrets replaced by placeholders.
    pub curl: String,
}

impl std::fmt::Debug for Built {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Built")
            .field("curl", &self.curl)
            .finish_non_exhaustive()
    }
}

/// Why a template could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// A variable the template refers to was never bound.
    Unbound(String),
    /// No bearer token is available.
    NoToken,
}

/// Substitutes variables and lays the request out on the wire.
pub fn build(
    spec: &Spec,
    base_url: &str,
    tpl: &RequestTemplate,
    vars: &Vars,
    token: Option<&str>,
    secrets: &Secrets,
) -> Result<Built, BuildError> {
    let op = spec
        .operation(&tpl.op)
        .expect("templates are validated against the spec");
    let mut path = tpl.path.clone().unwrap_or_else(|| op.path.clone());
    let mut headers = Vec::new();
    let mut params = Map::new();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (name, raw) in &tpl.params {
        let value = vars.substitute(raw).map_err(BuildError::Unbound)?;
        let declared = op.param(name);
        let location = declared.map_or(Location::Query, |p| p.location);
        let style = tpl
            .style
            .or(declared.map(|p| p.style))
            .unwrap_or(Style::default_for(location));
        let explode = tpl
            .explode
            .or(declared.map(|p| p.explode))
            .unwrap_or(style == Style::Form);
        let texts: Vec<String> = match &value {
            Value::Array(items) => items.iter().map(scalar_text).collect(),
            other => vec![scalar_text(other)],
        };
        match location {
            Location::Header => headers.push((name.clone(), texts.join(","))),
            Location::Path => {
                let segment = path_segment(style, explode, name, &texts);
                path = path.replace(&format!("{{{name}}}"), &segment);
            }
            Location::Query => match style {
                Style::Form if explode => {
                    pairs.extend(texts.into_iter().map(|t| (name.clone(), t)))
                }
                Style::SpaceDelimited => pairs.push((name.clone(), texts.join(" "))),
                Style::PipeDelimited => pairs.push((name.clone(), texts.join("|"))),
                _ => pairs.push((name.clone(), texts.join(","))),
            },
        }
        params.insert(name.clone(), value);
    }
    let mut url = Url::parse(&format!("{}{}", base_url.trim_end_matches('/'), path))
        .map_err(|e| BuildError::Unbound(format!("base URL: {e}")))?;
    if !pairs.is_empty() {
        url.query_pairs_mut().extend_pairs(pairs);
    }
    let mut shown_auth = None;
    if op.secured || tpl.auth != AuthMode::Token {
        match tpl.auth {
            AuthMode::Token => {
                let t = token.ok_or(BuildError::NoToken)?;
                headers.push(("authorization".into(), format!("Bearer {t}")));
                shown_auth = Some("Authorization: Bearer $TOKEN".to_string());
            }
            AuthMode::Missing => {}
            AuthMode::Malformed => {
                let t = token.unwrap_or(UNKNOWN_TOKEN);
                headers.push(("authorization".into(), format!("Token {t}")));
                shown_auth = Some(if token.is_some() {
                    "Authorization: Token $TOKEN".into()
                } else {
                    format!("Authorization: Token {UNKNOWN_TOKEN}")
                });
            }
            AuthMode::Unknown => {
                headers.push(("authorization".into(), format!("Bearer {UNKNOWN_TOKEN}")));
                shown_auth = Some(format!("Authorization: Bearer {UNKNOWN_TOKEN}"));
            }
        }
    }
    let (body, json) = match &tpl.body {
        None => (None, None),
        Some(BodyTemplate::Json(v)) => {
            let v = vars.substitute(v).map_err(BuildError::Unbound)?;
            let bytes = serde_json::to_vec(&v).unwrap_or_default();
            (Some(("application/json".to_string(), bytes)), Some(v))
        }
        Some(BodyTemplate::Raw { content_type, text }) => {
            let text = match vars
                .substitute(&Value::String(text.clone()))
                .map_err(BuildError::Unbound)?
            {
                Value::String(s) => s,
                other => other.to_string(),
            };
            (Some((content_type.clone(), text.into_bytes())), None)
        }
    };
    let method =
        reqwest::Method::from_bytes(tpl.method.as_deref().unwrap_or(&op.method).as_bytes())
            .unwrap_or(reqwest::Method::GET);
    let request = Request {
        method,
        url,
        headers,
        body,
    };
    let curl = curl_line(&request, shown_auth.as_deref(), json.as_ref(), secrets);
    Ok(Built {
        request,
        params,
        body: json,
        curl,
    })
}

/// A path parameter's values laid out as RFC 6570 does for the style, each value
/// percent-encoded so that it stays one segment.
fn path_segment(style: Style, explode: bool, name: &str, texts: &[String]) -> String {
    let values: Vec<String> = texts.iter().map(|t| encode_segment(t)).collect();
    match style {
        Style::Label if explode => values.iter().map(|v| format!(".{v}")).collect(),
        Style::Label => format!(".{}", values.join(",")),
        Style::Matrix if explode => values.iter().map(|v| format!(";{name}={v}")).collect(),
        Style::Matrix => format!(";{name}={}", values.join(",")),
        _ => values.join(","),
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A body argument for curl; a long run of trailing spaces (the oversized-body case) is
/// written as a `printf` width so the line stays short and still sends the same bytes.
fn data_arg(text: &str) -> String {
    let head = text.trim_end_matches(' ');
    let pad = text.len() - head.len();
    if pad > 1024 {
        format!("\"$(printf '%s%{pad}s' {} '')\"", quote(head))
    } else {
        quote(text)
    }
}

/// A curl line reproducing the request; the token appears only as `$TOKEN`.
pub fn curl_line(
    req: &Request,
    shown_auth: Option<&str>,
    json: Option<&Value>,
    secrets: &Secrets,
) -> String {
    let mut line = format!(
        "curl -sS -X {} {}",
        req.method,
        quote(&secrets.redact_in_url(req.url.as_str()))
    );
    if let Some(a) = shown_auth {
        line.push_str(&format!(" -H \"{a}\""));
    }
    for (k, v) in &req.headers {
        if k != "authorization" {
            line.push_str(&format!(
                " -H {}",
                quote(&secrets.redact(&format!("{k}: {v}")))
            ));
        }
    }
    for (k, v) in &secrets.headers {
        if !req.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(k)) {
            line.push_str(&format!(
                " -H {}",
                quote(&secrets.redact(&format!("{k}: {v}")))
            ));
        }
    }
    if let Some((ctype, bytes)) = &req.body {
        line.push_str(&format!(" -H {}", quote(&format!("Content-Type: {ctype}"))));
        let text = match json {
            Some(v) => secrets.redact_json(v).to_string(),
            None => secrets.redact_text(ctype, &String::from_utf8_lossy(bytes)),
        };
        line.push_str(&format!(" --data-raw {}", data_arg(&text)));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    fn spec() -> Spec {
        Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml")).unwrap()
    }

    fn tpl(op: &str, params: Vec<(&str, Value)>, auth: AuthMode) -> RequestTemplate {
        RequestTemplate {
            op: op.into(),
            params: params
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            body: None,
            auth,
            explode: None,
            style: None,
            method: None,
            path: None,
        }
    }

    #[test]
    fn encodes_lists_both_ways_and_hides_the_token() {
        let spec = spec();
        let secrets = Secrets::default();
        let t = tpl(
            "findExchangeScopes",
            vec![("names", json!(["CME", "CBOT"]))],
            AuthMode::Token,
        );
        let b = build(
            &spec,
            "http://h/v1",
            &t,
            &Vars::default(),
            Some("s3cret"),
            &secrets,
        )
        .unwrap();
        assert_eq!(
            b.request.url.as_str(),
            "http://h/v1/marketDataSubscriptionExchangeScope/finds?names=CME&names=CBOT"
        );
        assert!(
            b.curl.contains("$TOKEN") && !b.curl.contains("s3cret"),
            "{}",
            b.curl
        );
        let mut t2 = t.clone();
        t2.explode = Some(false);
        let b = build(
            &spec,
            "http://h/v1",
            &t2,
            &Vars::default(),
            Some("s3cret"),
            &secrets,
        )
        .unwrap();
        assert!(
            b.request.url.as_str().ends_with("names=CME%2CCBOT"),
            "{}",
            b.request.url
        );
    }

    #[test]
    fn reports_unbound_variables_and_missing_token() {
        let spec = spec();
        let t = tpl(
            "listCategoryPositionLimits",
            vec![("masterid", json!("${category_id}"))],
            AuthMode::Token,
        );
        let e = build(
            &spec,
            "http://h/v1",
            &t,
            &Vars::default(),
            Some("x"),
            &Secrets::default(),
        )
        .unwrap_err();
        assert_eq!(e, BuildError::Unbound("category_id".into()));
        let t = tpl(
            "listCategoryPositionLimits",
            vec![("masterid", json!(1))],
            AuthMode::Token,
        );
        let e = build(
            &spec,
            "http://h/v1",
            &t,
            &Vars::default(),
            None,
            &Secrets::default(),
        )
        .unwrap_err();
        assert_eq!(e, BuildError::NoToken);
    }

    #[test]
    fn debug_output_holds_no_secret() {
        let spec = spec();
        let mut secrets = Secrets::default();
        secrets.add("hunter2", "$CLIENT_SECRET");
        let mut vars = Vars::default();
        vars.set("s", json!("hunter2"));
        let t = RequestTemplate {
            op: "exchangeToken".into(),
            params: Vec::new(),
            body: Some(BodyTemplate::Json(
                json!({"grant_type": "x", "client_secret": "${s}"}),
            )),
            auth: AuthMode::Token,
            explode: None,
            style: None,
            method: None,
            path: None,
        };
        let b = build(&spec, "http://h/v1", &t, &vars, Some("tok3n"), &secrets).unwrap();
        let t2 = tpl(
            "suggestRiskCategories",
            vec![("t", json!("a")), ("l", json!(1))],
            AuthMode::Token,
        );
        let b2 = build(&spec, "http://h/v1", &t2, &vars, Some("tok3n"), &secrets).unwrap();
        for shown in [
            format!("{b:?}"),
            format!("{b2:?}"),
            format!("{:?}", b2.request),
            format!("{secrets:?}"),
            format!("{vars:?}"),
        ] {
            assert!(
                !shown.contains("hunter2") && !shown.contains("tok3n"),
                "{shown}"
            );
        }
    }

    #[test]
    fn long_padding_is_written_as_a_printf_width() {
        let body = format!("{{\"a\":1}}{}", " ".repeat(2000));
        assert_eq!(data_arg(&body), "\"$(printf '%s%2000s' '{\"a\":1}' '')\"");
        assert_eq!(data_arg("{\"a\": 1}"), "'{\"a\": 1}'");
    }

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
