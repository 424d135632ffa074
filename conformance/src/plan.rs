//! Deriving cases from the spec: a positive case per operation, generated examples and
//! defects (`--max-examples`, see [`crate::inputs`]), negative cases for each required
//! input missing or mistyped, length boundaries from `maxLength`/`minLength`/`pattern` and
//! `x-combined-max-length`, `ignored_auth` on secured operations, both list encodings of
//! `x-alternate-encodings`, and the chains of each create ([`chains`]). Base inputs come
//! from the contract files' `defaults`, else from the spec's examples, else from the
//! target's answers (path values, body references; [`Pool`]) or the generator. The seed
//! fixes every generated value, so the same seed gives the same cases in the same order.

mod chains;

pub(crate) use chains::CREATED as CHAIN_CREATED;

use crate::inputs::{Defect, Edge, Inputs, Part};
use crate::state::Pool;
use schema_values::MutationKind;
use serde_json::{Map, Value, json};

use crate::case::{
    AssertKind, Assertion, AuthMode, BodyTemplate, Case, Expect, RequestTemplate, Step,
};
use crate::contracts::Contracts;
use crate::registry::Check;
use crate::spec::{Level, Location, Operation, Rule, Spec};

/// A small deterministic generator (SplitMix64): enough to vary test strings by seed
/// without a dependency.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Starts from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A string of `n` characters drawn from `alphabet`.
    pub fn string(&mut self, alphabet: &[char], n: usize) -> String {
        (0..n)
            .map(|_| alphabet[(self.next_u64() % alphabet.len() as u64) as usize])
            .collect()
    }
}

const ASCII: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'k', 'm', 'n', 'p', 'r', 's', 't', 'w',
];
const LATIN: &[char] = &['é', 'ß', 'ü', 'ñ', 'ø', 'å'];
const CJK: &[char] = &['中', '文', '字', '名', '姓'];
const EMOJI: &[char] = &['😀', '🚀', '🎉', '🦀'];

/// Options that change which derived cases can run.
#[derive(Debug, Clone, Copy)]
pub struct PlanOptions {
    /// The seed for generated values.
    pub seed: u64,
    /// The status the target answered a deliberately bad token with in pre-flight, when it
    /// is not 401/403 (some frameworks answer 422): `ignored_auth` counts it as a refusal.
    pub auth_refusal: Option<u16>,
    /// Generated requests per operation, for valid and for invalid inputs each
    /// (`--max-examples`).
    pub max_examples: usize,
}

struct Base {
    params: Vec<(String, Value)>,
    body: Option<Value>,
    /// Whether any part of the request is the generator's (see [`crate::inputs`]): such a
    /// request is the harness's guess at a valid one, so its answer is observed rather
    /// than required to be a success.
    generated: bool,
    /// Whether a value came from the target's own answers ([`Pool`]).
    mined: bool,
    /// Inputs the generator could not make, with the schema node and why.
    unmakeable: Vec<String>,
}

/// A path parameter whose schema lists its values (`enum`, `const`, a boolean) names no
/// record: any of them is a valid request. Any other path value names a record, which only
/// the spec, the contract files or the target's answers can give.
fn enumerated(schema: &Value) -> bool {
    schema.get("enum").is_some()
        || schema.get("const").is_some()
        || schema.get("type").and_then(Value::as_str) == Some("boolean")
}

fn base(op: &Operation, contracts: &Contracts, pool: &Pool, inputs: &Inputs<'_>) -> Base {
    let dflt = contracts.defaults.get(&op.id);
    let given = |p: &crate::spec::Param| {
        dflt.and_then(|d| d.params.get(&p.name))
            .cloned()
            .or_else(|| p.example.clone())
    };
    // A value from the target's answers only where it is the one path value missing: two
    // values mined apart (a block type's slug, a block document's name) need not name
    // one resource together, and the 404 that gets would be the harness's own.
    let in_path = op
        .params
        .iter()
        .filter(|p| p.location == Location::Path)
        .count();
    // Only for a path with one parameter: a mined value beside a given one need not name
    // a resource that belongs to it either.
    let unfilled = if in_path == 1 {
        op.params
            .iter()
            .filter(|p| p.location == Location::Path && given(p).is_none())
            .count()
    } else {
        0
    };
    let mut b = Base {
        params: Vec::new(),
        body: None,
        generated: false,
        mined: false,
        unmakeable: Vec::new(),
    };
    for p in &op.params {
        if let Some(v) = given(p) {
            b.params.push((p.name.clone(), v));
            continue;
        }
        if p.location == Location::Path && !enumerated(&p.schema) {
            if let Some(v) = (unfilled == 1).then(|| pool.value_for(op, p)).flatten() {
                b.params.push((p.name.clone(), v));
                b.mined = true;
            }
            continue;
        }
        if !p.required {
            // Left out of the base request; the generated examples send it.
            continue;
        }
        match inputs.param(&op.id, p) {
            Ok(v) => {
                b.params.push((p.name.clone(), v));
                b.generated = true;
            }
            Err(why) => b.unmakeable.push(why),
        }
    }
    let decl = op
        .body
        .as_ref()
        .filter(|d| sends_json(d) || encoded_media(d).is_some());
    b.body = dflt
        .and_then(|d| d.body.clone())
        .or_else(|| op.body.as_ref().and_then(|d| d.example.clone()))
        // A JSON document, or a form or text the request encodes, is what the planner
        // sends: none rather than one in a media type it cannot make.
        .filter(|_| decl.is_some());
    if let (None, Some(decl)) = (&b.body, decl) {
        match inputs.body(&op.id, decl, op.effect == crate::effect::Effect::Create) {
            Ok(v) => {
                b.body = Some(v);
                b.generated = true;
            }
            Err(why) if decl.required => b.unmakeable.push(why),
            Err(_) => {}
        }
        if let Some(Value::Object(m)) = &mut b.body {
            b.mined |= pool.fill_references(m, &decl.schema);
        }
    }
    b
}

