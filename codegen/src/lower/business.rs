//! `x-business-error`: where a `2xx` answer's body says "rejected".
//!
//! Some APIs answer a refused request with a success status and a message in the body.
//! The spec names those message fields; the client turns such an answer into an error
//! instead of handing it back as a success the caller must remember to inspect. Only
//! string fields of the one documented JSON success body can say it, so anything else is
//! a warning and the check is left out (the client stays correct, just less helpful).

use super::Lowerer;
use crate::error::push_pointer;
use crate::ir::{BusinessField, Payload, ResponseDef, StatusMatch, Ty, TypeDef};
use crate::warning::WarningKind;
use spec_model::model as spec;

impl Lowerer<'_> {
    /// The fields of `x-business-error` resolved against the operation's success body.
    pub(super) fn business_fields(
        &mut self,
        op: &spec::Operation,
        ptr: &str,
        responses: &[ResponseDef],
    ) -> Vec<BusinessField> {
        let Some(declared) = &op.business_error else {
            return Vec::new();
        };
        let at = push_pointer(ptr, "x-business-error");
        let successes: Vec<&ResponseDef> =
            responses.iter().filter(|r| r.status.is_success()).collect();
        let fields_of = match successes.as_slice() {
            [one] if matches!(one.status, StatusMatch::Code(_)) => match &one.payload {
                Payload::Json(Ty::Named(name)) => self.types.iter().find_map(|t| match t {
                    TypeDef::Struct(s) if &s.name == name => Some(s.fields.clone()),
                    _ => None,
                }),
                _ => None,
            },
            _ => None,
        };
        let Some(fields) = fields_of else {
            self.warn(
                WarningKind::BusinessError,
                at,
                "ignored: the client checks business errors only on an operation with one \
                 documented success answer (one status, not a class) whose body is a JSON object schema",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, wire) in declared.fields.iter().enumerate() {
            let here = format!("{}/{i}", push_pointer(&at, "fields"));
            match fields.iter().find(|f| &f.wire == wire) {
                Some(f) if f.ty == Ty::String => out.push(BusinessField {
                    name: f.name.clone(),
                    wire: f.wire.clone(),
                    optional: f.optional(),
                    explicit_null: f.explicit_null(),
                }),
                Some(_) => self.warn(
                    WarningKind::BusinessError,
                    here,
                    format!("`{wire}` is not a string field of the success body; not checked"),
                ),
                None => self.warn(
                    WarningKind::BusinessError,
                    here,
                    format!("the success body has no field `{wire}`; not checked"),
                ),
            }
        }
        out
    }
}
