//! The tour (`examples/tour`) end to end against the reference server on a port the OS
//! picks, with the penalty switch on as the README runs it: every step succeeds, the
//! penalty's ticketed re-send, the 429s waited out and the business rule (refused by
//! the client, then by the server) show, and no secret reaches the output.

#[path = "../examples/tour/session.rs"]
mod session;

use std::time::Duration;

use reference_server::{Config, Penalties};

#[tokio::test]
async fn the_tour_walks_a_whole_session_and_prints_no_secret() {
    let server = reference_server::spawn(Config {
        penalties: Some(Penalties {
            every: 3,
            wait: Duration::from_millis(50),
            captcha: false,
        }),
        ..Config::default()
    })
    .await
    .expect("server starts");
    let demo = server.demo_client();
    let args = session::Args {
        base_url: server.base_url(),
        authorize_url: None,
        client_id: demo.client_id.clone(),
        client_secret: demo.client_secret.clone(),
        redirect_uri: demo.redirect_uri.clone(),
    };
    let mut out = Vec::new();
    let outcome = tokio::time::timeout(Duration::from_secs(30), session::run(&args, &mut out))
        .await
        .expect("the tour finishes within 30 s");
    let text = String::from_utf8(out).unwrap();
    println!("{text}");
    outcome.unwrap_or_else(|e| panic!("tour failed: {e}\n{text}"));
    for step in [
        "1. authorization step (PKCE S256)",
        "2. token exchange: 200 OK",
        // The first request of each path meets the switch: the token exchange a penalty,
        // the others a 429; the policy waits each out and sends again.
        "(retry policy: exchange_token attempt 2 sent",
        ", carrying the penalty's p-ticket)",
        "3. position limits",
        "(retry policy: list_category_position_limits attempt 1 answered 429 Too Many Requests, Retry-After: ",
        "4. position limit",
        "5. exchange scopes CME, CBOT",
        "6. risk categories",
        "7. contact update: Ada Lovelace",
        "(retry policy: update_contact_info_name attempt 2 sent",
        "8. names 40 + 30 characters: refused before sending",
        "9. the same names sent with the client's checks off: rejected by the server",
        "10. refresh grant",
        "11. with the renewed token",
        "tour complete",
    ] {
        assert!(text.contains(step), "missing {step:?} in\n{text}");
    }
    assert!(
        !text.contains(&demo.client_secret),
        "client secret printed:\n{text}"
    );
    for line in text.lines() {
        // Tokens, codes and verifiers are 43-character base64url strings here: none may
        // appear, only their lengths.
        assert!(
            !line
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .any(|w| w.len() >= 32),
            "a long opaque string (a secret?) printed: {line}"
        );
    }
    server.shutdown().await;
}
