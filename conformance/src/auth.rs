//! Credentials for the run: a bearer token given on the command line, or one obtained with
//! an OAuth client and an authorization code, or, against a server that offers the
//! authorization step (the reference server's `/oauth/authorize`), codes the harness
//! fetches itself. Codes are single-use, so a fixed code from the fixtures serves once.

use std::sync::Mutex;

use reqwest::Url;
use serde_json::{Value, json};

use crate::embedded::Embedded;
use crate::fixtures::Fixtures;
use crate::spec::Spec;
use crate::transport::{Request, Transport};

pub use crate::oauth_client::OAuthClient;

/// Where authorization codes come from.
pub enum CodeSource {
    /// The target's authorization endpoint, which approves the client by itself.
    Authorize {
        /// Full URL of the authorization endpoint.
        url: String,
    },
    /// One code from the fixtures; taken by the first use.
    Fixed(Mutex<Option<String>>),
    /// One code that the target accepts any number of times (a stateless mock).
    Reusable(String),
    /// None available.
    Unavailable,
}

/// The OAuth side of the run.
pub struct OAuth {
    /// The client, when known.
    pub client: Option<OAuthClient>,
    /// Where codes come from.
    pub codes: CodeSource,
    /// Every request the OAuth steps sent, so that a record of the run accounts for them.
    pub sent: Mutex<Vec<Sent>>,
}

/// One request an OAuth step sent (an authorization step, a token exchange): what it was
/// for, its method and URL (no body: it carries the code and the client secret), and how
/// the target answered.
#[derive(Debug, Clone)]
pub struct Sent {
    /// Which step sent it.
    pub purpose: &'static str,
    /// The request as sent.
    pub method: String,
    /// Its URL.
    pub url: String,
    /// The answer's status, or why none came.
    pub outcome: Result<u16, String>,
    /// The same request's resends (see `transport::Response::retries`).
    pub resent: usize,
}

impl OAuth {
    /// The OAuth side with this client and code source, nothing sent yet.
    pub fn new(client: Option<OAuthClient>, codes: CodeSource) -> OAuth {
        OAuth {
            client,
            codes,
            sent: Mutex::new(Vec::new()),
        }
    }

    /// Takes the requests sent so far, oldest first.
    pub fn take_sent(&self) -> Vec<Sent> {
        self.sent
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default()
    }

    /// Sends `req` for `purpose`, noting it.
    async fn send(
        &self,
        transport: &Transport,
        req: &Request,
        purpose: &'static str,
    ) -> Result<crate::transport::Response, crate::transport::TransportError> {
        let answer = transport.send(req).await;
        if let Ok(mut sent) = self.sent.lock() {
            sent.push(Sent {
                purpose,
                method: req.method.to_string(),
                url: req.url.to_string(),
                outcome: answer.as_ref().map(|r| r.status).map_err(|e| e.to_string()),
                resent: answer.as_ref().map_or(0, |r| r.retries),
            });
        }
        answer
    }
}

impl OAuth {
    /// Whether the run holds exactly one authorization code, still unused: the scheduler
    /// then gives it to one case decided before the run (see `runner::schedule`), so which
    /// case gets it never depends on timing.
    pub fn holds_single_code(&self) -> bool {
        matches!(&self.codes, CodeSource::Fixed(slot) if slot.lock().is_ok_and(|c| c.is_some()))
    }

    /// Gets a code for the client, or says why none is available.
    pub async fn fresh_code(&self, transport: &Transport) -> Result<String, String> {
        let client = self
            .client
            .as_ref()
            .ok_or("no OAuth client: give oauth.client_id, oauth.client_secret and oauth.redirect_uri in --fixtures")?;
        match &self.codes {
            CodeSource::Unavailable => Err(
                "no authorization code: give oauth.code or oauth.authorize_url in --fixtures"
                    .into(),
            ),
            CodeSource::Reusable(code) => Ok(code.clone()),
            CodeSource::Fixed(slot) => slot
                .lock()
                .map_err(|_| "code store poisoned".to_string())?
                .take()
                .ok_or_else(|| {
                    "the fixtures' authorization code is single-use and was already used".into()
                }),
            CodeSource::Authorize { url } => {
                let mut u = Url::parse(url).map_err(|e| format!("authorize URL: {e}"))?;
                u.query_pairs_mut()
                    .append_pair("response_type", "code")
                    .append_pair("client_id", &client.client_id)
                    .append_pair("redirect_uri", &client.redirect_uri)
                    .append_pair("state", "conformance");
                let req = Request {
                    method: reqwest::Method::GET,
                    url: u,
                    headers: Vec::new(),
                    body: None,
                };
                let resp = self
                    .send(transport, &req, "the OAuth authorization step")
                    .await
                    .map_err(|e| format!("authorization step: {e}"))?;
                let location = resp.header("location").ok_or_else(|| {
                    format!(
                        "authorization step answered {} without a redirect",
                        resp.status
                    )
                })?;
                let target = Url::parse(location)
                    .or_else(|_| Url::parse(url).and_then(|b| b.join(location)))
                    .map_err(|e| format!("authorization redirect: {e}"))?;
                target
                    .query_pairs()
                    .find(|(k, _)| k == "code")
                    .map(|(_, v)| v.into_owned())
                    .ok_or_else(|| "authorization redirect carries no code".into())
            }
        }
    }

