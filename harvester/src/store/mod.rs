//! Archives on S3-compatible object storage: closed WARC files are uploaded, read back and
//! checked, and only then removed locally; the index, ledger and state follow at the end of a
//! run; [`fetch`] downloads the whole archive again.
//!
//! Under the store's prefix the archive keeps its local layout (see
//! [`modoai_archive::archive`]), so a download is an archive every reader (and pywb) opens as it
//! is:
//!
//! ```text
//! PREFIX/warcs/*.warc.gz   closed WARC files, each verified before its local copy is removed
//! PREFIX/ledger.jsonl      uploaded at the end of each run, after the WARC files
//! PREFIX/index.cdxj        the same, so it never names a WARC file the store lacks
//! PREFIX/state.json        the same
//! ```
//!
//! Credentials, region and endpoint come from the standard AWS environment variables
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP`); an `http://` endpoint on a loopback address needs no `AWS_ALLOW_HTTP`.
//!
//! ```
//! use modoai_harvester::store::Store;
//!
//! let store = Store::open("s3://archives/nsl/2026")?;
//! assert_eq!(store.url(), "s3://archives/nsl/2026");
//! assert_eq!(store.child("site-a").url(), "s3://archives/nsl/2026/site-a");
//! assert!(Store::open("/data/archive").is_err());
//! # Ok::<(), modoai_harvester::store::StoreError>(())
//! ```

mod error;
mod fault;
mod fetch;
mod journal;
mod push;
mod transfer;

use std::sync::Arc;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as Key;
use object_store::{ClientOptions, RetryConfig};

pub use error::StoreError;
pub use fetch::{fetch, Fetched};
pub use journal::JOURNAL;
pub use push::{push_files, push_warcs, Pushed};

/// Requests are retried a few times, not for the client's default three minutes: an
/// unreachable store is reported soon, and the next run retries.
const RETRIES: usize = 3;

/// An S3 bucket and a prefix in it: where one archive lives.
#[derive(Clone, Debug)]
pub struct Store {
    s3: Arc<AmazonS3>,
    bucket: String,
    prefix: String,
}

impl Store {
    /// The store of `url` (`s3://BUCKET` or `s3://BUCKET/PREFIX`), its client configured from
    /// the AWS environment variables. Sends no request.
    pub fn open(url: &str) -> Result<Store, StoreError> {
        let (bucket, prefix) = parse(url).ok_or_else(|| StoreError::Url(url.to_owned()))?;
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(&bucket)
            .with_retry(RetryConfig {
                max_retries: RETRIES,
                retry_timeout: std::time::Duration::from_secs(30),
                ..RetryConfig::default()
            });
        if std::env::var("AWS_ENDPOINT_URL").is_ok_and(|e| is_loopback_http(&e)) {
            builder = builder.with_client_options(ClientOptions::new().with_allow_http(true));
        }
        let s3 = builder.build().map_err(|source| StoreError::Config {
            url: url.to_owned(),
            source,
        })?;
        Ok(Store {
            s3: Arc::new(s3),
            bucket,
            prefix,
        })
    }

    /// The store of the prefix `name` under this one (`harvest-list`: one per archive).
    pub fn child(&self, name: &str) -> Store {
        Store {
            prefix: join(&self.prefix, name),
            ..self.clone()
        }
    }

    /// `s3://BUCKET/PREFIX`, for messages.
    pub fn url(&self) -> String {
        self.url_of("")
    }

    /// Checks that the store answers and lets us list the prefix: wrong credentials, a missing
    /// bucket or an unreachable endpoint are reported before a harvest starts.
    pub async fn check(&self) -> Result<(), StoreError> {
        use object_store::ObjectStore as _;
        let prefix = Key::from(self.prefix.as_str());
        self.s3
            .list_with_delimiter(Some(&prefix))
            .await
            .map(drop)
            .map_err(|source| self.refused("a listing of", "", source))
    }

    /// The key of `rel` (a path inside the archive, such as `warcs/x.warc.gz`).
    fn key(&self, rel: &str) -> Key {
        Key::from(join(&self.prefix, rel))
    }

    fn url_of(&self, rel: &str) -> String {
        let path = join(&self.prefix, rel);
        match path.is_empty() {
            true => format!("s3://{}", self.bucket),
            false => format!("s3://{}/{path}", self.bucket),
        }
    }

    fn refused(&self, what: &'static str, rel: &str, source: object_store::Error) -> StoreError {
        StoreError::Request {
            what,
            url: self.url_of(rel),
            source,
        }
    }
}

/// Bucket and prefix (without surrounding slashes) of `s3://BUCKET[/PREFIX]`.
fn parse(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("s3://")?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    if bucket.is_empty() || !bucket.chars().all(valid) || prefix.split('/').any(|s| s == "..") {
        return None;
    }
    Some((bucket.to_owned(), prefix.trim_matches('/').to_owned()))
}

fn join(prefix: &str, rel: &str) -> String {
    match (prefix.is_empty(), rel.is_empty()) {
        (true, _) => rel.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) => format!("{prefix}/{rel}"),
    }
}

/// An `http://` endpoint on 127.0.0.0/8, ::1 or `localhost`: plain HTTP never leaves the machine.
fn is_loopback_http(endpoint: &str) -> bool {
    let Ok(url) = url::Url::parse(endpoint) else {
        return false;
    };
    url.scheme() == "http"
        && match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(d)) => d == "localhost",
            None => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_a_bucket_and_an_optional_prefix() {
        let p = |u: &str| parse(u).map(|(b, p)| format!("{b}|{p}"));
        assert_eq!(p("s3://b").as_deref(), Some("b|"));
        assert_eq!(p("s3://b/").as_deref(), Some("b|"));
        assert_eq!(p("s3://b/x/y/").as_deref(), Some("b|x/y"));
        for bad in ["b/x", "s3:///x", "s3://b c/x", "http://b/x", "s3://b/../x"] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

    #[test]
    fn only_loopback_endpoints_may_use_plain_http() {
        assert!(is_loopback_http("http://127.0.0.1:9000"));
        assert!(is_loopback_http("http://localhost:9000"));
        assert!(is_loopback_http("http://[::1]:9000"));
        assert!(!is_loopback_http("http://s3.example.org"));
        assert!(!is_loopback_http("https://127.0.0.1:9000"));
    }
}
