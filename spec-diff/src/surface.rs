//! The public API of a generated crate, read from the source codegen emits (with `syn`),
//! and the semver verdict of going from one to another.
//!
//! Reading the emitted code rather than the IR keeps the verdict on what users compile
//! against: the derives a struct gets, the `#[non_exhaustive]` on request models and
//! enums, the shared error enums named after their variants, the streaming twins, every
//! rule of the emitters is in the code. The rules are Cargo's semver rules as far as a
//! generated crate can break them (the SemVer Compatibility chapter of the Cargo book);
//! cargo-semver-checks cross-checks them on every focused pair.

use std::collections::BTreeMap;

use quote::ToTokens;
use syn::{Attribute, Fields, ImplItem, Item, Visibility};

/// One public item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Public {
    /// A struct: its public fields (name to type), whether it has private fields, and
    /// whether it is `#[non_exhaustive]`.
    Struct {
        /// Public fields, name to type.
        fields: BTreeMap<String, String>,
        /// Has a private field (users cannot build it with a literal).
        private: bool,
        /// `#[non_exhaustive]`.
        non_exhaustive: bool,
    },
    /// An enum: variants (name to their data) and `#[non_exhaustive]`.
    Enum {
        /// Variant name to its fields as written.
        variants: BTreeMap<String, String>,
        /// `#[non_exhaustive]`.
        non_exhaustive: bool,
    },
    /// `pub type Name = Target;`.
    Alias(String),
    /// A free or associated function: its signature without docs.
    Fn(String),
    /// A trait: its items' signatures.
    Trait(String),
    /// A constant or static: its type.
    Const(String),
    /// `impl Trait for Type` (derives included).
    Impl,
    /// `pub use`.
    Use,
    /// A public module.
    Mod,
}

impl Public {
    fn kind(&self) -> &'static str {
        match self {
            Public::Struct { .. } => "struct",
            Public::Enum { .. } => "enum",
            Public::Alias(_) => "type alias",
            Public::Fn(_) => "function",
            Public::Trait(_) => "trait",
            Public::Const(_) => "constant",
            Public::Impl => "trait impl",
            Public::Use => "re-export",
            Public::Mod => "module",
        }
    }
}

/// The public items of a crate by path (`models::Pet`, `client::Client::get_pet`,
/// `impl Debug for models::Pet`).
pub type Surface = BTreeMap<String, Public>;

/// Reads the public API of generated source files (`path`, `contents`); `lib.rs` is the
/// crate root, any other file a module of its stem's name.
pub fn surface<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Surface, String> {
    let mut out = Surface::new();
    for (path, contents) in files {
        if !path.ends_with(".rs") {
            continue;
        }
        let file = syn::parse_file(contents).map_err(|e| format!("{path}: {e}"))?;
        let stem = std::path::Path::new(path)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let module = if stem == "lib" {
            String::new()
        } else {
            stem.to_owned()
        };
        items(&file.items, &module, &mut out);
    }
    Ok(out)
}

fn join(module: &str, name: &str) -> String {
    if module.is_empty() {
        name.to_owned()
    } else {
        format!("{module}::{name}")
    }
}

fn is_pub(v: &Visibility) -> bool {
    matches!(v, Visibility::Public(_))
}

fn non_exhaustive(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("non_exhaustive"))
}

/// The traits of `#[derive(...)]` attributes, by their last segment.
fn derives(attrs: &[Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for a in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = a.parse_nested_meta(|meta| {
            out.push(trait_name(&meta.path));
            Ok(())
        });
    }
    out
}

/// A trait as users name it: its last segment with its arguments (`Debug`, not
/// `std::fmt::Debug`), so a derive and a hand-written impl of one trait are the same impl.
fn trait_name(path: &syn::Path) -> String {
    path.segments.last().map(tokens).unwrap_or_default()
}

