//! MementoMap archive profiles (Alam et al., JCDL 2019): what an archive holds, per SURT key, as a
//! sorted UKVS file that can be compacted and binary-searched.
//!
//! ```
//! use modoai_archive::profile::{compact, lookup, CompactOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let full = dir.path().join("full.ukvs");
//! std::fs::write(&full, "com,cnn)/a 3/1\ncom,cnn)/b 2/2\ncom,cnn)/c 1/1\n")?;
//! let small = dir.path().join("small.ukvs");
//! let stats = compact(&full, &small, &CompactOptions::default().path_factor(0.05))?;
//! assert_eq!(stats.rollups, 1);
//! assert_eq!(std::fs::read_to_string(&small)?, "com,cnn)/* 6/4\n");
//!
//! let hit = lookup(&small, "com,cnn)/a/b.html")?.expect("covered by the roll-up");
//! assert_eq!((hit.key.as_str(), hit.frequency.to_string().as_str(), hit.distance), ("com,cnn)/*", "6/4", 3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The file format is UKVS (`ukvs.md` of oduwsdl/ORS): `!` header lines (`!context`, `!id`,
//! `!fields`, `!meta`), then `key frequency` lines sorted bytewise. Keys are SURTs without query
//! and without trailing `/` or `,` ([`crate::surt::mementomap_key`]), optionally ending in a
//! wildcard (`com,*`, `com,cnn)/*`). A frequency is `M/R`: M mementos (URI-Ms) of R distinct
//! URI-Rs ([`Frequency`]).
//!
//! [`generate`] writes the full profile of a CDXJ index, [`compact`] rolls sub-trees up into
//! wildcard keys in one pass with memory bounded by the key depth, and [`lookup`] answers by
//! binary search on the file.

mod compact;
mod frequency;
mod generate;
mod lookup;

pub use compact::{compact, compact_lines, CompactOptions, Stats};
pub use frequency::Frequency;
pub use generate::{generate, generate_from, Header};
pub use lookup::{lookup, lookup_keys, Hit};

/// Why a profile could not be made or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// Reading or writing a file failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A line of the input is not what the format says.
    #[error("line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A key is not a SURT and not a URL either.
    #[error("{0:?} is neither a SURT nor a URL")]
    Key(String),
}
