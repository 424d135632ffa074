//! A small axum app of notes and its spec, for the tests of the harness as a library
//! (`tests/in_process.rs`, `tests/per_operation.rs`): a fixed app that conforms, and the
//! same app with one deliberate bug.

#![allow(dead_code)] // Each test target uses part of it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

pub const SPEC: &str = r##"
openapi: 3.1.0
info: {title: Notes, version: "1.0"}
servers: [{url: /api}]
paths:
  /notes:
    get:
      operationId: list_notes
      responses:
        "200":
          description: every note
          content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Note"}}}}
    post:
      operationId: create_note
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/NewNote"}}}
      responses:
        "201": {description: made, content: {application/json: {schema: {$ref: "#/components/schemas/Note"}}}}
        "415": {description: not JSON}
        "422": {description: not a note}
  /notes/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    get:
      operationId: read_note
      responses:
        "200": {description: one note, content: {application/json: {schema: {$ref: "#/components/schemas/Note"}}}}
        "404": {description: no such note}
        "422": {description: not a note id}
    delete:
      operationId: delete_note
      responses:
        "204": {description: gone}
        "404": {description: no such note}
        "422": {description: not a note id}
components:
  schemas:
    NewNote:
      type: object
      required: [text]
      properties: {text: {type: string, maxLength: 100}}
    Note:
      type: object
      required: [id, text]
      properties: {id: {type: integer}, text: {type: string}}
"##;

#[derive(Default)]
pub struct Notes {
    pub next: i64,
    pub notes: BTreeMap<i64, String>,
    /// The deliberate bug: answers carry `text` as a number.
    broken: bool,
}

pub type Shared = Arc<Mutex<Notes>>;

fn note(id: i64, text: &str, broken: bool) -> Value {
    if broken {
        json!({"id": id, "text": text.len()})
    } else {
        json!({"id": id, "text": text})
    }
}

fn not_an_id() -> axum::response::Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        Json(json!({"detail": "id: not an integer"})),
    )
        .into_response()
}

pub fn app(broken: bool) -> (Router, Shared) {
    let state: Shared = Arc::new(Mutex::new(Notes {
        broken,
        ..Notes::default()
    }));
    let router = Router::new()
        .route(
            "/api/notes",
            get(|State(s): State<Shared>| async move {
                let s = s.lock().unwrap();
                Json(
                    s.notes
                        .iter()
                        .map(|(id, t)| note(*id, t, s.broken))
                        .collect::<Vec<_>>(),
                )
            })
            .post(|State(s): State<Shared>, body: Result<Json<Value>, axum::extract::rejection::JsonRejection>| async move {
                let text = match body {
                    Ok(Json(v)) => match v.get("text").and_then(Value::as_str) {
                        Some(t) if t.chars().count() <= 100 && v.is_object() => t.to_string(),
                        _ => return (StatusCode::UNPROCESSABLE_ENTITY, Json(json!({"detail": "text: a string of at most 100 characters"}))).into_response(),
                    },
                    // A body that is not JSON at all is not a note either; the wrong
                    // media type is its own answer.
                    Err(axum::extract::rejection::JsonRejection::MissingJsonContentType(e)) => {
                        return (e.status(), e.body_text()).into_response();
                    }
                    Err(e) => return (StatusCode::UNPROCESSABLE_ENTITY, e.body_text()).into_response(),
                };
                let mut s = s.lock().unwrap();
                s.next += 1;
                let id = s.next;
                s.notes.insert(id, text.clone());
                (StatusCode::CREATED, Json(note(id, &text, s.broken))).into_response()
            }),
        )
        .route(
            "/api/notes/{id}",
            get(|State(s): State<Shared>, Path(id): Path<String>| async move {
                let Ok(id) = id.parse::<i64>() else {
                    return not_an_id();
                };
                let s = s.lock().unwrap();
                match s.notes.get(&id) {
                    Some(t) => Json(note(id, t, s.broken)).into_response(),
                    None => (StatusCode::NOT_FOUND, Json(json!({"detail": "no such note"}))).into_response(),
                }
            })
            .delete(|State(s): State<Shared>, Path(id): Path<String>| async move {
                let Ok(id) = id.parse::<i64>() else {
                    return not_an_id();
                };
                match s.lock().unwrap().notes.remove(&id) {
                    Some(_) => StatusCode::NO_CONTENT.into_response(),
                    None => (StatusCode::NOT_FOUND, Json(json!({"detail": "no such note"}))).into_response(),
                }
            }),
        )
        .with_state(state.clone());
    (router, state)
}
