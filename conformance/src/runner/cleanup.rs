//! Removing what the run created, and naming what it could not. With `--allow-writes` a
//! create leaves something on the target that was not there before; after the last case
//! (and before any case that ends the session, so the credentials still work) each is
//! deleted through the spec's delete of the same resource, and one `state_restored`
//! result per create says whether it is gone, or why the run could not remove it.
//!
//! The key a record is removed by, on any spec: take the spec's delete of the created
//! resource ([`delete_for`]) and its path parameter `P` (`id` when the spec has no
//! delete); the key is the create answer's field `P` (`connection_id`, `key`), else, when
//! `P` is name-like (its last word is `name`, `key` or `slug` and no word is `id`:
//! `work_pool_name`, `thingKey`, not `id_or_name`), the answer's field of that kind (a
//! delete by name never takes a generated id), else `id`, else the last segment of the
//! `Location` header ([`key_of`]). The key is found when the answer comes, so that the
//! same record answered twice is removed once; the entry keeps a short redacted excerpt
//! of the answer for the report.
//!
//! Everything created is accounted for. Each of these is a `NOT REMOVED` result, in the
//! terminal summary and in every report, with what is known (operation, status, a short
//! redacted excerpt of the answer, the key where there is one):
//! - a create answered 2xx with no key the rule finds (`201 {}`, a non-JSON body): one
//!   entry per answer. Only a `201 Created`, or an answer of a create the spec has a
//!   delete for, counts: a create-like `POST` answered `200` with no key and nothing to
//!   remove it by (a token exchange, a login) is taken as an action, not a record;
//! - a write that may make records it does not name ([`effect::makes_unknown_records`]:
//!   `POST /things/defaults`, an import, `x-effect: destructive`), answered 2xx: one
//!   entry per answer;
//! - a `PUT` to a collection path (a write, not a create: it may replace a record of the
//!   user's) answered with a record the spec has a delete for, other than with `201
//!   Created` (which says it made it, so it is removed like a create's): named by its
//!   key, not deleted;
//! - a create whose resource the spec gives no delete of;
//! - a removal the target did not do (a 5xx three times, a 4xx other than 404/410).
//!
//! A removal that failed is the target's failure: it fails the run (exit 1). The others
//! are records the run cannot remove, no fault of the target's: like a record `restore:`
//! could not put back, they leave the run incomplete (exit 3 unless `--allow-incomplete`),
//! so a CI job never passes over data left on the target.

use std::sync::Mutex;

use serde_json::Value;

use super::step::{missing_input, run_case, skipped};
use super::{CaseReport, Context, finalise};
use crate::case::{AuthMode, Case, Expect, RequestTemplate, Step};
use crate::effect::{self, Effect};
use crate::outcome::{Got, Verdict};
use crate::redact::Secrets;
use crate::registry::Check;
use crate::spec::{Level, Location, Operation, Spec};
use crate::transport::Response;
use crate::vars::Vars;

/// What a 2xx answer left on the target, as far as the run can tell.
#[derive(Debug, Clone, PartialEq)]
pub enum Made {
    /// One record, removed by this key (see [`key_of`]).
    Record(String),
    /// A create answered with no key the rule finds: the record cannot be found again.
    WithoutKey,
    /// A write that may make records it does not name: how many, and which, is unknown.
    Unknown,
    /// A write that is no create (a `PUT` to a collection) answered with a record the
    /// spec has a delete for, by this key: it may have made it, or replaced one of the
    /// user's, so the run does not delete it.
    Unclaimed(String),
}

/// One answer that left something on the target.
#[derive(Debug, Clone, PartialEq)]
pub struct Created {
    /// Its place in the ledger (names entries without a key apart).
    seq: usize,
    /// The operation answered.
    pub op: String,
    /// What it made.
    pub made: Made,
    /// The answer's status.
    pub status: u16,
    /// A short excerpt of the answer, secrets redacted: what is known of what it made.
    pub answer: String,
    /// The curl line of the request that made it (secrets redacted), for a failure of a
    /// later request that names the record to say what it needs first.
    pub curl: String,
    /// The path values the create was sent with (`bucket_id` of `POST
    /// /buckets/{bucket_id}/collections`): its delete names the record with them too.
    pub parents: Vec<(String, Value)>,
}

