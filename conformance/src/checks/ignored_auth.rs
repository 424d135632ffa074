//! `ignored_auth`: a secured operation refuses requests without valid credentials.

use serde_json::Value;

use super::{Def, Finding, RunFacts, describe_answer};
use crate::case::{AuthMode, Case, Expect};
use crate::plan::builder::{Base, Builder, request};
use crate::registry::{Check, CheckId, Family, row};
use crate::spec::{Level, Location, Operation, Spec};
use crate::transport::Response;

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[row(
        Check::IgnoredAuth,
        "ignored_auth",
        Family::Inputs,
        Level::Must,
        "a secured operation refuses a missing, malformed or unknown bearer token: 401, 403 or the target's observed refusal (a 404 or 5xx is no evidence)",
        "spec x-rejection of the security scheme; status and body at x-rejection-response",
    )],
    derive: Some(derive),
    lacks,
    judge: None,
    settings: &[],
};

fn lacks(_: Check, facts: &RunFacts<'_>) -> Option<String> {
    facts.unless_any(
        |o| o.secured,
        "no operation declares a security requirement",
    )
}

fn derive(b: &mut Builder<'_>) {
    let (spec, op, base, observed) = (b.spec, b.op, b.base, b.opts.auth_refusal);
    ignored_auth(b, spec, op, base, observed);
}

fn example_params(op: &Operation) -> Vec<(String, Value)> {
    op.params
        .iter()
        .filter_map(|p| p.example.clone().map(|v| (p.name.clone(), v)))
        .collect()
}

/// Requests without valid credentials to a secured operation: each must be refused, and a
/// pass needs a refusal the status shows (see `Expect::Refused`). `observed` is the status
/// the target refused a deliberately bad token with in pre-flight.
fn ignored_auth(
    b: &mut Builder<'_>,
    spec: &Spec,
    op: &Operation,
    base: &Base,
    observed: Option<u16>,
) {
    if !op.secured {
        return;
    }
    let rej = &spec.auth_rejection;
    let expect = Expect::Refused {
        status: rej.status,
        body: rej
            .body
            .clone()
            .map(|v| (v, rej.status.map_or(Level::Should, |(_, l)| l))),
        observed,
    };
    // The spec's examples; a path value only the base has (a contract default, or one the
    // target's answers gave) rather than none: without it the request would go to a
    // literal `{placeholder}` and its 404 would show nothing about credentials.
    let mut params = example_params(op);
    for (name, value) in &base.params {
        let in_path = op.param(name).is_some_and(|p| p.location == Location::Path);
        if in_path && !params.iter().any(|(n, _)| n == name) {
            params.push((name.clone(), value.clone()));
        }
    }
    let body = op
        .body
        .as_ref()
        .and_then(|d| d.example.clone())
        .or_else(|| base.body.clone());
    for (name, mode) in [
        ("no-header", AuthMode::Missing),
        ("malformed-header", AuthMode::Malformed),
        ("unknown-token", AuthMode::Unknown),
    ] {
        b.push(
            format!("ignored-auth/{name}"),
            Check::IgnoredAuth,
            rej.level,
            request(op, params.clone(), body.clone(), mode),
            expect.clone(),
        );
    }
}

/// Judges the answer to a request sent without valid credentials. A pass needs evidence: a
/// 401 or 403, or the status the target refused a deliberately bad token with in
/// pre-flight. A success is a failure; where the spec fixes the refusal's status, any other
/// status is a breach at that status's level; otherwise an answer that shows nothing about
/// credentials (a 404 for a path the target cannot route, a 400 or 422 for the input, a
/// 5xx that `not_a_server_error` reports) is skipped with the reason, never a pass.
pub(super) fn refused(
    op: &Operation,
    check: &CheckId,
    level: Level,
    status: Option<(u16, Level)>,
    body: Option<&(serde_json::Value, Level)>,
    observed: Option<u16>,
    resp: &Response,
) -> Finding {
    let mut refusals = vec![401, 403];
    refusals.extend(observed.filter(|o| !refusals.contains(o)));
    let named: Vec<String> = refusals.iter().map(u16::to_string).collect();
    let mut expected = format!("a refusal (status {})", named.join(" or "));
    if let Some((s, l)) = status {
        expected = format!("a refusal; {} status {s}", l.as_str());
    }
    if let Some((b, l)) = body {
        expected.push_str(&format!("; {} body {b}", l.as_str()));
    }
    if (200..300).contains(&resp.status) {
        return Finding::new(
            check,
            level,
            expected,
            Err(format!(
                "accepted without valid credentials: {}",
                describe_answer(op, resp)
            )),
        );
    }
    if resp.status >= 500 {
        return Finding::skipped(
            check,
            level,
            expected,
            format!(
                "no evidence: server error {} shows nothing about the credentials (not_a_server_error reports it)",
                resp.status
            ),
        );
    }
    let refusal = refusals.contains(&resp.status);
    if let Some((s, l)) = status
        && resp.status != s
    {
        return Finding::new(
            check,
            l,
            expected,
            Err(format!("status {} instead of the refusal {s}", resp.status)),
        );
    }
    if status.is_none() && !refusal {
        return Finding::skipped(
            check,
            level,
            expected,
            format!(
                "no evidence: status {} is not a refusal of credentials (401, 403 or the target's observed refusal)",
                resp.status
            ),
        );
    }
    if let Some((b, l)) = body {
        let missing = b
            .as_object()
            .into_iter()
            .flatten()
            .find(|(k, v)| resp.json.as_ref().and_then(|j| j.get(k.as_str())) != Some(v));
        if let Some((k, v)) = missing {
            return Finding::new(
                check,
                *l,
                expected,
                Err(format!("body field {k} is not {v}")),
            );
        }
    }
    Finding::new(check, level, expected, Ok(()))
}

