//! Settings shared by the Layer and the standalone server ([`Config`]), and the TOML file that
//! sets them ([`FileConfig`]).

mod apply;
mod builder;
mod error;
mod file;
mod validate;

pub use builder::Config;
pub use error::ConfigError;
pub use file::{FileConfig, OaiSection, ServerSection};
