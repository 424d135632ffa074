//! `oneOf`/`anyOf` of several shapes become Rust enums rather than `serde_json::Value`.
//!
//! Three forms, chosen from the branches:
//!
//! - Every branch a string (one-value enums or `const`, what serde's unit variants give):
//!   one string enum of all the values, with the usual `Unknown(String)` fallback.
//! - Branches told apart by a property (a `discriminator`, or a property every branch
//!   has, required or not, with one `const`/one-value `enum` string each, what serde's
//!   internally tagged enums give): an internally tagged enum; a value whose tag is
//!   missing or names no branch goes to the fallback, never to a branch it contradicts.
//!   The tag lives in the enum, so each variant's struct leaves the property out; a
//!   branch that is a `$ref` to a component
//!   holding the tag gets its own struct without it.
//! - Otherwise an untagged enum, whose variants serde tries in order. The order is chosen
//!   so that no value decodes into a branch that loses part of it: lists first (serde
//!   lets a struct read an array of its fields in order, so a struct tried first would
//!   take a list), then objects, the one with more required (then more) properties
//!   first, because a struct ignores unknown fields and would swallow a richer object;
//!   integers
//!   before floats (an `f64` variant would turn `1` into `1.0`); strings, maps and any
//!   JSON last, a string of a format with a type of its own (`date-time`, `date`,
//!   `uuid`, which refuse other text) before a plain string, which takes any. Other
//!   branches that accept the same JSON (two strings of other `format`s) cannot be told
//!   apart by decoding; the first one listed wins.
//!
//! `anyOf` is lowered as `oneOf`: a value is kept by the first branch (in the order
//! above) that accepts it. A struct of optional flattened branches would record every
//! branch a value matches, but serde's `flatten` cannot tell a branch that matched from
//! one whose fields are all optional and absent, and real specs use `anyOf` for "one of
//! these shapes".
//!
//! Every form keeps a value none of its branches accepts (an unknown tag value from a
//! newer server, a new shape) in a fallback variant holding the JSON as it came, which
//! serializes back unchanged.

use spec_model::model::Schema;
use spec_model::refs;

use super::Lowerer;
use super::schema::{Shape, doc_of, enum_def, shape, type_names, union_branches};
use crate::error::{Located, push_pointer};
use crate::ir::{Ty, TypeDef, UnionDef, Variant};
use crate::names::{Scope, pascal};
use crate::warning::WarningKind;

/// Names tried, in order, for the fallback variant.
const FALLBACK_NAMES: [&str; 3] = ["Unknown", "UnknownValue", "Unrecognized"];

/// The string a schema allows as its only value (`const`, or an `enum` of one string).
fn single_string(s: &Schema) -> Option<&str> {
    if let Some(c) = &s.constant {
        return c.as_str();
    }
    match s.enumeration.as_deref() {
        Some([one]) => one.as_str(),
        _ => None,
    }
}

/// The strings a branch allows, when it allows strings only (a string enum or `const`).
fn string_values(s: &Schema) -> Option<Vec<serde_json::Value>> {
    if s.reference.is_some() || !s.properties.is_empty() {
        return None;
    }
    let (names, _) = type_names(s);
    if !(names.is_empty() || names == ["string"]) {
        return None;
    }
    if let Some(c) = &s.constant {
        return c.is_string().then(|| vec![c.clone()]);
    }
    let values = s.enumeration.as_ref()?;
    let strings: Vec<serde_json::Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
    (!strings.is_empty() && strings.iter().all(serde_json::Value::is_string)).then_some(strings)
}

/// How a branch's properties came out: wire name to (schema, pointer), and `required`.
type Props<'s> = (
    indexmap::IndexMap<String, (std::borrow::Cow<'s, Schema>, String)>,
    std::collections::BTreeSet<String>,
);

/// Sort key of an untagged variant: lower is tried first.
type Rank = (u8, std::cmp::Reverse<usize>, std::cmp::Reverse<usize>);

