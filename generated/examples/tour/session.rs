//! The tour's session, shared with `tests/tour.rs` so that the example cannot rot.

use std::io::Write;
use std::time::Duration;

use base64::Engine as _;
use sha2::Digest as _;
use trading_api::models::{OAuthToken, UpdateContactInfoName};
use trading_api::{Client, Error, RefreshingToken, RetryPolicy};

/// Where the server is and the OAuth client's registration (the defaults are those of
/// `cargo xtask serve`'s demo client).
#[derive(clap::Parser, Debug, Clone)]
#[command(
    name = "tour",
    about = "Walk one session of the trading API with the generated client"
)]
pub struct Args {
    /// The API's base URL, `/v1` included.
    #[arg(long, default_value = "http://127.0.0.1:8080/v1")]
    pub base_url: String,
    /// Where the authorization step lives (default: the base URL's origin).
    #[arg(long)]
    pub authorize_url: Option<String>,
    /// The OAuth client id.
    #[arg(long, default_value = "demo-client")]
    pub client_id: String,
    /// The OAuth client secret (never printed).
    #[arg(
        long,
        default_value = "demo-secret",
        env = "TOUR_CLIENT_SECRET",
        hide_env_values = true
    )]
    pub client_secret: String,
    /// The redirect URI registered for the client.
    #[arg(long, default_value = "http://127.0.0.1:3000/callback")]
    pub redirect_uri: String,
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Walks the session, printing each step to `out`.
pub async fn run(args: &Args, out: &mut impl Write) -> Result<(), Failure> {
    // A retry policy: penalties and 429s are waited out and sent again.
    let client = Client::builder(&args.base_url)
        .timeout(Some(Duration::from_secs(10)))
        .retry_policy(
            RetryPolicy::default()
                .max_attempts(3)
                .budget(Duration::from_secs(10)),
        )
        .build()?;

    // 1. The authorization step with PKCE (RFC 7636): a verifier, its S256 challenge.
    let mut random = [0u8; 32];
    getrandom::fill(&mut random).map_err(|e| format!("no OS random source: {e}"))?;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let verifier = b64.encode(random);
    let challenge = b64.encode(sha2::Sha256::digest(verifier.as_bytes()));
    let code = authorize(args, &challenge).await?;
    writeln!(
        out,
        "1. authorization step (PKCE S256): got a code ({} chars)",
        code.len()
    )?;

    // 2. The token exchange, built with the grant's own constructor. The client's policy
    // handles a penalty (wait p-time, re-send with p-ticket) on its own; the first
    // attempt is made without it here, to show the penalty as it comes.
    let request = OAuthToken::authorization_code(
        code,
        &args.client_id,
        &args.client_secret,
        &args.redirect_uri,
    )
    .with_code_verifier(verifier);
    let mut bare = client.clone();
    bare.set_retry_policy(None);
    let issued = match bare.exchange_token(&request).await {
        Err(Error::Penalty { wait, .. }) => {
            writeln!(
                out,
                "2. token exchange: penalty answer (p-ticket, p-time {:.2} s); sending through the retry policy",
                wait.as_secs_f64()
            )?;
            // The policy waits p-time and re-sends with the ticket whenever a penalty
            // comes back.
            client.exchange_token(&request).await?
        }
        other => {
            writeln!(out, "2. token exchange: no penalty this time")?;
            other?
        }
    };
    let token = issued
        .access_token
        .clone()
        .ok_or("no access_token in the answer")?;
    let refresh = issued
        .refresh_token
        .clone()
        .ok_or("no refresh_token in the answer")?;
    writeln!(
        out,
        "   token exchange: {} (access token {} chars, expires in {} s)",
        issued.status(),
        token.len(),
        issued.expires_in.unwrap_or_default()
    )?;

    // 3. A token source that renews itself through the refresh grant, shared by every
    // clone of the client.
    let lifetime = issued
        .expires_in
        .and_then(|s| u64::try_from(s).ok())
        .map(Duration::from_secs);
    let source = RefreshingToken::new(&client, refresh)
        .with_access_token(token, lifetime)
        .with_field("client_id", args.client_id.as_str())
        .with_field("client_secret", args.client_secret.as_str());
    let source = std::sync::Arc::new(source);
    client.set_token_source(source.clone());

    // 4. Every other operation.
    let limits = client.list_category_position_limits(1).await?;
    writeln!(
        out,
        "3. position limits of risk category 1: {} record(s)",
        limits.len()
    )?;
    let limit = client
        .get_category_position_limit(limits.first().and_then(|l| l.id).unwrap_or(11))
        .await?;
    writeln!(
        out,
        "4. position limit {}: totals by {}, long limit {:?}",
        limit.id.unwrap_or_default(),
        limit.total_by,
        limit.long_limit
    )?;
    let scopes = client.find_exchange_scopes(&["CME", "CBOT"]).await?;
    let scope_names: Vec<&str> = scopes.iter().map(|s| s.name.as_str()).collect();
    writeln!(out, "5. exchange scopes CME, CBOT: {scope_names:?}")?;
    let categories = client.suggest_risk_categories("equit", 5).await?;
    let category_names: Vec<&str> = categories.iter().map(|c| c.name.as_str()).collect();
    writeln!(
        out,
        "6. risk categories matching \"equit\" (at most 5): {category_names:?}"
    )?;
    let updated = client
        .update_contact_info_name(&UpdateContactInfoName::new(
            "Ada",
            "Lovelace",
            "GB",
            "+44 20 7946 0958",
        ))
        .await?;
    let record = updated
        .contact_info
        .as_ref()
        .ok_or("no contactInfo in the answer")?;
    writeln!(
        out,
        "7. contact update: {} {} ({}), {}",
        record.first_name,
        record.last_name,
        record.country,
        updated.status()
    )?;

    // 5. A business-rule rejection: 200 on the wire, an error in the client.
    let long = UpdateContactInfoName::new("A".repeat(40), "B".repeat(30), "GB", "+44");
    match client.update_contact_info_name(&long).await {
        Err(e @ Error::Constraint(_)) => {
            writeln!(
                out,
                "8. names 40 + 30 characters: refused before sending: {e}"
            )?;
        }
        Err(e @ Error::Business { .. }) => {
            writeln!(
                out,
                "8. names 40 + 30 characters: rejected by the server: {e}"
            )?;
        }
        other => {
            return Err(format!(
                "the 70-character name was not refused: {:?}",
                other.map(|r| r.status())
            )
            .into());
        }
    }

    // 6. A refresh through the token source: the new token is used by every clone.
    let renewed = source.refresh().await?;
    writeln!(
        out,
        "9. refresh grant: a new access token ({} chars)",
        renewed.len()
    )?;
    let again = client
        .get_category_position_limit(limit.id.unwrap_or(11))
        .await?;
    writeln!(
        out,
        "10. with the renewed token: position limit {} read again",
        again.id.unwrap_or_default()
    )?;
    writeln!(out, "tour complete")?;
    Ok(())
}

/// The authorization step: the server auto-approves for the demo user and redirects to
/// the redirect URI with a code, which is read from `Location` (no browser needed).
async fn authorize(args: &Args, challenge: &str) -> Result<String, Failure> {
    let origin = match &args.authorize_url {
        Some(url) => url.clone(),
        None => {
            args.base_url
                .trim_end_matches('/')
                .trim_end_matches("/v1")
                .to_owned()
                + "/oauth/authorize"
        }
    };
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(10))
        .build()?;
    let answer = http
        .get(&origin)
        .query(&[
            ("response_type", "code"),
            ("client_id", args.client_id.as_str()),
            ("redirect_uri", args.redirect_uri.as_str()),
            ("state", "tour"),
            ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ])
        .send()
        .await?;
    let location = answer
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            format!(
                "the authorization step answered {} without a redirect",
                answer.status()
            )
        })?;
    let query = location.split_once('?').map(|(_, q)| q).unwrap_or_default();
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .ok_or_else(|| "the redirect carries no code (the authorization was refused)".into())
}
