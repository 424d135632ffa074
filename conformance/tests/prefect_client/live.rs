//! The crate the generator makes from the spec a live Prefect server serves, driven
//! against that server (issue 19's proof): copied into the generated crate as its test by
//! `tests/prefect_client.rs`, which starts Prefect and names its API in `PREFECT_API`.
//!
//! Each test reads what it wrote behind the crate's back as well (a plain `reqwest` GET,
//! the JSON text as the server sent it), so a value the crate decoded and encoded again
//! is compared with the server's own bytes, not with the crate's idea of them.

use gen_prefect::Client;
use gen_prefect::models;
use serde_json::{Value, json};

fn api() -> String {
    std::env::var("PREFECT_API").expect("PREFECT_API names the live server's API")
}

/// The crate as a careful user builds it: with the generated `RetryPolicy`, since Prefect
/// answers `503` while its database is busy (the harness's Prefect runs meet it too), and
/// such an answer says nothing about the crate.
fn client() -> Client {
    Client::builder(api())
        .retry_policy(gen_prefect::RetryPolicy::default())
        .build()
        .expect("a client")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// `GET path` sent without the crate: status and the body's text exactly as received.
async fn raw_get(path: &str) -> (u16, String) {
    let answer = reqwest::Client::new()
        .get(format!("{}{path}", api()))
        .send()
        .await
        .expect("the server answers");
    let status = answer.status().as_u16();
    (status, answer.text().await.expect("a body"))
}

/// The text of the `actions` member of an automation exactly as the server sent it
/// (a `serde_json::Value` would sort its keys).
fn raw_actions(text: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Raw<'a> {
        #[serde(borrow)]
        actions: &'a serde_json::value::RawValue,
    }
    let raw: Raw<'_> = serde_json::from_str(text).expect("an automation");
    raw.actions.get().to_string()
}

/// A name no other test or earlier run uses.
fn unique(prefix: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{prefix}-{nanos}")
}

/// A flow: created (Prefect answers 201 where its spec declares 200, and the crate
/// says which it was), read by id, found by a filter on its name, deleted, and then a 404
/// that is the documented error with its status.
#[test]
fn a_flow_is_created_read_filtered_and_deleted() {
    runtime().block_on(async {
        let client = client();
        let name = unique("flow");
        let created = client
            .create_flow_flows_post(None, &models::FlowCreate::new(name.clone()))
            .await
            .expect("the flow is created");
        assert_eq!(created.status().as_u16(), 201, "Prefect answers 201");
        let flow = created.into_inner();
        assert_eq!(flow.name, name);

        let read = client
            .read_flow_flows_id_get(&flow.id, None)
            .await
            .expect("the flow reads back");
        assert_eq!(read.status().as_u16(), 200);
        assert_eq!(read.body(), &flow, "what was read is what the create answered");

        let filter: models::BodyReadFlowsFlowsFilterPost = serde_json::from_value(json!({
            "flows": {"name": {"any_": [name]}}
        }))
        .expect("a filter body");
        let found = client
            .read_flows_flows_filter_post(None, Some(&filter))
            .await
            .expect("the filter answers");
        let ids: Vec<_> = found.body().iter().map(|f| f.id).collect();
        assert_eq!(ids, [flow.id], "the filter finds the flow and only it");

        let deleted = client
            .delete_flow_flows_id_delete(&flow.id, None)
            .await
            .expect("the flow is deleted");
        assert_eq!(deleted.status().as_u16(), 204);
        let gone = client
            .read_flow_flows_id_get(&flow.id, None)
            .await
            .expect_err("a deleted flow is not found");
        assert_eq!(gone.status().map(|s| s.as_u16()), Some(404), "{gone}");
    });
}

/// A variable for every kind of JSON value: each reads back as written, and the value
/// the crate decoded encodes to the server's own JSON text.
#[test]
fn variables_hold_every_kind_of_json_value() {
    runtime().block_on(async {
        let client = client();
        let values = [
            json!("text"),
            json!(42),
            json!(-7.25),
            json!(true),
            json!(null),
            json!([1, "two", null, {"three": 3}]),
            json!({"nested": {"list": [1, 2], "flag": false}, "n": 1.5}),
        ];
        for value in values {
            let name = unique("var").replace('-', "_");
            let body: models::VariableCreate =
                serde_json::from_value(json!({"name": name, "value": value}))
                    .expect("a variable body");
            assert_eq!(
                serde_json::to_value(&body).unwrap()["value"],
                value,
                "the crate writes the value as given"
            );
            let created = client
                .create_variable_variables_post(None, &body)
                .await
                .unwrap_or_else(|e| panic!("the variable holding {value} is created: {e}"));
            assert_eq!(created.status().as_u16(), 201);

            let read = client
                .read_variable_by_name_variables_name_name_get(&name, None)
                .await
                .expect("the variable reads back");
            let (_, text) = raw_get(&format!("/variables/name/{name}")).await;
            let sent: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(sent["value"], value, "the server stored the value");
            assert_eq!(
                serde_json::to_value(&read.body().value).unwrap(),
                value,
                "the decoded value encodes to what the server sent"
            );
            client
                .delete_variable_by_name_variables_name_name_delete(&name, None)
                .await
                .expect("the variable is deleted");
        }
    });
}

