//! Coverage: how much of the spec the run reached, read from what was sent and answered.
//! Per operation: requests sent, whether any answer was a 2xx, the declared statuses seen
//! and never seen, the statuses seen but never declared, and which of its parameters and
//! top-level body fields some request carried. A gate on it (`--min-coverage`) fails a
//! run that judged too little of the API to mean anything: a run that never got past the
//! target's 404s or 422s is not a pass.
//!
//! Reach is measured against what the run could have sent: an operation whose path
//! values no example, no answer and no schema can give (the dependency graph's `never`,
//! with its reason), or that the run's permissions refuse even on a record of its own (a
//! bulk delete without `--allow-destructive`), is counted apart, so "requested 180 of the
//! 183 operations whose inputs something can give and the permissions allow" says how
//! much of the reachable API the run reached.
//!
//! Only the requests an operation's own cases sent to its own method and path count: the
//! generic probes (an unknown path, an undeclared method) reach no operation. Parameters
//! count wherever they go (path, query, a header, a cookie), and top-level body fields.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::exchange::Exchange;
use crate::outcome::{CheckResult, Verdict};
use crate::registry::Check;
use crate::spec::{Level, Location, Spec};

/// What the spec declares of each operation the run selected, taken once at the start so
/// that every report written while the run goes on can measure against it.
#[derive(Debug, Clone, Default)]
pub struct Declared(BTreeMap<String, Declaration>);

#[derive(Debug, Clone)]
struct Declaration {
    method: String,
    /// The path template split in segments; `None` for a `{parameter}` segment.
    segments: Vec<Option<String>>,
    path: String,
    /// Response keys as the spec writes them: `200`, `4XX`, `default`.
    statuses: Vec<String>,
    /// Parameters, with where they go.
    params: Vec<(String, Location)>,
    /// Top-level properties of the request body.
    fields: Vec<String>,
    /// Why no example, answer or schema can give its path values, where none can.
    unreachable: Option<String>,
    /// Why the run's permissions refuse it, where they do whatever it addresses.
    withheld: Option<String>,
}

impl Declared {
    /// The declarations of the operations `keep` selects.
    pub fn of(spec: &Spec, keep: impl Fn(&str) -> bool) -> Declared {
        Declared(
            spec.operations
                .iter()
                .filter(|o| keep(&o.id))
                .map(|o| {
                    let d = Declaration {
                        method: o.method.to_ascii_uppercase(),
                        segments: o
                            .path
                            .split('/')
                            .map(|s| {
                                (!(s.starts_with('{') && s.ends_with('}'))).then(|| s.to_string())
                            })
                            .collect(),
                        path: o.path.clone(),
                        statuses: o.responses.iter().map(|r| r.status.clone()).collect(),
                        params: o
                            .params
                            .iter()
                            .map(|p| (p.name.clone(), p.location))
                            .collect(),
                        fields: o
                            .body
                            .as_ref()
                            .map(|b| b.properties().into_iter().map(|(n, _)| n).collect())
                            .unwrap_or_default(),
                        unreachable: None,
                        withheld: None,
                    };
                    (o.id.clone(), d)
                })
                .collect(),
        )
    }
}

impl Declared {
    /// Marks the operations the dependency graph cannot reach, each with why.
    pub fn mark_unreachable(&mut self, unreachable: Vec<(String, String)>) {
        for (op, why) in unreachable {
            if let Some(d) = self.0.get_mut(&op) {
                d.unreachable = Some(why);
            }
        }
    }

    /// Marks the operations the run's permissions refuse, each with why.
    pub fn mark_withheld(&mut self, withheld: Vec<(String, String)>) {
        for (op, why) in withheld {
            if let Some(d) = self.0.get_mut(&op) {
                d.withheld = Some(why);
            }
        }
    }
}

