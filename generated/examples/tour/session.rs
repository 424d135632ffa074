//! The tour's session, shared with `tests/tour.rs` so that the example cannot rot.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use sha2::Digest as _;
use trading_api::models::{OAuthToken, UpdateContactInfoName};
use trading_api::{CallInfo, Client, Error, Hook, Received, RefreshingToken, RetryPolicy};

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
    #[arg(long, default_value = "demo-client", allow_hyphen_values = true)]
    pub client_id: String,
    /// The OAuth client secret (never printed; it may begin with `-`).
    #[arg(
        long,
        default_value = "demo-secret",
        env = "TOUR_CLIENT_SECRET",
        hide_env_values = true,
        allow_hyphen_values = true
    )]
    pub client_secret: String,
    /// The redirect URI registered for the client.
    #[arg(long, default_value = "http://127.0.0.1:3000/callback")]
    pub redirect_uri: String,
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Walks the session, printing each step to `out`.
pub async fn run(args: &Args, out: &mut impl Write) -> Result<(), Failure> {
    // A retry policy: penalties and 429s are waited out and sent again. The hook tells
    // the tour what the policy did, which it would otherwise do silently.
    let narrator = Arc::new(Narrator::default());
    let client = Client::builder(&args.base_url)
        .timeout(Some(Duration::from_secs(10)))
        .retry_policy(
            RetryPolicy::default()
                .max_attempts(3)
                .budget(Duration::from_secs(10)),
        )
        .hook(narrator.clone())
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

    // 2. The token exchange, built with the grant's own constructor. A penalty answer
    // (200 with p-ticket and p-time) is waited out by the policy and the request sent
    // again with the ticket; without a policy it would be `Error::Penalty`.
    let request = OAuthToken::authorization_code(
        code,
        &args.client_id,
        &args.client_secret,
        &args.redirect_uri,
    )
    .with_code_verifier(verifier);
    let issued = client.exchange_token(&request).await?;
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
        "2. token exchange: {} (access token {} chars, expires in {} s)",
        issued.status(),
        token.len(),
        issued.expires_in.unwrap_or_default()
    )?;
    narrator.tell(out)?;

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
    narrator.tell(out)?;
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
    narrator.tell(out)?;
    let scopes = client.find_exchange_scopes(&["CME", "CBOT"]).await?;
    let scope_names: Vec<&str> = scopes.iter().map(|s| s.name.as_str()).collect();
    writeln!(out, "5. exchange scopes CME, CBOT: {scope_names:?}")?;
    narrator.tell(out)?;
    let categories = client.suggest_risk_categories("equit", 5).await?;
    let category_names: Vec<&str> = categories.iter().map(|c| c.name.as_str()).collect();
    writeln!(
        out,
        "6. risk categories matching \"equit\" (at most 5): {category_names:?}"
    )?;
    narrator.tell(out)?;
    let updated = client
        .update_contact_info_name(
            &UpdateContactInfoName::builder()
                .first_name("Ada")
                .last_name("Lovelace")
                .country("GB")
                .phone("+44 20 7946 0958")
                .build(),
        )
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
    narrator.tell(out)?;

    // 5. A business rule: first names and last names of at most 64 characters each, but
    // not over 60 together. The client checks the spec's constraints before sending...
    let long = UpdateContactInfoName::builder()
        .first_name("A".repeat(40))
        .last_name("B".repeat(30))
        .country("GB")
        .phone("+44 20 7946 0958")
        .build();
    match client.update_contact_info_name(&long).await {
        Err(e @ Error::Constraint(_)) => {
            writeln!(
                out,
                "8. names 40 + 30 characters: refused before sending: {e}"
            )?;
            narrator.tell(out)?;
        }
        other => return Err(unexpected("refused before sending", other)),
    }
    // ...and with those checks off the server applies the rule itself: 200 on the wire
    // with a non-empty errorText, which the client makes `Error::Business`.
    let mut unchecked = client.clone();
    unchecked.set_check_arguments(false);
    match unchecked.update_contact_info_name(&long).await {
        Err(e @ Error::Business { .. }) => {
            writeln!(
                out,
                "9. the same names sent with the client's checks off: rejected by the server: {e}"
            )?;
            narrator.tell(out)?;
        }
        other => return Err(unexpected("rejected by the server", other)),
    }

    // 6. A refresh through the token source: the new token is used by every clone.
    let renewed = source.refresh().await?;
    writeln!(
        out,
        "10. refresh grant: a new access token ({} chars)",
        renewed.len()
    )?;
    narrator.tell(out)?;
    let again = client
        .get_category_position_limit(limit.id.unwrap_or(11))
        .await?;
    writeln!(
        out,
        "11. with the renewed token: position limit {} read again",
        again.id.unwrap_or_default()
    )?;
    narrator.tell(out)?;
    writeln!(out, "tour complete")?;
    Ok(())
}

