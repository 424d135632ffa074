//! Removing what the run created. With `--allow-writes` a create (a `POST` answering an
//! object with an `id`, or a `Location`) leaves something on the target that was not
//! there before; after the last case each is deleted through the spec's delete of the
//! same resource, and one `state_restored` result per created resource says whether it is
//! gone, or why the run could not remove it (the terminal lists those, to remove by hand).

use std::sync::Mutex;

use serde_json::Value;

use super::step::{run_case, skipped};
use super::{CaseReport, Context, finalise};
use crate::case::{AuthMode, Case, Expect, RequestTemplate, Step};
use crate::effect::Effect;
use crate::outcome::Verdict;
use crate::registry::Check;
use crate::spec::{Level, Location, Operation, Spec};
use crate::transport::Response;
use crate::vars::Vars;

/// One resource the run created.
#[derive(Debug, Clone, PartialEq)]
pub struct Created {
    /// The create operation.
    pub op: String,
    /// Its id as the answer gave it (`id`, else the last segment of `Location`).
    pub id: String,
    /// Its `name`, where the answer gave one: the key of a delete whose path names the
    /// resource by name (`DELETE /work_pools/{name}`).
    pub name: Option<String>,
}

/// What the run created, in the order it was created.
#[derive(Default)]
pub struct Ledger(Mutex<Vec<Created>>);

impl Ledger {
    /// Notes a create's answer: a 2xx of a create operation whose body has an `id`, or a
    /// `Location` header. Negative cases count too: a request the target should have
    /// refused but took created something all the same. Returns `false` when the answer
    /// names a record the ledger holds already (see below).
    pub fn note(&self, op: &Operation, resp: &Response) -> bool {
        if op.effect != Effect::Create || !(200..300).contains(&resp.status) {
            return true;
        }
        let id = resp
            .json
            .as_ref()
            .and_then(|j| j.get("id"))
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .or_else(|| {
                resp.headers
                    .iter()
                    .find(|(k, _)| k == "location")
                    .and_then(|(_, v)| v.trim_end_matches('/').rsplit('/').next())
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
            });
        let name = resp
            .json
            .as_ref()
            .and_then(|j| j.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let (Some(id), Ok(mut all)) = (id, self.0.lock()) {
            // A create answered with a record the run made before (a target that creates
            // by name or content answers the same record again) is removed once.
            if all.iter().any(|c| c.op == op.id && c.id == id) {
                return false;
            }
            all.push(Created {
                op: op.id.clone(),
                id,
                name,
            });
        }
        true
    }

    /// How many creates the ledger holds now.
    pub fn len(&self) -> usize {
        self.0.lock().map(|v| v.len()).unwrap_or(0)
    }

    /// The oldest create not yet removed (nor given up on).
    fn first(&self) -> Option<Created> {
        self.0.lock().ok()?.first().cloned()
    }

    /// Drops `c` once its removal was tried: what a signal finds left in the ledger is
    /// what no removal has been tried for yet.
    fn forget(&self, c: &Created) {
        if let Ok(mut all) = self.0.lock()
            && let Some(i) = all.iter().position(|x| x == c)
        {
            all.remove(i);
        }
    }
}

/// The spec's delete of what `create` makes, and the path parameter that takes the id:
/// a `DELETE` of the create's path plus one parameter segment (`POST /flows/` →
/// `DELETE /flows/{id}`), else a `DELETE` whose path's `GET` answers the schema the
/// create answers (the same `$ref`).
pub fn delete_for<'s>(spec: &'s Spec, create: &Operation) -> Option<(&'s Operation, String)> {
    let single_param = |o: &'s Operation| -> Option<String> {
        let mut path_params = o.params.iter().filter(|p| p.location == Location::Path);
        let p = path_params.next()?;
        path_params.next().is_none().then(|| p.name.clone())
    };
    let base = create.path.trim_end_matches('/');
    let deletes = spec.operations.iter().filter(|o| o.method == "DELETE");
    for d in deletes.clone() {
        if let Some(name) = single_param(d)
            && d.path.trim_end_matches('/') == format!("{base}/{{{name}}}")
        {
            return Some((d, name));
        }
    }
    let answers = |o: &Operation| -> Option<String> {
        o.responses
            .iter()
            .filter(|r| r.status.starts_with('2'))
            .flat_map(|r| r.content.iter())
            .find_map(|(_, s)| s.as_ref()?.get("$ref")?.as_str().map(str::to_owned))
    };
    let made = answers(create)?;
    deletes
        .filter_map(|d| Some((d, single_param(d)?)))
        .find(|(d, _)| {
            spec.operations.iter().any(|g| {
                g.method == "GET" && g.path == d.path && answers(g).as_ref() == Some(&made)
            })
        })
}

/// Deletes everything the ledger holds; reports are numbered from `first_index` on.
pub async fn remove_created(ctx: &Context, first_index: usize) -> Vec<CaseReport> {
    let mut reports = Vec::new();
    let mut index = first_index;
    while let Some(created) = ctx.created.first() {
        let report = remove_one(ctx, index, &created).await;
        ctx.created.forget(&created);
        reports.extend(report);
        index += 1;
    }
    reports
}

