//! Schemas to Rust types: structs, enums with a fallback, aliases, and the types of
//! fields, parameters and bodies.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use indexmap::IndexMap;
use serde_json::Value;

use super::{Lowerer, formats, parse_unit};
use crate::error::{Located, push_pointer};
use crate::ir::{
    AliasDef, Checks, CombinedRule, DefaultValue, EnumDef, EnumKind, Field, NamedConstructor,
    Operation, StructDef, Ty, TypeDef,
};
use crate::names::{Scope, pascal, snake};
use crate::warning::WarningKind;
use spec_model::model::{AdditionalProperties, Schema, SchemaType, Text};
use spec_model::refs;

/// What a schema becomes when it gets a name of its own.
pub(super) enum Shape {
    /// A struct (object with properties, or `allOf` of several objects).
    Struct,
    /// An enum of listed strings, integers or mixed values.
    Enum,
    /// A `oneOf`/`anyOf` of several non-null branches.
    Union,
    /// Anything else: a primitive, a list, a map, a reference.
    Other,
}

/// The non-`null` type names of a schema and whether `null` was among them.
pub(super) fn type_names(s: &Schema) -> (Vec<&str>, bool) {
    let all: Vec<&str> = match &s.kind {
        None => Vec::new(),
        Some(SchemaType::One(t)) => vec![t.as_str()],
        Some(SchemaType::Many(ts)) => ts.iter().map(String::as_str).collect(),
    };
    let non_null: Vec<&str> = all.iter().copied().filter(|t| *t != "null").collect();
    let had_null = non_null.len() != all.len();
    (non_null, had_null)
}

/// Whether a schema says nothing about its value (`{}`, or a description alone): any JSON.
pub(super) fn is_any(s: &Schema) -> bool {
    s.reference.is_none()
        && s.kind.is_none()
        && s.properties.is_empty()
        && s.items.is_none()
        && s.prefix_items.is_empty()
        && s.additional_properties.is_none()
        && s.enumeration.is_none()
        && s.constant.is_none()
        && s.all_of.is_empty()
        && s.one_of.is_empty()
        && s.any_of.is_empty()
}

/// Whether an `allOf` part adds nothing to the shape of what it joins: no type of its own
/// and no `required` (a part that only makes properties required still shapes the struct).
fn only_annotates(s: &Schema) -> bool {
    is_any(s) && s.required.is_empty()
}

/// Whether a schema only admits `null` (`{type: "null"}`, `{enum: [null]}`).
fn is_null_schema(s: &Schema) -> bool {
    let (names, had_null) = type_names(s);
    (names.is_empty() && had_null)
        || s.enumeration
            .as_ref()
            .is_some_and(|e| !e.is_empty() && e.iter().all(Value::is_null))
}

/// Whether an inline schema makes a named type of its own (a struct, an enum, a union),
/// so that a second identical one may share it.
fn makes_named_type(s: &Schema) -> bool {
    matches!(shape(s), Shape::Struct | Shape::Enum | Shape::Union)
        || !s.one_of.is_empty()
        || !s.any_of.is_empty()
        || type_names(s).0.len() > 1
}

/// What makes two inline schemas the same type: the whole schema, nested parts
/// included, but for its own `title`, `description`, `example` and `examples`, which
/// document one use of it rather than the shape (the type takes the first use's). Every
/// keyword the model keeps, maps in spec order, no source positions: two schemas have
/// one key when their `Debug` texts (so stripped) are the same, and only then (but for a
/// collision of the 128-bit hash: two SipHash-1-3 streams with fixed keys, so the same on
/// every run and machine).
///
/// The schema is fed to the hash field by field ([`feed`]): hashing its `Debug` text
/// (what this was first) wrote a few bytes at a time into both streams, formatted every
/// empty field of every nested schema, and cloned the schema to strip it; on Prefect's
/// spec that was nearly half of the lowering, on the core the printing waits for.
pub(super) fn inline_key(s: &Schema) -> InlineKey {
    use std::hash::Hasher as _;
    let mut streams = Streams(
        std::hash::DefaultHasher::new(),
        std::hash::DefaultHasher::new(),
    );
    // The second stream starts from another state, so the two halves are independent.
    streams.1.write_u8(0x5a);
    feed(&mut streams, s, false);
    (u128::from(streams.0.finish()) << 64) | u128::from(streams.1.finish())
}

/// The two streams of [`inline_key`], written alike.
struct Streams(std::hash::DefaultHasher, std::hash::DefaultHasher);

impl std::hash::Hasher for Streams {
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
        self.1.write(bytes);
    }

    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

impl std::fmt::Write for Streams {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        std::hash::Hasher::write(self, text.as_bytes());
        Ok(())
    }
}

/// The pieces [`feed`] writes a schema's fields with: each value tagged or ended so that
/// no two values feed the same bytes.
mod fed {
    use super::{Schema, Streams, Text};
    use std::fmt::Write as _;
    use std::hash::Hasher as _;
    pub(super) fn text(h: &mut Streams, t: &str) {
        h.write(t.as_bytes());
        h.write_u8(0xff);
    }
    pub(super) fn opt_text(h: &mut Streams, t: &Option<String>) {
        match t {
            None => h.write_u8(0),
            Some(t) => {
                h.write_u8(1);
                text(h, t);
            }
        }
    }
    pub(super) fn debug(h: &mut Streams, v: &Option<impl std::fmt::Debug>) {
        match v {
            None => h.write_u8(0),
            Some(v) => {
                h.write_u8(1);
                let _ = write!(h, "{v:?}");
                h.write_u8(0xff);
            }
        }
    }
    pub(super) fn prose(h: &mut Streams, t: &Option<Text>) {
        match t {
            None => h.write_u8(0),
            Some(Text::String(t)) => {
                h.write_u8(1);
                text(h, t);
            }
            Some(other) => {
                h.write_u8(2);
                let _ = write!(h, "{other:?}");
                h.write_u8(0xff);
            }
        }
    }
    pub(super) fn rare<T: std::fmt::Debug>(h: &mut Streams, v: &T, empty: bool) {
        if empty {
            h.write_u8(0);
        } else {
            h.write_u8(1);
            let _ = write!(h, "{v:?}");
            h.write_u8(0xff);
        }
    }
    pub(super) fn number(h: &mut Streams, n: Option<u64>) {
        match n {
            None => h.write_u8(0),
            Some(n) => {
                h.write_u8(1);
                h.write_u64(n);
            }
        }
    }
    pub(super) fn float(h: &mut Streams, n: Option<f64>) {
        // Equal bits, equal `Debug` text (a JSON number is never NaN).
        number(h, n.map(f64::to_bits));
    }
    pub(super) fn list(h: &mut Streams, l: &[Schema]) {
        h.write_usize(l.len());
        for s in l {
            super::feed(h, s, true);
        }
    }
    pub(super) fn strings(h: &mut Streams, l: &[String]) {
        h.write_usize(l.len());
        for t in l {
            text(h, t);
        }
    }
}

