//! The index of an archive, inside the archive (`ARCHIVE/explorer-index/`, tantivy): one
//! document per capture, built incrementally from the ledger ([`build`]), with the ledger
//! position reached stored in each commit ([`Checkpoint`]), so a killed run loses nothing and
//! adds nothing twice. The deletions the ledger records are kept beside it ([`Gone`]).

mod analyzer;
mod build;
mod document;
mod files;
mod fold;
mod foreign;
mod gone;
mod jobs;
mod metadata;
mod reading;
mod reads;
mod resolve;
mod schema;
mod segment;
mod store;

pub use analyzer::{
    keyword_analyzer, text_analyzer, words_analyzer, WordsOnly, WordsOnlyStream,
    WordsOnlyTokenizer, TEXT_ANALYZER, WORDS_ANALYZER,
};
pub use build::{build, BuildOptions, BuildReport, Progress};
pub use document::{date_value, document, status_class, DIGEST_MISMATCH, UNRESOLVED_REVISIT};
pub use files::{FileRead, FilesCheckpoint};
pub use fold::{fold, Fold, FoldStream, FoldTokenizer};
pub use foreign::{build_collection, build_foreign};
pub use gone::{read_gone, Gone, GoneWriter, DELETIONS_FILE};
pub use metadata::MetadataCounts;
pub use schema::{Fields, EXCERPT_CHARS, SCHEMA_VERSION};
pub use segment::{Scripts, ScriptsStream};
pub use store::{ArchiveIndex, Checkpoint, INDEX_DIR};
