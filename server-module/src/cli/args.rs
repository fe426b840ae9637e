//! The arguments of `modoai` and its commands (clap).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::OaiSection;

/// The exit codes, listed in `modoai --help`; [`super::CliError::exit_code`] chooses them.
const EXIT_CODES: &str = "\
Exit codes:
  0  done: served until shut down, plugins healthy, secret hashed
  1  the command ran but failed (e.g. the address is in use); see the message
  2  bad usage, arguments or configuration: nothing was done
  3  done, with problems it reports (plugins check: some plugins missing or broken)";

/// `modoai`: serve a web site with every file as an OAI-PMH 2.0 record.
#[derive(Parser)]
#[command(
    name = "modoai",
    version,
    about = "Serve a web site with every file as an OAI-PMH 2.0 record",
    long_about = None,
    after_help = EXIT_CODES
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
    Serve(Box<ServeArgs>),
    /// Inspect the metadata tools of oai_crate.
    #[command(subcommand)]
    Plugins(PluginsCommand),
    /// Hash a password (or API key) read from standard input, for [access] of the config file.
    HashSecret(HashSecretArgs),
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
    Check {
        /// The plugins file.
        #[arg(long, default_value = "plugins.toml")]
        plugins: PathBuf,
    },
    /// Which plugins apply to a file, and why.
    Explain {
        /// The file.
        file: PathBuf,
        /// The plugins file.
        #[arg(long, default_value = "plugins.toml")]
        plugins: PathBuf,
    },
}

/// The arguments of `modoai serve`.
#[derive(Parser)]
pub struct ServeArgs {
    /// The document root. Required here or as `root` in [server] of the config file.
    #[arg(long)]
    pub(crate) root: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port. Default 127.0.0.1:8080.
    #[arg(long)]
    pub(crate) listen: Option<SocketAddr>,
    /// Public URL of the document root (identifiers are this plus the file's path).
    /// Default: http://LISTEN-ADDRESS/.
    #[arg(long)]
    pub(crate) base_url: Option<String>,
    /// A TOML configuration file (docs/webmasters.md: Configuration).
    #[arg(long)]
    pub(crate) config: Option<PathBuf>,
    /// The metadata tools of oai_crate (see plugins.toml); without it, oai_crate is not offered.
    #[arg(long)]
    pub(crate) plugins: Option<PathBuf>,
    /// Records per list page.
    #[arg(long)]
    pub(crate) page_size: Option<usize>,
    /// Close ListRecords pages before they exceed this many bytes.
    #[arg(long)]
    pub(crate) page_bytes: Option<u64>,
    /// Files above this many bytes are given by reference only in oai_didl.
    #[arg(long)]
    pub(crate) inline_max: Option<u64>,
    /// The OAI-PMH route.
    #[arg(long)]
    pub(crate) route: Option<String>,
    /// Identify's repositoryName.
    #[arg(long)]
    pub(crate) repository_name: Option<String>,
    /// Identify's adminEmail.
    #[arg(long)]
    pub(crate) admin_email: Option<String>,
    /// Secret that signs resumption tokens, so they stay valid across restarts.
    #[arg(long, env = "MODOAI_TOKEN_SECRET", hide_env_values = true)]
    pub(crate) token_secret: Option<String>,
    /// Do not follow file-system events; rely on periodic rescans only.
    #[arg(long)]
    pub(crate) no_watch: bool,
    /// Seconds between full rescans of the document root.
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
