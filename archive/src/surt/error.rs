//! Why a URL has no SURT: [`SurtError`].

/// Why a URL has no SURT (the Python package raises an exception for these).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SurtError {
    /// The URL holds only whitespace.
    #[error("url is blank")]
    Blank,
    /// The authority's port is not a decimal number in 0..=65535.
    #[error("invalid port {0:?}")]
    InvalidPort(String),
}
