//! The document as the mock serves it: read once by `spec_model` (YAML or JSON, files it
//! refers to bundled, Swagger 2.0 read as its OpenAPI 3.0 equivalent), its paths parsed
//! into templates, its operations read, and the generators that judge requests and make
//! answers built over it.
//!
//! The document is leaked to `'static`: a mock serves one document for as long as it
//! runs, and the generators (which borrow the document) live in every request's handler.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use schema_values::{Direction, Generator};
use serde_json::Value;
use spec_model::Source;
use spec_model::encode::Location;
use spec_model::push_pointer;

use crate::error::Error;
use crate::operations::{Credential, Op, read_path_item};
use crate::routes::{Template, base_path};

/// Names whose values are never logged: the credentials the spec declares.
#[derive(Debug, Default)]
pub(crate) struct Secrets {
    /// Header names, lower case (`authorization` and `cookie` always).
    pub headers: Vec<String>,
    /// Query parameter names.
    pub query: Vec<String>,
}

/// One served document.
pub(crate) struct Api {
    /// The document's name (its path, or `document`).
    pub name: String,
    pub doc: &'static Value,
    /// The first server's path (`/api`), `""` for none.
    pub base: String,
    pub templates: Vec<Template>,
    /// The operations of each template, by index.
    pub ops: Vec<Vec<Op>>,
    /// Judges requests (`readOnly` properties not required).
    pub requests: Generator<'static>,
    /// Makes answers (`writeOnly` properties left out), spec examples first.
    pub responses: Generator<'static>,
    /// Makes answers from the schemas alone, on a copy without examples; built on first use.
    dynamic: OnceLock<Generator<'static>>,
    seeds: AtomicU64,
    pub secrets: Secrets,
}

impl Api {
    /// Reads `source`; any problem names its node.
    pub fn load(source: Source) -> Result<Api, Error> {
        // The typed reading refuses what is no OpenAPI 3.0/3.1 or Swagger 2.0 document,
        // at the node; the tree is what the mock serves.
        spec_model::parse(&source)?;
        let doc: &'static Value = Box::leak(Box::new(spec_model::to_value(&source)?));
        let node_error = |(pointer, message): (String, String)| Error::Node {
            file: source.name.clone(),
            pointer,
            message,
        };
        let mut templates = Vec::new();
        let mut ops = Vec::new();
        for (path, item) in doc
            .get("paths")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if !path.starts_with('/') {
                continue;
            }
            let at = push_pointer("/paths", path);
            ops.push(read_path_item(doc, item, &at).map_err(node_error)?);
            templates.push(Template::parse(path));
        }
        let mut seed = [0u8; 8];
        // A fixed start when the OS has no randomness: the seeds still differ per answer.
        let _ = getrandom::fill(&mut seed);
        let secrets = secrets(doc);
        Ok(Api {
            name: source.name.clone(),
            doc,
            base: base_path(doc),
            templates,
            ops,
            requests: Generator::new(doc).with_direction(Direction::Request),
            responses: Generator::new(doc).with_direction(Direction::Response),
            dynamic: OnceLock::new(),
            seeds: AtomicU64::new(u64::from_le_bytes(seed)),
            secrets,
        })
    }

    /// The generator of `Prefer: dynamic=true` and of the records a create makes: the
    /// document without its examples, so every value comes from the schema.
    pub fn dynamic(&self) -> &Generator<'static> {
        self.dynamic.get_or_init(|| {
            let mut copy = self.doc.clone();
            strip_examples(&mut copy, false);
            let copy: &'static Value = Box::leak(Box::new(copy));
            Generator::new(copy).with_direction(Direction::Response)
        })
    }

    /// Starts the fresh seeds at `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.seeds = AtomicU64::new(seed);
    }

    /// A seed no earlier answer used.
    pub fn fresh_seed(&self) -> u64 {
        self.seeds
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
    }
}

/// Removes `example` and `examples` everywhere but as names of properties.
fn strip_examples(v: &mut Value, naming: bool) {
    match v {
        Value::Object(map) => {
            if !naming {
                map.remove("example");
                map.remove("examples");
            }
            for (k, child) in map.iter_mut() {
                let names = matches!(
                    k.as_str(),
                    "properties" | "patternProperties" | "schemas" | "$defs" | "definitions"
                );
                strip_examples(child, names);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| strip_examples(i, false)),
        _ => {}
    }
}

/// The credential names of every security scheme of the document.
fn secrets(doc: &Value) -> Secrets {
    let mut s = Secrets {
        headers: vec![
            "authorization".into(),
            "cookie".into(),
            "proxy-authorization".into(),
        ],
        query: Vec::new(),
    };
    let schemes = doc
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object);
    for scheme in schemes.into_iter().flatten().map(|(_, v)| v) {
        let name = scheme
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match scheme.get("in").and_then(Value::as_str) {
            Some("header") => s.headers.push(name.to_ascii_lowercase()),
            Some("query") => s.query.push(name.to_owned()),
            _ => {}
        }
    }
    s
}

/// Whether `op` needs no credential the request lacks: some alternative of its security
/// is met (each of its credentials present, bearer tokens equal to `token` when given).
pub(crate) fn authorized(
    op: &Op,
    headers: &http::HeaderMap,
    query: &[(String, String)],
    token: Option<&str>,
) -> bool {
    if op.security.is_empty() {
        return true;
    }
    let auth = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    /// The scheme and the credential of an `Authorization` value.
    fn scheme_of(a: &str) -> Option<(&str, &str)> {
        a.split_once(' ').map(|(s, rest)| (s, rest.trim()))
    }
    let met = |c: &Credential| match c {
        Credential::Bearer => match scheme_of(auth) {
            Some((s, t)) if s.eq_ignore_ascii_case("bearer") && !t.is_empty() => {
                token.is_none_or(|want| want == t)
            }
            _ => false,
        },
        Credential::Http(name) => {
            scheme_of(auth).is_some_and(|(s, t)| s.eq_ignore_ascii_case(name) && !t.is_empty())
        }
        Credential::ApiKey(Location::Header, name) => headers.get(name.as_str()).is_some(),
        Credential::ApiKey(Location::Query, name) => query.iter().any(|(n, _)| n == name),
        Credential::ApiKey(_, name) => headers
            .get_all(http::header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|c| {
                c.split(';').any(|p| {
                    p.trim()
                        .strip_prefix(name.as_str())
                        .is_some_and(|rest| rest.starts_with('='))
                })
            }),
        Credential::Unchecked => true,
    };
    op.security.iter().any(|set| set.iter().all(met))
}
