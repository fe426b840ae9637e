//! `[access]` of the configuration file, as written, and its resolution into [`AccessRules`].

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{AccessError, AccessRules, Cidr, ForwardedHeader, Rule};

/// `[access]`: who may receive which metadata format. Absent, everything is open.
///
/// ```toml
/// [access]
/// realm = "example.org harvesting"
/// trusted-proxies = ["127.0.0.1"]     # believe X-Forwarded-For only from these peers
///
/// [access.users]                       # HTTP Basic; hashes from `modoai hash-secret`
/// archive = "$argon2id$v=19$m=19456,t=2,p=1$…"
///
/// [access.keys]                        # HTTP Bearer; digests from `modoai hash-secret --api-key`
/// crawler-2025 = "sha256:…"
///
/// [access.oai_didl]
/// users = ["archive"]
/// keys = ["crawler-2025"]
/// addresses = ["192.0.2.0/24", "2001:db8::/32"]
///
/// [access.default]                     # oai_dc and oai_crate here; open if absent
/// open = true
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AccessSection {
    /// The realm of the `WWW-Authenticate` challenges; default `modoai`.
    pub realm: Option<String>,
    /// Peers whose forwarding header names the client.
    #[serde(default)]
    pub trusted_proxies: Vec<Cidr>,
    /// `x-forwarded-for` (default) or `forwarded`.
    pub forwarded_header: Option<ForwardedHeader>,
    /// User name → Argon2 PHC string.
    #[serde(default)]
    pub users: BTreeMap<String, String>,
    /// Key id → `sha256:` digest of the key.
    #[serde(default)]
    pub keys: BTreeMap<String, String>,
    /// The rule of `oai_dc`.
    #[serde(rename = "oai_dc")]
    pub oai_dc: Option<RuleSection>,
    /// The rule of `oai_didl`.
    #[serde(rename = "oai_didl")]
    pub oai_didl: Option<RuleSection>,
    /// The rule of `oai_crate`.
    #[serde(rename = "oai_crate")]
    pub oai_crate: Option<RuleSection>,
    /// The rule of formats without their own.
    pub default: Option<RuleSection>,
}

/// One format's rule in `[access]`; see [`Rule`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RuleSection {
    /// Everyone may use the format (`true`), or only those named (`false`, the default when
    /// anyone is named).
    pub open: Option<bool>,
    /// Users of `[access.users]` admitted with HTTP Basic.
    #[serde(default)]
    pub users: Vec<String>,
    /// Keys of `[access.keys]` admitted with HTTP Bearer.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Client address ranges admitted.
    #[serde(default)]
    pub addresses: Vec<Cidr>,
    /// `any` (default): one mechanism suffices; `all`: an address in range and credentials.
    pub require: Option<Require>,
}

/// How the mechanisms of a rule combine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Require {
    /// Any one of them admits a request.
    #[default]
    Any,
    /// The address must be in range and the credentials valid.
    All,
}

impl AccessRules {
    /// The rules of an `[access]` section.
    pub fn from_section(s: &AccessSection) -> Result<Self, AccessError> {
        let mut rules = AccessRules::new().trusted_proxies(
            s.trusted_proxies.clone(),
            s.forwarded_header.unwrap_or_default(),
        );
        if let Some(realm) = &s.realm {
            rules = rules.realm(realm.clone());
        }
        for (name, phc) in &s.users {
            rules = rules.user(name.clone(), phc)?;
        }
        for (id, digest) in &s.keys {
            rules = rules.api_key(id.clone(), digest)?;
        }
        for (prefix, section) in [
            ("oai_dc", &s.oai_dc),
            ("oai_didl", &s.oai_didl),
            ("oai_crate", &s.oai_crate),
        ] {
            if let Some(section) = section {
                rules = rules.format(prefix, rule(prefix, section)?)?;
            }
        }
        if let Some(section) = &s.default {
            rules = rules.default_rule(rule("default", section)?)?;
        }
        Ok(rules)
    }
}

fn rule(name: &str, s: &RuleSection) -> Result<Rule, AccessError> {
    let named = !s.users.is_empty() || !s.keys.is_empty() || !s.addresses.is_empty();
    let base = match s.open {
        Some(true) => Rule::open(),
        Some(false) => Rule::restricted(),
        None if named => Rule::restricted(),
        None => return Err(AccessError::EmptyRule(name.to_owned())),
    };
    Ok(base
        .users(s.users.iter().cloned())
        .keys(s.keys.iter().cloned())
        .addresses(s.addresses.iter().copied())
        .require_all(s.require == Some(Require::All)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{hash_api_key, hash_password};

    fn parse(text: &str) -> Result<AccessRules, String> {
        let s: AccessSection = toml::from_str(text).map_err(|e| e.to_string())?;
        AccessRules::from_section(&s).map_err(|e| e.to_string())
    }

    #[test]
    fn a_full_section() {
        let text = format!(
            "realm = \"r\"\ntrusted-proxies = [\"10.0.0.0/8\", \"::1\"]\nforwarded-header = \"forwarded\"\n\
             [users]\nalice = \"{}\"\n[keys]\nk1 = \"{}\"\n\
             [oai_didl]\nusers = [\"alice\"]\nkeys = [\"k1\"]\naddresses = [\"2001:db8::/32\"]\n\
             [oai_crate]\nkeys = [\"k1\"]\naddresses = [\"192.0.2.0/24\"]\nrequire = \"all\"\n\
             [default]\nopen = false\n",
            hash_password("pw").unwrap(),
            hash_api_key("0123456789abcdef0123456789abcdef").unwrap()
        );
        let rules = parse(&text).unwrap();
        assert!(!rules.is_open());
        assert_eq!(rules.forwarded, ForwardedHeader::Forwarded);
        assert_eq!(rules.trusted_proxies.len(), 2);
        assert_eq!(rules.realm_name(), "r");
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            ("[oai_didl]\n", "set open = true"),
            (
                "[oai_didl]\nopen = true\naddresses = [\"192.0.2.0/24\"]\n",
                "open = true admits everyone",
            ),
            (
                "[oai_didl]\nusers = [\"nobody\"]\n",
                "\"nobody\", who is not in [access.users]",
            ),
            ("[oai_dlid]\nopen = true\n", "oai_dlid"),
            (
                "[oai_didl]\naddresses = [\"10.0.0.1/8\"]\n",
                "beyond the prefix",
            ),
            (
                "[oai_didl]\naddresses = [\"192.0.2.0/24\"]\nrequire = \"most\"\n",
                "most",
            ),
            (
                "[users]\nalice = \"plaintext\"\n",
                "[access.users] alice: not an Argon2 PHC string",
            ),
            (
                "[keys]\nk = \"0123\"\n",
                "[access.keys] k: not a key digest",
            ),
            ("forwarded-header = \"via\"\n", "via"),
        ];
        for (text, expected) in cases {
            let err = parse(text)
                .err()
                .unwrap_or_else(|| panic!("accepted: {text}"));
            assert!(err.contains(expected), "{text}: {err}");
        }
        assert!(parse("").unwrap().is_open());
    }
}
