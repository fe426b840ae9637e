//! Sets a webmaster draws: every folder that holds records ([`FolderSets`]), and named selections
//! of files from the configuration ([`NamedSet`]), beside the MIME-type sets every record has.
//!
//! ```
//! use modoai::sets::{FolderSets, NamedSet};
//!
//! let reports = NamedSet::new("reports", "Annual reports")?
//!     .description("Every annual report since 2001")
//!     .include("reports/**")?
//!     .exclude("**/drafts/**")?
//!     .mime("application/pdf")?;
//! assert!(reports.contains("reports/2019/annual.pdf".as_ref(), "application/pdf"));
//! assert!(!reports.contains("reports/drafts/2020.pdf".as_ref(), "application/pdf"));
//! let config = modoai::Config::new("examples/site", "http://www.example.org/")?
//!     .folder_sets(FolderSets::Depth(2.try_into()?))
//!     .named_sets(vec![reports])?;
//! # let _ = config;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A record's membership is worked out once, when the index stores the record, and stored with
//! it (its `Membership`): the keys of its sets, the header's setSpecs and what a deletion record
//! keeps all come from there. A change of the definitions moves the datestamp of every record
//! whose membership it changes (`index/regroup.rs`).

mod definitions;
mod file;
mod folders;
mod membership;
mod named;
mod shared;

pub(crate) use definitions::{Definitions, Lookup};
pub(crate) use file::resolve_entries;
pub use file::SetEntry;
pub use folders::FolderSets;
pub(crate) use membership::{folder_key, folder_spec, Membership, SetKey, FOLDER as FOLDER_TAG};
pub use named::{NamedSet, SetError};
pub(crate) use shared::SiteSets;
