//! Calls of a generated client's methods whose arguments are read from JSON text, for
//! code that drives a client from values made elsewhere: a schema's value generator, a
//! recorded exchange. The usage example writes literals a reader can follow; this writes
//! whatever value it is given, in the form each argument takes (see `types::argument`,
//! `client::body_type` and `requests`), so that one generic driver reaches every
//! operation of a crate without knowing its signatures.
//!
//! The code binds each argument as `let aN: T = value(TEXT);` and then passes it, so the
//! caller defines `fn value<T: serde::de::DeserializeOwned>(json: &str) -> T` beside it
//! (request models deserialize with the crate's `deserialize-requests` feature).

use quote::quote;

use super::types::owned;
use crate::ir::{Body, BodyKind, Operation, Param, Ty};

/// An argument of a call, for the caller to give a value to.
#[derive(Debug, Clone, Copy)]
pub enum Slot<'a> {
    /// A parameter (path, query, header or cookie).
    Param(&'a Param),
    /// The request body of the main method.
    Body(&'a Body),
}

impl Slot<'_> {
    /// Whether the method cannot be called without a value here.
    pub fn required(&self) -> bool {
        match self {
            Slot::Param(p) => p.required,
            Slot::Body(b) => b.required,
        }
    }

    /// The JSON pointer of the argument's schema in the document, when it has one.
    pub fn schema(&self) -> Option<&str> {
        match self {
            Slot::Param(p) => p.schema.as_deref(),
            Slot::Body(b) => b.schema.as_deref(),
        }
    }
}

/// A call of an operation's main method, written out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Statements binding the arguments (`let aN: T = value("…");`).
    pub bindings: Vec<String>,
    /// The call as an expression that is awaited (`client.op(…)`, or a builder's
    /// `client.op(…).limit(a1).send()`), with the client named `client`.
    pub expression: String,
}

/// The call of `op`'s main method in crate `lib` (its library name), each argument the
/// value whose JSON text `json` gives. `json` is asked for every slot in the method's
/// order; `None` leaves an optional argument out. `None` comes back when a required
/// argument has no value or no JSON form (a `multipart/form-data` body, whose form type
/// is built part by part).
pub fn call(
    op: &Operation,
    lib: &str,
    json: &mut dyn FnMut(Slot<'_>) -> Option<String>,
) -> Option<Call> {
    let builder = super::requests::uses_builder(op);
    let models = format!("{lib}::models::");
    let mut bindings = Vec::new();
    let mut positional = Vec::new();
    let mut setters = Vec::new();
    let slots = op
        .params
        .iter()
        .map(Slot::Param)
        .chain(op.body.iter().map(Slot::Body));
    for (index, slot) in slots.enumerate() {
        let name = format!("a{index}");
        let Some(text) = json(slot) else {
            if slot.required() {
                return None;
            }
            if !builder {
                positional.push("None".to_owned());
            }
            continue;
        };
        let (ty, passed) = match slot {
            Slot::Param(p) => (owned_text(&p.ty, &models), param_form(&name, &p.ty)),
            Slot::Body(b) => (body_binding(b, &models)?, body_form(&name, b)),
        };
        bindings.push(format!("let {name}: {ty} = value({text:?});"));
        if !builder && borrows_strings(slot) {
            // `&[&str]`: the strings borrowed from the owned list.
            bindings.push(format!(
                "let {name}_items: Vec<&str> = {name}.iter().map(String::as_str).collect();"
            ));
        }
        match (builder, slot.required()) {
            // A builder takes owned values, through `Into` where it can.
            (true, true) => positional.push(name),
            (true, false) => {
                let setter = match slot {
                    Slot::Param(p) => p.name.clone(),
                    Slot::Body(_) => "body".to_owned(),
                };
                setters.push(format!(".{setter}({name})"));
            }
            (false, true) => positional.push(passed),
            // `Option<reqwest::Body>` takes no string as it is.
            (false, false) if matches!(slot, Slot::Body(b) if b.kind == BodyKind::Binary) => {
                positional.push(format!("Some({passed}.into())"))
            }
            (false, false) => positional.push(format!("Some({passed})")),
        }
    }
    let mut expression = format!("client.{}({})", op.name, positional.join(", "));
    if builder {
        expression.push_str(&setters.concat());
        expression.push_str(".send()");
    }
    Some(Call {
        bindings,
        expression,
    })
}

/// Whether a positional method takes the slot as `&[&str]` (a list of strings as a
/// parameter; a JSON body's list is `&[String]`).
fn borrows_strings(slot: Slot<'_>) -> bool {
    matches!(slot, Slot::Param(p) if matches!(&p.ty, Ty::Vec(item) if **item == Ty::String))
}

fn owned_text(ty: &Ty, models: &str) -> String {
    let models: proc_macro2::TokenStream = models.parse().expect("a models path");
    let tokens = owned(ty, &quote!(#models));
    // Tokens print spaced (`Vec < String >`), which compiles as it is.
    tokens.to_string()
}

/// A parameter bound as `name`, in the form a positional method takes it.
fn param_form(name: &str, ty: &Ty) -> String {
    match ty {
        Ty::String => format!("{name}.as_str()"),
        Ty::Vec(item) if **item == Ty::String => format!("{name}_items.as_slice()"),
        Ty::Vec(_) => format!("{name}.as_slice()"),
        ty if super::types::is_copy(ty) => name.to_owned(),
        _ => format!("&{name}"),
    }
}

/// The type a body is bound as: its model for JSON and forms, a string for text and
/// bytes (which a `reqwest::Body` is made from); none for a multipart form.
fn body_binding(b: &Body, models: &str) -> Option<String> {
    match b.kind {
        BodyKind::Json | BodyKind::Form => Some(owned_text(&b.ty, models)),
        BodyKind::Text | BodyKind::Binary => Some("String".to_owned()),
        BodyKind::Multipart => None,
    }
}

/// A body bound as `name`, in the form a positional method takes it.
fn body_form(name: &str, b: &Body) -> String {
    match (b.kind, &b.ty) {
        (BodyKind::Text | BodyKind::Binary | BodyKind::Multipart, _) => name.to_owned(),
        (_, Ty::Vec(_)) => format!("{name}.as_slice()"),
        (_, Ty::String) => format!("{name}.as_str()"),
        (_, ty) if super::types::is_copy(ty) => name.to_owned(),
        _ => format!("&{name}"),
    }
}
