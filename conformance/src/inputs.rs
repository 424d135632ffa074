//! Values from the schemas: what a request sends where neither the contract files'
//! `defaults` nor the spec's examples give one. The planner asks here for a parameter's
//! value, a body, more valid variants of them, and invalid ones (one defect each, from
//! [`schema_values`]'s mutations), so that an operation of a spec nobody wrote examples for
//! is still reached with complete, valid requests, and its validation is still tried.
//!
//! A generated body leaves out the optional fields that say who may do what with the
//! record (`permissions`, `acl`, `owners`, …): made-up principals there could lock the run
//! out of what it creates, and it could not remove it at the end.
//!
//! What is made here is the harness's invention, and the plan judges it so: a request
//! built from generated values need not succeed (a generated id in a body names nothing
//! the target holds), so its positive cases observe the answer instead of expecting a
//! 2xx; the generic checks (no 5xx, a declared status, a matching schema) judge it all the
//! same. A value this module cannot make is an error naming the schema node, which the
//! plan turns into a skip, never a value that might be wrong.
//!
//! Each operation's values come from the run's seed and the operation's id, so one
//! operation's values do not move when another is added, selected or sharded away.

use schema_values::{Generator, Mutation, MutationKind, Shape};
use serde_json::Value;

use crate::spec::{Body, Level, Location, Param};

/// Body fields that say who may read, change or delete a record: a generated value there
/// (made-up principals) could lock the run out of what it made.
const ACCESS_FIELDS: &[&str] = &[
    "permissions",
    "permission",
    "acl",
    "acls",
    "access_control",
    "owners",
    "principals",
    "grants",
    "shared_with",
    "collaborators",
];

/// How many generated requests an operation gets by default for each of its valid and
/// its invalid inputs (`--max-examples`): enough to reach both sides of a `oneOf`, an
/// enum's values and an optional part present and absent, few enough that a
/// 200-operation spec runs in well under a minute against a local server.
pub const DEFAULT_MAX_EXAMPLES: usize = 4;

/// The value generator of one run's spec.
pub struct Inputs<'d> {
    values: Generator<'d>,
    seed: u64,
    /// Generated requests per operation, for valid and for invalid inputs each.
    pub max_examples: usize,
}

/// One invalid input: a valid request's parameter or body with one defect.
#[derive(Debug, Clone)]
pub struct Defect {
    /// Where the defect is: `body`, or the parameter's name.
    pub part: Part,
    /// The defective value (the whole body, or the parameter's whole value).
    pub value: Value,
    /// What is wrong, from the generator.
    pub mutation: Mutation,
    /// How binding its rejection is: the schema node's `x-constraint-levels` for the broken
    /// keyword, else MUST, except a broken `format`, which JSON Schema 2020-12 makes an
    /// annotation unless a validator opts in (SHOULD).
    pub level: Level,
}

/// Which part of a request a defect is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// The JSON body.
    Body,
    /// The named parameter.
    Param(String),
}

/// An edge of the values a schema admits where it states no bound: valid, and where a
/// server's storage and arithmetic most often break (an integer its database cannot hold,
/// a date its calendar code cannot add a day to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// An integer without a maximum at the top of its format's range (`int32`'s, else
    /// `int64`'s).
    Top,
    /// An integer without a minimum at the bottom of its format's range.
    Bottom,
    /// A `date-time` or `date` on the last day of year 9999, the last a four-digit year
    /// writes.
    Late,
    /// An integer with neither a bound nor a format past what 64 signed bits hold
    /// (`u64::MAX`): JSON Schema sets no limit there, and a server whose language has
    /// unbounded integers meets the limit only in its database.
    Beyond,
}

impl Edge {
    /// In the order a budget cuts them: the top first, which finds the most.
    pub const ALL: [Edge; 4] = [Edge::Top, Edge::Late, Edge::Bottom, Edge::Beyond];

