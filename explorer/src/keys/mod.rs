//! API keys, as PrEV had them: each with a quota of requests per hour, a rate, and a scope of
//! what it may see. Keys are stored hashed (SHA-256, [`modoai_gate::hash_api_key`]), in a
//! TOML file only `modoai-explorer keys` writes; a key itself is shown once, when it is made.

mod limits;
mod store;

pub use limits::{Decision, Limits, Usage, WINDOW};
pub use store::{ApiKey, KeyError, KeyFile};