impl Created {
    /// How the entry is named in case ids and messages: the key, else its place.
    fn label(&self) -> String {
        match &self.made {
            Made::Record(key) | Made::Unclaimed(key) => key.clone(),
            _ => format!("#{}", self.seq),
        }
    }

    /// What was made and why the run cannot remove it, for entries without a key.
    fn unknowable(&self) -> Option<String> {
        let (what, them) = match self.made {
            Made::Record(_) => return None,
            Made::WithoutKey => (
                "without an id, so the record it created cannot be found to remove",
                "it",
            ),
            Made::Unknown => (
                "and may have created records the run cannot know of",
                "them",
            ),
            Made::Unclaimed(_) => (
                "with a record it may have created or replaced; the run removes only what a create made",
                "it",
            ),
        };
        Some(format!(
            "{} {} answered {} {what} (answer: {}); check and remove {them} by hand",
            self.op,
            self.label(),
            self.status,
            self.answer
        ))
    }
}

/// What the run created, in the order it was created.
#[derive(Default)]
pub struct Ledger(Mutex<(usize, Vec<Created>)>);

impl Ledger {
    /// Notes an answer that may have left something on the target: a 2xx of a create
    /// operation (its record, by the key [`key_of`] finds, or without one), or of a write
    /// that makes records it does not name. Negative cases count too: a request the
    /// target should have refused but took created something all the same. Returns
    /// `false` when the answer names a record the ledger holds already (see below).
    /// `sent` is the request's URL path and `curl` its curl line.
    pub fn note(
        &self,
        spec: &Spec,
        secrets: &Secrets,
        op: &Operation,
        resp: &Response,
        sent: (&str, &str),
    ) -> bool {
        let (sent_path, curl) = sent;
        if !(200..300).contains(&resp.status) {
            return true;
        }
        let made = if effect::makes_unknown_records(
            &op.method,
            &op.path,
            &op.words(),
            op.effect,
            op.declared_effect,
        ) {
            Made::Unknown
        } else if op.effect == Effect::Create {
            let delete = delete_for(spec, op);
            let param = delete.as_ref().map_or("id", |(_, p)| p.as_str());
            match key_of(param, resp.json.as_ref(), resp.header("location")) {
                Some(key) => Made::Record(key),
                // No key, no `201 Created` and no delete of it in the spec: an action's
                // answer (a token exchange, a login), not a record.
                None if resp.status != 201 && delete.is_none() => return true,
                None => Made::WithoutKey,
            }
        } else if op.effect != Effect::Read
            && op.method.eq_ignore_ascii_case("PUT")
            && !op.path.contains('{')
        {
            // A `PUT` to a collection that answers a record: made (`201 Created` says so,
            // RFC 9110 §9.3.4) it is removed; else made or replaced, it is named.
            let Some((_, param)) = delete_for(spec, op) else {
                return true;
            };
            match key_of(&param, resp.json.as_ref(), resp.header("location")) {
                Some(key) if resp.status == 201 => Made::Record(key),
                Some(key) => Made::Unclaimed(key),
                None => return true,
            }
        } else {
            return true;
        };
        let Ok(mut guard) = self.0.lock() else {
            return true;
        };
        let (seq, all) = &mut *guard;
        // A create answered with a record the run made before (a target that creates by
        // name or content answers the same record again) is removed once.
        let parents = path_values(&op.path, sent_path);
        if matches!(made, Made::Record(_) | Made::Unclaimed(_))
            && all
                .iter()
                .any(|c| c.op == op.id && c.made == made && c.parents == parents)
        {
            return false;
        }
        *seq += 1;
        all.push(Created {
            seq: *seq,
            op: op.id.clone(),
            made,
            status: resp.status,
            answer: excerpt(secrets, resp),
            curl: curl.to_string(),
            parents,
        });
        true
    }

