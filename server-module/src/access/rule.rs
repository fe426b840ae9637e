//! [`Rule`] (who may use one metadata format) and [`AccessRules`] (the rules of every format,
//! the users and keys they name, and the trusted proxies), with the check of one request.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::client::ForwardedHeader;
use super::header::Credentials;
use super::secret::{KeyDigest, PasswordDigest, Verified};
use super::{AccessError, Cidr};

/// The formats a rule can be given for.
pub(crate) const FORMATS: [&str; 3] = ["oai_dc", "oai_didl", "oai_crate"];

/// Argon2 verifications run at once; beyond, requests get 503 (each takes ~19 MiB and a core
/// for tens of milliseconds, so unbounded verification would be a cheap way to exhaust the host).
const VERIFYING: usize = 2;

/// Who may receive one metadata format: everyone ([`Rule::open`]), or the users, API keys and
/// address ranges named ([`Rule::restricted`] and its setters). With several mechanisms, any one
/// of them admits a request, unless [`Rule::require_all`] asks for an address in range *and*
/// valid credentials.
///
/// ```
/// use modoai::access::{AccessRules, Rule};
/// let rules = AccessRules::new()
///     .user("harvester", &modoai::access::hash_password("s3cret")?)?
///     .format("oai_didl", Rule::restricted().users(["harvester"]).addresses(["192.0.2.0/24".parse()?]))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    open: bool,
    users: Vec<String>,
    keys: Vec<String>,
    addresses: Vec<Cidr>,
    require_all: bool,
}

impl Rule {
    /// Everyone may use the format.
    pub fn open() -> Self {
        Rule {
            open: true,
            ..Rule::restricted()
        }
    }

    /// No one may use the format, until users, keys or addresses are added.
    pub fn restricted() -> Self {
        Rule {
            open: false,
            users: Vec::new(),
            keys: Vec::new(),
            addresses: Vec::new(),
            require_all: false,
        }
    }

    /// Adds users (HTTP Basic) of [`AccessRules::user`].
    pub fn users<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.users.extend(names.into_iter().map(Into::into));
        self
    }

    /// Adds API keys (HTTP Bearer) of [`AccessRules::api_key`], by id.
    pub fn keys<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Self {
        self.keys.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Adds client address ranges.
    pub fn addresses(mut self, ranges: impl IntoIterator<Item = Cidr>) -> Self {
        self.addresses.extend(ranges);
        self
    }

    /// Whether a request needs both an address in range and valid credentials. Defaults to
    /// false: any one mechanism admits it.
    pub fn require_all(mut self, on: bool) -> Self {
        self.require_all = on;
        self
    }

    fn validate(&self, format: &str, rules: &AccessRules) -> Result<(), AccessError> {
        let named = !self.users.is_empty() || !self.keys.is_empty() || !self.addresses.is_empty();
        if self.open && named {
            return Err(AccessError::OpenAndRestricted(format.to_owned()));
        }
        if self.require_all && (self.addresses.is_empty() || !self.takes_credentials()) {
            return Err(AccessError::RequireAll(format.to_owned()));
        }
        if let Some(user) = self.users.iter().find(|u| !rules.users.contains_key(*u)) {
            return Err(AccessError::UnknownUser {
                format: format.to_owned(),
                user: user.clone(),
            });
        }
        if let Some(key) = self
            .keys
            .iter()
            .find(|k| !rules.keys.iter().any(|(id, _)| id == *k))
        {
            return Err(AccessError::UnknownKey {
                format: format.to_owned(),
                key: key.clone(),
            });
        }
        Ok(())
    }

    fn takes_credentials(&self) -> bool {
        !self.users.is_empty() || !self.keys.is_empty()
    }
}

/// The access rules of the OAI-PMH route: one [`Rule`] per metadata format (the default rule for
/// formats without one), the users and API keys they name, and the proxies whose forwarding
/// headers are believed. Identify, ListSets and ListMetadataFormats are always open.
/// Defaults to everything open.
#[derive(Clone, Debug)]
pub struct AccessRules {
    realm: String,
    users: HashMap<String, PasswordDigest>,
    keys: Vec<(String, KeyDigest)>,
    formats: HashMap<String, Rule>,
    default: Rule,
    pub(crate) trusted_proxies: Vec<Cidr>,
    pub(crate) forwarded: ForwardedHeader,
    verified: Arc<Verified>,
    verifying: Arc<Semaphore>,
}

