//! Why a failure Schemathesis reports against the mock of a spec is no fault of the mock:
//! rules stated for any spec, each read off the spec and the failure alone (never a
//! list of operations or of APIs). A failure no rule covers is the mock's.
//!
//! Two kinds: the spec leaves no answer that passes (it declares no status for refusing
//! input, or none at all), and Schemathesis reads the spec otherwise than it is written
//! (1xx answers, 3.0's `enum: [null]`, Swagger 2.0's answers without content, header
//! patterns that need a `"`). Each rule names the checks it covers and nothing wider.

use serde_json::Value;

use super::findings::Finding;

/// A reason a failure is not the mock's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub name: &'static str,
    pub reason: &'static str,
}

pub const NO_REFUSAL_DECLARED: Rule = Rule {
    name: "no refusal declared",
    reason: "the operation declares no status for refusing input (no 400, 422, 4XX or \
             default): the mock refuses input its spec rules out with 400 problem details, \
             and no refusal of it could be documented (Schemathesis's negative cases need one)",
};
pub const NO_RESPONSE_DECLARED: Rule = Rule {
    name: "no response declared",
    reason: "the operation declares no response at all, so every status is undocumented",
};
pub const ONLY_1XX: Rule = Rule {
    name: "1xx answer",
    reason: "the operation's only declared answer is a 1xx (a protocol upgrade), which \
             has no content (RFC 9110 §15.2); Schemathesis counts a 1xx as neither a \
             success nor a non-error by default, and asks it for the declared content",
};
pub const NULL_ENUM: Rule = Rule {
    name: "3.0 `enum: [null]`",
    reason: "OpenAPI 3.0 has no `null` type, so `{type: T, enum: [null]}` is how a 3.0 \
             document says null (dropshot writes `()` so); Schemathesis reads it as JSON \
             Schema, where no value passes it",
};
pub const SWAGGER2_NO_CONTENT: Rule = Rule {
    name: "Swagger 2.0 answer without content",
    reason: "a Swagger 2.0 response without `schema` returns no content (2.0: \"If this \
             field does not exist, it means no content is returned\"), so it names no \
             Content-Type (the mock's problem details of a refusal go as \
             application/problem+json); Schemathesis asks for one of the operation's \
             `produces`",
};
pub const HEADER_OUTSIDE_PATTERN: Rule = Rule {
    name: "header value outside its pattern",
    reason: "Schemathesis 4.32.5's coverage phase sends, as valid, a header value its \
             parameter's `pattern` does not match (seen where the pattern needs a `\"`: \
             `pattern: '^\"[0-9]+\"$'` gets `0`), and the mock refuses it; the value is \
             checked against the pattern here",
};

pub const TEXT_IS_A_STRING: Rule = Rule {
    name: "a text body is a string",
    reason: "the bytes of a text body are a string whatever they spell: Schemathesis's \
             negative case of the wrong type (an object, a number) goes out as its text, and \
             that text is a string the body's schema, `type: string` and nothing more, takes",
};

/// Every rule, in the order they are tried.
pub const RULES: &[Rule] = &[
    NO_REFUSAL_DECLARED,
    NO_RESPONSE_DECLARED,
    ONLY_1XX,
    NULL_ENUM,
    SWAGGER2_NO_CONTENT,
    HEADER_OUTSIDE_PATTERN,
    TEXT_IS_A_STRING,
];

/// The spec as the rules read it: the document (a Swagger 2.0 one converted to 3.x, as
/// the mock reads it) and whether it was written as Swagger 2.0 or OpenAPI 3.0.
pub struct Spec<'d> {
    pub doc: &'d Value,
    pub swagger2: bool,
    pub openapi30: bool,
}

