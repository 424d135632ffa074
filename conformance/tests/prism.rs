//! The harness and the generated client against a server no one here wrote: Stoplight
//! Prism in mock mode on `spec/openapi.yaml`. Ignored in a plain test run because it needs
//! Prism: `cargo xtask prism` installs the pinned release and runs these tests with its
//! executable in `PRISM_BIN` (`PRISM_ROUNDS` and `PRISM_TIMEOUT` carry its options).
//!
//! 1. Static mock: the `conformance` binary runs with fixtures for Prism's examples and a
//!    JSON report. Every schema-level check must pass on Prism's answers, and the MUST
//!    failures must be exactly [`EXPECTED_MUST_FAILURES`]: the semantic rules a stateless
//!    mock cannot honour (it cannot know tokens, records or the combined-length rule) plus
//!    one Prism defect (a truncated JSON body is never answered). A new or missing failure
//!    fails the test.
//! 2. Dynamic mock (`-d`): the generated client calls every operation and decodes
//!    Prism's generated answers, `PRISM_ROUNDS` times each.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const NEEDS_PRISM: &str = "needs Stoplight Prism: run `cargo xtask prism`";

/// Fixtures matching Prism's answers (it serves the spec's examples).
const FIXTURES: &str = "\
allow_writes: true
scope_names: [CME, CBOT]
restore:
  updateContactInfoName: { firstName: Ada, lastName: Lovelace, country: GB, phone: \"+44 20 7946 0958\" }
oauth:
  client_id: demo-client
  client_secret: demo-secret
  redirect_uri: http://127.0.0.1:3000/callback
  code: SplxlOBeZQQYbYS6WxSbIA
  code_reusable: true
";

/// (case, check) pairs a stateless mock must fail at MUST level, each with the reason.
const EXPECTED_MUST_FAILURES: &[(&str, &str, &str)] = &[
    (
        "exchangeToken/unknown-code",
        "token_exchange_failure",
        "a mock cannot tell a wrong code",
    ),
    (
        "exchangeToken/unsupported-grant",
        "token_exchange_failure",
        "the grant type is a free string in the schema",
    ),
    (
        "exchangeToken/unparsable-body",
        "negative_data_rejection",
        "Prism defect: a truncated JSON body is never answered",
    ),
    (
        "exchangeToken/unparsable-body",
        "not_a_server_error",
        "Prism defect: a truncated JSON body is never answered",
    ),
    (
        "updateContactInfoName/unparsable-body",
        "negative_data_rejection",
        "Prism defect: a truncated JSON body is never answered",
    ),
    (
        "updateContactInfoName/unparsable-body",
        "not_a_server_error",
        "Prism defect: a truncated JSON body is never answered",
    ),
    (
        "findExchangeScopes/ignored-auth/unknown-token",
        "ignored_auth",
        "a mock cannot know which tokens exist",
    ),
    (
        "getCategoryPositionLimit/ignored-auth/unknown-token",
        "ignored_auth",
        "a mock cannot know which tokens exist",
    ),
    (
        "listCategoryPositionLimits/ignored-auth/unknown-token",
        "ignored_auth",
        "a mock cannot know which tokens exist",
    ),
    (
        "suggestRiskCategories/ignored-auth/unknown-token",
        "ignored_auth",
        "a mock cannot know which tokens exist",
    ),
    (
        "updateContactInfoName/ignored-auth/unknown-token",
        "ignored_auth",
        "a mock cannot know which tokens exist",
    ),
    (
        "findExchangeScopes/name-twice-yields-once",
        "items_field_in_param",
        "the example answer ignores names",
    ),
    (
        "findExchangeScopes/unknown-names-ignored",
        "items_field_in_param",
        "the example answer ignores names",
    ),
    (
        "discover/sweep-scopes",
        "items_field_in_param",
        "the example answer ignores names (the data sweep asks for each scope name alone)",
    ),
    (
        "getCategoryPositionLimit/unknown-id",
        "unknown_id",
        "the example answer ignores the id",
    ),
    (
        "listCategoryPositionLimits/unknown-category-is-empty",
        "items_field_equals_param",
        "the example answer ignores masterid",
    ),
    (
        "suggestRiskCategories/limit-zero",
        "max_items_param",
        "the example answer ignores l",
    ),
    (
        "updateContactInfoName/combined=60-ascii",
        "echoes_request",
        "the example answer ignores the request",
    ),
    (
        "updateContactInfoName/combined=60-cjk",
        "echoes_request",
        "the example answer ignores the request",
    ),
    // (combined=60-emoji's echoes_request is a SHOULD warning, DECISIONS row 18.)
    (
        "updateContactInfoName/combined=60-latin",
        "echoes_request",
        "the example answer ignores the request",
    ),
    (
        "updateContactInfoName/rejected-update-between-valid-ones",
        "echoes_request",
        "the example answer ignores the request",
    ),
    (
        "updateContactInfoName/second-update-keeps-other-fields",
        "echoes_request",
        "the example answer ignores the request",
    ),
    (
        "updateContactInfoName/rejected-update-between-valid-ones",
        "update_sequence",
        "no state between requests",
    ),
    (
        "updateContactInfoName/second-update-keeps-other-fields",
        "update_sequence",
        "no state between requests",
    ),
    (
        "updateContactInfoName/combined=61-ascii",
        "combined_length",
        "no schema expresses the combined rule",
    ),
    (
        "updateContactInfoName/combined=61-cjk",
        "combined_length",
        "no schema expresses the combined rule",
    ),
    (
        "updateContactInfoName/combined=61-latin",
        "combined_length",
        "no schema expresses the combined rule",
    ),
    (
        "updateContactInfoName/firstName=64-ascii",
        "length_boundaries",
        "no schema expresses the combined rule",
    ),
    (
        "updateContactInfoName/firstName=64-cjk",
        "length_boundaries",
        "no schema expresses the combined rule",
    ),
    (
        "updateContactInfoName/lastName=64-ascii",
        "length_boundaries",
        "no schema expresses the combined rule",
    ),
    (
        "updateContactInfoName/lastName=64-cjk",
        "length_boundaries",
        "no schema expresses the combined rule",
    ),
];

/// Checks judged on the shape of each answer; Prism must pass all of them.
const SCHEMA_LEVEL: &[&str] = &[
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
];

/// The Prism executable `cargo xtask prism` installed.
fn prism_exe() -> PathBuf {
    let exe = std::env::var_os("PRISM_BIN")
        .unwrap_or_else(|| panic!("PRISM_BIN is not set: {NEEDS_PRISM}"));
    let exe = PathBuf::from(exe);
    assert!(
        exe.exists(),
        "PRISM_BIN names {}, which does not exist",
        exe.display()
    );
    exe
}

/// A number from the environment, or `default`.
fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        Err(_) => default,
    }
}

