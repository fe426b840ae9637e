//! Opening, creating and rebuilding an archive's index.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::directory::MmapDirectory;
use tantivy::{Index, IndexSettings};

use super::analyzer::{text_analyzer, words_analyzer, TEXT_ANALYZER, WORDS_ANALYZER};
use super::reads::SearchDirectory;
use super::schema::{Fields, SCHEMA_VERSION};
use crate::ExplorerError;

/// The index's folder inside the archive.
pub const INDEX_DIR: &str = "explorer-index";
/// Bytes of stored documents compressed together. A capture's stored fields take one or two
/// blocks of this size, so that reading one (a page of results, an export's rows) decompresses
/// little besides it; tantivy's default (16 KiB) decompresses about six captures for each.
const STORE_BLOCK: usize = 4096;

/// What a commit of the index covers: the ledger up to byte `ledger`, `captures` documents.
/// Stored as the commit's payload, so it is exactly as durable as the documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Ledger bytes whose captures are all in the index.
    pub ledger: u64,
    /// Documents in the index.
    pub captures: u64,
    /// The schema version the index was built with.
    pub schema: u32,
    /// Bytes of the deletions file ([`super::DELETIONS_FILE`]) the commit covers; `None` for an
    /// index built before deletions were kept (the next build adds those of the ledger it covers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletions: Option<u64>,
}

/// An archive's index, opened.
#[derive(Clone, Debug)]
pub struct ArchiveIndex {
    path: PathBuf,
    index: Index,
    fields: Fields,
}

impl ArchiveIndex {
    /// The index folder of the archive at `archive`.
    pub fn path_of(archive: &Path) -> PathBuf {
        archive.join(INDEX_DIR)
    }

    /// Opens the archive's index, or `None` when it has none yet (never indexed, or a first
    /// indexing that has not committed).
    pub fn open(archive: &Path) -> Result<Option<ArchiveIndex>, ExplorerError> {
        Self::open_in(&Self::path_of(archive), false)
    }

    /// Opens the index in the folder `path` (wherever it is), as [`ArchiveIndex::open`] does.
    pub fn open_at(path: &Path) -> Result<Option<ArchiveIndex>, ExplorerError> {
        Self::open_in(path, false)
    }

    /// Opens the archive's index to search it, as [`ArchiveIndex::open`] does, with its
    /// document store read rather than mapped in memory, so that the stored documents of hits
    /// do not stay in the server's resident memory.
    pub fn open_for_search(archive: &Path) -> Result<Option<ArchiveIndex>, ExplorerError> {
        Self::open_in(&Self::path_of(archive), true)
    }

    /// Opens the index in the folder `path` to search it, as [`ArchiveIndex::open_for_search`].
    pub fn open_for_search_at(path: &Path) -> Result<Option<ArchiveIndex>, ExplorerError> {
        Self::open_in(path, true)
    }

    fn open_in(path: &Path, search: bool) -> Result<Option<ArchiveIndex>, ExplorerError> {
        let path = path.to_owned();
        if !path.join("meta.json").exists() {
            return Ok(None);
        }
        let index = if search {
            SearchDirectory::open(&path)
                .map_err(tantivy::TantivyError::from)
                .and_then(Index::open)
        } else {
            Index::open_in_dir(&path)
        }
        .map_err(ExplorerError::index(&path))?;
        let fields = Fields::of(&index.schema()).ok_or_else(|| ExplorerError::Index {
            path: path.clone(),
            error: tantivy::TantivyError::SchemaError(
                "the index was built by another version".into(),
            ),
        })?;
        let opened = ArchiveIndex {
            path,
            index,
            fields,
        };
        opened.register();
        if opened.checkpoint()?.schema != SCHEMA_VERSION {
            return Err(ExplorerError::Index {
                path: opened.path,
                error: tantivy::TantivyError::SchemaError("another schema version".into()),
            });
        }
        Ok(Some(opened))
    }

