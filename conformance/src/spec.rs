//! The harness's view of the spec: operations with their parameters, bodies, responses and
//! rules, built from `spec_model`'s typed model (the one reader; no parsing happens here).
//!
//! Everything a check needs must be reachable from here. JSON Schemas stay JSON values
//! (from `spec_model::to_value`): the `jsonschema` validators and `$ref` walks want them so.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use spec_model::model::{self as m, OpenApi};
use spec_model::refs::{self, Component};
use spec_model::{Located, Source, SpecError, push_pointer};

use crate::error::HarnessError;

pub use spec_model::extensions::{Level, RejectionShape, Rule, When};

/// Where a parameter travels and how its values are laid out: the spec crate's, which
/// writes them as a generated client does.
pub use spec_model::encode::{Location, Style};

/// One way of putting a parameter on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoding {
    /// The style.
    pub style: Style,
    /// `names=A&names=B` when true, `names=A,B` when false (for `form`).
    pub explode: bool,
    /// How binding support for this encoding is.
    pub level: Level,
}

/// A declared parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// Wire name.
    pub name: String,
    /// Query, header or path.
    pub location: Location,
    /// Whether the request is malformed without it.
    pub required: bool,
    /// Its schema, `$ref`s resolved at the top.
    pub schema: Value,
    /// Where its schema is in the document (JSON pointer), for the value generator: a
    /// schema named by its place is compiled for validation once.
    pub schema_ptr: String,
    /// The spec's example value, the base value when the contracts give none.
    pub example: Option<Value>,
    /// The declared style.
    pub style: Style,
    /// The declared `explode`.
    pub explode: bool,
    /// Other encodings the target may accept (`x-alternate-encodings`).
    pub alternates: Vec<Encoding>,
    /// Levels of answering any encoding, and the declared one (`x-encoding-levels`).
    pub encoding_levels: (Level, Level),
    /// The JSON media type of a parameter described by `content` (`in: query`,
    /// `content: {application/json: …}`): its value goes as one JSON text, whatever it is.
    /// `application/json` too for a list of objects (or of lists) in the query, for which
    /// OpenAPI defines no encoding: the generated clients send it as one JSON text (the
    /// generator's `query-json-list` warning), and so does the harness.
    pub media: Option<String>,
}

/// The `x-combined-max-length` rule: several fields whose lengths add up to a cap.
#[derive(Debug, Clone)]
pub struct CombinedMaxLength {
    /// The fields whose lengths add up.
    pub fields: Vec<String>,
    /// The cap, in Unicode scalar values.
    pub max: usize,
    /// How binding the rejection is.
    pub level: Level,
    /// The shape of the rejection answer, when the spec fixes one.
    pub rejection: Option<RejectionShape>,
}

/// The request body of an operation.
#[derive(Debug, Clone)]
pub struct Body {
    /// Content types and how binding their support is.
    pub content_types: Vec<(String, Level)>,
    /// The object schema with top-level `$ref` resolved.
    pub schema: Value,
    /// Where the first media type's schema is in the document (JSON pointer).
    pub schema_ptr: String,
    /// The first example, the base body when the contracts give none.
    pub example: Option<Value>,
    /// Cross-field length caps.
    pub combined: Vec<CombinedMaxLength>,
    /// Whether a request without a body is malformed (`requestBody.required`).
    pub required: bool,
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
    /// Whether it declares a `Location` header: the URL of the resource it names.
    pub location: bool,
    /// Its OpenAPI `links`: how its answer's values feed other operations.
    pub links: Vec<Link>,
}

/// One OpenAPI link of a response: an operation (by `operationId`, or an `operationRef`
/// to a local path item's method) and the runtime expressions (`$response.body#/id`,
/// `$request.path.id`, `$response.header.Location`) or constants that give its
/// parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The target's `operationId`, or `None` when it is named by `operationRef`.
    pub operation_id: Option<String>,
    /// The `operationRef`, when the link uses one (`#/paths/~1widgets~1{id}/get`).
    pub operation_ref: Option<String>,
    /// Each parameter (its name, an `in.` prefix removed) and its expression or constant.
    pub parameters: Vec<(String, Value)>,
}

/// One operation of the spec.
#[derive(Debug, Clone)]
pub struct Operation {
    /// `operationId`, or for an operation without one the client method name the
    /// generator gives it (`get_items_id` for `GET /items/{id}`), so that the harness,
    /// its reports and the generated client call an operation by one name.
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
    /// `x-business-error`: body fields of a 2xx that report a failure when non-empty.
    pub business_error: Vec<String>,
    /// The operation's tags (for `--tag` / `--exclude-tag`).
    pub tags: Vec<String>,
    /// `summary`, the words (with `operationId`) its effect is judged from.
    pub summary: String,
    /// What its requests do to the target's state (`x-effect`, else judged by
    /// `effect`).
    pub effect: crate::effect::Effect,
    /// The spec's `x-effect`, which the judgement does not override.
    pub declared_effect: Option<crate::effect::Effect>,
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

