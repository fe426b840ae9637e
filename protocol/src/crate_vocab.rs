//! The CRATE vocabulary (`schemas/crate.xsd`, namespace [`ns::CRATE`](crate::ns::CRATE)): the
//! names of its elements and attributes and the values of its enumerations, written once for the
//! server that writes `crate:plugin` elements and for the harvester and explorer that read them.
//!
//! ```
//! use modoai_protocol::crate_vocab::{attr, PluginStatus};
//!
//! let status: PluginStatus = "config-error".parse().unwrap();
//! assert_eq!(status, PluginStatus::ConfigError);
//! assert_eq!(format!("{}={status}", attr::STATUS), "status=config-error");
//! assert!("fine".parse::<PluginStatus>().is_err());
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Element names, without the `crate:` prefix.
pub mod element {
    /// The CRATE's own description: its `uid` and `created` time.
    pub const CRATE: &str = "crate";
    /// One metadata tool's result for the file.
    pub const PLUGIN: &str = "plugin";
    /// The tool's standard output.
    pub const OUTPUT: &str = "output";
    /// The tool's standard error.
    pub const STDERR: &str = "stderr";
}

/// Element names with the `crate` prefix, as the server writes them (the prefix bound to
/// [`ns::CRATE`](crate::ns::CRATE) on each element).
pub mod qualified {
    /// `crate:crate`.
    pub const CRATE: &str = "crate:crate";
    /// `crate:plugin`.
    pub const PLUGIN: &str = "crate:plugin";
    /// `crate:output`.
    pub const OUTPUT: &str = "crate:output";
    /// `crate:stderr`.
    pub const STDERR: &str = "crate:stderr";
    /// The namespace declaration that binds the prefix.
    pub const XMLNS: &str = "xmlns:crate";
}

/// Attribute names of `crate:crate`, `crate:plugin` and of its outputs.
pub mod attr {
    /// The CRATE's id: the resource URL and the dissemination instant (`crate:crate`).
    pub const UID: &str = "uid";
    /// When the CRATE was made (`crate:crate`).
    pub const CREATED: &str = "created";
    /// The plugin's label in `plugins.toml`.
    pub const LABEL: &str = "label";
    /// The tool's version.
    pub const VERSION: &str = "version";
    /// The command line that ran.
    pub const COMMAND: &str = "command";
    /// A [`PluginStatus`](super::PluginStatus).
    pub const STATUS: &str = "status";
    /// The tool's exit code, when it exited.
    pub const EXIT_CODE: &str = "exitCode";
    /// How long the run took, in milliseconds.
    pub const DURATION_MS: &str = "durationMs";
    /// Whether the result came from the persistent cache.
    pub const CACHED: &str = "cached";
    /// Present when the output went past its cap and was cut.
    pub const TRUNCATED: &str = "truncated";
    /// Why a status other than `ok` came about.
    pub const NOTE: &str = "note";
    /// An [`OutputEncoding`](super::OutputEncoding), on `crate:output` and `crate:stderr`.
    pub const ENCODING: &str = "encoding";
}

/// What became of one plugin for one file: the `status` attribute of `crate:plugin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum PluginStatus {
    /// The tool ran and exited with one of its `ok-exit-codes`.
    Ok,
    /// The tool exited with another code.
    Error,
    /// No answer within the plugin's timeout; its process group was killed.
    Timeout,
    /// The program was not found.
    Missing,
    /// The tool reported a configuration or usage error.
    ConfigError,
    /// Not run: the file is larger than `max-input-bytes`.
    Skipped,
    /// The tool ended abnormally, was killed by a signal, or could not be started.
    Failed,
    /// The tool went past its CPU-time or memory limit.
    Limit,
}

impl PluginStatus {
    /// Every status, in the schema's order.
    pub const ALL: [PluginStatus; 8] = [
        PluginStatus::Ok,
        PluginStatus::Error,
        PluginStatus::Timeout,
        PluginStatus::Missing,
        PluginStatus::ConfigError,
        PluginStatus::Skipped,
        PluginStatus::Failed,
        PluginStatus::Limit,
    ];

    /// The status as the CRATE and the metrics name it (`ok`, `config-error`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            PluginStatus::Ok => "ok",
            PluginStatus::Error => "error",
            PluginStatus::Timeout => "timeout",
            PluginStatus::Missing => "missing",
            PluginStatus::ConfigError => "config-error",
            PluginStatus::Skipped => "skipped",
            PluginStatus::Failed => "failed",
            PluginStatus::Limit => "limit",
        }
    }

    /// Outcomes that depend only on the file and the tool, so worth keeping in a cache.
    pub fn is_cacheable(self) -> bool {
        matches!(
            self,
            PluginStatus::Ok | PluginStatus::Error | PluginStatus::Skipped
        )
    }
}

impl fmt::Display for PluginStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `status` value the schema does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownStatus(pub String);

impl fmt::Display for UnknownStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a CRATE plugin status (", self.0)?;
        for (i, status) in PluginStatus::ALL.iter().enumerate() {
            f.write_str(if i == 0 { "" } else { ", " })?;
            f.write_str(status.as_str())?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for UnknownStatus {}

impl FromStr for PluginStatus {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PluginStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| UnknownStatus(s.to_owned()))
    }
}

/// How a `crate:output` or `crate:stderr` holds the tool's bytes: the `encoding` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputEncoding {
    /// A well-formed XML document, embedded as its root element.
    Xml,
    /// Escaped text.
    Text,
    /// Base64 of bytes that are not UTF-8.
    Base64,
}

impl OutputEncoding {
    /// `xml`, `text` or `base64`.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputEncoding::Xml => "xml",
            OutputEncoding::Text => "text",
            OutputEncoding::Base64 => "base64",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_and_match_serde() {
        for status in PluginStatus::ALL {
            assert_eq!(status.as_str().parse::<PluginStatus>(), Ok(status));
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{status}\""));
        }
        assert!(
            "OK".parse::<PluginStatus>().is_err(),
            "the schema's values are lower case"
        );
    }

    #[test]
    fn qualified_names_are_the_local_names_with_the_prefix() {
        for (q, local) in [
            (qualified::CRATE, element::CRATE),
            (qualified::PLUGIN, element::PLUGIN),
            (qualified::OUTPUT, element::OUTPUT),
            (qualified::STDERR, element::STDERR),
        ] {
            assert_eq!(q, format!("crate:{local}"));
        }
    }

    #[test]
    fn statuses_are_the_schemas() {
        let xsd = include_str!("../../schemas/crate.xsd");
        let start = xsd.find(r#"<xs:simpleType name="status">"#).unwrap();
        let end = start + xsd[start..].find("</xs:simpleType>").unwrap();
        let values: Vec<&str> = xsd[start..end]
            .split(r#"<xs:enumeration value=""#)
            .skip(1)
            .map(|v| &v[..v.find('"').unwrap()])
            .collect();
        let ours: Vec<&str> = PluginStatus::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(values, ours);
    }
}
