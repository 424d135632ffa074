//! `ensure_resource_availability` and `use_after_free`, the stateful chains: a create
//! followed by the read, updates, deletes and other operations of the resource it made,
//! each case with a resource of its own. A create is a `POST`; the operations on its
//! resource are those with one path parameter more than the create, owned by the create's
//! collection by the rules of [`crate::identity`] (`POST /flows/` → `GET|PATCH|DELETE
//! /flows/{id}`, `POST /flows/{id}/set_state`, and `GET|DELETE /flows/name/{name}` behind
//! a qualifier); the new resource's key (the field of the create's answer that parameter
//! names: `id`, `name`, …; in an envelope, or the first record of a list answer) goes into
//! that one path parameter, so every later step addresses only what the same case created
//! (the safety gate checks exactly that) and the end-of-run cleanup removes what a chain
//! leaves. A create that answers only a `Location` header chains to the operations right
//! under its own path, whose parameter the URL's last segment gives.
//!
//! Chains carry checks of their own: what a create set reads back, and the resource is
//! still there after an update ([`Check::ResourceAvailability`]); after a delete the
//! resource is gone ([`Check::UseAfterFree`]). Only plain values are compared on reading back: strings
//! without a `format`, integers and booleans, set at the top level of the request and
//! declared by the read's answer; `readOnly`/`writeOnly` fields are left out. A
//! server's normalising of dates, lists or nested objects is not a departure.

use serde_json::Value;

use super::{Def, RunFacts};
use crate::case::{AssertKind, Assertion, AuthMode, Case, Expect, Step};
use crate::contracts::Contracts;
use crate::effect::Effect;
use crate::identity::{collection, member_of, own_fields};
use crate::inputs::Inputs;
use crate::plan::builder::{Base, Builder, base, extremes, request};
use crate::registry::{Check, Family, row};
use crate::spec::{Level, Location, Operation, Spec};
use crate::state::Pool;

/// The variable a chain's create stores the new resource's id in. Its create step is the
/// chain's setup: the create operation's own cases judge the same request, so the runner
/// judges this step only for a server error (and says, when the id is missing, that the
/// create gave none).
pub(crate) const CREATED: &str = "chain_created_id";

/// The variable a chain's create stores the key of path parameter `param` in, where a
/// later step addresses the resource by `param` rather than by the chain's own parameter
/// (updated through `/variables/name/{name}`, read back through `/variables/{id}`).
fn created_as(param: &str) -> String {
    format!("{CREATED}.{param}")
}

/// Whether `step` is a chain's create, its setup: it captures the id the chain goes on
/// with.
pub(crate) fn is_setup(step: &Step) -> bool {
    step.capture.iter().any(|(n, _)| n == CREATED)
}

/// Its registry rows ([`crate::checks::TABLE`]).
pub(crate) const DEF: Def = Def {
    rows: &[
        row(
            Check::ResourceAvailability,
            "ensure_resource_availability",
            Family::Inputs,
            Level::Must,
            "a resource the run created reads back (2xx) with the plain values it was created or updated with (inferred create → read → update chains; --allow-writes)",
            "fixed: MUST, a create that answered a success has stored what it says it stored",
        ),
        row(
            Check::UseAfterFree,
            "use_after_free",
            Family::Inputs,
            Level::Must,
            "after a delete that answered a success, a read of the same resource is refused (4xx), not served (inferred create → delete → read chains; --allow-writes)",
            "fixed: MUST, a delete that answered a success has deleted",
        ),
    ],
    derive: Some(derive),
    lacks,
    judge: None,
    settings: &[],
};

fn lacks(_: Check, _: &RunFacts<'_>) -> Option<String> {
    Some(
        "no create of the run answered with an id whose read or delete the spec has (chains need --allow-writes)"
            .into(),
    )
}

fn derive(b: &mut Builder<'_>) {
    if b.complete {
        let cases = chains(b.spec, b.contracts, b.op, b.base, b.inputs, b.pool);
        b.cases.extend(cases);
    }
}

/// The chains of `create`, whose base request is `made` (complete: the caller checked):
/// a read back, each update, a delete, the resource's other operations and what the
/// spec's `links` add, each on a resource a create of its own made.
fn chains(
    spec: &Spec,
    contracts: &Contracts,
    create: &Operation,
    made: &Base,
    inputs: &Inputs<'_>,
    pool: &Pool,
) -> Vec<Case> {
    if create.effect != Effect::Create || create.method != "POST" {
        return Vec::new();
    }
    // The new resource's key comes from the answer's field (of its first record, where it
    // answers a list), or from the `Location` header where the create declares one (the
    // runner reads its last segment).
    let located = create
        .responses
        .iter()
        .any(|r| r.status.starts_with('2') && r.location);
    let empty = serde_json::Map::new();
    let success = success_schema(spec, create);
    let listed = success
        .and_then(|s| s.get("items"))
        .and_then(|i| crate::spec::resolve(&spec.doc, i).ok());
    let Some(answered) = listed
        .or(success)
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .or(located.then_some(&empty))
    else {
        return Vec::new();
    };
    let root = format!("{}/{{", create.path.trim_end_matches('/'));
    let owned = collection(&create.path);
    // A field the answer names itself first; else the identifying field an envelope may
    // hold (`{"data": {"id": …}}` for `{bucket_id}`).
    let key = |name: &str| -> Option<String> {
        let fields = own_fields(name, &owned);
        let named = fields.iter().find(|f| answered.contains_key(*f)).cloned();
        named.or_else(|| {
            let plain = key_field(name);
            (fields.iter().any(|f| f == plain) && enveloped(spec, answered, plain))
                .then(|| plain.to_string())
        })
    };
    let member: Vec<(&Operation, String, String)> = spec
        .operations
        .iter()
        .filter(|o| o.id != create.id && !owned.is_empty())
        .filter_map(|o| {
            let name = member_param(o, create, &owned)?;
            // Under its own path, the `Location`'s last segment names it; anywhere else
            // (behind a qualifier) only a field of the answer does.
            let own = format!("{root}{name}}}");
            let under = o.path == own || o.path.starts_with(&format!("{own}/"));
            let field =
                key(&name).or_else(|| (located && under).then(|| key_field(&name).to_string()))?;
            Some((o, name, field))
        })
        .collect();
    let mut c = Chains {
        spec,
        contracts,
        create,
        made,
        inputs,
        pool,
        root: &root,
        member: &member,
        listed: listed.is_some(),
        out: Vec::new(),
    };
    let read = c.at("GET").into_iter().next();
    if let Some((get, param)) = read {
        c.read(get, param);
    }
    c.updates(read);
    for (i, (delete, param)) in c.at("DELETE").into_iter().enumerate() {
        // The first (the one under the create's own path) keeps the plain name.
        let name = match i {
            0 => "delete".to_string(),
            _ => format!("delete/{}", delete.id),
        };
        c.delete(name, delete, param, read);
    }
    c.others();
    c.linked();
    c.out
}