impl Base {
    /// The inputs a complete request of `op` needs that neither the contract files'
    /// `defaults`, the spec's examples, the target's answers nor the generator give: a case
    /// built without them would go out with a literal `{placeholder}` or without a
    /// required part, and its answer would say nothing about the operation.
    fn missing(&self, op: &Operation) -> Vec<String> {
        let mut out: Vec<String> = op
            .params
            .iter()
            .filter(|p| {
                p.required
                    && p.location == Location::Path
                    && !self.params.iter().any(|(n, _)| *n == p.name)
            })
            .map(|p| format!("path parameter `{}`", p.name))
            .collect();
        out.extend(self.unmakeable.iter().cloned());
        if let Some(decl) = &op.body
            && !sends_json(decl)
            && encoded_media(decl).is_none()
            && decl.required
        {
            let types: Vec<&str> = decl.content_types.iter().map(|(m, _)| m.as_str()).collect();
            out.push(format!(
                "a request body in {} (the harness builds JSON, form, multipart and text \
                 bodies)",
                types.join(" or ")
            ));
        }
        out
    }

    /// What a request built on this base must get: a success where every value is the
    /// spec's or the user's, an observed answer where the generator made some.
    fn ok(&self) -> Expect {
        if self.generated {
            Expect::Observe
        } else {
            Expect::Success
        }
    }
}

/// Whether an operation's body may be sent as JSON, the kind every family of cases builds
/// (forms and text get the base request and its examples; see [`encoded_media`]).
fn sends_json(decl: &crate::spec::Body) -> bool {
    decl.content_types.iter().any(|(m, _)| {
        let m = m.to_ascii_lowercase();
        m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
    })
}

/// A request's parameters and body at each edge of what the schemas admit where they set
/// no bound (integers at the ends of their range, dates in year 9999; see
/// [`crate::inputs::Edge`]), one value at a time, each labelled with where it is: tops first,
/// so that a budget cut keeps the likeliest finds. Path parameters keep their values, which
/// name a record.
pub(crate) fn extremes(
    op: &Operation,
    params: &[(String, Value)],
    body: Option<&Value>,
    inputs: &Inputs<'_>,
) -> Vec<Extreme> {
    let mut out: Vec<Extreme> = Vec::new();
    for edge in Edge::ALL {
        for p in op.params.iter().filter(|p| p.location != Location::Path) {
            let Some((label, v)) = inputs.extreme_param(p, edge) else {
                continue;
            };
            let mut params = params.to_vec();
            params.retain(|(name, _)| *name != p.name);
            params.push((p.name.clone(), v));
            out.push((label, params, body.cloned()));
        }
    }
    if let (Some(decl), Some(body)) = (&op.body, body)
        && (sends_json(decl) || encoded_media(decl).is_some())
    {
        for (field, v) in inputs.extreme_bodies(decl, body) {
            out.push((format!("body/{field}"), params.to_vec(), Some(v)));
        }
    }
    out
}

/// One request of [`extremes`]: where its edge value is, its parameters, its body.
pub(crate) type Extreme = (String, Vec<(String, Value)>, Option<Value>);

/// The media type other than JSON a body goes in, for an operation that takes no JSON: a
/// form (`application/x-www-form-urlencoded`, `multipart/form-data`) or text (`text/*`),
/// the first of them it declares. The body is made from the schema as a JSON value all the
/// same, and encoded when the request is built.
fn encoded_media(decl: &crate::spec::Body) -> Option<&str> {
    if sends_json(decl) {
        return None;
    }
    decl.content_types
        .iter()
        .map(|(m, _)| m.as_str())
        .find(|m| {
            let m = m.to_ascii_lowercase();
            m.starts_with("application/x-www-form-urlencoded")
                || m.starts_with("multipart/form-data")
                || m.starts_with("text/")
        })
}

/// The skip reason of a case whose base request lacks `missing`.
fn missing_reason(op: &Operation, missing: &[String]) -> String {
    format!(
        "{}{} needs {}: no example in the spec, no `defaults` in a contract file, no value from the target's answers, and none the generator can make",
        crate::case::MISSING_INPUT,
        op.id,
        missing.join(", ")
    )
}

fn example_params(op: &Operation) -> Vec<(String, Value)> {
    op.params
        .iter()
        .filter_map(|p| p.example.clone().map(|v| (p.name.clone(), v)))
        .collect()
}

struct Builder<'a> {
    op: &'a Operation,
    cases: Vec<Case>,
}

impl Builder<'_> {
    fn push(
        &mut self,
        name: String,
        check: Check,
        level: Level,
        request: RequestTemplate,
        expect: Expect,
    ) {
        let writes = self.op.writes();
        self.cases.push(Case {
            id: format!("{}/{}", self.op.id, name),
            operation: self.op.id.clone(),
            check: check.into(),
            level,
            steps: vec![Step {
                request,
                expect,
                capture: Vec::new(),
                asserts: Vec::new(),
            }],
            serial: writes,
            skip: None,
            requires: Vec::new(),
            cap: None,
        });
    }
}

fn request(
    op: &Operation,
    params: Vec<(String, Value)>,
    body: Option<Value>,
    auth: AuthMode,
) -> RequestTemplate {
    RequestTemplate {
        op: op.id.clone(),
        params,
        body: body.map(|value| match op.body.as_ref().and_then(encoded_media) {
            Some(media) => BodyTemplate::Encoded {
                media: media.to_string(),
                value,
            },
            None => BodyTemplate::Json(value),
        }),
        auth,
        explode: None,
        style: None,
        method: None,
        path: None,
    }
}

/// The base request of an operation with a body sent as these bytes and this media type.
fn raw_body_request(
    op: &Operation,
    base: &Base,
    content_type: &str,
    text: String,
) -> RequestTemplate {
    RequestTemplate {
        body: Some(BodyTemplate::Raw {
            content_type: content_type.into(),
            text,
        }),
        ..request(op, base.params.clone(), None, AuthMode::Token)
    }
}

/// The statuses an operation may declare for a request whose input breaks its schema.
const MALFORMED_STATUSES: [u16; 2] = [400, 422];

/// How the spec says a request that breaks a schema constraint is answered: any 4xx,
/// unless the operation declares exactly one of the statuses for malformed input (400 or
/// 422), which then is fixed at its response's `x-level`. The built-in spec decides 400
/// (DECISIONS row 2) and declares it, and only it, on every operation that takes input;
/// an operation declaring both leaves the choice to the server.
fn malformed(op: &Operation) -> Expect {
    let mut declared = MALFORMED_STATUSES.iter().filter_map(|&code| {
        op.responses
            .iter()
            .find(|r| r.status == code.to_string())
            .map(|r| (code, r.level))
    });
    let status = match (declared.next(), declared.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    };
    Expect::Rejected { status, body: None }
}

/// The level of one constraint keyword of a schema (`x-constraint-levels`, default MUST).
fn constraint_level(schema: &Value, keyword: &str) -> Level {
    match schema
        .pointer(&format!("/x-constraint-levels/{keyword}"))
        .and_then(Value::as_str)
    {
        Some("should") => Level::Should,
        _ => Level::Must,
    }
}