/// A flow run and its state: created for a flow, set running (the orchestration
/// accepts), and read back in that state.
#[test]
fn a_flow_run_is_created_and_its_state_set() {
    runtime().block_on(async {
        let client = client();
        let flow = client
            .create_flow_flows_post(None, &models::FlowCreate::new(unique("flow")))
            .await
            .expect("the flow is created")
            .into_inner();
        let run = client
            .create_flow_run_flow_runs_post(None, &models::FlowRunCreate::new(flow.id))
            .await
            .expect("the flow run is created");
        assert_eq!(run.status().as_u16(), 201);
        let run = run.into_inner();
        assert_eq!(run.flow_id, flow.id);

        let state = models::BodySetFlowRunStateFlowRunsIdSetStatePost::new(
            models::StateCreate::new(models::StateType::Running),
        );
        let set = client
            .set_flow_run_state_flow_runs_id_set_state_post(&run.id, None, &state)
            .await
            .expect("the state is set");
        assert_eq!(set.body().status, models::SetStateStatus::Accept, "{set:?}");

        let read = client
            .read_flow_run_flow_runs_id_get(&run.id, None)
            .await
            .expect("the flow run reads back");
        let (_, text) = raw_get(&format!("/flow_runs/{}", run.id)).await;
        let sent: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(sent["state"]["type"], "RUNNING");
        assert_eq!(
            serde_json::to_value(read.body()).unwrap()["state"]["type"],
            "RUNNING"
        );
        client
            .delete_flow_flows_id_delete(&flow.id, None)
            .await
            .expect("the flow is deleted");
    });
}

/// An automation with two kinds of action: read back, its actions encode to the
/// server's own JSON text byte for byte, and written again unchanged they read back the
/// same bytes (a read-modify-write that changes nothing changes nothing).
#[test]
fn an_automation_reads_back_and_writes_again_byte_for_byte() {
    runtime().block_on(async {
        let client = client();
        let body: models::AutomationCreate = serde_json::from_value(json!({
            "name": unique("automation"),
            "trigger": {
                "type": "event",
                "posture": "Reactive",
                "expect": ["prefect.flow-run.Completed"],
                "threshold": 1
            },
            "actions": [
                {"type": "do-nothing"},
                {"type": "pause-deployment", "source": "inferred"}
            ]
        }))
        .expect("an automation body");
        let created = client
            .create_automation_automations_post(None, &body)
            .await
            .expect("the automation is created");
        let id = created.body().id;

        let read = client
            .read_automation_automations_id_get(&id, None)
            .await
            .expect("the automation reads back")
            .into_inner();
        let (_, text) = raw_get(&format!("/automations/{id}")).await;
        let sent_actions = raw_actions(&text);
        assert_eq!(
            serde_json::to_string(&read.actions).unwrap(),
            sent_actions,
            "the decoded actions encode to the server's bytes"
        );
        assert!(
            sent_actions.contains(r#""source":"inferred""#),
            "{sent_actions}"
        );

        let update: models::AutomationUpdate =
            serde_json::from_value(serde_json::to_value(&read).unwrap())
                .expect("what was read is an update body");
        let written = client
            .update_automation_automations_id_put(&id, None, &update)
            .await
            .expect("the automation is written again");
        assert_eq!(written.status().as_u16(), 204);
        let (_, again) = raw_get(&format!("/automations/{id}")).await;
        assert_eq!(
            raw_actions(&again),
            sent_actions,
            "written again unchanged, the actions read back the same bytes"
        );
        client
            .delete_automation_automations_id_delete(&id, None)
            .await
            .expect("the automation is deleted");
    });
}

/// A 422 whose body is Prefect's own shape (`exception_message`, `exception_detail`),
/// not the documented `HTTPValidationError`: the status and the server's words are
/// still there, and `Display` shows them.
#[test]
fn a_refused_request_keeps_the_servers_message() {
    runtime().block_on(async {
        let body: models::VariableCreate =
            serde_json::from_value(json!({"name": "Not A Valid Name", "value": 1})).unwrap();
        let refused = client()
            .create_variable_variables_post(None, &body)
            .await
            .expect_err("Prefect refuses an upper-case variable name");
        assert_eq!(refused.status().map(|s| s.as_u16()), Some(422), "{refused}");
        let excerpt = refused.excerpt(2_000).expect("the body is kept");
        assert!(
            excerpt.contains("Variable name must only contain lowercase letters"),
            "{excerpt}"
        );
        // `Display` names the status and shows the start of what the server said.
        let shown = refused.to_string();
        assert!(
            shown.starts_with("documented error answer, status 422 Unprocessable Entity: {"),
            "{shown}"
        );
        assert!(
            shown.contains("Variable name must only contain lowercase letters"),
            "{shown}"
        );
    });
}