/// An operation on a member of the collection, with its one path parameter.
type Member<'a> = (&'a Operation, &'a str);

/// The chains of one create being made: what they are made from, and the cases so far.
struct Chains<'a> {
    spec: &'a Spec,
    contracts: &'a Contracts,
    create: &'a Operation,
    made: &'a Base,
    inputs: &'a Inputs<'a>,
    pool: &'a Pool,
    /// The create's path with the start of a member's parameter (`/items/{`).
    root: &'a str,
    /// The operations on a member of the collection, each with its one path parameter
    /// and the field of the create's answer that gives it.
    member: &'a [(&'a Operation, String, String)],
    /// Whether the create answers a list, the new resource its first record.
    listed: bool,
    out: Vec<Case>,
}

impl<'a> Chains<'a> {
    /// The operations with `method` on a member itself, the one under the create's own
    /// path (`/items/{id}`) first, then those behind a qualifier (`/items/name/{name}`).
    fn at(&self, method: &str) -> Vec<Member<'a>> {
        let mut found: Vec<Member<'a>> = self
            .member
            .iter()
            .filter(|(o, name, _)| o.method == method && self.is_member(o, name))
            .map(|(o, name, _)| (*o, name.as_str()))
            .collect();
        found.sort_by_key(|(o, name)| o.path != format!("{}{name}}}", self.root));
        found
    }

    /// The path values the create is sent with: its members are addressed with them.
    fn parents(&self) -> Vec<(String, Value)> {
        let own: Vec<&str> = path_params(self.create).collect();
        self.made
            .params
            .iter()
            .filter(|(n, _)| own.contains(&n.as_str()))
            .cloned()
            .collect()
    }

    /// Whether `o` addresses a member itself, not one of its sub-paths.
    fn is_member(&self, o: &Operation, name: &str) -> bool {
        o.path
            .trim_end_matches('/')
            .ends_with(&format!("{{{name}}}"))
    }

    /// The field of the create's answer that gives path parameter `param`.
    fn key(&self, param: &str) -> String {
        self.member
            .iter()
            .find(|(_, name, _)| name == param)
            .map_or_else(|| key_field(param).to_string(), |(_, _, f)| f.clone())
    }

    /// A chain's create, capturing the new resource's key at `pointer`. Each chain makes a
    /// resource of its own: a generated body is made again for each (a name the target
    /// keeps unique would otherwise clash with the chain before).
    fn setup_at(&self, salt: &str, pointer: String) -> Step {
        let (create, made) = (self.create, self.made);
        let body = match (&create.body, made.generated) {
            (Some(decl), true) => self
                .inputs
                .creating_body(&format!("{}/{salt}", create.id), decl)
                .ok(),
            _ => None,
        }
        .or_else(|| made.body.clone());
        // Its references point at records the target holds, as the create's own cases'
        // do: a made-up `flow_id` would have the create refused and the chain end there.
        // A field the target refused an earlier create for lacking gets a value of the
        // chain's own (an id or a name the target wants given).
        let body = body.map(|mut v| {
            if let (Value::Object(m), Some(decl)) = (&mut v, &create.body) {
                self.pool.fill_references(m, &decl.schema);
            }
            for path in self.pool.required_by_target(&create.id) {
                // The chain's own: its salt and the run's seed (FNV-1a in `seed_for`).
                let own = self.inputs.seed_for(&format!("{}/{salt}", create.id));
                let own = format!("conformance-{:08x}", own & 0xffff_ffff);
                set_if_absent(&mut v, path, Value::String(own));
            }
            v
        });
        Step {
            request: request(create, made.params.clone(), body, AuthMode::Token),
            expect: Expect::Observe,
            capture: vec![(CREATED.to_string(), pointer)],
            asserts: Vec::new(),
        }
    }

    /// A chain's create, capturing the key of the member parameter `param`.
    fn setup(&self, salt: &str, param: &str) -> Step {
        self.setup_at(salt, self.key_pointer(param))
    }

    /// Where the create's answer holds the key of path parameter `param`.
    fn key_pointer(&self, param: &str) -> String {
        let first = if self.listed { "/0" } else { "" };
        format!("{first}/{}", self.key(param))
    }

    /// A chain's create for a chain on `param` that reads the resource back through
    /// `read`'s parameter: where that is another one, its key is captured too (as
    /// [`created_as`] names it), so the read addresses the same resource.
    fn setup_read_by(&self, salt: &str, param: &str, read: Option<Member<'a>>) -> Step {
        let mut step = self.setup(salt, param);
        if let Some((_, other)) = read.filter(|(_, other)| *other != param) {
            step.capture
                .push((created_as(other), self.key_pointer(other)));
        }
        step
    }

    /// A step of `op` on the chain's resource (bound as `param`).
    fn on(&self, op: &Operation, param: &str, expect: Expect, asserts: Vec<Assertion>) -> Step {
        self.on_as(op, param, CREATED, expect, asserts)
    }

    /// A step reading the resource back through `read`'s parameter, in a chain on
    /// `param` (see [`Chains::setup_read_by`]).
    fn read_by(
        &self,
        read: Member<'a>,
        param: &str,
        expect: Expect,
        asserts: Vec<Assertion>,
    ) -> Step {
        let (get, by) = read;
        let var = if by == param {
            CREATED.to_string()
        } else {
            created_as(by)
        };
        self.on_as(get, by, &var, expect, asserts)
    }

    /// A step of `op` on the chain's resource, `param` bound to the variable `var`.
    fn on_as(
        &self,
        op: &Operation,
        param: &str,
        var: &str,
        expect: Expect,
        asserts: Vec<Assertion>,
    ) -> Step {
        let (params, body) = self.created_base_as(op, param, var);
        Step {
            request: request(op, params, body, AuthMode::Token),
            expect,
            capture: Vec::new(),
            asserts,
        }
    }

    /// The parameters and body of a request of `op` on the resource the chain created.
    fn created_base(&self, op: &Operation, param: &str) -> (Vec<(String, Value)>, Option<Value>) {
        self.created_base_as(op, param, CREATED)
    }

    /// [`Chains::created_base`] with `param` bound to the variable `var`.
    fn created_base_as(
        &self,
        op: &Operation,
        param: &str,
        var: &str,
    ) -> (Vec<(String, Value)>, Option<Value>) {
        created_base(
            self.pool,
            self.contracts,
            op,
            (param, &self.key(param), var),
            &self.parents(),
            self.inputs,
        )
    }

    /// Adds the chain `name` of `operation`, judged under `check`.
    fn push(&mut self, name: String, operation: &Operation, check: Check, steps: Vec<Step>) {
        self.out.push(Case {
            id: format!("{}/chain/{name}", self.create.id),
            operation: operation.id.clone(),
            check: check.into(),
            level: Level::Must,
            steps,
            serial: true,
            skip: None,
            requires: Vec::new(),
            cap: None,
        });
    }

    /// What the create stored reads back.
    fn read(&mut self, get: &Operation, param: &str) {
        let made = self.setup("read", param);
        let asserts = read_back(self.spec, get, json_of(&made).as_ref());
        let step = self.on(get, param, Expect::Success, asserts);
        self.push(
            "read".into(),
            get,
            Check::ResourceAvailability,
            vec![made, step],
        );
    }

    /// Each update of a member, and where the member can be read, what it set (and what
    /// it left alone) reads back.
    fn updates(&mut self, read: Option<Member<'a>>) {
        let updates: Vec<Member<'a>> = self
            .member
            .iter()
            .filter(|(o, name, _)| {
                matches!(o.method.as_str(), "PATCH" | "PUT") && self.is_member(o, name)
            })
            .map(|(o, name, _)| (*o, name.as_str()))
            .collect();
        for (update, param) in updates {
            // A body the spec's example or a contract file gives is one the update must
            // accept, and what it sets must then read back; a generated one may be
            // refused for reasons of the target's own, so its answer is only observed,
            // and what it set must read back only where the target took it.
            let given = !base(update, self.contracts, self.pool, self.inputs, false).generated;
            let expect = if given {
                Expect::Success
            } else {
                Expect::Observe
            };
            let step = self.on(update, param, expect, Vec::new());
            let made = self.setup_read_by(&update.id, param, read);
            let unchanged = untouched(json_of(&made), json_of(&step), &update.method);
            let mut steps = vec![made, step.clone()];
            if let Some(read @ (get, _)) = read {
                // What the update did not name must read back as the create stored it,
                // whether the update went through or not (a PATCH changes what it says
                // and nothing else); what it named, where it had to go through.
                let mut asserts = read_back(self.spec, get, unchanged.as_ref());
                // A generated update's numbers are left out: a value the harness made up
                // may land in a counter the target moves by itself (Prefect's
                // `active_slots` decays by `slot_decay_per_second` between the update and
                // the read).
                asserts.extend(
                    read_back(self.spec, get, json_of(&step).as_ref())
                        .into_iter()
                        .filter(|a| {
                            given || !matches!(&a.kind, AssertKind::Equals(v) if v.is_number())
                        })
                        .map(|a| Assertion {
                            after_success: !given,
                            ..a
                        }),
                );
                steps.push(self.read_by(read, param, Expect::Success, asserts));
            }
            self.push(
                format!("update/{}", update.id),
                update,
                Check::ResourceAvailability,
                steps,
            );
        }
    }

    /// A delete, and where the member can be read, a read after it that must be refused.
    fn delete(&mut self, name: String, delete: &Operation, param: &str, read: Option<Member<'a>>) {
        let mut steps = vec![
            self.setup_read_by("delete", param, read),
            self.on(delete, param, Expect::Success, Vec::new()),
        ];
        if let Some(read) = read {
            let gone = Expect::Rejected {
                status: None,
                body: None,
            };
            steps.push(self.read_by(read, param, gone, Vec::new()));
        }
        self.push(name, delete, Check::UseAfterFree, steps);
    }

    /// The resource's other operations (`/flows/{id}/set_state`, `/flows/{id}/graph`):
    /// each reached with a resource that exists, its answer observed.
    fn others(&mut self) {
        let others: Vec<Member<'a>> = self
            .member
            .iter()
            .filter(|(o, name, _)| !self.is_member(o, name))
            .map(|(o, name, _)| (*o, name.as_str()))
            .collect();
        for (other, param) in others {
            let step = self.on(other, param, Expect::Observe, Vec::new());
            let setup = self.setup(&other.id, param);
            self.push(
                other.id.clone(),
                other,
                Check::PositiveDataAcceptance,
                vec![setup, step],
            );
            self.extremes(other, param);
        }
    }

    /// `other` with a value at an edge of its schema, each on a resource of its own:
    /// these operations are reached only here (they address a resource that must exist),
    /// and the edges find the most server errors.
    fn extremes(&mut self, other: &Operation, param: &str) {
        let inputs = self.inputs;
        let (params, body) = self.created_base(other, param);
        for (at, params, body) in extremes(other, &params, body.as_ref(), inputs)
            .into_iter()
            .take(inputs.max_examples)
        {
            let salt = format!("{}/extreme/{at}", other.id);
            let step = Step {
                request: request(other, params, body, AuthMode::Token),
                expect: Expect::Observe,
                capture: Vec::new(),
                asserts: Vec::new(),
            };
            let setup = self.setup(&salt, param);
            self.push(
                salt,
                other,
                Check::PositiveDataAcceptance,
                vec![setup, step],
            );
        }
    }

    /// What the spec's own `links` add: an operation the create's answer names by a
    /// runtime expression (`$response.body#/id`), reached with that value even where its
    /// path does not sit under the create's.
    fn linked(&mut self) {
        for (linked, param, pointer) in links(self.spec, self.create) {
            if self.member.iter().any(|(o, _, _)| o.id == linked.id) {
                continue;
            }
            let step = self.on(linked, &param, Expect::Observe, Vec::new());
            let salt = format!("link/{}", linked.id);
            let setup = self.setup_at(&salt, pointer);
            self.push(
                salt,
                linked,
                Check::PositiveDataAcceptance,
                vec![setup, step],
            );
        }
    }
}

