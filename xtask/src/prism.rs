//! `cargo xtask prism`: the harness and the generated client against a server no one here
//! wrote, Stoplight Prism in mock mode on `spec/openapi.yaml`.
//!
//! 1. Static mock: the harness runs with fixtures for Prism's examples. Every schema-level
//!    check must pass on Prism's answers, and the MUST failures must be exactly
//!    [`EXPECTED_MUST_FAILURES`]: the semantic rules a stateless mock cannot honour (it
//!    cannot know tokens, records or the combined-length rule) plus one Prism defect (a
//!    truncated JSON body is never answered). A new or missing failure fails the task.
//! 2. Dynamic mock (`-d`): the generated client calls every operation and decodes
//!    Prism's generated answers, `--rounds` times each.

use std::collections::BTreeSet;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use crate::tools::{npm_tool, project_root, tools_dir};

/// The Prism release this project is checked with.
const PRISM: &str = "@stoplight/prism-cli@5.16.0";

/// Fixtures matching Prism's answers (it serves the spec's examples).
const FIXTURES: &str = "\
allow_writes: true
scope_names: [CME, CBOT]
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

/// Arguments of `cargo xtask prism`.
#[derive(clap::Args)]
pub struct Args {
    /// Calls per operation against the dynamic mock.
    #[arg(long, default_value_t = 5)]
    rounds: u32,
    /// Per-request timeout of the harness run, in seconds.
    #[arg(long, default_value_t = 2)]
    timeout: u64,
}

/// Runs both phases and prints the outcome.
pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("cargo xtask prism: {e}");
            ExitCode::from(2)
        }
    }
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

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("cannot find a free port: {e}"))
}

fn start(exe: &Path, dynamic: bool) -> Result<Prism, String> {
    let port = free_port()?;
    let log = std::fs::File::create(tools_dir().join(if dynamic {
        "prism-dynamic.log"
    } else {
        "prism-static.log"
    }))
    .map_err(|e| format!("cannot create the Prism log: {e}"))?;
    let mut cmd = Command::new(exe);
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
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log);
    if dynamic {
        cmd.arg("--dynamic");
    }
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot start Prism: {e}"))?;
    let prism = Prism {
        child,
        base_url: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(prism);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(format!(
        "Prism did not listen within 60 s (see {}/prism-*.log)",
        tools_dir().display()
    ))
}

fn run_inner(args: &Args) -> Result<bool, String> {
    let exe = npm_tool(PRISM, "prism")?;
    let runtime = tokio::runtime::Runtime::new()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let fixtures = tools_dir().join("prism-fixtures.yaml");
    std::fs::write(&fixtures, FIXTURES)
        .map_err(|e| format!("cannot write {}: {e}", fixtures.display()))?;

    let static_ok = {
        let prism = start(&exe, false)?;
        let mut h = conformance::Args::defaults();
        h.base_url = Some(prism.base_url.clone());
        h.token = Some("prism-accepts-any-bearer-token".into());
        h.fixtures = Some(fixtures);
        h.quiet = true;
        h.timeout = Duration::from_secs(args.timeout);
        h.json = Some(tools_dir().join("prism-report.json"));
        let outcome = runtime
            .block_on(conformance::execute(&h, Default::default()))
            .map_err(|e| e.to_string())?;
        judge_static(&outcome)
    };
    let dynamic_ok = {
        let prism = start(&exe, true)?;
        runtime.block_on(decode_all(&prism.base_url, args.rounds))
    };
    println!(
        "\nprism: static mock {}, dynamic mock {}",
        verdict(static_ok),
        verdict(dynamic_ok)
    );
    Ok(static_ok && dynamic_ok)
}

fn verdict(ok: bool) -> &'static str {
    if ok { "as expected" } else { "NOT as expected" }
}

