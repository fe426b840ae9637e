//! Search, facets, a JSON API with keys, and Memento (RFC 7089) over the archives
//! `modoai-harvester` writes: an embedded full-text and faceted index inside each archive,
//! built incrementally from its ledger, read only through `modoai-archive`; and over WARC, ARC
//! and WACZ files of any crawler ([`collection`]), indexed beside them, file by file.
//!
//! ```no_run
//! use modoai_explorer::index::{build, BuildOptions};
//! # fn f() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = tokio::runtime::Runtime::new()?;
//! let options = BuildOptions::new(modoai_tools::ToolRunner::defaults()?, runtime.handle().clone());
//! let report = build("my-archive".as_ref(), "my-archive", &options, &())?;
//! println!("{} captures added, {} in the index", report.added, report.total);
//! # Ok(()) }
//! ```

mod api;
pub mod capture;
#[cfg(feature = "cli")]
pub mod cli;
pub mod collection;
pub mod config;
mod error;
pub mod export;
pub mod extract;
#[doc(hidden)]
pub mod fuzzing;
pub mod identify;
pub mod index;
pub mod keys;
mod memento;
pub mod search;
pub mod serve;
#[doc(hidden)]
pub mod synthetic;
mod ui;
pub mod web;

pub use error::ExplorerError;
