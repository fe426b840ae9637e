//! Stored passwords: Argon2id PHC strings, checked off the runtime and remembered for a minute
//! (never logged). API keys, SHA-256 digests compared in constant time, are `modoai_gate`'s.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use argon2::password_hash::{PasswordHash, PasswordVerifier, SaltString};
use argon2::{Argon2, PasswordHasher};
use modoai_gate::KeyError;
use sha2::{Digest, Sha256};
use tokio::time::{Duration, Instant};

/// A secret that cannot be stored or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    /// The password is empty.
    #[error("the password is empty")]
    EmptyPassword,
    /// The API key is too short to be hashed with a fast hash.
    #[error("{}", KeyError::ShortKey)]
    ShortKey,
    /// A stored password hash is no Argon2 PHC string.
    #[error("not an Argon2 PHC string (make one with `modoai hash-secret`)")]
    PasswordHash,
    /// A stored key digest is not `sha256:` and 64 hex digits.
    #[error("{}", KeyError::KeyHash)]
    KeyHash,
}

impl From<KeyError> for SecretError {
    fn from(e: KeyError) -> Self {
        match e {
            KeyError::ShortKey => SecretError::ShortKey,
            KeyError::KeyHash => SecretError::KeyHash,
            // `KeyError` is non-exhaustive; a digest that cannot be read is the nearest meaning.
            _ => SecretError::KeyHash,
        }
    }
}

/// Hashes a password for `[access.users]`: Argon2id with the crate's default (OWASP) parameters
/// and a random 16-byte salt, as a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`).
pub fn hash_password(password: &str) -> Result<String, SecretError> {
    if password.is_empty() {
        return Err(SecretError::EmptyPassword);
    }
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>())
        .expect("16 bytes are a valid salt length");
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("default Argon2 parameters accept any password")
        .to_string())
}

/// A stored password: a checked PHC string.
#[derive(Clone)]
pub(crate) struct PasswordDigest(String);

impl PasswordDigest {
    pub(crate) fn parse(phc: &str) -> Result<Self, SecretError> {
        let parsed = PasswordHash::new(phc).map_err(|_| SecretError::PasswordHash)?;
        if !parsed.algorithm.as_str().starts_with("argon2") || parsed.hash.is_none() {
            return Err(SecretError::PasswordHash);
        }
        Ok(PasswordDigest(phc.to_owned()))
    }

    /// Argon2 verification: slow by design (tens of milliseconds), so call it off the runtime.
    pub(crate) fn verify(&self, password: &str) -> bool {
        let hash = PasswordHash::new(&self.0).expect("checked when parsed");
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    }
}

impl std::fmt::Debug for PasswordDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PasswordDigest(..)")
    }
}

/// How long a verified password is remembered, so a harvester's requests do not each pay for an
/// Argon2 verification.
const REMEMBER: Duration = Duration::from_secs(60);
/// Verified (user, password) pairs remembered at most.
const REMEMBER_MAX: usize = 1024;

/// Recently verified passwords, by the SHA-256 of user, password and stored hash (so a changed
/// hash is never matched by an old entry). Wrong passwords are never remembered. A poisoned lock
/// is recovered: every change of the map is one `insert`, `retain` or `clear`, never left half
/// done.
#[derive(Debug, Default)]
pub(crate) struct Verified {
    seen: Mutex<HashMap<[u8; 32], Instant>>,
}

impl Verified {
    pub(crate) fn fingerprint(user: &str, password: &str, stored: &PasswordDigest) -> [u8; 32] {
        let mut h = Sha256::new();
        for part in [user, password, stored.0.as_str()] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().into()
    }

    pub(crate) fn contains(&self, fp: &[u8; 32]) -> bool {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.get(fp).is_some_and(|at| at.elapsed() < REMEMBER)
    }

    pub(crate) fn insert(&self, fp: [u8; 32]) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.len() >= REMEMBER_MAX {
            seen.retain(|_, at| at.elapsed() < REMEMBER);
            if seen.len() >= REMEMBER_MAX {
                seen.clear();
            }
        }
        seen.insert(fp, Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_round_trip_with_random_salts() {
        let a = hash_password("correct horse").unwrap();
        let b = hash_password("correct horse").unwrap();
        assert!(a.starts_with("$argon2id$v=19$"), "{a}");
        assert_ne!(a, b, "salted");
        let d = PasswordDigest::parse(&a).unwrap();
        assert!(d.verify("correct horse"));
        assert!(!d.verify("correct horse "));
        assert_eq!(hash_password(""), Err(SecretError::EmptyPassword));
        assert_eq!(format!("{d:?}"), "PasswordDigest(..)");
    }

    #[test]
    fn stored_passwords_must_be_argon2() {
        assert!(PasswordDigest::parse("secret").is_err());
        assert!(PasswordDigest::parse("$5$rounds=5000$salt$abc").is_err());
        assert!(PasswordDigest::parse("$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ").is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn verified_passwords_are_forgotten_after_a_minute() {
        let stored = PasswordDigest::parse(&hash_password("pw").unwrap()).unwrap();
        let cache = Verified::default();
        let fp = Verified::fingerprint("alice", "pw", &stored);
        assert!(!cache.contains(&fp));
        cache.insert(fp);
        assert!(cache.contains(&fp));
        assert!(!cache.contains(&Verified::fingerprint("alice", "pw2", &stored)));
        tokio::time::advance(REMEMBER).await;
        assert!(!cache.contains(&fp));
    }
}
