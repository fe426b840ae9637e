//! The one support library of modoai's tests that run programs or several crates together (the
//! `server` and `harvester` test binaries of this crate): temporary sites, the server in this
//! process on an ephemeral port, the `modoai` and `modoai-harvester` programs as child processes,
//! one HTTP GET over a socket, XML and XSD checks, the Python peers of `scripts/setup`, a real S3
//! server (s3s-fs), a fault-injecting HTTP server and real crawlers writing WARC files (wget,
//! warcprox, `wacz create`). docs/testing.md says which test goes where.

pub mod browser;
pub mod crawl;
pub mod fault;
pub mod http;
pub mod manual;
pub mod process;
pub mod python;
pub mod reply;
pub mod s3;
pub mod server;
pub mod site;
pub mod xml;
pub mod xsd;

pub use modoai::Config;
pub use process::require_tool;
pub use python::{json, run_python, venv_python, venv_tool};
pub use reply::Reply;
pub use server::Server;
pub use site::{repo_root, set_mtime, TestSite};
pub use xml::{attrs, element_attrs, http_headers, texts};
pub use xsd::xsd_validate;