impl<'a> Lowerer<'a> {
    /// The type of a union schema named `name`: a string enum, or a tagged or untagged
    /// enum (see the module's doc).
    pub(super) fn union_def(
        &mut self,
        name: &str,
        s: &Schema,
        ptr: &str,
    ) -> Result<TypeDef, Located> {
        let (key, branches) = union_branches(s);
        if !s.one_of.is_empty() && !s.any_of.is_empty() {
            self.warn(
                WarningKind::Union,
                push_pointer(ptr, "anyOf"),
                "`anyOf` beside `oneOf` is ignored: the type follows `oneOf`",
            );
        }
        let doc = doc_of(s, || format!("One of several shapes (`{key}`)."));
        let strings: Option<Vec<Vec<serde_json::Value>>> =
            branches.iter().map(|(_, b)| string_values(b)).collect();
        if let Some(strings) = strings {
            let merged = Schema {
                enumeration: Some(strings.into_iter().flatten().collect()),
                description: Some(spec_model::model::Text::String(doc)),
                ..Schema::default()
            };
            return Ok(TypeDef::Enum(enum_def(name, &merged, ptr)?));
        }
        let mut props = Vec::with_capacity(branches.len());
        for (i, b) in &branches {
            let mut p = Props::default();
            let b_ptr = format!("{ptr}/{key}/{i}");
            self.collect_properties(b, &b_ptr, &mut p.0, &mut p.1, 0)?;
            props.push(p);
        }
        let def = match self.tag(s, key, &branches, &props, ptr) {
            Some((tag, values)) => self.tagged(name, doc, key, &branches, &tag, &values, ptr)?,
            None => self.untagged(name, doc, key, &branches, ptr)?,
        };
        Ok(TypeDef::Union(def))
    }

    /// The component schemas that a tagged union of `components.schemas` would copy
    /// into a variant without the tag and that nothing else references: each is then
    /// emitted once, as that variant's data under its own name, instead of as a struct
    /// no operation uses beside its tag-less copy. Warnings met on the way are left to
    /// the lowering proper, which meets them again in order.
    pub(super) fn absorbed_components(
        &mut self,
    ) -> Result<std::collections::BTreeSet<String>, Located> {
        let counts = super::refs::schema_ref_counts(self.spec);
        let saved = self.warnings.len();
        let mut absorbed = std::collections::BTreeSet::new();
        let spec: &'a spec_model::model::OpenApi = self.spec;
        for (union_key, s) in &spec.components.schemas {
            let ptr = push_pointer("/components/schemas", union_key);
            let (key, branches) = union_branches(s);
            if !matches!(shape(s), Shape::Union)
                || branches.iter().all(|(_, b)| string_values(b).is_some())
            {
                continue;
            }
            let mut props = Vec::with_capacity(branches.len());
            for (i, b) in &branches {
                let mut p = Props::default();
                self.collect_properties(b, &format!("{ptr}/{key}/{i}"), &mut p.0, &mut p.1, 0)?;
                props.push(p);
            }
            let Some((tag, _)) = self.tag(s, key, &branches, &props, &ptr) else {
                continue;
            };
            for ((_, b), (p, _)) in branches.iter().zip(&props) {
                let Some(target) = b
                    .reference
                    .as_deref()
                    .and_then(refs::component_name::<Schema>)
                else {
                    continue;
                };
                let copied = p.contains_key(&tag) && !p.keys().all(|k| *k == tag);
                let struct_shaped = spec
                    .components
                    .schemas
                    .get(&target)
                    .is_some_and(|t| t.one_of.is_empty() && t.any_of.is_empty());
                if copied
                    && struct_shaped
                    && counts.get(&target) == Some(&1)
                    && target != *union_key
                {
                    absorbed.insert(target);
                }
            }
        }
        self.warnings.truncate(saved);
        Ok(absorbed)
    }

