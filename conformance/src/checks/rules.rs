//! The spec's semantic `x-rules`: which rules apply to an answer (when, statuses, body
//! type) and how each kind is judged against the request and the previous state.

use serde_json::Value;

use super::{Finding, compact, is_success, non_empty, text};
use crate::case::Expect;
use crate::registry::Check;
use crate::spec::{Level, Operation, Rule, When};
use crate::transport::Response;

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

/// `Ok` when two objects agree on every field but the excepted ones.
pub(super) fn diff_except(before: &Value, after: &Value, except: &[&str]) -> Result<(), String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::test_support::{params, resp, spec};
    use crate::outcome::Verdict;
    use serde_json::json;

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
}
