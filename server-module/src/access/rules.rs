//! [`AccessRules`]: the rules of every format, the users and keys they name, and the trusted
//! proxies; built in code or from `[access]` (config.rs), checked per request in check.rs.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::client::ForwardedHeader;
use super::rule::Rule;
use super::secret::{PasswordDigest, Verified};
use super::KeyDigest;
use super::{AccessError, Cidr};

/// The formats a rule can be given for.
pub(crate) const FORMATS: [&str; 3] = ["oai_dc", "oai_didl", "oai_crate"];

/// Argon2 verifications run at once; beyond, requests get 503 (each takes ~19 MiB and a core
/// for tens of milliseconds, so unbounded verification would be a cheap way to exhaust the host).
const VERIFYING: usize = 2;

/// The access rules of the OAI-PMH route: one [`Rule`] per metadata format (the default rule for
/// formats without one), the users and API keys they name, and the proxies whose forwarding
/// headers are believed. Identify, ListSets and ListMetadataFormats are always open.
/// Defaults to everything open.
#[derive(Clone, Debug)]
pub struct AccessRules {
    realm: String,
    pub(super) users: HashMap<String, PasswordDigest>,
    pub(super) keys: Vec<(String, KeyDigest)>,
    formats: HashMap<String, Rule>,
    default: Rule,
    pub(crate) trusted_proxies: Vec<Cidr>,
    pub(crate) forwarded: ForwardedHeader,
    pub(super) verified: Arc<Verified>,
    pub(super) verifying: Arc<Semaphore>,
}

impl Default for AccessRules {
    fn default() -> Self {
        AccessRules::new()
    }
}

impl AccessRules {
    /// Everything open, no users or keys, no trusted proxies, realm `modoai`.
    pub fn new() -> Self {
        AccessRules {
            realm: "modoai".to_owned(),
            users: HashMap::new(),
            keys: Vec::new(),
            formats: HashMap::new(),
            default: Rule::open(),
            trusted_proxies: Vec::new(),
            forwarded: ForwardedHeader::default(),
            verified: Arc::default(),
            verifying: Arc::new(Semaphore::new(VERIFYING)),
        }
    }

    /// The realm of the `WWW-Authenticate` challenges. Defaults to `modoai`.
    pub fn realm(mut self, realm: impl Into<String>) -> Self {
        self.realm = realm.into();
        self
    }

    /// Adds a user with a password hash of [`super::hash_password`] (an Argon2 PHC string).
    pub fn user(mut self, name: impl Into<String>, phc: &str) -> Result<Self, AccessError> {
        let name = name.into();
        let digest = PasswordDigest::parse(phc).map_err(|error| AccessError::Secret {
            table: "users",
            name: name.clone(),
            error,
        })?;
        self.users.insert(name, digest);
        Ok(self)
    }

    /// Adds an API key by id, with a digest of [`super::hash_api_key`] (`sha256:…`).
    pub fn api_key(mut self, id: impl Into<String>, digest: &str) -> Result<Self, AccessError> {
        let id = id.into();
        let digest = KeyDigest::parse(digest).map_err(|error| AccessError::Secret {
            table: "keys",
            name: id.clone(),
            error: error.into(),
        })?;
        self.keys.retain(|(k, _)| *k != id);
        self.keys.push((id, digest));
        Ok(self)
    }

    /// Sets the rule of a format (`oai_dc`, `oai_didl`, `oai_crate`); the users and keys it
    /// names must have been added.
    pub fn format(mut self, prefix: &str, rule: Rule) -> Result<Self, AccessError> {
        if !FORMATS.contains(&prefix) {
            return Err(AccessError::UnknownFormat(prefix.to_owned()));
        }
        self.validate(prefix, &rule)?;
        self.formats.insert(prefix.to_owned(), rule);
        Ok(self)
    }

    /// Sets the rule of the formats without one of their own. Defaults to [`Rule::open`].
    pub fn default_rule(mut self, rule: Rule) -> Result<Self, AccessError> {
        self.validate("default", &rule)?;
        self.default = rule;
        Ok(self)
    }

    /// Reverse proxies whose forwarding header names the client, and which header that is.
    /// Defaults to none: the TCP peer is the client.
    pub fn trusted_proxies(mut self, ranges: Vec<Cidr>, header: ForwardedHeader) -> Self {
        self.trusted_proxies = ranges;
        self.forwarded = header;
        self
    }

    /// Whether any format needs more than openness (so requests need checking at all).
    pub fn is_open(&self) -> bool {
        self.default.open && self.formats.values().all(|r| r.open)
    }

    pub(crate) fn realm_name(&self) -> &str {
        &self.realm
    }

    /// Checks `rule` against the users and keys added so far.
    fn validate(&self, format: &str, rule: &Rule) -> Result<(), AccessError> {
        rule.validate(
            format,
            |user| self.users.contains_key(user),
            |key| self.keys.iter().any(|(id, _)| id == key),
        )
    }

    /// The rule of a format's requests.
    pub(super) fn rule(&self, prefix: &str) -> &Rule {
        self.formats.get(prefix).unwrap_or(&self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::super::hash_password;
    use super::*;

    #[test]
    fn invalid_rules() {
        let base = || {
            AccessRules::new()
                .user("alice", &hash_password("pw").unwrap())
                .unwrap()
        };
        assert_eq!(
            base().format("oai_x", Rule::open()).unwrap_err(),
            AccessError::UnknownFormat("oai_x".into())
        );
        assert!(matches!(
            base().format("oai_dc", Rule::restricted().users(["bob"])),
            Err(AccessError::UnknownUser { .. })
        ));
        assert!(matches!(
            base().format("oai_dc", Rule::restricted().keys(["k"])),
            Err(AccessError::UnknownKey { .. })
        ));
        assert!(matches!(
            base().format("oai_dc", Rule::open().users(["alice"])),
            Err(AccessError::OpenAndRestricted(_))
        ));
        assert!(matches!(
            base().format(
                "oai_dc",
                Rule::restricted().users(["alice"]).require_all(true)
            ),
            Err(AccessError::RequireAll(_))
        ));
        assert!(matches!(
            AccessRules::new().user("u", "plain"),
            Err(AccessError::Secret { table: "users", .. })
        ));
        assert!(matches!(
            AccessRules::new().api_key("k", "plain"),
            Err(AccessError::Secret { table: "keys", .. })
        ));
        let restricted = base()
            .format("oai_didl", Rule::restricted().users(["alice"]))
            .unwrap();
        assert!(AccessRules::new().is_open() && !restricted.is_open());
    }
}
