//! Access and refresh tokens (decision 10, 13): issued as 256 random bits, held only as
//! SHA-256 digests, confirmed in constant time, expiring after their lifetime. A
//! refresh rotates the pair: the old refresh token and the access token issued with it
//! stop working at once.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::secret::{Digest, random_token};

/// Lifetime of an access token in seconds (the platform's 90 minutes, decision 10).
pub const ACCESS_TOKEN_LIFETIME: u64 = 5400;
/// Lifetime of a refresh token in seconds.
pub const REFRESH_TOKEN_LIFETIME: u64 = 5400;
/// Bound on live tokens, so a client looping on the token endpoint cannot exhaust
/// memory; the oldest are dropped first once it is reached.
const MAX_LIVE_TOKENS: usize = 100_000;

/// Who a token speaks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Grant {
    pub(crate) user_id: i64,
    pub(crate) client_id: String,
}

#[derive(Clone, Debug)]
struct AccessEntry {
    grant: Grant,
    expires_at: u64,
}

#[derive(Clone, Debug)]
struct RefreshEntry {
    grant: Grant,
    expires_at: u64,
    access: Digest,
}

/// A freshly issued pair; the only place the plain tokens exist on the server.
pub(crate) struct IssuedPair {
    pub(crate) access_token: String,
    pub(crate) refresh_token: String,
}

impl std::fmt::Debug for IssuedPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IssuedPair(<redacted>)")
    }
}

/// Why a refresh failed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RefreshError {
    /// Unknown, expired or already rotated.
    Invalid,
    /// Issued to another client.
    WrongClient,
}

/// All live tokens.
#[derive(Debug, Default)]
pub(crate) struct TokenStore {
    access: HashMap<Digest, AccessEntry>,
    refresh: HashMap<Digest, RefreshEntry>,
}

/// The persisted form of one token: its digest, never the token.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredToken {
    digest: String,
    #[serde(flatten)]
    grant: Grant,
    expires_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    access: Option<String>,
}

/// The persisted form of the store.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredTokens {
    access: Vec<StoredToken>,
    refresh: Vec<StoredToken>,
}

impl TokenStore {
    /// Issues an access token alone (the `issue_token` test and demo hook).
    pub(crate) fn issue_access(&mut self, grant: Grant, now: u64) -> String {
        self.purge(now);
        let token = random_token();
        self.access.insert(
            Digest::of(&token),
            AccessEntry {
                grant,
                expires_at: now.saturating_add(ACCESS_TOKEN_LIFETIME),
            },
        );
        token
    }

    /// Issues an access token and its refresh token.
    pub(crate) fn issue_pair(&mut self, grant: Grant, now: u64) -> IssuedPair {
        let access_token = self.issue_access(grant.clone(), now);
        let refresh_token = random_token();
        self.refresh.insert(
            Digest::of(&refresh_token),
            RefreshEntry {
                grant,
                expires_at: now.saturating_add(REFRESH_TOKEN_LIFETIME),
                access: Digest::of(&access_token),
            },
        );
        IssuedPair {
            access_token,
            refresh_token,
        }
    }

    /// The grant of a live access token.
    pub(crate) fn authenticate(&self, token: &str, now: u64) -> Option<&Grant> {
        let digest = Digest::of(token);
        let (stored, entry) = self.access.get_key_value(&digest)?;
        (stored.ct_eq(&digest) && entry.expires_at > now).then_some(&entry.grant)
    }

    /// Rotates a refresh token: the old refresh token and its access token are revoked
    /// and a new pair is issued for the same grant.
    pub(crate) fn refresh(
        &mut self,
        refresh_token: &str,
        client_id: &str,
        now: u64,
    ) -> Result<IssuedPair, RefreshError> {
        let digest = Digest::of(refresh_token);
        let entry = match self.refresh.get_key_value(&digest) {
            Some((stored, entry)) if stored.ct_eq(&digest) && entry.expires_at > now => {
                entry.clone()
            }
            _ => return Err(RefreshError::Invalid),
        };
        if entry.grant.client_id != client_id {
            return Err(RefreshError::WrongClient);
        }
        self.refresh.remove(&digest);
        self.access.remove(&entry.access);
        Ok(self.issue_pair(entry.grant, now))
    }

