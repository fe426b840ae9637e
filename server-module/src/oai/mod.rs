//! The OAI-PMH endpoint: a repository over the site index, and the handler of its six verbs.

mod handler;
pub(crate) mod response;
mod token;

use std::sync::Arc;

use modoai_protocol::OaiError;

use crate::config::Config;
use crate::fetch::Site;
use crate::index::{Entry, Index};

pub(crate) use handler::handle;
pub(crate) use response::OaiBody;
use token::TokenCodec;

/// Everything a request needs: settings, the index and the site behind it.
pub(crate) struct Repository {
    pub(crate) config: Config,
    pub(crate) index: Arc<Index>,
    pub(crate) site: Arc<Site>,
    tokens: TokenCodec,
    base_url: String,
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
        format!("{}{}", self.id_prefix, e.path)
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
