//! Stored secrets: Argon2id PHC strings for passwords, SHA-256 digests for API keys, and the checks
//! of presented credentials against them (constant-time, never logged).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use argon2::password_hash::{PasswordHash, PasswordVerifier, SaltString};
use argon2::{Argon2, PasswordHasher};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio::time::{Duration, Instant};

/// Shortest API key accepted by [`hash_api_key`]: a key is hashed with one fast SHA-256, which is
/// safe only for keys nobody can guess, such as 32 random bytes in Base64 (43 characters).
pub const MIN_API_KEY_LEN: usize = 32;

/// The prefix of a stored API-key digest.
const KEY_PREFIX: &str = "sha256:";

/// A secret that cannot be stored or checked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    /// The password is empty.
    #[error("the password is empty")]
    EmptyPassword,
    /// The API key is too short to be hashed with a fast hash.
    #[error("an API key must have at least {MIN_API_KEY_LEN} characters (use random bytes, e.g. `openssl rand -base64 32`)")]
    ShortKey,
    /// A stored password hash is no Argon2 PHC string.
    #[error("not an Argon2 PHC string (make one with `modoai hash-secret`)")]
    PasswordHash,
    /// A stored key digest is not `sha256:` and 64 hex digits.
    #[error(
        "not a key digest `sha256:<64 hex digits>` (make one with `modoai hash-secret --api-key`)"
    )]
    KeyHash,
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

/// Hashes an API key for `[access.keys]`: `sha256:` and the hex SHA-256 of the key.
pub fn hash_api_key(key: &str) -> Result<String, SecretError> {
    if key.chars().count() < MIN_API_KEY_LEN {
        return Err(SecretError::ShortKey);
    }
    Ok(format!(
        "{KEY_PREFIX}{}",
        hex::encode(Sha256::digest(key.as_bytes()))
    ))
}

/// A new random API key: 32 bytes, URL-safe Base64 (43 characters).
pub fn generate_api_key() -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>())
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

/// A stored API key: the SHA-256 of the key, as [`hash_api_key`] writes it. Its `Debug` shows
/// nothing of the digest.
///
/// ```
/// use modoai::access::{generate_api_key, hash_api_key, KeyDigest};
/// let key = generate_api_key();
/// let stored = KeyDigest::parse(&hash_api_key(&key)?)?;
/// assert!(stored.matches(&KeyDigest::of(&key)));
/// assert!(!stored.matches(&KeyDigest::of("another key")));
/// # Ok::<(), modoai::access::SecretError>(())
/// ```
#[derive(Clone)]
pub struct KeyDigest([u8; 32]);

impl KeyDigest {
    /// Reads a stored digest (`sha256:` and 64 hex digits).
    pub fn parse(stored: &str) -> Result<Self, SecretError> {
        let digits = stored
            .strip_prefix(KEY_PREFIX)
            .ok_or(SecretError::KeyHash)?;
        let mut out = [0u8; 32];
        // Exactly 64 hex digits, either case: any other length or character is an error.
        hex::decode_to_slice(digits, &mut out).map_err(|_| SecretError::KeyHash)?;
        Ok(KeyDigest(out))
    }

    /// The digest a presented key is compared with.
    pub fn of(key: &str) -> Self {
        KeyDigest(Sha256::digest(key.as_bytes()).into())
    }

    /// Constant-time equality, so response timing tells nothing about how much of a key matched.
    pub fn matches(&self, presented: &KeyDigest) -> bool {
        self.0.ct_eq(&presented.0).into()
    }
}

impl std::fmt::Debug for KeyDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyDigest(..)")
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

    #[test]
    fn api_keys() {
        let key = generate_api_key();
        assert_eq!(key.len(), 43);
        let stored = hash_api_key(&key).unwrap();
        assert!(
            stored.starts_with("sha256:") && stored.len() == 7 + 64,
            "{stored}"
        );
        let d = KeyDigest::parse(&stored).unwrap();
        assert!(d.matches(&KeyDigest::of(&key)));
        assert!(!d.matches(&KeyDigest::of(&generate_api_key())));
        assert_eq!(hash_api_key("short"), Err(SecretError::ShortKey));
        // The digest of "abc" (FIPS 180-2 example), to pin the format.
        let abc = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert!(KeyDigest::parse(abc)
            .unwrap()
            .matches(&KeyDigest::of("abc")));
        // Upper-case digits are read as before.
        assert!(
            KeyDigest::parse(&abc.to_uppercase().replace("SHA256:", "sha256:"))
                .unwrap()
                .matches(&KeyDigest::of("abc"))
        );
        for bad in [
            &abc[..abc.len() - 2],
            "ba7816bf",
            "sha256:xyz",
            "sha1:ba7816bf8f01cfea414140de5dae2223b00361a3",
        ] {
            assert!(KeyDigest::parse(bad).is_err(), "{bad}");
        }
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
