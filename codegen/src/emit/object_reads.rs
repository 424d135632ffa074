//! `Deserialize` of the structs the client never decodes (only requests hold them; see
//! `models::decoded_types`), for a server or test double built on the crate.
//!
//! serde's derive writes, per struct, a field enum with its own visitor, a sequence
//! decoder and a map decoder, all generic over the deserializer: on a spec of a few
//! hundred request models that was the largest part of the server crate's `cargo
//! check`. Here the one generic step is shared (`read_object`: any self-describing input
//! read as a JSON object) and each struct gets a non-generic `from_object` taking its
//! fields out of the map, a line a field. What a field is read as follows the serde
//! attributes the same struct's `Serialize` is written with: the wire name, the spec's
//! default when absent, `None` when an optional field is absent, `Some(None)` for an
//! explicit `null` where the field tells the two apart, the flattened map of the
//! properties no field names, and the other unknown fields ignored.
//!
//! Where it differs from the derive: only an object is read (serde's derive also takes a
//! struct as a positional array, which no JSON schema of an object allows); a key sent
//! twice keeps its last value rather than failing; and a field's error is a message
//! naming the field (``field `count`: invalid type…``) rather than a path a
//! `serde_path_to_error` wrapper can see, so the server's decode violation for it has an
//! empty pointer. The schema judges a body before it is decoded, and its violation for
//! the same field carries the pointer.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Field, StructDef, Ty};

use super::types::ident;

/// The crate feature that adds `Deserialize` to the models the client never decodes.
pub const DESERIALIZE_REQUESTS: &str = "deserialize-requests";

/// The name of the associated function giving a field's default (`models` writes it).
pub(super) type DefaultFn = fn(&Field) -> proc_macro2::Ident;

/// The shared readers the `from_object` of `structs` call, each only where one of them
/// does (an unused private function fails `-D warnings`); none without a struct.
pub(super) fn helpers(structs: &[&StructDef]) -> TokenStream {
    if structs.is_empty() {
        return TokenStream::new();
    }
    let kinds: Vec<Read> = structs
        .iter()
        .flat_map(|s| s.fields.iter().map(kind))
        .collect();
    // Every field's read goes through it: only a struct without fields does not.
    let field_value = (!kinds.is_empty()).then(|| {
        quote! {
            /// The value of `value` as a `T`, an error naming the field `wire` where it is
            /// not one.
            #[cfg(feature = #DESERIALIZE_REQUESTS)]
            fn field_value<T: serde::de::DeserializeOwned>(
                value: serde_json::Value,
                wire: &str,
            ) -> Result<T, serde_json::Error> {
                T::deserialize(value).map_err(|e| serde::de::Error::custom(format_args!("field `{wire}`: {e}")))
            }
        }
    });
    let field = kinds.contains(&Read::Required).then(|| {
        quote! {
            /// Takes the field `wire` out of `object`: an error where it is absent.
            #[cfg(feature = #DESERIALIZE_REQUESTS)]
            fn field<T: serde::de::DeserializeOwned>(
                object: &mut serde_json::Map<String, serde_json::Value>,
                wire: &'static str,
            ) -> Result<T, serde_json::Error> {
                match object.remove(wire) {
                    Some(value) => field_value(value, wire),
                    None => Err(serde::de::Error::missing_field(wire)),
                }
            }
        }
    });
    let field_or = kinds
        .iter()
        .any(|k| matches!(k, Read::Default | Read::Optional))
        .then(|| {
            quote! {
                /// Takes the field `wire` out of `object`: `absent()` where it is absent.
                #[cfg(feature = #DESERIALIZE_REQUESTS)]
                fn field_or<T: serde::de::DeserializeOwned>(
                    object: &mut serde_json::Map<String, serde_json::Value>,
                    wire: &'static str,
                    absent: fn() -> T,
                ) -> Result<T, serde_json::Error> {
                    match object.remove(wire) {
                        Some(value) => field_value(value, wire),
                        None => Ok(absent()),
                    }
                }
            }
        });
    let field_or_null = kinds.contains(&Read::ExplicitNull).then(|| {
        quote! {
            /// Takes the field `wire` out of `object` telling absent (`None`) from `null`
            /// (`Some(None)`).
            #[cfg(feature = #DESERIALIZE_REQUESTS)]
            fn field_or_null<T: serde::de::DeserializeOwned>(
                object: &mut serde_json::Map<String, serde_json::Value>,
                wire: &'static str,
            ) -> Result<Option<Option<T>>, serde_json::Error> {
                match object.remove(wire) {
                    Some(value) => field_value(value, wire).map(Some),
                    None => Ok(None),
                }
            }
        }
    });
    quote! {
        /// Reads the JSON object a request model is made from; the model's own
        /// `from_object` takes its fields out of it.
        #[cfg(feature = #DESERIALIZE_REQUESTS)]
        fn read_object<'de, D: serde::Deserializer<'de>>(
            deserializer: D,
            expected: &'static str,
        ) -> Result<serde_json::Map<String, serde_json::Value>, D::Error> {
            use serde::de::{Error, Unexpected};
            match <serde_json::Value as serde::Deserialize>::deserialize(deserializer)? {
                serde_json::Value::Object(object) => Ok(object),
                serde_json::Value::Null => Err(D::Error::invalid_type(Unexpected::Unit, &expected)),
                serde_json::Value::Bool(b) => Err(D::Error::invalid_type(Unexpected::Bool(b), &expected)),
                serde_json::Value::Number(n) => {
                    let unexpected = match (n.as_u64(), n.as_i64(), n.as_f64()) {
                        (Some(u), _, _) => Unexpected::Unsigned(u),
                        (None, Some(i), _) => Unexpected::Signed(i),
                        (None, None, Some(f)) => Unexpected::Float(f),
                        (None, None, None) => Unexpected::Other("number"),
                    };
                    Err(D::Error::invalid_type(unexpected, &expected))
                }
                serde_json::Value::String(s) => Err(D::Error::invalid_type(Unexpected::Str(&s), &expected)),
                serde_json::Value::Array(_) => Err(D::Error::invalid_type(Unexpected::Seq, &expected)),
            }
        }

        #field_value
        #field
        #field_or
        #field_or_null
    }
}