fn judge_static(outcome: &conformance::Outcome) -> bool {
    use conformance::outcome::Verdict;
    let t = outcome.totals(false);
    println!(
        "harness against Prism (static): {} passed, {} failed, {} warnings, {} skipped",
        t.passed, t.failed, t.warnings, t.skipped
    );
    let schema_failures: Vec<String> = outcome
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Failed && SCHEMA_LEVEL.contains(&r.check.as_str()))
        .map(|r| format!("{} {}: {}", r.case, r.check, r.message))
        .collect();
    let got: BTreeSet<(String, String)> = outcome
        .results
        .iter()
        .filter(|r| r.is_failure(false))
        .map(|r| (r.case.clone(), r.check.clone()))
        .collect();
    let want: BTreeSet<(String, String)> = EXPECTED_MUST_FAILURES
        .iter()
        .map(|(c, k, _)| (c.to_string(), k.to_string()))
        .collect();
    let mut ok = true;
    if schema_failures.is_empty() {
        println!(
            "  schema-level checks ({}): all passed",
            SCHEMA_LEVEL.join(", ")
        );
    } else {
        ok = false;
        println!("  schema-level failures (unexpected):");
        schema_failures.iter().for_each(|f| println!("    {f}"));
    }
    let unexpected: Vec<_> = got.difference(&want).collect();
    let missing: Vec<_> = want.difference(&got).collect();
    for (case, check) in &unexpected {
        ok = false;
        println!("  unexpected MUST failure: {case} {check}");
    }
    for (case, check) in &missing {
        ok = false;
        println!("  expected MUST failure did not happen: {case} {check}");
    }
    if unexpected.is_empty() && missing.is_empty() {
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
    ok
}

/// Calls every operation through the generated client against the dynamic mock.
async fn decode_all(base_url: &str, rounds: u32) -> bool {
    use trading_api::models::{OAuthToken, UpdateContactInfoName};
    let http = match reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
    {
        Ok(h) => h,
        Err(e) => {
            println!("cannot build the HTTP client: {e}");
            return false;
        }
    };
    let client = trading_api::Client::with_client(base_url, http);
    if client
        .set_bearer_token("prism-accepts-any-bearer-token")
        .is_err()
    {
        return false;
    }
    let token: OAuthToken = match serde_json::from_value(
        serde_json::json!({"grant_type": "authorization_code", "code": "c", "client_id": "demo-client"}),
    ) {
        Ok(t) => t,
        Err(e) => {
            println!("cannot build OAuthToken: {e}");
            return false;
        }
    };
    let update: UpdateContactInfoName = match serde_json::from_value(
        serde_json::json!({"firstName": "Ada", "lastName": "Lovelace", "country": "GB", "phone": "1"}),
    ) {
        Ok(u) => u,
        Err(e) => {
            println!("cannot build UpdateContactInfoName: {e}");
            return false;
        }
    };
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
                    .map_err(|e| format!("{e:?}")),
            ),
            (
                "updateContactInfoName",
                client
                    .update_contact_info_name(&update)
                    .await
                    .map(drop)
                    .map_err(|e| format!("{e:?}")),
            ),
            (
                "listCategoryPositionLimits",
                client
                    .list_category_position_limits(1)
                    .await
                    .map(drop)
                    .map_err(|e| format!("{e:?}")),
            ),
            (
                "getCategoryPositionLimit",
                client
                    .get_category_position_limit(11)
                    .await
                    .map(drop)
                    .map_err(|e| format!("{e:?}")),
            ),
            (
                "findExchangeScopes",
                client
                    .find_exchange_scopes(&["CME", "CBOT"])
                    .await
                    .map(drop)
                    .map_err(|e| format!("{e:?}")),
            ),
            (
                "suggestRiskCategories",
                client
                    .suggest_risk_categories("equit", 10)
                    .await
                    .map(drop)
                    .map_err(|e| format!("{e:?}")),
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
    failures.iter().for_each(|f| println!("  {f}"));
    failures.is_empty()
}