/// Feeds a schema to the streams: each field in turn, unambiguously (a tag before every
/// optional or variant value, a length before every list and map, strings ended by the
/// byte no UTF-8 text holds), nested schemas the same way, and the rarer values (JSON
/// values, extensions) as their `Debug` text. So two schemas feed the same bytes exactly
/// when their `Debug` texts are the same. Without `keep_docs`, the schema's own `title`,
/// `description`, `example` and `examples` are left out (not its nested schemas').
fn feed(h: &mut Streams, s: &Schema, keep_docs: bool) {
    use fed::{debug, float, list, number, opt_text, prose, rare, strings, text};
    use std::hash::Hasher as _;
    // Every field by name: a field added to `Schema` does not compile here until it is
    // fed too.
    let Schema {
        reference,
        kind,
        format,
        nullable,
        title,
        description,
        properties,
        required,
        items,
        prefix_items,
        additional_properties,
        enumeration,
        constant,
        all_of,
        one_of,
        any_of,
        max_length,
        min_length,
        pattern,
        minimum,
        maximum,
        min_items,
        max_items,
        deprecated,
        secret,
        combined_max_length,
        constructors,
        constraint_levels,
        level,
        decision,
        discriminator,
        default,
        read_only,
        write_only,
        example,
        examples,
    } = s;
    opt_text(h, reference);
    match kind {
        None => h.write_u8(0),
        Some(SchemaType::One(t)) => {
            h.write_u8(1);
            text(h, t);
        }
        Some(SchemaType::Many(l)) => {
            h.write_u8(2);
            strings(h, l);
        }
    }
    opt_text(h, format);
    h.write_u8(u8::from(*nullable));
    if keep_docs {
        prose(h, title);
        prose(h, description);
    }
    h.write_usize(properties.len());
    for (name, property) in properties {
        text(h, name);
        feed(h, property, true);
    }
    strings(h, required);
    match items {
        None => h.write_u8(0),
        Some(items) => {
            h.write_u8(1);
            feed(h, items, true);
        }
    }
    list(h, prefix_items);
    match additional_properties {
        None => h.write_u8(0),
        Some(AdditionalProperties::Flag(flag)) => h.write_u8(2 + u8::from(*flag)),
        Some(AdditionalProperties::Schema(schema)) => {
            h.write_u8(4);
            feed(h, schema, true);
        }
    }
    debug(h, enumeration);
    debug(h, constant);
    list(h, all_of);
    list(h, one_of);
    list(h, any_of);
    number(h, *max_length);
    number(h, *min_length);
    opt_text(h, pattern);
    float(h, *minimum);
    float(h, *maximum);
    number(h, *min_items);
    number(h, *max_items);
    h.write_u8(u8::from(*deprecated) | u8::from(*secret) << 1);
    h.write_u8(u8::from(*read_only) | u8::from(*write_only) << 1);
    rare(h, combined_max_length, combined_max_length.is_empty());
    rare(h, constructors, constructors.is_empty());
    rare(h, constraint_levels, constraint_levels.is_empty());
    debug(h, level);
    debug(h, decision);
    debug(h, discriminator);
    debug(h, default);
    if keep_docs {
        debug(h, example);
        debug(h, examples);
    }
}

/// What [`inline_key`] gives: equal for schemas of one shape.
pub(super) type InlineKey = u128;

pub(super) fn shape(s: &Schema) -> Shape {
    if s.reference.is_some() {
        return Shape::Other;
    }
    if s.all_of.len() > 1 || (!s.all_of.is_empty() && !s.properties.is_empty()) {
        return Shape::Struct;
    }
    let (names, _) = type_names(s);
    let object = names == ["object"] || (names.is_empty() && !s.properties.is_empty());
    if object && !s.properties.is_empty() {
        return Shape::Struct;
    }
    if union_branches(s).1.len() > 1 {
        return Shape::Union;
    }
    if enum_kind(s).is_some() {
        return Shape::Enum;
    }
    Shape::Other
}

/// The branches of a schema's `oneOf` (or else `anyOf`) that admit more than `null`, with
/// their index, and the keyword they sit under.
pub(super) fn union_branches(s: &Schema) -> (&'static str, Vec<(usize, &Schema)>) {
    let (key, list) = if s.one_of.is_empty() {
        ("anyOf", &s.any_of)
    } else {
        ("oneOf", &s.one_of)
    };
    let branches = list
        .iter()
        .enumerate()
        .filter(|(_, x)| !is_null_schema(x))
        .collect();
    (key, branches)
}

/// The schema `type` a `const` value has: an integer in `i64` range is an
/// `integer`, any other number a `number`. `None` for a list or an object, which stay
/// `serde_json::Value`.
fn const_type(value: &Value) -> Option<&'static str> {
    match value {
        Value::String(_) => Some("string"),
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_i64() => Some("integer"),
        Value::Number(_) => Some("number"),
        _ => None,
    }
}

/// The rustdoc of a schema, or `fallback` when it has none.
pub(super) fn doc_of(s: &Schema, fallback: impl FnOnce() -> String) -> String {
    // An `allOf` part that only annotates (`allOf: [{$ref: X}, {description: ...}]`)
    // documents the schema it sits in.
    let annotation = || {
        (s.all_of.iter())
            .filter(|part| only_annotates(part))
            .find_map(|part| part.description().or(part.title()))
    };
    let mut doc = s
        .description()
        .or(s.title())
        .or_else(annotation)
        .map(|d| d.trim().to_owned())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(fallback);
    if let Some(value) = &s.constant {
        doc.push_str(&format!(
            "\n\nAlways `{value}`: the spec fixes the value (`const`)."
        ));
    }
    if s.deprecated {
        doc.push_str("\n\nDeprecated by the spec.");
    }
    doc
}

impl<'a> Lowerer<'a> {
    /// Defines the type of a component schema under its already claimed name.
    pub(super) fn component(&mut self, name: &str, s: &Schema, ptr: &str) -> Result<(), Located> {
        self.inspect(s, ptr);
        match shape(s) {
            Shape::Struct => {
                let def = self.struct_def(name, s, ptr)?;
                self.types.push(TypeDef::Struct(def));
            }
            Shape::Enum => {
                let def = enum_def(name, s, ptr)?;
                self.types.push(TypeDef::Enum(def));
            }
            Shape::Union => {
                let def = self.union_def(name, s, ptr)?;
                self.types.push(def);
            }
            Shape::Other => {
                if let Some(r) = &s.reference
                    && self.resolved(r, ptr)?.pointer == ptr
                {
                    return Err(Located::new(
                        push_pointer(ptr, "$ref"),
                        "a schema that is only a reference to itself",
                    ));
                }
                let (ty, nullable) = self.ty(s, ptr, name)?;
                let mut doc = doc_of(s, || format!("The `{name}` schema."));
                if nullable {
                    doc.push_str("\n\nThe spec also allows `null` where this type is used.");
                }
                self.types.push(TypeDef::Alias(AliasDef {
                    name: name.to_owned(),
                    doc,
                    ty,
                }));
            }
        }
        Ok(())
    }