/// Values of the wrong JSON type for a schema, each with whether a lenient server can read
/// it as the declared type (a number where a string is declared reads as its text); the
/// spec's `x-mistyped-input` gives each kind its level.
fn mistyped(schema: &Value) -> Vec<(Value, bool)> {
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => vec![(json!(12345), true), (json!({ "not": "a string" }), false)],
        Some("integer") | Some("number") => vec![(json!("not-a-number"), false)],
        Some("boolean") => vec![(json!("not-a-boolean"), false)],
        Some("array") | Some("object") => vec![(json!(true), false)],
        _ => Vec::new(),
    }
}

/// Compiled `pattern` validators, so a pattern is compiled once per run, not per case.
#[derive(Default)]
pub struct Patterns(std::collections::HashMap<String, Option<jsonschema::Validator>>);

impl Patterns {
    /// Whether `s` matches `pattern` (an uncompilable pattern matches everything: the
    /// spec's own validation reports it, not the harness).
    fn matches(&mut self, pattern: &str, s: &str) -> bool {
        self.0
            .entry(pattern.to_string())
            .or_insert_with(|| {
                jsonschema::draft202012::options()
                    .build(&json!({"type": "string", "pattern": pattern}))
                    .ok()
            })
            .as_ref()
            .is_none_or(|v| v.is_valid(&json!(s)))
    }
}

/// Predicts how the target must answer a body, from the schema's own constraints.
pub fn predict(op: &Operation, body: &Value, patterns: &mut Patterns) -> (Expect, Level) {
    let Some(decl) = &op.body else {
        return (Expect::Success, Level::Must);
    };
    let mut violated: Option<Level> = None;
    let mut note = |l: Level| violated = Some(violated.map_or(l, |v| v.min(l)));
    for (name, schema) in decl.properties() {
        let Some(s) = body.get(&name).and_then(Value::as_str) else {
            continue;
        };
        let n = s.chars().count();
        if schema
            .get("maxLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| n as u64 > m)
        {
            note(constraint_level(&schema, "maxLength"));
        }
        if schema
            .get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| (n as u64) < m)
        {
            note(constraint_level(&schema, "minLength"));
        }
        if let Some(p) = schema.get("pattern").and_then(Value::as_str)
            && !patterns.matches(p, s)
        {
            note(constraint_level(&schema, "pattern"));
        }
    }
    if let Some(level) = violated {
        return (malformed(op), level);
    }
    for rule in &decl.combined {
        let total: usize = rule
            .fields
            .iter()
            .filter_map(|f| body.get(f).and_then(Value::as_str))
            .map(|s| s.chars().count())
            .sum();
        if total > rule.max {
            let expect = match &rule.rejection {
                Some(shape) => Expect::BusinessRejected(shape.clone()),
                None => Expect::Rejected {
                    status: None,
                    body: None,
                },
            };
            return (expect, rule.level);
        }
    }
    (Expect::Success, Level::Must)
}

/// Derives the cases of every operation, in spec order.
pub fn derive(spec: &Spec, contracts: &Contracts, opts: PlanOptions) -> Vec<Case> {
    derive_with(spec, contracts, opts, &Pool::default())
}

/// [`derive`], with path values the target's own answers gave ([`Pool`]) where the spec
/// and the contract files give none.
pub fn derive_with(
    spec: &Spec,
    contracts: &Contracts,
    opts: PlanOptions,
    pool: &Pool,
) -> Vec<Case> {
    let mut rng = Rng::new(opts.seed);
    let inputs = Inputs::new(&spec.doc, opts.seed, opts.max_examples);
    let mut out = Vec::new();
    for op in &spec.operations {
        let mut b = Builder {
            op,
            cases: Vec::new(),
        };
        let base = base(op, contracts, pool, &inputs);
        let missing = base.missing(op);
        positive(&mut b, &base);
        if missing.is_empty() {
            examples(&mut b, op, &base, &inputs, pool);
            // A mutation of an incomplete request would not be the one defect it names.
            negative(&mut b, spec, op, &base);
            defects(&mut b, op, &base, &inputs);
            lengths(&mut b, op, &base, &mut rng, spec.decisions.non_bmp);
        }
        ignored_auth(&mut b, spec, op, &base, opts.auth_refusal);
        unsupported_media_type(&mut b, op, &base);
        undeclared_method(&mut b, spec, op, &base);
        if missing.is_empty() {
            encodings(&mut b, op, &base);
        }
        if out.is_empty() {
            unknown_path(&mut b, spec, op, &base);
        }
        if missing.is_empty() {
            b.cases
                .extend(chains::chains(spec, contracts, op, &base, &inputs, pool));
        }
        if !missing.is_empty() {
            let why = missing_reason(op, &missing);
            for c in &mut b.cases {
                // A probe of another path (unknown_path) needs none of the operation's
                // inputs.
                let own_path = c.steps.iter().any(|s| s.request.path.is_none());
                if own_path && c.skip.is_none() {
                    c.skip = Some(why.clone());
                }
            }
        }
        out.extend(b.cases);
    }
    out
}

/// The answer to a path no spec declares, when the spec states none (`x-unknown-path`):
/// 404 (RFC 9110 §15.5.5) at SHOULD. Not MUST: OpenAPI describes only the paths it lists,
/// and a server may answer others (a gateway's 403, a catch-all page) without breaking the
/// spec; a 5xx still fails `not_a_server_error`.
pub const UNKNOWN_PATH_DEFAULT: (u16, Level) = (404, Level::Should);

/// Whether a concrete path is one a spec path template routes (`{name}` matches any one
/// segment).
fn routes(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.trim_matches('/').split('/').collect();
    let p: Vec<&str> = path.trim_matches('/').split('/').collect();
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| (t.starts_with('{') && t.ends_with('}')) || t == p)
}

