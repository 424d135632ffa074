//! What reading a parameter from the wire takes from its schema, worked out once when
//! the spec is read: apart from `params` (which reads) and `operations` (which keeps it
//! on each parameter), so that neither imports the other back.

use serde_json::Value;

use crate::coerce::{items_of, types_of};

/// How a parameter's schema is shaped, as far as its encoding is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) enum Shape {
    #[default]
    Scalar,
    List,
    Object,
}

/// What reading a parameter's texts takes from its schema, worked out once when the spec
/// is read ([`reading`]) rather than through its `$ref`s on every request.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reading {
    pub shape: Shape,
    /// The types the schema takes ([`types_of`]).
    pub types: Vec<String>,
    /// The types its items take, where it has items.
    pub item_types: Vec<String>,
}

/// How a parameter of `schema` (in `doc`; `json_content`: described by `content`) is
/// read from the wire.
pub(crate) fn reading(doc: &Value, schema: Option<&Value>, json_content: bool) -> Reading {
    let types = |s: Option<&Value>| s.map(|s| types_of(doc, s)).unwrap_or_default();
    Reading {
        shape: shape(doc, schema, json_content),
        types: types(schema),
        item_types: types(schema.and_then(|s| items_of(doc, s))),
    }
}

fn shape(doc: &Value, schema: Option<&Value>, json_content: bool) -> Shape {
    if json_content {
        return Shape::Scalar;
    }
    let Some(schema) = schema else {
        return Shape::Scalar;
    };
    let types = types_of(doc, schema);
    let only = |t: &str| !types.is_empty() && types.iter().all(|x| x == t || x == "null");
    if only("array") {
        Shape::List
    } else if only("object") {
        Shape::Object
    } else {
        Shape::Scalar
    }
}