    /// Body fields whose emptiness tells success (`x-business-error`): a non-empty value
    /// means the operation reported a failure inside a 2xx answer.
    pub fn business_error_fields(&self) -> Vec<String> {
        self.business_error.clone()
    }

    /// Whether a request to it may change the target's state (whatever the spec's
    /// security says): such cases are sent only with the user's permission, and run one
    /// at a time so that before/after comparisons see only their own writes.
    pub fn writes(&self) -> bool {
        self.effect != crate::effect::Effect::Read
    }

    /// The words its effect is judged from: `operationId` and `summary`.
    pub fn words(&self) -> String {
        format!("{} {}", self.id, self.summary)
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

/// The decisions the spec states at its root, for answers no operation declares.
#[derive(Debug, Clone, Default)]
pub struct Decisions {
    /// `x-server-errors`: the level of "never 5xx", when the spec states it.
    pub server_errors: Option<Level>,
    /// `x-undeclared-status`: the level of an answer whose status its operation does not
    /// declare; MUST when unstated, as Schemathesis's `status_code_conformance` judges it
    /// (a spec that answers outside its responses misleads every client built from it).
    pub undeclared_status: Level,
    /// `x-unknown-path`: status and level of the answer to an undeclared path.
    pub unknown_path: Option<(u16, Level)>,
    /// `x-undeclared-method`: status, whether `Allow` is required, and level.
    pub undeclared_method: Option<(u16, bool, Level)>,
    /// `x-max-body`: the body limit in bytes, the status beyond it, and their level.
    pub max_body: Option<(usize, u16, Level)>,
    /// `x-non-bmp`: the level of verdicts on characters outside the BMP (MUST if unstated).
    pub non_bmp: Level,
    /// `x-mistyped-input`: the level of rejecting a mistyped value a lenient server can
    /// coerce, then of one it cannot read (MUST both if unstated).
    pub mistyped: (Level, Level),
}

/// The parsed spec.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The decisions stated at the spec's root.
    pub decisions: Decisions,
    /// The whole document, for `$ref` resolution by the schema validators.
    pub doc: Value,
    /// Operations in document order.
    pub operations: Vec<Operation>,
    /// How secured operations must reject bad credentials.
    pub auth_rejection: AuthRejection,
    /// Property names marked `x-secret: true` anywhere in the components.
    pub secret_fields: BTreeSet<String>,
    /// `info.title`, `info.version` and a digest of the document's text, for the run
    /// header: which spec a report judged against.
    pub identity: Identity,
    /// Operations the harness cannot use, each with where and why: a problem confined to
    /// one operation leaves that operation out, not the whole spec.
    pub left_out: Vec<LeftOut>,
}

/// An operation left out of the run for a problem of the spec confined to it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LeftOut {
    /// `METHOD /path`: the operation may have no usable name.
    pub operation: String,
    /// JSON pointer of the node at fault.
    pub pointer: String,
    /// 1-based line of that node in the spec file, when it could be found.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for LeftOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: at {}", self.operation, self.pointer)?;
        if let Some(line) = self.line {
            write!(f, " (line {line})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Which spec a run used.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Identity {
    /// `info.title`.
    pub title: String,
    /// `info.version`.
    pub version: String,
    /// SHA-256 of the document's text, hex, first 16 digits.
    pub digest: String,
    /// Where the spec was read from when that is not a file: its URL, or standard input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl Spec {
    /// Loads and parses a spec file, with every other file its `$ref`s name brought in
    /// (`spec_model::bundle`).
    pub fn load(path: &Path) -> Result<Spec, HarnessError> {
        Spec::load_with(path, None)
    }

    /// [`Spec::load`], fetching each `$ref` to a URL with `fetch` when there is one
    /// (`--url-refs`).
    pub fn load_with(
        path: &Path,
        fetch: Option<spec_model::bundle::Fetch<'_>>,
    ) -> Result<Spec, HarnessError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| HarnessError::Config(format!("cannot read {}: {e}", path.display())))?;
        let source = spec_model::bundle::bundle_with(
            path,
            Source {
                name: path.display().to_string(),
                text,
            },
            fetch,
        )?;
        Ok(Spec::from_source(&source)?)
    }

    /// Parses the spec built into the binary (`builtin::SPEC`).
    pub fn load_builtin() -> Result<Spec, HarnessError> {
        let (name, text) = crate::builtin::SPEC;
        Ok(Spec::from_source(&Source {
            name: name.into(),
            text: text.into(),
        })?)
    }