/// How a named field is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Read {
    /// Must be there.
    Required,
    /// The spec's default where absent.
    Default,
    /// `None` where absent.
    Optional,
    /// `None` where absent, `Some(None)` where `null`.
    ExplicitNull,
    /// The flattened map of the properties no field names.
    Flattened,
}

/// How field `f` is read, as serde's derive reads it with the attributes
/// `models::struct_field` gives it.
fn kind(f: &Field) -> Read {
    if f.flatten {
        Read::Flattened
    } else if f.default.is_some() {
        Read::Default
    } else if f.explicit_null() {
        Read::ExplicitNull
    } else if f.optional() || matches!(f.ty, Ty::Option(_)) {
        // serde reads an absent `Option` as `None`, required or not.
        Read::Optional
    } else {
        Read::Required
    }
}

/// `Deserialize` of struct `s` through `read_object` and its own `from_object`, behind
/// the feature.
pub(super) fn deserialize(s: &StructDef, default_fn: DefaultFn) -> TokenStream {
    let name = ident(&s.name);
    let expected = format!("struct {}", s.name);
    // The flattened map takes what the named fields leave, so it is read last.
    let order = s
        .fields
        .iter()
        .filter(|f| !f.flatten)
        .chain(s.fields.iter().filter(|f| f.flatten));
    let flattened = s.fields.iter().filter(|f| f.flatten).count();
    let mut flattened_seen = 0;
    // Locals `taken_…`: no helper starts so, so no property's local hides one.
    let reads: Vec<TokenStream> = order
        .map(|f| {
            let local = ident(&format!("taken_{}", f.name));
            let read = if f.flatten {
                flattened_seen += 1;
                // Two flattened maps would each see every leftover property, as serde
                // gives them; only the last takes the map itself.
                let rest = if flattened_seen == flattened {
                    quote!(object)
                } else {
                    quote!(object.clone())
                };
                quote!(field_value(serde_json::Value::Object(#rest), "(the other properties)"))
            } else {
                read(s, f, default_fn)
            };
            quote!(let #local = #read?;)
        })
        .collect();
    let inits = s.fields.iter().map(|f| {
        let fname = ident(&f.name);
        let local = ident(&format!("taken_{}", f.name));
        quote!(#fname: #local,)
    });
    let takes = s.fields.iter().any(|f| !f.flatten);
    let object = if takes {
        quote!(mut object)
    } else if flattened > 0 {
        quote!(object)
    } else {
        quote!(_object)
    };
    let doc = format!(
        " Reads `{}` from the fields of a JSON object (unknown ones ignored).",
        s.name
    );
    quote! {
        #[cfg(feature = #DESERIALIZE_REQUESTS)]
        impl<'de> serde::Deserialize<'de> for #name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let object = read_object(deserializer, #expected)?;
                #name::from_object(object).map_err(serde::de::Error::custom)
            }
        }

        #[cfg(feature = #DESERIALIZE_REQUESTS)]
        impl #name {
            #[doc = #doc]
            fn from_object(#object: serde_json::Map<String, serde_json::Value>) -> Result<Self, serde_json::Error> {
                #(#reads)*
                Ok(#name { #(#inits)* })
            }
        }
    }
}

/// The read of named field `f` of `s`.
fn read(s: &StructDef, f: &Field, default_fn: DefaultFn) -> TokenStream {
    let wire = &f.wire;
    match kind(f) {
        Read::Default => {
            let owner = ident(&s.name);
            let default = default_fn(f);
            quote!(field_or(&mut object, #wire, #owner::#default))
        }
        Read::ExplicitNull => quote!(field_or_null(&mut object, #wire)),
        Read::Optional => quote!(field_or(&mut object, #wire, Option::default)),
        Read::Required | Read::Flattened => quote!(field(&mut object, #wire)),
    }
}
