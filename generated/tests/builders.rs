//! Every request model built from outside the crate through its public constructors and
//! setters only (request models are `#[non_exhaustive]`, so a struct literal would not
//! compile here), and what each puts on the wire.

use serde_json::json;
use trading_api::models::{OAuthToken, UpdateContactInfoName};

#[test]
fn the_authorization_code_grant_sets_its_grant_type_and_fields() {
    let body = OAuthToken::authorization_code(
        "the-code",
        "demo-client",
        "s3cret",
        "http://127.0.0.1:3000/cb",
    )
    .with_code_verifier("pkce-v3r1f");
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        json!({
            "grant_type": "authorization_code",
            "code": "the-code",
            "client_id": "demo-client",
            "client_secret": "s3cret",
            "redirect_uri": "http://127.0.0.1:3000/cb",
            "code_verifier": "pkce-v3r1f",
        })
    );
    // The constructor's secrets stay out of `Debug`.
    let debug = format!("{body:?}");
    for secret in ["the-code", "s3cret", "pkce-v3r1f"] {
        assert!(!debug.contains(secret), "{debug}");
    }
}

#[test]
fn the_refresh_grant_sets_its_grant_type_and_fields() {
    let body = OAuthToken::refresh_token("rt", "demo-client", "s3cret");
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        json!({
            "grant_type": "refresh_token",
            "refresh_token": "rt",
            "client_id": "demo-client",
            "client_secret": "s3cret",
        })
    );
}

#[test]
fn new_takes_the_required_fields_and_setters_add_optional_ones() {
    let body = OAuthToken::new("urn:ietf:params:oauth:grant-type:jwt-bearer")
        .with_assertion("a.b.c")
        .with_resource("https://api.example")
        .with_http_auth("basic")
        .with_code("c")
        .with_redirect_uri("r")
        .with_client_id("i")
        .with_client_secret("s")
        .with_refresh_token("t");
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        json!({
            "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
            "assertion": "a.b.c",
            "resource": "https://api.example",
            "httpAuth": "basic",
            "code": "c",
            "redirect_uri": "r",
            "client_id": "i",
            "client_secret": "s",
            "refresh_token": "t",
        })
    );
    // Only what was set is sent.
    assert_eq!(
        serde_json::to_value(OAuthToken::new("x")).unwrap(),
        json!({"grant_type": "x"})
    );
}

#[test]
fn the_contact_update_is_built_from_its_four_required_fields() {
    let body = UpdateContactInfoName::builder()
        .first_name("Ada")
        .last_name(String::from("Lovelace"))
        .country("GB")
        .phone("+44")
        .build();
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        json!({"firstName": "Ada", "lastName": "Lovelace", "country": "GB", "phone": "+44"})
    );
    // Fields stay public for reading and changing.
    let mut body = body;
    body.phone = "+44 20".into();
    assert_eq!(body.phone, "+44 20");
    assert!(body.validate().is_ok());
}