/// The rule that covers `f`, if one does.
pub fn excuse(spec: &Spec<'_>, f: &Finding) -> Option<Rule> {
    let (method, path) = f.operation.split_once(' ')?;
    let item = spec.doc.get("paths")?.get(path)?;
    let op = resolve(spec.doc, item.get(method.to_ascii_lowercase())?);
    let responses = op
        .get("responses")
        .and_then(Value::as_object)
        .map(|m| m.keys().map(String::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    let status = f.status;
    let code = f.code.as_str();
    // The statuses the mock refuses input with where the operation declares none (400 for
    // what validation rules out, 413 and 415 for the body); a 401/404/409 is no refusal
    // of input, and in a 3.x document Schemathesis flags a Content-Type (ST105) only
    // under a declared status, where the type is the mock's to get right.
    let refusal = status.is_some_and(|s| matches!(s, 400 | 413 | 415));
    let checks = match spec.swagger2 {
        true => matches!(code, "ST103" | "ST105" | "ST203"),
        false => matches!(code, "ST103" | "ST203"),
    };
    if refusal
        && checks
        && !responses
            .iter()
            .any(|k| matches!(*k, "400" | "422" | "default") || k.eq_ignore_ascii_case("4XX"))
    {
        return Some(NO_REFUSAL_DECLARED);
    }
    if code == "ST103" && responses.is_empty() {
        return Some(NO_RESPONSE_DECLARED);
    }
    if matches!(code, "ST101" | "ST202" | "ST104" | "ST109")
        && status.is_some_and(|s| s < 200)
        && responses.iter().any(|k| k.starts_with('1'))
        && !responses
            .iter()
            .any(|k| k.starts_with('2') || *k == "default")
    {
        return Some(ONLY_1XX);
    }
    let declared = status.and_then(|s| response(spec.doc, op, s));
    if code == "ST108" && spec.openapi30 && declared.is_some_and(|r| null_enum(spec.doc, r)) {
        return Some(NULL_ENUM);
    }
    if matches!(code, "ST104" | "ST105")
        && spec.swagger2
        && declared.is_some_and(|r| {
            r.get("content")
                .and_then(Value::as_object)
                .is_none_or(|c| c.is_empty())
        })
    {
        return Some(SWAGGER2_NO_CONTENT);
    }
    if code == "ST202" && header_outside_pattern(spec.doc, item, op, &f.curl) {
        return Some(HEADER_OUTSIDE_PATTERN);
    }
    if code == "ST201"
        && f.broke == "in body - incorrect type"
        && plain_text_body(spec.doc, op, &f.curl)
    {
        return Some(TEXT_IS_A_STRING);
    }
    None
}

/// Whether the curl line sends a `text/*` body whose declared schema is `type: string`
/// with no other keyword that a text could break.
fn plain_text_body(doc: &Value, op: &Value, curl: &str) -> bool {
    let Some((_, sent)) = sent_headers(curl)
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
    else {
        return false;
    };
    let sent = sent
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let Some(body) = op.get("requestBody").map(|b| resolve(doc, b)) else {
        return false;
    };
    let Some(media) = body
        .get("content")
        .and_then(Value::as_object)
        .and_then(|c| c.iter().find(|(k, _)| k.to_ascii_lowercase() == sent))
        .map(|(_, m)| m)
    else {
        return false;
    };
    let schema = media.get("schema").map(|s| resolve(doc, s));
    let only_string = schema.and_then(Value::as_object).is_some_and(|s| {
        s.get("type").and_then(Value::as_str) == Some("string")
            && s.keys()
                .all(|k| matches!(k.as_str(), "type" | "description" | "title" | "example"))
    });
    sent.starts_with("text/") && only_string
}

/// A local `$ref` followed to its target (a few hops at most).
fn resolve<'d>(doc: &'d Value, mut v: &'d Value) -> &'d Value {
    for _ in 0..8 {
        let Some(r) = v.get("$ref").and_then(Value::as_str) else {
            break;
        };
        match r.strip_prefix('#').and_then(|p| doc.pointer(p)) {
            Some(t) => v = t,
            None => break,
        }
    }
    v
}

/// The response `op` declares for `status`: by its code, its class, else `default`.
fn response<'d>(doc: &'d Value, op: &'d Value, status: u16) -> Option<&'d Value> {
    let responses = op.get("responses")?;
    let class = format!("{}XX", status / 100);
    let found = responses.get(status.to_string()).or_else(|| {
        responses
            .as_object()?
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(&class))
            .map(|(_, v)| v)
            .or_else(|| responses.get("default"))
    })?;
    Some(resolve(doc, found))
}

/// Whether a response's schema (under any media type) is an `enum` of only null beside a
/// `type` that is not null.
fn null_enum(doc: &Value, response: &Value) -> bool {
    let Some(content) = response.get("content").and_then(Value::as_object) else {
        return false;
    };
    content.values().any(|media| {
        let Some(schema) = media.get("schema") else {
            return false;
        };
        let schema = resolve(doc, schema);
        let only_null = schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_null));
        let typed = schema
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t != "null");
        only_null && typed
    })
}

