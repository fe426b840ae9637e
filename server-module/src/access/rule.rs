//! [`Rule`]: who may use one metadata format, and the checks that it can work.

use super::{AccessError, Cidr};

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
    pub(super) open: bool,
    pub(super) users: Vec<String>,
    pub(super) keys: Vec<String>,
    pub(super) addresses: Vec<Cidr>,
    pub(super) require_all: bool,
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

    /// Adds users (HTTP Basic) of [`AccessRules::user`](super::AccessRules::user).
    pub fn users<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.users.extend(names.into_iter().map(Into::into));
        self
    }

    /// Adds API keys (HTTP Bearer) of [`AccessRules::api_key`](super::AccessRules::api_key), by id.
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

    /// Checks that the rule can work: not open and restricted at once, `require_all` with
    /// something to require, and only users and keys that exist (`has_user`, `has_key`).
    pub(super) fn validate(
        &self,
        format: &str,
        has_user: impl Fn(&str) -> bool,
        has_key: impl Fn(&str) -> bool,
    ) -> Result<(), AccessError> {
        let named = !self.users.is_empty() || !self.keys.is_empty() || !self.addresses.is_empty();
        if self.open && named {
            return Err(AccessError::OpenAndRestricted(format.to_owned()));
        }
        if self.require_all && (self.addresses.is_empty() || !self.takes_credentials()) {
            return Err(AccessError::RequireAll(format.to_owned()));
        }
        if let Some(user) = self.users.iter().find(|u| !has_user(u)) {
            return Err(AccessError::UnknownUser {
                format: format.to_owned(),
                user: user.clone(),
            });
        }
        if let Some(key) = self.keys.iter().find(|k| !has_key(k)) {
            return Err(AccessError::UnknownKey {
                format: format.to_owned(),
                key: key.clone(),
            });
        }
        Ok(())
    }

    /// Whether users or keys can admit a request.
    pub(super) fn takes_credentials(&self) -> bool {
        !self.users.is_empty() || !self.keys.is_empty()
    }
}
