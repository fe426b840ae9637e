//! Who may ask, and how often: API keys, the credentials of the `Authorization` header and token
//! buckets, shared by the modoai server's access rules and the explorer's API keys.
//!
//! A key is made once ([`generate_api_key`]) and stored as a digest ([`hash_api_key`]); a request
//! presents it as `Authorization: Bearer KEY` ([`Credentials`]), is compared with the stored
//! digest in constant time ([`KeyDigest`]) and takes a token from its caller's bucket
//! ([`Buckets`]).
//!
//! ```
//! use http::{header::AUTHORIZATION, HeaderMap, HeaderValue};
//! use modoai_gate::{generate_api_key, hash_api_key, Buckets, Credentials, KeyDigest, Rate};
//! let key = generate_api_key();
//! let stored = KeyDigest::parse(&hash_api_key(&key)?)?;
//! let mut headers = HeaderMap::new();
//! headers.insert(AUTHORIZATION, HeaderValue::from_str(&format!("bearer {key}"))?);
//! let Credentials::Bearer(presented) = Credentials::from_headers(&headers) else {
//!     unreachable!("a well-formed Bearer header was just made");
//! };
//! assert!(stored.matches(&KeyDigest::of(&presented)));
//! let buckets = Buckets::new(1000);
//! let rate = Rate { per_sec: 5.0, burst: 1 };
//! assert!(buckets.take(&presented, rate, tokio::time::Instant::now()).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bucket;
mod header;
mod key;

pub use bucket::{Buckets, Rate};
pub use header::{challenge, Credentials};
pub use key::{generate_api_key, hash_api_key, KeyDigest, KeyError, MIN_API_KEY_LEN};
