//! `--fixtures FILE`: target data the harness cannot discover through the API (known scope
//! names, whether the user's contact record may be changed, an OAuth client and code).
//! Top-level keys become variables of the same name; `oauth.*` keys become `oauth.<key>`.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::HarnessError;

/// Top-level keys the fixtures themselves read; others must be variables the contract
/// files read (their `vars` or `fixtures:` lists).
pub const KEYS: &[&str] = &[
    "allow_writes",
    "allow_destructive",
    "oauth",
    "restore",
    "session",
];

/// `session:`: a throwaway account the run logs into for the requests that end or change
/// a session or a credential (a logout, a revoke, a password change), which are never
/// sent with the credentials the run was given. `Debug` shows the body's keys only: its
/// values (a password) are secrets.
#[derive(Clone, Default, PartialEq)]
pub struct SessionLogin {
    /// The spec's login or token operation; inferred when absent (see
    /// `runner::session::login_operation`).
    pub operation: Option<String>,
    /// The login request's body fields (`username`, `password`, …), sent as the
    /// operation's request media type says (a form or JSON).
    pub body: Map<String, Value>,
    /// A JSON pointer to the token in the login's answer; when absent, the first of
    /// `access_token`, `token`, `accessToken`, `id_token`, `jwt` at the top.
    pub token: Option<String>,
}

impl std::fmt::Debug for SessionLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionLogin")
            .field("operation", &self.operation)
            .field("body", &self.body.keys().collect::<Vec<_>>())
            .field("token", &self.token)
            .finish()
    }
}

/// The parsed fixtures. `Debug` leaves the client secret and the code out.
#[derive(Clone, Default)]
pub struct Fixtures {
    /// Whether requests that change the target's state may be sent (`--allow-writes`).
    pub allow_writes: bool,
    /// Whether requests that may delete or overwrite data the run did not create may be
    /// sent (`--allow-destructive`).
    pub allow_destructive: bool,
    /// Variables for the contract files.
    pub vars: Map<String, Value>,
    /// OAuth client id.
    pub client_id: Option<String>,
    /// OAuth client secret.
    pub client_secret: Option<String>,
    /// OAuth redirect URI.
    pub redirect_uri: Option<String>,
    /// A single-use authorization code.
    pub code: Option<String>,
    /// The target's authorization endpoint, when it approves by itself.
    pub authorize_url: Option<String>,
    /// The code may be used more than once (a stateless mock such as Prism).
    pub code_reusable: bool,
    /// `restore`: per writing operation, the body that puts the target's record back as
    /// it was before the run. The operations may offer no read of the record (the contact
    /// update answers with the record after its change), so only the user knows them.
    pub restore: Vec<(String, Map<String, Value>)>,
    /// `session`: the throwaway account session-ending requests are sent with.
    pub session: Option<SessionLogin>,
}

impl std::fmt::Debug for Fixtures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fixtures")
            .field("allow_writes", &self.allow_writes)
            .field("allow_destructive", &self.allow_destructive)
            .field("vars", &self.vars)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("redirect_uri", &self.redirect_uri)
            .field("code", &self.code.as_ref().map(|_| "<redacted>"))
            .field("authorize_url", &self.authorize_url)
            .field("code_reusable", &self.code_reusable)
            .field("restore", &self.restore)
            .field("session", &self.session)
            .finish()
    }
}

impl Fixtures {
    /// These fixtures with the command line's (and the environment's) OAuth settings in
    /// place of their own; a code given explicitly is used rather than one the authorize
    /// step would fetch.
    pub fn overridden_by(mut self, config: &crate::run_config::Config) -> Fixtures {
        let credentials = &config.credentials;
        for (given, slot) in [
            (&credentials.client_id, &mut self.client_id),
            (&credentials.client_secret, &mut self.client_secret),
            (&credentials.redirect_uri, &mut self.redirect_uri),
            (&credentials.auth_code, &mut self.code),
        ] {
            if let Some(v) = given {
                *slot = Some(v.clone());
            }
        }
        if credentials.auth_code.is_some() {
            self.authorize_url = None;
        }
        self.allow_writes |= config.allow_writes;
        self.allow_destructive |= config.allow_destructive;
        self
    }

