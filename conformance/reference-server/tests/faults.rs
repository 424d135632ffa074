//! Each seeded fault really changes what the server answers (so the harness's fault
//! tests measure the harness, not a no-op switch), and a clean server shows none of
//! the deviations.

mod common;

use std::time::Duration;

use common::{get, post_json, raw, start, start_faulty};
use reference_server::{Fault, RunningServer};
use serde_json::{Value, json};

/// What the probe of a fault observed on a server.
async fn probe(fault: Fault, server: &RunningServer) -> Value {
    let base = server.base_url();
    let token = server.issue_token();
    let t = Some(token.as_str());
    let update = format!("{base}/contactInfo/updatecontactinfoname");
    match fault {
        Fault::AuthNotEnforced => json!(
            get(&format!("{base}/riskCategory/suggest?t=e&l=1"), None)
                .await
                .0
        ),
        Fault::LimitIgnored => {
            get(&format!("{base}/riskCategory/suggest?t=e&l=1"), t)
                .await
                .2
        }
        Fault::CombinedRuleOffByOne => {
            let body = json!({"firstName": "a".repeat(30), "lastName": "b".repeat(31), "country": "X", "phone": "Y"});
            post_json(&update, t, &body.to_string()).await.1["errorText"].clone()
        }
        Fault::BytesCounted => {
            let body = json!({"firstName": "é".repeat(30), "lastName": "é".repeat(30), "country": "X", "phone": "Y"});
            post_json(&update, t, &body.to_string()).await.1["errorText"].clone()
        }
        Fault::DepsLeaksOtherCategory | Fault::EnumMisspelled | Fault::RequiredFieldDropped => {
            get(&format!("{base}/categoryPositionLimit/deps?masterid=7"), t)
                .await
                .2
        }
        // The deep records: the last limit (category 7) and the last but one (category 6).
        Fault::DeepEnumMisspelled => {
            get(&format!("{base}/categoryPositionLimit/deps?masterid=7"), t)
                .await
                .2
        }
        Fault::DeepRequiredFieldDropped => {
            get(&format!("{base}/categoryPositionLimit/deps?masterid=6"), t)
                .await
                .2
        }
        Fault::UpdateClobbersAddress | Fault::UpdateKeepsOldNames => {
            let body =
                json!({"firstName": "New", "lastName": "Name", "country": "X", "phone": "Y"});
            post_json(&update, t, &body.to_string()).await.1["contactInfo"].clone()
        }
        Fault::ServerErrorOnUnknownId => json!(
            get(&format!("{base}/categoryPositionLimit/item?id=4242"), t)
                .await
                .0
        ),
        Fault::ItemWrongId => get(&format!("{base}/categoryPositionLimit/item?id=11"), t)
            .await
            .2["id"]
            .clone(),
        Fault::ErrorOnSuccess | Fault::TokenTypeWrong => {
            let demo = server.demo_client();
            let code =
                common::authorization_code(&server.origin(), &demo.client_id, &demo.redirect_uri)
                    .await;
            let body = json!({"grant_type": "authorization_code", "code": code, "redirect_uri": demo.redirect_uri, "client_id": demo.client_id, "client_secret": demo.client_secret});
            let (_, v) =
                post_json(&format!("{base}/auth/oauthtoken"), None, &body.to_string()).await;
            json!([v["error"], v["token_type"]])
        }
        Fault::OnlyFirstName => {
            get(
                &format!("{base}/marketDataSubscriptionExchangeScope/finds?names=CME&names=CBOT"),
                t,
            )
            .await
            .2
        }
        Fault::Stall => {
            let quick = reqwest::Client::builder()
                .timeout(Duration::from_secs(5))
                .build()
                .unwrap();
            let r = quick
                .get(format!("{base}/riskCategory/suggest?t=e&l=1"))
                .bearer_auth(&token)
                .send()
                .await;
            json!(r.is_ok())
        }
        Fault::SuggestCaseSensitive => {
            get(&format!("{base}/riskCategory/suggest?t=equit&l=10"), t)
                .await
                .2
        }
        Fault::WrongContentType => {
            let (_, headers, _) =
                get(&format!("{base}/categoryPositionLimit/deps?masterid=1"), t).await;
            json!(headers["content-type"].to_str().unwrap())
        }
        Fault::MissingParamAccepted => json!(
            get(&format!("{base}/categoryPositionLimit/deps"), t)
                .await
                .0
        ),
        Fault::ContactRefusesOldName => {
            let renamed =
                json!({"firstName": "New", "lastName": "Name", "country": "X", "phone": "Y"});
            post_json(&update, t, &renamed.to_string()).await;
            let back =
                json!({"firstName": "Ada", "lastName": "Lovelace", "country": "GB", "phone": "Y"});
            post_json(&update, t, &back.to_string()).await.1["errorText"].clone()
        }
        Fault::NumbersCoercedToText => {
            let body =
                json!({"firstName": 12345, "lastName": "Name", "country": "X", "phone": "Y"});
            json!(post_json(&update, t, &body.to_string()).await.0)
        }
        Fault::UnreadableIdAccepted => json!(
            get(
                &format!("{base}/categoryPositionLimit/deps?masterid=abc"),
                t
            )
            .await
            .0
        ),
        Fault::UnknownTokenAccepted => {
            json!(
                get(
                    &format!("{base}/categoryPositionLimit/deps?masterid=1"),
                    Some(&"Z".repeat(43))
                )
                .await
                .0
            )
        }
    }
}

#[tokio::test]
async fn every_fault_changes_the_answer_its_probe_looks_at() {
    // The stall has a test of its own, so its wait runs beside these.
    for &fault in Fault::ALL.iter().filter(|f| **f != Fault::Stall) {
        let (clean, _) = start().await;
        let (faulty, _) = start_faulty(&[fault]).await;
        let (want, got) = (probe(fault, &clean).await, probe(fault, &faulty).await);
        assert_ne!(want, got, "{fault}: {}", fault.description());
        clean.shutdown().await;
        faulty.shutdown().await;
    }
}

#[tokio::test]
async fn the_stall_fault_delays_suggest() {
    let (clean, _) = start().await;
    let (faulty, _) = start_faulty(&[Fault::Stall]).await;
    assert_ne!(
        probe(Fault::Stall, &clean).await,
        probe(Fault::Stall, &faulty).await
    );
    clean.shutdown().await;
    faulty.shutdown().await;
}

#[test]
fn names_parse_back_and_there_are_at_least_fifteen() {
    assert!(Fault::ALL.len() >= 15);
    for f in Fault::ALL {
        assert_eq!(f.name().parse::<Fault>().unwrap(), *f);
    }
}

#[tokio::test]
async fn a_stalled_request_does_not_hold_up_shutdown() {
    let (server, _) = start_faulty(&[Fault::Stall]).await;
    let url = format!("{}/riskCategory/suggest?t=e&l=1", server.base_url());
    let token = server.issue_token();
    let pending = tokio::spawn(async move {
        raw()
            .get(url)
            .bearer_auth(token)
            .send()
            .await
            .map(|r| r.status().as_u16())
    });
    // Time for the request to reach the handler even on a loaded machine: shutting down
    // before it arrives would test a refused connection, not a stalled request.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let started = std::time::Instant::now();
    server.shutdown().await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "shutdown waited for the stall"
    );
    // The stalled request is answered (early) rather than left hanging.
    let status = tokio::time::timeout(Duration::from_secs(10), pending)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.ok(), Some(200));
}
