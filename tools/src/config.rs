//! `plugins.toml` as written: raw serde structs with spans, so every error can name the file,
//! the line and the key. [`super::registry`] resolves them once at start-up.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct PluginsFile {
    #[serde(default)]
    pub(crate) settings: Settings,
    #[serde(default, rename = "plugin")]
    pub(crate) plugins: Vec<Spanned<Entry>>,
}

/// `[settings]`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct Settings {
    pub(crate) max_processes: Option<Spanned<usize>>,
    pub(crate) cache_dir: Option<PathBuf>,
    pub(crate) timeout_secs: Option<Spanned<u64>>,
    pub(crate) max_output_bytes: Option<Spanned<usize>>,
    pub(crate) nice: Option<Spanned<i64>>,
    pub(crate) cpu_class: Option<Spanned<String>>,
    pub(crate) io_class: Option<Spanned<String>>,
    pub(crate) cpu_secs: Option<Spanned<u64>>,
    pub(crate) memory_mb: Option<Spanned<u64>>,
}

/// One `[[plugin]]`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub(crate) struct Entry {
    pub(crate) label: Spanned<String>,
    pub(crate) mime: Spanned<OneOrMany>,
    pub(crate) builtin: Option<Spanned<String>>,
    pub(crate) command: Option<Spanned<Vec<String>>>,
    pub(crate) version_command: Option<Spanned<Vec<String>>>,
    pub(crate) output: Option<Spanned<String>>,
    pub(crate) timeout_secs: Option<Spanned<u64>>,
    pub(crate) max_input_bytes: Option<Spanned<u64>>,
    pub(crate) max_output_bytes: Option<Spanned<usize>>,
    pub(crate) runner: Option<Spanned<String>>,
    pub(crate) ok_exit_codes: Option<Vec<i32>>,
}

/// A string or a list of strings.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub(crate) fn items(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(s) => vec![s.as_str()],
            OneOrMany::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// A `plugins.toml` that cannot be used, with where and why.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PluginsError {
    /// The file could not be read.
    // The cause is part of the message, not a `source()`: a report of the chain would print it
    // twice.
    #[error("cannot read {path}: {error}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// Not TOML, or a key that does not exist (toml's message names line and key).
    #[error("{path}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// toml's message.
        message: String,
    },
    /// A value that cannot work.
    #[error("{path}:{line}: {key}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the value.
        line: usize,
        /// The key.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// The text of a plugins file and its name, for locating errors.
pub(crate) struct Source<'a> {
    pub(crate) path: &'a Path,
    pub(crate) text: &'a str,
}

impl Source<'_> {
    /// An error about the value at `span`.
    pub(crate) fn invalid(
        &self,
        span: std::ops::Range<usize>,
        key: &str,
        message: impl Into<String>,
    ) -> PluginsError {
        let line = self.text[..span.start.min(self.text.len())]
            .matches('\n')
            .count()
            + 1;
        PluginsError::Invalid {
            path: self.path.to_owned(),
            line,
            key: key.to_owned(),
            message: message.into(),
        }
    }

    pub(crate) fn parse(&self) -> Result<PluginsFile, PluginsError> {
        toml::from_str(self.text).map_err(|e| PluginsError::Syntax {
            path: self.path.to_owned(),
            message: e.to_string(),
        })
    }
}
