//! `unknown_path`: a path the spec does not declare is rejected with the declared status.

use super::Def;
use crate::case::{AuthMode, Case, Expect, RequestTemplate, Step};
use crate::plan::builder::{Base, Builder, request};
use crate::registry::{Check, Family, row};
use crate::spec::{Level, Operation, Spec};

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::UnknownPath,
        "unknown_path",
        Family::Transport,
        Level::Should,
        "a path the spec does not declare is rejected with the declared status",
        "spec x-unknown-path (404 at SHOULD when absent)",
    )],
    derive: Some(derive),
    lacks: super::lacks_nothing,
    judge: None,
    settings: &[],
};

fn derive(b: &mut Builder<'_>) {
    if b.first {
        let (spec, op, base) = (b.spec, b.op, b.base);
        unknown_path(b, spec, op, base);
    }
}

/// The answer to a path no spec declares, when the spec states none (`x-unknown-path`):
/// 404 (RFC 9110 §15.5.5) at SHOULD. Not MUST: OpenAPI describes only the paths it lists,
/// and a server may answer others (a gateway's 403, a catch-all page) without breaking the
/// spec; a 5xx still fails `not_a_server_error`.
pub const UNKNOWN_PATH_DEFAULT: (u16, Level) = (404, Level::Should);

/// Whether a concrete path is one a spec path template routes (`{name}` matches any one
/// segment).
fn routes(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.trim_matches('/').split('/').collect();
    let p: Vec<&str> = path.trim_matches('/').split('/').collect();
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| (t.starts_with('{') && t.ends_with('}')) || t == p)
}

/// A path the spec does not declare, expecting the spec's `x-unknown-path` answer
/// ([`UNKNOWN_PATH_DEFAULT`] without it). Sent once per run, with valid credentials, and
/// reported under the first operation; it shows whether a target answers paths it does not
/// serve. It sits beside the first operation's literal path segments, and never where a
/// declared template (`/items/{id}`) would route it, so its answer is about the path.
fn unknown_path(b: &mut Builder<'_>, spec: &Spec, op: &Operation, base: &Base) {
    let (status, level) = spec.decisions.unknown_path.unwrap_or(UNKNOWN_PATH_DEFAULT);
    let literal: Vec<&str> = op
        .path
        .split('/')
        .take_while(|seg| !seg.contains('{'))
        .collect();
    let beside = format!(
        "{}/conformance-unknown-path",
        literal.join("/").trim_end_matches('/')
    );
    let free = |p: &str| {
        !spec
            .operations
            .iter()
            .any(|o| o.path == p || routes(&o.path, p))
    };
    let Some(path) = [beside, "/conformance-unknown-path".to_string()]
        .into_iter()
        .flat_map(|p| (0..4).map(move |n| format!("{p}{}", "-".repeat(n))))
        .find(|p| free(p))
    else {
        return;
    };
    let request = RequestTemplate {
        method: Some("GET".into()),
        path: Some(path),
        ..request(op, base.params.clone(), None, AuthMode::Token)
    };
    b.cases.push(Case {
        id: format!("{}/unknown-path", op.id),
        operation: op.id.clone(),
        check: Check::UnknownPath.into(),
        level,
        steps: vec![Step {
            request,
            expect: Expect::Rejected {
                status: Some((status, level)),
                body: None,
            },
            capture: Vec::new(),
            asserts: Vec::new(),
        }],
        serial: false,
        skip: None,
        requires: Vec::new(),
        cap: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::spec;
    use crate::contracts::Contracts;
    use crate::plan::{PlanOptions, derive};

    #[test]
    fn one_unknown_path_case_targets_a_path_the_spec_does_not_declare() {
        let spec = spec();
        let cases = derive(
            &spec,
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: None,
                max_examples: 0,
                made_up: false,
            },
        );
        let unknown: Vec<_> = cases
            .iter()
            .filter(|c| c.check == Check::UnknownPath)
            .collect();
        assert_eq!(unknown.len(), 1);
        let path = unknown[0].steps[0].request.path.as_deref().unwrap();
        assert!(spec.operations.iter().all(|o| o.path != path));
        assert!(matches!(
            unknown[0].steps[0].expect,
            Expect::Rejected {
                status: Some((404, Level::Should)),
                ..
            }
        ));
    }
}