/// A path the spec does not declare, expecting the spec's `x-unknown-path` answer
/// ([`UNKNOWN_PATH_DEFAULT`] without it). Sent once per run, with valid credentials, and
/// reported under the first operation; it shows whether a target answers paths it does not
/// serve. It sits beside the first operation's literal path segments, and never where a
/// declared template (`/items/{id}`) would route it, so its answer is about the path.
fn unknown_path(b: &mut Builder, spec: &Spec, op: &Operation, base: &Base) {
    let (status, level) = spec.decisions.unknown_path.unwrap_or(UNKNOWN_PATH_DEFAULT);
    let literal: Vec<&str> = op
        .path
        .split('/')
        .take_while(|seg| !seg.contains('{'))
        .collect();
    let beside = format!(
        "{}/conformance-unknown-path",
        literal.join("/").trim_end_matches('/')
    );
    let free = |p: &str| {
        !spec
            .operations
            .iter()
            .any(|o| o.path == p || routes(&o.path, p))
    };
    let Some(path) = [beside, "/conformance-unknown-path".to_string()]
        .into_iter()
        .flat_map(|p| (0..4).map(move |n| format!("{p}{}", "-".repeat(n))))
        .find(|p| free(p))
    else {
        return;
    };
    let request = RequestTemplate {
        method: Some("GET".into()),
        path: Some(path),
        ..request(op, base.params.clone(), None, AuthMode::Token)
    };
    b.cases.push(Case {
        id: format!("{}/unknown-path", op.id),
        operation: op.id.clone(),
        check: Check::UnknownPath.into(),
        level,
        steps: vec![Step {
            request,
            expect: Expect::Rejected {
                status: Some((status, level)),
                body: None,
            },
            capture: Vec::new(),
            asserts: Vec::new(),
        }],
        serial: false,
        skip: None,
        requires: Vec::new(),
        cap: None,
    });
}

fn positive(b: &mut Builder, base: &Base) {
    let op = b.op;
    b.push(
        "positive".into(),
        Check::PositiveDataAcceptance,
        Level::Must,
        request(op, base.params.clone(), base.body.clone(), AuthMode::Token),
        base.ok(),
    );
}

/// More valid requests than the base one, up to `--max-examples` in all: optional
/// parameters sent (each with another of its values), and other bodies reaching other
/// `oneOf` branches, enum values and optional parts. Each is the generator's guess at a
/// valid request, so its answer is observed: the generic checks judge it, and a 5xx or
/// an undeclared status is a finding.
fn examples(b: &mut Builder, op: &Operation, base: &Base, inputs: &Inputs<'_>, pool: &Pool) {
    let n = inputs.max_examples.saturating_sub(1);
    if n == 0 {
        return;
    }
    let optional: Vec<(&crate::spec::Param, Vec<Value>)> = op
        .params
        .iter()
        .filter(|p| {
            p.location != Location::Path && !base.params.iter().any(|(name, _)| *name == p.name)
        })
        .map(|p| (p, inputs.param_variants(&op.id, p, n)))
        .filter(|(_, vs)| !vs.is_empty())
        .collect();
    let bodies: Vec<Value> = match (&op.body, &base.body) {
        (Some(decl), Some(_))
            if (sends_json(decl) || encoded_media(decl).is_some()) && base.generated =>
        {
            inputs
                .body_variants(&op.id, decl, n + 1)
                .into_iter()
                .skip(1)
                .map(|mut v| {
                    if let Value::Object(m) = &mut v {
                        pool.fill_references(m, &decl.schema);
                    }
                    v
                })
                .collect()
        }
        _ => Vec::new(),
    };
    // Optional headers go in one request of their own: they are most often protocol
    // headers (an API version, a request id) whose valid values the schema does not state,
    // and a target refusing a made-up one would taint every other example.
    let (headers, others): (Vec<_>, Vec<_>) = optional
        .into_iter()
        .partition(|(p, _)| p.location == Location::Header);
    if !headers.is_empty() {
        let mut params = base.params.clone();
        for (p, values) in &headers {
            params.push((p.name.clone(), values[0].clone()));
        }
        b.push(
            "example/headers".into(),
            Check::PositiveDataAcceptance,
            Level::Must,
            request(op, params, base.body.clone(), AuthMode::Token),
            Expect::Observe,
        );
    }
    let optional = others;
    // Values at the edges of what the schemas admit where they set no bound, one at a
    // time: twice the examples' budget, since each is one request and they find the most
    // server errors.
    let extremes = extremes(op, &base.params, base.body.as_ref(), inputs);
    for (at, params, body) in extremes.into_iter().take(2 * inputs.max_examples) {
        b.push(
            format!("example/extreme/{at}"),
            Check::PositiveDataAcceptance,
            Level::Must,
            request(op, params, body, AuthMode::Token),
            Expect::Observe,
        );
    }
    for k in 0..n {
        let mut params = base.params.clone();
        for (p, values) in &optional {
            params.push((p.name.clone(), values[k % values.len()].clone()));
        }
        let body = bodies.get(k).cloned().or_else(|| base.body.clone());
        if optional.is_empty() && bodies.get(k).is_none() {
            break;
        }
        let req = request(op, params, body, AuthMode::Token);
        b.push(
            format!("example/{}", k + 1),
            Check::PositiveDataAcceptance,
            Level::Must,
            req,
            Expect::Observe,
        );
    }
}

/// Invalid requests by mutation of the base one, one defect each (see
/// [`crate::inputs::Defect`]), at most `--max-examples` for the parameters and as many for
/// the body, taken round the kinds of defect so each kind is tried before any twice. The
/// defects the hand-written families above already send (a required field or parameter
/// left out, a top-level field or a parameter of the wrong type, a too-short parameter, an
/// integer below its minimum) are not sent twice.
fn defects(b: &mut Builder, op: &Operation, base: &Base, inputs: &Inputs<'_>) {
    let mut found: Vec<Defect> = Vec::new();
    for (name, value) in &base.params {
        let Some(p) = op.param(name) else { continue };
        let integer = p.schema.get("type").and_then(Value::as_str) == Some("integer");
        found.extend(inputs.param_defects(p, value).into_iter().filter(|d| {
            let covered = match d.mutation.kind {
                MutationKind::WrongType | MutationKind::TooShort => true,
                MutationKind::BelowMinimum => integer,
                _ => false,
            };
            !covered
        }));
    }
    let params_end = found.len();
    if let (Some(decl), Some(body)) = (&op.body, &base.body)
        && sends_json(decl)
    {
        found.extend(inputs.body_defects(decl, body).into_iter().filter(|d| {
            let depth = d.mutation.instance_path.matches('/').count();
            !(d.mutation.kind == MutationKind::RequiredMissing && depth == 0
                || d.mutation.kind == MutationKind::WrongType && depth == 1)
        }));
    }
    let (params, body) = found.split_at(params_end);
    let mut seen = std::collections::BTreeSet::new();
    for d in round_robin(params, inputs.max_examples)
        .into_iter()
        .chain(round_robin(body, inputs.max_examples))
    {
        let (where_, req) = match &d.part {
            Part::Body => (
                format!("body{}", d.mutation.instance_path),
                request(
                    op,
                    base.params.clone(),
                    Some(d.value.clone()),
                    AuthMode::Token,
                ),
            ),
            Part::Param(name) => {
                let mut params = base.params.clone();
                if let Some(slot) = params.iter_mut().find(|(n, _)| n == name) {
                    slot.1 = d.value.clone();
                }
                (
                    name.clone(),
                    request(op, params, base.body.clone(), AuthMode::Token),
                )
            }
        };
        let mut name = format!("defect/{where_}:{}", d.mutation.keyword);
        let mut k = 2;
        while !seen.insert(name.clone()) {
            name = format!("defect/{where_}:{}#{k}", d.mutation.keyword);
            k += 1;
        }
        // A defect in a path segment may make the path one the target does not route (its
        // 404 is as good a rejection as any); elsewhere the operation's declared status
        // for malformed input holds, no more binding than the defect itself.
        let in_path = matches!(&d.part, Part::Param(n) if op.param(n).is_some_and(|p| p.location == Location::Path));
        let expect = match malformed(op) {
            Expect::Rejected { .. } if in_path => Expect::Rejected {
                status: None,
                body: None,
            },
            Expect::Rejected { status, body } => Expect::Rejected {
                status: status.map(|(s, l)| (s, l.max(d.level))),
                body,
            },
            other => other,
        };
        b.push(name, Check::NegativeDataRejection, d.level, req, expect);
    }
}

