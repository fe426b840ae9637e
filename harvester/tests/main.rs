//! The library's own integration tests, one module per area; fixtures in `tests/fixtures/`.
//! Tests that run the `modoai-harvester` program, our server or a peer server are in the root
//! `tests/` crate (`tests/harvester/`); those of the archive it writes are `modoai-archive`'s
//! (`archive/tests/`).

mod client;
mod parse;
mod support;