    /// The name of the component schema a `$ref` names, checked to exist.
    pub(super) fn ref_key(&self, reference: &str, ptr: &str) -> Result<&'a str, Located> {
        let target = self.resolved(reference, ptr)?;
        target.name.ok_or_else(|| {
            Located::new(
                push_pointer(ptr, "$ref"),
                format!(
                    "unsupported $ref `{reference}`: points inside a schema, where only \
                     `#/components/schemas/<name>` names a type"
                ),
            )
        })
    }

    /// The schema a `$ref` names (a component, or a schema inside one), without
    /// following the target's own `$ref`.
    fn resolved(&self, reference: &str, ptr: &str) -> Result<refs::Target<'a, Schema>, Located> {
        let spec: &'a spec_model::model::OpenApi = self.spec;
        refs::lookup::<Schema>(spec, reference).map_err(|e| e.at(ptr))
    }

    /// The schema a `$ref` points at, with its pointer.
    pub(super) fn resolve(
        &self,
        reference: &str,
        ptr: &str,
    ) -> Result<(&'a Schema, String), Located> {
        self.resolved(reference, ptr).map(|t| (t.node, t.pointer))
    }

    /// Whether a schema admits `null` at its top: `nullable`, a `"null"` type, `null`
    /// among its enum values, a null branch of `oneOf`/`anyOf`, or a `$ref` (or single
    /// `allOf`) to a schema that does. `depth` stops a cycle of `$ref`s.
    fn admits_null(&self, s: &Schema, depth: usize) -> bool {
        if depth > 32 {
            return false;
        }
        let follow = |x: &Schema| {
            x.reference.as_ref().is_some_and(|r| {
                refs::lookup::<Schema>(self.spec, r)
                    .is_ok_and(|t| self.admits_null(t.node, depth + 1))
            })
        };
        s.nullable
            || type_names(s).1
            || s.enumeration
                .as_ref()
                .is_some_and(|e| e.iter().any(Value::is_null))
            || s.one_of.iter().chain(&s.any_of).any(is_null_schema)
            || follow(s)
            || (s.all_of.len() == 1 && self.admits_null(&s.all_of[0], depth + 1))
    }

    /// The Rust type of a schema used in place (field, item, parameter, body), and whether
    /// it admits `null`. An inline schema that needs a named type of
    /// its own gets one named after `hint`, unless an identical inline schema (see
    /// [`inline_key`]) was met before: then it is that type, so the same value has one
    /// type wherever the spec repeats its schema (Prefect's `Variable.value` and
    /// `VariableCreate.value`). The first met, in spec order (components, then
    /// operations), names it, which is deterministic. The copy is still lowered, for the
    /// warnings that name its own place, and what it made is then dropped.
    pub(super) fn ty(&mut self, s: &Schema, ptr: &str, hint: &str) -> Result<(Ty, bool), Located> {
        if s.reference.is_some() || !makes_named_type(s) {
            return self.ty_uncached(s, ptr, hint);
        }
        let key = inline_key(s);
        if let Some(hit) = self.inline_types.get(&key).cloned() {
            let mark = self.mark();
            let copy = self.ty_uncached(s, ptr, hint);
            self.roll_back(&mark);
            // The name this place would have given its own type stays an alias of the
            // shared one (see `merged`), unless the shared type is a component's (an
            // `allOf` that only annotates a `$ref` is the component itself).
            if let (Ty::Named(shared), Ty::Named(own)) = (&hit.0, &copy?.0)
                && self.inline_titles.contains_key(shared)
            {
                let own = self.type_names.claim(own.clone());
                self.merged.entry(shared.clone()).or_default().push(own);
            }
            return Ok(hit);
        }
        let before = self.types.len();
        let lowered = self.ty_uncached(s, ptr, hint)?;
        if matches!(lowered.0, Ty::Named(_)) {
            self.inline_types.insert(key, lowered.clone());
            self.journal.inline_types.push(key);
        }
        // A type this schema made (not a component it stands for): its title names it if
        // identical schemas elsewhere merge into it.
        if let Ty::Named(name) = &lowered.0
            && self.types[before..].iter().any(|t| t.name() == name)
        {
            self.inline_titles.insert(
                name.clone(),
                s.title.as_ref().and_then(|t| t.as_str()).map(str::to_owned),
            );
            self.journal.inline_titles.push(name.clone());
        }
        Ok(lowered)
    }

    /// [`ty`](Self::ty) without its cache of inline types: each kind of schema has a
    /// method of its own, tried in the order that decides which reading wins.
    fn ty_uncached(&mut self, s: &Schema, ptr: &str, hint: &str) -> Result<(Ty, bool), Located> {
        self.inspect(s, ptr);
        if let Some(r) = &s.reference {
            return self.ref_ty(r, ptr, s.nullable, hint);
        }
        if let Some(found) = self.all_of_alias_ty(s, ptr, hint)? {
            return Ok(found);
        }
        let mut nullable = s.nullable;
        if let Some(found) = self.one_of_ty(s, ptr, hint, &mut nullable)? {
            return Ok(found);
        }
        if let Some(found) = self.named_shape_ty(s, ptr, hint, nullable)? {
            return Ok(found);
        }
        self.scalar_ty(s, ptr, hint, nullable)
    }

    /// A `$ref`: the component's own type, never a copy, so nullability is the one thing
    /// the place of use can add.
    ///
    /// A reference to a schema that is no component (a property of one, another
    /// operation's body or answer) is that schema lowered where it is used, as if written
    /// there: several uses of it are identical inline schemas, one type (see [`ty`](Self::ty)).
    /// A chain of such references that comes back to a schema being lowered is any JSON,
    /// with a warning, rather than a type without end.
    fn ref_ty(
        &mut self,
        r: &str,
        ptr: &str,
        nullable: bool,
        hint: &str,
    ) -> Result<(Ty, bool), Located> {
        let target = self.resolved(r, ptr)?;
        if target.name.is_none() {
            if !self.refs_in_progress.insert(target.pointer.clone()) {
                self.warn(
                    WarningKind::UntypedSchema,
                    push_pointer(ptr, "$ref"),
                    format!(
                        "`$ref` `{r}` leads back into the schema it is part of, which is no \
                         component to name: read as any JSON value (`serde_json::Value`)"
                    ),
                );
                return Ok((Ty::Json, nullable));
            }
            let lowered = self.ty(target.node, &target.pointer, hint);
            self.refs_in_progress.remove(&target.pointer);
            let (ty, target_null) = lowered?;
            return Ok((ty, nullable || target_null));
        }
        let key = self.ref_key(r, ptr)?;
        // A component that admits `null` makes every use of it nullable (3.0's
        // `nullable: true` or 3.1's `"null"` on the component itself).
        let target_null = self.admits_null(&self.spec.components.schemas[key], 0);
        Ok((
            Ty::Named(self.components[key].clone()),
            nullable || target_null,
        ))
    }

    /// An `allOf` with one part that shapes the value and no shape of its own: that
    /// part's type, since a new name for the same shape would only be a copy. `None`
    /// when `s` is not such an alias.
    fn all_of_alias_ty(
        &mut self,
        s: &Schema,
        ptr: &str,
        hint: &str,
    ) -> Result<Option<(Ty, bool)>, Located> {
        let nullable = s.nullable;
        let has_own_shape = s.kind.is_none() && s.properties.is_empty() && s.items.is_none();
        if s.all_of.len() == 1 && has_own_shape {
            let (ty, n) = self.ty(&s.all_of[0], &format!("{ptr}/allOf/0"), hint)?;
            return Ok(Some((ty, n || nullable)));
        }
        // `allOf: [{$ref: X}, {description: ...}]`, the way to annotate a reference before
        // 3.1: parts that only annotate add nothing to the shape, so this is `X` itself
        // rather than a copy of it under another name.
        let shaping: Vec<(usize, &Schema)> = (s.all_of.iter().enumerate())
            .filter(|(_, part)| !only_annotates(part))
            .collect();
        if let [(i, only)] = shaping.as_slice()
            && s.all_of.len() > 1
            && has_own_shape
        {
            let annotated_null = s.all_of.iter().any(|part| part.nullable);
            let (ty, n) = self.ty(only, &format!("{ptr}/allOf/{i}"), hint)?;
            return Ok(Some((ty, n || nullable || annotated_null)));
        }
        Ok(None)
    }

    /// A `oneOf`/`anyOf` without properties of its own: the one branch that is not
    /// `null`, or a union named after `hint`. Its `null` branches set `nullable` even when
    /// it returns `None` (an object with properties, which the struct reading takes).
    fn one_of_ty(
        &mut self,
        s: &Schema,
        ptr: &str,
        hint: &str,
        nullable: &mut bool,
    ) -> Result<Option<(Ty, bool)>, Located> {
        for (key, list) in [("oneOf", &s.one_of), ("anyOf", &s.any_of)] {
            if list.is_empty() {
                continue;
            }
            let rest: Vec<(usize, &Schema)> = list
                .iter()
                .enumerate()
                .filter(|(_, x)| !is_null_schema(x))
                .collect();
            *nullable |= rest.len() != list.len();
            if let [(i, only)] = rest.as_slice() {
                let (ty, n) = self.ty(only, &format!("{ptr}/{key}/{i}"), hint)?;
                return Ok(Some((ty, n || *nullable)));
            }
            if !s.properties.is_empty() {
                // An object with properties of its own: the struct below, which warns.
                break;
            }
            let name = self.type_names.claim(pascal(hint));
            let def = self.union_def(&name, s, ptr)?;
            self.types.push(def);
            return Ok(Some((Ty::Named(name), *nullable)));
        }
        Ok(None)
    }

    /// An inline object or enum: a type of its own named after `hint`. `None` for the
    /// other shapes.
    fn named_shape_ty(
        &mut self,
        s: &Schema,
        ptr: &str,
        hint: &str,
        nullable: bool,
    ) -> Result<Option<(Ty, bool)>, Located> {
        match shape(s) {
            Shape::Struct => {
                let (_, had_null) = type_names(s);
                // Met again while its own fields are lowered (an inline `allOf` that
                // includes the component it sits in): the struct being made, which the
                // boxing pass then holds behind a `Box`.
                if let Some(name) = self.inline_in_progress.get(ptr) {
                    return Ok(Some((Ty::Named(name.clone()), nullable || had_null)));
                }
                let name = self.type_names.claim(pascal(hint));
                self.inline_in_progress.insert(ptr.to_owned(), name.clone());
                let def = self.struct_def(&name, s, ptr);
                self.inline_in_progress.remove(ptr);
                self.types.push(TypeDef::Struct(def?));
                Ok(Some((Ty::Named(name), nullable || had_null)))
            }
            Shape::Enum => {
                let name = self.type_names.claim(pascal(hint));
                let def = enum_def(&name, s, ptr)?;
                let (_, had_null) = type_names(s);
                let null_value = s
                    .enumeration
                    .as_ref()
                    .is_some_and(|e| e.iter().any(Value::is_null));
                self.types.push(TypeDef::Enum(def));
                Ok(Some((Ty::Named(name), nullable || had_null || null_value)))
            }
            Shape::Union | Shape::Other => Ok(None),
        }
    }

    /// What is left once references, aliases, unions and named shapes are ruled out: a
    /// type read from `type` (or from `const`, or from `items` and `additionalProperties`
    /// when `type` is missing).
    fn scalar_ty(
        &mut self,
        s: &Schema,
        ptr: &str,
        hint: &str,
        mut nullable: bool,
    ) -> Result<(Ty, bool), Located> {
        if is_null_schema(s) {
            // Only `null` (`type: "null"`, `enum: [null]`): `()`, which serde reads from
            // and writes as `null`; the type itself is the null, so not an `Option`.
            return Ok((Ty::Unit, false));
        }
        let (names, had_null) = type_names(s);
        nullable |= had_null;
        // `const` without `type`: the value's own JSON type (a list or an object falls
        // through to `Value`, with its warning; `const: null` reads as no `const` at all).
        let const_kind = s.constant.as_ref().and_then(const_type);
        let kind = match (names.as_slice(), const_kind) {
            ([], _) if s.items.is_some() || !s.prefix_items.is_empty() => "array",
            ([], _) if s.additional_properties.is_some() => "object",
            ([], Some(kind)) => kind,
            ([], None) => {
                self.warn(
                    WarningKind::UntypedSchema,
                    ptr,
                    "a schema with no `type` (any JSON value) becomes `serde_json::Value`",
                );
                return Ok((Ty::Json, nullable));
            }
            ([one], _) => *one,
            (several, _) => {
                return Ok((self.type_list_union(s, several, ptr, hint)?, nullable));
            }
        };
        Ok((self.kind_ty(s, kind, ptr, hint)?, nullable))
    }

    /// `type: [A, B]`: a union with one branch per type, as if written with `oneOf`.
    fn type_list_union(
        &mut self,
        s: &Schema,
        several: &[&str],
        ptr: &str,
        hint: &str,
    ) -> Result<Ty, Located> {
        let branches = several
            .iter()
            .map(|t| Schema {
                kind: Some(SchemaType::One((*t).to_owned())),
                one_of: Vec::new(),
                any_of: Vec::new(),
                nullable: false,
                description: None,
                title: None,
                example: None,
                examples: None,
                ..s.clone()
            })
            .collect();
        let union = Schema {
            one_of: branches,
            description: s.description.clone(),
            title: s.title.clone(),
            ..Schema::default()
        };
        let name = self.type_names.claim(pascal(hint));
        let def = self.union_def(&name, &union, ptr)?;
        self.types.push(def);
        Ok(Ty::Named(name))
    }

    /// The type of one JSON type name, `kind`, refined by the schema's `format`, `items`
    /// or `additionalProperties`.
    fn kind_ty(&mut self, s: &Schema, kind: &str, ptr: &str, hint: &str) -> Result<Ty, Located> {
        Ok(match kind {
            "string" => {
                if let Some(warning) = formats::unknown_string_format(s.format.as_deref()) {
                    self.warn(
                        WarningKind::UnknownFormat,
                        push_pointer(ptr, "format"),
                        warning,
                    );
                }
                match s.format.as_deref() {
                    _ if self.string_formats => Ty::String,
                    Some("date-time") => Ty::DateTime,
                    Some("date") => Ty::Date,
                    Some("uuid") => Ty::Uuid,
                    _ => Ty::String,
                }
            }
            "boolean" => Ty::Bool,
            "integer" => match s.format.as_deref() {
                Some("int32" | "int16" | "int8" | "uint8" | "uint16") => Ty::I32,
                _ => Ty::I64,
            },
            "number" => match s.format.as_deref() {
                Some("float") => Ty::F32,
                _ => Ty::F64,
            },
            "array" if !s.prefix_items.is_empty() => self.tuple(s, ptr, hint)?,
            "array" => match &s.items {
                Some(items) => {
                    let items_ptr = push_pointer(ptr, "items");
                    let (item, item_null) = self.ty(items, &items_ptr, &format!("{hint}Item"))?;
                    if item_null && !matches!(item, Ty::Json | Ty::Unit) {
                        // Items that may be `null`: `Vec<Option<T>>` keeps both.
                        Ty::Vec(Box::new(Ty::Option(Box::new(item))))
                    } else {
                        Ty::Vec(Box::new(item))
                    }
                }
                None => {
                    self.warn(
                        WarningKind::UntypedList,
                        ptr,
                        "a list without `items` holds `serde_json::Value` items",
                    );
                    Ty::Vec(Box::new(Ty::Json))
                }
            },
            "object" => match &s.additional_properties {
                Some(AdditionalProperties::Schema(values)) if !is_any(values) => {
                    let values_ptr = push_pointer(ptr, "additionalProperties");
                    let (value, value_null) =
                        self.ty(values, &values_ptr, &format!("{hint}Value"))?;
                    if value_null && !matches!(value, Ty::Json | Ty::Unit) {
                        // Values that may be `null`: `BTreeMap<String, Option<T>>`.
                        Ty::Map(Box::new(Ty::Option(Box::new(value))))
                    } else {
                        Ty::Map(Box::new(value))
                    }
                }
                // An object with no properties and `additionalProperties: false` holds
                // nothing: an empty map, whose value type never holds a value.
                Some(AdditionalProperties::Flag(false)) => Ty::Map(Box::new(Ty::Json)),
                // A free-form object: a map of any JSON values, which at least promises
                // an object. Its values are untyped all the same, so it is said.
                _ => {
                    self.warn(
                        WarningKind::FreeFormObject,
                        ptr,
                        "free-form object: its values are `serde_json::Value`",
                    );
                    Ty::Map(Box::new(Ty::Json))
                }
            },
            "null" => {
                self.warn(
                    WarningKind::UntypedSchema,
                    ptr,
                    "a schema of type `null` alone becomes `serde_json::Value`",
                );
                Ty::Json
            }
            other => {
                return Err(Located::new(
                    push_pointer(ptr, "type"),
                    format!("unknown schema type `{other}`"),
                ));
            }
        })
    }

    /// Collects the properties of an object schema, following `allOf` parts (and a
    /// `$ref` to another object), in order: a base's properties first, then each later
    /// part's. `required` is the union of every part's. A property a later part lists
    /// again is overridden: its schema wins, as JSON Schema's `allOf` requires both to
    /// hold and the later one is the narrower in every spec seen; a later schema that
    /// states no type of its own (`{description: ..., default: ...}`) refines the base's
    /// instead of erasing it.
    pub(super) fn collect_properties<'s>(
        &self,
        s: &'s Schema,
        ptr: &str,
        props: &mut IndexMap<String, (Cow<'s, Schema>, String)>,
        required: &mut BTreeSet<String>,
        depth: usize,
    ) -> Result<(), Located>
    where
        'a: 's,
    {
        if depth > 32 {
            return Err(Located::new(
                ptr,
                "allOf nests too deeply (a reference cycle?)",
            ));
        }
        if let Some(r) = &s.reference {
            let (target, target_ptr) = self.resolve(r, ptr)?;
            return self.collect_properties(target, &target_ptr, props, required, depth + 1);
        }
        for (i, part) in s.all_of.iter().enumerate() {
            let part_ptr = format!("{ptr}/allOf/{i}");
            self.collect_properties(part, &part_ptr, props, required, depth + 1)?;
        }
        for (wire, prop) in &s.properties {
            let prop_ptr = push_pointer(&push_pointer(ptr, "properties"), wire);
            // A later part that names a property again refines it (see `refine`); the
            // property keeps the place where it was first listed.
            let merged = match props.get(wire) {
                Some((base, _)) if is_any(prop) => Cow::Owned(refine(base, prop)),
                _ => Cow::Borrowed(prop),
            };
            props.insert(wire.clone(), (merged, prop_ptr));
        }
        required.extend(s.required.iter().cloned());
        Ok(())
    }

    /// A struct from an object schema.
    fn struct_def(&mut self, name: &str, s: &Schema, ptr: &str) -> Result<StructDef, Located> {
        self.struct_def_except(name, s, ptr, None)
    }

    /// A struct from an object schema, leaving out the property `except` (the tag of an
    /// internally tagged union, which the enum carries).
    pub(super) fn struct_def_except(
        &mut self,
        name: &str,
        s: &Schema,
        ptr: &str,
        except: Option<&str>,
    ) -> Result<StructDef, Located> {
        let mut props = IndexMap::new();
        let mut required = BTreeSet::new();
        self.collect_properties(s, ptr, &mut props, &mut required, 0)?;
        if let Some(except) = except {
            props.shift_remove(except);
        }
        let branch_note = self.merge_branches(s, ptr, &mut props)?;
        let mut field_names = Scope::default();
        let mut fields = Vec::with_capacity(props.len());
        for (wire, (prop, prop_ptr)) in &props {
            let required = required.contains(wire);
            let field = self.property_field(name, wire, prop, prop_ptr, required)?;
            fields.push(Field {
                name: field_names.claim(snake(wire)),
                ..field
            });
        }
        if let Some(values) = self.extras(s, ptr, name)? {
            fields.push(Field {
                name: field_names.claim("extra".to_owned()),
                wire: String::new(),
                doc: "The properties the spec does not name (`additionalProperties`), by \
                      wire name: flattened into the object on the wire."
                    .to_owned(),
                ty: Ty::Map(Box::new(values)),
                required: true,
                nullable: false,
                boxed: false,
                secret: false,
                checks: Checks::default(),
                flatten: true,
                default: None,
            });
        }
        let combined = self.combined_rules(s, ptr, &fields)?;
        let constructors = constructors(s, &fields, ptr)?;
        let mut doc = doc_of(s, || format!("The `{name}` object."));
        doc.push_str(&branch_note);
        Ok(StructDef {
            name: name.to_owned(),
            doc,
            fields,
            combined,
            validates: false,
            request: false,
            constructors,
        })
    }

    /// The field of the property `wire` of the struct `name`, with an empty Rust name:
    /// the caller claims it, as only it sees the struct's other fields. `listed` is
    /// whether the object's `required` lists it, which a one-way field overrules.
    fn property_field(
        &mut self,
        name: &str,
        wire: &str,
        prop: &Schema,
        prop_ptr: &str,
        listed: bool,
    ) -> Result<Field, Located> {
        let hint = format!("{name}{}", pascal(wire));
        let (ty, nullable) = self.ty(prop, prop_ptr, &hint)?;
        let target_doc = match &prop.reference {
            Some(r) => self
                .resolve(r, prop_ptr)?
                .0
                .description()
                .map(str::to_owned),
            None => None,
        };
        let mut doc = doc_of(prop, || {
            // A blank description (`""`, which real documents have) says nothing.
            (target_doc.map(|d| d.trim().to_owned()))
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| format!("The `{wire}` field."))
        });
        // A `readOnly` field never travels in a request and a `writeOnly` one never in
        // a response, so one struct serves both ways only if neither is required: the
        // field is an `Option`, left out when `None`.
        let one_way = prop.read_only || prop.write_only;
        if prop.read_only {
            doc.push_str("\n\nRead-only: set by the server, leave it `None` in a request.");
        }
        if prop.write_only {
            doc.push_str("\n\nWrite-only: sent in requests, absent from responses.");
        }
        // `byte` is base64 text and `binary` in JSON is a string too: kept as the
        // `String` on the wire (decoding base64 would need a dependency the crate
        // does not have).
        match prop.format.as_deref() {
            Some("byte") => doc.push_str("\n\nBase64-encoded bytes, as sent."),
            Some("binary") => doc.push_str("\n\nBinary data, as the JSON string holds it."),
            _ => {}
        }
        let required = listed && !one_way;
        let default = match &prop.default {
            Some(value) => {
                let default = self.default_value(prop, prop_ptr, &ty, value)?;
                // A required field is always sent, a nullable or one-way one stays an
                // `Option` (absent and `null`, or never sent one way, must stay
                // apart): the default is documented, not applied.
                let applied = default.filter(|_| !required && !nullable && !one_way);
                let json = serde_json::to_string(value).unwrap_or_default();
                if applied.is_some() {
                    doc.push_str(&format!(
                        "\n\nDefaults to `{json}` when absent (the spec's `default`)."
                    ));
                } else if !required {
                    doc.push_str(&format!(
                        "\n\nThe spec's default is `{json}`: `None` leaves it to the other side."
                    ));
                }
                applied
            }
            None => None,
        };
        Ok(Field {
            name: String::new(),
            wire: wire.to_owned(),
            doc,
            checks: self.checks(prop, &ty, prop_ptr),
            ty,
            required,
            nullable,
            boxed: false,
            // Pydantic's `SecretStr` is `format: password`.
            secret: prop.secret || prop.format.as_deref() == Some("password"),
            flatten: false,
            default,
        })
    }

    /// The object's `x-combined-max-length` rules, checked against its `fields`: each
    /// must name at least two properties, all of them strings.
    fn combined_rules(
        &self,
        s: &Schema,
        ptr: &str,
        fields: &[Field],
    ) -> Result<Vec<CombinedRule>, Located> {
        let mut combined = Vec::new();
        for (i, rule) in s.combined_max_length.iter().enumerate() {
            let rule_ptr = format!("{ptr}/x-combined-max-length/{i}");
            let max = rule.max.ok_or_else(|| {
                Located::new(rule_ptr.clone(), "x-combined-max-length rule without `max`")
            })?;
            let unit = match rule.unit.as_deref() {
                None => self.unit,
                Some(u) => parse_unit(u).ok_or_else(|| {
                    Located::new(
                        format!("{rule_ptr}/unit"),
                        format!("unknown length unit `{u}`"),
                    )
                })?,
            };
            if rule.fields.len() < 2 {
                return Err(Located::new(
                    format!("{rule_ptr}/fields"),
                    "x-combined-max-length needs at least two fields",
                ));
            }
            let mut rule_fields = Vec::new();
            for (j, wire) in rule.fields.iter().enumerate() {
                let field = fields.iter().find(|f| &f.wire == wire).ok_or_else(|| {
                    Located::new(
                        format!("{rule_ptr}/fields/{j}"),
                        format!("x-combined-max-length names `{wire}`, which is not a property"),
                    )
                })?;
                if field.ty != Ty::String {
                    return Err(Located::new(
                        format!("{rule_ptr}/fields/{j}"),
                        format!("x-combined-max-length names `{wire}`, which is not a string"),
                    ));
                }
                rule_fields.push((field.name.clone(), wire.clone(), field.optional()));
            }
            combined.push(CombinedRule {
                fields: rule_fields,
                max,
                unit,
            });
        }
        Ok(combined)
    }

    /// Folds the `oneOf`/`anyOf` branches of an object with `properties` into its struct,
    /// returning the rustdoc paragraph that states them.
    ///
    /// The listed properties are the fields every branch shares; what a branch adds is a
    /// constraint (a `required` list, a narrowed enum of a listed property: all of
    /// GitHub's such bodies) or properties of its own. The struct holds the shared
    /// properties and, as optional fields, those a branch adds (absent when another
    /// branch holds), so every valid value decodes and can be built. Which branch must
    /// hold is a rule on the value, like `maxLength`: the rustdoc states it and the server
    /// judges it. A property two branches add with different schemas keeps the first
    /// branch's, with a warning (a value of the other branch would not decode).
    fn merge_branches<'s>(
        &mut self,
        s: &'s Schema,
        ptr: &str,
        props: &mut IndexMap<String, (Cow<'s, Schema>, String)>,
    ) -> Result<String, Located>
    where
        'a: 's,
    {
        let mut note = String::new();
        for (key, list, rule) in [
            ("oneOf", &s.one_of, "Exactly one"),
            ("anyOf", &s.any_of, "At least one"),
        ] {
            let branches: Vec<(usize, &Schema)> = list
                .iter()
                .enumerate()
                .filter(|(_, b)| !is_null_schema(b))
                .collect();
            if branches.len() < 2 {
                continue;
            }
            let listed: BTreeSet<String> = props.keys().cloned().collect();
            // Properties a branch adds, with the Debug form of their schema (to tell a
            // repeated identical declaration from a conflicting one).
            let mut added: IndexMap<String, String> = IndexMap::new();
            let mut lines = Vec::new();
            for (i, branch) in branches {
                let branch_ptr = format!("{}/{i}", push_pointer(ptr, key));
                let mut own = IndexMap::new();
                let mut required = BTreeSet::new();
                self.collect_properties(branch, &branch_ptr, &mut own, &mut required, 1)?;
                let mut parts = Vec::new();
                if !required.is_empty() {
                    let names: Vec<String> = required.iter().map(|r| format!("`{r}`")).collect();
                    parts.push(format!("requires {}", names.join(", ")));
                }
                let mut narrowed = Vec::new();
                let mut adds = Vec::new();
                for (wire, (schema, prop_ptr)) in own {
                    if listed.contains(&wire) {
                        narrowed.push(format!("`{wire}`"));
                        continue;
                    }
                    let shape = format!("{:?}", &*schema);
                    match added.get(&wire) {
                        Some(first) if *first != shape => self.warn(
                            WarningKind::Union,
                            prop_ptr.clone(),
                            format!(
                                "property `{wire}` is declared by several `{key}` branches with \
                                 different schemas: the field has the first one's type"
                            ),
                        ),
                        Some(_) => {}
                        None => {
                            added.insert(wire.clone(), shape);
                            props.insert(wire.clone(), (schema, prop_ptr));
                        }
                    }
                    adds.push(format!("`{wire}`"));
                }
                if !narrowed.is_empty() {
                    parts.push(format!("narrows {}", narrowed.join(", ")));
                }
                if !adds.is_empty() {
                    parts.push(format!("has {}", adds.join(", ")));
                }
                if parts.is_empty() {
                    parts.push("adds no rule the spec model reads".to_owned());
                }
                lines.push(format!("- branch {i}: {}", parts.join("; ")));
            }
            note.push_str(&format!(
                "\n\n{rule} of these branches holds (the spec's `{key}`; the server checks \
                 it):\n{}",
                lines.join("\n")
            ));
        }
        Ok(note)
    }

    /// Warns that the extra properties of the object at `ptr` are untyped.
    fn free_form_extras(&mut self, ptr: &str) {
        self.warn(
            WarningKind::FreeFormObject,
            push_pointer(ptr, "additionalProperties"),
            "free-form extra properties: their values are `serde_json::Value`",
        );
    }

    /// The value type of the extra properties of an object with `properties`: `Some` when
    /// `additionalProperties` is `true` or a schema (a free-form `true`/`{}` gives
    /// `serde_json::Value` values, with a warning like a free-form object: the spec says
    /// any JSON, and the named properties stay typed); `None` when it is absent or
    /// `false` (unknown properties are then ignored on decoding, as everywhere).
    fn extras(&mut self, s: &Schema, ptr: &str, name: &str) -> Result<Option<Ty>, Located> {
        if s.properties.is_empty() && s.all_of.is_empty() {
            return Ok(None);
        }
        match &s.additional_properties {
            None | Some(AdditionalProperties::Flag(false)) => Ok(None),
            Some(AdditionalProperties::Flag(true)) => {
                self.free_form_extras(ptr);
                Ok(Some(Ty::Json))
            }
            Some(AdditionalProperties::Schema(values)) if is_any(values) => {
                self.free_form_extras(ptr);
                Ok(Some(Ty::Json))
            }
            Some(AdditionalProperties::Schema(values)) => {
                let values_ptr = push_pointer(ptr, "additionalProperties");
                let (value, value_null) = self.ty(values, &values_ptr, &format!("{name}Extra"))?;
                if value_null && !matches!(value, Ty::Json | Ty::Unit) {
                    return Ok(Some(Ty::Option(Box::new(value))));
                }
                Ok(Some(value))
            }
        }
    }

    /// The `default` of a property as the field's type holds it, or `None` when the
    /// type cannot (a list, an object, a union: documented only). A default of the wrong
    /// JSON type is a warning and is not applied.
    fn default_value(
        &mut self,
        prop: &Schema,
        ptr: &str,
        ty: &Ty,
        value: &Value,
    ) -> Result<Option<DefaultValue>, Located> {
        let default = match (ty, value) {
            (Ty::Bool, Value::Bool(b)) => Some(DefaultValue::Bool(*b)),
            (Ty::I32, Value::Number(n)) => n
                .as_i64()
                .filter(|n| i32::try_from(*n).is_ok())
                .map(DefaultValue::Int),
            (Ty::I64, Value::Number(n)) => n.as_i64().map(DefaultValue::Int),
            (Ty::F32 | Ty::F64, Value::Number(n)) => n.as_f64().map(DefaultValue::Float),
            (Ty::String, Value::String(s)) => Some(DefaultValue::Str(s.clone())),
            (Ty::Named(_), Value::String(_) | Value::Number(_) | Value::Bool(_)) => {
                let target = match &prop.reference {
                    Some(r) => self.resolve(r, ptr)?.0,
                    None => prop,
                };
                matches!(shape(target), Shape::Enum)
                    .then(|| enum_accepts(target, value))
                    .filter(|ok| *ok)
                    .map(|_| DefaultValue::Enum(value.clone()))
            }
            (Ty::Bool | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 | Ty::String, _) => {
                self.warn(
                    WarningKind::DefaultMismatch,
                    push_pointer(ptr, "default"),
                    "a `default` that does not fit the property's type is not applied",
                );
                return Ok(None);
            }
            _ => None,
        };
        Ok(default)
    }

    /// A list with `prefixItems`: a tuple of the items' types when `minItems` and
    /// `maxItems` both equal the number of prefix items (Pydantic writes a `tuple[str,
    /// int]` so), since a Rust tuple holds exactly that many; any other length (a shorter
    /// list allowed, or more items after the prefix) has no tuple to hold it, and is a list
    /// of `serde_json::Value` with a warning saying why.
    fn tuple(&mut self, s: &Schema, ptr: &str, hint: &str) -> Result<Ty, Located> {
        let n = s.prefix_items.len() as u64;
        let fixed = s.min_items.is_some_and(|m| m >= n) && s.max_items == Some(n);
        if !fixed {
            self.warn(
                WarningKind::UntypedList,
                push_pointer(ptr, "prefixItems"),
                format!(
                    "a list with {n} `prefixItems` whose length is not fixed to {n} (`minItems` \
                     and `maxItems`) has no tuple to hold it; its items are `serde_json::Value`"
                ),
            );
            return Ok(Ty::Vec(Box::new(Ty::Json)));
        }
        let items_ptr = push_pointer(ptr, "prefixItems");
        let mut items = Vec::new();
        for (i, item) in s.prefix_items.iter().enumerate() {
            let (ty, null) = self.ty(item, &format!("{items_ptr}/{i}"), &format!("{hint}{i}"))?;
            items.push(if null && !matches!(ty, Ty::Json | Ty::Unit) {
                Ty::Option(Box::new(ty))
            } else {
                ty
            });
        }
        Ok(Ty::Tuple(items))
    }

    /// The validation keywords that apply to a value of type `ty` (its schema at `ptr`).
    pub(super) fn checks(&mut self, s: &Schema, ty: &Ty, ptr: &str) -> Checks {
        let mut checks = Checks::default();
        match ty {
            Ty::String => {
                checks.max_length = s.max_length;
                checks.min_length = s.min_length.filter(|&n| n > 0);
                checks.unit = Some(self.unit);
                if let Some(pattern) = &s.pattern {
                    match super::pattern::check(pattern) {
                        Ok(()) => checks.pattern = Some(pattern.clone()),
                        Err(why) => self.warn(
                            WarningKind::UncheckedPattern,
                            push_pointer(ptr, "pattern"),
                            why,
                        ),
                    }
                }
            }
            Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64 => {
                checks.minimum = s.minimum;
                checks.maximum = s.maximum;
            }
            Ty::Vec(_) => {
                checks.min_items = s.min_items.filter(|&n| n > 0);
                checks.max_items = s.max_items;
            }
            _ => {}
        }
        checks
    }
}

