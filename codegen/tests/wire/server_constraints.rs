//! The generated server of `tests/specs/server/server_constraints.yaml` on the wire: an
//! implementation that echoes what it was given, served by the generated router on
//! 127.0.0.1:0 under the spec's server path (`/api`). Each constraint kind is broken
//! alone and must get the operation's declared error answer (a 422 in the spec's
//! `ValidationErrors` shape, or a 400 as problem details where the 400 declares no
//! body) without reaching the implementation; each parameter place and style is read
//! back typed; a multipart body is read into its parts, each judged as its property.

use std::sync::{Arc, Mutex};

use gen_server_constraints::models::{GetItemColor, Item};
use gen_server_constraints::server::*;
use serde_json::{Value, json};

#[derive(Default, Clone)]
struct Echo {
    calls: Arc<Mutex<usize>>,
}

impl Echo {
    fn called(&self) {
        *self.calls.lock().unwrap() += 1;
    }
}

fn item(id: i64, name: &str, note: String) -> Item {
    serde_json::from_value(json!({"id": id, "name": name, "note": note})).unwrap()
}

impl Api for Echo {
    async fn get_item(&self, r: GetItemRequest) -> Result<GetItemResponse, Problem> {
        self.called();
        if r.id == 404 {
            return Ok(GetItemResponse::NotFound);
        }
        let note = format!(
            "color={:?} tags={:?} code={:?} since={:?} limit={:?} trace={} session={:?} range={:?} bearer={}",
            r.color.map(|c| c == GetItemColor::Green),
            r.tags,
            r.code,
            r.since.map(|d| d.to_string()),
            r.limit,
            r.x_trace,
            r.session,
            r.range.map(|g| (g.min, g.max)),
            r.credentials.bearer.is_some(),
        );
        Ok(GetItemResponse::Ok(item(r.id.into(), "thing", note)))
    }

    async fn create_item(&self, r: CreateItemRequest) -> Result<CreateItemResponse, Problem> {
        self.called();
        let (how, body) = match r.body {
            CreateItemBody::Json(b) => ("json", b),
            CreateItemBody::Form(b) => ("form", b),
        };
        let labels = body.labels.map(|l| (l.main, l.extra));
        let note = format!(
            "{how} kind={:?} price={:?} count={} nickname={:?} labels={:?}",
            body.kind, body.price, body.count, body.nickname, labels
        );
        Ok(CreateItemResponse::Created {
            body: item(1, &body.name, note),
            headers: CreateItemCreatedHeaders {
                location: Some("/api/items/1".to_owned()),
            },
        })
    }

    async fn get_file_json(&self, r: GetFileJsonRequest) -> Result<GetFileJsonResponse, Problem> {
        self.called();
        Ok(GetFileJsonResponse::Ok(format!("json file {}", r.name)))
    }

    async fn get_file(&self, r: GetFileRequest) -> Result<GetFileResponse, Problem> {
        self.called();
        Ok(GetFileResponse::Ok(axum::body::Bytes::from(format!("raw file {}", r.stem))))
    }

    async fn get_shades(&self, r: GetShadesRequest) -> Result<GetShadesResponse, Problem> {
        self.called();
        if r.shades.contains(&0) {
            let message = serde_json::from_value(json!({"message": "no shade 0"})).unwrap();
            return Ok(GetShadesResponse::Default {
                status: axum::http::StatusCode::IM_A_TEAPOT,
                body: message,
            });
        }
        Ok(GetShadesResponse::Ok(r.shades.iter().sum()))
    }

    async fn upload(&self, r: UploadRequest) -> Result<UploadResponse, Problem> {
        self.called();
        let f = r.body;
        let file = |p: &FilePart| {
            format!("{:?}/{:?}/{:?}", p.file_name, p.content_type, p.bytes.as_ref())
        };
        Ok(UploadResponse::Ok(format!(
            "title={} count={:?} kind={:?} tags={:?} file={} attachments={:?} meta={:?} parts={:?} incoming={:?}",
            f.title,
            f.count,
            f.kind.map(|k| format!("{k:?}")),
            f.tags,
            file(&f.file),
            f.attachments.iter().map(file).collect::<Vec<_>>(),
            f.meta.map(|m| m.source),
            f.parts,
            f.incoming,
        )))
    }
}

