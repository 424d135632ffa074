//! What a schema means, apart from where it sits: whether it is only a wrapper around
//! another (`anyOf: [X, null]`, `allOf: [X]`), which branches of a union it offers, and
//! which branch of the old union a branch of the new one stands for.
//!
//! Generators write the same meaning in several forms (Pydantic writes an optional
//! field as `anyOf: [{$ref: X}, {type: null}]`, reorders branches, and splits a model
//! into `X-Input`/`X-Output`), so comparing by position or by `$ref` name reports
//! changes that are not there and hides the ones that are. Branches are paired by what
//! they accept; position only decides among equals.

use std::collections::BTreeSet;

use serde_json::Value;
use spec_model::model::{AdditionalProperties, OpenApi, Schema, SchemaType};
use spec_model::{push_pointer, refs};

/// Whether a schema allows only `null` (`type: null`, or `enum: [null]`).
pub fn null_only(s: &Schema) -> bool {
    let typed_null = match &s.kind {
        Some(SchemaType::One(t)) => t == "null",
        Some(SchemaType::Many(ts)) => !ts.is_empty() && ts.iter().all(|t| t == "null"),
        None => false,
    };
    let enum_null = s
        .enumeration
        .as_ref()
        .is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_null));
    typed_null || enum_null || s.constant.as_ref().is_some_and(Value::is_null)
}

/// Whether a schema says nothing of its own about the value: no type, no reference, no
/// properties, items, enumeration or limits (`additionalProperties: true` restricts
/// nothing: Pydantic writes it beside `anyOf`). Such a schema is either any value (when
/// it has no `allOf`/`anyOf`/`oneOf` either) or only the sum of its parts.
fn bare(s: &Schema) -> bool {
    s.reference.is_none()
        && s.kind.is_none()
        && s.properties.is_empty()
        && s.required.is_empty()
        && s.items.is_none()
        && s.prefix_items.is_empty()
        && matches!(
            s.additional_properties,
            None | Some(AdditionalProperties::Flag(true))
        )
        && s.enumeration.is_none()
        && s.constant.is_none()
        && s.max_length.is_none()
        && s.min_length.is_none()
        && s.pattern.is_none()
        && s.minimum.is_none()
        && s.maximum.is_none()
        && s.min_items.is_none()
        && s.max_items.is_none()
        && s.discriminator.is_none()
}

/// Whether a schema accepts any value at all (`{}`, or one with only a description).
pub fn any(s: &Schema) -> bool {
    bare(s) && s.all_of.is_empty() && s.any_of.is_empty() && s.one_of.is_empty() && !s.nullable
}

/// The branches of a schema that is nothing but a union: the keyword, each non-null
/// branch with its index, and whether a `null` branch (or `nullable`) admits null.
pub struct Union<'a> {
    /// `anyOf` or `oneOf`.
    pub keyword: &'static str,
    /// The branches that are not `null`, with their index in the keyword's list.
    pub branches: Vec<(usize, &'a Schema)>,
    /// Whether null is one of the values.
    pub null: bool,
}

/// `s` as a union, when it is nothing else: no type or properties of its own, one of
/// `anyOf`/`oneOf` and no `allOf`. A schema with its own type beside a union (an object
/// whose `anyOf` only lists required-property sets) is not one.
pub fn union<'a>(spec: &'a OpenApi, s: &'a Schema) -> Option<Union<'a>> {
    if !bare(s) || !s.all_of.is_empty() {
        return None;
    }
    let (keyword, list) = match (s.any_of.is_empty(), s.one_of.is_empty()) {
        (false, true) => ("anyOf", &s.any_of),
        (true, false) => ("oneOf", &s.one_of),
        _ => return None,
    };
    let mut branches = Vec::new();
    let mut null = s.nullable;
    for (i, b) in list.iter().enumerate() {
        let target = refs::follow(spec, b, "").map(|t| t.node).unwrap_or(b);
        if null_only(target) {
            null = true;
        } else {
            branches.push((i, b));
        }
    }
    Some(Union {
        keyword,
        branches,
        null,
    })
}