/// A property's schema `base` with the annotations and constraints of a later `allOf`
/// part that restates the property without a type (`over`): `over`'s keywords win where
/// it has them, `base` gives the type.
fn refine(base: &Schema, over: &Schema) -> Schema {
    let base = base.clone();
    Schema {
        title: over.title.clone().or(base.title),
        description: over.description.clone().or(base.description),
        format: over.format.clone().or(base.format),
        nullable: over.nullable || base.nullable,
        max_length: over.max_length.or(base.max_length),
        min_length: over.min_length.or(base.min_length),
        minimum: over.minimum.or(base.minimum),
        maximum: over.maximum.or(base.maximum),
        min_items: over.min_items.or(base.min_items),
        max_items: over.max_items.or(base.max_items),
        deprecated: over.deprecated || base.deprecated,
        secret: over.secret || base.secret,
        default: over.default.clone().or(base.default),
        read_only: over.read_only || base.read_only,
        write_only: over.write_only || base.write_only,
        ..base
    }
}

/// Whether a value has the JSON kind of an enum's values (a newer value is kept by the
/// fallback variant, so any value of that kind is one the type holds).
fn enum_accepts(s: &Schema, value: &Value) -> bool {
    s.enumeration
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|v| std::mem::discriminant(v) == std::mem::discriminant(value))
}

