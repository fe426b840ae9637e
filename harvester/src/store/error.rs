//! What can go wrong between an archive and its object store.

use std::path::PathBuf;

/// An archive could not be moved to, checked in or read from its object store. Every variant
/// leaves the local files as they were: the same command again retries.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The `--store` value is no `s3://BUCKET[/PREFIX]` URL.
    #[error("{0:?} is not an object store URL; expected s3://BUCKET or s3://BUCKET/PREFIX")]
    Url(String),
    /// The store's client could not be set up from the URL and the AWS environment variables.
    #[error("cannot set up the object store {url} (check AWS_REGION and AWS_ENDPOINT_URL)")]
    Config {
        /// The store.
        url: String,
        /// Why.
        #[source]
        source: object_store::Error,
    },
    /// The store refused or did not answer a request: unreachable, wrong credentials, no such
    /// bucket.
    #[error(
        "the object store refused or did not answer {what} {url} (is it reachable, does the \
         bucket exist, are AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY right?)"
    )]
    Request {
        /// The request.
        what: &'static str,
        /// The object or prefix.
        url: String,
        /// The store's answer.
        #[source]
        source: object_store::Error,
    },
    /// An object of the same name holds other bytes: another archive writes to this prefix.
    #[error(
        "{url} exists with other content than {}; another archive may use this prefix: \
         choose another --store prefix",
        local.display()
    )]
    Conflict {
        /// The object.
        url: String,
        /// The local file, kept.
        local: PathBuf,
    },
    /// An uploaded object read back with another size or digest than the local file.
    #[error("{url} does not match {} after upload ({detail}); the local file is kept", local.display())]
    Mismatch {
        /// The object.
        url: String,
        /// The local file, kept.
        local: PathBuf,
        /// What differs.
        detail: String,
    },
    /// A WARC file the journal names is neither on disk nor whole in the store.
    #[error("{name} is neither in {} nor whole in {url}: restore it from a backup", dir.display())]
    Lost {
        /// The file name.
        name: String,
        /// The local WARC folder.
        dir: PathBuf,
        /// The object.
        url: String,
    },
    /// A local file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// A closure that turns an I/O error at `path` into a [`StoreError::Io`].
pub(crate) fn io_at(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.into();
    move |source| StoreError::Io { path, source }
}
