//! The reference server as the run's default target. Behind the `embedded` feature (on by
//! default) so the harness can be built alone to test third-party servers. It serves on a
//! loopback port the OS picks, or (`--in-process`) takes the run's requests in this
//! process with no socket at all.

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
    server: Server,
}

/// Where the embedded server runs.
#[cfg(feature = "embedded")]
enum Server {
    /// On a loopback port.
    Served(reference_server::RunningServer),
    /// In this process, called by the transport.
    InProcess(reference_server::InProcessServer),
}

#[cfg(feature = "embedded")]
impl Embedded {
    fn handle(&self) -> &reference_server::Handle {
        match &self.server {
            Server::Served(s) => s.handle(),
            Server::InProcess(s) => s.handle(),
        }
    }
}

impl Embedded {
    /// Starts the server on a free port of 127.0.0.1.
    pub async fn spawn(config: ServerConfig) -> Result<Embedded, HarnessError> {
        #[cfg(feature = "embedded")]
        {
            reference_server::spawn(config)
                .await
                .map(|server| Embedded {
                    server: Server::Served(server),
                })
                .map_err(|e| {
                    HarnessError::Embedded(format!("cannot start the reference server: {e}"))
                })
        }
        #[cfg(not(feature = "embedded"))]
        {
            let _ = config;
            Err(no_server())
        }
    }

    /// Builds the server's app in this process: nothing listens, the transport calls it.
    pub fn in_process(config: ServerConfig) -> Result<Embedded, HarnessError> {
        #[cfg(feature = "embedded")]
        {
            reference_server::in_process(config)
                .map(|server| Embedded {
                    server: Server::InProcess(server),
                })
                .map_err(|e| {
                    HarnessError::Embedded(format!("cannot build the reference server: {e}"))
                })
        }
        #[cfg(not(feature = "embedded"))]
        {
            let _ = config;
            Err(no_server())
        }
    }

    /// The app to hand requests to when the server runs in this process.
    pub fn app(&self) -> Option<crate::in_process::InProcess> {
        #[cfg(feature = "embedded")]
        return match &self.server {
            Server::Served(_) => None,
            Server::InProcess(s) => Some(crate::in_process::InProcess::new(s.router())),
        };
        #[cfg(not(feature = "embedded"))]
        unreachable!("never constructed without the feature")
    }

    /// Base URL including `/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.origin())
    }

    /// Origin (the authorization step lives there).
    pub fn origin(&self) -> String {
        #[cfg(feature = "embedded")]
        return match &self.server {
            Server::Served(s) => s.origin(),
            Server::InProcess(_) => crate::in_process::ORIGIN.to_string(),
        };
        #[cfg(not(feature = "embedded"))]
        unreachable!("never constructed without the feature")
    }

    /// The demo OAuth client (its secret is never printed, `Debug` included).
    pub fn demo_client(&self) -> OAuthClient {
        #[cfg(feature = "embedded")]
        {
            let d = self.handle().demo_client();
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
        return self.handle().issue_token();
        #[cfg(not(feature = "embedded"))]
        unreachable!("never constructed without the feature")
    }

    /// Stops the server (one in process has nothing to stop).
    pub async fn shutdown(self) {
        #[cfg(feature = "embedded")]
        if let Server::Served(s) = self.server {
            s.shutdown().await;
        }
    }
}

#[cfg(not(feature = "embedded"))]
fn no_server() -> HarnessError {
    HarnessError::Embedded(
        "this build has no embedded reference server (feature `embedded`): give --base-url".into(),
    )
}