/// Sets the field at `path` of `body` to `value` where its parent object is there and
/// the field is not.
fn set_if_absent(body: &mut Value, path: &[String], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let parent = parents.iter().try_fold(body, |v, k| v.get_mut(k));
    if let Some(Value::Object(m)) = parent {
        m.entry(last.clone()).or_insert(value);
    }
}

/// The JSON body a step sends, when it sends one.
fn json_of(step: &Step) -> Option<Value> {
    match &step.request.body {
        Some(crate::case::BodyTemplate::Json(v)) => Some(v.clone()),
        _ => None,
    }
}

/// The operations the 2xx answers of `create` link to (OpenAPI `links`, by `operationId`
/// or `operationRef`), each with the one path parameter a `$response.body#/…` expression
/// fills and that pointer. A link that fills no path parameter from the body, or names
/// no operation of the spec, adds nothing.
fn links<'s>(spec: &'s Spec, create: &Operation) -> Vec<(&'s Operation, String, String)> {
    let mut out = Vec::new();
    for link in create
        .responses
        .iter()
        .filter(|r| r.status.starts_with('2'))
        .flat_map(|r| &r.links)
    {
        let Some(target) = spec.link_target(link) else {
            continue;
        };
        let filled = link.parameters.iter().find_map(|(name, expr)| {
            let pointer = expr.as_str()?.strip_prefix("$response.body#")?;
            target
                .params
                .iter()
                .any(|p| p.name == *name && p.location == Location::Path)
                .then(|| (name.clone(), pointer.to_string()))
        });
        if let Some((param, pointer)) = filled {
            out.push((target, param, pointer));
        }
    }
    out
}

