//! What the mock answers when a request is valid: examples first, values generated from
//! the schema otherwise, `Prefer` choosing status, example or generation, required
//! headers sent, the declared media type.

mod common;

use common::{get, mock, send};
use serde_json::json;

#[tokio::test]
async fn the_first_named_example_is_the_default_answer_with_its_required_header() {
    let app = mock("answers.yaml").router();
    let a = get(&app, "/pets").await;
    assert_eq!(a.status, 200);
    assert_eq!(a.json(), json!([{"id": 1, "name": "Tom", "kind": "cat"}]));
    assert_eq!(a.header("content-type"), Some("application/json"));
    let limit: i64 = a
        .header("x-rate-limit")
        .expect("a required header")
        .parse()
        .unwrap();
    assert!((1..=100).contains(&limit), "{limit}");
    assert!(
        a.header("x-optional").is_none(),
        "only required headers are sent"
    );
}

#[tokio::test]
async fn prefer_picks_a_named_example_a_status_or_generation() {
    let app = mock("answers.yaml").router();
    let dogs = send(&app, "GET", "/pets", &[("prefer", "example=dogs")], "").await;
    assert_eq!(
        dogs.json(),
        json!([{"id": 2, "name": "Rex", "kind": "dog"}])
    );
    let missing = send(&app, "GET", "/pets", &[("prefer", "code=404")], "").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json(), json!({"code": 404, "message": "no pets"}));
    let undeclared = send(&app, "GET", "/pets", &[("prefer", "code=418")], "").await;
    assert_eq!(
        undeclared.status, 404,
        "Prism's answer to an undeclared code"
    );
    assert_eq!(
        undeclared.header("content-type"),
        Some("application/problem+json")
    );
    let unknown = send(&app, "GET", "/pets", &[("prefer", "example=birds")], "").await;
    assert_eq!(unknown.status, 404);
    let dynamic = send(&app, "GET", "/pets", &[("prefer", "dynamic=true")], "").await;
    assert_eq!(dynamic.status, 200);
    for pet in dynamic.json().as_array().unwrap() {
        assert!(pet["id"].as_i64().unwrap() >= 1, "{pet}");
        assert!(
            ["cat", "dog"].contains(&pet["kind"].as_str().unwrap()),
            "{pet}"
        );
    }
    assert_ne!(
        dynamic.json(),
        json!([{"id": 1, "name": "Tom", "kind": "cat"}])
    );
}

#[tokio::test]
async fn without_an_example_the_answer_is_generated_and_the_same_each_time() {
    let app = mock("answers.yaml").router();
    let a = get(&app, "/pets/3").await;
    assert_eq!(a.status, 200);
    let pet = a.json();
    assert!(pet["id"].as_i64().unwrap() >= 1, "{pet}");
    let name = pet["name"].as_str().unwrap();
    assert!((1..=20).contains(&name.chars().count()), "{pet}");
    assert_eq!(get(&app, "/pets/3").await.json(), pet, "a fixed seed");
}

#[tokio::test]
async fn the_lowest_2xx_answers_with_the_schemas_own_example() {
    let app = mock("answers.yaml").router();
    let a = get(&app, "/owner").await;
    assert_eq!((a.status, a.json()), (200, json!({"name": "Ada"})));
}

#[tokio::test]
async fn an_example_its_schema_refuses_is_passed_over() {
    let app = mock("answers.yaml").router();
    let a = get(&app, "/broken-example").await;
    assert!(a.json()["n"].is_i64(), "{}", a.text);
}

#[tokio::test]
async fn a_text_answer_is_sent_as_text() {
    let app = mock("answers.yaml").router();
    let a = get(&app, "/text").await;
    assert_eq!(
        (a.text.as_str(), a.header("content-type")),
        ("hello", Some("text/plain"))
    );
}

#[tokio::test]
async fn a_swagger_2_document_is_served_under_its_base_path() {
    let app = mock("swagger2.yaml").router();
    let a = get(&app, "/v2/pets/7").await;
    assert_eq!(a.status, 200, "{}", a.text);
    let pet = a.json();
    assert!(pet["id"].is_i64() && pet["name"].is_string(), "{pet}");
    assert_eq!(get(&app, "/v2/pets/0").await.status, 400, "minimum: 1");
    let refused = common::json(&app, "POST", "/v2/pets", &json!({"name": "no id"})).await;
    assert_eq!(refused.status, 400);
    let added = common::json(&app, "POST", "/v2/pets", &json!({"id": 1, "name": "Rex"})).await;
    assert_eq!(added.status, 201);
}

#[tokio::test]
async fn a_101_or_204_carries_no_content_whatever_its_declaration_lists() {
    let app = mock("no_content.yaml").router();
    for (method, uri, status) in [("GET", "/socket", 101), ("DELETE", "/things/1", 204)] {
        let a = send(&app, method, uri, &[], "").await;
        assert_eq!(a.status, status, "{}", a.text);
        assert_eq!((a.text.as_str(), a.header("content-type")), ("", None));
    }
}

#[tokio::test]
async fn a_refusal_declared_with_a_json_type_and_no_schema_is_problem_details_of_that_type() {
    let app = mock("no_content.yaml").router();
    let a = send(&app, "DELETE", "/things/0", &[], "").await;
    assert_eq!(a.status, 400, "{}", a.text);
    assert_eq!(a.header("content-type"), Some("application/json"));
    assert_eq!(a.json()["status"], 400, "{}", a.text);
}

#[tokio::test]
async fn an_answer_declared_under_a_media_range_is_sent_as_a_concrete_type() {
    let app = mock("no_content.yaml").router();
    let a = get(&app, "/anything").await;
    assert_eq!(
        (a.text.as_str(), a.header("content-type")),
        ("\"hello\"", Some("application/json"))
    );
    let a = get(&app, "/download").await;
    assert_eq!(
        (a.text.as_str(), a.header("content-type")),
        ("raw", Some("application/octet-stream")),
        "a binary string goes as bytes"
    );
    let a = get(&app, "/words").await;
    assert_eq!(
        (a.text.as_str(), a.header("content-type")),
        ("hello", Some("text/plain"))
    );
}