    /// Reads a fixtures file.
    pub fn load(path: &Path) -> Result<Fixtures, HarnessError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            HarnessError::Config(format!("cannot read fixtures {}: {e}", path.display()))
        })?;
        Fixtures::parse(&text)
            .map_err(|e| HarnessError::Config(format!("fixtures {}: {e}", path.display())))
    }

    /// Parses fixtures text.
    pub fn parse(text: &str) -> Result<Fixtures, String> {
        let doc: Value = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        let Value::Object(map) = doc else {
            return Err("the fixtures must be a mapping".into());
        };
        let mut fx = Fixtures::default();
        for (k, v) in map {
            match (k.as_str(), v) {
                ("allow_writes", Value::Bool(b)) => fx.allow_writes = b,
                ("allow_writes", other) => {
                    return Err(format!("allow_writes must be true or false, not {other}"));
                }
                ("allow_destructive", Value::Bool(b)) => fx.allow_destructive = b,
                ("allow_destructive", other) => {
                    return Err(format!(
                        "allow_destructive must be true or false, not {other}"
                    ));
                }
                ("oauth", Value::Object(o)) => {
                    for (ok, ov) in o {
                        if ok == "code_reusable" {
                            fx.code_reusable = ov
                                .as_bool()
                                .ok_or("oauth.code_reusable must be true or false")?;
                            continue;
                        }
                        let s = ov
                            .as_str()
                            .ok_or(format!("oauth.{ok} must be a string"))?
                            .to_string();
                        match ok.as_str() {
                            "client_id" => fx.client_id = Some(s),
                            "client_secret" => fx.client_secret = Some(s),
                            "redirect_uri" => fx.redirect_uri = Some(s),
                            "code" => fx.code = Some(s),
                            "authorize_url" => fx.authorize_url = Some(s),
                            other => return Err(format!("unknown key oauth.{other}")),
                        }
                    }
                }
                ("oauth", _) => return Err("oauth must be a mapping".into()),
                ("restore", Value::Object(o)) => {
                    for (op, body) in o {
                        let Value::Object(body) = body else {
                            return Err(format!(
                                "restore.{op} must be a mapping of the body fields that put the record back"
                            ));
                        };
                        fx.restore.push((op, body));
                    }
                }
                ("session", Value::Object(o)) => fx.session = Some(parse_session(o)?),
                ("session", _) => {
                    return Err(
                        "session must be a mapping: operation (optional), body (the login's fields), token (optional JSON pointer)"
                            .into(),
                    );
                }
                ("restore", _) => {
                    return Err(
                        "restore must be a mapping: operationId → the body fields that put the record back"
                            .into(),
                    );
                }
                (_, v) => {
                    fx.vars.insert(k, v);
                }
            }
        }
        Ok(fx)
    }
}

/// Reads `session:`; a key it does not know is an error, so a typo cannot make the run
/// log in with half a body.
fn parse_session(o: Map<String, Value>) -> Result<SessionLogin, String> {
    let mut login = SessionLogin::default();
    for (k, v) in o {
        match (k.as_str(), v) {
            ("operation", Value::String(s)) => login.operation = Some(s),
            ("token", Value::String(s)) if s.starts_with('/') => login.token = Some(s),
            ("token", _) => {
                return Err("session.token must be a JSON pointer such as /access_token".into());
            }
            ("body", Value::Object(b)) if !b.is_empty() => login.body = b,
            ("body", _) => {
                return Err(
                    "session.body must be a mapping of the login's fields (username, password, …)"
                        .into(),
                );
            }
            (other, _) => {
                return Err(format!(
                    "unknown key session.{other} (operation, body, token)"
                ));
            }
        }
    }
    if login.body.is_empty() {
        return Err("session.body is required: the login's fields".into());
    }
    Ok(login)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects_clearly() {
        let f = Fixtures::parse(
            "allow_writes: true\nscope_names: [A, B]\noauth: { client_id: c, client_secret: s }\n",
        )
        .unwrap();
        assert!(f.allow_writes);
        assert_eq!(f.vars["scope_names"], serde_json::json!(["A", "B"]));
        assert_eq!(f.client_secret.as_deref(), Some("s"));
        assert!(
            Fixtures::parse("oauth: { clientid: c }")
                .unwrap_err()
                .contains("oauth.clientid")
        );
        assert!(Fixtures::parse("- a").is_err());
        let f = Fixtures::parse("oauth: { client_secret: hunter2, code: c0de }").unwrap();
        let shown = format!("{f:?}");
        assert!(
            !shown.contains("hunter2") && !shown.contains("c0de"),
            "{shown}"
        );
    }

    #[test]
    fn a_session_login_keeps_its_password_out_of_debug() {
        let f = Fixtures::parse(
            "session: { body: { username: qa, password: s3cret-pw }, token: /data/token }\n",
        )
        .unwrap();
        let login = f.session.clone().unwrap();
        assert_eq!(login.body["password"], "s3cret-pw");
        assert_eq!(login.token.as_deref(), Some("/data/token"));
        assert!(!format!("{f:?}").contains("s3cret-pw"));
        assert!(Fixtures::parse("session: { body: {} }").is_err());
        assert!(
            Fixtures::parse("session: { body: { a: b }, tokn: /x }")
                .unwrap_err()
                .contains("session.tokn")
        );
    }
}