    /// Opens the index, creating it when missing, and rebuilding it (an empty one, which the
    /// next [`super::build`] fills from the archive) when it cannot be opened: damaged files, or
    /// built by another version. The second value says whether it was rebuilt.
    pub fn open_or_create(archive: &Path) -> Result<(ArchiveIndex, bool), ExplorerError> {
        Self::open_or_create_at(&Self::path_of(archive))
    }

    /// [`ArchiveIndex::open_or_create`] for the index in the folder `path`.
    pub fn open_or_create_at(path: &Path) -> Result<(ArchiveIndex, bool), ExplorerError> {
        match Self::open_at(path) {
            Ok(Some(index)) => Ok((index, false)),
            Ok(None) => Ok((Self::create_at(path)?, false)),
            Err(e @ ExplorerError::Index { .. }) => {
                tracing::warn!(error = %e, "the index cannot be used; rebuilding it from the archive");
                Ok((Self::create_at(path)?, true))
            }
            Err(e) => Err(e),
        }
    }

    /// A new, empty index (whatever was in its folder is removed).
    pub fn create(archive: &Path) -> Result<ArchiveIndex, ExplorerError> {
        Self::create_at(&Self::path_of(archive))
    }

    /// A new, empty index in the folder `path` (whatever was in it is removed).
    pub fn create_at(path: &Path) -> Result<ArchiveIndex, ExplorerError> {
        let path = path.to_owned();
        if path.exists() {
            fs::remove_dir_all(&path).map_err(ExplorerError::io(&path))?;
        }
        fs::create_dir_all(&path).map_err(ExplorerError::io(&path))?;
        let (schema, fields) = Fields::schema();
        let dir = MmapDirectory::open(&path).map_err(|e| ExplorerError::Index {
            path: path.clone(),
            error: e.into(),
        })?;
        let index = Index::create(dir, schema, settings()).map_err(ExplorerError::index(&path))?;
        let created = ArchiveIndex {
            path,
            index,
            fields,
        };
        created.register();
        Ok(created)
    }

    /// A new, empty index in memory, with the schema and analyzers of one on disk: what the
    /// search fuzz target builds its queries against.
    pub(crate) fn in_memory() -> ArchiveIndex {
        let (schema, fields) = Fields::schema();
        let index = ArchiveIndex {
            path: PathBuf::new(),
            index: Index::create_in_ram(schema),
            fields,
        };
        index.register();
        index
    }

    fn register(&self) {
        let tokenizers = self.index.tokenizers();
        tokenizers.register(TEXT_ANALYZER, text_analyzer());
        tokenizers.register(WORDS_ANALYZER, words_analyzer());
    }

    /// Checks every file of the index against its checksum; the damaged ones.
    pub fn damaged_files(&self) -> Result<Vec<PathBuf>, ExplorerError> {
        let damaged = self
            .index
            .validate_checksum()
            .map_err(ExplorerError::index(&self.path))?;
        Ok(damaged.into_iter().collect())
    }

    /// What the last commit covers (nothing for a new index).
    pub fn checkpoint(&self) -> Result<Checkpoint, ExplorerError> {
        let metas = self
            .index
            .load_metas()
            .map_err(ExplorerError::index(&self.path))?;
        Ok(match metas.payload {
            Some(p) => serde_json::from_str(&p).unwrap_or_default(),
            None => Checkpoint {
                schema: SCHEMA_VERSION,
                ..Checkpoint::default()
            },
        })
    }

    /// The tantivy index.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Its fields.
    pub fn fields(&self) -> Fields {
        self.fields
    }

    /// Its folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The settings of a new index: its stored documents in blocks of [`STORE_BLOCK`] bytes.
fn settings() -> IndexSettings {
    IndexSettings {
        docstore_blocksize: STORE_BLOCK,
        ..IndexSettings::default()
    }
}
