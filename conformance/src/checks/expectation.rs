//! The case's own expectation: success, a status, a rejection with its shape, or a 405
//! with Allow; judged for derived inputs, routes and contract steps alike.

use super::{Answer, CheckOptions, Def, Finding, describe_answer, is_success, non_empty};
use serde_json::Value;

use crate::case::Expect;
use crate::registry::CheckId;
use crate::spec::{Level, Operation, RejectionShape};
use crate::transport::Response;

/// No rows of its own: it judges every answer against its case's `Expect`, under the
/// case's check (whose module owns the row).
pub(crate) const DEF: Def = Def {
    rows: &[],
    derive: None,
    lacks: super::lacks_nothing,
    judge: Some(judge),
    settings: &[],
};

fn judge(a: &Answer<'_>, _: &CheckOptions) -> Vec<Finding> {
    expectation(a.op, &a.case.check, a.case.level, &a.step.expect, a.resp)
        .into_iter()
        .collect()
}

/// Judges the case's expectation; `None` for `Observe`. The expectations one check
/// alone asks for are judged in its module (`Refused` in `ignored_auth`,
/// `MethodNotAllowed` in `undeclared_method`).
pub fn expectation(
    op: &Operation,
    check: &CheckId,
    level: Level,
    expect: &Expect,
    resp: &Response,
) -> Option<Finding> {
    let success = is_success(op, resp);
    Some(match expect {
        Expect::Observe => return None,
        Expect::Success if !success && let Some(f) = declared_meaning(op, check, level, resp) => f,
        Expect::Success => Finding::new(
            check,
            level,
            "a success (2xx, no error reported in the body)",
            if success {
                Ok(())
            } else {
                Err(format!("got {}", describe_answer(op, resp)))
            },
        ),
        Expect::Status(code) => Finding::new(
            check,
            level,
            format!("status {code}"),
            if resp.status == *code {
                Ok(())
            } else {
                Err(format!("got {}", describe_answer(op, resp)))
            },
        ),
        Expect::Rejected { status, body } => rejected(op, check, level, status, body, resp),
        Expect::Refused {
            status,
            body,
            observed,
        } => {
            return Some(super::ignored_auth::refused(
                op,
                check,
                level,
                *status,
                body.as_ref(),
                *observed,
                resp,
            ));
        }
        Expect::MethodNotAllowed {
            allowed,
            status,
            allow_header,
        } => super::undeclared_method::judge(check, level, allowed, *status, *allow_header, resp),
        Expect::BusinessRejected(shape) => business_rejected(op, check, level, shape, resp),
    })
}

/// Statuses whose declared answer, with a reason in its body, says the target refused a
/// valid request for a reason of its own (not signed in as it wants, not allowed, no such
/// record, a conflict with what it holds): evidence neither way about the request.
const REASONED_REFUSALS: &[u16] = &[401, 403, 404, 409];

/// A success expected and something else declared came: a redirect the operation
/// declares (by its exact code) is what the spec says it does, so it passes; a
/// 401/403/404/409 the operation declares (by its code, its range `4XX` or `default`:
/// a spec whose errors share one answer declares them that way) whose body gives a
/// reason is inconclusive, skipped with the status and the reason. `None` for any other
/// answer, which the caller fails.
fn declared_meaning(
    op: &Operation,
    check: &CheckId,
    level: Level,
    resp: &Response,
) -> Option<Finding> {
    let exact = resp.status.to_string();
    let expected = "a success (2xx, no error reported in the body)";
    if (300..400).contains(&resp.status) {
        if !op.responses.iter().any(|r| r.status == exact) {
            return None;
        }
        let mut f = Finding::new(check, level, expected, Ok(()));
        f.message = format!(
            "answered the declared redirect {}{}: what the spec says the operation does",
            resp.status,
            resp.header("location")
                .map(|l| format!(" to {l}"))
                .unwrap_or_default()
        );
        return Some(f);
    }
    if !REASONED_REFUSALS.contains(&resp.status) || op.response(resp.status).is_none() {
        return None;
    }
    let reason = reason(resp)?;
    Some(Finding::skipped(
        check,
        level,
        expected,
        format!(
            "inconclusive: answered the declared {} with a reason of its own ({reason}), not a verdict on the request",
            resp.status
        ),
    ))
}

