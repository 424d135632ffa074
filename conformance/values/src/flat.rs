//! A schema node with its references followed and its `allOf` parts merged into one set of
//! constraints (a [`Flat`]), the form values are generated from. `oneOf`/`anyOf` stay as
//! choices and `not` as a list, decided when a value is made.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::pointer::child;
use crate::{Generator, Unsupported};

/// A schema and where it is (RFC 6901 pointer, absolute in the document once a `$ref` was
/// followed).
#[derive(Clone, Debug)]
pub(crate) struct Node<'a> {
    pub v: &'a Value,
    pub ptr: String,
}

impl<'a> Node<'a> {
    pub fn new(v: &'a Value, ptr: impl Into<String>) -> Node<'a> {
        Node { v, ptr: ptr.into() }
    }
    pub fn at(&self, v: &'a Value, key: &str) -> Node<'a> {
        Node::new(v, child(&self.ptr, key))
    }
}

/// A numeric bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bound {
    pub v: f64,
    /// The exact value when it is an integer.
    pub int: Option<i128>,
    pub exclusive: bool,
}

impl Bound {
    fn of(n: &Value, exclusive: bool) -> Option<Bound> {
        let v = n.as_f64()?;
        let int = n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| (v.fract() == 0.0 && v.abs() < 1e30).then_some(v as i128));
        Some(Bound { v, int, exclusive })
    }
}

/// `oneOf` or `anyOf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChoiceKind {
    OneOf,
    AnyOf,
}

/// One `oneOf`/`anyOf` of a node.
#[derive(Clone, Debug)]
pub(crate) struct Choice<'a> {
    pub kind: ChoiceKind,
    pub branches: Vec<Node<'a>>,
}

/// A part's `additionalProperties: false`: only these names (or names matching these
/// patterns) may appear.
#[derive(Clone, Debug)]
pub(crate) struct Closed {
    pub names: Vec<String>,
    pub patterns: Vec<String>,
}

/// The merged constraints of one node.
#[derive(Clone, Debug, Default)]
pub(crate) struct Flat<'a> {
    pub ptr: String,
    /// Allowed JSON types (`integer` distinct from `number`); `None` when unconstrained.
    pub types: Option<Vec<&'static str>>,
    pub type_ptr: String,
    pub enum_: Option<Vec<Value>>,
    pub enum_ptr: String,
    pub const_: Option<Value>,
    pub const_ptr: String,
    pub min_len: u64,
    pub max_len: Option<u64>,
    pub len_ptr: String,
    /// Patterns, each with the pointer of its node.
    pub patterns: Vec<(String, String)>,
    pub format: Option<String>,
    pub format_ptr: String,
    pub min: Option<Bound>,
    pub max: Option<Bound>,
    pub range_ptr: String,
    pub multiple_of: Vec<f64>,
    pub items: Vec<Node<'a>>,
    /// Position-wise schemas of `prefixItems`.
    pub prefix: Vec<Vec<Node<'a>>>,
    /// `items: false` after `prefixItems`: no more items.
    pub no_more_items: bool,
    pub contains: Vec<Node<'a>>,
    pub min_items: u64,
    pub max_items: Option<u64>,
    pub items_ptr: String,
    pub unique: bool,
    pub props: IndexMap<String, Vec<Node<'a>>>,
    pub required: Vec<String>,
    pub required_ptr: String,
    pub closed: Vec<Closed>,
    pub closed_ptr: String,
    pub additional: Vec<Node<'a>>,
    pub pattern_props: Vec<(String, Node<'a>)>,
    pub property_names: Vec<Node<'a>>,
    pub min_props: u64,
    pub max_props: Option<u64>,
    pub dependent_required: Vec<(String, Vec<String>)>,
    pub read_only: bool,
    pub write_only: bool,
    pub choices: Vec<Choice<'a>>,
    pub nots: Vec<Node<'a>>,
    /// OpenAPI `discriminator`: the property naming the branch, and its explicit mapping
    /// (name → `$ref`).
    pub discriminator: Option<(String, Vec<(String, String)>)>,
    /// Spec examples and defaults, in the order to try them.
    pub examples: Vec<Value>,
    /// `$ref`s followed to build this node (for the recursion budget of its children).
    pub refs: Vec<String>,
    /// Keywords seen that this generator does not honour (kept to refuse, not ignore).
    pub unknown: Vec<(String, String)>,
}

