//! A typed view of `spec/openapi.yaml`: operations, parameters, bodies, responses and the
//! project's `x-` rules. The harness knows the API only through this view and the contract
//! files, so everything a check needs must be reachable from here.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::HarnessError;

/// How binding a rule or response is: MUST fails the run, SHOULD warns (fails under `--strict`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Stated by the interface document.
    Must,
    /// A decision of the project (DECISIONS.md).
    Should,
}

impl Level {
    /// The spelling used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        }
    }

    fn parse(v: Option<&Value>) -> Level {
        match v.and_then(Value::as_str) {
            Some("should") => Level::Should,
            _ => Level::Must,
        }
    }
}

/// Where a parameter travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// In the query string.
    Query,
    /// In a header.
    Header,
}

/// One way of putting a list parameter on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoding {
    /// `names=A&names=B` when true, `names=A,B` when false.
    pub explode: bool,
    /// How binding support for this encoding is.
    pub level: Level,
}

/// A declared parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// Wire name.
    pub name: String,
    /// Query or header.
    pub location: Location,
    /// Whether the request is malformed without it.
    pub required: bool,
    /// Its schema, `$ref`s resolved at the top.
    pub schema: Value,
    /// The spec's example value, the base value when the contracts give none.
    pub example: Option<Value>,
    /// The declared encoding for arrays.
    pub explode: bool,
    /// Other encodings the target may accept (`x-alternate-encodings`).
    pub alternates: Vec<Encoding>,
}

/// The `x-combined-max-length` rule: several fields whose lengths add up to a cap.
#[derive(Debug, Clone, Deserialize)]
pub struct CombinedMaxLength {
    /// The fields whose lengths add up.
    pub fields: Vec<String>,
    /// The cap, in Unicode scalar values.
    pub max: usize,
    /// How binding the rejection is.
    #[serde(default = "must")]
    pub level: Level,
    /// The shape of the rejection answer, when the spec fixes one.
    #[serde(default)]
    pub rejection: Option<RejectionShape>,
}

fn must() -> Level {
    Level::Must
}

/// How a business-rule rejection is answered (`rejection:` under `x-combined-max-length`).
#[derive(Debug, Clone, Deserialize)]
pub struct RejectionShape {
    /// Status of the rejection.
    pub status: u16,
    /// Field that must be non-empty.
    #[serde(rename = "non-empty", default)]
    pub non_empty: Option<String>,
    /// Field that must be absent.
    #[serde(default)]
    pub absent: Option<String>,
    /// How binding this shape is.
    #[serde(default = "must")]
    pub level: Level,
}

/// The request body of an operation.
#[derive(Debug, Clone)]
pub struct Body {
    /// Content types and how binding their support is.
    pub content_types: Vec<(String, Level)>,
    /// The object schema with top-level `$ref` resolved.
    pub schema: Value,
    /// The first example, the base body when the contracts give none.
    pub example: Option<Value>,
    /// Cross-field length caps.
    pub combined: Vec<CombinedMaxLength>,
}

impl Body {
    /// Names of the body's required fields, in declaration order.
    pub fn required(&self) -> Vec<String> {
        str_list(self.schema.get("required"))
    }

    /// The declared properties, in order.
    pub fn properties(&self) -> Vec<(String, Value)> {
        self.schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }
}

/// One declared response.
#[derive(Debug, Clone)]
pub struct ResponseSpec {
    /// Status code, or `default`.
    pub status: String,
    /// How binding this response is (`x-level`).
    pub level: Level,
    /// Content types with their schemas.
    pub content: Vec<(String, Option<Value>)>,
}

/// When a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum When {
    /// On answers to requests that should succeed.
    #[default]
    Success,
    /// On answers to requests that should be rejected.
    Failure,
}