/// The kind of enum a schema's `enum` makes, if it makes one: every non-`null` value a
/// string, number or boolean, at least one value not a boolean (`enum: [true, false]`
/// stays a `bool`), and each value of a type the schema's `type` lists (when it has one).
pub(super) fn enum_kind(s: &Schema) -> Option<EnumKind> {
    let values: Vec<&Value> = s
        .enumeration
        .as_deref()?
        .iter()
        .filter(|v| !v.is_null())
        .collect();
    if values.is_empty()
        || values.iter().all(|v| v.is_boolean())
        || values.iter().any(|v| v.is_array() || v.is_object())
    {
        return None;
    }
    let (names, _) = type_names(s);
    let fits = |v: &Value| match v {
        Value::String(_) => names.contains(&"string"),
        Value::Bool(_) => names.contains(&"boolean"),
        Value::Number(n) => {
            names.contains(&"number") || (names.contains(&"integer") && (n.is_i64() || n.is_u64()))
        }
        _ => false,
    };
    if !names.is_empty() && !values.iter().all(|v| fits(v)) {
        return None;
    }
    Some(if values.iter().all(|v| v.is_string()) {
        EnumKind::String
    } else if values.iter().all(|v| v.is_i64()) {
        EnumKind::Integer
    } else {
        EnumKind::Mixed
    })
}

