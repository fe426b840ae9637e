//! `modoai-explorer serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;

use modoai_cli::Exit;

use super::state::{key_file, keys_option, old_key_file_hint};
use super::{tools, ForeignArgs};
use crate::collection::CollectionArg;
use crate::config::ServeConfig;
use crate::index::BuildOptions;
use crate::serve::serve;
use crate::web::AppState;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  modoai-explorer serve --archive my-archive
  modoai-explorer serve --archive a --archive b --listen 0.0.0.0:8090 --config explorer.toml

Routes: the pages for people at / (search, facets, calendar, word cloud), /capture/ID,
/timeline?url=, /api (try the API); the JSON API /api/v1/search, /api/v1/terms,
/api/v1/captures?url=, /api/v1/capture/ID, /api/v1/me, /api/v1/openapi.json; Memento
/timemap/link/URI, /timemap/json/URI, /timegate/URI, /memento/YYYYMMDDhhmmss/URI,
/pwid/urn:pwid:… Stops on SIGTERM or Ctrl-C.")]
pub(crate) struct ServeArgs {
    /// A collection: a modoai archive, a folder of WARC/ARC files, one such file or a WACZ;
    /// NAME=PATH names it (repeat for several).
    #[arg(long, value_name = "PATH", required = true)]
    archive: Vec<CollectionArg>,
    #[command(flatten)]
    foreign: ForeignArgs,
    /// The address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8091")]
    listen: SocketAddr,
    /// The configuration file (TOML: [access], [search], [index], [ui]).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The key file (default: [access] keys of the configuration, else keys.toml in the
    /// explorer's state folder, where `keys add` writes).
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// A plugins.toml whose [settings] (isolation, timeout, processes) the PDF text workers run with.
    #[arg(long, value_name = "FILE")]
    plugins: Option<PathBuf>,
    /// Do not identify the format of captures without a CRATE (Siegfried, by default).
    #[arg(long)]
    no_identify: bool,
    /// A plugins.toml whose tools (JHOVE, ExifTool, file, md5, …) run on the payloads of
    /// captures without a CRATE, as the provider runs them; results cached in the state folder.
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
}

pub(crate) fn run(args: ServeArgs) -> anyhow::Result<Exit> {
    let config = match &args.config {
        Some(p) => ServeConfig::load(p)?,
        None => ServeConfig::default(),
    };
    let keys = key_file(args.keys.as_deref(), config.access.keys.as_deref());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let library = Arc::new(args.foreign.library(&args.archive, config.budget())?);
    let state = Arc::new(
        AppState::new(library, config.access.clone(), keys.clone())?.with_ui(config.ui.clone()),
    );
    let mut options = BuildOptions::new(tools(args.plugins.as_deref())?, runtime.handle().clone());
    options.commit_every = config.index.commit_every;
    options.settle = args.foreign.settle();
    if !args.no_identify {
        options.identify = super::index::identifier(runtime.handle(), false);
    }
    if let Some(path) = &args.tools {
        let tools = super::index::metadata_tools(path, runtime.handle(), false)?;
        options.metadata_tools = Some(tools);
    }
    let refresh = Duration::from_secs(config.index.refresh_secs);
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let addr = listener.local_addr()?;
        println!(
            "modoai-explorer is serving {} at http://{addr}/",
            args.archive
                .iter()
                .map(|a| a.path.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let shutdown = async {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("a SIGTERM handler");
            tokio::select! { _ = tokio::signal::ctrl_c() => {}, _ = term.recv() => {} }
        };
        say_keys(&keys);
        serve(listener, state, options, refresh, shutdown)
            .await
            .context("the server failed")?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(Exit::Done)
}

/// Says on stderr which key file the server reads, and when it does not exist, what that means.
fn say_keys(keys: &std::path::Path) {
    if keys.exists() {
        eprintln!("API keys are read from {}", keys.display());
        return;
    }
    eprintln!(
        "no key file at {}: no key is accepted until `modoai-explorer keys add NAME{}` makes one",
        keys.display(),
        keys_option(keys)
    );
    if let Some(hint) = old_key_file_hint(keys) {
        eprintln!("{hint}");
    }
}
