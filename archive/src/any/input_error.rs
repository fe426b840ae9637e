//! Why a path is not an input of the reader.

use std::path::PathBuf;

/// What expected inputs are, for errors.
const EXPECTED: &str = "a modoai archive (a folder with ledger.jsonl), a folder of WARC/ARC \
    files, a .warc, .warc.gz, .arc or .arc.gz file, or a .wacz package";

/// Why a path is not an input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// It cannot be read.
    #[error("{}: {error}", path.display())]
    Io {
        /// Which path.
        path: PathBuf,
        /// What went wrong.
        #[source]
        error: std::io::Error,
    },
    /// It is none of the inputs.
    #[error("{} is not a web archive: expected {EXPECTED}", path.display())]
    NotAnInput {
        /// Which path.
        path: PathBuf,
    },
    /// A WACZ package that cannot be read as one.
    #[error("{}: not a readable WACZ package: {reason}", path.display())]
    BadWacz {
        /// Which package.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}
