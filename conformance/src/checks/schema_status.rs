//! The checks every answer gets: not a server error, a declared status, a declared media
//! type and a body matching its schema (the schema/status family).

use super::Finding;
use crate::registry::Check;
use crate::schema::Validators;
use crate::spec::{Decisions, Level, Operation};
use crate::transport::Response;

/// The checks every answer gets, at the levels of the spec's root `decisions`
/// (`x-server-errors`, `x-undeclared-status`) and of the declared response.
pub fn generic(
    op: &Operation,
    validators: &Validators,
    resp: &Response,
    decisions: &Decisions,
) -> Vec<Finding> {
    let mut out = vec![match decisions.server_errors {
        Some(level) => Finding::new(
            Check::NotAServerError,
            level,
            "a status below 500",
            if resp.status >= 500 {
                Err(format!("server error {}", resp.status))
            } else {
                Ok(())
            },
        ),
        None => Finding::skipped(
            Check::NotAServerError,
            Level::Must,
            "a status below 500",
            "the spec states no `x-server-errors`",
        ),
    }];
    let declared: Vec<&str> = op.responses.iter().map(|r| r.status.as_str()).collect();
    let expected_status = format!("one of the declared statuses {}", declared.join(", "));
    let Some(decl) = op.response(resp.status) else {
        out.push(Finding::new(
            Check::StatusCodeConformance,
            decisions.undeclared_status,
            expected_status,
            Err(format!(
                "status {} is not declared for {}",
                resp.status, op.id
            )),
        ));
        for check in [
            Check::ContentTypeConformance,
            Check::ResponseSchemaConformance,
        ] {
            out.push(Finding::skipped(
                check,
                decisions.undeclared_status,
                "a declared response",
                "the status is not declared",
            ));
        }
        return out;
    };
    out.push(Finding::new(
        Check::StatusCodeConformance,
        decl.level,
        expected_status,
        Ok(()),
    ));
    if decl.content.is_empty() {
        return out;
    }
    let mimes: Vec<&str> = decl.content.iter().map(|(m, _)| m.as_str()).collect();
    let got = resp.media_type();
    let matching = got
        .as_deref()
        .and_then(|g| decl.content.iter().find(|(m, _)| m.eq_ignore_ascii_case(g)));
    out.push(Finding::new(
        Check::ContentTypeConformance,
        decl.level,
        format!("Content-Type {}", mimes.join(" or ")),
        match (&got, matching) {
            (_, Some(_)) => Ok(()),
            (Some(g), None) => Err(format!(
                "Content-Type {g} is not declared for status {}",
                resp.status
            )),
            (None, None) => Err("no Content-Type header".into()),
        },
    ));
    let (mime, _) = matching.unwrap_or(&decl.content[0]);
    let expected = format!(
        "a body matching the {} schema of status {}",
        mime, decl.status
    );
    let outcome = match &resp.json {
        None => Err("the body is not JSON".to_string()),
        Some(body) => match validators.validate(&op.id, &decl.status, mime, body) {
            Some(r) => r,
            None => {
                out.push(Finding::skipped(
                    Check::ResponseSchemaConformance,
                    decl.level,
                    expected,
                    "no schema declared",
                ));
                return out;
            }
        },
    };
    out.push(Finding::new(
        Check::ResponseSchemaConformance,
        decl.level,
        expected,
        outcome,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{resp, spec};
    use crate::outcome::Verdict;
    use serde_json::json;

    #[test]
    fn generic_checks_flag_undeclared_status_wrong_type_and_bad_schema() {
        let spec = spec();
        let v = Validators::compile(&spec).unwrap();
        let op = spec.operation("getCategoryPositionLimit").unwrap();
        let mut r = resp(
            200,
            json!({"active": true, "totalBy": "Nope", "riskCategoryId": 1}),
        );
        let f = generic(op, &v, &r, &spec.decisions);
        assert_eq!(
            f.iter()
                .find(|x| x.check == "response_schema_conformance")
                .unwrap()
                .verdict,
            Verdict::Failed
        );
        r.headers = vec![("content-type".into(), "text/plain".into())];
        assert_eq!(
            generic(op, &v, &r, &spec.decisions)
                .iter()
                .find(|x| x.check == "content_type_conformance")
                .unwrap()
                .verdict,
            Verdict::Failed
        );
        let f = generic(op, &v, &resp(503, json!({})), &spec.decisions);
        assert_eq!(f[0].verdict, Verdict::Failed);
        assert_eq!(f[1].verdict, Verdict::Failed, "503 is not declared");
    }

    #[test]
    fn an_undeclared_status_is_judged_at_the_spec_s_level() {
        let mut spec = spec();
        let v = Validators::compile(&spec).unwrap();
        let op = spec.operation("getCategoryPositionLimit").unwrap().clone();
        let level = |spec: &crate::spec::Spec| {
            let f = generic(&op, &v, &resp(418, json!({})), &spec.decisions);
            assert_eq!(f[1].check, Check::StatusCodeConformance);
            assert_eq!(f[1].verdict, Verdict::Failed);
            f[1].level
        };
        assert_eq!(level(&spec), Level::Should, "x-undeclared-status: should");
        spec.decisions.undeclared_status = Level::Must;
        assert_eq!(level(&spec), Level::Must);
    }
}