/// At most `n` defects, one of each kind in turn.
fn round_robin(defects: &[Defect], n: usize) -> Vec<&Defect> {
    let mut kinds: Vec<MutationKind> = Vec::new();
    for d in defects {
        if !kinds.contains(&d.mutation.kind) {
            kinds.push(d.mutation.kind);
        }
    }
    let mut queues: Vec<Vec<&Defect>> = kinds
        .iter()
        .map(|k| {
            defects
                .iter()
                .filter(|d| d.mutation.kind == *k)
                .rev()
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    while out.len() < n && queues.iter().any(|q| !q.is_empty()) {
        for q in &mut queues {
            if out.len() < n
                && let Some(d) = q.pop()
            {
                out.push(d);
            }
        }
    }
    out
}

fn negative(b: &mut Builder, spec: &Spec, op: &Operation, base: &Base) {
    // A path parameter cannot be left out: without its segment the request goes to
    // another path, which `unknown_path` covers.
    for p in op
        .params
        .iter()
        .filter(|p| p.required && p.location != Location::Path)
    {
        let params: Vec<_> = base
            .params
            .iter()
            .filter(|(n, _)| *n != p.name)
            .cloned()
            .collect();
        b.push(
            format!("missing-param/{}", p.name),
            Check::NegativeDataRejection,
            Level::Must,
            request(op, params, base.body.clone(), AuthMode::Token),
            malformed(op),
        );
    }
    for p in &op.params {
        let mut variants = Vec::new();
        // In a query string only numbers and booleans can have the wrong type: any text is
        // a valid string (and a valid item of a string list).
        let scalar = matches!(
            p.schema.get("type").and_then(Value::as_str),
            Some("integer" | "number" | "boolean")
        );
        // A query value is text, so only an unreadable one is mistyped (`masterid=abc`).
        for (bad, _) in mistyped(&p.schema)
            .into_iter()
            .filter(|(_, coercible)| scalar && !coercible)
        {
            variants.push((
                format!("mistyped-param/{}", p.name),
                bad,
                spec.decisions.mistyped.1,
            ));
        }
        if p.schema.get("type").and_then(Value::as_str) == Some("integer")
            && let Some(min) = p.schema.get("minimum").and_then(Value::as_i64)
        {
            variants.push((
                format!("below-minimum/{}", p.name),
                json!(min - 1),
                constraint_level(&p.schema, "minimum"),
            ));
        }
        if p.schema
            .get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| m > 0)
        {
            variants.push((
                format!("too-short/{}", p.name),
                json!(""),
                constraint_level(&p.schema, "minLength"),
            ));
        }
        for (name, value, level) in variants {
            // The bad value goes in whether or not the base request sends the parameter:
            // a case whose defect never reaches the wire proves nothing.
            let mut params = base.params.clone();
            match params.iter_mut().find(|(n, _)| *n == p.name) {
                Some(slot) => slot.1 = value.clone(),
                None => params.push((p.name.clone(), value.clone())),
            }
            b.push(
                name,
                Check::NegativeDataRejection,
                level,
                request(op, params, base.body.clone(), AuthMode::Token),
                malformed(op),
            );
        }
    }
    let (Some(decl), Some(Value::Object(body))) = (&op.body, &base.body) else {
        return;
    };
    for f in decl.required() {
        let mut m = body.clone();
        m.remove(&f);
        b.push(
            format!("missing-field/{f}"),
            Check::NegativeDataRejection,
            Level::Must,
            request(
                op,
                base.params.clone(),
                Some(Value::Object(m)),
                AuthMode::Token,
            ),
            malformed(op),
        );
    }
    for (f, schema) in decl.properties() {
        let schema = crate::spec::resolve(&spec.doc, &schema)
            .cloned()
            .unwrap_or(schema);
        // A form carries text only: a number in a string field, or any coercible value,
        // arrives as a valid one.
        let form = encoded_media(decl).is_some();
        let text_field = schema.get("type").and_then(Value::as_str) == Some("string");
        for (bad, coercible) in mistyped(&schema) {
            if form && (coercible || text_field) {
                continue;
            }
            let (kind, level) = if coercible {
                ("coercible-field", spec.decisions.mistyped.0)
            } else {
                ("mistyped-field", spec.decisions.mistyped.1)
            };
            let mut m = body.clone();
            m.insert(f.clone(), bad);
            b.push(
                format!("{kind}/{f}"),
                Check::NegativeDataRejection,
                level,
                request(
                    op,
                    base.params.clone(),
                    Some(Value::Object(m)),
                    AuthMode::Token,
                ),
                malformed(op),
            );
        }
    }
    b.cases.push(Case {
        id: format!("{}/unparsable-body", op.id),
        operation: op.id.clone(),
        check: Check::NegativeDataRejection.into(),
        level: Level::Must,
        steps: vec![Step {
            request: raw_body_request(op, base, "application/json", "{\"unterminated\": ".into()),
            expect: malformed(op),
            capture: Vec::new(),
            asserts: Vec::new(),
        }],
        serial: op.writes(),
        skip: None,
        requires: Vec::new(),
        cap: None,
    });
    // A body far over the spec's `x-max-body` (valid JSON padded with spaces), where the
    // operation declares the status that answers it.
    if let Some((limit, status, level)) = spec.decisions.max_body
        && op
            .response(status)
            .is_some_and(|r| r.status == status.to_string())
    {
        let mut text = Value::Object(body.clone()).to_string();
        text.push_str(&" ".repeat(limit * PAYLOAD_FACTOR));
        let request = raw_body_request(op, base, "application/json", text);
        let expect = Expect::Rejected {
            status: Some((status, level)),
            body: None,
        };
        b.push(
            "payload-too-large".into(),
            Check::PayloadTooLarge,
            level,
            request,
            expect,
        );
    }
}

/// A body in a media type the operation does not take, on every operation with a request
/// body: a rejection (any 4xx) at MUST, an undeclared body is not the operation's input;
/// 415 is fixed, at its `x-level`, where the operation declares it (RFC 9110 §15.5.16).
fn unsupported_media_type(b: &mut Builder, op: &Operation, base: &Base) {
    let Some(decl) = &op.body else {
        return;
    };
    let takes = |m: &str| {
        decl.content_types.iter().any(|(t, _)| {
            let t = t.to_ascii_lowercase();
            t == m || t == "*/*" || t == "text/*"
        })
    };
    if takes("text/plain") {
        return;
    }
    let request = raw_body_request(
        op,
        base,
        "text/plain",
        "conformance: not a declared media type".into(),
    );
    let declared = op
        .responses
        .iter()
        .find(|r| r.status == "415")
        .map(|r| (415, r.level));
    // Where the body is optional and no 415 is declared, a server may read a body it
    // cannot parse as no body at all (FastAPI does, for Prefect's 38 optional filter
    // bodies): accepting it is a SHOULD departure, not a broken contract.
    let level = if decl.required || declared.is_some() {
        Level::Must
    } else {
        Level::Should
    };
    let expect = Expect::Rejected {
        status: declared,
        body: None,
    };
    b.push(
        "unsupported-media-type".into(),
        Check::UnsupportedMediaType,
        level,
        request,
        expect,
    );
}

fn lengths(b: &mut Builder, op: &Operation, base: &Base, rng: &mut Rng, non_bmp: Level) {
    let (Some(decl), Some(Value::Object(body))) = (&op.body, &base.body) else {
        return;
    };
    let mut variants: Vec<(String, Check, Map<String, Value>, Level)> = Vec::new();
    let with = |pairs: &[(&str, String)]| {
        let mut m = body.clone();
        for (k, v) in pairs {
            m.insert((*k).to_string(), Value::String(v.clone()));
        }
        m
    };
    for (f, schema) in decl.properties() {
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
            let max = max as usize;
            for (label, alphabet, n) in [
                ("ascii", ASCII, max),
                ("ascii", ASCII, max + 1),
                ("cjk", CJK, max),
                ("latin", LATIN, max + 1),
            ] {
                let v = rng.string(alphabet, n);
                variants.push((
                    format!("{f}={n}-{label}"),
                    Check::LengthBoundaries,
                    with(&[(&f, v)]),
                    Level::Must,
                ));
            }
        }
        if schema
            .get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| m > 0)
        {
            variants.push((
                format!("{f}=empty"),
                Check::LengthBoundaries,
                with(&[(&f, String::new())]),
                Level::Must,
            ));
        }
        if schema.get("pattern").is_some() {
            variants.push((
                format!("{f}=blank"),
                Check::LengthBoundaries,
                with(&[(&f, "   ".into())]),
                Level::Must,
            ));
        }
    }
    for rule in &decl.combined {
        if rule.fields.is_empty() {
            continue;
        }
        for (label, alphabet, level) in [
            ("ascii", ASCII, Level::Must),
            ("latin", LATIN, Level::Must),
            ("cjk", CJK, Level::Must),
            ("emoji", EMOJI, non_bmp),
        ] {
            for total in [rule.max, rule.max + 1] {
                let k = rule.fields.len();
                let pairs: Vec<(&str, String)> = rule
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let share = total / k + usize::from(i < total % k);
                        (f.as_str(), rng.string(alphabet, share))
                    })
                    .collect();
                variants.push((
                    format!("combined={total}-{label}"),
                    Check::CombinedLength,
                    with(&pairs),
                    level,
                ));
            }
        }
    }
    let mut patterns = Patterns::default();
    for (name, check, m, level) in variants {
        let bodyv = Value::Object(m);
        let (expect, predicted_level) = predict(op, &bodyv, &mut patterns);
        let expect = match expect {
            Expect::Success => base.ok(),
            other => other,
        };
        let beyond_bmp = bodyv.to_string().chars().any(|c| u32::from(c) > 0xFFFF);
        let level = level.max(predicted_level);
        b.push(
            name,
            check,
            level,
            request(op, base.params.clone(), Some(bodyv), AuthMode::Token),
            expect,
        );
        // Characters outside the Basic Multilingual Plane: every verdict on such an answer
        // (the case's own and the success rules applied to it) is capped at the spec's
        // `x-non-bmp` level, whatever the rule's own level.
        if beyond_bmp
            && non_bmp == Level::Should
            && let Some(c) = b.cases.last_mut()
        {
            c.cap = Some(non_bmp);
        }
    }
}