/// The parameters and body of a request of `op` on the resource the chain created:
/// `param` names it (by the answer's field `key`, captured as `var`), and `parents` are
/// the path values its create was sent with.
fn created_base(
    pool: &Pool,
    contracts: &Contracts,
    op: &Operation,
    (param, key, var): (&str, &str, &str),
    parents: &[(String, Value)],
    inputs: &Inputs<'_>,
) -> (Vec<(String, Value)>, Option<Value>) {
    let mut b = base(op, contracts, pool, inputs, false);
    b.params
        .retain(|(n, _)| n != param && !parents.iter().any(|(p, _)| p == n));
    b.params.extend(parents.iter().cloned());
    // An update of the resource itself keeps the field it is addressed by: one that
    // renamed it would leave the chain's later steps, and the removal, addressing
    // nothing. (A sub-resource's create under it names a record of its own.)
    let itself = op
        .path
        .trim_end_matches('/')
        .ends_with(&format!("{{{param}}}"));
    if itself
        && matches!(op.method.as_str(), "PUT" | "PATCH")
        && let Some(Value::Object(m)) = &mut b.body
        && let Some(v) = m.get_mut(key)
        && v.is_string()
    {
        *v = Value::String(format!("${{{var}}}"));
    }
    b.params
        .push((param.to_string(), Value::String(format!("${{{var}}}"))));
    (b.params, b.body)
}

