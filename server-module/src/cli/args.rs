//! The arguments of `modoai` and its commands (clap).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use modoai_cli::{completions_help, man_help, CompletionsArgs, ManArgs};

use crate::OaiSection;

use super::help;

/// `modoai`: serve a web site with every file as an OAI-PMH 2.0 record.
#[derive(Parser)]
#[command(
    name = "modoai",
    version,
    about = "Serve a web site with every file as an OAI-PMH 2.0 record",
    long_about = None,
    after_help = help::modoai()
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands of `modoai`.
// These doc comments are clap's help text: `[access]` is a TOML section there, not a link.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Subcommand)]
pub enum Command {
    /// Serve a document root over HTTP, with OAI-PMH on the route (default /modoai).
    #[command(after_help = help::SERVE)]
    Serve(Box<ServeArgs>),
    /// List which files of a root are records and which are not, and why: the dry run before
    /// publishing.
    #[command(after_help = help::RECORDS)]
    Records(RecordsArgs),
    /// Inspect the metadata tools of oai_crate.
    #[command(subcommand, after_help = help::PLUGINS)]
    Plugins(PluginsCommand),
    /// Hash a password (or API key) read from standard input, for [access] of the config file.
    #[command(after_help = help::HASH_SECRET)]
    HashSecret(HashSecretArgs),
    /// Print the shell completion script of modoai for SHELL.
    #[command(after_help = completions_help("modoai"))]
    Completions(CompletionsArgs),
    /// Print the manual page (roff) of modoai or of one of its commands, or write them all.
    #[command(after_help = man_help("modoai", "plugins check", "serve"))]
    Man(ManArgs),
}

/// The arguments of `modoai records`.
// These doc comments are clap's help text: `[server]` is a TOML section there, not a link.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Parser)]
pub struct RecordsArgs {
    /// The document root. Required here or as `root` in [server] of --config.
    #[arg(long)]
    pub(crate) root: Option<PathBuf>,
    /// The configuration file `modoai serve` would use (its root, plugins and own files)
    /// [default: none]
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// The plugins file: shows which tools analyse each record [default: `plugins` in [server]
    /// of --config, else none]
    #[arg(long)]
    pub(crate) plugins: Option<PathBuf>,
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The arguments of `modoai hash-secret`.
// These doc comments are clap's help text: `[access.keys]` is a TOML section there, not a link.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Parser)]
pub struct HashSecretArgs {
    /// The secret is an API key (at least 32 characters): print its `sha256:` digest for
    /// [access.keys] instead of an Argon2 hash for [access.users].
    #[arg(long)]
    pub(crate) api_key: bool,
}

/// The commands of `modoai plugins`.
#[derive(Subcommand)]
pub enum PluginsCommand {
    /// Each plugin's program, version and health; exit code 3 if any is missing or broken.
    #[command(after_help = help::PLUGINS_CHECK)]
    Check {
        /// The plugins file.
        #[arg(long, default_value = "plugins.toml")]
        plugins: PathBuf,
        /// Print the report as JSON: the file, whether all are healthy, and each plugin's id,
        /// line, program, version, status (ok, unhealthy, missing) and message.
        #[arg(long)]
        json: bool,
    },
    /// Which plugins apply to a file, and why.
    #[command(after_help = help::PLUGINS_EXPLAIN)]
    Explain {
        /// The file.
        file: PathBuf,
        /// The plugins file.
        #[arg(long, default_value = "plugins.toml")]
        plugins: PathBuf,
    },
}

/// The arguments of `modoai serve`.
// These doc comments are clap's help text: `[server]` is a TOML section there, not a link.
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Parser)]
pub struct ServeArgs {
    /// The document root. Required here or as `root` in [server] of --config.
    #[arg(long)]
    pub(crate) root: Option<PathBuf>,
    /// Address to listen on, IP:PORT, or :PORT for 127.0.0.1:PORT; port 0 picks a free port
    /// [default: 127.0.0.1:8080, or `listen` in [server] of --config]
    #[arg(long, value_parser = parse_listen)]
    pub(crate) listen: Option<SocketAddr>,
    /// Public URL of the document root (identifiers are this plus the file's path); behind a
    /// reverse proxy, the public one [default: http://LISTEN-ADDRESS/, or `base-url` in [server]
    /// of --config]
    #[arg(long)]
    pub(crate) base_url: Option<String>,
    /// A TOML configuration file (docs/webmasters.md "Configuration"; a commented sample with
    /// every key: examples/deploy/modoai.toml) [default: none]
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// The metadata tools of oai_crate (see plugins.toml) [default: `plugins` in [server] of
    /// --config; without either, oai_crate is not offered]
    #[arg(long)]
    pub(crate) plugins: Option<PathBuf>,
    /// The folder that keeps the site index across restarts (records, datestamps, deletions)
    /// [default: `state-dir` in [server] of --config, else $STATE_DIRECTORY (systemd), else
    /// modoai-state beside the --config file, else $XDG_STATE_HOME/modoai or
    /// ~/.local/state/modoai]
    #[arg(long, value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,
    /// Records per list page [default: 100, or `page-size` in [oai] of --config]
    #[arg(long)]
    pub(crate) page_size: Option<usize>,
    /// Close ListRecords pages before they exceed this many bytes [default: 50000000, or
    /// `page-bytes` in [oai] of --config]
    #[arg(long)]
    pub(crate) page_bytes: Option<u64>,
    /// Files above this many bytes are given by reference only in oai_didl; 0 = always by
    /// reference [default: 7340032 (7 MiB), or `inline-max` in [oai] of --config]
    #[arg(long)]
    pub(crate) inline_max: Option<u64>,
    /// The OAI-PMH route [default: /modoai, or `route` in [oai] of --config]
    #[arg(long)]
    pub(crate) route: Option<String>,
    /// Identify's repositoryName [default: "modoai repository of HOST", or `repository-name`
    /// in [oai] of --config]
    #[arg(long)]
    pub(crate) repository_name: Option<String>,
    /// Identify's adminEmail [default: webmaster@example.org, or `admin-email` in [oai] of
    /// --config]
    #[arg(long)]
    pub(crate) admin_email: Option<String>,
    /// Secret that signs resumption tokens, so they stay valid across restarts [default: random
    /// per process, or `token-secret` in [oai] of --config]
    #[arg(long, env = "MODOAI_TOKEN_SECRET", hide_env_values = true)]
    pub(crate) token_secret: Option<String>,
    /// Do not follow file-system events; rely on periodic rescans only [default: events are
    /// followed, unless `watch = false` in [oai] of --config]
    #[arg(long)]
    pub(crate) no_watch: bool,
    /// Seconds between full rescans of the document root [default: 300, or `rescan-secs` in
    /// [oai] of --config]
    #[arg(long)]
    pub(crate) rescan_secs: Option<u64>,
    /// Access log format: off, common, combined (Apache/nginx) or json. Default off, or `access`
    /// of [log].
    #[arg(long, value_name = "FORMAT")]
    pub(crate) access_log: Option<crate::observe::AccessLogFormat>,
    /// Append the access log to this file (reopened on SIGHUP) instead of standard error.
    #[arg(long, value_name = "PATH")]
    pub(crate) access_log_file: Option<PathBuf>,
}

