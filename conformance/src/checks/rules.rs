//! The spec's semantic `x-rules`: which rules apply to an answer (when, statuses, body
//! type) and how each kind is judged against the request and the previous state.

use serde_json::Value;

use super::{Answer, CheckOptions, Def, Finding, RunFacts, compact, is_success, non_empty, text};
use crate::case::Expect;
use crate::registry::{Check, Family, row};
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

/// Judges one rule: a short dispatch to the kind's own method of [`Judge`], so each kind
/// reads (and changes) on its own, next to the others of its family.
fn judge_rule(rule: &Rule, check: Check, level: Level, body: &Value, input: &RuleInput) -> Finding {
    let judge = Judge {
        check,
        level,
        body,
        input,
    };
    match rule {
        Rule::FieldsEqual { fields, .. } => judge.fields_equal(fields),
        Rule::FieldsNonEmpty { fields, .. } => judge.fields_non_empty(fields),
        Rule::FieldsAbsent { fields, .. } => judge.fields_absent(fields),
        Rule::FieldOneOf { field, values, .. } => judge.field_one_of(field, values),
        Rule::EchoesRequest { target, fields, .. } => judge.echoes_request(target, fields),
        Rule::PreservesOtherFields { target, .. } => judge.preserves_other_fields(target),
        Rule::FieldEqualsParam { field, param, .. } => judge.field_equals_param(field, param),
        Rule::ItemsFieldEqualsParam { field, param, .. } => {
            judge.items_field_equals_param(field, param)
        }
        Rule::ItemsFieldInParam { field, param, .. } => judge.items_field_in_param(field, param),
        Rule::ItemsUnique { field, .. } => judge.items_unique(field),
        Rule::MaxItemsParam { param, .. } => judge.max_items_param(param),
        Rule::ItemsContainParam {
            param,
            fields,
            case_insensitive,
            ..
        } => judge.items_contain_param(param, fields, *case_insensitive),
        Rule::Unordered { .. } => judge.verdict("", Ok(())),
    }
}

/// A value as a message names it: `absent` when the answer lacks it.
fn shown(v: Option<&Value>) -> String {
    v.map_or("absent".into(), Value::to_string)
}

/// One rule being judged on one answer: the check it reports under, at which level, the
/// answer's body and what the request sent. Every kind of rule is a method, so the
/// findings of all kinds are made the same way (see [`Judge::verdict`]).
struct Judge<'a> {
    check: Check,
    level: Level,
    body: &'a Value,
    input: &'a RuleInput<'a>,
}

impl<'a> Judge<'a> {
    /// The finding: passed on `Ok`, failed with the message on `Err`.
    fn verdict(&self, expected: impl Into<String>, outcome: Result<(), String>) -> Finding {
        Finding::new(self.check, self.level, expected, outcome)
    }

    /// A finding that could not be judged on this answer, with why.
    fn skip(&self, expected: impl Into<String>, why: impl Into<String>) -> Finding {
        Finding::skipped(self.check, self.level, expected, why)
    }

