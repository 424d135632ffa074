//! `stateful(true)`: a create is kept (request fields and the generated key), read back,
//! listed (a list body or an envelope), updated, deleted, then a 404. Stateless, the
//! same requests are answered from the schema alone.

mod common;

use common::{get, json, mock, send};
use serde_json::json;

#[tokio::test]
async fn create_read_list_update_delete_then_404() {
    let app = mock("stateful.yaml").stateful(true).router();
    let made = json(
        &app,
        "POST",
        "/pets",
        &json!({"name": "Rex", "tag": "dog", "password": "pw", "token": "t0k"}),
    )
    .await;
    assert_eq!(made.status, 201, "{}", made.text);
    let pet = made.json();
    assert!(
        !made.text.contains("pw") && !made.text.contains("t0k"),
        "write-only values are not answered: {}",
        made.text
    );
    assert_eq!((&pet["name"], &pet["tag"]), (&json!("Rex"), &json!("dog")));
    let id = pet["id"].as_str().expect("a generated key").to_owned();
    assert_eq!(
        id.len(),
        36,
        "a uuid, as the path parameter's schema says: {id}"
    );
    let other = json(&app, "POST", "/pets", &json!({"name": "Tom"}))
        .await
        .json();
    assert_ne!(other["id"], pet["id"], "each create makes its own key");

    assert_eq!(get(&app, &format!("/pets/{id}")).await.json(), pet);
    let list = get(&app, "/pets").await.json();
    assert_eq!(list, json!([pet, other]));

    let patched = json(
        &app,
        "PATCH",
        &format!("/pets/{id}"),
        &json!({"name": "Max"}),
    )
    .await;
    assert_eq!(patched.json()["name"], json!("Max"));
    assert_eq!(patched.json()["tag"], json!("dog"), "a PATCH merges");
    assert_eq!(
        get(&app, &format!("/pets/{id}")).await.json()["name"],
        json!("Max")
    );

    assert_eq!(
        send(&app, "DELETE", &format!("/pets/{id}"), &[], "")
            .await
            .status,
        204
    );
    assert_eq!(get(&app, &format!("/pets/{id}")).await.status, 404);
    assert_eq!(get(&app, "/pets").await.json(), json!([other]));
    let never = "0b4e28ba-2fa1-11d2-883f-0016d3cca427";
    assert_eq!(
        get(&app, &format!("/pets/{never}")).await.status,
        404,
        "declared 404"
    );
}

#[tokio::test]
async fn an_envelope_lists_what_was_kept_and_a_name_parameter_finds_by_name() {
    let app = mock("stateful.yaml").stateful(true).router();
    let made = json(
        &app,
        "POST",
        "/owners",
        &json!({"name": "ada", "city": "London"}),
    )
    .await;
    assert_eq!(made.status, 200);
    let list = get(&app, "/owners").await.json();
    assert_eq!(
        list["items"],
        json!([{"name": "ada", "city": "London"}]),
        "{list}"
    );
    assert!(
        list["total"].is_i64(),
        "the envelope's other fields stay generated"
    );
    // `{owner_name}` names an owner by its `name`.
    let one = get(&app, "/owners/ada").await;
    assert_eq!(one.json(), json!({"name": "ada", "city": "London"}));
    // Not kept, and no 404 declared: answered from the schema, never an undeclared status.
    assert_eq!(get(&app, "/owners/bob").await.status, 200);
    // A PUT to a member keeps the record under the path's key.
    let put = json(&app, "PUT", "/owners/carl", &json!({"city": "Paris"})).await;
    assert_eq!(put.json()["name"], json!("carl"), "{}", put.text);
    assert_eq!(
        get(&app, "/owners/carl").await.json()["city"],
        json!("Paris")
    );
    assert_eq!(
        get(&app, "/owners").await.json()["items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn stateless_nothing_is_kept() {
    let app = mock("stateful.yaml").router();
    let made = json(&app, "POST", "/pets", &json!({"name": "Rex"}))
        .await
        .json();
    let id = made["id"].as_str().unwrap();
    let read = get(&app, &format!("/pets/{id}")).await;
    assert_eq!(read.status, 200);
    assert_ne!(read.json()["name"], json!("Rex"), "{}", read.text);
    assert_eq!(
        send(&app, "DELETE", &format!("/pets/{id}"), &[], "")
            .await
            .status,
        204
    );
    assert_eq!(get(&app, &format!("/pets/{id}")).await.status, 200);
}