    /// Parses spec text (YAML or JSON), naming it `spec` in errors.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        Spec::from_source(&Source {
            name: "spec".into(),
            text: text.into(),
        })
    }

    /// Reads a spec through `spec_model` and builds the harness's view of it. Every
    /// problem confined to one operation leaves that operation out ([`Spec::left_out`]);
    /// only a document that does not parse, or one with no usable operation, is refused,
    /// with all its problems.
    pub fn from_source(source: &Source) -> Result<Spec, SpecError> {
        let model = spec_model::parse(source)?;
        let doc = spec_model::to_value(source)?;
        let built = View {
            model: &model,
            doc: &doc,
        }
        .build();
        let lines = source.errors(built.left_out.iter().map(|(_, l)| l.clone()));
        let left_out: Vec<LeftOut> = built
            .left_out
            .into_iter()
            .zip(lines)
            .map(|((operation, _), e)| LeftOut {
                operation,
                pointer: e.pointer,
                line: e.line,
                message: e.message,
            })
            .collect();
        if built.operations.is_empty() && !left_out.is_empty() {
            let mut message = format!(
                "no operation of the spec can be used; {} problem(s):",
                left_out.len()
            );
            for l in &left_out {
                message.push_str(&format!("\n  {l}"));
            }
            return Err(source.error(Located::new("/paths", message)));
        }
        let identity = Identity {
            title: model
                .info
                .title
                .as_ref()
                .and_then(spec_model::model::Text::as_str)
                .unwrap_or_default()
                .to_owned(),
            version: model.info.version.clone().unwrap_or_default(),
            digest: {
                use sha2::Digest as _;
                let hash = sha2::Sha256::digest(source.text.as_bytes());
                hash.iter().take(8).map(|b| format!("{b:02x}")).collect()
            },
            source: None,
        };
        Ok(Spec {
            decisions: decisions(&model),
            doc,
            operations: built.operations,
            auth_rejection: built.auth_rejection,
            secret_fields: built.secret_fields,
            identity,
            left_out,
        })
    }

    /// Looks an operation up by its name ([`Operation::id`]).
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.id == id)
    }

    /// The operation a link points at: by `operationId`, or by an `operationRef` to a
    /// path item's method in this document (`#/paths/~1widgets~1{id}/get`).
    pub fn link_target(&self, link: &Link) -> Option<&Operation> {
        if let Some(id) = &link.operation_id {
            return self.operation(id);
        }
        let pointer = link.operation_ref.as_deref()?.strip_prefix("#/paths/")?;
        let (path, method) = pointer.rsplit_once('/')?;
        let path = path.replace("~1", "/").replace("~0", "~");
        let path = percent_encoding::percent_decode_str(&path).decode_utf8_lossy();
        self.operations
            .iter()
            .find(|o| o.path == path && o.method.eq_ignore_ascii_case(method))
    }
}

/// The root decision extensions, as the harness uses them.
fn decisions(model: &OpenApi) -> Decisions {
    Decisions {
        server_errors: model.server_errors.as_ref().map(|s| s.level),
        undeclared_status: model
            .undeclared_status
            .as_ref()
            .map_or(Level::Must, |u| u.level),
        unknown_path: model.unknown_path.as_ref().map(|r| (r.status, r.level)),
        undeclared_method: model
            .undeclared_method
            .as_ref()
            .map(|r| (r.status, r.allow_header, r.level)),
        max_body: model
            .max_body
            .as_ref()
            .and_then(|b| Some((usize::try_from(b.bytes).ok()?, b.status, b.level))),
        non_bmp: model.non_bmp.as_ref().map_or(Level::Must, |n| n.level),
        mistyped: model
            .mistyped_input
            .as_ref()
            .map_or((Level::Must, Level::Must), |m| (m.coercible, m.unreadable)),
    }
}

/// Whether `schema` is a list whose items are objects or lists (or any JSON, no `type`
/// and no `enum`, `const` or union): the lists the generator sends as one JSON text in
/// the query, by the same reading of the items (`codegen`'s `is_scalar_item`).
fn holds_structures(doc: &Value, schema: &Value) -> bool {
    let is = |node: &Value, ty: &str| match node.get("type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(types)) => types.iter().any(|t| t == ty),
        _ => false,
    };
    if !is(schema, "array") {
        return false;
    }
    let Some(items) = schema.get("items") else {
        return false;
    };
    let Ok(items) = resolve(doc, items) else {
        return false;
    };
    // `allOf` merges objects (a struct to the generator); `oneOf`/`anyOf` are unions,
    // which it reads as scalars here.
    let composed = ["oneOf", "anyOf", "enum", "const"]
        .iter()
        .any(|k| items.get(k).is_some());
    is(items, "object")
        || is(items, "array")
        || (!composed
            && (items.get("properties").is_some()
                || items.get("allOf").is_some()
                || items.get("type").is_none()))
}

/// Follows the `$ref`s at the top of an untyped node until a concrete node is found
/// ([`refs::follow_value`], the resolver every crate shares).
pub fn resolve<'a>(doc: &'a Value, node: &'a Value) -> Result<&'a Value, String> {
    refs::follow_value(doc, node, "")
        .map(|(v, _)| v)
        .map_err(|e| e.message)
}