    /// The tag property and each branch's value of it, if the branches have one.
    fn tag(
        &mut self,
        s: &Schema,
        key: &str,
        branches: &[(usize, &Schema)],
        props: &[Props<'_>],
        ptr: &str,
    ) -> Option<(String, Vec<String>)> {
        let objects = props.iter().all(|(p, _)| !p.is_empty());
        if let Some(d) = &s.discriminator {
            let d_ptr = push_pointer(ptr, "discriminator");
            let Some(tag) = d.property_name.clone() else {
                self.warn(
                    WarningKind::Union,
                    d_ptr,
                    "`discriminator` without `propertyName` is ignored",
                );
                return None;
            };
            if !objects {
                self.warn(
                    WarningKind::Union,
                    d_ptr,
                    "`discriminator` over branches that are not all objects is ignored",
                );
                return None;
            }
            let mut values = Vec::with_capacity(branches.len());
            for ((i, b), (p, _)) in branches.iter().zip(props) {
                let mapped = b.reference.as_deref().and_then(|r| {
                    d.mapping.iter().find_map(|(value, target)| {
                        (target == r || r.rsplit('/').next() == Some(target.as_str()))
                            .then(|| value.clone())
                    })
                });
                let own = p
                    .get(&tag)
                    .and_then(|(t, _)| single_string(t))
                    .map(str::to_owned);
                let by_name = b
                    .reference
                    .as_deref()
                    .and_then(|r| r.rsplit('/').next())
                    .map(str::to_owned);
                match mapped.or(own).or(by_name) {
                    Some(v) => values.push(v),
                    None => {
                        self.warn(
                            WarningKind::Union,
                            format!("{ptr}/{key}/{i}"),
                            format!(
                                "no `{tag}` value names this branch (no `mapping`, `const` or \
                                 `$ref`): the union is decoded untagged"
                            ),
                        );
                        return None;
                    }
                }
            }
            if distinct(&values) {
                return Some((tag, values));
            }
            self.warn(
                WarningKind::Union,
                d_ptr,
                format!("two branches share a `{tag}` value: the union is decoded untagged"),
            );
            return None;
        }
        if !objects {
            return None;
        }
        let (first, _) = props.first()?;
        // `required` or not: Pydantic writes its discriminator as a `const` with a
        // `default`, which it leaves out of `required`. A value without the property
        // then matches no variant and is kept whole by the fallback, where trying the
        // branches untagged would let the first all-optional one take any object.
        first.keys().find_map(|candidate| {
            let values: Option<Vec<String>> = props
                .iter()
                .map(|(p, _)| {
                    let (schema, _) = p.get(candidate)?;
                    single_string(schema).map(str::to_owned)
                })
                .collect();
            values
                .filter(|v| distinct(v))
                .map(|v| (candidate.clone(), v))
        })
    }

    /// An internally tagged enum.
    #[allow(clippy::too_many_arguments)]
    fn tagged(
        &mut self,
        name: &str,
        doc: String,
        key: &str,
        branches: &[(usize, &Schema)],
        tag: &str,
        values: &[String],
        ptr: &str,
    ) -> Result<UnionDef, Located> {
        let mut scope = Scope::default();
        let mut variants = Vec::with_capacity(branches.len());
        for ((i, b), value) in branches.iter().zip(values) {
            let b_ptr = format!("{ptr}/{key}/{i}");
            let vname = scope.claim(pascal(value));
            let mut p = Props::default();
            self.collect_properties(b, &b_ptr, &mut p.0, &mut p.1, 0)?;
            let ty = if p.0.keys().all(|k| k == tag) {
                None
            } else if let Some(r) = b.reference.as_deref().filter(|_| !p.0.contains_key(tag)) {
                let key = self.ref_key(r, &b_ptr)?;
                Some(Ty::Named(self.components[key].clone()))
            } else if let Some(target) = self.absorbed_target(b) {
                // The component only this branch uses: emitted here, once, under its own
                // name and without the tag (a component that holds this union again, in
                // a field, meets its own name the second time).
                let struct_name = self.components[&target].clone();
                if self.absorbed_emitted.insert(target.clone()) {
                    self.journal.absorbed_emitted.push(target);
                    let (schema, target_ptr) =
                        self.resolve(b.reference.as_deref().unwrap_or_default(), &b_ptr)?;
                    self.inspect(schema, &target_ptr);
                    let mut def =
                        self.struct_def_except(&struct_name, schema, &target_ptr, Some(tag))?;
                    if schema.description().is_none() && schema.title().is_none() {
                        def.doc = format!("The fields of [`{name}::{vname}`].");
                    }
                    def.doc.push_str(&format!(
                        "\n\nUsed only as [`{name}::{vname}`], which carries the `{tag}` \
                         property (`{value}`) on the wire."
                    ));
                    self.types.push(TypeDef::Struct(def));
                }
                Some(Ty::Named(struct_name))
            } else if let Some(made) = b
                .reference
                .as_ref()
                .and_then(|r| self.tagged_branches.get(&(r.clone(), tag.to_owned())))
            {
                // Lowered already (or being lowered, above us: the branch holds this union).
                Some(Ty::Named(made.clone()))
            } else {
                let struct_name = self.type_names.claim(format!("{name}{vname}"));
                if let Some(r) = &b.reference {
                    self.tagged_branches
                        .insert((r.clone(), tag.to_owned()), struct_name.clone());
                    self.journal
                        .tagged_branches
                        .push((r.clone(), tag.to_owned()));
                }
                let mut def = self.struct_def_except(&struct_name, b, &b_ptr, Some(tag))?;
                if b.description().is_none() && b.title().is_none() {
                    def.doc = format!("The fields of [`{name}::{vname}`].");
                }
                self.types.push(TypeDef::Struct(def));
                Some(Ty::Named(struct_name))
            };
            variants.push(Variant {
                doc: doc_of(b, || format!("`{tag}` is `{value}`.")),
                name: vname,
                tag_value: Some(value.clone()),
                ty,
                boxed: false,
            });
        }
        let fallback = fallback_name(&mut scope);
        Ok(UnionDef {
            name: name.to_owned(),
            doc,
            tag: Some(tag.to_owned()),
            variants,
            fallback: Some(fallback),
            scalar: false,
        })
    }

    /// The component key of a branch that is a `$ref` to an absorbed component.
    fn absorbed_target(&self, b: &Schema) -> Option<String> {
        let key = refs::component_name::<Schema>(b.reference.as_deref()?)?;
        self.absorbed.contains(&key).then_some(key)
    }

    /// An untagged enum whose variants are tried most specific first.
    fn untagged(
        &mut self,
        name: &str,
        doc: String,
        key: &str,
        branches: &[(usize, &Schema)],
        ptr: &str,
    ) -> Result<UnionDef, Located> {
        let mut scope = Scope::default();
        let mut ranked: Vec<(Rank, Variant)> = Vec::with_capacity(branches.len());
        for (i, b) in branches {
            let b_ptr = format!("{ptr}/{key}/{i}");
            let vname = scope.claim(self.variant_name(b));
            let (ty, _) = self.ty(b, &b_ptr, &format!("{name}{vname}"))?;
            let rank = self.rank(b, &b_ptr, 0);
            let target_doc = match &b.reference {
                Some(r) => self.resolve(r, &b_ptr)?.0.description().map(str::to_owned),
                None => None,
            };
            ranked.push((
                rank,
                Variant {
                    doc: doc_of(b, || {
                        // An empty description (`description: ""`) is no doc:
                        // rustdoc's `missing_docs` counts the variant undocumented.
                        target_doc
                            .map(|d| d.trim().to_owned())
                            .filter(|d| !d.is_empty())
                            .unwrap_or_else(|| format!("Branch {i} of the `{key}`."))
                    }),
                    name: vname,
                    tag_value: None,
                    ty: Some(ty),
                    boxed: false,
                },
            ));
        }
        ranked.sort_by_key(|(rank, _)| *rank);
        let scalar = ranked.iter().all(|((r, ..), _)| (2..=4).contains(r));
        let variants: Vec<Variant> = ranked.into_iter().map(|(_, v)| v).collect();
        let catch_all = variants.iter().any(|v| v.ty == Some(Ty::Json));
        let fallback = (!catch_all).then(|| fallback_name(&mut scope));
        Ok(UnionDef {
            name: name.to_owned(),
            doc,
            tag: None,
            variants,
            fallback,
            scalar,
        })
    }

    /// A variant's name: the branch's `title`, the component it refers to, or its type.
    fn variant_name(&self, b: &Schema) -> String {
        if let Some(title) = b.title().filter(|t| !t.trim().is_empty()) {
            return pascal(title);
        }
        let reference = b.reference.as_deref().or(match b.all_of.as_slice() {
            [only] => only.reference.as_deref(),
            _ => None,
        });
        if let Some(key) = reference.and_then(refs::component_name::<Schema>)
            && let Some(name) = self.components.get(&key)
        {
            return name.clone();
        }
        let (names, _) = type_names(b);
        match names.as_slice() {
            [one] => pascal(one),
            _ if !b.properties.is_empty() => "Object".to_owned(),
            _ => "Variant".to_owned(),
        }
    }

    /// Where an untagged variant goes in the order of trial (see the module's doc).
    fn rank(&self, s: &Schema, ptr: &str, depth: usize) -> Rank {
        use std::cmp::Reverse;
        let last = (6, Reverse(0), Reverse(0));
        if depth > 32 {
            return last;
        }
        if let Some(r) = &s.reference {
            return match self.resolve(r, ptr) {
                Ok((target, target_ptr)) => self.rank(target, &target_ptr, depth + 1),
                Err(_) => last,
            };
        }
        let own_shape = s.kind.is_none() && s.properties.is_empty() && s.items.is_none();
        if let [only] = s.all_of.as_slice()
            && own_shape
        {
            return self.rank(only, ptr, depth + 1);
        }
        let (names, _) = type_names(s);
        let mut p = Props::default();
        if self
            .collect_properties(s, ptr, &mut p.0, &mut p.1, 0)
            .is_ok()
            && !p.0.is_empty()
        {
            return (1, Reverse(p.1.len()), Reverse(p.0.len()));
        }
        if union_branches(s).1.len() > 1 {
            return (5, Reverse(0), Reverse(0));
        }
        match names.as_slice() {
            ["array"] => (0, Reverse(0), Reverse(0)),
            ["boolean"] => (2, Reverse(0), Reverse(0)),
            ["integer"] => (2, Reverse(0), Reverse(0)),
            ["number"] => (3, Reverse(0), Reverse(0)),
            // A typed format refuses other text, so it goes before a plain string.
            ["string"]
                if !self.string_formats
                    && matches!(s.format.as_deref(), Some("date-time" | "date" | "uuid")) =>
            {
                (4, Reverse(1), Reverse(0))
            }
            ["string"] => (4, Reverse(0), Reverse(0)),
            [] if s.enumeration.is_some() || s.constant.is_some() => (4, Reverse(0), Reverse(0)),
            [] if s.items.is_some() => (0, Reverse(0), Reverse(0)),
            _ => last,
        }
    }
}

/// Whether no value repeats.
fn distinct(values: &[String]) -> bool {
    let set: std::collections::BTreeSet<&String> = values.iter().collect();
    set.len() == values.len()
}

/// The fallback variant's name: the first of [`FALLBACK_NAMES`] no variant took.
fn fallback_name(scope: &mut Scope) -> String {
    let free = FALLBACK_NAMES
        .into_iter()
        .find(|f| !scope.contains(f))
        .unwrap_or("Unknown");
    scope.claim(free.to_owned())
}
