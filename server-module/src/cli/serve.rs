//! `modoai serve`: the standalone server, configured from flags over the configuration file.

use std::net::SocketAddr;
use std::path::PathBuf;

use tokio::net::TcpListener;

use crate::cli::{CliError, ServeArgs};
use crate::{Config, FileConfig, Plugins, Reloader};

/// Serves the document root until SIGINT or SIGTERM, after printing the URLs to open.
/// Configuration errors come before anything is bound or started.
pub async fn serve(args: ServeArgs) -> Result<(), CliError> {
    let file = match &args.config {
        Some(path) => FileConfig::load(path)?,
        None => FileConfig::default(),
    };
    let root = root_of(args.root.as_ref(), &file)?;
    let listen = listen_address(&args, &file)?;
    let listener = TcpListener::bind(listen)
        .await
        .map_err(CliError::runtime(format!("cannot listen on {listen}")))?;
    let local = listener
        .local_addr()
        .map_err(CliError::runtime("reading the address listened on"))?;
    let config = configure(&args, &file, &root, local).await?;
    // [access], [flow] and [[sets]] follow the file: reloaded on SIGHUP and when it changes.
    let _reloader = match &args.config {
        Some(path) => Some(
            Reloader::spawn_for(&config, path.clone(), true)
                .map_err(CliError::runtime("following the configuration file"))?,
        ),
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
    println!("{}", formats_line(&config));
    crate::serve(listener, config, shutdown)
        .await
        .map_err(CliError::runtime("serving"))
}

/// The banner's line on what is offered: "Formats: oai_dc, oai_didl, oai_crate (7 plugins, all
/// healthy)".
fn formats_line(config: &Config) -> String {
    let formats = config.formats().join(", ");
    match &config.plugins {
        Some(p) if p.all_healthy() => format!("Formats: {formats} ({})", p.health_line()),
        Some(p) => format!(
            "Formats: {formats} ({}; their CRATE entries say so; see `modoai plugins check --plugins {}`)",
            p.health_line(),
            p.path().display()
        ),
        None => format!("Formats: {formats} (oai_crate needs --plugins FILE)"),
    }
}

/// `--root`, else `root` of `[server]`; it must be a folder.
pub(super) fn root_of(root: Option<&PathBuf>, file: &FileConfig) -> Result<PathBuf, CliError> {
    let root = root
        .cloned()
        .or(file.server.root.clone())
        .ok_or_else(|| CliError::Usage("no document root: pass --root DIR".to_owned()))?;
    if !root.is_dir() {
        let msg = format!("document root {} is not a folder", root.display());
        return Err(CliError::Usage(msg));
    }
    Ok(root)
}

/// `--listen`, else `listen` of `[server]`, else 127.0.0.1:8080.
fn listen_address(args: &ServeArgs, file: &FileConfig) -> Result<SocketAddr, CliError> {
    match (&args.listen, &file.server.listen) {
        (Some(a), _) => Ok(*a),
        (None, Some(s)) => super::args::parse_listen(s)
            .map_err(|e| CliError::Usage(format!("listen of [server]: {e}"))),
        (None, None) => Ok(SocketAddr::from(([127, 0, 0, 1], 8080))),
    }
}

/// The settings: defaults, then the file's `[oai]`, then the flags, then the file's `[server]`
/// limits, `[access]`, `[flow]`, `[log]` and `[metrics]`, then the access-log flags, then the
/// plugins.
async fn configure(
    args: &ServeArgs,
    file: &FileConfig,
    root: &std::path::Path,
    local: SocketAddr,
) -> Result<Config, CliError> {
    let base_url = args
        .base_url
        .clone()
        .or(file.server.base_url.clone())
        .unwrap_or_else(|| format!("http://{local}/"));
    let mut config = Config::new(root, &base_url)?
        .apply(&file.oai)?
        .apply(&args.overrides())?
        .apply_server(&file.server)?
        .apply_policy(&file.access, &file.flow)?
        .apply_observation(&file.log, &file.metrics)?
        .apply_front_doors(&file.front_doors)
        .named_sets(file.named_sets().to_vec())?;
    if let Some(format) = args.access_log {
        config = config.access_log(format);
    }
    if let Some(path) = &args.access_log_file {
        config = config.access_log_file(path);
    }
    if let Some(path) = &args.config {
        config = config.config_file(path);
    }
    config = config.state_dir(state_dir(args, file));
    if let Some(path) = args.plugins.as_ref().or(file.server.plugins.as_ref()) {
        config = config.plugins(Plugins::load(path).await?);
    }
    Ok(config)
}

/// `--state-dir`, else `state-dir` of `[server]`, else `$STATE_DIRECTORY` (systemd's
/// `StateDirectory=`), else `modoai-state` beside the configuration file, else the user's state
/// folder: `$XDG_STATE_HOME/modoai`, `~/.local/state/modoai` (or `modoai-state` here without a
/// home).
fn state_dir(args: &ServeArgs, file: &FileConfig) -> PathBuf {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let beside_config = || {
        let conf = args.config.as_ref()?;
        Some(
            conf.parent()
                .unwrap_or(std::path::Path::new(""))
                .join("modoai-state"),
        )
    };
    args.state_dir
        .clone()
        .or(file.server.state_dir.clone())
        .or_else(|| env("STATE_DIRECTORY"))
        .or_else(beside_config)
        .or_else(|| env("XDG_STATE_HOME").map(|d| d.join("modoai")))
        .or_else(|| env("HOME").map(|h| h.join(".local/state/modoai")))
        .unwrap_or_else(|| PathBuf::from("modoai-state"))
}

/// Completes on SIGINT or SIGTERM; the handlers are installed when this is called.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, CliError> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())
        .map_err(CliError::runtime("installing the SIGTERM handler"))?;
    let mut int = signal(SignalKind::interrupt())
        .map_err(CliError::runtime("installing the SIGINT handler"))?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        tracing::info!("shutting down");
    })
}