/// One link object as [`Link`] holds it.
fn link(l: &Value) -> Link {
    let text = |k: &str| l.get(k).and_then(Value::as_str).map(String::from);
    Link {
        operation_id: text("operationId"),
        operation_ref: text("operationRef"),
        parameters: l
            .get("parameters")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(name, v)| {
                // `path.id` names the parameter `id` in the path.
                let bare = ["path.", "query.", "header.", "cookie."]
                    .iter()
                    .find_map(|p| name.strip_prefix(p))
                    .unwrap_or(name);
                (bare.to_string(), v.clone())
            })
            .collect(),
    }
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

/// The typed model and the untyped tree of one document, walked together: structure and
/// extensions from the model, JSON Schemas and examples (by pointer) from the tree.
struct View<'a> {
    model: &'a OpenApi,
    doc: &'a Value,
}

/// What [`View::build`] makes of a document: the usable operations, and each operation
/// left out (`METHOD /path`) with every problem that leaves it out.
struct Built {
    operations: Vec<Operation>,
    auth_rejection: AuthRejection,
    secret_fields: BTreeSet<String>,
    left_out: Vec<(String, Located)>,
}

/// The problems found in one operation: each is recorded and the walk goes on, so one run
/// reports them all.
type Problems = Vec<Located>;

impl<'a> View<'a> {
    fn build(&self) -> Built {
        let global_secured = self.model.security.as_ref().is_some_and(|s| !s.is_empty());
        let mut operations: Vec<Operation> = Vec::new();
        let mut left_out = Vec::new();
        let mut refs = RefCheck::new(self.doc);
        // The generator's method names: its own methods reserved first, then one claim
        // per operation in document order (see `codegen::lower::operation`). An operation
        // without `operationId`, or whose `operationId` an earlier operation already
        // has, is called by the name it gets there (`get_thing2` for the second
        // `getThing`, as the generator's `duplicate-operation-id` warning says).
        let mut method_names = spec_model::names::Scope::default();
        for taken in spec_model::names::CLIENT_METHODS {
            method_names.claim((*taken).to_owned());
        }
        let mut taken_ids: BTreeSet<String> = BTreeSet::new();
        for (path, item) in &self.model.paths {
            let item_ptr = push_pointer("/paths", path);
            if item.reference.is_some() {
                for (method, _) in item.operations() {
                    left_out.push((
                        format!("{} {path}", method.to_ascii_uppercase()),
                        Located::new(
                            push_pointer(&item_ptr, "$ref"),
                            "path items given by $ref are not supported",
                        ),
                    ));
                }
                continue;
            }
            for (method, op) in item.operations() {
                let op_ptr = push_pointer(&item_ptr, method);
                let label = format!("{} {path}", method.to_ascii_uppercase());
                let named = op
                    .operation_id
                    .as_deref()
                    .filter(|id| !id.trim().is_empty());
                let claimed = method_names.claim(spec_model::names::snake(
                    named.unwrap_or(&format!("{method} {path}")),
                ));
                // An operationId is kept unless an earlier operation, usable or not, has it
                // or is called by it; the method name is unique among those.
                let id = match named {
                    Some(named) if !taken_ids.contains(named) => named.to_owned(),
                    _ => claimed,
                };
                taken_ids.extend(named.map(str::to_owned));
                taken_ids.insert(id.clone());
                let mut problems = Problems::new();
                if let Some(first) = operations.iter().find(|o| o.id == id) {
                    problems.push(Located::new(
                        push_pointer(&op_ptr, "operationId"),
                        format!(
                            "`{id}` already names {} {}; operation names must be unique",
                            first.method, first.path
                        ),
                    ));
                }
                let built = self.operation(
                    Place {
                        path,
                        item_ptr: &item_ptr,
                        item,
                        method,
                        op_ptr: &op_ptr,
                    },
                    op,
                    id,
                    global_secured,
                    Found {
                        problems: &mut problems,
                        refs: &mut refs,
                    },
                );
                if problems.is_empty() {
                    operations.push(built);
                } else {
                    left_out.extend(problems.into_iter().map(|p| (label.clone(), p)));
                }
            }
        }
        // Effects are judged once every operation is known: a PUT is collection-wide where
        // the same path's GET answers a list.
        let index = paths_index(&operations, self.doc);
        for op in &mut operations {
            // The spec's `x-effect` where it gives one, else judged from method, path
            // and words.
            op.effect = op
                .declared_effect
                .unwrap_or_else(|| crate::effect::judge(&op.method, &op.path, &op.words(), &index));
        }
        let scheme = self.model.components.security_schemes.values().next();
        let auth_rejection = AuthRejection {
            level: scheme
                .and_then(|s| s.rejection.as_ref())
                .map_or(Level::Must, |r| r.level),
            status: scheme
                .and_then(|s| s.rejection_response.as_ref())
                .map(|r| (r.status, r.level)),
            body: scheme
                .and_then(|s| s.rejection_response.as_ref())
                .and_then(|r| r.body.clone()),
        };
        let mut secret_fields = BTreeSet::new();
        for schema in self.model.components.schemas.values() {
            collect_secrets(schema, &mut secret_fields);
        }
        Built {
            operations,
            auth_rejection,
            secret_fields,
            left_out,
        }
    }

