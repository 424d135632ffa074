//! Every operation's success path through the generated client, and the look-up rows
//! of DECISIONS (3-9).

mod common;

use common::{assert_error, get, start};
use trading_api::client::{GetCategoryPositionLimitError, SuggestRiskCategoriesError};
use trading_api::models::TotalBy;

#[tokio::test]
async fn deps_returns_the_categorys_limits_in_id_order() {
    let (server, client) = start().await;
    let limits = client.list_category_position_limits(1).await.unwrap();
    assert_eq!(limits.len(), 5);
    assert!(limits.iter().all(|l| l.risk_category_id == 1));
    let ids: Vec<i64> = limits.iter().map(|l| l.id.unwrap()).collect();
    assert_eq!(ids, [11, 12, 13, 14, 15]);
    assert_eq!(limits[0].total_by, TotalBy::Contract);
    // One limit, none, and an unknown category (decision 4).
    assert_eq!(
        client.list_category_position_limits(7).await.unwrap().len(),
        1
    );
    assert!(
        client
            .list_category_position_limits(9)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        client
            .list_category_position_limits(-5)
            .await
            .unwrap()
            .is_empty()
    );
    server.shutdown().await;
}

#[tokio::test]
async fn item_returns_the_record_seen_through_deps_and_404_for_unknown() {
    let (server, client) = start().await;
    let through_deps = client.list_category_position_limits(4).await.unwrap();
    for limit in through_deps.iter() {
        let item = client
            .get_category_position_limit(limit.id.unwrap())
            .await
            .unwrap();
        assert_eq!(&*item, limit);
    }
    match client.get_category_position_limit(999_999).await {
        Err(trading_api::Error::Response {
            error: GetCategoryPositionLimitError::NotFound(e),
            ..
        }) => {
            assert!(e.error_text.contains("999999"))
        }
        other => panic!("expected 404, got {other:?}"),
    }
    server.shutdown().await;
}

#[tokio::test]
async fn finds_matches_exact_names_in_both_encodings() {
    let (server, client) = start().await;
    let found = client
        .find_exchange_scopes(&["CBOT", "CME Group", "cme", "nope", "CBOT"])
        .await
        .unwrap();
    let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["CBOT", "CME Group"]);
    assert_eq!(found[0].bundle_of.as_deref(), Some("CME Group"));
    // The comma form (decision 6).
    let token = server.issue_token();
    let url = format!(
        "{}/marketDataSubscriptionExchangeScope/finds?names=CME,NYMEX",
        server.base_url()
    );
    let (status, _, body) = get(&url, Some(&token)).await;
    assert_eq!(status, 200);
    let names: Vec<&str> = body
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["CME", "NYMEX"]);
    server.shutdown().await;
}

#[tokio::test]
async fn suggest_is_case_insensitive_and_honours_l() {
    let (server, client) = start().await;
    let all = client.suggest_risk_categories("EQUIT", 100).await.unwrap();
    let names: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Dormant Equities Desk",
            "Equities",
            "Equity Options",
            "US Equities Intraday"
        ]
    );
    assert_eq!(
        client
            .suggest_risk_categories("equit", 2)
            .await
            .unwrap()
            .len(),
        2
    );
    assert!(
        client
            .suggest_risk_categories("equit", 0)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        client
            .suggest_risk_categories("zzz", 10)
            .await
            .unwrap()
            .is_empty()
    );
    // The cap (decision 9) still answers.
    assert_eq!(
        client
            .suggest_risk_categories("e", i32::MAX)
            .await
            .unwrap()
            .len(),
        8
    );
    server.shutdown().await;
}

#[tokio::test]
async fn suggest_rejects_negative_l_and_empty_t() {
    let (server, _client) = start().await;
    let token = server.issue_token();
    let base = server.base_url();
    for query in [
        "t=equit&l=-1",
        "t=&l=5",
        "t=equit",
        "l=5",
        "t=equit&l=abc",
        "t=equit&l=2147483648",
        "t=a&t=b&l=1",
    ] {
        let (status, headers, body) = get(
            &format!("{base}/riskCategory/suggest?{query}"),
            Some(&token),
        )
        .await;
        assert_error(status, &headers, &body, 400);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn missing_or_mistyped_parameters_are_400_with_error_text() {
    let (server, client) = start().await;
    let token = server.issue_token();
    let base = server.base_url();
    for path in [
        "categoryPositionLimit/deps",
        "categoryPositionLimit/deps?masterid=abc",
        "categoryPositionLimit/deps?masterid=1.5",
        "categoryPositionLimit/deps?masterid=9223372036854775808",
        "categoryPositionLimit/item",
        "categoryPositionLimit/item?id=",
        "categoryPositionLimit/item?id=x",
        "marketDataSubscriptionExchangeScope/finds",
        "marketDataSubscriptionExchangeScope/finds?other=CME",
    ] {
        let (status, headers, body) = get(&format!("{base}/{path}"), Some(&token)).await;
        assert_error(status, &headers, &body, 400);
        assert!(
            body["errorText"].as_str().unwrap().contains("masterid")
                || body["errorText"].as_str().unwrap().contains("id")
                || body["errorText"].as_str().unwrap().contains("names")
        );
    }
    // The generated client sees them as documented errors too.
    let err = client.suggest_risk_categories("x", -1).await;
    assert!(
        matches!(
            err,
            Err(trading_api::Error::Constraint(_))
                | Err(trading_api::Error::Response {
                    error: SuggestRiskCategoriesError::BadRequest(_),
                    ..
                })
        ),
        "{err:?}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn finds_takes_repeated_names_literally_and_a_single_one_in_both_readings() {
    // A data set with a scope whose name holds a comma: the repeated (declared) form
    // finds it as written, and a single value finds it as well as its comma-form parts.
    let default = include_str!("../data/default.yaml");
    let data = default.replace(
        "  - { id: 8, name: Eurex }",
        "  - { id: 8, name: Eurex }\n  - { id: 9, name: \"Dow Jones, Inc.\" }",
    );
    assert_ne!(data, default, "the default data set changed shape");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.yaml");
    std::fs::write(&path, data).unwrap();
    let (server, client) = common::start_with(reference_server::Config {
        data: Some(path),
        ..reference_server::Config::default()
    })
    .await;
    let found = client
        .find_exchange_scopes(&["Dow Jones, Inc.", "CME"])
        .await
        .unwrap();
    let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["CME", "Dow Jones, Inc."]);
    let token = server.issue_token();
    for (query, expected) in [
        ("names=Dow%20Jones%2C%20Inc.", vec!["Dow Jones, Inc."]),
        ("names=CME,Eurex", vec!["CME", "Eurex"]),
    ] {
        let url = format!(
            "{}/marketDataSubscriptionExchangeScope/finds?{query}",
            server.base_url()
        );
        let (status, _, body) = get(&url, Some(&token)).await;
        assert_eq!(status, 200, "{query}");
        let names: Vec<&str> = body
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, expected, "{query}");
    }
    server.shutdown().await;
}