/// Whether the curl line sends a header of the operation with a value its parameter's
/// `pattern` does not match (a pattern this regex engine cannot read proves nothing).
fn header_outside_pattern(doc: &Value, item: &Value, op: &Value, curl: &str) -> bool {
    let patterns: Vec<(String, regex::Regex)> = [item, op]
        .into_iter()
        .filter_map(|o| o.get("parameters").and_then(Value::as_array))
        .flatten()
        .map(|p| resolve(doc, p))
        .filter(|p| p.get("in").and_then(Value::as_str) == Some("header"))
        .filter_map(|p| {
            let name = p.get("name")?.as_str()?.to_ascii_lowercase();
            let schema = resolve(doc, p.get("schema")?);
            let pattern = regex::Regex::new(schema.get("pattern")?.as_str()?).ok()?;
            Some((name, pattern))
        })
        .collect();
    sent_headers(curl).iter().any(|(name, value)| {
        patterns
            .iter()
            .any(|(n, p)| *n == name.to_ascii_lowercase() && !p.is_match(value))
    })
}

/// The `-H 'Name: value'` pairs of a curl line.
fn sent_headers(curl: &str) -> Vec<(String, String)> {
    curl.split(" -H '")
        .skip(1)
        .filter_map(|rest| {
            let header = rest.split('\'').next()?;
            let (name, value) = header.split_once(':')?;
            Some((name.trim().to_owned(), value.trim().to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn finding(operation: &str, code: &str, status: u16, curl: &str) -> Finding {
        Finding {
            operation: operation.into(),
            code: code.into(),
            title: String::new(),
            broke: String::new(),
            status: Some(status),
            curl: curl.into(),
        }
    }

    fn doc() -> Value {
        json!({
            "openapi": "3.0.3",
            "paths": {
                "/plain": {"get": {"responses": {"200": {"description": "ok"}}}},
                "/refuses": {"get": {"responses": {"200": {"description": "ok"},
                                                   "4XX": {"description": "no"}}}},
                "/gone": {"get": {"responses": {"200": {"description": "ok"},
                                                "410": {"description": "gone"}}}},
                "/nothing": {"get": {"responses": {}}},
                "/socket": {"get": {"responses": {"101": {"description": "upgrade"}}}},
                "/unit": {"post": {"responses": {"200": {"$ref": "#/components/responses/Unit"}}}},
                "/render": {"post": {
                    "requestBody": {"content": {
                        "text/x-markdown": {"schema": {"type": "string"}},
                        "text/plain": {"schema": {"type": "string", "maxLength": 9}}}},
                    "responses": {"200": {"description": "ok"}}}},
                "/tagged": {"get": {
                    "parameters": [{"name": "If-Match", "in": "header",
                                    "schema": {"type": "string", "pattern": "^\"[0-9]+\"$"}}],
                    "responses": {"200": {"description": "ok"}}}}
            },
            "components": {"responses": {"Unit": {"description": "()", "content": {
                "application/json": {"schema": {"type": "string", "enum": [null]}}}}}}
        })
    }

    fn judge(op: &str, code: &str, status: u16, curl: &str) -> Option<&'static str> {
        let doc = doc();
        let spec = Spec {
            doc: &doc,
            swagger2: false,
            openapi30: true,
        };
        excuse(&spec, &finding(op, code, status, curl)).map(|r| r.name)
    }

    #[test]
    fn a_refusal_is_excused_only_where_the_operation_declares_none() {
        assert_eq!(
            judge("GET /plain", "ST103", 400, "curl"),
            Some(NO_REFUSAL_DECLARED.name)
        );
        assert_eq!(
            judge("GET /gone", "ST103", 400, "curl"),
            Some(NO_REFUSAL_DECLARED.name)
        );
        assert_eq!(judge("GET /refuses", "ST103", 400, "curl"), None);
        assert_eq!(
            judge("GET /plain", "ST103", 500, "curl"),
            None,
            "a 5xx is never excused"
        );
        assert_eq!(
            judge("GET /plain", "ST202", 400, "curl"),
            None,
            "a valid request refused"
        );
        assert_eq!(
            judge("GET /plain", "ST103", 404, "curl"),
            None,
            "no refusal of input"
        );
        assert_eq!(
            judge("GET /plain", "ST105", 400, "curl"),
            None,
            "3.x: a declared status"
        );
    }

    #[test]
    fn each_spec_shaped_rule_holds_only_for_its_shape() {
        assert_eq!(
            judge("GET /nothing", "ST103", 200, "curl"),
            Some(NO_RESPONSE_DECLARED.name)
        );
        assert_eq!(judge("GET /plain", "ST103", 201, "curl"), None);
        assert_eq!(
            judge("GET /socket", "ST101", 101, "curl"),
            Some(ONLY_1XX.name)
        );
        assert_eq!(judge("GET /socket", "ST202", 400, "curl"), None);
        assert_eq!(
            judge("POST /unit", "ST108", 200, "curl"),
            Some(NULL_ENUM.name)
        );
        assert_eq!(judge("GET /plain", "ST108", 200, "curl"), None);
        assert_eq!(
            judge(
                "GET /tagged",
                "ST202",
                400,
                "curl -X GET -H 'If-Match: 0' http://h/tagged"
            ),
            Some(HEADER_OUTSIDE_PATTERN.name)
        );
        assert_eq!(
            judge(
                "GET /tagged",
                "ST202",
                400,
                "curl -X GET -H 'If-Match: \"0\"' http://h/tagged"
            ),
            None,
            "a matching value the mock refused is the mock's"
        );
        assert_eq!(judge("GET /unknown", "ST103", 400, "curl"), None);
        let text = |broke: &str, mime: &str| {
            let doc = doc();
            let spec = Spec {
                doc: &doc,
                swagger2: false,
                openapi30: true,
            };
            let mut f = finding(
                "POST /render",
                "ST201",
                200,
                &format!("curl -X POST -H 'Content-Type: {mime}' -d '{{}}' http://h/render"),
            );
            f.broke = broke.into();
            excuse(&spec, &f).map(|r| r.name)
        };
        assert_eq!(
            text("in body - incorrect type", "text/x-markdown"),
            Some(TEXT_IS_A_STRING.name)
        );
        assert_eq!(
            text("in body - incorrect type", "text/plain"),
            None,
            "a bounded string"
        );
        assert_eq!(text("in body - missing", "text/x-markdown"), None);
    }

    #[test]
    fn a_swagger_2_answer_without_content_needs_no_content_type() {
        let doc = doc();
        let f = finding("GET /plain", "ST104", 200, "curl");
        let as_2 = Spec {
            doc: &doc,
            swagger2: true,
            openapi30: true,
        };
        assert_eq!(excuse(&as_2, &f), Some(SWAGGER2_NO_CONTENT));
        let as_3 = Spec {
            doc: &doc,
            swagger2: false,
            openapi30: true,
        };
        assert_eq!(excuse(&as_3, &f), None);
    }
}