impl Declaration {
    /// Whether a request went to this operation's own method and path (not a probe).
    fn owns(&self, method: &str, path: &str) -> bool {
        let path = path.split('?').next().unwrap_or(path);
        let concrete: Vec<&str> = path.split('/').collect();
        method.eq_ignore_ascii_case(&self.method)
            && concrete.len() == self.segments.len()
            && self
                .segments
                .iter()
                .zip(&concrete)
                .all(|(want, got)| match want {
                    Some(w) => w == got,
                    None => !got.is_empty(),
                })
    }

    /// The response key that `status` answers under: exact, then class (`4XX`), then
    /// `default`.
    fn key_for(&self, status: u16) -> Option<&str> {
        let exact = status.to_string();
        let class = format!("{}XX", status / 100);
        self.statuses
            .iter()
            .find(|k| **k == exact)
            .or_else(|| {
                self.statuses
                    .iter()
                    .find(|k| k.eq_ignore_ascii_case(&class))
            })
            .or_else(|| self.statuses.iter().find(|k| *k == "default"))
            .map(String::as_str)
    }
}

/// One operation's coverage.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OperationCoverage {
    /// The operation.
    pub operation: String,
    /// Its method.
    pub method: String,
    /// Its path template.
    pub path: String,
    /// Requests sent to it that got an answer or a transport error.
    pub requests: usize,
    /// Whether some answer was a 2xx.
    pub reached_2xx: bool,
    /// Declared response keys some answer matched.
    pub declared_seen: Vec<String>,
    /// Declared response keys no answer matched.
    pub declared_unseen: Vec<String>,
    /// Statuses answered that the operation does not declare.
    pub undeclared_seen: Vec<u16>,
    /// Parameters some request carried.
    pub params_exercised: Vec<String>,
    /// Parameters no request carried.
    pub params_unexercised: Vec<String>,
    /// Top-level body fields some request carried.
    pub fields_exercised: Vec<String>,
    /// Top-level body fields no request carried.
    pub fields_unexercised: Vec<String>,
    /// Why no example, answer or schema can give its path values, where none can (the
    /// dependency graph's reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
    /// Why the run's permissions refuse it whatever it addresses (`--allow-destructive`
    /// would send it), where they do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld: Option<String>,
}

/// The run's coverage: the totals, then every selected operation.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Coverage {
    /// Operations selected.
    pub operations: usize,
    /// Operations that got at least one request.
    pub requested: usize,
    /// Operations with a 2xx answer.
    pub reached_2xx: usize,
    /// Operations whose path values an example, an answer or the schema can give, and
    /// that the run's permissions allow.
    #[serde(default)]
    pub reachable: usize,
    /// Of those, the ones that got at least one request.
    #[serde(default)]
    pub requested_reachable: usize,
    /// Response keys the selected operations declare.
    pub declared_statuses: usize,
    /// Of those, the ones some answer matched.
    pub declared_seen: usize,
    /// Per operation, in the order of their ids.
    pub per_operation: Vec<OperationCoverage>,
}

impl OperationCoverage {
    /// Whether something can give its inputs and the run's permissions allow it.
    pub fn within_reach(&self) -> bool {
        self.unreachable.is_none() && self.withheld.is_none()
    }
}

impl Coverage {
    /// Measures `exchanges` against what the spec declares.
    pub fn measure(declared: &Declared, exchanges: &[Exchange]) -> Coverage {
        let mut per_operation = Vec::new();
        for (id, d) in &declared.0 {
            let mine: Vec<&Exchange> = exchanges
                .iter()
                .filter(|e| e.operation == *id && d.owns(&e.method, &e.path))
                .collect();
            let mut seen = BTreeSet::new();
            let mut undeclared = BTreeSet::new();
            let mut reached = false;
            for status in mine.iter().filter_map(|e| e.status) {
                reached |= (200..300).contains(&status);
                match d.key_for(status) {
                    Some(k) => {
                        seen.insert(k.to_string());
                    }
                    None => {
                        undeclared.insert(status);
                    }
                }
            }
            let carried = carried(d, &mine);
            let split = |names: Vec<&String>| -> (Vec<String>, Vec<String>) {
                names
                    .into_iter()
                    .cloned()
                    .partition(|n| carried.contains(n.as_str()))
            };
            let (params_exercised, params_unexercised) =
                split(d.params.iter().map(|(n, _)| n).collect());
            let (fields_exercised, fields_unexercised) = split(d.fields.iter().collect());
            let (declared_seen, declared_unseen) =
                d.statuses.iter().cloned().partition(|k| seen.contains(k));
            per_operation.push(OperationCoverage {
                operation: id.clone(),
                method: d.method.clone(),
                path: d.path.clone(),
                requests: mine.len(),
                reached_2xx: reached,
                declared_seen,
                declared_unseen,
                undeclared_seen: undeclared.into_iter().collect(),
                params_exercised,
                params_unexercised,
                fields_exercised,
                fields_unexercised,
                unreachable: d.unreachable.clone(),
                withheld: d.withheld.clone(),
            });
        }
        Coverage::of_operations(per_operation)
    }

