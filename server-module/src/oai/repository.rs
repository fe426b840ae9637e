//! [`Repository`]: what every request shares: the settings, the index, the site, the token codec.

use std::sync::Arc;

use modoai_protocol::OaiError;
use modoai_tools::{PluginResult, Subject};

use crate::config::Config;
use crate::fetch::Site;
use crate::formats::Format;
use crate::index::{Entry, Index};

use super::token::TokenCodec;

/// Everything a request needs: settings, the index and the site behind it.
pub(crate) struct Repository {
    pub(crate) config: Config,
    pub(crate) index: Arc<Index>,
    pub(crate) site: Arc<Site>,
    pub(super) tokens: TokenCodec,
    pub(crate) base_url: String,
    id_prefix: String,
}

impl Repository {
    pub(crate) fn new(config: Config, index: Arc<Index>, site: Arc<Site>) -> Self {
        let secret = config
            .token_secret
            .clone()
            .unwrap_or_else(|| rand::random::<[u8; 32]>().to_vec());
        let tokens = TokenCodec::new(secret, config.token_ttl.as_secs() as i64);
        let base_url = config.oai_base_url();
        let id_prefix = identifier_prefix(&config.base_url);
        Repository {
            config,
            index,
            site,
            tokens,
            base_url,
            id_prefix,
        }
    }

    /// The item identifier of a record: the URL the site serves the file at.
    pub(crate) fn identifier(&self, e: &Entry) -> String {
        self.url_of(&e.path)
    }

    /// The URL the site serves the file of URL path `path` at (relative to the site root,
    /// percent-encoded, as in the index).
    pub(crate) fn url_of(&self, path: &str) -> String {
        format!("{}{}", self.id_prefix, path)
    }

    /// The format of a metadataPrefix, if this repository disseminates it.
    pub(crate) fn format(&self, prefix: &str) -> Option<Format> {
        Format::from_prefix(prefix, self.config.plugins.is_some())
    }

    /// The file of record `e`, as the plugins see it.
    pub(crate) fn subject(&self, e: &Entry) -> Subject {
        let rel = e.rel();
        Subject {
            abs: self.config.root.join(&rel),
            rel,
            mime: e.mime.to_string(),
            size: e.stamp.size,
            mtime_ns: e.stamp.mtime_ns,
            inode: e.stamp.inode,
        }
    }

    /// For `oai_crate`, the plugin results of each entry (`None` for deleted ones); for other
    /// formats, nothing.
    pub(crate) async fn analyse(
        &self,
        page: &[Arc<Entry>],
        format: Format,
    ) -> Vec<Option<Vec<Arc<PluginResult>>>> {
        let Some(plugins) = self
            .config
            .plugins
            .as_ref()
            .filter(|_| format == Format::Crate)
        else {
            return vec![None; page.len()];
        };
        let live: Vec<&Arc<Entry>> = page.iter().filter(|e| !e.deleted).collect();
        let subjects: Vec<Subject> = live.iter().map(|e| self.subject(e)).collect();
        let mut results = plugins.analyse(&subjects).await.into_iter();
        page.iter()
            .map(|e| if e.deleted { None } else { results.next() })
            .collect()
    }

    /// The record an identifier names. Identifiers are compared exactly with the canonical URL;
    /// nothing in them ever reaches the file system, so no identifier can name a file outside
    /// the index, let alone outside the root.
    pub(crate) fn entry(&self, identifier: &str) -> Result<Arc<Entry>, OaiError> {
        identifier
            .strip_prefix(&self.id_prefix)
            .and_then(|path| self.index.get(path))
            .ok_or_else(|| {
                OaiError::new(
                    modoai_protocol::ErrorCode::IdDoesNotExist,
                    "no record has this identifier",
                )
            })
    }
}

/// `scheme://authority/path/` of the document root, the prefix of every identifier.
fn identifier_prefix(base: &http::Uri) -> String {
    let mut path = base.path().to_owned();
    if !path.ends_with('/') {
        path.push('/');
    }
    format!(
        "{}://{}{}",
        base.scheme_str().unwrap_or("http"),
        base.authority().map_or("", |a| a.as_str()),
        path
    )
}