    fn purge(&mut self, now: u64) {
        self.access.retain(|_, e| e.expires_at > now);
        self.refresh.retain(|_, e| e.expires_at > now);
        trim(&mut self.access, |e| e.expires_at);
        trim(&mut self.refresh, |e| e.expires_at);
    }

    pub(crate) fn to_stored(&self) -> StoredTokens {
        let mut out = StoredTokens {
            access: self
                .access
                .iter()
                .map(|(d, e)| StoredToken {
                    digest: d.to_hex(),
                    grant: e.grant.clone(),
                    expires_at: e.expires_at,
                    access: None,
                })
                .collect(),
            refresh: self
                .refresh
                .iter()
                .map(|(d, e)| StoredToken {
                    digest: d.to_hex(),
                    grant: e.grant.clone(),
                    expires_at: e.expires_at,
                    access: Some(e.access.to_hex()),
                })
                .collect(),
        };
        // Deterministic file content for the same state.
        out.access.sort_by(|a, b| a.digest.cmp(&b.digest));
        out.refresh.sort_by(|a, b| a.digest.cmp(&b.digest));
        out
    }

    pub(crate) fn from_stored(stored: StoredTokens) -> Result<Self, String> {
        let mut store = TokenStore::default();
        for t in stored.access {
            let d = Digest::from_hex(&t.digest).ok_or("tokens.access: bad digest")?;
            store.access.insert(
                d,
                AccessEntry {
                    grant: t.grant,
                    expires_at: t.expires_at,
                },
            );
        }
        for t in stored.refresh {
            let d = Digest::from_hex(&t.digest).ok_or("tokens.refresh: bad digest")?;
            let access = t
                .access
                .as_deref()
                .and_then(Digest::from_hex)
                .ok_or("tokens.refresh: bad access digest")?;
            store.refresh.insert(
                d,
                RefreshEntry {
                    grant: t.grant,
                    expires_at: t.expires_at,
                    access,
                },
            );
        }
        Ok(store)
    }
}

/// Drops the entries that expire first until the map is under the bound.
fn trim<V>(map: &mut HashMap<Digest, V>, expires_at: impl Fn(&V) -> u64) {
    if map.len() < MAX_LIVE_TOKENS {
        return;
    }
    let mut by_expiry: Vec<(u64, Digest)> = map.iter().map(|(d, v)| (expires_at(v), *d)).collect();
    by_expiry.sort_unstable_by_key(|(t, _)| *t);
    let excess = map.len() + 1 - MAX_LIVE_TOKENS;
    for (_, d) in by_expiry.into_iter().take(excess) {
        map.remove(&d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant() -> Grant {
        Grant {
            user_id: 1,
            client_id: "c".into(),
        }
    }

    #[test]
    fn tokens_expire_after_their_lifetime() {
        let mut s = TokenStore::default();
        let t = s.issue_access(grant(), 1000);
        assert!(
            s.authenticate(&t, 1000 + ACCESS_TOKEN_LIFETIME - 1)
                .is_some()
        );
        assert!(s.authenticate(&t, 1000 + ACCESS_TOKEN_LIFETIME).is_none());
        assert!(s.authenticate("nope", 1000).is_none());
    }

    #[test]
    fn refresh_rotates_and_revokes_the_old_pair() {
        let mut s = TokenStore::default();
        let old = s.issue_pair(grant(), 10);
        assert_eq!(
            s.refresh(&old.refresh_token, "other", 11).unwrap_err(),
            RefreshError::WrongClient
        );
        let new = s.refresh(&old.refresh_token, "c", 11).unwrap();
        assert!(s.authenticate(&old.access_token, 11).is_none());
        assert!(s.authenticate(&new.access_token, 11).is_some());
        assert_eq!(
            s.refresh(&old.refresh_token, "c", 12).unwrap_err(),
            RefreshError::Invalid
        );
    }

    #[test]
    fn stored_form_round_trips_without_plain_tokens() {
        let mut s = TokenStore::default();
        let pair = s.issue_pair(grant(), 10);
        let stored = s.to_stored();
        let json = serde_json::to_string(&stored).unwrap();
        assert!(!json.contains(&pair.access_token) && !json.contains(&pair.refresh_token));
        let back = TokenStore::from_stored(stored).unwrap();
        assert!(back.authenticate(&pair.access_token, 11).is_some());
    }
}