/// The one schema a wrapper stands for (`anyOf: [X, null]`, `oneOf: [X]`, `allOf: [X]`
/// with nothing beside it): the keyword and index of the part, and whether the wrapper
/// admits null. `None` when `s` is not such a wrapper.
pub fn wrapped<'a>(spec: &'a OpenApi, s: &'a Schema) -> Option<(&'static str, usize, bool)> {
    if bare(s) && s.any_of.is_empty() && s.one_of.is_empty() && s.all_of.len() == 1 {
        return Some(("allOf", 0, s.nullable));
    }
    let u = union(spec, s)?;
    match u.branches.as_slice() {
        [(i, _)] => Some((u.keyword, *i, u.null)),
        _ => None,
    }
}

/// An object's properties with those of its `allOf` parts merged in (each with the
/// pointer of the node that defines it), and every name its parts require: what a value
/// must look like whichever way the document composes it. `{$ref: X}` and `allOf:
/// [{$ref: X}, {properties: {extra: …}}]` have the same properties but one.
pub struct Object<'a> {
    /// Property name to its schema and pointer, own properties first.
    pub properties: indexmap::IndexMap<String, (&'a Schema, String)>,
    /// Names required by the schema or any of its parts.
    pub required: BTreeSet<String>,
}

/// [`Object`] of `s` (at `ptr`), following `$ref`s into `allOf` parts, eight levels deep.
pub fn object<'a>(spec: &'a OpenApi, s: &'a Schema, ptr: &str) -> Object<'a> {
    let mut out = Object {
        properties: indexmap::IndexMap::new(),
        required: BTreeSet::new(),
    };
    gather(spec, s, ptr, 8, &mut out);
    out
}

fn gather<'a>(spec: &'a OpenApi, s: &'a Schema, ptr: &str, depth: usize, out: &mut Object<'a>) {
    let props = push_pointer(ptr, "properties");
    for (name, p) in &s.properties {
        out.properties
            .entry(name.clone())
            .or_insert_with(|| (p, push_pointer(&props, name)));
    }
    out.required.extend(s.required.iter().cloned());
    if depth == 0 {
        return;
    }
    for (i, part) in s.all_of.iter().enumerate() {
        let at = push_pointer(&push_pointer(ptr, "allOf"), &i.to_string());
        let (node, at) = match refs::follow(spec, part, &at) {
            Ok(t) => (t.node, t.pointer),
            Err(_) => (part, at),
        };
        gather(spec, node, &at, depth - 1, out);
    }
}

/// Whether an `allOf` part speaks of properties (its own or its parts'): those are
/// compared in the merged [`Object`], not part by part.
pub fn has_properties(spec: &OpenApi, s: &Schema) -> bool {
    let node = refs::follow(spec, s, "").map(|t| t.node).unwrap_or(s);
    !node.properties.is_empty() || !node.required.is_empty() || !node.all_of.is_empty()
}

/// What a branch accepts, for pairing and for naming it in a report.
#[derive(Debug, Clone)]
pub struct Shape {
    /// The last component schema its `$ref`s pass through.
    pub name: Option<String>,
    /// Non-null JSON types it names (`None`: it names none).
    pub types: Option<BTreeSet<String>>,
    /// `format`.
    pub format: Option<String>,
    /// `const` or `enum` values.
    pub values: Option<Vec<Value>>,
    /// Property names.
    pub properties: BTreeSet<String>,
    /// The values of the properties that list them (a tag like `type: {const: "a"}`):
    /// two objects whose tags share no value are different kinds of object.
    pub tags: std::collections::BTreeMap<String, Vec<Value>>,
    /// What its items are, for an array.
    pub items: Option<Box<Shape>>,
    /// Its branches, for a union.
    pub alternatives: Vec<Shape>,
    /// The node as written, without the words that do not change what it accepts.
    pub canonical: Value,
}

impl Shape {
    /// The shape of `s` (a branch at `ptr` of `spec`, whose JSON tree is `raw`).
    pub fn of(spec: &OpenApi, raw: &Value, s: &Schema, ptr: &str) -> Shape {
        Shape::within(spec, raw, s, ptr, DEPTH)
    }

