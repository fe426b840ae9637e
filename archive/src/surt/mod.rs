//! SURT keys: the Internet Archive's URL canonicalisation, byte-compatible with the Python `surt`
//! package 0.3.1 (`surt.surt(url)` with default options), which pywb and cdxj-indexer use for CDXJ
//! keys.
//!
//! ```
//! use modoai_archive::surt::{mementomap_key, surt};
//!
//! let key = surt("HTTP://WWW.Example.COM:80/A/B/Index.HTML?B=2&a=1#Frag")?;
//! assert_eq!(key, "com,example)/a/b/index.html?a=1&b=2");
//! assert_eq!(mementomap_key(&key), "com,example)/a/b/index.html");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The steps follow the package's own pipeline (handyurl parsing, then the Google and IA
//! canonicalisers), including its quirks: the scheme is dropped, the path and query are lowercased
//! (case-only differences collide), and the query is unescaped before it is split on `&`. The
//! differences that remain are documented in the differential test (`tests/surt.rs`).

mod error;
mod escape;
mod host;
mod key;
mod session;
mod url;

pub use error::SurtError;

use key::Parts;

/// Returns the SURT key of `url`, as `surt.surt(url)` does.
///
/// The empty string gives `-`; input starting with `filedesc` passes through unchanged.
pub fn surt(url: &str) -> Result<String, SurtError> {
    if url.is_empty() {
        return Ok("-".to_owned());
    }
    if url.starts_with("filedesc") {
        return Ok(url.to_owned());
    }
    let mut parts = Parts::parse(url.as_bytes())?;
    parts.canonicalize_google();
    parts.canonicalize_ia();
    Ok(parts.into_key())
}

/// The MementoMap key of a SURT (`docs/archivists.md`, "Formats"): the query dropped, then leading and trailing
/// `/` and `,` removed, as the reference tool's `surt.split("?")[0].strip("/,")` does.
///
/// ```
/// use modoai_archive::surt::mementomap_key;
/// assert_eq!(mementomap_key("com,example)/"), "com,example)");
/// assert_eq!(mementomap_key("com,example)/a/2.html?x=1"), "com,example)/a/2.html");
/// ```
pub fn mementomap_key(surt: &str) -> &str {
    let without_query = surt.split('?').next().unwrap_or_default();
    without_query.trim_matches(['/', ','])
}
