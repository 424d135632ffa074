//! An OAuth client's registration: what a run needs to obtain codes and tokens. Its own
//! room, below both the embedded reference server (which hands out its demo client) and
//! the credentials the run works out (`auth`), which reads that server.

/// An OAuth client registered with the target.
#[derive(Clone)]
pub struct OAuthClient {
    /// Client id.
    pub client_id: String,
    /// Client secret (never printed).
    pub client_secret: String,
    /// Redirect URI the client registered.
    pub redirect_uri: String,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("redirect_uri", &self.redirect_uri)
            .finish()
    }
}
