//! Which operation a request reaches: literal segments before parameters, the server's
//! base path with or without it, 404 and 405 with `Allow` as problem details.

mod common;

use common::{get, send};
use serde_json::json;

fn app() -> axum::Router {
    common::mock("routing.yaml").router()
}

#[tokio::test]
async fn a_literal_segment_wins_over_a_parameter_under_the_base_path_and_without_it() {
    let app = app();
    for base in ["/api", ""] {
        let filter = send(&app, "POST", &format!("{base}/flows/filter"), &[], "").await;
        assert_eq!(filter.json(), json!("filtered"), "{base}");
        assert_eq!(
            get(&app, &format!("{base}/flows/abc")).await.json(),
            json!("one")
        );
        let create = send(&app, "POST", &format!("{base}/flows/"), &[], "").await;
        assert_eq!((create.status, create.json()), (201, json!("created")));
        let no_slash = send(&app, "POST", &format!("{base}/flows"), &[], "").await;
        assert_eq!(no_slash.status, 201, "a trailing slash is not significant");
    }
}

#[tokio::test]
async fn an_unknown_path_is_404_and_a_wrong_method_405_with_allow() {
    let app = app();
    let unknown = get(&app, "/api/nothing/here").await;
    assert_eq!(unknown.status, 404);
    assert_eq!(
        unknown.header("content-type"),
        Some("application/problem+json")
    );
    assert_eq!(unknown.json()["status"], json!(404));
    let wrong = send(&app, "PUT", "/api/flows/abc", &[], "").await;
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.header("allow"), Some("GET, DELETE"));
    assert_eq!(
        wrong.header("content-type"),
        Some("application/problem+json")
    );
}

#[test]
fn a_bad_document_names_its_node() {
    let doc = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/nope"}],
            "responses": {"200": {"description": "ok"}}}}}});
    let err = spec_mock::Mock::from_document(doc).unwrap_err().to_string();
    assert!(err.contains("/paths/~1a/get/parameters/0/$ref"), "{err}");
    let err = spec_mock::Mock::from_document(json!({"openapi": "4.0.0", "paths": {}}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("/openapi"), "{err}");
}