impl Default for AccessRules {
    fn default() -> Self {
        AccessRules::new()
    }
}

/// What the rules say about one request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Admitted; by these credentials (`user:NAME`, `key:ID`), or by address or openness.
    Allow(Option<String>),
    /// 401: credentials could admit it; challenge for these schemes (Basic, Bearer).
    Challenge { basic: bool, bearer: bool },
    /// 403: the address is refused, or the credentials given do not admit it.
    Forbidden(&'static str),
    /// 503: too many password verifications at once.
    Busy,
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
        let digest = PasswordDigest::parse(phc).map_err(|source| AccessError::Secret {
            table: "users",
            name: name.clone(),
            source,
        })?;
        self.users.insert(name, digest);
        Ok(self)
    }

    /// Adds an API key by id, with a digest of [`super::hash_api_key`] (`sha256:…`).
    pub fn api_key(mut self, id: impl Into<String>, digest: &str) -> Result<Self, AccessError> {
        let id = id.into();
        let digest = KeyDigest::parse(digest).map_err(|source| AccessError::Secret {
            table: "keys",
            name: id.clone(),
            source,
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
        rule.validate(prefix, &self)?;
        self.formats.insert(prefix.to_owned(), rule);
        Ok(self)
    }

    /// Sets the rule of the formats without one of their own. Defaults to [`Rule::open`].
    pub fn default_rule(mut self, rule: Rule) -> Result<Self, AccessError> {
        rule.validate("default", &self)?;
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

    /// The rule of a format's requests.
    fn rule(&self, prefix: &str) -> &Rule {
        self.formats.get(prefix).unwrap_or(&self.default)
    }

    /// Checks a request for `prefix` from `ip` with `creds`.
    pub(crate) async fn check(
        &self,
        prefix: &str,
        ip: Option<IpAddr>,
        creds: Credentials,
    ) -> Verdict {
        let rule = self.rule(prefix);
        if rule.open {
            return Verdict::Allow(None);
        }
        let in_range = ip.is_some_and(|ip| rule.addresses.iter().any(|c| c.contains(ip)));
        if in_range && !rule.require_all {
            return Verdict::Allow(None);
        }
        if (rule.require_all && !in_range) || !rule.takes_credentials() {
            return Verdict::Forbidden("address not admitted");
        }
        match creds {
            Credentials::None | Credentials::Malformed => Verdict::Challenge {
                basic: !rule.users.is_empty(),
                bearer: !rule.keys.is_empty(),
            },
            Credentials::Basic { user, password } => {
                self.check_password(rule, user, password).await
            }
            Credentials::Bearer(key) => self.check_key(rule, &key),
        }
    }

    async fn check_password(&self, rule: &Rule, user: String, password: String) -> Verdict {
        let Some(stored) = self.users.get(&user).filter(|_| rule.users.contains(&user)) else {
            return Verdict::Forbidden("user not admitted to this format");
        };
        let fp = Verified::fingerprint(&user, &password, stored);
        if self.verified.contains(&fp) {
            return Verdict::Allow(Some(format!("user:{user}")));
        }
        let Ok(permit) = self.verifying.clone().try_acquire_owned() else {
            return Verdict::Busy;
        };
        let stored = stored.clone();
        let ok = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            stored.verify(&password)
        })
        .await
        .unwrap_or(false);
        if ok {
            self.verified.insert(fp);
            Verdict::Allow(Some(format!("user:{user}")))
        } else {
            Verdict::Forbidden("wrong password")
        }
    }

    fn check_key(&self, rule: &Rule, key: &str) -> Verdict {
        let presented = KeyDigest::of(key);
        // Compare with every key, so timing does not tell which (or whether one) matched.
        let mut found = None;
        for (id, digest) in &self.keys {
            if digest.matches(&presented) {
                found = Some(id);
            }
        }
        match found {
            Some(id) if rule.keys.contains(id) => Verdict::Allow(Some(format!("key:{id}"))),
            Some(_) => Verdict::Forbidden("key not admitted to this format"),
            None => Verdict::Forbidden("unknown key"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{hash_api_key, hash_password};
    use super::*;

    const KEY: &str = "k-0123456789abcdef0123456789abcdef";
    const OTHER: &str = "o-0123456789abcdef0123456789abcdef";

    fn rules() -> AccessRules {
        AccessRules::new()
            .user("alice", &hash_password("pw").unwrap())
            .unwrap()
            .user("bob", &hash_password("pw2").unwrap())
            .unwrap()
            .api_key("a", &hash_api_key(KEY).unwrap())
            .unwrap()
            .api_key("o", &hash_api_key(OTHER).unwrap())
            .unwrap()
            .format(
                "oai_didl",
                Rule::restricted()
                    .users(["alice"])
                    .keys(["a"])
                    .addresses(["192.0.2.0/24".parse().unwrap()]),
            )
            .unwrap()
            .format(
                "oai_crate",
                Rule::restricted()
                    .keys(["a"])
                    .addresses(["2001:db8::/32".parse().unwrap()])
                    .require_all(true),
            )
            .unwrap()
            .default_rule(Rule::restricted().addresses(["198.51.100.0/24".parse().unwrap()]))
            .unwrap()
            .format("oai_dc", Rule::open())
            .unwrap()
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    fn basic(u: &str, p: &str) -> Credentials {
        Credentials::Basic {
            user: u.into(),
            password: p.into(),
        }
    }

    #[tokio::test]
    async fn any_mechanism_admits() {
        let r = rules();
        assert_eq!(
            r.check("oai_dc", None, Credentials::None).await,
            Verdict::Allow(None)
        );
        assert_eq!(
            r.check("oai_didl", ip("192.0.2.9"), Credentials::None)
                .await,
            Verdict::Allow(None)
        );
        assert_eq!(
            r.check("oai_didl", ip("203.0.113.1"), basic("alice", "pw"))
                .await,
            Verdict::Allow(Some("user:alice".into()))
        );
        assert_eq!(
            r.check("oai_didl", None, Credentials::Bearer(KEY.into()))
                .await,
            Verdict::Allow(Some("key:a".into()))
        );
    }

    #[tokio::test]
    async fn challenges_and_refusals() {
        let r = rules();
        let challenge = Verdict::Challenge {
            basic: true,
            bearer: true,
        };
        assert_eq!(
            r.check("oai_didl", ip("203.0.113.1"), Credentials::None)
                .await,
            challenge
        );
        assert_eq!(
            r.check("oai_didl", ip("203.0.113.1"), Credentials::Malformed)
                .await,
            challenge
        );
        assert!(matches!(
            r.check("oai_didl", None, basic("alice", "nope")).await,
            Verdict::Forbidden(_)
        ));
        assert!(matches!(
            r.check("oai_didl", None, basic("bob", "pw2")).await,
            Verdict::Forbidden(_)
        ));
        assert!(matches!(
            r.check("oai_didl", None, basic("mallory", "pw")).await,
            Verdict::Forbidden(_)
        ));
        assert!(matches!(
            r.check("oai_didl", None, Credentials::Bearer(OTHER.into()))
                .await,
            Verdict::Forbidden(_)
        ));
        assert!(matches!(
            r.check("oai_didl", None, Credentials::Bearer("x".into()))
                .await,
            Verdict::Forbidden(_)
        ));
        // Address-only default rule: credentials cannot help.
        assert!(matches!(
            r.check("unknown", ip("203.0.113.1"), Credentials::None)
                .await,
            Verdict::Forbidden(_)
        ));
        assert_eq!(
            r.check("unknown", ip("198.51.100.3"), Credentials::None)
                .await,
            Verdict::Allow(None)
        );
    }

    #[tokio::test]
    async fn require_all_needs_address_and_key() {
        let r = rules();
        let key = || Credentials::Bearer(KEY.into());
        assert!(matches!(
            r.check("oai_crate", ip("203.0.113.1"), key()).await,
            Verdict::Forbidden(_)
        ));
        assert_eq!(
            r.check("oai_crate", ip("2001:db8::7"), Credentials::None)
                .await,
            Verdict::Challenge {
                basic: false,
                bearer: true
            }
        );
        assert_eq!(
            r.check("oai_crate", ip("2001:db8::7"), key()).await,
            Verdict::Allow(Some("key:a".into()))
        );
    }

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
        assert!(AccessRules::new().is_open() && !rules().is_open());
    }
}
