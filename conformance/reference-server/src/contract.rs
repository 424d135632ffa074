//! What the server takes from the spec instead of code: the `401` answer, the body limit and
//! the answers to unknown paths and undeclared methods, read once through `spec_model`.
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
    /// Status of the answer to a path the spec does not declare (`x-unknown-path`).
    pub(crate) unknown_path_status: u16,
    /// Status of the answer to a method a declared path does not take
    /// (`x-undeclared-method`).
    pub(crate) undeclared_method_status: u16,
    /// Whether that answer carries `Allow` naming the methods the path takes.
    pub(crate) undeclared_method_allow: bool,
    /// The operations with an `x-penalty`: their path (without the server's `/v1`) and
    /// the answer's shape, for the penalty switch.
    pub(crate) penalties: Vec<(String, spec_model::extensions::Penalty)>,
}

/// The answer to a request without a good token: the spec's `x-rejection-response`, as
/// a problem the house layer writes in the spec's error shape.
pub(crate) fn unauthorized() -> trading_api::server::Problem {
    let contract = contract();
    trading_api::server::Problem::new(
        axum::http::StatusCode::from_u16(contract.unauthorized_status)
            .unwrap_or(axum::http::StatusCode::UNAUTHORIZED),
        contract.unauthorized_text.clone(),
    )
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
    let unknown_path = spec.unknown_path.as_ref().ok_or("no x-unknown-path")?;
    let undeclared_method = spec
        .undeclared_method
        .as_ref()
        .ok_or("no x-undeclared-method")?;
    let penalties = spec
        .paths
        .iter()
        .flat_map(|(path, item)| {
            item.operations()
                .into_iter()
                .filter_map(|(_, op)| op.penalty.clone().map(|p| (path.clone(), p)))
        })
        .collect();
    Ok(Contract {
        penalties,
        unauthorized_status: rejection.status,
        unauthorized_text,
        max_body,
        unknown_path_status: unknown_path.status,
        undeclared_method_status: undeclared_method.status,
        undeclared_method_allow: undeclared_method.allow_header,
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
        assert_eq!(c.penalties.len(), 1);
        assert_eq!(c.penalties[0].0, "/auth/oauthtoken");
        assert_eq!(c.penalties[0].1.ticket, "p-ticket");
        assert_eq!(c.unknown_path_status, 404);
        assert_eq!(
            (c.undeclared_method_status, c.undeclared_method_allow),
            (405, true)
        );
    }

    #[test]
    fn the_route_answers_follow_the_spec_not_the_code() {
        let text = super::SPEC
            .replace(
                "x-unknown-path:\n  status: 404",
                "x-unknown-path:\n  status: 400",
            )
            .replace(
                "x-undeclared-method:\n  status: 405\n  allow-header: true",
                "x-undeclared-method:\n  status: 400\n  allow-header: false",
            );
        let c = super::read(&text).expect("readable");
        assert_eq!(c.unknown_path_status, 400);
        assert_eq!(
            (c.undeclared_method_status, c.undeclared_method_allow),
            (400, false)
        );
    }
}
