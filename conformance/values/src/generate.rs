//! Valid values: a spec example where one validates, else made from the flattened schema.
//! `oneOf`/`anyOf` branches, `enum` values and optional properties are decisions; a
//! variant number steers them so that successive variants reach every branch and value.
//!
//! Variant 0 is the "full" value: examples first, every optional property at the first
//! two levels of nesting. Variant 1 is the minimal one: no optional property, fewest
//! items. Later variants rotate through branches and enum values and take a random half of
//! the optional properties.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::{Map, Value};

use crate::dialect::{has_flag, hidden_flag};
use crate::flat::{ChoiceKind, Flat, Node, merge};
use crate::{Generator, Shape, Unsupported, numbers, strings};

/// Attempts at a whole value before a validation failure is reported as unsupported.
const GATE_ATTEMPTS: u64 = 3;
/// Attempts at one `oneOf` branch (or a `not`) before the next branch is tried.
const EXACT_ATTEMPTS: usize = 4;

/// One valid value for variant `variant`, checked against the schema before it is returned.
pub(crate) fn one<'a>(
    g: &Generator<'a>,
    schema: &'a Value,
    ptr: &str,
    seed: u64,
    variant: usize,
) -> Result<Value, Unsupported> {
    let mut failure = None;
    for attempt in 0..GATE_ATTEMPTS {
        let mut run = Run::new(
            g,
            seed.wrapping_add(attempt.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            variant,
        );
        // Examples are taken on trust first (the whole value is checked anyway, and one
        // validator per example-bearing property is what a large spec cannot afford), then
        // each checked on its own, then left aside.
        run.examples = match attempt {
            0 => Examples::Trust,
            1 => Examples::Check,
            _ => Examples::Off,
        };
        let v = run.value(&[Node::new(schema, ptr)])?;
        match g.validate_node(&Node::new(schema, ptr), &v) {
            Ok(()) => return Ok(v),
            Err(e) => failure = Some((v, e)),
        }
    }
    let (v, e) = failure.expect("at least one attempt");
    let node = g.failing_node(&Node::new(schema, ptr), &v).map(|(n, _)| n);
    let pointer = match node {
        Some(n) => match n.strip_prefix('+') {
            Some(relative) => format!("{ptr}{relative}"),
            None => n,
        },
        None => ptr.to_string(),
    };
    Err(Unsupported::new(
        &pointer,
        format!("every value made failed validation ({e})"),
    ))
}

/// Up to `max` distinct valid values.
pub(crate) fn variants<'a>(
    g: &Generator<'a>,
    schema: &'a Value,
    ptr: &str,
    seed: u64,
    max: usize,
) -> Result<Vec<Value>, Unsupported> {
    let mut out: Vec<Value> = Vec::new();
    let mut first_err = None;
    for k in 0..(max * 4).max(4) {
        if out.len() >= max {
            break;
        }
        match one(g, schema, ptr, seed.wrapping_add(k as u64), k) {
            Ok(v) => {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    match (out.is_empty(), first_err) {
        (true, Some(e)) => Err(e),
        _ => Ok(out),
    }
}

/// The shape of a schema: the types its values can have.
pub(crate) fn shape<'a>(g: &Generator<'a>, schema: &'a Value) -> Shape {
    let mut kinds = [false; 3]; // scalar, array, object
    let mut any = false;
    collect_shape(g, &Node::new(schema, ""), &[], &mut kinds, &mut any, 0);
    match (any, kinds) {
        (false, [true, false, false]) => Shape::Scalar,
        (false, [false, true, false]) => Shape::Array,
        (false, [false, false, true]) => Shape::Object,
        _ => Shape::Mixed,
    }
}

fn collect_shape<'a>(
    g: &Generator<'a>,
    node: &Node<'a>,
    stack: &[String],
    kinds: &mut [bool; 3],
    any: &mut bool,
    depth: usize,
) {
    let Ok(f) = g.flatten(node, stack) else {
        *any = true;
        return;
    };
    if !f.choices.is_empty() && depth < 8 {
        for c in &f.choices {
            for b in &c.branches {
                let mut bk = [false; 3];
                let mut bany = false;
                collect_shape(g, b, stack, &mut bk, &mut bany, depth + 1);
                // A branch narrowed by the parent's type keeps only what the parent allows.
                for (i, k) in bk.iter().enumerate() {
                    kinds[i] |= *k && f.types.as_ref().is_none_or(|ts| kind_allowed(ts, i));
                }
                *any |= bany && f.types.is_none();
            }
        }
        return;
    }
    let types = f.types.clone().or_else(|| infer(&f).map(|t| vec![t]));
    match types {
        None => *any = true,
        Some(ts) => {
            for t in ts {
                match t {
                    "array" => kinds[1] = true,
                    "object" => kinds[2] = true,
                    "null" => {}
                    _ => kinds[0] = true,
                }
            }
        }
    }
}

fn kind_allowed(ts: &[&str], i: usize) -> bool {
    match i {
        1 => ts.contains(&"array"),
        2 => ts.contains(&"object"),
        _ => ts
            .iter()
            .any(|t| !matches!(*t, "array" | "object" | "null")),
    }
}

/// The type a schema without `type` is evidently about, from its keywords.
fn infer(f: &Flat) -> Option<&'static str> {
    if let Some(c) = &f.const_ {
        return Some(json_type(c));
    }
    if let Some(e) = &f.enum_ {
        return e.first().map(json_type);
    }
    if !f.props.is_empty()
        || !f.required.is_empty()
        || !f.closed.is_empty()
        || !f.additional.is_empty()
        || !f.pattern_props.is_empty()
        || f.min_props > 0
    {
        Some("object")
    } else if !f.items.is_empty()
        || !f.prefix.is_empty()
        || f.min_items > 0
        || f.max_items.is_some()
        || f.unique
        || !f.contains.is_empty()
    {
        Some("array")
    } else if !f.patterns.is_empty() || f.min_len > 0 || f.max_len.is_some() || f.format.is_some() {
        match f.format.as_deref() {
            Some("int32" | "int64") if f.patterns.is_empty() && f.max_len.is_none() => {
                Some("integer")
            }
            Some("float" | "double") => Some("number"),
            _ => Some("string"),
        }
    } else if f.min.is_some() || f.max.is_some() || !f.multiple_of.is_empty() {
        Some("number")
    } else {
        None
    }
}

pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "integer"
            } else {
                "number"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether a value's type is among `types` (an integer is a number).
pub(crate) fn type_allowed(types: &[&str], v: &Value) -> bool {
    let t = json_type(v);
    types.contains(&t) || (t == "integer" && types.contains(&"number"))
}

/// How spec examples are used in one attempt.
#[derive(Clone, Copy, PartialEq)]
enum Examples {
    /// Taken as they are (when of an allowed type); the final check judges the whole.
    Trust,
    /// Each validated against its own node first.
    Check,
    /// Not used.
    Off,
}

struct Run<'g, 'a> {
    g: &'g Generator<'a>,
    rng: ChaCha8Rng,
    variant: usize,
    decisions: usize,
    /// `$ref`s followed on the path to the node being made.
    stack: Vec<String>,
    /// Objects and arrays entered on that path.
    nest: usize,
    /// Raised while retrying a duplicate array item, so decisions turn to other options.
    salt: usize,
    examples: Examples,
}

impl<'g, 'a> Run<'g, 'a> {
    fn new(g: &'g Generator<'a>, seed: u64, variant: usize) -> Self {
        Run {
            g,
            rng: ChaCha8Rng::seed_from_u64(seed),
            variant,
            decisions: 0,
            stack: Vec::new(),
            nest: 0,
            salt: 0,
            examples: Examples::Check,
        }
    }

    /// Index of the option to take first among `n`.
    fn decide(&mut self, n: usize) -> usize {
        self.decisions += 1;
        if n == 0 || (self.variant == 0 && self.salt == 0) {
            0
        } else {
            (self.variant + self.decisions + self.salt) % n
        }
    }

    fn wants_example(&mut self) -> bool {
        if self.examples == Examples::Off {
            return false;
        }
        match self.variant {
            0 => true,
            1 => false,
            _ => self.rng.random_bool(0.5),
        }
    }

    fn include_optional(&mut self) -> bool {
        match self.variant {
            0 => self.nest <= 2,
            1 => false,
            _ => self.nest <= 4 && self.rng.random_bool(0.5),
        }
    }

    /// A value valid for all of `nodes` at once.
    fn value(&mut self, nodes: &[Node<'a>]) -> Result<Value, Unsupported> {
        let flat = self.g.flatten_all(nodes, &self.stack)?;
        if let [node] = nodes
            && !flat.examples.is_empty()
            && self.wants_example()
        {
            for ex in &flat.examples {
                let ex = self.strip_hidden(&flat, ex.clone(), 0);
                let fits = match self.examples {
                    Examples::Trust => flat.types.as_ref().is_none_or(|ts| {
                        type_allowed(ts, &ex) || (ex.is_null() && flat.allows_null())
                    }),
                    _ => self.g.is_valid(node, &ex) == Some(true),
                };
                if fits {
                    return Ok(ex);
                }
            }
        }
        let pushed = flat.refs.len();
        self.stack.extend(flat.refs.iter().cloned());
        let r = self.resolved(flat);
        self.stack.truncate(self.stack.len() - pushed);
        r
    }

    /// An example without the properties this direction leaves out.
    fn strip_hidden(&self, f: &Flat<'a>, mut v: Value, depth: usize) -> Value {
        if depth > 6 {
            return v;
        }
        let flag = hidden_flag(self.g.direction);
        match &mut v {
            Value::Object(m) => {
                for (name, nodes) in &f.props {
                    if nodes.iter().any(|n| has_flag(n.v, self.g.doc, flag, 0)) {
                        m.remove(name);
                    } else if let Some(child) = m.remove(name) {
                        let child = match self.g.flatten_all(nodes, &self.stack) {
                            Ok(cf) => self.strip_hidden(&cf, child, depth + 1),
                            Err(_) => child,
                        };
                        m.insert(name.clone(), child);
                    }
                }
            }
            Value::Array(items) if !f.items.is_empty() => {
                if let Ok(cf) = self.g.flatten_all(&f.items, &self.stack) {
                    for item in items.iter_mut() {
                        *item = self.strip_hidden(&cf, std::mem::take(item), depth + 1);
                    }
                }
            }
            _ => {}
        }
        v
    }

    /// A value for a flattened node: its choices decided, then made, then checked against
    /// `oneOf` exactness and `not`.
    fn resolved(&mut self, mut flat: Flat<'a>) -> Result<Value, Unsupported> {
        if let Some((kw, ptr)) = flat.unknown.first() {
            return Err(Unsupported::new(
                ptr,
                format!("keyword `{kw}` is not supported"),
            ));
        }
        if flat.choices.is_empty() {
            return self.with_nots(&flat);
        }
        let choice = flat.choices.remove(0);
        let n = choice.branches.len();
        let group = choice.branches.first().map_or(flat.ptr.clone(), |b| {
            b.ptr
                .rsplit_once('/')
                .map_or(String::new(), |(p, _)| p.to_string())
        });
        if n == 0 {
            return Err(Unsupported::new(
                &group,
                "an empty oneOf/anyOf admits no value",
            ));
        }
        let start = self.decide(n);
        let mut errors: Vec<Unsupported> = Vec::new();
        for i in 0..n {
            let b = (start + i) % n;
            let mut bf = match self.g.flatten(&choice.branches[b], &self.stack) {
                Ok(f) => f,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            bf.examples.clear();
            let brefs = std::mem::take(&mut bf.refs);
            let merged = match merge(flat.clone(), bf) {
                Ok(m) => m,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let attempts = if choice.kind == ChoiceKind::OneOf {
                EXACT_ATTEMPTS
            } else {
                1
            };
            for _ in 0..attempts {
                self.stack.extend(brefs.iter().cloned());
                let made = self.resolved(merged.clone());
                self.stack.truncate(self.stack.len() - brefs.len());
                let v = match made {
                    Ok(v) => self.discriminated(&flat, &choice.branches[b], v),
                    Err(e) => {
                        errors.push(e);
                        break;
                    }
                };
                if choice.kind == ChoiceKind::AnyOf {
                    return Ok(v);
                }
                let others_fail = choice
                    .branches
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != b)
                    .all(|(_, other)| self.g.is_valid(other, &v) == Some(false));
                if others_fail {
                    return Ok(v);
                }
                errors.push(Unsupported::new(
                    &choice.branches[b].ptr,
                    "oneOf: the values made for this branch also match another branch",
                ));
            }
        }
        // The first reason is the most telling: it is the branch tried first.
        Err(errors
            .into_iter()
            .next()
            .unwrap_or_else(|| Unsupported::new(&group, "no branch can be made")))
    }

    /// With an OpenAPI `discriminator`, the value names its branch as a server reading it
    /// expects: the mapping's name for the branch's `$ref`, else the schema's own name
    /// (the spec's default). Kept only if the branch still accepts the value.
    fn discriminated(&self, flat: &Flat<'a>, branch: &Node<'a>, v: Value) -> Value {
        let (Some((prop, mapping)), Value::Object(m)) = (&flat.discriminator, &v) else {
            return v;
        };
        let Some(target) = branch.v.get("$ref").and_then(Value::as_str) else {
            return v;
        };
        let name = mapping
            .iter()
            .find(|(_, r)| r == target)
            .map(|(n, _)| n.clone())
            .unwrap_or_else(|| target.rsplit('/').next().unwrap_or(target).to_string());
        if m.get(prop) == Some(&Value::String(name.clone())) {
            return v;
        }
        let mut named = m.clone();
        named.insert(prop.clone(), Value::String(name));
        let named = Value::Object(named);
        if self.g.is_valid(branch, &named) == Some(true) {
            named
        } else {
            v
        }
    }

    fn with_nots(&mut self, flat: &Flat<'a>) -> Result<Value, Unsupported> {
        for _ in 0..EXACT_ATTEMPTS {
            let v = self.concrete(flat)?;
            if flat
                .nots
                .iter()
                .all(|n| self.g.is_valid(n, &v) == Some(false))
            {
                return Ok(v);
            }
        }
        Err(Unsupported::new(
            &flat.nots[0].ptr,
            "every value made matches the `not` schema",
        ))
    }

    /// A value for a node with no choices left.
    fn concrete(&mut self, f: &Flat<'a>) -> Result<Value, Unsupported> {
        if let Some(c) = &f.const_ {
            return Ok(c.clone());
        }
        if let Some(e) = &f.enum_ {
            let candidates: Vec<&Value> = e
                .iter()
                .filter(|v| f.types.as_ref().is_none_or(|ts| type_allowed(ts, v)))
                .filter(|v| !v.is_null() || f.allows_null() || f.types.is_none())
                .collect();
            if candidates.is_empty() {
                return Err(Unsupported::new(
                    &f.enum_ptr,
                    format!(
                        "no enum value has an allowed type (enum {}, type {:?})",
                        Value::Array(e.clone()),
                        f.types.as_deref().unwrap_or_default()
                    ),
                ));
            }
            let i = self.decide(candidates.len());
            return Ok(candidates[i].clone());
        }
        let ty = self.pick_type(f)?;
        match ty {
            "null" => Ok(Value::Null),
            "boolean" => Ok(Value::Bool(self.rng.random_bool(0.5))),
            "integer" => numbers::integer(f, &mut self.rng),
            "number" => numbers::number(f, &mut self.rng),
            "string" => strings::string(f, &mut self.rng).map(Value::String),
            "array" => self.array(f),
            _ => self.object(f),
        }
    }

    fn pick_type(&mut self, f: &Flat<'a>) -> Result<&'static str, Unsupported> {
        let Some(ts) = &f.types else {
            return Ok(infer(f).unwrap_or("string"));
        };
        let non_null: Vec<&'static str> = ts.iter().copied().filter(|t| *t != "null").collect();
        if non_null.is_empty() {
            return Ok("null");
        }
        if f.allows_null() && self.variant >= 2 && self.rng.random_ratio(1, 4) {
            return Ok("null");
        }
        // Prefer the type the other keywords are about.
        let hinted = infer(f).filter(|h| non_null.contains(h));
        if self.variant == 0
            && let Some(h) = hinted
        {
            return Ok(h);
        }
        let i = self.decide(non_null.len());
        Ok(non_null[i])
    }

    fn array(&mut self, f: &Flat<'a>) -> Result<Value, Unsupported> {
        let ptr = if f.items_ptr.is_empty() {
            &f.ptr
        } else {
            &f.items_ptr
        };
        let lo = f.min_items.max(u64::from(!f.contains.is_empty()));
        let mut hi = f.max_items.unwrap_or(u64::MAX);
        if f.no_more_items {
            hi = hi.min(f.prefix.len() as u64);
        }
        if lo > hi {
            return Err(Unsupported::new(
                ptr,
                format!("minItems {lo} is above maxItems {hi}"),
            ));
        }
        if lo > 10_000 {
            return Err(Unsupported::new(
                ptr,
                format!("minItems {lo} is too many to make"),
            ));
        }
        let want = if self.nest > 4 {
            lo
        } else {
            match self.variant {
                0 => lo.max(1).min(hi),
                1 => lo,
                _ => self.rng.random_range(lo..=hi.min(lo + 3)),
            }
        };
        self.nest += 1;
        let r = self.items(f, lo, want, ptr);
        self.nest -= 1;
        r.map(Value::Array)
    }

    fn items(
        &mut self,
        f: &Flat<'a>,
        lo: u64,
        want: u64,
        ptr: &str,
    ) -> Result<Vec<Value>, Unsupported> {
        let mut out: Vec<Value> = Vec::new();
        let mut duplicates = 0;
        while (out.len() as u64) < want {
            let i = out.len();
            let mut nodes: Vec<Node<'a>> = match f.prefix.get(i) {
                Some(p) => p.clone(),
                None => f.items.clone(),
            };
            if i == 0 {
                nodes.extend(f.contains.iter().cloned());
            }
            let v = if nodes.is_empty() {
                Value::String(format!("item{i}"))
            } else {
                self.salt = duplicates;
                let made = self.value(&nodes);
                self.salt = 0;
                match made {
                    Ok(v) => v,
                    Err(e) => {
                        if out.len() as u64 >= lo && i >= f.prefix.len() {
                            break;
                        }
                        return Err(e);
                    }
                }
            };
            if f.unique && out.contains(&v) {
                duplicates += 1;
                if duplicates > 20 {
                    if out.len() as u64 >= lo {
                        break;
                    }
                    return Err(Unsupported::new(
                        ptr,
                        format!(
                            "uniqueItems: only {} distinct items found, minItems is {lo}",
                            out.len()
                        ),
                    ));
                }
                continue;
            }
            out.push(v);
        }
        Ok(out)
    }

    fn object(&mut self, f: &Flat<'a>) -> Result<Value, Unsupported> {
        self.nest += 1;
        let r = self.properties(f);
        self.nest -= 1;
        r.map(Value::Object)
    }

    fn hidden(&self, nodes: &[Node<'a>]) -> bool {
        let flag = hidden_flag(self.g.direction);
        nodes.iter().any(|n| has_flag(n.v, self.g.doc, flag, 0))
    }

    fn properties(&mut self, f: &Flat<'a>) -> Result<Map<String, Value>, Unsupported> {
        let closed_ptr = if f.closed_ptr.is_empty() {
            &f.ptr
        } else {
            &f.closed_ptr
        };
        let mut out = Map::new();
        for name in &f.required {
            if !f.name_allowed(name) {
                return Err(Unsupported::new(
                    closed_ptr,
                    format!(
                        "required property {name:?} is not allowed by additionalProperties: false"
                    ),
                ));
            }
            let v = match f.props.get(name) {
                Some(nodes) if self.hidden(nodes) => continue,
                Some(nodes) => self.value(nodes)?,
                None => self.unlisted_value(f, name)?,
            };
            out.insert(name.clone(), v);
        }
        let max = f
            .max_props
            .map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
        if out.len() > max {
            return Err(Unsupported::new(
                &f.ptr,
                format!(
                    "{} required properties exceed maxProperties {max}",
                    out.len()
                ),
            ));
        }
        let min = usize::try_from(f.min_props).unwrap_or(usize::MAX);
        for pass in 0..2 {
            for (name, nodes) in &f.props {
                if out.len() >= max || (pass == 1 && out.len() >= min) {
                    break;
                }
                if out.contains_key(name)
                    || f.required.contains(name)
                    || !f.name_allowed(name)
                    || self.hidden(nodes)
                {
                    continue;
                }
                // The second pass adds what minProperties still needs.
                if pass == 0 && !self.include_optional() {
                    continue;
                }
                // An optional property that cannot be made is left out: the object stays valid.
                if let Ok(v) = self.value(nodes) {
                    out.insert(name.clone(), v);
                }
            }
        }
        for (name, deps) in &f.dependent_required {
            if out.contains_key(name) {
                for d in deps {
                    if !out.contains_key(d) {
                        let v = match f.props.get(d) {
                            Some(nodes) => self.value(nodes)?,
                            None => self.unlisted_value(f, d)?,
                        };
                        out.insert(d.clone(), v);
                    }
                }
            }
        }
        // A map (no named properties, a schema for the rest) gets an entry unless minimal.
        let map_like =
            f.props.is_empty() && (!f.additional.is_empty() || !f.pattern_props.is_empty());
        let wanted = if map_like && self.variant != 1 && self.nest <= 4 {
            min.max(1)
        } else {
            min
        };
        let mut index = 0;
        while out.len() < wanted.min(max) {
            index += 1;
            if index > 64 {
                return Err(Unsupported::new(
                    &f.ptr,
                    format!("minProperties {min}: not enough distinct property names found"),
                ));
            }
            match self.extra(f, index) {
                Ok(Some((k, v))) => {
                    if !out.contains_key(&k) {
                        out.insert(k, v);
                    }
                }
                Ok(None) if out.len() >= min => break,
                Ok(None) => {
                    return Err(Unsupported::new(
                        closed_ptr,
                        format!(
                            "minProperties {min} needs more properties than additionalProperties: false allows"
                        ),
                    ));
                }
                Err(e) if out.len() >= min => {
                    let _ = e;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// The value of a property named (required, say) but not declared.
    fn unlisted_value(&mut self, f: &Flat<'a>, name: &str) -> Result<Value, Unsupported> {
        let matching: Vec<Node<'a>> = f
            .pattern_props
            .iter()
            .filter(|(p, _)| crate::ecma::matches(p, name).unwrap_or(false))
            .map(|(_, n)| n.clone())
            .collect();
        if !matching.is_empty() {
            return self.value(&matching);
        }
        if !f.additional.is_empty() {
            return self.value(&f.additional.clone());
        }
        Ok(Value::String("value".into()))
    }

    /// One more property beyond the declared ones: `None` when none may be added.
    fn extra(
        &mut self,
        f: &Flat<'a>,
        index: usize,
    ) -> Result<Option<(String, Value)>, Unsupported> {
        if let Some((p, node)) = f.pattern_props.first() {
            let key_flat = Flat {
                patterns: vec![(p.clone(), node.ptr.clone())],
                ..Flat::at(&node.ptr)
            };
            let key = strings::string(&key_flat, &mut self.rng)?;
            if f.props.contains_key(&key) || !f.name_allowed(&key) {
                return Ok(None);
            }
            let v = self.unlisted_value(f, &key)?;
            return Ok(Some((key, v)));
        }
        if !f.closed.is_empty() {
            return Ok(None);
        }
        let key = if f.property_names.is_empty() {
            format!("key{index}")
        } else {
            match self.value(&f.property_names.clone())? {
                Value::String(s) => s,
                _ => return Ok(None),
            }
        };
        if f.props.contains_key(&key) {
            return Ok(None);
        }
        let v = self.unlisted_value(f, &key)?;
        Ok(Some((key, v)))
    }
}
