//! Downloading an archive from its store into a local folder: the same layout, so the folder is
//! an archive that the harvester's readers and pywb open as it is.

use std::path::Path;

use futures_util::TryStreamExt as _;
use object_store::ObjectStore as _;

use super::error::io_at;
use super::transfer::download;
use super::{Store, StoreError};

/// What a fetch downloaded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fetched {
    /// Files downloaded.
    pub files: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Files already present with the stored size (a fetch run again), not downloaded again.
    pub kept: u64,
}

/// Downloads every object under the store's prefix into `out` (created if missing), keeping
/// their paths below the prefix. Files `out` already has with the same size are kept (WARC files
/// never change once closed; the ledger, index and state grow with every run, so their size
/// tells an older copy). Each download is written beside its file, then renamed.
pub async fn fetch(store: &Store, out: &Path) -> Result<Fetched, StoreError> {
    let prefix = store.key("");
    let objects: Vec<_> = store
        .s3
        .list(Some(&prefix))
        .try_collect()
        .await
        .map_err(|e| store.refused("a listing of", "", e))?;
    let mut fetched = Fetched::default();
    for meta in objects {
        let Some(rel) = relative(meta.location.as_ref(), prefix.as_ref()) else {
            continue;
        };
        let dest = out.join(rel);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir).map_err(io_at(dir))?;
        }
        if std::fs::metadata(&dest).is_ok_and(|m| m.len() == meta.size) {
            fetched.kept += 1;
            continue;
        }
        let size = download(store, rel, &dest).await?;
        fetched.files += 1;
        fetched.bytes += size;
    }
    Ok(fetched)
}

/// The object's path below the prefix, when it is a path of the archive's layout.
fn relative<'a>(location: &'a str, prefix: &str) -> Option<&'a str> {
    let rel = match prefix.is_empty() {
        true => location,
        false => location.strip_prefix(prefix)?.strip_prefix('/')?,
    };
    let safe = !rel.is_empty() && rel.split('/').all(|s| !s.is_empty() && s != "..");
    safe.then_some(rel)
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn only_paths_below_the_prefix_are_fetched() {
        assert_eq!(relative("p/warcs/a.warc.gz", "p"), Some("warcs/a.warc.gz"));
        assert_eq!(relative("p/index.cdxj", "p"), Some("index.cdxj"));
        assert_eq!(relative("pq/index.cdxj", "p"), None);
        assert_eq!(relative("index.cdxj", ""), Some("index.cdxj"));
        assert_eq!(relative("p/../x", "p"), None);
    }
}
