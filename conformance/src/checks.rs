//! Judging one answer: the generic checks every answer gets, the case's expectation, the
//! spec's semantic rules, and contract-file assertions. Each returns findings; the runner
//! attaches the case, the request and the answer to them.

use serde_json::Value;

use crate::case::{AssertKind, Assertion, Expect};
use crate::outcome::Verdict;
use crate::registry::{Check, CheckId};
use crate::schema::Validators;
use crate::spec::{Level, Operation, Rule, When};
use crate::transport::Response;
use crate::vars::{Vars, pointer};

/// One judged check before it is attached to its case.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The check it reports under.
    pub check: CheckId,
    /// Level of the expectation.
    pub level: Level,
    /// Verdict.
    pub verdict: Verdict,
    /// Why it failed or was skipped.
    pub message: String,
    /// What was expected.
    pub expected: String,
}

impl Finding {
    fn new(
        check: impl Into<CheckId>,
        level: Level,
        expected: impl Into<String>,
        outcome: Result<(), String>,
    ) -> Finding {
        let (verdict, message) = match outcome {
            Ok(()) => (Verdict::Passed, String::new()),
            Err(m) => (Verdict::Failed, m),
        };
        Finding {
            check: check.into(),
            level,
            verdict,
            message,
            expected: expected.into(),
        }
    }

    /// A check that could not be judged.
    pub fn skipped(
        check: impl Into<CheckId>,
        level: Level,
        expected: impl Into<String>,
        why: impl Into<String>,
    ) -> Finding {
        Finding {
            check: check.into(),
            level,
            verdict: Verdict::Skipped,
            message: why.into(),
            expected: expected.into(),
        }
    }
}

/// `Some("field = value")` when a 2xx body reports a business failure.
pub fn business_error(op: &Operation, resp: &Response) -> Option<String> {
    let body = resp.json.as_ref()?;
    op.business_error_fields()
        .into_iter()
        .find_map(|f| match body.get(&f) {
            Some(Value::String(s)) if !s.is_empty() => Some(format!("{f} = {s:?}")),
            _ => None,
        })
}

/// Whether the answer is a success in the operation's terms.
pub fn is_success(op: &Operation, resp: &Response) -> bool {
    (200..300).contains(&resp.status) && business_error(op, resp).is_none()
}

