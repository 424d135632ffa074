//! Calls of a generated client's methods whose arguments are read from JSON text, for
//! code that drives a client from values made elsewhere: a schema's value generator, a
//! recorded exchange. The usage example writes literals a reader can follow; this writes
//! whatever value it is given, in the form each argument takes (see `types::argument`,
//! `client::body_type` and `requests`), so that one generic driver reaches every
//! operation of a crate without knowing its signatures.
//!
//! The code binds each argument as `let aN: T = value(TEXT);` (a text or byte body as the
//! string the JSON holds, or the JSON text of another value) and then passes it, so the
//! caller defines `fn value<T: serde::de::DeserializeOwned>(json: &str) -> T` beside it
//! (request models deserialize with the crate's `deserialize-requests` feature), with
//! `serde_json` among its dependencies.

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
/// order; `None` leaves an optional argument out. A body with no JSON form (a
/// `multipart/form-data` one, whose form type is built part by part) is left out where
/// it is optional; where it is required, the method of another media type the operation
/// takes is called (`other_bodies`, spec order). `None` comes back when a required
/// argument has no value, or no method has a body it can give.
pub fn call(
    op: &Operation,
    lib: &str,
    json: &mut dyn FnMut(Slot<'_>) -> Option<String>,
) -> Option<Call> {
    let methods = std::iter::once((&op.name, op.body.as_ref())).chain(
        op.other_bodies
            .iter()
            .map(|(name, body)| (name, Some(body))),
    );
    for (method, body) in methods {
        if let Some(call) = method_call(op, method, body, lib, json) {
            return Some(call);
        }
    }
    None
}

/// [`call`] of one method of `op`: `method`, taking `body`.
fn method_call(
    op: &Operation,
    method: &str,
    body: Option<&Body>,
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
        .chain(body.map(Slot::Body));
    for (index, slot) in slots.enumerate() {
        let name = format!("a{index}");
        let formless = matches!(slot, Slot::Body(b) if b.kind == BodyKind::Multipart);
        let Some(text) = json(slot).filter(|_| !formless) else {
            if slot.required() {
                return None;
            }
            if !builder {
                positional.push("None".to_owned());
            }
            continue;
        };
        bindings.push(match slot {
            Slot::Param(p) => format!(
                "let {name}: {} = value({text:?});",
                owned_text(&p.ty, &models)
            ),
            Slot::Body(b) => body_binding(&name, b, &text, &models),
        });
        let passed = match slot {
            Slot::Param(p) => param_form(&name, &p.ty),
            Slot::Body(b) => body_form(&name, b),
        };
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
    let mut expression = format!("client.{method}({})", positional.join(", "));
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

/// The binding of a body: its model for JSON and forms; for text and bytes (which a
/// `reqwest::Body` is made from) a string, the JSON string's own text or any other
/// value's JSON text (a `text/plain` body whose schema is a number). Never called for a
/// multipart form, which [`method_call`] leaves out.
fn body_binding(name: &str, b: &Body, text: &str, models: &str) -> String {
    match b.kind {
        BodyKind::Text | BodyKind::Binary | BodyKind::Multipart => format!(
            "let {name}: String = match value::<serde_json::Value>({text:?}) {{ \
             serde_json::Value::String(text) => text, other => other.to_string() }};"
        ),
        BodyKind::Json | BodyKind::Form => {
            format!(
                "let {name}: {} = value({text:?});",
                owned_text(&b.ty, models)
            )
        }
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