/// The id of the case `derive` gives `operation` for a token the target never issued;
/// pre-flight sends it beside its canary.
pub(crate) fn unknown_token_case(operation: &str) -> String {
    format!("{operation}/ignored-auth/unknown-token")
}

/// The canary with a made-up token, when the plan has no such case of its own; its
/// answer is the target's refusal, which pre-flight compares with the canary's.
pub(crate) fn unknown_token_twin(canary: &Case) -> Case {
    let mut twin = canary.clone();
    twin.id = format!("{}/pre-flight/unknown-token", canary.operation);
    twin.check = Check::IgnoredAuth.into();
    for s in &mut twin.steps {
        s.request.auth = AuthMode::Unknown;
        s.expect = Expect::Rejected {
            status: None,
            body: None,
        };
        s.asserts.clear();
        s.capture.clear();
    }
    twin
}

#[cfg(test)]
mod tests {
    use super::super::expectation::expectation;
    use super::*;
    use crate::checks::test_support::{resp, spec};
    use crate::contracts::Contracts;
    use crate::outcome::Verdict;
    use crate::plan::{PlanOptions, derive};
    use serde_json::json;

    #[test]
    fn a_refusal_needs_evidence() {
        let spec = spec();
        let op = spec.operation("getCategoryPositionLimit").unwrap();
        let judge = |expect: &Expect, status: u16| {
            expectation(
                op,
                &Check::IgnoredAuth.into(),
                Level::Must,
                expect,
                &resp(status, json!({"detail": "no"})),
            )
            .unwrap()
        };
        let open = Expect::Refused {
            status: None,
            body: None,
            observed: Some(422),
        };
        for status in [401, 403, 422] {
            assert_eq!(judge(&open, status).verdict, Verdict::Passed, "{status}");
        }
        for status in [404, 400, 500, 302] {
            let f = judge(&open, status);
            assert_eq!(f.verdict, Verdict::Skipped, "{status}");
            assert!(f.message.starts_with("no evidence"), "{}", f.message);
        }
        let f = judge(&open, 200);
        assert_eq!((f.verdict, f.level), (Verdict::Failed, Level::Must));
        let without_observed = Expect::Refused {
            status: None,
            body: None,
            observed: None,
        };
        assert_eq!(judge(&without_observed, 422).verdict, Verdict::Skipped);
        // Where the spec fixes the refusal, another status is a breach at its level; a
        // 5xx is still no evidence (not_a_server_error reports it).
        let fixed = Expect::Refused {
            status: Some((401, Level::Should)),
            body: None,
            observed: None,
        };
        assert_eq!(judge(&fixed, 401).verdict, Verdict::Passed);
        let f = judge(&fixed, 404);
        assert_eq!((f.verdict, f.level), (Verdict::Failed, Level::Should));
        assert_eq!(judge(&fixed, 500).verdict, Verdict::Skipped);
    }

    #[test]
    fn ignored_auth_counts_the_observed_refusal() {
        let spec = Spec::parse(
            r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "security": [{"bearer": []}],
                "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
                "paths": {"/me": {"get": {"operationId": "me",
                    "responses": {"200": {"description": "ok"}}}}}}"#,
        )
        .unwrap();
        let cases = derive(
            &spec,
            &Contracts::default(),
            PlanOptions {
                seed: 1,
                auth_refusal: Some(422),
                max_examples: 0,
                made_up: false,
            },
        );
        let auth: Vec<&Case> = cases
            .iter()
            .filter(|c| c.check == Check::IgnoredAuth)
            .collect();
        assert_eq!(auth.len(), 3);
        assert!(auth.iter().all(|c| matches!(
            c.steps[0].expect,
            Expect::Refused {
                observed: Some(422),
                status: None,
                ..
            }
        )));
    }
}