    /// The totals over `per_operation` (each operation once), sorted by operation id.
    pub fn of_operations(mut per_operation: Vec<OperationCoverage>) -> Coverage {
        per_operation.sort_by(|a, b| a.operation.cmp(&b.operation));
        Coverage {
            operations: per_operation.len(),
            requested: per_operation.iter().filter(|o| o.requests > 0).count(),
            reached_2xx: per_operation.iter().filter(|o| o.reached_2xx).count(),
            reachable: per_operation.iter().filter(|o| o.within_reach()).count(),
            requested_reachable: per_operation
                .iter()
                .filter(|o| o.within_reach() && o.requests > 0)
                .count(),
            declared_statuses: per_operation
                .iter()
                .map(|o| o.declared_seen.len() + o.declared_unseen.len())
                .sum(),
            declared_seen: per_operation.iter().map(|o| o.declared_seen.len()).sum(),
            per_operation,
        }
    }

    /// The share of selected operations that reached a 2xx, in percent (0 when none is
    /// selected: a run that reached nothing covered nothing).
    pub fn percent(&self) -> f64 {
        if self.operations == 0 {
            0.0
        } else {
            100.0 * self.reached_2xx as f64 / self.operations as f64
        }
    }

    /// The share of the operations whose inputs something can give that got a request,
    /// in percent (100 when there is none such).
    pub fn reach_percent(&self) -> f64 {
        if self.reachable == 0 {
            100.0
        } else {
            100.0 * self.requested_reachable as f64 / self.reachable as f64
        }
    }

    /// `2xx reached on 131 of 188 operations (69.7%); requested 170 of the 173 whose
    /// inputs something can give and the permissions allow (98.3%); 412 of 640 declared
    /// statuses seen`.
    pub fn line(&self) -> String {
        format!(
            "2xx reached on {} of {} operations ({:.1}%); requested {} of the {} whose inputs something can give and the permissions allow ({:.1}%); {} of {} declared statuses seen",
            self.reached_2xx,
            self.operations,
            self.percent(),
            self.requested_reachable,
            self.reachable,
            self.reach_percent(),
            self.declared_seen,
            self.declared_statuses
        )
    }
}

