//! The contact-name update (DECISIONS rows 15-19): what changes and what does not,
//! character counting at the boundaries, rejected updates changing nothing, and
//! concurrent updates that never interleave.

mod common;

use std::sync::Arc;

use common::{DEMO_USER, names, post_json, start};
use serde_json::json;
use tokio::sync::Semaphore;
use trading_api::models::ContactInfo;

/// The record with the four updatable fields set, every other field as before.
fn expected(
    before: &ContactInfo,
    first: &str,
    last: &str,
    country: &str,
    phone: &str,
) -> ContactInfo {
    ContactInfo {
        first_name: first.into(),
        last_name: last.into(),
        country: country.into(),
        phone: phone.into(),
        ..before.clone()
    }
}

#[tokio::test]
async fn an_update_changes_the_four_fields_and_nothing_else() {
    let (server, client) = start().await;
    let before = server.contact_record(DEMO_USER).unwrap();
    let others = (
        server.contact_record(2).unwrap(),
        server.contact_record(3).unwrap(),
    );
    let resp = client
        .update_contact_info_name(&names("Émilie", "du Châtelet"))
        .await
        .unwrap();
    assert_eq!(resp.error_text.as_deref(), Some(""));
    let want = expected(&before, "Émilie", "du Châtelet", "FR", "+33 1 23 45 67 89");
    assert_eq!(resp.contact_info.as_ref(), Some(&want));
    assert_eq!(server.contact_record(DEMO_USER), Some(want.clone()));
    // A second update keeps every untouched field of the first.
    let resp = client
        .update_contact_info_name(&names("Ada", "Byron"))
        .await
        .unwrap();
    assert_eq!(
        resp.into_inner().contact_info.unwrap(),
        expected(&want, "Ada", "Byron", "FR", "+33 1 23 45 67 89")
    );
    // Other users' records are untouched (decision 15).
    assert_eq!(
        (
            server.contact_record(2).unwrap(),
            server.contact_record(3).unwrap()
        ),
        others
    );
    server.shutdown().await;
}

#[tokio::test]
async fn the_combined_limit_counts_characters_not_bytes() {
    let (server, client) = start().await;
    let url = format!("{}/contactInfo/updatecontactinfoname", server.base_url());
    let token = server.issue_token();
    for ch in ["a", "é", "中", "😀"] {
        // 60 accepted, through the generated client.
        let (first, last) = (ch.repeat(30), ch.repeat(30));
        let resp = client
            .update_contact_info_name(&names(&first, &last))
            .await
            .unwrap();
        assert_eq!(resp.error_text.as_deref(), Some(""), "{ch}");
        assert_eq!(server.contact_record(DEMO_USER).unwrap().last_name, last);
        // 61 rejected: 200, errorText, no contactInfo, record unchanged. (The generated
        // client refuses to send it, so it goes raw.)
        let before = server.contact_record(DEMO_USER).unwrap();
        for (f, l) in [
            (ch.repeat(30), ch.repeat(31)),
            (ch.repeat(64), ch.to_string()),
        ] {
            let body =
                json!({"firstName": f, "lastName": l, "country": "X", "phone": "Y"}).to_string();
            let (status, resp) = post_json(&url, Some(&token), &body).await;
            assert_eq!(status, 200, "{ch}");
            assert!(
                !resp["errorText"].as_str().unwrap().is_empty(),
                "{ch}: {resp}"
            );
            assert!(resp.get("contactInfo").is_none(), "{ch}: {resp}");
            assert_eq!(server.contact_record(DEMO_USER).unwrap(), before, "{ch}");
        }
    }
    server.shutdown().await;
}

#[tokio::test]
async fn schema_violations_are_400_and_change_nothing() {
    let (server, _client) = start().await;
    let url = format!("{}/contactInfo/updatecontactinfoname", server.base_url());
    let token = server.issue_token();
    let before = server.contact_record(DEMO_USER).unwrap();
    let bad = [
        json!({"firstName": "é".repeat(65), "lastName": "x", "country": "X", "phone": "Y"}),
        json!({"firstName": "x", "lastName": "中".repeat(65), "country": "X", "phone": "Y"}),
        json!({"firstName": "", "lastName": "x", "country": "X", "phone": "Y"}),
        json!({"firstName": "x", "lastName": "   ", "country": "X", "phone": "Y"}),
        json!({"firstName": "x", "lastName": "\t\u{3000}", "country": "X", "phone": "Y"}),
        json!({"firstName": "x", "lastName": "y", "country": "X"}),
        json!({"firstName": "x", "lastName": "y", "country": 5, "phone": "Y"}),
        json!({"firstName": null, "lastName": "y", "country": "X", "phone": "Y"}),
    ];
    for body in bad {
        let (status, resp) = post_json(&url, Some(&token), &body.to_string()).await;
        assert_eq!(status, 400, "{body}");
        assert!(!resp["errorText"].as_str().unwrap().is_empty());
    }
    assert_eq!(server.contact_record(DEMO_USER).unwrap(), before);
    // 64 characters in one field is allowed on its own (the combined rule then
    // applies), and unknown fields are ignored.
    let body = json!({"firstName": "😀".repeat(59), "lastName": "é", "country": "X", "phone": "Y", "id": 7});
    let (status, resp) = post_json(&url, Some(&token), &body.to_string()).await;
    assert_eq!((status, resp["errorText"].as_str()), (200, Some("")));
    assert_eq!(server.contact_record(DEMO_USER).unwrap().id, before.id);
    server.shutdown().await;
}

#[tokio::test]
async fn a_thousand_concurrent_updates_never_interleave() {
    let (server, client) = start().await;
    let before = server.contact_record(DEMO_USER).unwrap();
    let in_flight = Arc::new(Semaphore::new(200));
    let mut tasks = Vec::new();
    for i in 0..1000 {
        let client = client.clone();
        let permit = Arc::clone(&in_flight);
        tasks.push(tokio::spawn(async move {
            let _p = permit.acquire_owned().await.unwrap();
            let req = trading_api::models::UpdateContactInfoName::builder()
                .first_name(format!("F{i}"))
                .last_name(format!("L{i}"))
                .country(format!("C{i}"))
                .phone(format!("P{i}"))
                .build();
            let resp = client.update_contact_info_name(&req).await.unwrap();
            let got = resp.into_inner().contact_info.unwrap();
            // Each answer is exactly the record this request produced.
            assert_eq!(
                got,
                expected(
                    &before_clone(),
                    &req.first_name,
                    &req.last_name,
                    &req.country,
                    &req.phone
                )
            );
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let after = server.contact_record(DEMO_USER).unwrap();
    let i: usize = after.first_name.trim_start_matches('F').parse().unwrap();
    assert!(i < 1000);
    assert_eq!(
        after,
        expected(
            &before,
            &format!("F{i}"),
            &format!("L{i}"),
            &format!("C{i}"),
            &format!("P{i}")
        )
    );
    server.shutdown().await;
}

/// The demo user's record as the data file gives it (every test server starts from it).
fn before_clone() -> ContactInfo {
    reference_server::data::DataSet::embedded().unwrap().users[0]
        .contact_info
        .clone()
}
