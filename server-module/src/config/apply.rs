//! Sections of the configuration file (or the same settings from command-line flags) applied to
//! a [`Config`]: absent keys leave a setting as it is, a zero where zero makes no sense is an
//! error naming the key.

use std::time::Duration;

use super::{Config, ConfigError, OaiSection, ServerSection};

impl Config {
    /// Applies the limits of a `[server]` section; absent ones stay as they are.
    pub fn apply_server(mut self, server: &ServerSection) -> Result<Self, ConfigError> {
        if let Some(n) = server.max_connections {
            self = self.max_connections(nonzero(n, "max-connections")?);
        }
        if let Some(s) = server.header_timeout_secs {
            self = self.header_timeout(Duration::from_secs(nonzero(s, "header-timeout-secs")?));
        }
        if let Some(s) = server.grace_secs {
            self = self.shutdown_grace(Duration::from_secs(s));
        }
        Ok(self)
    }

    /// Applies the settings given in an `[oai]` section (or the same settings from elsewhere,
    /// such as command-line flags); absent ones stay as they are.
    pub fn apply(mut self, oai: &OaiSection) -> Result<Self, ConfigError> {
        if let Some(r) = &oai.route {
            self = self.route(r)?;
        }
        if let Some(u) = &oai.oai_base_url {
            self = self.with_oai_base_url(u)?;
        }
        if let Some(n) = &oai.repository_name {
            self = self.repository_name(n.clone());
        }
        if let Some(emails) = &oai.admin_email {
            self.admin_emails.clear();
            for e in emails {
                self = self.add_admin_email(e)?;
            }
        }
        if let Some(n) = oai.page_size {
            self = self.page_size(nonzero(n, "page-size")?);
        }
        if let Some(n) = oai.page_bytes {
            self = self.page_bytes(nonzero(n, "page-bytes")?);
        }
        if let Some(n) = oai.inline_max {
            self = self.inline_max(n);
        }
        if let Some(s) = oai.token_ttl_secs {
            self = self.token_ttl(Duration::from_secs(nonzero(s, "token-ttl-secs")?));
        }
        if let Some(s) = &oai.token_secret {
            self = self.token_secret(s.as_bytes().to_vec());
        }
        if let Some(s) = oai.rescan_secs {
            self = self.rescan_interval(Duration::from_secs(nonzero(s, "rescan-secs")?));
        }
        if let Some(w) = oai.watch {
            self = self.watch(w);
        }
        if let Some(d) = oai.deleted_records {
            self = self.deleted_records(d);
        }
        if let Some(days) = oai.change_log_days {
            let days = nonzero(days, "change-log-days")?.min(1_000_000);
            self = self.change_log_retention(Duration::from_secs(days * 24 * 3600));
        }
        if let Some(f) = oai.folder_sets {
            self = self.folder_sets(f);
        }
        Ok(self)
    }
}

/// `n`, unless it is zero: then the error names `key`.
fn nonzero<N: Default + PartialEq>(n: N, key: &'static str) -> Result<N, ConfigError> {
    if n == N::default() {
        return Err(ConfigError::Zero(key));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::new("r", "http://h/").unwrap()
    }

    #[test]
    fn zero_counts_and_times_name_their_key() {
        let oai = |f: fn(&mut OaiSection)| {
            let mut s = OaiSection::default();
            f(&mut s);
            config().apply(&s).unwrap_err().to_string()
        };
        assert_eq!(
            oai(|s| s.page_size = Some(0)),
            "page-size must be at least 1"
        );
        assert_eq!(
            oai(|s| s.page_bytes = Some(0)),
            "page-bytes must be at least 1"
        );
        assert_eq!(
            oai(|s| s.token_ttl_secs = Some(0)),
            "token-ttl-secs must be at least 1"
        );
        assert_eq!(
            oai(|s| s.rescan_secs = Some(0)),
            "rescan-secs must be at least 1"
        );
        let server = ServerSection {
            max_connections: Some(0),
            ..ServerSection::default()
        };
        let err = config().apply_server(&server).unwrap_err();
        assert_eq!(err.to_string(), "max-connections must be at least 1");
    }

    #[test]
    fn zero_keeps_its_meaning_where_it_has_one() {
        let oai = OaiSection {
            inline_max: Some(0),
            ..OaiSection::default()
        };
        assert_eq!(config().apply(&oai).unwrap().inline_max, 0);
        let server = ServerSection {
            grace_secs: Some(0),
            ..ServerSection::default()
        };
        let c = config().apply_server(&server).unwrap();
        assert_eq!(c.shutdown_grace, Duration::ZERO);
    }
}