/// The path parameter by which `o` addresses a member of `create`'s collection `owned`:
/// its one path parameter that is not one of the create's own (a member of a
/// sub-collection, `/buckets/{bucket_id}/collections/{id}` for `POST
/// /buckets/{bucket_id}/collections`), a member of `owned` by the rules of
/// [`crate::identity`] (`/flows/{id}`, `/flows/name/{name}`, `/flows/{id}/set_state`).
fn member_param(o: &Operation, create: &Operation, owned: &str) -> Option<String> {
    let own: Vec<&str> = path_params(create).collect();
    let mut more = path_params(o).filter(|p| !own.contains(p));
    let name = more.next()?;
    if more.next().is_some() || own.iter().any(|p| !o.path.contains(&format!("{{{p}}}"))) {
        return None;
    }
    (member_of(&o.path, name)? == owned).then(|| name.to_string())
}

fn path_params(op: &Operation) -> impl Iterator<Item = &str> {
    op.params
        .iter()
        .filter(|p| p.location == Location::Path)
        .map(|p| p.name.as_str())
}

/// Whether a create's answer wraps its record in an envelope that has (or may have) the
/// key: a property whose schema is an object naming `key`, or open to properties it does
/// not name (`{"data": {…}, "permissions": {…}}`). The runner reads the key inside it.
fn enveloped(spec: &Spec, answered: &serde_json::Map<String, Value>, key: &str) -> bool {
    answered.values().any(|v| {
        let Ok(s) = crate::spec::resolve(&spec.doc, v) else {
            return false;
        };
        let object = s.get("type").and_then(Value::as_str) == Some("object")
            || s.get("properties").is_some();
        let names = s
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key(key));
        let open = s.get("additionalProperties") != Some(&Value::Bool(false));
        object && (names || open)
    })
}

/// The success schema of `op` (first 2xx with a JSON schema), `$ref`s at its top followed.
fn success_schema<'s>(spec: &'s Spec, op: &'s Operation) -> Option<&'s Value> {
    op.responses
        .iter()
        .filter(|r| r.status.starts_with('2'))
        .flat_map(|r| r.content.iter())
        .find_map(|(_, s)| s.as_ref())
        .and_then(|s| crate::spec::resolve(&spec.doc, s).ok())
}

/// The field of a created resource that a path parameter names it by: `{id}`,
/// `{flow_id}` and `{id_or_name}` its `id`, `{name}` and `{work_pool_name}` its `name`, else the field of the
/// parameter's own name.
fn key_field(param: &str) -> &str {
    if param == "id" || param.ends_with("_id") || param.starts_with("id_") {
        "id"
    } else if param == "name" || param.ends_with("_name") {
        "name"
    } else {
        param
    }
}

/// What a create sent that an update leaves alone: the create's body without the fields
/// the update's body names. Only for a `PATCH`, which changes what it names; a `PUT`
/// replaces the resource, and a field it leaves out may rightly go back to its default.
fn untouched(created: Option<Value>, update: Option<Value>, method: &str) -> Option<Value> {
    let (Some(Value::Object(mut kept)), "PATCH") = (created, method) else {
        return None;
    };
    if let Some(Value::Object(named)) = update {
        kept.retain(|field, _| !named.contains_key(field));
    }
    Some(Value::Object(kept))
}