/// A semantic rule from `x-rules`; each kind is one generic check.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum Rule {
    /// Named fields equal fixed values.
    FieldsEqual {
        #[serde(default)]
        when: When,
        fields: Map<String, Value>,
        #[serde(default = "must")]
        level: Level,
    },
    /// Named fields are present and non-empty.
    FieldsNonEmpty {
        #[serde(default)]
        when: When,
        fields: Vec<String>,
        #[serde(default = "must")]
        level: Level,
    },
    /// Named fields are absent or empty.
    FieldsAbsent {
        #[serde(default)]
        when: When,
        fields: Vec<String>,
        #[serde(default = "must")]
        level: Level,
    },
    /// A field's value is one of a list.
    FieldOneOf {
        #[serde(default)]
        when: When,
        field: String,
        values: Vec<Value>,
        #[serde(default = "must")]
        level: Level,
    },
    /// The object at `target` carries the request body's values of `fields`.
    EchoesRequest {
        target: String,
        fields: Vec<String>,
        #[serde(default = "must")]
        level: Level,
    },
    /// The object at `target` keeps every field the request did not send.
    PreservesOtherFields {
        target: String,
        #[serde(default = "must")]
        level: Level,
    },
    /// Every item's `field` equals the parameter's value.
    ItemsFieldEqualsParam {
        field: String,
        param: String,
        #[serde(default = "must")]
        level: Level,
    },
    /// The answer's `field` equals the parameter's value.
    FieldEqualsParam {
        field: String,
        param: String,
        #[serde(default = "must")]
        level: Level,
    },
    /// Every item's `field` is one of the list parameter's values.
    ItemsFieldInParam {
        field: String,
        param: String,
        #[serde(default = "must")]
        level: Level,
    },
    /// No two items share a `field` value.
    ItemsUnique {
        field: String,
        #[serde(default = "must")]
        level: Level,
    },
    /// At most `param` items.
    MaxItemsParam {
        param: String,
        #[serde(default = "must")]
        level: Level,
    },
    /// Every item has one of `fields` containing the parameter's text.
    ItemsContainParam {
        param: String,
        fields: Vec<String>,
        #[serde(rename = "case-insensitive", default)]
        case_insensitive: bool,
        #[serde(default = "must")]
        level: Level,
    },
    /// The array's order is not part of the interface: the harness must not rely on it.
    Unordered {},
}

impl Rule {
    /// The check name this rule reports under.
    pub fn check_name(&self) -> &'static str {
        match self {
            Rule::FieldsEqual { .. } => "fields_equal",
            Rule::FieldsNonEmpty { .. } => "fields_non_empty",
            Rule::FieldsAbsent { .. } => "fields_absent",
            Rule::FieldOneOf { .. } => "field_one_of",
            Rule::EchoesRequest { .. } => "echoes_request",
            Rule::PreservesOtherFields { .. } => "preserves_other_fields",
            Rule::ItemsFieldEqualsParam { .. } => "items_field_equals_param",
            Rule::FieldEqualsParam { .. } => "field_equals_param",
            Rule::ItemsFieldInParam { .. } => "items_field_in_param",
            Rule::ItemsUnique { .. } => "items_unique",
            Rule::MaxItemsParam { .. } => "max_items_param",
            Rule::ItemsContainParam { .. } => "items_contain_param",
            Rule::Unordered {} => "unordered",
        }
    }
}

/// One operation of the spec.
#[derive(Debug, Clone)]
pub struct Operation {
    /// `operationId`.
    pub id: String,
    /// Upper-case HTTP method.
    pub method: String,
    /// Path relative to the base URL.
    pub path: String,
    /// Declared parameters.
    pub params: Vec<Param>,
    /// Request body, if any.
    pub body: Option<Body>,
    /// Declared responses.
    pub responses: Vec<ResponseSpec>,
    /// Whether the bearer header is required.
    pub secured: bool,
    /// The semantic rules.
    pub rules: Vec<Rule>,
}

impl Operation {
    /// Looks a parameter up by wire name.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The declared response for a status (exact code first, then `NXX`, then `default`).
    pub fn response(&self, status: u16) -> Option<&ResponseSpec> {
        let exact = status.to_string();
        let range = format!("{}XX", status / 100);
        self.responses
            .iter()
            .find(|r| r.status == exact)
            .or_else(|| {
                self.responses
                    .iter()
                    .find(|r| r.status.eq_ignore_ascii_case(&range))
            })
            .or_else(|| self.responses.iter().find(|r| r.status == "default"))
    }

    /// Body fields whose emptiness tells success: a non-empty value means the operation
    /// reported a business failure inside a 2xx answer (from `fields-equal` rules that
    /// require `""` on success).
    pub fn business_error_fields(&self) -> Vec<String> {
        let mut out = Vec::new();
        for rule in &self.rules {
            if let Rule::FieldsEqual {
                when: When::Success,
                fields,
                ..
            } = rule
            {
                for (k, v) in fields {
                    if v.as_str() == Some("") {
                        out.push(k.clone());
                    }
                }
            }
        }
        out
    }

    /// Whether a request to it may change the target's state; such cases run one at a
    /// time so that before/after comparisons see only their own writes.
    pub fn writes(&self) -> bool {
        self.secured && self.method != "GET"
    }
}

/// How the target must answer a request without valid credentials.
#[derive(Debug, Clone)]
pub struct AuthRejection {
    /// Level of "never 2xx".
    pub level: Level,
    /// The status the project's decision fixes, with its level.
    pub status: Option<(u16, Level)>,
    /// The body the project's decision fixes.
    pub body: Option<Value>,
}

