//! The settings of the access log, `/healthz` and `/metrics`: the `[log]` and `[metrics]`
//! sections of the configuration file, and the [`Config`] setters behind them.

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::Deserialize;

use crate::{Config, ConfigError};

/// The format of the access log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum AccessLogFormat {
    /// No access log.
    #[default]
    Off,
    /// The Common Log Format of Apache and nginx.
    Common,
    /// The Combined Log Format: Common plus Referer and User-Agent, as goaccess, awstats and
    /// fail2ban read it.
    Combined,
    /// One JSON object per line, with the OAI-PMH facts and the duration as well.
    Json,
}

/// What the standalone server observes and reports: its access log and its metrics.
#[derive(Clone, Debug, Default)]
pub(crate) struct Observation {
    pub(crate) access_log: AccessLogFormat,
    pub(crate) access_file: Option<PathBuf>,
    pub(crate) metrics: Option<MetricsSettings>,
}

/// Where the standalone server offers its Prometheus metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MetricsSettings {
    pub(crate) route: String,
    pub(crate) listen: Option<SocketAddr>,
}

/// `[log]` of the configuration file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LogSection {
    /// `off` (the default), `common`, `combined` or `json`.
    pub access: Option<AccessLogFormat>,
    /// The file the access log is appended to (reopened on SIGHUP); default standard error.
    pub access_file: Option<PathBuf>,
}

/// `[metrics]` of the configuration file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MetricsSection {
    /// Offer Prometheus metrics. Default false.
    pub enabled: Option<bool>,
    /// The route of the metrics. Default `/metrics`.
    pub route: Option<String>,
    /// Serve the metrics (and `/healthz`) on this address of their own, `IP:PORT`, instead of
    /// beside the site.
    pub listen: Option<String>,
}

impl Config {
    /// Standalone server: the format of the access log. Defaults to [`AccessLogFormat::Off`].
    pub fn access_log(mut self, format: AccessLogFormat) -> Self {
        self.observation.access_log = format;
        self
    }

    /// Standalone server: the file the access log is appended to; reopened on SIGHUP so that
    /// logrotate can move it. Defaults to standard error.
    pub fn access_log_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.observation.access_file = Some(path.into());
        self
    }

    /// Standalone server: offer Prometheus metrics (OpenMetrics text) at `route`, beside the
    /// site, or on `listen` alone when given. Defaults to no metrics.
    pub fn metrics(mut self, route: &str, listen: Option<SocketAddr>) -> Result<Self, ConfigError> {
        if !route.starts_with('/') || route.len() == 1 || route.ends_with('/') {
            return Err(ConfigError::Route(route.to_owned()));
        }
        self.observation.metrics = Some(MetricsSettings {
            route: route.to_owned(),
            listen,
        });
        Ok(self)
    }

    /// Applies the `[log]` and `[metrics]` sections of a configuration file.
    pub fn apply_observation(
        mut self,
        log: &LogSection,
        metrics: &MetricsSection,
    ) -> Result<Self, ConfigError> {
        if let Some(format) = log.access {
            self = self.access_log(format);
        }
        if let Some(path) = &log.access_file {
            self = self.access_log_file(path);
        }
        if metrics.enabled == Some(true) {
            let listen = match &metrics.listen {
                Some(s) => Some(
                    s.parse()
                        .map_err(|_| ConfigError::MetricsListen(s.clone()))?,
                ),
                None => None,
            };
            self = self.metrics(metrics.route.as_deref().unwrap_or("/metrics"), listen)?;
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_parse_and_apply() {
        let file: crate::FileConfig = toml::from_str(
            "[log]\naccess = \"combined\"\naccess-file = \"/var/log/modoai.log\"\n\
             [metrics]\nenabled = true\nlisten = \"127.0.0.1:9464\"\n",
        )
        .unwrap();
        let c = Config::new("r", "http://h/")
            .unwrap()
            .apply_observation(&file.log, &file.metrics)
            .unwrap();
        assert_eq!(c.observation.access_log, AccessLogFormat::Combined);
        let m = c.observation.metrics.unwrap();
        assert_eq!(m.route, "/metrics");
        assert_eq!(m.listen, Some("127.0.0.1:9464".parse().unwrap()));
    }

    #[test]
    fn bad_values_are_refused() {
        assert!(toml::from_str::<crate::FileConfig>("[log]\naccess = \"apache\"\n").is_err());
        let m = MetricsSection {
            enabled: Some(true),
            listen: Some("nowhere".to_owned()),
            ..MetricsSection::default()
        };
        let err = Config::new("r", "http://h/")
            .unwrap()
            .apply_observation(&LogSection::default(), &m)
            .unwrap_err();
        assert!(err.to_string().contains("nowhere"), "{err}");
    }
}
