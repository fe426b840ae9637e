//! The library's own integration tests, one module per area, through its public API
//! ([`modoai_tools::Plugins`]) with the real tools that `scripts/setup` installs. Tests that run
//! the programs are in the root `tests/` crate.

mod lookup;
mod siegfried;