/// The `min_coverage` result of a run given `--min-coverage min`: failed (MUST) when
/// fewer than `min` percent of the selected operations reached a 2xx, naming how many did
/// and a few that did not.
pub fn verdict(c: &Coverage, min: f64) -> CheckResult {
    let ok = c.percent() >= min;
    // Answered without a 2xx (the target's answers) apart from never sent (the run's own
    // limits: writes not allowed, an input missing; their skipped results say which).
    let names = |sent: bool| -> String {
        let all: Vec<&str> = c
            .per_operation
            .iter()
            .filter(|o| !o.reached_2xx && (o.requests > 0) == sent)
            .map(|o| o.operation.as_str())
            .collect();
        let shown: Vec<&str> = all.iter().take(10).copied().collect();
        let more = all.len() - shown.len();
        format!(
            "{} ({}){}",
            all.len(),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    };
    let message = if ok {
        String::new()
    } else {
        format!(
            "{}, below --min-coverage {min}%; answered without a 2xx: {}; never sent (see their skipped results): {}",
            c.line(),
            names(true),
            names(false)
        )
    };
    CheckResult {
        case_index: usize::MAX,
        step: 0,
        case: "coverage".into(),
        operation: String::new(),
        check: Check::MinCoverage.into(),
        level: Level::Must,
        verdict: if ok { Verdict::Passed } else { Verdict::Failed },
        message,
        expected: format!("a 2xx answer on at least {min}% of the selected operations"),
        got: None,
        curl: None,
        missing_input: false,
        elapsed: None,
    }
}

/// The `min_coverage` result of a run that did not finish: skipped, since the share of
/// operations reached so far says nothing of the whole run.
pub fn not_judged(min: f64, why: &str) -> CheckResult {
    CheckResult {
        case_index: usize::MAX,
        step: 0,
        case: "coverage".into(),
        operation: String::new(),
        check: Check::MinCoverage.into(),
        level: Level::Must,
        verdict: Verdict::Skipped,
        message: format!("not judged: {why}"),
        expected: format!("a 2xx answer on at least {min}% of the selected operations"),
        got: None,
        curl: None,
        missing_input: false,
        elapsed: None,
    }
}

/// The parameters and body fields some request of `mine` carried: a path parameter
/// whenever the request went to the operation's path (the template was filled), a query
/// parameter by its name in the query string, a header by its name, a cookie by its name in
/// the `Cookie` header, a field by its name in a body.
fn carried(d: &Declaration, mine: &[&Exchange]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in mine {
        let cookies: Vec<&str> = e
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("cookie"))
            .flat_map(|(_, v)| v.split(';'))
            .filter_map(|kv| kv.split('=').next())
            .map(str::trim)
            .collect();
        for (name, location) in &d.params {
            let sent = match location {
                Location::Path => true,
                Location::Header => e.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name)),
                Location::Cookie => cookies.contains(&name.as_str()),
                Location::Query => false,
            };
            if sent {
                out.insert(name.clone());
            }
        }
        if let Some((_, query)) = e.path.split_once('?') {
            for pair in query.split('&') {
                let name = pair.split('=').next().unwrap_or_default();
                let name = percent_decode(name);
                // `filter[x]=…` (deepObject) and `a.b` carry the parameter `filter` / `a`.
                let base = name
                    .split(['[', '.'])
                    .next()
                    .unwrap_or_default()
                    .to_string();
                out.insert(name);
                out.insert(base);
            }
        }
        if let Some((_, serde_json::Value::Object(body))) = &e.body {
            out.extend(body.keys().cloned());
        }
    }
    out
}

