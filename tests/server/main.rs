//! End-to-end tests of `modoai`: the standalone server (in this process) and the Layer with every
//! verb and error, schemas, paging, the DIDL payload, what is and is not a record, index upkeep
//! and real peers; and the `modoai` binary as a process: its command line, memory, SIGHUP reload,
//! SIGTERM shutdown and file watching.

mod access;
mod browser;
mod cli;
mod connections;
mod crate_plugins;
mod crate_tools;
mod deploy;
mod didl;
mod doors;
mod errors;
mod flow;
mod formats;
mod hostile;
mod index;
mod interop;
mod isolation;
mod layer;
mod manual;
mod memory;
mod mistakes;
mod observe;
mod own_files;
mod paging;
mod persist;
mod records;
mod reload;
mod resourcesync;
mod sets;
mod shutdown;
mod verbs;
mod watch;

/// The visible regular files of `examples/site`, as encoded URL paths.
pub(crate) const EXAMPLE_FILES: [&str; 14] = [
    "about.html",
    "data/catalog.xml",
    "data/logo-copy",
    "data/measurements.csv",
    "data/station.json",
    "docs/readme.txt",
    "docs/report.pdf",
    "images/banner.tiff",
    "images/icon.svg",
    "images/logo.png",
    "images/pattern.gif",
    "images/sunset.jpg",
    "index.html",
    "notes%20and%20drafts/minutes%20%E2%80%93%20draft%20%231.txt",
];

/// The example site's identifiers on `server`, sorted and unique.
pub(crate) fn example_ids(server: &integration_tests::Server) -> Vec<String> {
    let mut ids: Vec<String> = EXAMPLE_FILES.iter().map(|p| server.id(p)).collect();
    ids.sort();
    ids
}