/// Assertions that each plain value `sent` set at its top level reads back from `get`.
fn read_back(spec: &Spec, get: &Operation, sent: Option<&Value>) -> Vec<Assertion> {
    let (Some(Value::Object(sent)), Some(props)) = (
        sent,
        success_schema(spec, get)
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (field, value) in sent {
        let Some(schema) = props
            .get(field)
            .and_then(|s| crate::spec::resolve(&spec.doc, s).ok())
        else {
            continue;
        };
        let flag = |k: &str| schema.get(k).and_then(Value::as_bool) == Some(true);
        let declared = schema.get("type").and_then(Value::as_str);
        let plain = match value {
            Value::String(s) => {
                declared == Some("string") && schema.get("format").is_none() && !s.contains("${")
            }
            Value::Bool(_) => declared == Some("boolean"),
            // Only an integer field: `0` read back as `0.0` is the same number.
            Value::Number(n) => declared == Some("integer") && (n.is_i64() || n.is_u64()),
            _ => false,
        };
        if plain && !flag("readOnly") && !flag("writeOnly") {
            out.push(Assertion {
                pointer: format!("/{}", field.replace('~', "~0").replace('/', "~1")),
                kind: AssertKind::Equals(value.clone()),
                after_success: false,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::case::{BodyTemplate, Expect};
    use crate::contracts::Contracts;
    use crate::effect::Permissions;
    use crate::plan::{PlanOptions, derive};
    use crate::registry::Check;
    use crate::safety::Gate;
    use crate::spec::Spec;

    /// The cases of `spec` with no contracts, no observed refusal and this seed and budget.
    fn plan(spec: &Spec, seed: u64, max_examples: usize) -> Vec<crate::case::Case> {
        derive(
            spec,
            &Contracts::default(),
            PlanOptions {
                seed,
                auth_refusal: None,
                max_examples,
                made_up: false,
            },
        )
    }

    const SPEC: &str = r##"
openapi: 3.1.0
info: {title: things, version: "1"}
paths:
  /things/:
    post:
      operationId: create_thing
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/ThingCreate"}
      responses:
        "201": {description: made, content: {application/json: {schema: {$ref: "#/components/schemas/Thing"}}}}
  /things/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string, format: uuid}}]
    get:
      operationId: read_thing
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Thing"}}}}
    patch:
      operationId: update_thing
      requestBody:
        content: {application/json: {schema: {type: object, properties: {label: {type: string}}}}}
      responses: {"204": {description: done}}
    delete:
      operationId: delete_thing
      responses: {"204": {description: gone}}
  /things/{id}/archive:
    post:
      operationId: archive_thing
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: archived}}
components:
  schemas:
    ThingCreate:
      type: object
      required: [label, count, at]
      properties:
        label: {type: string, minLength: 1, maxLength: 20}
        count: {type: integer, minimum: 0}
        at: {type: string, format: date-time}
    Thing:
      type: object
      properties:
        id: {type: string, format: uuid, readOnly: true}
        label: {type: string}
        count: {type: integer}
        at: {type: string, format: date-time}
"##;

    #[test]
    fn members_behind_a_qualifier_and_under_a_list_answer_chain_too() {
        const NAMED: &str = r##"
openapi: 3.1.0
info: {title: named, version: "1"}
components:
  schemas:
    Var: {type: object, properties: {id: {type: string}, name: {type: string}}}
    Slot: {type: object, properties: {id: {type: string}}}
paths:
  /vars/:
    post:
      operationId: create_var
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, properties: {name: {type: string}, value: {type: integer}}}}}
      responses: {"201": {description: made, content: {application/json: {schema: {$ref: "#/components/schemas/Var"}}}}}
  /vars/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get: {operationId: read_var, responses: {"200": {description: ok}}}
    delete: {operationId: delete_var, responses: {"204": {description: gone}}}
  /vars/name/{name}:
    parameters: [{name: name, in: path, required: true, schema: {type: string}}]
    patch:
      operationId: update_var_by_name
      requestBody: {content: {application/json: {schema: {type: object, properties: {value: {type: string}}}}}}
      responses: {"200": {description: ok}}
    delete: {operationId: delete_var_by_name, responses: {"204": {description: gone}}}
  /vars/{id}/slots:
    parameters: [{name: id, in: path, required: true, schema: {type: string}, example: v1}]
    post:
      operationId: create_slots
      requestBody:
        required: true
        content: {application/json: {schema: {type: array, items: {type: object, properties: {at: {type: integer}}}}}}
      responses:
        "201": {description: made, content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Slot"}}}}}
  /vars/{id}/slots/{slot_id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
      - {name: slot_id, in: path, required: true, schema: {type: string}}
    delete: {operationId: delete_slot, responses: {"204": {description: gone}}}
"##;
        let spec = Spec::parse(NAMED).unwrap();
        let cases = plan(&spec, 1, 1);
        let chain = |id: &str| {
            cases
                .iter()
                .find(|c| c.id == id)
                .unwrap_or_else(|| panic!("no {id}"))
        };
        // The one under the create's own path keeps the plain name.
        assert_eq!(chain("create_var/chain/delete").operation, "delete_var");
        let by_name = chain("create_var/chain/delete/delete_var_by_name");
        // Addressed by the `name` the create answered, which its create gave though the
        // schema lets it out.
        assert_eq!(by_name.steps[0].capture[0].1, "/name");
        let sent = super::json_of(&by_name.steps[0]).unwrap();
        assert!(sent["name"].is_string(), "{sent}");
        assert!(
            cases
                .iter()
                .any(|c| c.id == "create_var/chain/update/update_var_by_name")
        );
        // A create answering a list: its first record's key.
        let slot = chain("create_slots/chain/delete");
        assert_eq!(slot.steps[0].capture[0].1, "/0/id");
        // An empty list would make nothing to go on with.
        let sent = super::json_of(&slot.steps[0]).unwrap();
        assert_eq!(sent.as_array().map(Vec::len), Some(1), "{sent}");
    }

    #[test]
    fn an_update_setting_the_name_the_create_had_is_read_back_with_it() {
        const RENAMED: &str = r##"
openapi: 3.1.0
info: {title: renamed, version: "1"}
components:
  schemas:
    Run: {type: object, properties: {id: {type: string}, name: {type: string}}}
paths:
  /runs/:
    post:
      operationId: create_run
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [size], properties: {size: {type: integer}, name: {type: string, examples: [my-run]}}}}}
      responses: {"201": {description: made, content: {application/json: {schema: {$ref: "#/components/schemas/Run"}}}}}
  /runs/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get:
      operationId: read_run
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Run"}}}}}
    patch:
      operationId: update_run
      requestBody:
        content: {application/json: {schema: {type: object, properties: {name: {type: string, examples: [my-run]}}}}}
      responses: {"204": {description: done}}
"##;
        let spec = Spec::parse(RENAMED).unwrap();
        let cases = plan(&spec, 1, 1);
        let update = cases
            .iter()
            .find(|c| c.id == "create_run/chain/update/update_run")
            .expect("the update chain");
        let created = super::json_of(&update.steps[0]).unwrap();
        let set = super::json_of(&update.steps[1]).unwrap();
        // The create's name (the schema's example, given though optional) is the case's
        // own; the update sets the plain one, and the read after it expects what the
        // update set.
        assert_ne!(created["name"], set["name"], "{created} {set}");
        let read = &update.steps[2].asserts;
        assert!(
            read.iter().any(|a| a.pointer == "/name"
                && matches!(&a.kind, crate::case::AssertKind::Equals(v) if *v == set["name"])),
            "{read:?}"
        );
    }

    #[test]
    fn a_create_that_answers_only_a_location_header_still_chains() {
        const LOCATED: &str = r##"
openapi: 3.1.0
info: {title: located, version: "1"}
paths:
  /notes:
    post:
      operationId: create_note
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [text], properties: {text: {type: string}}}}}
      responses:
        "201":
          description: made
          headers: {Location: {schema: {type: string}}}
  /notes/{note_id}:
    parameters: [{name: note_id, in: path, required: true, schema: {type: string}}]
    get:
      operationId: read_note
      responses: {"200": {description: ok}}
    delete:
      operationId: delete_note
      responses: {"204": {description: gone}}