/// Keywords with no effect on which values are valid (annotations and OpenAPI extras).
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "example",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "xml",
    "externalDocs",
    "discriminator",
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$defs",
    "definitions",
    "nullable",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "$dynamicAnchor",
];

impl Generator<'_> {
    /// Follows `node`'s references and merges its `allOf`, with `stack` the references
    /// already followed on this path.
    pub(crate) fn flatten<'a>(
        &self,
        node: &Node<'a>,
        stack: &[String],
    ) -> Result<Flat<'a>, Unsupported>
    where
        Self: 'a,
    {
        self.flatten_inner(node, stack, 0)
    }

    /// The conjunction of several nodes (a property declared by more than one `allOf` part).
    pub(crate) fn flatten_all<'a>(
        &self,
        nodes: &[Node<'a>],
        stack: &[String],
    ) -> Result<Flat<'a>, Unsupported>
    where
        Self: 'a,
    {
        let mut out: Option<Flat<'a>> = None;
        for n in nodes {
            let f = self.flatten(n, stack)?;
            out = Some(match out {
                None => f,
                Some(acc) => merge(acc, f)?,
            });
        }
        Ok(out.unwrap_or_default())
    }

    fn flatten_inner<'a>(
        &self,
        node: &Node<'a>,
        stack: &[String],
        local: usize,
    ) -> Result<Flat<'a>, Unsupported>
    where
        Self: 'a,
    {
        let doc: &'a Value = self.doc_ref();
        if local > 64 {
            return Err(Unsupported::new(
                &node.ptr,
                "allOf/$ref nesting deeper than 64",
            ));
        }
        let map = match node.v {
            Value::Bool(true) => return Ok(Flat::at(&node.ptr)),
            Value::Bool(false) => {
                return Err(Unsupported::new(
                    &node.ptr,
                    "the `false` schema admits no value",
                ));
            }
            Value::Object(m) => m,
            _ => {
                return Err(Unsupported::new(
                    &node.ptr,
                    "a schema must be an object or a boolean",
                ));
            }
        };
        if let Some(r) = map.get("$ref") {
            let r = r
                .as_str()
                .ok_or_else(|| Unsupported::new(&node.ptr, "$ref is not a string"))?;
            let Some(target_ptr) = r.strip_prefix('#') else {
                return Err(Unsupported::new(
                    &node.ptr,
                    format!("$ref {r} points outside the document"),
                ));
            };
            let target_ptr = percent_decode(target_ptr);
            let Some(target) = doc.pointer(&target_ptr) else {
                return Err(Unsupported::new(
                    &node.ptr,
                    format!("$ref {r} does not resolve"),
                ));
            };
            let seen = stack.iter().filter(|s| **s == target_ptr).count();
            if stack.len() >= self.max_depth || seen >= 2 {
                return Err(Unsupported::new(
                    &target_ptr,
                    format!(
                        "recursion: {r} is needed past the depth limit ({} references, {seen} of them to itself)",
                        stack.len()
                    ),
                ));
            }
            let mut deeper = stack.to_vec();
            deeper.push(target_ptr.clone());
            let mut f =
                self.flatten_inner(&Node::new(target, target_ptr.clone()), &deeper, local + 1)?;
            f.refs.insert(0, target_ptr);
            let flag_only = |k: &str| k == "readOnly" || k == "writeOnly";
            if self.dialect == Dialect::OpenApi31 {
                let mut rest = map.clone();
                rest.remove("$ref");
                if rest.keys().any(|k| !ANNOTATIONS.contains(&k.as_str())) {
                    let siblings = self.own(node, &rest, stack, local)?;
                    f = merge(siblings, f)?;
                } else {
                    f.read_only |= rest.get("readOnly") == Some(&Value::Bool(true));
                    f.write_only |= rest.get("writeOnly") == Some(&Value::Bool(true));
                }
            } else {
                for (k, v) in map {
                    if flag_only(k) && v == &Value::Bool(true) {
                        if k == "readOnly" {
                            f.read_only = true;
                        } else {
                            f.write_only = true;
                        }
                    }
                }
            }
            // The referring node's own examples come first.
            let mut ex = examples_of(map);
            ex.append(&mut f.examples);
            f.examples = ex;
            f.ptr = node.ptr.clone();
            return Ok(f);
        }
        self.own(node, map, stack, local)
    }

    /// A node without `$ref`: its keywords, merged with its `allOf` parts.
    fn own<'a>(
        &self,
        node: &Node<'a>,
        map: &Map<String, Value>,
        stack: &[String],
        local: usize,
    ) -> Result<Flat<'a>, Unsupported>
    where
        Self: 'a,
    {
        // `map` may be a copy (3.1 `$ref` siblings), so subschemas are taken from the node.
        let src: &'a Map<String, Value> = match node.v {
            Value::Object(m) => m,
            _ => unreachable!("own() is called on objects"),
        };
        let mut f = Flat::at(&node.ptr);
        let ptr = &node.ptr;
        own_types(&mut f, map, ptr, self.dialect)?;
        own_scalars(&mut f, map, ptr)?;
        own_arrays(&mut f, node, src, map, ptr);
        own_objects(&mut f, node, src, map, ptr);
        own_annotations_and_choices(&mut f, node, src, map, ptr);
        if let Some(Value::Array(parts)) = src.get("allOf") {
            let base = child(ptr, "allOf");
            for (i, p) in parts.iter().enumerate() {
                let part = Node::new(p, child(&base, &i.to_string()));
                let mut pf = self.flatten_inner(&part, stack, local + 1)?;
                // Examples of one part need not fit the whole.
                pf.examples.clear();
                f = merge(f, pf)?;
            }
        }
        Ok(f)
    }

    fn doc_ref<'a>(&self) -> &'a Value
    where
        Self: 'a,
    {
        self.doc
    }
}

