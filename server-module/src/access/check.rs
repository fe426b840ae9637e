//! The check of one request against [`AccessRules`]: its [`Verdict`] from the client address and
//! the credentials sent, with passwords verified off the runtime and API keys compared in
//! constant time.

use std::net::IpAddr;

use tokio::sync::TryAcquireError;

use super::rule::Rule;
use super::secret::Verified;
use super::AccessRules;
use super::{Credentials, KeyDigest};

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
        let permit = match self.verifying.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(TryAcquireError::NoPermits) => return Verdict::Busy,
            Err(TryAcquireError::Closed) => {
                panic!("the password-verification semaphore is never closed")
            }
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
}
