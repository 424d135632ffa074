//! Invalid values by mutation: a valid value with one defect, for each place in it where
//! the schema constrains something. Each candidate is checked against the schema and
//! dropped if it still validates (a defect another `oneOf` branch accepts, say), so every
//! mutation offered is truly invalid.

use serde_json::{Map, Value, json};

use crate::dialect::{has_flag, hidden_flag};
use crate::flat::{Flat, Node, merge};
use crate::generate::{json_type, type_allowed};
use crate::pointer::child;
use crate::{Generator, numbers};

/// The kind of defect a mutation introduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MutationKind {
    /// A value of a type the schema does not allow (never `null` where null is allowed).
    WrongType,
    /// A required property removed.
    RequiredMissing,
    /// A number below `minimum` (or at an exclusive one), or below an `int32`/`int64` range.
    BelowMinimum,
    /// A number above `maximum` (or at an exclusive one), or above an `int32`/`int64` range.
    AboveMaximum,
    /// A string shorter than `minLength`.
    TooShort,
    /// A string longer than `maxLength`.
    TooLong,
    /// An array with fewer items than `minItems`.
    TooFewItems,
    /// An array with more items than `maxItems`.
    TooManyItems,
    /// A value outside the `enum`.
    NotInEnum,
    /// A string that does not have its `format`.
    FormatBroken,
    /// A string that does not match its `pattern`.
    PatternBroken,
    /// A property that `additionalProperties: false` forbids.
    ExtraProperty,
    /// A value other than the `const`.
    ConstBroken,
}

/// A valid value with one defect.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    /// What is wrong with it.
    pub kind: MutationKind,
    /// The JSON Schema keyword expected to reject it (`type`, `required`, `minimum`, ...).
    pub keyword: &'static str,
    /// JSON pointer of the schema node whose keyword it breaks.
    pub pointer: String,
    /// JSON pointer, in the value, of the defective part (for `required` and
    /// `additionalProperties`, the object).
    pub instance_path: String,
    /// The whole mutated value.
    pub value: Value,
    /// A short description for reports, e.g. `"/age": 17 below minimum 18`.
    pub description: String,
}

/// A defect at one place, before it is applied to the whole value.
struct Defect {
    kind: MutationKind,
    keyword: &'static str,
    pointer: String,
    /// Where in the value the replacement goes.
    at: String,
    /// The replacement (`None`: remove what is at `at`).
    replacement: Option<Value>,
    /// Where the validator reports it (the parent object for required/additional).
    reported_at: String,
    description: String,
    /// What tells two defects of one node apart (the property left out), at the end of
    /// the description.
    detail: String,
}

pub(crate) fn mutations<'a>(
    g: &Generator<'a>,
    schema: &'a Value,
    ptr: &str,
    valid: &Value,
) -> Vec<Mutation> {
    let mut defects = Vec::new();
    let walker = Walker { g };
    let root = Node::new(schema, ptr);
    walker.walk(
        std::slice::from_ref(&root),
        valid,
        "",
        &mut Vec::new(),
        &mut defects,
        0,
    );
    let mut out: Vec<Mutation> = Vec::new();
    for d in defects {
        // One mutation per defect of a schema node: a node met many times in one value
        // (the items of an array, a shared component) is broken once.
        if out.iter().any(|m| {
            m.kind == d.kind && m.pointer == d.pointer && m.description.ends_with(&d.detail)
        }) {
            continue;
        }
        let mut value = valid.clone();
        if !apply(&mut value, &d.at, d.replacement.clone()) {
            continue;
        }
        // Only what the schema truly rejects.
        if g.is_valid(&root, &value) != Some(false) {
            continue;
        }
        out.push(Mutation {
            kind: d.kind,
            keyword: d.keyword,
            pointer: d.pointer,
            instance_path: d.reported_at,
            value,
            description: d.description,
        });
    }
    out
}