/// The parsed spec.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The whole document, for `$ref` resolution by the schema validators.
    pub doc: Value,
    /// Operations in document order.
    pub operations: Vec<Operation>,
    /// How secured operations must reject bad credentials.
    pub auth_rejection: AuthRejection,
    /// Property names marked `x-secret: true` anywhere in the components.
    pub secret_fields: BTreeSet<String>,
}

impl Spec {
    /// Loads and parses a spec file.
    pub fn load(path: &Path) -> Result<Spec, HarnessError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| HarnessError::Spec(format!("cannot read {}: {e}", path.display())))?;
        Spec::parse(&text).map_err(|e| HarnessError::Spec(format!("{}: {e}", path.display())))
    }

    /// Parses the spec built into the binary ([`crate::builtin::SPEC`]).
    pub fn load_builtin() -> Result<Spec, HarnessError> {
        let (name, text) = crate::builtin::SPEC;
        Spec::parse(text).map_err(|e| HarnessError::Spec(format!("{name}: {e}")))
    }

    /// Parses spec text (YAML or JSON).
    pub fn parse(text: &str) -> Result<Spec, String> {
        let doc: Value = serde_yaml::from_str(text).map_err(|e| format!("not valid YAML: {e}"))?;
        let global_secured = doc
            .get("security")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        let mut operations = Vec::new();
        let paths = doc
            .get("paths")
            .and_then(Value::as_object)
            .ok_or("no `paths` object")?;
        for (path, item) in paths {
            let item = item
                .as_object()
                .ok_or(format!("paths.{path} is not an object"))?;
            for method in ["get", "put", "post", "delete", "patch"] {
                if let Some(op) = item.get(method) {
                    operations.push(parse_operation(&doc, path, method, op, global_secured)?);
                }
            }
        }
        let scheme = doc
            .pointer("/components/securitySchemes")
            .and_then(Value::as_object)
            .and_then(|m| m.values().next())
            .cloned()
            .unwrap_or(Value::Null);
        let rej = scheme.get("x-rejection");
        let rej_resp = scheme.get("x-rejection-response");
        let auth_rejection = AuthRejection {
            level: Level::parse(rej.and_then(|r| r.get("level"))),
            status: rej_resp.and_then(|r| {
                let status = r.get("status")?.as_u64()?;
                Some((u16::try_from(status).ok()?, Level::parse(r.get("level"))))
            }),
            body: rej_resp.and_then(|r| r.get("body")).cloned(),
        };
        let mut secret_fields = BTreeSet::new();
        collect_secrets(
            doc.get("components").unwrap_or(&Value::Null),
            &mut secret_fields,
        );
        Ok(Spec {
            doc,
            operations,
            auth_rejection,
            secret_fields,
        })
    }

    /// Looks an operation up by `operationId`.
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.id == id)
    }
}

fn collect_secrets(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(props)) = m.get("properties") {
                for (name, schema) in props {
                    if schema.get("x-secret").and_then(Value::as_bool) == Some(true) {
                        out.insert(name.clone());
                    }
                }
            }
            for child in m.values() {
                collect_secrets(child, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|c| collect_secrets(c, out)),
        _ => {}
    }
}

/// Follows `$ref` pointers (`#/...`) at the top of a node until a concrete node is found.
pub fn resolve<'a>(doc: &'a Value, mut node: &'a Value) -> Result<&'a Value, String> {
    for _ in 0..16 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let ptr = r
                    .strip_prefix('#')
                    .ok_or(format!("only local references are supported: {r}"))?;
                node = doc.pointer(ptr).ok_or(format!("dangling reference {r}"))?;
            }
            None => return Ok(node),
        }
    }
    Err("reference cycle".into())
}

