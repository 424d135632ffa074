//! Connecting to the target: the transport, the credentials (given, or obtained through
//! OAuth) and the secrets no report may show, set up once before the first case.

use std::sync::Arc;

use serde_json::Value;

use super::load::Inputs;
use crate::error::HarnessError;
use crate::redact::Secrets;
use crate::run_config::Config;
use crate::runner::{self, Context};
use crate::schema::Validators;
use crate::spec::Spec;
use crate::transport::Transport;
use crate::vars::Vars;
use crate::{access, auth, config, embedded};

/// A run connected to its target: the context every request goes through, the variables
/// the cases start from, and whether an OAuth client was registered (the header names
/// the credentials the run has).
pub(super) struct Connected {
    pub(super) ctx: Arc<Context>,
    pub(super) vars: Vars,
    pub(super) oauth_client: bool,
}

/// Builds what every request of the run goes through: the target's base URL, the
/// transport with the command line's bounds, the credentials (given, or obtained through
/// OAuth), the secrets never printed (each credential is added as soon as it is known,
/// so no report can show it) and the variables the contract files and fixtures set.
pub(super) async fn connect(
    config: &Config,
    spec: Spec,
    validators: Validators,
    inputs: &Inputs,
    embedded: Option<&embedded::Embedded>,
) -> Result<Connected, HarnessError> {
    let base_url = match (&config.base_url, embedded) {
        (Some(u), _) => u.clone(),
        (None, Some(s)) => s.base_url(),
        (None, None) => {
            return Err(HarnessError::Config(
                "no --base-url and no embedded server".into(),
            ));
        }
    };
    let in_process = config
        .transport
        .in_process
        .clone()
        .or_else(|| embedded.and_then(embedded::Embedded::app));
    let mut options = config::transport_options(&config.transport)?;
    options.no_tls_roots = in_process.is_some();
    let transport = Transport::with_options(config.transport.timeout, &options)?
        .with_wait_budget(config.transport.max_wait);
    let transport = match in_process {
        Some(app) => transport.with_in_process(app),
        None => transport,
    };
    let mut secrets = Secrets::new(spec.secret_fields.clone());
    for (name, value) in &config.transport.headers {
        secrets.add_header(name, value, true);
    }
    for (name, value) in &config.transport.public_headers {
        secrets.add_header(name, value, false);
    }
    // Before anything else is sent: is the target there at all? (Its error names the URL,
    // so the URL's password is a secret from here on.)
    secrets.add_url_password(&base_url);
    let reached = match &config.base_url {
        Some(_) => Some(runner::preflight_reach(&transport, &base_url, &secrets).await?),
        None => None,
    };
    let fixtures = &inputs.fixtures;
    let (oauth, token) = auth::credentials(
        &spec,
        &base_url,
        &transport,
        fixtures,
        embedded,
        config.credentials.token.clone(),
    )
    .await;
    let client = oauth.client.clone();
    if let Some(t) = &token {
        secrets.add(t, "$TOKEN");
    }
    // The OAuth fixtures may have given no token after all.
    access::require(
        &spec,
        |id| inputs.selection.operation(id),
        token.is_some() || headers_carry(config, &spec),
        config.anonymous,
    )?;
    let mut vars = Vars::default();
    for (k, v) in &inputs.contracts.vars {
        vars.set(k.clone(), v.clone());
    }
    for (k, v) in &fixtures.vars {
        vars.set(k.clone(), v.clone());
    }
    if let Some(code) = &fixtures.code {
        secrets.add(code, "$CODE");
    }
    if let Some(s) = &fixtures.client_secret {
        secrets.add(s, "$CLIENT_SECRET");
    }
    // The throwaway account's fields (a password) never show, whichever request echoes
    // them.
    for v in fixtures
        .session
        .iter()
        .flat_map(|l| l.body.values())
        .filter_map(Value::as_str)
    {
        secrets.add(v, "$SESSION_ACCOUNT");
    }
    if let Some(c) = &client {
        secrets.add(&c.client_secret, "$CLIENT_SECRET");
        vars.set("oauth.client_id", Value::String(c.client_id.clone()));
        vars.set(
            "oauth.client_secret",
            Value::String(c.client_secret.clone()),
        );
        vars.set("oauth.redirect_uri", Value::String(c.redirect_uri.clone()));
    }
    let ctx = Arc::new(
        Context::new(spec, validators, transport, base_url, token, secrets, oauth)
            .with_options(config.check_options.clone()),
    );
    if let Some(probe) = reached {
        ctx.reach.add_probe(probe);
    }
    Ok(Connected {
        ctx,
        vars,
        oauth_client: client.is_some(),
    })
}

/// Whether a header the run sends with every request carries credentials.
pub(super) fn headers_carry(config: &Config, spec: &Spec) -> bool {
    let t = &config.transport;
    access::header_credentials(spec, &t.headers)
        || access::header_credentials(spec, &t.public_headers)
}
