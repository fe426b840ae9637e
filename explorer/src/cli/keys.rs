//! `modoai-explorer keys add|list|revoke`.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use modoai_cli::{usage, Exit};

use super::state::{key_file, keys_option, old_key_file_hint};
use crate::keys::{KeyError, KeyFile};
use crate::search::Filter;

#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Make a key and print it (once: only its SHA-256 is stored).
    #[command(after_help = "\
Examples:
  modoai-explorer keys add alice
  modoai-explorer keys add bot --quota 1000/hour --rate 5/s --allow host:example.org --allow mime:image/*

--allow FACET:VALUE limits what the key sees (host, mime, set, archive, puid, jhove, lang,
endpoint, harvest, …); a value ending in * is a prefix. Filters of one facet are alternatives;
filters of different facets all apply.")]
    Add(AddArgs),
    /// List the keys (names, limits, scopes; never the keys).
    List(FileArg),
    /// Revoke a key: it is refused from then on (a running server rereads the file).
    Revoke(RevokeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct FileArg {
    /// The key file (default: keys.toml in the explorer's state folder,
    /// $XDG_STATE_HOME/modoai-explorer or ~/.local/state/modoai-explorer).
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
}

impl FileArg {
    /// The key file meant.
    fn path(&self) -> PathBuf {
        key_file(self.keys.as_deref(), None)
    }
}

/// `Exit::Failed`, having said that `keys` does not exist and how to make it, for the commands
/// that need a key file to be there.
fn missing(keys: &Path) -> Exit {
    eprintln!(
        "no key file at {}: `modoai-explorer keys add NAME{}` makes one there, or give --keys \
         the file `serve` uses",
        keys.display(),
        keys_option(keys)
    );
    if let Some(hint) = old_key_file_hint(keys) {
        eprintln!("{hint}");
    }
    Exit::Failed
}

#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    /// Who the key is for.
    name: String,
    /// Requests per hour, as N/hour.
    #[arg(long, value_name = "N/hour", value_parser = per("hour"))]
    quota: Option<f64>,
    /// Requests per second, as R/s.
    #[arg(long, value_name = "R/s", value_parser = per("s"))]
    rate: Option<f64>,
    /// What the key may see: FACET:VALUE (repeat).
    #[arg(long, value_name = "FILTER")]
    allow: Vec<Filter>,
    #[command(flatten)]
    file: FileArg,
}

#[derive(Debug, Args)]
pub(crate) struct RevokeArgs {
    /// The key's name.
    name: String,
    #[command(flatten)]
    file: FileArg,
}

/// Parses `N/unit`.
fn per(unit: &'static str) -> impl Fn(&str) -> Result<f64, String> + Clone {
    move |s: &str| {
        let n = s
            .strip_suffix(&format!("/{unit}"))
            .ok_or_else(|| format!("{s:?}: write it as N/{unit}"))?;
        match n.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
            _ => Err(format!("{s:?}: N must be a number above 0")),
        }
    }
}

pub(crate) fn run(command: KeysCommand) -> anyhow::Result<Exit> {
    match command {
        KeysCommand::Add(a) => {
            if a.quota.is_some_and(|q| q.fract() != 0.0) {
                return Err(usage("--quota is a whole number of requests per hour"));
            }
            let path = a.file.path();
            let key = KeyFile::edit(&path, |file| {
                file.add(&a.name, a.quota.map(|q| q as u64), a.rate, a.allow)
            })
            .map_err(|e| match e {
                KeyError::Invalid(m) => usage(m),
                e => e.into(),
            })?;
            println!("{key}");
            eprintln!(
                "key {:?} added to {}; give it to its holder now: it is not shown again",
                a.name,
                path.display()
            );
            Ok(Exit::Done)
        }
        KeysCommand::List(f) => {
            let path = f.path();
            if !path.exists() {
                return Ok(missing(&path));
            }
            let file = KeyFile::load(&path)?;
            if file.keys().next().is_none() {
                eprintln!("no keys in {}", path.display());
            }
            for k in file.keys() {
                let quota = k
                    .quota_per_hour
                    .map_or("no quota".to_owned(), |q| format!("{q}/hour"));
                let rate = k
                    .rate_per_sec
                    .map_or("no rate limit".to_owned(), |r| format!("{r}/s"));
                let scope = if k.allow.is_empty() {
                    "everything".to_owned()
                } else {
                    k.allow
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                println!(
                    "{}\t{quota}\t{rate}\t{scope}\tcreated {}",
                    k.name, k.created
                );
            }
            Ok(Exit::Done)
        }
        KeysCommand::Revoke(r) => {
            let path = r.file.path();
            if !path.exists() {
                return Ok(missing(&path));
            }
            if KeyFile::edit(&path, |file| file.revoke(&r.name))? {
                eprintln!("key {:?} revoked in {}", r.name, path.display());
                Ok(Exit::Done)
            } else {
                eprintln!("no key named {:?} in {}", r.name, path.display());
                Ok(Exit::Failed)
            }
        }
    }
}
