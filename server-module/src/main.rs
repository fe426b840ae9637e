//! `modoai`: a static file server whose every file is an OAI-PMH 2.0 record.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use modoai::{Config, FileConfig, OaiSection, Plugins};

#[derive(Parser)]
#[command(
    name = "modoai",
    version,
    about = "Serve a web site with every file as an OAI-PMH 2.0 record"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve a document root over HTTP, with OAI-PMH on the route (default /modoai).
    Serve(Box<ServeArgs>),
    /// Inspect the metadata tools of oai_crate.
    #[command(subcommand)]
    Plugins(PluginsCommand),
    /// Hash a password (or API key) read from standard input, for [access] of the config file.
    HashSecret(HashSecretArgs),
}

#[derive(Parser)]
struct HashSecretArgs {
    /// The secret is an API key (at least 32 characters): print its `sha256:` digest for
    /// [access.keys] instead of an Argon2 hash for [access.users].
    #[arg(long)]
    api_key: bool,
}

#[derive(Subcommand)]
enum PluginsCommand {
    /// Each plugin's program, version and health; exit code 2 if any is missing or broken.
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

#[derive(Parser)]
struct ServeArgs {
    /// The document root. Required here or as `root` in [server] of the config file.
    #[arg(long)]
    root: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port. Default 127.0.0.1:8080.
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// Public URL of the document root (identifiers are this plus the file's path).
    /// Default: http://LISTEN-ADDRESS/.
    #[arg(long)]
    base_url: Option<String>,
    /// A TOML configuration file (see README: Configuration).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The metadata tools of oai_crate (see plugins.toml); without it, oai_crate is not offered.
    #[arg(long)]
    plugins: Option<PathBuf>,
    /// Records per list page.
    #[arg(long)]
    page_size: Option<usize>,
    /// Close ListRecords pages before they exceed this many bytes.
    #[arg(long)]
    page_bytes: Option<u64>,
    /// Files above this many bytes are given by reference only in oai_didl.
    #[arg(long)]
    inline_max: Option<u64>,
    /// The OAI-PMH route.
    #[arg(long)]
    route: Option<String>,
    /// Identify's repositoryName.
    #[arg(long)]
    repository_name: Option<String>,
    /// Identify's adminEmail.
    #[arg(long)]
    admin_email: Option<String>,
    /// Secret that signs resumption tokens, so they stay valid across restarts.
    #[arg(long, env = "MODOAI_TOKEN_SECRET", hide_env_values = true)]
    token_secret: Option<String>,
    /// Do not follow file-system events; rely on periodic rescans only.
    #[arg(long)]
    no_watch: bool,
    /// Seconds between full rescans of the document root.
    #[arg(long)]
    rescan_secs: Option<u64>,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let result = match Cli::parse().command {
        Command::Serve(args) => run(*args),
        Command::Plugins(cmd) => plugins(cmd),
        Command::HashSecret(args) => hash_secret(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("modoai: {err:#}");
            ExitCode::from(2)
        }
    }
}

#[tokio::main]
async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let file = match &args.config {
        Some(path) => FileConfig::load(path)?,
        None => FileConfig::default(),
    };
    let root = args
        .root
        .clone()
        .or(file.server.root.clone())
        .context("no document root: pass --root DIR")?;
    anyhow::ensure!(
        root.is_dir(),
        "document root {} is not a folder",
        root.display()
    );
    let listen: SocketAddr = match (&args.listen, &file.server.listen) {
        (Some(a), _) => *a,
        (None, Some(s)) => s.parse().with_context(|| format!("listen address {s:?}"))?,
        (None, None) => "127.0.0.1:8080".parse()?,
    };
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    let local = listener.local_addr()?;
    let base_url = args
        .base_url
        .clone()
        .or(file.server.base_url.clone())
        .unwrap_or_else(|| format!("http://{local}/"));
    let mut config = Config::new(&root, &base_url)?
        .apply(&file.oai)?
        .apply(&overrides(&args))?
        .apply_server(&file.server)?
        .apply_policy(&file.access, &file.flow)?;
    if let Some(path) = args.plugins.as_ref().or(file.server.plugins.as_ref()) {
        let plugins = Plugins::load(path).await?;
        if !plugins.all_healthy() {
            tracing::warn!("some plugins are missing or broken; their CRATE entries say so (see `modoai plugins check`)");
        }
        config = config.plugins(plugins);
    }
    // [access] and [flow] follow the file: reloaded on SIGHUP and when it changes.
    let _reloader = match &args.config {
        Some(path) => Some(modoai::Reloader::spawn(
            config.policy().clone(),
            path.clone(),
            true,
        )?),
        None => None,
    };
    // Handlers first, so a signal sent as soon as the URLs are printed is a clean shutdown.
    let shutdown = shutdown_signal()?;
    tracing::info!(address = %local, root = %root.display(), "listening on http://{local}/");
    println!("modoai is serving {} at http://{local}/", root.display());
    println!(
        "OAI-PMH base URL: {}  (try {}?verb=Identify)",
        config.oai_base_url(),
        config.oai_base_url()
    );
    modoai::serve(listener, config, shutdown).await?;
    Ok(())
}

/// `modoai plugins check|explain`.
#[tokio::main]
async fn plugins(cmd: PluginsCommand) -> anyhow::Result<()> {
    match cmd {
        PluginsCommand::Check { plugins } => {
            let p = Plugins::load(&plugins).await?;
            print!("{}", p.check_report());
            anyhow::ensure!(p.all_healthy(), "some plugins are missing or broken");
        }
        PluginsCommand::Explain { file, plugins } => {
            let p = Plugins::load(&plugins).await?;
            let meta = std::fs::metadata(&file).with_context(|| format!("{}", file.display()))?;
            anyhow::ensure!(meta.is_file(), "{} is not a regular file", file.display());
            println!("{}", file.display());
            print!("{}", p.explain(&modoai::mime::detect(&file), meta.len()));
        }
    }
    Ok(())
}

/// `modoai hash-secret`: one line from stdin (without its line ending), never echoed.
fn hash_secret(args: &HashSecretArgs) -> anyhow::Result<()> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .context("reading the secret from stdin")?;
    let secret = line.trim_end_matches(['\n', '\r']);
    let hashed = if args.api_key {
        modoai::access::hash_api_key(secret)?
    } else {
        modoai::access::hash_password(secret)?
    };
    println!("{hashed}");
    Ok(())
}

/// The flags that override `[oai]` settings of the file.
fn overrides(a: &ServeArgs) -> OaiSection {
    OaiSection {
        route: a.route.clone(),
        repository_name: a.repository_name.clone(),
        admin_email: a.admin_email.clone().map(|e| vec![e]),
        page_size: a.page_size,
        page_bytes: a.page_bytes,
        inline_max: a.inline_max,
        token_secret: a.token_secret.clone(),
        rescan_secs: a.rescan_secs,
        watch: a.no_watch.then_some(false),
        ..OaiSection::default()
    }
}

/// Completes on SIGINT or SIGTERM; the handlers are installed when this is called.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        tracing::info!("shutting down");
    })
}