/// The Rust variant name of an enum value.
fn variant_of(value: &Value) -> String {
    match value {
        Value::String(s) => pascal(s),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => {
            let text = n.to_string();
            let (sign, digits) = match text.strip_prefix('-') {
                Some(rest) => ("Minus", rest),
                None => ("V", text.as_str()),
            };
            let digits: String = digits
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { 'p' })
                .collect();
            format!("{sign}{digits}")
        }
        _ => "Value".to_owned(),
    }
}

/// An enum of listed values (strings, integers, or mixed) with a fallback variant.
pub(super) fn enum_def(name: &str, s: &Schema, ptr: &str) -> Result<EnumDef, Located> {
    let Some(kind) = enum_kind(s) else {
        return Err(Located::new(
            push_pointer(ptr, "enum"),
            "an enum whose values are not strings, numbers or booleans of its `type`",
        ));
    };
    let values = s.enumeration.as_deref().unwrap_or_default();
    let mut scope = Scope::default();
    let mut variants = Vec::new();
    let mut seen: Vec<&Value> = Vec::new();
    for value in values {
        if value.is_null() || seen.contains(&value) {
            continue;
        }
        seen.push(value);
        variants.push((scope.claim(variant_of(value)), value.clone()));
    }
    let fallback = ["Unknown", "UnknownValue", "Unrecognized"]
        .into_iter()
        .find(|f| !scope.contains(f))
        .map(str::to_owned)
        .unwrap_or_else(|| scope.claim("Unknown".to_owned()));
    Ok(EnumDef {
        name: name.to_owned(),
        doc: doc_of(s, || format!("The `{name}` values.")),
        variants,
        fallback,
        kind,
    })
}