/// `%5B` → `[`, `+` → space: enough to read a parameter's name back from a query string.
fn percent_decode(s: &str) -> String {
    form_urlencoded::parse(format!("{s}=").as_bytes())
        .next()
        .map(|(k, _)| k.into_owned())
        .unwrap_or_else(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
openapi: 3.1.0
info: {title: things, version: "1"}
paths:
  /things:
    get:
      operationId: list
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
        - {name: tag, in: query, schema: {type: string}}
        - {name: x-trace, in: header, schema: {type: string}}
        - {name: session, in: cookie, schema: {type: string}}
        - {name: theme, in: cookie, schema: {type: string}}
      responses: {"200": {description: ok}, "4XX": {description: bad}}
    post:
      operationId: create
      requestBody:
        content: {application/json: {schema: {type: object, properties: {name: {type: string}, size: {type: integer}}}}}
      responses: {"201": {description: made}, "422": {description: invalid}}
  /things/{id}:
    get:
      operationId: read
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}, "404": {description: gone}}
"#;

    fn exchange(
        op: &str,
        method: &str,
        path: &str,
        status: u16,
        body: Option<serde_json::Value>,
    ) -> Exchange {
        Exchange {
            case: format!("{op}/c"),
            operation: op.into(),
            step: 0,
            method: method.into(),
            path: path.into(),
            auth: None,
            headers: Vec::new(),
            body: body.map(|b| ("application/json".to_string(), b)),
            status: Some(status),
            error: None,
            content_type: None,
            response: serde_json::Value::Null,
            location: None,
            resent: 0,
            harness: None,
            case_index: 0,
            elapsed: None,
        }
    }

    #[test]
    fn statuses_params_and_fields_are_counted_from_what_was_sent_and_answered() {
        let spec = Spec::parse(SPEC).unwrap();
        let declared = Declared::of(&spec, |_| true);
        let mut sent_headers = exchange("list", "GET", "/things", 200, None);
        sent_headers.headers = vec![
            ("X-Trace".into(), "t1".into()),
            ("cookie".into(), "session=abc; other=1".into()),
        ];
        let exchanges = [
            exchange("list", "GET", "/things?limit=5", 200, None),
            sent_headers,
            exchange("list", "GET", "/things?limit=x", 400, None),
            // Probes reach no operation: another method, an unknown path.
            exchange("list", "DELETE", "/things", 405, None),
            exchange("list", "GET", "/conformance-unknown-path", 404, None),
            exchange(
                "create",
                "POST",
                "/things",
                200,
                Some(serde_json::json!({"name": "a"})),
            ),
            exchange("read", "GET", "/things/{id}", 404, None),
        ];
        let c = Coverage::measure(&declared, &exchanges);
        assert_eq!((c.operations, c.requested, c.reached_2xx), (3, 3, 2));
        assert_eq!((c.declared_seen, c.declared_statuses), (3, 6));
        let by = |id: &str| c.per_operation.iter().find(|o| o.operation == id).unwrap();
        let list = by("list");
        assert_eq!(list.requests, 3);
        assert_eq!(list.declared_seen, ["200", "4XX"]);
        // A header by its name (any case), a cookie by its name in the Cookie header.
        assert_eq!(list.params_exercised, ["limit", "x-trace", "session"]);
        assert_eq!(list.params_unexercised, ["tag", "theme"]);
        let create = by("create");
        assert_eq!(create.undeclared_seen, [200]);
        assert_eq!(create.declared_unseen, ["201", "422"]);
        assert_eq!(create.fields_exercised, ["name"]);
        assert_eq!(create.fields_unexercised, ["size"]);
        assert!(!by("read").reached_2xx);
        assert_eq!(
            c.line(),
            "2xx reached on 2 of 3 operations (66.7%); requested 3 of the 3 whose inputs something can give and the permissions allow (100.0%); 3 of 6 declared statuses seen"
        );
    }

    #[test]
    fn reach_is_measured_against_what_something_can_give() {
        let spec = Spec::parse(SPEC).unwrap();
        let mut declared = Declared::of(&spec, |_| true);
        declared.mark_unreachable(vec![("read".into(), "id: no answer carries it".into())]);
        // `read` was requested all the same (a made-up value); `create` was not.
        let c = Coverage::measure(
            &declared,
            &[
                exchange("list", "GET", "/things", 200, None),
                exchange("read", "GET", "/things/1", 404, None),
            ],
        );
        assert_eq!((c.reachable, c.requested_reachable, c.requested), (2, 1, 2));
        assert_eq!(c.reach_percent(), 50.0);
        // One the permissions refuse is left out too.
        declared.mark_withheld(vec![("create".into(), "needs --allow-writes".into())]);
        let c = Coverage::measure(&declared, &[exchange("list", "GET", "/things", 200, None)]);
        assert_eq!((c.reachable, c.requested_reachable), (1, 1));
        let read = c
            .per_operation
            .iter()
            .find(|o| o.operation == "read")
            .unwrap();
        assert_eq!(
            read.unreachable.as_deref(),
            Some("id: no answer carries it")
        );
    }

    #[test]
    fn nothing_selected_is_no_coverage() {
        let spec = Spec::parse(SPEC).unwrap();
        let c = Coverage::measure(&Declared::of(&spec, |_| false), &[]);
        assert_eq!(c.percent(), 0.0);
    }
}