    /// The untyped node at a pointer, `$ref`s at its top followed.
    fn value_at(&self, pointer: &str) -> Result<Option<&'a Value>, Located> {
        match self.doc.pointer(pointer) {
            None => Ok(None),
            Some(v) => refs::follow_value(self.doc, v, pointer).map(|(v, _)| Some(v)),
        }
    }

    /// A parameter, body or answer with its `$ref`s followed, with its pointer.
    fn follow<T: Component>(&self, item: &'a T, at: &str) -> Result<(&'a T, String), Located> {
        refs::follow(self.model, item, at).map(refs::Target::into_parts)
    }

    /// The harness's view of one operation. Every problem is added to `problems` (the
    /// part at fault is left empty and the walk goes on); the caller uses the operation
    /// only when there is none.
    fn operation(
        &self,
        at: Place<'_>,
        op: &m::Operation,
        id: String,
        global_secured: bool,
        found: Found<'_, 'a>,
    ) -> Operation {
        let Found { problems, refs } = found;
        let secured = match &op.security {
            Some(s) => !s.is_empty(),
            None => global_secured,
        };
        let (params, unusable_params) = self.operation_params(at, op, problems, refs);
        // When a parameter could not be read, its name may be the one the template
        // names: not said twice.
        if !unusable_params {
            undeclared_path_names(at, &params, problems);
        }
        let body = match &op.request_body {
            None => None,
            Some(rb) => self
                .body(&format!("{}/requestBody", at.op_ptr), rb, refs)
                .map_err(|e| problems.push(e))
                .ok(),
        };
        let responses = self.responses(at.op_ptr, op, problems, refs);
        Operation {
            id,
            method: at.method.to_ascii_uppercase(),
            path: at.path.to_string(),
            params,
            body,
            responses,
            secured,
            rules: op.rules.clone(),
            business_error: op
                .business_error
                .as_ref()
                .map(|b| b.fields.clone())
                .unwrap_or_default(),
            tags: op
                .tags
                .iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect(),
            summary: op
                .summary
                .as_ref()
                .and_then(m::Text::as_str)
                .unwrap_or_default()
                .to_owned(),
            // Judged in `build` once every operation is known.
            effect: crate::effect::Effect::Read,
            declared_effect: op.effect,
        }
    }

    /// The parameters an operation sends: the path item's first, an operation's own one
    /// of the same name and location replacing it. The flag says a declared parameter
    /// could not be used (its problem is added).
    fn operation_params(
        &self,
        at: Place<'_>,
        op: &m::Operation,
        problems: &mut Problems,
        refs: &mut RefCheck<'a>,
    ) -> (Vec<Param>, bool) {
        let Place {
            path,
            item_ptr,
            item,
            op_ptr,
            ..
        } = at;
        let mut params: Vec<Param> = Vec::new();
        let declared = item
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    push_pointer(&format!("{item_ptr}/parameters"), &i.to_string()),
                    p,
                )
            })
            .chain(op.parameters.iter().enumerate().map(|(i, p)| {
                (
                    push_pointer(&format!("{op_ptr}/parameters"), &i.to_string()),
                    p,
                )
            }));
        let mut stray = Vec::new();
        let mut unusable_params = false;
        for (ptr, p) in declared {
            let before = problems.len();
            let Some((param, ptr)) = self.param(&ptr, p, problems) else {
                // Unless an optional one left unsent: not a problem.
                unusable_params |= problems.len() > before;
                continue;
            };
            let schema_ptr = format!("{ptr}/schema");
            if let Some(dangling) = self
                .doc
                .pointer(&schema_ptr)
                .and_then(|node| refs.dangling(&schema_ptr, node))
            {
                problems.push(dangling);
                unusable_params = true;
                continue;
            }
            params.retain(|q| !(q.name == param.name && q.location == param.location));
            stray.retain(|(name, _): &(String, String)| *name != param.name);
            if param.location == Location::Path && !path.contains(&format!("{{{}}}", param.name)) {
                stray.push((param.name.clone(), ptr));
            }
            params.push(param);
        }
        for (name, ptr) in stray {
            problems.push(Located::new(
                push_pointer(&ptr, "name"),
                format!("path parameter `{name}` does not appear in the path `{path}`"),
            ));
        }
        (params, unusable_params)
    }

    /// The responses an operation declares, a `$ref` followed to its component; one that
    /// leads nowhere is a problem and left out.
    fn responses(
        &self,
        op_ptr: &str,
        op: &m::Operation,
        problems: &mut Problems,
        refs: &mut RefCheck<'a>,
    ) -> Vec<ResponseSpec> {
        let mut responses = Vec::new();
        for (status, r) in &op.responses {
            let r_ptr = push_pointer(&format!("{op_ptr}/responses"), status);
            let (target, target_ptr) = match self.follow(r, &r_ptr) {
                Ok(found) => found,
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            let mut content = Vec::new();
            for mime in target.content.keys() {
                let at = format!(
                    "{}/schema",
                    push_pointer(&format!("{target_ptr}/content"), mime)
                );
                let schema = self.doc.pointer(&at);
                if let Some(dangling) = schema.and_then(|node| refs.dangling(&at, node)) {
                    problems.push(dangling);
                }
                content.push((mime.clone(), schema.cloned()));
            }
            let raw = self.doc.pointer(&target_ptr);
            let location = raw
                .and_then(|r| r.get("headers"))
                .and_then(Value::as_object)
                .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("location")));
            let links = raw
                .and_then(|r| r.get("links"))
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(_, l)| crate::spec::resolve(self.doc, l).ok())
                .map(link)
                .collect();
            responses.push(ResponseSpec {
                status: status.clone(),
                level: r.level.or(target.level).unwrap_or_default(),
                content,
                location,
                links,
            });
        }
        responses
    }

    /// One parameter and the pointer of its definition; `None`, with the problem added,
    /// when the harness cannot use it. An optional parameter described by `content` in a
    /// media type other than JSON is left unsent (nothing the operation needs is missing);
    /// a required one is a problem.
    fn param(
        &self,
        ptr: &str,
        p: &m::Parameter,
        problems: &mut Problems,
    ) -> Option<(Param, String)> {
        let (p, ptr) = match self.follow(p, ptr) {
            Ok(found) => found,
            Err(e) => {
                problems.push(e);
                return None;
            }
        };
        let Some(name) = p.name.clone() else {
            problems.push(Located::new(&ptr, "parameter without name"));
            return None;
        };
        let location = match p.location.as_deref() {
            Some("query") => Location::Query,
            Some("header") => Location::Header,
            Some("path") => Location::Path,
            Some("cookie") => Location::Cookie,
            other => {
                problems.push(Located::new(
                    format!("{ptr}/in"),
                    format!(
                        "parameter `{name}`: the harness cannot send a required parameter in {}",
                        other.map_or("no location".to_owned(), |o| format!("`{o}`"))
                    ),
                ));
                return None;
            }
        };
        // A parameter described by `content` in a JSON media type is a JSON text (OpenAPI
        // 3.x §4.8.12.2): its schema is the media type's.
        let json_media = p
            .content
            .as_ref()
            .and_then(Value::as_object)
            .and_then(|m| m.iter().next())
            .filter(|(mime, _)| is_json_media_type(mime))
            .map(|(mime, _)| mime.clone());
        if p.content.is_some() && p.schema.is_none() && json_media.is_none() {
            // No schema to build a value from: an optional one is left unsent.
            if p.required {
                problems.push(Located::new(
                    format!("{ptr}/content"),
                    format!(
                        "parameter `{name}` is described by `content`, which the harness \
                         cannot build a value for; use `schema`"
                    ),
                ));
            }
            return None;
        }
        let before = problems.len();
        let mut style_of = |style: Option<&str>, at: String| match style {
            None => Style::default_for(location),
            Some(text) => Style::parse(text).unwrap_or_else(|| {
                problems.push(Located::new(
                    at,
                    format!("unknown parameter style `{text}`"),
                ));
                Style::default_for(location)
            }),
        };
        let style = style_of(p.style.as_deref(), format!("{ptr}/style"));
        let mut alternates = Vec::new();
        for (i, alt) in p.alternate_encodings.iter().enumerate() {
            let style = style_of(
                alt.style.as_deref(),
                format!("{ptr}/x-alternate-encodings/{i}/style"),
            );
            alternates.push(Encoding {
                style,
                explode: alt.explode.unwrap_or(style.default_explode()),
                level: alt.level.unwrap_or_default(),
            });
        }
        let schema_ptr = match &json_media {
            Some(mime) if p.schema.is_none() => {
                format!("{}/schema", push_pointer(&format!("{ptr}/content"), mime))
            }
            _ => format!("{ptr}/schema"),
        };
        let schema = match self.value_at(&schema_ptr) {
            Ok(schema) => schema.cloned().unwrap_or(Value::Null),
            Err(e) => {
                problems.push(e);
                Value::Null
            }
        };
        if problems.len() > before {
            return None;
        }
        let structured_list = location == Location::Query
            && json_media.is_none()
            && holds_structures(self.doc, &schema);
        let media = match json_media.filter(|_| p.schema.is_none()) {
            None if structured_list => Some("application/json".to_owned()),
            media => media,
        };
        let param = Param {
            example: self
                .doc
                .pointer(&format!("{ptr}/example"))
                .or_else(|| schema.get("example"))
                .cloned(),
            name,
            location,
            required: p.required,
            schema,
            schema_ptr,
            media,
            explode: p.explode.unwrap_or(style.default_explode()),
            style,
            alternates,
            encoding_levels: p
                .encoding_levels
                .as_ref()
                .map_or((Level::Must, Level::Must), |l| (l.any, l.declared)),
        };
        Some((param, ptr))
    }

    fn body(
        &self,
        ptr: &str,
        rb: &m::RequestBody,
        refs: &mut RefCheck<'_>,
    ) -> Result<Body, Located> {
        let (rb, ptr) = self.follow(rb, ptr)?;
        let (Some((first_mime, first)), true) = (rb.content.first(), !rb.content.is_empty()) else {
            return Err(Located::new(&ptr, "requestBody without content"));
        };
        let media_ptr = push_pointer(&format!("{ptr}/content"), first_mime);
        let schema_ptr = format!("{media_ptr}/schema");
        if let Some(dangling) = self
            .doc
            .pointer(&schema_ptr)
            .and_then(|node| refs.dangling(&schema_ptr, node))
        {
            return Err(dangling);
        }
        let schema = self
            .value_at(&format!("{media_ptr}/schema"))?
            .cloned()
            .unwrap_or(Value::Null);
        let media = self.doc.pointer(&media_ptr);
        let example = media
            .and_then(|m| m.get("examples"))
            .and_then(Value::as_object)
            .and_then(|m| m.values().next())
            .and_then(|e| e.get("value"))
            .or_else(|| media.and_then(|m| m.get("example")))
            .cloned();
        let mut combined = Vec::new();
        if let Some(s) = &first.schema {
            let at = format!("{media_ptr}/schema");
            for (i, rule) in self.schema(s, &at)?.combined_max_length.iter().enumerate() {
                let max = rule
                    .max
                    .and_then(|m| usize::try_from(m).ok())
                    .ok_or_else(|| {
                        Located::new(
                            format!("{at}/x-combined-max-length/{i}"),
                            "rule without `max`",
                        )
                    })?;
                combined.push(CombinedMaxLength {
                    fields: rule.fields.clone(),
                    max,
                    level: rule.level,
                    rejection: rule.rejection.clone(),
                });
            }
        }
        Ok(Body {
            content_types: rb
                .content
                .iter()
                .map(|(mime, media)| (mime.clone(), media.level.unwrap_or_default()))
                .collect(),
            schema,
            schema_ptr,
            example,
            combined,
            required: rb.required,
        })
    }

    /// A schema with the `$ref`s at its top followed.
    fn schema(&self, s: &'a m::Schema, at: &str) -> Result<&'a m::Schema, Located> {
        self.follow(s, at).map(|(s, _)| s)
    }
}

