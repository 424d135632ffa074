//! The server's shared state: the read-only data set, the mutable contact records and
//! tokens, and the optional state file they are persisted to.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::http::HeaderMap;
use trading_api::models::ContactInfo;
use trading_api::server::Problem;

use crate::clock::Clock;
use crate::codes::CodeStore;
use crate::data::{DataSet, OAuthClient};
use crate::error::{ApiError, ServerError};
use crate::fault::{Fault, Faults};
use crate::persist::{Snapshot, StateFile};
use crate::request::bearer_token;
use crate::tokens::{Grant, TokenStore};

/// Everything a handler needs.
#[derive(Debug)]
pub(crate) struct AppState {
    pub(crate) data: DataSet,
    pub(crate) contacts: Mutex<BTreeMap<i64, ContactInfo>>,
    pub(crate) tokens: Mutex<TokenStore>,
    pub(crate) codes: Mutex<CodeStore>,
    pub(crate) clock: Clock,
    pub(crate) faults: Faults,
    state_file: Option<StateFile>,
    /// Serialises snapshot-and-write, so the file on disk only ever moves forward.
    persist_lock: Mutex<()>,
    /// Becomes `true` when the server is asked to stop; ends graceful shutdown's wait
    /// and any deliberately slow answer.
    stopping: tokio::sync::watch::Sender<bool>,
    /// How long a request body may take to arrive (headers have the same bound, set on
    /// the connection).
    pub(crate) read_timeout: std::time::Duration,
}

/// Locks a mutex, recovering the data if a previous holder panicked: every critical
/// section here leaves the data consistent before anything that could panic.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl AppState {
    pub(crate) fn new(
        data: DataSet,
        state_path: Option<PathBuf>,
        faults: &[Fault],
        read_timeout: std::time::Duration,
    ) -> Result<Arc<Self>, ServerError> {
        let mut contacts = data.contacts();
        let mut tokens = TokenStore::default();
        let state_file = state_path.map(StateFile::new);
        if let Some(file) = &state_file
            && let Some(snapshot) = file.load()?
        {
            for c in snapshot.contacts {
                contacts.insert(c.user_id, c);
            }
            tokens =
                TokenStore::from_stored(snapshot.tokens).map_err(|message| ServerError::State {
                    path: file.path().display().to_string(),
                    message,
                })?;
        }
        let state = Arc::new(AppState {
            data,
            contacts: Mutex::new(contacts),
            tokens: Mutex::new(tokens),
            codes: Mutex::new(CodeStore::default()),
            clock: Clock::default(),
            faults: Faults::new(faults),
            state_file,
            persist_lock: Mutex::new(()),
            stopping: tokio::sync::watch::Sender::new(false),
            read_timeout,
        });
        // Write the file at once, so a bad path fails at start-up rather than on the
        // first update.
        state.persist()?;
        Ok(state)
    }

    /// Asks the server to stop.
    pub(crate) fn stop(&self) {
        self.stopping.send_replace(true);
    }

    /// Resolves once the server is asked to stop.
    pub(crate) fn stopped(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.stopping.subscribe();
        async move {
            let _ = rx.wait_for(|stopping| *stopping).await;
        }
    }

    pub(crate) fn has(&self, fault: Fault) -> bool {
        self.faults.has(fault)
    }

    /// The demo client (the first of the data file).
    pub(crate) fn demo_client(&self) -> &OAuthClient {
        &self.data.oauth_clients[0]
    }

    pub(crate) fn client(&self, client_id: &str) -> Option<&OAuthClient> {
        self.data
            .oauth_clients
            .iter()
            .find(|c| c.client_id == client_id)
    }

    /// The grant of the request's bearer token; 401 otherwise (decision 1).
    pub(crate) fn authenticate(&self, headers: &HeaderMap) -> Result<Grant, ApiError> {
        let token = bearer_token(headers).ok_or(ApiError::Unauthorized)?;
        self.grant(token).ok_or(ApiError::Unauthorized)
    }

    /// The grant a live access token stands for.
    pub(crate) fn grant(&self, token: &str) -> Option<Grant> {
        let now = self.clock.now();
        lock(&self.tokens).authenticate(token, now).cloned()
    }

    /// Whether changes are written to a state file.
    pub(crate) fn persists(&self) -> bool {
        self.state_file.is_some()
    }

    /// Writes the current contacts and tokens to the state file, if there is one.
    pub(crate) fn persist(&self) -> Result<(), ServerError> {
        let Some(file) = &self.state_file else {
            return Ok(());
        };
        let _serial = lock(&self.persist_lock);
        let contacts: Vec<ContactInfo> = lock(&self.contacts).values().cloned().collect();
        let tokens = lock(&self.tokens).to_stored();
        file.store(&Snapshot::new(contacts, tokens))
    }

    /// [`Self::persist`] off the async threads; an error is a 500 naming the cause
    /// (the change is not acknowledged).
    pub(crate) async fn persist_async(self: &Arc<Self>) -> Result<(), Problem> {
        if self.state_file.is_none() {
            return Ok(());
        }
        let state = Arc::clone(self);
        match tokio::task::spawn_blocking(move || state.persist()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                tracing::error!(error = %e, "cannot persist state");
                Err(Problem::internal("the change could not be stored"))
            }
            Err(e) => {
                tracing::error!(error = %e, "persistence task failed");
                Err(Problem::internal("the change could not be stored"))
            }
        }
    }
}