    /// The case label of `field` at this edge: the field alone for the top (the labels
    /// runs had before the other edges), the field and the edge otherwise.
    fn label(self, field: &str) -> String {
        match self {
            Edge::Top => field.to_string(),
            Edge::Bottom => format!("{field}@min"),
            Edge::Late => format!("{field}@late"),
            Edge::Beyond => format!("{field}@beyond"),
        }
    }
}

impl<'d> Inputs<'d> {
    /// The generator for `doc` (the whole OpenAPI document) with the run's seed.
    pub fn new(doc: &'d Value, seed: u64, max_examples: usize) -> Inputs<'d> {
        Inputs {
            values: Generator::new(doc),
            seed,
            max_examples,
        }
    }

    /// The seed of one operation's values: the run's seed mixed with the operation's id
    /// (FNV-1a), so values depend on nothing else in the plan.
    pub fn seed_for(&self, op_id: &str) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in op_id.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^ self.seed
    }

    /// A value for parameter `p`, made to travel as text: a scalar, or an array of
    /// scalars; one for a header also printable ASCII. `Err` names the schema node or says
    /// why the parameter's place cannot carry what its schema admits.
    pub fn param(&self, op_id: &str, p: &Param) -> Result<Value, String> {
        let seed = self.seed_for(op_id) ^ name_hash(&p.name);
        let shape = self.values.shape(&p.schema);
        if matches!(shape, Shape::Object) && p.media.is_none() {
            return Err(format!(
                "parameter `{}` takes an object, which the harness sends only as JSON `content`",
                p.name
            ));
        }
        let mut last = String::new();
        for k in 0..8 {
            let v = match self.at(&p.schema_ptr, &p.schema, |node, ptr| {
                self.values.generate_at(node, ptr, seed.wrapping_add(k))
            }) {
                Ok(v) => v,
                Err(e) => return Err(format!("parameter `{}`: {e}", p.name)),
            };
            match travels(p, &v) {
                Ok(()) => return Ok(v),
                Err(why) => last = why,
            }
        }
        Err(format!("parameter `{}`: {last}", p.name))
    }

