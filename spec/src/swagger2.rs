//! A Swagger 2.0 document read as its OpenAPI 3.0 equivalent, so that every reader of
//! this crate (generator, harness, spec diff) takes 2.0 as it takes 3.0.
//!
//! The conversion follows swagger2openapi's rules, for any 2.0 document:
//!
//! - `definitions`, top-level `parameters` and `responses`, and `securityDefinitions`
//!   become `components` `schemas`, `parameters` (a body parameter: `requestBodies`),
//!   `responses` and `securitySchemes`, and every `$ref` to them is rewritten.
//! - A `body` parameter becomes the operation's `requestBody`, one media type per
//!   `consumes` entry (the operation's, else the document's, else `application/json`);
//!   `formData` parameters become one object schema under `multipart/form-data` when
//!   `consumes` lists it or a field is a `file`, else
//!   `application/x-www-form-urlencoded`.
//! - A response's `schema` goes under each `produces` media type (same fallbacks).
//! - A query, path or header parameter's `type`, `format`, `items`, `enum` and limits
//!   move into its `schema`; `collectionFormat` becomes `style`/`explode` (`csv` →
//!   `form`/`simple` unexploded, `multi` → exploded `form`, `ssv` → `spaceDelimited`,
//!   `pipes` → `pipeDelimited`; `tsv` has no equivalent and is read as `csv`, with a note).
//! - `x-nullable: true` becomes `nullable: true`, `type: file` a binary string, and a
//!   `discriminator` property name a discriminator object.
//! - `basic` becomes HTTP basic, `apiKey` stays, each `oauth2` flow its 3.0 flow
//!   (`application` is `clientCredentials`, `accessCode` `authorizationCode`).
//! - `host`, `basePath` and `schemes` become one server per scheme (`https` when the
//!   document names none, with a note; a path alone when it has no `host`).
//!
//! One note at `/swagger` counts the definitions, body and form parameters, response
//! schemas, security schemes and collection formats converted, and each lossy conversion
//! (`tsv`, an assumed scheme) gets a note at its node: what the generator shows as
//! warnings. Pointers into the converted document differ from the 2.0 text's where the
//! layout moved; [`original_pointer`] maps the moved prefixes back for lines, and an
//! operation's parameters are renumbered once its body and form parameters are taken
//! out, so a warning's line there can be a neighbour's.

use serde_json::{Map, Value, json};

use crate::error::{Located, push_pointer};

/// The converted document and what the conversion did.
pub struct Converted {
    /// The OpenAPI 3.0.3 document.
    pub document: Value,
    /// What became what, located at the 2.0 document's nodes.
    pub notes: Vec<Located>,
}

/// Whether `doc` is a Swagger document (`swagger` and no `openapi`).
pub fn is_swagger(doc: &Value) -> bool {
    doc.get("swagger").is_some() && doc.get("openapi").is_none()
}

/// Converts a Swagger 2.0 document; any other `swagger` version is refused.
pub fn convert(doc: &Value) -> Result<Converted, Located> {
    let version = doc.get("swagger").map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    if version.as_deref() != Some("2.0") {
        return Err(Located::new(
            "/swagger",
            format!(
                "Swagger version {} is not supported (2.0, OpenAPI 3.0.x and 3.1.x are)",
                version.unwrap_or_default()
            ),
        ));
    }
    let Some(root) = doc.as_object() else {
        return Err(Located::new("", "not an object"));
    };
    let mut c = Converter {
        root,
        notes: Vec::new(),
        counts: Counts::default(),
    };
    let out = c.document();
    let mut notes = vec![Located::new("/swagger", c.counts.summary())];
    notes.append(&mut c.notes);
    Ok(Converted {
        document: out,
        notes,
    })
}

/// How many constructs of each kind were converted, for the summary note.
#[derive(Default)]
struct Counts {
    definitions: usize,
    bodies: usize,
    forms: usize,
    responses: usize,
    schemes: usize,
    collection_formats: usize,
}