/// What the tour expected instead of `outcome`, as a failure.
fn unexpected<T, E: std::fmt::Debug>(expected: &str, outcome: Result<T, Error<E>>) -> Failure {
    match outcome {
        Ok(_) => format!("the 70-character name was accepted; expected it {expected}").into(),
        Err(e) => format!("expected the 70-character name {expected}, got: {e}").into(),
    }
}

/// A hook that notes what the retry policy does (a `429` waited out, a penalty's
/// re-send with its ticket), for the tour to print after each step. It records the
/// operation, the attempt, the status and the `Retry-After` header, never a header
/// value that could be a secret or the request's body (it only looks for the ticket's
/// field name in it).
#[derive(Default)]
struct Narrator {
    /// Lines not printed yet.
    lines: Mutex<Vec<String>>,
    /// When each operation's last attempt was sent.
    sent: Mutex<Vec<(&'static str, Instant)>>,
}

impl Narrator {
    /// Prints and forgets the lines noted since the last call.
    fn tell(&self, out: &mut impl Write) -> std::io::Result<()> {
        let lines = std::mem::take(&mut *self.lines.lock().expect("not poisoned"));
        for line in lines {
            writeln!(out, "   {line}")?;
        }
        Ok(())
    }

    fn note(&self, line: String) {
        self.lines.lock().expect("not poisoned").push(line);
    }
}

impl Hook for Narrator {
    fn before_send(&self, call: &CallInfo, request: &mut reqwest::Request) {
        let now = Instant::now();
        let mut sent = self.sent.lock().expect("not poisoned");
        let last = sent
            .iter()
            .position(|(op, _)| *op == call.operation)
            .map(|i| sent.swap_remove(i).1);
        sent.push((call.operation, now));
        drop(sent);
        if call.attempt > 1 {
            // The field the spec's `x-penalty` names for the re-send (`resend`); the
            // request model has no field of that name, so only a re-send carries it.
            let ticketed = request
                .body()
                .and_then(|b| b.as_bytes())
                .is_some_and(|b| b.windows(8).any(|w| w == b"p-ticket"));
            let waited = last.map_or(0.0, |t| now.duration_since(t).as_secs_f64());
            self.note(format!(
                "(retry policy: {} attempt {} sent {:.2} s after the one before{})",
                call.operation,
                call.attempt,
                waited,
                if ticketed {
                    ", carrying the penalty's p-ticket"
                } else {
                    ""
                }
            ));
        }
    }

    fn after_receive(&self, received: &Received<'_>) {
        let Some(status) = received.status else {
            return;
        };
        if status.is_client_error() || status.is_server_error() {
            let retry_after = received
                .headers
                .and_then(|h| h.get(reqwest::header::RETRY_AFTER))
                .and_then(|v| v.to_str().ok())
                .map(|v| format!(", Retry-After: {v}"))
                .unwrap_or_default();
            self.note(format!(
                "(retry policy: {} attempt {} answered {status}{retry_after})",
                received.call.operation, received.call.attempt
            ));
        }
    }
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
