//! Authorization codes a step fetches fresh: the variables a case names them by, and
//! whether a step needs one. The step that sends, the record that masks the code and the
//! scheduler that hands out a single code all ask here.

use serde_json::Value;

use crate::case::RequestTemplate;
use crate::vars::references;

/// Variable that asks for a fresh authorization code.
pub const CODE_VAR: &str = "oauth.code";
/// Variable holding the last code a step of the case used (to try it twice).
pub const LAST_CODE_VAR: &str = "oauth.last_code";

/// Whether a step's request names [`CODE_VAR`], in its body or its parameters.
pub fn needs_code(tpl: &RequestTemplate) -> bool {
    let mut refs = Vec::new();
    match &tpl.body {
        Some(
            crate::case::BodyTemplate::Json(v)
            | crate::case::BodyTemplate::Encoded { value: v, .. },
        ) => references(v, &mut refs),
        Some(crate::case::BodyTemplate::Raw { text, .. }) => {
            references(&Value::String(text.clone()), &mut refs)
        }
        None => {}
    }
    for (_, v) in &tpl.params {
        references(v, &mut refs);
    }
    refs.iter().any(|r| r == CODE_VAR)
}