    /// Exchanges a fresh code for an access token through the spec's token operation.
    pub async fn obtain_token(
        &self,
        spec: &Spec,
        base_url: &str,
        transport: &Transport,
    ) -> Result<String, String> {
        let op = token_operation(spec).ok_or("the spec has no token operation")?;
        let client = self.client.as_ref().ok_or("no OAuth client")?;
        let code = self.fresh_code(transport).await?;
        let body = json!({
            "grant_type": "authorization_code",
            "code": code,
            "client_id": client.client_id,
            "client_secret": client.client_secret,
            "redirect_uri": client.redirect_uri,
        });
        let req = Request {
            method: reqwest::Method::POST,
            url: Url::parse(&format!("{}{}", base_url.trim_end_matches('/'), op.path))
                .map_err(|e| e.to_string())?,
            headers: Vec::new(),
            body: Some((
                "application/json".into(),
                serde_json::to_vec(&body).unwrap_or_default(),
            )),
        };
        let resp = self
            .send(transport, &req, "the OAuth token exchange")
            .await
            .map_err(|e| format!("token exchange: {e}"))?;
        resp.json
            .as_ref()
            .and_then(|j| j.get("access_token"))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(String::from)
            .ok_or_else(|| {
                format!(
                    "token exchange answered {} without an access_token",
                    resp.status
                )
            })
    }
}

/// The OAuth token operation: the unsecured operation whose body takes `grant_type`.
pub fn token_operation(spec: &Spec) -> Option<&crate::spec::Operation> {
    spec.operations.iter().find(|o| {
        !o.secured
            && o.body
                .as_ref()
                .is_some_and(|b| b.properties().iter().any(|(n, _)| n == "grant_type"))
    })
}

/// Works out the run's OAuth client, code source and bearer token: `--token` first; against
/// the embedded server, its demo client and authorization step (the server's own token is
/// the fallback, so a broken exchange shows up as check failures rather than stopping the
/// run); against another target, the fixtures' client and code.
pub async fn credentials(
    spec: &Spec,
    base_url: &str,
    transport: &Transport,
    fixtures: &Fixtures,
    embedded: Option<&Embedded>,
    given_token: Option<String>,
) -> (OAuth, Option<String>) {
    // Each setting given (fixtures, command line, environment) wins over the embedded
    // server's demo client, field by field.
    let demo = embedded.map(|s| s.demo_client());
    let client = match (
        fixtures
            .client_id
            .clone()
            .or_else(|| demo.as_ref().map(|d| d.client_id.clone())),
        fixtures
            .client_secret
            .clone()
            .or_else(|| demo.as_ref().map(|d| d.client_secret.clone())),
        fixtures
            .redirect_uri
            .clone()
            .or_else(|| demo.as_ref().map(|d| d.redirect_uri.clone())),
    ) {
        (Some(client_id), Some(client_secret), Some(redirect_uri)) => Some(OAuthClient {
            client_id,
            client_secret,
            redirect_uri,
        }),
        _ => None,
    };
    let codes = match (&fixtures.authorize_url, &fixtures.code, embedded) {
        (Some(url), _, _) => CodeSource::Authorize { url: url.clone() },
        (None, Some(code), _) if fixtures.code_reusable => CodeSource::Reusable(code.clone()),
        (None, Some(code), _) => CodeSource::Fixed(Mutex::new(Some(code.clone()))),
        (None, None, Some(s)) => CodeSource::Authorize {
            url: format!("{}/oauth/authorize", s.origin()),
        },
        (None, None, None) => CodeSource::Unavailable,
    };
    let oauth = OAuth::new(client.clone(), codes);
    let token = match (given_token, embedded) {
        (Some(t), _) => Some(t),
        // Against the reference server the harness goes through the OAuth flow itself
        // (authorize, then exchange the code); the server's own token is the fallback so
        // that a broken exchange is reported by its checks rather than stopping the run.
        (None, Some(s)) => match oauth.obtain_token(spec, base_url, transport).await {
            Ok(t) => Some(t),
            Err(_) => Some(s.issue_token()),
        },
        (None, None) if client.is_some() => {
            match oauth.obtain_token(spec, base_url, transport).await {
                Ok(t) => Some(t),
                Err(e) => {
                    eprintln!(
                        "warning: could not obtain a token with the OAuth fixtures ({e}); secured checks will be skipped"
                    );
                    None
                }
            }
        }
        (None, None) => None,
    };
    (oauth, token)
}
