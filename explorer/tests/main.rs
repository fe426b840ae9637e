//! The explorer library's integration tests: synthetic archives written through the archive
//! library, indexed incrementally and searched in this process. (The `modoai-explorer` program is
//! tested end to end in the root `tests/explorer/`.)

mod cursor;
mod export;
mod export_warc;
mod gone;
mod incremental;
mod lookup;
mod web;

use std::path::Path;
use std::sync::OnceLock;

use modoai_explorer::index::{build, BuildOptions, BuildReport};
use modoai_explorer::synthetic::{write, Spec};

/// A runtime for the PDF tool runner (synthetic archives have no PDFs).
pub(crate) fn options() -> BuildOptions {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let rt = RUNTIME.get_or_init(|| tokio::runtime::Runtime::new().unwrap());
    BuildOptions::new(
        modoai_tools::ToolRunner::defaults().unwrap(),
        rt.handle().clone(),
    )
}

/// `n` synthetic captures from number `first` on, `hot` of them of one URL.
pub(crate) fn synthetic(dir: &Path, first: u64, n: u64, hot: u64) {
    write(
        dir,
        &Spec {
            captures: n,
            hot,
            first,
            text: (100, 800),
            seed: 7,
        },
    )
    .unwrap();
}

/// Indexes `dir`.
pub(crate) fn index(dir: &Path) -> BuildReport {
    build(dir, "a", &options(), &()).unwrap()
}