    /// Forgets the record a `DELETE` of `path` through `delete` answered 2xx for: one
    /// whose create that very operation deletes, keyed by the path's last segment. A case
    /// of the run removed it already, and a target that hides what is gone behind a 403
    /// would otherwise have it reported as left behind.
    pub fn deleted(&self, spec: &Spec, delete: &Operation, path: &str) {
        let Some(last) = path.split('?').next().unwrap_or(path).rsplit('/').next() else {
            return;
        };
        let last = percent_encoding::percent_decode_str(last).decode_utf8_lossy();
        let deletes = |c: &Created| {
            spec.operation(&c.op)
                .and_then(|create| delete_for(spec, create))
                .is_some_and(|(d, _)| d.id == delete.id)
        };
        if let Ok(mut guard) = self.0.lock() {
            guard
                .1
                .retain(|c| !(matches!(&c.made, Made::Record(key) if *key == last) && deletes(c)));
        }
    }

    /// The record the run created that a request to `path` names (a whole path segment
    /// equal to its key), unless `curl` made it: its key and the curl line that made it.
    pub fn maker_of(&self, path: &str, curl: &str) -> Option<(String, String)> {
        let segments: Vec<String> = path
            .split('?')
            .next()
            .unwrap_or(path)
            .split('/')
            .map(|s| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            })
            .collect();
        let guard = self.0.lock().ok()?;
        guard.1.iter().find_map(|c| match &c.made {
            Made::Record(key) if c.curl != curl && segments.contains(key) => {
                Some((key.clone(), c.curl.clone()))
            }
            _ => None,
        })
    }

    /// How many entries the ledger holds now.
    pub fn len(&self) -> usize {
        self.0.lock().map(|v| v.1.len()).unwrap_or(0)
    }

    /// The oldest entry not yet removed (nor given up on).
    fn first(&self) -> Option<Created> {
        self.0.lock().ok()?.1.first().cloned()
    }

    /// The newest entry not yet removed (nor given up on).
    fn newest(&self) -> Option<Created> {
        self.0.lock().ok()?.1.last().cloned()
    }

    /// Drops `c` once its removal was tried: what a signal finds left in the ledger is
    /// what no removal has been tried for yet.
    fn forget(&self, c: &Created) {
        if let Ok(mut guard) = self.0.lock()
            && let Some(i) = guard.1.iter().position(|x| x == c)
        {
            guard.1.remove(i);
        }
    }
}

