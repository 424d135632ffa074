//! What the server takes from the spec instead of code: the body of a `401` and the
//! request-body limit, read once through `spec_model` from the spec built into the binary.
//!
//! The spec is the project's truth (`spec/README.md`); a server that hard-coded these
//! would drift from it silently. A unit test keeps the built-in spec readable.

use std::sync::OnceLock;

use spec_model::Source;
use spec_model::model::OpenApi;

/// The spec this server implements, built in.
const SPEC: &str = include_str!("../../../spec/openapi.yaml");

/// The answers the spec fixes for requests no handler serves normally.
#[derive(Debug)]
pub(crate) struct Contract {
    /// Status of the answer to a request without valid credentials.
    pub(crate) unauthorized_status: u16,
    /// `errorText` of that answer to a request without valid credentials
    /// (`x-rejection-response` of the security scheme).
    pub(crate) unauthorized_text: String,
    /// The largest request body accepted, in bytes (`x-max-body`).
    pub(crate) max_body: usize,
}

/// The contract, read on first use.
pub(crate) fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| read(SPEC).unwrap_or_else(|e| panic!("the built-in spec: {e}")))
}

fn read(text: &str) -> Result<Contract, String> {
    let source = Source {
        name: "spec/openapi.yaml (built in)".into(),
        text: text.into(),
    };
    let spec: OpenApi = spec_model::parse(&source).map_err(|e| e.to_string())?;
    let rejection = spec
        .components
        .security_schemes
        .values()
        .find_map(|s| s.rejection_response.as_ref())
        .ok_or("no x-rejection-response")?;
    let unauthorized_text = rejection
        .body
        .as_ref()
        .and_then(|b| b.get("errorText")?.as_str().map(str::to_owned))
        .ok_or("x-rejection-response has no body with an errorText")?;
    let max_body = spec
        .max_body
        .as_ref()
        .and_then(|b| usize::try_from(b.bytes).ok())
        .ok_or("no x-max-body")?;
    Ok(Contract {
        unauthorized_status: rejection.status,
        unauthorized_text,
        max_body,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_built_in_spec_gives_the_contract() {
        let c = super::read(super::SPEC).expect("readable");
        assert_eq!(c.unauthorized_status, 401);
        assert_eq!(c.unauthorized_text, "Access is denied");
        assert_eq!(c.max_body, 64 * 1024);
    }
}
