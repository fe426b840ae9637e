//! The access rules and flow limits in force, swapped as a whole when the configuration file
//! changes ([`Policy`]); and the [`Config`](crate::Config) settings that set them.

mod current;
mod reload;
mod restart;
mod setters;

pub use current::Policy;
pub use reload::Reloader;