/// A `NOT REMOVED` result for each create still in the ledger: what a run stopped before
/// it could remove them leaves on the target, named so it can be removed by hand.
pub fn left_behind(ctx: &Context, first_index: usize, why: &str) -> Vec<CaseReport> {
    let mut reports = Vec::new();
    let mut index = first_index;
    while let Some(created) = ctx.created.first() {
        let case = cleanup_case(&created);
        let mut r = skipped(
            &case,
            index,
            format!(
                "NOT REMOVED: {why}; remove {} {} by hand",
                created.op, created.id
            ),
        );
        r.expected = format!("what {} created ({}) removed", created.op, created.id);
        reports.push(finalise(
            ctx,
            CaseReport {
                index,
                results: vec![r],
                exchanges: Vec::new(),
            },
        ));
        ctx.created.forget(&created);
        index += 1;
    }
    reports
}

/// The case a create's removal is reported under.
fn cleanup_case(created: &Created) -> Case {
    Case {
        id: format!("cleanup/{}/{}", created.op, created.id),
        operation: created.op.clone(),
        check: Check::StateRestored.into(),
        level: Level::Must,
        steps: Vec::new(),
        serial: true,
        skip: None,
        requires: Vec::new(),
        cap: None,
    }
}

/// Removes one create through the spec's delete of it, or says why it cannot.
async fn remove_one(ctx: &Context, index: usize, created: &Created) -> Option<CaseReport> {
    {
        let create = ctx.spec.operation(&created.op)?;
        let mut case = cleanup_case(created);
        let Some((delete, param)) = delete_for(&ctx.spec, create) else {
            let mut r = skipped(
                &case,
                index,
                format!(
                    "NOT REMOVED: {} created {} but the spec has no delete of it; remove it by hand",
                    created.op, created.id
                ),
            );
            r.expected = format!("what {} created ({}) removed", created.op, created.id);
            return Some(finalise(
                ctx,
                CaseReport {
                    index,
                    results: vec![r],
                    exchanges: Vec::new(),
                },
            ));
        };
        // A delete by name takes the name, where the create's answer gave one.
        let by_name = (param == "name" || param.ends_with("_name")) && !param.contains("id");
        let key = match (&created.name, by_name) {
            (Some(name), true) => name.clone(),
            _ => created.id.clone(),
        };
        case.steps.push(Step {
            request: RequestTemplate {
                op: delete.id.clone(),
                params: vec![(param.clone(), Value::String(key.clone()))],
                body: None,
                auth: AuthMode::Token,
                explode: None,
                style: None,
                method: None,
                path: None,
            },
            expect: Expect::Observe,
            capture: Vec::new(),
            asserts: Vec::new(),
        });
        let mut report = run_case(ctx, index, &case, &Vars::default()).await;
        // A removal the target could not do just now (a 5xx: a busy database, a lock) is
        // tried twice more, a moment apart, before the record is reported left behind;
        // the report keeps every try (a 5xx is a finding all the same).
        for wait in [500, 2000] {
            let busy = report
                .exchanges
                .last()
                .and_then(|e| e.status)
                .is_some_and(|s| s >= 500);
            if !busy {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            let again = run_case(ctx, index, &case, &Vars::default()).await;
            report.results.extend(again.results);
            report.exchanges.extend(again.exchanges);
        }
        let status = report.exchanges.last().and_then(|e| e.status);
        let mut r = skipped(&case, index, String::new());
        r.step = 1;
        r.expected = format!(
            "what {} created ({}) removed through {}",
            created.op, created.id, delete.id
        );
        match status {
            // Gone already (a case of the run deleted it) is as good as removed.
            Some(s) if (200..300).contains(&s) || s == 404 || s == 410 => {
                r.verdict = Verdict::Passed;
            }
            other => {
                r.verdict = Verdict::Failed;
                r.message = format!(
                    "NOT REMOVED: {} {} answered {}; remove {} {} by hand",
                    delete.method,
                    delete.path,
                    other.map_or("nothing".to_string(), |s| s.to_string()),
                    created.op,
                    created.id
                );
            }
        }
        report.results.push(r);
        Some(finalise(ctx, report))
    }
}

/// The lines the terminal shows about created resources: those the run could not remove.
pub fn note(results: &[crate::outcome::CheckResult]) -> String {
    results
        .iter()
        .filter(|r| r.case.starts_with("cleanup/") && r.message.starts_with("NOT REMOVED"))
        .map(|r| format!("{}\n", r.message))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_create_is_paired_with_the_delete_of_the_same_resource() {
        let spec = Spec::parse(
            r##"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /flows/:
    post:
      operationId: create_flow
      responses: {"201": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Flow"}}}}}
  /flows/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    delete:
      operationId: delete_flow
      responses: {"204": {description: gone}}
  /launch:
    post:
      operationId: launch
      responses: {"201": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Run"}}}}}
  /runs/{run_id}:
    parameters: [{name: run_id, in: path, required: true, schema: {type: string}}]
    get:
      operationId: read_run
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Run"}}}}}
    delete:
      operationId: delete_run
      responses: {"204": {description: gone}}
components:
  schemas:
    Flow: {type: object}
    Run: {type: object}
"##,
        )
        .unwrap();
        let (d, p) = delete_for(&spec, spec.operation("create_flow").unwrap()).unwrap();
        assert_eq!((d.id.as_str(), p.as_str()), ("delete_flow", "id"));
        let (d, p) = delete_for(&spec, spec.operation("launch").unwrap()).unwrap();
        assert_eq!((d.id.as_str(), p.as_str()), ("delete_run", "run_id"));
    }
}