    /// More valid values of optional parameter `p` besides leaving it out, at most `n`.
    pub fn param_variants(&self, op_id: &str, p: &Param, n: usize) -> Vec<Value> {
        let seed = self.seed_for(op_id) ^ name_hash(&p.name);
        self.at(&p.schema_ptr, &p.schema, |node, ptr| {
            self.values.variants_at(node, ptr, seed, n)
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|v| travels(p, v).is_ok())
        .collect()
    }

    /// A valid JSON body for `decl`. A `fresh` one (for a create) is the generator's
    /// minimal value, made without the spec's examples: a create with an example's name
    /// could meet a record the user already has under that name, and a target that answers
    /// such a create with the existing record would hand the run someone else's data to
    /// update and remove.
    pub fn body(&self, op_id: &str, decl: &Body, fresh: bool) -> Result<Value, String> {
        let base = self.seed_for(op_id);
        for k in 0..8 {
            let seed = base.wrapping_add(k);
            let made = self
                .at(&decl.schema_ptr, &decl.schema, |node, ptr| {
                    if fresh
                        && let Ok(mut made) = self.values.variants_at(node, ptr, seed, 2)
                        && made.len() == 2
                    {
                        return Ok(made.remove(1));
                    }
                    self.values.generate_at(node, ptr, seed)
                })
                .map_err(|e| format!("request body: {e}"))?;
            if !holds_placeholder(&made) {
                return Ok(self.without_access(decl, made));
            }
        }
        Err(format!(
            "request body: every value generated for {} holds `${{`, which the harness would read as a variable",
            if decl.schema_ptr.is_empty() {
                "the body"
            } else {
                &decl.schema_ptr
            }
        ))
    }

    /// A fresh body (see [`Inputs::body`]) for a create that must make a record the
    /// steps after it work on: a list body holds one item (an empty list makes nothing),
    /// and an optional top-level `name` the schema declares is given, as clients name
    /// what they create (a target may refuse an unnamed record where its spec lets the name
    /// be left out): the schema's example, else a plain `conformance` (letters a target
    /// that restricts names beyond its spec still takes), else a value generated for it,
    /// the first with which the body still validates.
    pub fn creating_body(&self, op_id: &str, decl: &Body) -> Result<Value, String> {
        let mut body = self.body(op_id, decl, true)?;
        let seed = self.seed_for(op_id);
        let made = |key: &str, part: &str| -> Option<Value> {
            let copy = decl.schema.get(key)?;
            let copy = if key == "properties" {
                copy.get(part)?
            } else {
                copy
            };
            let ptr = match key {
                "items" => format!("{}/items", decl.schema_ptr),
                _ => format!("{}/properties/{part}", decl.schema_ptr),
            };
            self.at(&ptr, copy, |node, ptr| {
                self.values.generate_at(node, ptr, seed)
            })
            .ok()
            .filter(|v| !holds_placeholder(v))
        };
        match &mut body {
            Value::Array(items) if items.is_empty() => items.extend(made("items", "")),
            Value::Object(fields) if !fields.contains_key("name") => {
                let schema = decl.schema.pointer("/properties/name");
                let example = schema.and_then(|s| {
                    s.get("examples")
                        .and_then(|e| e.get(0))
                        .or_else(|| s.get("example"))
                        .filter(|v| v.is_string())
                        .cloned()
                });
                let candidates = [
                    example,
                    schema.map(|_| Value::String("conformance".into())),
                    made("properties", "name"),
                ];
                for name in candidates.into_iter().flatten().filter(Value::is_string) {
                    fields.insert("name".into(), name);
                    if self.body_is_valid(decl, &Value::Object(fields.clone())) {
                        break;
                    }
                    fields.remove("name");
                }
            }
            _ => {}
        }
        Ok(body)
    }

    /// Up to `n` valid bodies: the one [`Inputs::body`] gives first, then others reaching
    /// other branches, enum values and optional parts.
    pub fn body_variants(&self, op_id: &str, decl: &Body, n: usize) -> Vec<Value> {
        self.at(&decl.schema_ptr, &decl.schema, |node, ptr| {
            self.values.variants_at(node, ptr, self.seed_for(op_id), n)
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|v| !holds_placeholder(v))
        .map(|v| self.without_access(decl, v))
        .collect()
    }

    /// `body` without the optional top-level fields that say who may do what with the
    /// record (`permissions`, `acl`, `owners`, …; see [`ACCESS_FIELDS`]) where it still
    /// validates without them: made-up principals there would take the run's own access
    /// to what it creates or updates, and the record could not be removed at the end.
    fn without_access(&self, decl: &Body, body: Value) -> Value {
        let Value::Object(fields) = &body else {
            return body;
        };
        let required = decl.required();
        let mut kept = fields.clone();
        kept.retain(|k, _| {
            required.contains(k) || !ACCESS_FIELDS.contains(&crate::identity::snake(k).as_str())
        });
        if kept.len() == fields.len() {
            return body;
        }
        let kept = Value::Object(kept);
        if self.body_is_valid(decl, &kept) {
            kept
        } else {
            body
        }
    }

    /// Copies of `body`, each with one top-level field at an edge of what its schema
    /// admits (see [`Edge`]), labelled with the field (and the edge, past the first kind):
    /// still valid, and the values a server's storage most often fails on (an offset or
    /// page past what its database's integers hold, a date past its calendar). One field
    /// and one edge at a time, so that a target's own undeclared cap on one (a page size of
    /// at most 200) does not hide what another does. Only copies that validate are given;
    /// all tops first, then the other edges, so a budget cut keeps the likeliest finds.
    pub fn extreme_bodies(&self, decl: &Body, body: &Value) -> Vec<(String, Value)> {
        let (Value::Object(fields), Some(props)) = (
            body,
            decl.schema.get("properties").and_then(Value::as_object),
        ) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for edge in Edge::ALL {
            for (name, schema) in props {
                let Some(v) = self.edge(schema, edge) else {
                    continue;
                };
                let mut copy = fields.clone();
                copy.insert(name.clone(), v);
                let copy = Value::Object(copy);
                let valid = self
                    .at(&decl.schema_ptr, &decl.schema, |node, _| {
                        self.values.validate(node, &copy)
                    })
                    .is_ok();
                if valid && !holds_placeholder(&copy) {
                    out.push((edge.label(name), copy));
                }
            }
        }
        out
    }

    /// Whether `body` is valid for the operation's request body `decl`.
    pub fn body_is_valid(&self, decl: &Body, body: &Value) -> bool {
        self.at(&decl.schema_ptr, &decl.schema, |node, _| {
            self.values.validate(node, body)
        })
        .is_ok()
    }

    /// Parameter `p` at `edge` where its schema leaves that edge open (see
    /// [`Inputs::extreme_bodies`]), labelled as there.
    pub fn extreme_param(&self, p: &Param, edge: Edge) -> Option<(String, Value)> {
        let v = self.edge(&p.schema, edge)?;
        (self.values.validate(&p.schema, &v).is_ok() && travels(p, &v).is_ok())
            .then(|| (edge.label(&p.name), v))
    }

    /// Parameter `p` (a string with a `pattern`) with text around a value its pattern
    /// admits, where the pattern does not anchor that branch at both ends (`^"[0-9]+"$|\*`
    /// admits `*~x`): valid by the spec, and where a server that reads the value as if
    /// the pattern were anchored most often breaks. `None` where every branch is anchored.
    pub fn loose_param(&self, p: &Param) -> Option<Value> {
        p.schema.get("pattern")?;
        let seed = self.seed_for(&p.name);
        let made = self.values.variants(&p.schema, seed, 4).ok()?;
        made.iter()
            .filter_map(Value::as_str)
            .flat_map(|v| [format!("{v}~x"), format!("x~{v}")])
            .map(Value::String)
            .find(|v| self.values.validate(&p.schema, v).is_ok() && travels(p, v).is_ok())
    }

    /// The value of a schema (or of the first `oneOf`/`anyOf` branch that has one) at
    /// `edge`, where the schema sets no bound there.
    fn edge(&self, schema: &Value, edge: Edge) -> Option<Value> {
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => self.values.schema_at(r.strip_prefix('#')?)?,
            None => schema,
        };
        let kind = schema.get("type").and_then(Value::as_str);
        let format = schema.get("format").and_then(Value::as_str);
        let unset = |keys: [&str; 2]| keys.iter().all(|k| schema.get(*k).is_none());
        let own = match (edge, kind, format) {
            (Edge::Top, Some("integer"), _) if unset(["maximum", "exclusiveMaximum"]) => {
                Some(match format {
                    Some("int32") => Value::from(i32::MAX),
                    _ => Value::from(i64::MAX),
                })
            }
            (Edge::Bottom, Some("integer"), _) if unset(["minimum", "exclusiveMinimum"]) => {
                Some(match format {
                    Some("int32") => Value::from(i32::MIN),
                    _ => Value::from(i64::MIN),
                })
            }
            (Edge::Beyond, Some("integer"), None) if unset(["maximum", "exclusiveMaximum"]) => {
                Some(Value::from(u64::MAX))
            }
            (Edge::Late, Some("string"), Some("date-time")) => {
                Some(Value::from("9999-12-31T23:59:59Z"))
            }
            (Edge::Late, Some("string"), Some("date")) => Some(Value::from("9999-12-31")),
            _ => None,
        };
        own.or_else(|| {
            ["anyOf", "oneOf"]
                .iter()
                .filter_map(|k| schema.get(*k).and_then(Value::as_array))
                .flatten()
                .find_map(|b| self.edge(b, edge))
        })
    }

    /// Invalid bodies, each `valid` with one defect the schema rejects.
    pub fn body_defects(&self, decl: &Body, valid: &Value) -> Vec<Defect> {
        self.at(&decl.schema_ptr, &decl.schema, |node, ptr| {
            Ok::<_, ()>(self.values.mutations_at(node, ptr, valid))
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|m| !holds_placeholder(&m.value))
        .map(|m| Defect {
            part: Part::Body,
            value: m.value.clone(),
            level: self.level(&decl.schema, &m),
            mutation: m,
        })
        .collect()
    }

    /// Invalid values of parameter `p`, each `valid` with one defect that survives the
    /// trip as text: a wrong type only where the text does not read as the declared type
    /// (`true` is not an integer; `12` is a string all the same, and `1` a boolean to
    /// lenient servers).
    pub fn param_defects(&self, p: &Param, valid: &Value) -> Vec<Defect> {
        self.at(&p.schema_ptr, &p.schema, |node, ptr| {
            Ok::<_, ()>(self.values.mutations_at(node, ptr, valid))
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|m| match &p.media {
            // A JSON text carries every defect as it is.
            Some(_) => travels(p, &m.value).is_ok(),
            None => {
                !matches!(
                    m.kind,
                    MutationKind::RequiredMissing | MutationKind::ExtraProperty
                ) && !matches!(m.value, Value::Null | Value::Object(_))
                    && travels(p, &m.value).is_ok()
                    && !reads_as_valid(&self.values, p, &m.value)
            }
        })
        .map(|m| Defect {
            part: Part::Param(p.name.clone()),
            value: m.value.clone(),
            level: self.level(&p.schema, &m),
            mutation: m,
        })
        .collect()
    }

    /// Runs `f` on the schema node at `ptr` in the document (so that its validator is
    /// compiled once and pointers in errors are absolute), or on `copy` with relative
    /// pointers where the document has no node there.
    fn at<T, E>(
        &self,
        ptr: &str,
        copy: &Value,
        f: impl FnOnce(&Value, &str) -> Result<T, E>,
    ) -> Result<T, E> {
        match self.values.schema_at(ptr) {
            Some(node) if !ptr.is_empty() => f(node, ptr),
            _ => f(copy, ""),
        }
    }

    /// The level of a defect's rejection (see [`Defect::level`]).
    fn level(&self, root: &Value, m: &Mutation) -> Level {
        let node = if m.pointer.is_empty() {
            Some(root)
        } else if m.pointer.starts_with("/components") || m.pointer.starts_with("/paths") {
            self.values.schema_at(&m.pointer)
        } else {
            root.pointer(&m.pointer)
        };
        let declared = node
            .and_then(|n| n.pointer(&format!("/x-constraint-levels/{}", m.keyword)))
            .and_then(Value::as_str);
        match declared {
            Some("should") => Level::Should,
            Some("must") => Level::Must,
            _ if m.kind == MutationKind::FormatBroken => Level::Should,
            _ => Level::Must,
        }
    }
}

fn name_hash(name: &str) -> u64 {
    name.bytes()
        .fold(0u64, |h, b| h.rotate_left(5) ^ u64::from(b))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Whether a string anywhere in `v` holds `${`: request templates read it as a variable
/// reference (`${name}`), so a generated value holding one would be sent with a variable's
/// value in its place, or not at all. Such a value is made again with another seed, or
/// left out.
fn holds_placeholder(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("${"),
        Value::Array(items) => items.iter().any(holds_placeholder),
        Value::Object(m) => m.values().any(holds_placeholder),
        _ => false,
    }
}

/// Whether `v` can be sent in `p`'s place: a scalar or a list of scalars, never null; in a
/// header, visible ASCII only (RFC 9110 field values), in a path not empty; never holding
/// `${` (see [`holds_placeholder`]). A parameter described by a JSON `content` takes any
/// value, as its JSON text.
fn travels(p: &Param, v: &Value) -> Result<(), String> {
    if holds_placeholder(v) {
        return Err("a generated value holds `${`, which would read as a variable".into());
    }
    if p.media.is_some() {
        // One JSON text: any value has one (a header's still visible ASCII).
        let text = v.to_string();
        return if p.location == Location::Header && !text.bytes().all(|b| (0x20..0x7f).contains(&b))
        {
            Err("a header value must be visible ASCII".into())
        } else {
            Ok(())
        };
    }
    let scalars: Vec<&Value> = match v {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    for s in &scalars {
        match s {
            Value::Null => return Err("a null has no text form".into()),
            Value::Array(_) | Value::Object(_) => {
                return Err("a nested list or object has no text form in this place".into());
            }
            _ => {}
        }
    }
    let text: Vec<String> = scalars.iter().map(|s| text_of(s)).collect();
    match p.location {
        Location::Header
            if text
                .iter()
                .any(|t| !t.bytes().all(|b| (0x20..0x7f).contains(&b))) =>
        {
            Err("a header value must be visible ASCII".into())
        }
        Location::Path if text.iter().any(String::is_empty) => {
            Err("an empty path segment changes the path".into())
        }
        // RFC 6265's cookie-octets: visible ASCII but for `"`, `,`, `;` and `\`.
        Location::Cookie
            if text.iter().any(|t| {
                !t.bytes()
                    .all(|b| (0x21..0x7f).contains(&b) && !b"\",;\\".contains(&b))
            }) =>
        {
            Err("a cookie value must be visible ASCII without `\"`, `,`, `;` or `\\`".into())
        }
        _ => Ok(()),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether a parameter's text reads back as a valid value (the check a lenient server
/// makes): the text as a string, and where it parses as JSON, as that value.
fn reads_as_valid(values: &Generator<'_>, p: &Param, v: &Value) -> bool {
    let items: Vec<&Value> = match v {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    let read = |text: &str| -> Vec<Value> {
        let mut out = vec![Value::String(text.to_string())];
        if let Ok(parsed) = serde_json::from_str::<Value>(text) {
            out.push(parsed);
        }
        match text.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" | "t" | "y" => out.push(Value::Bool(true)),
            "false" | "0" | "no" | "off" | "f" | "n" => out.push(Value::Bool(false)),
            _ => {}
        }
        out
    };
    let readings: Vec<Vec<Value>> = items.iter().map(|s| read(&text_of(s))).collect();
    let is_list = matches!(v, Value::Array(_));
    if !is_list {
        return readings[0]
            .iter()
            .any(|r| values.validate(&p.schema, r).is_ok());
    }
    // A list: the defect is in the list itself (its length) or in one item; read each
    // item every way and see whether some reading of the whole list is valid.
    let mut candidates: Vec<Vec<Value>> = vec![Vec::new()];
    for r in &readings {
        candidates = candidates
            .into_iter()
            .flat_map(|c| {
                r.iter().map(move |x| {
                    let mut c = c.clone();
                    c.push(x.clone());
                    c
                })
            })
            .take(64)
            .collect();
    }
    candidates
        .into_iter()
        .any(|c| values.validate(&p.schema, &Value::Array(c)).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Location, Param, Style};
    use serde_json::json;

    fn param(name: &str, location: Location, schema: Value) -> Param {
        Param {
            name: name.into(),
            location,
            required: true,
            schema,
            example: None,
            style: Style::default_for(location),
            explode: location == Location::Query,
            alternates: Vec::new(),
            schema_ptr: String::new(),
            encoding_levels: (Level::Must, Level::Must),
            media: None,
        }
    }

    fn doc() -> Value {
        json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}})
    }

    #[test]
    fn a_generated_value_never_holds_a_variable_reference() {
        // Only `${x}` (and its prefixes) fits the pattern: every value holds a reference,
        // so the parameter and the body are refused by name rather than sent altered.
        let p = param(
            "q",
            Location::Query,
            json!({"type": "string", "pattern": "^\\$\\{x\\}$"}),
        );
        let d = doc();
        let inputs = Inputs::new(&d, 7, 3);
        let err = inputs.param("op", &p).unwrap_err();
        assert!(err.contains("${"), "{err}");
        assert!(inputs.param_variants("op", &p, 3).is_empty());
        // A pattern that allows `${` but does not require it still gives values, none of
        // which holds one.
        let loose = param(
            "q",
            Location::Query,
            json!({"type": "string", "pattern": "^[${}a]{4,8}$"}),
        );
        for seed in 0..50 {
            let v = Inputs::new(&d, seed, 3).param("op", &loose).unwrap();
            assert!(!v.as_str().unwrap().contains("${"), "{v}");
        }
    }

    #[test]
    fn a_parameter_value_is_valid_and_the_same_for_the_same_seed() {
        let d = doc();
        let inputs = Inputs::new(&d, 7, 4);
        let p = param(
            "limit",
            Location::Query,
            json!({"type": "integer", "minimum": 1, "maximum": 200}),
        );
        let v = inputs.param("list", &p).unwrap();
        assert!(v.as_i64().is_some_and(|n| (1..=200).contains(&n)), "{v}");
        assert_eq!(inputs.param("list", &p).unwrap(), v);
    }

    #[test]
    fn a_pattern_not_anchored_at_both_ends_admits_text_around_its_match() {
        let d = doc();
        let inputs = Inputs::new(&d, 7, 4);
        let etag = |pattern: &str| {
            let schema = json!({"type": "string", "pattern": pattern});
            inputs.loose_param(&param("If-Match", Location::Header, schema))
        };
        let loose = etag(r#"^"([0-9]+?)"$|\*"#).expect("the `*` branch is not anchored");
        let text = loose.as_str().unwrap();
        assert!(text.contains('*') && text.len() > 1, "{text}");
        assert_eq!(etag(r#"^"([0-9]+?)"$|^\*$"#), None);
        assert_eq!(etag("^[a-z]+$"), None);
    }

    #[test]
    fn an_object_parameter_without_content_is_refused_by_name() {
        let d = doc();
        let inputs = Inputs::new(&d, 7, 4);
        let p = param(
            "filter",
            Location::Query,
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        );
        let err = inputs.param("list", &p).unwrap_err();
        assert!(err.contains("`filter`") && err.contains("object"), "{err}");
    }

    #[test]
    fn a_header_value_is_visible_ascii() {
        let d = doc();
        let p = param(
            "x-name",
            Location::Header,
            json!({"type": "string", "minLength": 5}),
        );
        for seed in 0..20 {
            let v = Inputs::new(&d, seed, 4).param("op", &p).unwrap();
            let s = v.as_str().unwrap();
            assert!(s.bytes().all(|b| (0x20..0x7f).contains(&b)), "{s:?}");
        }
    }

    #[test]
    fn a_parameter_defect_is_one_the_text_still_shows() {
        let d = doc();
        let inputs = Inputs::new(&d, 7, 4);
        let flag = param("active", Location::Query, json!({"type": "boolean"}));
        for defect in inputs.param_defects(&flag, &json!(true)) {
            let text = text_of(&defect.value).to_ascii_lowercase();
            assert!(
                !["true", "false", "1", "0"].contains(&text.as_str()),
                "{defect:?} reads as a boolean"
            );
        }
        let limit = param(
            "limit",
            Location::Query,
            json!({"type": "integer", "maximum": 10}),
        );
        let defects = inputs.param_defects(&limit, &json!(5));
        assert!(
            defects
                .iter()
                .any(|d| d.mutation.kind == MutationKind::AboveMaximum),
            "{defects:?}"
        );
        let name = param("name", Location::Query, json!({"type": "string"}));
        assert!(
            inputs.param_defects(&name, &json!("abc")).is_empty(),
            "any text is a string"
        );
    }

    #[test]
    fn a_broken_format_is_a_should_and_a_declared_level_wins() {
        let d = doc();
        let inputs = Inputs::new(&d, 7, 4);
        let p = param(
            "id",
            Location::Query,
            json!({"type": "string", "format": "uuid"}),
        );
        let valid = inputs.param("get", &p).unwrap();
        let format = inputs
            .param_defects(&p, &valid)
            .into_iter()
            .find(|d| d.mutation.kind == MutationKind::FormatBroken)
            .expect("a broken uuid");
        assert_eq!(format.level, Level::Should);
        let p = param(
            "n",
            Location::Query,
            json!({"type": "integer", "maximum": 3, "x-constraint-levels": {"maximum": "should"}}),
        );
        let above = inputs
            .param_defects(&p, &json!(2))
            .into_iter()
            .find(|d| d.mutation.kind == MutationKind::AboveMaximum)
            .unwrap();
        assert_eq!(above.level, Level::Should);
    }
}
