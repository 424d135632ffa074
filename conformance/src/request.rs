//! Turning a request template into bytes on the wire, and into the curl line a report
//! shows (token as `$TOKEN`; the redaction itself is `redact.rs`'s).

use crate::encode::scalar_text;
use reqwest::Url;
use serde_json::{Map, Value};
use spec_model::encode::{Placed, Texts, object_pairs, place};

use crate::case::{AuthMode, BodyTemplate, RequestTemplate};
use crate::redact::Secrets;
use crate::spec::{Location, Spec, Style};
use crate::transport::Request;
use crate::vars::Vars;

/// A token no target ever issued, for `ignored_auth`.
pub const UNKNOWN_TOKEN: &str = "conformance-unknown-token-0000000000";

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
    /// A path parameter has no value: the request would go out with a literal
    /// `{name}`, to a path the spec does not declare, and its answer would be judged as
    /// the operation's.
    Unfilled(String),
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
    // Query pairs as written on the wire (`name=value`, encoded).
    let mut query: Vec<String> = Vec::new();
    let mut cookies: Vec<String> = Vec::new();
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
            .unwrap_or(style.default_explode());
        // A parameter described by a JSON `content` is one JSON text, whatever its value
        // (so is a list of objects in the query: see `Param::media`).
        let json_text = declared.is_some_and(|p| p.media.is_some());
        let (one, items, pairs);
        let texts = match &value {
            _ if json_text => {
                one = value.to_string();
                Texts::One(&one)
            }
            Value::Array(list) => {
                items = list.iter().map(scalar_text).collect::<Vec<_>>();
                Texts::List(&items)
            }
            Value::Object(_) => {
                pairs = object_pairs(&value);
                Texts::Object(&pairs)
            }
            other => {
                one = scalar_text(other);
                Texts::One(&one)
            }
        };
        match place(location, style, explode, name, texts) {
            Placed::Path(segment) => path = path.replace(&format!("{{{name}}}"), &segment),
            Placed::Query(parts) => query.extend(parts),
            Placed::Header(v) => headers.push((name.clone(), v)),
            Placed::Cookie(c) => cookies.push(c),
        }
        params.insert(name.clone(), value);
    }
    // All cookies travel in one header, `a=1; b=2` (RFC 6265 §4.2.1).
    if !cookies.is_empty() {
        headers.push(("cookie".into(), cookies.join("; ")));
    }
    if tpl.path.is_none()
        && let Some(p) = op
            .params
            .iter()
            .find(|p| p.location == Location::Path && path.contains(&format!("{{{}}}", p.name)))
    {
        return Err(BuildError::Unfilled(p.name.clone()));
    }
    let mut url = Url::parse(&format!("{}{}", base_url.trim_end_matches('/'), path))
        .map_err(|e| BuildError::Unbound(format!("base URL: {e}")))?;
    if !query.is_empty() {
        // After any query the template's own path carries; `set_query` leaves the
        // encoded pairs as they are.
        let all = url.query().into_iter().map(str::to_owned).chain(query);
        url.set_query(Some(&all.collect::<Vec<_>>().join("&")));
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
    // The JSON the curl line shows: only a body that went as JSON.
    let mut shown_json = true;
    let (body, json) = match &tpl.body {
        None => (None, None),
        Some(BodyTemplate::Json(v)) => {
            let v = vars.substitute(v).map_err(BuildError::Unbound)?;
            let bytes = serde_json::to_vec(&v).unwrap_or_default();
            (Some(("application/json".to_string(), bytes)), Some(v))
        }
        Some(BodyTemplate::Encoded { media, value }) => {
            let v = vars.substitute(value).map_err(BuildError::Unbound)?;
            shown_json = false;
            (Some(crate::encode::body(media, &v)), Some(v))
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
    let curl = curl_line(
        &request,
        shown_auth.as_deref(),
        json.as_ref().filter(|_| shown_json),
        secrets,
    );
    Ok(Built {
        request,
        params,
        body: json,
        curl,
    })
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
    for (k, v) in secrets.headers() {
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
    fn a_parameter_described_by_json_content_is_planned_and_sent_as_one_json_text() {
        let spec = Spec::parse(
            r##"
openapi: 3.0.2
info: {title: q, version: "1"}
paths:
  /dags:
    get:
      operationId: list_dags
      parameters:
        - name: q
          in: query
          required: true
          content:
            application/json:
              schema:
                type: object
                required: [filters]
                properties:
                  filters: {type: array, minItems: 1, items: {type: string, enum: [a, b]}}
                  page: {type: integer, minimum: 1}
                additionalProperties: false
      responses: {"200": {description: ok}}
"##,
        )
        .unwrap();
        let op = spec.operation("list_dags").unwrap();
        assert_eq!(
            op.param("q").unwrap().media.as_deref(),
            Some("application/json")
        );
        let cases = crate::plan::derive(
            &spec,
            &crate::contracts::Contracts::default(),
            crate::plan::PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 4,
                made_up: false,
            },
        );
        let positive = cases.iter().find(|c| c.id == "list_dags/positive").unwrap();
        assert_eq!(positive.skip, None, "a value is generated for q");
        let q = &positive.steps[0].request.params[0].1;
        assert!(
            q["filters"].as_array().is_some_and(|f| !f.is_empty()),
            "{q}"
        );
        let built = build(
            &spec,
            "http://h",
            &positive.steps[0].request,
            &Vars::default(),
            None,
            &Secrets::default(),
        )
        .unwrap();
        let sent: Vec<(String, String)> = built.request.url.query_pairs().into_owned().collect();
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(serde_json::from_str::<Value>(&sent[0].1).unwrap(), *q);
        // Defects go inside the JSON text too: an extra property, a required one missing.
        let defects: Vec<&str> = cases
            .iter()
            .filter(|c| c.id.starts_with("list_dags/defect/q"))
            .map(|c| c.id.as_str())
            .collect();
        assert!(
            defects.iter().any(|d| d.ends_with(":additionalProperties"))
                && defects.iter().any(|d| d.ends_with(":required")),
            "{defects:?}"
        );
    }

    /// A list of objects (or lists, or untyped items) in the query goes as one JSON text,
    /// as the generated clients send it; a list of scalars or of a union does not.
    #[test]
    fn a_list_of_objects_in_the_query_is_one_json_text() {
        let spec = Spec::parse(
            r##"
openapi: 3.0.2
info: {title: q, version: "1"}
paths:
  /things/{id}:
    get:
      operationId: list_things
      parameters:
        - {name: filters, in: query, required: true, schema: {type: array, items: {$ref: "#/components/schemas/Filter"}}}
        - {name: grid, in: query, schema: {type: array, items: {type: array, items: {type: integer}}}}
        - {name: any, in: query, schema: {type: array, items: {}}}
        - {name: merged, in: query, schema: {type: array, items: {allOf: [{$ref: "#/components/schemas/Filter"}]}}}
        - {name: names, in: query, schema: {type: array, items: {type: string}}}
        - {name: either, in: query, schema: {type: array, items: {oneOf: [{type: string}, {type: integer}]}}}
        - {name: id, in: path, required: true, schema: {type: array, items: {$ref: "#/components/schemas/Filter"}}}
      responses: {"200": {description: ok}}
components:
  schemas:
    Filter:
      type: object
      required: [name]
      properties: {name: {type: string}}
"##,
        )
        .unwrap();
        let op = spec.operation("list_things").unwrap();
        let media = |name: &str| op.param(name).unwrap().media.is_some();
        for name in ["filters", "grid", "any", "merged"] {
            assert!(media(name), "{name} goes as JSON text");
        }
        for name in ["names", "either", "id"] {
            assert!(!media(name), "{name} keeps its style");
        }
        let t = tpl(
            "list_things",
            vec![
                ("id", json!([{"name": "x"}])),
                ("filters", json!([{"name": "a&b"}, {"name": "c"}])),
            ],
            AuthMode::Missing,
        );
        let built = build(
            &spec,
            "http://h",
            &t,
            &Vars::default(),
            None,
            &Secrets::default(),
        )
        .unwrap();
        let sent: Vec<(String, String)> = built.request.url.query_pairs().into_owned().collect();
        assert_eq!(
            sent,
            [(
                "filters".to_owned(),
                r#"[{"name":"a&b"},{"name":"c"}]"#.to_owned()
            )]
        );
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
        // The separator stays literal, as a generated client sends it; an item's own
        // comma would be `%2C`.
        assert!(
            b.request.url.as_str().ends_with("names=CME,CBOT"),
            "{}",
            b.request.url
        );
    }

    /// Objects, a cookie and a matrix name on a spec of their own: the request carries
    /// them as a generated client writes them (`spec_model::encode::place`), not as JSON
    /// text.
    #[test]
    fn objects_cookies_and_matrix_names_go_as_a_client_sends_them() {
        let spec = Spec::parse(
            r#"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /items/{m,id}:
    get:
      operationId: find
      parameters:
        - {name: "m,id", in: path, required: true, style: matrix, schema: {type: string}}
        - {name: page, in: query, style: deepObject, schema: {type: object}}
        - {name: filter, in: query, schema: {type: object}}
        - {name: session, in: cookie, schema: {type: string}}
        - {name: X-Pair, in: header, schema: {type: object}}
      responses:
        "200": {description: ok}
"#,
        )
        .unwrap();
        let t = tpl(
            "find",
            vec![
                ("m,id", json!("a;b")),
                ("page", json!({"size": 10})),
                ("filter", json!({"role": "a b"})),
                ("session", json!("x; y")),
                ("X-Pair", json!({"k": "v"})),
            ],
            AuthMode::Missing,
        );
        let b = build(
            &spec,
            "http://h",
            &t,
            &Vars::default(),
            None,
            &Secrets::default(),
        )
        .unwrap();
        assert_eq!(
            b.request.url.as_str(),
            "http://h/items/;m%2Cid=a%3Bb?page[size]=10&role=a%20b"
        );
        let header = |n: &str| {
            let found = b.request.headers.iter().find(|(k, _)| k == n);
            found.map(|(_, v)| v.as_str())
        };
        assert_eq!(header("cookie"), Some("session=x%3B%20y"));
        assert_eq!(header("X-Pair"), Some("k,v"));
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
}