/// Requests without valid credentials to a secured operation: each must be refused, and a
/// pass needs a refusal the status shows (see `Expect::Refused`). `observed` is the status
/// the target refused a deliberately bad token with in pre-flight.
fn ignored_auth(b: &mut Builder, spec: &Spec, op: &Operation, base: &Base, observed: Option<u16>) {
    if !op.secured {
        return;
    }
    let rej = &spec.auth_rejection;
    let expect = Expect::Refused {
        status: rej.status,
        body: rej
            .body
            .clone()
            .map(|v| (v, rej.status.map_or(Level::Should, |(_, l)| l))),
        observed,
    };
    // The spec's examples; a path value only the base has (a contract default, or one the
    // target's answers gave) rather than none: without it the request would go to a
    // literal `{placeholder}` and its 404 would show nothing about credentials.
    let mut params = example_params(op);
    for (name, value) in &base.params {
        let in_path = op.param(name).is_some_and(|p| p.location == Location::Path);
        if in_path && !params.iter().any(|(n, _)| n == name) {
            params.push((name.clone(), value.clone()));
        }
    }
    let body = op
        .body
        .as_ref()
        .and_then(|d| d.example.clone())
        .or_else(|| base.body.clone());
    for (name, mode) in [
        ("no-header", AuthMode::Missing),
        ("malformed-header", AuthMode::Malformed),
        ("unknown-token", AuthMode::Unknown),
    ] {
        b.push(
            format!("ignored-auth/{name}"),
            Check::IgnoredAuth,
            rej.level,
            request(op, params.clone(), body.clone(), mode),
            expect.clone(),
        );
    }
}