/// `type` (with 3.0's `nullable`), `enum` and `const` of a node's own keywords.
fn own_types(
    f: &mut Flat<'_>,
    map: &Map<String, Value>,
    ptr: &str,
    dialect: Dialect,
) -> Result<(), Unsupported> {
    // Types.
    if map.contains_key("type") {
        f.type_ptr = ptr.to_string();
    }
    match map.get("type") {
        Some(Value::String(t)) => f.types = Some(vec![type_name(t, ptr)?]),
        Some(Value::Array(ts)) => {
            let mut v = Vec::new();
            for t in ts {
                v.push(type_name(t.as_str().unwrap_or(""), ptr)?);
            }
            f.types = Some(v);
        }
        Some(_) => {
            return Err(Unsupported::new(
                ptr,
                "`type` is neither a string nor an array",
            ));
        }
        None => {}
    }
    if dialect == Dialect::OpenApi30
        && map.get("nullable") == Some(&Value::Bool(true))
        && let Some(ts) = &mut f.types
        && !ts.contains(&"null")
    {
        ts.push("null");
    }
    if let Some(Value::Array(e)) = map.get("enum") {
        if dialect == Dialect::OpenApi30 && crate::dialect::null_only(e) {
            // See `dialect`: 3.0's only way to say "null", whatever `type` it names.
            f.types = Some(vec!["null"]);
        }
        f.enum_ = Some(e.clone());
        f.enum_ptr = ptr.to_string();
    }
    if let Some(c) = map.get("const") {
        f.const_ = Some(c.clone());
        f.const_ptr = ptr.to_string();
    }
    Ok(())
}

/// The string and number keywords of a node's own keywords: lengths, patterns,
/// format, bounds and `multipleOf`.
fn own_scalars(f: &mut Flat<'_>, map: &Map<String, Value>, ptr: &str) -> Result<(), Unsupported> {
    // Strings.
    if let Some(n) = map.get("minLength").and_then(Value::as_u64) {
        f.min_len = n;
        f.len_ptr = ptr.to_string();
    }
    if let Some(n) = map.get("maxLength").and_then(Value::as_u64) {
        f.max_len = Some(n);
        f.len_ptr = ptr.to_string();
    }
    if let Some(p) = map.get("pattern").and_then(Value::as_str) {
        f.patterns.push((p.to_string(), ptr.to_string()));
    }
    if let Some(fm) = map.get("format").and_then(Value::as_str) {
        f.format = Some(fm.to_string());
        f.format_ptr = ptr.to_string();
    }
    // Numbers: 3.0's boolean exclusive flags and 3.1's numeric bounds alike.
    let excl_min = map.get("exclusiveMinimum");
    let excl_max = map.get("exclusiveMaximum");
    if let Some(m) = map.get("minimum") {
        f.min = Bound::of(m, excl_min == Some(&Value::Bool(true)));
    }
    if let Some(m) = map.get("maximum") {
        f.max = Bound::of(m, excl_max == Some(&Value::Bool(true)));
    }
    if let Some(b) = excl_min
        .filter(|v| v.is_number())
        .and_then(|v| Bound::of(v, true))
    {
        f.min = tighter_min(f.min, Some(b));
    }
    if let Some(b) = excl_max
        .filter(|v| v.is_number())
        .and_then(|v| Bound::of(v, true))
    {
        f.max = tighter_max(f.max, Some(b));
    }
    if f.min.is_some() || f.max.is_some() {
        f.range_ptr = ptr.to_string();
    }
    if let Some(m) = map.get("multipleOf").and_then(Value::as_f64) {
        if m <= 0.0 {
            return Err(Unsupported::new(ptr, "multipleOf must be positive"));
        }
        f.multiple_of.push(m);
    }
    Ok(())
}

