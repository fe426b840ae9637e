//! Every file of a web site as an OAI-PMH 2.0 record, for archives that harvest it.
//!
//! modoai answers OAI-PMH requests on one route of a site (by default `/modoai`) and leaves every
//! other request to the site. Each regular file under the document root is a record: its
//! identifier is the URL the site serves it at, its datestamp the file's mtime, its sets the MIME
//! type hierarchy (`mime`, `mime:image`, `mime:image:jpeg`). Records are disseminated as `oai_dc`
//! and as `oai_didl`: the file itself, Base64-encoded in MPEG-21 DIDL with its HTTP headers.
//!
//! Mount it in front of any tower service with [`OaiPmhLayer`], or run the standalone server:
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let config = modoai::Config::new("examples/site", "http://127.0.0.1:8080/")?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! modoai::serve(listener, config, std::future::pending()).await?;
//! # Ok(()) }
//! ```

pub mod access;
mod body;
#[cfg(feature = "cli")]
pub mod cli;
mod config;
pub mod doors;
mod fetch;
pub mod flow;
mod formats;
mod future;
#[doc(hidden)]
pub mod fuzzing;
mod index;
mod layer;
pub mod mime;
mod oai;
pub mod observe;
mod own;
mod policy;
mod recycle;
mod server;
mod service;
pub mod sets;
pub mod site;
mod xml;

pub use access::ClientAddr;
pub use body::ResponseBody;
pub use config::{Config, ConfigError, FileConfig, OaiSection, ServerSection};
pub use fetch::BoxError;
pub use future::ResponseFuture;
pub use index::{Change, ChangeKind, IndexError};
pub use layer::OaiPmhLayer;
pub use modoai_tools::{
    Ended, PluginCheck, PluginStatus, Plugins, PluginsError, ToolRun, ToolRunner,
};
pub use own::{OwnFile, OwnFiles, OwnKind};
pub use policy::{Policy, Reloader};
pub use server::{box_request, serve};
pub use service::{OaiPmh, RequestBody};
pub use site::SiteService;

/// The protocol vocabulary, re-exported for users of the layer.
pub use modoai_protocol as protocol;