/// Boxes struct fields, then union variants, that would otherwise make a type contain
/// itself. Lists and maps hold their items on the heap already and break no cycle that
/// needs it; an `Option` does not, so an optional field is boxed like a required one.
pub(super) fn box_cycles(types: &mut [TypeDef]) {
    let deps = |types: &[TypeDef]| {
        let mut direct: HashMap<String, Vec<String>> = HashMap::new();
        for t in types {
            let deps = match t {
                TypeDef::Struct(s) => s
                    .fields
                    .iter()
                    .filter(|f| !f.boxed)
                    .flat_map(|f| held_in_place(&f.ty))
                    .collect(),
                TypeDef::Alias(a) => held_in_place(&a.ty),
                TypeDef::Union(u) => u
                    .variants
                    .iter()
                    .filter(|v| !v.boxed)
                    .flat_map(|v| v.ty.iter().flat_map(held_in_place))
                    .collect(),
                TypeDef::Enum(_) => Vec::new(),
            };
            direct.insert(t.name().to_owned(), deps);
        }
        direct
    };
    let reaches = |direct: &HashMap<String, Vec<String>>, from: &str, to: &str| {
        let mut stack = vec![from.to_owned()];
        let mut seen = BTreeSet::new();
        while let Some(n) = stack.pop() {
            if n == to {
                return true;
            }
            if seen.insert(n.clone()) {
                stack.extend(direct.get(&n).into_iter().flatten().cloned());
            }
        }
        false
    };
    let direct = deps(types);
    for t in types.iter_mut() {
        if let TypeDef::Struct(s) = t {
            for f in &mut s.fields {
                f.boxed = held_in_place(&f.ty)
                    .iter()
                    .any(|n| reaches(&direct, n, &s.name));
            }
        }
    }
    // A cycle through unions alone (a union variant that is, or leads only through
    // unions and aliases to, the union itself) is broken at the union.
    let direct = deps(types);
    for t in types.iter_mut() {
        if let TypeDef::Union(u) = t {
            for v in &mut u.variants {
                if let Some(Ty::Named(n)) = &v.ty {
                    v.boxed = reaches(&direct, n, &u.name);
                }
            }
        }
    }
}