"##;
        let spec = Spec::parse(LOCATED).unwrap();
        let cases = plan(&spec, 1, 1);
        let chains: Vec<&str> = cases
            .iter()
            .filter(|c| c.id.contains("/chain/"))
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(
            chains,
            ["create_note/chain/read", "create_note/chain/delete"]
        );
        // Without the header the answer names nothing to chain on.
        let bare = Spec::parse(&LOCATED.replace(
            "          headers: {Location: {schema: {type: string}}}\n",
            "",
        ))
        .unwrap();
        let cases = plan(&bare, 1, 1);
        assert!(!cases.iter().any(|c| c.id.contains("/chain/")));
    }

    #[test]
    fn a_link_of_the_create_answer_chains_an_operation_the_paths_do_not_relate() {
        let spec = Spec::parse(
            r##"
openapi: 3.1.0
info: {title: linked, version: "1"}
paths:
  /orders:
    post:
      operationId: place_order
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [item], properties: {item: {type: string}}}}}
      responses:
        "201":
          description: placed
          content: {application/json: {schema: {type: object, properties: {ref: {type: string}}}}}
          links:
            track: {operationId: track_shipment, parameters: {path.ref: "$response.body#/ref"}}
            nowhere: {operationId: no_such_operation, parameters: {ref: "$response.body#/ref"}}
  /shipments/{ref}:
    get:
      operationId: track_shipment
      parameters: [{name: ref, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: where it is}}
"##,
        )
        .unwrap();
        let cases = plan(&spec, 1, 1);
        let chain = cases
            .iter()
            .find(|c| c.id == "place_order/chain/link/track_shipment")
            .expect("the link is chained");
        assert_eq!(
            chain.steps[0].capture,
            [(super::CREATED.to_string(), "/ref".to_string())]
        );
        assert_eq!(
            chain.steps[1].request.params,
            [("ref".to_string(), serde_json::json!("${chain_created_id}"))]
        );
        assert_eq!(cases.iter().filter(|c| c.id.contains("/chain/")).count(), 1);
    }

    /// Updated and deleted by one key, read by another: the read after each addresses
    /// the resource the same create made by the key the read takes.
    #[test]
    fn a_resource_updated_by_name_is_read_back_by_its_id() {
        let spec = Spec::parse(
            r##"
openapi: 3.1.0
info: {title: keyed, version: "1"}
paths:
  /vars/:
    post:
      operationId: create_var
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [name], properties: {name: {type: string}, value: {type: string}}}}}
      responses:
        "201":
          description: made
          content: {application/json: {schema: {type: object, properties: {id: {type: string}, name: {type: string}, value: {type: string}}}}}
  /vars/{id}:
    get:
      operationId: read_var
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: it
          content: {application/json: {schema: {type: object, properties: {id: {type: string}, name: {type: string}, value: {type: string}}}}}
        "404": {description: gone}
  /vars/name/{name}:
    patch:
      operationId: update_var_by_name
      parameters: [{name: name, in: path, required: true, schema: {type: string}}]
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, properties: {value: {type: string}}}}}
      responses: {"204": {description: updated}}
    delete:
      operationId: delete_var_by_name
      parameters: [{name: name, in: path, required: true, schema: {type: string}}]
      responses: {"204": {description: deleted}}
