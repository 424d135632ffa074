//! Secrets: generation (256 OS-random bits), storage form (SHA-256 digest, so neither
//! memory dumps of the index nor the state file hold a usable token) and comparison in
//! constant time, plus the PKCE S256 check of RFC 7636.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq;

/// The SHA-256 digest of a secret: how tokens and codes are indexed and persisted.
/// Looking a token up by its digest leaks, through timing, at most something about the
/// digest, which does not help forge the token.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Digest(pub(crate) [u8; 32]);

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Digest(<redacted>)")
    }
}

impl Digest {
    pub(crate) fn of(secret: &str) -> Self {
        Digest(Sha256::digest(secret.as_bytes()).into())
    }

    /// Constant-time equality, used to confirm a lookup by digest.
    pub(crate) fn ct_eq(&self, other: &Digest) -> bool {
        self.0.ct_eq(&other.0).into()
    }

    pub(crate) fn to_hex(self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub(crate) fn from_hex(s: &str) -> Option<Self> {
        if s.len() != 64 || !s.is_ascii() {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Digest(out))
    }
}

/// A fresh secret of 256 random bits from the OS, base64url without padding (43 chars,
/// all of them legal in a bearer token, a URL and a form body).
pub(crate) fn random_token() -> String {
    let mut bytes = [0u8; 32];
    // getrandom fails only when the OS has no entropy source at all; there is no safe
    // fallback for secrets, so the server refuses to issue rather than weaken them.
    getrandom::fill(&mut bytes).expect("the OS random source is unavailable");
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Constant-time comparison of two strings (client secrets).
pub(crate) fn ct_str_eq(a: &str, b: &str) -> bool {
    Digest::of(a).ct_eq(&Digest::of(b))
}

/// Whether `verifier` matches an S256 `challenge` (RFC 7636 §4.6), in constant time.
/// A verifier outside the RFC's alphabet or length (43..=128) never matches.
pub(crate) fn pkce_s256_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let equal: bool = computed.as_bytes().ct_eq(challenge.as_bytes()).into();
    well_formed && equal
}

/// Whether `challenge` has the shape of an S256 challenge (43 base64url characters).
pub(crate) fn is_s256_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
}

/// Decodes standard base64 (HTTP Basic credentials); `None` when malformed.
pub(crate) fn b64_decode(text: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

/// Base64url without padding, for the unsigned `id_token`.
pub(crate) fn b64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // Challenge computed with Python: base64url(sha256(verifier)) without padding.
    fn s256_matches_an_independently_computed_challenge() {
        let verifier = "dBjftJeZ4CVP-mJ92K9x5uXS6MclkmTzqFD63ds0ArI";
        let challenge = "-g-uO6FcKkMqjKNKk3Z4ahLqGmvoiGZxqam9immlzzM";
        assert!(is_s256_challenge(challenge));
        assert!(pkce_s256_matches(verifier, challenge));
        assert!(!pkce_s256_matches(
            "dBjftJeZ4CVP-mJ92K9x5uXS6MclkmTzqFD63ds0ArJ",
            challenge
        ));
        assert!(!pkce_s256_matches("short", challenge));
    }

    #[test]
    fn tokens_are_256_bits_and_distinct() {
        let a = random_token();
        assert_eq!(a.len(), 43);
        assert_ne!(a, random_token());
    }

    #[test]
    fn digest_hex_round_trips_and_debug_hides_it() {
        let d = Digest::of("secret");
        assert_eq!(Digest::from_hex(&d.to_hex()), Some(d));
        assert!(Digest::from_hex("zz").is_none());
        assert!(!format!("{d:?}").contains(&d.to_hex()));
        assert!(ct_str_eq("a", "a") && !ct_str_eq("a", "b"));
    }
}