/// Reads `x-constructors`: every name must be a property, every fixed value a scalar
/// its field can hold, and together they must cover every required field (a
/// constructor that left one out could not build a valid body).
fn constructors(s: &Schema, fields: &[Field], ptr: &str) -> Result<Vec<NamedConstructor>, Located> {
    // The struct's other associated functions: a constructor of the same name gets a
    // suffix rather than a clash.
    let mut names = Scope::default();
    names.claim("new".to_owned());
    names.claim("validate".to_owned());
    // The reader behind `deserialize-requests` (emit/object_reads.rs).
    names.claim("from_object".to_owned());
    for f in fields {
        let stem = f.name.trim_end_matches('_');
        names.claim(format!("with_{stem}"));
        names.claim(format!("default_{stem}"));
    }
    let mut out = Vec::new();
    for (i, c) in s.constructors.iter().enumerate() {
        let c_ptr = format!("{ptr}/x-constructors/{i}");
        let field = |wire: &str, at: String| {
            fields
                .iter()
                .find(|f| f.wire == wire && !f.flatten)
                .ok_or_else(|| {
                    Located::new(
                        at,
                        format!("x-constructors names `{wire}`, which is not a property"),
                    )
                })
        };
        let mut fixed = Vec::new();
        for (wire, value) in &c.fixed {
            let f = field(wire, push_pointer(&format!("{c_ptr}/fixed"), wire))?;
            let fits = match (&f.ty, value) {
                (Ty::String, serde_json::Value::String(_))
                | (Ty::Bool, serde_json::Value::Bool(_)) => true,
                (Ty::I32, serde_json::Value::Number(n)) => {
                    n.as_i64().is_some_and(|n| i32::try_from(n).is_ok())
                }
                (Ty::I64, serde_json::Value::Number(n)) => n.as_i64().is_some(),
                (Ty::F32 | Ty::F64, serde_json::Value::Number(_)) => true,
                _ => false,
            };
            if !fits {
                return Err(Located::new(
                    push_pointer(&format!("{c_ptr}/fixed"), wire),
                    format!(
                        "x-constructors fixes `{wire}` to a value its type cannot hold (strings, numbers and booleans only)"
                    ),
                ));
            }
            fixed.push((f.name.clone(), value.clone()));
        }
        let mut args = Vec::new();
        for (j, wire) in c.args.iter().enumerate() {
            let f = field(wire, format!("{c_ptr}/args/{j}"))?;
            if fixed.iter().any(|(n, _)| n == &f.name) || args.contains(&f.name) {
                return Err(Located::new(
                    format!("{c_ptr}/args/{j}"),
                    format!("x-constructors names `{wire}` twice"),
                ));
            }
            args.push(f.name.clone());
        }
        if let Some(missing) = fields.iter().find(|f| {
            !f.optional()
                && !f.flatten
                && f.default.is_none()
                && !args.contains(&f.name)
                && !fixed.iter().any(|(n, _)| n == &f.name)
        }) {
            return Err(Located::new(
                c_ptr,
                format!(
                    "x-constructors leaves out the required field `{}`",
                    missing.wire
                ),
            ));
        }
        let doc = c.description.clone().unwrap_or_else(|| {
            let set = c
                .fixed
                .iter()
                .map(|(wire, v)| format!("`{wire}` = `{v}`"))
                .collect::<Vec<_>>()
                .join(", ");
            if set.is_empty() {
                "A body built from the arguments; the other fields are unset.".to_owned()
            } else {
                format!("A body with {set}; the arguments set their fields, the others are unset.")
            }
        });
        out.push(NamedConstructor {
            name: names.claim(snake(&c.name.0)),
            doc,
            fixed,
            args,
        });
    }
    Ok(out)
}

/// Marks the structs a request body holds, directly or through fields, lists, maps and
/// union variants: those a user builds, and so the ones that get constructors.
pub(super) fn mark_request(types: &mut [TypeDef], operations: &[Operation]) {
    let mut todo: Vec<String> = operations
        .iter()
        .flat_map(|op| op.body.iter().chain(op.other_bodies.iter().map(|(_, b)| b)))
        .flat_map(|b| inner_types(&b.ty))
        .map(str::to_owned)
        .collect();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        for t in types.iter() {
            if t.name() != name {
                continue;
            }
            let held: Vec<&Ty> = match t {
                TypeDef::Struct(s) => s.fields.iter().map(|f| &f.ty).collect(),
                TypeDef::Union(u) => u.variants.iter().filter_map(|v| v.ty.as_ref()).collect(),
                TypeDef::Alias(a) => vec![&a.ty],
                TypeDef::Enum(_) => Vec::new(),
            };
            todo.extend(held.into_iter().flat_map(inner_types).map(str::to_owned));
        }
    }
    for t in types.iter_mut() {
        if let TypeDef::Struct(s) = t {
            s.request = seen.contains(&s.name);
        }
    }
}

/// The models a type holds, through lists, maps, options and tuples.
fn inner_types(ty: &Ty) -> Vec<&str> {
    match ty {
        Ty::Named(n) => vec![n],
        Ty::Vec(inner) | Ty::Map(inner) | Ty::Option(inner) => inner_types(inner),
        Ty::Tuple(items) => items.iter().flat_map(inner_types).collect(),
        _ => Vec::new(),
    }
}

/// The models a value of the type contains in place (not behind a list's or map's heap
/// allocation): itself when named, and the items of a tuple.
fn held_in_place(ty: &Ty) -> Vec<String> {
    match ty {
        Ty::Named(n) => vec![n.clone()],
        Ty::Option(inner) => held_in_place(inner),
        Ty::Tuple(items) => items.iter().flat_map(held_in_place).collect(),
        _ => Vec::new(),
    }
}

/// Decides which structs get `validate()`: those with checks of their own or a field of
/// a type that validates.
pub(super) fn mark_validating(types: &mut [TypeDef]) {
    let mut validating: BTreeSet<String> = BTreeSet::new();
    loop {
        let mut changed = false;
        for t in types.iter() {
            let TypeDef::Struct(s) = t else { continue };
            if validating.contains(&s.name) {
                continue;
            }
            let own = !s.combined.is_empty() || s.fields.iter().any(|f| !f.checks.is_empty());
            let nested = s
                .fields
                .iter()
                .any(|f| inner_named(&f.ty).is_some_and(|n| validating.contains(n)));
            if own || nested {
                validating.insert(s.name.clone());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for t in types.iter_mut() {
        if let TypeDef::Struct(s) = t {
            s.validates = validating.contains(&s.name);
        }
    }
}

/// The model a field holds directly or as list items.
pub(crate) fn inner_named(ty: &Ty) -> Option<&str> {
    match ty {
        Ty::Named(n) => Some(n),
        Ty::Vec(inner) => inner_named(inner),
        _ => None,
    }
}
