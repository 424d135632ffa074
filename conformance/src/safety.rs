//! The one gate every planned case passes before it may be sent: derived cases, the
//! contract files' cases and the generic probes alike, so no room of the planner can send
//! a write the user did not allow. A case is judged by each of its steps: the step's own
//! method and path when it is a probe (an undeclared `DELETE` is a delete), else its
//! operation's effect.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::case::{Case, Step};
use crate::effect::{self, Effect, PathsIndex, Permissions};
use crate::spec::{Location, Operation, Spec};

/// What the run may send, and how to tell requests apart.
pub struct Gate<'a> {
    spec: &'a Spec,
    paths: PathsIndex,
    permissions: Permissions,
    /// Operations whose record `restore:` in the fixtures puts back at the end.
    restorable: BTreeSet<String>,
}

impl<'a> Gate<'a> {
    /// The gate of a run with these permissions and `restore:` operations.
    pub fn new(spec: &'a Spec, permissions: Permissions, restorable: &[String]) -> Gate<'a> {
        Gate {
            spec,
            paths: crate::spec::paths_index(&spec.operations, &spec.doc),
            permissions,
            restorable: restorable.iter().cloned().collect(),
        }
    }

    /// What one step's request does to the target.
    pub fn effect(&self, step: &Step) -> Effect {
        let Some(op) = self.spec.operation(&step.request.op) else {
            return Effect::Destructive;
        };
        match (&step.request.method, &step.request.path) {
            (None, None) => op.effect,
            (method, path) => {
                let method = method.as_deref().unwrap_or(&op.method);
                let path = path.as_deref().unwrap_or(&op.path);
                // The operation's name may say it ends a session whatever the method, but
                // it asks a question for its own method only: an undeclared `POST` probe of
                // `read_thing`'s path is judged without that name.
                match effect::judge(method, path, &op.words(), &self.paths) {
                    Effect::Query if !method.eq_ignore_ascii_case(&op.method) => {
                        effect::judge(method, path, "", &self.paths)
                    }
                    e => e,
                }
            }
        }
    }

    /// The most harmful effect among a case's steps.
    pub fn case_effect(&self, case: &Case) -> Effect {
        case.steps
            .iter()
            .map(|s| self.effect(s))
            .max_by_key(|e| harm(*e))
            .unwrap_or(Effect::Read)
    }

    /// Why a case may not be sent, or `None` when every step may.
    pub fn refusal(&self, case: &Case) -> Option<String> {
        self.refusal_under(case, self.permissions)
    }

    /// Whether a case goes only because of `--allow-destructive` (or the embedded
    /// server's leave): it may delete or overwrite data the run did not create, so the
    /// run holds it back until every case that may need that data has run.
    pub fn only_destructive_sends(&self, case: &Case) -> bool {
        let without = Permissions {
            destructive: false,
            ..self.permissions
        };
        self.refusal(case).is_none() && self.refusal_under(case, without).is_some()
    }

    fn refusal_under(&self, case: &Case, permissions: Permissions) -> Option<String> {
        for (i, step) in case.steps.iter().enumerate() {
            let effect = self.effect(step);
            let own = own_target(self.spec, case, i, |s| self.effect(s) == Effect::Create);
            let restorable = self.restorable.contains(&step.request.op)
                && step.request.method.is_none()
                && step.request.path.is_none();
            if let Some(why) = permissions.refusal(effect, restorable, own) {
                let method = step
                    .request
                    .method
                    .clone()
                    .or_else(|| {
                        self.spec
                            .operation(&step.request.op)
                            .map(|o| o.method.clone())
                    })
                    .unwrap_or_default();
                return Some(format!(
                    "not sent: {method} {} {why}",
                    step.request
                        .path
                        .clone()
                        .or_else(|| self
                            .spec
                            .operation(&step.request.op)
                            .map(|o| o.path.clone()))
                        .unwrap_or_default()
                ));
            }
        }
        None
    }

    /// What the permissions refuse `op` even where it addresses a record the run made
    /// (possible only through a path parameter): its plain request's effect is judged, so
    /// an update of a member is withheld only when no record of the run's could make it
    /// allowed. The coverage's measure of reach leaves such an operation out.
    pub fn withheld(&self, op: &Operation) -> Option<String> {
        let own = op.params.iter().any(|p| p.location == Location::Path);
        self.permissions
            .refusal(op.effect, self.restorable.contains(&op.id), own)
    }

    /// Applies the gate: a case it refuses is skipped with the reason (a reason it had
    /// already is kept), and a case that writes runs alone, in order. Returns how many
    /// cases the gate skipped.
    pub fn apply(&self, cases: &mut [Case]) -> usize {
        let mut refused = 0;
        for case in cases.iter_mut() {
            if self.case_effect(case) != Effect::Read {
                case.serial = true;
            }
            if let Some(why) = self.refusal(case) {
                if case.skip.is_none() {
                    case.skip = Some(why);
                }
                refused += 1;
            }
        }
        refused
    }
}

/// How much harm an effect can do, for ordering.
fn harm(e: Effect) -> u8 {
    match e {
        Effect::Read => 0,
        Effect::Query => 1,
        Effect::Create => 2,
        Effect::Update => 3,
        Effect::Session => 4,
        Effect::Destructive => 5,
    }
}

/// Whether step `i` of `case` names a resource the run itself made: each of its path
/// parameters is a value an earlier step of the same case captured from a create, or
/// the very value that create was sent with for the parameter of that name (the parent
/// of a member of a sub-collection: `/buckets/{bucket_id}/collections/{id}` after `POST
/// /buckets/{bucket_id}/collections`), and at least one is captured.
pub(crate) fn own_target(
    spec: &Spec,
    case: &Case,
    i: usize,
    is_create: impl Fn(&Step) -> bool,
) -> bool {
    let step = &case.steps[i];
    let Some(op) = spec.operation(&step.request.op) else {
        return false;
    };
    let path_params: Vec<&str> = op
        .params
        .iter()
        .filter(|p| p.location == Location::Path)
        .map(|p| p.name.as_str())
        .collect();
    if path_params.is_empty() || step.request.path.is_some() {
        return false;
    }
    let creates: Vec<&Step> = case.steps[..i].iter().filter(|s| is_create(s)).collect();
    let created: BTreeSet<&str> = creates
        .iter()
        .flat_map(|s| s.capture.iter().map(|(name, _)| name.as_str()))
        .collect();
    let value_of = |name: &str| {
        step.request
            .params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    };
    let captured = |name: &str| {
        value_of(name)
            .and_then(|v| match v {
                Value::String(s) => s.strip_prefix("${").and_then(|r| r.strip_suffix('}')),
                _ => None,
            })
            .is_some_and(|var| created.contains(var))
    };
    let parent = |name: &str| {
        value_of(name).is_some_and(|v| {
            creates.iter().any(|c| {
                spec.operation(&c.request.op).is_some_and(|o| {
                    o.params
                        .iter()
                        .any(|p| p.location == Location::Path && p.name == name)
                }) && c.request.params.iter().any(|(n, w)| n == name && w == v)
            })
        })
    };
    path_params.iter().any(|name| captured(name))
        && path_params
            .iter()
            .all(|name| captured(name) || parent(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{AuthMode, Expect, RequestTemplate};
    use crate::registry::Check;
    use crate::spec::Level;

    const SPEC: &str = r#"
openapi: 3.1.0
info: {title: things, version: "1"}
paths:
  /things:
    get:
      operationId: list
      responses: {"200": {description: ok, content: {application/json: {schema: {type: array}}}}}
    post:
      operationId: create
      responses: {"201": {description: made}}
  /things/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    delete:
      operationId: remove
      responses: {"204": {description: gone}}
    patch:
      operationId: rename
      responses: {"200": {description: renamed}}
  /logout:
    get:
      operationId: bye
      responses: {"204": {description: gone}}
"#;

    fn step(op: &str, params: Vec<(String, Value)>, capture: Vec<(String, String)>) -> Step {
        Step {
            request: RequestTemplate {
                op: op.into(),
                params,
                body: None,
                auth: AuthMode::Token,
                explode: None,
                style: None,
                method: None,
                path: None,
            },
            expect: Expect::Success,
            capture,
            asserts: Vec::new(),
        }
    }

    fn case(steps: Vec<Step>) -> Case {
        Case {
            id: "c".into(),
            operation: steps[0].request.op.clone(),
            check: Check::Contract.into(),
            level: Level::Must,
            steps,
            serial: false,
            skip: None,
            requires: Vec::new(),
            cap: None,
        }
    }

    #[test]
    fn a_delete_goes_only_to_what_the_same_case_created() {
        let spec = Spec::parse(SPEC).unwrap();
        let writes = Permissions {
            writes: true,
            destructive: false,
            own_session: false,
        };
        let gate = Gate::new(&spec, writes, &[]);
        let chained = case(vec![
            step("create", vec![], vec![("made".into(), "/id".into())]),
            step(
                "remove",
                vec![("id".into(), Value::String("${made}".into()))],
                vec![],
            ),
        ]);
        assert_eq!(gate.refusal(&chained), None);
        let foreign = case(vec![step(
            "remove",
            vec![("id".into(), Value::String("42".into()))],
            vec![],
        )]);
        assert!(
            gate.refusal(&foreign)
                .unwrap()
                .contains("--allow-destructive")
        );
        let from_a_read = case(vec![
            step("list", vec![], vec![("made".into(), "/0/id".into())]),
            step(
                "remove",
                vec![("id".into(), Value::String("${made}".into()))],
                vec![],
            ),
        ]);
        assert!(gate.refusal(&from_a_read).is_some());
    }

    #[test]
    fn without_permission_only_reads_go_and_probes_count_by_their_own_method() {
        let spec = Spec::parse(SPEC).unwrap();
        let gate = Gate::new(&spec, Permissions::default(), &[]);
        let mut cases = vec![
            case(vec![step("list", vec![], vec![])]),
            case(vec![step("create", vec![], vec![])]),
            case(vec![step("bye", vec![], vec![])]),
        ];
        let mut probe = case(vec![step("list", vec![], vec![])]);
        probe.steps[0].request.method = Some("DELETE".into());
        cases.push(probe);
        assert_eq!(gate.apply(&mut cases), 3);
        assert!(cases[0].skip.is_none() && !cases[0].serial);
        assert!(cases[1].skip.as_deref().unwrap().contains("--allow-writes"));
        assert!(cases[2].skip.is_some(), "a GET logout is a session change");
        assert!(cases[3].skip.is_some(), "an undeclared DELETE is a delete");
        assert!(cases[3].serial);
    }

    #[test]
    fn an_update_of_what_the_same_case_created_needs_no_restore_values() {
        let spec = Spec::parse(SPEC).unwrap();
        let id = vec![("id".to_string(), Value::String("${made}".into()))];
        let own = case(vec![
            step("create", Vec::new(), vec![("made".into(), "/id".into())]),
            step("rename", id.clone(), Vec::new()),
        ]);
        assert_eq!(crate::runner::written(&spec, &[own]), Vec::<String>::new());
        // The same update of a record the case did not make changes the target's data.
        let theirs = case(vec![step(
            "rename",
            vec![("id".to_string(), Value::String("seeded".into()))],
            Vec::new(),
        )]);
        assert_eq!(crate::runner::written(&spec, &[theirs]), ["rename"]);
    }
}