/// A `{name}` of the path template without its parameter would be sent literally: each
/// is a problem, as is a `{` never closed.
fn undeclared_path_names(at: Place<'_>, params: &[Param], problems: &mut Problems) {
    let mut rest = at.path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            problems.push(Located::new(at.item_ptr, "unclosed `{` in the path"));
            break;
        };
        let name = &rest[open + 1..close];
        if !params
            .iter()
            .any(|p| p.location == Location::Path && p.name == name)
        {
            problems.push(Located::new(
                at.item_ptr,
                format!("the path names `{{{name}}}`, which no path parameter declares"),
            ));
        }
        rest = &rest[close + 1..];
    }
}

/// Where the problems of one operation go, and the reference check they share.
struct Found<'f, 'a> {
    problems: &'f mut Problems,
    refs: &'f mut RefCheck<'a>,
}

/// Where an operation sits in the document.
#[derive(Clone, Copy)]
struct Place<'p> {
    path: &'p str,
    item_ptr: &'p str,
    item: &'p m::PathItem,
    method: &'p str,
    op_ptr: &'p str,
}

/// Finds `$ref`s that lead nowhere, at any depth of a schema and of the components it
/// reaches: a validator for such a schema cannot be built, nor a value for it. What a
/// component reaches is worked out once per run (operations share their components).
struct RefCheck<'a> {
    doc: &'a Value,
    /// Target pointer → the first dangling reference it reaches (pointer of the `$ref`
    /// node, why it cannot be followed), `None` when it reaches none or is being walked.
    reached: std::collections::HashMap<String, Option<(String, String)>>,
}