/// The array keywords of a node's own keywords: item schemas (both tuple forms),
/// `contains` and the item counts.
fn own_arrays<'a>(
    f: &mut Flat<'a>,
    node: &Node<'a>,
    src: &'a Map<String, Value>,
    map: &Map<String, Value>,
    ptr: &str,
) {
    // Arrays.
    match src.get("items") {
        Some(v @ (Value::Object(_) | Value::Bool(true))) => f.items.push(node.at(v, "items")),
        Some(Value::Bool(false)) => f.no_more_items = true,
        Some(Value::Array(list)) => {
            // Draft 4 tuple form.
            let base = child(ptr, "items");
            f.prefix = list
                .iter()
                .enumerate()
                .map(|(i, s)| vec![Node::new(s, child(&base, &i.to_string()))])
                .collect();
            match src.get("additionalItems") {
                Some(Value::Bool(false)) => f.no_more_items = true,
                Some(v @ Value::Object(_)) => f.items.push(node.at(v, "additionalItems")),
                _ => {}
            }
        }
        _ => {}
    }
    if let Some(Value::Array(list)) = src.get("prefixItems") {
        let base = child(ptr, "prefixItems");
        f.prefix = list
            .iter()
            .enumerate()
            .map(|(i, s)| vec![Node::new(s, child(&base, &i.to_string()))])
            .collect();
    }
    if let Some(c) = src.get("contains") {
        f.contains.push(node.at(c, "contains"));
    }
    if let Some(n) = map.get("minItems").and_then(Value::as_u64) {
        f.min_items = n;
        f.items_ptr = ptr.to_string();
    }
    if let Some(n) = map.get("maxItems").and_then(Value::as_u64) {
        f.max_items = Some(n);
        f.items_ptr = ptr.to_string();
    }
    f.unique = map.get("uniqueItems") == Some(&Value::Bool(true));
}

/// The object keywords of a node's own keywords: properties, `required`, pattern and
/// additional properties, property names and counts, `dependentRequired`.
fn own_objects<'a>(
    f: &mut Flat<'a>,
    node: &Node<'a>,
    src: &'a Map<String, Value>,
    map: &Map<String, Value>,
    ptr: &str,
) {
    // Objects.
    if let Some(Value::Object(props)) = src.get("properties") {
        let base = child(ptr, "properties");
        for (name, s) in props {
            f.props
                .entry(name.clone())
                .or_default()
                .push(Node::new(s, child(&base, name)));
        }
    }
    if let Some(Value::Array(req)) = map.get("required") {
        for r in req.iter().filter_map(Value::as_str) {
            if !f.required.iter().any(|x| x == r) {
                f.required.push(r.to_string());
            }
        }
        f.required_ptr = ptr.to_string();
    }
    let patterns: Vec<String> = src
        .get("patternProperties")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(Value::Object(pp)) = src.get("patternProperties") {
        let base = child(ptr, "patternProperties");
        for (p, s) in pp {
            f.pattern_props
                .push((p.clone(), Node::new(s, child(&base, p))));
        }
    }
    match src.get("additionalProperties") {
        Some(Value::Bool(false)) => {
            f.closed.push(Closed {
                names: f.props.keys().cloned().collect(),
                patterns,
            });
            f.closed_ptr = ptr.to_string();
        }
        Some(v @ Value::Object(_)) => f.additional.push(node.at(v, "additionalProperties")),
        _ => {}
    }
    if let Some(pn) = src.get("propertyNames") {
        f.property_names.push(node.at(pn, "propertyNames"));
    }
    if let Some(n) = map.get("minProperties").and_then(Value::as_u64) {
        f.min_props = n;
    }
    if let Some(n) = map.get("maxProperties").and_then(Value::as_u64) {
        f.max_props = Some(n);
    }
    if let Some(Value::Object(dr)) = map.get("dependentRequired") {
        for (k, v) in dr {
            let names = v
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect();
            f.dependent_required.push((k.clone(), names));
        }
    }
}