/// The reason an error body gives: a non-empty `detail`, `message`, `error`, `title` or
/// `reason` text (at the top, or in an `error` object), or a short text body; cut to 200
/// characters.
fn reason(resp: &Response) -> Option<String> {
    const KEYS: &[&str] = &[
        "detail",
        "message",
        "error",
        "title",
        "reason",
        "error_description",
    ];
    let text = match &resp.json {
        Some(Value::Object(map)) => KEYS.iter().find_map(|k| match map.get(*k) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            Some(Value::Object(inner)) => KEYS.iter().find_map(|k| {
                inner
                    .get(*k)
                    .and_then(Value::as_str)
                    .filter(|s| !s.trim().is_empty())
                    .map(String::from)
            }),
            _ => None,
        }),
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(_) => None,
        None => Some(String::from_utf8_lossy(&resp.body).trim().to_string())
            .filter(|s| !s.is_empty() && !s.starts_with('<')),
    }?;
    Some(text.chars().take(200).collect())
}

/// A rejection, with the status and body fields the decisions fix: a success or a 5xx
/// fails at the case's level, another status or a missing field at its own.
fn rejected(
    op: &Operation,
    check: &CheckId,
    level: Level,
    status: &Option<(u16, Level)>,
    body: &Option<(Value, Level)>,
    resp: &Response,
) -> Finding {
    let success = is_success(op, resp);
    let mut expected = "a rejection (not a 2xx success)".to_string();
    if let Some((s, l)) = status {
        expected.push_str(&format!("; {} status {s}", l.as_str()));
    }
    if let Some((b, l)) = body {
        expected.push_str(&format!("; {} body {b}", l.as_str()));
    }
    if success {
        return Finding::new(
            check,
            level,
            expected,
            Err(format!("accepted: {}", describe_answer(op, resp))),
        );
    }
    // A rejection is a 4xx (or a 2xx the body marks as a business error): a 5xx
    // is the server failing on the input, not refusing it.
    if !(400..500).contains(&resp.status) && !(200..300).contains(&resp.status) {
        return Finding::new(
            check,
            level,
            expected,
            Err(if resp.status >= 500 {
                format!("server error {} instead of a rejection (4xx)", resp.status)
            } else {
                format!("status {} is not a rejection (4xx)", resp.status)
            }),
        );
    }
    // A declared 401/403 with a reason of its own (a 403 "disabled by configuration")
    // refuses before the input is read: no verdict on how the input is validated. (A 404
    // or 409 is an answer about the input, and judged as one.)
    if let Some((s, _)) = status
        && resp.status != *s
        && matches!(resp.status, 401 | 403)
        && op
            .responses
            .iter()
            .any(|r| r.status == resp.status.to_string())
        && let Some(reason) = reason(resp)
    {
        return Finding::skipped(
            check,
            level,
            expected,
            format!(
                "inconclusive: refused with the declared {} and a reason of its own ({reason}) before status {s} could be judged",
                resp.status
            ),
        );
    }
    if let Some((s, l)) = status
        && resp.status != *s
    {
        return Finding::new(
            check,
            *l,
            expected,
            Err(format!(
                "rejected with status {} instead of {s}",
                resp.status
            )),
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

/// A business rejection of the shape a rule names: its status, a non-empty field, an
/// absent one.
fn business_rejected(
    op: &Operation,
    check: &CheckId,
    level: Level,
    shape: &RejectionShape,
    resp: &Response,
) -> Finding {
    let success = is_success(op, resp);
    let mut expected = format!(
        "a rejection; {} status {}",
        shape.level.as_str(),
        shape.status
    );
    if let Some(f) = &shape.non_empty {
        expected.push_str(&format!(", non-empty {f}"));
    }
    if let Some(f) = &shape.absent {
        expected.push_str(&format!(", no {f}"));
    }
    if success {
        return Finding::new(
            check,
            level,
            expected,
            Err(format!("accepted: {}", describe_answer(op, resp))),
        );
    }
    let body = resp.json.as_ref();
    let problem = if resp.status != shape.status {
        Some(format!(
            "rejected with status {} instead of {}",
            resp.status, shape.status
        ))
    } else if let Some(f) = shape
        .non_empty
        .as_ref()
        .filter(|f| !non_empty(body.and_then(|b| b.get(f.as_str()))))
    {
        Some(format!("{f} is empty or missing"))
    } else {
        shape
            .absent
            .as_ref()
            .filter(|f| {
                body.and_then(|b| b.get(f.as_str()))
                    .is_some_and(|v| !v.is_null())
            })
            .map(|f| format!("{f} is present"))
    };
    match problem {
        Some(p) => Finding::new(check, shape.level, expected, Err(p)),
        None => Finding::new(check, level, expected, Ok(())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{resp, spec};
    use crate::outcome::Verdict;
    use crate::registry::Check;
    use serde_json::json;

    #[test]
    fn a_success_reporting_an_error_in_its_body_is_not_a_success() {
        let spec = spec();
        let op = spec.operation("updateContactInfoName").unwrap();
        let r = resp(200, json!({"errorText": "too long"}));
        let f = expectation(
            op,
            &Check::Contract.into(),
            Level::Must,
            &Expect::Success,
            &r,
        )
        .unwrap();
        assert_eq!(f.verdict, Verdict::Failed);
        assert!(f.message.contains("errorText"), "{}", f.message);
    }

    /// A foreign operation declaring a redirect, a 403 and a 404, and 422 for validation.
    fn declaring() -> crate::spec::Spec {
        crate::spec::Spec::parse(
            r#"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /login:
    get:
      operationId: login
      responses:
        "200": {description: ok}
        "307": {description: to the identity provider}
        "403": {description: disabled by configuration}
        "404": {description: no such thing}
        "422": {description: invalid}
"#,
        )
        .unwrap()
    }

    #[test]
    fn a_declared_redirect_passes_and_a_declared_refusal_with_a_reason_is_inconclusive() {
        let spec = declaring();
        let op = spec.operation("login").unwrap();
        let judge = |r: &Response, e: &Expect| {
            expectation(op, &Check::PositiveDataAcceptance.into(), Level::Must, e, r).unwrap()
        };
        let mut redirect = resp(307, Value::Null);
        redirect
            .headers
            .push(("location".into(), "https://idp.example/".into()));
        let f = judge(&redirect, &Expect::Success);
        assert_eq!(f.verdict, Verdict::Passed, "{}", f.message);
        assert!(
            f.message.contains("307 to https://idp.example/"),
            "{}",
            f.message
        );
        let f = judge(
            &resp(403, json!({"detail": "disabled by configuration"})),
            &Expect::Success,
        );
        assert_eq!(f.verdict, Verdict::Skipped);
        assert!(f.message.contains("403") && f.message.contains("disabled by configuration"));
        // No reason given, or a status the operation does not declare: a failure as before.
        assert_eq!(
            judge(&resp(403, json!({})), &Expect::Success).verdict,
            Verdict::Failed
        );
        assert_eq!(
            judge(&resp(409, json!({"detail": "exists"})), &Expect::Success).verdict,
            Verdict::Failed
        );
        assert_eq!(
            judge(&resp(308, Value::Null), &Expect::Success).verdict,
            Verdict::Failed
        );
        // A boundary case meets the same 403 before its 422 can be judged; a 404 is judged.
        let boundary = Expect::Rejected {
            status: Some((422, Level::Must)),
            body: None,
        };
        let f = judge(
            &resp(403, json!({"message": "disabled by configuration"})),
            &boundary,
        );
        assert_eq!(f.verdict, Verdict::Skipped, "{}", f.message);
        let f = judge(&resp(404, json!({"detail": "no such thing"})), &boundary);
        assert_eq!(f.verdict, Verdict::Failed, "{}", f.message);
    }

    #[test]
    fn a_refusal_declared_by_its_range_or_by_default_is_inconclusive_too() {
        let spec = crate::spec::Spec::parse(
            r#"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /things/{id}:
    get:
      operationId: by_range
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: ok}
        4XX: {description: client error}
    delete:
      operationId: by_default
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "204": {description: gone}
        default: {description: any error}
  /plain:
    get:
      operationId: none
      responses:
        "200": {description: ok}
        5XX: {description: server error}
"#,
        )
        .unwrap();
        let judge = |id: &str, r: &Response| {
            let op = spec.operation(id).unwrap();
            expectation(
                op,
                &Check::PositiveDataAcceptance.into(),
                Level::Must,
                &Expect::Success,
                r,
            )
            .unwrap()
        };
        let gone = resp(404, json!({"message": "not found: thing with id \"x\""}));
        for id in ["by_range", "by_default"] {
            let f = judge(id, &gone);
            assert_eq!(f.verdict, Verdict::Skipped, "{id}: {}", f.message);
        }
        // A range that does not hold it, or no reason in the body: failed as before.
        assert_eq!(judge("none", &gone).verdict, Verdict::Failed);
        assert_eq!(
            judge("by_range", &resp(404, json!({}))).verdict,
            Verdict::Failed
        );
        // A redirect still needs its exact code.
        assert_eq!(
            judge("by_default", &resp(307, Value::Null)).verdict,
            Verdict::Failed
        );
    }

    #[test]
    fn a_rejection_with_another_status_is_a_should_breach_only() {
        let spec = spec();
        let op = spec.operation("getCategoryPositionLimit").unwrap();
        let expect = Expect::Rejected {
            status: Some((404, Level::Should)),
            body: None,
        };
        let f = expectation(
            op,
            &Check::Contract.into(),
            Level::Must,
            &expect,
            &resp(400, json!({"errorText": "x"})),
        )
        .unwrap();
        assert_eq!((f.verdict, f.level), (Verdict::Failed, Level::Should));
        let f = expectation(
            op,
            &Check::Contract.into(),
            Level::Must,
            &expect,
            &resp(200, json!({"id": 1})),
        )
        .unwrap();
        assert_eq!((f.verdict, f.level), (Verdict::Failed, Level::Must));
        let f = expectation(
            op,
            &Check::Contract.into(),
            Level::Must,
            &expect,
            &resp(404, json!({"errorText": "x"})),
        )
        .unwrap();
        assert_eq!(f.verdict, Verdict::Passed);
    }

    #[test]
    fn a_rejection_is_a_4xx_never_a_5xx() {
        let spec = spec();
        let op = spec.operation("getCategoryPositionLimit").unwrap();
        let judge = |status: u16| {
            expectation(
                op,
                &Check::NegativeDataRejection.into(),
                Level::Must,
                &Expect::Rejected {
                    status: None,
                    body: None,
                },
                &resp(status, json!({"errorText": "x"})),
            )
            .unwrap()
        };
        for status in [400, 404, 422] {
            assert_eq!(judge(status).verdict, Verdict::Passed, "{status}");
        }
        for status in [500, 503, 302] {
            let f = judge(status);
            assert_eq!(
                (f.verdict, f.level),
                (Verdict::Failed, Level::Must),
                "{status}"
            );
        }
        assert!(judge(500).message.contains("server error 500"));
    }
}
