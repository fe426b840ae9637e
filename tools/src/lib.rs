//! Metadata tools run on files, per MIME type, as `plugins.toml` configures them: the CRATE model
//! of mod_oai, shared by the modoai server (`oai_crate`) and the explorer.
//!
//! [`Plugins::load`] reads and checks the file once. For a page of files, [`Plugins::analyse`]
//! answers from the persistent cache where it can and runs the rest: built-in digests in-process,
//! ExifTool through one persistent worker, JHOVE, Siegfried and FIDO with many files per process, other
//! tools one process per file; never more than `max-processes` at once, each with a timeout
//! that kills its whole process group. Tools see neutral paths (`f000001.jpg` in a private
//! temporary folder), never the caller's paths or file names that are not UTF-8. Every tool
//! process runs niced and under CPU-time and memory limits (`chrt`, `nice`, `ionice`,
//! `prlimit`). Failures are data: a missing tool, an error exit, a timeout, a limit each become
//! that plugin's [`Status`]. [`ToolRunner`] runs one other program the same way.
//!
//! ```no_run
//! # async fn f() -> Result<(), modoai_tools::PluginsError> {
//! use modoai_tools::{Plugins, Subject};
//! let plugins = Plugins::load("plugins.toml".as_ref()).await?;
//! println!("{}", plugins.health_line());
//! let photo = Subject {
//!     abs: "/var/www/html/images/sunset.jpg".into(),
//!     rel: "images/sunset.jpg".into(),
//!     mime: "image/jpeg".into(),
//!     size: 140_000,
//!     mtime_ns: 1_700_000_000_000_000_000,
//!     inode: 42,
//! };
//! for result in &plugins.analyse(&[photo]).await[0] {
//!     println!("{} {}", result.label, result.run.status.as_str());
//! }
//! # Ok(()) }
//! ```

mod batch;
mod cache;
mod config;
mod digest;
mod dispatch;
mod embed;
mod exiftool;
mod fido;
mod hot;
mod isolate;
mod loaded;
mod observe;
mod pdftext;
mod plugins;
mod pool;
mod probe;
mod program;
mod registry;
mod report;
mod resident;
mod run;
pub mod scratch;
mod siegfried;
mod stage;
mod status;
mod subject;
mod tool;

pub use config::PluginsError;
pub use loaded::PluginResult;
pub use observe::PluginObserver;
pub use plugins::Plugins;
pub use report::{PluginCheck, PluginStatus};
pub use run::Ended;
pub use siegfried::{SiegfriedDocument, SiegfriedFile, SiegfriedMatch};
pub use status::{Cached, Status};
pub use subject::Subject;
pub use tool::{ToolRun, ToolRunner};
