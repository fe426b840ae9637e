//! [`SiteService`]: the standalone server's static file service.
//!
//! It serves what the OAI index may list and nothing else: visible regular files inside the
//! root (symlinks only when their target stays inside), `index.html` for folders, with the
//! `Content-Type` of [`crate::mime::detect`] and a strong `ETag`. Dot-names, FIFOs, devices,
//! sockets and anything outside the root get 404 before a file is opened.

mod body;
mod service;
mod small;
mod stream;

pub use body::SiteBody;
pub use service::SiteService;
