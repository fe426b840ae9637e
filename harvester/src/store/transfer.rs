//! Moving one file's bytes: a streamed (multipart) upload that hashes what it sends, a read-back
//! check of what the store holds, and a streamed download. At most two parts are in memory.

use std::path::Path;

use bytes::Bytes;
use futures_util::StreamExt as _;
use object_store::multipart::MultipartStore as _;
use object_store::ObjectStore as _;
use sha2::{Digest as _, Sha256};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::error::io_at;
use super::fault::{crash_at, CrashPoint};
use super::{Store, StoreError};

/// Bytes per part of a multipart upload: above S3's 5 MiB minimum, and all parts but the last
/// of one size, as some stores require.
const PART: usize = 8 << 20;

/// Size and SHA-256 of a file's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sum {
    /// Bytes.
    pub(crate) size: u64,
    /// SHA-256, lower-case hex.
    pub(crate) sha256: String,
}

/// Uploads `local` as `rel`, in one request when it fits in a part, else in parts. `started`
/// gets the multipart upload's id before the first part is sent (to journal it). Returns what
/// was sent.
pub(crate) async fn upload(
    store: &Store,
    local: &Path,
    rel: &str,
    mut started: impl FnMut(Option<&str>) -> Result<(), StoreError>,
) -> Result<Sum, StoreError> {
    let mut file = tokio::fs::File::open(local).await.map_err(io_at(local))?;
    let mut hash = Sha256::new();
    let first = read_part(&mut file, local).await?;
    let key = store.key(rel);
    if first.len() < PART {
        started(None)?;
        hash.update(&first);
        let size = first.len() as u64;
        store
            .s3
            .put(&key, first.into())
            .await
            .map_err(|e| store.refused("an upload to", rel, e))?;
        return Ok(finish(size, hash));
    }
    let id = store
        .s3
        .create_multipart(&key)
        .await
        .map_err(|e| store.refused("a multipart upload to", rel, e))?;
    started(Some(&id))?;
    let result = parts(store, &key, &id, first, &mut file, local, &mut hash).await;
    match result {
        Ok((size, ids)) => {
            store
                .s3
                .complete_multipart(&key, &id, ids)
                .await
                .map_err(|e| store.refused("the completion of an upload to", rel, e))?;
            Ok(finish(size, hash))
        }
        Err(e) => {
            // Best effort: the journal still names the upload, so the next run aborts it too.
            let _ = store.s3.abort_multipart(&key, &id).await;
            Err(e)
        }
    }
}

/// Sends the parts, reading the next one while the current one is sent.
async fn parts(
    store: &Store,
    key: &object_store::path::Path,
    id: &String,
    first: Bytes,
    file: &mut tokio::fs::File,
    local: &Path,
    hash: &mut Sha256,
) -> Result<(u64, Vec<object_store::multipart::PartId>), StoreError> {
    let (mut part, mut size, mut ids) = (first, 0u64, Vec::new());
    loop {
        hash.update(&part);
        size += part.len() as u64;
        let send = store.s3.put_part(key, id, ids.len(), part.into());
        let (sent, next) = tokio::join!(send, read_part(file, local));
        ids.push(sent.map_err(|e| store.refused("a part upload to", key.as_ref(), e))?);
        if ids.len() == 1 {
            crash_at(CrashPoint::Part);
        }
        part = next?;
        if part.is_empty() {
            return Ok((size, ids));
        }
    }
}

/// Up to [`PART`] bytes of `file`; fewer only at its end.
async fn read_part(file: &mut tokio::fs::File, path: &Path) -> Result<Bytes, StoreError> {
    let mut buf = Vec::with_capacity(PART);
    file.take(PART as u64)
        .read_to_end(&mut buf)
        .await
        .map_err(io_at(path))?;
    Ok(buf.into())
}

fn finish(size: u64, hash: Sha256) -> Sum {
    Sum {
        size,
        sha256: hex::encode(hash.finalize()),
    }
}

/// Size and SHA-256 of the object `rel` as the store reads it back (`None` when it has no such
/// object).
pub(crate) async fn stored_sum(store: &Store, rel: &str) -> Result<Option<Sum>, StoreError> {
    let key = store.key(rel);
    let got = match store.s3.get(&key).await {
        Ok(got) => got,
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(store.refused("a read of", rel, e)),
    };
    let mut stream = got.into_stream();
    let (mut hash, mut size) = (Sha256::new(), 0u64);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| store.refused("a read of", rel, e))?;
        hash.update(&chunk);
        size += chunk.len() as u64;
    }
    Ok(Some(finish(size, hash)))
}

/// Size and SHA-256 of a local file.
pub(crate) async fn local_sum(path: &Path) -> Result<Sum, StoreError> {
    let mut file = tokio::fs::File::open(path).await.map_err(io_at(path))?;
    let (mut hash, mut size) = (Sha256::new(), 0u64);
    loop {
        let part = read_part(&mut file, path).await?;
        if part.is_empty() {
            return Ok(finish(size, hash));
        }
        hash.update(&part);
        size += part.len() as u64;
    }
}

/// Checks that the store holds `rel` with exactly `sum`: its size, then the SHA-256 of the bytes
/// read back.
pub(crate) async fn verify(
    store: &Store,
    rel: &str,
    sum: &Sum,
    local: &Path,
) -> Result<(), StoreError> {
    let mismatch = |detail: String| StoreError::Mismatch {
        url: store.url_of(rel),
        local: local.to_owned(),
        detail,
    };
    match stored_sum(store, rel).await? {
        Some(s) if s == *sum => Ok(()),
        Some(s) if s.size != sum.size => Err(mismatch(format!(
            "{} bytes stored, {} sent",
            s.size, sum.size
        ))),
        Some(s) => Err(mismatch(format!(
            "SHA-256 {} stored, {} sent",
            s.sha256, sum.sha256
        ))),
        None => Err(mismatch("no object after the upload".to_owned())),
    }
}

/// Downloads `rel` into `dest` (through `dest.part`, fsynced, then renamed); returns its size.
pub(crate) async fn download(store: &Store, rel: &str, dest: &Path) -> Result<u64, StoreError> {
    let got = store
        .s3
        .get(&store.key(rel))
        .await
        .map_err(|e| store.refused("a read of", rel, e))?;
    let mut part = dest.as_os_str().to_owned();
    part.push(".part");
    let part = std::path::PathBuf::from(part);
    let mut out = tokio::fs::File::create(&part).await.map_err(io_at(&part))?;
    let mut stream = got.into_stream();
    let mut size = 0u64;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| store.refused("a read of", rel, e))?;
        out.write_all(&chunk).await.map_err(io_at(&part))?;
        size += chunk.len() as u64;
    }
    out.sync_all().await.map_err(io_at(&part))?;
    tokio::fs::rename(&part, dest).await.map_err(io_at(dest))?;
    Ok(size)
}