/// A public trait's entries: the trait (generics and required items) and each defaulted
/// method apart.
fn trait_items(module: &str, t: &syn::ItemTrait, out: &mut Surface) {
    let mut t = t.clone();
    strip_docs(&mut t.attrs);
    let path = join(module, &t.ident.to_string());
    // A method with a default body is an item of its own (`Api::read_flow`):
    // adding one is minor, as the Cargo SemVer reference has it (an
    // implementation keeps compiling), removing or changing it major. The
    // trait's own entry holds its generics and the items every
    // implementation must write, so adding one of those changes it: major.
    let mut required = Vec::new();
    for item in t.items.iter_mut() {
        match item {
            syn::TraitItem::Fn(f) => {
                strip_docs(&mut f.attrs);
                if f.default.take().is_some() {
                    out.insert(
                        format!("{path}::{}", f.sig.ident),
                        Public::Fn(tokens(&f.sig)),
                    );
                    continue;
                }
            }
            syn::TraitItem::Const(c) => strip_docs(&mut c.attrs),
            syn::TraitItem::Type(ty) => strip_docs(&mut ty.attrs),
            _ => {}
        }
        required.push(tokens(&*item));
    }
    out.insert(
        path,
        Public::Trait(format!("{}{}", tokens(&t.generics), required.join(" "))),
    );
}

/// Tokens as one normalized string, spaced as people write Rust.
fn tokens(t: &impl ToTokens) -> String {
    tidy(&t.to_token_stream().to_string())
}

/// `quote`'s spacing (`Vec < crate :: models :: Pet >`) made readable (`Vec<crate::models::Pet>`).
fn tidy(s: &str) -> String {
    let mut out = s.to_owned();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        (" <", "<"),
        ("< ", "<"),
        (" > ", "> "),
        (" >", ">"),
        ("& ", "&"),
        (" ,", ","),
        ("( ", "("),
        (" )", ")"),
        (" (", "("),
        (" ;", ";"),
        ("[ ", "["),
        (" ]", "]"),
        (",)", ")"),
        (",>", ">"),
        // A trailing comma is the printer's choice of layout (`prettyplease` writes one
        // when the fields break over lines), not part of the API.
        (", }", " }"),
    ] {
        while out.contains(from) {
            out = out.replace(from, to);
        }
    }
    out
}

/// A signature as the compiler checks callers against it: argument types, not names.
fn signature(sig: &syn::Signature) -> String {
    let inputs: Vec<String> = sig
        .inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Receiver(r) => tokens(r),
            syn::FnArg::Typed(t) => tokens(&t.ty),
        })
        .collect();
    format!(
        "{}fn {}{}({}) {}{}",
        if sig.asyncness.is_some() {
            "async "
        } else {
            ""
        },
        sig.ident,
        tokens(&sig.generics),
        inputs.join(", "),
        tokens(&sig.output),
        sig.generics
            .where_clause
            .as_ref()
            .map(|w| format!(" {}", tokens(w)))
            .unwrap_or_default()
    )
    .trim_end()
    .to_owned()
}

fn strip_docs(attrs: &mut Vec<Attribute>) {
    attrs.retain(|a| !a.path().is_ident("doc"));
}

