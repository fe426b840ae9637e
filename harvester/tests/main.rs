//! The library's own integration tests, one module per area; fixtures in `tests/fixtures/`.
//! Tests that run the `modoai-harvester` program, our server or a peer server are in the root
//! `tests/` crate (`tests/harvester/`).

mod cdxj;
mod client;
mod parse;
mod profile;
mod support;
mod surt;
mod warc;