    /// The value sent for a parameter.
    fn param(&self, name: &str) -> Option<&'a Value> {
        self.input.params.get(name)
    }

    /// The answer's items, for the rules about every item: a body that is not an array
    /// fails, and an empty one is a skip (a rule about every item says nothing of none).
    fn items(&self, expected: String) -> Result<&'a Vec<Value>, Finding> {
        match self.body.as_array() {
            None => Err(self.verdict(expected, Err("the body is not an array".into()))),
            Some(a) if a.is_empty() => Err(self.skip(expected, "the answer has no items to check")),
            Some(a) => Ok(a),
        }
    }

    // Fields of the answer's body.

    /// `fields-equal`: each named field holds its fixed value.
    fn fields_equal(&self, fields: &serde_json::Map<String, Value>) -> Finding {
        let expected = format!("fields {}", Value::Object(fields.clone()));
        let bad = fields
            .iter()
            .find(|(k, v)| self.body.get(k.as_str()) != Some(v));
        self.verdict(
            expected,
            match bad {
                Some((k, v)) => Err(format!(
                    "{k} is {} instead of {v}",
                    shown(self.body.get(k.as_str()))
                )),
                None => Ok(()),
            },
        )
    }

    /// `fields-non-empty`: each named field is present and not empty.
    fn fields_non_empty(&self, fields: &[String]) -> Finding {
        let bad = fields
            .iter()
            .find(|f| !non_empty(self.body.get(f.as_str())));
        self.verdict(
            format!("non-empty {}", fields.join(", ")),
            match bad {
                Some(f) => Err(format!("{f} is empty or missing")),
                None => Ok(()),
            },
        )
    }

    /// `fields-absent`: each named field is absent or empty.
    fn fields_absent(&self, fields: &[String]) -> Finding {
        let bad = fields.iter().find(|f| non_empty(self.body.get(f.as_str())));
        self.verdict(
            format!("no {}", fields.join(", ")),
            match bad {
                Some(f) => Err(format!("{f} is present")),
                None => Ok(()),
            },
        )
    }

    /// `field-one-of`: the field's value is one of the list.
    fn field_one_of(&self, field: &str, values: &[Value]) -> Finding {
        let expected = format!("{field} one of {}", Value::Array(values.to_vec()));
        self.verdict(
            expected,
            match self.body.get(field) {
                Some(v) if values.contains(v) => Ok(()),
                other => Err(format!("{field} is {}", shown(other))),
            },
        )
    }

    // The answer against the request, and against the state before it.

    /// `echoes-request`: the object at `target` carries what the request body sent of
    /// `fields` (a field the request did not send is not judged).
    fn echoes_request(&self, target: &str, fields: &[String]) -> Finding {
        let expected = format!("{target} carries the sent {}", fields.join(", "));
        let Some(sent) = self.input.body else {
            return self.skip(expected, "no JSON body was sent");
        };
        let Some(obj) = self.body.get(target) else {
            return self.verdict(expected, Err(format!("{target} is missing")));
        };
        let bad = fields.iter().find(|f| {
            sent.get(f.as_str()).is_some() && obj.get(f.as_str()) != sent.get(f.as_str())
        });
        self.verdict(
            expected,
            match bad {
                Some(f) => Err(format!(
                    "{target}.{f} is {} but {} was sent",
                    shown(obj.get(f.as_str())),
                    sent.get(f.as_str())
                        .map_or("nothing".into(), Value::to_string)
                )),
                None => Ok(()),
            },
        )
    }

    /// `preserves-other-fields`: the object at `target` differs from the one seen before
    /// the request only in the fields the request sent.
    fn preserves_other_fields(&self, target: &str) -> Finding {
        let expected = format!("{target} keeps every field that was not sent");
        let Some(before) = self.input.previous else {
            return self.skip(
                expected,
                format!("no earlier {target} seen in this run to compare with"),
            );
        };
        let Some(after) = self.body.get(target) else {
            return self.verdict(expected, Err(format!("{target} is missing")));
        };
        let sent: Vec<&str> = self
            .input
            .body
            .and_then(Value::as_object)
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        self.verdict(expected, diff_except(before, after, &sent))
    }

    /// `field-equals-param`: the answer's field equals the value sent for the parameter.
    fn field_equals_param(&self, field: &str, p: &str) -> Finding {
        let want = self.param(p).map(text).unwrap_or_default();
        let got = self.body.get(field).map(text);
        self.verdict(
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

    // The items of an array answer.

    /// `items-field-equals-param`: every item's field equals the parameter's value.
    fn items_field_equals_param(&self, field: &str, p: &str) -> Finding {
        let expected = format!("every item's {field} equals {p}");
        let want = self.param(p).map(text).unwrap_or_default();
        let items = match self.items(expected.clone()) {
            Ok(i) => i,
            Err(f) => return f,
        };
        let bad = items
            .iter()
            .find(|i| i.get(field).map(text) != Some(want.clone()));
        self.verdict(
            format!("{expected} ({want})"),
            match bad {
                Some(i) => Err(format!("an item has {field} = {}", shown(i.get(field)))),
                None => Ok(()),
            },
        )
    }

    /// `items-field-in-param`: every item's field is one of the list parameter's values
    /// (an array, or a comma-separated string).
    fn items_field_in_param(&self, field: &str, p: &str) -> Finding {
        let allowed: Vec<String> = match self.param(p) {
            Some(Value::Array(a)) => a.iter().map(text).collect(),
            Some(v) => text(v).split(',').map(String::from).collect(),
            None => Vec::new(),
        };
        let expected = format!("every item's {field} is one of {allowed:?}");
        let items = match self.items(expected.clone()) {
            Ok(i) => i,
            Err(f) => return f,
        };
        let bad = items
            .iter()
            .find(|i| !i.get(field).map(text).is_some_and(|v| allowed.contains(&v)));
        self.verdict(
            expected,
            match bad {
                Some(i) => Err(format!("an item has {field} = {}", shown(i.get(field)))),
                None => Ok(()),
            },
        )
    }

    /// `items-unique`: no two items share the field's value.
    fn items_unique(&self, field: &str) -> Finding {
        let expected = format!("no two items share {field}");
        let items = match self.items(expected.clone()) {
            Ok(i) => i,
            Err(f) => return f,
        };
        let mut seen = std::collections::BTreeSet::new();
        let dup = items
            .iter()
            .filter_map(|i| i.get(field).map(text))
            .find(|v| !seen.insert(v.clone()));
        self.verdict(
            expected,
            match dup {
                Some(v) => Err(format!("{field} {v:?} appears more than once")),
                None => Ok(()),
            },
        )
    }

    /// `max-items-param`: at most as many items as the parameter says (an empty answer
    /// is judged too: it holds the limit).
    fn max_items_param(&self, p: &str) -> Finding {
        let max = self.param(p).and_then(|v| text(v).parse::<i64>().ok());
        let expected = format!("at most {p} items");
        match (max, self.body.as_array()) {
            (_, None) => self.verdict(expected, Err("the body is not an array".into())),
            (None, _) => self.skip(expected, format!("{p} is not an integer")),
            (Some(m), Some(a)) => self.verdict(
                format!("at most {m} items"),
                if (a.len() as i64) <= m.max(0) {
                    Ok(())
                } else {
                    Err(format!("{} items", a.len()))
                },
            ),
        }
    }

    /// `items-contain-param`: every item has one of `fields` containing the parameter's
    /// value, ignoring case when the rule says so.
    fn items_contain_param(&self, p: &str, fields: &[String], case_insensitive: bool) -> Finding {
        let needle = self.param(p).map(text).unwrap_or_default();
        let expected = format!(
            "every item's {} contains {needle:?}{}",
            fields.join(" or "),
            if case_insensitive {
                " ignoring case"
            } else {
                ""
            }
        );
        let items = match self.items(expected.clone()) {
            Ok(i) => i,
            Err(f) => return f,
        };
        let fold = |s: &str| {
            if case_insensitive {
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
        self.verdict(
            expected,
            match bad {
                Some(i) => Err(format!("item {} does not match", compact(i))),
                None => Ok(()),
            },
        )
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

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[
        row(
            Check::FieldsEqual,
            "fields_equal",
            Family::Rules,
            Level::Must,
            "x-rules fields-equal: body fields hold the stated values",
            "spec rule level",
        ),
        row(
            Check::FieldsNonEmpty,
            "fields_non_empty",
            Family::Rules,
            Level::Must,
            "x-rules fields-non-empty: body fields are present and non-empty",
            "spec rule level",
        ),
        row(
            Check::FieldsAbsent,
            "fields_absent",
            Family::Rules,
            Level::Must,
            "x-rules fields-absent: body fields are absent or null",
            "spec rule level",
        ),
        row(
            Check::FieldOneOf,
            "field_one_of",
            Family::Rules,
            Level::Must,
            "x-rules field-one-of: a body field holds one of the stated values",
            "spec rule level",
        ),
        row(
            Check::EchoesRequest,
            "echoes_request",
            Family::Rules,
            Level::Must,
            "x-rules echoes-request: the answer holds the fields the request set",
            "spec rule level",
        ),
        row(
            Check::PreservesOtherFields,
            "preserves_other_fields",
            Family::Rules,
            Level::Must,
            "x-rules preserves-other-fields: an update leaves the fields it did not set",
            "spec rule level",
        ),
        row(
            Check::ItemsFieldEqualsParam,
            "items_field_equals_param",
            Family::Rules,
            Level::Must,
            "x-rules items-field-equals-param: every item's field equals a parameter",
            "spec rule level",
        ),
        row(
            Check::FieldEqualsParam,
            "field_equals_param",
            Family::Rules,
            Level::Must,
            "x-rules field-equals-param: a body field equals a parameter",
            "spec rule level",
        ),
        row(
            Check::ItemsFieldInParam,
            "items_field_in_param",
            Family::Rules,
            Level::Must,
            "x-rules items-field-in-param: every item's field is one of a list parameter's values",
            "spec rule level",
        ),
        row(
            Check::ItemsUnique,
            "items_unique",
            Family::Rules,
            Level::Must,
            "x-rules items-unique: no two items share a field's value",
            "spec rule level",
        ),
        row(
            Check::MaxItemsParam,
            "max_items_param",
            Family::Rules,
            Level::Must,
            "x-rules max-items-param: at most a parameter's number of items",
            "spec rule level",
        ),
        row(
            Check::ItemsContainParam,
            "items_contain_param",
            Family::Rules,
            Level::Must,
            "x-rules items-contain-param: every item's field contains a parameter's text",
            "spec rule level",
        ),
    ],
    derive: None,
    lacks,
    judge: Some(judge),
    settings: &[],
};

/// The operation's `x-rules` on an answer to its own method (the spec declares no answer
/// for another), with what the request sent and, for `preserves-other-fields`, the
/// target's state an earlier success left; a success leaves its own for the next.
fn judge(a: &Answer<'_>, _: &CheckOptions) -> Vec<Finding> {
    if a.step.request.method.is_some() {
        return Vec::new();
    }
    let target = a.op.rules.iter().find_map(|r| match r {
        Rule::PreservesOtherFields { target, .. } => Some(target.as_str()),
        _ => None,
    });
    let previous = a
        .seen
        .lock()
        .map(|s| s.get(&a.op.id).cloned())
        .unwrap_or(None);
    let findings = rules(
        a.op,
        &a.step.expect,
        a.resp,
        &RuleInput {
            params: &a.sent.params,
            body: a.sent.body.as_ref(),
            previous: previous.as_ref(),
        },
    );
    if is_success(a.op, a.resp)
        && let Some(target) = target
        && let Some(now) = a.resp.json.as_ref().and_then(|j| j.get(target))
        && let Ok(mut seen) = a.seen.lock()
    {
        seen.insert(a.op.id.clone(), now.clone());
    }
    findings
}

fn lacks(rule: Check, facts: &RunFacts<'_>) -> Option<String> {
    let kind = rule.name().replace('_', "-");
    facts.unless_any(
        |o| o.rules.iter().any(|r| Check::of_rule(r) == Some(rule)),
        &format!("no operation states an x-rules {kind} rule"),
    )
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