/// The checks every answer gets.
/// `never_5xx` is the level of the spec's `x-server-errors`, `None` when it states none.
pub fn generic(
    op: &Operation,
    validators: &Validators,
    resp: &Response,
    never_5xx: Option<Level>,
) -> Vec<Finding> {
    let mut out = vec![match never_5xx {
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
            Level::Should,
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
                Level::Should,
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

fn describe_answer(op: &Operation, resp: &Response) -> String {
    match business_error(op, resp) {
        Some(e) => format!("status {} with {e}", resp.status),
        None => format!("status {}", resp.status),
    }
}

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

fn non_empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(m)) => !m.is_empty(),
        Some(_) => true,
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Inputs the semantic rules compare answers with.
pub struct RuleInput<'a> {
    /// Parameter values sent.
    pub params: &'a serde_json::Map<String, Value>,
    /// JSON body sent.
    pub body: Option<&'a Value>,
    /// The previous state of each rule target, for `preserves-other-fields`.
    pub previous: Option<&'a Value>,
}

/// Applies the operation's `x-rules` that fit the expectation.
pub fn rules(op: &Operation, expect: &Expect, resp: &Response, input: &RuleInput) -> Vec<Finding> {
    let when = match expect {
        Expect::Success => When::Success,
        Expect::Status(s) if (200..300).contains(s) => When::Success,
        Expect::Observe if is_success(op, resp) => When::Success,
        _ => When::Failure,
    };
    let Some(body) = resp.json.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for rule in &op.rules {
        let (Some(rule_when), level) = (rule.when(), rule.level()) else {
            continue;
        };
        if rule_when != when {
            continue;
        }
        if !rule.statuses().is_empty() && !rule.statuses().contains(&resp.status) {
            continue;
        }
        if when == When::Failure && (is_success(op, resp) || !same_body_type(op, resp.status)) {
            // Failure rules describe failure answers: an accepted request is reported by
            // the case's own expectation, at its level, not again by these rules.
            // And a failure the spec answers with another body type (e.g. 415 with
            // ErrorResponse) is not the operation's own answer type.
            continue;
        }
        let Some(check) = Check::of_rule(rule) else {
            continue;
        };
        if when == When::Success && !(200..300).contains(&resp.status) {
            // The expectation already failed; judging a success rule on an error answer
            // says nothing. A 2xx that reports an error in its body is still judged: the
            // rules say what a success body must hold.
            continue;
        }
        out.push(judge_rule(rule, check, level, body, input));
    }
    out
}

/// Whether the declared body of `status` is the declared body of the success answer.
fn same_body_type(op: &Operation, status: u16) -> bool {
    let schema_of = |code: u16| {
        op.response(code)
            .and_then(|r| r.content.first())
            .and_then(|(_, s)| s.clone())
    };
    match (
        schema_of(status),
        op.responses.iter().find(|r| r.status.starts_with('2')),
    ) {
        (None, _) | (_, None) => true,
        (Some(here), Some(ok)) => ok.content.first().and_then(|(_, s)| s.as_ref()) == Some(&here),
    }
}

fn judge_rule(rule: &Rule, check: Check, level: Level, body: &Value, input: &RuleInput) -> Finding {
    let param = |name: &str| input.params.get(name);
    let items = body.as_array();
    let need_items = |expected: String| -> Result<&Vec<Value>, Finding> {
        match items {
            None => Err(Finding::new(
                check,
                level,
                expected,
                Err("the body is not an array".into()),
            )),
            Some(a) if a.is_empty() => Err(Finding::skipped(
                check,
                level,
                expected,
                "the answer has no items to check",
            )),
            Some(a) => Ok(a),
        }
    };
    match rule {
        Rule::FieldsEqual { fields, .. } => {
            let expected = format!("fields {}", Value::Object(fields.clone()));
            let bad = fields.iter().find(|(k, v)| body.get(k.as_str()) != Some(v));
            Finding::new(
                check,
                level,
                expected,
                match bad {
                    Some((k, v)) => Err(format!(
                        "{k} is {} instead of {v}",
                        body.get(k.as_str())
                            .map_or("absent".into(), Value::to_string)
                    )),
                    None => Ok(()),
                },
            )
        }
        Rule::FieldsNonEmpty { fields, .. } => {
            let bad = fields.iter().find(|f| !non_empty(body.get(f.as_str())));
            Finding::new(
                check,
                level,
                format!("non-empty {}", fields.join(", ")),
                match bad {
                    Some(f) => Err(format!("{f} is empty or missing")),
                    None => Ok(()),
                },
            )
        }
        Rule::FieldsAbsent { fields, .. } => {
            let bad = fields.iter().find(|f| non_empty(body.get(f.as_str())));
            Finding::new(
                check,
                level,
                format!("no {}", fields.join(", ")),
                match bad {
                    Some(f) => Err(format!("{f} is present")),
                    None => Ok(()),
                },
            )
        }
        Rule::FieldOneOf { field, values, .. } => {
            let expected = format!("{field} one of {}", Value::Array(values.clone()));
            let got = body.get(field.as_str());
            Finding::new(
                check,
                level,
                expected,
                match got {
                    Some(v) if values.contains(v) => Ok(()),
                    other => Err(format!(
                        "{field} is {}",
                        other.map_or("absent".into(), Value::to_string)
                    )),
                },
            )
        }
        Rule::EchoesRequest { target, fields, .. } => {
            let expected = format!("{target} carries the sent {}", fields.join(", "));
            let Some(sent) = input.body else {
                return Finding::skipped(check, level, expected, "no JSON body was sent");
            };
            let Some(obj) = body.get(target.as_str()) else {
                return Finding::new(check, level, expected, Err(format!("{target} is missing")));
            };
            let bad = fields.iter().find(|f| {
                sent.get(f.as_str()).is_some() && obj.get(f.as_str()) != sent.get(f.as_str())
            });
            Finding::new(
                check,
                level,
                expected,
                match bad {
                    Some(f) => Err(format!(
                        "{target}.{f} is {} but {} was sent",
                        obj.get(f.as_str())
                            .map_or("absent".into(), Value::to_string),
                        sent.get(f.as_str())
                            .map_or("nothing".into(), Value::to_string)
                    )),
                    None => Ok(()),
                },
            )
        }
        Rule::PreservesOtherFields { target, .. } => {
            let expected = format!("{target} keeps every field that was not sent");
            let Some(before) = input.previous else {
                return Finding::skipped(
                    check,
                    level,
                    expected,
                    format!("no earlier {target} seen in this run to compare with"),
                );
            };
            let Some(after) = body.get(target.as_str()) else {
                return Finding::new(check, level, expected, Err(format!("{target} is missing")));
            };
            let sent: Vec<&str> = input
                .body
                .and_then(Value::as_object)
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            Finding::new(check, level, expected, diff_except(before, after, &sent))
        }
        Rule::ItemsFieldEqualsParam {
            field, param: p, ..
        } => {
            let expected = format!("every item's {field} equals {p}");
            let want = param(p).map(text).unwrap_or_default();
            let items = match need_items(expected.clone()) {
                Ok(i) => i,
                Err(f) => return f,
            };
            let bad = items
                .iter()
                .find(|i| i.get(field.as_str()).map(text) != Some(want.clone()));
            Finding::new(
                check,
                level,
                format!("{expected} ({want})"),
                match bad {
                    Some(i) => Err(format!(
                        "an item has {field} = {}",
                        i.get(field.as_str())
                            .map_or("absent".into(), Value::to_string)
                    )),
                    None => Ok(()),
                },
            )
        }
        Rule::FieldEqualsParam {
            field, param: p, ..
        } => {
            let want = param(p).map(text).unwrap_or_default();
            let got = body.get(field.as_str()).map(text);
            Finding::new(
                check,
                level,
                format!("{field} equals {p} ({want})"),
                if got.as_deref() == Some(want.as_str()) {
                    Ok(())
                } else {
                    Err(format!(
                        "{field} is {}",
                        got.unwrap_or_else(|| "absent".into())
                    ))
                },
            )
        }
        Rule::ItemsFieldInParam {
            field, param: p, ..
        } => {
            let allowed: Vec<String> = match param(p) {
                Some(Value::Array(a)) => a.iter().map(text).collect(),
                Some(v) => text(v).split(',').map(String::from).collect(),
                None => Vec::new(),
            };
            let expected = format!("every item's {field} is one of {allowed:?}");
            let items = match need_items(expected.clone()) {
                Ok(i) => i,
                Err(f) => return f,
            };
            let bad = items.iter().find(|i| {
                !i.get(field.as_str())
                    .map(text)
                    .is_some_and(|v| allowed.contains(&v))
            });
            Finding::new(
                check,
                level,
                expected,
                match bad {
                    Some(i) => Err(format!(
                        "an item has {field} = {}",
                        i.get(field.as_str())
                            .map_or("absent".into(), Value::to_string)
                    )),
                    None => Ok(()),
                },
            )
        }
        Rule::ItemsUnique { field, .. } => {
            let expected = format!("no two items share {field}");
            let items = match need_items(expected.clone()) {
                Ok(i) => i,
                Err(f) => return f,
            };
            let mut seen = std::collections::BTreeSet::new();
            let dup = items
                .iter()
                .filter_map(|i| i.get(field.as_str()).map(text))
                .find(|v| !seen.insert(v.clone()));
            Finding::new(
                check,
                level,
                expected,
                match dup {
                    Some(v) => Err(format!("{field} {v:?} appears more than once")),
                    None => Ok(()),
                },
            )
        }
        Rule::MaxItemsParam { param: p, .. } => {
            let max = param(p).and_then(|v| text(v).parse::<i64>().ok());
            let expected = format!("at most {p} items");
            match (max, items) {
                (_, None) => Finding::new(
                    check,
                    level,
                    expected,
                    Err("the body is not an array".into()),
                ),
                (None, _) => {
                    Finding::skipped(check, level, expected, format!("{p} is not an integer"))
                }
                (Some(m), Some(a)) => Finding::new(
                    check,
                    level,
                    format!("at most {m} items"),
                    if (a.len() as i64) <= m.max(0) {
                        Ok(())
                    } else {
                        Err(format!("{} items", a.len()))
                    },
                ),
            }
        }
        Rule::ItemsContainParam {
            param: p,
            fields,
            case_insensitive,
            ..
        } => {
            let needle = param(p).map(text).unwrap_or_default();
            let expected = format!(
                "every item's {} contains {needle:?}{}",
                fields.join(" or "),
                if *case_insensitive {
                    " ignoring case"
                } else {
                    ""
                }
            );
            let items = match need_items(expected.clone()) {
                Ok(i) => i,
                Err(f) => return f,
            };
            let fold = |s: &str| {
                if *case_insensitive {
                    s.to_lowercase()
                } else {
                    s.to_string()
                }
            };
            let bad = items.iter().find(|i| {
                !fields.iter().any(|f| {
                    i.get(f.as_str())
                        .and_then(Value::as_str)
                        .is_some_and(|v| fold(v).contains(&fold(&needle)))
                })
            });
            Finding::new(
                check,
                level,
                expected,
                match bad {
                    Some(i) => Err(format!("item {} does not match", compact(i))),
                    None => Ok(()),
                },
            )
        }
        Rule::Unordered { .. } => Finding::new(check, level, "", Ok(())),
    }
}

fn compact(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 120 {
        format!("{}…", &s[..s.floor_char_boundary(120)])
    } else {
        s
    }
}

/// `Ok` when two objects agree on every field but the excepted ones.
fn diff_except(before: &Value, after: &Value, except: &[&str]) -> Result<(), String> {
    let (Some(b), Some(a)) = (before.as_object(), after.as_object()) else {
        return if before == after {
            Ok(())
        } else {
            Err("values differ".into())
        };
    };
    let keys: std::collections::BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    let changed: Vec<String> = keys
        .into_iter()
        .filter(|k| !except.contains(&k.as_str()))
        .filter(|k| {
            b.get(k.as_str()).filter(|v| !v.is_null()) != a.get(k.as_str()).filter(|v| !v.is_null())
        })
        .map(|k| {
            format!(
                "{k}: {} -> {}",
                b.get(k.as_str()).map_or("absent".into(), Value::to_string),
                a.get(k.as_str()).map_or("absent".into(), Value::to_string)
            )
        })
        .collect();
    if changed.is_empty() {
        Ok(())
    } else {
        Err(format!("changed {}", changed.join(", ")))
    }
}

/// Judges a contract-file assertion.
pub fn assertion(
    check: &CheckId,
    level: Level,
    a: &Assertion,
    body: Option<&Value>,
    vars: &Vars,
) -> Finding {
    let at = if a.pointer.is_empty() {
        "the body".to_string()
    } else {
        a.pointer.clone()
    };
    let Some(body) = body else {
        return Finding::new(
            check,
            level,
            format!("a JSON body at {at}"),
            Err("the body is not JSON".into()),
        );
    };
    let got = pointer(body, &a.pointer);
    let sub = |v: &Value| vars.substitute(v);
    match &a.kind {
        AssertKind::Equals(v) => match sub(v) {
            Err(name) => Finding::skipped(
                check,
                level,
                format!("{at} equals {v}"),
                format!("variable {name} is not bound"),
            ),
            Ok(want) => Finding::new(
                check,
                level,
                format!("{at} equals {}", compact(&want)),
                if got.as_ref() == Some(&want) {
                    Ok(())
                } else {
                    Err(format!(
                        "{at} is {}",
                        got.as_ref().map_or("absent".into(), compact)
                    ))
                },
            ),
        },
        AssertKind::NonEmpty => Finding::new(
            check,
            level,
            format!("{at} non-empty"),
            if non_empty(got.as_ref()) {
                Ok(())
            } else {
                Err(format!("{at} is empty or missing"))
            },
        ),
        AssertKind::Absent => Finding::new(
            check,
            level,
            format!("{at} absent"),
            if got.as_ref().is_none_or(Value::is_null) {
                Ok(())
            } else {
                Err(format!("{at} is present"))
            },
        ),
        AssertKind::SameExcept { value, except } => match sub(value) {
            Err(name) => Finding::skipped(
                check,
                level,
                format!("{at} unchanged"),
                format!("variable {name} is not bound"),
            ),
            Ok(want) => {
                let ex: Vec<&str> = except.iter().map(String::as_str).collect();
                Finding::new(
                    check,
                    level,
                    format!(
                        "{at} equal to the earlier value except {}",
                        except.join(", ")
                    ),
                    match &got {
                        None => Err(format!("{at} is absent")),
                        Some(g) => diff_except(&want, g, &ex),
                    },
                )
            }
        },
        AssertKind::Covers { field, values } => match sub(values) {
            Err(name) => Finding::skipped(
                check,
                level,
                format!("every requested {field} returned"),
                format!("variable {name} is not bound"),
            ),
            Ok(want) => {
                let want: Vec<String> = want
                    .as_array()
                    .map(|a| a.iter().map(text).collect())
                    .unwrap_or_else(|| vec![text(&want)]);
                let have: Vec<String> = got
                    .as_ref()
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|i| i.get(field.as_str()).map(text))
                            .collect()
                    })
                    .unwrap_or_default();
                let missing: Vec<&String> = want.iter().filter(|w| !have.contains(w)).collect();
                Finding::new(
                    check,
                    level,
                    format!("items with {field} {want:?}"),
                    if missing.is_empty() {
                        Ok(())
                    } else {
                        Err(format!("missing {field} {missing:?}"))
                    },
                )
            }
        },
        AssertKind::MaxItems(n) => {
            let len = got.as_ref().and_then(Value::as_array).map(Vec::len);
            Finding::new(
                check,
                level,
                format!("at most {n} items at {at}"),
                match len {
                    Some(l) if l <= *n => Ok(()),
                    Some(l) => Err(format!("{l} items")),
                    None => Err(format!("{at} is not an array")),
                },
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;
    use serde_json::json;
    use std::path::Path;
    use std::time::Duration;

    fn spec() -> Spec {
        Spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/openapi.yaml")).unwrap()
    }

    fn resp(status: u16, body: Value) -> Response {
        Response {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
            json: Some(body),
            elapsed: Duration::ZERO,
            retries: 0,
        }
    }

    fn params(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().unwrap().clone()
    }

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
    fn suggest_rules_bite_on_limit_and_matching() {
        let spec = spec();
        let op = spec.operation("suggestRiskCategories").unwrap();
        let p = params(json!({"t": "EQUIT", "l": 1}));
        let input = RuleInput {
            params: &p,
            body: None,
            previous: None,
        };
        let body = json!([{"name": "Equities"}, {"name": "Energy"}]);
        let found = rules(op, &Expect::Success, &resp(200, body), &input);
        let by = |c: &str| found.iter().find(|f| f.check == c).unwrap().verdict;
        assert_eq!(by("max_items_param"), Verdict::Failed);
        assert_eq!(
            by("items_contain_param"),
            Verdict::Failed,
            "Energy does not contain equit"
        );
        let found = rules(
            op,
            &Expect::Success,
            &resp(200, json!([{"name": "US equities"}])),
            &input,
        );
        assert!(
            found.iter().all(|f| f.verdict == Verdict::Passed),
            "{found:?}"
        );
        let empty = rules(op, &Expect::Success, &resp(200, json!([])), &input);
        assert_eq!(
            empty
                .iter()
                .find(|f| f.check == "items_contain_param")
                .unwrap()
                .verdict,
            Verdict::Skipped
        );
    }

    #[test]
    fn update_rules_compare_with_the_request_and_the_previous_record() {
        let spec = spec();
        let op = spec.operation("updateContactInfoName").unwrap();
        let sent = json!({"firstName": "Ada", "lastName": "King", "country": "GB", "phone": "1"});
        let before = json!({"userId": 1, "firstName": "A", "lastName": "B", "city": "London", "country": "GB", "phone": "0", "streetAddress1": "x"});
        let after = json!({"errorText": "", "contactInfo": {"userId": 1, "firstName": "Ada", "lastName": "King", "city": "Paris", "country": "GB", "phone": "1", "streetAddress1": "x"}});
        let p = serde_json::Map::new();
        let input = RuleInput {
            params: &p,
            body: Some(&sent),
            previous: Some(&before),
        };
        let found = rules(op, &Expect::Success, &resp(200, after), &input);
        let f = found
            .iter()
            .find(|f| f.check == "preserves_other_fields")
            .unwrap();
        assert_eq!(f.verdict, Verdict::Failed);
        assert!(f.message.contains("city"), "{}", f.message);
        assert_eq!(
            found
                .iter()
                .find(|f| f.check == "echoes_request")
                .unwrap()
                .verdict,
            Verdict::Passed
        );
    }

    #[test]
    fn failure_rules_apply_to_failures_of_the_operations_own_type_only() {
        let spec = spec();
        let op = spec.operation("exchangeToken").unwrap();
        let p = serde_json::Map::new();
        let input = RuleInput {
            params: &p,
            body: None,
            previous: None,
        };
        let rejected = Expect::Rejected {
            status: None,
            body: None,
        };
        let found = rules(
            op,
            &rejected,
            &resp(400, json!({"error": "", "access_token": "t"})),
            &input,
        );
        assert_eq!(
            found
                .iter()
                .filter(|f| f.verdict == Verdict::Failed)
                .count(),
            3,
            "{found:?}"
        );
        assert!(
            rules(
                op,
                &rejected,
                &resp(415, json!({"errorText": "no"})),
                &input
            )
            .is_empty()
        );
        assert!(
            rules(
                op,
                &rejected,
                &resp(200, json!({"error": "", "access_token": "t"})),
                &input
            )
            .is_empty()
        );
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
    fn generic_checks_flag_undeclared_status_wrong_type_and_bad_schema() {
        let spec = spec();
        let v = Validators::compile(&spec).unwrap();
        let op = spec.operation("getCategoryPositionLimit").unwrap();
        let mut r = resp(
            200,
            json!({"active": true, "totalBy": "Nope", "riskCategoryId": 1}),
        );
        let f = generic(op, &v, &r, Some(Level::Must));
        assert_eq!(
            f.iter()
                .find(|x| x.check == "response_schema_conformance")
                .unwrap()
                .verdict,
            Verdict::Failed
        );
        r.headers = vec![("content-type".into(), "text/plain".into())];
        assert_eq!(
            generic(op, &v, &r, Some(Level::Must))
                .iter()
                .find(|x| x.check == "content_type_conformance")
                .unwrap()
                .verdict,
            Verdict::Failed
        );
        let f = generic(op, &v, &resp(503, json!({})), Some(Level::Must));
        assert_eq!(f[0].verdict, Verdict::Failed);
        assert_eq!(f[1].verdict, Verdict::Failed, "503 is not declared");
    }
}