fn str_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn parse_operation(
    doc: &Value,
    path: &str,
    method: &str,
    op: &Value,
    global_secured: bool,
) -> Result<Operation, String> {
    let id = op
        .get("operationId")
        .and_then(Value::as_str)
        .ok_or(format!("{method} {path} has no operationId"))?
        .to_string();
    let at = |what: &str| format!("{id}: {what}");
    let secured = match op.get("security") {
        Some(Value::Array(a)) => !a.is_empty(),
        _ => global_secured,
    };
    let mut params = Vec::new();
    for p in op
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let p = resolve(doc, p).map_err(|e| at(&e))?;
        let name = p
            .get("name")
            .and_then(Value::as_str)
            .ok_or(at("parameter without name"))?
            .to_string();
        let location = match p.get("in").and_then(Value::as_str) {
            Some("query") => Location::Query,
            Some("header") => Location::Header,
            other => {
                return Err(at(&format!(
                    "parameter {name}: unsupported location {other:?}"
                )));
            }
        };
        let schema = resolve(doc, p.get("schema").unwrap_or(&Value::Null))
            .map_err(|e| at(&e))?
            .clone();
        let alternates = p
            .get("x-alternate-encodings")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|e| Encoding {
                        explode: e.get("explode").and_then(Value::as_bool).unwrap_or(true),
                        level: Level::parse(e.get("level")),
                    })
                    .collect()
            })
            .unwrap_or_default();
        params.push(Param {
            name,
            location,
            required: p.get("required").and_then(Value::as_bool).unwrap_or(false),
            example: p.get("example").or_else(|| schema.get("example")).cloned(),
            schema,
            explode: p.get("explode").and_then(Value::as_bool).unwrap_or(true),
            alternates,
        });
    }
    let body = match op.get("requestBody") {
        None => None,
        Some(rb) => {
            let rb = resolve(doc, rb).map_err(|e| at(&e))?;
            let content = rb
                .get("content")
                .and_then(Value::as_object)
                .ok_or(at("requestBody without content"))?;
            let mut content_types = Vec::new();
            let mut schema = Value::Null;
            let mut example = None;
            for (mime, media) in content {
                content_types.push((mime.clone(), Level::parse(media.get("x-level"))));
                if schema.is_null() {
                    schema = resolve(doc, media.get("schema").unwrap_or(&Value::Null))
                        .map_err(|e| at(&e))?
                        .clone();
                    example = media
                        .get("examples")
                        .and_then(Value::as_object)
                        .and_then(|m| m.values().next())
                        .and_then(|e| e.get("value"))
                        .or_else(|| media.get("example"))
                        .cloned();
                }
            }
            let combined = match schema.get("x-combined-max-length") {
                None => Vec::new(),
                Some(v) => serde_json::from_value(v.clone())
                    .map_err(|e| at(&format!("x-combined-max-length: {e}")))?,
            };
            Some(Body {
                content_types,
                schema,
                example,
                combined,
            })
        }
    };
    let mut responses = Vec::new();
    for (status, r) in op
        .get("responses")
        .and_then(Value::as_object)
        .ok_or(at("no responses"))?
    {
        let level_here = r.get("x-level");
        let r = resolve(doc, r).map_err(|e| at(&e))?;
        let level = Level::parse(level_here.or_else(|| r.get("x-level")));
        let content = r
            .get("content")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(mime, media)| (mime.clone(), media.get("schema").cloned()))
                    .collect()
            })
            .unwrap_or_default();
        responses.push(ResponseSpec {
            status: status.clone(),
            level,
            content,
        });
    }
    let rules = match op.get("x-rules") {
        None => Vec::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| at(&format!("x-rules: {e}")))?,
    };
    Ok(Operation {
        id,
        method: method.to_ascii_uppercase(),
        path: path.to_string(),
        params,
        body,
        responses,
        secured,
        rules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project_spec() -> Spec {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml");
        Spec::load(&path).expect("the project spec parses")
    }

    #[test]
    fn reads_the_six_operations_with_their_rules() {
        let spec = project_spec();
        assert_eq!(spec.operations.len(), 6);
        let token = spec.operation("exchangeToken").unwrap();
        assert!(!token.secured);
        assert_eq!(
            token.business_error_fields(),
            ["error", "error_description"]
        );
        let update = spec.operation("updateContactInfoName").unwrap();
        assert!(update.secured && update.writes());
        assert_eq!(update.body.as_ref().unwrap().combined[0].max, 60);
        let finds = spec.operation("findExchangeScopes").unwrap();
        let names = finds.param("names").unwrap();
        assert!(names.explode);
        assert_eq!(names.alternates.len(), 1);
        assert!(!names.alternates[0].explode);
        assert_eq!(spec.auth_rejection.status, Some((401, Level::Should)));
        assert!(spec.secret_fields.contains("client_secret"));
        assert!(spec.secret_fields.contains("access_token"));
    }

    #[test]
    fn response_levels_follow_references() {
        let spec = project_spec();
        let item = spec.operation("getCategoryPositionLimit").unwrap();
        assert_eq!(item.response(200).unwrap().level, Level::Must);
        assert_eq!(item.response(404).unwrap().level, Level::Should);
        assert!(item.response(418).is_none());
    }

    #[test]
    fn unknown_rule_kind_is_an_error() {
        let text = r#"
openapi: 3.1.0
paths:
  /x:
    get:
      operationId: x
      responses: { "200": { description: ok } }
      x-rules: [ { rule: no-such-rule } ]
"#;
        let err = Spec::parse(text).unwrap_err();
        assert!(err.contains("x-rules"), "{err}");
    }
}