impl Counts {
    fn summary(&self) -> String {
        let mut parts = Vec::new();
        for (n, what) in [
            (
                self.definitions,
                "`definitions` became `components.schemas`",
            ),
            (self.bodies, "`body` parameters became request bodies"),
            (
                self.forms,
                "operations' `formData` parameters became form request bodies",
            ),
            (
                self.responses,
                "response schemas went under their `produces` media types",
            ),
            (
                self.schemes,
                "`securityDefinitions` became `components.securitySchemes`",
            ),
            (
                self.collection_formats,
                "`collectionFormat`s became `style`/`explode`",
            ),
        ] {
            if n > 0 {
                parts.push(format!("{what} ({n})"));
            }
        }
        let detail = if parts.is_empty() {
            String::new()
        } else {
            format!(": {}", parts.join(", "))
        };
        format!("a Swagger 2.0 document, read as its OpenAPI 3.0 equivalent{detail}")
    }
}

struct Converter<'a> {
    root: &'a Map<String, Value>,
    notes: Vec<Located>,
    counts: Counts,
}

/// Parameter keywords that describe the value: they move into a 3.0 parameter's `schema`.
const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "items",
    "enum",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "x-nullable",
];

impl<'a> Converter<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.root.get(key)
    }

    fn document(&mut self) -> Value {
        let mut out = Map::new();
        out.insert("openapi".into(), json!("3.0.3"));
        for (key, value) in self.root {
            match key.as_str() {
                "info" | "tags" | "externalDocs" | "security" => {
                    out.insert(key.clone(), value.clone());
                }
                k if k.starts_with("x-") => {
                    out.insert(key.clone(), value.clone());
                }
                _ => {}
            }
        }
        out.insert("servers".into(), self.servers());
        let mut components = Map::new();
        if let Some(Value::Object(defs)) = self.get("definitions") {
            let mut schemas = Map::new();
            for (name, s) in defs {
                self.counts.definitions += 1;
                schemas.insert(name.clone(), schema(s));
            }
            components.insert("schemas".into(), Value::Object(schemas));
        }
        if let Some(Value::Object(params)) = self.get("parameters") {
            let mut parameters = Map::new();
            let mut bodies = Map::new();
            for (name, p) in params {
                let at = push_pointer("/parameters", name);
                match p.get("in").and_then(Value::as_str) {
                    Some("body") => {
                        let consumes = self.media(None, "consumes");
                        bodies.insert(name.clone(), self.body(p, &consumes));
                    }
                    // A form field is inlined where it is used: 3.0 has no component for it.
                    Some("formData") => {}
                    _ => {
                        parameters.insert(name.clone(), self.parameter(p, &at));
                    }
                }
            }
            if !parameters.is_empty() {
                components.insert("parameters".into(), Value::Object(parameters));
            }
            if !bodies.is_empty() {
                components.insert("requestBodies".into(), Value::Object(bodies));
            }
        }
        if let Some(Value::Object(responses)) = self.get("responses") {
            let produces = self.media(None, "produces");
            let mut out = Map::new();
            for (name, r) in responses {
                out.insert(name.clone(), self.response(r, &produces));
            }
            components.insert("responses".into(), Value::Object(out));
        }
        if let Some(Value::Object(defs)) = self.get("securityDefinitions") {
            let mut schemes = Map::new();
            for (name, s) in defs {
                self.counts.schemes += 1;
                schemes.insert(name.clone(), security_scheme(s));
            }
            components.insert("securitySchemes".into(), Value::Object(schemes));
        }
        if !components.is_empty() {
            out.insert("components".into(), Value::Object(components));
        }
        let mut paths = Map::new();
        if let Some(Value::Object(items)) = self.get("paths") {
            for (path, item) in items {
                paths.insert(
                    path.clone(),
                    self.path_item(item, &push_pointer("/paths", path)),
                );
            }
        }
        out.insert("paths".into(), Value::Object(paths));
        Value::Object(out)
    }

    /// `host`, `basePath` and `schemes` as `servers`.
    fn servers(&mut self) -> Value {
        let base = self
            .get("basePath")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim_end_matches('/')
            .to_owned();
        let Some(host) = self.get("host").and_then(Value::as_str) else {
            let url = if base.is_empty() {
                "/".to_owned()
            } else {
                base
            };
            return json!([{ "url": url }]);
        };
        let mut schemes: Vec<String> = self
            .get("schemes")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if schemes.is_empty() {
            self.notes.push(Located::new(
                "/host",
                "no `schemes`: the server is taken to be `https` (Swagger 2.0 means the \
                 scheme the document was served with, which a file does not say)",
            ));
            schemes.push("https".into());
        }
        // https first: the one a client should prefer.
        schemes.sort_by_key(|s| s != "https");
        Value::Array(
            schemes
                .iter()
                .map(|s| json!({ "url": format!("{s}://{host}{base}") }))
                .collect(),
        )
    }

    /// The media types of `key` (`consumes`/`produces`): the operation's, else the
    /// document's, else JSON.
    fn media(&self, op: Option<&Value>, key: &str) -> Vec<String> {
        let list = |v: Option<&Value>| {
            v.and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .filter(|l| !l.is_empty())
        };
        list(op.and_then(|o| o.get(key)))
            .or_else(|| list(self.get(key)))
            .unwrap_or_else(|| vec!["application/json".to_owned()])
    }

    fn path_item(&mut self, item: &Value, at: &str) -> Value {
        let Some(item) = item.as_object() else {
            return item.clone();
        };
        if let Some(r) = item.get("$ref") {
            return json!({ "$ref": r });
        }
        let shared: Vec<Value> = item
            .get("parameters")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        // Path-level body and form parameters belong to each operation's body in 3.0.
        let (moved, kept): (Vec<Value>, Vec<Value>) = shared
            .into_iter()
            .partition(|p| matches!(self.location(p), Some("body" | "formData")));
        let mut out = Map::new();
        for (key, value) in item {
            match key.as_str() {
                "parameters" => {
                    let params: Vec<Value> = kept
                        .iter()
                        .enumerate()
                        .map(|(i, p)| self.parameter(p, &format!("{at}/parameters/{i}")))
                        .collect();
                    if !params.is_empty() {
                        out.insert(key.clone(), Value::Array(params));
                    }
                }
                "get" | "put" | "post" | "delete" | "options" | "head" | "patch" => {
                    let op = self.operation(value, &moved, &push_pointer(at, key));
                    out.insert(key.clone(), op);
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        Value::Object(out)
    }

    /// Where a parameter goes, following a `$ref` to a top-level one.
    fn location<'v>(&self, p: &'v Value) -> Option<&'v str>
    where
        'a: 'v,
    {
        self.resolve(p).get("in").and_then(Value::as_str)
    }

    /// A parameter, or the top-level one its `$ref` names.
    fn resolve<'v>(&self, p: &'v Value) -> &'v Value
    where
        'a: 'v,
    {
        let root = self.root;
        p.get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/parameters/"))
            .and_then(|name| {
                root.get("parameters")
                    .and_then(|ps| ps.get(unescape(name).as_str()))
            })
            .unwrap_or(p)
    }

    fn operation(&mut self, op: &Value, inherited: &[Value], at: &str) -> Value {
        let Some(op) = op.as_object() else {
            return op.clone();
        };
        let own: Vec<Value> = op
            .get("parameters")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let consumes = self.media(Some(&Value::Object(op.clone())), "consumes");
        let produces = self.media(Some(&Value::Object(op.clone())), "produces");
        let mut params = Vec::new();
        let mut body = None;
        let mut form: Vec<Value> = Vec::new();
        let key = |p: &Value| {
            (
                p.get("name").cloned().unwrap_or(Value::Null),
                p.get("in").cloned().unwrap_or(Value::Null),
            )
        };
        // Inherited body and form parameters, unless the operation redefines them.
        let own_keys: Vec<_> = own.iter().map(|p| key(self.resolve(p))).collect();
        let all: Vec<&Value> = inherited
            .iter()
            .filter(|p| !own_keys.contains(&key(self.resolve(p))))
            .chain(own.iter())
            .collect();
        for (i, p) in all.into_iter().enumerate() {
            let p_at = format!("{at}/parameters/{i}");
            match self.location(p) {
                Some("body") => {
                    self.counts.bodies += 1;
                    body = Some(match p.get("$ref").and_then(Value::as_str) {
                        Some(r) => json!({
                            "$ref": r.replacen("#/parameters/", "#/components/requestBodies/", 1)
                        }),
                        None => self.body(p, &consumes),
                    });
                }
                Some("formData") => form.push(self.resolve(p).clone()),
                _ => params.push(self.parameter(p, &p_at)),
            }
        }
        if !form.is_empty() {
            self.counts.forms += 1;
            body = Some(form_body(&form, &consumes));
        }
        let mut out = Map::new();
        for (key, value) in op {
            match key.as_str() {
                "parameters" | "consumes" | "produces" | "schemes" => {}
                "responses" => {
                    let mut responses = Map::new();
                    if let Some(rs) = value.as_object() {
                        for (status, r) in rs {
                            responses.insert(status.clone(), self.response(r, &produces));
                        }
                    }
                    out.insert(key.clone(), Value::Object(responses));
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if !params.is_empty() {
            out.insert("parameters".into(), Value::Array(params));
        }
        if let Some(body) = body {
            out.insert("requestBody".into(), body);
        }
        Value::Object(out)
    }

    /// A body parameter as a request body.
    fn body(&mut self, p: &Value, consumes: &[String]) -> Value {
        let s = p.get("schema").map(schema).unwrap_or_else(|| json!({}));
        let content: Map<String, Value> = consumes
            .iter()
            .map(|mt| (mt.clone(), json!({ "schema": s })))
            .collect();
        let mut out = Map::new();
        if let Some(d) = p.get("description") {
            out.insert("description".into(), d.clone());
        }
        out.insert("content".into(), Value::Object(content));
        if p.get("required").and_then(Value::as_bool) == Some(true) {
            out.insert("required".into(), json!(true));
        }
        copy_extensions(p, &mut out);
        Value::Object(out)
    }

    /// A query, path or header parameter (or a `$ref` to one), its value keywords moved
    /// into `schema`.
    fn parameter(&mut self, p: &Value, at: &str) -> Value {
        let Some(object) = p.as_object() else {
            return p.clone();
        };
        if let Some(r) = object.get("$ref").and_then(Value::as_str) {
            return json!({ "$ref": rewrite_ref(r) });
        }
        let mut out = Map::new();
        let mut s = Map::new();
        for (key, value) in object {
            if SCHEMA_KEYS.contains(&key.as_str()) {
                s.insert(key.clone(), value.clone());
            } else if key != "collectionFormat" {
                out.insert(key.clone(), value.clone());
            }
        }
        if !s.is_empty() {
            out.insert("schema".into(), schema(&Value::Object(s)));
        }
        let location = object.get("in").and_then(Value::as_str).unwrap_or("");
        let is_list = object.get("type").and_then(Value::as_str) == Some("array");
        if is_list {
            let format = object
                .get("collectionFormat")
                .and_then(Value::as_str)
                .unwrap_or("csv");
            if object.contains_key("collectionFormat") {
                self.counts.collection_formats += 1;
            }
            let form = location == "query" || location == "formData";
            let (style, explode) = match format {
                "multi" => ("form", true),
                "ssv" => ("spaceDelimited", false),
                "pipes" => ("pipeDelimited", false),
                other => {
                    if other == "tsv" {
                        self.notes.push(Located::new(
                            push_pointer(at, "collectionFormat"),
                            "`collectionFormat: tsv` has no OpenAPI 3.0 equivalent; the \
                             list is sent comma-separated (`csv`)",
                        ));
                    }
                    (if form { "form" } else { "simple" }, false)
                }
            };
            out.insert("style".into(), json!(style));
            out.insert("explode".into(), json!(explode));
        }
        Value::Object(out)
    }

    fn response(&mut self, r: &Value, produces: &[String]) -> Value {
        let Some(object) = r.as_object() else {
            return r.clone();
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            return json!({ "$ref": rewrite_ref(reference) });
        }
        let mut out = Map::new();
        for (key, value) in object {
            match key.as_str() {
                "schema" => {
                    self.counts.responses += 1;
                    let s = schema(value);
                    let content: Map<String, Value> = produces
                        .iter()
                        .map(|mt| (mt.clone(), json!({ "schema": s })))
                        .collect();
                    out.insert("content".into(), Value::Object(content));
                }
                "headers" => {
                    let mut headers = Map::new();
                    if let Some(hs) = value.as_object() {
                        for (name, h) in hs {
                            headers.insert(name.clone(), header(h));
                        }
                    }
                    out.insert(key.clone(), Value::Object(headers));
                }
                "examples" => {}
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        out.entry("description").or_insert_with(|| json!(""));
        Value::Object(out)
    }
}

/// A response header: its value keywords under `schema`.
fn header(h: &Value) -> Value {
    let Some(object) = h.as_object() else {
        return h.clone();
    };
    let mut out = Map::new();
    let mut s = Map::new();
    for (key, value) in object {
        if SCHEMA_KEYS.contains(&key.as_str()) {
            s.insert(key.clone(), value.clone());
        } else if key != "collectionFormat" {
            out.insert(key.clone(), value.clone());
        }
    }
    out.insert("schema".into(), schema(&Value::Object(s)));
    Value::Object(out)
}

/// `formData` parameters as one form body: an object of their fields, multipart when
/// `consumes` asks for it or a field is a file.
fn form_body(fields: &[Value], consumes: &[String]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut file = false;
    for f in fields {
        let Some(name) = f.get("name").and_then(Value::as_str) else {
            continue;
        };
        file |= f.get("type").and_then(Value::as_str) == Some("file");
        let mut s = Map::new();
        for (key, value) in f.as_object().into_iter().flatten() {
            if SCHEMA_KEYS.contains(&key.as_str()) || key == "description" {
                s.insert(key.clone(), value.clone());
            }
        }
        properties.insert(name.to_owned(), schema(&Value::Object(s)));
        if f.get("required").and_then(Value::as_bool) == Some(true) {
            required.push(json!(name));
        }
    }
    let media = if file || consumes.iter().any(|c| c == "multipart/form-data") {
        "multipart/form-data"
    } else {
        "application/x-www-form-urlencoded"
    };
    let mut s = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        s["required"] = Value::Array(required.clone());
    }
    let mut out = json!({ "content": { media: { "schema": s } } });
    if !required.is_empty() {
        out["required"] = json!(true);
    }
    out
}

fn security_scheme(s: &Value) -> Value {
    let Some(object) = s.as_object() else {
        return s.clone();
    };
    let mut out = Map::new();
    if let Some(d) = object.get("description") {
        out.insert("description".into(), d.clone());
    }
    match object.get("type").and_then(Value::as_str) {
        Some("basic") => {
            out.insert("type".into(), json!("http"));
            out.insert("scheme".into(), json!("basic"));
        }
        Some("oauth2") => {
            out.insert("type".into(), json!("oauth2"));
            let scopes = object.get("scopes").cloned().unwrap_or_else(|| json!({}));
            let url = |k: &str| object.get(k).cloned().unwrap_or_else(|| json!(""));
            let (name, flow) = match object.get("flow").and_then(Value::as_str) {
                Some("implicit") => (
                    "implicit",
                    json!({ "authorizationUrl": url("authorizationUrl"), "scopes": scopes }),
                ),
                Some("password") => (
                    "password",
                    json!({ "tokenUrl": url("tokenUrl"), "scopes": scopes }),
                ),
                Some("application") => (
                    "clientCredentials",
                    json!({ "tokenUrl": url("tokenUrl"), "scopes": scopes }),
                ),
                _ => (
                    "authorizationCode",
                    json!({
                        "authorizationUrl": url("authorizationUrl"),
                        "tokenUrl": url("tokenUrl"),
                        "scopes": scopes
                    }),
                ),
            };
            out.insert("flows".into(), json!({ name: flow }));
        }
        _ => {
            for (key, value) in object {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    copy_extensions(s, &mut out);
    Value::Object(out)
}

fn copy_extensions(from: &Value, to: &mut Map<String, Value>) {
    for (key, value) in from.as_object().into_iter().flatten() {
        if key.starts_with("x-") {
            to.insert(key.clone(), value.clone());
        }
    }
}

/// A 2.0 schema as 3.0 reads it: references rewritten, `x-nullable` as `nullable`,
/// `type: file` as a binary string, a discriminator's property name as an object, in
/// the schema and every schema inside it.
fn schema(s: &Value) -> Value {
    let Some(object) = s.as_object() else {
        return s.clone();
    };
    let mut out = Map::new();
    for (key, value) in object {
        let converted = match key.as_str() {
            "$ref" => match value.as_str() {
                Some(r) => json!(rewrite_ref(r)),
                None => value.clone(),
            },
            "x-nullable" => {
                out.insert("nullable".into(), value.clone());
                continue;
            }
            "type" if value.as_str() == Some("file") => {
                out.insert("format".into(), json!("binary"));
                json!("string")
            }
            "discriminator" if value.is_string() => json!({ "propertyName": value }),
            "properties" | "patternProperties" => match value.as_object() {
                Some(props) => Value::Object(
                    props
                        .iter()
                        .map(|(name, p)| (name.clone(), schema(p)))
                        .collect(),
                ),
                None => value.clone(),
            },
            "items" | "additionalProperties" | "not" => schema(value),
            "allOf" | "oneOf" | "anyOf" => match value.as_array() {
                Some(parts) => Value::Array(parts.iter().map(schema).collect()),
                None => value.clone(),
            },
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    Value::Object(out)
}

/// A 2.0 reference as the 3.0 document's.
fn rewrite_ref(r: &str) -> String {
    for (from, to) in [
        ("#/definitions/", "#/components/schemas/"),
        ("#/parameters/", "#/components/parameters/"),
        ("#/responses/", "#/components/responses/"),
    ] {
        if let Some(rest) = r.strip_prefix(from) {
            return format!("{to}{rest}");
        }
    }
    r.to_owned()
}

/// A JSON pointer token unescaped.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The 2.0 document's pointer of a node the converted document has at `pointer`, where
/// the two differ by a rule of the conversion (components, a response's media type):
/// for locating a problem's line in the text the user wrote.
pub fn original_pointer(pointer: &str) -> Option<String> {
    for (from, to) in [
        ("/components/schemas/", "/definitions/"),
        ("/components/parameters/", "/parameters/"),
        ("/components/requestBodies/", "/parameters/"),
        ("/components/responses/", "/responses/"),
        ("/components/securitySchemes/", "/securityDefinitions/"),
    ] {
        if let Some(rest) = pointer.strip_prefix(from) {
            return Some(format!("{to}{rest}"));
        }
    }
    // `.../responses/200/content/<media>/schema/...` was `.../responses/200/schema/...`.
    let (head, tail) = pointer.split_once("/content/")?;
    let (_, rest) = tail.split_once('/')?;
    rest.starts_with("schema")
        .then(|| format!("{head}/{rest}"))
        .filter(|_| head.contains("/responses/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert_yaml(text: &str) -> Converted {
        convert(&crate::yaml::to_json(text).unwrap()).unwrap()
    }

    #[test]
    fn definitions_and_their_references_move_to_components() {
        let c = convert_yaml(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\ndefinitions:\n  Pet:\n    type: object\n    properties:\n      owner: {$ref: '#/definitions/Person'}\n      tag: {type: string, x-nullable: true}\n  Person: {type: object}\n",
        );
        let pet = &c.document["components"]["schemas"]["Pet"];
        assert_eq!(
            pet["properties"]["owner"]["$ref"],
            "#/components/schemas/Person"
        );
        assert_eq!(pet["properties"]["tag"]["nullable"], true);
        assert_eq!(c.document["openapi"], "3.0.3");
        assert!(
            c.notes[0]
                .message
                .contains("`definitions` became `components.schemas` (2)"),
            "{:?}",
            c.notes[0]
        );
    }

    #[test]
    fn a_body_parameter_becomes_the_request_body_per_consumes() {
        let c = convert_yaml(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\nconsumes: [application/json, application/xml]\npaths:\n  /pets:\n    post:\n      parameters:\n        - {name: pet, in: body, required: true, schema: {$ref: '#/definitions/Pet'}}\n        - {name: dry, in: query, type: boolean}\n      responses:\n        '201': {description: made}\ndefinitions:\n  Pet: {type: object}\n",
        );
        let op = &c.document["paths"]["/pets"]["post"];
        assert_eq!(op["requestBody"]["required"], true);
        let content = op["requestBody"]["content"].as_object().unwrap();
        assert_eq!(
            content.keys().collect::<Vec<_>>(),
            ["application/json", "application/xml"]
        );
        assert_eq!(
            content["application/json"]["schema"]["$ref"],
            "#/components/schemas/Pet"
        );
        assert_eq!(op["parameters"][0]["schema"]["type"], "boolean");
        assert_eq!(op["parameters"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn form_data_becomes_a_form_body_multipart_with_a_file() {
        let c = convert_yaml(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    post:\n      parameters:\n        - {name: n, in: formData, type: string, required: true}\n      responses: {'204': {description: ok}}\n  /b:\n    post:\n      parameters:\n        - {name: f, in: formData, type: file}\n      responses: {'204': {description: ok}}\n",
        );
        let a = &c.document["paths"]["/a"]["post"]["requestBody"];
        let s = &a["content"]["application/x-www-form-urlencoded"]["schema"];
        assert_eq!(s["properties"]["n"]["type"], "string");
        assert_eq!(s["required"][0], "n");
        let b = &c.document["paths"]["/b"]["post"]["requestBody"];
        let f = &b["content"]["multipart/form-data"]["schema"]["properties"]["f"];
        assert_eq!(
            (&f["type"], &f["format"]),
            (&json!("string"), &json!("binary"))
        );
    }

    #[test]
    fn response_headers_read_into_the_model_with_their_schemas() {
        let text = "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          headers:\n            X-Limit: {type: integer, description: Calls left.}\n            X-Tags: {type: array, items: {type: string}, collectionFormat: csv}\n";
        let spec = crate::parse(&crate::Source {
            name: "t.yaml".to_owned(),
            text: text.to_owned(),
        })
        .unwrap();
        let headers = &spec.paths["/a"].get.as_ref().unwrap().responses["200"].headers;
        let limit = &headers["X-Limit"];
        assert_eq!(
            limit.description,
            Some(crate::model::Text::String("Calls left.".into()))
        );
        let kind = |h: &crate::model::Header| match &h.schema.as_ref().unwrap().kind {
            Some(crate::model::SchemaType::One(t)) => t.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(kind(limit), "integer");
        assert_eq!(kind(&headers["X-Tags"]), "array");
        assert!(headers["X-Tags"].schema.as_ref().unwrap().items.is_some());
    }

    #[test]
    fn responses_take_produces_and_refs_are_rewritten() {
        let c = convert_yaml(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\nproduces: [application/json]\nparameters:\n  Limit: {name: limit, in: query, type: integer}\nresponses:\n  NotFound: {description: gone, schema: {$ref: '#/definitions/E'}}\npaths:\n  /a:\n    get:\n      produces: [text/plain]\n      parameters: [{$ref: '#/parameters/Limit'}]\n      responses:\n        '200': {description: ok, schema: {type: string}}\n        '404': {$ref: '#/responses/NotFound'}\ndefinitions:\n  E: {type: object}\n",
        );
        let op = &c.document["paths"]["/a"]["get"];
        assert_eq!(
            op["responses"]["200"]["content"]["text/plain"]["schema"]["type"],
            "string"
        );
        assert_eq!(
            op["responses"]["404"]["$ref"],
            "#/components/responses/NotFound"
        );
        assert_eq!(op["parameters"][0]["$ref"], "#/components/parameters/Limit");
        let nf = &c.document["components"]["responses"]["NotFound"];
        assert_eq!(
            nf["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/E"
        );
        assert_eq!(
            c.document["components"]["parameters"]["Limit"]["schema"]["type"],
            "integer"
        );
    }

    #[test]
    fn collection_formats_become_styles() {
        let c = convert_yaml(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /a/{ids}:\n    get:\n      parameters:\n        - {name: ids, in: path, required: true, type: array, items: {type: integer}}\n        - {name: c, in: query, type: array, items: {type: string}}\n        - {name: m, in: query, type: array, items: {type: string}, collectionFormat: multi}\n        - {name: s, in: query, type: array, items: {type: string}, collectionFormat: ssv}\n        - {name: p, in: query, type: array, items: {type: string}, collectionFormat: pipes}\n        - {name: t, in: query, type: array, items: {type: string}, collectionFormat: tsv}\n      responses: {'204': {description: ok}}\n",
        );
        let ps = c.document["paths"]["/a/{ids}"]["get"]["parameters"]
            .as_array()
            .unwrap();
        let styles: Vec<(&str, bool)> = ps
            .iter()
            .map(|p| {
                (
                    p["style"].as_str().unwrap(),
                    p["explode"].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            styles,
            [
                ("simple", false),
                ("form", false),
                ("form", true),
                ("spaceDelimited", false),
                ("pipeDelimited", false),
                ("form", false)
            ]
        );
        assert!(
            c.notes
                .iter()
                .any(|n| n.pointer == "/paths/~1a~1{ids}/get/parameters/5/collectionFormat"),
            "{:?}",
            c.notes.iter().map(|n| &n.pointer).collect::<Vec<_>>()
        );
    }

    #[test]
    fn security_definitions_and_servers() {
        let c = convert_yaml(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\nhost: api.example.test\nbasePath: /v1/\nschemes: [http, https]\npaths: {}\nsecurityDefinitions:\n  b: {type: basic}\n  k: {type: apiKey, in: header, name: X-Key}\n  o: {type: oauth2, flow: application, tokenUrl: 'https://a.test/t', scopes: {r: read}}\n  c: {type: oauth2, flow: accessCode, authorizationUrl: 'https://a.test/a', tokenUrl: 'https://a.test/t', scopes: {}}\n",
        );
        let s = &c.document["components"]["securitySchemes"];
        assert_eq!(
            (&s["b"]["type"], &s["b"]["scheme"]),
            (&json!("http"), &json!("basic"))
        );
        assert_eq!(s["k"]["name"], "X-Key");
        assert_eq!(s["o"]["flows"]["clientCredentials"]["scopes"]["r"], "read");
        assert_eq!(
            s["c"]["flows"]["authorizationCode"]["tokenUrl"],
            "https://a.test/t"
        );
        assert_eq!(
            c.document["servers"],
            json!([{"url": "https://api.example.test/v1"}, {"url": "http://api.example.test/v1"}])
        );
        let none = convert_yaml(
            "swagger: '2.0'\ninfo: {title: t, version: '1'}\nhost: h.test\npaths: {}\n",
        );
        assert_eq!(none.document["servers"], json!([{"url": "https://h.test"}]));
        assert!(none.notes.iter().any(|n| n.pointer == "/host"));
    }

    #[test]
    fn other_swagger_versions_are_refused() {
        let err = convert(&json!({"swagger": "1.2"})).err().unwrap();
        assert!(err.message.contains("1.2"), "{}", err.message);
    }

    #[test]
    fn original_pointers_follow_the_conversion() {
        assert_eq!(
            original_pointer("/components/schemas/Pet/properties/a").as_deref(),
            Some("/definitions/Pet/properties/a")
        );
        assert_eq!(
            original_pointer("/paths/~1a/get/responses/200/content/application~1json/schema/items")
                .as_deref(),
            Some("/paths/~1a/get/responses/200/schema/items")
        );
        assert_eq!(original_pointer("/paths/~1a/get"), None);
    }
}
