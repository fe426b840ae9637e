//! The library's own integration tests, one module per area, with the Python archive tools of
//! the repository's venv as oracles. Tests that run the programs are in the root `tests/` crate.

mod any;
mod cdxj;
mod profile;
mod support;
mod surt;
mod warc;