/// Methods tried on each path; the first one the path does not declare is sent (GET
/// first where writes are not allowed: it changes nothing even on a server that serves it).
const METHODS: &[&str] = &["DELETE", "PUT", "PATCH", "POST", "GET"];

/// The answer to a method a path does not declare, when the spec states none
/// (`x-undeclared-method`): 405 with an `Allow` header (RFC 9110 §15.5.6), at SHOULD.
pub const UNDECLARED_METHOD_DEFAULT: (u16, bool, Level) = (405, true, Level::Should);

/// One request per path with a method the path does not declare, expecting the spec's
/// `x-undeclared-method` answer ([`UNDECLARED_METHOD_DEFAULT`] without it); reported under
/// the path's first operation.
fn undeclared_method(b: &mut Builder, spec: &Spec, op: &Operation, base: &Base) {
    let (status, allow_header, level) = spec
        .decisions
        .undeclared_method
        .unwrap_or(UNDECLARED_METHOD_DEFAULT);
    let siblings: Vec<&Operation> = spec
        .operations
        .iter()
        .filter(|o| o.path == op.path)
        .collect();
    if siblings.first().is_none_or(|first| first.id != op.id) {
        return;
    }
    // An undeclared GET first: any other method may change state on a server that
    // serves it undeclared, and the run's safety gate skips it unless allowed.
    let undeclared = |m: &&&str| !siblings.iter().any(|o| o.method == **m);
    let Some(method) = METHODS
        .iter()
        .rev()
        .take(1)
        .find(undeclared)
        .or_else(|| METHODS.iter().find(undeclared))
    else {
        return;
    };
    let request = RequestTemplate {
        method: Some((*method).to_string()),
        ..request(op, base.params.clone(), None, AuthMode::Token)
    };
    b.cases.push(Case {
        id: format!("{}/undeclared-method/{method}", op.id),
        operation: op.id.clone(),
        check: Check::UndeclaredMethod.into(),
        level,
        steps: vec![Step {
            request,
            expect: Expect::MethodNotAllowed {
                allowed: op.method.clone(),
                status,
                allow_header,
            },
            capture: Vec::new(),
            asserts: Vec::new(),
        }],
        serial: false,
        skip: None,
        requires: Vec::new(),
        cap: None,
    });
}

fn encodings(b: &mut Builder, op: &Operation, base: &Base) {
    for p in &op.params {
        if p.alternates.is_empty() {
            continue;
        }
        let Some((_, value)) = base.params.iter().find(|(n, _)| *n == p.name) else {
            continue;
        };
        let field = op.rules.iter().find_map(|r| match r {
            Rule::ItemsFieldInParam { field, param, .. } if *param == p.name => Some(field.clone()),
            _ => None,
        });
        let asserts: Vec<Assertion> = field
            .map(|f| Assertion {
                pointer: String::new(),
                kind: AssertKind::Covers {
                    field: f,
                    values: value.clone(),
                },
                after_success: false,
            })
            .into_iter()
            .collect();
        let mut steps = vec![Step {
            request: RequestTemplate {
                explode: Some(p.explode),
                style: Some(p.style),
                ..request(op, base.params.clone(), base.body.clone(), AuthMode::Token)
            },
            expect: base.ok(),
            capture: Vec::new(),
            asserts: asserts.clone(),
        }];
        for alt in &p.alternates {
            steps.push(Step {
                request: RequestTemplate {
                    explode: Some(alt.explode),
                    style: Some(alt.style),
                    ..request(op, base.params.clone(), base.body.clone(), AuthMode::Token)
                },
                expect: base.ok(),
                capture: Vec::new(),
                asserts: asserts.clone(),
            });
        }
        b.cases.push(Case {
            id: format!("{}/encodings/{}", op.id, p.name),
            operation: op.id.clone(),
            check: Check::AlternateEncodings.into(),
            level: Level::Must,
            steps,
            serial: op.writes(),
            skip: None,
            requires: Vec::new(),
            cap: None,
        });
    }
}

