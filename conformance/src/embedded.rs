//! The reference server as the run's default target. Behind the `embedded` feature (on by
//! default) so the harness can be built alone to test third-party servers.

use crate::error::HarnessError;
use crate::oauth_client::OAuthClient;

/// How to start the embedded server (faults for the harness's own tests).
#[cfg(feature = "embedded")]
pub type ServerConfig = reference_server::Config;

/// How to start the embedded server: nothing to configure without the feature.
#[cfg(not(feature = "embedded"))]
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    _nothing: (),
}

/// A running embedded server.
pub struct Embedded {
    #[cfg(feature = "embedded")]
    server: reference_server::RunningServer,
}

impl Embedded {
    /// Starts the server on a free port of 127.0.0.1.
    pub async fn spawn(config: ServerConfig) -> Result<Embedded, HarnessError> {
        #[cfg(feature = "embedded")]
        {
            reference_server::spawn(config)
                .await
                .map(|server| Embedded { server })
                .map_err(|e| {
                    HarnessError::Embedded(format!("cannot start the reference server: {e}"))
                })
        }
        #[cfg(not(feature = "embedded"))]
        {
            let _ = config;
            Err(HarnessError::Embedded(
                "this build has no embedded reference server (feature `embedded`): give --base-url"
                    .into(),
            ))
        }
    }

    /// Base URL including `/v1`.
    pub fn base_url(&self) -> String {
        #[cfg(feature = "embedded")]
        return self.server.base_url();
        #[cfg(not(feature = "embedded"))]
        unreachable!("never constructed without the feature")
    }

    /// Origin (the authorization step lives there).
    pub fn origin(&self) -> String {
        #[cfg(feature = "embedded")]
        return self.server.origin();
        #[cfg(not(feature = "embedded"))]
        unreachable!("never constructed without the feature")
    }

    /// The demo OAuth client (its secret is never printed, `Debug` included).
    pub fn demo_client(&self) -> OAuthClient {
        #[cfg(feature = "embedded")]
        {
            let d = self.server.demo_client();
            OAuthClient {
                client_id: d.client_id,
                client_secret: d.client_secret,
                redirect_uri: d.redirect_uri,
            }
        }
        #[cfg(not(feature = "embedded"))]
        unreachable!("never constructed without the feature")
    }

    /// A bearer token for the demo user.
    pub fn issue_token(&self) -> String {
        #[cfg(feature = "embedded")]
        return self.server.issue_token();
        #[cfg(not(feature = "embedded"))]
        unreachable!("never constructed without the feature")
    }

    /// Stops the server.
    pub async fn shutdown(self) {
        #[cfg(feature = "embedded")]
        self.server.shutdown().await;
    }
}
