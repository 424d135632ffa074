//! Constructors and setters of the models a request body holds, in `models.rs`.
//!
//! Request models are `#[non_exhaustive]`, so that a field the spec gains later does not
//! break a user's struct literal: they are built with `new(required…)` (when a field is
//! required), the named constructors of `x-constructors` and `with_…` setters of the
//! optional fields. Only request models get them: a user reads answers and rarely builds
//! one, and every emitted function costs `cargo check` time in every dependent build.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use super::types::{ident, owned};
use crate::ir::{Api, Field, NamedConstructor, StructDef, Ty, TypeDef};

/// `#[non_exhaustive]` for a request model (nothing for other models): placed on the
/// struct by the models emitter.
pub fn attributes(s: &StructDef) -> TokenStream {
    if s.request {
        quote!(#[non_exhaustive])
    } else {
        TokenStream::new()
    }
}

/// The `impl` blocks with the constructors and setters of every request model.
pub fn emit(api: &Api) -> TokenStream {
    let blocks = api.types.iter().filter_map(|t| match t {
        TypeDef::Struct(s) if s.request => Some(builders(s)),
        _ => None,
    });
    quote!(#(#blocks)*)
}

/// Whether `new` takes the field: a plain value with no default (an `Option`, a
/// defaulted or a flattened field starts out empty).
fn takes(f: &Field) -> bool {
    !f.optional() && !f.flatten && f.default.is_none()
}

fn builders(s: &StructDef) -> TokenStream {
    let required: Vec<&Field> = s.fields.iter().filter(|f| takes(f)).collect();
    // With no required field the derived or written `Default` is the constructor.
    let new = (!required.is_empty()).then(|| {
        let args: Vec<&str> = required.iter().map(|f| f.name.as_str()).collect();
        let doc = "A body with its required fields; set optional ones with the `with_…` methods.";
        constructor(s, "new", doc, &[], &args)
    });
    let named = s.constructors.iter().map(|c: &NamedConstructor| {
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        constructor(s, &c.name, &c.doc, &c.fixed, &args)
    });
    let setters = s.fields.iter().filter(|f| f.optional()).map(|f| {
        let fname = ident(&f.name);
        let stem = f.name.trim_end_matches('_');
        let setter = ident(&format!("with_{stem}"));
        let (param, value) = argument(f);
        let doc = docs::outer(&format!("Sets `{}`.", f.wire));
        let set = if f.explicit_null() {
            quote!(Some(Some(#value)))
        } else {
            quote!(Some(#value))
        };
        // `with_…_null` unless another field's setter has that name.
        let null_setter = f
            .explicit_null()
            .then(|| format!("{stem}_null"))
            .filter(|name| {
                !s.fields
                    .iter()
                    .any(|g| g.name.trim_end_matches('_') == name.as_str())
            })
            .map(|name| {
                let null_setter = ident(&format!("with_{name}"));
                let doc = docs::outer(&format!(
                    "Sends `{}` as an explicit `null` (the spec allows it), to clear the \
                     value; leaving the field unset sends nothing.",
                    f.wire
                ));
                quote! {
                    #doc
                    #[must_use]
                    pub fn #null_setter(mut self) -> Self {
                        self.#fname = Some(None);
                        self
                    }
                }
            });
        quote! {
            #doc
            #[must_use]
            pub fn #setter(mut self, #fname: #param) -> Self {
                self.#fname = #set;
                self
            }
            #null_setter
        }
    });
    let name = ident(&s.name);
    quote! {
        impl #name {
            #new
            #(#named)*
            #(#setters)*
        }
    }
}

/// One associated function that builds the struct: `fixed` fields get their value, `args`
/// are taken in order, every other field starts out unset (or at its default).
fn constructor(
    s: &StructDef,
    name: &str,
    doc: &str,
    fixed: &[(String, serde_json::Value)],
    args: &[&str],
) -> TokenStream {
    let fn_name = ident(name);
    let doc = docs::outer(doc);
    let params = args.iter().filter_map(|a| {
        let f = s.fields.iter().find(|f| f.name == *a)?;
        let (param, _) = argument(f);
        let a = ident(a);
        Some(quote!(#a: #param))
    });
    let inits = s.fields.iter().map(|f| {
        let fname = ident(&f.name);
        let value = if let Some((_, v)) = fixed.iter().find(|(n, _)| *n == f.name) {
            Some(literal(&f.ty, v))
        } else if args.contains(&f.name.as_str()) {
            Some(argument(f).1)
        } else {
            None
        };
        match (value, f.optional()) {
            (Some(v), true) if f.explicit_null() => quote!(#fname: Some(Some(#v))),
            (Some(v), true) => quote!(#fname: Some(#v)),
            // An argument passed through as it is: the shorthand (clippy's
            // `redundant_field_names`).
            (Some(v), false) if fname == v.to_string() => quote!(#fname),
            (Some(v), false) => quote!(#fname: #v),
            (None, true) => quote!(#fname: None),
            (None, false) => match &f.default {
                Some(_) => {
                    let dfn = ident(&format!("default_{}", f.name.trim_end_matches('_')));
                    quote!(#fname: Self::#dfn())
                }
                None => quote!(#fname: Default::default()),
            },
        }
    });
    let many = (args.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    quote! {
        #doc
        #many
        pub fn #fn_name(#(#params),*) -> Self {
            Self { #(#inits),* }
        }
    }
}

/// A field's parameter type and the expression that turns the argument into the field's
/// value (without the `Option`): strings take `impl Into<String>`, boxed fields box.
fn argument(f: &Field) -> (TokenStream, TokenStream) {
    let name = ident(&f.name);
    let (param, mut value) = match &f.ty {
        Ty::String => (quote!(impl Into<String>), quote!(#name.into())),
        ty => (owned(ty, &TokenStream::new()), quote!(#name)),
    };
    if f.boxed {
        value = quote!(Box::new(#value));
    }
    (param, value)
}

/// A fixed value of `x-constructors` as an expression of the field's type (the lowering
/// checked that it fits).
fn literal(ty: &Ty, value: &serde_json::Value) -> TokenStream {
    match (ty, value) {
        (Ty::String, serde_json::Value::String(s)) => quote!(#s.to_owned()),
        (Ty::Bool, serde_json::Value::Bool(b)) => quote!(#b),
        (Ty::I32, serde_json::Value::Number(n)) => {
            let n = n
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or_default();
            quote!(#n)
        }
        (Ty::I64, serde_json::Value::Number(n)) => {
            let n = n.as_i64().unwrap_or_default();
            quote!(#n)
        }
        (Ty::F32, serde_json::Value::Number(n)) => {
            #[allow(clippy::cast_possible_truncation)]
            let x = n.as_f64().unwrap_or_default() as f32;
            quote!(#x)
        }
        (_, serde_json::Value::Number(n)) => {
            let x = n.as_f64().unwrap_or_default();
            quote!(#x)
        }
        _ => quote!(Default::default()),
    }
}
