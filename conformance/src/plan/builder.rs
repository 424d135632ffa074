//! What a check derives its cases with: the [`Builder`] each check's `derive` is handed
//! for one operation, the operation's base request ([`Base`]), and the request, value and
//! expectation helpers the checks share. Below the checks, which import it; the plan
//! (`super`) runs them.

use crate::inputs::{Edge, Inputs};
use crate::state::Pool;
use serde_json::{Value, json};

use crate::case::{AuthMode, BodyTemplate, Case, Expect, RequestTemplate, Step};
use crate::contracts::Contracts;
use crate::registry::Check;
use crate::spec::{Level, Location, Operation, Param, Spec};

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
    /// Path values that neither the spec, the contract files nor the target's answers
    /// give are made up (see [`made_up`]): the run's last pass, for the operations no
    /// producer reached.
    pub made_up: bool,
}

/// What a case id planned on made-up path values ends with: its answer is judged for
/// what it is, a request naming a record that may not exist (a 404 need not be
/// declared; see `checks::schema_status`).
pub const MADE_UP: &str = "+made-up";

pub(crate) struct Base {
    pub(crate) params: Vec<(String, Value)>,
    pub(crate) body: Option<Value>,
    /// Whether any part of the request is the generator's (see [`crate::inputs`]): such a
    /// request is the harness's guess at a valid one, so its answer is observed rather
    /// than required to be a success.
    pub(crate) generated: bool,
    /// Whether a value came from the target's own answers ([`Pool`]).
    pub(crate) mined: bool,
    /// Whether a path value was made up ([`made_up`]).
    pub(crate) made_up: bool,
    /// Whether the body is the generator's (not the contract files' or the spec's
    /// example, which may name what the target expects, as a login's user does).
    pub(crate) body_generated: bool,
    /// Inputs the generator could not make, with the schema node and why.
    pub(crate) unmakeable: Vec<String>,
}

/// A path parameter whose schema lists its values (`enum`, `const`, a boolean) names no
/// record: any of them is a valid request. Any other path value names a record, which only
/// the spec, the contract files or the target's answers can give.
fn enumerated(schema: &Value) -> bool {
    schema.get("enum").is_some()
        || schema.get("const").is_some()
        || schema.get("type").and_then(Value::as_str) == Some("boolean")
}

/// The path parameters of `op` that name a record (see [`enumerated`]): those neither
/// the contract files' `defaults` nor the spec's examples give (wanted from the target's
/// answers), and those they give, with the value.
pub(crate) fn naming_params<'o>(
    op: &'o Operation,
    contracts: &Contracts,
) -> (Vec<&'o Param>, Vec<(&'o Param, Value)>) {
    let dflt = contracts.defaults.get(&op.id);
    let mut wanted = Vec::new();
    let mut held = Vec::new();
    for p in &op.params {
        if p.location != Location::Path || enumerated(&p.schema) {
            continue;
        }
        let given = dflt
            .and_then(|d| d.params.get(&p.name))
            .cloned()
            .or_else(|| p.example.clone());
        match given {
            Some(v) => held.push((p, v)),
            None => wanted.push(p),
        }
    }
    (wanted, held)
}

