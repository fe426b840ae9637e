//! API keys: random strings stored as SHA-256 digests and checked in constant time (never
//! logged).

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Shortest API key accepted by [`hash_api_key`]: a key is hashed with one fast SHA-256, which is
/// safe only for keys nobody can guess, such as 32 random bytes in Base64 (43 characters).
pub const MIN_API_KEY_LEN: usize = 32;

/// The prefix of a stored API-key digest.
const KEY_PREFIX: &str = "sha256:";

/// An API key that cannot be hashed, or a stored digest that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The API key is too short to be hashed with a fast hash.
    #[error("an API key must have at least {MIN_API_KEY_LEN} characters (use random bytes, e.g. `openssl rand -base64 32`)")]
    ShortKey,
    /// A stored key digest is not `sha256:` and 64 hex digits.
    #[error(
        "not a key digest `sha256:<64 hex digits>` (make one with `modoai hash-secret --api-key`)"
    )]
    KeyHash,
}

/// Hashes an API key for storing: `sha256:` and the hex SHA-256 of the key.
pub fn hash_api_key(key: &str) -> Result<String, KeyError> {
    if key.chars().count() < MIN_API_KEY_LEN {
        return Err(KeyError::ShortKey);
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

/// A stored API key: the SHA-256 of the key, as [`hash_api_key`] writes it. Its `Debug` shows
/// nothing of the digest.
///
/// ```
/// use modoai_gate::{generate_api_key, hash_api_key, KeyDigest};
/// let key = generate_api_key();
/// let stored = KeyDigest::parse(&hash_api_key(&key)?)?;
/// assert!(stored.matches(&KeyDigest::of(&key)));
/// assert!(!stored.matches(&KeyDigest::of("another key")));
/// # Ok::<(), modoai_gate::KeyError>(())
/// ```
#[derive(Clone)]
pub struct KeyDigest([u8; 32]);

impl KeyDigest {
    /// Reads a stored digest (`sha256:` and 64 hex digits).
    pub fn parse(stored: &str) -> Result<Self, KeyError> {
        let digits = stored.strip_prefix(KEY_PREFIX).ok_or(KeyError::KeyHash)?;
        let mut out = [0u8; 32];
        // Exactly 64 hex digits, either case: any other length or character is an error.
        hex::decode_to_slice(digits, &mut out).map_err(|_| KeyError::KeyHash)?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(hash_api_key("short"), Err(KeyError::ShortKey));
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
}