impl<'a> RefCheck<'a> {
    fn new(doc: &'a Value) -> Self {
        RefCheck {
            doc,
            reached: std::collections::HashMap::new(),
        }
    }

    /// The first dangling reference `node` (at pointer `at`) reaches, as a problem.
    fn dangling(&mut self, at: &str, node: &Value) -> Option<Located> {
        self.walk(at, node).map(|(ptr, message)| {
            let message = if ptr.starts_with(at) {
                message
            } else {
                format!("{message} (reached from {at})")
            };
            Located::new(ptr, message)
        })
    }

    /// The first reference `node` reaches that cannot be followed: the pointer of its
    /// `$ref` and why.
    fn walk(&mut self, at: &str, node: &Value) -> Option<(String, String)> {
        match node {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    let here = push_pointer(at, "$ref");
                    let (target, target_ptr) = match refs::lookup_value(self.doc, reference) {
                        Ok(found) => found,
                        Err(e) => return Some((here, e.to_string())),
                    };
                    if let Some(known) = self.reached.get(&target_ptr) {
                        return known.clone();
                    }
                    self.reached.insert(target_ptr.clone(), None);
                    let found = self.walk(&target_ptr, target);
                    self.reached.insert(target_ptr, found.clone());
                    if found.is_some() {
                        return found;
                    }
                }
                map.iter()
                    // Examples are data, not schemas: a `$ref` key there is a value.
                    .filter(|(k, _)| !matches!(k.as_str(), "$ref" | "example" | "examples"))
                    .find_map(|(k, v)| self.walk(&push_pointer(at, k), v))
            }
            Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, v)| self.walk(&push_pointer(at, &i.to_string()), v)),
            _ => None,
        }
    }
}