/// The workspace root: this crate's manifest directory's parent.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("conformance has a parent directory")
        .to_path_buf()
}

/// Where logs and reports are kept for a look after the run (`target/tmp/prism`).
fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("prism");
    std::fs::create_dir_all(&dir).expect("create the scratch directory");
    dir
}

/// A Prism process, stopped (by its own pid) when dropped.
struct Prism {
    child: Child,
    base_url: String,
}

impl Drop for Prism {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// Starts `prism mock spec/openapi.yaml` (with `--dynamic` when asked) and waits until it
/// listens.
fn start(dynamic: bool) -> Prism {
    let port = free_port();
    let log_path = scratch().join(if dynamic {
        "prism-dynamic.log"
    } else {
        "prism-static.log"
    });
    let log = std::fs::File::create(&log_path).expect("create the Prism log");
    let mut cmd = Command::new(prism_exe());
    cmd.current_dir(project_root())
        .args([
            "mock",
            "spec/openapi.yaml",
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("clone the log handle"))
        .stderr(log);
    if dynamic {
        cmd.arg("--dynamic");
    }
    let prism = Prism {
        child: cmd.spawn().expect("start Prism"),
        base_url: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return prism;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!(
        "Prism did not listen within 60 s (see {})",
        log_path.display()
    );
}

#[test]
#[ignore = "needs Stoplight Prism: run `cargo xtask prism`"]
fn static_mock_fails_exactly_what_a_stateless_mock_must() {
    let prism = start(false);
    let dir = scratch();
    let fixtures = dir.join("prism-fixtures.yaml");
    let report = dir.join("prism-report.json");
    std::fs::write(&fixtures, FIXTURES).expect("write the fixtures");
    let _ = std::fs::remove_file(&report);
    let status = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .env_remove("CONFORMANCE_BASE_URL")
        .env_remove("CONFORMANCE_TOKEN")
        .env_remove("CONFORMANCE_CLIENT_ID")
        .env_remove("CONFORMANCE_CLIENT_SECRET")
        .env_remove("CONFORMANCE_REDIRECT_URI")
        .env_remove("CONFORMANCE_AUTH_CODE")
        .arg("--base-url")
        .arg(&prism.base_url)
        .args(["--token", "prism-accepts-any-bearer-token", "--quiet"])
        .arg("--timeout")
        .arg(env_number("PRISM_TIMEOUT", 2).to_string())
        .arg("--fixtures")
        .arg(&fixtures)
        .arg("--json")
        .arg(&report)
        .stdout(Stdio::null())
        .status()
        .expect("run the conformance binary");
    drop(prism);
    assert_eq!(
        status.code(),
        Some(1),
        "the run against a stateless mock must end with MUST failures (exit 1)"
    );
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(&report).expect("the run wrote its JSON report"),
    )
    .expect("the JSON report parses");
    let results = json["results"]
        .as_array()
        .expect("the report lists results");
    let field = |r: &Value, k: &str| r[k].as_str().unwrap_or_default().to_string();
    let totals = &json["totals"];
    println!(
        "harness against Prism (static): {} passed, {} failed, {} warnings, {} skipped",
        totals["passed"], totals["failed"], totals["warnings"], totals["skipped"]
    );

    // A SHOULD breach is reported as a warning; at schema level neither may happen.
    let schema_failures: Vec<String> = results
        .iter()
        .filter(|r| {
            matches!(field(r, "verdict").as_str(), "failed" | "warning")
                && SCHEMA_LEVEL.contains(&field(r, "check").as_str())
        })
        .map(|r| {
            format!(
                "{} {}: {}",
                field(r, "case"),
                field(r, "check"),
                field(r, "message")
            )
        })
        .collect();
    assert!(
        schema_failures.is_empty(),
        "schema-level checks failed on Prism's answers:\n{}",
        schema_failures.join("\n")
    );
    println!(
        "  schema-level checks ({}): all passed",
        SCHEMA_LEVEL.join(", ")
    );

    let got: BTreeSet<(String, String)> = results
        .iter()
        .filter(|r| field(r, "verdict") == "failed")
        .map(|r| (field(r, "case"), field(r, "check")))
        .collect();
    let want: BTreeSet<(String, String)> = EXPECTED_MUST_FAILURES
        .iter()
        .map(|(c, k, _)| (c.to_string(), k.to_string()))
        .collect();
    let unexpected: Vec<_> = got.difference(&want).collect();
    let missing: Vec<_> = want.difference(&got).collect();
    assert!(
        unexpected.is_empty() && missing.is_empty(),
        "the MUST failures against Prism changed\n  unexpected: {unexpected:?}\n  expected but did not happen: {missing:?}"
    );
    let reasons: BTreeSet<&str> = EXPECTED_MUST_FAILURES
        .iter()
        .map(|(_, _, why)| *why)
        .collect();
    println!(
        "  the {} MUST failures are exactly the expected ones:",
        got.len()
    );
    reasons.iter().for_each(|r| println!("    - {r}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Stoplight Prism: run `cargo xtask prism`"]
async fn dynamic_mock_answers_decode_into_the_generated_types() {
    let prism = start(true);
    let rounds = u32::try_from(env_number("PRISM_ROUNDS", 5)).expect("PRISM_ROUNDS fits u32");
    let failures = decode_all(&prism.base_url, rounds).await;
    drop(prism);
    assert!(
        failures.is_empty(),
        "answers of the dynamic mock did not decode:\n{}",
        failures.join("\n")
    );
}

/// A business rejection (`x-business-error`: the mock's random `errorText` or `error`) is
/// an error of the client whose body decoded into the documented type: it counts as
/// decoded. Every other error is a failure.
fn decoded_rejection<E>(e: trading_api::Error<E>) -> Result<(), String> {
    match e {
        trading_api::Error::Business { .. } => Ok(()),
        e => Err(format!("{e:?}")),
    }
}

/// Calls every operation through the generated client against the dynamic mock.
async fn decode_all(base_url: &str, rounds: u32) -> Vec<String> {
    use trading_api::models::{OAuthToken, UpdateContactInfoName};
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("build the HTTP client");
    let client = trading_api::Client::with_client(base_url, http);
    client
        .set_bearer_token("prism-accepts-any-bearer-token")
        .expect("a plain token is a valid header value");
    let token: OAuthToken = serde_json::from_value(
        serde_json::json!({"grant_type": "authorization_code", "code": "c", "client_id": "demo-client"}),
    )
    .expect("build OAuthToken");
    let update: UpdateContactInfoName = serde_json::from_value(
        serde_json::json!({"firstName": "Ada", "lastName": "Lovelace", "country": "GB", "phone": "1"}),
    )
    .expect("build UpdateContactInfoName");
    let mut failures = Vec::new();
    let mut decoded = 0;
    for _ in 0..rounds {
        let results: [(&str, Result<(), String>); 6] = [
            (
                "exchangeToken",
                client
                    .exchange_token(&token)
                    .await
                    .map(drop)
                    .or_else(decoded_rejection),
            ),
            (
                "updateContactInfoName",
                client
                    .update_contact_info_name(&update)
                    .await
                    .map(drop)
                    .or_else(decoded_rejection),
            ),
            (
                "listCategoryPositionLimits",
                client
                    .list_category_position_limits(1)
                    .await
                    .map(drop)
                    .or_else(decoded_rejection),
            ),
            (
                "getCategoryPositionLimit",
                client
                    .get_category_position_limit(11)
                    .await
                    .map(drop)
                    .or_else(decoded_rejection),
            ),
            (
                "findExchangeScopes",
                client
                    .find_exchange_scopes(&["CME", "CBOT"])
                    .await
                    .map(drop)
                    .or_else(decoded_rejection),
            ),
            (
                "suggestRiskCategories",
                client
                    .suggest_risk_categories("equit", 10)
                    .await
                    .map(drop)
                    .or_else(decoded_rejection),
            ),
        ];
        for (op, r) in results {
            match r {
                Ok(()) => decoded += 1,
                Err(e) => failures.push(format!("{op}: {e}")),
            }
        }
    }
    println!(
        "generated client against Prism (dynamic): {decoded} of {} answers decoded",
        rounds * 6
    );
    failures
}
