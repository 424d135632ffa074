//! Credentials that keep working, or a clear stop. Pre-flight ([`super::preflight`])
//! verifies them with one safe secured request and keeps it here. During the run, a
//! secured answer of 401/403 sends that request again: if it is refused too, the
//! credentials died mid-run (a logout or a token rotation the run sent, an expiry), and
//! the run stops sending secured cases rather than blaming the target for each.

use std::sync::Mutex;

use super::Context;
use crate::transport::Request;

/// What the run knows of its credentials while it runs.
#[derive(Default)]
pub struct Watch {
    /// The request pre-flight verified the credentials with, as sent, what it was, and
    /// its operation.
    canary: Mutex<Option<(Request, String, String)>>,
    /// Why the credentials stopped working, once they did.
    dead: Mutex<Option<String>>,
    /// The last request that may have changed state (operation id, method and path),
    /// the likeliest cause when credentials die.
    last_change: Mutex<Option<String>>,
    /// The last few requests sent with the token, any kind: a read can end a session
    /// too (a `GET` the spec does not mark), and it is among these.
    recent: Mutex<std::collections::VecDeque<String>>,
}

/// How many recent requests a death names.
const RECENT: usize = 3;

impl Watch {
    /// Why secured cases are no longer sent, once the credentials died.
    pub fn dead(&self) -> Option<String> {
        self.dead.lock().ok().and_then(|d| d.clone())
    }

    /// Keeps the request pre-flight verified the credentials with: as sent, as shown, and
    /// its operation.
    pub fn set_canary(&self, request: Request, shown: String, operation: String) {
        if let Ok(mut slot) = self.canary.lock() {
            *slot = Some((request, shown, operation));
        }
    }

    /// The request pre-flight verified the credentials with (as sent, as shown, and its
    /// operation), once pre-flight found one.
    pub fn canary(&self) -> Option<(Request, String, String)> {
        self.canary.lock().ok().and_then(|c| c.clone())
    }

    /// Notes a request sent with the token, before it is sent.
    pub fn sending(&self, what: String, changes: bool) {
        if changes && let Ok(mut last) = self.last_change.lock() {
            *last = Some(what.clone());
        }
        if let Ok(mut recent) = self.recent.lock() {
            if recent.len() == RECENT {
                recent.pop_front();
            }
            recent.push_back(what);
        }
    }
}

/// After a secured answer of 401/403: sends the canary again, and if it is refused too,
/// marks the credentials dead, naming the last state-changing request sent before. Returns
/// whether they are dead.
pub async fn recheck(ctx: &Context, refused_op: &str) -> bool {
    if ctx.credentials.dead().is_some() {
        return true;
    }
    let Some((request, shown, canary_op)) = ctx.credentials.canary() else {
        return false;
    };
    let still = ctx.transport.send(&request).await;
    ctx.sent_aside(super::Exchange {
        case: "harness/credentials-recheck".into(),
        auth: Some("token".into()),
        ..super::Exchange::aside(
            &ctx.base_url,
            canary_op,
            &request,
            &still,
            format!("the credentials re-checked ({shown}) after {refused_op} was refused"),
        )
    });
    let Ok(resp) = still else {
        return false;
    };
    if !matches!(resp.status, 401 | 403) {
        return false;
    }
    let before = ctx
        .credentials
        .last_change
        .lock()
        .ok()
        .and_then(|l| l.clone());
    let recent: Vec<String> = ctx
        .credentials
        .recent
        .lock()
        .map(|r| r.iter().cloned().collect())
        .unwrap_or_default();
    let why = format!(
        "the credentials stopped working during the run: {refused_op} was refused ({}) and so was the request pre-flight had verified them with ({shown}); {}; the requests sent just before were {}; secured cases after it were not sent",
        resp.status,
        match before {
            Some(b) => format!("the last request that could change state was {b}"),
            None => "no request that could change state was sent before it".into(),
        },
        recent.join(", ")
    );
    if let Ok(mut dead) = ctx.credentials.dead.lock()
        && dead.is_none()
    {
        *dead = Some(why);
    }
    true
}
