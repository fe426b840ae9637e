//! `modoai`: a static file server whose every file is an OAI-PMH 2.0 record.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use modoai::{Config, FileConfig};

#[derive(Parser)]
#[command(name = "modoai", version, about = "Serve a web site with every file as an OAI-PMH 2.0 record")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve a document root over HTTP, with OAI-PMH on the route (default /modoai).
    Serve(ServeArgs),
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
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    let Command::Serve(args) = Cli::parse().command;
    match run(args) {
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
    let root = args.root.clone().or(file.server.root.clone()).context("no document root: pass --root DIR")?;
    anyhow::ensure!(root.is_dir(), "document root {} is not a folder", root.display());
    let listen: SocketAddr = match (&args.listen, &file.server.listen) {
        (Some(a), _) => *a,
        (None, Some(s)) => s.parse().with_context(|| format!("listen address {s:?}"))?,
        (None, None) => "127.0.0.1:8080".parse()?,
    };
    let listener = tokio::net::TcpListener::bind(listen).await.with_context(|| format!("cannot listen on {listen}"))?;
    let local = listener.local_addr()?;
    let base_url = args.base_url.clone().or(file.server.base_url.clone()).unwrap_or_else(|| format!("http://{local}/"));
    let config = configure(Config::new(&root, &base_url)?.apply_file(&file)?, &args)?;
    tracing::info!(address = %local, root = %root.display(), "listening on http://{local}/");
    println!("modoai is serving {} at http://{local}/", root.display());
    println!("OAI-PMH base URL: {}  (try {}?verb=Identify)", config.oai_base_url(), config.oai_base_url());
    modoai::serve(listener, config, shutdown_signal()).await?;
    Ok(())
}

fn configure(mut c: Config, a: &ServeArgs) -> anyhow::Result<Config> {
    if let Some(r) = &a.route {
        c = c.route(r)?;
    }
    if let Some(n) = a.page_size {
        c = c.page_size(n);
    }
    if let Some(n) = a.page_bytes {
        c = c.page_bytes(n);
    }
    if let Some(n) = a.inline_max {
        c = c.inline_max(n);
    }
    if let Some(n) = &a.repository_name {
        c = c.repository_name(n.clone());
    }
    if let Some(e) = &a.admin_email {
        c = c.admin_email(e)?;
    }
    if let Some(s) = &a.token_secret {
        c = c.token_secret(s.as_bytes().to_vec());
    }
    if let Some(s) = a.rescan_secs {
        c = c.rescan_interval(std::time::Duration::from_secs(s));
    }
    Ok(c.watch(!a.no_watch))
}

async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    tracing::info!("shutting down");
}