/// Puts `replacement` at `at` (or removes what is there).
fn apply(root: &mut Value, at: &str, replacement: Option<Value>) -> bool {
    if at.is_empty() {
        match replacement {
            Some(v) => {
                *root = v;
                return true;
            }
            None => return false,
        }
    }
    let (parent, last) = at.rsplit_once('/').unwrap_or(("", at));
    let last = last.replace("~1", "/").replace("~0", "~");
    let Some(p) = root.pointer_mut(parent) else {
        return false;
    };
    match (p, replacement) {
        (Value::Object(m), Some(v)) => {
            m.insert(last, v);
            true
        }
        (Value::Object(m), None) => m.remove(&last).is_some(),
        (Value::Array(a), Some(v)) => match last.parse::<usize>() {
            Ok(i) if i < a.len() => {
                a[i] = v;
                true
            }
            Ok(i) if i == a.len() => {
                a.push(v);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

struct Walker<'g, 'a> {
    g: &'g Generator<'a>,
}

impl<'a> Walker<'_, 'a> {
    fn walk(
        &self,
        nodes: &[Node<'a>],
        value: &Value,
        path: &str,
        stack: &mut Vec<String>,
        out: &mut Vec<Defect>,
        depth: usize,
    ) {
        if depth > 12 {
            return;
        }
        let Ok(mut f) = self.g.flatten_all(nodes, stack) else {
            return;
        };
        // Follow the branch the value takes (the first it validates against).
        let mut rounds = 0;
        while !f.choices.is_empty() && rounds < 8 {
            rounds += 1;
            let choice = f.choices.remove(0);
            let Some(branch) = choice
                .branches
                .iter()
                .find(|b| self.g.is_valid(b, value) == Some(true))
            else {
                return;
            };
            let Ok(bf) = self.g.flatten(branch, stack) else {
                return;
            };
            let Ok(m) = merge(f, bf) else {
                return;
            };
            f = m;
        }
        let pushed = f.refs.len();
        stack.extend(f.refs.iter().cloned());
        self.here(&f, value, path, out);
        match value {
            Value::Object(m) => self.properties(&f, m, path, stack, out, depth),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut nodes: Vec<Node<'a>> =
                        f.prefix.get(i).cloned().unwrap_or_else(|| f.items.clone());
                    if i == 0 && items.len() == 1 {
                        nodes.extend(f.contains.iter().cloned());
                    }
                    if !nodes.is_empty() {
                        self.walk(
                            &nodes,
                            item,
                            &child(path, &i.to_string()),
                            stack,
                            out,
                            depth + 1,
                        );
                    }
                }
            }
            _ => {}
        }
        stack.truncate(stack.len() - pushed);
    }

    fn properties(
        &self,
        f: &Flat<'a>,
        m: &Map<String, Value>,
        path: &str,
        stack: &mut Vec<String>,
        out: &mut Vec<Defect>,
        depth: usize,
    ) {
        for (k, v) in m {
            let mut nodes: Vec<Node<'a>> = f.props.get(k).cloned().unwrap_or_default();
            nodes.extend(
                f.pattern_props
                    .iter()
                    .filter(|(p, _)| crate::ecma::matches(p, k).unwrap_or(false))
                    .map(|(_, n)| n.clone()),
            );
            if nodes.is_empty() {
                nodes.extend(f.additional.iter().cloned());
            }
            if !nodes.is_empty() {
                self.walk(&nodes, v, &child(path, k), stack, out, depth + 1);
            }
        }
    }

    /// Defects of the value at `path` itself.
    fn here(&self, f: &Flat<'a>, value: &Value, path: &str, out: &mut Vec<Defect>) {
        let node = |p: &str| {
            if p.is_empty() {
                f.ptr.clone()
            } else {
                p.to_string()
            }
        };
        let mut push = |kind, keyword, pointer: String, replacement: Value, what: String| {
            out.push(Defect {
                kind,
                keyword,
                pointer,
                at: path.to_string(),
                description: format!("{}: {what}", if path.is_empty() { "/" } else { path }),
                replacement: Some(replacement),
                reported_at: path.to_string(),
                detail: String::new(),
            });
        };
        if let Some(ts) = &f.types {
            let candidates = [
                json!(12345),
                json!(true),
                json!("not-a-value"),
                json!({}),
                json!([]),
            ];
            if let Some(c) = candidates.iter().find(|c| !type_allowed(ts, c)) {
                push(
                    MutationKind::WrongType,
                    "type",
                    node(&f.type_ptr),
                    c.clone(),
                    format!("{} where {} is expected", json_type(c), ts.join(" or ")),
                );
            }
        }
        if let Some(c) = &f.const_ {
            let other = differing(c, &[]);
            push(
                MutationKind::ConstBroken,
                "const",
                node(&f.const_ptr),
                other,
                format!("not the const {c}"),
            );
        }
        if let Some(e) = &f.enum_
            && e.contains(value)
        {
            let other = differing(value, e);
            if !e.contains(&other) {
                push(
                    MutationKind::NotInEnum,
                    "enum",
                    node(&f.enum_ptr),
                    other.clone(),
                    format!("{other} is not in the enum"),
                );
            }
        }
        match value {
            Value::String(s) => self.string_defects(f, s, &mut push),
            Value::Number(_) => self.number_defects(f, value, &mut push),
            Value::Array(items) => {
                let ptr = node(&f.items_ptr);
                if f.min_items > 0 && items.len() as u64 >= f.min_items {
                    let short: Vec<Value> =
                        items[..usize::try_from(f.min_items - 1).unwrap_or(0)].to_vec();
                    push(
                        MutationKind::TooFewItems,
                        "minItems",
                        ptr.clone(),
                        Value::Array(short),
                        format!("fewer than minItems {}", f.min_items),
                    );
                }
                if let Some(max) = f.max_items
                    && max < 10_000
                    && let Some(first) = items.first().cloned()
                {
                    let mut long = items.clone();
                    while long.len() as u64 <= max {
                        long.push(first.clone());
                    }
                    push(
                        MutationKind::TooManyItems,
                        "maxItems",
                        ptr,
                        Value::Array(long),
                        format!("more than maxItems {max}"),
                    );
                }
            }
            Value::Object(m) => {
                let flag = hidden_flag(self.g.direction);
                for name in &f.required {
                    let hidden = f
                        .props
                        .get(name)
                        .is_some_and(|ns| ns.iter().any(|n| has_flag(n.v, self.g.doc, flag, 0)));
                    if m.contains_key(name) && !hidden {
                        out.push(Defect {
                            kind: MutationKind::RequiredMissing,
                            keyword: "required",
                            pointer: node(&f.required_ptr),
                            at: child(path, name),
                            replacement: None,
                            reported_at: path.to_string(),
                            description: format!(
                                "{}: required property {name:?} left out",
                                if path.is_empty() { "/" } else { path }
                            ),
                            detail: format!("{name:?} left out"),
                        });
                    }
                }
                if !f.closed.is_empty() {
                    let name = (0..)
                        .map(|i| {
                            if i == 0 {
                                "unexpectedProperty".to_string()
                            } else {
                                format!("unexpectedProperty{i}")
                            }
                        })
                        .find(|n| !m.contains_key(n) && !f.name_allowed(n))
                        .unwrap_or_default();
                    out.push(Defect {
                        kind: MutationKind::ExtraProperty,
                        keyword: "additionalProperties",
                        pointer: node(&f.closed_ptr),
                        at: child(path, &name),
                        replacement: Some(json!("unexpected")),
                        reported_at: path.to_string(),
                        description: format!(
                            "{}: property {name:?} not allowed",
                            if path.is_empty() { "/" } else { path }
                        ),
                        detail: String::new(),
                    });
                }
            }
            _ => {}
        }
    }

    fn string_defects(
        &self,
        f: &Flat<'a>,
        s: &str,
        push: &mut impl FnMut(MutationKind, &'static str, String, Value, String),
    ) {
        let node = |p: &str| {
            if p.is_empty() {
                f.ptr.clone()
            } else {
                p.to_string()
            }
        };
        let n = s.chars().count() as u64;
        if f.min_len > 0 && n >= f.min_len {
            let short: String = s
                .chars()
                .take(usize::try_from(f.min_len - 1).unwrap_or(0))
                .collect();
            push(
                MutationKind::TooShort,
                "minLength",
                node(&f.len_ptr),
                Value::String(short),
                format!("shorter than minLength {}", f.min_len),
            );
        }
        if let Some(max) = f.max_len
            && max < 100_000
        {
            let fill = s.chars().last().unwrap_or('a');
            let mut long = s.to_string();
            while (long.chars().count() as u64) <= max {
                long.push(fill);
            }
            push(
                MutationKind::TooLong,
                "maxLength",
                node(&f.len_ptr),
                Value::String(long),
                format!("longer than maxLength {max}"),
            );
        }
        if let Some(fm) = &f.format
            && let Some(bad) = broken_format(fm)
        {
            push(
                MutationKind::FormatBroken,
                "format",
                node(&f.format_ptr),
                Value::String(bad.clone()),
                format!("{bad:?} is not a {fm}"),
            );
        }
        for (p, pptr) in &f.patterns {
            let mut candidates = vec![
                format!("{s}!"),
                format!("!{s}"),
                "!".repeat(usize::try_from(f.min_len.max(1)).unwrap_or(1)),
                "0".repeat(usize::try_from(f.min_len.max(1)).unwrap_or(1)),
                "a".repeat(usize::try_from(f.min_len.max(1)).unwrap_or(1)),
                String::new(),
            ];
            // Within the length bounds first, so only the pattern is broken.
            candidates.sort_by_key(|c| {
                let n = c.chars().count() as u64;
                !(n >= f.min_len && f.max_len.is_none_or(|m| n <= m))
            });
            if let Some(c) = candidates
                .into_iter()
                .find(|c| crate::ecma::matches(p, c) == Ok(false))
            {
                push(
                    MutationKind::PatternBroken,
                    "pattern",
                    pptr.clone(),
                    Value::String(c.clone()),
                    format!("{c:?} does not match {p:?}"),
                );
            }
        }
    }

    fn number_defects(
        &self,
        f: &Flat<'a>,
        value: &Value,
        push: &mut impl FnMut(MutationKind, &'static str, String, Value, String),
    ) {
        let node = if f.range_ptr.is_empty() {
            f.ptr.clone()
        } else {
            f.range_ptr.clone()
        };
        let integer = f
            .types
            .as_ref()
            .is_some_and(|t| t.contains(&"integer") && !t.contains(&"number"))
            || json_type(value) == "integer";
        let step = f.multiple_of.first().copied().unwrap_or(1.0);
        if let Some(b) = f.min {
            // The largest multiple below the bound (the bound itself when exclusive).
            let below = if b.exclusive && (b.v / step).fract() == 0.0 {
                b.v
            } else {
                ((b.v / step).ceil() - 1.0) * step
            };
            let v = number(below, integer);
            push(
                MutationKind::BelowMinimum,
                if b.exclusive {
                    "exclusiveMinimum"
                } else {
                    "minimum"
                },
                node.clone(),
                v.clone(),
                format!("{v} below the minimum {}", b.v),
            );
        } else if integer && let Some(fm @ ("int32" | "int64")) = f.format.as_deref() {
            let lo = if fm == "int32" {
                i128::from(i32::MIN) - 1
            } else {
                i128::from(i64::MIN) - 1
            };
            if let Ok(v) = serde_json::from_str::<Value>(&lo.to_string()) {
                push(
                    MutationKind::BelowMinimum,
                    "minimum",
                    node_or(&f.format_ptr, &f.ptr),
                    v,
                    format!("{lo} below the {fm} range"),
                );
            }
        }
        if let Some(b) = f.max {
            let above = if b.exclusive && (b.v / step).fract() == 0.0 {
                b.v
            } else {
                ((b.v / step).floor() + 1.0) * step
            };
            let v = number(above, integer);
            push(
                MutationKind::AboveMaximum,
                if b.exclusive {
                    "exclusiveMaximum"
                } else {
                    "maximum"
                },
                node,
                v.clone(),
                format!("{v} above the maximum {}", b.v),
            );
        } else if integer && let Some(fm @ ("int32" | "int64")) = f.format.as_deref() {
            let hi = if fm == "int32" {
                i128::from(i32::MAX) + 1
            } else {
                i128::from(i64::MAX) + 1
            };
            if let Ok(v) = serde_json::from_str::<Value>(&hi.to_string()) {
                push(
                    MutationKind::AboveMaximum,
                    "maximum",
                    node_or(&f.format_ptr, &f.ptr),
                    v,
                    format!("{hi} above the {fm} range"),
                );
            }
        }
        let _ = numbers::is_multiple;
    }
}

fn node_or(p: &str, fallback: &str) -> String {
    if p.is_empty() {
        fallback.to_string()
    } else {
        p.to_string()
    }
}

fn number(v: f64, integer: bool) -> Value {
    if integer || (v.fract() == 0.0 && v.abs() < 9e15) {
        Value::from(v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}

/// A value of the same type as `v`, equal to none of `avoid` (nor to `v`).
fn differing(v: &Value, avoid: &[Value]) -> Value {
    let taken = |c: &Value| c == v || avoid.contains(c);
    let candidates: Vec<Value> = match v {
        Value::String(s) => vec![
            json!(format!("{s}-not-allowed")),
            json!("not-allowed-value"),
            json!("zzz-other"),
        ],
        Value::Number(n) => {
            let max = avoid
                .iter()
                .filter_map(Value::as_f64)
                .fold(n.as_f64().unwrap_or(0.0), f64::max);
            vec![
                number(max.floor() + 1.0, true),
                number(max.floor() + 2.0, true),
            ]
        }
        Value::Bool(b) => vec![json!(!b)],
        Value::Null => vec![json!("not-null")],
        Value::Array(a) => {
            let mut more = a.clone();
            more.push(json!("extra"));
            vec![Value::Array(more), json!([])]
        }
        Value::Object(m) => {
            let mut more = m.clone();
            more.insert("unexpectedProperty".into(), json!("x"));
            vec![Value::Object(more), json!({})]
        }
    };
    candidates
        .into_iter()
        .find(|c| !taken(c))
        .unwrap_or(json!("other"))
}

/// A string that is not of `format`, for formats validators assert.
fn broken_format(format: &str) -> Option<String> {
    Some(match format {
        "uuid" => "not-a-uuid".into(),
        "date-time" => "2024-13-45T25:61:00Z".into(),
        "date" => "2024-13-45".into(),
        "time" => "25:61:00Z".into(),
        "duration" => "three days".into(),
        "email" | "idn-email" => "not-an-email".into(),
        "hostname" | "idn-hostname" => "not a hostname!".into(),
        "ipv4" => "999.1.1.1".into(),
        "ipv6" => "not:an:ipv6::address::".into(),
        "uri" | "url" | "iri" => "not a uri".into(),
        "uri-reference" | "iri-reference" => "\\\\not a uri reference".into(),
        "json-pointer" => "no-leading-slash".into(),
        "relative-json-pointer" => "/not-relative".into(),
        "regex" => "([unclosed".into(),
        _ => return None,
    })
}