/// Property names marked `x-secret: true` in a schema and the schemas inside it.
fn collect_secrets(schema: &m::Schema, out: &mut BTreeSet<String>) {
    for (name, prop) in &schema.properties {
        if prop.secret {
            out.insert(name.clone());
        }
        collect_secrets(prop, out);
    }
    let nested = schema
        .items
        .iter()
        .map(|b| &**b)
        .chain(&schema.all_of)
        .chain(&schema.one_of)
        .chain(&schema.any_of);
    for s in nested {
        collect_secrets(s, out);
    }
    if let Some(m::AdditionalProperties::Schema(s)) = &schema.additional_properties {
        collect_secrets(s, out);
    }
}

/// How closely a `content` key (`application/json; charset=utf-8`, `image/*`, `*/*`)
/// covers an answer's media type essence (lowercase, no parameters): 2 for the same
/// essence (the key's parameters aside), 1 for a range holding it, `None` for neither.
/// An answer is judged against the closest key, as a client would pick it.
pub fn media_key_covers(key: &str, essence: &str) -> Option<u8> {
    let key = key.split(';').next().unwrap_or("").trim();
    if key.eq_ignore_ascii_case(essence) {
        return Some(2);
    }
    let (kind, sub) = key.split_once('/')?;
    let kind_of = essence.split('/').next().unwrap_or("");
    (sub == "*" && (kind == "*" || kind.eq_ignore_ascii_case(kind_of))).then_some(1)
}

/// Whether a media type carries JSON (`application/json`, any `+json` suffix): only such
/// bodies are parsed and validated against a schema; any other is bytes. The spec's
/// reading and the checks' judging both ask it, so it lives with the spec.
pub fn is_json_media_type(mime: &str) -> bool {
    let m = mime.split(';').next().unwrap_or("").trim();
    m.eq_ignore_ascii_case("application/json")
        || m.eq_ignore_ascii_case("text/json")
        || m.to_ascii_lowercase().ends_with("+json")
}

/// The paths whose `GET` answers a JSON array (read from the operations' declared 2xx
/// schemas, `$ref`s at the top resolved): a `PUT` or `PATCH` there changes every item.
pub fn paths_index(operations: &[Operation], doc: &Value) -> crate::effect::PathsIndex {
    let mut listing = std::collections::BTreeSet::new();
    for op in operations.iter().filter(|o| o.method == "GET") {
        let lists = op
            .responses
            .iter()
            .filter(|r| r.status.starts_with('2'))
            .flat_map(|r| r.content.iter())
            .filter_map(|(_, s)| s.as_ref())
            .any(|s| {
                resolve(doc, s)
                    .ok()
                    .and_then(|s| s.get("type"))
                    .and_then(Value::as_str)
                    == Some("array")
            });
        if lists {
            listing.insert(op.path.trim_end_matches('/').to_string());
        }
    }
    crate::effect::PathsIndex::new(listing, operations.iter().map(|o| o.path.clone()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_content_key_covers_its_essence_whatever_its_parameters_and_a_range_its_members() {
        assert_eq!(
            media_key_covers("application/json; charset=utf-8", "application/json"),
            Some(2)
        );
        assert_eq!(
            media_key_covers("Application/JSON", "application/json"),
            Some(2)
        );
        assert_eq!(media_key_covers("image/*", "image/png"), Some(1));
        assert_eq!(media_key_covers("*/*", "text/plain"), Some(1));
        assert_eq!(media_key_covers("image/*", "text/plain"), None);
        assert_eq!(
            media_key_covers("application/json", "application/problem+json"),
            None
        );
        assert_eq!(media_key_covers("text/plain", "text/html"), None);
    }

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
        let err = Spec::parse(text).unwrap_err().to_string();
        assert!(err.contains("x-rules"), "{err}");
    }
}