fn items(list: &[Item], module: &str, out: &mut Surface) {
    for item in list {
        match item {
            Item::Struct(s) if is_pub(&s.vis) => {
                let name = join(module, &s.ident.to_string());
                let mut fields = BTreeMap::new();
                let mut private = false;
                let named = matches!(s.fields, Fields::Named(_));
                for (i, f) in s.fields.iter().enumerate() {
                    if is_pub(&f.vis) {
                        let key = match &f.ident {
                            Some(id) if named => id.to_string(),
                            _ => i.to_string(),
                        };
                        fields.insert(key, tokens(&f.ty));
                    } else {
                        private = true;
                    }
                }
                for d in derives(&s.attrs) {
                    out.insert(format!("impl {d} for {name}"), Public::Impl);
                }
                out.insert(
                    name,
                    Public::Struct {
                        fields,
                        private,
                        non_exhaustive: non_exhaustive(&s.attrs),
                    },
                );
            }
            Item::Enum(e) if is_pub(&e.vis) => {
                let name = join(module, &e.ident.to_string());
                let variants = e
                    .variants
                    .iter()
                    .map(|v| {
                        let mut fields = v.fields.clone();
                        for f in fields.iter_mut() {
                            strip_docs(&mut f.attrs);
                        }
                        (v.ident.to_string(), tokens(&fields))
                    })
                    .collect();
                for d in derives(&e.attrs) {
                    out.insert(format!("impl {d} for {name}"), Public::Impl);
                }
                out.insert(
                    name,
                    Public::Enum {
                        variants,
                        non_exhaustive: non_exhaustive(&e.attrs),
                    },
                );
            }
            Item::Type(t) if is_pub(&t.vis) => {
                out.insert(
                    join(module, &t.ident.to_string()),
                    Public::Alias(format!("{}{}", tokens(&t.generics), tokens(&t.ty))),
                );
            }
            Item::Fn(f) if is_pub(&f.vis) => {
                out.insert(
                    join(module, &f.sig.ident.to_string()),
                    Public::Fn(signature(&f.sig)),
                );
            }
            Item::Const(c) if is_pub(&c.vis) => {
                out.insert(
                    join(module, &c.ident.to_string()),
                    Public::Const(tokens(&c.ty)),
                );
            }
            Item::Static(s) if is_pub(&s.vis) => {
                out.insert(
                    join(module, &s.ident.to_string()),
                    Public::Const(tokens(&s.ty)),
                );
            }
            Item::Trait(t) if is_pub(&t.vis) => trait_items(module, t, out),
            Item::Use(u) if is_pub(&u.vis) => {
                out.insert(
                    join(module, &format!("use {}", tokens(&u.tree))),
                    Public::Use,
                );
            }
            Item::Mod(m) if is_pub(&m.vis) => {
                let name = join(module, &m.ident.to_string());
                out.insert(name.clone(), Public::Mod);
                if let Some((_, inner)) = &m.content {
                    items(inner, &name, out);
                }
            }
            Item::Impl(i) => {
                let self_ty = join(module, &tokens(&i.self_ty));
                match &i.trait_ {
                    // A trait impl behind a `cfg` (a model's `Deserialize` behind
                    // `deserialize-requests`) counts as the `cfg_attr` derive it replaced
                    // did: not at all, so a model that moves between the two ways of
                    // reading (request-only, decoded) changes nothing but the derive.
                    Some(_) if i.attrs.iter().any(|a| a.path().is_ident("cfg")) => {}
                    Some((path, _)) => {
                        let generics = tokens(&i.generics);
                        out.insert(
                            format!("impl{generics} {} for {self_ty}", trait_name(path)),
                            Public::Impl,
                        );
                    }
                    None => {
                        for member in &i.items {
                            match member {
                                ImplItem::Fn(f) if is_pub(&f.vis) => {
                                    out.insert(
                                        format!("{self_ty}::{}", f.sig.ident),
                                        Public::Fn(signature(&f.sig)),
                                    );
                                }
                                ImplItem::Const(c) if is_pub(&c.vis) => {
                                    out.insert(
                                        format!("{self_ty}::{}", c.ident),
                                        Public::Const(tokens(&c.ty)),
                                    );
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// One difference between two surfaces: rule, item path, words.
pub type Change = (&'static str, String, String);

/// The differences between two surfaces, under the `rust-*` rules.
pub fn compare(old: &Surface, new: &Surface) -> Vec<Change> {
    let mut out = Vec::new();
    for (path, a) in old {
        // The generator shares one error enum among operations that document the same
        // errors and names it for each by a `pub type` alias: an enum that became such an
        // alias of an identical enum (or the reverse), with its impls and methods now on
        // the aliased type, is the same API to its users.
        if same_through_alias(path, a, old, new) {
            continue;
        }
        let Some(b) = new.get(path) else {
            out.push((
                "rust-item-removed",
                path.clone(),
                format!("{} `{path}` was removed", a.kind()),
            ));
            continue;
        };
        // An enum or struct that became an alias of another (or the reverse) is compared
        // with that other: users name it as before, its variants and fields are what count.
        let a = match (a, b) {
            (Public::Alias(_), Public::Enum { .. } | Public::Struct { .. }) => {
                alias_target(old, path)
                    .and_then(|t| old.get(&t))
                    .unwrap_or(a)
            }
            _ => a,
        };
        let b = match (a, b) {
            (Public::Enum { .. } | Public::Struct { .. }, Public::Alias(_)) => {
                alias_target(new, path)
                    .and_then(|t| new.get(&t))
                    .unwrap_or(b)
            }
            _ => b,
        };
        if a != b {
            compare_item(path, a, b, &mut out);
        }
    }
    for (path, b) in new {
        if !old.contains_key(path) && !same_through_alias(path, b, new, old) {
            out.push((
                "rust-item-added",
                path.clone(),
                format!("{} `{path}` was added", b.kind()),
            ));
        }
    }
    drop_what_types_took(old, new, &mut out);
    renames(old, new, &mut out);
    out
}

/// A type removed and another added with exactly its fields or variants (a schema `X`
/// renamed `X-Input`, an enum renamed with the same values) is one rename: users change
/// the name they write and nothing else. Only a removed type with one such twin is paired.
fn renames(old: &Surface, new: &Surface, out: &mut Vec<Change>) {
    let is_type = |p: &Public| matches!(p, Public::Struct { .. } | Public::Enum { .. });
    let of_rule = |rule: &str, out: &[Change], side: &Surface| -> Vec<(String, Public)> {
        out.iter()
            .filter(|(r, path, _)| *r == rule && !path.starts_with("impl"))
            .filter_map(|(_, path, _)| side.get(path).map(|p| (path.clone(), p.clone())))
            .filter(|(_, p)| is_type(p))
            .collect()
    };
    let removed = of_rule("rust-item-removed", out, old);
    let added = of_rule("rust-item-added", out, new);
    for (from, a) in &removed {
        let twins: Vec<&String> = added
            .iter()
            .filter(|(_, b)| b == a)
            .map(|(path, _)| path)
            .collect();
        let [to] = twins.as_slice() else {
            continue;
        };
        let twin_of_other = removed.iter().filter(|(_, other)| other == a).count() > 1;
        if twin_of_other {
            continue;
        }
        out.retain(|(rule, path, _)| !(*rule == "rust-item-added" && path == *to));
        for change in out.iter_mut() {
            if change.0 == "rust-item-removed" && change.1 == *from {
                *change = (
                    "rust-item-renamed",
                    from.clone(),
                    format!(
                        "{} `{from}` was renamed `{to}` (the same {})",
                        a.kind(),
                        if matches!(a, Public::Enum { .. }) {
                            "variants"
                        } else {
                            "fields"
                        }
                    ),
                );
            }
        }
    }
}

/// What changed in one item found in both surfaces, and not equal there.
fn compare_item(path: &str, a: &Public, b: &Public, out: &mut Vec<Change>) {
    match (a, b) {
        (
            Public::Struct {
                fields: fa,
                private: pa,
                non_exhaustive: na,
            },
            Public::Struct {
                fields: fb,
                non_exhaustive: nb,
                ..
            },
        ) => {
            // A struct literal names every field: a new one breaks it unless the struct
            // could not be built by a literal outside the crate anyway.
            let constructible = !pa && !na;
            members(path, fa, fb, Members::Fields { constructible }, out);
            exhaustiveness(path, *na, *nb, out);
        }
        (
            Public::Enum {
                variants: va,
                non_exhaustive: na,
            },
            Public::Enum {
                variants: vb,
                non_exhaustive: nb,
            },
        ) => {
            members(
                path,
                va,
                vb,
                Members::Variants {
                    non_exhaustive: *na,
                },
                out,
            );
            exhaustiveness(path, *na, *nb, out);
        }
        (Public::Alias(ta), Public::Alias(tb)) => out.push((
            "rust-alias-changed",
            path.to_owned(),
            format!("`{path}` is `{tb}`, was `{ta}`"),
        )),
        (Public::Fn(sa), Public::Fn(sb)) => out.push((
            "rust-fn-signature-changed",
            path.to_owned(),
            format!("`{path}` is `{sb}`, was `{sa}`"),
        )),
        (Public::Trait(_), Public::Trait(_)) | (Public::Const(_), Public::Const(_)) => out.push((
            "rust-item-kind-changed",
            path.to_owned(),
            format!("{} `{path}` changed its items or type", a.kind()),
        )),
        _ => out.push((
            "rust-item-kind-changed",
            path.to_owned(),
            format!("`{path}` is a {}, was a {}", b.kind(), a.kind()),
        )),
    }
}

/// Which members of a type [`members`] compares, and what an added one breaks.
#[derive(Clone, Copy)]
enum Members {
    /// A struct's public fields; a new one breaks a struct literal, which users can
    /// write only when the struct is `constructible`.
    Fields { constructible: bool },
    /// An enum's variants; a new one breaks an exhaustive `match` unless the enum was
    /// `#[non_exhaustive]`.
    Variants { non_exhaustive: bool },
}

/// Members removed, changed (a field's type, a variant's data) and added.
fn members(
    path: &str,
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
    kind: Members,
    out: &mut Vec<Change>,
) {
    let (word, removed, changed) = match kind {
        Members::Fields { .. } => ("field", "rust-field-removed", "rust-field-type-changed"),
        Members::Variants { .. } => ("variant", "rust-variant-removed", "rust-variant-changed"),
    };
    for (m, ta) in old {
        match new.get(m) {
            None => out.push((
                removed,
                format!("{path}::{m}"),
                format!("{word} `{m}` of `{path}` was removed"),
            )),
            Some(tb) if ta != tb => out.push((
                changed,
                format!("{path}::{m}"),
                match kind {
                    Members::Fields { .. } => {
                        format!("field `{m}` of `{path}` is `{tb}`, was `{ta}`")
                    }
                    Members::Variants { .. } => {
                        format!("variant `{m}` of `{path}` holds `{tb}`, held `{ta}`")
                    }
                },
            )),
            _ => {}
        }
    }
    let added = match kind {
        Members::Fields {
            constructible: true,
        } => "rust-field-added-exhaustive",
        Members::Fields {
            constructible: false,
        } => "rust-field-added-non-exhaustive",
        Members::Variants {
            non_exhaustive: true,
        } => "rust-variant-added-non-exhaustive",
        Members::Variants {
            non_exhaustive: false,
        } => "rust-variant-added-exhaustive",
    };
    for m in new.keys().filter(|m| !old.contains_key(*m)) {
        out.push((
            added,
            format!("{path}::{m}"),
            format!("{word} `{m}` was added to `{path}`"),
        ));
    }
}

/// A type removed (or added) takes its impls and methods with it: they are not reported
/// again. A removed or added impl left is about its type: it is named by the trait's rule.
fn drop_what_types_took(old: &Surface, new: &Surface, out: &mut Vec<Change>) {
    let types: std::collections::BTreeSet<(&str, String)> = out
        .iter()
        .filter(|(rule, path, _)| {
            matches!(*rule, "rust-item-removed" | "rust-item-added")
                && !path.starts_with("impl")
                && matches!(
                    old.get(path).or_else(|| new.get(path)),
                    Some(
                        Public::Struct { .. }
                            | Public::Enum { .. }
                            | Public::Alias(_)
                            | Public::Trait(_)
                    )
                )
        })
        .map(|(rule, path, _)| (*rule, path.clone()))
        .collect();
    out.retain(|(rule, path, _)| {
        let owner = match path.rsplit_once(" for ") {
            Some((_, ty)) => ty.to_owned(),
            None => match path.rsplit_once("::") {
                Some((ty, _)) => ty.to_owned(),
                None => return true,
            },
        };
        owner == *path || !types.contains(&(*rule, owner))
    });
    for change in out.iter_mut() {
        if change.1.starts_with("impl") {
            change.0 = match change.0 {
                "rust-item-removed" => "rust-trait-impl-removed",
                "rust-item-added" => "rust-trait-impl-added",
                other => other,
            };
        }
    }
}

fn exhaustiveness(path: &str, before: bool, after: bool, out: &mut Vec<Change>) {
    match (before, after) {
        (false, true) => out.push((
            "rust-non-exhaustive-added",
            path.to_owned(),
            format!("`{path}` became #[non_exhaustive]"),
        )),
        (true, false) => out.push((
            "rust-non-exhaustive-removed",
            path.to_owned(),
            format!("`{path}` is no longer #[non_exhaustive]"),
        )),
        _ => {}
    }
}

/// The semver-major differences between the public APIs of two sets of generated source
/// files (`path`, `contents`): what `cargo xtask codegen` reports when it replaces a crate.
pub fn major_changes<'a>(
    old: impl IntoIterator<Item = (&'a str, &'a str)>,
    new: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Vec<Change>, String> {
    let (old, new) = (surface(old)?, surface(new)?);
    Ok(compare(&old, &new)
        .into_iter()
        .filter(|(rule, ..)| crate::rules::rule(rule).rust == Some(crate::rules::Semver::Major))
        .collect())
}

/// The item an alias names, when it is a plain path to an item of the same module
/// (`pub type GetPetError = NoDocumentedError;` in `client`).
fn alias_target(surface: &Surface, path: &str) -> Option<String> {
    let Some(Public::Alias(target)) = surface.get(path) else {
        return None;
    };
    if target.contains(['<', '&', '(', '[']) {
        return None;
    }
    let target = target.rsplit("::").next()?;
    let module = path.rsplit_once("::").map_or("", |(m, _)| m);
    let full = join(module, target);
    surface.contains_key(&full).then_some(full)
}

/// Whether `item` of `here` is in `there` under the other side of an alias: the same
/// item, impl or method of a type that is an alias on one side and the aliased type's
/// twin on the other.
fn same_through_alias(path: &str, item: &Public, here: &Surface, there: &Surface) -> bool {
    // `path` is a type, `impl T for path` or `path::member`: find the type in it.
    let (prefix, ty, suffix) = match path.rsplit_once(" for ") {
        Some((imp, ty)) => (format!("{imp} for "), ty.to_owned(), String::new()),
        None => {
            let parts: Vec<&str> = path.split("::").collect();
            match parts.len() {
                3 => (
                    String::new(),
                    parts[..2].join("::"),
                    format!("::{}", parts[2]),
                ),
                _ => (String::new(), path.to_owned(), String::new()),
            }
        }
    };
    let twin = |alias_side: &Surface| alias_target(alias_side, &ty);
    // The type is an alias over there: look for the item on its target.
    if let Some(target) = twin(there) {
        return there.get(&format!("{prefix}{target}{suffix}")) == Some(item);
    }
    // The type itself was the alias here: the other side's type is its target's twin.
    match twin(here) {
        Some(target) if prefix.is_empty() && suffix.is_empty() => {
            there.get(path) == here.get(&target)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(old: &str, new: &str) -> Vec<(&'static str, String)> {
        let old = surface([("server.rs", old)]).unwrap();
        let new = surface([("server.rs", new)]).unwrap();
        compare(&old, &new)
            .into_iter()
            .map(|(rule, path, _)| (rule, path))
            .collect()
    }

    #[test]
    fn a_defaulted_trait_method_added_is_minor_and_a_required_one_major() {
        let old = "pub trait Api { fn a(&self) {} fn r(&self); }";
        assert_eq!(
            rules(
                old,
                "pub trait Api { fn a(&self) {} fn b(&self) {} fn r(&self); }"
            ),
            [("rust-item-added", "server::Api::b".to_owned())]
        );
        assert_eq!(
            rules(
                old,
                "pub trait Api { fn a(&self) {} fn r(&self); fn s(&self); }"
            ),
            [("rust-item-kind-changed", "server::Api".to_owned())]
        );
        assert_eq!(
            rules(old, "pub trait Api { fn a(&self, x: u8) {} fn r(&self); }"),
            [("rust-fn-signature-changed", "server::Api::a".to_owned())]
        );
        assert_eq!(
            rules(old, "pub trait Api { fn r(&self); }"),
            [("rust-item-removed", "server::Api::a".to_owned())]
        );
        assert_eq!(
            rules(old, ""),
            [("rust-item-removed", "server::Api".to_owned())],
            "a trait removed whole is one change, its methods with it"
        );
    }

    #[test]
    fn a_trait_impl_behind_a_cfg_is_not_in_the_surface_as_its_cfg_attr_derive_was_not() {
        let gated = "pub struct Boat {}\n\
            #[cfg(feature = \"deserialize-requests\")]\n\
            impl<'de> serde::Deserialize<'de> for Boat { fn deserialize() {} }";
        let derived = "#[derive(serde::Deserialize)] pub struct Boat {}";
        let derived_behind =
            "#[cfg_attr(feature = \"x\", derive(serde::Deserialize))] pub struct Boat {}";
        assert_eq!(rules(gated, derived_behind), []);
        assert_eq!(
            rules(gated, derived),
            [(
                "rust-trait-impl-added",
                "impl Deserialize for server::Boat".to_owned()
            )]
        );
        let plain = "pub struct Boat {}\nimpl<'de> serde::Deserialize<'de> for Boat { fn deserialize() {} }";
        assert_eq!(
            rules(gated, plain),
            [(
                "rust-trait-impl-added",
                "impl<'de> Deserialize<'de> for server::Boat".to_owned()
            )],
            "the same impl without the cfg is counted"
        );
    }
}
