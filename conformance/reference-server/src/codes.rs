//! Authorization codes (decision 13, 14): single use, valid ten minutes, bound to the
//! client and redirect URI they were issued for, optionally to a PKCE S256 challenge.
//! Held in memory only: a restart simply makes outstanding codes unknown, which the
//! client answers by authorizing again.

use std::collections::HashMap;

use crate::secret::{Digest, pkce_s256_matches, random_token};

/// Lifetime of a code in seconds.
pub const CODE_LIFETIME: u64 = 600;
/// Bound on outstanding codes, so a loop on the authorization step cannot exhaust memory.
const MAX_CODES: usize = 10_000;

#[derive(Debug, Clone)]
struct CodeEntry {
    client_id: String,
    redirect_uri: String,
    challenge: Option<String>,
    user_id: i64,
    expires_at: u64,
}

/// Why a code was refused; every case maps to `invalid_grant` (RFC 6749 §5.2).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CodeError {
    /// Unknown, expired or already used.
    Unknown,
    /// Issued to another client.
    WrongClient,
    /// `redirect_uri` differs from the one the code was issued for.
    WrongRedirect,
    /// The code was issued with a challenge and the verifier is missing or wrong, or
    /// without one and a verifier was sent.
    Pkce,
}

impl CodeError {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            CodeError::Unknown => "The authorization code is unknown, expired or already used.",
            CodeError::WrongClient => "The authorization code was issued to another client.",
            CodeError::WrongRedirect => {
                "redirect_uri differs from the one the authorization code was issued for."
            }
            CodeError::Pkce => "The PKCE code_verifier does not match the code_challenge.",
        }
    }
}

/// Outstanding codes, indexed by digest.
#[derive(Debug, Default)]
pub(crate) struct CodeStore {
    codes: HashMap<Digest, CodeEntry>,
}

impl CodeStore {
    /// Issues a code.
    pub(crate) fn issue(
        &mut self,
        client_id: &str,
        redirect_uri: &str,
        challenge: Option<String>,
        user_id: i64,
        now: u64,
    ) -> String {
        self.codes.retain(|_, e| e.expires_at > now);
        if self.codes.len() >= MAX_CODES {
            // Drop the code closest to expiry: the oldest outstanding one.
            if let Some(oldest) = self
                .codes
                .iter()
                .min_by_key(|(_, e)| e.expires_at)
                .map(|(d, _)| *d)
            {
                self.codes.remove(&oldest);
            }
        }
        let code = random_token();
        self.codes.insert(
            Digest::of(&code),
            CodeEntry {
                client_id: client_id.to_string(),
                redirect_uri: redirect_uri.to_string(),
                challenge,
                user_id,
                expires_at: now.saturating_add(CODE_LIFETIME),
            },
        );
        code
    }

    /// Redeems a code, returning the user it was issued for. The code is consumed by any
    /// attempt, successful or not, so a leaked code cannot be guessed against.
    pub(crate) fn redeem(
        &mut self,
        code: &str,
        client_id: &str,
        redirect_uri: Option<&str>,
        verifier: Option<&str>,
        now: u64,
    ) -> Result<i64, CodeError> {
        let digest = Digest::of(code);
        let entry = match self.codes.remove_entry(&digest) {
            Some((stored, entry)) if stored.ct_eq(&digest) && entry.expires_at > now => entry,
            _ => return Err(CodeError::Unknown),
        };
        if entry.client_id != client_id {
            return Err(CodeError::WrongClient);
        }
        if redirect_uri != Some(entry.redirect_uri.as_str()) {
            return Err(CodeError::WrongRedirect);
        }
        match (entry.challenge.as_deref(), verifier) {
            (Some(challenge), Some(verifier)) if pkce_s256_matches(verifier, challenge) => {}
            (None, None) => {}
            _ => return Err(CodeError::Pkce),
        }
        Ok(entry.user_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERIFIER: &str = "dBjftJeZ4CVP-mJ92K9x5uXS6MclkmTzqFD63ds0ArI";
    const CHALLENGE: &str = "-g-uO6FcKkMqjKNKk3Z4ahLqGmvoiGZxqam9immlzzM";

    #[test]
    fn a_code_is_single_use_and_bound() {
        let mut s = CodeStore::default();
        let code = s.issue("c", "http://r", Some(CHALLENGE.into()), 7, 0);
        assert_eq!(
            s.redeem(&code, "c", Some("http://r"), Some(VERIFIER), 1),
            Ok(7)
        );
        assert_eq!(
            s.redeem(&code, "c", Some("http://r"), Some(VERIFIER), 1),
            Err(CodeError::Unknown)
        );
        let code = s.issue("c", "http://r", None, 7, 0);
        assert_eq!(
            s.redeem(&code, "d", Some("http://r"), None, 1),
            Err(CodeError::WrongClient)
        );
        let code = s.issue("c", "http://r", None, 7, 0);
        assert_eq!(
            s.redeem(&code, "c", Some("http://x"), None, 1),
            Err(CodeError::WrongRedirect)
        );
        let code = s.issue("c", "http://r", Some(CHALLENGE.into()), 7, 0);
        assert_eq!(
            s.redeem(&code, "c", Some("http://r"), None, 1),
            Err(CodeError::Pkce)
        );
    }

    #[test]
    fn a_code_expires_after_ten_minutes() {
        let mut s = CodeStore::default();
        let code = s.issue("c", "http://r", None, 7, 0);
        assert_eq!(
            s.redeem(&code, "c", Some("http://r"), None, CODE_LIFETIME),
            Err(CodeError::Unknown)
        );
    }
}