pub(crate) fn base(
    op: &Operation,
    contracts: &Contracts,
    pool: &Pool,
    inputs: &Inputs<'_>,
    make_up: bool,
) -> Base {
    let dflt = contracts.defaults.get(&op.id);
    let given = |p: &crate::spec::Param| {
        dflt.and_then(|d| d.params.get(&p.name))
            .cloned()
            .or_else(|| p.example.clone())
    };
    let mut b = Base {
        params: Vec::new(),
        body: None,
        generated: false,
        mined: false,
        made_up: false,
        body_generated: false,
        unmakeable: Vec::new(),
    };
    for p in &op.params {
        if let Some(v) = given(p) {
            b.params.push((p.name.clone(), v));
            continue;
        }
        if p.location == Location::Path && !enumerated(&p.schema) {
            // From the target's answers below, all together.
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
    // The path values that name a record and that nothing above gave come from the
    // target's answers, together, so that they name one resource (see `crate::identity`).
    let (wanted, held) = naming_params(op, contracts);
    let mined = pool.path_values(op, &wanted, &held);
    if mined.is_empty() && make_up {
        for p in &wanted {
            if let Some(v) = made_up(op, p, inputs) {
                b.params.push((p.name.clone(), v));
                b.generated = true;
                b.made_up = true;
            }
        }
    }
    for (name, v) in mined {
        b.params.push((name, v));
        b.mined = true;
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
                b.body_generated = true;
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

/// A path value no one gave, made to fit the schema: an integer id is the first a
/// table hands out (`1`, or the schema's `minimum` above it), anything else the
/// generator's value (a fresh uuid for `format: uuid`, a string its `pattern` admits).
/// Such a value may name nothing, so its cases observe the answer: a 5xx, an undeclared
/// status other than 404/410 or a body off its schema is a finding, a 404 is not.
pub(crate) fn made_up(op: &Operation, p: &Param, inputs: &Inputs<'_>) -> Option<Value> {
    if p.schema.get("type").and_then(Value::as_str) == Some("integer") {
        let min = p.schema.get("minimum").and_then(Value::as_i64).unwrap_or(1);
        return Some(json!(min.max(1)));
    }
    inputs.param(&op.id, p).ok()
}

impl Base {
    /// The inputs a complete request of `op` needs that neither the contract files'
    /// `defaults`, the spec's examples, the target's answers nor the generator give: a case
    /// built without them would go out with a literal `{placeholder}` or without a
    /// required part, and its answer would say nothing about the operation.
    pub(super) fn missing(&self, op: &Operation) -> Vec<String> {
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
    pub(crate) fn ok(&self) -> Expect {
        if self.generated {
            Expect::Observe
        } else {
            Expect::Success
        }
    }
}

/// Whether an operation's body may be sent as JSON, the kind every family of cases builds
/// (forms and text get the base request and its examples; see [`encoded_media`]).
pub(crate) fn sends_json(decl: &crate::spec::Body) -> bool {
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
pub(crate) fn encoded_media(decl: &crate::spec::Body) -> Option<&str> {
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
pub(super) fn missing_reason(op: &Operation, missing: &[String]) -> String {
    format!(
        "{}{} needs {}: no example in the spec, no `defaults` in a contract file, no value from the target's answers, and none the generator can make",
        crate::case::MISSING_INPUT,
        op.id,
        missing.join(", ")
    )
}

/// One operation's cases as the checks derive them ([`crate::checks::ALL`]), with what
/// they derive them from.
pub(crate) struct Builder<'a> {
    /// The spec.
    pub spec: &'a Spec,
    /// The contract files.
    pub contracts: &'a Contracts,
    /// The operation.
    pub op: &'a Operation,
    /// Its base request.
    pub base: &'a Base,
    /// The value generator.
    pub inputs: &'a Inputs<'a>,
    /// Values from the target's answers.
    pub pool: &'a Pool,
    /// The plan's options.
    pub opts: PlanOptions,
    /// The base request lacks no input: a case built on it is the one request it names.
    pub complete: bool,
    /// The plan's first operation (a probe sent once per run goes under it).
    pub first: bool,
    /// The run's generator of test strings, shared by every operation in turn.
    pub rng: &'a mut Rng,
    /// The cases so far.
    pub cases: Vec<Case>,
}

impl Builder<'_> {
    /// Adds a one-step case `name` of the operation.
    pub(crate) fn push(
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

pub(crate) fn request(
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
pub(crate) fn raw_body_request(
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
pub(crate) fn malformed(op: &Operation) -> Expect {
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
pub(crate) fn constraint_level(schema: &Value, keyword: &str) -> Level {
    match schema
        .pointer(&format!("/x-constraint-levels/{keyword}"))
        .and_then(Value::as_str)
    {
        Some("should") => Level::Should,
        _ => Level::Must,
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