/// The rest of a node's own keywords: read/write-only, examples, the discriminator,
/// `oneOf`/`anyOf`/`not`, and the keywords the generator does not handle (noted).
fn own_annotations_and_choices<'a>(
    f: &mut Flat<'a>,
    node: &Node<'a>,
    src: &'a Map<String, Value>,
    map: &Map<String, Value>,
    ptr: &str,
) {
    f.read_only = map.get("readOnly") == Some(&Value::Bool(true));
    f.write_only = map.get("writeOnly") == Some(&Value::Bool(true));
    f.examples = examples_of(map);
    let disc = map.get("discriminator");
    if let Some(name) = disc
        .and_then(|d| d.get("propertyName"))
        .and_then(Value::as_str)
    {
        let mapping = disc
            .and_then(|d| d.get("mapping"))
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
            .collect();
        f.discriminator = Some((name.to_string(), mapping));
    }
    for (kw, kind) in [("oneOf", ChoiceKind::OneOf), ("anyOf", ChoiceKind::AnyOf)] {
        if let Some(Value::Array(bs)) = src.get(kw) {
            let base = child(ptr, kw);
            f.choices.push(Choice {
                kind,
                branches: bs
                    .iter()
                    .enumerate()
                    .map(|(i, b)| Node::new(b, child(&base, &i.to_string())))
                    .collect(),
            });
        }
    }
    if let Some(n) = src.get("not") {
        f.nots.push(node.at(n, "not"));
    }
    for kw in [
        "if",
        "dependentSchemas",
        "dependencies",
        "unevaluatedProperties",
        "unevaluatedItems",
        "$dynamicRef",
        "minContains",
        "maxContains",
    ] {
        if map.contains_key(kw) {
            f.unknown.push((kw.to_string(), ptr.to_string()));
        }
    }
}

impl Flat<'_> {
    pub(crate) fn at(ptr: &str) -> Self {
        Flat {
            ptr: ptr.to_string(),
            ..Flat::default()
        }
    }

    /// Whether `null` is an allowed type.
    pub(crate) fn allows_null(&self) -> bool {
        self.types.as_ref().is_some_and(|t| t.contains(&"null"))
            && self.enum_.as_ref().is_none_or(|e| e.contains(&Value::Null))
            && self.const_.as_ref().is_none_or(Value::is_null)
    }

    /// Whether a property name may appear, given every `additionalProperties: false`.
    pub(crate) fn name_allowed(&self, name: &str) -> bool {
        self.closed.iter().all(|c| {
            c.names.iter().any(|n| n == name)
                || c.patterns
                    .iter()
                    .any(|p| crate::ecma::matches(p, name).unwrap_or(false))
        })
    }
}

fn examples_of(map: &Map<String, Value>) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(e) = map.get("example") {
        out.push(e.clone());
    }
    if let Some(Value::Array(es)) = map.get("examples") {
        out.extend(es.iter().cloned());
    }
    if let Some(d) = map.get("default") {
        out.push(d.clone());
    }
    out
}

fn type_name(t: &str, ptr: &str) -> Result<&'static str, Unsupported> {
    Ok(match t {
        "string" => "string",
        "integer" => "integer",
        "number" => "number",
        "boolean" => "boolean",
        "object" => "object",
        "array" => "array",
        "null" => "null",
        other => return Err(Unsupported::new(ptr, format!("unknown type {other:?}"))),
    })
}

/// A URI fragment's `%XX` escapes decoded.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn tighter_min(a: Option<Bound>, b: Option<Bound>) -> Option<Bound> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.v > x.v || (y.v == x.v && y.exclusive) {
            y
        } else {
            x
        }),
        (x, None) => x,
        (None, y) => y,
    }
}

fn tighter_max(a: Option<Bound>, b: Option<Bound>) -> Option<Bound> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.v < x.v || (y.v == x.v && y.exclusive) {
            y
        } else {
            x
        }),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The conjunction of two flattened nodes (an `allOf`, or a branch taken with its parent).