/// Padding in the payload-too-large case, in multiples of the spec's `x-max-body`: far
/// enough over that any limit near it triggers, yet (for a limit of some KiB) small enough
/// to sit in loopback socket buffers, so a server that answers before reading it all is
/// still heard.
const PAYLOAD_FACTOR: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn spec() -> Spec {
        Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml")).unwrap()
    }

    #[test]
    fn same_seed_same_cases_other_seed_other_values() {
        let spec = spec();
        let c = Contracts::default();
        let o = PlanOptions {
            seed: 7,
            auth_refusal: None,
            max_examples: 1,
        };
        let a: Vec<String> = derive(&spec, &c, o)
            .iter()
            .map(|c| format!("{}{:?}", c.id, c.steps[0].request.body))
            .collect();
        let b: Vec<String> = derive(&spec, &c, o)
            .iter()
            .map(|c| format!("{}{:?}", c.id, c.steps[0].request.body))
            .collect();
        let d: Vec<String> = derive(&spec, &c, PlanOptions { seed: 8, ..o })
            .iter()
            .map(|c| format!("{}{:?}", c.id, c.steps[0].request.body))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, d);
    }

    #[test]
    fn predicts_the_three_outcomes_of_the_name_rules() {
        let spec = spec();
        let op = spec.operation("updateContactInfoName").unwrap();
        let body = |f: &str, l: &str| json!({"firstName": f, "lastName": l, "country": "GB", "phone": "1"});
        assert!(matches!(
            predict(
                op,
                &body(&"é".repeat(30), &"é".repeat(30)),
                &mut Patterns::default()
            )
            .0,
            Expect::Success
        ));
        assert!(matches!(
            predict(
                op,
                &body(&"é".repeat(30), &"é".repeat(31)),
                &mut Patterns::default()
            )
            .0,
            Expect::BusinessRejected(_)
        ));
        assert!(matches!(
            predict(op, &body(&"a".repeat(64), "b"), &mut Patterns::default()).0,
            Expect::BusinessRejected(_)
        ));
        let (e, l) = predict(op, &body(&"a".repeat(65), "b"), &mut Patterns::default());
        assert!(matches!(
            e,
            Expect::Rejected {
                status: Some((400, Level::Should)),
                ..
            }
        ));
        assert_eq!(l, Level::Must);
        let (_, l) = predict(op, &body("   ", "b"), &mut Patterns::default());
        assert_eq!(l, Level::Should);
    }

    #[test]
    fn without_permission_no_case_of_a_writing_operation_is_sent() {
        let spec = spec();
        let mut cases = derive(
            &spec,
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 0,
            },
        );
        let gate = crate::safety::Gate::new(
            &spec,
            crate::effect::Permissions::default(),
            &["updateContactInfoName".to_string()],
        );
        gate.apply(&mut cases);
        let update: Vec<_> = cases
            .iter()
            .filter(|c| c.operation == "updateContactInfoName")
            .collect();
        assert!(!update.is_empty());
        // Requests without credentials included: a server that ignores them would write.
        // The one GET of the path (its undeclared-method probe) changes nothing.
        assert!(
            update
                .iter()
                .filter(|c| c.check != Check::UndeclaredMethod)
                .all(|c| c.skip.is_some())
        );
        assert!(
            update
                .iter()
                .filter(|c| c.check == Check::UndeclaredMethod)
                .all(|c| c.steps[0].request.method.as_deref() == Some("GET"))
        );
    }

    #[test]
    fn one_unknown_path_case_targets_a_path_the_spec_does_not_declare() {
        let spec = spec();
        let cases = derive(
            &spec,
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 0,
            },
        );
        let unknown: Vec<_> = cases
            .iter()
            .filter(|c| c.check == Check::UnknownPath)
            .collect();
        assert_eq!(unknown.len(), 1);
        let path = unknown[0].steps[0].request.path.as_deref().unwrap();
        assert!(spec.operations.iter().all(|o| o.path != path));
        assert!(matches!(
            unknown[0].steps[0].expect,
            Expect::Rejected {
                status: Some((404, Level::Should)),
                ..
            }
        ));
    }

    /// A spec with no `x-` extension: one path with an operation declaring 400 and 422,
    /// one declaring only 422, both taking JSON.
    fn foreign() -> Spec {
        Spec::parse(
            r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "paths": {
                  "/flows": {"post": {"operationId": "createFlow",
                    "requestBody": {"required": true, "content": {"application/json": {
                      "schema": {"type": "object", "required": ["name"],
                        "properties": {"name": {"type": "string"}}},
                      "example": {"name": "a"}}}},
                    "responses": {"201": {"description": "made"},
                      "400": {"description": "bad"}, "422": {"description": "invalid"}}}},
                  "/flows/{id}": {"get": {"operationId": "readFlow",
                    "parameters": [{"name": "id", "in": "path", "required": true,
                      "schema": {"type": "string"}, "example": "f1"},
                      {"name": "limit", "in": "query", "required": true,
                      "schema": {"type": "integer"}, "example": 1}],
                    "responses": {"200": {"description": "ok"},
                      "422": {"description": "invalid"}}}}}}"#,
        )
        .unwrap()
    }

    fn foreign_cases() -> Vec<Case> {
        derive(
            &foreign(),
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 0,
            },
        )
    }

    #[test]
    fn a_malformed_request_fixes_a_status_only_where_one_is_declared() {
        let cases = foreign_cases();
        let status_of = |id: &str| match &cases.iter().find(|c| c.id == id).unwrap().steps[0].expect
        {
            Expect::Rejected { status, .. } => status.map(|(s, _)| s),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            status_of("createFlow/missing-field/name"),
            None,
            "400 and 422 declared"
        );
        assert_eq!(status_of("readFlow/missing-param/limit"), Some(422));
        // The built-in spec declares 400 alone: fixed, at the BadRequest response's level.
        let builtin = derive(
            &spec(),
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 0,
            },
        );
        let c = builtin
            .iter()
            .find(|c| c.id == "getCategoryPositionLimit/missing-param/id")
            .unwrap();
        assert!(matches!(
            c.steps[0].expect,
            Expect::Rejected {
                status: Some((400, Level::Should)),
                ..
            }
        ));
    }

    #[test]
    fn the_generic_probes_run_on_a_spec_without_extensions() {
        let cases = foreign_cases();
        let one =
            |check: Check| -> Vec<&Case> { cases.iter().filter(|c| c.check == check).collect() };
        let unknown = one(Check::UnknownPath);
        assert_eq!(unknown.len(), 1);
        let path = unknown[0].steps[0].request.path.as_deref().unwrap();
        // `/flows/conformance-unknown-path` would reach `/flows/{id}`: the probe goes to the root.
        assert_eq!(path, "/conformance-unknown-path");
        assert!(matches!(
            unknown[0].steps[0].expect,
            Expect::Rejected {
                status: Some((404, Level::Should)),
                ..
            }
        ));
        let methods = one(Check::UndeclaredMethod);
        assert_eq!(methods.len(), 2, "one per path");
        assert!(methods.iter().all(|c| c.level == Level::Should));
        assert!(matches!(
            methods[0].steps[0].expect,
            Expect::MethodNotAllowed {
                status: 405,
                allow_header: true,
                ..
            }
        ));
        let media = one(Check::UnsupportedMediaType);
        assert_eq!(media.len(), 1);
        assert!(matches!(
            media[0].steps[0].expect,
            Expect::Rejected { status: None, .. }
        ));
        assert!(one(Check::PayloadTooLarge).is_empty());
        assert!(one(Check::AlternateEncodings).is_empty());
    }

    #[test]
    fn ignored_auth_counts_the_observed_refusal() {
        let spec = Spec::parse(
            r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "security": [{"bearer": []}],
                "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
                "paths": {"/me": {"get": {"operationId": "me",
                    "responses": {"200": {"description": "ok"}}}}}}"#,
        )
        .unwrap();
        let cases = derive(
            &spec,
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: Some(422),
                max_examples: 0,
            },
        );
        let auth: Vec<&Case> = cases
            .iter()
            .filter(|c| c.check == Check::IgnoredAuth)
            .collect();
        assert_eq!(auth.len(), 3);
        assert!(auth.iter().all(|c| matches!(
            c.steps[0].expect,
            Expect::Refused {
                observed: Some(422),
                status: None,
                ..
            }
        )));
    }
}