"##,
        )
        .unwrap();
        let cases = plan(&spec, 1, 1);
        for id in [
            "create_var/chain/update/update_var_by_name",
            "create_var/chain/delete",
        ] {
            let chain = cases
                .iter()
                .find(|c| c.id == id)
                .unwrap_or_else(|| panic!("{id} is chained"));
            assert_eq!(
                chain.steps[0].capture,
                [
                    (super::CREATED.to_string(), "/name".to_string()),
                    (super::created_as("id"), "/id".to_string()),
                ],
                "{id}"
            );
            assert_eq!(
                chain.steps[1].request.params,
                [("name".to_string(), serde_json::json!("${chain_created_id}"))],
                "{id}"
            );
            assert_eq!(chain.steps[2].request.op, "read_var", "{id}");
            assert_eq!(
                chain.steps[2].request.params,
                [(
                    "id".to_string(),
                    serde_json::json!("${chain_created_id.id}")
                )],
                "{id}"
            );
        }
        // The read chain is on `id` alone.
        let read = cases
            .iter()
            .find(|c| c.id == "create_var/chain/read")
            .unwrap();
        assert_eq!(
            read.steps[0].capture,
            [(super::CREATED.to_string(), "/id".to_string())]
        );
    }

    #[test]
    fn a_generated_update_reads_back_what_it_set_only_where_it_went_through() {
        let spec = Spec::parse(SPEC).unwrap();
        let cases = plan(&spec, 3, 2);
        let update = cases
            .iter()
            .find(|c| c.id == "create_thing/chain/update/update_thing")
            .unwrap();
        assert!(matches!(update.steps[1].expect, Expect::Observe));
        let flags: Vec<(String, bool)> = update.steps[2]
            .asserts
            .iter()
            .map(|a| (a.pointer.clone(), a.after_success))
            .collect();
        // What the update named, only where it answered 2xx; what it did not, always.
        assert!(flags.contains(&("/label".to_string(), true)), "{flags:?}");
        assert!(flags.contains(&("/count".to_string(), false)), "{flags:?}");
    }

    #[test]
    fn an_update_whose_body_the_spec_gives_must_succeed_and_read_back() {
        let with_example = SPEC.replace(
            "content: {application/json: {schema: {type: object, properties: {label: {type: string}}}}}",
            "content: {application/json: {schema: {type: object, properties: {label: {type: string}}}, example: {label: renamed}}}",
        );
        assert_ne!(with_example, SPEC);
        let spec = Spec::parse(&with_example).unwrap();
        let cases = plan(&spec, 3, 2);
        let update = cases
            .iter()
            .find(|c| c.id == "create_thing/chain/update/update_thing")
            .unwrap();
        assert!(matches!(update.steps[1].expect, Expect::Success));
        // What the update set reads back, and what it did not name is as the create left
        // it.
        let asserts: Vec<(String, String)> = update.steps[2]
            .asserts
            .iter()
            .map(|a| (a.pointer.clone(), format!("{:?}", a.kind)))
            .collect();
        assert!(
            asserts
                .iter()
                .any(|(p, k)| p == "/label" && k.contains("renamed")),
            "{asserts:?}"
        );
        assert!(asserts.iter().any(|(p, _)| p == "/count"), "{asserts:?}");
    }

    #[test]
    fn a_create_chains_to_the_read_updates_delete_and_actions_of_its_own_resource() {
        let spec = Spec::parse(SPEC).unwrap();
        let mut cases = plan(&spec, 3, 2);
        let chains: Vec<_> = cases
            .iter()
            .filter(|c| c.id.contains("/chain/"))
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(
            chains,
            [
                "create_thing/chain/read",
                "create_thing/chain/update/update_thing",
                "create_thing/chain/delete",
                "create_thing/chain/archive_thing",
            ]
        );
        let read = cases
            .iter()
            .find(|c| c.id == "create_thing/chain/read")
            .unwrap();
        assert_eq!(read.operation, "read_thing");
        assert_eq!(read.check, Check::ResourceAvailability);
        // The create's generated body; the read names what it answered.
        let Some(BodyTemplate::Json(sent)) = &read.steps[0].request.body else {
            panic!("the create sends a JSON body")
        };
        assert!(
            sent["label"].is_string() && sent["count"].is_i64(),
            "{sent}"
        );
        assert_eq!(
            read.steps[0].capture,
            [(super::CREATED.to_string(), "/id".to_string())]
        );
        assert_eq!(
            read.steps[1].request.params,
            [("id".to_string(), serde_json::json!("${chain_created_id}"))]
        );
        // Plain values read back; a date-time (a server may write it another way) does not.
        let pointers: Vec<&str> = read.steps[1]
            .asserts
            .iter()
            .map(|a| a.pointer.as_str())
            .collect();
        assert_eq!(pointers, ["/label", "/count"]);
        assert!(sent["at"].is_string(), "{sent}");
        // After a PATCH, what the create set and the PATCH did not name reads back as the
        // create stored it: the PATCH changes what it says and nothing else.
        let update = cases
            .iter()
            .find(|c| c.id == "create_thing/chain/update/update_thing")
            .unwrap();
        let Some(BodyTemplate::Json(made)) = &update.steps[0].request.body else {
            panic!("the create sends a JSON body")
        };
        let named: Vec<String> = match &update.steps[1].request.body {
            Some(BodyTemplate::Json(serde_json::Value::Object(m))) => m.keys().cloned().collect(),
            _ => Vec::new(),
        };
        // The unconditional asserts; what the update named is judged only where it went
        // through (`a_generated_update_reads_back_what_it_set_only_where_it_went_through`).
        let kept: Vec<String> = update.steps[2]
            .asserts
            .iter()
            .filter(|a| !a.after_success)
            .map(|a| a.pointer.trim_start_matches('/').to_string())
            .collect();
        let want: Vec<String> = ["label", "count"]
            .into_iter()
            .filter(|f| !named.iter().any(|n| n == f))
            .map(str::to_string)
            .collect();
        assert_eq!(kept, want, "create {made}, update names {named:?}");
        assert!(kept.contains(&"count".to_string()), "{kept:?}");
        let delete = cases
            .iter()
            .find(|c| c.id == "create_thing/chain/delete")
            .unwrap();
        assert_eq!(delete.check, Check::UseAfterFree);
        assert!(matches!(
            delete.steps[2].expect,
            Expect::Rejected { status: None, .. }
        ));

        // Each later step addresses only what its own create made: with writes allowed the
        // gate sends every chain, without them none.
        let gate = |writes| {
            Gate::new(
                &spec,
                Permissions {
                    writes,
                    destructive: false,
                    own_session: false,
                },
                &[],
            )
        };
        for c in cases.iter().filter(|c| c.id.contains("/chain/")) {
            assert_eq!(gate(true).refusal(c), None, "{}", c.id);
            assert!(gate(false).refusal(c).is_some(), "{}", c.id);
        }
        // Outside a chain, the delete of a thing no case created needs --allow-destructive.
        gate(true).apply(&mut cases);
        assert!(
            cases
                .iter()
                .filter(|c| c.operation == "delete_thing" && !c.id.contains("/chain/"))
                .all(|c| c.skip.is_some())
        );
    }
}
