//! Schemas compared by what they accept, not by where they sit or what they are called:
//! nullable wrappers, reordered and grown unions, renamed models, `{}` narrowed to a
//! type; and each answer finding judged by the old crate's own types. Each case is a
//! small spec of its own, written the way generators write it (Pydantic's `anyOf: [X,
//! null]`, its `X` → `X-Input` split), naming no real API.

use serde_json::{Value, json};
use spec_diff::finding::Ours;
use spec_diff::{Finding, Options};

/// A spec with one `GET /things` answering `Thing` and one `POST /things` taking `New`,
/// plus the given component schemas.
fn spec(schemas: Value) -> String {
    let mut all = json!({
        "Thing": {"$ref": "#/components/schemas/Body"},
        "New": {"$ref": "#/components/schemas/Body"},
    });
    for (k, v) in schemas.as_object().expect("schemas") {
        all[k] = v.clone();
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Things", "version": "1.0.0"},
        "paths": {"/things": {
            "get": {"operationId": "list", "responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}},
            "post": {"operationId": "create", "requestBody": {"required": true,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/New"}}}},
                "responses": {"204": {"description": "done"}}},
        }},
        "components": {"schemas": all},
    })
    .to_string()
}

fn wire(old: Value, new: Value) -> Vec<Finding> {
    let source = |name: &str, text: String| spec_model::Source {
        name: name.into(),
        text,
    };
    let report = spec_diff::diff(
        &source("old.json", spec(old)),
        &source("new.json", spec(new)),
        &Options::default(),
    )
    .expect("both read");
    report
        .findings
        .into_iter()
        .filter(|f| f.kind == spec_diff::rules::Kind::Wire)
        .collect()
}

fn rules(found: &[Finding]) -> Vec<&'static str> {
    found.iter().map(|f| f.rule).collect()
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

#[test]
fn a_ref_that_became_nullable_breaks_answers_only_where_the_old_field_cannot_hold_null() {
    let old = json!({
        "Body": object(json!({"when": {"$ref": "#/components/schemas/Stamp"},
                              "seen": {"$ref": "#/components/schemas/Stamp"}}), &["when"]),
        "Stamp": {"type": "string", "format": "date-time"},
    });
    let nullable = json!({"anyOf": [{"$ref": "#/components/schemas/Stamp"}, {"type": "null"}]});
    let mut new = old.clone();
    new["Body"]["properties"]["when"] = nullable.clone();
    new["Body"]["properties"]["seen"] = nullable;
    let found = wire(old, new);
    let answers: Vec<(&str, &str, Ours)> = found
        .iter()
        .filter(|f| f.rule.starts_with("response"))
        .map(|f| (f.rule, f.pointer.as_str(), f.ours))
        .collect();
    assert_eq!(
        answers,
        [
            (
                "response-became-nullable",
                "/components/schemas/Body/properties/when",
                Ours::Breaks
            ),
            (
                "response-became-nullable",
                "/components/schemas/Body/properties/seen",
                Ours::ReadsThrough
            ),
        ],
        "{found:#?}"
    );
    // The same change in what clients send admits more: a widening.
    let requests: Vec<&str> = rules(&found)
        .into_iter()
        .filter(|r| r.starts_with("request"))
        .collect();
    assert_eq!(requests, ["request-type-widened", "request-type-widened"]);
}

#[test]
fn a_union_that_only_grows_is_a_widening_whatever_the_order() {
    let old = json!({"Body": object(json!({"delay": {"anyOf": [
        {"type": "integer"}, {"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}}), &[])});
    let new = json!({"Body": object(json!({"delay": {"anyOf": [
        {"type": "integer"}, {"type": "number"}, {"type": "array", "items": {"type": "integer"}},
        {"type": "array", "items": {"type": "number"}}, {"type": "null"}]}}), &[])});
    let found = wire(old, new);
    let mut got = rules(&found);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "request-one-of-branch-added",
            "request-one-of-branch-added",
            "response-one-of-branch-added",
            "response-one-of-branch-added",
        ],
        "{found:#?}"
    );
    let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
    assert!(messages.contains(&"anyOf branch array of number was added"));
    // The old crate reads the delay as a union with a fallback: the new branches land there.
    assert!(
        found
            .iter()
            .filter(|f| f.rule.starts_with("response"))
            .all(|f| f.ours == Ours::ReadsThrough)
    );
}

#[test]
fn a_renamed_model_is_compared_with_its_old_self_and_its_real_change_named() {
    let schedule = |name: &str, bound: Option<f64>| {
        let mut interval = json!({"type": "number"});
        if let Some(b) = bound {
            interval["exclusiveMinimum"] = json!(b);
        }
        (
            name.to_owned(),
            object(
                json!({"interval": interval, "zone": {"type": "string"}}),
                &["interval"],
            ),
        )
    };
    let build = |(name, model): (String, Value)| {
        let mut schemas = json!({"Body": object(json!({"schedule": {"anyOf": [
            {"$ref": format!("#/components/schemas/{name}")}, {"type": "string"}]}}), &[])});
        schemas[name] = model;
        schemas
    };
    let found = wire(
        build(schedule("Schedule", None)),
        build(schedule("Schedule-Input", Some(0.0))),
    );
    let got: Vec<(&str, &str)> = found
        .iter()
        .map(|f| (f.rule, f.subject.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [("request-exclusive-minimum-increased", "Schedule-Input")],
        "{found:#?}"
    );
}

#[test]
fn items_of_any_value_narrowed_to_a_type_refuse_what_clients_sent() {
    let keys = |items: Value| json!({"Body": object(json!({"keys": {"type": "array", "items": items}}), &[])});
    let found = wire(keys(json!({})), keys(json!({"type": "string"})));
    let got: Vec<(&str, &str)> = found.iter().map(|f| (f.rule, f.message.as_str())).collect();
    assert_eq!(
        got,
        [("request-type-changed", "any value became string")],
        "{found:#?}"
    );
    // The other way round, an answer may now hold anything.
    let found = wire(keys(json!({"type": "string"})), keys(json!({})));
    let got: Vec<&str> = rules(&found);
    assert_eq!(got, ["response-type-changed", "request-type-widened"]);
}

#[test]
fn a_branch_that_repeats_another_is_no_new_branch() {
    let labels = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let old = json!({
        "Labels": labels,
        "Body": object(json!({"match": {"$ref": "#/components/schemas/Labels"}}), &[]),
    });
    let mut new = old.clone();
    new["Body"]["properties"]["match"] =
        json!({"anyOf": [{"$ref": "#/components/schemas/Labels"}, labels]});
    assert!(wire(old, new).is_empty());
}

#[test]
fn a_new_answer_shape_the_old_struct_cannot_hold_breaks_our_clients_too() {
    let old = json!({
        "Labels": object(json!({"name": {"type": "string"}}), &["name"]),
        "Body": object(json!({"match": {"$ref": "#/components/schemas/Labels"}}), &[]),
    });
    let mut new = old.clone();
    new["Body"]["properties"]["match"] = json!({"anyOf": [
        {"$ref": "#/components/schemas/Labels"},
        {"type": "array", "items": {"$ref": "#/components/schemas/Labels"}}]});
    let found = wire(old, new);
    let answer = found
        .iter()
        .find(|f| f.rule == "response-one-of-branch-added")
        .expect("the list branch is new in answers");
    assert_eq!(answer.ours, Ours::Breaks, "{found:#?}");
    assert_eq!(answer.message, "anyOf branch array of `Labels` was added");
}

#[test]
fn an_enum_value_added_to_an_answer_is_kept_by_the_generated_enum() {
    let kind = |values: Value| {
        json!({"Kind": {"type": "string", "enum": values},
               "Body": object(json!({"kind": {"$ref": "#/components/schemas/Kind"}}), &["kind"])})
    };
    let found = wire(kind(json!(["a", "b"])), kind(json!(["a", "b", "c"])));
    let answer = found
        .iter()
        .find(|f| f.rule == "response-enum-value-added")
        .expect("found");
    assert_eq!(answer.ours, Ours::ReadsThrough);
}

#[test]
fn an_old_spec_the_generator_refuses_leaves_answers_not_judged() {
    let old = json!({"Body": object(json!({"a": {"$ref": "#/components/schemas/Missing"},
                                           "b": {"type": "string"}}), &[])});
    let mut new = old.clone();
    new["Body"]["properties"]["c"] = json!({"type": "string"});
    let found = wire(old, new);
    let added = found
        .iter()
        .find(|f| f.rule == "response-property-added")
        .expect("found");
    assert_eq!(added.ours, Ours::NotJudged);
}

#[test]
fn a_model_wrapped_in_all_of_keeps_its_properties() {
    let repo = object(
        json!({"id": {"type": "integer"}, "name": {"type": "string"}}),
        &["id", "name"],
    );
    let old = json!({"Repo": repo, "Body": {"$ref": "#/components/schemas/Repo"}});
    let mut new = old.clone();
    new["Body"] = json!({"allOf": [{"$ref": "#/components/schemas/Repo"},
        {"type": "object", "properties": {"extra": {"type": "string"}}}]});
    let found = wire(old, new);
    let got: Vec<(&str, &str)> = found.iter().map(|f| (f.rule, f.pointer.as_str())).collect();
    assert_eq!(
        got,
        [
            (
                "response-property-added",
                "/components/schemas/Body/allOf/1/properties/extra"
            ),
            (
                "new-optional-request-property",
                "/components/schemas/Body/allOf/1/properties/extra"
            ),
        ],
        "{found:#?}"
    );
}

#[test]
fn an_enum_rewritten_as_one_of_consts_is_compared_by_its_values() {
    let kind = |schema: Value| json!({"Body": object(json!({"kind": schema}), &["kind"])});
    let old = kind(json!({"type": "string", "enum": ["a", "b"]}));
    let same = kind(
        json!({"oneOf": [{"type": "string", "enum": ["a"]}, {"type": "string", "const": "b"}]}),
    );
    assert!(wire(old.clone(), same).is_empty());
    let grown = kind(json!({"oneOf": [{"const": "a"}, {"const": "b"}, {"const": "c"}]}));
    let mut got = rules(&wire(old, grown));
    got.sort_unstable();
    assert_eq!(
        got,
        ["request-enum-value-added", "response-enum-value-added"]
    );
}

#[test]
fn required_property_sets_refuse_only_bodies_no_new_set_is_within() {
    let props = json!({"state": {"type": "string"}, "assignees": {"type": "array", "items": {"type": "string"}}});
    let old = json!({"Body": object(props.clone(), &["state"])});
    let mut either = json!({"Body": object(props.clone(), &[])});
    either["Body"]["anyOf"] = json!([{"required": ["state"]}, {"required": ["assignees"]}]);
    // A body with `state` still meets the first set: nothing is refused.
    let found = wire(old.clone(), either);
    assert!(
        !rules(&found).contains(&"request-property-became-required"),
        "{found:#?}"
    );
    let mut both = json!({"Body": object(props, &[])});
    both["Body"]["anyOf"] = json!([{"required": ["state", "assignees"]}]);
    let found = wire(old, both);
    let refused: Vec<&str> = found
        .iter()
        .filter(|f| f.rule == "request-property-became-required")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        refused,
        ["a body with only [state] is refused: one of [assignees, state] is required"]
    );
}

#[test]
fn two_inline_branches_merged_into_one_that_takes_both_remove_nothing() {
    let labels = |items: Value| json!({"type": "object", "properties": {"labels": {"type": "array", "items": items}}});
    let named =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let old =
        json!({"Body": {"oneOf": [labels(json!({"type": "string"})), labels(named.clone())]}});
    let mut richer = named;
    richer["properties"]["rationale"] = json!({"type": "string"});
    richer["properties"]["confidence"] = json!({"type": "string"});
    let new = json!({"Body": {"oneOf": [labels(json!({"oneOf": [{"type": "string"}, richer]}))]}});
    let found = wire(old, new);
    assert!(
        !rules(&found).iter().any(|r| r.ends_with("branch-removed")),
        "{found:#?}"
    );
}

#[test]
fn a_new_component_in_a_union_of_components_is_an_added_branch() {
    let event = |name: &str| {
        object(
            json!({"id": {"type": "integer"}, "event": {"type": "string"}, name: {"type": "string"}}),
            &["id", "event"],
        )
    };
    let union = |names: &[&str]| json!({"anyOf": names.iter().map(|n| json!({"$ref": format!("#/components/schemas/{n}")})).collect::<Vec<_>>()});
    let old = json!({"Labeled": event("label"), "Closed": event("commit"), "Body": union(&["Labeled", "Closed"])});
    let mut new = old.clone();
    new["Renamed"] = event("rename");
    new["Body"] = union(&["Labeled", "Closed", "Renamed"]);
    let found = wire(old, new);
    let got: Vec<(&str, &str)> = found.iter().map(|f| (f.rule, f.message.as_str())).collect();
    assert_eq!(
        got,
        [
            (
                "response-one-of-branch-added",
                "anyOf branch `Renamed` was added"
            ),
            (
                "request-one-of-branch-added",
                "anyOf branch `Renamed` was added"
            ),
        ]
    );
}

/// Webhooks (3.1's `webhooks`, 3.0's `x-webhooks`) are requests the server sends: their
/// payloads are what clients read, compared as answers are.
#[test]
fn webhook_payloads_are_read_by_clients() {
    for keyword in ["webhooks", "x-webhooks"] {
        let doc = |required: &[&str]| {
            let mut doc = json!({
                "openapi": "3.1.0",
                "info": {"title": "Hooks", "version": "1"},
                "paths": {},
                "components": {"schemas": {"Event": object(
                    json!({"id": {"type": "integer"}, "kind": {"type": "string", "enum": ["a"]}}),
                    required,
                )}},
            });
            doc[keyword] = json!({"event": {"post": {
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Event"}}}},
                "responses": {"200": {"description": "received"}},
            }}});
            doc
        };
        let mut new = doc(&[]);
        new["components"]["schemas"]["Event"]["properties"]["kind"]["enum"] = json!(["a", "b"]);
        let source = |name: &str, v: Value| spec_model::Source {
            name: name.into(),
            text: v.to_string(),
        };
        let report = spec_diff::diff(
            &source("old.json", doc(&["id"])),
            &source("new.json", new),
            &Options::default(),
        )
        .expect("both read");
        let got: Vec<(&str, &[String])> = report
            .findings
            .iter()
            .filter(|f| f.kind == spec_diff::rules::Kind::Wire)
            .map(|f| (f.rule, f.operations.as_slice()))
            .collect();
        let hook = ["WEBHOOK event".to_owned()];
        assert_eq!(
            got,
            [
                ("response-property-became-optional", &hook[..]),
                ("response-enum-value-added", &hook[..]),
            ],
            "{keyword}"
        );
    }
}

/// On the crate side a model whose schema was renamed and changed is one rename (the wire
/// findings say what changed), not a type removed and an unrelated one added.
#[test]
fn a_renamed_and_changed_model_is_a_rust_rename() {
    let build = |name: &str, bound: Option<f64>| {
        // The new one has a field more: not a twin of the old one in Rust.
        let mut properties = json!({"interval": {"type": "number"}, "zone": {"type": "string"}});
        if let Some(b) = bound {
            properties["interval"]["exclusiveMinimum"] = json!(b);
            properties["every"] = json!({"type": "integer"});
        }
        let mut schemas = json!({"Body": object(json!({"schedule": {"$ref": format!("#/components/schemas/{name}")}}), &[])});
        schemas[name] = object(properties, &["interval"]);
        spec(schemas)
    };
    let source = |name: &str, text: String| spec_model::Source {
        name: name.into(),
        text,
    };
    let report = spec_diff::diff(
        &source("old.json", build("Schedule", None)),
        &source("new.json", build("Schedule-Input", Some(0.0))),
        &Options::default(),
    )
    .expect("both read");
    let renamed: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.rule == "rust-item-renamed")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        renamed,
        [
            "struct `models::Schedule` was renamed `models::ScheduleInput` (schema `Schedule` became `Schedule-Input`; the wire findings say what changed in it)"
        ]
    );
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.rule == "rust-item-added" && f.pointer == "models::ScheduleInput")
    );
}
