//! The case's own expectation: success, a status, a rejection with its shape, or a 405
//! with Allow; judged for derived inputs, routes and contract steps alike.

use super::{Finding, describe_answer, is_success, non_empty};
use crate::case::Expect;
use crate::registry::CheckId;
use crate::spec::{Level, Operation};
use crate::transport::Response;

/// Judges the case's expectation; `None` for `Observe`.
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
        Expect::Rejected { status, body } => {
            let mut expected = "a rejection (not a 2xx success)".to_string();
            if let Some((s, l)) = status {
                expected.push_str(&format!("; {} status {s}", l.as_str()));
            }
            if let Some((b, l)) = body {
                expected.push_str(&format!("; {} body {b}", l.as_str()));
            }
            if success {
                return Some(Finding::new(
                    check,
                    level,
                    expected,
                    Err(format!("accepted: {}", describe_answer(op, resp))),
                ));
            }
            // A rejection is a 4xx (or a 2xx the body marks as a business error): a 5xx
            // is the server failing on the input, not refusing it.
            if !(400..500).contains(&resp.status) && !(200..300).contains(&resp.status) {
                return Some(Finding::new(
                    check,
                    level,
                    expected,
                    Err(if resp.status >= 500 {
                        format!("server error {} instead of a rejection (4xx)", resp.status)
                    } else {
                        format!("status {} is not a rejection (4xx)", resp.status)
                    }),
                ));
            }
            if let Some((s, l)) = status
                && resp.status != *s
            {
                return Some(Finding::new(
                    check,
                    *l,
                    expected,
                    Err(format!(
                        "rejected with status {} instead of {s}",
                        resp.status
                    )),
                ));
            }
            if let Some((b, l)) = body {
                let missing =
                    b.as_object().into_iter().flatten().find(|(k, v)| {
                        resp.json.as_ref().and_then(|j| j.get(k.as_str())) != Some(v)
                    });
                if let Some((k, v)) = missing {
                    return Some(Finding::new(
                        check,
                        *l,
                        expected,
                        Err(format!("body field {k} is not {v}")),
                    ));
                }
            }
            Finding::new(check, level, expected, Ok(()))
        }
        Expect::Refused {
            status,
            body,
            observed,
        } => {
            return Some(refused(
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
        } => {
            let status = *status;
            let expected = if *allow_header {
                format!("a rejection; status {status} with Allow naming {allowed}")
            } else {
                format!("a rejection; status {status}")
            };
            if (200..300).contains(&resp.status) {
                return Some(Finding::new(
                    check,
                    level,
                    expected,
                    Err(format!("accepted with status {}", resp.status)),
                ));
            }
            let allow = resp.header("allow").unwrap_or("");
            let names = allow
                .split(',')
                .any(|m| m.trim().eq_ignore_ascii_case(allowed));
            let outcome = if resp.status != status {
                Err(format!("status {} instead of {status}", resp.status))
            } else if *allow_header && !names {
                Err(format!("Allow header {allow:?} does not name {allowed}"))
            } else {
                Ok(())
            };
            Finding::new(check, level, expected, outcome)
        }
        Expect::BusinessRejected(shape) => {
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
                return Some(Finding::new(
                    check,
                    level,
                    expected,
                    Err(format!("accepted: {}", describe_answer(op, resp))),
                ));
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
    })
}

/// Judges the answer to a request sent without valid credentials. A pass needs evidence: a
/// 401 or 403, or the status the target refused a deliberately bad token with in
/// pre-flight. A success is a failure; where the spec fixes the refusal's status, any other
/// status is a breach at that status's level; otherwise an answer that shows nothing about
/// credentials (a 404 for a path the target cannot route, a 400 or 422 for the input, a
/// 5xx that `not_a_server_error` reports) is skipped with the reason, never a pass.
fn refused(
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
    fn an_undeclared_method_wants_405_with_allow() {
        let spec = spec();
        let op = spec.operation("suggestRiskCategories").unwrap();
        let expect = Expect::MethodNotAllowed {
            allowed: "GET".into(),
            status: 405,
            allow_header: true,
        };
        let mut r = resp(405, json!({"errorText": "no"}));
        let judge = |r: &Response| {
            expectation(
                op,
                &Check::UndeclaredMethod.into(),
                Level::Should,
                &expect,
                r,
            )
            .unwrap()
        };
        assert!(judge(&r).message.contains("Allow"), "no Allow header");
        r.headers.push(("allow".into(), "GET, HEAD".into()));
        assert_eq!(judge(&r).verdict, Verdict::Passed);
        r.status = 404;
        assert_eq!(judge(&r).verdict, Verdict::Failed);
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
}
