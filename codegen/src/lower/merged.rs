//! Names of merged inline types.
//!
//! An inline schema written identically in several places is one type (see
//! `Lowerer::ty`), first named after the place that met it first: the 404 body of every
//! operation would be a `GetThingNotFoundBody`, and a PUT of one resource could return a
//! `PutOtherResourceOkBody`. Once every place is lowered, such a type takes a name that
//! belongs to none of them:
//!
//! 1. the schema's `title`, where it has one (`title: ValidationError`);
//! 2. else, for an object, its first two property names and `Body` when every place's
//!    own name ends in `Body`, as the names of request and answer bodies do
//!    (`MessageBody` for `{message: string}`), `Object` otherwise (`LatLngObject`);
//! 3. else, for a union of two or three branches or an enum of two or three values,
//!    their names joined by `Or` (`StringOrInteger`, `AscOrDesc`);
//! 4. else the first place's name stays.
//!
//! Every reference to the type is rewritten to the new name, and each place's own name
//! (the first one's included) stays a `pub type` alias of it, so code written against
//! any of those names keeps compiling and each name still says where it comes from.

use std::collections::BTreeMap;

use super::Lowerer;
use crate::ir::{AliasDef, FormPartKind, Operation, Payload, Ty, TypeDef};
use crate::names::pascal;

/// The most branches of a union (values of an enum) a name lists (`StringOrInteger`).
const MAX_WORDS: usize = 3;

/// Renames every merged type in `types` and rewrites its references in `types` and
/// `operations` (see the module doc); names are claimed in `lowerer`'s scope.
pub(super) fn name(
    lowerer: &mut Lowerer<'_>,
    types: &mut Vec<TypeDef>,
    operations: &mut [Operation],
) {
    let merged = std::mem::take(&mut lowerer.merged);
    if merged.is_empty() {
        return;
    }
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    let mut aliases: BTreeMap<String, Vec<AliasDef>> = BTreeMap::new();
    // In the order the types were made, so that claimed names are deterministic.
    let order: Vec<String> = types
        .iter()
        .map(|t| t.name().to_owned())
        .filter(|n| merged.contains_key(n))
        .collect();
    for first in order {
        let uses = &merged[&first];
        let title = lowerer.inline_titles.get(&first).cloned().flatten();
        let def = types.iter().find(|t| t.name() == first);
        let shared = match (title.as_deref().map(pascal), def) {
            // Named by its title already (the first place's hint was the title).
            (Some(title), _) if title == first => None,
            (Some(title), _) if !title.is_empty() => Some(lowerer.type_names.claim(title)),
            (_, Some(TypeDef::Struct(s))) if !s.fields.is_empty() => {
                let words: String = s.fields.iter().take(2).map(|f| pascal(&f.wire)).collect();
                let bodies = std::iter::once(&first)
                    .chain(uses)
                    .all(|n| n.ends_with("Body"));
                let suffix = if bodies { "Body" } else { "Object" };
                let candidate = format!("{words}{suffix}");
                (candidate != first && !words.is_empty())
                    .then(|| lowerer.type_names.claim(candidate))
            }
            (_, Some(TypeDef::Union(u))) if (2..=MAX_WORDS).contains(&u.variants.len()) => {
                let names: Vec<&str> = u.variants.iter().map(|v| v.name.as_str()).collect();
                Some(lowerer.type_names.claim(names.join("Or")))
            }
            (_, Some(TypeDef::Enum(e))) if (2..=MAX_WORDS).contains(&e.variants.len()) => {
                let names: Vec<&str> = e.variants.iter().map(|(v, _)| v.as_str()).collect();
                Some(lowerer.type_names.claim(names.join("Or")))
            }
            _ => None,
        };
        let target = shared.clone().unwrap_or_else(|| first.clone());
        let own_names = shared
            .is_some()
            .then(|| first.clone())
            .into_iter()
            .chain(uses.iter().cloned());
        let defs = own_names
            .map(|own| AliasDef {
                doc: format!(
                    "[`{target}`] under the name this place of the spec gives it: the \
                     schema is written identically in several places, and is one type."
                ),
                name: own,
                ty: Ty::Named(target.clone()),
            })
            .collect();
        aliases.insert(target.clone(), defs);
        if let Some(shared) = shared {
            renamed.insert(first, shared);
        }
    }
    for t in types.iter_mut() {
        rename_def(t, &renamed);
    }
    for op in operations.iter_mut() {
        rename_operation(op, &renamed);
    }
    // Each alias right after the type it names.
    let mut out = Vec::with_capacity(types.len() + aliases.values().map(Vec::len).sum::<usize>());
    for t in types.drain(..) {
        let extra = aliases.remove(t.name());
        out.push(t);
        out.extend(extra.into_iter().flatten().map(TypeDef::Alias));
    }
    *types = out;
}

/// Renames the type itself (and its doc's mention of its old name) and every reference
/// it holds.
fn rename_def(t: &mut TypeDef, renamed: &BTreeMap<String, String>) {
    let (name, doc) = match t {
        TypeDef::Struct(s) => {
            s.fields
                .iter_mut()
                .for_each(|f| rename_ty(&mut f.ty, renamed));
            (&mut s.name, &mut s.doc)
        }
        TypeDef::Union(u) => {
            u.variants
                .iter_mut()
                .filter_map(|v| v.ty.as_mut())
                .for_each(|ty| rename_ty(ty, renamed));
            (&mut u.name, &mut u.doc)
        }
        TypeDef::Alias(a) => {
            rename_ty(&mut a.ty, renamed);
            (&mut a.name, &mut a.doc)
        }
        TypeDef::Enum(e) => (&mut e.name, &mut e.doc),
    };
    if let Some(new) = renamed.get(name.as_str()) {
        *doc = doc.replace(&format!("`{name}`"), &format!("`{new}`"));
        *name = new.clone();
    }
}

fn rename_operation(op: &mut Operation, renamed: &BTreeMap<String, String>) {
    for p in &mut op.params {
        rename_ty(&mut p.ty, renamed);
    }
    for body in op
        .body
        .iter_mut()
        .chain(op.other_bodies.iter_mut().map(|(_, b)| b))
    {
        rename_ty(&mut body.ty, renamed);
        for part in body.form.iter_mut().flat_map(|f| f.parts.iter_mut()) {
            if let FormPartKind::Text(ty) | FormPartKind::Json(ty) = &mut part.kind {
                rename_ty(ty, renamed);
            }
        }
    }
    for r in &mut op.responses {
        if let Payload::Json(ty) = &mut r.payload {
            rename_ty(ty, renamed);
        }
        for h in &mut r.headers {
            rename_ty(&mut h.ty, renamed);
        }
    }
    for n in &mut op.negotiated {
        if let Payload::Json(ty) = &mut n.payload {
            rename_ty(ty, renamed);
        }
    }
}

fn rename_ty(ty: &mut Ty, renamed: &BTreeMap<String, String>) {
    match ty {
        Ty::Named(name) => {
            if let Some(new) = renamed.get(name.as_str()) {
                *name = new.clone();
            }
        }
        Ty::Vec(inner) | Ty::Map(inner) | Ty::Option(inner) => rename_ty(inner, renamed),
        Ty::Tuple(items) => items.iter_mut().for_each(|t| rename_ty(t, renamed)),
        _ => {}
    }
}