async fn serve(api: Echo) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router(api)).await.unwrap() });
    format!("http://{addr}/api")
}

const TRACE: &str = "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b";

#[tokio::test]
async fn every_place_and_style_is_read_back_typed() {
    let api = Echo::default();
    let base = serve(api.clone()).await;
    let http = reqwest::Client::new();
    let r = http
        .get(format!(
            "{base}/items/7?color=green&tags=x,y&code=ABC&since=2026-12-01&range[min]=1&range[max]=5"
        ))
        .header("X-Trace", TRACE)
        .header("Cookie", "other=1; session=abcd")
        .bearer_auth("t0k")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["id"], 7);
    assert_eq!(
        body["note"],
        format!(
            "color=Some(true) tags=Some([\"x\", \"y\"]) code=Some(\"ABC\") since=Some(\"2026-12-01\") \
             limit=Some(10) trace={TRACE} session=Some(\"abcd\") range=Some((Some(1), Some(5))) bearer=true"
        )
    );

    let r = http.get(format!("{base}/items/404")).header("X-Trace", TRACE).send().await.unwrap();
    assert_eq!(r.status(), 404, "a declared answer without a body");

    let r = http.get(format!("{base}/colors/.1.2.3")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "6", "label style, exploded");
    let r = http.get(format!("{base}/colors/.0")).send().await.unwrap();
    assert_eq!(r.status(), 418, "a `default` answer sends the status the implementation gives");
    assert_eq!(r.json::<Value>().await.unwrap()["message"], "no shade 0");

    let r = http.get(format!("{base}/files/notes.json")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/plain");
    assert_eq!(r.text().await.unwrap(), "json file notes", "text beside a parameter");
    let r = http.get(format!("{base}/files/notes")).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "application/octet-stream");
    assert_eq!(r.text().await.unwrap(), "raw file notes", "the same route to axum, the other template");

    let r = http
        .post(format!("{base}/items"))
        .json(&json!({"name": "n", "kind": "a", "version": "v1", "price": 2.5, "email": "a@b.example", "sizes": [1]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(r.headers()["location"], "/api/items/1", "the header the answer declares");
    assert_eq!(
        r.json::<Value>().await.unwrap()["note"],
        "json kind=A price=Some(2.5) count=3 nickname=None labels=None",
        "an absent field with a default is the default, an absent optional one `None`"
    );
    let r = http
        .post(format!("{base}/items"))
        .form(&[("name", "n"), ("kind", "b"), ("price", "3")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "the second media type of the body");
    assert_eq!(
        r.json::<Value>().await.unwrap()["note"],
        "form kind=B price=Some(3.0) count=3 nickname=None labels=None"
    );
    let r = http
        .post(format!("{base}/items"))
        .json(&json!({"name": "n", "kind": "a", "count": 7, "nickname": null,
                      "labels": {"main": "m", "x": "y"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(
        r.json::<Value>().await.unwrap()["note"],
        "json kind=A price=None count=7 nickname=Some(None) labels=Some((Some(\"m\"), {\"x\": \"y\"}))",
        "a sent value, an explicit null, and the properties no field names kept in the map"
    );
    let r = http
        .post(format!("{base}/items"))
        .json(&json!({"name": "n", "kind": "a", "nickname": "nick"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.json::<Value>().await.unwrap()["note"],
        "json kind=A price=None count=3 nickname=Some(Some(\"nick\")) labels=None"
    );
}

#[tokio::test]
async fn each_broken_constraint_gets_the_declared_error_answer() {
    let api = Echo::default();
    let base = serve(api.clone()).await;
    let http = reqwest::Client::new();
    let get = |query: &str| {
        http.get(format!("{base}/items/7{query}"))
            .header("X-Trace", TRACE)
    };
    let queries: Vec<(&str, reqwest::RequestBuilder)> = vec![
        ("minimum (path)", http.get(format!("{base}/items/0")).header("X-Trace", TRACE)),
        ("type (path)", http.get(format!("{base}/items/x")).header("X-Trace", TRACE)),
        ("int32 range", http.get(format!("{base}/items/3000000000")).header("X-Trace", TRACE)),
        ("enum", get("?color=blue")),
        ("minItems", get("?tags=")),
        ("maxItems", get("?tags=a,b,c,d")),
        ("pattern", get("?code=abc")),
        ("format date", get("?since=2026-13-40")),
        ("maximum", get("?limit=51")),
        ("additionalProperties: false (deepObject)", get("?range[mid]=3")),
        ("type in an object", get("?range[min]=low")),
        ("minLength (cookie)", get("").header("Cookie", "session=ab")),
        ("required header", http.get(format!("{base}/items/7"))),
        ("format uuid (header)", http.get(format!("{base}/items/7")).header("X-Trace", "nope")),
    ];
    for (what, request) in queries {
        let r = request.send().await.unwrap();
        assert_eq!(r.status(), 422, "{what}");
        assert_eq!(r.headers()["content-type"], "application/json", "{what}");
        let body: Value = r.json().await.unwrap();
        let detail = body["detail"].as_array().unwrap_or_else(|| panic!("{what}: {body}"));
        assert!(!detail.is_empty(), "{what}: {body}");
        for d in detail {
            assert!(d["loc"].is_array() && d["msg"].is_string() && d["type"].is_string(), "{what}: {body}");
        }
    }

    let valid = json!({"name": "n", "kind": "a"});
    let with = |k: &str, v: Value| {
        let mut b = valid.clone();
        b[k] = v;
        b
    };
    let bodies = [
        ("required", json!({"name": "n"})),
        ("type", with("name", json!(3))),
        ("maxLength", with("name", json!("x".repeat(11)))),
        ("minLength", with("name", json!(""))),
        ("enum", with("kind", json!("c"))),
        ("const", with("version", json!("v2"))),
        ("exclusiveMinimum", with("price", json!(0))),
        ("format email", with("email", json!("not an address"))),
        ("maxItems", with("sizes", json!([1, 2, 3]))),
        ("type of an item", with("sizes", json!(["one"]))),
        ("additionalProperties: false", with("colour", json!("red"))),
    ];
    for (what, body) in bodies {
        let r = http.post(format!("{base}/items")).json(&body).send().await.unwrap();
        assert_eq!(r.status(), 400, "{what}");
        assert_eq!(r.headers()["content-type"], "application/problem+json", "{what}: a 400 that declares no body");
        let problem: Value = r.json().await.unwrap();
        assert_eq!(problem["status"], 400, "{what}");
        assert_eq!(problem["errors"][0]["in"], "body", "{what}: {problem}");
    }
    let r = http
        .post(format!("{base}/items"))
        .form(&[("name", "n"), ("kind", "z")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a form body is judged too");
    let r = http
        .post(format!("{base}/items"))
        .header("content-type", "text/csv")
        .body("name,kind")
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        400,
        "a media type createItem does not take: its declared 400, as it declares no 415"
    );
    let r = http.get(format!("{base}/files/{}.json", "x".repeat(9))).send().await.unwrap();
    assert_eq!(r.status(), 400, "maxLength of a parameter beside text; no 4xx declared: problem details");
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    let r = http.get(format!("{base}/colors/.1.x")).send().await.unwrap();
    assert_eq!(r.status(), 400, "an item of the wrong type in a label list");

    assert_eq!(*api.calls.lock().unwrap(), 0, "no refused request reached the implementation");
}

/// The generated client's form sent to the generated server's: every part kind read back
/// typed (text as its declared type, a list from repeated parts, a JSON part decoded, a
/// file's bytes, name and type kept, not-UTF-8 bytes included).
#[tokio::test]
async fn a_multipart_body_is_read_into_its_typed_parts() {
    use gen_server_constraints::client::{FilePart as SentFile, UploadForm as SentForm};
    let base = serve(Echo::default()).await;
    let client = gen_server_constraints::Client::new(base).unwrap();
    let form = SentForm {
        title: "Holiday".to_owned(),
        count: Some(3),
        kind: serde_json::from_value(json!("scan")).unwrap(),
        tags: vec!["a".to_owned(), "b c".to_owned()],
        file: SentFile::new(vec![0x89, b'P', 0xff]).file_name("a.png").content_type("image/png"),
        attachments: vec![SentFile::new(*b"x"), SentFile::new(*b"y").file_name("y.txt")],
        parts: Some(2),
        incoming: Some("in".to_owned()),
        meta: serde_json::from_value(json!({"source": "cam"})).unwrap(),
    };
    let read = client.upload(form.clone()).await.unwrap().into_inner();
    assert_eq!(
        read,
        "title=Holiday count=Some(3) kind=Some(\"Scan\") tags=[\"a\", \"b c\"] \
         file=Some(\"a.png\")/Some(\"image/png\")/[137, 80, 255] \
         attachments=[\"None/None/[120]\", \"Some(\\\"y.txt\\\")/None/[121]\"] \
         meta=Some(\"cam\") parts=Some(2) incoming=Some(\"in\")"
    );
    let bare = SentForm {
        count: None,
        kind: None,
        tags: Vec::new(),
        attachments: Vec::new(),
        meta: None,
        parts: None,
        incoming: None,
        ..form
    };
    let read = client.upload(bare).await.unwrap().into_inner();
    assert!(
        read.contains("count=None kind=None tags=[] ")
            && read.contains("attachments=[] meta=None parts=None incoming=None"),
        "parts not sent are None or empty: {read}"
    );
}

/// Each part's constraint broken alone (and a body that is not multipart at all) gets
/// the operation's declared 400, naming the body, without reaching the implementation.
#[tokio::test]
async fn each_broken_part_gets_the_declared_error_answer() {
    use reqwest::multipart::{Form, Part};
    let api = Echo::default();
    let base = serve(api.clone()).await;
    let http = reqwest::Client::new();
    let valid = || {
        Form::new()
            .text("title", "ok")
            .part("file", Part::bytes(b"data".to_vec()).file_name("d.bin"))
    };
    let forms: Vec<(&str, Form)> = vec![
        ("required text part", Form::new().part("file", Part::bytes(b"d".to_vec()))),
        ("required file part", Form::new().text("title", "ok")),
        ("maxLength of a text part", valid().text("title", "x".repeat(11))),
        ("type of a text part", valid().text("count", "three")),
        ("minimum", valid().text("count", "0")),
        ("enum", valid().text("kind", "video")),
        ("maxItems of repeated parts", valid().text("tags", "a").text("tags", "b").text("tags", "c")),
        ("maxLength of a file", Form::new().text("title", "ok").part("file", Part::bytes(vec![b'z'; 65]))),
        ("a JSON part that is not JSON", valid().text("meta", "{source")),
        ("required inside a JSON part", valid().text("meta", "{}")),
        ("additionalProperties: false in a JSON part", valid().text("meta", r#"{"source": "a", "x": 1}"#)),
        ("a text part that is not UTF-8", valid().part("kind", Part::bytes(vec![0xff, 0xfe]))),
    ];
    for (what, form) in forms {
        let r = http.post(format!("{base}/uploads")).multipart(form).send().await.unwrap();
        assert_eq!(r.status(), 400, "{what}");
        let problem: Value = r.json().await.unwrap();
        assert_eq!(problem["errors"][0]["in"], "body", "{what}: {problem}");
    }
    let r = http
        .post(format!("{base}/uploads"))
        .header("content-type", "multipart/form-data")
        .body("no boundary")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a multipart body without its boundary");
    let r = http
        .post(format!("{base}/uploads"))
        .header("content-type", "multipart/form-data; boundary=X")
        .body("--X\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\ncut off")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a multipart body cut off before its closing boundary");
    assert_eq!(*api.calls.lock().unwrap(), 0, "no refused form reached the implementation");
    let r = http.post(format!("{base}/uploads")).multipart(valid()).send().await.unwrap();
    assert_eq!(r.status(), 200, "the valid form the broken ones were made from");
}