pub(crate) fn merge<'a>(mut a: Flat<'a>, b: Flat<'a>) -> Result<Flat<'a>, Unsupported> {
    let ptr = a.ptr.clone();
    if a.type_ptr.is_empty() {
        a.type_ptr = b.type_ptr.clone();
    }
    a.types = match (a.types.take(), b.types) {
        (Some(x), Some(y)) => {
            let mut out: Vec<&'static str> = Vec::new();
            for t in &x {
                let keep = if y.contains(t) {
                    Some(*t)
                } else if (*t == "integer" && y.contains(&"number"))
                    || (*t == "number" && y.contains(&"integer"))
                {
                    // Every integer is a number: the intersection is the integers.
                    Some("integer")
                } else {
                    None
                };
                if let Some(k) = keep
                    && !out.contains(&k)
                {
                    out.push(k);
                }
            }
            if out.is_empty() {
                return Err(Unsupported::new(
                    &ptr,
                    format!("allOf: types {x:?} and {y:?} have no value in common"),
                ));
            }
            Some(out)
        }
        (x, None) => x,
        (None, y) => y,
    };
    a.enum_ = match (a.enum_.take(), b.enum_) {
        (Some(x), Some(y)) => {
            let both: Vec<Value> = x.into_iter().filter(|v| y.contains(v)).collect();
            if both.is_empty() {
                return Err(Unsupported::new(
                    &ptr,
                    "allOf: the enums have no value in common",
                ));
            }
            Some(both)
        }
        (x, None) => x,
        (None, y) => {
            a.enum_ptr = b.enum_ptr;
            y
        }
    };
    match (&a.const_, b.const_) {
        (Some(x), Some(y)) if *x != y => {
            return Err(Unsupported::new(
                &ptr,
                "allOf: two different `const` values",
            ));
        }
        (None, Some(y)) => {
            a.const_ = Some(y);
            a.const_ptr = b.const_ptr;
        }
        _ => {}
    }
    if b.min_len > a.min_len || b.max_len.is_some() {
        a.len_ptr = b.len_ptr.clone();
    }
    a.min_len = a.min_len.max(b.min_len);
    a.max_len = min_opt(a.max_len, b.max_len);
    a.patterns.extend(b.patterns);
    a.patterns.dedup_by(|x, y| x.0 == y.0);
    match (&a.format, b.format) {
        (Some(x), Some(y)) if *x != y => {
            return Err(Unsupported::new(
                &ptr,
                format!("allOf: formats {x:?} and {y:?} together"),
            ));
        }
        (None, Some(y)) => {
            a.format = Some(y);
            a.format_ptr = b.format_ptr;
        }
        _ => {}
    }
    if b.min.is_some() || b.max.is_some() {
        a.range_ptr = b.range_ptr;
    }
    a.min = tighter_min(a.min, b.min);
    a.max = tighter_max(a.max, b.max);
    for m in b.multiple_of {
        if !a.multiple_of.contains(&m) {
            a.multiple_of.push(m);
        }
    }
    a.items.extend(b.items);
    if !b.prefix.is_empty() {
        for (i, nodes) in b.prefix.into_iter().enumerate() {
            if i < a.prefix.len() {
                a.prefix[i].extend(nodes);
            } else {
                a.prefix.push(nodes);
            }
        }
    }
    a.no_more_items |= b.no_more_items;
    a.contains.extend(b.contains);
    if b.min_items > a.min_items || b.max_items.is_some() {
        a.items_ptr = b.items_ptr;
    }
    a.min_items = a.min_items.max(b.min_items);
    a.max_items = min_opt(a.max_items, b.max_items);
    a.unique |= b.unique;
    for (name, nodes) in b.props {
        a.props.entry(name).or_default().extend(nodes);
    }
    for r in b.required {
        if !a.required.contains(&r) {
            a.required.push(r);
        }
    }
    if a.required_ptr.is_empty() {
        a.required_ptr = b.required_ptr;
    }
    if !b.closed.is_empty() {
        a.closed_ptr = b.closed_ptr;
    }
    a.closed.extend(b.closed);
    a.additional.extend(b.additional);
    a.pattern_props.extend(b.pattern_props);
    a.property_names.extend(b.property_names);
    a.min_props = a.min_props.max(b.min_props);
    a.max_props = min_opt(a.max_props, b.max_props);
    a.dependent_required.extend(b.dependent_required);
    a.read_only |= b.read_only;
    a.write_only |= b.write_only;
    a.choices.extend(b.choices);
    a.nots.extend(b.nots);
    if a.discriminator.is_none() {
        a.discriminator = b.discriminator;
    }
    a.examples.extend(b.examples);
    a.refs.extend(b.refs);
    a.unknown.extend(b.unknown);
    Ok(a)
}

fn min_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}
