//! `multipart/form-data` bodies: the properties of the body's object schema become the
//! parts of a form struct.
//!
//! OpenAPI's default encoding of each property decides its part: a primitive (or a list
//! of them) is text, `format: binary` is a file (its bytes, with a file name and content
//! type the caller may give), and anything else is a JSON part. A list sends one part per
//! item under the same name. The struct is the method's argument, so a caller fills in
//! named fields instead of assembling a `reqwest` form by hand.

use super::Lowerer;
use super::operation::Problem;
use crate::error::push_pointer;
use crate::ir::{Form, FormPart, FormPartKind, Ty};
use crate::names::{Scope, pascal, snake};
use spec_model::model::{Schema, SchemaType};

impl Lowerer<'_> {
    /// The form of a multipart body with schema `schema` (at `ptr`), or why it cannot be
    /// one (a schema with no properties: nothing says what the parts are).
    pub(super) fn form(
        &mut self,
        schema: Option<&Schema>,
        ptr: &str,
        prefix: &str,
    ) -> Result<Result<Form, String>, Problem> {
        let Some(schema) = schema else {
            return Ok(Err("no schema names its parts".to_owned()));
        };
        let (object, at) = match &schema.reference {
            Some(r) => self.resolve(r, ptr)?,
            None => (schema, ptr.to_owned()),
        };
        if object.properties.is_empty() {
            return Ok(Err(
                "its schema has no `properties` to send as parts".to_owned()
            ));
        }
        let mut fields = Scope::default();
        let mut parts = Vec::new();
        for (wire, property) in &object.properties {
            let p_ptr = push_pointer(&push_pointer(&at, "properties"), wire);
            let hint = format!("{prefix}{}", pascal(wire));
            let (list, item, item_ptr) = match (&property.items, is_type(property, "array")) {
                (Some(items), true) => (true, items.as_ref(), push_pointer(&p_ptr, "items")),
                _ => (false, property, p_ptr.clone()),
            };
            let kind = if is_binary(item) {
                FormPartKind::File
            } else {
                let (ty, _nullable) = self.ty(item, &item_ptr, &hint)?;
                let structured = matches!(ty, Ty::Json | Ty::Map(_) | Ty::Vec(_) | Ty::Tuple(_))
                    || matches!(&ty, Ty::Named(n) if self.is_struct_or_union(n));
                if structured {
                    FormPartKind::Json(ty)
                } else {
                    FormPartKind::Text(ty)
                }
            };
            let doc = property
                .description()
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map_or_else(|| format!("The `{wire}` part."), str::to_owned);
            parts.push(FormPart {
                name: fields.claim(snake(wire)),
                wire: wire.clone(),
                doc,
                kind,
                list,
                required: object.required.contains(wire),
            });
        }
        let name = self.type_names.claim(format!("{prefix}Form"));
        Ok(Ok(Form { name, parts }))
    }

    /// Whether the model `name` is a struct or a union (sent as JSON, not as text).
    fn is_struct_or_union(&self, name: &str) -> bool {
        self.types.iter().any(|t| {
            matches!(t, crate::ir::TypeDef::Struct(s) if s.name == name)
                || matches!(t, crate::ir::TypeDef::Union(u) if u.name == name && !u.scalar)
        })
    }
}

/// Whether a schema's `type` is (or includes) `name`.
fn is_type(s: &Schema, name: &str) -> bool {
    match &s.kind {
        Some(SchemaType::One(t)) => t == name,
        Some(SchemaType::Many(ts)) => ts.iter().any(|t| t == name),
        None => false,
    }
}

/// `type: string, format: binary`: a file.
fn is_binary(s: &Schema) -> bool {
    is_type(s, "string") && s.format.as_deref() == Some("binary")
}