/// The key a created record is removed by, through a delete whose path parameter is
/// `param` (the rule is the module's): the answer's field `param`; when `param` is
/// name-like, the answer's field of that kind; its `id`; the last segment of `location`.
/// An answer that wraps its record in an envelope (`{"data": {…}, "permissions": …}`:
/// no such field at the top, exactly one object-valued field that has one) is read
/// inside it, and so is the one record of a list answer. `None` when none gives a string
/// or a number.
pub fn key_of(param: &str, answer: Option<&Value>, location: Option<&str>) -> Option<String> {
    let at = |v: &Value, name: &str| -> Option<String> {
        match v.get(name)? {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    };
    // A create that answers a list of the one record it made: that record.
    let answer = match answer {
        Some(Value::Array(items)) if items.len() == 1 => items.first(),
        other => other,
    };
    let field = |name: &str| -> Option<String> {
        let answer = answer?;
        at(answer, name).or_else(|| {
            let mut inner = answer
                .as_object()?
                .values()
                .filter(|v| v.is_object())
                .filter_map(|v| at(v, name));
            let one = inner.next()?;
            inner.next().is_none().then_some(one)
        })
    };
    // A parameter that also takes an id (`id_or_name`) is not name-like: the id names
    // the record surely, a name may be one the target cannot take back in a path.
    let words = effect::tokens(param);
    let kind = words
        .last()
        .filter(|w| matches!(w.as_str(), "name" | "key" | "slug"))
        .filter(|_| !words.iter().any(|w| w == "id"))
        .cloned();
    field(param)
        .or_else(|| kind.and_then(|k| field(&k)))
        .or_else(|| field("id"))
        .or_else(|| {
            location?
                .split(['?', '#'])
                .next()?
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        })
}

/// The path values of a request to `template` sent to the URL path `sent` (which may
/// begin with the base URL's own path: the two are lined up from their ends), by
/// parameter name.
fn path_values(template: &str, sent: &str) -> Vec<(String, Value)> {
    let t: Vec<&str> = template.trim_end_matches('/').split('/').collect();
    let s: Vec<&str> = sent.trim_end_matches('/').split('/').collect();
    if s.len() < t.len() {
        return Vec::new();
    }
    let s = &s[s.len() - t.len()..];
    t.iter()
        .zip(s)
        .filter_map(|(t, s)| {
            let name = t.strip_prefix('{')?.strip_suffix('}')?;
            let value = percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned();
            Some((name.to_string(), Value::String(value)))
        })
        .collect()
}

/// How much of an answer a `NOT REMOVED` entry quotes.
const EXCERPT: usize = 160;

/// A short one-line excerpt of `resp`'s body, secrets redacted: JSON as JSON, text as
/// text, anything else (bytes that are not text) as its media type and size only.
fn excerpt(secrets: &Secrets, resp: &Response) -> String {
    let text = match &resp.json {
        Some(j) => secrets.redact_json(j).to_string(),
        None if resp.body.is_empty() => return "empty body".to_string(),
        None => {
            let text = String::from_utf8_lossy(&resp.body);
            if text
                .chars()
                .any(|c| c == '\u{fffd}' || (c.is_control() && !c.is_whitespace()))
            {
                return format!(
                    "{} body of {} bytes",
                    resp.media_type().unwrap_or_else(|| "binary".to_string()),
                    resp.body.len()
                );
            }
            secrets.redact(&text.split_whitespace().collect::<Vec<_>>().join(" "))
        }
    };
    if text.len() > EXCERPT {
        format!("{}…", &text[..text.floor_char_boundary(EXCERPT)])
    } else {
        text
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
    // The delete at the create's own path plus one parameter segment: its other path
    // parameters are the create's own (a member of a sub-collection).
    for d in deletes.clone() {
        let last = d
            .path
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default();
        if let Some(name) = last.strip_prefix('{').and_then(|l| l.strip_suffix('}'))
            && d.path.trim_end_matches('/') == format!("{base}/{{{name}}}")
        {
            return Some((d, name.to_string()));
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

/// Deletes everything the ledger holds, and lists what it cannot; reports are numbered
/// from `first_index` on. The newest first: what was made inside something the run made
/// (a collection in a bucket) goes before it, as a target that removes a parent with
/// its children, and then hides them behind a 403, would otherwise have the child
/// reported as left behind.
pub async fn remove_created(ctx: &Context, first_index: usize) -> Vec<CaseReport> {
    let mut reports = Vec::new();
    let mut index = first_index;
    while let Some(created) = ctx.created.newest() {
        let report = match created.unknowable() {
            Some(why) => not_removed(ctx, index, &created, why),
            None => remove_one(ctx, index, &created).await,
        };
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
        let message = created
            .unknowable()
            .unwrap_or_else(|| format!("{why}; remove {} {} by hand", created.op, created.label()));
        reports.extend(not_removed(ctx, index, &created, message));
        ctx.created.forget(&created);
        index += 1;
    }
    reports
}

/// The `NOT REMOVED` result of a create the run cannot remove (`why`): skipped for want of
/// what would remove it, which leaves the run incomplete, with the answer as it came.
fn not_removed(ctx: &Context, index: usize, created: &Created, why: String) -> Option<CaseReport> {
    let case = cleanup_case(created);
    let mut r = missing_input(skipped(&case, index, format!("NOT REMOVED: {why}")));
    r.expected = format!("what {} created ({}) removed", created.op, created.label());
    r.got = Some(Got {
        status: Some(created.status),
        headers: Vec::new(),
        body: created.answer.clone(),
        error: None,
    });
    Some(finalise(
        ctx,
        CaseReport {
            index,
            results: vec![r],
            exchanges: Vec::new(),
        },
    ))
}

/// The case a create's removal is reported under.
fn cleanup_case(created: &Created) -> Case {
    Case {
        id: format!("cleanup/{}/{}", created.op, created.label()),
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
    let create = ctx.spec.operation(&created.op)?;
    let mut case = cleanup_case(created);
    let key = created.label();
    let Some((delete, param)) = delete_for(&ctx.spec, create) else {
        return not_removed(
            ctx,
            index,
            created,
            format!(
                "{} created {key} but the spec has no delete of it; remove it by hand",
                created.op
            ),
        );
    };
    case.steps.push(Step {
        request: RequestTemplate {
            op: delete.id.clone(),
            params: created
                .parents
                .iter()
                .cloned()
                .chain([(param.clone(), Value::String(key.clone()))])
                .collect(),
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
        "what {} created ({key}) removed through {}",
        created.op, delete.id
    );
    match status {
        // Gone already (a case of the run deleted it) is as good as removed.
        Some(s) if (200..300).contains(&s) || s == 404 || s == 410 => {
            r.verdict = Verdict::Passed;
        }
        // The target refuses the run's credentials on its own record: no verdict on the
        // delete (an update the run sent may have changed who may delete it, as a body's
        // `permissions` or `owner` can), but the record is left behind all the same.
        Some(s @ (401 | 403)) => {
            r.message = format!(
                "NOT REMOVED: {} {} answered {s}: the target refuses the run's credentials on the record it created (an update of the run's may have changed who may delete it); remove {} {key} by hand",
                delete.method, delete.path, created.op,
            );
        }
        other => {
            r.verdict = Verdict::Failed;
            r.message = format!(
                "NOT REMOVED: {} {} answered {}; remove {} {key} by hand",
                delete.method,
                delete.path,
                other.map_or("nothing".to_string(), |s| s.to_string()),
                created.op,
            );
        }
    }
    report.results.push(r);
    Some(finalise(ctx, report))
}

/// The lines the terminal shows about created resources: those the run could not remove,
/// and what they do to the exit code.
pub fn note(results: &[crate::outcome::CheckResult]) -> String {
    let left: Vec<_> = results
        .iter()
        .filter(|r| r.case.starts_with("cleanup/") && r.message.starts_with("NOT REMOVED"))
        .collect();
    if left.is_empty() {
        return String::new();
    }
    let mut note: String = left.iter().map(|r| format!("{}\n", r.message)).collect();
    let failed = left
        .iter()
        .filter(|r| r.verdict != Verdict::Skipped)
        .count();
    note.push_str(&format!(
        "{} NOT REMOVED: {failed} refused by the target (a failure), {} the run cannot remove (the run is incomplete)\n",
        left.len(),
        left.len() - failed
    ));
    note
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_of_a_sub_collection_is_removed_with_the_path_values_its_create_was_sent_with() {
        let spec = Spec::parse(
            r#"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /buckets/{bucket_id}/collections:
    post:
      operationId: create_collection
      parameters: [{name: bucket_id, in: path, required: true, schema: {type: string}}]
      responses: {"201": {description: made}}
  /buckets/{bucket_id}/collections/{id}:
    delete:
      operationId: delete_collection
      parameters:
        - {name: bucket_id, in: path, required: true, schema: {type: string}}
        - {name: id, in: path, required: true, schema: {type: string}}
      responses: {"200": {description: gone}}
"#,
        )
        .unwrap();
        let create = spec.operation("create_collection").unwrap();
        let (delete, param) = delete_for(&spec, create).expect("the member's delete");
        assert_eq!(
            (delete.id.as_str(), param.as_str()),
            ("delete_collection", "id")
        );
        assert_eq!(
            path_values(&create.path, "/v1/buckets/b%201/collections"),
            [("bucket_id".to_string(), Value::String("b 1".into()))]
        );
        let ledger = Ledger::default();
        let secrets = Secrets::new(Default::default());
        let answer = answer(201, r#"{"data": {"id": "c1"}, "permissions": {}}"#);
        assert!(ledger.note(
            &spec,
            &secrets,
            create,
            &answer,
            ("/v1/buckets/b1/collections", "curl")
        ));
        // The same key under another bucket is another record.
        assert!(ledger.note(
            &spec,
            &secrets,
            create,
            &answer,
            ("/v1/buckets/b2/collections", "curl")
        ));
        let first = ledger.first().unwrap();
        assert_eq!(first.made, Made::Record("c1".into()));
        assert_eq!(
            first.parents,
            [("bucket_id".to_string(), Value::String("b1".into()))]
        );
        assert_eq!(ledger.len(), 2);
    }

    #[test]
    fn the_key_is_the_field_named_like_the_delete_parameter_else_id_else_location() {
        use serde_json::json;
        let key = |p: &str, a: Value, l: Option<&str>| key_of(p, Some(&a), l);
        // The field the delete's parameter names wins over `id`.
        assert_eq!(
            key(
                "connection_id",
                json!({"id": 7, "connection_id": "c1"}),
                None
            )
            .as_deref(),
            Some("c1")
        );
        assert_eq!(key("id", json!({"id": 7}), None).as_deref(), Some("7"));
        // A name-like parameter takes the answer's field of that kind before `id`.
        assert_eq!(
            key("thing_key", json!({"id": "u-1", "key": "k1"}), None).as_deref(),
            Some("k1")
        );
        assert_eq!(
            key("workPoolName", json!({"id": "u-1", "name": "pool"}), None).as_deref(),
            Some("pool")
        );
        assert_eq!(
            key("slug", json!({"slug": "s"}), None).as_deref(),
            Some("s")
        );
        // A parameter that takes an id or a name takes the id.
        assert_eq!(
            key("id_or_name", json!({"id": "u-1", "name": "n"}), None).as_deref(),
            Some("u-1")
        );
        // Not name-like: `thing_ref` does not take `ref`, it takes `id`.
        assert_eq!(
            key("thing_ref", json!({"id": "u-1", "ref": "r"}), None).as_deref(),
            Some("u-1")
        );
        // Else the last segment of `Location`, query and trailing slash left out.
        assert_eq!(
            key("id", json!({}), Some("https://h/things/42/?x=1")).as_deref(),
            Some("42")
        );
        assert_eq!(key_of("id", None, Some("/things/9")).as_deref(), Some("9"));
        // Nothing: no key (an empty string or an object is none either).
        assert_eq!(key("id", json!({}), None), None);
        assert_eq!(key("id", json!({"id": ""}), None), None);
        assert_eq!(key("id", json!({"id": {"a": 1}}), None), None);
        assert_eq!(key_of("id", None, None), None);
        // A list of the one record made is that record; a longer list names none.
        assert_eq!(key("id", json!([{"id": 4}]), None).as_deref(), Some("4"));
        assert_eq!(key("id", json!([{"id": 4}, {"id": 5}]), None), None);
    }

    fn answer(status: u16, body: &str) -> Response {
        Response {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.as_bytes().to_vec(),
            json: serde_json::from_str(body).ok(),
            elapsed: std::time::Duration::ZERO,
            retries: 0,
        }
    }

    #[test]
    fn the_ledger_keeps_one_entry_per_record_and_one_per_answer_it_cannot_key() {
        let spec = Spec::parse(
            r##"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /things:
    post: {operationId: create_thing, responses: {"201": {description: ok}}}
  /things/{thing_key}:
    parameters: [{name: thing_key, in: path, required: true, schema: {type: string}}]
    delete: {operationId: delete_thing, responses: {"204": {description: gone}}}
  /things/defaults:
    post: {operationId: make_defaults, responses: {"204": {description: ok}}}
"##,
        )
        .unwrap();
        let secrets = Secrets::new(Default::default());
        let ledger = Ledger::default();
        let create = spec.operation("create_thing").unwrap();
        let defaults = spec.operation("make_defaults").unwrap();
        assert!(ledger.note(
            &spec,
            &secrets,
            create,
            &answer(201, r#"{"thing_key": "k1"}"#),
            ("", "")
        ));
        // The same record answered again is noted once.
        assert!(!ledger.note(
            &spec,
            &secrets,
            create,
            &answer(200, r#"{"thing_key": "k1"}"#),
            ("", "")
        ));
        assert!(ledger.note(&spec, &secrets, create, &answer(201, "{}"), ("", "")));
        assert!(ledger.note(&spec, &secrets, create, &answer(201, "{}"), ("", "")));
        assert!(ledger.note(&spec, &secrets, defaults, &answer(204, ""), ("", "")));
        // A PUT to a collection: removed when it says it created (201), else only named.
        let spec_put = Spec::parse(
            r##"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /searches:
    put: {operationId: put_search, responses: {"200": {description: ok}}}
  /searches/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    delete: {operationId: delete_search, responses: {"204": {description: gone}}}
"##,
        )
        .unwrap();
        let put = spec_put.operation("put_search").unwrap();
        let puts = Ledger::default();
        assert!(puts.note(
            &spec_put,
            &secrets,
            put,
            &answer(201, r#"{"id": "s1"}"#),
            ("", "")
        ));
        assert!(puts.note(
            &spec_put,
            &secrets,
            put,
            &answer(200, r#"{"id": "s2"}"#),
            ("", "")
        ));
        let made: Vec<Made> = puts
            .0
            .lock()
            .unwrap()
            .1
            .iter()
            .map(|c| c.made.clone())
            .collect();
        assert_eq!(
            made,
            [Made::Record("s1".into()), Made::Unclaimed("s2".into())]
        );
        // A 200 without a key of a create the spec has no delete for is an action.
        let spec_token = Spec::parse(
            r##"
openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /oauth/token:
    post: {operationId: exchange_token, responses: {"200": {description: ok}}}
"##,
        )
        .unwrap();
        let token = spec_token.operation("exchange_token").unwrap();
        assert_eq!(token.effect, Effect::Create);
        let before = ledger.len();
        assert!(ledger.note(
            &spec_token,
            &secrets,
            token,
            &answer(200, r#"{"access_token": "t"}"#),
            ("", "")
        ));
        assert_eq!(ledger.len(), before);
        // A refusal made nothing.
        assert!(ledger.note(&spec, &secrets, create, &answer(422, "{}"), ("", "")));
        let all = ledger.0.lock().unwrap().1.clone();
        let made: Vec<&Made> = all.iter().map(|c| &c.made).collect();
        assert_eq!(
            made,
            [
                &Made::Record("k1".into()),
                &Made::WithoutKey,
                &Made::WithoutKey,
                &Made::Unknown
            ]
        );
        assert_eq!(all[1].answer, "{}");
        assert_eq!(all[3].answer, "empty body");
        assert_ne!(cleanup_case(&all[1]).id, cleanup_case(&all[2]).id);
    }

    #[test]
    fn an_excerpt_quotes_text_and_json_and_never_raw_bytes() {
        let mut secrets = Secrets::new(Default::default());
        secrets.add("s3cr3t-value", "$TOKEN");
        let mut zip = answer(201, "");
        zip.headers = vec![("content-type".into(), "application/zip".into())];
        zip.body = b"PK\x03\x04\x00\x00binary".to_vec();
        assert_eq!(excerpt(&secrets, &zip), "application/zip body of 12 bytes");
        let json = answer(201, r#"{"token": "s3cr3t-value"}"#);
        assert!(!excerpt(&secrets, &json).contains("s3cr3t"));
        let long = answer(201, &format!("{{\"a\": \"{}\"}}", "x".repeat(500)));
        assert!(excerpt(&secrets, &long).chars().count() <= EXCERPT + 1);
    }

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
