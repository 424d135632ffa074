//! `models.rs`: one type per schema.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;

use super::checks;
use super::docs;
use super::types::{ident, is_copy, moved, owned};
use crate::ir::{
    AliasDef, Api, DefaultValue, EnumDef, EnumKind, Field, Payload, StructDef, Ty, TypeDef,
    UnionDef,
};
use crate::lower::inner_named;

/// The docs of the variants that keep, as JSON, a value the spec does not describe: the
/// forward-compatibility fallback of an open union and of an enum of mixed values. They
/// are not schemas lowered to `serde_json::Value` (every branch and value the spec names
/// has its own typed variant); public so that the codegen bench can count them apart.
pub const JSON_FALLBACK_DOCS: [&str; 2] = [UNION_FALLBACK_DOC, MIXED_FALLBACK_DOC];

const UNION_FALLBACK_DOC: &str =
    "A value none of the spec's branches accepts (sent by a newer server), kept
as it came and sent back unchanged.";

const MIXED_FALLBACK_DOC: &str =
    "A value the spec does not list (sent by a newer server), kept as it came.";

/// The tokens of `models.rs`.
pub fn emit(api: &Api) -> TokenStream {
    let context = Context::of(api);
    let head = head(api);
    let items = types(api, &context, 0..api.types.len());
    let tail = tail(api, &context);
    quote! {
        #head

        #items

        #tail
    }
}

/// What every part of `models.rs` reads of the whole spec.
pub(super) struct Context<'a> {
    validating: BTreeSet<&'a str>,
    enums: BTreeMap<&'a str, &'a EnumDef>,
    decoded: BTreeSet<String>,
}

impl<'a> Context<'a> {
    pub(super) fn of(api: &'a Api) -> Self {
        Context {
            validating: super::types::validating(api).collect(),
            enums: api
                .types
                .iter()
                .filter_map(|t| match t {
                    TypeDef::Enum(e) => Some((e.name.as_str(), e)),
                    _ => None,
                })
                .collect(),
            decoded: decoded_types(api),
        }
    }
}

/// The types in `range` (spec order) of `models.rs`; parts of consecutive ranges put
/// together are the whole.
pub(super) fn types(
    api: &Api,
    context: &Context<'_>,
    range: std::ops::Range<usize>,
) -> TokenStream {
    let Context {
        validating,
        enums,
        decoded,
    } = context;
    let items = api.types[range].iter().map(|t| match t {
        TypeDef::Struct(s) => structure(s, validating, enums, decoded, api.tolerant),
        TypeDef::Enum(e) => enumeration(e),
        TypeDef::Alias(a) => alias(a),
        TypeDef::Union(u) => union(u, decoded),
    });
    quote!(#(#items)*)
}

/// The module doc of `models.rs`.
pub(super) fn head(api: &Api) -> TokenStream {
    let tolerant_doc = api.tolerant.then(|| {
        quote! {
            //!
            //! Generated with `--tolerant`: the models an answer holds read the scalar
            //! mismatches servers commonly make into the declared type where no data is
            //! lost. A string field takes a number as its decimal text (`7` is `"7"`); an
            //! integer field takes a string that is exactly an integer's decimal text
            //! (`"12"`, not `"012"` or `"1.0"`), a number field a string holding a finite
            //! number; a list of such scalars reads each item so (`[7, "8"]` in a list of
            //! strings is `["7", "8"]`); `null` in a field with the spec's `default` is
            //! that default (and in an optional field `None`, as always). Anything else
            //! fails to decode, naming the field. Models only requests hold stay strict.
        }
    });
    quote! {
        //! The API's models: one type per schema, with the wire names of the spec.
        //!
        //! Unknown fields in a response are ignored and unknown enum values are kept in a
        //! fallback variant, so a newer server never breaks this client.
        #tolerant_doc
    }
}

/// The items after the types: the private helpers some types call, and the request
/// models' builders.
pub(super) fn tail(api: &Api, context: &Context<'_>) -> TokenStream {
    let helpers = helpers(api, context);
    let builders = super::builders::emit(api);
    quote! {
        #helpers
        #builders
    }
}

/// The first items of [`tail`]: the private helpers some types call.
pub(super) fn helpers(api: &Api, context: &Context<'_>) -> TokenStream {
    let any_secret = api
        .types
        .iter()
        .any(|t| matches!(t, TypeDef::Struct(s) if s.fields.iter().any(|f| f.secret)));
    let any_scalar_union = api
        .types
        .iter()
        .any(|t| matches!(t, TypeDef::Union(u) if u.scalar));
    let write_scalar = any_scalar_union.then(|| {
        quote! {
            /// Writes a union of scalars as a path, query or header value: a string as it
            /// is, a number or boolean as its JSON text.
            fn write_scalar<T: serde::Serialize>(
                value: &T,
                f: &mut std::fmt::Formatter<'_>,
            ) -> std::fmt::Result {
                match serde_json::to_value(value) {
                    Ok(serde_json::Value::String(s)) => f.write_str(&s),
                    Ok(other) => write!(f, "{other}"),
                    Err(_) => Err(std::fmt::Error),
                }
            }
        }
    });
    let redacted = any_secret.then(|| {
        quote! {
            /// Stands in for a secret value in `Debug` output.
            struct Redacted;

            impl std::fmt::Debug for Redacted {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("<redacted>")
                }
            }
        }
    });
    let null_or_value = null_or_value(api, &context.decoded);
    let requests_only: Vec<&StructDef> = api
        .types
        .iter()
        .filter_map(|t| match t {
            TypeDef::Struct(s) if !context.decoded.contains(&s.name) => Some(s),
            _ => None,
        })
        .collect();
    let object_reads = super::object_reads::helpers(&requests_only);
    quote! {
        #redacted
        #write_scalar
        #null_or_value
        #object_reads
    }
}