    /// [`Shape::of`], looking `depth` levels of items and branches deep: a recursive
    /// schema (a JSON value as a union of lists of itself) ends there.
    fn within(spec: &OpenApi, raw: &Value, s: &Schema, ptr: &str, depth: usize) -> Shape {
        let deeper = depth.saturating_sub(1);
        let (node, name, at) = match refs::follow(spec, s, ptr) {
            Ok(t) => (t.node, t.name.map(str::to_owned), t.pointer),
            Err(_) => (s, None, ptr.to_owned()),
        };
        let (node, at) = match wrapped(spec, node) {
            Some((keyword, i, _)) => {
                let part = match keyword {
                    "allOf" => &node.all_of[i],
                    "anyOf" => &node.any_of[i],
                    _ => &node.one_of[i],
                };
                let at = push_pointer(&push_pointer(&at, keyword), &i.to_string());
                let inner = Shape::within(spec, raw, part, &at, deeper);
                return Shape {
                    name: inner.name.clone().or(name),
                    ..inner
                };
            }
            None => (node, at),
        };
        let items = node.items.as_ref().filter(|_| depth > 0).map(|i| {
            Box::new(Shape::within(
                spec,
                raw,
                i,
                &push_pointer(&at, "items"),
                deeper,
            ))
        });
        let alternatives = union(spec, node)
            .filter(|_| depth > 0)
            .map(|u| {
                u.branches
                    .iter()
                    .map(|(i, b)| {
                        let ptr = push_pointer(&push_pointer(&at, u.keyword), &i.to_string());
                        Shape::within(spec, raw, b, &ptr, deeper)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let merged = object(spec, node, &at);
        let mut canonical = raw.pointer(&at).cloned().unwrap_or(Value::Null);
        strip_words(&mut canonical);
        Shape {
            name,
            types: types(node),
            format: node.format.clone(),
            values: values(node),
            properties: merged.properties.keys().cloned().collect(),
            tags: merged
                .properties
                .iter()
                .filter_map(|(name, (p, _))| {
                    let p = refs::follow(spec, *p, "").map(|t| t.node).unwrap_or(p);
                    enumeration(spec, p).map(|v| (name.clone(), v))
                })
                .collect(),
            items,
            alternatives,
            canonical,
        }
    }

    /// Whether the two accept the same values, written alike once references are
    /// followed (a component and an inline copy of it).
    pub fn same(&self, other: &Shape) -> bool {
        self.canonical == other.canonical && !self.canonical.is_null()
    }

    /// How alike two branches are: 0 the same schema (same component, or identical as
    /// written), 1 the same types, format and values (and items alike), 2 the same types
    /// with objects sharing at least half the properties of the smaller (a renamed or
    /// reworked model) and no tag property (`type: {const: …}`) of disjoint values, or
    /// `None` for branches that accept different kinds of value.
    pub fn likeness(&self, other: &Shape) -> Option<u8> {
        if (self.name.is_some() && self.name == other.name)
            || (self.name.is_none() && other.name.is_none() && self.canonical == other.canonical)
        {
            return Some(0);
        }
        if self.types != other.types {
            return None;
        }
        let values_agree = match (&self.values, &other.values) {
            (Some(a), Some(b)) => a.iter().any(|v| b.contains(v)),
            (None, None) => true,
            _ => false,
        };
        if !values_agree {
            return None;
        }
        let items = match (&self.items, &other.items) {
            (Some(a), Some(b)) => a.likeness(b),
            (None, None) => Some(0),
            _ => Some(2),
        };
        let tags_differ = self.tags.iter().any(|(k, a)| {
            other
                .tags
                .get(k)
                .is_some_and(|b| !a.iter().any(|v| b.contains(v)))
        });
        if tags_differ {
            return None;
        }
        // Objects of one kind share most of the properties of the smaller: a model that
        // grew optional properties is still itself, one with none in common is not.
        let shared = self.properties.intersection(&other.properties).count();
        let smaller = self.properties.len().min(other.properties.len());
        let larger = self.properties.len().max(other.properties.len());
        if larger > 0 && (smaller == 0 || shared * 2 < smaller) {
            return None;
        }
        match items {
            Some(0) if self.format == other.format && self.properties == other.properties => {
                Some(1)
            }
            Some(_) => Some(2),
            None => None,
        }
    }

    /// The branch in a few words: its component's name, else its type and format,
    /// values, or item type.
    pub fn describe(&self) -> String {
        if let Some(name) = &self.name {
            return format!("`{name}`");
        }
        if let Some(values) = &self.values {
            let shown: Vec<String> = values.iter().map(Value::to_string).collect();
            return match shown.as_slice() {
                [one] => format!("const {one}"),
                _ => format!("enum [{}]", shown.join(", ")),
            };
        }
        let Some(types) = &self.types else {
            if !self.alternatives.is_empty() {
                let each: Vec<String> = self.alternatives.iter().map(Shape::describe).collect();
                return format!("({})", each.join(" or "));
            }
            return "any value".to_owned();
        };
        let mut out = types.iter().cloned().collect::<Vec<_>>().join(" or ");
        if let Some(f) = &self.format {
            out.push_str(&format!(" ({f})"));
        }
        if let Some(items) = &self.items {
            out.push_str(&format!(" of {}", items.describe()));
        }
        out
    }
}

/// How many levels of items and branches a shape looks into.
const DEPTH: usize = 4;

/// Pairs the branches of an old union with those of a new one: each old branch with the
/// first unpaired new branch most like it, the likest pairs first. Returns the pairs
/// (old index, new index), the old branches left (removed) and the new ones left (added).
pub fn pair(old: &[Shape], new: &[Shape]) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
    let mut pairs = Vec::new();
    let mut old_left: Vec<bool> = vec![true; old.len()];
    let mut new_left: Vec<bool> = vec![true; new.len()];
    for class in 0..=2u8 {
        for (i, a) in old.iter().enumerate() {
            if !old_left[i] {
                continue;
            }
            let found = new
                .iter()
                .enumerate()
                .find(|(j, b)| new_left[*j] && a.likeness(b) == Some(class));
            if let Some((j, _)) = found {
                old_left[i] = false;
                new_left[j] = false;
                pairs.push((i, j));
            }
        }
    }
    // An inline branch left over that is like one already paired (two old branches
    // merged into one, or one split in two) is compared with it rather than called
    // removed or added. Two components are each their own branch: a new component beside
    // the old ones (one more event type of a union of events) is an added branch.
    let likest = |a: &Shape, others: &[Shape]| {
        (0..=2u8).find_map(|class| {
            others.iter().position(|b| {
                (a.name.is_none() || b.name.is_none()) && a.likeness(b) == Some(class)
            })
        })
    };
    for (i, a) in old.iter().enumerate() {
        if old_left[i]
            && let Some(j) = likest(a, new)
        {
            old_left[i] = false;
            pairs.push((i, j));
        }
    }
    for (j, b) in new.iter().enumerate() {
        if new_left[j]
            && let Some(i) = likest(b, old)
        {
            new_left[j] = false;
            pairs.push((i, j));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let removed = (0..old.len()).filter(|&i| old_left[i]).collect();
    let added = (0..new.len()).filter(|&j| new_left[j]).collect();
    (pairs, removed, added)
}

/// The non-null JSON types a schema names, when it names any.
pub fn types(s: &Schema) -> Option<BTreeSet<String>> {
    let set: BTreeSet<String> = match s.kind.as_ref()? {
        SchemaType::One(t) => [t.clone()].into(),
        SchemaType::Many(ts) => ts.iter().cloned().collect(),
    };
    let set: BTreeSet<String> = set.into_iter().filter(|t| t != "null").collect();
    (!set.is_empty()).then_some(set)
}

/// The values a schema allows when it lists them: its own `enum`/`const`, or, for a
/// union whose every branch lists values, all of theirs (`oneOf: [{const: a}, {const:
/// b}]` is `enum: [a, b]`).
pub fn enumeration(spec: &OpenApi, s: &Schema) -> Option<Vec<Value>> {
    if let Some(v) = values(s) {
        return Some(v);
    }
    let u = union(spec, s)?;
    let mut all = Vec::new();
    for (_, b) in &u.branches {
        let node = refs::follow(spec, *b, "").map(|t| t.node).unwrap_or(b);
        if !node.properties.is_empty() {
            return None;
        }
        for v in values(node)? {
            if !all.contains(&v) {
                all.push(v);
            }
        }
    }
    (!u.branches.is_empty()).then_some(all)
}

/// Whether a branch only constrains the value around it (`{required: [a]}`): no type,
/// reference, properties, items, values or branches of its own.
pub fn constraint_only(spec: &OpenApi, s: &Schema) -> bool {
    let node = refs::follow(spec, s, "").map(|t| t.node).unwrap_or(s);
    node.reference.is_none()
        && node.kind.is_none()
        && node.properties.is_empty()
        && node.items.is_none()
        && node.enumeration.is_none()
        && node.constant.is_none()
        && node.all_of.is_empty()
        && node.any_of.is_empty()
        && node.one_of.is_empty()
        && !node.required.is_empty()
}

/// `const` as an enumeration of one, else the non-null `enum` values.
pub fn values(s: &Schema) -> Option<Vec<Value>> {
    if let Some(c) = &s.constant {
        return Some(vec![c.clone()]);
    }
    s.enumeration
        .as_ref()
        .map(|e| e.iter().filter(|v| !v.is_null()).cloned().collect())
}

/// Drops the keywords that describe a node without changing what it accepts, at every
/// depth, so two branches written alike but documented differently compare equal.
fn strip_words(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for word in ["title", "description", "examples", "example", "deprecated"] {
                map.remove(word);
            }
            for (_, child) in map.iter_mut() {
                strip_words(child);
            }
        }
        Value::Array(list) => list.iter_mut().for_each(strip_words),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(schemas: Value) -> (OpenApi, Value) {
        let doc = json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {},
            "components": {"schemas": schemas},
        });
        (serde_json::from_value(doc.clone()).expect("spec"), doc)
    }

    fn shapes(spec: &OpenApi, raw: &Value, name: &str) -> Vec<Shape> {
        let s = &spec.components.schemas[name];
        let at = format!("/components/schemas/{name}");
        let u = union(spec, s).expect("a union");
        u.branches
            .iter()
            .map(|(i, b)| Shape::of(spec, raw, b, &format!("{at}/{}/{i}", u.keyword)))
            .collect()
    }

    #[test]
    fn branches_pair_by_what_they_accept_not_by_place() {
        let (s, raw) = spec(json!({
            "Old": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}, {"type": "null"}]},
            "New": {"anyOf": [{"type": "integer"}, {"type": "number"}, {"type": "array", "items": {"type": "integer"}}, {"type": "array", "items": {"type": "number"}}, {"type": "null"}]},
        }));
        let (old, new) = (shapes(&s, &raw, "Old"), shapes(&s, &raw, "New"));
        let (pairs, removed, added) = pair(&old, &new);
        assert_eq!(pairs, [(0, 0), (1, 2)]);
        assert!(removed.is_empty());
        assert_eq!(added, [1, 3]);
        assert_eq!(new[3].describe(), "array of number");
    }

    #[test]
    fn a_recursive_union_is_described_to_a_depth_and_ends() {
        let (s, raw) = spec(json!({
            "Json": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/components/schemas/Json"}}]},
            "Tree": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}},
        }));
        let tree = Shape::of(
            &s,
            &raw,
            &s.components.schemas["Tree"],
            "/components/schemas/Tree",
        );
        assert_eq!(tree.describe(), "array of `Tree`");
        let json = shapes(&s, &raw, "Json");
        assert_eq!(json[1].describe(), "array of `Json`");
    }

    #[test]
    fn a_renamed_model_pairs_with_its_old_name_and_a_stranger_does_not() {
        let (s, raw) = spec(json!({
            "X": {"type": "object", "properties": {"a": {}, "b": {}, "c": {}}},
            "X-Input": {"type": "object", "properties": {"a": {}, "b": {}, "c": {}, "d": {}}},
            "Y": {"type": "object", "properties": {"z": {}}},
            "Old": {"oneOf": [{"$ref": "#/components/schemas/X"}, {"type": "string"}]},
            "New": {"oneOf": [{"type": "string"}, {"$ref": "#/components/schemas/Y"}, {"$ref": "#/components/schemas/X-Input"}]},
        }));
        let (pairs, removed, added) = pair(&shapes(&s, &raw, "Old"), &shapes(&s, &raw, "New"));
        assert_eq!(pairs, [(0, 2), (1, 0)]);
        assert!(removed.is_empty());
        assert_eq!(added, [1]);
    }

    #[test]
    fn a_wrapper_stands_for_its_one_part_and_says_whether_null_is_allowed() {
        let (s, _) = spec(json!({
            "X": {"type": "object"},
            "Nullable": {"anyOf": [{"$ref": "#/components/schemas/X"}, {"type": "null"}], "description": "d"},
            "Described": {"allOf": [{"$ref": "#/components/schemas/X"}], "description": "d"},
            "Two": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "Typed": {"type": "object", "anyOf": [{"required": ["a"]}]},
        }));
        let c = &s.components.schemas;
        assert_eq!(wrapped(&s, &c["Nullable"]), Some(("anyOf", 0, true)));
        assert_eq!(wrapped(&s, &c["Described"]), Some(("allOf", 0, false)));
        assert_eq!(wrapped(&s, &c["Two"]), None);
        assert_eq!(wrapped(&s, &c["Typed"]), None);
        assert!(any(&serde_json::from_value(
            json!({"description": "anything"})
        )
        .unwrap()));
    }
}