/// An address to listen on: `IP:PORT`, or `:PORT` for the loopback address (the default's), as
/// the shortcut the docs use (`--listen :0`). All interfaces are `0.0.0.0:PORT` or `[::]:PORT`.
pub(crate) fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    let full;
    let text = match s.strip_prefix(':') {
        Some(port) if !port.contains(':') => {
            full = format!("127.0.0.1:{port}");
            &full
        }
        _ => s,
    };
    text.parse().map_err(|_| {
        format!("{s:?} is not an address to listen on: give IP:PORT (127.0.0.1:8080, [::1]:8080) or :PORT")
    })
}

impl ServeArgs {
    /// The flags that override `[oai]` settings of the file.
    pub(crate) fn overrides(&self) -> OaiSection {
        OaiSection {
            route: self.route.clone(),
            repository_name: self.repository_name.clone(),
            admin_email: self.admin_email.clone().map(|e| vec![e]),
            page_size: self.page_size,
            page_bytes: self.page_bytes,
            inline_max: self.inline_max,
            token_secret: self.token_secret.clone(),
            rescan_secs: self.rescan_secs,
            watch: self.no_watch.then_some(false),
            ..OaiSection::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_takes_a_port_alone_as_loopback() {
        assert_eq!(
            parse_listen(":0"),
            Ok(SocketAddr::from(([127, 0, 0, 1], 0)))
        );
        assert_eq!(
            parse_listen("0.0.0.0:80"),
            Ok(SocketAddr::from(([0, 0, 0, 0], 80)))
        );
        assert_eq!(parse_listen("[::1]:8080").map(|a| a.port()), Ok(8080));
        for bad in [":", ":x", "8080", "localhost:80", ":::1"] {
            let err = parse_listen(bad).unwrap_err();
            assert!(err.contains("IP:PORT"), "{bad}: {err}");
        }
    }

    #[test]
    fn every_command_has_a_page_named_after_its_path() {
        use clap::CommandFactory;
        let dir = tempfile::tempdir().unwrap();
        let pages = modoai_cli::man_pages(Cli::command(), dir.path()).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        for name in [
            "modoai.1",
            "modoai-serve.1",
            "modoai-plugins.1",
            "modoai-plugins-check.1",
            "modoai-plugins-explain.1",
            "modoai-hash-secret.1",
            "modoai-completions.1",
            "modoai-man.1",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} not in {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
    }

    #[test]
    fn a_nested_command_is_found_by_its_path() {
        use clap::CommandFactory;
        let path = ["plugins".to_owned(), "check".to_owned()];
        let page = modoai_cli::man_page(Cli::command(), &path).unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(page.contains("modoai\\-plugins\\-check"), "{page}");
        assert!(page.contains("\\-\\-json"), "{page}");
        assert!(modoai_cli::man_page(Cli::command(), &["nothing".to_owned()]).is_err());
    }
}