/// The reader of the fields that tell an absent value from `null`
/// ([`Field::explicit_null`]), when a model that derives `Deserialize` (one the client
/// decodes) has one: the others are read by `object_reads`.
fn null_or_value(api: &Api, decoded: &BTreeSet<String>) -> Option<TokenStream> {
    let used = api.types.iter().any(|t| {
        matches!(t, TypeDef::Struct(s)
            if decoded.contains(&s.name) && s.fields.iter().any(Field::explicit_null))
    });
    if !used {
        return None;
    }
    Some(quote! {
        /// Reads a field that tells an absent value from `null`: serde calls it only for
        /// a field that is there (an absent one is `#[serde(default)]`, `None`), so a
        /// `null` is `Some(None)` and a value `Some(Some(value))`.
        fn null_or_value<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
        where
            D: serde::Deserializer<'de>,
            T: serde::Deserialize<'de>,
        {
            <Option<T> as serde::Deserialize>::deserialize(deserializer).map(Some)
        }
    })
}

fn field_type(f: &Field) -> TokenStream {
    let mut ty = owned(&f.ty, &TokenStream::new());
    if f.boxed {
        ty = quote!(Box<#ty>);
    }
    if f.explicit_null() {
        quote!(Option<Option<#ty>>)
    } else if f.optional() {
        quote!(Option<#ty>)
    } else {
        ty
    }
}

/// The name of the associated function that gives a field's default.
fn default_fn(f: &Field) -> proc_macro2::Ident {
    ident(&format!("default_{}", f.name.trim_end_matches('_')))
}

/// The expression of a field's default value.
fn default_expr(f: &Field, value: &DefaultValue, enums: &BTreeMap<&str, &EnumDef>) -> TokenStream {
    match value {
        DefaultValue::Bool(b) => quote!(#b),
        DefaultValue::Int(n) => match f.ty {
            Ty::I32 => {
                let n = i32::try_from(*n).unwrap_or_default();
                quote!(#n)
            }
            _ => quote!(#n),
        },
        DefaultValue::Float(x) => match f.ty {
            Ty::F32 => {
                #[allow(clippy::cast_possible_truncation)]
                let x = *x as f32;
                quote!(#x)
            }
            _ => quote!(#x),
        },
        DefaultValue::Str(text) => quote!(#text.to_owned()),
        DefaultValue::Enum(wire) => {
            let Ty::Named(type_name) = &f.ty else {
                return quote!(Default::default());
            };
            let type_ident = ident(type_name);
            let e = enums.get(type_name.as_str());
            let variant = e.and_then(|e| e.variants.iter().find(|(_, w)| w == wire));
            match (variant, e) {
                (Some((v, _)), _) => {
                    let v = ident(v);
                    quote!(#type_ident::#v)
                }
                (None, Some(e)) => {
                    let fallback = ident(&e.fallback);
                    let held = fallback_value(e, wire);
                    quote!(#type_ident::#fallback(#held))
                }
                (None, None) => quote!(Default::default()),
            }
        }
    }
}

/// One model struct: its derives and fields, and the impls it needs beside them
/// (defaults, a redacting `Debug`, validation).
fn structure(
    s: &StructDef,
    validating: &BTreeSet<&str>,
    enums: &BTreeMap<&str, &EnumDef>,
    decoded: &BTreeSet<String>,
    tolerant_mode: bool,
) -> TokenStream {
    let name = ident(&s.name);
    let reader = |f: &Field| reader(f, decoded.contains(&s.name), tolerant_mode);
    let doc = moved(docs::outer(&s.doc));
    let non_exhaustive = super::builders::attributes(s);
    let defaults: Vec<(&Field, &DefaultValue)> = s
        .fields
        .iter()
        .filter_map(|f| f.default.as_ref().map(|d| (f, d)))
        .collect();
    let all_optional = s
        .fields
        .iter()
        .all(|f| f.optional() || f.flatten || f.default.is_some());
    let secret = s.fields.iter().any(|f| f.secret);
    let mut derives = vec![quote!(Clone), quote!(PartialEq), quote!(serde::Serialize)];
    // A model only requests hold reads through `object_reads`, behind the feature.
    let object_read = if decoded.contains(&s.name) {
        derives.push(quote!(serde::Deserialize));
        None
    } else {
        Some(moved(super::object_reads::deserialize(s, default_fn)))
    };
    if !secret {
        derives.insert(0, quote!(Debug));
    }
    if all_optional && defaults.is_empty() {
        derives.push(quote!(Default));
    }
    let fields = s
        .fields
        .iter()
        .map(|f| moved(struct_field(s, f, reader(f))));
    let debug = secret.then(|| moved(redacted_debug(s, &name)));
    let validate = s.validates.then(|| moved(validate(s, validating)));
    let default_fns =
        (!defaults.is_empty()).then(|| moved(default_fns(&name, &defaults, enums, &reader)));
    let default_impl =
        (all_optional && !defaults.is_empty()).then(|| moved(default_impl(s, &name)));
    quote! {
        #doc
        #[derive(#(#derives),*)]
        #non_exhaustive
        pub struct #name {
            #(#fields)*
        }

        #object_read
        #default_fns
        #default_impl
        #debug
        #validate
    }
}

/// One field of a model's struct: its doc, its serde attributes (wire name, defaults,
/// `null` handling, the tolerant reader `read` when there is one) and its type.
fn struct_field(s: &StructDef, f: &Field, read: Option<Tolerant>) -> TokenStream {
    let fname = ident(&f.name);
    let fdoc = docs::outer(&f.doc);
    let ty = field_type(f);
    let mut serde_args = Vec::new();
    if f.name != f.wire && !f.flatten {
        let wire = &f.wire;
        serde_args.push(quote!(rename = #wire));
    }
    if f.flatten {
        serde_args.push(quote!(flatten));
    } else if f.default.is_some() {
        let path = format!("{}::{}", s.name, default_fn(f));
        serde_args.push(quote!(default = #path));
        if read.is_some() {
            let read = format!("{}::{}", s.name, read_fn(f));
            serde_args.push(quote!(deserialize_with = #read));
        }
    } else if f.explicit_null() {
        // serde writes `Some(None)` as `null` itself; reading, a `null` would be
        // `None` without `null_or_value`.
        serde_args.push(quote!(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "null_or_value"
        ));
    } else if !f.required {
        serde_args.push(quote!(default, skip_serializing_if = "Option::is_none"));
    }
    match read {
        Some(Tolerant::DateTime) => {
            serde_args.push(quote!(deserialize_with = "crate::error::date_time"));
        }
        Some(Tolerant::DateTimeOptional) => {
            if f.required {
                serde_args.push(quote!(default));
            }
            serde_args.push(quote!(deserialize_with = "crate::error::date_time_option"));
        }
        Some(Tolerant::DateTimeList) => {
            serde_args.push(quote!(deserialize_with = "crate::error::date_time_list"));
        }
        Some(Tolerant::DateTimeOptionalList) => {
            if f.required {
                serde_args.push(quote!(default));
            }
            serde_args.push(quote!(
                deserialize_with = "crate::error::date_time_list_option"
            ));
        }
        Some(Tolerant::Required) => {
            serde_args.push(quote!(deserialize_with = "crate::error::lenient"));
        }
        Some(Tolerant::Optional) => {
            // `deserialize_with` takes away serde's reading an absent `Option` as
            // `None`; `default` gives it back (for a required nullable field too).
            if f.required {
                serde_args.push(quote!(default));
            }
            serde_args.push(quote!(deserialize_with = "crate::error::lenient_option"));
        }
        Some(Tolerant::List) => {
            serde_args.push(quote!(deserialize_with = "crate::error::lenient_list"));
        }
        Some(Tolerant::OptionalList) => {
            if f.required {
                serde_args.push(quote!(default));
            }
            serde_args.push(quote!(
                deserialize_with = "crate::error::lenient_list_option"
            ));
        }
        _ => {}
    }
    let serde_attr = (!serde_args.is_empty()).then(|| quote!(#[serde(#(#serde_args),*)]));
    let fdoc = if f.explicit_null() {
        docs::outer(&format!(
            "{}\n\n`None` leaves the field out; `Some(None)` is an explicit `null` (to \
             clear a value, where leaving it out changes nothing).",
            f.doc
        ))
    } else {
        fdoc
    };
    let fdoc = moved(fdoc);
    quote! {
        #fdoc
        #serde_attr
        pub #fname: #ty,
    }
}

/// `Debug` for a model with secret fields: their values shown as redacted.
fn redacted_debug(s: &StructDef, name: &proc_macro2::Ident) -> TokenStream {
    let name_str = &s.name;
    let entries = s.fields.iter().map(|f| {
        let fname = ident(&f.name);
        let label = &f.name;
        match (f.secret, f.optional()) {
            (false, _) => quote!(.field(#label, &self.#fname)),
            (true, false) => quote!(.field(#label, &Redacted)),
            (true, true) => quote!(.field(#label, &self.#fname.as_ref().map(|_| Redacted))),
        }
    });
    quote! {
        impl std::fmt::Debug for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(#name_str) #(#entries)* .finish()
            }
        }
    }
}

/// The functions giving the spec's defaults of `defaults` (serde's `default = …`), each
/// with its `null`-reading twin where `reader` gives one.
fn default_fns(
    name: &proc_macro2::Ident,
    defaults: &[(&Field, &DefaultValue)],
    enums: &BTreeMap<&str, &EnumDef>,
    reader: &dyn Fn(&Field) -> Option<Tolerant>,
) -> TokenStream {
    let fns = defaults.iter().map(|(f, value)| {
        let fname = default_fn(f);
        let ty = owned(&f.ty, &TokenStream::new());
        let expr = default_expr(f, value, enums);
        let fdoc = docs::outer(&format!(
            "The spec's default for `{}`, used when it is absent.",
            f.wire
        ));
        let read = reader(f).map(|how| {
            let read = read_fn(f);
            let (call, doc) = if how == Tolerant::Default {
                (
                    quote!(crate::error::lenient_or),
                    format!(
                        "Reads `{}` tolerantly (`crate::error::Lenient`): `null` is the default.",
                        f.wire
                    ),
                )
            } else {
                (
                    quote!(crate::error::null_or),
                    format!("Reads `{}`: `null` is the default.", f.wire),
                )
            };
            let rdoc = docs::outer(&doc);
            quote! {
                #rdoc
                fn #read<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<#ty, D::Error> {
                    #call(deserializer, Self::#fname)
                }
            }
        });
        quote! {
            #fdoc
            pub fn #fname() -> #ty {
                #expr
            }
            #read
        }
    });
    quote! {
        impl #name {
            #(#fns)*
        }
    }
}

/// With defaults, `Default` gives them (and `None`/empty for the rest), as decoding
/// an empty object would.
fn default_impl(s: &StructDef, name: &proc_macro2::Ident) -> TokenStream {
    let inits = s.fields.iter().map(|f| {
        let fname = ident(&f.name);
        if f.default.is_some() {
            let dfn = default_fn(f);
            quote!(#fname: Self::#dfn())
        } else {
            quote!(#fname: Default::default())
        }
    });
    quote! {
        impl Default for #name {
            fn default() -> Self {
                Self { #(#inits),* }
            }
        }
    }
}

fn validate(s: &StructDef, validating: &BTreeSet<&str>) -> TokenStream {
    let name = ident(&s.name);
    let per_field = s.fields.iter().map(|f| {
        let fname = ident(&f.name);
        let nested = inner_named(&f.ty).is_some_and(|n| validating.contains(n));
        let value = quote!(v);
        let mut body =
            checks::statements(checks::Context::Validate, &value, &f.ty, &f.checks, &f.wire);
        if nested {
            body.extend(match &f.ty {
                Ty::Vec(_) => quote!(for item in v.iter() {
                    item.validate()?;
                }),
                _ => quote!(v.validate()?;),
            });
        }
        if body.is_empty() {
            return TokenStream::new();
        }
        if f.explicit_null() {
            return if is_copy(&f.ty) {
                quote!(if let Some(Some(v)) = self.#fname { #body })
            } else {
                quote!(if let Some(Some(v)) = &self.#fname { #body })
            };
        }
        match (f.optional(), is_copy(&f.ty)) {
            (true, true) => quote!(if let Some(v) = self.#fname { #body }),
            (true, false) => quote!(if let Some(v) = &self.#fname { #body }),
            (false, true) => quote!({ let v = self.#fname; #body }),
            (false, false) => quote!({ let v = &self.#fname; #body }),
        }
    });
    let combined = s.combined.iter().map(|rule| {
        let parts: Vec<(TokenStream, bool)> = rule
            .fields
            .iter()
            .map(|(rust, _, optional)| {
                let three_state = s
                    .fields
                    .iter()
                    .any(|f| f.name == *rust && f.explicit_null());
                let f = ident(rust);
                if three_state {
                    // An `Option<&String>`, which the check reads as an optional string.
                    (quote!(self.#f.as_ref().and_then(Option::as_ref)), true)
                } else {
                    (quote!(self.#f), *optional)
                }
            })
            .collect();
        let wires: Vec<&str> = rule.fields.iter().map(|(_, w, _)| w.as_str()).collect();
        checks::combined(&parts, &wires, rule.max, rule.unit)
    });
    quote! {
        impl #name {
            /// Checks the constraints the spec declares for this type (lengths, bounds and
            /// combined-length rules), so a request is refused before it is sent and a
            /// server can refuse a body the same way.
            ///
            /// # Errors
            ///
            /// The first constraint broken, naming the field(s) by wire name.
            pub fn validate(&self) -> Result<(), crate::ConstraintViolation> {
                #(#per_field)*
                #(#combined)*
                Ok(())
            }
        }
    }
}

/// A scalar JSON value as a `serde_json::Value` expression.
fn json_expr(value: &serde_json::Value) -> TokenStream {
    match value {
        serde_json::Value::String(s) => quote!(serde_json::Value::from(#s)),
        serde_json::Value::Bool(b) => quote!(serde_json::Value::from(#b)),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => quote!(serde_json::Value::from(#i)),
            (None, Some(u), _) => quote!(serde_json::Value::from(#u)),
            (_, _, Some(f)) => quote!(serde_json::Value::from(#f)),
            _ => quote!(serde_json::Value::Null),
        },
        _ => quote!(serde_json::Value::Null),
    }
}

/// What the fallback variant of `e` holds for an unlisted `value` (a default that is
/// not among the listed values).
fn fallback_value(e: &EnumDef, value: &serde_json::Value) -> TokenStream {
    match (e.kind, value) {
        (EnumKind::String, serde_json::Value::String(s)) => quote!(#s.to_owned()),
        (EnumKind::Integer, serde_json::Value::Number(n)) => {
            let n = n.as_i64().unwrap_or_default();
            quote!(#n)
        }
        _ => json_expr(value),
    }
}

/// An enum of listed values: strings (the usual case), integers, or a mix. Each keeps a
/// value the spec does not list in its fallback variant, so a newer server's value
/// decodes and is sent back as it came. `#[non_exhaustive]`: a value the spec adds later
/// moves out of the fallback into a variant of its own, which would break a caller's
/// exhaustive match.
fn enumeration(e: &EnumDef) -> TokenStream {
    match e.kind {
        EnumKind::String => string_enum(e),
        EnumKind::Integer => integer_enum(e),
        EnumKind::Mixed => mixed_enum(e),
    }
}

fn string_enum(e: &EnumDef) -> TokenStream {
    let name = ident(&e.name);
    let doc = docs::outer(&e.doc);
    let fallback = ident(&e.fallback);
    let variants: Vec<_> = e.variants.iter().map(|(v, _)| ident(v)).collect();
    let wires: Vec<&str> = e
        .variants
        .iter()
        .map(|(_, w)| w.as_str().unwrap_or_default())
        .collect();
    let variant_docs = wires.iter().map(|w| docs::outer(&format!("`{w}`")));
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #name {
            #( #variant_docs #variants, )*
            /// A value the spec does not list (sent by a newer server), kept as it came.
            #fallback(String),
        }

        impl #name {
            /// The value as it is spelled on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #( Self::#variants => #wires, )*
                    Self::#fallback(value) => value,
                }
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for #name {
            type Err = std::convert::Infallible;

            fn from_str(value: &str) -> Result<Self, Self::Err> {
                Ok(match value {
                    #( #wires => Self::#variants, )*
                    other => Self::#fallback(other.to_owned()),
                })
            }
        }

        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <String as serde::Deserialize>::deserialize(deserializer)?;
                Ok(match value.as_str() {
                    #( #wires => Self::#variants, )*
                    _ => Self::#fallback(value),
                })
            }
        }
    }
}

fn integer_enum(e: &EnumDef) -> TokenStream {
    let name = ident(&e.name);
    let doc = docs::outer(&e.doc);
    let fallback = ident(&e.fallback);
    let variants: Vec<_> = e.variants.iter().map(|(v, _)| ident(v)).collect();
    let numbers: Vec<i64> = e
        .variants
        .iter()
        .map(|(_, w)| w.as_i64().unwrap_or_default())
        .collect();
    let variant_docs = numbers.iter().map(|n| docs::outer(&format!("`{n}`")));
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum #name {
            #( #variant_docs #variants, )*
            /// A value the spec does not list (sent by a newer server), kept as it came.
            #fallback(i64),
        }

        impl #name {
            /// The value as it is sent on the wire.
            pub fn value(&self) -> i64 {
                match self {
                    #( Self::#variants => #numbers, )*
                    Self::#fallback(value) => *value,
                }
            }
        }

        impl From<i64> for #name {
            fn from(value: i64) -> Self {
                match value {
                    #( #numbers => Self::#variants, )*
                    other => Self::#fallback(other),
                }
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.value())
            }
        }

        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_i64(self.value())
            }
        }

        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <i64 as serde::Deserialize>::deserialize(deserializer).map(Self::from)
            }
        }
    }
}

fn mixed_enum(e: &EnumDef) -> TokenStream {
    let name = ident(&e.name);
    let doc = docs::outer(&e.doc);
    let fallback = ident(&e.fallback);
    let variants: Vec<_> = e.variants.iter().map(|(v, _)| ident(v)).collect();
    let variant_docs = e
        .variants
        .iter()
        .map(|(_, w)| docs::outer(&format!("`{w}`")));
    let values: Vec<TokenStream> = e.variants.iter().map(|(_, w)| json_expr(w)).collect();
    // Matched by kind and value, without building a `Value` to compare with; a fraction
    // is compared bit for bit (the same literal parses to the same `f64`).
    let patterns = e.variants.iter().map(|(_, w)| match w {
        serde_json::Value::String(s) => quote!(serde_json::Value::String(s) if s == #s),
        serde_json::Value::Bool(b) => quote!(serde_json::Value::Bool(#b)),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => quote!(serde_json::Value::Number(n) if n.as_i64() == Some(#i)),
            (None, Some(u), _) => quote!(serde_json::Value::Number(n) if n.as_u64() == Some(#u)),
            (_, _, f) => {
                let bits = f.unwrap_or_default().to_bits();
                quote!(serde_json::Value::Number(n) if n.as_f64().map(f64::to_bits) == Some(#bits))
            }
        },
        _ => quote!(serde_json::Value::Null),
    });
    let fallback_doc = docs::outer(MIXED_FALLBACK_DOC);
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum #name {
            #( #variant_docs #variants, )*
            #fallback_doc
            #fallback(serde_json::Value),
        }

        impl #name {
            /// The value as it is sent on the wire.
            pub fn to_json(&self) -> serde_json::Value {
                match self {
                    #( Self::#variants => #values, )*
                    Self::#fallback(value) => value.clone(),
                }
            }
        }

        impl From<serde_json::Value> for #name {
            fn from(value: serde_json::Value) -> Self {
                match &value {
                    #( #patterns => Self::#variants, )*
                    _ => Self::#fallback(value),
                }
            }
        }

        impl std::fmt::Display for #name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.to_json() {
                    serde_json::Value::String(s) => f.write_str(&s),
                    other => write!(f, "{other}"),
                }
            }
        }

        impl serde::Serialize for #name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(&self.to_json(), serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <serde_json::Value as serde::Deserialize>::deserialize(deserializer).map(Self::from)
            }
        }
    }
}

fn alias(a: &AliasDef) -> TokenStream {
    let name = ident(&a.name);
    let doc = docs::outer(&a.doc);
    let ty = owned(&a.ty, &TokenStream::new());
    quote! {
        #doc
        pub type #name = #ty;
    }
}

pub use super::object_reads::DESERIALIZE_REQUESTS;

/// The models the client decodes: every model a documented answer's JSON body holds
/// (through fields, union variants, aliases, lists and maps), and the request body of
/// a token-refresh operation (the refresh builds it from JSON).
///
/// The others (request bodies only) implement `Deserialize` only behind the crate
/// feature [`DESERIALIZE_REQUESTS`], and not by serde's derive (see `object_reads`):
/// a client only ever serializes them. A server or test double built on the crate
/// turns the feature on.
fn decoded_types(api: &Api) -> BTreeSet<String> {
    if !api.client {
        // No client decodes anything: every model derives `Deserialize` behind the
        // feature the server turns on, strictly.
        return BTreeSet::new();
    }
    fn named(ty: &Ty, out: &mut Vec<String>) {
        match ty {
            Ty::Named(n) => out.push(n.clone()),
            Ty::Vec(t) | Ty::Map(t) | Ty::Option(t) => named(t, out),
            Ty::Tuple(items) => items.iter().for_each(|t| named(t, out)),
            _ => {}
        }
    }
    let refreshed: BTreeSet<&str> = api
        .schemes
        .iter()
        .filter_map(|s| s.refresh.as_ref().map(|r| r.method.as_str()))
        .collect();
    let mut todo = Vec::new();
    for op in &api.operations {
        for r in &op.responses {
            if let Payload::Json(ty) = &r.payload {
                named(ty, &mut todo);
            }
        }
        if refreshed.contains(op.name.as_str()) {
            for body in op.body.iter().chain(op.other_bodies.iter().map(|(_, b)| b)) {
                named(&body.ty, &mut todo);
            }
        }
    }
    let by_name: BTreeMap<&str, &TypeDef> = api.types.iter().map(|t| (t.name(), t)).collect();
    let mut seen = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        match by_name.get(name.as_str()) {
            Some(TypeDef::Struct(s)) => s.fields.iter().for_each(|f| named(&f.ty, &mut todo)),
            Some(TypeDef::Union(u)) => u
                .variants
                .iter()
                .filter_map(|v| v.ty.as_ref())
                .for_each(|ty| named(ty, &mut todo)),
            Some(TypeDef::Alias(a)) => named(&a.ty, &mut todo),
            Some(TypeDef::Enum(_)) | None => {}
        }
    }
    seen
}

/// How a field of a model the client decodes is read by a reader of the runtime rather
/// than serde's derive alone: the tolerant readers ([`crate::Options::tolerant`]), and in
/// every mode the `format: date-time` readers (which name what is wrong with an
/// offset-less date-time, and read it as UTC in tolerant mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tolerant {
    /// A required date-time: `crate::error::date_time`.
    DateTime,
    /// An optional date-time: `crate::error::date_time_option`.
    DateTimeOptional,
    /// A required list of date-times: `crate::error::date_time_list`.
    DateTimeList,
    /// An optional list of date-times: `crate::error::date_time_list_option`.
    DateTimeOptionalList,
    /// A required scalar: `crate::error::lenient`.
    Required,
    /// An optional scalar: `crate::error::lenient_option`.
    Optional,
    /// A scalar with a default: a `read_<field>` calling `crate::error::lenient_or`.
    Default,
    /// Any other type with a default: a `read_<field>` calling `crate::error::null_or`.
    NullDefault,
    /// A required list of scalars: `crate::error::lenient_list`.
    List,
    /// An optional list of scalars: `crate::error::lenient_list_option`.
    OptionalList,
}

impl Tolerant {
    /// The runtime region the reader calls (see `emit::runtime`).
    pub(crate) fn part(self) -> &'static str {
        match self {
            Tolerant::DateTime => "date_time_required",
            Tolerant::DateTimeOptional => "date_time_optional",
            Tolerant::DateTimeList => "date_time_list",
            Tolerant::DateTimeOptionalList => "date_time_list_option",
            Tolerant::Required => "tolerant_required",
            Tolerant::Optional => "tolerant_optional",
            Tolerant::Default => "tolerant_default",
            Tolerant::NullDefault => "tolerant_null",
            Tolerant::List => "tolerant_list",
            Tolerant::OptionalList => "tolerant_list_option",
        }
    }
}

/// How `f` is read in tolerant mode, in a struct the client decodes. Only answers are
/// read tolerantly: a model only a request holds implements `Deserialize` behind the
/// `deserialize-requests` feature (for a server built on the crate), which must be
/// strict about what it accepts. A field that tells `null` from absent, a flattened
/// map and a boxed one stay strict.
fn tolerant(f: &Field) -> Option<Tolerant> {
    let is_scalar = |ty: &Ty| matches!(ty, Ty::String | Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64);
    let scalar = is_scalar(&f.ty);
    if f.flatten || f.boxed || f.explicit_null() {
        return None;
    }
    if let Ty::Vec(item) = &f.ty
        && is_scalar(item)
        && f.default.is_none()
    {
        return Some(if f.optional() {
            Tolerant::OptionalList
        } else {
            Tolerant::List
        });
    }
    if f.default.is_some() {
        return Some(if scalar {
            Tolerant::Default
        } else {
            Tolerant::NullDefault
        });
    }
    if !scalar {
        return None;
    }
    Some(if f.optional() {
        Tolerant::Optional
    } else {
        Tolerant::Required
    })
}

/// How field `f` of a model is read: by the date-time readers where it is a date-time of
/// a model the client decodes, else by the tolerant readers in tolerant mode.
fn reader(f: &Field, decoded: bool, tolerant_mode: bool) -> Option<Tolerant> {
    if !decoded {
        return None;
    }
    date_time(f).or_else(|| if tolerant_mode { tolerant(f) } else { None })
}

/// How `f` is read by the date-time readers: a date-time, or a list of them, without a
/// default (a defaulted field keeps its own reader), not flattened, boxed or telling
/// `null` from absent.
fn date_time(f: &Field) -> Option<Tolerant> {
    if f.flatten || f.boxed || f.explicit_null() || f.default.is_some() {
        return None;
    }
    match &f.ty {
        Ty::DateTime if f.optional() => Some(Tolerant::DateTimeOptional),
        Ty::DateTime => Some(Tolerant::DateTime),
        Ty::Vec(item) if **item == Ty::DateTime && f.optional() => {
            Some(Tolerant::DateTimeOptionalList)
        }
        Ty::Vec(item) if **item == Ty::DateTime => Some(Tolerant::DateTimeList),
        _ => None,
    }
}

/// The runtime regions the readers of `api`'s models call (see [`reader`]).
pub(crate) fn reader_parts(api: &Api) -> BTreeSet<&'static str> {
    let decoded = decoded_types(api);
    api.types
        .iter()
        .filter_map(|t| match t {
            TypeDef::Struct(s) if decoded.contains(&s.name) => Some(s),
            _ => None,
        })
        .flat_map(|s| {
            s.fields
                .iter()
                .filter_map(|f| reader(f, true, api.tolerant))
        })
        .map(Tolerant::part)
        .collect()
}

/// The name of the associated function that reads a defaulted field tolerantly.
fn read_fn(f: &Field) -> proc_macro2::Ident {
    ident(&format!("read_{}", f.name.trim_end_matches('_')))
}

/// `#[cfg_attr(feature = "deserialize-requests", derive(serde::Deserialize))]` for a union
/// the client never decodes (see [`decoded_types`]), `None` for one it does.
fn decode_attr(name: &str, decoded: &BTreeSet<String>) -> Option<TokenStream> {
    (!decoded.contains(name))
        .then(|| quote!(#[cfg_attr(feature = #DESERIALIZE_REQUESTS, derive(serde::Deserialize))]))
}

/// A `oneOf`/`anyOf`: an internally tagged enum (`tag` set) or an untagged one, with a
/// last variant that keeps any other value as JSON. serde's derive does all the work; the
/// fallback is `#[serde(untagged)]`, so it is tried only after every named variant.
/// Variants hold their data inline as the spec nests it, hence the allowed
/// `large_enum_variant` (boxing would cost every access for the sake of size).
fn union(u: &UnionDef, decoded: &BTreeSet<String>) -> TokenStream {
    let name = ident(&u.name);
    let decode = decode_attr(&u.name, decoded);
    let mut derives = vec![
        quote!(Clone),
        quote!(Debug),
        quote!(PartialEq),
        quote!(serde::Serialize),
    ];
    if decode.is_none() {
        derives.push(quote!(serde::Deserialize));
    }
    let doc = docs::outer(&u.doc);
    let representation = match &u.tag {
        Some(tag) => quote!(#[serde(tag = #tag)]),
        None => quote!(#[serde(untagged)]),
    };
    let variants = u.variants.iter().map(|v| {
        let vname = ident(&v.name);
        let vdoc = docs::outer(&v.doc);
        let rename = v
            .tag_value
            .as_ref()
            .map(|value| quote!(#[serde(rename = #value)]));
        let data = v.ty.as_ref().map(|ty| {
            let mut ty = owned(ty, &TokenStream::new());
            if v.boxed {
                ty = quote!(Box<#ty>);
            }
            quote!((#ty))
        });
        quote! {
            #vdoc
            #rename
            #vname #data,
        }
    });
    let fallback = u.fallback.as_ref().map(|f| {
        let f = ident(f);
        let untagged = u.tag.is_some().then(|| quote!(#[serde(untagged)]));
        let fallback_doc = docs::outer(UNION_FALLBACK_DOC);
        quote! {
            #fallback_doc
            #untagged
            #f(serde_json::Value),
        }
    });
    // A branch the spec adds later moves values out of the fallback into a variant of
    // their own: `#[non_exhaustive]` keeps the callers' matches compiling then.
    let non_exhaustive = u.fallback.is_some().then(|| quote!(#[non_exhaustive]));
    let display = u.scalar.then(|| {
        quote! {
            impl std::fmt::Display for #name {
                fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    write_scalar(self, f)
                }
            }
        }
    });
    quote! {
        #doc
        #[derive(#(#derives),*)]
        #decode
        #representation
        #[allow(clippy::large_enum_variant)]
        #non_exhaustive
        pub enum #name {
            #(#variants)*
            #fallback
        }

        #display
    }
}
